// TypeScript types of workload-lens (the same for the native and the WASM
// build). The result types (Resolved, Status, Finding, Location,
// Attribution, GangReport, UpdateResult, StatusExplanation, ...) are
// generated from the engine's JSON Schemas into ./types/engine.d.ts, and the
// tests regenerate and compare them; the hand-written types below (Limits,
// UpdateRequest, ...) are checked against the engine by the tests too.

import type {
  ApiResource,
  Attribution,
  ClusterDefinitionWarning,
  DefinitionVerdict,
  Diagnosis,
  ErrorCode,
  Finding,
  GangReport,
  GangStructure,
  HumanAmounts,
  Location,
  OwnerKind,
  PatchOp,
  Resolved,
  SourceMap,
  Status,
  StatusExplanation,
  UpdateResult,
  Usage,
  WorkloadSummary,
} from './types/engine.js';

export type * from './types/engine.js';

/** The codes of `workload-lens/kube`'s ClusterError (the CLI's reasons for
 * the same failures). */
export type ClusterErrorCode = 'unreachable' | 'unauthorized' | 'forbidden' | 'not_found' | 'no_config' | 'api';

/** Any JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A Kubernetes object as a plain object (or a @kubernetes/client-node model). */
export type KubeObject = { [key: string]: unknown };

/** A Kubernetes object, or YAML/JSON text of exactly one object. */
export type ObjectInput = KubeObject | string | Uint8Array;

/**
 * Pods: an array of pod objects, a list object (`{kind: 'List' | 'PodList', items}`), one pod, or YAML/JSON
 * text of any of these (several documents too). The engine reads them all with its one reader of object lists.
 */
export type Pods = KubeObject[] | KubeObject | string | Uint8Array;

/**
 * Objects: an array of objects, a list object (`{kind: 'List' | 'EventList' | ..., items}`), one object, or YAML/JSON
 * text of any of these (several documents too), read as pods are.
 */
export type KubeObjects = KubeObject[] | KubeObject | string | Uint8Array;

/** What `diagnose` reads besides the workload. */
export interface DiagnoseOptions {
  /**
   * The pods of the workload's namespace and the owners their controller chains go through (as `resolve` takes
   * pods); the pods of other workloads are left out.
   */
  pods?: Pods | null;
  /** Event objects (core/v1 or events.k8s.io/v1) of the workload, its pods and the owners between; others are ignored. */
  events?: KubeObjects | null;
  /** Related objects: Kueue Workloads the workload owns, gang schedulers' PodGroups and PodGangs it (or an owner between) owns or its pods name; others are ignored. */
  related?: KubeObjects | null;
}

/** A definition: YAML/JSON text (one or more documents) or the definition object. */
export type DefinitionSource = string | Uint8Array | KubeObject;

/** The engine's limits (camelCase), every one a non-negative integer. See docs/reliability.md. */
export interface Limits {
  maxInputBytes: number;
  maxDepth: number;
  maxInputNodes: number;
  maxOutputs: number;
  /** Units of work of one whole call, shared by everything it evaluates. */
  maxSteps: number;
  /** Bytes one whole call may allocate for the values it builds. */
  maxMemoryBytes: number;
  maxStringBytes: number;
  maxCollectionLen: number;
  /** Bytes of JSON all the expressions of one whole call may produce. */
  maxOutputBytes: number;
  maxExpressionBytes: number;
  maxExpressionDepth: number;
  maxInstances: number;
  maxDocuments: number;
  maxYamlAliases: number;
  /** Bytes one operation of the cluster protocol keeps from the server's answers, added up across pages. */
  maxClusterBytes: number;
}

/** Some limits; the others keep their defaults. An unknown name is a UsageError. */
export type LimitOptions = Partial<Limits>;

/** What to write, per component name and instance id (see docs/api.md, "Updates"). */
export interface UpdateRequest {
  /**
   * `replace` (the default): each value replaces what is at its place.
   * `merge`: each value is merged into what is there (RFC 7396 JSON merge
   * patch; lists of named maps, such as containers, merge by name).
   */
  mode?: 'replace' | 'merge';
  components?: {
    [component: string]: {
      /** Whole pod templates (`{metadata, spec}`), through `podTemplateSpecPath`. */
      podTemplateSpecs?: { [instance: string]: KubeObject };
      /** Whole pod specs, through `podSpecPath`. */
      podSpecs?: { [instance: string]: KubeObject };
      /** Pod metadata, through `metadataPath`. */
      podMetadata?: { [instance: string]: KubeObject };
      /** Fragment fields (`schedulerName`, `labels`, `resources`, ...), through the fragmented paths. */
      fragments?: { [instance: string]: { [field: string]: unknown } };
    };
  };
}

