#!/usr/bin/env bash
# Records the catalog's fixtures from real controllers, or checks them live.
#
#   bash scripts/record.sh [--check] [--kubeconfig FILE] SCENARIO|OPERATOR|all ...
#
# A scenario is testing/sim/scenarios/<name>.yaml: a workload, steps that act
# on it (create, patch, annotate pods so that the simulated kubelet fails or
# completes them, ...), what each step waits for, and what each step must
# resolve to, written from the operator's semantics. An argument names a
# scenario, every scenario whose name starts with `<argument>-` (e.g. `jobset`
# for jobset-lifecycle, jobset-kueue, ...), or `all`.
#
# Without --check, the scenarios' steps are recorded into
#   definitions/fixtures/<definition>/recorded/<scenario>/<NN>-<step>{.yaml,.pods.yaml,.events.yaml}
# (and .related.yaml, Kueue's Workloads, where Kueue runs)
# (replacing what was recorded before), then checked by the engine's catalog
# test, and the conformance cases that replay them in every runtime
# (conformance/cases/recorded.yaml, suite.json) are regenerated.
#
# With --check nothing in the repository changes: the steps are recorded into
# target/sim/recorded and checked there (the sim stage of scripts/test.sh).
#
# The cluster: --kubeconfig FILE uses a running simulated cluster with the
# scenarios' operators (testing/sim/start.sh DIR --operators ...); without it
# one is started in target/sim/record with the operators the scenarios name,
# and stopped at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
check=0 kubeconfig="" args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --kubeconfig) kubeconfig="$2"; shift ;;
    -h | --help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "error: unknown option $1" >&2; exit 2 ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ ${#args[@]} -gt 0 ] || { echo "usage: bash scripts/record.sh [--check] [--kubeconfig FILE] SCENARIO|OPERATOR|all ..." >&2; exit 2; }

py="$root/target/live/venv/bin/python"
if ! "$py" -c "import kubernetes, yaml" 2>/dev/null; then
  echo "record: creating target/live/venv (pip install kubernetes pyyaml)" >&2
  rm -rf target/live/venv && mkdir -p target/live
  "${PYTHON:-python3}" -m venv target/live/venv
  target/live/venv/bin/pip install -q kubernetes pyyaml
fi
command -v gojq >/dev/null || { echo "error: record needs gojq (apt install gojq): the steps' conditions are jq" >&2; exit 1; }

# The scenarios asked for.
scenarios=()
for a in "${args[@]}"; do
  found=0
  for f in testing/sim/scenarios/*.yaml; do
    n=$(basename "$f" .yaml)
    if [ "$a" = all ] || [ "$a" = "$n" ] || [[ "$n" == "$a"-* ]]; then
      [[ " ${scenarios[*]:-} " == *" $f "* ]] || scenarios+=("$f")
      found=1
    fi
  done
  [ $found = 1 ] || { echo "error: no scenario named $a (testing/sim/scenarios/)" >&2; exit 2; }
done

# WORKLOAD_LENS_SIM_OPERATORS (the sim stage's operators, comma separated;
# `none`): scenarios needing another operator are skipped, with a line.
if [ -n "${WORKLOAD_LENS_SIM_OPERATORS:-}" ]; then
  kept=()
  for f in "${scenarios[@]}"; do
    if "${py}" - "$f" "$WORKLOAD_LENS_SIM_OPERATORS" <<'PY'
import sys, yaml
need = yaml.safe_load(open(sys.argv[1])).get("operators") or []
have = set(sys.argv[2].split(",")) - {"none", ""}
sys.exit(0 if set(need) <= have else 1)
PY
    then kept+=("$f")
    else echo "record: skipping $(basename "$f" .yaml) (needs operators the cluster does not run: WORKLOAD_LENS_SIM_OPERATORS=$WORKLOAD_LENS_SIM_OPERATORS)" >&2
    fi
  done
  scenarios=("${kept[@]}")
  [ ${#scenarios[@]} -gt 0 ] || { echo "record: no scenario to run" >&2; exit 0; }
fi

# The operators they need, and their versions for the fixtures' headers.
ops=$("$py" - "${scenarios[@]}" <<'PY'
import sys, yaml
names = []
for f in sys.argv[1:]:
    for o in yaml.safe_load(open(f)).get("operators") or []:
        if o not in names:
            names.append(o)
print(",".join(names))
PY
)
versions=$("$py" - "$ops" <<'PY'
import json, subprocess, sys
out = {}
for o in filter(None, sys.argv[1].split(",")):
    out[o] = subprocess.run(["bash", f"testing/sim/operators/{o}/operator.sh", "version"],
                            capture_output=True, text=True, check=True).stdout.strip()
print(json.dumps(out))
PY
)

dir="$root/target/sim/record"
started=0
cleanup() {
  rc=$?
  if [ $started = 1 ]; then
    if [ $rc != 0 ]; then
      for l in "$dir"/*.log; do [ -f "$l" ] && { echo "--- last lines of $l" >&2; tail -n 15 "$l" >&2; }; done
    fi
    bash testing/sim/stop.sh "$dir" >/dev/null 2>&1 || true
  fi
  exit "$rc"
}
trap cleanup EXIT
if [ -z "$kubeconfig" ]; then
  echo "record: starting the simulated cluster in $dir (operators: ${ops:-none})" >&2
  started=1
  kubeconfig=$(bash testing/sim/start.sh "$dir" --nodes 4 ${ops:+--operators "$ops"})
fi

if [ $check = 1 ]; then
  out="$root/target/sim/recorded"
  rm -rf "$out"
else
  out="$root/definitions/fixtures"
fi
mkdir -p "$out"
"$py" testing/sim/record.py "$kubeconfig" --out "$out" --versions "$versions" "${scenarios[@]}"

echo "record: checking every recorded step against its scenario (engine/tests/catalog.rs)" >&2
if [ $check = 1 ]; then
  WORKLOAD_LENS_RECORDED="$out" cargo test -q --workspace --test catalog every_recorded_step
  echo "record: each situation a diagnosis names, in the live recordings (engine/tests/diagnose.rs)" >&2
  WORKLOAD_LENS_RECORDED="$out" cargo test -q --workspace --test diagnose each_recorded_situation
else
  cargo test -q --workspace --test catalog every_recorded_step
  echo "record: the conformance cases that replay the recordings (conformance/gen-recorded.py)" >&2
  python3 conformance/gen-recorded.py
  bash scripts/debug-build.sh
  "${CARGO_TARGET_DIR:-$root/target}/debug/conformance" suite-json
fi
