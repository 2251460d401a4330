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

thread_local! {
    static CACHE: RefCell<HashMap<(String, Flags), Rc<Regex>>> = RefCell::new(HashMap::new());
}

fn compiled(pattern: &str, f: Flags) -> Result<Rc<Regex>, value::Error> {
    let key = (pattern.to_string(), f);
    if let Some(re) = CACHE.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(re);
    }
    let re = RegexBuilder::new(pattern)
        .case_insensitive(f.case_insensitive)
        .multi_line(f.multi_line)
        .dot_matches_new_line(f.dot_all)
        .swap_greed(f.swap_greed)
        .ignore_whitespace(f.extended)
        .build()
        .map_err(|e| value::Error::str(format_args!("invalid regex: {e}")))?;
    let re = Rc::new(re);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_SIZE {
            c.clear();
        }
        c.insert(key, re.clone());
    });
    Ok(re)
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
    let re = compiled(&text(re)?, flags)?;
    let s = input.try_as_utf8_bytes()?;
    let names: Vec<Option<&str>> = re.capture_names().collect();
    let mut out: Vec<W> = Vec::new();
    let mut parts = 0usize;
    let (mut last_end, mut cursor_byte, mut cursor_char) = (0usize, 0usize, 0usize);
    for caps in re.captures_iter(s) {
        let Some(whole) = caps.get(0) else { continue };
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
