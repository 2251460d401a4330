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
version_var=$module.version
crd_subdir=manifests/base/crds/minimal
namespace=argo
# Ready: /healthz answers 200 and the controller logged that its informers synced.
ready_path=/healthz
ready_log=('Started workflow garbage collection')   # logged after the informers synced
probe_label=/healthz
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

patch_old=(
    'log.Println(http.ListenAndServe(":6060", nil))'
)
patch_new=(
    'log.Println(http.ListenAndServe(func() string { if a := os.Getenv("WL_ARGO_HEALTH_ADDR"); a != "" { return a }; return ":6060" }(), nil))'
)

op_start() {
    # kustomization.yaml in that directory is not a Kubernetes object: apply the CRD files only.
    kube_apply "$mdir/$crd_subdir"/argoproj.io_*.yaml \
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
    kube_apply "$dir/$name-config.yaml" || die "applying $dir/$name-config.yaml failed"

    probe=$(free_port "$py")
    launch env LEADER_ELECTION_DISABLE=true WL_ARGO_HEALTH_ADDR="127.0.0.1:$probe" \
        "$bin" --kubeconfig="$dir/kubeconfig" --namespace="$namespace" \
        --configmap=workflow-controller-configmap --qps=100 --burst=200 \
        --workflow-workers=4 --pod-cleanup-workers=2 --cron-workflow-workers=1 \
        --workflow-ttl-workers=1 --workflow-archive-workers=1
}

operator_main "$@"
