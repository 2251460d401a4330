#!/usr/bin/env bash
# The JobSet operator (sigs.k8s.io/jobset) for the simulated cluster.
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRDs (from the Go module cache) + controller, in
#                                  the background; DIR/kubeconfig is the admin's
#   operator.sh stop DIR           stop the controller started in DIR
#
# Webhooks: none is registered with the API server. JobSet's manager always
# starts its webhook server (there is no switch to leave it out), and that
# server needs a certificate, so start makes a throwaway self-signed one in
# DIR/jobset-certs and binds the server to 127.0.0.1 on a free port. Nothing
# calls it, so JobSets get no defaults from the webhook: the controller then
# panics on a nil spec.successPolicy or spec.network (see README.md here);
# tests write those fields themselves.
set -euo pipefail

name=jobset
module=sigs.k8s.io/jobset
main_pkg=sigs.k8s.io/jobset            # main.go is at the module root
crd_subdir=config/components/crd/bases
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
        -ldflags "-X $module/pkg/version.GitVersion=$ver" -o "$tmp" "$main_pkg") >&2 \
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
    local dir=${1:-} py bin mdir probe hook t0 pid
    [ -n "$dir" ] || die "usage: operator.sh start DIR"
    dir=$(cd "$dir" && pwd)
    [ -f "$dir/kubeconfig" ] || die "$dir/kubeconfig does not exist"
    py=$(python_bin)
    command -v openssl >/dev/null || die "openssl is needed (self-signed certificate for the webhook server)"
    if [ -f "$dir/$name.pid" ] && pid_alive "$(cat "$dir/$name.pid")"; then
        die "already running (pid $(cat "$dir/$name.pid"))"
    fi
    bin=$(cmd_build)
    mdir=$(module_dir)
    t0=$(date +%s%N)

    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/$crd_subdir" \
        || die "applying the CRDs from $mdir/$crd_subdir failed"

    # The webhook server must start (see the top), with a certificate.
    mkdir -p "$dir/$name-certs"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
        -subj "/CN=$name-webhook" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$dir/$name-certs/tls.key" -out "$dir/$name-certs/tls.crt" 2>/dev/null \
        || die "openssl could not make a certificate"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    cat >"$dir/$name-config.yaml" <<EOF
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: $hook
  certDir: $dir/$name-certs
health:
  healthProbeBindAddress: 127.0.0.1:$probe
EOF
    echo "$probe" >"$dir/$name.probe-port"

    # --metrics-bind-address=0: no metrics server. Leader election is off (config).
    nohup "$bin" --kubeconfig="$dir/kubeconfig" --config="$dir/$name-config.yaml" \
        --metrics-bind-address=0 --leader-elect=false \
        >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/$name.pid"

    # Ready: /readyz (the webhook server listens) and the JobSet controller's workers run.
    local deadline=$(( $(date +%s) + 60 ))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$dir/$name.log" >&2
            die "the controller exited (log: $dir/$name.log)"
        fi
        if curl -fsS -o /dev/null "http://127.0.0.1:$probe/readyz" 2>/dev/null \
            && grep -q 'Starting workers.*"controller": "jobset"' "$dir/$name.log"; then
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
