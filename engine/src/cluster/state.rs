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
//! Attributing walks every object held, so it is done again only when
//! what it depends on changed: an object other than a pod added or
//! removed, a controller reference or role changed, or the unreadable
//! owner kinds. A refresh after changes of content only (a pod's status, a
//! workload's spec: the usual watch event), or after pods were created or
//! deleted under owners already attributed (that no object names as its
//! controller), keeps the last attribution and visits only the workloads
//! those objects belong to.
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
    Item, OwnerKind, OwnerState, OwnerStateKind, controller_ref, meta_str, owner_state,
    pods_by_row, uid,
};
use crate::engine::Engine;
use crate::error::{Error, ErrorCode, Location, Result};
use crate::model::Gvk;
use crate::selectors::controller_of;

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
    /// Its pods and the owners between them and it, in the order the
    /// resolve is given them: (uid, is a pod).
    items: Vec<(Box<str>, bool)>,
    /// Where its controller chain ends at a missing owner.
    owner: Option<OwnerState>,
    /// The label sets naming it on its pods (its definition's
    /// `podOwnership.labelsPath`), for [`LiveState::look_alikes`]; none
    /// when its definition names workloads by no labels.
    naming: Option<crate::selectors::LabelSets>,
}

/// A pod that looks like a workload's but is not
/// ([`LiveState::look_alikes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookAlike {
    /// The workload it looks like.
    pub workload_uid: String,
    /// The pod.
    pub pod_uid: String,
    /// Its namespace (the workload's).
    pub namespace: Option<String>,
    /// Its name.
    pub pod: String,
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
    /// Every pod was attributed again (a walk of every object held); else
    /// only the workloads of the objects that changed were visited.
    pub attributed_all: bool,
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
    /// Objects held, by role (covered, owner, pod).
    held: [usize; 3],
    /// The row each item uid of the last attribution belongs to.
    member_of: HashMap<Box<str>, Box<str>>,
    /// The unreadable kinds of the last attribution; None: attribute again
    /// (an object was added or removed, or a controller reference or a
    /// role changed, since).
    attributed: Option<Vec<OwnerKind>>,
    /// Objects whose content changed since the last refresh.
    changed: HashSet<Box<str>>,
    /// Pods created (true) or deleted since the last refresh that no
    /// object names as its controller, in order: attributed without
    /// walking everything.
    leaves: Vec<(Box<str>, bool)>,
    /// How many objects held name each uid as their controller.
    children: HashMap<Box<str>, u32>,
    /// The controller kinds named and not held (`missing_owners`), as of
    /// the last structural change; None: to compute.
    missing: Option<Vec<OwnerKind>>,
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
            held: [0; 3],
            member_of: HashMap::new(),
            attributed: None,
            changed: HashSet::new(),
            leaves: Vec::new(),
            children: HashMap::new(),
            missing: None,
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
        let mut link = stub(object);
        if role == Role::Pod
            && let (Some(labels), Some(meta)) = (
                object.pointer("/metadata/labels"),
                link.get_mut("metadata").and_then(Value::as_object_mut),
            )
        {
            // Kept for look-alikes (`look_alikes`).
            meta.insert("labels".into(), labels.clone());
        }
        let structural = match self.entries.get(&id) {
            Some(old) => {
                if old.source != source
                    && let Some(set) = self.sources.get_mut(&old.source)
                {
                    set.remove(&id);
                }
                self.held[old.role as usize] -= 1;
                let moved = old.role != role || controller_ref(&old.link) != controller_ref(&link);
                if moved {
                    let old = controller_uid(&old.link).map(Box::from);
                    self.adopt(old.as_deref(), controller_uid(&link));
                }
                moved
            }
            None => {
                self.adopt(None, controller_uid(&link));
                true
            }
        };
        if structural {
            // A new pod under an owner already held, that nothing names as
            // its controller, is attributed on its own.
            let leaf = role == Role::Pod
                && !self.entries.contains_key(&id)
                && !self.children.contains_key(&id)
                && controller_uid(&link).is_some_and(|c| self.entries.contains_key(c));
            if leaf && self.attributed.is_some() {
                self.leaves.push((id.clone(), true));
            } else {
                self.structure_changed();
            }
        }
        self.held[role as usize] += 1;
        self.sources
            .entry(source.clone())
            .or_default()
            .insert(id.clone());
        if self.attributed.is_some() {
            // (Not needed when everything is attributed again.)
            self.changed.insert(id.clone());
        }
        self.entries.insert(
            id,
            Entry {
                source,
                role,
                resource_version: rv.into(),
                link,
                text,
            },
        );
        true
    }

    /// The attribution and the missing owner kinds are to be found again.
    fn structure_changed(&mut self) {
        self.attributed = None;
        self.missing = None;
        self.leaves.clear();
    }

    /// An object's controller changed from `old` to `new`: the count of
    /// the objects naming each.
    fn adopt(&mut self, old: Option<&str>, new: Option<&str>) {
        if let Some(o) = old
            && let Some(n) = self.children.get_mut(o)
        {
            *n -= 1;
            if *n == 0 {
                self.children.remove(o);
            }
        }
        if let Some(n) = new {
            *self.children.entry(n.into()).or_default() += 1;
        }
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
            if let Some(e) = self.entries.remove(&u) {
                self.held[e.role as usize] -= 1;
                self.adopt(controller_uid(&e.link), None);
                self.structure_changed();
            }
        }
    }

    fn remove(&mut self, id: &str) -> bool {
        let Some(e) = self.entries.remove(id) else {
            return false;
        };
        if let Some(set) = self.sources.get_mut(&e.source) {
            set.remove(id);
        }
        self.held[e.role as usize] -= 1;
        self.adopt(controller_uid(&e.link), None);
        // A pod that nothing names as its controller, whose own controller
        // (if any) is held: it leaves its workload alone.
        let leaf = e.role == Role::Pod
            && !self.children.contains_key(id)
            && controller_uid(&e.link).is_none_or(|c| self.entries.contains_key(c));
        if leaf && self.attributed.is_some() {
            self.leaves.push((id.into(), false));
        } else {
            self.structure_changed();
        }
        true
    }

    fn source(&mut self, name: &str) -> Arc<str> {
        match self.sources.get_key_value(name) {
            Some((k, _)) => k.clone(),
            None => Arc::from(name),
        }
    }

    /// Objects held, by role.
    pub fn counts(&self) -> StateCounts {
        StateCounts {
            covered: self.held[Role::Covered as usize],
            owners: self.held[Role::Owner as usize],
            pods: self.held[Role::Pod as usize],
            refused: self.refused,
        }
    }

    /// The controller kinds that held objects name but that are not held
    /// and not among `watched` (the kinds the front end already watches):
    /// the owner kinds to watch next, sorted. Covered kinds are left out
    /// (the front end watches every covered type).
    pub fn owner_kinds_needed(&self, engine: &Engine, watched: &[OwnerKind]) -> Vec<OwnerKind> {
        let missing = match &self.missing {
            Some(m) => m.clone(),
            None => self.missing_kinds(),
        };
        missing
            .into_iter()
            .filter(|k| !watched.contains(k))
            .filter(|k| {
                engine
                    .lookup(&Gvk::from_api_version(&k.api_version, &k.kind))
                    .is_none()
            })
            .collect()
    }

    fn missing_kinds(&self) -> Vec<OwnerKind> {
        super::missing_owners(self.entries.values().map(|e| &e.link), &[])
    }

    /// Attribute the pods and resolve again every workload whose object,
    /// pods or owners changed (see the module docs). `unreadable` names the
    /// owner kinds the front end may not watch: a chain that ends at one
    /// makes its object a workload of its own, `unreadable` (else
    /// `orphaned`), as in a live listing.
    pub fn refresh(&mut self, engine: &Engine, unreadable: &[OwnerKind]) -> RefreshStats {
        let leaves = if self.attributed.as_deref() == Some(unreadable) {
            self.attribute_leaves(engine)
        } else {
            None
        };
        let stats = match leaves {
            Some((rebuilt, removed)) => {
                let mut stats = self.refresh_changed(engine, unreadable, rebuilt);
                stats.removed = removed;
                stats
            }
            None => self.refresh_all(engine, unreadable),
        };
        self.changed = HashSet::new();
        self.leaves.clear();
        stats
    }

    /// Attribute the pods created and forget those deleted since the last
    /// refresh ([`LiveState::leaves`]), as walking everything would: a pod
    /// goes to the row its controller is, or belongs to. Returns the rows
    /// whose pods changed, or None (nothing changed) when a pod cannot be
    /// attributed so (its controller is not of a covered type, or belongs
    /// to no row yet): then everything is attributed again. Also returns
    /// the workloads removed (pods that were workloads of their own).
    #[allow(clippy::type_complexity)]
    fn attribute_leaves(
        &mut self,
        engine: &Engine,
    ) -> Option<(BTreeMap<Box<str>, Vec<Box<str>>>, usize)> {
        // Phase 1, without changing anything: where each pod goes.
        let mut placed: HashMap<&str, Option<&str>> = HashMap::new();
        let mut removed_rows: Vec<&str> = Vec::new();
        for (id, created) in &self.leaves {
            if !*created {
                if self.rows.contains_key(id) && !self.entries.contains_key(id) {
                    removed_rows.push(id);
                }
                placed.insert(id, None);
                continue;
            }
            let Some(e) = self.entries.get(id) else {
                continue; // deleted again since
            };
            if self.rows.contains_key(id) {
                return None;
            }
            let (api_version, kind, owner) = controller_of(&e.link)?;
            engine.lookup(&Gvk::from_api_version(api_version, kind))?;
            let row = match placed.get(owner) {
                Some(p) => (*p)?,
                None => match self.rows.get_key_value(owner) {
                    Some((k, _)) => k,
                    None => self.member_of.get(owner)?,
                },
            };
            placed.insert(id, Some(row));
        }
        // Phase 2: the rows' pods, then their items walked again.
        let mut rebuilt: BTreeMap<Box<str>, Vec<Box<str>>> = BTreeMap::new();
        for (id, row) in &placed {
            let old = self.member_of.get(*id).map(|r| &**r);
            for r in [old, *row].into_iter().flatten() {
                rebuilt.entry(r.into()).or_default();
            }
            if let Some(r) = row {
                rebuilt.entry((*r).into()).or_default().push((*id).into());
            }
        }
        let placed: Vec<(Box<str>, Option<Box<str>>)> = placed
            .into_iter()
            .map(|(u, r)| (u.into(), r.map(Box::from)))
            .collect();
        let removed_rows: Vec<Box<str>> = removed_rows.into_iter().map(Box::from).collect();
        for (u, r) in placed {
            match r {
                Some(r) => self.member_of.insert(u, r),
                None => self.member_of.remove(&u),
            };
        }
        let mut removed = 0;
        for r in removed_rows {
            if self.rows.remove(&r).is_some_and(|r| r.metrics.is_some()) {
                removed += 1;
            }
            rebuilt.remove(&r);
        }
        Some((rebuilt, removed))
    }

    /// Only contents changed since the last attribution, and the pods of
    /// `rebuilt`: resolve again the rows the changed objects belong to, if
    /// their fingerprint moved.
    fn refresh_changed(
        &mut self,
        engine: &Engine,
        unreadable: &[OwnerKind],
        rebuilt: BTreeMap<Box<str>, Vec<Box<str>>>,
    ) -> RefreshStats {
        let mut stats = RefreshStats::default();
        let walked: Vec<Box<str>> = rebuilt.keys().cloned().collect();
        for (id, created) in rebuilt {
            let Some(row) = self.rows.get_mut(&id) else {
                continue;
            };
            let mut pods: Vec<Box<str>> = row
                .items
                .iter()
                .filter(|(u, pod)| *pod && self.member_of.get(u) == Some(&id))
                .map(|(u, _)| u.clone())
                .chain(created)
                .filter(|u| self.entries.contains_key(u))
                .collect();
            pods.sort();
            pods.dedup();
            row.items = walk_row(&self.entries, &id, &pods);
        }
        let dirty: HashSet<&str> = self
            .changed
            .iter()
            .filter_map(|u| {
                if self.rows.contains_key(u) {
                    Some(&**u)
                } else {
                    self.member_of.get(u).map(|r| &**r)
                }
            })
            .chain(walked.iter().map(|u| &**u))
            .collect();
        for id in dirty {
            let Some(row) = self.rows.get_mut(id) else {
                continue;
            };
            let Some(entry) = self.entries.get(id) else {
                continue;
            };
            let fingerprint = fingerprint(&self.entries, entry, unreadable, &row.items, &row.owner);
            if fingerprint == row.fingerprint {
                continue;
            }
            let items = std::mem::take(&mut row.items);
            let owner = row.owner.take();
            *row = resolve_row(
                engine,
                &self.entries,
                self.selector.as_ref(),
                entry,
                items,
                owner,
                fingerprint,
                &mut stats,
            );
        }
        stats.workloads = self.rows.values().filter(|r| r.metrics.is_some()).count();
        stats
    }

    /// Attribute every pod again, then resolve the rows whose fingerprint
    /// moved.
    fn refresh_all(&mut self, engine: &Engine, unreadable: &[OwnerKind]) -> RefreshStats {
        let mut stats = RefreshStats {
            attributed_all: true,
            ..RefreshStats::default()
        };
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
        let mut states = HashMap::new();
        let mut member_of: HashMap<Box<str>, Box<str>> = HashMap::new();
        let mut next: BTreeMap<Box<str>, Row> = BTreeMap::new();
        for (i, (id, link)) in listed.iter().enumerate() {
            let entry = &self.entries[*id];
            let items: Vec<(Box<str>, bool)> = by_row[i]
                .iter()
                .map(|item| match item {
                    Item::Pod(p) => (pod_ids[*p].into(), true),
                    Item::Owner(o) => (uid(o).unwrap_or_default().into(), false),
                })
                .collect();
            for (u, _) in &items {
                member_of.insert(u.clone(), (*id).into());
            }
            let owner = owner_state(link, &by_uid, unreadable, &mut states);
            let fingerprint = fingerprint(&self.entries, entry, unreadable, &items, &owner);
            let key: Box<str> = (*id).into();
            if let Some(mut row) = self.rows.remove(&key)
                && row.fingerprint == fingerprint
            {
                row.items = items;
                next.insert(key, row);
                continue;
            }
            let row = resolve_row(
                engine,
                &self.entries,
                self.selector.as_ref(),
                entry,
                items,
                owner,
                fingerprint,
                &mut stats,
            );
            next.insert(key, row);
        }
        stats.removed = self.rows.values().filter(|r| r.metrics.is_some()).count();
        self.rows = next;
        self.member_of = member_of;
        self.attributed = Some(unreadable.to_vec());
        if self.missing.is_none() {
            self.missing = Some(self.missing_kinds());
        }
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

impl LiveState {
    /// The look-alike pods of each workload, as of the last
    /// [`LiveState::refresh`]: the pods of its namespace whose labels name
    /// it (its definition's `podOwnership.labelsPath`, the rule `describe`
    /// lists them by, under "Not this workload's pods") though their
    /// controller chain does not lead to it: leftovers of an earlier
    /// rollout, copies made by hand, another workload's pods with its
    /// labels. The workload's own pods (of any generation) and the objects
    /// above it are not. By workload (uid), then pod (uid). A definition that names its workloads by no labels has none;
    /// a workload whose labels do not evaluate has none.
    ///
    /// Cost: the naming labels are evaluated when a row resolves (one
    /// `labelsPath` per workload); here, an index of each namespace's pods
    /// by label (the pods' labels are kept with their links), and per
    /// workload the pods that carry its first label.
    pub fn look_alikes(&self) -> Vec<LookAlike> {
        // The pods of each namespace (one pass), and, once a workload of
        // the namespace has naming labels, an index of its pods by label.
        let mut uids_of: HashMap<Option<&str>, Vec<&str>> = HashMap::new();
        for (u, e) in &self.entries {
            if e.role == Role::Pod {
                let ns = meta_str(&e.link, "namespace").filter(|n| !n.is_empty());
                uids_of.entry(ns).or_default().push(u);
            }
        }
        type Index<'s> = HashMap<(&'s str, &'s str), Vec<&'s str>>;
        let mut index_of: HashMap<Option<&str>, Index<'_>> = HashMap::new();
        let labels_of = |u: &str| {
            self.entries
                .get(u)
                .and_then(|e| e.link.pointer("/metadata/labels"))
        };
        let mut out = Vec::new();
        for (uid, row) in &self.rows {
            let (Some(sets), Some(_)) = (&row.naming, &row.metrics) else {
                continue;
            };
            let Some(entry) = self.entries.get(uid) else {
                continue;
            };
            let namespace = meta_str(&entry.link, "namespace").filter(|n| !n.is_empty());
            let index = index_of.entry(namespace).or_insert_with(|| {
                let mut index: Index<'_> = HashMap::new();
                for &u in uids_of
                    .get(&namespace)
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    if let Some(Value::Object(labels)) = labels_of(u) {
                        for (k, v) in labels {
                            if let Some(v) = v.as_str() {
                                index.entry((k.as_str(), v)).or_default().push(u);
                            }
                        }
                    }
                }
                index
            });
            // The pods carrying a set's first label, then the whole set.
            let mut found: Vec<&str> = Vec::new();
            for set in sets {
                let Some((k, v)) = set.first() else { continue };
                for &pod in index
                    .get(&(k.as_str(), v.as_str()))
                    .map(Vec::as_slice)
                    .unwrap_or_default()
                {
                    if crate::selectors::labels_name(std::slice::from_ref(set), labels_of(pod)) {
                        found.push(pod);
                    }
                }
            }
            if found.is_empty() {
                continue;
            }
            found.sort_unstable();
            found.dedup();
            // Its own: its pods, and the objects above it.
            let mut own: HashSet<&str> = row.items.iter().map(|(u, _)| &**u).collect();
            own.insert(uid);
            let mut current = uid.as_ref();
            while let Some(c) = self
                .entries
                .get(current)
                .and_then(|e| controller_uid(&e.link))
            {
                if !own.insert(c) {
                    break;
                }
                current = c;
            }
            for pod in found.into_iter().filter(|p| !own.contains(p)) {
                let name = self
                    .entries
                    .get(pod)
                    .and_then(|e| meta_str(&e.link, "name"))
                    .unwrap_or_default();
                out.push(LookAlike {
                    workload_uid: uid.to_string(),
                    pod_uid: pod.to_string(),
                    namespace: namespace.map(str::to_string),
                    pod: name.to_string(),
                });
            }
        }
        out
    }
}

