#!/usr/bin/env bash
# The sim stage (bash scripts/test.sh sim): the simulated GPU cluster of
# testing/sim (real kube-apiserver, kube-controller-manager, kube-scheduler
# v1.37.2, KWOK GPU nodes) with the operators, and the tests that run in it.
#
#   bash scripts/sim.sh                 the stage
#   bash scripts/sim.sh --build [--no-kapi] [--after PID]
#                                       builds what the stage needs and lacks,
#                                       one build after the other, each timed:
#                                       kapi/kcm/ksched (unless --no-kapi), kwok,
#                                       the operators; --after PID first waits
#                                       for that process (the kube-apiserver
#                                       build scripts/test.sh runs for the live
#                                       stage) to end
#   bash scripts/sim.sh --cached        exit 0 when everything is built
#
# The stage:
#   1. checks for Go >= 1.26, python3, openssl and curl (the operators'
#      start needs all four), builds what is missing (testing/sim/build.sh,
#      testing/sim/operators/<op>/operator.sh build: minutes on a new machine,
#      seconds afterwards, cached outside the clone);
#   2. starts the sim on a fresh target/sim/cluster: 4 nodes x 8 GPUs and the
#      operators of WORKLOAD_LENS_SIM_OPERATORS (comma separated; unset: all
#      four, jobset,lws,kueue,kuberay; "none": none);
#   3. runs, each timed, against that one cluster, one after the other (each
#      in namespaces of its own, deleted at its end):
#        the sim's own test      testing/sim/test.sh --kubeconfig
#        each operator's smoke   testing/sim/operators/<op>/smoke.py (kuberay:
#                                --no-rayjob, whose RayJob part only observes
#                                for ~35 s and asserts nothing; --kueue when
#                                Kueue runs)
#        live suites             the CLI's, Python's and Node's live suites on
#                                workloads real controllers made: namespace
#                                lens-sim seeded by testing/sim/live/seed.py
#                                (the built-ins, plus a JobSet and a
#                                LeaderWorkerSet when their operators run),
#                                then scripts/live-suites.sh sim (cli/tests/sim.rs,
#                                bindings-python/tests/test_sim.py,
#                                bindings-node/tests/sim.test.mjs, and
#                                testing/live/parity.py --sim); builds the
#                                Python package and the Node addon as their
#                                stages do
#        clean-up check          every test namespace and the smoke tests'
#                                cluster-scoped objects are gone, no pod is
#                                left outside kube-system
#        scenarios               bash scripts/record.sh --check --kubeconfig
#                                KUBECONFIG all, when scripts/record.sh exists
#                                (a line says it was skipped otherwise), with
#                                WORKLOAD_LENS_SIM_OPERATORS exported
#      Every step runs (the scenarios only on a clean cluster); a step's
#      output is in target/sim/logs/<step>.log and is printed when it fails,
#      with the tails of the logs of the processes it involves;
#   4. stops the sim whatever happened (testing/sim/stop.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir="$root/target/sim/cluster"
logs="$root/target/sim/logs"
py="$root/target/live/venv/bin/python"
T0=$(date +%s)
step() { printf '   [sim %ss] %s\n' "$(($(date +%s) - T0))" "$*"; }

# In start order: the MPI operator before the training-operator (both
# define mpijobs.kubeflow.org; the latter then leaves its own out), JobSet
# before Trainer (a TrainJob runs as a JobSet).
all_ops=(jobset lws kueue kuberay mpi-operator training-operator trainer kserve argo-workflows agent-sandbox)
ops=()
case "${WORKLOAD_LENS_SIM_OPERATORS-default}" in
  default) ops=("${all_ops[@]}") ;;
  "" | none) ;;
  *)
    IFS=, read -r -a ops <<<"$WORKLOAD_LENS_SIM_OPERATORS"
    for op in "${ops[@]}"; do
      [ -f "testing/sim/operators/$op/operator.sh" ] || {
        echo "error: WORKLOAD_LENS_SIM_OPERATORS names '$op', which is not one of: ${all_ops[*]} (or none)" >&2
        exit 2
      }
    done
    ;;
esac
ops_csv=$(IFS=,; echo "${ops[*]}")
has_op() { local o; for o in "${ops[@]}"; do [ "$o" = "$1" ] && return 0; done; return 1; }

