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
}

pub(super) fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Built {
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
            self.positions.push((0, 0));
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
        }
        id
    }

    pub(super) fn set_root(&mut self, pos: (usize, usize)) -> u32 {
        if self.positions.is_empty() {
            self.positions.push((0, 0));
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
