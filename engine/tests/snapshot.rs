//! Snapshots: a listing recorded page by page ([`ClusterSession::recording`])
//! reads back ([`SnapshotReader::listing`]) as the live listing it was,
//! on random clusters served by a small server written here (pages,
//! orphans, pods without controller, owners of a kind no definition
//! covers, owners missing, a type the identity may not list); and bad
//! snapshots are located errors.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use workload_lens::{
    ClusterOp, ClusterOutcome, DescribeQuery, Description, Engine, ErrorCode, Limits, ListQuery,
    Listing, LiveState, LookAlike, Reply, SnapshotEnd, SnapshotHeader, SnapshotQuery,
    SnapshotReader,
};

/// A server: discovery, and lists of objects by resource (plural), paged
/// by `limit` with numeric continue tokens. Resources in `forbidden`
/// answer 403.
struct Server {
    objects: BTreeMap<&'static str, Vec<Value>>,
    forbidden: Vec<&'static str>,
}

const RESOURCES: [(&str, &str, &str, &str); 6] = [
    ("", "v1", "pods", "Pod"),
    ("", "v1", "events", "Event"),
    ("batch", "v1", "jobs", "Job"),
    ("jobset.x-k8s.io", "v1alpha2", "jobsets", "JobSet"),
    ("apps", "v1", "replicasets", "ReplicaSet"),
    ("apps", "v1", "deployments", "Deployment"),
];

