//! The resolved structure: the versioned JSON shape every runtime returns.
//!
//! Field names are camelCase; components keep definition order (root first),
//! instances keep the order their ids were extracted in, maps are sorted.
//! The JSON Schema in `docs/resolved.schema.json` is generated from these
//! types (see the `schema` test), so it cannot drift.

use crate::model::{Gvk, StatusKey};
use crate::resources::ResourceSummary;
use serde::Serialize;
use std::borrow::Cow;

/// `apiVersion` of the resolved structure.
pub(crate) const RESOLVED_API_VERSION: &str = "workload-lens.dev/v1alpha1";
/// `kind` of the resolved structure.
pub(crate) const RESOLVED_KIND: &str = "ResolvedWorkload";

/// A workload resolved through its definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Resolved<'a> {
    /// Always [`RESOLVED_API_VERSION`].
    pub api_version: Cow<'static, str>,
    /// Always [`RESOLVED_KIND`].
    pub kind: Cow<'static, str>,
    /// The definition used.
    pub definition: DefinitionRef<'a>,
    /// The object resolved.
    pub workload: WorkloadRef<'a>,
    /// Normalized status of the root component (absent when the root has no
    /// `statusDefinition`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
    /// Every component, root first, then children in definition order.
    pub components: Vec<Component<'a>>,
    /// Totals over every pod-bearing component.
    pub totals: Totals,
    /// The component tree (by name).
    // Borrowed from the definition, which builds it once.
    pub tree: Cow<'a, TreeNode>,
    /// Pods that were given but belong to no instance (only when pods were
    /// given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unattributed_pods: Option<Vec<PodAttribution>>,
    /// Pods that were given but are not this workload's (another namespace,
    /// or a controller chain or labels naming another workload), each with
    /// its `other-namespace` or `other-workload` finding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray_pods: Vec<PodAttribution>,
    /// Things worth knowing that did not stop resolution.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Which definition was used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DefinitionRef<'a> {
    /// `metadata.name` of the definition.
    pub name: Cow<'a, str>,
    /// Where it came from: `catalog`, `user` or `cluster`.
    pub origin: crate::definition::Origin,
    /// The definition format (`run.ai/v1alpha1` or `optimization.nvidia.com/v1alpha1`).
    pub format: Cow<'a, str>,
}

impl DefinitionRef<'_> {
    /// The reference holding its own copies of the definition's names.
    pub fn into_owned(self) -> DefinitionRef<'static> {
        DefinitionRef {
            name: Cow::Owned(self.name.into_owned()),
            origin: self.origin,
            format: Cow::Owned(self.format.into_owned()),
        }
    }
}

/// Identity of the resolved object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadRef<'a> {
    /// `apiVersion` of the object.
    pub api_version: Cow<'a, str>,
    /// `kind` of the object.
    pub kind: Cow<'a, str>,
    /// `metadata.name` (or `metadata.generateName` when there is no name).
    pub name: Cow<'a, str>,
    /// `metadata.namespace`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<Cow<'a, str>>,
    /// `metadata.uid`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<Cow<'a, str>>,
}

impl WorkloadRef<'_> {
    /// The identity holding its own copies of the object's strings.
    pub fn into_owned(self) -> WorkloadRef<'static> {
        WorkloadRef {
            api_version: owned(self.api_version),
            kind: owned(self.kind),
            name: owned(self.name),
            namespace: self.namespace.map(owned),
            uid: self.uid.map(owned),
        }
    }
}

/// One component.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Component<'a> {
    /// Component name.
    pub name: Cow<'a, str>,
    /// The Kubernetes kind it materializes as, if declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<Cow<'a, Gvk>>,
    /// True for the root component.
    pub root: bool,
    /// Parent component name (children only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<Cow<'a, str>>,
    /// Names of the child components, in definition order.
    pub children: Cow<'a, [String]>,
    /// True when the component has pods of its own.
    pub has_pod_definition: bool,
    /// True when the component has an `instanceIdPath`.
    pub multi_instance: bool,
    /// Instances (one with id `""` for single-instance components).
    pub instances: Vec<Instance<'a>>,
    /// Totals over the instances (zero for components without pods).
    pub totals: Totals,
    /// Status of this component, for children that have a `statusDefinition`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<Status>,
}