need_go() {
  local gov major minor
  if ! command -v go >/dev/null 2>&1; then
    echo "error: the sim stage needs Go >= 1.26 on PATH: it builds kube-apiserver, kube-controller-manager," >&2
    echo "       kube-scheduler, kwok and the operators, and the operators' start reads their CRDs from" >&2
    echo "       Go's module cache. Go is not installed by this script." >&2
    exit 1
  fi
  gov=$(go env GOVERSION 2>/dev/null || true)
  IFS=. read -r major minor _ <<<"${gov#go}"
  major=${major//[^0-9]/} minor=${minor//[^0-9]/}
  if [ "${major:-0}" -lt 1 ] || { [ "${major:-0}" -eq 1 ] && [ "${minor:-0}" -lt 26 ]; }; then
    echo "error: the sim stage needs Go >= 1.26; found '${gov:-unknown}' ($(command -v go))." >&2
    exit 1
  fi
}

# --- builds -------------------------------------------------------------------
built() { # everything of the stage is in the cache
  bash testing/sim/build.sh --cached >/dev/null || return 1
  local op
  for op in "${ops[@]}"; do
    bash "testing/sim/operators/$op/operator.sh" build --cached >/dev/null || return 1
  done
}
timed_build() { # WHAT COMMAND...: runs a build, says how long it took
  local what=$1 t=$(date +%s)
  shift
  echo "sim build: $what"
  if ! "$@" >/dev/null; then
    echo "sim build: $what FAILED after $(($(date +%s) - t)) s" >&2
    return 1
  fi
  echo "sim build: $what done in $(($(date +%s) - t)) s"
}
build() { # [--no-kapi] [--after PID]
  local no_kapi= after= t=$(date +%s) op
  while [ $# -gt 0 ]; do
    case "$1" in
      --no-kapi) no_kapi=1 ;;
      --after) after=${2:?--after PID}; shift ;;
      *) echo "usage: $0 --build [--no-kapi] [--after PID]" >&2; exit 2 ;;
    esac
    shift
  done
  need_go
  if [ -n "$after" ]; then
    # Not this shell's child: /proc tells whether it still runs (a zombie
    # waiting for its parent to reap it counts as ended).
    while [ -r "/proc/$after/stat" ] && [ "$(sed 's/.*) //; s/ .*//' "/proc/$after/stat" 2>/dev/null)" != Z ]; do
      sleep 2
    done
    echo "sim build: the kube-apiserver build (pid $after) ended after $(($(date +%s) - t)) s"
  fi
  if [ -z "$no_kapi" ]; then
    timed_build "kapi, kcm, ksched, kwok (testing/sim/build.sh)" bash testing/sim/build.sh
  else
    timed_build "kwok (testing/sim/build.sh --kwok)" bash testing/sim/build.sh --kwok
  fi
  for op in "${ops[@]}"; do
    timed_build "operator $op (testing/sim/operators/$op/operator.sh build)" \
      bash "testing/sim/operators/$op/operator.sh" build
  done
  echo "sim build: all built in $(($(date +%s) - t)) s"
}

case "${1:-}" in
  --cached) [ $# -eq 1 ] || { echo "usage: $0 --cached" >&2; exit 2; }; built; exit ;;
  --build) shift; build "$@"; exit ;;
  "") ;;
  *) echo "usage: $0 [--build [--no-kapi] [--after PID] | --cached]" >&2; exit 2 ;;
esac

# --- the stage ----------------------------------------------------------------
need_go
for c in python3 openssl curl; do
  command -v "$c" >/dev/null 2>&1 || {
    echo "error: the sim stage needs $c (python3: the tests and the sim's scripts; openssl: the operators'" >&2
    echo "       webhook certificates; curl: the JobSet and LWS operators' readiness probes)" >&2
    exit 1
  }
done

if ! built; then
  step "building what is missing (scripts/sim.sh --build): minutes on a new machine, cached outside the clone"
  build
fi

