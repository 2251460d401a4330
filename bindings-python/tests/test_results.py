"""Results as Python objects (src/pyout.rs): exactly the JSON the CLI prints,
key order and number types included, with the dictionaries' keys shared
between results within bounds."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import workload_lens as wl
from conftest import REPO

FIXTURES = sorted(
    p
    for p in (REPO / "definitions" / "fixtures").glob("*/*.yaml")
    if p.name != "expect.yaml" and not p.name.endswith(".pods.yaml")
)


def text(v: Any) -> str:
    """A value's JSON text, in its own key order."""
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def test_every_fixture_resolves_to_the_cli_json_text(capfd: pytest.CaptureFixture[str]) -> None:
    """Key order and types too: `json.loads` keeps the CLI's order, and
    writes 1 and 1.0 apart."""
    assert len(FIXTURES) > 100
    compared = 0
    for path in FIXTURES:
        capfd.readouterr()
        code = wl._native.cli_main(["workload-lens", "describe", str(path), "-o", "json"])
        out = capfd.readouterr().out
        if code != 0:
            with pytest.raises(wl.WorkloadLensError):
                wl.resolve(path.read_bytes())
            continue
        assert text(wl.resolve(path.read_bytes())) == text(json.loads(out)), path
        compared += 1
    assert compared > 100


def test_values_of_every_json_type_cross_as_json_reads_them() -> None:
    v = {
        "": None,
        "b": [True, False],
        "n": [0, -1, 2**63 - 1, -(2**63), 2**64 - 1, 1.5, -0.25, 1e300],
        "s": ["", "é", "\u2603", "a\u0000b", "\U0001f600"],
        "ключ": {"nested": {"deeper": [[], {}]}},
    }
    (out,) = wl.evaluate(".", v)
    assert text(out) == text(json.loads(json.dumps(v, sort_keys=True)))
    assert type(out["n"][5]) is float and type(out["n"][0]) is int


def fresh(script: str, *args: str) -> str:
    """Run `script` in a new interpreter (the shared keys are the process's:
    other tests' results would fill them), returning what it prints."""
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_keys_are_shared_between_results() -> None:
    fresh(
        """
        import sys
        import workload_lens as wl
        text = open(sys.argv[1], encoding="utf-8").read()
        a, b = wl.resolve(text), wl.resolve(text)
        assert a == b
        # The result's own fields.
        assert all(x is y for x, y in zip(a, b))
        # Keys of the object's own (a pod template's).
        ta = a["components"][1]["instances"][0]["podTemplate"]["spec"]
        tb = b["components"][1]["instances"][0]["podTemplate"]["spec"]
        assert list(ta) and all(x is y for x, y in zip(ta, tb))
        """,
        str(REPO / "examples" / "jobset.yaml"),
    )


def test_keys_past_the_bounds_are_made_anew_and_nothing_changes() -> None:
    fresh(
        """
        import workload_lens as wl
        kept, max_keys, max_bytes = wl._native._result_keys_for_tests()
        assert (kept, max_keys, max_bytes) == (0, 4096, 64)
        # A key longer than the bound is never kept.
        long = "k" * (max_bytes + 1)
        (x,) = wl.evaluate(".", {long: 1})
        (y,) = wl.evaluate(".", {long: 1})
        assert x == y == {long: 1}
        assert next(iter(x)) is not next(iter(y))
        # One within it is.
        (x,) = wl.evaluate(".", {long[1:]: 1})
        (y,) = wl.evaluate(".", {long[1:]: 1})
        assert next(iter(x)) is next(iter(y))
        # Many distinct keys: correct results, at most the bound kept.
        many = {f"key-{i:05}": i for i in range(3 * max_keys)}
        (out,) = wl.evaluate(".", many)
        assert out == many and list(out) == sorted(many)
        assert wl._native._result_keys_for_tests()[0] == max_keys
        # Once full, a new key is made for each result.
        (p,) = wl.evaluate(".", {"a-key-not-seen-before": 1})
        (q,) = wl.evaluate(".", {"a-key-not-seen-before": 1})
        assert p == q and next(iter(p)) is not next(iter(q))
        assert wl._native._result_keys_for_tests()[0] == max_keys
        """
    )


def test_a_call_from_a_finalizer_during_a_conversion_does_not_wait() -> None:
    """Building a result allocates Python objects, which can run the garbage
    collector, whose callbacks (and finalizers) can call the package again on
    the same thread while the conversion holds the shared keys. Such a call
    uses keys of its own instead of waiting for them (which would hang)."""
    out = fresh(
        """
        import gc, sys
        import workload_lens as wl
        text = open(sys.argv[1], encoding="utf-8").read()
        expected = wl.resolve(text)
        inside = [False]
        nested = [0]
        wrong = []
        def callback(phase, info):
            # (An exception here would only be printed: collected instead.)
            if phase == "start" and inside[0]:
                nested[0] += 1
                got = wl.evaluate("{a: [1, {b: 2}]}")
                if got != [{"a": [1, {"b": 2}]}]:
                    wrong.append(got)
        gc.callbacks.append(callback)
        gc.set_threshold(1, 1, 1)
        for _ in range(20):
            inside[0] = True
            got = wl.resolve(text)
            inside[0] = False
            assert got == expected
        gc.callbacks.remove(callback)
        assert wrong == [], wrong
        print(nested[0])
        """,
        str(REPO / "examples" / "jobset.yaml"),
    )
    # The collector did run during the calls (so the nested calls were made).
    assert int(out) > 0
