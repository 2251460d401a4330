//! The live-cluster rules (engine/src/cluster.rs): type tokens, covered
//! types, definitions stored in the cluster, listings with the owner-chain
//! rule, and the owner kinds to fetch. The front ends' tests run the same
//! rules against a real API server (scripts/live.sh).

use serde_json::{Value, json};
use workload_lens::{
    ApiResource, Engine, ErrorCode, ListOptions, Origin, OwnerKind, WorkloadStatus, missing_owners,
};

fn res(group: &str, version: &str, kind: &str, plural: &str, short: &[&str]) -> ApiResource {
    ApiResource {
        group: group.into(),
        version: version.into(),
        kind: kind.into(),
        plural: plural.into(),
        singular: kind.to_lowercase(),
        short_names: short.iter().map(|s| s.to_string()).collect(),
        namespaced: true,
        preferred: true,
    }
}

fn top() -> ListOptions {
    ListOptions {
        top_level_only: true,
        ..ListOptions::default()
    }
}

fn served() -> Vec<ApiResource> {
    let mut old = res("jobset.x-k8s.io", "v1alpha1", "JobSet", "jobsets", &[]);
    old.preferred = false;
    vec![
        res("", "v1", "Pod", "pods", &["po"]),
        res("", "v1", "Service", "services", &["svc"]),
        res("batch", "v1", "Job", "jobs", &[]),
        res(
            "batch.volcano.sh",
            "v1alpha1",
            "Job",
            "jobs",
            &["vcjob", "vj"],
        ),
        res("apps", "v1", "Deployment", "deployments", &["deploy"]),
        old,
        res("jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets", &[]),
        res(
            "leaderworkerset.x-k8s.io",
            "v1",
            "LeaderWorkerSet",
            "leaderworkersets",
            &["lws"],
        ),
        res("example.com", "v1", "Widget", "widgets", &["js"]),
        res("a.example.com", "v1", "Trainer", "trainers", &[]),
        res("b.example.com", "v1", "Trainer", "trainers", &[]),
    ]
}

#[test]
fn type_tokens_resolve_leniently() {
    let engine = Engine::new().unwrap();
    let served = served();
    let find = |t: &str| engine.find_type(t, &served).map(|r| r.qualified());
    for token in [
        "jobsets",
        "JobSet",
        "jobset",
        "JOBSETS",
        "jobsets.jobset.x-k8s.io",
    ] {
        assert_eq!(
            find(token).unwrap(),
            "JobSet.v1alpha2.jobset.x-k8s.io",
            "{token}"
        );
    }
    // A version given picks it, preferred or not.
    assert_eq!(
        find("jobset.v1alpha1.jobset.x-k8s.io").unwrap(),
        "JobSet.v1alpha1.jobset.x-k8s.io"
    );
    assert_eq!(
        find("lws").unwrap(),
        "LeaderWorkerSet.v1.leaderworkerset.x-k8s.io"
    );
    assert_eq!(find("po").unwrap(), "Pod.v1");
    assert_eq!(find("deploy").unwrap(), "Deployment.v1.apps");
    // `jobs` names batch's Job and Volcano's: the built-in group wins, as in
    // kubectl; Volcano's by its short name or group.
    assert_eq!(find("jobs").unwrap(), "Job.v1.batch");
    assert_eq!(find("vcjob").unwrap(), "Job.v1alpha1.batch.volcano.sh");
    assert_eq!(
        find("jobs.batch.volcano.sh").unwrap(),
        "Job.v1alpha1.batch.volcano.sh"
    );
}

#[test]
fn type_token_errors_say_what_to_do() {
    let engine = Engine::new().unwrap();
    let served = served();
    let e = engine.find_type("nosuch", &served).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert!(
        e.message().contains("does not serve a type named 'nosuch'"),
        "{e}"
    );

    let e = engine.find_type("trainers", &served).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert!(
        e.message()
            .contains("Trainer.v1.a.example.com, Trainer.v1.b.example.com"),
        "{e}"
    );

    // Served, but no definition covers it.
    let e = engine.find_type("svc", &served).unwrap_err();
    assert_eq!(e.code(), ErrorCode::NoDefinition);
    assert!(
        e.message().contains("no definition covers Service (v1)"),
        "{e}"
    );
    assert!(engine.find_type("  ", &served).is_err());
}

#[test]
fn an_exact_kind_beats_another_types_short_name() {
    let mut engine = Engine::new().unwrap();
    // A kind named `Lws` whose definition exists: the token `lws` names it,
    // not the LeaderWorkerSet whose short name is `lws`.
    let text = include_str!("../../definitions/leaderworkerset-x-k8s-io-leaderworkerset-v1.yaml")
        .replace("leaderworkerset.x-k8s.io", "example.com")
        .replace("kind: LeaderWorkerSet", "kind: Lws");
    engine.add_definitions(&text).unwrap();
    let mut served = served();
    served.push(res("example.com", "v1", "Lws", "lwses", &[]));
    assert_eq!(
        engine.find_type("lws", &served).unwrap().qualified(),
        "Lws.v1.example.com"
    );
    // Without it, `lws` is the short name again.
    served.pop();
    assert_eq!(
        engine.find_type("lws", &served).unwrap().kind,
        "LeaderWorkerSet"
    );
}

#[test]
fn covered_types_are_one_per_group_and_kind_at_the_preferred_version() {
    let engine = Engine::new().unwrap();
    let covered: Vec<String> = engine
        .covered_types(&served())
        .iter()
        .map(|r| r.qualified())
        .collect();
    assert_eq!(
        covered,
        [
            "Deployment.v1.apps",
            "Job.v1.batch",
            "Job.v1alpha1.batch.volcano.sh",
            "JobSet.v1alpha2.jobset.x-k8s.io",
            "LeaderWorkerSet.v1.leaderworkerset.x-k8s.io",
            "Pod.v1",
        ]
    );
}

