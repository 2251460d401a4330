#!/usr/bin/env python3
"""Python benchmarks (timeit), figures for docs/performance.md.

1. Per-call cost of the Python package on the benchmark workloads (the
   objects the Rust report bench writes with WORKLOADS_DIR=target/bench-workloads):
   Definition.resolve(dict) and, as the in-process baseline, json.loads of the
   same object's text.
2. Peers in the same process: every catalog expression evaluated on its
   definition's fixture objects with workload_lens.evaluate, with the `jq`
   PyPI package (libjq; compiled once per expression, and per call), and
   with gojq through its CLI (one process per expression, objects streamed).

Run: WORKLOADS_DIR=target/bench-workloads cargo bench -p workload-lens --bench report
     .venv/bin/pip install jq && .venv/bin/python bench/python_bench.py
"""

import json
import pathlib
import shutil
import subprocess
import sys
import timeit

import workload_lens as wl

root = pathlib.Path(__file__).resolve().parent.parent


def best(fn, min_time=0.3):
    """Seconds per call: the best of 5 repeats of an auto-sized loop."""
    t = timeit.Timer(fn)
    n, _ = t.autorange()
    n = max(1, int(n * min_time / 0.2))
    return min(t.repeat(5, n)) / n


print("### Python: per call\n")
print("| workload | json.loads (µs) | Definition.resolve(dict) (µs) | resolve / json.loads |")
print("|---|---:|---:|---:|")
cat = wl.catalog()
wdir = root / "target" / "bench-workloads"
for f in sorted(wdir.glob("*.json")) if wdir.is_dir() else []:
    text = f.read_text()
    obj = json.loads(text)
    d = cat.lookup_object(obj)
    d.resolve(obj)
    t_load = best(lambda: json.loads(text))
    t_res = best(lambda: d.resolve(obj))
    print(f"| {f.stem} | {t_load * 1e6:.1f} | {t_res * 1e6:.1f} | {t_res / t_load:.1f} |")

# --- peers -------------------------------------------------------------------
def expressions(v, key=""):
    if isinstance(v, dict):
        for k, x in v.items():
            yield from expressions(x, k)
    elif isinstance(v, list):
        for x in v:
            yield from expressions(x, key)
    elif isinstance(v, str) and (key.endswith("Path") or key == "expression"):
        yield v


pairs = {}  # expression -> objects
for name, text in sorted(wl.catalog_sources().items()):
    stem = name[:-5] if name.endswith(".yaml") else name
    fx = root / "definitions" / "fixtures" / stem
    objs = []
    for f in sorted(fx.glob("*.yaml")) if fx.is_dir() else []:
        if f.name == "expect.yaml" or f.name.endswith(".pods.yaml"):
            continue
        objs.extend(wl.parse(f.read_text()))
    for doc in wl.parse(text):
        for e in set(expressions(doc)):
            pairs.setdefault(e, []).extend(objs)

try:
    import jq  # type: ignore
except ImportError:
    jq = None
gojq = shutil.which("gojq")

# Keep the pairs every engine can run (the catalog targets gojq semantics;
# a few expressions use builtins libjq 1.7 lacks).
usable = {}
for e, objs in pairs.items():
    try:
        [wl.evaluate(e, o) for o in objs]
        if jq is not None:
            p = jq.compile(e)
            [p.input_value(o).all() for o in objs]
        usable[e] = objs
    except Exception:
        pass
n_eval = sum(len(o) for o in usable.values())
print(f"\n### Peers: {len(usable)} catalog expressions x their fixtures = {n_eval} evaluations "
      f"({len(pairs) - len(usable)} expressions skipped: not valid in every engine)\n")
print("| engine | total (ms) | per evaluation (µs) | vs workload_lens.evaluate |")
print("|---|---:|---:|---:|")


def run_ours():
    for e, objs in usable.items():
        for o in objs:
            wl.evaluate(e, o)


base = best(run_ours, 1.0)
print(f"| workload_lens.evaluate (compile + run per call) | {base * 1e3:.1f} | {base / n_eval * 1e6:.1f} | 1.00 |")
if jq is not None:
    compiled = {e: jq.compile(e) for e in usable}

    def run_jq_once():
        for e, objs in usable.items():
            p = compiled[e]
            for o in objs:
                p.input_value(o).all()

    def run_jq_each():
        for e, objs in usable.items():
            for o in objs:
                jq.compile(e).input_value(o).all()

    t1 = best(run_jq_once, 1.0)
    t2 = best(run_jq_each, 1.0)
    print(f"| jq (libjq), compiled once per expression | {t1 * 1e3:.1f} | {t1 / n_eval * 1e6:.1f} | {t1 / base:.2f} |")
    print(f"| jq (libjq), compiled per call | {t2 * 1e3:.1f} | {t2 / n_eval * 1e6:.1f} | {t2 / base:.2f} |")
if gojq:
    streams = {e: "".join(json.dumps(o) + "\n" for o in objs) for e, objs in usable.items()}

    def run_gojq():
        for e, text in streams.items():
            subprocess.run([gojq, "-c", e], input=text.encode(), capture_output=True, check=False)

    t3 = best(run_gojq, 1.0)
    print(f"| gojq CLI, one process per expression, objects streamed | {t3 * 1e3:.1f} | {t3 / n_eval * 1e6:.1f} | {t3 / base:.2f} |")
