//! What a run gives back: why it failed ([`EvalError`]), and its outputs
//! converted to JSON within the call's budget ([`to_json_values`]).

use super::format;
use super::value::W;
use crate::Limits;
use serde_json::Value;

/// Why a run failed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EvalError {
    /// The program raised an error (including `error(...)`).
    Runtime(String),
    /// A limit was exceeded.
    Limit {
        limit: &'static str,
        message: String,
    },
}
/// Convert outputs to JSON values, drawing their sizes from the call's
/// `maxOutputBytes` (and each from the output cap of one value).
pub(crate) fn to_json_values(outs: &[W], limits: &Limits) -> Result<Vec<Value>, EvalError> {
    let _call = crate::budget::Call::enter(limits);
    outs.iter().map(|w| to_json(w, limits)).collect()
}

/// One output as JSON (see [`to_json_values`]; the caller is in a call).
pub(crate) fn to_json(w: &W, limits: &Limits) -> Result<Value, EvalError> {
    let too_large = || EvalError::Limit {
        limit: "maxOutputBytes",
        message: crate::budget::Meter::Output.message(),
    };
    let left = crate::budget::Meter::Output.left();
    let mut budget = usize::try_from(left)
        .unwrap_or(usize::MAX)
        .min(limits.max_output_bytes);
    let before = budget;
    let v = format::to_value(&w.v, &mut budget).map_err(|e| match e {
        format::ToJsonError::TooLarge => {
            crate::budget::Meter::Output.exhaust();
            too_large()
        }
        format::ToJsonError::Key(k) => {
            EvalError::Runtime(format!("object key is not a string: {k}"))
        }
    })?;
    crate::budget::Meter::Output
        .take((before - budget) as u64)
        .map_err(|_| too_large())?;
    Ok(v)
}

/// The outputs of a run: most expressions have one, held without an
/// allocation of its own.
pub(crate) type Outs<T> = smallvec::SmallVec<[T; 1]>;
