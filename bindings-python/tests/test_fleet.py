"""workload_lens.fleet: snapshots as Arrow records, batches resolved into
the workloads, instances and pods tables.

- Against the CLI: a synthetic fleet (bench/fleet/generate.py: the
  catalog's fixtures varied into clusters) read and resolved here gives,
  workload by workload, what `workload-lens get --snapshot` gives.
- With a live test API server (WORKLOAD_LENS_LIVE_DIR, the live and fleet
  stages): a snapshot of it resolves as `workload-lens get -A -o json` did.
- Errors are rows; the schemas are what the module says; pickles rebuild.
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

pa = pytest.importorskip("pyarrow")

import workload_lens as wl  # noqa: E402
from workload_lens import fleet  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GENERATE = ROOT / "bench" / "fleet" / "generate.py"


def cli_path() -> str:
    env = os.environ.get("WORKLOAD_LENS_BIN")
    if env:
        return env
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    p = target / "debug" / "workload-lens"
    if p.is_file():
        return str(p)
    found = shutil.which("workload-lens")
    if found and "venv" not in found:
        return found
    pytest.skip("no workload-lens CLI (cargo build -p workload-lens-cli, or WORKLOAD_LENS_BIN)")
    raise AssertionError


def cli(*args: str) -> Any:
    r = subprocess.run([cli_path(), *args], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def key_of(row: Dict[str, Any]) -> Tuple[Any, ...]:
    """What a `get -o json` row says, in the workloads table's words."""
    live = row.get("live") or {}
    return (
        row.get("namespace"),
        row["kind"],
        row["name"],
        tuple(row.get("statuses", [])),
        row.get("pods"),
        row.get("gpus"),
        live.get("pods"),
        live.get("ready"),
        live.get("gpus"),
        (row.get("owner") or {}).get("state"),
        (row.get("error") or {}).get("code"),
    )


def table_keys(t: "pa.Table", cluster: str) -> List[Tuple[Any, ...]]:
    out = []
    for r in t.filter(pa.compute.equal(t.column("cluster"), cluster)).to_pylist():
        out.append(
            (
                r["namespace"],
                r["kind"],
                r["name"],
                tuple(r["statuses"]),
                r["desired_pods"],
                r["gpus"],
                r["live_pods"],
                r["ready_pods"],
                r["gpus_held"],
                r["owner_state"],
                r["error_code"],
            )
        )
    return out


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fleet")
    r = subprocess.run(
        [sys.executable, str(GENERATE), str(out), "--clusters", "3", "--workloads-per-cluster", "150",
         "--namespaces", "4", "--seed", "7", "--orphans", "0.05"],
        capture_output=True, text=True, check=False,
    )
    if r.returncode != 0 and "yaml" in r.stderr.lower():
        pytest.skip(f"the generator needs PyYAML: {r.stderr.strip()[-200:]}")
    assert r.returncode == 0, r.stderr
    return out


def test_a_generated_fleet_resolves_as_the_cli_reads_each_snapshot(generated: Path) -> None:
    files = sorted(generated.glob("cluster-*.jsonl.gz"))
    assert len(files) == 3
    snaps = [fleet.read_snapshot(f) for f in files]
    records = pa.concat_tables([s.records for s in snaps])
    # One batch of three clusters, in any order.
    shuffled = records.take(pa.array(list(reversed(range(records.num_rows)))))
    tables = fleet.resolve(shuffled)
    orphans = 0
    for f, s in zip(files, snaps):
        rows = cli("get", "--snapshot", str(f), "-o", "json")["items"]
        cluster = s.header["cluster"]
        assert table_keys(tables.workloads, cluster) == [key_of(r) for r in rows], cluster
        orphans += sum(1 for r in rows if r.get("owner"))
        # top --snapshot adds up what the table holds.
        top = cli("top", "--snapshot", str(f), "-o", "json")
        w = tables.workloads.filter(pa.compute.equal(tables.workloads.column("cluster"), cluster))
        assert pa.compute.sum(w.column("gpus_held")).as_py() == top["total"]["heldGpus"]
    assert orphans > 0
    # Every live pod is in the pods table once, under its workload.
    assert tables.pods.num_rows == pa.compute.sum(tables.workloads.column("live_pods")).as_py()
    assert tables.instances.num_rows > 0
    # Partitioned and resolved partition by partition: the same rows.
    parts = fleet.partition(records)
    resolver = fleet.Resolver()
    pieces = []
    for key in parts.column("partition").unique().to_pylist():
        batch = parts.filter(pa.compute.equal(parts.column("partition"), key))
        pieces.append(resolver(batch))
    by_parts = pa.concat_tables(pieces)
    assert sorted(by_parts.to_pylist(), key=repr) == sorted(tables.workloads.to_pylist(), key=repr)


