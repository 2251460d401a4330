//! Where things are in a YAML/JSON text: the source map ([`source_map`]).
//!
//! An editor that shows an engine's answer in the text it came from (a
//! finding about a definition field, an error about a pod, the pod template
//! of a component) asks here, instead of reading the text again with rules
//! of its own: the text is read once by the engine's reader, which records
//! where each value's text is, and the answer names every object of the
//! text (by the rules of [`super::read_objects`]) and every place asked for,
//! with line, column and byte offset.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::document::SourceDocument;
use super::objects::{Split, split_into};
use super::path::{Segment, parse_path, push_step};
use super::read::document_stream_with_extents;
use super::scalar::source_range;
use super::spans::SpanIndex;
use super::tree::{Built, Extent};
use crate::budget;
use crate::error::Result;
use crate::limits::Limits;

/// A position in a text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TextPosition {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters (as [`crate::Location::column`]).
    pub column: usize,
    /// 0-based byte offset in the text (UTF-8).
    pub offset: usize,
}

/// A range of a text, `[start, end)`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TextSpan {
    /// Where it starts.
    pub start: TextPosition,
    /// Just after its last character.
    pub end: TextPosition,
}

impl TextSpan {
    /// A span of byte offsets (lines and columns are filled in once, for
    /// every span of a map).
    fn bytes(start: usize, end: usize) -> Self {
        let at = |offset| TextPosition {
            offset,
            ..TextPosition::default()
        };
        TextSpan {
            start: at(start),
            end: at(end.max(start)),
        }
    }
}

/// One question to a source map: where a value is.
///
/// The path is written in the engine's spelling
/// (`spec.containers[0].resources.requests["nvidia.com/gpu"]`), from:
///
/// - the root of document `document` (the index in the text counting empty
///   documents, as [`crate::Location::document`]; by default the text's
///   first document): a definition field of a finding or an error;
/// - or, with `object`, the root of that object of the text (the index in
///   [`SourceMap::objects`]): a path in a pod or a workload;
/// - or, with `component` (and `instance` for a component with several),
///   the pod template of that component instance in the object (`object`,
///   0 by default), as resolve's errors name pod fields (`spec.containers[0]
///   .resources.requests.cpu` in the template, a pod spec or pod metadata
///   the definition points at). Needs a definition
///   ([`crate::CompiledDefinition::source_map`], [`crate::Engine::source_map`]).
///
/// A bare string is the path of a question about the first document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceQuery {
    /// The document the path starts from (when `object` is not given).
    pub document: Option<usize>,
    /// The object the path starts from.
    pub object: Option<usize>,
    /// The component whose pod template the path starts from.
    pub component: Option<String>,
    /// The component's instance (`None` for a component of one instance).
    pub instance: Option<String>,
    /// The path.
    pub path: String,
    /// A byte range `[start, end)` of the string value at the path (a jq
    /// expression's [`crate::Location::span`]): the answer says where it is
    /// in the text ([`SourcePlace::span`]).
    pub span: Option<[usize; 2]>,
    /// The text `span` is a range of ([`crate::Location::expression`]):
    /// when given, the span is answered only if the string value at the
    /// path is this text (a definition read in another format may name a
    /// field whose text is not the expression as compiled).
    pub expression: Option<String>,
    /// When the path is not in the text, answer with its nearest ancestor
    /// that is ([`SourcePlace::exact`] is then false).
    pub nearest: bool,
}

impl SourceQuery {
    /// A question about `path` in the text's first document.
    pub fn path(path: impl Into<String>) -> Self {
        SourceQuery {
            path: path.into(),
            ..SourceQuery::default()
        }
    }
}

