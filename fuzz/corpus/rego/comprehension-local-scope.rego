package main

deny contains n if {
	picked := [x | x := input.items[i]; i > 0]
	i := 0
	n := count(picked) + i
}
