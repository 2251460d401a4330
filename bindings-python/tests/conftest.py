"""Shared fixtures of the Python binding's tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

# Filled by test_conformance.py: case name -> "pass" | "fail" | "known".
CONFORMANCE_RESULTS: Dict[str, str] = {}


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def jobset_text() -> str:
    return (EXAMPLES / "jobset.yaml").read_text(encoding="utf-8")


@pytest.fixture()
def jobset(jobset_text: str) -> Dict[str, Any]:
    import workload_lens as wl

    return wl.parse(jobset_text)[0]  # type: ignore[no-any-return]


@pytest.fixture(scope="session")
def jobset_pods() -> Any:
    import workload_lens as wl

    return wl.parse((EXAMPLES / "jobset-pods.yaml").read_text(encoding="utf-8"))[0]["items"]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not CONFORMANCE_RESULTS:
        return
    values = list(CONFORMANCE_RESULTS.values())
    terminalreporter.write_line(
        f"conformance (python): {values.count('pass')} passed, {values.count('fail')} failed, "
        f"{values.count('known')} skipped (results in target/conformance/python.json)"
    )