/// A question read from JSON: a path, or an object of the fields above
/// (camelCase; an unknown field is an error). Read by hand from a JSON
/// value: derived readers (an untagged enum, a struct read from a value)
/// cost the WebAssembly module more than the rest of the source map.
impl<'de> Deserialize<'de> for SourceQuery {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        query_of(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

fn query_of(v: Value) -> std::result::Result<SourceQuery, String> {
    let fields = match v {
        Value::String(path) => return Ok(SourceQuery::path(path)),
        Value::Object(fields) => fields,
        other => {
            let t = super::type_name(&other);
            return Err(format!("a question is a path or an object, not {t}"));
        }
    };
    let index = |v: &Value| v.as_u64().and_then(|n| usize::try_from(n).ok());
    let mut q = SourceQuery::default();
    for (name, v) in fields {
        let ok = match (name.as_str(), v) {
            (_, Value::Null) => true,
            ("path", Value::String(s)) => {
                q.path = s;
                true
            }
            ("document", v) => {
                q.document = index(&v);
                q.document.is_some()
            }
            ("object", v) => {
                q.object = index(&v);
                q.object.is_some()
            }
            ("component", Value::String(s)) => {
                q.component = Some(s);
                true
            }
            ("instance", Value::String(s)) => {
                q.instance = Some(s);
                true
            }
            ("expression", Value::String(s)) => {
                q.expression = Some(s);
                true
            }
            ("nearest", Value::Bool(b)) => {
                q.nearest = b;
                true
            }
            ("span", Value::Array(a)) => {
                q.span = match a.as_slice() {
                    [start, end] => index(start).zip(index(end)).map(|(s, e)| [s, e]),
                    _ => None,
                };
                q.span.is_some()
            }
            ("path" | "component" | "instance" | "expression" | "nearest" | "span", _) => false,
            (other, _) => {
                return Err(format!(
                    "unknown field `{other}` of a question, expected one of `path`, `document`, `object`, `component`, `instance`, `span`, `expression`, `nearest`"
                ));
            }
        };
        if !ok {
            return Err(format!(
                "the field `{name}` of a question must be {}",
                match name.as_str() {
                    "document" | "object" => "an index (a non-negative integer)",
                    "span" => "a byte range [start, end]",
                    "nearest" => "a boolean",
                    _ => "a string",
                }
            ));
        }
    }
    Ok(q)
}

/// Where a value is: the answer to a [`SourceQuery`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SourcePlace {
    /// The document (index in the text, counting empty documents).
    pub document: usize,
    /// The path of the value from the document's root (for a question
    /// about an object or a pod template: the whole path).
    pub path: String,
    /// False when the path asked for is not in the text and this is its
    /// nearest ancestor that is (a question with `nearest`).
    pub exact: bool,
    /// The key of a mapping entry, as written (with its quotes); absent for
    /// the root and for sequence elements.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<TextSpan>,
    /// The value, as written (a string with its quotes; a block scalar
    /// from its first line of content; a block collection from its first
    /// key or item to the end of its last value).
    pub value: TextSpan,
    /// The text of the byte range asked for (`span`) of the string value.
    /// Absent when none was asked for, the value is not a string, or its
    /// written form is one the engine does not follow back (a block scalar
    /// with an indentation indicator).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<TextSpan>,
}

/// Which part of a pod template a definition's expression points at (see
/// [`PodTemplatePlace`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum TemplatePart {
    /// The whole pod template (`podTemplateSpecPath`).
    Template,
    /// The pod spec (`podSpecPath`).
    Spec,
    /// The pod metadata (`metadataPath`).
    Metadata,
    /// One fragment of a fragmented pod spec
    /// (`fragmentedPodSpecDefinition`).
    Fragment,
}

/// Where a component instance's pod template (or a part of it) is in the
/// object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PodTemplatePlace {
    /// The component.
    pub component: String,
    /// The instance id (absent for a component of one instance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The definition field whose expression points here
    /// (`spec.structureDefinition.childComponents[0].specDefinition.podTemplateSpecPath`).
    pub field: String,
    /// Which part of the pod template it is.
    pub part: TemplatePart,
    /// The path from the document's root.
    pub path: String,
    /// The key, as written (absent for a sequence element).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<TextSpan>,
    /// The value, as written.
    pub value: TextSpan,
}

