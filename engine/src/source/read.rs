//! The readers of a text: every document ([`parse_documents`], one at a
//! time with [`document_stream`]), one object ([`parse_object`]), one value
//! handed over by a program ([`read_value`]), and the checked text of bytes
//! ([`read_text`]).

use super::document::SourceDocument;
use super::errors::{check_input_size, utf8_error};
use super::json::{self, parse_json_text, parse_json_text_with_extents};
use super::yaml::YamlStream;
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;
use serde_json::Value;

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
    stream(text, limits, false)
}

/// [`document_stream`], whose documents' indices also record where each
/// value's text is: the key's and the value's byte ranges, and how a string
/// is written (the source map's reading, [`super::map`]).
pub(super) fn document_stream_with_extents<'a, 'l>(
    text: &'a str,
    limits: &'l Limits,
) -> Result<DocumentStream<'a, 'l>> {
    stream(text, limits, true)
}

fn stream<'a, 'l>(
    text: &'a str,
    limits: &'l Limits,
    extents: bool,
) -> Result<DocumentStream<'a, 'l>> {
    check_input_size(text.len(), limits)?;
    let trimmed = text.trim_start();
    let inner = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let docs = if extents {
            parse_json_text_with_extents(text, limits)?
        } else {
            parse_json_text(text, limits)?
        };
        StreamInner::Read(docs.into_iter())
    } else if extents {
        StreamInner::Yaml(Box::new(YamlStream::with_extents(text, limits)))
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
            ErrorCode::Parse,
            "no document found in the input",
        )),
        n => Err(crate::Error::new(
            ErrorCode::Usage,
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

/// [`read_value_fast`], building only what `reads` reads of the value
/// (the rest read as strictly and let go), with the shape of the whole
/// value read.
pub(crate) fn read_value_projected(
    text: &str,
    limits: &Limits,
    reads: &crate::jq::reads::Reads,
) -> Result<Option<(Value, super::TextShape)>> {
    let limits = &limits.effective();
    check_input_size(text.len(), limits)?;
    match json::read_json_projected(text, limits, reads) {
        Ok(read) => Ok(Some(read)),
        Err(json::Refused::Limit(e)) => Err(e),
        Err(json::Refused::Other) => Ok(None),
    }
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
}
