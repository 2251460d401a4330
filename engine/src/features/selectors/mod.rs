//! Pod attribution (`podSelector`, `podOwnership`): which component,
//! instance and replica each live pod belongs to, and the live state of
//! each role; validated, compiled and evaluated.

mod attribute;
mod compile;
mod ownership;
mod scaled;
mod validate;

pub(crate) use attribute::*;
pub(crate) use compile::*;
pub(crate) use ownership::{
    LabelSets, controller_of, controller_ref, labels_name, meta_uid, naming_labels,
};
