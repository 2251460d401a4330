//! White-box tests of the reader and the validator: they check internals
//! (loaded definitions, span indexes, single validation passes) that the
//! public API does not expose, so they live inside the crate. They name
//! the crate `workload_lens` like the integration tests in `tests/` do.

mod costs;
mod fast;
mod reads;
mod source;
mod validate;
