//! Gang scheduling (`gangScheduling`): which pod group a pod belongs to,
//! and how many members must be admitted together (the reference's
//! subtree-scale rule); validated, compiled and evaluated.

mod compile;
mod groups;
mod structure;
mod validate;

pub(crate) use compile::*;
pub use groups::{GangGroup, GangReport, PodGang, SubGroupState};
pub use structure::{GangCandidate, GangStructure};
