package main

deny contains msg if {
	x := data.main.nothing_here
	msg := x
}