fn jobset(name: &str, uid: &str, created: &str) -> Value {
    let text = include_str!("../../examples/jobset.yaml");
    let mut v: Value = Engine::new().unwrap().read_object(text).unwrap();
    v["metadata"]["name"] = json!(name);
    v["metadata"]["uid"] = json!(uid);
    v["metadata"]["creationTimestamp"] = json!(created);
    v
}

fn owned(api_version: &str, kind: &str, name: &str, uid: &str, owner: (&str, &str, &str)) -> Value {
    json!({
        "apiVersion": api_version, "kind": kind,
        "metadata": {"name": name, "namespace": "ml-team", "uid": uid,
            "creationTimestamp": "2026-12-01T00:00:00Z",
            "ownerReferences": [{"apiVersion": owner.0, "kind": owner.1, "name": "x",
                "uid": owner.2, "controller": true}]},
        "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
    })
}

#[test]
fn listings_are_by_namespace_and_name_with_totals_and_statuses() {
    let engine = Engine::new().unwrap();
    let mut running = jobset("b-running", "u-b", "2026-12-02T00:00:00Z");
    running["status"] = json!({"conditions": [], "replicatedJobsStatus": [
        {"name": "leader", "active": 1, "ready": 1}, {"name": "worker", "active": 2, "ready": 2}]});
    let objects = vec![
        jobset("a-old", "u-a", "2026-11-01T00:00:00Z"),
        running,
        jobset("c-new", "u-c", "2026-12-03T00:00:00Z"),
    ];
    let mut other_ns = jobset("a-other", "u-o", "2026-12-04T00:00:00Z");
    other_ns["metadata"]["namespace"] = json!("team-b");
    let mut objects = objects;
    objects.insert(0, other_ns);
    // As kubectl orders them: by namespace, then name.
    let rows = engine.list_workloads(&objects, &[], &top());
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["a-old", "b-running", "c-new", "a-other"]);
    for r in &rows {
        assert_eq!((r.pods, r.gpus), (3, 12), "{}", r.name);
        assert_eq!(
            r.definition.as_deref(),
            Some("jobset-x-k8s-io-jobset-v1alpha2")
        );
        assert_eq!(r.origin, Some(Origin::Catalog));
        assert!(r.error.is_none());
    }
    assert!(!rows[1].statuses.is_empty());
    assert_ne!(rows[1].statuses, [WorkloadStatus::Undefined]);
}

#[test]
fn a_row_with_an_error_does_not_stop_the_listing() {
    let engine = Engine::new().unwrap();
    let mut broken = jobset("broken", "u-x", "2026-12-01T00:00:00Z");
    broken["spec"]["replicatedJobs"] = json!("not a list");
    let objects = vec![broken, jobset("fine", "u-y", "2026-12-01T00:00:00Z")];
    let rows = engine.list_workloads(&objects, &[], &ListOptions::default());
    assert_eq!(rows.len(), 2);
    let broken = rows.iter().find(|r| r.name == "broken").unwrap();
    assert!(broken.error.is_some());
    assert_eq!(
        broken.definition.as_deref(),
        Some("jobset-x-k8s-io-jobset-v1alpha2")
    );
    assert!(
        rows.iter()
            .find(|r| r.name == "fine")
            .unwrap()
            .error
            .is_none()
    );
}

#[test]
fn top_level_listings_leave_out_objects_a_covered_object_controls() {
    let engine = Engine::new().unwrap();
    let js = jobset("llama", "u-js", "2026-12-01T00:00:00Z");
    let job = owned(
        "batch/v1",
        "Job",
        "llama-worker-0",
        "u-job",
        ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js"),
    );
    // A covered controller ends the chain even when it was not listed (a
    // JobSet of a type the user did not ask for, or one already deleted).
    let orphan = owned(
        "batch/v1",
        "Job",
        "orphan",
        "u-o",
        ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-gone"),
    );
    // Through an uncovered owner that was given: Job -> Foo -> JobSet.
    let foo = owned(
        "example.com/v1",
        "Foo",
        "foo",
        "u-foo",
        ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js"),
    );
    let via_foo = owned(
        "batch/v1",
        "Job",
        "via-foo",
        "u-vf",
        ("example.com/v1", "Foo", "u-foo"),
    );
    // An uncovered owner that was not given: the chain cannot be followed,
    // so the Job is listed.
    let via_missing = owned(
        "batch/v1",
        "Job",
        "via-missing",
        "u-vm",
        ("example.com/v1", "Foo", "u-nope"),
    );
    // A cycle of uncovered owners ends.
    let c1 = owned(
        "example.com/v1",
        "Foo",
        "c1",
        "u-c1",
        ("example.com/v1", "Foo", "u-c2"),
    );
    let c2 = owned(
        "example.com/v1",
        "Foo",
        "c2",
        "u-c2",
        ("example.com/v1", "Foo", "u-c1"),
    );
    let in_cycle = owned(
        "batch/v1",
        "Job",
        "in-cycle",
        "u-ic",
        ("example.com/v1", "Foo", "u-c1"),
    );
    let objects = vec![js, job, orphan, via_foo, via_missing, in_cycle];
    let owners = vec![foo, c1, c2];
    let mut top: Vec<String> = engine
        .list_workloads(&objects, &owners, &top())
        .into_iter()
        .map(|r| r.name)
        .collect();
    top.sort();
    assert_eq!(top, ["in-cycle", "llama", "via-missing"]);
    // The first step of the rule, for front ends that drop objects early.
    let early: Vec<bool> = objects
        .iter()
        .map(|o| engine.controlled_by_covered(o))
        .collect();
    assert_eq!(early, [false, true, true, false, false, false]);
    assert_eq!(
        engine
            .list_workloads(&objects, &owners, &ListOptions::default())
            .len(),
        6
    );
}

