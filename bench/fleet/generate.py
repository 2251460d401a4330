#!/usr/bin/env python3
"""Writes a synthetic fleet: N cluster snapshots made from the catalog's fixtures.

    python bench/fleet/generate.py OUT_DIR --clusters N --workloads-per-cluster M
                                   [--namespaces K] [--seed S] [--orphans F] [--level L]

Writes OUT_DIR/cluster-000.jsonl.gz ... in the snapshot format of docs/fleet.md
(gzip JSON Lines: a header, one record per object, an end line) and
OUT_DIR/manifest.json (what was generated: per cluster the records, workloads,
pods, orphans, kinds and the statuses expect.yaml gives each fixture).

Each workload is one fixture of definitions/fixtures/<definition>/<state>.yaml
with, when there is one, its <state>.pods.yaml: the definition is drawn
uniformly, then the state (a state with pods weighs 3, one without 1). Each copy
gets its own name (the fixture's name plus a number; every string that starts
with the name is renamed with it: pods, labels, hostnames, owner references),
namespace (team-00 ...), uids (random, from the seed), creation time and nodes.
The pods' controller chains stay whole: an owner a fixture's pods name but the
fixture does not hold (the Job between a JobSet and its pods, a Deployment's
ReplicaSet, ...) is generated, controlled by the workload, so each workload is
one top-level row with its pods. Pods the fixture's expect.yaml lists as strays
(another workload's pods) are left out. With --orphans F, about F pods per
workload are added whose controller is missing: each is a row of its own,
orphaned.

Deterministic: the same arguments give byte-identical files (gzip mtime 0).
Streams: a cluster is written workload by workload, never held.
Needs PyYAML (to read the fixtures once at start).
"""
from __future__ import annotations

import argparse
import bisect
import gzip
import json
import os
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

try:
    import yaml
except ImportError:  # pragma: no cover
    sys.exit("generate.py needs PyYAML (python3 -m pip install pyyaml, or a venv that has it)")

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "definitions" / "fixtures"
WRITER = "workload-lens bench/fleet/generate.py 1"
# Capture time of cluster 0; cluster i is captured i minutes later.
CAPTURED_AT = 1796542200  # 2026-12-06T07:30:00Z
MAX_AGE_S = 30 * 86400
POD_STATES_WEIGHT = 3
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
SLOT_RE = re.compile(r"@@(NAME|NS|TS|U\d+|N\d+)@@")
REGIONS = ["eu-west", "eu-north", "us-east", "us-west", "ap-south", "ap-east"]

# Per-workload values, by position in a template's format string.
NAME, NS, TS = 0, 1, 2
FIRST_UID = 3


def load(path: Path):
    with open(path, encoding="utf-8") as f:
        return yaml.load(f, Loader=LOADER)


_EXPECT: dict[str, dict] = {}


def expectations(definition: str) -> dict:
    """The fixtures of a definition's expect.yaml, by state (read once)."""
    if definition not in _EXPECT:
        _EXPECT[definition] = load(FIXTURES / definition / "expect.yaml").get("fixtures") or {}
    return _EXPECT[definition]


def group_of(api_version: str) -> str:
    return api_version.split("/", 1)[0] if "/" in api_version else ""


def controller_ref(obj: dict):
    for r in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if r.get("controller"):
            return r
    return None


def phase_of(pod: dict) -> str:
    return ((pod.get("status") or {}).get("phase")) or ""


