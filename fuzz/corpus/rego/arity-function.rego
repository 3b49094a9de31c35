package main

label(obj, key) := obj.metadata.labels[key]

deny contains msg if {
	input.kind == "Nothing"
	msg := label(input)
}
