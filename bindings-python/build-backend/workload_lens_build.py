"""The package's PEP 517 build backend: maturin's, saying first what it does.

pip runs a build backend with its output captured and shows only its own
line ("Building wheel for workload-lens (pyproject.toml) ...", then "still
running..." when there is no terminal) unless it runs with -v. A build from
source compiles the Rust engine: about 2 minutes on 2 cores, longer the first
time crates are downloaded. So when the output is captured and the build runs
in a terminal, this writes what it builds to the terminal (/dev/tty) and lets
maturin's and cargo's output go there too. Without a terminal (CI) it changes
nothing: `pip install -v` shows maturin's and cargo's output.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
import time

import maturin

# Everything else is maturin's, unchanged (whatever its version provides).
for _name in (
    "get_requires_for_build_wheel",
    "get_requires_for_build_sdist",
    "get_requires_for_build_editable",
    "prepare_metadata_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "build_sdist",
):
    if hasattr(maturin, _name):
        globals()[_name] = getattr(maturin, _name)


def _terminal() -> int | None:
    """A file descriptor of the user's terminal when pip captures stderr, else None."""
    if os.name != "posix" or sys.stderr.isatty() or os.environ.get("WORKLOAD_LENS_BUILD_QUIET"):
        return None
    try:
        return os.open("/dev/tty", os.O_WRONLY | os.O_NOCTTY)
    except OSError:
        return None


# maturin warns that pip will not use it because build-backend is not
# "maturin": not true here (this module is maturin's backend), so left out.
_NOT_SHOWN = b"is not set to `maturin`"


def _pump(src: int, tty: int) -> None:
    """Copies the build's stderr to the terminal, segment by segment (cargo's
    progress bar ends its updates with a carriage return), but _NOT_SHOWN."""
    rest = b""
    while True:
        chunk = os.read(src, 65536)
        if not chunk:
            break
        rest += chunk
        parts = re.split(rb"(?<=[\r\n])", rest)
        rest = parts.pop()
        os.write(tty, b"".join(p for p in parts if _NOT_SHOWN not in p))
    if rest and _NOT_SHOWN not in rest:
        os.write(tty, rest)
    os.close(src)


@contextlib.contextmanager
def _progress():
    tty = _terminal()
    start = time.monotonic()
    line = (
        "workload-lens: building the native module from source with maturin and cargo"
        " (release; about 2 minutes on 2 cores, seconds when already built)\n"
    )
    if tty is None:
        sys.stderr.write(line)
        sys.stderr.flush()
        yield
        return
    # pip draws its spinner on this line: start on the next one.
    os.write(tty, ("\n" + line).encode())
    try:
        width = os.get_terminal_size(tty).columns or 80
    except OSError:
        width = 80
    # The build's stderr (maturin's, cargo's) goes through a pipe to the
    # terminal: cargo draws its progress bar on a pipe only when told to.
    env = {"CARGO_TERM_PROGRESS_WHEN": "always", "CARGO_TERM_PROGRESS_WIDTH": str(width)}
    saved_env = {k: os.environ.get(k) for k in env}
    for k, v in env.items():
        os.environ.setdefault(k, v)
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pump = threading.Thread(target=_pump, args=(r, tty), daemon=True)
    pump.start()
    saved = os.dup(2)
    os.dup2(w, 2)
    os.close(w)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)  # closes the pipe's last writer: the pump ends
        os.close(saved)
        pump.join(timeout=10)
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        os.write(tty, f"workload-lens: built in {time.monotonic() - start:.0f} s\n".encode())
        os.close(tty)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    with _progress():
        return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


if hasattr(maturin, "build_editable"):

    def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
        with _progress():
            return maturin.build_editable(wheel_directory, config_settings, metadata_directory)