#[test]
fn long_owner_chains_are_walked_once() {
    // 50,000 uncovered owners in one chain (10x a large cluster's
    // workloads), each controlling a Job: memoized, the walk is linear; a
    // walk per Job would be 1.25e9 steps.
    const N: usize = 50_000;
    let engine = Engine::new().unwrap();
    let mut owners = Vec::with_capacity(N);
    let mut objects = Vec::with_capacity(N);
    for i in 0..N {
        let parent = if i == 0 {
            ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-root".to_string())
        } else {
            ("example.com/v1", "Foo", format!("f{}", i - 1))
        };
        owners.push(owned(
            "example.com/v1",
            "Foo",
            &format!("foo{i}"),
            &format!("f{i}"),
            (parent.0, parent.1, &parent.2),
        ));
        if i % 10 == 0 {
            objects.push(owned(
                "batch/v1",
                "Job",
                &format!("job{i}"),
                &format!("j{i}"),
                ("example.com/v1", "Foo", &format!("f{i}")),
            ));
        }
    }
    // Reverse, so that the deepest Job is walked first.
    objects.reverse();
    let start = std::time::Instant::now();
    let rows = engine.list_workloads(&objects, &owners, &top());
    assert!(rows.is_empty());
    // Not a timing assertion of speed, a guard against the quadratic walk:
    // the linear one takes milliseconds.
    assert!(start.elapsed().as_secs() < 60);
}

#[test]
fn missing_owners_are_the_kinds_to_fetch_next() {
    let pods = vec![
        owned("v1", "Pod", "p1", "u-p1", ("batch/v1", "Job", "u-j1")),
        owned("v1", "Pod", "p2", "u-p2", ("batch/v1", "Job", "u-j2")),
        owned("v1", "Pod", "p3", "u-p3", ("apps/v1", "ReplicaSet", "u-rs")),
        owned(
            "v1",
            "Pod",
            "p4",
            "u-p4",
            ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js"),
        ),
    ];
    let skip = [OwnerKind {
        api_version: "jobset.x-k8s.io/v1alpha2".into(),
        kind: "JobSet".into(),
    }];
    let kinds = missing_owners(&pods, &skip);
    assert_eq!(
        kinds,
        [
            OwnerKind {
                api_version: "apps/v1".into(),
                kind: "ReplicaSet".into()
            },
            OwnerKind {
                api_version: "batch/v1".into(),
                kind: "Job".into()
            },
        ]
    );
    // Once the Jobs are given, their JobSet is the only owner missing, and
    // it is skipped.
    let mut items = pods.clone();
    items.push(owned(
        "batch/v1",
        "Job",
        "j1",
        "u-j1",
        ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js"),
    ));
    items.push(owned(
        "batch/v1",
        "Job",
        "j2",
        "u-j2",
        ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-js"),
    ));
    items.push(owned(
        "apps/v1",
        "ReplicaSet",
        "rs",
        "u-rs",
        ("apps/v1", "Deployment", "u-d"),
    ));
    assert_eq!(
        missing_owners(&items, &skip),
        [OwnerKind {
            api_version: "apps/v1".into(),
            kind: "Deployment".into()
        }]
    );
}

fn karta(name: &str, text: &str) -> Value {
    let engine = Engine::new().unwrap();
    let mut v = engine.read_object(text).unwrap();
    v["metadata"]["name"] = json!(name);
    v["metadata"]["uid"] = json!(format!("uid-{name}"));
    v["metadata"]["managedFields"] = json!([{"manager": "kubectl"}]);
    v["metadata"]["resourceVersion"] = json!("12");
    v["status"] = json!({"conditions": []});
    v
}

#[test]
fn cluster_definitions_override_the_catalog_and_warn() {
    let base = Engine::new().unwrap();
    let text = include_str!("../../definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml");
    let good = karta("jobset-custom", text);
    let later = karta("jobset-zz", text);
    let mut invalid = karta("jobset-bad", text);
    invalid["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"] =
        json!({"phaseDefinition": {"path": ".status | ["}});
    let (engine, warnings) = base.with_cluster_definitions(&[later, invalid, good]);
    let d = engine
        .lookup(&workload_lens::Gvk {
            group: "jobset.x-k8s.io".into(),
            version: "v1alpha2".into(),
            kind: "JobSet".into(),
        })
        .unwrap();
    assert_eq!((d.name(), d.origin()), ("jobset-custom", Origin::Cluster));
    let reasons: Vec<(&str, &str)> = warnings
        .iter()
        .map(|w| (w.reason.as_str(), w.object.as_str()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("invalid", "Karta/jobset-bad"),
            ("collision", "Karta/jobset-zz")
        ]
    );
    assert!(
        warnings[1]
            .message
            .contains("Karta/jobset-custom (first by name) is used"),
        "{:?}",
        warnings[1]
    );
    // The base engine is unchanged, and a user definition added afterwards
    // wins over the cluster's.
    let catalog = base.definition_for(&jobset("x", "u", "t")).unwrap();
    assert_eq!(catalog.origin(), Origin::Catalog);
    let mut engine = engine;
    engine.add_definitions(text).unwrap();
    assert_eq!(
        engine
            .definition_for(&jobset("x", "u", "t"))
            .unwrap()
            .origin(),
        Origin::User
    );
    // A user definition already in the engine stays over the cluster's.
    let mut with_user = Engine::new().unwrap();
    with_user.add_definitions(text).unwrap();
    let (engine, _) = with_user.with_cluster_definitions(&[karta("jobset-custom", text)]);
    assert_eq!(
        engine
            .definition_for(&jobset("x", "u", "t"))
            .unwrap()
            .origin(),
        Origin::User
    );
    // The summary row names the cluster definition.
    let (engine, _) = base.with_cluster_definitions(&[karta("jobset-custom", text)]);
    let row = engine.summarize(&jobset("x", "u", "t"));
    assert_eq!(row.origin, Some(Origin::Cluster));
    assert_eq!(row.definition.as_deref(), Some("jobset-custom"));
}

