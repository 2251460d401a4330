//! Diagnosis: why a workload is where it is (pending, degraded, suspended,
//! not progressing), from what the cluster wrote, in ranked findings.
//!
//! [`CompiledDefinition::diagnose`] resolves the workload with the pods of
//! its namespace (and their owners), as `describe` does, then reads:
//! - its own pods (never another workload's): scheduling (the scheduler's
//!   condition, its `FailedScheduling` events), scheduling gates, container
//!   states (image pulls, crash loops with the last termination, init
//!   containers), failed pods;
//! - its gang groups: members placed against the minimum;
//! - the related objects given: Kueue `Workload`s owned by the workload;
//!   gang schedulers' groups (Volcano, KAI and scheduler-plugins
//!   `PodGroup`s, Grove `PodGang`s) owned by the workload or an owner
//!   between it and its pods, or named by its pods;
//! - its status: Suspended and by whom, the conditions behind Failed or
//!   Degraded (from the status explanation), `observedGeneration`;
//! - the events of the workload, its pods and the owners between: a
//!   controller that cannot create pods (`FailedCreate`, as for an exceeded
//!   ResourceQuota);
//! - its stray pods: an earlier attempt's, still terminating, and
//!   look-alikes of other workloads.
//!
//! Each finding has a stable [`FindingCode`], a sentence, the evidence
//! (object, field or event, with its time) and, when clear, what to do.
//! Findings are ranked: what blocks the workload first, in a fixed order of
//! codes, then warnings, then information. Every pod, container, event and
//! related object read is charged to the call's step budget, and each
//! finding keeps at most [`MAX_EVIDENCE`] pieces of evidence (the rest is
//! counted in `moreEvidence`).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

use crate::cluster::events::{Stamp, WorkloadEvent, event_of, involved_uids};
use crate::compile::CompiledDefinition;
use crate::error::Result;
use crate::resolved::{PodAttribution, Resolved, WorkloadRef, WorkloadStatus};
use crate::status::{Criterion, Outcome};

/// The most evidence kept per finding; the rest is counted.
pub const MAX_EVIDENCE: usize = 5;

/// What a finding is about. The codes are stable (kebab-case in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum FindingCode {
    /// Kueue has not admitted the workload (QuotaReserved or Admitted False).
    NotAdmitted,
    /// The workload is suspended (or being suspended), and by whom.
    Suspended,
    /// A controller cannot create the workload's pods (`FailedCreate`, as
    /// for an exceeded ResourceQuota).
    CreateFailed,
    /// Pods wait on scheduling gates (Kueue's admission gate, say).
    SchedulingGated,
    /// A gang scheduler's group of the workload's pods (a Volcano, KAI or
    /// scheduler-plugins `PodGroup`, a Grove `PodGang`) is not scheduled,
    /// with the scheduler's own words.
    PodGroupPending,
    /// Pods the scheduler cannot place, with its message.
    Unschedulable,
    /// A gang group has fewer members placed than its minimum.
    GangShort,
    /// A container image cannot be pulled.
    ImagePull,
    /// An init container fails.
    InitFailed,
    /// A container crash-loops, with its last termination.
    CrashLoop,
    /// Pods failed, with their containers' termination.
    PodFailed,
    /// The conditions behind the workload's Failed or Degraded status.
    FailingCondition,
    /// The operator has not yet acted on the latest spec
    /// (`status.observedGeneration` < `metadata.generation`).
    OperatorBehind,
    /// Pods of an earlier attempt are still terminating.
    EarlierAttempt,
    /// Pods that look like the workload's but another object controls.
    LookAlike,
}

impl FindingCode {
    /// The code as JSON spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingCode::NotAdmitted => "not-admitted",
            FindingCode::Suspended => "suspended",
            FindingCode::CreateFailed => "create-failed",
            FindingCode::SchedulingGated => "scheduling-gated",
            FindingCode::PodGroupPending => "pod-group-pending",
            FindingCode::Unschedulable => "unschedulable",
            FindingCode::GangShort => "gang-short",
            FindingCode::ImagePull => "image-pull",
            FindingCode::InitFailed => "init-failed",
            FindingCode::CrashLoop => "crash-loop",
            FindingCode::PodFailed => "pod-failed",
            FindingCode::FailingCondition => "failing-condition",
            FindingCode::OperatorBehind => "operator-behind",
            FindingCode::EarlierAttempt => "earlier-attempt",
            FindingCode::LookAlike => "look-alike",
        }
    }

    fn severity(self) -> FindingSeverity {
        match self {
            FindingCode::NotAdmitted
            | FindingCode::Suspended
            | FindingCode::CreateFailed
            | FindingCode::SchedulingGated
            | FindingCode::PodGroupPending
            | FindingCode::Unschedulable
            | FindingCode::GangShort
            | FindingCode::ImagePull
            | FindingCode::InitFailed
            | FindingCode::CrashLoop => FindingSeverity::Blocking,
            FindingCode::PodFailed
            | FindingCode::FailingCondition
            | FindingCode::OperatorBehind => FindingSeverity::Warning,
            FindingCode::EarlierAttempt | FindingCode::LookAlike => FindingSeverity::Info,
        }
    }
}

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum FindingSeverity {
    /// It keeps the workload from running (or from running whole).
    Blocking,
    /// Something is wrong, but it may not be what holds the workload.
    Warning,
    /// Worth knowing.
    Info,
}

/// One piece of evidence: what was read, where, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The object, `Kind/name`.
    pub object: String,
    /// Where in it: a field (`status.conditions[PodScheduled]`,
    /// `status.containerStatuses[trainer].state.waiting`) or an event
    /// (`event FailedScheduling`).
    pub field: String,
    /// What it says.
    pub text: String,
    /// When, as the cluster wrote it (a condition's last transition, an
    /// event's last time), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiagnosisFinding {
    /// Its stable code.
    pub code: FindingCode,
    /// How much it matters.
    pub severity: FindingSeverity,
    /// One plain sentence.
    pub message: String,
    /// What shows it, at most [`MAX_EVIDENCE`] pieces.
    pub evidence: Vec<Evidence>,
    /// Evidence left out beyond [`MAX_EVIDENCE`] (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more_evidence: usize,
    /// What to do, when that is clear.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Why a workload is where it is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// The workload.
    pub workload: WorkloadRef<'static>,
    /// Its statuses, as resolved with its pods.
    pub statuses: Vec<WorkloadStatus>,
    /// The findings, most important first (empty when nothing is wrong).
    pub findings: Vec<DiagnosisFinding>,
}

/// Findings being gathered: one per (code, key), in first-seen order.
#[derive(Default)]
struct Findings {
    order: Vec<(FindingCode, String)>,
    by_key: HashMap<(FindingCode, String), Pending>,
}

/// Makes a finding's sentence from its subjects (pod names, groups).
type Sentence = Box<dyn Fn(&[String]) -> String>;

