package main

deny contains msg if {
	msg := sprintf("%04000000000d", [1])
}
