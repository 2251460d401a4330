"""Every public API with its types: checked with `mypy --strict` (and run)
by test_typing.py. Lines marked `type: ignore[...]` must be rejected by the
stubs (mypy --strict also fails on an unneeded ignore)."""

from __future__ import annotations

import pathlib
import pickle
from typing import Any, Dict, List, Optional

import kubernetes.client  # type: ignore[import-untyped, unused-ignore]

import workload_lens as wl
from workload_lens.types import (Diagnosis, DiagnosisFinding, Evidence, Finding, GangCandidate, GangStructure,
                                 KubeObject, Limits, Location, Resolved, ValidationResult)

EXAMPLE = pathlib.Path("examples/jobset.yaml")
DEFINITION = pathlib.Path("definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml")


def gpus(r: Resolved) -> int:
    n: int = r["totals"]["resources"]["gpu"]
    return n


def main() -> None:
    text: str = EXAMPLE.read_text()
    obj: Dict[str, Any] = wl.parse(text)[0]
    pods: List[Any] = wl.parse(pathlib.Path("examples/jobset-pods.yaml").read_text())[0]["items"]
    version: str = wl.__version__

    # module functions
    assert gpus(wl.resolve(text)) == 12
    assert gpus(wl.resolve(obj, definitions=[DEFINITION], pods=pods)) == 12
    assert gpus(wl.resolve(text.encode())) == 12
    found: Optional[wl.Definition] = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert found is not None
    cat: wl.Catalog = wl.catalog()
    sources: Dict[str, str] = wl.catalog_sources()
    one: wl.Definition = wl.compile(DEFINITION, max_steps=10**6)
    many: List[wl.Definition] = wl.compile_all(sources["jobset-x-k8s-io-jobset-v1alpha2.yaml"])
    results: List[ValidationResult] = wl.validate(DEFINITION)
    findings: List[Finding] = results[0]["findings"]
    valid: bool = results[0]["valid"]
    outputs: List[Any] = wl.evaluate(".a", {"a": 1}, limits={"maxSteps": 100}, max_outputs=10)
    docs: List[Any] = wl.parse("a: 1", max_documents=2)
    limits: Limits = wl.limits({"max_steps": 10}, max_depth=64)
    steps: int = limits["maxSteps"] + wl.default_limits()["maxDepth"]

    # Definition
    d = wl.Definition(DEFINITION.read_text(), limits={"maxSteps": 10**6})
    d2 = wl.Definition.from_path(str(DEFINITION), max_instances=100)
    d3 = wl.Definition(d.to_dict())
    d4 = wl.Definition(DEFINITION)
    name: str = d.name
    origin: str = d.origin
    gvk: wl.Gvk = d.gvk
    api_version: str = gvk.api_version
    group, ver, kind = gvk
    components: List[str] = d.components
    can: bool = d.can_suspend
    warnings: List[Finding] = d.warnings
    location: Optional[Location] = warnings[0].get("location") if warnings else None
    own_limits: Limits = d.limits
    resolved: Resolved = d.resolve(obj)
    live: Resolved = d.resolve(obj, pods)
    status: Optional[Dict[str, Any]] = d.status(obj)
    update: wl.UpdateResult = d.update(obj, {"components": {}})
    new_obj: Dict[str, Any] = update.object
    patch: List[Dict[str, Any]] = update.patch
    new2, patch2 = d.suspend(obj)
    resumed: wl.UpdateResult = d.resume(new2)
    attribution: Dict[str, Any] = d.attribute_pods(obj, pods)
    attribution2: Dict[str, Any] = d.attribute_pods(None, pods)
    gang: Dict[str, Any] = d.gang_groups(obj, pods)
    structure: GangStructure = d.gang_structure()
    candidates: List[GangCandidate] = (structure.get("candidates") or {}).get("worker", [])
    min_member: int = d.subtree_scale(obj, "replicatedjob", "worker") + d.subtree_scale(obj, "jobset")
    copy: wl.Definition = pickle.loads(pickle.dumps(d))
    diagnosis: Diagnosis = d.diagnose(obj, pods, events=[], related=[])
    diagnosis_text: Diagnosis = d.diagnose(text, events="[]")
    finding: Optional[DiagnosisFinding] = diagnosis["findings"][0] if diagnosis["findings"] else None
    evidence: List[Evidence] = finding["evidence"] if finding else []
    finding_code: str = finding["code"] if finding else "none"
    action: Optional[str] = finding.get("action") if finding else None
    when: Optional[str] = evidence[0].get("time") if evidence else None

    # Catalog
    c = wl.Catalog([d], bundled=True)
    c.add(DEFINITION.read_text(), max_steps=10)
    c.add(d2)
    looked: Optional[wl.Definition] = c.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    by_obj: wl.Definition = c.lookup_object(obj)
    by_name: Optional[wl.Definition] = c.get("jobset-x-k8s-io-jobset-v1alpha2")
    every: List[wl.Definition] = c.definitions()
    size: int = len(c)
    for each in c:
        assert isinstance(each, wl.Definition)
    via_catalog: Resolved = c.resolve(text, pods=pods)
    diagnosed: Diagnosis = c.diagnose(obj, pods=pods, events=[], related=[])
    module_diagnosed: Diagnosis = wl.diagnose(text, definitions=[d], pods=pods, events=None)
    assert diagnosed == module_diagnosed and diagnosed["workload"]["kind"] == "JobSet"

    # kubernetes models are accepted where objects are
    model: KubeObject = kubernetes.client.V1Pod(api_version="v1", kind="Pod",
                                                metadata=kubernetes.client.V1ObjectMeta(name="p"))
    assert wl.resolve(model)["workload"]["name"] == "p"

    # errors
    try:
        wl.evaluate("error(1)")
    except wl.JqRuntimeError as e:
        code: str = e.code
        message: str = e.message
        loc: Location = e.location
        limit: Optional[str] = e.limit
        errs: List[Finding] = e.findings
    except wl.WorkloadLensError:
        raise
    all_classes = (wl.ParseError, wl.ValidationError, wl.JqCompileError, wl.JqRuntimeError,
                   wl.ConversionError, wl.CountMismatchError, wl.LimitError, wl.NoDefinitionError,
                   wl.InvalidObjectError, wl.UpdateError, wl.UsageError)
    assert all(issubclass(k, wl.WorkloadLensError) for k in all_classes)

    print(version, name, origin, api_version, group, ver, kind, components, can, location, own_limits,
          resolved is live, status, new_obj, patch, patch2, resumed, attribution, attribution2, gang,
          structure, candidates, min_member,
          copy, looked, by_obj, by_name, every, size, via_catalog, findings, valid, outputs, docs,
          steps, one, many, d3, d4, cat, found, diagnosis_text, finding_code, action, when)


