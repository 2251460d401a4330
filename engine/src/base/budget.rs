//! The whole-call budget: one meter per top-level call.
//!
//! Every public operation (resolve, update, attribute, gang groups, explain,
//! validate, evaluate, ...) opens a [`Call`]. Everything the call does draws
//! from the same three meters, whatever the number of expressions,
//! documents, pods, components or matchers it takes:
//!
//! - `maxSteps`: units of work. A jq value operation costs one step; a
//!   primitive that touches `n` bytes costs about `n / BYTES_PER_STEP`
//!   more, one that touches `n` elements `n` more; the engine's own loops
//!   (pods times selectors, documents, writes) cost steps too.
//! - `maxMemoryBytes`: bytes the call allocates for values it builds
//!   (strings, arrays, objects, copies of shared values, written values),
//!   counted as they are built and never given back, so the total is
//!   deterministic and bounds the peak.
//! - `maxOutputBytes`: bytes of JSON the call's expressions hand back to
//!   the engine (every output of every expression, added up).
//!
//! A call opened while another is open on the same thread joins it: an
//! operation made of operations (resolve with pods, the CLI's documents)
//! is one call. The meters live in thread-locals, so they cost a few
//! instructions; nothing here reads a clock, so the same input breaches
//! the same limit at the same point on every runtime.

use std::cell::Cell;
use std::thread::LocalKey;

use crate::error::Error;
use crate::limits::Limits;

/// Bytes of string work that cost one step (comparison, search, hashing,
/// case mapping, serialisation, copying).
pub(crate) const BYTES_PER_STEP: usize = 64;

/// Nodes of a JSON value the engine walks (compares, measures, hashes)
/// per step: a walk does ~10-40 ns of work per node, a jq step ~100-300 ns.
pub(crate) const NODES_PER_STEP: u64 = 16;

/// Steps per node of a JSON value the engine *builds*: a copy (updates,
/// suspend actions, patches) or a conversion of an object for jq. Each
/// node allocates (a value, a string, a map with its index), measured at
/// 300-600 ns per node in a release build: a step per node, not a step
/// per 16 nodes as a walk (which made a call converting a big object
/// again and again pay a sixteenth of its time).
pub(crate) const STEPS_PER_BUILT_NODE: u64 = 1;

/// Bytes counted for one element of an array or entry of an object
/// (the size of a value slot, plus a key slot for objects).
pub(crate) const SLOT_BYTES: usize = 16;

thread_local! {
    static STEPS: Cell<u64> = const { Cell::new(u64::MAX) };
    static MEMORY: Cell<u64> = const { Cell::new(u64::MAX) };
    static OUTPUT: Cell<u64> = const { Cell::new(u64::MAX) };
    static COMPILE: Cell<u64> = const { Cell::new(u64::MAX) };
    static LIMITS: Cell<(u64, u64, u64)> = const { Cell::new((u64::MAX, u64::MAX, u64::MAX)) };
    static OPEN: Cell<u32> = const { Cell::new(0) };
    static BREACHED: Cell<Option<Meter>> = const { Cell::new(None) };
}

/// Steps of compiling one jq expression, besides a step per 16 bytes of its
/// text (measured: ~40 us per catalog expression, parse and check
/// included, about 200 steps' worth).
pub(crate) const COMPILE_STEPS: u64 = 200;

/// Steps of checking one jq expression without compiling it (parsing and
/// the static checks of a definition's validation, which look at every
/// expression before any is compiled), besides a step per 16 bytes of its
/// text (measured: ~1.6 us per expression in a release build).
pub(crate) const CHECK_STEPS: u64 = 16;

/// Charge the steps of compiling `code`. Compiling draws from a meter of
/// its own, shared by the whole call: `maxSteps` or the default, whichever
/// is larger, so that a small `maxSteps` (meant for evaluation) never
/// refuses a definition, while 100,000 expressions in one call are
/// refused however the limits are set (about 5,000 fit the default).
pub(crate) fn compile(code: &str) -> Result<(), Error> {
    take_from(
        &COMPILE,
        COMPILE_STEPS + (code.len() / 16) as u64,
        Meter::Steps,
    )
    .map_err(|_| compile_error())
}

