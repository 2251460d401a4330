//! Positions of a document's values: [`SpanIndex`].

#[allow(unused_imports)]
use super::*;

use std::collections::HashMap;

use crate::error::Location;
use crate::source::path::{Segment, parse_path};

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

pub(super) fn clamp_u32(n: usize) -> u32 {
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
        let (segments, complete) = parse_path(path);
        if !complete || self.positions.is_empty() {
            return SpanIndex::new();
        }
        let Some((last, parent)) = segments.split_last() else {
            return self.clone();
        };
        self.node_at(parent)
            .map(|node| self.copy_children_of(node, std::slice::from_ref(last)))
            .and_then(|mut v| v.pop())
            .unwrap_or_default()
    }

    /// The index of each element `0..n` of the sequence at `path` (empty for
    /// an element that is not known): every item of a `List` at once, in
    /// one pass over the index, so reading a list is linear in its size.
    pub(crate) fn element_subtrees(&self, path: &str, n: usize) -> Vec<SpanIndex> {
        let (segments, complete) = parse_path(path);
        let node = if complete && !self.positions.is_empty() {
            self.node_at(&segments)
        } else {
            None
        };
        match node {
            Some(node) => {
                let steps: Vec<Segment> = (0..n).map(Segment::Index).collect();
                self.copy_children_of(node, &steps)
            }
            None => vec![SpanIndex::new(); n],
        }
    }

    /// The node at a path from the root.
    fn node_at(&self, segments: &[Segment]) -> Option<u32> {
        let mut node = 0u32;
        for segment in segments {
            node = *self.children.get(&(node, segment.clone()))?;
        }
        Some(node)
    }

    /// For each step, a new index rooted at the child of `node` by that step
    /// (empty when there is none). The children lists are grouped once and
    /// every node is copied at most once per step that reaches it, so the
    /// work is linear in the index.
    fn copy_children_of(&self, node: u32, steps: &[Segment]) -> Vec<SpanIndex> {
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
                let mut out = SpanIndex::new();
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
    pub(super) fn set_root(&mut self, pos: (usize, usize)) -> u32 {
        if self.positions.is_empty() {
            self.positions.push((0, 0));
        }
        self.set_position(0, pos);
        0
    }

    /// The child of `parent` at `segment`, created with `pos` when missing.
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

    /// A node that is not reachable by any path (content of a merge key).
    pub(super) fn detached(&mut self) -> u32 {
        self.alloc((0, 0))
    }

    pub(super) fn lookup(&self, parent: u32, segment: Segment) -> Option<(usize, usize)> {
        let child = *self.children.get(&(parent, segment))?;
        self.position(child)
    }
}
