//! Pod attribution: which component, instance and replica each live pod
//! belongs to, and the live state of each role.

use super::compile::TypeSelector;
use super::ownership::{self, at};
use crate::compile::CompiledDefinition;
use crate::component::Comp;
use crate::error::{Error, ErrorCode, Result};
use crate::expr::Expr;
use crate::jq::{Input, format};
use crate::pods::PodDef;
use crate::preview::preview_list;
use crate::resolved::{Attribution, Live, PodAttribution, PodFinding, Resolved, WorkloadStatus};
use crate::resources::{self, ResourceSummary};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A component's instance ids in order, and the same as a set.
struct InstanceIds<'a> {
    list: &'a [String],
    set: HashSet<&'a str>,
}

/// A pod query that must yield exactly one non-empty value (instance ids,
/// replica keys, group keys, filters). Strings are used as they are, other
/// values as their jq text (`tostring`).
pub(crate) fn single_value(e: &Expr, pod: &Input, limits: &crate::Limits) -> Result<Value> {
    let outs = e.eval(pod, limits)?;
    if outs.len() != 1 {
        return Err(Error::new(
            ErrorCode::JqRuntime,
            format!("expected single query result, got {}", outs.len()),
        )
        .at(e.location()));
    }
    let v = outs.into_iter().next().unwrap_or(Value::Null);
    if v.is_null() || v.as_str() == Some("") {
        return Err(Error::new(
            ErrorCode::JqRuntime,
            format!(
                "query result is empty {}",
                if v.is_null() { "<nil>" } else { "" }
            )
            .trim_end()
            .to_string(),
        )
        .at(e.location()));
    }
    Ok(v)
}

/// The text of a single value.
pub(crate) fn value_text(v: &Value) -> String {
    format::to_jq_string(v)
}

/// A pod's state: phase, reason, ready, node, and the scheduler's message.
type PodState = (String, Option<String>, bool, Option<String>, Option<String>);

