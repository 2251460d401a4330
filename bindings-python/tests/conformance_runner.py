"""The conformance runner for the Python binding.

A line-by-line mirror of the Rust runner (`conformance/src/lib.rs`): the
same operations on the same inputs, the same canonical outcome
(`{"result": R}` or `{"error": E}`) and the same comparison rules. See
`conformance/README.md`. Cases may write big inputs small with generators
("Generated inputs" there): `run_case` expands them (`expand_case`) and
`compare` expands the expectation's, with the rules of
`conformance/src/generate.rs`.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import workload_lens as wl

REPO = Path(__file__).resolve().parents[2]
RUNTIME = "python"


def suite_path() -> Path:
    return Path(os.environ.get("WORKLOAD_LENS_SUITE", REPO / "conformance" / "suite.json"))


def results_path() -> Path:
    return REPO / "target" / "conformance" / f"{RUNTIME}.json"


def load_cases() -> List[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """(case, group) for every case of suite.json, in suite order."""
    suite = json.loads(suite_path().read_text(encoding="utf-8"))
    if suite.get("format") != "workload-lens-conformance/v1":
        raise ValueError(f"unknown suite format {suite.get('format')!r}")
    return [(c, g) for g in suite["groups"] for c in g["cases"]]


class CannotRun(Exception):
    """The case is malformed for this runner (the Rust runner's `Err(String)`)."""


class _Outcome(Exception):
    def __init__(self, value: Dict[str, Any]) -> None:
        super().__init__()
        self.value = value


# --- generators (conformance/src/generate.rs) -------------------------------

GENERATE_MAX_ELEMENTS = 10_000_000
"""Values one case may generate."""
GENERATE_MAX_BYTES = 64 << 20
"""Bytes of strings (UTF-8, keys included) one case may generate."""
GENERATE_MAX_NESTING = 256
"""Deepest nesting the expansion walks."""

_DIRECTIVES = ("$generate", "$repeat", "$concat")


def _utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


class _Budget:
    def __init__(self) -> None:
        self.elements = 0
        self.bytes = 0

    def charge(self, elements: int, nbytes: int) -> None:
        self.elements += elements
        self.bytes += nbytes
        if self.elements > GENERATE_MAX_ELEMENTS:
            raise CannotRun(f"generators: more than {GENERATE_MAX_ELEMENTS} generated values in one case")
        if self.bytes > GENERATE_MAX_BYTES:
            raise CannotRun(f"generators: more than {GENERATE_MAX_BYTES} generated string bytes in one case")


def _directive(v: Any) -> Optional[str]:
    if isinstance(v, dict) and len(v) == 1:
        (k,) = v
        if k in _DIRECTIVES:
            return k  # type: ignore[no-any-return]
    return None


def _fields(arg: Any, what: str, keys: Tuple[str, ...], optional: Tuple[str, ...] = ()) -> Dict[str, Any]:
    if (
        not isinstance(arg, dict)
        or not all(k in arg for k in keys)
        or not all(k in keys or k in optional for k in arg)
    ):
        raise CannotRun(f"{what} takes {list(keys)} (and optionally {list(optional)})")
    return arg


def _count_of(o: Dict[str, Any], key: str, what: str) -> int:
    n = o[key]
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise CannotRun(f"{what}: `{key}` must be a non-negative integer")
    return n


def _size(v: Any) -> Tuple[int, int]:
    """Values and UTF-8 string bytes (keys included) of an expanded value."""
    if isinstance(v, str):
        return 1, _utf8_len(v)
    if isinstance(v, list):
        n, b = 1, 0
        for x in v:
            m, c = _size(x)
            n, b = n + m, b + c
        return n, b
    if isinstance(v, dict):
        n, b = 1, 0
        for k, x in v.items():
            m, c = _size(x)
            n, b = n + m, b + c + _utf8_len(k)
        return n, b
    return 1, 0


def _replace_index(s: str, i: int) -> str:
    if "{i" not in s:
        return s
    return s.replace("{i-1}", str(i - 1)).replace("{i}", str(i))


def _substitute(v: Any, i: int) -> Any:
    if isinstance(v, str):
        return _replace_index(v, i)
    if isinstance(v, list):
        return [_substitute(x, i) for x in v]
    if isinstance(v, dict):
        return {_replace_index(k, i): _substitute(x, i) for k, x in v.items()}
    return v


def _expand_at(v: Any, budget: _Budget, depth: int) -> Any:
    if depth > GENERATE_MAX_NESTING:
        raise CannotRun(f"generators: a case value nested deeper than {GENERATE_MAX_NESTING} levels")
    name = _directive(v)
    if name == "$repeat":
        o = _fields(v[name], "$repeat", ("string", "times"))
        if not isinstance(o["string"], str):
            raise CannotRun("$repeat: `string` must be a string")
        times = _count_of(o, "times", "$repeat")
        budget.charge(1, _utf8_len(o["string"]) * times)
        if not o["string"]:
            return ""
        if "{i" not in o["string"]:
            return o["string"] * times  # type: ignore[no-any-return]
        return "".join(_replace_index(o["string"], i) for i in range(times))
    if name == "$concat":
        if not isinstance(v[name], list):
            raise CannotRun("$concat takes an array")
        items = [_expand_at(x, budget, depth + 1) for x in v[name]]
        if items and all(isinstance(x, list) for x in items):
            budget.charge(1, 0)
            return [y for x in items for y in x]
        if not all(isinstance(x, str) for x in items):
            raise CannotRun("$concat: the items must be all strings or all arrays")
        out = "".join(items)
        budget.charge(1, _utf8_len(out))
        return out
    if name == "$generate":
        o = _fields(v[name], "$generate", ("count", "template"), ("start",))
        count = _count_of(o, "count", "$generate")
        start = min(_count_of(o, "start", "$generate"), 1 << 53) if "start" in o else 0
        template = _expand_at(o["template"], budget, depth + 1)
        nodes, nbytes = _size(template)
        budget.charge(count * nodes + 1, count * nbytes)
        return [_substitute(template, start + i) for i in range(count)]
    if isinstance(v, list):
        return [_expand_at(x, budget, depth + 1) for x in v]
    if isinstance(v, dict):
        return {k: _expand_at(x, budget, depth + 1) for k, x in v.items()}
    return v


def has_generators(v: Any) -> bool:
    """Whether `v` holds a generator (a value without one need not be expanded, or copied)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if _directive(x) is not None:
            return True
        if isinstance(x, list):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return False


def expand(v: Any) -> Any:
    """`v` with every generator expanded (CannotRun when one is malformed or too big)."""
    return _expand_at(v, _Budget(), 0)


def expand_case(case: Dict[str, Any], group: Dict[str, Any]) -> Dict[str, Any]:
    """The case with the generators of its inputs expanded and `definition:
    {ref}` replaced by the group's definition (expanded too): what
    `run_expanded` runs. The expectation is left as written: `compare`
    expands it, after the run."""
    budget = _Budget()
    out = dict(case)
    d = case.get("definition")
    if isinstance(d, dict) and len(d) == 1 and "ref" in d:
        name = d["ref"] if isinstance(d["ref"], str) else ""
        defs = group.get("definitions") or {}
        if name not in defs:
            raise CannotRun(f"no group definition {name}")
        out["definition"] = defs[name]
    for k in ("definition", "object", "objectText", "pods", "events", "related", "request", "input"):
        if out.get(k) is not None:
            out[k] = _expand_at(out[k], budget, 0)
    return out


# --- canonical JSON (conformance/src/lib.rs `canonical`) --------------------


def canonical(v: Any) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        if -(2**63) <= v < 2**64:
            return str(v)
        # serde_json (without arbitrary_precision) reads such a number as f64.
        return canonical(float(v))
    if isinstance(v, float):
        if v == 0.0:
            return "0"
        if math.isfinite(v) and v == int(v) and abs(v) < 9.007_199_254_740_992e15:
            return str(int(v))
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ",".join(canonical(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{canonical(v[k])}" for k in sorted(v)) + "}"
    raise TypeError(f"not a JSON value: {type(v).__name__}")


def rust_json(v: Any) -> str:
    """`serde_json::Value::to_string()`: compact, keys sorted."""
    return json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


# --- outcomes ---------------------------------------------------------------


def finding_value(f: Dict[str, Any]) -> Dict[str, Any]:
    m: Dict[str, Any] = {"code": f["code"], "severity": f["severity"]}
    loc = f.get("location") or {}
    if loc.get("field") is not None:
        m["field"] = loc["field"]
    if loc.get("line") is not None:
        m["line"] = loc["line"]
    return m


def error_value(e: wl.WorkloadLensError) -> Dict[str, Any]:
    m: Dict[str, Any] = {"code": e.code}
    if e.limit is not None:
        m["limit"] = e.limit
    loc = e.location
    for k in ("field", "component", "instance", "line", "column", "span", "request"):
        if loc.get(k) is not None:
            m[k] = loc[k]
    if e.status is not None:
        m["status"] = e.status
    if e.findings:
        m["findings"] = [finding_value(f) for f in e.findings]
    return {"error": m}


def _attempt(fn: Any, *args: Any, **kw: Any) -> Any:
    try:
        return fn(*args, **kw)
    except wl.WorkloadLensError as e:
        raise _Outcome(error_value(e)) from None


def _limits_of(case: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    limits = case.get("limits")
    if limits is None:
        return None
    try:
        wl.limits(limits)
    except (wl.UsageError, TypeError) as e:
        raise CannotRun(f"bad limits: {e}") from None
    return dict(limits)


def _definition_of(case: Dict[str, Any], group: Dict[str, Any], limits: Any) -> wl.Definition:
    d = case.get("definition")
    if d is None:
        raise CannotRun("the case needs a definition")
    source: Any
    if isinstance(d, dict) and len(d) == 1 and "catalog" in d:
        name = d["catalog"] if isinstance(d["catalog"], str) else ""
        files = wl.catalog_sources()
        match = [t for f, t in files.items() if _trim_yaml(f) == name]
        if not match:
            raise CannotRun(f"no catalog definition {name}")
        source = match[0]
    elif isinstance(d, dict) and len(d) == 1 and "ref" in d:
        name = d["ref"] if isinstance(d["ref"], str) else ""
        defs = group.get("definitions") or {}
        if name not in defs:
            raise CannotRun(f"no group definition {name}")
        source = defs[name]  # a dict: compiled from its compact JSON, as Rust does
    elif isinstance(d, dict) and len(d) == 1 and "text" in d:
        source = d["text"] if isinstance(d["text"], str) else ""
    elif isinstance(d, dict):
        source = d
    else:
        source = rust_json(d)
    return _attempt(wl.compile, source, limits=limits)  # type: ignore[no-any-return]


def _trim_yaml(f: str) -> str:
    while f.endswith(".yaml"):
        f = f[: -len(".yaml")]
    return f


def _object_of(case: Dict[str, Any], limits: Any) -> Any:
    text = case.get("objectText")
    if text is not None:
        if not isinstance(text, str):
            raise CannotRun("objectText must be a string")
        docs = _attempt(wl.parse, text, limits=limits)
        if len(docs) == 1:
            return docs[0]
        raise _Outcome({"error": {"code": "usage"}})
    obj = case.get("object")
    if obj is None:
        raise CannotRun("the case needs an object")
    return obj


def run_case(case: Dict[str, Any], group: Dict[str, Any]) -> Dict[str, Any]:
    """The canonical outcome of one case; CannotRun for a malformed case.
    Expands the case's generators first."""
    return run_expanded(expand_case(case, group), group)


def run_expanded(case: Dict[str, Any], group: Dict[str, Any]) -> Dict[str, Any]:
    """`run_case` of a case whose generators are expanded (`expand_case`)."""
    try:
        return {"result": _run(case, group)}
    except _Outcome as o:
        return o.value


def server_of(case: Dict[str, Any], group: Dict[str, Any]) -> Dict[str, Tuple[Optional[int], str]]:
    """The replies of a ``cluster`` case's server (conformance/src/lib.rs
    ``server_of``): request -> ``(status, body)`` or ``(None, error)``."""
    parts = case.get("server")
    if parts is None:
        raise CannotRun("a cluster case needs a server")
    out: Dict[str, Tuple[Optional[int], str]] = {}
    for part in parts if isinstance(parts, list) else [parts]:
        m = (group.get("servers") or {}).get(part) if isinstance(part, str) else part
        if not isinstance(m, dict):
            raise CannotRun(f"no group server {part}")
        for path, reply in m.items():
            if "error" in reply:
                out[path] = (None, str(reply["error"]))
            elif "bodyText" in reply:
                out[path] = (int(reply["status"]), str(reply["bodyText"]))
            else:
                out[path] = (int(reply["status"]), json.dumps(reply.get("body"), separators=(",", ":")))
    return out


_NOT_FOUND = (404, json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                               "message": "the server could not find the requested resource",
                               "reason": "NotFound", "code": 404}))


