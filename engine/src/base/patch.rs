//! RFC 6902 JSON Patch: the minimal-ish patch from one JSON document to
//! another, and JSON Pointer (RFC 6901) helpers.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One JSON Patch operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum PatchOp {
    /// Add a member or array element.
    Add {
        /// JSON Pointer.
        path: String,
        /// Value to add.
        value: Value,
    },
    /// Remove a member or array element.
    Remove {
        /// JSON Pointer.
        path: String,
    },
    /// Replace a value.
    Replace {
        /// JSON Pointer.
        path: String,
        /// New value.
        value: Value,
    },
}

/// The patch that turns `old` into `new`. Objects are compared member by
/// member (in key order); arrays element by element where both have one,
/// then the longer one's tail is appended or removed; other values that
/// differ are replaced. Applying the result to `old` gives `new` exactly.
///
/// Metered by the open call: the comparisons, every operation's path
/// (a long key repeated in many paths is paid for each time) and every
/// value copied into the patch. The walk itself builds no path: it keeps
/// each visited member as a link to its parent ([`Trail`]), and a path is
/// written out only for an operation, after its length has been charged.
/// Unchanged members under long keys cost nothing but the walk.
pub(crate) fn diff(old: &Value, new: &Value) -> crate::Result<Vec<PatchOp>> {
    use crate::budget;
    let mut ops = Vec::new();
    let mut trail = Trail::default();
    // Iterative over an explicit stack: documents are depth-limited anyway,
    // but the diff never recurses on the native stack. Containers are not
    // compared whole before descending (that would compare every subtree
    // once per level): equal members give no operations as the walk goes.
    let mut stack: Vec<(usize, &Value, &Value)> = vec![(ROOT, old, new)];
    let mut walk = budget::Walk::default();
    while let Some((at, a, b)) = stack.pop() {
        walk.node()?;
        match (a, b) {
            (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_)) => {}
            (Value::String(x), Value::String(y)) => {
                budget::steps(budget::byte_steps(x.len().min(y.len())))?;
                if x == y {
                    continue;
                }
            }
            _ => {
                if a == b {
                    continue;
                }
            }
        }
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                // Members in key order, whatever order the objects keep
                // theirs in: the patch does not depend on how the input
                // was written (or which runtime built it).
                let mut local = Vec::new();
                for (k, va) in by_key(x)? {
                    let p = trail.push(at, Token::Key(k));
                    match y.get(k) {
                        None => ops.push(PatchOp::Remove {
                            path: trail.path(p)?,
                        }),
                        Some(vb) => local.push((p, va, vb)),
                    }
                }
                for (k, vb) in by_key(y)? {
                    if !x.contains_key(k) {
                        let p = trail.push(at, Token::Key(k));
                        ops.push(add(trail.path(p)?, vb)?);
                    }
                }
                // Push in reverse so that members are visited in key order.
                stack.extend(local.into_iter().rev());
            }
            (Value::Array(x), Value::Array(y)) => {
                // Element by element where both have one, then the tail:
                // appended in order, or removed from the end so that the
                // indices stay valid (an item merged by name changes
                // only what changed in it).
                let n = x.len().min(y.len());
                for (i, v) in y.iter().enumerate().skip(n) {
                    let p = trail.push(at, Token::Index(i));
                    ops.push(add(trail.path(p)?, v)?);
                }
                for i in (n..x.len()).rev() {
                    let p = trail.push(at, Token::Index(i));
                    ops.push(PatchOp::Remove {
                        path: trail.path(p)?,
                    });
                }
                let start = stack.len();
                for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                    stack.push((trail.push(at, Token::Index(i)), va, vb));
                }
                stack[start..].reverse();
            }
            _ => {
                let path = trail.path(at)?;
                budget::copy_of(b)?;
                ops.push(PatchOp::Replace {
                    path,
                    value: b.clone(),
                })
            }
        }
    }
    Ok(ops)
}

/// An `add` of a copy of `v` at `path`, the copy charged before it is made.
fn add(path: String, v: &Value) -> crate::Result<PatchOp> {
    crate::budget::copy_of(v)?;
    Ok(PatchOp::Add {
        path,
        value: v.clone(),
    })
}

/// The parent of the document's root in a [`Trail`].
const ROOT: usize = usize::MAX;

/// One reference token of a path: a member's key or an element's index.
#[derive(Clone, Copy)]
enum Token<'a> {
    Key(&'a str),
    Index(usize),
}

/// The members and elements the diff has visited, each a link to its
/// parent: a path costs one entry of a few words however long its keys are,
/// and is written out only when an operation needs it. The entries are as
/// many as the pairs the walk visits, which the walk's budget meters.
#[derive(Default)]
struct Trail<'a> {
    links: Vec<(usize, Token<'a>)>,
}

impl<'a> Trail<'a> {
    fn push(&mut self, parent: usize, token: Token<'a>) -> usize {
        self.links.push((parent, token));
        self.links.len() - 1
    }

