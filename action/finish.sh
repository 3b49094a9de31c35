#!/usr/bin/env bash
# driftlint action, step `finish`: fail the job with driftlint's exit code, recorded by the
# `check` step, now that the SARIF upload (which must not be skipped by a failure) is done.
#
# Reads: STEP_EXIT_CODE.
set -euo pipefail

code="${STEP_EXIT_CODE:-}"
case "$code" in
  0) echo "driftlint: no findings at or above the fail level" ;;
  1) echo "driftlint: findings at or above the fail level (see the annotations and the job summary)" ;;
  2) echo "driftlint: usage or runtime error (see the check step's log)" ;;
  *)
    echo "::error title=driftlint action::the check step recorded no exit code (\`$code\`)"
    exit 2
    ;;
esac
exit "$code"
