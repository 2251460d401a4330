#!/usr/bin/env python3
"""The exporter at scale: `workload-lens serve` against a large cluster.

    python3 bench/serve/serve_bench.py KAPI_DIR [--binary target/release/workload-lens]
        [--workloads 5000] [--pods-per-workload 10] [--changes 20] [--burst 500]
        [--debounce 250,0] [--threads 24] [--json FILE]

KAPI_DIR is a fresh test API server's directory (testing/kube-apiserver/
start.sh: DIR/server, DIR/ca.crt, DIR/tokens.csv). bench/serve/run.sh starts
one, runs this and stops it; see docs/performance.md, "The exporter at
scale".

1. Creates the cluster with raw HTTP (the admin token, one keep-alive
   connection per thread, the workloads in parallel): half the workloads
   Deployments (-> ReplicaSet -> pods), half JobSets (-> Job -> pods), each
   with --pods-per-workload pods on nodes, Running and ready (status written
   through the status subresources), each pod requesting one nvidia.com/gpu,
   every owner reference a controller reference with the owner's real uid.
   Prints the creation time.
2. For each --debounce setting, starts the exporter, and measures: the time
   to /readyz 200 and to complete metrics, the first refresh's duration,
   RSS (VmRSS, VmHWM), the size and time of a /metrics scrape; then the time
   from a change to the metric (a pod's readiness flipped through its status;
   a Deployment scaled; a pod created, then deleted), polling /metrics, with
   the workloads re-resolved per change; then a burst of --burst pod
   readiness changes sent at once.
3. Prints the machine, the versions and a table (and --json FILE writes the
   figures).

Only the standard library and PyYAML (for the JobSet CRD) are needed.
"""
from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import platform
import re
import socket
import ssl
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CRD = os.path.join(ROOT, "testing", "live", "crds", "jobsets.jobset.x-k8s.io.yaml")
IMAGE = "ghcr.io/example/trainer:1.0"
NAMESPACES = 10
STARTED = "2026-01-01T00:00:00Z"


# --- the API server -------------------------------------------------------


class ApiError(Exception):
    def __init__(self, method: str, path: str, status: int, body: bytes):
        super().__init__(f"{method} {path}: HTTP {status}: {body[:300]!r}")
        self.status = status


class Kapi:
    """Raw HTTPS to the test API server with the admin token; one keep-alive
    connection per thread."""

    def __init__(self, kapi_dir: str):
        with open(os.path.join(kapi_dir, "server")) as f:
            url = f.read().strip()
        m = re.fullmatch(r"https://([^:/]+):(\d+)/?", url)
        if not m:
            raise SystemExit(f"serve-bench: cannot read the server URL {url!r}")
        self.host, self.port = m.group(1), int(m.group(2))
        with open(os.path.join(kapi_dir, "tokens.csv")) as f:
            tokens = [line.split(",") for line in f if line.strip()]
        self.token = next(t[0] for t in tokens if t[1] == "lens-admin")
        self.ctx = ssl.create_default_context(cafile=os.path.join(kapi_dir, "ca.crt"))
        self.local = threading.local()
        self.requests = 0
        self.lock = threading.Lock()

    def _conn(self) -> http.client.HTTPSConnection:
        c = getattr(self.local, "conn", None)
        if c is None:
            c = http.client.HTTPSConnection(self.host, self.port, context=self.ctx, timeout=120)
            self.local.conn = c
        return c

    def call(self, method: str, path: str, body=None, content_type: str = "application/json"):
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = content_type
        for attempt in range(6):
            c = self._conn()
            try:
                c.request(method, path, body=data, headers=headers)
                r = c.getresponse()
                payload = r.read()
            except (http.client.HTTPException, OSError):
                c.close()
                self.local.conn = None
                # A POST that may have been applied answers 409 when repeated.
                if attempt == 5:
                    raise
                time.sleep(0.2 * (attempt + 1))
                continue
            with self.lock:
                self.requests += 1
            if r.status in (429, 500, 503, 504) and attempt < 5:
                time.sleep(0.2 * (attempt + 1))
                continue
            if not 200 <= r.status <= 299:
                raise ApiError(method, path, r.status, payload)
            return json.loads(payload) if payload else None
        raise AssertionError("unreachable")

    def create(self, path: str, obj: dict) -> dict:
        try:
            return self.call("POST", path, obj)
        except ApiError as e:
            if e.status != 409:
                raise
            # Created by an attempt whose answer was lost.
            return self.call("GET", f"{path}/{obj['metadata']['name']}")

    def patch_status(self, path: str, status: dict) -> dict:
        return self.call("PATCH", path + "/status", {"status": status}, "application/merge-patch+json")

    def patch(self, path: str, body: dict) -> dict:
        return self.call("PATCH", path, body, "application/merge-patch+json")


