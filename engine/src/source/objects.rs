//! The one reader of "one or many objects".
//!
//! Every input that may hold several objects (workloads to describe, pods,
//! definition files) is read here, by the same rules, in every runtime:
//!
//! - each non-empty YAML document (or the one JSON document) is an object;
//! - a document that is an array (what `kubectl get pods -o json | jq .items`
//!   prints) gives its elements;
//! - a list document, whose `kind` ends in `List` and which has an `items`
//!   array (`kind: List`, `PodList`, `JobSetList`, `KartaList`, ...), gives its
//!   items; a typed list's item without `kind`/`apiVersion` (as the API
//!   server returns them) gets them from the list (`PodList` -> `Pod`);
//! - a `List`, `KartaList` or `ResourceInterfaceList` document without an
//!   `items` array is malformed.
//!
//! Each item keeps where it came from (document, field prefix such as
//! `items[2]` or `[2]`, and its positions), so errors about it are located in
//! the text.

use std::rc::Rc;

use serde_json::Value;

use super::document::SourceDocument;
use super::path::path_push_index;
use super::read::{parse_documents, read_value_fast};
use super::spans::SpanIndex;
use crate::error::{Error, ErrorCode, Location, Result};
use crate::limits::Limits;

/// List kinds that must carry an `items` array.
const STRICT_LIST_KINDS: [&str; 3] = ["List", "KartaList", "ResourceInterfaceList"];

/// One object read from a text that may hold several.
#[derive(Debug, Clone)]
pub(crate) struct SourceItem {
    /// The object.
    pub value: Value,
    /// Index of its document, when the text has several (or it is not the
    /// first).
    pub document: Option<usize>,
    /// Its field path inside the document (`items[2]`, `[2]`), when it is an
    /// item of a list or array.
    pub prefix: Option<String>,
    /// Positions of its fields, relative to the item.
    pub spans: SpanIndex,
    /// Positions of the whole document (shared by its items).
    pub doc_spans: Rc<SpanIndex>,
}

impl SourceItem {
    /// Make a location found inside the item (relative field, no position)
    /// relative to the document, with line and column.
    pub(crate) fn locate(&self, loc: &mut Location) {
        if loc.line.is_none() {
            self.spans.locate(loc);
        }
        if let Some(prefix) = &self.prefix {
            loc.field = Some(match loc.field.take() {
                Some(f) if f.starts_with('[') => format!("{prefix}{f}"),
                Some(f) if !f.is_empty() => format!("{prefix}.{f}"),
                _ => prefix.clone(),
            });
            if loc.line.is_none() {
                self.doc_spans.locate(loc);
            }
        }
        if loc.document.is_none() {
            loc.document = self.document;
        }
    }
}

/// A malformed list document: the items could not be taken.
#[derive(Debug, Clone)]
pub(crate) struct MalformedList {
    pub document: Option<usize>,
    pub error: Error,
}

/// Either an item or a malformed list, in text order.
pub(crate) type Split = std::result::Result<SourceItem, MalformedList>;

/// Split parsed documents into items, by the rules of the module.
pub(crate) fn split(docs: Vec<SourceDocument>) -> Vec<Split> {
    let several = docs.len() > 1;
    let mut out = Vec::new();
    for doc in docs {
        split_into(doc, several, &mut out);
    }
    out
}

