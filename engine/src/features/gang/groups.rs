//! Gang groups: which pod group each pod belongs to, and how many members
//! must be admitted together (the reference's subtree-scale rule).

use super::compile::Gang;
use crate::compile::CompiledDefinition;
use crate::error::{Error, ErrorCode, Result};
use crate::jq::Input;
use crate::model::PodGroupV2;
use crate::model::Topology;
use crate::pods::PodDef;
use crate::resolved::{PodAttribution, PodFinding, Resolved};
use crate::selectors::{single_value, value_text};
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// The gang-scheduling answer for one pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodGang {
    /// Pod name.
    pub pod: String,
    /// The pod's own component.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// The component whose pod-group member definition applies (the pod's
    /// own or an ancestor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_component: Option<String>,
    /// Name of the definition's pod group (`podGroups[].name` / `podGroup.name`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_group: Option<String>,
    /// The pod's instance, when the effective component is its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// Values of the member's `groupByKeyPaths`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub group_keys: Vec<String>,
    /// The scheduler's PodGroup name: `pg-<workload uid>[-<key>...]`
    /// (`pg-<uid>-<podGroup.name>` for the `podGroup` form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    /// Problems met.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<PodFinding>,
}

/// A subgroup of a `podGroup`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SubGroupState {
    /// Component name.
    pub component: String,
    /// Minimum members of the subgroup.
    pub min_member: i64,
    /// Pods in the subgroup (matching the component or a descendant).
    pub members: Vec<String>,
    /// Topology constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
}

/// One pod group formed by the given pods.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GangGroup {
    /// The scheduler's PodGroup name.
    pub name: String,
    /// The definition's pod-group name.
    pub pod_group: String,
    /// Group keys shared by the members.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// The effective component of the members.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// Members that must be admitted together (0 when subgroups carry the
    /// minimums).
    pub min_member: i64,
    /// Pods in the group, in input order.
    pub members: Vec<String>,
    /// Subgroups (`podGroup` form).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sub_groups: Vec<SubGroupState>,
    /// Subgroups that must be admitted (`podGroup` form with subgroups).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_sub_groups: Option<u64>,
    /// Topology constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
}

/// Gang groups of a set of pods.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GangReport {
    /// The groups, in order of first member.
    pub groups: Vec<GangGroup>,
    /// Per pod, in input order.
    pub pods: Vec<PodGang>,
}

fn eff_min(s: Option<crate::resolved::Scale>) -> i64 {
    let Some(s) = s else { return 0 };
    match (s.min_replicas, s.replicas) {
        (Some(m), _) if m > 0 => m as i64,
        (_, Some(r)) if r > 0 => r as i64,
        _ => 0,
    }
}

fn uid_of(workload: &Value) -> String {
    let m = workload.get("metadata");
    m.and_then(|m| m.get("uid"))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .or_else(|| m.and_then(|m| m.get("name")).and_then(Value::as_str))
        .unwrap_or("workload")
        .to_string()
}

/// Subtree scales of one resolved workload, computed without recursion and
/// remembered for the call: each component's scale over all its instances
/// is worked out once (a walk of its subtree that reuses what is known), and
/// each (component, instance) once, so a gang call costs the tree once plus
/// a lookup per pod.
struct Scales<'a> {
    def: &'a CompiledDefinition,
    r: &'a Resolved<'a>,
    /// Some component has a `scaleDefinition`.
    has_scale: bool,
    /// Per component: its scale over all its instances, once known.
    all: Vec<Option<i64>>,
    /// Per (component, instance index): its scale, once known.
    one: HashMap<(usize, usize), i64>,
    /// Per component: its instances by id, built on first use.
    ids: Vec<Option<HashMap<&'a str, usize>>>,
}

fn mismatch() -> Error {
    Error::new(
        ErrorCode::Usage,
        "resolved structure does not match the definition",
    )
}

fn not_found(i: &str) -> Error {
    Error::new(ErrorCode::Usage, format!("instance id {i} not found"))
}

fn combine(own: i64, sum: i64) -> i64 {
    if sum == 0 {
        own
    } else if own == 0 {
        sum
    } else {
        own.saturating_mul(sum)
    }
}

impl<'a> Scales<'a> {
    fn new(def: &'a CompiledDefinition, r: &'a Resolved) -> Self {
        let n = def.comps.len();
        Scales {
            def,
            r,
            has_scale: def.comps.iter().any(|c| c.def.scale_definition.is_some()),
            all: vec![None; n],
            one: HashMap::new(),
            ids: vec![None; n],
        }
    }

