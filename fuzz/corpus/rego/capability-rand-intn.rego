package main

deny contains msg if {
	input.kind == "Nothing"
	msg := rand.intn("seed", 10)
}
