//! Resource amounts as people read them: one rule for every front end (the
//! CLI's tables, the playground's cards and tables). Machine outputs keep
//! the exact numbers (`cpuMillis`, `memoryBytes` in JSON).
//!
//! - Memory and storage: binary units (`Ki` .. `Ei`) with at most one
//!   decimal, rounded half up: 2,000,000,000 bytes is `1.9Gi`, `1536Mi` is
//!   `1.5Gi`, `64Gi` stays `64Gi`. Below 1 KiB, plain bytes (`512`). A value
//!   that rounds to 1024 of a unit is written in the next one (`1Gi`, not
//!   `1024.0Mi`).
//! - CPU: cores as a decimal number, exact (millicores are integers):
//!   26,500m is `26.5`, 250m is `0.25`, 8,000m is `8`.

const UNITS: [&str; 6] = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/// Bytes in binary units with at most one decimal (`1.9Gi`, `512Mi`, `0`).
pub fn memory(bytes: u64) -> String {
    if bytes < 1024 {
        return bytes.to_string();
    }
    // The largest unit the value reaches, then the value in tenths of that
    // unit, rounded half up (u128: no overflow near u64::MAX).
    let mut power = 0;
    while power < UNITS.len() && bytes >> (10 * (power + 1)) > 0 {
        power += 1;
    }
    let mut power = power.max(1);
    let unit = |p: usize| 1u128 << (10 * p);
    let mut tenths = (u128::from(bytes) * 10 + unit(power) / 2) / unit(power);
    if tenths >= 10_240 && power < UNITS.len() {
        power += 1;
        tenths = (u128::from(bytes) * 10 + unit(power) / 2) / unit(power);
    }
    let (whole, tenth) = (tenths / 10, tenths % 10);
    if tenth == 0 {
        format!("{whole}{}", UNITS[power - 1])
    } else {
        format!("{whole}.{tenth}{}", UNITS[power - 1])
    }
}

/// CPU millicores as cores, a decimal without trailing zeros (`26.5`,
/// `0.25`, `8`, `0`).
pub fn cpu(millis: u64) -> String {
    let (whole, frac) = (millis / 1000, millis % 1000);
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:03}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_in_binary_units_with_one_decimal() {
        for (bytes, want) in [
            (0, "0"),
            (512, "512"),
            (1023, "1023"),
            (1024, "1Ki"),
            (1536, "1.5Ki"),
            (2_000_000_000, "1.9Gi"),
            (1536 << 20, "1.5Gi"),
            (8704 << 20, "8.5Gi"),
            (64 << 30, "64Gi"),
            (538_480 << 20, "525.9Gi"),
            (1_654_984 << 20, "1.6Ti"),
            ((1 << 30) - 1, "1Gi"),
            ((1 << 20) - 51, "1Mi"),
            ((1 << 20) - 52, "1023.9Ki"),
            (1 << 60, "1Ei"),
            (u64::MAX, "16Ei"),
        ] {
            assert_eq!(memory(bytes), want, "{bytes}");
        }
    }

    #[test]
    fn cpu_as_decimal_cores() {
        for (millis, want) in [
            (0, "0"),
            (1, "0.001"),
            (250, "0.25"),
            (500, "0.5"),
            (1500, "1.5"),
            (8000, "8"),
            (26_500, "26.5"),
            (u64::MAX, "18446744073709551.615"),
        ] {
            assert_eq!(cpu(millis), want, "{millis}");
        }
    }

    /// The written value is within half a tenth of the unit it names, and
    /// below 1024 of it (against an independent float computation).
    #[test]
    fn memory_is_close_to_the_value() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bytes = x >> (x % 64);
            let text = memory(bytes);
            if bytes < 1024 {
                assert_eq!(text, bytes.to_string());
                continue;
            }
            let p = UNITS
                .iter()
                .position(|u| text.ends_with(u))
                .unwrap_or_else(|| panic!("{text}"));
            let shown: f64 = text[..text.len() - 2].parse().unwrap();
            let exact = bytes as f64 / (1u128 << (10 * (p + 1))) as f64;
            assert!((shown - exact).abs() <= 0.05 + 1e-9, "{bytes} -> {text}");
            assert!(shown < 1024.0 || p == UNITS.len() - 1, "{bytes} -> {text}");
            assert!(shown >= 1.0, "{bytes} -> {text}");
        }
    }
}
