"""workload_lens.kube against a real kube-apiserver with the scenario of
testing/live/README.md (namespaces lens-train, lens-serve, lens-paging).

Run by the live stage, `bash scripts/test.sh live` (scripts/live.sh starts
the server, seeds it and sets KUBECONFIG and WORKLOAD_LENS_LIVE_DIR). By
hand: `kc=$(bash testing/kube-apiserver/start.sh /tmp/kapi)`, seed with
`python testing/live/seed.py "$kc" --out /tmp/kapi/scenario.json`, then
`KUBECONFIG=$kc WORKLOAD_LENS_LIVE_DIR=/tmp/kapi pytest tests/test_kube.py`.
Without those variables every test here is skipped."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import REPO

LIVE = os.environ.get("WORKLOAD_LENS_LIVE_DIR")
pytestmark = pytest.mark.skipif(
    not (LIVE and os.environ.get("KUBECONFIG")),
    reason="needs a live API server: run `bash scripts/test.sh live` (sets KUBECONFIG and WORKLOAD_LENS_LIVE_DIR)",
)

if LIVE and os.environ.get("KUBECONFIG"):
    import workload_lens as wl
    from workload_lens.kube import Cluster, ClusterError, Forbidden, NotFound, Unauthorized, Unreachable


@pytest.fixture(scope="module")
def live_dir() -> Path:
    assert LIVE
    return Path(LIVE)


@pytest.fixture(scope="module")
def cluster() -> Iterator["Cluster"]:
    c = Cluster()
    yield c
    c.close()


@pytest.fixture(scope="module")
def viewer(live_dir: Path) -> Iterator["Cluster"]:
    c = Cluster(kubeconfig=live_dir / "kubeconfig-viewer")
    yield c
    c.close()


@pytest.fixture(scope="module")
def scenario(live_dir: Path) -> Dict[str, str]:
    p = live_dir / "scenario.json"
    if not p.is_file():
        pytest.skip(f"{p} missing (seed with testing/live/seed.py --out)")
    r: Dict[str, str] = json.loads(p.read_text(encoding="utf-8"))
    return r


def names(rows: List[Any]) -> List[str]:
    return sorted(r["name"] for r in rows)


def test_types_are_discovery_without_subresources(cluster: "Cluster") -> None:
    served = cluster.types()
    assert not [r for r in served if "/" in r["plural"]]
    jobsets = {r["version"]: r for r in served if r["group"] == "jobset.x-k8s.io" and r["plural"] == "jobsets"}
    assert set(jobsets) == {"v1alpha1", "v1alpha2"}
    assert jobsets["v1alpha2"]["preferred"] and not jobsets["v1alpha1"]["preferred"]
    assert jobsets["v1alpha2"]["kind"] == "JobSet" and jobsets["v1alpha2"]["namespaced"]
    assert jobsets["v1alpha2"]["singular"] == "jobset"
    lws = next(r for r in served if r["kind"] == "LeaderWorkerSet")
    assert lws["shortNames"] == ["lws"]
    pods = next(r for r in served if r["group"] == "" and r["plural"] == "pods")
    assert pods == {"group": "", "version": "v1", "kind": "Pod", "plural": "pods", "singular": "pod",
                    "shortNames": ["po"], "namespaced": True, "preferred": True}
    karta = next(r for r in served if r["plural"] == "kartas")
    assert not karta["namespaced"]


def test_list_one_type_in_a_namespace(cluster: "Cluster", scenario: Dict[str, str]) -> None:
    listing = cluster.list("jobsets", namespace="lens-train")
    rows = {r["name"]: r for r in listing.workloads}
    assert sorted(rows) == ["llama", "old-api"]
    llama = rows["llama"]
    assert (llama["pods"], llama["gpus"], llama["statuses"]) == (5, 12, ["Running"])
    assert (llama["definition"], llama["origin"]) == ("jobset-x-k8s-io-jobset-v1alpha2", "catalog")
    assert llama["uid"] == scenario["lens-train/JobSet/llama"]
    assert llama["apiVersion"] == "jobset.x-k8s.io/v1alpha2" and llama["namespace"] == "lens-train"
    assert (rows["old-api"]["pods"], rows["old-api"]["gpus"], rows["old-api"]["statuses"]) == (2, 2, ["Initializing"])
    assert listing.forbidden == []
    assert [w["object"] for w in listing.warnings] == ["Karta/lens-test-broken"]
    # Other spellings of the type.
    for token in ("JobSet", "jobset", "jobsets.jobset.x-k8s.io", "JobSet.v1alpha2.jobset.x-k8s.io"):
        assert names(cluster.list(token, namespace="lens-train").workloads) == ["llama", "old-api"], token
    assert names(cluster.list("lws", namespace="lens-serve").workloads) == ["vllm"]


def test_list_all_namespaces(cluster: "Cluster") -> None:
    rows = cluster.list("jobsets", all_namespaces=True).workloads
    # lens-account's sft is a JobSet too (a TrainJob's: one type asked for,
    # every object of it is listed).
    # and lens-scale's suspended JobSet paused.
    assert len(rows) == 27
    assert {r["namespace"] for r in rows} == {"lens-train", "lens-paging", "lens-account", "lens-scale"}
    # By namespace, then name (the engine's order, as kubectl's).
    keys = [(r["namespace"], r["name"]) for r in rows]
    assert keys == sorted(keys)


def test_default_namespace_is_the_contexts(cluster: "Cluster") -> None:
    assert cluster.namespace == "default"
    assert cluster.list("jobsets").workloads == []


def test_label_selector(cluster: "Cluster") -> None:
    rows = cluster.list("jobsets", all_namespaces=True, label_selector="lens-test/page=07").workloads
    assert names(rows) == ["page-07"]
    rows = cluster.list("jobsets", namespace="lens-train", label_selector="team=llm").workloads
    assert names(rows) == ["llama"]
    assert cluster.list("jobsets", namespace="lens-train", label_selector="team=nobody").workloads == []


def test_phases(cluster: "Cluster") -> None:
    assert names(cluster.list("jobsets", namespace="lens-train", phases=["Running"]).workloads) == ["llama"]
    assert names(cluster.list("jobsets", namespace="lens-train", phases=["initializing"]).workloads) == ["old-api"]
    assert cluster.list("jobsets", namespace="lens-train", phases=["Failed"]).workloads == []
    rows = cluster.list(all_types=True, namespace="lens-serve", phases=["Running"]).workloads
    assert names(rows) == ["ray-a", "vllm", "web"]


def test_all_types_lists_top_level_workloads_only(cluster: "Cluster") -> None:
    train = cluster.list(all_types=True, namespace="lens-train")
    # The JobSet's Jobs and every owned pod are left out; other-batch has no owner.
    assert names(train.workloads) == ["bert", "llama", "old-api", "other-batch"]
    serve = cluster.list(all_types=True, namespace="lens-serve")
    # The Deployment's ReplicaSet and pods, the LWS's StatefulSets and pods are left out.
    assert [(r["kind"], r["name"]) for r in sorted(serve.workloads, key=lambda r: r["name"])] == [
        ("RayCluster", "ray-a"), ("LeaderWorkerSet", "vllm"), ("Deployment", "web")]
    every = cluster.list(all_types=True, all_namespaces=True)
    # lens-account: a TrainJob, a RayCluster, an orphaned pod, a pod of its own;
    # lens-scale: an InferenceService, a RayCluster, a suspended JobSet.
    assert len(every.workloads) == 4 + 3 + 23 + 4 + 3
    assert every.forbidden == []
    with pytest.raises(wl.UsageError):
        cluster.list()
    with pytest.raises(wl.UsageError):
        cluster.list("jobsets", all_types=True)


def test_paging(cluster: "Cluster", monkeypatch: pytest.MonkeyPatch) -> None:
    calls: List[Dict[str, List[str]]] = []
    reply = cluster._reply

    def counting(path: str) -> Any:
        if "/namespaces/lens-paging/jobsets?" in path:
            calls.append(parse_qs(urlsplit(path).query))
        return reply(path)

    monkeypatch.setattr(cluster, "_reply", counting)
    rows = cluster.list("jobsets", namespace="lens-paging", chunk_size=5).workloads
    assert len(rows) == 23 and len({r["uid"] for r in rows}) == 23
    assert names(rows) == [f"page-{i:02d}" for i in range(23)]
    assert len(calls) == 5 and all(c["limit"] == ["5"] for c in calls)
    assert "continue" not in calls[0] and all(c["continue"][0] for c in calls[1:])
    assert all((r["pods"], r["gpus"], r["statuses"]) == (1, 1, ["Initializing"]) for r in rows)
    monkeypatch.undo()
    # One page, and no paging at all, give the same rows.
    assert cluster.list("jobsets", namespace="lens-paging").workloads == rows
    assert cluster.list("jobsets", namespace="lens-paging", chunk_size=0).workloads == rows


def test_paging_timing(cluster: "Cluster") -> None:
    """Not a benchmark: the time of a listing over lens-paging, printed (-s)."""
    for chunk in (5, 500):
        start = time.perf_counter()
        n = 5
        for _ in range(n):
            assert len(cluster.list("jobsets", namespace="lens-paging", chunk_size=chunk).workloads) == 23
        print(f"\nlist jobsets -n lens-paging chunk_size={chunk}: {(time.perf_counter() - start) / n * 1000:.1f} ms")


def rest(cluster: "Cluster", method: str, path: str, body: Any = None,
         query: Optional[Dict[str, str]] = None) -> Tuple[int, Any]:
    """One request with the cluster's own client: (status, decoded JSON)."""
    api = cluster.api_client
    m, url, headers, data, post = api.param_serialize(
        method=method, resource_path=path, query_params=list((query or {}).items()),
        header_params={"Accept": "application/json", "Content-Type": "application/json"}, body=body,
        auth_settings=["BearerToken"],
    )
    resp = api.call_api(m, url, header_params=headers, body=data, post_params=post)
    resp.read()
    return int(resp.status), json.loads(resp.data) if resp.data else None