fn covered(engine: &Engine, object: &Value) -> bool {
    let text = |k: &str| object.get(k).and_then(Value::as_str).unwrap_or_default();
    engine
        .lookup(&Gvk::from_api_version(text("apiVersion"), text("kind")))
        .is_some()
}

/// The uid of an object's controller.
fn controller_uid(link: &Value) -> Option<&str> {
    controller_of(link).map(|(_, _, u)| u)
}

/// A row's items from its pods (sorted by uid), as [`pods_by_row`] gives
/// them: each pod, then the owners between it and the row that no pod
/// before it passed.
fn walk_row(
    entries: &BTreeMap<Box<str>, Entry>,
    row: &str,
    pods: &[Box<str>],
) -> Vec<(Box<str>, bool)> {
    let mut items = Vec::new();
    let mut added: HashSet<&str> = HashSet::new();
    for p in pods {
        if added.insert(p) {
            items.push((p.clone(), true));
        }
        if **p == *row {
            continue;
        }
        let mut current: &str = p;
        while let Some(c) = entries.get(current).and_then(|e| controller_uid(&e.link)) {
            if c == row || added.contains(c) {
                break;
            }
            let Some((k, e)) = entries.get_key_value(c) else {
                break;
            };
            added.insert(k);
            items.push((k.clone(), e.role == Role::Pod));
            current = k;
        }
    }
    items
}

