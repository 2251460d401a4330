//! Rules for reading a live cluster, kept IO-free: every front end (the
//! CLI, Python's and Node's `kube` modules) fetches objects with its own
//! Kubernetes client and asks the engine what to make of them, so that all
//! of them list, attribute and summarize workloads the same way.
//!
//! - [`Engine::find_type`]: which served resource a type token (`jobsets`,
//!   `JobSet`, `lws`, `jobset.v1alpha2.jobset.x-k8s.io`) names.
//! - [`Engine::covered_types`]: the served resources a definition covers
//!   (`get --all-types`).
//! - [`Engine::with_cluster_definitions`]: definitions stored in the cluster
//!   (Karta and ResourceInterface objects) override the catalog.
//! - [`Engine::list_workloads`]: one summary row per workload, by namespace and name,
//!   optionally only those no covered object controls.
//! - [`missing_owners`]: the owner kinds to fetch before attributing pods
//!   through their controller chains.

pub(crate) mod api;
pub(crate) mod events;
pub(crate) mod fleet;
pub(crate) mod metrics;
pub(crate) mod protocol;
pub(crate) mod records;
pub(crate) mod snapshot;
pub(crate) mod state;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compile::CompiledDefinition;
use crate::definition::Origin;
use crate::engine::Engine;
use crate::error::{Error, ErrorCode, Location, Result};
use crate::model::Gvk;
use crate::resolved::WorkloadStatus;

/// One resource type an API server serves, as discovery reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ApiResource {
    /// API group (`""` for the core group).
    #[serde(default)]
    pub group: String,
    /// Version, e.g. `v1alpha2`.
    pub version: String,
    /// Kind, e.g. `JobSet`.
    pub kind: String,
    /// Plural resource name, e.g. `jobsets`.
    pub plural: String,
    /// Singular name (`""` when discovery gives none).
    #[serde(default)]
    pub singular: String,
    /// Short names, e.g. `["lws"]`.
    #[serde(default)]
    pub short_names: Vec<String>,
    /// Whether objects live in namespaces.
    #[serde(default)]
    pub namespaced: bool,
    /// Whether this is the group's preferred version.
    #[serde(default)]
    pub preferred: bool,
}

impl ApiResource {
    /// `group/version` or `version` for the core group.
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `kind.version.group`, the unambiguous form of a type token.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            format!("{}.{}", self.kind, self.version)
        } else {
            format!("{}.{}.{}", self.kind, self.version, self.group)
        }
    }

    fn names(&self) -> impl Iterator<Item = String> + '_ {
        [
            self.kind.to_lowercase(),
            self.plural.to_lowercase(),
            self.singular.to_lowercase(),
        ]
        .into_iter()
        .chain(self.short_names.iter().map(|s| s.to_lowercase()))
        .filter(|n| !n.is_empty())
    }
}

/// Something a cluster operation left out, and why. `reason` is stable:
/// `forbidden` (HTTP 403), `no_crd` (a type or the definition CRDs are not
/// served), `api` (another failure status, or an unreadable answer),
/// `invalid` or `collision` (a definition stored in the cluster that was
/// not used). `object` names what was left out: a type (`plural.group`), a
/// group version (`group/version`) or a definition object (`Karta/name`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClusterWarning {
    /// Why, as a stable word.
    pub reason: String,
    /// What was left out.
    pub object: String,
    /// What happened, in one line.
    pub message: String,
}

/// The warning about a definition stored in the cluster that was not used
/// (`invalid` or `collision`).
pub type ClusterDefinitionWarning = ClusterWarning;

/// One workload of a listing: what `get` shows in a row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSummary {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// `metadata.uid`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// `apiVersion` of the object.
    pub api_version: String,
    /// `kind` of the object.
    pub kind: String,
    /// `metadata.creationTimestamp`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// The definition's name (absent when none covers the object).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<String>,
    /// Where the definition came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<Origin>,
    /// The raw phase, when the definition reads one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The matched statuses (empty when the definition maps no status or
    /// the object did not resolve).
    pub statuses: Vec<WorkloadStatus>,
    /// Desired pods.
    pub pods: u64,
    /// GPUs the desired pods request.
    pub gpus: u64,
    /// Why the object did not resolve (its row shows the error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
    /// Set when the object's controller chain ends at an owner that is not
    /// there: the object is shown as a workload of its own, and says why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<OwnerState>,
    /// The count the object itself declares, when it differs from `pods`:
    /// an autoscaled instance counts what the objects it scales declare now
    /// (its minimum stays here). Only with the pods and their owners.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_pods: Option<u64>,
    /// The workload's pods that exist, when the pods were read (a live
    /// listing): what they hold, beside what the workload declares.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<LivePods>,
    /// The code of the diagnosis's first finding (`unschedulable`,
    /// `crash-loop`, ...; [`crate::Diagnosis`], from the pods without
    /// events), for a workload that is not simply Running or Completed with
    /// every live pod ready. Only in a live listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The pods of a listed workload that exist (their controller chains lead
