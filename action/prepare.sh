#!/usr/bin/env bash
# driftlint action, step `prepare`: choose the driftlint binary.
#
# With INPUT_BINARY (a path, or a name looked up on PATH) that binary is used as it is.
# Otherwise, when the action's sources are a release's, the release's archive for this
# runner's OS and architecture is downloaded and used only when its checksum matches (a
# mismatch fails the step: the file is not what was published). The sources are a release's
# when the action runs at a release tag (`uses: OWNER/driftlint@v1.2.3`), or when the pinned
# commit carries action/release.txt (the release workflow commits it: version, the sources'
# hash, each archive's SHA-256) and its sources still hash to what the file records — so a pin
# by the release commit's sha, or a branch whose sources are unchanged since, gets the binary
# too. The expected checksum comes from action/release.txt when the commit has it (the pinned
# commit vouches for the archive), else from the release's SHA256SUMS.
# Other refs, or a release without an archive for this runner, build driftlint from the
# action's own source (GITHUB_ACTION_PATH) in the `install` step, and the cache key names
# exactly what is built: runner OS and architecture, the Rust compiler, and a hash of every
# file that goes into the build (action/sources-hash.sh).
#
# Reads: INPUT_BINARY, GITHUB_ACTION_PATH, GITHUB_ACTION_REPOSITORY, GITHUB_ACTION_REF,
# GITHUB_SERVER_URL, DRIFTLINT_RELEASE_URL (the release's download directory instead of
# SERVER/REPOSITORY/releases/download/REF, for tests and mirrors), GITHUB_OUTPUT, RUNNER_OS,
# RUNNER_ARCH, RUNNER_TEMP.
# Writes outputs: build (true/false), driftlint (the prebuilt binary), cache-key, cache-prefix.
set -euo pipefail

out() { printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; }

binary="${INPUT_BINARY:-}"
if [ -n "$binary" ]; then
  case "$binary" in
    */*) found="$binary" ;;
    *) found="$(command -v -- "$binary" || true)" ;;
  esac
  if [ -z "$found" ] || [ ! -f "$found" ] || [ ! -x "$found" ]; then
    echo "::error title=driftlint action::input binary: \`$binary\` is not an executable file (nor a command on PATH)"
    exit 2
  fi
  found="$(cd "$(dirname -- "$found")" && pwd)/$(basename -- "$found")"
  echo "driftlint: using the prebuilt $found"
  out build false
  out driftlint "$found"
  exit 0
fi

src="${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"

# The action's repository and ref: the runner's variables, else the directory it checked the
# action out to (RUNNER/_actions/OWNER/REPO/REF; inside composite actions the variables can
# be empty).
repo="${GITHUB_ACTION_REPOSITORY:-}"
ref="${GITHUB_ACTION_REF:-}"
case "$src" in
  */_actions/*/*/*)
    rest="${src#*/_actions/}"
    [ -n "$repo" ] || repo="$(printf '%s' "$rest" | cut -d/ -f1-2)"
    [ -n "$ref" ] || ref="$(printf '%s' "$rest" | cut -d/ -f3-)"
    ;;
esac
case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
  Linux/X64) target=x86_64-unknown-linux-musl ext=tar.gz ;;
  Linux/ARM64) target=aarch64-unknown-linux-musl ext=tar.gz ;;
  macOS/X64) target=x86_64-apple-darwin ext=tar.gz ;;
  macOS/ARM64) target=aarch64-apple-darwin ext=tar.gz ;;
  Windows/X64) target=x86_64-pc-windows-msvc ext=zip ;;
  *) target='' ext='' ;;
esac
sources_hash="$(bash "$src/action/sources-hash.sh" "$src")"
version_re='^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$'
# The release this commit's sources are, by the commit's own record.
recorded='' recorded_sums=''
release_file="$src/action/release.txt"
if [ -f "$release_file" ]; then
  file_version="$(awk '$1 == "version" { print $2; exit }' "$release_file")"
  file_sources="$(awk '$1 == "sources" { print $2; exit }' "$release_file")"
  if [[ "$file_version" =~ $version_re ]] && [ "$file_sources" = "$sources_hash" ]; then
    recorded="$file_version"
    recorded_sums="$(awk '$1 == "sha256" { print $2 "  " $3 }' "$release_file")"
  else
    echo "driftlint: action/release.txt records release ${file_version:-?} of other sources (${file_sources:-?}, these are $sources_hash): not used"
  fi
fi
version=''
if [[ "$ref" =~ $version_re ]]; then
  version="$ref"
elif [ -n "$recorded" ]; then
  version="$recorded"
fi
if [ -n "$version" ] && [[ "$repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] && [ -n "$target" ]; then
  ref="$version"
  base="${DRIFTLINT_RELEASE_URL:-${GITHUB_SERVER_URL:-https://github.com}/$repo/releases/download/$ref}"
  archive="driftlint-$target.$ext"
  dir="${RUNNER_TEMP:?RUNNER_TEMP is not set}/driftlint-release"
  rm -rf "$dir" && mkdir -p "$dir"
  # The checksums: the pinned commit's own record of this release, else the release's file.
  if [ -n "$recorded" ] && [ "$recorded" = "$ref" ]; then
    sums_from="action/release.txt of the pinned commit"
    fetch_sums() { printf '%s\n' "$recorded_sums" >"$dir/SHA256SUMS"; }
  else
    sums_from="its SHA256SUMS"
    fetch_sums() { curl -fsSL --retry 3 --proto '=https,file' -o "$dir/SHA256SUMS" "$base/SHA256SUMS" 2>>"$dir/curl.log"; }
  fi
  if curl -fsSL --retry 3 --proto '=https,file' -o "$dir/$archive" "$base/$archive" 2>"$dir/curl.log" && fetch_sums; then
    want="$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$dir/SHA256SUMS")"
    if command -v sha256sum >/dev/null; then
      got="$(sha256sum "$dir/$archive" | cut -d' ' -f1)"
    else
      got="$(shasum -a 256 "$dir/$archive" | cut -d' ' -f1)"
    fi
    if [ -z "$want" ] || [ "$want" != "$got" ]; then
      echo "::error title=driftlint action::$archive of release $ref does not match $sums_from (expected ${want:-no entry}, got $got); not used"
      exit 2
    fi
    if [ "$ext" = zip ]; then (cd "$dir" && unzip -q "$archive"); else tar xzf "$dir/$archive" -C "$dir"; fi
    exe="$dir/driftlint-$target/driftlint"
    [ "$ext" = zip ] && exe="$exe.exe"
    echo "driftlint: using release $ref of $repo ($archive, sha256 $got)"
    out build false
    out driftlint "$exe"
    exit 0
  fi
  echo "driftlint: no $archive in release $ref of $repo ($(head -c 300 "$dir/curl.log" | tr -d '\r\n')); building from source"
fi

if ! command -v cargo >/dev/null; then
  echo "::error title=driftlint action::building driftlint needs a Rust toolchain (cargo) on PATH; install one (e.g. rustup) or give the input binary"
  exit 2
fi
rustc_id="$(rustc --version 2>/dev/null || cargo --version)"
toolchain_hash="$(printf '%s' "$rustc_id" | sha256sum | cut -c1-8)"
prefix="driftlint-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}-$toolchain_hash-"
echo "driftlint: building from $src with $rustc_id (source hash $sources_hash)"
out build true
out cache-prefix "$prefix"
out cache-key "$prefix$sources_hash"