impl Component<'_> {
    /// The component holding its own copies of what its instances borrowed
    /// (pod templates, pod specs, fragments).
    pub fn into_owned(self) -> Component<'static> {
        Component {
            name: owned(self.name),
            kind: self.kind.map(owned),
            root: self.root,
            owner: self.owner.map(owned),
            children: owned(self.children),
            has_pod_definition: self.has_pod_definition,
            multi_instance: self.multi_instance,
            instances: self
                .instances
                .into_iter()
                .map(Instance::into_owned)
                .collect(),
            totals: self.totals,
            status: self.status,
        }
    }
}

/// One instance of a component.
///
/// Serialized (and in the JSON Schema) with `podTemplate` between
/// `desiredReplicas` and `fragments`: see [`Instance::pod_template`].
#[derive(Debug, Clone, PartialEq)]
pub struct Instance<'a> {
    /// Instance id (`""` for single-instance components).
    pub id: String,
    /// False when nothing of the instance exists in this object: every pod
    /// field (template, spec, fragments, metadata) and every scale path
    /// yields null (e.g. a PyTorchJob without a Master). An absent instance
    /// has no pods. A count without a pod template of its own is present.
    pub present: bool,
    /// Replica counts as extracted.
    pub scale: Option<Scale>,
    /// Effective desired replicas: `replicas`, else `minReplicas`, else 1;
    /// 0 when not present (and for a component without a pod definition);
    /// negative counts count as 0.
    pub desired_replicas: u64,
    /// The pod template as read, from a template or a pod spec (or from
    /// fragments with pod metadata of their own); `None` when it is
    /// assembled from `fragments` on reading. Borrowed from the object
    /// resolved where the template (or pod spec) is held there as the
    /// result gives it.
    pub(crate) template: Option<Template<'a>>,
    /// For fragmented definitions: every fragment extracted, by field.
    pub fragments: Option<Fragments<'a>>,
    /// The effective request of one pod.
    pub pod_resources: Option<ResourceSummary>,
    /// `podResources` × `desiredReplicas`.
    pub resources: ResourceSummary,
    /// Live state from the pods, when pods were given.
    pub live: Option<Live>,
}

impl Instance<'_> {
    /// The instance holding its own copies of what it borrowed (its pod
    /// template or spec, its fragments).
    pub fn into_owned(self) -> Instance<'static> {
        Instance {
            id: self.id,
            present: self.present,
            scale: self.scale,
            desired_replicas: self.desired_replicas,
            template: self.template.map(Template::into_owned),
            fragments: self.fragments.map(Fragments::into_owned),
            pod_resources: self.pod_resources,
            resources: self.resources,
            live: self.live,
        }
    }

    /// The pod template (`{metadata, spec}`), from any of the three styles.
    /// For fragmented definitions it is assembled from the fragments when
    /// it is read (the result holds each fragment once, not a second copy
    /// in the template), and around a borrowed pod spec (`podSpecPath`) it
    /// is made when read: call it once and keep the value when it is read
    /// more than once.
    pub fn pod_template(&self) -> Option<std::borrow::Cow<'_, serde_json::Value>> {
        match (&self.template, &self.fragments) {
            (Some(t), _) => Some(t.template()),
            (None, Some(f)) => Some(std::borrow::Cow::Owned(crate::pods::assemble(f))),
            (None, None) => None,
        }
    }
}

/// The fragments of an instance of a fragmented definition
/// (`fragmentedPodSpecDefinition`), by field (`image`, `resources`,
/// `container`, `labels`, ...) in the format's order of fields, each
/// borrowed from the object where it is held there. Serialized as a JSON
/// object.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Fragments<'a>(Vec<(&'static str, std::borrow::Cow<'a, serde_json::Value>)>);

