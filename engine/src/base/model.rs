//! The definition data model: the Workload Map format (`run.ai/v1alpha1`
//! `Karta`, and the older `optimization.nvidia.com/v1alpha1`
//! `ResourceInterface`), read as-is.
//!
//! Field names are the format's own (camelCase in JSON/YAML). Optional fields
//! are `Option`s or default to empty; the engine never mutates a definition.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// API version of the current format.
pub const API_VERSION_KARTA: &str = "run.ai/v1alpha1";
/// Kind of the current format.
pub const KIND_KARTA: &str = "Karta";
/// API version of the older format.
pub const API_VERSION_RESOURCE_INTERFACE: &str = "optimization.nvidia.com/v1alpha1";
/// Kind of the older format.
pub const KIND_RESOURCE_INTERFACE: &str = "ResourceInterface";

/// Which generation of the format a definition is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Generation {
    /// `run.ai/v1alpha1` `Karta`.
    Karta,
    /// `optimization.nvidia.com/v1alpha1` `ResourceInterface`.
    ResourceInterface,
}

/// A workload definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Definition {
    /// `run.ai/v1alpha1` or `optimization.nvidia.com/v1alpha1`.
    pub api_version: String,
    /// `Karta` or `ResourceInterface`.
    pub kind: String,
    /// Object metadata; only `name` is used by the engine.
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// The definition proper.
    pub spec: DefinitionSpec,
    /// Written by the operator in a cluster; ignored by the engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<serde_json::Value>,
}

/// Metadata of a definition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectMeta {
    /// Definition name (catalog slug, e.g. `jobset-x-k8s-io-jobset-v1alpha2`).
    #[serde(default)]
    pub name: String,
    /// Labels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Any other metadata field (uid, resourceVersion, ...), kept verbatim.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

/// `spec` of a definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionSpec {
    /// The component structure.
    pub structure_definition: StructureDefinition,
    /// Scheduling hints (gang scheduling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub optimization_instructions: Option<OptimizationInstructions>,
    /// Which pods are the workload's when their owner chain cannot be
    /// followed (a workload-lens extension; optional, ignored elsewhere).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_ownership: Option<PodOwnership>,
}

/// `podOwnership` (a workload-lens extension): the labels by which the
/// operator names the workload on its pods.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodOwnership {
    /// A jq expression over the workload object yielding a map of label
    /// keys to values (`{"jobset.sigs.k8s.io/jobset-name": .metadata.name}`)
    /// that every pod of the workload carries.
    #[serde(default)]
    pub labels_path: String,
    /// A jq expression over the workload object yielding a map of label
    /// keys to values that its *current* pods carry
    /// (`{"jobset.sigs.k8s.io/restart-attempt": (.status.restarts // 0 | tostring)}`):
    /// a pod that carries one of these keys with another value is left
    /// over from an earlier generation (a restart attempt) and is not one
    /// of the workload's pods, whatever its owner chain says. Pods without
    /// the key are not judged by it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub current_labels_path: String,
}

/// `spec.structureDefinition`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StructureDefinition {
    /// The workload object itself.
    pub root_component: ComponentDefinition,
    /// Named parts of the workload, linked to their parent by `ownerRef`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub child_components: Vec<ComponentDefinition>,
    /// Kinds the controller creates that are not modelled as components.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_child_kinds: Vec<Gvk>,
}

/// A group/version/kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Gvk {
    /// API group (`""` for the core group).
    #[serde(default)]
    pub group: String,
    /// API version.
    #[serde(default)]
    pub version: String,
    /// Kind.
    #[serde(default)]
    pub kind: String,
}

impl Gvk {
    /// A new GVK.
    pub fn new(group: &str, version: &str, kind: &str) -> Self {
        Gvk {
            group: group.into(),
            version: version.into(),
            kind: kind.into(),
        }
    }

    /// Parse an object's `apiVersion` (`group/version` or `version` for the
    /// core group) and `kind`.
    pub fn from_api_version(api_version: &str, kind: &str) -> Self {
        match api_version.split_once('/') {
            Some((g, v)) => Gvk::new(g, v, kind),
            None => Gvk::new("", api_version, kind),
        }
    }

