#!/usr/bin/env bash
# The fleet benchmark with its snapshot step (docs/performance.md, "Fleet at
# scale"):
#   bash bench/fleet/run.sh [bench.py options, e.g. --clusters 4]
# Builds the release CLI, starts the test API server on a fresh
# target/bench-fleet (testing/kube-apiserver/start.sh), seeds it as
# bench/serve does (5,000 workloads, 50,000 pods: about 5 min on 2 cores),
# runs bench/fleet/bench.py --kapi against it, then stops the server.
# PYTHON is the interpreter that has workload_lens, pyarrow and ray
# (default python3). Without the server: python bench/fleet/bench.py.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
py="${PYTHON:-python3}"
cargo build -q --release -p workload-lens-cli --manifest-path "$root/Cargo.toml"
binary="$CARGO_TARGET_DIR/release/workload-lens"
dir="${BENCH_FLEET_KAPI:-$root/target/bench-fleet}"
bash "$root/testing/kube-apiserver/start.sh" "$dir" >/dev/null
trap 'bash "$root/testing/kube-apiserver/stop.sh" "$dir" >/dev/null 2>&1 || true' EXIT
"$py" "$root/bench/serve/serve_bench.py" "$dir" --seed-only --binary "$binary"
"$py" "$root/bench/fleet/bench.py" --kapi "$dir" --binary "$binary" "$@"
