//! Fleet batches: records of many clusters in, the rows of three tables out
//! (workloads, component instances, pods), for the Arrow API of the Python
//! package and the distributed engines that run it (docs/fleet.md).
//!
//! A batch is a list of records, each an object's JSON text with its
//! cluster and the roles a snapshot gives it ([`crate::RecordRole`]'s
//! words, plus `unreadable`: an owner kind, `{"apiVersion", "kind"}`, the
//! capture could not list). Within each cluster, the definitions stored in
//! it go over the engine's, and the other records are attributed and
//! resolved by [`LiveState`]: the rules of a live listing (pods join their
//! workloads by controller uid; a chain that ends at an owner not in the
//! batch makes a workload of its own, `orphaned`, or `unreadable` when its
//! kind is). A batch must therefore hold whole namespaces: every record of
//! a (cluster, namespace), and the cluster-scoped records its chains reach.
//!
//! Errors are rows, never the batch's failure: a record that does not
//! parse, names an unknown role or has no uid is a `workloads` row with its
//! cluster, the error's code and message; a workload that does not resolve
//! is a row with its identity and its error.
//!
//! Bounds: each object's text is read within `maxInputBytes` (and the
//! other input limits); a cluster's records within `maxClusterBytes`, past
//! which the rest of that cluster's records are error rows (`limit`).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

use super::state::LiveState;
use super::{OwnerKind, OwnerStateKind, meta_str};
use crate::engine::Engine;
use crate::error::{Error, ErrorCode};

/// The version of the tables' columns (docs/fleet.md lists them).
pub const FLEET_SCHEMA_VERSION: u32 = 1;

/// One record of a batch.
#[derive(Debug, Clone, Copy)]
pub struct FleetRecord<'a> {
    /// The cluster's name.
    pub cluster: &'a str,
    /// Its roles, comma-separated or one per entry: `object`, `pod`,
    /// `owner`, `definition`, `unreadable` (`event` and `related` records
    /// are skipped: they are for describing one workload).
    pub roles: &'a [&'a str],
    /// The object, as JSON text.
    pub object: &'a str,
}

/// The workloads table, column by column.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub struct WorkloadColumns {
    pub cluster: Vec<String>,
    pub namespace: Vec<Option<String>>,
    pub api_version: Vec<Option<String>>,
    pub kind: Vec<Option<String>>,
    pub name: Vec<Option<String>>,
    pub uid: Vec<Option<String>>,
    pub created: Vec<Option<String>>,
    pub definition: Vec<Option<String>>,
    pub origin: Vec<Option<String>>,
    pub phase: Vec<Option<String>>,
    pub statuses: Vec<Vec<String>>,
    pub desired_pods: Vec<Option<u64>>,
    pub live_pods: Vec<Option<u64>>,
    pub ready_pods: Vec<Option<u64>>,
    pub running_pods: Vec<Option<u64>>,
    pub gpus: Vec<Option<u64>>,
    pub gpus_held: Vec<Option<u64>>,
    pub gpus_pending: Vec<Option<u64>>,
    pub cpu_millis: Vec<Option<u64>>,
    pub memory_bytes: Vec<Option<u64>>,
    pub owner_state: Vec<Option<String>>,
    pub look_alike_pods: Vec<Option<u64>>,
    pub reason: Vec<Option<String>>,
    pub error_code: Vec<Option<String>>,
    pub error_message: Vec<Option<String>>,
}

/// The component instances table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub struct InstanceColumns {
    pub cluster: Vec<String>,
    pub namespace: Vec<Option<String>>,
    pub kind: Vec<String>,
    pub workload: Vec<String>,
    pub workload_uid: Vec<Option<String>>,
    pub component: Vec<String>,
    pub instance: Vec<String>,
    pub replicas_desired: Vec<u64>,
    pub replicas_min: Vec<Option<u64>>,
    pub replicas_max: Vec<Option<u64>>,
    pub pods: Vec<u64>,
    pub ready_pods: Vec<u64>,
    pub gpus: Vec<u64>,
}

/// The pods table: each pod of a workload that has not finished.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub struct PodColumns {
    pub cluster: Vec<String>,
    pub namespace: Vec<Option<String>>,
    pub pod: Vec<String>,
    pub kind: Vec<String>,
    pub workload: Vec<String>,
    pub workload_uid: Vec<Option<String>>,
    pub component: Vec<Option<String>>,
    pub instance: Vec<Option<String>>,
    pub phase: Vec<String>,
    pub ready: Vec<bool>,
    pub node: Vec<Option<String>>,
    pub gpus: Vec<u64>,
    pub looks_like_kind: Vec<Option<String>>,
    pub looks_like: Vec<Option<String>>,
    pub looks_like_uid: Vec<Option<String>>,
}

