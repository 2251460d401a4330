#!/usr/bin/env python3
"""The fleet benchmark (docs/performance.md, "Fleet at scale").

    python bench/fleet/bench.py [--clusters 100] [--workloads-per-cluster 10000]
        [--loop-clusters 2] [--ray-workers 2] [--skip-ray] [--kapi DIR] [--json FILE]

1. Generates the fleet with generate.py into --data (default
   ~/.cache/workload-lens/fleet-bench/C-W; reused when its manifest is the
   same; deleted at the end unless --keep).
2. One process: each snapshot read (`fleet.read_snapshot`) and resolved
   (`fleet.resolve`, the Arrow path) in turn; records (objects) per second
   on the one core it runs on, and the process's peak RSS.
3. The plain loop a user would write over the first --loop-clusters
   clusters: `json.loads` of each record, and the package's per-object
   `Catalog.resolve` on each object of a covered type. It is a per-object
   rate, so a subset measures it; `fleet.resolve` over the same clusters,
   in the same run, gives the ratio.
4. Ray Data on a local Ray with --ray-workers CPUs: the docs/fleet.md
   recipe (`map_batches` with `SnapshotResolver` actors, batch_size=1)
   with concurrency 1, then --ray-workers, over the same files; wall time,
   speed-up, and each actor process's peak RSS (VmHWM).
5. With --kapi DIR (a test API server seeded by bench/serve/serve_bench.py
   --seed-only; bench/fleet/run.sh does it all): `workload-lens snapshot`
   timed against it, then `get --snapshot FILE -A -o json`, and
   `fleet.read_snapshot` + `fleet.resolve` of the file.

Prints a table, and --json FILE writes the figures. --check makes the
plain loop and `fleet.resolve` compare their rows (bench/fleet/test_bench.py
runs it at tiny sizes).
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def hwm_mib() -> float:
    """This process's peak RSS (VmHWM), MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def generate(data: pathlib.Path, clusters: int, workloads: int, seed: str) -> Dict[str, Any]:
    args = {"clusters": clusters, "workloads_per_cluster": workloads, "seed": seed}
    stamp = data / "bench-args.json"
    if stamp.exists() and json.loads(stamp.read_text()) == args:
        print(f"fleet: reusing {data}", flush=True)
        return {"seconds": None, "reused": True}
    shutil.rmtree(data, ignore_errors=True)
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, str(HERE / "generate.py"), str(data), "--clusters", str(clusters),
         "--workloads-per-cluster", str(workloads), "--seed", seed],
        check=True, stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - t
    stamp.write_text(json.dumps(args))
    return {"seconds": round(seconds, 1), "reused": False}


def one_process(paths: List[pathlib.Path]) -> Dict[str, Any]:
    """Each snapshot read and resolved in turn, in this process."""
    from workload_lens import fleet

    fleet._default_catalog()  # compiled once, outside the timings
    read_s = resolve_s = 0.0
    records = rows = pods = errors = 0
    for p in paths:
        t = time.perf_counter()
        snap = fleet.read_snapshot(p)
        t1 = time.perf_counter()
        tables = fleet.resolve(snap.records)
        t2 = time.perf_counter()
        read_s += t1 - t
        resolve_s += t2 - t1
        records += snap.records.num_rows
        rows += tables.workloads.num_rows
        pods += tables.pods.num_rows
        errors += tables.workloads.column("error_code").drop_null().__len__()
        del snap, tables
        gc.collect()
    return {
        "clusters": len(paths), "records": records, "workloads": rows, "pods": pods, "errors": errors,
        "read_s": round(read_s, 2), "resolve_s": round(resolve_s, 2),
        "read_records_per_s": round(records / read_s), "resolve_records_per_s": round(records / resolve_s),
        "peak_rss_mib": round(hwm_mib()),
    }


