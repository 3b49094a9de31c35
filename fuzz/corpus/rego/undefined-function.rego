package main

deny contains msg if {
	input.kind == "Nothing"
	msg := no_such_function(input)
}
