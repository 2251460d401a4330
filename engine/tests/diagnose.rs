//! `diagnose` on states recorded from real controllers, schedulers and
//! kubelets (the simulated cluster's scenarios, `definitions/fixtures/*/
//! recorded/`): each situation the diagnosis names is named first, with the
//! evidence the cluster wrote.

mod common;

use common::{engine, read_all, read_file, repo_root};
use serde_json::Value;
use workload_lens::Diagnosis;

/// Where the recordings are: `WORKLOAD_LENS_RECORDED` (the sim stage's
/// live recordings, `scripts/record.sh --check`), else the fixtures.
fn recorded_root() -> std::path::PathBuf {
    std::env::var_os("WORKLOAD_LENS_RECORDED")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| repo_root().join("definitions/fixtures"))
}

/// The object file of one recorded step, when it was recorded.
fn step_base(step: &str) -> std::path::PathBuf {
    let (def, rest) = step.split_once('/').unwrap();
    recorded_root().join(def).join("recorded").join(rest)
}

/// `diagnose` of one recorded step: `<definition>/<scenario>/<NN-step>`,
/// with its pods and owners, events and (where Kueue ran) Kueue's Workloads.
fn diagnose_step(step: &str) -> Diagnosis {
    let base = step_base(step);
    let object = read_file(&base.with_extension("yaml"));
    let text = |ext: &str| {
        let p = base.with_extension(ext);
        std::fs::read_to_string(&p)
            .map(|t| read_all(&t))
            .unwrap_or_default()
    };
    let items = text("pods.yaml");
    let events = text("events.yaml");
    let related = text("related.yaml");
    engine()
        .diagnose(&object, &items, &events, &related)
        .unwrap_or_else(|e| panic!("{step}: {e}"))
}

/// The codes of the findings, in rank order.
fn codes(d: &Diagnosis) -> Vec<&'static str> {
    d.findings.iter().map(|f| f.code.as_str()).collect()
}