def owner(obj: dict) -> list[dict]:
    return [{
        "apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
        "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True,
    }]


def container() -> dict:
    return {"name": "trainer", "image": IMAGE,
            "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}


def pod_status(ready: bool) -> dict:
    r = "True" if ready else "False"
    return {
        "phase": "Running",
        "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Initialized", "status": "True"},
                       {"type": "ContainersReady", "status": r}, {"type": "Ready", "status": r}],
        "containerStatuses": [{"name": "trainer", "image": IMAGE, "imageID": "", "ready": ready, "started": True,
                               "restartCount": 0, "state": {"running": {"startedAt": STARTED}}}],
    }


class Workload:
    """One workload of the bench cluster and what its pods' paths are."""

    def __init__(self, i: int):
        self.i = i
        self.namespace = f"bench-{i % NAMESPACES:02d}"
        self.deployment = i % 2 == 0
        self.name = f"dep-{i:05d}" if self.deployment else f"js-{i:05d}"
        self.kind = "Deployment" if self.deployment else "JobSet"
        self.group = "apps" if self.deployment else "jobset.x-k8s.io"
        self.replicas = 0
        self.rs_name = f"{self.name}-{i:010x}" if self.deployment else ""
        self.ready: list[bool] = []
        self.pod_names: list[str] = []

    @property
    def path(self) -> str:
        if self.deployment:
            return f"/apis/apps/v1/namespaces/{self.namespace}/deployments/{self.name}"
        return f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{self.namespace}/jobsets/{self.name}"

    def pod_path(self, p: int) -> str:
        return f"/api/v1/namespaces/{self.namespace}/pods/{self.pod_names[p]}"

    def series(self, family: str) -> str:
        """The start of this workload's line of a workload family."""
        return (f'\n{family}{{namespace="{self.namespace}",group="{self.group}",'
                f'kind="{self.kind}",workload="{self.name}"}} ')