    /// The index of instance `id` of component `x`.
    fn find(&mut self, x: usize, id: &str) -> Option<usize> {
        let rc = self.r.components.get(x)?;
        let ids = self.ids.get_mut(x)?.get_or_insert_with(|| {
            let mut m = HashMap::with_capacity(rc.instances.len());
            for (i, inst) in rc.instances.iter().enumerate() {
                m.entry(inst.id.as_str()).or_insert(i);
            }
            m
        });
        ids.get(id).copied()
    }

    /// The subtree scale (minimum members) of component `x`, of its
    /// instance `inst` when given.
    fn scale(&mut self, x: usize, inst: Option<&str>) -> Result<i64> {
        let Some(i) = inst else {
            return self.scale_all(x);
        };
        let c = self.def.comps.get(x).ok_or_else(mismatch)?;
        let rc = self.r.components.get(x).ok_or_else(mismatch)?;
        if self.has_scale {
            let idx = self.find(x, i).ok_or_else(|| not_found(i))?;
            if c.scale.is_none() {
                return Err(not_found(i));
            }
            if let Some(v) = self.one.get(&(x, idx)) {
                return Ok(*v);
            }
            let own = eff_min(rc.instances.get(idx).and_then(|n| n.scale));
            let v = if c.children.is_empty() {
                own
            } else {
                let mut sum = 0i64;
                for &ch in &c.children {
                    sum = sum.saturating_add(self.walk(ch, 1)?);
                }
                combine(own, sum)
            };
            self.one.insert((x, idx), v);
            Ok(v)
        } else if !matches!(c.pod, PodDef::None) {
            if c.ids.is_none() || self.find(x, i).is_some() {
                Ok(1)
            } else {
                Err(not_found(i))
            }
        } else {
            self.scale_all(x)
        }
    }

    /// The subtree scale of component `x` over all its instances.
    fn scale_all(&mut self, x: usize) -> Result<i64> {
        self.walk(x, 0)
    }

    /// The scale over all instances of `x` (at `depth` below the component
    /// asked about), by an explicit depth-first walk in the order of the
    /// rule: a component is checked, then its children one subtree after
    /// another, then summed up.
    fn walk(&mut self, x: usize, depth: usize) -> Result<i64> {
        let comps = &self.def.comps;
        let mut stack: Vec<(usize, usize, bool)> = vec![(x, depth, false)];
        while let Some((n, d, expanded)) = stack.pop() {
            if self.all.get(n).copied().flatten().is_some() {
                continue;
            }
            let c = comps.get(n).ok_or_else(mismatch)?;
            if !expanded {
                crate::budget::steps(1)?;
                if d > comps.len() {
                    return Err(Error::new(
                        ErrorCode::Validation,
                        "ownership cycle in the definition",
                    ));
                }
                self.r.components.get(n).ok_or_else(mismatch)?;
                let descend = if self.has_scale {
                    !c.children.is_empty()
                } else {
                    matches!(c.pod, PodDef::None)
                };
                if descend {
                    stack.push((n, d, true));
                    stack.extend(c.children.iter().rev().map(|&ch| (ch, d + 1, false)));
                    continue;
                }
            }
            let rc = self.r.components.get(n).ok_or_else(mismatch)?;
            let children = |all: &[Option<i64>]| {
                c.children.iter().fold(0i64, |sum, &ch| {
                    sum.saturating_add(all.get(ch).copied().flatten().unwrap_or(0))
                })
            };
            let v = if self.has_scale {
                let own = rc
                    .instances
                    .iter()
                    .fold(0i64, |sum, i| sum.saturating_add(eff_min(i.scale)));
                if c.children.is_empty() {
                    own
                } else {
                    combine(own, children(&self.all))
                }
            } else if !matches!(c.pod, PodDef::None) {
                if c.ids.is_none() {
                    1
                } else {
                    rc.instances.len() as i64
                }
            } else {
                children(&self.all)
            };
            if let Some(slot) = self.all.get_mut(n) {
                *slot = Some(v);
            }
        }
        Ok(self.all.get(x).copied().flatten().unwrap_or(0))
    }
}

