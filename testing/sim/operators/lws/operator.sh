#!/usr/bin/env bash
# The LeaderWorkerSet operator (sigs.k8s.io/lws) for the simulated cluster.
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          CRDs (from the Go module cache) + controller, in
#                                  the background; DIR/kubeconfig is the admin's
#   operator.sh stop DIR           stop the controller started in DIR
#
# Webhooks: LWS cannot work without its pod mutating webhook: it writes the
# labels the controllers look pods up by (group-index, worker-index, the group
# hash) and the LWS_* env vars. So start makes a self-signed certificate for
# 127.0.0.1 in DIR/lws-certs, serves the webhooks on 127.0.0.1 (free port) and
# registers ONE MutatingWebhookConfiguration, "workload-lens-sim-lws", with the
# pod webhook only (pods labelled leaderworkerset.sigs.k8s.io/name). The
# LeaderWorkerSet defaulting and both validating webhooks stay unregistered:
# tests write the defaults themselves (see README.md here). stop deletes the
# registration (best effort) so that a stopped operator blocks no pod.
set -euo pipefail

name=lws
module=sigs.k8s.io/lws
main_pkg=sigs.k8s.io/lws/cmd
version_var=$module/pkg/version.GitVersion
crd_subdir=config/crd/bases
webhook_config=workload-lens-sim-lws
needs_openssl=1
# Ready: /readyz, the webhook server listens and the LeaderWorkerSet
# controller's workers run; then the pod webhook is registered (op_after_ready).
ready_log=('Serving webhook server' 'Starting workers.*"controller": "leaderworkerset"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

hook= # the webhook server's port, for op_after_ready

op_start() {
    kube_apply "$mdir/$crd_subdir" || die "applying the CRDs from $mdir/$crd_subdir failed"

    # The webhook server, with a certificate the API server is given as caBundle.
    make_cert "$dir/$name-certs"
    probe=$(free_port "$py")
    hook=$(free_port "$py")
    cat >"$dir/$name-config.yaml" <<EOF
apiVersion: config.lws.x-k8s.io/v1alpha1
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

    # --metrics-bind-address=0: no metrics server. Leader election is off.
    # ENABLE_WEBHOOKS stays unset: the webhook handlers must be served.
    launch "$bin" --kubeconfig="$dir/kubeconfig" --config="$dir/$name-config.yaml" \
        --metrics-bind-address=0 --leader-elect=false
}

op_after_ready() {
    register_webhook "$py" "$dir" "$hook" || { cmd_stop "$dir" || true; die "registering the pod webhook failed"; }
}

op_stop() { # DIR
    unregister_webhook "$1"
}

register_webhook() { # PY DIR PORT
    "$1" - "$root/testing/sim" "$2/kubeconfig" "$webhook_config" "$3" "$2/$name-certs/tls.crt" <<'EOF'
import base64, sys
sys.path.insert(0, sys.argv[1])
from kube import Kube
_, _, kubeconfig, name, port, crt = sys.argv
with open(crt, "rb") as f:
    ca = base64.b64encode(f.read()).decode()
Kube(kubeconfig).apply({
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "MutatingWebhookConfiguration",
    "metadata": {"name": name},
    "webhooks": [{
        "name": "mpod.kb.io",
        "admissionReviewVersions": ["v1"],
        "clientConfig": {"url": f"https://127.0.0.1:{port}/mutate--v1-pod", "caBundle": ca},
        "failurePolicy": "Fail",
        "sideEffects": "None",
        "timeoutSeconds": 10,
        "objectSelector": {"matchExpressions": [
            {"key": "leaderworkerset.sigs.k8s.io/name", "operator": "Exists"}]},
        "rules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["pods"]}],
    }],
})
EOF
}

unregister_webhook() { # DIR; best effort: the API server may be gone already
    local py="$root/target/live/venv/bin/python"
    [ -x "$py" ] && [ -f "$1/kubeconfig" ] || return 0
    timeout 10 "$py" - "$root/testing/sim" "$1/kubeconfig" "$webhook_config" <<'EOF' >/dev/null 2>&1 || true
import sys
sys.path.insert(0, sys.argv[1])
from kube import Kube
Kube(sys.argv[2]).delete("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration", sys.argv[3])
EOF
}

operator_main "$@"
