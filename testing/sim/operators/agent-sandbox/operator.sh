#!/usr/bin/env bash
# agent-sandbox (sigs.k8s.io/agent-sandbox: Sandbox, agents.x-k8s.io/v1beta1)
# for the simulated cluster. Only the core Sandbox controller runs (not the
# extensions: SandboxClaim, SandboxTemplate, SandboxWarmPool).
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          the Sandbox CRD (from the Go module cache) +
#                                  controller, in the background; DIR/kubeconfig
#                                  is the admin's
#   operator.sh stop DIR           stop the controller started in DIR
#
# Webhooks: off (--enable-webhook=false, a switch upstream has): no webhook
# server, no certificate management, no defaulting or validation. The CRD
# still names a conversion webhook (v1alpha1 <-> v1beta1) that does not
# exist: use agents.x-k8s.io/v1beta1 (the stored version) only; v1alpha1
# requests fail.
set -euo pipefail

name=agent-sandbox
module=sigs.k8s.io/agent-sandbox
main_pkg=sigs.k8s.io/agent-sandbox/cmd/agent-sandbox-controller
crd_file=k8s/crds/agents.x-k8s.io_sandboxes.yaml
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)

die() { echo "operator.sh ($name): $*" >&2; exit 1; }

module_version() {
    # `require M vX` on one line, or `M vX` inside a require block
    awk -v m="$module" '($1 == "require" && $2 == m) { print $3; exit } ($1 == m) { print $2; exit }' "$here/go.mod"
}

binary_path() {
    local key cache
    key=$(cat "$here/go.mod" "$here/go.sum" "$here/tools.go" | sha256sum | cut -c1-16)
    cache=${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}
    echo "$cache/operators/$name/$key/$name-controller"
}

cmd_build() {
    local bin ver t0 tmp
    bin=$(binary_path)
    if [ -x "$bin" ]; then echo "$bin"; return 0; fi
    [ "${1:-}" = --cached ] && exit 1
    command -v go >/dev/null || die "go is not installed (Go >= 1.26 and the Go module proxy are needed)"
    ver=$(module_version)
    echo "building $module $ver (one Go module of its own, $here) ..." >&2
    mkdir -p "$(dirname "$bin")"
    tmp="$bin.tmp.$$"
    t0=$(date +%s)
    (cd "$here" && GOTOOLCHAIN=local nice go build -buildvcs=false \
        -o "$tmp" "$main_pkg") >&2 \
        || { rm -f "$tmp"; die "build failed"; }
    mv -f "$tmp" "$bin"
    echo "built $bin in $(( $(date +%s) - t0 )) s ($(du -m "$bin" | cut -f1) MB)" >&2
    echo "$bin"
}

python_bin() {
    local py="$root/target/live/venv/bin/python"
    [ -x "$py" ] || die "$py is missing (testing/sim/start.sh creates the venv with kubernetes and yaml)"
    echo "$py"
}

module_dir() {
    # the module's files in the module cache (downloaded if they are not there)
    local dir
    dir=$(cd "$here" && GOTOOLCHAIN=local go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [ -d "$dir" ] || die "cannot find $module in the Go module cache"
    echo "$dir"
}

free_port() {
    "$1" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pid_alive() { # pid alive and still our controller
    local pid=$1
    kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$name-controller"
}

cmd_start() {
    local dir=${1:-} py bin mdir probe t0 pid
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

    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/$crd_file" \
        || die "applying the CRD $mdir/$crd_file failed"

    probe=$(free_port "$py")
    echo "$probe" >"$dir/$name.probe-port"
    nohup "$bin" --kubeconfig="$dir/kubeconfig" --enable-webhook=false --manage-webhook-certs=false \
        --metrics-bind-address=0 --health-probe-bind-address="127.0.0.1:$probe" --leader-elect=false \
        >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/$name.pid"

    # Ready: /readyz and the Sandbox controller's workers run.
    local deadline=$(( $(date +%s) + 60 ))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$dir/$name.log" >&2
            die "the controller exited (log: $dir/$name.log)"
        fi
        if curl -fsS -o /dev/null "http://127.0.0.1:$probe/readyz" 2>/dev/null \
            && grep -q '"Starting workers".*"controller": *"sandbox"' "$dir/$name.log"; then
            break
        fi
        if [ "$(date +%s)" -ge "$deadline" ]; then
            tail -n 30 "$dir/$name.log" >&2
            cmd_stop "$dir" || true
            die "not ready after 60 s (log: $dir/$name.log)"
        fi
        sleep 0.2
    done
    echo "$name: pid $pid ready in $(( ($(date +%s%N) - t0) / 1000000 )) ms (CRDs + start), probes on 127.0.0.1:$probe, log $dir/$name.log" >&2
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
