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

// The architecture, bottom up. The public surface is the re-exports below
// plus three modules: `model` (the definition format's types), `source`
// (reading YAML/JSON within limits, with positions) and `guide`
// (docs/api.md). Every other module is private; the groups' modules are
// also named at the root (`crate::resolve`, `crate::limits`, ...), so a
// path says what a thing is, not which folder holds it. No file imports a
// file that imports it back (engine/tests/layers.rs).

/// Errors, limits and budgets, the format's types, quantities, patches.
mod base;

/// jq: parsing, checking, a fast path for plain paths, evaluation under the
/// budget.
pub(crate) mod jq;

/// Reading YAML and JSON text within limits, with positions.
pub mod source;

/// One definition from text to compiled form: read, validated, compiled.
mod format;

/// The definition's sections (scale, status, pods, selectors, gang,
/// suspend), each validated, compiled and evaluated in its own folder.
mod features;

/// One object through a definition: resolve, totals, updates.
mod workload;

/// The engine: definitions and limits held together, every operation.
mod engine;

/// Reading a live cluster, IO-free: the protocol and its rules.
mod cluster;

pub use base::model;
pub use base::time;
use base::{budget, error, human, limits, patch, preview, quantity};
use features::{diagnose, gang, pods, scale, selectors, status, suspend};
#[cfg(feature = "schema")]
use format::schema;
use format::{catalog, compile, component, definition, expr, expression, validate, verdict};
use workload::{resolve, resolved, resources, update};

#[cfg(test)]
mod tests;

pub use catalog::files as catalog_files;
pub use cluster::api::{
    code_of_status, collection_path, encode, list_request, object_path, resource_for, watch_request,
};
pub use cluster::events::{MAX_EVENTS, WorkloadEvent};
pub use cluster::fleet::{
    FLEET_SCHEMA_VERSION, FleetRecord, FleetTables, InstanceColumns, PodColumns, WorkloadColumns,
};
pub use cluster::metrics::{GangMetrics, InstanceMetrics, PodMetrics, WorkloadMetrics};
pub use cluster::protocol::{
    ClusterDefinitions, ClusterOp, ClusterOutcome, ClusterSession, DEFAULT_CHUNK_SIZE,
    DIAGNOSIS_REASONS, DefinitionsQuery, DescribeQuery, Description, Discovery, ListQuery, Listing,
    MAX_GROUP_VERSIONS, MAX_LIST_PAGES, MAX_ORPHANS, MAX_OWNER_ROUNDS, Reply, Request,
};
pub use cluster::snapshot::{
    RecordRole, SNAPSHOT_FORMAT, SNAPSHOT_VERSION, SnapshotEnd, SnapshotHeader, SnapshotLine,
    SnapshotLines, SnapshotQuery, SnapshotReader, Unlisted, record_namespace,
};
pub use cluster::state::{LabelSelector, LiveState, LookAlike, RefreshStats, StateCounts};
pub use cluster::{
    ApiResource, ClusterDefinitionWarning, ClusterWarning, ListOptions, LivePods, OwnerKind,
    OwnerState, OwnerStateKind, Usage, UsageRow, WorkloadSummary, inactive, missing_owners, usage,
};
pub use compile::CompiledDefinition;
pub use definition::Origin;
pub use diagnose::{
    Diagnosis, DiagnosisFinding, Evidence, FindingCode, FindingSeverity, GANG_SCHEDULERS,
    GangScheduler, MAX_EVIDENCE,
};
pub use engine::{CallScope, Engine, EngineBuilder};
pub use error::{Error, ErrorCode, Finding, Location, Result, Severity};
pub use expression::{Expression, evaluate};
#[doc(hidden)]
pub use expression::{record_fast_path_handoffs, set_fast_path};
pub use gang::{GangCandidate, GangGroup, GangReport, GangStructure, PodGang, SubGroupState};
pub use human::{cpu as human_cpu, memory as human_memory};
pub use limits::{HARD_MAX_DEPTH, HARD_MAX_EXPRESSION_DEPTH, Limits};
pub use model::{Definition, Gvk};
pub use patch::PatchOp;
/// Apply a JSON patch (`add`, `remove` and `replace` operations, as in
/// [`UpdateResult::patch`]) to a document, returning the patched copy.
pub use patch::apply as apply_patch;
pub use quantity::{Quantity, QuantityError, QuantityFormat};
pub use resolved::{
    Attribution, Component, Condition, DefinitionRef, Fragments, Instance, Live, LiveScale,
    PodAttribution, PodFinding, Resolved, Scale, Status, Totals, TreeNode, WorkloadRef,
    WorkloadStatus,
};
pub use resources::{
    AMOUNT_FIELDS, AmountUnit, HumanAmounts, ResourceSummary, amount_unit, human_amounts,
};
#[cfg(feature = "schema")]
pub use schema::{diagnosis_schema, error_schema, explanation_schema, resolved_schema};
pub use source::{
    InputObjects, InputShape, ObjectsOfInputs, PodTemplatePlace, SourceDocument, SourceMap,
    SourceObject, SourcePlace, SourceQuery, SpanIndex, TemplatePart, TextPosition, TextSpan,
    parse_documents, read_text, source_map,
};
pub use status::{
    CategoryExplanation, Check, ComponentStatusExplanation, ConditionsExplanation, Criterion,
    MatcherExplanation, Outcome, PhaseExplanation, StatusExplanation,
};
pub use update::{ComponentUpdate, UpdateMode, UpdateRequest, UpdateResult};
pub use verdict::{DefinitionVerdict, ValidationReport};

/// The API guide (`docs/api.md`); its examples run as doctests.
#[doc = include_str!("../../docs/api.md")]
pub mod guide {}
