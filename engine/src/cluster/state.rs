//! A live cluster's workloads kept current from watch events, IO-free: the
//! state behind `workload-lens serve`.
//!
//! A front end watches every covered type, the pods, and the owner kinds
//! between them ([`LiveState::owner_kinds_needed`]), and feeds each event
//! in as it arrives ([`LiveState::apply`], [`LiveState::delete`]; a
//! re-list is [`LiveState::replace`], which also forgets what was deleted
//! while the watch was down). [`LiveState::refresh`] then attributes every
//! pod to its workload by the rules of a live listing
//! ([`Engine::list_workloads_with_pods`] with `topLevelOnly` and
//! `ownersComplete`) and resolves again only the workloads whose object,
//! pods or owners changed since the last refresh. What it holds is one
//! [`WorkloadMetrics`] per top-level workload.
//!
//! Bounds: the objects held are capped by [`LiveState::new`]'s
//! `max_objects` (those past it are refused and counted); a pod is held as
//! compact text beside a small link, as the cluster protocol keeps pods; a
//! refresh walks each controller chain once (memoized by uid) and resolves
//! each changed workload under the engine's limits.

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::Value;

use super::metrics::WorkloadMetrics;
use super::protocol::{is_pod, stub, without_managed_fields};
use super::{
    Item, ListOptions, OwnerKind, OwnerStateKind, meta_str, owner_state, pods_by_row, uid,
};
use crate::engine::Engine;
use crate::error::{Error, ErrorCode, Location, Result};
use crate::model::Gvk;

/// What an object is to the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Of a covered type: a workload, or an object between a workload and
    /// its pods (a JobSet's Job).
    Covered,
    /// Of another kind, between pods and workloads (a ReplicaSet).
    Owner,
    /// A pod.
    Pod,
}

#[derive(Debug)]
struct Entry {
    source: Arc<str>,
    role: Role,
    resource_version: Box<str>,
    /// Identity and controller reference (and `spec.replicas`): what the
    /// chains and an autoscaled count read.
    link: Value,
    /// The object as compact JSON without `managedFields`, for pods and
    /// covered objects (read again when a row resolves).
    text: Option<Box<str>>,
}

#[derive(Debug)]
struct Row {
    fingerprint: u64,
    /// None: the workload's labels do not match the selector.
    metrics: Option<Arc<WorkloadMetrics>>,
}

/// What one [`LiveState::refresh`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefreshStats {
    /// Top-level workloads after the refresh.
    pub workloads: usize,
    /// Of those, the ones resolved again (new, or their object, pods or
    /// owners changed).
    pub resolved: usize,
    /// Workloads dropped (deleted, or now controlled by another).
    pub removed: usize,
    /// The error codes of the workloads resolved again that failed, one
    /// per failure.
    pub errors: Vec<ErrorCode>,
}

/// Objects held by role ([`LiveState::counts`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateCounts {
    /// Objects of covered types.
    pub covered: usize,
    /// Owner objects of other kinds.
    pub owners: usize,
    /// Pods.
    pub pods: usize,
    /// Objects refused since the state was made, past `max_objects`.
    pub refused: u64,
}

/// A cluster's workloads, kept current from watch events (see the module
/// docs).
#[derive(Debug)]
pub struct LiveState {
    entries: BTreeMap<Box<str>, Entry>,
    sources: HashMap<Arc<str>, HashSet<Box<str>>>,
    rows: BTreeMap<Box<str>, Row>,
    selector: Option<LabelSelector>,
    max_objects: usize,
    refused: u64,
}

impl LiveState {
    /// An empty state that holds at most `max_objects` objects, and reports
    /// only the workloads whose labels match `selector` (`-l`, the syntax
    /// of Kubernetes' label selectors).
    pub fn new(max_objects: usize, selector: Option<&str>) -> Result<LiveState> {
        let selector = selector
            .filter(|s| !s.trim().is_empty())
            .map(LabelSelector::parse)
            .transpose()?;
        Ok(LiveState {
            entries: BTreeMap::new(),
            sources: HashMap::new(),
            rows: BTreeMap::new(),
            selector,
            max_objects,
            refused: 0,
        })
    }

