#!/usr/bin/env python3
"""Smoke test of the Kubeflow MPI operator in the simulated cluster (run with
the repo's venv):

    target/live/venv/bin/python testing/sim/operators/mpi-operator/smoke.py KUBECONFIG [--keep]

Needs kube-controller-manager, kube-scheduler, KWOK with our stages, 2 free
nvidia.com/gpu, and the operator started by operator.sh. Creates namespace
mpi-smoke (removed first, and at the end unless --keep), then an MPIJob
"pi" (kubeflow.org/v2beta1) with a Launcher and 2 Workers of 1 GPU each:

1. the operator makes the worker pods pi-worker-0/1 (controlled by the
   MPIJob), the hostfile ConfigMap, the SSH Secret, the headless Service and
   the launcher Job pi-launcher; the workers and the launcher pod run; the
   MPIJob gets Running True;
2. the launcher's template carries sim.workload-lens.dev/outcome: succeed
   with run-seconds 6: its Job completes, the MPIJob gets Succeeded True and
   (cleanPodPolicy Running) the running workers are deleted.

Prints what it sees; exit status 0 when all holds.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "mpi-smoke"
MV = "kubeflow.org/v2beta1"
JOB = "pi"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def delete(kube: Kube, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
    try:
        kube.call("DELETE", kube.path(api_version, kind, namespace, name), query={"propagationPolicy": "Background"})
    except ApiException as e:
        if e.status != 404:
            raise


def mpijob() -> dict:
    gpu = {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"}
    small = {"cpu": "1", "memory": "1Gi"}
    return {
        "apiVersion": MV, "kind": "MPIJob",
        "metadata": {"name": JOB, "namespace": NS},
        "spec": {
            "slotsPerWorker": 1,
            "runPolicy": {"cleanPodPolicy": "Running"},
            "mpiReplicaSpecs": {
                "Launcher": {"replicas": 1, "template": {
                    "metadata": {"annotations": {"sim.workload-lens.dev/outcome": "succeed",
                                                 "sim.workload-lens.dev/run-seconds": "6"}},
                    "spec": {"containers": [{
                        "name": "launcher", "image": "mpioperator/mpi-pi:openmpi",
                        "command": ["mpirun", "-n", "2", "/home/mpiuser/pi"],
                        "resources": {"requests": small, "limits": small}}]}}},
                "Worker": {"replicas": 2, "template": {"spec": {"containers": [{
                    "name": "worker", "image": "mpioperator/mpi-pi:openmpi",
                    "command": ["/usr/sbin/sshd", "-De"],
                    "resources": {"requests": gpu, "limits": gpu}}]}}},
            },
        },
    }


def cond(obj: dict | None, ctype: str) -> dict | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


def cond_true(kube: Kube, ctype: str):
    c = cond(kube.get(MV, "MPIJob", JOB, NS), ctype)
    return c if c and c["status"] == "True" else None


def pods(kube: Kube) -> list[dict]:
    return kube.list("v1", "Pod", NS)


def show(kube: Kube) -> None:
    st = (kube.get(MV, "MPIJob", JOB, NS) or {}).get("status") or {}
    conds = ", ".join(f"{c['type']}={c['status']}({c.get('reason')})" for c in st.get("conditions") or [])
    say(f"  MPIJob {JOB}: {conds}; replicaStatuses={st.get('replicaStatuses')}")


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

    kube.apply(mpijob())

    def running():
        ps = [p for p in pods(kube) if p["status"].get("phase") == "Running"]
        return ps if len(ps) == 3 else None

    try:
        ps = wait("2 workers and the launcher Running", running, 60)
    except TimeoutError:
        show(kube)
        raise
    for p in sorted(ps, key=lambda p: p["metadata"]["name"]):
        lab = p["metadata"]["labels"]
        owner = [(o["kind"], o["name"]) for o in p["metadata"].get("ownerReferences") or []]
        c = p["spec"]["containers"][0]
        say(f"  pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: {p['status']['phase']} owner={owner} "
            f"role={lab.get('training.kubeflow.org/job-role')} replica-type={lab.get('training.kubeflow.org/replica-type')} "
            f"gpu={c['resources'].get('limits', {}).get('nvidia.com/gpu')}")
    job = kube.get("batch/v1", "Job", f"{JOB}-launcher", NS)
    say(f"  launcher Job: {job and [(o['kind'], o['name']) for o in job['metadata'].get('ownerReferences') or []]}")
    say(f"  ConfigMaps: {[c['metadata']['name'] for c in kube.list('v1', 'ConfigMap', NS)]}; "
        f"Secrets: {[s['metadata']['name'] for s in kube.list('v1', 'Secret', NS)]}; "
        f"Services: {[s['metadata']['name'] for s in kube.list('v1', 'Service', NS)]}")
    c = wait("MPIJob Running True", lambda: cond_true(kube, "Running"), 30)
    say(f"Running=True ({c.get('reason')})")
    show(kube)

    try:
        c = wait("MPIJob Succeeded True", lambda: cond_true(kube, "Succeeded"), 60)
    finally:
        show(kube)
    say(f"Succeeded=True ({c.get('reason')}: {c.get('message')})")

    def workers_gone():
        return True if not [p for p in pods(kube) if "worker" in p["metadata"]["name"]] else None

    wait("the running workers deleted (cleanPodPolicy Running)", workers_gone, 30)
    say(f"after success: pods {[(p['metadata']['name'], p['status'].get('phase')) for p in pods(kube)]}")
    say("PASS")

    if not keep:
        delete(kube, "v1", "Namespace", NS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
