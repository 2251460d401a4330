//! jq differential check against gojq, the reference's jq engine: every
//! `evaluate` case of the suite, and every expression of the bundled catalog
//! (plus the reference catalog's expressions, when the shared reference
//! material is present beside the repository) run on realistic inputs (every
//! catalog fixture object and pod) through both engines. Outputs and
//! error/no-error must agree, except where a case or the list below names a
//! documented difference (docs/compatibility.md, "jq engine").

use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use workload_lens::{Engine, ErrorCode, Limits, evaluate};
use workload_lens_conformance::{canonical, expand_case, load_groups, suite_dir};

fn have_gojq() -> bool {
    Command::new("gojq").arg("--version").output().is_ok()
        && Command::new("timeout").arg("--version").output().is_ok()
}

/// Run `expr` on each input through gojq; per input `Ok(outputs)` or `Err`.
fn gojq_batch(expr: &str, inputs: &[Value]) -> Option<Vec<Result<Vec<Value>, ()>>> {
    let program = format!("try ([{expr}] | {{ok: .}}) catch {{error: true}}");
    // gojq has no limits of its own (`def f: f; f` runs forever): bound it.
    let mut child = Command::new("timeout")
        .args(["20", "gojq", "-c", &program])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let text: String = inputs.iter().map(|v| v.to_string() + "\n").collect();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    if !out.status.success() {
        // A program gojq cannot even compile: an error for every input.
        return Some(inputs.iter().map(|_| Err(())).collect());
    }
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    if lines.len() != inputs.len() {
        return None;
    }
    Some(
        lines
            .into_iter()
            .map(|l| match l.get("ok") {
                Some(Value::Array(a)) => Ok(a.clone()),
                _ => Err(()),
            })
            .collect(),
    )
}

fn ours(expr: &str, input: &Value) -> Result<Vec<Value>, ErrorCode> {
    evaluate(expr, input, &Limits::default()).map_err(|e| e.code())
}

fn same_outputs(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| canonical(x) == canonical(y) || num_eq(x, y))
}

fn num_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| num_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| num_eq(v, w)))
        }
        _ => a == b,
    }
}

fn yaml_values(path: &Path) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    // Every object of the file: documents, the items of lists.
    Engine::new()
        .and_then(|e| e.read_objects(&text))
        .unwrap_or_default()
}

/// Every fixture object and pod of the catalog, and the examples.
fn realistic_inputs() -> Vec<Value> {
    let root = suite_dir().join("..");
    let mut files: Vec<PathBuf> = Vec::new();
    if let Ok(rd) = std::fs::read_dir(root.join("definitions/fixtures")) {
        for d in rd.flatten() {
            if let Ok(rd2) = std::fs::read_dir(d.path()) {
                files.extend(rd2.flatten().map(|e| e.path()).filter(|p| {
                    p.extension().is_some_and(|x| x == "yaml") && !p.ends_with("expect.yaml")
                }));
            }
        }
    }
    if let Ok(rd) = std::fs::read_dir(root.join("examples")) {
        files.extend(rd.flatten().map(|e| e.path()));
    }
    files.sort();
    files.iter().flat_map(|f| yaml_values(f)).collect()
}

/// Expressions in a definition: every string under a key naming a path or
/// expression, and the items of `groupByKeyPaths` and `filters`.
fn expressions_of(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                let is_expr = k.ends_with("Path") || k == "path" || k == "expression";
                match x {
                    Value::String(s) if is_expr && !s.trim().is_empty() => {
                        out.insert(s.clone());
                    }
                    Value::Array(a) if k == "groupByKeyPaths" || k == "filters" => {
                        out.extend(a.iter().filter_map(|s| s.as_str().map(str::to_string)));
                    }
                    x => expressions_of(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| expressions_of(x, out)),
        _ => {}
    }
}

/// Catalog expressions where gojq and we differ on purpose.
const KNOWN: &[(&str, &str)] = &[];

