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

// `Error` is the crate-wide error type (about 270 bytes), returned by value
// throughout the crate.

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

/// One step of a value path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Segment {
    Key(Box<str>),
    Index(usize),
}

/// Maps value paths of one document to 1-based `(line, column)` positions.
///
/// For a mapping entry the position is that of its key; for a sequence
/// element, that of the element; the empty path is the document's root
/// value. Columns count characters. Values brought in by an alias or a merge
/// key have no position of their own (their nearest ancestor's is used by
/// [`SpanIndex::locate`]).
///
/// Paths use the syntax of [`path_push_key`] and [`path_push_index`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpanIndex {
    /// Position of every node; `(0, 0)` when unknown.
    positions: Vec<(u32, u32)>,
    /// `(parent node, step)` → child node. Node 0 is the root.
    children: HashMap<(u32, Segment), u32>,
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl SpanIndex {
    /// An empty index.
    pub fn new() -> Self {
        SpanIndex::default()
    }

    /// True when no position is known.
    pub fn is_empty(&self) -> bool {
        !self.positions.iter().any(|&(l, _)| l != 0)
    }

    /// Number of nodes with a known position.
    pub fn len(&self) -> usize {
        self.positions.iter().filter(|&&(l, _)| l != 0).count()
    }

    /// The position of the value at `path` (for a mapping entry, its key).
    /// `None` when the path is not known or does not parse.
    pub fn get(&self, path: &str) -> Option<(usize, usize)> {
        let (segments, complete) = parse_path(path);
        if !complete {
            return None;
        }
        let mut node = 0u32;
        if self.positions.is_empty() {
            return None;
        }
        for segment in segments {
            node = *self.children.get(&(node, segment))?;
        }
        self.position(node)
    }

    /// Fill `loc.line`/`loc.column` from `loc.field` when they are not set
    /// yet. When the field itself has no known position, the position of its
    /// nearest known ancestor is used.
    pub fn locate(&self, loc: &mut Location) {
        if loc.line.is_some() {
            return;
        }
        let Some(field) = loc.field.as_deref() else {
            return;
        };
        if let Some((line, column)) = self.nearest(field) {
            loc.line = Some(line);
            loc.column = Some(column);
        }
    }

    /// The position of `path` or of its nearest known ancestor.
    pub fn nearest(&self, path: &str) -> Option<(usize, usize)> {
        if self.positions.is_empty() {
            return None;
        }
        let (segments, _) = parse_path(path);
        let mut node = 0u32;
        let mut best = self.position(0);
        for segment in segments {
            match self.children.get(&(node, segment)) {
                Some(&child) => {
                    node = child;
                    if let Some(p) = self.position(child) {
                        best = Some(p);
                    }
                }
                None => break,
            }
        }
        best
    }

    /// Record a position for `path`, creating the intermediate steps (without
    /// positions) as needed. Returns false when the path does not parse.
    pub fn insert(&mut self, path: &str, line: usize, column: usize) -> bool {
        let (segments, complete) = parse_path(path);
        if !complete {
            return false;
        }
        if self.positions.is_empty() {
            self.positions.push((0, 0));
        }
        let mut node = 0u32;
        for segment in segments {
            node = self.child(node, segment, (0, 0));
        }
        self.set_position(node, (line, column));
        true
    }

    /// A new index whose root is the value at `path` (e.g. `items[2]` of a
    /// `List` document). Empty when the path is not known.
    pub fn subtree(&self, path: &str) -> SpanIndex {
        let mut out = SpanIndex::new();
        let (segments, complete) = parse_path(path);
        if !complete || self.positions.is_empty() {
            return out;
        }
        let mut node = 0u32;
        for segment in segments {
            match self.children.get(&(node, segment)) {
                Some(&child) => node = child,
                None => return out,
            }
        }
        // Group children by parent once, then copy breadth-first (no recursion).
        let mut by_parent: HashMap<u32, Vec<(&Segment, u32)>> = HashMap::new();
        for ((parent, segment), child) in &self.children {
            by_parent
                .entry(*parent)
                .or_default()
                .push((segment, *child));
        }
        let root_pos = self.positions.get(node as usize).copied().unwrap_or((0, 0));
        out.positions.push(root_pos);
        let mut queue = std::collections::VecDeque::new();
        queue.push_back((node, 0u32));
        while let Some((old, new)) = queue.pop_front() {
            if let Some(kids) = by_parent.get(&old) {
                for (segment, old_child) in kids {
                    let pos = self
                        .positions
                        .get(*old_child as usize)
                        .copied()
                        .unwrap_or((0, 0));
                    let new_child = out.alloc(pos);
                    out.children.insert((new, (*segment).clone()), new_child);
                    queue.push_back((*old_child, new_child));
                }
            }
        }
        out
    }

    fn position(&self, node: u32) -> Option<(usize, usize)> {
        match self.positions.get(node as usize) {
            Some(&(line, column)) if line != 0 => Some((line as usize, column as usize)),
            _ => None,
        }
    }

    fn set_position(&mut self, node: u32, (line, column): (usize, usize)) {
        if let Some(slot) = self.positions.get_mut(node as usize) {
            *slot = (clamp_u32(line), clamp_u32(column));
        }
    }

    fn alloc(&mut self, pos: (u32, u32)) -> u32 {
        let id = clamp_u32(self.positions.len());
        if id != u32::MAX {
            self.positions.push(pos);
        }
        id
    }

    /// Start a new document root at `pos`.
    fn set_root(&mut self, pos: (usize, usize)) -> u32 {
        if self.positions.is_empty() {
            self.positions.push((0, 0));
        }
        self.set_position(0, pos);
        0
    }

    /// The child of `parent` at `segment`, created with `pos` when missing.
    fn child(&mut self, parent: u32, segment: Segment, pos: (u32, u32)) -> u32 {
        if let Some(&existing) = self.children.get(&(parent, segment.clone())) {
            if pos.0 != 0
                && let Some(slot) = self.positions.get_mut(existing as usize)
            {
                *slot = pos;
            }
            return existing;
        }
        let id = self.alloc(pos);
        if id != u32::MAX {
            self.children.insert((parent, segment), id);
        }
        id
    }

    /// A node that is not reachable by any path (content of a merge key).
    fn detached(&mut self) -> u32 {
        self.alloc((0, 0))
    }

    fn lookup(&self, parent: u32, segment: Segment) -> Option<(usize, usize)> {
        let child = *self.children.get(&(parent, segment))?;
        self.position(child)
    }
}

