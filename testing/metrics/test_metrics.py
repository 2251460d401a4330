#!/usr/bin/env python3
"""The metrics stage's test: `workload-lens serve` scraped by a real
Prometheus, against a real kube-apiserver seeded with the scenario of
testing/live/README.md. Run by scripts/metrics.sh, which starts the API
server, the exporter, the fake GPU-metrics endpoint (fake_dcgm.py) and
Prometheus, and stops them afterwards:

    python testing/metrics/test_metrics.py --cli BIN --kubeconfig FILE \\
        --kapi-dir DIR --exporter URL --dcgm URL --prometheus URL \\
        [--docs docs/metrics.md] [--watch-baseline FILE]
    python testing/metrics/test_metrics.py --save-watch-baseline DIR
        (prints the API server's open watches per resource, as JSON: taken
        before the exporter starts, so that the test can count the
        exporter's own)

The checks run in order, each timed; the first failure ends the run
(exit 1) with what was expected and what came:

  exposition  /readyz, /healthz; `promtool check metrics` on the classic
              text exposition (no Accept header); OpenMetrics when asked
              for; no series twice; one watch per resource at the API server
  parity      every workload `workload-lens get -A --all-types -o json`
              lists, and no other, through Prometheus' HTTP API: info
              (uid, version, definition, origin), statuses, pods desired /
              existing / ready, GPUs requested / placed / pending, reason,
              owner, resolve errors; pod_info agrees with the pod counts
  joins       GPUs requested by namespace of running workloads; the pods of
              JobSet llama's worker instance
  rules       deploy/prometheus/rules.yaml's outputs for fake_dcgm.GPUS,
              value for value; then a busy GPU turned idle is not idle yet
              (the idle rule's window)
  docs        every ```promql block of docs/metrics.md runs without error
              (skipped while the file does not exist)
  churn       1,000 Jobs (200 with a pod) created in lens-churn, reported,
              deleted: no series of them in a fresh scrape, nor in
              Prometheus (vanished series are marked stale), nor objects
              held by the exporter
  faults      no watch restarted while nothing failed; the API server
              stopped: /readyz 503, every watch down, then (--stale-after
              3) the workload series withheld; a workload deleted on the
              same state served on another port (the exporter must learn it
              from its new lists), the server started again on its state
              and port (testing/kube-apiserver/restart.sh) and another
              deleted at once: the exporter recovers, never serves the
              first again, the second's series go, and the rest is as `get`
              says again
"""
from __future__ import annotations

import argparse
import json
import re
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "testing" / "live"))
import fake_dcgm  # noqa: E402

T0 = time.monotonic()


def log(msg: str) -> None:
    print(f"   test_metrics [{time.monotonic() - T0:5.1f}s] {msg}", flush=True)


class Failure(Exception):
    pass


def check(cond: bool, msg: str) -> None:
    if not cond:
        raise Failure(msg)


def close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def wait_for(what: str, fn, timeout: float, interval: float = 0.2):
    """fn() until it returns something true (returned); Failure after
    timeout, with its last value."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = fn()
        if last:
            return last
        if time.monotonic() > deadline:
            raise Failure(f"{what}: not within {timeout:g} s (last: {str(last)[:2000]})")
        time.sleep(interval)


# --- HTTP ------------------------------------------------------------------


def http(url: str, headers: dict | None = None, data: bytes | None = None, timeout: float = 10,
         context: ssl.SSLContext | None = None) -> tuple[int, dict, str]:
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as r:
            return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read().decode()
    except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
        return 0, {}, str(e)


LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')


def parse_exposition(text: str) -> list[tuple[str, dict, float]]:
    """Samples of the text format (classic or OpenMetrics): (name, labels,
    value)."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            raise Failure(f"unparsable exposition line: {line!r}")
        labels = {}
        rest = m.group(2) or ""
        pos = 0
        while pos < len(rest):
            lm = LABEL.match(rest, pos)
            if not lm:
                raise Failure(f"unparsable labels in: {line!r}")
            labels[lm.group(1)] = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), lm.group(2))
            pos = lm.end()
        out.append((m.group(1), labels, float(m.group(3))))
    return out


class Prometheus:
    def __init__(self, url: str):
        self.url = url.rstrip("/")

    def query(self, q: str) -> list[dict]:
        """An instant query; its result (a vector's samples), or Failure
        with Prometheus' error."""
        status, _, body = http(f"{self.url}/api/v1/query", {"Content-Type": "application/x-www-form-urlencoded"},
                               urllib.parse.urlencode({"query": q}).encode())
        try:
            doc = json.loads(body)
        except ValueError:
            raise Failure(f"query {q!r}: HTTP {status}: {body[:500]}")
        if doc.get("status") != "success":
            raise Failure(f"query {q!r}: {doc.get('errorType')}: {doc.get('error')}")
        data = doc["data"]
        if data["resultType"] != "vector":
            return [{"metric": {}, "value": data["result"]}] if data["resultType"] == "scalar" else data["result"]
        return data["result"]

    def by(self, q: str, *keys: str) -> dict:
        """An instant query as {tuple of the keys' label values: value};
        Failure if two samples have the same keys."""
        out = {}
        for s in self.query(q):
            k = tuple(s["metric"].get(x, "") for x in keys)
            check(k not in out, f"query {q!r}: two samples for {k}")
            out[k] = float(s["value"][1])
        return out

    def last_scrape(self, job: str) -> float:
        _, _, body = http(f"{self.url}/api/v1/targets?state=active")
        for t in json.loads(body)["data"]["activeTargets"]:
            if t["labels"].get("job") == job:
                return rfc3339(t["lastScrape"])
        raise Failure(f"Prometheus has no target of job {job}")

    def wait_scrape_after(self, job: str, t: float) -> None:
        """Until a scrape of job that started after t has been stored (the
        one after it has started: Prometheus reports a scrape's start)."""
        first = wait_for(f"a scrape of {job} after {t:.3f}", lambda: (s := self.last_scrape(job)) > t and s, 10, 0.1)
        wait_for(f"the scrape of {job} after {first:.3f}", lambda: self.last_scrape(job) > first, 10, 0.1)