    /// An object added or changed, from the watch (or list) of `source`
    /// (any name the front end gives a watch). An object without a uid is
    /// ignored. Returns whether anything changed.
    pub fn apply(&mut self, engine: &Engine, source: &str, object: &Value) -> bool {
        let Some(id) = uid(object).filter(|u| !u.is_empty()) else {
            return false;
        };
        let rv = meta_str(object, "resourceVersion").unwrap_or_default();
        if let Some(e) = self.entries.get(id)
            && &*e.resource_version == rv
            && !rv.is_empty()
            && &*e.source == source
        {
            return false;
        }
        if !self.entries.contains_key(id) && self.entries.len() >= self.max_objects {
            self.refused += 1;
            return false;
        }
        let role = if is_pod(object) {
            Role::Pod
        } else if covered(engine, object) {
            Role::Covered
        } else {
            Role::Owner
        };
        let text = (role != Role::Owner).then(|| {
            serde_json::to_string(&without_managed_fields(object))
                .unwrap_or_default()
                .into_boxed_str()
        });
        let source = self.source(source);
        let id: Box<str> = id.into();
        if let Some(old) = self.entries.get(&id)
            && old.source != source
            && let Some(set) = self.sources.get_mut(&old.source)
        {
            set.remove(&id);
        }
        self.sources
            .entry(source.clone())
            .or_default()
            .insert(id.clone());
        self.entries.insert(
            id,
            Entry {
                source,
                role,
                resource_version: rv.into(),
                link: stub(object),
                text,
            },
        );
        true
    }

    /// An object deleted. Returns whether it was held.
    pub fn delete(&mut self, object: &Value) -> bool {
        let Some(id) = uid(object) else { return false };
        self.remove(id)
    }

    /// A watch of `source` listed again: its objects are now exactly
    /// `objects`; those it held before and no longer lists are forgotten
    /// (deleted while the watch was down).
    pub fn replace(&mut self, engine: &Engine, source: &str, objects: &[Value]) {
        let keep: HashSet<&str> = objects.iter().filter_map(uid).collect();
        self.retain(source, |u| keep.contains(u));
        for o in objects {
            self.apply(engine, source, o);
        }
    }

    /// Forget the objects of `source` whose uid `keep` refuses: the end of
    /// a re-list whose objects were [`LiveState::apply`]'d one by one as
    /// they arrived (a large list is never held at once), given the uids
    /// it listed.
    pub fn retain(&mut self, source: &str, keep: impl Fn(&str) -> bool) {
        let gone: Vec<Box<str>> = self
            .sources
            .get(source)
            .map(|set| set.iter().filter(|u| !keep(u)).cloned().collect())
            .unwrap_or_default();
        for u in gone {
            self.remove(&u);
        }
    }

    /// Forget every object of `source` (a watch stopped for good).
    pub fn forget_source(&mut self, source: &str) {
        let gone: Vec<Box<str>> = self
            .sources
            .remove(source)
            .map(|s| s.into_iter().collect())
            .unwrap_or_default();
        for u in gone {
            self.entries.remove(&u);
        }
    }

    fn remove(&mut self, id: &str) -> bool {
        match self.entries.remove(id) {
            Some(e) => {
                if let Some(set) = self.sources.get_mut(&e.source) {
                    set.remove(id);
                }
                true
            }
            None => false,
        }
    }

    fn source(&mut self, name: &str) -> Arc<str> {
        match self.sources.get_key_value(name) {
            Some((k, _)) => k.clone(),
            None => Arc::from(name),
        }
    }

    /// Objects held, by role.
    pub fn counts(&self) -> StateCounts {
        let mut c = StateCounts {
            refused: self.refused,
            ..StateCounts::default()
        };
        for e in self.entries.values() {
            match e.role {
                Role::Covered => c.covered += 1,
                Role::Owner => c.owners += 1,
                Role::Pod => c.pods += 1,
            }
        }
        c
    }

    /// The controller kinds that held objects name but that are not held
    /// and not among `watched` (the kinds the front end already watches):
    /// the owner kinds to watch next, sorted. Covered kinds are left out
    /// (the front end watches every covered type).
    pub fn owner_kinds_needed(&self, engine: &Engine, watched: &[OwnerKind]) -> Vec<OwnerKind> {
        let links = self.entries.values().map(|e| &e.link);
        super::missing_owners(links, watched)
            .into_iter()
            .filter(|k| {
                engine
                    .lookup(&Gvk::from_api_version(&k.api_version, &k.kind))
                    .is_none()
            })
            .collect()
    }

