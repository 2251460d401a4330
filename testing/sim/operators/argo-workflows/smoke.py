#!/usr/bin/env python3
"""Smoke test of Argo Workflows' workflow-controller in the simulated cluster
(run with the repo's venv):

    target/live/venv/bin/python testing/sim/operators/argo-workflows/smoke.py KUBECONFIG [--keep]

Needs kube-controller-manager, kube-scheduler, KWOK with our stages, 2 free
nvidia.com/gpu, and the controller started by operator.sh. Creates namespace
argo-smoke (removed first, and at the end unless --keep), then a Workflow
"train" of steps: "prep" (1 GPU), then "train" over withItems [a, b]: two
pods in parallel (1 GPU each), both of template "gpu". The step template's pods carry
sim.workload-lens.dev/outcome: succeed with run-seconds 4, so KWOK completes
every container (init, wait, main) with exit 0.

1. the controller makes the prep pod (init container "init", containers
   "wait" and "main", the argoexec image), it runs, the Workflow is Running;
2. after prep succeeds the two fan-out pods run;
3. all pods Succeeded: the Workflow's phase is Succeeded (see README.md for
   how the controller treats the missing task results).

Prints what it sees; exit status 0 when all holds.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "argo-smoke"
AV = "argoproj.io/v1alpha1"
WF = "train"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def delete(kube: Kube, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
    try:
        kube.call("DELETE", kube.path(api_version, kind, namespace, name), query={"propagationPolicy": "Background"})
    except ApiException as e:
        if e.status != 404:
            raise


def workflow() -> dict:
    res = {"cpu": "1", "memory": "4Gi", "nvidia.com/gpu": "1"}
    return {
        "apiVersion": AV, "kind": "Workflow",
        "metadata": {"name": WF, "namespace": NS},
        "spec": {
            "entrypoint": "main",
            "templates": [
                {"name": "main", "steps": [
                    [{"name": "prep", "template": "gpu"}],
                    [{"name": "train", "template": "gpu", "withItems": ["a", "b"]}],
                ]},
                {"name": "gpu",
                 "metadata": {"annotations": {"sim.workload-lens.dev/outcome": "succeed",
                                              "sim.workload-lens.dev/run-seconds": "4"}},
                 "container": {"image": "busybox", "command": ["sh", "-c", "echo train"],
                               "resources": {"requests": res, "limits": res}}},
            ],
        },
    }


def pods(kube: Kube) -> list[dict]:
    return kube.list("v1", "Pod", NS, selector=f"workflows.argoproj.io/workflow={WF}")


def wf_status(kube: Kube) -> dict:
    return (kube.get(AV, "Workflow", WF, NS) or {}).get("status") or {}


def show(kube: Kube) -> None:
    st = wf_status(kube)
    nodes = sorted((n.get("displayName"), n.get("type"), n.get("phase")) for n in (st.get("nodes") or {}).values())
    say(f"  Workflow {WF}: phase={st.get('phase')} progress={st.get('progress')} message={st.get('message')!r}")
    say(f"    nodes: {nodes}")
    if st.get("taskResultsCompletionStatus") is not None:
        say(f"    taskResultsCompletionStatus: {st.get('taskResultsCompletionStatus')}")


def show_pod(p: dict) -> None:
    s = p["status"]
    inits = [(c["name"], c.get("image")) for c in p["spec"].get("initContainers") or []]
    ctrs = [(c["name"], c.get("image")) for c in p["spec"]["containers"]]
    say(f"  pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: {s.get('phase')} "
        f"node-name={p['metadata'].get('annotations', {}).get('workflows.argoproj.io/node-name')} "
        f"init={inits} containers={ctrs}")


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    kube = Kube(argv[0])
    keep = "--keep" in argv[1:]

    delete(kube, "v1", "Namespace", NS)
    wait(f"namespace {NS} gone", lambda: kube.get("v1", "Namespace", NS) is None, 120)
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    wait(f"ServiceAccount default in {NS}", lambda: kube.get("v1", "ServiceAccount", "default", NS), 30)
    say(f"namespace {NS} ready")

    kube.apply(workflow())

    # 1. prep runs
    def prep_running():
        ps = [p for p in pods(kube) if p["status"].get("phase") == "Running"]
        return ps if ps else None

    ps = wait("the prep pod Running", prep_running, 60)
    for p in ps:
        show_pod(p)
    wait("Workflow phase Running", lambda: wf_status(kube).get("phase") == "Running", 30)
    show(kube)

    # 2. the parallel steps run after prep
    def three_pods():
        ps = pods(kube)
        return ps if len(ps) >= 3 else None

    ps = wait("the two fan-out pods", three_pods, 60)
    for p in ps:
        show_pod(p)
    show(kube)

    # 3. everything done
    def finished():
        ph = wf_status(kube).get("phase")
        return ph if ph in ("Succeeded", "Failed", "Error") else None

    try:
        ph = wait("Workflow finished", finished, 90)
    finally:
        for p in pods(kube):
            show_pod(p)
        show(kube)
    if ph != "Succeeded":
        raise SystemExit(f"FAIL: Workflow phase {ph}")
    say("PASS")

    if not keep:
        delete(kube, "v1", "Namespace", NS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
