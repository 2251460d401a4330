//! The cluster protocol's state machine (`ClusterSession`) against small
//! servers written here: its bounds (pages, owner rounds), how a caller
//! misusing it is told, and the rules the recorded conformance cases
//! (`conformance/cases/cluster.yaml`) do not reach.

use std::collections::HashMap;

use serde_json::{Value, json};
use workload_lens::{
    ClusterOp, ClusterOutcome, ClusterSession, DefinitionsQuery, DescribeQuery, Engine, ErrorCode,
    Limits, ListQuery, MAX_EVENTS, MAX_GROUP_VERSIONS, MAX_LIST_PAGES, MAX_OWNER_ROUNDS, Reply,
};

fn engine() -> Engine {
    Engine::new().unwrap()
}

/// Discovery of a server with pods, Jobs, JobSets and the owner kinds
/// `ex.test/v1` `Owner0`..`Owner9` (no definition covers them).
fn discovery() -> HashMap<String, Reply> {
    let mut m = HashMap::new();
    m.insert(
        "/api/v1".into(),
        Reply::ok(
            json!({"kind": "APIResourceList", "groupVersion": "v1", "resources": [
                {"name": "pods", "singularName": "pod", "namespaced": true, "kind": "Pod", "shortNames": ["po"]},
                {"name": "pods/status", "singularName": "", "namespaced": true, "kind": "Pod"},
                {"name": "events", "singularName": "event", "namespaced": true, "kind": "Event", "shortNames": ["ev"]}
            ]})
            .to_string(),
        ),
    );
    m.insert(
        "/apis".into(),
        Reply::ok(
            json!({"kind": "APIGroupList", "groups": [
                {"name": "batch", "versions": [{"groupVersion": "batch/v1", "version": "v1"}],
                 "preferredVersion": {"groupVersion": "batch/v1", "version": "v1"}},
                {"name": "jobset.x-k8s.io", "versions": [{"version": "v1alpha2"}],
                 "preferredVersion": {"version": "v1alpha2"}},
                {"name": "ex.test", "versions": [{"version": "v1"}], "preferredVersion": {"version": "v1"}}
            ]})
            .to_string(),
        ),
    );
    m.insert(
        "/apis/batch/v1".into(),
        Reply::ok(
            json!({"resources": [{"name": "jobs", "singularName": "job", "namespaced": true, "kind": "Job"}]})
                .to_string(),
        ),
    );
    m.insert(
        "/apis/jobset.x-k8s.io/v1alpha2".into(),
        Reply::ok(
            json!({"resources": [{"name": "jobsets", "singularName": "jobset", "namespaced": true, "kind": "JobSet"}]})
                .to_string(),
        ),
    );
    let owners: Vec<Value> = (0..10)
        .map(|i| json!({"name": format!("owner{i}s"), "singularName": format!("owner{i}"), "namespaced": true, "kind": format!("Owner{i}")}))
        .collect();
    m.insert(
        "/apis/ex.test/v1".into(),
        Reply::ok(json!({ "resources": owners }).to_string()),
    );
    m
}

fn not_found() -> Reply {
    Reply::status(404, r#"{"kind":"Status","message":"not found","code":404}"#)
}

/// Drive a session to its end against `server`, answering every request
/// with `answer` when it gives one, else from `server`, else 404. Returns
/// the requests made.
fn drive(
    session: &mut ClusterSession,
    server: &HashMap<String, Reply>,
    mut answer: impl FnMut(&str) -> Option<Reply>,
) -> Vec<String> {
    let mut made = Vec::new();
    while !session.is_done() {
        let replies: Vec<Reply> = session
            .requests()
            .iter()
            .map(|r| {
                made.push(r.path.clone());
                answer(&r.path)
                    .or_else(|| server.get(&r.path).cloned())
                    .unwrap_or_else(not_found)
            })
            .collect();
        if session.feed(replies).is_err() {
            break;
        }
    }
    made
}

fn jobsets_query() -> ClusterOp {
    ClusterOp::List(ListQuery {
        type_: Some("jobsets".into()),
        namespace: Some("ml".into()),
        chunk_size: 1,
        ..ListQuery::default()
    })
}

#[test]
fn a_list_that_never_ends_stops_at_the_page_bound() {
    let server = discovery();
    let mut session = engine().cluster_session(jobsets_query());
    let mut n = 0usize;
    // Every page has a new continue token: 10x... the bound is what ends it.
    let made = drive(&mut session, &server, |path| {
        path.contains("/jobsets").then(|| {
            n += 1;
            Reply::ok(format!(
                r#"{{"kind":"JobSetList","metadata":{{"continue":"t{n}"}},"items":[]}}"#
            ))
        })
    });
    let err = session.finish().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Api, "{err}");
    assert!(err.message().contains("100000 pages"), "{err}");
    let pages = made.iter().filter(|p| p.contains("/jobsets")).count();
    assert_eq!(pages, MAX_LIST_PAGES);
}

