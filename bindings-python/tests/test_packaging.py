"""The installed distribution: an abi3 wheel for CPython 3.9+, the console
command, and no hard dependencies."""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import workload_lens as wl


def test_distribution_metadata() -> None:
    dist = metadata.distribution("workload-lens")
    assert dist.version == wl.__version__
    assert dist.metadata["Requires-Python"] == ">=3.9"
    requires = dist.requires or []
    assert all("extra ==" in r for r in requires), requires  # kubernetes is optional only
    scripts = {e.name: e.value for e in dist.entry_points if e.group == "console_scripts"}
    assert scripts == {"workload-lens": "workload_lens._cli:main"}
    wheel = dist.read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    assert tags and all(t.startswith("cp39-abi3-") for t in tags), tags


def test_native_module_is_abi3_and_does_not_link_libpython() -> None:
    so = Path(wl._native.__file__)
    assert so.name == "_native.abi3.so"
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("readelf is not installed")
    out = subprocess.run([readelf, "-d", str(so)], capture_output=True, text=True, check=True).stdout
    assert "libpython" not in out


def test_console_command_is_installed() -> None:
    cli = Path(sys.executable).parent / "workload-lens"
    assert cli.exists()
    out = subprocess.run([str(cli), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"workload-lens {wl.__version__}"
