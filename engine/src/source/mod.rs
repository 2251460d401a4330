//! Source text to JSON values, with source locations.
//!
//! [`parse_documents`] turns YAML or JSON text into one [`SourceDocument`] per
//! non-empty document: a [`serde_json::Value`] plus a [`SpanIndex`] that maps
//! value paths (`spec.structureDefinition.childComponents[1].name`,
//! `metadata.labels["app.kubernetes.io/name"]`) to 1-based line/column
//! positions in the text.
//!
//! # Conversion rules
//!
//! - YAML is read with the YAML 1.2 core schema: `null`/`~`/empty are null,
//!   `true`/`false` (and their `True`/`TRUE` spellings) are booleans, decimal,
//!   `0o` octal and `0x` hexadecimal plain scalars are integers, and the 1.2
//!   float syntax gives floats. Everything else (including `yes`/`no`, `1_000`)
//!   is a string. Quoted and block scalars are always strings. Explicit core
//!   tags (`!!str`, `!!int`, `!!float`, `!!bool`, `!!null`) are honoured; other
//!   tags on scalars (`!!binary`, `!!timestamp`, application tags) keep the text
//!   as a string; tags on collections are ignored.
//! - Numbers: an integer that fits `i64` (negative) or `u64` stays an integer;
//!   larger integers and all floats become `f64` (JSON text: `serde_json`'s own
//!   number handling, which follows the same rule). `.inf`/`.nan` (and a float
//!   literal whose value overflows `f64`) are not representable in JSON and are
//!   a [`ErrorCode::Parse`] error naming the location.
//! - Mapping keys that are not strings become their string form, as `kubectl`
//!   does: `1: x` gives the key `"1"`, `true: y` the key `"true"`, `0x1F: z` the
//!   key `"31"`. A null key and a sequence or mapping used as a key are errors.
//! - Anchors and aliases are expanded; YAML merge keys (`<<: *base`, also a
//!   sequence of aliases) are applied (explicit keys win, then earlier sources).
//! - Duplicate mapping keys (after the conversion of keys to strings) are an
//!   error, in YAML and in JSON.
//! - Empty documents and documents whose whole content is `null` are skipped,
//!   but still counted: [`SourceDocument::document`] is the index of the
//!   document in the stream, counting the skipped ones.
//!
//! # Limits
//!
//! The text is checked against [`Limits::max_input_bytes`] before anything is
//! parsed. While parsing, [`Limits::max_documents`] (every document of the
//! stream counts), [`Limits::max_depth`] (nesting of sequences/mappings,
//! including the content brought in by aliases), [`Limits::max_input_nodes`]
//! (values of one document — scalars, sequences, mappings, alias expansions
//! included; keys are not counted) and [`Limits::max_yaml_aliases`] (alias
//! expansions in the whole text, counting the aliases nested inside expanded
//! content, so a "billion laughs" text fails after a handful of events) are
//! enforced. A breach is an [`ErrorCode::Limit`] error whose `limit` is the
//! camelCase limit name. The YAML reader is the event parser serde-saphyr is
//! built on (`granit-parser`, re-exported as `serde_saphyr::granit_parser`),
//! driven by an iterative builder: no input, however deep, can exhaust the
//! stack.
//!
//! # JSON
//!
//! Text whose first non-whitespace character is `{` or `[` is read as JSON with
//! `serde_json` (positions come from a small iterative scanner). When it is
//! not valid JSON because it uses YAML syntax (an unquoted key or word, a
//! single-quoted string, a comment, more content after the first value such as
//! further `---` documents), it is read as YAML instead: `{a: 1}` is fine.
//! Otherwise the JSON error is reported (`{"a": }` is an error, not
//! `{"a": null}`).

use crate::error::{Error, ErrorCode, Location, Result};
use crate::limits::Limits;
use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{
    self, ErrorKind, Event, Parser, ScalarStyle, ScanError, Span, Tag,
};
use std::collections::HashMap;

/// One non-empty document of a text.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceDocument {
    /// The document content.
    pub value: Value,
    /// Index of the document in the text (0-based, counting skipped empty
    /// documents).
    pub document: usize,
    /// Positions of the document's values.
    pub spans: SpanIndex,
}

