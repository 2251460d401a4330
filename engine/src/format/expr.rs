//! A definition's jq expressions, compiled: [`Expr`] (a program and the
//! definition field it came from, so that every error is located there),
//! and [`Ctx`], what each feature compiles its expressions with.
//!
//! Below every feature: the features' `compile` modules build their parts
//! of a compiled component from these, and `compile` builds the whole
//! definition from the features.

use crate::error::{Error, ErrorCode, Location, Result};
use crate::jq::{EvalError, ExprMode, Input, JqIssue, JqIssueKind, Program};
use crate::limits::Limits;
use crate::preview::preview;
use crate::source::SpanIndex;
use serde_json::Value;

/// One compiled expression and the definition field it came from.
#[derive(Debug)]
pub(crate) struct Expr {
    pub program: Program,
    pub field: String,
    /// `path(<expression>)`, compiled on first use by updates.
    pub paths: std::sync::OnceLock<std::result::Result<Program, JqIssue>>,
    pub mode: ExprMode,
    /// Positions of the definition's text, when it was read from text:
    /// runtime errors are located at the field too (looked up only then).
    pub spans: Option<SpanIndex>,
}

impl Expr {
    pub(crate) fn location(&self) -> Location {
        let position = self.spans.as_ref().and_then(|s| s.nearest(&self.field));
        Location {
            field: Some(self.field.clone()),
            expression: Some(self.program.code().to_string()),
            line: position.map(|p| p.0),
            column: position.map(|p| p.1),
            ..Location::default()
        }
    }

    /// The paths the expression denotes in `input` (for writing), as JSON
    /// arrays of keys and indices.
    pub(crate) fn eval_paths(&self, input: &Input, limits: &Limits) -> Result<Vec<Value>> {
        let program = self
            .paths
            .get_or_init(|| {
                let code = format!("path({})", self.program.code());
                // Length/nesting were checked on the expression itself.
                let lax = Limits {
                    max_expression_bytes: usize::MAX,
                    ..*limits
                };
                Program::compile(&code, self.mode, &[], &lax)
            })
            .as_ref()
            .map_err(|i| Error::new(ErrorCode::JqCompile, i.message.clone()).at(self.location()))?;
        program.run(input, limits).map_err(|e| match e {
            EvalError::Runtime(m) => Error::new(
                ErrorCode::Update,
                format!("the expression is not an assignable path: {m}"),
            )
            .at(self.location()),
            e => eval_error(e).at(self.location()),
        })
    }

    /// Run and convert outputs to JSON; errors carry the field and expression.
    pub(crate) fn eval(&self, input: &Input, limits: &Limits) -> Result<crate::jq::Outs<Value>> {
        self.program
            .run_few(input, limits)
            .map_err(|e| eval_error(e).at(self.location()))
    }

    /// [`Expr::eval`], with the outputs that are values of the input as
    /// they are borrowed, not copied (charged as their copies would be).
    pub(crate) fn eval_borrowed<'a>(
        &'a self,
        input: &Input<'a>,
        limits: &Limits,
    ) -> Result<crate::jq::Outs<std::borrow::Cow<'a, Value>>> {
        self.program
            .run_borrowed(input, limits)
            .map_err(|e| eval_error(e).at(self.location()))
    }
}

/// The error for output `index` of `expr` that is not `target`.
pub(crate) fn conversion(expr: &Expr, index: usize, target: &str, v: &Value) -> Error {
    Error::new(
        ErrorCode::Conversion,
        format!(
            "output {index} of the expression must be {target}, got {}",
            preview(v)
        ),
    )
    .at(expr.location())
}

pub(crate) fn eval_error(e: EvalError) -> Error {
    match e {
        EvalError::Runtime(m) => Error::new(ErrorCode::JqRuntime, format!("jq error: {m}")),
        EvalError::Limit { limit, message } => Error::limit_error(limit, message),
    }
}

/// What the features compile their expressions with: the effective
/// limits, and the positions of the definition's text when it was read
/// from text.
pub(crate) struct Ctx<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) spans: Option<&'a SpanIndex>,
}

impl Ctx<'_> {
    pub(crate) fn expr(&self, code: &str, field: String, mode: ExprMode) -> Result<Expr> {
        // Compiling is work of the call too: 100,000 matchers are not
        // compiled for free.
        crate::budget::compile(code).map_err(|e| {
            e.at(Location {
                field: Some(field.clone()),
                ..Location::default()
            })
        })?;
        Program::compile(code, mode, &[], self.limits)
            .map(|program| Expr {
                program,
                field: field.clone(),
                paths: std::sync::OnceLock::new(),
                mode,
                spans: self.spans.cloned(),
            })
            .map_err(|issue| self.issue_error(issue, code, field))
    }

    fn issue_error(&self, issue: JqIssue, code: &str, field: String) -> Error {
        let mut e = match issue.kind {
            JqIssueKind::Limit => {
                Error::limit_error(issue.limit.unwrap_or("maxExpressionBytes"), issue.message)
            }
            _ => Error::new(ErrorCode::JqCompile, issue.message),
        };
        let mut loc = Location {
            field: Some(field),
            expression: Some(code.to_string()),
            span: issue.span,
            ..Location::default()
        };
        if let Some(s) = self.spans {
            s.locate(&mut loc);
        }
        e = e.at(loc);
        e
    }

    pub(crate) fn opt(&self, code: Option<&String>, field: String) -> Result<Option<Expr>> {
        match code {
            Some(c) if !c.trim().is_empty() => self.expr(c, field, ExprMode::Read).map(Some),
            _ => Ok(None),
        }
    }
}