/// to it by uid), and have not finished: phase Pending, Running or
/// Unknown. Succeeded and Failed pods hold nothing and are not counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LivePods {
    /// Pods that have not finished.
    pub pods: u64,
    /// Of those, the ready ones.
    pub ready: u64,
    /// GPUs those pods request: held on their nodes, or waiting to be
    /// (`pendingGpus`).
    pub gpus: u64,
    /// Of `gpus`, those of pods not scheduled to a node yet.
    pub pending_gpus: u64,
}

/// Why a listed object's controller chain could not be followed to the
/// top ([`ListOptions::owners_complete`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OwnerState {
    /// `orphaned`: the owner does not exist (deleted, or named by a stale
    /// uid); `unreadable`: the owner's type may not be listed.
    pub state: OwnerStateKind,
    /// The missing owner's `apiVersion`, as the reference gives it.
    pub api_version: String,
    /// Its `kind`.
    pub kind: String,
    /// Its `name`.
    pub name: String,
    /// Its `uid`.
    pub uid: String,
}

/// [`OwnerState::state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum OwnerStateKind {
    /// The owner does not exist.
    Orphaned,
    /// The owner's type may not be listed.
    Unreadable,
}

/// How [`Engine::list_workloads`] filters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListOptions {
    /// Leave out objects an object of a covered type controls (through
    /// their controller-owner chains): `get --all-types`.
    #[serde(default)]
    pub top_level_only: bool,
    /// Keep only workloads with one of these matched statuses
    /// (case-insensitive; empty: all). `get --phase`.
    #[serde(default)]
    pub phases: Vec<String>,
    /// The objects and owners given hold every owner their controller
    /// chains name that exists and may be read (a live listing: the cluster
    /// protocol lists every covered type and walks the owners). A chain
    /// that ends at an owner not given then makes its object a workload of
    /// its own, with [`WorkloadSummary::owner`] saying why: `unreadable`
    /// when the owner's kind is in `unreadable`, else `orphaned`. Without
    /// it, such an object is trusted to be controlled (when the owner's
    /// type is covered) and nothing is flagged.
    #[serde(default)]
    pub owners_complete: bool,
    /// Owner kinds that could not be listed (with `owners_complete`).
    #[serde(default)]
    pub unreadable: Vec<OwnerKind>,
}

/// GPUs and pods of a group of workloads (`top`): what the active ones
/// declare, and what the pods that exist hold.
///
/// The rule, the same for every type: a workload whose matched statuses
/// include Suspended, Suspending, Completed or Failed is *inactive*, and
/// declares nothing here, whatever its structure says (a suspended JobSet
/// keeps its replica counts, a suspended InferenceService drops them: both
/// count 0). Its GPUs are in `inactiveGpus` instead. What its pods still
/// hold (pods being torn down, a finished job's pods not yet gone) is in
/// `heldGpus` like any other pod's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UsageRow {
    /// The namespace or the kind the row adds up (`""` for the total).
    pub key: String,
    /// Workloads.
    pub workloads: u64,
    /// Desired pods of the active workloads.
    pub pods: u64,
    /// GPUs the desired pods of the active workloads request.
    pub gpus: u64,
    /// Inactive workloads (Suspended, Suspending, Completed or Failed).
    pub inactive: u64,
    /// GPUs the inactive workloads' structure declares (not in `gpus`).
    pub inactive_gpus: u64,
    /// Pods that exist and have not finished (with the pods read).
    pub held_pods: u64,
    /// GPUs those pods request: on their nodes, or waiting for one.
    pub held_gpus: u64,
    /// Of `heldGpus`, those of pods not scheduled yet.
    pub pending_gpus: u64,
    /// Workloads that did not resolve (not added to pods and GPUs).
    pub errors: u64,
}

/// GPU and pod requests by namespace and by type, and in total.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// One row per namespace (cluster-scoped workloads under `""`), most
    /// GPUs first (declared, then held), then by name.
    pub by_namespace: Vec<UsageRow>,
    /// One row per kind (`Kind.group`, or `Kind` for the core group), most
    /// GPUs first (declared, then held), then by name.
    pub by_type: Vec<UsageRow>,
    /// Everything.
    pub total: UsageRow,
    /// Whether the pods were read (`heldPods`, `heldGpus` and
    /// `pendingGpus` mean something).
    pub pods_read: bool,
}

/// Is a workload with these statuses inactive ([`UsageRow`])?
pub fn inactive(statuses: &[WorkloadStatus]) -> bool {
    statuses.iter().any(|s| {
        matches!(
            s,
            WorkloadStatus::Suspended
                | WorkloadStatus::Suspending
                | WorkloadStatus::Completed
                | WorkloadStatus::Failed
        )
    })
}

