#!/usr/bin/env python3
"""Smoke test of Kueue in the simulated cluster (run with the repo's venv):

    target/live/venv/bin/python testing/sim/operators/kueue/smoke.py KUBECONFIG

Needs a cluster with kube-controller-manager, kube-scheduler, KWOK and a fake
node with at least 8 nvidia.com/gpu, and Kueue started by operator.sh (no
webhooks). Creates namespace kueue-smoke (removed first, and at the end
unless --keep), a ResourceFlavor, a ClusterQueue (8 GPUs, 32 CPUs, 256Gi) and
a LocalQueue, then:

1. Job "train" (2 pods x 2 GPUs) is admitted: its Workload gets QuotaReserved
   and Admitted True, the Job is unsuspended, its pods run.
2. Job "hold" (2 pods x 2 GPUs, pods pinned to a node that does not exist, so
   they stay Pending and the Job never finishes) is admitted and keeps 4 GPUs
   of quota.
3. Job "big" (1 pod x 8 GPUs) waits: its Workload has QuotaReserved False
   with a message about insufficient quota; after "hold" is deleted it is
   admitted and its pod runs.

The pods of "train" carry the annotation sim.workload-lens.dev/outcome:
succeed (testing/sim/stages.yaml: they run a second, then succeed; without
it this cluster's Job pods run until deleted, and stock KWOK's fast stages
complete them anyway).

Kueue's mutating webhook is not registered, so every Job is created the way
the webhook would have left it: spec.suspend true and the label
kueue.x-k8s.io/queue-name. Prints what it sees; exit status 0 when all holds.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "kueue-smoke"
KV = "kueue.x-k8s.io/v1beta2"
# testing/sim/stages.yaml: the pod runs 1 s, then succeeds.
SUCCEED = {"sim.workload-lens.dev/outcome": "succeed", "sim.workload-lens.dev/run-seconds": "1"}
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


def job(name: str, pods: int, gpus: int, node_selector: dict | None = None, annotations: dict | None = None) -> dict:
    res = {"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": str(gpus)}
    spec = {
        "restartPolicy": "Never",
        "containers": [{"name": "main", "image": "busybox", "command": ["sleep", "60"],
                        "resources": {"requests": res, "limits": res}}],
    }
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": name, "namespace": NS, "labels": {"kueue.x-k8s.io/queue-name": "lq"}},
        "spec": {"suspend": True, "parallelism": pods, "completions": pods, "backoffLimit": 0,
                 "template": {"metadata": {"annotations": annotations or {}}, "spec": spec}},
    }


def cond(obj: dict | None, ctype: str) -> dict | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


def workload_of(kube: Kube, job_obj: dict) -> dict | None:
    uid = job_obj["metadata"]["uid"]
    for wl in kube.list(KV, "Workload", NS):
        if any(o.get("uid") == uid for o in wl["metadata"].get("ownerReferences") or []):
            return wl
    return None


def show_workload(wl: dict) -> None:
    conds = ", ".join(f"{c['type']}={c['status']}" for c in (wl.get("status") or {}).get("conditions") or [])
    say(f"  Workload {wl['metadata']['name']}: {conds}")
    adm = (wl.get("status") or {}).get("admission")
    if adm:
        for ps in adm.get("podSetAssignments") or []:
            say(f"    admission: clusterQueue={adm['clusterQueue']} podSet={ps['name']} flavors={ps.get('flavors')} "
                f"usage={ps.get('resourceUsage')} count={ps.get('count')}")


def pods_of(kube: Kube, name: str) -> list[dict]:
    return kube.list("v1", "Pod", NS, selector=f"batch.kubernetes.io/job-name={name}")


def admitted(kube: Kube, name: str, timeout: float = 30) -> dict:
    """Waits for the Job's Workload to be admitted and the Job to run unsuspended."""
    j = kube.get("batch/v1", "Job", name, NS)
    wl = wait(f"a Workload for Job {name}", lambda: workload_of(kube, j), 30)
    say(f"Job {name}: Workload {wl['metadata']['name']} created by Kueue")

    def ok():
        w = kube.get(KV, "Workload", wl["metadata"]["name"], NS)
        qr, ad = cond(w, "QuotaReserved"), cond(w, "Admitted")
        return w if qr and ad and qr["status"] == ad["status"] == "True" else None

    wl = wait(f"Workload of {name} QuotaReserved and Admitted True", ok, timeout)
    show_workload(wl)
    wait(f"Job {name} unsuspended",
         lambda: kube.get("batch/v1", "Job", name, NS)["spec"].get("suspend") is False, 30)
    say(f"Job {name}: spec.suspend false")
    return wl


