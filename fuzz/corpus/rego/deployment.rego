# Conftest-style rules over single objects (Rego v1 syntax, the default).
package main

# A failure with an object message: the finding goes to the image's line.
deny_latest_tag contains msg if {
	c := input.spec.template.spec.containers[i]
	endswith(c.image, ":latest")
	msg := {
		"msg": sprintf("container %s uses a :latest image", [c.name]),
		"field": sprintf("/spec/template/spec/containers/%d/image", [i]),
	}
}

# A failure driven by a data document (data/limits.yaml), at a dotted field.
deny contains msg if {
	input.kind == "Deployment"
	input.spec.replicas < data.limits.min_replicas
	msg := {"msg": sprintf("%s has %d replicas, fewer than %d", [input.metadata.name, input.spec.replicas, data.limits.min_replicas]), "field": "spec.replicas"}
}

# A warning with a plain string message: the finding goes to the `kind:` line.
warn_no_limits contains msg if {
	c := input.spec.template.spec.containers[_]
	not c.resources.limits
	msg := sprintf("container %s has no resource limits", [c.name])
}

# `violation` is a failure too.
violation contains msg if {
	input.kind == "Service"
	input.spec.type == "NodePort"
	msg := "NodePort services are not allowed"
}

# Not rules by conftest's naming: never reported.
denylist contains msg if {
	msg := "never reported"
}

# The legacy deployment may keep its :latest image (exempts deny_latest_tag).
exception contains rules if {
	input.metadata.name == "legacy"
	rules := ["latest_tag"]
}
