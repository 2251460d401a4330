"""Hostile inputs: nothing crashes the interpreter; every failure is a
WorkloadLensError (or a TypeError for values of the wrong type)."""

from __future__ import annotations

import decimal
import itertools
import json
import math
import operator
import os
import subprocess
import sys
import time
from typing import Any, Callable, Dict, Iterator, List

import pytest

import workload_lens as wl
from conftest import EXAMPLES, REPO

ALLOWED = (wl.WorkloadLensError, TypeError)
JOBSET_TEXT = (EXAMPLES / "jobset.yaml").read_text()
JOBSET = wl.parse(JOBSET_TEXT)[0]
JOBSET_DEF = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
assert JOBSET_DEF is not None


def nested(depth: int) -> Any:
    v: Any = 1
    for _ in range(depth):
        v = {"a": [v]}
    return v


# --- deep nesting ------------------------------------------------------------


def test_deep_python_values_are_limit_errors() -> None:
    deep = nested(100_000)  # far beyond Python's recursion limit
    for call in (
        lambda: wl.evaluate(".", deep),
        lambda: wl.resolve({**JOBSET, "spec": deep}),
        lambda: wl.Definition(deep),
        lambda: JOBSET_DEF.resolve(JOBSET, pods=[deep]),
        lambda: wl.limits(deep),
    ):
        with pytest.raises(ALLOWED):
            call()
    with pytest.raises(wl.LimitError) as e:
        wl.evaluate(".", deep)
    assert e.value.limit == "maxDepth"


def test_depth_between_serde_and_python_limits_follows_max_depth() -> None:
    v = nested(100)  # 201 levels: deeper than serde_json's fixed 128
    with pytest.raises(wl.LimitError) as e:
        wl.evaluate(".", v)
    assert e.value.limit == "maxDepth" and "line" not in e.value.location
    assert wl.evaluate(".", v, max_depth=500) == [v]


def test_deep_texts() -> None:
    for text in ("[" * 100_000, "[" * 50_000 + "]" * 50_000, "a:\n" + "  - " * 20_000 + "x\n",
                 "{" * 100_000, "- " * 100_000 + "x"):
        with pytest.raises((wl.LimitError, wl.ParseError)):
            wl.parse(text)
        with pytest.raises((wl.LimitError, wl.ParseError)):
            wl.resolve(text)
        with pytest.raises((wl.LimitError, wl.ParseError)):
            wl.Definition(text)


def test_deep_expressions() -> None:
    for expr in ("(" * 10_000 + "1" + ")" * 10_000, "[" * 10_000 + "]" * 10_000, "." + ".a" * 20_000,
                 "def f: " * 5000 + "1" + ";" * 5000 + " f", '"\\(' * 5000 + "1" + ')"' * 5000):
        with pytest.raises((wl.LimitError, wl.JqCompileError)):
            wl.evaluate(expr)


def test_runaway_expressions_are_bounded() -> None:
    for expr in ("def f: f; f", "[limit(100000000; repeat(1))]", "until(false; .)", "last(repeat(1))",
                 '"x" * 100000000', "[.[] as $a | .[] as $b | .[] as $c | 1]",
                 "reduce (.[] as $a | .[] as $b | .[]) as $x (0; . + 1)"):
        with pytest.raises((wl.LimitError, wl.JqCompileError)):
            wl.evaluate(expr, list(range(300)))


# --- YAML bombs and huge inputs -------------------------------------------


BILLION_LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


def test_billion_laughs() -> None:
    for call in (lambda: wl.parse(BILLION_LAUGHS), lambda: wl.resolve(BILLION_LAUGHS),
                 lambda: wl.Definition(BILLION_LAUGHS), lambda: wl.validate(BILLION_LAUGHS)):
        with pytest.raises(wl.LimitError) as e:
            call()
        assert e.value.limit in ("maxYamlAliases", "maxInputNodes")
    wide = "a: &a [" + ",".join(["x"] * 1000) + "]\nb: [" + ",".join(["*a"] * 2000) + "]\n"
    with pytest.raises(wl.LimitError):
        wl.parse(wide)