struct Pending {
    subjects: Vec<String>,
    message: Sentence,
    evidence: Vec<Evidence>,
    more: usize,
    action: Option<String>,
}

impl Findings {
    /// Add `subject` (a pod name, a group) to the finding of `code` and
    /// `key`, made with `message` (given the subjects) when new.
    fn add(
        &mut self,
        code: FindingCode,
        key: &str,
        subject: String,
        message: impl Fn(&[String]) -> String + 'static,
        action: Option<String>,
        evidence: Vec<Evidence>,
    ) -> Result<()> {
        crate::budget::steps(1 + evidence.len() as u64)?;
        let k = (code, key.to_string());
        let entry = self.by_key.entry(k.clone()).or_insert_with(|| {
            self.order.push(k);
            Pending {
                subjects: Vec::new(),
                message: Box::new(message),
                evidence: Vec::new(),
                more: 0,
                action,
            }
        });
        entry.subjects.push(subject);
        for e in evidence {
            if entry.evidence.len() < MAX_EVIDENCE {
                entry.evidence.push(e);
            } else {
                entry.more += 1;
            }
        }
        Ok(())
    }

    /// The findings, ranked: by severity, then in the fixed order of the
    /// codes; for a Failed workload, the conditions it failed with first.
    fn finish(mut self, failed: bool) -> Vec<DiagnosisFinding> {
        let mut out: Vec<DiagnosisFinding> = self
            .order
            .iter()
            .filter_map(|k| self.by_key.remove(k))
            .zip(self.order.iter())
            .map(|(p, (code, _))| DiagnosisFinding {
                code: *code,
                severity: code.severity(),
                message: (p.message)(&p.subjects),
                evidence: p.evidence,
                more_evidence: p.more,
                action: p.action,
            })
            .collect();
        // Stable: within a code, first seen first.
        out.sort_by_key(|f| {
            (
                !(failed && f.code == FindingCode::FailingCondition),
                f.severity,
                f.code,
            )
        });
        out
    }
}

/// "waits" for one subject, "wait" for several.
fn verb(names: &[String], one: &str, many: &str) -> String {
    if names.len() == 1 {
        one.to_string()
    } else {
        many.to_string()
    }
}

/// "pod a", "pods a and b", "3 pods (a, b, ...)".
fn pods_phrase(names: &[String]) -> String {
    match names {
        [one] => format!("pod {one}"),
        [a, b] => format!("pods {a} and {b}"),
        [a, b, c] => format!("pods {a}, {b} and {c}"),
        _ => format!("{} pods ({}, {}, ...)", names.len(), names[0], names[1]),
    }
}

fn text<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for k in path {
        cur = cur.get(*k)?;
    }
    cur.as_str().filter(|s| !s.is_empty())
}

fn condition<'a>(obj: &'a Value, type_: &str) -> Option<&'a Value> {
    obj.get("status")?
        .get("conditions")?
        .as_array()?
        .iter()
        .rev()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
}

fn is_status(c: &Value, s: &str) -> bool {
    c.get("status").and_then(Value::as_str) == Some(s)
}

/// An event with its time, to keep the latest.
struct Stamped {
    event: WorkloadEvent,
    stamp: Stamp,
}

/// The latest event of each (object, reason), by the events module's rules.
struct Events {
    latest: HashMap<(String, String), Stamped>,
}

impl Events {
    fn new(events: &[Value], uids: &HashSet<String>) -> Result<Events> {
        let mut latest: HashMap<(String, String), Stamped> = HashMap::new();
        for e in events {
            crate::budget::steps(1)?;
            let Some((ev, stamp)) = event_of(e, uids) else {
                continue;
            };
            let key = (ev.object.clone(), ev.reason.clone());
            match latest.get(&key) {
                Some(old) if old.stamp >= stamp => {}
                _ => {
                    latest.insert(key, Stamped { event: ev, stamp });
                }
            }
        }
        Ok(Events { latest })
    }

    fn get(&self, object: &str, reason: &str) -> Option<Evidence> {
        self.latest
            .get(&(object.to_string(), reason.to_string()))
            .map(|e| {
                let ev = &e.event;
                Evidence {
                    object: ev.object.clone(),
                    field: format!("event {}", ev.reason),
                    text: if ev.count > 1 {
                        format!("{} (x{})", ev.message, ev.count)
                    } else {
                        ev.message.clone()
                    },
                    time: ev.last_time.clone(),
                }
            })
    }

    /// Events of `reason` on objects other than pods, sorted by object.
    fn on_owners(&self, reason: &str) -> Vec<Evidence> {
        let mut keys: Vec<&(String, String)> = self
            .latest
            .keys()
            .filter(|(o, r)| r == reason && !o.starts_with("Pod/"))
            .collect();
        keys.sort();
        keys.into_iter()
            .filter_map(|(o, r)| self.get(o, r))
            .collect()
    }
}

/// What the scheduler's message says to do.
fn scheduling_action(message: &str) -> Option<String> {
    let m = message.to_ascii_lowercase();
    if m.contains("insufficient nvidia.com/gpu") {
        Some("no node has enough free GPUs for the pod: wait for GPUs to be freed, add nodes, or request fewer GPUs per pod".into())
    } else if m.contains("node affinity") || m.contains("node selector") {
        Some("no node matches the pod's node selector or affinity: compare them with the nodes' labels".into())
    } else if m.contains("untolerated taint") {
        Some("the nodes carry taints the pod does not tolerate: add tolerations or target other nodes".into())
    } else if m.contains("insufficient cpu") || m.contains("insufficient memory") {
        Some(
            "no node has enough free CPU or memory for the pod: lower its requests or add capacity"
                .into(),
        )
    } else {
        None
    }
}