impl Server {
    fn answer(&self, path: &str) -> Reply {
        let (route, query) = path.split_once('?').unwrap_or((path, ""));
        if route == "/api/v1" {
            return Reply::ok(
                json!({"groupVersion": "v1", "resources": [
                    {"name": "pods", "singularName": "pod", "namespaced": true, "kind": "Pod"},
                    {"name": "events", "singularName": "event", "namespaced": true, "kind": "Event"}]})
                .to_string(),
            );
        }
        if route == "/apis" {
            let groups: Vec<Value> = ["batch", "jobset.x-k8s.io", "apps"]
                .iter()
                .map(|g| {
                    let v = RESOURCES.iter().find(|r| r.0 == *g).unwrap().1;
                    json!({"name": g, "versions": [{"groupVersion": format!("{g}/{v}"), "version": v}],
                           "preferredVersion": {"groupVersion": format!("{g}/{v}"), "version": v}})
                })
                .collect();
            return Reply::ok(json!({"kind": "APIGroupList", "groups": groups}).to_string());
        }
        for (g, v, _, _) in RESOURCES.iter().filter(|r| !r.0.is_empty()) {
            if route == format!("/apis/{g}/{v}") {
                let resources: Vec<Value> = RESOURCES
                    .iter()
                    .filter(|r| r.0 == *g)
                    .map(|r| json!({"name": r.2, "singularName": r.3.to_lowercase(), "namespaced": true, "kind": r.3}))
                    .collect();
                return Reply::ok(json!({"resources": resources}).to_string());
            }
        }
        let segments: Vec<&str> = route.split('/').collect();
        // GET one object: .../PLURAL/NAME.
        if segments.len() >= 2
            && let Some((_, _, plural, _)) = RESOURCES
                .iter()
                .find(|r| r.2 == segments[segments.len() - 2])
        {
            let name = segments[segments.len() - 1];
            let namespace = segments
                .iter()
                .position(|s| *s == "namespaces")
                .map(|i| segments[i + 1]);
            if self.forbidden.contains(plural) {
                return Reply::status(403, r#"{"kind":"Status","message":"forbidden","code":403}"#);
            }
            return match self.objects[plural].iter().find(|o| {
                o["metadata"]["name"] == name
                    && namespace.is_none_or(|ns| o["metadata"]["namespace"] == ns)
            }) {
                Some(o) => Reply::ok(o.to_string()),
                None => Reply::status(404, r#"{"kind":"Status","code":404}"#),
            };
        }
        let plural = *segments.last().unwrap();
        let Some((_, _, plural, kind)) = RESOURCES.iter().find(|r| r.2 == plural) else {
            return Reply::status(404, r#"{"kind":"Status","code":404}"#);
        };
        if self.forbidden.contains(plural) {
            return Reply::status(403, r#"{"kind":"Status","message":"forbidden","code":403}"#);
        }
        let namespace = segments
            .iter()
            .position(|s| *s == "namespaces")
            .map(|i| segments[i + 1]);
        let mut limit = usize::MAX;
        let mut from = 0;
        for kv in query.split('&') {
            match kv.split_once('=') {
                Some(("limit", n)) => limit = n.parse().unwrap(),
                Some(("continue", c)) => from = c.parse().unwrap(),
                _ => {}
            }
        }
        let all: Vec<&Value> = self.objects[plural]
            .iter()
            .filter(|o| namespace.is_none_or(|ns| o["metadata"]["namespace"] == ns))
            .collect();
        let page: Vec<&Value> = all.iter().skip(from).take(limit).copied().collect();
        let mut metadata = json!({"resourceVersion": "7"});
        if from + page.len() < all.len() {
            metadata["continue"] = json!((from + page.len()).to_string());
        }
        Reply::ok(
            json!({"kind": format!("{kind}List"), "metadata": metadata, "items": page}).to_string(),
        )
    }
}

/// A random cluster: JobSets (Jobs, pods) and Deployments (ReplicaSets,
/// pods) in two namespaces, with pods whose controller is missing, pods
/// with none, and Jobs whose JobSet is missing.
fn cluster_of(seed: u64) -> Server {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut objects: BTreeMap<&'static str, Vec<Value>> = BTreeMap::new();
    for (_, _, plural, _) in RESOURCES {
        objects.insert(plural, Vec::new());
    }
    let meta = |name: &str, ns: &str, uid: &str, owner: Option<(&str, &str, &str, &str)>| {
        let mut m = json!({"name": name, "namespace": ns, "uid": uid, "resourceVersion": "1",
                           "creationTimestamp": "2026-01-01T00:00:00Z",
                           "managedFields": [{"manager": "test"}]});
        if let Some((api, kind, n, u)) = owner {
            m["ownerReferences"] =
                json!([{"apiVersion": api, "kind": kind, "name": n, "uid": u, "controller": true}]);
        }
        m
    };
    let container =
        json!([{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]);
    let pod = |name: &str, ns: &str, owner: Option<(&str, &str, &str, &str)>, ready: bool| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta(name, ns, name, owner),
               "spec": {"nodeName": "n1", "containers": container},
               "status": {"phase": "Running", "conditions": [{"type": "Ready",
                          "status": if ready { "True" } else { "False" }}]}})
    };
    for i in 0..(4 + next(6)) {
        let ns = if next(2) == 0 { "a" } else { "b" };
        let name = format!("js{i}");
        let present = next(5) != 0;
        if present {
            objects.get_mut("jobsets").unwrap().push(json!({
                "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                "metadata": meta(&name, ns, &name, None),
                "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {
                    "parallelism": 2, "completions": 2,
                    "template": {"spec": {"containers": container}}}}}]}}));
        }
        let job = format!("{name}-w-0");
        objects.get_mut("jobs").unwrap().push(json!({
            "apiVersion": "batch/v1", "kind": "Job",
            "metadata": meta(&job, ns, &job, Some(("jobset.x-k8s.io/v1alpha2", "JobSet", &name, &name))),
            "spec": {"parallelism": 2, "template": {"spec": {"containers": container}}}}));
        for p in 0..next(3) {
            objects.get_mut("pods").unwrap().push(pod(
                &format!("{job}-{p}"),
                ns,
                Some(("batch/v1", "Job", &job, &job)),
                next(2) == 0,
            ));
        }
    }
    for i in 0..(2 + next(4)) {
        let ns = if next(2) == 0 { "a" } else { "b" };
        let name = format!("dep{i}");
        let rs = format!("{name}-rs");
        objects.get_mut("deployments").unwrap().push(json!({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta(&name, ns, &name, None),
            "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": container}}}}));
        if next(4) != 0 {
            objects.get_mut("replicasets").unwrap().push(json!({
                "apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": meta(&rs, ns, &rs, Some(("apps/v1", "Deployment", &name, &name))),
                "spec": {"replicas": 2}}));
        }
        for p in 0..next(3) {
            objects.get_mut("pods").unwrap().push(pod(
                &format!("{rs}-{p}"),
                ns,
                Some(("apps/v1", "ReplicaSet", &rs, &rs)),
                true,
            ));
        }
    }
    for p in 0..next(3) {
        let ns = if next(2) == 0 { "a" } else { "b" };
        objects
            .get_mut("pods")
            .unwrap()
            .push(pod(&format!("bare{p}"), ns, None, true));
    }
    // The labels the operators put on their pods (a JobSet's name, a
    // Deployment's selector), some naming another workload: bare pods made
    // by hand with a workload's labels, a JobSet's pod labeled with
    // another's name. Those are that workload's look-alikes.
    let jobsets = 4 + 6;
    let deployments = 2 + 4;
    for p in objects.get_mut("pods").unwrap().iter_mut() {
        let name = p["metadata"]["name"].as_str().unwrap().to_string();
        let labels = if let Some(js) = name.strip_prefix("js") {
            let i: u64 = js.split('-').next().unwrap().parse().unwrap();
            let i = if next(4) == 0 { (i + 1) % jobsets } else { i };
            json!({"jobset.sigs.k8s.io/jobset-name": format!("js{i}")})
        } else if let Some(dep) = name
            .strip_suffix("-rs-0")
            .or_else(|| name.strip_suffix("-rs-1"))
        {
            json!({"app": dep})
        } else if next(3) != 0 {
            json!({"app": format!("dep{}", next(deployments))})
        } else {
            json!({"jobset.sigs.k8s.io/jobset-name": format!("js{}", next(jobsets))})
        };
        p["metadata"]["labels"] = labels;
    }
    // Events: about some of the objects (a few of them reasons a
    // diagnosis reads, at random times), and about objects not there.
    const REASONS: [&str; 5] = [
        "FailedScheduling",
        "Created",
        "BackOff",
        "Pulled",
        "Preempted",
    ];
    let mut events = Vec::new();
    let about: Vec<Value> = ["jobsets", "jobs", "replicasets", "deployments", "pods"]
        .iter()
        .flat_map(|p| objects[p].clone())
        .chain([
            json!({"kind": "Pod", "metadata": {"name": "gone", "namespace": "a", "uid": "gone"}}),
        ])
        .collect();
    for o in about {
        for _ in 0..next(3) {
            let n = events.len();
            events.push(json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("ev{n}"), "namespace": o["metadata"]["namespace"],
                             "uid": format!("ev-{n}")},
                "involvedObject": {"kind": o["kind"], "name": o["metadata"]["name"],
                                   "uid": o["metadata"]["uid"],
                                   "namespace": o["metadata"]["namespace"]},
                "reason": REASONS[next(5) as usize], "message": format!("event {n}"),
                "type": "Warning", "count": 1 + next(4),
                "lastTimestamp": format!("2026-01-01T00:{:02}:00Z", next(60))}));
        }
    }
    objects.insert("events", events);
    let mut forbidden = if next(3) == 0 {
        vec!["jobsets"]
    } else {
        vec![]
    };
    if next(4) == 0 {
        forbidden.push("events");
    }
    Server { objects, forbidden }
}

