//! `workload-lens validate`: check definition files.

use serde::Serialize;
use serde_json::Value;
use workload_lens::definition::definition_from_value;
use workload_lens::source::{SpanIndex, path_push_index};
use workload_lens::validate::{has_errors, validate_loaded};
use workload_lens::{CompiledDefinition, ErrorCode, Finding, Gvk, Limits, Location, Origin};

use crate::failure::{EXIT_INVALID_DEFINITION, EXIT_OK, Failure, finding_line, report};
use crate::input::{self, InputPath, check_single_stdin, read_text};
use crate::output::{self, Format};

/// The kinds of list documents whose `items` are definitions (as the engine
/// reads them).
const LIST_KINDS: [&str; 3] = ["List", "KartaList", "ResourceInterfaceList"];

/// The verdict on one definition.
#[derive(Debug, Serialize)]
pub struct Verdict {
    /// `metadata.name` (or a placeholder naming the document).
    pub name: String,
    /// No error findings.
    pub valid: bool,
    /// The root GVK, e.g. `jobset.x-k8s.io/v1alpha2, Kind=JobSet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gvk: Option<String>,
    /// Every finding, errors and warnings, in text order.
    pub findings: Vec<Finding>,
}

#[derive(Serialize)]
struct Report<'a> {
    definitions: &'a [Verdict],
}

/// Run `validate`; returns stdout text and the exit code.
pub fn run(files: &[InputPath], format: Format, limits: &Limits) -> Result<(String, u8), Failure> {
    check_single_stdin(files)?;
    let mut verdicts = Vec::new();
    let mut failed: Option<u8> = None;
    for file in files {
        match validate_file(file, limits) {
            Ok(v) => verdicts.extend(v),
            // One file alone: a plain failure.
            Err(f) if files.len() == 1 => return Err(f),
            // Several files: report this one, go on with the others, and
            // exit with the first failure's code.
            Err(f) => {
                failed = failed.or(Some(f.exit));
                report(&f);
            }
        }
    }
    let exit = match failed {
        Some(code) => code,
        None if verdicts.iter().all(|v| v.valid) => EXIT_OK,
        None => EXIT_INVALID_DEFINITION,
    };
    let text = match format {
        Format::Human => human(&verdicts),
        Format::Json => output::json(&Report {
            definitions: &verdicts,
        })?,
        Format::Yaml => output::yaml(&Report {
            definitions: &verdicts,
        })?,
    };
    Ok((text, exit))
}

fn human(verdicts: &[Verdict]) -> String {
    let mut out = String::new();
    for v in verdicts {
        if v.valid {
            out.push_str(&format!("OK: {} is a valid definition", v.name));
            if let Some(gvk) = &v.gvk {
                out.push_str(&format!(" (GVK: {gvk})"));
            }
        } else {
            out.push_str(&format!("INVALID: {}", v.name));
        }
        out.push('\n');
        for f in &v.findings {
            out.push_str(&finding_line(f));
            out.push('\n');
        }
    }
    out
}

/// One definition to check: its value, its positions, and where it is.
struct Unit<'a> {
    value: &'a Value,
    spans: SpanIndex,
    document: Option<usize>,
    /// `items[i]` for an item of a list document.
    prefix: Option<String>,
}