/// What the groups of either gang format are built from.
struct Members<'a> {
    /// The workload's UID, in every group's name.
    uid: String,
    pods: Vec<&'a Value>,
    /// The attribution of each of `pods`, in order.
    attributed: &'a [PodAttribution],
    /// Components by name (the first of a name, as a search would find).
    by_name: HashMap<&'a str, usize>,
    scales: Scales<'a>,
    /// The workload (what `minMembersPath` reads).
    workload: &'a Value,
}

impl Members<'_> {
    /// The index of the component a pod is attributed to.
    fn component_of(&self, a: &PodAttribution) -> Option<usize> {
        a.component
            .as_deref()
            .and_then(|n| self.by_name.get(n).copied())
    }
}

impl CompiledDefinition {
    /// The subtree scale (minimum members) of a component, optionally of one
    /// of its instances, from a resolved workload (resolved with this
    /// definition; [`Self::subtree_scale_of`] takes the object). Errors (code
    /// `usage`): an instance id given as `""`, a component the definition
    /// does not have, an instance the component does not have (also any
    /// instance of a component without a scale definition, when some
    /// component has one: the reference's rule).
    pub fn subtree_scale(
        &self,
        resolved: &Resolved,
        component: &str,
        instance: Option<&str>,
    ) -> Result<i64> {
        let _call = crate::budget::Call::enter(&self.limits);
        let ci = self.scale_target(component, instance)?;
        Scales::new(self, resolved).scale(ci, instance)
    }

    /// The gang answer for each pod and the groups the pods form.
    pub fn gang_groups(&self, workload: &Value, pods: &[Value]) -> Result<GangReport> {
        self.gang_groups_with(workload, pods, false)
    }

    /// [`Self::gang_groups`] of a live namespace's pods and owners (as
    /// [`Self::resolve_in_namespace`] takes them): other workloads' pods
    /// are left out, look-alikes are reported but in no group.
    pub fn gang_groups_in_namespace(
        &self,
        workload: &Value,
        items: &[Value],
    ) -> Result<GangReport> {
        self.gang_groups_with(workload, items, true)
    }

    fn gang_groups_with(
        &self,
        workload: &Value,
        pods: &[Value],
        namespace_mode: bool,
    ) -> Result<GangReport> {
        let _call = crate::budget::Call::enter(&self.limits);
        let Some(gang) = &self.gang else {
            // No gang instructions: nothing is scheduled as a gang.
            return Ok(GangReport {
                groups: Vec::new(),
                pods: Vec::new(),
            });
        };
        let resolved = self.resolve(workload)?;
        let uid = uid_of(workload);
        let (attribution, sources) =
            self.attribute_indexed(Some(workload), pods, namespace_mode)?;
        // Components by name (the first of a name, as a search would find).
        let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(self.comps.len());
        for (i, c) in self.comps.iter().enumerate() {
            by_name.entry(c.name.as_str()).or_insert(i);
        }
        let cx = Members {
            uid,
            pods: sources.iter().filter_map(|&i| pods.get(i)).collect(),
            attributed: &attribution.pods,
            by_name,
            scales: Scales::new(self, &resolved),
            workload,
        };
        match &gang.v2 {
            Some(v2) => self.one_pod_group(v2, cx),
            None => self.keyed_pod_groups(gang, cx),
        }
    }

