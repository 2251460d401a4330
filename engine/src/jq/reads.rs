//! The parts of an input a set of expressions reads ([`Reads`]), found from
//! the fast path's form of each expression ([`super::fast::Fast::reads`]),
//! so that a JSON text can be read without building the parts no
//! expression reads (see `source::json::read_json_projected`).
//!
//! What is kept answers every expression exactly as the whole input does:
//! - a value an expression gives, compares, computes with, converts or
//!   puts into a value it makes is kept whole;
//! - a path's step keeps the member it names (`.a`), every element of an
//!   array (`.[0]`, `.[-1]`: indices count from the ends) or every member
//!   of an object or array (`.[]`), each kept as what follows reads;
//! - a value whose type does not take the step jaq would raise an error
//!   on (which prints the value) is kept whole: an array where a key is
//!   read, an object where an index is; a scalar is always whole;
//! - a value read only for its type or truthiness (`if .a then`, `.a //
//!   b`, `.a | not`) keeps its type: an object or array with nothing of it
//!   read is kept empty.
//!
//! Anything the analysis cannot follow (an expression outside the fast
//! path's subset, a `catch` body, which the fast form leaves to jaq, a
//! variable it does not know, more paths than [`MAX_PATHS`], past
//! [`MAX_NODES`] or [`MAX_WORK`]) keeps the whole input.

/// The most paths one term of an expression may stand for, and the most
/// steps a path may have, before the analysis gives up (and the input is
/// read whole).
pub(crate) const MAX_PATHS: usize = 64;

/// The most nodes the parts a definition reads may take, as recorded and
/// once finished ([`Reads::finish`]), before the analysis gives up (the
/// catalog's largest, a Milvus, takes 115). A node's keys are a sorted
/// list, so recording n keys of one object moves O(n^2) entries: 4,096
/// keeps that to milliseconds.
pub(crate) const MAX_NODES: usize = 4_096;

/// The most work the analysis of a definition may take: a unit per term
/// followed and per step of each path a term stands for (the catalog's
/// largest, a Milvus, takes about 12,300).
pub(crate) const MAX_WORK: usize = 500_000;

/// What the analysis of one definition may still take.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// Nodes of [`Reads`] (at most [`MAX_NODES`]).
    pub nodes: usize,
    /// Work (at most [`MAX_WORK`]).
    pub work: usize,
}

impl Bounds {
    pub(crate) fn new() -> Bounds {
        Bounds {
            nodes: MAX_NODES,
            work: MAX_WORK,
        }
    }
}

/// A step of a path into the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathStep<'a> {
    /// `.key`
    Key(&'a str),
    /// `.[]`: every member of an object, every element of an array.
    Each,
    /// `.[i]`: every element of an array (an object here is read whole).
    Nth,
}

/// The parts of a value read: a tree of what each path reaches.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Reads {
    /// Everything below this value.
    whole: bool,
    /// Members read by key, sorted by key (a sorted list: a definition
    /// reads a few keys of each object, and the list's code is smaller
    /// than a map's, which the WASM build pays for).
    keys: Vec<(String, Reads)>,
    /// Every member or element (`.[]`).
    each: Option<Box<Reads>>,
    /// Every element of an array (`.[i]`).
    nth: Option<Box<Reads>>,
}

impl Reads {
    /// Whether every part of the value is read.
    pub(crate) fn is_whole(&self) -> bool {
        self.whole
    }

    /// The node of member `key`, made where missing (`None` when that
    /// takes a node `nodes` has not).
    fn key(&mut self, key: &str, nodes: &mut usize) -> Option<&mut Reads> {
        let at = match self.keys.binary_search_by(|(k, _)| k.as_str().cmp(key)) {
            Ok(at) => at,
            Err(at) => {
                *nodes = nodes.checked_sub(1)?;
                self.keys.insert(at, (key.to_string(), Reads::default()));
                at
            }
        };
        Some(&mut self.keys[at].1)
    }