    /// Attribute the pods and resolve again every workload whose object,
    /// pods or owners changed (see the module docs). `unreadable` names the
    /// owner kinds the front end may not watch: a chain that ends at one
    /// makes its object a workload of its own, `unreadable` (else
    /// `orphaned`), as in a live listing.
    pub fn refresh(&mut self, engine: &Engine, unreadable: &[OwnerKind]) -> RefreshStats {
        let mut stats = RefreshStats::default();
        // Every object a chain may pass through, by uid (pods too: a
        // LeaderWorkerSet's worker StatefulSet is its leader pod's).
        let by_uid: HashMap<&str, &Value> =
            self.entries.iter().map(|(u, e)| (&**u, &e.link)).collect();
        // Pods are workloads of their own when the Pod type is covered and
        // no covered object controls them (a bare pod, an orphan), as in a
        // live listing of every type.
        let pods_covered = engine.lookup(&Gvk::from_api_version("v1", "Pod")).is_some();
        let mut memo = HashMap::new();
        let listed: Vec<(&str, &Value)> = self
            .entries
            .iter()
            .filter(|(_, e)| e.role == Role::Covered || (pods_covered && e.role == Role::Pod))
            .filter(|(_, e)| !engine.covered_controller(&e.link, &by_uid, &mut memo, true))
            .map(|(u, e)| (&**u, &e.link))
            .collect();
        let pods: Vec<&Value> = self
            .entries
            .values()
            .filter(|e| e.role == Role::Pod)
            .map(|e| &e.link)
            .collect();
        let pod_ids: Vec<&str> = self
            .entries
            .iter()
            .filter(|(_, e)| e.role == Role::Pod)
            .map(|(u, _)| &**u)
            .collect();
        let listed_links: Vec<&Value> = listed.iter().map(|(_, l)| *l).collect();
        let by_row = pods_by_row(&listed_links, &pods, &by_uid);
        let options = ListOptions {
            owners_complete: true,
            unreadable: unreadable.to_vec(),
            ..ListOptions::default()
        };
        let mut states = HashMap::new();
        let mut next: BTreeMap<Box<str>, Row> = BTreeMap::new();
        for (i, (id, link)) in listed.iter().enumerate() {
            let entry = &self.entries[*id];
            // Whether the object's controller chain ends at an owner that
            // is not there: it changes when that owner is listed or deleted
            // (an owner kind watched after the first refresh), not only with
            // the object and its items.
            let owner = owner_state(link, &by_uid, &options.unreadable, &mut states);
            // The fingerprint: the object's and each item's uid and
            // resourceVersion, in the order they are given, and the owner
            // state.
            let mut h = DefaultHasher::new();
            entry.resource_version.hash(&mut h);
            unreadable.hash(&mut h);
            owner
                .as_ref()
                .map(|o| (&o.uid, o.state == OwnerStateKind::Unreadable))
                .hash(&mut h);
            for item in &by_row[i] {
                let u = match item {
                    Item::Pod(p) => pod_ids[*p],
                    Item::Owner(o) => uid(o).unwrap_or_default(),
                };
                u.hash(&mut h);
                if let Some(e) = self.entries.get(u) {
                    e.resource_version.hash(&mut h);
                }
            }
            let fingerprint = h.finish();
            let key: Box<str> = (*id).into();
            if let Some(row) = self.rows.remove(&key)
                && row.fingerprint == fingerprint
            {
                next.insert(key, row);
                continue;
            }
            let object = read(entry);
            if let Some(sel) = &self.selector
                && !sel.matches(object.pointer("/metadata/labels"))
            {
                next.insert(
                    key,
                    Row {
                        fingerprint,
                        metrics: None,
                    },
                );
                continue;
            }
            let items: Vec<Value> = by_row[i]
                .iter()
                .filter_map(|item| match item {
                    Item::Pod(p) => self.entries.get(pod_ids[*p]).map(read),
                    Item::Owner(o) => Some((*o).clone()),
                })
                .collect();
            let mut metrics = engine.workload_metrics(&object, &items);
            metrics.summary.owner = owner;
            if let Some(e) = &metrics.summary.error {
                stats.errors.push(e.code());
            }
            stats.resolved += 1;
            next.insert(
                key,
                Row {
                    fingerprint,
                    metrics: Some(Arc::new(metrics)),
                },
            );
        }
        stats.removed = self.rows.values().filter(|r| r.metrics.is_some()).count();
        self.rows = next;
        stats.workloads = self.rows.values().filter(|r| r.metrics.is_some()).count();
        stats
    }