/**
 * A question to `sourceMap`: where the value at `path` is (the engine's spelling: `a.b[0]["x.y"]`), from the root
 * of document `document` (by default the first), of object `object` (an index of `objects`), or of the pod template of
 * `component` (`instance`) in that object (with a definition). `span`: a byte range `[start, end)` of the string
 * value (a jq error's `location.span`) to find in the text, answered only when the value is `expression` (when
 * given: the error's `location.expression`). `nearest`: answer with the nearest ancestor in the text when the path
 * is not there. A string is a path in the first document.
 */
export type SourceQuery =
  | string
  | {
      path: string;
      document?: number;
      object?: number;
      component?: string;
      instance?: string;
      span?: [number, number];
      expression?: string;
      nearest?: boolean;
    };

/** An RFC 6902 JSON Patch operation. */
export type JsonPatchOp = PatchOp;

/** The result of `validate`: the engine's verdict on one definition of the text (as the CLI's `validate`). */
export type ValidationResult = DefinitionVerdict;

/**
 * Objects given as several inputs: an array of YAML/JSON texts (each such as one page of a Kubernetes list
 * response, passed to the engine as it is), or one input: a list object, an array of objects, an object, or text.
 */
export type Items = Array<string | Uint8Array> | KubeObject[] | KubeObject | string | Uint8Array;

/** How `Catalog.listWorkloads` filters, and the owners it follows controller chains through. */
export interface ListWorkloadsOptions {
  /** Objects of types no definition covers (ReplicaSets, ...) through which controller chains are followed. */
  owners?: Items;
  /** Leave out objects whose controller-owner chain holds an object of a covered type (`get --all-types`). */
  topLevelOnly?: boolean;
  /** Keep only workloads with one of these matched statuses (case-insensitive; empty: all). */
  phases?: string[];
}

/** A group/version/kind and its apiVersion (`group/version`, or `version` for the core group). */
export interface DefinitionGvk {
  group: string;
  version: string;
  kind: string;
  apiVersion: string;
}

/**
 * Load the engine. WASM build: loads the module (no argument: the `.wasm`
 * file next to the package's browser.mjs); native build: resolves at once.
 */
export function init(
  input?: string | URL | Request | Response | Promise<Response> | BufferSource | WebAssembly.Module,
): Promise<void>;
/** Load the WASM module synchronously (native build: does nothing). */
export function initSync(input: BufferSource | WebAssembly.Module): void;

/** Resolve an object, choosing its definition by GVK from the bundled catalog plus `definitions`. */
export function resolve(
  obj: ObjectInput,
  options?: { definitions?: Array<Definition | DefinitionSource>; pods?: Pods; limits?: LimitOptions },
): Resolved;
/**
 * Why a workload is where it is, its definition chosen by GVK from the bundled catalog plus `definitions` (see
 * `Definition.diagnose`).
 * @throws TypeError for an option it does not know (a pod or a PodList given where the options go).
 */
export function diagnose(
  obj: ObjectInput,
  options?: DiagnoseOptions & { definitions?: Array<Definition | DefinitionSource>; limits?: LimitOptions },
): Diagnosis;
/** The bundled definition for an apiVersion and kind. */
export function lookup(apiVersion: string, kind: string): Definition | null;
/** The bundled definition files: file name -> YAML text. */
export function catalogSources(): Record<string, string>;
/** Compile the one definition of a source. */
export function compile(source: DefinitionSource, limits?: LimitOptions): Definition;
/** Compile every definition of a source. */
export function compileAll(source: DefinitionSource, limits?: LimitOptions): Definition[];
/** Validate every definition of a source without failing on findings. */
export function validate(source: DefinitionSource, limits?: LimitOptions): ValidationResult[];
/** Run one jq expression on a JSON value with the engine's semantics: every output. */
export function evaluate(expression: string, input?: unknown, limits?: LimitOptions): JsonValue[];
/** Every document of a YAML/JSON text, read as the engine reads objects. */
export function parse(text: string | Uint8Array, limits?: LimitOptions): JsonValue[];
/**
 * Where things are in a YAML/JSON text, as the engine reads it: every object of the text (documents, list items,
 * array elements) and one answer per question (`null` when the path is not in the text). Positions are 1-based
 * lines and columns (characters) and 0-based byte offsets.
 */
