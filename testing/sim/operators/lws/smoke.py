#!/usr/bin/env python3
"""Smoke test of the LeaderWorkerSet operator in the simulated cluster.

    smoke.py KUBECONFIG [--keep]

Needs: the cluster (API server, controller-manager, scheduler, KWOK with
stages that make scheduled pods Running, nodes with at least 9 free
nvidia.com/gpu), and `operator.sh start` done (which also registers the LWS
pod webhook). Run it with the venv that has `kubernetes` and `yaml`
(target/live/venv/bin/python).

It creates LeaderWorkerSet `serve` in namespace `smoke-lws`: 2 groups of 3
pods (a leader and 2 workers), 1 GPU a pod; waits until the operator made the
leader StatefulSet and one worker StatefulSet a group, the 6 pods run (with
the labels and LWS_* env vars of the pod webhook) and the status says
readyReplicas 2 and Available; then scales it to 3 (spec.replicas)
and waits for the third group the same way. The namespace is
deleted at the end unless --keep.

The LeaderWorkerSet is written with the fields LWS's defaulting webhook would
set (that webhook is not registered here; see README.md): rolloutStrategy
with rollingUpdateConfiguration (the controller dereferences it), and
networkConfig.subdomainPolicy.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))  # testing/sim
from kube import Kube, wait  # noqa: E402

NS = "smoke-lws"
NAME = "serve"
LWS = "leaderworkerset.x-k8s.io/v1"
SELECTOR = f"leaderworkerset.sigs.k8s.io/name={NAME}"
SIZE = 3
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f} s] {msg}", flush=True)


def pod_template(role: str) -> dict:
    return {
        "metadata": {"labels": {"role": role}},
        "spec": {
            "containers": [{
                "name": "vllm",
                "image": "registry.example/vllm:1.0",
                "resources": {"limits": {"nvidia.com/gpu": "1"}},
            }],
        },
    }


LEADERWORKERSET = {
    "apiVersion": LWS,
    "kind": "LeaderWorkerSet",
    "metadata": {"name": NAME, "namespace": NS},
    "spec": {
        "replicas": 2,
        # What the defaulting webhook would write; the controller dereferences
        # rolloutStrategy.rollingUpdateConfiguration without a nil check.
        "rolloutStrategy": {
            "type": "RollingUpdate",
            "rollingUpdateConfiguration": {"maxUnavailable": 1, "maxSurge": 0, "partition": 0},
        },
        "networkConfig": {"subdomainPolicy": "Shared"},
        "leaderWorkerTemplate": {
            "size": SIZE,
            "restartPolicy": "RecreateGroupOnPodRestart",
            "leaderTemplate": pod_template("leader"),
            "workerTemplate": pod_template("worker"),
        },
    },
}


def scale(kube: Kube, replicas: int) -> None:
    # Server-side apply of the whole object again (Kube.merge_patch sends its
    # body JSON-encoded twice with this kubernetes client: 400).
    kube.apply({**LEADERWORKERSET, "spec": {**LEADERWORKERSET["spec"], "replicas": replicas}})


def delete_namespace(kube: Kube) -> None:
    kube.call("DELETE", kube.path("v1", "Namespace", name=NS))  # no body: see scale


def lws(kube: Kube) -> dict:
    return kube.get(LWS, "LeaderWorkerSet", NAME, NS) or {}


def condition(obj: dict, kind: str) -> str | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c["type"] == kind:
            return c["status"]
    return None


def pods(kube: Kube) -> list[dict]:
    return [p for p in kube.list("v1", "Pod", NS, SELECTOR) if not p["metadata"].get("deletionTimestamp")]


def pod_ready(p: dict) -> bool:
    return p["status"].get("phase") == "Running" and condition(p, "Ready") == "True"


def statefulsets(kube: Kube) -> dict[str, dict]:
    return {s["metadata"]["name"]: s for s in kube.list("apps/v1", "StatefulSet", NS)}


def show(kube: Kube) -> None:
    for name, s in sorted(statefulsets(kube).items()):
        st = s.get("status") or {}
        say(f"  StatefulSet {name}: replicas={s['spec']['replicas']} ready={st.get('readyReplicas', 0)}")
    for p in sorted(pods(kube), key=lambda p: p["metadata"]["name"]):
        lab = p["metadata"]["labels"]
        env = {e["name"]: e.get("value") for e in p["spec"]["containers"][0].get("env") or []}
        say(f"  Pod {p['metadata']['name']}: {p['status'].get('phase')} ready={condition(p, 'Ready')} "
            f"node={p['spec'].get('nodeName')} group-index={lab.get('leaderworkerset.sigs.k8s.io/group-index')} "
            f"worker-index={lab.get('leaderworkerset.sigs.k8s.io/worker-index')} "
            f"LWS_LEADER_ADDRESS={env.get('LWS_LEADER_ADDRESS')}")
    got = lws(kube)
    st = got.get("status") or {}
    conds = {c["type"]: c["status"] for c in st.get("conditions") or []}
    say(f"  LWS status: replicas={st.get('replicas')} readyReplicas={st.get('readyReplicas')} "
        f"updatedReplicas={st.get('updatedReplicas')} conditions={conds}")


def groups_ready(kube: Kube, replicas: int):
    """The leader StatefulSet and `replicas` worker StatefulSets exist, every
    pod runs, is ready and carries the webhook's labels, and the LWS status
    counts every group ready and Available."""
    sts = statefulsets(kube)
    if NAME not in sts or sts[NAME]["spec"]["replicas"] != replicas:
        return False
    if any(f"{NAME}-{g}" not in sts for g in range(replicas)):
        return False
    ps = pods(kube)
    if len(ps) != replicas * SIZE or not all(pod_ready(p) for p in ps):
        return False
    for p in ps:  # written by the pod webhook, never by the StatefulSets
        lab = p["metadata"]["labels"]
        if "leaderworkerset.sigs.k8s.io/group-index" not in lab or "leaderworkerset.sigs.k8s.io/worker-index" not in lab:
            raise SystemExit(f"FAIL: pod {p['metadata']['name']} lacks the pod webhook's labels: is it registered?")
    st = lws(kube).get("status") or {}
    return st.get("readyReplicas") == replicas and condition(lws(kube), "Available") == "True"


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
    kube.apply(LEADERWORKERSET)
    say(f"created LeaderWorkerSet {NS}/{NAME}: replicas 2, size {SIZE}, 1 GPU a pod")
    wait("2 groups of 3 pods Running, readyReplicas 2, Available", lambda: groups_ready(kube, 2), 60)
    say("running:")
    show(kube)

    scale(kube, 3)
    say("scale: spec.replicas 2 -> 3")
    wait("3 groups of 3 pods Running, readyReplicas 3, Available", lambda: groups_ready(kube, 3), 60)
    say("scaled:")
    show(kube)
    say(f"  status.hpaPodSelector: {(lws(kube).get('status') or {}).get('hpaPodSelector')}")

    if not keep:
        delete_namespace(kube)
        say(f"namespace {NS} deleted")
    say("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
