#!/usr/bin/env bash
# driftlint action, step `install`: make the chosen driftlint available.
#
# A prebuilt binary (STEP_BUILD=false) is used as it is. Otherwise driftlint is installed from
# the action's source with `cargo install --locked` into ~/.cache/driftlint-action (kept by the
# `cache` step), unless the binary there was built from the same sources (STEP_CACHE_KEY).
# The binary's directory is added to GITHUB_PATH for later steps of the job.
#
# Reads: STEP_BUILD, STEP_BINARY, STEP_CACHE_KEY, GITHUB_ACTION_PATH, GITHUB_OUTPUT,
# GITHUB_PATH, HOME.
# Writes outputs: driftlint (the binary's path).
set -euo pipefail

if [ "${STEP_BUILD:-}" = true ]; then
  root="$HOME/.cache/driftlint-action"
  bin="$root/bin/driftlint"
  stamp="$root/source-key"
  key="${STEP_CACHE_KEY:?STEP_CACHE_KEY is not set}"
  if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
    echo "driftlint: the cached build of these sources is reused ($key)"
  else
    mkdir -p "$root"
    # --locked: the dependency versions of Cargo.lock, as tested; the target directory is
    # cached too, so a changed source rebuilds only what changed.
    cargo install --locked --force --path "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}" \
      --root "$root" --target-dir "$root/target"
    printf '%s' "$key" >"$stamp"
  fi
else
  bin="${STEP_BINARY:?the prepare step chose no binary}"
fi

"$bin" --version
echo "driftlint=$bin" >>"$GITHUB_OUTPUT"
dirname -- "$bin" >>"$GITHUB_PATH"
