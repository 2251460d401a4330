//! Which of the given pods are the workload's own.
//!
//! A pod belongs to the workload when its controller-owner chain leads to
//! the workload: followed by UID through the owners given beside the pods
//! (any object that is not a Pod), and compared to the workload by UID (by
//! group, kind and name when the workload has no UID). A chain that ends at
//! another object, or loops, makes the pod another workload's. Where the
//! chain cannot be followed (the pod has no controller, or an owner on the
//! way was not given), the definition's `podOwnership.labelsPath` decides:
//! the labels by which the operator names the workload on its pods. Without
//! that declaration the pod is trusted, as the reference's library does.
//!
//! Whatever the chain says, a pod that carries a label of the definition's
//! `podOwnership.currentLabelsPath` with another value than the workload's
//! is left over from an earlier generation of it (a JobSet's earlier
//! restart attempt, still terminating): not one of its current pods.

use crate::error::{Error, ErrorCode, Result};
use crate::expr::Expr;
use crate::jq::Input;
use crate::resources::json_type;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What is known of one pod's ownership.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The workload's.
    Ours,
    /// Another workload's, and why.
    Theirs(String),
    /// The chain could not be followed.
    Unknown,
    /// The workload's by its chain or labels, but left over from an earlier
    /// generation (`currentLabelsPath`), and why.
    NotCurrent(String),
}

/// Alternative label sets, each a list of (key, value).
pub(crate) type LabelSets = Vec<Vec<(String, String)>>;

/// The label sets naming `workload` on its pods
/// (`podOwnership.labelsPath` of its definition, evaluated as a
/// description evaluates it), in one call within the definition's limits.
/// None: the definition names its workloads by no labels, or names no pod
/// of this one.
pub(crate) fn naming_labels(
    def: &crate::compile::CompiledDefinition,
    workload: &Value,
) -> Result<Option<LabelSets>> {
    let Some(e) = def.ownership.as_ref() else {
        return Ok(None);
    };
    let _call = crate::budget::Call::enter(&def.limits);
    let input = Input::new(workload, &def.limits).map_err(crate::expr::eval_error)?;
    workload_labels(e, &input, &def.limits, "labelsPath")
}

/// Whether a pod's labels carry every label of one of the sets (the sets
/// name the workload: see [`naming_labels`]).
pub(crate) fn labels_name(sets: &[Vec<(String, String)>], labels: Option<&Value>) -> bool {
    let have = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
    sets.iter()
        .any(|set| set.iter().all(|(k, v)| have(k) == Some(v.as_str())))
}

/// What an owner reference names.
enum Relation {
    Workload,
    Sibling,
    Other,
}

/// The workload's identity, the owners given, the labels naming the
/// workload, and the verdict of every owner already walked.
pub(crate) struct Ownership<'a> {
    /// Live: the items are a whole namespace's pods and every owner their
    /// chains go through, so an owner not among them does not exist (or may
    /// not be read), and a pod without a controller is a workload of its
    /// own.
    live: bool,
    uid: Option<&'a str>,
    group: &'a str,
    kind: &'a str,
    name: &'a str,
    owners: HashMap<&'a str, &'a Value>,
    labels: Option<LabelSets>,
    /// The labels of the workload's current pods (`currentLabelsPath`).
    current: Vec<(String, String)>,
    memo: HashMap<&'a str, Verdict>,
}

/// The value at a path of object keys (what `Value::pointer` finds for
/// such a path, without parsing and unescaping the pointer on every call:
/// this runs for every pod).
pub(super) fn at<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v Value> {
    keys.iter().try_fold(v, |v, k| v.get(*k))
}

/// A non-empty string at a path of object keys.
fn text<'v>(v: &'v Value, keys: &[&str]) -> Option<&'v str> {
    at(v, keys)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The group of an `apiVersion` (`""` for the core group), as
/// [`crate::Gvk::from_api_version`] reads it, without allocating.
fn group_of(api_version: &str) -> &str {
    api_version.split_once('/').map_or("", |(g, _)| g)
}