/// Add up a listing by namespace and by type.
pub fn usage(rows: &[WorkloadSummary]) -> Usage {
    fn add(row: &mut UsageRow, w: &WorkloadSummary) {
        row.workloads += 1;
        if let Some(l) = &w.live {
            row.held_pods = row.held_pods.saturating_add(l.pods);
            row.held_gpus = row.held_gpus.saturating_add(l.gpus);
            row.pending_gpus = row.pending_gpus.saturating_add(l.pending_gpus);
        }
        if w.error.is_some() {
            row.errors += 1;
        } else if inactive(&w.statuses) {
            row.inactive += 1;
            row.inactive_gpus = row.inactive_gpus.saturating_add(w.gpus);
        } else {
            row.pods = row.pods.saturating_add(w.pods);
            row.gpus = row.gpus.saturating_add(w.gpus);
        }
    }
    fn sorted(map: BTreeMap<String, UsageRow>) -> Vec<UsageRow> {
        let mut v: Vec<UsageRow> = map.into_values().collect();
        v.sort_by(|a, b| {
            b.gpus
                .cmp(&a.gpus)
                .then_with(|| b.held_gpus.cmp(&a.held_gpus))
                .then_with(|| a.key.cmp(&b.key))
        });
        v
    }
    let mut ns: BTreeMap<String, UsageRow> = BTreeMap::new();
    let mut ty: BTreeMap<String, UsageRow> = BTreeMap::new();
    let mut total = UsageRow::default();
    for w in rows {
        let n = w.namespace.clone().unwrap_or_default();
        add(
            ns.entry(n.clone()).or_insert_with(|| UsageRow {
                key: n,
                ..UsageRow::default()
            }),
            w,
        );
        let group = w.api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
        let t = if group.is_empty() {
            w.kind.clone()
        } else {
            format!("{}.{group}", w.kind)
        };
        add(
            ty.entry(t.clone()).or_insert_with(|| UsageRow {
                key: t,
                ..UsageRow::default()
            }),
            w,
        );
        add(&mut total, w);
    }
    Usage {
        by_namespace: sorted(ns),
        by_type: sorted(ty),
        total,
        pods_read: rows.iter().any(|w| w.live.is_some()),
    }
}

/// An owner kind to fetch: the controller of a pod (or of another owner)
/// that was not given, by its `apiVersion` and `kind`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OwnerKind {
    /// `apiVersion` of the owner reference.
    pub api_version: String,
    /// `kind` of the owner reference.
    pub kind: String,
}

/// Where `object`'s controller chain, followed by uid through `by_uid`,
/// ends at an owner that is not there: that owner, `unreadable` when its
/// kind is among `unreadable`, else `orphaned`. None when the chain ends
/// at an object without a controller (or loops). Memoized by uid in
/// `memo`, so each owner is walked once whatever the objects below it.
fn owner_state<'a>(
    object: &'a Value,
    by_uid: &HashMap<&'a str, &'a Value>,
    unreadable: &[OwnerKind],
    memo: &mut HashMap<&'a str, Option<OwnerState>>,
) -> Option<OwnerState> {
    let mut current = object;
    let mut walked: Vec<&'a str> = Vec::new();
    let mut seen: HashSet<&'a str> = HashSet::new();
    let verdict = loop {
        let Some(r) = controller_ref(current) else {
            break None;
        };
        let Some(uid) = r.get("uid").and_then(Value::as_str) else {
            break None;
        };
        if let Some(known) = memo.get(uid) {
            break known.clone();
        }
        if !seen.insert(uid) {
            break None;
        }
        walked.push(uid);
        match by_uid.get(uid) {
            Some(next) => current = next,
            None => break Some(missing_owner(r, uid, unreadable)),
        }
    };
    for uid in walked {
        memo.insert(uid, verdict.clone());
    }
    verdict
}

/// The state of an object whose controller reference `r` (of `uid`) names
/// an owner that is not there.
fn missing_owner(r: &Value, uid: &str, unreadable: &[OwnerKind]) -> OwnerState {
    let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or_default();
    let (api_version, kind) = (text("apiVersion"), text("kind"));
    let group = |a: &str| a.split_once('/').map_or("", |(g, _)| g).to_string();
    let hidden = unreadable
        .iter()
        .any(|k| k.kind == kind && group(&k.api_version) == group(api_version));
    OwnerState {
        state: if hidden {
            OwnerStateKind::Unreadable
        } else {
            OwnerStateKind::Orphaned
        },
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        name: text("name").to_string(),
        uid: uid.to_string(),
    }
}

/// The controller owner reference of an object (the selectors' reading).
pub(crate) use crate::selectors::controller_ref;

/// The controller owner reference of an object: (apiVersion, kind, uid).
use crate::selectors::controller_of as controller;
/// An object's `metadata.uid` as written (perhaps empty).
use crate::selectors::meta_uid as uid;

fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object.get("metadata")?.get(field)?.as_str()
}

