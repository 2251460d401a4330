//! Cluster snapshots: what a listing of one cluster read, as JSON Lines, to
//! answer from later and elsewhere (`workload-lens snapshot`, `get
//! --snapshot`, the fleet tools).
//!
//! A snapshot is written while a [`ClusterOp::List`] session runs
//! ([`ClusterSession::recording`](super::protocol::ClusterSession::recording)):
//! page by page, never held whole. Its lines, each one JSON object:
//!
//! 1. the header ([`SnapshotHeader`]): `{"format": "workload-lens-snapshot",
//!    "version": 1, "cluster": ..., "capturedAt": ..., ...}`;
//! 2. one record per object read: `{"roles": ["object"], "object": {...}}`.
//!    The roles are those the listing gave it: `definition` (a definition
//!    stored in the cluster), `object` (an object of a covered type), `pod`
//!    (a pod, for the rows' live counts), `owner` (an object of a type no
//!    definition covers that a controller chain goes through). A pod of a
//!    listed Pod type is both `object` and `pod`. `managedFields` are left
//!    out;
//! 3. the end ([`SnapshotEnd`]): `{"end": {"records": N, "warnings": [...],
//!    ...}}`: what the listing left out and why, and the served types. A
//!    file without it was cut short, and is refused.
//!
//! [`SnapshotReader`] reads the lines back, and [`SnapshotReader::listing`]
//! gives the [`Listing`] the live command gave: the same rows, by the same
//! function ([`Engine::list_workloads_with_pods`]'s), with the cluster's
//! definitions over the engine's, and the same warnings. Reading is bounded
//! as a live listing is: each line by `maxInputBytes`, what is kept by
//! `maxClusterBytes`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::protocol::{
    Ask, ClusterOp, ClusterOutcome, DescribeQuery, Description, Listing, Reply, is_pod,
    owner_warning, stub,
};
pub use super::records::{RecordRole, Unlisted};
use super::state::LabelSelector;
use super::{ApiResource, ClusterWarning, ListOptions, OwnerKind, Pods, meta_str};
use crate::engine::Engine;
use crate::error::{Error, ErrorCode, Location, Result};
use crate::resolved::WorkloadStatus;

/// The `format` of a snapshot's header.
pub const SNAPSHOT_FORMAT: &str = "workload-lens-snapshot";

/// The version of the snapshot format this engine writes and reads.
pub const SNAPSHOT_VERSION: u32 = 1;

/// A snapshot's first line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SnapshotHeader {
    /// Always [`SNAPSHOT_FORMAT`].
    pub format: String,
    /// [`SNAPSHOT_VERSION`] when written by this engine.
    pub version: u32,
    /// The cluster's name, as the writer was told it (`--cluster`, else
    /// the kubeconfig context).
    pub cluster: String,
    /// When the capture started, RFC 3339 in UTC.
    pub captured_at: String,
    /// The namespace captured (none: every namespace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The label selector the covered types were listed with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
    /// The writer (`workload-lens 0.1.0`).
    #[serde(default)]
    pub writer: String,
}

impl SnapshotHeader {
    /// A header of this engine's format and version.
    pub fn new(cluster: impl Into<String>, captured_at: impl Into<String>) -> SnapshotHeader {
        SnapshotHeader {
            format: SNAPSHOT_FORMAT.into(),
            version: SNAPSHOT_VERSION,
            cluster: cluster.into(),
            captured_at: captured_at.into(),
            namespace: None,
            label_selector: None,
            writer: format!("workload-lens {}", env!("CARGO_PKG_VERSION")),
        }
    }

    /// The header as its line (JSON, no newline).
    pub fn line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// A snapshot's last line, under the key `end`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SnapshotEnd {
    /// The records written between the header and this line.
    pub records: usize,
    /// What the listing left out, and why (not the rows' own owner
    /// warnings: those are derived from the rows when read).
    #[serde(default)]
    pub warnings: Vec<ClusterWarning>,
    /// Types that could not be listed: forbidden.
    #[serde(default)]
    pub forbidden: Vec<String>,
    /// Owner kinds whose list failed.
    #[serde(default)]
    pub unreadable: Vec<OwnerKind>,
    /// The types listed.
    #[serde(default)]
    pub types: Vec<ApiResource>,
    /// Every served resource (discovery).
    #[serde(default)]
    pub served: Vec<ApiResource>,
    /// Whether the events and related objects (Kueue Workloads, gang
    /// groups) were recorded, for `describe --snapshot`: false in a
    /// snapshot written before they were.
    #[serde(default)]
    pub events: bool,
    /// The lists the server refused while the snapshot was written, with
    /// its status and message (a description read back gets the same
    /// answer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlisted: Vec<Unlisted>,
}

