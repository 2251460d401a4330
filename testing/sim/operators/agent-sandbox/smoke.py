#!/usr/bin/env python3
"""Smoke test of agent-sandbox's Sandbox controller in the simulated cluster
(run with the repo's venv):

    target/live/venv/bin/python testing/sim/operators/agent-sandbox/smoke.py KUBECONFIG [--keep]

Needs kube-controller-manager, kube-scheduler, KWOK with our stages, 1 free
nvidia.com/gpu, and the controller started by operator.sh. Creates namespace
sandbox-smoke (removed first, and at the end unless --keep), then a Sandbox
"agent" (agents.x-k8s.io/v1beta1) whose pod asks for 1 GPU:

1. the controller makes the pod (controlled by the Sandbox) and, with
   spec.service true, a headless Service; the pod runs; Ready True (DependenciesReady), status.nodeName set;
2. operatingMode Suspended: the pod is deleted, Suspended True, Ready False;
3. operatingMode Running again: a pod runs again, Ready True.

Prints what it sees; exit status 0 when all holds.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "sandbox-smoke"
SV = "agents.x-k8s.io/v1beta1"
NAME = "agent"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def delete(kube: Kube, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
    try:
        kube.call("DELETE", kube.path(api_version, kind, namespace, name), query={"propagationPolicy": "Background"})
    except ApiException as e:
        if e.status != 404:
            raise


def sandbox(mode: str) -> dict:
    res = {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"}
    return {
        "apiVersion": SV, "kind": "Sandbox",
        "metadata": {"name": NAME, "namespace": NS},
        "spec": {
            "operatingMode": mode,
            "service": True,  # unset: no headless Service is made
            "podTemplate": {"spec": {"containers": [{
                "name": "agent", "image": "python:3.12-slim", "command": ["sleep", "infinity"],
                "resources": {"requests": res, "limits": res}}]}},
        },
    }


def cond(obj: dict | None, ctype: str) -> dict | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


def status_is(kube: Kube, ctype: str, value: str):
    c = cond(kube.get(SV, "Sandbox", NAME, NS), ctype)
    return c if c and c["status"] == value else None


def show(kube: Kube) -> None:
    st = (kube.get(SV, "Sandbox", NAME, NS) or {}).get("status") or {}
    conds = ", ".join(f"{c['type']}={c['status']}({c.get('reason')})" for c in st.get("conditions") or [])
    say(f"  Sandbox {NAME}: {conds}; service={st.get('service')} nodeName={st.get('nodeName')} "
        f"selector={st.get('selector')} podIPs={st.get('podIPs')}")


def running_pods(kube: Kube) -> list[dict]:
    return [p for p in kube.list("v1", "Pod", NS)
            if p["status"].get("phase") == "Running" and not p["metadata"].get("deletionTimestamp")]


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

    # 1. running
    kube.apply(sandbox("Running"))
    try:
        ps = wait("the sandbox pod Running", lambda: running_pods(kube), 60)
        c = wait("Sandbox Ready True", lambda: status_is(kube, "Ready", "True"), 30)
    finally:
        show(kube)
    p = ps[0]
    owner = [(o["kind"], o["name"], o.get("controller")) for o in p["metadata"].get("ownerReferences") or []]
    say(f"  pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: Running owner={owner} "
        f"labels={p['metadata'].get('labels')} gpu={p['spec']['containers'][0]['resources']['limits'].get('nvidia.com/gpu')}")
    svcs = [(s["metadata"]["name"], s["spec"].get("clusterIP")) for s in kube.list("v1", "Service", NS)]
    say(f"  services: {svcs}")
    if (NAME, "None") not in svcs:
        raise SystemExit(f"FAIL: no headless Service {NAME}")
    say(f"running: Ready=True ({c.get('reason')})")

    # 2. suspended
    kube.apply(sandbox("Suspended"))
    wait("the sandbox pod gone", lambda: not kube.list("v1", "Pod", NS), 60)
    try:
        c = wait("Sandbox Suspended True", lambda: status_is(kube, "Suspended", "True"), 30)
    finally:
        show(kube)
    say(f"suspended: no pod, Suspended=True ({c.get('reason')})")

    # 3. resumed
    kube.apply(sandbox("Running"))
    try:
        wait("the sandbox pod Running again", lambda: running_pods(kube), 60)
        c = wait("Sandbox Ready True again", lambda: status_is(kube, "Ready", "True"), 30)
    finally:
        show(kube)
    say(f"resumed: Ready=True ({c.get('reason')})")
    say("PASS")

    if not keep:
        delete(kube, "v1", "Namespace", NS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