/// A row's fingerprint: its object's resourceVersion, the unreadable
/// kinds, each item's uid and resourceVersion in the order they are given,
/// and where its controller chain ends.
fn fingerprint(
    entries: &BTreeMap<Box<str>, Entry>,
    entry: &Entry,
    unreadable: &[OwnerKind],
    items: &[(Box<str>, bool)],
    owner: &Option<OwnerState>,
) -> u64 {
    let mut h = DefaultHasher::new();
    entry.resource_version.hash(&mut h);
    unreadable.hash(&mut h);
    for (u, _) in items {
        u.hash(&mut h);
        if let Some(e) = entries.get(u) {
            e.resource_version.hash(&mut h);
        }
    }
    if let Some(o) = owner {
        matches!(o.state, OwnerStateKind::Unreadable).hash(&mut h);
        o.uid.hash(&mut h);
        o.kind.hash(&mut h);
    }
    h.finish()
}

/// Resolve one row: its object, pods and owners read from `entries`.
#[allow(clippy::too_many_arguments)]
fn resolve_row(
    engine: &Engine,
    entries: &BTreeMap<Box<str>, Entry>,
    selector: Option<&LabelSelector>,
    entry: &Entry,
    items: Vec<(Box<str>, bool)>,
    owner: Option<OwnerState>,
    fingerprint: u64,
    stats: &mut RefreshStats,
) -> Row {
    let object = read(entry);
    if let Some(sel) = selector
        && !sel.matches(object.pointer("/metadata/labels"))
    {
        return Row {
            fingerprint,
            metrics: None,
            items,
            owner,
            naming: None,
        };
    }
    let values: Vec<Value> = items
        .iter()
        .filter_map(|(u, pod)| {
            let e = entries.get(u)?;
            Some(if *pod { read(e) } else { e.link.clone() })
        })
        .collect();
    let mut metrics = engine.workload_metrics(&object, &values);
    metrics.summary.owner.clone_from(&owner);
    if let Some(e) = &metrics.summary.error {
        stats.errors.push(e.code());
    }
    stats.resolved += 1;
    let text = |k: &str| object.get(k).and_then(Value::as_str).unwrap_or("");
    let naming = engine
        .lookup(&Gvk::from_api_version(text("apiVersion"), text("kind")))
        .and_then(|def| crate::selectors::naming_labels(def, &object).ok().flatten())
        .filter(|sets| !sets.is_empty());
    Row {
        fingerprint,
        metrics: Some(Arc::new(metrics)),
        items,
        owner,
        naming,
    }
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

    fn controller(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
        json!([{"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
                "controller": true}])
    }

    fn object(api_version: &str, kind: &str, name: &str, uid: &str, rv: u32) -> Value {
        json!({"apiVersion": api_version, "kind": kind,
               "metadata": {"name": name, "namespace": "ns", "uid": uid,
                            "resourceVersion": rv.to_string(), "labels": {"app": name}}})
    }

    fn deployment(name: &str, uid: &str, replicas: u32, rv: u32) -> Value {
        let mut d = object("apps/v1", "Deployment", name, uid, rv);
        d["spec"] = json!({"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": [
                {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}});
        d
    }

    fn replica_set(name: &str, uid: &str, owner: (&str, &str), rv: u32) -> Value {
        let mut r = deployment(name, uid, 2, rv);
        r["kind"] = json!("ReplicaSet");
        r["metadata"]["ownerReferences"] = controller("apps/v1", "Deployment", owner.0, owner.1);
        r
    }

    fn pod(name: &str, uid: &str, owner: (&str, &str, &str), ready: bool, rv: u32) -> Value {
        let mut p = object("v1", "Pod", name, uid, rv);
        if !owner.0.is_empty() {
            p["metadata"]["ownerReferences"] = controller("apps/v1", owner.0, owner.1, owner.2);
        }
        let r = if ready { "True" } else { "False" };
        p["spec"] = json!({"nodeName": "n1", "containers": [
            {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]});
        p["status"] = json!({"phase": "Running", "conditions": [{"type": "Ready", "status": r}]});
        p
    }

    /// Two Deployments (a ReplicaSet and two pods each) and a bare pod.
    fn cluster() -> Vec<(&'static str, Value)> {
        vec![
            ("deployments", deployment("a", "d-a", 2, 1)),
            ("deployments", deployment("b", "d-b", 2, 2)),
            ("replicasets", replica_set("a-1", "rs-a", ("a", "d-a"), 3)),
            ("replicasets", replica_set("b-1", "rs-b", ("b", "d-b"), 4)),
            (
                "pods",
                pod("a-1-x", "p-a1", ("ReplicaSet", "a-1", "rs-a"), true, 5),
            ),
            (
                "pods",
                pod("a-1-y", "p-a2", ("ReplicaSet", "a-1", "rs-a"), true, 6),
            ),
            (
                "pods",
                pod("b-1-x", "p-b1", ("ReplicaSet", "b-1", "rs-b"), true, 7),
            ),
            (
                "pods",
                pod("b-1-y", "p-b2", ("ReplicaSet", "b-1", "rs-b"), true, 8),
            ),
            ("pods", pod("bare", "p-bare", ("", "", ""), true, 9)),
        ]
    }

    /// What a state made at once from `objects` reports.
    fn fresh(
        engine: &Engine,
        objects: &[(&str, Value)],
        unreadable: &[OwnerKind],
    ) -> Vec<Arc<WorkloadMetrics>> {
        let mut s = LiveState::new(1000, None).unwrap();
        for (source, o) in objects {
            s.apply(engine, source, o);
        }
        s.refresh(engine, unreadable);
        s.workloads()
    }

    /// Apply `change` to `objects` and to `state`, refresh, and check the
    /// state reports what a fresh one does. Returns the refresh's stats.
    fn step(
        engine: &Engine,
        state: &mut LiveState,
        objects: &mut Vec<(&'static str, Value)>,
        change: (&'static str, Value),
    ) -> RefreshStats {
        let id = uid(&change.1).unwrap().to_string();
        objects.retain(|(_, o)| uid(o) != Some(&id));
        state.apply(engine, change.0, &change.1);
        objects.push(change);
        let stats = state.refresh(engine, &[]);
        assert_eq!(state.workloads(), fresh(engine, objects, &[]));
        stats
    }

    fn ready_pods(state: &LiveState, name: &str) -> u64 {
        let w = state.workloads();
        let w = w.iter().find(|w| w.summary.name == name).unwrap();
        w.summary.live.unwrap().ready
    }

    #[test]
    fn a_change_of_content_resolves_only_its_workload_without_attributing_again() {
        let engine = Engine::new().unwrap();
        let mut objects = cluster();
        let mut state = LiveState::new(1000, None).unwrap();
        for (source, o) in &objects {
            state.apply(&engine, source, o);
        }
        let stats = state.refresh(&engine, &[]);
        assert_eq!((stats.workloads, stats.resolved), (3, 3));
        assert_eq!(ready_pods(&state, "a"), 2);
        // A pod becomes unready: its Deployment alone resolves again, from
        // the attribution kept.
        let stats = step(
            &engine,
            &mut state,
            &mut objects,
            (
                "pods",
                pod("a-1-x", "p-a1", ("ReplicaSet", "a-1", "rs-a"), false, 10),
            ),
        );
        assert_eq!((stats.workloads, stats.resolved, stats.removed), (3, 1, 0));
        assert!(!stats.attributed_all);
        assert_eq!(ready_pods(&state, "a"), 1);
        // A Deployment scaled; a ReplicaSet's content; the bare pod.
        let stats = step(
            &engine,
            &mut state,
            &mut objects,
            ("deployments", deployment("b", "d-b", 5, 11)),
        );
        assert_eq!(stats.resolved, 1);
        let stats = step(
            &engine,
            &mut state,
            &mut objects,
            ("replicasets", replica_set("a-1", "rs-a", ("a", "d-a"), 12)),
        );
        assert_eq!(stats.resolved, 1);
        let stats = step(
            &engine,
            &mut state,
            &mut objects,
            ("pods", pod("bare", "p-bare", ("", "", ""), false, 13)),
        );
        assert_eq!(stats.resolved, 1);
        assert!(state.attributed.is_some());
        // The same version again changes nothing.
        let again = pod("bare", "p-bare", ("", "", ""), false, 13);
        assert!(!state.apply(&engine, "pods", &again));
        assert_eq!(state.refresh(&engine, &[]).resolved, 0);
    }

    #[test]
    fn changes_of_structure_attribute_again() {
        let engine = Engine::new().unwrap();
        let mut objects = cluster();
        let mut state = LiveState::new(1000, None).unwrap();
        for (source, o) in &objects {
            state.apply(&engine, source, o);
        }
        state.refresh(&engine, &[]);
        // A pod added to a ReplicaSet: attributed on its own.
        let stats = step(
            &engine,
            &mut state,
            &mut objects,
            (
                "pods",
                pod("a-1-z", "p-a3", ("ReplicaSet", "a-1", "rs-a"), true, 20),
            ),
        );
        assert_eq!((stats.workloads, stats.resolved), (3, 1));
        assert!(!stats.attributed_all);
        assert_eq!(ready_pods(&state, "a"), 3);
        // A pod moves to the other ReplicaSet (its controller reference).
        let stats = step(
            &engine,
            &mut state,
            &mut objects,
            (
                "pods",
                pod("a-1-z", "p-a3", ("ReplicaSet", "b-1", "rs-b"), true, 21),
            ),
        );
        assert_eq!(stats.resolved, 2);
        assert!(stats.attributed_all);
        assert_eq!(ready_pods(&state, "b"), 3);
        // A ReplicaSet deleted: its pods' chain now ends at a missing owner
        // of a covered type, so each is a workload of its own.
        let rs = replica_set("b-1", "rs-b", ("b", "d-b"), 4);
        assert!(state.delete(&rs));
        objects.retain(|(_, o)| uid(o) != Some("rs-b"));
        let stats = state.refresh(&engine, &[]);
        assert_eq!(state.workloads(), fresh(&engine, &objects, &[]));
        assert_eq!(stats.workloads, 6);
        // A watch listed again without the pod added above.
        objects.retain(|(_, o)| uid(o) != Some("p-a3"));
        let listed: Vec<Value> = objects
            .iter()
            .filter(|(s, _)| *s == "pods")
            .map(|(_, o)| o.clone())
            .collect();
        state.replace(&engine, "pods", &listed);
        state.refresh(&engine, &[]);
        assert_eq!(state.workloads(), fresh(&engine, &objects, &[]));
        assert_eq!(
            state.counts(),
            StateCounts {
                covered: 3,
                owners: 0,
                pods: 5,
                refused: 0
            }
        );
        // Listed again object by object as a watch streams a list (apply,
        // then retain), without a pod of Deployment a: only a is resolved.
        objects.retain(|(_, o)| uid(o) != Some("p-a2"));
        let mut seen = HashSet::new();
        for (source, o) in objects.iter().filter(|(s, _)| *s == "pods") {
            state.apply(&engine, source, o);
            seen.insert(uid(o).unwrap().to_string());
        }
        state.retain("pods", |u| seen.contains(u));
        let stats = state.refresh(&engine, &[]);
        assert_eq!(state.workloads(), fresh(&engine, &objects, &[]));
        assert_eq!(stats.resolved, 1);
        assert_eq!(ready_pods(&state, "a"), 1);
        assert_eq!(state.counts().pods, 4);
    }

    #[test]
    fn pods_created_and_deleted_in_any_order_are_attributed_as_at_once() {
        // Random batches of changes (pods created under a ReplicaSet, a pod,
        // nothing or a missing owner; pods deleted; contents changed;
        // ReplicaSets deleted and created again), each refresh checked
        // against a state made at once from the same objects.
        let engine = Engine::new().unwrap();
        let mut leaf_refreshes = 0;
        for seed in 1..=12u64 {
            let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut next = |n: u64| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng % n
            };
            let mut objects = cluster();
            let mut state = LiveState::new(1000, None).unwrap();
            for (source, o) in &objects {
                state.apply(&engine, source, o);
            }
            state.refresh(&engine, &[]);
            let mut rv = 100;
            for step in 0..60 {
                for _ in 0..=next(3) {
                    rv += 1;
                    let pods: Vec<Value> = objects
                        .iter()
                        .filter(|(s, _)| *s == "pods")
                        .map(|(_, o)| o.clone())
                        .collect();
                    let some_pod = |i: u64| pods[i as usize % pods.len().max(1)].clone();
                    let name = format!("p{rv}");
                    let change = match next(8) {
                        0 | 1 => {
                            let (rs, u) = [("a-1", "rs-a"), ("b-1", "rs-b")][next(2) as usize];
                            Some(pod(&name, &name, ("ReplicaSet", rs, u), next(2) == 0, rv))
                        }
                        2 if !pods.is_empty() => {
                            let p = some_pod(next(99));
                            let n = meta_str(&p, "name").unwrap().to_string();
                            let u = uid(&p).unwrap().to_string();
                            Some(pod(&name, &name, ("Pod", &n, &u), true, rv))
                        }
                        3 => Some(pod(&name, &name, ("", "", ""), true, rv)),
                        4 => Some(pod(
                            &name,
                            &name,
                            ("ReplicaSet", "gone", "rs-gone"),
                            true,
                            rv,
                        )),
                        5 if !pods.is_empty() => {
                            let p = some_pod(next(99));
                            let u = uid(&p).unwrap().to_string();
                            state.delete(&p);
                            objects.retain(|(_, o)| uid(o) != Some(&u));
                            None
                        }
                        6 if !pods.is_empty() => {
                            let mut p = some_pod(next(99));
                            p["metadata"]["resourceVersion"] = json!(rv.to_string());
                            p["status"]["conditions"][0]["status"] = json!("False");
                            Some(p)
                        }
                        7 if next(4) == 0 => {
                            let rs = replica_set("b-1", "rs-b", ("b", "d-b"), rv);
                            if objects.iter().any(|(_, o)| uid(o) == Some("rs-b")) {
                                state.delete(&rs);
                                objects.retain(|(_, o)| uid(o) != Some("rs-b"));
                                None
                            } else {
                                Some(rs)
                            }
                        }
                        _ => None,
                    };
                    if let Some(o) = change {
                        let source = if meta_str(&o, "name") == Some("b-1") {
                            "replicasets"
                        } else {
                            "pods"
                        };
                        let u = uid(&o).unwrap().to_string();
                        objects.retain(|(_, x)| uid(x) != Some(&u));
                        state.apply(&engine, source, &o);
                        objects.push((source, o));
                    }
                }
                if !state.refresh(&engine, &[]).attributed_all {
                    leaf_refreshes += 1;
                }
                assert_eq!(
                    state.workloads(),
                    fresh(&engine, &objects, &[]),
                    "seed {seed}, step {step}"
                );
                let n = |role| objects.iter().filter(|(s, _)| *s == role).count();
                assert_eq!(state.counts().pods, n("pods"));
            }
        }
        // Most batches include a pod under no ReplicaSet, or a deleted
        // ReplicaSet; the rest take the short way.
        assert!(leaf_refreshes > 120, "{leaf_refreshes} of 720");
    }

    #[test]
    fn an_owner_that_appears_above_a_workload_is_seen() {
        let engine = Engine::new().unwrap();
        let mut d = deployment("a", "d-a", 1, 1);
        d["metadata"]["ownerReferences"] = controller("example.com/v1", "Platform", "p", "x-1");
        let mut objects = vec![("deployments", d)];
        let mut state = LiveState::new(1000, None).unwrap();
        state.apply(&engine, "deployments", &objects[0].1);
        state.refresh(&engine, &[]);
        let owner = |s: &LiveState| s.workloads()[0].summary.owner.as_ref().map(|o| o.state);
        assert_eq!(owner(&state), Some(OwnerStateKind::Orphaned));
        let kinds = state.owner_kinds_needed(&engine, &[]);
        assert_eq!(
            kinds,
            vec![OwnerKind {
                api_version: "example.com/v1".into(),
                kind: "Platform".into()
            }]
        );
        assert!(state.owner_kinds_needed(&engine, &kinds).is_empty());
        // Unreadable: a change of the kinds the front end may not watch.
        state.refresh(&engine, &kinds);
        assert_eq!(owner(&state), Some(OwnerStateKind::Unreadable));
        assert_eq!(state.workloads(), fresh(&engine, &objects, &kinds));
        state.refresh(&engine, &[]);
        assert_eq!(owner(&state), Some(OwnerStateKind::Orphaned));
        // The owner arrives (it has no controller): the chain ends there.
        step(
            &engine,
            &mut state,
            &mut objects,
            (
                "platforms",
                object("example.com/v1", "Platform", "p", "x-1", 2),
            ),
        );
        assert_eq!(owner(&state), None);
        assert!(state.owner_kinds_needed(&engine, &[]).is_empty());
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
