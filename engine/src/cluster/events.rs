//! The events `describe TYPE/NAME` shows: those of the workload, of its
//! pods and of the owners between them (a JobSet's Jobs, a Deployment's
//! ReplicaSets), newest first, at most [`MAX_EVENTS`].
//!
//! The namespace's events are listed once, page by page; each page is
//! filtered by `involvedObject.uid` as it comes, and only the newest
//! [`MAX_EVENTS`] matching ones are kept (at most twice that many between
//! two trims), so memory does not grow with the namespace's events.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

/// Events a description keeps: the newest of the workload's, its pods' and
/// the owners' between them (`eventsLeftOut` counts the others).
pub const MAX_EVENTS: usize = 10;

/// One event of a described workload, as kubectl's Events table shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkloadEvent {
    /// `Normal` or `Warning` (`""` when absent).
    #[serde(rename = "type")]
    pub type_: String,
    /// Its reason (`FailedScheduling`, `SuccessfulCreate`).
    pub reason: String,
    /// Its message.
    pub message: String,
    /// What reported it: `source.component`, else `reportingComponent`
    /// (core/v1: the scheduler and other clients of the events.k8s.io API
    /// leave `source` empty), else `reportingController` (events.k8s.io/v1)
    /// (`""` when none is set).
    pub from: String,
    /// The object it is about, `Kind/name` (`involvedObject`).
    pub object: String,
    /// How many times it happened (`series.count`, `count`, else 1).
    pub count: u64,
    /// When it last happened (`series.lastObservedTime`, `lastTimestamp`,
    /// `eventTime`, `firstTimestamp`, else `metadata.creationTimestamp`),
    /// as the server wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_time: Option<String>,
    /// When it first happened (`firstTimestamp`, else `eventTime`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_time: Option<String>,
}

/// The uids whose events are the workload's: its own, and every item
/// (pod or owner) whose controller chain leads to it by uid, with the
/// owners on the way. Each item is walked once (chains met again stop at
/// what is already known), and loops end the walk.
pub(crate) fn involved_uids(workload: &Value, pods: &[Value], owners: &[Value]) -> HashSet<String> {
    let mut out = HashSet::new();
    let Some(root) = crate::selectors::meta_uid(workload).filter(|u| !u.is_empty()) else {
        return out;
    };
    out.insert(root.to_string());
    let items = || pods.iter().chain(owners);
    let by_uid: HashMap<&str, &Value> = items()
        .filter_map(|i| Some((crate::selectors::meta_uid(i).filter(|u| !u.is_empty())?, i)))
        .collect();
    let mut known: HashMap<&str, bool> = HashMap::new();
    known.insert(root, true);
    for item in items() {
        let Some(start) = crate::selectors::meta_uid(item).filter(|u| !u.is_empty()) else {
            continue;
        };
        let mut path: Vec<&str> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        let mut at = start;
        let verdict = loop {
            if let Some(&v) = known.get(at) {
                break v;
            }
            if !seen.insert(at) {
                break false;
            }
            path.push(at);
            let next = by_uid
                .get(at)
                .and_then(|o| crate::selectors::controller_of(o))
                .map(|(_, _, uid)| uid)
                .filter(|u| !u.is_empty());
            match next {
                Some(uid) => at = uid,
                None => break false,
            }
        };
        for uid in path {
            known.insert(uid, verdict);
            if verdict {
                out.insert(uid.to_string());
            }
        }
    }
    out
}

/// The uid of the object an event is about (`involvedObject`, or
/// `regarding` in events.k8s.io's form).
pub(crate) fn involved_uid(event: &Value) -> Option<&str> {
    event
        .get("involvedObject")
        .or_else(|| event.get("regarding"))?
        .get("uid")
        .and_then(Value::as_str)
}