/// Split one document of a text (`several`: the text has more than one)
/// into items, appended to `out`.
pub(crate) fn split_into(doc: SourceDocument, several: bool, out: &mut Vec<Split>) {
    {
        let document = (several || doc.document > 0).then_some(doc.document);
        let SourceDocument { value, spans, .. } = doc;
        match value {
            Value::Array(items) => {
                let item_spans = spans.element_subtrees("", items.len());
                let doc_spans = Rc::new(spans);
                for ((i, value), spans) in items.into_iter().enumerate().zip(item_spans) {
                    out.push(Ok(SourceItem {
                        value,
                        document,
                        spans,
                        prefix: Some(format!("[{i}]")),
                        doc_spans: doc_spans.clone(),
                    }));
                }
            }
            Value::Object(mut obj) => {
                let kind = obj
                    .get("kind")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                if is_list_object(&obj) {
                    let item_kind = kind.strip_suffix("List").unwrap_or_default().to_string();
                    let api_version = obj
                        .get("apiVersion")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    let Some(Value::Array(items)) = obj.remove("items") else {
                        return;
                    };
                    let item_spans = spans.element_subtrees("items", items.len());
                    let doc_spans = Rc::new(spans);
                    for ((i, mut value), spans) in items.into_iter().enumerate().zip(item_spans) {
                        // `kubectl get -o yaml` fills these in; the API
                        // server's typed lists (`JobSetList`) do not.
                        if let (Value::Object(o), false) = (&mut value, item_kind.is_empty()) {
                            if !o.contains_key("kind") {
                                o.insert("kind".into(), Value::String(item_kind.clone()));
                            }
                            if let (false, Some(av)) = (o.contains_key("apiVersion"), &api_version)
                            {
                                o.insert("apiVersion".into(), Value::String(av.clone()));
                            }
                        }
                        out.push(Ok(SourceItem {
                            value,
                            document,
                            spans,
                            prefix: Some(path_push_index("items", i)),
                            doc_spans: doc_spans.clone(),
                        }));
                    }
                } else if STRICT_LIST_KINDS.contains(&kind.as_str()) {
                    let message = match obj.get("items") {
                        None | Some(Value::Null) => {
                            format!("a {kind} document must have an 'items' list")
                        }
                        Some(other) => format!(
                            "a {kind} document must have an 'items' list, found {}",
                            type_name(other)
                        ),
                    };
                    let mut loc = Location {
                        field: Some("items".into()),
                        document,
                        ..Location::default()
                    };
                    spans.locate(&mut loc);
                    let error = Error::new(ErrorCode::Parse, message).at(loc);
                    out.push(Err(MalformedList { document, error }));
                } else {
                    out.push(Ok(whole(Value::Object(obj), document, spans)));
                }
            }
            value => out.push(Ok(whole(value, document, spans))),
        }
    }
}

/// A list document: a `kind` ending in `List` and an `items` array.
fn is_list_object(obj: &serde_json::Map<String, Value>) -> bool {
    let kind = obj.get("kind").and_then(Value::as_str).unwrap_or_default();
    kind.ends_with("List") && matches!(obj.get("items"), Some(Value::Array(_)))
}

/// A document that is one object: its own positions are the document's.
fn whole(value: Value, document: Option<usize>, spans: SpanIndex) -> SourceItem {
    SourceItem {
        value,
        document,
        prefix: None,
        // Never consulted without a prefix.
        doc_spans: Rc::new(SpanIndex::new()),
        spans,
    }
}

/// The name of a JSON value's type, for messages (`a map`, `a list`).
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// How a text held its objects (see [`read_input`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputShape {
    /// No document at all (an empty text, only comments, only `null`s).
    Empty,
    /// One document that is one object (or any value that is neither a list
    /// document nor an array).
    Object,
    /// One list document: a `kind` ending in `List` (`List`, `PodList`,
    /// `JobSetList`, ...) and an `items` array.
    List,
    /// One document that is an array.
    Array,
    /// Several documents, whatever each holds.
    Documents,
}

impl InputShape {
    /// True unless the text was one object: a collection of objects (of
    /// zero, one or more), which a front end shows as such (a label on each
    /// object, a JSON array even of one).
    pub fn is_collection(self) -> bool {
        self != InputShape::Object
    }
}

/// The objects of a text and how the text held them (see [`read_input`]).
#[derive(Debug, Clone, PartialEq)]
pub struct InputObjects {
    /// Every object, in text order (what [`read_objects`] gives).
    pub objects: Vec<Value>,
    /// Whether the text was one object, a list, an array or several
    /// documents.
    pub shape: InputShape,
}

/// The shape of a text of these (non-empty) documents.
fn shape_of(docs: &[SourceDocument]) -> InputShape {
    match docs {
        [] => InputShape::Empty,
        [doc] => match &doc.value {
            Value::Array(_) => InputShape::Array,
            Value::Object(obj) if is_list_object(obj) => InputShape::List,
            _ => InputShape::Object,
        },
        _ => InputShape::Documents,
    }
}

