"""Error mapping: each exception class from a real failing input, with the
engine's code, location, limit and findings; never a PanicException."""

from __future__ import annotations

import json
import pickle
import re
from typing import Any, Dict, Type

import pytest

import workload_lens as wl
from conftest import REPO

APP = {"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "a"}}


def karta(root: Dict[str, Any], children: Any = ()) -> Dict[str, Any]:
    root = {"name": "app", "kind": {"group": "example.com", "version": "v1", "kind": "App"}, **root}
    sd: Dict[str, Any] = {"rootComponent": root}
    if children:
        sd["childComponents"] = list(children)
    return {"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": "t"},
            "spec": {"structureDefinition": sd}}


WORKERS = {
    "name": "worker", "ownerRef": "app",
    "instanceIdPath": ".spec.groups[].name",
    "specDefinition": {"podTemplateSpecPath": ".spec.groups[].template"},
    "podSelector": {"componentInstanceSelector": {"idPath": ".metadata.labels.group"}},
}

STATUS = {"statusDefinition": {"statusMappings": {}}}


def parse_error() -> Any:
    return wl.parse("a: [1, 2\n")


def validation_error() -> Any:
    return wl.Definition(karta({"statusDefinition": {"phaseDefinition": {"path": ".x | range(3)"},
                                                      "statusMappings": {}}}))


def jq_compile_error() -> Any:
    return wl.evaluate(".a | (")


def jq_runtime_error() -> Any:
    return wl.evaluate('error("boom")')


def conversion_error() -> Any:
    d = wl.Definition(karta(STATUS, [WORKERS]))
    return d.resolve({**APP, "spec": {"groups": [{"name": "w1", "template": {}}, {"template": {}}]}})


def count_mismatch_error() -> Any:
    w = {**WORKERS, "instanceIdPath": ".spec.names[]",
         "specDefinition": {"podTemplateSpecPath": ".spec.templates[]"}}
    return wl.Definition(karta(STATUS, [w])).resolve({**APP, "spec": {"names": [], "templates": [{}]}})


def limit_error() -> Any:
    return wl.evaluate("[.[] as $a | .[] as $b | $a] | length", list(range(100)), max_steps=1000)


def no_definition_error() -> Any:
    return wl.resolve({**APP})


def invalid_object_error() -> Any:
    return wl.resolve({"kind": "JobSet"})


def update_error() -> Any:
    d = wl.Definition(karta({**STATUS, "specDefinition": {"fragmentedPodSpecDefinition": {"imagePath": ".spec.image"}}}))
    return d.update({**APP, "spec": {"image": "x"}},
                    {"components": {"app": {"fragments": {"": {"labels": {"x": "y"}}}}}})


