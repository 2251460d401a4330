"""Live clusters: list, describe and add up the AI workloads of a Kubernetes
cluster through the official ``kubernetes`` client
(``pip install 'workload-lens[kube]'``).

This module only does IO: it reads discovery, lists objects page by page
(``limit``/``continue``) and hands the raw response bytes to the engine,
which decides everything else (which type a name means, which types a
definition covers, the definitions stored in the cluster, the listing's
rows, which owners to fetch, how pods are attributed, the usage totals), the
same way the CLI and the Node module do. Responses are never turned into
``kubernetes`` model objects.

::

    from workload_lens.kube import Cluster

    cluster = Cluster()                      # kubeconfig / in-cluster config
    for w in cluster.list("jobsets", namespace="lens-train").workloads:
        print(w["name"], ",".join(w["statuses"]), w["gpus"])
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import re
import threading
import time
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Set, Tuple, Union
from urllib.parse import quote

from typing import TypedDict

try:
    import kubernetes.client as _kclient_module  # type: ignore[import-untyped, unused-ignore]
    import kubernetes.config as _kconfig_module  # type: ignore[import-untyped, unused-ignore]
except ImportError as _e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "workload_lens.kube needs the official kubernetes client: pip install 'workload-lens[kube]' "
        "(or pip install kubernetes)"
    ) from _e

# Used untyped (the client's typing differs between its versions).
_kclient: Any = _kclient_module
_kconfig: Any = _kconfig_module

from ._api import Catalog, Definition, Source, compile_all, missing_owners, usage as _usage
from ._errors import (
    ApiError,
    ForbiddenError,
    NoConfigError,
    NotFoundError,
    UnauthorizedError,
    UnreachableError,
    UsageError,
    WorkloadLensError,
)
from .types import ApiResource, GangReport, OwnerKind, Resolved, Usage, WorkloadSummary

__all__ = [
    "Cluster",
    "ClusterError",
    "ClusterUsage",
    "ClusterWarning",
    "Description",
    "Forbidden",
    "Listing",
    "NotFound",
    "Unauthorized",
    "Unreachable",
]

#: The API groups and resources of the definitions a cluster stores.
_DEFINITION_TYPES = (("run.ai", "kartas"), ("optimization.nvidia.com", "resourceinterfaces"))
#: At most this many rounds of owner fetches (Pod -> Job -> JobSet is two).
_OWNER_ROUNDS = 6
#: Discovery is read again after this many seconds.
_DISCOVERY_TTL = 60.0


# --- errors -------------------------------------------------------------------


#: Every failure to read the cluster (the engine's live-cluster error codes:
#: ``api``, and the subclasses'). ``status`` is the HTTP status when the
#: server answered. The classes are the engine's (``workload_lens``'s
#: ``ApiError``, ``UnreachableError``, ...), under the names this module
#: has always given them.
ClusterError = ApiError
Unreachable = UnreachableError
Unauthorized = UnauthorizedError
Forbidden = ForbiddenError
NotFound = NotFoundError


# --- results ------------------------------------------------------------------


class ClusterWarning(TypedDict):
    """Something that was left out, with a stable ``reason``: ``forbidden``
    (403 on a type), ``no_crd`` (a type discovery showed is no longer
    served), ``unreachable`` (a group discovery or the server could not
    answer), ``invalid`` or ``collision`` (a definition stored in the
    cluster that was not used). ``object`` is a type (``plural.group``) or
    a definition object (``Karta/name``)."""

    reason: str
    object: str
    message: str


class ClusterUsage(Usage):
    """:meth:`Cluster.usage`: the engine's :class:`Usage` of the listing,
    with the listing's ``warnings`` and ``forbidden`` types, so that totals
    that leave a type out say so (as Node's ``usage()``)."""

    warnings: List[ClusterWarning]
    forbidden: List[str]


class Listing(NamedTuple):
    """A listing: the engine's rows (newest first), the warnings, and the
    types (``plural.group``) that could not be listed while others were."""

    workloads: List[WorkloadSummary]
    warnings: List[ClusterWarning]
    forbidden: List[str]


class Description(NamedTuple):
    """One workload: the object as read, resolved with its live pods (pods
    attributed through their controller chains by UID), its gang-scheduling
    groups, and the warnings."""

    object: Dict[str, Any]
    resolved: Resolved
    gang: GangReport
    warnings: List[ClusterWarning]


class _HttpError(ApiError):
    """Another HTTP status: handled where it is expected (a type's warning),
    raised as it is elsewhere."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}", status=status)
        self.detail = message


# --- helpers ------------------------------------------------------------------


def _type_name(r: ApiResource) -> str:
    return f"{r['plural']}.{r['group']}" if r["group"] else r["plural"]


def _api_version(r: ApiResource) -> str:
    return f"{r['group']}/{r['version']}" if r["group"] else r["version"]


def _collection(r: ApiResource, namespace: Optional[str]) -> str:
    base = f"/apis/{r['group']}/{r['version']}" if r["group"] else f"/api/{r['version']}"
    if r["namespaced"] and namespace:
        return f"{base}/namespaces/{quote(namespace, safe='')}/{r['plural']}"
    return f"{base}/{r['plural']}"


# The list metadata of a raw list response, read without parsing the items:
# built-in lists put it first, custom resources (keys sorted) last.
_META_FIRST = re.compile(rb'^\s*\{"kind":"[^"]*","apiVersion":"[^"]*","metadata":\{([^{}]*)\}')
_META_LAST = re.compile(rb',"metadata":\{([^{}]*)\}\}\s*$')
_CONTINUE = re.compile(rb'"continue":"([^"\\]*)"')


def _continue_token(page: bytes) -> Optional[str]:
    m = _META_FIRST.match(page) or _META_LAST.search(page[-4096:])
    if m is not None:
        c = _CONTINUE.search(m.group(1))
        return c.group(1).decode("ascii", "replace") if c and c.group(1) else None
    try:
        meta = json.loads(page).get("metadata") or {}
    except ValueError:
        return None
    token = meta.get("continue")
    return str(token) if token else None


def _status_message(body: bytes, fallback: str) -> str:
    try:
        m = json.loads(body).get("message")
        return str(m) if m else fallback
    except (ValueError, AttributeError):
        return body[:200].decode("utf-8", "replace").strip() or fallback


def _user_definitions(definitions: Any) -> List[Any]:
    """The user's definitions as items for ``Catalog.add``: a source, a
    :class:`Definition`, an iterable of those, or a :class:`Catalog` (its
    definitions that are not bundled ones)."""
    if definitions is None:
        return []
    if isinstance(definitions, Catalog):
        return [d for d in definitions if d.origin != "catalog"]
    if isinstance(definitions, (str, bytes, os.PathLike, Definition)) or hasattr(definitions, "keys"):
        return [definitions]
    return list(definitions)


# --- the cluster ----------------------------------------------------------------


class Cluster:
    """A Kubernetes cluster, read through the official ``kubernetes`` client.

    ``api_client`` is a ``kubernetes.client.ApiClient`` to use as it is;
    otherwise the configuration comes from ``kubeconfig``/``context`` when
    given, else from the pod's service account when ``KUBERNETES_SERVICE_HOST``
    is set (in-cluster), else from the default kubeconfig (``KUBECONFIG`` or
    ``~/.kube/config``). The default namespace is the context's (in-cluster:
    the service account's), else ``default``.

    Definitions: the bundled catalog (or ``engine``, a :class:`Catalog`),
    then the definitions stored in the cluster (Karta ``run.ai/v1alpha1`` and
    ResourceInterface ``optimization.nvidia.com/v1alpha1`` objects, read on
    every call), then ``definitions`` (a source, :class:`Definition`,
    iterable of them, or a :class:`Catalog`'s own definitions), each
    replacing the one before for the same type.

    ``timeout`` is the (connect, read) timeout of each request, in seconds.
    """

    def __init__(
        self,
        api_client: Any = None,
        *,
        kubeconfig: Optional[Union[str, "os.PathLike[str]"]] = None,
        context: Optional[str] = None,
        definitions: Union[Catalog, Definition, Source, Iterable[Union[Definition, Source]], None] = None,
        engine: Optional[Catalog] = None,
        timeout: Tuple[float, float] = (5.0, 60.0),
    ) -> None:
        if engine is not None and not isinstance(engine, Catalog):
            raise TypeError(f"engine must be a workload_lens.Catalog, not {type(engine).__name__}")
        self._base = engine if engine is not None else Catalog()
        # Compiled once, here (a bad definition fails now), in the given order.
        self._user: List[Definition] = []
        for d in _user_definitions(definitions):
            self._user.extend([d] if isinstance(d, Definition) else compile_all(d))
        self._timeout = timeout
        self.namespace = "default"
        if api_client is not None:
            self.api_client = api_client
        else:
            self.api_client = self._configure(kubeconfig, context)
        self._discovery: Optional[Tuple[float, List[ApiResource], List[ClusterWarning]]] = None
        self._lock = threading.Lock()

    def _configure(self, kubeconfig: Any, context: Optional[str]) -> Any:
        try:
            if kubeconfig is None and context is None and os.environ.get("KUBERNETES_SERVICE_HOST"):
                cfg = _kclient.Configuration()
                _kconfig.load_incluster_config(client_configuration=cfg)
                try:
                    with open("/var/run/secrets/kubernetes.io/serviceaccount/namespace", encoding="utf-8") as f:
                        self.namespace = f.read().strip() or "default"
                except OSError:
                    pass
                return _kclient.ApiClient(cfg)
            path = os.fspath(kubeconfig) if kubeconfig is not None else None
            client = _kconfig.new_client_from_config(config_file=path, context=context)
            try:
                _, active = _kconfig.list_kube_config_contexts(config_file=path)
                if context is not None:
                    contexts, _ = _kconfig.list_kube_config_contexts(config_file=path)
                    active = next((c for c in contexts if c.get("name") == context), active)
                ns = (active or {}).get("context", {}).get("namespace")
                if ns:
                    self.namespace = str(ns)
            except Exception:  # noqa: BLE001 - the namespace is a convenience
                pass
            return client
        except _kconfig.ConfigException as e:
            where = f"kubeconfig {os.fspath(kubeconfig)}" if kubeconfig is not None else "the default kubeconfig"
            raise NoConfigError(
                f"no usable cluster configuration ({where}): {e}; pass kubeconfig=/path or api_client=, "
                "or set KUBECONFIG",
            ) from None

    # --- IO ---------------------------------------------------------------------

    def _get(self, path: str, query: Sequence[Tuple[str, Any]] = ()) -> bytes:
        """One GET, the raw body. Raises :class:`Unreachable` when the server
        cannot be reached, :class:`Unauthorized` on 401 and ``_HttpError``
        (code ``api``) for other statuses."""
        client = self.api_client
        headers = {"Accept": "application/json"}
        try:
            if hasattr(client, "param_serialize"):
                method, url, hdrs, body, post = client.param_serialize(
                    "GET", path, query_params=list(query), header_params=headers, auth_settings=["BearerToken"]
                )
                resp = client.call_api(method, url, hdrs, body, post, _request_timeout=self._timeout)
                status, data = int(resp.status), resp.read()
            else:  # older kubernetes clients
                resp = client.call_api(
                    path, "GET", query_params=list(query), header_params=headers, auth_settings=["BearerToken"],
                    _preload_content=False, _return_http_data_only=True, _request_timeout=self._timeout,
                )
                status, data = int(resp.status), resp.data
        except _kclient.ApiException as e:
            if e.status and e.status != 0:
                status, data = int(e.status), (e.body or b"")
                if isinstance(data, str):
                    data = data.encode("utf-8")
            else:
                raise Unreachable(self._unreachable(e.reason)) from None
        except Exception as e:  # noqa: BLE001 - urllib3 and socket errors
            if isinstance(e, (WorkloadLensError, TypeError, AttributeError)):
                raise
            raise Unreachable(self._unreachable(e)) from None
        if 200 <= status < 300:
            return bytes(data)
        message = _status_message(bytes(data or b""), f"HTTP {status}")
        if status == 401:
            raise Unauthorized(
                f"the API server {self._host()} did not accept the credentials (401: {message}); "
                "check the kubeconfig's user or refresh its token",
                status=401,
            )
        raise _HttpError(status, message)

    def _host(self) -> str:
        return str(getattr(getattr(self.api_client, "configuration", None), "host", "?"))

    def _unreachable(self, e: Any) -> str:
        return (
            f"cannot reach the API server {self._host()}: {e}; check that the cluster is up and that "
            "the kubeconfig's server and context are right"
        )

    def _pages(self, path: str, chunk_size: int, label_selector: Optional[str] = None) -> List[bytes]:
        """Every page of a list (``limit``/``continue``), raw."""
        pages: List[bytes] = []
        token: Optional[str] = None
        while True:
            query: List[Tuple[str, Any]] = []
            if chunk_size > 0:
                query.append(("limit", chunk_size))
            if label_selector:
                query.append(("labelSelector", label_selector))
            if token:
                query.append(("continue", token))
            page = self._get(path, query)
            pages.append(page)
            token = _continue_token(page)
            if not token:
                return pages

    # --- discovery ----------------------------------------------------------------

    def types(self, *, refresh: bool = False) -> List[ApiResource]:
        """The resource types the server serves (subresources left out), as
        the engine's ``ApiResource`` dicts, read from the discovery endpoints
        (``/api/v1``, ``/apis``, ``/apis/GROUP/VERSION``) and kept for a
        minute (``refresh=True`` reads them again)."""
        return list(self._discover(refresh)[0])

    def _discover(self, refresh: bool = False) -> Tuple[List[ApiResource], List[ClusterWarning]]:
        with self._lock:
            if not refresh and self._discovery is not None and time.monotonic() - self._discovery[0] < _DISCOVERY_TTL:
                return self._discovery[1], self._discovery[2]
        core = json.loads(self._get("/api/v1"))
        groups = json.loads(self._get("/apis")).get("groups") or []
        wanted: List[Tuple[str, str, bool]] = [("", "v1", True)]
        for g in groups:
            preferred = (g.get("preferredVersion") or {}).get("version")
            for v in g.get("versions") or []:
                wanted.append((g["name"], v["version"], v["version"] == preferred))
        warnings: List[ClusterWarning] = []

        def fetch(gv: Tuple[str, str, bool]) -> Any:
            group, version, _ = gv
            if not group:
                return core
            try:
                return json.loads(self._get(f"/apis/{group}/{version}"))
            except (_HttpError, Unreachable) as e:
                return e

        with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
            answers = list(pool.map(fetch, wanted))
        served: List[ApiResource] = []
        for (group, version, preferred), answer in zip(wanted, answers):
            if isinstance(answer, Exception):
                warnings.append(
                    ClusterWarning(
                        reason="unreachable",
                        object=f"{group}/{version}",
                        message=f"discovery of {group}/{version} failed: {answer}; its types are left out",
                    )
                )
                continue
            for r in answer.get("resources") or []:
                if "/" in r.get("name", ""):
                    continue  # a subresource (status, scale, log, ...)
                served.append(
                    ApiResource(
                        group=group,
                        version=version,
                        kind=r.get("kind", ""),
                        plural=r["name"],
                        singular=r.get("singularName") or "",
                        shortNames=list(r.get("shortNames") or []),
                        namespaced=bool(r.get("namespaced")),
                        preferred=preferred,
                    )
                )
        with self._lock:
            self._discovery = (time.monotonic(), served, warnings)
        return served, warnings

    # --- definitions -------------------------------------------------------------

    def engine(self) -> Tuple[Catalog, List[ClusterWarning]]:
        """The catalog this cluster's workloads resolve with (bundled or
        ``engine``, then the cluster's definition objects, then
        ``definitions``) and the warnings about definition objects not used."""
        served, _ = self._discover()
        return self._engine(served, 500)

    def _engine(self, served: List[ApiResource], chunk_size: int) -> Tuple[Catalog, List[ClusterWarning]]:
        pages: List[bytes] = []
        warnings: List[ClusterWarning] = []
        installed = 0
        for group, plural in _DEFINITION_TYPES:
            for r in served:
                if r["group"] == group and r["plural"] == plural and r["preferred"]:
                    installed += 1
                    try:
                        pages.extend(self._pages(_collection(r, None), chunk_size))
                    except _HttpError as e:
                        warnings.append(self._type_warning(r, e))
        if installed == 0:
            # As the CLI and Node say it.
            warnings.append(ClusterWarning(
                reason="no_crd", object="kartas.run.ai",
                message="no definitions in the cluster: neither kartas.run.ai nor "
                "resourceinterfaces.optimization.nvidia.com is installed; the catalog is used",
            ))
        catalog, dw = self._base.with_cluster_definitions(pages)
        for d in self._user:
            catalog.add(d)
        warnings.extend(ClusterWarning(reason=w["reason"], object=w["object"], message=w["message"]) for w in dw)
        return catalog, warnings

    @staticmethod
    def _type_warning(r: ApiResource, e: _HttpError) -> ClusterWarning:
        name = _type_name(r)
        if e.status == 403:
            return ClusterWarning(
                reason="forbidden", object=name,
                message=f"{name}: not allowed to list ({e.detail}); ask for 'list' on {name} to see them",
            )
        if e.status == 404:
            return ClusterWarning(
                reason="no_crd", object=name,
                message=f"{name}: the server no longer serves this type (404: {e.detail})",
            )
        return ClusterWarning(reason="unreachable", object=name, message=f"{name}: HTTP {e.status}: {e.detail}")

    # --- listing -----------------------------------------------------------------

    def list(
        self,
        type: Optional[str] = None,
        *,
        namespace: Optional[str] = None,
        all_namespaces: bool = False,
        label_selector: Optional[str] = None,
        phases: Iterable[str] = (),
        all_types: bool = False,
        chunk_size: int = 500,
    ) -> Listing:
        """The workloads of one type (a kind, plural, short name or
        ``kind.version.group``), or with ``all_types=True`` of every type a
        definition covers (then only top-level ones: a JobSet's Jobs are not
        listed beside it), in ``namespace`` (default: the context's), or in
        every namespace with ``all_namespaces=True``. ``label_selector``
        filters on the server, ``phases`` (statuses such as ``"Running"``)
        in the engine. Lists are read in pages of ``chunk_size``.

        Raises :class:`UsageError` for an unknown or ambiguous type,
        :class:`NoDefinitionError` when no definition covers it,
        :class:`Forbidden` when the asked type may not be listed,
        :class:`ClusterError` (code ``api``) when the server fails to list
        it, :class:`Unauthorized` and :class:`Unreachable`. With
        ``all_types``, a type that fails is left out with a warning instead
        (a forbidden one is also named in ``forbidden``)."""
        if isinstance(phases, (str, bytes)):
            raise TypeError("phases must be an iterable of str, not a single string")
        if (type is None) == (not all_types):
            raise UsageError("name a type, or pass all_types=True (not both)")
        if not isinstance(chunk_size, int) or chunk_size < 0:
            raise UsageError("chunk_size must be a non-negative int (0: no paging)")
        served, warnings = self._discover()
        warnings = list(warnings)
        catalog, dw = self._engine(served, chunk_size)
        warnings.extend(dw)
        ns = None if all_namespaces else (namespace or self.namespace)
        if all_types:
            listed = catalog.covered_types(served)
        else:
            listed = [catalog.find_type(str(type), served)]
        objects: List[bytes] = []
        forbidden: List[str] = []
        for r in listed:
            try:
                objects.extend(self._pages(_collection(r, ns), chunk_size, label_selector))
            except _HttpError as e:
                where = f" in namespace {ns}" if ns and r["namespaced"] else ""
                if not all_types and e.status == 403:
                    raise Forbidden(
                        f"not allowed to list {_type_name(r)}{where} ({e.detail}); ask for 'list' on "
                        f"{_type_name(r)}",
                        status=403,
                    ) from None
                if not all_types:
                    # The type asked for: its failure is the call's, as in
                    # the CLI and Node.
                    raise ClusterError(
                        f"cannot list {_type_name(r)}{where}: HTTP {e.status}: {e.detail}", status=e.status
                    ) from None
                warnings.append(self._type_warning(r, e))
                if e.status == 403:
                    forbidden.append(_type_name(r))
        owners: List[bytes] = []
        if all_types:
            done = [OwnerKind(apiVersion=_api_version(r), kind=r["kind"]) for r in listed]
            owners = self._owners(objects, done, served, ns, chunk_size, warnings)
        rows = catalog.list_workloads(objects, owners, top_level_only=all_types, phases=list(phases))
        return Listing(rows, warnings, forbidden)

    def _owners(
        self,
        items: List[bytes],
        done: List[OwnerKind],
        served: List[ApiResource],
        namespace: Optional[str],
        chunk_size: int,
        warnings: List[ClusterWarning],
    ) -> List[bytes]:
        """The owners the items' controller chains go through, fetched kind
        by kind in the namespace as the engine asks for them (a few
        rounds)."""
        owners: List[bytes] = []
        done = list(done)
        for _ in range(_OWNER_ROUNDS):
            kinds = missing_owners(items + owners, done)
            if not kinds:
                break
            for k in kinds:
                done.append(k)
                r = self._served_kind(served, k)
                if r is None:
                    continue
                try:
                    owners.extend(self._pages(_collection(r, namespace), chunk_size))
                except _HttpError as e:
                    warnings.append(self._type_warning(r, e))
        return owners

    @staticmethod
    def _served_kind(served: List[ApiResource], k: OwnerKind) -> Optional[ApiResource]:
        """The served resource of an owner reference's apiVersion and kind
        (another served version of the group when that one is not)."""
        group, _, version = k["apiVersion"].rpartition("/")
        same = [r for r in served if r["group"] == group and r["kind"] == k["kind"]]
        exact = [r for r in same if r["version"] == version]
        if exact:
            return exact[0]
        pref = [r for r in same if r["preferred"]]
        return (pref or same)[0] if same else None

    # --- one workload -------------------------------------------------------------

    def describe(self, type: str, name: str, *, namespace: Optional[str] = None) -> Description:
        """One workload, resolved with its live pods: the pods of its
        namespace and the owners their controller chains go through (the
        engine says which kinds to fetch), attributed by UID, so a pod that
        only carries the workload's labels is not counted (it is listed in
        ``strayPods``; other workloads' pods are left out). Also its
        gang-scheduling groups.

        Raises :class:`NotFound` when there is no such workload,
        :class:`Forbidden` when it may not be read, and as :meth:`list`."""
        served, warnings = self._discover()
        warnings = list(warnings)
        catalog, dw = self._engine(served, 500)
        warnings.extend(dw)
        r = catalog.find_type(type, served)
        ns = (namespace or self.namespace) if r["namespaced"] else None
        where = f" in namespace {ns}" if ns else ""
        try:
            obj = json.loads(self._get(f"{_collection(r, ns)}/{quote(name, safe='')}"))
        except _HttpError as e:
            if e.status == 404:
                raise NotFound(
                    f"{r['kind']} {name} not found{where}; list them with Cluster.list({r['plural']!r}"
                    + (f", namespace={ns!r})" if ns else ")"),
                    status=404,
                ) from None
            if e.status == 403:
                raise Forbidden(
                    f"not allowed to get {_type_name(r)} {name}{where} ({e.detail}); ask for 'get' on "
                    f"{_type_name(r)}",
                    status=403,
                ) from None
            raise ClusterError(f"cannot read {r['kind']} {name}{where}: HTTP {e.status}: {e.detail}",
                               status=e.status) from None
        pods: List[bytes] = []
        pod_type = next((p for p in served if p["group"] == "" and p["plural"] == "pods"), None)
        if pod_type is not None:
            try:
                pods = self._pages(_collection(pod_type, ns), 500)
            except _HttpError as e:
                warnings.append(self._type_warning(pod_type, e))
        skip = [OwnerKind(apiVersion=str(obj.get("apiVersion", "")), kind=str(obj.get("kind", "")))]
        owners = self._owners(pods, skip, served, ns, 500, warnings) if pods else []
        items = pods + owners
        resolved = catalog.resolve_in_namespace(obj, items)
        gang = catalog.lookup_object(obj).gang_groups_pages(obj, items)
        return Description(obj, resolved, gang, warnings)

    # --- usage -----------------------------------------------------------------

    def usage(
        self,
        type: Optional[str] = None,
        *,
        namespace: Optional[str] = None,
        all_namespaces: bool = False,
        label_selector: Optional[str] = None,
        phases: Iterable[str] = (),
        all_types: bool = False,
        chunk_size: int = 500,
    ) -> ClusterUsage:
        """GPU and pod requests of :meth:`list`'s workloads (same filters) by
        namespace, by type and in total, as the engine adds them up, with the
        listing's ``warnings`` and ``forbidden`` types. Without a type, of
        every covered type (``all_types``), as ``workload-lens top`` and
        Node's ``usage()``."""
        if type is None:
            all_types = True
        listing = self.list(
            type, namespace=namespace, all_namespaces=all_namespaces, label_selector=label_selector,
            phases=phases, all_types=all_types, chunk_size=chunk_size,
        )
        u = _usage(listing.workloads)
        return ClusterUsage(
            byNamespace=u["byNamespace"], byType=u["byType"], total=u["total"],
            warnings=listing.warnings, forbidden=listing.forbidden,
        )

    def close(self) -> None:
        """Close the API client's connections."""
        close = getattr(self.api_client, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Cluster {self._host()} namespace={self.namespace}>"
