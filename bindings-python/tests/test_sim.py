"""workload_lens.kube on the simulated GPU cluster (testing/sim): workloads
whose Jobs, ReplicaSets, StatefulSets, pods, statuses, scheduling decisions
and events come from the real controllers, scheduler and (KWOK's) kubelets.

Run by the sim stage, `bash scripts/test.sh sim`: it starts the cluster,
seeds namespace lens-sim (testing/sim/live/seed.py, which waits until the
controllers have settled and writes the truth, worked out from the API and
not by the engine, to a state file) and sets KUBECONFIG and
WORKLOAD_LENS_SIM_STATE. Without them every test here is skipped."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator, List, Set

import pytest

STATE = os.environ.get("WORKLOAD_LENS_SIM_STATE")
pytestmark = pytest.mark.skipif(
    not (STATE and os.environ.get("KUBECONFIG")),
    reason="needs the simulated cluster: run `bash scripts/test.sh sim` (sets KUBECONFIG and WORKLOAD_LENS_SIM_STATE)",
)

if STATE and os.environ.get("KUBECONFIG"):
    from workload_lens.kube import Cluster


@pytest.fixture(scope="module")
def state() -> Dict[str, Any]:
    assert STATE
    s: Dict[str, Any] = json.loads(Path(STATE).read_text(encoding="utf-8"))
    return s


@pytest.fixture(scope="module")
def cluster() -> Iterator["Cluster"]:
    c = Cluster()
    yield c
    c.close()


def held(w: Dict[str, Any]) -> Dict[str, int]:
    """What the workload's unfinished pods hold, from the truth."""
    live = [p for p in w["pods"].values() if p["live"]]
    return {
        "pods": len(live),
        "ready": sum(1 for p in live if p["ready"]),
        "gpus": sum(p["gpus"] for p in live),
        "pendingGpus": sum(p["gpus"] for p in live if p["node"] is None),
    }


def placed(resolved: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [p for c in resolved["components"] for i in c["instances"] for p in (i.get("live") or {}).get("pods", [])]


def test_list_gives_each_workload_once_with_what_its_pods_hold(cluster: "Cluster", state: Dict[str, Any]) -> None:
    rows = cluster.list(all_types=True, namespace=state["namespace"]).workloads
    assert sorted(r["name"] for r in rows) == sorted(w["name"] for w in state["workloads"])
    by_name = {r["name"]: r for r in rows}
    for w in state["workloads"]:
        r = by_name[w["name"]]
        assert (r["kind"], r["statuses"]) == (w["kind"], w["statuses"]), w["name"]
        assert r["live"] == held(w), w["name"]
        if w["declared"]:
            assert (r["pods"], r["gpus"]) == (w["declared"]["pods"], w["declared"]["gpus"]), w["name"]


def test_describe_places_exactly_the_pods_the_owner_chains_lead_to(cluster: "Cluster", state: Dict[str, Any]) -> None:
    for w in state["workloads"]:
        d = cluster.describe(w["type"], w["name"], namespace=state["namespace"])
        pods = placed(d.resolved)
        names: Set[str] = {p["name"] for p in pods}
        assert len(names) == len(pods), f"{w['name']}: a pod placed twice"
        assert names == set(w["pods"]), w["name"]
        for p in pods:
            truth = w["pods"][p["name"]]
            assert (p["resources"]["gpu"], p["phase"], p["ready"], p.get("node")) == (
                truth["gpus"], truth["phase"], truth["ready"], truth["node"]), p["name"]
        assert d.resolved.get("unattributedPods", []) == []
        mine = {f"Pod/{n}" for n in w["pods"]}
        for e in d.events:
            assert not e["object"].startswith("Pod/") or e["object"] in mine, e
            assert e["from"], e


def test_the_unplaced_pod_carries_the_schedulers_message(cluster: "Cluster", state: Dict[str, Any]) -> None:
    d = cluster.describe("job", state["unplaced"], namespace=state["namespace"])
    (pod,) = placed(d.resolved)
    assert (pod["phase"], pod["reason"]) == ("Pending", "Unschedulable")
    assert "Insufficient nvidia.com/gpu" in pod["message"]
    failed = [e for e in d.events if e["reason"] == "FailedScheduling"]
    assert failed and all(e["from"] == "default-scheduler" for e in failed)


def test_a_look_alike_is_named_with_what_it_holds(cluster: "Cluster", state: Dict[str, Any]) -> None:
    if "jobset" not in state["operators"]:
        pytest.skip("the JobSet operator does not run")
    imposter = next(w for w in state["workloads"] if w["name"] == state["lookAlike"])
    ((pod, truth),) = imposter["pods"].items()
    d = cluster.describe("jobset", "train", namespace=state["namespace"])
    (stray,) = d.resolved["strayPods"]
    assert (stray["name"], stray["resources"]["gpu"]) == (pod, truth["gpus"])
    assert stray["findings"][0]["code"] == "other-workload"


def test_usage_adds_up_what_the_pods_hold(cluster: "Cluster", state: Dict[str, Any]) -> None:
    u = cluster.usage(namespace=state["namespace"])
    t = u["total"]
    hs = [held(w) for w in state["workloads"]]
    assert t["workloads"] == len(state["workloads"])
    assert (t["heldPods"], t["heldGpus"], t["pendingGpus"]) == (
        sum(h["pods"] for h in hs), sum(h["gpus"] for h in hs), sum(h["pendingGpus"] for h in hs))
    assert t["inactive"] == sum(1 for w in state["workloads"] if set(w["statuses"]) & {"Completed", "Failed"})
    assert t["errors"] == 0


def test_describe_carries_the_diagnosis_of_each_cause(cluster: "Cluster", state: Dict[str, Any]) -> None:
    """The first findings' codes of each workload whose cause the components
    wrote (state["why"], written from the semantics), as `why` names them."""
    for name, want in state["why"].items():
        w = next(x for x in state["workloads"] if x["name"] == name)
        d = cluster.describe(w["type"], name, namespace=state["namespace"])
        assert d.diagnosis is not None
        assert [f["code"] for f in d.diagnosis["findings"]] == want, name
