#!/usr/bin/env python3
"""The live suites' workloads on the simulated cluster, made by real
controllers, and the truth the suites check them against.

    seed.py KUBECONFIG --out STATE_JSON [--operators jobset,lws,...]
    seed.py KUBECONFIG --delete

Run with the venv that has `kubernetes` and `yaml` (target/live/venv/bin/python).

Creates namespace `lens-sim` with the workloads of README.md (next to this
file): the built-ins always, the JobSet and the LeaderWorkerSet when their
operators run (`--operators`, as WORKLOAD_LENS_SIM_OPERATORS). It then waits
until every controller has written the state each workload is meant to
settle in (Jobs completed or failed, pods Running and Ready, a pod the
scheduler cannot place), and writes STATE_JSON:

    {"namespace": "lens-sim", "operators": [...], "nodes": {...},
     "workloads": [{"kind", "apiVersion", "type", "name", "uid",
                    "statuses", "declared": {"pods", "gpus"} | null,
                    "pods": {NAME: {"phase", "node", "gpus", "ready", "live"}}}],
     "unplaced": NAME, "lookAlike": NAME, "why": {NAME: [codes]}}

`pods` is worked out here, independently of the engine: a pod is the
workload's when the chain of its controller owner references leads to it by
uid (every object of the namespace is read); a pod with no controller, or
whose controller does not exist, is a workload of its own. `gpus` is what
the pod's containers request of nvidia.com/gpu (limits where requests are
not given), `live` says it has not finished (not Succeeded or Failed).

`--delete` deletes the namespace and waits until it is gone (its pods too).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))  # testing/sim
from kube import Kube, wait  # noqa: E402

NS = "lens-sim"
ANN = "sim.workload-lens.dev/"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f} s] {msg}", flush=True)


def container(name: str, gpus: int = 0, cpu: str = "1") -> dict:
    res: dict = {"requests": {"cpu": cpu, "memory": "1Gi"}}
    if gpus:
        res["limits"] = {"nvidia.com/gpu": str(gpus)}
    return {"name": name, "image": f"registry.example/{name}:1.0", "resources": res}


def pod_template(name: str, gpus: int, annotations: dict | None = None, labels: dict | None = None, restart: str = "Never") -> dict:
    meta: dict = {}
    if annotations:
        meta["annotations"] = {ANN + k: v for k, v in annotations.items()}
    if labels:
        meta["labels"] = labels
    return {"metadata": meta, "spec": {"restartPolicy": restart, "containers": [container(name, gpus)]}}


def job(name: str, pods: int, gpus: int, annotations: dict | None = None, labels: dict | None = None) -> dict:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": NS},
        "spec": {"parallelism": pods, "completions": pods, "backoffLimit": 0, "template": pod_template(name, gpus, annotations, labels)},
    }


def cond(obj: dict, type_: str) -> bool:
    return any(c.get("type") == type_ and c.get("status") == "True" for c in (obj.get("status") or {}).get("conditions") or [])


def ready(pod: dict) -> bool:
    return pod.get("status", {}).get("phase") == "Running" and cond(pod, "Ready")


# (object, expected statuses, declared {pods, gpus} or None, what the controller
# must have written before the truth is read). Expectations are written from
# each controller's semantics, not from the engine's answers.
def workloads(operators: set[str]) -> list[tuple[dict, list[str], dict | None, callable]]:
    out = [
        (
            {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {"name": "web", "namespace": NS},
                "spec": {
                    "replicas": 2,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container("web")]}},
                },
            },
            ["Running"],
            {"pods": 2, "gpus": 0},
            lambda o, pods: (o.get("status") or {}).get("readyReplicas") == 2 and len([p for p in pods if ready(p)]) == 2,
        ),
        (
            job("batch-ok", 2, 1, {"outcome": "succeed", "run-seconds": "2"}),
            ["Completed"],
            None,
            lambda o, pods: cond(o, "Complete") and len(pods) == 2 and all(p["status"].get("phase") == "Succeeded" for p in pods),
        ),
        (
            job("batch-fail", 1, 1, {"outcome": "fail", "run-seconds": "2", "exit-code": "3"}),
            ["Failed"],
            None,
            lambda o, pods: cond(o, "Failed") and len(pods) == 1 and pods[0]["status"].get("phase") == "Failed",
        ),
        (
            # 16 GPUs in one pod; a node has 8: the scheduler never places it.
            job("big", 1, 16),
            ["Initializing"],
            {"pods": 1, "gpus": 16},
            lambda o, pods: len(pods) == 1
            and any(c.get("reason") == "Unschedulable" for c in pods[0].get("status", {}).get("conditions") or []),
        ),
        (
            # Labelled as a worker of the JobSet `train`, controlled by a Job:
            # a look-alike, the Job's and not the JobSet's.
            job("imposter", 1, 1, labels={
                "jobset.sigs.k8s.io/jobset-name": "train",
                "jobset.sigs.k8s.io/replicatedjob-name": "workers",
                "jobset.sigs.k8s.io/job-index": "0",
            }),
            ["Running"],
            {"pods": 1, "gpus": 1},
            lambda o, pods: len(pods) == 1 and ready(pods[0]) and (o.get("status") or {}).get("ready") == 1,
        ),
        (
            # A pod nothing controls: a workload of its own, counted once.
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "lonely", "namespace": NS, "labels": {"app": "notebook"}},
                "spec": {"restartPolicy": "Always", "containers": [container("notebook", 1)]},
            },
            ["Running"],
            {"pods": 1, "gpus": 1},
            lambda o, pods: ready(o),
        ),
        (
            # A pod whose image cannot be pulled: the kubelet's waiting reason.
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "pull", "namespace": NS,
                             "annotations": {ANN + "outcome": "image-pull-error"}},
                "spec": {"restartPolicy": "Always", "containers": [container("triton")]},
            },
            ["Degraded"],
            {"pods": 1, "gpus": 0},
            lambda o, pods: any(
                (c.get("state", {}).get("waiting") or {}).get("reason") in ("ErrImagePull", "ImagePullBackOff")
                for c in (o.get("status") or {}).get("containerStatuses") or []
            ),
        ),
        (
            # A container that runs out of memory and is restarted: a crash
            # loop whose last exit is OOMKilled.
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "oom", "namespace": NS,
                             "annotations": {ANN + "outcome": "oom", ANN + "run-seconds": "1",
                                             ANN + "backoff-seconds": "300"}},
                "spec": {"restartPolicy": "Always", "containers": [container("vllm")]},
            },
            ["Degraded"],
            {"pods": 1, "gpus": 0},
            lambda o, pods: any(
                (c.get("state", {}).get("waiting") or {}).get("reason") == "CrashLoopBackOff"
                and ((c.get("lastState") or {}).get("terminated") or {}).get("reason") == "OOMKilled"
                for c in (o.get("status") or {}).get("containerStatuses") or []
            ),
        ),
    ]
    if "jobset" in operators:
        def rjob(name: str, replicas: int, pods: int, gpus: int) -> dict:
            return {
                "name": name,
                "replicas": replicas,
                "template": {"spec": {
                    "parallelism": pods, "completions": pods, "backoffLimit": 0,
                    "completionMode": "Indexed",  # JobSet's webhook default
                    "template": pod_template("trainer", gpus),
                }},
            }

        out.append((
            {
                "apiVersion": "jobset.x-k8s.io/v1alpha2",
                "kind": "JobSet",
                "metadata": {"name": "train", "namespace": NS},
                "spec": {
                    # What JobSet's defaulting webhook writes (not registered in the sim).
                    "successPolicy": {"operator": "All"},
                    "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
                    "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
                    "replicatedJobs": [rjob("leader", 1, 1, 1), rjob("workers", 2, 2, 2)],
                },
            },
            ["Running"],
            {"pods": 5, "gpus": 9},
            lambda o, pods: len(pods) == 5 and all(ready(p) for p in pods)
            and sum(r.get("ready", 0) for r in (o.get("status") or {}).get("replicatedJobsStatus") or []) == 3,
        ))
        # A JobSet (one gang of all its pods) of which one pod can never be
        # placed: the gang is short, and the scheduler says why.
        out.append((
            {
                "apiVersion": "jobset.x-k8s.io/v1alpha2",
                "kind": "JobSet",
                "metadata": {"name": "wide", "namespace": NS},
                "spec": {
                    "successPolicy": {"operator": "All"},
                    "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
                    "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
                    "replicatedJobs": [rjob("small", 1, 1, 1), rjob("huge", 1, 1, 16)],
                },
            },
            ["Running"],
            {"pods": 2, "gpus": 17},
            lambda o, pods: len(pods) == 2 and sum(1 for p in pods if ready(p)) == 1
            and any(any(c.get("reason") == "Unschedulable" for c in p.get("status", {}).get("conditions") or []) for p in pods),
        ))
    if "lws" in operators:
        tmpl = {"spec": {"containers": [container("vllm", 1)]}}
        out.append((
            {
                "apiVersion": "leaderworkerset.x-k8s.io/v1",
                "kind": "LeaderWorkerSet",
                "metadata": {"name": "serve", "namespace": NS},
                "spec": {
                    "replicas": 2,
                    # What LWS's defaulting webhook writes (not registered in the sim).
                    "rolloutStrategy": {"type": "RollingUpdate", "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0, "partition": 0}},
                    "networkConfig": {"subdomainPolicy": "Shared"},
                    "startupPolicy": "LeaderCreated",
                    "leaderWorkerTemplate": {
                        "size": 2,
                        "restartPolicy": "RecreateGroupOnPodRestart",
                        "leaderTemplate": tmpl,
                        "workerTemplate": tmpl,
                    },
                },
            },
            ["Running"],
            {"pods": 4, "gpus": 4},
            lambda o, pods: len(pods) == 4 and all(ready(p) for p in pods)
            and (o.get("status") or {}).get("readyReplicas") == 2 and cond(o, "Available"),
        ))
    return out


# The namespace's objects that can own pods, read to walk owner chains.
OWNER_TYPES = [
    ("apps/v1", "Deployment"), ("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet"),
    ("batch/v1", "Job"), ("v1", "Pod"),
]
OPERATOR_TYPES = {
    "jobset": [("jobset.x-k8s.io/v1alpha2", "JobSet")],
    "lws": [("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet")],
}


def gpus_of(pod: dict) -> int:
    total = 0
    for c in pod["spec"].get("containers") or []:
        res = c.get("resources") or {}
        v = (res.get("requests") or {}).get("nvidia.com/gpu", (res.get("limits") or {}).get("nvidia.com/gpu", "0"))
        total += int(v)
    return total


def truth(kube: Kube, operators: set[str]) -> dict[str, dict]:
    """uid -> {kind, name, pods: {...}} for every top-level object that has
    pods, by walking controller owner references."""
    objs: dict[str, dict] = {}
    for api_version, kind in OWNER_TYPES + [t for op in sorted(operators) for t in OPERATOR_TYPES.get(op, [])]:
        for o in kube.list(api_version, kind, NS):
            o.setdefault("kind", kind)
            objs[o["metadata"]["uid"]] = o

    def controller(o: dict) -> str | None:
        for r in o["metadata"].get("ownerReferences") or []:
            if r.get("controller"):
                return r["uid"]
        return None

    out: dict[str, dict] = {}
    for o in objs.values():
        if o["kind"] != "Pod":
            continue
        top, seen = o, set()
        while True:
            up = controller(top)
            if up is None or up not in objs or up in seen:
                break
            seen.add(up)
            top = objs[up]
        entry = out.setdefault(top["metadata"]["uid"], {"kind": top["kind"], "name": top["metadata"]["name"], "pods": {}})
        st = o.get("status") or {}
        entry["pods"][o["metadata"]["name"]] = {
            "phase": st.get("phase"),
            "node": o["spec"].get("nodeName"),
            "gpus": gpus_of(o),
            "ready": ready(o),
            "live": st.get("phase") not in ("Succeeded", "Failed"),
        }
    return out


def pods_of(kube: Kube, operators: set[str], uid: str) -> list[dict]:
    """The pods whose controller chain leads to uid (for the wait)."""
    names = set((truth(kube, operators).get(uid) or {}).get("pods", {}))
    return [p for p in kube.list("v1", "Pod", NS) if p["metadata"]["name"] in names]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kubeconfig")
    ap.add_argument("--out")
    ap.add_argument("--operators", default="")
    ap.add_argument("--delete", action="store_true")
    a = ap.parse_args(argv)
    kube = Kube(a.kubeconfig)
    if a.delete:
        kube.delete("v1", "Namespace", NS)
        wait(f"namespace {NS} to be gone", lambda: kube.get("v1", "Namespace", NS) is None, 120)
        say(f"namespace {NS} deleted")
        return 0
    if not a.out:
        ap.error("--out is required (or --delete)")
    operators = {o for o in a.operators.split(",") if o and o != "none"}
    if kube.get("v1", "Namespace", NS) is not None:
        print(f"error: namespace {NS} exists: delete it first (seed.py KUBECONFIG --delete)", file=sys.stderr)
        return 1
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    todo = workloads(operators)
    created = []
    for obj, statuses, declared, settled in todo:
        got = kube.apply(obj)
        created.append((got, statuses, declared, settled))
        say(f"created {obj['kind']} {obj['metadata']['name']}")
    for got, _statuses, _declared, settled in created:
        api_version, kind, name = got["apiVersion"], got["kind"], got["metadata"]["name"]
        uid = got["metadata"]["uid"]

        def check(api_version=api_version, kind=kind, name=name, uid=uid, settled=settled, got=got):
            o = kube.get(api_version, kind, name, NS)
            return o is not None and settled(o, pods_of(kube, operators, uid))

        wait(f"{kind} {name} to settle", check, 120, every=0.5)
        say(f"{kind} {name} settled")
    # Everything settled: read the truth once, and check that it still holds
    # (nothing moved while it was read).
    tops = truth(kube, operators)
    nodes = {n["metadata"]["name"]: int((n.get("status") or {}).get("allocatable", {}).get("nvidia.com/gpu", "0")) for n in kube.list("v1", "Node")}
    rows = []
    for got, statuses, declared, _settled in created:
        uid = got["metadata"]["uid"]
        res = {"Deployment": "deployments", "Job": "jobs", "Pod": "pods", "JobSet": "jobsets", "LeaderWorkerSet": "leaderworkersets"}[got["kind"]]
        rows.append({
            "kind": got["kind"],
            "apiVersion": got["apiVersion"],
            "type": res,
            "name": got["metadata"]["name"],
            "uid": uid,
            "statuses": statuses,
            "declared": declared,
            "pods": (tops.get(uid) or {}).get("pods", {}),
        })
    known = {r["uid"] for r in rows}
    extra = [f"{v['kind']} {v['name']}" for k, v in tops.items() if k not in known]
    if extra:
        print(f"error: pods of workloads the seed did not create: {', '.join(extra)}", file=sys.stderr)
        return 1
    state = {
        "namespace": NS,
        "operators": sorted(operators),
        "nodes": nodes,
        "workloads": rows,
        "unplaced": "big",
        "lookAlike": "imposter",
        # What `why` must name, from each cause as the components wrote it:
        # the first findings' codes, in order (written from the semantics).
        "why": {k: v for k, v in {
            "big": ["unschedulable"],
            "pull": ["image-pull"],
            "oom": ["crash-loop"],
            "batch-fail": ["failing-condition", "pod-failed"],
            "web": [],
            "wide": ["unschedulable", "gang-short"] if "jobset" in operators else None,
            "train": ["look-alike"] if "jobset" in operators else None,
        }.items() if v is not None},
    }
    pathlib.Path(a.out).write_text(json.dumps(state, indent=2, sort_keys=True) + "\n")
    pods = sum(len(r["pods"]) for r in rows)
    say(f"settled: {len(rows)} workloads, {pods} pods; the truth is in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