fn is_identifier(key: &str) -> bool {
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
pub fn path_push_key(path: &str, key: &str) -> String {
    if is_identifier(key) {
        if path.is_empty() {
            key.to_string()
        } else {
            format!("{path}.{key}")
        }
    } else {
        format!("{path}[{}]", Value::String(key.to_string()))
    }
}

/// `path` extended by a sequence index: `a[3]`.
pub fn path_push_index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// Split a path into steps. The flag is false when the path does not parse
/// completely (the steps then hold the prefix that did).
fn parse_path(path: &str) -> (Vec<Segment>, bool) {
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

/// Parse one or more YAML documents (or one JSON document) into JSON values
/// with positions. See the [module documentation](self) for the conversion
/// rules and the limits applied.
pub fn parse_documents(text: &str, limits: &Limits) -> Result<Vec<SourceDocument>> {
    let limits = &limits.effective();
    check_input_size(text.len(), limits)?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        parse_json_text(text, limits)
    } else {
        parse_yaml(text, limits)
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
    let limits = &limits.effective();
    check_input_size(text.len(), limits)?;
    let mut de = serde_json::Deserializer::from_str(text);
    if let Ok(Strict(value)) = <Strict as serde::Deserialize>::deserialize(&mut de)
        && de.end().is_ok()
    {
        check_value_limits(&value, limits)?;
        return Ok(value);
    }
    parse_object(text, limits)
}

/// Read a list of objects (pods) with [`read_value`]: a JSON/YAML array, or
/// a `List` object (a `kind` ending in `List`, such as `PodList`, as
/// `kubectl get pods -o yaml` prints it) whose `items` are taken. Anything
/// else is a [`ErrorCode::Usage`] error.
pub fn read_items(text: &str, limits: &Limits) -> Result<Vec<Value>> {
    match read_value(text, limits)? {
        Value::Array(items) => Ok(items),
        Value::Object(mut map)
            if map
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.ends_with("List"))
                && map.get("items").is_some_and(Value::is_array) =>
        {
            match map.remove("items") {
                Some(Value::Array(items)) => Ok(items),
                _ => Ok(Vec::new()),
            }
        }
        other => Err(Error::new(
            ErrorCode::Usage,
            format!(
                "expected a list of objects (an array, or a List object with items), not {}",
                json_type_name(&other)
            ),
        )),
    }
}

fn json_type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object without a list of items",
    }
}

/// A `serde_json::Value` read strictly: a duplicate mapping key is an error
/// (serde_json's own `Value` keeps the last one silently).
struct Strict(Value);

impl<'de> serde::Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Strict;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::from(v)))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Strict, E> {
        Number::from_f64(v)
            .map(|n| Strict(Value::Number(n)))
            .ok_or_else(|| E::custom("a number that JSON cannot represent"))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::String(v.to_string())))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::String(v)))
    }

    fn visit_unit<E>(self) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::Null))
    }

    fn visit_none<E>(self) -> std::result::Result<Strict, E> {
        Ok(Strict(Value::Null))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Strict, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(Strict(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(Strict(Value::Array(items)))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut access: A,
    ) -> std::result::Result<Strict, A::Error> {
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let Strict(v) = access.next_value()?;
            if map.contains_key(&key) {
                return Err(serde::de::Error::custom("duplicate key"));
            }
            map.insert(key, v);
        }
        Ok(Strict(Value::Object(map)))
    }
}

/// Like [`parse_documents`], for bytes: text that is not valid UTF-8 is a
/// [`ErrorCode::Parse`] error naming the byte offset (and line/column) of the
/// first invalid byte.
pub fn parse_documents_bytes(bytes: &[u8], limits: &Limits) -> Result<Vec<SourceDocument>> {
    check_input_size(bytes.len(), limits)?;
    match std::str::from_utf8(bytes) {
        Ok(text) => parse_documents(text, limits),
        Err(e) => {
            let offset = e.valid_up_to();
            let prefix = bytes
                .get(..offset)
                .and_then(|b| std::str::from_utf8(b).ok())
                .unwrap_or("");
            let (line, column) = end_position(prefix);
            Err(Error::new(
                ErrorCode::Parse,
                format!("input is not valid UTF-8: invalid byte at offset {offset}"),
            )
            .at(Location {
                line: Some(line),
                column: Some(column),
                ..Location::default()
            }))
        }
    }
}

