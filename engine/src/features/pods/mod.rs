//! The pod definition (`specDefinition`): pod templates, pod specs and
//! fragments; validated, compiled, read (resolve) and written (update).

mod assemble;
mod compile;
mod places;
mod read;
mod validate;
mod write;

pub(crate) use assemble::*;
pub(crate) use compile::*;
pub(crate) use read::*;
