//! Suspend and resume (`suspendDefinition`): validated, compiled and applied.

mod apply;
mod compile;
mod validate;

pub(crate) use compile::*;
