//! The JSON reader: `serde_json` for the values, the scanner ([`scan_json`])
//! for the positions.

use super::document::SourceDocument;
use super::errors::{at_position, depth_error, nodes_error};
use super::scan::scan_json_with;
use super::spans::SpanIndex;
use super::yaml::parse_yaml_with;
use crate::error::{Error, ErrorCode, Result};
use crate::jq::reads::Reads;
use crate::limits::Limits;
use serde_json::{Map, Number, Value};

// ---------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------

pub(super) fn parse_json_text(text: &str, limits: &Limits) -> Result<Vec<SourceDocument>> {
    parse_json(text, limits, false)
}

/// [`parse_json_text`], whose indices also record where each value's text
/// is (the source map's reading: the careful reader, always).
pub(super) fn parse_json_text_with_extents(
    text: &str,
    limits: &Limits,
) -> Result<Vec<SourceDocument>> {
    parse_json(text, limits, true)
}

fn parse_json(text: &str, limits: &Limits, extents: bool) -> Result<Vec<SourceDocument>> {
    // The fast reader: one pass of serde_json, within the limits, no
    // positions (they are found from the text when first asked). Anything
    // it does not accept (broken JSON, a duplicate key, a limit, YAML that
    // starts like JSON) is read by the careful reader below, whose errors
    // carry the position and path.
    if !extents && let Ok(value) = read_json_counted(text, limits) {
        if value.is_null() {
            return Ok(Vec::new());
        }
        return Ok(vec![SourceDocument {
            value,
            document: 0,
            spans: SpanIndex::lazy_json(text, limits),
        }]);
    }
    let scan = scan_json_with(text, limits, extents)?;
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
                spans: SpanIndex::from_built(scan.built),
            }])
        }
        Err(json_err) => {
            let msg = json_err.to_string();
            let (line, column) = json_position(text, json_err.line(), json_err.column());
            if msg.starts_with("recursion limit exceeded") {
                // serde_json's own fixed nesting limit (128); the text is
                // within `maxDepth` (the scan checked), so read it as YAML,
                // which has no fixed limit.
                return parse_yaml_with(text, limits, extents)
                    .map_err(|_| at_position(depth_error(limits), 0, line, column, ""));
            }
            if scan.yaml_hint {
                return parse_yaml_with(text, limits, extents);
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

/// The value of a JSON text when serde_json reads all of it strictly (no
/// duplicate key) within `limits` (nodes counted and depth checked as they
/// are read, so no more is built than the limits allow); otherwise why not.
pub(super) fn read_json_counted(
    text: &str,
    limits: &Limits,
) -> std::result::Result<Value, Refused> {
    read_json_keeping(text, limits, Part::Whole).map(|(value, _)| value)
}

/// How a text's value is shaped (as [`crate::budget::json_shape`] measures
/// a value): the deepest container (the root's is 1; 0 for a scalar), the
/// values, and the bytes of every string and key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TextShape {
    pub depth: usize,
    pub nodes: u64,
    pub bytes: usize,
}

/// [`read_json_counted`], building only what `reads` reads of the value
/// (see [`crate::jq::reads`]): the rest is read as strictly (every node
/// counted, every container's depth checked, a key met twice refused) and
/// let go. Also the shape of the whole value, as read.
pub(crate) fn read_json_projected(
    text: &str,
    limits: &Limits,
    reads: &Reads,
) -> std::result::Result<(Value, TextShape), Refused> {
    read_json_keeping(text, limits, Part::of(Some(reads)))
}

/// A JSON text's value, `part` of it kept, and the whole value's shape.
/// (A part less than whole is only ever kept of text: host values are
/// read whole, so the skipping paths need not count compact JSON bytes.)
fn read_json_keeping(
    text: &str,
    limits: &Limits,
    part: Part<'_>,
) -> std::result::Result<(Value, TextShape), Refused> {
    let meter = Meter::new(limits, false);
    let mut de = serde_json::Deserializer::from_str(text);
    let root = Counted {
        meter: &meter,
        depth: 0,
        part,
    };
    let read = serde::de::DeserializeSeed::deserialize(root, &mut de);
    match (read, meter.stop.take()) {
        (Ok(value), _) => {
            de.end().map_err(|_| Refused::Other)?;
            let shape = TextShape {
                depth: meter.deepest.get(),
                nodes: meter.nodes.get() as u64,
                bytes: meter.strings.get(),
            };
            Ok((value, shape))
        }
        (Err(_), Stop::Nodes) => Err(Refused::Limit(nodes_error(limits))),
        (Err(_), Stop::Depth) => Err(Refused::Limit(depth_error(limits))),
        (Err(_), _) => Err(Refused::Other),
    }
}

/// Why [`read_json_counted`] did not read a text.
pub(super) enum Refused {
    /// `maxInputNodes` or `maxDepth`, found where the reading stopped.
    Limit(Error),
    /// Anything else: not JSON, a duplicate key, serde_json's own nesting
    /// limit.
    Other,
}

/// Why [`read_host_value`] did not read a value.
#[derive(Debug)]
pub enum HostRead<E> {
    /// What the engine refuses: a limit (`maxInputNodes`, `maxDepth`,
    /// `maxInputBytes`) or something JSON cannot hold (a number that is not
    /// finite, two keys that are the same string), as an engine error.
    Engine(Error),
    /// The host's own error, raised while its values were walked (a Python
    /// exception, say), for the binding to pass on as it is.
    Host(E),
}

/// Read a value from a host language's own values (a Python `dict`, a
/// JavaScript object), walked by a [`serde::Deserializer`] the binding
/// writes over them, by the same rules as JSON text: nodes counted and depth
/// checked as they are read ([`Limits::max_input_nodes`],
/// [`Limits::max_depth`]), and [`Limits::max_input_bytes`] applied to the
/// size the value has as compact JSON (as `serde_json` writes it), counted
/// as it is read, so a value that a binding would once have serialized to
/// text is refused at the same size. A number that is not finite, or a
/// key met twice (a host whose keys are converted to strings can have
/// two that become the same), is a usage error: JSON cannot hold it.
///
/// The limits' hard caps apply ([`Limits::effective`]), so the walk's
/// recursion is bounded by [`crate::HARD_MAX_DEPTH`] whatever the host
/// value is (a list that contains itself stops there).
pub fn read_host_value<'de, D: serde::Deserializer<'de>>(
    host: D,
    limits: &Limits,
) -> std::result::Result<Value, HostRead<D::Error>> {
    let limits = &limits.effective();
    let meter = Meter::new(limits, true);
    let read = serde::de::DeserializeSeed::deserialize(meter.root(), host);
    match (read, meter.stop.take()) {
        (Ok(value), _) => Ok(value),
        (Err(e), Stop::None) => Err(HostRead::Host(e)),
        (Err(_), Stop::Nodes) => Err(HostRead::Engine(nodes_error(limits))),
        (Err(_), Stop::Depth) => Err(HostRead::Engine(depth_error(limits))),
        (Err(_), Stop::Bytes) => Err(HostRead::Engine(Error::limit_error(
            "maxInputBytes",
            format!(
                "the value is larger than the limit maxInputBytes ({} bytes as compact JSON)",
                limits.max_input_bytes
            ),
        ))),
        (Err(_), Stop::NotJson(why)) => Err(HostRead::Engine(Error::new(
            ErrorCode::Usage,
            format!("the value cannot be represented as JSON: {why}"),
        ))),
    }
}

/// Why a counted reading stopped, recorded where it stopped, so that the
/// reader's own error type (serde_json's, or a binding's) need not carry it.
#[derive(Default)]
enum Stop {
    #[default]
    None,
    Nodes,
    Depth,
    Bytes,
    /// Not JSON: a number that is not finite, a key met twice.
    NotJson(String),
}

/// The counters of one reading.
struct Meter<'l> {
    limits: &'l Limits,
    nodes: std::cell::Cell<usize>,
    /// The bytes of every string and key read (kept or not).
    strings: std::cell::Cell<usize>,
    /// The deepest container read (the root's is 1).
    deepest: std::cell::Cell<usize>,
    /// The size of the value as compact JSON so far, when counted (host
    /// values; a text's own length is checked before it is read).
    bytes: Option<std::cell::Cell<usize>>,
    stop: std::cell::RefCell<Stop>,
}

