#!/usr/bin/env python3
"""Smoke test of KServe's controller (raw deployment mode) in the simulated
cluster (run with the repo's venv):

    target/live/venv/bin/python testing/sim/operators/kserve/smoke.py KUBECONFIG [--keep]

Needs kube-controller-manager, kube-scheduler, KWOK with our stages, 2 free
nvidia.com/gpu, and KServe started by operator.sh (inferenceservice-config.yaml:
RawDeployment, no ingress). Creates namespace kserve-smoke (removed first, and
at the end unless --keep), then an InferenceService "llm" with a custom
predictor container (1 GPU) and minReplicas = maxReplicas = 2:

1. the controller makes Deployment llm-predictor and Service llm-predictor;
   kube-controller-manager makes the ReplicaSet and 2 pods, which run on the
   GPU nodes;
2. the InferenceService gets PredictorReady and Ready True once the
   Deployment is available (KServe also makes an HPA llm-predictor, min = max = 2;
   no Ingress, as configured);
3. minReplicas = maxReplicas = 3: KServe updates the HPA, kube-controller-manager's
   HPA controller scales the Deployment, 3 pods run.

Prints what it sees; exit status 0 when all holds.
"""

from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
from kube import Kube, wait  # noqa: E402
from kubernetes.client.rest import ApiException  # noqa: E402

NS = "kserve-smoke"
SV = "serving.kserve.io/v1beta1"
ISVC = "llm"
T0 = time.monotonic()


def say(msg: str) -> None:
    print(f"[{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


def delete(kube: Kube, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
    try:
        kube.call("DELETE", kube.path(api_version, kind, namespace, name), query={"propagationPolicy": "Background"})
    except ApiException as e:
        if e.status != 404:
            raise


def isvc(replicas: int = 2) -> dict:
    res = {"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": "1"}
    return {
        "apiVersion": SV, "kind": "InferenceService",
        "metadata": {"name": ISVC, "namespace": NS,
                     "annotations": {"serving.kserve.io/deploymentMode": "RawDeployment"}},
        "spec": {"predictor": {
            "minReplicas": replicas, "maxReplicas": replicas,
            "containers": [{
                "name": "kserve-container",
                "image": "vllm/vllm-openai:v0.8.5",
                "args": ["--model", "/mnt/models", "--port", "8080"],
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "resources": {"requests": res, "limits": res},
            }],
        }},
    }


def cond(obj: dict | None, ctype: str) -> dict | None:
    for c in ((obj or {}).get("status") or {}).get("conditions") or []:
        if c["type"] == ctype:
            return c
    return None


def show(kube: Kube) -> None:
    st = (kube.get(SV, "InferenceService", ISVC, NS) or {}).get("status") or {}
    conds = ", ".join(f"{c['type']}={c['status']}" + (f"({c.get('reason')})" if c.get("reason") else "")
                      for c in st.get("conditions") or [])
    say(f"  InferenceService {ISVC}: {conds}")
    say(f"    url={st.get('url')} deploymentMode={st.get('deploymentMode')} modelStatus={st.get('modelStatus')}")


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

    kube.apply(isvc())

    dep = wait("Deployment llm-predictor", lambda: kube.get("apps/v1", "Deployment", f"{ISVC}-predictor", NS), 60)
    owner = [(o["kind"], o["name"]) for o in dep["metadata"].get("ownerReferences") or []]
    say(f"Deployment {ISVC}-predictor: replicas={dep['spec'].get('replicas')} owner={owner} "
        f"labels={ {k: v for k, v in dep['spec']['template']['metadata'].get('labels', {}).items()} }")
    svc = wait("Service llm-predictor", lambda: kube.get("v1", "Service", f"{ISVC}-predictor", NS), 30)
    say(f"Service {ISVC}-predictor: ports={[(p.get('name'), p['port'], p.get('targetPort')) for p in svc['spec']['ports']]}")
    for kind, av in (("HorizontalPodAutoscaler", "autoscaling/v2"), ("Ingress", "networking.k8s.io/v1")):
        objs = kube.list(av, kind, NS)
        say(f"{kind}: {[o['metadata']['name'] for o in objs]}")

    def running(n):
        ps = [p for p in kube.list("v1", "Pod", NS, selector=f"serving.kserve.io/inferenceservice={ISVC}")
              if p["status"].get("phase") == "Running"]
        return ps if len(ps) == n else None

    ps = wait("2 predictor pods Running", lambda: running(2), 60)
    for p in ps:
        owner = [(o["kind"], o["name"]) for o in p["metadata"].get("ownerReferences") or []]
        ctrs = [c["name"] for c in p["spec"]["containers"]]
        say(f"  pod {p['metadata']['name']} on {p['spec'].get('nodeName')}: {p['status']['phase']} owner={owner} "
            f"containers={ctrs} gpu={p['spec']['containers'][0]['resources']['limits'].get('nvidia.com/gpu')}")

    def ready():
        o = kube.get(SV, "InferenceService", ISVC, NS)
        c = cond(o, "Ready")
        return c if c and c["status"] == "True" else None

    try:
        c = wait("InferenceService Ready True", ready, 60)
    finally:
        show(kube)
    say(f"Ready=True ({c.get('reason')})")

    # 3. scale: minReplicas = maxReplicas = 3 (the HPA's bounds; kube-controller-manager's HPA controller scales)
    kube.apply(isvc(3))
    ps = wait("3 predictor pods Running", lambda: running(3), 60)
    hpa = kube.get("autoscaling/v2", "HorizontalPodAutoscaler", f"{ISVC}-predictor", NS)
    dep = kube.get("apps/v1", "Deployment", f"{ISVC}-predictor", NS)
    say(f"scaled: HPA min/max {hpa['spec']['minReplicas']}/{hpa['spec']['maxReplicas']}, Deployment replicas "
        f"{dep['spec']['replicas']}, {len(ps)} pods Running")
    wait("InferenceService Ready True after scaling", ready, 30)
    show(kube)
    say("PASS")

    if not keep:
        delete(kube, "v1", "Namespace", NS)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
