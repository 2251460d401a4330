/* Generated from the engine's JSON Schemas by bindings-node/testing/gen-types.mjs: do not edit. */

/**
 * Where a definition came from.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Origin".
 */
export type Origin = 'catalog' | 'user' | 'cluster';
/**
 * A normalized workload status: the statuses a definition's status
 * mappings name, in evaluation order, and `Undefined` when none matches.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "WorkloadStatus".
 */
export type WorkloadStatus =
  | 'Resuming'
  | 'Suspending'
  | 'Suspended'
  | 'Running'
  | 'Failed'
  | 'Completed'
  | 'Initializing'
  | 'Degraded'
  | 'Undefined';
/**
 * A Kubernetes resource quantity in canonical form, e.g. `2`, `500m`, `4Gi`.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Quantity".
 */
export type Quantity = string;
/**
 * Stable error classes. The string form (`as_str`, and the JSON form) is part
 * of the public contract: conformance cases and bindings match on it.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "ErrorCode".
 */
export type ErrorCode =
  | 'parse'
  | 'validation'
  | 'jq_compile'
  | 'jq_runtime'
  | 'conversion'
  | 'count_mismatch'
  | 'limit'
  | 'no_definition'
  | 'invalid_object'
  | 'update'
  | 'usage'
  | 'unreachable'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'api'
  | 'no_config';
/**
 * Severity of a validation finding.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Severity".
 */
export type Severity = 'error' | 'warning';
/**
 * What a finding is about. The codes are stable (kebab-case in JSON).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "FindingCode".
 */
export type FindingCode =
  | 'not-admitted'
  | 'suspended'
  | 'create-failed'
  | 'scheduling-gated'
  | 'pod-group-pending'
  | 'unschedulable'
  | 'gang-short'
  | 'image-pull'
  | 'init-failed'
  | 'crash-loop'
  | 'pod-failed'
  | 'failing-condition'
  | 'operator-behind'
  | 'earlier-attempt'
  | 'look-alike';
/**
 * How much a finding matters.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "FindingSeverity".
 */
export type FindingSeverity = 'blocking' | 'warning' | 'info';
/**
 * The result of a matcher or of one of its criteria.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Outcome".
 */
export type Outcome = 'matched' | 'notMatched' | 'error' | 'skipped';
/**
 * One criterion of a matcher.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Check".
 */
export type Check = Check1 & Check2;
export type Check1 =
  | {
      kind: 'phase';
      /**
       * The expected phase.
       */
      expected: string;
      /**
       * The phase found (absent when there is none).
       */
      actual?: string | null;
    }
  | {
      kind: 'condition';
      /**
       * The condition type.
       */
      type: string;
      /**
       * The expected status, when constrained.
       */
      expectedStatus?: string | null;
      /**
       * The expected reason, when constrained.
       */
      expectedReason?: string | null;
      /**
       * The condition of that type that counts (the last one), if any.
       */
      actual?: Condition | null;
    }
  | {
      kind: 'expression';
      /**
       * Definition field of the expression.
       */
      field: string;
      /**
       * The expression.
       */
      expression: string;
      /**
       * `expectedResult`.
       */
      expected: string;
      /**
       * Its first output rendered like jq's `tostring` (the text that is
       * compared), absent when there was no output or an error.
       */
      result?: string | null;
    };
/**
 * One JSON Patch operation.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "PatchOp".
 */
export type PatchOp =
  | {
      op: 'add';
      /**
       * JSON Pointer.
       */
      path: string;
      /**
       * Value to add.
       */
      value: {
        [k: string]: unknown | undefined;
      };
    }
  | {
      op: 'remove';
      /**
       * JSON Pointer.
       */
      path: string;
    }
  | {
      op: 'replace';
      /**
       * JSON Pointer.
       */
      path: string;
      /**
       * New value.
       */
      value: {
        [k: string]: unknown | undefined;
      };
    };
/**
 * [`OwnerState::state`].
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "OwnerStateKind".
 */
export type OwnerStateKind = 'orphaned' | 'unreadable';
/**
 * Which part of a pod template a definition's expression points at (see
 * [`PodTemplatePlace`]).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "TemplatePart".
 */
export type TemplatePart = 'template' | 'spec' | 'metadata' | 'fragment';

/**
 * Every engine result type (not a value itself).
 */
export interface EngineTypes {
  Resolved?: Resolved;
  EngineError?: EngineError;
  Diagnosis?: Diagnosis;
  StatusExplanation?: StatusExplanation;
  Attribution?: Attribution;
  GangReport?: GangReport;
  GangStructure?: GangStructure;
  UpdateResult?: UpdateResult;
  DefinitionVerdict?: DefinitionVerdict;
  ApiResource?: ApiResource;
  WorkloadSummary?: WorkloadSummary;
  ClusterDefinitionWarning?: ClusterDefinitionWarning;
  Usage?: Usage;
  SourceMap?: SourceMap;
  HumanAmounts?: HumanAmounts;
  OwnerKind?: OwnerKind;
}
/**
 * A workload resolved through its definition.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Resolved".
 */