/// Every definition of one file. Malformed YAML/JSON fails the file (exit 2);
/// each definition that cannot even be read as a definition is one invalid
/// verdict, and the other definitions are still checked.
pub fn validate_file(file: &InputPath, limits: &Limits) -> Result<Vec<Verdict>, Failure> {
    let name = file.display();
    let text = read_text(file, limits)?;
    let docs = input::parse(&text, &name, limits)?;
    let several = docs.len() > 1;
    let mut verdicts = Vec::new();
    for doc in &docs {
        let document = (several || doc.document > 0).then_some(doc.document);
        let kind = doc.value.get("kind").and_then(Value::as_str);
        let mut units = Vec::new();
        match (kind, doc.value.get("items")) {
            (Some(k), Some(Value::Array(items))) if LIST_KINDS.contains(&k) => {
                for (i, item) in items.iter().enumerate() {
                    let prefix = path_push_index("items", i);
                    units.push(Unit {
                        value: item,
                        spans: doc.spans.subtree(&prefix),
                        document,
                        prefix: Some(prefix),
                    });
                }
            }
            (Some(k), items) if LIST_KINDS.contains(&k) => {
                let mut f = Finding::error(
                    ErrorCode::Parse.as_str(),
                    format!(
                        "a {k} document must have an 'items' list, found {}",
                        items.map_or("nothing", type_name)
                    ),
                    "items",
                );
                f.location.document = document;
                doc.spans.locate(&mut f.location);
                verdicts.push(Verdict {
                    name: placeholder(document),
                    valid: false,
                    gvk: None,
                    findings: vec![f],
                });
            }
            _ => units.push(Unit {
                value: &doc.value,
                spans: doc.spans.clone(),
                document,
                prefix: None,
            }),
        }
        for unit in units {
            verdicts.push(check(unit, &doc.spans, limits)?);
        }
    }
    if verdicts.is_empty() {
        return Err(Failure::new(
            EXIT_INVALID_DEFINITION,
            format!("{name}: no definition found"),
        ));
    }
    Ok(verdicts)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

fn placeholder(document: Option<usize>) -> String {
    match document {
        Some(d) => format!("(unnamed definition in document {d})"),
        None => "(unnamed definition)".to_string(),
    }
}

fn check(unit: Unit<'_>, doc_spans: &SpanIndex, limits: &Limits) -> Result<Verdict, Failure> {
    let written_name = unit
        .value
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_string);
    let name = written_name
        .clone()
        .unwrap_or_else(|| placeholder(unit.document));
    let mut loaded = match definition_from_value(unit.value, limits) {
        Ok(l) => l,
        Err(e) if e.code == ErrorCode::Limit => return Err(Failure::engine(&e)),
        Err(e) => {
            let mut location = e.location.clone();
            unit.spans.locate(&mut location);
            if let Some(prefix) = &unit.prefix {
                location.field = Some(match location.field.take() {
                    Some(f) if f.starts_with('[') => format!("{prefix}{f}"),
                    Some(f) if !f.is_empty() => format!("{prefix}.{f}"),
                    _ => prefix.clone(),
                });
                doc_spans.locate(&mut location);
            }
            location.document = location.document.or(unit.document);
            let finding = Finding {
                code: e.code.as_str().to_string(),
                severity: workload_lens::Severity::Error,
                message: e.message.clone(),
                location,
            };
            return Ok(Verdict {
                name,
                valid: false,
                gvk: None,
                findings: vec![finding],
            });
        }
    };
    loaded.spans = unit.spans;
    loaded.document = unit.document;
    let mut findings = validate_loaded(&loaded, limits);
    if !has_errors(&findings) {
        // The validator checks every expression; compiling is the final
        // word on whether `describe` accepts the definition.
        if let Err(e) =
            CompiledDefinition::compile_with(loaded.definition.clone(), *limits, Origin::User)
        {
            if e.code == ErrorCode::Limit {
                return Err(Failure::engine(&e).context(&name));
            }
            let mut location = Location {
                expression: None,
                ..e.location.clone()
            };
            loaded.spans.locate(&mut location);
            location.document = location.document.or(unit.document);
            findings.push(Finding {
                code: e.code.as_str().to_string(),
                severity: workload_lens::Severity::Error,
                message: e.message.clone(),
                location,
            });
        }
    }
    let gvk = loaded.definition.root_gvk().map(Gvk::to_string);
    Ok(Verdict {
        name,
        valid: !has_errors(&findings),
        gvk,
        findings,
    })
}