def rfc3339(s: str) -> float:
    # Prometheus writes nanoseconds; datetime takes microseconds.
    m = re.match(r"^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$", s)
    if not m:
        raise Failure(f"not an RFC 3339 time: {s!r}")
    frac = (m.group(2) or "0")[:6].ljust(6, "0")
    tz = "+00:00" if m.group(3) == "Z" else m.group(3)
    return datetime.fromisoformat(f"{m.group(1)}.{frac}{tz}").timestamp()


class Exporter:
    def __init__(self, url: str):
        self.url = url.rstrip("/")

    def scrape(self) -> tuple[dict, str]:
        status, headers, body = http(f"{self.url}/metrics")
        check(status == 200, f"GET /metrics: HTTP {status}: {body[:500]}")
        return headers, body

    def samples(self) -> list[tuple[str, dict, float]]:
        return parse_exposition(self.scrape()[1])

    def value(self, name: str, **labels: str) -> float | None:
        for n, ls, v in self.samples():
            if n == name and all(ls.get(k) == x for k, x in labels.items()):
                return v
        return None

    def readyz(self) -> tuple[int, str]:
        status, _, body = http(f"{self.url}/readyz")
        return status, body


# --- the API server ---------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kapi_get(kapi_dir: Path, path: str) -> str:
    ctx = ssl.create_default_context(cafile=str(kapi_dir / "ca.crt"))
    token = next(l.split(",")[0] for l in (kapi_dir / "tokens.csv").read_text().splitlines() if ",lens-admin," in l)
    server = (kapi_dir / "server").read_text().strip()
    status, _, body = http(server + path, {"Authorization": f"Bearer {token}"}, context=ctx)
    check(status == 200, f"GET {path} of the API server: HTTP {status}: {body[:300]}")
    return body


def open_watches(kapi_dir: Path) -> dict[str, float]:
    """The API server's open WATCH requests by resource (`plural.group`, or
    `plural` for the core group), from its own metrics."""
    out: dict[str, float] = {}
    for name, labels, v in parse_exposition(kapi_get(kapi_dir, "/metrics")):
        if name == "apiserver_longrunning_requests" and labels.get("verb") == "WATCH":
            r = labels["resource"] + (f".{labels['group']}" if labels.get("group") else "")
            out[r] = out.get(r, 0) + v
    return out


# --- the checks -------------------------------------------------------------

WORKLOAD = ("namespace", "group", "kind", "workload")


def key_of(item: dict) -> tuple[str, str, str, str]:
    group = item["apiVersion"].rpartition("/")[0]
    return (item.get("namespace", ""), group, item["kind"], item["name"])


def cli_get(args) -> list[dict]:
    out = subprocess.run([args.cli, "get", "-A", "--all-types", "-o", "json", "--kubeconfig", args.kubeconfig],
                         capture_output=True, text=True, timeout=120)
    check(out.returncode == 0, f"workload-lens get -A --all-types -o json: exit {out.returncode}: {out.stderr}")
    return json.loads(out.stdout)["items"]