impl CompiledDefinition {
    /// Why the workload is where it is: ranked findings from its pods (the
    /// pods of its namespace and their owners, as
    /// [`Self::resolve_in_namespace`] takes them), `events` (core/v1 or
    /// events.k8s.io/v1 `Event`s; those of other objects are ignored) and
    /// `related` objects (Kueue `Workload`s and gang schedulers' groups: see
    /// [`GANG_SCHEDULERS`]; others are ignored). Bounded by
    /// the definition's limits.
    pub fn diagnose(
        &self,
        obj: &Value,
        items: &[Value],
        events: &[Value],
        related: &[Value],
    ) -> Result<Diagnosis> {
        let _call = crate::budget::Call::enter(&self.limits);
        let resolved = self.resolve_in_namespace(obj, items)?;
        // Gang groups that cannot be formed (a pod without the key a group
        // is formed by) leave out the gang findings, not the diagnosis; a
        // limit ends it.
        let gang = match self.gang_groups_in_namespace(obj, items) {
            Ok(g) => Some(g),
            Err(e) if e.code() == crate::error::ErrorCode::Limit => return Err(e),
            Err(_) => None,
        };
        let explanation = self.explain_status(obj).ok();
        let mut f = Findings::default();

        // The workload's own pods, by name, with their raw objects.
        let own: Vec<&PodAttribution> = resolved.own_pods().collect();
        let raw: HashMap<&str, &Value> = items
            .iter()
            .filter(|i| {
                i.get("kind")
                    .and_then(Value::as_str)
                    .is_none_or(|k| k == "Pod")
            })
            .filter_map(|p| text(p, &["metadata", "name"]).map(|n| (n, p)))
            .collect();
        crate::budget::steps(items.len() as u64)?;
        let uids = involved_uids(obj, items, &[]);
        let ev = Events::new(events, &uids)?;
        let statuses = resolved
            .status
            .as_ref()
            .map(|s| s.matched_statuses.clone())
            .unwrap_or_default();

        kueue(&mut f, obj, related)?;
        suspended(&mut f, obj, &resolved, &statuses, related)?;
        // A controller that cannot create pods for a reason that lasts (a
        // ResourceQuota, a policy, an invalid template); conflicts it
        // retries at once are left out.
        for e in ev.on_owners("FailedCreate").into_iter().filter(|e| {
            e.text.contains("forbidden")
                || e.text.contains("exceeded quota")
                || e.text.contains("is invalid")
        }) {
            let key = e.object.clone();
            let object = e.object.clone();
            // The cause, after the API server's "pods \"x\" is forbidden: ".
            let mut cause = match e.text.split_once(" is forbidden: ") {
                Some((_, why)) => why.to_string(),
                None => e.text.clone(),
            };
            // Without the evidence's count (`(x6)`).
            if let Some(i) = cause.rfind(" (x").filter(|_| cause.ends_with(')')) {
                cause.truncate(i);
            }
            f.add(
                FindingCode::CreateFailed,
                &key,
                object,
                move |s| format!("{} cannot create pods: {cause}", s.join(", ")),
                (e.text.contains("exceeded quota")).then(|| {
                    "a ResourceQuota of the namespace is used up: free quota or raise it"
                        .to_string()
                }),
                vec![e],
            )?;
        }
        // A failed pod of a workload that completed (retried) is history.
        let completed = statuses.contains(&WorkloadStatus::Completed);
        for p in &own {
            crate::budget::steps(1)?;
            let Some(pod) = raw.get(p.name.as_str()) else {
                continue;
            };
            pod_findings(&mut f, pod, p, &ev, completed)?;
        }
        let settled = statuses.iter().any(|s| {
            matches!(
                s,
                WorkloadStatus::Failed
                    | WorkloadStatus::Completed
                    | WorkloadStatus::Suspended
                    | WorkloadStatus::Suspending
            )
        });
        if !settled {
            pod_groups(&mut f, related, &uids, &own, &raw)?;
        }
        if let (false, Some(gang)) = (settled, &gang) {
            gang_findings(&mut f, gang, &own)?;
        }
        let others = !f.order.is_empty();
        failing_conditions(&mut f, obj, &statuses, explanation.as_ref(), others)?;
        operator_behind(&mut f, obj)?;
        strays(&mut f, &resolved)?;

        let findings = f.finish(statuses.contains(&WorkloadStatus::Failed));
        Ok(Diagnosis {
            workload: resolved.workload.clone().into_owned(),
            statuses,
            findings,
        })
    }
}

fn kind_name(o: &Value) -> String {
    format!(
        "{}/{}",
        text(o, &["kind"]).unwrap_or("object"),
        text(o, &["metadata", "name"]).unwrap_or("")
    )
}

/// The Kueue Workloads among `related` that the workload owns.
fn kueue_workloads<'a>(obj: &Value, related: &'a [Value]) -> Vec<&'a Value> {
    let uid = text(obj, &["metadata", "uid"]);
    related
        .iter()
        .filter(|r| {
            text(r, &["kind"]) == Some("Workload")
                && text(r, &["apiVersion"]).is_some_and(|a| a.starts_with("kueue.x-k8s.io/"))
        })
        .filter(|r| {
            let owners = r
                .get("metadata")
                .and_then(|m| m.get("ownerReferences"))
                .and_then(Value::as_array);
            match (uid, owners) {
                (Some(uid), Some(owners)) => owners
                    .iter()
                    .any(|o| o.get("uid").and_then(Value::as_str) == Some(uid)),
                _ => false,
            }
        })
        .collect()
}

fn condition_evidence(object: String, c: &Value, what: &str) -> Evidence {
    let t = text(c, &["type"]).unwrap_or("");
    let reason = text(c, &["reason"]);
    let message = text(c, &["message"]);
    let status = text(c, &["status"]).unwrap_or("");
    Evidence {
        object,
        field: format!("{what}[{t}]"),
        text: match (reason, message) {
            (Some(r), Some(m)) => format!("{t}={status} {r}: {m}"),
            (Some(r), None) => format!("{t}={status} {r}"),
            (None, Some(m)) => format!("{t}={status}: {m}"),
            (None, None) => format!("{t}={status}"),
        },
        time: text(c, &["lastTransitionTime"]).map(str::to_string),
    }
}

fn kueue(f: &mut Findings, obj: &Value, related: &[Value]) -> Result<()> {
    for w in kueue_workloads(obj, related) {
        crate::budget::steps(1)?;
        let finished = condition(w, "Finished").is_some_and(|c| is_status(c, "True"));
        if finished {
            continue;
        }
        let admitted = condition(w, "Admitted").is_some_and(|c| is_status(c, "True"));
        if admitted {
            continue;
        }
        let queue = text(w, &["spec", "queueName"]).unwrap_or("").to_string();
        let mut evidence = Vec::new();
        for t in ["QuotaReserved", "Admitted", "Evicted", "Preempted"] {
            if let Some(c) = condition(w, t) {
                let show = if matches!(t, "Evicted" | "Preempted") {
                    is_status(c, "True")
                } else {
                    is_status(c, "False")
                };
                if show {
                    evidence.push(condition_evidence(kind_name(w), c, "status.conditions"));
                }
            }
        }
        let why = condition(w, "QuotaReserved")
            .filter(|c| is_status(c, "False"))
            .or_else(|| condition(w, "Admitted").filter(|c| is_status(c, "False")))
            .and_then(|c| text(c, &["message"]))
            .map(str::to_string);
        let name = kind_name(w);
        let q = queue.clone();
        let message = move |_: &[String]| match (&why, q.as_str()) {
            (Some(m), "") => format!("Kueue has not admitted it: {m}"),
            (Some(m), q) => format!("Kueue has not admitted it to queue {q}: {m}"),
            (None, "") => "Kueue has not admitted it yet".to_string(),
            (None, q) => format!("Kueue has not admitted it to queue {q} yet"),
        };
        // Evicted or inadmissible for a reason other than quota: a stopped
        // or inactive ClusterQueue or LocalQueue, a Workload deactivated
        // (spec.active false: by a user, or after its requeue limit), a
        // preemption.
        let evicted = condition(w, "Evicted")
            .filter(|c| is_status(c, "True"))
            .and_then(|c| text(c, &["reason"]));
        let pending = condition(w, "QuotaReserved")
            .filter(|c| is_status(c, "False"))
            .and_then(|c| text(c, &["message"]))
            .unwrap_or("");
        let inactive_in = |what: &str| pending.starts_with(what) && pending.contains("is inactive");
        let cq_stopped = evicted == Some("ClusterQueueStopped") || inactive_in("ClusterQueue ");
        let lq_stopped = evicted == Some("LocalQueueStopped") || inactive_in("LocalQueue ");
        let deactivated = evicted == Some("InactiveWorkload")
            || w.pointer("/spec/active").and_then(Value::as_bool) == Some(false);
        let preempted = evicted == Some("Preempted")
            || condition(w, "Preempted").is_some_and(|c| is_status(c, "True"));
        let action = Some(if deactivated {
            format!(
                "its Workload {} is deactivated (spec.active false, by a user or after too many requeues): set spec.active to true to queue it again",
                text(w, &["metadata", "name"]).unwrap_or("")
            )
        } else if lq_stopped {
            format!(
                "its LocalQueue{} is stopped or inactive: it is admitted again once the LocalQueue is active (stopPolicy None, its ClusterQueue present)",
                if queue.is_empty() {
                    String::new()
                } else {
                    format!(" {queue}")
                }
            )
        } else if cq_stopped {
            "its ClusterQueue is stopped or inactive: it is admitted again once the ClusterQueue is active (stopPolicy None, its flavors present)".to_string()
        } else if preempted {
            "Kueue preempted it for other workloads: it is admitted again when its ClusterQueue has quota for it".to_string()
        } else if queue.is_empty() {
            "it runs once its ClusterQueue has quota for it: free quota, raise the ClusterQueue's quota, or request less".to_string()
        } else {
            format!(
                "it runs once the ClusterQueue behind queue {queue} has quota for it: free quota, raise it, or request less"
            )
        });
        f.add(
            FindingCode::NotAdmitted,
            &name,
            name.clone(),
            message,
            action,
            evidence,
        )?;
    }
    Ok(())
}