/// The controller owner reference of an object (`controller: true`).
pub(crate) fn controller_ref(obj: &Value) -> Option<&Value> {
    obj.get("metadata")?
        .get("ownerReferences")?
        .as_array()?
        .iter()
        .find(|r| r.get("controller").and_then(Value::as_bool) == Some(true))
}

/// The controller owner reference of an object: (apiVersion, kind, uid).
pub(crate) fn controller_of(object: &Value) -> Option<(&str, &str, &str)> {
    controller_ref(object).and_then(|r| {
        Some((
            r.get("apiVersion")?.as_str()?,
            r.get("kind")?.as_str()?,
            r.get("uid")?.as_str()?,
        ))
    })
}

/// An object's `metadata.uid` as written (perhaps empty).
pub(crate) fn meta_uid(object: &Value) -> Option<&str> {
    object.get("metadata")?.get("uid")?.as_str()
}

/// `Kind name` of an object, for messages.
fn describe(obj: &Value) -> String {
    format!(
        "{} {}",
        text(obj, &["kind"]).unwrap_or("object"),
        text(obj, &["metadata", "name"]).unwrap_or("(unnamed)")
    )
}

/// An object's `metadata.uid`, when it has one.
pub(crate) fn uid_of(obj: &Value) -> Option<&str> {
    text(obj, &["metadata", "uid"])
}

/// Is this item an owner given beside the pods (any object of another kind
/// than Pod)?
pub(crate) fn is_owner(item: &Value) -> bool {
    item.get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k != "Pod")
}

