#!/usr/bin/env bash
# start.sh DIR [--nodes N] [--gpus-per-node G] [--gpu-product NAME] [--operators a,b]
#
# Starts the simulated GPU cluster on a fresh DIR (removed first): kapi
# (kube-apiserver + etcd, testing/kube-apiserver/start.sh), kcm
# (kube-controller-manager, all controllers), ksched (kube-scheduler) and kwok
# (fake kubelets, stages.yaml), then N nodes sim-gpu-0..N-1 (default 4) with
# G nvidia.com/gpu each (default 8), cpu 64, memory 512Gi, pods 110, label
# nvidia.com/gpu.product=NAME (default NVIDIA-H100-80GB-HBM3). Waits until the
# nodes are Ready and ServiceAccount default/default exists, then runs
# `operator.sh start DIR` of each testing/sim/operators/<name> in LIST.
# Builds first when needed (build.sh). Pids: DIR/<proc>.pid (kapi's is also
# DIR/pid), logs: DIR/<proc>.log. Prints DIR/kubeconfig, its only stdout line.
# On failure: prints the tail of the failing log, stops everything (stop.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# SIM_OPERATORS_DIR: another place for the operator dirs (tests of these scripts).
opdir=${SIM_OPERATORS_DIR:-$here/operators}
root=$(cd "$here/../.." && pwd)
usage() { echo "usage: $0 DIR [--nodes N] [--gpus-per-node G] [--gpu-product NAME] [--operators a,b]" >&2; exit 2; }

[ $# -ge 1 ] && [ -n "$1" ] && [ "${1#-}" = "$1" ] || usage
dir_arg=$1
shift
nodes=4 gpus=8 product=NVIDIA-H100-80GB-HBM3 operators=
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case $1 in
    --nodes) nodes=$2 ;;
    --gpus-per-node) gpus=$2 ;;
    --gpu-product) product=$2 ;;
    --operators) operators=$2 ;;
    *) usage ;;
  esac
  shift 2
done
[[ $nodes =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] && [ "$nodes" -le 200 ] || { echo "error: --nodes must be 1..200, got '$nodes'" >&2; exit 2; }
[[ $gpus =~ ^[0-9]+$ ]] || { echo "error: --gpus-per-node must be a number, got '$gpus'" >&2; exit 2; }
IFS=, read -r -a ops <<<"$operators"
for op in "${ops[@]}"; do
  if [ ! -f "$opdir/$op/operator.sh" ]; then
    echo "error: no operator '$op': $opdir/$op/operator.sh does not exist" >&2
    echo "       (known: $(for f in "$opdir"/*/operator.sh; do [ ! -f "$f" ] || basename "$(dirname "$f")"; done | tr '\n' ' ' | sed 's/ $//' | grep . || echo none))" >&2
    exit 2
  fi
done

T0=$(date +%s%N)
step() { local ms=$((($(date +%s%N) - T0) / 1000000)); printf 'sim [%3d.%ds] %s\n' $((ms / 1000)) $((ms % 1000 / 100)) "$*" >&2; }

step "build (testing/sim/build.sh)"
built=$(bash "$here/build.sh")
KUBE=$(sed -n 's/^KUBE=//p' <<<"$built") # kapi, kcm, ksched
KWOK=$(sed -n 's/^KWOK=//p' <<<"$built")

py="$root/target/live/venv/bin/python"
if ! "$py" -c "import kubernetes, yaml" 2>/dev/null; then
  step "creating $root/target/live/venv with the kubernetes client (pip install kubernetes pyyaml)"
  rm -rf "$root/target/live/venv"
  "${PYTHON:-python3}" -m venv "$root/target/live/venv"
  "$py" -m pip --disable-pip-version-check -q install kubernetes pyyaml >&2
fi

failing_log=
started=
on_exit() {
  local rc=$?
  [ $rc -eq 0 ] && return
  echo "error: the simulated cluster did not start (exit $rc)" >&2
  if [ -n "$failing_log" ] && [ -f "$failing_log" ]; then
    echo "------ last lines of $failing_log:" >&2
    tail -n 40 "$failing_log" >&2
    echo "------" >&2
  fi
  [ -n "$started" ] && bash "$here/stop.sh" "$dir" >&2 || true
  exit $rc
}
trap on_exit EXIT

step "kapi (testing/kube-apiserver/start.sh $dir_arg)"
started=1
dir=$dir_arg
kubeconfig=$(bash "$here/../kube-apiserver/start.sh" "$dir_arg")
dir=$(cd "$dir_arg" && pwd)
cp "$dir/pid" "$dir/kapi.pid"
echo "$operators" >"$dir/operators"

# run NAME BINARY ARGS...: starts one process in the background.
run() {
  local name=$1
  shift
  "$@" </dev/null >"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
}
alive() { # alive NAME: fails (and names the log) when the process is gone
  kill -0 "$(cat "$dir/$1.pid")" 2>/dev/null && return 0
  failing_log="$dir/$1.log"
  echo "error: $1 exited" >&2
  return 1
}

step "kcm, ksched, kwok"
mkdir -p "$dir/flexvolume"
run kcm "$KUBE/kcm" --kubeconfig="$kubeconfig" --controllers='*' \
  --leader-elect=false --secure-port=0 \
  --service-account-private-key-file="$dir/sa.key" --root-ca-file="$dir/ca.crt" \
  --use-service-account-credentials=false \
  --cluster-signing-cert-file="$dir/ca.crt" --cluster-signing-key-file="$dir/ca.key" \
  --flex-volume-plugin-dir="$dir/flexvolume" \
  --kube-api-qps=200 --kube-api-burst=400 --concurrent-job-syncs=10
run ksched "$KUBE/ksched" --kubeconfig="$kubeconfig" --leader-elect=false --secure-port=0 \
  --kube-api-qps=200 --kube-api-burst=400
run kwok "$KWOK" --kubeconfig="$kubeconfig" --config="$here/stages.yaml" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --node-lease-duration-seconds=40 --cidr=10.244.0.0/16 --node-ip=10.0.0.10 \
  --server-address=127.0.0.1:0

step "$nodes nodes x $gpus nvidia.com/gpu ($product); waiting for Ready and the default ServiceAccount"
failing_log="$dir/kwok.log"
(cd "$here" && "$py" nodes.py "$kubeconfig" "$nodes" "$gpus" "$product" 60) >&2 || {
  for p in kcm ksched kwok; do alive $p || exit 1; done
  exit 1
}
for p in kcm ksched kwok; do alive $p || exit 1; done
failing_log=

for op in "${ops[@]}"; do
  step "operator $op (testing/sim/operators/$op/operator.sh start)"
  failing_log="$dir/$op.log"
  KUBECONFIG="$kubeconfig" bash "$opdir/$op/operator.sh" start "$dir" >&2
  failing_log=
done
step "ready: $kubeconfig"
echo "$kubeconfig"
