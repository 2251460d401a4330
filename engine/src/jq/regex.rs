//! The regular-expression primitives under jq's `test`, `match`, `capture`,
//! `scan`, `split/2`, `splits`, `sub` and `gsub` (`matches`, `split_matches`
//! and `split_`, as jaq's standard library defines those on top of them),
//! metered.
//!
//! jaq's own primitives collect every match of the whole input before
//! returning: a pattern that matches everywhere in a 2 MiB string built
//! 2 million matches (seconds and hundreds of MB) before any limit could
//! look at the result. Here every match costs a step and counts against
//! `maxCollectionLen` as it is found. Compiled patterns are cached per
//! thread, so `test("...")` in a definition does not rebuild its regex on
//! every object.
//!
//! Semantics (as jaq's): flags `g` (all matches), `n` (skip empty matches),
//! `i`, `m` (`^`/`$` per line), `s` (`.` matches newline), `l` (swap
//! greed), `x` (extended), `p` (`m` + `s`); offsets and lengths count
//! characters; captures that did not take part in the match are left out.

use super::value::{self, W, caps};
use jaq_core::ValR;
use jaq_std::ValT as _;
use regex_bites::bytes::{Regex, RegexBuilder};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct Flags {
    global: bool,
    skip_empty: bool,
    case_insensitive: bool,
    multi_line: bool,
    dot_all: bool,
    swap_greed: bool,
    extended: bool,
}

impl Flags {
    fn parse(s: &str) -> Result<Flags, char> {
        let mut f = Flags::default();
        for c in s.chars() {
            match c {
                'g' => f.global = true,
                'n' => f.skip_empty = true,
                'i' => f.case_insensitive = true,
                'm' => f.multi_line = true,
                's' => f.dot_all = true,
                'l' => f.swap_greed = true,
                'x' => f.extended = true,
                'p' => {
                    f.multi_line = true;
                    f.dot_all = true;
                }
                other => return Err(other),
            }
        }
        Ok(f)
    }
}

const CACHE_SIZE: usize = 64;

/// A compiled pattern, the size of its automaton in units (see
/// [`automaton_units`]), the slots its matcher keeps per state, and the
/// longest match it can make, if bounded.
#[derive(Clone)]
struct Compiled {
    re: Rc<Regex>,
    units: usize,
    slots: usize,
    longest: Option<usize>,
    /// Kept for later uses (small automaton and tables): built once per
    /// thread, its memory is not counted per use.
    cached: bool,
}

thread_local! {
    static CACHE: RefCell<HashMap<(String, Flags), Compiled>> = RefCell::new(HashMap::new());
}

/// The largest automaton accepted, in units. A unit is a state, a class
/// range or a split target: at most 32 bytes of automaton on a 64-bit
/// host, so 200,000 units stay under the matcher's own 10 MiB size limit
/// (kept as a backstop). The count comes from the pattern's text, not
/// from the compiled automaton, whose size in bytes depends on the
/// pointer width: a pattern costs the same steps and passes or fails the
/// same way natively and in WASM.
const MAX_UNITS: usize = 200_000;
const UNIT_BYTES: usize = 32;
const MAX_NFA_BYTES: usize = 10 << 20;
/// Groups nested deeper than this (the matcher's own limit is 250) make a
/// pattern over [`MAX_UNITS`]: reading a 4 MiB pattern of `(` would
/// otherwise keep a frame per byte (160 MB) before the matcher refused it.
const MAX_GROUP_NESTING: usize = 512;
/// Bytes of one capture slot in the matcher's tables, counted as on a
/// 64-bit host everywhere.
const SLOT_BYTES: usize = 8;
/// A compiled pattern is kept for later uses only if its automaton and
/// its matcher's slot tables are each at most this big, so the cache (64
/// patterns) holds at most 8 MiB between calls. The memory of a cached
/// pattern is not counted per use (it is built once and reused: a
/// definition testing 5,000 pods with one pattern does not allocate 5,000
/// automata); a pattern too big to cache is built for every use, and each
/// use is charged its automaton and tables. Which patterns are cached
/// depends on the pattern only, never on what ran before.
const MAX_CACHED_BYTES: usize = 64 << 10;