    /// `group/version` or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

impl std::fmt::Display for Gvk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, Kind={}", self.api_version(), self.kind)
    }
}

/// One component of the structure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentDefinition {
    /// Unique name.
    #[serde(default)]
    pub name: String,
    /// The Kubernetes kind this component materializes as.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<Gvk>,
    /// Name of the parent component (children only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner_ref: Option<String>,
    /// Where the pod template of this component lives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_definition: Option<SpecDefinition>,
    /// Where the replica counts live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_definition: Option<ScaleDefinition>,
    /// How native status maps to the shared vocabulary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_definition: Option<StatusDefinition>,
    /// Makes the component multi-instance: each output is an instance id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_id_path: Option<String>,
    /// How pods are attributed to this component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_selector: Option<PodSelector>,
    /// Suspend/resume actions (`run.ai/v1alpha1` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend_definition: Option<SuspendDefinition>,
}

impl ComponentDefinition {
    /// True when the component has pods of its own: one of
    /// `podTemplateSpecPath`, `podSpecPath` or `fragmentedPodSpecDefinition`
    /// (`metadataPath` alone does not count).
    pub fn has_pod_definition(&self) -> bool {
        self.spec_definition.as_ref().is_some_and(|s| {
            s.pod_template_spec_path.is_some()
                || s.pod_spec_path.is_some()
                || s.fragmented_pod_spec_definition.is_some()
        })
    }
}

/// `specDefinition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecDefinition {
    /// Each output is a PodTemplateSpec (`{metadata, spec}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_template_spec_path: Option<String>,
    /// Each output is a bare PodSpec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_spec_path: Option<String>,
    /// Each output is an ObjectMeta used as the pod metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata_path: Option<String>,
    /// The pod spec scattered over several fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragmented_pod_spec_definition: Option<FragmentedPodSpecDefinition>,
}

/// `fragmentedPodSpecDefinition`: one jq path per pod spec field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FragmentedPodSpecDefinition {
    /// `string`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduler_name_path: Option<String>,
    /// `map string -> string`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels_path: Option<String>,
    /// `map string -> string`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations_path: Option<String>,
    /// ResourceRequirements
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_path: Option<String>,
    /// list of PodResourceClaim
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_claims_path: Option<String>,
    /// PodAffinity
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_affinity_path: Option<String>,
    /// NodeAffinity
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_affinity_path: Option<String>,
    /// list of Container
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers_path: Option<String>,
    /// a single (main) Container
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_path: Option<String>,
    /// `string`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority_class_name_path: Option<String>,
    /// `string`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_path: Option<String>,
}

/// The fields of a fragmented pod spec, in the reference's update order.
pub const FRAGMENT_FIELDS: [FragmentField; 11] = [
    FragmentField::SchedulerName,
    FragmentField::PriorityClassName,
    FragmentField::Image,
    FragmentField::Labels,
    FragmentField::Annotations,
    FragmentField::Resources,
    FragmentField::PodAffinity,
    FragmentField::NodeAffinity,
    FragmentField::Container,
    FragmentField::ResourceClaims,
    FragmentField::Containers,
];

/// One field of a fragmented pod spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FragmentField {
    /// `schedulerNamePath`
    SchedulerName,
    /// `labelsPath`
    Labels,
    /// `annotationsPath`
    Annotations,
    /// `resourcesPath`
    Resources,
    /// `resourceClaimsPath`
    ResourceClaims,
    /// `podAffinityPath`
    PodAffinity,
    /// `nodeAffinityPath`
    NodeAffinity,
    /// `containersPath`
    Containers,
    /// `containerPath`
    Container,
    /// `priorityClassNamePath`
    PriorityClassName,
    /// `imagePath`
    Image,
}

/// The JSON type an output of a fragment path converts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FragmentType {
    /// A string.
    String,
    /// A map of strings to strings.
    StringMap,
    /// An object.
    Object,
    /// An array of objects.
    ObjectList,
}

