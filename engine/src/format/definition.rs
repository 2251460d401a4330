//! Reading definitions from text or JSON values.
//!
//! [`read_definitions`] reads every definition of a YAML/JSON text (several
//! `---` documents, and `List`/`KartaList` documents whose `items` are
//! definitions); [`definition_from_value`] reads one from a JSON value.
//!
//! Reading is lenient about unknown fields and strict about types:
//! - a value of the wrong type (or a missing required field such as `spec`)
//!   is an [`ErrorCode::Parse`] error whose `location.field` is the JSON-style
//!   path of the offending value, with line/column when read from text;
//! - every unknown field is ignored with a warning finding `unknown-field`
//!   (with a did-you-mean suggestion when a known field at that position is
//!   close, or when it is one of the reference guides' documented typos:
//!   `fragmentedPodDefinition`, `ownerName`);
//! - `apiVersion`/`kind` must be `run.ai/v1alpha1` `Karta` or
//!   `optimization.nvidia.com/v1alpha1` `ResourceInterface`;
//! - in a `ResourceInterface`, fields that only exist in the newer `Karta`
//!   generation (`suspendDefinition`, `componentTypeSelector.matchLabels`,
//!   `gangScheduling.podGroup`, `statusMappings.suspended/suspending/resuming`)
//!   are kept, with a warning finding `newer-generation-field`.
//!
//! A known field whose value is null (`childComponents:` with nothing after
//! it) is read as absent, as Kubernetes does.
//!
//! No defaults are applied here: in particular the CRD defaults of the
//! condition field names (`typeFieldName: type`, ...) are applied by the
//! engine later, the definition keeps what was written.

use crate::error::{Error, ErrorCode, Finding, Result};
use crate::limits::Limits;
use crate::model::{self, Definition, Generation};
use crate::source::path::{push_index_step, push_key_step};
use crate::source::{self, FieldPath, Segment, SpanIndex, path_push_index, path_push_key};
use serde_json::Value;

/// Where a definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The bundled catalog.
    Catalog,
    /// Supplied by the user.
    #[default]
    User,
    /// Stored in the cluster (a Karta or ResourceInterface object), read
    /// by a live-cluster front end.
    Cluster,
}

impl Origin {
    /// `catalog`, `user` or `cluster`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Catalog => "catalog",
            Origin::User => "user",
            Origin::Cluster => "cluster",
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A definition read from text or a value, with what was noticed on the way.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LoadedDefinition {
    /// The definition as written.
    pub definition: Definition,
    /// Warnings found while reading (`unknown-field`,
    /// `newer-generation-field`), with line/column when read from text.
    pub warnings: Vec<Finding>,
    /// Positions of the definition's fields (paths relative to the
    /// definition, e.g. `spec.structureDefinition.rootComponent.name`); empty
    /// when read from a value.
    pub spans: SpanIndex,
    /// Index of the source document, when the text had more than one
    /// document (or the definition is not in the first one).
    pub document: Option<usize>,
}

/// Read every definition of a YAML or JSON text.
///
/// Each object of the text (by the rules of [`crate::source::read_objects`]: documents,
/// top-level arrays, list documents such as `kind: List`, `KartaList` or
/// `ResourceInterfaceList`) is one definition. The first document that is not a valid
/// definition fails the whole read; its error names the document (when the
/// text has several) and, for a list item, a field path starting with
/// `items[i]`.
#[cfg(test)]
pub(crate) fn read_definitions(text: &str, limits: &Limits) -> Result<Vec<LoadedDefinition>> {
    let mut out = Vec::new();
    for_each_definition(text, limits, |l| {
        out.push(l);
        Ok(())
    })?;
    Ok(out)
}

/// [`read_definitions`], handing each definition to `f` as it is read: the
/// documents are read one at a time, so the first error (an invalid
/// document, or `f`'s, such as a breach of the call's budget while
/// compiling) stops the read before the rest of the text is parsed.
pub(crate) fn for_each_definition(
    text: &str,
    limits: &Limits,
    mut f: impl FnMut(LoadedDefinition) -> Result<()>,
) -> Result<()> {
    let mut items = Vec::new();
    for doc in source::document_stream(text, &limits.effective())? {
        let (doc, several) = doc?;
        crate::source::split_into(doc, several, &mut items);
        for split in items.drain(..) {
            f(load_item(split.map_err(|m| m.error)?, limits)?)?;
        }
    }
    Ok(())
}

/// Read one definition from an item of a text; an error's field is
/// relative to the document and carries the position.
pub(crate) fn load_item(
    mut item: crate::source::SourceItem,
    limits: &Limits,
) -> Result<LoadedDefinition> {
    // The value and its positions move into the definition (a definition
    // of megabytes is not copied); an error is located by them first.
    let value = std::mem::take(&mut item.value);
    let spans = std::mem::replace(&mut item.spans, SpanIndex::new());
    load(value, spans, item.document, limits).map_err(|mut e| {
        item.locate(&mut e.0.location);
        e
    })
}

/// Read one definition from a JSON value (no positions).
#[cfg(test)]
pub(crate) fn definition_from_value(value: &Value, limits: &Limits) -> Result<LoadedDefinition> {
    load(value.clone(), SpanIndex::new(), None, limits)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "sequence",
        Value::Object(_) => "map",
    }
}

