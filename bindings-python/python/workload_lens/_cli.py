"""The ``workload-lens`` console command: the Rust CLI itself, run in-process
through the native module (the same program as the ``workload-lens`` binary
that ``cargo install`` builds)."""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Any, Optional, Sequence

from . import _native
from ._errors import WorkloadLensError


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the CLI with ``argv`` (default: ``sys.argv[1:]``); returns the exit
    code (see ``workload-lens --help``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    # Arguments Python could not decode (surrogate escapes) are passed on
    # lossily, as the Rust binary does.
    args = [os.fsencode(a).decode("utf-8", "replace") for a in args]
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    # Ctrl-C stops the command at once, as it stops the binary.
    main_thread = threading.current_thread() is threading.main_thread()
    previous: Any = signal.signal(signal.SIGINT, signal.SIG_DFL) if main_thread else None
    try:
        return int(_native.cli_main(["workload-lens", *args]))
    except WorkloadLensError as e:  # a bug: the CLI does not fail otherwise
        print(f"error: {e}", file=sys.stderr)
        return 1
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.default_int_handler)