/// Matcher work units (automaton units times haystack bytes, plus slot
/// copies) that cost one step. The matcher (a Pike VM, which has no fuel
/// of its own) does at most (units + slots) per haystack byte and search:
/// each live thread is a state, and moving a thread copies its capture
/// slots. Measured at up to 3 ns per unit in a release build, so a step
/// of 64 units is at most ~0.2 us, the cost of a step elsewhere. A search
/// is charged before it runs, from where it starts to the end of the
/// input: the matcher may read that far even after it found a match
/// (`(a*b)|a` over `aaa...` is quadratic over its matches), so a global
/// match over a long input costs the remaining length per match.
pub(crate) const MATCH_UNITS_PER_STEP: u64 = 16;
/// Capture slots a thread copies for the work of one unit.
const SLOTS_PER_UNIT: u64 = 32;

/// The bytes of the matcher's two slot tables (one row per state, one
/// column per capture slot), allocated when it first searches.
fn table_bytes(units: usize, slots: usize) -> usize {
    units
        .saturating_add(1)
        .saturating_mul(slots)
        .saturating_mul(SLOT_BYTES * 2)
}

fn compiled(pattern: &str, f: Flags) -> Result<Compiled, value::Error> {
    // Reading the pattern, then building its automaton: the steps are
    // charged on every use, cached or not, so a call's cost never depends
    // on earlier calls.
    value::tick_bytes(pattern.len())?;
    let units = automaton_units(pattern, f.case_insensitive);
    if units == usize::MAX {
        return Err(value::Error::str(format_args!(
            "invalid regex: groups nested deeper than {MAX_GROUP_NESTING} levels"
        )));
    }
    if units > MAX_UNITS {
        return Err(value::Error::str(format_args!(
            "invalid regex: the pattern compiles to an automaton of about {units} units, \
             over the limit of {MAX_UNITS}"
        )));
    }
    let nfa_bytes = units * UNIT_BYTES;
    value::tick_bytes(nfa_bytes)?;
    let key = (pattern.to_string(), f);
    if let Some(c) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(c);
    }
    let re = RegexBuilder::new(pattern)
        .case_insensitive(f.case_insensitive)
        .multi_line(f.multi_line)
        .dot_matches_new_line(f.dot_all)
        .swap_greed(f.swap_greed)
        .ignore_whitespace(f.extended)
        .size_limit(MAX_NFA_BYTES)
        .build()
        .map_err(|e| value::Error::str(format_args!("invalid regex: {e}")))?;
    let longest = if f.extended {
        None
    } else {
        longest_match(pattern)
    };
    let slots = re.captures_len().saturating_mul(2);
    let cached = nfa_bytes <= MAX_CACHED_BYTES && table_bytes(units, slots) <= MAX_CACHED_BYTES;
    let c = Compiled {
        re: Rc::new(re),
        units,
        slots,
        longest,
        cached,
    };
    if cached {
        CACHE.with(|cache| {
            let mut cache = cache.borrow_mut();
            if cache.len() >= CACHE_SIZE {
                cache.clear();
            }
            cache.insert(key, c.clone());
        });
    }
    Ok(c)
}

