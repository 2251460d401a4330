"""Pickling: a Definition travels through pickle and to process pools (it is
re-compiled from its JSON and limits); errors come back from workers."""

from __future__ import annotations

import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict

import pytest

import workload_lens as wl
from conftest import REPO

TYPO = (REPO / "definitions" / "jobset-x-k8s-io-jobset-v1alpha2.yaml").read_text().replace(
    "\nspec:\n", "\nspec:\n  optimisationInstructions: {}\n", 1)


def same(a: wl.Definition, b: wl.Definition) -> None:
    assert (a.name, a.origin, a.gvk, a.components, a.can_suspend, a.limits, a.warnings, a.to_dict()) == (
        b.name, b.origin, b.gvk, b.components, b.can_suspend, b.limits, b.warnings, b.to_dict())


def test_every_catalog_definition_pickles(jobset: Dict[str, Any]) -> None:
    for d in wl.Catalog().definitions():
        copy = pickle.loads(pickle.dumps(d))
        assert type(copy) is wl.Definition
        same(d, copy)
    js = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert js is not None
    assert pickle.loads(pickle.dumps(js)).resolve(jobset) == js.resolve(jobset)


def test_limits_and_warnings_survive() -> None:
    d = wl.Definition(TYPO, max_steps=1234, limits={"maxOutputs": 7})
    assert any(w["code"] == "unknown-field" for w in d.warnings)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        copy = pickle.loads(pickle.dumps(d, protocol=protocol))
        same(d, copy)
        assert copy.limits["maxSteps"] == 1234 and copy.limits["maxOutputs"] == 7


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_process_pool(method: str, jobset: Dict[str, Any], jobset_text: str) -> None:
    js = wl.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert js is not None
    user = wl.Definition(TYPO, max_steps=5000)
    ctx = multiprocessing.get_context(method)
    with ProcessPoolExecutor(max_workers=2, mp_context=ctx) as pool:
        results = list(pool.map(js.resolve, [jobset, jobset_text, jobset]))
        assert results == [js.resolve(jobset)] * 3
        assert pool.submit(user.status, jobset).result() == user.status(jobset)
        # the definition itself round-trips through a worker
        back = pool.submit(pickle.loads, pickle.dumps(user)).result()
        same(user, back)
        # errors raised in a worker come back as the same class, with their data
        with pytest.raises(wl.InvalidObjectError) as e:
            pool.submit(js.resolve, {"kind": "JobSet"}).result()
        assert e.value.code == "invalid_object" and "apiVersion" in e.value.message
        with pytest.raises(wl.LimitError) as limit:
            pool.submit(wl.evaluate, "[.[] as $a | .[] | $a]", list(range(100)), max_steps=10).result()
        assert limit.value.limit == "maxSteps"
        # module functions work in workers too
        assert pool.submit(wl.resolve, jobset_text).result()["totals"]["resources"]["gpu"] == 12
