#!/usr/bin/env python3
"""The last step of the live stage: the CLI, Python and Node read the same
cluster and must give the same answers, value for value.

    python testing/live/parity.py CLI_BINARY
    python testing/live/parity.py CLI_BINARY --sim STATE_JSON

With KUBECONFIG set (the admin kubeconfig of the seeded server). Compares,
as JSON values:
- every workload of every covered type in every namespace (`get -A -o json`
  items; Python's `Cluster.list(all_types=True, all_namespaces=True)`;
  Node's `list({allTypes: true, allNamespaces: true})`), sorted as listed;
- one type in one namespace with a phase filter;
- `describe jobset/llama` and `describe lws/vllm`: the resolved workload
  with its live pods, the gang report, the last events and the diagnosis
  (the CLI's `why -o json`);
- `top -A` / `usage`.

With `--sim` (the sim stage, on the simulated cluster seeded by
testing/sim/live/seed.py, whose state file names its workloads): every
workload of the state's namespace, the description of each of them, and the
namespace's usage; each comparison asks the three one right after the other,
and once more when they differ (the scheduler retries its unplaceable pod now
and then, which writes an event).

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

NODE_SIM = r"""
const { Cluster } = await import(process.argv[1]);
const [what, ns, type, name] = process.argv.slice(2);
const c = new Cluster();
let out;
if (what === 'all') {
  out = (await c.list(undefined, { allTypes: true, namespace: ns })).workloads;
} else if (what === 'usage') {
  const { byNamespace, byType, total, podsRead } = await c.usage(undefined, { namespace: ns });
  out = { byNamespace, byType, total, podsRead };
} else {
  const d = await c.describe(type, name, { namespace: ns });
  out = {
    resolved: d.resolved, gang: d.gang, events: d.events, eventsLeftOut: d.eventsLeftOut, diagnosis: d.diagnosis,
  };
}
process.stdout.write(JSON.stringify(out));
"""

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
  out[k] = {
    resolved: d.resolved, gang: d.gang, events: d.events, eventsLeftOut: d.eventsLeftOut, diagnosis: d.diagnosis,
  };
}
const { byNamespace, byType, total, podsRead } = out.usage;
out.usage = { byNamespace, byType, total, podsRead };
process.stdout.write(JSON.stringify(out));
"""


def cli(binary: str, *args: str) -> object:
    out = subprocess.run([binary, *args, "-o", "json"], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def sim(binary: str, state_path: str):
    """Per comparison on the simulated cluster: a function that asks the CLI,
    Python and Node, one right after the other (the cluster keeps moving a
    little: the scheduler retries its unplaceable pod and writes events)."""
    from workload_lens import kube

    with open(state_path, encoding="utf-8") as f:
        state = json.load(f)
    ns = state["namespace"]
    c = kube.Cluster()

    def listing():
        return (cli(binary, "get", "-n", ns)["items"], c.list(all_types=True, namespace=ns).workloads,
                node_json(NODE_SIM, "all", ns))

    def describe(t: str, n: str):
        def ask():
            d = c.describe(t, n, namespace=ns)
            py = {"resolved": d.resolved, "gang": d.gang, "events": d.events, "eventsLeftOut": d.events_left_out,
                  "diagnosis": d.diagnosis}
            rust = {**cli(binary, "describe", f"{t}/{n}", "-n", ns),
                    "diagnosis": cli(binary, "why", f"{t}/{n}", "-n", ns)}
            return rust, py, node_json(NODE_SIM, "describe", ns, t, n)
        return ask

    def usage():
        u = c.usage(namespace=ns)
        py = {k: u[k] for k in ("byNamespace", "byType", "total", "podsRead")}
        return cli(binary, "top", "-n", ns), py, node_json(NODE_SIM, "usage", ns)

    asks = {"all": listing, "usage": usage}
    for w in state["workloads"]:
        asks[w["name"]] = describe(w["type"], w["name"])
    return asks


def node_json(script: str, *args: str) -> dict:
    kube_mjs = os.path.join(ROOT, "bindings-node", "lib", "kube.mjs")
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script, "file://" + kube_mjs, *args],
        check=True, capture_output=True, text=True,
    )
    r: dict = json.loads(out.stdout)
    return r


def main() -> int:
    binary = sys.argv[1]
    if len(sys.argv) == 4 and sys.argv[2] == "--sim":
        asks, expect, tries = sim(binary, sys.argv[3]), 1, 2
    elif len(sys.argv) == 2:
        rust, py, node = seeded(binary)
        asks, expect, tries = {k: (lambda k=k: (rust[k], py[k], node[k])) for k in rust}, 30, 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    failed = False
    count = 0
    for key, ask in asks.items():
        for _ in range(tries):
            a, b, n = ask()
            # Python's values as JSON (tuples, dict subclasses), like the others.
            b = json.loads(json.dumps(b))
            if a == b == n:
                break
        if key == "all":
            count = len(a)
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
    if count < expect:
        print(f"parity: expected {expect} or more workloads, got {count}", file=sys.stderr)
        failed = True
    return 1 if failed else 0


def seeded(binary: str) -> tuple[dict, dict, dict]:
    """The CLI's, Python's and Node's answers on the seeded API server."""
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
        py[k] = {"resolved": d.resolved, "gang": d.gang, "events": d.events, "eventsLeftOut": d.events_left_out,
                 "diagnosis": d.diagnosis}
    py["usage"] = {k: py["usage"][k] for k in ("byNamespace", "byType", "total", "podsRead")}
    rust = {
        "all": cli(binary, "get", "-A")["items"],
        "train": cli(binary, "get", "jobsets", "-n", "lens-train", "--phase", "running")["items"],
        "llama": {**cli(binary, "describe", "jobset/llama", "-n", "lens-train"),
                  "diagnosis": cli(binary, "why", "jobset/llama", "-n", "lens-train")},
        "vllm": {**cli(binary, "describe", "lws/vllm", "-n", "lens-serve"),
                 "diagnosis": cli(binary, "why", "lws/vllm", "-n", "lens-serve")},
        "usage": cli(binary, "top", "-A"),
    }
    return rust, py, node_json(NODE)


if __name__ == "__main__":
    sys.exit(main())