# A namespace only test_list_holds_no_raw_page_at_10x uses (the scenario's
# are left as they are): 600 Jobs of ~100 KB each (a 100,000-byte
# annotation), all controlled by one JobSet.
MEMORY_NS = "lens-pages-py"
MEMORY_JOBS = 600
BALLAST = 100_000

# The listing, measured in a process of its own (so that creating the Jobs
# leaves nothing in the baseline): the bytes received, the pages of Jobs,
# tracemalloc's peak during list() and the largest resident size seen at a
# request (each is made after the replies before it were fed), above the
# resident size before list().
MEASURE_LIST = r"""
import json, os, sys, time, tracemalloc
from workload_lens.kube import Cluster

def resident():
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

cluster = Cluster()
# Warm: discovery (kept a minute), the catalog, the client's pool.
cluster.list(all_types=True, namespace="lens-paging", chunk_size=2)
seen = {"received": 0, "pages": 0, "resident": 0}
reply = cluster._reply

def counting(path):
    seen["resident"] = max(seen["resident"], resident())
    out = reply(path)
    seen["received"] += len(out[1])
    seen["pages"] += "/jobs?" in path
    return out

cluster._reply = counting
before = resident()
tracemalloc.start()
start = time.perf_counter()
listing = cluster.list(all_types=True, namespace=sys.argv[1], chunk_size=2)
seconds = time.perf_counter() - start
_, peak = tracemalloc.get_traced_memory()
tracemalloc.stop()
rows = [[w["kind"], w["name"]] for w in listing.workloads]
print(json.dumps({**seen, "resident": seen["resident"] - before, "peak": peak, "seconds": seconds, "rows": rows}))
"""