def test_huge_strings() -> None:
    big = "x" * (17 * 1024 * 1024)
    for call in (lambda: wl.parse(big), lambda: wl.resolve(big), lambda: wl.Definition(big),
                 lambda: wl.validate(big), lambda: JOBSET_DEF.resolve(big)):
        with pytest.raises(wl.LimitError) as e:
            call()
        assert e.value.limit == "maxInputBytes"
    with pytest.raises(wl.LimitError) as e2:
        wl.evaluate("." * 20_000)
    assert e2.value.limit == "maxExpressionBytes"
    # a large string inside a value is data, not text: it goes through
    value = {"s": "y" * (8 * 1024 * 1024)}
    assert wl.evaluate(".s | length", value) == [8 * 1024 * 1024]
    with pytest.raises(wl.LimitError) as e3:
        wl.evaluate(".s + .s", value)
    assert e3.value.limit in ("maxStringBytes", "maxOutputBytes")
    many = {"items": [{"k": i} for i in range(200_000)]}
    with pytest.raises(wl.LimitError):
        wl.evaluate("[.items[] | .k]", many)


# --- endless iterables of objects -------------------------------------------

# A pod of 6 nodes (the dict, apiVersion, kind, metadata, name, namespace): a
# stream of them reaches maxInputNodes first. With a 200-byte annotation, a
# pod is 8 nodes and 301 bytes: maxInputBytes comes first.
SMALL_POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml-team"}}
BIG_POD = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "p", "namespace": "ml-team", "annotations": {"a": "x" * 200}}}
SMALL_EVENT = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "ml-team"}}
DEFAULTS = wl.default_limits()


def compact_bytes(v: Any) -> int:
    return len(json.dumps(v, ensure_ascii=False, separators=(",", ":")).encode())


def taken_at_the_limit(obj: Any, nodes: int, limits: Dict[str, int]) -> Any:
    """How many objects of ``nodes`` nodes each the engine's reader takes
    from an iterable before a limit stops it, and which limit: the array
    is a node and 2 bytes, each object its nodes and its compact JSON
    bytes, with a comma between two. The object that goes over is taken."""
    by_nodes = (limits["maxInputNodes"] - 1) // nodes + 1
    by_bytes = (limits["maxInputBytes"] - 1) // (compact_bytes(obj) + 1) + 1
    return (by_nodes, "maxInputNodes") if by_nodes <= by_bytes else (by_bytes, "maxInputBytes")


# Every argument of objects that an iterable may be, with the object each
# is given a stream of.
STREAMED: Dict[str, Any] = {
    "Definition.resolve": (lambda g: JOBSET_DEF.resolve(JOBSET, pods=g), SMALL_POD),
    "Definition.attribute_pods": (lambda g: JOBSET_DEF.attribute_pods(JOBSET, g), SMALL_POD),
    "Definition.gang_groups": (lambda g: JOBSET_DEF.gang_groups(JOBSET, g), SMALL_POD),
    "Definition.diagnose": (lambda g: JOBSET_DEF.diagnose(JOBSET, pods=g), SMALL_POD),
    "Definition.diagnose(events)": (lambda g: JOBSET_DEF.diagnose(JOBSET, events=g), SMALL_EVENT),
    "Definition.diagnose(related)": (lambda g: JOBSET_DEF.diagnose(JOBSET, related=g), SMALL_POD),
    "wl.resolve": (lambda g: wl.resolve(JOBSET, pods=g), SMALL_POD),
    "wl.diagnose": (lambda g: wl.diagnose(JOBSET, pods=g), SMALL_POD),
    "Definition.resolve(big pods)": (lambda g: JOBSET_DEF.resolve(JOBSET, pods=g), BIG_POD),
}


