//! gojq-compatible rendering of values, and conversion between
//! `serde_json::Value` and jq values.
//!
//! gojq (the reference's engine) prints compact JSON with object keys in
//! sorted byte order, floats in the shortest round-trip form (plain decimal
//! unless `|x| < 1e-6` or `|x| >= 1e21`, then `1e-7`/`1e+21`), integral floats
//! without a fraction, NaN as `null` and infinities as `±1.7976931348623157e+308`.

use jaq_json::{Map, Num, Rc, Val};
use serde_json::Value;

/// Render a float the way gojq does.
pub(crate) fn fmt_f64(f: f64) -> String {
    if f.is_nan() {
        return "null".into();
    }
    let f = if f.is_infinite() {
        if f > 0.0 { f64::MAX } else { -f64::MAX }
    } else {
        f
    };
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let x = f.abs();
    if !(1e-6..1e21).contains(&x) {
        // Rust: "1.5e-7" / "1e21"; gojq: "1.5e-7" / "1e+21".
        let s = format!("{f:e}");
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => {
                let e = if e.len() < 2 {
                    format!("0{e}")
                } else {
                    e.to_string()
                };
                format!("{m}e+{e}")
            }
            _ => s,
        }
    } else {
        format!("{f}")
    }
}

/// A number as f64 (big integers and decimals rounded).
pub(crate) fn num_f64(n: &Num) -> f64 {
    match n {
        Num::Int(i) => *i as f64,
        Num::Float(f) => *f,
        Num::BigInt(b) => b.to_string().parse().unwrap_or(f64::NAN),
        Num::Dec(s) => s.parse().unwrap_or(f64::NAN),
    }
}

/// Render a number the way gojq does.
pub(crate) fn fmt_num(n: &Num) -> String {
    match n {
        Num::Int(i) => i.to_string(),
        Num::BigInt(b) => b.to_string(),
        Num::Float(f) => fmt_f64(*f),
        Num::Dec(s) => dec_to_num(s),
    }
}

/// A decimal literal of the program (`1.0`, `1e1000`): gojq reads it as an
/// integer when it is one, else as float64.
fn dec_to_num(s: &str) -> String {
    if !s.contains(['.', 'e', 'E'])
        && let Ok(i) = s.parse::<i64>()
    {
        return i.to_string();
    }
    fmt_f64(s.parse::<f64>().unwrap_or(f64::NAN))
}

/// Escape a string as gojq does.
fn push_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The output grew past the allowed size.
#[derive(Debug)]
pub(crate) struct TooLarge;

pub(crate) fn bytes_str(b: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(b)
}

/// Compact JSON with sorted keys, as gojq's `tojson`, failing once the text
/// exceeds `max` bytes. Recursion is bounded by the value depth, which the
/// engine caps.
pub(crate) fn to_json_limited(v: &Val, max: usize) -> Result<String, TooLarge> {
    let mut out = String::new();
    write_json(&mut out, v, max)?;
    Ok(out)
}

fn write_json(out: &mut String, v: &Val, max: usize) -> Result<(), TooLarge> {
    match v {
        Val::Null => out.push_str("null"),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Num(n) => out.push_str(&fmt_num(n)),
        Val::TStr(b) | Val::BStr(b) => push_str(out, &bytes_str(b)),
        Val::Arr(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, x, max)?;
                if out.len() > max {
                    return Err(TooLarge);
                }
            }
            out.push(']');
        }
        Val::Obj(o) => {
            let mut entries: Vec<(&Val, &Val)> = o.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, x)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match k {
                    Val::TStr(b) | Val::BStr(b) => push_str(out, &bytes_str(b)),
                    k => push_str(out, &to_json_limited(k, max)?),
                }
                out.push(':');
                write_json(out, x, max)?;
                if out.len() > max {
                    return Err(TooLarge);
                }
            }
            out.push('}');
        }
    }
    if out.len() > max {
        return Err(TooLarge);
    }
    Ok(())
}

