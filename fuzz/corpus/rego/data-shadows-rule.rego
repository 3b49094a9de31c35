package main

deny_latest contains msg if {
	endswith(input.image, ":latest")
	msg := "latest"
}