@pytest.mark.parametrize("name", sorted(STREAMED))
def test_an_iterable_of_10x_max_input_nodes_objects_stops_at_the_limit(name: str) -> None:
    call, obj = STREAMED[name]
    nodes = 8 if obj is BIG_POD else 6
    expected, limit = taken_at_the_limit(obj, nodes, DEFAULTS)
    total = 10 * DEFAULTS["maxInputNodes"]
    stream = itertools.repeat(obj, total)
    with pytest.raises(wl.LimitError) as e:
        call(stream)
    assert (e.value.code, e.value.limit) == ("limit", limit)
    # Taken one by one up to the object that went over, not a step further.
    assert total - operator.length_hint(stream) == expected


ENDLESS_SCRIPT = r"""
import itertools, json, resource, sys, time
# 1 GiB of address space: a reading that does not stop fails here (a
# MemoryError) instead of taking the machine's memory.
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
sys.path.insert(0, sys.argv[1])
import test_hostile as t

def rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20

# The process's peak resident size (not getrusage's ru_maxrss: Linux keeps
# the parent's, the test runner's, across fork and exec).
def peak_mib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024

out = {"before_mib": peak_mib(), "calls": {}}
for name, (call, obj) in sorted(t.STREAMED.items()):
    for kind in ("itertools.repeat", "while True: yield"):
        taken = [0]
        def endless():
            while True:
                taken[0] += 1
                yield obj
        stream = itertools.repeat(obj) if kind == "itertools.repeat" else endless()
        start = time.perf_counter()
        try:
            call(stream)
            result = None
        except t.wl.LimitError as e:
            result = [e.code, e.limit]
        seconds = time.perf_counter() - start
        out["calls"][name + " / " + kind] = {
            "result": result, "seconds": seconds, "taken": taken[0] if kind != "itertools.repeat" else None,
            "rss_after_mib": rss_mib(),
        }
out["peak_mib"] = peak_mib()
print(json.dumps(out))
"""


def test_endless_generators_end_at_the_engines_limit_quickly_and_in_bounded_memory() -> None:
    """An endless generator of pods (events, related objects) given to every
    call that takes objects ends with the engine's limit error in under a
    second, taken only up to the limit, in a process that stays under
    512 MiB (peak RSS, measured in a child process of its own)."""
    out = subprocess.run([sys.executable, "-c", ENDLESS_SCRIPT, str(REPO / "bindings-python" / "tests")],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "RUST_BACKTRACE": "0"})
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    for key, r in report["calls"].items():
        name = key.split(" / ")[0]
        obj = STREAMED[name][1]
        expected, limit = taken_at_the_limit(obj, 8 if obj is BIG_POD else 6, DEFAULTS)
        assert r["result"] == ["limit", limit], key
        assert r["seconds"] < 1.0, (key, r)
        if r["taken"] is not None:
            assert r["taken"] == expected, (key, r)
    assert report["peak_mib"] < 512, report


def test_any_iterable_of_objects_reads_as_the_same_list() -> None:
    pods = wl.parse((EXAMPLES / "jobset-pods.yaml").read_text())[0]["items"]
    by_name = {p["metadata"]["name"]: p for p in pods}

    class Pods:
        def __iter__(self) -> Iterator[Any]:
            return iter(pods)

    for call in (
        lambda p: JOBSET_DEF.resolve(JOBSET, pods=p),
        lambda p: JOBSET_DEF.attribute_pods(JOBSET, p),
        lambda p: JOBSET_DEF.gang_groups(JOBSET, p),
        lambda p: JOBSET_DEF.diagnose(JOBSET, pods=p),
        lambda p: wl.resolve(JOBSET, pods=p),
        lambda p: wl.diagnose(JOBSET, pods=p, events=iter([]), related=(o for o in [])),
    ):
        expected = call(pods)
        for same in ((p for p in pods), iter(pods), by_name.values(), map(dict, pods), Pods(),
                     itertools.chain(pods[:1], pods[1:])):
            assert json.dumps(call(same)) == json.dumps(expected)
    # An empty one is no pods.
    assert JOBSET_DEF.attribute_pods(JOBSET, iter([])) == JOBSET_DEF.attribute_pods(JOBSET, [])