#[test]
fn each_recorded_situation_is_named_first_with_the_clusters_evidence() {
    // (step, the codes in order, words of the first finding's sentence,
    // words of one piece of its evidence). The words hold for any run of the
    // scenario (record.sh --check diagnoses live recordings too): which pod
    // the scheduler leaves out, for one, is its choice.
    let cases: &[(&str, &[&str], &str, &str)] = &[
        (
            "core-pod-v1/core-pod-unschedulable/01-unschedulable",
            &["unschedulable"],
            "Insufficient nvidia.com/gpu",
            "PodScheduled=False Unschedulable",
        ),
        (
            "jobset-x-k8s-io-jobset-v1alpha2/jobset-insufficient-gpus/01-waiting-for-gpus",
            &["unschedulable", "gang-short"],
            "cannot place pod finetune-workers-",
            "FailedScheduling",
        ),
        (
            "leaderworkerset-x-k8s-io-leaderworkerset-v1/leaderworkerset-insufficient-gpus/01-waiting-for-gpus",
            &["unschedulable", "gang-short"],
            "cannot place pod llama-405b-",
            "Insufficient nvidia.com/gpu",
        ),
        (
            "core-pod-v1/core-pod-image-pull-error/01-image-pull-backoff",
            &["image-pull"],
            "registry.example/triton:no-such-tag",
            "ImagePullBackOff",
        ),
        (
            "core-pod-v1/core-pod-crashloop/02-crashlooping",
            &["crash-loop"],
            "container vllm of pod vllm-worker crash-loops: last exit Error, exit code 1",
            "restarts 1",
        ),
        (
            "core-pod-v1/core-pod-init-crashloop/01-init-crashloop",
            &["init-failed"],
            "init container fetch-weights",
            "Error, exit code 1",
        ),
        (
            "jobset-x-k8s-io-jobset-v1alpha2/jobset-kueue/01-queued",
            &["not-admitted", "suspended"],
            "Kueue has not admitted it to queue team-a: couldn't assign flavors to pod set",
            "QuotaReserved=False",
        ),
        (
            "batch-job-v1/batch-job-kueue/01-queued",
            &["not-admitted", "suspended"],
            "Kueue has not admitted it to queue team-a: couldn't assign flavors to pod set main",
            "insufficient quota for nvidia.com/gpu",
        ),
        (
            "batch-job-v1/batch-job-lifecycle/03-suspended",
            &["suspended"],
            "suspended by its spec",
            "",
        ),
        (
            "jobset-x-k8s-io-jobset-v1alpha2/jobset-kueue/03-draining",
            &["not-admitted", "suspended"],
            "ClusterQueue rec-jobset-kueue-cq is inactive",
            "Evicted=True ClusterQueueStopped",
        ),
        (
            "jobset-x-k8s-io-jobset-v1alpha2/jobset-lifecycle/04-restarted",
            &["failing-condition", "earlier-attempt"],
            "its status is Degraded, by its definition's matcher statusMappings.degraded",
            ".status.restarts",
        ),
        (
            "batch-job-v1/batch-job-retrying/04-failed",
            &["failing-condition", "pod-failed"],
            "its status is Failed: Failed=True BackoffLimitExceeded",
            "Job has reached the specified backoff limit",
        ),
        (
            "kubeflow-org-pytorchjob-v1/pytorchjob-failures/02-restarting",
            &["failing-condition"],
            "Degraded: Restarting=True PyTorchJobRestarting",
            "Master replica(s) failed",
        ),
        (
            "ray-io-rayjob-v1/rayjob-lifecycle/03-failed",
            &["failing-condition"],
            "by its definition's matcher statusMappings.failed[0]",
            "jobDeploymentStatus",
        ),
    ];
    let mut problems = Vec::new();
    let live = std::env::var_os("WORKLOAD_LENS_RECORDED").is_some();
    let mut checked = 0;
    for (step, want, sentence, evidence) in cases {
        // Live (a scratch dir of the scenarios just recorded), only those.
        if live && !step_base(step).with_extension("yaml").exists() {
            continue;
        }
        checked += 1;
        let d = diagnose_step(step);
        let got = codes(&d);
        if got != *want {
            problems.push(format!("{step}: codes {got:?}, expected {want:?}"));
            continue;
        }
        let first = &d.findings[0];
        if !first.message.contains(sentence) {
            problems.push(format!("{step}: {:?} lacks {sentence:?}", first.message));
        }
        if !first
            .evidence
            .iter()
            .any(|e| e.text.contains(evidence) || e.field.contains(evidence))
        {
            problems.push(format!(
                "{step}: no evidence with {evidence:?}: {:?}",
                first.evidence
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(live || checked == cases.len());
}

#[test]
fn healthy_running_and_completed_steps_have_nothing_to_say() {
    for step in [
        "jobset-x-k8s-io-jobset-v1alpha2/jobset-lifecycle/01-running",
        "jobset-x-k8s-io-jobset-v1alpha2/jobset-lifecycle/06-completed",
        "leaderworkerset-x-k8s-io-leaderworkerset-v1/leaderworkerset-lifecycle/01-running",
        "batch-job-v1/batch-job-lifecycle/08-completed",
        "trainer-kubeflow-org-trainjob-v1alpha1/trainjob-initializer/02-running",
        "ray-io-raycluster-v1/raycluster-lifecycle/01-ready",
    ] {
        let d = diagnose_step(step);
        assert_eq!(codes(&d), Vec::<&str>::new(), "{step}: {:?}", d.findings);
    }
}

#[test]
fn every_recorded_step_diagnoses_within_the_default_budget() {
    let steps = recorded_steps();
    assert!(steps.len() >= 160, "{} steps", steps.len());
    for step in &steps {
        let d = diagnose_step(step);
        for f in &d.findings {
            assert!(f.evidence.len() <= workload_lens::MAX_EVIDENCE, "{step}");
            assert!(!f.message.is_empty(), "{step}");
        }
        // Serializable as the bindings send it.
        let _: Value = serde_json::to_value(&d).unwrap();
    }
}

#[test]
fn print() {
    let Ok(step) = std::env::var("DIAG_STEP") else {
        return;
    };
    let d = diagnose_step(&step);
    println!("{}", serde_json::to_string_pretty(&d).unwrap());
}

/// Every recorded step, as `<definition>/<scenario>/<NN-step>`.
fn recorded_steps() -> Vec<String> {
    let mut out = Vec::new();
    let fixtures = repo_root().join("definitions/fixtures");
    for def in std::fs::read_dir(&fixtures).unwrap().flatten() {
        let rec = def.path().join("recorded");
        let Ok(scenarios) = std::fs::read_dir(&rec) else {
            continue;
        };
        for sc in scenarios.flatten() {
            for f in std::fs::read_dir(sc.path()).unwrap().flatten() {
                let name = f.file_name().into_string().unwrap();
                if let Some(step) = name.strip_suffix(".yaml").filter(|s| !s.contains('.')) {
                    out.push(format!(
                        "{}/{}/{step}",
                        def.file_name().to_string_lossy(),
                        sc.file_name().to_string_lossy()
                    ));
                }
            }
        }
    }
    out.sort();
    out
}

#[test]
fn survey() {
    if std::env::var("DIAG_SURVEY").is_err() {
        return;
    }
    for step in recorded_steps() {
        let d = diagnose_step(&step);
        let top: Vec<String> = d
            .findings
            .iter()
            .map(|f| format!("{}: {}", f.code.as_str(), f.message))
            .collect();
        println!("{step} {:?}\n    {}", d.statuses, top.join("\n    "));
    }
}

/// A Job of `n` pods the scheduler cannot place, with `events` events about
/// them.
fn wide_job(n: usize, events: usize) -> (Value, Vec<Value>, Vec<Value>) {
    let job = serde_json::json!({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "wide", "namespace": "ml", "uid": "j"},
        "spec": {"parallelism": n, "completions": n, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    });
    let pods = (0..n)
        .map(|i| {
            serde_json::json!({
                "metadata": {"name": format!("wide-{i}"), "namespace": "ml", "uid": format!("p{i}"),
                    "labels": {"batch.kubernetes.io/job-name": "wide"},
                    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "wide", "uid": "j", "controller": true}]},
                "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                    "reason": "Unschedulable", "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]},
            })
        })
        .collect();
    let evs = (0..events)
        .map(|i| {
            serde_json::json!({
                "involvedObject": {"kind": "Pod", "name": format!("wide-{}", i % n.max(1)), "uid": format!("p{}", i % n.max(1))},
                "reason": "FailedScheduling", "type": "Warning", "message": "m",
                "lastTimestamp": format!("2026-12-05T10:{:02}:{:02}Z", (i / 60) % 60, i % 60),
            })
        })
        .collect();
    (job, pods, evs)
}

