#!/usr/bin/env bash
# driftlint action, step `check`: one `driftlint check` giving workflow annotations (stdout),
# the job summary and a SARIF file; records the exit code instead of failing, so that the
# SARIF upload still runs, and decides whether the upload is permitted.
#
# Runs from the repository root (GITHUB_WORKSPACE) so that annotation and SARIF paths are
# repository-relative, as GitHub needs them.
#
# Reads: STEP_DRIFTLINT, INPUT_PATHS, INPUT_REFERENCE, INPUT_CONFIG, INPUT_BASE,
# INPUT_FAIL_LEVEL, INPUT_ARGS, INPUT_UPLOAD_SARIF, EVENT_BASE_SHA, EVENT_HEAD_REPO, and the
# runner's GITHUB_WORKSPACE, GITHUB_EVENT_NAME, GITHUB_REPOSITORY, GITHUB_ACTOR, GITHUB_OUTPUT,
# GITHUB_STEP_SUMMARY, RUNNER_TEMP.
# Writes outputs: exit-code, sarif (when written), upload (true/false).
set -euo pipefail

out() { printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; }
bin="${STEP_DRIFTLINT:?the install step gave no driftlint}"
cd "${GITHUB_WORKSPACE:?GITHUB_WORKSPACE is not set}"
tmp="${RUNNER_TEMP:?RUNNER_TEMP is not set}"
sarif="$tmp/driftlint.sarif"
summary="$tmp/driftlint-summary.md"
human="$tmp/driftlint.txt"
rm -f -- "$sarif" "$summary" "$human"

event="${GITHUB_EVENT_NAME:-}"
is_pr=false
case "$event" in pull_request | pull_request_target) is_pr=true ;; esac

# Which revision findings are limited to (changes since the merge base).
base=""
case "${INPUT_BASE:-auto}" in
  auto) [ "$is_pr" = true ] && base="${EVENT_BASE_SHA:-}" ;;
  none | "") ;;
  *) base="$INPUT_BASE" ;;
esac

# The merge base needs history: actions/checkout fetches one commit unless `fetch-depth: 0`.
record_error() {
  echo "::error title=driftlint action::$1"
  out exit-code 2
  out upload false
  exit 0
}
case "${INPUT_UPLOAD_SARIF:-auto}" in
  auto | true | false) ;;
  *) record_error "input upload-sarif: \`$INPUT_UPLOAD_SARIF\` is not one of auto, true, false" ;;
esac
if [ -n "$base" ]; then
  if [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
    echo "driftlint: shallow clone; fetching the history the merge base needs (set fetch-depth: 0 on actions/checkout to skip this)"
    git fetch --quiet --no-tags --unshallow origin || record_error "cannot fetch the history of this shallow clone; use fetch-depth: 0"
  fi
  if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    echo "driftlint: fetching the base revision $base"
    git fetch --quiet --no-tags origin "$base" 2>/dev/null || true
    git cat-file -e "$base^{commit}" 2>/dev/null ||
      git cat-file -e "origin/$base^{commit}" 2>/dev/null ||
      record_error "base revision \`$base\` is not in this clone (fetch it, or set base: none)"
  fi
fi

# Word-split the inputs without glob expansion, on spaces, tabs and line breaks, so that a
# block input (`paths: |` with one path per line, CRLF too) is read whole. `read` stops at its
# delimiter, so it reads up to a NUL (none: inputs are text) and returns 1 at the end.
set -f
IFS=$' \t\r\n' read -r -d '' -a paths <<<"${INPUT_PATHS:-}" || true
IFS=$' \t\r\n' read -r -d '' -a extra <<<"${INPUT_ARGS:-}" || true
set +f

args=(check)
args+=("${paths[@]}")
# Annotations (workflow commands) on standard output; the compiler-style report to a file,
# printed to the log after them.
args+=(--format "github,human=$human,sarif=$sarif,markdown=$summary")
[ -n "$base" ] && args+=(--base "$base")
[ -n "${INPUT_REFERENCE:-}" ] && args+=(--reference "$INPUT_REFERENCE")
[ -n "${INPUT_CONFIG:-}" ] && args+=(--config "$INPUT_CONFIG")
[ -n "${INPUT_FAIL_LEVEL:-}" ] && args+=(--fail-level "$INPUT_FAIL_LEVEL")
args+=("${extra[@]}")

echo "driftlint: $bin ${args[*]}"
code=0
"$bin" "${args[@]}" || code=$?
out exit-code "$code"
# The report quotes the pull request's own text (file names, values). driftlint escapes every
# control character, and as a second line of defence the runner is told to ignore workflow
# commands while the report is printed, with a token nobody could have put in the report.
if [ -f "$human" ]; then
  token="driftlint-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  echo "::stop-commands::$token"
  cat -- "$human"
  echo "::$token::"
fi

# The summary is appended: other steps may have written to this job's summary already.
if [ -f "$summary" ]; then
  cat -- "$summary" >>"${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}"
fi

# Whether the SARIF may go to code scanning.
upload=true
reason=""
if [ ! -f "$sarif" ]; then
  upload=false
  reason="driftlint wrote no SARIF file"
else
  out sarif "$sarif"
fi
if [ "${INPUT_UPLOAD_SARIF:-auto}" = false ]; then
  upload=false
  reason="upload-sarif is false"
fi
if [ "$upload" = true ] && [ "$is_pr" = true ] && [ "${EVENT_HEAD_REPO:-}" != "${GITHUB_REPOSITORY:-}" ]; then
  upload=false
  reason="pull request from the fork ${EVENT_HEAD_REPO:-?}: its token cannot write code scanning results, the annotations show the findings"
fi
if [ "$upload" = true ] && [ "${GITHUB_ACTOR:-}" = "dependabot[bot]" ]; then
  upload=false
  reason="Dependabot's token cannot write code scanning results, the annotations show the findings"
fi
if [ "$upload" = false ] && [ -n "$reason" ]; then
  if [ "${INPUT_UPLOAD_SARIF:-auto}" = true ]; then
    echo "::warning title=driftlint action::SARIF not uploaded: $reason"
  else
    echo "driftlint: SARIF not uploaded: $reason"
  fi
fi
out upload "$upload"
