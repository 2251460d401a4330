"""The whole conformance suite (conformance/suite.json) through the Python
binding: one test per case, named by the case. Writes
target/conformance/python.json for the parity table
(`cargo run -p workload-lens-conformance -- table`)."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator

import pytest

from conformance_runner import RUNTIME, CannotRun, compare, load_cases, results_path, run_case
from conftest import CONFORMANCE_RESULTS

CASES = load_cases()


@pytest.fixture(scope="module", autouse=True)
def _write_results() -> Iterator[None]:
    yield
    if CONFORMANCE_RESULTS:
        path = results_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(dict(sorted(CONFORMANCE_RESULTS.items())), indent=2) + "\n")


def test_suite_is_not_empty() -> None:
    assert CASES, "conformance/suite.json has no cases"
    names = [c["name"] for c, _ in CASES]
    assert len(names) == len(set(names)), "case names must be unique"


@pytest.mark.parametrize(("case", "group"), CASES, ids=[c["name"] for c, _ in CASES])
def test_case(case: Dict[str, Any], group: Dict[str, Any]) -> None:
    name = case["name"]
    reason = (case.get("knownDifferences") or {}).get(RUNTIME)
    if reason is not None:
        CONFORMANCE_RESULTS[name] = "known"
        pytest.skip(f"known difference: {reason}")
    CONFORMANCE_RESULTS[name] = "fail"
    try:
        actual = run_case(case, group)
    except CannotRun as e:
        pytest.fail(f"cannot run: {e}")
    difference = compare(case["expect"], actual)
    if difference is not None:
        pytest.fail(difference)
    CONFORMANCE_RESULTS[name] = "pass"