def delete_memory_objects(cluster: "Cluster") -> None:
    # Background: a Job deleted with the default (orphan) policy would wait
    # for the garbage collector, which nothing runs here.
    for path in (f"/apis/batch/v1/namespaces/{MEMORY_NS}/jobs",
                 f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{MEMORY_NS}/jobsets"):
        status, _ = rest(cluster, "DELETE", path, query={"propagationPolicy": "Background"})
        assert status == 200, path


def test_list_holds_no_raw_page_at_10x(cluster: "Cluster") -> None:
    """list() feeds each page to the engine's session as it arrives, and
    neither the package nor the session keeps a page's bytes after it is
    fed: the Jobs a listing of every type drops (their controller, a JobSet,
    is a covered type) leave nothing behind. 600 Jobs of ~100 KB in pages of
    2 (~58 MiB received): the memory Python allocated at its peak during the
    list (tracemalloc: the replies as bytes, str and JSON, the session's
    results) stays under a tenth of the bytes received, and the process's
    resident memory (the native module's allocations too) grows by less
    than half of them. Keeping the pages fails both."""
    status, _ = rest(cluster, "POST", "/api/v1/namespaces",
                     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": MEMORY_NS}})
    assert status in (201, 409)
    delete_memory_objects(cluster)  # what an interrupted run left
    try:
        status, holder = rest(cluster, "POST", f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{MEMORY_NS}/jobsets", {
            "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": "holder", "namespace": MEMORY_NS},
            "spec": {"replicatedJobs": [{"name": "main", "replicas": 1, "template": {"spec": {"template": {
                "spec": {"restartPolicy": "Never", "containers": [{"name": "main", "image": "busybox:1.36"}]},
            }}}}]},
        })
        assert status == 201
        owner = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "name": "holder",
                 "uid": holder["metadata"]["uid"], "controller": True}
        ballast = "x" * BALLAST

        def create(i: int) -> int:
            return rest(cluster, "POST", f"/apis/batch/v1/namespaces/{MEMORY_NS}/jobs", {
                "apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": f"held-{i:04d}", "namespace": MEMORY_NS, "ownerReferences": [owner],
                             "annotations": {"lens-test/ballast": ballast}},
                "spec": {"template": {"spec": {"restartPolicy": "Never",
                                               "containers": [{"name": "main", "image": "busybox:1.36"}]}}},
            })[0]

        start = time.perf_counter()
        with ThreadPoolExecutor(8) as pool:
            assert set(pool.map(create, range(MEMORY_JOBS))) == {201}
        created = time.perf_counter() - start

        out = subprocess.run([sys.executable, "-c", MEASURE_LIST, MEMORY_NS], capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        m = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"\n{MEMORY_JOBS} Jobs created in {created:.1f} s; list: {m['received'] / 2**20:.1f} MiB received "
              f"in {m['pages']} pages of Jobs, {m['seconds']:.2f} s; Python's peak {m['peak'] / 2**20:.2f} MiB; "
              f"resident size grown by {m['resident'] / 2**20:.1f} MiB")
        # Only the JobSet: its Jobs were dropped as read.
        assert m["rows"] == [["JobSet", "holder"]]
        assert m["received"] > MEMORY_JOBS * BALLAST and m["pages"] >= MEMORY_JOBS // 2
        assert m["peak"] < m["received"] / 10
        assert m["resident"] < m["received"] / 2
    finally:
        delete_memory_objects(cluster)


