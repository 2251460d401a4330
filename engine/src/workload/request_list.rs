//! A pod's requests per resource name while [`crate::resources`] sums them:
//! ordered by name (as a `BTreeMap<String, _>` orders them), each name
//! borrowed from the spec it was read from.
//!
//! A pod asks for a handful of resources (`cpu`, `memory`, a GPU, ...): up
//! to [`INLINE`] of them are kept inline in a sorted array, so summing a
//! pod's containers allocates nothing. A list given more names than that
//! moves them to a `BTreeMap`, so every operation stays logarithmic
//! whatever number of names an input gives.

use std::collections::BTreeMap;

use smallvec::SmallVec;

use crate::quantity::Quantity;

/// Names kept inline before a list moves to a map.
const INLINE: usize = 6;

/// Resource name to quantity, like a Kubernetes `ResourceList`
/// (`{"cpu": "500m", "memory": "1Gi"}`), ordered by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct ResourceList<'a>(Repr<'a>);

// The inline room is the point: a list lives on the stack while a pod is
// summed, and a map takes its place only past it.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
enum Repr<'a> {
    /// Sorted by name, no name twice.
    Inline(SmallVec<[(&'a str, Quantity); INLINE]>),
    Map(BTreeMap<&'a str, Quantity>),
}

impl Default for Repr<'_> {
    fn default() -> Self {
        Repr::Inline(SmallVec::new())
    }
}

impl<'a> ResourceList<'a> {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Quantity> {
        match &self.0 {
            Repr::Inline(v) => v
                .binary_search_by(|(k, _)| (*k).cmp(name))
                .ok()
                .map(|i| &v[i].1),
            Repr::Map(m) => m.get(name),
        }
    }

    pub(crate) fn get_mut(&mut self, name: &str) -> Option<&mut Quantity> {
        match &mut self.0 {
            Repr::Inline(v) => match v.binary_search_by(|(k, _)| (*k).cmp(name)) {
                Ok(i) => Some(&mut v[i].1),
                Err(_) => None,
            },
            Repr::Map(m) => m.get_mut(name),
        }
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Set `name`'s quantity (replacing the one it had).
    pub(crate) fn insert(&mut self, name: &'a str, quantity: Quantity) {
        match &mut self.0 {
            Repr::Inline(v) => match v.binary_search_by(|(k, _)| (*k).cmp(name)) {
                Ok(i) => v[i].1 = quantity,
                Err(i) if v.len() < INLINE => v.insert(i, (name, quantity)),
                Err(_) => {
                    let mut m: BTreeMap<&'a str, Quantity> = v.drain(..).collect();
                    m.insert(name, quantity);
                    self.0 = Repr::Map(m);
                }
            },
            Repr::Map(m) => {
                m.insert(name, quantity);
            }
        }
    }

    /// The entries, in name order.
    pub(crate) fn iter(&self) -> Iter<'_, 'a> {
        match &self.0 {
            Repr::Inline(v) => Iter::Inline(v.iter()),
            Repr::Map(m) => Iter::Map(m.iter()),
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        match &self.0 {
            Repr::Inline(v) => v.len(),
            Repr::Map(m) => m.len(),
        }
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// [`ResourceList::iter`].
pub(crate) enum Iter<'l, 'a> {
    Inline(std::slice::Iter<'l, (&'a str, Quantity)>),
    Map(std::collections::btree_map::Iter<'l, &'a str, Quantity>),
}

impl<'l, 'a> Iterator for Iter<'l, 'a> {
    type Item = (&'a str, &'l Quantity);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Inline(i) => i.next().map(|(k, q)| (*k, q)),
            Iter::Map(i) => i.next().map(|(k, q)| (*k, q)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(usize, u32),
        Add(usize, u32),
        Get(usize),
    }

    fn op(names: usize) -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..names, any::<u32>()).prop_map(|(n, q)| Op::Insert(n, q)),
            (0..names, any::<u32>()).prop_map(|(n, q)| Op::Add(n, q)),
            (0..names).prop_map(Op::Get),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// Whatever the operations (past the inline room or not), the list
        /// holds what a `BTreeMap<String, Quantity>` holds, in its order.
        #[test]
        fn the_list_is_a_map_ordered_by_name(
            names in 1usize..(3 * INLINE),
            ops in proptest::collection::vec(op(3 * INLINE), 0..60),
        ) {
            let names: Vec<String> = (0..names)
                .map(|i| ["cpu", "memory", "nvidia.com/gpu", "a", "hugepages-2Mi", "Z", "é"][i % 7].to_string() + &"x".repeat(i / 7))
                .collect();
            let mut list = ResourceList::new();
            let mut map: BTreeMap<String, Quantity> = BTreeMap::new();
            for op in ops {
                match op {
                    Op::Insert(n, q) => {
                        let name = &names[n % names.len()];
                        let q = Quantity::parse(&q.to_string()).unwrap();
                        list.insert(name, q.clone());
                        map.insert(name.clone(), q);
                    }
                    Op::Add(n, q) => {
                        let name = &names[n % names.len()];
                        let q = Quantity::parse(&q.to_string()).unwrap();
                        match list.get_mut(name) {
                            Some(had) => *had = had.add(&q).unwrap(),
                            None => list.insert(name, q.clone()),
                        }
                        let e = map.entry(name.clone()).or_insert_with(|| Quantity::parse("0").unwrap());
                        *e = e.add(&q).unwrap();
                    }
                    Op::Get(n) => {
                        let name = &names[n % names.len()];
                        prop_assert_eq!(list.get(name), map.get(name));
                        prop_assert_eq!(list.contains_key(name), map.contains_key(name));
                    }
                }
                prop_assert_eq!(list.len(), map.len());
                prop_assert_eq!(list.is_empty(), map.is_empty());
            }
            let got: Vec<(String, Quantity)> =
                list.iter().map(|(k, q)| (k.to_string(), q.clone())).collect();
            let want: Vec<(String, Quantity)> = map.into_iter().collect();
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn many_names_move_to_a_map_in_order() {
        let names: Vec<String> = (0..10 * INLINE).rev().map(|i| format!("r{i:03}")).collect();
        let mut list = ResourceList::new();
        for n in &names {
            list.insert(n, Quantity::parse("1").unwrap());
        }
        assert!(matches!(list.0, Repr::Map(_)));
        let got: Vec<&str> = list.iter().map(|(k, _)| k).collect();
        let mut want: Vec<&str> = names.iter().map(String::as_str).collect();
        want.sort();
        assert_eq!(got, want);
    }
}