export function sourceMap(text: string | Uint8Array, queries?: SourceQuery[] | null, limits?: LimitOptions): SourceMap;
/**
 * Every amount of a result (or of an array of results), written for people by the engine's one rule (the CLI's):
 * `{millicores: {'26500': '26.5'}, bytes: {'2000000000': '1.9Gi'}}`. The amounts are the fields the engine names
 * (`cpuMillis`, `memoryBytes`, `ephemeralStorageBytes`).
 */
export function humanAmounts(value: unknown): HumanAmounts;
/** The defaults merged with `options`, checked. */
export function limits(options?: LimitOptions): Limits;
/** The default limits (meant for untrusted input). */
export function defaultLimits(): Limits;
/**
 * The controller owner kinds that `items` (pods and the owners fetched so far) reference but do not hold, without
 * those of `skip` (the workload's own kind): what to fetch next, in the workload's namespace, before resolving
 * with the pods and those owners (native build only).
 */
export function missingOwners(items: Items, skip?: OwnerKind[], limits?: LimitOptions): OwnerKind[];
/** GPU and pod totals of a listing (`Catalog.listWorkloads` rows) by namespace and by type (native build only). */
export function usage(rows: WorkloadSummary[]): Usage;
/** The package (and engine) version. */
export const version: string;
/** Which engine build this is. */
export const backend: 'native' | 'wasm';

/** A compiled workload definition: compile once, use for any number of objects. */
export class Definition {
  constructor(source: DefinitionSource, limits?: LimitOptions);
  /** `metadata.name`. */
  readonly name: string;
  /** `'catalog'` (bundled), `'user'`, or `'cluster'` (a Karta or ResourceInterface object of a cluster). */
  readonly origin: 'catalog' | 'user' | 'cluster';
  /** The root group/version/kind. */
  readonly gvk: DefinitionGvk;
  /** Component names, root first. */
  readonly components: string[];
  /** Whether the definition has suspend/resume actions. */
  readonly canSuspend: boolean;
  /** Validation warnings. */
  readonly warnings: Finding[];
  /** The limits it evaluates with. */
  readonly limits: Limits;
  /** The definition document (the engine's model of it). */
  toJSON(): { [key: string]: JsonValue };
  resolve(obj: ObjectInput, pods?: Pods): Resolved;
  /**
   * Why the workload is where it is (pending, degraded, suspended, not progressing): `{workload, statuses,
   * findings}`, the findings ranked (blocking first, then warnings, then information), each with a stable `code`
   * (`'unschedulable'`, `'crash-loop'`, ...), `severity`, `message`, `evidence` (at most 5; `moreEvidence` counts
   * the rest) and, when clear, `action`; from its pods (and their owners), events and related objects.
   * @throws TypeError for an option it does not know (a pod or a PodList given where the options go).
   */
  diagnose(obj: ObjectInput, options?: DiagnoseOptions): Diagnosis;
  /** The root status (`null` when the definition has no status definition). */
  status(obj: ObjectInput): Status | null;
  /** For each status category, which matcher matched or why not. */
  explainStatus(obj: ObjectInput): StatusExplanation;
  update(obj: ObjectInput, request: UpdateRequest): UpdateResult;
  suspend(obj: ObjectInput): UpdateResult;
  resume(obj: ObjectInput): UpdateResult;
  attributePods(obj: ObjectInput | null, pods: Pods): Attribution;
  /** The gang-scheduling groups of the pods: `{groups: [], pods: []}` when the definition has no gang scheduling instructions. */
  gangGroups(obj: ObjectInput, pods: Pods): GangReport;
  /**
   * The structure gang scheduling works on: components (root first), leaves, parents, children,
   * `hasScaleDefinition` and, with gang scheduling instructions only, each component's `candidates`
   * (its own members first, then each ancestor's, nearest first).
   */
  gangStructure(): GangStructure;
  /**
   * The subtree scale (gang minimum members) of `component` of the object, of its instance `instance`
   * when given. A UsageError for an unknown component, an unknown instance or an instance `''`.
   */
  subtreeScale(obj: ObjectInput, component: string, instance?: string | null): number;
  /**
   * `sourceMap` of a text, with where each component instance's pod template is in each object this definition
   * covers (`podTemplates`); a question may name a `component` (and `instance`) and a path in its pod template, as
   * resolve's errors do (`location.objectPath`).
   */
  sourceMap(text: string | Uint8Array, queries?: SourceQuery[] | null): SourceMap;
}