/// The controller owner kinds that `items` (pods and the owners fetched so
/// far) reference but that are not among them, sorted, without the kinds in
/// `skip` (the workload's own kind: its object is given separately).
///
/// A front end attributes a workload's pods by fetching its namespace's
/// pods, then the objects of every kind this returns (in the namespace),
/// and again until it returns nothing new (at most a few rounds: a chain is
/// Pod → Job → JobSet, Pod → ReplicaSet → Deployment), and passes all of
/// them beside the pods to [`Engine::resolve_with_pods`].
pub fn missing_owners<'a, I>(items: I, skip: &[OwnerKind]) -> Vec<OwnerKind>
where
    I: IntoIterator<Item = &'a Value>,
    I::IntoIter: Clone,
{
    let items = items.into_iter();
    let have: HashSet<&str> = items.clone().filter_map(uid).collect();
    let mut kinds: Vec<OwnerKind> = items
        .filter_map(controller)
        .filter(|(_, _, u)| !have.contains(u))
        .map(|(a, k, _)| OwnerKind {
            api_version: a.to_string(),
            kind: k.to_string(),
        })
        .filter(|k| !skip.contains(k))
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

impl Engine {
    /// Which served resource a type token names, the way `kubectl get`
    /// reads one: a kind, plural, singular or short name, case-insensitive,
    /// optionally qualified by its group (`jobsets.jobset.x-k8s.io`) or by
    /// version and group (`JobSet.v1alpha1.jobset.x-k8s.io`). Among the
    /// versions of one group and kind, the preferred one (else the first
    /// given). The resource must be covered by a definition of its group and
    /// kind.
    ///
    /// Errors: [`ErrorCode::Usage`] for a token no served resource matches,
    /// or one that matches several groups (the message lists the qualified
    /// forms to use); [`ErrorCode::NoDefinition`] when the type is served
    /// but no definition covers it.
    pub fn find_type(&self, token: &str, served: &[ApiResource]) -> Result<ApiResource> {
        let token = token.trim();
        let lower = token.to_lowercase();
        if lower.is_empty() {
            return Err(Error::new(ErrorCode::Usage, "the type is empty"));
        }
        let (name, qualifier) = match lower.split_once('.') {
            Some((n, q)) => (n, Some(q)),
            None => (lower.as_str(), None),
        };
        let matches: Vec<&ApiResource> = served
            .iter()
            .filter(|r| r.names().any(|n| n == name))
            .filter(|r| match qualifier {
                None => true,
                Some(q) => {
                    q == r.group.to_lowercase()
                        || q == format!("{}.{}", r.version, r.group).to_lowercase()
                        || (r.group.is_empty() && q == r.version.to_lowercase())
                }
            })
            .collect();
        // An exact kind match (case-sensitive) beats names of other kinds
        // (kubectl's fallback for a kind that is also another's short name).
        let exact: Vec<&ApiResource> = matches
            .iter()
            .copied()
            .filter(|r| r.kind == token || r.kind.to_lowercase() == name)
            .collect();
        let matches = if exact.is_empty() { matches } else { exact };
        let mut by_group_kind: BTreeMap<(&str, &str), Vec<&ApiResource>> = BTreeMap::new();
        for r in &matches {
            by_group_kind
                .entry((r.group.as_str(), r.kind.as_str()))
                .or_default()
                .push(r);
        }
        let chosen: Vec<&ApiResource> = by_group_kind
            .values()
            .map(|v| self.version_to_read(v))
            .collect();
        // Several groups: a built-in group (no dot: core, apps, batch) wins,
        // as in kubectl, whose discovery order lists them first (`jobs` is
        // batch's Job even when Volcano's is installed).
        let builtin: Vec<&ApiResource> = chosen
            .iter()
            .copied()
            .filter(|r| !r.group.contains('.'))
            .collect();
        let chosen = if chosen.len() > 1 && builtin.len() == 1 {
            builtin
        } else {
            chosen
        };
        let one = match chosen.as_slice() {
            [] => {
                return Err(Error::new(
                    ErrorCode::Usage,
                    format!(
                        "the server does not serve a type named '{token}' (a kind, plural, \
                         short name, or kind.version.group)"
                    ),
                ));
            }
            [one] => *one,
            many => {
                let covered: Vec<&&ApiResource> = many
                    .iter()
                    .filter(|r| self.lookup(&gvk_of(r)).is_some())
                    .collect();
                let all: Vec<String> = many.iter().map(|r| r.qualified()).collect();
                return Err(Error::new(
                    ErrorCode::Usage,
                    format!(
                        "the type '{token}' is ambiguous: {}; name one as kind.version.group{}",
                        all.join(", "),
                        match covered.as_slice() {
                            [c] => format!(" (a definition covers {})", c.qualified()),
                            _ => String::new(),
                        }
                    ),
                ));
            }
        };
        if self.lookup(&gvk_of(one)).is_none() {
            return Err(Error::new(
                ErrorCode::NoDefinition,
                format!(
                    "no definition covers {} ({}); add one with --definition or a Karta object \
                     in the cluster",
                    one.kind,
                    one.api_version()
                ),
            ));
        }
        Ok(one.clone())
    }

    /// The served resources a definition covers, one per group and kind
    /// (the preferred version, else the first given), sorted by kind and
    /// group: what `get --all-types` lists.
    pub fn covered_types(&self, served: &[ApiResource]) -> Vec<ApiResource> {
        let mut by_group_kind: BTreeMap<(&str, &str), Vec<&ApiResource>> = BTreeMap::new();
        for r in served.iter().filter(|r| self.lookup(&gvk_of(r)).is_some()) {
            by_group_kind
                .entry((r.kind.as_str(), r.group.as_str()))
                .or_default()
                .push(r);
        }
        by_group_kind
            .into_values()
            .map(|v| self.version_to_read(&v).clone())
            .collect()
    }

    /// Which of the served versions of one group and kind (non-empty) to
    /// read: a version a definition was written for (the group's preferred
    /// one among several, else the first), so that no field the server
    /// drops at another version is lost; else the preferred version, else
    /// the first (the object then resolves through a definition written
    /// for another version, and the listing warns).
    fn version_to_read<'r>(&self, versions: &[&'r ApiResource]) -> &'r ApiResource {
        let exact: Vec<&'r ApiResource> = versions
            .iter()
            .copied()
            .filter(|r| self.covers_exactly(&gvk_of(r)))
            .collect();
        let pool = if exact.is_empty() { versions } else { &exact };
        pool.iter()
            .copied()
            .find(|r| r.preferred)
            .unwrap_or(pool[0])
    }

    /// The warning for a type read at a version no definition was written
    /// for (the user named that version, or the server serves no other):
    /// the objects resolve through the definition of another version, and
    /// fields the server drops at the version read are not counted.
    pub(crate) fn version_warning(&self, r: &ApiResource) -> Option<ClusterWarning> {
        let gvk = gvk_of(r);
        if self.covers_exactly(&gvk) {
            return None;
        }
        let def = self.lookup(&gvk)?;
        let written = def.root_gvk().version;
        Some(ClusterWarning {
            reason: "version".into(),
            object: type_name(r),
            message: format!(
                "{} is read at {}, but its definition ({}) was written for {written}: fields \
                 the server leaves out at {} are not counted (ask for {} to read it at that \
                 version)",
                r.kind,
                r.version,
                def.name(),
                r.version,
                ApiResource {
                    version: written.clone(),
                    ..r.clone()
                }
                .qualified()
            ),
        })
    }

    /// This engine with the definitions stored in a cluster (Karta and
    /// ResourceInterface objects, as listed) added over the catalog: each
    /// replaces the catalog's definition of its root group/version/kind.
    /// The user's definitions of this engine stay over them, as do those
    /// added to the result afterwards (the user's files).
    ///
    /// An object that does not compile is skipped with an `invalid`
    /// warning; when two objects define the same root type, the one first
    /// by name is used and the other gets a `collision` warning. Their
    /// origin is [`Origin::Cluster`].
    pub fn with_cluster_definitions(
        &self,
        objects: &[Value],
    ) -> (Engine, Vec<ClusterDefinitionWarning>) {
        let mut engine = self.clone();
        let mut warnings = Vec::new();
        let mut sorted: Vec<&Value> = objects.iter().collect();
        sorted.sort_by_key(|o| meta_str(o, "name").unwrap_or(""));
        let mut used: HashMap<Gvk, String> = HashMap::new();
        for object in sorted {
            let label = format!(
                "{}/{}",
                object.get("kind").and_then(Value::as_str).unwrap_or("?"),
                meta_str(object, "name").unwrap_or("?")
            );
            let defs = match cluster_definition(object, &engine) {
                Ok(d) => d,
                Err(mut e) => {
                    // Lines and columns would point into the JSON the
                    // object was written back as: only fields mean anything.
                    for l in std::iter::once(&mut e.0.location)
                        .chain(e.0.findings.iter_mut().map(|f| &mut f.location))
                    {
                        l.line = None;
                        l.column = None;
                    }
                    warnings.push(ClusterDefinitionWarning {
                        reason: "invalid".into(),
                        object: label,
                        message: e.to_string(),
                    });
                    continue;
                }
            };
            for def in defs {
                let gvk = def.root_gvk();
                if let Some(first) = used.get(&gvk) {
                    warnings.push(ClusterDefinitionWarning {
                        reason: "collision".into(),
                        object: label.clone(),
                        message: format!(
                            "{label} and {first} both define {}; {first} (first by name) is used",
                            gvk_label(&gvk)
                        ),
                    });
                    continue;
                }
                used.insert(gvk, label.clone());
                engine.add_definition(def);
            }
        }
        // The user's definitions already in this engine stay on top: what
        // the user gave wins over what the cluster holds, in every runtime.
        for d in self
            .definitions()
            .into_iter()
            .filter(|d| d.origin() == Origin::User)
        {
            engine.add_definition(d.clone());
        }
        (engine, warnings)
    }

    /// One summary per object: its name and type, definition, statuses,
    /// desired pods and GPUs (an object that does not resolve gets a row
    /// with its error). Sorted as kubectl sorts a listing: by namespace,
    /// then name (then kind and apiVersion).
    ///
    /// With `options.phases`, only workloads with one of those matched
    /// statuses are kept. With `options.top_level_only`, an object is left out when an object in its
    /// controller-owner chain is of a covered type (a JobSet's Jobs are not
    /// listed beside it): the chain is followed by UID through `objects`
    /// and `owners` (objects of types no definition covers, such as
    /// ReplicaSets, given so that a chain can be followed through them); a
    /// controller of a covered type ends it at once, found or not.
    ///
    /// Each object resolves as its own call (its own budget): one workload
    /// over a limit shows an error in its row and does not stop the others.
    pub fn list_workloads(
        &self,
        objects: &[Value],
        owners: &[Value],
        options: &ListOptions,
    ) -> Vec<WorkloadSummary> {
        self.list_workloads_with_pods(objects, owners, None, options)
    }

    /// [`Engine::list_workloads`], with the pods of the namespaces listed:
    /// each pod goes to the nearest listed workload its controller chain
    /// leads to by uid (through `objects` and `owners`), and each row then
    /// resolves with its pods ([`Engine::resolve_in_namespace`]): its
    /// [`WorkloadSummary::live`] counts them, and an autoscaled instance
    /// counts what the objects it scales declare now
    /// ([`WorkloadSummary::declared_pods`] keeps the declared count). A pod
    /// whose chain leads to no listed workload is no row's. A listed Pod is
    /// its own.
    pub fn list_workloads_with_pods(
        &self,
        objects: &[Value],
        owners: &[Value],
        pods: Option<&[Value]>,
        options: &ListOptions,
    ) -> Vec<WorkloadSummary> {
        self.list_live(objects, owners, pods.map(Pods::Values), options)
    }

    /// [`Engine::list_workloads_with_pods`], with the pods as the cluster
    /// protocol keeps them ([`Pods`]).
    pub(crate) fn list_live(
        &self,
        objects: &[Value],
        owners: &[Value],
        pods: Option<Pods<'_>>,
        options: &ListOptions,
    ) -> Vec<WorkloadSummary> {
        let phases: Vec<String> = options.phases.iter().map(|p| p.to_lowercase()).collect();
        let by_uid: HashMap<&str, &Value> = objects
            .iter()
            .chain(owners)
            .filter_map(|o| Some((uid(o)?, o)))
            .collect();
        let mut controlled: HashMap<&str, bool> = HashMap::new();
        let complete = options.owners_complete;
        let mut states: HashMap<&str, Option<OwnerState>> = HashMap::new();
        let listed: Vec<&Value> = objects
            .iter()
            .filter(|o| {
                !options.top_level_only
                    || !self.covered_controller(o, &by_uid, &mut controlled, complete)
            })
            .collect();
        let links: Vec<&Value> = pods
            .as_ref()
            .map(|p| p.links().iter().collect())
            .unwrap_or_default();
        let by_row = pods.as_ref().map(|_| pods_by_row(&listed, &links, &by_uid));
        let mut rows: Vec<WorkloadSummary> = listed
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let mut row = match &by_row {
                    Some(by_row) => {
                        // Made for this row's call only: what is kept at
                        // once is the pods given, not a copy of them all.
                        let items: Vec<Value> = by_row[i]
                            .iter()
                            .filter_map(|item| match item {
                                Item::Pod(p) => pods.as_ref().and_then(|pods| pods.pod(*p)),
                                Item::Owner(o) => Some((*o).clone()),
                            })
                            .collect();
                        self.summarize_live(o, &items)
                    }
                    None => self.summarize(o),
                };
                if complete {
                    row.owner = owner_state(o, &by_uid, &options.unreadable, &mut states);
                }
                row
            })
            .filter(|r| {
                phases.is_empty()
                    || r.statuses
                        .iter()
                        .any(|s| phases.contains(&format!("{s:?}").to_lowercase()))
            })
            .collect();
        // As kubectl orders a listing: by namespace, then name (then kind,
        // for several types).
        rows.sort_by(|a, b| {
            a.namespace
                .cmp(&b.namespace)
                .then_with(|| a.name.cmp(&b.name))
                .then_with(|| a.kind.cmp(&b.kind))
                .then_with(|| a.api_version.cmp(&b.api_version))
        });
        rows
    }

    /// The summary row of one object resolved with its pods and the owners
    /// between them (`items`, as [`pods_by_row`] gathers them).
    fn summarize_live(&self, object: &Value, items: &[Value]) -> WorkloadSummary {
        self.summarize_live_resolved(object, items).0
    }

    /// [`Engine::summarize_live`], and the resolved workload it was made
    /// from (none when it did not resolve).
    pub(crate) fn summarize_live_resolved<'a>(
        &'a self,
        object: &'a Value,
        items: &[Value],
    ) -> (WorkloadSummary, Option<crate::Resolved<'a>>) {
        let mut row = self.summary_head(object);
        let resolved = if items.is_empty() {
            self.resolve(object)
        } else {
            self.resolve_in_namespace(object, items)
        };
        match resolved {
            Ok(r) => {
                let mut live = LivePods::default();
                for p in r
                    .own_pods()
                    .filter(|p| p.phase != "Succeeded" && p.phase != "Failed")
                {
                    live.pods += 1;
                    live.ready += u64::from(p.ready);
                    live.gpus = live.gpus.saturating_add(p.resources.gpu);
                    if p.node.is_none() {
                        live.pending_gpus = live.pending_gpus.saturating_add(p.resources.gpu);
                    }
                }
                let declared: u64 = r
                    .components
                    .iter()
                    .flat_map(|c| &c.instances)
                    .map(|i| match i.live.as_ref().and_then(|l| l.scale.as_ref()) {
                        Some(s) if i.present => s.declared,
                        _ => i.desired_replicas,
                    })
                    .fold(0, u64::saturating_add);
                if declared != r.totals.pods {
                    row.declared_pods = Some(declared);
                }
                row.live = Some(live);
                let healthy = matches!(
                    r.status.as_ref().map(|s| s.matched_statuses.as_slice()),
                    None | Some([WorkloadStatus::Running] | [WorkloadStatus::Completed])
                ) && live.ready == live.pods;
                self.fill(&mut row, &r);
                if !healthy {
                    // The cause in a word: the first finding's code (a
                    // failed diagnosis leaves it out; the row stands).
                    row.reason = self
                        .diagnose(object, items, &[], &[])
                        .ok()
                        .and_then(|d| d.findings.first().map(|f| f.code.as_str().to_string()));
                }
                (row, Some(r))
            }
            Err(e) => {
                row.error = Some(e);
                (row, None)
            }
        }
    }

    /// Is the object's controller of a type a definition covers? Then
    /// [`Engine::list_workloads`] with `topLevelOnly` leaves it out whatever
    /// else is given: a front end listing a large cluster may drop such
    /// objects (every pod of a Job, say) as each page arrives instead of
    /// keeping them for the listing.
    pub fn controlled_by_covered(&self, object: &Value) -> bool {
        controller(object)
            .is_some_and(|(a, k, _)| self.lookup(&Gvk::from_api_version(a, k)).is_some())
    }

    /// Is an object in `object`'s controller chain of a covered type?
    /// Memoized by UID; a cycle or a missing owner of an uncovered type
    /// ends the chain. With `complete` (every existing owner was given), a
    /// missing owner of a covered type ends it too: the object is an
    /// orphan, not controlled.
    fn covered_controller<'a>(
        &self,
        object: &'a Value,
        by_uid: &HashMap<&'a str, &'a Value>,
        memo: &mut HashMap<&'a str, bool>,
        complete: bool,
    ) -> bool {
        let mut walked: Vec<&'a str> = Vec::new();
        let mut seen: HashSet<&'a str> = HashSet::new();
        let mut current = object;
        let verdict = loop {
            let Some((api_version, kind, owner)) = controller(current) else {
                break false;
            };
            if self
                .lookup(&Gvk::from_api_version(api_version, kind))
                .is_some()
                && (!complete || by_uid.contains_key(owner))
            {
                break true;
            }
            if let Some(&v) = memo.get(owner) {
                break v;
            }
            if !seen.insert(owner) {
                break false;
            }
            walked.push(owner);
            match by_uid.get(owner) {
                Some(next) => current = next,
                None => break false,
            }
        };
        for u in walked {
            memo.insert(u, verdict);
        }
        verdict
    }

    /// The summary row of one object.
    pub fn summarize(&self, object: &Value) -> WorkloadSummary {
        let mut row = self.summary_head(object);
        match self.resolve(object) {
            Ok(r) => self.fill(&mut row, &r),
            Err(e) => row.error = Some(e),
        }
        row
    }

    /// A row's statuses and totals from the resolved workload.
    fn fill(&self, row: &mut WorkloadSummary, r: &crate::Resolved) {
        if let Some(s) = &r.status {
            row.phase.clone_from(&s.phase);
            row.statuses.clone_from(&s.matched_statuses);
        }
        row.pods = r.totals.pods;
        row.gpus = r.totals.resources.gpu;
    }

    /// A row's identity and definition, before it resolves.
    fn summary_head(&self, object: &Value) -> WorkloadSummary {
        let mut row = WorkloadSummary {
            name: meta_str(object, "name").unwrap_or_default().to_string(),
            namespace: meta_str(object, "namespace").map(str::to_string),
            uid: uid(object).map(str::to_string),
            api_version: object
                .get("apiVersion")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            kind: object
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            created: meta_str(object, "creationTimestamp").map(str::to_string),
            definition: None,
            origin: None,
            phase: None,
            statuses: Vec::new(),
            pods: 0,
            gpus: 0,
            error: None,
            owner: None,
            declared_pods: None,
            live: None,
            reason: None,
        };
        if let Ok(d) = self.definition_for(object) {
            row.definition = Some(d.name().to_string());
            row.origin = Some(d.origin());
        }
        row
    }
}

