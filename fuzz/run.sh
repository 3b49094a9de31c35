#!/usr/bin/env bash
# Builds and runs one fuzz target on STABLE Rust: libFuzzer (from libfuzzer-sys, compiled with
# the system C++ compiler) plus the LLVM coverage flags cargo-fuzz passes with `-s none`.
#
#   fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags…]   # fuzz for SECONDS (default 600)
#   fuzz/run.sh TARGET 0 path/to/crash-file                  # re-run one input
#
# Inputs grow the corpus in fuzz/runs/TARGET (untracked), seeded from fuzz/corpus/TARGET
# (tracked); crashes land in fuzz/artifacts/TARGET/. With cargo-fuzz and nightly,
# `cargo +nightly fuzz run TARGET fuzz/corpus/TARGET` works on the same layout.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/run.sh TARGET [SECONDS] [libFuzzer flags...]}
seconds=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))
host=$(rustc -vV | sed -n 's/^host: //p')
# `--target` keeps the coverage flags off build scripts and proc macros (they would not link).
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# FUZZ_NO_BUILD=1 runs what was built last (e.g. while the sources are being edited).
[ -n "${FUZZ_NO_BUILD:-}" ] || cargo build --release --locked -j"${JOBS:-1}" --target "$host" --bin "$target"
bin="target/$host/release/$target"
mkdir -p "runs/$target" "artifacts/$target"
if [ "$seconds" = 0 ]; then
  exec "$bin" "$@"
fi
exec "$bin" "runs/$target" "corpus/$target" -artifact_prefix="artifacts/$target/" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 "$@"
