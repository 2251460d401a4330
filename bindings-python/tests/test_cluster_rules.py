"""The engine's live-cluster rules through the Python binding, without a
server (engine/tests/cluster.rs has the same cases): type tokens, covered
types, definitions stored in the cluster, listings (raw list pages as
bytes, several inputs), owner kinds to fetch, usage, and resolving with
pods and owners given as pages."""

from __future__ import annotations

import copy
import json
from typing import Any, Dict, List, Tuple

import pytest

import workload_lens as wl
from conftest import EXAMPLES, REPO


def res(group: str, version: str, kind: str, plural: str, short: Tuple[str, ...] = (),
        preferred: bool = True) -> Dict[str, Any]:
    return {"group": group, "version": version, "kind": kind, "plural": plural, "singular": kind.lower(),
            "shortNames": list(short), "namespaced": True, "preferred": preferred}


SERVED = [
    res("", "v1", "Pod", "pods", ("po",)),
    res("", "v1", "Service", "services", ("svc",)),
    res("batch", "v1", "Job", "jobs"),
    res("batch.volcano.sh", "v1alpha1", "Job", "jobs", ("vcjob", "vj")),
    res("apps", "v1", "Deployment", "deployments", ("deploy",)),
    res("jobset.x-k8s.io", "v1alpha1", "JobSet", "jobsets", preferred=False),
    res("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets"),
    res("leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet", "leaderworkersets", ("lws",)),
    res("example.com", "v1", "Widget", "widgets", ("js",)),
    res("a.example.com", "v1", "Trainer", "trainers"),
    res("b.example.com", "v1", "Trainer", "trainers"),
]


def qualified(r: Dict[str, Any]) -> str:
    return f"{r['kind']}.{r['version']}.{r['group']}" if r["group"] else f"{r['kind']}.{r['version']}"


def jobset(name: str, uid: str, created: str, namespace: str = "ml-team") -> Dict[str, Any]:
    v: Dict[str, Any] = wl.parse((EXAMPLES / "jobset.yaml").read_text(encoding="utf-8"))[0]
    v["metadata"].update(name=name, uid=uid, creationTimestamp=created, namespace=namespace)
    return v


def owned(api_version: str, kind: str, name: str, uid: str, owner: Tuple[str, str, str]) -> Dict[str, Any]:
    return {
        "apiVersion": api_version, "kind": kind,
        "metadata": {"name": name, "namespace": "ml-team", "uid": uid,
                     "creationTimestamp": "2026-12-01T00:00:00Z",
                     "ownerReferences": [{"apiVersion": owner[0], "kind": owner[1], "name": "x",
                                          "uid": owner[2], "controller": True}]},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }


def page(kind: str, items: List[Dict[str, Any]], cont: str = "") -> bytes:
    """A raw list response, as an API server sends it."""
    meta: Dict[str, Any] = {"resourceVersion": "7"}
    if cont:
        meta["continue"] = cont
    return json.dumps({"kind": kind, "apiVersion": "v1", "metadata": meta, "items": items}).encode()


def test_type_tokens() -> None:
    c = wl.Catalog()
    for token in ("jobsets", "JobSet", "jobset", "JOBSETS", "jobsets.jobset.x-k8s.io"):
        r = c.find_type(token, SERVED)
        assert qualified(r) == "JobSet.v1alpha2.jobset.x-k8s.io", token
    assert qualified(c.find_type("JobSet.v1alpha1.jobset.x-k8s.io", SERVED)) == "JobSet.v1alpha1.jobset.x-k8s.io"
    assert c.find_type("lws", SERVED)["kind"] == "LeaderWorkerSet"
    # The whole ApiResource comes back.
    assert c.find_type("deploy", SERVED) == SERVED[4]


def test_type_token_errors() -> None:
    c = wl.Catalog()
    with pytest.raises(wl.UsageError, match="does not serve a type named 'nosuch'"):
        c.find_type("nosuch", SERVED)
    with pytest.raises(wl.UsageError, match="Trainer.v1.a.example.com, Trainer.v1.b.example.com"):
        c.find_type("trainers", SERVED)
    with pytest.raises(wl.NoDefinitionError, match=r"no definition covers Service \(v1\)"):
        c.find_type("svc", SERVED)
    with pytest.raises(wl.UsageError):
        c.find_type("  ", SERVED)
    with pytest.raises(wl.UsageError, match="served resources"):
        c.find_type("jobs", [{"group": "batch"}])  # type: ignore[typeddict-item]


