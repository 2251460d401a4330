#!/usr/bin/env python3
"""nodes.py KUBECONFIG NODES GPUS PRODUCT [TIMEOUT]: creates the simulated GPU
nodes sim-gpu-0..NODES-1 (managed by kwok through the annotation
kwok.x-k8s.io/node=fake) and waits until every one is Ready and the
`default` ServiceAccount exists (kube-controller-manager is up). Used by
start.sh; run with the venv that has `kubernetes` and `yaml`."""

from __future__ import annotations

import sys

from kube import Kube, wait


def node(i: int, gpus: int, product: str) -> dict:
    name = f"sim-gpu-{i}"
    resources = {"cpu": "64", "memory": "512Gi", "pods": "110", "ephemeral-storage": "1Ti", "nvidia.com/gpu": str(gpus)}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.product": product,
                "nvidia.com/gpu.count": str(gpus),
            },
        },
        "spec": {"podCIDR": f"10.244.{i}.0/24", "podCIDRs": [f"10.244.{i}.0/24"]},
        "status": {
            "capacity": resources,
            "allocatable": resources,
            "addresses": [{"type": "InternalIP", "address": f"10.0.0.{10 + i}"}, {"type": "Hostname", "address": name}],
        },
    }


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    kube = Kube(argv[0])
    n, gpus, product = int(argv[1]), int(argv[2]), argv[3]
    timeout = float(argv[4]) if len(argv) > 4 else 60.0
    nodes = [node(i, gpus, product) for i in range(n)]
    for obj in nodes:
        kube.apply(obj)
        # A create keeps the status it is given, but say it again through
        # the status subresource in case the node existed.
        kube.apply({"apiVersion": "v1", "kind": "Node", "metadata": {"name": obj["metadata"]["name"]}, "status": obj["status"]}, subresource="status")

    def ready(name: str) -> bool:
        got = kube.get("v1", "Node", name) or {}
        conds = (got.get("status") or {}).get("conditions") or []
        return any(c["type"] == "Ready" and c["status"] == "True" for c in conds)

    for obj in nodes:
        wait(f"node {obj['metadata']['name']} to be Ready (kwok)", lambda: ready(obj["metadata"]["name"]), timeout)
    wait("ServiceAccount default/default (kube-controller-manager)", lambda: kube.get("v1", "ServiceAccount", "default", "default"), timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
