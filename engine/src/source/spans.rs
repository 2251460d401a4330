//! Positions of a document's values: [`SpanIndex`].

use std::sync::{Arc, OnceLock};

use super::path::{Segment, parse_path};
use super::scan::{locate_json, scan_json};
use super::tree::{Built, Style};
use crate::Limits;
use crate::error::Location;

/// Maps value paths of one document to 1-based `(line, column)` positions.
///
/// For a mapping entry the position is that of its key; for a sequence
/// element, that of the element; the empty path is the document's root
/// value. Columns count characters. Values brought in by an alias or a merge
/// key have no position of their own (their nearest ancestor's is used by
/// [`SpanIndex::locate`]).
///
/// Paths use the syntax of [`path_push_key`](super::path::path_push_key) and
/// [`path_push_index`](super::path::path_push_index).
#[derive(Debug, Clone, Default)]
pub struct SpanIndex {
    inner: Inner,
}

#[derive(Debug, Clone)]
enum Inner {
    /// Built as the text was read (YAML, and JSON that needed the careful
    /// reader).
    Built(Arc<Built>),
    /// A JSON text read by the fast reader: the index is built from the
    /// text on the first question (most documents never need a position),
    /// once for every item of the text. The steps lead from the text's
    /// root to the root of this index (an item of a list).
    Lazy(Arc<LazyText>, Arc<[Segment]>),
}

impl Default for Inner {
    fn default() -> Self {
        Inner::Built(Arc::new(Built::default()))
    }
}

#[derive(Debug)]
struct LazyText {
    text: Box<str>,
    limits: Limits,
    built: OnceLock<Built>,
    /// Questions answered by reading the text towards one path (a few
    /// findings cost a few partial reads; after [`TARGETED_QUESTIONS`] the
    /// whole index is built, so many questions cost one scan).
    asked: std::sync::atomic::AtomicUsize,
}

/// Questions a lazy index answers by a targeted read before it builds.
const TARGETED_QUESTIONS: usize = 16;

impl LazyText {
    /// `Some` while questions are still answered by a targeted read.
    fn targeted(&self) -> Option<&str> {
        if self.built.get().is_some() {
            return None;
        }
        let n = self
            .asked
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        (n < TARGETED_QUESTIONS).then_some(&*self.text)
    }
}

impl PartialEq for SpanIndex {
    fn eq(&self, other: &Self) -> bool {
        *self.materialized() == *other.materialized()
    }
}

impl Eq for SpanIndex {}

impl SpanIndex {
    /// An empty index.
    pub fn new() -> Self {
        SpanIndex::default()
    }

    /// An empty index that also records where each node's text is (the
    /// source map's reading).
    pub(super) fn with_extents() -> Self {
        SpanIndex {
            inner: Inner::Built(Arc::new(Built::with_extents())),
        }
    }

    /// The nodes as a reader built them (`None`: a lazy JSON index).
    pub(super) fn built(&self) -> Option<&Built> {
        match &self.inner {
            Inner::Built(b) => Some(b),
            Inner::Lazy(..) => None,
        }
    }

    /// Record the byte range of the key of `node` (when extents are
    /// recorded).
    pub(super) fn set_key_extent(&mut self, node: u32, range: (usize, usize)) {
        self.built_mut().set_key_extent(node, range);
    }

    /// Record the byte range and style of the value of `node` (when
    /// extents are recorded).
    pub(super) fn set_value_extent(&mut self, node: u32, range: (usize, usize), style: Style) {
        self.built_mut().set_value_extent(node, range, style);
    }

    /// The index of nodes a reader built.
    pub(super) fn from_built(built: Built) -> Self {
        SpanIndex {
            inner: Inner::Built(Arc::new(built)),
        }
    }

    /// The positions of a JSON text that the fast reader has read (so the
    /// careful scan will succeed within `limits`), found when first asked.
    pub(super) fn lazy_json(text: &str, limits: &Limits) -> Self {
        SpanIndex {
            inner: Inner::Lazy(
                Arc::new(LazyText {
                    text: text.into(),
                    limits: *limits,
                    built: OnceLock::new(),
                    asked: Default::default(),
                }),
                Arc::from(Vec::new()),
            ),
        }
    }

    /// The index of the whole text and the node of this index's root in it
    /// (`None`: the root is not in the text).
    fn view(&self) -> (&Built, Option<u32>) {
        match &self.inner {
            Inner::Built(b) => (b, b.has_nodes().then_some(0)),
            Inner::Lazy(text, steps) => {
                let built = text
                    .built
                    .get_or_init(|| scan_positions(&text.text, &text.limits));
                (built, built.node_from(0, steps))
            }
        }
    }