#[test]
fn phase_filters_and_usage() {
    let engine = Engine::new().unwrap();
    let mut running = jobset("run", "u-r", "2026-12-02T00:00:00Z");
    running["status"] = json!({"conditions": [], "replicatedJobsStatus": [
        {"name": "leader", "active": 1, "ready": 1}, {"name": "worker", "active": 2, "ready": 2}]});
    let mut other = jobset("other", "u-o", "2026-12-01T00:00:00Z");
    other["metadata"]["namespace"] = json!("team-b");
    other["status"] = json!({"conditions": [{"type": "Completed", "status": "True"}]});
    let mut broken = jobset("broken", "u-x", "2026-12-01T00:00:00Z");
    broken["spec"]["replicatedJobs"] = json!("not a list");
    let objects = vec![running, other, broken];
    let all = engine.list_workloads(&objects, &[], &ListOptions::default());
    let run = all.iter().find(|r| r.name == "run").unwrap();
    let statuses = format!("{:?}", run.statuses[0]);
    let only = ListOptions {
        phases: vec![statuses.to_uppercase()],
        ..ListOptions::default()
    };
    let kept = engine.list_workloads(&objects, &[], &only);
    assert_eq!(
        kept.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["run"]
    );
    let completed = ListOptions {
        phases: vec!["completed".into(), "Suspended".into()],
        ..ListOptions::default()
    };
    let kept = engine.list_workloads(&objects, &[], &completed);
    assert_eq!(
        kept.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["other"]
    );
    let none = ListOptions {
        phases: vec!["Suspended".into()],
        ..ListOptions::default()
    };
    assert!(engine.list_workloads(&objects, &[], &none).is_empty());

    let u = workload_lens::usage(&all);
    assert_eq!(
        (
            u.total.workloads,
            u.total.pods,
            u.total.gpus,
            u.total.errors
        ),
        (3, 3, 12, 1)
    );
    // The completed JobSet declares nothing: inactive.
    assert_eq!((u.total.inactive, u.total.inactive_gpus), (1, 12));
    let ns: Vec<(&str, u64, u64, u64)> = u
        .by_namespace
        .iter()
        .map(|r| (r.key.as_str(), r.workloads, r.gpus, r.inactive_gpus))
        .collect();
    assert_eq!(ns, [("ml-team", 2, 12, 0), ("team-b", 1, 0, 12)]);
    assert_eq!(u.by_type.len(), 1);
    assert_eq!(u.by_type[0].key, "JobSet.jobset.x-k8s.io");
}

fn pod(name: &str, labels: Value, owner: Option<(&str, &str, &str)>) -> Value {
    let mut p = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml-team", "uid": format!("uid-{name}"), "labels": labels},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running"}
    });
    if let Some((a, k, u)) = owner {
        p["metadata"]["ownerReferences"] =
            json!([{"apiVersion": a, "kind": k, "name": "x", "uid": u, "controller": true}]);
    }
    p
}