def check_exposition(args, exporter: Exporter, prom: Prometheus) -> None:
    status, body = wait_for("the exporter's /readyz 200", lambda: (r := exporter.readyz())[0] == 200 and r, 60)
    check(body.strip() == "ready", f"/readyz body: {body!r}")
    status, _, body = http(f"{exporter.url}/healthz")
    check(status == 200, f"/healthz: HTTP {status}")

    headers, text = exporter.scrape()
    ctype = headers.get("content-type", "")
    check(ctype.startswith("text/plain; version=0.0.4"), f"/metrics without Accept: Content-Type {ctype!r}")
    lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    check(lint.returncode == 0, f"promtool check metrics: exit {lint.returncode}:\n{lint.stdout}{lint.stderr}")
    check("# EOF" not in text, "the classic text exposition ends with # EOF")
    samples = parse_exposition(text)
    seen = set()
    for name, labels, _ in samples:
        k = (name, tuple(sorted(labels.items())))
        check(k not in seen, f"series twice in the exposition: {name}{labels}")
        seen.add(k)

    status, headers, om = http(f"{exporter.url}/metrics", {"Accept": "application/openmetrics-text; version=1.0.0"})
    ctype = headers.get("content-type", "")
    check(status == 200 and ctype.startswith("application/openmetrics-text"), f"OpenMetrics: HTTP {status}, {ctype!r}")
    check(om.rstrip("\n").endswith("# EOF"), "the OpenMetrics exposition does not end with # EOF")
    check(len(parse_exposition(om)) == len(samples), "the two formats carry different numbers of samples")
    log(f"exposition: promtool check metrics clean, {len(samples)} samples; OpenMetrics when asked")

    # One watch per resource: the API server's open watches, less those it
    # had before the exporter started.
    if args.watch_baseline:
        before = json.loads(Path(args.watch_baseline).read_text())
        now = open_watches(Path(args.kapi_dir))
        watched = sorted(l["resource"] for n, l, _ in samples if n == "workload_lens_exporter_watch_up")
        check(watched, "no workload_lens_exporter_watch_up series")
        wrong = {r: now.get(r, 0) - before.get(r, 0) for r in watched if now.get(r, 0) - before.get(r, 0) != 1}
        check(not wrong, f"the exporter's watches at the API server, per resource, are not one each: {wrong}")
        log(f"exposition: one watch each at the API server for the {len(watched)} resources")

    # Prometheus scrapes both targets and has evaluated the rules.
    wait_for("Prometheus scraping both targets",
             lambda: prom.by("up", "job") == {("workload-lens",): 1.0, ("dcgm",): 1.0}, 30)
    wait_for("the recording rules evaluated", lambda: prom.query("workload_lens:gpu_utilization:avg_by_workload"), 30)


def check_parity(args, prom: Prometheus, items: list[dict] | None = None, note: str = "") -> None:
    items = items if items is not None else cli_get(args)
    want = {key_of(i): i for i in items}
    check(len(want) == len(items), "get lists a workload twice")

    info = {tuple(s["metric"].get(k, "") for k in WORKLOAD): s["metric"] for s in prom.query("workload_lens_workload_info")}
    missing = sorted(set(want) - set(info))
    extra = sorted(set(info) - set(want))
    check(not missing and not extra, f"workload_lens_workload_info vs get: missing {missing}, not listed by get {extra}")

    def series(name: str) -> dict:
        return prom.by(name, *WORKLOAD)

    desired, pods, ready = series("workload_lens_workload_pods_desired"), series("workload_lens_workload_pods"), \
        series("workload_lens_workload_pods_ready")
    running = series("workload_lens_workload_pods_running")
    gpus, placed, pending = series("workload_lens_workload_gpus_requested"), \
        series("workload_lens_workload_gpus_placed"), series("workload_lens_workload_gpus_pending")
    statuses: dict = {}
    for s in prom.query("workload_lens_workload_status"):
        k = tuple(s["metric"].get(x, "") for x in WORKLOAD)
        statuses.setdefault(k, set()).add(s["metric"]["status"])
    reasons = set(prom.by("workload_lens_workload_reason", *WORKLOAD, "reason"))
    errors = {tuple(s["metric"].get(x, "") for x in WORKLOAD): s["metric"]["code"]
              for s in prom.query("workload_lens_workload_resolve_error")}
    owners = {tuple(s["metric"].get(x, "") for x in WORKLOAD): (s["metric"]["state"], s["metric"]["owner_kind"], s["metric"]["owner"])
              for s in prom.query("workload_lens_workload_owner_missing")}
    pod_info_count = prom.by("count by (namespace, group, kind, workload) (workload_lens_pod_info)", *WORKLOAD)

    problems = []
    for k, item in sorted(want.items()):
        def same(what: str, got, expected) -> None:
            if got != expected:
                problems.append(f"{'/'.join(k)}: {what}: Prometheus {got!r}, get {expected!r}")

        m = info[k]
        same("uid", m.get("uid"), item.get("uid"))
        same("version", m.get("version"), item["apiVersion"].rpartition("/")[2])
        same("definition", m.get("definition", ""), item.get("definition", ""))
        same("origin", m.get("origin", ""), item.get("origin", ""))
        same("statuses", statuses.get(k, set()), set(item.get("statuses", [])))
        same("reason", {r[4] for r in reasons if r[:4] == k}, {item["reason"]} if item.get("reason") else set())
        err = item.get("error")
        same("resolve error", errors.get(k), err.get("code") if err else None)
        own = item.get("owner")
        same("owner missing", owners.get(k), (own["state"], own["kind"], own["name"]) if own else None)
        if err:
            for name, got in (("pods_desired", desired), ("gpus_requested", gpus), ("pods", pods)):
                same(f"{name} of a workload that did not resolve", got.get(k), None)
            continue
        live = item.get("live") or {}
        same("pods desired", desired.get(k), float(item["pods"]))
        same("GPUs requested", gpus.get(k), float(item["gpus"]))
        same("pods (existing)", pods.get(k), float(live.get("pods", 0)))
        same("pods ready", ready.get(k), float(live.get("ready", 0)))
        same("GPUs pending", pending.get(k), float(live.get("pendingGpus", 0)))
        same("GPUs placed", placed.get(k), float(live.get("gpus", 0) - live.get("pendingGpus", 0)))
        # Not in get's row: running pods are among the existing ones, and
        # each existing pod has its pod_info series.
        if running.get(k, 0) > pods.get(k, 0):
            problems.append(f"{'/'.join(k)}: {running.get(k)} running pods of {pods.get(k)}")
        same("pod_info series", pod_info_count.get(k, 0.0), float(live.get("pods", 0)))
    check(not problems, f"Prometheus and `get -A --all-types -o json` differ{note}:\n  " + "\n  ".join(problems))
    log(f"parity{note}: {len(want)} workloads, every figure as get -A --all-types -o json says")