fn display_str(v: Option<&Value>) -> String {
    match v {
        None => "<missing>".to_string(),
        Some(Value::String(s)) => format!("'{s}'"),
        Some(other) => other.to_string(),
    }
}

fn load(
    value: Value,
    spans: SpanIndex,
    document: Option<usize>,
    limits: &Limits,
) -> Result<LoadedDefinition> {
    let located = |mut e: Error| {
        spans.locate(&mut e.0.location);
        if e.0.location.document.is_none() {
            e.0.location.document = document;
        }
        e
    };
    let (definition, mut warnings) = decode(value, limits).map_err(located)?;
    for w in &mut warnings {
        spans.locate(&mut w.location);
        w.location.document = document;
    }
    // Document order when positions are known; the decoding order otherwise.
    warnings.sort_by_key(|w| {
        (
            w.location.line.unwrap_or(usize::MAX),
            w.location.column.unwrap_or(usize::MAX),
        )
    });
    Ok(LoadedDefinition {
        definition,
        warnings,
        spans,
        document,
    })
}

fn decode(mut value: Value, limits: &Limits) -> Result<(Definition, Vec<Finding>)> {
    source::check_value_limits(&value, limits)?;
    let Some(obj) = value.as_object() else {
        return Err(Error::new(
            ErrorCode::Parse,
            format!(
                "a workload definition must be a map, found {}",
                type_name(&value)
            ),
        ));
    };
    let api_version = obj.get("apiVersion");
    let kind = obj.get("kind");
    let known = matches!(
        (
            api_version.and_then(Value::as_str),
            kind.and_then(Value::as_str)
        ),
        (Some(model::API_VERSION_KARTA), Some(model::KIND_KARTA))
            | (
                Some(model::API_VERSION_RESOURCE_INTERFACE),
                Some(model::KIND_RESOURCE_INTERFACE)
            )
    );
    if !known {
        return Err(Error::new(
            ErrorCode::Parse,
            format!(
                "not a workload definition: apiVersion {} kind {} (expected {} {} or {} {})",
                display_str(api_version),
                display_str(kind),
                model::API_VERSION_KARTA,
                model::KIND_KARTA,
                model::API_VERSION_RESOURCE_INTERFACE,
                model::KIND_RESOURCE_INTERFACE,
            ),
        )
        .at_field("apiVersion"));
    }

    strip_known_nulls(&mut value, Shape::Definition);
    // serde's derived structs also accept a sequence of their fields in
    // order (`rootComponent: []` would be an empty component, `kind: [a, b,
    // c]` a group, version and kind): no definition means that, and the
    // reference's decoder and the API server refuse it.
    let mut field = String::new();
    if sequence_for_mapping(&value, Shape::Definition, &mut field) {
        return Err(Error::new(
            ErrorCode::Parse,
            "invalid type: sequence, expected a mapping",
        )
        .at_field(field));
    }
    let mut ignored: Vec<String> = Vec::new();
    let mut on_ignored = |path: serde_ignored::Path<'_>| ignored.push(ignored_path(&path));
    let de = serde_ignored::Deserializer::new(&value, &mut on_ignored);
    let definition: Definition = serde_path_to_error::deserialize(de).map_err(type_error)?;

    let mut warnings: Vec<Finding> = ignored.iter().map(|p| unknown_field(p)).collect();
    if definition.generation() == Some(Generation::ResourceInterface) {
        newer_generation_fields(&definition, &mut warnings);
    }
    Ok((definition, warnings))
}

