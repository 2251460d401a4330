//! The stable codes of the validation findings (`docs/validation.md` is
//! the reference table). Below both the reading of definitions, whose
//! warnings carry some of them, and validation.

/// Two components have the same name (reported at the later one).
pub(crate) const DUPLICATE_COMPONENT_NAME: &str = "duplicate-component-name";
/// A component has an empty name.
pub(crate) const EMPTY_COMPONENT_NAME: &str = "empty-component-name";
/// The root has no complete kind (group may be empty only for `Pod`).
pub(crate) const ROOT_KIND_INCOMPLETE: &str = "root-kind-incomplete";
/// The root has an `ownerRef`.
pub(crate) const ROOT_OWNER_REF: &str = "root-owner-ref";
/// The root has no `statusDefinition`.
pub(crate) const ROOT_STATUS_DEFINITION_MISSING: &str = "root-status-definition-missing";
/// A child has no (or an empty) `ownerRef`.
pub(crate) const MISSING_OWNER_REF: &str = "missing-owner-ref";
/// A child's `ownerRef` names no component.
pub(crate) const UNKNOWN_OWNER_REF: &str = "unknown-owner-ref";
/// More than one of `podTemplateSpecPath`, `podSpecPath`,
/// `fragmentedPodSpecDefinition`.
pub(crate) const MULTIPLE_POD_SPEC_DEFINITIONS: &str = "multiple-pod-spec-definitions";
/// `instanceIdPath` without `podSelector.componentInstanceSelector`.
pub(crate) const INSTANCE_ID_PATH_WITHOUT_SELECTOR: &str = "instance-id-path-without-selector";
/// `componentInstanceSelector` without `instanceIdPath`.
pub(crate) const INSTANCE_SELECTOR_WITHOUT_ID_PATH: &str = "instance-selector-without-id-path";
/// `componentTypeSelector` with neither `keyPath` nor `matchLabels`.
pub(crate) const TYPE_SELECTOR_EMPTY: &str = "type-selector-empty";
/// `componentTypeSelector.matchLabels` is an empty map.
pub(crate) const TYPE_SELECTOR_EMPTY_MATCH_LABELS: &str = "type-selector-empty-match-labels";
/// `componentTypeSelector.value` without `keyPath`.
pub(crate) const TYPE_SELECTOR_VALUE_WITHOUT_KEY_PATH: &str =
    "type-selector-value-without-key-path";
/// A `matchLabels` key is not a valid Kubernetes label key.
pub(crate) const INVALID_LABEL_KEY: &str = "invalid-label-key";
/// A `matchLabels` value is not a valid Kubernetes label value.
pub(crate) const INVALID_LABEL_VALUE: &str = "invalid-label-value";
/// `ownerRef` links form a cycle.
pub(crate) const OWNERSHIP_CYCLE: &str = "ownership-cycle";
/// A `podGroups[].members[].componentName` names no component.
pub(crate) const UNDEFINED_POD_GROUP_MEMBER: &str = "undefined-pod-group-member";
/// Two pod groups have the same name.
pub(crate) const DUPLICATE_POD_GROUP_NAME: &str = "duplicate-pod-group-name";
/// A pod group lists the same member component twice.
pub(crate) const DUPLICATE_POD_GROUP_MEMBER: &str = "duplicate-pod-group-member";
/// A `podGroup.subGroups[].componentName` is empty.
pub(crate) const EMPTY_SUBGROUP_COMPONENT_NAME: &str = "empty-subgroup-component-name";
/// A `podGroup.subGroups[].componentName` names no component.
pub(crate) const UNDEFINED_SUBGROUP_COMPONENT: &str = "undefined-subgroup-component";
/// Two subgroups name the same component.
pub(crate) const DUPLICATE_SUBGROUP_COMPONENT: &str = "duplicate-subgroup-component";
/// A topology without `topologyName`.
pub(crate) const TOPOLOGY_MISSING_NAME: &str = "topology-missing-name";
/// A topology with neither `preferredTopologyLevel` nor `requiredTopologyLevel`.
pub(crate) const TOPOLOGY_MISSING_LEVEL: &str = "topology-missing-level";
/// `suspendActions` or `resumeActions` is empty.
pub(crate) const EMPTY_ACTION_LIST: &str = "empty-action-list";
/// A suspend/resume action has an empty `path`.
pub(crate) const EMPTY_ACTION_PATH: &str = "empty-action-path";
/// A suspend/resume action `value` is not valid JSON.
pub(crate) const INVALID_ACTION_VALUE: &str = "invalid-action-value";
/// `phaseDefinition.path` is empty.
pub(crate) const EMPTY_PHASE_PATH: &str = "empty-phase-path";
/// `conditionsDefinition.path` is empty.
pub(crate) const EMPTY_CONDITIONS_PATH: &str = "empty-conditions-path";
/// `byConditions[].type` is empty.
pub(crate) const EMPTY_CONDITION_TYPE: &str = "empty-condition-type";
/// `byExpression.expression` is empty.
pub(crate) const EMPTY_EXPRESSION: &str = "empty-expression";
/// `componentInstanceSelector.idPath` is empty.
pub(crate) const EMPTY_INSTANCE_SELECTOR_ID_PATH: &str = "empty-instance-selector-id-path";
/// `replicaSelector.keyPath` is empty.
pub(crate) const EMPTY_REPLICA_SELECTOR_KEY_PATH: &str = "empty-replica-selector-key-path";
/// Warning: no component has a pod definition.
pub(crate) const NO_POD_DEFINITION: &str = "no-pod-definition";
/// A jq expression does not parse.
pub(crate) const JQ_SYNTAX: &str = "jq-syntax";
/// A jq expression uses a denied construct.
pub(crate) const JQ_DENIED: &str = "jq-denied";
/// A jq expression exceeds a size/nesting limit.
pub(crate) const JQ_LIMIT: &str = "jq-limit";
/// A jq expression parses but calls a function (or uses a variable)
/// that does not exist, so it cannot be compiled.
pub(crate) const JQ_UNDEFINED: &str = "jq-undefined";
/// Warning (reading): an unknown field is ignored.
pub(crate) const UNKNOWN_FIELD: &str = "unknown-field";
/// Warning (reading): a `Karta`-only field in a `ResourceInterface`.
pub(crate) const NEWER_GENERATION_FIELD: &str = "newer-generation-field";