def check_joins(args, prom: Prometheus, items: list[dict]) -> None:
    q = ('sum by (namespace) (workload_lens_workload_gpus_requested * on(namespace, group, kind, workload) '
         'group_left workload_lens_workload_status{status="Running"})')
    got = prom.by(q, "namespace")
    want: dict = {}
    for i in items:
        if "Running" in i.get("statuses", []) and not i.get("error"):
            want[(i["namespace"],)] = want.get((i["namespace"],), 0.0) + float(i["gpus"])
    check(got == want, f"GPUs of running workloads by namespace: Prometheus {got}, get {want}")
    log(f"joins: GPUs requested by namespace of running workloads {dict((k[0], v) for k, v in sorted(got.items()))}")

    # JobSet lens-train/llama's worker instance (testing/live/README.md):
    # the pods of worker Jobs 0 and 1 that have not finished (the failed
    # f5w7n has; the stray pod with the same labels is other-batch's).
    q = 'workload_lens_pod_info{namespace="lens-train", kind="JobSet", workload="llama", component_instance="worker"}'
    pods = sorted(s["metric"]["pod"] for s in prom.query(q))
    want_pods = ["llama-worker-0-0-b9d4q", "llama-worker-0-1-c2m8t", "llama-worker-1-0-m3zr8", "llama-worker-1-1-q8h3v"]
    check(pods == want_pods, f"{q}: {pods}, expected {want_pods}")
    inst = ('workload_lens_component_pods{namespace="lens-train", kind="JobSet", workload="llama", '
            'component_instance="worker"}')
    n = prom.by(inst)
    check(n == {(): 4.0}, f"{inst}: {n}, expected 4")
    ready = prom.by(inst.replace("component_pods", "component_pods_ready"))
    check(ready == {(): 3.0}, f"the worker instance's ready pods: {ready}, expected 3")
    running = prom.by('workload_lens_workload_pods_running{namespace="lens-train", workload="llama"}')
    check(running == {(): 4.0}, f"llama's running pods: {running}, expected 4 (testing/live/README.md)")
    log(f"joins: llama's worker instance has pods {', '.join(p.rsplit('-', 1)[1] for p in pods)} (3 ready)")


# The scenario's owner of each pod the fake DCGM endpoint reports a GPU of
# (testing/live/README.md; component names from the catalog's definitions
# and the cluster's Karta for RayCluster): (namespace, group, kind,
# workload, component, component_instance).
LLAMA = ("lens-train", "jobset.x-k8s.io", "JobSet", "llama", "replicatedjob")
BERT = ("lens-train", "kubeflow.org", "PyTorchJob", "bert")
RAY_A = ("lens-serve", "ray.io", "RayCluster", "ray-a", "ray-worker", "gpu-workers")
POD_OWNER = {
    "llama-leader-0-0-x7k2p": LLAMA + ("leader",),
    "llama-worker-0-0-b9d4q": LLAMA + ("worker",),
    "llama-worker-0-1-c2m8t": LLAMA + ("worker",),
    "llama-worker-1-0-m3zr8": LLAMA + ("worker",),
    "bert-master-0": BERT + ("master", ""),
    "bert-worker-1": BERT + ("worker", ""),
    "bert-worker-2": BERT + ("worker", ""),
    "ray-a-gpu-workers-worker-5tq9z": RAY_A,
    "ray-a-gpu-workers-worker-w2d7c": RAY_A,
}
COMPONENT = WORKLOAD + ("component", "component_instance")


def expected_rules(gpus: list[dict]) -> dict[str, dict]:
    """What each recording rule must give for these GPUs."""
    ours = [(POD_OWNER[g["pod"]], g) for g in gpus if g["pod"] in POD_OWNER]
    util_w: dict = {}
    util_c: dict = {}
    fb_w: dict = {}
    fb_c: dict = {}
    idle: dict = {}
    for owner, g in ours:
        w, c = owner[:4], owner
        util_w.setdefault(w, []).append(g["util"])
        util_c.setdefault(c, []).append(g["util"])
        fb_w[w] = fb_w.get(w, 0) + g["fb_used"] * 1048576
        fb_c[c] = fb_c.get(c, 0) + g["fb_used"] * 1048576
        ns = (owner[0],)
        idle[ns] = idle.get(ns, 0) + (1 if g["util"] == 0 else 0)
    return {
        "workload_lens:gpu_utilization:avg_by_workload": {k: sum(v) / len(v) for k, v in util_w.items()},
        "workload_lens:gpu_utilization:avg_by_component": {k: sum(v) / len(v) for k, v in util_c.items()},
        "workload_lens:gpu_framebuffer_used_bytes:sum_by_workload": fb_w,
        "workload_lens:gpu_framebuffer_used_bytes:sum_by_component": fb_c,
        "workload_lens:gpus_idle:sum_by_namespace": idle,
    }


