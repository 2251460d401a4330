"""The Ray Data and PySpark recipes of docs/fleet.md run as written, on a
local Ray with 2 CPUs and Spark local[2], over a generated fleet (three
clusters) and over a snapshot of the live test API server when there is one
(WORKLOAD_LENS_LIVE_DIR; the fleet stage starts one). Each gives, row for
row, what fleet.resolve gives in one process, and the live snapshot's rows
are what `workload-lens get -A -o json` says.

    bash scripts/test.sh fleet

Needs ray[data] and pyspark (the fleet stage installs the versions
docs/fleet.md pins) and Java 17+ for Spark.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

pa = pytest.importorskip("pyarrow")
pytest.importorskip("ray")
pytest.importorskip("pyspark")

from workload_lens import fleet  # noqa: E402

from recipes import ROOT, generate, recipe_blocks, run_blocks  # noqa: E402

LIVE = os.environ.get("WORKLOAD_LENS_LIVE_DIR")


def cli() -> str:
    target = Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
    p = os.environ.get("WORKLOAD_LENS_BIN") or str(target / "debug" / "workload-lens")
    if not Path(p).is_file():
        pytest.skip(f"no CLI at {p}")
    return p


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    w = tmp_path_factory.mktemp("distributed")
    generate(w, clusters=3, workloads=150)
    if LIVE:
        # The live test cluster's snapshot beside the generated ones, and
        # what `get -A -o json` said of it.
        kc = str(Path(LIVE) / "kubeconfig")
        snap = w / "snapshots" / "live.jsonl.gz"
        r = subprocess.run([cli(), "snapshot", "-o", str(snap), "--cluster-name", "live", "--kubeconfig", kc],
                           capture_output=True, text=True, check=False)
        assert r.returncode == 0, r.stderr
        got = subprocess.run([cli(), "get", "-A", "-o", "json", "--kubeconfig", kc],
                             capture_output=True, text=True, check=True)
        (w / "live-get.json").write_text(got.stdout)
    return w


def rows(t: "pa.Table") -> List[Dict[str, Any]]:
    out = t.select(fleet.WORKLOADS_SCHEMA.names).to_pylist()
    return sorted(out, key=lambda r: (r["cluster"], r["namespace"] or "", r["kind"] or "", r["name"] or "",
                                      r["error_code"] or ""))


def expected(work: Path) -> List[Dict[str, Any]]:
    tables = [fleet.resolve(fleet.read_snapshot(p).records) for p in sorted((work / "snapshots").glob("*.jsonl.gz"))]
    return rows(pa.concat_tables([t.workloads for t in tables]))


def test_ray_data_resolves_as_one_process_does(work: Path) -> None:
    shutil.rmtree(work / "fleet-ray", ignore_errors=True)
    scope = run_blocks(recipe_blocks("Ray Data"), work)
    got = rows(scope["ray_table"])
    assert got == expected(work)
    assert len(got) > 450
    assert pa.parquet.read_table(work / "fleet-ray" / "workloads").num_rows == len(got)
    if LIVE:
        check_live(scope["ray_table"], work)


def test_pyspark_resolves_as_one_process_does(work: Path) -> None:
    scope = run_blocks(recipe_blocks("PySpark"), work)
    t = scope["spark_table"]
    # Spark's int64 counts, read back as the documented unsigned ones.
    got = rows(t.cast(fleet.signed(fleet.WORKLOADS_SCHEMA)).cast(fleet.WORKLOADS_SCHEMA))
    assert got == expected(work)
    if LIVE:
        check_live(t, work)


def check_live(t: "pa.Table", work: Path) -> None:
    live = t.filter(pa.compute.equal(t.column("cluster"), "live")).to_pylist()
    live.sort(key=lambda r: (r["namespace"] or "", r["name"], r["kind"]))
    items = json.loads((work / "live-get.json").read_text())["items"]
    items.sort(key=lambda r: (r.get("namespace") or "", r["name"], r["kind"]))
    assert len(live) == len(items) > 30
    for r, g in zip(live, items):
        assert (r["namespace"], r["kind"], r["name"]) == (g.get("namespace"), g["kind"], g["name"])
        assert (r["desired_pods"], r["gpus"]) == (g["pods"], g["gpus"]), g["name"]
        assert (r["live_pods"], r["ready_pods"], r["gpus_held"]) == (
            g["live"]["pods"], g["live"]["ready"], g["live"]["gpus"]), g["name"]
        assert r["statuses"] == g["statuses"], g["name"]
        assert r["owner_state"] == (g.get("owner") or {}).get("state"), g["name"]
