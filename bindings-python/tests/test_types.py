"""workload_lens/_engine_types.py (generated from the engine's JSON Schemas,
the ones bindings-node/types/engine.d.ts comes from) and _native.pyi
(generated from the bindings' operation table) must be current:
``python3 bindings-python/tools/gen_types.py`` rewrites them."""

from __future__ import annotations

import subprocess
import sys

from conftest import REPO


def test_engine_types_and_native_stub_are_generated() -> None:
    out = subprocess.run(
        [sys.executable, str(REPO / "bindings-python" / "tools" / "gen_types.py"), "--check"],
        cwd=REPO, capture_output=True, text=True, timeout=900,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_types_reexports_the_generated_types() -> None:
    from workload_lens import _engine_types, types

    assert types.Finding is _engine_types.Finding
    for mine, generated in ((types.ValidationResult, _engine_types.DefinitionVerdict),
                            (types.ErrorInfo, _engine_types.EngineError)):
        assert mine.__required_keys__ == generated.__required_keys__
        assert mine.__optional_keys__ == generated.__optional_keys__
    for name in types.__all__:
        assert hasattr(types, name), name