fn pod_state(pod: &Value) -> PodState {
    let status = pod.get("status");
    let phase = status
        .and_then(|s| s.get("phase"))
        .and_then(Value::as_str)
        .unwrap_or("Unknown")
        .to_string();
    let conds: &[Value] = status
        .and_then(|s| s.get("conditions"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let cond = |t: &str| {
        conds
            .iter()
            .find(|c| c.get("type").and_then(Value::as_str) == Some(t))
    };
    // A pod being deleted is not ready, whatever its condition says until
    // its containers stop (as the Job controller and EndpointSlices count).
    let terminating = at(pod, &["metadata", "deletionTimestamp"]).is_some_and(|t| !t.is_null());
    let ready = !terminating
        && cond("Ready")
            .and_then(|c| c.get("status"))
            .and_then(Value::as_str)
            == Some("True");
    let waiting = ["initContainerStatuses", "containerStatuses"]
        .iter()
        .filter_map(|k| status.and_then(|s| s.get(*k)).and_then(Value::as_array))
        .flatten()
        .find_map(|c| {
            at(c, &["state", "waiting", "reason"])
                .or_else(|| at(c, &["state", "terminated", "reason"]).filter(|_| phase == "Failed"))
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    let not_scheduled =
        cond("PodScheduled").filter(|c| c.get("status").and_then(Value::as_str) == Some("False"));
    let unschedulable = not_scheduled
        .and_then(|c| c.get("reason"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let message = not_scheduled
        .and_then(|c| c.get("message"))
        .and_then(Value::as_str)
        .filter(|m| !m.is_empty())
        .map(str::to_string);
    let status_reason = status
        .and_then(|s| s.get("reason"))
        .and_then(Value::as_str)
        .map(str::to_string);
    // kubectl's reading: a pod being deleted is Terminating (unless its
    // node was lost).
    let reason = if terminating && status_reason.as_deref() != Some("NodeLost") {
        Some("Terminating".to_string())
    } else {
        status_reason.or(waiting).or(unschedulable)
    };
    let node = at(pod, &["spec", "nodeName"])
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_string);
    (phase, reason, ready, node, message)
}

impl CompiledDefinition {
    /// Does the pod match a component's type selector? `keyPath` alone:
    /// any non-null output; with `value`: any output equal to the string
    /// `value` (the key path is evaluated as a whole, unlike the reference,
    /// which splices it unparenthesized into `<keyPath> == "value"`);
    /// `matchLabels`: every label present with that value. All given criteria
    /// must hold. No selector: no match.
    pub(crate) fn type_matches(
        &self,
        sel: &TypeSelector,
        pod: &Input,
        pod_json: &Value,
    ) -> Result<bool> {
        // One step per selector tried and per label compared: pods x
        // selectors is the engine's own work, metered for the whole call.
        crate::budget::steps(1 + sel.match_labels.len() as u64)?;
        for (k, v) in &sel.match_labels {
            let have = at(pod_json, &["metadata", "labels"])
                .and_then(|l| l.get(k))
                .and_then(Value::as_str);
            if have != Some(v.as_str()) {
                return Ok(false);
            }
        }
        if let Some(e) = &sel.key_path {
            let outs = e.eval(pod, &self.limits)?;
            let ok = match &sel.value {
                None => outs.iter().any(|o| !o.is_null()),
                Some(want) => outs.iter().any(|o| o.as_str() == Some(want.as_str())),
            };
            return Ok(ok);
        }
        Ok(!sel.match_labels.is_empty())
    }

    fn leaves(&self) -> Vec<usize> {
        (0..self.comps.len())
            .filter(|i| !matches!(self.comps[*i].pod, PodDef::None))
            .collect()
    }

    /// The component of a pod (§7.4 of the reference semantics): with one
    /// pod-bearing component every pod belongs to it; otherwise the first
    /// pod-bearing component whose type selector matches, root first.
    /// `leaves` are the pod-bearing components ([`Self::leaves`], found
    /// once per call).
    pub(crate) fn infer_component(
        &self,
        leaves: &[usize],
        pod: &Input,
        pod_json: &Value,
        findings: &mut Vec<PodFinding>,
    ) -> Result<Option<usize>> {
        if leaves.len() == 1 {
            return Ok(leaves.first().copied());
        }
        // Every pod-bearing component is looked at for every pod.
        crate::budget::steps(leaves.len() as u64)?;
        let mut matched = Vec::new();
        for &i in leaves {
            let Some(sel) = &self.comps[i].type_selector else {
                continue;
            };
            match self.type_matches(sel, pod, pod_json) {
                Ok(true) => matched.push(i),
                Ok(false) => {}
                Err(e) if e.0.code == ErrorCode::Limit => return Err(e),
                Err(e) => findings.push(PodFinding {
                    code: "selector-error".into(),
                    message: format!(
                        "selector of component {} failed: {}",
                        self.comps[i].name, e.0.message
                    ),
                }),
            }
        }
        if matched.len() > 1 {
            // The first few names, then how many more.
            let names = preview_list(matched.iter().map(|i| self.comps[*i].name.as_str()), ", ");
            findings.push(PodFinding {
                code: "ambiguous-component".into(),
                message: format!(
                    "the pod matches the selectors of several components ({names}); attributed to the first"
                ),
            });
        }
        if matched.is_empty() {
            findings.push(PodFinding {
                code: "no-component".into(),
                message: "the pod matches no component's selector".into(),
            });
        }
        Ok(matched.first().copied())
    }

    fn pod_instance(
        &self,
        c: &Comp,
        ids: Option<&InstanceIds<'_>>,
        pod: &Input,
        findings: &mut Vec<PodFinding>,
    ) -> Result<Option<String>> {
        let multi = c.ids.is_some();
        let Some(e) = &c.instance_selector else {
            if multi && ids.is_some_and(|ids| !ids.list.is_empty()) {
                findings.push(PodFinding {
                    code: "no-instance".into(),
                    message: "no instance selector provided but instance ids are not empty".into(),
                });
            }
            return Ok(None);
        };
        let id = match single_value(e, pod, &self.limits) {
            Ok(v) => value_text(&v),
            Err(err) if err.0.code == ErrorCode::Limit => return Err(err),
            Err(err) => {
                findings.push(PodFinding {
                    code: "no-instance".into(),
                    message: format!(
                        "failed to extract instance id from path {:?}: {}",
                        e.program.code(),
                        err.0.message
                    ),
                });
                return Ok(None);
            }
        };
        if let Some(ids) = ids
            && !ids.set.contains(id.as_str())
        {
            // The first few ids, then how many more.
            findings.push(PodFinding {
                code: "unknown-instance".into(),
                message: format!(
                    "could not match instance id {id:?}. existing instance ids [{}]",
                    preview_list(ids.list.iter().map(String::as_str), " ")
                ),
            });
            return Ok(None);
        }
        Ok(Some(id))
    }

    /// Attribute pods to components, instances and replicas. With the
    /// workload, instance ids are checked against the workload's instances.
    pub fn attribute_pods(&self, workload: Option<&Value>, pods: &[Value]) -> Result<Attribution> {
        self.attribute_pods_in(workload, pods, false)
    }

    /// [`Self::attribute_pods`]; with `namespace_mode` (the pods are a whole
    /// namespace's, as a live-cluster front end lists them), a pod whose
    /// controller chain leads to another workload is left out entirely
    /// unless this workload's selectors would claim it (then it is a stray:
    /// it looks like this workload's but is not).
    pub(crate) fn attribute_pods_in(
        &self,
        workload: Option<&Value>,
        pods: &[Value],
        namespace_mode: bool,
    ) -> Result<Attribution> {
        Ok(self.attribute_indexed(workload, pods, namespace_mode)?.0)
    }

    /// [`Self::attribute_pods_in`], with the index in `pods` of each pod
    /// attributed (owners and, in namespace mode, other workloads' pods are
    /// left out, so the two lists do not line up by position).
    pub(crate) fn attribute_indexed(
        &self,
        workload: Option<&Value>,
        pods: &[Value],
        namespace_mode: bool,
    ) -> Result<(Attribution, Vec<usize>)> {
        let _call = crate::budget::Call::enter(&self.limits);
        let ids: Option<Vec<Vec<String>>> = match workload {
            None => None,
            Some(w) => {
                crate::resolve::workload_ref(w)?;
                let input = Input::new(w, &self.limits).map_err(crate::expr::eval_error)?;
                Some(
                    self.comps
                        .iter()
                        .map(|c| self.instance_ids(c, &input))
                        .collect::<Result<_>>()?,
                )
            }
        };
        // Each component's ids with a set of them: a pod's id is looked up,
        // not searched for.
        let ids: Option<Vec<InstanceIds<'_>>> = ids.as_ref().map(|all| {
            all.iter()
                .map(|list| InstanceIds {
                    list,
                    set: list.iter().map(String::as_str).collect(),
                })
                .collect()
        });
        let namespace = workload
            .and_then(|w| at(w, &["metadata", "namespace"]))
            .and_then(Value::as_str)
            .filter(|ns| !ns.is_empty());
        let leaves = self.leaves();
        let mut owners = match workload {
            Some(w) => Some(ownership::Ownership::new(
                w,
                pods,
                self.ownership.as_ref(),
                self.current_labels.as_ref(),
                &self.limits,
                namespace_mode,
            )?),
            None => None,
        };
        // Live, the workload's own owners are above it: not its pods, not
        // look-alikes.
        let above = match (&owners, workload) {
            (Some(o), Some(w)) if namespace_mode => o.ancestors(w)?,
            _ => Default::default(),
        };
        let mut out = Vec::with_capacity(pods.len());
        let mut sources = Vec::with_capacity(pods.len());
        let mut unattributed = Vec::new();
        let mut stray = Vec::new();
        for (index, pod) in pods.iter().enumerate() {
            crate::budget::steps(1)?;
            if workload.is_some() && ownership::is_owner(pod) {
                continue;
            }
            if ownership::uid_of(pod).is_some_and(|u| above.contains(u)) {
                continue;
            }
            let a = self.attribute_one(pod, &leaves, ids.as_deref(), namespace, owners.as_mut())?;
            if namespace_mode && a.findings.iter().any(|f| f.is_stray()) {
                // Kept as a stray only when it looks like this workload's:
                // its labels name the workload (the definition's
                // podOwnership). A definition that names its workloads by
                // no labels (a Pod, a Deployment by selector) has no
                // look-alikes: every other pod of the namespace would be
                // one.
                let claimed = match owners.as_ref() {
                    Some(o) => o.labels_claim(pod)?.unwrap_or(false),
                    None => false,
                };
                if !claimed {
                    continue;
                }
            }
            if a.findings.iter().any(|f| f.is_stray()) {
                stray.push(a.name.clone());
            } else if a.component.is_none() {
                unattributed.push(a.name.clone());
            }
            out.push(a);
            sources.push(index);
        }
        Ok((
            Attribution {
                pods: out,
                unattributed,
                stray,
            },
            sources,
        ))
    }

    fn attribute_one<'a>(
        &self,
        pod: &'a Value,
        leaves: &[usize],
        ids: Option<&[InstanceIds<'_>]>,
        workload_namespace: Option<&str>,
        owners: Option<&mut ownership::Ownership<'a>>,
    ) -> Result<PodAttribution> {
        let name = at(pod, &["metadata", "name"])
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let namespace = at(pod, &["metadata", "namespace"])
            .and_then(Value::as_str)
            .map(str::to_string);
        let (phase, reason, ready, node, message) = pod_state(pod);
        let mut a = PodAttribution {
            name,
            namespace,
            component: None,
            instance: None,
            replica_key: None,
            phase,
            reason,
            message,
            ready,
            node,
            resources: ResourceSummary::default(),
            findings: Vec::new(),
        };
        if !pod.is_object() || a.name.is_empty() {
            a.findings.push(PodFinding {
                code: "invalid-pod".into(),
                message: "a pod must be an object with metadata.name".into(),
            });
            return Ok(a);
        }
        if let Some(kind) = pod.get("kind").and_then(Value::as_str)
            && kind != "Pod"
        {
            a.findings.push(PodFinding {
                code: "invalid-pod".into(),
                message: format!("a {kind} is not a Pod"),
            });
            return Ok(a);
        }
        if let (Some(ns), Some(other)) = (workload_namespace, a.namespace.as_deref())
            && ns != other
        {
            a.findings.push(PodFinding {
                code: "other-namespace".into(),
                message: format!("namespace {other} is not the workload's ({ns})"),
            });
            return Ok(a);
        }
        // What the pod requests, also for another workload's pod (its
        // GPUs are shown beside it); an invalid request is a finding only
        // for a pod that is considered this workload's.
        let requests = pod.get("spec").map(|s| {
            resources::pod_request(s).and_then(|l| ResourceSummary::try_from_requests(&l))
        });
        if let Some(owners) = owners {
            if let Some(Ok(summary)) = &requests {
                a.resources = summary.clone();
            }
            match owners.verdict(pod)? {
                ownership::Verdict::Theirs(why) => {
                    a.findings.push(PodFinding {
                        code: "other-workload".into(),
                        message: format!("not this workload's pod: {why}"),
                    });
                    return Ok(a);
                }
                ownership::Verdict::NotCurrent(why) => {
                    a.findings.push(PodFinding {
                        code: "not-current".into(),
                        message: format!("not this workload's current pod: {why}"),
                    });
                    return Ok(a);
                }
                _ => {}
            }
        }
        match requests {
            Some(Ok(summary)) => a.resources = summary,
            Some(Err(e)) => a.findings.push(PodFinding {
                code: "invalid-pod".into(),
                message: format!("invalid resources at spec.{}: {}", e.path, e.message),
            }),
            None => {}
        }
        let input = Input::new(pod, &self.limits).map_err(crate::expr::eval_error)?;
        let Some(ci) = self.infer_component(leaves, &input, pod, &mut a.findings)? else {
            return Ok(a);
        };
        let c = &self.comps[ci];
        a.component = Some(c.name.clone());
        a.instance = self.pod_instance(c, ids.and_then(|v| v.get(ci)), &input, &mut a.findings)?;
        if let Some(e) = &c.replica_selector {
            match single_value(e, &input, &self.limits) {
                Ok(v) => a.replica_key = Some(value_text(&v)),
                Err(err) if err.0.code == ErrorCode::Limit => return Err(err),
                Err(err) => a.findings.push(PodFinding {
                    code: "replica-error".into(),
                    message: format!(
                        "failed to extract replica key from path {:?}: {}",
                        e.program.code(),
                        err.0.message
                    ),
                }),
            }
        }
        Ok(a)
    }

    /// Resolve the workload and attach the live state of its pods: per
    /// instance the attributed pods, how many are ready, and their nodes;
    /// the workload's pods that belong nowhere are listed in
    /// `unattributedPods`, and pods of other workloads in `strayPods`.
    pub fn resolve_with_pods<'a>(&'a self, obj: &'a Value, pods: &[Value]) -> Result<Resolved<'a>> {
        self.resolve_live(obj, pods, false)
    }

    /// [`Self::resolve_with_pods`] with every pod of the workload's
    /// namespace (and their owners): the pods of other workloads are left
    /// out, except those this workload's selectors would claim, which are
    /// listed in `strayPods`.
    pub fn resolve_in_namespace<'a>(
        &'a self,
        obj: &'a Value,
        items: &[Value],
    ) -> Result<Resolved<'a>> {
        self.resolve_live(obj, items, true)
    }

    fn resolve_live<'a>(
        &'a self,
        obj: &'a Value,
        pods: &[Value],
        namespace_mode: bool,
    ) -> Result<Resolved<'a>> {
        let _call = crate::budget::Call::enter(&self.limits);
        let mut r = self.resolve(obj)?;
        let (att, sources) = self.attribute_indexed(Some(obj), pods, namespace_mode)?;
        // Where each pod goes, through maps of components by name and of
        // instances by id (resolve keeps the definition's component order).
        let slots: Vec<Option<(usize, usize)>> = {
            let mut by_name: HashMap<&str, usize> = HashMap::with_capacity(r.components.len());
            for (ci, c) in r.components.iter().enumerate() {
                by_name.entry(&*c.name).or_insert(ci);
            }
            let mut by_id: Vec<Option<HashMap<&str, usize>>> = vec![None; r.components.len()];
            let mut slots = Vec::with_capacity(att.pods.len());
            for p in &att.pods {
                crate::budget::steps(1)?;
                let slot = p
                    .component
                    .as_deref()
                    .and_then(|c| by_name.get(c).copied())
                    .and_then(|ci| {
                        let comp = &r.components[ci];
                        let want = if comp.multi_instance {
                            p.instance.as_deref()?
                        } else {
                            ""
                        };
                        let ids = by_id[ci].get_or_insert_with(|| {
                            let mut m = HashMap::with_capacity(comp.instances.len());
                            for (ii, i) in comp.instances.iter().enumerate() {
                                m.entry(i.id.as_str()).or_insert(ii);
                            }
                            m
                        });
                        ids.get(want).map(|&ii| (ci, ii))
                    });
                slots.push(slot);
            }
            slots
        };
        let mut rest = Vec::new();
        let mut stray = Vec::new();
        // The nodes of each instance, sorted and made unique once at the end.
        let mut touched: Vec<(usize, usize)> = Vec::new();
        let mut by_instance = super::scaled::PodsByInstance::new();
        for ((p, slot), source) in att.pods.into_iter().zip(slots).zip(sources) {
            let Some((ci, ii)) = slot else {
                if p.findings.iter().any(|f| f.is_stray()) {
                    stray.push(p);
                } else {
                    rest.push(p);
                }
                continue;
            };
            let inst = &mut r.components[ci].instances[ii];
            let live = inst.live.get_or_insert_with(|| {
                touched.push((ci, ii));
                Live {
                    pods: Vec::new(),
                    ready: 0,
                    nodes: Vec::new(),
                    scale: None,
                }
            });
            if p.ready {
                live.ready += 1;
            }
            if let Some(n) = &p.node {
                live.nodes.push(n.clone());
            }
            live.pods.push(p);
            by_instance.entry((ci, ii)).or_default().push(source);
        }
        for (ci, ii) in touched {
            if let Some(live) = r.components[ci].instances[ii].live.as_mut() {
                crate::budget::steps(live.nodes.len() as u64)?;
                live.nodes.sort_unstable();
                live.nodes.dedup();
            }
        }
        for c in &mut r.components {
            if !c.has_pod_definition {
                continue;
            }
            for i in &mut c.instances {
                i.live.get_or_insert_with(|| Live {
                    pods: Vec::new(),
                    ready: 0,
                    nodes: Vec::new(),
                    scale: None,
                });
            }
        }
        r.unattributed_pods = Some(rest);
        r.stray_pods = stray;
        super::scaled::apply(&mut r, ownership::uid_of(obj), pods, &by_instance)?;
        prune_podless(&mut r)?;
        suspending_while_pods_hold(&mut r);
        Ok(r)
    }
}