mod json;
pub use json::{HostRead, read_host_value};
mod objects;
pub(crate) mod path;
mod spans;
mod yaml;

#[allow(unused_imports)]
use json::*;
#[allow(unused_imports)]
use path::*;
#[allow(unused_imports)]
use spans::*;
#[allow(unused_imports)]
use yaml::*;

pub(crate) use json::check_value_limits;
pub(crate) use objects::read_input;
pub use objects::{InputObjects, InputShape};
pub(crate) use objects::{SourceItem, split_into, type_name};
pub use objects::{objects_of_value, read_objects};
pub(crate) use path::{FieldPath, Segment, path_push_index, path_push_key};
pub use spans::SpanIndex;

impl SourceDocument {
    /// A document read without positions (JSON written by a program).
    pub(crate) fn unlocated(value: Value) -> Self {
        SourceDocument {
            value,
            document: 0,
            spans: SpanIndex::new(),
        }
    }
}

/// Parse one or more YAML documents (or one JSON document) into JSON values
/// with positions. See the [module documentation](self) for the conversion
/// rules and the limits applied.
pub fn parse_documents(text: &str, limits: &Limits) -> Result<Vec<SourceDocument>> {
    document_stream(text, &limits.effective())?
        .map(|d| d.map(|(doc, _)| doc))
        .collect()
}

/// The documents of a text read one at a time, each with whether the text
/// has several (which decides whether locations name the document): the
/// same documents as [`parse_documents`], but a caller that stops early
/// (its call's budget breached by the first documents' work) does not
/// read the rest. A YAML text is read one document ahead; JSON is one
/// document. An error ends the stream.
pub(crate) struct DocumentStream<'a, 'l> {
    inner: StreamInner<'a, 'l>,
    ahead: Option<Result<SourceDocument>>,
    yielded: usize,
}

enum StreamInner<'a, 'l> {
    Read(std::vec::IntoIter<SourceDocument>),
    Yaml(Box<YamlStream<'a, 'l>>),
}

impl StreamInner<'_, '_> {
    fn next_document(&mut self) -> Option<Result<SourceDocument>> {
        match self {
            StreamInner::Read(docs) => docs.next().map(Ok),
            StreamInner::Yaml(y) => y.next_document(),
        }
    }
}

/// [`parse_documents`], one document at a time (see [`DocumentStream`]).
pub(crate) fn document_stream<'a, 'l>(
    text: &'a str,
    limits: &'l Limits,
) -> Result<DocumentStream<'a, 'l>> {
    check_input_size(text.len(), limits)?;
    let trimmed = text.trim_start();
    let inner = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        StreamInner::Read(parse_json_text(text, limits)?.into_iter())
    } else {
        StreamInner::Yaml(Box::new(YamlStream::new(text, limits)))
    };
    Ok(DocumentStream {
        inner,
        ahead: None,
        yielded: 0,
    })
}

impl Iterator for DocumentStream<'_, '_> {
    /// A document, and whether the text has more than one.
    type Item = Result<(SourceDocument, bool)>;

    fn next(&mut self) -> Option<Self::Item> {
        let current = match self.ahead.take() {
            Some(d) => d,
            None => self.inner.next_document()?,
        };
        let doc = match current {
            Ok(doc) => doc,
            Err(e) => return Some(Err(e)),
        };
        self.yielded += 1;
        if self.yielded > 1 {
            return Some(Ok((doc, true)));
        }
        // The first document: read the next one to know if there is one.
        self.ahead = self.inner.next_document();
        let several = self.ahead.is_some();
        Some(Ok((doc, several)))
    }
}

/// The value of exactly one document: none is a parse error, several a
/// usage error (the rule every "one object" input follows).
pub fn one_document(mut docs: Vec<SourceDocument>) -> Result<serde_json::Value> {
    match docs.len() {
        1 => Ok(docs.remove(0).value),
        0 => Err(crate::Error::new(
            crate::ErrorCode::Parse,
            "no document found in the input",
        )),
        n => Err(crate::Error::new(
            crate::ErrorCode::Usage,
            format!("expected one document, found {n}"),
        )),
    }
}