def make_workload(k: Kapi, w: Workload, pods: int) -> None:
    """Creates the workload, its ReplicaSet or Job, and its pods, with status."""
    ns = w.namespace
    pod_spec = {"containers": [container()]}
    if w.deployment:
        labels = {"app": w.name}
        dep = k.create(f"/apis/apps/v1/namespaces/{ns}/deployments", {
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": w.name, "namespace": ns, "labels": {"lens-bench": "serve"}},
            "spec": {"replicas": pods, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": pod_spec}},
        })
        rs_labels = dict(labels, **{"pod-template-hash": f"{w.i:010x}"})
        rs_name = w.rs_name
        rs = k.create(f"/apis/apps/v1/namespaces/{ns}/replicasets", {
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": rs_name, "namespace": ns, "labels": rs_labels, "ownerReferences": owner(dep)},
            "spec": {"replicas": pods, "selector": {"matchLabels": rs_labels},
                     "template": {"metadata": {"labels": rs_labels}, "spec": pod_spec}},
        })
        parent, pod_labels = rs, lambda p: rs_labels
        pod_name = lambda p: f"{rs_name}-{p:05d}"  # noqa: E731
    else:
        labels = {"jobset.sigs.k8s.io/jobset-name": w.name, "jobset.sigs.k8s.io/replicatedjob-name": "workers",
                  "jobset.sigs.k8s.io/job-index": "0"}
        job_spec = {"parallelism": pods, "completions": pods, "completionMode": "Indexed",
                    "template": {"spec": dict(pod_spec, restartPolicy="Never")}}
        js = k.create(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets", {
            "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": w.name, "namespace": ns, "labels": {"lens-bench": "serve"}},
            "spec": {"replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": job_spec}}]},
        })
        job_name = f"{w.name}-workers-0"
        job = k.create(f"/apis/batch/v1/namespaces/{ns}/jobs", {
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": job_name, "namespace": ns, "labels": labels, "ownerReferences": owner(js)},
            "spec": dict(job_spec, template={"metadata": {"labels": labels},
                                             "spec": dict(pod_spec, restartPolicy="Never")}),
        })
        parent = job
        pod_labels = lambda p: dict(labels, **{"batch.kubernetes.io/job-name": job_name,  # noqa: E731
                                               "batch.kubernetes.io/job-completion-index": str(p)})
        pod_name = lambda p: f"{job_name}-{p}"  # noqa: E731
    for p in range(pods):
        name = pod_name(p)
        spec = dict(pod_spec, nodeName=f"node-{(w.i * pods + p) % 500:03d}")
        if not w.deployment:
            spec["restartPolicy"] = "Never"
        k.create(f"/api/v1/namespaces/{ns}/pods", {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": pod_labels(p), "ownerReferences": owner(parent)},
            "spec": spec,
        })
        k.patch_status(f"/api/v1/namespaces/{ns}/pods/{name}", pod_status(True))
        w.pod_names.append(name)
    w.ready = [True] * pods
    w.replicas = pods
    if w.deployment:
        k.patch_status(f"/apis/apps/v1/namespaces/{ns}/replicasets/{parent['metadata']['name']}", {
            "replicas": pods, "fullyLabeledReplicas": pods, "readyReplicas": pods, "availableReplicas": pods,
            "observedGeneration": 1})
        k.patch_status(w.path, {
            "observedGeneration": 1, "replicas": pods, "updatedReplicas": pods, "readyReplicas": pods,
            "availableReplicas": pods,
            "conditions": [
                {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                 "lastTransitionTime": STARTED, "lastUpdateTime": STARTED},
                {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable",
                 "lastTransitionTime": STARTED, "lastUpdateTime": STARTED}]})
    else:
        k.patch_status(f"/apis/batch/v1/namespaces/{ns}/jobs/{parent['metadata']['name']}", {
            "startTime": STARTED, "active": pods, "ready": pods, "succeeded": 0, "failed": 0})
        k.patch_status(w.path, {"replicatedJobsStatus": [
            {"name": "workers", "ready": 1, "active": 1, "succeeded": 0, "failed": 0, "suspended": 0}]})


def adopt(k: Kapi, workloads: list[Workload], pods: int) -> None:
    """--reuse: the workloads of an earlier run's cluster, their pods' names
    and readiness and the Deployments' replicas read back from the server."""
    by_name = {(w.namespace, w.name): w for w in workloads}
    for w in workloads:
        w.ready, w.pod_names, w.replicas = [True] * pods, [""] * pods, pods
    cont = ""
    while True:
        page = k.call("GET", f"/api/v1/pods?limit=5000{'&continue=' + cont if cont else ''}")
        for pod in page["items"]:
            meta = pod["metadata"]
            name = meta["name"]
            m = re.fullmatch(r"(dep-\d{5})-[0-9a-f]{10}-(\d{5})|(js-\d{5})-workers-0-(\d+)", name)
            if not m:
                continue
            w = by_name.get((meta["namespace"], m.group(1) or m.group(3)))
            p = int(m.group(2) or m.group(4))
            if w is None or p >= pods:
                continue
            w.pod_names[p] = name
            w.ready[p] = any(c["type"] == "Ready" and c["status"] == "True"
                             for c in pod.get("status", {}).get("conditions", []))
        cont = page["metadata"].get("continue")
        if not cont:
            break
    for d in k.call("GET", "/apis/apps/v1/deployments")["items"]:
        w = by_name.get((d["metadata"]["namespace"], d["metadata"]["name"]))
        if w is not None:
            w.replicas = d["spec"]["replicas"]
    for w in workloads:
        if "" in w.pod_names:
            raise SystemExit(f"serve-bench: --reuse: {w.namespace}/{w.name} lacks pods")