fn suspended(
    f: &mut Findings,
    obj: &Value,
    r: &Resolved,
    statuses: &[WorkloadStatus],
    related: &[Value],
) -> Result<()> {
    let suspending = statuses.contains(&WorkloadStatus::Suspending);
    if !statuses.contains(&WorkloadStatus::Suspended) && !suspending {
        return Ok(());
    }
    let me = kind_name(obj);
    let queue = obj
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(|l| l.get("kueue.x-k8s.io/queue-name"))
        .and_then(Value::as_str);
    let by_kueue = queue.is_some() || !kueue_workloads(obj, related).is_empty();
    let mut evidence = Vec::new();
    if let Some(q) = queue {
        evidence.push(Evidence {
            object: me.clone(),
            field: "metadata.labels[kueue.x-k8s.io/queue-name]".into(),
            text: q.to_string(),
            time: None,
        });
    }
    if let Some(s) = &r.status {
        for c in &s.conditions {
            if c.type_.contains("Suspend") && c.status.as_deref() == Some("True") {
                evidence.push(Evidence {
                    object: me.clone(),
                    field: format!("status.conditions[{}]", c.type_),
                    text: format!(
                        "{}={}{}",
                        c.type_,
                        c.status.as_deref().unwrap_or(""),
                        c.message
                            .as_deref()
                            .map(|m| format!(": {m}"))
                            .unwrap_or_default()
                    ),
                    time: c.last_transition_time.clone(),
                });
            }
        }
    }
    let (message, action) = match (by_kueue, suspending) {
        (true, false) => (
            "suspended by Kueue: it waits for admission".to_string(),
            Some("see why Kueue has not admitted it (not-admitted), or its LocalQueue and ClusterQueue".to_string()),
        ),
        (true, true) => (
            "being suspended by Kueue (evicted or preempted): its pods have not stopped yet".to_string(),
            None,
        ),
        (false, false) => (
            "suspended by its spec (a user or a controller suspended it)".to_string(),
            Some("resume it to run it".to_string()),
        ),
        (false, true) => (
            "being suspended: its pods have not stopped yet".to_string(),
            None,
        ),
    };
    f.add(
        FindingCode::Suspended,
        "",
        me,
        move |_| message.clone(),
        action,
        evidence,
    )
}

fn container_statuses<'a>(pod: &'a Value, key: &str) -> &'a [Value] {
    pod.get("status")
        .and_then(|s| s.get(key))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn termination_text(t: &Value) -> String {
    let reason = text(t, &["reason"]);
    let code = t.get("exitCode").and_then(Value::as_i64);
    match (reason, code) {
        (Some(r), Some(c)) => format!("{r}, exit code {c}"),
        (Some(r), None) => r.to_string(),
        (None, Some(c)) => format!("exit code {c}"),
        (None, None) => "terminated".to_string(),
    }
}