/// Remove the entries of known fields whose value is null: as in Kubernetes
/// (Go's JSON decoding), `childComponents: null` or an empty YAML value
/// (`labels:`) means "not set". Unknown fields are kept (they get their
/// warning). Recursion follows the format's schema, never the input's
/// nesting (opaque values are not entered), so its depth is bounded.
fn strip_known_nulls(value: &mut Value, shape: Shape) {
    if shape == Shape::Opaque {
        return;
    }
    let Value::Object(map) = value else {
        return;
    };
    map.retain(|k, v| !(v.is_null() && shape.fields().contains(&k.as_str())));
    for (k, v) in map.iter_mut() {
        match shape.child(k) {
            Holds::One(child) => strip_known_nulls(v, child),
            Holds::ListOf(element) => {
                if let Value::Array(items) = v {
                    for item in items {
                        strip_known_nulls(item, element);
                    }
                }
            }
        }
    }
}

/// Whether a sequence stands where `shape` (or a shape inside it) expects a
/// mapping; `field` is then its path.
fn sequence_for_mapping(value: &Value, shape: Shape, field: &mut String) -> bool {
    if shape == Shape::Opaque {
        return false;
    }
    let map = match value {
        Value::Array(_) => return true,
        Value::Object(map) => map,
        _ => return false,
    };
    for (k, v) in map {
        let len = field.len();
        push_key_step(field, k);
        let found = match shape.child(k) {
            Holds::One(child) => sequence_for_mapping(v, child, field),
            Holds::ListOf(element) => match v {
                Value::Array(items) => items.iter().enumerate().any(|(i, item)| {
                    let len = field.len();
                    push_index_step(field, i);
                    let found = sequence_for_mapping(item, element, field);
                    if !found {
                        field.truncate(len);
                    }
                    found
                }),
                _ => false,
            },
        };
        if found {
            return true;
        }
        field.truncate(len);
    }
    false
}

/// JSON-style path of an ignored field.
fn ignored_path(path: &serde_ignored::Path<'_>) -> String {
    let mut steps: Vec<&serde_ignored::Path<'_>> = Vec::new();
    let mut cur = path;
    loop {
        steps.push(cur);
        cur = match cur {
            serde_ignored::Path::Root => break,
            serde_ignored::Path::Seq { parent, .. }
            | serde_ignored::Path::Map { parent, .. }
            | serde_ignored::Path::Some { parent }
            | serde_ignored::Path::NewtypeStruct { parent }
            | serde_ignored::Path::NewtypeVariant { parent } => parent,
        };
    }
    let mut out = String::new();
    for step in steps.iter().rev() {
        match step {
            serde_ignored::Path::Seq { index, .. } => push_index_step(&mut out, *index),
            serde_ignored::Path::Map { key, .. } => push_key_step(&mut out, key),
            _ => {}
        }
    }
    out
}

fn type_error(e: serde_path_to_error::Error<serde_json::Error>) -> Error {
    let mut field = String::new();
    for segment in e.path().iter() {
        match segment {
            serde_path_to_error::Segment::Seq { index } => push_index_step(&mut field, *index),
            serde_path_to_error::Segment::Map { key } => push_key_step(&mut field, key),
            serde_path_to_error::Segment::Enum { variant } => push_key_step(&mut field, variant),
            serde_path_to_error::Segment::Unknown => {}
        }
    }
    let raw = e.inner().to_string();
    let message = match raw
        .strip_prefix("missing field `")
        .and_then(|r| r.strip_suffix('`'))
    {
        Some(name) => {
            push_key_step(&mut field, name);
            format!("missing required field '{name}'")
        }
        None => raw.replace('`', ""),
    };
    let err = Error::new(ErrorCode::Parse, message);
    if field.is_empty() {
        err
    } else {
        err.at_field(field)
    }
}

// ---------------------------------------------------------------------------
// Unknown fields and suggestions
// ---------------------------------------------------------------------------

/// The field names serde derives for a struct of the model (its serialized
/// names), read by asking it to deserialize from a deserializer that only
/// records the field list `deserialize_struct` is given.
fn fields_of<T: serde::de::DeserializeOwned>() -> &'static [&'static str] {
    struct Fields(&'static [&'static str]);
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("field list read")
        }
    }
    impl std::error::Error for Stop {}
    impl serde::de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    struct Capture<'a>(&'a mut Fields);
    impl<'de> serde::Deserializer<'de> for Capture<'_> {
        type Error = Stop;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0.0 = fields;
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map enum identifier ignored_any
        }
    }
    let mut fields = Fields(&[]);
    let _ = T::deserialize(Capture(&mut fields));
    fields.0
}

