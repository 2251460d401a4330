"""source_map (where objects, fields, pod templates and spans of jq
expressions are in a text) and human_amounts (the engine's amounts, for
people): the engine's answers, through the Python API."""

from __future__ import annotations

from typing import Any, Dict

import pytest

import workload_lens as wl
from conftest import EXAMPLES

DEFINITION = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: demo}
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
      statusDefinition: {statusMappings: {}}
      specDefinition:
        podTemplateSpecPath: |
          .spec.template
          | .x
"""


def text_of(text: str, span: Dict[str, Any]) -> str:
    raw = text.encode()
    return raw[span["start"]["offset"] : span["end"]["offset"]].decode()


def test_fields_and_spans() -> None:
    field = "spec.structureDefinition.rootComponent.specDefinition.podTemplateSpecPath"
    m = wl.source_map(DEFINITION, [field, {"path": field, "span": [17, 19]}, "spec.nope"])
    assert m["objects"] == [
        {
            "document": 0,
            "path": "",
            "value": m["objects"][0]["value"],
            "podTemplates": [],
        }
    ]
    p = m["places"][0]
    assert p["exact"] is True
    assert p["path"] == field
    assert p["key"]["start"] == {"line": 11, "column": 9, "offset": p["key"]["start"]["offset"]}
    assert text_of(DEFINITION, p["key"]) == "podTemplateSpecPath"
    assert text_of(DEFINITION, p["value"]) == ".spec.template\n          | .x"
    span = m["places"][1]["span"]
    assert text_of(DEFINITION, span) == ".x"
    assert (span["start"]["line"], span["start"]["column"]) == (13, 13)
    assert m["places"][2] is None
    # Bytes are text too; no questions: no places.
    assert wl.source_map(DEFINITION.encode())["places"] == []


def test_objects_of_a_list_and_nearest() -> None:
    pods = "kind: PodList\napiVersion: v1\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n"
    m = wl.source_map(pods, [{"object": 1, "path": "metadata.name"}, {"object": 1, "path": "spec.x", "nearest": True}])
    assert [(o["path"], o["value"]["start"]["line"]) for o in m["objects"]] == [("items[0]", 4), ("items[1]", 5)]
    assert m["places"][0]["path"] == "items[1].metadata.name"
    assert m["places"][0]["value"]["start"]["column"] == 20
    near = m["places"][1]
    assert (near["exact"], near["path"]) == (False, "items[1]")


def test_pod_templates_with_a_definition_or_catalog() -> None:
    text = (EXAMPLES / "jobset.yaml").read_text()
    q = {"component": "replicatedjob", "instance": "worker", "path": "spec.containers[0].image"}
    for m in (
        wl.catalog().source_map(text, [q]),
        wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet").source_map(text, [q]),  # type: ignore[union-attr]
    ):
        templates = m["objects"][0]["podTemplates"]
        assert [(t["instance"], t["part"], t["value"]["start"]["line"]) for t in templates] == [
            ("leader", "template", 18),
            ("worker", "template", 37),
        ]
        assert m["places"][0]["path"].startswith("spec.replicatedJobs[1].template.spec.template.spec.containers[0]")
    # Without a definition, a component question has no answer.
    assert wl.source_map(text, [q])["places"] == [None]


def test_errors() -> None:
    with pytest.raises(wl.ParseError):
        wl.source_map("a: [1\n")
    with pytest.raises(wl.UsageError):
        wl.source_map("a: 1", [{"pth": "a"}])
    with pytest.raises(TypeError):
        wl.source_map("a: 1", "a")  # type: ignore[arg-type]
    with pytest.raises(wl.LimitError) as e:
        wl.source_map("a: 1\n---\nb: 2\n", max_documents=1)
    assert e.value.limit == "maxDocuments"


def test_human_amounts() -> None:
    resolved = wl.resolve((EXAMPLES / "jobset.yaml").read_text())
    h = wl.human_amounts([resolved, {"x": {"cpuMillis": 26500, "memoryBytes": 2_000_000_000, "gpu": 3}}])
    assert h["millicores"]["26500"] == "26.5"
    assert h["millicores"]["8000"] == "8"
    assert h["bytes"]["2000000000"] == "1.9Gi"
    assert h["bytes"][str(64 * 2**30)] == "64Gi"
    assert "3" not in h["millicores"]
    assert wl.human_amounts(None) == {"millicores": {}, "bytes": {}}
