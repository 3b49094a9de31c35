package main

deny contains msg if {
	input.kind == "Nothing"
	count(unbound) > 1
	msg := "never"
}
