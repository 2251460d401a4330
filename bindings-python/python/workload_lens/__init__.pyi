"""Type stubs of workload_lens (checked against the built module with
mypy.stubtest)."""

import os
from typing import Any, Dict, Iterable, Iterator, List, Literal, Mapping, NamedTuple, Optional, Tuple, Union

from typing_extensions import Unpack

from . import types as types
from .types import (
    JSON,
    ApiResource,
    ClusterDefinitionWarning,
    Diagnosis,
    Finding,
    GangReport,
    GangStructure,
    HumanAmounts,
    KubeObject,
    KubeObjects,
    LimitOptions,
    Limits,
    OwnerKind,
    Pods,
    Resolved,
    Source,
    SourceMap,
    SourceQuery,
    Usage,
    ValidationResult,
    WorkloadSummary,
)

from ._errors import ConversionError as ConversionError
from ._errors import CountMismatchError as CountMismatchError
from ._errors import InvalidObjectError as InvalidObjectError
from ._errors import JqCompileError as JqCompileError
from ._errors import JqRuntimeError as JqRuntimeError
from ._errors import LimitError as LimitError
from ._errors import NoDefinitionError as NoDefinitionError
from ._errors import ParseError as ParseError
from ._errors import UpdateError as UpdateError
from ._errors import UsageError as UsageError
from ._errors import ApiError as ApiError
from ._errors import UnreachableError as UnreachableError
from ._errors import UnauthorizedError as UnauthorizedError
from ._errors import ForbiddenError as ForbiddenError
from ._errors import NotFoundError as NotFoundError
from ._errors import NoConfigError as NoConfigError
from ._errors import ValidationError as ValidationError
from ._errors import WorkloadLensError as WorkloadLensError

__version__: str

__all__ = [
    "Catalog",
    "ClusterSession",
    "ConversionError",
    "CountMismatchError",
    "Definition",
    "Gvk",
    "InvalidObjectError",
    "JqCompileError",
    "JqRuntimeError",
    "LimitError",
    "NoDefinitionError",
    "ParseError",
    "UpdateError",
    "UpdateResult",
    "UsageError",
    "ApiError",
    "UnreachableError",
    "UnauthorizedError",
    "ForbiddenError",
    "NotFoundError",
    "NoConfigError",
    "ValidationError",
    "WorkloadLensError",
    "__version__",
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

class Gvk(NamedTuple):
    """A group/version/kind (`group` is "" for the core group)."""

    group: str
    version: str
    kind: str
    @property
    def api_version(self) -> str: ...

class UpdateResult(NamedTuple):
    """The new object and the RFC 6902 JSON Patch from the input to it."""

    object: Dict[str, Any]
    patch: List[Dict[str, Any]]

class Definition:
    """A compiled workload definition (reusable, thread-safe, picklable)."""

    def __init__(
        self,
        source: Source,
        *,
        limits: Optional[Mapping[str, int]] = None,
        **limit_options: Unpack[LimitOptions],
    ) -> None: ...
    @classmethod
    def from_path(
        cls,
        path: Union[str, "os.PathLike[str]"],
        *,
        limits: Optional[Mapping[str, int]] = None,
        **limit_options: Unpack[LimitOptions],
    ) -> Definition: ...
    @property
    def name(self) -> str: ...
    @property
    def origin(self) -> Literal["catalog", "user", "cluster"]: ...
    @property
    def gvk(self) -> Gvk: ...
    @property
    def components(self) -> List[str]: ...
    @property
    def can_suspend(self) -> bool: ...
    @property
    def warnings(self) -> List[Finding]: ...
    @property
    def limits(self) -> Limits: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def resolve(self, obj: KubeObject, pods: Optional[Pods] = None) -> Resolved: ...
    def diagnose(
        self,
        obj: KubeObject,
        pods: Optional[Pods] = None,
        *,
        events: Optional[KubeObjects] = None,
        related: Optional[KubeObjects] = None,
    ) -> Diagnosis: ...
    def status(self, obj: KubeObject) -> Optional[Dict[str, Any]]: ...
    def explain_status(self, obj: KubeObject) -> Dict[str, Any]: ...
    def update(self, obj: KubeObject, request: Mapping[str, Any]) -> UpdateResult: ...
    def suspend(self, obj: KubeObject) -> UpdateResult: ...
    def resume(self, obj: KubeObject) -> UpdateResult: ...
    def attribute_pods(self, obj: Optional[KubeObject], pods: Pods) -> Dict[str, Any]: ...
    def gang_groups(self, obj: KubeObject, pods: Pods) -> Dict[str, Any]: ...
    def source_map(self, text: Union[str, bytes], queries: Optional[Iterable[SourceQuery]] = None) -> SourceMap: ...
    def gang_groups_pages(self, obj: KubeObject, pages: Iterable[Any]) -> GangReport: ...
    def gang_structure(self) -> GangStructure: ...
    def subtree_scale(self, obj: KubeObject, component: str, instance: Optional[str] = None) -> int: ...
    def __reduce__(self) -> Tuple[Any, Tuple[str, str, str, str]]: ...

class Catalog:
    """Definitions keyed by root GVK: the bundled catalog plus your own."""

    def __init__(
        self,
        definitions: Union[Iterable[Union[Definition, Source]], Definition, Source] = (),
        *,
        bundled: bool = True,
        limits: Optional[Mapping[str, int]] = None,
    ) -> None: ...
    def add(
        self,
        definition: Union[Definition, Source],
        *,
        limits: Optional[Mapping[str, int]] = None,
        **limit_options: Unpack[LimitOptions],
    ) -> None: ...
    def lookup(self, api_version: str, kind: str) -> Optional[Definition]: ...
    def lookup_object(self, obj: KubeObject) -> Definition: ...
    def get(self, name: str) -> Optional[Definition]: ...
    def definitions(self) -> List[Definition]: ...
    def limits(self) -> Dict[str, int]: ...
    def __reduce__(self) -> Tuple[Any, Tuple[bool, str, List[Definition]]]: ...
    def resolve(self, obj: KubeObject, pods: Optional[Pods] = None) -> Resolved: ...
    def diagnose(
        self,
        obj: KubeObject,
        pods: Optional[Pods] = None,
        *,
        events: Optional[KubeObjects] = None,
        related: Optional[KubeObjects] = None,
    ) -> Diagnosis: ...
    def source_map(self, text: Union[str, bytes], queries: Optional[Iterable[SourceQuery]] = None) -> SourceMap: ...
    def resolve_pages(self, obj: KubeObject, pages: Iterable[Any]) -> Resolved: ...
    def resolve_in_namespace(self, obj: KubeObject, items: Iterable[Any]) -> Resolved: ...
    def find_type(self, token: str, served: Iterable[ApiResource]) -> ApiResource: ...
    def covered_types(self, served: Iterable[ApiResource]) -> List[ApiResource]: ...
    def with_cluster_definitions(self, objects: Any) -> Tuple[Catalog, List[ClusterDefinitionWarning]]: ...
    def list_workloads(
        self,
        objects: Any,
        owners: Any = (),
        *,
        top_level_only: bool = False,
        phases: Iterable[str] = (),
    ) -> List[WorkloadSummary]: ...
    def cluster_session(
        self, operation: Union[str, Mapping[str, Any]], *, server: Optional[str] = None
    ) -> ClusterSession: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Definition]: ...