/// The live listing of `query`, and the snapshot its session recorded.
fn live_and_snapshot(engine: &Engine, server: &Server, query: ListQuery) -> (Listing, Vec<String>) {
    let mut header = SnapshotHeader::new("test", "2026-12-06T00:00:00Z");
    header.namespace = query.namespace.clone();
    let mut lines = vec![header.line()];
    let mut session = engine.cluster_session(ClusterOp::List(query)).recording();
    while !session.is_done() {
        let replies: Vec<Reply> = session
            .requests()
            .iter()
            .map(|r| server.answer(&r.path))
            .collect();
        session.feed(replies).unwrap();
        lines.extend(session.take_records());
    }
    let Ok(ClusterOutcome::Listing(listing)) = session.finish() else {
        panic!("not a listing")
    };
    lines.push(SnapshotEnd::of(&listing, lines.len() - 1).line());
    (*listing, lines)
}

fn read(engine: &Engine, lines: &[String], query: &SnapshotQuery) -> Listing {
    let mut reader = SnapshotReader::new(engine);
    for l in lines {
        reader.feed_line(l).unwrap();
    }
    reader.listing(query).unwrap()
}

/// What a listing answers: its rows and warnings, as JSON.
fn answers(l: &Listing) -> Value {
    json!({"workloads": l.workloads, "warnings": l.warnings, "forbidden": l.forbidden,
           "types": l.types, "namespace": l.namespace, "unreadable": l.unreadable})
}

#[test]
fn a_snapshot_reads_back_as_the_listing_it_recorded() {
    let engine = Engine::new().unwrap();
    let mut orphans = 0;
    let mut forbidden = 0;
    for seed in 1..=40 {
        let server = cluster_of(seed);
        for (namespace, chunk) in [(None, 3), (Some("a"), 2), (None, 500)] {
            let query = ListQuery {
                all_types: true,
                namespace: namespace.map(str::to_string),
                chunk_size: chunk,
                ..ListQuery::default()
            };
            let (live, lines) = live_and_snapshot(&engine, &server, query);
            let whole = read(&engine, &lines, &SnapshotQuery::default());
            assert_eq!(
                answers(&whole),
                answers(&live),
                "seed {seed}, {namespace:?}"
            );
            orphans += live.workloads.iter().filter(|w| w.owner.is_some()).count();
            forbidden += usize::from(!live.forbidden.is_empty());
            // managedFields never reach the file.
            assert!(lines.iter().all(|l| !l.contains("managedFields")));
            // Narrowed to a namespace: as the live listing of that
            // namespace; and by status.
            if namespace.is_none() {
                let (live_a, _) = live_and_snapshot(
                    &engine,
                    &server,
                    ListQuery {
                        all_types: true,
                        namespace: Some("a".into()),
                        ..ListQuery::default()
                    },
                );
                let q = SnapshotQuery {
                    namespace: Some("a".into()),
                    phases: Vec::new(),
                };
                let read_a = read(&engine, &lines, &q);
                assert_eq!(
                    answers(&read_a)["workloads"],
                    answers(&live_a)["workloads"],
                    "seed {seed}"
                );
                let q = SnapshotQuery {
                    namespace: None,
                    phases: vec!["running".into()],
                };
                let running = read(&engine, &lines, &q);
                let (live_running, _) = live_and_snapshot(
                    &engine,
                    &server,
                    ListQuery {
                        all_types: true,
                        phases: vec!["Running".into()],
                        ..ListQuery::default()
                    },
                );
                assert_eq!(
                    answers(&running)["workloads"],
                    answers(&live_running)["workloads"],
                    "seed {seed}"
                );
            }
        }
    }
    // The random clusters reached what the test is for.
    assert!(orphans > 20, "{orphans}");
    assert!(forbidden > 5, "{forbidden}");
}

