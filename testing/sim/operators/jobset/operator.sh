#!/usr/bin/env bash
# The JobSet operator (sigs.k8s.io/jobset) for the simulated cluster.
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRDs (from the Go module cache) + controller, in
#                                  the background; DIR/kubeconfig is the admin's
#   operator.sh stop DIR           stop the controller started in DIR
#
# Webhooks: none is registered with the API server. JobSet's manager always
# starts its webhook server (there is no switch to leave it out), and that
# server needs a certificate, so start makes a throwaway self-signed one in
# DIR/jobset-certs and binds the server to 127.0.0.1 on a free port. Nothing
# calls it, so JobSets get no defaults from the webhook: the controller then
# panics on a nil spec.successPolicy or spec.network (see README.md here);
# tests write those fields themselves.
set -euo pipefail

name=jobset
module=sigs.k8s.io/jobset
main_pkg=sigs.k8s.io/jobset            # main.go is at the module root
version_var=$module/pkg/version.GitVersion
crd_subdir=config/components/crd/bases
needs_openssl=1
# Ready: /readyz (the webhook server listens) and the JobSet controller's workers run.
ready_log=('Starting workers.*"controller": "jobset"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

op_start() {
    local hook
    kube_apply "$mdir/$crd_subdir" || die "applying the CRDs from $mdir/$crd_subdir failed"

    # The webhook server must start (see the top), with a certificate.
    make_cert "$dir/$name-certs"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    cat >"$dir/$name-config.yaml" <<EOF
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
leaderElection:
  leaderElect: false
internalCertManagement:
  enable: false
webhook:
  host: 127.0.0.1
  port: $hook
  certDir: $dir/$name-certs
health:
  healthProbeBindAddress: 127.0.0.1:$probe
EOF

    # --metrics-bind-address=0: no metrics server. Leader election is off (config).
    launch "$bin" --kubeconfig="$dir/kubeconfig" --config="$dir/$name-config.yaml" \
        --metrics-bind-address=0 --leader-elect=false
}

operator_main "$@"