class Template:
    """One fixture state as a format string for every record of one copy of it."""

    def __init__(self, definition: str, state: str, covered: set[tuple[str, str]]):
        self.definition = definition
        self.state = state
        d = FIXTURES / definition
        main = load(d / f"{state}.yaml")
        expect = expectations(definition).get(state) or {}
        self.statuses = list(expect.get("statuses") or [])
        self.expected_pods = expect.get("pods")
        self.kind = main["kind"]
        self.api_version = main["apiVersion"]
        is_pod = self.kind == "Pod" and self.api_version == "v1"
        meta = main.setdefault("metadata", {})
        old_ns = meta.get("namespace") or ""
        self.base_name = meta.get("name")
        # A name made from generateName: the copy's name is generateName plus
        # its number, and nothing else is renamed.
        self.name_prefix = (self.base_name + "-") if self.base_name else (meta.get("generateName") or "w-")

        items: list[dict] = []
        pods_file = d / f"{state}.pods.yaml"
        if pods_file.exists() and not is_pod:  # a Pod's pods file is the Pod again
            doc = load(pods_file)
            items = list(doc.get("items") or []) if isinstance(doc, dict) else list(doc or [])
        stray = set(expect.get("stray") or [])
        self.dropped = [i["metadata"]["name"] for i in items if i["metadata"].get("name") in stray]
        items = [i for i in items if i["metadata"].get("name") not in stray]
        # The main object is top-level: no controller of its own.
        meta.pop("ownerReferences", None)

        # uids: the main object's is slot 0; every item gets one.
        uids: dict[str, int] = {}
        nslots = 0

        def slot_for(old: str | None) -> int:
            nonlocal nslots
            if old is not None and old in uids:
                return uids[old]
            k = nslots
            nslots += 1
            if old is not None:
                uids[old] = k
            return k

        main_uid = meta.get("uid")
        slot_for(main_uid)
        meta["uid"] = "@@U0@@"
        for it in items:
            m = it.setdefault("metadata", {})
            k = slot_for(m.get("uid"))
            m["uid"] = f"@@U{k}@@"
        # Owners the pods name that the fixture lacks: generated, controlled
        # by the workload.
        generated: list[dict] = []
        for it in list(items):
            r = controller_ref(it)
            if r is None or r.get("uid") is None or r["uid"] in uids or r["uid"] == main_uid:
                continue
            k = slot_for(r["uid"])
            owner = {
                "apiVersion": r.get("apiVersion", ""),
                "kind": r.get("kind", ""),
                "metadata": {
                    "name": r.get("name", ""),
                    "namespace": old_ns,
                    "uid": f"@@U{k}@@",
                    "ownerReferences": [{
                        "apiVersion": self.api_version, "kind": self.kind,
                        "name": "@@NAME@@", "uid": "@@U0@@",
                        "controller": True, "blockOwnerDeletion": True,
                    }],
                },
            }
            generated.append(owner)
        self.generated = [f"{g['kind']}/{g['metadata']['name']}" for g in generated]
        items = generated + items
        self.nuids = nslots

        # Item names that do not start with the workload's name would repeat
        # in every copy: they are prefixed with it.
        renames: dict[str, str] = {}
        if self.base_name:
            for it in items:
                n = it["metadata"].get("name")
                if n and not self._named(n):
                    renames[n] = f"{self.base_name}-{n}"

        nodes: dict[str, int] = {}
        old_uuids = [u for u in uids if UUID_RE.match(u)]

        def tstr(s: str, key: str | None) -> str:
            if key is not None and key.lower().endswith("namespace") and s == old_ns and old_ns:
                return "@@NS@@"
            if key == "nodeName":
                if s not in nodes:
                    nodes[s] = len(nodes)
                return f"@@N{nodes[s]}@@"
            if s in uids:
                return f"@@U{uids[s]}@@"
            for u in old_uuids:
                if u in s:
                    s = s.replace(u, f"@@U{uids[u]}@@")
            s = renames.get(s, s)
            if self.base_name and self._named(s):
                return "@@NAME@@" + s[len(self.base_name):]
            return s

        def walk(v, key=None):
            if isinstance(v, dict):
                return {
                    (("@@NAME@@" + k[len(self.base_name):]) if self.base_name and self._named(k) else k): walk(x, k)
                    for k, x in v.items()
                }
            if isinstance(v, list):
                return [walk(x, key) for x in v]
            if isinstance(v, str):
                return tstr(v, key)
            return v

        def prepare(obj: dict) -> dict:
            m = obj.setdefault("metadata", {})
            m.pop("managedFields", None)
            m.pop("resourceVersion", None)
            out = walk(obj)
            om = out["metadata"]
            om["namespace"] = "@@NS@@"
            om["creationTimestamp"] = "@@TS@@"
            return out

        main_out = prepare(main)
        main_out["metadata"]["name"] = "@@NAME@@"
        lines = [self._line(self._roles(main, covered), main_out)]
        self.pods = 1 if is_pod else 0
        self.live_pods = 1 if is_pod and phase_of(main) not in ("Succeeded", "Failed") else 0
        for it in items:
            roles = self._roles(it, covered)
            if "pod" in roles:
                self.pods += 1
                if phase_of(it) not in ("Succeeded", "Failed"):
                    self.live_pods += 1
            lines.append(self._line(roles, prepare(it)))
        self.records = len(lines)
        self.nnodes = len(nodes)
        self.nslots = FIRST_UID + self.nuids + self.nnodes
        text = "\n".join(lines) + "\n"
        text = text.replace("{", "{{").replace("}", "}}")

        def slot(m: re.Match) -> str:
            t = m.group(1)
            if t == "NAME":
                return "{0}"
            if t == "NS":
                return "{1}"
            if t == "TS":
                return "{2}"
            if t[0] == "U":
                return "{%d}" % (FIRST_UID + int(t[1:]))
            return "{%d}" % (FIRST_UID + self.nuids + int(t[1:]))

        self.fmt = SLOT_RE.sub(slot, text)
        if "@@" in self.fmt:
            raise ValueError(f"{definition}/{state}: a placeholder was left: {self.fmt[:200]}")
        # Every line of a copy must be JSON (checked once, with sample values).
        sample = self.fmt.format(*self.sample_values())
        for line in sample.splitlines():
            json.loads(line)

    def _named(self, s: str) -> bool:
        """Does `s` start with the workload's name (then a separator)?"""
        n = self.base_name
        return s == n or (s.startswith(n) and len(s) > len(n) and s[len(n)] in "-.[/:")

    @staticmethod
    def _roles(obj: dict, covered: set[tuple[str, str]]) -> list[str]:
        key = (group_of(obj.get("apiVersion", "")), obj.get("kind", ""))
        if key == ("", "Pod"):
            return ["object", "pod"]
        if key in covered:
            return ["object"]
        return ["owner"]

    @staticmethod
    def _line(roles: list[str], obj: dict) -> str:
        return json.dumps({"roles": roles, "object": obj}, separators=(",", ":"), ensure_ascii=False)

    def sample_values(self) -> list[str]:
        return (["sample-00000", "team-00", "2026-12-01T00:00:00Z"]
                + [f"00000000-0000-4000-8000-{k:012d}" for k in range(self.nuids)]
                + [f"node-{k:04d}" for k in range(self.nnodes)])


