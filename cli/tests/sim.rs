//! `get`, `describe TYPE/NAME`, `top` and `get --watch` on the simulated
//! GPU cluster (testing/sim): workloads whose Jobs, ReplicaSets,
//! StatefulSets, pods, statuses, scheduling decisions and events come from
//! the real controllers, scheduler and (KWOK's) kubelets, not from patches.
//!
//! `bash scripts/test.sh sim` starts the cluster, seeds namespace `lens-sim`
//! (testing/sim/live/seed.py, which waits until every controller has settled
//! and writes the truth to a state file) and runs these with `KUBECONFIG` and
//! `WORKLOAD_LENS_SIM_STATE` set. Without them every test returns at once.
//!
//! The truth is worked out by the seed from the API (owner chains walked by
//! uid, requests read from the pods), not by the engine; the expected
//! statuses are written there from each controller's semantics.
#![cfg(feature = "cluster")]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod api;
mod exporter;
use api::Api;

struct Sim {
    kubeconfig: PathBuf,
    state: Value,
}

fn sim() -> Option<Sim> {
    match (
        std::env::var_os("WORKLOAD_LENS_SIM_STATE"),
        std::env::var_os("KUBECONFIG"),
    ) {
        (Some(state), Some(kc)) => {
            let text = std::fs::read_to_string(&state).expect("read WORKLOAD_LENS_SIM_STATE");
            Some(Sim {
                kubeconfig: PathBuf::from(kc),
                state: serde_json::from_str(&text).expect("the state is JSON"),
            })
        }
        _ => {
            eprintln!("skipped: no simulated cluster (bash scripts/test.sh sim runs these tests)");
            None
        }
    }
}

impl Sim {
    fn ns(&self) -> &str {
        self.state["namespace"].as_str().unwrap()
    }

    fn workloads(&self) -> &[Value] {
        self.state["workloads"].as_array().unwrap()
    }

    fn workload(&self, name: &str) -> &Value {
        self.workloads()
            .iter()
            .find(|w| w["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not in the state"))
    }

    fn has(&self, operator: &str) -> bool {
        self.state["operators"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o == operator)
    }

    /// The CLI with `args` and the sim's kubeconfig.
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_workload-lens"));
        c.env_remove("KUBECONFIG")
            .args(args)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig);
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().expect("run workload-lens")
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["-o", "json"]);
        let o = self.run(&all);
        assert!(
            o.status.success(),
            "{args:?}: exit {:?}\n{}",
            o.status.code(),
            String::from_utf8_lossy(&o.stderr)
        );
        serde_json::from_slice(&o.stdout).expect("JSON output")
    }
}

/// What the pods of one workload hold, from the truth: (pods, ready, GPUs,
/// GPUs of pods not scheduled) of the pods that have not finished.
fn held(w: &Value) -> Value {
    let (mut pods, mut ready, mut gpus, mut pending) = (0, 0, 0, 0);
    for p in w["pods"].as_object().unwrap().values() {
        if p["live"] != true {
            continue;
        }
        let g = p["gpus"].as_u64().unwrap();
        pods += 1;
        gpus += g;
        if p["ready"] == true {
            ready += 1;
        }
        if p["node"].is_null() {
            pending += g;
        }
    }
    json!({"pods": pods, "ready": ready, "gpus": gpus, "pendingGpus": pending})
}

