#!/usr/bin/env python3
"""The last step of the live stage: the CLI, Python and Node read the same
cluster and must give the same answers, value for value.

    python testing/live/parity.py CLI_BINARY

With KUBECONFIG set (the admin kubeconfig of the seeded server). Compares,
as JSON values:
- every workload of every covered type in every namespace (`get -A -o json`
  items; Python's `Cluster.list(all_types=True, all_namespaces=True)`;
  Node's `list({allTypes: true, allNamespaces: true})`), sorted as listed;
- one type in one namespace with a phase filter;
- `describe jobset/llama` and `describe lws/vllm`: the resolved workload
  with its live pods, the gang report and the last events;
- `top -A` / `usage`.

Run in the repository's `.venv` (with the package and `kubernetes`), with
`node` on PATH and bindings-node built. Prints one line per comparison and
exits 1 on the first difference, showing it.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

NODE = r"""
const { Cluster } = await import(process.argv[1]);
const c = new Cluster();
const out = {
  all: (await c.list(undefined, { allTypes: true, allNamespaces: true })).workloads,
  train: (await c.list('jobsets', { namespace: 'lens-train', phases: ['running'] })).workloads,
  llama: await c.describe('jobset', 'llama', { namespace: 'lens-train' }),
  vllm: await c.describe('lws', 'vllm', { namespace: 'lens-serve' }),
  usage: await c.usage(undefined, { allNamespaces: true }),
};
for (const k of ['llama', 'vllm']) {
  const d = out[k];
  out[k] = { resolved: d.resolved, gang: d.gang, events: d.events, eventsLeftOut: d.eventsLeftOut };
}
const { byNamespace, byType, total, podsRead } = out.usage;
out.usage = { byNamespace, byType, total, podsRead };
process.stdout.write(JSON.stringify(out));
"""


def cli(binary: str, *args: str) -> object:
    out = subprocess.run([binary, *args, "-o", "json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> int:
    binary = sys.argv[1]
    from workload_lens import kube

    c = kube.Cluster()
    py = {
        "all": c.list(all_types=True, all_namespaces=True).workloads,
        "train": c.list("jobsets", namespace="lens-train", phases=["running"]).workloads,
        "llama": c.describe("jobset", "llama", namespace="lens-train"),
        "vllm": c.describe("lws", "vllm", namespace="lens-serve"),
        "usage": c.usage(all_namespaces=True),
    }
    for k in ("llama", "vllm"):
        d = py[k]
        py[k] = {"resolved": d.resolved, "gang": d.gang, "events": d.events, "eventsLeftOut": d.events_left_out}
    py["usage"] = {k: py["usage"][k] for k in ("byNamespace", "byType", "total", "podsRead")}
    rust = {
        "all": cli(binary, "get", "-A")["items"],
        "train": cli(binary, "get", "jobsets", "-n", "lens-train", "--phase", "running")["items"],
        "llama": cli(binary, "describe", "jobset/llama", "-n", "lens-train"),
        "vllm": cli(binary, "describe", "lws/vllm", "-n", "lens-serve"),
        "usage": cli(binary, "top", "-A"),
    }
    kube_mjs = os.path.join(ROOT, "bindings-node", "lib", "kube.mjs")
    node_out = subprocess.run(
        ["node", "--input-type=module", "-e", NODE, "file://" + kube_mjs],
        check=True, capture_output=True, text=True,
    )
    node = json.loads(node_out.stdout)
    # Python's values as JSON (tuples, dict subclasses), like the others.
    py = json.loads(json.dumps(py))
    failed = False
    for key in rust:
        a, b, n = rust[key], py[key], node[key]
        if a == b == n:
            size = len(a) if isinstance(a, list) else len(json.dumps(a))
            print(f"parity: {key}: CLI, Python and Node agree ({size} {'rows' if isinstance(a, list) else 'bytes'})")
            continue
        failed = True
        for name, other in (("Python", b), ("Node", n)):
            if other != a:
                print(f"parity: {key}: the CLI and {name} differ", file=sys.stderr)
                print("  CLI:    " + json.dumps(a, sort_keys=True)[:2000], file=sys.stderr)
                print(f"  {name}: " + json.dumps(other, sort_keys=True)[:2000], file=sys.stderr)
    if not rust["all"] or len(rust["all"]) < 30:
        print(f"parity: expected the seeded scenario (30 or more workloads), got {len(rust['all'])}", file=sys.stderr)
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
