#!/usr/bin/env python3
"""A fake GPU-metrics endpoint for the metrics stage: DCGM-style series,
labelled the way dcgm-exporter labels them when its Kubernetes mapping is
on (namespace, pod and container of the pod the GPU is allocated to, beside
gpu, UUID, pci_bus_id, device, modelName and Hostname). The one sanctioned
fake of the stage: the API server and Prometheus are real.

    python testing/metrics/fake_dcgm.py PORT

Serves, on 127.0.0.1:PORT:
  GET  /metrics                         DCGM_FI_DEV_GPU_UTIL (percent) and
                                        DCGM_FI_DEV_FB_USED (MiB) of GPUS
  POST /set?uuid=GPU-...&util=N         sets one GPU's utilisation (the test
                                        turns a busy GPU idle to check the
                                        idle rule's window)

GPUS covers pods of the scenario of testing/live/README.md: every running
pod of JobSet lens-train/llama (leader 4 GPUs, workers 2 each), two of
PyTorchJob lens-train/bert (one GPU of bert-worker-2 idle), both GPU workers
of RayCluster lens-serve/ray-a (all idle: the idle workload), and two GPUs
no workload accounts for: one allocated to a pod that is not in the cluster
(lens-train/notebook-0, idle) and one allocated to no pod (no namespace or
pod label, as dcgm-exporter reports a free GPU). testing/metrics/
test_metrics.py imports GPUS to compute what the recording rules must give.
"""
from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

H100 = "NVIDIA H100 80GB HBM3"


def gpu(host: str, index: int, namespace: str, pod: str, container: str, util: float, fb_mib: float) -> dict:
    # A UUID that is stable and unique per host and index (real ones are
    # random); the PCI bus id follows the index as on an 8-GPU board.
    node = host.rsplit("-", 1)[-1]
    return {
        "gpu": str(index),
        "UUID": f"GPU-5e1d{node:0>4}-0000-4000-8000-{index:012d}",
        "pci_bus_id": f"00000000:{0x18 + 0x10 * index:02X}:00.0",
        "device": f"nvidia{index}",
        "modelName": H100,
        "Hostname": host,
        "namespace": namespace,
        "pod": pod,
        "container": container,
        "util": util,
        "fb_used": fb_mib,
    }


GPUS: list[dict] = [
    # JobSet lens-train/llama: the leader's 4 GPUs, the three running
    # workers' 2 each (the failed and the pending worker have none).
    gpu("gpu-node-01", 0, "lens-train", "llama-leader-0-0-x7k2p", "trainer", 90, 40000),
    gpu("gpu-node-01", 1, "lens-train", "llama-leader-0-0-x7k2p", "trainer", 80, 40000),
    gpu("gpu-node-01", 2, "lens-train", "llama-leader-0-0-x7k2p", "trainer", 70, 30000),
    gpu("gpu-node-01", 3, "lens-train", "llama-leader-0-0-x7k2p", "trainer", 60, 30000),
    gpu("gpu-node-02", 0, "lens-train", "llama-worker-0-0-b9d4q", "trainer", 50, 20000),
    gpu("gpu-node-02", 1, "lens-train", "llama-worker-0-0-b9d4q", "trainer", 50, 20000),
    gpu("gpu-node-02", 2, "lens-train", "llama-worker-0-1-c2m8t", "trainer", 40, 16000),
    gpu("gpu-node-02", 3, "lens-train", "llama-worker-0-1-c2m8t", "trainer", 20, 16000),
    gpu("gpu-node-03", 0, "lens-train", "llama-worker-1-0-m3zr8", "trainer", 10, 8000),
    gpu("gpu-node-03", 1, "lens-train", "llama-worker-1-0-m3zr8", "trainer", 30, 8000),
    # PyTorchJob lens-train/bert: one master GPU, one idle worker GPU, and
    # one that the test turns idle mid-run (not idle over the window).
    gpu("gpu-node-03", 2, "lens-train", "bert-master-0", "pytorch", 64, 12000),
    gpu("gpu-node-03", 3, "lens-train", "bert-worker-2", "pytorch", 0, 3000),
    gpu("gpu-node-03", 4, "lens-train", "bert-worker-1", "pytorch", 56, 12000),
    # RayCluster lens-serve/ray-a: both GPU workers idle.
    gpu("gpu-node-04", 0, "lens-serve", "ray-a-gpu-workers-worker-5tq9z", "ray-worker", 0, 600),
    gpu("gpu-node-04", 1, "lens-serve", "ray-a-gpu-workers-worker-w2d7c", "ray-worker", 0, 400),
    # A pod the cluster does not hold (dcgm-exporter reads kubelet's pod
    # resources, which can name a pod the exporter never saw): idle.
    gpu("gpu-node-04", 2, "lens-train", "notebook-0", "jupyter", 0, 70000),
    # A GPU allocated to no pod: no namespace, pod or container label.
    gpu("gpu-node-04", 7, "", "", "", 0, 0),
]

_lock = threading.Lock()


def exposition() -> str:
    out = []
    for name, key, help_ in (
        ("DCGM_FI_DEV_GPU_UTIL", "util", "GPU utilization (in %)."),
        ("DCGM_FI_DEV_FB_USED", "fb_used", "Framebuffer memory used (in MiB)."),
    ):
        out.append(f"# HELP {name} {help_}")
        out.append(f"# TYPE {name} gauge")
        with _lock:
            for g in GPUS:
                labels = [
                    (k, g[k])
                    for k in ("gpu", "UUID", "pci_bus_id", "device", "modelName", "Hostname", "container", "namespace", "pod")
                    if g[k] != ""
                ]
                text = ",".join(f'{k}="{v}"' for k, v in labels)
                out.append(f"{name}{{{text}}} {g[key]:g}")
    return "\n".join(out) + "\n"


class Handler(BaseHTTPRequestHandler):
    def _send(self, code: int, body: str, ctype: str = "text/plain; charset=utf-8") -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if urlsplit(self.path).path == "/metrics":
            self._send(200, exposition(), "text/plain; version=0.0.4; charset=utf-8")
        else:
            self._send(404, "not found\n")

    def do_POST(self) -> None:  # noqa: N802
        url = urlsplit(self.path)
        q = {k: v[-1] for k, v in parse_qs(url.query).items()}
        if url.path != "/set" or "uuid" not in q or "util" not in q:
            self._send(400, "POST /set?uuid=GPU-...&util=N\n")
            return
        with _lock:
            hit = [g for g in GPUS if g["UUID"] == q["uuid"]]
            for g in hit:
                g["util"] = float(q["util"])
        self._send(200 if hit else 404, f"{len(hit)} set\n")

    def log_message(self, format: str, *args) -> None:  # noqa: A002
        pass  # quiet: Prometheus scrapes every second


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    print(f"fake dcgm: serving {len(GPUS)} GPUs on http://127.0.0.1:{sys.argv[1]}/metrics", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
