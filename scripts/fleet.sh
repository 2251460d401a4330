#!/usr/bin/env bash
# The fleet stage (bash scripts/test.sh fleet): docs/fleet.md's Ray Data
# and PySpark recipes on local clusters, over a generated fleet and over a
# snapshot of a real kube-apiserver.
#
#   1. the package and its fleet tools in .venv (as bindings-python/test.sh
#      makes it: maturin, pytest, pyarrow, duckdb), plus the versions of Ray
#      and PySpark docs/fleet.md pins (ray[data]==2.60.0, pyspark==4.3.0);
#   2. builds the CLI (cargo build -p workload-lens-cli);
#   3. starts kapi (testing/kube-apiserver) on target/fleet/kapi and seeds
#      the scenario of testing/live/README.md (testing/live/seed.py);
#   4. runs testing/fleet (the one-process recipes, and Ray with 2 CPUs and
#      Spark local[2], whose rows must equal fleet.resolve's, and for the
#      live snapshot `workload-lens get -A -o json`'s) and
#      bindings-python/tests/test_fleet.py with the live server;
#   5. stops the server, whatever happened.
#
# Needs Go >= 1.26 for kapi's first build (as the live stage) and Java 17 or
# later for Spark (scripts/test.sh installs Debian's default-jre-headless for
# this stage when java is missing and it runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PYTHONDONTWRITEBYTECODE=1
work="$root/target/fleet"
kapi_dir="$work/kapi"
venv="$root/.venv"
T0=$(date +%s)
step() { printf '   [fleet %ss] %s\n' "$(($(date +%s) - T0))" "$*"; }

if ! command -v java >/dev/null 2>&1; then
  echo "error: the fleet stage needs Java 17 or later for Spark (Debian: apt-get install" >&2
  echo "       default-jre-headless; bash scripts/test.sh fleet installs it when run as root)." >&2
  exit 1
fi
if ! command -v go >/dev/null 2>&1 && ! bash testing/kube-apiserver/build.sh --cached >/dev/null; then
  echo "error: the fleet stage needs Go >= 1.26 to build its test API server (testing/kube-apiserver)," >&2
  echo "       and the go command is not on PATH. Go is not installed by this script." >&2
  exit 1
fi

mkdir -p "$work"
cleanup() {
  rc=$?
  pkill -f "ray::" 2>/dev/null || true
  bash testing/kube-apiserver/stop.sh "$kapi_dir" >/dev/null 2>&1 || true
  exit "$rc"
}
trap cleanup EXIT

pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
if [ ! -x "$venv/bin/python" ]; then
  step "creating $venv"
  "${PYTHON:-python3}" -m venv "$venv"
fi
step "installing maturin, pytest, pyarrow, duckdb, ray[data] 2.60.0 and pyspark 4.3.0 into .venv"
"${pip[@]}" install 'maturin>=1.9,<2' pytest kubernetes pyarrow duckdb 'ray[data]==2.60.0' 'pyspark==4.3.0'
step "building and installing the package (pip install ./bindings-python)"
CARGO_PROFILE_RELEASE_LTO="${CARGO_PROFILE_RELEASE_LTO:-false}" \
  CARGO_PROFILE_RELEASE_CODEGEN_UNITS="${CARGO_PROFILE_RELEASE_CODEGEN_UNITS:-16}" \
  PATH="$venv/bin:$PATH" "${pip[@]}" install --no-build-isolation --force-reinstall --no-deps ./bindings-python

step "building the CLI (cargo build -p workload-lens-cli)"
cargo build --locked -q -p workload-lens-cli

step "kube-apiserver: testing/kube-apiserver/start.sh $kapi_dir"
kubeconfig=$(bash testing/kube-apiserver/start.sh "$kapi_dir")
step "ready: $(cat "$kapi_dir/server")"
step "seeding the scenario (testing/live/seed.py)"
"$venv/bin/python" testing/live/seed.py "$kubeconfig" --out "$kapi_dir/scenario.json" >/dev/null

export WORKLOAD_LENS_LIVE_DIR="$kapi_dir" WORKLOAD_LENS_BIN="$root/target/debug/workload-lens"
step "pytest testing/fleet (the recipes: Ray with 2 CPUs, Spark local[2], DuckDB)"
PATH="$venv/bin:$PATH" RAY_USAGE_STATS_ENABLED=0 \
  "$venv/bin/python" -m pytest testing/fleet -q -p no:cacheprovider -ra
step "pytest bindings-python/tests/test_fleet.py (with the live server)"
(cd bindings-python && "$venv/bin/python" -m pytest tests/test_fleet.py -q -p no:cacheprovider -ra)
step "passed"