def plain_loop(paths: List[pathlib.Path], check: bool) -> Dict[str, Any]:
    """What a user writes without the Arrow path: each record's object
    parsed with json.loads, and the package's resolve called on each object
    of a covered type; against fleet.resolve over the same records."""
    import workload_lens as wl
    from workload_lens import fleet

    catalog = fleet._default_catalog()
    loop_s = fleet_s = 0.0
    records = resolved = failed = 0
    mismatches: List[str] = []
    for p in paths:
        snap = fleet.read_snapshot(p)
        t = time.perf_counter()
        results = {}
        for roles, text in zip(snap.records.column("roles").to_pylist(), snap.records.column("object").to_pylist()):
            obj = json.loads(text)
            records += 1
            if "object" not in roles.split(","):
                continue
            if catalog.lookup(obj.get("apiVersion", ""), obj.get("kind", "")) is None:
                continue
            try:
                r = catalog.resolve(obj)
                resolved += 1
            except wl.WorkloadLensError:
                failed += 1
                continue
            if check and not any(o.get("controller") for o in obj["metadata"].get("ownerReferences") or []):
                m = obj["metadata"]
                results[(m.get("namespace"), obj["kind"], m["name"])] = (
                    r["totals"]["pods"], int(r["totals"].get("resources", {}).get("gpu", 0)))
        loop_s += time.perf_counter() - t
        t = time.perf_counter()
        tables = fleet.resolve(snap.records)
        fleet_s += time.perf_counter() - t
        if check:
            w = tables.workloads.to_pylist()
            got = {(r["namespace"], r["kind"], r["name"]): (r["desired_pods"], r["gpus"]) for r in w if r["error_code"] is None}
            if got != results:
                for k in sorted(set(got) | set(results), key=str):
                    if got.get(k) != results.get(k):
                        mismatches.append(f"{p.name} {k}: fleet {got.get(k)}, loop {results.get(k)}")
        del snap, tables
    out = {
        "clusters": len(paths), "records": records, "resolved": resolved, "failed": failed,
        "loop_s": round(loop_s, 2), "fleet_s": round(fleet_s, 2),
        "loop_records_per_s": round(records / loop_s), "fleet_records_per_s": round(records / fleet_s),
        "fleet_over_loop": round(loop_s / fleet_s, 2),
    }
    if check:
        out["mismatches"] = mismatches[:20]
    return out


def ray_run(paths: List[pathlib.Path], workers: int) -> Dict[str, Any]:
    """The docs/fleet.md recipe with concurrency 1, then `workers`, on a
    local Ray of `workers` CPUs."""
    import pyarrow as pa
    import ray
    from workload_lens import fleet

    class Measured(fleet.SnapshotResolver):
        """SnapshotResolver that adds its process's id and peak RSS to
        each batch's rows (dropped by the driver)."""

        def __call__(self, batch: Any) -> Any:
            t = super().__call__(batch)
            n = t.num_rows
            # (Read here, not with hwm_mib: the class travels to the workers
            # by value, and this module is not importable there.) VmHWM
            # counts the pages of Ray's object store the worker touched
            # (shared memory: RssShmem, or RssFile when the store is a file)
            # and the libraries mapped (RssFile); RssAnon, taken after each
            # batch, is the worker's own.
            with open("/proc/self/status") as f:
                status = {l.split(":")[0]: int(l.split()[1]) / 1024 for l in f if l.endswith("kB\n")}
            t = t.append_column("bench_pid", pa.array([os.getpid()] * n, pa.int64()))
            for key in ("VmHWM", "RssAnon", "RssFile", "RssShmem"):
                t = t.append_column(f"bench_{key}", pa.array([status.get(key, 0.0)] * n, pa.float64()))
            return t

    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False)
    out: Dict[str, Any] = {"workers": workers, "clusters": len(paths), "runs": {}}
    try:
        for concurrency in (1, workers):
            items = ray.data.from_items([{"path": str(p)} for p in paths])
            ds = items.map_batches(
                Measured,
                fn_constructor_kwargs={"table": "workloads"},
                batch_format="pyarrow",
                batch_size=1,
                concurrency=concurrency,
            )
            t = time.perf_counter()
            rows = 0
            peaks: Dict[str, Dict[int, float]] = {"VmHWM": {}, "RssAnon": {}, "RssFile": {}, "RssShmem": {}}
            for ref in ds.to_arrow_refs():
                tab = ray.get(ref)
                rows += tab.num_rows
                if not tab.num_rows:
                    continue
                pid = tab.column("bench_pid")[0].as_py()
                for key, by_pid in peaks.items():
                    by_pid[pid] = max(by_pid.get(pid, 0.0), tab.column(f"bench_{key}")[0].as_py())
            seconds = time.perf_counter() - t
            out["runs"][concurrency] = {
                "seconds": round(seconds, 2), "workloads": rows,
                "worker_peak_rss_mib": [round(peaks["VmHWM"][p]) for p in sorted(peaks["VmHWM"])],
                "worker_max_rss_anon_mib": [round(peaks["RssAnon"][p]) for p in sorted(peaks["VmHWM"])],
                "worker_max_rss_file_mib": [round(peaks["RssFile"][p]) for p in sorted(peaks["VmHWM"])],
                "worker_max_rss_shmem_mib": [round(peaks["RssShmem"][p]) for p in sorted(peaks["VmHWM"])],
            }
            print(f"ray, {concurrency} worker(s): {seconds:.1f} s, {rows} rows", flush=True)
    finally:
        ray.shutdown()
    one, many = out["runs"][1]["seconds"], out["runs"][workers]["seconds"]
    out["speedup"] = round(one / many, 2)
    return out