impl<'l> Meter<'l> {
    fn new(limits: &'l Limits, count_bytes: bool) -> Self {
        Meter {
            limits,
            nodes: std::cell::Cell::new(0),
            strings: std::cell::Cell::new(0),
            deepest: std::cell::Cell::new(0),
            bytes: count_bytes.then(|| std::cell::Cell::new(0)),
            stop: Default::default(),
        }
    }

    fn root(&self) -> Counted<'_, 'l, 'static> {
        Counted {
            meter: self,
            depth: 0,
            part: Part::Whole,
        }
    }

    /// A string (or key) of `n` bytes read.
    #[inline]
    fn string(&self, n: usize) {
        self.strings.set(self.strings.get() + n);
    }

    fn fail<E: serde::de::Error>(&self, stop: Stop) -> E {
        let what = match &stop {
            Stop::Nodes => "maxInputNodes",
            Stop::Depth => "maxDepth",
            Stop::Bytes => "maxInputBytes",
            Stop::NotJson(_) => "not JSON",
            Stop::None => "stopped",
        };
        *self.stop.borrow_mut() = stop;
        E::custom(what)
    }

    /// Add `n` bytes of compact JSON (when counting).
    fn add_bytes<E: serde::de::Error>(&self, n: usize) -> std::result::Result<(), E> {
        if let Some(b) = &self.bytes {
            let total = b.get().saturating_add(n);
            b.set(total);
            if total > self.limits.max_input_bytes {
                return Err(self.fail(Stop::Bytes));
            }
        }
        Ok(())
    }

    /// Add a string's size as a JSON string (quotes and escapes, as
    /// serde_json writes them).
    fn add_string<E: serde::de::Error>(&self, s: &str) -> std::result::Result<(), E> {
        if self.bytes.is_none() {
            return Ok(());
        }
        let escapes: usize = s
            .bytes()
            .map(|b| match b {
                b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 1,
                0..0x20 => 5,
                _ => 0,
            })
            .sum();
        self.add_bytes(s.len() + 2 + escapes)
    }
}