def test_an_exception_raised_by_the_iterable_comes_back_as_it_is() -> None:
    class Boom(Exception):
        pass

    raised = Boom("the generator's own failure")

    def failing(after: int) -> Iterator[Any]:
        yield from itertools.repeat(SMALL_POD, after)
        raise raised

    for after in (0, 1, 1000):
        for call in (
            lambda g: JOBSET_DEF.resolve(JOBSET, pods=g),
            lambda g: JOBSET_DEF.attribute_pods(JOBSET, g),
            lambda g: JOBSET_DEF.gang_groups(JOBSET, g),
            lambda g: JOBSET_DEF.diagnose(JOBSET, events=g),
            lambda g: wl.diagnose(JOBSET, related=g),
        ):
            with pytest.raises(Boom) as e:
                call(failing(after))
            assert e.value is raised
    # A KeyError, which the package's own code might have caught, too.
    def missing() -> Iterator[Any]:
        yield {}["no such key"]

    with pytest.raises(KeyError):
        JOBSET_DEF.attribute_pods(JOBSET, missing())


def test_an_iterable_inside_a_value_is_still_not_json() -> None:
    """Only the argument itself is read as its elements: nested anywhere, a
    generator is what json.dumps makes of it, a TypeError."""
    for call in (
        lambda: JOBSET_DEF.resolve(JOBSET, pods=[(p for p in [SMALL_POD])]),
        lambda: JOBSET_DEF.resolve(JOBSET, pods=iter([iter([SMALL_POD])])),
        lambda: JOBSET_DEF.resolve(JOBSET, pods=iter([{**SMALL_POD, "spec": (i for i in [1])}])),
        lambda: JOBSET_DEF.resolve(JOBSET, pods={"kind": "PodList", "items": iter([SMALL_POD])}),
        lambda: JOBSET_DEF.resolve(iter([JOBSET])),
        lambda: JOBSET_DEF.resolve({**JOBSET, "spec": iter([1])}),
        lambda: wl.evaluate(".", iter([1])),
    ):
        with pytest.raises(TypeError, match="is not JSON serializable"):
            call()
    # The wrapper the package hands over is read only as an argument.
    with pytest.raises(TypeError, match="Iterated is not JSON serializable"):
        JOBSET_DEF.resolve(JOBSET, pods=[wl._native.Iterated([SMALL_POD])])


# --- endless iterables of inputs (pages) --------------------------------------

# A page as a raw API list response: a PodList of 100 pods, each with its
# kind and apiVersion (so its objects' compact JSON is what the engine
# counts). The calls that take several inputs read each within the input
# limits and all of their objects together within maxClusterBytes.
PAGE_PODS = [{**SMALL_POD, "metadata": {"name": f"p{i}", "namespace": "ml-team"}} for i in range(100)]
PAGE = json.dumps({"apiVersion": "v1", "kind": "PodList", "items": PAGE_PODS}).encode()
PAGE_BYTES = sum(compact_bytes(p) for p in PAGE_PODS)
PAGE_LIMITS = {"maxClusterBytes": 8 * 1024 * 1024}
PAGE_CATALOG = wl.Catalog(limits=PAGE_LIMITS)
PAGE_DEF = PAGE_CATALOG.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")


def pages_at_the_limit(page_bytes: int, limit: int) -> int:
    """How many pages are taken before maxClusterBytes stops the reading:
    the page whose objects go over is the last taken."""
    return limit // page_bytes + 1


# Every argument of several inputs that an iterable may be.
PAGED: Dict[str, Callable[[Any], Any]] = {
    "Catalog.resolve_pages": lambda g: PAGE_CATALOG.resolve_pages(JOBSET, g),
    "Catalog.resolve_in_namespace": lambda g: PAGE_CATALOG.resolve_in_namespace(JOBSET, g),
    "Definition.gang_groups_pages": lambda g: PAGE_DEF.gang_groups_pages(JOBSET, g),
    "Catalog.with_cluster_definitions": lambda g: PAGE_CATALOG.with_cluster_definitions(g),
    "Catalog.list_workloads(objects)": lambda g: PAGE_CATALOG.list_workloads(g),
    "Catalog.list_workloads(owners)": lambda g: PAGE_CATALOG.list_workloads([], g),
    "wl.missing_owners": lambda g: wl.missing_owners(g, limits=PAGE_LIMITS),
}