RULE_KEYS = {
    "workload_lens:gpu_utilization:avg_by_workload": WORKLOAD,
    "workload_lens:gpu_utilization:avg_by_component": COMPONENT,
    "workload_lens:gpu_framebuffer_used_bytes:sum_by_workload": WORKLOAD,
    "workload_lens:gpu_framebuffer_used_bytes:sum_by_component": COMPONENT,
    "workload_lens:gpus_idle:sum_by_namespace": ("namespace",),
}


def rule_differences(prom: Prometheus, expected: dict[str, dict]) -> list[str]:
    out = []
    for rule, want in expected.items():
        got = prom.by(rule, *RULE_KEYS[rule])
        if set(got) != set(want) or any(not close(got[k], want[k]) for k in want):
            out.append(f"{rule}: Prometheus {dict(sorted(got.items()))}, expected {dict(sorted(want.items()))}")
    return out


def settle_rules(prom: Prometheus, expected: dict[str, dict], what: str, timeout: float = 15) -> None:
    """Until every rule gives what is expected (Failure after timeout,
    with the differences)."""
    deadline = time.monotonic() + timeout
    while (diff := rule_differences(prom, expected)) and time.monotonic() < deadline:
        time.sleep(0.5)
    check(not diff, f"{what}:\n  " + "\n  ".join(diff))


def check_rules(args, prom: Prometheus) -> None:
    # The join's right side first: the exporter attributes each pod as the
    # scenario says (else the rules' values below would differ for that
    # reason).
    info = {s["metric"]["pod"]: tuple(s["metric"].get(k, "") for k in COMPONENT)
            for s in prom.query('workload_lens_pod_info{namespace=~"lens-train|lens-serve"}')}
    wrong = {p: info.get(p) for p, o in POD_OWNER.items() if info.get(p) != o}
    check(not wrong, f"workload_lens_pod_info of the fake DCGM's pods: {wrong}, expected {({p: POD_OWNER[p] for p in wrong})}")
    check("notebook-0" not in info, "notebook-0 (in no workload, not in the cluster) has a pod_info series")

    gpus = [dict(g) for g in fake_dcgm.GPUS]
    expected = expected_rules(gpus)
    # Until the rules have been evaluated on a scrape of both targets.
    settle_rules(prom, expected, "recording rules")
    for rule, want in expected.items():
        log(f"rules: {rule}: {len(want)} series as expected")

    # Turn bert-worker-1's busy GPU idle: the utilisation averages follow
    # at once, but over the 30-minute window it worked, so it is not idle.
    g = next(g for g in gpus if g["pod"] == "bert-worker-1")
    status, _, body = http(f"{args.dcgm}/set?uuid={g['UUID']}&util=0", data=b"")
    check(status == 200, f"fake DCGM /set: HTTP {status}: {body}")
    g["util"] = 0
    after = expected_rules(gpus)
    after["workload_lens:gpus_idle:sum_by_namespace"] = expected["workload_lens:gpus_idle:sum_by_namespace"]
    settle_rules(prom, after, "after bert-worker-1's GPU went idle")
    # And still so two evaluations later (the rules above are read one by
    # one: the idle one may have been read from the evaluation before).
    time.sleep(2.5)
    diff = rule_differences(prom, after)
    check(not diff, "2.5 s after bert-worker-1's GPU went idle:\n  " + "\n  ".join(diff))
    bert = after["workload_lens:gpu_utilization:avg_by_workload"][BERT]
    log(f"rules: bert-worker-1's GPU at 0: bert's mean {bert:.3f}; lens-train's idle GPUs still "
        f"{after['workload_lens:gpus_idle:sum_by_namespace'][('lens-train',)]:g} (it worked within the window)")