export interface Resolved {
  /**
   * Always [`RESOLVED_API_VERSION`].
   */
  apiVersion: string;
  /**
   * Always [`RESOLVED_KIND`].
   */
  kind: string;
  definition: DefinitionRef;
  workload: WorkloadRef;
  /**
   * Normalized status of the root component (absent when the root has no
   * `statusDefinition`).
   */
  status?: Status | null;
  /**
   * Every component, root first, then children in definition order.
   */
  components: Component[];
  totals: Totals;
  tree: TreeNode;
  /**
   * Pods that were given but belong to no instance (only when pods were
   * given).
   */
  unattributedPods?: PodAttribution[] | null;
  /**
   * Pods that were given but are not this workload's (another namespace,
   * or a controller chain or labels naming another workload), each with
   * its `other-namespace` or `other-workload` finding.
   */
  strayPods?: PodAttribution[];
  /**
   * Things worth knowing that did not stop resolution.
   */
  warnings: string[];
}
/**
 * Which definition was used.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "DefinitionRef".
 */
export interface DefinitionRef {
  /**
   * `metadata.name` of the definition.
   */
  name: string;
  origin: Origin;
  /**
   * The definition format (`run.ai/v1alpha1` or `optimization.nvidia.com/v1alpha1`).
   */
  format: string;
}
/**
 * Identity of the resolved object.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "WorkloadRef".
 */
export interface WorkloadRef {
  /**
   * `apiVersion` of the object.
   */
  apiVersion: string;
  /**
   * `kind` of the object.
   */
  kind: string;
  /**
   * `metadata.name` (or `metadata.generateName` when there is no name).
   */
  name: string;
  /**
   * `metadata.namespace`, when set.
   */
  namespace?: string | null;
  /**
   * `metadata.uid`, when set.
   */
  uid?: string | null;
}
/**
 * Normalized status.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Status".
 */
export interface Status {
  /**
   * The raw phase (absent when the phase path yields nothing).
   */
  phase?: string | null;
  /**
   * Conditions as extracted.
   */
  conditions: Condition[];
  /**
   * Every matched status in evaluation order, or `["Undefined"]`.
   */
  matchedStatuses: WorkloadStatus[];
}
/**
 * One condition.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Condition".
 */
export interface Condition {
  /**
   * Condition type (`""` when the type field is missing or not a string).
   */
  type: string;
  /**
   * Status, when a string.
   */
  status?: string | null;
  /**
   * Reason, when a string.
   */
  reason?: string | null;
  /**
   * Message, when a non-empty string.
   */
  message?: string | null;
  /**
   * `lastTransitionTime` of the condition object (the Kubernetes
   * convention; not renamed by the definition), when a non-empty string.
   */
  lastTransitionTime?: string | null;
}
/**
 * One component.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Component".
 */
export interface Component {
  /**
   * Component name.
   */
  name: string;
  /**
   * The Kubernetes kind it materializes as, if declared.
   */
  kind?: Gvk | null;
  /**
   * True for the root component.
   */
  root: boolean;
  /**
   * Parent component name (children only).
   */
  owner?: string | null;
  /**
   * Names of the child components, in definition order.
   */
  children: string[];
  /**
   * True when the component has pods of its own.
   */
  hasPodDefinition: boolean;
  /**
   * True when the component has an `instanceIdPath`.
   */
  multiInstance: boolean;
  /**
   * Instances (one with id `""` for single-instance components).
   */
  instances: Instance[];
  totals: Totals;
  /**
   * Status of this component, for children that have a `statusDefinition`.
   */
  status?: Status | null;
}
/**
 * A group/version/kind.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Gvk".
 */
export interface Gvk {
  /**
   * API group (`""` for the core group).
   */
  group?: string;
  /**
   * API version.
   */
  version?: string;
  /**
   * Kind.
   */
  kind?: string;
}
/**
 * One instance of a component.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Instance".
 */
export interface Instance {
  /**
   * Instance id (`""` for single-instance components).
   */
  id: string;
  /**
   * False when nothing of the instance exists in this object: every pod
   * field (template, spec, fragments, metadata) and every scale path
   * yields null (e.g. a PyTorchJob without a Master). An absent instance
   * has no pods. A count without a pod template of its own is present.
   */
  present: boolean;
  /**
   * Replica counts as extracted.
   */
  scale?: Scale | null;
  /**
   * Effective desired replicas: `replicas`, else `minReplicas`, else 1;
   * 0 when not present (and for a component without a pod definition);
   * negative counts count as 0.
   */
  desiredReplicas: number;
  /**
   * The pod template (`{metadata, spec}`), from any of the three styles;
   * for fragmented definitions it is assembled from the fragments.
   */
  podTemplate?: {
    [k: string]: unknown | undefined;
  };
  /**
   * For fragmented definitions: every fragment extracted, by field.
   */
  fragments?: {
    [k: string]: unknown | undefined;
  } | null;
  /**
   * The effective request of one pod.
   */
  podResources?: ResourceSummary | null;
  resources: ResourceSummary;
  /**
   * Live state from the pods, when pods were given.
   */
  live?: Live | null;
}
/**
 * Replica counts.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Scale".
 */