/**
 * A set of definitions keyed by root GVK: the bundled catalog plus your own (yours win), with limits (for
 * reading objects and pods, and compiling the catalog and the sources added; default: the defaults).
 */
export class Catalog {
  constructor(options?: {
    definitions?: Array<Definition | DefinitionSource>;
    bundled?: boolean;
    limits?: LimitOptions;
  });
  /** Add a definition, or every definition of a source (compiled with `limits`, by default the catalog's). */
  add(definition: Definition | DefinitionSource, limits?: LimitOptions): void;
  lookup(apiVersion: string, kind: string): Definition | null;
  /** @throws NoDefinitionError when no definition covers the object. */
  lookupObject(obj: ObjectInput): Definition;
  get(name: string): Definition | null;
  definitions(): Definition[];
  /** `sourceMap` of a text, with the pod templates of each object a definition of the catalog covers. */
  sourceMap(text: string | Uint8Array, queries?: SourceQuery[] | null): SourceMap;
  /**
   * Resolve with the definition of the object's GVK; `pods` may also be an array of texts (the pages of list
   * responses) holding the pods and their owners, through which pods are attributed by controller chain.
   */
  resolve(obj: ObjectInput, pods?: Pods | Array<string | Uint8Array>): Resolved;
  /** `diagnose` with the definition of the object's GVK (see `Definition.diagnose`). */
  diagnose(obj: ObjectInput, options?: DiagnoseOptions): Diagnosis;
  /**
   * Resolve with every pod of the workload's namespace and their owners (e.g. the pages of their list responses):
   * the pods of other workloads are left out; those that look like this workload's (its labels or selectors) but
   * another object controls are listed in `strayPods` (native build only).
   */
  resolveInNamespace(obj: ObjectInput, items: Items): Resolved;
  /** The gang-scheduling groups of the workload's pods, with the definition of the object's GVK (native build only). */
  gangGroups(obj: ObjectInput, pods: Items): GangReport;
  /**
   * Which served resource a type token names: a kind, plural, singular or short name (case-insensitive),
   * `plural.group`, or `kind.version.group` (native build only).
   * @throws UsageError for a token no served resource matches, or an ambiguous one.
   * @throws NoDefinitionError when the type is served but no definition covers it.
   */
  findType(token: string, served: ApiResource[]): ApiResource;
  /** The served resources a definition covers, one per group and kind (native build only). */
  coveredTypes(served: ApiResource[]): ApiResource[];
  /**
   * A new catalog: this one's catalog, the definitions stored in a cluster over it (Karta and ResourceInterface
   * objects, e.g. the pages of their list responses), and this one's own definitions over those. Objects that do
   * not compile, or define a type another already did, are left out with a warning (native build only).
   */
  withClusterDefinitions(objects: Items): { catalog: Catalog; warnings: ClusterDefinitionWarning[] };
  /** One summary row per object, by namespace, then name (native build only). */
  listWorkloads(objects: Items, options?: ListWorkloadsOptions): WorkloadSummary[];
  /**
   * Start one operation of the engine's cluster protocol with this catalog's definitions (native build only).
   * `server` names the API server in messages.
   */
  clusterSession(operation: ClusterOperation, options?: { server?: string }): ClusterSession;
  readonly size: number;
  /** The catalog's limits. */
  readonly limits: Limits;
}