impl SnapshotEnd {
    /// The end of a snapshot of `listing`, after `records` records.
    pub fn of(listing: &Listing, records: usize) -> SnapshotEnd {
        SnapshotEnd {
            records,
            warnings: listing.warnings[..listing.session_warnings.min(listing.warnings.len())]
                .to_vec(),
            forbidden: listing.forbidden.clone(),
            unreadable: listing.unreadable.clone(),
            types: listing.types.clone(),
            served: listing.served.clone(),
            events: listing.recorded_extras.is_some(),
            unlisted: listing.recorded_extras.clone().unwrap_or_default(),
        }
    }

    /// The end as its line (JSON, no newline).
    pub fn line(&self) -> String {
        serde_json::json!({ "end": self }).to_string()
    }
}

/// What [`SnapshotReader::listing`] keeps of the snapshot: as `get -n` and
/// `get --phase` keep of a live listing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SnapshotQuery {
    /// Only this namespace's objects and pods (and cluster-scoped ones);
    /// none: all the snapshot holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Keep only workloads with one of these statuses (case-insensitive).
    #[serde(default)]
    pub phases: Vec<String>,
}

/// What one line of a snapshot is ([`SnapshotLines::read`]).
#[derive(Debug, Clone, PartialEq)]
pub enum SnapshotLine<'a> {
    /// An empty line (skipped).
    Blank,
    /// The header (now in [`SnapshotLines::header`]).
    Header,
    /// A record: its roles and its object's JSON text, as written.
    Record {
        /// What the listing used it for.
        roles: Vec<RecordRole>,
        /// The object, JSON text (not read yet).
        object: std::borrow::Cow<'a, str>,
    },
    /// The end (now in [`SnapshotLines::end`]).
    End,
}

