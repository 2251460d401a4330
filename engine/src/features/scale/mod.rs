//! Replica counts (`scaleDefinition`): validated, compiled and evaluated.

mod compile;
mod eval;
mod validate;

pub(crate) use compile::*;
