package main

deny contains msg if {
	a
	msg := "never"
}

a if b

b if a
