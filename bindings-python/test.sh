#!/usr/bin/env bash
# Builds the Python package and runs its tests (bindings-python/tests).
#
# Works from a clean clone on a fresh machine (Python 3.9+ with venv and
# Rust/cargo installed; only PyPI and crates.io reached): creates the venv
# .venv at the repository root when it is missing, installs the build and
# test tools into it, builds and installs the package through PEP 517
# (`pip install ./bindings-python`, which runs maturin; a clean release build
# takes about 2 minutes on 2 cores), and runs pytest. pytest also writes
# target/conformance/python.json for the conformance parity table.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
venv="$root/.venv"
python="${PYTHON:-python3}"
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)

if [ ! -x "$venv/bin/python" ]; then
  echo "== creating $venv"
  "$python" -m venv "$venv"
fi

echo "== installing maturin, pytest, mypy, kubernetes, pyarrow and duckdb into .venv"
"${pip[@]}" install 'maturin>=1.9,<2' pytest 'mypy>=2.4,<3' kubernetes pyarrow duckdb

# The build backend runs the venv's `maturin` (and pytest the console command).
export PATH="$venv/bin:$PATH"

echo "== building and installing the package: pip install ./bindings-python"
start=$(date +%s)
# maturin is in the venv already; without build isolation the build sees the
# same interpreter every time, so an unchanged tree rebuilds in seconds.
"${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./bindings-python
echo "   built and installed in $(($(date +%s) - start)) s"

echo "== the Rust CLI (its output is compared with the console command's)"
cargo build -q --locked -p workload-lens-cli

echo "== pytest bindings-python/tests"
cd "$root/bindings-python"
"$venv/bin/python" -m pytest tests -q -p no:cacheprovider -ra

echo "== pytest bench/fleet testing/fleet testing/sim/test_record.py (the fleet generator through the CLI; docs/fleet.md's recipes; the scenario recorder's retry)"
cd "$root"
PYTHONDONTWRITEBYTECODE=1 WORKLOAD_LENS_BIN="${CARGO_TARGET_DIR:-$root/target}/debug/workload-lens" \
  "$venv/bin/python" -m pytest bench/fleet testing/fleet testing/sim/test_record.py -q -p no:cacheprovider -ra
