#!/bin/sh
# `check --fix` against `check` on a layout written by the layout bench: wall time (the best of
# RUNS runs each, the two commands interleaved), the ratio, and how many files --fix wrote.
#
#   cargo bench --bench layout -- --emit /tmp/fixable 10000 --fixable 10 --layout round-robin
#   scripts/bench-fix.sh /tmp/fixable [RUNS] [BINARY] [FIX_FLAGS...]
#
# `--fixable 10` gives one object in ten a drifted value that the reference fixes (a safe fix);
# without it the telco layout has only unsafe fixes (FIX_FLAGS `--fix --unsafe-fixes`).
# BINARY defaults to target/release/driftlint (`cargo build --release`); FIX_FLAGS to `--fix`.
#
# Every run works on its own copy of the repo, all made before the first timed run and
# written to disk (`sync`), and none deleted until the end: a repository that sat on the disk,
# as a user's does. (A copy made just before its run left its writeback to the run, and
# deleting the previous copy first made every file the run created slower to create: ext4
# without a journal skips recently deleted inodes one by one when it allocates one.)
set -eu
layout=${1:?usage: bench-fix.sh LAYOUT_DIR [RUNS] [BINARY] [FIX_FLAGS...]}
runs=${2:-5}
bin=${3:-target/release/driftlint}
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- --fix
[ -x "$bin" ] || { echo "no binary at $bin (cargo build --release)" >&2; exit 2; }
if [ ! -d "$layout/repo" ] || [ ! -d "$layout/reference" ]; then
    echo "$layout has no repo/ and reference/" >&2
    exit 2
fi
[ -x /usr/bin/time ] || { echo "/usr/bin/time (GNU time) is needed: apt-get install time" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-fix.XXXXXX")
trap 'rm -rf "$work"' EXIT

i=0
while [ "$i" -lt "$runs" ]; do
    cp -R "$layout/repo" "$work/check-$i"
    cp -R "$layout/repo" "$work/fix-$i"
    i=$((i + 1))
done
sync

# once NAME DIR ARGS…: one run on DIR; its wall time in $t, user and system CPU in $u and $s.
once() {
    name=$1 dir=$2
    shift 2
    start=$(date +%s.%N)
    /usr/bin/time -f '%U %S' -o "$work/time-$name" \
        "$bin" check "$dir" --isolated -r "$layout/reference" --format json "$@" \
        >"$work/out-$name.json" 2>"$work/err-$name.txt" || true
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc)
    # GNU time's last line (a failing exit status adds one before it: drift exits 1).
    u=$(tail -n 1 "$work/time-$name" | cut -d' ' -f1)
    s=$(tail -n 1 "$work/time-$name" | cut -d' ' -f2)
}

# best NAME: keeps the run with the smallest wall time of NAME (its CPU figures with it).
best() {
    eval "b=\${best_$1:-}"
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then
        eval "best_$1=$t cpu_$1='$u $s'"
    fi
}

i=0
while [ "$i" -lt "$runs" ]; do
    once check "$work/check-$i"
    best check
    once fix "$work/fix-$i" "$@"
    best fix
    i=$((i + 1))
done
# shellcheck disable=SC2154 # best_* and cpu_* are set by `best`, through eval
printf '%-28s %8.3f s wall (user, system: %s s)\n' check "$best_check" "$cpu_check" "check $*" "$best_fix" "$cpu_fix"
findings=$(grep -c '"rule":' "$work/out-check.json" || true)
safe=$(grep -c '"safety": "safe"' "$work/out-check.json" || true)
unsafe=$(grep -c '"safety": "unsafe"' "$work/out-check.json" || true)
echo "findings: $findings, safe fixes: $safe, unsafe: $unsafe"
echo "check $*: $(grep '^fixed' "$work/err-fix.txt" || echo 'no summary line')"
echo "files written: $(diff -rq "$layout/repo" "$work/fix-0" | grep -c '^Files' || true)"
printf "ratio check $* / check: %.2fx (load average %s)\n" "$(echo "$best_fix / $best_check" | bc -l)" "$(cut -d' ' -f1-3 /proc/loadavg)"
