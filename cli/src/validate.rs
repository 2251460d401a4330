//! `workload-lens validate`: check definition files with the engine's
//! validation (`Engine::validate`) and print its verdicts.

use workload_lens::{DefinitionVerdict, Engine, Limits, ValidationReport};

use crate::failure::{EXIT_INVALID_DEFINITION, EXIT_OK, Failure, finding_line, report};
use crate::input::{InputPath, check_single_stdin, read_text};
use crate::output::{self, Format, escape};

/// Run `validate`; returns stdout text and the exit code.
pub fn run(files: &[InputPath], format: Format, limits: &Limits) -> Result<(String, u8), Failure> {
    check_single_stdin(files)?;
    // Validation needs no catalog.
    let engine = Engine::builder()
        .limits(*limits)
        .catalog(false)
        .build()
        .map_err(|e| Failure::engine(&e))?;
    // One command, one budget: every file and document shares it
    // (docs/reliability.md, whole-call budgets).
    let _call = engine.call();
    let mut all = ValidationReport {
        definitions: Vec::new(),
    };
    let mut failed: Option<u8> = None;
    for file in files {
        match validate_file(&engine, file) {
            Ok(r) => all.definitions.extend(r.definitions),
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
        None if all.valid() => EXIT_OK,
        None => EXIT_INVALID_DEFINITION,
    };
    let text = match format {
        Format::Human => human(&all.definitions),
        Format::Json => output::json(&all)?,
        Format::Yaml => output::yaml(&all)?,
    };
    Ok((text, exit))
}

/// The verdicts on every definition of one file. Malformed YAML/JSON fails
/// the file (exit 2), a file without definitions too (exit 3).
fn validate_file(engine: &Engine, file: &InputPath) -> Result<ValidationReport, Failure> {
    let name = file.display();
    let text = read_text(file, engine.limits())?;
    engine
        .validate(&text)
        .map_err(|e| Failure::engine(&e).context(&name))
}

/// The verdicts for people; names and findings come from the definitions,
/// so every line is escaped.
fn human(verdicts: &[DefinitionVerdict]) -> String {
    let mut out = String::new();
    for v in verdicts {
        let mut line = if v.valid {
            format!("OK: {} is a valid definition", v.name)
        } else {
            format!("INVALID: {}", v.name)
        };
        if let Some(gvk) = v.gvk.as_ref().filter(|_| v.valid) {
            line.push_str(&format!(" (GVK: {gvk})"));
        }
        out.push_str(&escape(&line));
        out.push('\n');
        for f in &v.findings {
            out.push_str(&escape(&finding_line(f)));
            out.push('\n');
        }
    }
    out
}