fn pod_findings(
    f: &mut Findings,
    pod: &Value,
    p: &PodAttribution,
    ev: &Events,
    completed: bool,
) -> Result<()> {
    let name = p.name.clone();
    let object = format!("Pod/{name}");
    let finished = p.phase == "Succeeded" || p.phase == "Failed";
    // Scheduling gates, then the scheduler's verdict.
    let gates: Vec<String> = pod
        .get("spec")
        .and_then(|s| s.get("schedulingGates"))
        .and_then(Value::as_array)
        .map(|g| {
            g.iter()
                .filter_map(|x| text(x, &["name"]).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    crate::budget::steps(gates.len() as u64)?;
    if !gates.is_empty() && p.node.is_none() && !finished {
        let key = gates.join(",");
        let k2 = key.clone();
        let kueue = gates.iter().any(|g| g.starts_with("kueue.x-k8s.io/"));
        f.add(
            FindingCode::SchedulingGated,
            &key,
            name.clone(),
            move |s| {
                format!(
                    "{} {} on scheduling gates: {k2}",
                    pods_phrase(s),
                    verb(s, "waits", "wait")
                )
            },
            kueue.then(|| "Kueue removes its gate when it admits the workload".to_string()),
            vec![Evidence {
                object: object.clone(),
                field: "spec.schedulingGates".into(),
                text: gates.join(", "),
                time: None,
            }],
        )?;
    } else if let Some(c) = condition(pod, "PodScheduled")
        .filter(|c| is_status(c, "False") && text(c, &["reason"]) == Some("Unschedulable"))
        .filter(|_| !finished && p.node.is_none())
    {
        let message = text(c, &["message"]).unwrap_or("").to_string();
        let mut evidence = vec![condition_evidence(object.clone(), c, "status.conditions")];
        evidence.extend(ev.get(&object, "FailedScheduling"));
        let m = message.clone();
        f.add(
            FindingCode::Unschedulable,
            &message,
            name.clone(),
            move |s| {
                if m.is_empty() {
                    format!("the scheduler cannot place {}", pods_phrase(s))
                } else {
                    format!("the scheduler cannot place {}: {m}", pods_phrase(s))
                }
            },
            scheduling_action(&message),
            evidence,
        )?;
    }
    // Containers: init containers first.
    for (key, init) in [
        ("initContainerStatuses", true),
        ("containerStatuses", false),
    ] {
        let field_base = format!("status.{key}");
        for c in container_statuses(pod, key) {
            crate::budget::steps(1)?;
            let cname = text(c, &["name"]).unwrap_or("").to_string();
            let field = format!("{field_base}[{cname}]");
            let waiting = c.get("state").and_then(|s| s.get("waiting"));
            let wreason = waiting.and_then(|w| text(w, &["reason"]));
            let wmessage = waiting.and_then(|w| text(w, &["message"])).unwrap_or("");
            let last = c.get("lastState").and_then(|s| s.get("terminated"));
            let term = c.get("state").and_then(|s| s.get("terminated"));
            let restarts = c.get("restartCount").and_then(Value::as_u64).unwrap_or(0);
            if let Some(
                r
                @ ("ErrImagePull" | "ImagePullBackOff" | "InvalidImageName" | "ErrImageNeverPull"),
            ) = wreason
            {
                let image = text(c, &["image"]).unwrap_or("").to_string();
                let img = image.clone();
                let mut evidence = vec![Evidence {
                    object: object.clone(),
                    field: format!("{field}.state.waiting"),
                    text: if wmessage.is_empty() {
                        r.to_string()
                    } else {
                        format!("{r}: {wmessage}")
                    },
                    time: None,
                }];
                evidence.extend(ev.get(&object, "Failed"));
                f.add(
                    FindingCode::ImagePull,
                    &image,
                    name.clone(),
                    move |s| format!("the image {img} of {} cannot be pulled", pods_phrase(s)),
                    Some("check the image name and tag, and that the nodes may pull it (imagePullSecrets)".into()),
                    evidence,
                )?;
                continue;
            }
            let crash = wreason == Some("CrashLoopBackOff");
            let init_failed_now = init
                && term.is_some_and(|t| {
                    t.get("exitCode")
                        .and_then(Value::as_i64)
                        .is_some_and(|c| c != 0)
                });
            if init && (crash || init_failed_now) {
                let t = last.or(term);
                let what = t.map(termination_text).unwrap_or_else(|| "fails".into());
                let mut evidence = vec![Evidence {
                    object: object.clone(),
                    field: if crash {
                        format!("{field}.lastState.terminated")
                    } else {
                        format!("{field}.state.terminated")
                    },
                    text: format!(
                        "{what}{}",
                        if restarts > 0 {
                            format!(" (restarts {restarts})")
                        } else {
                            String::new()
                        }
                    ),
                    time: t.and_then(|t| text(t, &["finishedAt"])).map(str::to_string),
                }];
                evidence.extend(ev.get(&object, "BackOff"));
                let cn = cname.clone();
                let w = what.clone();
                f.add(
                    FindingCode::InitFailed,
                    &format!("{cname}\u{0}{what}"),
                    name.clone(),
                    move |s| format!("init container {cn} of {} fails: {w}", pods_phrase(s)),
                    None,
                    evidence,
                )?;
                continue;
            }
            if crash {
                let what = last
                    .map(termination_text)
                    .unwrap_or_else(|| "it keeps exiting".into());
                let oom = last.and_then(|t| text(t, &["reason"])) == Some("OOMKilled");
                let mut evidence = vec![Evidence {
                    object: object.clone(),
                    field: format!("{field}.lastState.terminated"),
                    text: format!("{what} (restarts {restarts})"),
                    time: last
                        .and_then(|t| text(t, &["finishedAt"]))
                        .map(str::to_string),
                }];
                evidence.extend(ev.get(&object, "BackOff"));
                let cn = cname.clone();
                let w = what.clone();
                f.add(
                    FindingCode::CrashLoop,
                    &format!("{cname}\u{0}{what}"),
                    name.clone(),
                    move |s| {
                        format!(
                            "container {cn} of {} crash-loops: last exit {w}",
                            pods_phrase(s)
                        )
                    },
                    Some(if oom {
                        "it ran out of memory: raise its memory limit or use less".to_string()
                    } else {
                        "read its logs (kubectl logs --previous) for why it exits".to_string()
                    }),
                    evidence,
                )?;
            }
        }
    }
    if p.phase == "Failed" && !completed {
        let failing: Vec<&Value> = container_statuses(pod, "containerStatuses")
            .iter()
            .filter(|c| {
                c.get("state")
                    .and_then(|s| s.get("terminated"))
                    .is_some_and(|t| t.get("exitCode").and_then(Value::as_i64) != Some(0))
            })
            .collect();
        let why: Vec<String> = failing
            .iter()
            .filter_map(|c| {
                let t = c.get("state")?.get("terminated")?;
                Some(format!(
                    "{}: {}",
                    text(c, &["name"]).unwrap_or(""),
                    termination_text(t)
                ))
            })
            .collect();
        // The reason of the first container that failed (a sidecar that
        // completed says nothing), else the pod's own.
        let reason = failing
            .first()
            .and_then(|c| text(c, &["state", "terminated", "reason"]))
            .map(str::to_string)
            .or_else(|| text(pod, &["status", "reason"]).map(str::to_string))
            .unwrap_or_else(|| "Failed".into());
        let mut evidence = vec![Evidence {
            object: object.clone(),
            field: "status.phase".into(),
            text: if why.is_empty() {
                format!("Failed ({reason})")
            } else {
                format!("Failed: {}", why.join("; "))
            },
            time: None,
        }];
        if let Some(m) = text(pod, &["status", "message"]) {
            evidence[0].text = format!("{}; {m}", evidence[0].text);
        }
        let r = reason.clone();
        f.add(
            FindingCode::PodFailed,
            &reason,
            name,
            move |s| format!("{} failed ({r})", pods_phrase(s)),
            None,
            std::mem::take(&mut evidence),
        )?;
    }
    Ok(())
}

/// How a gang scheduler's group object is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum GangSchedulerKind {
    /// Volcano (`scheduling.volcano.sh` `PodGroup`).
    Volcano,
    /// KAI (`scheduling.run.ai` `PodGroup`).
    Kai,
    /// The scheduler-plugins coscheduling plugin (`scheduling.x-k8s.io`
    /// `PodGroup`).
    SchedulerPlugins,
    /// Grove (`scheduler.grove.io` `PodGang`).
    Grove,
}

/// A gang scheduler's group object, and how a pod names the group it is in.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct GangScheduler {
    /// How its status is read.
    pub which: GangSchedulerKind,
    /// Who writes it, as a finding names it.
    pub scheduler: &'static str,
    /// Its API group.
    pub group: &'static str,
    /// Its kind.
    pub kind: &'static str,
    /// The pod annotations naming the group.
    pub pod_annotations: &'static [&'static str],
    /// The pod labels naming the group.
    pub pod_labels: &'static [&'static str],
}

