"""The engine's result types as TypedDicts. Generated from the engine's JSON
Schemas by bindings-python/tools/gen_types.py (the schemas
bindings-node/types/engine.d.ts is generated from): do not edit. Public names
are re-exported by workload_lens.types."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from typing import Literal, TypedDict

__all__ = [
    "ApiResource",
    "Attribution",
    "CategoryExplanation",
    "Check",
    "ClusterDefinitionWarning",
    "Component",
    "ComponentStatusExplanation",
    "Condition",
    "ConditionsExplanation",
    "DefinitionRef",
    "DefinitionVerdict",
    "Diagnosis",
    "DiagnosisFinding",
    "EngineError",
    "Evidence",
    "Finding",
    "GangCandidate",
    "GangGroup",
    "GangReport",
    "GangStructure",
    "Gvk",
    "HumanAmounts",
    "Instance",
    "Live",
    "LivePods",
    "LiveScale",
    "Location",
    "MatcherExplanation",
    "OwnerKind",
    "OwnerState",
    "PatchOp",
    "PatchOp1",
    "PatchOp2",
    "PatchOp3",
    "PhaseExplanation",
    "PodAttribution",
    "PodFinding",
    "PodGang",
    "PodTemplatePlace",
    "Quantity",
    "Resolved",
    "ResourceSummary",
    "Scale",
    "SourceMap",
    "SourceObject",
    "SourcePlace",
    "Status",
    "StatusExplanation",
    "SubGroupState",
    "TextPosition",
    "TextSpan",
    "Topology",
    "Totals",
    "TreeNode",
    "UpdateResult",
    "Usage",
    "UsageRow",
    "WorkloadRef",
    "WorkloadSummary",
]


class _ApiResourceRequired(TypedDict):
    version: str
    kind: str
    plural: str


class ApiResource(_ApiResourceRequired, total=False):
    """One resource type an API server serves, as discovery reports it."""

    group: str
    singular: str
    shortNames: List[str]
    namespaced: bool
    preferred: bool


class _AttributionRequired(TypedDict):
    pods: List[PodAttribution]
    unattributed: List[str]


class Attribution(_AttributionRequired, total=False):
    """Attribution of a list of pods."""

    stray: List[str]


class CategoryExplanation(TypedDict):
    """One status category (`statusMappings.<key>`)."""

    status: Literal["Resuming", "Suspending", "Suspended", "Running", "Failed", "Completed", "Initializing", "Degraded", "Undefined"]
    key: str
    matched: bool
    matchers: List[MatcherExplanation]


class _CheckRequired(TypedDict):
    outcome: Literal["matched", "notMatched", "error", "skipped"]
    reason: str


class Check(_CheckRequired, total=False):
    """One criterion of a matcher."""

    error: Optional[EngineError]


class ClusterDefinitionWarning(TypedDict):
    """Something a cluster operation left out, and why. `reason` is stable:
    `forbidden` (HTTP 403), `no_crd` (a type or the definition CRDs are not
    served), `api` (another failure status, or an unreadable answer),
    `invalid` or `collision` (a definition stored in the cluster that was
    not used). `object` names what was left out: a type (`plural.group`), a
    group version (`group/version`) or a definition object (`Karta/name`).
    """

    reason: str
    object: str
    message: str


class _ComponentRequired(TypedDict):
    name: str
    root: bool
    children: List[str]
    hasPodDefinition: bool
    multiInstance: bool
    instances: List[Instance]
    totals: Totals


class Component(_ComponentRequired, total=False):
    """One component."""

    kind: Optional[Gvk]
    owner: Optional[str]
    status: Optional[Status]


class _ComponentStatusExplanationRequired(TypedDict):
    component: str
    categories: List[CategoryExplanation]
    matchedStatuses: List[Literal["Resuming", "Suspending", "Suspended", "Running", "Failed", "Completed", "Initializing", "Degraded", "Undefined"]]


class ComponentStatusExplanation(_ComponentStatusExplanationRequired, total=False):
    """The status evaluation of one component."""

    phase: Optional[PhaseExplanation]
    conditions: Optional[ConditionsExplanation]
    error: Optional[EngineError]


class _ConditionRequired(TypedDict):
    type: str


class Condition(_ConditionRequired, total=False):
    """One condition."""

    status: Optional[str]
    reason: Optional[str]
    message: Optional[str]
    lastTransitionTime: Optional[str]


class ConditionsExplanation(TypedDict):
    """How the conditions were extracted."""

    field: str
    expression: str
    items: List[Condition]


class DefinitionRef(TypedDict):
    """Which definition was used."""

    name: str
    origin: Literal["catalog", "user", "cluster"]
    format: str


class _DefinitionVerdictRequired(TypedDict):
    name: str
    valid: bool
    findings: List[Finding]


class DefinitionVerdict(_DefinitionVerdictRequired, total=False):
    """The verdict on one definition."""

    gvk: Optional[str]


class Diagnosis(TypedDict):
    """Why a workload is where it is."""

    workload: WorkloadRef
    statuses: List[Literal["Resuming", "Suspending", "Suspended", "Running", "Failed", "Completed", "Initializing", "Degraded", "Undefined"]]
    findings: List[DiagnosisFinding]


class _DiagnosisFindingRequired(TypedDict):
    code: Literal["not-admitted", "suspended", "create-failed", "scheduling-gated", "pod-group-pending", "unschedulable", "gang-short", "image-pull", "init-failed", "crash-loop", "pod-failed", "failing-condition", "operator-behind", "earlier-attempt", "look-alike"]
    severity: Literal["blocking", "warning", "info"]
    message: str
    evidence: List[Evidence]


class DiagnosisFinding(_DiagnosisFindingRequired, total=False):
    """One finding."""

    moreEvidence: int
    action: Optional[str]


class _EngineErrorRequired(TypedDict):
    code: Literal["parse", "validation", "jq_compile", "jq_runtime", "conversion", "count_mismatch", "limit", "no_definition", "invalid_object", "update", "usage", "unreachable", "unauthorized", "forbidden", "not_found", "api", "no_config"]
    message: str
    location: Location
    findings: List[Finding]


class EngineError(_EngineErrorRequired, total=False):
    """The engine's error."""

    limit: Optional[str]
    status: Optional[int]