def live_cluster_rules(obj: Dict[str, Any], c: wl.Catalog) -> None:
    """The live-cluster rules with their result types."""
    from workload_lens.types import ApiResource, OwnerKind, Usage, WorkloadSummary

    served: List[ApiResource] = [
        {"group": "jobset.x-k8s.io", "version": "v1alpha2", "kind": "JobSet", "plural": "jobsets",
         "singular": "jobset", "shortNames": [], "namespaced": True, "preferred": True}]
    found: ApiResource = c.find_type("jobsets", served)
    covered: List[ApiResource] = c.covered_types(served)
    engine, warnings = c.with_cluster_definitions([])
    reasons: List[str] = [w["reason"] for w in warnings]
    rows: List[WorkloadSummary] = engine.list_workloads([obj], top_level_only=True, phases=["Running"])
    gpus: int = sum(r["gpus"] for r in rows)
    u: Usage = wl.usage(rows)
    kinds: List[OwnerKind] = wl.missing_owners([obj], [{"apiVersion": "v1", "kind": "Pod"}])
    resolved: Dict[str, Any] = c.resolve_pages(obj, [b'{"kind":"PodList","items":[]}'])
    print(found["plural"], covered, reasons, gpus, u["total"]["gpus"], kinds, resolved["totals"])


def rejected(obj: Dict[str, Any], pods: List[Any], d: wl.Definition, c: wl.Catalog) -> None:
    """Never called: each line must be a type error."""
    wl.resolve(obj, pods=pods, definitions=[d], extra=1)  # type: ignore[call-arg]
    wl.evaluate(1)  # type: ignore[arg-type]
    wl.evaluate(".", max_stepz=1)  # type: ignore[call-arg]
    wl.evaluate(".", max_steps="1")  # type: ignore[arg-type]
    wl.Definition.from_path(1)  # type: ignore[arg-type]
    wl.lookup("v1")  # type: ignore[call-arg]
    d.update(obj, 1)  # type: ignore[arg-type]
    bad_name: int = d.name  # type: ignore[assignment]
    bad_limits: Limits = {"maxSteps": 1}  # type: ignore[typeddict-item]
    c.add(1)  # type: ignore[arg-type]
    d.diagnose(obj, pods, [])  # type: ignore[call-arg]
    c.diagnose(obj, event=[])  # type: ignore[call-arg]
    wl.diagnose(obj, pods)  # type: ignore[call-arg]
    bad_code: int = d.diagnose(obj)["findings"][0]["code"]  # type: ignore[assignment]


if __name__ == "__main__":
    main()
    live_cluster_rules(wl.parse(open("examples/jobset.yaml").read())[0], wl.Catalog())
