"""Checks bench/fleet/generate.py against the CLI that reads its snapshots.

    WORKLOAD_LENS_BIN=target/debug/workload-lens python -m pytest bench/fleet -q

The CLI is $WORKLOAD_LENS_BIN, else `workload-lens` on PATH, else
$CARGO_TARGET_DIR/debug/workload-lens or target/debug/workload-lens; without
one the tests that need it are skipped. Needs PyYAML (the generator reads the
fixtures with it). A few seconds.
"""
from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
GENERATE = HERE / "generate.py"
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True
import generate  # noqa: E402

CLUSTERS = 3
WORKLOADS = 200


def cli_path() -> str | None:
    env = os.environ.get("WORKLOAD_LENS_BIN")
    if env:
        return env
    found = shutil.which("workload-lens")
    if found:
        return found
    targets = [Path(os.environ["CARGO_TARGET_DIR"])] if os.environ.get("CARGO_TARGET_DIR") else []
    for t in targets + [ROOT / "target"]:
        p = t / "debug" / "workload-lens"
        if p.is_file():
            return str(p)
    return None


@pytest.fixture(scope="module")
def cli() -> str:
    p = cli_path()
    if p is None or not os.access(p, os.X_OK):
        pytest.skip("no workload-lens CLI: set WORKLOAD_LENS_BIN, put it on PATH, or build target/debug/workload-lens")
    return p