def seed(k: Kapi, workloads: list[Workload], pods: int, threads: int) -> dict:
    import yaml  # only here: the CRD is YAML

    with open(CRD) as f:
        crd = yaml.safe_load(f)
    k.create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
    deadline = time.monotonic() + 60
    while True:  # served once Established
        try:
            k.call("GET", "/apis/jobset.x-k8s.io/v1alpha2/jobsets?limit=1")
            break
        except ApiError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    for n in range(NAMESPACES):
        k.create("/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace",
                                        "metadata": {"name": f"bench-{n:02d}"}})
    n = len(workloads)
    print(f"creating {n} workloads ({(n + 1) // 2} Deployments -> ReplicaSets, {n // 2} JobSets -> Jobs) "
          f"and {n * pods} pods with {threads} threads", flush=True)
    start_requests = k.requests
    t0 = time.monotonic()
    done = 0
    step = max(1, n // 10)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        futures = [pool.submit(make_workload, k, w, pods) for w in workloads]
        for f in futures:
            f.result()
            done += 1
            if done % step == 0 or done == n:
                el = time.monotonic() - t0
                print(f"  {done}/{n} workloads, {k.requests - start_requests} requests, {el:.0f} s", flush=True)
    el = time.monotonic() - t0
    req = k.requests - start_requests
    print(f"created in {el:.1f} s ({req} requests, {req / el:.0f} requests/s)", flush=True)
    return {"seconds": round(el, 1), "requests": req, "requests_per_second": round(req / el)}


# --- the exporter ---------------------------------------------------------


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Exporter:
    def __init__(self, binary: str, kubeconfig: str, debounce: int | None, log: str):
        self.port = free_port()
        args = [binary, "serve", "--kubeconfig", kubeconfig, "--listen", f"127.0.0.1:{self.port}"]
        if debounce is not None:
            args += ["--debounce-ms", str(debounce)]
        self.log = open(log, "w")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT)
        self.conn: http.client.HTTPConnection | None = None

    def get(self, path: str) -> tuple[int, bytes]:
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self.conn.request("GET", path)
                r = self.conn.getresponse()
                return r.status, r.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 1:
                    raise
        raise AssertionError("unreachable")

    def metrics(self) -> str:
        status, body = self.get("/metrics")
        if status != 200:
            raise SystemExit(f"serve-bench: /metrics answered {status}")
        return "\n" + body.decode()

    def proc_status(self) -> dict:
        out = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0]) // 1024  # MiB
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        out["cpu_seconds"] = round((int(fields[11]) + int(fields[12])) / tick, 1)
        return out

    def stop(self) -> None:
        if self.conn:
            self.conn.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def value(text: str, series: str) -> float | None:
    """The value of the line starting with `series` (which ends with a space)."""
    i = text.find(series)
    if i < 0:
        return None
    j = text.find("\n", i + len(series))
    return float(text[i + len(series):j if j >= 0 else None])


def scalar(text: str, name: str) -> float:
    v = value(text, f"\n{name} ")
    if v is None:
        raise SystemExit(f"serve-bench: no series {name}")
    return v


def family_sum(text: str, family: str) -> float:
    return sum(float(m) for m in re.findall(rf"\n{family}{{[^}}]*}} (\S+)", text))


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[max(0, math.ceil(p * len(s)) - 1)]


def wait_for(exp: Exporter, check, timeout: float, interval: float = 0.01) -> tuple[float, float, str]:
    """Polls /metrics (a scrape every `interval`, or back to back when a
    scrape takes longer) until check(text) holds. Returns the monotonic times
    the reflecting scrape was sent and received, and its text."""
    deadline = time.monotonic() + timeout
    while True:
        sent = time.monotonic()
        text = exp.metrics()
        got = time.monotonic()
        if check(text):
            return sent, got, text
        if got > deadline:
            raise SystemExit("serve-bench: the change did not reach /metrics in time")
        time.sleep(max(0.0, interval - (got - sent)))