export interface Scale {
  /**
   * Desired replicas.
   */
  replicas?: number | null;
  /**
   * Minimum replicas.
   */
  minReplicas?: number | null;
  /**
   * Maximum replicas.
   */
  maxReplicas?: number | null;
}
/**
 * A pod's (or a group of pods') resources reduced to the numbers a report
 * shows.
 *
 * Serialized in camelCase (`cpuMillis`, `memoryBytes`, …); `extended` is
 * left out when empty and otherwise maps names to canonical quantity
 * strings.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "ResourceSummary".
 */
export interface ResourceSummary {
  /**
   * Whole NVIDIA GPUs (`nvidia.com/gpu`), rounded up.
   */
  gpu: number;
  /**
   * CPU in millicores, rounded up.
   */
  cpuMillis: number;
  /**
   * Memory in bytes, rounded up.
   */
  memoryBytes: number;
  /**
   * Ephemeral storage in bytes, rounded up.
   */
  ephemeralStorageBytes: number;
  /**
   * Every other resource name, exactly: MIG slices such as
   * `nvidia.com/mig-1g.5gb`, `amd.com/gpu`, `rdma/ib`, `hugepages-2Mi`, …
   * Entries explicitly requested as zero are kept.
   */
  extended: {
    [k: string]: Quantity | undefined;
  };
}
/**
 * Live state of one instance, from its pods.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Live".
 */
export interface Live {
  /**
   * Pods attributed to the instance.
   */
  pods: PodAttribution[];
  /**
   * How many of them are ready.
   */
  ready: number;
  /**
   * The nodes they run on (sorted, unique).
   */
  nodes: string[];
  /**
   * For an autoscaled instance (one with `minReplicas` or
   * `maxReplicas` and no `replicas`) whose pods' owners were given: the count the objects
   * it scales declare now, which is then the instance's
   * `desiredReplicas` (see docs/definition-format.md, "Live counts of
   * autoscaled instances").
   */
  scale?: LiveScale | null;
}
/**
 * One pod, attributed.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "PodAttribution".
 */
export interface PodAttribution {
  /**
   * `metadata.name`.
   */
  name: string;
  /**
   * `metadata.namespace`.
   */
  namespace?: string | null;
  /**
   * The component the pod belongs to.
   */
  component?: string | null;
  /**
   * The instance id (multi-instance components).
   */
  instance?: string | null;
  /**
   * The replica key, where the component has a replica selector.
   */
  replicaKey?: string | null;
  /**
   * `status.phase` (`Unknown` when absent).
   */
  phase: string;
  /**
   * Why the pod is not running well (a waiting container's reason, an
   * unschedulable condition, `status.reason`), when there is one.
   */
  reason?: string | null;
  /**
   * What the scheduler said of a pod it could not place (the message of
   * its `PodScheduled` condition when that is `False`), when there is one.
   */
  message?: string | null;
  /**
   * The `Ready` condition is `True`.
   */
  ready: boolean;
  /**
   * `spec.nodeName`, when scheduled.
   */
  node?: string | null;
  resources: ResourceSummary;
  /**
   * Problems met while attributing this pod.
   */
  findings: PodFinding[];
}
/**
 * Why a pod could not be attributed cleanly.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "PodFinding".
 */
export interface PodFinding {
  /**
   * Stable code: `invalid-pod`, `other-namespace`, `other-workload`,
   * `not-current`,
   * `no-component`, `ambiguous-component`, `no-instance`,
   * `unknown-instance`, `selector-error`, `replica-error`.
   */
  code: string;
  /**
   * What happened.
   */
  message: string;
}
/**
 * The live count of an autoscaled instance.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "LiveScale".
 */
export interface LiveScale {
  /**
   * The current desired count: what the scaled objects' `spec.replicas`
   * add up to, within `minReplicas` and `maxReplicas`.
   */
  replicas: number;
  /**
   * The count the workload declares (`replicas`, else `minReplicas`).
   */
  declared: number;
  /**
   * The objects scaled, as `Kind/name` (sorted by uid).
   */
  scaledBy: string[];
}
/**
 * Pod and resource totals.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Totals".
 */
export interface Totals {
  /**
   * Desired pods.
   */
  pods: number;
  resources: ResourceSummary;
}
/**
 * A node of the component tree.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "TreeNode".
 */
export interface TreeNode {
  /**
   * Component name.
   */
  component: string;
  /**
   * Child nodes, in definition order.
   */
  children: TreeNode[];
}
/**
 * The engine's error.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "EngineError".
 */