impl<'a> Fragments<'a> {
    /// The fragment of `field` (`None`: none was extracted).
    pub fn get(&self, field: &str) -> Option<&serde_json::Value> {
        self.0.iter().find(|(k, _)| *k == field).map(|(_, v)| &**v)
    }

    /// Whether a fragment of `field` was extracted.
    pub fn contains_key(&self, field: &str) -> bool {
        self.get(field).is_some()
    }

    /// Every fragment, by field, in the format's order of fields.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &serde_json::Value)> {
        self.0.iter().map(|(k, v)| (*k, &**v))
    }

    /// How many fragments were extracted.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The fragments as a JSON object (copied).
    pub fn to_map(&self) -> serde_json::Map<String, serde_json::Value> {
        self.iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect()
    }

    /// The fragments holding their own copies.
    pub fn into_owned(self) -> Fragments<'static> {
        Fragments(
            self.0
                .into_iter()
                .map(|(k, v)| (k, std::borrow::Cow::Owned(v.into_owned())))
                .collect(),
        )
    }

    /// With room for `n` fragments.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Fragments(Vec::with_capacity(n))
    }

    /// Add the fragment of `field` (each field is extracted once).
    pub(crate) fn push(&mut self, field: &'static str, v: std::borrow::Cow<'a, serde_json::Value>) {
        self.0.push((field, v));
    }
}

impl crate::pods::FragmentSource for Fragments<'_> {
    fn fragment(&self, field: &str) -> Option<&serde_json::Value> {
        self.get(field)
    }
}

/// `fragments["image"]`; panics when there is none (as a JSON object's
/// index does): [`Fragments::get`] asks.
impl std::ops::Index<&str> for Fragments<'_> {
    type Output = serde_json::Value;

    fn index(&self, field: &str) -> &serde_json::Value {
        match self.get(field) {
            Some(v) => v,
            None => panic!("no fragment {field:?}"),
        }
    }
}

impl Serialize for Fragments<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, &**v)?;
        }
        m.end()
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Fragments<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <serde_json::Map<String, serde_json::Value>>::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        <serde_json::Map<String, serde_json::Value>>::schema_id()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <serde_json::Map<String, serde_json::Value>>::json_schema(g)
    }

    fn inline_schema() -> bool {
        <serde_json::Map<String, serde_json::Value>>::inline_schema()
    }
}

/// A pod template as an instance holds it.
#[derive(Debug, Clone)]
pub(crate) enum Template<'a> {
    /// The whole template: the object's own, or the result's (a copy of its
    /// kept fields, a template assembled from fragments, or one made whole
    /// by pod metadata).
    Whole(std::borrow::Cow<'a, serde_json::Value>),
    /// A pod spec of the object, held as the result keeps it: the template
    /// (`{"metadata": {}, "spec": spec}`) is made when it is read.
    Spec(&'a serde_json::Value),
}

impl<'a> Template<'a> {
    /// The template (`{metadata, spec}`).
    pub(crate) fn template(&self) -> std::borrow::Cow<'_, serde_json::Value> {
        match self {
            Template::Whole(t) => std::borrow::Cow::Borrowed(t.as_ref()),
            Template::Spec(s) => std::borrow::Cow::Owned(around_spec((*s).clone())),
        }
    }

    /// The template's `spec` (`None`: it has none).
    pub(crate) fn spec(&self) -> Option<&serde_json::Value> {
        match self {
            Template::Whole(t) => match &**t {
                serde_json::Value::Object(t) => crate::budget::member(t, "spec"),
                _ => None,
            },
            Template::Spec(s) => Some(s),
        }
    }

    /// The template, to be changed.
    pub(crate) fn to_mut(&mut self) -> &mut serde_json::Value {
        if let Template::Spec(s) = *self {
            *self = Template::Whole(std::borrow::Cow::Owned(around_spec(s.clone())));
        }
        match self {
            Template::Whole(t) => t.to_mut(),
            Template::Spec(_) => unreachable!("made whole above"),
        }
    }

    fn into_owned(self) -> Template<'static> {
        Template::Whole(std::borrow::Cow::Owned(match self {
            Template::Whole(t) => t.into_owned(),
            Template::Spec(s) => around_spec(s.clone()),
        }))
    }
}