impl FragmentField {
    /// The definition key of the path, e.g. `schedulerNamePath`.
    pub fn path_key(self) -> &'static str {
        match self {
            FragmentField::SchedulerName => "schedulerNamePath",
            FragmentField::Labels => "labelsPath",
            FragmentField::Annotations => "annotationsPath",
            FragmentField::Resources => "resourcesPath",
            FragmentField::ResourceClaims => "resourceClaimsPath",
            FragmentField::PodAffinity => "podAffinityPath",
            FragmentField::NodeAffinity => "nodeAffinityPath",
            FragmentField::Containers => "containersPath",
            FragmentField::Container => "containerPath",
            FragmentField::PriorityClassName => "priorityClassNamePath",
            FragmentField::Image => "imagePath",
        }
    }

    /// The key in a resolved fragment, e.g. `schedulerName`.
    pub fn value_key(self) -> &'static str {
        match self {
            FragmentField::SchedulerName => "schedulerName",
            FragmentField::Labels => "labels",
            FragmentField::Annotations => "annotations",
            FragmentField::Resources => "resources",
            FragmentField::ResourceClaims => "resourceClaims",
            FragmentField::PodAffinity => "podAffinity",
            FragmentField::NodeAffinity => "nodeAffinity",
            FragmentField::Containers => "containers",
            FragmentField::Container => "container",
            FragmentField::PriorityClassName => "priorityClassName",
            FragmentField::Image => "image",
        }
    }

    /// Human name used in messages (`scheduler name`).
    pub fn human(self) -> &'static str {
        match self {
            FragmentField::SchedulerName => "scheduler name",
            FragmentField::Labels => "labels",
            FragmentField::Annotations => "annotations",
            FragmentField::Resources => "resources",
            FragmentField::ResourceClaims => "resource claims",
            FragmentField::PodAffinity => "pod affinity",
            FragmentField::NodeAffinity => "node affinity",
            FragmentField::Containers => "containers",
            FragmentField::Container => "container",
            FragmentField::PriorityClassName => "priority class name",
            FragmentField::Image => "image",
        }
    }

    /// Target type of each output.
    pub fn target(self) -> FragmentType {
        match self {
            FragmentField::SchedulerName
            | FragmentField::PriorityClassName
            | FragmentField::Image => FragmentType::String,
            FragmentField::Labels | FragmentField::Annotations => FragmentType::StringMap,
            FragmentField::Resources
            | FragmentField::PodAffinity
            | FragmentField::NodeAffinity
            | FragmentField::Container => FragmentType::Object,
            FragmentField::ResourceClaims | FragmentField::Containers => FragmentType::ObjectList,
        }
    }
}

impl FragmentedPodSpecDefinition {
    /// The path configured for a field.
    pub fn path(&self, field: FragmentField) -> Option<&String> {
        match field {
            FragmentField::SchedulerName => self.scheduler_name_path.as_ref(),
            FragmentField::Labels => self.labels_path.as_ref(),
            FragmentField::Annotations => self.annotations_path.as_ref(),
            FragmentField::Resources => self.resources_path.as_ref(),
            FragmentField::ResourceClaims => self.resource_claims_path.as_ref(),
            FragmentField::PodAffinity => self.pod_affinity_path.as_ref(),
            FragmentField::NodeAffinity => self.node_affinity_path.as_ref(),
            FragmentField::Containers => self.containers_path.as_ref(),
            FragmentField::Container => self.container_path.as_ref(),
            FragmentField::PriorityClassName => self.priority_class_name_path.as_ref(),
            FragmentField::Image => self.image_path.as_ref(),
        }
    }
}

/// `scaleDefinition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScaleDefinition {
    /// Desired replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas_path: Option<String>,
    /// Minimum replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_replicas_path: Option<String>,
    /// Maximum replicas.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_replicas_path: Option<String>,
}

/// `statusDefinition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusDefinition {
    /// Where the raw phase string is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_definition: Option<PhaseDefinition>,
    /// Where the conditions are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions_definition: Option<ConditionsDefinition>,
    /// One list of matchers per normalized status.
    #[serde(default)]
    pub status_mappings: StatusMappings,
}