def test_covered_types() -> None:
    covered = [qualified(r) for r in wl.Catalog().covered_types(SERVED)]
    assert covered == [
        "Deployment.v1.apps",
        "Job.v1.batch",
        "Job.v1alpha1.batch.volcano.sh",
        "JobSet.v1alpha2.jobset.x-k8s.io",
        "LeaderWorkerSet.v1.leaderworkerset.x-k8s.io",
        "Pod.v1",
    ]
    assert wl.Catalog(bundled=False).covered_types(SERVED) == []


def test_listing_rows_by_namespace_and_name_from_pages() -> None:
    running = jobset("b-running", "u-b", "2026-12-02T00:00:00Z")
    running["status"] = {"conditions": [], "replicatedJobsStatus": [
        {"name": "leader", "active": 1, "ready": 1}, {"name": "worker", "active": 2, "ready": 2}]}
    pages = [page("JobSetList", [jobset("a-old", "u-a", "2026-11-01T00:00:00Z"), running], "tok"),
             page("JobSetList", [jobset("c-new", "u-c", "2026-12-03T00:00:00Z")])]
    rows = wl.Catalog().list_workloads(pages)
    # As kubectl orders them: by namespace, then name.
    assert [r["name"] for r in rows] == ["a-old", "b-running", "c-new"]
    for r in rows:
        assert (r["pods"], r["gpus"]) == (3, 12)
        assert r["definition"] == "jobset-x-k8s-io-jobset-v1alpha2"
        assert r["origin"] == "catalog"
        assert r["apiVersion"] == "jobset.x-k8s.io/v1alpha2" and r["kind"] == "JobSet"
        assert r["namespace"] == "ml-team" and r["uid"].startswith("u-")
        assert "error" not in r
    assert rows[1]["statuses"] and rows[1]["statuses"] != ["Undefined"]
    # The same from dicts, a list object, or text as str.
    objs = [o for p in pages for o in json.loads(p)["items"]]
    assert wl.Catalog().list_workloads(objs) == rows
    assert wl.Catalog().list_workloads({"kind": "List", "items": objs}) == rows
    assert wl.Catalog().list_workloads([p.decode() for p in pages]) == rows


def test_a_row_with_an_error() -> None:
    broken = jobset("broken", "u-x", "2026-12-01T00:00:00Z")
    broken["spec"]["replicatedJobs"] = "not a list"
    rows = wl.Catalog().list_workloads([broken, jobset("fine", "u-y", "2026-12-01T00:00:00Z")])
    by = {r["name"]: r for r in rows}
    assert by["broken"]["error"]["code"] and by["broken"]["error"]["message"]
    assert by["broken"]["definition"] == "jobset-x-k8s-io-jobset-v1alpha2"
    assert "error" not in by["fine"]


