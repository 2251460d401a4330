#!/usr/bin/env bash
# Argo Workflows' workflow-controller (github.com/argoproj/argo-workflows/v3)
# for the simulated cluster.
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRDs (manifests/base/crds/minimal, from the Go
#                                  module cache), namespace "argo" with the
#                                  controller's ConfigMap, then the controller in
#                                  the background (log DIR/argo-workflows.log, pid
#                                  DIR/argo-workflows.pid); waits until it
#                                  answers /healthz and its informers synced (60 s at most)
#   operator.sh stop DIR           TERM, KILL after 5 s; rc 0 if it does not run
#
# Argo has no admission webhooks in the controller (the argo-server is not
# run). The controller watches every namespace. ConfigMap
# argo/workflow-controller-configmap: metrics and telemetry servers off (they
# would listen on :9090 on every interface and panic when the port is taken).
# Leader election off (LEADER_ELECTION_DISABLE=true). Upstream main.go serves
# /healthz on ":6060" (every interface, a fixed port), so the build compiles a
# copy of main.go (made in the cache at build time, never committed) that
# listens on $WL_ARGO_HEALTH_ADDR instead (patch_* below); start sets it to
# 127.0.0.1:<free port>. The executor image (argoexec, init and wait
# containers of every pod) is never pulled: KWOK runs nothing.
set -euo pipefail

name=argo-workflows
module=github.com/argoproj/argo-workflows/v3
main_rel=cmd/workflow-controller/main.go
crd_subdir=manifests/base/crds/minimal
namespace=argo
ready_line='Started workflow garbage collection'   # logged after the informers synced
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)

patch_old=(
    'log.Println(http.ListenAndServe(":6060", nil))'
)
patch_new=(
    'log.Println(http.ListenAndServe(func() string { if a := os.Getenv("WL_ARGO_HEALTH_ADDR"); a != "" { return a }; return ":6060" }(), nil))'
)

die() { echo "operator.sh ($name): $*" >&2; exit 1; }

module_version() {
    awk -v m="$module" '($1 == "require" && $2 == m) { print $3; exit } ($1 == m) { print $2; exit }' "$here/go.mod"
}

binary_path() {
    local key cache
    key=$({ cat "$here/go.mod" "$here/go.sum" "$here/tools.go"; printf '%s\n' "${patch_old[@]}" "${patch_new[@]}"; } |
        sha256sum | cut -c1-16)
    cache=${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}
    echo "$cache/operators/$name/$key/$name-controller"
}

