//! workload-lens engine: a pure, IO-free resolver of Kubernetes workloads
//! through declarative Workload Map definitions.
//!
//! ```
//! use workload_lens::DefinitionSet;
//! let set = DefinitionSet::with_catalog().unwrap();
//! let text = include_str!("../../examples/jobset.yaml");
//! let resolved = set.resolve_text(text, &Default::default()).unwrap();
//! assert_eq!(resolved.totals.resources.gpu, 12);
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod abi;
pub mod catalog;
pub mod compile;
pub mod definition;
pub mod error;
pub mod explain;
pub mod gang;
pub(crate) mod jq;
pub mod limits;
pub mod model;
pub mod patch;
pub mod pods;
pub mod quantity;
pub mod registry;
pub(crate) mod resolve;
pub mod resolved;
pub mod resources;
pub mod source;
pub mod update;
pub mod validate;

pub use compile::{CompiledDefinition, Origin};
pub use error::{Error, ErrorCode, Finding, Location, Result, Severity};
pub use explain::StatusExplanation;
pub use limits::Limits;
pub use model::{Definition, Gvk};
pub use registry::DefinitionSet;
pub use resolved::Resolved;
pub use update::{ComponentUpdate, UpdateRequest, UpdateResult};

/// JSON Schema (draft 2020-12) of the resolved structure, generated from the
/// Rust types. `docs/resolved.schema.json` is this, pretty-printed.
#[cfg(feature = "schema")]
pub fn resolved_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Resolved)).unwrap_or_default()
}

/// JSON Schema of the status explanation
/// ([`CompiledDefinition::explain_status`]).
#[cfg(feature = "schema")]
pub fn explanation_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(StatusExplanation)).unwrap_or_default()
}

/// JSON Schema of the error value every API returns.
#[cfg(feature = "schema")]
pub fn error_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Error)).unwrap_or_default()
}

/// A jq expression compiled once with the engine's semantics
/// (gojq-compatible, deny list and recursion check applied), to be
/// evaluated on any number of inputs. `Send + Sync`.
#[derive(Debug)]
pub struct Expression {
    program: jq::Program,
}

impl Expression {
    /// Check and compile an expression (`limits` bounds its size and nesting).
    pub fn compile(expression: &str, limits: &Limits) -> Result<Expression> {
        jq::Program::compile(expression, jq::ExprMode::Read, &[], limits)
            .map(|program| Expression { program })
            .map_err(|i| {
                let e = match i.kind {
                    jq::JqIssueKind::Limit => {
                        Error::limit(i.limit.unwrap_or("maxExpressionBytes"), i.message)
                    }
                    _ => Error::new(ErrorCode::JqCompile, i.message),
                };
                e.at(Location {
                    expression: Some(expression.to_string()),
                    span: i.span,
                    ..Location::default()
                })
            })
    }

    /// Every output of the expression on `input`, bounded by `limits`.
    pub fn evaluate(
        &self,
        input: &serde_json::Value,
        limits: &Limits,
    ) -> Result<Vec<serde_json::Value>> {
        let loc = || Location {
            expression: Some(self.program.code().to_string()),
            ..Location::default()
        };
        let input = jq::Input::new(input, limits).map_err(|e| compile::eval_error(e).at(loc()))?;
        self.program
            .run(&input, limits)
            .map_err(|e| compile::eval_error(e).at(loc()))
    }

    /// The source text.
    pub fn source(&self) -> &str {
        self.program.code()
    }
}

/// Evaluate one jq expression on a JSON value with the engine's semantics
/// (gojq-compatible, deny list and recursion check applied, bounded by
/// `limits`), returning every output. This is what definitions' expressions
/// run through; it is exposed for tooling (playgrounds, tests). To evaluate
/// one expression many times, compile it once with [`Expression::compile`].
pub fn evaluate(
    expression: &str,
    input: &serde_json::Value,
    limits: &Limits,
) -> Result<Vec<serde_json::Value>> {
    Expression::compile(expression, limits)?.evaluate(input, limits)
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Expression>();
};

/// The API guide (`docs/api.md`); its examples run as doctests.
#[doc = include_str!("../../docs/api.md")]
pub mod guide {}