def usage_error() -> Any:
    d = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert d is not None
    return d.update({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"}},
                    {"components": {"nope": {"podSpecs": {"": {}}}}})


def _cluster(status: Any) -> Any:
    """The first batch of a listing (discovery) answered with `status`."""
    session = wl.Catalog().cluster_session({"list": {"type": "jobsets", "namespace": "ml"}})
    body = b'{"kind": "Status", "message": "no"}' if status is not None else "connection refused"
    return session.feed([(status, body) for _ in session.requests()])


def no_config_error() -> Any:
    from workload_lens.kube import Cluster

    return Cluster(kubeconfig="/nonexistent/kubeconfig")


CASES = [
    (parse_error, wl.ParseError, "parse"),
    (validation_error, wl.ValidationError, "validation"),
    (jq_compile_error, wl.JqCompileError, "jq_compile"),
    (jq_runtime_error, wl.JqRuntimeError, "jq_runtime"),
    (conversion_error, wl.ConversionError, "conversion"),
    (count_mismatch_error, wl.CountMismatchError, "count_mismatch"),
    (limit_error, wl.LimitError, "limit"),
    (no_definition_error, wl.NoDefinitionError, "no_definition"),
    (invalid_object_error, wl.InvalidObjectError, "invalid_object"),
    (update_error, wl.UpdateError, "update"),
    (usage_error, wl.UsageError, "usage"),
    (lambda: _cluster(500), wl.ApiError, "api"),
    (lambda: _cluster(None), wl.UnreachableError, "unreachable"),
    (lambda: _cluster(401), wl.UnauthorizedError, "unauthorized"),
    (lambda: _cluster(403), wl.ForbiddenError, "forbidden"),
    (lambda: _cluster(404), wl.NotFoundError, "not_found"),
    (no_config_error, wl.NoConfigError, "no_config"),
]


@pytest.mark.parametrize(("fn", "cls", "code"), CASES, ids=[c for _, _, c in CASES])
def test_error_class(fn: Any, cls: Type[wl.WorkloadLensError], code: str) -> None:
    with pytest.raises(cls) as info:
        fn()
    e = info.value
    assert type(e) is cls
    assert isinstance(e, wl.WorkloadLensError) and isinstance(e, Exception)
    assert e.code == code == cls.code
    assert isinstance(e.message, str) and e.message
    assert isinstance(e.location, dict)
    assert str(e).startswith(e.message)
    assert (e.limit is not None) == (code == "limit")
    assert bool(e.findings) == (code == "validation")
    # errors travel through pickle (process pools) with every attribute
    copy = pickle.loads(pickle.dumps(e))
    assert type(copy) is cls
    assert (copy.code, copy.message, copy.location, copy.limit, copy.findings, str(copy)) == (
        e.code, e.message, e.location, e.limit, e.findings, str(e))


def test_every_code_has_a_class() -> None:
    assert sorted(c for _, _, c in CASES) == sorted(
        ["parse", "validation", "jq_compile", "jq_runtime", "conversion", "count_mismatch", "limit",
         "no_definition", "invalid_object", "update", "usage", "api", "unreachable", "unauthorized",
         "forbidden", "not_found", "no_config"])
    assert {cls for _, cls, _ in CASES} == {
        getattr(wl, n) for n in wl.__all__ if n.endswith("Error") and n != "WorkloadLensError"}


def test_classes_are_the_engines_error_codes() -> None:
    """The exception classes are exactly the engine's list of error codes
    (workload_lens_binding::ops::free::error_codes): one class per code, named as the engine names it;
    the README's table lists the same."""
    from workload_lens import _errors

    listed = json.loads(wl._native.error_codes())
    engine = {(e["code"], e["class"]) for e in listed}
    assert len(engine) == len(listed) == len({e["code"] for e in listed})
    exported = [getattr(wl, n) for n in wl.__all__]
    ours = {(c.code, c.__name__) for c in exported
            if isinstance(c, type) and issubclass(c, wl.WorkloadLensError) and c is not wl.WorkloadLensError}
    assert ours == engine
    assert {(code, cls.__name__) for code, cls in _errors._CLASSES.items()} == engine
    assert set(_errors.__all__) == {name for _, name in engine} | {"WorkloadLensError"}
    readme = (REPO / "bindings-python" / "README.md").read_text(encoding="utf-8")
    table = re.findall(r"^\| `(\w+)` \| `(\w+)` \|$", readme, re.M)
    assert {(code, name) for name, code in table} == engine


def test_locations_are_the_engines() -> None:
    with pytest.raises(wl.ParseError) as p:
        wl.parse("a: 1\nb: [1, 2\n")
    assert p.value.location["line"] >= 2 and "column" in p.value.location
    with pytest.raises(wl.JqCompileError) as c:
        wl.evaluate(".a | range(3)")
    assert c.value.location == {"expression": ".a | range(3)", "span": [5, 10]}
    with pytest.raises(wl.ConversionError) as v:
        conversion_error()
    assert v.value.location["component"] == "worker"
    assert v.value.location["field"] == "spec.structureDefinition.childComponents[0].instanceIdPath"
    with pytest.raises(wl.LimitError) as l:
        limit_error()
    assert l.value.limit == "maxSteps"
    with pytest.raises(wl.ValidationError) as val:
        validation_error()
    f = next(f for f in val.value.findings if f["code"] == "jq-denied")
    assert f["severity"] == "error"
    assert f["location"]["field"] == "spec.structureDefinition.rootComponent.statusDefinition.phaseDefinition.path"
    assert "error[jq-denied]" in str(val.value)


def test_panics_become_workload_lens_errors() -> None:
    """The engine does not panic; if it did, the binding reports an internal
    WorkloadLensError (not pyo3's PanicException, a BaseException)."""
    with pytest.raises(wl.WorkloadLensError) as info:
        wl._native._panic_for_tests("boom")
    assert type(info.value) is wl.WorkloadLensError
    assert info.value.code == "internal"
    assert "boom" in info.value.message
    # and the interpreter carries on
    assert wl.evaluate("1") == [1]
