"""A smoke run of bench.py at tiny sizes: it runs, its figures have the
shape the report and docs/performance.md read, and the plain loop and
fleet.resolve agree on every workload's desired pods and GPUs (--check).
Speed is not asserted: bench.py measures it."""
from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("workload_lens.fleet")

HERE = pathlib.Path(__file__).resolve().parent


def test_a_tiny_run_has_every_figure_and_both_paths_agree(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "bench.json"
    data = tmp_path / "fleet"
    r = subprocess.run(
        [sys.executable, str(HERE / "bench.py"), "--clusters", "3", "--workloads-per-cluster", "60",
         "--loop-clusters", "2", "--skip-ray", "--check", "--data", str(data), "--json", str(out)],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(out.read_text())
    one = res["one_process"]
    assert one["clusters"] == 3 and one["errors"] == 0
    # Each cluster's 60 workloads are its rows; the records are more (pods,
    # owners between).
    assert one["workloads"] == 180 and one["records"] > one["workloads"]
    assert one["resolve_records_per_s"] > 0 and one["peak_rss_mib"] > 0
    loop = res["plain_loop"]
    assert loop["clusters"] == 2 and loop["mismatches"] == [] and loop["failed"] == 0
    assert loop["resolved"] > 0 and loop["fleet_over_loop"] > 0
    assert "fleet.resolve / plain loop" in r.stdout
    # The generated fleet is removed (no --keep).
    assert not data.exists()


def test_a_difference_between_the_paths_fails_the_run(tmp_path: pathlib.Path) -> None:
    # The check compares what it is given: a loop that miscounts the
    # desired pods is reported and fails the run.
    spec = importlib.util.spec_from_file_location("fleet_bench", HERE / "bench.py")
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    import workload_lens as wl

    real = wl.Catalog.resolve

    def off_by_one(self, obj, pods=None):  # type: ignore[no-untyped-def]
        r = real(self, obj, pods)
        r["totals"]["pods"] += 1
        return r

    wl.Catalog.resolve = off_by_one  # type: ignore[method-assign]
    try:
        code = bench.main(["--clusters", "1", "--workloads-per-cluster", "40", "--loop-clusters", "1", "--skip-ray",
                           "--skip-one-process", "--check", "--data", str(tmp_path / "fleet")])
    finally:
        wl.Catalog.resolve = real  # type: ignore[method-assign]
    assert code == 1
