#!/usr/bin/env python3
"""Runs scenarios (testing/sim/scenarios/*.yaml) against the simulated cluster
and records each step as a catalog fixture: the workload object as the
operator left it, and its pods with every owner on their controller chains,
as the real controllers made them.

    record.py KUBECONFIG --out ROOT SCENARIO.yaml...

For each scenario: a fresh namespace (deleted first if it exists), the
scenario's `objects`, then its steps in order. A step runs its actions
(`do`), waits until its `until` expression (gojq, over
`{object, pods, owners, events, related}`) outputs `true`, and writes

    ROOT/<definition>/recorded/<scenario>/<NN>-<step>.yaml       the workload
    ROOT/<definition>/recorded/<scenario>/<NN>-<step>.pods.yaml  pods + owners (a List)
    ROOT/<definition>/recorded/<scenario>/<NN>-<step>.events.yaml  the namespace's events
    ROOT/<definition>/recorded/<scenario>/<NN>-<step>.related.yaml Kueue's Workloads of the
                                    workload (scenarios whose operators include kueue)

with a header naming the controllers and versions that produced them. What
each step must resolve to is in the scenario (`expect`); the engine's catalog
test checks it (engine/tests/catalog.rs, `every_recorded_step_...`), reading
ROOT from WORKLOAD_LENS_RECORDED (default definitions/fixtures).

Actions (`do`, a list; each item one of):
    create                          apply the scenario's workload
    {patch: {...}}                  merge-patch the workload
    {apply: OBJECT}                 apply another object (namespace defaulted)
    {delete: {apiVersion, kind, name}}
    {annotatePods: {selector: LABELS, annotations: {...}, count: N}}
                                    merge-patch annotations onto the first N
                                    (by name) running pods matching LABELS
    {deletePods: {selector: LABELS, count: N}}
    {sleep: SECONDS}

A step not reached in its `timeout` is its scenario's end; the scenario is
run once more from a fresh namespace, and a second timeout fails the run.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:6.1f}s] {msg}", flush=True)


def clean(obj: dict) -> dict:
    """The object without what says nothing about it (managedFields)."""
    obj = json.loads(json.dumps(obj))
    obj.get("metadata", {}).pop("managedFields", None)
    return obj


def controller_ref(obj: dict) -> dict | None:
    for r in obj.get("metadata", {}).get("ownerReferences") or []:
        if r.get("controller"):
            return r
    return None


def gojq(expr: str, value) -> list:
    """Every output of a gojq expression on a value."""
    p = subprocess.run(
        ["gojq", "-c", expr], input=json.dumps(value), capture_output=True, text=True, timeout=30
    )
    if p.returncode != 0:
        raise RuntimeError(f"gojq {expr!r}: {p.stderr.strip()}")
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def seen(last: dict) -> str:
    """What a step waited on when it timed out, each part cut on its own
    (so that many pods do not crowd out the rest): the workload's status,
    the last events, the pods' phases and their conditions."""

    def cut(v, n: int) -> str:
        t = json.dumps(v)
        return t if len(t) <= n else t[: n - 3] + "..."

    pods = last.get("pods", [])
    parts = {
        "status": cut((last.get("object") or {}).get("status"), 2000),
        "events": cut(
            [
                [e.get("lastTimestamp") or e.get("eventTime"), e.get("reason"), (e.get("involvedObject") or {}).get("name")]
                for e in last.get("events", [])
            ][-12:],
            1500,
        ),
        "pods": cut([(p["metadata"]["name"], (p.get("status") or {}).get("phase")) for p in pods], 1000),
        "podConditions": cut(
            {
                p["metadata"]["name"]: [
                    [c.get("type"), c.get("status"), c.get("reason")]
                    for c in (p.get("status") or {}).get("conditions") or []
                ]
                for p in pods
            },
            1500,
        ),
    }
    return "{" + ", ".join(f'"{k}": {v}' for k, v in parts.items()) + "}"


class StepTimeout(Exception):
    """A step's condition was not reached (or did not hold) in its time."""