/// A value read by [`read_json_counted`], [`read_json_projected`] or
/// [`read_host_value`]: `depth` containers enclose it, and `part` is what
/// of it is kept.
#[derive(Clone, Copy)]
struct Counted<'m, 'l, 'p> {
    meter: &'m Meter<'l>,
    depth: usize,
    part: Part<'p>,
}

/// What of a value a reading keeps.
#[derive(Clone, Copy)]
enum Part<'p> {
    /// All of it.
    Whole,
    /// What expressions read of it ([`Reads`]): the rest is read (counted,
    /// its depth and keys checked) and not built.
    Read(&'p Reads),
    /// Nothing: read and let go (the value given back is `null`).
    Skip,
}

impl<'p> Part<'p> {
    /// What is kept of a value of which `r` is read (`None`: nothing).
    fn of(r: Option<&'p Reads>) -> Part<'p> {
        match r {
            None => Part::Skip,
            Some(r) if r.is_whole() => Part::Whole,
            Some(r) => Part::Read(r),
        }
    }
}

impl<'p> Counted<'_, '_, 'p> {
    fn with(self, part: Part<'p>) -> Self {
        Counted { part, ..self }
    }

    /// Count one more node (of `json_bytes` bytes as compact JSON, when
    /// counted).
    fn count<E: serde::de::Error>(&self, json_bytes: usize) -> std::result::Result<(), E> {
        let m = self.meter;
        let n = m.nodes.get() + 1;
        m.nodes.set(n);
        if n > m.limits.max_input_nodes {
            return Err(m.fail(Stop::Nodes));
        }
        m.add_bytes(json_bytes)
    }

