#!/usr/bin/env python3
"""Smoke test of the JobSet operator in the simulated cluster.

    smoke.py KUBECONFIG [--keep]

Needs: the cluster (API server, controller-manager, scheduler, KWOK with
stages that make scheduled pods Running and leave Job pods Running, and
nodes with at least 5 free nvidia.com/gpu), and `operator.sh start` done.
Run it with the venv that has `kubernetes` and `yaml`
(target/live/venv/bin/python).

It creates JobSet `train` in namespace `smoke-jobset`: replicatedJob
`leader` (1 Job x 1 pod) and `workers` (2 Jobs x 2 pods), 1 GPU a pod; waits
until the operator made the 3 Jobs, the 5 pods run and
status.replicatedJobsStatus counts every Job ready; then suspends it
(spec.suspend: true: the Jobs are suspended, the pods go away, condition
Suspended), and resumes it (pods Running and ready again). The namespace is
deleted at the end unless --keep.

The JobSet is written with the fields JobSet's defaulting webhook would set
(the webhook is not registered here; see README.md): successPolicy,
startupPolicy, network, and per Job completionMode: Indexed and the pods'
restartPolicy.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))  # testing/sim
from kube import Kube, wait  # noqa: E402

NS = "smoke-jobset"
NAME = "train"
JS = "jobset.x-k8s.io/v1alpha2"
SELECTOR = f"jobset.sigs.k8s.io/jobset-name={NAME}"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f} s] {msg}", flush=True)


def replicated_job(name: str, replicas: int, pods: int) -> dict:
    return {
        "name": name,
        "replicas": replicas,
        "template": {
            "spec": {
                "parallelism": pods,
                "completions": pods,
                "backoffLimit": 0,
                "completionMode": "Indexed",  # webhook default
                "template": {
                    "spec": {
                        "restartPolicy": "OnFailure",  # webhook default
                        "containers": [{
                            "name": "trainer",
                            "image": "registry.example/trainer:1.0",
                            "resources": {"limits": {"nvidia.com/gpu": "1"}},
                        }],
                    },
                },
            },
        },
    }


JOBSET = {
    "apiVersion": JS,
    "kind": "JobSet",
    "metadata": {"name": NAME, "namespace": NS},
    "spec": {
        # What the defaulting webhook would write; the controller dereferences
        # successPolicy and network without a nil check.
        "successPolicy": {"operator": "All"},
        "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
        "replicatedJobs": [replicated_job("leader", 1, 1), replicated_job("workers", 2, 2)],
    },
}
EXPECT_JOBS = {"leader": 1, "workers": 2}
EXPECT_PODS = 5


def set_suspend(kube: Kube, suspend: bool) -> None:
    # Server-side apply of the whole object again (Kube.merge_patch sends its
    # body JSON-encoded twice with this kubernetes client: 400).
    js = {**JOBSET, "spec": {**JOBSET["spec"], "suspend": suspend}}
    kube.apply(js)


def delete_namespace(kube: Kube) -> None:
    kube.call("DELETE", kube.path("v1", "Namespace", name=NS))  # no body: see set_suspend


def jobset(kube: Kube) -> dict:
    return kube.get(JS, "JobSet", NAME, NS) or {}


def rjob_status(js: dict) -> dict:
    return {s["name"]: s for s in (js.get("status") or {}).get("replicatedJobsStatus") or []}


def condition(obj: dict, kind: str) -> str | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c["type"] == kind:
            return c["status"]
    return None


def pods(kube: Kube) -> list[dict]:
    return [p for p in kube.list("v1", "Pod", NS, SELECTOR) if not p["metadata"].get("deletionTimestamp")]


def pod_ready(p: dict) -> bool:
    return p["status"].get("phase") == "Running" and condition(p, "Ready") == "True"


def show(kube: Kube) -> None:
    for j in sorted(kube.list("batch/v1", "Job", NS, SELECTOR), key=lambda j: j["metadata"]["name"]):
        st = j.get("status") or {}
        say(f"  Job {j['metadata']['name']}: suspend={j['spec'].get('suspend')} "
            f"active={st.get('active', 0)} ready={st.get('ready', 0)} succeeded={st.get('succeeded', 0)}")
    for p in sorted(pods(kube), key=lambda p: p["metadata"]["name"]):
        say(f"  Pod {p['metadata']['name']}: {p['status'].get('phase')} ready={condition(p, 'Ready')} "
            f"node={p['spec'].get('nodeName')} hostname={p['spec'].get('hostname')}.{p['spec'].get('subdomain')}")
    js = jobset(kube)
    say(f"  JobSet status.replicatedJobsStatus: {list(rjob_status(js).values())}")
    conds = {c['type']: c['status'] for c in (js.get('status') or {}).get('conditions') or []}
    say(f"  JobSet conditions: {conds}")


def all_running(kube: Kube):
    running = [p for p in pods(kube) if pod_ready(p)]
    done = [p for p in pods(kube) if p["status"].get("phase") == "Succeeded"]
    if done:
        raise SystemExit("FAIL: Job pods Succeeded at once: this smoke needs KWOK stages that leave Job pods Running")
    if len(running) != EXPECT_PODS:
        return False
    st = rjob_status(jobset(kube))
    return all(st.get(n, {}).get("ready") == want for n, want in EXPECT_JOBS.items())


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    kube = Kube(argv[0])
    keep = "--keep" in argv[1:]

    wait(f"namespace {NS} of an earlier run to be gone",
         lambda: ((kube.get("v1", "Namespace", NS) or {}).get("status") or {}).get("phase") != "Terminating", 60)
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    wait(f"namespace {NS} to have its default ServiceAccount",
         lambda: kube.get("v1", "ServiceAccount", "default", NS), 30)
    kube.apply(JOBSET)
    say(f"created JobSet {NS}/{NAME}: leader 1x1 pod, workers 2x2 pods, 1 GPU each")

    jobs = wait("the operator to create 3 Jobs",
                lambda: len(kube.list("batch/v1", "Job", NS, SELECTOR)) == 3 and
                kube.list("batch/v1", "Job", NS, SELECTOR), 30)
    say(f"Jobs created: {sorted(j['metadata']['name'] for j in jobs)}")
    svc = wait("the headless Service", lambda: kube.get("v1", "Service", NAME, NS), 30)
    say(f"headless Service {NAME}: clusterIP={svc['spec'].get('clusterIP')}")
    wait("5 pods Running and every Job ready in status.replicatedJobsStatus", lambda: all_running(kube), 60)
    say("running:")
    show(kube)

    set_suspend(kube, True)
    say("suspend: spec.suspend=true")

    def suspended():
        jobs = kube.list("batch/v1", "Job", NS, SELECTOR)
        return (len(jobs) == 3 and all(j["spec"].get("suspend") for j in jobs) and not pods(kube)
                and condition(jobset(kube), "Suspended") == "True")

    wait("Jobs suspended, pods gone, condition Suspended=True", suspended, 60)
    say("suspended:")
    show(kube)

    set_suspend(kube, False)
    say("resume: spec.suspend=false")
    wait("Jobs resumed and 5 pods Running and ready again",
         lambda: all_running(kube) and condition(jobset(kube), "Suspended") != "True", 60)
    say("resumed:")
    show(kube)

    if not keep:
        delete_namespace(kube)
        say(f"namespace {NS} deleted")
    say("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
