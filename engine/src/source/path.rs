//! Field paths: one spelling (`a.b[0]["app.kubernetes.io/name"]`), one
//! parser.

use serde_json::Value;

/// One step of a value path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Segment {
    Key(Box<str>),
    Index(usize),
}

pub(super) fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `path` extended by a mapping key: `a.b` for identifier keys, otherwise
/// `a["app.kubernetes.io/name"]` (the key as a JSON string). The empty path is
/// the root: `path_push_key("", "spec")` is `spec`.
pub(crate) fn path_push_key(path: &str, key: &str) -> String {
    let mut out = path.to_string();
    push_key_step(&mut out, key);
    out
}

/// `path` extended by a sequence index: `a[3]`.
pub(crate) fn path_push_index(path: &str, i: usize) -> String {
    let mut out = path.to_string();
    push_index_step(&mut out, i);
    out
}

/// Append a mapping key to the path `out` in place, in the spelling of
/// [`path_push_key`]: building a path step by step this way is linear in its
/// length (`path_push_key` copies the whole prefix at every step).
pub(crate) fn push_key_step(out: &mut String, key: &str) {
    if is_identifier(key) {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(key);
    } else {
        out.push('[');
        out.push_str(&Value::String(key.to_string()).to_string());
        out.push(']');
    }
}

/// Append a sequence index to the path `out` in place: `[3]`.
pub(crate) fn push_index_step(out: &mut String, i: usize) {
    use std::fmt::Write as _;
    let _ = write!(out, "[{i}]");
}

/// Append one step to the path `out` in place.
pub(crate) fn push_step(out: &mut String, step: &Segment) {
    match step {
        Segment::Key(k) => push_key_step(out, k),
        Segment::Index(i) => push_index_step(out, *i),
    }
}

/// Split a path into steps. The flag is false when the path does not parse
/// completely (the steps then hold the prefix that did).
pub(crate) fn parse_path(path: &str) -> (Vec<Segment>, bool) {
    let bytes = path.as_bytes();
    let mut segments = Vec::new();
    let mut i = 0usize;
    let mut expect_name = true; // at the start or after '.'
    while i < bytes.len() {
        match bytes.get(i) {
            Some(b'[') => {
                match bytes.get(i + 1) {
                    Some(b'"') => {
                        // A JSON string up to the matching quote.
                        let mut j = i + 2;
                        let mut end = None;
                        while let Some(&b) = bytes.get(j) {
                            match b {
                                b'\\' => j += 2,
                                b'"' => {
                                    end = Some(j);
                                    break;
                                }
                                _ => j += 1,
                            }
                        }
                        let Some(end) = end else {
                            return (segments, false);
                        };
                        let Some(quoted) = path.get(i + 1..=end) else {
                            return (segments, false);
                        };
                        let Ok(key) = serde_json::from_str::<String>(quoted) else {
                            return (segments, false);
                        };
                        if bytes.get(end + 1) != Some(&b']') {
                            return (segments, false);
                        }
                        segments.push(Segment::Key(key.into_boxed_str()));
                        i = end + 2;
                    }
                    _ => {
                        let start = i + 1;
                        let mut j = start;
                        while bytes.get(j).is_some_and(u8::is_ascii_digit) {
                            j += 1;
                        }
                        if j == start || bytes.get(j) != Some(&b']') {
                            return (segments, false);
                        }
                        let Some(Ok(index)) = path.get(start..j).map(str::parse::<usize>) else {
                            return (segments, false);
                        };
                        segments.push(Segment::Index(index));
                        i = j + 1;
                    }
                }
                expect_name = false;
            }
            Some(b'.') => {
                if expect_name {
                    return (segments, false);
                }
                expect_name = true;
                i += 1;
            }
            Some(_) => {
                if !expect_name {
                    return (segments, false);
                }
                let start = i;
                while bytes.get(i).is_some_and(|&b| b != b'.' && b != b'[') {
                    i += 1;
                }
                let Some(name) = path.get(start..i) else {
                    return (segments, false);
                };
                segments.push(Segment::Key(name.into()));
                expect_name = false;
            }
            None => break,
        }
    }
    let complete = !expect_name || (segments.is_empty() && path.is_empty());
    (segments, complete)
}

/// A path to a value inside a document: the keys and indices from its root,
/// written in the one spelling of [`path_push_key`] and [`path_push_index`]
/// (`spec.containers[0].resources.requests["nvidia.com/gpu"]`), which is also
/// a jq path when prefixed with `.`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) struct FieldPath(Vec<Segment>);

impl FieldPath {
    /// Read a path written in the spelling above; `None` when it is not one.
    pub(crate) fn parse(path: &str) -> Option<FieldPath> {
        match parse_path(path) {
            (segments, true) => Some(FieldPath(segments)),
            _ => None,
        }
    }

    /// The steps, from the root.
    pub(crate) fn segments(&self) -> &[Segment] {
        &self.0
    }
}

impl std::fmt::Display for FieldPath {
    /// Linear in the length of the path: every step is appended once.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = String::new();
        for s in &self.0 {
            push_step(&mut out, s);
        }
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_round_trip() {
        let p = path_push_key("", "metadata");
        let p = path_push_key(&p, "labels");
        let p = path_push_key(&p, "app.kubernetes.io/name");
        assert_eq!(p, r#"metadata.labels["app.kubernetes.io/name"]"#);
        let (segs, ok) = parse_path(&p);
        assert!(ok);
        assert_eq!(segs.len(), 3);
        let q = path_push_index(&path_push_key("", "a"), 3);
        assert_eq!(q, "a[3]");
        assert_eq!(parse_path("a[3].b").0.len(), 3);
        assert!(!parse_path("a..b").1);
        assert!(!parse_path("a[").1);
        assert!(!parse_path("a[\"x").1);
        assert!(parse_path("").1);
        assert_eq!(path_push_key("", ""), "[\"\"]");
        assert!(parse_path("[\"\"]").1);
    }
}