def test_top_level_only_and_owners() -> None:
    js = jobset("llama", "u-js", "2026-12-01T00:00:00Z")
    job = owned("batch/v1", "Job", "llama-worker-0", "u-job", ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js"))
    free = owned("batch/v1", "Job", "free", "u-free", ("v1", "Nothing", "u-none"))
    # A Job controlled by an object of an uncovered type that a Job controls.
    widget = owned("example.com/v1", "Widget", "w", "u-w", ("batch/v1", "Job", "u-job"))
    chained = owned("batch/v1", "Job", "chained", "u-ch", ("example.com/v1", "Widget", "u-w"))
    c = wl.Catalog()
    objects = [page("JobSetList", [js]), page("JobList", [job, free, chained])]
    assert sorted(r["name"] for r in c.list_workloads(objects)) == ["chained", "free", "llama", "llama-worker-0"]
    # Without the widget, the chain of `chained` ends at it; with it, it
    # reaches the Job.
    assert sorted(r["name"] for r in c.list_workloads(objects, top_level_only=True)) == ["chained", "free", "llama"]
    top = c.list_workloads(objects, [page("WidgetList", [widget])], top_level_only=True)
    assert sorted(r["name"] for r in top) == ["free", "llama"]


def test_phases() -> None:
    running = jobset("run", "u-r", "2026-12-02T00:00:00Z")
    running["status"] = {"conditions": [], "replicatedJobsStatus": [
        {"name": "leader", "active": 1, "ready": 1}, {"name": "worker", "active": 2, "ready": 2}]}
    other = jobset("other", "u-o", "2026-12-01T00:00:00Z", namespace="team-b")
    other["status"] = {"conditions": [{"type": "Completed", "status": "True"}]}
    broken = jobset("broken", "u-x", "2026-12-01T00:00:00Z")
    broken["spec"]["replicatedJobs"] = "not a list"
    c = wl.Catalog()
    objects = [running, other, broken]
    everything = c.list_workloads(objects)
    first = next(r for r in everything if r["name"] == "run")["statuses"][0]
    assert [r["name"] for r in c.list_workloads(objects, phases=[first.upper()])] == ["run"]
    assert [r["name"] for r in c.list_workloads(objects, phases=("completed", "Suspended"))] == ["other"]
    assert c.list_workloads(objects, phases=["Suspended"]) == []
    with pytest.raises(TypeError):
        c.list_workloads(objects, phases="Running")

    u = wl.usage(everything)
    assert (u["total"]["workloads"], u["total"]["pods"], u["total"]["gpus"], u["total"]["errors"]) == (3, 3, 12, 1)
    # The Completed JobSet is inactive: it declares nothing.
    assert (u["total"]["inactive"], u["total"]["inactiveGpus"]) == (1, 12)
    assert [(r["key"], r["workloads"], r["gpus"]) for r in u["byNamespace"]] == [("ml-team", 2, 12), ("team-b", 1, 0)]
    assert [r["key"] for r in u["byType"]] == ["JobSet.jobset.x-k8s.io"]
    assert u["total"]["key"] == ""
    assert wl.usage([]) == {"byNamespace": [], "byType": [], "podsRead": False,
                            "total": {"key": "", "workloads": 0, "pods": 0, "gpus": 0, "inactive": 0,
                                      "inactiveGpus": 0, "heldPods": 0, "heldGpus": 0, "pendingGpus": 0,
                                      "errors": 0}}


def test_missing_owners() -> None:
    pods = [
        owned("v1", "Pod", "p1", "u-p1", ("batch/v1", "Job", "u-j1")),
        owned("v1", "Pod", "p2", "u-p2", ("batch/v1", "Job", "u-j2")),
        owned("v1", "Pod", "p3", "u-p3", ("apps/v1", "ReplicaSet", "u-rs")),
        owned("v1", "Pod", "p4", "u-p4", ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js")),
    ]
    skip = [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet"}]
    want = [{"apiVersion": "apps/v1", "kind": "ReplicaSet"}, {"apiVersion": "batch/v1", "kind": "Job"}]
    assert wl.missing_owners(pods, skip) == want  # type: ignore[arg-type]
    assert wl.missing_owners([page("PodList", pods[:2]), page("PodList", pods[2:])], skip) == want  # type: ignore[arg-type]
    items = pods + [
        owned("batch/v1", "Job", "j1", "u-j1", ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js")),
        owned("batch/v1", "Job", "j2", "u-j2", ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js")),
        owned("apps/v1", "ReplicaSet", "rs", "u-rs", ("apps/v1", "Deployment", "u-d")),
    ]
    assert wl.missing_owners(items, skip) == [{"apiVersion": "apps/v1", "kind": "Deployment"}]  # type: ignore[arg-type]
    assert wl.missing_owners([]) == []


def karta(name: str, text: str) -> Dict[str, Any]:
    v: Dict[str, Any] = wl.parse(text)[0]
    v["metadata"]["name"] = name
    v["metadata"]["uid"] = f"uid-{name}"
    v["metadata"]["managedFields"] = [{"manager": "kubectl"}]
    v["metadata"]["resourceVersion"] = "12"
    v["status"] = {"conditions": []}
    return v


def test_cluster_definitions() -> None:
    text = (REPO / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml").read_text(encoding="utf-8")
    good, later = karta("jobset-custom", text), karta("jobset-zz", text)
    invalid = karta("jobset-bad", text)
    invalid["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"] = {
        "phaseDefinition": {"path": ".status | ["}}
    base = wl.Catalog()
    engine, warnings = base.with_cluster_definitions(page("KartaList", [later, invalid, good]))
    d = engine.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert d is not None and (d.name, d.origin) == ("jobset-custom", "cluster")
    assert [(w["reason"], w["object"]) for w in warnings] == [("invalid", "Karta/jobset-bad"),
                                                              ("collision", "Karta/jobset-zz")]
    assert "Karta/jobset-custom (first by name) is used" in warnings[1]["message"]
    # The base is unchanged; a definition added afterwards wins.
    b = base.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert b is not None and b.origin == "catalog"
    row = engine.list_workloads([jobset("x", "u", "t")])[0]
    assert (row["origin"], row["definition"]) == ("cluster", "jobset-custom")
    engine.add(text)
    d = engine.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert d is not None and d.origin == "user"
    # No objects: a copy of the catalog.
    same, none = base.with_cluster_definitions([])
    assert none == [] and len(same) == len(base) and same is not base


def test_resolve_and_gangs_from_pages(jobset_pods: Any) -> None:
    obj: Dict[str, Any] = wl.parse((EXAMPLES / "jobset.yaml").read_text(encoding="utf-8"))[0]
    c = wl.Catalog()
    one = c.resolve(obj, jobset_pods)
    half = len(jobset_pods) // 2
    pages = [page("PodList", jobset_pods[:half]), page("PodList", jobset_pods[half:])]
    assert c.resolve_pages(obj, pages) == one
    assert c.resolve_pages(obj, [copy.deepcopy(p) for p in jobset_pods]) == one
    d = c.lookup_object(obj)
    assert d.gang_groups_pages(obj, pages) == d.gang_groups(obj, jobset_pods)


def pod(name: str, labels: Dict[str, str], owner: Tuple[str, str, str]) -> Dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml-team", "uid": f"uid-{name}", "labels": labels,
                         "ownerReferences": [{"apiVersion": owner[0], "kind": owner[1], "name": "x",
                                              "uid": owner[2], "controller": True}]},
            "spec": {"containers": [{"name": "c", "image": "i"}]}, "status": {"phase": "Running"}}


def test_resolve_in_namespace_leaves_out_other_workloads(jobset_pods: Any) -> None:
    """As engine/tests/cluster.rs: a namespace's pods (pages), the JobSet's
    through its Jobs, another workload's left out, a look-alike a stray."""
    obj: Dict[str, Any] = wl.parse((EXAMPLES / "jobset.yaml").read_text(encoding="utf-8"))[0]
    uid = obj["metadata"]["uid"]
    pods = copy.deepcopy(jobset_pods)
    for n, p in enumerate(pods):
        p["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "j",
                                             "uid": f"job-{n}", "controller": True}]
    jobs = [owned("batch/v1", "Job", f"job{n}", f"job-{n}", ("jobset.x-k8s.io/v1alpha2", "JobSet", uid))
            for n in range(len(pods))]
    ours = {"jobset.sigs.k8s.io/jobset-name": "llama-pretrain",
            "jobset.sigs.k8s.io/replicatedjob-name": "worker", "jobset.sigs.k8s.io/job-index": "1"}
    others = [
        pod("bert-0", {"app": "bert"}, ("kubeflow.org/v1", "PyTorchJob", "u-bert")),
        pod("look-alike", ours, ("batch/v1", "Job", "u-other")),
        owned("batch/v1", "Job", "other", "u-other", ("v1", "Pod", "uid-leader")),
        pod("leader", {}, ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "u-lws")),
        {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
         "metadata": {"name": "vllm", "namespace": "ml-team", "uid": "u-lws"}},
    ]
    c = wl.Catalog()
    items = [page("PodList", pods + others[:2] + [others[3]]), page("JobList", jobs + [others[2]]),
             page("LeaderWorkerSetList", [others[4]])]
    r = c.resolve_in_namespace(obj, items)
    assert [p["name"] for p in r["strayPods"]] == ["look-alike"]
    assert "LeaderWorkerSet vllm" in r["strayPods"][0]["findings"][0]["message"]
    placed = sum(len(i["live"]["pods"]) for comp in r["components"] for i in comp["instances"] if "live" in i)
    assert placed == 3 and r["unattributedPods"] == []
    # Given as the workload's pods, every other pod is a stray.
    r = c.resolve_pages(obj, items)
    assert sorted(p["name"] for p in r["strayPods"]) == ["bert-0", "leader", "look-alike"]