def test_old_api_jobset_resolves_through_the_group_kinds_definition(cluster: "Cluster") -> None:
    rows = cluster.list("JobSet.v1alpha1.jobset.x-k8s.io", namespace="lens-train").workloads
    old = next(r for r in rows if r["name"] == "old-api")
    assert old["apiVersion"] == "jobset.x-k8s.io/v1alpha1"
    assert (old["definition"], old["pods"], old["gpus"]) == ("jobset-x-k8s-io-jobset-v1alpha2", 2, 2)
    assert "error" not in old
    d = cluster.describe("JobSet.v1alpha1.jobset.x-k8s.io", "old-api", namespace="lens-train")
    assert d.object["apiVersion"] == "jobset.x-k8s.io/v1alpha1"
    assert d.resolved["definition"]["name"] == "jobset-x-k8s-io-jobset-v1alpha2"
    assert "object version v1alpha1 resolved through the definition for version v1alpha2" in " ".join(
        d.resolved.get("warnings", []))


def live_pods(resolved: Dict[str, Any]) -> Dict[str, Any]:
    """component/instance id -> (desired, ready, pod names) of every
    instance with live pods."""
    out: Dict[str, Any] = {}
    for c in resolved["components"]:
        for i in c["instances"]:
            if "live" in i:
                out[f"{c['name']}/{i['id']}"] = (i["desiredReplicas"], i["live"]["ready"], sorted(p["name"] for p in i["live"]["pods"]))
    return out