export interface EngineError {
  code: ErrorCode;
  /**
   * Human-readable message (without the location, which is kept apart).
   */
  message: string;
  location: Location;
  /**
   * For [`ErrorCode::Limit`]: the name of the limit (the field name of
   * [`crate::Limits`] in camelCase, e.g. `maxOutputs`).
   */
  limit?: string | null;
  /**
   * For [`ErrorCode::Validation`]: every finding (errors and warnings).
   */
  findings: Finding[];
  /**
   * Live clusters: the HTTP status the server answered with, when it
   * answered.
   */
  status?: number | null;
}
/**
 * Where something happened. Every part is optional; only the parts that are
 * known are set (and serialized).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Location".
 */
export interface Location {
  /**
   * Index of the document in a multi-document text (0-based), when the
   * input had more than one document.
   */
  document?: number | null;
  /**
   * Field path inside the definition, e.g.
   * `spec.structureDefinition.childComponents[1].specDefinition.podTemplateSpecPath`.
   */
  field?: string | null;
  /**
   * 1-based line in the source text, when the input was text.
   */
  line?: number | null;
  /**
   * 1-based column (in characters) in the source text.
   */
  column?: number | null;
  /**
   * The jq expression involved.
   */
  expression?: string | null;
  /**
   * Byte range `[start, end)` inside `expression`.
   *
   * @minItems 2
   * @maxItems 2
   */
  span?: [number, number] | null;
  /**
   * Component name.
   */
  component?: string | null;
  /**
   * Instance id (`""` is never set: single-instance components omit it).
   */
  instance?: string | null;
  /**
   * Path inside the object (workload or pod), e.g. `spec.containers[0].resources.requests.cpu`.
   */
  objectPath?: string | null;
  /**
   * Live clusters: the API request (path and query) that failed, e.g.
   * `/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?limit=500`.
   */
  request?: string | null;
}
/**
 * One validation finding.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Finding".
 */
export interface Finding {
  /**
   * Stable, kebab-case rule code, e.g. `duplicate-component-name`.
   */
  code: string;
  severity: Severity;
  /**
   * What is wrong, in words.
   */
  message: string;
  location: Location;
}
/**
 * Why a workload is where it is.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Diagnosis".
 */
export interface Diagnosis {
  workload: WorkloadRef;
  /**
   * Its statuses, as resolved with its pods.
   */
  statuses: WorkloadStatus[];
  /**
   * The findings, most important first (empty when nothing is wrong).
   */
  findings: DiagnosisFinding[];
}
/**
 * One finding.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "DiagnosisFinding".
 */
export interface DiagnosisFinding {
  code: FindingCode;
  severity: FindingSeverity;
  /**
   * One plain sentence.
   */
  message: string;
  /**
   * What shows it, at most [`MAX_EVIDENCE`] pieces.
   */
  evidence: Evidence[];
  /**
   * Evidence left out beyond [`MAX_EVIDENCE`] (absent when none).
   */
  moreEvidence?: number;
  /**
   * What to do, when that is clear.
   */
  action?: string | null;
}
/**
 * One piece of evidence: what was read, where, and when.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Evidence".
 */
export interface Evidence {
  /**
   * The object, `Kind/name`.
   */
  object: string;
  /**
   * Where in it: a field (`status.conditions[PodScheduled]`,
   * `status.containerStatuses[trainer].state.waiting`) or an event
   * (`event FailedScheduling`).
   */
  field: string;
  /**
   * What it says.
   */
  text: string;
  /**
   * When, as the cluster wrote it (a condition's last transition, an
   * event's last time), when known.
   */
  time?: string | null;
}
/**
 * Why an object has the status it has: the root component's explanation,
 * plus one for each child component with a `statusDefinition` of its own.
 * Its JSON has the root's fields at the top level (`component`, `phase`,
 * `conditions`, `categories`, `matchedStatuses`, `error`) and `components`.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "StatusExplanation".
 */
export interface StatusExplanation {
  /**
   * Component name.
   */
  component: string;
  /**
   * The phase, when the definition has a `phaseDefinition`.
   */
  phase?: PhaseExplanation | null;
  /**
   * The conditions, when the definition has a `conditionsDefinition`.
   */
  conditions?: ConditionsExplanation | null;
  /**
   * Every status category the definition maps, in evaluation order.
   */
  categories: CategoryExplanation[];
  /**
   * The matched statuses, exactly as `resolve` reports them (`["Undefined"]`
   * when none matched); empty when there is no status definition or the
   * evaluation failed.
   */
  matchedStatuses: WorkloadStatus[];
  /**
   * The error `resolve` fails with, when the status cannot be computed.
   * The categories are still explained as far as they could be evaluated.
   */
  error?: EngineError | null;
  /**
   * Child components with a `statusDefinition`, in definition order.
   */
  components: ComponentStatusExplanation[];
}
/**
 * How the phase was extracted.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "PhaseExplanation".
 */
export interface PhaseExplanation {
  /**
   * Definition field of the path expression.
   */
  field: string;
  /**
   * The path expression.
   */
  expression: string;
  /**
   * The phase (absent when the expression gave no output; `""` for `null`).
   */
  value?: string | null;
}
/**
 * How the conditions were extracted.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "ConditionsExplanation".
 */