/// Charge the steps of checking `code` (see [`CHECK_STEPS`]), from the
/// meter of compiling.
pub(crate) fn check(code: &str) -> Result<(), Error> {
    take_from(
        &COMPILE,
        CHECK_STEPS + (code.len() / 16) as u64,
        Meter::Steps,
    )
    .map_err(|_| compile_error())
}

/// The error of a call whose meter of compiling ran out.
pub(crate) fn compile_error() -> Error {
    let budget = LIMITS.with(|l| l.get().0).max(Limits::default().max_steps);
    Error::limit_error(
        "maxSteps",
        format!(
            "the call compiles too many expressions (more than {budget} steps of compiling: {CHECK_STEPS} to check an expression, {COMPILE_STEPS} to compile it, and a step per 16 bytes of it each time)"
        ),
    )
}

/// The meter that ran out in the open call, if one did: for work that goes
/// on after a failed charge (a validator collecting findings) and must
/// still end with the limit error.
pub(crate) fn breached() -> Option<Meter> {
    BREACHED.with(|b| b.get())
}

/// An open call. Dropping the outermost one closes the meters.
pub(crate) struct Call {
    outermost: bool,
}

impl Call {
    /// Open a call with `limits`, or join the call already open on this
    /// thread (whose limits then apply).
    pub(crate) fn enter(limits: &Limits) -> Call {
        let open = OPEN.with(|o| {
            let n = o.get();
            o.set(n + 1);
            n
        });
        if open > 0 {
            return Call { outermost: false };
        }
        let (s, m, o) = (
            limits.max_steps,
            limits.max_memory_bytes as u64,
            limits.max_output_bytes as u64,
        );
        STEPS.with(|c| c.set(s));
        MEMORY.with(|c| c.set(m));
        OUTPUT.with(|c| c.set(o));
        COMPILE.with(|c| c.set(s.max(Limits::default().max_steps)));
        LIMITS.with(|c| c.set((s, m, o)));
        BREACHED.with(|b| b.set(None));
        Call { outermost: true }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        OPEN.with(|o| o.set(o.get().saturating_sub(1)));
        if self.outermost {
            STEPS.with(|c| c.set(u64::MAX));
            MEMORY.with(|c| c.set(u64::MAX));
            OUTPUT.with(|c| c.set(u64::MAX));
            COMPILE.with(|c| c.set(u64::MAX));
            LIMITS.with(|c| c.set((u64::MAX, u64::MAX, u64::MAX)));
        }
    }
}

/// Which meter ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meter {
    Steps,
    Memory,
    Output,
}

impl Meter {
    pub(crate) fn limit(self) -> &'static str {
        match self {
            Meter::Steps => "maxSteps",
            Meter::Memory => "maxMemoryBytes",
            Meter::Output => "maxOutputBytes",
        }
    }

    /// The message of a breach.
    pub(crate) fn message(self) -> String {
        let (s, m, o) = LIMITS.with(|c| c.get());
        match self {
            Meter::Steps => format!("the call did too much work (more than {s} evaluation steps)"),
            Meter::Memory => {
                format!("the call would allocate more than the limit of {m} bytes")
            }
            Meter::Output => {
                format!(
                    "the call's expressions produced more than the limit of {o} bytes of output"
                )
            }
        }
    }

    fn cell(self) -> &'static LocalKey<Cell<u64>> {
        match self {
            Meter::Steps => &STEPS,
            Meter::Memory => &MEMORY,
            Meter::Output => &OUTPUT,
        }
    }

    /// Take `n` units; `Err` (and the meter emptied) when fewer are left.
    #[inline]
    pub(crate) fn take(self, n: u64) -> Result<(), Meter> {
        take_from(self.cell(), n, self)
    }

    /// Units left.
    pub(crate) fn left(self) -> u64 {
        self.cell().with(|c| c.get())
    }

    /// Empty the meter (after a breach elsewhere, so everything after it
    /// fails fast).
    pub(crate) fn exhaust(self) {
        self.cell().with(|c| c.set(0));
    }
}