def start_and_measure(binary: str, kubeconfig: str, debounce: int | None, workloads: list[Workload],
                      pods: int, log: str) -> tuple[Exporter, dict]:
    exp = Exporter(binary, kubeconfig, debounce, log)
    r: dict = {}
    ready_pods = sum(sum(w.ready) for w in workloads)
    deadline = exp.started + 600
    while True:
        if exp.proc.poll() is not None:
            raise SystemExit(f"serve-bench: the exporter exited ({exp.proc.returncode}); see {log}")
        try:
            status, _ = exp.get("/readyz")
        except OSError:
            status = 0
        if status == 200:
            break
        if time.monotonic() > deadline:
            raise SystemExit(f"serve-bench: not ready after 600 s; see {log}")
        time.sleep(0.02)
    r["ready_s"] = round(time.monotonic() - exp.started, 2)
    text = exp.metrics()
    # Complete: every workload with all its pods attributed and ready.
    while not (scalar(text, "workload_lens_exporter_workloads") >= len(workloads)
               and family_sum(text, "workload_lens_workload_pods_ready") >= ready_pods):
        if time.monotonic() > deadline:
            raise SystemExit("serve-bench: the metrics never counted every workload and pod")
        time.sleep(0.1)
        text = exp.metrics()
    r["complete_s"] = round(time.monotonic() - exp.started, 2)
    r["refreshes_at_ready"] = int(scalar(text, "workload_lens_exporter_refreshes_total"))
    r["first_refresh_s"] = round(scalar(text, "workload_lens_exporter_last_refresh_duration_seconds"), 3)
    r["resolves_at_ready"] = int(scalar(text, "workload_lens_exporter_resolves_total"))
    r["workloads_reported"] = int(scalar(text, "workload_lens_exporter_workloads"))
    r["objects"] = {role: int(value(text, f'\nworkload_lens_exporter_objects{{role="{role}"}} ') or 0)
                    for role in ("covered", "owner", "pod")}
    r["cpu_to_ready_s"] = exp.proc_status()["cpu_seconds"]
    time.sleep(2)
    st = exp.proc_status()
    r["rss_mib"], r["hwm_mib"] = st["VmRSS"], st["VmHWM"]
    # Scrapes.
    times, size, series = [], 0, 0
    for _ in range(7):
        t = time.monotonic()
        body = exp.metrics()
        times.append(time.monotonic() - t)
        size = len(body.encode()) - 1
        series = sum(1 for line in body.split("\n") if line and not line.startswith("#"))
    r["scrape_bytes"], r["scrape_series"] = size, series
    r["scrape_ms_median"] = round(statistics.median(times) * 1000, 1)
    st = exp.proc_status()
    r["rss_after_scrapes_mib"], r["hwm_after_scrapes_mib"] = st["VmRSS"], st["VmHWM"]
    return exp, r


class Picker:
    """Hands out workloads round robin, so consecutive changes touch different ones."""

    def __init__(self, workloads: list[Workload], start: int = 0):
        self.workloads, self.next = workloads, start

    def take(self, deployments_only: bool = False) -> Workload:
        while True:
            w = self.workloads[self.next % len(self.workloads)]
            self.next += 1
            if w.deployment or not deployments_only:
                return w