export interface ConditionsExplanation {
  /**
   * Definition field of the path expression.
   */
  field: string;
  /**
   * The path expression.
   */
  expression: string;
  /**
   * The conditions found, in order.
   */
  items: Condition[];
}
/**
 * One status category (`statusMappings.<key>`).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "CategoryExplanation".
 */
export interface CategoryExplanation {
  status: WorkloadStatus;
  /**
   * The mapping key, e.g. `running`.
   */
  key: string;
  /**
   * True when one of the matchers matched.
   */
  matched: boolean;
  /**
   * The matchers, in definition order.
   */
  matchers: MatcherExplanation[];
}
/**
 * One matcher (`statusMappings.<key>[i]`): the AND of its criteria.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "MatcherExplanation".
 */
export interface MatcherExplanation {
  /**
   * Definition field of the matcher.
   */
  field: string;
  outcome: Outcome;
  /**
   * Its criteria in evaluation order (`byPhase`, each `byConditions`
   * entry, `byExpression`); empty for a matcher without criteria, which
   * matches unconditionally.
   */
  checks: Check[];
}
export interface Check2 {
  outcome: Outcome;
  /**
   * Why, in words (e.g. `phase is "Pending", expected "Running"`).
   */
  reason: string;
  /**
   * The evaluation error, for outcome `error`.
   */
  error?: EngineError | null;
}
/**
 * The status evaluation of one component.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "ComponentStatusExplanation".
 */
export interface ComponentStatusExplanation {
  /**
   * Component name.
   */
  component: string;
  /**
   * The phase, when the definition has a `phaseDefinition`.
   */
  phase?: PhaseExplanation | null;
  /**
   * The conditions, when the definition has a `conditionsDefinition`.
   */
  conditions?: ConditionsExplanation | null;
  /**
   * Every status category the definition maps, in evaluation order.
   */
  categories: CategoryExplanation[];
  /**
   * The matched statuses, exactly as `resolve` reports them (`["Undefined"]`
   * when none matched); empty when there is no status definition or the
   * evaluation failed.
   */
  matchedStatuses: WorkloadStatus[];
  /**
   * The error `resolve` fails with, when the status cannot be computed.
   * The categories are still explained as far as they could be evaluated.
   */
  error?: EngineError | null;
}
/**
 * Attribution of a list of pods.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Attribution".
 */
export interface Attribution {
  /**
   * Every pod, in input order (objects of other kinds given beside the
   * pods are owners, used to follow controller chains, not listed).
   */
  pods: PodAttribution[];
  /**
   * Names of the workload's pods attributed to no component.
   */
  unattributed: string[];
  /**
   * Names of the pods that are not this workload's (another namespace,
   * a controller chain or labels leading to another workload): each has
   * an `other-namespace` or `other-workload` finding.
   */
  stray?: string[];
}
/**
 * Gang groups of a set of pods.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "GangReport".
 */
export interface GangReport {
  /**
   * The groups, in order of first member.
   */
  groups: GangGroup[];
  /**
   * Per pod, in input order.
   */
  pods: PodGang[];
}
/**
 * One pod group formed by the given pods.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "GangGroup".
 */
export interface GangGroup {
  /**
   * The scheduler's PodGroup name.
   */
  name: string;
  /**
   * The definition's pod-group name.
   */
  podGroup: string;
  /**
   * Group keys shared by the members.
   */
  keys: string[];
  /**
   * The effective component of the members.
   */
  component?: string | null;
  /**
   * Members that must be admitted together (0 when subgroups carry the
   * minimums).
   */
  minMember: number;
  /**
   * Pods in the group, in input order.
   */
  members: string[];
  /**
   * Subgroups (`podGroup` form).
   */
  subGroups: SubGroupState[];
  /**
   * Subgroups that must be admitted (`podGroup` form with subgroups).
   */
  minSubGroups?: number | null;
  /**
   * Topology constraint.
   */
  topology?: Topology | null;
}
/**
 * A subgroup of a `podGroup`.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "SubGroupState".
 */
export interface SubGroupState {
  /**
   * Component name.
   */
  component: string;
  /**
   * Minimum members of the subgroup.
   */
  minMember: number;
  /**
   * Pods in the subgroup (matching the component or a descendant).
   */
  members: string[];
  /**
   * Topology constraint.
   */
  topology?: Topology | null;
}
/**
 * Topology constraint.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Topology".
 */
export interface Topology {
  /**
   * Topology name.
   */
  topologyName?: string;
  /**
   * Preferred level.
   */
  preferredTopologyLevel?: string;
  /**
   * Required level.
   */
  requiredTopologyLevel?: string;
}
/**
 * The gang-scheduling answer for one pod.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "PodGang".
 */