/// One object of the text (a document, an item of a list document, an
/// element of an array), in the order the engine reads objects
/// (`read_objects`: pods, workloads, definitions).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SourceObject {
    /// The document (index in the text, counting empty documents).
    pub document: usize,
    /// The object's path in its document: `""` for the whole document,
    /// `items[2]` for an item of a list, `[2]` for an element of an array.
    pub path: String,
    /// Where the object is.
    pub value: TextSpan,
    /// With a definition that covers the object: where each component
    /// instance's pod template (or its parts) is, for each expression of
    /// the definition that is a path in the object. Empty otherwise.
    pub pod_templates: Vec<PodTemplatePlace>,
}

/// Where things are in a text: every object, and the answer to every
/// question, in the order asked (see [`source_map`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SourceMap {
    /// Every object of the text, in order.
    pub objects: Vec<SourceObject>,
    /// One answer per question, in the order asked: `null` when the path
    /// is not in the text (or does not parse, or names an object or a
    /// pod template there is not).
    pub places: Vec<Option<SourcePlace>>,
}

/// A part of a pod template in an object: what the definition-aware
/// source maps add (made by `crate::pods`).
#[derive(Debug, Clone)]
pub(crate) struct TemplatePath {
    pub component: String,
    pub instance: Option<String>,
    pub field: String,
    pub part: TemplatePart,
    /// From the object's root.
    pub path: Vec<Segment>,
}

/// The pod template parts of an object (`None`: no definition covers it).
pub(crate) type TemplatesOf<'a> = &'a dyn Fn(&Value) -> Result<Option<Vec<TemplatePath>>>;

/// Where things are in a YAML/JSON text, read within `limits`: every object
/// of the text (documents, items of list documents, elements of arrays)
/// and the answer to each question.
///
/// Bounds: the text is read by the engine's reader within the limits
/// (`maxInputBytes`, `maxDocuments`, `maxInputNodes`, `maxDepth`, ...);
/// what it records of each value (its key's and value's byte ranges) is
/// charged to `maxMemoryBytes`, and each question, object and followed
/// string value to `maxSteps`, so the call stops with a `limit` error at
/// the same point in every runtime. A text that does not parse is the
/// reader's `parse` error; a path that is not in the text is a `null`
/// answer, not an error.
///
/// ```
/// use workload_lens::source::{SourceQuery, source_map};
/// use workload_lens::Limits;
///
/// let text = "kind: Pod\nspec:\n  containers:\n  - name: main\n    image: 'busybox'\n";
/// let map = source_map(text, &[SourceQuery::path("spec.containers[0].image")], &Limits::default())?;
/// let place = map.places[0].as_ref().unwrap();
/// assert_eq!((place.value.start.line, place.value.start.column), (5, 12));
/// assert_eq!(&text[place.value.start.offset..place.value.end.offset], "'busybox'");
/// assert_eq!(map.objects.len(), 1);
/// # Ok::<(), workload_lens::Error>(())
/// ```
pub fn source_map(text: &str, queries: &[SourceQuery], limits: &Limits) -> Result<SourceMap> {
    source_map_with(text, queries, limits, None)
}

