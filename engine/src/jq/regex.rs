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

/// A compiled pattern, the size of its automaton (bytes, within a factor
/// of two), which sets the matcher's worst-case work per haystack byte,
/// and the longest match it can make, if bounded.
type Compiled = (Rc<Regex>, usize, Option<usize>);

thread_local! {
    static CACHE: RefCell<HashMap<(String, Flags), Compiled>> = RefCell::new(HashMap::new());
}

/// The smallest automaton size tried, and the largest accepted (the
/// matcher's own default).
const MIN_NFA_BYTES: usize = 1 << 8;
const MAX_NFA_BYTES: usize = 10 << 20;

/// Haystack bytes times automaton bytes that cost one step. The matcher
/// (a Pike VM, which has no fuel of its own) does at most work
/// proportional to that product per search: measured at up to 0.29 ns per
/// unit in a release build (`a{200}b` over 100 KB), so a step of 1,024
/// units is at most ~0.3 us, the cost of a step elsewhere. A search is
/// charged before it runs, from where it starts to the end of the input:
/// the matcher may read that far even after it found a match (`(a*b)|a`
/// over `aaa...` is quadratic over its matches), so a global match over a
/// long input costs the remaining length per match.
pub(crate) const MATCH_UNITS_PER_STEP: u64 = 1 << 10;

fn compiled(pattern: &str, f: Flags) -> Result<Compiled, value::Error> {
    let key = (pattern.to_string(), f);
    if let Some(re) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(re);
    }
    // Build with a doubling size limit: the first limit that fits is the
    // automaton's size (within a factor of two). Each attempt costs the
    // steps of building that much.
    let mut limit = MIN_NFA_BYTES;
    let (re, size) = loop {
        value::tick_bytes(limit)?;
        value::tick_bytes(pattern.len())?;
        let built = RegexBuilder::new(pattern)
            .case_insensitive(f.case_insensitive)
            .multi_line(f.multi_line)
            .dot_matches_new_line(f.dot_all)
            .swap_greed(f.swap_greed)
            .ignore_whitespace(f.extended)
            .size_limit(limit)
            .build();
        match built {
            Ok(re) => break (re, limit),
            Err(e) => {
                let too_big = e.to_string().contains("size limit");
                if !too_big || limit >= MAX_NFA_BYTES {
                    return Err(value::Error::str(format_args!("invalid regex: {e}")));
                }
                limit = (limit * 2).min(MAX_NFA_BYTES);
            }
        }
    };
    let longest = if f.extended {
        None
    } else {
        longest_match(pattern)
    };
    let re = (Rc::new(re), size, longest);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_SIZE {
            c.clear();
        }
        c.insert(key, re.clone());
    });
    Ok(re)
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
    let (re, nfa, longest) = compiled(&text(re)?, flags)?;
    let s = input.try_as_utf8_bytes()?;
    // The matcher's worst-case work, charged before it is done: bytes it
    // may read times the automaton's size.
    let charge = |bytes: usize| -> Result<(), value::Error> {
        let units = (bytes as u64 + 1).saturating_mul(nfa as u64);
        value::tick_n(units / MATCH_UNITS_PER_STEP)
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
    let mut out: Vec<W> = Vec::new();
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
            out.push(input.as_sub_str(&s[last_end..whole.start()]));
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
                let mut fields = vec![
                    (W::from("offset".to_string()), W::from(cursor_char)),
                    (W::from("length".to_string()), W::from(chars(m.as_bytes()))),
                    (
                        W::from("string".to_string()),
                        input.as_sub_str(m.as_bytes()),
                    ),
                ];
                if let Some(n) = name {
                    fields.push((W::from("name".to_string()), W::from(n.to_string())));
                }
                group.push(W::object(fields)?);
            }
            out.push(group.into_iter().collect());
        }
        if !flags.global {
            break;
        }
    }
    if mismatches {
        count_part(&mut parts)?;
        out.push(input.as_sub_str(&s[last_end..]));
    }
    // A breach inside `collect` (depth, collection) is recorded in the
    // budget and reported by the evaluator after this output.
    Ok(out.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::longest_match;

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