export interface PodGang {
  /**
   * Pod name.
   */
  pod: string;
  /**
   * The pod's own component.
   */
  component?: string | null;
  /**
   * The component whose pod-group member definition applies (the pod's
   * own or an ancestor).
   */
  effectiveComponent?: string | null;
  /**
   * Name of the definition's pod group (`podGroups[].name` / `podGroup.name`).
   */
  podGroup?: string | null;
  /**
   * The pod's instance, when the effective component is its own.
   */
  instance?: string | null;
  /**
   * Values of the member's `groupByKeyPaths`.
   */
  groupKeys: string[];
  /**
   * The scheduler's PodGroup name: `pg-<workload uid>[-<key>...]`
   * (`pg-<uid>-<podGroup.name>` for the `podGroup` form).
   */
  groupName?: string | null;
  /**
   * Problems met.
   */
  findings: PodFinding[];
}
/**
 * The structure of a definition as gang scheduling reads it: what the
 * reference library computes once per definition (its "structure
 * summary"). Maps are keyed by component name (names are unique in a
 * valid definition); `components` gives the order.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "GangStructure".
 */
export interface GangStructure {
  /**
   * Every component: the root, then the children in definition order.
   */
  components: string[];
  /**
   * The components with a pod definition (a pod template, a pod spec or
   * fragments), in the order of `components`.
   */
  leaves: string[];
  /**
   * Each child component's owner (`ownerRef`); the root has no entry.
   */
  parents: {
    [k: string]: string | undefined;
  };
  /**
   * Each component's children, in definition order (empty for a
   * component without children).
   */
  children: {
    [k: string]: string[] | undefined;
  };
  /**
   * Whether any component has a `scaleDefinition` (even an empty one):
   * subtree scales then multiply and add scales; without, they count the
   * pod-bearing leaves.
   */
  hasScaleDefinition: boolean;
  /**
   * With `gangScheduling`: each component's candidate members, in the
   * order a pod of it tries them (its own component's members first, then
   * each ancestor's, nearest first; within a component in pod-group then
   * member order). Empty for a component no member applies to. Absent
   * without `gangScheduling`.
   */
  candidates?: {
    [k: string]: GangCandidate[] | undefined;
  } | null;
}
/**
 * A pod-group member that applies to a component: one of its own, or one
 * of an ancestor's.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "GangCandidate".
 */
export interface GangCandidate {
  /**
   * The pod group's name (`podGroups[].name`).
   */
  podGroup: string;
  /**
   * The member's component (`members[].componentName`): the component
   * itself or one of its ancestors.
   */
  member: string;
  /**
   * Where the member is in the definition
   * (`spec.optimizationInstructions.gangScheduling.podGroups[0].members[1]`).
   */
  field: string;
  /**
   * The member's filters, as written (blank ones, which are skipped, left
   * out). A pod takes the first candidate whose filters all give `true`.
   */
  filters: string[];
  /**
   * The member's group key paths, as written (blank ones left out).
   */
  groupByKeyPaths: string[];
}
/**
 * The result of an update.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "UpdateResult".
 */
export interface UpdateResult {
  /**
   * The updated object (a new value; the input is untouched).
   */
  object: {
    [k: string]: unknown | undefined;
  };
  /**
   * RFC 6902 JSON Patch from the input object to `object`.
   */
  patch: PatchOp[];
}
/**
 * The verdict on one definition.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "DefinitionVerdict".
 */
export interface DefinitionVerdict {
  /**
   * `metadata.name`, or a placeholder naming the document when it has
   * none (`(unnamed definition in document 2)`).
   */
  name: string;
  /**
   * No error findings: the definition compiles.
   */
  valid: boolean;
  /**
   * The root GVK, e.g. `jobset.x-k8s.io/v1alpha2, Kind=JobSet`, when the
   * definition could be read.
   */
  gvk?: string | null;
  /**
   * Every finding, errors and warnings, in text order.
   */
  findings: Finding[];
}
/**
 * One resource type an API server serves, as discovery reports it.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "ApiResource".
 */
export interface ApiResource {
  /**
   * API group (`""` for the core group).
   */
  group?: string;
  /**
   * Version, e.g. `v1alpha2`.
   */
  version: string;
  /**
   * Kind, e.g. `JobSet`.
   */
  kind: string;
  /**
   * Plural resource name, e.g. `jobsets`.
   */
  plural: string;
  /**
   * Singular name (`""` when discovery gives none).
   */
  singular?: string;
  /**
   * Short names, e.g. `["lws"]`.
   */
  shortNames?: string[];
  /**
   * Whether objects live in namespaces.
   */
  namespaced?: boolean;
  /**
   * Whether this is the group's preferred version.
   */
  preferred?: boolean;
}
/**
 * One workload of a listing: what `get` shows in a row.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "WorkloadSummary".
 */
