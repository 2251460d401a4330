#!/usr/bin/env python3
"""Seeds a Kubernetes API server with the live tests' scenario.

    python testing/live/seed.py KUBECONFIG [--out FILE]

Applies the CRDs of testing/live/crds/ and waits until they are Established
and served, then creates the objects of testing/live/fixtures/*.yaml in file
order, and 23 small JobSets in lens-paging. The scenario is described in
testing/live/README.md; the tests hardcode it, so keep the two in step.

- ownerReferences in the fixtures name their owner without a uid; the uid of
  the owner (created earlier: fixtures list owners first) is filled in here,
  as is the uid of an Event's involvedObject.
- An object's `status` cannot be written at create time (status subresource):
  it is written afterwards through .../status, merged over what the server
  set at create (e.g. a pod's qosClass).
- The cluster must not hold the scenario yet (scripts/live.sh starts a fresh
  server): an object that already exists is an error. CRDs are applied
  (replaced if present).

--out FILE writes the created objects' uids as JSON:
{"<namespace>/<Kind>/<name>": "<uid>", ...} (cluster-scoped: "/<Kind>/<name>").

Needs the `kubernetes` package (the official Python client).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException

HERE = os.path.dirname(os.path.abspath(__file__))

# (group, kind) -> (plural, namespaced) for every kind the scenario writes.
KINDS = {
    ("", "Namespace"): ("namespaces", False),
    ("", "Pod"): ("pods", True),
    ("", "Event"): ("events", True),
    ("batch", "Job"): ("jobs", True),
    ("apps", "Deployment"): ("deployments", True),
    ("apps", "ReplicaSet"): ("replicasets", True),
    ("apps", "StatefulSet"): ("statefulsets", True),
    ("jobset.x-k8s.io", "JobSet"): ("jobsets", True),
    ("kubeflow.org", "PyTorchJob"): ("pytorchjobs", True),
    ("ray.io", "RayCluster"): ("rayclusters", True),
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): ("leaderworkersets", True),
    ("run.ai", "Karta"): ("kartas", False),
    ("optimization.nvidia.com", "ResourceInterface"): ("resourceinterfaces", False),
    ("rbac.authorization.k8s.io", "ClusterRole"): ("clusterroles", False),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"): ("clusterrolebindings", False),
    ("apiextensions.k8s.io", "CustomResourceDefinition"): ("customresourcedefinitions", False),
    ("lens.test", "Flaky"): ("flakies", True),
    ("trainer.kubeflow.org", "TrainJob"): ("trainjobs", True),
    ("serving.kserve.io", "InferenceService"): ("inferenceservices", True),
}

PAGING_NAMESPACE = "lens-paging"
PAGING_COUNT = 23


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


class Rest:
    """Plain REST calls through the official client's ApiClient (JSON in and
    out, the kubeconfig's credentials). Thread-safe: urllib3's pool is."""

    def __init__(self, kubeconfig: str, pool: int | None = None):
        cfg = client.Configuration()
        config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
        if pool:
            cfg.connection_pool_maxsize = pool
        self.api = client.ApiClient(cfg)

    def path(self, api_version: str, kind: str, namespace: str | None = None, name: str | None = None) -> str:
        group, version = split_api_version(api_version)
        try:
            plural, namespaced = KINDS[(group, kind)]
        except KeyError:
            raise SystemExit(f"seed: no REST mapping for {api_version} {kind}")
        base = f"/apis/{group}/{version}" if group else f"/api/{version}"
        if namespaced:
            if not namespace:
                raise SystemExit(f"seed: {kind} needs a namespace")
            base += f"/namespaces/{namespace}"
        base += f"/{plural}"
        return f"{base}/{name}" if name else base

    def call(self, method: str, path: str, body=None, query=None):
        """One request; the decoded JSON answer, or ApiException (.status,
        .reason, .body) for a non-2xx answer."""
        method, url, headers, data, post = self.api.param_serialize(
            method=method,
            resource_path=path,
            query_params=list((query or {}).items()),
            header_params={"Accept": "application/json", "Content-Type": "application/json"},
            body=body,
            auth_settings=["BearerToken"],
        )
        resp = self.api.call_api(method, url, header_params=headers, body=data, post_params=post)
        resp.read()
        if not 200 <= resp.status <= 299:
            raise ApiException(http_resp=resp)
        return json.loads(resp.data) if resp.data else None

    def create(self, obj: dict) -> dict:
        meta = obj["metadata"]
        return self.call("POST", self.path(obj["apiVersion"], obj["kind"], meta.get("namespace")), obj)

    def write_status(self, created: dict, status: dict) -> dict:
        """PUT .../status: the status given, over the one the server set."""
        meta = created["metadata"]
        body = dict(created)
        body["status"] = {**(created.get("status") or {}), **status}
        path = self.path(created["apiVersion"], created["kind"], meta.get("namespace"), meta["name"]) + "/status"
        return self.call("PUT", path, body)


def key(obj: dict) -> str:
    meta = obj["metadata"]
    return f"{meta.get('namespace', '')}/{obj['kind']}/{meta['name']}"


def apply_crds(rest: Rest) -> list[dict]:
    crds = []
    for f in sorted(glob.glob(os.path.join(HERE, "crds", "*.yaml"))):
        with open(f) as fh:
            crds.extend(d for d in yaml.safe_load_all(fh) if d)
    for crd in crds:
        try:
            rest.create(crd)
        except ApiException as e:
            if e.status != 409:
                raise
            path = rest.path(crd["apiVersion"], crd["kind"], name=crd["metadata"]["name"])
            current = rest.call("GET", path)
            crd = dict(crd, metadata=dict(crd["metadata"], resourceVersion=current["metadata"]["resourceVersion"]))
            rest.call("PUT", path, crd)
    return crds


def wait_served(rest: Rest, crds: list[dict], timeout: float = 60.0) -> None:
    """Until every CRD is Established and each served version answers a list
    (the REST endpoint of a new CRD can lag a moment behind Established)."""
    deadline = time.monotonic() + timeout
    for crd in crds:
        name = crd["metadata"]["name"]
        path = rest.path(crd["apiVersion"], crd["kind"], name=name)
        while True:
            got = rest.call("GET", path)
            conds = {c["type"]: c["status"] for c in (got.get("status") or {}).get("conditions") or []}
            if conds.get("Established") == "True":
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"seed: CRD {name} not Established after {timeout:.0f} s: {conds}")
            time.sleep(0.05)
        spec = crd["spec"]
        for v in spec["versions"]:
            if not v.get("served"):
                continue
            list_path = f"/apis/{spec['group']}/{v['name']}/{spec['names']['plural']}"
            while True:
                try:
                    rest.call("GET", list_path, query={"limit": "1"})
                    break
                except ApiException as e:
                    if e.status != 404 or time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)


def load_fixtures() -> list[dict]:
    objs = []
    for f in sorted(glob.glob(os.path.join(HERE, "fixtures", "*.yaml"))):
        with open(f) as fh:
            objs.extend(d for d in yaml.safe_load_all(fh) if d)
    return objs


def paging_jobsets() -> list[dict]:
    """lens-paging/page-00 .. page-22: one replicated job, 1 Job x 1 pod x
    1 GPU each; no status, no Jobs, no pods."""
    out = []
    for i in range(PAGING_COUNT):
        out.append({
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": {"name": f"page-{i:02d}", "namespace": PAGING_NAMESPACE, "labels": {"lens-test/page": f"{i:02d}"}},
            "spec": {"replicatedJobs": [{
                "name": "main", "replicas": 1,
                "template": {"spec": {"parallelism": 1, "completions": 1, "template": {"spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox:1.36",
                                    "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                }}}},
            }]},
        })
    return out


def seed_paging(rest: Rest, uids: dict[str, str]) -> int:
    """The paging JobSets, all within one creation second (newest-first
    listings order them by name then, so the documents that show them have
    one order): created from the start of a second; when they span two, they
    are deleted and created again (3 tries)."""
    for _ in range(3):
        own_second(paging_jobsets()[0])
        created = []
        for obj in paging_jobsets():
            try:
                created.append(rest.create(obj))
            except ApiException as e:
                raise SystemExit(f"seed: creating {key(obj)}: {e.status} {e.reason}: {e.body}")
        if len({c["metadata"]["creationTimestamp"] for c in created}) == 1:
            for c in created:
                uids[key(c)] = c["metadata"]["uid"]
            return len(created)
        for c in created:
            m = c["metadata"]
            rest.call("DELETE", rest.path(c["apiVersion"], c["kind"], m["namespace"], m["name"]))
        base = rest.path("jobset.x-k8s.io/v1alpha2", "JobSet", PAGING_NAMESPACE)
        deadline = time.monotonic() + 30
        while (rest.call("GET", base) or {}).get("items"):
            if time.monotonic() > deadline:
                raise SystemExit("seed: the paging JobSets were not deleted within 30 s")
            time.sleep(0.1)
    raise SystemExit("seed: the paging JobSets did not fit in one creation second in 3 tries")


def fill_owner_uids(obj: dict, uids: dict[str, str]) -> None:
    meta = obj["metadata"]
    for ref in meta.get("ownerReferences") or []:
        if ref.get("uid"):
            continue
        group, _ = split_api_version(ref["apiVersion"])
        _, namespaced = KINDS[(group, ref["kind"])]
        owner = f"{meta.get('namespace', '') if namespaced else ''}/{ref['kind']}/{ref['name']}"
        if owner not in uids:
            raise SystemExit(f"seed: {key(obj)}: owner {owner} is not created before it (fixture order)")
        ref["uid"] = uids[owner]
    involved = obj.get("involvedObject") if obj.get("kind") == "Event" else None
    if involved and not involved.get("uid"):
        group, _ = split_api_version(involved["apiVersion"])
        _, namespaced = KINDS[(group, involved["kind"])]
        target = f"{involved.get('namespace', '') if namespaced else ''}/{involved['kind']}/{involved['name']}"
        if target not in uids:
            raise SystemExit(f"seed: {key(obj)}: {target} is not created before its event (fixture order)")
        involved["uid"] = uids[target]


#: Kinds whose unowned objects are workloads of a listing.
WORKLOAD_KINDS = {"JobSet", "PyTorchJob", "LeaderWorkerSet", "RayCluster", "Deployment", "Job", "TrainJob"}


def own_second(obj: dict) -> None:
    """Before a top-level workload, wait for the next whole second: each
    gets a creationTimestamp (second precision) of its own, so newest-first
    listings (and the documents that show them) have one order."""
    if obj.get("kind") in WORKLOAD_KINDS and not obj["metadata"].get("ownerReferences"):
        time.sleep(1.0 - (time.time() % 1.0) + 0.01)


def seed(rest: Rest, objs: list[dict], uids: dict[str, str]) -> int:
    n = 0
    for obj in objs:
        obj = json.loads(json.dumps(obj))  # the fixture stays as loaded
        own_second(obj)
        status = obj.pop("status", None)
        fill_owner_uids(obj, uids)
        try:
            created = rest.create(obj)
        except ApiException as e:
            raise SystemExit(f"seed: creating {key(obj)}: {e.status} {e.reason}: {e.body}")
        uids[key(created)] = created["metadata"]["uid"]
        if status:
            try:
                rest.write_status(created, status)
            except ApiException as e:
                raise SystemExit(f"seed: writing the status of {key(obj)}: {e.status} {e.reason}: {e.body}")
        n += 1
    return n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kubeconfig")
    ap.add_argument("--out", help="write the created objects' uids here (JSON)")
    args = ap.parse_args()

    t0 = time.monotonic()
    rest = Rest(args.kubeconfig)
    crds = apply_crds(rest)
    wait_served(rest, crds)
    t_crds = time.monotonic() - t0

    uids: dict[str, str] = {}
    n = seed(rest, load_fixtures(), uids)
    n += seed_paging(rest, uids)
    elapsed = time.monotonic() - t0
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(uids, fh, indent=1, sort_keys=True)
            fh.write("\n")
    print(f"seed: {len(crds)} CRDs served in {t_crds:.2f} s; {n} objects created; {elapsed:.2f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