def pods_ran(kube: Kube, name: str, count: int) -> None:
    """count pods of the Job ran (Running now, or Succeeded after running)."""

    def ran():
        ps = [p for p in pods_of(kube, name) if p["status"].get("phase") in ("Running", "Succeeded")]
        return ps if len(ps) >= count else None

    ps = wait(f"{count} pods of Job {name} Running (or Succeeded)", ran, 60)
    for p in ps:
        say(f"  pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: {p['status']['phase']}")


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

    kube.apply({"apiVersion": KV, "kind": "ResourceFlavor", "metadata": {"name": "smoke-flavor"}, "spec": {}})
    kube.apply({
        "apiVersion": KV, "kind": "ClusterQueue", "metadata": {"name": "smoke-cq"},
        "spec": {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": NS}},
            "resourceGroups": [{
                "coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                "flavors": [{"name": "smoke-flavor", "resources": [
                    {"name": "cpu", "nominalQuota": "32"},
                    {"name": "memory", "nominalQuota": "256Gi"},
                    {"name": "nvidia.com/gpu", "nominalQuota": "8"},
                ]}],
            }],
        },
    })
    kube.apply({"apiVersion": KV, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": NS},
                "spec": {"clusterQueue": "smoke-cq"}})

    def active(kind, name, ns=None):
        c = cond(kube.get(KV, kind, name, ns), "Active")
        return c if c and c["status"] == "True" else None

    c = wait("ClusterQueue smoke-cq Active", lambda: active("ClusterQueue", "smoke-cq"), 30)
    say(f"ClusterQueue smoke-cq: Active=True ({c.get('reason')})")
    c = wait("LocalQueue lq Active", lambda: active("LocalQueue", "lq", NS), 30)
    say(f"LocalQueue {NS}/lq: Active=True ({c.get('reason')})")

    # 1. a Job that fits runs
    kube.apply(job("train", 2, 2, annotations=SUCCEED))
    admitted(kube, "train")
    pods_ran(kube, "train", 2)

    def finished():
        wl = workload_of(kube, kube.get("batch/v1", "Job", "train", NS))
        c = cond(wl, "Finished")
        return c if c and c["status"] == "True" else None

    c = wait("Workload of train Finished (its pods succeed under KWOK)", finished, 60)
    say(f"Job train done; its Workload Finished=True ({c.get('reason')}: {c.get('message')})")

    # 2. a Job that holds 4 GPUs of quota: admitted, but its pods cannot be placed
    kube.apply(job("hold", 2, 2, {"kubernetes.io/hostname": "no-such-node"}))
    admitted(kube, "hold")

    # 3. 8 GPUs do not fit beside it
    kube.apply(job("big", 1, 8))
    big = kube.get("batch/v1", "Job", "big", NS)
    wl = wait("a Workload for Job big", lambda: workload_of(kube, big), 30)

    def pending():
        w = kube.get(KV, "Workload", wl["metadata"]["name"], NS)
        c = cond(w, "QuotaReserved")
        return (w, c) if c and c["status"] == "False" and "insufficient" in c.get("message", "") else None

    w, c = wait("Workload of big QuotaReserved False (insufficient quota)", pending, 30)
    say(f"Job big waits: QuotaReserved=False reason={c.get('reason')} message={c.get('message')!r}")
    if kube.get("batch/v1", "Job", "big", NS)["spec"].get("suspend") is not True:
        raise SystemExit("FAIL: Job big is not suspended while its Workload waits")
    if pods_of(kube, "big"):
        raise SystemExit("FAIL: Job big has pods while its Workload waits")
    say("Job big: still suspended, no pods")

    delete(kube, "batch/v1", "Job", "hold", NS)
    say("deleted Job hold")
    # Its Workload (and so its quota) goes when the garbage collector deletes
    # it. kube-controller-manager's garbage collector finds new resource types
    # (here the Workload CRD) only in its discovery resync, every 30 s: on a
    # cluster whose Kueue CRDs are younger than that this takes up to 30 s.
    admitted(kube, "big", 75)
    pods_ran(kube, "big", 1)

    cq = kube.get(KV, "ClusterQueue", "smoke-cq")
    st = cq.get("status") or {}
    say(f"ClusterQueue status: pendingWorkloads={st.get('pendingWorkloads')} reservingWorkloads={st.get('reservingWorkloads')} "
        f"admittedWorkloads={st.get('admittedWorkloads')}")
    say("PASS")

    if not keep:
        delete(kube, "v1", "Namespace", NS)
        delete(kube, KV, "ClusterQueue", "smoke-cq")
        delete(kube, KV, "ResourceFlavor", "smoke-flavor")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
