"""workload_lens.kube only does IO: every request it makes is one the
engine's cluster protocol asked for, and every answer goes back to the
engine. Checked against the server recorded from a real kube-apiserver for
the conformance group `cluster` (conformance/servers/kapi.json): the
requests and the outcome must be the conformance case's, which every runtime
gets. (The live stage runs the module against the real server:
tests/test_kube.py.)"""

from __future__ import annotations

import json
import threading
from typing import Any, Dict, List, Optional, Tuple

import pytest

pytest.importorskip("kubernetes")

import workload_lens as wl  # noqa: E402
from workload_lens.kube import Cluster, Listing  # noqa: E402

from conftest import REPO  # noqa: E402

SERVER: Dict[str, Any] = json.loads((REPO / "conformance" / "servers" / "kapi.json").read_text(encoding="utf-8"))


class _Client:
    """Stands in for the kubernetes ApiClient; never called (the replies
    come from the recording)."""

    class configuration:  # noqa: N801 - the attribute the module reads
        host = "https://recorded"


class Recorded(Cluster):
    def __init__(self, overrides: Optional[Dict[str, Any]] = None, **kw: Any) -> None:
        super().__init__(_Client(), **kw)
        self.made: List[str] = []
        self.overrides = overrides or {}
        self._made_lock = threading.Lock()

    def _reply(self, path: str) -> Tuple[Optional[int], bytes]:
        with self._made_lock:
            self.made.append(path)
        answer = self.overrides.get(path, SERVER.get(path))
        if answer is None:
            return 404, b'{"kind":"Status","message":"not found","code":404}'
        if answer == "unreachable":
            return None, b"connection refused"
        return int(answer["status"]), json.dumps(answer["body"]).encode()


def case(name: str) -> Dict[str, Any]:
    suite = json.loads((REPO / "conformance" / "suite.json").read_text(encoding="utf-8"))
    for group in suite["groups"]:
        for c in group["cases"]:
            if c["name"] == name:
                return dict(c)
    raise KeyError(name)


def test_a_listing_makes_the_protocols_requests_and_gives_its_outcome() -> None:
    expect = case("cluster/list-one-type-in-pages")["expect"]["result"]
    c = Recorded()
    listing = c.list("jobsets", namespace="lens-train", chunk_size=1)
    assert isinstance(listing, Listing)
    # Discovery (kept for the next calls), then the listing without it.
    assert sorted(c.made) == sorted(expect["requests"])
    assert listing.workloads == expect["outcome"]["workloads"]
    assert listing.warnings == expect["outcome"]["warnings"]
    assert listing.forbidden == expect["outcome"]["forbidden"]
    # Discovery is kept: the next call makes only the listing's requests.
    c.made.clear()
    c.list("jobsets", namespace="lens-train", chunk_size=1)
    assert not [p for p in c.made if p in ("/api/v1", "/apis")]


def test_a_description_is_the_protocols() -> None:
    expect = case("cluster/describe-a-jobset")["expect"]["result"]
    c = Recorded()
    d = c.describe("jobset", "llama", namespace="lens-train")
    assert sorted(c.made) == sorted(expect["requests"])
    assert d.object == expect["outcome"]["object"]
    assert d.resolved == expect["outcome"]["resolved"]
    assert d.gang == expect["outcome"]["gang"]
    # The last events of llama, its pods and Jobs (not the stray pod's).
    assert d.events == expect["outcome"]["events"]
    assert d.events_left_out == expect["outcome"]["eventsLeftOut"] == 0
    assert [e["reason"] for e in d.events] == ["FailedScheduling", "SuccessfulCreate", "BackoffLimitExceeded"]


def test_failures_are_the_engines_errors() -> None:
    c = Recorded({"/api/v1": "unreachable"})
    with pytest.raises(wl.UnreachableError, match="cannot reach https://recorded") as e:
        c.list("jobsets", namespace="lens-train")
    assert e.value.status is None and e.value.location.get("request") == "/api/v1"
    path = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/lens-train/jobsets?limit=500"
    c = Recorded({path: {"status": 500, "body": {"kind": "Status", "message": "upstream connect error"}}})
    with pytest.raises(wl.ApiError, match="upstream connect error") as e2:
        c.list("jobsets", namespace="lens-train")
    assert (e2.value.code, e2.value.status, e2.value.location.get("request")) == ("api", 500, path)


def test_engine_reads_the_clusters_definitions() -> None:
    expect = case("cluster/definitions")["expect"]["result"]["outcome"]
    engine, warnings = Recorded().engine()
    assert warnings == expect["warnings"]
    d = engine.lookup("ray.io/v1", "RayCluster")
    assert d is not None and (d.origin, d.name) == ("cluster", "lens-test-raycluster")
