package main

deny contains msg if {
	input.kind == "Nothing"
	msg := concat(",", ["a"], "extra", "more")
}