def covered_types() -> set[tuple[str, str]]:
    """(group, kind) of every type a fixture directory holds: the catalog's."""
    out = set()
    for d in sorted(FIXTURES.iterdir()):
        for f in sorted(d.glob("*.yaml")):
            if f.name == "expect.yaml" or f.name.endswith(".pods.yaml"):
                continue
            o = load(f)
            out.add((group_of(o["apiVersion"]), o["kind"]))
            break
    return out


def templates() -> list[Template]:
    covered = covered_types()
    out = []
    for d in sorted(FIXTURES.iterdir()):
        states = sorted(f.name[:-5] for f in d.glob("*.yaml")
                        if f.name != "expect.yaml" and not f.name.endswith(".pods.yaml"))
        for s in states:
            out.append(Template(d.name, s, covered))
    return out


def weights(ts: list[Template]) -> list[float]:
    """Each definition weighs the same; within one, a state with pods weighs
    POD_STATES_WEIGHT, one without 1."""
    per_def: dict[str, float] = {}
    for t in ts:
        per_def[t.definition] = per_def.get(t.definition, 0) + (POD_STATES_WEIGHT if t.pods else 1)
    return [(POD_STATES_WEIGHT if t.pods else 1) / per_def[t.definition] for t in ts]


def uid4(getrandbits) -> str:
    h = "%032x" % getrandbits(128)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) & 3]}{h[17:20]}-{h[20:]}"