/// Parse text that holds exactly one object.
pub fn parse_object(text: &str, limits: &Limits) -> Result<serde_json::Value> {
    one_document(parse_documents(text, limits)?)
}

/// Read one value handed over by a program or typed by a person: the
/// reader of the language bindings, whose arguments are JSON written by the
/// host language (`JSON.stringify`, `json.dumps`) or the user's own YAML/JSON
/// text.
///
/// Fast path: the text is read with `serde_json` (rejecting duplicate keys)
/// and the value checked against [`Limits::max_depth`] and
/// [`Limits::max_input_nodes`]. When that fails (YAML, broken JSON, a
/// duplicate key, nesting deeper than serde_json's fixed 128 levels) the text
/// is read by [`parse_object`], whose errors carry the position. Either way
/// [`Limits::max_input_bytes`] applies first, and the result is the value
/// [`parse_object`] would give, except that the JSON text `null` reads as
/// `null` (a binding's encoding of "no value", e.g. a jq input) where
/// [`parse_object`] finds no document.
pub fn read_value(text: &str, limits: &Limits) -> Result<Value> {
    match read_value_fast(text, limits)? {
        Some(value) => Ok(value),
        None => parse_object(text, limits),
    }
}

/// The fast path of [`read_value`]: the value when `serde_json` reads the
/// whole text strictly (no duplicate key; nodes counted and depth checked
/// as it reads, stopping at a limit with its error), `None` when it does
/// not (the careful reader then says why, with a position).
pub(crate) fn read_value_fast(text: &str, limits: &Limits) -> Result<Option<Value>> {
    let limits = &limits.effective();
    check_input_size(text.len(), limits)?;
    match json::read_json_counted(text, limits) {
        Ok(value) => Ok(Some(value)),
        Err(json::Refused::Limit(e)) => Err(e),
        Err(json::Refused::Other) => Ok(None),
    }
}

/// Read a list of objects (pods): every object of the text by the rules of
/// [`crate::source::read_objects`] (documents, arrays, `List` objects).
pub fn read_items(text: &str, limits: &Limits) -> Result<Vec<Value>> {
    crate::source::read_objects(text, limits)
}

/// Like [`parse_documents`], for bytes: text that is not valid UTF-8 is a
/// [`ErrorCode::Parse`] error naming the byte offset (and line/column) of the
/// first invalid byte.
pub fn parse_documents_bytes(bytes: &[u8], limits: &Limits) -> Result<Vec<SourceDocument>> {
    check_input_size(bytes.len(), limits)?;
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_documents(text, limits),
        Err(e) => Err(utf8_error(bytes, &e)),
    }
}