#[test]
fn a_repeated_continue_token_ends_the_list_at_once() {
    let server = discovery();
    let mut session = engine().cluster_session(jobsets_query());
    let made = drive(&mut session, &server, |path| {
        path.contains("/jobsets").then(|| {
            Reply::ok(r#"{"kind":"JobSetList","metadata":{"continue":"same"},"items":[]}"#)
        })
    });
    let err = session.finish().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Api);
    assert!(
        err.message().contains("repeated the continue token"),
        "{err}"
    );
    assert_eq!(made.iter().filter(|p| p.contains("/jobsets")).count(), 2);
}

/// [`discovery`] with `n` more group versions (`gI.test/v1`) listed by
/// `/apis`, each served with no resources.
fn many_groups(n: usize) -> (HashMap<String, Reply>, impl FnMut(&str) -> Option<Reply>) {
    let mut server = discovery();
    let Reply::Http { body, .. } = &server["/apis"] else {
        unreachable!()
    };
    let mut apis: Value = serde_json::from_str(body).unwrap();
    let groups = apis["groups"].as_array_mut().unwrap();
    groups.extend(
        (0..n).map(|i| json!({"name": format!("g{i}.test"), "versions": [{"version": "v1"}]})),
    );
    server.insert("/apis".into(), Reply::ok(apis.to_string()));
    let empty = |path: &str| {
        (path.starts_with("/apis/g") && path.ends_with(".test/v1"))
            .then(|| Reply::ok(r#"{"kind":"APIResourceList","resources":[]}"#))
    };
    (server, empty)
}

/// A server listing 10x `MAX_GROUP_VERSIONS` group versions: the session
/// refuses at `/apis`, before asking about any of them.
#[test]
fn discovery_stops_at_the_group_version_bound() {
    let (server, answer) = many_groups(10 * MAX_GROUP_VERSIONS);
    let mut session = engine().cluster_session(jobsets_query());
    let made = drive(&mut session, &server, answer);
    assert_eq!(made, ["/api/v1", "/apis"]);
    let err = session.finish().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Api, "{err}");
    assert!(
        err.message()
            .contains("more than 10000 group versions to discover"),
        "{err}"
    );
    assert_eq!(err.location().request.as_deref(), Some("/apis"));
}

/// Exactly `MAX_GROUP_VERSIONS` group versions are discovered, one request
/// each.
#[test]
fn discovery_takes_group_versions_up_to_the_bound() {
    // discovery() has three group versions of its own.
    let (server, answer) = many_groups(MAX_GROUP_VERSIONS - 3);
    let mut session = engine().cluster_session(ClusterOp::Discover);
    let made = drive(&mut session, &server, answer);
    assert_eq!(made.len(), 2 + MAX_GROUP_VERSIONS);
    let Ok(ClusterOutcome::Discovery(d)) = session.finish() else {
        panic!("not a discovery")
    };
    assert!(d.served.iter().any(|r| r.kind == "JobSet"));
    assert!(d.warnings.is_empty(), "{:?}", &d.warnings[..1]);
}

/// An engine whose session may keep `bytes` of the server's answers.
fn keeping(bytes: usize) -> Engine {
    Engine::builder()
        .limits(Limits {
            max_cluster_bytes: bytes,
            ..Limits::default()
        })
        .build()
        .unwrap()
}

/// Page `n` of a list of `kind`: ten objects of about 1,000 bytes each,
/// controlled by `controller` (apiVersion, kind) when given, and a
/// continue token while `n < last`.
fn page_of(kind: &str, n: usize, last: usize, controller: Option<(&str, &str)>) -> Reply {
    let items: Vec<Value> = (0..10)
        .map(|i| {
            let mut o = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": kind,
                "metadata": {"name": format!("o{n}-{i}"), "namespace": "ml", "uid": format!("u{n}-{i}"),
                    "annotations": {"pad": "x".repeat(850)}}});
            if let Some((api_version, owner)) = controller {
                o["apiVersion"] = json!("batch/v1");
                o["metadata"]["ownerReferences"] = json!([{"apiVersion": api_version,
                    "kind": owner, "name": "js", "uid": "js", "controller": true}]);
            }
            o
        })
        .collect();
    let cont = if n < last {
        json!({"continue": format!("t{}", n + 1)})
    } else {
        json!({})
    };
    Reply::ok(json!({"kind": format!("{kind}List"), "metadata": cont, "items": items}).to_string())
}

