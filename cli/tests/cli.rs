//! End-to-end tests of the `workload-lens` binary.
//!
//! Every command runs from the crate directory, so the paths in messages
//! (and in the snapshots) are the relative ones given here. Every run is
//! checked for panics and backtraces, whatever the test.

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;
use serde_json::Value;

const EXAMPLE: &str = "../examples/jobset.yaml";
const TRAINER_DEF: &str = "tests/fixtures/trainer-definition.yaml";
const TRAINER: &str = "tests/fixtures/trainer.yaml";
const INVALID_DEF: &str = "tests/fixtures/invalid-definition.yaml";
const MALFORMED: &str = "tests/fixtures/malformed.yaml";
const LIST: &str = "tests/fixtures/list.yaml";
const OVERRIDE_DEF: &str = "tests/fixtures/jobset-override.yaml";
const EXAMPLE_PODS: &str = "../examples/jobset-pods.yaml";
const TRAINER_PODS: &str = "tests/fixtures/trainer-pods.yaml";
const WORKER_SCHEDULER: &str = "tests/fixtures/values-worker-scheduler.yaml";

/// The result of one run.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_with(args: &[&str], stdin: Option<&str>) -> Run {
    let mut cmd = cargo_bin_cmd!("workload-lens");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .args(args);
    if let Some(input) = stdin {
        cmd.write_stdin(input);
    }
    let out = match cmd.output() {
        Ok(out) => out,
        Err(e) => panic!("cannot run workload-lens: {e}"),
    };
    let run = Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    for text in [&run.stdout, &run.stderr] {
        assert!(
            !text.contains("panicked") && !text.contains("RUST_BACKTRACE"),
            "{args:?} panicked:\n{text}"
        );
    }
    run
}

fn run(args: &[&str]) -> Run {
    run_with(args, None)
}

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    match std::fs::read_to_string(&full) {
        Ok(s) => s,
        Err(e) => panic!("cannot read {}: {e}", full.display()),
    }
}

fn json(text: &str) -> Value {
    match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}):\n{text}"),
    }
}

fn assert_exit(r: &Run, code: i32) {
    assert_eq!(
        r.code, code,
        "exit code\n--- stdout\n{}\n--- stderr\n{}",
        r.stdout, r.stderr
    );
}

/// stderr holds exactly one `error:` line, and it contains `needle`.
fn assert_one_error(r: &Run, needle: &str) {
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("error: "))
        .collect();
    assert_eq!(errors.len(), 1, "one error line expected:\n{}", r.stderr);
    assert!(
        errors[0].contains(needle),
        "{needle:?} not in {:?}",
        errors[0]
    );
}

// ---------------------------------------------------------------- describe

/// Issue 32: a failed PyTorchJob says why in the human output (it was only
/// in `-o json`): its conditions, with reason, last transition and message.
#[test]
fn describe_shows_the_conditions_with_their_messages() {
    let r = run(&[
        "describe",
        "../definitions/fixtures/kubeflow-org-pytorchjob-v1/failed.yaml",
    ]);
    assert_exit(&r, 0);
    let conditions = r
        .stdout
        .split("\nConditions:\n")
        .nth(1)
        .expect("conditions");
    let lines: Vec<&str> = conditions.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0].split_whitespace().collect::<Vec<_>>(),
        ["TYPE", "STATUS", "REASON", "LAST", "TRANSITION", "MESSAGE"]
    );
    assert_eq!(lines.len(), 4, "{}", r.stdout);
    assert!(
        lines[3].starts_with("Failed    True     PyTorchJobFailed    2026-11-30T10:00:00Z   ")
            && lines[3].ends_with("is failed because 1 Worker replica(s) failed."),
        "{}",
        r.stdout
    );
}

#[test]
fn describe_example_human() {
    let r = run(&["describe", EXAMPLE]);
    assert_exit(&r, 0);
    assert_eq!(r.stderr, "");
    insta::assert_snapshot!("describe_example_human", r.stdout);
    assert!(r.stdout.contains("|-- leader"), "{}", r.stdout);
    assert!(r.stdout.contains("`-- worker"), "{}", r.stdout);
    let total: Vec<&str> = r
        .stdout
        .lines()
        .find(|l| l.starts_with("TOTAL"))
        .map(|l| l.split_whitespace().collect())
        .unwrap_or_default();
    // TOTAL  REPLICAS  GPU  CPU  MEMORY
    assert_eq!(total, ["TOTAL", "3", "12", "24", "192Gi"]);
}

