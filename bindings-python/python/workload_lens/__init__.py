"""workload-lens for Python: resolve Kubernetes AI workloads (JobSet,
PyTorchJob, RayCluster, LeaderWorkerSet, ...) through declarative Workload Map
definitions into one structure: components, instances, replicas, pod
templates, resources and status.

A thin binding of the Rust engine: results are plain dicts and lists in the
engine's canonical JSON shape, errors are :class:`WorkloadLensError`
subclasses, one per engine error code. See the package README.
"""

from . import _native, types
from ._api import (
    Catalog,
    ClusterSession,
    Definition,
    Gvk,
    UpdateResult,
    catalog,
    catalog_sources,
    compile,
    compile_all,
    default_limits,
    diagnose,
    evaluate,
    human_amounts,
    limits,
    lookup,
    missing_owners,
    parse,
    resolve,
    source_map,
    usage,
    validate,
)
from ._errors import (
    ConversionError,
    CountMismatchError,
    InvalidObjectError,
    JqCompileError,
    JqRuntimeError,
    LimitError,
    NoDefinitionError,
    ParseError,
    UpdateError,
    UsageError,
    ValidationError,
    WorkloadLensError,
    ApiError,
    UnreachableError,
    UnauthorizedError,
    ForbiddenError,
    NotFoundError,
    NoConfigError,
)

__version__: str = _native.__version__

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
    "ValidationError",
    "WorkloadLensError",
    "ApiError",
    "UnreachableError",
    "UnauthorizedError",
    "ForbiddenError",
    "NotFoundError",
    "NoConfigError",
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
