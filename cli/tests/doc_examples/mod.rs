//! The console examples of docs/cli.md: parsing them, matching their
//! output (`...` lines match any run of lines), and telling the ones that
//! read a cluster from the offline ones. Shared by `docs.rs` (offline) and
//! `live.rs` (against the test API server).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Example {
    pub line: usize,
    pub command: String,
    pub expected: Vec<String>,
}

pub fn examples(doc: &str) -> Vec<Example> {
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
pub fn matches(pattern: &[String], lines: &[&str]) -> bool {
    match pattern.split_first() {
        None => lines.is_empty(),
        Some((p, rest)) if p == "..." => (0..=lines.len()).any(|k| matches(rest, &lines[k..])),
        Some((p, rest)) => lines
            .split_first()
            .is_some_and(|(l, more)| l == p && matches(rest, more)),
    }
}

/// Does the example read a cluster: `get`, `top`, or `describe TYPE/NAME`?
pub fn needs_cluster(e: &Example) -> bool {
    let Some(rest) = e.command.strip_prefix("workload-lens ") else {
        return false;
    };
    let mut words = rest.split_whitespace();
    match words.next() {
        Some("get" | "top") => true,
        Some("describe" | "why") => words.next().is_some_and(|t| {
            t.matches('/').count() == 1 && !Path::new(t).exists() && !t.contains(".yaml")
        }),
        _ => false,
    }
}

/// A line of a cluster example made comparable across runs: cells
/// separated by single spaces (column widths follow the ages), and every
/// age (`27m`, `5s`, and in an event's `(x4 over 10m)`) written as `<age>`.
pub fn normalize(line: &str) -> String {
    if line == "..." {
        return line.to_string();
    }
    line.split_whitespace()
        .map(|word| {
            let (w, close) = match word.strip_suffix(')') {
                Some(w) => (w, ")"),
                None => (word, ""),
            };
            let digits = w.trim_end_matches(['s', 'm', 'h', 'd', 'y']);
            if w.len() == digits.len() + 1
                && !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
            {
                format!("<age>{close}")
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Run the examples of `doc` (its path, for the messages) in bash from
/// the repository root with this build's `workload-lens` first on PATH and
/// `env` set; the failures, described.
pub fn run(doc: &str, examples: &[Example], env: &[(&str, &str)], normalized: bool) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_workload-lens"));
    let dir = bin.parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for e in examples {
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(format!("{{ {}\n}} 2>&1", e.command))
            .current_dir(&root)
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .env_remove("WORKLOAD_LENS_LIMITS");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let (expected, lines): (Vec<String>, Vec<String>) = if normalized {
            (
                e.expected.iter().map(|l| normalize(l)).collect(),
                text.lines().map(normalize).collect(),
            )
        } else {
            (
                e.expected.clone(),
                text.lines().map(str::to_string).collect(),
            )
        };
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        if !matches(&expected, &lines) {
            failures.push(format!(
                "{doc}:{}: $ {}\n--- the document shows:\n{}\n--- the CLI prints:\n{}",
                e.line,
                e.command,
                e.expected.join("\n"),
                text
            ));
        }
    }
    failures
}