/// Write at most about `max` bytes of a value's JSON text into `out`
/// (the text is cut, not valid JSON).
pub(crate) fn to_json_prefix(v: &Val, max: usize, out: &mut String) -> Result<(), TooLarge> {
    write_json(out, v, max)
}

/// Why a jq value cannot become JSON.
#[derive(Debug)]
pub(crate) enum ToJsonError {
    /// Too large (serialized bytes over the limit).
    TooLarge,
    /// An object key that is not a string.
    Key(String),
}

/// Convert a jq value into JSON. Numbers follow gojq: integers stay integers
/// (big integers beyond 64 bits become floats), NaN becomes `null`, and
/// infinities become `±f64::MAX`. `budget` is the largest serialized size
/// allowed (approximate, counted per node).
pub(crate) fn to_value(v: &Val, budget: &mut usize) -> Result<Value, ToJsonError> {
    let spend = |budget: &mut usize, n: usize| -> Result<(), ToJsonError> {
        *budget = budget.checked_sub(n).ok_or(ToJsonError::TooLarge)?;
        Ok(())
    };
    Ok(match v {
        Val::Null => {
            spend(budget, 4)?;
            Value::Null
        }
        Val::Bool(b) => {
            spend(budget, 5)?;
            Value::Bool(*b)
        }
        Val::Num(n) => {
            spend(budget, 8)?;
            num_to_value(n)
        }
        Val::TStr(b) | Val::BStr(b) => {
            spend(budget, b.len() + 2)?;
            Value::String(bytes_str(b).into_owned())
        }
        Val::Arr(a) => {
            spend(budget, 2)?;
            let mut out = Vec::with_capacity(a.len());
            for x in a.iter() {
                spend(budget, 1)?;
                out.push(to_value(x, budget)?);
            }
            Value::Array(out)
        }
        Val::Obj(o) => {
            spend(budget, 2)?;
            let mut out = serde_json::Map::new();
            for (k, x) in o.iter() {
                let key = match k {
                    Val::TStr(b) | Val::BStr(b) => bytes_str(b).into_owned(),
                    k => return Err(ToJsonError::Key(k.to_string())),
                };
                spend(budget, key.len() + 4)?;
                let x = to_value(x, budget)?;
                out.insert(key, x);
            }
            Value::Object(out)
        }
    })
}

/// Convert a jq number into a JSON number (gojq conventions).
pub(crate) fn num_to_value(n: &Num) -> Value {
    let float = |f: f64| -> Value {
        if f.is_nan() {
            return Value::Null;
        }
        let f = if f.is_infinite() {
            if f > 0.0 { f64::MAX } else { -f64::MAX }
        } else {
            f
        };
        serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
    };
    match n {
        Num::Int(i) => Value::from(*i as i64),
        Num::BigInt(b) => match i64::try_from(&**b) {
            Ok(i) => Value::from(i),
            Err(_) => match u64::try_from(&**b) {
                Ok(u) => Value::from(u),
                Err(_) => float(b.to_string().parse::<f64>().unwrap_or(f64::NAN)),
            },
        },
        Num::Float(f) => {
            // Integral floats that fit exactly stay integers in JSON output, as
            // gojq prints them without fraction.
            if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
                Value::from(*f as i64)
            } else {
                float(*f)
            }
        }
        Num::Dec(s) => {
            if !s.contains(['.', 'e', 'E'])
                && let Ok(i) = s.parse::<i64>()
            {
                return Value::from(i);
            }
            let f = s.parse::<f64>().unwrap_or(f64::NAN);
            if f.is_finite() && f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
                Value::from(f as i64)
            } else {
                float(f)
            }
        }
    }
}

