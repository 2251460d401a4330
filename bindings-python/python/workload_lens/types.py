"""Types of workload_lens's arguments and results, for annotations:
``from workload_lens.types import Finding, KubeObject, Resolved``.

Results are plain dicts and lists; these TypedDicts describe their keys
(the engine's camelCase names).
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Union

from typing import Literal, Protocol, TypedDict

__all__ = [
    "JSON",
    "ApiResource",
    "ClusterDefinitionWarning",
    "ErrorInfo",
    "Finding",
    "GangCandidate",
    "GangReport",
    "GangStructure",
    "KubeObject",
    "KubernetesModel",
    "LimitOptions",
    "Limits",
    "Location",
    "OwnerKind",
    "Pods",
    "Resolved",
    "Source",
    "Usage",
    "UsageRow",
    "ValidationResult",
    "WorkloadSummary",
]


class KubernetesModel(Protocol):
    """A model object of the official ``kubernetes`` client (``V1Pod``, ...),
    converted with ``ApiClient().sanitize_for_serialization``."""

    @property
    def openapi_types(self) -> Mapping[str, str]: ...

    @property
    def attribute_map(self) -> Mapping[str, str]: ...


#: A Kubernetes object: an API-shaped (camelCase) dict, the YAML/JSON text of
#: one object, or a ``kubernetes`` client model.
KubeObject = Union[Mapping[str, Any], str, bytes, KubernetesModel]

#: Pods: an iterable of pod objects, a ``PodList`` (dict or kubernetes model)
#: or the YAML/JSON text of pods (several documents, a ``List``/``PodList``, an
#: array), all read by the engine's one reader of object lists.
Pods = Union[Iterable[KubeObject], KubeObject]

#: A definition source: YAML/JSON text, a dict, or a file as ``os.PathLike``
#: (a ``str`` is always text; ``Definition.from_path`` takes a ``str`` path).
Source = Union[str, bytes, Mapping[str, Any], "os.PathLike[str]"]

#: A JSON value (as returned by ``evaluate`` and ``parse``).
JSON = Any

#: The resolved structure (``docs/resolved.schema.json`` in the repository).
Resolved = Dict[str, Any]


class LimitOptions(TypedDict, total=False):
    """Limits as keyword arguments (snake_case names)."""

    max_input_bytes: int
    max_depth: int
    max_input_nodes: int
    max_outputs: int
    max_steps: int
    max_memory_bytes: int
    max_string_bytes: int
    max_collection_len: int
    max_output_bytes: int
    max_expression_bytes: int
    max_expression_depth: int
    max_instances: int
    max_documents: int
    max_yaml_aliases: int


class Limits(TypedDict):
    """Complete limits, as ``limits()`` returns them (camelCase names)."""

    maxInputBytes: int
    maxDepth: int
    maxInputNodes: int
    maxOutputs: int
    maxSteps: int
    maxMemoryBytes: int
    maxStringBytes: int
    maxCollectionLen: int
    maxOutputBytes: int
    maxExpressionBytes: int
    maxExpressionDepth: int
    maxInstances: int
    maxDocuments: int
    maxYamlAliases: int


class Location(TypedDict, total=False):
    """Where something happened; only the known parts are present."""

    document: int
    field: str
    line: int
    column: int
    expression: str
    span: List[int]
    component: str
    instance: str
    objectPath: str


class _FindingRequired(TypedDict):
    code: str
    severity: Literal["error", "warning"]
    message: str


class Finding(_FindingRequired, total=False):
    """One validation finding (``location`` is absent when unknown)."""

    location: Location


class _ValidationResultRequired(TypedDict):
    name: str
    valid: bool
    findings: List[Finding]


class ValidationResult(_ValidationResultRequired, total=False):
    """The verdict on one definition (as the CLI's ``validate`` gives it);
    ``gvk`` (e.g. ``"jobset.x-k8s.io/v1alpha2, Kind=JobSet"``) is absent when
    the definition could not be read."""

    gvk: str


class GangCandidate(TypedDict):
    """A pod-group member that applies to a component (its own or an
    ancestor's), as ``Definition.gang_structure`` lists them."""

    podGroup: str
    member: str
    field: str
    filters: List[str]
    groupByKeyPaths: List[str]


class _GangStructureRequired(TypedDict):
    components: List[str]
    leaves: List[str]
    parents: Dict[str, str]
    children: Dict[str, List[str]]
    hasScaleDefinition: bool


class GangStructure(_GangStructureRequired, total=False):
    """The structure gang scheduling works on (``Definition.gang_structure``);
    ``candidates`` is present only with ``gangScheduling``."""

    candidates: Dict[str, List[GangCandidate]]


class GangReport(TypedDict):
    """Gang-scheduling groups of a workload's pods (``Definition.gang_groups``)."""

    groups: List[Dict[str, Any]]
    pods: List[Dict[str, Any]]


class ApiResource(TypedDict):
    """One resource type an API server serves, as discovery reports it
    (``group`` is ``""`` for the core group)."""

    group: str
    version: str
    kind: str
    plural: str
    singular: str
    shortNames: List[str]
    namespaced: bool
    preferred: bool


class ClusterDefinitionWarning(TypedDict):
    """A definition stored in the cluster that was not used."""

    reason: Literal["invalid", "collision"]
    object: str
    message: str


class _ErrorInfoRequired(TypedDict):
    code: str
    message: str


class ErrorInfo(_ErrorInfoRequired, total=False):
    """An engine error as data (a listing row's ``error``)."""

    location: Location
    limit: str
    findings: List[Finding]


class _WorkloadSummaryRequired(TypedDict):
    name: str
    apiVersion: str
    kind: str
    #: Normalized statuses: Resuming, Suspending, Suspended, Running, Failed,
    #: Completed, Initializing, Degraded or Undefined.
    statuses: List[str]
    pods: int
    gpus: int


class WorkloadSummary(_WorkloadSummaryRequired, total=False):
    """One workload of a listing (``Catalog.list_workloads``); optional keys
    are absent when unknown (``definition``/``origin`` when no definition
    covers the object, ``error`` when it resolved)."""

    namespace: str
    uid: str
    created: str
    definition: str
    origin: Literal["catalog", "user", "cluster"]
    phase: str
    error: ErrorInfo


class UsageRow(TypedDict):
    """GPUs and pods requested by a group of workloads (``key``: the
    namespace, ``Kind.group``, or ``""`` for the total)."""

    key: str
    workloads: int
    pods: int
    gpus: int
    errors: int


class Usage(TypedDict):
    """GPU and pod requests by namespace and by type, and in total."""

    byNamespace: List[UsageRow]
    byType: List[UsageRow]
    total: UsageRow


class OwnerKind(TypedDict):
    """An owner kind to fetch (``missing_owners``)."""

    apiVersion: str
    kind: str
