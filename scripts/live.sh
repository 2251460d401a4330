#!/usr/bin/env bash
# The live stage (bash scripts/test.sh live): the live-cluster suites against
# a real Kubernetes API server.
#
#   1. starts kapi (testing/kube-apiserver: kube-apiserver v1.37.2 + embedded
#      etcd, 127.0.0.1 only) on a fresh state dir, target/live/kapi; the first
#      build needs Go >= 1.26 and takes 6-12 min (build.sh says so first),
#      later ones come from a cache outside the clone and take no time;
#   2. seeds it with the scenario of testing/live/README.md
#      (testing/live/seed.py, Python venv target/live/venv with the
#      `kubernetes` client, created when missing);
#   3. runs the suites (scripts/live-suites.sh live), with
#      KUBECONFIG=target/live/kapi/kubeconfig (admin) and
#      WORKLOAD_LENS_LIVE_DIR=target/live/kapi (kubeconfig-viewer, server,
#      ca.crt, tokens.csv and scenario.json, the uids, are there too):
#        CLI     cargo test --workspace --test live --test deploy
#                (cli/tests/live.rs, cli/tests/deploy.rs)
#        Python  pytest bindings-python/tests/test_kube.py     (the .venv of
#                bindings-python/test.sh; the package is built into it)
#        Node    node --test bindings-node/tests/kube.test.mjs (after
#                bindings-node/build.sh)
#      Every suite runs; the stage fails if one failed. When all passed,
#      testing/live/parity.py checks that the three give the same listings,
#      descriptions and usage, value for value.
#      The same suites' counterparts on the simulated cluster, where real
#      controllers make the pods and statuses, run in the sim stage.
#   4. stops the server whatever happened (the log's tail is printed on failure).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir="$root/target/live/kapi"
seed_venv="$root/target/live/venv"
T0=$(date +%s)
step() { printf '   [live %ss] %s\n' "$(($(date +%s) - T0))" "$*"; }

if ! command -v go >/dev/null 2>&1; then
  echo "error: the live stage needs Go >= 1.26 to build its test API server (testing/kube-apiserver)," >&2
  echo "       and the go command is not on PATH. Go is not installed by this script." >&2
  exit 1
fi

mkdir -p "$root/target/live"
cleanup() {
  rc=$?
  # The log's tail before the server is stopped (its shutdown is noisy).
  if [ "$rc" != 0 ] && [ -f "$dir/kapi.log" ]; then
    echo "--- last lines of $dir/kapi.log (the live stage failed)" >&2
    tail -n 40 "$dir/kapi.log" >&2
    echo "---" >&2
  fi
  bash testing/kube-apiserver/stop.sh "$dir" || true
  exit "$rc"
}
trap cleanup EXIT

step "kube-apiserver: testing/kube-apiserver/start.sh $dir"
kubeconfig=$(bash testing/kube-apiserver/start.sh "$dir")
step "ready: $(cat "$dir/server"), kubeconfig $kubeconfig"

if ! "$seed_venv/bin/python" -c "import kubernetes, yaml" 2>/dev/null; then
  step "creating $seed_venv with the kubernetes client (pip install kubernetes pyyaml), for testing/live/seed.py"
  rm -rf "$seed_venv"
  "${PYTHON:-python3}" -m venv "$seed_venv"
  "$seed_venv/bin/python" -m pip --disable-pip-version-check -q install kubernetes pyyaml
fi
step "seeding the scenario (testing/live/seed.py)"
"$seed_venv/bin/python" testing/live/seed.py "$kubeconfig" --out "$dir/scenario.json"

export KUBECONFIG="$kubeconfig"
export WORKLOAD_LENS_LIVE_DIR="$dir"
bash scripts/live-suites.sh live
step "done"
