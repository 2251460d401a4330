//! `get`, `describe TYPE/NAME` and `top` against a real kube-apiserver
//! seeded with the scenario of testing/live/README.md. `bash scripts/test.sh
//! live` starts the server and runs these; without it (no
//! `WORKLOAD_LENS_LIVE_DIR`), every test returns at once.
#![cfg(feature = "cluster")]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod api;
mod doc_examples;
mod exporter;

use api::Api;

fn live_dir() -> Option<PathBuf> {
    match std::env::var_os("WORKLOAD_LENS_LIVE_DIR") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!("skipped: no live server (bash scripts/test.sh live runs these tests)");
            None
        }
    }
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_workload-lens"));
    c.env_remove("KUBECONFIG");
    c
}

/// Run the CLI with the admin kubeconfig of `dir`.
fn wl(dir: &Path, args: &[&str]) -> Output {
    wl_as(dir, "kubeconfig", args)
}

fn wl_as(dir: &Path, kubeconfig: &str, args: &[&str]) -> Output {
    bin()
        .args(args)
        .arg("--kubeconfig")
        .arg(dir.join(kubeconfig))
        .output()
        .expect("run workload-lens")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
    stdout(o)
}

/// The rows of a table: the cells of each line after the header, for the
/// scenario's namespaces (other suites and the watch test add objects
/// elsewhere). The cells of a `get` table are given as NAME, NAMESPACE,
/// then the rest: its NAMESPACE column (first, with `-A`) is put second,
/// and a table of one namespace (no NAMESPACE column) gets `-` there. The
/// live columns (READY, HELD-GPUS) are left out: [`live_cells`] reads them.
fn rows(table: &str) -> Vec<Vec<String>> {
    let full: Vec<&str> = table
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let live: Vec<usize> = full
        .iter()
        .enumerate()
        .filter(|(_, h)| full.contains(&"PHASE") && matches!(**h, "READY" | "HELD-GPUS"))
        .map(|(i, _)| i)
        .rev()
        .collect();
    let header: Vec<&str> = full
        .iter()
        .enumerate()
        .filter(|(i, _)| !live.contains(i))
        .map(|(_, h)| *h)
        .collect();
    let get_table = header.contains(&"PHASE");
    table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .map(|mut r| {
            for &i in &live {
                if i < r.len() {
                    r.remove(i);
                }
            }
            r
        })
        .map(|mut r| {
            if get_table && header.first() == Some(&"NAMESPACE") && r.len() > 1 {
                r.swap(0, 1);
            } else if get_table && header.get(1) != Some(&"NAMESPACE") {
                r.insert(1.min(r.len()), "-".to_string());
            }
            r
        })
        .filter(|r| {
            r.get(1)
                .is_none_or(|ns| !ns.starts_with("lens-") || SCENARIO.contains(&ns.as_str()))
        })
        .collect()
}

const SCENARIO: [&str; 3] = ["lens-train", "lens-serve", "lens-paging"];

/// Per NAME of a `get` table: its READY cell and, with `-o wide`, its
/// HELD-GPUS cell.
fn live_cells(table: &str) -> Vec<(String, String, Option<String>)> {
    let header: Vec<&str> = table
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let at = |h: &str| header.iter().position(|x| *x == h);
    let (name, ready, held) = (at("NAME").unwrap(), at("READY").unwrap(), at("HELD-GPUS"));
    table
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .map(|c| {
            (
                c[name].to_string(),
                c[ready].to_string(),
                held.map(|h| c[h].to_string()),
            )
        })
        .collect()
}

fn names(table: &str) -> Vec<String> {
    let mut n: Vec<String> = rows(table).into_iter().map(|r| r[0].clone()).collect();
    n.sort();
    n
}

fn json_of(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).expect("JSON output")
}

#[test]
fn get_one_type_in_a_namespace() {
    let Some(d) = live_dir() else { return };
    let out = ok(&wl(&d, &["get", "jobsets", "-n", "lens-train"]));
    // One namespace: no NAMESPACE column, as kubectl.
    let header: Vec<&str> = out.lines().next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["NAME", "PHASE", "READY", "PODS", "GPUS", "AGE"]);
    // READY: ready pods of the desired ones (llama's second worker of
    // worker-1 is Pending).
    let ready = live_cells(&out);
    assert!(
        ready.contains(&("llama".into(), "4/5".into(), None)),
        "{ready:?}"
    );
    let r = rows(&out);
    let llama = r.iter().find(|r| r[0] == "llama").expect("llama listed");
    assert_eq!(llama[1..5], ["-", "Running", "5", "12"]);
    // Every namespace: NAMESPACE first.
    let all = ok(&wl(&d, &["get", "jobsets", "-A"]));
    assert!(all.starts_with("NAMESPACE "), "{all}");
    let llama = rows(&all)
        .into_iter()
        .find(|r| r[0] == "llama")
        .expect("llama listed");
    assert_eq!(llama[1..5], ["lens-train", "Running", "5", "12"]);
    let old = r
        .iter()
        .find(|r| r[0] == "old-api")
        .expect("old-api listed");
    assert_eq!(old[2..5], ["Initializing", "2", "2"]);
    assert_eq!(r.len(), 2, "{out}");
}

#[test]
fn type_tokens_are_lenient() {
    let Some(d) = live_dir() else { return };
    for t in ["JobSet", "jobset", "JOBSETS", "jobsets.jobset.x-k8s.io"] {
        let out = ok(&wl(&d, &["get", t, "-n", "lens-train"]));
        assert_eq!(names(&out), ["llama", "old-api"], "{t}");
    }
    let out = ok(&wl(&d, &["get", "lws", "-n", "lens-serve"]));
    assert_eq!(names(&out), ["vllm"]);
    // Another served version of a covered kind resolves through the
    // definition of its group and kind.
    let o = wl(
        &d,
        &[
            "get",
            "jobset.v1alpha1.jobset.x-k8s.io/old-api",
            "-n",
            "lens-train",
            "-o",
            "json",
        ],
    );
    let v = json_of(&o);
    assert_eq!(v["apiVersion"], "jobset.x-k8s.io/v1alpha1");
    assert_eq!(v["definition"], "jobset-x-k8s-io-jobset-v1alpha2");
    assert_eq!((v["pods"].as_u64(), v["gpus"].as_u64()), (Some(2), Some(2)));
}

#[test]
fn all_namespaces_and_paging() {
    let Some(d) = live_dir() else { return };
    let one = ok(&wl(&d, &["get", "jobsets", "-A"]));
    let paged = ok(&wl(&d, &["get", "jobsets", "-A", "--chunk-size", "5"]));
    assert_eq!(rows(&one).len(), 25, "{one}");
    assert_eq!(names(&one), names(&paged));
    // As kubectl orders them: by namespace, then name.
    let order: Vec<(String, String)> = rows(&one)
        .into_iter()
        .map(|r| (r[1].clone(), r[0].clone()))
        .collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted, "{one}");
    assert_eq!(rows(&one)[0][0], "page-00", "{one}");
    let v = json_of(&wl(
        &d,
        &[
            "get",
            "jobsets",
            "-n",
            "lens-paging",
            "--chunk-size",
            "1",
            "-o",
            "json",
        ],
    ));
    assert!(v["items"][0]["name"].as_str().unwrap().starts_with("page-"));
    assert_eq!(v["count"], 23);
}

#[test]
fn label_selectors_and_phases() {
    let Some(d) = live_dir() else { return };
    let out = ok(&wl(
        &d,
        &[
            "get",
            "jobsets",
            "-n",
            "lens-paging",
            "-l",
            "lens-test/page in (03,07)",
        ],
    ));
    assert_eq!(names(&out), ["page-03", "page-07"]);
    let out = ok(&wl(&d, &["get", "-A", "--phase", "running"]));
    assert_eq!(names(&out), ["bert", "llama", "ray-a", "vllm", "web"]);
    let out = ok(&wl(
        &d,
        &[
            "get",
            "jobsets",
            "-A",
            "--phase",
            "Initializing",
            "--phase",
            "Failed",
        ],
    ));
    assert_eq!(rows(&out).len(), 24);
    let o = wl(
        &d,
        &["get", "jobsets", "-n", "lens-train", "--phase", "Completed"],
    );
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("No workloads found in namespace lens-train."),
        "{}",
        stderr(&o)
    );
}

