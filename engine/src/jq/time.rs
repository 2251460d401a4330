//! The time builtins (`strptime`, `strftime`, `gmtime`, `mktime`,
//! `todateiso8601`) with gojq's meaning, on one rule for the range: a time is
//! an instant from -9999-01-02T01:59:59Z to 9999-12-30T22:00:00Z (what a
//! `jiff::Timestamp` holds; jiff is the calendar library jaq uses), and
//! anything outside it, or a number that is not finite, is an error naming
//! the function and the value.
//!
//! jaq's own versions multiplied an integer epoch by 1,000,000 unchecked (an
//! overflow for a second past year 294,000: a panic with debug assertions and
//! a silently wrong time without), and read `nan` as 1970. gojq goes on far
//! past year 9999 and wraps around through Go's conversions; neither is a
//! time a workload carries, so both end as errors here
//! (docs/compatibility.md).
//!
//! Within the range the answers are gojq's: a broken-down time's fields
//! are normalised as Go's `time.Date` does (month 13 is January of the next
//! year, second 70 is ten seconds into the next minute), fractions of the
//! other fields are truncated, and `todate` writes whole seconds.

use super::value::{self, W, preview_typed as preview};
use jaq_core::ValR;
use jaq_json::{Num, Val};
use jiff::Timestamp;
use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;

fn err(msg: impl std::fmt::Display) -> value::Error {
    value::Error::str(msg)
}

fn cannot(name: &str, v: &Val) -> value::Error {
    err(format_args!("{name} cannot be applied to: {}", preview(v)))
}

fn out_of_range(name: &str, v: &Val) -> value::Error {
    err(format_args!(
        "{name} cannot be applied to: {}: not a time between the years -9999 and 9999",
        preview(v)
    ))
}

/// A number as a float, `None` for any other value.
fn number(v: &Val) -> Option<f64> {
    match v {
        Val::Num(n) => Some(super::format::num_f64(n)),
        _ => None,
    }
}

/// The instant a number of seconds since 1970 names: an integer exactly,
/// a fraction to the microsecond (toward zero, as jaq).
fn instant(name: &str, v: &Val) -> Result<Timestamp, value::Error> {
    let ts = match v {
        Val::Num(Num::Int(i)) => Timestamp::from_second(*i as i64),
        Val::Num(_) => {
            let f = number(v).unwrap_or(f64::NAN);
            // The product of a float beyond about 9.2e12 seconds saturates
            // to i64's ends, which `from_microsecond` refuses: no wrap.
            if !f.is_finite() {
                return Err(out_of_range(name, v));
            }
            Timestamp::from_microsecond((f * 1e6) as i64)
        }
        _ => return Err(cannot(name, v)),
    };
    ts.map_err(|_| out_of_range(name, v))
}

/// The broken-down time gojq gives: year, month from 0, day, hour, minute,
/// second (with its fraction), weekday from Sunday = 0, day of the year
/// from 0.
pub(crate) fn broken_down(dt: DateTime) -> W {
    let sec = if dt.subsec_nanosecond() > 0 {
        W::from(dt.second() as f64 + dt.subsec_nanosecond() as f64 / 1e9)
    } else {
        W::from(dt.second() as isize)
    };
    [
        W::from(dt.year() as isize),
        W::from(dt.month() as isize - 1),
        W::from(dt.day() as isize),
        W::from(dt.hour() as isize),
        W::from(dt.minute() as isize),
        sec,
        W::from(dt.weekday().to_sunday_zero_offset() as isize),
        W::from(dt.day_of_year() as isize - 1),
    ]
    .into_iter()
    .collect()
}

/// The seconds since 1970 a broken-down time names (at least six numbers;
/// more are ignored, as jq's weekday and day of the year are), normalised
/// as Go's `time.Date` does. `None` where it is no time in the range.
fn seconds_of(fields: &[Val]) -> Option<f64> {
    let [year, month, day, hour, minute, second] = fields.get(..6)? else {
        return None;
    };
    // Go truncates each field but the second to an integer.
    let int = |v: &Val| -> Option<i64> {
        let f = number(v)?.trunc();
        // Far past the calendar, and small enough that the sums below
        // (a day is 86,400 s) cannot overflow i64.
        (f.abs() < 1e12).then_some(f as i64)
    };
    let months = int(year)? * 12 + int(month)?;
    let year = i16::try_from(months.div_euclid(12)).ok()?;
    let first = Date::new(year, (months.rem_euclid(12) + 1) as i8, 1).ok()?;
    let base = first.to_zoned(TimeZone::UTC).ok()?.timestamp().as_second();
    let whole = base + (int(day)? - 1) * 86_400 + int(hour)? * 3_600 + int(minute)? * 60;
    let second = number(second)?;
    if !second.is_finite() {
        return None;
    }
    let total = whole as f64 + second;
    // Inside the calendar's range, so `gmtime` and `strftime` can read it.
    Timestamp::from_microsecond((total * 1e6) as i64).ok()?;
    Some(total)
}

