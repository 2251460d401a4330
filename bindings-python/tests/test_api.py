"""The Python API: every function, class and property, and results in the
engine's canonical JSON shape."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
from typing import Any, Dict, List

import pytest

import workload_lens as wl
from conftest import EXAMPLES, REPO

#: The console command the wheel installed (beside this interpreter).
CLI = str(pathlib.Path(sys.executable).parent / "workload-lens")
JOBSET_DEF = REPO / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml"

TRAINER_TEXT = """\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-trainer-v1}
spec:
  structureDefinition:
    rootComponent:
      name: trainer
      kind: {group: example.com, version: v1, kind: Trainer}
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: '.spec.replicas // 1'}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
"""

TRAINER = {
    "apiVersion": "example.com/v1",
    "kind": "Trainer",
    "metadata": {"name": "t"},
    "spec": {
        "replicas": 2,
        "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": 8}}}]}},
    },
    "status": {"phase": "Running"},
}


def test_version() -> None:
    assert isinstance(wl.__version__, str) and wl.__version__.count(".") == 2


def test_resolve_by_kind_text_dict_and_bytes(jobset_text: str, jobset: Dict[str, Any]) -> None:
    a = wl.resolve(jobset_text)
    b = wl.resolve(jobset)
    c = wl.resolve(jobset_text.encode())
    assert a == b == c
    assert a["totals"]["resources"]["gpu"] == 12
    assert a["definition"] == {
        "name": "jobset-x-k8s-io-jobset-v1alpha2",
        "origin": "catalog",
        "format": "run.ai/v1alpha1",
    }


def test_results_are_the_cli_json(jobset_text: str) -> None:
    """resolve() gives exactly what `workload-lens describe -o json` prints."""
    out = subprocess.run(
        [CLI, "describe", str(EXAMPLES / "jobset.yaml"), "-o", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout) == wl.resolve(jobset_text)


def test_results_are_plain_json_values(jobset_text: str) -> None:
    def check(v: Any) -> None:
        assert type(v) in (dict, list, str, int, float, bool, type(None)), type(v)
        if isinstance(v, dict):
            for k, x in v.items():
                assert type(k) is str
                check(x)
        elif isinstance(v, list):
            for x in v:
                check(x)

    r = wl.resolve(jobset_text)
    check(r)
    assert json.loads(json.dumps(r)) == r
    # integers stay integers
    assert type(r["totals"]["resources"]["memoryBytes"]) is int


def test_definition_from_text_dict_path_and_bytes() -> None:
    d = wl.Definition(TRAINER_TEXT)
    assert d.name == "example-com-trainer-v1"
    assert d.origin == "user"
    assert d.gvk == wl.Gvk("example.com", "v1", "Trainer")
    assert d.gvk.api_version == "example.com/v1"
    assert wl.Gvk("", "v1", "Pod").api_version == "v1"
    assert d.components == ["trainer"]
    assert d.can_suspend is False
    assert d.warnings == []
    assert d.limits == wl.default_limits()
    assert repr(d) == "<Definition example-com-trainer-v1 (example.com/v1 Trainer, user)>"
    assert wl.Definition(TRAINER_TEXT.encode()).name == d.name
    assert wl.Definition(d.to_dict()).to_dict() == d.to_dict()
    assert wl.compile(TRAINER_TEXT).name == d.name
    assert d.to_dict()["kind"] == "Karta"

    by_str = wl.Definition.from_path(str(JOBSET_DEF))
    by_path = wl.Definition.from_path(JOBSET_DEF)
    direct = wl.Definition(pathlib.Path(JOBSET_DEF))
    assert by_str.name == by_path.name == direct.name == "jobset-x-k8s-io-jobset-v1alpha2"
    assert by_str.can_suspend is True
    with pytest.raises(FileNotFoundError):
        wl.Definition.from_path(REPO / "no-such-file.yaml")


def test_definition_methods(jobset_text: str, jobset: Dict[str, Any], jobset_pods: List[Any]) -> None:
    d = wl.Definition(TRAINER_TEXT)
    r = d.resolve(TRAINER)
    assert r["totals"]["resources"]["gpu"] == 16
    assert d.status(TRAINER) == {"phase": "Running", "matchedStatuses": ["Running"]}

    js = wl.Definition.from_path(JOBSET_DEF)
    assert js.resolve(jobset_text) == js.resolve(jobset)
    assert js.resolve(jobset)["definition"]["origin"] == "user"
    assert {**js.resolve(jobset), "definition": None} == {**wl.resolve(jobset), "definition": None}
    live = js.resolve(jobset, pods=jobset_pods)
    assert live["components"][1]["instances"][1]["live"]["ready"] == 1
    assert js.resolve(jobset, jobset_pods) == live
    assert js.status(jobset)["matchedStatuses"] == ["Running"]  # type: ignore[index]

    attribution = js.attribute_pods(jobset, jobset_pods)
    assert [p["instance"] for p in attribution["pods"]] == ["leader", "worker", "worker"]
    assert js.attribute_pods(None, jobset_pods)["pods"][0]["component"] == "replicatedjob"
    gang = js.gang_groups(jobset, iter(jobset_pods))  # any iterable
    assert gang["groups"][0]["minMember"] == 3

    s = js.suspend(jobset)
    assert isinstance(s, wl.UpdateResult)
    assert s.object["spec"]["suspend"] is True
    assert s.patch == [{"op": "add", "path": "/spec/suspend", "value": True}]
    new, patch = js.resume(s.object)
    assert new["spec"]["suspend"] is False and patch[0]["op"] == "replace"
    assert "suspend" not in jobset["spec"]  # inputs are never modified

    template = js.resolve(jobset)["components"][1]["instances"][1]["podTemplate"]
    template["spec"]["schedulerName"] = "kai-scheduler"
    upd = js.update(jobset, {"components": {"replicatedjob": {"podTemplateSpecs": {"worker": template}}}})
    assert upd.patch == [
        {
            "op": "add",
            "path": "/spec/replicatedJobs/1/template/spec/template/spec/schedulerName",
            "value": "kai-scheduler",
        }
    ]
    assert upd._asdict().keys() == {"object", "patch"}


def test_update_merge_keeps_the_rest_and_the_key_order(jobset: Dict[str, Any]) -> None:
    """``mode: merge`` changes one image through a partial template; the
    result keeps the dict's key order (the engine's, not sorted)."""
    js = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert js is not None
    partial = {"spec": {"containers": [{"name": "trainer", "image": "ghcr.io/example/llama-trainer:1.5"}]}}
    upd = js.update(jobset, {"mode": "merge",
                             "components": {"replicatedjob": {"podTemplateSpecs": {"worker": partial}}}})
    assert upd.patch == [{
        "op": "replace",
        "path": "/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image",
        "value": "ghcr.io/example/llama-trainer:1.5",
    }]
    worker = upd.object["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]
    assert worker["containers"][0]["resources"]["limits"] == {"nvidia.com/gpu": "4"}
    assert list(upd.object) == list(jobset) == ["apiVersion", "kind", "metadata", "spec", "status"]
    assert list(worker) == ["restartPolicy", "containers"]
    assert list(worker["containers"][0]) == ["name", "image", "resources"]
    # An unsorted dict comes back in its own order too.
    obj = {"kind": "JobSet", "apiVersion": "jobset.x-k8s.io/v1alpha2", "metadata": {"name": "j"},
           "spec": {"suspend": False, "replicatedJobs": []}}
    assert list(js.suspend(obj).object) == ["kind", "apiVersion", "metadata", "spec"]
    with pytest.raises(wl.UsageError):
        js.update(jobset, {"mode": "strategic"})


def test_pods_in_every_form_the_engine_reads(jobset: Dict[str, Any], jobset_pods: List[Any]) -> None:
    """Pods go through the engine's one reader of object lists: an iterable
    of pods, a PodList (dict or text; items with or without kind, as the API
    server returns them), a top-level array, several documents."""
    js = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert js is not None
    expected = (js.attribute_pods(jobset, jobset_pods), js.gang_groups(jobset, jobset_pods),
                js.resolve(jobset, jobset_pods))
    assert len(expected[0]["pods"]) == len(jobset_pods) == 3
    pod_list = {"apiVersion": "v1", "kind": "PodList", "metadata": {}, "items": jobset_pods}
    bare = {**pod_list, "items": [{k: v for k, v in p.items() if k not in ("apiVersion", "kind")}
                                  for p in jobset_pods]}
    list_text = (EXAMPLES / "jobset-pods.yaml").read_text()
    documents = "".join(f"---\n{json.dumps(p)}\n" for p in jobset_pods)
    forms: List[Any] = [pod_list, bare, json.dumps(pod_list), json.dumps(jobset_pods), list_text,
                        list_text.encode(), documents, tuple(jobset_pods)]
    for pods in forms:
        got = (js.attribute_pods(jobset, pods), js.gang_groups(jobset, pods), js.resolve(jobset, pods))
        assert got == expected, pods
    assert js.attribute_pods(None, pod_list) == js.attribute_pods(None, jobset_pods)
    assert wl.resolve(jobset, pods=pod_list) == wl.resolve(jobset, pods=jobset_pods)
    assert wl.Catalog().resolve(jobset, json.dumps(jobset_pods)) == wl.resolve(jobset, pods=jobset_pods)
    assert js.attribute_pods(jobset, [])["pods"] == []
    for bad in (1, None, object()):
        with pytest.raises(TypeError):
            js.attribute_pods(jobset, bad)


def test_gang_structure_and_subtree_scale(jobset: Dict[str, Any]) -> None:
    js = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert js is not None
    s = js.gang_structure()
    assert s["components"] == ["jobset", "replicatedjob"]
    assert s["parents"] == {"replicatedjob": "jobset"}
    assert s["children"] == {"jobset": ["replicatedjob"], "replicatedjob": []}
    assert s["candidates"]["replicatedjob"][0]["member"] == "jobset"
    assert "candidates" not in wl.Definition(TRAINER_TEXT).gang_structure()
    assert js.subtree_scale(jobset, "jobset") == 3
    assert js.subtree_scale(jobset, "replicatedjob", "worker") == 2
    assert js.subtree_scale(json.dumps(jobset), "replicatedjob", instance="leader") == 1
    for component, instance in (("nope", None), ("replicatedjob", ""), ("replicatedjob", "nope")):
        with pytest.raises(wl.UsageError):
            js.subtree_scale(jobset, component, instance)
    with pytest.raises(TypeError):
        js.subtree_scale(jobset, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        js.subtree_scale(jobset, "jobset", b"worker")  # type: ignore[arg-type]


def test_gang_groups_without_gang_instructions_is_empty() -> None:
    d = wl.Definition(TRAINER_TEXT)
    assert "gang" not in json.dumps(d.to_dict()).lower()
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "t-0", "namespace": "default"},
           "spec": {"containers": [{"name": "c"}]}, "status": {"phase": "Running"}}
    assert d.gang_groups(TRAINER, []) == {"groups": [], "pods": []}
    assert d.gang_groups(TRAINER, [pod])["groups"] == []


def test_catalog(jobset_text: str, jobset: Dict[str, Any]) -> None:
    c = wl.Catalog()
    n = len(c)
    assert n == len(c.definitions()) == len(list(c)) >= 10
    names = [d.name for d in c.definitions()]
    assert names == sorted(names)
    assert all(d.origin == "catalog" for d in c)
    assert repr(c) == f"<Catalog of {n} definitions>"
    js = c.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert js is not None and js.name == "jobset-x-k8s-io-jobset-v1alpha2"
    # another served version of the same group and kind
    other = c.lookup("jobset.x-k8s.io/v1alpha9", "JobSet")
    assert other is not None and other.name == js.name
    assert c.lookup("example.com/v1", "Trainer") is None
    assert c.get(js.name) is not None and c.get("nope") is None
    assert c.lookup_object(jobset).name == js.name
    assert c.lookup_object(jobset_text).name == js.name
    assert c.resolve(jobset) == wl.resolve(jobset)

    c.add(TRAINER_TEXT)
    assert len(c) == n + 1
    assert c.resolve(TRAINER)["definition"]["origin"] == "user"
    # a user definition of the same root GVK replaces the bundled one
    c.add(wl.Definition.from_path(JOBSET_DEF))
    assert len(c) == n + 1
    assert c.resolve(jobset)["definition"]["origin"] == "user"

    empty = wl.Catalog(bundled=False)
    assert len(empty) == 0
    with pytest.raises(wl.NoDefinitionError):
        empty.resolve(jobset)
    one = wl.Catalog([TRAINER_TEXT], bundled=False)
    assert [d.name for d in one] == ["example-com-trainer-v1"]
    assert len(wl.Catalog(TRAINER_TEXT, bundled=False)) == 1  # a single source
    assert len(wl.catalog()) == n
    assert wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet") is not None
    assert wl.lookup("example.com/v1", "Trainer") is None


def test_catalog_sources_compile_to_the_catalog() -> None:
    sources = wl.catalog_sources()
    assert "jobset-x-k8s-io-jobset-v1alpha2.yaml" in sources
    compiled = sorted(d.name for text in sources.values() for d in wl.compile_all(text))
    assert compiled == [d.name for d in wl.Catalog().definitions()]


def test_resolve_with_extra_definitions() -> None:
    with pytest.raises(wl.NoDefinitionError):
        wl.resolve(TRAINER)
    d = wl.Definition(TRAINER_TEXT)
    assert wl.resolve(TRAINER, definitions=[d])["totals"]["pods"] == 2
    assert wl.resolve(TRAINER, definitions=[TRAINER_TEXT])["totals"]["pods"] == 2
    assert wl.resolve(TRAINER, definitions=d)["totals"]["pods"] == 2
    assert wl.resolve(TRAINER, definitions=yaml_dict(TRAINER_TEXT))["totals"]["pods"] == 2


def yaml_dict(text: str) -> Dict[str, Any]:
    return wl.parse(text)[0]  # type: ignore[no-any-return]


def test_compile_all_and_validate() -> None:
    two = TRAINER_TEXT + "---\n" + JOBSET_DEF.read_text()
    defs = wl.compile_all(two)
    assert [d.name for d in defs] == ["example-com-trainer-v1", "jobset-x-k8s-io-jobset-v1alpha2"]
    with pytest.raises(wl.UsageError):
        wl.Definition(two)  # exactly one definition expected
    results = wl.validate(two)
    assert [(r["name"], r["valid"], r["findings"]) for r in results] == [
        ("example-com-trainer-v1", True, []),
        ("jobset-x-k8s-io-jobset-v1alpha2", True, []),
    ]
    assert wl.validate(JOBSET_DEF)[0]["valid"] is True
    typo = TRAINER_TEXT.replace("specDefinition:", "specDefinitoin:")
    [r] = wl.validate(typo)
    assert r["valid"] is True  # unknown fields are warnings
    w = [f for f in r["findings"] if f["code"] == "unknown-field"]
    assert w and w[0]["severity"] == "warning" and w[0]["location"]["line"] == 9
    assert "unknown-field" in [f["code"] for f in wl.Definition(typo).warnings]


def test_evaluate_and_parse() -> None:
    assert wl.evaluate(".a", {"a": [1, 2.5, "x", None, True]}) == [[1, 2.5, "x", None, True]]
    assert wl.evaluate(".") == [None]
    assert wl.evaluate(". + 1", 1) == [2]
    assert wl.evaluate("ascii_downcase", "ABC") == ["abc"]  # a str input is a JSON string
    assert wl.evaluate("3.0") == [3.0]
    assert wl.evaluate("{b: 1, a: 2} | keys_unsorted") == [["a", "b"]]
    assert wl.parse("a: 1\n---\n---\nb: [x]\n") == [{"a": 1}, {"b": ["x"]}]
    assert wl.parse('{"a": 1}') == [{"a": 1}]
    assert wl.parse(b"a: 1") == [{"a": 1}]
    assert wl.parse("") == []


def test_limits() -> None:
    defaults = wl.default_limits()
    assert set(defaults) == {
        "maxInputBytes", "maxDepth", "maxInputNodes", "maxOutputs", "maxSteps", "maxMemoryBytes",
        "maxStringBytes",
        "maxCollectionLen", "maxOutputBytes", "maxExpressionBytes", "maxExpressionDepth",
        "maxInstances", "maxDocuments", "maxYamlAliases", "maxClusterBytes",
    }  # fmt: skip
    assert wl.limits() == defaults
    assert wl.limits(max_steps=5)["maxSteps"] == 5
    assert wl.limits({"maxSteps": 5}) == wl.limits({"max_steps": 5}) == wl.limits(max_steps=5)
    assert wl.limits({"maxSteps": 5}, max_outputs=2)["maxOutputs"] == 2
    for bad in ({"maxStepz": 1}, {"maxSteps": -1}, {"maxSteps": "1"}, {"maxSteps": 1.5}, {"maxSteps": True}):
        with pytest.raises(wl.UsageError):
            wl.limits(bad)
    with pytest.raises(wl.LimitError) as e:
        wl.evaluate("[.[], .[]]", list(range(5)), max_collection_len=3)
    assert e.value.limit == "maxCollectionLen"
    d = wl.Definition(TRAINER_TEXT, max_steps=1, limits={"maxOutputs": 3})
    assert d.limits["maxSteps"] == 1 and d.limits["maxOutputs"] == 3
    with pytest.raises(wl.LimitError) as e2:
        d.resolve(TRAINER)
    assert e2.value.limit == "maxSteps"
    with pytest.raises(wl.LimitError):
        wl.parse("a: 1\n---\nb: 2\n", max_documents=1)


def test_cli_console_script_is_the_rust_cli(tmp_path: pathlib.Path) -> None:
    """`workload-lens` (the wheel's console command) prints what the Rust
    binary prints: the CLI's own snapshots."""
    snap = (REPO / "cli" / "tests" / "snapshots" / "cli__describe_example_human.snap").read_text()
    expected = snap.split("---\n", 2)[2]
    out = subprocess.run(
        [CLI, "describe", "../examples/jobset.yaml"],
        cwd=REPO / "cli", capture_output=True, text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == expected

    rust = REPO / "target" / "debug" / "workload-lens"
    for args in (["definitions"], ["validate", "tests/fixtures/invalid-definition.yaml"],
                 ["describe", "tests/fixtures/unknown-kind.yaml"], ["--help"], ["--version"],
                 ["describe"], ["describe", "-", "-o", "json"]):
        py = subprocess.run([CLI, *args], cwd=REPO / "cli", capture_output=True, text=True,
                            input=(EXAMPLES / "jobset.yaml").read_text())
        mod = subprocess.run([sys.executable, "-m", "workload_lens", *args], cwd=REPO / "cli",
                             capture_output=True, text=True, input=(EXAMPLES / "jobset.yaml").read_text())
        assert (py.returncode, py.stdout, py.stderr) == (mod.returncode, mod.stdout, mod.stderr)
        if rust.exists():
            rs = subprocess.run([str(rust), *args], cwd=REPO / "cli", capture_output=True, text=True,
                                input=(EXAMPLES / "jobset.yaml").read_text())
            assert (py.returncode, py.stdout, py.stderr) == (rs.returncode, rs.stdout, rs.stderr), args
    assert subprocess.run([CLI, "validate", "tests/fixtures/invalid-definition.yaml"],
                          cwd=REPO / "cli", capture_output=True).returncode == 3


def test_cli_main_in_process(capfd: pytest.CaptureFixture[str]) -> None:
    from workload_lens._cli import main

    assert main(["--version"]) == 0
    assert wl.__version__ in capfd.readouterr().out
    assert main(["no-such-command"]) == 2
    assert "unrecognized subcommand" in capfd.readouterr().err
    assert main(["describe", str(EXAMPLES / "jobset.yaml")]) == 0
    assert "TOTAL       3          12" in capfd.readouterr().out
