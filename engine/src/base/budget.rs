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
/// a small object one by one, which most Kubernetes objects are: up to
/// [`SCAN_MEMBERS`] members are scanned, larger objects hashed.
#[inline]
pub(crate) fn member<'a>(
    o: &'a serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'a serde_json::Value> {
    if o.len() <= SCAN_MEMBERS {
        o.iter().find_map(|(k, v)| (k == key).then_some(v))
    } else {
        o.get(key)
    }
}

/// Objects of up to this many members are searched by scanning ([`member`]).
pub(crate) const SCAN_MEMBERS: usize = 12;

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
/// its deepest member), its nodes and its string bytes (keys included), in
/// one walk without recursion. The walk stops at the first container
/// deeper than `cap` (the counts are then partial).
pub(crate) fn json_shape(v: &serde_json::Value, cap: usize) -> (usize, u64, usize) {
    use serde_json::Value;
    let (mut max, mut nodes, mut bytes) = (0, 0u64, 0usize);
    // Room for a typical object's pending members: one allocation.
    let mut stack: Vec<(&Value, usize)> = Vec::with_capacity(64);
    stack.push((v, 1));
    while let Some((v, d)) = stack.pop() {
        nodes += 1;
        match v {
            Value::String(s) => bytes += s.len(),
            Value::Array(a) => {
                max = max.max(d);
                if d > cap {
                    return (d, nodes, bytes);
                }
                stack.extend(a.iter().map(|x| (x, d + 1)));
            }
            Value::Object(o) => {
                max = max.max(d);
                if d > cap {
                    return (d, nodes, bytes);
                }
                for (k, x) in o {
                    bytes += k.len();
                    stack.push((x, d + 1));
                }
            }
            _ => {}
        }
    }
    (max, nodes, bytes)
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
