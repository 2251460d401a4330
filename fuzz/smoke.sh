#!/usr/bin/env bash
# CI: fuzz one target for a short while on stable Rust, without cargo-fuzz:
#   fuzz/smoke.sh TARGET SECONDS
# The targets are built with the coverage instrumentation libFuzzer feeds on
# (the flags cargo-fuzz passes, minus AddressSanitizer, which needs
# nightly; the engine is safe Rust), with debug assertions and overflow
# checks, in its own target directory (target/fuzz-smoke). It runs from the
# seed corpus (fuzz/seed.sh) with the target's dictionary; a crash, a
# failed assertion (for `jq`: the fast path and jaq disagreeing) or a
# timeout fails the run, leaving the input in fuzz/artifacts/TARGET.
# Longer runs with AddressSanitizer: fuzz/run.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$1"; secs="${2:-60}"
export CARGO_TARGET_DIR="$here/../target/fuzz-smoke"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# An explicit --target keeps the flags off build scripts and proc macros.
host="$(rustc -vV | sed -n 's/^host: //p')"
# Every target is built (a few seconds more than one: they share the engine),
# so this build is also CI's check that the fuzz targets compile.
cargo build --locked --release --target "$host" --manifest-path "$here/Cargo.toml" --bins
echo "fuzz targets build: $(cd "$here" && ls fuzz_targets | grep -v common | sed 's/\.rs$//' | tr '\n' ' ')"
"$here/seed.sh"
dict=()
case "$target" in
  jq) dict=(-dict="$here/jq.dict") ;;
  definition|resolve_text) dict=(-dict="$here/yaml.dict") ;;
esac
mkdir -p "$here/artifacts/$target"
# A copy of the seeds, so that a CI run leaves the corpus as it was.
work="$(mktemp -d)"; trap 'rm -rf "$work" "$work.log"' EXIT
cp -r "$here/corpus/$target/." "$work/"
start=$(date +%s)
# A fixed seed: a CI run explores the same inputs every time, so what it
# finds is reproducible and not a coin toss on an unrelated change (longer,
# randomly seeded runs: fuzz/run.sh; what they found and is not fixed yet:
# fuzz/open/). WORKLOAD_LENS_FUZZ_SEED overrides it (0: random).
"$CARGO_TARGET_DIR/$host/release/$target" "$work" -max_total_time="$secs" -timeout=30 \
  -seed="${WORKLOAD_LENS_FUZZ_SEED:-1}" \
  -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$here/artifacts/$target/" "${dict[@]}" 2> "$work.log" || {
  tail -n 60 "$work.log"; echo "fuzz/smoke.sh: $target failed (input in fuzz/artifacts/$target)"; exit 1; }
grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work.log" | tr '\n' ' '
echo; echo "fuzz/smoke.sh: $target ran $(($(date +%s) - start)) s without a failure"