/// An upper bound on the size of the automaton a pattern compiles to, in
/// units (states, class ranges and split targets), read from its text the
/// way the matcher compiles it:
/// - a character is a state (three units under case folding: a class of
///   its cases); `.` and escapes such as `\w` are a class of up to eight
///   ranges; a bracket class a state and its ranges (see
///   [`class_ranges`]);
/// - a capturing group adds two states, an alternation a split and an end
///   state and one target per branch;
/// - `x{n}` is n copies of x, `x{n,m}` m copies and a split per optional
///   copy, `x{n,}` n copies and a loop; `?`, `*` and `+` add a split and
///   an end state.
///
/// Inline flags may turn case folding on anywhere, so a pattern with any
/// `(?` counts characters as folded. Whatever this reading does not
/// understand counts as characters, which only makes the bound larger;
/// malformed patterns are refused by the compiler afterwards.
fn automaton_units(p: &str, case_insensitive: bool) -> usize {
    let folded = case_insensitive || p.contains("(?");
    let char_units = if folded { 3 } else { 1 };
    // Per open group: completed branches, the current branch, its last
    // atom, the number of branches, and whether it captures.
    struct Group {
        branches: usize,
        seq: usize,
        last: usize,
        count: usize,
        capture: bool,
    }
    let open = |capture| Group {
        branches: 0,
        seq: 0,
        last: 0,
        count: 1,
        capture,
    };
    let close = |g: &Group| -> usize {
        let body = g.branches.saturating_add(g.seq);
        let alternation = if g.count > 1 { 2 + g.count } else { 0 };
        body.saturating_add(alternation)
            .saturating_add(if g.capture { 2 } else { 1 })
    };
    let atom = |stack: &mut Vec<Group>, n: usize| {
        let top = stack.last_mut().expect("one group");
        top.seq = top.seq.saturating_add(n);
        top.last = n;
    };
    let repeat = |stack: &mut Vec<Group>, f: &dyn Fn(usize) -> usize| {
        let top = stack.last_mut().expect("one group");
        let new = f(top.last);
        top.seq = (top.seq - top.last).saturating_add(new);
        top.last = new;
    };
    let mut stack = vec![open(true)];
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let e = b.get(i + 1).copied().unwrap_or(b'\\');
                i += 2;
                match e {
                    b'b' | b'B' | b'A' | b'z' | b'<' | b'>' => atom(&mut stack, 1),
                    b'd' | b'D' | b'w' | b'W' | b's' | b'S' => atom(&mut stack, 9),
                    b'p' | b'P' => {
                        // Not supported by the matcher; bounded anyway.
                        atom(&mut stack, 9);
                    }
                    _ => atom(&mut stack, char_units),
                }
                continue;
            }
            b'[' => {
                let (end, ranges) = class_ranges(b, i, folded);
                atom(&mut stack, ranges.saturating_add(1));
                i = end;
                continue;
            }
            b'(' => {
                let capture = if b.get(i + 1) == Some(&b'?') {
                    let rest = &b[i + 2..];
                    let named = rest.first() == Some(&b'P') || rest.first() == Some(&b'<');
                    if !named {
                        // `(?flags)` is no group; `(?flags:...)` is one
                        // that does not capture.
                        let end = rest.iter().position(|&c| c == b')' || c == b':');
                        if let Some(end) = end
                            && rest[end] == b')'
                        {
                            i += 2 + end + 1;
                            continue;
                        }
                    }
                    named
                } else {
                    true
                };
                if stack.len() > MAX_GROUP_NESTING {
                    // The matcher refuses nesting this deep anyway; this
                    // reading stops before its own frames follow the input.
                    return usize::MAX;
                }
                stack.push(open(capture));
                i += 1;
                continue;
            }
            b')' if stack.len() > 1 => {
                let g = stack.pop().expect("an open group");
                atom(&mut stack, close(&g));
            }
            b'|' => {
                let top = stack.last_mut().expect("one group");
                top.branches = top.branches.saturating_add(top.seq);
                top.seq = 0;
                top.last = 0;
                top.count += 1;
            }
            b'?' => repeat(&mut stack, &|x| x.saturating_add(3)),
            b'*' => repeat(&mut stack, &|x| x.saturating_add(8)),
            b'+' => repeat(&mut stack, &|x| x.saturating_add(3)),
            b'{' => {
                let body = b[i + 1..]
                    .iter()
                    .position(|&c| c == b'}')
                    .and_then(|close| {
                        let body = std::str::from_utf8(&b[i + 1..i + 1 + close]).ok()?;
                        let num = |s: &str| s.trim().parse::<usize>().ok();
                        let (n, m) = match body.split_once(',') {
                            None => (num(body)?, Some(num(body)?)),
                            Some((n, m)) if m.trim().is_empty() => (num(n)?, None),
                            Some((n, m)) => (num(n)?, Some(num(m)?)),
                        };
                        Some((close, n, m))
                    });
                match body {
                    Some((close, n, m)) => {
                        match m {
                            Some(m) => repeat(&mut stack, &|x| {
                                x.saturating_mul(m.max(n).max(1))
                                    .saturating_add(m.saturating_sub(n).saturating_mul(4))
                                    .saturating_add(2)
                            }),
                            None => repeat(&mut stack, &|x| {
                                x.saturating_mul(n.max(1)).saturating_add(8)
                            }),
                        }
                        i += close + 2;
                        continue;
                    }
                    None => atom(&mut stack, char_units),
                }
            }
            b'^' | b'$' => atom(&mut stack, 1),
            b'.' => atom(&mut stack, 3),
            _ => atom(&mut stack, char_units),
        }
        i += 1;
    }
    // Unclosed groups (a compile error anyway) close at the end.
    while stack.len() > 1 {
        let g = stack.pop().expect("an open group");
        atom(&mut stack, close(&g));
    }
    // The whole pattern is group 0, behind an unanchored `.*?` prefix, and
    // ends in a match state.
    close(&stack[0]).saturating_add(8)
}