fn check_input_size(len: usize, limits: &Limits) -> Result<()> {
    if len > limits.max_input_bytes {
        return Err(Error::limit(
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
    Error::limit(
        "maxDepth",
        format!(
            "input nesting is deeper than the limit maxDepth ({})",
            limits.max_depth
        ),
    )
}

fn nodes_error(limits: &Limits) -> Error {
    Error::limit(
        "maxInputNodes",
        format!(
            "document has more values than the limit maxInputNodes ({})",
            limits.max_input_nodes
        ),
    )
}

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------

fn parse_json_text(text: &str, limits: &Limits) -> Result<Vec<SourceDocument>> {
    let scan = scan_json(text, limits)?;
    match serde_json::from_str::<Value>(text) {
        Ok(value) => {
            if !scan.complete {
                // The scanner gave up early (it is deliberately simple); make
                // sure the limits still hold.
                check_value_limits(&value, limits)?;
            }
            if value.is_null() {
                return Ok(Vec::new());
            }
            Ok(vec![SourceDocument {
                value,
                document: 0,
                spans: scan.spans,
            }])
        }
        Err(json_err) => {
            let msg = json_err.to_string();
            let (line, column) = json_position(text, json_err.line(), json_err.column());
            if msg.starts_with("recursion limit exceeded") {
                // serde_json's own fixed nesting limit (128); the text is
                // within `maxDepth` (the scan checked), so read it as YAML,
                // which has no fixed limit.
                return parse_yaml(text, limits)
                    .map_err(|_| at_position(depth_error(limits), 0, line, column, ""));
            }
            if scan.yaml_hint {
                return parse_yaml(text, limits);
            }
            let msg = match msg.rsplit_once(" at line ") {
                Some((m, _)) => m.to_string(),
                None => msg,
            };
            Err(at_position(
                Error::new(ErrorCode::Parse, format!("invalid JSON: {msg}")),
                0,
                line,
                column,
                "",
            ))
        }
    }
}

/// serde_json reports a byte column; convert it to a character column.
fn json_position(text: &str, line: usize, byte_column: usize) -> (usize, usize) {
    let line = line.max(1);
    let Some(line_text) = text.split('\n').nth(line - 1) else {
        return (line, byte_column.max(1));
    };
    let column = line_text
        .char_indices()
        .take_while(|(b, _)| *b < byte_column.saturating_sub(1))
        .count()
        + 1;
    (line, column)
}

/// Depth and node-count check of a value, without recursion.
pub(crate) fn check_value_limits(value: &Value, limits: &Limits) -> Result<()> {
    let mut nodes = 0usize;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((v, depth)) = stack.pop() {
        nodes += 1;
        if nodes > limits.max_input_nodes {
            return Err(nodes_error(limits));
        }
        match v {
            Value::Array(items) => {
                if depth + 1 > limits.max_depth {
                    return Err(depth_error(limits));
                }
                stack.extend(items.iter().map(|i| (i, depth + 1)));
            }
            Value::Object(map) => {
                if depth + 1 > limits.max_depth {
                    return Err(depth_error(limits));
                }
                stack.extend(map.values().map(|i| (i, depth + 1)));
            }
            _ => {}
        }
    }
    Ok(())
}

struct JsonScan {
    spans: SpanIndex,
    /// True when the scanner understood the whole text.
    complete: bool,
    /// True when the scanner stopped at something that is YAML rather than
    /// broken JSON (an unquoted key or word, a single quote, a comment,
    /// content after the root value such as `---`).
    yaml_hint: bool,
}

struct JsonFrame {
    object: bool,
    node: u32,
    path: String,
    index: usize,
    /// Node and path of the entry whose key was just read.
    entry: Option<(u32, String)>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum JsonState {
    Value,
    ValueOrEnd,
    KeyOrEnd,
    Key,
    Colon,
    CommaOrEnd,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    i: usize,
    line: usize,
    column: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn advance_to(&mut self, target: usize) {
        while self.i < target {
            match self.bytes.get(self.i) {
                Some(b'\n') => {
                    self.line += 1;
                    self.column = 1;
                }
                Some(&b) if b & 0xC0 != 0x80 => self.column += 1,
                Some(_) => {}
                None => return,
            }
            self.i += 1;
        }
    }

    fn skip_whitespace(&mut self) {
        let mut j = self.i;
        while matches!(self.bytes.get(j), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            j += 1;
        }
        self.advance_to(j);
    }

    /// End (exclusive) of the string starting at the current `"`.
    fn string_end(&self) -> Option<usize> {
        let mut j = self.i + 1;
        loop {
            match self.bytes.get(j)? {
                b'\\' => j += 2,
                b'"' => return Some(j + 1),
                b'\n' => return None,
                _ => j += 1,
            }
        }
    }

    fn pos(&self) -> (usize, usize) {
        (self.line, self.column)
    }
}

/// Positions, depth, node count and duplicate keys of a JSON text, in one
/// iterative pass. Syntax errors are left to serde_json (the scan just stops).
fn scan_json(text: &str, limits: &Limits) -> Result<JsonScan> {
    let mut cur = Cursor {
        bytes: text.as_bytes(),
        i: 0,
        line: 1,
        column: 1,
    };
    let mut spans = SpanIndex::new();
    let mut stack: Vec<JsonFrame> = Vec::new();
    let mut state = JsonState::Value;
    let mut nodes = 0usize;
    let mut done = false;
    let mut complete = false;
    let mut yaml_hint = false;
    loop {
        cur.skip_whitespace();
        let Some(c) = cur.peek() else {
            complete = done;
            break;
        };
        if c == b'#' || c == b'\'' {
            yaml_hint = true;
            break;
        }
        if done {
            yaml_hint = true; // more documents, or trailing garbage
            break;
        }
        match state {
            JsonState::Value | JsonState::ValueOrEnd => {
                if state == JsonState::ValueOrEnd && c == b']' {
                    cur.advance_to(cur.i + 1);
                    stack.pop();
                    after_value(&mut stack, &mut state, &mut done);
                    continue;
                }
                let pos = cur.pos();
                let (node, path) = match stack.last_mut() {
                    None => (spans.set_root(pos), String::new()),
                    Some(top) if top.object => match top.entry.take() {
                        Some(entry) => entry,
                        None => break,
                    },
                    Some(top) => {
                        let node = spans.child(
                            top.node,
                            Segment::Index(top.index),
                            (clamp_u32(pos.0), clamp_u32(pos.1)),
                        );
                        (node, path_push_index(&top.path, top.index))
                    }
                };
                nodes += 1;
                if nodes > limits.max_input_nodes {
                    return Err(at_position(nodes_error(limits), 0, pos.0, pos.1, &path));
                }
                match c {
                    b'{' | b'[' => {
                        if stack.len() + 1 > limits.max_depth {
                            return Err(at_position(depth_error(limits), 0, pos.0, pos.1, &path));
                        }
                        let object = c == b'{';
                        stack.push(JsonFrame {
                            object,
                            node,
                            path,
                            index: 0,
                            entry: None,
                        });
                        state = if object {
                            JsonState::KeyOrEnd
                        } else {
                            JsonState::ValueOrEnd
                        };
                        cur.advance_to(cur.i + 1);
                    }
                    b'"' => {
                        let Some(end) = cur.string_end() else { break };
                        cur.advance_to(end);
                        after_value(&mut stack, &mut state, &mut done);
                    }
                    _ => {
                        let mut j = cur.i;
                        while cur.bytes.get(j).is_some_and(|b| {
                            !matches!(
                                b,
                                b',' | b']'
                                    | b'}'
                                    | b':'
                                    | b'"'
                                    | b'['
                                    | b'{'
                                    | b' '
                                    | b'\t'
                                    | b'\n'
                                    | b'\r'
                            )
                        }) {
                            j += 1;
                        }
                        if j == cur.i {
                            break;
                        }
                        let word = text.get(cur.i..j).unwrap_or("");
                        if word.starts_with(|ch: char| ch.is_ascii_alphabetic())
                            && !matches!(word, "true" | "false" | "null")
                        {
                            yaml_hint = true;
                            break;
                        }
                        cur.advance_to(j);
                        after_value(&mut stack, &mut state, &mut done);
                    }
                }
            }
            JsonState::KeyOrEnd | JsonState::Key => {
                if state == JsonState::KeyOrEnd && c == b'}' {
                    cur.advance_to(cur.i + 1);
                    stack.pop();
                    after_value(&mut stack, &mut state, &mut done);
                    continue;
                }
                if c != b'"' {
                    yaml_hint = c.is_ascii_alphanumeric() || c == b'_' || c == b'?';
                    break;
                }
                let pos = cur.pos();
                let Some(end) = cur.string_end() else { break };
                let Some(Ok(key)) = text.get(cur.i..end).map(serde_json::from_str::<String>) else {
                    break;
                };
                let Some(top) = stack.last_mut() else { break };
                let path = path_push_key(&top.path, &key);
                if let Some((l, col)) = spans.lookup(top.node, Segment::Key(key.clone().into())) {
                    return Err(at_position(
                        Error::new(
                            ErrorCode::Parse,
                            format!(
                                "duplicate mapping key {} (first defined at line {l}, column {col})",
                                Value::String(key)
                            ),
                        ),
                        0,
                        pos.0,
                        pos.1,
                        &path,
                    ));
                }
                let node = spans.child(
                    top.node,
                    Segment::Key(key.into()),
                    (clamp_u32(pos.0), clamp_u32(pos.1)),
                );
                top.entry = Some((node, path));
                cur.advance_to(end);
                state = JsonState::Colon;
            }
            JsonState::Colon => {
                if c != b':' {
                    break;
                }
                cur.advance_to(cur.i + 1);
                state = JsonState::Value;
            }
            JsonState::CommaOrEnd => {
                let Some(top) = stack.last() else { break };
                if c == b',' {
                    cur.advance_to(cur.i + 1);
                    state = if top.object {
                        JsonState::Key
                    } else {
                        JsonState::Value
                    };
                } else if (c == b'}' && top.object) || (c == b']' && !top.object) {
                    cur.advance_to(cur.i + 1);
                    stack.pop();
                    after_value(&mut stack, &mut state, &mut done);
                } else {
                    break;
                }
            }
        }
    }
    Ok(JsonScan {
        spans,
        complete,
        yaml_hint,
    })
}

fn after_value(stack: &mut [JsonFrame], state: &mut JsonState, done: &mut bool) {
    match stack.last_mut() {
        None => *done = true,
        Some(top) => {
            if !top.object {
                top.index += 1;
            }
            *state = JsonState::CommaOrEnd;
        }
    }
}

// ---------------------------------------------------------------------------
// YAML
// ---------------------------------------------------------------------------

fn parse_yaml(text: &str, limits: &Limits) -> Result<Vec<SourceDocument>> {
    let mut options = granit_parser::Options::default();
    options.emit_comments = false;
    options.flow_nesting_limit = limits.max_depth;
    options.block_nesting_limit = limits.max_depth;
    let parser = Parser::new_from_str_with_options(text, options);
    let mut builder = YamlBuilder::new(limits);
    for item in parser {
        match item {
            Ok((event, span)) => builder.event(event, span)?,
            Err(e) => return Err(builder.scan_error(&e)),
        }
    }
    Ok(builder.docs)
}

/// A completed anchored node.
struct Anchored {
    value: Value,
    /// Values in it (itself included).
    nodes: usize,
    /// Alias expansions inside it.
    aliases: usize,
    /// Nesting height (0 for a scalar).
    height: usize,
    /// Bytes of scalar text in it (keys and alias expansions included).
    bytes: usize,
}

enum PendingKey {
    Key(String, u32),
    Merge(u32),
}

enum FrameKind {
    Seq(Vec<Value>),
    Map {
        map: Map<String, Value>,
        key: Option<PendingKey>,
        merges: Vec<Map<String, Value>>,
    },
}

struct Frame {
    kind: FrameKind,
    node: u32,
    path: String,
    anchor: usize,
    nodes_at_start: usize,
    aliases_at_start: usize,
    bytes_at_start: usize,
    child_height: usize,
}

struct YamlBuilder<'l> {
    limits: &'l Limits,
    docs: Vec<SourceDocument>,
    documents: usize,
    spans: SpanIndex,
    anchors: HashMap<usize, Anchored>,
    stack: Vec<Frame>,
    root: Option<Value>,
    nodes: usize,
    aliases: usize,
    /// Bytes of scalar text read so far, alias expansions included: aliases
    /// of a big scalar must not multiply it past `maxInputBytes`.
    bytes: usize,
}

fn position_of(span: &Span) -> (usize, usize) {
    (span.start.line(), span.start.col() + 1)
}

impl<'l> YamlBuilder<'l> {
    fn new(limits: &'l Limits) -> Self {
        YamlBuilder {
            limits,
            docs: Vec::new(),
            documents: 0,
            spans: SpanIndex::new(),
            anchors: HashMap::new(),
            stack: Vec::new(),
            root: None,
            nodes: 0,
            aliases: 0,
            bytes: 0,
        }
    }

    fn document_index(&self) -> usize {
        self.documents.saturating_sub(1)
    }

    fn error_at(&self, err: Error, span: &Span, field: &str) -> Error {
        let (line, column) = position_of(span);
        at_position(err, self.document_index(), line, column, field)
    }

    fn parse_error(&self, message: String, span: &Span, field: &str) -> Error {
        self.error_at(Error::new(ErrorCode::Parse, message), span, field)
    }

    fn scan_error(&self, e: &ScanError) -> Error {
        let marker = e.marker();
        let err = match e.kind() {
            ErrorKind::RecursionLimitExceeded => depth_error(self.limits),
            _ => Error::new(ErrorCode::Parse, format!("invalid YAML: {}", e.info())),
        };
        at_position(
            err,
            self.document_index(),
            marker.line(),
            marker.col() + 1,
            "",
        )
    }

    fn event(&mut self, event: Event<'_>, span: Span) -> Result<()> {
        match event {
            Event::DocumentStart(..) => {
                self.documents += 1;
                if self.documents > self.limits.max_documents {
                    return Err(self.error_at(
                        Error::limit(
                            "maxDocuments",
                            format!(
                                "text has more documents than the limit maxDocuments ({})",
                                self.limits.max_documents
                            ),
                        ),
                        &span,
                        "",
                    ));
                }
                self.spans = SpanIndex::new();
                self.anchors.clear();
                self.stack.clear();
                self.root = None;
                self.nodes = 0;
                Ok(())
            }
            Event::DocumentEnd => {
                let spans = std::mem::take(&mut self.spans);
                self.anchors.clear();
                if let Some(value) = self.root.take()
                    && !value.is_null()
                {
                    self.docs.push(SourceDocument {
                        value,
                        document: self.document_index(),
                        spans,
                    });
                }
                Ok(())
            }
            Event::Alias(id) => self.alias(id, &span),
            Event::UnresolvedAlias(name) => Err(self.parse_error(
                format!("alias *{name} refers to an unknown anchor"),
                &span,
                "",
            )),
            Event::Scalar(text, style, anchor, tag) => {
                self.scalar(&text, style, anchor, tag.as_deref(), &span)
            }
            Event::SequenceStart(_, anchor, _) => self.start(false, anchor, &span),
            Event::MappingStart(_, anchor, _) => self.start(true, anchor, &span),
            Event::SequenceEnd | Event::MappingEnd => self.end(&span),
            _ => Ok(()),
        }
    }

    fn expecting_key(&self) -> bool {
        matches!(
            self.stack.last(),
            Some(Frame {
                kind: FrameKind::Map { key: None, .. },
                ..
            })
        )
    }

    /// Path of the value about to be added.
    fn slot_path(&self) -> String {
        match self.stack.last() {
            None => String::new(),
            Some(top) => match &top.kind {
                FrameKind::Seq(items) => path_push_index(&top.path, items.len()),
                FrameKind::Map {
                    key: Some(PendingKey::Key(k, _)),
                    ..
                } => path_push_key(&top.path, k),
                FrameKind::Map { .. } => path_push_key(&top.path, "<<"),
            },
        }
    }

    /// Span node of the value about to be added.
    fn slot_node(&mut self, span: &Span) -> u32 {
        let (line, column) = position_of(span);
        match self.stack.last() {
            None => self.spans.set_root((line, column)),
            Some(top) => match &top.kind {
                FrameKind::Seq(items) => {
                    let (parent, index) = (top.node, items.len());
                    self.spans.child(
                        parent,
                        Segment::Index(index),
                        (clamp_u32(line), clamp_u32(column)),
                    )
                }
                FrameKind::Map {
                    key: Some(PendingKey::Key(_, node) | PendingKey::Merge(node)),
                    ..
                } => *node,
                FrameKind::Map { key: None, .. } => self.spans.detached(),
            },
        }
    }

    fn count_bytes(&mut self, n: usize, span: &Span) -> Result<()> {
        self.bytes = self.bytes.saturating_add(n);
        if self.bytes > self.limits.max_input_bytes {
            let path = self.slot_path();
            return Err(self.error_at(
                Error::limit(
                    "maxInputBytes",
                    format!(
                        "the text expands through YAML aliases to more than maxInputBytes ({} bytes)",
                        self.limits.max_input_bytes
                    ),
                ),
                span,
                &path,
            ));
        }
        Ok(())
    }

    fn count_node(&mut self, span: &Span) -> Result<()> {
        self.nodes += 1;
        if self.nodes > self.limits.max_input_nodes {
            let path = self.slot_path();
            return Err(self.error_at(nodes_error(self.limits), span, &path));
        }
        Ok(())
    }

    fn scalar(
        &mut self,
        text: &str,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        span: &Span,
    ) -> Result<()> {
        self.count_bytes(text.len(), span)?;
        if self.expecting_key() {
            if style == ScalarStyle::Plain && tag.is_none() && text == "<<" {
                let node = self.spans.detached();
                if let Some(Frame {
                    kind: FrameKind::Map { key, .. },
                    ..
                }) = self.stack.last_mut()
                {
                    *key = Some(PendingKey::Merge(node));
                }
                return Ok(());
            }
            let value = match resolve_scalar(text, style, tag) {
                Ok(v) => v,
                Err(m) => {
                    let path = self
                        .stack
                        .last()
                        .map(|f| f.path.clone())
                        .unwrap_or_default();
                    return Err(self.parse_error(m, span, &path));
                }
            };
            if anchor != 0 {
                self.anchors.insert(
                    anchor,
                    Anchored {
                        value: value.clone(),
                        nodes: 1,
                        aliases: 0,
                        height: 0,
                        bytes: text.len(),
                    },
                );
            }
            return self.set_key(value, span);
        }
        let value = match resolve_scalar(text, style, tag) {
            Ok(v) => v,
            Err(m) => {
                let path = self.slot_path();
                return Err(self.parse_error(m, span, &path));
            }
        };
        self.count_node(span)?;
        self.slot_node(span);
        if anchor != 0 {
            self.anchors.insert(
                anchor,
                Anchored {
                    value: value.clone(),
                    nodes: 1,
                    aliases: 0,
                    height: 0,
                    bytes: text.len(),
                },
            );
        }
        self.attach(value, 0, span)
    }

    /// Use a resolved scalar as the pending key of the current mapping.
    fn set_key(&mut self, key: Value, span: &Span) -> Result<()> {
        let parent_path = self
            .stack
            .last()
            .map(|f| f.path.clone())
            .unwrap_or_default();
        let key = match key {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => {
                return Err(self.parse_error(
                    "a null mapping key is not supported (quote the key to make it a string)"
                        .to_string(),
                    span,
                    &parent_path,
                ));
            }
            Value::Array(_) | Value::Object(_) => {
                return Err(self.parse_error(
                    "complex mapping keys (a sequence or mapping used as a key) are not supported"
                        .to_string(),
                    span,
                    &parent_path,
                ));
            }
        };
        let path = path_push_key(&parent_path, &key);
        let (line, column) = position_of(span);
        let Some(top) = self.stack.last() else {
            return Ok(());
        };
        let parent = top.node;
        if let FrameKind::Map { map, .. } = &top.kind
            && map.contains_key(&key)
        {
            let first = self
                .spans
                .lookup(parent, Segment::Key(key.clone().into()))
                .map(|(l, c)| format!(" (first defined at line {l}, column {c})"))
                .unwrap_or_default();
            return Err(self.parse_error(
                format!("duplicate mapping key {}{first}", Value::String(key)),
                span,
                &path,
            ));
        }
        let node = self.spans.child(
            parent,
            Segment::Key(key.clone().into()),
            (clamp_u32(line), clamp_u32(column)),
        );
        if let Some(Frame {
            kind: FrameKind::Map { key: slot, .. },
            ..
        }) = self.stack.last_mut()
        {
            *slot = Some(PendingKey::Key(key, node));
        }
        Ok(())
    }

    fn start(&mut self, map: bool, anchor: usize, span: &Span) -> Result<()> {
        if self.expecting_key() {
            let path = self
                .stack
                .last()
                .map(|f| f.path.clone())
                .unwrap_or_default();
            return Err(self.parse_error(
                "complex mapping keys (a sequence or mapping used as a key) are not supported"
                    .to_string(),
                span,
                &path,
            ));
        }
        let path = self.slot_path();
        if self.stack.len() + 1 > self.limits.max_depth {
            return Err(self.error_at(depth_error(self.limits), span, &path));
        }
        self.count_node(span)?;
        let node = self.slot_node(span);
        let kind = if map {
            FrameKind::Map {
                map: Map::new(),
                key: None,
                merges: Vec::new(),
            }
        } else {
            FrameKind::Seq(Vec::new())
        };
        self.stack.push(Frame {
            kind,
            node,
            path,
            anchor,
            nodes_at_start: self.nodes,
            aliases_at_start: self.aliases,
            bytes_at_start: self.bytes,
            child_height: 0,
        });
        Ok(())
    }

    fn end(&mut self, span: &Span) -> Result<()> {
        let Some(frame) = self.stack.pop() else {
            return Err(self.parse_error("unbalanced YAML collection end".to_string(), span, ""));
        };
        let value = match frame.kind {
            FrameKind::Seq(items) => Value::Array(items),
            FrameKind::Map {
                mut map, merges, ..
            } => {
                for source in merges {
                    for (k, v) in source {
                        map.entry(k).or_insert(v);
                    }
                }
                Value::Object(map)
            }
        };
        let height = frame.child_height + 1;
        if frame.anchor != 0 {
            self.anchors.insert(
                frame.anchor,
                Anchored {
                    value: value.clone(),
                    nodes: self.nodes - frame.nodes_at_start + 1,
                    aliases: self.aliases - frame.aliases_at_start,
                    height,
                    bytes: self.bytes - frame.bytes_at_start,
                },
            );
        }
        self.attach(value, height, span)
    }

    fn alias(&mut self, id: usize, span: &Span) -> Result<()> {
        let path = self.slot_path();
        let Some(anchored) = self.anchors.get(&id) else {
            return Err(self.parse_error(
                "alias refers to an anchor that is not complete yet (recursive aliases are not supported)"
                    .to_string(),
                span,
                &path,
            ));
        };
        let (nodes, aliases, height, bytes) = (
            anchored.nodes,
            anchored.aliases,
            anchored.height,
            anchored.bytes,
        );
        self.aliases = self.aliases.saturating_add(1).saturating_add(aliases);
        if self.aliases > self.limits.max_yaml_aliases {
            return Err(self.error_at(
                Error::limit(
                    "maxYamlAliases",
                    format!(
                        "YAML alias expansions exceed the limit maxYamlAliases ({})",
                        self.limits.max_yaml_aliases
                    ),
                ),
                span,
                &path,
            ));
        }
        if self.stack.len() + height > self.limits.max_depth {
            return Err(self.error_at(depth_error(self.limits), span, &path));
        }
        self.count_bytes(bytes, span)?;
        let key_position = self.expecting_key();
        if !key_position {
            self.nodes = self.nodes.saturating_add(nodes);
            if self.nodes > self.limits.max_input_nodes {
                return Err(self.error_at(nodes_error(self.limits), span, &path));
            }
        }
        let value = match self.anchors.get(&id) {
            Some(a) => a.value.clone(),
            None => Value::Null,
        };
        if key_position {
            return self.set_key(value, span);
        }
        self.slot_node(span);
        self.attach(value, height, span)
    }

    fn attach(&mut self, value: Value, height: usize, span: &Span) -> Result<()> {
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(value);
            return Ok(());
        };
        top.child_height = top.child_height.max(height);
        let merge_ok = match &mut top.kind {
            FrameKind::Seq(items) => {
                items.push(value);
                true
            }
            FrameKind::Map { map, key, merges } => match key.take() {
                Some(PendingKey::Key(k, _)) => {
                    map.insert(k, value);
                    true
                }
                Some(PendingKey::Merge(_)) => match value {
                    Value::Object(m) => {
                        merges.push(m);
                        true
                    }
                    Value::Array(items) => {
                        let mut ok = true;
                        for item in items {
                            match item {
                                Value::Object(m) => merges.push(m),
                                _ => ok = false,
                            }
                        }
                        ok
                    }
                    _ => false,
                },
                None => true,
            },
        };
        if merge_ok {
            return Ok(());
        }
        let path = self
            .stack
            .last()
            .map(|f| path_push_key(&f.path, "<<"))
            .unwrap_or_default();
        Err(self.parse_error(
            "the merge key '<<' needs a mapping or a sequence of mappings".to_string(),
            span,
            &path,
        ))
    }
}

fn is_null_text(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

fn is_special_float(text: &str) -> bool {
    let t = text.strip_prefix(['+', '-']).unwrap_or(text);
    matches!(t, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN")
}

fn radix_value(digits: &str, radix: u32) -> Option<Value> {
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    if let Ok(n) = u64::from_str_radix(digits, radix) {
        return Some(Value::from(n));
    }
    let f = digits.chars().fold(0.0f64, |acc, c| {
        acc * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
    });
    Number::from_f64(f).map(Value::Number)
}

/// YAML 1.2 core-schema integer, if `text` is one.
fn parse_int(text: &str) -> Option<Value> {
    if let Some(d) = text.strip_prefix("0o") {
        return radix_value(d, 8);
    }
    if let Some(d) = text.strip_prefix("0x") {
        return radix_value(d, 16);
    }
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if text.starts_with('-') {
        if let Ok(n) = text.parse::<i64>() {
            return Some(Value::from(n));
        }
    } else if let Ok(n) = digits.parse::<u64>() {
        return Some(Value::from(n));
    }
    text.parse::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
}

/// True when `text` has the YAML 1.2 core float syntax
/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn is_float_syntax(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let int_start = i;
    while b.get(i).is_some_and(u8::is_ascii_digit) {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let s = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac_digits = i - s;
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let s = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == s {
            return false;
        }
    }
    i == b.len()
}

fn float_value(text: &str) -> Result<Value, String> {
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) => Ok(Value::Number(n)),
        None => Err(format!(
            "number {text} is out of range (not representable in JSON)"
        )),
    }
}

fn not_representable(text: &str) -> String {
    format!("value {text} is not representable in JSON (infinity and NaN are not allowed)")
}

/// Resolve a scalar to a JSON value (see the module documentation).
fn resolve_scalar(text: &str, style: ScalarStyle, tag: Option<&Tag>) -> Result<Value, String> {
    if let Some(tag) = tag {
        if let Some(core) = tag.core_suffix() {
            return match core {
                "str" => Ok(Value::String(text.to_string())),
                "null" if is_null_text(text) => Ok(Value::Null),
                "bool" => parse_bool(text)
                    .map(Value::Bool)
                    .ok_or_else(|| format!("'{text}' is not a valid !!bool value")),
                "int" => {
                    parse_int(text).ok_or_else(|| format!("'{text}' is not a valid !!int value"))
                }
                "float" => {
                    if is_special_float(text) {
                        Err(not_representable(text))
                    } else if let Some(Value::Number(n)) = parse_int(text) {
                        n.as_f64()
                            .and_then(Number::from_f64)
                            .map(Value::Number)
                            .ok_or_else(|| format!("'{text}' is not a valid !!float value"))
                    } else if is_float_syntax(text) {
                        float_value(text)
                    } else {
                        Err(format!("'{text}' is not a valid !!float value"))
                    }
                }
                "map" | "seq" => Err(format!("a scalar cannot have the !!{core} tag")),
                _ => Err(format!("'{text}' is not a valid !!{core} value")),
            };
        }
        // The non-specific tag `!` and every other tag: the text is a string.
        return Ok(Value::String(text.to_string()));
    }
    if style != ScalarStyle::Plain {
        return Ok(Value::String(text.to_string()));
    }
    if is_null_text(text) {
        return Ok(Value::Null);
    }
    if let Some(b) = parse_bool(text) {
        return Ok(Value::Bool(b));
    }
    if is_special_float(text) {
        return Err(not_representable(text));
    }
    if let Some(v) = parse_int(text) {
        return Ok(v);
    }
    if is_float_syntax(text) {
        return float_value(text);
    }
    Ok(Value::String(text.to_string()))
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
        assert_eq!(read_value("", &l).unwrap_err().code, ErrorCode::Parse);
    }

    #[test]
    fn read_value_errors_are_located_and_limited() {
        let l = Limits::default();
        // A duplicate key is not silently dropped: the fallback reports it.
        let e = read_value("{\"a\": 1,\n \"a\": 2}", &l).unwrap_err();
        assert_eq!(e.code, ErrorCode::Parse);
        assert_eq!(e.location.line, Some(2));
        let e = read_value("{\"a\": }", &l).unwrap_err();
        assert_eq!(e.code, ErrorCode::Parse);
        assert!(e.location.column.is_some());
        // Limits apply on the fast path too.
        let tight = Limits {
            max_depth: 3,
            ..Limits::default()
        };
        let e = read_value("[[[[1]]]]", &tight).unwrap_err();
        assert_eq!(e.limit.as_deref(), Some("maxDepth"));
        let tight = Limits {
            max_input_nodes: 3,
            ..Limits::default()
        };
        let e = read_value("[1,2,3,4]", &tight).unwrap_err();
        assert_eq!(e.limit.as_deref(), Some("maxInputNodes"));
        let tight = Limits {
            max_input_bytes: 4,
            ..Limits::default()
        };
        let e = read_value("[1,2,3]", &tight).unwrap_err();
        assert_eq!(e.limit.as_deref(), Some("maxInputBytes"));
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
            read_value(&deeper, &l).unwrap_err().limit.as_deref(),
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
        for bad in [
            "{\"kind\": \"Pod\"}",
            "{\"kind\": \"List\", \"items\": 3}",
            "3",
            "null",
        ] {
            assert_eq!(
                read_items(bad, &l).unwrap_err().code,
                ErrorCode::Usage,
                "{bad}"
            );
        }
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