#[test]
fn describe_example_json() {
    let r = run(&["describe", EXAMPLE, "-o", "json"]);
    assert_exit(&r, 0);
    assert!(r.stdout.ends_with("}\n"), "trailing newline");
    assert!(
        r.stdout.starts_with("{\n  \"apiVersion\""),
        "2-space indent"
    );
    let v = json(&r.stdout);
    assert_eq!(v["totals"]["resources"]["gpu"], 12);
    assert_eq!(v["totals"]["pods"], 3);
    let names: Vec<&str> = v["components"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["jobset", "replicatedjob"]);
    let ids: Vec<&str> = v["components"][1]["instances"]
        .as_array()
        .map(|a| a.iter().filter_map(|i| i["id"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(ids, ["leader", "worker"]);
    assert_eq!(v["definition"]["origin"], "catalog");
    insta::assert_snapshot!("describe_example_json", r.stdout);
}

#[test]
fn describe_example_yaml() {
    let r = run(&["describe", EXAMPLE, "-o", "yaml"]);
    assert_exit(&r, 0);
    assert!(
        r.stdout
            .starts_with("apiVersion: workload-lens.dev/v1alpha1\n")
    );
    // The YAML is the same structure as the JSON.
    let yaml: Value = match serde_saphyr::from_str(&r.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not YAML: {e}\n{}", r.stdout),
    };
    let j = json(&run(&["describe", EXAMPLE, "-o", "json"]).stdout);
    assert_eq!(yaml, j);
}

#[test]
fn describe_from_stdin() {
    let text = read(EXAMPLE);
    let piped = run_with(&["describe", "-"], Some(&text));
    assert_exit(&piped, 0);
    insta::assert_snapshot!("describe_stdin", piped.stdout);
    assert_eq!(piped.stdout, run(&["describe", EXAMPLE]).stdout);
    // JSON from kubectl -o json works the same.
    let as_json = run(&["describe", EXAMPLE, "-o", "json"]);
    let obj: Value = match serde_saphyr::from_str::<Value>(&text) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    let r = run_with(&["describe", "-", "-o", "json"], Some(&obj.to_string()));
    assert_exit(&r, 0);
    assert_eq!(r.stdout, as_json.stdout);
}

#[test]
fn describe_lists_every_matched_status() {
    // A StatefulSet serving with fewer ready pods than desired: both
    // statuses, comma and space between them.
    let r = run(&[
        "describe",
        "../definitions/fixtures/apps-statefulset-v1/degraded.yaml",
    ]);
    assert_exit(&r, 0);
    assert!(
        r.stdout.contains("\nStatus: Running, Degraded\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn describe_custom_definition() {
    let r = run(&["describe", "--definition", TRAINER_DEF, TRAINER]);
    assert_exit(&r, 0);
    assert_eq!(r.stderr, "");
    insta::assert_snapshot!("describe_trainer_human", r.stdout);
    // Fragmented pods, extended resources, an absent component.
    assert!(r.stdout.contains("NVIDIA.COM/MIG-1G.5GB"));
    assert!(r.stdout.contains("`-- evaluator   absent"));
    assert!(r.stdout.contains("Status: Running (phase: Running)"));

    let v = json(&run(&["describe", "-d", TRAINER_DEF, TRAINER, "-o", "json"]).stdout);
    assert_eq!(v["definition"]["name"], "trainer-example-com-v1");
    assert_eq!(v["definition"]["origin"], "user");
    assert_eq!(v["totals"]["resources"]["gpu"], 8);
    assert_eq!(
        v["totals"]["resources"]["extended"]["nvidia.com/mig-1g.5gb"],
        "2"
    );
    assert_eq!(v["totals"]["pods"], 7);
}

#[test]
fn definition_override_takes_precedence_over_the_catalog() {
    let r = run(&["describe", "--definition", OVERRIDE_DEF, EXAMPLE]);
    assert_exit(&r, 0);
    insta::assert_snapshot!("describe_override_human", r.stdout);
    assert!(
        r.stdout
            .lines()
            .next()
            .is_some_and(|l| l.ends_with("definition: my-jobset (user)"))
    );
    assert!(r.stdout.contains("`-- job\n"));
    // The override's unknown field is a warning on stderr, not an error.
    assert_eq!(
        r.stderr,
        "warning: tests/fixtures/jobset-override.yaml: definition my-jobset: [unknown-field] \
         spec.structureDefinition.rootComponent.colour (line 23, column 7): unknown field \
         'colour' is ignored\n"
    );
    let v = json(&run(&["describe", "-d", OVERRIDE_DEF, EXAMPLE, "-o", "json"]).stdout);
    assert_eq!(v["definition"]["name"], "my-jobset");
    assert_eq!(v["totals"]["resources"]["gpu"], 12);

    // The listing shows the override instead of the bundled definition.
    let list = run(&["definitions", "-d", OVERRIDE_DEF]);
    assert_exit(&list, 0);
    assert!(list.stdout.contains("my-jobset"));
    assert!(!list.stdout.contains("jobset-x-k8s-io-jobset-v1alpha2"));
}

#[test]
fn describe_list_of_two_objects() {
    let r = run(&["describe", "-d", TRAINER_DEF, LIST]);
    assert_exit(&r, 0);
    insta::assert_snapshot!("describe_list_human", r.stdout);
    // Two descriptions separated by one blank line.
    assert!(
        r.stdout
            .contains("TOTAL       2          2     4     16Gi\n\nTrainer/collide")
    );
    // A pool named like a component is shown as component/instance.
    assert!(r.stdout.contains("\npool/launcher "));

    let v = json(&run(&["describe", "-d", TRAINER_DEF, LIST, "-o", "json"]).stdout);
    let names: Vec<&str> = v
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r["workload"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(names, ["tiny", "collide"]);

    let y = run(&["describe", "-d", TRAINER_DEF, LIST, "-o", "yaml"]);
    assert_exit(&y, 0);
    assert_eq!(y.stdout.matches("\n---\n").count(), 1, "{}", y.stdout);
}

#[test]
fn describe_collections_of_one_object() {
    let object: Value = match serde_saphyr::from_str(&read(EXAMPLE)) {
        Ok(v) => v,
        Err(e) => panic!("not YAML: {e}"),
    };
    // One object: one resolved structure.
    let single = run_with(&["describe", "-", "-o", "json"], Some(&object.to_string()));
    assert_exit(&single, 0);
    let single = json(&single.stdout);
    assert_eq!(single["kind"], "ResolvedWorkload");
    // A list of one, a typed list of one (kind and apiVersion from the
    // list), an array of one: an array of one resolved structure.
    let mut bare = object.clone();
    if let Some(o) = bare.as_object_mut() {
        o.remove("kind");
        o.remove("apiVersion");
    }
    let collections = [
        serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [object]}),
        serde_json::json!({
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSetList",
            "items": [bare]
        }),
        serde_json::json!([object]),
    ];
    for input in collections {
        let r = run_with(&["describe", "-", "-o", "json"], Some(&input.to_string()));
        assert_exit(&r, 0);
        assert_eq!(json(&r.stdout), serde_json::json!([single]), "{input}");
    }
    // Several documents around one object are one object.
    let padded = format!("---\n{}---\n", read(EXAMPLE));
    let r = run_with(&["describe", "-", "-o", "json"], Some(&padded));
    assert_exit(&r, 0);
    assert_eq!(json(&r.stdout), single);
}

#[test]
fn describe_multi_document_stdin() {
    let text = format!("{}\n---\n{}", read(EXAMPLE), read(TRAINER));
    let r = run_with(
        &["describe", "-d", TRAINER_DEF, "-", "-o", "json"],
        Some(&text),
    );
    assert_exit(&r, 0);
    let v = json(&r.stdout);
    let gpus: Vec<u64> = v
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r["totals"]["resources"]["gpu"].as_u64())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(gpus, [12, 8]);
    let human = run_with(&["describe", "-d", TRAINER_DEF, "-"], Some(&text));
    assert_exit(&human, 0);
    assert_eq!(human.stdout.matches("(file mode: no live pods)").count(), 2);
}

#[test]
fn describe_prints_resolution_warnings_on_stderr() {
    let text = read(EXAMPLE).replace("jobset.x-k8s.io/v1alpha2", "jobset.x-k8s.io/v1");
    let r = run_with(&["describe", "-"], Some(&text));
    assert_exit(&r, 0);
    assert_eq!(
        r.stderr,
        "warning: JobSet/llama-pretrain: object version v1 resolved through the definition \
         for version v1alpha2\n"
    );
    assert!(r.stdout.contains("TOTAL       3          12"));
}

// ------------------------------------------------------------ describe --pods

/// The cells of the first row of the tree (or of a table) that has `name`
/// as a cell, from that cell on (cells are separated by 2+ spaces).
fn row_cells(text: &str, name: &str) -> Vec<String> {
    let rest = text.lines().find_map(|l| {
        let rest = &l[l.find(name)?..];
        let after = &rest[name.len()..];
        (after.is_empty() || after.starts_with("  ")).then_some(rest)
    });
    rest.unwrap_or_default()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn describe_with_pods_human() {
    let r = run(&["describe", EXAMPLE, "--pods", EXAMPLE_PODS]);
    assert_exit(&r, 0);
    assert_eq!(r.stderr, "");
    insta::assert_snapshot!("describe_pods_human", r.stdout);
    assert!(!r.stdout.contains("file mode"), "{}", r.stdout);
    assert_eq!(
        row_cells(&r.stdout, "|-- leader"),
        ["|-- leader", "1/1 ready", "gpu: 4", "gpu-node-01"]
    );
    assert_eq!(
        row_cells(&r.stdout, "`-- worker"),
        ["`-- worker", "1/2 ready", "gpu: 8", "gpu-node-02"]
    );
    // Each pod is a row below its instance.
    assert!(
        r.stdout
            .contains("    |   `-- llama-pretrain-leader-0-0-x7k2p   Running "),
        "{}",
        r.stdout
    );
    assert_eq!(
        row_cells(&r.stdout, "|-- llama-pretrain-worker-0-0-b9d4q"),
        [
            "|-- llama-pretrain-worker-0-0-b9d4q",
            "Running",
            "gpu: 4",
            "gpu-node-02"
        ]
    );
    assert_eq!(
        row_cells(&r.stdout, "`-- llama-pretrain-worker-1-0-m3zr8"),
        [
            "`-- llama-pretrain-worker-1-0-m3zr8",
            "Pending (Unschedulable)",
            "gpu: 4",
            "<none>"
        ]
    );
    // The whole JobSet is one gang of 3.
    let gang = r
        .stdout
        .split("\nGang groups:\n")
        .nth(1)
        .unwrap_or_default();
    assert!(gang.starts_with("NAME "), "{}", r.stdout);
    assert_eq!(
        row_cells(
            gang,
            "pg-6f1c2a4e-8a8e-4c61-9d0e-2f7b5c1d9a10-llama-pretrain"
        ),
        [
            "pg-6f1c2a4e-8a8e-4c61-9d0e-2f7b5c1d9a10-llama-pretrain",
            "3",
            "3"
        ]
    );
    assert!(!r.stdout.contains("Unattributed pods:"));
    // The resources table is the one of file mode.
    let file_mode = run(&["describe", EXAMPLE]).stdout;
    let resources = |t: &str| {
        t.split("\nResources:\n")
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(resources(&r.stdout), resources(&file_mode));

    // Pods from stdin, the object from a file.
    let piped = run_with(
        &["describe", EXAMPLE, "--pods", "-"],
        Some(&read(EXAMPLE_PODS)),
    );
    assert_exit(&piped, 0);
    assert_eq!(piped.stdout, r.stdout);
}

#[test]
fn describe_with_pods_json() {
    let r = run(&["describe", EXAMPLE, "--pods", EXAMPLE_PODS, "-o", "json"]);
    assert_exit(&r, 0);
    let v = json(&r.stdout);
    let keys: Vec<&String> = v
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["resolved", "gang"]);
    assert_eq!(v["resolved"]["kind"], "ResolvedWorkload");
    assert_eq!(v["resolved"]["totals"]["resources"]["gpu"], 12);
    assert_eq!(v["resolved"]["unattributedPods"], serde_json::json!([]));
    let worker = &v["resolved"]["components"][1]["instances"][1];
    assert_eq!(worker["id"], "worker");
    assert_eq!(worker["live"]["ready"], 1);
    assert_eq!(worker["live"]["nodes"], serde_json::json!(["gpu-node-02"]));
    assert_eq!(worker["live"]["pods"][1]["phase"], "Pending");
    assert_eq!(worker["live"]["pods"][1]["reason"], "Unschedulable");
    assert_eq!(worker["live"]["pods"][1]["replicaKey"], "1");
    let group = &v["gang"]["groups"][0];
    assert_eq!(group["minMember"], 3);
    assert_eq!(group["members"].as_array().map(Vec::len), Some(3));
    assert_eq!(v["gang"]["pods"].as_array().map(Vec::len), Some(3));

    // YAML is the same structure.
    let y = run(&["describe", EXAMPLE, "--pods", EXAMPLE_PODS, "-o", "yaml"]);
    assert_exit(&y, 0);
    let yaml: Value = match serde_saphyr::from_str(&y.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not YAML: {e}\n{}", y.stdout),
    };
    assert_eq!(yaml, v);

    // Without gangScheduling, the engine's report is empty.
    let t = run(&[
        "describe",
        "-d",
        TRAINER_DEF,
        TRAINER,
        "--pods",
        TRAINER_PODS,
        "-o",
        "json",
    ]);
    assert_exit(&t, 0);
    assert_eq!(
        json(&t.stdout)["gang"],
        serde_json::json!({"groups": [], "pods": []})
    );
}

#[test]
fn describe_with_pods_from_a_json_array() {
    // `kubectl get pods -o json | jq .items`: a top-level array of pods.
    let list: Value = match serde_saphyr::from_str(&read(EXAMPLE_PODS)) {
        Ok(v) => v,
        Err(e) => panic!("not YAML: {e}"),
    };
    let array = list["items"].to_string();
    assert!(array.starts_with('['), "{array}");
    let r = run_with(&["describe", EXAMPLE, "--pods", "-"], Some(&array));
    assert_exit(&r, 0);
    assert_eq!(r.stderr, "");
    assert_eq!(
        r.stdout,
        run(&["describe", EXAMPLE, "--pods", EXAMPLE_PODS]).stdout
    );
    assert_eq!(
        row_cells(&r.stdout, "`-- worker"),
        ["`-- worker", "1/2 ready", "gpu: 8", "gpu-node-02"]
    );
    assert!(!r.stdout.contains("Unattributed pods:"), "{}", r.stdout);
}

#[test]
fn describe_with_pods_unattributed_and_foreign() {
    let r = run(&[
        "describe",
        "-d",
        TRAINER_DEF,
        TRAINER,
        "--pods",
        TRAINER_PODS,
    ]);
    assert_exit(&r, 0);
    insta::assert_snapshot!("describe_trainer_pods_human", r.stdout);
    assert_eq!(
        row_cells(&r.stdout, "|-- a100"),
        ["|-- a100", "2/4 ready", "gpu: 8", "gpu-node-1,gpu-node-2"]
    );
    assert_eq!(
        row_cells(&r.stdout, "|-- resnet-sweep-a100-1"),
        [
            "|-- resnet-sweep-a100-1",
            "Running (CrashLoopBackOff)",
            "gpu: 2",
            "gpu-node-2"
        ]
    );
    assert_eq!(
        row_cells(&r.stdout, "|-- launcher"),
        ["|-- launcher", "1/1 ready", "cpu-node-1"]
    );
    assert!(r.stdout.contains("`-- evaluator   "), "{}", r.stdout);
    // A pod of neither component and a pod of an unknown pool.
    let section = r
        .stdout
        .split("\nUnattributed pods:\n")
        .nth(1)
        .unwrap_or_default();
    assert!(section.starts_with("NAME "), "{}", r.stdout);
    assert_eq!(
        row_cells(section, "metrics-exporter-7d9f"),
        [
            "metrics-exporter-7d9f",
            "Running",
            "<none>",
            "the pod matches no component's selector"
        ]
    );
    assert_eq!(
        row_cells(section, "resnet-sweep-h100-0"),
        [
            "resnet-sweep-h100-0",
            "Pending",
            "Unschedulable",
            "could not match instance id \"h100\". existing instance ids [a100 mig]"
        ]
    );
    // The pod of another namespace (named like one of the Trainer's) and
    // the ready pod of an older Trainer are not this workload's: listed
    // apart, not counted (a100 stays 2/4 ready).
    let section = section
        .split("\nNot this workload's pods:\n")
        .next()
        .unwrap_or_default();
    assert!(!section.contains("resnet-sweep-a100-0 "), "{}", r.stdout);
    let stray = r
        .stdout
        .split("\nNot this workload's pods:\n")
        .nth(1)
        .unwrap_or_default();
    assert_eq!(
        row_cells(stray, "resnet-sweep-a100-0"),
        [
            "resnet-sweep-a100-0",
            "Running",
            "namespace staging is not the workload's (research)"
        ]
    );
    assert_eq!(
        row_cells(stray, "resnet-sweep-v1-a100-0"),
        [
            "resnet-sweep-v1-a100-0",
            "Running",
            "its controller chain leads to Trainer resnet-sweep-v1, not to this workload"
        ]
    );
    // No gang scheduling in this definition: no gang section.
    assert!(!r.stdout.contains("Gang groups"));
    // Why each pod is unattributed: a warning each; the others, one line.
    assert_eq!(
        r.stderr,
        "warning: pod metrics-exporter-7d9f: the pod matches no component's selector\n\
         warning: pod resnet-sweep-h100-0: could not match instance id \"h100\". existing \
         instance ids [a100 mig]\n\
         warning: 2 pods given are not this workload's (not counted; listed under \"Not \
         this workload's pods\")\n"
    );
    assert!(!r.stdout.contains("gpu-node-9"));

    let v = json(
        &run(&[
            "describe",
            "-d",
            TRAINER_DEF,
            TRAINER,
            "--pods",
            TRAINER_PODS,
            "-o",
            "json",
        ])
        .stdout,
    );
    let names: Vec<&str> = v["resolved"]["unattributedPods"]
        .as_array()
        .map(|a| a.iter().filter_map(|p| p["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["metrics-exporter-7d9f", "resnet-sweep-h100-0"]);
    let codes = |key: &str| -> Vec<String> {
        v["resolved"][key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|p| p["findings"][0]["code"].as_str())
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    assert_eq!(
        codes("unattributedPods"),
        ["no-component", "unknown-instance"]
    );
    assert_eq!(codes("strayPods"), ["other-namespace", "other-workload"]);
    assert_eq!(v["resolved"]["strayPods"][0]["namespace"], "staging");
}

#[test]
fn describe_with_pods_gang_subgroups() {
    // The Trainer as one gang with a subgroup for the pool.
    let def = format!(
        "{}  optimizationInstructions:\n    gangScheduling:\n      podGroup:\n        \
         name: sweep\n        subGroups:\n          - componentName: pool\n",
        read(TRAINER_DEF)
    );
    let r = run_with(
        &["describe", "-d", "-", TRAINER, "--pods", TRAINER_PODS],
        Some(&def),
    );
    assert_exit(&r, 0);
    let gang = r
        .stdout
        .split("\nGang groups:\n")
        .nth(1)
        .unwrap_or_default();
    assert!(gang.starts_with("NAME "), "{}", r.stdout);
    assert!(
        gang.lines()
            .next()
            .is_some_and(|l| l.ends_with("   SUBGROUPS"))
    );
    // Only the pods that belong to the Trainer count: the launcher and the
    // four pool pods; six pool pods are needed.
    assert_eq!(
        row_cells(gang, "pg-resnet-sweep-sweep"),
        ["pg-resnet-sweep-sweep", "0", "5", "pool=6/4"]
    );
}

#[test]
fn describe_pod_limit_shows_unhealthy_pods_first() {
    let r = run(&[
        "describe",
        "-d",
        TRAINER_DEF,
        TRAINER,
        "--pods",
        TRAINER_PODS,
        "--pod-limit",
        "1",
    ]);
    assert_exit(&r, 0);
    let a100: Vec<&str> = r
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("|   |-- a100"))
        .skip(1)
        .take(2)
        .collect();
    assert!(
        a100[0].starts_with("|   |   |-- resnet-sweep-a100-1   "),
        "{}",
        r.stdout
    );
    assert_eq!(a100[1], "|   |   `-- ... and 2 more (1 unhealthy shown)");
    // Under the limit nothing is left out.
    assert!(r.stdout.contains("|       `-- resnet-sweep-mig-0"));
    // One more row in the tree, and one of the two pods of other workloads.
    assert_eq!(r.stdout.matches("... and").count(), 2);
    assert!(r.stdout.contains("\nNot this workload's pods:\n"));
    assert!(r.stdout.contains("\n... and 1 more\n"), "{}", r.stdout);
    let zero = run(&[
        "describe",
        EXAMPLE,
        "--pods",
        EXAMPLE_PODS,
        "--pod-limit",
        "0",
    ]);
    assert_exit(&zero, 0);
    assert!(
        zero.stdout
            .contains("`-- ... and 2 more (0 unhealthy shown)\n")
    );
    assert!(!zero.stdout.contains("llama-pretrain-leader-0-0-x7k2p"));
}

#[test]
fn describe_with_pods_errors() {
    // One workload at a time.
    let l = run(&["describe", "-d", TRAINER_DEF, LIST, "--pods", EXAMPLE_PODS]);
    assert_exit(&l, 2);
    assert_one_error(&l, "--pods describes one workload at a time");
    // stdin once.
    let twice = run_with(&["describe", "-", "--pods", "-"], Some(""));
    assert_exit(&twice, 2);
    assert_one_error(&twice, "standard input (-) can be used for only one input");
    // --pod-limit needs --pods.
    assert_exit(&run(&["describe", EXAMPLE, "--pod-limit", "2"]), 2);
    assert_exit(
        &run(&[
            "describe",
            EXAMPLE,
            "--pods",
            EXAMPLE_PODS,
            "--pod-limit",
            "x",
        ]),
        2,
    );
    let missing = run(&["describe", EXAMPLE, "--pods", "tests/fixtures/nope.yaml"]);
    assert_exit(&missing, 2);
    assert_one_error(&missing, "--pods: cannot read tests/fixtures/nope.yaml");
    let malformed = run(&["describe", EXAMPLE, "--pods", MALFORMED]);
    assert_exit(&malformed, 2);
    assert_one_error(
        &malformed,
        "--pods tests/fixtures/malformed.yaml: invalid YAML",
    );
    let unknown = run(&[
        "describe",
        "tests/fixtures/unknown-kind.yaml",
        "--pods",
        EXAMPLE_PODS,
        "-o",
        "json",
    ]);
    assert_exit(&unknown, 4);
    assert_eq!(json(&unknown.stdout)["error"], "no_definition");
    // No pods at all is a workload with nothing running; an item of
    // another kind is an owner given beside the pods (used to follow
    // controller chains), not a pod; no pod forms a gang group: no gang
    // section.
    let none = run_with(
        &["describe", EXAMPLE, "--pods", "-"],
        Some("apiVersion: v1\nkind: List\nitems:\n  - {kind: Service, metadata: {name: svc}}\n"),
    );
    assert_exit(&none, 0);
    assert_eq!(none.stderr, "");
    assert!(
        none.stdout.contains("`-- worker      0/2 ready   gpu: 8\n"),
        "{}",
        none.stdout
    );
    assert!(!none.stdout.contains("svc"), "{}", none.stdout);
    assert!(!none.stdout.contains("Gang groups"), "{}", none.stdout);
    let j = run_with(
        &["describe", EXAMPLE, "--pods", "-", "-o", "json"],
        Some("apiVersion: v1\nkind: List\nitems:\n  - {kind: Service, metadata: {name: svc}}\n"),
    );
    assert_exit(&j, 0);
    let v = json(&j.stdout);
    assert_eq!(v["resolved"]["unattributedPods"], serde_json::json!([]));
    assert_eq!(v["gang"]["groups"], serde_json::json!([]));
    // A pod the gang rules cannot place (the workload's by its controller,
    // without the label the group key reads): the tree is still shown.
    let odd = run_with(
        &["describe", EXAMPLE, "--pods", "-"],
        Some(
            "kind: Pod\nmetadata:\n  name: odd\n  labels: \
             {jobset.sigs.k8s.io/replicatedjob-name: worker}\n  ownerReferences: \
             [{apiVersion: jobset.x-k8s.io/v1alpha2, kind: JobSet, name: llama-pretrain, \
             uid: 6f1c2a4e-8a8e-4c61-9d0e-2f7b5c1d9a10, controller: true}]\n",
        ),
    );
    assert_exit(&odd, 0);
    assert!(
        odd.stdout.contains("        `-- odd     Unknown "),
        "{}",
        odd.stdout
    );
    assert!(
        odd.stdout
            .contains("\nGang groups: not computed (see the warning)\n")
    );
    assert!(
        odd.stderr.contains(
            "warning: JobSet/llama-pretrain: gang groups not computed: failed to extract group key"
        ),
        "{}",
        odd.stderr
    );
}

// ------------------------------------------------------------------ update

#[test]
fn update_with_values_prints_object_and_patch() {
    let p = run(&[
        "update",
        EXAMPLE,
        "--values",
        WORKER_SCHEDULER,
        "-o",
        "patch",
    ]);
    assert_exit(&p, 0);
    assert_eq!(p.stderr, "");
    assert_eq!(p.stdout.lines().count(), 1, "one line: {}", p.stdout);
    assert_eq!(
        json(&p.stdout),
        serde_json::json!([{
            "op": "add",
            "path": "/spec/replicatedJobs/1/template/spec/template/spec/schedulerName",
            "value": "kai-scheduler"
        }])
    );
    // The object, as YAML by default and as JSON with -o json.
    let y = run(&["update", EXAMPLE, "--values", WORKER_SCHEDULER]);
    assert_exit(&y, 0);
    let obj: Value = match serde_saphyr::from_str(&y.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not YAML: {e}\n{}", y.stdout),
    };
    assert_eq!(
        obj["spec"]["replicatedJobs"][1]["template"]["spec"]["template"]["spec"]["schedulerName"],
        "kai-scheduler"
    );
    assert_eq!(
        obj["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
            .get("schedulerName"),
        None
    );
    let j = run(&[
        "update",
        EXAMPLE,
        "--values",
        WORKER_SCHEDULER,
        "-o",
        "json",
    ]);
    assert_exit(&j, 0);
    assert_eq!(json(&j.stdout), obj);
    // The updated object describes like the original.
    let again = run_with(&["describe", "-"], Some(&y.stdout));
    assert_exit(&again, 0);
    assert_eq!(again.stdout, run(&["describe", EXAMPLE]).stdout);
    // Values from stdin, in JSON.
    let vals: Value = match serde_saphyr::from_str(&read(WORKER_SCHEDULER)) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    let s = run_with(
        &["update", EXAMPLE, "--values", "-", "-o", "patch"],
        Some(&vals.to_string()),
    );
    assert_exit(&s, 0);
    assert_eq!(s.stdout, p.stdout);
}

/// `--merge`: a partial template changes one image and keeps the rest;
/// the YAML keeps the input's key order (only the image line differs).
#[test]
fn update_merge_changes_only_what_it_names() {
    const IMAGE: &str = "tests/fixtures/values-worker-image.yaml";
    let p = run(&[
        "update", EXAMPLE, "--values", IMAGE, "--merge", "-o", "patch",
    ]);
    assert_exit(&p, 0);
    assert_eq!(
        json(&p.stdout),
        serde_json::json!([{
            "op": "replace",
            "path": "/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image",
            "value": "ghcr.io/example/llama-trainer:1.5"
        }])
    );
    let y = run(&["update", EXAMPLE, "--values", IMAGE, "--merge"]);
    assert_exit(&y, 0);
    // The object written back with no change, for comparison: the output
    // of the merge differs from it by the image alone.
    let original = run_with(
        &["update", EXAMPLE, "--values", "-", "--merge"],
        Some("components: {}\n"),
    );
    assert_exit(&original, 0);
    let changed: Vec<(&str, &str)> = original
        .stdout
        .lines()
        .zip(y.stdout.lines())
        .filter(|(a, b)| a != b)
        .collect();
    assert_eq!(
        changed,
        [(
            "              image: ghcr.io/example/llama-trainer:1.4",
            "              image: ghcr.io/example/llama-trainer:1.5"
        )]
    );
    assert!(
        y.stdout
            .starts_with("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n"),
        "{}",
        y.stdout
    );
    // Without --merge the partial template is the whole template.
    let r = run(&["update", EXAMPLE, "--values", IMAGE, "-o", "patch"]);
    assert_exit(&r, 0);
    assert!(
        r.stdout.contains("/containers/0/resources\"}"),
        "{}",
        r.stdout
    );
    // --merge needs --values.
    let bad = run(&["update", EXAMPLE, "--suspend", "--merge"]);
    assert_exit(&bad, 2);
}

#[test]
fn update_suspend_and_resume() {
    let s = run(&["update", EXAMPLE, "--suspend", "-o", "patch"]);
    assert_exit(&s, 0);
    assert_eq!(
        s.stdout,
        "[{\"op\":\"add\",\"path\":\"/spec/suspend\",\"value\":true}]\n"
    );
    assert_eq!(
        json(&s.stdout),
        serde_json::json!([{"op": "add", "path": "/spec/suspend", "value": true}])
    );
    let suspended = run(&["update", EXAMPLE, "--suspend"]);
    assert_exit(&suspended, 0);
    assert!(
        suspended.stdout.contains("\n  suspend: true\n"),
        "{}",
        suspended.stdout
    );
    let resumed = run_with(
        &["update", "-", "--resume", "-o", "patch"],
        Some(&suspended.stdout),
    );
    assert_exit(&resumed, 0);
    assert_eq!(
        json(&resumed.stdout),
        serde_json::json!([{"op": "replace", "path": "/spec/suspend", "value": false}])
    );
    // Suspending twice changes nothing, and says so.
    let twice = run_with(
        &["update", "-", "--suspend", "-o", "patch"],
        Some(&suspended.stdout),
    );
    assert_exit(&twice, 0);
    assert_eq!(twice.stdout, "[]\n");
    assert_eq!(
        twice.stderr,
        "warning: JobSet/llama-pretrain: the update changes nothing\n"
    );
}

#[test]
fn update_errors() {
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let values = |name: &str, text: &str| {
        let path = dir.path().join(name);
        if let Err(e) = std::fs::write(&path, text) {
            panic!("{e}");
        }
        path.to_string_lossy().into_owned()
    };
    // An unknown component or instance is a usage error (exit 2).
    let unknown = values(
        "unknown.yaml",
        "components:\n  launcher:\n    podSpecs: {\"\": {}}\n",
    );
    let r = run(&["update", EXAMPLE, "--values", &unknown]);
    assert_exit(&r, 2);
    assert_eq!(r.stdout, "");
    assert_one_error(&r, "component launcher not found");
    let instance = values(
        "instance.yaml",
        "components:\n  replicatedjob:\n    podTemplateSpecs: {chief: {}}\n",
    );
    let r = run(&["update", EXAMPLE, "--values", &instance]);
    assert_exit(&r, 2);
    assert_one_error(
        &r,
        "component replicatedjob has no instance \"chief\" to write pod template specs to (its instances: leader, worker)",
    );
    // A misspelt field of the values file, with where it is.
    let typo = values(
        "typo.yaml",
        "components:\n  replicatedjob:\n    podTemplateSpec: {worker: {}}\n",
    );
    let r = run(&["update", EXAMPLE, "--values", &typo]);
    assert_exit(&r, 2);
    assert_one_error(
        &r,
        "at components.replicatedjob: unknown field 'podTemplateSpec', expected one of",
    );
    let number = values(
        "number.yaml",
        "components:\n  replicatedjob:\n    podTemplateSpecs: {worker: 7}\n",
    );
    let r = run(&["update", EXAMPLE, "--values", &number]);
    assert_exit(&r, 2);
    // The engine's rule: pod templates, pod specs and pod metadata are maps.
    assert_one_error(
        &r,
        "components.replicatedjob.podTemplateSpecs.worker: expected a map, found a number",
    );
    let string = values(
        "string.yaml",
        "components:\n  replicatedjob:\n    podMetadata: {leader: x}\n",
    );
    let r = run(&["update", EXAMPLE, "--values", &string]);
    assert_exit(&r, 2);
    assert_eq!(r.stdout, "");
    assert_one_error(
        &r,
        "components.replicatedjob.podMetadata.leader: expected a map, found a string",
    );
    let not_a_map = values("list.yaml", "- 1\n");
    assert_exit(&run(&["update", EXAMPLE, "--values", &not_a_map]), 2);
    let empty = values("empty.yaml", "");
    let r = run(&["update", EXAMPLE, "--values", &empty]);
    assert_exit(&r, 2);
    assert_one_error(&r, "no values found");

    // What the definition cannot do is an update failure (exit 1).
    let r = run(&["update", "-d", TRAINER_DEF, TRAINER, "--suspend"]);
    assert_exit(&r, 1);
    assert_eq!(r.stdout, "");
    assert_one_error(
        &r,
        "definition 'trainer-example-com-v1' has no suspendDefinition: suspend/resume is not supported",
    );
    assert_eq!(r.stderr.lines().count(), 1);
    let wrong_style = values(
        "style.yaml",
        "components:\n  replicatedjob:\n    podSpecs: {worker: {}}\n",
    );
    let r = run(&["update", EXAMPLE, "--values", &wrong_style]);
    assert_exit(&r, 1);
    assert_one_error(
        &r,
        "component replicatedjob does not take podSpecs: its definition has no specDefinition.podSpecPath; it takes podTemplateSpecs (its specDefinition has podTemplateSpecPath)",
    );

    // Exactly one action, one object.
    assert_exit(&run(&["update", EXAMPLE]), 2);
    assert_exit(&run(&["update", EXAMPLE, "--suspend", "--resume"]), 2);
    assert_exit(
        &run(&["update", EXAMPLE, "--suspend", "--values", &unknown]),
        2,
    );
    assert_exit(&run(&["update", EXAMPLE, "--suspend", "-o", "human"]), 2);
    let list = run(&["update", "-d", TRAINER_DEF, LIST, "--suspend"]);
    assert_exit(&list, 2);
    assert_one_error(
        &list,
        "update works on one object, but the input holds 2 objects",
    );
    let none = run_with(&["update", "-", "--suspend"], Some("---\n"));
    assert_exit(&none, 2);
    assert_one_error(&none, "no Kubernetes object found");
    let twice = run_with(&["update", "-", "--values", "-"], Some(""));
    assert_exit(&twice, 2);
    assert_one_error(&twice, "standard input (-) can be used for only one input");
    let unknown_kind = run(&["update", "tests/fixtures/unknown-kind.yaml", "--suspend"]);
    assert_exit(&unknown_kind, 4);
    assert_one_error(
        &unknown_kind,
        "no definition covers example.com/v1, Kind=Gadget",
    );
    let malformed = run(&["update", MALFORMED, "--suspend"]);
    assert_exit(&malformed, 2);
}

// ------------------------------------------------------------------ schema

#[test]
fn schema_of_the_resolved_structure_and_errors() {
    let r = run(&["schema"]);
    assert_exit(&r, 0);
    assert!(r.stdout.starts_with("{\n  \""), "pretty JSON");
    let v = json(&r.stdout);
    assert!(v["properties"]["components"].is_object(), "{}", r.stdout);
    assert!(v["properties"]["unattributedPods"].is_object());
    assert!(v["$defs"]["Live"].is_object());
    // Every key of a resolved workload is in the schema.
    let resolved = json(&run(&["describe", EXAMPLE, "-o", "json"]).stdout);
    for key in resolved.as_object().map(|o| o.keys()).into_iter().flatten() {
        assert!(
            v["properties"].get(key).is_some(),
            "{key} not in the schema"
        );
    }
    let e = run(&["schema", "--error"]);
    assert_exit(&e, 0);
    let ev = json(&e.stdout);
    assert!(ev["properties"]["code"].is_object(), "{}", e.stdout);
    assert_ne!(ev, v);
}

// ---------------------------------------------------------------- validate

#[test]
fn validate_valid_definitions() {
    let r = run(&[
        "validate",
        TRAINER_DEF,
        "../definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml",
    ]);
    assert_exit(&r, 0);
    insta::assert_snapshot!("validate_valid", r.stdout);
    // Warnings are shown and allowed.
    let w = run(&["validate", OVERRIDE_DEF]);
    assert_exit(&w, 0);
    insta::assert_snapshot!("validate_warning", w.stdout);
}

#[test]
fn validate_invalid_definition() {
    let r = run(&["validate", INVALID_DEF]);
    assert_exit(&r, 3);
    insta::assert_snapshot!("validate_invalid", r.stdout);
    assert!(r.stdout.starts_with("INVALID: broken-widget\n"));
    let findings = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("  error["))
        .count();
    assert!(findings >= 4, "{}", r.stdout);
    assert!(r.stdout.contains("error[jq-syntax]"));
    assert!(r.stdout.contains("(line 19, column 11)"));
}

#[test]
fn validate_json_output() {
    let r = run(&["validate", "-o", "json", TRAINER_DEF, INVALID_DEF]);
    assert_exit(&r, 3);
    let v = json(&r.stdout);
    insta::assert_snapshot!("validate_json", r.stdout);
    let defs = v["definitions"].as_array().cloned().unwrap_or_default();
    assert_eq!(defs.len(), 2);
    assert_eq!(defs[0]["name"], "trainer-example-com-v1");
    assert_eq!(defs[0]["valid"], true);
    assert_eq!(defs[1]["valid"], false);
    assert!(defs[1]["findings"].as_array().is_some_and(|f| f.len() >= 4));
    assert_eq!(defs[1]["findings"][0]["severity"], "error");
}

#[test]
fn validate_reports_parse_errors_with_line_and_column() {
    let r = run(&["validate", MALFORMED]);
    assert_exit(&r, 2);
    assert_eq!(r.stdout, "");
    assert_one_error(&r, "tests/fixtures/malformed.yaml: invalid YAML:");
    assert!(r.stderr.contains("(at line 6, column 5)"), "{}", r.stderr);
    // A well-formed document that is not a definition is invalid (exit 3),
    // reported at its line.
    let r = run(&["validate", EXAMPLE]);
    assert_exit(&r, 3);
    insta::assert_snapshot!("validate_not_a_definition", r.stdout);
}

#[test]
fn validate_several_documents_and_stdin() {
    let text = format!("{}---\n{}", read(TRAINER_DEF), read(INVALID_DEF));
    let r = run_with(&["validate", "-"], Some(&text));
    assert_exit(&r, 3);
    assert!(
        r.stdout
            .starts_with("OK: trainer-example-com-v1 is a valid definition")
    );
    assert!(r.stdout.contains("\nINVALID: broken-widget\n"));
    // Findings of the second document name it.
    assert!(
        r.stdout.contains("  error[root-owner-ref] document 1 "),
        "{}",
        r.stdout
    );
}

// ------------------------------------------------------------- definitions

#[test]
fn definitions_listing() {
    let r = run(&["definitions"]);
    assert_exit(&r, 0);
    insta::assert_snapshot!("definitions_catalog", r.stdout);
    let r = run(&["definitions", "--definition", TRAINER_DEF]);
    assert_exit(&r, 0);
    insta::assert_snapshot!("definitions_with_user", r.stdout);
    assert!(r.stdout.starts_with("NAME "));
    assert!(r.stdout.contains("Trainer.v1.example.com"));
    assert!(r.stdout.contains("trainer, launcher, pool, evaluator\n"));
}

#[test]
fn definitions_component_list_is_cut_after_four() {
    let text = read(TRAINER_DEF).replace(
        "    childComponents:\n",
        "    childComponents:\n      - name: extra\n        ownerRef: trainer\n",
    );
    let r = run_with(&["definitions", "-d", "-"], Some(&text));
    assert_exit(&r, 0);
    assert!(
        r.stdout
            .contains("trainer, extra, launcher, pool, +1 more\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn definitions_full_output() {
    let r = run(&["definitions", "-o", "json"]);
    assert_exit(&r, 0);
    let v = json(&r.stdout);
    let all = v.as_array().unwrap();
    assert!(all.len() >= 30, "the whole catalog: {}", all.len());
    let jobset = all
        .iter()
        .find(|d| d["metadata"]["name"] == "jobset-x-k8s-io-jobset-v1alpha2")
        .unwrap();
    assert_eq!(jobset["kind"], "Karta");
    let y = run(&["definitions", "-o", "yaml", "-d", TRAINER_DEF]);
    assert_exit(&y, 0);
    // Every definition is one YAML document: the catalog plus the user one.
    assert_eq!(y.stdout.matches("\n---\n").count(), all.len());
}

#[test]
fn definitions_by_name() {
    let r = run(&["definitions", "jobset-x-k8s-io-jobset-v1alpha2"]);
    assert_exit(&r, 0);
    assert!(
        r.stdout
            .starts_with("apiVersion: run.ai/v1alpha1\nkind: Karta\n")
    );
    assert!(r.stdout.contains("name: jobset-x-k8s-io-jobset-v1alpha2"));
    let j = run(&[
        "definitions",
        "jobset-x-k8s-io-jobset-v1alpha2",
        "-o",
        "json",
    ]);
    assert_exit(&j, 0);
    let v = json(&j.stdout);
    assert_eq!(
        v["spec"]["structureDefinition"]["rootComponent"]["kind"]["kind"],
        "JobSet"
    );
    // By kind, too.
    let k = run(&["definitions", "trainer", "-d", TRAINER_DEF, "-o", "json"]);
    assert_exit(&k, 0);
    assert_eq!(
        json(&k.stdout)["metadata"]["name"],
        "trainer-example-com-v1"
    );
}

#[test]
fn definitions_unknown_name_exits_4() {
    let r = run(&["definitions", "nope"]);
    assert_exit(&r, 4);
    assert_eq!(r.stdout, "");
    assert_one_error(&r, "no definition named 'nope'");
    let j = run(&["definitions", "nope", "-o", "json"]);
    assert_exit(&j, 4);
    assert_eq!(json(&j.stdout)["error"], "no_definition");
}

// -------------------------------------------------------------- exit codes

#[test]
fn exit_0_success() {
    assert_exit(&run(&["describe", EXAMPLE]), 0);
    assert_exit(&run(&["validate", TRAINER_DEF]), 0);
    assert_exit(&run(&["definitions"]), 0);
    let help = run(&["--help"]);
    assert_exit(&help, 0);
    assert!(help.stdout.contains("Exit codes:"));
    for cmd in ["describe", "update", "validate", "definitions", "schema"] {
        let h = run(&[cmd, "--help"]);
        assert_exit(&h, 0);
        assert!(h.stdout.contains("5  a limit was exceeded"), "{cmd}");
    }
    assert_exit(&run(&["--version"]), 0);
}

#[test]
fn exit_1_resolution_failure() {
    let r = run(&[
        "describe",
        "-d",
        TRAINER_DEF,
        "tests/fixtures/trainer-bad-quantity.yaml",
    ]);
    assert_exit(&r, 1);
    assert_eq!(r.stdout, "");
    assert_one_error(&r, "invalid quantity \"lots\"");
    assert_eq!(r.stderr.lines().count(), 1);
    // An object without a name is not a usable object.
    let r = run_with(
        &["describe", "-"],
        Some("apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nspec: {}\n"),
    );
    assert_exit(&r, 1);
    assert_one_error(&r, "missing metadata.name");
}

#[test]
fn exit_2_usage_and_input_errors() {
    let malformed = run(&["describe", MALFORMED]);
    assert_exit(&malformed, 2);
    assert_eq!(malformed.stdout, "");
    assert_one_error(&malformed, "(at line 6, column 5)");

    let missing = run(&["describe", "tests/fixtures/does-not-exist.yaml"]);
    assert_exit(&missing, 2);
    assert_one_error(&missing, "cannot read tests/fixtures/does-not-exist.yaml");

    let directory = run(&["describe", "tests/fixtures"]);
    assert_exit(&directory, 2);
    assert_one_error(&directory, "cannot read tests/fixtures");

    assert_exit(&run(&["describe"]), 2);
    assert_exit(&run(&["frobnicate"]), 2);
    assert_exit(&run(&["describe", EXAMPLE, "-o", "xml"]), 2);

    let empty = run_with(&["describe", "-"], Some(""));
    assert_exit(&empty, 2);
    assert_one_error(&empty, "no Kubernetes object found");

    let binary = run_with(&["describe", "-"], Some("kind: \u{0}\u{1}\n\u{7f}"));
    assert_ne!(binary.code, 0);

    // Bytes that are not UTF-8: the engine's parse error, at the first
    // invalid byte (files and stdin alike; --pods and --limits too).
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let latin1 = dir.path().join("latin1.yaml");
    if let Err(e) = std::fs::write(&latin1, b"kind: Pod\nname: caf\xe9\n") {
        panic!("{e}");
    }
    let latin1 = latin1.to_string_lossy().into_owned();
    let expected = "input is not valid UTF-8: invalid byte at offset 19 (at line 2, column 10)";
    let r = run(&["describe", &latin1]);
    assert_exit(&r, 2);
    assert_one_error(&r, &format!("{latin1}: {expected}"));
    let r = run(&["describe", EXAMPLE, "--pods", &latin1]);
    assert_exit(&r, 2);
    assert_one_error(&r, &format!("--pods: {latin1}: {expected}"));
    let r = run(&["definitions", "--limits", &latin1]);
    assert_exit(&r, 2);
    assert_one_error(&r, &format!("--limits: {latin1}: {expected}"));

    let twice = run_with(&["describe", "-d", "-", "-"], Some(""));
    assert_exit(&twice, 2);
    assert_one_error(&twice, "standard input (-) can be used for only one input");

    let bad_limits = run(&[
        "describe",
        "--limits",
        "tests/fixtures/limits-unknown-field.yaml",
        EXAMPLE,
    ]);
    assert_exit(&bad_limits, 2);
    assert_one_error(&bad_limits, "unknown field 'maxStep'");

    // A malformed --definition file is an input error too.
    let bad_def = run(&["describe", "-d", MALFORMED, EXAMPLE]);
    assert_exit(&bad_def, 2);
}

#[test]
fn exit_3_invalid_definition() {
    let r = run(&["describe", "--definition", INVALID_DEF, EXAMPLE]);
    assert_exit(&r, 3);
    assert_eq!(r.stdout, "");
    assert_one_error(
        &r,
        "tests/fixtures/invalid-definition.yaml: invalid definition 'broken-widget'",
    );
    insta::assert_snapshot!("describe_invalid_definition_stderr", r.stderr);
    // Every other stderr line is a finding.
    assert!(r.stderr.lines().skip(1).all(|l| l.starts_with("  error[")));

    // A well-formed file that is not a definition.
    let r = run(&["describe", "-d", EXAMPLE, EXAMPLE]);
    assert_exit(&r, 3);
    assert_one_error(&r, "not a workload definition");

    assert_exit(&run(&["validate", INVALID_DEF]), 3);
    assert_exit(&run(&["definitions", "-d", INVALID_DEF]), 3);
}

#[test]
fn describe_with_an_invalid_definition_reports_what_validate_reports() {
    // Static findings; an undefined jq function with static findings; an
    // undefined jq function alone (found when compiling).
    let undefined_too = read(INVALID_DEF).replace(".spec.part | .[", ".spec.part | nosuchfn");
    let undefined_alone = read(OVERRIDE_DEF).replace(
        "replicasPath: .spec.replicatedJobs[].replicas",
        "replicasPath: .spec.replicatedJobs[] | nosuchfn",
    );
    assert_ne!(undefined_alone, read(OVERRIDE_DEF));
    for text in [read(INVALID_DEF), undefined_too, undefined_alone] {
        let v = run_with(&["validate", "-"], Some(&text));
        assert_exit(&v, 3);
        let d = run_with(&["describe", "-d", "-", EXAMPLE], Some(&text));
        assert_exit(&d, 3);
        assert_eq!(d.stdout, "");
        let validate_findings: Vec<&str> =
            v.stdout.lines().filter(|l| l.starts_with("  ")).collect();
        let describe_findings: Vec<&str> = d.stderr.lines().skip(1).collect();
        assert!(
            validate_findings.iter().any(|l| l.starts_with("  error[")),
            "{}",
            v.stdout
        );
        assert_eq!(describe_findings, validate_findings, "{text}");
    }
}

#[test]
fn exit_4_no_definition() {
    let r = run(&["describe", "tests/fixtures/unknown-kind.yaml"]);
    assert_exit(&r, 4);
    assert_eq!(r.stdout, "");
    assert_one_error(&r, "no definition covers example.com/v1, Kind=Gadget");

    let j = run(&["describe", "tests/fixtures/unknown-kind.yaml", "-o", "json"]);
    assert_exit(&j, 4);
    let v = json(&j.stdout);
    assert_eq!(v["error"], "no_definition");
    assert_eq!(v["gvk"], "example.com/v1, Kind=Gadget");
    assert!(v["message"].as_str().is_some_and(|m| m.contains("Gadget")));

    // The Trainer is unknown without its definition.
    assert_exit(&run(&["describe", TRAINER]), 4);
    // In a list, with --strict, the failing object is named.
    let l = run(&["describe", "--strict", LIST]);
    assert_exit(&l, 4);
    assert_one_error(
        &l,
        "Trainer/collide: no definition covers example.com/v1, Kind=Trainer",
    );
}

/// `kubectl get all -o yaml | workload-lens describe -`: every object a
/// definition covers is described, the others are skipped and listed on
/// stderr, exit 0; --strict fails on the first (exit 4); an input where no
/// object is covered fails as before.
#[test]
fn objects_without_a_definition_are_skipped_and_listed() {
    const GET_ALL: &str = "tests/fixtures/get-all.yaml";
    let skipped = "warning: skipped 2 of 3 objects that no definition covers (--strict fails \
                   on them; --definition adds one): Service/web (v1), ConfigMap/cfg (v1)\n";
    let r = run(&["describe", GET_ALL]);
    assert_exit(&r, 0);
    assert!(r.stdout.starts_with("Deployment/web "), "{}", r.stdout);
    assert_eq!(r.stderr, skipped);
    // From stdin, as kubectl pipes it.
    let piped = run_with(&["describe", "-"], Some(&read(GET_ALL)));
    assert_exit(&piped, 0);
    assert_eq!(piped.stdout, r.stdout);
    // -o json: the described objects only (a list: the input held several).
    let j = run(&["describe", GET_ALL, "-o", "json"]);
    assert_exit(&j, 0);
    let v = json(&j.stdout);
    assert_eq!(v.as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v[0]["workload"]["kind"], "Deployment");
    assert_eq!(j.stderr, skipped);
    // --strict: the first one fails the run, as before.
    let s = run(&["describe", "--strict", GET_ALL]);
    assert_exit(&s, 4);
    assert_eq!(s.stdout, "");
    assert_one_error(&s, "Service/web: no definition covers v1, Kind=Service");
    // Nothing covered: the first object's failure, with or without --strict.
    let none = run_with(
        &["describe", "-", "-o", "json"],
        Some(
            "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}\n",
        ),
    );
    assert_exit(&none, 4);
    assert_eq!(json(&none.stdout)["gvk"], "v1, Kind=Service");
    // A long list is cut after 20 names.
    let mut many = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..25 {
        many.push_str(&format!(
            "- {{apiVersion: v1, kind: Service, metadata: {{name: s{i}}}}}\n"
        ));
    }
    many.push_str(
        &read(EXAMPLE)
            .lines()
            .map(|l| format!("  {l}\n"))
            .collect::<String>()
            .replacen("  ", "- ", 1),
    );
    let m = run_with(&["describe", "-"], Some(&many));
    assert_exit(&m, 0);
    assert!(
        m.stderr.contains("skipped 25 of 26 objects"),
        "{}",
        m.stderr
    );
    assert!(
        m.stderr.contains("Service/s19 (v1), and 5 more\n"),
        "{}",
        m.stderr
    );
}

#[test]
fn exit_5_limit_exceeded() {
    let r = run(&[
        "describe",
        "--limits",
        "tests/fixtures/limits-tiny.yaml",
        EXAMPLE,
    ]);
    assert_exit(&r, 5);
    assert_eq!(r.stdout, "");
    assert_one_error(&r, "[limit maxSteps; raise it with --limits FILE]");

    // --limits goes before or after the command, in JSON or YAML.
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let limits = dir.path().join("limits.json");
    if let Err(e) = std::fs::write(&limits, r#"{"maxDepth": 3}"#) {
        panic!("{e}");
    }
    let limits = limits.to_string_lossy().into_owned();
    let r = run(&["--limits", &limits, "describe", EXAMPLE]);
    assert_exit(&r, 5);
    assert_one_error(&r, "maxDepth");

    let small = dir.path().join("small.yaml");
    if let Err(e) = std::fs::write(&small, "maxInputBytes: 100\n") {
        panic!("{e}");
    }
    let small = small.to_string_lossy().into_owned();
    let r = run(&["describe", EXAMPLE, "--limits", &small]);
    assert_exit(&r, 5);
    assert_one_error(
        &r,
        &format!(
            "{EXAMPLE}: input is larger than the limit maxInputBytes (100 bytes) \
             [limit maxInputBytes; raise it with --limits FILE]"
        ),
    );
    let r = run_with(&["describe", "-", "--limits", &small], Some(&read(EXAMPLE)));
    assert_exit(&r, 5);
    assert_one_error(&r, "<stdin>: input is larger than the limit maxInputBytes");

    // Generous limits change nothing.
    let big = dir.path().join("big.yaml");
    if let Err(e) = std::fs::write(&big, "maxSteps: 10000000\n") {
        panic!("{e}");
    }
    let big = big.to_string_lossy().into_owned();
    let r = run(&["describe", EXAMPLE, "--limits", &big]);
    assert_exit(&r, 0);
    assert_eq!(r.stdout, run(&["describe", EXAMPLE]).stdout);
}

#[test]
fn the_documents_of_one_command_share_one_budget() {
    // A budget that one copy of the example fits (about 300 steps) and
    // fifty copies in one file do not: the command is one call.
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => panic!("{e}"),
    };
    let example = match std::fs::read_to_string(EXAMPLE) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    let limits = dir.path().join("limits.yaml");
    let many = dir.path().join("many.yaml");
    let writes = std::fs::write(&limits, "maxSteps: 2000\n")
        .and_then(|()| std::fs::write(&many, vec![example.as_str(); 50].join("\n---\n")));
    if let Err(e) = writes {
        panic!("{e}");
    }
    let limits = limits.to_string_lossy().into_owned();
    let one = run(&["describe", "--limits", &limits, EXAMPLE]);
    assert_exit(&one, 0);
    let r = run(&["describe", "--limits", &limits, &many.to_string_lossy()]);
    assert_exit(&r, 5);
    assert!(r.stderr.contains("maxSteps"), "{}", r.stderr);
}

// ----------------------------------------------------------- robustness

#[test]
fn hostile_inputs_never_panic() {
    let inputs = [
        "",
        "---\n---\n",
        "null",
        "42",
        "[]",
        "[1, 2]",
        "{}",
        "\"text\"",
        "kind: List\nitems: []\n",
        "kind: List\nitems: [1, null, {kind: x}]\n",
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: x}\nspec: 7\n",
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: x}\nspec: {replicatedJobs: [{name: a, replicas: -3}]}\n",
        "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata: {name: x}\nspec: {replicatedJobs: [{name: a}, {name: a}]}\n",
        "a: &a [*a]\n",
        "a: &x [1]\nb: [*x, *x, *x]\n",
        "{\"unterminated\": ",
        "- [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n",
    ];
    for text in inputs {
        for format in ["human", "json", "yaml"] {
            let r = run_with(&["describe", "-", "-o", format], Some(text));
            assert!(
                (0..=5).contains(&r.code),
                "{text:?}: exit {}\n{}",
                r.code,
                r.stderr
            );
            if r.code != 0 {
                assert_one_error(&r, "");
            }
        }
        let r = run_with(&["validate", "-"], Some(text));
        assert!((0..=5).contains(&r.code), "{text:?}: exit {}", r.code);
        let r = run_with(&["definitions", "-d", "-"], Some(text));
        assert!((0..=5).contains(&r.code), "{text:?}: exit {}", r.code);
    }
}

#[test]
fn hostile_pods_and_values_never_panic() {
    let pods = [
        "",
        "null",
        "[1, 2]",
        "kind: List\nitems: [1, null, {kind: Pod}, {kind: Pod, metadata: {name: 3}}]\n",
        "kind: Pod\nmetadata: {name: p, namespace: ml-team, labels: 7}\nstatus: {phase: 3, conditions: x}\n",
        "kind: Pod\nmetadata: {name: p, labels: {jobset.sigs.k8s.io/replicatedjob-name: [1]}}\n",
        "kind: Pod\nmetadata: {name: p}\nspec: {nodeName: 4, containers: [{resources: {requests: {cpu: lots}}}]}\n",
        "kind: PodList\nitems: [{metadata: {name: a}}, {metadata: {name: a}}]\n",
        "a: &a [*a]\n",
    ];
    for text in pods {
        for format in ["human", "json"] {
            for limit in [None, Some("0")] {
                let mut args = vec!["describe", EXAMPLE, "--pods", "-", "-o", format];
                if let Some(l) = limit {
                    args.extend(["--pod-limit", l]);
                }
                let r = run_with(&args, Some(text));
                assert!(
                    (0..=5).contains(&r.code),
                    "{text:?}: exit {}\n{}",
                    r.code,
                    r.stderr
                );
                if r.code != 0 {
                    assert_one_error(&r, "");
                }
            }
        }
    }
    let values = [
        "",
        "null",
        "components: 3\n",
        "components: {replicatedjob: {podTemplateSpecs: [1]}}\n",
        "components: {replicatedjob: {podTemplateSpecs: {worker: 7}}}\n",
        "components: {replicatedjob: {podTemplateSpecs: {leader: null, worker: {spec: []}}}}\n",
        "components: {replicatedjob: {podMetadata: {worker: {}}}}\n",
        "components: {replicatedjob: {fragments: {worker: {schedulerName: x}}}}\n",
        "components: {jobset: {podSpecs: {\"\": {}}}}\n",
    ];
    for text in values {
        for format in ["yaml", "patch"] {
            let r = run_with(
                &["update", EXAMPLE, "--values", "-", "-o", format],
                Some(text),
            );
            assert!(
                (0..=5).contains(&r.code),
                "{text:?}: exit {}\n{}",
                r.code,
                r.stderr
            );
            if r.code != 0 {
                assert_one_error(&r, "");
            }
        }
    }
    for text in ["", "42", "kind: JobSet\n", "{\"unterminated\": "] {
        let r = run_with(&["update", "-", "--suspend"], Some(text));
        assert!((1..=5).contains(&r.code), "{text:?}: exit {}", r.code);
        assert_one_error(&r, "");
    }
}

#[test]
fn errors_are_one_clear_line_without_debug_dumps() {
    let cases: [&[&str]; 7] = [
        &["describe", MALFORMED],
        &["describe", "tests/fixtures/unknown-kind.yaml"],
        &[
            "describe",
            "-d",
            TRAINER_DEF,
            "tests/fixtures/trainer-bad-quantity.yaml",
        ],
        &[
            "describe",
            "--limits",
            "tests/fixtures/limits-tiny.yaml",
            EXAMPLE,
        ],
        &["definitions", "nope"],
        &["update", "-d", TRAINER_DEF, TRAINER, "--resume"],
        &["describe", EXAMPLE, "--pods", "tests/fixtures/nope.yaml"],
    ];
    for args in cases {
        let r = run(args);
        assert_ne!(r.code, 0);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("error: "));
        for debug in ["Error {", "Some(", "code: ", "Location {"] {
            assert!(!r.stderr.contains(debug), "{args:?}: {}", r.stderr);
        }
    }
}

#[test]
fn closed_stdout_is_not_an_error() {
    use std::process::{Command, Stdio};
    let bin = assert_cmd::cargo::cargo_bin!("workload-lens");
    let child = Command::new(bin)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["definitions", "-o", "yaml"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => panic!("{e}"),
    };
    // Close the reading end, like `| head -0`.
    drop(child.stdout.take());
    let out = match child.wait_with_output() {
        Ok(o) => o,
        Err(e) => panic!("{e}"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn output_is_plain_text_for_pipes() {
    let mut cmd = cargo_bin_cmd!("workload-lens");
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["describe", EXAMPLE]);
    cmd.assert()
        .success()
        .stdout(predicate::str::contains("\u{1b}[").not())
        .stderr(predicate::str::is_empty());
}

// ---------------------------------------------------- kubectl-grade options

#[test]
fn completion_scripts_for_bash_zsh_and_fish() {
    for shell in ["bash", "zsh", "fish"] {
        let r = run(&["completion", shell]);
        assert_exit(&r, 0);
        for sub in ["get", "describe", "top", "completion"] {
            assert!(r.stdout.contains(sub), "{shell}: no {sub}");
        }
        assert!(r.stdout.contains("no-headers"), "{shell}");
    }
    // The bash script parses and defines its completion function.
    if Path::new("/bin/bash").exists() || Path::new("/usr/bin/bash").exists() {
        let script = run(&["completion", "bash"]).stdout;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("completion.bash");
        std::fs::write(&file, script).unwrap();
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "source '{}' && complete -p workload-lens",
                file.display()
            ))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("workload-lens"));
    }
    let r = run(&["completion", "tcsh"]);
    assert_exit(&r, 2);
}

#[test]
fn sort_by_names_the_fields_it_knows() {
    let r = run(&["get", "jobsets", "--sort-by", "{.spec.replicas}"]);
    assert_exit(&r, 2);
    assert!(
        r.stderr.contains("unknown field")
            && r.stderr.contains("{.metadata.creationTimestamp}")
            && r.stderr.contains("gpus"),
        "{}",
        r.stderr
    );
}

#[cfg(feature = "cluster")]
#[test]
fn a_missing_kubeconfig_and_an_unknown_context_say_what_is_wrong() {
    let r = run(&["get", "jobsets", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_exit(&r, 7);
    assert_one_error(
        &r,
        "cannot read the kubeconfig /nonexistent/kubeconfig: No such file",
    );
    assert!(
        !r.stderr.contains("'\"") && !r.stderr.contains("\\\""),
        "{}",
        r.stderr
    );
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    std::fs::write(
        &kc,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: \
         https://127.0.0.1:1\nusers:\n- name: u\n  user: {}\ncontexts:\n- name: a\n  context:\n    \
         cluster: c\n    user: u\n- name: b\n  context:\n    cluster: c\n    user: u\n\
         current-context: a\n",
    )
    .unwrap();
    let kc = kc.to_str().unwrap();
    let r = run(&["get", "jobsets", "--kubeconfig", kc, "--context", "nosuch"]);
    assert_exit(&r, 7);
    assert_one_error(
        &r,
        &format!("context \"nosuch\" not found in kubeconfig {kc} (contexts: a, b)"),
    );
    let r = run(&[
        "get",
        "-o",
        "json",
        "--kubeconfig",
        kc,
        "--context",
        "nosuch",
    ]);
    assert_exit(&r, 7);
    assert_eq!(json(&r.stdout)["error"], "no_config");
}

/// A server that accepts connections and never answers: `--request-timeout`
/// bounds connecting (the TLS handshake waits for it), not a fixed 10 s.
#[cfg(feature = "cluster")]
#[test]
fn request_timeout_bounds_connecting() {
    use std::time::{Duration, Instant};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for s in listener.incoming().map_while(Result::ok) {
            held.push(s);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kc = dir.path().join("kubeconfig");
    std::fs::write(
        &kc,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: \
             https://127.0.0.1:{port}\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  \
             user: {{token: t}}\ncontexts:\n- name: a\n  context:\n    cluster: c\n    user: u\n\
             current-context: a\n"
        ),
    )
    .unwrap();
    let kc = kc.to_str().unwrap().to_string();
    let timed = |seconds: &'static str| {
        let kc = kc.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            let r = run(&[
                "get",
                "jobsets",
                "--kubeconfig",
                &kc,
                "--request-timeout",
                seconds,
            ]);
            (r, start.elapsed())
        })
    };
    // Both at once: the test takes the longer one's time.
    let (short, long) = (timed("2"), timed("12"));
    let (r, took) = short.join().unwrap();
    assert_exit(&r, 7);
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert!(
        r.stderr
            .contains(&format!("cannot reach https://127.0.0.1:{port}")),
        "{}",
        r.stderr
    );
    let (r, took) = long.join().unwrap();
    assert_exit(&r, 7);
    assert!(took > Duration::from_secs(11), "{took:?}");
}

#[cfg(feature = "cluster")]
#[test]
fn serve_checks_its_flags_before_it_connects_and_says_why_it_cannot() {
    // Usage errors come first (exit 2), whatever the cluster.
    let r = run(&[
        "serve",
        "--listen",
        "nowhere",
        "--kubeconfig",
        "/nonexistent",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("--listen nowhere"), "{}", r.stderr);
    let r = run(&[
        "serve",
        "--families",
        "pods,gpus",
        "--kubeconfig",
        "/nonexistent",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("unknown family \"gpus\""), "{}", r.stderr);
    // No cluster: exit 7 with the reason, as for get.
    let r = run(&["serve", "--kubeconfig", "/nonexistent/kubeconfig"]);
    assert_eq!(r.code, 7, "{}", r.stderr);
    assert!(
        r.stderr.contains("cannot read the kubeconfig"),
        "{}",
        r.stderr
    );
}
