"""The Python API of workload-lens: a thin layer over the native engine.

Every call goes to one operation of the bindings' shared surface (the
operation table of the ``workload-lens-binding`` crate) through the native
module. Objects, pods and
requests cross as they are: the engine walks the Python values itself (the
values ``json.dumps`` takes, :func:`_default` for the rest) and builds its
results as plain dicts and lists in exactly the engine's canonical JSON
shape; the caller's own YAML/JSON text crosses as ``bytes``. Definitions
given as dicts, limits and the results of definition calls still cross as
JSON text (``json.dumps``/``json.loads``). Nothing here interprets
workloads; it converts arguments, results and errors.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import threading
from collections.abc import Mapping
from typing import (
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Tuple,
    Union,
    cast,
)

from . import _native
from ._errors import LimitError, UsageError
from .types import (
    ApiResource,
    ClusterDefinitionWarning,
    Diagnosis,
    GangReport,
    GangStructure,
    HumanAmounts,
    OwnerKind,
    Resolved,
    SourceMap,
    SourceQuery,
    Usage,
    WorkloadSummary,
)

__all__ = [
    "Catalog",
    "ClusterSession",
    "Definition",
    "Gvk",
    "UpdateResult",
    "catalog",
    "catalog_sources",
    "compile",
    "compile_all",
    "default_limits",
    "diagnose",
    "evaluate",
    "human_amounts",
    "limits",
    "lookup",
    "missing_owners",
    "parse",
    "resolve",
    "source_map",
    "usage",
    "validate",
]

# --- value conversion -------------------------------------------------------

_CAMEL = re.compile(r"_([a-z0-9])")


def _camel(name: str) -> str:
    return _CAMEL.sub(lambda m: m.group(1).upper(), name)


def _is_model(o: Any) -> bool:
    """A model class of the `kubernetes` client (or any OpenAPI-generated
    client of the same shape)."""
    t = type(o)
    return hasattr(t, "openapi_types") and hasattr(t, "attribute_map")


_api_client: Any = None


def _sanitize(o: Any) -> Any:
    """A kubernetes client model as the API-shaped (camelCase) dict the API
    server would send. Its ``to_dict()`` is snake_case, so it is not used."""
    global _api_client
    try:
        if _api_client is None:
            from kubernetes.client import ApiClient  # type: ignore[import-untyped, unused-ignore]

            _api_client = ApiClient()
        return _api_client.sanitize_for_serialization(o)
    except ImportError:
        # A model of the same shape without the kubernetes package: the same
        # walk as ApiClient.sanitize_for_serialization (json.dumps calls
        # _default again for nested models).
        return {
            o.attribute_map[a]: getattr(o, a)
            for a in o.openapi_types
            if getattr(o, a) is not None
        }


def _default(o: Any) -> Any:
    if _is_model(o):
        return _sanitize(o)
    if isinstance(o, Mapping):
        return dict(o)
    if isinstance(o, (datetime.datetime, datetime.date)):
        # As the kubernetes client serializes timestamps (PyYAML also reads
        # unquoted timestamps as datetimes).
        return o.isoformat()
    raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")


def _dumps(value: Any) -> str:
    """A value as JSON text, the form the native module takes values in
    (``ensure_ascii=False``: a lone surrogate stays one, and the engine
    reports it as a :class:`UsageError`)."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"), default=_default)
    except RecursionError:
        raise LimitError(
            "the value nests too deeply to be converted (Python's recursion limit)",
            limit="maxDepth",
        ) from None
    except ValueError as e:  # NaN and infinities, circular references
        raise UsageError(f"the value cannot be represented as JSON: {e}") from None


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise LimitError(
            "the result nests too deeply for Python's json module (Python's recursion limit)",
            limit="maxDepth",
        ) from None


def _text(text: Any, what: str) -> bytes:
    """The caller's own text, as the native module takes text: bytes (a
    ``str`` that is not Unicode keeps its lone surrogates, and the engine
    reports where the text stops being UTF-8)."""
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    if isinstance(text, bytes):
        return text
    raise TypeError(f"{what} must be str or bytes, not {type(text).__name__}")


def _name(name: Any, what: str) -> bytes:
    """A name (apiVersion, kind, definition name), lone surrogates replaced."""
    if not isinstance(name, str):
        raise TypeError(f"{what} must be str, not {type(name).__name__}")
    return name.encode("utf-8", "replace")


def _limits_json(limits: Optional[Mapping[str, int]], options: Mapping[str, Any]) -> Optional[str]:
    if limits is None and not options:
        return None
    merged: Dict[str, Any] = {}
    if limits is not None:
        if not isinstance(limits, Mapping):
            raise TypeError(f"limits must be a mapping, not {type(limits).__name__}")
        for k, v in limits.items():
            if not isinstance(k, str):
                raise TypeError(f"limit names must be str, not {type(k).__name__}")
            merged[_camel(k)] = v
    for k, v in options.items():
        merged[_camel(k)] = v
    return _dumps(merged)


