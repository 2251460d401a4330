//! The validation report: one verdict per definition of a text, the same
//! in the CLI's `validate`, every binding and the playground.

use serde::Serialize;
use serde_json::Value;

use crate::compile::CompiledDefinition;
use crate::definition::Origin;
use crate::definition::load_item;
use crate::error::{ErrorCode, Finding, Location, Result, Severity};
use crate::limits::Limits;
use crate::source::{self, SourceItem};
use crate::validate::{has_errors, validate_loaded};

/// The verdict on every definition of a text, in text order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ValidationReport {
    /// One verdict per definition (per list item, per document).
    pub definitions: Vec<DefinitionVerdict>,
}

impl ValidationReport {
    /// No verdict has an error finding.
    pub fn valid(&self) -> bool {
        self.definitions.iter().all(|d| d.valid)
    }
}

/// The verdict on one definition.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DefinitionVerdict {
    /// `metadata.name`, or a placeholder naming the document when it has
    /// none (`(unnamed definition in document 2)`).
    pub name: String,
    /// No error findings: the definition compiles.
    pub valid: bool,
    /// The root GVK, e.g. `jobset.x-k8s.io/v1alpha2, Kind=JobSet`, when the
    /// definition could be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gvk: Option<String>,
    /// Every finding, errors and warnings, in text order.
    pub findings: Vec<Finding>,
}

fn placeholder(document: Option<usize>) -> String {
    match document {
        Some(d) => format!("(unnamed definition in document {d})"),
        None => "(unnamed definition)".to_string(),
    }
}

/// Validate every definition of a text. Malformed YAML/JSON fails the whole
/// text (an error); a document that cannot be read as a definition, or a
/// malformed list, is one invalid verdict and the others are still checked.
/// A limit breached while checking fails the whole call. A text without any
/// definition is a [`ErrorCode::Validation`] error.
pub(crate) fn validate_text(text: &str, limits: &Limits) -> Result<ValidationReport> {
    let _call = crate::budget::Call::enter(limits);
    // One document at a time: a text whose first documents use up the
    // call's budget is not read any further.
    let mut definitions = Vec::new();
    let mut items = Vec::new();
    for doc in source::document_stream(text, &limits.effective())? {
        let (doc, several) = doc?;
        source::split_into(doc, several, &mut items);
        for split in items.drain(..) {
            match split {
                Ok(item) => definitions.push(verdict(item, limits)?),
                Err(m) => definitions.push(unreadable(placeholder(m.document), &m.error)),
            }
        }
    }
    if definitions.is_empty() {
        return Err(crate::Error::new(
            ErrorCode::Validation,
            "no definition found in the input",
        ));
    }
    Ok(ValidationReport { definitions })
}

/// The verdict on a definition that could not be read: its reading error
/// as the one finding.
fn unreadable(name: String, e: &crate::Error) -> DefinitionVerdict {
    DefinitionVerdict {
        name,
        valid: false,
        gvk: None,
        findings: vec![Finding {
            code: e.code().as_str().to_string(),
            severity: Severity::Error,
            message: e.message().to_string(),
            location: e.location().clone(),
        }],
    }
}

fn verdict(item: SourceItem, limits: &Limits) -> Result<DefinitionVerdict> {
    let name = item
        .value
        .get("metadata")
        .and_then(|m| m.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| placeholder(item.document));
    let document = item.document;
    let loaded = match load_item(item, limits) {
        Ok(l) => l,
        Err(e) if e.code() == ErrorCode::Limit => return Err(e),
        Err(e) => return Ok(unreadable(name, &e)),
    };
    let mut findings = validate_loaded(&loaded, limits);
    if let Some(m) = crate::budget::breached() {
        return Err(crate::Error::from(m).context(&name));
    }
    if !has_errors(&findings) {
        // The validator checks every expression; compiling is the final
        // word on whether the definition is usable.
        if let Err(e) =
            CompiledDefinition::compile_with(loaded.definition.clone(), *limits, Origin::User)
        {
            if e.code() == ErrorCode::Limit {
                return Err(e.context(&name));
            }
            let mut location = Location {
                expression: None,
                ..e.location().clone()
            };
            loaded.spans.locate(&mut location);
            location.document = location.document.or(document);
            findings.push(Finding {
                code: e.code().as_str().to_string(),
                severity: Severity::Error,
                message: e.message().to_string(),
                location,
            });
        }
    }
    let gvk = loaded.definition.root_gvk().map(ToString::to_string);
    Ok(DefinitionVerdict {
        name,
        valid: !has_errors(&findings),
        gvk,
        findings,
    })
}