/// [`source_map`], with the pod templates of the objects a definition
/// covers.
pub(crate) fn source_map_with(
    text: &str,
    queries: &[SourceQuery],
    limits: &Limits,
    templates: Option<TemplatesOf<'_>>,
) -> Result<SourceMap> {
    let limits = limits.effective();
    let _call = budget::Call::enter(&limits);
    budget::steps(queries.len() as u64)?;
    let mut map = SourceMap {
        objects: Vec::new(),
        places: vec![None; queries.len()],
    };
    // The questions by what they start from, sorted: documents and objects
    // come in order, so each question is looked at once, however many
    // documents and objects the text has (`(document or object, question)`).
    let mut about_first = Vec::new();
    let mut about_documents: Vec<(usize, usize)> = Vec::new();
    let mut about_objects: Vec<(usize, usize)> = Vec::new();
    for (i, q) in queries.iter().enumerate() {
        match (&q.component, q.object, q.document) {
            (Some(_), o, _) => about_objects.push((o.unwrap_or(0), i)),
            (None, Some(o), _) => about_objects.push((o, i)),
            (None, None, Some(d)) => about_documents.push((d, i)),
            (None, None, None) => about_first.push(i),
        }
    }
    sort_pairs(&mut about_documents);
    sort_pairs(&mut about_objects);
    let mut documents = Asked::new(&about_documents);
    let mut objects = Asked::new(&about_objects);
    let mut object_index = 0usize;
    let mut first = None;
    for next in document_stream_with_extents(text, &limits)? {
        let (doc, several) = next?;
        let nodes = doc.spans.built().map_or(0, Built::nodes);
        budget::memory(nodes.saturating_mul(std::mem::size_of::<Extent>()))?;
        let mut ids = documents.about(doc.document);
        if first.is_none() {
            first = Some(doc.document);
            ids.append(&mut about_first);
        }
        answer_document(text, &doc, &ids, queries, &mut map)?;
        let document = doc.document;
        let mut items: Vec<Split> = Vec::new();
        split_into(doc, several, &mut items);
        for item in items.into_iter().flatten() {
            budget::steps(1)?;
            let index = if item.prefix.is_some() {
                &*item.doc_spans
            } else {
                &item.spans
            };
            let root = match &item.prefix {
                Some(p) => parse_path(p).0,
                None => Vec::new(),
            };
            // An item always has a place: its own, or, brought by an alias
            // (`items: *list`), the alias's.
            let Some(found) = Found::at(index, &root, true) else {
                continue;
            };
            let parts = match templates {
                Some(of) => of(&item.value)?.unwrap_or_default(),
                None => Vec::new(),
            };
            let object = Object {
                text,
                index,
                document,
                root: &root,
                value: &item.value,
                parts: &parts,
            };
            let pod_templates = parts
                .iter()
                .filter_map(|p| object.template_place(p))
                .collect();
            for i in objects.about(object_index) {
                if let (Some(q), Some(slot)) = (queries.get(i), map.places.get_mut(i)) {
                    *slot = object.answer(q)?;
                }
            }
            map.objects.push(SourceObject {
                document,
                path: path_string(&root),
                value: found.value_span(text),
                pod_templates,
            });
            object_index += 1;
        }
    }
    fill_positions(text, &mut map)?;
    Ok(map)
}

/// Sort pairs in place: a heap sort, a few lines of code where the
/// standard library's sorts would cost the WebAssembly module kilobytes.
fn sort_pairs(v: &mut [(usize, usize)]) {
    fn sift(v: &mut [(usize, usize)], mut root: usize, end: usize) {
        loop {
            let mut child = 2 * root + 1;
            if child >= end {
                return;
            }
            if child + 1 < end && v[child] < v[child + 1] {
                child += 1;
            }
            if v[root] >= v[child] {
                return;
            }
            v.swap(root, child);
            root = child;
        }
    }
    for start in (0..v.len() / 2).rev() {
        sift(v, start, v.len());
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift(v, 0, end);
    }
}

/// Questions sorted by what they start from, taken in that order.
struct Asked<'a> {
    sorted: &'a [(usize, usize)],
    next: usize,
}

impl<'a> Asked<'a> {
    fn new(sorted: &'a [(usize, usize)]) -> Self {
        Asked { sorted, next: 0 }
    }

    /// The questions about `at` (documents and objects are asked for in
    /// increasing order; those skipped have no answer).
    fn about(&mut self, at: usize) -> Vec<usize> {
        let mut ids = Vec::new();
        while let Some(&(about, i)) = self.sorted.get(self.next) {
            if about > at {
                break;
            }
            self.next += 1;
            if about == at {
                ids.push(i);
            }
        }
        ids
    }
}

/// Answer the questions `ids` (of `queries`), about the document itself.
fn answer_document(
    text: &str,
    doc: &SourceDocument,
    ids: &[usize],
    queries: &[SourceQuery],
    map: &mut SourceMap,
) -> Result<()> {
    for &i in ids {
        let (Some(q), Some(slot)) = (queries.get(i), map.places.get_mut(i)) else {
            continue;
        };
        budget::steps(1 + budget::byte_steps(q.path.len()))?;
        let (segments, complete) = parse_path(&q.path);
        if !complete {
            continue;
        }
        *slot = place(
            text,
            &doc.spans,
            doc.document,
            &doc.value,
            &[],
            &segments,
            q,
        )?;
    }
    Ok(())
}

