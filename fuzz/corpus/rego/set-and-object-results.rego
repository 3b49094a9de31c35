package main

import rego.v1

deny contains {"msg": m, "field": f} if {
	some f, v in input.spec
	v == null
	m := sprintf("%s is null", [f])
}