def snapshot_run(kapi: pathlib.Path, binary: str, work: pathlib.Path) -> Dict[str, Any]:
    """`workload-lens snapshot` against a seeded test API server, and the
    file read back by the CLI and by workload_lens.fleet."""
    from workload_lens import fleet

    kubeconfig = str(kapi / "kubeconfig")
    f = work / "kapi-snapshot.jsonl.gz"
    t = time.perf_counter()
    r = subprocess.run([binary, "snapshot", "-o", str(f), "--kubeconfig", kubeconfig, "--cluster-name", "kapi"],
                       capture_output=True, text=True, check=True)
    write_s = time.perf_counter() - t
    t = time.perf_counter()
    g = subprocess.run([binary, "get", "--snapshot", str(f), "-A", "-o", "json"], capture_output=True, check=True)
    get_s = time.perf_counter() - t
    listed = json.loads(g.stdout)
    t = time.perf_counter()
    snap = fleet.read_snapshot(f)
    t1 = time.perf_counter()
    tables = fleet.resolve(snap.records)
    t2 = time.perf_counter()
    return {
        "summary": r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "",
        "bytes": f.stat().st_size, "records": snap.records.num_rows,
        "workloads": tables.workloads.num_rows, "pods": tables.pods.num_rows,
        "get_rows": len(listed.get("items", listed) if isinstance(listed, dict) else listed),
        "write_s": round(write_s, 2), "get_snapshot_s": round(get_s, 2),
        "read_snapshot_s": round(t1 - t, 2), "resolve_s": round(t2 - t1, 2),
    }


def machine() -> Dict[str, Any]:
    import pyarrow
    import workload_lens

    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    return {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cpu": cpu, "cores": os.cpu_count(),
        "python": platform.python_version(), "pyarrow": pyarrow.__version__,
        "workload_lens": getattr(workload_lens, "__version__", "?"), "workload_lens_path": workload_lens.__file__,
        "load_start": os.getloadavg(),
    }


