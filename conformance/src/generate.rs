//! The generator syntax of the case format (`conformance/README.md`,
//! "Generated inputs"): big inputs written small. Every runner expands a
//! case with the same rules before running it (the Python and JavaScript
//! runners mirror this file).
//!
//! - `{"$generate": {"count": N, "template": T}}`, optionally with
//!   `"start": S`: an array of `N` copies of `T`, the copy `i` for each `i`
//!   from `S` (default 0) to `S + N - 1`; in every string of copy `i`
//!   (object keys included) `{i}` becomes `i` and `{i-1}` becomes `i - 1`.
//! - `{"$repeat": {"string": S, "times": N}}`: the string `S` repeated `N`
//!   times, `{i}` and `{i-1}` replaced in each copy as by `$generate` (from
//!   0).
//! - `{"$concat": [X, ...]}`: the concatenation of the items (once
//!   expanded), all strings (a string) or all arrays (an array: e.g. a few
//!   literal items and a `$generate`).
//!
//! A generator is an object whose only key is one of those names (there is
//! no escape). Generators nest; the innermost expands first, so in a
//! template `{i}` names the index of the innermost `$generate` around it.
//! One case may generate at most [`MAX_ELEMENTS`] values and [`MAX_BYTES`]
//! bytes of strings (UTF-8), charged before anything is built: `$repeat`
//! its string's bytes times `N`; `$generate` `N` times the values and the
//! string bytes (keys included) of its expanded template, as written
//! (before `{i}` is replaced); `$concat` the bytes of its result. The walk
//! is bounded at [`MAX_NESTING`] levels. A breach, or a malformed generator,
//! is an error of the runner (the case cannot run), not an outcome.

use serde_json::{Map, Value};

/// Values (scalars, arrays, objects) one case may generate.
pub const MAX_ELEMENTS: u64 = 10_000_000;
/// Bytes of strings (keys included) one case may generate.
pub const MAX_BYTES: u64 = 64 << 20;
/// Deepest nesting the expansion walks.
pub const MAX_NESTING: usize = 256;

/// What one case has generated so far.
#[derive(Debug, Default)]
pub struct Budget {
    elements: u64,
    bytes: u64,
}

impl Budget {
    fn charge(&mut self, elements: u64, bytes: u64) -> Result<(), String> {
        self.elements = self.elements.saturating_add(elements);
        self.bytes = self.bytes.saturating_add(bytes);
        if self.elements > MAX_ELEMENTS {
            return Err(format!(
                "generators: more than {MAX_ELEMENTS} generated values in one case"
            ));
        }
        if self.bytes > MAX_BYTES {
            return Err(format!(
                "generators: more than {MAX_BYTES} generated string bytes in one case"
            ));
        }
        Ok(())
    }
}

/// `v` with every generator expanded.
pub fn expand(v: &Value, budget: &mut Budget) -> Result<Value, String> {
    expand_at(v, budget, 0)
}

/// Whether `v` holds a generator (the runners skip expanding, and copying,
/// a value without one). Iterative: any depth.
pub fn has_generators(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        if directive(v).is_some() {
            return true;
        }
        match v {
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => stack.extend(o.values()),
            _ => {}
        }
    }
    false
}

fn directive(v: &Value) -> Option<(&str, &Value)> {
    match v {
        Value::Object(o) if o.len() == 1 => {
            let (k, x) = o.iter().next()?;
            matches!(k.as_str(), "$generate" | "$repeat" | "$concat").then_some((k.as_str(), x))
        }
        _ => None,
    }
}

fn count_of(o: &Map<String, Value>, key: &str, what: &str) -> Result<u64, String> {
    o.get(key)
        .and_then(Value::as_u64)
        .ok_or_else(|| format!("{what}: `{key}` must be a non-negative integer"))
}