#[test]
fn suite_evaluate_cases_agree_with_gojq() {
    if !have_gojq() {
        eprintln!(
            "gojq is not installed: differential check skipped (scripts/test.sh installs it)"
        );
        return;
    }
    let groups = load_groups(&suite_dir()).unwrap();
    let mut disagreements = Vec::new();
    let mut checked = 0;
    for g in &groups {
        for c in g.cases.iter().filter(|c| c.op == "evaluate") {
            // Limits are ours; gojq has none to compare with.
            let limit_case = c.expect.pointer("/error/code") == Some(&json!("limit"));
            if c.known_differences.contains_key("gojq") || c.limits.is_some() || limit_case {
                continue;
            }
            let c = &expand_case(c, g).unwrap();
            let (Some(expr), input) = (&c.expression, c.input.clone().unwrap_or(Value::Null))
            else {
                continue;
            };
            let Some(theirs) = gojq_batch(expr, std::slice::from_ref(&input)) else {
                continue;
            };
            checked += 1;
            let mine = ours(expr, &input);
            let agree = match (&mine, &theirs[0]) {
                (Ok(a), Ok(b)) => same_outputs(a, b),
                (Err(_), Err(())) => true,
                _ => false,
            };
            if !agree {
                disagreements.push(format!(
                    "{}: {expr} on {input}: ours {mine:?}, gojq {:?}",
                    c.name, theirs[0]
                ));
            }
        }
    }
    eprintln!("gojq differential: {checked} evaluate cases checked");
    assert!(
        disagreements.is_empty(),
        "{} unexplained disagreement(s) (fix them, or mark the case with knownDifferences.gojq and document it):\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

#[test]
fn catalog_expressions_agree_with_gojq_on_realistic_inputs() {
    if !have_gojq() {
        eprintln!(
            "gojq is not installed: differential check skipped (scripts/test.sh installs it)"
        );
        return;
    }
    let mut exprs = BTreeSet::new();
    for d in Engine::new().unwrap().definitions() {
        expressions_of(&serde_json::to_value(d.definition()).unwrap(), &mut exprs);
    }
    let reference = suite_dir().join("../../shared/reference/catalog-expressions.txt");
    if let Ok(text) = std::fs::read_to_string(reference) {
        exprs.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && *l != "gpu" && *l != "no-gpu")
                .map(str::to_string),
        );
    }
    let inputs = realistic_inputs();
    assert!(!inputs.is_empty());
    let mut disagreements = Vec::new();
    let mut runs = 0;
    for expr in &exprs {
        if KNOWN.iter().any(|(e, _)| e == expr) {
            continue;
        }
        // Expressions we deny statically (assignments in action paths) are
        // not read paths; skip what does not compile for us.
        if matches!(ours(expr, &Value::Null), Err(ErrorCode::JqCompile)) {
            continue;
        }
        let Some(theirs) = gojq_batch(expr, &inputs) else {
            continue;
        };
        let Ok(compiled) = workload_lens::Expression::compile(expr, &Limits::default()) else {
            continue;
        };
        for (input, t) in inputs.iter().zip(&theirs) {
            runs += 1;
            let mine = compiled
                .evaluate(input, &Limits::default())
                .map_err(|e| e.code());
            let agree = match (&mine, t) {
                (Ok(a), Ok(b)) => same_outputs(a, b),
                (Err(_), Err(())) => true,
                _ => false,
            };
            if !agree {
                let name = input
                    .pointer("/metadata/name")
                    .cloned()
                    .unwrap_or(Value::Null);
                disagreements.push(format!("{expr} on {name}: ours {mine:?}, gojq {t:?}"));
            }
        }
    }
    eprintln!(
        "gojq differential: {} expressions x {} inputs = {runs} runs",
        exprs.len(),
        inputs.len()
    );
    disagreements.truncate(30);
    assert!(
        disagreements.is_empty(),
        "unexplained disagreements:\n{}",
        disagreements.join("\n")
    );
}