#[test]
fn bad_snapshots_are_located_errors() {
    let engine = Engine::new().unwrap();
    let server = cluster_of(3);
    let (_, lines) = live_and_snapshot(
        &engine,
        &server,
        ListQuery {
            all_types: true,
            ..ListQuery::default()
        },
    );
    let fails = |lines: &[String]| -> (ErrorCode, Option<usize>, String) {
        let mut reader = SnapshotReader::new(&engine);
        let e = lines
            .iter()
            .try_for_each(|l| reader.feed_line(l))
            .and_then(|()| reader.listing(&SnapshotQuery::default()).map(|_| ()))
            .unwrap_err();
        (e.code(), e.location().line, e.message().to_string())
    };
    // Cut short: no end line.
    let (code, _, message) = fails(&lines[..lines.len() - 1]);
    assert_eq!(code, ErrorCode::Parse);
    assert!(message.contains("cut short"), "{message}");
    // A record lost: the end line's count says so.
    let mut lost = lines.clone();
    lost.remove(2);
    let (code, line, message) = fails(&lost);
    assert_eq!((code, line), (ErrorCode::Parse, Some(lost.len())));
    assert!(message.contains("records"), "{message}");
    // Not a snapshot; another version; a line after the end; a bad record.
    let (_, line, message) = fails(&[r#"{"kind": "Pod"}"#.to_string()]);
    assert_eq!(line, Some(1));
    assert!(
        message.contains("not a workload-lens snapshot"),
        "{message}"
    );
    let newer = lines[0].replace("\"version\":1", "\"version\":2");
    let (_, _, message) = fails(&[newer]);
    assert!(message.contains("version 2"), "{message}");
    let mut after = lines.clone();
    after.push(lines[1].clone());
    let (_, line, _) = fails(&after);
    assert_eq!(line, Some(after.len()));
    let mut bad = lines.clone();
    bad[1] = r#"{"roles": ["pod"], "object": {"kind": "Job", "apiVersion": "batch/v1"}}"#.into();
    let (code, line, _) = fails(&bad);
    assert_eq!((code, line), (ErrorCode::Parse, Some(2)));
    bad[1] = r#"{"roles": ["sideways"], "object": {}}"#.into();
    assert_eq!(fails(&bad).1, Some(2));
    bad[1] = "{not json".into();
    assert_eq!(fails(&bad).0, ErrorCode::Parse);
    // Bounded: what is kept by maxClusterBytes, each line by
    // maxInputBytes.
    let small = Engine::builder()
        .limits(Limits {
            max_cluster_bytes: 4096,
            ..Limits::default()
        })
        .build()
        .unwrap();
    let mut reader = SnapshotReader::new(&small);
    let e = lines
        .iter()
        .try_for_each(|l| reader.feed_line(l))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert!(e.location().line.is_some());
}

/// Ten times a large namespace: 2,000 Jobs of 10 pods each (22,000
/// records), as snapshot lines.
fn large_snapshot() -> Vec<String> {
    let mut lines = vec![SnapshotHeader::new("big", "2026-12-06T00:00:00Z").line()];
    let mut records = 0;
    for j in 0..2000 {
        let job = format!("job{j}");
        lines.push(
            json!({"roles": ["object"], "object": {"apiVersion": "batch/v1", "kind": "Job",
                "metadata": {"name": job, "namespace": "big", "uid": job},
                "spec": {"parallelism": 10, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}})
            .to_string(),
        );
        records += 1;
        for p in 0..10 {
            let name = format!("{job}-{p}");
            lines.push(
                json!({"roles": ["pod"], "object": {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "big", "uid": name,
                    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": job,
                                         "uid": job, "controller": true}]},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
                "status": {"phase": "Running"}}})
                .to_string(),
            );
            records += 1;
        }
    }
    lines.push(json!({"end": {"records": records}}).to_string());
    lines
}

#[test]
fn a_large_snapshot_reads_within_its_budget() {
    // Ten times a large namespace: 20,000 pods under 2,000 Jobs, read
    // within the default limits, in bounded time.
    let engine = Engine::new().unwrap();
    let lines = large_snapshot();
    let l = read(&engine, &lines, &SnapshotQuery::default());
    assert_eq!(l.workloads.len(), 2000);
    assert!(
        l.workloads
            .iter()
            .all(|w| w.live.is_some_and(|v| v.pods == 10))
    );
}

