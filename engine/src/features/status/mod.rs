//! Status (`statusDefinition`): validated, compiled, evaluated and explained.

mod compile;
mod explain;
mod validate;

pub(crate) use compile::*;
pub use explain::*;