class Scenario:
    def __init__(self, kube: Kube, path: pathlib.Path, out: pathlib.Path, versions: dict[str, str]):
        self.kube = kube
        self.path = path
        self.spec = yaml.safe_load(path.read_text())
        self.name = self.spec["name"]
        if self.name != path.stem:
            raise SystemExit(f"{path}: name must be {path.stem}")
        self.ns = self.spec["namespace"]
        w = self.spec["workload"]
        w.setdefault("metadata", {})["namespace"] = self.ns
        self.workload = w
        self.dir = out / self.spec["definition"] / "recorded" / self.name
        self.versions = versions

    # -- reading the cluster --------------------------------------------------

    def object(self) -> dict | None:
        w = self.workload
        return self.kube.get(w["apiVersion"], w["kind"], w["metadata"]["name"], self.ns)

    def snapshot(self) -> dict:
        obj = self.object()
        pods = sorted(self.kube.list("v1", "Pod", self.ns), key=lambda p: p["metadata"]["name"])
        uid = (obj or {}).get("metadata", {}).get("uid")
        pod_uids = {p["metadata"].get("uid") for p in pods}
        owners: dict[str, dict] = {}
        missing: set[tuple] = set()
        todo = list(pods)
        while todo:
            cur = todo.pop()
            r = controller_ref(cur)
            if not r or r.get("uid") == uid or r.get("uid") in pod_uids or r.get("uid") in owners:
                continue
            key = (r["apiVersion"], r["kind"], r["name"])
            if key in missing:
                continue
            try:
                o = self.kube.get(r["apiVersion"], r["kind"], r["name"], self.ns)
            except (ApiException, KeyError):
                o = None
            if o is None or o["metadata"].get("uid") != r.get("uid"):
                missing.add(key)
                continue
            o.setdefault("apiVersion", r["apiVersion"])
            o.setdefault("kind", r["kind"])
            owners[o["metadata"]["uid"]] = o
            todo.append(o)
        events = self.kube.list("v1", "Event", self.ns)
        events.sort(key=lambda e: (e.get("lastTimestamp") or e.get("eventTime") or "", e["metadata"]["name"]))
        # Kueue's Workloads of the workload (what a diagnosis reads beside
        # the pods and events), by the owner reference Kueue writes.
        related = []
        if "kueue" in self.spec.get("operators", []) and uid:
            related = [
                w
                for w in self.kube.list("kueue.x-k8s.io/v1beta2", "Workload", self.ns)
                if any(r.get("uid") == uid for r in w["metadata"].get("ownerReferences") or [])
            ]
            related.sort(key=lambda w: w["metadata"]["name"])
        return {
            "object": obj,
            "pods": pods,
            "owners": sorted(owners.values(), key=lambda o: (o["kind"], o["metadata"]["name"])),
            "events": events,
            "related": related,
        }

    # -- acting -----------------------------------------------------------------

    def pods_matching(self, selector: str) -> list[dict]:
        """The running pods (not being deleted) a label selector matches, by name."""
        pods = self.kube.list("v1", "Pod", self.ns, selector=selector)
        pods = [
            p for p in pods
            if not p["metadata"].get("deletionTimestamp") and (p.get("status") or {}).get("phase") == "Running"
        ]
        return sorted(pods, key=lambda p: p["metadata"]["name"])

    def act(self, action) -> None:
        w = self.workload
        if action == "create":
            self.kube.apply(w)
            return
        (verb, arg), = action.items()
        if verb == "patch":
            self.kube.merge_patch(w["apiVersion"], w["kind"], w["metadata"]["name"], arg, self.ns)
        elif verb == "apply":
            arg.setdefault("metadata", {}).setdefault("namespace", self.ns)
            self.kube.apply(arg)
        elif verb == "delete":
            self.kube.delete(arg["apiVersion"], arg["kind"], arg["name"], self.ns)
        elif verb == "annotatePods":
            pods = self.pods_matching(arg["selector"])[: arg.get("count", 1 << 30)]
            if not pods:
                raise RuntimeError(f"annotatePods: no running pod matches {arg['selector']}")
            for p in pods:
                self.kube.merge_patch("v1", "Pod", p["metadata"]["name"], {"metadata": {"annotations": arg["annotations"]}}, self.ns)
        elif verb == "deletePods":
            for p in self.pods_matching(arg["selector"])[: arg.get("count", 1 << 30)]:
                self.kube.delete("v1", "Pod", p["metadata"]["name"], self.ns)
        elif verb == "sleep":
            time.sleep(float(arg))
        else:
            raise RuntimeError(f"unknown action {verb}")

    # -- the run ----------------------------------------------------------------

    def header(self, index: int, step: dict, what: str) -> str:
        ops = ", ".join(f"{v}" for k, v in sorted(self.versions.items()) if k in self.spec.get("operators", []))
        lines = [
            f"# Recorded by scripts/record.sh {self.name} on the simulated cluster (testing/sim):",
            f"# {ops + '; ' if ops else ''}Kubernetes v1.37.2 kube-controller-manager and kube-scheduler; KWOK v0.8.0.",
            f"# Scenario testing/sim/scenarios/{self.name}.yaml, step {index} \"{step['name']}\": {what}.",
        ]
        return "\n".join(lines) + "\n"

    def reset_namespace(self) -> None:
        if self.kube.get("v1", "Namespace", self.ns) is not None:
            self.kube.delete("v1", "Namespace", self.ns)
            wait(f"namespace {self.ns} to be gone", lambda: self.kube.get("v1", "Namespace", self.ns) is None, 120)
        self.kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.ns}})
        # The namespace's default ServiceAccount (pods are refused without it).
        wait(f"the default ServiceAccount of {self.ns}", lambda: self.kube.get("v1", "ServiceAccount", "default", self.ns), 60)

    def run(self) -> None:
        say(f"scenario {self.name} ({self.path.relative_to(ROOT)}), namespace {self.ns}")
        self.reset_namespace()
        for o in self.spec.get("objects") or []:
            if o.get("kind") not in ("ClusterQueue", "ResourceFlavor", "Namespace", "PriorityClass", "WorkloadPriorityClass"):
                o.setdefault("metadata", {}).setdefault("namespace", self.ns)
            self.kube.apply(o)
        if self.dir.exists():
            shutil.rmtree(self.dir)
        self.dir.mkdir(parents=True)
        for i, step in enumerate(self.spec["steps"], 1):
            start = time.monotonic()
            for a in step.get("do") or []:
                self.act(a)
            until = step.get("until", "true")
            last = {}

            def reached():
                nonlocal last
                last = self.snapshot()
                outs = gojq(until, last)
                return outs == [True]

            try:
                wait(f"step {step['name']}: {until}", reached, float(step.get("timeout", 90)), every=0.5)
            except TimeoutError:
                raise StepTimeout(
                    f"{self.name}: step {i} {step['name']!r} not reached in {step.get('timeout', 90)} s; "
                    f"last seen: {seen(last)}"
                ) from None
            if step.get("settle"):
                time.sleep(float(step["settle"]))
                last = self.snapshot()
                if gojq(until, last) != [True]:
                    raise StepTimeout(
                        f"{self.name}: step {i} {step['name']!r} did not hold for {step['settle']} s; "
                        f"last seen: {seen(last)}"
                    )
            stem = f"{i:02d}-{step['name']}"
            note = step.get("note", step["name"]).strip().replace("\n", " ")
            obj = clean(last["object"])
            (self.dir / f"{stem}.yaml").write_text(self.header(i, step, note) + yaml.safe_dump(obj, sort_keys=False))
            items = [clean(p) for p in last["pods"]] + [clean(o) for o in last["owners"]]
            for it in items:
                it.setdefault("apiVersion", "v1")
            (self.dir / f"{stem}.pods.yaml").write_text(
                self.header(i, step, "the namespace's pods and their owners")
                + yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}, sort_keys=False)
            )
            events = [clean(e) for e in last["events"]]
            (self.dir / f"{stem}.events.yaml").write_text(
                self.header(i, step, "the namespace's events")
                + yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": events}, sort_keys=False)
            )
            if "kueue" in self.spec.get("operators", []):
                (self.dir / f"{stem}.related.yaml").write_text(
                    self.header(i, step, "Kueue's Workloads of the workload")
                    + yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [clean(w) for w in last["related"]]}, sort_keys=False)
                )
            say(f"  {stem}: reached in {time.monotonic() - start:.1f} s ({len(last['pods'])} pods, {len(last['owners'])} owners)")
        if not self.spec.get("keep"):
            self.kube.delete("v1", "Namespace", self.ns)