    /// This index as its own nodes (a lazy item's subtree copied out).
    fn materialized(&self) -> std::borrow::Cow<'_, Built> {
        match &self.inner {
            Inner::Built(b) => std::borrow::Cow::Borrowed(b),
            Inner::Lazy(_, steps) => {
                let (built, _) = self.view();
                std::borrow::Cow::Owned(built.subtree_at(steps))
            }
        }
    }

    /// The nodes, to be changed (copied first when shared).
    fn built_mut(&mut self) -> &mut Built {
        if let Inner::Lazy(..) = self.inner {
            let own = self.materialized().into_owned();
            self.inner = Inner::Built(Arc::new(own));
        }
        match &mut self.inner {
            Inner::Built(b) => Arc::make_mut(b),
            Inner::Lazy(..) => unreachable!("materialized above"),
        }
    }

    /// True when no position is known.
    pub fn is_empty(&self) -> bool {
        match &self.inner {
            Inner::Built(b) => b.is_empty(),
            // The root of a JSON text always has a position.
            Inner::Lazy(_, steps) if steps.is_empty() => false,
            Inner::Lazy(..) => self.materialized().is_empty(),
        }
    }

    /// Number of nodes with a known position.
    pub fn len(&self) -> usize {
        self.materialized().len()
    }

    /// The position of the value at `path` (for a mapping entry, its key).
    /// `None` when the path is not known or does not parse.
    pub fn get(&self, path: &str) -> Option<(usize, usize)> {
        let (segments, complete) = parse_path(path);
        if !complete {
            return None;
        }
        if let Inner::Lazy(lazy, steps) = &self.inner
            && let Some(text) = lazy.targeted()
        {
            let steps: Vec<Segment> = steps.iter().cloned().chain(segments).collect();
            let (position, found) = locate_json(text, &steps);
            return position.filter(|_| found == steps.len());
        }
        let (built, root) = self.view();
        built.position(built.node_from(root?, &segments)?)
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
        if let Inner::Lazy(lazy, steps) = &self.inner
            && let Some(text) = lazy.targeted()
        {
            let root = steps.len();
            let steps: Vec<Segment> = steps.iter().cloned().chain(parse_path(path).0).collect();
            let (position, found) = locate_json(text, &steps);
            return position.filter(|_| found >= root);
        }
        let (built, root) = self.view();
        built.nearest_from(root?, parse_path(path).0)
    }

    /// Record a position for `path`, creating the intermediate steps (without
    /// positions) as needed. Returns false when the path does not parse.
    pub fn insert(&mut self, path: &str, line: usize, column: usize) -> bool {
        self.built_mut().insert(path, line, column)
    }

    /// A new index whose root is the value at `path` (e.g. `items[2]` of a
    /// `List` document). Empty when the path is not known.
    pub fn subtree(&self, path: &str) -> SpanIndex {
        let (segments, complete) = parse_path(path);
        if !complete {
            return SpanIndex::new();
        }
        match &self.inner {
            Inner::Built(b) if !b.has_nodes() => SpanIndex::new(),
            Inner::Built(b) => SpanIndex {
                inner: Inner::Built(Arc::new(b.subtree_at(&segments))),
            },
            Inner::Lazy(text, steps) => SpanIndex {
                inner: Inner::Lazy(
                    text.clone(),
                    steps.iter().cloned().chain(segments).collect(),
                ),
            },
        }
    }

    /// The index of each element `0..n` of the sequence at `path` (empty for
    /// an element that is not known): every item of a `List` at once, in
    /// one pass over the index, so reading a list is linear in its size.
    pub(crate) fn element_subtrees(&self, path: &str, n: usize) -> Vec<SpanIndex> {
        let (segments, complete) = parse_path(path);
        if !complete {
            return vec![SpanIndex::new(); n];
        }
        match &self.inner {
            Inner::Built(b) => match b.node_from(0, &segments) {
                Some(node) => {
                    let steps: Vec<Segment> = (0..n).map(Segment::Index).collect();
                    b.copy_children_of(node, &steps)
                        .into_iter()
                        .map(|b| SpanIndex {
                            inner: Inner::Built(Arc::new(b)),
                        })
                        .collect()
                }
                None => vec![SpanIndex::new(); n],
            },
            Inner::Lazy(text, steps) => {
                let base: Vec<Segment> = steps.iter().cloned().chain(segments).collect();
                (0..n)
                    .map(|i| SpanIndex {
                        inner: Inner::Lazy(
                            text.clone(),
                            base.iter().cloned().chain([Segment::Index(i)]).collect(),
                        ),
                    })
                    .collect()
            }
        }
    }

    /// Start a new document root at `pos`.
    pub(super) fn set_root(&mut self, pos: (usize, usize)) -> u32 {
        self.built_mut().set_root(pos)
    }

    /// The child of `parent` at `segment`, created with `pos` when missing.
    pub(super) fn child(&mut self, parent: u32, segment: Segment, pos: (u32, u32)) -> u32 {
        self.built_mut().child(parent, segment, pos)
    }

    /// A node that is not reachable by any path (content of a merge key).
    pub(super) fn detached(&mut self) -> u32 {
        self.built_mut().alloc((0, 0))
    }

    pub(super) fn lookup(&self, parent: u32, segment: Segment) -> Option<(usize, usize)> {
        let (built, _) = self.view();
        built.lookup(parent, segment)
    }
}

/// The positions of a JSON text the fast reader has read: the careful
/// scan's index (empty should the scan fail, which it does not for a text
/// the fast reader accepted within the same limits).
fn scan_positions(text: &str, limits: &Limits) -> Built {
    match scan_json(text, limits) {
        Ok(scan) => scan.built,
        Err(_) => Built::default(),
    }
}
