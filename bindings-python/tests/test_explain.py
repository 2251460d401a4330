"""Definition.explain_status: the engine's status explanation, as plain data."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import workload_lens as wl

TRAINER_DEF = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-trainer-v1}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      specDefinition: {podTemplateSpecPath: .spec.template}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running:
            - byConditions: [{type: Ready, status: "True"}]
          completed:
            - byExpression: {expression: '.status.done | if . == 2 then error("boom") else . end', expectedResult: "true"}
"""


def trainer(status: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "apiVersion": "example.com/v1",
        "kind": "Trainer",
        "metadata": {"name": "t"},
        "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}},
        "status": status,
    }


def test_explains_the_jobset(jobset_text: str, jobset: Dict[str, Any]) -> None:
    d = wl.catalog().lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert d is not None
    why = d.explain_status(jobset_text)
    assert why == d.explain_status(jobset)
    assert why["component"] == "jobset"
    assert why["matchedStatuses"] == d.status(jobset)["matchedStatuses"] == ["Running"]  # type: ignore[index]
    keys = [c["key"] for c in why["categories"]]
    assert keys == ["suspended", "running", "failed", "completed", "initializing", "degraded"]
    failed = why["categories"][2]
    assert failed["matched"] is False
    check = failed["matchers"][0]["checks"][0]
    assert check["kind"] == "condition"
    assert check["outcome"] == "notMatched"
    assert check["reason"] == 'no condition of type "Failed"'


def test_says_why_not() -> None:
    d = wl.Definition(TRAINER_DEF)
    why = d.explain_status(trainer({"conditions": [{"type": "Ready", "status": "False"}], "done": 1}))
    assert why["matchedStatuses"] == ["Undefined"]
    running, completed = why["categories"]
    assert running["matchers"][0]["checks"][0]["reason"] == 'condition "Ready" has status "False", expected "True"'
    assert running["matchers"][0]["checks"][0]["actual"] == {"type": "Ready", "status": "False"}
    assert completed["matchers"][0]["checks"][0]["result"] == "1"


def test_an_evaluation_error_is_reported_not_raised() -> None:
    d = wl.Definition(TRAINER_DEF)
    obj = trainer({"done": 2})
    with pytest.raises(wl.JqRuntimeError) as exc:
        d.resolve(obj)
    why = d.explain_status(obj)
    assert why["error"]["code"] == "jq_runtime"
    assert why["error"]["message"] == exc.value.message
    assert "matchedStatuses" not in why
    check = why["categories"][1]["matchers"][0]["checks"][0]
    assert check["outcome"] == "error"
    assert check["error"]["code"] == "jq_runtime"


def test_not_an_object_raises() -> None:
    d = wl.Definition(TRAINER_DEF)
    with pytest.raises(wl.InvalidObjectError):
        d.explain_status({"kind": "Trainer"})
