#!/usr/bin/env bash
# The Kubeflow MPI operator (github.com/kubeflow/mpi-operator, MPIJob
# kubeflow.org/v2beta1) for the simulated cluster.
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRD (from the Go module cache), namespace
#                                  mpi-operator (its leader-election Lease), then the
#                                  controller in the background (log
#                                  DIR/mpi-operator.log, pid DIR/mpi-operator.pid);
#                                  waits until it leads and its informers synced
#   operator.sh stop DIR           TERM, KILL after 5 s; rc 0 if it does not run
#
# No webhooks. Upstream's command always serves /healthz on ":8080" (every
# interface, a fixed port) and exits if that port is taken, and always runs
# leader election. The health server lives in package cmd/mpi-operator/app,
# not in main, so the build copies cmd/mpi-operator (main and app, from the
# module cache; never committed) into a temporary module made of this
# directory's go.mod and go.sum, points main's imports at the copy, and
# changes one line of app/server.go (patch_* below): the health server listens
# on $WL_MPI_HEALTH_ADDR. Leader election stays (Lease mpi-operator/mpi-operator);
# a restart in the same cluster waits for the old lease to expire (~15 s).
set -euo pipefail

name=mpi-operator
module=github.com/kubeflow/mpi-operator
cmd_rel=cmd/mpi-operator
ready_line='Started workers'
crd_file=manifests/base/kubeflow.org_mpijobs.yaml
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../../.." && pwd)

patch_old=(
    'Addr:    fmt.Sprintf(":%d", healthCheckPort),'
)
patch_new=(
    'Addr: func() string { if a := os.Getenv("WL_MPI_HEALTH_ADDR"); a != "" { return a }; return fmt.Sprintf(":%d", healthCheckPort) }(),'
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
    local mdir f
    mdir=$(module_dir)
    # A temporary module: this directory's go.mod/go.sum and a copy of cmd/mpi-operator.
    cp "$here/go.mod" "$here/go.sum" "$tmp/"
    cp -r "$mdir/$cmd_rel" "$tmp/cmd"
    chmod -R u+w "$tmp/cmd"
    find "$tmp/cmd" -name '*_test.go' -delete
    for f in $(find "$tmp/cmd" -name '*.go'); do
        sed -i "s|\"$module/$cmd_rel/|\"workloadlens/sim/operators/$name/cmd/|" "$f"
    done
    src="$tmp/cmd/app/server.go"
    for i in "${!patch_old[@]}"; do
        [ "$(grep -cF "${patch_old[$i]}" "$src")" = 1 ] ||
            die "$mdir/$cmd_rel/app/server.go does not contain exactly one line with '${patch_old[$i]}'; update operator.sh"
        OLD="${patch_old[$i]}" NEW="${patch_new[$i]}" awk '{ i = index($0, ENVIRON["OLD"]); if (i) $0 = substr($0, 1, i - 1) ENVIRON["NEW"] substr($0, i + length(ENVIRON["OLD"])); print }' \
            "$src" >"$src.new"
        mv "$src.new" "$src"
    done
    t0=$(date +%s)
    (cd "$tmp" && GOTOOLCHAIN=local GOFLAGS=-mod=mod nice go build -buildvcs=false \
        -ldflags "-X $module/pkg/version.Version=$ver" -o "$tmp/$name-controller" ./cmd) >&2 ||
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

    # kustomization.yaml in that directory is not a Kubernetes object: apply the CRD files only.
    # mpijobs.kubeflow.org is also the training-operator's CRD (MPIJob v1): one cluster holds one of them.
    if "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); from kube import Kube
crd = Kube(sys.argv[2]).get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "mpijobs.kubeflow.org")
sys.exit(0 if crd and "v1" in [v["name"] for v in crd["spec"]["versions"]] else 1)' "$root/testing/sim" "$dir/kubeconfig"; then
        die "this cluster has the training-operator's MPIJob v1 CRD (mpijobs.kubeflow.org); the MPI operator needs its v2beta1 CRD under the same name: run it in a cluster without the training-operator, or start mpi-operator first (training-operator then leaves MPIJob out)"
    fi
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/$crd_file" \
        || die "applying the CRD $mdir/$crd_file failed"
    printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: mpi-operator\n' >"$dir/$name-namespace.yaml"
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$dir/$name-namespace.yaml" \
        || die "creating namespace mpi-operator failed"

    probe=$(free_port "$py")
    echo "$probe" >"$dir/$name.probe-port"
    nohup env WL_MPI_HEALTH_ADDR="127.0.0.1:$probe" "$bin" --kubeConfig="$dir/kubeconfig" \
        --lock-namespace=mpi-operator --monitoring-port=0 --threadiness=2 \
        --kube-api-qps=100 --kube-api-burst=200 \
        >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$dir/$name.pid"

    local deadline=$(( $(date +%s) + 60 ))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$dir/$name.log" >&2
            die "the controller exited (log: $dir/$name.log)"
        fi
        if curl -fsS -o /dev/null "http://127.0.0.1:$probe/healthz" 2>/dev/null \
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