/// Take `n` units from `cell`; when fewer are left, empty it and record
/// the breach as `meter`'s.
#[inline(always)]
fn take_from(cell: &'static LocalKey<Cell<u64>>, n: u64, meter: Meter) -> Result<(), Meter> {
    cell.with(|c| {
        let left = c.get();
        if left >= n {
            c.set(left - n);
            Ok(())
        } else {
            c.set(0);
            BREACHED.with(|b| b.set(b.get().or(Some(meter))));
            Err(meter)
        }
    })
}

/// Steps for touching `bytes` bytes.
#[inline]
pub(crate) fn byte_steps(bytes: usize) -> u64 {
    (bytes / BYTES_PER_STEP) as u64
}

impl From<Meter> for Error {
    fn from(m: Meter) -> Error {
        Error::limit_error(m.limit(), m.message())
    }
}

/// Charge `n` steps of the engine's own work.
#[inline]
pub(crate) fn steps(n: u64) -> Result<(), Error> {
    Meter::Steps.take(n).map_err(Error::from)
}

/// Charge `bytes` of memory the engine is about to allocate.
#[inline]
pub(crate) fn memory(bytes: usize) -> Result<(), Error> {
    Meter::Memory.take(bytes as u64).map_err(Error::from)
}

/// `o[key]`. Objects are insertion-ordered hash maps (they keep the input's
/// key order) whose hasher, SipHash, costs more than comparing the keys of
/// an object of a few dozen members one by one (measured: 11 ns to scan 40
/// members against 18 ns to hash, in docs/performance.md), which most
/// Kubernetes objects are: up to [`SCAN_MEMBERS`] members are scanned by a
/// key of up to [`SCAN_KEY_BYTES`] bytes, larger objects and longer keys
/// hashed. The bound on the key keeps a lookup's work near the hash's
/// whatever the object: at most [`SCAN_MEMBERS`] comparisons of that many
/// bytes, where a long key of the input compared with as many keys of its
/// length would cost their bytes each.
#[inline]
pub(crate) fn member<'a>(
    o: &'a serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'a serde_json::Value> {
    if o.len() <= SCAN_MEMBERS && key.len() <= SCAN_KEY_BYTES {
        // The length and the first byte first: most keys of the same
        // length differ there, and the comparison of the rest is a call.
        let (len, first) = (key.len(), key.as_bytes().first());
        o.iter().find_map(|(k, v)| {
            (k.len() == len && k.as_bytes().first() == first && k == key).then_some(v)
        })
    } else {
        o.get(key)
    }
}

/// Objects of up to this many members are searched by scanning ([`member`]).
pub(crate) const SCAN_MEMBERS: usize = 32;

/// Keys of up to this many bytes are looked up by scanning ([`member`]).
pub(crate) const SCAN_KEY_BYTES: usize = 64;

/// The members of a JSON object by key: as they are when the object keeps
/// them sorted, else sorted, for a step per key and per 64 key bytes.
/// Objects keep their input's key order (so that updates write them back
/// as they were); jq and the JSON Patch see them by key.
pub(crate) fn members_by_key(
    o: &serde_json::Map<String, serde_json::Value>,
) -> Result<Vec<(&String, &serde_json::Value)>, Meter> {
    let mut members: Vec<(&String, &serde_json::Value)> = o.iter().collect();
    if !members.is_sorted_by(|a, b| a.0 <= b.0) {
        let bytes: usize = members.iter().map(|(k, _)| k.len()).sum();
        Meter::Steps.take(members.len() as u64 + byte_steps(bytes))?;
        members.sort_unstable_by(|a, b| a.0.cmp(b.0));
    }
    Ok(members)
}

