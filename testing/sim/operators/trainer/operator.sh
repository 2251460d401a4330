#!/usr/bin/env bash
# Kubeflow Trainer v2 (github.com/kubeflow/trainer/v2, TrainJob and
# (Cluster)TrainingRuntime) for the simulated cluster. A TrainJob becomes a
# JobSet: start the JobSet operator first (start.sh --operators jobset,trainer).
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRDs and upstream's ClusterTrainingRuntimes (from
#                                  the Go module cache) + controller, in the
#                                  background; DIR/kubeconfig is the admin's
#   operator.sh stop DIR           stop the controller started in DIR
#
# Webhooks: none is registered with the API server. The manager always serves
# its webhooks (TrainJob, TrainingRuntime, ClusterTrainingRuntime validators),
# so start makes a throwaway self-signed certificate and binds the server to
# 127.0.0.1 on a free port (config file, certManagement off). The webhook
# server reads its certificate from controller-runtime's default directory
# $TMPDIR/k8s-webhook-server/serving-certs: start sets TMPDIR=DIR/trainer-tmp
# for the controller and puts the certificate there. The TrainJobStatus
# feature (a status server with a hard-coded certificate path) is off by
# default and stays off.
set -euo pipefail

name=trainer
module=github.com/kubeflow/trainer/v2
main_pkg=github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager
crd_subdir=manifests/base/crds
runtimes_subdir=manifests/base/runtimes
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

    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/$crd_subdir"/trainer.kubeflow.org_*.yaml \
        || die "applying the CRDs from $mdir/$crd_subdir failed"
    "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); from kube import Kube; sys.exit(Kube(sys.argv[2]).get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "jobsets.jobset.x-k8s.io") is None)' \
        "$root/testing/sim" "$dir/kubeconfig" || die "the JobSet CRD is missing: start the jobset operator first (--operators jobset,trainer)"
    # Upstream's ClusterTrainingRuntimes (torch-distributed, deepspeed, jax, mlx, xgboost);
    # the kustomize subdirectories (data-cache, torchtune) are left out.
    local rt
    rt=$(ls "$mdir/$runtimes_subdir"/*.yaml | grep -v /kustomization.yaml)
    # shellcheck disable=SC2086
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" $rt \
        || die "applying the ClusterTrainingRuntimes from $mdir/$runtimes_subdir failed"

    # The webhook server must start (see the top), with a certificate.
    local certs="$dir/$name-tmp/k8s-webhook-server/serving-certs"
    mkdir -p "$certs"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
        -subj "/CN=$name-webhook" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$certs/tls.key" -out "$certs/tls.crt" 2>/dev/null \
        || die "openssl could not make a certificate"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    cat >"$dir/$name-config.yaml" <<EOF
apiVersion: config.trainer.kubeflow.org/v1alpha1
kind: Configuration
health:
  healthProbeBindAddress: 127.0.0.1:$probe
  readinessEndpointName: readyz
  livenessEndpointName: healthz
metrics:
  bindAddress: "0"
webhook:
  host: 127.0.0.1
  port: $hook
leaderElection:
  leaderElect: false
certManagement:
  enable: false
clientConnection:
  qps: 100
  burst: 200
EOF
    echo "$probe" >"$dir/$name.probe-port"

    nohup env TMPDIR="$dir/$name-tmp" "$bin" --kubeconfig="$dir/kubeconfig" --config="$dir/$name-config.yaml" \
        >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/$name.pid"

    # Ready: /readyz (the webhook server listens) and the TrainJob controller's workers run.
    local deadline=$(( $(date +%s) + 60 ))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$dir/$name.log" >&2
            die "the controller exited (log: $dir/$name.log)"
        fi
        if curl -fsS -o /dev/null "http://127.0.0.1:$probe/readyz" 2>/dev/null \
            && grep -q '"Starting workers".*"controller": *"trainjob_controller"' "$dir/$name.log"; then
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