/// The text of an input given as bytes (a file, stdin), checked the way
/// every reader of the engine checks it, before anything is parsed:
///
/// - more than [`Limits::max_input_bytes`] bytes is an [`ErrorCode::Limit`]
///   error (`limit` `maxInputBytes`). The message names the limit, not the
///   size, so a caller may stop reading after `max_input_bytes + 1` bytes
///   (a huge input then cannot exhaust its memory) and pass what it read;
/// - bytes that are not UTF-8 are an [`ErrorCode::Parse`] error naming the
///   byte offset, line and column of the first invalid byte.
///
/// ```
/// use workload_lens::{ErrorCode, Limits, read_text};
///
/// let limits = Limits::default();
/// assert_eq!(read_text(b"kind: Pod\n", &limits)?, "kind: Pod\n");
///
/// let e = read_text(b"kind: Pod\nname: \xff\n", &limits).unwrap_err();
/// assert_eq!(e.code(), ErrorCode::Parse);
/// assert_eq!((e.location().line, e.location().column), (Some(2), Some(7)));
///
/// let small = Limits { max_input_bytes: 4, ..Limits::default() };
/// let e = read_text(b"kind: Pod\n", &small).unwrap_err();
/// assert_eq!(e.limit(), Some("maxInputBytes"));
/// # Ok::<(), workload_lens::Error>(())
/// ```
pub fn read_text<'a>(bytes: &'a [u8], limits: &Limits) -> Result<&'a str> {
    let max = limits.max_input_bytes;
    if bytes.len() > max {
        return Err(Error::limit_error(
            "maxInputBytes",
            format!("input is larger than the limit maxInputBytes ({max} bytes)"),
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| utf8_error(bytes, &e))
}

/// The parse error of bytes that are not UTF-8, located at the first
/// invalid byte.
fn utf8_error(bytes: &[u8], e: &std::str::Utf8Error) -> Error {
    let offset = e.valid_up_to();
    let prefix = bytes
        .get(..offset)
        .and_then(|b| std::str::from_utf8(b).ok())
        .unwrap_or("");
    let (line, column) = end_position(prefix);
    Error::new(
        ErrorCode::Parse,
        format!("input is not valid UTF-8: invalid byte at offset {offset}"),
    )
    .at(Location {
        line: Some(line),
        column: Some(column),
        ..Location::default()
    })
}

fn check_input_size(len: usize, limits: &Limits) -> Result<()> {
    if len > limits.max_input_bytes {
        return Err(Error::limit_error(
            "maxInputBytes",
            format!(
                "input is {len} bytes, more than the limit maxInputBytes ({})",
                limits.max_input_bytes
            ),
        ));
    }
    Ok(())
}

/// 1-based line and column just after `prefix`.
fn end_position(prefix: &str) -> (usize, usize) {
    let line = 1 + prefix.bytes().filter(|&b| b == b'\n').count();
    let last_line = prefix.rsplit('\n').next().unwrap_or("");
    (line, last_line.chars().count() + 1)
}

fn at_position(err: Error, document: usize, line: usize, column: usize, field: &str) -> Error {
    err.at(Location {
        document: (document > 0).then_some(document),
        field: (!field.is_empty()).then(|| field.to_string()),
        line: Some(line),
        column: Some(column),
        ..Location::default()
    })
}

fn depth_error(limits: &Limits) -> Error {
    Error::limit_error(
        "maxDepth",
        format!(
            "input nesting is deeper than the limit maxDepth ({})",
            limits.max_depth
        ),
    )
}

fn nodes_error(limits: &Limits) -> Error {
    Error::limit_error(
        "maxInputNodes",
        format!(
            "document has more values than the limit maxInputNodes ({})",
            limits.max_input_nodes
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_value_fast_path_and_fallback() {
        let l = Limits::default();
        let fast = read_value(r#"{"kind":"Pod","spec":{"n":[1,2.5,-3]}}"#, &l).unwrap();
        assert_eq!(
            fast,
            serde_json::json!({"kind": "Pod", "spec": {"n": [1, 2.5, -3]}})
        );
        // YAML falls back to the located reader, with the same result.
        let yaml = "kind: Pod\nspec:\n  n: [1, 2.5, -3]\n";
        assert_eq!(read_value(yaml, &l).unwrap(), fast);
        assert_eq!(
            read_value(yaml, &l).unwrap(),
            parse_object(yaml, &l).unwrap()
        );
        // JSON null is a value here (parse_object finds no document).
        assert_eq!(read_value("null", &l).unwrap(), Value::Null);
        assert_eq!(read_value(" 12 ", &l).unwrap(), serde_json::json!(12));
        assert_eq!(read_value("\"x\"", &l).unwrap(), serde_json::json!("x"));
        assert_eq!(read_value("", &l).unwrap_err().0.code, ErrorCode::Parse);
    }

    #[test]
    fn read_value_errors_are_located_and_limited() {
        let l = Limits::default();
        // A duplicate key is not silently dropped: the fallback reports it.
        let e = read_value("{\"a\": 1,\n \"a\": 2}", &l).unwrap_err();
        assert_eq!(e.0.code, ErrorCode::Parse);
        assert_eq!(e.0.location.line, Some(2));
        let e = read_value("{\"a\": }", &l).unwrap_err();
        assert_eq!(e.0.code, ErrorCode::Parse);
        assert!(e.0.location.column.is_some());
        // Limits apply on the fast path too.
        let tight = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        let e = read_value("[[[[1]]]]", &tight).unwrap_err();
        assert_eq!(e.0.limit.as_deref(), Some("maxDepth"));
        let tight = Limits {
            max_input_nodes: 3,
            ..Limits::default()
        };
        let e = read_value("[1,2,3,4]", &tight).unwrap_err();
        assert_eq!(e.0.limit.as_deref(), Some("maxInputNodes"));
        let tight = Limits {
            max_input_bytes: 4,
            ..Limits::default()
        };
        let e = read_value("[1,2,3]", &tight).unwrap_err();
        assert_eq!(e.0.limit.as_deref(), Some("maxInputBytes"));
        // Deeper than serde_json's 128 levels: read by the engine's reader.
        let roomy = Limits {
            max_depth: 300,
            ..Limits::default()
        };
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        let mut v = read_value(&deep, &roomy).unwrap();
        for _ in 0..200 {
            v = v.as_array().unwrap()[0].clone();
        }
        assert_eq!(v, serde_json::json!(1));
        let deeper = format!(
            "{}1{}",
            "[".repeat(l.max_depth + 1),
            "]".repeat(l.max_depth + 1)
        );
        assert_eq!(
            read_value(&deeper, &l).unwrap_err().0.limit.as_deref(),
            Some("maxDepth")
        );
    }

    #[test]
    fn read_items_takes_arrays_and_lists() {
        let l = Limits::default();
        assert_eq!(read_items("[{\"a\": 1}]", &l).unwrap().len(), 1);
        let list =
            "apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n- metadata: {name: b}\n";
        assert_eq!(read_items(list, &l).unwrap().len(), 2);
        let list = r#"{"kind":"List","items":[]}"#;
        assert!(read_items(list, &l).unwrap().is_empty());
        // One object is a list of one (the reader of "one or many").
        assert_eq!(read_items("{\"kind\": \"Pod\"}", &l).unwrap().len(), 1);
        let docs = "kind: Pod\nmetadata: {name: a}\n---\nkind: Pod\nmetadata: {name: b}\n";
        assert_eq!(read_items(docs, &l).unwrap().len(), 2);
        let e = read_items("{\"kind\": \"List\", \"items\": 3}", &l).unwrap_err();
        assert_eq!(e.0.code, ErrorCode::Parse);
        assert_eq!(
            e.0.message,
            "a List document must have an 'items' list, found a number"
        );
    }

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

    #[test]
    fn scalars() {
        let p = ScalarStyle::Plain;
        assert_eq!(resolve_scalar("12", p, None), Ok(Value::from(12u64)));
        assert_eq!(resolve_scalar("-12", p, None), Ok(Value::from(-12i64)));
        assert_eq!(resolve_scalar("0x1F", p, None), Ok(Value::from(31u64)));
        assert_eq!(resolve_scalar("0o17", p, None), Ok(Value::from(15u64)));
        assert_eq!(resolve_scalar("1.5", p, None), Ok(serde_json::json!(1.5)));
        assert_eq!(
            resolve_scalar("1e3", p, None),
            Ok(serde_json::json!(1000.0))
        );
        assert_eq!(resolve_scalar(".5", p, None), Ok(serde_json::json!(0.5)));
        assert_eq!(resolve_scalar("yes", p, None), Ok(serde_json::json!("yes")));
        assert_eq!(
            resolve_scalar("1_000", p, None),
            Ok(serde_json::json!("1_000"))
        );
        assert_eq!(resolve_scalar("~", p, None), Ok(Value::Null));
        assert!(resolve_scalar(".inf", p, None).is_err());
        assert!(resolve_scalar("-.Inf", p, None).is_err());
        assert!(resolve_scalar(".nan", p, None).is_err());
        assert!(resolve_scalar("1e999", p, None).is_err());
        assert_eq!(
            resolve_scalar("12", ScalarStyle::DoubleQuoted, None),
            Ok(serde_json::json!("12"))
        );
        assert_eq!(
            resolve_scalar("99999999999999999999", p, None),
            Ok(serde_json::json!(1e20))
        );
        assert_eq!(
            resolve_scalar("-9223372036854775809", p, None),
            Ok(serde_json::json!(-9223372036854775809.0))
        );
    }
}
