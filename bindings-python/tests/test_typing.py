"""Typing: the stubs match the built module (mypy.stubtest), the package
passes mypy --strict, and an example using every API passes mypy --strict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO

HERE = Path(__file__).resolve().parent


def run(args: list[str], tmp_path: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "MYPY_CACHE_DIR": str(tmp_path / "mypy-cache")},
    )


def test_stubtest(tmp_path: Path) -> None:
    out = run(["mypy.stubtest", "workload_lens"], tmp_path, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


def test_package_passes_mypy_strict(tmp_path: Path) -> None:
    out = run(["mypy", "--strict", "-p", "workload_lens"], tmp_path, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr


def test_example_passes_mypy_strict_and_runs(tmp_path: Path) -> None:
    out = run(["mypy", "--strict", str(HERE / "typing_example.py")], tmp_path, tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    ran = subprocess.run([sys.executable, str(HERE / "typing_example.py")], cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr


def test_py_typed_and_stubs_are_installed() -> None:
    import workload_lens

    pkg = Path(workload_lens.__file__).parent
    for f in ("py.typed", "__init__.pyi", "_native.pyi", "types.py"):
        assert (pkg / f).is_file(), f