/// `plural.group`, or `plural` for the core group.
pub(crate) fn type_name(r: &ApiResource) -> String {
    if r.group.is_empty() {
        r.plural.clone()
    } else {
        format!("{}.{}", r.plural, r.group)
    }
}

/// The pods of a live listing: values, or (as the cluster protocol keeps
/// them, to hold a large cluster's pods in a fraction of the memory) each
/// pod's compact JSON text beside a link of it (its identity and controller
/// reference: what the chains are walked with).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Pods<'a> {
    /// The pods as values.
    Values(&'a [Value]),
    /// The pods as text, with a link of each (same order).
    Texts {
        links: &'a [Value],
        texts: &'a [Box<str>],
    },
}

impl<'a> Pods<'a> {
    /// What the chains are walked with.
    fn links(&self) -> &'a [Value] {
        match self {
            Pods::Values(v) => v,
            Pods::Texts { links, .. } => links,
        }
    }

    /// Pod `i` as a value (read again from its text, which the protocol
    /// wrote: it reads).
    fn pod(&self, i: usize) -> Option<Value> {
        match self {
            Pods::Values(v) => v.get(i).cloned(),
            Pods::Texts { texts, .. } => serde_json::from_str(texts.get(i)?).ok(),
        }
    }
}

/// What a row's call is given: a pod (by index) or an owner.
#[derive(Debug, Clone, Copy)]
enum Item<'a> {
    Pod(usize),
    Owner(&'a Value),
}

