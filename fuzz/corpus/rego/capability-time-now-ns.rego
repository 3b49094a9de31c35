package main

deny contains msg if {
	input.kind == "Nothing"
	msg := time.now_ns()
}
