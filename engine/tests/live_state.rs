//! The exporter's state (engine/src/cluster/state.rs): fed watch events, it
//! must say what a live listing of the same objects says
//! (`Engine::list_workloads_with_pods` with `topLevelOnly` and
//! `ownersComplete`), resolve again only what changed, forget what a
//! re-list no longer has, and stay within its object cap.

use serde_json::{Value, json};
use workload_lens::{Engine, ListOptions, LiveState, OwnerKind, WorkloadSummary};

fn engine() -> Engine {
    Engine::builder()
        .catalog(true)
        .build()
        .expect("catalog engine")
}

fn meta(name: &str, uid: &str, rv: u64, owner: Option<(&str, &str, &str, &str)>) -> Value {
    let mut m = json!({
        "name": name, "namespace": "ml", "uid": uid,
        "resourceVersion": rv.to_string(),
        "creationTimestamp": "2026-12-01T00:00:00Z",
        "labels": {"team": if uid.len().is_multiple_of(2) { "a" } else { "b" }},
    });
    if let Some((api_version, kind, oname, ouid)) = owner {
        m["ownerReferences"] = json!([{
            "apiVersion": api_version, "kind": kind, "name": oname, "uid": ouid,
            "controller": true,
        }]);
    }
    m
}

fn pod(
    name: &str,
    uid: &str,
    rv: u64,
    owner: Option<(&str, &str, &str, &str)>,
    phase: &str,
    ready: bool,
    node: bool,
) -> Value {
    let mut p = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": meta(name, uid, rv, owner),
        "spec": {"containers": [{"name": "c", "image": "x",
            "resources": {"requests": {"nvidia.com/gpu": "1", "cpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}]},
    });
    if node {
        p["spec"]["nodeName"] = json!("gpu-node-01");
    }
    p
}

fn template() -> Value {
    json!({"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [{"name": "c", "image": "x",
        "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "1"}}}]}})
}

/// A Deployment `d{i}` with its ReplicaSet and `n` pods, a Job `j{i}` with
/// its pods, one bare pod and one orphan (its ReplicaSet is gone).
fn cluster(count: usize, pods_each: usize) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for i in 0..count {
        let (d, rs, j) = (format!("d{i}"), format!("d{i}-rs"), format!("j{i}"));
        out.push((
            "deployments".into(),
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(&d, &format!("u-{d}"), 1, None),
                   "spec": {"replicas": pods_each, "selector": {"matchLabels": {"app": "x"}}, "template": template()},
                   "status": {"replicas": pods_each, "readyReplicas": pods_each, "availableReplicas": pods_each,
                              "conditions": [{"type": "Available", "status": "True"}]}}),
        ));
        out.push((
            "replicasets".into(),
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                   "metadata": meta(&rs, &format!("u-{rs}"), 1, Some(("apps/v1", "Deployment", &d, &format!("u-{d}")))),
                   "spec": {"replicas": pods_each, "template": template()}}),
        ));
        out.push((
            "jobs".into(),
            json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(&j, &format!("u-{j}"), 1, None),
                   "spec": {"parallelism": 2, "completions": 2, "template": template()},
                   "status": {"active": 2}}),
        ));
        for k in 0..pods_each {
            let name = format!("{rs}-{k}");
            let owner = ("apps/v1", "ReplicaSet", rs.as_str(), &*format!("u-{rs}"));
            let p = pod(
                &name,
                &format!("u-{name}"),
                1,
                Some((owner.0, owner.1, owner.2, owner.3)),
                "Running",
                k % 3 != 0,
                true,
            );
            out.push(("pods".into(), p));
        }
        for k in 0..2 {
            let name = format!("{j}-{k}");
            let p = pod(
                &name,
                &format!("u-{name}"),
                1,
                Some(("batch/v1", "Job", &j, &format!("u-{j}"))),
                "Pending",
                false,
                false,
            );
            out.push(("pods".into(), p));
        }
        out.push((
            "pods".into(),
            pod(
                &format!("bare{i}"),
                &format!("u-bare{i}"),
                1,
                None,
                "Running",
                true,
                true,
            ),
        ));
        out.push((
            "pods".into(),
            pod(
                &format!("orphan{i}"),
                &format!("u-orphan{i}"),
                1,
                Some(("apps/v1", "ReplicaSet", "gone", "u-gone")),
                "Running",
                true,
                true,
            ),
        ));
    }
    out
}

/// What a live listing of the same objects says.
fn listing(engine: &Engine, objects: &[(String, Value)]) -> Vec<WorkloadSummary> {
    type Objects<'a> = Vec<&'a (String, Value)>;
    let (pods, rest): (Objects, Objects) = objects.iter().partition(|(s, _)| s == "pods");
    let all: Vec<Value> = rest
        .iter()
        .map(|(_, o)| o.clone())
        .chain(pods.iter().map(|(_, p)| p.clone()))
        .collect();
    let pods: Vec<Value> = pods.iter().map(|(_, p)| p.clone()).collect();
    engine.list_workloads_with_pods(
        &all,
        &[],
        Some(&pods),
        &ListOptions {
            top_level_only: true,
            owners_complete: true,
            ..ListOptions::default()
        },
    )
}

