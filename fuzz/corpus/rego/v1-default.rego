package main

deny contains msg if {
	input.kind == "Deployment"
	some c in input.containers
	endswith(c, ":latest")
	msg := sprintf("%s uses :latest", [c])
}
