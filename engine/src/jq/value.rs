//! The value type jq programs run on: `jaq_json::Val` plus a nesting-depth
//! bound, with every operation metered against the evaluation budget.
//!
//! jaq has no fuel, timeout or size limit of its own. This wrapper makes every
//! value operation (indexing, one step of iteration, construction,
//! arithmetic) cost one step, refuses to build strings, collections or
//! nesting beyond the configured caps, and keeps objects in sorted key order
//! (gojq, the reference's engine, always iterates objects by sorted keys).
//!
//! Operations that cannot fail in jaq's API (e.g. `From<String>`) record a
//! breach in the thread-local budget ("poison") and return `null`; the
//! evaluator checks the budget after every output and turns a breach into a
//! limit error, so a truncated value never escapes.

use jaq_core::path::Opt;
use jaq_core::{Exn, ValR, ValX, val::Range};
use jaq_json::{Map, Num, Rc, Val};
use std::cell::{Cell, RefCell};
use std::cmp::Ordering;
use std::fmt;

use crate::budget::{self, Call, Meter, SLOT_BYTES};

/// The data jaq's filters run on: [`W`] values with a lookup table.
pub(crate) type D = jaq_core::data::JustLut<W>;

/// A jq value with an upper bound of its nesting depth.
#[derive(Debug)]
pub(crate) struct W {
    pub(crate) v: Val,
    /// Upper bound of the nesting depth (0 for scalars).
    pub(crate) d: u32,
}

/// Cloning costs a step. jaq clones the value it passes on at every comma,
/// closure call and variable binding, so this meters control flow that no
/// value operation sees (`def f2(g): g, g` nested 32 deep does 32 calls per
/// output). Once the budget is spent a clone is `null` and the breach is
/// recorded; the evaluator reports it, so the `null` never escapes.
impl Clone for W {
    fn clone(&self) -> W {
        if tick().is_err() {
            return W::scalar(Val::Null);
        }
        W {
            v: self.v.clone(),
            d: self.d,
        }
    }
}

pub(crate) type Error = jaq_core::Error<W>;

/// Caps applied while a budget is active.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Caps {
    pub max_string: usize,
    pub max_collection: usize,
    pub max_depth: u32,
    pub max_output_bytes: usize,
}

impl Caps {
    const UNLIMITED: Caps = Caps {
        max_string: usize::MAX,
        max_collection: usize::MAX,
        max_depth: u32::MAX,
        max_output_bytes: usize::MAX,
    };
}

thread_local! {
    static CAPS: Cell<Caps> = const { Cell::new(Caps::UNLIMITED) };
    static POISON: RefCell<Option<(&'static str, String)>> = const { RefCell::new(None) };
    /// Whether `POISON` holds a breach: what every operation checks, read
    /// without `POISON`'s borrow flag and its destructor's registration.
    static POISONED: Cell<bool> = const { Cell::new(false) };
}

/// An active evaluation on this thread: its caps, and the call whose
/// meters it draws from (the call open on the thread, or one of its own).
/// Dropping it lifts the caps.
pub(crate) struct BudgetGuard {
    _call: Call,
}

impl BudgetGuard {
    /// Start an evaluation with `limits` (joining the open call, if any)
    /// and the given caps.
    pub(crate) fn enter(limits: &crate::Limits, caps: Caps) -> BudgetGuard {
        let call = Call::enter(limits);
        CAPS.with(|c| c.set(caps));
        POISON.with(|p| *p.borrow_mut() = None);
        POISONED.with(|p| p.set(false));
        BudgetGuard { _call: call }
    }

    /// The first breach recorded, if any.
    pub(crate) fn breach(&self) -> Option<(&'static str, String)> {
        recorded_breach()
    }
}

/// The first breach recorded on this thread since the evaluation began.
#[inline]
pub(crate) fn recorded_breach() -> Option<(&'static str, String)> {
    if !poisoned() {
        return None;
    }
    POISON.with(|p| p.borrow().clone())
}

impl Drop for BudgetGuard {
    fn drop(&mut self) {
        CAPS.with(|c| c.set(Caps::UNLIMITED));
    }
}

pub(crate) fn caps() -> Caps {
    CAPS.with(|c| c.get())
}

/// Record a breach (the first one wins) and return the error to raise.
pub(crate) fn breach(limit: &'static str, message: String) -> Error {
    POISON.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            *p = Some((limit, message.clone()));
        }
    });
    POISONED.with(|p| p.set(true));
    // Exhaust the steps so that every later operation fails fast too.
    Meter::Steps.exhaust();
    Error::new(W::scalar(Val::utf8_str(format!(
        "limit exceeded ({limit}): {message}"
    ))))
}

#[inline]
fn poisoned() -> bool {
    POISONED.with(Cell::get)
}