/// Two templates are equal when they read the same, however held.
impl PartialEq for Template<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Template::Spec(a), Template::Spec(b)) => a == b,
            _ => self.template() == other.template(),
        }
    }
}

/// The template of a pod spec: `{"metadata": {}, "spec": spec}`.
pub(crate) fn around_spec(spec: serde_json::Value) -> serde_json::Value {
    let mut t = serde_json::Map::with_capacity(2);
    t.insert(
        "metadata".into(),
        serde_json::Value::Object(serde_json::Map::new()),
    );
    t.insert("spec".into(), spec);
    serde_json::Value::Object(t)
}

// An instance as it is written out: its fields in their order, the pod
// template assembled where it is not held. (Its doc comments are the JSON
// Schema's descriptions.)
/// One instance of a component.
#[derive(Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Instance"))]
#[serde(rename_all = "camelCase")]
struct InstanceOut<'a> {
    /// Instance id (`""` for single-instance components).
    id: &'a str,
    /// False when nothing of the instance exists in this object: every pod
    /// field (template, spec, fragments, metadata) and every scale path
    /// yields null (e.g. a PyTorchJob without a Master). An absent instance
    /// has no pods. A count without a pod template of its own is present.
    present: bool,
    /// Replica counts as extracted.
    #[serde(skip_serializing_if = "Option::is_none")]
    scale: Option<Scale>,
    /// Effective desired replicas: `replicas`, else `minReplicas`, else 1;
    /// 0 when not present (and for a component without a pod definition);
    /// negative counts count as 0.
    desired_replicas: u64,
    /// The pod template (`{metadata, spec}`), from any of the three styles;
    /// for fragmented definitions it is assembled from the fragments.
    #[serde(skip_serializing_if = "Option::is_none")]
    pod_template: Option<TemplateOut<'a>>,
    /// For fragmented definitions: every fragment extracted, by field.
    #[serde(skip_serializing_if = "Option::is_none")]
    fragments: Option<&'a Fragments<'a>>,
    /// The effective request of one pod.
    #[serde(skip_serializing_if = "Option::is_none")]
    pod_resources: Option<&'a ResourceSummary>,
    /// `podResources` × `desiredReplicas`.
    resources: &'a ResourceSummary,
    /// Live state from the pods, when pods were given.
    #[serde(skip_serializing_if = "Option::is_none")]
    live: Option<&'a Live>,
}

/// A pod template as it is written out: held (or assembled), or made
/// around a borrowed pod spec as it is written, without a copy of the spec.
enum TemplateOut<'a> {
    Held(std::borrow::Cow<'a, serde_json::Value>),
    Spec(&'a serde_json::Value),
}

impl Serialize for TemplateOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            TemplateOut::Held(t) => t.serialize(s),
            TemplateOut::Spec(spec) => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("metadata", &serde_json::Map::new())?;
                m.serialize_entry("spec", spec)?;
                m.end()
            }
        }
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for TemplateOut<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        serde_json::Value::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        serde_json::Value::schema_id()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        serde_json::Value::json_schema(g)
    }

    fn inline_schema() -> bool {
        serde_json::Value::inline_schema()
    }
}

impl Serialize for Instance<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        InstanceOut {
            id: &self.id,
            present: self.present,
            scale: self.scale,
            desired_replicas: self.desired_replicas,
            pod_template: match &self.template {
                Some(Template::Spec(s)) => Some(TemplateOut::Spec(s)),
                _ => self.pod_template().map(TemplateOut::Held),
            },
            fragments: self.fragments.as_ref(),
            pod_resources: self.pod_resources.as_ref(),
            resources: &self.resources,
            live: self.live.as_ref(),
        }
        .serialize(s)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Instance<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        InstanceOut::schema_name()
    }

    fn schema_id() -> std::borrow::Cow<'static, str> {
        InstanceOut::schema_id()
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        InstanceOut::json_schema(g)
    }
}

