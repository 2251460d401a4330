#!/usr/bin/env bash
# The live suites of the CLI, Python and Node, and their parity check, run
# against a cluster that is already up (KUBECONFIG set). Called by the live
# stage (scripts/live.sh, the seeded API server) and the sim stage
# (scripts/sim.sh, the simulated cluster); not a stage of its own.
#
#   bash scripts/live-suites.sh live     needs WORKLOAD_LENS_LIVE_DIR
#       CLI     cargo test --workspace --test live --test deploy
#               (cli/tests/live.rs; cli/tests/deploy.rs: deploy/'s manifests
#               dry-run, and `serve` with their ServiceAccount and role)
#       Python  pytest bindings-python/tests/test_kube.py tests/test_fleet.py
#       Node    node --test bindings-node/tests/kube.test.mjs
#       parity  testing/live/parity.py CLI
#   bash scripts/live-suites.sh sim      needs WORKLOAD_LENS_SIM_STATE
#       CLI     cargo test --workspace --test sim    (cli/tests/sim.rs)
#       Python  pytest bindings-python/tests/test_sim.py
#       Node    node --test bindings-node/tests/sim.test.mjs
#       parity  testing/live/parity.py CLI --sim STATE
#
# Python runs in the repository's .venv with the package built into it as
# bindings-python/test.sh builds it (seconds when nothing changed), Node
# after bindings-node/build.sh. Every suite runs; the parity check only when
# all passed. Exits 1 when one failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
kind=${1:-}
case "$kind" in
  live)
    : "${WORKLOAD_LENS_LIVE_DIR:?the live suites need WORKLOAD_LENS_LIVE_DIR}"
    cli_tests=(live deploy) py_test=(tests/test_kube.py tests/test_fleet.py) node_test=tests/kube.test.mjs
    parity_args=()
    ;;
  sim)
    : "${WORKLOAD_LENS_SIM_STATE:?the sim suites need WORKLOAD_LENS_SIM_STATE}"
    cli_tests=(sim) py_test=(tests/test_sim.py) node_test=tests/sim.test.mjs
    parity_args=(--sim "$WORKLOAD_LENS_SIM_STATE")
    ;;
  *) echo "usage: $0 live|sim" >&2; exit 2 ;;
esac
: "${KUBECONFIG:?the live suites need KUBECONFIG}"
T0=$(date +%s)
step() { printf '   [%s suites %ss] %s\n' "$kind" "$(($(date +%s) - T0))" "$*"; }

# The bindings' test builds as scripts/test.sh makes them (no LTO).
export CARGO_PROFILE_RELEASE_LTO="${CARGO_PROFILE_RELEASE_LTO:-false}"
export CARGO_PROFILE_RELEASE_CODEGEN_UNITS="${CARGO_PROFILE_RELEASE_CODEGEN_UNITS:-16}"

failed=()
run_suite() { # NAME COMMAND...
  local name=$1 t=$(date +%s)
  shift
  if "$@"; then
    step "$name: passed in $(($(date +%s) - t)) s"
  else
    step "$name: FAILED after $(($(date +%s) - t)) s"
    failed+=("$name")
  fi
}

cli_args=()
for t in "${cli_tests[@]}"; do cli_args+=(--test "$t"); done
# --workspace, not -p workload-lens-cli: the same features as the rust
# stage's `cargo test --workspace`, whose build of these tests is reused (with
# -p the engine and the CLI were compiled again for the CLI's own features,
# about 90 s).
step "CLI: cargo test --workspace ${cli_args[*]}"
run_suite CLI cargo test --locked -q --workspace "${cli_args[@]}"

python_suite() {
  local venv="$root/.venv" pip=("$root/.venv/bin/python" -m pip --disable-pip-version-check -q)
  if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv" || return
  fi
  # As bindings-python/test.sh does: its tools, then the package built and
  # installed without build isolation (seconds when nothing changed).
  "${pip[@]}" install 'maturin>=1.9,<2' pytest kubernetes pyarrow || return
  PATH="$venv/bin:$PATH" "${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./bindings-python || return
  (cd bindings-python && "$venv/bin/python" -m pytest "${py_test[@]}" -q -p no:cacheprovider -ra)
}
step "Python: build the package into .venv, pytest ${py_test[*]/#/bindings-python/}"
run_suite Python python_suite

node_suite() {
  bash bindings-node/build.sh || return
  (cd bindings-node && node --test "$node_test")
}
step "Node: bindings-node/build.sh, node --test bindings-node/$node_test"
run_suite Node node_suite

parity() {
  cargo build --locked -q -p workload-lens-cli || return
  "$root/.venv/bin/python" testing/live/parity.py "$root/target/debug/workload-lens" "${parity_args[@]}"
}
if [ ${#failed[@]} -eq 0 ]; then
  step "parity: the CLI, Python and Node list, describe and add up the same (testing/live/parity.py ${parity_args[*]})"
  run_suite parity parity
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "error: $kind suites failed: ${failed[*]}" >&2
  exit 1
fi
step "done"