/// The page number a list request asks for (its continue token `tN`).
fn page_number(path: &str) -> usize {
    path.split("continue=t")
        .nth(1)
        .and_then(|t| t.split('&').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
}

/// 100 pages of 10 JobSets, each page well within the input limits, and
/// ten times `maxClusterBytes` (100,000) in all: the list stops with a
/// `limit` error at the page that goes over, after about ten pages.
#[test]
fn what_a_session_keeps_is_charged_to_max_cluster_bytes() {
    let server = discovery();
    let list = ClusterOp::List(ListQuery {
        type_: Some("jobsets".into()),
        namespace: Some("ml".into()),
        chunk_size: 10,
        ..ListQuery::default()
    });
    let answer = |path: &str| {
        path.contains("/jobsets")
            .then(|| page_of("JobSet", page_number(path), 99, None))
    };
    let mut session = keeping(100_000).cluster_session(list.clone());
    let made = drive(&mut session, &server, answer);
    let err = session.finish().unwrap_err();
    assert_eq!(
        (err.code(), err.limit()),
        (ErrorCode::Limit, Some("maxClusterBytes")),
        "{err}"
    );
    assert!(
        err.message()
            .contains("(listing jobsets.jobset.x-k8s.io in namespace ml)"),
        "{err}"
    );
    let pages: Vec<&String> = made.iter().filter(|p| p.contains("/jobsets")).collect();
    assert!((10..=11).contains(&pages.len()), "{}", pages.len());
    assert_eq!(err.location().request.as_ref(), pages.last().copied());
    // The default limit keeps the whole list.
    let mut session = engine().cluster_session(list);
    drive(&mut session, &server, answer);
    let Ok(ClusterOutcome::Listing(l)) = session.finish() else {
        panic!("not a listing")
    };
    assert_eq!(l.workloads.len(), 1000);
}

/// Objects dropped as their page is read (what a covered workload
/// controls, in a listing of every type) are not kept, so not charged:
/// ten times the limit of them passes. (A listing that reads the pods keeps
/// a stub of each, for the pods' controller chains: charged, and small.)
#[test]
fn what_a_session_drops_is_not_charged() {
    let server = discovery();
    let mut session = keeping(100_000).cluster_session(ClusterOp::List(ListQuery {
        namespace: Some("ml".into()),
        chunk_size: 10,
        pods: false,
        ..ListQuery::default()
    }));
    let made = drive(&mut session, &server, |path| {
        path.contains("/jobs?").then(|| {
            page_of(
                "Job",
                page_number(path),
                99,
                Some(("jobset.x-k8s.io/v1alpha2", "JobSet")),
            )
        })
    });
    assert_eq!(made.iter().filter(|p| p.contains("/jobs?")).count(), 100);
    let outcome = session.finish();
    assert!(
        matches!(outcome, Ok(ClusterOutcome::Listing(_))),
        "{:?}",
        outcome.err()
    );
}

/// Discovery's resources are charged too: a limit smaller than the core
/// group's resources ends the operation at `/api/v1`.
#[test]
fn discovery_is_charged_to_max_cluster_bytes() {
    let server = discovery();
    let mut session = keeping(50).cluster_session(ClusterOp::Discover);
    drive(&mut session, &server, |_| None);
    let err = session.finish().unwrap_err();
    assert_eq!(err.limit(), Some("maxClusterBytes"), "{err}");
    assert_eq!(err.location().request.as_deref(), Some("/api/v1"));
    assert!(err.message().contains("(discovering the API)"), "{err}");
}

/// A pod whose controller chain goes through ten owner kinds, each owned
/// by the next: the walk lists at most `MAX_OWNER_ROUNDS` of them.
#[test]
fn the_owner_walk_stops_after_its_rounds() {
    let server = discovery();
    let owner = |i: usize| {
        json!({"apiVersion": "ex.test/v1", "kind": format!("Owner{i}"),
            "metadata": {"name": format!("o{i}"), "namespace": "ml", "uid": format!("u{i}"),
                "ownerReferences": [{"apiVersion": "ex.test/v1", "kind": format!("Owner{}", i + 1),
                    "name": format!("o{}", i + 1), "uid": format!("u{}", i + 1), "controller": true}]}})
    };
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml", "uid": "p0",
            "ownerReferences": [{"apiVersion": "ex.test/v1", "kind": "Owner0", "name": "o0", "uid": "u0", "controller": true}]}});
    let mut session = engine().cluster_session(ClusterOp::List(ListQuery {
        namespace: Some("ml".into()),
        ..ListQuery::default()
    }));
    let made = drive(&mut session, &server, |path| {
        if path.starts_with("/api/v1/namespaces/ml/pods") {
            return Some(Reply::ok(
                json!({"kind": "PodList", "metadata": {}, "items": [pod]}).to_string(),
            ));
        }
        let i: usize = path
            .strip_prefix("/apis/ex.test/v1/namespaces/ml/owner")?
            .split('s')
            .next()?
            .parse()
            .ok()?;
        Some(Reply::ok(
            json!({"kind": format!("Owner{i}List"), "metadata": {}, "items": [owner(i)]})
                .to_string(),
        ))
    });
    let owners = made.iter().filter(|p| p.contains("/ex.test/")).count();
    // Discovery of ex.test/v1 once, then one list per round.
    assert_eq!(owners, 1 + MAX_OWNER_ROUNDS, "{made:#?}");
    let Ok(ClusterOutcome::Listing(l)) = session.finish() else {
        panic!("not a listing")
    };
    assert_eq!(l.owners.len(), MAX_OWNER_ROUNDS);
}

