package main

deny[msg] {
	input.kind == "Deployment"
	msg := "v0"
}
