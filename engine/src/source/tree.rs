//! The nodes and positions of one index ([`Built`]): a tree of steps from
//! the root, each node with its position, as the readers build it and
//! [`super::spans::SpanIndex`] asks it.

use std::collections::HashMap;

use super::path::{Segment, parse_path};

/// The nodes and positions of one index.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Built {
    /// Position of every node; `(0, 0)` when unknown.
    positions: Vec<(u32, u32)>,
    /// `(parent node, step)` → child node. Node 0 is the root.
    children: HashMap<(u32, Segment), u32>,
    /// Where every node's text is, when the reader was asked for it (the
    /// source map's reading, [`super::map`]); `None` otherwise: the other
    /// readers keep one position per node.
    extents: Option<Vec<Extent>>,
}

/// Where one node's text is: the byte ranges `[start, end)` of its key (a
/// mapping entry) and of its value, as the reader saw them, and how a
/// string value is written. A range is `None` when the node has no text of
/// its own (no key: the root, a sequence element; no value: content of a
/// merge key).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Extent {
    pub(super) key: Option<(u32, u32)>,
    pub(super) value: Option<(u32, u32)>,
    pub(super) style: Style,
}

/// How a scalar is written in the text: what lies between its source and
/// its value (quotes, escapes, folded lines, indentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Style {
    /// Not a scalar (a sequence, a mapping, an alias).
    #[default]
    Other,
    /// A YAML plain scalar.
    Plain,
    /// A YAML single-quoted scalar (`''` is a quote).
    SingleQuoted,
    /// A YAML double-quoted scalar (escapes, escaped line breaks).
    DoubleQuoted,
    /// A YAML literal block scalar (`|`).
    Literal,
    /// A YAML folded block scalar (`>`).
    Folded,
    /// A JSON string.
    Json,
}

