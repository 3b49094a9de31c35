#!/usr/bin/env bash
# Prints action/release.txt for release VERSION from the release's SHA256SUMS file: the
# version, the hash of the sources the archives were built from (sources-hash.sh), and each
# archive's SHA-256. The release workflow commits it as the release commit, which the tag
# names; action/prepare.sh reads it, so that the action pinned by that commit's sha (or by a
# branch whose sources are unchanged since) downloads the release binary and verifies it
# against checksums carried by the pinned commit itself.
set -euo pipefail
version="${1:?usage: release-file.sh VERSION SHA256SUMS}"
sums="${2:?usage: release-file.sh VERSION SHA256SUMS}"
[[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] || { echo "not a version: $version" >&2; exit 2; }
here="$(cd "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)"
echo "# The release built from this commit's sources; written by .github/workflows/release.yml."
echo "version $version"
echo "sources $(bash "$here/sources-hash.sh" "$here/..")"
while read -r hash file; do
  file="${file#\*}"
  [[ "$hash" =~ ^[0-9a-f]{64}$ && "$file" =~ ^driftlint-[A-Za-z0-9_.-]+$ ]] || { echo "bad SHA256SUMS line: $hash $file" >&2; exit 2; }
  echo "sha256 $hash $file"
done <"$sums"