def changes(k: Kapi, exp: Exporter, picker: Picker, n: int, kind: str, debounce_s: float) -> dict:
    """n changes one after another, each waited for on /metrics."""
    visible, seen, resolves, refreshes, refresh_s, arrived = [], [], [], [], [], []
    created: Workload | None = None
    text = exp.metrics()
    for _ in range(n):
        before_resolves = scalar(text, "workload_lens_exporter_resolves_total")
        before_refreshes = scalar(text, "workload_lens_exporter_refreshes_total")
        if kind == "pod":
            w = picker.take()
            w.ready[0] = not w.ready[0]
            expect, series = sum(w.ready), w.series("workload_lens_workload_pods_ready")
            t0, wall, watch = time.monotonic(), time.time(), "pods"
            k.patch_status(w.pod_path(0), pod_status(w.ready[0]))
        elif kind == "create":
            # A pod created in a Deployment's ReplicaSet, then deleted by the
            # next change: the objects' structure changes.
            if created is None:
                w = picker.take(deployments_only=True)
                rs_path = f"/apis/apps/v1/namespaces/{w.namespace}/replicasets/{w.rs_name}"
                rs = k.call("GET", rs_path)
                body = {"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": f"{w.rs_name}-extra", "namespace": w.namespace,
                                     "labels": rs["spec"]["selector"]["matchLabels"], "ownerReferences": owner(rs)},
                        "spec": {"nodeName": "node-000", "containers": [container()]}}
                expect, series = len(w.ready) + 1, w.series("workload_lens_workload_pods")
                t0, wall, watch = time.monotonic(), time.time(), "pods"
                k.create(f"/api/v1/namespaces/{w.namespace}/pods", body)
                created = w
            else:
                w, created = created, None
                expect, series = len(w.ready), w.series("workload_lens_workload_pods")
                t0, wall, watch = time.monotonic(), time.time(), "pods"
                k.call("DELETE", f"/api/v1/namespaces/{w.namespace}/pods/{w.rs_name}-extra?gracePeriodSeconds=0")
        else:
            w = picker.take(deployments_only=True)
            w.replicas = w.replicas + 1 if w.replicas == len(w.ready) else w.replicas - 1
            expect, series = w.replicas, w.series("workload_lens_workload_pods_desired")
            t0, wall, watch = time.monotonic(), time.time(), "deployments.apps"
            k.patch(w.path, {"spec": {"replicas": w.replicas}})
        sent, got, text = wait_for(exp, lambda t: value(t, series) == expect, 60)
        visible.append(sent - t0)
        seen.append(got - t0)
        # When the exporter read the event: its watch's last event time
        # (nothing else changes meanwhile).
        synced = value(text, f'\nworkload_lens_exporter_last_sync_timestamp_seconds{{resource="{watch}"}} ')
        if synced is not None:
            arrived.append(synced - wall)
        # Let the refresh settle before counting (a later event would add to it).
        time.sleep(debounce_s + 0.3)
        text = exp.metrics()
        resolves.append(scalar(text, "workload_lens_exporter_resolves_total") - before_resolves)
        refreshes.append(scalar(text, "workload_lens_exporter_refreshes_total") - before_refreshes)
        refresh_s.append(scalar(text, "workload_lens_exporter_last_refresh_duration_seconds"))
    if created is not None:  # an odd count: the last pod created goes again, unmeasured
        w = created
        k.call("DELETE", f"/api/v1/namespaces/{w.namespace}/pods/{w.rs_name}-extra?gracePeriodSeconds=0")
        series = w.series("workload_lens_workload_pods")
        wait_for(exp, lambda t: value(t, series) == len(w.ready), 60)
    ms = lambda v: round(v * 1000)  # noqa: E731
    return {
        "n": n,
        "visible_ms_median": ms(statistics.median(visible)), "visible_ms_p90": ms(pct(visible, 0.9)),
        "seen_ms_median": ms(statistics.median(seen)), "seen_ms_p90": ms(pct(seen, 0.9)),
        "resolves_per_change": sorted(set(int(x) for x in resolves)),
        "refreshes_per_change": sorted(set(int(x) for x in refreshes)),
        "refresh_ms_median": round(statistics.median(refresh_s) * 1000, 1),
        "event_ms_median": ms(statistics.median(arrived)) if arrived else None,
        "event_ms_p90": ms(pct(arrived, 0.9)) if arrived else None,
    }


def burst(k: Kapi, exp: Exporter, picker: Picker, n: int, threads: int) -> dict:
    """n pod readiness flips sent at once (one pod each of n workloads, or
    more pods per workload when there are fewer)."""
    per = max(1, math.ceil(n / len(picker.workloads)))
    targets: list[tuple[Workload, int]] = []
    while len(targets) < n:
        w = picker.take()
        for p in range(per):
            if len(targets) < n and p < len(w.ready):
                targets.append((w, p))
    for w, p in targets:
        w.ready[p] = not w.ready[p]
    touched = {w.name: w for w, _ in targets}
    expect = {name: (w.series("workload_lens_workload_pods_ready"), sum(w.ready)) for name, w in touched.items()}
    text = exp.metrics()
    before_resolves = scalar(text, "workload_lens_exporter_resolves_total")
    before_refreshes = scalar(text, "workload_lens_exporter_refreshes_total")
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(lambda t: k.patch_status(t[0].pod_path(t[1]), pod_status(t[0].ready[t[1]])), targets))
    sent_all = time.monotonic() - t0
    sent, got, text = wait_for(exp, lambda t: all(value(t, s) == v for s, v in expect.values()), 120)
    time.sleep(3)
    text = exp.metrics()
    return {
        "n": n, "workloads": len(touched),
        "requests_s": round(sent_all, 2),
        "visible_s": round(sent - t0, 2), "seen_s": round(got - t0, 2),
        "resolves": int(scalar(text, "workload_lens_exporter_resolves_total") - before_resolves),
        "refreshes": int(scalar(text, "workload_lens_exporter_refreshes_total") - before_refreshes),
    }


