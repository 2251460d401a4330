"""record.py's retry of a scenario whose step timed out (no cluster needed):
a timeout runs the scenario once more, a second timeout ends the run with
the step's message, and anything else ends it at once."""

from __future__ import annotations

import pytest

import record


class Flaky:
    """A scenario run that times out its first `timeouts` times."""

    def __init__(self, timeouts: int, error: Exception | None = None):
        self.timeouts, self.error, self.calls = timeouts, error, 0

    def __call__(self) -> None:
        self.calls += 1
        if self.error is not None:
            raise self.error
        if self.calls <= self.timeouts:
            raise record.StepTimeout(f"s: step 2 'blocked' not reached in 30 s (run {self.calls})")


def test_a_scenario_that_passes_runs_once():
    told = []
    run = Flaky(0)
    record.run_retrying_timeouts(run, told.append)
    assert run.calls == 1 and told == []


def test_a_timed_out_step_runs_its_scenario_once_more_and_says_so():
    told = []
    run = Flaky(1)
    record.run_retrying_timeouts(run, told.append)
    assert run.calls == 2
    assert told == ["s: step 2 'blocked' not reached in 30 s (run 1)\n  run again once, from a fresh namespace"]


def test_a_second_timeout_ends_the_run_with_the_step():
    run = Flaky(2)
    with pytest.raises(SystemExit) as e:
        record.run_retrying_timeouts(run, lambda _: None)
    assert run.calls == 2
    assert str(e.value) == "s: step 2 'blocked' not reached in 30 s (run 2)"


def test_anything_else_is_not_retried():
    run = Flaky(0, RuntimeError("annotatePods: no running pod matches app=x"))
    with pytest.raises(RuntimeError):
        record.run_retrying_timeouts(run, lambda _: None)
    assert run.calls == 1


def test_what_a_timed_out_step_saw_keeps_every_part_when_there_are_many_pods():
    pods = [
        {"metadata": {"name": f"p-{i}"}, "status": {"phase": "Pending", "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}}
        for i in range(500)
    ]
    events = [{"lastTimestamp": f"t{i}", "reason": "FailedScheduling", "involvedObject": {"name": f"p-{i}"}} for i in range(40)]
    text = record.seen({"object": {"status": {"replicas": 3}}, "pods": pods, "events": events})
    assert text.startswith('{"status": {"replicas": 3}, "events": [["t28", "FailedScheduling", "p-28"]')
    assert '["t39", "FailedScheduling", "p-39"]]' in text
    assert '"pods": [["p-0", "Pending"]' in text and '"podConditions": {"p-0": [["PodScheduled", "False", "Unschedulable"]]' in text
    assert len(text) < 7000