fn meter_breach(m: Meter) -> Error {
    if poisoned() {
        Error::new(W::scalar(Val::utf8_str("evaluation aborted")))
    } else {
        breach(m.limit(), m.message())
    }
}

/// Spend `n` steps.
#[inline]
pub(crate) fn tick_n(n: u64) -> Result<(), Error> {
    Meter::Steps.take(n).map_err(meter_breach)
}

/// Spend the steps of touching `bytes` bytes.
#[inline]
pub(crate) fn tick_bytes(bytes: usize) -> Result<(), Error> {
    tick_n(budget::byte_steps(bytes))
}

/// Charge `bytes` of memory about to be allocated.
#[inline]
pub(crate) fn alloc(bytes: usize) -> Result<(), Error> {
    Meter::Memory.take(bytes as u64).map_err(meter_breach)
}

/// Charge building a string of `len` bytes: the copy and the memory.
#[inline]
pub(crate) fn alloc_str(len: usize) -> Result<(), Error> {
    tick_bytes(len)?;
    alloc(len)
}

/// Charge building (or copying) a collection of `len` slots.
#[inline]
pub(crate) fn alloc_slots(len: usize) -> Result<(), Error> {
    tick_n(len as u64)?;
    alloc(len.saturating_mul(SLOT_BYTES))
}

#[inline]
pub(crate) fn tick() -> Result<(), Error> {
    tick_n(1)
}

fn check_str_len(len: usize) -> Result<(), Error> {
    let max = caps().max_string;
    if len > max {
        Err(breach(
            "maxStringBytes",
            format!("a string of {len} bytes would exceed the limit of {max} bytes"),
        ))
    } else {
        Ok(())
    }
}

pub(crate) fn check_coll_len(len: usize) -> Result<(), Error> {
    let max = caps().max_collection;
    if len > max {
        Err(breach(
            "maxCollectionLen",
            format!("a collection of {len} elements would exceed the limit of {max}"),
        ))
    } else {
        Ok(())
    }
}

fn check_depth(d: u32) -> Result<(), Error> {
    let max = caps().max_depth;
    if d > max {
        Err(breach(
            "maxDepth",
            format!("a value nested deeper than {max} levels"),
        ))
    } else {
        Ok(())
    }
}

/// Bits of a big integer we accept (about 1,200 decimal digits).
const MAX_BIGINT_BITS: u64 = 4096;

fn check_num(v: &Val) -> Result<(), Error> {
    if let Val::Num(Num::BigInt(b)) = v
        && b.bits() > MAX_BIGINT_BITS
    {
        return Err(breach(
            "maxStringBytes",
            format!("an integer of more than {MAX_BIGINT_BITS} bits"),
        ));
    }
    Ok(())
}

/// Convert an error of `jaq_json::Val` into one of `W`.
pub(crate) fn lift_err(e: jaq_core::Error<Val>) -> Error {
    Error::new(W::scalar(e.into_val()))
}

fn lift(r: ValR<Val>, d: u32) -> ValR<W> {
    r.map(|v| W { v, d }).map_err(lift_err)
}

/// Sort the keys of an object, if it is one and they are not sorted.
fn sort_obj(v: Val) -> Val {
    match v {
        Val::Obj(o) => {
            let sorted = o.keys().zip(o.keys().skip(1)).all(|(a, b)| a <= b);
            if sorted {
                Val::Obj(o)
            } else {
                let mut m = Rc::try_unwrap(o).unwrap_or_else(|o| (*o).clone());
                m.sort_keys();
                Val::obj(m)
            }
        }
        v => v,
    }
}

/// The slots copied to change a collection: none when nothing else holds
/// it (jaq changes it in place), all of them otherwise.
fn copied<T: Len>(rc: &Rc<T>) -> usize {
    if Rc::strong_count(rc) == 1 {
        0
    } else {
        rc.len()
    }
}

trait Len {
    fn len(&self) -> usize;
}
impl Len for Vec<Val> {
    fn len(&self) -> usize {
        Vec::len(self)
    }
}
impl Len for Map<Val, Val> {
    fn len(&self) -> usize {
        Map::len(self)
    }
}

pub(crate) fn str_len(v: &Val) -> Option<usize> {
    match v {
        Val::TStr(b) | Val::BStr(b) => Some(b.len()),
        _ => None,
    }
}

impl W {
    /// A scalar (depth 0).
    pub(crate) fn scalar(v: Val) -> W {
        W { v, d: 0 }
    }

    fn child(&self, v: Val) -> W {
        W {
            v,
            d: self.d.saturating_sub(1),
        }
    }

    /// The charges of [`W::from`] a string of `len` bytes (a breach is
    /// recorded, as there, and the caller's to report).
    pub(crate) fn charge_string(len: usize) -> Result<(), Error> {
        check_str_len(len)?;
        alloc_str(len)
    }

