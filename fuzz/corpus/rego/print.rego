package main

deny contains msg if {
	print("checking", input.metadata.name)
	input.kind == "Deployment"
	msg := "denied"
}