mkdir -p "$logs"
rm -f "$logs"/*.log
cleanup() {
  local rc=$? t=$(date +%s)
  if [ -n "${started:-}" ]; then
    if bash testing/sim/stop.sh "$dir" >"$logs/stop.log" 2>&1; then
      step "sim stopped in $(($(date +%s) - t)) s"
    else
      cat "$logs/stop.log" >&2
      echo "warning: testing/sim/stop.sh $dir had to kill something or failed (above)" >&2
    fi
    [ "$rc" = 0 ] || echo "the sim stage failed: the cluster's logs are in $dir (*.log), each step's in $logs" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT

step "starting the sim: testing/sim/start.sh $dir --nodes 4 --operators ${ops_csv:-(none)}"
started=1
if ! kubeconfig=$(bash testing/sim/start.sh "$dir" --nodes 4 --operators "$ops_csv" 2>"$logs/start.log"); then
  cat "$logs/start.log" >&2 # start.sh prints the failing process's log tail itself
  echo "error: the simulated cluster did not start" >&2
  exit 1
fi
step "ready: 4 nodes, ${#ops[@]} operator(s), kubeconfig $kubeconfig"

failed=()
tails() { # LOG...: the last lines of the cluster's logs named
  local f
  for f in "$@"; do
    [ -f "$dir/$f.log" ] || continue
    echo "------ last lines of $dir/$f.log" >&2
    tail -n 20 "$dir/$f.log" >&2
  done
}
run_step() { # NAME "LOGS" COMMAND...: one timed step; its output on failure
  local name=$1 procs=$2 t=$(date +%s) out
  shift 2
  out="$logs/${name// /-}.log"
  if "$@" >"$out" 2>&1; then
    step "$name: passed in $(($(date +%s) - t)) s"
  else
    step "$name: FAILED after $(($(date +%s) - t)) s; its output ($out):"
    cat "$out" >&2
    # shellcheck disable=SC2086 # a list of names
    tails $procs
    echo "------" >&2
    failed+=("$name")
  fi
}

run_step "sim test" "kcm ksched kwok" bash testing/sim/test.sh --kubeconfig "$kubeconfig"
for op in "${ops[@]}"; do
  args=()
  case $op in
    kuberay)
      args=(--no-rayjob)
      has_op kueue && args+=(--kueue)
      ;;
  esac
  run_step "$op smoke" "$op kcm" "$py" "testing/sim/operators/$op/smoke.py" "$kubeconfig" "${args[@]}"
done

# The live suites of the CLI, Python and Node on workloads the controllers
# made (testing/sim/live/seed.py waits until they settle and writes the
# truth), then the namespace is deleted, whatever happened.
live_suites() {
  local rc=0
  "$py" testing/sim/live/seed.py "$kubeconfig" --out "$root/target/sim/state.json" --operators "${ops_csv:-none}" || rc=$?
  if [ "$rc" = 0 ]; then
    KUBECONFIG="$kubeconfig" WORKLOAD_LENS_SIM_STATE="$root/target/sim/state.json" bash scripts/live-suites.sh sim || rc=$?
  fi
  "$py" testing/sim/live/seed.py "$kubeconfig" --delete || rc=1
  return "$rc"
}
run_step "live suites" "kcm ksched $(has_op jobset && echo jobset) $(has_op lws && echo lws)" live_suites

clean_check() {
  "$py" - "$root/testing/sim" "$kubeconfig" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
from kube import Kube, wait

kube = Kube(sys.argv[2])
namespaces = ["simtest", "lens-sim", "smoke-jobset", "smoke-lws", "kueue-smoke", "kuberay-smoke", "mpi-smoke", "to-smoke", "trainer-smoke", "kserve-smoke", "argo-smoke", "sandbox-smoke"]
kueue = [("ClusterQueue", n) for n in ("smoke-cq", "ray-smoke-cq")] + [("ResourceFlavor", n) for n in ("smoke-flavor", "ray-smoke-flavor")]


def left():
    out = [f"namespace {n}" for n in namespaces if kube.get("v1", "Namespace", n) is not None]
    out += [f"pod {p['metadata']['namespace']}/{p['metadata']['name']}" for p in kube.list("v1", "Pod") if p["metadata"]["namespace"] != "kube-system"]
    try:
        out += [f"{k} {n}" for k, n in kueue if kube.get("kueue.x-k8s.io/v1beta2", k, n) is not None]
    except Exception:  # noqa: BLE001 - no Kueue CRDs: nothing of Kueue's to be left
        pass
    return out


try:
    wait("the tests' objects to be gone", lambda: not left(), 90)
except TimeoutError:
    print("left behind by the tests after 90 s:", ", ".join(left()))
    sys.exit(1)
print("clean: no test namespace, no Kueue object of the smoke tests, no pod outside kube-system")
EOF
}
run_step "clean-up check" "kcm" clean_check

if [ ! -f scripts/record.sh ]; then
  step "scenarios: skipped (scripts/record.sh does not exist yet)"
elif [[ " ${failed[*]} " == *" clean-up check "* ]]; then
  step "scenarios: skipped (the cluster is not clean: see the clean-up check)"
  failed+=("scenarios")
else
  record() { WORKLOAD_LENS_SIM_OPERATORS=${ops_csv:-none} bash scripts/record.sh --check --kubeconfig "$kubeconfig" all; }
  run_step "scenarios" "kcm $(echo "${ops[@]}")" record
fi

if [ ${#failed[@]} -gt 0 ]; then
  echo "error: sim steps failed: ${failed[*]}" >&2
  exit 1
fi
step "done"
