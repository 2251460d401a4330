#!/usr/bin/env python3
"""Smoke test of the Kubeflow training-operator in the simulated cluster (run
with the repo's venv):

    target/live/venv/bin/python testing/sim/operators/training-operator/smoke.py KUBECONFIG [--keep]

Needs kube-controller-manager, kube-scheduler, KWOK with our stages, 3 free
nvidia.com/gpu, and the operator started by operator.sh. Creates namespace
to-smoke (removed first, and at the end unless --keep), then a PyTorchJob
"train" with a Master (1 pod) and 2 Workers, 1 GPU each:

1. created with runPolicy.suspend true: condition Suspended True, no pods;
2. resumed: 3 pods (train-master-0, train-worker-0, train-worker-1) Running
   with the operator's labels, one headless Service per pod, condition Running
   True, replicaStatuses active 1 + 2;
3. the Master's template carries sim.workload-lens.dev/outcome: succeed with
   run-seconds 8, so its pod completes: the job gets Succeeded True and, with
   cleanPodPolicy Running (set here), the Running worker pods are deleted.

Prints what it sees; exit status 0 when all holds.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "to-smoke"
KV = "kubeflow.org/v1"
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


def replica(count: int, annotations: dict | None = None) -> dict:
    res = {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"}
    meta = {"annotations": annotations} if annotations else {}
    return {
        "replicas": count,
        "restartPolicy": "OnFailure",
        "template": {
            "metadata": meta,
            "spec": {"containers": [{
                "name": "pytorch",  # the operator finds the default container by this name
                "image": "docker.io/kubeflowkatib/pytorch-mnist:v1beta1-45c5727",
                "command": ["python3", "/opt/pytorch-mnist/mnist.py", "--epochs=1"],
                "resources": {"requests": res, "limits": res},
            }]},
        },
    }


def job(suspend: bool) -> dict:
    return {
        "apiVersion": KV, "kind": "PyTorchJob",
        "metadata": {"name": JOB, "namespace": NS},
        "spec": {
            "runPolicy": {"suspend": suspend, "cleanPodPolicy": "Running"},
            "pytorchReplicaSpecs": {
                "Master": replica(1, {"sim.workload-lens.dev/outcome": "succeed",
                                      "sim.workload-lens.dev/run-seconds": "8"}),
                "Worker": replica(2),
            },
        },
    }


def cond(obj: dict | None, ctype: str) -> dict | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


def cond_true(kube: Kube, ctype: str):
    c = cond(kube.get(KV, "PyTorchJob", JOB, NS), ctype)
    return c if c and c["status"] == "True" else None


def pods(kube: Kube) -> list[dict]:
    return kube.list("v1", "Pod", NS, selector=f"training.kubeflow.org/job-name={JOB}")


def show_conditions(kube: Kube) -> None:
    st = kube.get(KV, "PyTorchJob", JOB, NS).get("status") or {}
    conds = ", ".join(f"{c['type']}={c['status']}({c.get('reason')})" for c in st.get("conditions") or [])
    say(f"  PyTorchJob {JOB}: {conds}; replicaStatuses={st.get('replicaStatuses')}")


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

    # 1. suspended: no pods
    kube.apply(job(suspend=True))
    c = wait("PyTorchJob Suspended True", lambda: cond_true(kube, "Suspended"), 30)
    say(f"suspended: Suspended=True ({c.get('reason')})")
    time.sleep(2)
    if pods(kube):
        raise SystemExit("FAIL: a suspended PyTorchJob has pods")
    say("suspended: no pods")

    # 2. resumed: master + 2 workers run
    kube.apply(job(suspend=False))

    def running():
        ps = [p for p in pods(kube) if p["status"].get("phase") == "Running"]
        return ps if len(ps) == 3 else None

    ps = wait("3 pods Running", running, 60)
    for p in sorted(ps, key=lambda p: p["metadata"]["name"]):
        lab = p["metadata"]["labels"]
        owner = [(o["kind"], o["name"], o.get("controller")) for o in p["metadata"].get("ownerReferences") or []]
        say(f"  pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: {p['status']['phase']} "
            f"replica-type={lab.get('training.kubeflow.org/replica-type')} "
            f"replica-index={lab.get('training.kubeflow.org/replica-index')} "
            f"job-role={lab.get('training.kubeflow.org/job-role')} owner={owner} "
            f"gpu={p['spec']['containers'][0]['resources']['limits'].get('nvidia.com/gpu')}")
    names = sorted(p["metadata"]["name"] for p in ps)
    if names != [f"{JOB}-master-0", f"{JOB}-worker-0", f"{JOB}-worker-1"]:
        raise SystemExit(f"FAIL: unexpected pod names {names}")
    env = {e["name"]: e.get("value") for e in ps[0]["spec"]["containers"][0].get("env") or []}
    say(f"  env of {ps[0]['metadata']['name']}: MASTER_ADDR={env.get('MASTER_ADDR')} WORLD_SIZE={env.get('WORLD_SIZE')} "
        f"RANK={env.get('RANK')}")
    svcs = kube.list("v1", "Service", NS, selector=f"training.kubeflow.org/job-name={JOB}")
    say(f"  services: {sorted((s['metadata']['name'], s['spec'].get('clusterIP')) for s in svcs)}")
    c = wait("PyTorchJob Running True", lambda: cond_true(kube, "Running"), 30)
    say(f"running: Running=True ({c.get('reason')})")
    show_conditions(kube)

    # 3. the master completes: the job succeeds, running workers are cleaned up
    c = wait("PyTorchJob Succeeded True", lambda: cond_true(kube, "Succeeded"), 60)
    say(f"succeeded: Succeeded=True ({c.get('reason')}: {c.get('message')})")
    show_conditions(kube)

    def workers_gone():
        left = [p for p in pods(kube) if "worker" in p["metadata"]["name"]]
        return True if not left else None

    wait("the Running worker pods deleted (cleanPodPolicy Running)", workers_gone, 30)
    left = [(p["metadata"]["name"], p["status"].get("phase")) for p in pods(kube)]
    say(f"after success: pods left {left}")
    say("PASS")

    if not keep:
        delete(kube, "v1", "Namespace", NS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