def _cluster_case(case: Dict[str, Any], group: Dict[str, Any], limits: Any) -> Any:
    """A ``cluster`` case: the protocol driven against the recorded server."""
    server = server_of(case, group)
    catalog = _attempt(wl.Catalog, limits=limits)
    if case.get("definition") is not None:
        catalog.add(_definition_of(case, group, limits))
    session = _attempt(catalog.cluster_session, case.get("cluster"))
    requests: List[str] = []
    paths = session.requests()
    while paths:
        requests.extend(paths)
        try:
            session.feed([server.get(p, _NOT_FOUND) for p in paths])
        except wl.WorkloadLensError:
            break
        paths = session.requests()
    outcome = _attempt(session.finish)
    if case.get("cluster") != "discover":
        outcome.pop("served", None)
    return {"requests": requests, "outcome": outcome}


def _run(case: Dict[str, Any], group: Dict[str, Any]) -> Any:
    limits = _limits_of(case)
    op = case.get("op")
    if op == "cluster":
        return _cluster_case(case, group, limits)
    if op == "evaluate":
        expr = case.get("expression")
        if expr is None:
            raise CannotRun("evaluate needs an expression")
        return {"outputs": _attempt(wl.evaluate, expr, case.get("input"), limits=limits)}
    if op == "parse":
        text = case.get("objectText")
        if text is None:
            raise CannotRun("parse needs objectText")
        if not isinstance(text, str):
            raise CannotRun("objectText must be a string")
        return _attempt(wl.parse, text, limits=limits)
    if op == "validate":
        d = case.get("definition")
        if isinstance(d, dict) and len(d) == 1 and "text" in d:
            text = d["text"] if isinstance(d["text"], str) else ""
        elif isinstance(d, dict) and len(d) == 1 and "ref" in d:
            defs = group.get("definitions") or {}
            name = d["ref"] if isinstance(d["ref"], str) else ""
            if name not in defs:
                raise CannotRun("no such group definition")
            text = rust_json(defs[name])
        elif d is not None:
            text = rust_json(d)
        else:
            raise CannotRun("validate needs a definition")
        results = _attempt(wl.validate, text, limits=limits)
        return [{"valid": r["valid"], "findings": [finding_value(f) for f in r["findings"]]} for r in results]

    if op == "sourceMap":
        text = case.get("objectText")
        if not isinstance(text, str):
            raise CannotRun("sourceMap needs objectText (a string)")
        queries = case.get("queries")
        if case.get("definition") is None:
            return _attempt(wl.source_map, text, queries, limits=limits)
        return _attempt(_definition_of(case, group, limits).source_map, text, queries)

    d = _definition_of(case, group, limits)
    if op == "resolve":
        obj = _object_of(case, limits)
        pods = case.get("pods")
        if pods is not None:
            return _attempt(d.resolve, obj, pods)
        return _attempt(d.resolve, obj)
    if op == "resolveByKind":
        obj = _object_of(case, limits)
        return _attempt(wl.resolve, obj, definitions=[d])
    if op == "status":
        return _attempt(d.status, _object_of(case, limits))
    if op == "update":
        obj = _object_of(case, limits)
        request = case.get("request")
        if request is None:
            request = {}
        if not isinstance(request, dict):
            raise CannotRun("bad request: not an object")
        # A request the engine cannot read is its usage error, as in every runtime.
        r = _attempt(d.update, obj, request)
        return {"object": r.object, "patch": r.patch}
    if op in ("suspend", "resume"):
        obj = _object_of(case, limits)
        r = _attempt(d.suspend if op == "suspend" else d.resume, obj)
        return {"object": r.object, "patch": r.patch}
    if op == "attribute":
        return _attempt(d.attribute_pods, case.get("object"), case.get("pods") or [])
    if op == "gang":
        obj = _object_of(case, limits)
        return _attempt(d.gang_groups, obj, case.get("pods") or [])
    if op == "diagnose":
        obj = _object_of(case, limits)
        return _attempt(d.diagnose, obj, case.get("pods"), events=case.get("events"), related=case.get("related"))
    if op == "gangStructure":
        return _attempt(d.gang_structure)
    if op == "subtreeScale":
        obj = _object_of(case, limits)
        component = case.get("component")
        if not isinstance(component, str):
            raise CannotRun("subtreeScale needs a component")
        return _attempt(d.subtree_scale, obj, component, case.get("instance"))
    if op == "compile":
        return {"name": d.name, "warnings": [finding_value(f) for f in d.warnings]}
    raise CannotRun(f"unknown op {op}")


