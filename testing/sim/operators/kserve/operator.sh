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
needs_openssl=1
ready_log=('"Starting workers".*"controller": *"inferenceservice"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

patch_old=(
    'Port: options.webhookPort,'
)
patch_new=(
    'Port: options.webhookPort, Host: "127.0.0.1", CertDir: os.Getenv("WL_KSERVE_CERT_DIR"),'
)

op_start() {
    local hook
    # kustomization.yaml in that directory is not a Kubernetes object: apply the CRD files only.
    kube_apply "$mdir/$crd_subdir"/serving.kserve.io_*.yaml \
        || die "applying the CRDs from $mdir/$crd_subdir failed"
    kube_apply "$here/inferenceservice-config.yaml" \
        || die "applying $here/inferenceservice-config.yaml failed"
    # Upstream's ClusterServingRuntimes (huggingface, sklearn, triton, ...), so that
    # a predictor naming only spec.predictor.model.modelFormat finds a runtime. Their
    # images are kustomize placeholders (huggingfaceserver:replace): nothing pulls them here.
    kube_apply "$mdir/config/runtimes"/kserve-*.yaml \
        || die "applying the ClusterServingRuntimes from $mdir/config/runtimes failed"

    make_cert "$dir/$name-certs"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    while [ "$hook" = "$probe" ]; do hook=$(free_port "$py"); done

    # --metrics-addr=0: no metrics server; leader election is off by default.
    launch env POD_NAMESPACE="$namespace" KUBECONFIG="$dir/kubeconfig" WL_KSERVE_CERT_DIR="$dir/$name-certs" \
        "$bin" --metrics-addr=0 --health-probe-addr="127.0.0.1:$probe" \
        --webhook-port="$hook" --leader-elect=false
}

operator_main "$@"
