//! workload-lens engine: a pure, IO-free resolver of Kubernetes workloads
//! through declarative Workload Map definitions.
//!
//! One [`Engine`] holds the limits and the definitions (the bundled catalog
//! plus the user's) and does everything: resolve, update, suspend and
//! resume, attribute pods, gang groups, explain status, validate, evaluate
//! jq. A [`CompiledDefinition`] is one definition, compiled once.
//!
//! ```
//! use workload_lens::Engine;
//! let engine = Engine::new()?;
//! let object = engine.read_object(include_str!("../../examples/jobset.yaml"))?;
//! let resolved = engine.resolve(&object)?;
//! assert_eq!(resolved.totals.resources.gpu, 12);
//! # Ok::<(), workload_lens::Error>(())
//! ```
//!
//! Every failure is an [`Error`] with a stable [`ErrorCode`] and a
//! [`Location`]; nothing panics on bad input, and every unit of work is
//! bounded by [`Limits`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

// The white-box tests in `src/tests` name the crate as its users do.
#[cfg(test)]
extern crate self as workload_lens;

// The public surface is the re-exports below, plus `abi` (the JSON-text
// interface of the language bindings) and `model` (the definition format's
// types). Every other module is private.
pub mod abi;
mod budget;
mod catalog;
mod cluster;
mod compile;
mod component;
mod definition;
mod engine;
mod error;
mod expr;
mod expression;
mod gang;
pub mod human;
pub(crate) mod jq;
mod limits;
pub mod model;
mod patch;
mod pods;
mod preview;
mod quantity;
mod resolve;
mod resolved;
mod resources;
mod scale;
mod selectors;
mod source;
mod status;
mod suspend;
mod update;
mod validate;
mod verdict;

#[cfg(test)]
mod tests;

pub use cluster::api::{
    code_of_status, collection_path, encode, list_request, object_path, resource_for, watch_request,
};
pub use cluster::protocol::{
    ClusterOp, ClusterOutcome, ClusterSession, DEFAULT_CHUNK_SIZE, DescribeQuery, Description,
    Discovery, ListQuery, Listing, MAX_LIST_PAGES, MAX_OWNER_ROUNDS, Reply, Request,
};
pub use cluster::{
    ApiResource, ClusterDefinitionWarning, ClusterWarning, ListOptions, OwnerKind, Usage, UsageRow,
    WorkloadSummary, missing_owners, usage,
};
pub use compile::CompiledDefinition;
pub use definition::Origin;
pub use engine::{CallScope, Engine, EngineBuilder};
pub use error::{Error, ErrorCode, Finding, Location, Result, Severity};
pub use expression::{Expression, evaluate};
pub use gang::{GangCandidate, GangGroup, GangReport, GangStructure, PodGang, SubGroupState};
pub use limits::{HARD_MAX_DEPTH, HARD_MAX_EXPRESSION_DEPTH, Limits};
pub use model::{Definition, Gvk};
pub use patch::PatchOp;
/// Apply a JSON patch (`add`, `remove` and `replace` operations, as in
/// [`UpdateResult::patch`]) to a document, returning the patched copy.
pub use patch::apply as apply_patch;
pub use quantity::{Quantity, QuantityError, QuantityFormat};
pub use resolved::{
    Attribution, Component, Condition, DefinitionRef, Instance, Live, PodAttribution, PodFinding,
    Resolved, Scale, Status, Totals, TreeNode, WorkloadRef, WorkloadStatus,
};
pub use resources::ResourceSummary;
pub use source::{InputObjects, InputShape, SourceDocument, SpanIndex, parse_documents, read_text};
pub use status::{
    CategoryExplanation, Check, ComponentStatusExplanation, ConditionsExplanation, Criterion,
    MatcherExplanation, Outcome, PhaseExplanation, StatusExplanation,
};
pub use update::{ComponentUpdate, UpdateMode, UpdateRequest, UpdateResult};
pub use verdict::{DefinitionVerdict, ValidationReport};

/// Turn the native fast path of jq evaluation off (or on again) on the
/// calling thread, returning the previous setting. Results are the same
/// either way (only speed and the budget spent differ); this exists for the
/// differential tests that prove it, such as the conformance suite run with
/// the fast path off.
#[doc(hidden)]
pub fn set_fast_path(on: bool) -> bool {
    jq::set_fast_path(on)
}

/// The bundled definition files: (file name, YAML text), sorted by name.
pub fn catalog_files() -> &'static [(&'static str, &'static str)] {
    catalog::FILES
}

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

/// The API guide (`docs/api.md`); its examples run as doctests.
#[doc = include_str!("../../docs/api.md")]
pub mod guide {}