    /// The node of `path`, made where missing, each node made taken from
    /// `nodes` (`None` once they run out).
    fn at(&mut self, path: &[PathStep<'_>], nodes: &mut usize) -> Option<&mut Reads> {
        let mut node = self;
        for step in path {
            if node.whole {
                break;
            }
            let slot = match step {
                PathStep::Key(k) => {
                    node = node.key(k, nodes)?;
                    continue;
                }
                PathStep::Each => &mut node.each,
                PathStep::Nth => &mut node.nth,
            };
            if slot.is_none() {
                *nodes = nodes.checked_sub(1)?;
            }
            node = slot.get_or_insert_with(Box::default);
        }
        Some(node)
    }

    /// The value at `path` is read (for its type at least); `false` when
    /// that takes more than `nodes` new nodes.
    pub(crate) fn touch(&mut self, path: &[PathStep<'_>], nodes: &mut usize) -> bool {
        self.at(path, nodes).is_some()
    }

    /// Everything of the value at `path` is read; `false` as for
    /// [`Reads::touch`].
    pub(crate) fn read_whole(&mut self, path: &[PathStep<'_>], nodes: &mut usize) -> bool {
        match self.at(path, nodes) {
            Some(n) => {
                n.whole = true;
                true
            }
            None => false,
        }
    }

    /// `other` read too, each node made taken from `nodes`.
    fn merge(&mut self, other: &Reads, nodes: &mut usize) -> Option<()> {
        self.whole |= other.whole;
        if self.whole {
            // Nothing below a whole value is kept.
            return Some(());
        }
        for (k, v) in &other.keys {
            self.key(k, nodes)?.merge(v, nodes)?;
        }
        for (mine, theirs) in [(&mut self.each, &other.each), (&mut self.nth, &other.nth)] {
            if let Some(t) = theirs {
                if mine.is_none() {
                    *nodes = nodes.checked_sub(1)?;
                }
                mine.get_or_insert_with(Box::default).merge(t, nodes)?;
            }
        }
        Some(())
    }

    /// Ready for reading: below a whole value nothing more is kept; what
    /// `.[]` reads is read of every member named by key too, and of every
    /// element what `.[]` and `.[i]` read. Those copies can multiply a
    /// tree's size at each level, so each node they make is taken from
    /// `nodes`: `false` once they run out (the input is then read whole).
    /// Recursion: as deep as the tree, at most [`MAX_PATHS`] levels.
    pub(crate) fn finish(&mut self, nodes: &mut usize) -> bool {
        self.finish_within(nodes).is_some()
    }

    fn finish_within(&mut self, nodes: &mut usize) -> Option<()> {
        if self.whole {
            self.keys.clear();
            self.each = None;
            self.nth = None;
            return Some(());
        }
        if let Some(each) = &self.each {
            for (_, v) in &mut self.keys {
                v.merge(each, nodes)?;
            }
        }
        if let (Some(each), Some(nth)) = (&self.each, &mut self.nth) {
            nth.merge(each, nodes)?;
        }
        for (_, v) in &mut self.keys {
            v.finish_within(nodes)?;
        }
        for v in [&mut self.each, &mut self.nth].into_iter().flatten() {
            v.finish_within(nodes)?;
        }
        Some(())
    }

    /// An object here is kept whole (an index is read of it, which jaq
    /// refuses, printing it).
    pub(crate) fn object_whole(&self) -> bool {
        self.whole || self.nth.is_some()
    }

    /// An array here is kept whole (a key is read of it, which jaq
    /// refuses, printing it).
    pub(crate) fn array_whole(&self) -> bool {
        self.whole || !self.keys.is_empty()
    }

    /// What is read of the member `key` of an object, if anything is.
    pub(crate) fn member(&self, key: &str) -> Option<&Reads> {
        match self.keys.binary_search_by(|(k, _)| k.as_str().cmp(key)) {
            Ok(at) => Some(&self.keys[at].1),
            Err(_) => self.each.as_deref(),
        }
    }

    /// What is read of every element of an array, if anything is.
    pub(crate) fn element(&self) -> Option<&Reads> {
        // `finish` merged `each` into `nth`.
        self.nth.as_deref().or(self.each.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PathStep::*;

    #[test]
    fn paths_make_a_tree_and_whole_values_end_it() {
        let mut r = Reads::default();
        let n = &mut MAX_NODES.clone();
        assert!(r.read_whole(&[Key("spec"), Key("template")], n));
        assert!(r.touch(&[Key("spec"), Key("suspend")], n));
        assert!(r.read_whole(&[Key("status"), Each, Key("type")], n));
        assert!(r.read_whole(&[Key("status"), Key("phase")], n));
        assert!(r.finish(n));
        let spec = r.member("spec").unwrap();
        assert!(spec.member("template").unwrap().is_whole());
        assert!(!spec.member("suspend").unwrap().is_whole());
        assert!(spec.member("other").is_none());
        // `.[]` reaches every member: `phase` reads `type` too.
        let status = r.member("status").unwrap();
        assert!(status.member("phase").unwrap().is_whole());
        assert!(
            status
                .member("x")
                .unwrap()
                .member("type")
                .unwrap()
                .is_whole()
        );
        assert!(r.member("metadata").is_none());
    }

    #[test]
    fn a_step_the_value_does_not_take_keeps_it_whole() {
        let mut r = Reads::default();
        let n = &mut MAX_NODES.clone();
        r.touch(&[Key("a"), Key("b")], n);
        r.touch(&[Key("n"), Nth], n);
        r.finish(n);
        // A key read of an array, an index of an object: jaq's error
        // prints the value.
        assert!(r.member("a").unwrap().array_whole());
        assert!(!r.member("a").unwrap().object_whole());
        assert!(r.member("n").unwrap().object_whole());
        assert!(!r.member("n").unwrap().array_whole());
        let mut whole = Reads::default();
        whole.read_whole(&[], n);
        whole.touch(&[Key("a")], n);
        whole.finish(n);
        assert!(whole.is_whole() && whole.member("a").is_none());
    }

    #[test]
    fn copies_that_multiply_stop_at_the_node_budget() {
        // A key and `.[]` at each of 40 levels: finishing copies what `.[]`
        // reads into the key's node at every level, 2^40 nodes unbounded.
        let mut r = Reads::default();
        let mut path = Vec::new();
        let n = &mut MAX_NODES.clone();
        for _ in 0..40 {
            let mut keyed = path.clone();
            keyed.push(Key("k"));
            assert!(r.touch(&keyed, n));
            path.push(Each);
            assert!(r.touch(&path, n));
        }
        assert!(!r.finish(n));
        assert_eq!(*n, 0);
        // Keys of one object past the bound (10x): recording stops at it.
        let mut r = Reads::default();
        let n = &mut MAX_NODES.clone();
        let keys: Vec<String> = (0..10 * MAX_NODES).map(|i| format!("k{i}")).collect();
        let recorded = keys.iter().take_while(|k| r.touch(&[Key(k)], n)).count();
        assert_eq!(recorded, MAX_NODES);
        // Recording stops there too.
        let mut r = Reads::default();
        let mut n = 10;
        let keys: Vec<String> = (0..20).map(|i| format!("k{i}")).collect();
        let path: Vec<PathStep<'_>> = keys.iter().map(|k| Key(k)).collect();
        assert!(!r.touch(&path, &mut n));
    }
}
