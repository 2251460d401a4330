"""Types of workload_lens's arguments and results, for annotations:
``from workload_lens.types import Finding, KubeObject, Resolved``.

Results are plain dicts and lists; these TypedDicts describe their keys
(the engine's camelCase names). The engine's result types are generated from
its JSON Schemas (``_engine_types``, the schemas the Node package's
``engine.d.ts`` comes from); the argument types below are written by hand.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Mapping, Union

from typing import Protocol, TypedDict

from ._engine_types import (
    ApiResource,
    Attribution,
    ClusterDefinitionWarning,
    DefinitionVerdict,
    Diagnosis,
    DiagnosisFinding,
    EngineError,
    Evidence,
    Finding,
    GangCandidate,
    GangReport,
    GangStructure,
    HumanAmounts,
    Location,
    OwnerKind,
    PodTemplatePlace,
    SourceMap,
    SourceObject,
    SourcePlace,
    StatusExplanation,
    TextPosition,
    TextSpan,
    UpdateResult,
    Usage,
    UsageRow,
    WorkloadSummary,
)

__all__ = [
    "JSON",
    "ApiResource",
    "Attribution",
    "ClusterDefinitionWarning",
    "Diagnosis",
    "DiagnosisFinding",
    "ErrorInfo",
    "Evidence",
    "Finding",
    "GangCandidate",
    "GangReport",
    "GangStructure",
    "HumanAmounts",
    "KubeObject",
    "KubeObjects",
    "KubernetesModel",
    "LimitOptions",
    "Limits",
    "Location",
    "OwnerKind",
    "PodTemplatePlace",
    "Pods",
    "Resolved",
    "Source",
    "SourceMap",
    "SourceObject",
    "SourcePlace",
    "SourceQuery",
    "SourceQueryFields",
    "StatusExplanation",
    "TextPosition",
    "TextSpan",
    "UpdateResult",
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

#: Objects: an iterable of objects, a list object (``List``, ``PodList``,
#: ``EventList``, ...; a dict or kubernetes model), one object, or the YAML/JSON
#: text of any of these (several documents too), all read by the engine's one
#: reader of object lists (``diagnose``'s ``events`` and ``related``). An
#: iterable (a generator too) is read lazily, one object at a time, within
#: the input limits: an endless one ends with a ``LimitError``.
KubeObjects = Union[Iterable[KubeObject], KubeObject]

#: Pods: an iterable of pod objects, a ``PodList`` (dict or kubernetes model)
#: or the YAML/JSON text of pods (several documents, a ``List``/``PodList``, an
#: array), all read by the engine's one reader of object lists.
Pods = KubeObjects

#: A definition source: YAML/JSON text, a dict, or a file as ``os.PathLike``
#: (a ``str`` is always text; ``Definition.from_path`` takes a ``str`` path).
Source = Union[str, bytes, Mapping[str, Any], "os.PathLike[str]"]

#: A JSON value (as returned by ``evaluate`` and ``parse``).
JSON = Any


class SourceQueryFields(TypedDict, total=False):
    """A question to ``source_map``: where the value at ``path`` is, from the
    root of document ``document`` (by default the first), of object ``object`` (an
    index in ``objects``), or of the pod template of ``component``
    (``instance``) in that object (with a definition). ``span``: a byte
    range of the string value to find in the text (only when the value is
    ``expression``, when given: an error's ``location``); ``nearest``:
    answer with the nearest ancestor in the text when the path is not."""

    path: str
    document: int
    object: int
    component: str
    instance: str
    span: List[int]
    expression: str
    nearest: bool


#: A question to ``source_map``: a path (in the first document) or its fields.
SourceQuery = Union[str, SourceQueryFields]

#: The resolved structure (``docs/resolved.schema.json`` in the repository).
#: A plain dict type, as before the types were generated (code that annotates
#: results as ``Dict[str, Any]`` keeps type-checking); the generated
#: TypedDict is ``workload_lens._engine_types.Resolved``.
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
    max_cluster_bytes: int


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
    maxClusterBytes: int


class ValidationResult(DefinitionVerdict):
    """The verdict on one definition (as the CLI's ``validate`` gives it);
    ``gvk`` (e.g. ``"jobset.x-k8s.io/v1alpha2, Kind=JobSet"``) is absent when
    the definition could not be read. The generated ``DefinitionVerdict``."""


class ErrorInfo(EngineError):
    """An engine error as data (a listing row's ``error``). The generated
    ``EngineError``."""