/// Replica counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Scale {
    /// Desired replicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Minimum replicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    /// Maximum replicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_replicas: Option<i32>,
}

/// Pod and resource totals.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Desired pods.
    pub pods: u64,
    /// Requested resources of those pods.
    pub resources: ResourceSummary,
}

/// A normalized workload status: the statuses a definition's status
/// mappings name, in evaluation order, and `Undefined` when none matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum WorkloadStatus {
    /// Resuming from suspension.
    Resuming,
    /// Being suspended.
    Suspending,
    /// Suspended.
    Suspended,
    /// Running (or serving).
    Running,
    /// Failed.
    Failed,
    /// Completed.
    Completed,
    /// Starting up.
    Initializing,
    /// Running or serving below its desired state.
    Degraded,
    /// No status mapping matched.
    Undefined,
}

impl WorkloadStatus {
    /// The name, e.g. `Running`.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkloadStatus::Resuming => "Resuming",
            WorkloadStatus::Suspending => "Suspending",
            WorkloadStatus::Suspended => "Suspended",
            WorkloadStatus::Running => "Running",
            WorkloadStatus::Failed => "Failed",
            WorkloadStatus::Completed => "Completed",
            WorkloadStatus::Initializing => "Initializing",
            WorkloadStatus::Degraded => "Degraded",
            WorkloadStatus::Undefined => "Undefined",
        }
    }
}

impl WorkloadStatus {
    /// Every status, in the order the vocabulary lists them.
    pub const ALL: [WorkloadStatus; 9] = [
        WorkloadStatus::Initializing,
        WorkloadStatus::Running,
        WorkloadStatus::Degraded,
        WorkloadStatus::Suspending,
        WorkloadStatus::Suspended,
        WorkloadStatus::Resuming,
        WorkloadStatus::Completed,
        WorkloadStatus::Failed,
        WorkloadStatus::Undefined,
    ];

    /// The status a name means, in any case (`running`, `Running`).
    pub fn parse(name: &str) -> Option<WorkloadStatus> {
        WorkloadStatus::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(name))
    }
}

impl PartialEq<str> for WorkloadStatus {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for WorkloadStatus {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for WorkloadStatus {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

// The mapping keys of a definition (`statusMappings`) name these; here,
// beside the statuses, rather than in the definition model below them.
impl StatusKey {
    /// The normalized status name, e.g. `Running`.
    pub fn status(self) -> WorkloadStatus {
        use WorkloadStatus as W;
        match self {
            StatusKey::Resuming => W::Resuming,
            StatusKey::Suspending => W::Suspending,
            StatusKey::Suspended => W::Suspended,
            StatusKey::Running => W::Running,
            StatusKey::Failed => W::Failed,
            StatusKey::Completed => W::Completed,
            StatusKey::Initializing => W::Initializing,
            StatusKey::Degraded => W::Degraded,
        }
    }
}

impl std::fmt::Display for WorkloadStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Normalized status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The raw phase (absent when the phase path yields nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Conditions as extracted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Every matched status in evaluation order, or `["Undefined"]`.
    pub matched_statuses: Vec<WorkloadStatus>,
}

/// One condition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    /// Condition type (`""` when the type field is missing or not a string).
    #[serde(rename = "type")]
    pub type_: String,
    /// Status, when a string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Reason, when a string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Message, when a non-empty string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `lastTransitionTime` of the condition object (the Kubernetes
    /// convention; not renamed by the definition), when a non-empty string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<String>,
}

/// `c` holding its own copy.
fn owned<T: ToOwned + ?Sized>(c: Cow<'_, T>) -> Cow<'static, T> {
    Cow::Owned(c.into_owned())
}

/// A node of the component tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TreeNode {
    /// Component name.
    pub component: String,
    /// Child nodes, in definition order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<TreeNode>,
}

impl<'a> Resolved<'a> {
    /// The result holding its own copies of what it borrowed from the
    /// object (and the definition) it was resolved from: pod templates,
    /// pod specs and fragments; to be kept past them.
    pub fn into_owned(self) -> Resolved<'static> {
        Resolved {
            api_version: self.api_version,
            kind: self.kind,
            definition: self.definition.into_owned(),
            workload: self.workload.into_owned(),
            status: self.status,
            components: self
                .components
                .into_iter()
                .map(Component::into_owned)
                .collect(),
            totals: self.totals,
            tree: owned(self.tree),
            unattributed_pods: self.unattributed_pods,
            stray_pods: self.stray_pods,
            warnings: self.warnings,
        }
    }

