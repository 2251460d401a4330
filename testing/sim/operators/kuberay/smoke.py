#!/usr/bin/env python3
"""Smoke test of KubeRay in the simulated cluster (run with the repo's venv):

    target/live/venv/bin/python testing/sim/operators/kuberay/smoke.py KUBECONFIG [--keep] [--no-rayjob] [--kueue]

Needs a cluster with kube-controller-manager, kube-scheduler, KWOK and a fake
node with at least 3 nvidia.com/gpu, and KubeRay started by operator.sh.
Creates namespace kuberay-smoke (removed first, and at the end unless --keep):

1. RayCluster "rc" with a head (no GPU) and worker group "gpu" of 2 replicas x
   1 GPU: the head and worker Pods and the head Service appear and the pods
   run (KWOK); the RayCluster's status is printed and must reach state
   "ready" with 2 ready workers.
2. The worker group is scaled to 3: a third worker Pod runs and
   status.readyWorkerReplicas becomes 3.
3. (observation only, unless --no-rayjob) RayJob "rj" with its own cluster:
   prints the states it goes through until it ends (75 s at most). Nothing
   serves the Ray dashboard under KWOK (the operator cannot even resolve the
   head Service's cluster DNS name), so the job's status cannot come from Ray.
   Seen with KubeRay v1.5.0 and KWOK's fast stages: jobDeploymentStatus
   Running within 0.5 s (its cluster is ready at once); KubeRay creates the
   submitter Job, whose pod KWOK completes at once; 30 s after that it turns
   Failed, jobStatus FAILED, reason JobDeploymentStatusTransitionGracePeriodExceeded
   ("The RayJob submitter finished at ... but the ray job did not reach
   terminal state within 30s").

4. (only with --kueue: Kueue runs too, started by ../kueue/operator.sh)
   RayCluster "queued" created suspended with the label
   kueue.x-k8s.io/queue-name (Kueue's webhook is not registered, so the test
   does what it would have done) in a LocalQueue whose ClusterQueue has 8
   GPUs: Kueue admits its Workload and unsuspends it, and it gets ready.

Prints what it sees; exit status 0 when 1, 2 (and 4) hold.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "kuberay-smoke"
RV = "ray.io/v1"
KV = "kueue.x-k8s.io/v1beta2"
RAY_IMAGE = "rayproject/ray:2.46.0"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def delete(kube: Kube, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
    """Kube.delete and Kube.merge_patch send their JSON body encoded twice (the
    client's REST layer json.dumps the string again): 400. So the propagation
    policy goes in the query here, and changes go through server-side apply."""
    try:
        kube.call("DELETE", kube.path(api_version, kind, namespace, name), query={"propagationPolicy": "Background"})
    except ApiException as e:
        if e.status != 404:
            raise


def container(name: str, cpu: str, mem: str, gpus: int = 0) -> dict:
    res = {"cpu": cpu, "memory": mem}
    if gpus:
        res["nvidia.com/gpu"] = str(gpus)
    return {"name": name, "image": RAY_IMAGE, "resources": {"requests": res, "limits": res}}


def cluster_spec(workers: int) -> dict:
    return {
        "rayVersion": "2.46.0",
        "headGroupSpec": {
            "rayStartParams": {},
            "template": {"spec": {"containers": [container("ray-head", "1", "2Gi")]}},
        },
        "workerGroupSpecs": [{
            "groupName": "gpu",
            "replicas": workers,
            "minReplicas": 0,
            "maxReplicas": 4,
            "rayStartParams": {},
            "template": {"spec": {"containers": [container("ray-worker", "1", "4Gi", gpus=1)]}},
        }],
    }


def show_status(rc: dict) -> None:
    st = rc.get("status") or {}
    say(f"  RayCluster {rc['metadata']['name']}: state={st.get('state')!r} reason={st.get('reason')!r} "
        f"readyWorkerReplicas={st.get('readyWorkerReplicas')} availableWorkerReplicas={st.get('availableWorkerReplicas')} "
        f"desiredWorkerReplicas={st.get('desiredWorkerReplicas')} desiredGPU={st.get('desiredGPU')} "
        f"head={st.get('head')}")
    for c in st.get("conditions") or []:
        say(f"    condition {c['type']}={c['status']} reason={c.get('reason')} message={c.get('message')!r}")


def pods(kube: Kube, cluster: str, node_type: str) -> list[dict]:
    return kube.list("v1", "Pod", NS, selector=f"ray.io/cluster={cluster},ray.io/node-type={node_type}")


def running(kube: Kube, cluster: str, node_type: str, count: int) -> list[dict]:
    def check():
        ps = [p for p in pods(kube, cluster, node_type) if p["status"].get("phase") == "Running"
              and p["metadata"].get("deletionTimestamp") is None]
        return ps if len(ps) >= count else None

    ps = wait(f"{count} {node_type} pod(s) of {cluster} Running", check, 60)
    for p in ps:
        ready = next((c["status"] for c in p["status"].get("conditions") or [] if c["type"] == "Ready"), None)
        say(f"  {node_type} pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: {p['status']['phase']} Ready={ready}")
    return ps


def with_kueue(kube: Kube) -> None:
    kube.apply({"apiVersion": KV, "kind": "ResourceFlavor", "metadata": {"name": "ray-smoke-flavor"}, "spec": {}})
    kube.apply({
        "apiVersion": KV, "kind": "ClusterQueue", "metadata": {"name": "ray-smoke-cq"},
        "spec": {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NS}},
            "resourceGroups": [{
                "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                "flavors": [{"name": "ray-smoke-flavor", "resources": [
                    {"name": "cpu", "nominalQuota": "32"},
                    {"name": "memory", "nominalQuota": "256Gi"},
                    {"name": "nvidia.com/gpu", "nominalQuota": "8"},
                ]}],
            }],
        },
    })
    kube.apply({"apiVersion": KV, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": NS},
                "spec": {"clusterQueue": "ray-smoke-cq"}})
    spec = cluster_spec(2)
    spec["suspend"] = True
    kube.apply({"apiVersion": RV, "kind": "RayCluster",
                "metadata": {"name": "queued", "namespace": NS, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
                "spec": spec})
    say("RayCluster queued created (suspend: true, queue lq)")

    def admitted():
        for wl in kube.list(KV, "Workload", NS):
            refs = wl["metadata"].get("ownerReferences") or []
            conds = {c["type"]: c["status"] for c in (wl.get("status") or {}).get("conditions") or []}
            if any(r.get("kind") == "RayCluster" and r.get("name") == "queued" for r in refs) \
                    and conds.get("QuotaReserved") == conds.get("Admitted") == "True":
                return wl
        return None

    wl = wait("Kueue to admit the Workload of RayCluster queued (is Kueue running?)", admitted, 60)
    usage = [ps.get("resourceUsage") for ps in (wl["status"].get("admission") or {}).get("podSetAssignments") or []]
    say(f"  Workload {wl['metadata']['name']}: QuotaReserved=True Admitted=True usage per pod set={usage}")
    wait("RayCluster queued unsuspended", lambda: kube.get(RV, "RayCluster", "queued", NS)["spec"].get("suspend") is False, 30)
    say("  RayCluster queued: spec.suspend false")
    running(kube, "queued", "worker", 2)
    try:
        wait("RayCluster queued state ready", lambda: (kube.get(RV, "RayCluster", "queued", NS).get("status") or {}).get("state") == "ready", 60)
    finally:
        show_status(kube.get(RV, "RayCluster", "queued", NS))


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    kube = Kube(argv[0])
    keep = "--keep" in argv[1:]

    delete(kube, "v1", "Namespace", NS)
    wait(f"namespace {NS} gone", lambda: kube.get("v1", "Namespace", NS) is None, 120)
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    wait(f"ServiceAccount default in {NS}", lambda: kube.get("v1", "ServiceAccount", "default", NS), 30)
    say(f"namespace {NS} ready")

    # 1. head + 2 GPU workers
    kube.apply({"apiVersion": RV, "kind": "RayCluster", "metadata": {"name": "rc", "namespace": NS},
                "spec": cluster_spec(2)})
    say("RayCluster rc created (head + 2 x 1 GPU workers)")
    running(kube, "rc", "head", 1)
    running(kube, "rc", "worker", 2)
    svcs = kube.list("v1", "Service", NS, selector="ray.io/cluster=rc")
    for s in svcs:
        ports = ",".join(f"{p.get('name')}:{p['port']}" for p in s["spec"].get("ports") or [])
        say(f"  Service {s['metadata']['name']}: clusterIP={s['spec'].get('clusterIP')} ports={ports}")
    if not any(s["metadata"]["name"] == "rc-head-svc" for s in svcs):
        raise SystemExit("FAIL: no Service rc-head-svc")

    def state(want_ready: int):
        rc = kube.get(RV, "RayCluster", "rc", NS)
        st = rc.get("status") or {}
        return rc if st.get("state") == "ready" and st.get("readyWorkerReplicas") == want_ready else None

    try:
        rc = wait("RayCluster rc state ready with 2 ready workers", lambda: state(2), 60)
    finally:
        show_status(kube.get(RV, "RayCluster", "rc", NS))

    # 2. scale the workers to 3
    kube.apply({"apiVersion": RV, "kind": "RayCluster", "metadata": {"name": "rc", "namespace": NS},
                "spec": cluster_spec(3)})
    say("RayCluster rc: worker group gpu scaled to 3")
    running(kube, "rc", "worker", 3)
    try:
        wait("RayCluster rc state ready with 3 ready workers", lambda: state(3), 60)
    finally:
        show_status(kube.get(RV, "RayCluster", "rc", NS))

    # 3. a RayJob, observed only
    if "--no-rayjob" not in argv[1:]:
        kube.apply({
            "apiVersion": RV, "kind": "RayJob", "metadata": {"name": "rj", "namespace": NS},
            "spec": {"entrypoint": "python -c 'print(1)'", "shutdownAfterJobFinishes": False,
                     "rayClusterSpec": cluster_spec(1)},
        })
        say("RayJob rj created (own cluster: head + 1 GPU worker); observing until it ends, 75 s at most")
        seen = []
        end = time.monotonic() + 75
        while time.monotonic() < end and (not seen or seen[-1][0] not in ("Complete", "Failed")):
            rj = kube.get(RV, "RayJob", "rj", NS) or {}
            st = rj.get("status") or {}
            now = (st.get("jobDeploymentStatus"), st.get("jobStatus"), st.get("rayClusterName"), st.get("reason"))
            if not seen or seen[-1] != now:
                seen.append(now)
                say(f"  RayJob rj: jobDeploymentStatus={now[0]!r} jobStatus={now[1]!r} rayClusterName={now[2]!r} "
                    f"reason={now[3]!r} message={st.get('message')!r}")
            time.sleep(0.5)
        for j in kube.list("batch/v1", "Job", NS):
            jst = j.get("status") or {}
            say(f"  submitter Job {j['metadata']['name']}: active={jst.get('active')} succeeded={jst.get('succeeded')} "
                f"failed={jst.get('failed')} conditions={[c['type'] for c in jst.get('conditions') or []]}")
        for p in kube.list("v1", "Pod", NS):
            if p["metadata"]["name"].startswith("rj"):
                say(f"  pod {p['metadata']['name']}: {p['status'].get('phase')}")

    if "--kueue" in argv[1:]:
        with_kueue(kube)

    say("PASS")
    if not keep:
        delete(kube, "v1", "Namespace", NS)
        if "--kueue" in argv[1:]:
            delete(kube, KV, "ClusterQueue", "ray-smoke-cq")
            delete(kube, KV, "ResourceFlavor", "ray-smoke-flavor")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
