#!/usr/bin/env python3
"""Fills a Kubernetes API server with a large cluster for the live benchmarks.

    python bench/live/seed-large.py KUBECONFIG [--workloads 5000] [--pods-per-workload 10]
                                    [--namespaces 10] [--threads 16] [--status]

Default: 5,000 JobSets (jobset.x-k8s.io/v1alpha2) spread over the namespaces
bench-00 .. bench-09, each with one Job (replicated job `workers`, parallelism
10) and its 10 pods, owned as the JobSet and Job controllers own them (JobSet
-> Job -> Pod, real uids) and labelled as they label them: 5,000 workloads,
5,000 Jobs, 50,000 pods, 1 GPU per pod. Pods stay Pending unless --status,
which also writes the pods' status (Running, Ready, with a node) and the
JobSets' (one ready job), doubling the requests.

Each workload is created by one thread (JobSet, then Job, then pods), the
workloads in parallel (--threads). Prints the progress and the creation time.
The CRDs come from testing/live/crds/ (applied as testing/live/seed.py does).
Not part of the test command; run it by hand against e.g.
testing/kube-apiserver/start.sh's server:

    kc=$(bash testing/kube-apiserver/start.sh target/bench-kapi)
    target/live/venv/bin/python bench/live/seed-large.py "$kc"
    bash testing/kube-apiserver/stop.sh target/bench-kapi

Needs the `kubernetes` package (target/live/venv has it after the live stage).
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testing", "live"))
import seed  # noqa: E402  (testing/live/seed.py: Rest, apply_crds, wait_served)
from kubernetes.client.rest import ApiException  # noqa: E402

IMAGE = "ghcr.io/example/trainer:1.0"


def owner(obj: dict) -> list[dict]:
    return [{
        "apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
        "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": True,
    }]


def container(gpus: int) -> dict:
    return {"name": "trainer", "image": IMAGE,
            "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": str(gpus)}, "limits": {"nvidia.com/gpu": str(gpus)}}}


RUNNING = {
    "phase": "Running",
    "conditions": [{"type": "PodScheduled", "status": "True"}, {"type": "Initialized", "status": "True"},
                   {"type": "ContainersReady", "status": "True"}, {"type": "Ready", "status": "True"}],
    "containerStatuses": [{"name": "trainer", "image": IMAGE, "imageID": "", "ready": True, "started": True,
                           "restartCount": 0, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}],
}


def make_workload(rest: seed.Rest, ns: str, name: str, i: int, pods: int, status: bool) -> int:
    """Creates JobSet NAME, its Job and its pods; returns the number of requests."""
    labels = {"jobset.sigs.k8s.io/jobset-name": name, "jobset.sigs.k8s.io/replicatedjob-name": "workers",
              "jobset.sigs.k8s.io/job-index": "0"}
    pod_spec = {"restartPolicy": "Never", "containers": [container(1)]}
    js = rest.create({
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": name, "namespace": ns, "labels": {"lens-bench": "large"}},
        "spec": {"replicatedJobs": [{"name": "workers", "replicas": 1, "template": {"spec": {
            "parallelism": pods, "completions": pods, "completionMode": "Indexed",
            "template": {"spec": pod_spec}}}}]},
    })
    job_name = f"{name}-workers-0"
    job = rest.create({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": job_name, "namespace": ns, "labels": labels, "ownerReferences": owner(js)},
        "spec": {"parallelism": pods, "completions": pods, "completionMode": "Indexed",
                 "template": {"metadata": {"labels": labels}, "spec": pod_spec}},
    })
    requests = 2
    for p in range(pods):
        pod_labels = dict(labels, **{"batch.kubernetes.io/job-name": job_name,
                                     "batch.kubernetes.io/job-completion-index": str(p)})
        spec = dict(pod_spec)
        if status:
            spec["nodeName"] = f"node-{(i * pods + p) % 500:03d}"
        created = rest.create({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{job_name}-{p}", "namespace": ns, "labels": pod_labels, "ownerReferences": owner(job)},
            "spec": spec,
        })
        requests += 1
        if status:
            rest.write_status(created, RUNNING)
            requests += 1
    if status:
        rest.write_status(js, {"replicatedJobsStatus": [
            {"name": "workers", "ready": 1, "active": 1, "succeeded": 0, "failed": 0, "suspended": 0}]})
        requests += 1
    return requests


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kubeconfig")
    ap.add_argument("--workloads", type=int, default=5000)
    ap.add_argument("--pods-per-workload", type=int, default=10)
    ap.add_argument("--namespaces", type=int, default=10)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--status", action="store_true", help="also write pod and JobSet status (Running)")
    ap.add_argument("--prefix", default="wl", help="JobSet names are PREFIX-00000, ... (default wl)")
    args = ap.parse_args()

    rest = seed.Rest(args.kubeconfig, pool=args.threads + 4)
    t0 = time.monotonic()
    seed.wait_served(rest, seed.apply_crds(rest))
    namespaces = [f"bench-{n:02d}" for n in range(args.namespaces)]
    for ns in namespaces:
        try:
            rest.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        except ApiException as e:
            if e.status != 409:
                raise

    total_pods = args.workloads * args.pods_per_workload
    print(f"seed-large: {args.workloads} JobSets, {args.workloads} Jobs, {total_pods} pods in "
          f"{len(namespaces)} namespaces, {args.threads} threads{', with status' if args.status else ''}", flush=True)
    t1 = time.monotonic()
    done = requests = 0
    lock = threading.Lock()
    step = max(1, args.workloads // 10)
    pool = ThreadPoolExecutor(max_workers=args.threads)
    futures = [pool.submit(make_workload, rest, namespaces[i % len(namespaces)], f"{args.prefix}-{i:05d}", i,
                           args.pods_per_workload, args.status)
               for i in range(args.workloads)]
    try:
        for f in as_completed(futures):
            n = f.result()  # the first error stops the run
            with lock:
                done += 1
                requests += n
                if done % step == 0 or done == args.workloads:
                    el = time.monotonic() - t1
                    print(f"  {done}/{args.workloads} workloads, {requests} requests, {el:.1f} s, "
                          f"{requests / el:.0f} requests/s", flush=True)
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    el = time.monotonic() - t1
    print(f"seed-large: created {args.workloads} workloads and {total_pods} pods ({requests} requests) in {el:.1f} s "
          f"({requests / el:.0f} requests/s); {time.monotonic() - t0:.1f} s with the CRDs and namespaces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