/// One object of the text, to answer questions about.
struct Object<'a> {
    text: &'a str,
    index: &'a SpanIndex,
    document: usize,
    /// The object's path in its document.
    root: &'a [Segment],
    value: &'a Value,
    parts: &'a [TemplatePath],
}

impl Object<'_> {
    fn answer(&self, q: &SourceQuery) -> Result<Option<SourcePlace>> {
        budget::steps(1 + budget::byte_steps(q.path.len()))?;
        let (segments, complete) = parse_path(&q.path);
        if !complete {
            return Ok(None);
        }
        let relative = match &q.component {
            None => segments,
            Some(c) => match template_path(self.parts, c, q.instance.as_deref(), &segments) {
                Some(p) => p,
                None => return Ok(None),
            },
        };
        place(
            self.text,
            self.index,
            self.document,
            self.value,
            self.root,
            &relative,
            q,
        )
    }

    fn template_place(&self, part: &TemplatePath) -> Option<PodTemplatePlace> {
        let full: Vec<Segment> = self.root.iter().chain(&part.path).cloned().collect();
        let found = Found::at(self.index, &full, false)?;
        Some(PodTemplatePlace {
            component: part.component.clone(),
            instance: part.instance.clone(),
            field: part.field.clone(),
            part: part.part,
            path: path_string(&full),
            key: found.key_span(),
            value: found.value_span(self.text),
        })
    }
}

/// The path in the object of `relative`, a path in the pod template of a
/// component instance as resolve's errors spell it: `metadata...` in the
/// pod metadata the definition points at, `spec...` in its pod spec, else
/// in its pod template. `None` when the definition gives no such part (a
/// fragmented pod spec is assembled from several places).
fn template_path(
    parts: &[TemplatePath],
    component: &str,
    instance: Option<&str>,
    relative: &[Segment],
) -> Option<Vec<Segment>> {
    let mine = |part: TemplatePart| {
        parts.iter().find(|p| {
            p.part == part && p.component == component && p.instance.as_deref() == instance
        })
    };
    let first = match relative.first() {
        Some(Segment::Key(k)) => Some(&**k),
        _ => None,
    };
    let (base, rest) = match (
        first,
        mine(TemplatePart::Metadata),
        mine(TemplatePart::Spec),
    ) {
        (Some("metadata"), Some(m), _) => (m, relative.get(1..)?),
        (Some("spec"), _, Some(s)) => (s, relative.get(1..)?),
        _ => (mine(TemplatePart::Template)?, relative),
    };
    Some(base.path.iter().chain(rest).cloned().collect())
}

/// The place of `root` + `relative` in a document (`value` is the value
/// at `root`: the string a span is in).
fn place(
    text: &str,
    index: &SpanIndex,
    document: usize,
    value: &Value,
    root: &[Segment],
    relative: &[Segment],
    q: &SourceQuery,
) -> Result<Option<SourcePlace>> {
    let full: Vec<Segment> = root.iter().chain(relative).cloned().collect();
    let Some(found) = Found::at(index, &full, q.nearest) else {
        return Ok(None);
    };
    if found.steps < root.len() {
        // Not even the object is there.
        return Ok(None);
    }
    let exact = found.steps == full.len();
    let span = match (q.span, exact, value_at(value, relative)) {
        (Some(span), true, Some(Value::String(s)))
            if q.expression.as_deref().is_none_or(|e| e == s) =>
        {
            let (start, end) = found.value;
            budget::steps(1 + budget::byte_steps(end - start))?;
            let source = text.get(start..end).unwrap_or("");
            let indent = start - line_start(text, start);
            source_range(source, indent, found.style, s, span)
                .map(|(a, b)| TextSpan::bytes(start + a, start + b))
        }
        _ => None,
    };
    Ok(Some(SourcePlace {
        document,
        path: path_string(full.get(..found.steps).unwrap_or(&full)),
        exact,
        key: found.key_span(),
        value: found.value_span(text),
        span,
    }))
}