/** A query of the cluster protocol's `list` (what `get` and `top` read). */
export interface ClusterListQuery {
  /** A type token; absent: every covered type (top-level workloads only). */
  type?: string;
  name?: string;
  /** Absent: every namespace. */
  namespace?: string;
  labelSelector?: string;
  phases?: string[];
  allTypes?: boolean;
  /** Objects per list page (default 500; 0: one page). */
  chunkSize?: number;
  /** The served resources of an earlier discovery: discovery is skipped. */
  served?: ApiResource[];
  /** Do not read (nor warn about) the definitions stored in the cluster. */
  skipDefinitions?: boolean;
}
/** A query of the cluster protocol's `describe`. */
export interface ClusterDescribeQuery {
  type: string;
  name: string;
  namespace?: string;
  chunkSize?: number;
  served?: ApiResource[];
  skipDefinitions?: boolean;
}
/** A query of the cluster protocol's `definitions` (the Karta and ResourceInterface objects in the cluster). */
export interface ClusterDefinitionsQuery {
  chunkSize?: number;
  served?: ApiResource[];
}
/** An operation of the cluster protocol. */
export type ClusterOperation =
  | 'discover'
  | { list: ClusterListQuery }
  | { describe: ClusterDescribeQuery }
  | { definitions: ClusterDefinitionsQuery };
/** A reply to a request: the server's status and body, or no answer. */
export type ClusterReply = { status: number; body: string } | { error: string };

/**
 * One operation of the engine's cluster protocol: make every request of `requests()` (plain GETs of a path and
 * query), `feed` the replies in order, until `requests()` is empty; then `finish()`.
 */
export class ClusterSession {
  private constructor();
  /** The paths (with their query) to GET now; empty when the operation is over. */
  requests(): string[];
  /** The replies to `requests()`, in their order. Throws the error that ends the operation. */
  feed(replies: ClusterReply[]): void;
  /** The outcome (discovery, listing, description or definitions), or the error that ended the operation. */
  finish(): Record<string, unknown>;
}

/** Every error of workload-lens. `message` is the engine's display text (with the location). */
export class WorkloadLensError extends Error {
  constructor(
    message: string,
    fields?: {
      code?: string; location?: Location; limit?: string; findings?: Finding[]; detail?: string;
      status?: number; reason?: string; path?: string; server?: string; cause?: unknown;
    },
  );
  /** The stable error code (`internal` only for a bug in workload-lens). */
  readonly code: ErrorCode | 'internal' | ClusterErrorCode;
  /** The message without the location. */
  readonly detail: string;
  /** Where: the engine's location keys, only the known ones (`{}` when none). */
  readonly location: Location;
  /** For code `limit`: the limit's name, e.g. `maxSteps`. */
  readonly limit?: string;
  /** For code `validation`: every finding. */
  readonly findings?: Finding[];
  /** Live clusters: the HTTP status, when the server answered. */
  readonly status?: number;
  /** Live clusters: the Kubernetes Status reason (`Forbidden`, `NotFound`, ...), when given. */
  readonly reason?: string;
  /** Live clusters: the request path. */
  readonly path?: string;
  /** Live clusters: the server's URL. */
  readonly server?: string;
  static readonly code: string;
}
export class ParseError extends WorkloadLensError {}
export class ValidationError extends WorkloadLensError {}
export class JqCompileError extends WorkloadLensError {}
export class JqRuntimeError extends WorkloadLensError {}
export class ConversionError extends WorkloadLensError {}
export class CountMismatchError extends WorkloadLensError {}
export class LimitError extends WorkloadLensError {}
export class NoDefinitionError extends WorkloadLensError {}
export class InvalidObjectError extends WorkloadLensError {}
export class UpdateError extends WorkloadLensError {}
export class UsageError extends WorkloadLensError {}
/** Live clusters: another failure from the server (a 5xx); the base of every live-cluster error. */
export class ApiError extends WorkloadLensError { readonly code: ClusterErrorCode; }
/** Live clusters: the server could not be reached (connection refused, DNS, TLS, timeout). */
export class UnreachableError extends ApiError {}
/** Live clusters: 401, the server refused the credentials. */
export class UnauthorizedError extends ApiError {}
/** Live clusters: 403, RBAC denies the request. */
export class ForbiddenError extends ApiError {}
/** Live clusters: 404, the object or type does not exist. */
export class NotFoundError extends ApiError {}
/** Live clusters: no usable cluster configuration (kubeconfig, context). */
export class NoConfigError extends ApiError {}