#[test]
fn ten_times_a_large_job_fits_the_default_budget_and_a_small_one_stops_it() {
    // 1,000 pods and 5,000 events is a large Job; ten times that fits the
    // default limits, in one finding whose evidence is capped.
    let (job, pods, events) = wide_job(10_000, 50_000);
    let d = engine().diagnose(&job, &pods, &events, &[]).unwrap();
    assert_eq!(codes(&d), ["unschedulable"]);
    let f = &d.findings[0];
    assert!(
        f.message
            .starts_with("the scheduler cannot place 10000 pods (wide-0, wide-1, ...)"),
        "{}",
        f.message
    );
    assert_eq!(f.evidence.len(), workload_lens::MAX_EVIDENCE);
    // Two pieces per pod (its condition, its newest event): 20,000 in all.
    assert_eq!(f.more_evidence, 20_000 - workload_lens::MAX_EVIDENCE);
    // A small step budget ends it with the limit error.
    let small = workload_lens::Engine::builder()
        .limits(workload_lens::Limits {
            max_steps: 100_000,
            ..Default::default()
        })
        .build()
        .unwrap();
    let err = small.diagnose(&job, &pods, &events, &[]).unwrap_err();
    assert_eq!(err.code(), workload_lens::ErrorCode::Limit, "{err}");
}

