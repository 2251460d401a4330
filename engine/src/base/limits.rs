//! Evaluation budgets.
//!
//! Definitions and objects may be hostile. Every budget here is deterministic
//! (no clocks): the same input breaches the same limit at the same point on
//! every runtime. A breach is an [`crate::Error`] with code
//! [`crate::ErrorCode::Limit`] and `limit` set to the camelCase field name.

use serde::{Deserialize, Serialize};

/// Budgets applied while reading definitions and objects and while evaluating
/// jq. `Limits::default()` is meant for untrusted input; raise individual
/// fields for trusted, very large workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Limits {
    /// Largest accepted input text (definition or object), in bytes.
    pub max_input_bytes: usize,
    /// Deepest accepted nesting of arrays/objects, in input documents and in
    /// every value built during evaluation.
    pub max_depth: usize,
    /// Largest number of nodes (scalars, arrays, objects) in one input document.
    pub max_input_nodes: usize,
    /// Most outputs one expression may produce. Producing more is an error
    /// (exactly `maxOutputs` outputs is fine).
    pub max_outputs: usize,
    /// Units of work of one whole call (resolve, update, attribute, ...),
    /// shared by every expression, document, pod and component in it: a jq
    /// value operation costs one step, a primitive that touches `n` bytes
    /// about `n / 64` more and one that touches `n` elements `n` more; the
    /// engine's own loops cost steps too.
    pub max_steps: u64,
    /// Bytes one whole call may allocate for the values it builds (strings,
    /// arrays, objects, copies, written values), added up as they are built.
    pub max_memory_bytes: usize,
    /// Longest string (in bytes) an evaluation may build.
    pub max_string_bytes: usize,
    /// Most elements of an array or entries of an object an evaluation may build.
    pub max_collection_len: usize,
    /// Bytes of compact JSON all the expressions of one whole call may
    /// produce, added up; also the largest `tojson`/`tostring` result.
    pub max_output_bytes: usize,
    /// Longest accepted jq expression, in bytes.
    pub max_expression_bytes: usize,
    /// Deepest syntactic nesting of a jq expression (brackets, parentheses,
    /// braces, string interpolation and nesting keywords).
    pub max_expression_depth: usize,
    /// Most instances one component may have.
    pub max_instances: usize,
    /// Most YAML documents in one text.
    pub max_documents: usize,
    /// Most YAML alias expansions in one text (billion-laughs guard).
    pub max_yaml_aliases: usize,
    /// Bytes one operation of the cluster protocol keeps from the server's
    /// answers, added up across requests and pages: the objects its lists
    /// and gets keep and the resources discovery finds, each counted as its
    /// size as compact JSON (what a page's own limits do not see: a list of
    /// many pages).
    pub max_cluster_bytes: usize,
}

/// The deepest nesting the engine ever accepts, whatever `maxDepth` says:
/// deeper values could exhaust a 1 MiB stack (a WASM instance's) in the
/// recursive parts of parsing, comparison, serialization and dropping.
pub const HARD_MAX_DEPTH: usize = 512;

/// The largest `maxExpressionDepth` the engine honours (its nesting and
/// operator budget, four times this, must stay within what jaq's recursive
/// parser and interpreter fit in a 1 MiB stack).
pub const HARD_MAX_EXPRESSION_DEPTH: usize = 128;

impl Limits {
    /// These limits with the stack-safety ceilings applied
    /// ([`HARD_MAX_DEPTH`], [`HARD_MAX_EXPRESSION_DEPTH`]). Every entry point
    /// of the engine applies this, so raising a limit can never crash the host.
    pub fn effective(&self) -> Limits {
        Limits {
            max_depth: self.max_depth.min(HARD_MAX_DEPTH),
            max_expression_depth: self.max_expression_depth.min(HARD_MAX_EXPRESSION_DEPTH),
            ..*self
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_input_bytes: 16 * 1024 * 1024,
            max_depth: 128,
            max_input_nodes: 1_000_000,
            max_outputs: 1000,
            max_steps: 1_000_000,
            max_memory_bytes: 64 * 1024 * 1024,
            max_string_bytes: 4 * 1024 * 1024,
            max_collection_len: 100_000,
            max_output_bytes: 16 * 1024 * 1024,
            max_expression_bytes: 16 * 1024,
            max_expression_depth: 64,
            max_instances: 10_000,
            max_documents: 1000,
            max_yaml_aliases: 1000,
            max_cluster_bytes: 256 * 1024 * 1024,
        }
    }
}