/// The event as shown, when it is about one of `uids`.
pub(crate) fn event_of(event: &Value, uids: &HashSet<String>) -> Option<(WorkloadEvent, Stamp)> {
    let involved = event
        .get("involvedObject")
        .or_else(|| event.get("regarding"))?;
    let uid = involved_uid(event)?;
    if !uids.contains(uid) {
        return None;
    }
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let at = |path: &str| text(event.pointer(path));
    let last_time = at("/series/lastObservedTime")
        .or_else(|| at("/lastTimestamp"))
        .or_else(|| at("/eventTime"))
        .or_else(|| at("/firstTimestamp"))
        .or_else(|| at("/metadata/creationTimestamp"));
    let first_time = at("/firstTimestamp").or_else(|| at("/eventTime"));
    let count = event
        .pointer("/series/count")
        .and_then(Value::as_u64)
        .or_else(|| event.get("count").and_then(Value::as_u64))
        .filter(|n| *n > 0)
        .unwrap_or(1);
    let object = format!(
        "{}/{}",
        text(involved.get("kind")).unwrap_or_else(|| "object".into()),
        text(involved.get("name")).unwrap_or_default()
    );
    let stamp = Stamp::of(last_time.as_deref());
    Some((
        WorkloadEvent {
            type_: at("/type").unwrap_or_default(),
            reason: at("/reason").unwrap_or_default(),
            message: at("/message").or_else(|| at("/note")).unwrap_or_default(),
            from: at("/source/component")
                .or_else(|| at("/reportingComponent"))
                .or_else(|| at("/reportingController"))
                .unwrap_or_default(),
            object,
            count,
            last_time,
            first_time,
        },
        stamp,
    ))
}

/// A point in time to order events by: seconds since the epoch and
/// nanoseconds; `None` (an absent or unreadable time) is the oldest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Stamp(Option<(i64, u32)>);

impl Stamp {
    /// An RFC 3339 time (`2026-01-01T00:00:00Z`, `...00.123456Z`,
    /// `...00+02:00`).
    pub(crate) fn of(text: Option<&str>) -> Stamp {
        Stamp(text.and_then(crate::time::rfc3339))
    }
}

/// The newest events kept so far, and how many matched in all.
#[derive(Debug, Default)]
pub(crate) struct Newest {
    kept: Vec<(Stamp, usize, WorkloadEvent)>,
    matched: usize,
}

impl Newest {
    /// Offer one matching event (`order`: its place in the listing, to
    /// break ties the same way every time).
    pub(crate) fn offer(&mut self, event: WorkloadEvent, stamp: Stamp) {
        self.kept.push((stamp, self.matched, event));
        self.matched += 1;
        if self.kept.len() >= 2 * MAX_EVENTS {
            self.trim();
        }
    }

    fn trim(&mut self) {
        // Newest first; among equal times, the later listed first.
        self.kept
            .sort_unstable_by_key(|k| std::cmp::Reverse((k.0, k.1)));
        self.kept.truncate(MAX_EVENTS);
    }

