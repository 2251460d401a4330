"""Live clusters: list, describe and add up the AI workloads of a Kubernetes
cluster through the official ``kubernetes`` client
(``pip install 'workload-lens[kube]'``).

This module only does IO: it drives the engine's cluster protocol
(:meth:`workload_lens.Catalog.cluster_session`), making the plain GETs the
engine asks for with the client's configuration and credentials, a batch at
a time, and handing the raw replies back. The engine decides everything
else, the same way for the CLI and the Node module: what to request
(discovery, the definitions stored in the cluster, list pages, the owner
walk), which type a name means, which types a definition covers, which
failures end a call and which become warnings, the listing's rows, how pods
are attributed, the usage totals. Responses are never turned into
``kubernetes`` model objects.

::

    from workload_lens.kube import Cluster

    cluster = Cluster()                      # kubeconfig / in-cluster config
    for w in cluster.list("jobsets", namespace="lens-train").workloads:
        print(w["name"], ",".join(w["statuses"]), w["gpus"])
"""

from __future__ import annotations

import concurrent.futures
import os
import threading
import time
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Tuple, Union, cast

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

from ._api import Catalog, Definition, Source, compile_all, usage as _usage
from ._errors import (
    ApiError,
    ForbiddenError,
    NoConfigError,
    NotFoundError,
    UnauthorizedError,
    UnreachableError,
    UsageError,
)
from .types import ApiResource, Diagnosis, GangReport, Resolved, Usage, WorkloadSummary

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

#: Discovery is read again after this many seconds.
_DISCOVERY_TTL = 60.0
#: At most this many requests of one batch at once.
_PARALLEL = 8


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
    """Something that was left out, with a stable ``reason`` (the engine's
    ``ClusterWarning``): ``forbidden`` (403 on a type), ``no_crd`` (no
    definition type installed, or a type discovery showed is no longer
    served), ``api`` (a group's discovery, a type or an owner kind failed
    otherwise), ``invalid`` or ``collision`` (a definition stored in the
    cluster that was not used), ``orphaned`` (a listed object's controller
    does not exist: it is shown as a workload of its own, its row's
    ``owner`` says so) or ``owner_unreadable`` (its controller's type may not
    be listed). ``object`` is a type (``plural.group``), a group version, a
    definition object (``Karta/name``) or a listed object (``Kind/name``)."""

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
    """A listing: the engine's rows (by namespace and name), the warnings, and the
    types (``plural.group``) that could not be listed while others were."""

    workloads: List[WorkloadSummary]
    warnings: List[ClusterWarning]
    forbidden: List[str]


class Description(NamedTuple):
    """One workload: the object as read, resolved with its live pods (pods
    attributed through their controller chains by UID), its gang-scheduling
    groups, the warnings, and its last events: those of the workload, its
    pods and the owners between them (by ``involvedObject.uid``), newest
    first, at most 10 (``events_left_out`` counts the older ones). Each event
    is ``{type, reason, message, from, object, count, lastTime?, firstTime?}``;
    none when events may not be listed (a warning says so). ``diagnosis``
    is why it is where it is (:func:`workload_lens.diagnose`), from its pods,
    those events, its Kueue Workloads and gang-scheduler groups
    (``workload-lens why``)."""

    object: Dict[str, Any]
    resolved: Resolved
    gang: GangReport
    warnings: List[ClusterWarning]
    events: List[Dict[str, Any]] = []
    events_left_out: int = 0
    diagnosis: Optional[Diagnosis] = None