#[test]
fn a_namespace_s_pods_leave_out_other_workloads_but_not_look_alikes() {
    let engine = Engine::new().unwrap();
    let object = engine
        .read_object(include_str!("../../examples/jobset.yaml"))
        .unwrap();
    let uid = object["metadata"]["uid"].as_str().unwrap().to_string();
    let mut items = engine
        .read_objects(include_str!("../../examples/jobset-pods.yaml"))
        .unwrap();
    // The JobSet's pods are controlled by its Jobs.
    for (n, p) in items.iter_mut().enumerate() {
        p["metadata"]["ownerReferences"] = json!([{"apiVersion": "batch/v1", "kind": "Job",
            "name": "j", "uid": format!("job-{n}"), "controller": true}]);
    }
    for n in 0..items.len() {
        items.push(owned(
            "batch/v1",
            "Job",
            &format!("job{n}"),
            &format!("job-{n}"),
            ("jobset.x-k8s.io/v1alpha2", "JobSet", &uid),
        ));
    }
    let ours = json!({"jobset.sigs.k8s.io/jobset-name": "llama-pretrain",
        "jobset.sigs.k8s.io/replicatedjob-name": "worker", "jobset.sigs.k8s.io/job-index": "1"});
    // Another workload's pod: left out. A pod with this workload's labels
    // but another controller: a stray. A pod of another workload chained
    // through a pod (as a LeaderWorkerSet's workers are): left out.
    items.push(pod(
        "bert-0",
        json!({"app": "bert"}),
        Some(("kubeflow.org/v1", "PyTorchJob", "u-bert")),
    ));
    items.push(pod(
        "look-alike",
        ours.clone(),
        Some(("batch/v1", "Job", "u-other")),
    ));
    items.push(owned(
        "batch/v1",
        "Job",
        "other",
        "u-other",
        ("v1", "Pod", "uid-leader"),
    ));
    items.push(pod(
        "leader",
        json!({}),
        Some(("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "u-lws")),
    ));
    items.push(
        json!({"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm", "namespace": "ml-team", "uid": "u-lws"}}),
    );

    let r = engine.resolve_in_namespace(&object, &items).unwrap();
    let strays: Vec<&str> = r.stray_pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(strays, ["look-alike"]);
    assert!(
        r.stray_pods[0].findings[0]
            .message
            .contains("LeaderWorkerSet vllm"),
        "{:?}",
        r.stray_pods[0]
    );
    let placed: usize = r
        .components
        .iter()
        .flat_map(|c| &c.instances)
        .filter_map(|i| i.live.as_ref())
        .map(|l| l.pods.len())
        .sum();
    assert_eq!(placed, 3);
    assert!(r.unattributed_pods.as_ref().unwrap().is_empty());
    // Given as a workload's pods (file mode), every other pod is a stray.
    let r = engine.resolve_with_pods(&object, &items).unwrap();
    let mut strays: Vec<&str> = r.stray_pods.iter().map(|p| p.name.as_str()).collect();
    strays.sort();
    assert_eq!(strays, ["bert-0", "leader", "look-alike"]);
}

/// Live ownership (issue 32): a pod with no controller, or whose controller
/// is gone, is never another workload's pod; it is a look-alike only when
/// it carries the workload's naming labels; the workload's own owners are
/// neither its pods nor look-alikes.
#[test]
fn live_pods_without_a_living_controller_are_never_a_workloads() {
    let engine = Engine::new().unwrap();
    let object = engine
        .read_object(include_str!("../../examples/jobset.yaml"))
        .unwrap();
    let uid = object["metadata"]["uid"].as_str().unwrap().to_string();
    let name = object["metadata"]["name"].as_str().unwrap().to_string();
    let ours = json!({"jobset.sigs.k8s.io/jobset-name": name,
        "jobset.sigs.k8s.io/replicatedjob-name": "worker", "jobset.sigs.k8s.io/job-index": "1"});
    let items = vec![
        // Labelled as a worker, but nothing controls it.
        pod("ownerless", ours.clone(), None),
        // Its Job was deleted: the chain ends at an owner that is not there.
        pod(
            "orphan",
            ours.clone(),
            Some(("batch/v1", "Job", "u-deleted-job")),
        ),
        // Its controller is a JobSet of this name but an earlier uid.
        {
            let mut p = pod("stale", ours.clone(), None);
            p["metadata"]["ownerReferences"] = json!([{"apiVersion": "jobset.x-k8s.io/v1alpha2",
                "kind": "JobSet", "name": name, "uid": "u-earlier", "controller": true}]);
            p
        },
        // A bare pod of the namespace with no labels of ours: not shown.
        pod("bystander", json!({"app": "x"}), None),
    ];
    let r = engine.resolve_in_namespace(&object, &items).unwrap();
    let placed: usize = r
        .components
        .iter()
        .flat_map(|c| &c.instances)
        .filter_map(|i| i.live.as_ref())
        .map(|l| l.pods.len())
        .sum();
    assert_eq!(placed, 0, "no pod is the workload's");
    let strays: Vec<(&str, &str)> = r
        .stray_pods
        .iter()
        .map(|p| (p.name.as_str(), p.findings[0].message.as_str()))
        .collect();
    assert_eq!(strays.len(), 3, "{strays:?}");
    assert!(strays[0].0 == "ownerless" && strays[0].1.contains("no controller"));
    assert!(strays[1].0 == "orphan" && strays[1].1.contains("Job x was not found"));
    assert!(strays[2].0 == "stale" && strays[2].1.contains("of another uid (u-earlier)"));
    assert_ne!(uid, "u-earlier");
    // Given as the workload's pods (file mode, pods written by hand), the
    // labels still decide for a pod without owners.
    let r = engine.resolve_with_pods(&object, &items[..1]).unwrap();
    assert!(r.stray_pods.is_empty());
}

#[test]
fn live_look_alikes_need_the_workloads_labels_and_its_owners_are_not_pods() {
    let engine = Engine::new().unwrap();
    // A bare Pod described in a namespace of other pods: a Pod names its
    // workload by no labels, so none of them is a look-alike.
    let bare = pod("solo", json!({"app": "solo"}), None);
    let items = vec![
        bare.clone(),
        pod("a", json!({"app": "a"}), None),
        pod("b", json!({}), Some(("apps/v1", "ReplicaSet", "u-rs"))),
    ];
    let r = engine.resolve_in_namespace(&bare, &items).unwrap();
    assert!(r.stray_pods.is_empty(), "{:?}", r.stray_pods);
    // ...and the Pod described is its own pod (it has no controller chain
    // leading to itself): 1/1, not 0/1.
    let own: Vec<&str> = r
        .components
        .iter()
        .flat_map(|c| &c.instances)
        .filter_map(|i| i.live.as_ref())
        .flat_map(|l| l.pods.iter().map(|p| p.name.as_str()))
        .collect();
    assert_eq!(own, ["solo"]);
    // A LeaderWorkerSet group's StatefulSet is controlled by its leader
    // pod: described, that pod is above it, not a look-alike.
    let leader = pod(
        "vllm-0",
        json!({"leaderworkerset.sigs.k8s.io/name": "vllm"}),
        Some(("apps/v1", "StatefulSet", "u-sts-top")),
    );
    let mut sts = owned(
        "apps/v1",
        "StatefulSet",
        "vllm-0",
        "u-sts-0",
        ("v1", "Pod", "uid-vllm-0"),
    );
    sts["spec"] = json!({"replicas": 1, "selector": {"matchLabels": {"leaderworkerset.sigs.k8s.io/name": "vllm"}},
        "template": {"metadata": {"labels": {"leaderworkerset.sigs.k8s.io/name": "vllm"}},
                     "spec": {"containers": [{"name": "c", "image": "i"}]}}});
    let worker = pod(
        "vllm-0-1",
        json!({"leaderworkerset.sigs.k8s.io/name": "vllm"}),
        Some(("apps/v1", "StatefulSet", "u-sts-0")),
    );
    let items = vec![leader, worker, sts.clone()];
    let r = engine.resolve_in_namespace(&sts, &items).unwrap();
    let strays: Vec<&str> = r.stray_pods.iter().map(|p| p.name.as_str()).collect();
    assert!(!strays.contains(&"vllm-0"), "{:?}", r.stray_pods);
    let placed: Vec<&str> = r
        .components
        .iter()
        .flat_map(|c| &c.instances)
        .filter_map(|i| i.live.as_ref())
        .flat_map(|l| l.pods.iter().map(|p| p.name.as_str()))
        .collect();
    assert_eq!(placed, ["vllm-0-1"]);
}

/// Live, the tree leaves out components that can hold no pods: a
/// Deployment's `replicaset` (its pods are the Deployment's own template's)
/// would be an empty row. File mode and `components` keep it.
#[test]
fn live_trees_leave_out_components_that_hold_no_pods() {
    let engine = Engine::new().unwrap();
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "ml-team", "uid": "u-dep"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}},
                              "spec": {"containers": [{"name": "c", "image": "i"}]}}}});
    let rs = owned(
        "apps/v1",
        "ReplicaSet",
        "web-1",
        "u-rs",
        ("apps/v1", "Deployment", "u-dep"),
    );
    let items = vec![
        pod(
            "web-1-a",
            json!({"app": "web"}),
            Some(("apps/v1", "ReplicaSet", "u-rs")),
        ),
        rs,
    ];
    let file = engine.resolve(&deployment).unwrap();
    assert_eq!(file.tree.children.len(), 1);
    let live = engine.resolve_in_namespace(&deployment, &items).unwrap();
    assert!(live.tree.children.is_empty(), "{:?}", live.tree);
    assert!(live.components.iter().any(|c| c.name == "replicaset"));
    assert_eq!(live.totals.pods, 1);
}