/// The end of the bracket class opening at `b[start]` (past its closing
/// bracket, or the pattern's end if unclosed) and an upper bound on the
/// ranges it compiles to: one per character or range, eight per escape
/// class (`\\w`, `\\d`, `\\s` and negations) or POSIX class, twice that under
/// case folding (a folded copy of each range), plus one per negation (the
/// complement of n ranges has at most n + 1). Nested classes and set
/// operations count their items the same way.
fn class_ranges(b: &[u8], start: usize, folded: bool) -> (usize, usize) {
    let mut j = start + 1;
    let mut ranges = 0usize;
    let mut depth = 1;
    // A `]` right after the opening `[` or `[^` is a literal.
    let mut at_open = true;
    while depth > 0 && j < b.len() {
        let c = b[j];
        if at_open && c == b'^' {
            ranges += 1;
            j += 1;
            continue;
        }
        let was_open = std::mem::replace(&mut at_open, false);
        match c {
            b']' if was_open => {
                ranges += 1;
                j += 1;
            }
            b']' => {
                depth -= 1;
                j += 1;
            }
            b'[' if b.get(j + 1) == Some(&b':') => {
                // `[:name:]` or `[:^name:]`.
                let close = b[j..].windows(2).position(|w| w == b":]");
                ranges += 9;
                j = close.map_or(b.len(), |c| j + c + 2);
            }
            b'[' => {
                depth += 1;
                at_open = true;
                j += 1;
            }
            b'\\' => {
                ranges += match b.get(j + 1) {
                    Some(b'd' | b'D' | b'w' | b'W' | b's' | b'S') => 8,
                    _ => 1,
                };
                j += 2;
            }
            b'-' if !was_open && j + 1 < b.len() && b[j + 1] != b']' && b[j + 1] != b'[' => {
                // A range's end: part of the range counted at its start
                // (an escape there is counted on its own, harmlessly).
                j += 2;
            }
            _ => {
                ranges += 1;
                j += 1;
            }
        }
    }
    let ranges = if folded {
        ranges.saturating_mul(2)
    } else {
        ranges
    };
    (j.min(b.len()), ranges)
}