fn pod_names(w: &Value) -> BTreeSet<String> {
    w["pods"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn get_lists_what_the_controllers_made_each_pod_once() {
    let Some(s) = sim() else { return };
    let got = s.json(&["get", "-n", s.ns(), "--no-cluster-definitions"]);
    let items = got["items"].as_array().unwrap();
    let listed: BTreeSet<&str> = items.iter().map(|i| i["name"].as_str().unwrap()).collect();
    let truth: BTreeSet<&str> = s
        .workloads()
        .iter()
        .map(|w| w["name"].as_str().unwrap())
        .collect();
    // Every workload once, and nothing the controllers made (ReplicaSets,
    // the JobSet's Jobs, LWS's StatefulSets, pods) as a workload of its own.
    assert_eq!(listed, truth);
    assert_eq!(items.len(), truth.len());
    for w in s.workloads() {
        let name = w["name"].as_str().unwrap();
        let item = items.iter().find(|i| i["name"] == name).unwrap();
        assert_eq!(item["kind"], w["kind"], "{name}");
        assert_eq!(item["statuses"], w["statuses"], "{name}");
        assert_eq!(item["live"], held(w), "{name}: live");
        if let Some(d) = w["declared"].as_object() {
            assert_eq!(
                (&item["pods"], &item["gpus"]),
                (&d["pods"], &d["gpus"]),
                "{name}: declared"
            );
        }
    }
    // The look-alike's pod is its Job's, not the JobSet's.
    if s.has("jobset") {
        let train = items.iter().find(|i| i["name"] == "train").unwrap();
        assert_eq!(train["live"]["pods"], 5);
    }
}

#[test]
fn get_table_shows_ready_pods_of_each_workload() {
    let Some(s) = sim() else { return };
    let o = s.run(&["get", "-n", s.ns(), "--no-cluster-definitions"]);
    assert!(o.status.success());
    let table = String::from_utf8(o.stdout).unwrap();
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    let at = |h: &str| header.iter().position(|x| *x == h).unwrap();
    let rows: BTreeMap<String, Vec<String>> = table
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<String> = l.split_whitespace().map(str::to_string).collect();
            (c[0].clone(), c)
        })
        .collect();
    for w in s.workloads() {
        let name = w["name"].as_str().unwrap();
        let row = &rows[name];
        let h = held(w);
        let live_total = w["pods"].as_object().unwrap().len();
        // READY is ready/desired for a running workload: all ready ones.
        assert!(
            row[at("READY")].starts_with(&format!("{}/", h["ready"])),
            "{name}: {row:?} (of {live_total} pods)"
        );
        assert_eq!(
            row[at("PHASE")],
            w["statuses"][0].as_str().unwrap(),
            "{name}"
        );
    }
}

#[test]
fn describe_lists_exactly_the_pods_the_owner_chains_lead_to() {
    let Some(s) = sim() else { return };
    for w in s.workloads() {
        let name = w["name"].as_str().unwrap();
        let r#type = w["type"].as_str().unwrap();
        let d = s.json(&[
            "describe",
            &format!("{type}/{name}"),
            "-n",
            s.ns(),
            "--no-cluster-definitions",
        ]);
        let resolved = &d["resolved"];
        let mut pods = BTreeSet::new();
        for c in resolved["components"].as_array().unwrap() {
            for i in c["instances"].as_array().unwrap() {
                for p in i["live"]["pods"].as_array().into_iter().flatten() {
                    assert!(
                        pods.insert(p["name"].as_str().unwrap().to_string()),
                        "{name}: {} placed twice",
                        p["name"]
                    );
                    let truth = &w["pods"][p["name"].as_str().unwrap()];
                    assert_eq!(
                        p["resources"]["gpu"], truth["gpus"],
                        "{name}: {}",
                        p["name"]
                    );
                    assert_eq!(p["phase"], truth["phase"], "{name}: {}", p["name"]);
                    assert_eq!(p["ready"], truth["ready"], "{name}: {}", p["name"]);
                    assert_eq!(
                        p.get("node").unwrap_or(&Value::Null),
                        &truth["node"],
                        "{name}: {}",
                        p["name"]
                    );
                }
            }
        }
        assert_eq!(pods, pod_names(w), "{name}: the pods its controllers made");
        assert_eq!(resolved["unattributedPods"], json!([]), "{name}");
        // Every event is about the workload, its pods or the owners between.
        let mine: BTreeSet<String> = pod_names(w).iter().map(|p| format!("Pod/{p}")).collect();
        for e in d["events"].as_array().unwrap() {
            let object = e["object"].as_str().unwrap();
            assert!(
                !object.starts_with("Pod/") || mine.contains(object),
                "{name}: an event of another workload's pod: {e}"
            );
            assert_ne!(e["from"], "", "{name}: who reported {e}");
        }
    }
}

