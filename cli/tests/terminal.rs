//! Hostile object data in the human output of the binary: escape sequences
//! and other control characters in names, namespaces, ids, phases, reasons,
//! nodes and resource names never reach the terminal raw (JSON and YAML stay
//! exact), and a deep chain of owner references never aborts `describe`.
//! Every fixture is written here, into a temporary directory.

use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::{Value, json};

/// The result of one run.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = cargo_bin_cmd!("workload-lens");
    cmd.current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .args(args);
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
            !text.contains("panicked") && !text.contains("overflowed its stack"),
            "{args:?} crashed:\n{text}"
        );
    }
    run
}

#[track_caller]
fn assert_exit(r: &Run, code: i32) {
    assert_eq!(
        r.code, code,
        "exit code\n--- stdout\n{}\n--- stderr\n{}",
        r.stdout, r.stderr
    );
}

/// What must never reach a terminal raw: C0 controls but the newlines that
/// end our own lines, DEL, C1 controls, bidirectional controls and the
/// line and paragraph separators.
fn unsafe_char(c: char) -> bool {
    c != '\n'
        && matches!(c,
            '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}')
}

#[track_caller]
fn assert_terminal_safe(text: &str) {
    if let Some((at, c)) = text.char_indices().find(|(_, c)| unsafe_char(*c)) {
        let from = text[..at].rfind('\n').map_or(0, |n| n + 1);
        panic!(
            "raw {c:?} at byte {at}, in line {:?}\n--- whole output\n{}",
            text[from..].lines().next().unwrap_or_default(),
            text.escape_debug()
        );
    }
}

/// Escape-laden data, and how the human output must spell it.
const NAME: &str = "a\u{1b}[2J\u{1b}]0;pwned\u{7}";
const NAME_SHOWN: &str = "a\\x1b[2J\\x1b]0;pwned\\x07";
const NAMESPACE: &str = "ns\u{202e}gnp";
const NAMESPACE_SHOWN: &str = "ns\\u{202e}gnp";
const DEFINITION_NAME: &str = "evil\u{1b}[31m-def";
const DEFINITION_SHOWN: &str = "evil\\x1b[31m-def";
const POOL: &str = "p\u{1b}[31mred";
const POOL_SHOWN: &str = "p\\x1b[31mred";
const SECOND_POOL: &str = "line\nbreak\u{7f}\u{9b}";
const SECOND_POOL_SHOWN: &str = "line\\nbreak\\x7f\\u{9b}";
const PHASE: &str = "Running\u{1b}[5m";
const PHASE_SHOWN: &str = "Running\\x1b[5m";
const RESOURCE: &str = "example.com/res\u{1b}[7m";
const POD: &str = "pod\u{1b}[1m";
const POD_SHOWN: &str = "pod\\x1b[1m";
const REASON: &str = "Crash\u{1b}[0mLoop";
const REASON_SHOWN: &str = "Crash\\x1b[0mLoop";
const NODE: &str = "node\u{7}\u{2066}";
const NODE_SHOWN: &str = "node\\x07\\u{2066}";
const STRAY: &str = "stray\u{1b}[3m";
const STRAY_SHOWN: &str = "stray\\x1b[3m";

/// Fixtures in a fresh directory: `def.json` (example.com/v1 App, a root
/// and a multi-instance `pool`), `obj.json`, `pods.json` and `negative.json`
/// (`obj.json` with a negative GPU request), all JSON so that every escape
/// is exact.
struct Fixtures {
    dir: tempfile::TempDir,
}

impl Fixtures {
    fn new() -> Fixtures {
        let dir = match tempfile::tempdir() {
            Ok(d) => d,
            Err(e) => panic!("no temporary directory: {e}"),
        };
        let f = Fixtures { dir };
        f.write("def.json", &definition());
        f.write("obj.json", &object(1));
        f.write("negative.json", &object(-1));
        f.write("pods.json", &pods());
        f
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, name: &str, v: &Value) -> PathBuf {
        let path = self.path().join(name);
        if let Err(e) = std::fs::write(&path, v.to_string()) {
            panic!("cannot write {}: {e}", path.display());
        }
        path
    }

    fn run(&self, args: &[&str]) -> Run {
        run(self.path(), args)
    }
}

fn definition() -> Value {
    json!({
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": DEFINITION_NAME},
        "spec": {"structureDefinition": {
            "rootComponent": {
                "name": "app",
                "kind": {"group": "example.com", "version": "v1", "kind": "App"},
                "statusDefinition": {
                    "phaseDefinition": {"path": ".status.phase"},
                    "statusMappings": {"running": [{"byPhase": PHASE}]},
                },
            },
            "childComponents": [{
                "name": "pool",
                "ownerRef": "app",
                "instanceIdPath": ".spec.pools[].name",
                "specDefinition": {"podTemplateSpecPath": ".spec.pools[].template"},
                "scaleDefinition": {"replicasPath": ".spec.pools[].replicas"},
                "podSelector": {
                    "componentTypeSelector": {"keyPath": ".metadata.labels[\"role\"]", "value": "pool"},
                    "componentInstanceSelector": {"idPath": ".metadata.labels[\"pool\"]"},
                },
            }],
        }},
    })
}

