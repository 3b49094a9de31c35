package main

deny contains msg if {
	y := [a | a := input.items[_]; a == x]
	x := 2
	msg := count(y)
}