/// The longest match a pattern can make, in bytes, when the syntax bounds
/// it: literals, classes, `.` and escapes count 4 bytes (a character, of
/// any case); anchors 0; groups and alternations as their longest part;
/// `?` and `{n}`/`{n,m}` as their maximum. `*`, `+`, `{n,}`, verbose mode
/// and anything this reading does not know give `None` (unbounded).
///
/// A search that finds a match ending at `e` reads at most to
/// `start + longest` (the threads still running were started at or before
/// the match's start and die within `longest` bytes), so a bounded pattern
/// costs the input's length once plus `longest` per match.
fn longest_match(p: &str) -> Option<usize> {
    const CHAR: usize = 4;
    // Per open group: (longest alternative so far, current sequence, last atom).
    let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, 0)];
    let b = p.as_bytes();
    let mut i = 0;
    let atom = |stack: &mut Vec<(usize, usize, usize)>, n: usize| {
        let top = stack.last_mut().expect("one group");
        top.1 = top.1.saturating_add(n);
        top.2 = n;
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'\\' => {
                let e = *b.get(i + 1)?;
                i += 2;
                match e {
                    b'b' | b'B' | b'A' | b'z' | b'<' | b'>' => atom(&mut stack, 0),
                    b'p' | b'P' | b'x' | b'u' | b'U' if b.get(i) == Some(&b'{') => {
                        i += p[i..].find('}')? + 1;
                        atom(&mut stack, CHAR);
                    }
                    b'x' => {
                        i += 2;
                        atom(&mut stack, CHAR);
                    }
                    b'p' | b'P' => {
                        i += 1;
                        atom(&mut stack, CHAR);
                    }
                    _ => atom(&mut stack, CHAR),
                }
                continue;
            }
            b'[' => {
                // To the class's closing bracket: a `]` right after `[` or
                // `[^` is literal; escapes and nested classes are skipped.
                let mut j = i + 1;
                if b.get(j) == Some(&b'^') {
                    j += 1;
                }
                if b.get(j) == Some(&b']') {
                    j += 1;
                }
                let mut depth = 1;
                while depth > 0 {
                    match *b.get(j)? {
                        b'\\' => j += 1,
                        b'[' => depth += 1,
                        b']' => depth -= 1,
                        _ => {}
                    }
                    j += 1;
                }
                i = j;
                atom(&mut stack, CHAR);
                continue;
            }
            b'(' => {
                if b.get(i + 1) == Some(&b'?') {
                    let rest = &p[i + 2..];
                    if rest.starts_with('P') || rest.starts_with('<') {
                        i += 2 + rest.find('>')? + 1;
                    } else {
                        // Flags: `(?i)` (no group) or `(?i:...)`.
                        let end = rest.find([')', ':'])?;
                        if rest[..end].contains('x') {
                            return None;
                        }
                        i += 2 + end + 1;
                        if rest.as_bytes()[end] == b')' {
                            atom(&mut stack, 0);
                            continue;
                        }
                    }
                } else {
                    i += 1;
                }
                stack.push((0, 0, 0));
                continue;
            }
            b')' => {
                let (alt, seq, _) = stack.pop()?;
                if stack.is_empty() {
                    return None;
                }
                atom(&mut stack, alt.max(seq));
            }
            b'|' => {
                let top = stack.last_mut()?;
                top.0 = top.0.max(top.1);
                top.1 = 0;
                top.2 = 0;
            }
            b'*' | b'+' => return None,
            b'?' => {
                // An optional atom is at most the atom; `??` (lazy) too.
            }
            b'{' => {
                let close = p[i..].find('}')?;
                let body = &p[i + 1..i + close];
                let max: usize = match body.split_once(',') {
                    None => body.trim().parse().ok()?,
                    Some((_, "")) => return None,
                    Some((_, m)) => m.trim().parse().ok()?,
                };
                let top = stack.last_mut()?;
                let last = top.2;
                top.1 = top.1 - last + last.saturating_mul(max);
                top.2 = last.saturating_mul(max);
                i += close + 1;
                continue;
            }
            b'^' | b'$' => atom(&mut stack, 0),
            _ => atom(&mut stack, CHAR),
        }
        i += 1;
    }
    let (alt, seq, _) = stack.pop()?;
    if !stack.is_empty() {
        return None;
    }
    Some(alt.max(seq))
}