def promql_blocks(text: str) -> list[tuple[int, str]]:
    """The ```promql fenced blocks of a Markdown text: (line, query)."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*promql\b", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, start = len(m.group(1)), m.group(2), i + 1
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        check(i < len(lines), f"line {start}: a ```promql block is not closed")
        out.append((start, "\n".join(body).strip()))
        i += 1
    return out


def check_docs(args, prom: Prometheus) -> None:
    docs = Path(args.docs)
    if not docs.is_file():
        log(f"docs: {docs} does not exist (yet): nothing to run")
        return
    blocks = promql_blocks(docs.read_text(encoding="utf-8"))
    errors = []
    for line, q in blocks:
        if not q:
            errors.append(f"{docs.name}:{line}: an empty ```promql block")
            continue
        try:
            prom.query(q)
        except Failure as e:
            errors.append(f"{docs.name}:{line}: {e}")
    check(not errors, f"```promql blocks of {docs} that Prometheus refuses:\n  " + "\n  ".join(errors))
    log(f"docs: the {len(blocks)} ```promql blocks of {docs} run")


CHURN_NS = "lens-churn"
CHURN_JOBS = 1000
CHURN_PODS_EVERY = 5  # one pod for every fifth Job: 200 pods


def churn_objects() -> tuple[list[dict], list[int]]:
    jobs = []
    for i in range(CHURN_JOBS):
        jobs.append({
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": f"churn-{i:04d}", "namespace": CHURN_NS},
            "spec": {"template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "main", "image": "busybox:1.36",
                                "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
            }}},
        })
    return jobs, [i for i in range(CHURN_JOBS) if i % CHURN_PODS_EVERY == 0]


def check_churn(args, exporter: Exporter, prom: Prometheus) -> None:
    from seed import Rest  # testing/live/seed.py: the kubernetes client's REST calls

    rest = Rest(args.kubeconfig, pool=16)
    base = exporter.value("workload_lens_exporter_workloads")
    base_objects = {l["role"]: v for n, l, v in exporter.samples() if n == "workload_lens_exporter_objects"}
    rest.call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CHURN_NS}})
    jobs, with_pod = churn_objects()
    t = time.monotonic()
    with ThreadPoolExecutor(16) as pool:
        created = list(pool.map(rest.create, jobs))

        def pod(i: int) -> dict:
            job = created[i]["metadata"]
            return rest.create({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"{job['name']}-x", "namespace": CHURN_NS,
                             "labels": {"batch.kubernetes.io/job-name": job["name"]},
                             "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job["name"],
                                                  "uid": job["uid"], "controller": True}]},
                "spec": {"restartPolicy": "Never",
                         "containers": [{"name": "main", "image": "busybox:1.36",
                                         "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            })

        list(pool.map(pod, with_pod))
    made = time.monotonic() - t
    log(f"churn: {CHURN_JOBS} Jobs and {len(with_pod)} pods created in {CHURN_NS} in {made:.1f} s")

    t = time.monotonic()

    def reported():
        s = exporter.samples()
        workloads = sum(1 for n, l, _ in s if n == "workload_lens_workload_info" and l["namespace"] == CHURN_NS)
        pods = sum(1 for n, l, _ in s if n == "workload_lens_pod_info" and l["namespace"] == CHURN_NS)
        return (workloads, pods) == (CHURN_JOBS, len(with_pod)) or (workloads, pods)

    wait_for(f"the exporter reporting {CHURN_JOBS} workloads and {len(with_pod)} pods in {CHURN_NS}",
                 lambda: reported() is True, 60, 0.25)
    seen = time.monotonic() - t
    check(exporter.value("workload_lens_exporter_workloads") == base + CHURN_JOBS,
          f"workload_lens_exporter_workloads: {exporter.value('workload_lens_exporter_workloads')}, "
          f"expected {base + CHURN_JOBS:g}")
    q = f'count(workload_lens_workload_info{{namespace="{CHURN_NS}"}})'
    qp = f'count(workload_lens_pod_info{{namespace="{CHURN_NS}"}})'
    wait_for(f"Prometheus: {q} = {CHURN_JOBS} and {qp} = {len(with_pod)}",
             lambda: prom.by(q) == {(): float(CHURN_JOBS)} and prom.by(qp) == {(): float(len(with_pod))}, 30, 0.25)
    log(f"churn: the exporter reported them all {seen:.1f} s after the last create; Prometheus has "
        f"{CHURN_JOBS} workloads and {len(with_pod)} pods there")

    t = time.monotonic()
    # Background: batch/v1 Jobs default to orphaning their pods, which
    # puts a finalizer on each Job that only a garbage collector (none
    # runs here) would take off.
    rest.call("DELETE", f"/apis/batch/v1/namespaces/{CHURN_NS}/jobs", query={"propagationPolicy": "Background"})
    rest.call("DELETE", f"/api/v1/namespaces/{CHURN_NS}/pods", query={"gracePeriodSeconds": "0"})
    wait_for(f"the exporter back to {base:g} workloads",
             lambda: exporter.value("workload_lens_exporter_workloads") == base, 60, 0.25)
    clean = time.time()
    gone = time.monotonic() - t
    samples = exporter.samples()
    left = [f"{n}{l}" for n, l, _ in samples if l.get("namespace") == CHURN_NS]
    check(not left, f"series of deleted workloads in a fresh scrape: {len(left)}, e.g. {left[:5]}")
    objects = {l["role"]: v for n, l, v in samples if n == "workload_lens_exporter_objects"}
    check(objects == base_objects, f"objects held after the churn: {objects}, before it: {base_objects}")
    prom.wait_scrape_after("workload-lens", clean)
    for q in (f'count(workload_lens_workload_info{{namespace="{CHURN_NS}"}})', f'{{namespace="{CHURN_NS}"}}'):
        r = prom.query(q)
        check(r == [], f"Prometheus after the deletion: {q} gives {r[:5]}")
    log(f"churn: all deleted; the exporter dropped them {gone:.1f} s after the delete calls; no series left "
        f"in /metrics nor in Prometheus; objects held as before ({objects})")


def workload_series(samples: list) -> list:
    return [(n, l) for n, l, _ in samples
            if n.startswith(("workload_lens_workload_", "workload_lens_component_", "workload_lens_pod_",
                             "workload_lens_gang_"))]


def check_faults(args, exporter: Exporter, prom: Prometheus) -> None:
    from seed import Rest

    kapi_dir = Path(args.kapi_dir)
    samples = exporter.samples()
    watches = [l["resource"] for n, l, _ in samples if n == "workload_lens_exporter_watch_up"]
    restarts_before = sum(v for n, _, v in samples if n == "workload_lens_exporter_watch_restarts_total")
    # Quiet watches are not restarted: each watch call ends before the
    # client's read timeout (30 s) could fail it, and the watcher goes on
    # from where it was. The exporter has been up longer than that here
    # (it started before this test; most types have not changed since).
    up_for = time.monotonic() - T0
    if up_for < 35:
        time.sleep(35 - up_for)
        samples = exporter.samples()
        restarts_before = sum(v for n, _, v in samples if n == "workload_lens_exporter_watch_restarts_total")
    check(restarts_before == 0, f"watches restarted before any fault: {restarts_before:g} "
          f"({[(l['resource'], v) for n, l, v in samples if n == 'workload_lens_exporter_watch_restarts_total' and v]})")
    log(f"faults: no watch restarted in the exporter's first {max(up_for, 35):.0f} s")

    # Stop the API server, watching the exporter meanwhile: the first
    # moment a watch is seen down, the series are still served.
    t = time.monotonic()
    stop = subprocess.Popen(["bash", str(ROOT / "testing/kube-apiserver/stop.sh"), str(kapi_dir)])

    def first_down():
        s = exporter.samples()
        up = [v for n, _, v in s if n == "workload_lens_exporter_watch_up"]
        return any(v == 0 for v in up) and (time.monotonic(), s)

    down_at, samples = wait_for("a watch down after the API server's stop", first_down, 30, 0.05)
    check(dict((n, v) for n, _, v in samples if n == "workload_lens_exporter_stale").get(
        "workload_lens_exporter_stale") == 0, "workload_lens_exporter_stale 1 as soon as a watch is down")
    check(workload_series(samples), "workload series withheld as soon as a watch is down")
    check(stop.wait(60) == 0, f"testing/kube-apiserver/stop.sh failed (exit {stop.returncode})")
    stopped = time.monotonic()
    log(f"faults: the API server stopped (stop.sh: {stopped - t:.1f} s); the first watch down "
        f"{down_at - t:.1f} s after stop.sh began, series still served then")
    status, body = wait_for("/readyz 503 with the API server down",
                            lambda: (r := exporter.readyz())[0] == 503 and r, 10, 0.1)
    check("watches not in sync" in body, f"/readyz body while down: {body!r}")

    def all_down():
        up = {l["resource"]: v for n, l, v in exporter.samples() if n == "workload_lens_exporter_watch_up"}
        return set(up) == set(watches) and all(v == 0 for v in up.values()) and up

    wait_for("workload_lens_exporter_watch_up 0 for every watch", all_down, 10, 0.1)
    log(f"faults: /readyz 503 and all {len(watches)} watches down {time.monotonic() - down_at:.1f} s after the first")

    wait_for("workload_lens_exporter_stale 1 (--stale-after 3)",
             lambda: exporter.value("workload_lens_exporter_stale") == 1, 15, 0.1)
    stale_at = time.monotonic() - down_at
    # The first watch went down at most a poll (and a scrape) before it was
    # seen: 3 s after it, less that.
    check(stale_at >= 2.5, f"stale {stale_at:.1f} s after the first watch was seen down: before --stale-after 3")
    samples = exporter.samples()
    left = workload_series(samples)
    check(not left, f"workload series served while stale: {left[:5]}")
    check(any(n == "workload_lens_exporter_build_info" for n, _, _ in samples), "exporter series gone while stale")
    prom.wait_scrape_after("workload-lens", time.time())
    r = prom.query("count(workload_lens_workload_info)")
    check(r == [], f"Prometheus while stale: count(workload_lens_workload_info) gives {r}")
    log(f"faults: stale {stale_at:.1f} s after the first watch went down: workload series withheld, "
        "in Prometheus too")

    # Behind the exporter's back: the same state served on another port
    # (kapi -keep -port), which the exporter does not reach. JobSet
    # lens-train/llama deleted there is a change the exporter can learn
    # only from its lists once the server is back (its watches cannot go on
    # from where they were). Its Jobs stay (nothing collects garbage here):
    # they become workloads of their own, orphaned, and its pods theirs.
    kapi = ["bash", str(ROOT / "testing/kube-apiserver/start.sh"), "--keep", str(kapi_dir), "--"]
    other = free_port()
    t = time.monotonic()
    subprocess.run(kapi + ["-port", str(other)], check=True, timeout=180, stdout=subprocess.DEVNULL)
    # The admin kubeconfig, but for that port.
    server = (kapi_dir / "server").read_text().strip()
    text = Path(args.kubeconfig).read_text()
    check(f"server: {server}" in text, f"the kubeconfig does not name {server}")
    elsewhere = kapi_dir.parent / "kubeconfig-other-port"
    elsewhere.write_text(text.replace(f"server: {server}", f"server: https://127.0.0.1:{other}"))
    rest = Rest(str(elsewhere))
    llama = "/apis/jobset.x-k8s.io/v1alpha2/namespaces/lens-train/jobsets/llama"
    rest.call("DELETE", llama, query={"propagationPolicy": "Background"})
    check(exporter.readyz()[0] == 503, "/readyz not 503 while the exporter's server is down")
    subprocess.run(["bash", str(ROOT / "testing/kube-apiserver/stop.sh"), str(kapi_dir)], check=True, timeout=60)
    log(f"faults: JobSet lens-train/llama deleted on the same state served on port {other} "
        f"(start, delete, stop: {time.monotonic() - t:.1f} s); the exporter still stale")

    t = time.monotonic()
    subprocess.run(["bash", str(ROOT / "testing/kube-apiserver/restart.sh"), str(kapi_dir)], check=True,
                   timeout=180, stdout=subprocess.DEVNULL)
    back = time.monotonic()
    # And one right after the server is back (the exporter learns it from
    # its lists or from their watches, whichever comes first).
    rest = Rest(args.kubeconfig)
    rest.call("DELETE", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/lens-paging/jobsets/page-07",
              query={"propagationPolicy": "Background"})
    log(f"faults: the API server started again on its state and port (restart.sh: {back - t:.1f} s); "
        "JobSet lens-paging/page-07 deleted at once")

    # Every scrape from now on: no series of llama (the exporter withholds
    # the workload series until it has listed again and refreshed), and
    # /readyz 200 only once the state is refreshed.
    def llama_series(samples: list) -> list:
        return [f"{n}{l}" for n, l in workload_series(samples)
                if (l.get("namespace"), l.get("kind"), l.get("workload")) == ("lens-train", "JobSet", "llama")]

    def recovered_now():
        ready = exporter.readyz()[0] == 200
        s = exporter.samples()
        left = llama_series(s)
        check(not left, f"JobSet llama, deleted while the exporter could not see it, served during the recovery "
              f"({'ready' if ready else 'not ready'}): {left[:3]}")
        return ready and s

    samples = wait_for("/readyz 200 after the restart", recovered_now, 60, 0.05)
    recovered = time.monotonic() - t
    check(exporter.value("workload_lens_exporter_stale") == 0, "workload_lens_exporter_stale 1 while /readyz is 200")
    up = {l["resource"]: v for n, l, v in samples if n == "workload_lens_exporter_watch_up"}
    check(all(v == 1 for v in up.values()) and set(up) >= set(watches), f"watches after recovery: {up}")
    restarts = sum(v for n, _, v in samples if n == "workload_lens_exporter_watch_restarts_total")
    check(restarts > restarts_before, f"workload_lens_exporter_watch_restarts_total: {restarts}, before {restarts_before}")
    check(workload_series(samples), "no workload series after the recovery")
    orphans = sorted(l["workload"] for n, l, _ in samples if n == "workload_lens_workload_owner_missing"
                     and l.get("owner") == "llama")
    check(orphans == ["llama-leader-0", "llama-worker-0", "llama-worker-1"],
          f"llama's Jobs as orphaned workloads: {orphans}")
    log(f"faults: recovered (/readyz 200) {recovered:.1f} s after restart.sh began (watch restarts {restarts:g}); "
        f"no series of llama in any scrape since; its Jobs orphaned workloads: {', '.join(orphans)}")

    # page-07, deleted after the restart: gone soon after (from the lists
    # or from their watches).
    def page07_gone():
        s = exporter.samples()
        return not [1 for n, l in workload_series(s)
                    if (l.get("namespace"), l.get("workload")) == ("lens-paging", "page-07")] and s

    wait_for("no series of page-07", page07_gone, 10, 0.1)
    items = cli_get(args)
    check(not [i for i in items if i["name"] in ("llama", "page-07") and i["kind"] == "JobSet"],
          "get still lists the deleted JobSets")
    prom.wait_scrape_after("workload-lens", time.time())
    check_parity(args, prom, items, " after the restart")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--save-watch-baseline", metavar="KAPI_DIR")
    ap.add_argument("--cli")
    ap.add_argument("--kubeconfig")
    ap.add_argument("--kapi-dir")
    ap.add_argument("--exporter")
    ap.add_argument("--dcgm")
    ap.add_argument("--prometheus")
    ap.add_argument("--docs", default=str(ROOT / "docs" / "metrics.md"))
    ap.add_argument("--watch-baseline", metavar="FILE")
    ap.add_argument("--only", help="comma-separated checks to run (default: all, in order)")
    args = ap.parse_args()
    if args.save_watch_baseline:
        print(json.dumps(open_watches(Path(args.save_watch_baseline)), sort_keys=True))
        return 0
    for a in ("cli", "kubeconfig", "kapi_dir", "exporter", "dcgm", "prometheus"):
        if not getattr(args, a):
            ap.error(f"--{a.replace('_', '-')} is needed")
    exporter, prom = Exporter(args.exporter), Prometheus(args.prometheus)
    checks = [
        ("exposition", lambda: check_exposition(args, exporter, prom)),
        ("parity", lambda: check_parity(args, prom)),
        ("joins", lambda: check_joins(args, prom, cli_get(args))),
        ("rules", lambda: check_rules(args, prom)),
        ("docs", lambda: check_docs(args, prom)),
        ("churn", lambda: check_churn(args, exporter, prom)),
        ("faults", lambda: check_faults(args, exporter, prom)),
    ]
    only = set(args.only.split(",")) if args.only else None
    for name, run in checks:
        if only and name not in only:
            continue
        t = time.monotonic()
        try:
            run()
        except Failure as e:
            print(f"   test_metrics: FAILED: {name}: {e}", file=sys.stderr, flush=True)
            return 1
        log(f"{name}: passed in {time.monotonic() - t:.1f} s")
    log("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
