#!/usr/bin/env bash
# The Kubeflow training-operator v1 (github.com/kubeflow/training-operator) for
# the simulated cluster: PyTorchJob, TFJob, XGBoostJob, PaddleJob, JAXJob, MPIJob (v1).
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRDs (from the Go module cache) + controller, in
#                                  the background (log DIR/training-operator.log,
#                                  pid DIR/training-operator.pid); waits until the
#                                  PyTorchJob controller's workers run (60 s at most)
#   operator.sh stop DIR           TERM, KILL after 5 s; rc 0 if it does not run
#
# Webhooks: upstream main.go always runs a cert-controller rotator that wants a
# Secret in namespace "kubeflow", a ValidatingWebhookConfiguration and the
# certificate files at the fixed host path /tmp/k8s-webhook-server/serving-certs
# (a kubelet's secret mount), and only sets up the job controllers once all of
# that is there; its webhook server listens on every interface. So the build
# compiles a copy of main.go (made in the cache at build time, never committed)
# with three one-line changes (the patch_* pairs below):
#   1. no certificate rotator: the "certs ready" channel is closed at once;
#   2. main no longer closes that channel again when it exits;
#   3. the webhook server binds 127.0.0.1 and reads its certificate from
#      $WL_TRAINING_OPERATOR_CERT_DIR (start puts a throwaway self-signed one
#      in DIR/training-operator-certs).
# No webhook configuration is registered with the API server: jobs are not
# validated (the only webhook is a validating one). Defaults (replicas,
# restartPolicy, ports, cleanPodPolicy) are set by the controller itself.
set -euo pipefail

name=training-operator
module=github.com/kubeflow/training-operator
main_rel=cmd/training-operator.v1/main.go
crd_subdir=manifests/base/crds
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)

patch_old=(
    'if err = cert.ManageCerts(mgr, certGenerationConfig, certsReady); err != nil {'
    'defer close(certsReady)'
    'Port: webhookServerPort,'
)
patch_new=(
    'if err = func() error { _ = cert.ManageCerts; _ = certGenerationConfig; close(certsReady); return nil }(); err != nil {'
    '// (workload-lens sim: certsReady is closed once, above)'
    'Port: webhookServerPort, Host: "127.0.0.1", CertDir: os.Getenv("WL_TRAINING_OPERATOR_CERT_DIR"),'
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
    # mpijobs.kubeflow.org is also the MPI operator's CRD (MPIJob v2beta1): when that one is
    # there, MPIJob v1 is left out (its CRD and its controller).
    local crds schemes=()
    crds=$(ls "$mdir/$crd_subdir"/kubeflow.org_*.yaml)
    if "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); from kube import Kube
crd = Kube(sys.argv[2]).get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "mpijobs.kubeflow.org")
sys.exit(0 if crd and "v1" not in [v["name"] for v in crd["spec"]["versions"]] else 1)' "$root/testing/sim" "$dir/kubeconfig"; then
        echo "$name: mpijobs.kubeflow.org is the MPI operator's (v2beta1): MPIJob v1 left out" >&2
        crds=$(echo "$crds" | grep -v kubeflow.org_mpijobs.yaml)
        schemes=(--enable-scheme=pytorchjob --enable-scheme=tfjob --enable-scheme=xgboostjob --enable-scheme=paddlejob --enable-scheme=jaxjob)
    fi
    # shellcheck disable=SC2086
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" $crds \
        || die "applying the CRDs from $mdir/$crd_subdir failed"

    mkdir -p "$dir/$name-certs"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
        -subj "/CN=$name-webhook" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$dir/$name-certs/tls.key" -out "$dir/$name-certs/tls.crt" 2>/dev/null \
        || die "openssl could not make a certificate"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    while [ "$hook" = "$probe" ]; do hook=$(free_port "$py"); done
    echo "$probe" >"$dir/$name.probe-port"

    # --metrics-bind-address=0: no metrics server. Leader election is off by default.
    nohup env KUBECONFIG="$dir/kubeconfig" WL_TRAINING_OPERATOR_CERT_DIR="$dir/$name-certs" \
        "$bin" --metrics-bind-address=0 --health-probe-bind-address="127.0.0.1:$probe" \
        --webhook-server-port="$hook" --leader-elect=false \
        --kube-api-qps=100 --kube-api-burst=200 --controller-threads=2 "${schemes[@]}" \
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
            && grep -q 'Starting workers.*"controller": "pytorchjob-controller"' "$dir/$name.log"; then
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