/// A live listing (`owners_complete`): an object whose controller is not
/// there is a workload of its own, flagged `orphaned`, or `unreadable` when
/// its owner's type may not be listed; never lost, counted once.
#[test]
fn live_listings_keep_orphans_and_objects_whose_owner_is_unreadable() {
    use workload_lens::{ListOptions, OwnerKind, OwnerStateKind};
    let engine = Engine::new().unwrap();
    let mut held = jobset("sft", "u-sft", "2026-12-03T00:00:00Z");
    held["metadata"]["ownerReferences"] = json!([{"apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob", "name": "sft", "uid": "u-trainjob", "controller": true}]);
    let mut orphan = pod("tune-worker", json!({}), None);
    orphan["metadata"]["ownerReferences"] = json!([{"apiVersion": "ray.io/v1",
        "kind": "RayCluster", "name": "ray-tune", "uid": "u-stale", "controller": true}]);
    orphan["spec"]["containers"][0]["resources"] = json!({"limits": {"nvidia.com/gpu": "1"}});
    let job = owned(
        "batch/v1",
        "Job",
        "j",
        "u-job",
        ("jobset.x-k8s.io/v1alpha2", "JobSet", "u-sft"),
    );
    let controlled = pod("j-0", json!({}), Some(("batch/v1", "Job", "u-job")));
    let ownerless = pod("solo", json!({}), None);
    let objects = vec![held, orphan, job, controlled, ownerless];
    let live = ListOptions {
        top_level_only: true,
        owners_complete: true,
        unreadable: vec![OwnerKind {
            api_version: "trainer.kubeflow.org/v1alpha1".into(),
            kind: "TrainJob".into(),
        }],
        ..ListOptions::default()
    };
    let rows = engine.list_workloads(&objects, &[], &live);
    let mut seen: Vec<(&str, Option<OwnerStateKind>)> = rows
        .iter()
        .map(|r| (r.name.as_str(), r.owner.as_ref().map(|o| o.state)))
        .collect();
    seen.sort_by_key(|(n, _)| *n);
    assert_eq!(
        seen,
        [
            ("sft", Some(OwnerStateKind::Unreadable)),
            ("solo", None),
            ("tune-worker", Some(OwnerStateKind::Orphaned)),
        ]
    );
    let orphan_row = rows.iter().find(|r| r.name == "tune-worker").unwrap();
    let o = orphan_row.owner.as_ref().unwrap();
    assert_eq!(
        (o.kind.as_str(), o.name.as_str(), o.uid.as_str()),
        ("RayCluster", "ray-tune", "u-stale")
    );
    assert_eq!(orphan_row.gpus, 1);
    // Without owners_complete the references are trusted: both are taken
    // as controlled and left out (the library's behaviour for callers that
    // give no owners).
    let trusting = ListOptions {
        top_level_only: true,
        ..ListOptions::default()
    };
    let names: Vec<String> = engine
        .list_workloads(&objects, &[], &trusting)
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(names, ["solo"]);
}

/// Gang groups of a live namespace: a look-alike is in no group, and the
/// pods line up with their attribution whatever the order of pods and
/// owners (owners first, here, and between the pods).
#[test]
fn live_gang_groups_leave_out_look_alikes_whatever_the_order() {
    let engine = Engine::new().unwrap();
    let object = engine
        .read_object(include_str!("../../examples/jobset.yaml"))
        .unwrap();
    let uid = object["metadata"]["uid"].as_str().unwrap().to_string();
    let name = object["metadata"]["name"].as_str().unwrap().to_string();
    let pods = engine
        .read_objects(include_str!("../../examples/jobset-pods.yaml"))
        .unwrap();
    let mut items = Vec::new();
    for (n, mut p) in pods.into_iter().enumerate() {
        items.push(owned(
            "batch/v1",
            "Job",
            &format!("job{n}"),
            &format!("job-{n}"),
            ("jobset.x-k8s.io/v1alpha2", "JobSet", &uid),
        ));
        p["metadata"]["ownerReferences"] = json!([{"apiVersion": "batch/v1", "kind": "Job",
            "name": "j", "uid": format!("job-{n}"), "controller": true}]);
        items.push(p);
    }
    let real = items.iter().filter(|i| i["kind"] == "Pod").count();
    items.insert(
        1,
        pod(
            "look-alike",
            json!({"jobset.sigs.k8s.io/jobset-name": name,
                "jobset.sigs.k8s.io/replicatedjob-name": "worker", "jobset.sigs.k8s.io/job-index": "0"}),
            None,
        ),
    );
    let gang = engine.gang_groups_in_namespace(&object, &items).unwrap();
    let grouped: Vec<&str> = gang
        .groups
        .iter()
        .flat_map(|g| g.members.iter().map(String::as_str))
        .collect();
    assert!(!grouped.contains(&"look-alike"), "{grouped:?}");
    assert_eq!(grouped.len(), real, "{grouped:?}");
    // Each pod's answer is its own: names line up with the pods.
    for p in &gang.pods {
        assert!(
            items
                .iter()
                .any(|i| i["metadata"]["name"] == p.pod.as_str()),
            "{p:?}"
        );
    }
}

