//! The YAML reader: granit-parser events, an iterative builder.

use super::document::SourceDocument;
use super::errors::{at_position, depth_error, nodes_error};
use super::path::{Segment, push_index_step, push_key_step};
use super::spans::SpanIndex;
use super::tree::{Style, clamp_u32};
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;
use serde_json::{Map, Number, Value};
use serde_saphyr::granit_parser::{
    self, ErrorKind, Event, Parser, ScalarStyle, ScanError, Span, Tag,
};
use std::collections::HashMap;

// ---------------------------------------------------------------------------
// YAML
// ---------------------------------------------------------------------------

/// Every document of a YAML text; with `extents`, indices that also record
/// where each value's text is.
pub(super) fn parse_yaml_with(
    text: &str,
    limits: &Limits,
    extents: bool,
) -> Result<Vec<SourceDocument>> {
    let mut stream = YamlStream::reading(text, limits, extents);
    let mut docs = Vec::new();
    while let Some(doc) = stream.next_document() {
        docs.push(doc?);
    }
    Ok(docs)
}

/// The documents of a YAML text, read one at a time: a caller that stops
/// (a budget breached by the first documents' work) never reads the rest.
pub(super) struct YamlStream<'a, 'l> {
    parser: Parser<'a, granit_parser::StrInput<'a>>,
    builder: YamlBuilder<'l>,
    ended: bool,
}

impl<'a, 'l> YamlStream<'a, 'l> {
    pub(super) fn new(text: &'a str, limits: &'l Limits) -> Self {
        Self::reading(text, limits, false)
    }

    /// A stream whose documents' indices also record where each value's
    /// text is (the source map's reading).
    pub(super) fn with_extents(text: &'a str, limits: &'l Limits) -> Self {
        Self::reading(text, limits, true)
    }

    fn reading(text: &'a str, limits: &'l Limits, extents: bool) -> Self {
        let mut options = granit_parser::Options::default();
        options.emit_comments = false;
        options.flow_nesting_limit = limits.max_depth;
        options.block_nesting_limit = limits.max_depth;
        YamlStream {
            parser: Parser::new_from_str_with_options(text, options),
            builder: YamlBuilder::new(limits, extents),
            ended: false,
        }
    }

    /// Read events up to the end of the next non-empty document (or of
    /// the text). An error ends the stream.
    pub(super) fn next_document(&mut self) -> Option<Result<SourceDocument>> {
        while !self.ended && self.builder.docs.is_empty() {
            match self.parser.next() {
                Some(Ok((event, span))) => {
                    if let Err(e) = self.builder.event(event, span) {
                        self.ended = true;
                        return Some(Err(e));
                    }
                }
                Some(Err(e)) => {
                    self.ended = true;
                    return Some(Err(self.builder.scan_error(&e)));
                }
                None => self.ended = true,
            }
        }
        if self.builder.docs.is_empty() {
            None
        } else {
            Some(Ok(self.builder.docs.remove(0)))
        }
    }
}

/// A completed anchored node.
pub(super) struct Anchored {
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

pub(super) enum PendingKey {
    Key(String, u32),
    Merge(u32),
}

pub(super) enum FrameKind {
    Seq(Vec<Value>),
    Map {
        map: Map<String, Value>,
        key: Option<PendingKey>,
        merges: Vec<Map<String, Value>>,
    },
}

/// One open sequence or mapping. Paths are not built while reading (a long
/// key above many values would be copied into every path below it): the
/// step from a frame to the value being read inside it is its current slot
/// (see [`YamlBuilder::slot_step`]), which does not change while that value
/// is open, so the path of any open value is the slots of the frames above
/// it, spelled out by [`YamlBuilder::slot_path`] when an error needs it.
pub(super) struct Frame {
    kind: FrameKind,
    node: u32,
    anchor: usize,
    nodes_at_start: usize,
    aliases_at_start: usize,
    bytes_at_start: usize,
    child_height: usize,
    /// Byte offset where the collection starts, whether it is a flow
    /// collection (`[`, `{`), and where its last value ends: its extent.
    start: usize,
    flow: bool,
    last_end: usize,
}

pub(super) struct YamlBuilder<'l> {
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
    /// Whether the indices record where each value's text is.
    extents: bool,
}

pub(super) fn position_of(span: &Span) -> (usize, usize) {
    (span.start.line(), span.start.col() + 1)
}

/// The byte range of a span (the parser reads a `str`, so it has one).
fn byte_range(span: &Span) -> (usize, usize) {
    span.byte_range().map_or((0, 0), |r| (r.start, r.end))
}

fn style_of(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
    }
}

