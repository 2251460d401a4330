"""Python values cross into the engine directly: the native module walks
dicts, lists and scalars with the engine's host reader instead of
serializing them with ``json.dumps``. These tests hold that walk to
``json.dumps``'s rules (what a value may be, how keys are written) and to
the engine's limits, on generated values and on every catalog fixture."""

from __future__ import annotations

import collections
import datetime
import enum
import json
import math
import random
from typing import Any, Dict, Iterator, List

import pytest

import workload_lens as wl
from conftest import REPO
from workload_lens._api import _default


class Color(enum.IntEnum):
    RED = 1


class Name(str, enum.Enum):
    A = "a-name"


class Ratio(float):
    pass


class Frozen(collections.abc.Mapping):  # type: ignore[type-arg]
    """A mapping that is not a dict (json.dumps needs the default hook)."""

    def __init__(self, d: Dict[str, Any]) -> None:
        self._d = d

    def __getitem__(self, k: str) -> Any:
        return self._d[k]

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)


STRINGS = ["", "a", "quo\"te", "back\\slash", "tab\t", "\x00\x01\x1f\x7f", "ключ", "😀", "a" * 40]


def gen(r: random.Random, depth: int = 0) -> Any:
    """A random value of every kind json.dumps takes (with the package's
    default hook for mappings and dates)."""
    kinds = ["none", "bool", "int", "big", "float", "str", "enum"]
    if depth < 4:
        kinds += ["list", "tuple", "dict", "dict", "ordered", "mapping"]
    k = r.choice(kinds)
    if k == "none":
        return None
    if k == "bool":
        return r.random() < 0.5
    if k == "int":
        return r.randint(-(2**63), 2**63 - 1)
    if k == "big":
        return r.choice([2**64 - 1, 2**63, -(2**63), 10**30, -(10**20)])
    if k == "float":
        return r.choice([0.0, -0.0, 1.5, 1e16, 1e-7, 3.141592653589793, 1e300, Ratio(2.5)])
    if k == "str":
        return r.choice(STRINGS) + str(r.randint(0, 9))
    if k == "enum":
        return r.choice([Color.RED, Name.A, datetime.date(2026, 12, 4),
                         datetime.datetime(2026, 12, 4, 10, 30, 0)])
    n = r.randint(0, 4)
    if k == "list":
        return [gen(r, depth + 1) for _ in range(n)]
    if k == "tuple":
        return tuple(gen(r, depth + 1) for _ in range(n))
    keys: List[Any] = []
    for _ in range(n):
        keys.append(r.choice([r.choice(STRINGS), r.randint(-5, 5), 2**70, 1.5, 0.1, True, False, None,
                              Color.RED, Name.A, "k" + str(r.randint(0, 99))]))
    d: Dict[Any, Any] = {}
    for key in keys:
        d[key] = gen(r, depth + 1)
    if k == "ordered":
        return collections.OrderedDict(d)
    if k == "mapping":
        return Frozen({str(k): v for k, v in d.items() if isinstance(k, str)})
    return d


def via_json(v: Any) -> Any:
    """The engine's reading of the value's json.dumps text (what the package
    passed before; an integer beyond 64 bits is the nearest float, as the
    engine reads JSON numbers), as plain Python values."""
    text = json.dumps([v], ensure_ascii=False, allow_nan=False, default=_default)
    return wl.parse(text)[0][0]


def test_generated_values_read_as_json_dumps_writes_them() -> None:
    r = random.Random(20261204)
    checked = 0
    for _ in range(3000):
        v = gen(r)
        try:
            expected = via_json(v)
        except wl.WorkloadLensError:
            # Keys that json.dumps writes twice ({1: .., "1": ..}): JSON
            # cannot hold them, and the engine says so.
            with pytest.raises(wl.UsageError, match="twice"):
                wl.evaluate(".", v)
            continue
        got = wl.evaluate(".", v)
        assert got == wl.evaluate(".", expected), v
        # The same value types: an int stays an int, a float a float.
        assert json.dumps(got, sort_keys=True) == json.dumps(wl.evaluate(".", expected), sort_keys=True)
        checked += 1
    assert checked > 2000


def test_keys_are_written_as_json_dumps_writes_them() -> None:
    # (True == 1 and Color.RED == 1 in a dict: separate dicts.)
    v = {1: "i", -2: "n", 2**70: "big", 1.5: "f", 1e16: "e", False: "f2", None: "z", Name.A: "str enum"}
    assert wl.evaluate(".", v) == [via_json(v)] == [json.loads(json.dumps(v))]
    assert set(wl.evaluate("keys", v)[0]) == {"1", "-2", str(2**70), "1.5", "1e+16", "false", "null", "a-name"}
    assert wl.evaluate(".", {True: 1}) == [{"true": 1}]
    assert wl.evaluate(".", {Color.RED: 1}) == [{"1": 1}] == [json.loads(json.dumps({Color.RED: 1}))]


@pytest.mark.parametrize("bad", [{(1, 2): 1}, {frozenset(): 1}, {b"k": 1}])
def test_keys_json_cannot_write_are_type_errors(bad: Any) -> None:
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None"):
        wl.evaluate(".", bad)
    with pytest.raises(TypeError):
        json.dumps(bad)


