"""The exceptions of workload_lens: one class per engine error code, named
as the engine names it (``workload_lens_binding::ops::free::error_codes``, exposed as
``_native.error_codes()``)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Type, cast

from . import _native

if TYPE_CHECKING:
    from .types import Finding, Location

__all__ = [
    "WorkloadLensError",
    "ParseError",
    "ValidationError",
    "JqCompileError",
    "JqRuntimeError",
    "ConversionError",
    "CountMismatchError",
    "LimitError",
    "NoDefinitionError",
    "InvalidObjectError",
    "UpdateError",
    "UsageError",
    "UnreachableError",
    "UnauthorizedError",
    "ForbiddenError",
    "NotFoundError",
    "ApiError",
    "NoConfigError",
]


class WorkloadLensError(Exception):
    """Every error of workload_lens.

    Attributes (copied verbatim from the engine's error):

    - ``code``: the stable error code (``"parse"``, ``"validation"``, ...; the
      subclass says the same); ``"internal"`` only for a bug in
      workload-lens itself.
    - ``message``: what went wrong, without the location.
    - ``location``: where (a dict with the engine's camelCase keys: ``field``,
      ``line``, ``column``, ``expression``, ``span``, ``component``,
      ``instance``, ``objectPath``, ``document``; only known parts are set).
    - ``limit``: for limit errors, the name of the limit (e.g. ``"maxSteps"``).
    - ``findings``: for validation errors, every finding.
    - ``status``: for live-cluster errors, the HTTP status the server
      answered with (``None`` when it did not answer, and for other errors).

    ``str(error)`` is the message with the location and the findings.
    """

    code: str = "internal"

    def __init__(
        self,
        message: str,
        *,
        code: Optional[str] = None,
        location: Optional[Mapping[str, Any]] = None,
        limit: Optional[str] = None,
        findings: Optional[Sequence[Mapping[str, Any]]] = None,
        text: Optional[str] = None,
        status: Optional[int] = None,
    ) -> None:
        super().__init__(text if text is not None else message)
        self.code = code if code is not None else type(self).code
        self.message: str = message
        self.location: Location = cast("Location", dict(location) if location else {})
        self.limit: Optional[str] = limit
        self.findings: List[Finding] = cast("List[Finding]", [dict(f) for f in findings] if findings else [])
        self.status: Optional[int] = status


class ParseError(WorkloadLensError):
    """Malformed YAML or JSON text, or a document of the wrong shape."""

    code = "parse"


class ValidationError(WorkloadLensError):
    """The definition breaks a validation rule (see ``findings``)."""

    code = "validation"


class JqCompileError(WorkloadLensError):
    """A jq expression does not parse or compile, or uses a denied construct."""

    code = "jq_compile"


class JqRuntimeError(WorkloadLensError):
    """A jq expression failed while running."""

    code = "jq_runtime"


class ConversionError(WorkloadLensError):
    """An expression's output has the wrong type for its field."""

    code = "conversion"


class CountMismatchError(WorkloadLensError):
    """Per-instance outputs do not line up with the instance ids."""

    code = "count_mismatch"


class LimitError(WorkloadLensError):
    """A configured limit was exceeded (see ``limit``)."""

    code = "limit"


class NoDefinitionError(WorkloadLensError):
    """No definition is known for the object's apiVersion/kind."""

    code = "no_definition"


class InvalidObjectError(WorkloadLensError):
    """The object is not a usable Kubernetes object."""

    code = "invalid_object"


class UpdateError(WorkloadLensError):
    """An update could not be applied."""

    code = "update"


class UsageError(WorkloadLensError):
    """The API was used incorrectly (unknown component, bad argument)."""

    code = "usage"


class ApiError(WorkloadLensError):
    """Live clusters: the server answered with another failure (a 5xx, an
    answer that is not what was asked for). The base class of every
    live-cluster error (``workload_lens.kube.ClusterError``)."""

    code = "api"


class UnreachableError(ApiError):
    """Live clusters: the API server could not be reached (connection
    refused, DNS, TLS, timeout)."""

    code = "unreachable"


class UnauthorizedError(ApiError):
    """Live clusters: the server refused the credentials (HTTP 401)."""

    code = "unauthorized"


class ForbiddenError(ApiError):
    """Live clusters: the credentials may not make this request (HTTP 403)."""

    code = "forbidden"


class NotFoundError(ApiError):
    """Live clusters: the object or type does not exist (HTTP 404)."""

    code = "not_found"


class NoConfigError(ApiError):
    """Live clusters: no usable cluster configuration (kubeconfig, context)."""

    code = "no_config"


def _classes() -> Dict[str, Type[WorkloadLensError]]:
    """Error code -> class, from the engine's list of codes and class names
    (``workload_lens_binding::ops::free::error_codes``). A code whose class this module
    lacks falls back to :class:`WorkloadLensError`; tests/test_errors.py
    checks that the classes and the engine's list match exactly."""
    out: Dict[str, Type[WorkloadLensError]] = {}
    for entry in json.loads(_native.error_codes()):
        cls = globals().get(entry["class"])
        if isinstance(cls, type) and issubclass(cls, WorkloadLensError) and cls.code == entry["code"]:
            out[entry["code"]] = cls
    return out


_CLASSES: Dict[str, Type[WorkloadLensError]] = _classes()


def _make(code: str, message: str, **kw: Any) -> WorkloadLensError:
    cls = _CLASSES.get(code, WorkloadLensError)
    return cls(message, code=code, **kw)


def _from_native(payload: str, text: str) -> WorkloadLensError:
    """The exception for an engine error serialized as JSON (called by the
    native module)."""
    try:
        e = json.loads(payload)
    except ValueError:
        e = {"code": "internal", "message": text}
    return _make(
        str(e.get("code", "internal")),
        str(e.get("message", text)),
        location=e.get("location"),
        limit=e.get("limit"),
        findings=e.get("findings"),
        text=text,
        status=e.get("status"),
    )