def test_describe_counts_pods_by_ownership(cluster: "Cluster", scenario: Dict[str, str]) -> None:
    d = cluster.describe("jobset", "llama", namespace="lens-train")
    assert d.object["metadata"]["uid"] == scenario["lens-train/JobSet/llama"]
    live = live_pods(d.resolved)
    assert live["replicatedjob/leader"] == (1, 1, ["llama-leader-0-0-x7k2p"])
    desired, ready, pods = live["replicatedjob/worker"]
    assert (desired, ready, len(pods)) == (4, 3, 5)
    attributed = [p for _, _, ps in live.values() for p in ps]
    assert len(attributed) == 6
    # The stray pod carries llama's labels but another controller: not counted.
    assert "llama-worker-0-0-stray" not in attributed
    # It is listed as a stray; the other workloads' pods (bert's) are left out.
    assert [p["name"] for p in d.resolved["strayPods"]] == ["llama-worker-0-0-stray"]
    assert "other-batch" in d.resolved["strayPods"][0]["findings"][0]["message"]
    # Gang groups: the same six pods.
    members = [m for g in d.gang["groups"] for m in g["members"]]
    assert sorted(members) == sorted(attributed)
    assert [w["reason"] for w in d.warnings] == ["invalid"]
    # The last events of llama, its pods and Jobs, newest first; the stray
    # pod's event (another workload's) is left out.
    assert [(e["reason"], e["object"]) for e in d.events] == [
        ("FailedScheduling", "Pod/llama-worker-1-1-q8h3v"),
        ("SuccessfulCreate", "Job/llama-worker-1"),
        ("BackoffLimitExceeded", "Pod/llama-worker-1-1-f5w7n"),
    ]
    assert d.events_left_out == 0


def test_describe_chains_through_pods_and_statefulsets(cluster: "Cluster") -> None:
    d = cluster.describe("lws", "vllm", namespace="lens-serve")
    assert d.resolved["totals"]["pods"] == 6
    live = live_pods(d.resolved)
    assert live["leader/"] == (2, 2, ["vllm-0", "vllm-1"])
    assert live["worker/"] == (4, 4, ["vllm-0-1", "vllm-0-2", "vllm-1-1", "vllm-1-2"])
    assert d.resolved.get("strayPods", []) == []  # other workloads' pods are left out
    d = cluster.describe("deployment", "web", namespace="lens-serve")
    assert len([p for _, _, ps in live_pods(d.resolved).values() for p in ps]) == 2


def test_cluster_karta_overrides_the_catalog(cluster: "Cluster") -> None:
    row = cluster.list("rayclusters", namespace="lens-serve").workloads[0]
    assert (row["name"], row["definition"], row["origin"]) == ("ray-a", "lens-test-raycluster", "cluster")
    assert (row["pods"], row["gpus"], row["statuses"]) == (3, 2, ["Running"])
    d = cluster.describe("raycluster", "ray-a", namespace="lens-serve")
    assert d.resolved["definition"]["origin"] == "cluster"
    assert [c["name"] for c in d.resolved["components"]] == ["raycluster", "ray-head", "ray-worker"]
    # The user's definitions win over the cluster's.
    mine = Cluster(definitions=Path(REPO / "definitions" / "ray-io-raycluster-v1.yaml"))
    row = mine.list("rayclusters", namespace="lens-serve").workloads[0]
    assert (row["definition"], row["origin"]) == ("ray-io-raycluster-v1", "user")
    engine, warnings = cluster.engine()
    d2 = engine.lookup("ray.io/v1", "RayCluster")
    assert d2 is not None and d2.origin == "cluster"


