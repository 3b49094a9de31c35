#!/usr/bin/env bash
# Compares two driftlint builds' outputs on one layout, to show that a change that should not
# alter what is reported does not: `check` (human, JSON, SARIF) and `compare -o json` (with the
# temporary file names and times of kube-compare's diff headers masked), and the bundled
# example. Prints OK or DIFF (with the first differing lines) per case; exits 0 either way.
#
#   scripts/compare-builds.sh OLD NEW LAYOUT REFERENCE [OUT]
#
# LAYOUT is a directory of manifests (e.g. `cargo bench --bench layout -- --emit DIR 10000`
# writes DIR/repo and DIR/reference), REFERENCE the reference directory.
set -u
old=$1 new=$2 layout=$3 ref=$4 out=${5:-$(mktemp -d)}
mkdir -p "$out"
mask() { sed -E 's#/tmp/(MERGED|LIVE)-[0-9]+#/tmp/\1-X#g; s#\\t[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:.]+ \+0000#\\tTIME#g'; }
run() {
  local name=$1; shift
  "$old" "$@" 2>&1 | mask > "$out/$name.old"
  "$new" "$@" 2>&1 | mask > "$out/$name.new"
  if cmp -s "$out/$name.old" "$out/$name.new"; then
    echo "OK   $name ($(wc -l < "$out/$name.old") lines)"
  else
    echo "DIFF $name"
    diff "$out/$name.old" "$out/$name.new" | head -5 | cut -c1-200
  fi
}
run check-human check "$layout" --isolated -r "$ref" --color never
run check-json check "$layout" --isolated -r "$ref" --format json
run check-sarif check "$layout" --isolated -r "$ref" --format sarif
run compare-json compare -r "$ref/metadata.yaml" -f "$layout" -R -o json
run example check fixtures/repo --color never
echo "outputs in $out"
