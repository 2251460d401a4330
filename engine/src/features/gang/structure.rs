//! The structure gang scheduling works on (the reference's "structure
//! summary") and the subtree scale of a workload object.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::compile::CompiledDefinition;
use crate::error::{Error, ErrorCode, Result};
use crate::pods::PodDef;

/// A pod-group member that applies to a component: one of its own, or one
/// of an ancestor's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GangCandidate {
    /// The pod group's name (`podGroups[].name`).
    pub pod_group: String,
    /// The member's component (`members[].componentName`): the component
    /// itself or one of its ancestors.
    pub member: String,
    /// Where the member is in the definition
    /// (`spec.optimizationInstructions.gangScheduling.podGroups[0].members[1]`).
    pub field: String,
    /// The member's filters, as written (blank ones, which are skipped, left
    /// out). A pod takes the first candidate whose filters all give `true`.
    pub filters: Vec<String>,
    /// The member's group key paths, as written (blank ones left out).
    pub group_by_key_paths: Vec<String>,
}

/// The structure of a definition as gang scheduling reads it: what the
/// reference library computes once per definition (its "structure
/// summary"). Maps are keyed by component name (names are unique in a
/// valid definition); `components` gives the order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GangStructure {
    /// Every component: the root, then the children in definition order.
    pub components: Vec<String>,
    /// The components with a pod definition (a pod template, a pod spec or
    /// fragments), in the order of `components`.
    pub leaves: Vec<String>,
    /// Each child component's owner (`ownerRef`); the root has no entry.
    pub parents: BTreeMap<String, String>,
    /// Each component's children, in definition order (empty for a
    /// component without children).
    pub children: BTreeMap<String, Vec<String>>,
    /// Whether any component has a `scaleDefinition` (even an empty one):
    /// subtree scales then multiply and add scales; without, they count the
    /// pod-bearing leaves.
    pub has_scale_definition: bool,
    /// With `gangScheduling`: each component's candidate members, in the
    /// order a pod of it tries them (its own component's members first, then
    /// each ancestor's, nearest first; within a component in pod-group then
    /// member order). Empty for a component no member applies to. Absent
    /// without `gangScheduling`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<BTreeMap<String, Vec<GangCandidate>>>,
}

/// Bytes charged for an entry of the structure beyond its strings.
const ENTRY_BYTES: usize = 64;

fn charge(strings: &[&str]) -> Result<()> {
    let bytes = strings
        .iter()
        .fold(ENTRY_BYTES, |n, s| n.saturating_add(s.len()));
    crate::budget::memory(bytes)?;
    crate::budget::steps(1 + crate::budget::byte_steps(bytes))
}

impl CompiledDefinition {
    /// The structure gang scheduling works on: components, leaves, owners,
    /// children, whether any component has a scale definition, and (with
    /// `gangScheduling`) each component's candidate pod-group members. The
    /// definition alone decides it; it is charged to the definition's
    /// limits (`maxMemoryBytes`, `maxSteps`), as its size is the number of
    /// components times the members above each.
    pub fn gang_structure(&self) -> Result<GangStructure> {
        let _call = crate::budget::Call::enter(&self.limits);
        let name = |i: usize| {
            self.comps
                .get(i)
                .map(|c| c.name.clone())
                .unwrap_or_default()
        };
        let mut s = GangStructure {
            components: Vec::with_capacity(self.comps.len()),
            leaves: Vec::new(),
            parents: BTreeMap::new(),
            children: BTreeMap::new(),
            has_scale_definition: self.comps.iter().any(|c| c.def.scale_definition.is_some()),
            candidates: None,
        };
        for c in &self.comps {
            charge(&[&c.name])?;
            s.components.push(c.name.clone());
            if !matches!(c.pod, PodDef::None) {
                s.leaves.push(c.name.clone());
            }
            if let Some(p) = c.parent {
                s.parents.insert(c.name.clone(), name(p));
            }
            let mut kids = Vec::with_capacity(c.children.len());
            for &k in &c.children {
                let k = name(k);
                charge(&[&k])?;
                kids.push(k);
            }
            s.children.insert(c.name.clone(), kids);
        }
        let Some(gang) = &self.gang else {
            return Ok(s);
        };
        let base = "spec.optimizationInstructions.gangScheduling.podGroups";
        let mut all = BTreeMap::new();
        for (ci, c) in self.comps.iter().enumerate() {
            let mut list = Vec::new();
            for &(gi, mi) in gang.candidates.get(ci).into_iter().flatten() {
                let Some((group, m)) = gang
                    .groups
                    .get(gi)
                    .and_then(|(g, ms)| ms.get(mi).map(|m| (g, m)))
                else {
                    continue;
                };
                let filters: Vec<&str> = m.filters.iter().map(|e| e.program.code()).collect();
                let keys: Vec<&str> = m.keys.iter().map(|e| e.program.code()).collect();
                let member = name(m.component);
                charge(&[group, &member, base])?;
                charge(&filters)?;
                charge(&keys)?;
                list.push(GangCandidate {
                    pod_group: group.clone(),
                    member,
                    field: format!("{base}[{gi}].members[{}]", m.index),
                    filters: filters.into_iter().map(str::to_string).collect(),
                    group_by_key_paths: keys.into_iter().map(str::to_string).collect(),
                });
            }
            all.insert(c.name.clone(), list);
        }
        s.candidates = Some(all);
        Ok(s)
    }

    /// The index of `component` for a subtree scale, after the checks of
    /// the reference's `CalculateSubtreeScale`: an instance id given as `""`
    /// is refused (before anything else, as the reference does), and so is
    /// a component the definition does not have.
    pub(crate) fn scale_target(&self, component: &str, instance: Option<&str>) -> Result<usize> {
        if instance == Some("") {
            return Err(Error::new(ErrorCode::Usage, "instance id is empty"));
        }
        self.comps
            .iter()
            .position(|c| c.name == component)
            .ok_or_else(|| Error::new(ErrorCode::Usage, format!("component {component} not found")))
    }

    /// The subtree scale (minimum members) of a component of a workload
    /// object, optionally of one of its instances: the object is resolved,
    /// then [`Self::subtree_scale`] applies. One call, with the
    /// definition's limits.
    pub fn subtree_scale_of(
        &self,
        workload: &Value,
        component: &str,
        instance: Option<&str>,
    ) -> Result<i64> {
        let _call = crate::budget::Call::enter(&self.limits);
        self.scale_target(component, instance)?;
        let resolved = self.resolve(workload)?;
        self.subtree_scale(&resolved, component, instance)
    }
}