def rfc3339(t: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


ORPHAN_OWNERS = [
    ("apps/v1", "ReplicaSet", "{name}-{hash}", "{name}-{hash}-{pod}"),
    ("batch/v1", "Job", "{name}", "{name}-{pod}"),
    ("apps/v1", "StatefulSet", "{name}", "{name}-0"),
]


def orphan_line(name: str, ns: str, ts: str, uid: str, owner_uid: str, node: str, variant: int,
                hash_: str, pod_: str, app: str) -> str:
    """A pod whose controller is gone, labelled `app: APP` (the workload it
    was generated beside): a look-alike of that workload where its selector
    reads the label, as a leftover of an earlier rollout is."""
    api_version, kind, owner_name, pod_name = ORPHAN_OWNERS[variant]
    owner_name = owner_name.format(name=name, hash=hash_)
    pod_name = pod_name.format(name=name, hash=hash_, pod=pod_)
    pod = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {
            "name": pod_name, "namespace": ns, "uid": uid, "creationTimestamp": ts,
            "labels": {"app": app},
            "ownerReferences": [{"apiVersion": api_version, "kind": kind, "name": owner_name, "uid": owner_uid,
                                 "controller": True, "blockOwnerDeletion": True}],
        },
        "spec": {"nodeName": node, "containers": [{
            "name": "main", "image": "ghcr.io/example/leftover:1.0",
            "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"},
                                                      {"type": "Ready", "status": "True"}]},
    }
    return json.dumps({"roles": ["object", "pod"], "object": pod}, separators=(",", ":")) + "\n"


HASH_CHARS = "bcdfghjklmnpqrstvwxz2456789"