/// The rules of a snapshot's lines, without keeping its objects: the
/// header first, of this format and version; records of known roles; the
/// end last, counting the records. [`SnapshotReader`] keeps what they hold;
/// the fleet tools split a snapshot into records with it.
#[derive(Debug, Clone)]
pub struct SnapshotLines {
    max_line: usize,
    /// With [`SnapshotLines::holding`]: the records' bytes so far, and
    /// `maxClusterBytes`.
    held: Option<(usize, usize)>,
    line: usize,
    header: Option<SnapshotHeader>,
    end: Option<SnapshotEnd>,
    records: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordShape {
    roles: Vec<RecordRole>,
    object: serde::de::IgnoredAny,
}

/// The text of the value of the top-level key `object` of a JSON object
/// already read as valid: a scan that follows strings and nesting. None
/// when the key is written with escapes (then the caller reads the value).
fn object_text(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let (mut i, mut depth) = (0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                let key = line.get(start..i)?;
                i += 1;
                if depth == 1 && key == "object" {
                    // A key (followed by ':'), not a value.
                    if let Some(rest) = line.get(i..)?.trim_start().strip_prefix(':') {
                        let rest = rest.trim_start();
                        let at = line.len() - rest.len();
                        return value_end(b, at).and_then(|end| line.get(at..end));
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// Where the JSON value starting at `at` (an object or array) ends.
fn value_end(b: &[u8], at: usize) -> Option<usize> {
    let (mut i, mut depth) = (at, 0usize);
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndLine {
    end: SnapshotEnd,
}

impl SnapshotLines {
    /// Lines read within `limits` (each at most `maxInputBytes`).
    pub fn new(limits: &crate::Limits) -> SnapshotLines {
        SnapshotLines {
            max_line: limits.effective().max_input_bytes,
            held: None,
            line: 0,
            header: None,
            end: None,
            records: 0,
        }
    }

    /// [`SnapshotLines::new`], for a caller that holds every record it is
    /// given (the fleet tools): their objects' bytes are charged to
    /// `maxClusterBytes`, past which a line is a `limit` error.
    pub fn holding(limits: &crate::Limits) -> SnapshotLines {
        SnapshotLines {
            held: Some((0, limits.effective().max_cluster_bytes)),
            ..SnapshotLines::new(limits)
        }
    }

    /// The header, once its line is read.
    pub fn header(&self) -> Option<&SnapshotHeader> {
        self.header.as_ref()
    }

    /// The end, once its line is read.
    pub fn end(&self) -> Option<&SnapshotEnd> {
        self.end.as_ref()
    }

    /// Lines read so far.
    pub fn lines(&self) -> usize {
        self.line
    }

    /// Records read so far.
    pub fn records(&self) -> usize {
        self.records
    }

    fn error(&self, code: ErrorCode, message: impl Into<String>) -> Error {
        Error::new(code, message).at(Location {
            line: Some(self.line),
            ..Location::default()
        })
    }

    /// Read the next line (its newline, if any, left out). Errors are
    /// located by line: `parse` for a line that is not what its place asks
    /// for, `limit` for a line past `maxInputBytes`.
    pub fn read<'a>(&mut self, line: &'a str) -> Result<SnapshotLine<'a>> {
        self.line += 1;
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            return Ok(SnapshotLine::Blank);
        }
        if self.end.is_some() {
            return Err(self.error(ErrorCode::Parse, "a line after the snapshot's end line"));
        }
        if line.len() > self.max_line {
            return Err(Error::limit_error(
                "maxInputBytes",
                format!(
                    "the line is longer than the limit maxInputBytes ({} bytes)",
                    self.max_line
                ),
            )
            .at(Location {
                line: Some(self.line),
                ..Location::default()
            }));
        }
        if self.header.is_none() {
            let header: SnapshotHeader = serde_json::from_str(line).map_err(|e| {
                self.error(
                    ErrorCode::Parse,
                    format!("not a workload-lens snapshot: its first line is no header ({e})"),
                )
            })?;
            if header.format != SNAPSHOT_FORMAT {
                return Err(self.error(
                    ErrorCode::Parse,
                    format!(
                        "not a workload-lens snapshot: the header's format is '{}', not \
                         '{SNAPSHOT_FORMAT}'",
                        header.format
                    ),
                ));
            }
            if header.version != SNAPSHOT_VERSION {
                return Err(self.error(
                    ErrorCode::Parse,
                    format!(
                        "snapshot format version {} is not read by this version, which reads \
                         version {SNAPSHOT_VERSION}",
                        header.version
                    ),
                ));
            }
            self.header = Some(header);
            return Ok(SnapshotLine::Header);
        }
        if line.trim_start().starts_with("{\"end\"") {
            let end: EndLine = serde_json::from_str(line).map_err(|e| {
                self.error(ErrorCode::Parse, format!("the snapshot's end line: {e}"))
            })?;
            if end.end.records != self.records {
                return Err(self.error(
                    ErrorCode::Parse,
                    format!(
                        "the snapshot's end line counts {} records, but {} were read",
                        end.end.records, self.records
                    ),
                ));
            }
            self.end = Some(end.end);
            return Ok(SnapshotLine::End);
        }
        let record: RecordShape = serde_json::from_str(line)
            .map_err(|e| self.error(ErrorCode::Parse, format!("not a record ({e})")))?;
        let _ = record.object;
        if record.roles.is_empty() {
            return Err(self.error(ErrorCode::Parse, "the record has no role"));
        }
        let object = match object_text(line) {
            Some(text) => std::borrow::Cow::Borrowed(text),
            // A key written with escapes: read the value, and write it.
            None => {
                let v: Value = serde_json::from_str::<serde_json::Map<String, Value>>(line)
                    .ok()
                    .and_then(|mut m| m.remove("object"))
                    .unwrap_or(Value::Null);
                std::borrow::Cow::Owned(v.to_string())
            }
        };
        if !object.starts_with('{') {
            return Err(self.error(ErrorCode::Parse, "the record's object is no object"));
        }
        if let Some((held, max)) = &mut self.held {
            *held = held.saturating_add(object.len());
            if *held > *max {
                return Err(Error::limit_error(
                    "maxClusterBytes",
                    format!(
                        "the snapshot's records hold more than the limit maxClusterBytes ({max} \
                         bytes)"
                    ),
                )
                .at(Location {
                    line: Some(self.line),
                    ..Location::default()
                }));
            }
        }
        self.records += 1;
        Ok(SnapshotLine::Record {
            roles: record.roles,
            object,
        })
    }

    /// The header and end of a whole snapshot: an error when it is empty
    /// or was cut short (no end line).
    pub fn finish(&self) -> Result<(&SnapshotHeader, &SnapshotEnd)> {
        let Some(header) = &self.header else {
            return Err(Error::new(
                ErrorCode::Parse,
                "not a workload-lens snapshot: it is empty",
            ));
        };
        let Some(end) = &self.end else {
            return Err(self.error(
                ErrorCode::Parse,
                format!(
                    "the snapshot ends without its end line after {} records: it was cut short",
                    self.records
                ),
            ));
        };
        Ok((header, end))
    }
}

/// A record's namespace (its object's `metadata.namespace`; none for a
/// cluster-scoped object, or one serde cannot read as an object): the
/// fleet tools' partition key.
pub fn record_namespace(object: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Meta {
        namespace: Option<String>,
    }
    #[derive(Deserialize)]
    struct Object {
        metadata: Option<Meta>,
    }
    serde_json::from_str::<Object>(object)
        .ok()
        .and_then(|o| o.metadata)
        .and_then(|m| m.namespace)
        .filter(|n| !n.is_empty())
}

/// Reads a snapshot's lines back (see the module documentation).
#[derive(Debug)]
pub struct SnapshotReader {
    engine: Engine,
    lines: SnapshotLines,
    kept: usize,
    definitions: Vec<Value>,
    objects: Vec<Value>,
    owners: Vec<Value>,
    pod_links: Vec<Value>,
    pod_texts: Vec<Box<str>>,
    events: Vec<Value>,
    related: Vec<Value>,
    /// The engine the listing resolves with (the cluster's definitions
    /// over this one's), made at the first record that is no definition.
    cluster_engine: Option<Engine>,
    /// Objects of covered types controlled by a covered object: as a live
    /// listing drops them (their stub goes with the owners), remembered
    /// in case their controller is not there (then they are orphans):
    /// (controller uid, uid, where the object is).
    dropped: Vec<(Box<str>, Box<str>, DroppedAt)>,
    /// Which of `owners` are such stubs (of dropped objects that are not
    /// pods), not owner records.
    stub: Vec<bool>,
}

/// Where a dropped object is: a pod's text, or its own text and its stub
/// (in `owners`).
#[derive(Debug)]
enum DroppedAt {
    Pod(usize),
    Text { text: Box<str>, stub: usize },
}

impl SnapshotReader {
    /// A reader whose listing resolves with `engine`'s definitions (under
    /// the cluster's, as a live listing does) and limits.
    pub fn new(engine: &Engine) -> SnapshotReader {
        SnapshotReader {
            engine: engine.clone(),
            lines: SnapshotLines::new(engine.limits()),
            kept: 0,
            definitions: Vec::new(),
            objects: Vec::new(),
            owners: Vec::new(),
            pod_links: Vec::new(),
            pod_texts: Vec::new(),
            events: Vec::new(),
            related: Vec::new(),
            cluster_engine: None,
            dropped: Vec::new(),
            stub: Vec::new(),
        }
    }

    /// The header, once its line is read.
    pub fn header(&self) -> Option<&SnapshotHeader> {
        self.lines.header()
    }

    /// The end, once its line is read.
    pub fn end(&self) -> Option<&SnapshotEnd> {
        self.lines.end()
    }

    /// Lines read so far.
    pub fn lines(&self) -> usize {
        self.lines.lines()
    }

    fn error(&self, code: ErrorCode, message: impl Into<String>) -> Error {
        self.lines.error(code, message)
    }

    /// Read the next line (its newline, if any, left out; an empty line is
    /// skipped): [`SnapshotLines::read`]'s rules, then each record's object
    /// read within the limits and kept, charged to `maxClusterBytes`.
    pub fn feed_line(&mut self, line: &str) -> Result<()> {
        let (roles, text) = match self.lines.read(line)? {
            SnapshotLine::Record { roles, object } => (roles, object),
            _ => return Ok(()),
        };
        let limits = *self.engine.limits();
        let object = crate::source::read_value(&text, &limits)
            .map_err(|e| self.error(e.code(), e.message().to_string()))?;
        let mut bytes = text.len();
        if roles.contains(&RecordRole::Pod) {
            bytes += text.len() / 4;
        }
        self.kept = self.kept.saturating_add(bytes);
        let limit = limits.max_cluster_bytes;
        if self.kept > limit {
            return Err(Error::limit_error(
                "maxClusterBytes",
                format!(
                    "the snapshot holds more than the limit maxClusterBytes ({limit} bytes) of \
                     objects; a namespace's snapshot is smaller"
                ),
            )
            .at(Location {
                line: Some(self.lines.lines()),
                ..Location::default()
            }));
        }
        if roles.contains(&RecordRole::Definition) {
            if self.cluster_engine.is_some() {
                return Err(self.error(
                    ErrorCode::Parse,
                    "a definition after the objects: a snapshot's definitions come first",
                ));
            }
            self.definitions.push(object);
            return Ok(());
        }
        if self.cluster_engine.is_none() {
            let (engine, _) = self.engine.with_cluster_definitions(&self.definitions);
            self.cluster_engine = Some(engine);
        }
        let mut pod_at = None;
        if roles.contains(&RecordRole::Pod) {
            if !is_pod(&object) {
                return Err(self.error(ErrorCode::Parse, "a record said to be a pod is not one"));
            }
            pod_at = Some(self.pod_texts.len());
            self.pod_links.push(stub(&object));
            self.pod_texts.push(text.into());
        }
        if roles.contains(&RecordRole::Object) {
            let engine = self.cluster_engine.as_ref().unwrap_or(&self.engine);
            let controller = super::controller(&object)
                .map(|(_, _, u)| u)
                .filter(|u| !u.is_empty());
            match (controller, meta_str(&object, "uid")) {
                // As a live listing of top-level workloads keeps them.
                (Some(c), Some(uid)) if engine.controlled_by_covered(&object) => {
                    let at = match pod_at {
                        Some(i) => DroppedAt::Pod(i),
                        None => {
                            self.owners.push(stub(&object));
                            self.stub.push(true);
                            DroppedAt::Text {
                                text: serde_json::to_string(&object).unwrap_or_default().into(),
                                stub: self.owners.len() - 1,
                            }
                        }
                    };
                    self.dropped.push((c.into(), uid.into(), at));
                }
                _ => self.objects.push(object.clone()),
            }
        }
        if roles.contains(&RecordRole::Owner) {
            self.owners.push(object.clone());
            self.stub.push(false);
        }
        if roles.contains(&RecordRole::Event) {
            self.events.push(object.clone());
        }
        if roles.contains(&RecordRole::Related) {
            self.related.push(object);
        }
        Ok(())
    }

    /// The owner records (not the stubs among `owners`).
    fn owner_records(&self) -> impl Iterator<Item = &Value> {
        self.owners
            .iter()
            .zip(&self.stub)
            .filter(|(_, s)| !**s)
            .map(|(o, _)| o)
    }

    /// The objects a listing gives its rows: the top-level ones, and the
    /// dropped ones whose controller is nowhere in the snapshot (orphans,
    /// at most [`MAX_ORPHANS`](crate::MAX_ORPHANS) in the snapshot's order,
    /// as a live listing reads them again).
    fn listed_objects(&self) -> std::borrow::Cow<'_, [Value]> {
        let known: std::collections::HashSet<&str> = self
            .objects
            .iter()
            .chain(self.owner_records())
            .filter_map(|o| meta_str(o, "uid"))
            .chain(self.dropped.iter().map(|(_, u, _)| &**u))
            .collect();
        let mut lost = self
            .dropped
            .iter()
            .filter(|(c, _, _)| !known.contains(&**c))
            .take(crate::MAX_ORPHANS)
            .peekable();
        if lost.peek().is_none() {
            return std::borrow::Cow::Borrowed(&self.objects);
        }
        let mut out = self.objects.clone();
        for (_, _, at) in lost {
            let text = match at {
                DroppedAt::Pod(i) => &self.pod_texts[*i],
                DroppedAt::Text { text, .. } => text,
            };
            if let Ok(v) = serde_json::from_str(text) {
                out.push(v);
            }
        }
        std::borrow::Cow::Owned(out)
    }

    /// Read every line of `text`.
    pub fn feed_text(&mut self, text: &str) -> Result<()> {
        text.lines().try_for_each(|l| self.feed_line(l))
    }

    /// The listing the live command gave (see the module documentation),
    /// with `query`'s namespace and statuses kept. The snapshot must be
    /// whole: its header and end read.
    pub fn listing(&self, query: &SnapshotQuery) -> Result<Listing> {
        let (header, end) = self.lines.finish()?;
        if let Some(bad) = query
            .phases
            .iter()
            .find(|p| WorkloadStatus::parse(p).is_none())
        {
            let known: Vec<&str> = WorkloadStatus::ALL.iter().map(|w| w.as_str()).collect();
            return Err(Error::new(
                ErrorCode::Usage,
                format!(
                    "unknown status '{bad}' to keep; the statuses are {}",
                    known.join(", ")
                ),
            ));
        }
        let engine = match &self.cluster_engine {
            Some(e) => e.clone(),
            None => self.engine.with_cluster_definitions(&self.definitions).0,
        };
        let listed = self.listed_objects();
        // The owners, and the stubs of the objects dropped as controlled.
        let owners_and_stubs = &self.owners;
        let keep = |o: &Value| match (&query.namespace, meta_str(o, "namespace")) {
            (Some(want), Some(ns)) if !ns.is_empty() => want == ns,
            _ => true,
        };
        let filtered;
        let (objects, owners, links, texts) = if query.namespace.is_some() {
            let objects: Vec<Value> = listed.iter().filter(|o| keep(o)).cloned().collect();
            let owners: Vec<Value> = owners_and_stubs
                .iter()
                .filter(|o| keep(o))
                .cloned()
                .collect();
            let (links, texts): (Vec<Value>, Vec<Box<str>>) = self
                .pod_links
                .iter()
                .zip(&self.pod_texts)
                .filter(|(l, _)| keep(l))
                .map(|(l, t)| (l.clone(), t.clone()))
                .unzip();
            filtered = (objects, owners, links, texts);
            (
                filtered.0.as_slice(),
                filtered.1.as_slice(),
                filtered.2.as_slice(),
                filtered.3.as_slice(),
            )
        } else {
            (
                listed.as_ref(),
                owners_and_stubs.as_slice(),
                self.pod_links.as_slice(),
                self.pod_texts.as_slice(),
            )
        };
        let options = ListOptions {
            top_level_only: true,
            phases: query.phases.clone(),
            owners_complete: true,
            unreadable: end.unreadable.clone(),
        };
        let pods = Pods::Texts { links, texts };
        let workloads = engine.list_live(objects, owners, Some(pods), &options);
        let mut warnings = end.warnings.clone();
        let session_warnings = warnings.len();
        warnings.extend(workloads.iter().filter_map(owner_warning));
        Ok(Listing {
            workloads,
            warnings,
            forbidden: end.forbidden.clone(),
            types: end.types.clone(),
            resource_versions: vec![String::new(); end.types.len()],
            namespace: query.namespace.clone().or_else(|| header.namespace.clone()),
            served: end.served.clone(),
            owners: owners.to_vec(),
            engine,
            unreadable: end.unreadable.clone(),
            session_warnings,
            recorded_extras: end.events.then(|| end.unlisted.clone()),
        })
    }

    /// The description `describe TYPE/NAME` gave when the snapshot was
    /// taken (and `why TYPE/NAME`'s diagnosis of it): the engine's
    /// description operation ([`ClusterOp::Describe`]) run over the
    /// snapshot's records instead of the server. Each request it makes is
    /// answered from the records as the server answered the listing: the
    /// object by name, a namespace's pods, owners, events, Kueue Workloads
    /// and gang groups in pages of the query's chunk size, with the label
    /// selector a request carries; a type the capture could not list is
    /// refused as it was (HTTP 403, or the status recorded). The snapshot
    /// must be whole.
    pub fn describe(&self, query: &DescribeQuery) -> Result<Description> {
        let (header, end) = self.lines.finish()?;
        let mut query = query.clone();
        query.served = Some(end.served.clone());
        let mut session = self
            .engine
            .cluster_session(ClusterOp::Describe(query.clone()))
            .with_server(format!("the snapshot of {}", header.cluster));
        // Each round answers a batch; the session's own bounds (pages per
        // list, owner rounds) end it, as they end a live one. The answers
        // are found through an index of the records (built once, linear in
        // what the reader holds, which `maxClusterBytes` bounds), and every
        // record an answer reads is a step of `maxSteps`: a description
        // reads each record a bounded number of times, whatever its pages'
        // size.
        let steps = std::cell::Cell::new(self.engine.limits().max_steps);
        let index = self.index();
        while !session.is_done() {
            let replies: Vec<Reply> = session
                .asks()
                .into_iter()
                .map(|ask| self.answer(ask, end, &index, &steps))
                .collect::<Result<_>>()?;
            if let Err(e) = session.feed(replies) {
                return Err(self.not_found_here(e, header, &query, &index));
            }
        }
        match session.finish() {
            Ok(ClusterOutcome::Description(mut d)) => {
                if !end.events {
                    d.warnings.push(ClusterWarning {
                        reason: "snapshot".into(),
                        object: "events".into(),
                        message: "the snapshot holds no events (written before snapshots \
                                  recorded them): none are shown, and a diagnosis cannot read \
                                  them"
                            .into(),
                    });
                }
                Ok(*d)
            }
            Ok(_) => Err(Error::new(ErrorCode::Usage, "internal: not a description")),
            Err(e) => Err(self.not_found_here(e, header, &query, &index)),
        }
    }

    /// A workload not found: say where the snapshot has one of that name,
    /// or that it holds another namespace only.
    fn not_found_here(
        &self,
        e: Error,
        header: &SnapshotHeader,
        q: &DescribeQuery,
        index: &Index<'_>,
    ) -> Error {
        if e.code() != ErrorCode::NotFound {
            return e;
        }
        if let (Some(held), Some(asked)) = (&header.namespace, &q.namespace)
            && held != asked
        {
            return e.suffix(&format!("; the snapshot holds only namespace {held}"));
        }
        let served = q.served.as_deref().unwrap_or_default();
        let Ok(resource) = self.engine.find_type(&q.type_, served) else {
            return e;
        };
        let elsewhere: Vec<String> = index
            .records(&resource, None)
            .iter()
            .filter(|r| meta_str(r.meta(), "name") == Some(q.name.as_str()))
            .filter_map(|r| meta_str(r.meta(), "namespace").map(str::to_string))
            .take(3)
            .collect();
        match elsewhere.first() {
            Some(ns) => e.suffix(&format!(
                "; the snapshot has one in namespace {} (-n {ns})",
                elsewhere.join(", ")
            )),
            None => e,
        }
    }

    /// The answer the server gave to `ask`, from the records (found
    /// through `index`, each record read a step of `steps`).
    fn answer<'s>(
        &'s self,
        ask: Ask<'_>,
        end: &SnapshotEnd,
        index: &Index<'s>,
        steps: &std::cell::Cell<u64>,
    ) -> Result<Reply> {
        let refused = |resource: &ApiResource, namespace: Option<&str>| -> Option<Reply> {
            let name = super::type_name(resource);
            if let Some(u) = end.unlisted.iter().find(|u| {
                u.type_ == name && (u.namespace.is_none() || u.namespace.as_deref() == namespace)
            }) {
                return Some(status_reply(u.status, &u.message));
            }
            let unreadable = end.unreadable.iter().any(|k| {
                k.kind == resource.kind
                    && crate::model::Gvk::from_api_version(&k.api_version, &k.kind).group
                        == resource.group
            });
            (end.forbidden.contains(&name) || unreadable).then(|| {
                status_reply(
                    403,
                    &format!("{name} could not be listed when the snapshot was taken"),
                )
            })
        };
        take_step(steps, 1)?;
        Ok(match ask {
            Ask::Discovery => status_reply(404, "a snapshot answers no discovery"),
            Ask::Object {
                resource,
                namespace,
                name,
            } => match index.named(resource, namespace, name) {
                Some(r) => Reply::ok(r.text()),
                None => refused(resource, namespace).unwrap_or_else(|| {
                    status_reply(404, &format!("{} \"{name}\" not found", resource.plural))
                }),
            },
            Ask::List {
                resource,
                namespace,
                selector,
                cont,
                chunk,
            } => {
                if let Some(r) = refused(resource, namespace) {
                    return Ok(r);
                }
                let selector = match selector.map(LabelSelector::parse).transpose() {
                    Ok(s) => s,
                    Err(e) => return Ok(status_reply(400, e.message())),
                };
                // The continue token is the position, among the records of
                // the type (and namespace), where the next page starts: a
                // page resumes there, and the selector is matched against
                // each record once over all the pages (a pod's text is read
                // again only for its labels, or when it is on the page).
                let start: usize = cont.and_then(|c| c.parse().ok()).unwrap_or(0);
                let take = if chunk == 0 { usize::MAX } else { chunk };
                let mut items = Vec::new();
                let mut next = None;
                let records = index.records(resource, namespace);
                for (i, r) in records.iter().enumerate().skip(start) {
                    if items.len() == take {
                        next = Some(i.to_string());
                        break;
                    }
                    take_step(steps, 1)?;
                    let value = r.value();
                    if selector
                        .as_ref()
                        .is_none_or(|s| s.matches(value.pointer("/metadata/labels")))
                    {
                        items.push(value.into_owned());
                    }
                }
                let mut metadata = serde_json::Map::new();
                metadata.insert("resourceVersion".into(), Value::String(String::new()));
                if let Some(n) = next {
                    metadata.insert("continue".into(), Value::String(n));
                }
                let body = serde_json::json!({
                    "apiVersion": "v1",
                    "kind": "List",
                    "metadata": metadata,
                    "items": items,
                });
                Reply::ok(body.to_string())
            }
        })
    }

    /// The records by type, by type and namespace, and by name (the first
    /// of each), in the snapshot's order: the pods by their links (each
    /// once, even one that is also an object of a listed Pod type), then
    /// the definitions, objects, owners, events and related records, then
    /// the objects a listing dropped as controlled (a JobSet's Jobs), by
    /// their stubs.
    fn index<'s>(&'s self) -> Index<'s> {
        let mut index = Index::default();
        for (l, t) in self.pod_links.iter().zip(&self.pod_texts) {
            index.add(String::new(), "Pod", Held::Pod(l, t));
        }
        let type_of = |o: &'s Value| -> Option<(String, &'s str)> {
            let kind = o.get("kind").and_then(Value::as_str)?;
            let api = o.get("apiVersion").and_then(Value::as_str)?;
            Some((crate::model::Gvk::from_api_version(api, kind).group, kind))
        };
        let values = self
            .definitions
            .iter()
            .chain(&self.objects)
            .chain(self.owner_records())
            .chain(&self.events)
            .chain(&self.related)
            .map(Held::Value);
        let dropped = self.dropped.iter().filter_map(|(_, _, at)| match at {
            DroppedAt::Text { text, stub } => Some(Held::Pod(&self.owners[*stub], text)),
            DroppedAt::Pod(_) => None,
        });
        for held in values.chain(dropped) {
            match type_of(held.meta()) {
                // The pods are their links' only (each once).
                Some((group, "Pod")) if group.is_empty() => {}
                Some((group, kind)) => index.add(group, kind, held),
                None => {}
            }
        }
        index
    }
}