/// The gang schedulers' group objects a diagnosis reads (and the cluster
/// protocol lists for `describe` when the server serves them and the
/// workload's pods name such a group, or it has none yet).
pub const GANG_SCHEDULERS: &[GangScheduler] = &[
    GangScheduler {
        which: GangSchedulerKind::Volcano,
        scheduler: "Volcano",
        group: "scheduling.volcano.sh",
        kind: "PodGroup",
        pod_annotations: &[
            "scheduling.k8s.io/group-name",
            "scheduling.volcano.sh/group-name",
        ],
        pod_labels: &[],
    },
    GangScheduler {
        which: GangSchedulerKind::Kai,
        scheduler: "KAI",
        group: "scheduling.run.ai",
        kind: "PodGroup",
        pod_annotations: &["pod-group-name"],
        pod_labels: &[],
    },
    GangScheduler {
        which: GangSchedulerKind::SchedulerPlugins,
        scheduler: "scheduler-plugins",
        group: "scheduling.x-k8s.io",
        kind: "PodGroup",
        pod_annotations: &[],
        pod_labels: &["scheduling.x-k8s.io/pod-group"],
    },
    GangScheduler {
        which: GangSchedulerKind::Grove,
        scheduler: "Grove",
        group: "scheduler.grove.io",
        kind: "PodGang",
        pod_annotations: &[],
        pod_labels: &["grove.io/podgang"],
    },
];

fn gang_scheduler_of(o: &Value) -> Option<&'static GangScheduler> {
    let kind = text(o, &["kind"])?;
    let group = text(o, &["apiVersion"])?.split_once('/')?.0;
    GANG_SCHEDULERS
        .iter()
        .find(|g| g.kind == kind && g.group == group)
}

fn meta_map<'a>(o: &'a Value, key: &str, name: &str) -> Option<&'a str> {
    o.get("metadata")?
        .get(key)?
        .get(name)?
        .as_str()
        .filter(|s| !s.is_empty())
}

