#!/usr/bin/env bash
# agent-sandbox (sigs.k8s.io/agent-sandbox: Sandbox, agents.x-k8s.io/v1beta1)
# for the simulated cluster. Only the core Sandbox controller runs (not the
# extensions: SandboxClaim, SandboxTemplate, SandboxWarmPool).
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          the Sandbox CRD (from the Go module cache) +
#                                  controller, in the background; DIR/kubeconfig
#                                  is the admin's
#   operator.sh stop DIR           stop the controller started in DIR
#
# Webhooks: off (--enable-webhook=false, a switch upstream has): no webhook
# server, no certificate management, no defaulting or validation. The CRD
# still names a conversion webhook (v1alpha1 <-> v1beta1) that does not
# exist: use agents.x-k8s.io/v1beta1 (the stored version) only; v1alpha1
# requests fail.
set -euo pipefail

name=agent-sandbox
module=sigs.k8s.io/agent-sandbox
main_pkg=sigs.k8s.io/agent-sandbox/cmd/agent-sandbox-controller
crd_file=k8s/crds/agents.x-k8s.io_sandboxes.yaml
# Ready: /readyz and the Sandbox controller's workers run.
ready_log=('"Starting workers".*"controller": *"sandbox"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

op_start() {
    kube_apply "$mdir/$crd_file" || die "applying the CRD $mdir/$crd_file failed"

    probe=$(free_port "$py")
    launch "$bin" --kubeconfig="$dir/kubeconfig" --enable-webhook=false --manage-webhook-certs=false \
        --metrics-bind-address=0 --health-probe-bind-address="127.0.0.1:$probe" --leader-elect=false
}

operator_main "$@"