/// The object types of the format (for field-name suggestions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Definition,
    Metadata,
    Spec,
    Structure,
    Component,
    Gvk,
    SpecDefinition,
    Fragmented,
    Scale,
    Status,
    Phase,
    Conditions,
    Mappings,
    Matcher,
    ExpectedCondition,
    ByExpression,
    PodSelector,
    TypeSelector,
    InstanceSelector,
    ReplicaSelector,
    Suspend,
    Action,
    Optimization,
    Ownership,
    Gang,
    PodGroup,
    Member,
    PodGroupV2,
    SubGroup,
    Topology,
    /// A value without known fields (labels, status, ...).
    Opaque,
}

/// What a field holds.
#[derive(Debug, Clone, Copy)]
enum Holds {
    One(Shape),
    ListOf(Shape),
}

impl Shape {
    /// Known fields, in the model's order: taken from the model's own
    /// `Deserialize` implementation (the field list serde derives), so they
    /// cannot drift from it.
    fn fields(self) -> &'static [&'static str] {
        use crate::model::*;
        match self {
            Shape::Definition => fields_of::<Definition>(),
            // `ObjectMeta` keeps every other field (serde's `flatten`), so
            // serde derives no field list for it: its typed fields.
            Shape::Metadata => &["name", "labels", "annotations"],
            Shape::Spec => fields_of::<DefinitionSpec>(),
            Shape::Structure => fields_of::<StructureDefinition>(),
            Shape::Component => fields_of::<ComponentDefinition>(),
            Shape::Gvk => fields_of::<Gvk>(),
            Shape::SpecDefinition => fields_of::<SpecDefinition>(),
            Shape::Fragmented => fields_of::<FragmentedPodSpecDefinition>(),
            Shape::Scale => fields_of::<ScaleDefinition>(),
            Shape::Status => fields_of::<StatusDefinition>(),
            Shape::Phase => fields_of::<PhaseDefinition>(),
            Shape::Conditions => fields_of::<ConditionsDefinition>(),
            Shape::Mappings => fields_of::<StatusMappings>(),
            Shape::Matcher => fields_of::<StatusMatcher>(),
            Shape::ExpectedCondition => fields_of::<ExpectedCondition>(),
            Shape::ByExpression => fields_of::<ByExpression>(),
            Shape::PodSelector => fields_of::<PodSelector>(),
            Shape::TypeSelector => fields_of::<ComponentTypeSelector>(),
            Shape::InstanceSelector => fields_of::<ComponentInstanceSelector>(),
            Shape::ReplicaSelector => fields_of::<ReplicaSelector>(),
            Shape::Suspend => fields_of::<SuspendDefinition>(),
            Shape::Action => fields_of::<Action>(),
            Shape::Optimization => fields_of::<OptimizationInstructions>(),
            Shape::Ownership => fields_of::<PodOwnership>(),
            Shape::Gang => fields_of::<GangScheduling>(),
            Shape::PodGroup => fields_of::<PodGroupDefinition>(),
            Shape::Member => fields_of::<PodGroupMember>(),
            Shape::PodGroupV2 => fields_of::<PodGroupV2>(),
            Shape::SubGroup => fields_of::<SubGroup>(),
            Shape::Topology => fields_of::<Topology>(),
            Shape::Opaque => &[],
        }
    }

    /// What the field `key` of this shape holds.
    fn child(self, key: &str) -> Holds {
        use Holds::{ListOf, One};
        match (self, key) {
            (Shape::Definition, "metadata") => One(Shape::Metadata),
            (Shape::Definition, "spec") => One(Shape::Spec),
            (Shape::Spec, "structureDefinition") => One(Shape::Structure),
            (Shape::Spec, "optimizationInstructions") => One(Shape::Optimization),
            (Shape::Spec, "podOwnership") => One(Shape::Ownership),
            (Shape::Structure, "rootComponent") => One(Shape::Component),
            (Shape::Structure, "childComponents") => ListOf(Shape::Component),
            (Shape::Structure, "additionalChildKinds") => ListOf(Shape::Gvk),
            (Shape::Component, "kind") => One(Shape::Gvk),
            (Shape::Component, "specDefinition") => One(Shape::SpecDefinition),
            (Shape::Component, "scaleDefinition") => One(Shape::Scale),
            (Shape::Component, "statusDefinition") => One(Shape::Status),
            (Shape::Component, "podSelector") => One(Shape::PodSelector),
            (Shape::Component, "suspendDefinition") => One(Shape::Suspend),
            (Shape::SpecDefinition, "fragmentedPodSpecDefinition") => One(Shape::Fragmented),
            (Shape::Status, "phaseDefinition") => One(Shape::Phase),
            (Shape::Status, "conditionsDefinition") => One(Shape::Conditions),
            (Shape::Status, "statusMappings") => One(Shape::Mappings),
            (Shape::Mappings, _) => ListOf(Shape::Matcher),
            (Shape::Matcher, "byConditions") => ListOf(Shape::ExpectedCondition),
            (Shape::Matcher, "byExpression") => One(Shape::ByExpression),
            (Shape::PodSelector, "componentTypeSelector") => One(Shape::TypeSelector),
            (Shape::PodSelector, "componentInstanceSelector") => One(Shape::InstanceSelector),
            (Shape::PodSelector, "replicaSelector") => One(Shape::ReplicaSelector),
            (Shape::Suspend, _) => ListOf(Shape::Action),
            (Shape::Optimization, "gangScheduling") => One(Shape::Gang),
            (Shape::Gang, "podGroups") => ListOf(Shape::PodGroup),
            (Shape::Gang, "podGroup") => One(Shape::PodGroupV2),
            (Shape::PodGroup, "members") => ListOf(Shape::Member),
            (Shape::PodGroupV2, "subGroups") => ListOf(Shape::SubGroup),
            (Shape::PodGroupV2 | Shape::SubGroup, "topology") => One(Shape::Topology),
            _ => One(Shape::Opaque),
        }
    }
}