fn object(gpus: i64) -> Value {
    let template = json!({"spec": {"containers": [{
        "name": "c",
        "resources": {"limits": {"nvidia.com/gpu": gpus, RESOURCE: "1"}},
    }]}});
    json!({
        "apiVersion": "example.com/v1",
        "kind": "App",
        "metadata": {"name": NAME, "namespace": NAMESPACE},
        "spec": {"pools": [
            {"name": POOL, "replicas": 1, "template": template},
            {"name": SECOND_POOL, "replicas": 2, "template": template},
        ]},
        "status": {"phase": PHASE},
    })
}

fn pods() -> Value {
    json!([
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": POD, "namespace": NAMESPACE,
                         "labels": {"role": "pool", "pool": POOL}},
            "spec": {"nodeName": NODE, "containers": [
                {"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}},
            ]},
            "status": {"phase": "Running", "containerStatuses": [
                {"name": "c", "state": {"waiting": {"reason": REASON}}},
            ]},
        },
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": STRAY, "namespace": NAMESPACE,
                         "labels": {"role": "pool", "pool": "nope\u{1b}[9m"}},
            "spec": {},
            "status": {"phase": "Pending\u{8}"},
        },
    ])
}

#[test]
fn describe_escapes_object_data() {
    let f = Fixtures::new();
    let r = f.run(&["describe", "obj.json", "-d", "def.json"]);
    assert_exit(&r, 0);
    assert_terminal_safe(&r.stdout);
    assert_terminal_safe(&r.stderr);
    for shown in [
        NAME_SHOWN,
        NAMESPACE_SHOWN,
        DEFINITION_SHOWN,
        POOL_SHOWN,
        SECOND_POOL_SHOWN,
        PHASE_SHOWN,
        "EXAMPLE.COM/RES\\x1b[7M",
    ] {
        assert!(r.stdout.contains(shown), "no {shown} in\n{}", r.stdout);
    }
    // The escaped id keeps its row: a newline in an id is no new line.
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains(SECOND_POOL_SHOWN))
        .collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines.iter().any(|l| l.contains("replicas: 2")));
}

#[test]
fn describe_with_pods_escapes_pods_reasons_nodes_and_warnings() {
    let f = Fixtures::new();
    let r = f.run(&[
        "describe",
        "obj.json",
        "-d",
        "def.json",
        "--pods",
        "pods.json",
    ]);
    assert_exit(&r, 0);
    assert_terminal_safe(&r.stdout);
    assert_terminal_safe(&r.stderr);
    for shown in [
        POD_SHOWN,
        REASON_SHOWN,
        NODE_SHOWN,
        STRAY_SHOWN,
        "Pending\\x08",
    ] {
        assert!(r.stdout.contains(shown), "no {shown} in\n{}", r.stdout);
    }
    // The stray pod's warning names it.
    assert!(r.stderr.contains(STRAY_SHOWN), "{}", r.stderr);
}

#[test]
fn errors_quoting_object_data_are_escaped() {
    let f = Fixtures::new();
    let r = f.run(&["describe", "negative.json", "-d", "def.json"]);
    assert_exit(&r, 1);
    assert_terminal_safe(&r.stderr);
    assert!(r.stderr.starts_with("error: "), "{}", r.stderr);
    assert!(r.stderr.contains("negative"), "{}", r.stderr);
    assert!(r.stderr.contains(POOL_SHOWN), "{}", r.stderr);
    // The same on stderr when stdout is JSON.
    let r = f.run(&["describe", "negative.json", "-d", "def.json", "-o", "json"]);
    assert_exit(&r, 1);
    assert_terminal_safe(&r.stderr);
    assert!(r.stderr.contains(POOL_SHOWN), "{}", r.stderr);
    // An object of an unknown kind whose kind is an escape sequence.
    f.write(
        "unknown.json",
        &json!({"apiVersion": "example.com/v1", "kind": "K\u{1b}[8m", "metadata": {"name": NAME}}),
    );
    let r = f.run(&["describe", "unknown.json"]);
    assert_exit(&r, 4);
    assert_terminal_safe(&r.stderr);
    assert!(r.stderr.contains("K\\x1b[8m"), "{}", r.stderr);
}