#[test]
fn all_types_lists_top_level_workloads_only() {
    let Some(d) = live_dir() else { return };
    let o = wl(&d, &["get", "--all-types", "-A", "-o", "wide"]);
    let out = ok(&o);
    let r = rows(&out);
    let mut listed: Vec<String> = r
        .iter()
        .filter(|r| !r[0].starts_with("page-"))
        .map(|r| format!("{}/{}", r[2], r[0]))
        .collect();
    listed.sort();
    // Not the JobSet's Jobs, the Deployment's ReplicaSet, the LWS's
    // StatefulSets or any pod: each has a covered controller.
    assert_eq!(
        listed,
        [
            "Deployment.apps/web",
            "Job.batch/other-batch",
            "JobSet.jobset.x-k8s.io/llama",
            "JobSet.jobset.x-k8s.io/old-api",
            "LeaderWorkerSet.leaderworkerset.x-k8s.io/vllm",
            "PyTorchJob.kubeflow.org/bert",
            "RayCluster.ray.io/ray-a",
        ]
    );
    assert_eq!(r.len(), 30);
    // The cluster's Karta overrides the catalog's RayCluster definition;
    // the invalid one is a warning after the output.
    let ray = r.iter().find(|r| r[0] == "ray-a").unwrap();
    assert_eq!(ray[7..9], ["lens-test-raycluster", "cluster"]);
    let llama = r.iter().find(|r| r[0] == "llama").unwrap();
    assert_eq!(llama[7..9], ["jobset-x-k8s-io-jobset-v1alpha2", "catalog"]);
    let err = stderr(&o);
    assert!(err.contains("definition Karta/lens-test-broken"), "{err}");
    assert!(err.contains("jq-syntax"), "{err}");
    assert!(
        !err.contains("line 1, column"),
        "cluster definitions have no lines: {err}"
    );
}

#[test]
fn definition_files_win_over_the_cluster() {
    let Some(d) = live_dir() else { return };
    let catalog = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../definitions/ray-io-raycluster-v1.yaml"
    );
    let out = ok(&wl(
        &d,
        &[
            "get",
            "raycluster/ray-a",
            "-n",
            "lens-serve",
            "-o",
            "wide",
            "-d",
            catalog,
        ],
    ));
    let r = rows(&out);
    assert_eq!(r[0][6..8], ["ray-io-raycluster-v1", "user"]);
}

#[test]
fn describe_a_workload_with_its_pods() {
    let Some(d) = live_dir() else { return };
    let o = wl(&d, &["describe", "jobset/llama", "-n", "lens-train"]);
    let out = ok(&o);
    let first = out.lines().next().unwrap();
    assert!(first.starts_with("JobSet/llama   namespace: lens-train   definition: jobset-x-k8s-io-jobset-v1alpha2 (catalog)   age: "), "{out}");
    assert!(
        out.contains("leader                       1/1 ready"),
        "{out}"
    );
    assert!(out.contains("3/4 ready"), "{out}");
    assert!(out.contains("Failed (Error)"), "{out}");
    assert!(
        out.contains("Pending (Unschedulable)   gpu: 2   <none>"),
        "{out}"
    );
    // The stray pod has llama's labels but another controller: listed apart,
    // not counted; other workloads' pods (bert's) are not mentioned.
    let strays = out
        .split("Not this workload's pods:")
        .nth(1)
        .expect("stray section");
    assert!(strays.contains("llama-worker-0-0-stray"), "{out}");
    assert!(strays.contains("ends at Job other-batch"), "{out}");
    assert!(!out.contains("bert"), "{out}");
    assert!(out.contains("Status: Running"), "{out}");
    assert!(out.contains("TOTAL       5          12"), "{out}");
    // TYPE NAME works as TYPE/NAME; -o json has the live pods and gangs.
    let v = json_of(&wl(
        &d,
        &[
            "describe",
            "JobSet",
            "llama",
            "-n",
            "lens-train",
            "-o",
            "json",
        ],
    ));
    assert_eq!(v["resolved"]["totals"]["resources"]["gpu"], 12);
    assert_eq!(v["resolved"]["strayPods"].as_array().unwrap().len(), 1);
    assert_eq!(v["gang"]["groups"].as_array().unwrap().len(), 1);
}

#[test]
fn describe_limits_and_owner_chains_through_pods() {
    let Some(d) = live_dir() else { return };
    // LWS workers are controlled by a StatefulSet that the leader pod
    // controls: the chain runs through a pod.
    let out = ok(&wl(&d, &["describe", "lws/vllm", "-n", "lens-serve"]));
    assert!(out.contains("worker         4/4 ready"), "{out}");
    assert!(!out.contains("Not this workload's pods"), "{out}");
    let out = ok(&wl(
        &d,
        &[
            "describe",
            "lws/vllm",
            "-n",
            "lens-serve",
            "--component-limit",
            "1",
        ],
    ));
    assert!(
        out.contains("... and 1 more component (0 unhealthy, 0 with missing pods)"),
        "{out}"
    );
    let out = ok(&wl(
        &d,
        &[
            "describe",
            "jobset/llama",
            "-n",
            "lens-train",
            "--pod-limit",
            "1",
            "--component-limit",
            "1",
        ],
    ));
    // The worker (unhealthy pods) comes before the healthy leader.
    assert!(out.contains("|-- worker"), "{out}");
    assert!(!out.contains("-- leader"), "{out}");
    assert!(
        out.contains("... and 1 more component (0 unhealthy, 0 with missing pods)"),
        "{out}"
    );
    assert!(out.contains("... and 4 more (1 unhealthy shown)"), "{out}");
    // The cluster's definition, in describe too.
    let out = ok(&wl(
        &d,
        &["describe", "raycluster/ray-a", "-n", "lens-serve"],
    ));
    assert!(
        out.contains("definition: lens-test-raycluster (cluster)"),
        "{out}"
    );
    assert!(out.contains("ray-head"), "{out}");
}