impl<'a> Ownership<'a> {
    /// The workload's identity and the owners among `items`; the labels
    /// naming the workload from the definition's `labelsPath`, evaluated
    /// once on the workload.
    pub(crate) fn new(
        workload: &'a Value,
        items: &'a [Value],
        labels_path: Option<&Expr>,
        current_path: Option<&Expr>,
        limits: &crate::Limits,
        live: bool,
    ) -> Result<Ownership<'a>> {
        // Pods too: a LeaderWorkerSet's worker StatefulSet is controlled by
        // its group's leader pod.
        let mut owners = HashMap::new();
        for item in items {
            crate::budget::steps(1)?;
            if let Some(uid) = text(item, &["metadata", "uid"]) {
                owners.entry(uid).or_insert(item);
            }
        }
        let (labels, current) = if labels_path.is_none() && current_path.is_none() {
            (None, Vec::new())
        } else {
            let input = Input::new(workload, limits).map_err(crate::expr::eval_error)?;
            let labels = match labels_path {
                Some(e) => workload_labels(e, &input, limits, "labelsPath")?,
                None => None,
            };
            // Every output's labels together (one map is the usual shape).
            let current = match current_path {
                Some(e) => workload_labels(e, &input, limits, "currentLabelsPath")?
                    .unwrap_or_default()
                    .into_iter()
                    .flatten()
                    .collect(),
                None => Vec::new(),
            };
            (labels, current)
        };
        Ok(Ownership {
            live,
            uid: text(workload, &["metadata", "uid"]),
            group: group_of(text(workload, &["apiVersion"]).unwrap_or("")),
            kind: text(workload, &["kind"]).unwrap_or(""),
            name: text(workload, &["metadata", "name"]).unwrap_or(""),
            owners,
            labels,
            current,
            memo: HashMap::new(),
        })
    }

    /// Does an owner reference name the workload, another object of the
    /// workload's group and kind (another workload: workloads of one kind
    /// do not control each other), or something else?
    fn relation(&self, r: &Value) -> Relation {
        let same_kind = text(r, &["kind"]) == Some(self.kind)
            && group_of(text(r, &["apiVersion"]).unwrap_or("")) == self.group;
        let is_it = match self.uid {
            Some(uid) => text(r, &["uid"]) == Some(uid),
            None => same_kind && text(r, &["name"]) == Some(self.name),
        };
        if is_it {
            Relation::Workload
        } else if same_kind {
            Relation::Sibling
        } else {
            Relation::Other
        }
    }

    /// The UIDs of the workload's own controller chain (its owner, the
    /// owner's owner, ...) among the items: a pod there (a LeaderWorkerSet
    /// leader owning the StatefulSet described) is above the workload,
    /// neither its pod nor a look-alike.
    pub(crate) fn ancestors(&self, workload: &'a Value) -> Result<HashSet<&'a str>> {
        let mut up = HashSet::new();
        let mut current = workload;
        while let Some(r) = controller_ref(current) {
            crate::budget::steps(1)?;
            let Some(uid) = text(r, &["uid"]) else { break };
            if !up.insert(uid) {
                break;
            }
            match self.owners.get(uid) {
                Some(&owner) => current = owner,
                None => break,
            }
        }
        Ok(up)
    }

    /// The verdict of a pod: its owner chain, else its labels, else ours.
    pub(crate) fn verdict(&mut self, pod: &'a Value) -> Result<Verdict> {
        // A Pod described as a workload is its own pod (live, it has no
        // controller chain leading to itself).
        if self.uid.is_some()
            && uid_of(pod) == self.uid
            && self.kind == "Pod"
            && self.group.is_empty()
        {
            return Ok(Verdict::Ours);
        }
        let v = match self.chain(pod)? {
            Verdict::Unknown => self.by_labels(pod)?,
            v => v,
        };
        Ok(match v {
            Verdict::Ours => {
                // Each pod is compared with every current label: charged.
                crate::budget::steps(self.current.len() as u64)?;
                self.not_current(pod)
                    .map_or(Verdict::Ours, Verdict::NotCurrent)
            }
            v => v,
        })
    }

    /// Why the pod is not one of the workload's current pods: a label of
    /// `currentLabelsPath` with another value (`None`: it is current, or
    /// it does not carry those labels).
    fn not_current(&self, pod: &Value) -> Option<String> {
        let labels = pod.get("metadata")?.get("labels")?;
        self.current.iter().find_map(|(k, v)| {
            let have = labels.get(k)?.as_str()?;
            (have != v).then(|| {
                format!(
                    "its label {k}={have} is of an earlier generation of this workload (now {v})"
                )
            })
        })
    }

    /// Follow the controller chain from the pod. Every owner walked is
    /// remembered with the verdict, so each is walked once per call
    /// whatever the number of pods below it.
    fn chain(&mut self, pod: &'a Value) -> Result<Verdict> {
        // A Pod workload is its own pod.
        if self.uid.is_some() && uid_of(pod) == self.uid {
            return Ok(Verdict::Ours);
        }
        let mut walked: Vec<&'a str> = Vec::new();
        let mut seen: HashSet<&'a str> = HashSet::new();
        let mut current = pod;
        let verdict = loop {
            crate::budget::steps(1)?;
            let Some(r) = controller_ref(current) else {
                break if walked.is_empty() {
                    if self.live {
                        // Live, a pod nothing controls is a workload of its
                        // own, whatever its labels say.
                        Verdict::Theirs("it has no controller (a pod of its own)".into())
                    } else {
                        // Given as the workload's pods: the chain says
                        // nothing (pods written by hand have no owners).
                        Verdict::Unknown
                    }
                } else {
                    Verdict::Theirs(format!(
                        "its controller chain ends at {}, not at this workload",
                        describe(current)
                    ))
                };
            };
            match self.relation(r) {
                Relation::Workload => break Verdict::Ours,
                Relation::Sibling => {
                    let name = text(r, &["name"]).unwrap_or("(unnamed)");
                    break Verdict::Theirs(if name == self.name {
                        // The same name, another uid: the owner it names was
                        // deleted (and this one made since).
                        format!(
                            "its controller is a {} {name} of another uid ({}), deleted since: an \
                             orphan",
                            self.kind,
                            text(r, &["uid"]).unwrap_or("none")
                        )
                    } else {
                        format!(
                            "its controller chain leads to {} {name}, not to this workload",
                            self.kind
                        )
                    });
                }
                Relation::Other => {}
            }
            let Some(uid) = text(r, &["uid"]) else {
                break Verdict::Unknown;
            };
            if let Some(v) = self.memo.get(uid) {
                break v.clone();
            }
            if !seen.insert(uid) {
                break Verdict::Theirs("its controller chain loops".into());
            }
            let Some(&owner) = self.owners.get(uid) else {
                if self.live {
                    // Live, every owner of the namespace was fetched: this
                    // one is gone, or its type may not be read.
                    break Verdict::Theirs(format!(
                        "its controller {} {} was not found (deleted, or of a type you may \
                         not read): an orphan",
                        text(r, &["kind"]).unwrap_or("object"),
                        text(r, &["name"]).unwrap_or("(unnamed)")
                    ));
                }
                // An owner that was not given: the chain cannot be followed.
                break Verdict::Unknown;
            };
            walked.push(uid);
            current = owner;
        };
        for uid in walked {
            self.memo.insert(uid, verdict.clone());
        }
        Ok(verdict)
    }

    /// Whether the pod's labels name this workload (`None` when the
    /// definition names workloads by no labels).
    pub(crate) fn labels_claim(&self, pod: &Value) -> Result<Option<bool>> {
        if self.labels.is_none() {
            return Ok(None);
        }
        Ok(Some(matches!(self.by_labels(pod)?, Verdict::Ours)))
    }

    fn by_labels(&self, pod: &Value) -> Result<Verdict> {
        let Some(sets) = &self.labels else {
            return Ok(Verdict::Ours);
        };
        let labels = pod.get("metadata").and_then(|m| m.get("labels"));
        let have = |k: &str| labels.and_then(|l| l.get(k)).and_then(Value::as_str);
        let mut first_miss = None;
        for set in sets {
            crate::budget::steps(set.len() as u64)?;
            match set.iter().find(|(k, v)| have(k) != Some(v.as_str())) {
                None => return Ok(Verdict::Ours),
                Some(miss) => {
                    first_miss.get_or_insert(miss);
                }
            }
        }
        let why = match first_miss {
            Some((k, v)) => match have(k) {
                Some(h) => format!("its label {k}={h} names another workload (this one is {v})"),
                None => format!("it has no label {k} naming this workload ({v})"),
            },
            None => "its labels do not name this workload".into(),
        };
        Ok(Verdict::Theirs(why))
    }
}