#[test]
fn callers_that_misuse_a_session_get_usage_errors() {
    let mut session = engine().cluster_session(jobsets_query());
    assert_eq!(session.requests().len(), 2);
    let e = session.feed(vec![Reply::ok("{}")]).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Usage);
    assert!(e.message().contains("1 replies for 2 requests"), "{e}");
    // The session goes on after a usage error of its caller.
    assert!(!session.is_done());
    let unfinished = engine().cluster_session(jobsets_query());
    assert_eq!(unfinished.finish().unwrap_err().code(), ErrorCode::Usage);
    let mut done = engine().cluster_session(jobsets_query());
    let all = vec![
        Reply::unreachable("no route"),
        Reply::unreachable("no route"),
    ];
    assert_eq!(done.feed(all).unwrap_err().code(), ErrorCode::Unreachable);
    assert!(done.is_done());
    assert!(done.requests().is_empty());
    assert_eq!(
        done.feed(Vec::new()).unwrap_err().code(),
        ErrorCode::Usage,
        "a done session takes no more replies"
    );
    assert_eq!(done.finish().unwrap_err().code(), ErrorCode::Unreachable);
}

#[test]
fn served_resources_given_skip_discovery() {
    let server = discovery();
    let mut first = engine().cluster_session(ClusterOp::Discover);
    drive(&mut first, &server, |_| None);
    let Ok(ClusterOutcome::Discovery(d)) = first.finish() else {
        panic!("not a discovery")
    };
    // Subresources are left out; the preferred version is marked.
    assert!(d.served.iter().all(|r| !r.plural.contains('/')));
    assert!(d.served.iter().any(|r| r.kind == "JobSet" && r.preferred));
    let pods = d.served.iter().find(|r| r.kind == "Pod").unwrap();
    assert_eq!(pods.short_names, ["po"]);
    let mut session = engine().cluster_session(ClusterOp::List(ListQuery {
        type_: Some("jobsets".into()),
        namespace: Some("ml".into()),
        served: Some(d.served.clone()),
        pods: false,
        ..ListQuery::default()
    }));
    let first: Vec<&str> = session.requests().iter().map(|r| r.path.as_str()).collect();
    assert_eq!(
        first,
        ["/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?limit=500"]
    );
    drive(&mut session, &server, |p| {
        p.contains("/jobsets").then(|| {
            Reply::ok(r#"{"kind":"JobSetList","metadata":{"resourceVersion":"7"},"items":[]}"#)
        })
    });
    let Ok(ClusterOutcome::Listing(l)) = session.finish() else {
        panic!("not a listing")
    };
    assert_eq!(l.resource_versions, ["7"]);
    // No definition CRD is served: said once.
    assert_eq!(
        l.warnings
            .iter()
            .map(|w| w.reason.as_str())
            .collect::<Vec<_>>(),
        ["no_crd"]
    );
}

#[test]
fn a_described_workload_that_does_not_exist_is_not_found() {
    let server = discovery();
    let mut session = engine().cluster_session(ClusterOp::Describe(DescribeQuery {
        type_: "jobset".into(),
        name: "nope".into(),
        namespace: Some("ml".into()),
        chunk_size: 500,
        served: None,
        skip_definitions: false,
    }));
    drive(&mut session, &server, |_| None);
    let e = session.finish().unwrap_err();
    assert_eq!((e.code(), e.status()), (ErrorCode::NotFound, Some(404)));
    assert_eq!(e.message(), "JobSet 'nope' not found in namespace ml");
    assert_eq!(
        e.location().request.as_deref(),
        Some("/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/nope")
    );
}

#[test]
fn replies_read_as_json() {
    let r: Reply = serde_json::from_str(r#"{"status": 200, "body": "{}"}"#).unwrap();
    assert_eq!(r, Reply::ok("{}"));
    let r: Reply = serde_json::from_str(r#"{"error": "refused"}"#).unwrap();
    assert_eq!(r, Reply::unreachable("refused"));
    assert!(serde_json::from_str::<Reply>(r#"{"status": 200}"#).is_err());
    assert!(serde_json::from_str::<Reply>(r#"{"status": 200, "body": "", "x": 1}"#).is_err());
    let op: ClusterOp = serde_json::from_value(json!({"list": {"type": "jobsets"}})).unwrap();
    assert!(matches!(
        op,
        ClusterOp::List(ListQuery {
            chunk_size: 500,
            ..
        })
    ));
    let op: ClusterOp = serde_json::from_value(json!("discover")).unwrap();
    assert_eq!(op, ClusterOp::Discover);
}

#[test]
fn the_definitions_op_reads_the_clusters_definitions_into_an_engine() {
    let mut server = discovery();
    // The Karta CRD is served, and one Karta covers ex.test/v1 Owner0.
    let groups: Value = serde_json::from_str(match &server["/apis"] {
        Reply::Http { body, .. } => body,
        _ => unreachable!(),
    })
    .unwrap();
    let mut groups = groups;
    groups["groups"].as_array_mut().unwrap().push(
        json!({"name": "run.ai", "versions": [{"version": "v1alpha1"}], "preferredVersion": {"version": "v1alpha1"}}),
    );
    server.insert("/apis".into(), Reply::ok(groups.to_string()));
    server.insert(
        "/apis/run.ai/v1alpha1".into(),
        Reply::ok(
            json!({"resources": [{"name": "kartas", "singularName": "karta", "namespaced": false, "kind": "Karta"}]})
                .to_string(),
        ),
    );
    let karta = json!({"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": "owner0"},
        "spec": {"structureDefinition": {
            "rootComponent": {"name": "owner", "kind": {"group": "ex.test", "version": "v1", "kind": "Owner0"},
                "statusDefinition": {"phaseDefinition": {"path": ".status.phase"}}},
            "childComponents": [{"name": "worker", "ownerRef": "owner",
                "kind": {"group": "", "version": "v1", "kind": "Pod"},
                "specDefinition": {"podTemplateSpecPath": ".spec.template"}}]}}});
    let mut session = engine().cluster_session(ClusterOp::Definitions(DefinitionsQuery::default()));
    let made = drive(&mut session, &server, |p| {
        (p == "/apis/run.ai/v1alpha1/kartas?limit=500").then(|| {
            Reply::ok(
                json!({"kind": "KartaList", "metadata": {}, "items": [karta.clone()]}).to_string(),
            )
        })
    });
    // Discovery, then the one definition type served; no workload is read.
    assert_eq!(
        made.last().unwrap(),
        "/apis/run.ai/v1alpha1/kartas?limit=500"
    );
    assert!(
        !made
            .iter()
            .any(|p| p.contains("owner0s") || p.contains("jobsets"))
    );
    let Ok(ClusterOutcome::Definitions(d)) = session.finish() else {
        panic!("not the definitions")
    };
    assert_eq!(d.objects, [karta]);
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
    let covered = |e: &Engine| -> Vec<String> {
        e.covered_types(&d.served)
            .into_iter()
            .map(|r| r.kind)
            .collect()
    };
    assert!(covered(&d.engine).contains(&"Owner0".to_string()));
    assert!(!covered(&engine()).contains(&"Owner0".to_string()));
}

/// 10x `MAX_ORPHANS` pods whose controller (a Job, a covered type) does not
/// exist: each was dropped as controlled when its page was read; the first
/// `MAX_ORPHANS` are read again and listed as workloads of their own
/// (`owner.state` orphaned), the rest are counted in one warning.
#[test]
fn orphans_are_read_again_up_to_their_bound() {
    let server = discovery();
    let n = 10 * workload_lens::MAX_ORPHANS;
    let pod = |i: usize| {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("p{i}"), "namespace": "ml", "uid": format!("pod-{i}"),
                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": format!("gone-{i}"),
                    "uid": format!("gone-{i}"), "controller": true}]},
            "spec": {"containers": [{"name": "c", "image": "i"}]}})
    };
    let list =
        json!({"kind": "PodList", "metadata": {}, "items": (0..n).map(pod).collect::<Vec<_>>()})
            .to_string();
    let mut session = engine().cluster_session(ClusterOp::List(ListQuery {
        namespace: Some("ml".into()),
        chunk_size: 0,
        ..ListQuery::default()
    }));
    let made = drive(&mut session, &server, |p| {
        if p == "/api/v1/namespaces/ml/pods" {
            return Some(Reply::ok(list.clone()));
        }
        if p.ends_with("/namespaces/ml/jobs") || p.ends_with("/namespaces/ml/jobsets") {
            return Some(Reply::ok(r#"{"kind":"List","metadata":{},"items":[]}"#));
        }
        let i: usize = p
            .strip_prefix("/api/v1/namespaces/ml/pods/p")?
            .parse()
            .ok()?;
        Some(Reply::ok(pod(i).to_string()))
    });
    let l = match session.finish() {
        Ok(ClusterOutcome::Listing(l)) => l,
        other => panic!("not a listing: {other:?}"),
    };
    let reads = made
        .iter()
        .filter(|p| p.starts_with("/api/v1/namespaces/ml/pods/"))
        .count();
    assert_eq!(reads, workload_lens::MAX_ORPHANS);
    let orphans = l
        .workloads
        .iter()
        .filter(|w| {
            w.kind == "Pod"
                && w.owner.as_ref().map(|o| o.state)
                    == Some(workload_lens::OwnerStateKind::Orphaned)
        })
        .count();
    assert_eq!(orphans, workload_lens::MAX_ORPHANS);
    let counted = l
        .warnings
        .iter()
        .find(|w| w.reason == "orphaned" && w.object.is_empty())
        .expect("the warning that counts the rest");
    assert!(
        counted.message.starts_with(&format!("{n} objects")),
        "{}",
        counted.message
    );
}

/// A status to keep that the vocabulary does not have is a usage error
/// before any request (`get --phase Bogus`); any case of a known one is
/// taken.
#[test]
fn an_unknown_phase_is_refused_before_any_request() {
    let session = engine().cluster_session(ClusterOp::List(ListQuery {
        phases: vec!["running".into(), "Bogus".into()],
        ..ListQuery::default()
    }));
    assert!(session.requests().is_empty() && session.is_done());
    let err = session.finish().unwrap_err();
    assert_eq!(err.code(), ErrorCode::Usage);
    assert!(
        err.message().contains("unknown status 'Bogus'") && err.message().contains("Running"),
        "{err}"
    );
    let ok = engine().cluster_session(ClusterOp::List(ListQuery {
        phases: vec!["RUNNING".into(), "initializing".into()],
        ..ListQuery::default()
    }));
    assert_eq!(ok.requests().len(), 2);
}

/// `skipDefinitions`: the definition CRDs are served, but neither read nor
/// warned about; without them served, no `no_crd` warning either.
#[test]
fn a_query_may_skip_the_clusters_definitions() {
    let mut server = discovery();
    let mut groups: Value = serde_json::from_str(match &server["/apis"] {
        Reply::Http { body, .. } => body,
        _ => unreachable!(),
    })
    .unwrap();
    groups["groups"].as_array_mut().unwrap().push(
        json!({"name": "run.ai", "versions": [{"version": "v1alpha1"}], "preferredVersion": {"version": "v1alpha1"}}),
    );
    let bare = server.clone();
    server.insert("/apis".into(), Reply::ok(groups.to_string()));
    server.insert(
        "/apis/run.ai/v1alpha1".into(),
        Reply::ok(
            json!({"resources": [{"name": "kartas", "singularName": "karta", "namespaced": false, "kind": "Karta"}]})
                .to_string(),
        ),
    );
    let list = |skip: bool| {
        ClusterOp::List(ListQuery {
            type_: Some("jobsets".into()),
            namespace: Some("ml".into()),
            skip_definitions: skip,
            pods: false,
            ..ListQuery::default()
        })
    };
    let empty = |p: &str| {
        (p.contains("/jobsets") || p.contains("/kartas"))
            .then(|| Reply::ok(r#"{"kind":"List","metadata":{"resourceVersion":"7"},"items":[]}"#))
    };
    for (srv, skip, karta_read, warned) in [
        (&server, false, true, false),
        (&server, true, false, false),
        (&bare, false, false, true),
        (&bare, true, false, false),
    ] {
        let mut session = engine().cluster_session(list(skip));
        let made = drive(&mut session, srv, empty);
        assert_eq!(
            made.iter().any(|p| p.contains("kartas")),
            karta_read,
            "{made:?}"
        );
        let Ok(ClusterOutcome::Listing(l)) = session.finish() else {
            panic!("not a listing")
        };
        assert_eq!(
            l.warnings.iter().any(|w| w.reason == "no_crd"),
            warned,
            "skip {skip}: {:?}",
            l.warnings
        );
    }
    let mut session = engine().cluster_session(ClusterOp::Describe(DescribeQuery {
        type_: "jobset".into(),
        name: "nope".into(),
        namespace: Some("ml".into()),
        chunk_size: 500,
        served: None,
        skip_definitions: true,
    }));
    let made = drive(&mut session, &server, |_| None);
    assert!(!made.iter().any(|p| p.contains("kartas")), "{made:?}");
    let op: ClusterOp =
        serde_json::from_value(json!({"list": {"type": "jobsets", "skipDefinitions": true}}))
            .unwrap();
    assert!(matches!(
        op,
        ClusterOp::List(ListQuery {
            skip_definitions: true,
            ..
        })
    ));
}

/// A listing reads the pods of the namespace listed and the owners between
/// them and the workloads (Jobs, for a listing of JobSets); the pods are
/// what `live` counts. A pods list the identity may not read is a warning:
/// the rows then count no live pods, and the warning says why.
#[test]
fn a_listing_reads_the_pods_and_the_owners_between() {
    let server = discovery();
    let jobset = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "js", "namespace": "ml", "uid": "js"},
        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1, "template": {"spec": {
            "parallelism": 2, "completions": 2, "template": {"spec": {"containers": [
                {"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}}}]}});
    let job = json!({"apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "js-w-0", "namespace": "ml", "uid": "job",
            "ownerReferences": [{"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                "name": "js", "uid": "js", "controller": true}]}});
    let pod = |name: &str, ready: &str| {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml", "uid": name,
                "labels": {"jobset.sigs.k8s.io/jobset-name": "js",
                    "jobset.sigs.k8s.io/replicatedjob-name": "w"},
                "managedFields": [{"manager": "kubelet"}],
                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "js-w-0",
                    "uid": "job", "controller": true}]},
            "spec": {"nodeName": "n", "containers": [{"name": "c", "image": "i",
                "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": ready}]}})
    };
    let list = |kind: &str, items: Vec<Value>| {
        Reply::ok(
            json!({"kind": format!("{kind}List"), "metadata": {}, "items": items}).to_string(),
        )
    };
    let query = ClusterOp::List(ListQuery {
        type_: Some("jobsets".into()),
        namespace: Some("ml".into()),
        ..ListQuery::default()
    });
    let mut session = engine().cluster_session(query.clone());
    let made = drive(&mut session, &server, |p| {
        if p.contains("/jobsets?") {
            Some(list("JobSet", vec![jobset.clone()]))
        } else if p.contains("/pods?") {
            Some(list("Pod", vec![pod("p0", "True"), pod("p1", "False")]))
        } else if p.contains("/jobs?") {
            Some(list("Job", vec![job.clone()]))
        } else {
            None
        }
    });
    assert!(
        made.contains(&"/api/v1/namespaces/ml/pods?limit=500".to_string()),
        "{made:?}"
    );
    assert!(
        made.contains(&"/apis/batch/v1/namespaces/ml/jobs?limit=500".to_string()),
        "{made:?}"
    );
    let Ok(ClusterOutcome::Listing(l)) = session.finish() else {
        panic!("not a listing")
    };
    let live = l.workloads[0].live.expect("live");
    assert_eq!((live.pods, live.ready, live.gpus), (2, 1, 2));
    // Pods the identity may not list: a warning, and nothing live.
    let mut session = engine().cluster_session(query);
    drive(&mut session, &server, |p| {
        if p.contains("/jobsets?") {
            Some(list("JobSet", vec![jobset.clone()]))
        } else if p.contains("/pods?") {
            Some(Reply::status(
                403,
                r#"{"kind":"Status","message":"pods is forbidden"}"#,
            ))
        } else {
            None
        }
    });
    let Ok(ClusterOutcome::Listing(l)) = session.finish() else {
        panic!("not a listing")
    };
    assert_eq!(l.workloads[0].live.map(|l| l.pods), Some(0));
    assert!(
        l.warnings
            .iter()
            .any(|w| w.reason == "forbidden" && w.object == "pods"),
        "{:?}",
        l.warnings
    );
}

/// A JobSet `js` (Job `js-w`, pod `js-w-0`) in a namespace with ten times
/// [`MAX_EVENTS`] events of its own, spread over pages, and as many of
/// another JobSet's pod: the description keeps the newest of its own only,
/// and counts the rest; a 403 on the events is a warning.
#[test]
fn a_description_keeps_the_newest_events_of_the_workload_and_its_pods() {
    let server = discovery();
    let jobset = json!({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "js", "namespace": "ml", "uid": "js-uid"},
        "spec": {"replicatedJobs": []}});
    let owned = |kind: &str, name: &str, uid: &str, by: (&str, &str, &str)| {
        json!({"apiVersion": if kind == "Pod" { "v1" } else { "batch/v1" }, "kind": kind,
            "metadata": {"name": name, "namespace": "ml", "uid": uid,
                "ownerReferences": [{"apiVersion": if by.0 == "Job" { "batch/v1" } else { "jobset.x-k8s.io/v1alpha2" },
                    "kind": by.0, "name": by.1, "uid": by.2, "controller": true}]}})
    };
    let pods = vec![
        owned("Pod", "js-w-0", "pod-uid", ("Job", "js-w", "job-uid")),
        owned(
            "Pod",
            "other-0",
            "other-pod",
            ("Job", "other-w", "other-job"),
        ),
    ];
    let jobs = vec![
        owned("Job", "js-w", "job-uid", ("JobSet", "js", "js-uid")),
        owned(
            "Job",
            "other-w",
            "other-job",
            ("JobSet", "other", "other-uid"),
        ),
    ];
    let n = 10 * MAX_EVENTS;
    let mut events = Vec::new();
    for i in 0..n {
        let (kind, name, uid) = [
            ("Pod", "js-w-0", "pod-uid"),
            ("Job", "js-w", "job-uid"),
            ("JobSet", "js", "js-uid"),
        ][i % 3];
        events.push(
            json!({"kind": "Event", "metadata": {"name": format!("e{i}"), "namespace": "ml"},
            "involvedObject": {"kind": kind, "name": name, "uid": uid},
            "type": if i % 2 == 0 { "Normal" } else { "Warning" }, "reason": format!("R{i}"),
            "message": format!("event {i}"), "source": {"component": "kubelet"},
            "lastTimestamp": format!("2026-01-01T{:02}:{:02}:00Z", i / 60, i % 60)}),
        );
        events.push(
            json!({"kind": "Event", "metadata": {"name": format!("x{i}"), "namespace": "ml"},
            "involvedObject": {"kind": "Pod", "name": "other-0", "uid": "other-pod"},
            "type": "Warning", "reason": "Other", "message": "not js's",
            "lastTimestamp": "2027-01-01T00:00:00Z"}),
        );
    }
    let describe = || {
        engine().cluster_session(ClusterOp::Describe(DescribeQuery {
            type_: "jobset".into(),
            name: "js".into(),
            namespace: Some("ml".into()),
            chunk_size: 7,
            served: None,
            skip_definitions: false,
        }))
    };
    let page = |kind: &str, items: &[Value], path: &str| {
        // `limit=7`, `continue=<offset>`.
        let at: usize = path
            .split("continue=")
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let end = (at + 7).min(items.len());
        let mut meta = json!({});
        if end < items.len() {
            meta["continue"] = json!(end.to_string());
        }
        Reply::ok(json!({"kind": kind, "metadata": meta, "items": items[at..end]}).to_string())
    };
    let answer = |forbid: bool| {
        let (jobset, pods, jobs, events) =
            (jobset.clone(), pods.clone(), jobs.clone(), events.clone());
        move |path: &str| -> Option<Reply> {
            if path.starts_with("/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets/js") {
                return Some(Reply::ok(jobset.to_string()));
            }
            if path.starts_with("/api/v1/namespaces/ml/pods") {
                return Some(page("PodList", &pods, path));
            }
            if path.starts_with("/apis/batch/v1/namespaces/ml/jobs") {
                return Some(page("JobList", &jobs, path));
            }
            if path.starts_with("/api/v1/namespaces/ml/events") {
                if forbid {
                    return Some(Reply::status(
                        403,
                        r#"{"kind":"Status","message":"events is forbidden","code":403}"#,
                    ));
                }
                return Some(page("EventList", &events, path));
            }
            None
        }
    };
    let mut session = describe();
    let made = drive(&mut session, &server, answer(false));
    let event_pages = made.iter().filter(|p| p.contains("/events")).count();
    assert_eq!(event_pages, (2 * n).div_ceil(7), "{made:#?}");
    let Ok(ClusterOutcome::Description(d)) = session.finish() else {
        panic!("not a description")
    };
    assert_eq!(d.events.len(), MAX_EVENTS);
    assert_eq!(d.events_left_out, n - MAX_EVENTS);
    let reasons: Vec<&str> = d.events.iter().map(|e| e.reason.as_str()).collect();
    let want: Vec<String> = (n - MAX_EVENTS..n).rev().map(|i| format!("R{i}")).collect();
    assert_eq!(reasons, want);
    assert!(d.events.iter().all(|e| e.from == "kubelet" && e.count == 1));
    assert_eq!(
        d.events[0].object,
        ["Pod/js-w-0", "Job/js-w", "JobSet/js"][(n - 1) % 3]
    );
    assert!(
        d.warnings.iter().all(|w| w.object != "events"),
        "{:?}",
        d.warnings
    );
    let v = ClusterOutcome::Description(d).to_value().unwrap();
    assert_eq!(v["events"].as_array().map(Vec::len), Some(MAX_EVENTS));
    assert_eq!(v["eventsLeftOut"], n - MAX_EVENTS);
    assert_eq!(v["events"][0]["lastTime"], "2026-01-01T01:39:00Z");

    let mut session = describe();
    drive(&mut session, &server, answer(true));
    let Ok(ClusterOutcome::Description(d)) = session.finish() else {
        panic!("a 403 on events is not a failure")
    };
    assert!(d.events.is_empty());
    let w = d
        .warnings
        .iter()
        .find(|w| w.object == "events")
        .expect("a warning");
    assert_eq!(w.reason, "forbidden");
    assert!(
        w.message
            .contains("the events in namespace ml could not be listed"),
        "{}",
        w.message
    );
}