@pytest.mark.parametrize("name", sorted(PAGED))
def test_an_iterable_of_10x_max_cluster_bytes_of_pages_stops_at_the_limit(name: str) -> None:
    total = 10 * pages_at_the_limit(PAGE_BYTES, PAGE_LIMITS["maxClusterBytes"])
    stream = itertools.repeat(PAGE, total)
    with pytest.raises(wl.LimitError) as e:
        PAGED[name](stream)
    assert (e.value.code, e.value.limit) == ("limit", "maxClusterBytes")
    assert total - operator.length_hint(stream) == pages_at_the_limit(PAGE_BYTES, PAGE_LIMITS["maxClusterBytes"])
    # The same pages in a list stop at the same limit (one rule for both).
    with pytest.raises(wl.LimitError) as e2:
        PAGED[name]([PAGE] * total)
    assert str(e2.value) == str(e.value)


ENDLESS_PAGES_SCRIPT = r"""
import itertools, json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
sys.path.insert(0, sys.argv[1])
import test_hostile as t

def peak_mib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024

out = {"before_mib": peak_mib(), "calls": {}}
for name, call in sorted(t.PAGED.items()):
    for kind in ("itertools.repeat", "while True: yield"):
        taken = [0]
        def endless():
            while True:
                taken[0] += 1
                yield t.PAGE
        stream = itertools.repeat(t.PAGE) if kind == "itertools.repeat" else endless()
        start = time.perf_counter()
        try:
            call(stream)
            result = None
        except t.wl.LimitError as e:
            result = [e.code, e.limit]
        out["calls"][name + " / " + kind] = {
            "result": result, "seconds": time.perf_counter() - start,
            "taken": taken[0] if kind != "itertools.repeat" else None,
        }
out["peak_mib"] = peak_mib()
print(json.dumps(out))
"""


def test_endless_generators_of_pages_end_at_the_engines_limit_quickly_and_in_bounded_memory() -> None:
    """An endless generator of pages given to every call that takes several
    inputs ends with the engine's limit error (maxClusterBytes) in under a
    second, taken only up to the page that went over, in a process that
    stays under 512 MiB (peak RSS of a child process of its own)."""
    out = subprocess.run([sys.executable, "-c", ENDLESS_PAGES_SCRIPT, str(REPO / "bindings-python" / "tests")],
                         capture_output=True, text=True, timeout=120, env={**os.environ, "RUST_BACKTRACE": "0"})
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    expected = pages_at_the_limit(PAGE_BYTES, PAGE_LIMITS["maxClusterBytes"])
    for key, r in report["calls"].items():
        assert r["result"] == ["limit", "maxClusterBytes"], key
        assert r["seconds"] < 1.0, (key, r)
        if r["taken"] is not None:
            assert r["taken"] == expected, (key, r)
    assert report["peak_mib"] < 512, report


def test_any_iterable_of_inputs_reads_as_the_same_list() -> None:
    pods_text = (EXAMPLES / "jobset-pods.yaml").read_text()
    pods = wl.parse(pods_text)[0]["items"]
    inputs: List[Any] = [pods_text, pods_text.encode(), {"kind": "List", "items": pods[:1]}, pods[1], pods[2:]]
    cat = wl.Catalog()
    for call in (
        lambda g: cat.resolve_pages(JOBSET, g),
        lambda g: cat.resolve_in_namespace(JOBSET, g),
        lambda g: JOBSET_DEF.gang_groups_pages(JOBSET, g),
        lambda g: cat.with_cluster_definitions(g)[1],
        lambda g: cat.list_workloads(g, g),
        lambda g: wl.missing_owners(g),
    ):
        expected = call(inputs)
        assert json.dumps(call(tuple(inputs))) == json.dumps(expected)
        for same in ((i for i in inputs), iter(inputs), map(lambda i: i, inputs),
                     itertools.chain(inputs[:2], inputs[2:])):
            assert json.dumps(call(same)) == json.dumps(expected)
        assert json.dumps(call(iter([]))) == json.dumps(call([]))
    # A text, a mapping alone is one input, as before.
    assert json.dumps(cat.resolve_pages(JOBSET, pods_text)) == json.dumps(cat.resolve_pages(JOBSET, [pods_text]))
    assert json.dumps(cat.resolve_pages(JOBSET, pods[0])) == json.dumps(cat.resolve_pages(JOBSET, [pods[0]]))


