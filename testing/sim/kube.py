#!/usr/bin/env python3
"""Small Kubernetes helpers for the simulated cluster (testing/sim), over the
official Python client's ApiClient: REST mapping by discovery, server-side
apply, get/list/patch/delete, and waiting. No kubectl is needed.

As a command (run with the venv that has `kubernetes` and `yaml`, e.g.
target/live/venv/bin/python):

    kube.py apply KUBECONFIG PATH...       server-side apply of every document
                                           in the YAML files (directories: their
                                           *.yaml, sorted); CRDs first, and
                                           they are waited for (Established)
                                           before the other objects
    kube.py wait-crds KUBECONFIG PATH...   wait until the CRDs in the files are
                                           Established (60 s at most)
"""

from __future__ import annotations

import json
import pathlib
import sys
import time

import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException

FIELD_MANAGER = "workload-lens-sim"


class Kube:
    """REST calls with the kubeconfig's credentials; JSON in and out."""

    def __init__(self, kubeconfig: str):
        cfg = client.Configuration()
        config.load_kube_config(config_file=kubeconfig, client_configuration=cfg)
        self.api = client.ApiClient(cfg)
        self._resources: dict[str, dict[str, tuple[str, bool]]] = {}

    def call(self, method: str, path: str, body=None, query=None, content_type="application/json"):
        """One request; the decoded JSON answer, or ApiException for a non-2xx answer."""
        # The client serializes bodies of JSON content types itself (a string
        # would be sent as a JSON string); YAML ones (apply) go as text.
        if body is not None and not isinstance(body, (str, bytes)) and "json" not in content_type:
            body = json.dumps(body)
        method, url, headers, data, post = self.api.param_serialize(
            method=method,
            resource_path=path,
            query_params=list((query or {}).items()),
            header_params={"Accept": "application/json", "Content-Type": content_type},
            body=body,
            auth_settings=["BearerToken"],
        )
        resp = self.api.call_api(method, url, header_params=headers, body=data, post_params=post)
        resp.read()
        if not 200 <= resp.status <= 299:
            raise ApiException(http_resp=resp)
        return json.loads(resp.data) if resp.data else None

    # REST mapping -----------------------------------------------------------

    def _group_version(self, api_version: str) -> dict[str, tuple[str, bool]]:
        """kind -> (plural, namespaced) for one group/version, by discovery
        (asked again while the version is not served yet, e.g. a new CRD)."""
        if api_version not in self._resources:
            base = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
            found = self.call("GET", base)
            kinds = {}
            for r in found.get("resources", []):
                if "/" not in r["name"]:
                    kinds[r["kind"]] = (r["name"], r["namespaced"])
            self._resources[api_version] = kinds
        return self._resources[api_version]

    def path(self, api_version: str, kind: str, namespace: str | None = None, name: str | None = None) -> str:
        try:
            kinds = self._group_version(api_version)
        except ApiException:
            self._resources.pop(api_version, None)
            raise
        if kind not in kinds:
            self._resources.pop(api_version, None)
            kinds = self._group_version(api_version)
        plural, namespaced = kinds[kind]
        base = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
        if namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{plural}"
        return f"{base}/{name}" if name else base

    def obj_path(self, obj: dict, subresource: str = "") -> str:
        meta = obj["metadata"]
        p = self.path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"])
        return p + (f"/{subresource}" if subresource else "")

    # Verbs ------------------------------------------------------------------

    def apply(self, obj: dict, subresource: str = "") -> dict:
        """Server-side apply (forced, one field manager)."""
        return self.call(
            "PATCH",
            self.obj_path(obj, subresource),
            obj,
            query={"fieldManager": FIELD_MANAGER, "force": "true"},
            content_type="application/apply-patch+yaml",
        )

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict | None:
        try:
            return self.call("GET", self.path(api_version, kind, namespace, name))
        except ApiException as e:
            if e.status == 404:
                return None
            raise

    def list(self, api_version: str, kind: str, namespace: str | None = None, selector: str | None = None) -> list[dict]:
        query = {"labelSelector": selector} if selector else None
        found = self.call("GET", self.path(api_version, kind, namespace), query=query)
        items = found.get("items", [])
        for it in items:  # lists leave these out of their items
            it.setdefault("apiVersion", api_version)
            it.setdefault("kind", kind)
        return items

    def merge_patch(self, api_version: str, kind: str, name: str, patch: dict, namespace: str | None = None, subresource: str = "") -> dict:
        p = self.path(api_version, kind, namespace, name) + (f"/{subresource}" if subresource else "")
        return self.call("PATCH", p, patch, content_type="application/merge-patch+json")

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None, propagation: str = "Background") -> None:
        try:
            self.call("DELETE", self.path(api_version, kind, namespace, name), {"propagationPolicy": propagation})
        except ApiException as e:
            if e.status != 404:
                raise


def wait(what: str, check, timeout: float = 60.0, every: float = 0.2):
    """Calls check() until it returns something true, which it returns; fails
    with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            got = check()
        except ApiException as e:
            got, last = None, e
        if got:
            return got
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}" + (f" (last error: {last})" if last else ""))
        time.sleep(every)


def read_docs(paths: list[str]) -> list[dict]:
    """Every non-empty YAML document of the files (directories: *.yaml, sorted)."""
    docs = []
    for p in paths:
        path = pathlib.Path(p)
        files = sorted(path.glob("*.yaml")) if path.is_dir() else [path]
        for f in files:
            docs.extend(d for d in yaml.safe_load_all(f.read_text()) if d)
    return docs


def crds_established(kube: Kube, crds: list[dict], timeout: float = 60.0) -> None:
    for crd in crds:
        name = crd["metadata"]["name"]

        def established(name=name):
            got = kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
            conds = ((got or {}).get("status") or {}).get("conditions") or []
            return any(c["type"] == "Established" and c["status"] == "True" for c in conds)

        wait(f"CRD {name} to be Established", established, timeout)


def apply_all(kube: Kube, docs: list[dict]) -> None:
    crds = [d for d in docs if d.get("kind") == "CustomResourceDefinition"]
    for d in crds:
        kube.apply(d)
    crds_established(kube, crds)
    for d in docs:
        if d.get("kind") != "CustomResourceDefinition":
            kube.apply(d)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[0] not in ("apply", "wait-crds"):
        print(__doc__, file=sys.stderr)
        return 2
    kube = Kube(argv[1])
    docs = read_docs(argv[2:])
    if argv[0] == "apply":
        apply_all(kube, docs)
    else:
        crds_established(kube, [d for d in docs if d.get("kind") == "CustomResourceDefinition"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
