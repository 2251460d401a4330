//! workload-lens engine: a pure, IO-free resolver of Kubernetes workloads
//! through declarative Workload Map definitions.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod definition;
pub mod error;
pub(crate) mod jq;
pub mod limits;
pub mod model;
pub mod source;
pub mod validate;

pub use error::{Error, ErrorCode, Finding, Location, Result, Severity};
pub use limits::Limits;
pub use model::{Definition, Gvk};