def test_an_exception_raised_by_an_iterable_of_inputs_comes_back_as_it_is() -> None:
    class Boom(Exception):
        pass

    raised = Boom("the generator's own failure")

    def failing(after: int) -> Iterator[Any]:
        yield from itertools.repeat(PAGE, after)
        raise raised

    for after in (0, 1, 10):
        for name, call in PAGED.items():
            with pytest.raises(Boom) as e:
                call(failing(after))
            assert e.value is raised, name


# --- encodings ----------------------------------------------------------------


def test_invalid_utf8_bytes() -> None:
    bad = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: \xff\xfe\n"
    for call in (lambda: wl.parse(bad), lambda: wl.resolve(bad), lambda: wl.Definition(bad),
                 lambda: wl.validate(bad), lambda: wl.compile_all(bad), lambda: JOBSET_DEF.status(bad),
                 lambda: wl.Catalog(bad)):
        with pytest.raises(wl.ParseError) as e:
            call()
        assert e.value.location.get("line") == 4
    with pytest.raises(wl.JqCompileError):
        wl.evaluate(b"\xff")  # type: ignore[arg-type]


def test_lone_surrogates() -> None:
    with pytest.raises(wl.ParseError):
        wl.parse("a: \ud800\n")
    with pytest.raises(wl.ParseError):
        wl.resolve("apiVersion: v1\nkind: Pod\nmetadata: {name: \udcff}\n")
    with pytest.raises(wl.UsageError):  # a value, read by the engine's compile_object
        wl.Definition({"kind": "\ud800"})
    with pytest.raises(wl.JqCompileError):
        wl.evaluate('"\ud800"')
    with pytest.raises(wl.UsageError):
        wl.evaluate(".", {"a": "\ud800"})
    with pytest.raises(wl.UsageError):
        wl.resolve({**JOBSET, "x": "\udfff"})
    assert wl.lookup("\ud800", "JobSet") is None
    assert wl.Catalog().get("\ud800") is None


def test_unicode_round_trips() -> None:
    s = "ünïcødé ✓ 🎉 \u0000 \u2028 \\ \" \n"
    assert wl.evaluate(".", {"s": s}) == [{"s": s}]
    assert wl.parse('{"s": "🎉"}') == [{"s": "🎉"}]


# --- values that are not JSON ---------------------------------------------


class Custom:
    pass


@pytest.mark.parametrize(
    "value",
    [set(), {1, 2}, frozenset(), Custom(), object(), b"bytes", bytearray(b"x"), 1j, decimal.Decimal("1"),
     {(1, 2): 3}, [lambda: 1], {"a": {"b": set()}}, range(3), iter([1])],
    ids=lambda v: type(v).__name__,
)
def test_non_json_values_are_type_errors(value: Any) -> None:
    with pytest.raises(TypeError):
        wl.evaluate(".", value)
    with pytest.raises(TypeError):
        wl.resolve({**JOBSET, "extra": value})


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, {"a": [math.nan]}], ids=repr)
def test_nan_and_infinities_are_usage_errors(value: Any) -> None:
    with pytest.raises(wl.UsageError):
        wl.evaluate(".", value)
    with pytest.raises(wl.UsageError):
        wl.limits(max_steps=value)  # type: ignore[arg-type]


def test_circular_values() -> None:
    a: List[Any] = []
    a.append(a)
    d: Dict[str, Any] = {}
    d["d"] = d
    for v in (a, d):
        with pytest.raises(wl.UsageError):
            wl.evaluate(".", v)


