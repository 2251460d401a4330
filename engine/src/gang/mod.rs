//! Gang scheduling: which pod group a pod belongs to, and how many members
//! must be admitted together (the reference's subtree-scale rule).

mod validate;

pub(crate) use compile::*;

use crate::compile::CompiledDefinition;
use crate::error::{Error, ErrorCode, Result};
use crate::jq::Input;
use crate::model::Topology;
use crate::pods::PodDef;
use crate::resolved::Resolved;
use crate::selectors::{PodFinding, single_value, value_text};
use serde::Serialize;
use serde_json::Value;

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

impl CompiledDefinition {
    fn has_scale_definition(&self) -> bool {
        self.comps.iter().any(|c| c.def.scale_definition.is_some())
    }

    /// The subtree scale (minimum members) of a component, optionally of one
    /// of its instances, from a resolved workload.
    pub fn subtree_scale(
        &self,
        resolved: &Resolved,
        component: &str,
        instance: Option<&str>,
    ) -> Result<i64> {
        let ci = self
            .comps
            .iter()
            .position(|c| c.name == component)
            .ok_or_else(|| {
                Error::new(ErrorCode::Usage, format!("component {component} not found"))
            })?;
        if instance == Some("") {
            return Err(Error::new(ErrorCode::Usage, "instance id is empty"));
        }
        self.scale_of(resolved, ci, ci, instance, 0)
    }

    fn scale_of(
        &self,
        r: &Resolved,
        x: usize,
        root: usize,
        inst: Option<&str>,
        depth: usize,
    ) -> Result<i64> {
        if depth > self.comps.len() {
            return Err(Error::new(
                ErrorCode::Validation,
                "ownership cycle in the definition",
            ));
        }
        let c = &self.comps[x];
        let rc = r.components.get(x).ok_or_else(|| {
            Error::new(
                ErrorCode::Usage,
                "resolved structure does not match the definition",
            )
        })?;
        let not_found =
            |i: &str| Error::new(ErrorCode::Usage, format!("instance id {i} not found"));
        if self.has_scale_definition() {
            let own = match inst.filter(|_| x == root) {
                Some(i) => {
                    let found = rc
                        .instances
                        .iter()
                        .find(|n| n.id == i)
                        .ok_or_else(|| not_found(i))?;
                    if c.scale.is_none() {
                        return Err(not_found(i));
                    }
                    eff_min(found.scale)
                }
                None => rc.instances.iter().map(|n| eff_min(n.scale)).sum(),
            };
            if c.children.is_empty() {
                return Ok(own);
            }
            let mut sum = 0i64;
            for ch in &c.children {
                sum = sum.saturating_add(self.scale_of(r, *ch, root, inst, depth + 1)?);
            }
            Ok(if sum == 0 {
                own
            } else if own == 0 {
                sum
            } else {
                own.saturating_mul(sum)
            })
        } else if !matches!(c.pod, PodDef::None) {
            if c.ids.is_none() {
                return Ok(1);
            }
            match inst.filter(|_| x == root) {
                Some(i) => {
                    if rc.instances.iter().any(|n| n.id == i) {
                        Ok(1)
                    } else {
                        Err(not_found(i))
                    }
                }
                None => Ok(rc.instances.len() as i64),
            }
        } else {
            let mut sum = 0i64;
            for ch in &c.children {
                sum = sum.saturating_add(self.scale_of(r, *ch, root, inst, depth + 1)?);
            }
            Ok(sum)
        }
    }

    /// The gang answer for each pod and the groups the pods form.
    pub fn gang_groups(&self, workload: &Value, pods: &[Value]) -> Result<GangReport> {
        let Some(gang) = &self.gang else {
            // No gang instructions: nothing is scheduled as a gang.
            return Ok(GangReport {
                groups: Vec::new(),
                pods: Vec::new(),
            });
        };
        let resolved = self.resolve(workload)?;
        let uid = uid_of(workload);
        let attribution = self.attribute_pods(Some(workload), pods)?;
        let mut report = GangReport {
            groups: Vec::new(),
            pods: Vec::new(),
        };

        if let Some(v2) = &gang.v2 {
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
                let min = self.scale_of(&resolved, ci, ci, None, 0)?;
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
                group.min_member = self.scale_of(&resolved, 0, 0, None, 0)?;
            } else {
                group.min_sub_groups = Some(group.sub_groups.len() as u64);
            }
            for (pod, a) in pods.iter().zip(&attribution.pods) {
                let input = Input::new(pod, &self.limits).map_err(crate::compile::eval_error)?;
                let member = self.placed(a);
                for (k, sg) in v2.sub_groups.iter().enumerate() {
                    if member
                        && self.pod_in_subtree(&sg.component_name, &input, pod)?
                        && let Some(s) = group.sub_groups.get_mut(k)
                    {
                        s.members.push(a.name.clone());
                    }
                }
                if member {
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
            return Ok(report);
        }

        for (pod, a) in pods.iter().zip(&attribution.pods) {
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
            let Some(ci) = a
                .component
                .as_ref()
                .filter(|_| self.placed(a))
                .and_then(|n| self.comps.iter().position(|c| &c.name == n))
            else {
                report.pods.push(pg);
                continue;
            };
            let input = Input::new(pod, &self.limits).map_err(crate::compile::eval_error)?;
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
            pg.group_name = Some(name.clone());
            let min = self.scale_of(
                &resolved,
                m.component,
                m.component,
                pg.instance.as_deref(),
                0,
            )?;
            match report.groups.iter_mut().find(|g| g.name == name) {
                Some(g) => {
                    g.members.push(a.name.clone());
                    g.min_member = g.min_member.max(min);
                }
                None => report.groups.push(GangGroup {
                    name,
                    pod_group: gname.clone(),
                    keys: pg.group_keys.clone(),
                    component: pg.effective_component.clone(),
                    min_member: min,
                    members: vec![a.name.clone()],
                    sub_groups: Vec::new(),
                    min_sub_groups: None,
                    topology: None,
                }),
            }
            report.pods.push(pg);
        }
        Ok(report)
    }

    /// Is the pod one of the workload's: attributed to a component and, for
    /// a multi-instance component, to one of its instances? Only such pods
    /// are gang members (pods that belong nowhere would form groups of
    /// their own).
    fn placed(&self, a: &crate::selectors::PodAttribution) -> bool {
        let Some(c) = a
            .component
            .as_ref()
            .and_then(|n| self.comps.iter().find(|c| &c.name == n))
        else {
            return false;
        };
        c.ids.is_none() || a.instance.is_some()
    }

    /// Does the pod match the type selector of the component or of any of
    /// its descendants?
    fn pod_in_subtree(&self, component: &str, pod: &Input, pod_json: &Value) -> Result<bool> {
        let Some(start) = self.comps.iter().position(|c| c.name == component) else {
            return Ok(false);
        };
        let mut todo = vec![start];
        let mut seen = Vec::new();
        while let Some(i) = todo.pop() {
            if seen.contains(&i) {
                continue;
            }
            seen.push(i);
            if let Some(sel) = &self.comps[i].type_selector
                && self.type_matches(sel, pod, pod_json)?
            {
                return Ok(true);
            }
            todo.extend(self.comps[i].children.iter().copied());
        }
        Ok(false)
    }
}
mod compile;