def write_cluster(path: Path, index: int, args, ts: list[Template], cum: list[float]) -> dict:
    rng = random.Random(f"fleet:{args.seed}:{index}")
    orng = random.Random(f"fleet-orphans:{args.seed}:{index}")
    getrandbits = rng.getrandbits
    rand = rng.random
    region = REGIONS[index % len(REGIONS)]
    cluster = f"{region}-{index:03d}"
    captured = CAPTURED_AT + 60 * index
    namespaces = [f"team-{k:02d}" for k in range(args.namespaces)]
    nnodes = max(4, args.workloads_per_cluster // 4)
    nodes = [f"node-{k:04d}" for k in range(nnodes)]
    total = cum[-1]
    header = {"format": "workload-lens-snapshot", "version": 1, "cluster": cluster,
              "capturedAt": rfc3339(captured), "writer": WRITER}
    records = pods = live_pods = orphans = 0
    kinds: Counter = Counter()
    used: Counter = Counter()
    statuses: Counter = Counter()
    partial = path.with_name(path.name + ".partial")
    t0 = time.perf_counter()
    with open(partial, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=args.level, mtime=0) as gz:
            out: list[str] = [json.dumps(header, separators=(",", ":")) + "\n"]
            size = 0
            for w in range(args.workloads_per_cluster):
                if args.every_fixture and w < len(ts):
                    t = ts[w]
                else:
                    t = ts[bisect.bisect_right(cum, rand() * total)]
                ns = namespaces[int(rand() * len(namespaces))]
                vals = [f"{t.name_prefix}{w:05d}", ns, rfc3339(captured - 60 - int(rand() * MAX_AGE_S))]
                for _ in range(t.nuids):
                    vals.append(uid4(getrandbits))
                for _ in range(t.nnodes):
                    vals.append(nodes[int(rand() * nnodes)])
                s = t.fmt.format(*vals)
                out.append(s)
                size += len(s)
                records += t.records
                pods += t.pods
                live_pods += t.live_pods
                kinds[t.kind] += 1
                used[f"{t.definition}/{t.state}"] += 1
                statuses["+".join(t.statuses)] += 1
                if args.orphans and orng.random() < args.orphans:
                    o = orphan_line(f"stale-{w:05d}", ns, vals[TS], uid4(orng.getrandbits), uid4(orng.getrandbits),
                                    nodes[int(orng.random() * nnodes)], orng.randrange(len(ORPHAN_OWNERS)),
                                    "".join(orng.choice(HASH_CHARS) for _ in range(9)),
                                    "".join(orng.choice(HASH_CHARS) for _ in range(5)), vals[0])
                    out.append(o)
                    size += len(o)
                    records += 1
                    pods += 1
                    live_pods += 1
                    orphans += 1
                if size > 1 << 20:
                    gz.write("".join(out).encode())
                    out.clear()
                    size = 0
            end = {"end": {"records": records, "warnings": [], "forbidden": [], "unreadable": [],
                           "types": [], "served": []}}
            out.append(json.dumps(end, separators=(",", ":")) + "\n")
            gz.write("".join(out).encode())
    os.replace(partial, path)
    seconds = time.perf_counter() - t0
    return {
        "file": path.name, "cluster": cluster, "capturedAt": header["capturedAt"],
        "records": records, "workloads": args.workloads_per_cluster, "orphans": orphans,
        "rows": args.workloads_per_cluster + orphans, "pods": pods, "livePods": live_pods,
        "bytes": path.stat().st_size, "seconds": seconds,
        "kinds": dict(sorted(kinds.items())), "statuses": dict(sorted(statuses.items())),
        "fixtures": dict(sorted(used.items())),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", type=Path)
    ap.add_argument("--clusters", type=int, default=1)
    ap.add_argument("--workloads-per-cluster", type=int, default=1000)
    ap.add_argument("--namespaces", type=int, default=10, help="team-00 .. team-(K-1) (default 10)")
    ap.add_argument("--seed", default="0")
    ap.add_argument("--orphans", type=float, default=0.0,
                    help="per workload, the chance of one more pod whose controller is missing (default 0)")
    ap.add_argument("--level", type=int, default=5,
                    help="gzip compression level, 0-9 (default 5: within 4%% of the size of the CLI's level 6, "
                         "a third faster)")
    ap.add_argument("--every-fixture", action="store_true",
                    help="the first workloads of each cluster are every fixture state once, in order")
    ap.add_argument("--list-fixtures", action="store_true",
                    help="print each fixture state used: records, pods, the owners generated, the strays left out")
    args = ap.parse_args(argv)
    if args.clusters < 0 or args.workloads_per_cluster < 0 or args.namespaces < 1:
        ap.error("--clusters and --workloads-per-cluster must be >= 0, --namespaces >= 1")
    if not 0 <= args.orphans <= 1:
        ap.error("--orphans is a fraction between 0 and 1")

    t0 = time.perf_counter()
    ts = templates()
    w = weights(ts)
    cum, acc = [], 0.0
    for x in w:
        acc += x
        cum.append(acc)
    load_s = time.perf_counter() - t0
    if args.list_fixtures:
        for t in ts:
            extra = ""
            if t.generated:
                extra += " generated: " + ", ".join(t.generated)
            if t.dropped:
                extra += " strays left out: " + ", ".join(t.dropped)
            print(f"{t.definition}/{t.state}: {t.kind}, {t.records} records, {t.pods} pods "
                  f"({t.live_pods} live), statuses {'+'.join(t.statuses)}{extra}")
    print(f"{len(ts)} fixture states of {len({t.definition for t in ts})} definitions read in {load_s:.2f} s",
          file=sys.stderr)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    clusters = []
    t1 = time.perf_counter()
    for i in range(args.clusters):
        c = write_cluster(args.out_dir / f"cluster-{i:03d}.jsonl.gz", i, args, ts, cum)
        clusters.append(c)
        print(f"{c['file']} ({c['cluster']}): {c['records']} records, {c['workloads']} workloads, "
              f"{c['orphans']} orphans, {c['pods']} pods ({c['livePods']} live), {c['bytes']} bytes, "
              f"{c['seconds']:.2f} s, {c['records'] / max(c['seconds'], 1e-9):.0f} records/s", flush=True)
    el = time.perf_counter() - t1
    tot = {k: sum(c[k] for c in clusters) for k in ("records", "workloads", "orphans", "pods", "livePods", "bytes")}
    print(f"total: {args.clusters} clusters, {tot['records']} records, {tot['workloads']} workloads, "
          f"{tot['orphans']} orphans, {tot['pods']} pods ({tot['livePods']} live), {tot['bytes']} bytes, "
          f"{el:.2f} s, {tot['records'] / max(el, 1e-9):.0f} records/s")
    manifest = {
        "generator": WRITER,
        "args": {"clusters": args.clusters, "workloadsPerCluster": args.workloads_per_cluster,
                 "namespaces": args.namespaces, "seed": args.seed, "orphans": args.orphans, "level": args.level,
                 "everyFixture": args.every_fixture},
        "totals": tot,
        "clusters": [{k: v for k, v in c.items() if k != "seconds"} for c in clusters],
    }
    with open(args.out_dir / "manifest.json", "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