/// The fleet tables of a batch of several clusters' snapshot records
/// (workloads, instances, pods) say what each cluster's snapshot listing
/// says, row by row; the owner kinds a capture could not list come as
/// `unreadable` records.
#[test]
fn fleet_tables_say_what_each_snapshot_listing_says() {
    use workload_lens::FleetRecord;
    let engine = Engine::new().unwrap();
    let mut records: Vec<(String, Vec<String>, String)> = Vec::new();
    let mut expected: Vec<(String, Value)> = Vec::new();
    for seed in 1..=12 {
        let cluster = format!("c{seed:02}");
        let (_, lines) = live_and_snapshot(
            &engine,
            &cluster_of(seed),
            ListQuery {
                all_types: true,
                chunk_size: 4,
                ..ListQuery::default()
            },
        );
        let listing = read(&engine, &lines, &SnapshotQuery::default());
        for w in &listing.workloads {
            expected.push((cluster.clone(), serde_json::to_value(w).unwrap()));
        }
        for l in &lines[1..lines.len() - 1] {
            let v: Value = serde_json::from_str(l).unwrap();
            let roles = v["roles"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect();
            records.push((cluster.clone(), roles, v["object"].to_string()));
        }
        let end: Value = serde_json::from_str(lines.last().unwrap()).unwrap();
        for k in end["end"]["unreadable"].as_array().unwrap() {
            records.push((cluster.clone(), vec!["unreadable".into()], k.to_string()));
        }
    }
    // Shuffled: a batch's order does not matter.
    records.reverse();
    let roles: Vec<Vec<&str>> = records
        .iter()
        .map(|r| r.1.iter().map(String::as_str).collect())
        .collect();
    let tables = engine.fleet_tables(records.iter().zip(&roles).map(|(r, roles)| FleetRecord {
        cluster: &r.0,
        roles,
        object: &r.2,
    }));
    let w = &tables.workloads;
    assert_eq!(w.cluster.len(), expected.len());
    let mut unreadable = 0;
    for (i, (cluster, row)) in expected.iter().enumerate() {
        let at = format!("row {i}: {row}");
        assert_eq!(&w.cluster[i], cluster, "{at}");
        assert_eq!(w.name[i].as_deref(), row["name"].as_str(), "{at}");
        assert_eq!(w.kind[i].as_deref(), row["kind"].as_str(), "{at}");
        assert_eq!(w.namespace[i].as_deref(), row["namespace"].as_str(), "{at}");
        assert_eq!(w.desired_pods[i], row["pods"].as_u64(), "{at}");
        assert_eq!(w.gpus[i], row["gpus"].as_u64(), "{at}");
        assert_eq!(w.live_pods[i], row["live"]["pods"].as_u64(), "{at}");
        assert_eq!(w.ready_pods[i], row["live"]["ready"].as_u64(), "{at}");
        assert_eq!(w.gpus_held[i], row["live"]["gpus"].as_u64(), "{at}");
        assert_eq!(
            w.owner_state[i].as_deref(),
            row["owner"]["state"].as_str(),
            "{at}"
        );
        assert_eq!(json!(w.statuses[i]), row["statuses"], "{at}");
        assert_eq!(
            w.definition[i].as_deref(),
            row["definition"].as_str(),
            "{at}"
        );
        assert!(w.error_code[i].is_none(), "{at}");
        unreadable += usize::from(w.owner_state[i].as_deref() == Some("unreadable"));
    }
    assert!(unreadable > 0, "no cluster had an unreadable owner");
    // Instances and pods belong to the workloads: every live pod is in
    // the pods table once, under its workload.
    let live: u64 = w.live_pods.iter().flatten().sum();
    assert_eq!(tables.pods.pod.len() as u64, live);
    assert!(!tables.instances.component.is_empty());
    assert_eq!(tables.schema_version, 1);
}

#[test]
fn fleet_records_that_fail_are_rows() {
    use workload_lens::FleetRecord;
    let engine = Engine::new().unwrap();
    let good = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "j", "namespace": "ns", "uid": "j"},
        "spec": {"parallelism": 1, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}})
    .to_string();
    let no_uid =
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "x"}}).to_string();
    let bad_jq = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "y", "namespace": "ns", "uid": "y"},
        "spec": {"parallelism": "many"}})
    .to_string();
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let records = [
        ("a", vec!["object"], good.as_str()),
        ("a", vec!["object"], "{not json"),
        ("a", vec!["object"], "[1, 2]"),
        ("a", vec!["sideways"], good.as_str()),
        ("a", vec![], good.as_str()),
        ("a", vec!["object"], no_uid.as_str()),
        ("a", vec!["unreadable"], "{}"),
        ("b", vec!["object"], bad_jq.as_str()),
        ("b", vec!["object"], deep.as_str()),
    ];
    let t = engine.fleet_tables(records.iter().map(|(c, r, o)| FleetRecord {
        cluster: c,
        roles: r,
        object: o,
    }));
    let w = &t.workloads;
    let rows: Vec<(String, Option<String>, Option<String>)> = (0..w.cluster.len())
        .map(|i| {
            (
                w.cluster[i].clone(),
                w.name[i].clone(),
                w.error_code[i].clone(),
            )
        })
        .collect();
    let r = |c: &str, n: Option<&str>, e: Option<&str>| {
        (c.to_string(), n.map(str::to_string), e.map(str::to_string))
    };
    assert_eq!(
        rows,
        [
            r("a", None, Some("parse")),
            r("a", None, Some("invalid_object")),
            r("a", Some("j"), Some("usage")),
            r("a", Some("j"), Some("usage")),
            r("a", Some("x"), Some("invalid_object")),
            r("a", None, Some("usage")),
            r("a", Some("j"), None),
            r("b", None, Some("limit")),
            rows[8].clone(),
        ]
    );
    // A workload that does not resolve is a row with its identity.
    assert_eq!(w.name[8].as_deref(), Some("y"));
    assert!(w.error_code[8].is_some(), "{:?}", w.error_message[8]);
    assert!(w.desired_pods[8].is_none());
}

