package main

import rego.v1

deny contains msg if {
	every c in input.containers { startswith(c, "a") }
	msg := "all a"
}
