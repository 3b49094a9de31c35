# Rules across objects: run with `--combine --namespace combined`.
package combined

deny contains msg if {
	some i, j
	a := input[i]
	b := input[j]
	i < j
	a.contents.kind == b.contents.kind
	a.contents.metadata.name == b.contents.metadata.name
	msg := sprintf("%s %s is defined in both %s and %s", [a.contents.kind, a.contents.metadata.name, a.path, b.path])
}
