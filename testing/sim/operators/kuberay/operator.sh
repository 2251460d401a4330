#!/usr/bin/env bash
# KubeRay (github.com/ray-project/kuberay/ray-operator, version in go.mod) for
# the simulated cluster.
#
#   operator.sh build [--cached]  build the operator into the cache; prints
#                                 only its path. --cached: exit 1 (silently)
#                                 if it is not built yet
#   operator.sh version           "<module> <version>" from go.mod
#   operator.sh start DIR         apply the RayCluster/RayJob/RayService CRDs
#                                 (from the module cache), start the operator
#                                 in the background (log DIR/kuberay.log, pid
#                                 DIR/kuberay.pid) and wait until it
#                                 reconciles (60 s at most)
#   operator.sh stop DIR          TERM, KILL after 5 s; rc 0 if not running
#
# DIR/kubeconfig is the cluster's admin kubeconfig. Needs Go (build, and to
# find the module in the module cache at start) and the repo's venv
# (target/live/venv/bin/python, for testing/sim/kube.py).
#
# Webhooks: KubeRay serves its only webhook (RayCluster validation) only when
# ENABLE_WEBHOOKS=true; start unsets it, so there is no webhook server, no
# certificate and no webhook configuration. Leader election is off, the
# metrics server is off (--metrics-addr=0), the health probes listen on a free
# loopback port (/readyz is polled, then the log line "Starting workers" of
# the raycluster controller).
#
# What works without real Ray (KWOK runs no containers), seen with smoke.py:
# RayCluster -> head and worker Pods and the headless Service <name>-head-svc;
# KWOK makes the pods Running and Ready (it runs no probes), and within a
# second the RayCluster has status.state "ready", readyWorkerReplicas =
# replicas, conditions HeadPodReady=True, RayClusterProvisioned=True
# (AllPodRunningAndReadyFirstTime), RayClusterSuspended/Suspending=False.
# Scaling a worker group follows at once. With Kueue running, a suspended
# RayCluster with a queue label is admitted and unsuspended.
# Anything that asks the Ray head's dashboard gets no answer (the operator
# cannot resolve <cluster>-head-svc.<ns>.svc.cluster.local): a RayJob is
# Running within 0.5 s (its own cluster is ready at once), its submitter Job
# completes at once under KWOK,
# and 30 s later the RayJob is Failed / FAILED, reason
# JobDeploymentStatusTransitionGracePeriodExceeded. RayService and the
# autoscaler would fail the same way (not tried). No flag turns these off.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
name=kuberay
module=github.com/ray-project/kuberay/ray-operator
main_pkg=github.com/ray-project/kuberay/ray-operator
cache="${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}/operators/$name"

die() { echo "$name: error: $*" >&2; exit 1; }

mod_version() {
  awk -v m="$module" '($1 == m) { print $2 } ($1 == "require" && $2 == m) { print $3 }' "$here/go.mod" | head -n1
}

build_key() {
  cat "$here/go.mod" "$here/go.sum" "$here/tools.go" | sha256sum | cut -c1-16
}

# The module's directory in the module cache (downloaded if needed).
module_dir() {
  local dir
  dir=$(cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "$module@$(mod_version)" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  [ -n "$dir" ] && [ -d "$dir" ] || die "could not find $module in the Go module cache (go mod download)"
  echo "$dir"
}

cmd_build() {
  command -v go >/dev/null 2>&1 || { [ "${1:-}" = --cached ] && exit 1; die "build needs Go (go is not on PATH)"; }
  local key out
  key=$(build_key)
  out="$cache/$key/$name-controller"
  if [ -x "$out" ]; then echo "$out"; return 0; fi
  [ "${1:-}" = --cached ] && exit 1
  echo "$name: building $main_pkg $(mod_version) into $out" >&2
  echo "$name: (first build: ~3-6 min on 2 cores; later builds reuse Go's build cache)" >&2
  mkdir -p "$cache/$key"
  local start
  tmp=$(mktemp -d "$cache/$key/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  start=$(date +%s)
  (cd "$here" && GOTOOLCHAIN=local nice go build -buildvcs=false -o "$tmp/$name-controller" "$main_pkg") >&2
  mv -f "$tmp/$name-controller" "$out"
  echo "$name: built in $(($(date +%s) - start)) s ($(du -m "$out" | cut -f1) MB)" >&2
  echo "$out"
}

python_bin() {
  local py="$root/target/live/venv/bin/python"
  [ -x "$py" ] || die "$py is missing (the repo's venv with the kubernetes and yaml packages)"
  echo "$py"
}

free_port() {
  "$(python_bin)" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

running_pid() { # the pid in DIR/<name>.pid if that process lives
  local pidf="$1/$name.pid" pid
  [ -f "$pidf" ] || return 1
  pid=$(cat "$pidf")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

cmd_start() {
  local dir="${1:?usage: operator.sh start DIR}"
  dir=$(cd "$dir" && pwd)
  [ -f "$dir/kubeconfig" ] || die "$dir/kubeconfig not found"
  if running_pid "$dir" >/dev/null; then die "already running (pid $(cat "$dir/$name.pid"))"; fi
  local bin py mdir t0
  t0=$(date +%s.%N)
  bin=$(cmd_build) || die "build failed"
  py=$(python_bin)
  mdir=$(module_dir)

  "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/config/crd/bases" ||
    die "applying the CRDs from $mdir/config/crd/bases failed"

  local health
  health=$(free_port)

  : >"$dir/$name.log"
  (
    cd "$dir"
    exec env -u ENABLE_WEBHOOKS -u WATCH_NAMESPACE KUBECONFIG="$dir/kubeconfig" "$bin" \
      --enable-leader-election=false --metrics-addr=0 --health-probe-bind-address="127.0.0.1:$health" \
      --zap-log-level=info >>"$dir/$name.log" 2>&1 </dev/null
  ) &
  local pid=$!
  echo "$pid" >"$dir/$name.pid"

  # Ready: /readyz answers 200 (the manager serves) and the RayCluster
  # controller's workers run (caches synced, reconciling).
  local deadline=$(($(date +%s) + 60))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: the controller exited; last lines of $dir/$name.log:" >&2
      tail -n 30 "$dir/$name.log" >&2
      rm -f "$dir/$name.pid"
      exit 1
    fi
    if "$py" -c 'import sys, urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1], timeout=1).status != 200)' \
      "http://127.0.0.1:$health/readyz" 2>/dev/null &&
      grep -q '"logger":"controllers.RayCluster".*"msg":"Starting workers"' "$dir/$name.log"; then
      break
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "$name: not ready after 60 s; last lines of $dir/$name.log:" >&2
      tail -n 30 "$dir/$name.log" >&2
      cmd_stop "$dir" || true
      exit 1
    fi
    sleep 0.2
  done
  echo "$name: ready in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (pid $pid, log $dir/$name.log)" >&2
}

cmd_stop() {
  local dir="${1:?usage: operator.sh stop DIR}" pid i
  pid=$(running_pid "$dir") || { rm -f "$dir/$name.pid"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$name: pid $pid did not stop in 5 s; KILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/$name.pid"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  version) echo "$module $(mod_version)" ;;
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
