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
needs_openssl=1
ready_log=('Starting workers.*"controller": "pytorchjob-controller"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

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

op_start() {
    local hook
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
    kube_apply $crds || die "applying the CRDs from $mdir/$crd_subdir failed"

    make_cert "$dir/$name-certs"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    while [ "$hook" = "$probe" ]; do hook=$(free_port "$py"); done

    # --metrics-bind-address=0: no metrics server. Leader election is off by default.
    launch env KUBECONFIG="$dir/kubeconfig" WL_TRAINING_OPERATOR_CERT_DIR="$dir/$name-certs" \
        "$bin" --metrics-bind-address=0 --health-probe-bind-address="127.0.0.1:$probe" \
        --webhook-server-port="$hook" --leader-elect=false \
        --kube-api-qps=100 --kube-api-burst=200 --controller-threads=2 "${schemes[@]}"
}

operator_main "$@"