/// The object of a generator's arguments: every key of `keys`, and
/// perhaps some of `optional`, nothing else.
fn fields<'a>(
    v: &'a Value,
    what: &str,
    keys: &[&str],
    optional: &[&str],
) -> Result<&'a Map<String, Value>, String> {
    match v {
        Value::Object(o)
            if keys.iter().all(|k| o.contains_key(*k))
                && o.keys()
                    .all(|k| keys.contains(&k.as_str()) || optional.contains(&k.as_str())) =>
        {
            Ok(o)
        }
        _ => Err(format!(
            "{what} takes {keys:?} (and optionally {optional:?})"
        )),
    }
}

fn expand_at(v: &Value, budget: &mut Budget, depth: usize) -> Result<Value, String> {
    if depth > MAX_NESTING {
        return Err(format!(
            "generators: a case value nested deeper than {MAX_NESTING} levels"
        ));
    }
    if let Some((name, arg)) = directive(v) {
        return match name {
            "$repeat" => {
                let o = fields(arg, "$repeat", &["string", "times"], &[])?;
                let s = o["string"]
                    .as_str()
                    .ok_or("$repeat: `string` must be a string")?;
                let times = count_of(o, "times", "$repeat")?;
                budget.charge(1, (s.len() as u64).saturating_mul(times))?;
                if s.is_empty() {
                    return Ok(Value::String(String::new()));
                }
                if !s.contains("{i") {
                    return Ok(Value::String(s.repeat(times as usize)));
                }
                let mut out = String::new();
                for i in 0..times as i64 {
                    out.push_str(&replace_index(s, i));
                }
                Ok(Value::String(out))
            }
            "$concat" => {
                let items = arg.as_array().ok_or("$concat takes an array")?;
                let items = items
                    .iter()
                    .map(|x| expand_at(x, budget, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                if items.iter().all(Value::is_array) && !items.is_empty() {
                    budget.charge(1, 0)?;
                    return Ok(Value::Array(
                        items
                            .into_iter()
                            .flat_map(|a| match a {
                                Value::Array(a) => a,
                                _ => Vec::new(),
                            })
                            .collect(),
                    ));
                }
                let mut out = String::new();
                for item in &items {
                    match item {
                        Value::String(s) => out.push_str(s),
                        _ => {
                            return Err(
                                "$concat: the items must be all strings or all arrays".into()
                            );
                        }
                    }
                }
                budget.charge(1, out.len() as u64)?;
                Ok(Value::String(out))
            }
            _ => {
                let o = fields(arg, "$generate", &["count", "template"], &["start"])?;
                let count = count_of(o, "count", "$generate")?;
                let start = match o.get("start") {
                    Some(_) => count_of(o, "start", "$generate")?.min(1 << 53) as i64,
                    None => 0,
                };
                let template = expand_at(&o["template"], budget, depth + 1)?;
                let (nodes, bytes) = size(&template);
                budget.charge(
                    count.saturating_mul(nodes).saturating_add(1),
                    count.saturating_mul(bytes),
                )?;
                Ok(Value::Array(
                    (0..count as i64)
                        .map(|i| substitute(&template, start + i))
                        .collect(),
                ))
            }
        };
    }
    Ok(match v {
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|x| expand_at(x, budget, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(o) => {
            let mut m = Map::new();
            for (k, x) in o {
                m.insert(k.clone(), expand_at(x, budget, depth + 1)?);
            }
            Value::Object(m)
        }
        v => v.clone(),
    })
}

/// Values and string bytes (keys included) of an expanded value.
fn size(v: &Value) -> (u64, u64) {
    match v {
        Value::String(s) => (1, s.len() as u64),
        Value::Array(a) => a
            .iter()
            .map(size)
            .fold((1, 0), |(n, b), (x, y)| (n + x, b + y)),
        Value::Object(o) => o.iter().fold((1, 0), |(n, b), (k, x)| {
            let (x, y) = size(x);
            (n + x, b + y + k.len() as u64)
        }),
        _ => (1, 0),
    }
}

fn replace_index(s: &str, i: i64) -> String {
    if !s.contains("{i") {
        return s.to_string();
    }
    s.replace("{i-1}", &(i - 1).to_string())
        .replace("{i}", &i.to_string())
}

/// Copy `i` of a template (already expanded, so no deeper than the case).
fn substitute(v: &Value, i: i64) -> Value {
    match v {
        Value::String(s) => Value::String(replace_index(s, i)),
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute(x, i)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| (replace_index(k, i), substitute(x, i)))
                .collect(),
        ),
        v => v.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ex(v: Value) -> Result<Value, String> {
        expand(&v, &mut Budget::default())
    }

    #[test]
    fn generate_substitutes_the_index() {
        let v = json!({"pods": {"$generate": {"count": 3, "template": {"name": "p{i}", "after": "p{i-1}", "n": 1, "{i}": ["x{i}"]}}}});
        assert_eq!(
            ex(v).unwrap(),
            json!({"pods": [
                {"name": "p0", "after": "p-1", "n": 1, "0": ["x0"]},
                {"name": "p1", "after": "p0", "n": 1, "1": ["x1"]},
                {"name": "p2", "after": "p1", "n": 1, "2": ["x2"]},
            ]})
        );
    }

    #[test]
    fn repeat_concat_and_nesting() {
        let v = json!({"$concat": ["<", {"$repeat": {"string": "ab", "times": 3}}, ">"]});
        assert_eq!(ex(v).unwrap(), json!("<ababab>"));
        let v = json!({"$concat": [["a"], {"$generate": {"count": 2, "template": "{i}"}}, []]});
        assert_eq!(ex(v).unwrap(), json!(["a", "0", "1"]));
        assert_eq!(ex(json!({"$concat": []})).unwrap(), json!(""));
        let v = json!({"$generate": {"count": 2, "template": {"$generate": {"count": 2, "template": "{i}"}}}});
        assert_eq!(ex(v).unwrap(), json!([["0", "1"], ["0", "1"]]));
        let v = json!({"$generate": {"count": 2, "template": {"$repeat": {"string": "{i}", "times": 2}}}});
        assert_eq!(ex(v).unwrap(), json!(["01", "01"]));
        let v = json!({"$generate": {"count": 2, "template": {"$concat": [{"$repeat": {"string": "x", "times": 2}}, "{i}"]}}});
        assert_eq!(ex(v).unwrap(), json!(["xx0", "xx1"]));
        let v = json!({"$generate": {"count": 2, "start": 9, "template": "{i-1}:{i}"}});
        assert_eq!(ex(v).unwrap(), json!(["8:9", "9:10"]));
        // Not a generator: another key beside it.
        let v = json!({"$generate": 1, "x": 2});
        assert_eq!(ex(v.clone()).unwrap(), v);
    }

    #[test]
    fn absurd_sizes_are_refused_before_building() {
        let e = ex(json!({"$generate": {"count": 1u64 << 60, "template": 1}})).unwrap_err();
        assert!(e.contains("values"), "{e}");
        let e = ex(json!({"$repeat": {"string": "x", "times": 1u64 << 40}})).unwrap_err();
        assert!(e.contains("bytes"), "{e}");
        let e = ex(json!({"$generate": {"count": 1000, "template": {"$repeat": {"string": "x", "times": 1 << 20}}}}))
            .unwrap_err();
        assert!(e.contains("bytes"), "{e}");
        assert!(ex(json!({"$generate": {"count": -1, "template": 1}})).is_err());
        assert!(ex(json!({"$generate": {"count": 1}})).is_err());
        assert!(ex(json!({"$generate": {"count": 1, "template": 1, "x": 1}})).is_err());
        assert!(ex(json!({"$concat": ["a", 1]})).is_err());
        assert!(ex(json!({"$concat": ["a", ["b"]]})).is_err());
        let mut deep = json!(1);
        for _ in 0..300 {
            deep = json!([deep]);
        }
        assert!(ex(deep).is_err());
    }
}