def test_the_tables_have_the_documented_schemas(generated: Path) -> None:
    s = fleet.read_snapshot(next(generated.glob("cluster-*.jsonl.gz")))
    assert s.records.schema.equals(fleet.RECORDS_SCHEMA, check_metadata=False)
    assert s.records.schema.metadata[b"workload_lens.schema_version"] == b"1"
    assert json.loads(s.records.schema.metadata[b"workload_lens.snapshot_header"])["version"] == 1
    t = fleet.resolve(s.records)
    assert t.workloads.schema.equals(fleet.WORKLOADS_SCHEMA, check_metadata=True)
    assert t.instances.schema.equals(fleet.INSTANCES_SCHEMA, check_metadata=True)
    assert t.pods.schema.equals(fleet.PODS_SCHEMA, check_metadata=True)
    assert fleet.SCHEMA_VERSION == 1
    # The columns docs/fleet.md lists are the schema's.
    doc = (ROOT / "docs" / "fleet.md").read_text()
    for schema in (fleet.WORKLOADS_SCHEMA, fleet.INSTANCES_SCHEMA, fleet.PODS_SCHEMA):
        for f in schema:
            assert f"`{f.name}`" in doc, f.name


def records(rows: List[Tuple[str, str, Any]]) -> "pa.Table":
    return pa.table(
        {
            "cluster": [c for c, _, _ in rows],
            "namespace": [None for _ in rows],
            "roles": [r for _, r, _ in rows],
            "object": [o if isinstance(o, str) else json.dumps(o) for _, _, o in rows],
        },
        schema=fleet.RECORDS_SCHEMA,
    )


JOB = {
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "train", "namespace": "ml", "uid": "job-1"},
    "spec": {"parallelism": 2, "template": {"spec": {"containers": [
        {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "2", "memory": "1Gi"}}}]}}},
}


def pod(name: str, owner: str) -> Dict[str, Any]:
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml", "uid": name,
                     "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "train",
                                          "uid": owner, "controller": True}]},
        "spec": {"nodeName": "n1", "containers": [
            {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }


def test_errors_are_rows_and_the_rest_resolves() -> None:
    t = fleet.resolve(records([
        ("a", "object", JOB),
        ("a", "object,pod", pod("train-0", "job-1")),
        ("a", "object,pod", pod("stray", "gone")),
        ("a", "object", "{not json"),
        ("a", "sideways", JOB),
        ("b", "object", {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}}),
    ]))
    w = {(r["cluster"], r["name"], r["error_code"]): r for r in t.workloads.to_pylist()}
    assert set(w) == {
        ("a", None, "parse"),
        ("a", "train", "usage"),
        ("a", "train", None),
        ("a", "stray", None),
        ("b", "x", "invalid_object"),
    }
    job = w[("a", "train", None)]
    assert (job["desired_pods"], job["live_pods"], job["gpus"], job["gpus_held"]) == (2, 1, 2, 1)
    assert (job["cpu_millis"], job["memory_bytes"]) == (4000, 2 << 30)
    assert job["statuses"] and job["definition"] == "batch-job-v1"
    assert w[("a", "stray", None)]["owner_state"] == "orphaned"
    assert "sideways" in w[("a", "train", "usage")]["error_message"]
    assert t.pods.to_pylist()[0]["pod"] in {"train-0", "stray"}
    # A batch whose columns disagree is the caller's mistake: an exception.
    with pytest.raises(wl.UsageError):
        wl.Catalog()._native.fleet_tables(["a"], [], ["{}"])


def test_unreadable_kinds_come_from_the_snapshot_end(tmp_path: Path) -> None:
    header = {"format": "workload-lens-snapshot", "version": 1, "cluster": "c", "capturedAt": "2026-12-06T00:00:00Z"}
    job = dict(JOB, metadata=dict(JOB["metadata"], ownerReferences=[
        {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "name": "t", "uid": "tj", "controller": True}]))
    lines = [header, {"roles": ["object"], "object": job},
             {"end": {"records": 1, "unreadable": [{"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob"}]}}]
    f = tmp_path / "s.jsonl.gz"
    with gzip.open(f, "wt") as out:
        out.write("".join(json.dumps(l) + "\n" for l in lines))
    s = fleet.read_snapshot(f)
    assert s.records.column("roles").to_pylist() == ["object", "unreadable"]
    row = fleet.resolve(s.records).workloads.to_pylist()[0]
    assert (row["name"], row["owner_state"]) == ("train", "unreadable")
    # The same object without the end's word: orphaned.
    row = fleet.resolve(s.records.slice(0, 1)).workloads.to_pylist()[0]
    assert row["owner_state"] == "orphaned"


def test_bad_snapshots_raise_the_engines_located_errors(tmp_path: Path) -> None:
    header = json.dumps({"format": "workload-lens-snapshot", "version": 1, "cluster": "c", "capturedAt": "x"})
    rec = json.dumps({"roles": ["object"], "object": JOB})
    cases = {
        "cut.jsonl": (header + "\n" + rec + "\n", "cut short", 2),
        "not.jsonl": ('{"kind": "Pod"}\n', "not a workload-lens snapshot", 1),
        "count.jsonl": (header + "\n" + rec + '\n{"end": {"records": 2}}\n', "counts 2 records", 3),
        "role.jsonl": (header + '\n{"roles": ["x"], "object": {}}\n', "not a record", 2),
    }
    for name, (text, words, line) in cases.items():
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(wl.ParseError) as e:
            fleet.read_snapshot(p)
        assert words in str(e.value), name
        assert e.value.location.get("line") == line, (name, e.value.location)
    # A line past maxInputBytes is a LimitError, before it is parsed.
    p = tmp_path / "long.jsonl"
    p.write_text(header + "\n" + json.dumps({"roles": ["object"], "object": {"x": "y" * 5000}}) + "\n")
    with pytest.raises(wl.LimitError):
        fleet.read_snapshot(p, limits={"maxInputBytes": 4096})
    # The records it returns are held: charged to maxClusterBytes.
    p = tmp_path / "many.jsonl"
    p.write_text(header + "\n" + (rec + "\n") * 200 + json.dumps({"end": {"records": 200}}) + "\n")
    assert fleet.read_snapshot(p).records.num_rows == 200
    with pytest.raises(wl.LimitError) as e:
        fleet.read_snapshot(p, limits={"maxClusterBytes": 20_000})
    assert "maxClusterBytes" in str(e.value) and 2 < e.value.location["line"] < 200


def test_catalogs_and_resolvers_pickle_with_their_definitions() -> None:
    mine = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: mine}