export interface WorkloadSummary {
  /**
   * `metadata.name`.
   */
  name: string;
  /**
   * `metadata.namespace`, when set.
   */
  namespace?: string | null;
  /**
   * `metadata.uid`, when set.
   */
  uid?: string | null;
  /**
   * `apiVersion` of the object.
   */
  apiVersion: string;
  /**
   * `kind` of the object.
   */
  kind: string;
  /**
   * `metadata.creationTimestamp`, when set.
   */
  created?: string | null;
  /**
   * The definition's name (absent when none covers the object).
   */
  definition?: string | null;
  /**
   * Where the definition came from.
   */
  origin?: Origin | null;
  /**
   * The raw phase, when the definition reads one.
   */
  phase?: string | null;
  /**
   * The matched statuses (empty when the definition maps no status or
   * the object did not resolve).
   */
  statuses: WorkloadStatus[];
  /**
   * Desired pods.
   */
  pods: number;
  /**
   * GPUs the desired pods request.
   */
  gpus: number;
  /**
   * Why the object did not resolve (its row shows the error).
   */
  error?: EngineError | null;
  /**
   * Set when the object's controller chain ends at an owner that is not
   * there: the object is shown as a workload of its own, and says why.
   */
  owner?: OwnerState | null;
  /**
   * The count the object itself declares, when it differs from `pods`:
   * an autoscaled instance counts what the objects it scales declare now
   * (its minimum stays here). Only with the pods and their owners.
   */
  declaredPods?: number | null;
  /**
   * The workload's pods that exist, when the pods were read (a live
   * listing): what they hold, beside what the workload declares.
   */
  live?: LivePods | null;
  /**
   * The code of the diagnosis's first finding (`unschedulable`,
   * `crash-loop`, ...; [`crate::Diagnosis`], from the pods without
   * events), for a workload that is not simply Running or Completed with
   * every live pod ready. Only in a live listing.
   */
  reason?: string | null;
}
/**
 * Why a listed object's controller chain could not be followed to the
 * top ([`ListOptions::owners_complete`]).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "OwnerState".
 */
export interface OwnerState {
  state: OwnerStateKind;
  /**
   * The missing owner's `apiVersion`, as the reference gives it.
   */
  apiVersion: string;
  /**
   * Its `kind`.
   */
  kind: string;
  /**
   * Its `name`.
   */
  name: string;
  /**
   * Its `uid`.
   */
  uid: string;
}
/**
 * The pods of a listed workload that exist (their controller chains lead
 * to it by uid), and have not finished: phase Pending, Running or
 * Unknown. Succeeded and Failed pods hold nothing and are not counted.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "LivePods".
 */
export interface LivePods {
  /**
   * Pods that have not finished.
   */
  pods: number;
  /**
   * Of those, the ready ones.
   */
  ready: number;
  /**
   * GPUs those pods request: held on their nodes, or waiting to be
   * (`pendingGpus`).
   */
  gpus: number;
  /**
   * Of `gpus`, those of pods not scheduled to a node yet.
   */
  pendingGpus: number;
}
/**
 * Something a cluster operation left out, and why. `reason` is stable:
 * `forbidden` (HTTP 403), `no_crd` (a type or the definition CRDs are not
 * served), `api` (another failure status, or an unreadable answer),
 * `invalid` or `collision` (a definition stored in the cluster that was
 * not used). `object` names what was left out: a type (`plural.group`), a
 * group version (`group/version`) or a definition object (`Karta/name`).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "ClusterDefinitionWarning".
 */
export interface ClusterDefinitionWarning {
  /**
   * Why, as a stable word.
   */
  reason: string;
  /**
   * What was left out.
   */
  object: string;
  /**
   * What happened, in one line.
   */
  message: string;
}
/**
 * GPU and pod requests by namespace and by type, and in total.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "Usage".
 */
export interface Usage {
  /**
   * One row per namespace (cluster-scoped workloads under `""`), most
   * GPUs first (declared, then held), then by name.
   */
  byNamespace: UsageRow[];
  /**
   * One row per kind (`Kind.group`, or `Kind` for the core group), most
   * GPUs first (declared, then held), then by name.
   */
  byType: UsageRow[];
  total: UsageRow;
  /**
   * Whether the pods were read (`heldPods`, `heldGpus` and
   * `pendingGpus` mean something).
   */
  podsRead: boolean;
}
/**
 * GPUs and pods of a group of workloads (`top`): what the active ones
 * declare, and what the pods that exist hold.
 *
 * The rule, the same for every type: a workload whose matched statuses
 * include Suspended, Suspending, Completed or Failed is *inactive*, and
 * declares nothing here, whatever its structure says (a suspended JobSet
 * keeps its replica counts, a suspended InferenceService drops them: both
 * count 0). Its GPUs are in `inactiveGpus` instead. What its pods still
 * hold (pods being torn down, a finished job's pods not yet gone) is in
 * `heldGpus` like any other pod's.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "UsageRow".
 */