impl<'l> YamlBuilder<'l> {
    fn new(limits: &'l Limits, extents: bool) -> Self {
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
            extents,
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
                        Error::limit_error(
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
                self.spans = if self.extents {
                    SpanIndex::with_extents()
                } else {
                    SpanIndex::new()
                };
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

    /// The step from `frame` to the value being read in it: the next index
    /// of a sequence, the pending key of a mapping (`<<` for a merge key,
    /// and when no key is pending).
    fn slot_step(frame: &Frame, out: &mut String) {
        match &frame.kind {
            FrameKind::Seq(items) => push_index_step(out, items.len()),
            FrameKind::Map {
                key: Some(PendingKey::Key(k, _)),
                ..
            } => push_key_step(out, k),
            FrameKind::Map { .. } => push_key_step(out, "<<"),
        }
    }

    /// Path of the innermost open sequence or mapping (the empty path, the
    /// root, when none is open), built in one pass: linear in its length.
    /// Only called for errors.
    fn top_path(&self) -> String {
        let mut out = String::new();
        let parents = self.stack.len().saturating_sub(1);
        for frame in self.stack.iter().take(parents) {
            Self::slot_step(frame, &mut out);
        }
        out
    }

    /// Path of the value about to be added (built in one pass, only for
    /// errors).
    fn slot_path(&self) -> String {
        let mut out = String::new();
        for frame in &self.stack {
            Self::slot_step(frame, &mut out);
        }
        out
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
                Error::limit_error(
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
                    let path = self.top_path();
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
        let node = self.slot_node(span);
        if self.extents {
            self.spans
                .set_value_extent(node, byte_range(span), style_of(style));
        }
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
        self.attach(value, 0, span, byte_range(span).1)
    }

    /// Use a resolved scalar as the pending key of the current mapping.
    fn set_key(&mut self, key: Value, span: &Span) -> Result<()> {
        let key = match key {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => {
                return Err(self.parse_error(
                    "a null mapping key is not supported (quote the key to make it a string)"
                        .to_string(),
                    span,
                    &self.top_path(),
                ));
            }
            Value::Array(_) | Value::Object(_) => {
                return Err(self.parse_error(
                    "complex mapping keys (a sequence or mapping used as a key) are not supported"
                        .to_string(),
                    span,
                    &self.top_path(),
                ));
            }
        };
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
            let mut path = self.top_path();
            push_key_step(&mut path, &key);
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
        if self.extents {
            self.spans.set_key_extent(node, byte_range(span));
        }
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
            let path = self.top_path();
            return Err(self.parse_error(
                "complex mapping keys (a sequence or mapping used as a key) are not supported"
                    .to_string(),
                span,
                &path,
            ));
        }
        if self.stack.len() + 1 > self.limits.max_depth {
            let path = self.slot_path();
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
        let (start, end) = byte_range(span);
        self.stack.push(Frame {
            kind,
            node,
            anchor,
            nodes_at_start: self.nodes,
            aliases_at_start: self.aliases,
            bytes_at_start: self.bytes,
            child_height: 0,
            start,
            flow: end > start,
            last_end: start,
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
        // A flow collection ends with its `]` or `}`; a block one with its
        // last value (its end event comes at the next token).
        let end = if frame.flow {
            byte_range(span).1
        } else {
            frame.last_end
        };
        if self.extents {
            self.spans
                .set_value_extent(frame.node, (frame.start, end), Style::Other);
        }
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
        self.attach(value, height, span, end)
    }

    fn alias(&mut self, id: usize, span: &Span) -> Result<()> {
        let Some(anchored) = self.anchors.get(&id) else {
            return Err(self.parse_error(
                "alias refers to an anchor that is not complete yet (recursive aliases are not supported)"
                    .to_string(),
                span,
                &self.slot_path(),
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
                Error::limit_error(
                    "maxYamlAliases",
                    format!(
                        "YAML alias expansions exceed the limit maxYamlAliases ({})",
                        self.limits.max_yaml_aliases
                    ),
                ),
                span,
                &self.slot_path(),
            ));
        }
        if self.stack.len() + height > self.limits.max_depth {
            return Err(self.error_at(depth_error(self.limits), span, &self.slot_path()));
        }
        self.count_bytes(bytes, span)?;
        let key_position = self.expecting_key();
        if !key_position {
            self.nodes = self.nodes.saturating_add(nodes);
            if self.nodes > self.limits.max_input_nodes {
                return Err(self.error_at(nodes_error(self.limits), span, &self.slot_path()));
            }
        }
        let value = match self.anchors.get(&id) {
            Some(a) => a.value.clone(),
            None => Value::Null,
        };
        if key_position {
            return self.set_key(value, span);
        }
        let node = self.slot_node(span);
        if self.extents {
            self.spans
                .set_value_extent(node, byte_range(span), Style::Other);
        }
        self.attach(value, height, span, byte_range(span).1)
    }

    /// Add a complete value (whose text ends at byte `end`) to the open
    /// collection, or make it the document's root.
    fn attach(&mut self, value: Value, height: usize, span: &Span, end: usize) -> Result<()> {
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(value);
            return Ok(());
        };
        top.child_height = top.child_height.max(height);
        top.last_end = top.last_end.max(end);
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
        // The merge key has been taken from the slot, so the slot path
        // ends in `<<`, as the merge key's own path does.
        let path = self.slot_path();
        Err(self.parse_error(
            "the merge key '<<' needs a mapping or a sequence of mappings".to_string(),
            span,
            &path,
        ))
    }
}

pub(super) fn is_null_text(text: &str) -> bool {
    matches!(text, "" | "~" | "null" | "Null" | "NULL")
}

pub(super) fn parse_bool(text: &str) -> Option<bool> {
    match text {
        "true" | "True" | "TRUE" => Some(true),
        "false" | "False" | "FALSE" => Some(false),
        _ => None,
    }
}

pub(super) fn is_special_float(text: &str) -> bool {
    let t = text.strip_prefix(['+', '-']).unwrap_or(text);
    matches!(t, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN")
}

pub(super) fn radix_value(digits: &str, radix: u32) -> Option<Value> {
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
pub(super) fn parse_int(text: &str) -> Option<Value> {
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
pub(super) fn is_float_syntax(text: &str) -> bool {
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

pub(super) fn float_value(text: &str) -> Result<Value, String> {
    match text.parse::<f64>().ok().and_then(Number::from_f64) {
        Some(n) => Ok(Value::Number(n)),
        None => Err(format!(
            "number {text} is out of range (not representable in JSON)"
        )),
    }
}

pub(super) fn not_representable(text: &str) -> String {
    format!("value {text} is not representable in JSON (infinity and NaN are not allowed)")
}

/// Resolve a scalar to a JSON value (see the module documentation).
pub(super) fn resolve_scalar(
    text: &str,
    style: ScalarStyle,
    tag: Option<&Tag>,
) -> Result<Value, String> {
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
