//! Native functions: jaq's generic natives, plus replacements of
//! `jaq-json`'s (which only work on its own value type) with gojq semantics
//! and budgets, plus stubs that fail for anything that would reach outside
//! the engine.

use super::format;
use super::time;
use super::value::{self, D, W, caps};
use jaq_core::native::{Fun, bome, run, v};
use jaq_core::{RunPtr, ValR};
use jaq_json::{Num, Val};
use std::collections::HashSet;
use std::sync::OnceLock;

/// jq definitions that complete the standard library for our value type.
pub(crate) const DEFS: &str = r#"
def in(xs): . as $x | xs | has($x);
def inside(xs): . as $x | xs | contains($x);
def index($i): indices($i)[0];
def rindex($i): indices($i)[-1];
def @json: tojson;
def @base64d: tostring | if length % 4 == 0 then . else . + ("==="[:4 - length % 4]) end | decode_base64;
def transpose: [range([.[] | length] | max) as $i | [.[][$i]]];
def tostring: if type == "string" then . else tojson end;
def from_entries: reduce .[] as $x ({}; . + {($x | .key // .Key // .name // .Name): ($x | if has("value") then .value else .Value end)});
def with_entries(f): to_entries | map(f) | from_entries;
def last(f): reduce f as $x (null; $x);
def nth($n; f): if $n < 0 then error("nth doesn't support negative indices") else first(skip($n; f)) end;
def @csv: map(if type == "string" then "\"" + (split("\"") | join("\"\"")) + "\"" elif type == "number" or type == "boolean" then tojson elif . == null then "" else error("\(type) (\(tojson)) is not valid in a csv row") end) | join(",");
def nan: _nan;
def infinite: _infinite;
def limit($n; f): if $n > 0 then _limit($n; f) elif $n == 0 then empty else f end;
def join($x): reduce .[] as $i (null; (if . == null then "" else . + $x end) + ($i | if . == null then "" elif type == "string" then . elif type == "boolean" or type == "number" then tojson else error("cannot join: \(type) (\(tojson))") end)) // "";
"#;

type Filter = jaq_core::native::Filter<RunPtr<D>>;

fn err(msg: impl std::fmt::Display) -> value::Error {
    value::Error::str(msg)
}

/// `type (value)` preview as gojq writes it in messages.
use value::{preview_typed as preview, type_name};

pub(crate) fn length(v: &W) -> ValR<W> {
    Ok(W::scalar(match &v.v {
        Val::Null => Val::from(0isize),
        Val::Bool(_) => {
            return Err(err(format_args!(
                "length cannot be applied to: {}",
                preview(&v.v)
            )));
        }
        Val::Num(n) => match n {
            Num::Int(i) => Val::from(i.checked_abs().unwrap_or(isize::MAX)),
            n => Val::from(super::format::num_f64(n).abs()),
        },
        Val::TStr(b) | Val::BStr(b) => {
            value::tick_bytes(b.len())?;
            Val::from(String::from_utf8_lossy(b).chars().count())
        }
        Val::Arr(a) => Val::from(a.len()),
        Val::Obj(o) => Val::from(o.len()),
    }))
}

fn contains(a: &Val, b: &Val) -> Result<bool, value::Error> {
    value::tick()?;
    Ok(match (a, b) {
        (Val::TStr(l) | Val::BStr(l), Val::TStr(r) | Val::BStr(r)) => {
            // Linear-time search (two-way / SIMD), charged by bytes.
            value::tick_bytes(l.len() + r.len())?;
            memchr::memmem::find(l, r).is_some()
        }
        (Val::Arr(l), Val::Arr(r)) => {
            for r in r.iter() {
                let mut found = false;
                for l in l.iter() {
                    if contains(l, r)? {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Ok(false);
                }
            }
            true
        }
        (Val::Obj(l), Val::Obj(r)) => {
            for (k, r) in r.iter() {
                match l.get(k) {
                    Some(l) if contains(l, r)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (l, r) if type_name(l) == type_name(r) => value::eq_metered(l, r),
        (l, r) => {
            return Err(err(format_args!(
                "{} and {} cannot have their containment checked",
                preview(l),
                preview(r)
            )));
        }
    })
}

fn has(v: &Val, k: &Val) -> ValR<W> {
    match (v, k) {
        (Val::Null, _) => Ok(W::from(false)),
        (Val::Obj(o), Val::TStr(_)) => Ok(W::from(o.contains_key(k))),
        (Val::Arr(a), Val::Num(n)) => Ok(W::from(
            n.as_isize()
                .is_some_and(|i| i >= 0 && (i as usize) < a.len()),
        )),
        (v, k) => Err(err(format_args!(
            "cannot check whether {} has a key {}",
            preview(v),
            preview(k)
        ))),
    }
}

fn indices(x: &Val, y: &Val) -> ValR<W> {
    let idx: Vec<W> = match (x, y) {
        (Val::Null, _) | (_, Val::Null) => return Ok(W::scalar(Val::Null)),
        (Val::TStr(a) | Val::BStr(a), Val::TStr(b) | Val::BStr(b)) => {
            if b.is_empty() {
                Vec::new()
            } else {
                // gojq counts string indices in bytes, and reports
                // overlapping occurrences.
                value::tick_bytes(a.len() + b.len())?;
                let finder = memchr::memmem::Finder::new(&b[..]);
                let mut found = Vec::new();
                let mut at = 0;
                while let Some(i) = finder.find(&a[at..]) {
                    // Each occurrence was compared whole.
                    value::tick_bytes(b.len())?;
                    value::alloc_slots(1)?;
                    found.push(W::from(at + i));
                    at += i + 1;
                }
                found
            }
        }
        (Val::Arr(a), Val::Arr(b)) => {
            if b.is_empty() {
                Vec::new()
            } else {
                value::tick_n((a.len() as u64).saturating_mul(b.len() as u64))?;
                a.windows(b.len())
                    .enumerate()
                    .filter(|(_, w)| w.iter().zip(b.iter()).all(|(p, q)| value::eq_metered(p, q)))
                    .map(|(i, _)| W::from(i))
                    .collect()
            }
        }
        (Val::Arr(a), y) => a
            .iter()
            .enumerate()
            .filter(|(_, x)| value::eq_metered(x, y))
            .map(|(i, _)| W::from(i))
            .collect(),
        (x, y) => {
            return Err(err(format_args!(
                "cannot get indices of {} in {}",
                preview(y),
                preview(x)
            )));
        }
    };
    Ok(idx.into_iter().collect())
}

/// jq number syntax: optional sign, digits with optional fraction (a leading
/// `.` allowed), optional exponent; no surrounding whitespace.
fn parse_number(s: &str) -> Option<Val> {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - digits_start;
    let mut integral = true;
    if i < b.len() && b[i] == b'.' {
        integral = false;
        i += 1;
        let f = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        digits += i - f;
    }
    if digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        integral = false;
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let e = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == e {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    if integral && let Ok(n) = s.trim_start_matches('+').parse::<isize>() {
        return Some(Val::from(n));
    }
    s.parse::<f64>().ok().map(Val::from)
}

pub(crate) fn tonumber(v: &Val) -> ValR<W> {
    match v {
        Val::Num(_) => Ok(W::scalar(v.clone())),
        Val::TStr(b) | Val::BStr(b) => {
            value::tick_bytes(b.len())?;
            let s = String::from_utf8_lossy(b);
            parse_number(&s).map(W::scalar).ok_or_else(|| {
                err(format_args!(
                    "tonumber cannot be applied to {}: invalid number",
                    format::to_json_limited(v, 64).unwrap_or_default()
                ))
            })
        }
        v => Err(err(format_args!(
            "tonumber cannot be applied to: {}",
            preview(v)
        ))),
    }
}

pub(crate) fn fromjson(v: &Val) -> ValR<W> {
    let s = match v {
        Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
        v => {
            return Err(err(format_args!(
                "fromjson cannot be applied to: {}",
                preview(v)
            )));
        }
    };
    value::tick_n((s.len() / 16) as u64)?;
    // The parsed value takes about as much memory as its text, twice
    // (serde's tree, then ours).
    value::alloc(s.len().saturating_mul(2))?;
    // serde_json refuses nesting deeper than 128 levels without recursing
    // further, so this cannot exhaust the stack.
    let parsed: serde_json::Value = serde_json::from_str(&s)
        .map_err(|e| err(format_args!("{s:.40} (while parsing '{s:.40}'): {e}")))?;
    let max = caps().max_depth as usize;
    if format::json_depth(&parsed, max) > max {
        return Err(value::breach(
            "maxDepth",
            format!("fromjson input nests deeper than {max} levels"),
        ));
    }
    let (val, d) = format::from_value(&parsed);
    Ok(W { v: val, d })
}

pub(crate) fn tojson(v: &Val) -> ValR<W> {
    // The result is a string: the string cap applies (or the output cap
    // when that is smaller).
    let c = caps();
    let (max, limit) = if c.max_string <= c.max_output_bytes {
        (c.max_string, "maxStringBytes")
    } else {
        (c.max_output_bytes, "maxOutputBytes")
    };
    match format::to_json_limited(v, max) {
        Ok(s) => {
            value::alloc_str(s.len())?;
            Ok(W::scalar(Val::utf8_str(s)))
        }
        Err(_) => Err(value::breach(
            limit,
            format!("tojson output larger than {max} bytes"),
        )),
    }
}

pub(crate) fn trim_fix(v: &Val, fix: &Val, prefix: bool) -> ValR<W> {
    Ok(match (v, fix) {
        (Val::TStr(s), Val::TStr(f)) => {
            value::tick_bytes(f.len())?;
            let stripped = if prefix {
                s.strip_prefix(&f[..])
            } else {
                s.strip_suffix(&f[..])
            };
            match stripped {
                Some(rest) => W::scalar(Val::utf8_str(s.slice_ref(rest))),
                None => W::scalar(v.clone()),
            }
        }
        // gojq passes any other input through unchanged.
        _ => W::scalar(v.clone()),
    })
}

/// `startswith`/`endswith`, charged by the bytes compared.
pub(crate) fn affix(v: &Val, fix: &Val, prefix: bool) -> ValR<W> {
    let name = if prefix { "startswith" } else { "endswith" };
    match (v, fix) {
        (Val::TStr(s) | Val::BStr(s), Val::TStr(f) | Val::BStr(f)) => {
            value::tick_bytes(f.len())?;
            Ok(W::from(if prefix {
                s.starts_with(&f[..])
            } else {
                s.ends_with(&f[..])
            }))
        }
        _ => Err(err(format_args!("{name}() requires string inputs"))),
    }
}

/// `trim`, `ltrim`, `rtrim` (whitespace as jq defines it), charged by the
/// bytes scanned.
fn trim(v: &W, start: bool, end: bool) -> ValR<W> {
    let Val::TStr(s) = &v.v else {
        return Err(err(format_args!(
            "trim input must be a string: {}",
            preview(&v.v)
        )));
    };
    value::tick_bytes(s.len())?;
    use bstr::ByteSlice;
    let mut t: &[u8] = s;
    if start {
        t = t.trim_start();
    }
    if end {
        t = t.trim_end();
    }
    Ok(jaq_std::ValT::as_sub_str(v, t))
}

fn implode(v: &Val) -> ValR<W> {
    let Val::Arr(a) = v else {
        return Err(err(format_args!(
            "implode cannot be applied to: {}",
            preview(v)
        )));
    };
    value::alloc_slots(a.len())?;
    let mut s = String::with_capacity(a.len());
    for x in a.iter() {
        let cp = match x {
            Val::Num(n) => format::num_f64(n),
            _ => f64::NAN,
        };
        if !(0.0..=1_114_111.0).contains(&cp) {
            return Err(err(format_args!(
                "implode cannot be applied to: {}",
                preview(v)
            )));
        }
        // gojq truncates fractions and maps surrogates to U+FFFD.
        s.push(char::from_u32(cp as u32).unwrap_or('\u{fffd}'));
    }
    Ok(W::from(s))
}

fn unsupported(name: &'static str) -> value::Error {
    err(format_args!(
        "{name} is not available: workload definitions cannot read outside the workload"
    ))
}

fn ours() -> Vec<Filter> {
    vec![
        ("length", v(0), |cv| bome(length(&cv.1))),
        ("tojson", v(0), |cv| bome(tojson(&cv.1.v))),
        ("fromjson", v(0), |cv| bome(fromjson(&cv.1.v))),
        ("tonumber", v(0), |cv| bome(tonumber(&cv.1.v))),
        ("contains", v(1), |mut cv| {
            let y = cv.0.pop_var();
            bome(contains(&cv.1.v, &y.v).map(W::from))
        }),
        ("has", v(1), |mut cv| {
            let k = cv.0.pop_var();
            bome(has(&cv.1.v, &k.v))
        }),
        ("indices", v(1), |mut cv| {
            let y = cv.0.pop_var();
            bome(indices(&cv.1.v, &y.v))
        }),
        ("ltrimstr", v(1), |mut cv| {
            let f = cv.0.pop_var();
            bome(trim_fix(&cv.1.v, &f.v, true))
        }),
        ("rtrimstr", v(1), |mut cv| {
            let f = cv.0.pop_var();
            bome(trim_fix(&cv.1.v, &f.v, false))
        }),
        ("startswith", v(1), |mut cv| {
            let f = cv.0.pop_var();
            bome(affix(&cv.1.v, &f.v, true))
        }),
        ("endswith", v(1), |mut cv| {
            let f = cv.0.pop_var();
            bome(affix(&cv.1.v, &f.v, false))
        }),
        ("trim", v(0), |cv| bome(trim(&cv.1, true, true))),
        ("ltrim", v(0), |cv| bome(trim(&cv.1, true, false))),
        ("rtrim", v(0), |cv| bome(trim(&cv.1, false, true))),
        ("tobytes", v(0), |_| bome(Err(unsupported("tobytes")))),
        ("implode", v(0), |cv| bome(implode(&cv.1.v))),
        ("strptime", v(1), |mut cv| {
            let f = cv.0.pop_var();
            bome(time::strptime(&cv.1.v, &f.v))
        }),
        ("strftime", v(1), |mut cv| {
            let f = cv.0.pop_var();
            bome(time::strftime(&cv.1.v, &f.v))
        }),
        ("gmtime", v(0), |cv| bome(time::gmtime(&cv.1.v))),
        ("mktime", v(0), |cv| bome(time::mktime(&cv.1.v))),
        ("todateiso8601", v(0), |cv| {
            bome(time::todateiso8601(&cv.1.v))
        }),
        ("matches", v(2), |mut cv| {
            let (f, r) = (cv.0.pop_var(), cv.0.pop_var());
            bome(super::regex::run(&cv.1, &r, &f, false, true))
        }),
        ("split_matches", v(2), |mut cv| {
            let (f, r) = (cv.0.pop_var(), cv.0.pop_var());
            bome(super::regex::run(&cv.1, &r, &f, true, true))
        }),
        ("split_", v(2), |mut cv| {
            let (f, r) = (cv.0.pop_var(), cv.0.pop_var());
            bome(super::regex::run(&cv.1, &r, &f, true, false))
        }),
        ("_nan", v(0), |_| bome(Ok(W::from(f64::NAN)))),
        ("_infinite", v(0), |_| bome(Ok(W::from(f64::INFINITY)))),
        ("bsearch", v(1), |mut cv| {
            let x = cv.0.pop_var();
            bome(match &cv.1.v {
                Val::Arr(a) => {
                    let r = a.binary_search_by(|e| value::cmp_metered(e, &x.v));
                    Ok(W::from(r.map_or_else(|i| -1 - i as isize, |i| i as isize)))
                }
                v => Err(err(format_args!(
                    "bsearch cannot be applied to: {}",
                    preview(v)
                ))),
            })
        }),
        // Stubs: statically denied, but kept defined so the prelude compiles.
        ("env", v(0), |_| bome(Err(unsupported("env")))),
        ("now", v(0), |_| bome(Err(unsupported("now")))),
        ("halt", v(1), |_| bome(Err(unsupported("halt")))),
        ("localtime", v(0), |_| bome(Err(unsupported("localtime")))),
        ("strflocaltime", v(1), |_| {
            bome(Err(unsupported("strflocaltime")))
        }),
        ("debug_empty", v(0), |_| bome(Err(unsupported("debug")))),
        ("stderr_empty", v(0), |_| bome(Err(unsupported("stderr")))),
        ("input", v(0), |_| bome(Err(unsupported("input")))),
        ("inputs", v(0), |_| bome(Err(unsupported("inputs")))),
    ]
}

/// Every native: ours first (the compiler takes the first match), then
/// jaq's generic ones.
pub(crate) fn funs() -> Vec<Fun<D>> {
    funs_where(None)
}

/// jaq's native lists, in the order they are offered to the compiler
/// (after ours and the `_limit` alias).
fn generic(list: usize) -> Box<dyn Iterator<Item = Fun<D>>> {
    match list {
        0 => Box::new(jaq_core::funs::<D>()),
        1 => Box::new(jaq_std::base_funs::<D>()),
        _ => Box::new(jaq_std::extra_funs::<D>()),
    }
}

/// For each of jaq's lists, the name of each entry and whether one of ours
/// has its name and arity (ours replaces it); and the names each list
/// offers. Computed once.
struct GenericIndex {
    entries: [Vec<(&'static str, bool)>; 3],
    names: [HashSet<&'static str>; 3],
}

fn generic_index() -> &'static GenericIndex {
    static INDEX: OnceLock<GenericIndex> = OnceLock::new();
    INDEX.get_or_init(|| {
        let taken: HashSet<(&str, usize)> = ours().iter().map(|(n, a, _)| (*n, a.len())).collect();
        let entries: [Vec<(&'static str, bool)>; 3] = std::array::from_fn(|list| {
            generic(list)
                .map(|(n, a, _)| (n, taken.contains(&(n, a.len()))))
                .collect()
        });
        let names = std::array::from_fn(|list| {
            entries[list]
                .iter()
                .filter(|(_, shadowed)| !shadowed)
                .map(|(n, _)| *n)
                .collect()
        });
        GenericIndex { entries, names }
    })
}

/// The native filters named in `names` (the words an expression and the
/// standard definitions it reaches mention, see `reachable_prelude`):
/// compiling with only those instead of all ~250 makes building the list
/// and the compiler's name lookups proportional to the expression (a list
/// of jaq's that offers none of the names is not even built). A name
/// resolves to the same native as with [`funs`]: the same list, filtered.
pub(crate) fn funs_named(names: &HashSet<&str>) -> Vec<Fun<D>> {
    funs_where(Some(names))
}

/// The natives named in `names` (all of them for `None`).
fn funs_where(names: Option<&HashSet<&str>>) -> Vec<Fun<D>> {
    let keep = |n: &str| names.is_none_or(|names| names.contains(n));
    let index = generic_index();
    let mut out: Vec<Fun<D>> = ours()
        .into_iter()
        .filter(|(n, _, _)| keep(n))
        .map(run::<D>)
        .collect();
    // jaq's `limit` under another name, for our `limit` (which keeps jq's
    // meaning of a negative count: every output).
    if keep("_limit") {
        out.extend(
            jaq_core::funs::<D>()
                .filter(|(n, a, _)| *n == "limit" && a.len() == 2)
                .map(|(_, a, f)| ("_limit", a, f)),
        );
    }
    for list in 0..3 {
        if let Some(names) = names
            && !names.iter().any(|n| index.names[list].contains(n))
        {
            continue;
        }
        out.extend(
            generic(list)
                .zip(index.entries[list].iter())
                .filter(|((n, _, _), (_, shadowed))| !shadowed && keep(n))
                .map(|(f, _)| f),
        );
    }
    out
}