/// Issue 32's kubectl-grade describe: labels, Controlled By, conditions,
/// the pods not scheduled and the last events (testing/live/fixtures/
/// 70-events.yaml), of the workload, its pods and the owners between them
/// only; and the noise gone: no empty `replicaset` row, no look-alikes for a
/// bare Pod, the workload's own owner pod never "not this workload's".
#[test]
fn describe_shows_labels_conditions_and_events_without_noise() {
    let Some(d) = live_dir() else { return };
    let out = ok(&wl(&d, &["describe", "jobset/llama", "-n", "lens-train"]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "Labels:         team=llm", "{out}");
    assert_eq!(lines[3], "Controlled By:  <none>", "{out}");
    assert!(out.contains("StartupPolicyCompleted   True     StartupPolicyCompleted   2026-01-01T00:00:00Z   all replicated jobs have started"), "{out}");
    let not_scheduled = out.split("Not scheduled:").nth(1).expect("not scheduled");
    assert!(
        not_scheduled.contains("llama-worker-1-1-q8h3v   Unschedulable   0/8 nodes are available"),
        "{out}"
    );
    let events: Vec<&str> = out
        .split("\nEvents:\n")
        .nth(1)
        .expect("events")
        .lines()
        .skip(1)
        .collect();
    // Newest first: the scheduler's (last at 00:05), the Job's, the kubelet's.
    assert_eq!(events.len(), 3, "{out}");
    assert!(
        events[0].starts_with("Warning   FailedScheduling")
            && events[0].contains("(x4 over ")
            && events[0].contains("Pod/llama-worker-1-1-q8h3v"),
        "{out}"
    );
    assert!(
        events[1].contains("SuccessfulCreate") && events[1].contains("Job/llama-worker-1"),
        "{out}"
    );
    assert!(events[2].contains("BackoffLimitExceeded"), "{out}");
    // The stray pod's event, and bert's, are other workloads'.
    assert!(
        !out.contains("Unhealthy") && !out.contains("PyTorchJobRunning"),
        "{out}"
    );
    let v = json_of(&wl(
        &d,
        &["describe", "jobset/llama", "-n", "lens-train", "-o", "json"],
    ));
    assert_eq!(v["events"].as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!(v["events"][0]["reason"], "FailedScheduling");
    assert_eq!(v["events"][0]["count"], 4);
    assert_eq!(v["eventsLeftOut"], 0);

    // A Deployment: no empty replicaset row; its ReplicaSet's events.
    let out = ok(&wl(&d, &["describe", "deployment/web", "-n", "lens-serve"]));
    assert!(
        !out.contains("replicaset\n") && !out.contains("-- replicaset"),
        "{out}"
    );
    assert!(
        out.contains("ReplicaSet/web-6b7f9c8d4f") && out.contains("ScalingReplicaSet"),
        "{out}"
    );
    assert!(
        out.contains("Available     True     MinimumReplicasAvailable"),
        "{out}"
    );

    // A bare Pod: its own pod, no look-alikes among the namespace's others.
    let o = wl(
        &d,
        &[
            "describe",
            "pod/ray-tune-gpu-worker-manual",
            "-n",
            "lens-account",
        ],
    );
    let out = ok(&o);
    assert!(!out.contains("Not this workload's pods"), "{out}");
    assert!(!stderr(&o).contains("look like"), "{}", stderr(&o));
    assert!(
        out.contains("`-- ray-tune-gpu-worker-manual   Pending (Unschedulable)"),
        "{out}"
    );
    assert!(
        out.contains("PodScheduled   False    Unschedulable"),
        "{out}"
    );
    let out = ok(&wl(
        &d,
        &[
            "describe",
            "pod/ray-tune-gpu-worker-old",
            "-n",
            "lens-account",
        ],
    ));
    assert!(
        out.contains("pod                           1/1 ready"),
        "{out}"
    );

    // An LWS group's StatefulSet: controlled by its leader pod, which is
    // above it, not a pod "not this workload's".
    let out = ok(&wl(
        &d,
        &["describe", "statefulset/vllm-0", "-n", "lens-serve"],
    ));
    assert!(out.contains("Controlled By:  Pod/vllm-0"), "{out}");
    assert!(!out.contains("Not this workload's pods"), "{out}");
    assert!(out.contains("statefulset    2/2 ready"), "{out}");

    // A user who may not list events: a warning, not a failure.
    let o = wl_as(
        &d,
        "kubeconfig-viewer",
        &["describe", "jobset/llama", "-n", "lens-train"],
    );
    let out = ok(&o);
    assert!(out.ends_with("\nEvents: <none>\n"), "{out}");
    assert!(
        stderr(&o).contains("the events in namespace lens-train could not be listed"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn not_found_unknown_and_uncovered_types() {
    let Some(d) = live_dir() else { return };
    let o = wl(&d, &["describe", "jobset/nope", "-n", "lens-train"]);
    assert_eq!(o.status.code(), Some(6));
    assert!(
        stderr(&o).contains("JobSet 'nope' not found in namespace lens-train"),
        "{}",
        stderr(&o)
    );
    let o = wl(
        &d,
        &["get", "jobset/nope", "-n", "lens-train", "-o", "json"],
    );
    assert_eq!(o.status.code(), Some(6));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["error"], "not_found");
    let o = wl(&d, &["get", "frobnicators"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("does not serve a type named 'frobnicators'"),
        "{}",
        stderr(&o)
    );
    let o = wl(&d, &["get", "services", "-o", "json"]);
    assert_eq!(o.status.code(), Some(4));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["error"], "no_definition");
}

#[test]
fn rbac_denial_of_one_type() {
    let Some(d) = live_dir() else { return };
    // The viewer may list everything but PyTorchJobs: the others are
    // listed and the denial is a warning.
    let o = wl_as(&d, "kubeconfig-viewer", &["get", "-A"]);
    let out = ok(&o);
    let n = names(&out);
    assert!(
        n.contains(&"llama".to_string()) && !n.contains(&"bert".to_string()),
        "{out}"
    );
    assert!(
        stderr(&o).contains("pytorchjobs.kubeflow.org not listed"),
        "{}",
        stderr(&o)
    );
    let o = wl_as(&d, "kubeconfig-viewer", &["get", "pytorchjobs", "-A"]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(stderr(&o).contains("forbidden"), "{}", stderr(&o));
    let o = wl_as(
        &d,
        "kubeconfig-viewer",
        &[
            "describe",
            "pytorchjob/bert",
            "-n",
            "lens-train",
            "-o",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(8));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["error"], "forbidden");
}

/// Issue 32, on lens-account (testing/live/fixtures/60-lens-account.yaml):
/// `get` and `top` count every pod once and lose none. An orphaned pod and a
/// pod with no controller are workloads of their own (not counted into the
/// RayCluster their labels name); for the viewer, who may not list
/// TrainJobs, the JobSet a TrainJob owns stays visible with its 8 GPUs.
#[test]
fn accounting_counts_every_pod_once_and_loses_none() {
    let Some(d) = live_dir() else { return };
    let rows = |o: &Output| -> Vec<(String, String, u64, String)> {
        let v = json_of(o);
        let mut r: Vec<_> = v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                (
                    i["kind"].as_str().unwrap().to_string(),
                    i["name"].as_str().unwrap().to_string(),
                    i["gpus"].as_u64().unwrap(),
                    i["owner"]["state"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        r.sort();
        r
    };
    let s = |k: &str, n: &str, g: u64, o: &str| (k.to_string(), n.to_string(), g, o.to_string());
    let admin = wl(&d, &["get", "-n", "lens-account", "-o", "json"]);
    assert_eq!(
        rows(&admin),
        [
            s("Pod", "ray-tune-gpu-worker-manual", 1, ""),
            s("Pod", "ray-tune-gpu-worker-old", 1, "orphaned"),
            s("RayCluster", "ray-tune", 1, ""),
            s("TrainJob", "sft", 8, ""),
        ]
    );
    assert!(
        stderr(&admin).contains("its controller RayCluster ray-tune")
            && stderr(&admin).contains("with its 1 GPU"),
        "{}",
        stderr(&admin)
    );
    let viewer = wl_as(
        &d,
        "kubeconfig-viewer",
        &["get", "-n", "lens-account", "-o", "json"],
    );
    assert_eq!(
        rows(&viewer),
        [
            s("JobSet", "sft", 8, "unreadable"),
            s("Pod", "ray-tune-gpu-worker-manual", 1, ""),
            s("Pod", "ray-tune-gpu-worker-old", 1, "orphaned"),
            s("RayCluster", "ray-tune", 1, ""),
        ]
    );
    assert!(
        stderr(&viewer).contains("JobSet sft in namespace lens-account is controlled by TrainJob sft, whose type you may not list")
            && stderr(&viewer).contains("with its 8 GPUs"),
        "{}",
        stderr(&viewer)
    );
    // top adds the same rows: 11 GPUs, for the admin and the viewer.
    for k in ["kubeconfig", "kubeconfig-viewer"] {
        let v = json_of(&wl_as(&d, k, &["top", "-n", "lens-account", "-o", "json"]));
        assert_eq!(v["total"]["gpus"], 11, "{k}: {v}");
    }
    // The RayCluster's own pods only: the look-alikes are listed apart.
    let o = wl(
        &d,
        &["describe", "raycluster/ray-tune", "-n", "lens-account"],
    );
    let out = ok(&o);
    assert!(out.contains("1/1 ready"), "{out}");
    let apart = out
        .split("Not this workload's pods:")
        .nth(1)
        .unwrap_or_default();
    assert!(
        apart.contains("ray-tune-gpu-worker-manual") && apart.contains("ray-tune-gpu-worker-old"),
        "{out}"
    );
    let gang = out.split("Gang groups:").nth(1).unwrap_or_default();
    assert!(
        gang.lines()
            .nth(2)
            .is_some_and(|l| l.trim_end().ends_with(" 2")),
        "{out}"
    );
}

#[test]
fn unauthorized_and_unreachable() {
    let Some(d) = live_dir() else { return };
    let admin = std::fs::read_to_string(d.join("kubeconfig")).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    // A token the server does not know.
    let token_line = admin
        .lines()
        .find(|l| l.trim_start().starts_with("token:"))
        .unwrap();
    let bad = admin.replace(token_line, "    token: not-a-token");
    std::fs::write(tmp.path().join("bad-token"), bad).unwrap();
    let o = wl_as(tmp.path(), "bad-token", &["get", "jobsets", "-A"]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("refused the credentials"),
        "{}",
        stderr(&o)
    );
    // A server that is not there: a port nothing listens on.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let server_line = admin
        .lines()
        .find(|l| l.trim_start().starts_with("server:"))
        .unwrap();
    let gone = admin.replace(
        server_line,
        &format!("    server: https://127.0.0.1:{port}"),
    );
    std::fs::write(tmp.path().join("gone"), gone).unwrap();
    let start = Instant::now();
    let o = wl_as(tmp.path(), "gone", &["get", "jobsets", "-A", "-o", "json"]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(start.elapsed() < Duration::from_secs(20));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["error"], "unreachable");
    assert!(
        stderr(&o).contains("cannot reach https://127.0.0.1:"),
        "{}",
        stderr(&o)
    );
    // No kubeconfig at all.
    let o = bin()
        .args(["get", "jobsets"])
        .env("HOME", tmp.path())
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no cluster configured"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn each_page_is_read_within_the_limits() {
    let Some(d) = live_dir() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let limits = tmp.path().join("limits.yaml");
    std::fs::write(&limits, "maxInputBytes: 8000\n").unwrap();
    let l = limits.to_str().unwrap();
    // 23 JobSets in one page are more than 8,000 bytes; 2 per page are not.
    let o = wl(&d, &["--limits", l, "get", "jobsets", "-n", "lens-paging"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("maxInputBytes"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a smaller chunk size (now 500) makes pages smaller"),
        "{}",
        stderr(&o)
    );
    let out = ok(&wl(
        &d,
        &[
            "--limits",
            l,
            "get",
            "jobsets",
            "-n",
            "lens-paging",
            "--chunk-size",
            "2",
        ],
    ));
    assert_eq!(rows(&out).len(), 23);
    // Pages within the limits, but more in all than the operation may keep.
    std::fs::write(&limits, "maxClusterBytes: 30000\n").unwrap();
    let o = wl(
        &d,
        &[
            "--limits",
            l,
            "get",
            "jobsets",
            "-n",
            "lens-paging",
            "--chunk-size",
            "2",
        ],
    );
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("limit maxClusterBytes (30000 bytes")
            && stderr(&o).contains("listing jobsets.jobset.x-k8s.io in namespace lens-paging"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn contexts_yaml_output_and_timings() {
    let Some(d) = live_dir() else { return };
    // A second context, current, whose cluster is not there, and whose
    // namespace is lens-train: --context picks the working one, and the
    // namespace comes from the context chosen.
    let admin = std::fs::read_to_string(d.join("kubeconfig")).unwrap();
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let two = admin
        .replace(
            "clusters:\n",
            &format!("clusters:\n- name: gone\n  cluster:\n    server: https://127.0.0.1:{port}\n"),
        )
        .replace(
            "contexts:\n",
            "contexts:\n- name: gone\n  context:\n    cluster: gone\n    user: lens-admin\n    namespace: lens-train\n",
        )
        .replace("current-context: lens-admin@kapi", "current-context: gone");
    let live_ctx = two.replace("    namespace: default", "    namespace: lens-train");
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("two"), &live_ctx).unwrap();
    let o = wl_as(tmp.path(), "two", &["get", "jobsets"]);
    assert_eq!(
        o.status.code(),
        Some(7),
        "the current context is the gone one: {}",
        stderr(&o)
    );
    let out = ok(&wl_as(
        tmp.path(),
        "two",
        &["get", "jobsets", "--context", "lens-admin@kapi"],
    ));
    assert_eq!(names(&out), ["llama", "old-api"], "{out}");
    let o = wl_as(tmp.path(), "two", &["get", "jobsets", "--context", "nope"]);
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    // -o yaml: {items, count}.
    let out = ok(&wl(&d, &["get", "lws", "-n", "lens-serve", "-o", "yaml"]));
    assert!(out.starts_with("items:\n- name: vllm\n"), "{out}");
    assert!(out.contains("\ncount: 1\n"), "{out}");
    // --timings: one line on stderr saying where the time went.
    let o = wl(&d, &["get", "jobsets", "-A", "--timings"]);
    ok(&o);
    let t = stderr(&o);
    let line = t
        .lines()
        .find(|l| l.starts_with("timings: total "))
        .unwrap_or_else(|| panic!("{t}"));
    for part in [
        "connect",
        "requests",
        "replies",
        "reading and resolving",
        "objects kept",
    ] {
        assert!(line.contains(part), "{line}");
    }
}

/// Flakies (testing/live/crds/flakies.lens.test.yaml) answer HTTP 500 when
/// listed, as a CRD with a broken conversion webhook does.
#[test]
fn a_type_the_server_fails_to_list() {
    let Some(d) = live_dir() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let def = root.join("testing/live/flaky-definition.yaml");
    let def = def.to_str().unwrap();
    // Every type: left out with a warning, the rest listed (exit 0).
    let o = wl(&d, &["get", "-A", "-d", def]);
    let out = ok(&o);
    assert!(names(&out).contains(&"llama".to_string()), "{out}");
    let err = stderr(&o);
    assert!(
        err.lines()
            .any(|l| l.starts_with("warning: flakies.lens.test not listed: ") && l.contains("500")),
        "{err}"
    );
    // Asked for by name: the command fails with the server's error, exit 1.
    let o = wl(&d, &["get", "flakies", "-A", "-d", def]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("listing flakies"), "{}", stderr(&o));
    let o = wl(&d, &["get", "flakies", "-A", "-d", def, "-o", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["error"], "api", "{v}");
    // Not covered without the definition: not listed, no warning about it.
    let o = wl(&d, &["get", "-A"]);
    assert!(!stderr(&o).contains("flakies"), "{}", stderr(&o));
}

#[test]
fn top_adds_up_gpus_and_pods() {
    let Some(d) = live_dir() else { return };
    let out = ok(&wl(&d, &["top", "-A"]));
    let (by_ns, by_type) = out.split_once("\n\n").unwrap();
    let ns = rows(by_ns);
    let row = |n: &str| ns.iter().find(|r| r[0] == n).cloned().unwrap_or_default();
    // WORKLOADS PODS GPUS (declared by active workloads), LIVE-PODS
    // HELD-GPUS PENDING-GPUS (the pods that exist), INACTIVE INACTIVE-GPUS.
    // lens-train: llama's 5 pods hold 12 GPUs (2 of them pending), bert's
    // 4 pods 4, the stray Job's pod 4 (its template declares none).
    assert_eq!(
        row("lens-train")[1..],
        ["4", "12", "18", "10", "20", "2", "0", "0"],
        "{out}"
    );
    assert_eq!(
        row("lens-serve")[1..],
        ["3", "11", "8", "11", "8", "0", "0", "0"],
        "{out}"
    );
    assert_eq!(
        row("lens-paging")[1..],
        ["23", "23", "23", "0", "0", "0", "0", "0"],
        "{out}"
    );
    // lens-scale: the autoscaled InferenceService counts the 3 pods its
    // autoscaler runs (declared minimum 2); the suspended JobSet declares
    // nothing (its 4 GPUs are INACTIVE-GPUS).
    let scale = rows(&ok(&wl(&d, &["top", "-n", "lens-scale"])));
    assert_eq!(
        scale[0][1..],
        ["3", "6", "11", "3", "3", "0", "1", "4"],
        "{scale:?}"
    );
    let suspended = rows(&ok(&wl(
        &d,
        &["top", "-n", "lens-scale", "--phase", "suspended"],
    )));
    assert_eq!(suspended[0][1..], ["1", "0", "0", "0", "0", "0", "1", "4"]);
    let o = wl(&d, &["top", "-A", "--phase", "Bogus"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(ns.last().unwrap()[0], "TOTAL");
    // Most GPUs first.
    assert_eq!(ns[0][0], "lens-paging", "{out}");
    assert!(by_type.starts_with("TYPE"), "{out}");
    let v = json_of(&wl(&d, &["top", "-n", "lens-train", "-o", "json"]));
    assert_eq!(
        (
            v["total"]["workloads"].as_u64(),
            v["total"]["pods"].as_u64(),
            v["total"]["gpus"].as_u64()
        ),
        (Some(4), Some(12), Some(18))
    );
    let t: Vec<(&str, u64)> = v["byType"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap(), r["gpus"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        t,
        [
            ("JobSet.jobset.x-k8s.io", 14),
            ("PyTorchJob.kubeflow.org", 4),
            ("Job.batch", 0)
        ]
    );
}

/// Issue 32: kubectl's output options.
#[test]
fn kubectl_output_options() {
    let Some(d) = live_dir() else { return };
    // -o name: kind.group/name.
    let out = ok(&wl(&d, &["get", "-n", "lens-serve", "-o", "name"]));
    let mut n: Vec<&str> = out.lines().collect();
    n.sort();
    assert_eq!(
        n,
        [
            "deployment.apps/web",
            "leaderworkerset.leaderworkerset.x-k8s.io/vllm",
            "raycluster.ray.io/ray-a"
        ]
    );
    // --no-headers, --sort-by in its spellings.
    let out = ok(&wl(
        &d,
        &[
            "get",
            "jobsets",
            "-n",
            "lens-train",
            "--no-headers",
            "--sort-by",
            "name",
        ],
    ));
    let first: Vec<&str> = out.lines().map(|l| l.split(' ').next().unwrap()).collect();
    assert_eq!(first, ["llama", "old-api"], "{out}");
    for by in ["{.metadata.name}", ".metadata.name", "NAME"] {
        let v = json_of(&wl(
            &d,
            &[
                "get",
                "jobsets",
                "-n",
                "lens-paging",
                "--sort-by",
                by,
                "-o",
                "json",
            ],
        ));
        assert_eq!(v["items"][0]["name"], "page-00", "{by}");
        assert_eq!(v["items"][22]["name"], "page-22", "{by}");
    }
    let v = json_of(&wl(
        &d,
        &["get", "-n", "lens-train", "--sort-by", "gpus", "-o", "json"],
    ));
    let gpus: Vec<u64> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["gpus"].as_u64().unwrap())
        .collect();
    assert!(gpus.windows(2).all(|w| w[0] <= w[1]), "{gpus:?}");
    let out = ok(&wl(&d, &["top", "-n", "lens-train", "--no-headers"]));
    assert!(out.starts_with("lens-train "), "{out}");
    assert!(!out.contains("WORKLOADS"), "{out}");
}

/// Issue 32: several names in one `get`; one not found is an error line,
/// the others are printed, exit 6; the cluster's warnings once.
#[test]
fn several_names_in_one_get() {
    let Some(d) = live_dir() else { return };
    let o = wl(
        &d,
        &[
            "get",
            "jobsets",
            "llama",
            "nope",
            "old-api",
            "-n",
            "lens-train",
        ],
    );
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    assert_eq!(names(&stdout(&o)), ["llama", "old-api"]);
    let err = stderr(&o);
    assert!(
        err.lines().any(|l| l
            == "Error from server (NotFound): JobSet 'nope' not found in namespace lens-train"),
        "{err}"
    );
    assert_eq!(
        err.matches("warning: definition Karta/lens-test-broken")
            .count(),
        1,
        "{err}"
    );
    // TYPE/NAME of two types: a TYPE column; JSON is {items, count}.
    let out = ok(&wl(
        &d,
        &["get", "jobset/llama", "pytorchjob/bert", "-n", "lens-train"],
    ));
    assert!(out.lines().next().unwrap().contains("TYPE"), "{out}");
    assert_eq!(names(&out), ["bert", "llama"]);
    let v = json_of(&wl(
        &d,
        &[
            "get",
            "jobset/llama",
            "jobset/old-api",
            "-n",
            "lens-train",
            "-o",
            "json",
        ],
    ));
    assert_eq!(v["count"], 2);
    let o = wl(&d, &["get", "jobset/llama", "llama", "-n", "lens-train"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// Issue 32: `--no-cluster-definitions` reads none of the cluster's
/// definitions: no warning about the invalid Karta, and ray-a resolves
/// through the catalog.
#[test]
fn without_the_clusters_definitions() {
    let Some(d) = live_dir() else { return };
    let o = wl(&d, &["get", "-n", "lens-serve", "-o", "wide"]);
    assert!(stderr(&o).contains("lens-test-broken"), "{}", stderr(&o));
    let o = wl(
        &d,
        &[
            "get",
            "-n",
            "lens-serve",
            "-o",
            "wide",
            "--no-cluster-definitions",
        ],
    );
    let out = ok(&o);
    assert_eq!(stderr(&o), "");
    let ray = rows(&out).into_iter().find(|r| r[0] == "ray-a").unwrap();
    assert_eq!(ray[7..9], ["ray-io-raycluster-v1", "catalog"], "{out}");
    let o = wl(
        &d,
        &[
            "describe",
            "jobset/llama",
            "-n",
            "lens-train",
            "--no-cluster-definitions",
        ],
    );
    ok(&o);
    assert!(!stderr(&o).contains("lens-test-broken"), "{}", stderr(&o));
    let o = wl(&d, &["top", "-A", "--no-cluster-definitions"]);
    ok(&o);
    assert!(!stderr(&o).contains("lens-test-broken"), "{}", stderr(&o));
}

#[test]
fn watch_prints_a_row_when_the_phase_changes() {
    let Some(d) = live_dir() else { return };
    let _alone = EVERY_NAMESPACE.lock().unwrap_or_else(|e| e.into_inner());
    let api = Api::new(&d.join("kubeconfig"));
    // A namespace of its own, new on every run.
    let ns = &format!("lens-watch-cli-{}", std::process::id());
    let _ = api.try_send(
        "POST",
        "/api/v1/namespaces",
        "application/json",
        &json!({
            "apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}
        }),
    );
    let base = format!("/apis/jobset.x-k8s.io/v1alpha2/namespaces/{ns}/jobsets");
    api.send("POST", &base, "application/json", &json!({
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": "watched"},
        "spec": {"replicatedJobs": [{"name": "main", "replicas": 2, "template": {"spec": {
            "parallelism": 1, "completions": 1, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}}}]}
    }));
    let mut child = bin()
        .args(["get", "jobsets", "-n", ns, "--watch", "--kubeconfig"])
        .arg(d.join("kubeconfig"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let next = |what: &str| {
        rx.recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no line for {what}"))
    };
    assert!(next("the header").starts_with("NAME"));
    let first = next("the row");
    assert!(
        first.contains("watched") && first.contains("Initializing"),
        "{first}"
    );
    // The status changes: a new row.
    api.send("PATCH", &format!("{base}/watched/status"), "application/merge-patch+json", &json!({
        "status": {"conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted",
            "message": "done", "lastTransitionTime": "2026-12-05T00:00:00Z"}]}
    }));
    let changed = next("the completed row");
    assert!(
        changed.contains("watched") && changed.contains("Completed"),
        "{changed}"
    );
    // A change that moves neither the phase nor the GPUs prints nothing;
    // a change of the GPUs does.
    api.send(
        "PATCH",
        &format!("{base}/watched"),
        "application/merge-patch+json",
        &json!({
            "metadata": {"labels": {"touched": "yes"}}
        }),
    );
    api.send("PATCH", &format!("{base}/watched"), "application/merge-patch+json", &json!({
        "spec": {"replicatedJobs": [{"name": "main", "replicas": 3, "template": {"spec": {
            "parallelism": 1, "completions": 1, "template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}}}]}
    }));
    let gpus = next("the GPU row");
    let cells: Vec<&str> = gpus.split_whitespace().collect();
    // NAME PHASE READY PODS GPUS: a row of the watch has no READY (the
    // watch follows the workloads, not their pods).
    assert_eq!(
        cells[0..5],
        ["watched", "Completed", "-", "3", "3"],
        "{gpus}"
    );
    let _ = child.kill();
    let _ = child.wait();
    // Leave nothing for the suites that list every namespace after this one.
    api.send(
        "DELETE",
        &format!("{base}/watched"),
        "application/json",
        &json!({}),
    );
}

/// The cluster examples of `doc` (its text; `name` for the messages), run
/// against the live server; the commands run, once all printed what the
/// document shows.
fn check_live_examples(d: &Path, name: &str, doc: &str) -> Vec<String> {
    let live: Vec<_> = doc_examples::examples(doc)
        .into_iter()
        .filter(doc_examples::needs_cluster)
        .collect();
    let kubeconfig = d.join("kubeconfig");
    let failures = doc_examples::run(
        name,
        &live,
        &[("KUBECONFIG", kubeconfig.to_str().unwrap())],
        true,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    live.into_iter().map(|e| e.command).collect()
}

#[test]
fn the_live_examples_of_the_cli_guide_are_what_the_cli_prints() {
    let Some(d) = live_dir() else { return };
    let commands = check_live_examples(&d, "docs/cli.md", include_str!("../../docs/cli.md"));
    assert!(commands.len() >= 6, "{commands:?}");
}

/// The live example of docs/diagnosis.md: `why` of the seeded JobSet.
#[test]
fn the_live_examples_of_the_diagnosis_guide_are_what_the_cli_prints() {
    let Some(d) = live_dir() else { return };
    let _alone = EVERY_NAMESPACE.lock().unwrap_or_else(|e| e.into_inner());
    let commands = check_live_examples(
        &d,
        "docs/diagnosis.md",
        include_str!("../../docs/diagnosis.md"),
    );
    assert!(commands.iter().any(|c| c.contains("why ")), "{commands:?}");
}

/// The README's quick start on a live cluster: `get jobsets -A` lists every
/// namespace, so it does not run while the watch test has its JobSet.
#[test]
fn the_live_examples_of_the_readme_are_what_the_cli_prints() {
    let Some(d) = live_dir() else { return };
    let _alone = EVERY_NAMESPACE.lock().unwrap_or_else(|e| e.into_inner());
    let commands = check_live_examples(&d, "README.md", include_str!("../../README.md"));
    assert_eq!(
        commands,
        [
            "workload-lens get jobsets -A",
            "workload-lens describe jobset/llama -n lens-train"
        ]
    );
}

/// Held by the tests that add objects a listing of every namespace would
/// show, and by those that show such a listing.
static EVERY_NAMESPACE: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn autoscaled_counts_versions_and_held_pods() {
    let Some(d) = live_dir() else { return };
    // The InferenceService's autoscaler runs 3 pods (the Deployment it
    // scales says 3); the object declares its minimum, 2.
    let v = json_of(&wl(
        &d,
        &["get", "isvc/llm", "-n", "lens-scale", "-o", "json"],
    ));
    assert_eq!(
        (
            v["pods"].as_u64(),
            v["gpus"].as_u64(),
            v["declaredPods"].as_u64()
        ),
        (Some(3), Some(3), Some(2)),
        "{v}"
    );
    assert_eq!(
        v["live"],
        json!({"pods": 3, "ready": 3, "gpus": 3, "pendingGpus": 0})
    );
    let out = ok(&wl(&d, &["get", "isvc", "-n", "lens-scale"]));
    assert!(
        live_cells(&out).contains(&("llm".into(), "3/3".into(), None)),
        "{out}"
    );
    // describe: ready of the current count, the declared one beside it.
    let out = ok(&wl(&d, &["describe", "isvc/llm", "-n", "lens-scale"]));
    assert!(out.contains("3/3 ready (autoscaled; declared 2)"), "{out}");
    // Read at v1 (the definition's version): numOfHosts counts.
    let o = wl(
        &d,
        &[
            "get",
            "rayclusters/ray-multi",
            "-n",
            "lens-scale",
            "-o",
            "json",
        ],
    );
    let v = json_of(&o);
    assert_eq!(
        (v["pods"].as_u64(), v["gpus"].as_u64()),
        (Some(3), Some(8)),
        "{v}"
    );
    assert!(!stderr(&o).contains("read at"), "{}", stderr(&o));
    // Asked for at v1alpha1, the server drops numOfHosts: a warning says so.
    let o = wl(
        &d,
        &[
            "get",
            "RayCluster.v1alpha1.ray.io/ray-multi",
            "-n",
            "lens-scale",
            "-o",
            "json",
        ],
    );
    let v = json_of(&o);
    assert_eq!(
        (v["pods"].as_u64(), v["gpus"].as_u64()),
        (Some(2), Some(4)),
        "{v}"
    );
    let err = stderr(&o);
    assert!(
        err.contains("warning: RayCluster is read at v1alpha1, but its definition")
            && err.contains("RayCluster.v1.ray.io"),
        "{err}"
    );
    // Every pod that has not finished is counted once, in the admin's view
    // and in the viewer's (whose JobSet sft stands alone): the scenario's
    // namespaces hold 28.
    let scenario = |v: &Value| -> u64 {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                r["namespace"].as_str().is_some_and(|n| {
                    SCENARIO.contains(&n) || n == "lens-account" || n == "lens-scale"
                })
            })
            .map(|r| r["live"]["pods"].as_u64().unwrap())
            .sum()
    };
    let admin = json_of(&wl(&d, &["get", "-A", "-o", "json"]));
    assert_eq!(scenario(&admin), 28, "{admin}");
    let viewer = d.join("kubeconfig-viewer");
    let viewer = json_of(&wl_as(
        &d,
        viewer.to_str().unwrap(),
        &["get", "-A", "-o", "json"],
    ));
    assert_eq!(scenario(&viewer), 28);
}

/// Every namespace of the scenario (the tests that add objects use their own).
const SCENARIO_ALL: &[&str] = &[
    "lens-account",
    "lens-paging",
    "lens-scale",
    "lens-serve",
    "lens-train",
];

#[test]
fn serve_reports_what_get_says_and_follows_changes() {
    use exporter::{Exporter, check_against_rows, value};
    let Some(d) = live_dir() else { return };
    let _alone = EVERY_NAMESPACE.lock().unwrap_or_else(|e| e.into_inner());
    let kc = d.join("kubeconfig");
    let mut e = Exporter::start(&kc, &[]);
    assert_eq!(e.get("/healthz", None).0, 200);
    // Every workload of the scenario reads as `get -A -o json` reads it.
    let samples = e.scrape();
    let rows = json_of(&wl(&d, &["get", "-A", "-o", "json"]));
    let checked = check_against_rows(&samples, rows["items"].as_array().unwrap(), SCENARIO_ALL);
    assert!(checked >= 35, "{checked}");
    // Per component and per pod: llama's worker instance has 4 desired
    // replicas, 3 of its 4 pods ready; its pods carry their component.
    let llama = [
        ("namespace", "lens-train"),
        ("workload", "llama"),
        ("component_instance", "worker"),
    ];
    assert_eq!(
        value(&samples, "workload_lens_component_replicas_desired", &llama),
        Some(4.0)
    );
    assert_eq!(
        value(&samples, "workload_lens_component_pods_ready", &llama),
        Some(3.0)
    );
    let workers = samples
        .iter()
        .filter(|s| s.name == "workload_lens_pod_info")
        .filter(|s| s.labels["workload"] == "llama" && s.labels["component_instance"] == "worker")
        .count();
    assert_eq!(workers, 4);
    // The look-alike pod named like llama's is the Job's it belongs to.
    assert_eq!(
        value(
            &samples,
            "workload_lens_pod_info",
            &[
                ("pod", "llama-worker-0-0-stray"),
                ("workload", "other-batch")
            ]
        ),
        Some(1.0)
    );
    // Every watch is up; the exposition is valid for Prometheus' linter.
    let ups: Vec<f64> = samples
        .iter()
        .filter(|s| s.name == "workload_lens_exporter_watch_up")
        .map(|s| s.value)
        .collect();
    assert!(ups.len() > 5 && ups.iter().all(|v| *v == 1.0), "{ups:?}");
    let (_, text) = e.get("/metrics", None);
    if let Ok(mut lint) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        use std::io::Write;
        lint.stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = lint.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "promtool: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    // OpenMetrics when asked for, as Prometheus asks.
    let (_, om) = e.get(
        "/metrics",
        Some("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
    );
    assert!(
        om.ends_with("# EOF\n")
            && om.contains("# TYPE workload_lens_exporter_watch_restarts counter")
    );

    // Changes: a Job with one pod appears; the pod turning ready resolves
    // that Job alone again; deleted, its series go.
    let api = Api::new(&kc);
    let ns = &format!("lens-serve-test-{}", std::process::id());
    let _ = api.try_send(
        "POST",
        "/api/v1/namespaces",
        "application/json",
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
    );
    let job = api.send("POST", &format!("/apis/batch/v1/namespaces/{ns}/jobs"), "application/json", &json!({
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "probe"},
        "spec": {"template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}}}
    }));
    let uid = job["metadata"]["uid"].as_str().unwrap().to_string();
    api.send("POST", &format!("/api/v1/namespaces/{ns}/pods"), "application/json", &json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "probe-abc", "labels": {"job-name": "probe", "batch.kubernetes.io/job-name": "probe"},
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "probe", "uid": uid, "controller": true}]},
        "spec": {"nodeName": "gpu-node-09", "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}
    }));
    let probe = [
        ("namespace", ns.as_str()),
        ("workload", "probe"),
        ("kind", "Job"),
    ];
    let read = |e: &Exporter, n: &str| value(&e.scrape(), n, &probe);
    e.wait_for(Duration::from_secs(20), "the new Job's pod", |e| {
        read(e, "workload_lens_workload_pods") == Some(1.0)
    });
    assert_eq!(read(&e, "workload_lens_workload_gpus_placed"), Some(2.0));
    assert_eq!(read(&e, "workload_lens_workload_pods_ready"), Some(0.0));
    let resolves =
        |e: &Exporter| value(&e.scrape(), "workload_lens_exporter_resolves_total", &[]).unwrap();
    // Let the creation's refreshes settle, then change one pod.
    std::thread::sleep(Duration::from_millis(500));
    let before = resolves(&e);
    api.send(
        "PATCH",
        &format!("/api/v1/namespaces/{ns}/pods/probe-abc/status"),
        "application/merge-patch+json",
        &json!({
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
        }),
    );
    e.wait_for(Duration::from_secs(20), "the pod turning ready", |e| {
        read(e, "workload_lens_workload_pods_ready") == Some(1.0)
    });
    assert_eq!(
        resolves(&e) - before,
        1.0,
        "only the changed workload is resolved again"
    );
    // Deleted (the pod with it): no series of it remain.
    // (Background: no garbage collector runs here to clear an orphan
    // finalizer.)
    api.send(
        "DELETE",
        &format!("/apis/batch/v1/namespaces/{ns}/jobs/probe"),
        "application/json",
        &json!({"propagationPolicy": "Background"}),
    );
    api.send(
        "DELETE",
        &format!("/api/v1/namespaces/{ns}/pods/probe-abc"),
        "application/json",
        &json!({"gracePeriodSeconds": 0}),
    );
    e.wait_for(
        Duration::from_secs(20),
        "the deleted Job's series to go",
        |e| {
            let (_, text) = e.get("/metrics", None);
            !text.contains(ns.as_str())
        },
    );
    let _ = api.try_send(
        "DELETE",
        &format!("/api/v1/namespaces/{ns}"),
        "application/json",
        &json!({}),
    );
}

#[test]
fn serve_scopes_namespaces_selectors_and_families() {
    use exporter::{Exporter, by_workload};
    let Some(d) = live_dir() else { return };
    let kc = d.join("kubeconfig");
    // One namespace, a selector, no optional families.
    let e = Exporter::start(
        &kc,
        &["-n", "lens-train", "-l", "team=llm", "--families", "none"],
    );
    let samples = e.scrape();
    let info = by_workload(&samples, "workload_lens_workload_info");
    let names: Vec<&str> = info.keys().map(|k| k.2.as_str()).collect();
    assert_eq!(names, ["llama"]);
    assert!(
        !samples
            .iter()
            .any(|s| s.name.starts_with("workload_lens_pod_")
                || s.name.starts_with("workload_lens_component_"))
    );
    // The same, with the pods family only.
    let e = Exporter::start(&kc, &["-n", "lens-train", "--families", "pods"]);
    let samples = e.scrape();
    assert!(samples.iter().any(|s| s.name == "workload_lens_pod_info"));
    assert!(
        !samples
            .iter()
            .any(|s| s.name.starts_with("workload_lens_component_"))
    );
    assert!(
        samples
            .iter()
            .all(|s| s.labels.get("namespace").is_none_or(|n| n == "lens-train"))
    );
    // Bad flags are usage errors, said before anything is watched.
    let o = wl(&d, &["serve", "--families", "gpus"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("unknown family"), "{}", stderr(&o));
    let o = wl(
        &d,
        &["serve", "-l", "team in llm", "--listen", "127.0.0.1:0"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("label selector"), "{}", stderr(&o));
}

/// The lines of a snapshot file (gzip JSON Lines).
fn snapshot_lines(path: &Path) -> Vec<Value> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Issue 36: `snapshot` writes what a listing reads, and `get --snapshot`
/// and `top --snapshot` answer from it what the live commands answered:
/// the same rows and the same warnings, for the admin and for the viewer
/// (who may not list PyTorchJobs nor TrainJobs), whole and narrowed by
/// namespace and status.
#[test]
fn snapshots_answer_as_the_live_cluster_did() {
    let Some(d) = live_dir() else { return };
    let _alone = EVERY_NAMESPACE.lock().unwrap_or_else(|e| e.into_inner());
    let tmp = tempfile::tempdir().unwrap();
    for who in ["kubeconfig", "kubeconfig-viewer"] {
        let file = tmp.path().join(format!("{who}.jsonl.gz"));
        let f = file.to_str().unwrap();
        let o = wl_as(&d, who, &["snapshot", "-o", f, "--cluster-name", "kapi"]);
        ok(&o);
        assert!(
            stderr(&o).starts_with("snapshot of kapi: "),
            "{}",
            stderr(&o)
        );
        assert_eq!(
            stderr(&o).contains("warning: events not recorded (events is forbidden"),
            who == "kubeconfig-viewer",
            "{}",
            stderr(&o)
        );
        for args in [
            vec!["get", "-A", "-o", "json"],
            vec!["get", "-n", "lens-account", "-o", "json"],
            vec!["get", "-A", "--phase", "running", "-o", "json"],
            vec!["get", "-A", "-o", "wide", "--sort-by", "name"],
            vec!["top", "-A", "-o", "json"],
            vec!["top", "-n", "lens-train"],
        ] {
            let live = wl_as(&d, who, &args);
            let mut from_file = args.clone();
            from_file.extend(["--snapshot", f]);
            let read = wl_as(&d, who, &from_file);
            let (live_out, read_out) = (ok(&live), ok(&read));
            if args.contains(&"json") {
                assert_eq!(
                    serde_json::from_str::<Value>(&read_out).unwrap(),
                    serde_json::from_str::<Value>(&live_out).unwrap(),
                    "{who} {args:?}"
                );
            } else {
                // Without the AGE column: ages are printed relative to now.
                let strip = |t: &str| -> Vec<Vec<String>> {
                    let age = t
                        .lines()
                        .next()
                        .and_then(|h| h.split_whitespace().position(|c| c == "AGE"));
                    t.lines()
                        .map(|l| {
                            l.split_whitespace()
                                .enumerate()
                                .filter(|(i, _)| Some(*i) != age)
                                .map(|(_, c)| c.to_string())
                                .collect()
                        })
                        .collect()
                };
                assert_eq!(strip(&read_out), strip(&live_out), "{who} {args:?}");
            }
            if args.contains(&"-n") {
                // Read from a snapshot of every namespace, a type the
                // viewer may not list says so in the server's words for
                // the whole cluster, not for the namespace: the same
                // warnings up to those words.
                let gist = |t: &str| -> Vec<String> {
                    t.lines()
                        .map(|l| l.split(" in namespace").next().unwrap().to_string())
                        .map(|l| l.split(" (").next().unwrap().to_string())
                        .collect()
                };
                assert_eq!(gist(&stderr(&read)), gist(&stderr(&live)), "{who} {args:?}");
            } else {
                assert_eq!(stderr(&read), stderr(&live), "{who} {args:?}");
            }
        }
        // describe and why, of every workload the live listing gives (and
        // one not there): the same answers from the snapshot, events,
        // diagnosis and warnings included. JSON as the live command gave it;
        // the human output up to the ages (counted from now live, from the
        // capture in the snapshot).
        let listed = json_of(&wl_as(&d, who, &["get", "-A", "-o", "json"]));
        let mut targets: Vec<(String, String)> = listed["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| {
                let kind = w["kind"].as_str().unwrap().to_lowercase();
                let group = w["apiVersion"].as_str().unwrap();
                let group = group.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
                let ty = if group.is_empty() {
                    kind
                } else {
                    format!("{kind}.{group}")
                };
                (
                    format!("{ty}/{}", w["name"].as_str().unwrap()),
                    w["namespace"].as_str().unwrap_or("default").to_string(),
                )
            })
            .collect();
        assert!(targets.len() > 10, "{who}: {}", targets.len());
        targets.push(("jobset/nope".into(), "lens-train".into()));
        let mut with_events = 0;
        for (i, (target, ns)) in targets.iter().enumerate() {
            for cmd in ["describe", "why"] {
                for output in ["json", "human"] {
                    // Every workload's description as JSON; the rest for
                    // every third (each is a command run twice).
                    if (cmd, output) != ("describe", "json") && i % 3 != 0 {
                        continue;
                    }
                    let args = vec![cmd, target.as_str(), "-n", ns.as_str(), "-o", output];
                    let live = wl_as(&d, who, &args);
                    let mut from_file = args.clone();
                    from_file.extend(["--snapshot", f]);
                    let read = wl_as(&d, who, &from_file);
                    assert_eq!(read.status.code(), live.status.code(), "{who} {args:?}");
                    if live.status.success() {
                        // The server's words for a list the viewer may not
                        // make are those for the whole cluster (the
                        // snapshot's list), not for the namespace.
                        let words = |t: &str| -> String {
                            t.replace(" at the cluster scope", "")
                                .replace(&format!(" in the namespace \"{ns}\""), "")
                        };
                        assert_eq!(
                            words(&stderr(&read)),
                            words(&stderr(&live)),
                            "{who} {args:?}"
                        );
                    } else {
                        // An error names the snapshot it was read from.
                        assert_eq!(
                            stderr(&read),
                            stderr(&live).replacen("error: ", &format!("error: snapshot {f}: "), 1),
                            "{who} {args:?}"
                        );
                        continue;
                    }
                    if output == "json" {
                        let (mut l, r) = (json_of(&live), json_of(&read));
                        // A snapshot leaves managedFields out.
                        strip_managed_fields(&mut l);
                        with_events +=
                            usize::from(l["events"].as_array().is_some_and(|e| !e.is_empty()));
                        assert_eq!(r, l, "{who} {args:?}");
                    } else {
                        let ages = |t: &str| -> String {
                            t.split_whitespace()
                                .map(|w| {
                                    let digits =
                                        w.trim_end_matches(['s', 'm', 'h', 'd', 'y', ')', ',']);
                                    if !digits.is_empty()
                                        && digits.len() < w.len()
                                        && digits.chars().all(|c| c.is_ascii_digit())
                                    {
                                        "AGE"
                                    } else {
                                        w
                                    }
                                })
                                .collect::<Vec<_>>()
                                .join(" ")
                        };
                        assert_eq!(ages(&stdout(&read)), ages(&stdout(&live)), "{who} {args:?}");
                    }
                }
            }
        }
        // (The viewer may not list events: the warning says so, above.)
        assert!(
            with_events > 0 || who == "kubeconfig-viewer",
            "{who}: no workload with events"
        );

        // The file: a header, records with their roles and without
        // managedFields, and an end line that counts them.
        let lines = snapshot_lines(&file);
        let header = &lines[0];
        assert_eq!(header["format"], "workload-lens-snapshot");
        assert_eq!(header["version"], 1);
        assert_eq!(header["cluster"], "kapi");
        assert!(header["capturedAt"].as_str().unwrap().ends_with('Z'));
        assert!(header.get("namespace").is_none());
        let end = &lines.last().unwrap()["end"];
        assert_eq!(end["records"].as_u64().unwrap() as usize, lines.len() - 2);
        let mut roles = std::collections::BTreeSet::new();
        for l in &lines[1..lines.len() - 1] {
            for r in l["roles"].as_array().unwrap() {
                roles.insert(r.as_str().unwrap().to_string());
            }
            assert!(l["object"]["metadata"].get("managedFields").is_none());
        }
        // (The scenario's owners are all of covered types: no `owner`.)
        // The viewer may not list events: none recorded, and the end and
        // the command say so.
        let expected: &[&str] = if who == "kubeconfig-viewer" {
            let events = end["unlisted"]
                .as_array()
                .unwrap()
                .iter()
                .find(|u| u["type"] == "events")
                .unwrap_or_else(|| panic!("{end}"));
            assert_eq!(events["status"], 403, "{end}");
            &["definition", "object", "pod"]
        } else {
            &["definition", "event", "object", "pod"]
        };
        assert_eq!(roles.into_iter().collect::<Vec<_>>(), expected, "{who}");
        assert_eq!(end["events"], true);
        if who == "kubeconfig-viewer" {
            assert!(
                end["forbidden"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("pytorchjobs.kubeflow.org")),
                "{end}"
            );
        }
    }
    // One namespace's snapshot answers as `get -n` did.
    let file = tmp.path().join("account.jsonl.gz");
    let f = file.to_str().unwrap();
    ok(&wl(&d, &["snapshot", "-n", "lens-account", "-o", f]));
    let live = json_of(&wl(&d, &["get", "-n", "lens-account", "-o", "json"]));
    let read = json_of(&wl(&d, &["get", "--snapshot", f, "-o", "json"]));
    assert_eq!(read, live);
    assert_eq!(snapshot_lines(&file)[0]["namespace"], "lens-account");
    // The cluster's name is the kubeconfig's context by default.
    let header = &snapshot_lines(&file)[0];
    assert!(!header["cluster"].as_str().unwrap().is_empty(), "{header}");

    // A snapshot cut short, a file that is no snapshot, and a lost server
    // are errors, located; a failed snapshot leaves no file behind.
    let whole = snapshot_lines(&file);
    let cut = tmp.path().join("cut.jsonl");
    let text: String = whole[..whole.len() - 1]
        .iter()
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&cut, text).unwrap();
    let o = wl(&d, &["get", "--snapshot", cut.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cut short"), "{}", stderr(&o));
    std::fs::write(&cut, "{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}\n").unwrap();
    let o = wl(
        &d,
        &["get", "--snapshot", cut.to_str().unwrap(), "-o", "json"],
    );
    assert!(
        stderr(&o).contains("not a workload-lens snapshot"),
        "{}",
        stderr(&o)
    );
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["error"], "parse");
    assert_eq!(v["location"]["line"], 1);
    let o = wl(&d, &["get", "--snapshot", f, "jobsets"]);
    assert_eq!(o.status.code(), Some(2));
    let gone = tmp.path().join("gone.jsonl.gz");
    let dead = tmp.path().join("dead-kubeconfig");
    let admin = std::fs::read_to_string(d.join("kubeconfig")).unwrap();
    let server_line = admin
        .lines()
        .find(|l| l.trim_start().starts_with("server:"))
        .unwrap();
    std::fs::write(
        &dead,
        admin.replace(server_line, "    server: https://127.0.0.1:1"),
    )
    .unwrap();
    let o = bin()
        .args(["snapshot", "-o", gone.to_str().unwrap(), "--kubeconfig"])
        .arg(&dead)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(7), "{}", stderr(&o));
    assert!(!gone.exists());
    assert!(!tmp.path().join("gone.jsonl.gz.partial").exists());
}

/// A value without any `managedFields` (what a snapshot leaves out).
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