def run_retrying_timeouts(run, tell=say) -> None:
    """Runs a scenario (`run`), and once more when a step times out.

    A step the controllers did not reach in time is run again once, from a
    fresh namespace (`run` starts with one): real controllers and a real
    scheduler on a busy machine are not on a clock, and what a step must
    resolve to is checked afterwards on what was recorded, so a wrong answer
    is never retried. Anything but a timeout ends the run at once; a second
    timeout ends it with the step's message."""
    try:
        run()
        return
    except StepTimeout as e:
        tell(f"{e}\n  run again once, from a fresh namespace")
    try:
        run()
    except StepTimeout as e:
        raise SystemExit(str(e)) from None


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kubeconfig")
    ap.add_argument("scenarios", nargs="+")
    ap.add_argument("--out", required=True, help="root of the fixture tree (definitions/fixtures, or a scratch dir)")
    ap.add_argument("--versions", default="{}", help="JSON: operator name -> 'module version'")
    a = ap.parse_args(argv)
    if not shutil.which("gojq"):
        raise SystemExit("record.py needs gojq on PATH (apt install gojq)")
    kube = Kube(a.kubeconfig)
    versions = json.loads(a.versions)
    out = pathlib.Path(a.out)
    for s in a.scenarios:
        run_retrying_timeouts(lambda: Scenario(kube, pathlib.Path(s).resolve(), out, versions).run())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