fn summaries(state: &LiveState) -> Vec<WorkloadSummary> {
    state
        .workloads()
        .iter()
        .map(|w| w.summary.clone())
        .collect()
}

fn fed(engine: &Engine, objects: &[(String, Value)]) -> LiveState {
    let mut state = LiveState::new(1_000_000, None).unwrap();
    for (source, o) in objects {
        assert!(state.apply(engine, source, o));
    }
    state
}

#[test]
fn the_state_says_what_a_live_listing_says() {
    let e = engine();
    let objects = cluster(3, 4);
    let mut state = fed(&e, &objects);
    let stats = state.refresh(&e, &[]);
    let want = listing(&e, &objects);
    assert_eq!(summaries(&state), want);
    // Deployments, Jobs, bare pods and orphans: 4 rows per round.
    assert_eq!(stats.workloads, 12);
    assert_eq!(stats.resolved, 12);
    let d0 = state
        .workloads()
        .into_iter()
        .find(|w| w.summary.name == "d0")
        .unwrap();
    assert_eq!(d0.summary.live.unwrap().pods, 4);
    assert_eq!(d0.summary.live.unwrap().ready, 2);
    assert_eq!(d0.running_pods, 4);
    assert_eq!(d0.pods.len(), 4);
    let orphan = state
        .workloads()
        .into_iter()
        .find(|w| w.summary.name == "orphan0")
        .unwrap();
    assert!(orphan.summary.owner.is_some(), "{:?}", orphan.summary);
}

#[test]
fn only_what_changed_is_resolved_again() {
    let e = engine();
    let objects = cluster(5, 3);
    let mut state = fed(&e, &objects);
    state.refresh(&e, &[]);
    // Nothing changed: nothing resolved; the same event again changes nothing.
    assert_eq!(state.refresh(&e, &[]).resolved, 0);
    let (source, same) = &objects[0];
    assert!(!state.apply(&e, source, same));
    // One pod of d2 becomes ready: d2 alone is resolved again.
    let mut changed = objects.clone();
    let i = changed
        .iter()
        .position(|(_, o)| o["metadata"]["name"] == "d2-rs-0")
        .unwrap();
    changed[i].1["metadata"]["resourceVersion"] = json!("2");
    changed[i].1["status"]["conditions"][0]["status"] = json!("True");
    assert!(state.apply(&e, "pods", &changed[i].1));
    let stats = state.refresh(&e, &[]);
    assert_eq!(stats.resolved, 1);
    assert_eq!(summaries(&state), listing(&e, &changed));
    let d2 = state
        .workloads()
        .into_iter()
        .find(|w| w.summary.name == "d2")
        .unwrap();
    assert_eq!(d2.summary.live.unwrap().ready, 3);
    // The ReplicaSet (an owner between) changes: its Deployment again.
    let r = changed
        .iter()
        .position(|(_, o)| o["metadata"]["name"] == "d4-rs")
        .unwrap();
    changed[r].1["metadata"]["resourceVersion"] = json!("7");
    state.apply(&e, "replicasets", &changed[r].1);
    assert_eq!(state.refresh(&e, &[]).resolved, 1);
}

#[test]
fn deletes_and_relists_forget_what_is_gone() {
    let e = engine();
    let objects = cluster(3, 2);
    let mut state = fed(&e, &objects);
    state.refresh(&e, &[]);
    // A deleted Job: its row goes, and its pods (whose chain now ends at a
    // missing owner) become orphans of their own.
    let j1 = objects
        .iter()
        .find(|(_, o)| o["metadata"]["name"] == "j1")
        .unwrap();
    assert!(state.delete(&j1.1));
    let rest: Vec<(String, Value)> = objects
        .iter()
        .filter(|(_, o)| o["metadata"]["name"] != "j1")
        .cloned()
        .collect();
    let stats = state.refresh(&e, &[]);
    assert_eq!(stats.removed, 1);
    assert_eq!(summaries(&state), listing(&e, &rest));
    assert!(
        summaries(&state)
            .iter()
            .any(|s| s.name == "j1-0" && s.owner.is_some())
    );
    // A re-list of the pods without d0's: those pods are forgotten.
    let pods: Vec<Value> = rest
        .iter()
        .filter(|(s, o)| s == "pods" && !o["metadata"]["name"].as_str().unwrap().starts_with("d0-"))
        .map(|(_, o)| o.clone())
        .collect();
    state.replace(&e, "pods", &pods);
    state.refresh(&e, &[]);
    let after: Vec<(String, Value)> = rest
        .iter()
        .filter(|(s, o)| s != "pods" || !o["metadata"]["name"].as_str().unwrap().starts_with("d0-"))
        .cloned()
        .collect();
    assert_eq!(summaries(&state), listing(&e, &after));
    let d0 = state
        .workloads()
        .into_iter()
        .find(|w| w.summary.name == "d0")
        .unwrap();
    assert_eq!(d0.summary.live.unwrap().pods, 0);
    // A watch gone for good: its objects with it.
    state.forget_source("jobs");
    state.refresh(&e, &[]);
    assert!(!summaries(&state).iter().any(|s| s.kind == "Job"));
}

