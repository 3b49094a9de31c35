package main

helper(x) := x

deny contains msg if {
	msg := lib.helper(input.kind)
}