/// What [`Engine::fleet_tables`] gives: three tables as columns.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[allow(missing_docs)]
pub struct FleetTables {
    pub schema_version: u32,
    pub workloads: WorkloadColumns,
    pub instances: InstanceColumns,
    pub pods: PodColumns,
}

impl WorkloadColumns {
    /// A row for a record or a workload that failed.
    fn error_row(&mut self, cluster: &str, object: Option<&Value>, e: &Error) {
        let text = |k: &str| {
            object
                .and_then(|o| o.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let meta = |k: &str| object.and_then(|o| meta_str(o, k)).map(str::to_string);
        self.cluster.push(cluster.to_string());
        self.namespace.push(meta("namespace"));
        self.api_version.push(text("apiVersion"));
        self.kind.push(text("kind"));
        self.name.push(meta("name"));
        self.uid.push(meta("uid"));
        self.created.push(meta("creationTimestamp"));
        self.definition.push(None);
        self.origin.push(None);
        self.phase.push(None);
        self.statuses.push(Vec::new());
        for c in [
            &mut self.desired_pods,
            &mut self.live_pods,
            &mut self.ready_pods,
            &mut self.running_pods,
            &mut self.gpus,
            &mut self.gpus_held,
            &mut self.gpus_pending,
            &mut self.cpu_millis,
            &mut self.memory_bytes,
        ] {
            c.push(None);
        }
        self.owner_state.push(None);
        self.look_alike_pods.push(None);
        self.reason.push(None);
        self.error_code.push(Some(e.code().as_str().to_string()));
        self.error_message.push(Some(e.message().to_string()));
    }
}

/// A cluster of a batch, as it is read: what the first pass finds (its
/// definitions, where its records pass `maxClusterBytes`), then its state.
struct Cluster {
    /// Bytes of its records so far (the first pass).
    kept: usize,
    /// The index of its first record past `maxClusterBytes`: that record
    /// and every later one of the cluster are left out.
    over_from: usize,
    definitions: Vec<Value>,
    unreadable: Vec<OwnerKind>,
    /// Records that failed, with their index in the batch (the rows keep
    /// the batch's order).
    errors: Vec<(usize, Option<Value>, Error)>,
}

impl Default for Cluster {
    fn default() -> Self {
        Cluster {
            kept: 0,
            over_from: usize::MAX,
            definitions: Vec::new(),
            unreadable: Vec::new(),
            errors: Vec::new(),
        }
    }
}

/// A record's roles, one word each.
fn role_words<'a>(record: &FleetRecord<'a>) -> impl Iterator<Item = &'a str> {
    record
        .roles
        .iter()
        .flat_map(|r| r.split(','))
        .map(str::trim)
        .filter(|r| !r.is_empty())
}

/// Whether a record is only for describing one workload (`event`,
/// `related`): skipped by the tables, never read.
fn described_only(record: &FleetRecord<'_>) -> bool {
    let mut words = role_words(record).peekable();
    words.peek().is_some() && words.all(|w| w == "event" || w == "related")
}

/// A record that failed: its object when it was read, and the error.
type Failed = (Option<Value>, Error);

/// A record's object read and its roles checked: the roles and the object,
/// or the error (with the object when it was read).
fn read_record<'a>(
    record: &FleetRecord<'a>,
    limits: &crate::Limits,
) -> std::result::Result<(Vec<&'a str>, Value), Failed> {
    let object = match crate::source::read_value(record.object, limits) {
        Ok(v) if v.is_object() => v,
        Ok(_) => {
            let e = Error::new(ErrorCode::InvalidObject, "the record's object is no object");
            return Err((None, e));
        }
        Err(e) => return Err((None, e)),
    };
    let roles: Vec<&str> = role_words(record).collect();
    if let Some(bad) = roles.iter().find(|r| {
        !matches!(
            **r,
            "object" | "pod" | "owner" | "definition" | "unreadable" | "event" | "related"
        )
    }) {
        let e = Error::new(
            ErrorCode::Usage,
            format!(
                "unknown role '{bad}'; the roles are object, pod, owner, definition, event, \
                 related and unreadable"
            ),
        );
        return Err((Some(object), e));
    }
    if roles.is_empty() {
        let e = Error::new(ErrorCode::Usage, "the record has no role");
        return Err((Some(object), e));
    }
    Ok((roles, object))
}