/// Characters in UTF-8 bytes (continuation bytes are not counted).
fn chars(b: &[u8]) -> usize {
    b.iter().filter(|x| (**x & 0xC0) != 0x80).count()
}

/// One part found: one more element of the result, checked as it comes.
fn count_part(parts: &mut usize) -> Result<(), value::Error> {
    *parts += 1;
    value::tick()?;
    let max = caps().max_collection;
    if *parts > max {
        return Err(value::breach(
            "maxCollectionLen",
            format!("a collection of {parts} elements would exceed the limit of {max}"),
        ));
    }
    Ok(())
}

/// `input | matches/split_matches/split_(re; flags)`: with `mismatches`, the
/// strings between matches; with `matches`, each match as an array of match
/// objects (the whole match, then the captures that took part).
pub(crate) fn run(input: &W, re: &W, flags: &W, mismatches: bool, matches: bool) -> ValR<W> {
    let parts = run_parts(input, re, flags, mismatches, matches)?;
    let mut out = Vec::with_capacity(parts.len());
    for part in parts {
        out.push(match part {
            Part::Between(s) => s,
            Part::Match(group) => {
                let mut objects = Vec::with_capacity(group.len());
                for c in group {
                    let mut fields = vec![
                        (W::from("offset".to_string()), W::from(c.offset)),
                        (W::from("length".to_string()), W::from(c.length)),
                        (W::from("string".to_string()), c.string),
                    ];
                    if let Some(n) = c.name {
                        fields.push((W::from("name".to_string()), W::from(n)));
                    }
                    objects.push(W::object(fields)?);
                }
                objects.into_iter().collect()
            }
        });
    }
    // A breach inside `collect` (depth, collection) is recorded in the
    // budget and reported by the evaluator after this output.
    Ok(out.into_iter().collect())
}

/// A part of a run's result ([`run_parts`]), before it is built as values.
pub(crate) enum Part {
    /// The string between two matches (or before the first, after the last).
    Between(W),
    /// A match: the whole match, then each capture group that took part.
    Match(Vec<Capture>),
}

/// A match or a capture group's: offset and length in characters, the
/// string, and the group's name.
pub(crate) struct Capture {
    pub(crate) offset: usize,
    pub(crate) length: usize,
    pub(crate) string: W,
    pub(crate) name: Option<String>,
}

/// The memory a found [`Capture`] holds (besides its name), charged as
/// each is found: the parts are built only when the search is over.
const CAPTURE_BYTES: usize = std::mem::size_of::<Capture>();