export interface UsageRow {
  /**
   * The namespace or the kind the row adds up (`""` for the total).
   */
  key: string;
  /**
   * Workloads.
   */
  workloads: number;
  /**
   * Desired pods of the active workloads.
   */
  pods: number;
  /**
   * GPUs the desired pods of the active workloads request.
   */
  gpus: number;
  /**
   * Inactive workloads (Suspended, Suspending, Completed or Failed).
   */
  inactive: number;
  /**
   * GPUs the inactive workloads' structure declares (not in `gpus`).
   */
  inactiveGpus: number;
  /**
   * Pods that exist and have not finished (with the pods read).
   */
  heldPods: number;
  /**
   * GPUs those pods request: on their nodes, or waiting for one.
   */
  heldGpus: number;
  /**
   * Of `heldGpus`, those of pods not scheduled yet.
   */
  pendingGpus: number;
  /**
   * Workloads that did not resolve (not added to pods and GPUs).
   */
  errors: number;
}
/**
 * Where things are in a text: every object, and the answer to every
 * question, in the order asked (see [`source_map`]).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "SourceMap".
 */
export interface SourceMap {
  /**
   * Every object of the text, in order.
   */
  objects: SourceObject[];
  /**
   * One answer per question, in the order asked: `null` when the path
   * is not in the text (or does not parse, or names an object or a
   * pod template there is not).
   */
  places: (SourcePlace | null)[];
}
/**
 * One object of the text (a document, an item of a list document, an
 * element of an array), in the order the engine reads objects
 * (`read_objects`: pods, workloads, definitions).
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "SourceObject".
 */
export interface SourceObject {
  /**
   * The document (index in the text, counting empty documents).
   */
  document: number;
  /**
   * The object's path in its document: `""` for the whole document,
   * `items[2]` for an item of a list, `[2]` for an element of an array.
   */
  path: string;
  value: TextSpan;
  /**
   * With a definition that covers the object: where each component
   * instance's pod template (or its parts) is, for each expression of
   * the definition that is a path in the object. Empty otherwise.
   */
  podTemplates: PodTemplatePlace[];
}
/**
 * A range of a text, `[start, end)`.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "TextSpan".
 */
export interface TextSpan {
  start: TextPosition;
  end: TextPosition;
}
/**
 * A position in a text.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "TextPosition".
 */
export interface TextPosition {
  /**
   * 1-based line.
   */
  line: number;
  /**
   * 1-based column, in characters (as [`crate::Location::column`]).
   */
  column: number;
  /**
   * 0-based byte offset in the text (UTF-8).
   */
  offset: number;
}
/**
 * Where a component instance's pod template (or a part of it) is in the
 * object.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "PodTemplatePlace".
 */
export interface PodTemplatePlace {
  /**
   * The component.
   */
  component: string;
  /**
   * The instance id (absent for a component of one instance).
   */
  instance?: string | null;
  /**
   * The definition field whose expression points here
   * (`spec.structureDefinition.childComponents[0].specDefinition.podTemplateSpecPath`).
   */
  field: string;
  part: TemplatePart;
  /**
   * The path from the document's root.
   */
  path: string;
  /**
   * The key, as written (absent for a sequence element).
   */
  key?: TextSpan | null;
  value: TextSpan;
}
/**
 * Where a value is: the answer to a [`SourceQuery`].
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "SourcePlace".
 */
export interface SourcePlace {
  /**
   * The document (index in the text, counting empty documents).
   */
  document: number;
  /**
   * The path of the value from the document's root (for a question
   * about an object or a pod template: the whole path).
   */
  path: string;
  /**
   * False when the path asked for is not in the text and this is its
   * nearest ancestor that is (a question with `nearest`).
   */
  exact: boolean;
  /**
   * The key of a mapping entry, as written (with its quotes); absent for
   * the root and for sequence elements.
   */
  key?: TextSpan | null;
  value: TextSpan;
  /**
   * The text of the byte range asked for (`span`) of the string value.
   * Absent when none was asked for, the value is not a string, or its
   * written form is one the engine does not follow back (a block scalar
   * with an indentation indicator).
   */
  span?: TextSpan | null;
}
/**
 * Every amount of a value, written for people (see [`human_amounts`]):
 * per unit, each number met and its text.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "HumanAmounts".
 */
export interface HumanAmounts {
  /**
   * Millicores and their cores (`26500`: `26.5`).
   */
  millicores: {
    /**
     * This interface was referenced by `undefined`'s JSON-Schema definition
     * via the `patternProperty` "^\d+$".
     */
    [k: string]: string | undefined;
  };
  /**
   * Bytes and their binary units (`2000000000`: `1.9Gi`).
   */
  bytes: {
    /**
     * This interface was referenced by `undefined`'s JSON-Schema definition
     * via the `patternProperty` "^\d+$".
     */
    [k: string]: string | undefined;
  };
}
/**
 * An owner kind to fetch: the controller of a pod (or of another owner)
 * that was not given, by its `apiVersion` and `kind`.
 *
 * This interface was referenced by `EngineTypes`'s JSON-Schema
 * via the `definition` "OwnerKind".
 */
export interface OwnerKind {
  /**
   * `apiVersion` of the owner reference.
   */
  apiVersion: string;
  /**
   * `kind` of the owner reference.
   */
  kind: string;
}