/// `phaseDefinition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PhaseDefinition {
    /// jq path of the phase.
    #[serde(default)]
    pub path: String,
}

/// `conditionsDefinition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConditionsDefinition {
    /// jq path; each output is an array of condition objects (or null).
    #[serde(default)]
    pub path: String,
    /// Key of the condition type (default `type`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_field_name: Option<String>,
    /// Key of the condition status (default `status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_field_name: Option<String>,
    /// Key of the condition message (default `message`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_field_name: Option<String>,
    /// Key of the condition reason (default `reason`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason_field_name: Option<String>,
}

/// The normalized statuses, in evaluation order.
pub const STATUS_ORDER: [StatusKey; 8] = [
    StatusKey::Resuming,
    StatusKey::Suspending,
    StatusKey::Suspended,
    StatusKey::Running,
    StatusKey::Failed,
    StatusKey::Completed,
    StatusKey::Initializing,
    StatusKey::Degraded,
];

/// A normalized status (a mapping key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum StatusKey {
    /// `resuming`
    Resuming,
    /// `suspending`
    Suspending,
    /// `suspended`
    Suspended,
    /// `running`
    Running,
    /// `failed`
    Failed,
    /// `completed`
    Completed,
    /// `initializing`
    Initializing,
    /// `degraded`
    Degraded,
}

impl StatusKey {
    /// The mapping key, e.g. `running`.
    pub fn key(self) -> &'static str {
        match self {
            StatusKey::Resuming => "resuming",
            StatusKey::Suspending => "suspending",
            StatusKey::Suspended => "suspended",
            StatusKey::Running => "running",
            StatusKey::Failed => "failed",
            StatusKey::Completed => "completed",
            StatusKey::Initializing => "initializing",
            StatusKey::Degraded => "degraded",
        }
    }
}

/// `statusMappings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusMappings {
    /// `initializing`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initializing: Option<Vec<StatusMatcher>>,
    /// `running`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<Vec<StatusMatcher>>,
    /// `completed`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed: Option<Vec<StatusMatcher>>,
    /// `failed`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<Vec<StatusMatcher>>,
    /// `degraded`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded: Option<Vec<StatusMatcher>>,
    /// `suspended` (`run.ai/v1alpha1` only)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspended: Option<Vec<StatusMatcher>>,
    /// `suspending` (`run.ai/v1alpha1` only)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspending: Option<Vec<StatusMatcher>>,
    /// `resuming` (`run.ai/v1alpha1` only)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resuming: Option<Vec<StatusMatcher>>,
}

impl StatusMappings {
    /// The matchers of one status.
    pub fn get(&self, key: StatusKey) -> Option<&Vec<StatusMatcher>> {
        match key {
            StatusKey::Resuming => self.resuming.as_ref(),
            StatusKey::Suspending => self.suspending.as_ref(),
            StatusKey::Suspended => self.suspended.as_ref(),
            StatusKey::Running => self.running.as_ref(),
            StatusKey::Failed => self.failed.as_ref(),
            StatusKey::Completed => self.completed.as_ref(),
            StatusKey::Initializing => self.initializing.as_ref(),
            StatusKey::Degraded => self.degraded.as_ref(),
        }
    }
}

/// One status matcher: all present criteria must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusMatcher {
    /// The phase must equal this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_phase: Option<String>,
    /// Every listed condition must be present and agree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_conditions: Option<Vec<ExpectedCondition>>,
    /// The stringified first output of the expression must equal `expectedResult`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_expression: Option<ByExpression>,
}

/// One expected condition of `byConditions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpectedCondition {
    /// Condition type.
    #[serde(default, rename = "type")]
    pub type_: String,
    /// Expected status (`True`, `False`, `Unknown`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Expected reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `byExpression`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ByExpression {
    /// jq expression over the workload.
    #[serde(default)]
    pub expression: String,
    /// Expected text of its first output (after `tostring`).
    #[serde(default)]
    pub expected_result: String,
}

/// `podSelector`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSelector {
    /// Which component a pod belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component_type_selector: Option<ComponentTypeSelector>,
    /// Which instance of a multi-instance component a pod belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component_instance_selector: Option<ComponentInstanceSelector>,
    /// Which replica a pod belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replica_selector: Option<ReplicaSelector>,
}

