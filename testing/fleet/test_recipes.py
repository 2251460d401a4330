"""The recipes of docs/fleet.md ("## Recipes") run as written: every
```python block of that section, in order, in one namespace, in a fresh
directory holding a generated fleet (bench/fleet/generate.py: three
clusters) in snapshots/. Each answer is then checked against the same sum
made with pyarrow on the tables resolved here.

    .venv/bin/python -m pytest testing/fleet -q

Needs the built package with pyarrow and duckdb (bindings-python/test.sh
installs them into .venv).
"""
from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Dict

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

from workload_lens import fleet  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fleet.md"


def recipe_blocks() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Recipes\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```python\n(.*?)^```", section, re.S | re.M)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    work = tmp_path_factory.mktemp("recipes")
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fleet" / "generate.py"), str(work / "snapshots"),
         "--clusters", "3", "--workloads-per-cluster", "200", "--namespaces", "5", "--seed", "3",
         "--orphans", "0.05"],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode == 0, r.stderr
    blocks = recipe_blocks()
    assert len(blocks) >= 2
    scope: Dict[str, Any] = {"__name__": "__recipes__"}
    import os

    old = os.getcwd()
    os.chdir(work)
    try:
        for i, code in enumerate(blocks):
            exec(compile(code, f"{DOC}:recipe {i}", "exec"), scope)
    finally:
        os.chdir(old)
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
