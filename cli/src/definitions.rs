//! `workload-lens definitions`: list the known definitions or show one.

use std::sync::Arc;

use serde_json::json;
use workload_lens::{CompiledDefinition, Definition, Gvk, Limits};

use crate::failure::{EXIT_NO_DEFINITION, Failure};
use crate::input::{self, InputPath, check_single_stdin};
use crate::output::{self, Format, columns};

/// At most this many component names in the COMPONENTS column.
const MAX_COMPONENTS: usize = 4;

/// Run `definitions`; returns the text for stdout.
pub fn run(
    name: Option<&str>,
    definitions: &[InputPath],
    format: Option<Format>,
    limits: &Limits,
) -> Result<String, Failure> {
    check_single_stdin(definitions)?;
    let engine = input::engine(definitions, limits)?;
    let all = engine.definitions();
    let Some(name) = name else {
        return match format.unwrap_or(Format::Human) {
            Format::Human => Ok(table(&all)),
            Format::Json => output::json(&all.iter().map(|d| d.definition()).collect::<Vec<_>>()),
            Format::Yaml => {
                output::yaml_documents(&all.iter().map(|d| d.definition()).collect::<Vec<_>>())
            }
        };
    };
    let Some(def) = engine.definition(name).or_else(|| find_kind(&all, name)) else {
        let message =
            format!("no definition named '{name}' (list them with 'workload-lens definitions')");
        let mut f = Failure::new(EXIT_NO_DEFINITION, message.clone());
        if format == Some(Format::Json) {
            f.stdout = Some(output::json(&json!({
                "error": "no_definition",
                "name": name,
                "message": message,
            }))?);
        }
        return Err(f);
    };
    let d: &Definition = def.definition();
    match format.unwrap_or(Format::Yaml) {
        Format::Human => Ok(table(&[def])),
        Format::Json => output::json(d),
        Format::Yaml => output::yaml(d),
    }
}

/// A definition by kind (`JobSet`, `JobSet.jobset.x-k8s.io`,
/// `JobSet.v1alpha2.jobset.x-k8s.io`, case-insensitive) when exactly one
/// definition has it.
fn find_kind<'a>(
    all: &[&'a Arc<CompiledDefinition>],
    name: &str,
) -> Option<&'a Arc<CompiledDefinition>> {
    let wanted = name.to_ascii_lowercase();
    let matches: Vec<_> = all
        .iter()
        .filter(|d| {
            let g = d.root_gvk();
            let short = if g.group.is_empty() {
                g.kind.clone()
            } else {
                format!("{}.{}", g.kind, g.group)
            };
            [g.kind.clone(), short, kind_column(&g)]
                .iter()
                .any(|k| k.to_ascii_lowercase() == wanted)
        })
        .collect();
    match matches.as_slice() {
        [one] => Some(**one),
        _ => None,
    }
}

/// `Kind.version.group` (`Kind.version` for the core group).
pub fn kind_column(g: &Gvk) -> String {
    if g.group.is_empty() {
        format!("{}.{}", g.kind, g.version)
    } else {
        format!("{}.{}.{}", g.kind, g.version, g.group)
    }
}

/// Root then children, comma-joined, at most four then `, +N more`.
fn components_column(d: &CompiledDefinition) -> String {
    let names = d.component_names();
    let mut out = names
        .iter()
        .take(MAX_COMPONENTS)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_COMPONENTS {
        out.push_str(&format!(", +{} more", names.len() - MAX_COMPONENTS));
    }
    out
}

fn table(defs: &[&Arc<CompiledDefinition>]) -> String {
    let mut rows = vec![vec![
        "NAME".to_string(),
        "KIND".to_string(),
        "ORIGIN".to_string(),
        "COMPONENTS".to_string(),
    ]];
    for d in defs {
        rows.push(vec![
            d.name().to_string(),
            kind_column(&d.root_gvk()),
            d.origin().as_str().to_string(),
            components_column(d),
        ]);
    }
    columns(&rows, 3)
}