/// The shape of the object at `path` (a JSON-style path from the definition
/// root), when it is a known one.
fn shape_at(path: &str) -> Shape {
    let mut shape = Shape::Definition;
    let mut pending_list: Option<Shape> = None;
    let Some(path) = FieldPath::parse(path) else {
        return Shape::Opaque;
    };
    for step in path.segments() {
        match (step, pending_list.take()) {
            (Segment::Index(_), Some(element)) => shape = element,
            (Segment::Key(key), None) => match shape.child(key) {
                Holds::One(s) => shape = s,
                Holds::ListOf(s) => pending_list = Some(s),
            },
            _ => return Shape::Opaque,
        }
    }
    if pending_list.is_some() {
        Shape::Opaque
    } else {
        shape
    }
}

/// Documented misspellings (reference guides) and the field meant.
const KNOWN_TYPOS: [(&str, &str); 2] = [
    ("fragmentedPodDefinition", "fragmentedPodSpecDefinition"),
    ("ownerName", "ownerRef"),
];

/// Optimal string alignment distance, bounded (returns `max + 1` when over).
fn edit_distance(a: &str, b: &str, max: usize) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return max + 1;
    }
    let w = b.len() + 1;
    let mut prev2 = vec![0usize; w];
    let mut prev: Vec<usize> = (0..w).collect();
    let mut cur = vec![0usize; w];
    for i in 1..=a.len() {
        if let Some(c0) = cur.get_mut(0) {
            *c0 = i;
        }
        for j in 1..w {
            let ai = a.get(i - 1);
            let bj = b.get(j - 1);
            let cost = usize::from(ai != bj);
            let del = prev.get(j).copied().unwrap_or(usize::MAX).saturating_add(1);
            let ins = cur
                .get(j - 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(1);
            let sub = prev
                .get(j - 1)
                .copied()
                .unwrap_or(usize::MAX)
                .saturating_add(cost);
            let mut d = del.min(ins).min(sub);
            if i > 1 && j > 1 && a.get(i - 1) == b.get(j - 2) && a.get(i - 2) == b.get(j - 1) {
                let t = prev2
                    .get(j - 2)
                    .copied()
                    .unwrap_or(usize::MAX)
                    .saturating_add(1);
                d = d.min(t);
            }
            if let Some(slot) = cur.get_mut(j) {
                *slot = d;
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.get(b.len()).copied().unwrap_or(max + 1).min(max + 1)
}

/// A known field close to `key` at a position whose known fields are
/// `candidates`.
fn suggest(key: &str, candidates: &[&'static str]) -> Option<&'static str> {
    if let Some(&(_, meant)) = KNOWN_TYPOS.iter().find(|(typo, _)| *typo == key)
        && let Some(c) = candidates.iter().find(|c| **c == meant)
    {
        return Some(c);
    }
    if let Some(c) = candidates.iter().find(|c| c.eq_ignore_ascii_case(key)) {
        return Some(c);
    }
    let mut best: Option<(usize, &'static str)> = None;
    for c in candidates {
        let d = edit_distance(key, c, 2);
        if d <= 2 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// A field of a nested object written one level too high (`podSpecPath`
/// directly in a component: `specDefinition.podSpecPath`). Only exact
/// (case-insensitive) names and the documented typos are considered.
fn misplaced(key: &str, shape: Shape) -> Option<String> {
    shape
        .fields()
        .iter()
        .find_map(|field| match shape.child(field) {
            Holds::One(child) if child != Shape::Opaque => {
                let meant = KNOWN_TYPOS
                    .iter()
                    .find(|(typo, _)| *typo == key)
                    .map_or(key, |(_, meant)| *meant);
                child
                    .fields()
                    .iter()
                    .find(|c| c.eq_ignore_ascii_case(meant))
                    .map(|c| format!("{field}.{c}"))
            }
            _ => None,
        })
}

fn unknown_field(path: &str) -> Finding {
    let key = match FieldPath::parse(path)
        .as_ref()
        .and_then(|p| p.segments().last())
    {
        Some(Segment::Key(k)) => k.to_string(),
        _ => String::new(),
    };
    let parent = parent_path(path);
    let shape = shape_at(parent);
    let mut message = format!("unknown field '{key}' is ignored");
    let suggestion = suggest(&key, shape.fields())
        .map(str::to_string)
        .or_else(|| misplaced(&key, shape));
    if let Some(s) = suggestion {
        message.push_str(&format!(" (did you mean '{s}'?)"));
    } else if let Some((here, there)) = in_a_sibling(&key, parent) {
        message.push_str(&format!(
            " (it belongs beside '{here}': did you mean '{there}'?)"
        ));
    }
    Finding::warning(crate::validate::codes::UNKNOWN_FIELD, message, path)
}

/// A field written in the wrong block of its parent (`replicasPath` in
/// `specDefinition`, which belongs in `scaleDefinition`): the block it is in
/// and `<the right block>.<field>`. Exact (case-insensitive) names only.
fn in_a_sibling(key: &str, parent: &str) -> Option<(String, String)> {
    let here = match FieldPath::parse(parent)
        .as_ref()
        .and_then(|p| p.segments().last())
    {
        Some(Segment::Key(k)) => k.to_string(),
        _ => return None,
    };
    let grand = shape_at(parent_path(parent));
    grand
        .fields()
        .iter()
        .find_map(|field| match grand.child(field) {
            Holds::One(sibling) if sibling != Shape::Opaque && *field != here => sibling
                .fields()
                .iter()
                .find(|f| f.eq_ignore_ascii_case(key))
                .map(|f| (here.clone(), format!("{field}.{f}"))),
            _ => None,
        })
}

/// The path without its last step.
fn parent_path(path: &str) -> &str {
    if let Some(stripped) = path.strip_suffix("\"]") {
        // The `["` that opens the last step (keys containing `["` are rare
        // enough that the last occurrence is taken).
        let idx = stripped.rfind("[\"").unwrap_or(0);
        return path.get(..idx).unwrap_or("");
    }
    if path.ends_with(']') {
        return path.rfind('[').and_then(|i| path.get(..i)).unwrap_or("");
    }
    path.rfind(['.', '['])
        .and_then(|i| path.get(..i))
        .unwrap_or("")
}

fn newer_generation_fields(def: &Definition, out: &mut Vec<Finding>) {
    let warn = |out: &mut Vec<Finding>, path: String, field: &str| {
        out.push(Finding::warning(
            crate::validate::codes::NEWER_GENERATION_FIELD,
            format!(
                "field '{field}' belongs to the newer {} {} format; it is accepted in a {} but older consumers ignore it",
                model::API_VERSION_KARTA,
                model::KIND_KARTA,
                model::KIND_RESOURCE_INTERFACE
            ),
            path,
        ));
    };
    let structure = "spec.structureDefinition";
    let components = std::iter::once((path_push_key(structure, "rootComponent"), def.root()))
        .chain(
            def.spec
                .structure_definition
                .child_components
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    (
                        path_push_index(&path_push_key(structure, "childComponents"), i),
                        c,
                    )
                }),
        );
    for (path, c) in components {
        if let Some(sd) = &c.status_definition {
            let mappings =
                path_push_key(&path_push_key(&path, "statusDefinition"), "statusMappings");
            let m = &sd.status_mappings;
            for (key, present) in [
                ("suspended", m.suspended.is_some()),
                ("suspending", m.suspending.is_some()),
                ("resuming", m.resuming.is_some()),
            ] {
                if present {
                    warn(out, path_push_key(&mappings, key), key);
                }
            }
        }
        if c.pod_selector
            .as_ref()
            .and_then(|p| p.component_type_selector.as_ref())
            .is_some_and(|t| t.match_labels.is_some())
        {
            let p = path_push_key(
                &path_push_key(
                    &path_push_key(&path, "podSelector"),
                    "componentTypeSelector",
                ),
                "matchLabels",
            );
            warn(out, p, "matchLabels");
        }
        if c.suspend_definition.is_some() {
            warn(
                out,
                path_push_key(&path, "suspendDefinition"),
                "suspendDefinition",
            );
        }
    }
    if def
        .spec
        .optimization_instructions
        .as_ref()
        .and_then(|o| o.gang_scheduling.as_ref())
        .is_some_and(|g| g.pod_group.is_some())
    {
        warn(
            out,
            "spec.optimizationInstructions.gangScheduling.podGroup".to_string(),
            "podGroup",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// serde's derived structs accept a sequence of their fields in order;
    /// a definition never means that.
    #[test]
    fn a_sequence_where_a_mapping_is_expected_is_a_type_error() {
        let root = |component: Value, child_kind: Value| {
            serde_json::json!({"apiVersion": "run.ai/v1alpha1", "kind": "Karta",
                "metadata": {"name": "v"},
                "spec": {"structureDefinition": {"rootComponent": component,
                    "childComponents": [{"name": "c", "ownerRef": "app", "kind": child_kind}]}}})
        };
        let gvk = serde_json::json!({"group": "g", "version": "v", "kind": "k"});
        let app = serde_json::json!({"name": "app", "kind": gvk});
        for (value, field) in [
            (
                root(serde_json::json!([]), gvk.clone()),
                "spec.structureDefinition.rootComponent",
            ),
            (
                root(app, serde_json::json!(["g", "v", "k"])),
                "spec.structureDefinition.childComponents[0].kind",
            ),
        ] {
            let Err(e) = definition_from_value(&value, &Limits::default()) else {
                panic!("{field}: read without an error");
            };
            assert_eq!(e.code(), ErrorCode::Parse, "{e}");
            assert!(e.message().contains("invalid type: sequence"), "{e}");
            assert_eq!(e.location().field.as_deref(), Some(field));
        }
    }

    /// Every field of a fully populated model sits where the structure
    /// (`Shape::child`, the one hand-kept part) says, and is one of the
    /// model's own field names there.
    #[test]
    fn schema_matches_model() {
        use crate::model::*;
        let some = || Some("x".to_string());
        let matcher = StatusMatcher {
            by_phase: some(),
            by_conditions: Some(vec![ExpectedCondition {
                type_: "t".into(),
                status: some(),
                reason: some(),
            }]),
            by_expression: Some(ByExpression {
                expression: "e".into(),
                expected_result: "r".into(),
            }),
        };
        let topology = Topology {
            topology_name: "t".into(),
            preferred_topology_level: "p".into(),
            required_topology_level: "r".into(),
        };
        let component = ComponentDefinition {
            name: "n".into(),
            kind: Some(Gvk::new("g", "v", "k")),
            owner_ref: some(),
            spec_definition: Some(SpecDefinition {
                pod_template_spec_path: some(),
                pod_spec_path: some(),
                metadata_path: some(),
                fragmented_pod_spec_definition: Some(FragmentedPodSpecDefinition {
                    scheduler_name_path: some(),
                    labels_path: some(),
                    annotations_path: some(),
                    resources_path: some(),
                    resource_claims_path: some(),
                    pod_affinity_path: some(),
                    node_affinity_path: some(),
                    containers_path: some(),
                    container_path: some(),
                    priority_class_name_path: some(),
                    image_path: some(),
                }),
            }),
            scale_definition: Some(ScaleDefinition {
                replicas_path: some(),
                min_replicas_path: some(),
                max_replicas_path: some(),
            }),
            status_definition: Some(StatusDefinition {
                phase_definition: Some(PhaseDefinition { path: "p".into() }),
                conditions_definition: Some(ConditionsDefinition {
                    path: "p".into(),
                    type_field_name: some(),
                    status_field_name: some(),
                    message_field_name: some(),
                    reason_field_name: some(),
                }),
                status_mappings: StatusMappings {
                    initializing: Some(vec![matcher.clone()]),
                    running: Some(vec![matcher.clone()]),
                    completed: Some(vec![matcher.clone()]),
                    failed: Some(vec![matcher.clone()]),
                    degraded: Some(vec![matcher.clone()]),
                    suspended: Some(vec![matcher.clone()]),
                    suspending: Some(vec![matcher.clone()]),
                    resuming: Some(vec![matcher]),
                },
            }),
            instance_id_path: some(),
            pod_selector: Some(PodSelector {
                component_type_selector: Some(ComponentTypeSelector {
                    key_path: some(),
                    value: some(),
                    match_labels: None,
                }),
                component_instance_selector: Some(ComponentInstanceSelector {
                    id_path: "i".into(),
                }),
                replica_selector: Some(ReplicaSelector {
                    key_path: "k".into(),
                }),
            }),
            suspend_definition: Some(SuspendDefinition {
                suspend_actions: vec![Action {
                    path: "p".into(),
                    value: "v".into(),
                }],
                resume_actions: vec![Action {
                    path: "p".into(),
                    value: "v".into(),
                }],
            }),
        };
        let def = Definition {
            api_version: API_VERSION_KARTA.into(),
            kind: KIND_KARTA.into(),
            metadata: ObjectMeta {
                name: "n".into(),
                ..ObjectMeta::default()
            },
            spec: DefinitionSpec {
                structure_definition: StructureDefinition {
                    root_component: component.clone(),
                    child_components: vec![component],
                    additional_child_kinds: vec![Gvk::new("g", "v", "k")],
                },
                optimization_instructions: Some(OptimizationInstructions {
                    gang_scheduling: Some(GangScheduling {
                        pod_groups: Some(vec![PodGroupDefinition {
                            name: "g".into(),
                            members: vec![PodGroupMember {
                                component_name: "c".into(),
                                group_by_key_paths: vec!["k".into()],
                                filters: vec!["f".into()],
                                min_members_path: Some("m".into()),
                            }],
                        }]),
                        pod_group: Some(PodGroupV2 {
                            name: "g".into(),
                            sub_groups: vec![SubGroup {
                                component_name: "c".into(),
                                topology: Some(topology.clone()),
                            }],
                            topology: Some(topology),
                        }),
                    }),
                }),
                pod_ownership: Some(PodOwnership {
                    labels_path: "l".into(),
                    ..Default::default()
                }),
            },
            status: None,
        };
        let value = serde_json::to_value(&def).unwrap_or(Value::Null);
        let mut stack = vec![(String::new(), &value)];
        let mut checked = 0;
        while let Some((path, v)) = stack.pop() {
            match v {
                Value::Object(map) => {
                    let shape = shape_at(&path);
                    for (k, child) in map {
                        if shape != Shape::Opaque {
                            assert!(
                                shape.fields().contains(&k.as_str()),
                                "{path}: {k} not in schema {shape:?}"
                            );
                            checked += 1;
                        }
                        stack.push((path_push_key(&path, k), child));
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        stack.push((path_push_index(&path, i), child));
                    }
                }
                _ => {}
            }
        }
        assert!(checked > 80, "{checked}");
        // And every schema field of a component round-trips through the model.
        let (_, warnings) =
            decode(value.clone(), &Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            warnings.iter().all(|w| w.code != "unknown-field"),
            "{warnings:?}"
        );
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("fragmentedPodDefinition", Shape::SpecDefinition.fields()),
            Some("fragmentedPodSpecDefinition")
        );
        assert_eq!(
            suggest("ownerName", Shape::Component.fields()),
            Some("ownerRef")
        );
        assert_eq!(
            suggest("podSpecPth", Shape::SpecDefinition.fields()),
            Some("podSpecPath")
        );
        assert_eq!(
            suggest("instanceIDPath", Shape::Component.fields()),
            Some("instanceIdPath")
        );
        assert_eq!(suggest("zzz", Shape::Component.fields()), None);
        assert_eq!(
            misplaced("fragmentedPodDefinition", Shape::Component).as_deref(),
            Some("specDefinition.fragmentedPodSpecDefinition")
        );
        assert_eq!(
            misplaced("podSpecPath", Shape::Component).as_deref(),
            Some("specDefinition.podSpecPath")
        );
        assert_eq!(misplaced("zzz", Shape::Component), None);
        assert_eq!(edit_distance("abc", "acb", 2), 1);
        assert_eq!(edit_distance("", "abc", 2), 3);
    }

    #[test]
    fn parents() {
        assert_eq!(parent_path("a.b.c"), "a.b");
        assert_eq!(parent_path("a[1]"), "a");
        assert_eq!(parent_path(r#"a["x.y"]"#), "a");
        assert_eq!(parent_path("a"), "");
        assert!(matches!(
            shape_at("spec.structureDefinition.childComponents[3].specDefinition"),
            Shape::SpecDefinition
        ));
    }
}
