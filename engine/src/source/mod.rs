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
//!
//! [`ErrorCode::Limit`]: crate::ErrorCode::Limit
//! [`ErrorCode::Parse`]: crate::ErrorCode::Parse
//! [`Limits::max_depth`]: crate::Limits::max_depth
//! [`Limits::max_documents`]: crate::Limits::max_documents
//! [`Limits::max_input_bytes`]: crate::Limits::max_input_bytes
//! [`Limits::max_input_nodes`]: crate::Limits::max_input_nodes
//! [`Limits::max_yaml_aliases`]: crate::Limits::max_yaml_aliases

mod document;
mod errors;
mod json;
mod map;
mod objects;
pub(crate) mod path;
mod read;
mod scalar;
mod scan;
mod spans;
mod tree;
mod yaml;

pub use document::SourceDocument;
pub(crate) use json::TextShape;
pub(crate) use json::check_value_limits;
pub use json::{HostRead, read_host_value};
pub use map::{
    PodTemplatePlace, SourceMap, SourceObject, SourcePlace, SourceQuery, TemplatePart,
    TextPosition, TextSpan, source_map,
};
pub(crate) use map::{TemplatePath, source_map_with};
pub(crate) use objects::json_bytes;
pub(crate) use objects::read_input;
pub use objects::{InputObjects, InputShape, ObjectsOfInputs};
pub(crate) use objects::{SourceItem, split_into, type_name};
pub use objects::{objects_of_value, read_items, read_objects};
pub(crate) use path::{FieldPath, Segment, path_push_index, path_push_key};
pub(crate) use read::{document_stream, read_value_fast, read_value_projected};
pub use read::{
    one_document, parse_documents, parse_documents_bytes, parse_object, read_text, read_value,
};
pub use spans::SpanIndex;