impl Engine {
    /// Resolve a batch of records into the workloads, component instances
    /// and pods tables (see the module documentation). Rows are ordered by
    /// cluster, then as a listing orders them (namespace, name); a
    /// record's error row comes before its cluster's workloads.
    ///
    /// Two passes over the records: the first charges each to its
    /// cluster's `maxClusterBytes` and reads the definitions; the second
    /// reads each other object and hands it to its cluster's state at
    /// once, which keeps what the rows need of it. No more than one object
    /// of the batch is held as a parsed value at a time.
    pub fn fleet_tables<'a>(
        &self,
        records: impl IntoIterator<Item = FleetRecord<'a>>,
    ) -> FleetTables {
        let limits = *self.limits();
        let mut out = FleetTables {
            schema_version: FLEET_SCHEMA_VERSION,
            ..FleetTables::default()
        };
        let records: Vec<FleetRecord<'a>> = records.into_iter().collect();
        let mut clusters: BTreeMap<&'a str, Cluster> = BTreeMap::new();
        for (i, r) in records.iter().enumerate() {
            let c = clusters.entry(r.cluster).or_default();
            if described_only(r) {
                continue;
            }
            c.kept = c.kept.saturating_add(r.object.len());
            if c.kept > limits.max_cluster_bytes && c.over_from == usize::MAX {
                c.over_from = i;
            }
            if i >= c.over_from || !role_words(r).any(|w| w == "definition") {
                continue;
            }
            match read_record(r, &limits) {
                Ok((_, object)) => c.definitions.push(object),
                Err((object, e)) => c.errors.push((i, object, e)),
            }
        }
        let mut states: BTreeMap<&'a str, (Engine, Option<LiveState>)> = BTreeMap::new();
        for (name, c) in &mut clusters {
            let (engine, _) = self.with_cluster_definitions(&std::mem::take(&mut c.definitions));
            let state = match LiveState::new(usize::MAX, None) {
                Ok(s) => Some(s),
                Err(e) => {
                    c.errors.push((usize::MAX, None, e));
                    None
                }
            };
            states.insert(name, (engine, state));
        }
        for (i, r) in records.iter().enumerate() {
            let Some(c) = clusters.get_mut(r.cluster) else {
                continue;
            };
            if i >= c.over_from {
                let e = Error::limit_error(
                    "maxClusterBytes",
                    format!(
                        "the batch holds more than the limit maxClusterBytes ({} bytes) of \
                         cluster {}'s objects; this record is left out",
                        limits.max_cluster_bytes, r.cluster
                    ),
                );
                c.errors.push((i, None, e));
                continue;
            }
            if described_only(r) || role_words(r).any(|w| w == "definition") {
                continue;
            }
            let (roles, object) = match read_record(r, &limits) {
                Ok(read) => read,
                Err((object, e)) => {
                    c.errors.push((i, object, e));
                    continue;
                }
            };
            if roles.contains(&"unreadable") {
                let kind = |k: &str| object.get(k).and_then(Value::as_str).map(str::to_string);
                match (kind("apiVersion"), kind("kind")) {
                    (Some(api_version), Some(kind)) => {
                        c.unreadable.push(OwnerKind { api_version, kind })
                    }
                    _ => {
                        let e = Error::new(
                            ErrorCode::Usage,
                            "an unreadable record names an owner kind: {\"apiVersion\", \"kind\"}",
                        );
                        c.errors.push((i, Some(object), e));
                    }
                }
                continue;
            }
            if meta_str(&object, "uid").is_none_or(str::is_empty) {
                let e = Error::new(ErrorCode::InvalidObject, "the object has no metadata.uid");
                c.errors.push((i, Some(object), e));
                continue;
            }
            if let Some((engine, Some(state))) = states.get_mut(r.cluster) {
                state.apply(engine, &roles.join(","), &object);
            }
        }
        drop(records);
        for (cluster, mut c) in clusters {
            c.errors.sort_by_key(|(i, _, _)| *i);
            for (_, object, e) in &c.errors {
                out.workloads.error_row(cluster, object.as_ref(), e);
            }
            let Some((engine, Some(mut state))) = states.remove(cluster) else {
                continue;
            };
            state.refresh(&engine, &c.unreadable);
            let workloads = state.workloads();
            let look_alikes = LookAlikes::of(&state, &workloads);
            for w in &workloads {
                push_workload(&mut out, cluster, w, &look_alikes);
            }
        }
        out
    }
}

/// A cluster's look-alikes ([`LiveState::look_alikes`]), for its rows: how
/// many each workload has, and the workload each pod looks like (the
/// first, by namespace and name, when several).
struct LookAlikes<'w> {
    count: HashMap<&'w str, u64>,
    looks_like: HashMap<(Option<String>, String), &'w super::metrics::WorkloadMetrics>,
}

