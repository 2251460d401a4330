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
crd_file=manifests/base/kubeflow.org_mpijobs.yaml
ready_path=/healthz
ready_log=('Started workers')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

patch_old=(
    'Addr:    fmt.Sprintf(":%d", healthCheckPort),'
)
patch_new=(
    'Addr: func() string { if a := os.Getenv("WL_MPI_HEALTH_ADDR"); a != "" { return a }; return fmt.Sprintf(":%d", healthCheckPort) }(),'
)

op_build() { # TMP VERSION
    local tmp=$1 ver=$2 mdir
    mdir=$(module_dir)
    # A temporary module: this directory's go.mod/go.sum and a copy of cmd/mpi-operator.
    cp "$here/go.mod" "$here/go.sum" "$tmp/"
    cp -r "$mdir/$cmd_rel" "$tmp/cmd"
    chmod -R u+w "$tmp/cmd"
    find "$tmp/cmd" -name '*_test.go' -delete
    find "$tmp/cmd" -name '*.go' -exec sed -i "s|\"$module/$cmd_rel/|\"workloadlens/sim/operators/$name/cmd/|" {} +
    apply_patches "$tmp/cmd/app/server.go" "$mdir/$cmd_rel/app/server.go"
    (cd "$tmp" && GOTOOLCHAIN=local GOFLAGS=-mod=mod nice go build -buildvcs=false \
        -ldflags "-X $module/pkg/version.Version=$ver" -o "$tmp/$name-controller" ./cmd) >&2 ||
        die "build failed"
}

op_start() {
    # kustomization.yaml in that directory is not a Kubernetes object: apply the CRD files only.
    # mpijobs.kubeflow.org is also the training-operator's CRD (MPIJob v1): one cluster holds one of them.
    if "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); from kube import Kube
crd = Kube(sys.argv[2]).get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "mpijobs.kubeflow.org")
sys.exit(0 if crd and "v1" in [v["name"] for v in crd["spec"]["versions"]] else 1)' "$root/testing/sim" "$dir/kubeconfig"; then
        die "this cluster has the training-operator's MPIJob v1 CRD (mpijobs.kubeflow.org); the MPI operator needs its v2beta1 CRD under the same name: run it in a cluster without the training-operator, or start mpi-operator first (training-operator then leaves MPIJob out)"
    fi
    kube_apply "$mdir/$crd_file" || die "applying the CRD $mdir/$crd_file failed"
    printf 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: mpi-operator\n' >"$dir/$name-namespace.yaml"
    kube_apply "$dir/$name-namespace.yaml" || die "creating namespace mpi-operator failed"

    probe=$(free_port "$py")
    launch env WL_MPI_HEALTH_ADDR="127.0.0.1:$probe" "$bin" --kubeConfig="$dir/kubeconfig" \
        --lock-namespace=mpi-operator --monitoring-port=0 --threadiness=2 \
        --kube-api-qps=100 --kube-api-burst=200
}

operator_main "$@"