# --- comparison (conformance/src/lib.rs `compare`) --------------------------


def _shown(v: Any) -> str:
    """A value's canonical JSON for a message: at most 300 bytes of it (conformance/src/lib.rs `shown`)."""
    b = canonical(v).encode("utf-8", "surrogatepass")
    if len(b) <= 300:
        return b.decode("utf-8", "surrogatepass")
    end = 300
    while end > 0 and (b[end] & 0xC0) == 0x80:
        end -= 1
    return f"{b[:end].decode('utf-8', 'surrogatepass')}... ({len(b) - end} more bytes)"


def compare(expectation: Any, actual: Dict[str, Any]) -> Optional[str]:
    """None when the outcome is as expected (generators in it expanded), else the difference."""
    expect = expand(expectation) if has_generators(expectation) else expectation
    want = expect.get("error") if isinstance(expect, dict) else None
    got = actual.get("error")
    if isinstance(expect, dict) and "error" in expect:
        if isinstance(want, dict) and isinstance(got, dict):
            for k, w in want.items():
                g = got.get(k)
                if canonical(w) != canonical(g):
                    return f"error.{k}: expected {_shown(w)}, got {_shown(g)}"
            return None
        return f"expected an error, got {_shown(actual)}"
    if "error" in actual:
        return f"unexpected error {_shown(actual)}"
    if canonical(expect) == canonical(actual):
        return None
    return diff(expect, actual)


def diff(a: Any, b: Any, path: str = "") -> str:
    out: List[str] = []
    _diff_into(a, b, path, out)
    return "\n".join(out[:8])


def _diff_into(a: Any, b: Any, path: str, out: List[str]) -> None:
    if canonical(a) == canonical(b) or len(out) >= 8:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            p = f"{path}.{k}"
            if k in a and k in b:
                _diff_into(a[k], b[k], p, out)
            elif k in a:
                out.append(f"{p}: expected {_shown(a[k])}, missing")
            else:
                out.append(f"{p}: unexpected {_shown(b[k])}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (v, w) in enumerate(zip(a, b)):
            _diff_into(v, w, f"{path}[{i}]", out)
    else:
        out.append(f"{path}: expected {_shown(a)}, got {_shown(b)}")