    fn scalar<E: serde::de::Error>(
        self,
        v: Value,
        json_bytes: usize,
    ) -> std::result::Result<Value, E> {
        self.count(json_bytes)?;
        Ok(v)
    }

    /// Count a container (its brackets), and the seed of its elements; an
    /// error past `maxDepth`.
    fn container<E: serde::de::Error>(self) -> std::result::Result<Self, E> {
        self.count(2)?;
        if self.depth >= self.meter.limits.max_depth {
            return Err(self.meter.fail(Stop::Depth));
        }
        let deepest = &self.meter.deepest;
        deepest.set(deepest.get().max(self.depth + 1));
        Ok(Counted {
            depth: self.depth + 1,
            ..self
        })
    }
}

/// The number of bytes of an integer's decimal form.
fn digits(mut n: u64) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

impl<'de> serde::de::DeserializeSeed<'de> for Counted<'_, '_, '_> {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Counted<'_, '_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<Value, E> {
        self.scalar(Value::Bool(v), if v { 4 } else { 5 })
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<Value, E> {
        let sign = usize::from(v < 0);
        self.scalar(Value::from(v), sign + digits(v.unsigned_abs()))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<Value, E> {
        self.scalar(Value::from(v), digits(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Value, E> {
        match Number::from_f64(v) {
            Some(n) => {
                let len = match self.meter.bytes {
                    Some(_) => n.to_string().len(),
                    None => 0,
                };
                self.scalar(Value::Number(n), len)
            }
            None => Err(self.meter.fail(Stop::NotJson(format!(
                "it holds the number {v}, which is not finite"
            )))),
        }
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Value, E> {
        self.meter.add_string(v)?;
        self.meter.string(v.len());
        if let Part::Skip = self.part {
            return self.scalar(Value::Null, 0);
        }
        self.scalar(Value::String(v.to_string()), 0)
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Value, E> {
        self.meter.add_string(&v)?;
        self.meter.string(v.len());
        self.scalar(Value::String(v), 0)
    }

    fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<Value, E> {
        self.scalar(Value::Null, 4)
    }

    fn visit_none<E: serde::de::Error>(self) -> std::result::Result<Value, E> {
        self.visit_unit()
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Value, A::Error> {
        let inner = self.container::<A::Error>()?;
        let inner = match self.part {
            Part::Whole => inner,
            Part::Read(r) if r.array_whole() => inner.with(Part::Whole),
            Part::Read(r) => inner.with(Part::of(r.element())),
            Part::Skip => {
                while seq.next_element_seed(inner)?.is_some() {}
                return Ok(Value::Null);
            }
        };
        if let Part::Skip = inner.part {
            // Kept for its type: an empty array.
            while seq.next_element_seed(inner)?.is_some() {}
            return Ok(Value::Array(Vec::new()));
        }
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(inner)? {
            if !items.is_empty() {
                self.meter.add_bytes(1)?;
            }
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut access: A,
    ) -> std::result::Result<Value, A::Error> {
        let inner = self.container::<A::Error>()?;
        match self.part {
            Part::Read(r) if !r.object_whole() => return self.some_members(r, inner, access),
            Part::Skip => return self.no_members(inner, access),
            _ => {}
        }
        let inner = inner.with(Part::Whole);
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            self.meter.string(key.len());
            let read = (|| {
                // The key, its colon and (after the first entry) a comma.
                self.meter.add_string(&key)?;
                self.meter.add_bytes(1 + usize::from(!map.is_empty()))?;
                access.next_value_seed(inner)
            })();
            self.insert_once(&mut map, key, read)?;
        }
        Ok(Value::Object(map))
    }
}

impl Counted<'_, '_, '_> {
    /// Put a member read into `map`, its key hashed once: a key met twice
    /// is refused as such, also where reading its value failed (it is
    /// found before its value, as a reader that looked first would).
    fn insert_once<E: serde::de::Error>(
        self,
        map: &mut Map<String, Value>,
        key: String,
        read: std::result::Result<Value, E>,
    ) -> std::result::Result<(), E> {
        let v = match read {
            Ok(v) => v,
            Err(_) if map.contains_key(&key) => return Err(self.twice(&key)),
            Err(e) => return Err(e),
        };
        match map.entry(key) {
            serde_json::map::Entry::Occupied(o) => Err(self.twice(o.key())),
            serde_json::map::Entry::Vacant(slot) => {
                slot.insert(v);
                Ok(())
            }
        }
    }
}

impl<'p> Counted<'_, '_, 'p> {
    /// The members of an object `r` reads: built as read, the others read
    /// and let go; a key met twice refused whether kept or not.
    fn some_members<'de, A: serde::de::MapAccess<'de>>(
        self,
        r: &'p Reads,
        inner: Self,
        mut access: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut map = Map::new();
        // A key is kept or let go by its name alone, so a key met twice
        // is met twice among the kept or among the others.
        let mut others = Seen::default();
        while let Some(key) = access.next_key_seed(KeySeed)? {
            self.meter.string(key.len());
            match r.member(&key) {
                Some(c) => {
                    let read = access.next_value_seed(inner.with(Part::of(Some(c))));
                    self.insert_once(&mut map, key.into_owned(), read)?;
                }
                None => {
                    if let Some(key) = others.add(key) {
                        return Err(self.twice(&key));
                    }
                    access.next_value_seed(inner.with(Part::Skip))?;
                }
            }
        }
        Ok(Value::Object(map))
    }

    /// An object of which nothing is kept: read and let go, a key met
    /// twice refused.
    fn no_members<'de, A: serde::de::MapAccess<'de>>(
        self,
        inner: Self,
        mut access: A,
    ) -> std::result::Result<Value, A::Error> {
        let inner = inner.with(Part::Skip);
        let mut keys = Seen::default();
        while let Some(key) = access.next_key_seed(KeySeed)? {
            self.meter.string(key.len());
            if let Some(key) = keys.add(key) {
                return Err(self.twice(&key));
            }
            access.next_value_seed(inner)?;
        }
        Ok(Value::Null)
    }

    fn twice<E: serde::de::Error>(self, key: &str) -> E {
        let why = format!("it holds the key {key:?} twice");
        self.meter.fail(Stop::NotJson(why))
    }
}

/// The keys of an object met so far and let go: a key met twice is found
/// when it is met, before its value is read (as the whole reader finds it),
/// by a scan of the first few, a hash set past [`Seen::FEW`].
#[derive(Default)]
struct Seen<'de> {
    few: Vec<std::borrow::Cow<'de, str>>,
    many: std::collections::HashSet<std::borrow::Cow<'de, str>>,
}

impl<'de> Seen<'de> {
    const FEW: usize = 16;

    /// Add `key`; the key back if it was met before.
    fn add(&mut self, key: std::borrow::Cow<'de, str>) -> Option<std::borrow::Cow<'de, str>> {
        if self.many.is_empty() {
            if self.few.contains(&key) {
                return Some(key);
            }
            if self.few.len() < Self::FEW {
                self.few.push(key);
                return None;
            }
            self.many.extend(self.few.drain(..));
        }
        if self.many.contains(&key) {
            return Some(key);
        }
        self.many.insert(key);
        None
    }
}

/// A key as read: borrowed from the text where it has no escapes.
struct KeySeed;

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed {
    type Value = std::borrow::Cow<'de, str>;

    fn deserialize<D: serde::Deserializer<'de>>(
        self,
        d: D,
    ) -> std::result::Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed {
    type Value = std::borrow::Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: serde::de::Error>(
        self,
        v: &'de str,
    ) -> std::result::Result<Self::Value, E> {
        Ok(std::borrow::Cow::Borrowed(v))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(v.to_string()))
    }

    fn visit_string<E: serde::de::Error>(self, v: String) -> std::result::Result<Self::Value, E> {
        Ok(std::borrow::Cow::Owned(v))
    }
}

/// serde_json reports a byte column; convert it to a character column.
pub(super) fn json_position(text: &str, line: usize, byte_column: usize) -> (usize, usize) {
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