def test_big_numbers() -> None:
    assert wl.evaluate(".", 2**63 - 1) == [2**63 - 1]
    assert wl.evaluate(".", 2**64 - 1) == [2**64 - 1]
    big = wl.evaluate(".", 10**30)[0]
    assert big == pytest.approx(1e30)
    with pytest.raises(ALLOWED + (ValueError,)):
        wl.evaluate(".", 10**5000)  # beyond Python's int-to-str limit


# --- wrong types for every argument ---------------------------------------


BAD: List[Any] = [
    None, 0, -1, 2**70, 1.5, math.nan, True, "", "garbage: [", "\ud800", b"\xff\xfe", [], [1], [None],
    {}, {"a": set()}, {1: 2}, set(), object(), Custom(), wl, print, (1, 2), {"apiVersion": 1, "kind": []},
]

D = JOBSET_DEF
C = wl.Catalog()
VALID_TEXT = JOBSET_TEXT
DEF_TEXT = (REPO / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml").read_text()

CALLS: Dict[str, Callable[..., Any]] = {
    "resolve": lambda a=JOBSET, b=None, c=None: wl.resolve(a, definitions=b, pods=c),
    "lookup": lambda a="jobset.x-k8s.io/v1alpha2", b="JobSet": wl.lookup(a, b),
    "compile": lambda a=DEF_TEXT, b=None: wl.compile(a, limits=b),
    "compile_all": lambda a=DEF_TEXT, b=None: wl.compile_all(a, limits=b),
    "validate": lambda a=DEF_TEXT, b=None: wl.validate(a, limits=b),
    "evaluate": lambda a=".", b=None, c=None: wl.evaluate(a, b, limits=c),
    "parse": lambda a=VALID_TEXT, b=None: wl.parse(a, limits=b),
    "limits": lambda a=None: wl.limits(a),
    "limits_kw": lambda a=1: wl.limits(max_steps=a),
    "Definition": lambda a=DEF_TEXT, b=None: wl.Definition(a, limits=b),
    "d.resolve": lambda a=JOBSET, b=None: D.resolve(a, b),
    "d.status": lambda a=JOBSET: D.status(a),
    "d.update": lambda a=JOBSET, b={}: D.update(a, b),
    "d.suspend": lambda a=JOBSET: D.suspend(a),
    "d.resume": lambda a=JOBSET: D.resume(a),
    "d.attribute_pods": lambda a=JOBSET, b=[]: D.attribute_pods(a, b),
    "d.gang_groups": lambda a=JOBSET, b=[]: D.gang_groups(a, b),
    "d.subtree_scale": lambda a=JOBSET, b="replicatedjob", c="worker": D.subtree_scale(a, b, c),
    "Catalog": lambda a=(), b=True: wl.Catalog(a, bundled=b),
    "c.add": lambda a=DEF_TEXT, b=None: wl.Catalog(bundled=False).add(a, limits=b),
    "c.lookup": lambda a="v1", b="Pod": C.lookup(a, b),
    "c.lookup_object": lambda a=JOBSET: C.lookup_object(a),
    "c.get": lambda a="x": C.get(a),
    "c.resolve": lambda a=JOBSET, b=None: C.resolve(a, b),
}


def test_from_path_wrong_types() -> None:
    for bad in BAD:
        if isinstance(bad, str):
            continue
        with pytest.raises(TypeError):
            wl.Definition.from_path(bad)


def _arity(fn: Callable[..., Any]) -> int:
    return fn.__code__.co_argcount


@pytest.mark.parametrize("name", sorted(CALLS))
def test_wrong_types_for_every_argument(name: str) -> None:
    fn = CALLS[name]
    fn()  # the baseline works
    for pos in range(_arity(fn)):
        for bad in BAD:
            args = [fn.__defaults__[i] for i in range(_arity(fn))]  # type: ignore[index]
            args[pos] = bad
            try:
                fn(*args)
            except ALLOWED:
                pass
            except BaseException as e:  # pragma: no cover - the failure message
                pytest.fail(f"{name} argument {pos} = {bad!r}: {type(e).__name__}: {e}")


NATIVE_CALLS: List[Callable[..., Any]] = [
    lambda x: wl._native.evaluate(x, x, x),
    lambda x: wl._native.evaluate(b".", x),
    lambda x: wl._native.parse(x, x),
    lambda x: wl._native.validate(x),
    lambda x: wl._native.compile(x, x),
    lambda x: wl._native.compile_all(x),
    lambda x: wl._native.check_limits(x),
    lambda x: wl._native.rebuild(x, x, x),
    lambda x: wl._native.rebuild(D._native.definition_json(), "{}", x),
    lambda x: wl._native.cli_main(x),
    lambda x: wl._native.Catalog(x),
    lambda x: wl._native.Catalog().add(x),
    lambda x: wl._native.Catalog().resolve(x, x),
    lambda x: wl._native.Catalog().lookup(x, x),
    lambda x: wl._native.Catalog().lookup_object(x),
    lambda x: wl._native.Catalog().get(x),
    lambda x: D._native.resolve(x, x),
    lambda x: D._native.resolve(x),
    lambda x: D._native.status(x),
    lambda x: D._native.update(x, x),
    lambda x: D._native.update("{}", x),
    lambda x: D._native.suspend(x),
    lambda x: D._native.attribute_pods(x, x),
    lambda x: D._native.attribute_pods(None, x),
    lambda x: D._native.gang_groups(x, x),
    lambda x: D._native.gang_structure(),
    lambda x: D._native.subtree_scale(x, x, x),
    lambda x: D._native.subtree_scale(x, "jobset"),
    lambda x: D._native.subtree_scale(JOBSET, x),
    lambda x: D._native.subtree_scale(JOBSET, "replicatedjob", x),
    lambda x: wl._native.compile_object(x, x),
    lambda x: wl._native.compile_one_object(x, x),
    lambda x: D._native.explain_status(x),
    lambda x: D._native.resume(x),
]


@pytest.mark.parametrize("i", range(len(NATIVE_CALLS)))
def test_native_entry_points_never_misbehave(i: int) -> None:
    for bad in BAD + ["{", "[1,", '"\\ud800"', "null", "1e999", "[" * 200 + "]" * 200, '{"components": 1}']:
        try:
            NATIVE_CALLS[i](bad)
        except ALLOWED:
            pass
        except BaseException as e:  # pragma: no cover
            pytest.fail(f"native call {i} with {bad!r}: {type(e).__name__}: {e}")


def test_fuzzed_texts_in_a_subprocess(tmp_path: Any) -> None:
    """Random and mutated texts through every text entry point, in a child
    process so that a crash would be a test failure, not a lost session."""
    script = r"""
import random, sys
import workload_lens as wl
random.seed(7)
seeds = [open(p, encoding="utf-8").read() for p in sys.argv[1:]]
alphabet = "{}[]:,-'\"&*!|>#\\\n\t abc0123.$?%@`~^"
n = 0
for i in range(1500):
    s = random.choice(seeds)
    s = list(s)
    for _ in range(random.randint(1, 8)):
        pos = random.randrange(len(s) + 1)
        op = random.random()
        if op < 0.4:
            s.insert(pos, random.choice(alphabet))
        elif op < 0.7 and s:
            del s[min(pos, len(s) - 1)]
        else:
            s[pos:pos] = random.choice(alphabet) * random.randint(1, 50)
    text = "".join(s)
    for fn in (wl.parse, wl.resolve, wl.validate, wl.compile_all, lambda t: wl.evaluate(t[:200])):
        try:
            fn(text)
        except (wl.WorkloadLensError, TypeError):
            n += 1
print("ok", n)
"""
    seeds = [str(EXAMPLES / "jobset.yaml"), str(REPO / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml")]
    out = subprocess.run([sys.executable, "-c", script, *seeds], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "RUST_BACKTRACE": "0"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.startswith("ok")