/// Convert JSON into a jq value with sorted object keys, returning its depth.
/// Recursion is bounded: the caller checks the input depth first.
pub(crate) fn from_value(v: &Value) -> (Val, u32) {
    match v {
        Value::Null => (Val::Null, 0),
        Value::Bool(b) => (Val::Bool(*b), 0),
        Value::Number(n) => (Val::Num(json_num(n)), 0),
        Value::String(s) => (Val::utf8_str(s.clone()), 0),
        Value::Array(a) => {
            let mut d = 0;
            let items = a
                .iter()
                .map(|x| {
                    let (x, xd) = from_value(x);
                    d = d.max(xd);
                    x
                })
                .collect();
            (Val::Arr(Rc::new(items)), d + 1)
        }
        Value::Object(o) => {
            let mut d = 0;
            // Objects keep their input's key order; jq's are sorted (the
            // conversion is charged per node, sorting included).
            let mut m = Map::default();
            for (k, x) in o {
                let (x, xd) = from_value(x);
                d = d.max(xd);
                m.insert(Val::utf8_str(k.clone()), x);
            }
            if !o.keys().is_sorted() {
                m.sort_keys();
            }
            (Val::obj(m), d + 1)
        }
    }
}

pub(crate) fn json_num(n: &serde_json::Number) -> Num {
    if let Some(i) = n.as_i64()
        && let Ok(i) = isize::try_from(i)
    {
        return Num::Int(i);
    }
    if let Some(u) = n.as_u64() {
        return Num::from_integral(u);
    }
    Num::Float(n.as_f64().unwrap_or(f64::NAN))
}

/// The depth of a JSON value, computed without recursion; stops counting at
/// `cap + 1`.
pub(crate) fn json_depth(v: &Value, cap: usize) -> usize {
    crate::budget::json_shape(v, cap).0
}

/// gojq's `tostring`: strings unchanged, everything else compact JSON.
pub(crate) fn to_jq_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => {
            let (val, _) = from_value(v);
            to_json_limited(&val, usize::MAX).unwrap_or_default()
        }
    }
}

/// Whether `v` as jq's `tostring` gives `expected` ([`to_jq_string`]
/// without building the text for a boolean, `null` or a string).
pub(crate) fn jq_string_is(v: &Value, expected: &str) -> bool {
    match v {
        Value::Bool(b) => expected == if *b { "true" } else { "false" },
        Value::Null => expected == "null",
        Value::String(s) => s == expected,
        v => to_jq_string(v) == expected,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jq_string_is_the_text_of_to_jq_string() {
        let values =
            serde_json::json!([true, false, null, "true", "", "x", 1, 1.0, 2.5, [1], {"a": 1}]);
        for v in values.as_array().unwrap() {
            for expected in [
                "true",
                "false",
                "null",
                "",
                "x",
                "1",
                "1.0",
                "2.5",
                "[1]",
                "{\"a\":1}",
            ] {
                assert_eq!(
                    jq_string_is(v, expected),
                    to_jq_string(v) == expected,
                    "{v} {expected}"
                );
            }
        }
    }

    #[test]
    fn floats_render_like_gojq() {
        for (f, s) in [
            (1e-7, "1e-7"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e20, "100000000000000000000"),
            (0.1 + 0.2, "0.30000000000000004"),
            (3.0, "3"),
            (f64::INFINITY, "1.7976931348623157e+308"),
            (0.000001, "0.000001"),
            (1e-5, "0.00001"),
            (1e17, "100000000000000000"),
            (-2.5, "-2.5"),
        ] {
            assert_eq!(fmt_f64(f), s, "{f}");
        }
        assert_eq!(fmt_f64(f64::NAN), "null");
    }

    #[test]
    fn strings_escape_like_gojq() {
        let mut s = String::new();
        push_str(&mut s, "\u{7f}\u{1}<>&é\"\\\n");
        assert_eq!(s, r#""\u007f\u0001<>&é\"\\\n""#);
    }

    #[test]
    fn depth_is_iterative() {
        let mut v = Value::Null;
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        assert_eq!(json_depth(&v, 128), 129);
        // Drop without recursion is serde_json's own business; leak-free drop
        // of a deep value is done iteratively here.
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            if let Value::Array(a) = v {
                stack.extend(a);
            }
        }
    }
}
