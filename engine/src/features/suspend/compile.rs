//! Compiling `suspendDefinition`.

use serde_json::Value;

use crate::error::{Error, ErrorCode, Result};
use crate::expr::{Ctx, Expr};
use crate::jq::ExprMode;
use crate::model::ComponentDefinition;

/// Which way an action list goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// `suspendActions`.
    Suspend,
    /// `resumeActions`.
    Resume,
}

/// One compiled action: write `value` at every path of `path`.
#[derive(Debug)]
pub(crate) struct CompiledAction {
    pub path: Expr,
    pub value: Value,
}

/// A component's compiled suspend and resume actions.
#[derive(Debug)]
pub(crate) struct Actions {
    pub suspend: Vec<CompiledAction>,
    pub resume: Vec<CompiledAction>,
}

impl Actions {
    /// The actions of one direction.
    pub(crate) fn get(&self, direction: Direction) -> &[CompiledAction] {
        match direction {
            Direction::Suspend => &self.suspend,
            Direction::Resume => &self.resume,
        }
    }
}

/// Compile a component's `suspendDefinition` (`None` without one).
pub(crate) fn compile(
    ctx: &Ctx<'_>,
    field: &str,
    d: &ComponentDefinition,
) -> Result<Option<Actions>> {
    let Some(sd) = &d.suspend_definition else {
        return Ok(None);
    };
    let list = |key: &str, actions: &[crate::model::Action]| -> Result<Vec<CompiledAction>> {
        let mut out = Vec::with_capacity(actions.len());
        for (i, a) in actions.iter().enumerate() {
            let af = format!("{field}.suspendDefinition.{key}[{i}]");
            let value: Value = serde_json::from_str(&a.value).map_err(|e| {
                Error::new(
                    ErrorCode::Validation,
                    format!("{key}[{i}]: failed to decode value {:?}: {e}", a.value),
                )
                .at_field(format!("{af}.value"))
            })?;
            let path = ctx.expr(&a.path, format!("{af}.path"), ExprMode::Action)?;
            out.push(CompiledAction { path, value });
        }
        Ok(out)
    };
    Ok(Some(Actions {
        suspend: list("suspendActions", &sd.suspend_actions)?,
        resume: list("resumeActions", &sd.resume_actions)?,
    }))
}
