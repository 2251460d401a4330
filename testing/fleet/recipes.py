"""Shared by the fleet recipe tests (imported, not a conftest): the recipes of docs/fleet.md, by
subsection, and a generated fleet to run them on."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "fleet.md"


def recipe_blocks(*subsections: str) -> List[str]:
    """The ```python blocks of the "## Recipes" section's subsections
    whose titles start with one of `subsections`, in the document's order."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("\n## Recipes\n", 1)[1].split("\n## ", 1)[0]
    out: List[str] = []
    for part in section.split("\n### ")[1:]:
        title = part.split("\n", 1)[0]
        if title.startswith(subsections):
            out += re.findall(r"^```python\n(.*?)^```", part, re.S | re.M)
    return out


def generate(work: Path, clusters: int = 3, workloads: int = 200) -> None:
    r = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "fleet" / "generate.py"), str(work / "snapshots"),
         "--clusters", str(clusters), "--workloads-per-cluster", str(workloads), "--namespaces", "5",
         "--seed", "3", "--orphans", "0.05"],
        capture_output=True, text=True, check=False,
    )
    assert r.returncode == 0, r.stderr


def run_blocks(blocks: List[str], work: Path) -> Dict[str, Any]:
    """Run the blocks in order, in one namespace, from `work`."""
    scope: Dict[str, Any] = {"__name__": "__recipes__"}
    old = os.getcwd()
    os.chdir(work)
    try:
        for i, code in enumerate(blocks):
            exec(compile(code, f"{DOC}:recipe {i}", "exec"), scope)
    finally:
        os.chdir(old)
    return scope