/// A live listing's owner states are walked once per owner: 1,000 pods
/// under one chain of 100,000 owners (10x a large namespace's objects)
/// whose top is gone are all flagged orphaned, at the chain's top.
#[test]
fn owner_states_walk_each_owner_once() {
    use workload_lens::{ListOptions, OwnerStateKind};
    let engine = Engine::new().unwrap();
    let n = 100_000;
    let owners: Vec<Value> = (0..n)
        .map(|i| {
            owned(
                "ex.test/v1",
                "Link",
                &format!("l{i}"),
                &format!("link-{i}"),
                ("ex.test/v1", "Link", &format!("link-{}", i + 1)),
            )
        })
        .collect();
    let pods: Vec<Value> = (0..1_000)
        .map(|i| {
            pod(
                &format!("p{i}"),
                json!({}),
                Some(("ex.test/v1", "Link", "link-0")),
            )
        })
        .collect();
    let live = ListOptions {
        top_level_only: true,
        owners_complete: true,
        ..ListOptions::default()
    };
    let rows = engine.list_workloads(&pods, &owners, &live);
    assert_eq!(rows.len(), 1_000);
    let top = format!("link-{n}");
    assert!(rows.iter().all(|r| {
        r.owner
            .as_ref()
            .is_some_and(|o| o.state == OwnerStateKind::Orphaned && o.uid == top)
    }));
}

#[test]
fn types_are_read_at_the_version_their_definition_was_written_for() {
    let engine = Engine::new().unwrap();
    // The server prefers v1alpha1 (say, an older release's CRD); the
    // catalog's RayCluster is written for v1: v1 is read.
    let mut v1 = res("ray.io", "v1", "RayCluster", "rayclusters", &[]);
    v1.preferred = false;
    let served = vec![
        res("ray.io", "v1alpha1", "RayCluster", "rayclusters", &[]),
        v1,
    ];
    let covered: Vec<String> = engine
        .covered_types(&served)
        .iter()
        .map(|r| r.qualified())
        .collect();
    assert_eq!(covered, ["RayCluster.v1.ray.io"]);
    assert_eq!(
        engine.find_type("rayclusters", &served).unwrap().version,
        "v1"
    );
    // Asked for by version, that version it is.
    assert_eq!(
        engine
            .find_type("RayCluster.v1alpha1.ray.io", &served)
            .unwrap()
            .version,
        "v1alpha1"
    );
    // Only a version no definition names is served: the preferred one.
    let only_old = vec![res("ray.io", "v1alpha1", "RayCluster", "rayclusters", &[])];
    assert_eq!(engine.covered_types(&only_old)[0].version, "v1alpha1");
}

/// An InferenceService whose predictor runs between 2 and 4 pods of 1 GPU,
/// with the Deployment it scales (at `replicas`), its ReplicaSet, and
/// `pods` of the ReplicaSet.
fn autoscaled(replicas: i64, pods: usize) -> (Value, Vec<Value>, Vec<Value>) {
    let isvc = json!({
        "apiVersion": "serving.kserve.io/v1beta1", "kind": "InferenceService",
        "metadata": {"name": "llm", "namespace": "ml-team", "uid": "isvc"},
        "spec": {"predictor": {"minReplicas": 2, "maxReplicas": 4, "model": {
            "modelFormat": {"name": "huggingface"},
            "resources": {"limits": {"nvidia.com/gpu": "1"}}}}},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}
    });
    let mut deploy = owned(
        "apps/v1",
        "Deployment",
        "llm-predictor",
        "deploy",
        ("serving.kserve.io/v1beta1", "InferenceService", "isvc"),
    );
    deploy["spec"]["replicas"] = json!(replicas);
    let mut rs = owned(
        "apps/v1",
        "ReplicaSet",
        "llm-predictor-1",
        "rs",
        ("apps/v1", "Deployment", "deploy"),
    );
    rs["spec"]["replicas"] = json!(replicas);
    let labels = json!({"serving.kserve.io/inferenceservice": "llm", "component": "predictor"});
    let pods = (0..pods)
        .map(|i| {
            let mut p = pod(
                &format!("llm-{i}"),
                labels.clone(),
                Some(("apps/v1", "ReplicaSet", "rs")),
            );
            p["spec"]["containers"][0]["resources"] = json!({"limits": {"nvidia.com/gpu": "1"}});
            p["spec"]["nodeName"] = json!("n");
            p["status"]["conditions"] = json!([{"type": "Ready", "status": "True"}]);
            p
        })
        .collect();
    (isvc, vec![deploy, rs], pods)
}

#[test]
fn an_autoscaled_instance_counts_what_the_object_it_scales_declares() {
    let engine = Engine::new().unwrap();
    let (isvc, owners, pods) = autoscaled(3, 3);
    let mut items = pods.clone();
    items.extend(owners.iter().cloned());
    let r = engine.resolve_in_namespace(&isvc, &items).unwrap();
    let predictor = &r
        .components
        .iter()
        .find(|c| c.name == "predictor")
        .unwrap()
        .instances[0];
    assert_eq!(predictor.desired_replicas, 3);
    assert_eq!(predictor.scale.unwrap().min_replicas, Some(2));
    let scale = predictor.live.as_ref().unwrap().scale.as_ref().unwrap();
    assert_eq!((scale.replicas, scale.declared), (3, 2));
    assert_eq!(scale.scaled_by, ["Deployment/llm-predictor"]);
    assert_eq!((r.totals.pods, r.totals.resources.gpu), (3, 3));
    // Without the owners nothing says what the autoscaler wants: declared.
    let r = engine.resolve_with_pods(&isvc, &pods).unwrap();
    assert_eq!(r.totals.pods, 2);
    // Statically, declared.
    assert_eq!(engine.resolve(&isvc).unwrap().totals.pods, 2);
    // Within minReplicas and maxReplicas.
    for (replicas, want) in [(10, 4), (0, 2), (4, 4)] {
        let (isvc, owners, pods) = autoscaled(replicas, 1);
        let mut items = pods;
        items.extend(owners);
        let r = engine.resolve_in_namespace(&isvc, &items).unwrap();
        assert_eq!(r.totals.pods, want, "spec.replicas {replicas}");
    }
}

