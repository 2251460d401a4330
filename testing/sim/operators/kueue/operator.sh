#!/usr/bin/env bash
# Kueue (sigs.k8s.io/kueue, version in go.mod) for the simulated cluster.
#
#   operator.sh build [--cached]  build the controller into the cache; prints
#                                 only its path. --cached: exit 1 (silently)
#                                 if it is not built yet
#   operator.sh version           "<module> <version>" from go.mod
#   operator.sh start DIR         apply Kueue's CRDs (from the module cache),
#                                 start the controller in the background
#                                 (log DIR/kueue.log, pid DIR/kueue.pid) and
#                                 wait until it reconciles (60 s at most)
#   operator.sh stop DIR          TERM, KILL after 5 s; rc 0 if not running
#
# DIR/kubeconfig is the cluster's admin kubeconfig. Needs Go (build, and to
# find the module in the module cache at start), openssl and the repo's venv
# (target/live/venv/bin/python, for testing/sim/kube.py).
#
# Webhooks: Kueue cannot run without its webhook server (its /readyz waits for
# it), so start makes a self-signed certificate in DIR/kueue-certs and serves
# the webhooks on a loopback port, but registers NO webhook configuration with
# the API server. So nothing defaults or validates Kueue's objects or suspends
# new jobs: create jobs with spec.suspend: true and the label
# kueue.x-k8s.io/queue-name (what Kueue's mutating webhook would have done),
# and write complete, valid ClusterQueues/LocalQueues/ResourceFlavors.
# The CRDs are applied without conversion webhooks: use kueue.x-k8s.io/v1beta2
# (the stored version); v1beta1 requests are not converted.
#
# Metrics: upstream main.go reads the metrics server's certificate from the
# fixed path /etc/kueue/metrics/certs unless internal cert management is on
# (which needs conversion webhooks in the CRDs), and exits if it is missing.
# The build therefore compiles a copy of that main.go (made in the cache at
# build time, never committed) with that one path read from
# $WL_KUEUE_METRICS_CERT_DIR instead (patch_old/patch_new below);
# start points it at DIR/kueue-certs. The metrics server itself is off.
#
# Integrations: kueue-config.yaml (FRAMEWORKS line), or $KUEUE_FRAMEWORKS
# (comma separated, e.g. "batch/job"). Kueue does not refuse to start when an
# integration's CRD (JobSet, Ray, LWS) is missing: it logs "No matching API in
# the server for job framework, deferring setting up controller" and sets the
# integration up once the CRD appears. "pod" is left out: plain Pods are held
# back by a scheduling gate that only Kueue's pod webhook adds.
set -euo pipefail

name=kueue
module=sigs.k8s.io/kueue
main_rel=cmd/kueue/main.go
version_var=$module/pkg/version.GitVersion
needs_openssl=1
# Ready: /readyz answers 200 (the manager started its runnables) and the
# Workload controller's workers run (caches synced, reconciling).
ready_log=('"logger":"workload-reconciler".*"msg":"Starting workers"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

# The one change to upstream cmd/kueue/main.go (see the header).
patch_old=('metricsCertPath := "/etc/kueue/metrics/certs"')
patch_new=('metricsCertPath := func() string { if d := os.Getenv("WL_KUEUE_METRICS_CERT_DIR"); d != "" { return d }; return "/etc/kueue/metrics/certs" }()')

op_usage() { sed -n '2,13p' "$here/operator.sh" | sed 's/^# \{0,1\}//' >&2; }

op_start() {
  kube_apply "$mdir/config/components/crd/bases" ||
    die "applying the CRDs from $mdir/config/components/crd/bases failed"

  local certs="$dir/kueue-certs"
  mkdir -p "$certs"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj "/CN=kueue-sim" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$certs/tls.key" -out "$certs/tls.crt" 2>/dev/null || die "openssl could not make a certificate"

  local frameworks webhook
  frameworks=${KUEUE_FRAMEWORKS:-$(sed -n 's/^# FRAMEWORKS=//p' "$here/kueue-config.yaml" | head -n1)}
  [ -n "$frameworks" ] || die "no integrations (KUEUE_FRAMEWORKS or the FRAMEWORKS line of kueue-config.yaml)"
  probe=$(free_port "$py")
  webhook=$(free_port "$py")
  while [ "$webhook" = "$probe" ]; do webhook=$(free_port "$py"); done
  local fw_lines="" f fws
  IFS=, read -ra fws <<<"$frameworks"
  for f in "${fws[@]}"; do fw_lines+="  - \"${f// /}\""$'\n'; done
  FW="$fw_lines" awk -v h="127.0.0.1:$probe" -v w="$webhook" -v c="$certs" '
    /^#/ { print; next }
    /^@FRAMEWORKS@$/ { printf "%s", ENVIRON["FW"]; next }
    { gsub(/@HEALTH_ADDR@/, h); gsub(/@WEBHOOK_PORT@/, w); gsub(/@CERT_DIR@/, c); print }' \
    "$here/kueue-config.yaml" >"$dir/kueue-config.yaml"

  : >"$dir/$name.log"
  (
    cd "$dir"
    exec env -u POD_NAMESPACE KUBECONFIG="$dir/kubeconfig" WL_KUEUE_METRICS_CERT_DIR="$certs" \
      "$bin" --config="$dir/kueue-config.yaml" --zap-log-level=info >>"$dir/$name.log" 2>&1 </dev/null
  ) &
  pid=$!
}

operator_main "$@"