def _read(path: Union[str, "os.PathLike[str]"]) -> bytes:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be str or os.PathLike, not {type(path).__name__}")
    with open(os.fspath(path), "rb") as f:
        return f.read()


Source = Union[str, bytes, Mapping[str, Any], "os.PathLike[str]"]


def _source(source: Any) -> Union[bytes, str]:
    """A definition source for the native module: text (str/bytes) and files
    (os.PathLike; a str is always text) as bytes, a dict as JSON (str)."""
    if isinstance(source, (str, bytes)):
        return _text(source, "a definition source")
    if isinstance(source, os.PathLike):
        return _read(source)
    if isinstance(source, Mapping):
        return _dumps(source)
    raise TypeError(
        "a definition source must be YAML/JSON text (str or bytes), a dict or an "
        f"os.PathLike, not {type(source).__name__}"
    )


def _compile_all(source: Any, limits: Optional[str]) -> List[Any]:
    """Every definition of a source, compiled (a dict by the engine's
    ``compile_object``, which does not depend on the dict's key order)."""
    s = _source(source)
    return list(_native.compile_object(s, limits) if isinstance(s, str) else _native.compile_all(s, limits))


def _object(obj: Any) -> Any:
    """An object for the native module: text (str/bytes) as bytes, read by
    the engine; anything else (dicts, kubernetes models) as it is, walked by
    the engine's host reader (the values ``json.dumps`` takes, with
    :func:`_default` for the rest)."""
    if isinstance(obj, (str, bytes)):
        return _text(obj, "the object")
    return obj


def _objects(objs: Any, what: str, noun: str, list_kind: str) -> Any:
    """Objects for the native module, read by the engine's one reader of
    object lists: text (several documents, a ``List``, an array); a list
    object (or one object) as a dict or kubernetes model; an iterable of
    objects. ``what`` names the argument in errors, ``noun`` its objects,
    ``list_kind`` their list object.

    An iterable that is not a list or tuple (a generator, a view, a custom
    iterable) is not read here: its iterator goes to the engine's reader,
    which takes one object at a time and stops at its limits
    (``maxInputBytes``, ``maxInputNodes``) as it stops a list, so an
    endless generator ends with a :class:`LimitError`. An exception the
    iterator raises is raised as it is."""
    if isinstance(objs, (str, bytes)):
        return _text(objs, what)
    if isinstance(objs, Mapping) or _is_model(objs):
        return objs
    if isinstance(objs, (list, tuple)):
        return objs
    try:
        iterator = iter(objs)
    except TypeError:
        raise TypeError(
            f"{what} must be {noun} (an iterable of dicts or kubernetes models), a {list_kind} "
            f"or YAML/JSON text, not {type(objs).__name__}"
        ) from None
    return _native.Iterated(iterator)


def _pods(pods: Any) -> Any:
    """Pods for the native module (see :func:`_objects`): text (several
    documents, a ``List``/``PodList``, an array); a ``PodList`` (or one pod)
    as a dict or kubernetes model; an iterable of pods."""
    return _objects(pods, "pods", "pod objects", "PodList")


def _diagnose_args(pods: Any, events: Any, related: Any) -> Tuple[Any, Any, Any]:
    """The optional lists of ``diagnose`` for the native module (``None``
    stays ``None``: none given)."""
    return (
        None if pods is None else _pods(pods),
        None if events is None else _objects(events, "events", "Event objects", "List/EventList"),
        None if related is None else _objects(related, "related", "objects", "List"),
    )


def _inputs(inputs: Any, what: str) -> Any:
    """Several inputs for the native module: each a list text (``str`` or
    ``bytes``, such as one page of a raw API list response), a list object
    (``PodList``, a dict or model), an object or a list of objects. One
    text, mapping or model alone is one input.

    An iterable that is not a list or tuple (a generator of pages, say) is
    not read here: its iterator goes to the native module, which takes one
    input at a time and reads it within the input limits, the objects of
    all of them together within ``maxClusterBytes`` (the engine's rule for
    several inputs), so an endless generator ends with a
    :class:`LimitError`. An exception the iterator raises is raised as it
    is."""
    if isinstance(inputs, (str, bytes, Mapping)) or _is_model(inputs):
        return [_object(inputs)]
    if isinstance(inputs, (list, tuple)):
        return [_object(i) for i in inputs]
    try:
        iterator = iter(inputs)
    except TypeError:
        raise TypeError(
            f"{what} must be list texts, list objects or objects (or an iterable of them), "
            f"not {type(inputs).__name__}"
        ) from None
    return _native.Iterated(map(_object, iterator))