# --- the report -----------------------------------------------------------


def machine(k: Kapi, binary: str) -> dict:
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) // (1024 * 1024)

    def out(*cmd: str) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip()
        except OSError:
            return "?"

    return {
        "nproc": os.cpu_count(), "cpu": cpu, "memory_gib": mem, "kernel": platform.release(),
        "load": os.getloadavg(),
        "workload_lens": out(binary, "--version"),
        "git": out("git", "-C", ROOT, "rev-parse", "--short", "HEAD"),
        "rustc": out("rustc", "--version"),
        "kube_apiserver": k.call("GET", "/version").get("gitVersion", "?"),
        "python": platform.python_version(),
    }


def report(m: dict, args, created: dict, runs: dict) -> None:
    print()
    print(f"machine: {m['nproc']} cores, {m['cpu']}, {m['memory_gib']} GiB, Linux {m['kernel']}, "
          f"load at start {m['load'][0]:.2f}")
    print(f"versions: {m['workload_lens']} (git {m['git']}), {m['rustc']}, kube-apiserver {m['kube_apiserver']} "
          f"(testing/kube-apiserver), Python {m['python']}")
    n = args.workloads
    how = ("created by an earlier run (--reuse)" if args.reuse else
           f"created in {created['seconds']} s ({created['requests']} requests, "
           f"{created['requests_per_second']}/s, {args.threads} threads)")
    print(f"cluster: {n} workloads ({(n + 1) // 2} Deployments, {n // 2} JobSets), {n * args.pods_per_workload} "
          f"pods; {how}")
    print()
    cols = list(runs)
    print("| | " + " | ".join(f"--debounce-ms {d}" for d in cols) + " |")
    print("|---|" + "---:|" * len(cols))

    def row(label: str, f) -> None:
        print(f"| {label} | " + " | ".join(str(f(runs[d])) for d in cols) + " |")

    row("start to /readyz 200 (s)", lambda r: r["start"]["ready_s"])
    row("start to every workload and pod counted (s)", lambda r: r["start"]["complete_s"])
    row("first full refresh (last_refresh_duration, s)", lambda r: r["start"]["first_refresh_s"])
    row("refreshes / resolves by then", lambda r: f"{r['start']['refreshes_at_ready']} / "
        f"{r['start']['resolves_at_ready']}")
    row("exporter CPU to ready (s)", lambda r: r["start"]["cpu_to_ready_s"])
    row("objects held (covered / owner / pod)", lambda r: "{covered} / {owner} / {pod}".format(**r["start"]["objects"]))
    row("RSS after the first refresh (VmRSS / VmHWM, MiB)", lambda r: f"{r['start']['rss_mib']} / {r['start']['hwm_mib']}")
    row("RSS after 7 scrapes (VmRSS / VmHWM, MiB)",
        lambda r: f"{r['start']['rss_after_scrapes_mib']} / {r['start']['hwm_after_scrapes_mib']}")
    row("RSS at the end of the run (VmRSS / VmHWM, MiB)", lambda r: f"{r['end']['VmRSS']} / {r['end']['VmHWM']}")
    row("one /metrics scrape: bytes / series", lambda r: f"{r['start']['scrape_bytes']:,} / {r['start']['scrape_series']:,}")
    row("one /metrics scrape, median of 7 (ms)", lambda r: r["start"]["scrape_ms_median"])
    for kind, label in (("pod", "pod readiness flipped"), ("scale", "Deployment scaled"),
                        ("create", "pod created or deleted")):
        c = lambda r: r[kind]  # noqa: E731
        row(f"{label}: change to metric, median / p90 (ms), n={args.changes}",
            lambda r: f"{c(r)['visible_ms_median']} / {c(r)['visible_ms_p90']}")
        row(f"{label}: same, until the scrape was read (ms)",
            lambda r: f"{c(r)['seen_ms_median']} / {c(r)['seen_ms_p90']}")
        row(f"{label}: the event at the exporter, median / p90 (ms)",
            lambda r: f"{c(r)['event_ms_median']} / {c(r)['event_ms_p90']}")
        row(f"{label}: workloads resolved / refreshes per change",
            lambda r: f"{','.join(map(str, c(r)['resolves_per_change']))} / "
                      f"{','.join(map(str, c(r)['refreshes_per_change']))}")
        row(f"{label}: refresh duration, median (ms)", lambda r: c(r)["refresh_ms_median"])
    b = lambda r: r["burst"]  # noqa: E731
    row(f"burst of {args.burst} pod changes: requests sent in (s)", lambda r: b(r)["requests_s"])
    row("burst: all reflected (s, from the first request)", lambda r: f"{b(r)['visible_s']} (read {b(r)['seen_s']})")
    row("burst: workloads resolved / refreshes", lambda r: f"{b(r)['resolves']} / {b(r)['refreshes']}")
    print()
    print("change to metric: from sending the request to sending the first scrape that shows it (the exposition is "
          "taken when a scrape starts); 'until read' adds that scrape's encoding and transfer. Polled every 10 ms, "
          "or back to back when a scrape takes longer. The event at the exporter: when its watch read the change "
          "(workload_lens_exporter_last_sync_timestamp_seconds), from the same start; the metric is published a "
          "debounce and a refresh later.")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kapi_dir")
    ap.add_argument("--binary", default=os.path.join(ROOT, "target", "release", "workload-lens"))
    ap.add_argument("--workloads", type=int, default=5000)
    ap.add_argument("--pods-per-workload", type=int, default=10)
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--burst", type=int, default=500)
    ap.add_argument("--debounce", default="250,0",
                    help="comma-separated --debounce-ms values, one exporter run each (default 250,0)")
    ap.add_argument("--threads", type=int, default=24)
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--reuse", action="store_true",
                    help="the server holds an earlier run's cluster (same --workloads): measure only")
    ap.add_argument("--seed-only", action="store_true", help="create the cluster and stop")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        raise SystemExit(f"serve-bench: no binary {args.binary} (cargo build --release -p workload-lens-cli)")
    kubeconfig = os.path.join(args.kapi_dir, "kubeconfig")
    k = Kapi(args.kapi_dir)
    m = machine(k, args.binary)
    workloads = [Workload(i) for i in range(args.workloads)]
    if args.reuse:
        adopt(k, workloads, args.pods_per_workload)
        created = {"seconds": 0, "requests": 0, "requests_per_second": 0}
    else:
        created = seed(k, workloads, args.pods_per_workload, args.threads)
        if args.seed_only:
            return 0
    picker = Picker(workloads)
    runs = {}
    for d in [int(x) for x in args.debounce.split(",")]:
        log = os.path.join(args.kapi_dir, f"serve-{d}.log")
        print(f"--debounce-ms {d}: starting the exporter (log {log})", flush=True)
        exp, start = start_and_measure(args.binary, kubeconfig, d, workloads, args.pods_per_workload, log)
        try:
            print(f"  ready in {start['ready_s']} s, complete in {start['complete_s']} s, "
                  f"RSS {start['rss_mib']} MiB; changes...", flush=True)
            pod = changes(k, exp, picker, args.changes, "pod", d / 1000)
            scale = changes(k, exp, picker, args.changes, "scale", d / 1000)
            create = changes(k, exp, picker, args.changes, "create", d / 1000)
            print(f"  pod change {pod['visible_ms_median']} ms, scale {scale['visible_ms_median']} ms (median); "
                  f"burst...", flush=True)
            b = burst(k, exp, picker, args.burst, args.threads)
            end = exp.proc_status()
        finally:
            exp.stop()
        runs[d] = {"start": start, "pod": pod, "scale": scale, "create": create, "burst": b, "end": end}
        print(f"  {json.dumps(runs[d])}", flush=True)
    m["load_end"] = os.getloadavg()
    report(m, args, created, runs)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": m, "args": vars(args), "created": created, "runs": runs}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
