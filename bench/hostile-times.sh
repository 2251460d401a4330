#!/usr/bin/env bash
# Per-case times of the hostile conformance group, with max RSS:
#   Rust (release) always; Python when .venv has the package.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cargo build -q --release --manifest-path "$root/bench/hostile-rs/Cargo.toml"
echo "## Rust"
/usr/bin/time -f "max RSS %M KB, %e s wall" "$CARGO_TARGET_DIR/release/hostile-times"
if [ -x "$root/.venv/bin/python" ]; then
  echo "## Python"
  "$root/.venv/bin/python" "$root/bench/hostile_times.py"
fi