class ClusterSession:
    """One operation of the engine's cluster protocol: make its requests, feed the replies, finish."""

    def requests(self) -> List[str]: ...
    def feed(self, replies: Iterable[Tuple[Optional[int], Union[bytes, str]]]) -> None: ...
    def finish(self) -> Dict[str, Any]: ...

def catalog() -> Catalog: ...
def catalog_sources() -> Dict[str, str]: ...
def lookup(api_version: str, kind: str) -> Optional[Definition]: ...
def resolve(
    obj: KubeObject,
    *,
    definitions: Union[Iterable[Union[Definition, Source]], Definition, Source, None] = None,
    pods: Optional[Pods] = None,
) -> Resolved: ...
def diagnose(
    obj: KubeObject,
    *,
    definitions: Union[Iterable[Union[Definition, Source]], Definition, Source, None] = None,
    pods: Optional[Pods] = None,
    events: Optional[KubeObjects] = None,
    related: Optional[KubeObjects] = None,
) -> Diagnosis: ...
def compile(
    source: Source,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: Unpack[LimitOptions],
) -> Definition: ...
def compile_all(
    source: Source,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: Unpack[LimitOptions],
) -> List[Definition]: ...
def validate(
    source: Source,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: Unpack[LimitOptions],
) -> List[ValidationResult]: ...
def evaluate(
    expression: str,
    input: JSON = None,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: Unpack[LimitOptions],
) -> List[JSON]: ...
def parse(
    text: Union[str, bytes],
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: Unpack[LimitOptions],
) -> List[JSON]: ...
def source_map(
    text: Union[str, bytes],
    queries: Optional[Iterable[SourceQuery]] = None,
    *,
    limits: Optional[Mapping[str, int]] = None,
    **limit_options: Unpack[LimitOptions],
) -> SourceMap: ...
def human_amounts(value: JSON) -> HumanAmounts: ...
def limits(limits: Optional[Mapping[str, int]] = None, **limit_options: Unpack[LimitOptions]) -> Limits: ...
def default_limits() -> Limits: ...
def missing_owners(
    items: Any, skip: Iterable[OwnerKind] = (), *, limits: Optional[Mapping[str, int]] = None
) -> List[OwnerKind]: ...
def usage(rows: Iterable[WorkloadSummary]) -> Usage: ...
