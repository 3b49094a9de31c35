#!/usr/bin/env bash
# Prints the hash of every file that goes into a build of driftlint under DIR (default: the
# directory above this script): manifests, lock file, sources of the package and its crates.
# The action keys its build cache by it, and a release commit records it in
# action/release.txt, so that a pinned commit knows whether its sources are a release's.
set -euo pipefail
dir="${1:-$(cd "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$dir"
find Cargo.toml Cargo.lock src crates -type f \
  -not -path 'crates/*/fuzz/*' -not -path '*/target/*' -print0 |
  LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
