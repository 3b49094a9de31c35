# Another namespace, in Rego v1 syntax: run with `--namespace labels`.
package labels

import rego.v1

deny contains msg if {
	not input.metadata.labels.team
	msg := sprintf("%s %s has no team label", [input.kind, input.metadata.name])
}