    /// The workload's own pods given with it: those placed under its
    /// instances, then those that belong to no instance (not the strays,
    /// which are other workloads').
    pub(crate) fn own_pods(&self) -> impl Iterator<Item = &PodAttribution> {
        self.components
            .iter()
            .flat_map(|c| &c.instances)
            .filter_map(|i| i.live.as_ref())
            .flat_map(|l| &l.pods)
            .chain(self.unattributed_pods.iter().flatten())
    }

    /// A component by name.
    pub fn component(&self, name: &str) -> Option<&Component<'a>> {
        self.components.iter().find(|c| c.name == name)
    }

    /// The resolved structure as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// Why a pod could not be attributed cleanly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodFinding {
    /// Stable code: `invalid-pod`, `other-namespace`, `other-workload`,
    /// `not-current`,
    /// `no-component`, `ambiguous-component`, `no-instance`,
    /// `unknown-instance`, `selector-error`, `replica-error`.
    pub code: String,
    /// What happened.
    pub message: String,
}

impl PodFinding {
    /// Does this finding make the pod another workload's (`other-namespace`,
    /// `other-workload`) or a leftover of an earlier generation of this one
    /// (`not-current`), rather than an unattributed pod of this one?
    pub fn is_stray(&self) -> bool {
        matches!(
            self.code.as_str(),
            "other-namespace" | "other-workload" | "not-current"
        )
    }
}

/// One pod, attributed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodAttribution {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The component the pod belongs to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// The instance id (multi-instance components).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The replica key, where the component has a replica selector.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replica_key: Option<String>,
    /// `status.phase` (`Unknown` when absent).
    pub phase: String,
    /// Why the pod is not running well (a waiting container's reason, an
    /// unschedulable condition, `status.reason`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the scheduler said of a pod it could not place (the message of
    /// its `PodScheduled` condition when that is `False`), when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The `Ready` condition is `True`.
    pub ready: bool,
    /// `spec.nodeName`, when scheduled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The pod's effective resource request.
    pub resources: ResourceSummary,
    /// Problems met while attributing this pod.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<PodFinding>,
}

/// Attribution of a list of pods.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Attribution {
    /// Every pod, in input order (objects of other kinds given beside the
    /// pods are owners, used to follow controller chains, not listed).
    pub pods: Vec<PodAttribution>,
    /// Names of the workload's pods attributed to no component.
    pub unattributed: Vec<String>,
    /// Names of the pods that are not this workload's (another namespace,
    /// a controller chain or labels leading to another workload): each has
    /// an `other-namespace` or `other-workload` finding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stray: Vec<String>,
}

/// Live state of one instance, from its pods.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Live {
    /// Pods attributed to the instance.
    pub pods: Vec<PodAttribution>,
    /// How many of them are ready.
    pub ready: u64,
    /// The nodes they run on (sorted, unique).
    pub nodes: Vec<String>,
    /// For an autoscaled instance (one with `minReplicas` or
    /// `maxReplicas` and no `replicas`) whose pods' owners were given: the count the objects
    /// it scales declare now, which is then the instance's
    /// `desiredReplicas` (see docs/definition-format.md, "Live counts of
    /// autoscaled instances").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<LiveScale>,
}

/// The live count of an autoscaled instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LiveScale {
    /// The current desired count: what the scaled objects' `spec.replicas`
    /// add up to, within `minReplicas` and `maxReplicas`.
    pub replicas: u64,
    /// The count the workload declares (`replicas`, else `minReplicas`).
    pub declared: u64,
    /// The objects scaled, as `Kind/name` (sorted by uid).
    pub scaled_by: Vec<String>,
}