def test_invalid_karta_is_a_warning(cluster: "Cluster") -> None:
    warnings = cluster.list("jobsets", namespace="lens-train").warnings
    assert len(warnings) == 1
    w = warnings[0]
    assert (w["reason"], w["object"]) == ("invalid", "Karta/lens-test-broken")
    assert "jq" in w["message"]


def test_viewer_forbidden_pytorchjobs(viewer: "Cluster") -> None:
    listing = viewer.list(all_types=True, all_namespaces=True)
    assert "pytorchjobs.kubeflow.org" in listing.forbidden
    found = names(listing.workloads)
    assert "bert" not in found and {"llama", "vllm", "ray-a", "web"} <= set(found)
    reasons = {w["object"]: w["reason"] for w in listing.warnings}
    assert reasons["pytorchjobs.kubeflow.org"] == "forbidden"
    # The asked type itself: raised.
    with pytest.raises(Forbidden) as e:
        viewer.describe("pytorchjob", "bert", namespace="lens-train")
    assert e.value.status == 403 and "pytorchjobs.kubeflow.org" in str(e.value)
    with pytest.raises(Forbidden):
        viewer.list("pytorchjobs", namespace="lens-train")
    # What the viewer may read, it reads.
    assert names(viewer.list("jobsets", namespace="lens-train").workloads) == ["llama", "old-api"]
    assert isinstance(e.value, ClusterError) and isinstance(e.value, wl.WorkloadLensError)


def test_type_gone_since_discovery_is_a_no_crd_warning(monkeypatch: pytest.MonkeyPatch) -> None:
    """A covered type discovery listed but the server no longer serves (its
    CRD was deleted since): with all_types a `no_crd` warning, the others
    listed."""
    c = Cluster()
    served, warnings = c._discover()
    gone = {"group": "kubeflow.org", "version": "v1", "kind": "TFJob", "plural": "tfjobs", "singular": "tfjob",
            "shortNames": [], "namespaced": True, "preferred": True}
    monkeypatch.setattr(c, "_discover", lambda refresh=False: (served + [gone], warnings))
    listing = c.list(all_types=True, namespace="lens-train")
    assert names(listing.workloads) == ["bert", "llama", "old-api", "other-batch"]
    assert {w["object"]: w["reason"] for w in listing.warnings}["tfjobs.kubeflow.org"] == "no_crd"
    assert listing.forbidden == []


def test_a_type_the_server_fails_to_list() -> None:
    """Flakies (testing/live/crds/flakies.lens.test.yaml) answer HTTP 500,
    as a CRD with a broken conversion webhook does: with every type a
    warning and the rest listed; asked for by name, a ClusterError with code
    ``api``, as the CLI's exit 1."""
    c = Cluster(definitions=REPO / "testing/live/flaky-definition.yaml")
    listing = c.list(all_types=True, all_namespaces=True)
    assert "llama" in names(listing.workloads)
    warning = {w["object"]: w for w in listing.warnings}["flakies.lens.test"]
    assert warning["reason"] == "api" and "500" in warning["message"], warning
    assert listing.forbidden == []
    with pytest.raises(ClusterError, match="listing flakies.lens.test") as e:
        c.list("flakies", all_namespaces=True)
    assert (e.value.code, e.value.status, type(e.value)) == ("api", 500, ClusterError)
    # Not covered without the definition: no warning about it.
    plain = Cluster().list(all_types=True, all_namespaces=True)
    assert not [w for w in plain.warnings if w["object"] == "flakies.lens.test"]


