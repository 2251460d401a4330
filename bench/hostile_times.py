#!/usr/bin/env python3
"""Times every case of the hostile conformance group through the Python
package (the same runner as bindings-python/tests/test_conformance.py) and
prints a markdown table: case, outcome, milliseconds. A measured report,
not an assertion (docs/reliability.md).

Run: .venv/bin/python bench/hostile_times.py   (package installed by bindings-python/test.sh)
"""

import json
import pathlib
import resource
import sys
import time

root = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(root / "bindings-python" / "tests"))
import conformance_runner as runner  # noqa: E402

suite = json.loads((root / "conformance" / "suite.json").read_text())
group = next(g for g in suite["groups"] if g["group"] == "hostile")
rows, worst, failures = [], 0.0, 0
for case in group["cases"]:
    # Generators are expanded before the clock starts; the expanded inputs
    # are dropped before compare expands the expectation.
    expanded = runner.expand_case(case, group)
    t = time.perf_counter()
    actual = runner.run_expanded(expanded, group)
    ms = (time.perf_counter() - t) * 1e3
    del expanded
    diff = runner.compare(case["expect"], actual)  # None when as expected
    outcome = actual.get("error", {}).get("limit") or actual.get("error", {}).get("code") or "result"
    if diff is not None:
        failures += 1
        outcome += " (UNEXPECTED: " + diff[:80] + ")"
    rows.append((case["name"], outcome, ms))
    worst = max(worst, ms)
print("| case | outcome | ms |\n|---|---|---:|")
for name, outcome, ms in rows:
    print(f"| {name} | {outcome} | {ms:.1f} |")
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"\n{len(rows)} cases ({failures} not as expected), slowest {worst:.0f} ms, total {sum(r[2] for r in rows):.0f} ms, max RSS {rss:.0f} MB")
sys.exit(1 if failures else 0)
