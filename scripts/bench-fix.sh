#!/bin/sh
# `check --fix` against `check` on a layout written by the layout bench, wall time (the best of
# RUNS runs each), and what --fix changed. Each --fix run works on a fresh copy of the layout,
# so every run has the same fixes to make; `check` runs on a copy too, for the same page cache.
#
#   cargo bench --bench layout -- --emit /tmp/layout 10000        # writes /tmp/layout/{reference,repo}
#   scripts/bench-fix.sh /tmp/layout [RUNS] [BINARY] [FIX_FLAGS...]
#
# BINARY defaults to target/release/driftlint (`cargo build --release`). Prints one line per
# command and the ratio; the goal is `check --fix` within 1.2x of `check`.
set -eu
layout=${1:?usage: bench-fix.sh LAYOUT_DIR [RUNS] [BINARY] [FIX_FLAGS...]}
runs=${2:-5}
bin=${3:-target/release/driftlint}
# What the fixing run is given (default `--fix`; `--fix --unsafe-fixes` takes the unsafe ones too).
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- --fix
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 2; }
[ -d "$layout/repo" ] && [ -d "$layout/reference" ] || { echo "$layout has no repo/ and reference/" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# once NAME ARGS…: one run on a fresh copy of the repo; its wall time in $t.
once() {
    name=$1
    shift
    rm -rf "$work/repo"
    cp -R "$layout/repo" "$work/repo"
    start=$(date +%s.%N)
    "$bin" check "$work/repo" --isolated -r "$layout/reference" --format json "$@" >"$work/out-$name.json" 2>"$work/err-$name.txt" || true
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc)
}

# The two commands interleaved, so that a change of load hits both; the best of each kept.
best_check=
best_fix=
i=0
while [ "$i" -lt "$runs" ]; do
    once check
    if [ -z "$best_check" ] || [ "$(echo "$t < $best_check" | bc)" = 1 ]; then best_check=$t; fi
    once fix "$@"
    if [ -z "$best_fix" ] || [ "$(echo "$t < $best_fix" | bc)" = 1 ]; then best_fix=$t; fi
    i=$((i + 1))
done
printf '%-12s %8.3f s\n' check "$best_check" "check --fix" "$best_fix"
findings=$(grep -c '"rule":' "$work/out-check.json" || true)
fixable=$(grep -c '"safety": "safe"' "$work/out-check.json" || true)
unsafe=$(grep -c '"safety": "unsafe"' "$work/out-check.json" || true)
echo "findings: $findings, safe fixes: $fixable, unsafe: $unsafe; $*: $(grep '^fixed' "$work/err-fix.txt" || true)"
echo "files changed by --fix: $(diff -r "$layout/repo" "$work/repo" | grep -c '^diff' || true)"
printf "ratio check $* / check: %.2fx (load average %s)\n" "$(echo "$best_fix / $best_check" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