/// `mktime`: the seconds since 1970 of a broken-down time in UTC (a float
/// when the second has a fraction).
pub(crate) fn mktime(v: &Val) -> ValR<W> {
    let Val::Arr(a) = v else {
        return Err(err(format_args!(
            "mktime requires array of 6 numbers: {}",
            preview(v)
        )));
    };
    let total = seconds_of(a).ok_or_else(|| {
        if a.len() >= 6 && a[..6].iter().all(|x| matches!(x, Val::Num(_))) {
            out_of_range("mktime", v)
        } else {
            err(format_args!(
                "mktime requires array of 6 numbers: {}",
                preview(v)
            ))
        }
    })?;
    Ok(if total.fract() == 0.0 {
        W::from(total as isize)
    } else {
        W::from(total)
    })
}

/// `gmtime`: the broken-down time, in UTC, of seconds since 1970.
pub(crate) fn gmtime(v: &Val) -> ValR<W> {
    let ts = instant("gmtime", v)?;
    Ok(broken_down(ts.to_zoned(TimeZone::UTC).datetime()))
}

/// The instant a time value names: seconds since 1970, or a broken-down
/// time.
fn time_of(name: &str, v: &Val) -> Result<Timestamp, value::Error> {
    match v {
        Val::Arr(a) => {
            let total = seconds_of(a).ok_or_else(|| cannot(name, v))?;
            Timestamp::from_microsecond((total * 1e6) as i64).map_err(|_| out_of_range(name, v))
        }
        _ => instant(name, v),
    }
}

fn format_time(name: &str, v: &Val, fmt: &[u8]) -> ValR<W> {
    // Formatting is linear in the format's length.
    value::tick_bytes(fmt.len())?;
    let zoned = time_of(name, v)?.to_zoned(TimeZone::UTC);
    let text =
        jiff::fmt::strtime::format(fmt, &zoned).map_err(|e| err(format_args!("{name}: {e}")))?;
    Ok(W::from(text))
}

/// `strftime(fmt)`: seconds since 1970 or a broken-down time, written in UTC
/// with jiff's directives.
pub(crate) fn strftime(v: &Val, fmt: &Val) -> ValR<W> {
    let (Val::TStr(f) | Val::BStr(f)) = fmt else {
        return Err(cannot("strftime", fmt));
    };
    format_time("strftime", v, f)
}

/// `todateiso8601` (`todate`): as gojq's `strftime("%Y-%m-%dT%H:%M:%SZ")`,
/// so a fraction of a second is dropped.
pub(crate) fn todateiso8601(v: &Val) -> ValR<W> {
    format_time("todateiso8601", v, b"%Y-%m-%dT%H:%M:%SZ")
}

/// `strptime/1` as jaq's, except that a named (IANA) time zone, which
/// `%Q` can parse, is refused instead of being looked up in the host's time
/// zone database: the engine reads nothing outside the workload, and the
/// WebAssembly build has no database, so the runtimes would disagree.
/// Numeric offsets and `UTC` work everywhere; the result is in UTC, as
/// gojq's is.
pub(crate) fn strptime(input: &Val, fmt: &Val) -> ValR<W> {
    use jiff::fmt::strtime::BrokenDownTime;
    use jiff::tz::Offset;
    let (Val::TStr(s) | Val::BStr(s), Val::TStr(f) | Val::BStr(f)) = (input, fmt) else {
        let bad = if matches!(input, Val::TStr(_) | Val::BStr(_)) {
            fmt
        } else {
            input
        };
        return Err(cannot("strptime", bad));
    };
    value::tick_bytes(f.len() + s.len())?;
    let mut bdt = BrokenDownTime::parse(&f[..], &s[..]).map_err(err)?;
    match bdt.iana_time_zone() {
        Some("UTC" | "Etc/UTC" | "Z") => {
            bdt.set_iana_time_zone(None);
            bdt.set_offset(Some(Offset::UTC));
        }
        Some(name) => {
            return Err(err(format_args!(
                "strptime: named time zone {name:?} is not supported (the engine reads no time zone database); use a numeric offset such as +01:00"
            )));
        }
        None => {}
    }
    if bdt.offset().is_none() {
        bdt.set_offset(Some(Offset::UTC));
    }
    // gojq gives the broken-down time in UTC (jaq's would stay in the
    // parsed offset, so `mktime` would be off by the offset).
    let dt = bdt
        .to_zoned()
        .map_err(err)?
        .timestamp()
        .to_zoned(TimeZone::UTC)
        .datetime();
    Ok(broken_down(dt))
}