#[test]
fn random_event_sequences_agree_with_the_listing() {
    // A deterministic pseudo-random walk of applies, changes and deletes:
    // after every refresh the state equals the listing of what is left.
    let e = engine();
    let base = cluster(4, 3);
    let mut live: Vec<Option<(String, Value)>> = base.iter().cloned().map(Some).collect();
    let mut state = fed(&e, &base);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Every write gets a resourceVersion of its own, as the API server
    // gives it.
    let mut rv = 1u64;
    for round in 0..60 {
        for _ in 0..3 {
            let i = (next() % live.len() as u64) as usize;
            match (next() % 3, live[i].clone()) {
                (0, Some((_, o))) => {
                    state.delete(&o);
                    live[i] = None;
                }
                (_, None) => {
                    let (s, o) = base[i].clone();
                    state.apply(&e, &s, &o);
                    live[i] = Some((s, o));
                }
                (_, Some((s, mut o))) => {
                    rv += 1;
                    o["metadata"]["resourceVersion"] = json!(rv.to_string());
                    if s == "pods" {
                        let ready = o["status"]["conditions"][0]["status"] == "True";
                        o["status"]["conditions"][0]["status"] =
                            json!(if ready { "False" } else { "True" });
                    }
                    state.apply(&e, &s, &o);
                    live[i] = Some((s, o));
                }
            }
        }
        state.refresh(&e, &[]);
        let now: Vec<(String, Value)> = live.iter().flatten().cloned().collect();
        assert_eq!(summaries(&state), listing(&e, &now), "round {round}");
    }
}

#[test]
fn unreadable_owner_kinds_and_needed_kinds() {
    let e = engine();
    // A pod controlled by a kind no definition covers, not held.
    let p = pod(
        "w-0",
        "u-w0",
        1,
        Some(("example.com/v1", "Widget", "w", "u-w")),
        "Running",
        true,
        true,
    );
    let mut state = LiveState::new(100, None).unwrap();
    state.apply(&e, "pods", &p);
    let widget = OwnerKind {
        api_version: "example.com/v1".into(),
        kind: "Widget".into(),
    };
    assert_eq!(state.owner_kinds_needed(&e, &[]), vec![widget.clone()]);
    assert!(
        state
            .owner_kinds_needed(&e, std::slice::from_ref(&widget))
            .is_empty()
    );
    state.refresh(&e, std::slice::from_ref(&widget));
    let w = &state.workloads()[0];
    assert_eq!(
        format!("{:?}", w.summary.owner.as_ref().unwrap().state),
        "Unreadable"
    );
}

#[test]
fn the_selector_keeps_only_matching_workloads() {
    let e = engine();
    let objects = cluster(2, 1);
    let mut state = LiveState::new(1000, Some("team=a")).unwrap();
    for (s, o) in &objects {
        state.apply(&e, s, o);
    }
    state.refresh(&e, &[]);
    let names: Vec<String> = summaries(&state).into_iter().map(|s| s.name).collect();
    let want: Vec<String> = listing(&e, &objects)
        .into_iter()
        .filter(|s| s.uid.as_deref().unwrap().len().is_multiple_of(2))
        .map(|s| s.name)
        .collect();
    assert_eq!(names, want);
    assert!(LiveState::new(10, Some("team in a")).is_err());
}

#[test]
fn ten_times_a_large_cluster_stays_within_the_cap() {
    // The cap is what bounds the state: 10x a cluster of 5,000 objects is
    // refused past it, and what is held still resolves.
    let e = engine();
    let objects = cluster(2_000, 20);
    assert!(objects.len() > 45_000);
    let cap = 5_000;
    let mut state = LiveState::new(cap, None).unwrap();
    for (s, o) in &objects {
        state.apply(&e, s, o);
    }
    let c = state.counts();
    assert_eq!(c.covered + c.owners + c.pods, cap);
    assert_eq!(c.refused as usize, objects.len() - cap);
    let stats = state.refresh(&e, &[]);
    assert!(stats.workloads > 0);
    // A change to a held object is still taken; a new one is not.
    assert_eq!(state.refresh(&e, &[]).resolved, 0);
}
