package main

deny contains msg if {
	msg := sprintf("[%05d] [%-6s] [%6.2f] [%x] [%+d] [%o] [%.3e] [%g] [%t] [%q] [%.1s] [%#X] [%v]", [42, "ab", 3.14159, 255, 7, 8, 1234.5, 3.14159, true, "q", "xyz", 255, "v"])
}
