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
needs_openssl=1
# Ready: /readyz (the webhook server listens) and the TrainJob controller's workers run.
ready_log=('"Starting workers".*"controller": *"trainjob_controller"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

op_start() {
    local hook
    kube_apply "$mdir/$crd_subdir"/trainer.kubeflow.org_*.yaml \
        || die "applying the CRDs from $mdir/$crd_subdir failed"
    "$py" -c 'import sys; sys.path.insert(0, sys.argv[1]); from kube import Kube; sys.exit(Kube(sys.argv[2]).get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "jobsets.jobset.x-k8s.io") is None)' \
        "$root/testing/sim" "$dir/kubeconfig" || die "the JobSet CRD is missing: start the jobset operator first (--operators jobset,trainer)"
    # Upstream's ClusterTrainingRuntimes (torch-distributed, deepspeed, jax, mlx, xgboost);
    # the kustomize subdirectories (data-cache, torchtune) are left out.
    local rt=() f
    for f in "$mdir/$runtimes_subdir"/*.yaml; do
        [ "${f##*/}" = kustomization.yaml ] || rt+=("$f")
    done
    kube_apply "${rt[@]}" \
        || die "applying the ClusterTrainingRuntimes from $mdir/$runtimes_subdir failed"

    # The webhook server must start (see the top), with a certificate.
    make_cert "$dir/$name-tmp/k8s-webhook-server/serving-certs"
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

    launch env TMPDIR="$dir/$name-tmp" "$bin" --kubeconfig="$dir/kubeconfig" --config="$dir/$name-config.yaml"
}

operator_main "$@"
