"""The one-process recipes of docs/fleet.md (to Parquet, DuckDB) run as
written: their ```python blocks, in order, in one namespace, in a fresh
directory holding a generated fleet (bench/fleet/generate.py: three
clusters) in snapshots/. Each answer is then checked against the same sum
made with pyarrow on the tables resolved here. (The Ray and Spark recipes:
test_distributed.py, in the fleet stage.)

    .venv/bin/python -m pytest testing/fleet -q

Needs the built package with pyarrow and duckdb (bindings-python/test.sh
installs them into .venv).
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Dict

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

from workload_lens import fleet  # noqa: E402

from recipes import generate, recipe_blocks, run_blocks  # noqa: E402


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    work = tmp_path_factory.mktemp("recipes")
    generate(work)
    blocks = recipe_blocks("To Parquet", "DuckDB")
    assert len(blocks) == 2
    scope = run_blocks(blocks, work)
    tables = [fleet.resolve(fleet.read_snapshot(p).records) for p in sorted((work / "snapshots").glob("*.jsonl.gz"))]
    scope["_workloads"] = pa.concat_tables([t.workloads for t in tables])
    scope["_work"] = work
    return scope


def test_parquet_holds_the_tables(ran: Dict[str, Any]) -> None:
    import pyarrow.parquet as pq

    w = pq.read_table(ran["_work"] / "fleet-parquet" / "workloads")
    assert w.num_rows == ran["_workloads"].num_rows > 600


def test_gpus_by_namespace_and_type(ran: Dict[str, Any]) -> None:
    want: Dict[tuple, list] = defaultdict(lambda: [set(), 0, 0, 0])
    for r in ran["_workloads"].to_pylist():
        if r["error_code"] is None:
            w = want[(r["namespace"], r["kind"])]
            w[0].add(r["cluster"])
            w[1] += 1
            w[2] += r["gpus"] or 0
            w[3] += r["gpus_held"] or 0
    got = {(ns, kind): (clusters, n, gpus, held) for ns, kind, clusters, n, gpus, held in ran["gpus_by_namespace_and_type"]}
    assert got == {k: (len(v[0]), v[1], v[2], v[3]) for k, v in want.items()}
    assert len(got) > 10


def test_waiting_longest(ran: Dict[str, Any]) -> None:
    rows = [r for r in ran["_workloads"].to_pylist() if "Initializing" in r["statuses"] and (r["gpus"] or 0) > 0]
    rows.sort(key=lambda r: (r["created"], r["cluster"], r["namespace"], r["name"]))
    want = [(r["cluster"], r["namespace"], r["kind"], r["name"], r["created"], r["gpus"]) for r in rows[:10]]
    assert ran["waiting_longest"] == want
    assert len(want) == 10


def test_lone_pods_per_cluster(ran: Dict[str, Any]) -> None:
    want: Dict[str, list] = defaultdict(lambda: [0, 0, 0])
    for r in ran["_workloads"].to_pylist():
        if r["kind"] == "Pod" and r["api_version"] == "v1":
            w = want[r["cluster"]]
            w[0] += int(r["owner_state"] == "orphaned")
            w[1] += int(r["owner_state"] is None)
            w[2] += r["gpus_held"] or 0
    assert ran["lone_pods_per_cluster"] == [(c, *v) for c, v in sorted(want.items())]
    # The generator's --orphans made some in every cluster.
    assert all(v[0] > 0 for v in want.values()) and len(want) == 3


def test_look_alikes_per_cluster(ran: Dict[str, Any]) -> None:
    pods = pa.concat_tables(
        [fleet.resolve(fleet.read_snapshot(p).records).pods for p in sorted((ran["_work"] / "snapshots").glob("*.jsonl.gz"))]
    ).to_pylist()
    want: Dict[str, list] = defaultdict(lambda: [0, set(), 0])
    for r in pods:
        if r["looks_like"] is not None:
            w = want[r["cluster"]]
            w[0] += 1
            w[1].add(r["looks_like_uid"])
            w[2] += r["gpus"]
    assert ran["look_alikes_per_cluster"] == [(c, n, len(u), g) for c, (n, u, g) in sorted(want.items())]
    # The generator's orphans carry a neighbour's labels: some look alike.
    assert len(want) == 3 and all(v[0] > 0 for v in want.values()), dict(want)