def run_generate(out: Path, *args: str) -> dict:
    """Runs the generator; returns its manifest."""
    r = subprocess.run([sys.executable, str(GENERATE), str(out), *args], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[-1].startswith("total: "), r.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(lines) == len(manifest["clusters"]) + 1  # one line per cluster, then the totals
    return manifest


def get(cli: str, path: Path) -> dict:
    r = subprocess.run([cli, "get", "--snapshot", str(path), "-o", "json"], capture_output=True, text=True,
                       check=False)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["count"] == len(out["items"])
    return out


def records(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            yield json.loads(line)


@pytest.fixture(scope="module")
def fleet(tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("fleet")
    return out, run_generate(out, "--clusters", str(CLUSTERS), "--workloads-per-cluster", str(WORKLOADS),
                             "--namespaces", "6", "--seed", "1")


def test_files_are_snapshots_with_whole_chains(fleet):
    """Without the CLI: the format, the roles, unique uids, and every pod's
    controller chain ends at a top-level object of its namespace."""
    out, manifest = fleet
    assert [c["file"] for c in manifest["clusters"]] == [f"cluster-{i:03d}.jsonl.gz" for i in range(CLUSTERS)]
    for c in manifest["clusters"]:
        lines = list(records(out / c["file"]))
        header, body, end = lines[0], lines[1:-1], lines[-1]
        assert header["format"] == "workload-lens-snapshot" and header["version"] == 1
        assert header["cluster"] == c["cluster"]
        assert end == {"end": {"records": len(body), "warnings": [], "forbidden": [], "unreadable": [],
                               "types": [], "served": []}}
        assert len(body) == c["records"]
        by_uid = {}
        for r in body:
            o = r["object"]
            uid = o["metadata"]["uid"]
            assert uid not in by_uid, f"uid {uid} twice"
            by_uid[uid] = o
            if o["kind"] == "Pod":
                assert r["roles"] == ["object", "pod"]
            else:
                assert r["roles"] in (["object"], ["owner"])
        pods = [o for o in by_uid.values() if o["kind"] == "Pod"]
        assert len(pods) == c["pods"]
        names = Counter((o["metadata"]["namespace"], o["kind"], o["metadata"]["name"]) for o in by_uid.values())
        assert max(names.values()) == 1, names.most_common(3)
        tops = set()
        for p in pods:
            o, seen = p, 0
            while True:
                refs = [r for r in o["metadata"].get("ownerReferences") or [] if r.get("controller")]
                if not refs:
                    break
                ref = refs[0]
                owner = by_uid.get(ref["uid"])
                assert owner is not None, f"pod {p['metadata']['name']}: controller {ref['kind']} {ref['name']} missing"
                assert (owner["kind"], owner["metadata"]["name"]) == (ref["kind"], ref["name"])
                assert owner["metadata"]["namespace"] == p["metadata"]["namespace"]
                o, seen = owner, seen + 1
                assert seen < 10
            tops.add(o["metadata"]["uid"])
        # The top of every chain is one of the workloads (or a Pod of its own).
        top_level = {u for u, o in by_uid.items()
                     if not any(r.get("controller") for r in o["metadata"].get("ownerReferences") or [])}
        assert tops <= top_level
        assert len(top_level) == c["workloads"]


def test_one_row_per_workload_with_its_pods(cli, fleet):
    out, manifest = fleet
    kinds, statuses = Counter(), Counter()
    for c in manifest["clusters"]:
        got = get(cli, out / c["file"])
        rows = got["items"]
        assert got["count"] == c["workloads"] == WORKLOADS
        assert [r["name"] for r in rows if r.get("error")] == []
        assert [r["name"] for r in rows if r.get("owner")] == []
        # Every pod not finished is counted in its workload's row.
        assert sum(r["live"]["pods"] for r in rows) == c["livePods"]
        assert c["pods"] - c["livePods"] < c["pods"] / 20  # few Succeeded/Failed pods
        # Each row resolves to what the fixture's expect.yaml says.
        assert Counter("+".join(r["statuses"]) for r in rows) == Counter(c["statuses"])
        assert Counter(r["kind"] for r in rows) == Counter(c["kinds"])
        kinds.update(r["kind"] for r in rows)
        statuses.update(s for r in rows for s in r["statuses"])
    assert len(kinds) >= 8, kinds
    assert len(statuses) >= 4, statuses


def test_top_counts_the_same(cli, fleet):
    out, manifest = fleet
    c = manifest["clusters"][0]
    r = subprocess.run([cli, "top", "--snapshot", str(out / c["file"]), "-o", "json"], capture_output=True,
                       text=True, check=False)
    assert r.returncode == 0, r.stderr
    total = json.loads(r.stdout)["total"]
    assert total["workloads"] == c["workloads"]
    assert total["heldPods"] == c["livePods"]
    assert total["errors"] == 0


def test_orphans(cli, tmp_path):
    manifest = run_generate(tmp_path, "--clusters", "1", "--workloads-per-cluster", str(WORKLOADS),
                            "--orphans", "0.1", "--seed", "2")
    c = manifest["clusters"][0]
    assert 5 <= c["orphans"] <= 40  # about a tenth of 200
    rows = get(cli, tmp_path / c["file"])["items"]
    orphaned = [r for r in rows if r.get("owner")]
    assert len(rows) == c["rows"] == c["workloads"] + c["orphans"]
    assert len(orphaned) == c["orphans"]
    assert {r["owner"]["state"] for r in orphaned} == {"orphaned"}
    assert {r["kind"] for r in orphaned} == {"Pod"}
    assert sum(r["live"]["pods"] for r in rows) == c["livePods"]


def test_every_fixture_resolves_as_expected(cli, tmp_path):
    """Each fixture state once: its row has expect.yaml's statuses, desired
    pods and GPUs, and counts every pod generated with it."""
    ts = generate.templates()
    run_generate(tmp_path, "--workloads-per-cluster", str(len(ts)), "--every-fixture", "--namespaces", "1")
    rows = get(cli, tmp_path / "cluster-000.jsonl.gz")["items"]
    assert len(rows) == len(ts)
    by_number = {int(r["name"][-5:]): r for r in rows}
    wrong = []
    for i, t in enumerate(ts):
        r = by_number[i]
        expect = generate.expectations(t.definition)[t.state]
        got = (r["kind"], r["statuses"], r.get("pods"), r.get("gpus"), r["live"]["pods"], r.get("error"),
               r.get("owner"))
        want = (t.kind, expect["statuses"], expect["pods"], expect["gpu"], t.live_pods, None, None)
        if got != want:
            wrong.append(f"{t.definition}/{t.state}: got {got}, want {want}")
    assert wrong == []


def test_deterministic(tmp_path):
    args = ("--clusters", "2", "--workloads-per-cluster", "150", "--seed", "7", "--orphans", "0.05")
    run_generate(tmp_path / "a", *args)
    run_generate(tmp_path / "b", *args)
    run_generate(tmp_path / "c", *args[:-3], "8", *args[-2:])
    for f in ("cluster-000.jsonl.gz", "cluster-001.jsonl.gz", "manifest.json"):
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes(), f
    assert (tmp_path / "a" / "cluster-000.jsonl.gz").read_bytes() != (tmp_path / "c" / "cluster-000.jsonl.gz").read_bytes()