/// A record's object is taken as written, wherever its key is, and read
/// when the key is written with escapes; a string value "object" is no key.
#[test]
fn records_are_split_wherever_their_object_is() {
    use workload_lens::{Limits, SnapshotLine, SnapshotLines};
    let header = SnapshotHeader::new("c", "2026-12-06T00:00:00Z").line();
    let object = r#"{"kind":"Pod","metadata":{"name":"a\"}b","labels":{"object":"x"}}}"#;
    for line in [
        format!(r#"{{"roles":["pod","object"],"object":{object}}}"#),
        format!(r#"{{ "object" : {object} , "roles" : ["object"] }}"#),
        format!(r#"{{"roles":["object"],"obj\u0065ct":{object}}}"#),
    ] {
        let mut lines = SnapshotLines::new(&Limits::default());
        lines.read(&header).unwrap();
        let SnapshotLine::Record { object: text, .. } = lines.read(&line).unwrap() else {
            panic!("no record: {line}")
        };
        let got: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            got,
            serde_json::from_str::<Value>(object).unwrap(),
            "{line}"
        );
    }
    let mut lines = SnapshotLines::new(&Limits::default());
    lines.read(&header).unwrap();
    let e = lines
        .read(r#"{"roles":["object"],"object":"object"}"#)
        .unwrap_err();
    assert!(e.message().contains("no object"), "{e}");
}

/// Lines read for a caller that holds the records (the fleet tools) are
/// charged to maxClusterBytes: ten times the 22,000-record namespace above
/// within the defaults is 2.2e5 records; past a small limit, a located
/// limit error.
#[test]
fn records_held_by_the_caller_are_charged() {
    use workload_lens::{Limits, SnapshotLine, SnapshotLines, record_namespace};
    let header = SnapshotHeader::new("c", "2026-12-06T00:00:00Z").line();
    let pod = |i: usize| {
        json!({"roles": ["object", "pod"], "object": {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("p{i}"), "namespace": "big", "uid": format!("p{i}")}}})
        .to_string()
    };
    let mut lines = SnapshotLines::holding(&Limits::default());
    lines.read(&header).unwrap();
    for i in 0..220_000 {
        let line = pod(i);
        let SnapshotLine::Record { object, .. } = lines.read(&line).unwrap() else {
            panic!("no record")
        };
        if i == 0 {
            assert_eq!(record_namespace(&object).as_deref(), Some("big"));
        }
    }
    let small = Limits {
        max_cluster_bytes: 10_000,
        ..Limits::default()
    };
    let mut lines = SnapshotLines::holding(&small);
    lines.read(&header).unwrap();
    let e = (0..1000)
        .try_for_each(|i| lines.read(&pod(i)).map(|_| ()))
        .unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert!(
        e.location().line.is_some_and(|l| l < 200),
        "{:?}",
        e.location()
    );
    // Without holding (the reader, which charges what it keeps itself),
    // nothing is charged here.
    let mut lines = SnapshotLines::new(&small);
    lines.read(&header).unwrap();
    assert!((0..1000).all(|i| lines.read(&pod(i)).is_ok()));
    assert_eq!(
        record_namespace(r#"{"kind":"Node","metadata":{"name":"n"}}"#),
        None
    );
}

/// `describe` and `why` from a snapshot: the engine's description of
/// every workload of the random clusters, run over the snapshot's records,
/// is the live description (the object, its pods, owners, events, the
/// resolved workload, its gang and diagnosis, the warnings), whole and per
/// namespace; a type the capture could not list is refused as the server
/// refused it.
#[test]
fn a_snapshot_describes_each_workload_as_the_live_cluster_did() {
    let engine = Engine::new().unwrap();
    let (mut described, mut with_events, mut refused, mut look_alike_pods) = (0, 0, 0, 0);
    for seed in 1..=30 {
        let server = cluster_of(seed);
        for (namespace, chunk) in [(None, 2), (Some("b"), 500)] {
            let query = ListQuery {
                all_types: true,
                namespace: namespace.map(str::to_string),
                chunk_size: chunk,
                ..ListQuery::default()
            };
            let (_, lines) = live_and_snapshot(&engine, &server, query);
            let mut reader = SnapshotReader::new(&engine);
            for l in &lines {
                reader.feed_line(l).unwrap();
            }
            assert!(reader.end().unwrap().events);
            // The state a fleet table is made from, from the same records.
            let look_alikes = look_alikes_of(&engine, &lines);
            for plural in ["jobsets", "jobs", "deployments", "pods"] {
                for o in &server.objects[plural] {
                    let ns = o["metadata"]["namespace"].as_str().unwrap();
                    if namespace.is_some_and(|n| n != ns) {
                        continue;
                    }
                    let q = DescribeQuery {
                        type_: plural.into(),
                        name: o["metadata"]["name"].as_str().unwrap().into(),
                        namespace: Some(ns.into()),
                        chunk_size: chunk,
                        served: None,
                        skip_definitions: false,
                    };
                    let live = describe_live(&engine, &server, q.clone());
                    let read = reader.describe(&q);
                    if server.forbidden.contains(&plural) {
                        // Readable by name live, but never listed: the
                        // snapshot cannot hold it.
                        let e = read.unwrap_err();
                        assert_eq!(e.code(), ErrorCode::Forbidden, "{}", e.message());
                        refused += 1;
                        continue;
                    }
                    // The pods `describe` lists as not the workload's but
                    // looking like it (its own of an earlier generation
                    // aside): what LiveState::look_alikes gives.
                    if let Ok(d) = &live {
                        let mut strays: Vec<String> = d
                            .resolved()
                            .map(|r| r.stray_pods)
                            .unwrap_or_default()
                            .into_iter()
                            .filter(|p| p.findings.iter().all(|f| f.code != "not-current"))
                            .map(|p| p.name)
                            .collect();
                        strays.sort();
                        let uid = o["metadata"]["uid"].as_str().unwrap();
                        let theirs = look_alikes
                            .iter()
                            .filter(|l| l.workload_uid == uid)
                            .map(|l| l.pod.clone())
                            .collect::<Vec<_>>();
                        if plural != "jobs" {
                            assert_eq!(theirs, strays, "seed {seed}, {plural}/{}", q.name);
                            look_alike_pods += strays.len();
                        }
                    }
                    let (mut live, read) = (outcome(live), outcome(read));
                    // The one difference: a snapshot leaves managedFields out
                    // (of the object, and of what is resolved from it).
                    strip_managed_fields(&mut live);
                    if let Some((at, r, l)) = first_difference(&read, &live, String::new()) {
                        panic!(
                            "seed {seed}, {plural}/{}: at {at}: read {r}, live {l}",
                            q.name
                        );
                    }
                    described += 1;
                    with_events += usize::from(
                        live["description"]["events"]
                            .as_array()
                            .is_some_and(|e| !e.is_empty()),
                    );
                }
            }
        }
    }
    // The random clusters reached what the test is for.
    assert!(described > 300, "{described}");
    assert!(with_events > 100, "{with_events}");
    assert!(refused > 10, "{refused}");
    assert!(look_alike_pods > 50, "{look_alike_pods}");
}

/// A snapshot's records in a [`LiveState`], refreshed: its look-alikes.
fn look_alikes_of(engine: &Engine, lines: &[String]) -> Vec<LookAlike> {
    let mut state = LiveState::new(usize::MAX, None).unwrap();
    let mut unreadable = Vec::new();
    for l in lines {
        let v: Value = serde_json::from_str(l).unwrap();
        if let Some(end) = v.get("end") {
            unreadable = serde_json::from_value(end["unreadable"].clone()).unwrap();
            continue;
        }
        let Some(roles) = v["roles"].as_array() else {
            continue;
        };
        let listed = roles
            .iter()
            .any(|r| ["object", "pod", "owner"].contains(&r.as_str().unwrap()));
        if listed {
            state.apply(engine, "snapshot", &v["object"]);
        }
    }
    state.refresh(engine, &unreadable);
    state.look_alikes()
}

/// A snapshot of one namespace says so when asked for another's workload;
/// one written before snapshots held events says it holds none.
#[test]
fn a_description_says_what_the_snapshot_lacks() {
    let engine = Engine::new().unwrap();
    let server = cluster_of(5);
    let query = ListQuery {
        all_types: true,
        namespace: Some("a".into()),
        ..ListQuery::default()
    };
    let (_, lines) = live_and_snapshot(&engine, &server, query);
    let dep = server.objects["deployments"]
        .iter()
        .find(|o| o["metadata"]["namespace"] == "b")
        .expect("a deployment in b");
    let q = DescribeQuery {
        type_: "deployments".into(),
        name: dep["metadata"]["name"].as_str().unwrap().into(),
        namespace: Some("b".into()),
        chunk_size: 500,
        served: None,
        skip_definitions: false,
    };
    let mut reader = SnapshotReader::new(&engine);
    lines.iter().for_each(|l| reader.feed_line(l).unwrap());
    let e = reader.describe(&q).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert!(
        e.message().ends_with("the snapshot holds only namespace a"),
        "{}",
        e.message()
    );

    // A snapshot of every namespace: where it has one of that name.
    let (_, whole) = live_and_snapshot(
        &engine,
        &server,
        ListQuery {
            all_types: true,
            ..ListQuery::default()
        },
    );
    let mut all = SnapshotReader::new(&engine);
    whole.iter().for_each(|l| all.feed_line(l).unwrap());
    let elsewhere = DescribeQuery {
        namespace: Some("c".into()),
        ..q.clone()
    };
    let e = all.describe(&elsewhere).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NotFound);
    assert!(
        e.message()
            .ends_with("the snapshot has one in namespace b (-n b)"),
        "{}",
        e.message()
    );

    // The same snapshot without its events, and an end that does not say
    // it recorded them: as written before they were.
    let mut old = SnapshotReader::new(&engine);
    let kept: Vec<&String> = lines
        .iter()
        .filter(|l| !l.starts_with("{\"roles\":[\"event\"]"))
        .collect();
    for (i, l) in kept.iter().enumerate() {
        if i + 1 == kept.len() {
            let mut end: Value = serde_json::from_str(l).unwrap();
            end["end"].as_object_mut().unwrap().remove("events");
            end["end"]["records"] = json!(kept.len() - 2);
            old.feed_line(&end.to_string()).unwrap();
        } else {
            old.feed_line(l).unwrap();
        }
    }
    let q = DescribeQuery {
        namespace: Some("a".into()),
        name: server.objects["deployments"]
            .iter()
            .find(|o| o["metadata"]["namespace"] == "a")
            .expect("a deployment in a")["metadata"]["name"]
            .as_str()
            .unwrap()
            .into(),
        ..q
    };
    let d = old.describe(&q).unwrap();
    assert!(d.events.is_empty());
    assert!(
        d.warnings
            .iter()
            .any(|w| w.reason == "snapshot" && w.message.contains("holds no events")),
        "{:?}",
        d.warnings
    );
}

/// The live description of `q`.
fn describe_live(
    engine: &Engine,
    server: &Server,
    q: DescribeQuery,
) -> workload_lens::Result<Description> {
    let mut session = engine.cluster_session(ClusterOp::Describe(q));
    while !session.is_done() {
        let replies: Vec<Reply> = session
            .requests()
            .iter()
            .map(|r| server.answer(&r.path))
            .collect();
        session.feed(replies)?;
    }
    match session.finish()? {
        ClusterOutcome::Description(d) => Ok(*d),
        _ => panic!("not a description"),
    }
}

/// A description's answers (its JSON, with the resolved workload, gang
/// and diagnosis), or its error's code and message.
fn outcome(d: workload_lens::Result<Description>) -> Value {
    match d {
        Ok(d) => match ClusterOutcome::Description(Box::new(d)).to_value() {
            Ok(v) => json!({ "description": v }),
            Err(e) => json!({"value error": e.code().as_str(), "message": e.message()}),
        },
        Err(e) => json!({"error": e.code().as_str(), "message": e.message()}),
    }
}

/// Where two values first differ: the JSON pointer and both sides.
fn first_difference(a: &Value, b: &Value, at: String) -> Option<(String, Value, Value)> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.keys().chain(y.keys()).find_map(|k| {
            let (l, r) = (x.get(k), y.get(k));
            match (l, r) {
                (Some(l), Some(r)) => first_difference(l, r, format!("{at}/{k}")),
                _ => Some((
                    format!("{at}/{k}"),
                    l.cloned().unwrap_or(Value::Null),
                    r.cloned().unwrap_or(Value::Null),
                )),
            }
        }),
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (l, r))| first_difference(l, r, format!("{at}/{i}"))),
        _ if a == b => None,
        _ => Some((at, a.clone(), b.clone())),
    }
}

