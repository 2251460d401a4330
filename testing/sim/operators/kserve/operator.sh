#!/usr/bin/env bash
# KServe's controller manager (github.com/kserve/kserve, cmd/manager) for the
# simulated cluster, in raw deployment mode (no Knative, no Istio, no cert-manager).
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRDs (config/crd/full, from the Go module cache),
#                                  namespace "kserve" with inferenceservice-config.yaml
#                                  (ours), upstream's ClusterServingRuntimes
#                                  (config/runtimes), then the controller in the background
#                                  (log DIR/kserve.log, pid DIR/kserve.pid); waits
#                                  until the InferenceService controller's workers
#                                  run (60 s at most)
#   operator.sh stop DIR           TERM, KILL after 5 s; rc 0 if it does not run
#
# Webhooks: KServe's manager always serves its webhooks (pod mutator,
# InferenceService defaulter/validator, ServingRuntime validators) and needs a
# certificate for that; no webhook configuration is registered with the API
# server, so none is called. Upstream main.go binds that server to every
# interface, so the build compiles a copy of main.go (made in the cache at
# build time, never committed) whose webhook server binds 127.0.0.1 and reads
# its certificate from $WL_KSERVE_CERT_DIR (patch_* below); start puts a
# throwaway self-signed one in DIR/kserve-certs. Without the defaulting webhook
# the InferenceService is stored as written (no default resources); a custom
# predictor (spec.predictor.containers, container kserve-container) and a
# model predictor (modelFormat, served by the ClusterServingRuntimes) both
# work; the controller takes the deployment mode from the ConfigMap
# (RawDeployment) or the serving.kserve.io/deploymentMode annotation.
# Without the pod webhook there is no storage-initializer or agent container.
set -euo pipefail

name=kserve
module=github.com/kserve/kserve
main_rel=cmd/manager/main.go
crd_subdir=config/crd/full
namespace=kserve
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)

patch_old=(
    'Port: options.webhookPort,'
)
patch_new=(
    'Port: options.webhookPort, Host: "127.0.0.1", CertDir: os.Getenv("WL_KSERVE_CERT_DIR"),'
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
    (cd "$here" && GOTOOLCHAIN=local nice go build -buildvcs=false -o "$tmp/$name-controller" "$tmp/main.go") >&2 ||
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

    # kustomization.yaml in that directory is not a Kubernetes object: apply the CRD files only.
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/$crd_subdir"/serving.kserve.io_*.yaml \
        || die "applying the CRDs from $mdir/$crd_subdir failed"
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$here/inferenceservice-config.yaml" \
        || die "applying $here/inferenceservice-config.yaml failed"
    # Upstream's ClusterServingRuntimes (huggingface, sklearn, triton, ...), so that
    # a predictor naming only spec.predictor.model.modelFormat finds a runtime. Their
    # images are kustomize placeholders (huggingfaceserver:replace): nothing pulls them here.
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/config/runtimes"/kserve-*.yaml \
        || die "applying the ClusterServingRuntimes from $mdir/config/runtimes failed"

    mkdir -p "$dir/$name-certs"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
        -subj "/CN=$name-webhook" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$dir/$name-certs/tls.key" -out "$dir/$name-certs/tls.crt" 2>/dev/null \
        || die "openssl could not make a certificate"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    while [ "$hook" = "$probe" ]; do hook=$(free_port "$py"); done
    echo "$probe" >"$dir/$name.probe-port"

    # --metrics-addr=0: no metrics server; leader election is off by default.
    nohup env POD_NAMESPACE="$namespace" KUBECONFIG="$dir/kubeconfig" WL_KSERVE_CERT_DIR="$dir/$name-certs" \
        "$bin" --metrics-addr=0 --health-probe-addr="127.0.0.1:$probe" \
        --webhook-port="$hook" --leader-elect=false \
        >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/$name.pid"

    local deadline=$(( $(date +%s) + 60 ))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$dir/$name.log" >&2
            die "the controller exited (log: $dir/$name.log)"
        fi
        if curl -fsS -o /dev/null "http://127.0.0.1:$probe/readyz" 2>/dev/null \
            && grep -q '"Starting workers".*"controller": *"inferenceservice"' "$dir/$name.log"; then
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
