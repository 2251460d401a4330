#!/usr/bin/env python3
"""Smoke test of Kubeflow Trainer v2 in the simulated cluster (run with the
repo's venv):

    target/live/venv/bin/python testing/sim/operators/trainer/smoke.py KUBECONFIG [--keep]

Needs kube-controller-manager, kube-scheduler, KWOK with our stages, 4 free
nvidia.com/gpu, the JobSet operator and Trainer started by their operator.sh
(start.sh --operators jobset,trainer). Creates namespace trainer-smoke
(removed first, and at the end unless --keep), a TrainingRuntime
"sim-torch" of our own (a torch runtime whose JobSet template carries what
JobSet's defaulting webhook would write, since that webhook is not
registered in the sim: network, successPolicy, restartPolicy, completionMode)
and a TrainJob "train" on it with numNodes 2 and 2 GPUs a node:

1. Trainer makes JobSet "train" (controlled by the TrainJob); JobSet makes
   Job train-node-0 with 2 pods, which run, 2 GPUs each, with the torchrun
   env (PET_NNODES, PET_NPROC_PER_NODE, PET_NODE_RANK, PET_MASTER_ADDR);
2. the pods carry sim.workload-lens.dev/outcome: succeed with run-seconds 6:
   the Job completes, the JobSet gets Completed, the TrainJob Complete True.

Prints what it sees; exit status 0 when all holds.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "trainer-smoke"
TV = "trainer.kubeflow.org/v1alpha1"
JV = "jobset.x-k8s.io/v1alpha2"
JOB = "train"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def delete(kube: Kube, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
    try:
        kube.call("DELETE", kube.path(api_version, kind, namespace, name), query={"propagationPolicy": "Background"})
    except ApiException as e:
        if e.status != 404:
            raise


def runtime() -> dict:
    return {
        "apiVersion": TV, "kind": "TrainingRuntime",
        "metadata": {"name": "sim-torch", "namespace": NS, "labels": {"trainer.kubeflow.org/framework": "torch"}},
        "spec": {
            "mlPolicy": {"numNodes": 1, "torch": {}},
            "template": {"spec": {
                # What JobSet's (unregistered) defaulting webhook would add.
                "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
                "successPolicy": {"operator": "All"},
                "replicatedJobs": [{
                    "name": "node",
                    "replicas": 1,
                    "template": {
                        "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
                        "spec": {
                            "completionMode": "Indexed",
                            "template": {
                                "metadata": {"annotations": {"sim.workload-lens.dev/outcome": "succeed",
                                                             "sim.workload-lens.dev/run-seconds": "6"}},
                                "spec": {
                                    "restartPolicy": "OnFailure",
                                    "containers": [{"name": "node", "image": "pytorch/pytorch:2.10.0-cuda12.8-cudnn9-runtime"}],
                                },
                            },
                        },
                    },
                }],
            }},
        },
    }


def trainjob() -> dict:
    res = {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "2"}
    return {
        "apiVersion": TV, "kind": "TrainJob",
        "metadata": {"name": JOB, "namespace": NS},
        "spec": {
            "runtimeRef": {"name": "sim-torch", "kind": "TrainingRuntime", "apiGroup": "trainer.kubeflow.org"},
            "trainer": {"numNodes": 2, "command": ["torchrun", "train.py"],
                        "resourcesPerNode": {"requests": res, "limits": res}},
        },
    }


def cond(obj: dict | None, ctype: str) -> dict | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


def show(kube: Kube) -> None:
    tj = kube.get(TV, "TrainJob", JOB, NS) or {}
    st = tj.get("status") or {}
    conds = ", ".join(f"{c['type']}={c['status']}({c.get('reason')})" for c in st.get("conditions") or [])
    say(f"  TrainJob {JOB}: {conds}; jobsStatus={st.get('jobsStatus')}")
    js = kube.get(JV, "JobSet", JOB, NS) or {}
    jconds = ", ".join(f"{c['type']}={c['status']}" for c in (js.get("status") or {}).get("conditions") or [])
    say(f"  JobSet {JOB}: {jconds}; terminalState={(js.get('status') or {}).get('terminalState')}")


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

    kube.apply(runtime())
    kube.apply(trainjob())

    js = wait("JobSet train", lambda: kube.get(JV, "JobSet", JOB, NS), 30)
    owner = [(o["kind"], o["name"], o.get("controller")) for o in js["metadata"].get("ownerReferences") or []]
    rjs = [(r["name"], r.get("replicas"), r["template"]["spec"].get("parallelism")) for r in js["spec"]["replicatedJobs"]]
    say(f"JobSet {JOB}: owner={owner} replicatedJobs(name, replicas, parallelism)={rjs}")

    def running():
        ps = [p for p in kube.list("v1", "Pod", NS, selector=f"jobset.sigs.k8s.io/jobset-name={JOB}")
              if p["status"].get("phase") == "Running"]
        return ps if len(ps) == 2 else None

    try:
        ps = wait("2 pods Running", running, 60)
    except TimeoutError:
        show(kube)
        raise
    for p in sorted(ps, key=lambda p: p["metadata"]["name"]):
        c = p["spec"]["containers"][0]
        env = {e["name"]: e.get("value") for e in c.get("env") or []}
        owner = [(o["kind"], o["name"]) for o in p["metadata"].get("ownerReferences") or []]
        say(f"  pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: {p['status']['phase']} owner={owner} "
            f"gpu={c['resources']['limits'].get('nvidia.com/gpu')} command={c.get('command')} "
            f"PET_NNODES={env.get('PET_NNODES')} PET_NPROC_PER_NODE={env.get('PET_NPROC_PER_NODE')} "
            f"PET_NODE_RANK={env.get('PET_NODE_RANK')} PET_MASTER_ADDR={env.get('PET_MASTER_ADDR')}")
    show(kube)

    def complete():
        c = cond(kube.get(TV, "TrainJob", JOB, NS), "Complete")
        return c if c and c["status"] == "True" else None

    try:
        c = wait("TrainJob Complete True", complete, 60)
    finally:
        show(kube)
    say(f"TrainJob Complete=True ({c.get('reason')}: {c.get('message')})")
    say("PASS")

    if not keep:
        delete(kube, "v1", "Namespace", NS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