#[test]
fn gang_groups_that_cannot_be_formed_leave_out_only_the_gang_findings() {
    // A Job pod without the job-name label its gang group is keyed by:
    // the scheduler's finding stands.
    let (job, mut pods, _) = wide_job(2, 0);
    for p in &mut pods {
        p["metadata"].as_object_mut().unwrap().remove("labels");
    }
    let d = engine().diagnose(&job, &pods, &[], &[]).unwrap();
    assert_eq!(codes(&d), ["unschedulable"]);
}

#[test]
fn kueue_says_what_to_do_by_why_it_did_not_admit() {
    // Recorded from Kueue v0.17.0: short of quota, then evicted by a
    // ClusterQueue stopped with HoldAndDrain.
    let queued = diagnose_step("jobset-x-k8s-io-jobset-v1alpha2/jobset-kueue/01-queued");
    let action = queued.findings[0].action.as_deref().unwrap_or("");
    assert!(action.contains("has quota for it"), "{action}");
    let draining = diagnose_step("jobset-x-k8s-io-jobset-v1alpha2/jobset-kueue/03-draining");
    let action = draining.findings[0].action.as_deref().unwrap_or("");
    assert!(action.contains("stopped or inactive"), "{action}");
}

#[test]
fn ten_times_a_namespaces_pod_groups_fit_the_default_budget_and_a_small_one_stops_it() {
    // A busy Volcano namespace keeps a few thousand PodGroups (one per job
    // run); ten times that: 50,000 of other jobs beside this Job's own,
    // which its 100 pods name. Each group read is charged; only the
    // Job's is a finding.
    let (mut job, mut pods, _) = wide_job(100, 0);
    job["spec"]["template"]["spec"]["schedulerName"] = "volcano".into();
    for p in &mut pods {
        p["metadata"]["annotations"] =
            serde_json::json!({"scheduling.k8s.io/group-name": "wide-j"});
    }
    let group = |name: String, owner: &str| {
        serde_json::json!({
            "apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "ml",
                "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "x", "uid": owner, "controller": true}]},
            "spec": {"minMember": 1000, "queue": "research"},
            "status": {"phase": "Inqueue", "conditions": [{"type": "Unschedulable", "status": "True", "message": "m"}]},
        })
    };
    let mut related: Vec<Value> = (0..50_000)
        .map(|i| group(format!("other-{i}"), &format!("o{i}")))
        .collect();
    related.push(group("wide-j".into(), "j"));
    let d = engine().diagnose(&job, &pods, &[], &related).unwrap();
    let groups: Vec<_> = d
        .findings
        .iter()
        .filter(|f| f.code.as_str() == "pod-group-pending")
        .collect();
    assert_eq!(groups.len(), 1, "{:?}", codes(&d));
    assert!(
        groups[0].message.contains("PodGroup/wide-j"),
        "{}",
        groups[0].message
    );
    let small = workload_lens::Engine::builder()
        .limits(workload_lens::Limits {
            max_steps: 30_000,
            ..Default::default()
        })
        .build()
        .unwrap();
    // The pods alone fit it: the groups are what is charged.
    small
        .diagnose(&job, &pods, &[], &related[49_000..])
        .unwrap();
    let err = small.diagnose(&job, &pods, &[], &related).unwrap_err();
    assert_eq!(err.code(), workload_lens::ErrorCode::Limit, "{err}");
}
