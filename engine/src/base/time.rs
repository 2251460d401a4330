//! Times as Kubernetes writes them (RFC 3339: `2026-01-01T00:00:00Z`,
//! `...00.123456Z`, `...00+02:00`), read without a date library: the events
//! `describe` keeps are ordered by them, and the CLI's ages count from them.

/// Seconds since the epoch and nanoseconds of an RFC 3339 time (`T`, `t` or
/// a space between date and time; `Z`, `z` or `±HH:MM`; up to nine
/// fractional digits kept). `None` for anything else, a field out of range
/// included.
pub fn rfc3339(s: &str) -> Option<(i64, u32)> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        if part.bytes().all(|c| c.is_ascii_digit()) {
            part.parse().ok()
        } else {
            None
        }
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    let mut nanos: u32 = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        for (i, c) in frac.bytes().take(digits).enumerate() {
            if i < 9 {
                nanos = nanos * 10 + u32::from(c - b'0');
            }
        }
        for _ in digits.min(9)..9 {
            nanos *= 10;
        }
        rest = &frac[digits..];
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let rb = rest.as_bytes();
            if rb.len() != 6 || rb[3] != b':' || !matches!(rb[0], b'+' | b'-') {
                return None;
            }
            let oh: i64 = rest.get(1..3)?.parse().ok()?;
            let om: i64 = rest.get(4..6)?.parse().ok()?;
            let o = oh * 3600 + om * 60;
            if rb[0] == b'-' { -o } else { o }
        }
    };
    // Days from the civil date (proleptic Gregorian), Howard Hinnant's
    // algorithm.
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400 + h * 3600 + mi * 60 + sec - offset, nanos))
}

/// Seconds since the epoch of an RFC 3339 time ([`rfc3339`], the fraction
/// dropped).
pub fn epoch_seconds(s: &str) -> Option<i64> {
    rfc3339(s).map(|(secs, _)| secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_since_the_epoch() {
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_seconds("2000-03-01T00:00:00Z"), Some(951_868_800));
        assert_eq!(epoch_seconds("2026-12-05T01:02:03Z"), Some(1_796_432_523));
        assert_eq!(
            epoch_seconds("2026-12-05T02:02:03+01:00"),
            Some(1_796_432_523)
        );
        assert_eq!(
            epoch_seconds("2026-12-05T01:02:03.123456Z"),
            Some(1_796_432_523)
        );
        assert_eq!(
            rfc3339("2026-12-05T01:02:03.5Z"),
            Some((1_796_432_523, 500_000_000))
        );
        assert_eq!(epoch_seconds("yesterday"), None);
        assert_eq!(epoch_seconds("2026-13-05T01:02:03Z"), None);
    }
}
