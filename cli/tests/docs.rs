//! Every console example of docs/cli.md, run: each `$ workload-lens ...`
//! (or `cat`, `printf ... |`) command runs in bash from the repository
//! root, with this build's `workload-lens` first on PATH, and its output
//! (stdout and stderr, as a terminal shows them) must be the lines the
//! document shows. A line `...` in the document stands for any number of
//! lines. Commands that need a cluster (`kubectl`) are skipped; a lone
//! `$ echo $?` belongs to the command before it.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
}

fn examples(doc: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_console = false;
    for (i, l) in doc.lines().enumerate() {
        if !in_console {
            in_console = l.trim_end() == "```console";
            continue;
        }
        if l.trim_end() == "```" {
            in_console = false;
            continue;
        }
        if let Some(cmd) = l.strip_prefix("$ ") {
            if cmd == "echo $?"
                && let Some(prev) = out.last_mut()
            {
                prev.command.push_str("; echo $?");
                continue;
            }
            out.push(Example {
                line: i + 1,
                command: cmd.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(e) = out.last_mut() {
            e.expected.push(l.to_string());
        }
    }
    out.retain(|e| !e.command.contains("kubectl") && !e.command.ends_with('\\'));
    out
}

/// `lines` as `pattern` says, where a `...` line matches any run of lines.
fn matches(pattern: &[String], lines: &[&str]) -> bool {
    match pattern.split_first() {
        None => lines.is_empty(),
        Some((p, rest)) if p == "..." => (0..=lines.len()).any(|k| matches(rest, &lines[k..])),
        Some((p, rest)) => lines
            .split_first()
            .is_some_and(|(l, more)| l == p && matches(rest, more)),
    }
}

#[test]
fn every_console_example_of_the_cli_guide_is_what_the_cli_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_workload-lens"));
    let dir = bin.parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let all = examples(&doc);
    assert!(all.len() >= 25, "{} examples", all.len());
    let mut failures = Vec::new();
    for e in &all {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!("{{ {}\n}} 2>&1", e.command))
            .current_dir(&root)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env_remove("WORKLOAD_LENS_LIMITS")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        if !matches(&e.expected, &lines) {
            failures.push(format!(
                "docs/cli.md:{}: $ {}\n--- the document shows:\n{}\n--- the CLI prints:\n{}",
                e.line,
                e.command,
                e.expected.join("\n"),
                text
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_ellipsis_matches_any_run_of_lines() {
    let p = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert!(matches(&p(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&p(&["a", "...", "d"]), &["a", "d"]));
    assert!(matches(&p(&["a", "..."]), &["a", "b"]));
    assert!(!matches(&p(&["a", "...", "d"]), &["a", "b"]));
    assert!(!matches(&p(&["a"]), &["a", "b"]));
}
