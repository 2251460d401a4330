//! Live counts of autoscaled instances.
//!
//! A definition gives an instance's declared count: `replicas`, else
//! `minReplicas`. When an autoscaler runs the instance (an HPA, KServe's or
//! Knative's), the count in the workload stays at its minimum while the
//! autoscaler writes the current count into the child object it scales: a
//! Deployment's, StatefulSet's or LeaderWorkerSet's `spec.replicas` (that is
//! what an HPA's `status.desiredReplicas` becomes). Live, with the owners
//! of the workload's pods given, the instance's desired count is that child's
//! count, within the instance's `minReplicas` and `maxReplicas`.
//!
//! The rule is generic: for an instance with `minReplicas` or `maxReplicas`
//! and no `replicas` (the object states no current count, only bounds: an
//! object that states one, as a RayCluster's worker group or a
//! LeaderWorkerSet, is updated by its autoscaler itself), each of its pods'
//! controller chains is followed by uid up to the
//! workload; the topmost object on the way with an integer `spec.replicas`
//! is the child it scales. The counts of the distinct children found are
//! added up. An instance whose pods name no such child (pods the workload
//! controls itself, as a RayCluster's) keeps its declared count; so does
//! one without pods (nothing says what the autoscaler wants).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

use super::ownership::{controller_ref, uid_of};
use crate::error::Result;
use crate::resolved::{LiveScale, Resolved, Scale};

/// The children that scale each instance: per (component, instance) index,
/// the indexes in `items` of its pods.
pub(crate) type PodsByInstance = BTreeMap<(usize, usize), Vec<usize>>;

/// Apply the rule to `r` (resolved with the pods of `items`): see the module
/// documentation. `workload_uid` is the workload's `metadata.uid`.
pub(crate) fn apply(
    r: &mut Resolved,
    workload_uid: Option<&str>,
    items: &[Value],
    pods: &PodsByInstance,
) -> Result<()> {
    let Some(workload_uid) = workload_uid else {
        return Ok(());
    };
    let autoscaled = |s: &Option<Scale>| {
        s.as_ref().is_some_and(|s| {
            s.replicas.is_none() && (s.min_replicas.is_some() || s.max_replicas.is_some())
        })
    };
    if !pods
        .keys()
        .any(|&(ci, ii)| autoscaled(&r.components[ci].instances[ii].scale))
    {
        return Ok(());
    }
    let by_uid: HashMap<&str, &Value> =
        items.iter().filter_map(|v| Some((uid_of(v)?, v))).collect();
    // Per object walked: the child its chain reaches (memoized, so that each
    // owner is walked once whatever the pods below it).
    let mut memo: HashMap<&str, Option<Option<&Value>>> = HashMap::new();
    let mut changed = false;
    for (&(ci, ii), list) in pods {
        let inst = &r.components[ci].instances[ii];
        let Some(scale) = inst.scale.filter(|_| autoscaled(&inst.scale)) else {
            continue;
        };
        let mut children: BTreeMap<&str, (u64, String)> = BTreeMap::new();
        for &p in list {
            crate::budget::steps(1)?;
            let Some(child) = scaled_child(&items[p], workload_uid, &by_uid, &mut memo)? else {
                continue;
            };
            let replicas = child
                .pointer("/spec/replicas")
                .and_then(Value::as_i64)
                .unwrap_or(0)
                .max(0) as u64;
            let label = format!(
                "{}/{}",
                child
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or("object"),
                child
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("(unnamed)")
            );
            if let Some(uid) = uid_of(child) {
                children.insert(uid, (replicas, label));
            }
        }
        if children.is_empty() {
            continue;
        }
        let sum: u64 = children
            .values()
            .map(|(n, _)| *n)
            .fold(0, u64::saturating_add);
        let min = scale.min_replicas.map_or(0, |m| m.max(0) as u64);
        let current = match scale.max_replicas {
            Some(max) => sum.max(min).min((max.max(0) as u64).max(min)),
            None => sum.max(min),
        };
        let inst = &mut r.components[ci].instances[ii];
        let declared = inst.desired_replicas;
        if let Some(live) = inst.live.as_mut() {
            live.scale = Some(LiveScale {
                replicas: current,
                declared,
                scaled_by: children.into_values().map(|(_, l)| l).collect(),
            });
        }
        if current != declared && inst.present {
            inst.desired_replicas = current;
            if let Some(per_pod) = &inst.pod_resources {
                inst.resources = per_pod.times(current).map_err(|e| {
                    crate::error::Error::new(crate::error::ErrorCode::Limit, e.message)
                })?;
            }
            changed = true;
        }
    }
    if changed {
        retotal(r)?;
    }
    Ok(())
}

/// The topmost object with an integer `spec.replicas` on `pod`'s controller
/// chain below the workload (`None` when the chain does not reach the
/// workload, loops, or has none). `memo` keeps, per owner walked, what the
/// chain from it found (`None`: it does not reach the workload), so that
/// each owner is walked once whatever the pods below it.
fn scaled_child<'a>(
    pod: &'a Value,
    workload_uid: &str,
    by_uid: &HashMap<&'a str, &'a Value>,
    memo: &mut HashMap<&'a str, Option<Option<&'a Value>>>,
) -> Result<Option<&'a Value>> {
    let mut walked: Vec<(&'a str, &'a Value)> = Vec::new();
    let mut seen: HashSet<&'a str> = HashSet::new();
    let mut current = pod;
    // What lies above the objects walked: None when the chain does not
    // reach the workload, else the topmost scaled object above them.
    let above: Option<Option<&'a Value>> = loop {
        crate::budget::steps(1)?;
        let Some(uid) = controller_ref(current)
            .and_then(|r| r.get("uid"))
            .and_then(Value::as_str)
        else {
            break None;
        };
        if uid == workload_uid {
            break Some(None);
        }
        if let Some(known) = memo.get(uid) {
            break *known;
        }
        if !seen.insert(uid) {
            break None;
        }
        let Some(&next) = by_uid.get(uid) else {
            break None;
        };
        walked.push((uid, next));
        current = next;
    };
    let scales = |v: &Value| v.pointer("/spec/replicas").is_some_and(Value::is_i64);
    let mut top = above;
    for (uid, object) in walked.into_iter().rev() {
        top = top.map(|t| t.or(scales(object).then_some(object)));
        memo.insert(uid, top);
    }
    Ok(top.flatten())
}

/// Component and workload totals again, after instance counts changed.
fn retotal(r: &mut Resolved) -> Result<()> {
    let limit = |e: crate::resources::ResourceError| {
        crate::error::Error::new(crate::error::ErrorCode::Limit, e.message)
    };
    let mut total = crate::resolved::Totals::default();
    for c in &mut r.components {
        let mut ct = crate::resolved::Totals::default();
        for i in &c.instances {
            ct.pods = ct.pods.saturating_add(i.desired_replicas);
            ct.resources = ct.resources.plus(&i.resources).map_err(limit)?;
        }
        total.pods = total.pods.saturating_add(ct.pods);
        total.resources = total.resources.plus(&ct.resources).map_err(limit)?;
        c.totals = ct;
    }
    r.totals = total;
    Ok(())
}
