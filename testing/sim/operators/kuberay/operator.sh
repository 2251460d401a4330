#!/usr/bin/env bash
# KubeRay (github.com/ray-project/kuberay/ray-operator, version in go.mod) for
# the simulated cluster.
#
#   operator.sh build [--cached]  build the operator into the cache; prints
#                                 only its path. --cached: exit 1 (silently)
#                                 if it is not built yet
#   operator.sh version           "<module> <version>" from go.mod
#   operator.sh start DIR         apply the RayCluster/RayJob/RayService CRDs
#                                 (from the module cache), start the operator
#                                 in the background (log DIR/kuberay.log, pid
#                                 DIR/kuberay.pid) and wait until it
#                                 reconciles (60 s at most)
#   operator.sh stop DIR          TERM, KILL after 5 s; rc 0 if not running
#
# DIR/kubeconfig is the cluster's admin kubeconfig. Needs Go (build, and to
# find the module in the module cache at start) and the repo's venv
# (target/live/venv/bin/python, for testing/sim/kube.py).
#
# Webhooks: KubeRay serves its only webhook (RayCluster validation) only when
# ENABLE_WEBHOOKS=true; start unsets it, so there is no webhook server, no
# certificate and no webhook configuration. Leader election is off, the
# metrics server is off (--metrics-addr=0), the health probes listen on a free
# loopback port (/readyz is polled, then the log line "Starting workers" of
# the raycluster controller).
#
# What works without real Ray (KWOK runs no containers), seen with smoke.py:
# RayCluster -> head and worker Pods and the headless Service <name>-head-svc;
# KWOK makes the pods Running and Ready (it runs no probes), and within a
# second the RayCluster has status.state "ready", readyWorkerReplicas =
# replicas, conditions HeadPodReady=True, RayClusterProvisioned=True
# (AllPodRunningAndReadyFirstTime), RayClusterSuspended/Suspending=False.
# Scaling a worker group follows at once. With Kueue running, a suspended
# RayCluster with a queue label is admitted and unsuspended.
# Anything that asks the Ray head's dashboard gets no answer (the operator
# cannot resolve <cluster>-head-svc.<ns>.svc.cluster.local): a RayJob is
# Running within 0.5 s (its own cluster is ready at once), its submitter Job
# completes at once under KWOK,
# and 30 s later the RayJob is Failed / FAILED, reason
# JobDeploymentStatusTransitionGracePeriodExceeded. RayService and the
# autoscaler would fail the same way (not tried). No flag turns these off.
set -euo pipefail

name=kuberay
module=github.com/ray-project/kuberay/ray-operator
main_pkg=github.com/ray-project/kuberay/ray-operator
# Ready: /readyz answers 200 (the manager serves) and the RayCluster
# controller's workers run (caches synced, reconciling).
ready_log=('"logger":"controllers.RayCluster".*"msg":"Starting workers"')
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$here/../lib.sh"

op_usage() { sed -n '2,14p' "$here/operator.sh" | sed 's/^# \{0,1\}//' >&2; }

op_start() {
  kube_apply "$mdir/config/crd/bases" ||
    die "applying the CRDs from $mdir/config/crd/bases failed"

  probe=$(free_port "$py")

  : >"$dir/$name.log"
  (
    cd "$dir"
    exec env -u ENABLE_WEBHOOKS -u WATCH_NAMESPACE KUBECONFIG="$dir/kubeconfig" "$bin" \
      --enable-leader-election=false --metrics-addr=0 --health-probe-bind-address="127.0.0.1:$probe" \
      --zap-log-level=info >>"$dir/$name.log" 2>&1 </dev/null
  ) &
  pid=$!
}

operator_main "$@"