/// The nesting depth of a value (a scalar is 0, a container one more than
/// its deepest member), its nodes and its string bytes (keys included). The
/// walk stops at the first container deeper than `cap` (the counts are then
/// partial, and the depth is `cap + 1`).
///
/// Containers are visited by recursion down to [`SHAPE_RECURSION`] levels,
/// scalars without a call; deeper ones by a walk with a stack of its own,
/// so the call stack stays bounded whatever `cap` is.
pub(crate) fn json_shape(v: &serde_json::Value, cap: usize) -> (usize, u64, usize) {
    let mut shape = Shape::default();
    shape.node(v, 1, cap);
    (shape.max, shape.nodes, shape.bytes)
}

/// Levels [`json_shape`] descends by recursion.
const SHAPE_RECURSION: usize = 48;

#[derive(Default)]
struct Shape {
    max: usize,
    nodes: u64,
    bytes: usize,
}

impl Shape {
    /// Count `v`, at depth `d` (that of a container at its place); `false`
    /// once past `cap`.
    fn node(&mut self, v: &serde_json::Value, d: usize, cap: usize) -> bool {
        use serde_json::Value;
        self.nodes += 1;
        match v {
            Value::String(s) => self.bytes += s.len(),
            Value::Array(a) => {
                if !self.open(d, cap) {
                    return false;
                }
                for x in a {
                    if !self.member(x, d, cap) {
                        return false;
                    }
                }
            }
            Value::Object(o) => {
                if !self.open(d, cap) {
                    return false;
                }
                for (k, x) in o {
                    self.bytes += k.len();
                    if !self.member(x, d, cap) {
                        return false;
                    }
                }
            }
            _ => {}
        }
        true
    }

    /// A container at depth `d`: within `cap`?
    #[inline]
    fn open(&mut self, d: usize, cap: usize) -> bool {
        self.max = self.max.max(d);
        d <= cap
    }

    /// A member of a container at depth `d`.
    #[inline]
    fn member(&mut self, x: &serde_json::Value, d: usize, cap: usize) -> bool {
        use serde_json::Value;
        match x {
            Value::Array(_) | Value::Object(_) if d < SHAPE_RECURSION => self.node(x, d + 1, cap),
            Value::Array(_) | Value::Object(_) => self.deep(x, d + 1, cap),
            Value::String(s) => {
                self.nodes += 1;
                self.bytes += s.len();
                true
            }
            _ => {
                self.nodes += 1;
                true
            }
        }
    }

    /// [`Shape::node`] without recursion, for what lies deeper than
    /// [`SHAPE_RECURSION`].
    #[cold]
    fn deep(&mut self, v: &serde_json::Value, d: usize, cap: usize) -> bool {
        use serde_json::Value;
        let mut stack: Vec<(&Value, usize)> = vec![(v, d)];
        while let Some((v, d)) = stack.pop() {
            self.nodes += 1;
            match v {
                Value::String(s) => self.bytes += s.len(),
                Value::Array(a) => {
                    if !self.open(d, cap) {
                        return false;
                    }
                    stack.extend(a.iter().map(|x| (x, d + 1)));
                }
                Value::Object(o) => {
                    if !self.open(d, cap) {
                        return false;
                    }
                    for (k, x) in o {
                        self.bytes += k.len();
                        stack.push((x, d + 1));
                    }
                }
                _ => {}
            }
        }
        true
    }
}

/// A walk over JSON nodes: a step per [`NODES_PER_STEP`] nodes.
#[derive(Default)]
pub(crate) struct Walk {
    nodes: u64,
}

impl Walk {
    /// One more node visited.
    #[inline]
    pub(crate) fn node(&mut self) -> Result<(), Error> {
        self.nodes += 1;
        if self.nodes.is_multiple_of(NODES_PER_STEP) {
            steps(1)?;
        }
        Ok(())
    }
}