class _EvidenceRequired(TypedDict):
    object: str
    field: str
    text: str


class Evidence(_EvidenceRequired, total=False):
    """One piece of evidence: what was read, where, and when."""

    time: Optional[str]


class Finding(TypedDict):
    """One validation finding."""

    code: str
    severity: Literal["error", "warning"]
    message: str
    location: Location


class GangCandidate(TypedDict):
    """A pod-group member that applies to a component: one of its own, or one
    of an ancestor's.
    """

    podGroup: str
    member: str
    field: str
    filters: List[str]
    groupByKeyPaths: List[str]


class _GangGroupRequired(TypedDict):
    name: str
    podGroup: str
    keys: List[str]
    minMember: int
    members: List[str]
    subGroups: List[SubGroupState]


class GangGroup(_GangGroupRequired, total=False):
    """One pod group formed by the given pods."""

    component: Optional[str]
    minSubGroups: Optional[int]
    topology: Optional[Topology]


class GangReport(TypedDict):
    """Gang groups of a set of pods."""

    groups: List[GangGroup]
    pods: List[PodGang]


class _GangStructureRequired(TypedDict):
    components: List[str]
    leaves: List[str]
    parents: Dict[str, str]
    children: Dict[str, List[str]]
    hasScaleDefinition: bool


class GangStructure(_GangStructureRequired, total=False):
    """The structure of a definition as gang scheduling reads it: what the
    reference library computes once per definition (its "structure
    summary"). Maps are keyed by component name (names are unique in a
    valid definition); `components` gives the order.
    """

    candidates: Optional[Dict[str, List[GangCandidate]]]


class Gvk(TypedDict, total=False):
    """A group/version/kind."""

    group: str
    version: str
    kind: str


class HumanAmounts(TypedDict):
    """Every amount of a value, written for people (see [`human_amounts`]):
    per unit, each number met and its text.
    """

    millicores: Dict[str, Any]
    bytes: Dict[str, Any]


class _InstanceRequired(TypedDict):
    id: str
    present: bool
    desiredReplicas: int
    resources: ResourceSummary


class Instance(_InstanceRequired, total=False):
    """One instance of a component."""

    scale: Optional[Scale]
    podTemplate: Any
    fragments: Optional[Dict[str, Any]]
    podResources: Optional[ResourceSummary]
    live: Optional[Live]


class _LiveRequired(TypedDict):
    pods: List[PodAttribution]
    ready: int
    nodes: List[str]


class Live(_LiveRequired, total=False):
    """Live state of one instance, from its pods."""

    scale: Optional[LiveScale]


class LivePods(TypedDict):
    """The pods of a listed workload that exist (their controller chains lead
    to it by uid), and have not finished: phase Pending, Running or
    Unknown. Succeeded and Failed pods hold nothing and are not counted.
    """

    pods: int
    ready: int
    gpus: int
    pendingGpus: int