module_dir() {
    # the module's files in the module cache (downloaded if they are not there)
    local dir
    dir=$(cd "$here" && GOTOOLCHAIN=local go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [ -d "$dir" ] || die "cannot find $module in the Go module cache"
    echo "$dir"
}

cmd_build() {
    local bin ver t0 tmp src i
    bin=$(binary_path)
    if [ -x "$bin" ]; then echo "$bin"; return 0; fi
    [ "${1:-}" = --cached ] && exit 1
    command -v go >/dev/null || die "go is not installed (Go >= 1.26 and the Go module proxy are needed)"
    ver=$(module_version)
    echo "building $module $ver (one Go module of its own, $here) ..." >&2
    mkdir -p "$(dirname "$bin")"
    tmp=$(mktemp -d "$(dirname "$bin")/.build.XXXXXX")
    trap "rm -rf '$tmp'" EXIT
    src="$(module_dir)/$main_rel"
    cp "$src" "$tmp/main.go"
    for i in "${!patch_old[@]}"; do
        [ "$(grep -cF "${patch_old[$i]}" "$tmp/main.go")" = 1 ] ||
            die "$src does not contain exactly one line with '${patch_old[$i]}'; update operator.sh"
        OLD="${patch_old[$i]}" NEW="${patch_new[$i]}" awk '{ i = index($0, ENVIRON["OLD"]); if (i) $0 = substr($0, 1, i - 1) ENVIRON["NEW"] substr($0, i + length(ENVIRON["OLD"])); print }' \
            "$tmp/main.go" >"$tmp/main.go.new"
        mv "$tmp/main.go.new" "$tmp/main.go"
    done
    t0=$(date +%s)
    # A file list, built from this directory: its imports resolve through this
    # go.mod (go build -overlay refuses files in the module cache).
    (cd "$here" && GOTOOLCHAIN=local nice go build -buildvcs=false -ldflags "-X $module.version=$ver" -o "$tmp/$name-controller" "$tmp/main.go") >&2 ||
        die "build failed"
    mv -f "$tmp/$name-controller" "$bin"
    echo "built $bin in $(( $(date +%s) - t0 )) s ($(du -m "$bin" | cut -f1) MB)" >&2
    echo "$bin"
}

python_bin() {
    local py="$root/target/live/venv/bin/python"
    [ -x "$py" ] || die "$py is missing (testing/sim/start.sh creates the venv with kubernetes and yaml)"
    echo "$py"
}

free_port() {
    "$1" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pid_alive() { # pid alive and still our controller
    local pid=$1
    kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$name-controller"
}

cmd_start() {
    local dir=${1:-} py bin mdir health t0 pid
    [ -n "$dir" ] || die "usage: operator.sh start DIR"
    dir=$(cd "$dir" && pwd)
    [ -f "$dir/kubeconfig" ] || die "$dir/kubeconfig does not exist"
    py=$(python_bin)
    if [ -f "$dir/$name.pid" ] && pid_alive "$(cat "$dir/$name.pid")"; then
        die "already running (pid $(cat "$dir/$name.pid"))"
    fi
    bin=$(cmd_build)
    mdir=$(module_dir)
    t0=$(date +%s%N)

    # kustomization.yaml in that directory is not a Kubernetes object: apply the CRD files only.
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/$crd_subdir"/argoproj.io_*.yaml \
        || die "applying the CRDs from $mdir/$crd_subdir failed"
    cat >"$dir/$name-config.yaml" <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: $namespace
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: workflow-controller-configmap
  namespace: $namespace
data:
  metricsConfig: |
    enabled: false
  telemetryConfig: |
    enabled: false
EOF
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$dir/$name-config.yaml" \
        || die "applying $dir/$name-config.yaml failed"

    health=$(free_port "$py")
    echo "$health" >"$dir/$name.probe-port"
    nohup env LEADER_ELECTION_DISABLE=true WL_ARGO_HEALTH_ADDR="127.0.0.1:$health" \
        "$bin" --kubeconfig="$dir/kubeconfig" --namespace="$namespace" \
        --configmap=workflow-controller-configmap --qps=100 --burst=200 \
        --workflow-workers=4 --pod-cleanup-workers=2 --cron-workflow-workers=1 \
        --workflow-ttl-workers=1 --workflow-archive-workers=1 \
        >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/$name.pid"

    # Ready: /healthz answers 200 and the controller logged that its informers synced.
    local deadline=$(( $(date +%s) + 60 ))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$dir/$name.log" >&2
            die "the controller exited (log: $dir/$name.log)"
        fi
        if curl -fsS -o /dev/null "http://127.0.0.1:$health/healthz" 2>/dev/null \
            && grep -q "$ready_line" "$dir/$name.log"; then
            break
        fi
        if [ "$(date +%s)" -ge "$deadline" ]; then
            tail -n 30 "$dir/$name.log" >&2
            cmd_stop "$dir" || true
            die "not ready after 60 s (log: $dir/$name.log)"
        fi
        sleep 0.2
    done
    echo "$name: pid $pid ready in $(( ($(date +%s%N) - t0) / 1000000 )) ms (CRDs + start), /healthz on 127.0.0.1:$health, log $dir/$name.log" >&2
}

cmd_stop() {
    local dir=${1:-} pid i
    [ -n "$dir" ] || die "usage: operator.sh stop DIR"
    [ -f "$dir/$name.pid" ] || return 0
    pid=$(cat "$dir/$name.pid")
    if pid_alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for i in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "$name: pid $pid still running after 5 s, SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$dir/$name.pid"
}

case "${1:-}" in
build) shift; cmd_build "$@" ;;
version) echo "$module $(module_version)" ;;
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
*) echo "usage: operator.sh build [--cached] | version | start DIR | stop DIR" >&2; exit 2 ;;
esac