/// Charge steps and memory for building a copy of `v` (a JSON value the
/// engine is about to clone or write), walking it without recursion. The
/// walk itself stops as soon as either meter runs out.
pub(crate) fn copy_of(v: &serde_json::Value) -> Result<(), Error> {
    use serde_json::Value;
    // The stack is allocated only for a collection's children.
    let mut stack = Vec::new();
    let mut next = Some(v);
    while let Some(v) = next.take().or_else(|| stack.pop()) {
        steps(STEPS_PER_BUILT_NODE)?;
        let bytes = match v {
            Value::String(s) => {
                steps(byte_steps(s.len()))?;
                s.len() + SLOT_BYTES
            }
            Value::Array(a) => {
                stack.extend(a.iter());
                SLOT_BYTES * (a.len() + 1)
            }
            Value::Object(o) => {
                for (k, v) in o {
                    steps(byte_steps(k.len()))?;
                    memory(k.len())?;
                    stack.push(v);
                }
                2 * SLOT_BYTES * (o.len() + 1)
            }
            _ => SLOT_BYTES,
        };
        memory(bytes)?;
    }
    Ok(())
}

/// What [`copy_of`] charges for a value, added up node by node by a walk
/// that visits the value for its own reasons (the size of an output), so
/// that charging takes no second walk.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CopyCost {
    steps: u64,
    memory: u64,
}

impl CopyCost {
    /// One node of the value, its members not included (the walk visits
    /// them): what [`copy_of`] charges for it.
    #[inline]
    pub(crate) fn node(&mut self, v: &serde_json::Value) {
        use serde_json::Value;
        self.steps += STEPS_PER_BUILT_NODE;
        let bytes = match v {
            Value::String(s) => {
                self.steps += byte_steps(s.len());
                s.len() + SLOT_BYTES
            }
            Value::Array(a) => SLOT_BYTES * (a.len() + 1),
            Value::Object(o) => {
                for k in o.keys() {
                    self.steps += byte_steps(k.len());
                    self.memory += k.len() as u64;
                }
                2 * SLOT_BYTES * (o.len() + 1)
            }
            _ => SLOT_BYTES,
        };
        self.memory += bytes as u64;
    }

    /// Charge the cost of `v`, every node of which was added: at once where
    /// both meters hold it, which leaves them as [`copy_of`] would; else by
    /// [`copy_of`] itself, so that the meter that runs out, and where, are
    /// its.
    pub(crate) fn charge(self, v: &serde_json::Value) -> Result<(), Error> {
        if Meter::Steps.left() >= self.steps && Meter::Memory.left() >= self.memory {
            Meter::Steps.take(self.steps)?;
            Meter::Memory.take(self.memory)?;
            return Ok(());
        }
        copy_of(v)
    }
}

#[cfg(test)]
mod tests {
    use super::json_shape;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// The shape by its definition: depth, nodes and string bytes of the
    /// whole value (no cap).
    fn reference(v: &Value) -> (usize, u64, usize) {
        match v {
            Value::String(s) => (0, 1, s.len()),
            Value::Array(a) => a
                .iter()
                .map(reference)
                .fold((1, 1, 0), |(d, n, b), c| (d.max(c.0 + 1), n + c.1, b + c.2)),
            Value::Object(o) => o.iter().fold((1, 1, 0), |(d, n, b), (k, x)| {
                let c = reference(x);
                (d.max(c.0 + 1), n + c.1, b + k.len() + c.2)
            }),
            _ => (0, 1, 0),
        }
    }

    /// Arrays and objects nested `n` deep, with members beside them.
    fn nested(n: usize) -> Value {
        let mut v = json!("leaf");
        for i in 0..n {
            v = if i % 2 == 0 {
                json!([1, v, "xy"])
            } else {
                json!({"k": v, "s": "abc", "t": true})
            };
        }
        v
    }