pub(super) fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Built {
    /// An empty index that also records where each node's text is.
    pub(super) fn with_extents() -> Self {
        Built {
            extents: Some(Vec::new()),
            ..Built::default()
        }
    }

    /// Whether the index records extents.
    pub(super) fn has_extents(&self) -> bool {
        self.extents.is_some()
    }

    /// Record the byte range of the key of `node`.
    pub(super) fn set_key_extent(&mut self, node: u32, range: (usize, usize)) {
        if let Some(e) = self.extent_mut(node) {
            e.key = Some((clamp_u32(range.0), clamp_u32(range.1)));
        }
    }

    /// Record the byte range and style of the value of `node`.
    pub(super) fn set_value_extent(&mut self, node: u32, range: (usize, usize), style: Style) {
        if let Some(e) = self.extent_mut(node) {
            e.value = Some((clamp_u32(range.0), clamp_u32(range.1)));
            e.style = style;
        }
    }

    fn extent_mut(&mut self, node: u32) -> Option<&mut Extent> {
        self.extents.as_mut()?.get_mut(node as usize)
    }

    /// Where the text of `node` is (`None`: extents are not recorded).
    pub(super) fn extent(&self, node: u32) -> Option<Extent> {
        self.extents.as_ref()?.get(node as usize).copied()
    }

    /// The deepest node on `segments` from `node` and how many steps
    /// lead there.
    pub(super) fn deepest_from(&self, mut node: u32, segments: &[Segment]) -> (u32, usize) {
        for (found, segment) in segments.iter().enumerate() {
            match self.children.get(&(node, segment.clone())) {
                Some(&child) => node = child,
                None => return (node, found),
            }
        }
        (node, segments.len())
    }

    /// Number of nodes (with or without a position).
    pub(super) fn nodes(&self) -> usize {
        self.positions.len()
    }

    /// True when no position is known.
    pub(super) fn is_empty(&self) -> bool {
        !self.positions.iter().any(|&(l, _)| l != 0)
    }

    /// Number of nodes with a known position.
    pub(super) fn len(&self) -> usize {
        self.positions.iter().filter(|&&(l, _)| l != 0).count()
    }

    /// The node at `segments` from `node`.
    pub(super) fn node_from(&self, mut node: u32, segments: &[Segment]) -> Option<u32> {
        if self.positions.is_empty() {
            return None;
        }
        for segment in segments {
            node = *self.children.get(&(node, segment.clone()))?;
        }
        Some(node)
    }

    /// The position of `path` or of its nearest known ancestor, below
    /// `node`.
    pub(super) fn nearest_from(&self, node: u32, segments: Vec<Segment>) -> Option<(usize, usize)> {
        if self.positions.is_empty() {
            return None;
        }
        let mut node = node;
        let mut best = self.position(node);
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
    pub(super) fn insert(&mut self, path: &str, line: usize, column: usize) -> bool {
        let (segments, complete) = parse_path(path);
        if !complete {
            return false;
        }
        if self.positions.is_empty() {
            self.alloc((0, 0));
        }
        let mut node = 0u32;
        for segment in segments {
            node = self.child(node, segment, (0, 0));
        }
        self.set_position(node, (line, column));
        true
    }

    /// For each step, a new index rooted at the child of `node` by that step
    /// (empty when there is none). The children lists are grouped once and
    /// every node is copied at most once per step that reaches it, so the
    /// work is linear in the index.
    pub(super) fn copy_children_of(&self, node: u32, steps: &[Segment]) -> Vec<Built> {
        let mut by_parent: HashMap<u32, Vec<(&Segment, u32)>> = HashMap::new();
        for ((parent, segment), child) in &self.children {
            by_parent
                .entry(*parent)
                .or_default()
                .push((segment, *child));
        }
        let position = |n: u32| self.positions.get(n as usize).copied().unwrap_or((0, 0));
        steps
            .iter()
            .map(|step| {
                let mut out = Built::default();
                let Some(&root) = self.children.get(&(node, step.clone())) else {
                    return out;
                };
                out.positions.push(position(root));
                // Breadth-first, no recursion.
                let mut queue = std::collections::VecDeque::new();
                queue.push_back((root, 0u32));
                while let Some((old, new)) = queue.pop_front() {
                    for (segment, old_child) in by_parent.get(&old).into_iter().flatten() {
                        let new_child = out.alloc(position(*old_child));
                        out.children.insert((new, (*segment).clone()), new_child);
                        queue.push_back((*old_child, new_child));
                    }
                }
                out
            })
            .collect()
    }

    /// A copy of the subtree at `segments` (empty when it is not known).
    pub(super) fn subtree_at(&self, segments: &[Segment]) -> Built {
        let Some((last, parent)) = segments.split_last() else {
            return self.clone();
        };
        self.node_from(0, parent)
            .map(|node| self.copy_children_of(node, std::slice::from_ref(last)))
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    pub(super) fn position(&self, node: u32) -> Option<(usize, usize)> {
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

    pub(super) fn alloc(&mut self, pos: (u32, u32)) -> u32 {
        let id = clamp_u32(self.positions.len());
        if id != u32::MAX {
            self.positions.push(pos);
            if let Some(e) = &mut self.extents {
                e.push(Extent::default());
            }
        }
        id
    }

    pub(super) fn set_root(&mut self, pos: (usize, usize)) -> u32 {
        if self.positions.is_empty() {
            self.alloc((0, 0));
        }
        self.set_position(0, pos);
        0
    }

    pub(super) fn child(&mut self, parent: u32, segment: Segment, pos: (u32, u32)) -> u32 {
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

    /// False when the index has no node (not even a root).
    pub(super) fn has_nodes(&self) -> bool {
        !self.positions.is_empty()
    }

    /// The position of the child of `parent` at `segment`, when known.
    pub(super) fn lookup(&self, parent: u32, segment: Segment) -> Option<(usize, usize)> {
        let child = *self.children.get(&(parent, segment))?;
        self.position(child)
    }
}
