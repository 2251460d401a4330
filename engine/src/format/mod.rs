//! One workload definition, from its text to the compiled form: the
//! definition read and its sections found (`definition`), validated
//! (`validate`, with the stable finding codes), its jq expressions compiled
//! in their context (`expr`, and `expression` for jq outside a definition),
//! the features' compiled parts assembled (`compile`, `component`), the
//! bundled catalog, the validation verdict, and the JSON schemas.

pub(crate) mod catalog;
pub(crate) mod compile;
pub(crate) mod component;
pub(crate) mod definition;
pub(crate) mod expr;
pub(crate) mod expression;
#[cfg(feature = "schema")]
pub(crate) mod schema;
pub(crate) mod validate;
pub(crate) mod verdict;
