#!/usr/bin/env bash
# The exporter at scale (docs/performance.md, "The exporter at scale"):
#   bash bench/serve/run.sh [serve_bench.py options, e.g. --workloads 50]
# Builds the release CLI, starts the test API server on a fresh
# target/bench-serve (testing/kube-apiserver/start.sh), fills it and measures
# `workload-lens serve` against it (bench/serve/serve_bench.py), then stops
# the server. The full size (5,000 workloads, 50,000 pods) takes about 15 min
# on 2 cores, a third of it creating the objects; `--workloads 50 --changes 5
# --burst 50` is a smoke run of about 40 s once built.
# Writes the figures to target/bench-serve/serve-bench.json too.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cargo build -q --release -p workload-lens-cli --manifest-path "$root/Cargo.toml"
dir="${BENCH_SERVE_DIR:-$root/target/bench-serve}"
bash "$root/testing/kube-apiserver/start.sh" "$dir" >/dev/null
trap 'bash "$root/testing/kube-apiserver/stop.sh" "$dir" >/dev/null 2>&1 || true' EXIT
"${PYTHON:-python3}" "$root/bench/serve/serve_bench.py" "$dir" \
  --binary "$CARGO_TARGET_DIR/release/workload-lens" --json "$dir/serve-bench.json" "$@"