def test_values_json_cannot_hold() -> None:
    for bad in (math.nan, math.inf, [1, -math.inf], {"a": {"b": math.nan}}):
        with pytest.raises(wl.UsageError, match="not finite"):
            wl.evaluate(".", bad)
    with pytest.raises(wl.UsageError, match="not finite"):
        wl.evaluate(".", {math.nan: 1})
    with pytest.raises(wl.UsageError, match='the key "1" twice'):
        wl.evaluate(".", {1: "a", "1": "b"})
    with pytest.raises(wl.UsageError, match="lone surrogate"):
        wl.evaluate(".", {"a": "\ud800"})
    with pytest.raises(wl.UsageError, match="lone surrogate"):
        wl.evaluate(".", {"\udfff": 1})
    with pytest.raises(wl.UsageError, match="beyond any JSON number"):
        wl.evaluate(".", 10**400)
    # A key Python will not write in decimal (over 4,300 digits).
    with pytest.raises(wl.UsageError, match="integer key Python cannot write"):
        wl.evaluate(".", {10**5000: 1})
    # Types json.dumps has no form for: the default hook's TypeError.
    for bad in (set(), object(), b"bytes", {"a": [1, {2, 3}]}):
        with pytest.raises(TypeError, match="is not JSON serializable"):
            wl.evaluate(".", bad)


def test_a_value_inside_itself_is_a_usage_error() -> None:
    a: List[Any] = []
    a.append({"a": a})
    with pytest.raises(wl.UsageError, match="circular"):
        wl.evaluate(".", a)

    class Loop:
        pass

    import workload_lens._api as api

    # A default hook that never reaches a JSON value.
    original = api._default
    try:
        api._default = lambda o: Loop()  # type: ignore[assignment]
        with pytest.raises(wl.UsageError, match="circular"):
            wl.evaluate(".", Loop())
    finally:
        api._default = original


def test_shared_values_are_not_circular() -> None:
    shared = {"x": [1, 2]}
    v = {"a": shared, "b": [shared, shared]}
    assert wl.evaluate(".", v) == [json.loads(json.dumps(v))]


def test_the_size_limit_is_the_values_compact_json() -> None:
    r = random.Random(7)
    for _ in range(200):
        # Strings (with escapes), integers, booleans and null are written
        # alike by json.dumps and by the engine's count.
        v = {r.choice(STRINGS) + str(i): r.choice([r.choice(STRINGS), r.randint(-10**12, 10**12), True, None,
                                                   [1, "x\n"]])
             for i in range(r.randint(0, 6))}
        size = len(json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode())
        assert wl.evaluate(".", v, max_input_bytes=size) == [v]
        with pytest.raises(wl.LimitError) as e:
            wl.evaluate(".", v, max_input_bytes=size - 1)
        assert e.value.limit == "maxInputBytes"


def test_limits_apply_to_values_as_to_text() -> None:
    v = {"a": [{"b": [1, 2, 3]}]}
    text = json.dumps(v)
    for opts in ({"max_depth": 4}, {"max_depth": 3}, {"max_input_nodes": 7}, {"max_input_nodes": 6}):
        try:
            as_text: Any = wl.parse(text, **opts)
        except wl.LimitError as e:
            as_text = e.limit
        try:
            as_value: Any = wl.evaluate(".", v, **opts)
        except wl.LimitError as e:
            as_value = e.limit
        assert (as_value == as_text) if isinstance(as_text, str) else as_value == as_text, opts


def test_many_pods_are_refused_by_the_engines_limits() -> None:
    d = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert d is not None
    job = wl.parse((REPO / "examples" / "jobset.yaml").read_text())[0]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
    with pytest.raises(wl.LimitError):
        d.attribute_pods(job, [pod] * 200_000)


def fixtures() -> List[Any]:
    out = []
    for path in sorted((REPO / "definitions" / "fixtures").glob("*/*.yaml")):
        if path.name == "expect.yaml" or path.name.endswith(".pods.yaml"):
            continue
        out.append(path)
    return out


@pytest.mark.parametrize("path", fixtures(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_fixture_resolves_alike_as_dict_and_as_text(path: Any) -> None:
    text = path.read_text(encoding="utf-8")
    objs = wl.parse(text)
    cat = wl.catalog()
    for obj in objs:
        try:
            d = cat.lookup_object(obj)
        except wl.NoDefinitionError:
            continue
        as_text = json.dumps(obj).encode()
        for call in ("resolve", "status", "explain_status", "suspend", "resume"):
            try:
                a: Any = getattr(d, call)(obj)
            except wl.WorkloadLensError as e:
                a = ("error", e.code, str(e))
            try:
                b: Any = getattr(d, call)(as_text)
            except wl.WorkloadLensError as e:
                b = ("error", e.code, str(e))
            assert a == b, (path, call)
            # Key order follows the engine's JSON, as json.loads kept it.
            assert json.dumps(a) == json.dumps(b), (path, call)
        pods_path = path.with_name(path.stem + ".pods.yaml")
        if pods_path.exists():
            pods = wl.parse(pods_path.read_text(encoding="utf-8"))
            pods_text = json.dumps(pods).encode()
            assert json.dumps(d.resolve(obj, pods=pods)) == json.dumps(d.resolve(as_text, pods=pods_text))
            assert json.dumps(d.gang_groups(obj, pods)) == json.dumps(d.gang_groups(as_text, pods_text))
            assert json.dumps(d.attribute_pods(obj, pods)) == json.dumps(d.attribute_pods(as_text, pods_text))
