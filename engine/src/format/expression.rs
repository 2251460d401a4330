//! One jq expression with the engine's semantics, outside any definition
//! (tooling: playgrounds, tests, the bindings' `evaluate`).

use crate::error::{Error, ErrorCode, Location, Result};
use crate::limits::Limits;

/// A jq expression compiled once with the engine's semantics
/// (gojq-compatible, deny list and recursion check applied), to be
/// evaluated on any number of inputs. `Send + Sync`.
#[derive(Debug)]
pub struct Expression {
    program: crate::jq::Program,
}

impl Expression {
    /// Check and compile an expression (`limits` bounds its size and nesting).
    pub fn compile(expression: &str, limits: &Limits) -> Result<Expression> {
        crate::jq::Program::compile(expression, crate::jq::ExprMode::Read, &[], limits)
            .map(|program| Expression { program })
            .map_err(|i| {
                let e = match i.kind {
                    crate::jq::JqIssueKind::Limit => {
                        Error::limit_error(i.limit.unwrap_or("maxExpressionBytes"), i.message)
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
        let _call = crate::budget::Call::enter(limits);
        let loc = || Location {
            expression: Some(self.program.code().to_string()),
            ..Location::default()
        };
        let input = crate::jq::Input::new(input, limits)
            .map_err(|e| crate::expr::eval_error(e).at(loc()))?;
        self.program
            .run(&input, limits)
            .map_err(|e| crate::expr::eval_error(e).at(loc()))
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

/// Turn the native fast path of jq evaluation off (or on again) on the
/// calling thread, returning the previous setting. Results are the same
/// either way (only speed and the budget spent differ); this exists for the
/// differential tests that prove it, such as the conformance suite run with
/// the fast path off.
#[doc(hidden)]
pub fn set_fast_path(on: bool) -> bool {
    crate::jq::set_fast_path(on)
}

/// Run `f`, and list the expressions (their text, once per run) that have
/// a fast form but whose run the fast path left to jaq during it, on this
/// thread. For the test that keeps the catalog's fixtures off jaq: such a
/// run converts the whole object for jaq and costs several times more.
#[doc(hidden)]
pub fn record_fast_path_handoffs<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    crate::jq::record_handoffs(f)
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Expression>();
};
