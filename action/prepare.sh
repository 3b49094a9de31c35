#!/usr/bin/env bash
# driftlint action, step `prepare`: choose the driftlint binary.
#
# With INPUT_BINARY (a path, or a name looked up on PATH) that binary is used as it is.
# Without it, driftlint is built from the action's own source (GITHUB_ACTION_PATH) by the
# `install` step, and the cache key names exactly what is built: runner OS and architecture,
# the Rust compiler, and a hash of every file that goes into the build.
#
# Reads: INPUT_BINARY, GITHUB_ACTION_PATH, GITHUB_OUTPUT, RUNNER_OS, RUNNER_ARCH.
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
if ! command -v cargo >/dev/null; then
  echo "::error title=driftlint action::building driftlint needs a Rust toolchain (cargo) on PATH; install one (e.g. rustup) or give the input binary"
  exit 2
fi
rustc_id="$(rustc --version 2>/dev/null || cargo --version)"
# Every file the build reads: manifests, lock file, sources of the package and its crates.
sources_hash="$(
  cd "$src" &&
    find Cargo.toml Cargo.lock src crates -type f \
      -not -path 'crates/*/fuzz/*' -not -path '*/target/*' -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
)"
toolchain_hash="$(printf '%s' "$rustc_id" | sha256sum | cut -c1-8)"
prefix="driftlint-${RUNNER_OS:-unknown}-${RUNNER_ARCH:-unknown}-$toolchain_hash-"
echo "driftlint: building from $src with $rustc_id (source hash $sources_hash)"
out build true
out cache-prefix "$prefix"
out cache-key "$prefix$sources_hash"
