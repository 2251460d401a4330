"""Every ```python block of bindings-python/README.md runs (from the
repository root, each block on its own), and the root README's Python
one-liner works."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

from conftest import REPO

README = REPO / "bindings-python" / "README.md"


def python_blocks(path: Path) -> List[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


BLOCKS = python_blocks(README)


def test_readme_has_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    exec(compile(code, f"{README}:block", "exec"), {"__name__": "__readme__"})


def test_root_readme_python_command() -> None:
    """The root README's Python section: `pip install ./bindings-python &&
    python -c "..."` (the install is done by test.sh; run the python part)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Python", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"^```sh\n(.*?)^```", section, re.S | re.M)
    assert command, "the Python section has a sh block"
    line = command.group(1).strip()
    assert line.startswith("pip install ./bindings-python && python -c ")
    argv = shlex.split(line.split("&&", 1)[1])
    assert argv[0] == "python"
    out = subprocess.run(
        [sys.executable, *argv[1:]], cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "12"