/// The gang-scheduler groups a pod names: (API group, group name), at most
/// one per scheduler.
pub(crate) fn groups_named_by(pod: &Value) -> impl Iterator<Item = (&'static str, &str)> + '_ {
    GANG_SCHEDULERS.iter().filter_map(move |g| {
        let name = g
            .pod_annotations
            .iter()
            .find_map(|k| meta_map(pod, "annotations", k))
            .or_else(|| g.pod_labels.iter().find_map(|k| meta_map(pod, "labels", k)))?;
        Some((g.group, name))
    })
}

/// Is this gang-scheduler group the workload's: owned by an object of
/// `uids` (the workload, its pods and the owners between), or named by one
/// of its pods (`named`)?
pub(crate) fn is_workloads_group(
    o: &Value,
    uids: &HashSet<String>,
    named: &HashSet<(&str, &str)>,
) -> bool {
    let Some(g) = gang_scheduler_of(o) else {
        return false;
    };
    let owned = o
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .is_some_and(|rs| {
            rs.iter()
                .filter_map(|r| r.get("uid").and_then(Value::as_str))
                .any(|u| uids.contains(u))
        });
    owned || text(o, &["metadata", "name"]).is_some_and(|n| named.contains(&(g.group, n)))
}

/// What a group that is not scheduled shows.
struct NotScheduled {
    evidence: Vec<Evidence>,
    /// The scheduler's own words, if it wrote any.
    said: Option<String>,
    /// What the state means, when the scheduler wrote no words.
    meaning: String,
    /// The group waits on its queue (not on nodes).
    queued: bool,
    /// The group waits for its pods to be created (not on the scheduler).
    uncreated: bool,
}

/// Whether a group is not scheduled, and what shows it; `None` when it is
/// scheduled (or says nothing of it). `pods`: the workload's pods that name
/// it.
fn group_not_scheduled(g: &GangScheduler, o: &Value, pods: usize) -> Option<NotScheduled> {
    let object = kind_name(o);
    let phase = text(o, &["status", "phase"]);
    let min = o.pointer("/spec/minMember").and_then(Value::as_i64);
    let int = |p: &str| o.pointer(p).and_then(Value::as_i64).unwrap_or(0);
    let phase_evidence = |p: &str| Evidence {
        object: object.clone(),
        field: "status.phase".into(),
        text: p.to_string(),
        time: None,
    };
    let conditions = || {
        o.get("status")
            .and_then(|s| s.get("conditions"))
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
    };
    let of_min = |n: i64| match min {
        Some(m) => format!("{n} of its minimum {m}"),
        None => n.to_string(),
    };
    let mut out = NotScheduled {
        evidence: Vec::new(),
        said: None,
        meaning: String::new(),
        queued: false,
        uncreated: false,
    };
    match g.which {
        GangSchedulerKind::Volcano => {
            // Pending: not enqueued (its queue has no room for the gang's
            // minimum resources; its pods may not exist yet). Inqueue:
            // enqueued, not placed. The newest Unschedulable condition
            // says why.
            let p = phase?;
            match p {
                "Pending" => {
                    out.queued = true;
                    out.meaning = match text(o, &["spec", "queue"]) {
                        Some(q) => format!("Volcano has not enqueued it: queue {q} has no room for the gang's minimum resources yet"),
                        None => "Volcano has not enqueued it: its queue has no room for the gang's minimum resources yet".into(),
                    };
                }
                "Inqueue" => {
                    out.meaning = format!(
                        "Volcano has not placed {} pods together",
                        min.map_or("its minimum".into(), |m| format!("its minimum of {m}"))
                    );
                }
                _ => return None,
            }
            out.evidence.push(phase_evidence(p));
            let last = conditions()
                .iter()
                .rev()
                .find(|c| text(c, &["type"]) == Some("Unschedulable") && is_status(c, "True"));
            if let Some(c) = last {
                out.said = text(c, &["message"]).map(str::to_string);
                out.evidence
                    .push(condition_evidence(object.clone(), c, "status.conditions"));
            }
        }
        GangSchedulerKind::Kai => {
            // The scheduler writes a scheduling condition per node pool
            // while it cannot place the group.
            let sc = o
                .get("status")
                .and_then(|s| s.get("schedulingConditions"))
                .and_then(Value::as_array)
                .filter(|a| !a.is_empty())?;
            out.meaning = "KAI cannot place it".into();
            for c in sc.iter().rev().take(MAX_EVIDENCE) {
                let pool = text(c, &["nodePool"]).unwrap_or("");
                let reasons: Vec<&str> = c
                    .get("reasons")
                    .and_then(Value::as_array)
                    .map(|rs| {
                        rs.iter()
                            .take(MAX_EVIDENCE)
                            .filter_map(|r| text(r, &["message"]).or_else(|| text(r, &["reason"])))
                            .collect()
                    })
                    .unwrap_or_default();
                let words = text(c, &["message"])
                    .map(str::to_string)
                    .or_else(|| (!reasons.is_empty()).then(|| reasons.join("; ")));
                if out.said.is_none() {
                    out.said = words.clone();
                }
                out.evidence.push(Evidence {
                    object: object.clone(),
                    field: if pool.is_empty() {
                        "status.schedulingConditions".into()
                    } else {
                        format!("status.schedulingConditions[{pool}]")
                    },
                    text: format!(
                        "{}{}",
                        text(c, &["type"]).unwrap_or("Unschedulable"),
                        words.map(|w| format!(": {w}")).unwrap_or_default()
                    ),
                    time: text(c, &["lastTransitionTime"]).map(str::to_string),
                });
            }
        }
        GangSchedulerKind::SchedulerPlugins => {
            // Its controller's phases: Pending while fewer pods exist than
            // minMember; PreScheduling, Scheduling while fewer run.
            let p = phase?;
            match p {
                "Pending" => {
                    out.uncreated = true;
                    out.meaning = format!("{} pods exist", of_min(pods as i64));
                    out.evidence.push(phase_evidence(p));
                }
                "PreScheduling" | "Scheduling" => {
                    let running = int("/status/running") + int("/status/succeeded");
                    if min.is_some_and(|m| running >= m) {
                        return None;
                    }
                    out.meaning = format!("{} pods running", of_min(running));
                    out.evidence.push(phase_evidence(p));
                    out.evidence.push(Evidence {
                        object: object.clone(),
                        field: "status.running".into(),
                        text: of_min(running),
                        time: None,
                    });
                }
                _ => return None,
            }
        }
        GangSchedulerKind::Grove => {
            // The operator's Scheduled condition says it; without one, the
            // phase (Pending until the gang is taken up).
            let scheduled = conditions()
                .iter()
                .rev()
                .find(|c| text(c, &["type"]) == Some("Scheduled"));
            match scheduled {
                Some(c) if is_status(c, "True") => return None,
                Some(c) => {
                    out.said = text(c, &["message"]).map(str::to_string);
                    out.evidence
                        .push(condition_evidence(object.clone(), c, "status.conditions"));
                }
                None => {
                    let p = phase?;
                    if p != "Pending" {
                        return None;
                    }
                    out.evidence.push(phase_evidence(p));
                    for c in conditions()
                        .iter()
                        .filter(|c| {
                            matches!(
                                text(c, &["type"]),
                                Some("Initialized" | "SchedulingBackendReady")
                            ) && is_status(c, "False")
                        })
                        .take(MAX_EVIDENCE)
                    {
                        if out.said.is_none() {
                            out.said = text(c, &["message"]).map(str::to_string);
                        }
                        out.evidence.push(condition_evidence(
                            object.clone(),
                            c,
                            "status.conditions",
                        ));
                    }
                }
            }
            out.meaning = "Grove's scheduler has not placed the gang".into();
        }
    }
    Some(out)
}

/// The gang schedulers' groups among `related` that are the workload's (owned
/// by it or an owner between it and its pods, or named by one of its pods)
/// and not scheduled while a pod of the workload waits for a node (or none
/// exists yet).
fn pod_groups(
    f: &mut Findings,
    related: &[Value],
    uids: &HashSet<String>,
    own: &[&PodAttribution],
    raw: &HashMap<&str, &Value>,
) -> Result<()> {
    let waiting = own.is_empty()
        || own
            .iter()
            .any(|p| p.node.is_none() && p.phase != "Succeeded" && p.phase != "Failed");
    if !waiting {
        return Ok(());
    }
    // The groups the workload's pods name, with how many pods name each.
    let mut named: HashMap<(&str, &str), usize> = HashMap::new();
    for p in own {
        crate::budget::steps(1)?;
        if let Some(pod) = raw.get(p.name.as_str()) {
            for k in groups_named_by(pod) {
                *named.entry(k).or_default() += 1;
            }
        }
    }
    let names: HashSet<(&str, &str)> = named.keys().copied().collect();
    for o in related {
        crate::budget::steps(1)?;
        let Some(g) = gang_scheduler_of(o) else {
            continue;
        };
        if !is_workloads_group(o, uids, &names) {
            continue;
        }
        let name = text(o, &["metadata", "name"]).unwrap_or("");
        let pods = named.get(&(g.group, name)).copied().unwrap_or(0);
        let Some(ns) = group_not_scheduled(g, o, pods) else {
            continue;
        };
        let object = kind_name(o);
        let queue = text(o, &["spec", "queue"]).map(str::to_string);
        let what = format!("{} {object}", g.scheduler);
        let sentence = match &ns.said {
            Some(w) => format!("{what} is not scheduled: {w}"),
            None => format!("{what} is not scheduled: {}", ns.meaning),
        };
        let lower = ns.said.as_deref().unwrap_or("").to_ascii_lowercase();
        let action = if ns.uncreated {
            "the gang waits until all its minimum pods exist: see why its controller has not created them".to_string()
        } else if ns.queued || lower.contains("queue") || lower.contains("quota") {
            match &queue {
                Some(q) => format!(
                    "its queue {q} has no room for the whole gang: free capacity in the queue, raise its quota, or request less"
                ),
                None => "its queue has no room for the whole gang: free capacity, raise the quota, or request less".to_string(),
            }
        } else if lower.contains("insufficient nvidia.com/gpu") {
            "the nodes do not have enough free GPUs for the whole gang at once: wait for GPUs to be freed, add nodes, or lower the gang's minimum".to_string()
        } else {
            ns.said.as_deref().and_then(scheduling_action).unwrap_or_else(|| {
                "a gang scheduler starts the group only when all its minimum pods fit at once: free capacity for the whole gang, or lower its minimum".to_string()
            })
        };
        f.add(
            FindingCode::PodGroupPending,
            &format!("{}/{object}", g.group),
            object.clone(),
            move |_| sentence.clone(),
            Some(action),
            ns.evidence,
        )?;
    }
    Ok(())
}

fn gang_findings(
    f: &mut Findings,
    gang: &crate::GangReport,
    own: &[&PodAttribution],
) -> Result<()> {
    // Placed: given a node, and not failed (a member that succeeded did its
    // part; one that failed is replaced, and its replacement must be placed).
    let placed: HashSet<&str> = own
        .iter()
        .filter(|p| p.node.is_some() && p.phase != "Failed")
        .map(|p| p.name.as_str())
        .collect();
    for g in &gang.groups {
        crate::budget::steps(1 + g.members.len() as u64)?;
        // A gang of one is a pod (its scheduling is the pod's finding).
        if g.min_member <= 1 || g.members.is_empty() {
            continue;
        }
        let n = g
            .members
            .iter()
            .filter(|m| placed.contains(m.as_str()))
            .count() as i64;
        // Short only while a member waits for a node: members not created
        // yet are the controller's sequencing (an initializer first).
        if n >= g.min_member || g.members.iter().all(|m| placed.contains(m.as_str())) {
            continue;
        }
        let (name, min, total) = (g.name.clone(), g.min_member, g.members.len());
        let waiting: Vec<&str> = g
            .members
            .iter()
            .filter(|m| !placed.contains(m.as_str()))
            .map(String::as_str)
            .collect();
        let mut parts = vec![format!("{n} of {min} placed")];
        if !waiting.is_empty() {
            let shown: Vec<&str> = waiting.iter().take(MAX_EVIDENCE).copied().collect();
            let more = waiting.len() - shown.len();
            parts.push(format!(
                "not placed: {}{}",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
        let missing = g.min_member - total as i64;
        if missing > 0 {
            parts.push(format!("{missing} not created yet"));
        }
        let evidence = vec![Evidence {
            object: format!("PodGroup/{}", g.name),
            field: "minMember".into(),
            text: parts.join("; "),
            time: None,
        }];
        f.add(
            FindingCode::GangShort,
            &g.name,
            g.name.clone(),
            move |_| format!("gang {name} is short: {n} of its minimum {min} pods placed ({total} exist); a gang scheduler starts none until all can start"),
            None,
            evidence,
        )?;
    }
    Ok(())
}

fn failing_conditions(
    f: &mut Findings,
    obj: &Value,
    statuses: &[WorkloadStatus],
    ex: Option<&crate::StatusExplanation>,
    others: bool,
) -> Result<()> {
    let Some(ex) = ex else { return Ok(()) };
    let me = kind_name(obj);
    for cat in &ex.root.categories {
        crate::budget::steps(1)?;
        if !cat.matched
            || !matches!(
                cat.status,
                WorkloadStatus::Failed | WorkloadStatus::Degraded
            )
        {
            continue;
        }
        if !statuses.contains(&cat.status) {
            continue;
        }
        let mut evidence = Vec::new();
        let matcher = cat
            .matchers
            .iter()
            .find(|m| m.outcome == Outcome::Matched)
            .map(|m| m.field.clone());
        for m in cat
            .matchers
            .iter()
            .filter(|m| m.outcome == Outcome::Matched)
        {
            for c in &m.checks {
                crate::budget::steps(1)?;
                match &c.criterion {
                    Criterion::Condition {
                        actual: Some(a), ..
                    } => {
                        let status = a.status.as_deref().unwrap_or("");
                        let mut t = format!("{}={status}", a.type_);
                        if let Some(r) = &a.reason {
                            t.push_str(&format!(" {r}"));
                        }
                        if let Some(msg) = &a.message {
                            t.push_str(&format!(": {msg}"));
                        }
                        evidence.push(Evidence {
                            object: me.clone(),
                            field: format!("status.conditions[{}]", a.type_),
                            text: t,
                            time: a.last_transition_time.clone(),
                        });
                    }
                    Criterion::Phase { actual, .. } => evidence.push(Evidence {
                        object: me.clone(),
                        field: "phase".into(),
                        text: format!("phase {}", actual.as_deref().unwrap_or("(none)")),
                        time: None,
                    }),
                    Criterion::Expression {
                        field,
                        expression,
                        result,
                        ..
                    } => {
                        // An expression says little by itself: kept only
                        // when nothing else explains the status.
                        if !others {
                            evidence.push(Evidence {
                                object: me.clone(),
                                field: field.clone(),
                                text: format!(
                                    "{expression} gave {}",
                                    result.as_deref().unwrap_or("nothing")
                                ),
                                time: None,
                            });
                        }
                    }
                    Criterion::Condition { actual: None, .. } => {}
                }
            }
        }
        if evidence.is_empty() && others {
            continue;
        }
        let status = cat.status;
        // The sentence quotes a condition or the phase; an expression is
        // only named (it is in the evidence).
        let first = evidence
            .iter()
            .find(|e| e.field.starts_with("status.conditions"))
            .map(|e| e.text.clone());
        // `statusMappings.failed[0]`: the definition's path, from the
        // status definition on.
        let by = if first.is_none() {
            matcher.map(|m| match m.rsplit_once("statusDefinition.") {
                Some((_, tail)) => tail.to_string(),
                None => m,
            })
        } else {
            None
        };
        f.add(
            FindingCode::FailingCondition,
            status.as_str(),
            me.clone(),
            move |_| match (&first, &by) {
                (Some(t), _) => format!("its status is {status}: {t}"),
                (None, Some(field)) => {
                    format!("its status is {status}, by its definition's matcher {field}")
                }
                (None, None) => format!("its status is {status}"),
            },
            None,
            evidence,
        )?;
    }
    Ok(())
}

fn operator_behind(f: &mut Findings, obj: &Value) -> Result<()> {
    let generation = obj
        .get("metadata")
        .and_then(|m| m.get("generation"))
        .and_then(Value::as_i64);
    let observed = obj
        .get("status")
        .and_then(|s| s.get("observedGeneration"))
        .and_then(Value::as_i64);
    if let (Some(g), Some(o)) = (generation, observed)
        && o < g
    {
        let me = kind_name(obj);
        f.add(
            FindingCode::OperatorBehind,
            "",
            me.clone(),
            move |_| format!("its operator has not acted on the latest spec yet: generation {g}, observed {o}"),
            Some("if it stays behind, check that the operator runs (its logs, its webhooks)".into()),
            vec![Evidence {
                object: me,
                field: "status.observedGeneration".into(),
                text: format!("{o} < metadata.generation {g}"),
                time: None,
            }],
        )?;
    }
    Ok(())
}

fn strays(f: &mut Findings, r: &Resolved) -> Result<()> {
    let mut groups: BTreeMap<(bool, String), Vec<&PodAttribution>> = BTreeMap::new();
    for p in &r.stray_pods {
        crate::budget::steps(1)?;
        let Some(finding) = p.findings.iter().find(|x| x.is_stray()) else {
            continue;
        };
        let earlier = finding.code == "not-current";
        if earlier && (p.phase == "Succeeded" || p.phase == "Failed") {
            continue;
        }
        groups
            .entry((earlier, finding.message.clone()))
            .or_default()
            .push(p);
    }
    for ((earlier, message), pods) in groups {
        for p in pods {
            let gpus = p.resources.gpu;
            let evidence = vec![Evidence {
                object: format!("Pod/{}", p.name),
                field: "metadata".into(),
                text: message.clone(),
                time: None,
            }];
            if earlier {
                f.add(
                    FindingCode::EarlierAttempt,
                    "",
                    p.name.clone(),
                    |s| {
                        format!(
                            "{} of an earlier attempt {} still terminating",
                            pods_phrase(s),
                            verb(s, "is", "are")
                        )
                    },
                    None,
                    evidence,
                )?;
            } else {
                let m = message.clone();
                f.add(
                    FindingCode::LookAlike,
                    &p.name,
                    p.name.clone(),
                    move |s| {
                        format!(
                            "{} (holding {gpus} GPU{}) looks like this workload's, but is not: {}",
                            pods_phrase(s),
                            if gpus == 1 { "" } else { "s" },
                            m.trim_start_matches("not this workload's pod: ")
                        )
                    },
                    None,
                    evidence,
                )?;
            }
        }
    }
    Ok(())
}