/// A workload whose status says Suspended while some of its own pods have
/// not finished is still being suspended: it reads Suspending until they
/// are gone. Several operators (JobSet, Kueue's eviction through it, KServe
/// in raw mode) report Suspended at once and nothing of the pods that still
/// terminate and hold their GPUs; the pods given show it. Strays are not
/// the workload's and do not count.
fn suspending_while_pods_hold(r: &mut Resolved) {
    let suspended = r
        .status
        .as_ref()
        .is_some_and(|s| s.matched_statuses.contains(&WorkloadStatus::Suspended));
    let unfinished = || {
        r.own_pods()
            .any(|p| p.phase != "Succeeded" && p.phase != "Failed")
    };
    if !suspended || !unfinished() {
        return;
    }
    let Some(status) = r.status.as_mut() else {
        return;
    };
    if status
        .matched_statuses
        .contains(&WorkloadStatus::Suspending)
    {
        status
            .matched_statuses
            .retain(|s| *s != WorkloadStatus::Suspended);
    } else {
        // In Suspended's place among the matched statuses.
        for s in &mut status.matched_statuses {
            if *s == WorkloadStatus::Suspended {
                *s = WorkloadStatus::Suspending;
            }
        }
    }
}

/// Live, the tree keeps only the components that can hold pods: those
/// with a pod definition and those above them. An informational component
/// (a Deployment's `replicaset`, which defines no pods: the Deployment's
/// own template does) has nothing live to show, and would be an empty row.
/// `components` keeps it.
fn prune_podless(r: &mut Resolved) -> Result<()> {
    let owner: HashMap<&str, Option<&str>> = r
        .components
        .iter()
        .map(|c| (&*c.name, c.owner.as_deref()))
        .collect();
    let mut keep: HashSet<String> = HashSet::new();
    for c in r.components.iter().filter(|c| c.has_pod_definition) {
        let mut at = Some(&*c.name);
        while let Some(name) = at {
            crate::budget::steps(1)?;
            if !keep.insert(name.to_string()) {
                break;
            }
            at = owner.get(name).copied().flatten();
        }
    }
    // The definition's tree, copied to be pruned.
    let mut stack = vec![r.tree.to_mut()];
    while let Some(node) = stack.pop() {
        crate::budget::steps(1)?;
        node.children.retain(|c| keep.contains(&c.component));
        stack.extend(node.children.iter_mut());
    }
    Ok(())
}