/// A step of answering a description from a snapshot.
fn take_step(steps: &std::cell::Cell<u64>, n: u64) -> Result<()> {
    let left = steps.get();
    if left < n {
        return Err(Error::limit_error(
            "maxSteps",
            "answering the description from the snapshot read more records than maxSteps allows",
        ));
    }
    steps.set(left - n);
    Ok(())
}

/// A type: its group and kind.
type TypeKey = (String, String);

/// A snapshot's records by type (and namespace, and name), each list in
/// the snapshot's order; built once for a description.
#[derive(Default)]
struct Index<'s> {
    all: std::collections::HashMap<TypeKey, Vec<Held<'s>>>,
    namespaced: std::collections::HashMap<(TypeKey, String), Vec<Held<'s>>>,
    named: std::collections::HashMap<(TypeKey, String), Held<'s>>,
    named_in: std::collections::HashMap<(TypeKey, String, String), Held<'s>>,
}

impl<'s> Index<'s> {
    fn add(&mut self, group: String, kind: &str, held: Held<'s>) {
        let key = (group, kind.to_string());
        let meta = held.meta();
        let namespace = meta_str(meta, "namespace");
        if let Some(name) = meta_str(meta, "name") {
            self.named
                .entry((key.clone(), name.to_string()))
                .or_insert(held);
            if let Some(ns) = namespace {
                self.named_in
                    .entry((key.clone(), ns.to_string(), name.to_string()))
                    .or_insert(held);
            }
        }
        if let Some(ns) = namespace {
            self.namespaced
                .entry((key.clone(), ns.to_string()))
                .or_default()
                .push(held);
        }
        self.all.entry(key).or_default().push(held);
    }