    /// The JSON Pointer of entry `at`, its length charged to the call's
    /// memory and steps before it is built.
    fn path(&self, at: usize) -> crate::Result<String> {
        use crate::budget;
        let mut tokens = Vec::new();
        let mut len = 0;
        let mut i = at;
        while i != ROOT {
            let (parent, t) = self.links[i];
            len += 1 + match t {
                Token::Key(k) => k.len() + k.matches(['~', '/']).count(),
                Token::Index(n) => decimal_len(n),
            };
            tokens.push(t);
            i = parent;
        }
        budget::steps(1 + budget::byte_steps(len))?;
        budget::memory(len + budget::SLOT_BYTES)?;
        let mut path = String::with_capacity(len);
        for t in tokens.iter().rev() {
            path.push('/');
            match t {
                Token::Key(k) => {
                    for c in k.chars() {
                        match c {
                            '~' => path.push_str("~0"),
                            '/' => path.push_str("~1"),
                            c => path.push(c),
                        }
                    }
                }
                Token::Index(n) => {
                    use std::fmt::Write;
                    let _ = write!(path, "{n}");
                }
            }
        }
        Ok(path)
    }
}

fn decimal_len(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The members of an object by key ([`crate::budget::members_by_key`]).
fn by_key(o: &serde_json::Map<String, Value>) -> crate::Result<Vec<(&String, &Value)>> {
    crate::budget::members_by_key(o).map_err(crate::Error::from)
}

/// Apply a patch (as produced by [`diff`], or any patch of `add`, `remove`
/// and `replace` operations) to a document.
pub fn apply(doc: &Value, ops: &[PatchOp]) -> Result<Value, String> {
    let mut doc = doc.clone();
    for op in ops {
        match op {
            PatchOp::Replace { path, value } if path.is_empty() => doc = value.clone(),
            PatchOp::Add { path, value } if path.is_empty() => doc = value.clone(),
            PatchOp::Add { path, value } | PatchOp::Replace { path, value } => {
                let (parent, last) = split(path)?;
                let target = doc
                    .pointer_mut(&parent)
                    .ok_or_else(|| format!("no such path: {parent}"))?;
                match target {
                    Value::Object(o) => {
                        o.insert(last, value.clone());
                    }
                    Value::Array(a) => {
                        let replace = matches!(op, PatchOp::Replace { .. });
                        if last == "-" && !replace {
                            a.push(value.clone());
                        } else {
                            let i: usize =
                                last.parse().map_err(|_| format!("bad index in {path}"))?;
                            if replace && i < a.len() {
                                a[i] = value.clone();
                            } else if !replace && i <= a.len() {
                                a.insert(i, value.clone());
                            } else {
                                return Err(format!("index out of range: {path}"));
                            }
                        }
                    }
                    _ => return Err(format!("cannot add into a scalar at {path}")),
                }
            }
            PatchOp::Remove { path } => {
                let (parent, last) = split(path)?;
                let target = doc
                    .pointer_mut(&parent)
                    .ok_or_else(|| format!("no such path: {parent}"))?;
                match target {
                    Value::Object(o) => {
                        // Keeps the other members' order.
                        o.shift_remove(&last)
                            .ok_or_else(|| format!("no such member: {path}"))?;
                    }
                    Value::Array(a) => {
                        let i: usize = last.parse().map_err(|_| format!("bad index in {path}"))?;
                        if i >= a.len() {
                            return Err(format!("index out of range: {path}"));
                        }
                        a.remove(i);
                    }
                    _ => return Err(format!("cannot remove from a scalar at {path}")),
                }
            }
        }
    }
    Ok(doc)
}

fn split(path: &str) -> Result<(String, String), String> {
    let i = path
        .rfind('/')
        .ok_or_else(|| format!("invalid JSON pointer: {path}"))?;
    let last = path[i + 1..].replace("~1", "/").replace("~0", "~");
    Ok((path[..i].to_string(), last))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diff_round_trips() {
        let cases = [
            (
                json!({"a": 1, "b": [1, 2]}),
                json!({"a": 2, "b": [1, 2, 3], "c/d~": null}),
            ),
            (json!([1, 2, 3]), json!([1])),
            (json!([1, 2, 3]), json!([3, 2])),
            (json!({"x": {"y": {"z": 1}}}), json!({"x": {"y": {}}})),
            (json!(1), json!("s")),
        ];
        for (a, b) in cases {
            let ops = diff(&a, &b).unwrap();
            assert_eq!(apply(&a, &ops).unwrap(), b, "{ops:?}");
        }
        assert!(diff(&json!({"a": 1}), &json!({"a": 1})).unwrap().is_empty());
    }

    #[test]
    fn pointers_are_escaped() {
        let ops = diff(&json!({}), &json!({"a/b": 1, "c~d": 2, "~1/": 3})).unwrap();
        let paths: Vec<_> = ops
            .iter()
            .map(|o| match o {
                PatchOp::Add { path, .. } => path.clone(),
                _ => String::new(),
            })
            .collect();
        assert_eq!(paths, ["/a~1b", "/c~0d", "/~01~1"]);
    }

    fn json() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (0..4i64).prop_map(Value::from),
            "[a~/]{0,2}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
                prop::collection::btree_map("[a~/1]{0,3}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest::proptest! {
        /// The patch, with paths written only for operations (keys with
        /// `~` and `/` escaped), turns any document into any other.
        #[test]
        fn diff_then_apply_gives_the_new_document(a in json(), b in json()) {
            let ops = diff(&a, &b).unwrap();
            proptest::prop_assert_eq!(apply(&a, &ops).unwrap(), b);
            proptest::prop_assert!(diff(&a, &a).unwrap().is_empty());
        }
    }
}