/// [`run`]'s search, charged as it goes, with each part as it was found:
/// built as jaq's values by [`run`], as its own by the fast path (each
/// match object charged as [`W::object`] is, each array as collected).
pub(crate) fn run_parts(
    input: &W,
    re: &W,
    flags: &W,
    mismatches: bool,
    matches: bool,
) -> Result<Vec<Part>, value::Error> {
    let text = |v: &W| -> Result<String, value::Error> {
        let b = v.try_as_utf8_bytes()?;
        Ok(String::from_utf8_lossy(b).into_owned())
    };
    // A null flags argument means no flags, as in jq and gojq.
    let flags = match &flags.v {
        jaq_json::Val::Null => String::new(),
        _ => text(flags)?,
    };
    let flags = Flags::parse(&flags)
        .map_err(|c| value::Error::str(format_args!("invalid regex flag: {c}")))?;
    let Compiled {
        re,
        units,
        slots,
        longest,
        cached,
    } = compiled(&text(re)?, flags)?;
    let s = input.try_as_utf8_bytes()?;
    // A pattern too big to cache was built for this use: its automaton,
    // and the matcher's tables allocated and cleared before it searches.
    if !cached {
        let table = table_bytes(units, slots);
        value::alloc(units * UNIT_BYTES)?;
        value::alloc(table)?;
        value::tick_bytes(table)?;
    }
    // The matcher's worst-case work, charged before it is done: bytes it
    // may read times the automaton's size and the slots each thread copies.
    let per_byte = (units as u64).saturating_mul(1 + slots as u64 / SLOTS_PER_UNIT);
    let charge = |bytes: usize| -> Result<(), value::Error> {
        let work = (bytes as u64 + 1).saturating_mul(per_byte);
        value::tick_n(work / MATCH_UNITS_PER_STEP)
    };
    // A bounded pattern: the whole input once (the stretches between
    // matches), then `longest` per search. Unbounded: before each search,
    // from where it starts to the end.
    if let Some(l) = longest {
        charge(s.len().saturating_add(l))?;
    }
    let search = |from: usize, first: bool| -> Result<(), value::Error> {
        match longest {
            Some(_) if first => Ok(()),
            Some(l) => charge(l),
            None => charge(s.len() - from.min(s.len())),
        }
    };
    let names: Vec<Option<&str>> = re.capture_names().collect();
    let mut out: Vec<Part> = Vec::new();
    let mut parts = 0usize;
    let (mut last_end, mut cursor_byte, mut cursor_char) = (0usize, 0usize, 0usize);
    let mut searches = re.captures_iter(s);
    let mut from = 0usize;
    let mut first = true;
    loop {
        search(from, first)?;
        first = false;
        let Some(caps) = searches.next() else { break };
        let Some(whole) = caps.get(0) else { continue };
        from = whole.end();
        if flags.skip_empty && whole.as_bytes().is_empty() {
            continue;
        }
        if mismatches {
            count_part(&mut parts)?;
            out.push(Part::Between(input.as_sub_str(&s[last_end..whole.start()])));
            last_end = whole.end();
        }
        if matches {
            count_part(&mut parts)?;
            let mut group = Vec::new();
            for (m, name) in caps.iter().zip(&names) {
                let Some(m) = m else { continue };
                // Offsets in characters; matches come in increasing order.
                if m.start() >= cursor_byte {
                    cursor_char += chars(&s[cursor_byte..m.start()]);
                } else {
                    cursor_char -= chars(&s[m.start()..cursor_byte]);
                }
                cursor_byte = m.start();
                value::tick_n(4)?;
                // Held until the parts are built: charged as found.
                value::alloc(CAPTURE_BYTES + name.map_or(0, str::len))?;
                group.push(Capture {
                    offset: cursor_char,
                    length: chars(m.as_bytes()),
                    string: input.as_sub_str(m.as_bytes()),
                    name: name.map(str::to_string),
                });
            }
            out.push(Part::Match(group));
        }
        if !flags.global {
            break;
        }
    }
    if mismatches {
        count_part(&mut parts)?;
        out.push(Part::Between(input.as_sub_str(&s[last_end..])));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{UNIT_BYTES, automaton_units, longest_match};
    use proptest::prelude::*;
    use regex_bites::bytes::RegexBuilder;

    /// Patterns from a grammar of what definitions use: literals, `.`,
    /// escapes, bracket classes, groups of every kind, alternation and
    /// every quantifier, nested.
    fn pattern() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            "[a-z0-9]{1,4}",
            Just(".".to_string()),
            Just("\\w".to_string()),
            Just("\\W".to_string()),
            Just("\\S".to_string()),
            Just("\\d".to_string()),
            Just("\\b".to_string()),
            Just("^".to_string()),
            Just("[a-z]".to_string()),
            Just("[^a-c0-9_]".to_string()),
            Just("[-a]".to_string()),
            Just("[]a]".to_string()),
            Just("[\\w\\W\\s]".to_string()),
            Just("[[:alpha:][:^digit:]]".to_string()),
            Just("[a-z&&[^aeiou]]".to_string()),
            Just("[!-~]".to_string()),
            Just("\\x{41}".to_string()),
        ];
        leaf.prop_recursive(4, 48, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 1..4).prop_map(|v| v.concat()),
                prop::collection::vec(inner.clone(), 2..4).prop_map(|v| v.join("|")),
                inner.clone().prop_map(|x| format!("({x})")),
                inner.clone().prop_map(|x| format!("(?:{x})")),
                inner.clone().prop_map(|x| format!("(?P<n>{x})")),
                inner.clone().prop_map(|x| format!("(?i:{x})")),
                (
                    inner.clone(),
                    prop_oneof![
                        Just("?".to_string()),
                        Just("*".to_string()),
                        Just("+".to_string()),
                        Just("*?".to_string()),
                        (0u32..12).prop_map(|n| format!("{{{n}}}")),
                        (0u32..6, 0u32..12).prop_map(|(n, m)| format!("{{{n},{}}}", n + m)),
                        (0u32..8).prop_map(|n| format!("{{{n},}}")),
                    ]
                )
                    .prop_map(|(x, q)| format!("(?:{x}){q}")),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The units read from a pattern's text bound its automaton: on a
        /// 64-bit host (where the automaton is biggest) it always fits in
        /// units times 32 bytes, so costs charged from the text are never
        /// below the work.
        #[test]
        #[cfg(target_pointer_width = "64")]
        fn units_bound_the_automaton(p in pattern(), ci in any::<bool>()) {
            let units = automaton_units(&p, ci);
            let built = RegexBuilder::new(&p)
                .case_insensitive(ci)
                .size_limit(units * UNIT_BYTES)
                .build();
            if let Err(e) = built {
                // Only a pattern the matcher refuses for its syntax may
                // fail, never one over the bound.
                prop_assert!(!e.to_string().contains("size limit"), "{p} ({units} units): {e}");
            }
        }
    }

    #[test]
    fn units_grow_with_repetition_and_classes() {
        let u = |p: &str| automaton_units(p, false);
        assert!(u("a{1000}") >= 1000);
        assert!(u("(a{100}){100}") >= 10_000);
        assert!(u("(?:a|b){100}") >= 200);
        assert!(u("(a)(a)(a)") > u("aaa"));
        assert!(u("[a-z]") < u("[abcdefghij]"));
        assert!(automaton_units("a", true) > u("a"));
        // Not understood, or malformed: counted as characters.
        assert!(u("a{") >= 2);
        assert!(u("((a") >= 1);
        // Nesting past what the matcher accepts is over the limit, read in
        // constant memory (10x the matcher's 250 levels and far beyond).
        assert_eq!(u(&"(".repeat(2_500)), usize::MAX);
        assert_eq!(u(&"(".repeat(4 << 20)), usize::MAX);
        assert!(u(&format!("{}a{}", "(".repeat(200), ")".repeat(200))) < super::MAX_UNITS);
    }

    #[test]
    fn longest_match_bounds_what_the_syntax_bounds() {
        for (p, want) in [
            ("a", Some(4)),
            ("", Some(0)),
            ("^a$", Some(4)),
            ("ab|c", Some(8)),
            ("(ab|c)d", Some(12)),
            ("a?", Some(4)),
            ("a{3}", Some(12)),
            ("a{2,5}", Some(20)),
            ("(a{2}){3}", Some(24)),
            ("[a-z]", Some(4)),
            ("[]a]", Some(4)),
            ("[^]]", Some(4)),
            ("[[:alpha:]x]", Some(4)),
            ("\\d\\b", Some(4)),
            ("\\p{Greek}", Some(4)),
            ("\\x{41}\\x41", Some(8)),
            ("(?i)ab", Some(8)),
            ("(?i:ab)c", Some(12)),
            ("(?P<n>a)(?<m>b)", Some(8)),
            ("a*", None),
            ("a+", None),
            ("a{2,}", None),
            ("(?x)a b", None),
            ("(a", None),
            ("a)", None),
            ("[a", None),
        ] {
            assert_eq!(longest_match(p), want, "{p}");
        }
    }
}
