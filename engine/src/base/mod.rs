//! The foundations every other part stands on: errors with stable codes
//! and locations, the limits and the budget that bound every unit of work,
//! the definition format's types (`model`, public), Kubernetes quantities
//! and their human forms, JSON patches, value previews for messages, and
//! Kubernetes times (`time`, public).

pub(crate) mod budget;
pub(crate) mod error;
pub(crate) mod human;
pub(crate) mod limits;
pub mod model;
pub(crate) mod patch;
pub(crate) mod preview;
pub(crate) mod quantity;
pub mod time;