/// The label sets naming the workload: each output of the expression is
/// one alternative, a map of label keys to strings (a pod must carry every
/// label of at least one); null outputs are skipped. A map with a null
/// value names no pod (a workload made from `generateName` has no name to
/// label pods with yet). No alternative at all (only null outputs) means the
/// workload cannot be named by labels, and pods whose chain cannot be
/// followed are trusted; only maps that name no pod mean no such pod is its.
fn workload_labels(
    e: &Expr,
    input: &Input,
    limits: &crate::Limits,
    field: &str,
) -> Result<Option<LabelSets>> {
    let outs = e.eval(input, limits)?;
    let bad = |what: String| {
        Error::new(
            ErrorCode::Conversion,
            format!("podOwnership.{field} {what}"),
        )
        .at(e.location())
    };
    let mut sets = Vec::new();
    let mut nameless = false;
    for out in outs {
        match out {
            Value::Null => {}
            // A label with a null value (a name not given yet: an object
            // made from `generateName`) names no pod: the map is skipped.
            Value::Object(m) if m.values().any(Value::is_null) => nameless = true,
            Value::Object(m) => {
                let mut labels = Vec::with_capacity(m.len());
                for (k, v) in m {
                    match v {
                        Value::String(s) => labels.push((k, s)),
                        other => {
                            return Err(bad(format!(
                                "must map label keys to strings; {k} is {}",
                                json_type(&other)
                            )));
                        }
                    }
                }
                if !labels.is_empty() {
                    sets.push(labels);
                }
            }
            other => {
                return Err(bad(format!(
                    "must yield maps of labels, got {}",
                    json_type(&other)
                )));
            }
        }
    }
    // Only maps that name no pod: no pod is named by labels (and a pod whose
    // chain cannot be followed is not the workload's).
    Ok(if sets.is_empty() && !nameless {
        None
    } else {
        Some(sets)
    })
}