def report(m: Dict[str, Any], res: Dict[str, Any]) -> None:
    print(f"\nmachine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, pyarrow {m['pyarrow']}, "
          f"load at start {m['load_start'][0]:.2f}, {m['date']}")
    o = res.get("one_process")
    if o:
        print(f"\none process, {o['clusters']} clusters: {o['records']:,} records -> {o['workloads']:,} workloads, "
              f"{o['pods']:,} pods ({o['errors']} error rows)")
        print("| step | seconds | records/s (one core) |\n|---|---:|---:|")
        print(f"| fleet.read_snapshot | {o['read_s']} | {o['read_records_per_s']:,} |")
        print(f"| fleet.resolve | {o['resolve_s']} | {o['resolve_records_per_s']:,} |")
        print(f"peak RSS of the process: {o['peak_rss_mib']} MiB")
    p = res.get("plain_loop")
    if p:
        print(f"\nplain loop vs fleet.resolve, same {p['clusters']} clusters, same run "
              f"({p['records']:,} records, {p['resolved']:,} objects resolved one by one, {p['failed']} failed):")
        print("| path | seconds | records/s (one core) |\n|---|---:|---:|")
        print(f"| json.loads + Catalog.resolve per object | {p['loop_s']} | {p['loop_records_per_s']:,} |")
        print(f"| fleet.resolve | {p['fleet_s']} | {p['fleet_records_per_s']:,} |")
        print(f"fleet.resolve / plain loop: {p['fleet_over_loop']}x")
    r = res.get("ray")
    if r:
        print(f"\nRay Data, {r['clusters']} clusters, local Ray with {r['workers']} CPUs:")
        print("| workers | seconds | workloads | peak RSS per worker, VmHWM (MiB) | most RssAnon / RssFile / RssShmem after a batch (MiB) |")
        print("|---:|---:|---:|---|---|")
        for n, run in r["runs"].items():
            own = ", ".join(f"{a} / {f} / {s}" for a, f, s in zip(
                run["worker_max_rss_anon_mib"], run["worker_max_rss_file_mib"], run["worker_max_rss_shmem_mib"]))
            print(f"| {n} | {run['seconds']} | {run['workloads']:,} | {', '.join(map(str, run['worker_peak_rss_mib']))} | {own} |")
        print(f"speed-up: {r['speedup']}x")
    s = res.get("snapshot")
    if s:
        print(f"\nsnapshot of the test API server: {s['records']:,} records, {s['workloads']:,} workloads, "
              f"{s['pods']:,} pods, {s['bytes']:,} bytes")
        print("| step | seconds |\n|---|---:|")
        for k in ("write_s", "get_snapshot_s", "read_snapshot_s", "resolve_s"):
            print(f"| {k[:-2]} | {s[k]} |")


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clusters", type=int, default=100)
    ap.add_argument("--workloads-per-cluster", type=int, default=10000)
    ap.add_argument("--seed", default="bench")
    ap.add_argument("--data", help="where the fleet is generated (default ~/.cache/workload-lens/fleet-bench/C-W)")
    ap.add_argument("--keep", action="store_true", help="keep the generated fleet (reused by the next run)")
    ap.add_argument("--loop-clusters", type=int, default=2, help="clusters the plain loop runs over (0: none)")
    ap.add_argument("--ray-workers", type=int, default=2)
    ap.add_argument("--skip-ray", action="store_true")
    ap.add_argument("--skip-one-process", action="store_true")
    ap.add_argument("--kapi", help="a seeded test API server's directory: time snapshot against it")
    ap.add_argument("--binary", default=str(ROOT / "target" / "release" / "workload-lens"))
    ap.add_argument("--check", action="store_true", help="the plain loop and fleet.resolve must agree on each row")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)

    base = pathlib.Path(args.data) if args.data else pathlib.Path.home() / ".cache" / "workload-lens" / "fleet-bench" / f"{args.clusters}-{args.workloads_per_cluster}"
    base.mkdir(parents=True, exist_ok=True)
    m = machine()
    res: Dict[str, Any] = {"machine": m, "args": vars(args)}
    try:
        res["generate"] = generate(base, args.clusters, args.workloads_per_cluster, args.seed)
        paths = sorted(base.glob("cluster-*.jsonl.gz"))
        if not args.skip_one_process:
            res["one_process"] = one_process(paths)
            print(f"one process: {json.dumps(res['one_process'])}", flush=True)
        if args.loop_clusters:
            res["plain_loop"] = plain_loop(paths[: args.loop_clusters], args.check)
            print(f"plain loop: {json.dumps(res['plain_loop'])}", flush=True)
        if not args.skip_ray:
            res["ray"] = ray_run(paths, args.ray_workers)
        if args.kapi:
            res["snapshot"] = snapshot_run(pathlib.Path(args.kapi), args.binary, base)
            print(f"snapshot: {json.dumps(res['snapshot'])}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    m["load_end"] = os.getloadavg()
    report(m, res)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(res, indent=2))
    if args.check and res.get("plain_loop", {}).get("mismatches"):
        print("\nrows differ:\n" + "\n".join(res["plain_loop"]["mismatches"]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