    /// The newest [`MAX_EVENTS`], newest first, and how many were left out.
    pub(crate) fn finish(mut self) -> (Vec<WorkloadEvent>, usize) {
        self.trim();
        let left_out = self.matched - self.kept.len();
        (self.kept.into_iter().map(|k| k.2).collect(), left_out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn times_order_across_formats() {
        let t = |s: &str| Stamp::of(Some(s));
        assert!(t("2026-01-01T00:00:00Z") < t("2026-01-01T00:00:00.5Z"));
        assert!(t("2026-01-01T00:00:00.999999Z") < t("2026-01-01T00:00:01Z"));
        assert_eq!(t("2026-01-01T02:00:00+02:00"), t("2026-01-01T00:00:00Z"));
        assert_eq!(t("1970-01-01T00:00:00Z"), Stamp(Some((0, 0))));
        assert_eq!(t("2000-03-01T00:00:00Z"), Stamp(Some((951_868_800, 0))));
        assert_eq!(t("not a time"), Stamp(None));
        assert_eq!(t("2026-13-01T00:00:00Z"), Stamp(None));
        assert_eq!(t("2026-01-01T00:00:00."), Stamp(None));
        assert!(Stamp(None) < t("1900-01-01T00:00:00Z"));
    }

    fn item(kind: &str, uid: &str, controller: Option<&str>) -> Value {
        let mut v = json!({"kind": kind, "metadata": {"name": uid, "uid": uid}});
        if let Some(c) = controller {
            v["metadata"]["ownerReferences"] =
                json!([{"apiVersion": "v1", "kind": "X", "name": c, "uid": c, "controller": true}]);
        }
        v
    }

    #[test]
    fn involved_are_the_workload_its_pods_and_the_owners_between() {
        let workload = item("JobSet", "js", None);
        let items = [
            item("Pod", "p1", Some("job")),
            item("Job", "job", Some("js")),
            item("Pod", "other", Some("job2")),
            item("Job", "job2", Some("elsewhere")),
            item("Pod", "loop-a", Some("loop-b")),
            item("Pod", "loop-b", Some("loop-a")),
            item("Pod", "bare", None),
        ];
        let mut got: Vec<String> = involved_uids(&workload, &items[..3], &items[3..])
            .into_iter()
            .collect();
        got.sort();
        assert_eq!(got, ["job", "js", "p1"]);
    }

    #[test]
    fn a_long_chain_is_walked_once_per_item() {
        // 100,000 owners in a chain: linear, not quadratic.
        let n = 100_000;
        let workload = item("Root", "u0", None);
        let items: Vec<Value> = (1..=n)
            .map(|i| item("Owner", &format!("u{i}"), Some(&format!("u{}", i - 1))))
            .collect();
        assert_eq!(involved_uids(&workload, &[], &items).len(), n + 1);
    }

    #[test]
    fn who_reported_it_is_read_from_each_api_s_field() {
        let uids: HashSet<String> = ["p".to_string()].into();
        let from = |e: Value| event_of(&e, &uids).unwrap().0.from;
        let pod = json!({"kind": "Pod", "name": "p", "uid": "p"});
        // As the real scheduler writes it through events.k8s.io, read at
        // core/v1 (recorded in the simulated cluster): `source` is empty.
        assert_eq!(
            from(
                json!({"involvedObject": pod, "reason": "FailedScheduling", "source": {},
                "eventTime": "2026-12-05T18:36:49.742271Z", "action": "Scheduling",
                "reportingComponent": "default-scheduler", "reportingInstance": "default-scheduler-vm"})
            ),
            "default-scheduler"
        );
        // events.k8s.io/v1 names it reportingController; the older
        // source.component wins when both are there.
        assert_eq!(
            from(json!({"regarding": pod, "reportingController": "kueue"})),
            "kueue"
        );
        assert_eq!(
            from(
                json!({"involvedObject": pod, "source": {"component": "kubelet"},
                "reportingComponent": "other"})
            ),
            "kubelet"
        );
        assert_eq!(from(json!({"involvedObject": pod, "source": {}})), "");
    }

    #[test]
    fn only_the_newest_are_kept_at_ten_times_the_cap() {
        let uids: HashSet<String> = ["w".to_string()].into();
        let mut newest = Newest::default();
        for i in 0..(10 * MAX_EVENTS * 10) {
            let e = json!({
                "involvedObject": {"kind": "Pod", "name": "p", "uid": if i % 2 == 0 { "w" } else { "x" }},
                "type": "Normal", "reason": format!("R{i}"), "message": "m",
                "lastTimestamp": format!("2026-01-01T00:{:02}:{:02}Z", (i / 60) % 60, i % 60),
                "source": {"component": "kubelet"}, "count": 2,
            });
            if let Some((ev, stamp)) = event_of(&e, &uids) {
                newest.offer(ev, stamp);
                assert!(newest.kept.len() < 2 * MAX_EVENTS);
            }
        }
        let (kept, left_out) = newest.finish();
        assert_eq!(kept.len(), MAX_EVENTS);
        assert_eq!(left_out, 500 - MAX_EVENTS);
        assert_eq!(kept[0].reason, "R998");
        assert_eq!(kept[9].reason, "R980");
        assert_eq!(kept[0].from, "kubelet");
        assert_eq!(kept[0].object, "Pod/p");
        assert_eq!(kept[0].count, 2);
    }
}
