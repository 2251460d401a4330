//! jq evaluation: jaq with gojq-compatible semantics and bounded evaluation.
//!
//! An expression is checked statically ([`check`]), compiled once into a
//! [`Program`] (immutable, `Send + Sync`) and run any number of times on
//! [`Input`]s, each run metered by the budget in [`value`].
pub(crate) mod check;
mod eval;
pub(crate) mod fast;
pub(crate) mod format;
mod natives;
mod program;
pub(crate) mod reads;
mod regex;
mod time;
pub(crate) mod value;

pub(crate) use check::{ExprMode, JqIssue, JqIssueKind, check_expression};
pub(crate) use eval::{EvalError, Outs};
#[cfg(test)]
pub(crate) use program::{COMPILED, with_fast_path};
pub(crate) use program::{Input, Program, record_handoffs, set_fast_path};

#[cfg(test)]
mod tests;
