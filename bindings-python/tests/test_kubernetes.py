"""Objects of the official `kubernetes` Python client: converted to
API-shaped camelCase dicts (sanitize_for_serialization), never with their
snake_case to_dict()."""

from __future__ import annotations

import datetime
import sys
from typing import Any, Dict

import pytest

import workload_lens as wl

client = pytest.importorskip("kubernetes.client")


def pod(name: str, role: str, node: str) -> Any:
    return client.V1Pod(
        api_version="v1",
        kind="Pod",
        metadata=client.V1ObjectMeta(
            name=name,
            namespace="ml-team",
            labels={"jobset.sigs.k8s.io/jobset-name": "llama-pretrain",
                    "jobset.sigs.k8s.io/replicatedjob-name": role,
                    "jobset.sigs.k8s.io/job-index": "0"},
            creation_timestamp=datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
        ),
        spec=client.V1PodSpec(
            node_name=node,
            scheduler_name="kai-scheduler",
            containers=[client.V1Container(
                name="trainer",
                resources=client.V1ResourceRequirements(limits={"nvidia.com/gpu": "4"},
                                                        requests={"cpu": "8", "memory": "64Gi"}))],
        ),
        status=client.V1PodStatus(phase="Running"),
    )


def test_to_dict_would_be_wrong() -> None:
    p = pod("p", "worker", "n1")
    assert "node_name" in p.to_dict()["spec"]  # snake_case: not the API shape


def test_a_pod_model_resolves_with_camel_case_paths() -> None:
    p = pod("trainer-0", "worker", "gpu-node-07")
    r = wl.resolve(p)
    assert r["workload"]["kind"] == "Pod" and r["workload"]["name"] == "trainer-0"
    assert r["totals"]["resources"]["gpu"] == 4
    spec = r["components"][0]["instances"][0]["podTemplate"]["spec"]
    assert spec["schedulerName"] == "kai-scheduler"
    assert spec["nodeName"] == "gpu-node-07"
    assert "node_name" not in spec


def test_pod_template_model_inside_a_dict(jobset: Dict[str, Any], jobset_pods: Any) -> None:
    template = client.V1PodTemplateSpec(
        metadata=client.V1ObjectMeta(labels={"team": "ml"}),
        spec=client.V1PodSpec(
            scheduler_name="kai-scheduler",
            priority_class_name="high",
            containers=[client.V1Container(
                name="trainer", image="x",
                resources=client.V1ResourceRequirements(limits={"nvidia.com/gpu": "8"}))],
        ),
    )
    jobset["spec"]["replicatedJobs"][1]["template"]["spec"]["template"] = template
    r = wl.resolve(jobset)
    worker = r["components"][1]["instances"][1]
    assert worker["podTemplate"]["spec"]["schedulerName"] == "kai-scheduler"
    assert worker["podTemplate"]["spec"]["priorityClassName"] == "high"
    assert worker["podTemplate"]["metadata"]["labels"] == {"team": "ml"}
    assert r["totals"]["resources"]["gpu"] == 4 + 2 * 8


def test_pod_models_as_pods(jobset: Dict[str, Any], jobset_pods: Any) -> None:
    d = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert d is not None
    models = [client.ApiClient()._ApiClient__deserialize(p, "V1Pod") for p in jobset_pods]
    assert all(isinstance(m, client.V1Pod) for m in models)
    assert d.attribute_pods(jobset, models) == d.attribute_pods(jobset, jobset_pods)
    assert d.attribute_pods(jobset, models)["pods"][0]["node"] == jobset_pods[0]["spec"]["nodeName"]
    assert d.gang_groups(jobset, models) == d.gang_groups(jobset, jobset_pods)
    assert d.resolve(jobset, models) == d.resolve(jobset, jobset_pods)
    # a V1PodList (what list_namespaced_pod returns) is read as the PodList it is
    pod_list = client.V1PodList(api_version="v1", kind="PodList", items=models)
    assert d.attribute_pods(jobset, pod_list) == d.attribute_pods(jobset, jobset_pods)
    # a hand-made pod model: its nodeName is seen
    attributed = d.attribute_pods(None, [pod("llama-pretrain-worker-0-0-abcde", "worker", "gpu-node-09")])
    assert attributed["pods"][0]["node"] == "gpu-node-09"


def test_deployment_model() -> None:
    dep = client.V1Deployment(
        api_version="apps/v1", kind="Deployment",
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=3,
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(
                    name="c", resources=client.V1ResourceRequirements(limits={"nvidia.com/gpu": "1"}))]),
            ),
        ),
    )
    r = wl.resolve(dep)
    assert r["workload"]["kind"] == "Deployment"
    assert r["totals"]["resources"]["gpu"] == 3


def test_models_without_the_kubernetes_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any OpenAPI-generated model of the same shape converts the same way
    when `kubernetes` is not installed."""
    from workload_lens import _api

    class Meta:
        openapi_types = {"name": "str", "generate_name": "str"}
        attribute_map = {"name": "name", "generate_name": "generateName"}

        def __init__(self, name: str) -> None:
            self.name = name
            self.generate_name = None

    class Obj:
        openapi_types = {"api_version": "str", "kind": "str", "metadata": "Meta"}
        attribute_map = {"api_version": "apiVersion", "kind": "kind", "metadata": "metadata"}

        def __init__(self) -> None:
            self.api_version = "v1"
            self.kind = "Pod"
            self.metadata = Meta("p")

    monkeypatch.setitem(sys.modules, "kubernetes", None)
    monkeypatch.setitem(sys.modules, "kubernetes.client", None)
    monkeypatch.setattr(_api, "_api_client", None)
    assert wl.evaluate(".", Obj()) == [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}]
    assert wl.resolve(Obj())["workload"]["name"] == "p"
