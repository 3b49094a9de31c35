package main

deny contains msg if {
	input.kind == "Nothing"
	msg := http.send({"method": "get", "url": "http://127.0.0.1:9"})
}