fn strip_managed_fields(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.remove("managedFields");
            m.values_mut().for_each(strip_managed_fields);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_managed_fields),
        _ => {}
    }
}

/// Describing a workload of a large snapshot in pages of one pod reads
/// each record a bounded number of times: the answers come from an index
/// built once (a page starts where its continue token says, an object is
/// found by name), and every record read is a step of `maxSteps`. Before,
/// each of the 20,000 pages walked the namespace's records from the first.
#[test]
fn describing_from_a_large_snapshot_in_pages_of_one_is_linear_in_its_records() {
    let mut lines = large_snapshot();
    let records = lines.len() as u64 - 2;
    // The types the server served, so that `jobs` can be asked for.
    let served = |group: &str, kind: &str, plural: &str| {
        json!({"group": group, "version": "v1", "kind": kind, "plural": plural,
               "namespaced": true, "preferred": true})
    };
    *lines.last_mut().unwrap() = json!({"end": {"records": records, "events": true,
        "served": [served("batch", "Job", "jobs"), served("", "Pod", "pods"),
                   served("", "Event", "events")]}})
    .to_string();
    let describe = |max_steps: u64, chunk_size: usize| {
        let engine = Engine::builder()
            .limits(Limits {
                max_steps,
                ..Limits::default()
            })
            .build()
            .unwrap();
        let mut reader = SnapshotReader::new(&engine);
        lines.iter().for_each(|l| reader.feed_line(l).unwrap());
        reader.describe(&DescribeQuery {
            type_: "jobs".into(),
            name: "job1999".into(),
            namespace: Some("big".into()),
            chunk_size,
            served: None,
            skip_definitions: false,
        })
    };
    let pods = |d: &Description| {
        let mut names: Vec<String> = d
            .items
            .iter()
            .filter(|o| o["kind"] == "Pod")
            .map(|o| o["metadata"]["name"].as_str().unwrap().to_string())
            .collect();
        names.sort();
        names
    };
    let paged = describe(Limits::default().max_steps, 500).unwrap();
    // The namespace's pods, of which the Job's ten are placed.
    assert_eq!(pods(&paged).len(), 20_000);
    let placed = serde_json::to_value(paged.resolved().unwrap().totals).unwrap();
    assert_eq!(placed["pods"], 10, "{placed}");
    // Pages of one: over 22,000 answers, within three steps a record, and
    // the same description.
    let one = describe(3 * records, 1).unwrap();
    assert_eq!(pods(&one), pods(&paged));
    assert_eq!(
        serde_json::to_value(&one).unwrap(),
        serde_json::to_value(&paged).unwrap()
    );
    // The steps are charged: far fewer end the description as a located
    // limit, not a hang.
    let e = describe(records / 2, 1).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert!(e.message().contains("maxSteps"), "{}", e.message());
}