/// A node of an index and where its text is.
struct Found {
    /// Steps of the path that lead to it.
    steps: usize,
    key: Option<(usize, usize)>,
    value: (usize, usize),
    style: super::tree::Style,
}

impl Found {
    /// The node at `path` (with `nearest`: or its nearest ancestor in the
    /// text), when the index records where it is.
    fn at(index: &SpanIndex, path: &[Segment], nearest: bool) -> Option<Found> {
        let built = index.built()?;
        if !built.has_extents() || !built.has_nodes() {
            return None;
        }
        let (node, steps) = built.deepest_from(0, path);
        if steps < path.len() && !nearest {
            return None;
        }
        let Extent { key, value, style } = built.extent(node)?;
        let widen = |(a, b): (u32, u32)| (a as usize, b as usize);
        Some(Found {
            steps,
            key: key.map(widen),
            value: widen(value?),
            style,
        })
    }

    fn key_span(&self) -> Option<TextSpan> {
        self.key.map(|(a, b)| TextSpan::bytes(a, b))
    }

    /// The value's range, without the blank lines and indentation a block
    /// value's text ends with (the reader's range runs to the next token).
    fn value_span(&self, text: &str) -> TextSpan {
        let (start, mut end) = self.value;
        let bytes = text.as_bytes();
        while end > start && matches!(bytes.get(end - 1), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            end -= 1;
        }
        TextSpan::bytes(start, end)
    }
}

/// The value at `path` from `v`.
fn value_at<'v>(mut v: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    for s in path {
        v = match (s, v) {
            (Segment::Key(k), Value::Object(o)) => o.get(&**k)?,
            (Segment::Index(i), Value::Array(a)) => a.get(*i)?,
            _ => return None,
        };
    }
    Some(v)
}

fn path_string(path: &[Segment]) -> String {
    let mut out = String::new();
    for s in path {
        push_step(&mut out, s);
    }
    out
}

/// The byte offset where the line of `offset` starts.
fn line_start(text: &str, offset: usize) -> usize {
    let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
    memchr::memrchr(b'\n', before).map_or(0, |n| n + 1)
}

/// Every position of the map, each as a line and a column too: the offsets
/// sorted, then one pass over the text (linear in the text and the number
/// of positions, however long its lines).
fn fill_positions(text: &str, map: &mut SourceMap) -> Result<()> {
    let mut spans: Vec<&mut TextSpan> = Vec::new();
    for o in &mut map.objects {
        spans.push(&mut o.value);
        for t in &mut o.pod_templates {
            spans.push(&mut t.value);
            spans.extend(t.key.as_mut());
        }
    }
    for p in map.places.iter_mut().flatten() {
        spans.push(&mut p.value);
        spans.extend(p.key.as_mut());
        spans.extend(p.span.as_mut());
    }
    let mut positions: Vec<&mut TextPosition> = spans
        .into_iter()
        .flat_map(|s| [&mut s.start, &mut s.end])
        .collect();
    budget::steps(positions.len() as u64 + budget::byte_steps(text.len()))?;
    positions.sort_unstable_by_key(|p| p.offset);
    let bytes = text.as_bytes();
    // The cursor: a byte offset and its line and column.
    let (mut at, mut line, mut column) = (0usize, 1usize, 1usize);
    for p in positions {
        let mut target = p.offset.min(text.len());
        while target > 0 && !text.is_char_boundary(target) {
            target -= 1;
        }
        let part = bytes.get(at..target).unwrap_or_default();
        match memchr::memrchr(b'\n', part) {
            Some(last) => {
                line += memchr::memchr_iter(b'\n', part).count();
                column = 1 + chars(&part[last + 1..]);
            }
            None => column += chars(part),
        }
        at = target;
        *p = TextPosition {
            line,
            column,
            offset: target,
        };
    }
    Ok(())
}

/// Characters in UTF-8 bytes (those that do not continue one).
fn chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_are_sorted() {
        for n in [0usize, 1, 2, 3, 7, 64, 1000] {
            let mut v: Vec<(usize, usize)> = (0..n).map(|i| ((i * 7919) % 13, n - i)).collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_pairs(&mut v);
            assert_eq!(v, want, "{n}");
        }
    }
}
