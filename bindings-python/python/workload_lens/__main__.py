"""``python -m workload_lens``: the ``workload-lens`` command."""

from ._cli import main

if __name__ == "__main__":
    raise SystemExit(main())