    /// The workloads as of the last [`LiveState::refresh`], ordered by
    /// namespace, then name, then kind.
    /// (Shared: a workload that did not change is the same value as
    /// before.)
    pub fn workloads(&self) -> Vec<Arc<WorkloadMetrics>> {
        let mut v: Vec<Arc<WorkloadMetrics>> = self
            .rows
            .values()
            .filter_map(|r| r.metrics.clone())
            .collect();
        v.sort_by(|a, b| {
            let (a, b) = (&a.summary, &b.summary);
            a.namespace
                .cmp(&b.namespace)
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.kind.cmp(&b.kind))
                .then_with(|| a.api_version.cmp(&b.api_version))
        });
        v
    }
}

fn covered(engine: &Engine, object: &Value) -> bool {
    let text = |k: &str| object.get(k).and_then(Value::as_str).unwrap_or_default();
    engine
        .lookup(&Gvk::from_api_version(text("apiVersion"), text("kind")))
        .is_some()
}

/// An entry's object as a value (from its text; an owner's link).
fn read(e: &Entry) -> Value {
    e.text
        .as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_else(|| e.link.clone())
}

/// A label selector in Kubernetes' string syntax: requirements separated by
/// commas, each `key`, `!key`, `key=value`, `key==value`, `key!=value`,
/// `key in (a,b)` or `key notin (a,b)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelSelector {
    requirements: Vec<Requirement>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Requirement {
    Exists(String),
    Absent(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

/// The most requirements a selector may have, and its longest text.
const MAX_SELECTOR_BYTES: usize = 4096;

impl LabelSelector {
    /// Read a selector; a malformed one is an `invalid_input` error that
    /// says where.
    pub fn parse(text: &str) -> Result<LabelSelector> {
        let bad = |why: String| {
            Err(
                Error::new(ErrorCode::Usage, format!("label selector {text:?}: {why}")).at(
                    Location {
                        field: Some("labelSelector".into()),
                        ..Location::default()
                    },
                ),
            )
        };
        if text.len() > MAX_SELECTOR_BYTES {
            return bad(format!("longer than {MAX_SELECTOR_BYTES} bytes"));
        }
        // Split at commas outside parentheses.
        let mut parts = Vec::new();
        let (mut depth, mut start) = (0usize, 0usize);
        for (i, ch) in text.char_indices() {
            match ch {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    parts.push(&text[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        parts.push(&text[start..]);
        let valid = |k: &str| {
            !k.is_empty()
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
        };
        let value_ok = |v: &str| {
            v.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        };
        let mut requirements = Vec::new();
        for part in parts {
            let p = part.trim();
            if p.is_empty() {
                return bad("an empty requirement".into());
            }
            let set = |rest: &str| -> Option<Vec<String>> {
                let inner = rest.trim().strip_prefix('(')?.strip_suffix(')')?;
                let values: Vec<String> = inner.split(',').map(|v| v.trim().to_string()).collect();
                values.iter().all(|v| value_ok(v)).then_some(values)
            };
            let req = if let Some(k) = p.strip_prefix('!') {
                Requirement::Absent(k.trim().to_string())
            } else if let Some((k, v)) = p.split_once("!=") {
                Requirement::NotIn(k.trim().to_string(), vec![v.trim().to_string()])
            } else if let Some((k, v)) = p.split_once("==").or_else(|| p.split_once('=')) {
                Requirement::In(k.trim().to_string(), vec![v.trim().to_string()])
            } else if let Some((k, rest)) = p.split_once(" notin ") {
                match set(rest) {
                    Some(values) => Requirement::NotIn(k.trim().to_string(), values),
                    None => return bad(format!("{p:?}: expected `key notin (a,b)`")),
                }
            } else if let Some((k, rest)) = p.split_once(" in ") {
                match set(rest) {
                    Some(values) => Requirement::In(k.trim().to_string(), values),
                    None => return bad(format!("{p:?}: expected `key in (a,b)`")),
                }
            } else {
                Requirement::Exists(p.to_string())
            };
            let (key, values) = match &req {
                Requirement::Exists(k) | Requirement::Absent(k) => (k, &[][..]),
                Requirement::In(k, v) | Requirement::NotIn(k, v) => (k, v.as_slice()),
            };
            if !valid(key) {
                return bad(format!("{key:?} is not a label key"));
            }
            if let Some(v) = values.iter().find(|v| !value_ok(v)) {
                return bad(format!("{v:?} is not a label value"));
            }
            requirements.push(req);
        }
        Ok(LabelSelector { requirements })
    }

    /// Do these labels (an object's `metadata.labels`) match?
    pub fn matches(&self, labels: Option<&Value>) -> bool {
        let get = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        self.requirements.iter().all(|r| match r {
            Requirement::Exists(k) => get(k).is_some(),
            Requirement::Absent(k) => get(k).is_none(),
            Requirement::In(k, vs) => get(k).is_some_and(|v| vs.iter().any(|x| x == v)),
            Requirement::NotIn(k, vs) => get(k).is_none_or(|v| vs.iter().all(|x| x != v)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A pod controlled by a Node (a static pod's mirror): Pod is a catalog
    /// type, Node an owner kind the front end watches once a refresh names
    /// it.
    fn mirror_pod(node_uid: &str) -> Value {
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "etcd-node1", "namespace": "kube-system", "uid": "pod-1",
                         "resourceVersion": "5",
                         "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "node1",
                                              "uid": node_uid, "controller": true}]},
            "spec": {"containers": [{"name": "etcd", "image": "etcd"}]},
        })
    }

    #[test]
    fn owner_state_follows_the_owner_not_only_the_object() {
        let engine = Engine::new().unwrap();
        let node = json!({"apiVersion": "v1", "kind": "Node",
                          "metadata": {"name": "node1", "uid": "node-1", "resourceVersion": "7"}});
        let owner = |state: &LiveState| {
            let w = state.workloads();
            assert_eq!(w.len(), 1);
            w[0].summary.owner.as_ref().map(|o| o.state)
        };
        let mut state = LiveState::new(100, None).unwrap();
        state.replace(&engine, "pods", &[mirror_pod("node-1")]);
        state.refresh(&engine, &[]);
        // The Node is not held yet: orphaned, and Node is the kind to watch.
        assert_eq!(owner(&state), Some(OwnerStateKind::Orphaned));
        let kinds = state.owner_kinds_needed(&engine, &[]);
        assert_eq!(kinds.len(), 1);
        assert_eq!(kinds[0].kind, "Node");
        // Its watch lists it; the pod did not change, its owner did.
        state.replace(&engine, "nodes", std::slice::from_ref(&node));
        let stats = state.refresh(&engine, &[]);
        assert_eq!(stats.resolved, 1);
        assert_eq!(owner(&state), None);
        // Nothing changed: nothing resolved again.
        assert_eq!(state.refresh(&engine, &[]).resolved, 0);
        // The Node is deleted: orphaned again.
        state.delete(&node);
        state.refresh(&engine, &[]);
        assert_eq!(owner(&state), Some(OwnerStateKind::Orphaned));
    }

    #[test]
    fn selectors_read_as_kubernetes_reads_them() {
        let labels = json!({"team": "llm", "tier": "gold"});
        let m = |s: &str| LabelSelector::parse(s).unwrap().matches(Some(&labels));
        assert!(m("team=llm"));
        assert!(m("team==llm,tier"));
        assert!(!m("team!=llm"));
        assert!(m("team in (a, llm)"));
        assert!(!m("team notin (llm)"));
        assert!(m("!missing"));
        assert!(!m("missing"));
        assert!(m("missing!=x"));
        for bad in ["", "team=llm,", "te am=x", "team in llm", "team=a b"] {
            let e = LabelSelector::parse(bad).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Usage, "{bad}");
        }
    }
}