def _queries(queries: Optional[Iterable[SourceQuery]]) -> Optional[str]:
    """The questions of a source map as JSON: paths (``str``) or mappings
    (``{"path", "document", "object", "component", "instance", "span",
    "expression", "nearest"}``)."""
    if queries is None:
        return None
    if isinstance(queries, (str, bytes, Mapping)):
        raise TypeError("queries must be an iterable of paths or mappings (one question: [query])")
    return _dumps(list(queries))


def _served(served: Any) -> str:
    """Served resources (``ApiResource`` dicts) as the JSON the engine reads."""
    if isinstance(served, (str, bytes)):
        return served.decode("utf-8", "replace") if isinstance(served, bytes) else served
    return _dumps(list(served))


# --- results ---------------------------------------------------------------


class Gvk(NamedTuple):
    """A group/version/kind (``group`` is ``""`` for the core group)."""

    group: str
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        """``group/version``, or ``version`` for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version


class UpdateResult(NamedTuple):
    """The result of an update: the new object (the input is not modified)
    and the RFC 6902 JSON Patch from the input to it."""

    object: Dict[str, Any]
    patch: List[Dict[str, Any]]


def _update_result(r: Dict[str, Any]) -> UpdateResult:
    return UpdateResult(r["object"], r["patch"])


# --- definitions ----------------------------------------------------------


class Definition:
    """A compiled workload definition: validate and compile once, then
    resolve any number of objects, from any number of threads (the engine
    runs without the GIL). Picklable (it is re-compiled from its JSON and
    limits), so it can be sent to process pools.

    ``source`` is YAML/JSON text (``str`` or ``bytes``), a ``dict``, or an
    ``os.PathLike`` (a ``str`` is always text; use :meth:`from_path` for a
    path given as ``str``). Limits are given as a mapping (``limits=``, the
    engine's camelCase names or snake_case) or as keyword arguments
    (``max_steps=...``).
    """

    __slots__ = ("_native", "_warnings")

    _native: Any
    _warnings: Optional[List[Dict[str, Any]]]

    def __init__(
        self,
        source: Source,
        *,
        limits: Optional[Mapping[str, int]] = None,
        **limit_options: int,
    ) -> None:
        s, lj = _source(source), _limits_json(limits, limit_options)
        # A dict (JSON, str) is compiled by the engine's compile_one_object,
        # which does not depend on the dict's key order; text (bytes) as read.
        self._native = _native.compile_one_object(s, lj) if isinstance(s, str) else _native.compile(s, lj)
        self._warnings = None

    @classmethod
    def from_path(
        cls,
        path: Union[str, "os.PathLike[str]"],
        *,
        limits: Optional[Mapping[str, int]] = None,
        **limit_options: int,
    ) -> Definition:
        """Read and compile the one definition of a YAML/JSON file."""
        return cls(_read(path), limits=limits, **limit_options)

    @classmethod
    def _wrap(cls, native: Any) -> Definition:
        d = cls.__new__(cls)
        d._native = native
        d._warnings = None
        return d

    def _info(self) -> Dict[str, Any]:
        r: Dict[str, Any] = _loads(self._native.info())
        return r

    @property
    def name(self) -> str:
        """``metadata.name`` of the definition."""
        return str(self._info()["name"])

    @property
    def origin(self) -> str:
        """``"catalog"`` (bundled) or ``"user"``."""
        return str(self._info()["origin"])

    @property
    def gvk(self) -> Gvk:
        """The root group/version/kind: the type this definition describes."""
        g = self._info()["gvk"]
        return Gvk(g["group"], g["version"], g["kind"])

    @property
    def components(self) -> List[str]:
        """Component names, root first."""
        return list(self._info()["components"])

    @property
    def can_suspend(self) -> bool:
        """Whether the definition has suspend/resume actions."""
        return bool(self._info()["canSuspend"])

    @property
    def warnings(self) -> List[Dict[str, Any]]:
        """Validation warnings (unknown fields and the like)."""
        if self._warnings is not None:
            return list(self._warnings)
        return list(self._info()["warnings"])

    @property
    def limits(self) -> Dict[str, int]:
        """The limits this definition evaluates with (camelCase names)."""
        return dict(self._info()["limits"])

    def to_dict(self) -> Dict[str, Any]:
        """The definition as read (the engine's model of it, as JSON)."""
        r: Dict[str, Any] = _loads(self._native.definition_json())
        return r

    def resolve(self, obj: Any, pods: Any = None) -> Dict[str, Any]:
        """Resolve an object (dict, YAML/JSON text or kubernetes model) into
        the resolved structure; with ``pods``, including the live state."""
        o, p = _object(obj), None if pods is None else _pods(pods)
        r: Dict[str, Any] = self._native.resolve(o, p)
        return r

    def diagnose(self, obj: Any, pods: Any = None, *, events: Any = None, related: Any = None) -> Diagnosis:
        """Why the workload is where it is (pending, degraded, suspended, not
        progressing): ``{"workload", "statuses", "findings"}``, the findings
        ranked (what blocks the workload first, then warnings, then
        information), each with a stable ``code`` (``"unschedulable"``,
        ``"crash-loop"``, ...), ``severity``, ``message``, ``evidence``
        (``object``, ``field``, ``text``, ``time``; at most 5, the rest
        counted in ``moreEvidence``) and, when clear, ``action``.

        ``pods``: the pods of the workload's namespace and the owners their
        controller chains go through (another workload's pods are left out,
        as :meth:`Catalog.resolve_in_namespace` does); ``events``: ``Event``
        objects (core/v1 or events.k8s.io/v1; those of other objects are
        ignored); ``related``: related objects (Kueue ``Workload`` objects;
        others are ignored). Each is an iterable of objects (dicts or
        kubernetes models), a list object or YAML/JSON text, as ``pods`` of
        :meth:`resolve`. Every pod, event and related object read counts
        against the ``maxSteps`` limit. Shape:
        ``docs/diagnosis.schema.json``."""
        o = _object(obj)
        p, e, rel = _diagnose_args(pods, events, related)
        r: Diagnosis = self._native.diagnose(o, p, e, rel)
        return r

    def status(self, obj: Any) -> Optional[Dict[str, Any]]:
        """Only the root status of an object (``None`` when the definition
        has no status definition)."""
        r: Optional[Dict[str, Any]] = self._native.status(_object(obj))
        return r

    def explain_status(self, obj: Any) -> Dict[str, Any]:
        """Why the object has its status: the phase and conditions found and,
        for each status category in evaluation order, every matcher with its
        ``outcome`` (``matched``, ``notMatched``, ``error``, ``skipped``) and
        each criterion with a ``reason``. ``matchedStatuses`` is what
        :meth:`resolve` reports; an evaluation error is returned under
        ``error`` (not raised). Shape: ``docs/status-explanation.schema.json``."""
        r: Dict[str, Any] = self._native.explain_status(_object(obj))
        return r

    def update(self, obj: Any, request: Mapping[str, Any]) -> UpdateResult:
        """Write values through the definition's paths. ``request`` is
        ``{"mode": "replace"|"merge", "components": {NAME: {"podTemplateSpecs"|
        "podSpecs"|"podMetadata"|"fragments": {INSTANCE_ID: value}}}}``.
        By default each value replaces what is at its place; with
        ``"mode": "merge"`` it is merged into it (RFC 7396 JSON merge patch;
        lists of named maps such as containers merge by name). The object
        keeps its key order; the patch holds only what changed."""
        if not isinstance(request, Mapping):
            raise TypeError(f"request must be a mapping, not {type(request).__name__}")
        return _update_result(self._native.update(_object(obj), request))

    def suspend(self, obj: Any) -> UpdateResult:
        """Apply the definition's suspend actions."""
        return _update_result(self._native.suspend(_object(obj)))

    def resume(self, obj: Any) -> UpdateResult:
        """Apply the definition's resume actions."""
        return _update_result(self._native.resume(_object(obj)))

    def attribute_pods(self, obj: Any, pods: Any) -> Dict[str, Any]:
        """Place pods under components and instances (``obj``, the workload,
        may be ``None``): ``{"pods": [...], "unattributed": [...]}``, plus
        ``"stray": [...]`` (names of pods that are not the workload's) when
        there are any. Items that are not Pods are owners, used to follow
        controller chains."""
        o = None if obj is None else _object(obj)
        r: Dict[str, Any] = self._native.attribute_pods(o, _pods(pods))
        return r

    def gang_groups(self, obj: Any, pods: Any) -> Dict[str, Any]:
        """Gang-scheduling groups of the workload's pods:
        ``{"groups": [...], "pods": [...]}`` (both empty when the definition
        has no gang instructions)."""
        r: Dict[str, Any] = self._native.gang_groups(_object(obj), _pods(pods))
        return r

    def source_map(self, text: Union[str, bytes], queries: Optional[Iterable[SourceQuery]] = None) -> SourceMap:
        """:func:`source_map` of a text, with, for each object this
        definition covers, where each component instance's pod template is
        (``podTemplates``); a question may name a ``component`` (and
        ``instance``) and a path in its pod template, as errors of
        :meth:`resolve` do (``location["objectPath"]``)."""
        r: SourceMap = _loads(self._native.source_map(_text(text, "text"), _queries(queries)))
        return r

    def gang_groups_pages(self, obj: Any, pages: Iterable[Any]) -> GangReport:
        """:meth:`gang_groups` with the pods (and their owners) given as
        several inputs, such as the raw pages of list responses."""
        r: GangReport = self._native.gang_groups_pages(_object(obj), _inputs(pages, "pages"))
        return r

    def gang_structure(self) -> GangStructure:
        """The structure gang scheduling works on (the reference's structure
        summary): ``components`` (root first, then the children in definition
        order), ``leaves`` (components with a pod definition), ``parents``
        (child -> owner), ``children`` (component -> children, in definition
        order), ``hasScaleDefinition`` and, with ``gangScheduling`` only,
        ``candidates``: per component, the pod-group members a pod of it
        tries, its own first, then each ancestor's, nearest first."""
        r: GangStructure = self._native.gang_structure()
        return r

    def subtree_scale(self, obj: Any, component: str, instance: Optional[str] = None) -> int:
        """The subtree scale (gang minimum members) of ``component`` of the
        object, of its instance ``instance`` when given: the reference's
        ``CalculateSubtreeScale``. A ``UsageError`` for an unknown component,
        an instance the component does not have, or ``instance=""``."""
        c = _name(component, "component")
        i = None if instance is None else _name(instance, "instance")
        return int(self._native.subtree_scale(_object(obj), c, i))

    def __reduce__(self) -> Tuple[Any, Tuple[str, str, str, str]]:
        info = self._info()
        warnings = info["warnings"] if self._warnings is None else self._warnings
        return (
            _rebuild_definition,
            (self._native.definition_json(), _dumps(info["limits"]), info["origin"], _dumps(warnings)),
        )

    def __repr__(self) -> str:
        info = self._info()
        g = Gvk(**info["gvk"])
        return f"<Definition {info['name']} ({g.api_version} {g.kind}, {info['origin']})>"


def _rebuild_catalog(bundled: bool, limits: str, definitions: List[Definition]) -> "Catalog":
    c = Catalog(bundled=bundled, limits=_loads(limits))
    for d in definitions:
        c.add(d)
    return c


def _rebuild_definition(definition: str, limits: str, origin: str, warnings: str) -> Definition:
    d = Definition._wrap(_native.rebuild(definition, limits, origin))
    # Warnings found when the definition was first read (unknown fields,
    # positions) are not in its JSON: keep them.
    d._warnings = _loads(warnings)
    return d


def _single(x: Any) -> bool:
    return isinstance(x, (str, bytes, Mapping, os.PathLike, Definition))


#: A reply to a request of the cluster protocol: ``(status, body)`` when the
#: server answered (the body as ``bytes`` or ``str``), ``(None, message)``
#: when it could not be reached.
Reply = Tuple[Optional[int], Union[bytes, str]]


class ClusterSession:
    """One operation of the engine's cluster protocol (``docs/api.md``): the
    engine says which requests to make and what the replies mean; the
    caller only makes plain GETs (``Accept: application/json``) with its
    own Kubernetes client::

        session = catalog.cluster_session({"list": {"type": "jobsets", "namespace": "ml"}})
        while paths := session.requests():
            session.feed([get(path) for path in paths])   # (status, body) or (None, error)
        listing = session.finish()

    A failure that ends the operation is raised by :meth:`feed` and
    :meth:`finish` (an :class:`ApiError` subclass, with ``status`` and the
    failed request in ``location["request"]``); what the operation can do
    without comes back as ``warnings``."""

    __slots__ = ("_native",)

    _native: Any

    def requests(self) -> List[str]:
        """The paths (with their query) to GET now, all at once if you
        like; empty when the operation is over."""
        return [str(r["path"]) for r in _loads(self._native.requests())]

    def feed(self, replies: Iterable[Reply]) -> None:
        """The replies to :meth:`requests`, in their order."""
        items: List[Dict[str, Any]] = []
        for reply in replies:
            status, body = reply
            text = body.decode("utf-8", "replace") if isinstance(body, (bytes, bytearray)) else str(body)
            items.append({"error": text} if status is None else {"status": int(status), "body": text})
        self._native.feed(_dumps(items))

    def finish(self) -> Dict[str, Any]:
        """The outcome: ``{served, warnings}`` (discover); ``{workloads,
        warnings, forbidden, types, resourceVersions, namespace?, served}``
        (list); ``{object, resolved, gang, warnings, resource, served}``
        (describe)."""
        r: Dict[str, Any] = self._native.finish()
        return r


class Catalog:
    """A set of definitions keyed by root GVK (an engine, as
    ``workload_lens_binding::engine`` builds it): the bundled catalog
    (``bundled=True``, the default) plus your own. A definition added later
    replaces one with the same root GVK, so yours override bundled ones.
    ``limits`` (camelCase names, as :func:`limits` takes them) bound what it
    does, the bundled definitions' compilation too. Safe to share between
    threads."""

    __slots__ = ("_native",)

    def __init__(
        self,
        definitions: Union[Iterable[Union[Definition, Source]], Definition, Source] = (),
        *,
        bundled: bool = True,
        limits: Optional[Mapping[str, int]] = None,
    ) -> None:
        if not isinstance(bundled, bool):
            raise TypeError(f"bundled must be bool, not {type(bundled).__name__}")
        self._native = _native.Catalog(bundled, _limits_json(limits, {}))
        items: Iterable[Any] = [definitions] if _single(definitions) else cast(Iterable[Any], definitions)
        for d in items:
            self.add(d)

    def add(
        self,
        definition: Union[Definition, Source],
        *,
        limits: Optional[Mapping[str, int]] = None,
        **limit_options: int,
    ) -> None:
        """Add a compiled :class:`Definition`, or every definition of a
        source (text, dict or os.PathLike; compiled with the given limits)."""
        if isinstance(definition, Definition):
            self._native.add(definition._native)
            return
        for n in _compile_all(definition, _limits_json(limits, limit_options)):
            self._native.add(n)

    def lookup(self, api_version: str, kind: str) -> Optional[Definition]:
        """The definition for an apiVersion (``group/version``) and kind:
        the exact GVK, else one for the same group and kind."""
        n = self._native.lookup(_name(api_version, "api_version"), _name(kind, "kind"))
        return None if n is None else Definition._wrap(n)

    def lookup_object(self, obj: Any) -> Definition:
        """The definition for an object, by its ``apiVersion`` and ``kind``
        (raises :class:`NoDefinitionError` when there is none)."""
        return Definition._wrap(self._native.lookup_object(_object(obj)))

    def get(self, name: str) -> Optional[Definition]:
        """A definition by name."""
        n = self._native.get(_name(name, "name"))
        return None if n is None else Definition._wrap(n)

    def definitions(self) -> List[Definition]:
        """Every definition, sorted by name."""
        return [Definition._wrap(n) for n in self._native.definitions()]

    def limits(self) -> Dict[str, int]:
        """The catalog's limits (camelCase names)."""
        r: Dict[str, int] = _loads(self._native.limits())
        return r

    def __reduce__(self) -> Tuple[Any, Tuple[bool, str, List[Definition]]]:
        # Rebuilt from its limits, the bundled catalog when it holds it, and
        # every other definition (pickled as definitions pickle): a worker
        # of a distributed engine compiles the catalog once.
        defs = self.definitions()
        bundled = any(d.origin == "catalog" for d in defs)
        own = [d for d in defs if d.origin != "catalog"]
        return (_rebuild_catalog, (bundled, self._native.limits(), own))

    def resolve(self, obj: Any, pods: Any = None) -> Dict[str, Any]:
        """Choose the definition by the object's GVK and resolve it (with
        ``pods``: including the live state)."""
        o, p = _object(obj), None if pods is None else _pods(pods)
        r: Dict[str, Any] = self._native.resolve(o, p)
        return r

    def diagnose(self, obj: Any, pods: Any = None, *, events: Any = None, related: Any = None) -> Diagnosis:
        """Choose the definition by the object's GVK and diagnose the
        workload (see :meth:`Definition.diagnose`)."""
        o = _object(obj)
        p, e, rel = _diagnose_args(pods, events, related)
        r: Diagnosis = self._native.diagnose(o, p, e, rel)
        return r

    def source_map(self, text: Union[str, bytes], queries: Optional[Iterable[SourceQuery]] = None) -> SourceMap:
        """:func:`source_map` of a text, with the pod templates of each
        object a definition of the catalog covers (see
        :meth:`Definition.source_map`)."""
        r: SourceMap = _loads(self._native.source_map(_text(text, "text"), _queries(queries)))
        return r

    def resolve_pages(self, obj: Any, pages: Iterable[Any]) -> Dict[str, Any]:
        """:meth:`resolve` with the pods (and the owners their controller
        chains go through) given as several inputs: the raw pages of list
        responses (``bytes``), list objects, or objects."""
        r: Dict[str, Any] = self._native.resolve_pages(_object(obj), _inputs(pages, "pages"))
        return r

    def resolve_in_namespace(self, obj: Any, items: Iterable[Any]) -> Resolved:
        """Resolve with every pod of the workload's namespace and the owners
        their controller chains go through (``items``: raw pages of list
        responses, list objects or objects), as a live-cluster front end
        reads them: pods whose controller chain leads to another workload
        are left out, except those that look like this workload's (its
        labels or selectors claim them), listed in ``strayPods``."""
        r: Resolved = _loads(self._native.resolve_in_namespace(_object(obj), _inputs(items, "items")))
        return r

    def find_type(self, token: str, served: Iterable[ApiResource]) -> ApiResource:
        """Which served resource a type token names, as ``kubectl get``
        reads one (a kind, plural, singular or short name, case-insensitive;
        ``plural.group``; ``kind.version.group``). Raises
        :class:`UsageError` for a token no served resource matches or an
        ambiguous one, :class:`NoDefinitionError` when no definition covers
        the type."""
        r: ApiResource = _loads(self._native.find_type(_name(token, "token"), _served(served)))
        return r

    def covered_types(self, served: Iterable[ApiResource]) -> List[ApiResource]:
        """The served resources a definition covers, one per group and kind
        (the preferred version), sorted by kind and group."""
        r: List[ApiResource] = _loads(self._native.covered_types(_served(served)))
        return r

    def with_cluster_definitions(self, objects: Any) -> Tuple["Catalog", List[ClusterDefinitionWarning]]:
        """A new catalog with the definitions stored in a cluster (Karta and
        ResourceInterface objects: list texts such as raw list responses,
        list objects or objects) over this one's, and the warnings about
        objects not used (``reason``: ``invalid`` or ``collision``).
        Definitions added to the new catalog afterwards replace them."""
        native, warnings = self._native.with_cluster_definitions(_inputs(objects, "objects"))
        c = Catalog.__new__(Catalog)
        c._native = native
        return c, cast(List[ClusterDefinitionWarning], _loads(warnings))

    def list_workloads(
        self,
        objects: Any,
        owners: Any = (),
        *,
        top_level_only: bool = False,
        phases: Iterable[str] = (),
    ) -> List[WorkloadSummary]:
        """One summary row per object (name, namespace, uid, apiVersion,
        kind, created, definition, origin, phase, statuses, pods, gpus,
        error), by namespace, then name. ``objects`` and ``owners`` are list texts
        (raw pages of list responses), list objects or objects. With
        ``top_level_only``, objects whose controller chain (followed by UID
        through objects and owners) holds a covered type are left out; with
        ``phases``, only workloads with one of those statuses are kept."""
        if isinstance(phases, (str, bytes)):
            raise TypeError("phases must be an iterable of str, not a single string")
        options = _dumps({"topLevelOnly": bool(top_level_only), "phases": list(phases)})
        r: List[WorkloadSummary] = _loads(
            self._native.list_workloads(_inputs(objects, "objects"), _inputs(owners, "owners"), options)
        )
        return r

    def cluster_session(
        self, operation: Union[str, Mapping[str, Any]], *, server: Optional[str] = None
    ) -> "ClusterSession":
        """Start one operation of the engine's cluster protocol with this
        catalog's definitions (the cluster's own are read and put over the
        bundled ones; yours stay on top). ``operation`` is ``"discover"``,
        ``{"list": ListQuery}``, ``{"describe": DescribeQuery}`` or
        ``{"definitions": {}}`` (the Karta and ResourceInterface objects in
        the cluster; camelCase fields: ``type``, ``name``, ``namespace``,
        ``labelSelector``, ``phases``, ``allTypes``, ``chunkSize``,
        ``served``); ``server``
        names the API server in messages. See :class:`ClusterSession`.
        Raises :class:`UsageError` for an operation it cannot read."""
        if server is not None and not isinstance(server, str):
            raise TypeError(f"server must be str, not {type(server).__name__}")
        s = ClusterSession.__new__(ClusterSession)
        s._native = self._native.cluster_session(_dumps(operation), server)
        return s

    def __len__(self) -> int:
        return int(len(self._native))

    def __iter__(self) -> Iterator[Definition]:
        return iter(self.definitions())

    def __repr__(self) -> str:
        return f"<Catalog of {len(self)} definitions>"


_bundled_catalog: Optional[Catalog] = None
_bundled_lock = threading.Lock()


def _bundled() -> Catalog:
    global _bundled_catalog
    with _bundled_lock:
        if _bundled_catalog is None:
            _bundled_catalog = Catalog()
        return _bundled_catalog


# --- functions ------------------------------------------------------------


def catalog() -> Catalog:
    """A new :class:`Catalog` holding the bundled definitions."""
    return Catalog()


def catalog_sources() -> Dict[str, str]:
    """The bundled definition files: file name -> YAML text."""
    r: Dict[str, str] = _loads(_native.catalog_sources())
    return r


def lookup(api_version: str, kind: str) -> Optional[Definition]:
    """The bundled definition for an apiVersion and kind."""
    return _bundled().lookup(api_version, kind)


def resolve(
    obj: Any,
    *,
    definitions: Union[Iterable[Union[Definition, Source]], Definition, Source, None] = None,
    pods: Any = None,
) -> Dict[str, Any]:
    """Resolve an object, choosing its definition by GVK from the bundled
    catalog plus ``definitions`` (which override bundled ones)."""
    c = _bundled() if definitions is None else Catalog(definitions)
    return c.resolve(obj, pods)


def diagnose(
    obj: Any,
    *,
    definitions: Union[Iterable[Union[Definition, Source]], Definition, Source, None] = None,
    pods: Any = None,
    events: Any = None,
    related: Any = None,
) -> Diagnosis:
    """Why a workload is where it is, its definition chosen by GVK from the
    bundled catalog plus ``definitions`` (which override bundled ones): see
    :meth:`Definition.diagnose`."""
    c = _bundled() if definitions is None else Catalog(definitions)
    return c.diagnose(obj, pods, events=events, related=related)


def compile(
    source: Source,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: int,
) -> Definition:
    """Compile the one definition of a source (as :class:`Definition`)."""
    return Definition(source, limits=limits, **limit_options)


def compile_all(
    source: Source,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: int,
) -> List[Definition]:
    """Compile every definition of a source (several YAML documents or a
    ``List``)."""
    return [Definition._wrap(n) for n in _compile_all(source, _limits_json(limits, limit_options))]


def validate(
    source: Source,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: int,
) -> List[Dict[str, Any]]:
    """Validate every definition of a source without failing on findings:
    one ``{"name", "valid", "gvk", "findings"}`` per definition (``gvk``,
    e.g. ``"jobset.x-k8s.io/v1alpha2, Kind=JobSet"``, when the definition
    could be read), the verdicts of the CLI's ``validate``. Text that cannot
    be read as definitions raises (e.g. :class:`ParseError`)."""
    r: List[Dict[str, Any]] = _loads(_native.validate(_source(source), _limits_json(limits, limit_options)))
    return r


def evaluate(
    expression: str,
    input: Any = None,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: int,
) -> List[Any]:
    """Run one jq expression on a JSON value with the engine's semantics
    (gojq-compatible, denied builtins rejected, bounded): every output.
    ``input`` is a JSON value (a ``str`` is a JSON string, not text)."""
    expr, lj = _text(expression, "expression"), _limits_json(limits, limit_options)
    r: List[Any] = _native.evaluate(expr, input, lj)
    return r


def parse(
    text: Union[str, bytes],
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: int,
) -> List[Any]:
    """Every document of a YAML/JSON text, read as the engine reads objects
    (empty documents are skipped)."""
    r: List[Any] = _loads(_native.parse(_text(text, "text"), _limits_json(limits, limit_options)))
    return r


def source_map(
    text: Union[str, bytes],
    queries: Optional[Iterable[SourceQuery]] = None,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: int,
) -> SourceMap:
    """Where things are in a YAML/JSON text, as the engine reads it:
    ``{"objects", "places"}``. ``objects`` is every object of the text
    (documents, list items, array elements, in the order the engine reads
    them) with its ``document``, ``path`` and ``value`` span; ``places`` has
    one answer per question, ``None`` when the path is not in the text. A
    question is a path (in the first document) or a mapping ``{"path", "document",
    "object", "span", "expression", "nearest"}``; the answer has the ``key`` and ``value``
    spans and, for ``span`` (a byte range of the string value, such as an
    error's ``location["span"]`` in its ``expression``), where that part is
    in the text. Positions are ``{"line", "column", "offset"}`` (1-based
    line and column in characters, 0-based byte offset)."""
    r: SourceMap = _loads(
        _native.source_map(_text(text, "text"), _queries(queries), _limits_json(limits, limit_options))
    )
    return r


def human_amounts(value: Any) -> HumanAmounts:
    """Every amount in a result (or several: a list of them), written for
    people by the engine's one rule: ``{"millicores": {"26500": "26.5"},
    "bytes": {"2000000000": "1.9Gi"}}``. The amounts are the fields the
    engine names (``cpuMillis``, ``memoryBytes``,
    ``ephemeralStorageBytes``); the results keep their exact numbers."""
    r: HumanAmounts = _loads(_native.human_amounts(value))
    return r


def limits(limits: Optional[Mapping[str, int]] = None, **limit_options: int) -> Dict[str, int]:
    """Complete, checked limits: the defaults overridden by ``limits`` (camelCase
    or snake_case names) and keyword arguments. Unknown names and values that
    are not non-negative integers raise :class:`UsageError`."""
    r: Dict[str, int] = _loads(_native.check_limits(_limits_json(limits, limit_options)))
    return r


def default_limits() -> Dict[str, int]:
    """The default limits (meant for untrusted input), camelCase names."""
    r: Dict[str, int] = _loads(_native.default_limits())
    return r


def missing_owners(
    items: Any, skip: Iterable[OwnerKind] = (), *, limits: Optional[Mapping[str, int]] = None
) -> List[OwnerKind]:
    """The controller owner kinds (``{"apiVersion", "kind"}``, sorted) that
    ``items`` (pods and the owners fetched so far: list texts such as raw
    list responses, list objects or objects) reference but do not hold,
    without those of ``skip``. Fetch those kinds and ask again (a few
    rounds) before resolving with pods: the engine attributes pods through
    their controller chains by UID. ``limits`` (camelCase or snake_case
    names) bound the reading of ``items``: each input within the input
    limits, their objects together within ``maxClusterBytes``."""
    skip_json = _dumps([{"apiVersion": k["apiVersion"], "kind": k["kind"]} for k in skip])
    r: List[OwnerKind] = _loads(
        _native.missing_owners(_inputs(items, "items"), skip_json, _limits_json(limits, {}))
    )
    return r


def usage(rows: Iterable[WorkloadSummary]) -> Usage:
    """GPU and pod totals of a listing (:meth:`Catalog.list_workloads`
    rows) by namespace and by type, and in total."""
    r: Usage = _loads(_native.usage(_dumps(list(rows))))
    return r
