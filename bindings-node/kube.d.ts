// TypeScript types of workload-lens/kube: workloads of a live cluster, read
// with @kubernetes/client-node (an optional peer dependency). Node only.

import type { Catalog, ClusterErrorCode, Definition, DefinitionSource } from './index.js';
import type {
  ApiResource,
  Diagnosis,
  GangReport,
  Resolved,
  Usage,
  WorkloadSummary,
} from './types/engine.js';

/** What `Cluster` uses of a @kubernetes/client-node `KubeConfig` (pass the client's own). */
export interface KubeConfigLike {
  getCurrentCluster(): { server: string } | null;
  getCurrentContext(): string;
  getContextObject(name: string): { namespace?: string } | null;
  setCurrentContext(context: string): void;
  applyToHTTPSOptions(opts: object): Promise<void>;
}

/** A warning about the cluster (the engine's cluster protocol decides them): `reason` is stable. */
export interface ClusterWarning {
  /**
   * `forbidden` (403: a type, the pods, an owner kind or the cluster's definitions could not be listed, or a
   * group version discovered), `no_crd` (404: a type is no longer served; or neither definition CRD is
   * installed; or the server serves no pods), `api` (any other failure status, or an answer that cannot be
   * read), `invalid` (a definition stored in the cluster, or their list, could not be read: left out) and
   * `collision` (two definitions in the cluster define the same type: the one later by name is left out),
   * `orphaned` (a listed object's controller does not exist: it is shown as a workload of its own, its row's
   * `owner.state` says so; with an empty `object`, how many more were not shown) and `owner_unreadable` (a listed
   * object's controller is of a type you may not list: shown as a workload of its own, with what it holds).
   */
  reason: 'forbidden' | 'no_crd' | 'api' | 'invalid' | 'collision' | 'orphaned' | 'owner_unreadable';
  /** What it is about: a type (`plural.group`), a group version (`group/version`), or `Kind/name` of a definition object or a listed object. */
  object: string;
  message: string;
}

export interface ClusterOptions {
  /** A loaded KubeConfig (default: `KubeConfig.loadFromDefault()`: $KUBECONFIG, ~/.kube/config, in-cluster). */
  kubeConfig?: KubeConfigLike;
  /** Load this kubeconfig file instead. */
  kubeconfigPath?: string;
  /** Use this context of the kubeconfig. */
  context?: string;
  /** Your definitions: they win over the cluster's, which win over the catalog. */
  definitions?: Array<Definition | DefinitionSource>;
  /** The base catalog (and limits); default: the bundled catalog. */
  engine?: Catalog;
  /** Milliseconds a request may wait for an answer (default 30000). */
  timeout?: number;
}

export interface ListOptions {
  /** Default: the namespace of the kubeconfig's context (else `default`). */
  namespace?: string;
  allNamespaces?: boolean;
  labelSelector?: string;
  /** Keep workloads with one of these statuses (`Running`, `Failed`, ...; case-insensitive). */
  phases?: string[];
  /** Every type a definition covers, top-level workloads only (the type argument is left out). */
  allTypes?: boolean;
  /** Objects per list request (limit/continue; 0: no chunking). Default 500. */
  chunkSize?: number;
}

export interface Listing {
  /** Newest first. */
  workloads: WorkloadSummary[];
  warnings: ClusterWarning[];
  /** `plural.group` of the types that may not be listed (403; allTypes), in the order they were listed. */
  forbidden: string[];
}

export interface Description {
  /** The workload's object, as read. */
  object: { [key: string]: unknown };
  /** The workload resolved with the live pods of its namespace (attributed through their controller chains). */
  resolved: Resolved;
  gang: GangReport;
  /**
   * The last events of the workload, of its pods and of the owners between them (by
   * `involvedObject.uid`), newest first, at most 10; empty when events may not be listed (a warning says so).
   */
  events: WorkloadEvent[];
  /** How many more such events there were (older than those kept). */
  eventsLeftOut: number;
  /**
   * Why it is where it is (`diagnose`), from its pods, those events, its Kueue Workloads and gang-scheduler groups
   * (`workload-lens why`).
   */
  diagnosis: Diagnosis;
  warnings: ClusterWarning[];
}

/** One event of a described workload, as kubectl's Events table shows it. */
export interface WorkloadEvent {
  /** `Normal` or `Warning` (`""` when absent). */
  type: string;
  reason: string;
  message: string;
  /** `source.component`, else `reportingComponent`, else `reportingController` (`""` when none). */
  from: string;
  /** The object it is about, `Kind/name`. */
  object: string;
  /** How many times it happened. */
  count: number;
  /** When it last happened, as the server wrote it. */
  lastTime?: string;
  /** When it first happened. */
  firstTime?: string;
}

/** A live cluster. */
export class Cluster {
  constructor(options?: ClusterOptions);
  /** The KubeConfig in use (loaded on first use). */
  kubeConfig(): Promise<KubeConfigLike>;
  /** The namespace of the current context (`default` when none). */
  namespace(): Promise<string>;
  /** Every resource type the server serves (discovery; subresources left out). */
  types(): Promise<ApiResource[]>;
  /**
   * The workloads of one type (kind, plural, short name, `plural.group` or `kind.version.group`).
   * @throws UsageError (unknown or ambiguous type), NoDefinitionError, ForbiddenError, UnauthorizedError,
   * UnreachableError.
   */
  list(type: string, options?: ListOptions): Promise<Listing>;
  /**
   * With `{allTypes: true}`: every covered type, top-level only; a type that cannot be listed is a warning (and
   * named in `forbidden` on a 403).
   * @throws ForbiddenError when no covered type may be listed, UnauthorizedError, UnreachableError.
   */
  list(options: ListOptions & { allTypes: true }): Promise<Listing>;
  /**
   * One workload with its live pods.
   * @throws NotFoundError, ForbiddenError, UsageError, NoDefinitionError, UnauthorizedError, UnreachableError.
   */
  describe(type: string, name: string, options?: { namespace?: string }): Promise<Description>;
  /** GPU and pod requests of a listing by namespace and type; without a type, every covered type. */
  usage(type?: string, options?: ListOptions): Promise<Usage & { warnings: ClusterWarning[]; forbidden: string[] }>;
  usage(options: ListOptions): Promise<Usage & { warnings: ClusterWarning[]; forbidden: string[] }>;
}

/** A failure to read the cluster: the engine's live-cluster error classes,
 * ApiError (code `api`, the base of the others) under this module's name. */
export {
  ApiError as ClusterError, ForbiddenError, NoConfigError, NotFoundError, UnauthorizedError,
  UnreachableError,
} from './index.js';