/// Per listed object (same order): its pods and the owners between them
/// and it, as [`Engine::resolve_in_namespace`] takes them. A pod goes to
/// the nearest listed object its controller chain leads to by uid through
/// `by_uid` (a listed Pod is its own); the chains are memoized by uid, so
/// each owner is walked once whatever the pods below it. `pods` are the
/// pods or their links (identity and controller reference).
fn pods_by_row<'a>(
    listed: &[&'a Value],
    pods: &[&'a Value],
    by_uid: &HashMap<&'a str, &'a Value>,
) -> Vec<Vec<Item<'a>>> {
    let rows: HashMap<&str, usize> = listed
        .iter()
        .enumerate()
        .filter_map(|(i, o)| Some((uid(o)?, i)))
        .collect();
    // Pods are owners too: a LeaderWorkerSet's worker StatefulSet is
    // controlled by its group's leader pod (given as the pod, not as the
    // link).
    let mut owners: HashMap<&'a str, (&'a Value, Item<'a>)> = by_uid
        .iter()
        .map(|(&u, &o)| (u, (o, Item::Owner(o))))
        .collect();
    for (i, &p) in pods.iter().enumerate() {
        if let Some(u) = uid(p) {
            owners.insert(u, (p, Item::Pod(i)));
        }
    }
    let mut out: Vec<Vec<Item<'a>>> = vec![Vec::new(); listed.len()];
    // Per row, the uids already in its items (a leader pod is both a pod
    // and an owner: given once).
    let mut added: Vec<HashSet<&str>> = vec![HashSet::new(); listed.len()];
    // Per uid walked: the row its chain leads to (None: none).
    let mut memo: HashMap<&str, Option<usize>> = HashMap::new();
    for (index, &pod) in pods.iter().enumerate() {
        let Some(pod_uid) = uid(pod) else { continue };
        if let Some(&i) = rows.get(pod_uid) {
            if added[i].insert(pod_uid) {
                out[i].push(Item::Pod(index));
            }
            continue;
        }
        let mut walked: Vec<&str> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut current: &Value = pod;
        let row = loop {
            let Some((_, _, owner)) = controller(current) else {
                break None;
            };
            if let Some(&i) = rows.get(owner) {
                break Some(i);
            }
            if let Some(&known) = memo.get(owner) {
                break known;
            }
            if !seen.insert(owner) {
                break None;
            }
            let Some(&(next, _)) = owners.get(owner) else {
                break None;
            };
            walked.push(owner);
            current = next;
        };
        for &w in &walked {
            memo.insert(w, row);
        }
        let Some(i) = row else { continue };
        if added[i].insert(pod_uid) {
            out[i].push(Item::Pod(index));
        }
        // The owners between the pod and the row, each once per row (those
        // above a memoized owner were added with the pod that walked them).
        for w in walked {
            if added[i].insert(w)
                && let Some(&(_, item)) = owners.get(w)
            {
                out[i].push(item);
            }
        }
    }
    out
}

fn gvk_of(r: &ApiResource) -> Gvk {
    Gvk {
        group: r.group.clone(),
        version: r.version.clone(),
        kind: r.kind.clone(),
    }
}

fn gvk_label(gvk: &Gvk) -> String {
    if gvk.group.is_empty() {
        format!("{} {}", gvk.version, gvk.kind)
    } else {
        format!("{}/{} {}", gvk.group, gvk.version, gvk.kind)
    }
}

/// Compile a definition object as listed from a cluster: server-set
/// metadata (uid, managedFields, ...) and status are dropped first.
fn cluster_definition(object: &Value, engine: &Engine) -> Result<Vec<Arc<CompiledDefinition>>> {
    let mut clean = object.clone();
    if let Some(map) = clean.as_object_mut() {
        map.remove("status");
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            meta.retain(|k, _| matches!(k.as_str(), "name" | "labels" | "annotations"));
        }
    }
    let text = serde_json::to_string(&clean)
        .map_err(|e| Error::new(ErrorCode::Parse, e.to_string()).at(Location::default()))?;
    let defs = CompiledDefinition::all_from_text(&text, *engine.limits(), Origin::Cluster)?;
    Ok(defs.into_iter().map(Arc::new).collect())
}