/// `componentTypeSelector`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentTypeSelector {
    /// jq path over the pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_path: Option<String>,
    /// Expected string value at `keyPath` (absent: the value must be non-null).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// Labels the pod must carry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_labels: Option<BTreeMap<String, String>>,
}

/// `componentInstanceSelector`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ComponentInstanceSelector {
    /// jq path over the pod yielding the instance id.
    #[serde(default)]
    pub id_path: String,
}

/// `replicaSelector`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSelector {
    /// jq path over the pod yielding the replica key.
    #[serde(default)]
    pub key_path: String,
}

/// `suspendDefinition`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuspendDefinition {
    /// Applied in order to suspend.
    #[serde(default)]
    pub suspend_actions: Vec<Action>,
    /// Applied in order to resume.
    #[serde(default)]
    pub resume_actions: Vec<Action>,
}

/// A write action: set `path` to the JSON-decoded `value`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Action {
    /// jq path to write.
    #[serde(default)]
    pub path: String,
    /// JSON-encoded value (`"true"`, `"\"Suspended\""`).
    #[serde(default)]
    pub value: String,
}

/// `optimizationInstructions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OptimizationInstructions {
    /// Gang scheduling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gang_scheduling: Option<GangScheduling>,
}

/// `gangScheduling`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GangScheduling {
    /// The list form (`podGroups`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_groups: Option<Vec<PodGroupDefinition>>,
    /// The newer single form with subgroups and topology (`podGroup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_group: Option<PodGroupV2>,
}

/// One entry of `podGroups`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupDefinition {
    /// Group name.
    #[serde(default)]
    pub name: String,
    /// Members.
    #[serde(default)]
    pub members: Vec<PodGroupMember>,
}

/// One member of a pod group.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupMember {
    /// Component name.
    #[serde(default)]
    pub component_name: String,
    /// jq paths over the pod whose values split the group.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub group_by_key_paths: Vec<String>,
    /// jq filters over the pod; all must yield `true`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<String>,
    /// A workload-lens extension: a jq expression over the **workload**
    /// yielding an object that maps instance ids of the member's component
    /// (the pods' own instance, when the member is their component; `""`
    /// otherwise) to the minimum member count of the groups its pods form,
    /// instead of the component's subtree scale (for groups the component
    /// tree cannot size, such as Grove's scaled PodGangs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_members_path: Option<String>,
}

/// `podGroup` (subgroups and topology).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodGroupV2 {
    /// Group name.
    #[serde(default)]
    pub name: String,
    /// Subgroups, one per component.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sub_groups: Vec<SubGroup>,
    /// Topology constraint of the whole group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
}

/// One subgroup.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubGroup {
    /// Component name.
    #[serde(default)]
    pub component_name: String,
    /// Topology constraint of the subgroup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
}

/// Topology constraint.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Topology {
    /// Topology name.
    #[serde(default)]
    pub topology_name: String,
    /// Preferred level.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub preferred_topology_level: String,
    /// Required level.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub required_topology_level: String,
}

impl Definition {
    /// The generation of the format, from apiVersion/kind.
    pub fn generation(&self) -> Option<Generation> {
        match (self.api_version.as_str(), self.kind.as_str()) {
            (API_VERSION_KARTA, KIND_KARTA) => Some(Generation::Karta),
            (API_VERSION_RESOURCE_INTERFACE, KIND_RESOURCE_INTERFACE) => {
                Some(Generation::ResourceInterface)
            }
            _ => None,
        }
    }

    /// The root component.
    pub fn root(&self) -> &ComponentDefinition {
        &self.spec.structure_definition.root_component
    }

    /// Root then children, in definition order.
    pub fn components(&self) -> impl Iterator<Item = &ComponentDefinition> {
        std::iter::once(self.root()).chain(self.spec.structure_definition.child_components.iter())
    }

    /// The root GVK (the type this definition describes), if complete.
    pub fn root_gvk(&self) -> Option<&Gvk> {
        self.root().kind.as_ref()
    }
}
