// The error classes of workload-lens: one per engine error code.
// Shared by the native (napi) and the WASM builds.

/** Every error thrown by workload-lens. */
export class WorkloadLensError extends Error {
  /**
   * @param {string} message the engine's Display text (message, location, findings)
   * @param {{code?: string, location?: object, limit?: string, findings?: object[], detail?: string,
   *   status?: number, reason?: string, path?: string, server?: string, cause?: unknown}} [fields]
   */
  constructor(message, fields = {}) {
    super(message);
    Object.defineProperty(this, 'name', {
      value: new.target.name, enumerable: false, configurable: true, writable: true,
    });
    /** the stable engine error code (`parse`, `validation`, ..., `internal`) */
    this.code = fields.code ?? new.target.code;
    /** the message without the location */
    this.detail = fields.detail ?? message;
    /** where: the engine's location keys, only the known ones */
    this.location = fields.location ? { ...fields.location } : {};
    if (fields.limit !== undefined && fields.limit !== null) this.limit = fields.limit;
    if (Array.isArray(fields.findings) && fields.findings.length > 0) this.findings = fields.findings;
    if (fields.cause !== undefined) {
      Object.defineProperty(this, 'cause', {
        value: fields.cause, enumerable: false, configurable: true, writable: true,
      });
    }
    /** live clusters: the HTTP status, when the server answered */
    if (typeof fields.status === 'number') this.status = fields.status;
    /** live clusters: the Kubernetes Status reason (`Forbidden`, ...), when given */
    if (fields.reason) this.reason = fields.reason;
    /** live clusters: the request path */
    if (fields.path) this.path = fields.path;
    /** live clusters: the server's URL */
    if (fields.server) this.server = fields.server;
  }

  static code = 'internal';
}

/** Malformed YAML or JSON text, or a document of the wrong shape. */
export class ParseError extends WorkloadLensError { static code = 'parse'; }
/** The definition breaks a validation rule (see `findings`). */
export class ValidationError extends WorkloadLensError { static code = 'validation'; }
/** A jq expression does not parse or compile, or uses a denied construct. */
export class JqCompileError extends WorkloadLensError { static code = 'jq_compile'; }
/** A jq expression failed while running. */
export class JqRuntimeError extends WorkloadLensError { static code = 'jq_runtime'; }
/** An expression's output has the wrong type for its field. */
export class ConversionError extends WorkloadLensError { static code = 'conversion'; }
/** Per-instance outputs do not line up with the instance ids. */
export class CountMismatchError extends WorkloadLensError { static code = 'count_mismatch'; }
/** A configured limit was exceeded (see `limit`). */
export class LimitError extends WorkloadLensError { static code = 'limit'; }
/** No definition is known for the object's apiVersion/kind. */
export class NoDefinitionError extends WorkloadLensError { static code = 'no_definition'; }
/** The object is not a usable Kubernetes object. */
export class InvalidObjectError extends WorkloadLensError { static code = 'invalid_object'; }
/** An update could not be applied. */
export class UpdateError extends WorkloadLensError { static code = 'update'; }
/** The API was used incorrectly (bad argument, unknown component or limit). */
export class UsageError extends WorkloadLensError { static code = 'usage'; }
/** Live clusters: the server answered with another failure (a 5xx); the base
 * of every live-cluster error (`workload-lens/kube`'s ClusterError). */
export class ApiError extends WorkloadLensError { static code = 'api'; }
/** Live clusters: the server could not be reached (connection refused, DNS, TLS, timeout). */
export class UnreachableError extends ApiError { static code = 'unreachable'; }
/** Live clusters: the server refused the credentials (HTTP 401). */
export class UnauthorizedError extends ApiError { static code = 'unauthorized'; }
/** Live clusters: the credentials may not make this request (HTTP 403). */
export class ForbiddenError extends ApiError { static code = 'forbidden'; }
/** Live clusters: the object or type does not exist (HTTP 404). */
export class NotFoundError extends ApiError { static code = 'not_found'; }
/** Live clusters: no usable cluster configuration (kubeconfig, context). */
export class NoConfigError extends ApiError { static code = 'no_config'; }

const CLASSES = new Map(
  [ParseError, ValidationError, JqCompileError, JqRuntimeError, ConversionError, CountMismatchError,
    LimitError, NoDefinitionError, InvalidObjectError, UpdateError, UsageError, ApiError,
    UnreachableError, UnauthorizedError, ForbiddenError, NotFoundError, NoConfigError].map((c) => [c.code, c]),
);

/** The error object for a code (the base class for `internal` and unknown codes). */
export function makeError(code, message, fields = {}) {
  const Cls = CLASSES.get(code) ?? WorkloadLensError;
  return new Cls(message, { ...fields, code });
}

/** A usage error raised by the JS layer itself (bad argument). */
export function usage(message) {
  return new UsageError(message, { code: 'usage' });
}

/**
 * The error for what a raw backend threw: its message is the JSON of the
 * engine's error (see notes: raw interface). Anything else (a bug in the
 * layer or the binding) becomes code `internal`.
 */
export function fromRaw(e) {
  if (e instanceof WorkloadLensError) return e;
  const text = e instanceof Error ? e.message : String(e);
  if (typeof text === 'string' && text.startsWith('{')) {
    let p;
    try { p = JSON.parse(text); } catch { p = undefined; }
    if (p && typeof p === 'object' && typeof p.code === 'string') {
      const display = typeof p.display === 'string' ? p.display : String(p.message ?? p.code);
      return makeError(p.code, display, {
        detail: typeof p.message === 'string' ? p.message : display,
        location: p.location && typeof p.location === 'object' ? p.location : {},
        limit: p.limit ?? undefined,
        findings: Array.isArray(p.findings) ? p.findings : undefined,
        status: typeof p.status === 'number' ? p.status : undefined,
      });
    }
  }
  const err = makeError('internal', `internal error in workload-lens (please report it): ${text}`);
  err.cause = e;
  return err;
}