    fn from_string_checked(s: String) -> W {
        if W::charge_string(s.len()).is_err() {
            return W::scalar(Val::Null);
        }
        W::scalar(Val::utf8_str(s))
    }

    /// Build an object from key/value pairs with sorted keys.
    pub(crate) fn object(pairs: Vec<(W, W)>) -> ValR<W> {
        check_coll_len(pairs.len())?;
        alloc_slots(2 * pairs.len())?;
        let mut d = 0u32;
        let mut m = Map::default();
        for (k, v) in pairs {
            tick()?;
            tick_bytes(str_len(&k.v).unwrap_or(0))?;
            if !matches!(k.v, Val::TStr(_)) {
                return Err(Error::str(format_args!(
                    "expected a string for object key but got: {}",
                    preview_val(&k.v)
                )));
            }
            d = d.max(v.d.saturating_add(1));
            m.insert(k.v, v.v);
        }
        check_depth(d)?;
        m.sort_keys();
        Ok(W { v: Val::obj(m), d })
    }
}

impl fmt::Display for W {
    /// Bounded: error messages embed values, and a value may be huge (or a
    /// shared structure that is exponentially large when printed).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&preview_val(&self.v))
    }
}

/// At most about 200 bytes of a value's JSON text.
pub(crate) fn preview_val(v: &Val) -> String {
    const MAX: usize = 200;
    match super::format::to_json_limited(v, MAX) {
        Ok(s) => s,
        Err(_) => {
            let mut s = String::new();
            let _ = super::format::to_json_prefix(v, MAX, &mut s);
            let cut = (0..=MAX.min(s.len()))
                .rev()
                .find(|i| s.is_char_boundary(*i))
                .unwrap_or(0);
            s.truncate(cut);
            s.push_str("...");
            s
        }
    }
}

/// Equality that costs one step per node visited (shared subtrees compare
/// by pointer first). When the budget runs out the breach is recorded and
/// the answer no longer matters.
pub(crate) fn eq_metered(a: &Val, b: &Val) -> bool {
    if tick().is_err() {
        return false;
    }
    match (a, b) {
        (Val::Arr(x), Val::Arr(y)) => {
            Rc::ptr_eq(x, y)
                || (x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| eq_metered(p, q)))
        }
        (Val::Obj(x), Val::Obj(y)) => {
            Rc::ptr_eq(x, y)
                || (x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| eq_metered(v, w))))
        }
        (Val::Arr(_) | Val::Obj(_), _) | (_, Val::Arr(_) | Val::Obj(_)) => false,
        (x, y) => {
            if let (Some(l), Some(r)) = (str_len(x), str_len(y))
                && l == r
                && tick_bytes(l).is_err()
            {
                return false;
            }
            x == y
        }
    }
}