/// Read every object of a YAML/JSON text by the rules of the module, with
/// the shape of the text; a malformed list document is an error. The text
/// may also be JSON written by a program: it is read with `serde_json`
/// first (see [`super::read::read_value`]), positions come from the located
/// reader when it fails.
pub(crate) fn read_input(text: &str, limits: &Limits) -> Result<InputObjects> {
    let docs = match read_value_fast(text, limits)? {
        Some(value) => vec![SourceDocument::unlocated(value)],
        None => parse_documents(text, limits)?,
    };
    let shape = shape_of(&docs);
    let objects = split(docs)
        .into_iter()
        .map(|s| s.map(|i| i.value).map_err(|m| m.error))
        .collect::<Result<_>>()?;
    Ok(InputObjects { objects, shape })
}

/// Read every object of a YAML/JSON text by the rules of the module: the
/// objects of [`read_input`], without the shape.
pub fn read_objects(text: &str, limits: &Limits) -> Result<Vec<Value>> {
    read_input(text, limits).map(|i| i.objects)
}

/// The objects of one value by the rules of the module (an array gives its
/// elements, a list object its items, anything else is one object): what
/// [`read_objects`] gives for the value's JSON text.
pub fn objects_of_value(value: Value) -> Result<Vec<Value>> {
    split(vec![SourceDocument::unlocated(value)])
        .into_iter()
        .map(|s| s.map(|i| i.value).map_err(|m| m.error))
        .collect()
}

/// The objects of several inputs (the pages of a list response, list
/// objects, objects), read one input at a time and added up. Each input is
/// read within the input limits; what they hold together is bounded by
/// `maxClusterBytes`, as the pages a cluster session keeps are: each object
/// is charged its size as compact JSON as it is added, and the first one
/// past the limit is a `limit` error. So a caller that takes its inputs
/// from a stream (a generator of pages) stops the stream there, whatever
/// its length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectsOfInputs {
    objects: Vec<Value>,
    bytes: usize,
    inputs: usize,
}

impl ObjectsOfInputs {
    /// None read yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add the objects of the next input (see [`read_objects`] and
    /// [`objects_of_value`]), charging them to `limits.max_cluster_bytes`.
    pub fn add(&mut self, objects: Vec<Value>, limits: &Limits) -> Result<()> {
        self.inputs += 1;
        for o in &objects {
            self.charge(json_bytes(o), limits)?;
        }
        self.objects.extend(objects);
        Ok(())
    }

    /// Add the objects of another reading (already counted), as if its
    /// inputs came next.
    pub fn append(&mut self, other: ObjectsOfInputs, limits: &Limits) -> Result<()> {
        self.inputs += other.inputs;
        self.charge(other.bytes, limits)?;
        self.objects.extend(other.objects);
        Ok(())
    }

    fn charge(&mut self, bytes: usize, limits: &Limits) -> Result<()> {
        let limit = limits.max_cluster_bytes;
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes <= limit {
            return Ok(());
        }
        Err(Error::limit_error(
            "maxClusterBytes",
            format!(
                "the inputs hold more than the limit maxClusterBytes ({limit} bytes as compact \
                 JSON) of objects, added up over every input (input {} went over)",
                self.inputs
            ),
        ))
    }

    /// How many inputs were added.
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// The objects' size as compact JSON, added up.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Every object, in input order.
    pub fn into_objects(self) -> Vec<Value> {
        self.objects
    }
}

/// The size of `v` as compact JSON, without building the text.
pub(crate) fn json_bytes<T: serde::Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut n = Count(0);
    // Writing to a counter cannot fail, nor can serializing a JSON value.
    let _ = serde_json::to_writer(&mut n, v);
    n.0
}

/// Read a list of objects (pods): every object of the text by the rules of
/// [`read_objects`] (documents, arrays, `List` objects).
pub fn read_items(text: &str, limits: &Limits) -> Result<Vec<Value>> {
    read_objects(text, limits)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