    /// The one group of `gangScheduling.podGroup`: every pod of the
    /// workload, with a subgroup per listed component (its subtree's pods).
    fn one_pod_group(&self, v2: &PodGroupV2, mut cx: Members<'_>) -> Result<GangReport> {
        let mut report = GangReport {
            groups: Vec::new(),
            pods: Vec::new(),
        };
        let uid = &cx.uid;
        let name = format!("pg-{uid}-{}", v2.name);
        let mut group = GangGroup {
            name: name.clone(),
            pod_group: v2.name.clone(),
            keys: Vec::new(),
            component: None,
            min_member: 0,
            members: Vec::new(),
            sub_groups: Vec::new(),
            min_sub_groups: None,
            topology: v2.topology.clone(),
        };
        for sg in &v2.sub_groups {
            let ci = self
                .comps
                .iter()
                .position(|c| c.name == sg.component_name)
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::Validation,
                        format!("component {} not found", sg.component_name),
                    )
                })?;
            let min = cx.scales.scale(ci, None)?;
            if min == 0 {
                return Err(Error::new(
                    ErrorCode::Validation,
                    format!(
                        "component {} must expose a replica scale definition",
                        sg.component_name
                    ),
                ));
            }
            group.sub_groups.push(SubGroupState {
                component: sg.component_name.clone(),
                min_member: min,
                members: Vec::new(),
                topology: sg.topology.clone(),
            });
        }
        if group.sub_groups.is_empty() {
            group.min_member = cx.scales.scale(0, None)?;
        } else {
            group.min_sub_groups = Some(group.sub_groups.len() as u64);
        }
        // The components of each subgroup's subtree, in the order they
        // are tried, found once.
        let subtrees: Vec<Vec<usize>> = v2
            .sub_groups
            .iter()
            .map(|sg| self.subtree(cx.by_name.get(sg.component_name.as_str()).copied()))
            .collect();
        for (&pod, a) in cx.pods.iter().zip(cx.attributed) {
            let input = Input::new(pod, &self.limits).map_err(crate::expr::eval_error)?;
            let member = self.placed(cx.component_of(a), a);
            for (k, subtree) in subtrees.iter().enumerate() {
                if member
                    && self.pod_in_subtree(subtree, &input, pod)?
                    && let Some(s) = group.sub_groups.get_mut(k)
                {
                    s.members.push(a.name.clone());
                }
            }
            if member {
                crate::budget::memory(name.len())?;
                group.members.push(a.name.clone());
            }
            report.pods.push(PodGang {
                pod: a.name.clone(),
                component: a.component.clone(),
                effective_component: a.component.clone(),
                pod_group: Some(v2.name.clone()),
                instance: a.instance.clone(),
                group_keys: Vec::new(),
                group_name: member.then(|| name.clone()),
                findings: a.findings.clone(),
            });
        }
        report.groups.push(group);
        Ok(report)
    }

    /// The groups of `gangScheduling.podGroups`: each pod joins the first
    /// member definition of its component whose filters pass, and the
    /// group its keys name.
    fn keyed_pod_groups(&self, gang: &Gang, mut cx: Members<'_>) -> Result<GangReport> {
        let mut report = GangReport {
            groups: Vec::new(),
            pods: Vec::new(),
        };
        let uid = &cx.uid;
        // Groups by name: the index of each in `report.groups` (order of
        // first member).
        let mut groups: HashMap<String, usize> = HashMap::new();
        // Each member's `minMembersPath`, evaluated once, when first needed.
        let mut minimums: HashMap<(usize, usize), HashMap<String, i64>> = HashMap::new();
        for (&pod, a) in cx.pods.iter().zip(cx.attributed) {
            crate::budget::steps(1)?;
            let mut pg = PodGang {
                pod: a.name.clone(),
                component: a.component.clone(),
                effective_component: None,
                pod_group: None,
                instance: None,
                group_keys: Vec::new(),
                group_name: None,
                findings: a.findings.clone(),
            };
            let Some(ci) = cx.component_of(a).filter(|&ci| self.placed(Some(ci), a)) else {
                report.pods.push(pg);
                continue;
            };
            let input = Input::new(pod, &self.limits).map_err(crate::expr::eval_error)?;
            let mut chosen = None;
            for (gi, mi) in gang.candidates.get(ci).into_iter().flatten() {
                let m = &gang.groups[*gi].1[*mi];
                let mut pass = true;
                for f in &m.filters {
                    let v = single_value(f, &input, &self.limits).map_err(|e| {
                        e.context(&format!(
                            "failed to evaluate filters for component {} in group {}",
                            self.comps[m.component].name, gang.groups[*gi].0
                        ))
                    })?;
                    if v != Value::Bool(true) {
                        pass = false;
                        break;
                    }
                }
                if pass {
                    chosen = Some((*gi, *mi));
                    break;
                }
            }
            let Some((gi, mi)) = chosen else {
                pg.findings.push(PodFinding {
                    code: "no-pod-group".into(),
                    message: format!(
                        "pod {} does not match any pod group member definition",
                        a.name
                    ),
                });
                report.pods.push(pg);
                continue;
            };
            let (gname, members) = &gang.groups[gi];
            let m = &members[mi];
            pg.effective_component = Some(self.comps[m.component].name.clone());
            pg.pod_group = Some(gname.clone());
            if m.component == ci {
                pg.instance = a.instance.clone();
            }
            for k in &m.keys {
                let v = single_value(k, &input, &self.limits).map_err(|e| {
                    e.context(&format!(
                        "failed to extract group key from path {:?}",
                        k.program.code()
                    ))
                })?;
                pg.group_keys.push(value_text(&v));
            }
            let mut name = format!("pg-{uid}");
            for k in &pg.group_keys {
                name.push('-');
                name.push_str(k);
            }
            // The name is built (and kept) for every pod: its bytes count.
            crate::budget::memory(name.len())?;
            crate::budget::steps(crate::budget::byte_steps(name.len()))?;
            pg.group_name = Some(name.clone());
            let mut min = cx.scales.scale(m.component, pg.instance.as_deref())?;
            if let Some(e) = &m.min_members {
                let map = match minimums.entry((gi, mi)) {
                    std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(self.min_members(e, cx.workload)?)
                    }
                };
                if let Some(n) = map.get(pg.instance.as_deref().unwrap_or("")) {
                    min = *n;
                }
            }
            match groups.get(&name) {
                Some(&gi) => {
                    if let Some(g) = report.groups.get_mut(gi) {
                        g.members.push(a.name.clone());
                        g.min_member = g.min_member.max(min);
                    }
                }
                None => {
                    groups.insert(name.clone(), report.groups.len());
                    report.groups.push(GangGroup {
                        name,
                        pod_group: gname.clone(),
                        keys: pg.group_keys.clone(),
                        component: pg.effective_component.clone(),
                        min_member: min,
                        members: vec![a.name.clone()],
                        sub_groups: Vec::new(),
                        min_sub_groups: None,
                        topology: None,
                    });
                }
            }
            report.pods.push(pg);
        }
        Ok(report)
    }

    /// A member's `minMembersPath` over the workload: one object mapping
    /// instance ids of the member's component (`""`: none) to non-negative
    /// integer minimums.
    fn min_members(&self, e: &crate::expr::Expr, workload: &Value) -> Result<HashMap<String, i64>> {
        let input = Input::new(workload, &self.limits).map_err(crate::expr::eval_error)?;
        let outs = e.eval(&input, &self.limits)?;
        let bad = |what: String| {
            Error::new(ErrorCode::Conversion, format!("minMembersPath {what}")).at(e.location())
        };
        let [Value::Object(map)] = outs.as_slice() else {
            return Err(bad(format!(
                "must yield one object of instance ids to minimums, got {} outputs{}",
                outs.len(),
                outs.first()
                    .map(|v| format!(" (the first {})", crate::resources::json_type(v)))
                    .unwrap_or_default()
            )));
        };
        let mut out = HashMap::with_capacity(map.len());
        for (k, v) in map {
            crate::budget::steps(1)?;
            match v.as_i64().filter(|n| *n >= 0) {
                Some(n) => {
                    out.insert(k.clone(), n);
                }
                None => {
                    let shown: String = k.chars().take(80).collect();
                    return Err(bad(format!(
                        "must map instance ids to non-negative integers; {shown:?} is {}",
                        if v.is_number() {
                            "a negative or fractional number"
                        } else {
                            crate::resources::json_type(v)
                        }
                    )));
                }
            }
        }
        Ok(out)
    }

    /// Is the pod one of the workload's: attributed to a component (`ci`,
    /// its index) and, for a multi-instance component, to one of its
    /// instances? Only such pods are gang members (pods that belong nowhere
    /// would form groups of their own).
    fn placed(&self, ci: Option<usize>, a: &PodAttribution) -> bool {
        let Some(c) = ci.and_then(|ci| self.comps.get(ci)) else {
            return false;
        };
        c.ids.is_none() || a.instance.is_some()
    }

    /// The components of the subtree of `start` (none without one), in the
    /// order their type selectors are tried: depth first, the last child
    /// first, each component once.
    fn subtree(&self, start: Option<usize>) -> Vec<usize> {
        let Some(start) = start else {
            return Vec::new();
        };
        let mut order = Vec::new();
        let mut seen = vec![false; self.comps.len()];
        let mut todo = vec![start];
        while let Some(i) = todo.pop() {
            match seen.get_mut(i) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            order.push(i);
            todo.extend(self.comps[i].children.iter().copied());
        }
        order
    }

    /// Does the pod match the type selector of a component of `subtree`
    /// ([`Self::subtree`])?
    fn pod_in_subtree(&self, subtree: &[usize], pod: &Input, pod_json: &Value) -> Result<bool> {
        for &i in subtree {
            if let Some(sel) = &self.comps[i].type_selector
                && self.type_matches(sel, pod, pod_json)?
            {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