#[test]
fn live_listings_count_each_workloads_pods_once() {
    let engine = Engine::new().unwrap();
    let (isvc, owners, mut pods) = autoscaled(3, 3);
    // A finished pod holds nothing; a pod whose chain leads to no listed
    // workload is no row's.
    pods[2]["status"]["phase"] = json!("Succeeded");
    pods.push(pod(
        "stray",
        json!({}),
        Some(("apps/v1", "ReplicaSet", "gone")),
    ));
    let mut pending = pod("llm-p", json!({}), Some(("apps/v1", "ReplicaSet", "rs")));
    pending["spec"]["containers"][0]["resources"] = json!({"limits": {"nvidia.com/gpu": "1"}});
    pending["status"]["phase"] = json!("Pending");
    pods.push(pending);
    let rows = engine.list_workloads_with_pods(
        std::slice::from_ref(&isvc),
        &owners,
        Some(&pods),
        &ListOptions::default(),
    );
    let row = &rows[0];
    assert_eq!((row.pods, row.gpus, row.declared_pods), (3, 3, Some(2)));
    let live = row.live.unwrap();
    assert_eq!(
        (live.pods, live.ready, live.gpus, live.pending_gpus),
        (3, 2, 3, 1)
    );
    // Without pods, nothing live and the declared count.
    let rows = engine.list_workloads(
        std::slice::from_ref(&isvc),
        &owners,
        &ListOptions::default(),
    );
    assert_eq!(
        (rows[0].pods, rows[0].live, rows[0].declared_pods),
        (2, None, None)
    );
}

#[test]
fn a_leader_pod_that_owns_workers_is_counted_once() {
    // A LeaderWorkerSet: StatefulSet vllm (of the LWS) → leader pod vllm-0,
    // which controls StatefulSet vllm-0 → worker pod vllm-0-1.
    let engine = Engine::new().unwrap();
    let lws = json!({
        "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": "vllm", "namespace": "ml-team", "uid": "lws"},
        "spec": {"replicas": 1, "leaderWorkerTemplate": {"size": 2,
            "workerTemplate": {"spec": {"containers": [{"name": "w", "image": "i"}]}}}}
    });
    let sts = owned(
        "apps/v1",
        "StatefulSet",
        "vllm",
        "sts",
        ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet", "lws"),
    );
    let leader = pod(
        "vllm-0",
        json!({"leaderworkerset.sigs.k8s.io/name": "vllm"}),
        Some(("apps/v1", "StatefulSet", "sts")),
    );
    let group = owned(
        "apps/v1",
        "StatefulSet",
        "vllm-0",
        "sts-0",
        ("v1", "Pod", "uid-vllm-0"),
    );
    let worker = pod(
        "vllm-0-1",
        json!({"leaderworkerset.sigs.k8s.io/name": "vllm"}),
        Some(("apps/v1", "StatefulSet", "sts-0")),
    );
    let rows = engine.list_workloads_with_pods(
        std::slice::from_ref(&lws),
        &[sts, group],
        Some(&[leader, worker]),
        &ListOptions::default(),
    );
    assert_eq!(rows[0].live.unwrap().pods, 2);
}

#[test]
fn live_listings_walk_each_owner_once_at_10x() {
    // 20,000 pods under one ReplicaSet (10x a large serving fleet's): each
    // owner is walked once, and the row resolves within its budget.
    let engine = Engine::new().unwrap();
    let (isvc, owners, pods) = autoscaled(4, 20_000);
    let rows = engine.list_workloads_with_pods(
        std::slice::from_ref(&isvc),
        &owners,
        Some(&pods),
        &ListOptions::default(),
    );
    match (&rows[0].error, rows[0].live) {
        (None, Some(live)) => assert_eq!(live.pods, 20_000),
        (Some(e), _) => assert_eq!(e.code(), ErrorCode::Limit, "{e}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn top_counts_what_inactive_workloads_declare_apart() {
    let mut running = jobset("a", "ua", "t");
    running["status"] = json!({"conditions": []});
    let mut suspended = jobset("b", "ub", "t");
    suspended["spec"]["suspend"] = json!(true);
    suspended["status"] = json!({"conditions": [{"type": "Suspended", "status": "True"}]});
    let engine = Engine::new().unwrap();
    let rows = engine.list_workloads(&[running, suspended], &[], &ListOptions::default());
    let statuses: Vec<_> = rows.iter().map(|r| r.statuses.clone()).collect();
    assert!(
        statuses[1].contains(&WorkloadStatus::Suspended),
        "{statuses:?}"
    );
    assert!(workload_lens::inactive(&rows[1].statuses));
    assert!(!workload_lens::inactive(&rows[0].statuses));
    let u = workload_lens::usage(&rows);
    assert_eq!(u.total.workloads, 2);
    assert_eq!(u.total.inactive, 1);
    assert_eq!(u.total.gpus, rows[0].gpus);
    assert_eq!(u.total.inactive_gpus, rows[1].gpus);
    assert!(rows[1].gpus > 0);
    assert!(!u.pods_read);
}
