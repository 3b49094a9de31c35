package main

deny contains msg if {
	msg := [time.clock([0, "UTC"]), time.date(86400000000000), time.weekday(0)]
}
