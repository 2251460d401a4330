"""diagnose: why a workload is where it is, in ranked findings, from its
pods, events and related objects (Definition, Catalog and the module
function), on states recorded from real controllers, schedulers and kubelets
(definitions/fixtures/*/recorded/)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import workload_lens as wl
from conftest import REPO

CRASHLOOP = REPO / "definitions/fixtures/core-pod-v1/recorded/core-pod-crashloop/02-crashlooping"


def recorded(base: Path, ext: str) -> str:
    return base.with_name(base.name + ext).read_text(encoding="utf-8")


def items(text: str) -> List[Dict[str, Any]]:
    """The items of a recorded List."""
    return wl.parse(text)[0]["items"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def crashloop() -> Dict[str, str]:
    return {k: recorded(CRASHLOOP, ext) for k, ext in
            (("object", ".yaml"), ("pods", ".pods.yaml"), ("events", ".events.yaml"))}


def test_a_recorded_crash_loop_is_named_first_with_the_clusters_evidence(crashloop: Dict[str, str]) -> None:
    d = wl.diagnose(crashloop["object"], pods=crashloop["pods"], events=crashloop["events"])
    assert set(d) == {"workload", "statuses", "findings"}
    assert d["workload"]["kind"] == "Pod" and d["workload"]["name"] == "vllm-worker"
    assert d["statuses"] == ["Degraded"]
    first = d["findings"][0]
    assert first["code"] == "crash-loop"
    assert first["severity"] == "blocking"
    assert first["message"] == "container vllm of pod vllm-worker crash-loops: last exit Error, exit code 1"
    fields = [e["field"] for e in first["evidence"]]
    assert fields[0] == "status.containerStatuses[vllm].lastState.terminated"
    assert "restarts 1" in first["evidence"][0]["text"]
    # The kubelet's BackOff event, read from the recorded events, with its time.
    backoff = [e for e in first["evidence"] if e["field"] == "event BackOff"]
    assert backoff and backoff[0]["object"] == "Pod/vllm-worker" and backoff[0].get("time")


def test_every_way_in_gives_the_same_diagnosis(crashloop: Dict[str, str]) -> None:
    want = wl.diagnose(crashloop["object"], pods=crashloop["pods"], events=crashloop["events"])
    obj = wl.parse(crashloop["object"])[0]
    pods, events = items(crashloop["pods"]), items(crashloop["events"])
    pod = wl.lookup("v1", "Pod")
    assert pod is not None
    catalog = wl.Catalog()

    def gen(xs: List[Dict[str, Any]]) -> Iterator[Dict[str, Any]]:
        yield from xs

    same = [
        pod.diagnose(obj, pods, events=events),
        pod.diagnose(obj, pods=pods, events=events, related=[]),
        pod.diagnose(crashloop["object"].encode(), crashloop["pods"].encode(), events=crashloop["events"].encode()),
        pod.diagnose(obj, tuple(pods), events=gen(events)),
        pod.diagnose(obj, {"kind": "PodList", "items": pods}, events={"kind": "EventList", "items": events}),
        catalog.diagnose(obj, pods, events=events),
        wl.diagnose(obj, pods=pods, events=events, definitions=[pod]),
    ]
    for i, got in enumerate(same):
        assert got == want, i


def test_without_events_or_pods_it_reads_what_it_has(crashloop: Dict[str, str]) -> None:
    obj = wl.parse(crashloop["object"])[0]
    # The object's own status says it crash-loops; the BackOff event is the events' evidence.
    no_events = wl.diagnose(obj, pods=crashloop["pods"])
    assert no_events["findings"][0]["code"] == "crash-loop"
    assert "event BackOff" not in [e["field"] for e in no_events["findings"][0]["evidence"]]
    suspended = {
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "paused", "namespace": "ml", "uid": "j-3"},
        "spec": {"suspend": True, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
        "status": {"conditions": [{"type": "Suspended", "status": "True", "reason": "JobSuspended",
                                   "message": "Job suspended"}]},
    }
    d = wl.diagnose(suspended)
    assert [f["code"] for f in d["findings"]] == ["suspended"]
    assert d["findings"][0]["action"] == "resume it to run it"
    assert "moreEvidence" not in d["findings"][0]


JOB = {
    "apiVersion": "batch/v1", "kind": "Job",
    "metadata": {"name": "sweep", "namespace": "ml", "uid": "j-2", "labels": {"kueue.x-k8s.io/queue-name": "team-a"}},
    "spec": {"suspend": True, "parallelism": 2, "completions": 2,
             "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    "status": {"conditions": [{"type": "Suspended", "status": "True", "reason": "JobSuspended",
                               "message": "Job suspended"}]},
}

KUEUE_WORKLOAD = {
    "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
    "metadata": {"name": "job-sweep-3f2a1", "namespace": "ml",
                 "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "sweep", "uid": "j-2",
                                      "controller": True}]},
    "spec": {"queueName": "team-a", "podSets": [{"name": "main", "count": 2}]},
    "status": {"conditions": [{"type": "QuotaReserved", "status": "False", "reason": "Pending",
                               "message": "insufficient unused quota for nvidia.com/gpu"}]},
}


def test_related_kueue_workloads_say_why_it_is_not_admitted() -> None:
    job = wl.lookup("batch/v1", "Job")
    assert job is not None
    without = job.diagnose(JOB)
    assert [f["code"] for f in without["findings"]] == ["suspended"]
    d = job.diagnose(JOB, related=[KUEUE_WORKLOAD])
    assert [f["code"] for f in d["findings"]] == ["not-admitted", "suspended"]
    assert d["findings"][0]["evidence"][0]["object"] == "Workload/job-sweep-3f2a1"
    assert "team-a" in d["findings"][0]["message"]
    # As text, and as a List.
    assert job.diagnose(JOB, related=json.dumps({"kind": "List", "items": [KUEUE_WORKLOAD]})) == d
    assert wl.Catalog().diagnose(JOB, related={"kind": "List", "items": [KUEUE_WORKLOAD]}) == d


def test_kubernetes_models_are_read_by_their_wire_names(crashloop: Dict[str, str]) -> None:
    client = pytest.importorskip("kubernetes.client")
    obj = wl.parse(crashloop["object"])[0]
    event = client.CoreV1Event(
        api_version="v1", kind="Event",
        metadata=client.V1ObjectMeta(name="e1", namespace=obj["metadata"]["namespace"]),
        involved_object=client.V1ObjectReference(
            kind="Pod", name="vllm-worker", namespace=obj["metadata"]["namespace"], uid=obj["metadata"]["uid"]),
        reason="BackOff", type="Warning", message="Back-off restarting failed container vllm", count=7,
        last_timestamp=datetime.datetime(2026, 12, 5, 18, 40, tzinfo=datetime.timezone.utc),
    )
    # A CoreV1EventList (what list_namespaced_event returns) is read as the EventList it is.
    event_list = client.CoreV1EventList(api_version="v1", kind="EventList", items=[event])
    d = wl.diagnose(obj, pods=crashloop["pods"], events=event_list)
    assert d == wl.diagnose(obj, pods=crashloop["pods"], events=[event])
    backoff = [e for e in d["findings"][0]["evidence"] if e["field"] == "event BackOff"]
    # Timestamps as the kubernetes client serializes them (isoformat).
    assert backoff == [{"object": "Pod/vllm-worker", "field": "event BackOff",
                        "text": "Back-off restarting failed container vllm (x7)", "time": "2026-12-05T18:40:00+00:00"}]


def test_arguments_are_checked(crashloop: Dict[str, str]) -> None:
    pod = wl.lookup("v1", "Pod")
    assert pod is not None
    obj = crashloop["object"]
    with pytest.raises(TypeError, match="^pods must be pod objects"):
        pod.diagnose(obj, 3)
    with pytest.raises(TypeError, match="^events must be Event objects .*EventList.*, not int"):
        pod.diagnose(obj, events=3)
    with pytest.raises(TypeError, match="^related must be objects .*, not object"):
        wl.Catalog().diagnose(obj, related=object())
    with pytest.raises(TypeError):
        pod.diagnose(obj, [], [])  # type: ignore[call-arg]  # events and related are keyword-only
    with pytest.raises(TypeError):
        wl.diagnose(obj, [])  # type: ignore[call-arg]  # pods too, in the module function
    with pytest.raises(TypeError):
        pod.diagnose(obj, event=[])  # type: ignore[call-arg]
    with pytest.raises(wl.ParseError) as e:
        pod.diagnose(obj, events="items: [")
    assert e.value.location.get("line") == 1
    # The events are read by the engine's reader, within the definition's limits.
    small = wl.Definition.from_path(REPO / "definitions" / "core-pod-v1.yaml", max_input_bytes=100_000)
    with pytest.raises(wl.LimitError) as e2:
        small.diagnose(obj, events="# " + "x" * 100_000 + "\n[]")
    assert e2.value.limit == "maxInputBytes"
    with pytest.raises(wl.NoDefinitionError):
        wl.diagnose({"apiVersion": "example.com/v1", "kind": "Nothing", "metadata": {"name": "x"}})


def test_every_pod_and_event_is_charged_to_the_step_limit() -> None:
    job = wl.Definition.from_path(REPO / "definitions" / "batch-job-v1.yaml", max_steps=2000)
    obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "huge", "namespace": "ml", "uid": "j-7"},
           "spec": {"parallelism": 2000, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}
    pods = [{"metadata": {"name": f"huge-{i}", "namespace": "ml",
                          "labels": {"batch.kubernetes.io/job-name": "huge"},
                          "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "huge", "uid": "j-7",
                                               "controller": True}]},
             "status": {"phase": "Pending"}} for i in range(2000)]
    with pytest.raises(wl.LimitError) as e:
        job.diagnose(obj, pods)
    assert e.value.limit == "maxSteps"
    events = [{"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"e{i}", "namespace": "ml"},
               "involvedObject": {"kind": "Job", "name": "huge", "namespace": "ml", "uid": "j-7"},
               "reason": "SuccessfulCreate", "message": "x"} for i in range(5000)]
    with pytest.raises(wl.LimitError):
        job.diagnose(obj, events=events)