#[test]
fn validate_and_definitions_escape_definition_names() {
    let f = Fixtures::new();
    let r = f.run(&["validate", "def.json"]);
    assert_exit(&r, 0);
    assert_terminal_safe(&r.stdout);
    assert!(
        r.stdout
            .contains(&format!("OK: {DEFINITION_SHOWN} is a valid definition")),
        "{}",
        r.stdout
    );
    let r = f.run(&["definitions", "-d", "def.json"]);
    assert_exit(&r, 0);
    assert_terminal_safe(&r.stdout);
    assert!(r.stdout.contains(DEFINITION_SHOWN), "{}", r.stdout);
}

#[test]
fn json_and_yaml_output_stay_exact() {
    let f = Fixtures::new();
    let r = f.run(&["describe", "obj.json", "-d", "def.json", "-o", "json"]);
    assert_exit(&r, 0);
    let v: Value = match serde_json::from_str(&r.stdout) {
        Ok(v) => v,
        Err(e) => panic!("not JSON ({e}):\n{}", r.stdout),
    };
    assert_eq!(v["workload"]["name"], NAME);
    assert_eq!(v["workload"]["namespace"], NAMESPACE);
    let ids: Vec<&str> = v["components"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| c["instances"].as_array().into_iter().flatten())
        .filter_map(|i| i["id"].as_str())
        .collect();
    assert!(ids.contains(&POOL) && ids.contains(&SECOND_POOL), "{ids:?}");
    let r = f.run(&["describe", "obj.json", "-d", "def.json", "-o", "yaml"]);
    assert_exit(&r, 0);
    assert!(!r.stdout.contains(NAME_SHOWN), "{}", r.stdout);
    let r = f.run(&["validate", "def.json", "-o", "json"]);
    assert_exit(&r, 0);
    assert!(r.stdout.contains("evil\\u001b[31m-def"), "{}", r.stdout);
}

/// A definition whose components form one chain of owner references,
/// `n` levels below the root.
fn chain_definition(n: usize) -> String {
    let mut text = String::from(
        "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata:\n  name: deep\nspec:\n  \
         structureDefinition:\n    rootComponent:\n      name: c0\n      kind: {group: \
         example.com, version: v1, kind: Deep}\n      specDefinition:\n        \
         podSpecPath: .spec.pod\n      statusDefinition:\n        statusMappings:\n          \
         running:\n            - byPhase: Running\n    childComponents:\n",
    );
    for i in 1..=n {
        text.push_str(&format!("      - {{name: c{i}, ownerRef: c{}}}\n", i - 1));
    }
    text
}

const DEEP_OBJECT: &str = "apiVersion: example.com/v1\nkind: Deep\nmetadata: {name: d}\n";

#[test]
fn a_16000_deep_owner_chain_does_not_abort_describe() {
    let f = Fixtures::new();
    let dir = f.path();
    for (name, text) in [
        ("deep.yaml", chain_definition(16_000)),
        ("deep-object.yaml", DEEP_OBJECT.to_string()),
    ] {
        if let Err(e) = std::fs::write(dir.join(name), text) {
            panic!("cannot write {name}: {e}");
        }
    }
    for format in ["human", "json", "yaml"] {
        let r = f.run(&[
            "describe",
            "deep-object.yaml",
            "-d",
            "deep.yaml",
            "-o",
            format,
        ]);
        // The engine refuses chains deeper than its nesting limit: the CLI
        // reports that as a limit error. If a later engine resolved the
        // chain, the human tree must still come out whole.
        match r.code {
            5 => {
                assert!(r.stderr.contains("error: "), "{}", r.stderr);
                assert!(r.stderr.contains("[limit "), "{}", r.stderr);
            }
            0 if format == "human" => {
                assert!(r.stdout.contains("c16000"), "{}", r.stderr);
            }
            _ => assert_exit(&r, 5),
        }
    }
}

#[test]
fn a_deep_tree_is_drawn_with_bounded_indentation() {
    let f = Fixtures::new();
    let dir = f.path();
    // The deepest chain the engine takes when its limits are raised:
    // maxDepth is capped at 512 and a chain at a quarter of it.
    for (name, text) in [
        ("deep.yaml", chain_definition(128)),
        ("deep-object.yaml", DEEP_OBJECT.to_string()),
        ("limits.yaml", "maxDepth: 100000\n".to_string()),
    ] {
        if let Err(e) = std::fs::write(dir.join(name), text) {
            panic!("cannot write {name}: {e}");
        }
    }
    let args = [
        "--limits",
        "limits.yaml",
        "describe",
        "deep-object.yaml",
        "-d",
        "deep.yaml",
    ];
    let r = f.run(&args);
    assert_exit(&r, 0);
    assert!(r.stdout.contains("[depth 128] c128"), "{}", r.stdout);
    let widest = r.stdout.lines().map(str::len).max().unwrap_or(0);
    assert!(widest < 200, "a line of {widest} bytes");
    let r = f.run(&[&args[..], &["-o", "json"]].concat());
    assert_exit(&r, 0);
    assert!(r.stdout.contains("\"c128\""));
}