#[test]
fn describe_shows_the_schedulers_own_message() {
    let Some(s) = sim() else { return };
    let name = s.state["unplaced"].as_str().unwrap();
    let d = s.json(&[
        "describe",
        &format!("job/{name}"),
        "-n",
        s.ns(),
        "--no-cluster-definitions",
    ]);
    let pod = &d["resolved"]["components"][0]["instances"][0]["live"]["pods"][0];
    assert_eq!(pod["phase"], "Pending");
    assert_eq!(pod["reason"], "Unschedulable");
    assert!(
        pod["message"]
            .as_str()
            .unwrap()
            .contains("Insufficient nvidia.com/gpu"),
        "{pod}"
    );
    let scheduled: Vec<&Value> = d["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["reason"] == "FailedScheduling")
        .collect();
    assert!(!scheduled.is_empty(), "{}", d["events"]);
    for e in scheduled {
        assert_eq!(e["type"], "Warning");
        assert_eq!(e["from"], "default-scheduler");
        assert!(
            e["message"]
                .as_str()
                .unwrap()
                .contains("Insufficient nvidia.com/gpu")
        );
    }
    // The table says it too, with who said it.
    let o = s.run(&[
        "describe",
        &format!("job/{name}"),
        "-n",
        s.ns(),
        "--no-cluster-definitions",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("Pending (Unschedulable)"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("FailedScheduling") && l.contains("default-scheduler")),
        "{text}"
    );
}

#[test]
fn describe_names_the_look_alike_with_what_it_holds() {
    let Some(s) = sim() else { return };
    if !s.has("jobset") {
        eprintln!("skipped: the JobSet operator does not run");
        return;
    }
    let imposter = s.workload(s.state["lookAlike"].as_str().unwrap());
    let (pod, truth) = imposter["pods"].as_object().unwrap().iter().next().unwrap();
    let d = s.json(&[
        "describe",
        "jobset/train",
        "-n",
        s.ns(),
        "--no-cluster-definitions",
    ]);
    let strays = d["resolved"]["strayPods"].as_array().unwrap();
    assert_eq!(strays.len(), 1, "{strays:?}");
    assert_eq!(strays[0]["name"], pod.as_str());
    assert_eq!(strays[0]["resources"]["gpu"], truth["gpus"]);
    assert_eq!(strays[0]["findings"][0]["code"], "other-workload");
    assert!(
        strays[0]["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("Job imposter"),
        "{strays:?}"
    );
}

#[test]
fn top_adds_up_what_the_pods_hold_each_once() {
    let Some(s) = sim() else { return };
    let u = s.json(&["top", "-n", s.ns(), "--no-cluster-definitions"]);
    let total = &u["total"];
    let (mut pods, mut gpus, mut pending, mut inactive) = (0, 0, 0, 0);
    for w in s.workloads() {
        let h = held(w);
        pods += h["pods"].as_u64().unwrap();
        gpus += h["gpus"].as_u64().unwrap();
        pending += h["pendingGpus"].as_u64().unwrap();
        if w["statuses"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "Completed" || s == "Failed")
        {
            inactive += 1;
        }
    }
    assert_eq!(total["workloads"], s.workloads().len());
    assert_eq!(total["heldPods"], pods);
    assert_eq!(total["heldGpus"], gpus);
    assert_eq!(total["pendingGpus"], pending);
    assert_eq!(total["inactive"], inactive);
    assert_eq!(total["errors"], 0);
    // By type: the same pods, split; each type's held GPUs its workloads'.
    let mut by_type: BTreeMap<String, u64> = BTreeMap::new();
    for w in s.workloads() {
        let key = match w["apiVersion"].as_str().unwrap().split_once('/') {
            Some((group, _)) => format!("{}.{group}", w["kind"].as_str().unwrap()),
            None => w["kind"].as_str().unwrap().to_string(),
        };
        *by_type.entry(key).or_default() += held(w)["gpus"].as_u64().unwrap();
    }
    let got: BTreeMap<String, u64> = u["byType"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["heldGpus"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, by_type);
    // Nothing holds more GPUs than the nodes have.
    let capacity: u64 = s.state["nodes"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert!(
        gpus - pending <= capacity,
        "{gpus} - {pending} > {capacity}"
    );
}

#[test]
fn why_names_each_cause_the_components_wrote_in_its_first_line() {
    let Some(s) = sim() else { return };
    for (name, want) in s.state["why"].as_object().unwrap() {
        let w = s.workload(name);
        let target = format!("{}/{name}", w["type"].as_str().unwrap());
        let d = s.json(&["why", &target, "-n", s.ns(), "--no-cluster-definitions"]);
        let codes: Vec<&str> = d["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert_eq!(codes, want, "{name}: {d}");
        // The first line says it, with the sentence of the first finding.
        let o = s.run(&["why", &target, "-n", s.ns(), "--no-cluster-definitions"]);
        assert!(o.status.success());
        let text = String::from_utf8(o.stdout).unwrap();
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with(&format!("{}/{name} is ", w["kind"].as_str().unwrap())),
            "{first}"
        );
        match d["findings"][0]["message"].as_str() {
            Some(m) => assert!(first.ends_with(m), "{first} / {m}"),
            None => assert!(
                first.ends_with("nothing wrong is shown by its pods, events or status"),
                "{first}"
            ),
        }
    }
    // The crash loop's last exit as the kubelet wrote it.
    let d = s.json(&["why", "pod/oom", "-n", s.ns(), "--no-cluster-definitions"]);
    let f = &d["findings"][0];
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("last exit OOMKilled, exit code 137"),
        "{f}"
    );
    assert!(
        f["action"].as_str().unwrap().contains("memory limit"),
        "{f}"
    );
    // describe says it under the status; get -o wide in REASON.
    let o = s.run(&[
        "describe",
        "pod/pull",
        "-n",
        s.ns(),
        "--no-cluster-definitions",
    ]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with(
            "Why: the image registry.example/triton:1.0 of pod pull cannot be pulled"
        )),
        "{text}"
    );
    let o = s.run(&[
        "get",
        "-n",
        s.ns(),
        "-o",
        "wide",
        "--no-cluster-definitions",
    ]);
    let table = String::from_utf8(o.stdout).unwrap();
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    let reason = header.iter().position(|h| *h == "REASON").unwrap();
    for line in table.lines().skip(1) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        let want = match cells[0] {
            "big" => "unschedulable",
            "pull" => "image-pull",
            "oom" => "crash-loop",
            "web" | "lonely" | "imposter" | "serve" | "train" | "batch-ok" => "-",
            _ => continue,
        };
        assert_eq!(cells[reason], want, "{line}");
    }
}

#[test]
fn watch_follows_a_job_as_its_controller_moves_it() {
    let Some(s) = sim() else { return };
    let api = Api::new(&s.kubeconfig);
    // A namespace of its own: the other tests list lens-sim meanwhile.
    let ns = format!("lens-sim-watch-{}", std::process::id());
    api.send(
        "POST",
        "/api/v1/namespaces",
        "application/json",
        &json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
    );
    // Its pod starts after 2 s and succeeds 6 s later (the sim's kubelet):
    // the Job goes Initializing -> Running -> Completed by itself.
    api.send(
        "POST",
        &format!("/apis/batch/v1/namespaces/{ns}/jobs"),
        "application/json",
        &json!({
            "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "blink"},
            "spec": {"backoffLimit": 0, "template": {
                "metadata": {"annotations": {
                    "sim.workload-lens.dev/outcome": "succeed",
                    "sim.workload-lens.dev/start-seconds": "2",
                    "sim.workload-lens.dev/run-seconds": "6"}},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i",
                    "resources": {"limits": {"nvidia.com/gpu": "1"}}}]}}}
        }),
    );
    let mut child = s
        .cmd(&["get", "job/blink", "-n", &ns, "--watch", "-o", "json"])
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
    let deadline = Instant::now() + Duration::from_secs(90);
    let mut phases: Vec<String> = Vec::new();
    while phases.last().map(String::as_str) != Some("Completed") {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(line) = rx.recv_timeout(left) else {
            break;
        };
        let event: Value = serde_json::from_str(&line).expect("one JSON event per line");
        assert_eq!(event["object"]["name"], "blink", "{line}");
        phases.push(
            event["object"]["statuses"][0]
                .as_str()
                .unwrap_or("-")
                .to_string(),
        );
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = api.try_send(
        "DELETE",
        &format!("/api/v1/namespaces/{ns}"),
        "application/json",
        &json!({}),
    );
    eprintln!("the watch saw: {phases:?}");
    // First as listed, then each change the controllers made, ending
    // Completed; never a repeated phase (a row is printed on a change).
    assert_eq!(
        phases.last().map(String::as_str),
        Some("Completed"),
        "{phases:?}"
    );
    assert!(phases.len() >= 2, "the watch saw no change: {phases:?}");
    assert!(phases.windows(2).all(|w| w[0] != w[1]), "{phases:?}");
}

