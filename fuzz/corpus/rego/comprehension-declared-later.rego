# conftest's examples/combine shape: `n` in the comprehension is its own local.
package main

deny contains msg if {
	names := {n | input.items[n]}
	n := count(names)
	msg := sprintf("%d items", [n])
}