    #[test]
    fn the_shape_of_values_within_the_cap_is_their_whole_shape() {
        // Across the recursion bound (48 levels) and far past it.
        for n in [0, 1, 2, 47, 48, 49, 50, 100, 600] {
            let v = nested(n);
            assert_eq!(json_shape(&v, usize::MAX), reference(&v), "depth {n}");
            assert_eq!(json_shape(&v, n), reference(&v), "depth {n} at its cap");
        }
    }

    #[test]
    fn a_value_past_the_cap_is_reported_one_level_past_it() {
        for (n, cap) in [(10, 9), (60, 0), (60, 47), (60, 48), (60, 49), (600, 512)] {
            assert_eq!(
                json_shape(&nested(n), cap).0,
                cap + 1,
                "depth {n}, cap {cap}"
            );
        }
    }

    fn json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| json!(i)),
            "[a-z]{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(64, 400, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::vec(("[a-z]{0,4}", inner), 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// The meters left (steps, memory) and the outcome of charging `v`
    /// by `charge` within a call of `max_steps` and `max_memory_bytes`.
    fn charged(
        v: &Value,
        max_steps: u64,
        max_memory_bytes: usize,
        charge: impl Fn(&Value) -> Result<(), crate::Error>,
    ) -> (u64, u64, Option<Option<String>>) {
        use super::{Call, Meter};
        let limits = crate::Limits {
            max_steps,
            max_memory_bytes,
            ..crate::Limits::default()
        };
        let _call = Call::enter(&limits);
        let r = charge(v);
        (
            Meter::Steps.left(),
            Meter::Memory.left(),
            r.err().map(|e| e.limit().map(str::to_string)),
        )
    }

    fn summed(v: &Value) -> super::CopyCost {
        let mut cost = super::CopyCost::default();
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            cost.node(v);
            match v {
                Value::Array(a) => stack.extend(a),
                Value::Object(o) => stack.extend(o.values()),
                _ => {}
            }
        }
        cost
    }

    #[test]
    fn a_summed_copy_cost_charges_what_copy_of_charges() {
        // Long strings and keys: a step per 64 bytes as well as a node.
        let long = "x".repeat(300);
        let v = json!({"a": [1, null, true, long.clone()], long.clone(): {"b": "c"}});
        let (steps, memory) = (summed(&v).steps, summed(&v).memory);
        assert!(steps > 9 && memory > 600, "{steps} {memory}");
        for budget in [(u64::MAX, usize::MAX), (steps, memory as usize)] {
            let by_copy = charged(&v, budget.0, budget.1, super::copy_of);
            assert_eq!(by_copy.2, None);
            assert_eq!(
                charged(&v, budget.0, budget.1, |v| summed(v).charge(v)),
                by_copy
            );
        }
        // One short of either meter: copy_of's own failure.
        for budget in [(steps - 1, usize::MAX), (u64::MAX, memory as usize - 1)] {
            let by_copy = charged(&v, budget.0, budget.1, super::copy_of);
            assert!(by_copy.2.is_some());
            assert_eq!(
                charged(&v, budget.0, budget.1, |v| summed(v).charge(v)),
                by_copy
            );
        }
    }

    proptest! {
        #[test]
        fn a_summed_copy_cost_charges_as_copy_of(
            v in json(),
            steps in 0u64..200,
            memory in 0usize..4000,
        ) {
            for (s, m) in [(steps, memory), (u64::MAX, usize::MAX), (steps, usize::MAX), (u64::MAX, memory)] {
                let by_copy = charged(&v, s, m, super::copy_of);
                prop_assert_eq!(charged(&v, s, m, |v| summed(v).charge(v)), by_copy);
            }
        }

        #[test]
        fn the_shape_is_the_reference_shape(v in json(), cap in 0usize..80) {
            let whole = reference(&v);
            let got = json_shape(&v, cap);
            if whole.0 <= cap {
                prop_assert_eq!(got, whole);
            } else {
                prop_assert_eq!(got.0, cap + 1);
            }
        }
    }
}