def test_not_found(cluster: "Cluster") -> None:
    with pytest.raises(NotFound, match="JobSet 'nope' not found in namespace lens-train") as e:
        cluster.describe("jobsets", "nope", namespace="lens-train")
    assert e.value.status == 404
    with pytest.raises(NotFound):
        cluster.describe("jobsets", "llama", namespace="lens-serve")


def test_type_errors_are_the_engines(cluster: "Cluster") -> None:
    with pytest.raises(wl.UsageError, match="does not serve a type named 'nosuch'"):
        cluster.list("nosuch", namespace="lens-train")
    with pytest.raises(wl.NoDefinitionError, match="no definition covers Service"):
        cluster.list("svc", namespace="lens-train")
    with pytest.raises(wl.NoDefinitionError):
        cluster.describe("configmaps", "x", namespace="lens-train")


def kubeconfig_with(live_dir: Path, tmp_path: Path, *, server: str = "", token: str = "") -> Path:
    text = (live_dir / "kubeconfig").read_text(encoding="utf-8")
    if server:
        text = re.sub(r"server: \S+", f"server: {server}", text)
    if token:
        text = re.sub(r"token: \S+", f"token: {token}", text)
    out = tmp_path / "kubeconfig"
    out.write_text(text, encoding="utf-8")
    return out