#[test]
fn serve_reports_each_workload_and_pod_as_the_truth_has_them() {
    use exporter::{Exporter, by_workload, check_against_rows};
    let Some(s) = sim() else { return };
    let e = Exporter::start(&s.kubeconfig, &["-n", s.ns(), "--no-cluster-definitions"]);
    let samples = e.scrape();
    // What get says, series for series.
    let got = s.json(&["get", "-n", s.ns(), "--no-cluster-definitions"]);
    let checked = check_against_rows(&samples, got["items"].as_array().unwrap(), &[s.ns()]);
    assert_eq!(checked, s.workloads().len());
    // And what the truth says, worked out from the API alone.
    let series = |n: &str| by_workload(&samples, n);
    let (pods, ready, placed) = (
        series("workload_lens_workload_pods"),
        series("workload_lens_workload_pods_ready"),
        series("workload_lens_workload_gpus_placed"),
    );
    for w in s.workloads() {
        let name = w["name"].as_str().unwrap();
        let k = (
            s.ns().to_string(),
            w["kind"].as_str().unwrap().to_string(),
            name.to_string(),
        );
        let h = held(w);
        let n = |v: &Value| v.as_f64().unwrap();
        assert_eq!(pods.get(&k), Some(&n(&h["pods"])), "{name}: pods");
        assert_eq!(ready.get(&k), Some(&n(&h["ready"])), "{name}: ready");
        assert_eq!(
            placed.get(&k),
            Some(&(n(&h["gpus"]) - n(&h["pendingGpus"]))),
            "{name}: placed GPUs"
        );
        // Each pod that has not finished is its workload's, once.
        let live: BTreeSet<String> = w["pods"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(_, p)| p["live"] == true)
            .map(|(n, _)| n.clone())
            .collect();
        let series_pods: BTreeSet<String> = samples
            .iter()
            .filter(|x| x.name == "workload_lens_pod_info" && x.labels["workload"] == name)
            .map(|x| x.labels["pod"].clone())
            .collect();
        assert_eq!(series_pods, live, "{name}: pods");
    }
    let pod_series = samples
        .iter()
        .filter(|x| x.name == "workload_lens_pod_info")
        .count();
    let distinct: BTreeSet<&String> = samples
        .iter()
        .filter(|x| x.name == "workload_lens_pod_info")
        .map(|x| &x.labels["pod"])
        .collect();
    assert_eq!(pod_series, distinct.len(), "each pod once");
}