    /// The records of the type, and of the namespace when the type is
    /// namespaced and one is given, each once, in the snapshot's order.
    fn records(&self, resource: &ApiResource, namespace: Option<&str>) -> &[Held<'s>] {
        let key = (resource.group.clone(), resource.kind.clone());
        match namespace {
            Some(ns) if resource.namespaced => self.namespaced.get(&(key, ns.to_string())),
            _ => self.all.get(&key),
        }
        .map_or(&[], Vec::as_slice)
    }

    /// The first record of the type (and namespace) named `name`.
    fn named(
        &self,
        resource: &ApiResource,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Held<'s>> {
        let key = (resource.group.clone(), resource.kind.clone());
        match namespace {
            Some(ns) if resource.namespaced => self
                .named_in
                .get(&(key, ns.to_string(), name.to_string()))
                .copied(),
            _ => self.named.get(&(key, name.to_string())).copied(),
        }
    }
}

/// A record a snapshot reader holds: a value, or the link (stub) and text
/// of a pod or of an object a listing dropped as controlled.
#[derive(Clone, Copy)]
enum Held<'s> {
    Value(&'s Value),
    Pod(&'s Value, &'s str),
}

impl<'s> Held<'s> {
    /// Its metadata's holder: the value, or the pod's link (name,
    /// namespace, uid, controller).
    fn meta(self) -> &'s Value {
        match self {
            Held::Value(v) | Held::Pod(v, _) => v,
        }
    }

    /// The whole object.
    fn value(self) -> std::borrow::Cow<'s, Value> {
        match self {
            Held::Value(v) => std::borrow::Cow::Borrowed(v),
            Held::Pod(link, text) => {
                std::borrow::Cow::Owned(serde_json::from_str(text).unwrap_or_else(|_| link.clone()))
            }
        }
    }

    /// The whole object, as JSON text.
    fn text(self) -> String {
        match self {
            Held::Value(v) => serde_json::to_string(v).unwrap_or_default(),
            Held::Pod(_, text) => text.to_string(),
        }
    }
}

/// A failure status, with a body the server's way (a `Status`).
fn status_reply(status: u16, message: &str) -> Reply {
    Reply::status(
        status,
        serde_json::json!({
            "kind": "Status",
            "apiVersion": "v1",
            "status": "Failure",
            "message": message,
            "code": status,
        })
        .to_string(),
    )
}
