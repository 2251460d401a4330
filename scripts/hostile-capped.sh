#!/usr/bin/env bash
# The hostile corpus (conformance/cases/hostile.yaml) under an address-space
# cap of 1 GiB (prlimit --as): every case must give its expected outcome,
# and no case may abort the process (an allocation failure under the cap
# kills it with SIGABRT; a stack overflow with SIGSEGV). Runs the Rust
# runner in a release build, then the Python package when .venv has it
# (bindings-python/test.sh installs it). Node and WASM are not capped this
# way: V8 reserves far more address space than it uses (the WASM guard
# regions alone are 8 GiB), so their runners check the outcomes instead.
#
#   bash scripts/hostile-capped.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
cap=$((1 << 30))
run_capped() { # LABEL COMMAND...
  local label="$1" status=0
  shift
  echo "-- $label (prlimit --as=$cap)"
  prlimit --as="$cap" -- "$@" >"$CARGO_TARGET_DIR/hostile-$label.md" || status=$?
  tail -n 1 "$CARGO_TARGET_DIR/hostile-$label.md"
  if [ "$status" -ne 0 ]; then
    grep -F "UNEXPECTED" "$CARGO_TARGET_DIR/hostile-$label.md" >&2 || true
    if [ "$status" -gt 128 ]; then
      echo "error: the $label runner died with signal $((status - 128)) under the cap" >&2
    else
      echo "error: the $label runner failed (exit $status)" >&2
    fi
    exit 1
  fi
}
cargo build -q --release --locked --manifest-path "$root/bench/hostile-rs/Cargo.toml"
run_capped rust "$CARGO_TARGET_DIR/release/hostile-times"
py="$root/.venv/bin/python"
if [ -x "$py" ] && "$py" -c "import workload_lens" 2>/dev/null; then
  run_capped python "$py" "$root/bench/hostile_times.py"
else
  echo "-- python: skipped (no package in .venv; bindings-python/test.sh installs it)"
fi