def test_unreachable_server_fails_quickly(live_dir: Path, tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    # The port is closed now: connections are refused.
    c = Cluster(kubeconfig=kubeconfig_with(live_dir, tmp_path, server=f"https://127.0.0.1:{port}"))
    start = time.monotonic()
    with pytest.raises(Unreachable, match=f"cannot reach https://127.0.0.1:{port}") as e:
        c.list("jobsets", namespace="lens-train")
    assert time.monotonic() - start < 10
    assert e.value.status is None


def test_unauthorized(live_dir: Path, tmp_path: Path) -> None:
    c = Cluster(kubeconfig=kubeconfig_with(live_dir, tmp_path, token="not-a-token"))
    with pytest.raises(Unauthorized, match="refused the credentials") as e:
        c.list("jobsets", namespace="lens-train")
    assert e.value.status == 401


def test_missing_kubeconfig(tmp_path: Path) -> None:
    with pytest.raises(ClusterError, match="no usable cluster configuration") as e:
        Cluster(kubeconfig=tmp_path / "nothing")
    assert e.value.code == "no_config"


def test_api_client_and_context(live_dir: Path, tmp_path: Path) -> None:
    from kubernetes import config

    client = config.new_client_from_config(config_file=str(live_dir / "kubeconfig"))  # type: ignore[no-untyped-call, unused-ignore]
    c = Cluster(client)
    assert names(c.list("jobsets", namespace="lens-train").workloads) == ["llama", "old-api"]
    # A namespace in the context is the default one.
    text = (live_dir / "kubeconfig").read_text(encoding="utf-8").replace("namespace: default", "namespace: lens-train")
    (tmp_path / "kc").write_text(text, encoding="utf-8")
    c = Cluster(kubeconfig=tmp_path / "kc", context="lens-admin@kapi")
    assert c.namespace == "lens-train"
    assert names(c.list("jobsets").workloads) == ["llama", "old-api"]
    assert c.describe("jobsets", "llama").object["metadata"]["name"] == "llama"
    with pytest.raises(ClusterError, match="no usable cluster configuration"):
        Cluster(kubeconfig=tmp_path / "kc", context="no-such-context")


def test_usage(cluster: "Cluster") -> None:
    u = cluster.usage(all_types=True, all_namespaces=True)
    ns = {r["key"]: (r["workloads"], r["gpus"]) for r in u["byNamespace"]}
    assert ns == {
        "lens-paging": (23, 23),
        "lens-train": (4, 18),
        "lens-serve": (3, 8),
        "lens-account": (4, 11),
        "lens-scale": (3, 11),
    }
    assert (u["total"]["workloads"], u["total"]["gpus"], u["total"]["errors"]) == (37, 71, 0)
    # What the pods hold, and what the suspended JobSet would declare.
    t = u["total"]
    assert (t["heldPods"], t["heldGpus"], t["pendingGpus"]) == (28, 34, 3)
    assert (t["inactive"], t["inactiveGpus"]) == (1, 4)
    assert u["podsRead"] is True
    u = cluster.usage("jobsets", namespace="lens-train")
    assert (u["total"]["workloads"], u["total"]["pods"], u["total"]["gpus"]) == (2, 7, 14)
    listing = cluster.list("jobsets", namespace="lens-train")
    assert {k: v for k, v in u.items() if k not in ("warnings", "forbidden")} == wl.usage(listing.workloads)
    assert (u["warnings"], u["forbidden"]) == (listing.warnings, listing.forbidden)


def test_autoscaled_counts_and_versions(cluster: "Cluster") -> None:
    """The engine's live rules, as the CLI reads them: the autoscaled
    InferenceService wants what its Deployment says (3; declared 2), and a
    type asked for at another version warns."""
    listing = cluster.list("inferenceservices", namespace="lens-scale")
    (llm,) = listing.workloads
    assert (llm["pods"], llm["gpus"], llm["declaredPods"]) == (3, 3, 2)
    assert llm["live"] == {"pods": 3, "ready": 3, "gpus": 3, "pendingGpus": 0}
    old = cluster.list("RayCluster.v1alpha1.ray.io", namespace="lens-scale")
    assert [(w["name"], w["pods"], w["gpus"]) for w in old.workloads] == [("ray-multi", 2, 4)]
    assert [w["reason"] for w in old.warnings if w["object"] == "rayclusters.ray.io"] == ["version"]
    new = cluster.list("rayclusters", namespace="lens-scale")
    assert [(w["name"], w["pods"], w["gpus"]) for w in new.workloads] == [("ray-multi", 3, 8)]


def test_usage_says_what_it_left_out(viewer: "Cluster") -> None:
    u = viewer.usage(namespace="lens-train")
    assert "pytorchjobs.kubeflow.org" in u["forbidden"]
    assert "pytorchjobs.kubeflow.org" in [w["object"] for w in u["warnings"] if w["reason"] == "forbidden"]
    # bert's 4 pods stay visible, each a workload of its own whose owner
    # (the PyTorchJob) the viewer may not read: its 4 GPUs are counted.
    assert (u["total"]["workloads"], u["total"]["gpus"]) == (7, 18)
    unreadable = [w["object"] for w in u["warnings"] if w["reason"] == "owner_unreadable"]
    assert sorted(unreadable) == ["Pod/bert-master-0", "Pod/bert-worker-0", "Pod/bert-worker-1", "Pod/bert-worker-2"]


README = REPO / "bindings-python" / "README.md"


def test_readme_live_example(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's live-cluster example (```python live blocks, which
    test_readme.py leaves out) runs against the scenario."""
    blocks = re.findall(r"^```python live\n(.*?)^```", README.read_text(encoding="utf-8"), re.S | re.M)
    assert blocks
    monkeypatch.chdir(REPO)
    for code in blocks:
        exec(compile(code, f"{README}:live", "exec"), {"__name__": "__readme__"})


def test_engine_definitions_win_over_the_cluster() -> None:
    """A catalog given as ``engine`` with your own definition in it: that
    definition stays over the cluster's (the engine's rule, as
    ``definitions=`` and the CLI's files; docs/compatibility.md)."""
    mine = wl.Catalog([REPO / "definitions" / "ray-io-raycluster-v1.yaml"])
    c = Cluster(engine=mine)
    row = c.list("rayclusters", namespace="lens-serve").workloads[0]
    assert (row["definition"], row["origin"]) == ("ray-io-raycluster-v1", "user")
    engine, _ = c.engine()
    d = engine.lookup("ray.io/v1", "RayCluster")
    assert d is not None and d.origin == "user"
    # Without it, the cluster's Karta is used.
    row = Cluster().list("rayclusters", namespace="lens-serve").workloads[0]
    assert row["origin"] == "cluster"
