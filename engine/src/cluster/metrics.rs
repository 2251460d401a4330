//! What a metrics exporter says of one workload, IO-free: the figures of
//! [`WorkloadMetrics`] come from one resolve of the workload with its pods
//! and the owners between them (as [`Engine::resolve_in_namespace`] takes
//! them), by the same rules as a listing's row ([`WorkloadSummary`]), so
//! `workload-lens serve`, `get` and `top` never disagree.

use serde::Serialize;
use serde_json::Value;

use super::WorkloadSummary;
use crate::engine::Engine;

/// One workload as an exporter reports it: its listing row, and the figures
/// below it (component instances, pods, gangs).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadMetrics {
    /// The row a live `get` shows: identity, definition, statuses, desired
    /// pods and GPUs, the pods that exist ([`WorkloadSummary::live`]), the
    /// reason, the owner state, or the error.
    pub summary: WorkloadSummary,
    /// The workload's pods in phase Running.
    pub running_pods: u64,
    /// CPU the desired pods request, in millicores (0 when it did not
    /// resolve).
    pub cpu_millis: u64,
    /// Memory the desired pods request, in bytes.
    pub memory_bytes: u64,
    /// One entry per instance of each component that has pods (a pod
    /// template or pod spec), in the resolved order (empty when the
    /// workload did not resolve).
    pub instances: Vec<InstanceMetrics>,
    /// The workload's pods that have not finished (phase Pending, Running
    /// or Unknown), by name.
    pub pods: Vec<PodMetrics>,
    /// Its gang-scheduling groups (empty for a type without gang rules).
    pub gangs: Vec<GangMetrics>,
}

/// One component instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct InstanceMetrics {
    /// The component's name.
    pub component: String,
    /// The instance's id (`""` for the one instance of a single-instance
    /// component).
    pub instance: String,
    /// Desired replicas.
    pub desired: u64,
    /// The least replicas the instance may scale to, when the definition
    /// reads one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<u64>,
    /// The most, when the definition reads one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    /// Its pods that exist and have not finished.
    pub pods: u64,
    /// Of those, the ready ones.
    pub ready: u64,
    /// GPUs its desired replicas request.
    pub gpus: u64,
}

/// One pod of the workload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodMetrics {
    /// `metadata.name`.
    pub name: String,
    /// Its component, when the definition places it under one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// Its instance, when placed under one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// `status.phase`.
    pub phase: String,
    /// Whether it is ready.
    pub ready: bool,
    /// Its node, once scheduled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// GPUs it requests.
    pub gpus: u64,
}

/// One gang-scheduling group of the workload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct GangMetrics {
    /// The group's name ([`crate::GangGroup::name`]).
    pub name: String,
    /// Its component, when the group is one component's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// The fewest members it is scheduled with.
    pub min_members: u64,
    /// Its members among the pods that exist.
    pub members: u64,
    /// Of those, the ones scheduled to a node and not finished.
    pub placed: u64,
}

fn finished(phase: &str) -> bool {
    phase == "Succeeded" || phase == "Failed"
}

impl Engine {
    /// What an exporter reports of one workload, from its pods and the
    /// owners between them (`items`, as [`Engine::resolve_in_namespace`]
    /// takes them; empty when it has none). The workload resolves once
    /// (its gang groups, for a type with gang rules, a second time); an
    /// error is the summary's, and the lists stay empty.
    pub fn workload_metrics(&self, object: &Value, items: &[Value]) -> WorkloadMetrics {
        let (summary, resolved) = self.summarize_live_resolved(object, items);
        let mut out = WorkloadMetrics {
            summary,
            running_pods: 0,
            cpu_millis: 0,
            memory_bytes: 0,
            instances: Vec::new(),
            pods: Vec::new(),
            gangs: Vec::new(),
        };
        let Some(r) = resolved else { return out };
        out.cpu_millis = r.totals.resources.cpu_millis;
        out.memory_bytes = r.totals.resources.memory_bytes;
        for c in r.components.iter().filter(|c| c.has_pod_definition) {
            for i in &c.instances {
                let (pods, ready) = i.live.as_ref().map_or((0, 0), |l| {
                    let live = l.pods.iter().filter(|p| !finished(&p.phase));
                    let (n, ready) =
                        live.fold((0u64, 0u64), |(n, r), p| (n + 1, r + u64::from(p.ready)));
                    (n, ready)
                });
                let bound = |v: Option<i32>| v.and_then(|v| u64::try_from(v).ok());
                out.instances.push(InstanceMetrics {
                    component: c.name.to_string(),
                    instance: i.id.clone(),
                    desired: i.desired_replicas,
                    min: i.scale.as_ref().and_then(|s| bound(s.min_replicas)),
                    max: i.scale.as_ref().and_then(|s| bound(s.max_replicas)),
                    pods,
                    ready,
                    gpus: i.resources.gpu,
                });
            }
        }
        for p in r.own_pods().filter(|p| !finished(&p.phase)) {
            out.running_pods += u64::from(p.phase == "Running");
            out.pods.push(PodMetrics {
                name: p.name.clone(),
                component: p.component.clone(),
                instance: p.instance.clone(),
                phase: p.phase.clone(),
                ready: p.ready,
                node: p.node.clone(),
                gpus: p.resources.gpu,
            });
        }
        out.pods.sort_by(|a, b| a.name.cmp(&b.name));
        out.pods.dedup_by(|a, b| a.name == b.name);
        if let Ok(report) = self.gang_groups_in_namespace(object, items) {
            for g in report.groups {
                let member = |name: &String| out.pods.binary_search_by(|p| p.name.cmp(name)).ok();
                let members: Vec<usize> = g.members.iter().filter_map(member).collect();
                let placed = members
                    .iter()
                    .filter(|&&i| out.pods[i].node.is_some())
                    .count() as u64;
                out.gangs.push(GangMetrics {
                    name: g.name,
                    component: g.component,
                    min_members: u64::try_from(g.min_member).unwrap_or(0),
                    members: members.len() as u64,
                    placed,
                });
            }
        }
        out
    }
}