class LiveScale(TypedDict):
    """The live count of an autoscaled instance."""

    replicas: int
    declared: int
    scaledBy: List[str]


class Location(TypedDict, total=False):
    """Where something happened. Every part is optional; only the parts that are
    known are set (and serialized).
    """

    document: Optional[int]
    field: Optional[str]
    line: Optional[int]
    column: Optional[int]
    expression: Optional[str]
    span: Optional[List[int]]
    component: Optional[str]
    instance: Optional[str]
    objectPath: Optional[str]
    request: Optional[str]


class MatcherExplanation(TypedDict):
    """One matcher (`statusMappings.<key>[i]`): the AND of its criteria."""

    field: str
    outcome: Literal["matched", "notMatched", "error", "skipped"]
    checks: List[Check]


class OwnerKind(TypedDict):
    """An owner kind to fetch: the controller of a pod (or of another owner)
    that was not given, by its `apiVersion` and `kind`.
    """

    apiVersion: str
    kind: str


class OwnerState(TypedDict):
    """Why a listed object's controller chain could not be followed to the
    top ([`ListOptions::owners_complete`]).
    """

    state: Literal["orphaned", "unreadable"]
    apiVersion: str
    kind: str
    name: str
    uid: str


class PatchOp1(TypedDict):
    op: Literal["add"]
    path: str
    value: Any


class PatchOp2(TypedDict):
    op: Literal["remove"]
    path: str


class PatchOp3(TypedDict):
    op: Literal["replace"]
    path: str
    value: Any


class _PhaseExplanationRequired(TypedDict):
    field: str
    expression: str


class PhaseExplanation(_PhaseExplanationRequired, total=False):
    """How the phase was extracted."""

    value: Optional[str]


class _PodAttributionRequired(TypedDict):
    name: str
    phase: str
    ready: bool
    resources: ResourceSummary
    findings: List[PodFinding]


class PodAttribution(_PodAttributionRequired, total=False):
    """One pod, attributed."""

    namespace: Optional[str]
    component: Optional[str]
    instance: Optional[str]
    replicaKey: Optional[str]
    reason: Optional[str]
    message: Optional[str]
    node: Optional[str]


class PodFinding(TypedDict):
    """Why a pod could not be attributed cleanly."""

    code: str
    message: str


class _PodGangRequired(TypedDict):
    pod: str
    groupKeys: List[str]
    findings: List[PodFinding]


class PodGang(_PodGangRequired, total=False):
    """The gang-scheduling answer for one pod."""

    component: Optional[str]
    effectiveComponent: Optional[str]
    podGroup: Optional[str]
    instance: Optional[str]
    groupName: Optional[str]


class _PodTemplatePlaceRequired(TypedDict):
    component: str
    field: str
    part: Literal["template", "spec", "metadata", "fragment"]
    path: str
    value: TextSpan


class PodTemplatePlace(_PodTemplatePlaceRequired, total=False):
    """Where a component instance's pod template (or a part of it) is in the
    object.
    """

    instance: Optional[str]
    key: Optional[TextSpan]


class _ResolvedRequired(TypedDict):
    apiVersion: str
    kind: str
    definition: DefinitionRef
    workload: WorkloadRef
    components: List[Component]
    totals: Totals
    tree: TreeNode
    warnings: List[str]


class Resolved(_ResolvedRequired, total=False):
    """A workload resolved through its definition."""

    status: Optional[Status]
    unattributedPods: Optional[List[PodAttribution]]
    strayPods: List[PodAttribution]


class ResourceSummary(TypedDict):
    """A pod's (or a group of pods') resources reduced to the numbers a report
    shows.

    Serialized in camelCase (`cpuMillis`, `memoryBytes`, …); `extended` is
    left out when empty and otherwise maps names to canonical quantity
    strings.
    """

    gpu: int
    cpuMillis: int
    memoryBytes: int
    ephemeralStorageBytes: int
    extended: Dict[str, Quantity]


class Scale(TypedDict, total=False):
    """Replica counts."""

    replicas: Optional[int]
    minReplicas: Optional[int]
    maxReplicas: Optional[int]


class SourceMap(TypedDict):
    """Where things are in a text: every object, and the answer to every
    question, in the order asked (see [`source_map`]).
    """

    objects: List[SourceObject]
    places: List[Optional[SourcePlace]]


class SourceObject(TypedDict):
    """One object of the text (a document, an item of a list document, an
    element of an array), in the order the engine reads objects
    (`read_objects`: pods, workloads, definitions).
    """

    document: int
    path: str
    value: TextSpan
    podTemplates: List[PodTemplatePlace]