/// jq's total order (null < false < true < numbers < strings < arrays <
/// objects; objects by sorted keys, then values), one step per node.
pub(crate) fn cmp_metered(a: &Val, b: &Val) -> Ordering {
    if tick().is_err() {
        return Ordering::Equal;
    }
    match (a, b) {
        (Val::Arr(x), Val::Arr(y)) => {
            if Rc::ptr_eq(x, y) {
                return Ordering::Equal;
            }
            for (p, q) in x.iter().zip(y.iter()) {
                match cmp_metered(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            x.len().cmp(&y.len())
        }
        (Val::Obj(x), Val::Obj(y)) => {
            if Rc::ptr_eq(x, y) {
                return Ordering::Equal;
            }
            match (x.len(), y.len()) {
                (0, 0) => return Ordering::Equal,
                (0, _) => return Ordering::Less,
                (_, 0) => return Ordering::Greater,
                _ => {}
            }
            let key_bytes: usize = x.keys().chain(y.keys()).filter_map(str_len).sum();
            if tick_n((x.len() + y.len()) as u64).is_err() || tick_bytes(key_bytes).is_err() {
                return Ordering::Equal;
            }
            let mut l: Vec<_> = x.iter().collect();
            let mut r: Vec<_> = y.iter().collect();
            l.sort_by(|p, q| p.0.cmp(q.0));
            r.sort_by(|p, q| p.0.cmp(q.0));
            let keys = l.iter().map(|(k, _)| *k).cmp(r.iter().map(|(k, _)| *k));
            if keys != Ordering::Equal {
                return keys;
            }
            for ((_, p), (_, q)) in l.iter().zip(r.iter()) {
                match cmp_metered(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            Ordering::Equal
        }
        (Val::Arr(_), Val::Obj(_)) => Ordering::Less,
        (Val::Obj(_), Val::Arr(_)) => Ordering::Greater,
        (Val::Arr(_) | Val::Obj(_), _) => Ordering::Greater,
        (_, Val::Arr(_) | Val::Obj(_)) => Ordering::Less,
        (x, y) => {
            if let (Some(l), Some(r)) = (str_len(x), str_len(y))
                && tick_bytes(l.min(r)).is_err()
            {
                return Ordering::Equal;
            }
            x.cmp(y)
        }
    }
}

impl PartialEq for W {
    fn eq(&self, other: &Self) -> bool {
        eq_metered(&self.v, &other.v)
    }
}
impl Eq for W {}
impl PartialOrd for W {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for W {
    fn cmp(&self, other: &Self) -> Ordering {
        cmp_metered(&self.v, &other.v)
    }
}

/// A type error with bounded previews of the operands.
fn type_error(what: &str, l: &Val, r: Option<&Val>) -> Error {
    match r {
        Some(r) => Error::str(format_args!(
            "cannot {what} {} and {}",
            preview_typed(l),
            preview_typed(r)
        )),
        None => Error::str(format_args!("cannot {what} {}", preview_typed(l))),
    }
}

pub(crate) fn type_name(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

pub(crate) fn preview_typed(v: &Val) -> String {
    if matches!(v, Val::Null) {
        "null".into()
    } else {
        format!("{} ({})", type_name(v), preview_val(v))
    }
}

/// The operand types jaq-json accepts for each operation; anything else is
/// reported by us (with bounded previews) instead of by jaq-json (whose
/// messages print whole values).
fn arith_ok(op: &str, l: &Val, r: &Val) -> bool {
    use Val::*;
    let s = |v: &Val| matches!(v, TStr(_) | BStr(_));
    match op {
        "add" => {
            matches!(
                (l, r),
                (Null, _) | (_, Null) | (Num(_), Num(_)) | (Arr(_), Arr(_)) | (Obj(_), Obj(_))
            ) || (s(l) && s(r))
        }
        "subtract" => matches!((l, r), (Num(_), Num(_)) | (Arr(_), Arr(_))),
        "multiply" => {
            matches!((l, r), (Num(_), Num(_)) | (Obj(_), Obj(_)))
                || (s(l) && matches!(r, Num(_)))
                || (matches!(l, Num(_)) && s(r))
        }
        "divide" => matches!((l, r), (Num(_), Num(_))) || (s(l) && s(r)),
        "modulo" => matches!((l, r), (Num(_), Num(_))),
        _ => false,
    }
}

impl From<bool> for W {
    fn from(b: bool) -> Self {
        W::scalar(Val::from(b))
    }
}
impl From<isize> for W {
    fn from(i: isize) -> Self {
        W::scalar(Val::from(i))
    }
}
impl From<usize> for W {
    fn from(i: usize) -> Self {
        W::scalar(Val::from(i))
    }
}
impl From<f64> for W {
    fn from(f: f64) -> Self {
        W::scalar(Val::from(f))
    }
}
impl From<String> for W {
    fn from(s: String) -> Self {
        W::from_string_checked(s)
    }
}
impl From<Range<W>> for W {
    fn from(r: Range<W>) -> Self {
        let r = r.start.map(|s| s.v)..r.end.map(|e| e.v);
        W {
            v: Val::from(r),
            d: 1,
        }
    }
}

impl FromIterator<W> for W {
    fn from_iter<T: IntoIterator<Item = W>>(iter: T) -> Self {
        let mut d = 0u32;
        let mut out = Vec::new();
        let max = caps().max_collection;
        for x in iter {
            if alloc_slots(1).is_err() {
                return W::scalar(Val::Null);
            }
            if out.len() >= max {
                let _ = check_coll_len(out.len() + 1);
                return W::scalar(Val::Null);
            }
            d = d.max(x.d.saturating_add(1));
            out.push(x.v);
        }
        if check_depth(d).is_err() {
            return W::scalar(Val::Null);
        }
        W {
            v: Val::Arr(Rc::new(out)),
            d: d.max(1),
        }
    }
}

impl std::ops::Sub for W {
    type Output = ValR<W>;
    fn sub(self, rhs: W) -> ValR<W> {
        tick()?;
        if !arith_ok("subtract", &self.v, &rhs.v) {
            return Err(type_error("subtract", &self.v, Some(&rhs.v)));
        }
        let d = self.d.max(rhs.d);
        if let (Val::Arr(a), Val::Arr(b)) = (&self.v, &rhs.v) {
            // Array difference with metered equality (jaq-json's compares
            // unmetered, which shared structures make exponential).
            tick_n((a.len() as u64).saturating_mul(b.len() as u64))?;
            let kept: Vec<Val> = a
                .iter()
                .filter(|x| !b.iter().any(|y| eq_metered(x, y)))
                .cloned()
                .collect();
            alloc_slots(kept.len())?;
            return Ok(W {
                v: Val::Arr(Rc::new(kept)),
                d: self.d,
            });
        }
        let r = lift(self.v - rhs.v, d)?;
        check_num(&r.v)?;
        Ok(r)
    }
}
fn is_zero(v: &Val) -> bool {
    matches!(v, Val::Num(n) if super::format::num_f64(n) == 0.0)
}

impl std::ops::Div for W {
    type Output = ValR<W>;
    fn div(self, rhs: W) -> ValR<W> {
        tick()?;
        if !arith_ok("divide", &self.v, &rhs.v) {
            return Err(type_error("divide", &self.v, Some(&rhs.v)));
        }
        if matches!(self.v, Val::Num(_)) && is_zero(&rhs.v) {
            return Err(Error::str(format_args!(
                "cannot divide {} by: {}",
                preview_typed(&self.v),
                preview_typed(&rhs.v)
            )));
        }
        if let (Val::TStr(a), Val::TStr(b)) = (&self.v, &rhs.v) {
            // `split/1`: count the pieces before building them, so that a
            // big string cannot become millions of elements.
            tick_bytes(a.len())?;
            let pieces = split_pieces(a, b);
            check_coll_len(pieces)?;
            tick_n(pieces as u64)?;
        }
        let d = self.d.max(rhs.d);
        let r = lift(self.v / rhs.v, d)?;
        check_num(&r.v)?;
        Ok(r)
    }
}

/// How many strings `a / b` (jq's `split/1`) yields: one per character for an
/// empty separator, else one more than the non-overlapping occurrences.
fn split_pieces(a: &[u8], b: &[u8]) -> usize {
    if a.is_empty() {
        return 0;
    }
    match (std::str::from_utf8(a), std::str::from_utf8(b)) {
        (Ok(a), Ok("")) => a.chars().count(),
        // Linear-time substring search (two-way), not a naive scan.
        (Ok(a), Ok(b)) => a.matches(b).count() + 1,
        _ => a.len() + 1,
    }
}

impl std::ops::Rem for W {
    type Output = ValR<W>;
    /// gojq: both operands are truncated to integers.
    fn rem(self, rhs: W) -> ValR<W> {
        tick()?;
        if !arith_ok("modulo", &self.v, &rhs.v) {
            return Err(type_error("modulo", &self.v, Some(&rhs.v)));
        }
        let trunc = |v: &Val| match v {
            Val::Num(Num::Int(i)) => Some(*i as i64),
            Val::Num(n) => {
                let f = super::format::num_f64(n);
                (f.is_finite() && f.abs() < 9.2e18).then_some(f.trunc() as i64)
            }
            _ => None,
        };
        match (trunc(&self.v), trunc(&rhs.v)) {
            (Some(_), Some(0)) => Err(Error::str(format_args!(
                "cannot modulo {} by: {}",
                preview_typed(&self.v),
                preview_typed(&rhs.v)
            ))),
            (Some(a), Some(b)) => Ok(W::scalar(Val::Num(Num::from_integral(a.wrapping_rem(b))))),
            _ => {
                let d = self.d.max(rhs.d);
                lift(self.v % rhs.v, d)
            }
        }
    }
}

impl std::ops::Add for W {
    type Output = ValR<W>;
    fn add(self, rhs: W) -> ValR<W> {
        tick()?;
        if !arith_ok("add", &self.v, &rhs.v) {
            return Err(type_error("add", &self.v, Some(&rhs.v)));
        }
        match (&self.v, &rhs.v) {
            (Val::TStr(a) | Val::BStr(a), Val::TStr(b) | Val::BStr(b)) => {
                let n = a.len().saturating_add(b.len());
                check_str_len(n)?;
                alloc_str(n)?;
            }
            // The left side is extended in place when nothing else holds
            // it, copied first otherwise.
            (Val::Arr(a), Val::Arr(b)) => {
                let n = a.len().saturating_add(b.len());
                check_coll_len(n)?;
                alloc_slots(b.len() + copied(a))?;
            }
            (Val::Obj(a), Val::Obj(b)) => {
                check_coll_len(a.len().saturating_add(b.len()))?;
                alloc_slots(2 * (b.len() + copied(a)))?;
                tick_bytes(b.keys().filter_map(str_len).sum())?;
                // The result's keys are checked for order (`sort_obj`), a
                // step each: adding one entry at a time to a growing object
                // is quadratic work, and must be charged as such.
                tick_n(a.len() as u64)?;
            }
            _ => {}
        }
        let d = self.d.max(rhs.d);
        let r = lift(self.v + rhs.v, d)?;
        check_num(&r.v)?;
        Ok(W {
            v: sort_obj(r.v),
            d,
        })
    }
}

impl std::ops::Mul for W {
    type Output = ValR<W>;
    fn mul(self, rhs: W) -> ValR<W> {
        tick()?;
        if !arith_ok("multiply", &self.v, &rhs.v) {
            return Err(type_error("multiply", &self.v, Some(&rhs.v)));
        }
        let rep = match (&self.v, &rhs.v) {
            (s @ (Val::TStr(_) | Val::BStr(_)), Val::Num(n))
            | (Val::Num(n), s @ (Val::TStr(_) | Val::BStr(_))) => {
                Some((str_len(s).unwrap_or(0), super::format::num_f64(n)))
            }
            _ => None,
        };
        if let Some((len, n)) = rep
            && n > 0.0
        {
            let total = (len as f64) * n.ceil();
            if total > caps().max_string as f64 {
                return Err(breach(
                    "maxStringBytes",
                    format!("repeating a string of {len} bytes {n} times"),
                ));
            }
            // `repeat` doubles: log2(n) copies, the bytes of the result.
            tick_n(u64::from(64 - (n as u64).leading_zeros()))?;
            alloc_str(total as usize)?;
        }
        if let (Val::Obj(a), Val::Obj(b)) = (&self.v, &rhs.v) {
            alloc_slots(2 * (a.len() + b.len()))?;
        }
        let d = self.d.max(rhs.d);
        let r = lift(self.v * rhs.v, d)?;
        check_num(&r.v)?;
        Ok(W {
            v: sort_obj(r.v),
            d,
        })
    }
}

impl std::ops::Neg for W {
    type Output = ValR<W>;
    fn neg(self) -> ValR<W> {
        tick()?;
        if !matches!(self.v, Val::Num(_)) {
            return Err(type_error("negate", &self.v, None));
        }
        lift(-self.v, 0)
    }
}

fn opt_fail<'a>(opt: Opt, v: W, typ: &str) -> ValX<'a, W> {
    let msg = format!("cannot use {} as {typ}", v.v);
    opt.fail(v, |_| Exn::from(Error::str(msg)))
}

/// `abs_index` of jaq-json: resolve a possibly negative index.
fn abs_index(i: &Val, len: usize) -> Option<usize> {
    let Val::Num(n) = i else { return None };
    let i = n.as_isize()?;
    let i = if i < 0 {
        (len as isize).checked_add(i)?
    } else {
        i
    };
    usize::try_from(i).ok().filter(|i| *i < len)
}

impl jaq_core::ValT for W {
    fn from_num(n: &str) -> ValR<W> {
        lift(Val::from_num(n), 0)
    }

    fn from_map<I: IntoIterator<Item = (Self, Self)>>(iter: I) -> ValR<W> {
        W::object(iter.into_iter().collect())
    }

    fn key_values(self) -> jaq_core::box_iter::BoxIter<'static, ValR<(W, W), W>> {
        if !matches!(self.v, Val::Arr(_) | Val::Obj(_)) {
            let e = Error::str(format_args!(
                "cannot iterate over {}",
                preview_typed(&self.v)
            ));
            return Box::new(std::iter::once(Err(e)));
        }
        let d = self.d.saturating_sub(1);
        Box::new(self.v.key_values().map(move |r| {
            tick()?;
            let (k, v) = r.map_err(lift_err)?;
            Ok((W::scalar(k), W { v, d }))
        }))
    }

    fn values(self) -> Box<dyn Iterator<Item = ValR<W>>> {
        if !matches!(self.v, Val::Arr(_) | Val::Obj(_)) {
            let e = Error::str(format_args!(
                "cannot iterate over {}",
                preview_typed(&self.v)
            ));
            return Box::new(std::iter::once(Err(e)));
        }
        let d = self.d.saturating_sub(1);
        Box::new(self.v.values().map(move |r| {
            tick()?;
            r.map(|v| W { v, d }).map_err(lift_err)
        }))
    }

    fn index(self, index: &Self) -> ValR<W> {
        tick()?;
        let ok = matches!(
            (&self.v, &index.v),
            (Val::Null, _)
                | (Val::Obj(_), Val::TStr(_) | Val::BStr(_))
                | (Val::Arr(_), Val::Num(_) | Val::Obj(_) | Val::Arr(_))
                | (Val::TStr(_) | Val::BStr(_), Val::Obj(_))
        );
        if !ok {
            return Err(Error::str(format_args!(
                "cannot index {} with {}",
                preview_typed(&self.v),
                preview_typed(&index.v)
            )));
        }
        tick_bytes(str_len(&index.v).unwrap_or(0))?;
        // An array indexed by an array is a search for the key's positions
        // (`indices`): a step per element compared at each position.
        if let (Val::Arr(a), Val::Arr(k)) = (&self.v, &index.v) {
            tick_n((a.len() as u64).saturating_mul(k.len().max(1) as u64))?;
        }
        let d = self.d.saturating_sub(1);
        lift(self.v.index(&index.v), d)
    }

    fn range(self, range: Range<&Self>) -> ValR<W> {
        tick()?;
        let bound_ok = |b: Option<&W>| b.is_none_or(|b| matches!(b.v, Val::Null | Val::Num(_)));
        if !matches!(
            self.v,
            Val::Null | Val::Arr(_) | Val::TStr(_) | Val::BStr(_)
        ) || !bound_ok(range.start)
            || !bound_ok(range.end)
        {
            return Err(Error::str(format_args!(
                "cannot slice {}",
                preview_typed(&self.v)
            )));
        }
        let d = self.d;
        // gojq truncates fractional bounds toward zero (`.[1.5:]` is `.[1:]`,
        // `.[-1.5:]` is `.[-1:]`); jaq only takes integers.
        let whole = |b: Option<&W>| -> Option<Val> {
            b.map(|b| match &b.v {
                Val::Num(n) if n.as_isize().is_none() => {
                    let f = super::format::num_f64(n);
                    Val::from(if f.is_nan() { 0 } else { f.trunc() as isize })
                }
                v => v.clone(),
            })
        };
        let (start, end) = (whole(range.start), whole(range.end));
        // A string slice counts characters from the start; an array slice
        // copies its elements.
        match &self.v {
            Val::TStr(b) | Val::BStr(b) => tick_bytes(b.len())?,
            Val::Arr(a) => alloc_slots(a.len())?,
            _ => {}
        }
        let r = start.as_ref()..end.as_ref();
        lift(self.v.range(r), d)
    }

    fn map_values<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        tick()?;
        let d = self.d;
        match self.v {
            Val::Arr(a) => {
                alloc_slots(a.len() + copied(&a))?;
                let a = Rc::try_unwrap(a).unwrap_or_else(|a| (*a).clone());
                let mut out = Vec::with_capacity(a.len());
                let mut nd = 0u32;
                for x in a {
                    for y in f(W {
                        v: x,
                        d: d.saturating_sub(1),
                    }) {
                        let y = y?;
                        nd = nd.max(y.d.saturating_add(1));
                        out.push(y.v);
                        check_coll_len(out.len())?;
                    }
                }
                check_depth(nd)?;
                Ok(W {
                    v: Val::Arr(Rc::new(out)),
                    d: nd.max(1),
                })
            }
            Val::Obj(o) => {
                alloc_slots(2 * (o.len() + copied(&o)))?;
                let o = Rc::try_unwrap(o).unwrap_or_else(|o| (*o).clone());
                let mut m = Map::default();
                let mut nd = 0u32;
                for (k, v) in o {
                    if let Some(y) = f(W {
                        v,
                        d: d.saturating_sub(1),
                    })
                    .next()
                    {
                        let y = y?;
                        nd = nd.max(y.d.saturating_add(1));
                        m.insert(k, y.v);
                    }
                }
                check_depth(nd)?;
                Ok(W {
                    v: Val::obj(m),
                    d: nd.max(1),
                })
            }
            v => opt_fail(opt, W { v, d }, "iterable (array or object)"),
        }
    }

    fn map_index<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        index: &Self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        tick()?;
        let d = self.d;
        match self.v {
            Val::Obj(o) => {
                alloc_slots(2 * copied(&o))?;
                tick_bytes(str_len(&index.v).unwrap_or(0))?;
                let mut m = Rc::try_unwrap(o).unwrap_or_else(|o| (*o).clone());
                let old = m.get(&index.v).cloned();
                let existed = old.is_some();
                let x = W {
                    v: old.unwrap_or(Val::Null),
                    d: d.saturating_sub(1),
                };
                let mut nd = d;
                match f(x).next().transpose()? {
                    Some(y) => {
                        if !matches!(index.v, Val::TStr(_)) {
                            return Err(Exn::from(Error::str(format_args!(
                                "expected a string for object key but got: {}",
                                preview_val(&index.v)
                            ))));
                        }
                        nd = nd.max(y.d.saturating_add(1));
                        check_depth(nd)?;
                        m.insert(index.v.clone(), y.v);
                        if !existed {
                            check_coll_len(m.len())?;
                            m.sort_keys();
                        }
                    }
                    None => {
                        m.shift_remove(&index.v);
                    }
                }
                Ok(W {
                    v: Val::obj(m),
                    d: nd,
                })
            }
            Val::Arr(a) => {
                let Some(i) = abs_index(&index.v, a.len()) else {
                    let msg = format!("index {} out of bounds", index.v);
                    return opt.fail(W { v: Val::Arr(a), d }, |_| Exn::from(Error::str(msg)));
                };
                alloc_slots(copied(&a))?;
                let mut a = Rc::try_unwrap(a).unwrap_or_else(|a| (*a).clone());
                let x = W {
                    v: std::mem::take(&mut a[i]),
                    d: d.saturating_sub(1),
                };
                let mut nd = d;
                match f(x).next().transpose()? {
                    Some(y) => {
                        nd = nd.max(y.d.saturating_add(1));
                        check_depth(nd)?;
                        a[i] = y.v;
                    }
                    None => {
                        a.remove(i);
                    }
                }
                Ok(W {
                    v: Val::Arr(Rc::new(a)),
                    d: nd,
                })
            }
            v => opt_fail(opt, W { v, d }, "iterable (array or object)"),
        }
    }

    fn map_range<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        range: Range<&Self>,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        tick()?;
        let d = self.d;
        match self.v {
            Val::Arr(a) => {
                let len = a.len();
                let bound = |b: Option<&W>, default: usize| -> Result<usize, Error> {
                    match b.map(|b| &b.v) {
                        None | Some(Val::Null) => Ok(default),
                        Some(Val::Num(n)) => {
                            let i = n
                                .as_isize()
                                .ok_or_else(|| Error::str("slice bounds must be integers"))?;
                            let i = if i < 0 { len as isize + i } else { i };
                            Ok(i.clamp(0, len as isize) as usize)
                        }
                        Some(v) => Err(Error::str(format_args!("cannot use {v} as integer"))),
                    }
                };
                let s = bound(range.start, 0)?;
                let e = bound(range.end, len)?.max(s);
                alloc_slots(copied(&a) + (e - s))?;
                let mut a = Rc::try_unwrap(a).unwrap_or_else(|a| (*a).clone());
                let slice = W {
                    v: Val::Arr(Rc::new(a[s..e].to_vec())),
                    d,
                };
                let y = match f(slice).next().transpose()? {
                    Some(y) => match y.v {
                        Val::Arr(y) => (*y).clone(),
                        v => {
                            return Err(Exn::from(Error::str(format_args!(
                                "cannot use {v} as array"
                            ))));
                        }
                    },
                    None => Vec::new(),
                };
                a.splice(s..e, y);
                check_coll_len(a.len())?;
                Ok(W {
                    v: Val::Arr(Rc::new(a)),
                    d,
                })
            }
            v @ (Val::TStr(_) | Val::BStr(_)) => Err(Exn::from(Error::str(format_args!(
                "updating string slices is not supported (input {v})"
            )))),
            v => opt_fail(opt, W { v, d }, "array"),
        }
    }

    fn as_bool(&self) -> bool {
        self.v.as_bool()
    }

    fn into_string(self) -> Self {
        match self.v {
            Val::TStr(_) => self,
            Val::BStr(b) => W::scalar(Val::TStr(b)),
            v => match super::format::to_json_limited(&v, caps().max_string) {
                Ok(s) if alloc_str(s.len()).is_ok() => W::scalar(Val::utf8_str(s)),
                Ok(_) => W::scalar(Val::Null),
                Err(_) => {
                    let _ = check_str_len(usize::MAX);
                    W::scalar(Val::Null)
                }
            },
        }
    }
}

impl jaq_std::ValT for W {
    fn into_seq<S: FromIterator<Self>>(self) -> Result<S, Self> {
        let d = self.d.saturating_sub(1);
        match self.v {
            Val::Arr(a) => {
                let _ = alloc_slots(a.len());
                Ok(match Rc::try_unwrap(a) {
                    Ok(a) => a.into_iter().map(|v| W { v, d }).collect(),
                    Err(a) => a.iter().cloned().map(|v| W { v, d }).collect(),
                })
            }
            v => Err(W { v, d: self.d }),
        }
    }

    fn is_int(&self) -> bool {
        self.v.is_int()
    }

    fn as_isize(&self) -> Option<isize> {
        self.v.as_isize()
    }

    fn as_f64(&self) -> Option<f64> {
        self.v.as_f64()
    }

    fn is_utf8_str(&self) -> bool {
        self.v.is_utf8_str()
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        self.v.as_bytes()
    }

    fn as_sub_str(&self, sub: &[u8]) -> Self {
        match &self.v {
            Val::TStr(_) | Val::BStr(_) => self.child(self.v.as_sub_str(sub)),
            _ => W::scalar(Val::Null),
        }
    }

    fn from_utf8_bytes(b: impl AsRef<[u8]> + Send + 'static) -> Self {
        let len = b.as_ref().len();
        if check_str_len(len).is_err() || alloc_str(len).is_err() {
            return W::scalar(Val::Null);
        }
        W::scalar(Val::from_utf8_bytes(b))
    }
}