# --- helpers ------------------------------------------------------------------


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
    every call), then your own: ``engine``'s added definitions and
    ``definitions`` (a source, :class:`Definition`, iterable of them, or a
    :class:`Catalog`'s own definitions), each replacing the one before for
    the same type (the engine's rule, as in the CLI and Node).

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
        base = engine if engine is not None else Catalog()
        # The catalog every operation starts from: ``engine`` (a copy) with
        # the user's definitions on top, compiled once, here (a bad
        # definition fails now), in the given order. The engine puts the
        # cluster's definitions between the two.
        self._catalog, _ = base.with_cluster_definitions([])
        for d in _user_definitions(definitions):
            for one in [d] if isinstance(d, Definition) else compile_all(d):
                self._catalog.add(one)
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

    def _reply(self, path: str) -> Tuple[Optional[int], bytes]:
        """One GET the engine asked for (``path`` with its query), as its
        reply: ``(status, body)`` whatever the status, or ``(None, why)``
        when the server could not be reached. What either means is the
        engine's."""
        client = self.api_client
        headers = {"Accept": "application/json"}
        try:
            if hasattr(client, "param_serialize"):
                method, url, hdrs, body, post = client.param_serialize(
                    "GET", path, header_params=headers, auth_settings=["BearerToken"]
                )
                resp = client.call_api(method, url, hdrs, body, post, _request_timeout=self._timeout)
                return int(resp.status), bytes(resp.read() or b"")
            resp = client.call_api(  # older kubernetes clients
                path, "GET", header_params=headers, auth_settings=["BearerToken"],
                _preload_content=False, _return_http_data_only=True, _request_timeout=self._timeout,
            )
            return int(resp.status), bytes(resp.data or b"")
        except _kclient.ApiException as e:
            if not e.status:
                return None, str(e.reason).encode("utf-8", "replace")
            data = e.body or b""
            return int(e.status), data.encode("utf-8") if isinstance(data, str) else bytes(data)
        except (TypeError, AttributeError):
            raise  # a misconfigured api_client: the caller's bug, as it is
        except Exception as e:  # noqa: BLE001 - urllib3 and socket errors
            return None, str(e).encode("utf-8", "replace")

    def _host(self) -> str:
        return str(getattr(getattr(self.api_client, "configuration", None), "host", "?"))

    def _run(self, operation: Union[str, Dict[str, Any]], catalog: Optional[Catalog] = None) -> Dict[str, Any]:
        """Drive one operation of the engine's cluster protocol to its
        outcome: each batch of requests at once (a few threads), the
        replies fed back in order. The engine raises what ends it."""
        session = (catalog or self._catalog).cluster_session(operation, server=self._host())
        paths = session.requests()
        if paths:
            with concurrent.futures.ThreadPoolExecutor(max_workers=_PARALLEL) as pool:
                while paths:
                    session.feed(list(pool.map(self._reply, paths)))
                    paths = session.requests()
        return session.finish()

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
        out = self._run("discover")
        served = cast(List[ApiResource], out["served"])
        warnings = cast(List[ClusterWarning], out["warnings"])
        with self._lock:
            self._discovery = (time.monotonic(), served, warnings)
        return served, warnings

    # --- definitions -------------------------------------------------------------

    def engine(self) -> Tuple[Catalog, List[ClusterWarning]]:
        """The catalog this cluster's workloads resolve with (bundled or
        ``engine``, then the cluster's definition objects, then
        ``definitions``) and the warnings about definition objects not used
        or not readable."""
        served, _ = self._discover()
        out = self._run({"definitions": {"served": served}})
        catalog, _ = self._catalog.with_cluster_definitions(out["objects"])
        return catalog, cast(List[ClusterWarning], out["warnings"])

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
        if not isinstance(chunk_size, int) or isinstance(chunk_size, bool) or chunk_size < 0:
            raise UsageError("chunk_size must be a non-negative int (0: no paging)")
        served, discovery_warnings = self._discover()
        query: Dict[str, Any] = {
            "phases": [str(p) for p in phases],
            "allTypes": all_types,
            "chunkSize": chunk_size,
            "served": served,
        }
        if type is not None:
            query["type"] = str(type)
        if not all_namespaces:
            query["namespace"] = namespace or self.namespace
        if label_selector:
            query["labelSelector"] = label_selector
        out = self._run({"list": query})
        return Listing(out["workloads"], list(discovery_warnings) + out["warnings"], out["forbidden"])

    # --- one workload -------------------------------------------------------------

    def describe(self, type: str, name: str, *, namespace: Optional[str] = None) -> Description:
        """One workload, resolved with its live pods: the pods of its
        namespace and the owners their controller chains go through (the
        engine says which kinds to fetch), attributed by UID, so a pod that
        only carries the workload's labels is not counted (it is listed in
        ``strayPods``; other workloads' pods are left out). Also its
        gang-scheduling groups and its last events.

        Raises :class:`NotFound` when there is no such workload,
        :class:`Forbidden` when it may not be read, and as :meth:`list`."""
        served, discovery_warnings = self._discover()
        query = {"type": str(type), "name": str(name), "namespace": namespace or self.namespace, "served": served}
        out = self._run({"describe": query})
        return Description(
            out["object"],
            out["resolved"],
            out["gang"],
            list(discovery_warnings) + out["warnings"],
            out["events"],
            out["eventsLeftOut"],
            out["diagnosis"],
        )

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
            byNamespace=u["byNamespace"], byType=u["byType"], total=u["total"], podsRead=u["podsRead"],
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