class _SourcePlaceRequired(TypedDict):
    document: int
    path: str
    exact: bool
    value: TextSpan


class SourcePlace(_SourcePlaceRequired, total=False):
    """Where a value is: the answer to a [`SourceQuery`]."""

    key: Optional[TextSpan]
    span: Optional[TextSpan]


class _StatusRequired(TypedDict):
    conditions: List[Condition]
    matchedStatuses: List[Literal["Resuming", "Suspending", "Suspended", "Running", "Failed", "Completed", "Initializing", "Degraded", "Undefined"]]


class Status(_StatusRequired, total=False):
    """Normalized status."""

    phase: Optional[str]


class _StatusExplanationRequired(TypedDict):
    component: str
    categories: List[CategoryExplanation]
    matchedStatuses: List[Literal["Resuming", "Suspending", "Suspended", "Running", "Failed", "Completed", "Initializing", "Degraded", "Undefined"]]
    components: List[ComponentStatusExplanation]


class StatusExplanation(_StatusExplanationRequired, total=False):
    """Why an object has the status it has: the root component's explanation,
    plus one for each child component with a `statusDefinition` of its own.
    Its JSON has the root's fields at the top level (`component`, `phase`,
    `conditions`, `categories`, `matchedStatuses`, `error`) and `components`.
    """

    phase: Optional[PhaseExplanation]
    conditions: Optional[ConditionsExplanation]
    error: Optional[EngineError]


class _SubGroupStateRequired(TypedDict):
    component: str
    minMember: int
    members: List[str]


class SubGroupState(_SubGroupStateRequired, total=False):
    """A subgroup of a `podGroup`."""

    topology: Optional[Topology]


class TextPosition(TypedDict):
    """A position in a text."""

    line: int
    column: int
    offset: int


class TextSpan(TypedDict):
    """A range of a text, `[start, end)`."""

    start: TextPosition
    end: TextPosition


class Topology(TypedDict, total=False):
    """Topology constraint."""

    topologyName: str
    preferredTopologyLevel: str
    requiredTopologyLevel: str


class Totals(TypedDict):
    """Pod and resource totals."""

    pods: int
    resources: ResourceSummary


class TreeNode(TypedDict):
    """A node of the component tree."""

    component: str
    children: List[TreeNode]


class UpdateResult(TypedDict):
    """The result of an update."""

    object: Any
    patch: List[PatchOp]


class Usage(TypedDict):
    """GPU and pod requests by namespace and by type, and in total."""

    byNamespace: List[UsageRow]
    byType: List[UsageRow]
    total: UsageRow
    podsRead: bool


class UsageRow(TypedDict):
    """GPUs and pods of a group of workloads (`top`): what the active ones
    declare, and what the pods that exist hold.

    The rule, the same for every type: a workload whose matched statuses
    include Suspended, Suspending, Completed or Failed is *inactive*, and
    declares nothing here, whatever its structure says (a suspended JobSet
    keeps its replica counts, a suspended InferenceService drops them: both
    count 0). Its GPUs are in `inactiveGpus` instead. What its pods still
    hold (pods being torn down, a finished job's pods not yet gone) is in
    `heldGpus` like any other pod's.
    """

    key: str
    workloads: int
    pods: int
    gpus: int
    inactive: int
    inactiveGpus: int
    heldPods: int
    heldGpus: int
    pendingGpus: int
    errors: int


class _WorkloadRefRequired(TypedDict):
    apiVersion: str
    kind: str
    name: str


class WorkloadRef(_WorkloadRefRequired, total=False):
    """Identity of the resolved object."""

    namespace: Optional[str]
    uid: Optional[str]


class _WorkloadSummaryRequired(TypedDict):
    name: str
    apiVersion: str
    kind: str
    statuses: List[Literal["Resuming", "Suspending", "Suspended", "Running", "Failed", "Completed", "Initializing", "Degraded", "Undefined"]]
    pods: int
    gpus: int


class WorkloadSummary(_WorkloadSummaryRequired, total=False):
    """One workload of a listing: what `get` shows in a row."""

    namespace: Optional[str]
    uid: Optional[str]
    created: Optional[str]
    definition: Optional[str]
    origin: Optional[Literal["catalog", "user", "cluster"]]
    phase: Optional[str]
    error: Optional[EngineError]
    owner: Optional[OwnerState]
    declaredPods: Optional[int]
    live: Optional[LivePods]
    reason: Optional[str]


#: One JSON Patch operation.
PatchOp = Union[PatchOp1, PatchOp2, PatchOp3]

#: A Kubernetes resource quantity in canonical form, e.g. `2`, `500m`, `4Gi`.
Quantity = str