impl<'w> LookAlikes<'w> {
    fn of(
        state: &LiveState,
        workloads: &'w [std::sync::Arc<super::metrics::WorkloadMetrics>],
    ) -> LookAlikes<'w> {
        let by_uid: HashMap<&str, &super::metrics::WorkloadMetrics> = workloads
            .iter()
            .filter_map(|w| w.summary.uid.as_deref().map(|u| (u, &**w)))
            .collect();
        let mut out = LookAlikes {
            count: HashMap::new(),
            looks_like: HashMap::new(),
        };
        for l in state.look_alikes() {
            let Some((&uid, &w)) = by_uid.get_key_value(l.workload_uid.as_str()) else {
                continue;
            };
            *out.count.entry(uid).or_default() += 1;
            let key = (l.namespace, l.pod);
            let earlier = out.looks_like.get(&key).is_some_and(|o| {
                (&o.summary.namespace, &o.summary.name) <= (&w.summary.namespace, &w.summary.name)
            });
            if !earlier {
                out.looks_like.insert(key, w);
            }
        }
        out
    }
}

fn push_workload(
    out: &mut FleetTables,
    cluster: &str,
    w: &super::metrics::WorkloadMetrics,
    look_alikes: &LookAlikes<'_>,
) {
    let s = &w.summary;
    let t = &mut out.workloads;
    t.cluster.push(cluster.to_string());
    t.namespace.push(s.namespace.clone());
    t.api_version.push(Some(s.api_version.clone()));
    t.kind.push(Some(s.kind.clone()));
    t.name.push(Some(s.name.clone()));
    t.uid.push(s.uid.clone());
    t.created.push(s.created.clone());
    t.definition.push(s.definition.clone());
    t.origin.push(s.origin.map(|o| o.as_str().to_string()));
    t.phase.push(s.phase.clone());
    t.statuses.push(
        s.statuses
            .iter()
            .map(|st| st.as_str().to_string())
            .collect(),
    );
    let resolved = s.error.is_none();
    t.desired_pods.push(resolved.then_some(s.pods));
    t.live_pods.push(s.live.map(|l| l.pods));
    t.ready_pods.push(s.live.map(|l| l.ready));
    t.running_pods.push(resolved.then_some(w.running_pods));
    t.gpus.push(resolved.then_some(s.gpus));
    t.gpus_held.push(s.live.map(|l| l.gpus));
    t.gpus_pending.push(s.live.map(|l| l.pending_gpus));
    t.cpu_millis.push(resolved.then_some(w.cpu_millis));
    t.memory_bytes.push(resolved.then_some(w.memory_bytes));
    t.owner_state.push(s.owner.as_ref().map(|o| {
        match o.state {
            OwnerStateKind::Orphaned => "orphaned",
            OwnerStateKind::Unreadable => "unreadable",
        }
        .to_string()
    }));
    t.look_alike_pods.push(Some(
        s.uid
            .as_deref()
            .and_then(|u| look_alikes.count.get(u).copied())
            .unwrap_or(0),
    ));
    t.reason.push(s.reason.clone());
    t.error_code
        .push(s.error.as_ref().map(|e| e.code().as_str().to_string()));
    t.error_message
        .push(s.error.as_ref().map(|e| e.message().to_string()));
    for i in &w.instances {
        let c = &mut out.instances;
        c.cluster.push(cluster.to_string());
        c.namespace.push(s.namespace.clone());
        c.kind.push(s.kind.clone());
        c.workload.push(s.name.clone());
        c.workload_uid.push(s.uid.clone());
        c.component.push(i.component.clone());
        c.instance.push(i.instance.clone());
        c.replicas_desired.push(i.desired);
        c.replicas_min.push(i.min);
        c.replicas_max.push(i.max);
        c.pods.push(i.pods);
        c.ready_pods.push(i.ready);
        c.gpus.push(i.gpus);
    }
    for p in &w.pods {
        let c = &mut out.pods;
        c.cluster.push(cluster.to_string());
        c.namespace.push(s.namespace.clone());
        c.pod.push(p.name.clone());
        c.kind.push(s.kind.clone());
        c.workload.push(s.name.clone());
        c.workload_uid.push(s.uid.clone());
        c.component.push(p.component.clone());
        c.instance.push(p.instance.clone());
        c.phase.push(p.phase.clone());
        c.ready.push(p.ready);
        c.node.push(p.node.clone());
        c.gpus.push(p.gpus);
        let like = look_alikes
            .looks_like
            .get(&(s.namespace.clone(), p.name.clone()));
        c.looks_like_kind.push(like.map(|o| o.summary.kind.clone()));
        c.looks_like.push(like.map(|o| o.summary.name.clone()));
        c.looks_like_uid
            .push(like.and_then(|o| o.summary.uid.clone()));
    }
}
