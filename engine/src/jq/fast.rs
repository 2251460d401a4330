//! The native fast path: expressions of a small jq subset answered directly
//! from the borrowed `serde_json::Value`, without converting the input into
//! jaq's values or running the interpreter.
//!
//! The subset today is the plain path of object keys: `.a.b`, `."a-b"`,
//! `.["a"]`, `.metadata.labels["example.com/role"]`, each step optionally
//! with `?`. That is the shape of most pod selector keys, instance ids,
//! replica keys and template paths of the catalog, and what is evaluated
//! once per pod.
//!
//! The fast path answers only what it can answer exactly as jaq would: when
//! every step meets an object or `null`, the output is the value found (or
//! `null`). Anything else (indexing a string, an array, a number: an error
//! or, with `?`, no output) is left to jaq ([`Fast::run`] returns `None`),
//! so errors keep jaq's wording. The output is built as the jaq path builds
//! it (numbers through the same conversions), charged to the same call's
//! meters: a step per evaluation and per path step, the copy of the output
//! by [`crate::budget::copy_of`], its size to `maxOutputBytes` by the rules
//! of [`super::to_json_values`].

use super::EvalError;
use super::check::{lex, parse_term};
use super::format;
use crate::Limits;
use crate::budget::Meter;
use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::Term;
use jaq_core::path::Part;
use serde_json::Value;

/// An expression the fast path evaluates: the object keys of a plain path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fast {
    keys: Vec<String>,
}

impl Fast {
    /// The fast form of `code`, if it is in the subset. `code` has passed
    /// [`super::check_expression`].
    pub(crate) fn classify(code: &str) -> Option<Fast> {
        // Cheap refusals first: most expressions that are not plain paths
        // are seen to be so without lexing them again.
        let t = code.trim();
        if !t.starts_with('.') || t.contains(['|', '(', ',', '$']) {
            return None;
        }
        let tokens = lex(code).ok()?;
        let term = parse_term(code, &tokens).ok()?;
        let mut keys = Vec::new();
        path_keys(&term, &mut keys)?;
        Some(Fast { keys })
    }

    /// The keys of the path.
    #[cfg(test)]
    pub(crate) fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Run on `input`: `Some` with the outputs (or a limit error) when the
    /// fast path can answer exactly, `None` when jaq must.
    pub(crate) fn run(
        &self,
        input: &Value,
        limits: &Limits,
    ) -> Option<Result<Vec<Value>, EvalError>> {
        let _call = crate::budget::Call::enter(limits);
        if let Err(m) = Meter::Steps.take(1 + self.keys.len() as u64) {
            return Some(Err(limit(m)));
        }
        let mut v = input;
        for k in &self.keys {
            v = match v {
                Value::Object(m) => m.get(k).unwrap_or(&Value::Null),
                Value::Null => &Value::Null,
                _ => return None,
            };
        }
        Some(output(v, limits).map(|v| vec![v]))
    }
}

/// The keys of a plain path of object keys from `.`, appended to `keys`;
/// `None` for any other term.
fn path_keys(term: &Term<&str>, keys: &mut Vec<String>) -> Option<()> {
    let Term::Path(base, path) = term else {
        return None;
    };
    match &**base {
        Term::Id => {}
        inner @ Term::Path(..) => path_keys(inner, keys)?,
        _ => return None,
    }
    for (part, _optional) in &path.0 {
        // `?` only changes what an error does; errors are jaq's to give.
        let Part::Index(Term::Str(None, parts)) = part else {
            return None;
        };
        let mut key = String::new();
        for p in parts {
            match p {
                StrPart::Str(s) => key.push_str(s),
                StrPart::Char(c) => key.push(*c),
                StrPart::Term(_) => return None,
            }
        }
        keys.push(key);
    }
    Some(())
}

fn limit(m: Meter) -> EvalError {
    EvalError::Limit {
        limit: m.limit(),
        message: m.message(),
    }
}

/// The output `v` as the jaq path would give it: its size drawn from the
/// call's `maxOutputBytes` (and the cap of one value), its copy charged,
/// then built with numbers converted as jaq's values convert them.
fn output(v: &Value, limits: &Limits) -> Result<Value, EvalError> {
    let left = Meter::Output.left();
    let cap = usize::try_from(left)
        .unwrap_or(usize::MAX)
        .min(limits.effective().max_output_bytes);
    let Some(size) = output_size(v, cap) else {
        Meter::Output.exhaust();
        return Err(EvalError::Limit {
            limit: "maxOutputBytes",
            message: Meter::Output.message(),
        });
    };
    Meter::Output.take(size as u64).map_err(limit)?;
    crate::budget::copy_of(v).map_err(|e| match e.0.limit.as_deref() {
        Some("maxMemoryBytes") => limit(Meter::Memory),
        _ => limit(Meter::Steps),
    })?;
    Ok(normalized(v))
}

/// The bytes [`format::to_value`] spends on `v`, or `None` past `cap`
/// (counted without recursion, stopping at the cap).
fn output_size(v: &Value, cap: usize) -> Option<usize> {
    let mut size = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        size += match v {
            Value::Null => 4,
            Value::Bool(_) => 5,
            Value::Number(_) => 8,
            Value::String(s) => s.len() + 2,
            Value::Array(a) => {
                stack.extend(a.iter());
                2 + a.len()
            }
            Value::Object(o) => {
                stack.extend(o.values());
                2 + o.keys().map(|k| k.len() + 4).sum::<usize>()
            }
        };
        if size > cap {
            return None;
        }
    }
    Some(size)
}

/// A copy of `v` with its numbers as jaq's round trip gives them (`1.0` is
/// `1`, as gojq prints it). Recursion is bounded by the input's depth,
/// which [`super::Input::new`] checked against `maxDepth`.
fn normalized(v: &Value) -> Value {
    match v {
        Value::Number(n) => format::num_to_value(&format::json_num(n)),
        Value::Array(a) => Value::Array(a.iter().map(normalized).collect()),
        Value::Object(o) => {
            Value::Object(o.iter().map(|(k, x)| (k.clone(), normalized(x))).collect())
        }
        other => other.clone(),
    }
}
