#!/usr/bin/env bash
# Records how Kubernetes reads each YAML case: writes the cases
# (scripts/yaml-truth/cases.py) to crates/yaml/tests/k8s-truth/cases/, builds the recorder
# (scripts/yaml-truth/main.go: apimachinery's document split, then sigs.k8s.io/yaml.YAMLToJSON
# on go-yaml v2) from Debian's Go packages, and writes its answers to
# crates/yaml/tests/k8s-truth/truth.tsv, which `cargo test -p driftlint-yaml --test k8s_truth`
# compares driftlint's loaders against (no Go needed there).
#
#   scripts/record-yaml-truth.sh            # needs golang-go, golang-k8s-sigs-yaml-dev
#   INSTALL=1 scripts/record-yaml-truth.sh  # installs them first (apt-get, as root)
#
# Debian's golang-k8s-sigs-yaml-dev is sigs.k8s.io/yaml 1.3.0 over gopkg.in/yaml.v2 2.4.0;
# newer sigs.k8s.io/yaml (1.4 to 1.6) carry the same go-yaml v2 code under another import path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/crates/yaml/tests/k8s-truth"
if [ -n "${INSTALL:-}" ]; then
  apt-get install -y --no-install-recommends golang-go golang-k8s-sigs-yaml-dev golang-gopkg-yaml.v2-dev
fi
gocode=/usr/share/gocode
[ -d "$gocode/src/sigs.k8s.io/yaml" ] || { echo "missing $gocode/src/sigs.k8s.io/yaml: install golang-k8s-sigs-yaml-dev (or run with INSTALL=1)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# GOPATH mode over Debian's source packages: nothing is downloaded.
cp "$root/scripts/yaml-truth/main.go" "$work/main.go"
(cd "$work" && GO111MODULE=off GOPATH="$gocode" GOFLAGS= GOPROXY=off go build -o "$work/yaml-truth" main.go)
rm -rf "$dir/cases"
python3 "$root/scripts/yaml-truth/cases.py" "$dir/cases"
(cd "$dir/cases" && "$work/yaml-truth" ./*.yaml) > "$dir/truth.tsv"
echo "recorded $(wc -l < "$dir/truth.tsv") cases in $dir/truth.tsv" >&2