spec:
  structureDefinition:
    rootComponent:
      name: main
      kind: {group: ex.test, version: v1, kind: Thing}
      specDefinition: {podTemplateSpecPath: .spec.template}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
"""
    c = wl.Catalog(limits={"maxDepth": 60})
    c.add(mine)
    c2 = pickle.loads(pickle.dumps(c))
    assert [d.name for d in c2.definitions()] == [d.name for d in c.definitions()]
    assert c2.limits()["maxDepth"] == 60
    assert c2.lookup("ex.test/v1", "Thing") is not None
    r = pickle.loads(pickle.dumps(fleet.Resolver("pods", catalog=c)))
    assert r.table == "pods" and r.schema.equals(fleet.PODS_SCHEMA)
    thing = {"apiVersion": "ex.test/v1", "kind": "Thing", "metadata": {"name": "t", "namespace": "ns", "uid": "t1"},
             "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    out = fleet.Resolver(catalog=c2)(records([("a", "object", thing)]))
    assert out.to_pylist()[0]["definition"] == "mine"
    with pytest.raises(ValueError):
        fleet.Resolver("nodes")


def test_a_batch_releases_the_gil(generated: Path) -> None:
    # Two threads resolve at once and a third counts: with the GIL held
    # through a batch, the counter would stall for the whole batch.
    recs = pa.concat_tables([fleet.read_snapshot(f).records for f in sorted(generated.glob("*.jsonl.gz"))])
    big = pa.concat_tables([recs] * 4)
    ticks = []
    done = threading.Event()

    def count() -> None:
        while not done.is_set():
            ticks.append(1)

    # The columns as the call takes them, made beforehand: the one native
    # call is then measured alone (a C call that kept the GIL would let no
    # Python bytecode of the counter run until it returns).
    cols = [big.column(n).to_pylist() for n in ("cluster", "roles", "object")]
    native = wl.Catalog()._native
    counter = threading.Thread(target=count)
    counter.start()
    try:
        before = len(ticks)
        native.fleet_tables(*cols)
        during = len(ticks) - before
    finally:
        done.set()
        counter.join()
    assert during > 100, during


LIVE = os.environ.get("WORKLOAD_LENS_LIVE_DIR")


@pytest.mark.skipif(not LIVE, reason="no live test API server (WORKLOAD_LENS_LIVE_DIR)")
def test_a_snapshot_of_the_live_cluster_resolves_as_get_did(tmp_path: Path) -> None:
    assert LIVE
    for kubeconfig in ("kubeconfig", "kubeconfig-viewer"):
        kc = str(Path(LIVE) / kubeconfig)
        f = tmp_path / f"{kubeconfig}.jsonl.gz"
        r = subprocess.run([cli_path(), "snapshot", "-o", str(f), "--cluster-name", "live", "--kubeconfig", kc],
                           capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stderr
        rows = cli("get", "-A", "-o", "json", "--kubeconfig", kc)["items"]
        t = fleet.resolve(fleet.read_snapshot(f).records)
        assert table_keys(t.workloads, "live") == [key_of(r) for r in rows], kubeconfig
