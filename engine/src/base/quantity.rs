//! Exact Kubernetes resource quantities (`resource.Quantity`).
//!
//! A [`Quantity`] is the value of a Kubernetes quantity such as `500m`, `2`,
//! `4Gi` or `1e3`, kept exactly (never as a float) together with the *format
//! family* of the text it was parsed from, so that it can be written back in
//! the canonical form Kubernetes itself prints.
//!
//! The behaviour follows `k8s.io/apimachinery/pkg/api/resource`:
//!
//! * **Grammar.** `<sign>? <number> <suffix>?` where the number is digits with
//!   at most one decimal point (`5`, `1.25`, `.5`, `5.`) and the suffix is a
//!   binary SI suffix (`Ki Mi Gi Ti Pi Ei`), a decimal SI suffix
//!   (`n u m k M G T P E`, or none) or a decimal exponent (`e3`, `E-3`,
//!   `e+6`). See [`Quantity::parse`].
//! * **Precision.** Values keep nano (10⁻⁹) precision. A finer non-zero value
//!   is rounded *away from zero* to the next nano, exactly as
//!   `ParseQuantity` does, so `0.9n` is `1n` and `-0.1n` is `-1n`.
//! * **Binary cap.** Like `ParseQuantity`, parsing silently caps a binary SI
//!   quantity at 2⁶³−1 in magnitude (`8Ei` parses as `9223372036854775807`).
//! * **Range.** This implementation additionally rejects any value whose
//!   magnitude exceeds 2⁹⁶ (about 7.9·10²⁸), far beyond any real resource
//!   amount; arithmetic that would leave that range fails with an error
//!   instead of overflowing.
//! * **Canonical form.** [`Quantity::to_canonical_string`] reproduces
//!   `Quantity.String()`: the largest suffix of the remembered format family
//!   that keeps an integer mantissa (`1000m` → `1`, `1.5` → `1500m`,
//!   `1024Mi` → `1Gi`, `1.5Gi` → `1536Mi`, `1000` → `1k`, `1e3` → `1e3`).
//!   Binary SI values that are smaller than 1024 in magnitude or not whole
//!   numbers are printed in decimal SI (`0.1Gi` → `107374182400m`).
//! * **Comparison.** Equality, ordering and hashing look only at the numeric
//!   value: `1Gi == 1073741824 == 1073741824000m`.
//!
//! ```
//! use workload_lens::Quantity;
//!
//! let a = Quantity::parse("1.5Gi")?;
//! assert_eq!(a.to_canonical_string(), "1536Mi");
//! assert_eq!(a.ceil_to_u64(), 1_610_612_736);
//!
//! let cpu = Quantity::parse("250m")?.add(&Quantity::parse("1")?)?;
//! assert_eq!(cpu.to_canonical_string(), "1250m");
//! assert_eq!(cpu.milli_ceil_u64(), 1250);
//! # Ok::<(), workload_lens::QuantityError>(())
//! ```

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Serialize, Serializer};
use serde_json::Value;

/// Longest quantity text [`Quantity::parse`] accepts, in bytes.
pub(crate) const MAX_QUANTITY_LEN: usize = 64;

/// Nano-units in one unit.
const NANOS_PER_UNIT: i128 = 1_000_000_000;
/// Nano-units in one milli-unit.
const NANOS_PER_MILLI: i128 = 1_000_000;
/// [`NANOS_PER_MILLI`] for 64-bit arithmetic.
const NANOS_PER_MILLI_64: i64 = 1_000_000;
/// Largest supported magnitude, 2^96 units, in nano-units (about 7.9e37,
/// comfortably inside `i128`, so the sum of two in-range values never
/// overflows the representation before it is range-checked).
const MAX_ABS_NANOS: u128 = (1u128 << 96) * 1_000_000_000;
/// `ParseQuantity` caps binary SI quantities at 2^63-1 units; in nano-units.
const BINARY_SI_CAP_NANOS: u128 = 0x7FFF_FFFF_FFFF_FFFF_u128 * 1_000_000_000;
/// Largest power of 1024 that has a binary SI suffix (`Ei` = 1024^6).
const MAX_BINARY_POWER: u32 = 6;

/// The family of suffixes a quantity was written with; it decides how the
/// canonical string is spelled (never the value).
///
/// The names follow the apimachinery `Format` constants; [`as_str`] returns
/// the exact Kubernetes spelling (`"DecimalSI"`, …).
///
/// [`as_str`]: QuantityFormat::as_str
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum QuantityFormat {
    /// Decimal SI suffixes `n u m k M G T P E` or no suffix, e.g. `500m`,
    /// `12M`, `2`. The default, and the format of plain numbers.
    #[default]
    DecimalSi,
    /// Binary SI suffixes `Ki Mi Gi Ti Pi Ei` (powers of 1024), e.g. `12Mi`.
    BinarySi,
    /// A decimal exponent, e.g. `12e6`, `1E-3`.
    DecimalExponent,
}

impl QuantityFormat {
    /// The Kubernetes name of the format: `"DecimalSI"`, `"BinarySI"` or
    /// `"DecimalExponent"`.
    pub fn as_str(self) -> &'static str {
        match self {
            QuantityFormat::DecimalSi => "DecimalSI",
            QuantityFormat::BinarySi => "BinarySI",
            QuantityFormat::DecimalExponent => "DecimalExponent",
        }
    }
}

/// What went wrong in a [`QuantityError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QuantityErrorKind {
    /// The text is empty.
    Empty,
    /// The text is longer than [`MAX_QUANTITY_LEN`] bytes.
    TooLong,
    /// The text contains whitespace.
    Whitespace,
    /// The number part is missing or malformed (no digits, a second decimal
    /// point, a stray sign, a letter that is not a suffix, …).
    InvalidNumber,
    /// The suffix is not one Kubernetes knows (e.g. `KB`, `b`, `ki`).
    InvalidSuffix,
    /// An `e`/`E` exponent without an integer after it (e.g. `1e`, `1e1.5`).
    InvalidExponent,
    /// The value (or its exponent) is outside the supported range.
    OutOfRange,
    /// Arithmetic on quantities left the supported range, or a value does
    /// not fit the unsigned 64-bit count it is converted to
    /// ([`Quantity::checked_ceil_u64`]).
    Overflow,
    /// A JSON value that is neither a string nor a number.
    NotAQuantity,
    /// A negative value where only counts make sense
    /// ([`Quantity::checked_ceil_u64`]); Kubernetes rejects negative
    /// resource quantities.
    Negative,
}

/// Why a text or JSON value is not a usable quantity, or why arithmetic on
/// quantities failed.
///
/// The [`Display`](fmt::Display) form is a complete sentence fragment a person
/// can act on, e.g. `invalid quantity "abc": expected a number with an
/// optional suffix (e.g. 500m, 2, 4Gi)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuantityError {
    kind: QuantityErrorKind,
    /// The offending input (truncated when too long), or for arithmetic errors
    /// a description of the operation.
    input: String,
    /// Extra detail: the unknown suffix, the JSON type found.
    detail: String,
}

/// The hint shown after most grammar errors.
const HINT: &str = "expected a number with an optional suffix (e.g. 500m, 2, 4Gi)";

impl QuantityError {
    fn new(kind: QuantityErrorKind, input: &str) -> QuantityError {
        QuantityError {
            kind,
            input: input.to_owned(),
            detail: String::new(),
        }
    }

    fn with_detail(kind: QuantityErrorKind, input: &str, detail: &str) -> QuantityError {
        QuantityError {
            kind,
            input: input.to_owned(),
            detail: detail.to_owned(),
        }
    }

    fn overflow(operation: String) -> QuantityError {
        QuantityError {
            kind: QuantityErrorKind::Overflow,
            input: operation,
            detail: String::new(),
        }
    }

    /// `value` (already rounded up to whole `unit`s) does not fit in a `u64`.
    fn u64_overflow(value: &Quantity, unit: &str) -> QuantityError {
        QuantityError {
            kind: QuantityErrorKind::Overflow,
            input: value.to_canonical_string(),
            detail: unit.to_owned(),
        }
    }

    /// The class of the error.
    pub fn kind(&self) -> QuantityErrorKind {
        self.kind
    }

    /// The input that was rejected (at most [`MAX_QUANTITY_LEN`] bytes of it),
    /// or, for [`QuantityErrorKind::Overflow`], the operation that overflowed.
    pub fn input(&self) -> &str {
        &self.input
    }
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let input = &self.input;
        match self.kind {
            QuantityErrorKind::Empty => {
                write!(f, "invalid quantity \"\": the value is empty; {HINT}")
            }
            QuantityErrorKind::TooLong => write!(
                f,
                "invalid quantity {input:?}...: longer than {MAX_QUANTITY_LEN} characters"
            ),
            QuantityErrorKind::Whitespace => write!(
                f,
                "invalid quantity {input:?}: whitespace is not allowed; {HINT}"
            ),
            QuantityErrorKind::InvalidNumber => write!(f, "invalid quantity {input:?}: {HINT}"),
            QuantityErrorKind::InvalidSuffix => write!(
                f,
                "invalid quantity {input:?}: unknown suffix {:?}; use a decimal suffix \
                 (n, u, m, k, M, G, T, P, E), a binary suffix (Ki, Mi, Gi, Ti, Pi, Ei) \
                 or an exponent (e.g. e3, E-3)",
                self.detail
            ),
            QuantityErrorKind::InvalidExponent => write!(
                f,
                "invalid quantity {input:?}: an exponent must be \"e\" or \"E\" followed by \
                 an integer (e.g. 1e3, 5E-3)"
            ),
            QuantityErrorKind::OutOfRange => write!(
                f,
                "invalid quantity {input:?}: out of the supported range (the magnitude \
                 must not exceed 2^96, about 7.9e28)"
            ),
            QuantityErrorKind::Overflow if !self.detail.is_empty() => write!(
                f,
                "quantity overflow: {input} does not fit in an unsigned 64-bit count of {} \
                 (at most {})",
                self.detail,
                u64::MAX
            ),
            QuantityErrorKind::Overflow => write!(
                f,
                "quantity arithmetic overflow: {input} exceeds the supported magnitude of \
                 2^96 (about 7.9e28)"
            ),
            QuantityErrorKind::Negative => write!(
                f,
                "invalid quantity {input:?}: negative; a resource quantity must be zero or \
                 more (Kubernetes rejects negative requests and limits)"
            ),
            QuantityErrorKind::NotAQuantity => write!(
                f,
                "invalid quantity: expected a string or a number (e.g. \"500m\", 2, \"4Gi\"), \
                 found {}",
                self.detail
            ),
        }
    }
}

impl std::error::Error for QuantityError {}

/// An exact Kubernetes resource quantity: a decimal value with nano precision
/// plus the [`QuantityFormat`] used to print it canonically.
///
/// Equality, ordering and hashing use the numeric value only, so quantities
/// written in different formats compare as numbers:
///
/// ```
/// use workload_lens::Quantity;
///
/// let gi = Quantity::parse("1Gi")?;
/// assert_eq!(gi, Quantity::parse("1073741824")?);
/// assert!(Quantity::parse("1G")? < gi);
/// # Ok::<(), workload_lens::QuantityError>(())
/// ```
#[derive(Clone)]
pub struct Quantity {
    /// The value in nano-units; `|nanos| <= MAX_ABS_NANOS`.
    nanos: i128,
    /// How the value is spelled canonically.
    format: QuantityFormat,
}

/// The suffix of a parsed quantity.
#[derive(Clone, Copy, Debug)]
enum Suffix {
    /// A decimal SI suffix: value times 10^exp.
    Decimal(i32),
    /// A binary SI suffix: value times 1024^power.
    Binary(u32),
    /// A decimal exponent: value times 10^exp.
    Exponent(i32),
}

impl Quantity {
    /// The quantity `0` (decimal SI).
    pub fn zero() -> Quantity {
        Quantity {
            nanos: 0,
            format: QuantityFormat::DecimalSi,
        }
    }

    /// Builds a quantity from a value in nano-units (10⁻⁹) and a format.
    ///
    /// Fails with [`QuantityErrorKind::OutOfRange`] when the magnitude exceeds
    /// 2⁹⁶ units. Unlike parsing, no binary SI cap is applied.
    ///
    /// ```
    /// use workload_lens::{Quantity, QuantityFormat};
    ///
    /// let q = Quantity::from_nanos(1_500_000_000, QuantityFormat::DecimalSi)?;
    /// assert_eq!(q.to_canonical_string(), "1500m");
    /// # Ok::<(), workload_lens::QuantityError>(())
    /// ```
    pub fn from_nanos(nanos: i128, format: QuantityFormat) -> Result<Quantity, QuantityError> {
        if nanos.unsigned_abs() > MAX_ABS_NANOS {
            return Err(QuantityError::new(
                QuantityErrorKind::OutOfRange,
                &format!("{nanos}n"),
            ));
        }
        Ok(Quantity { nanos, format })
    }

    /// Parses a quantity written in the Kubernetes grammar.
    ///
    /// ```text
    /// <quantity>        ::= <sign>? <number> <suffix>?
    /// <sign>            ::= "+" | "-"
    /// <number>          ::= <digits> | <digits> "." <digits> | <digits> "." | "." <digits>
    /// <suffix>          ::= <binarySI> | <decimalSI> | <decimalExponent>
    /// <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
    /// <decimalSI>       ::= n | u | m | k | M | G | T | P | E
    /// <decimalExponent> ::= ("e" | "E") <sign>? <digits>
    /// ```
    ///
    /// The value is computed exactly; digits finer than a nano-unit round the
    /// value away from zero to the next nano-unit, and binary SI values are
    /// capped at 2⁶³−1 in magnitude, both as `ParseQuantity` does. The format
    /// remembered for printing is [`QuantityFormat::BinarySi`] for binary
    /// suffixes (unless the value is non-zero and smaller than 1 in magnitude,
    /// which Kubernetes switches to decimal SI),
    /// [`QuantityFormat::DecimalExponent`] for `e`/`E` exponents and
    /// [`QuantityFormat::DecimalSi`] otherwise.
    ///
    /// Rejected, with a [`QuantityError`] saying why: the empty string, text
    /// longer than [`MAX_QUANTITY_LEN`] bytes, any whitespace, a sign without
    /// digits (`-`, `+.`), several signs or decimal points (`--1`, `1.2.3`),
    /// unknown suffixes (`1KB`, `1b`, `1ki`), an exponent marker without an
    /// integer (`1e`, `1e1.5`), and values whose magnitude exceeds 2⁹⁶.
    ///
    /// Apimachinery's scanner also accepts the digit-less forms `-`, `+` and
    /// `.` (as zero); they are outside the documented grammar and the API
    /// schema pattern, and are rejected here.
    ///
    /// ```
    /// use workload_lens::{Quantity, QuantityFormat};
    ///
    /// let q = Quantity::parse("0.5Gi")?;
    /// assert_eq!(q.format(), QuantityFormat::BinarySi);
    /// assert_eq!(q.to_canonical_string(), "512Mi");
    /// assert!(Quantity::parse("1KB").is_err());
    /// # Ok::<(), workload_lens::QuantityError>(())
    /// ```
    pub fn parse(s: &str) -> Result<Quantity, QuantityError> {
        if s.is_empty() {
            return Err(QuantityError::new(QuantityErrorKind::Empty, s));
        }
        if s.len() > MAX_QUANTITY_LEN {
            return Err(QuantityError::new(
                QuantityErrorKind::TooLong,
                truncate(s, MAX_QUANTITY_LEN),
            ));
        }
        if s.chars().any(char::is_whitespace) {
            return Err(QuantityError::new(QuantityErrorKind::Whitespace, s));
        }

        let (negative, unsigned) = if let Some(rest) = s.strip_prefix('-') {
            (true, rest)
        } else if let Some(rest) = s.strip_prefix('+') {
            (false, rest)
        } else {
            (false, s)
        };
        let (int_digits, after_int) = split_digits(unsigned);
        let (frac_digits, suffix_text) = match after_int.strip_prefix('.') {
            Some(rest) => split_digits(rest),
            None => ("", after_int),
        };
        if int_digits.is_empty() && frac_digits.is_empty() {
            return Err(QuantityError::new(QuantityErrorKind::InvalidNumber, s));
        }
        let suffix = parse_suffix(s, suffix_text)?;

        let mut magnitude = magnitude_nanos(int_digits, frac_digits, suffix)
            .map_err(|kind| QuantityError::new(kind, s))?;
        let format = match suffix {
            Suffix::Decimal(_) => QuantityFormat::DecimalSi,
            Suffix::Exponent(_) => QuantityFormat::DecimalExponent,
            Suffix::Binary(_) => {
                magnitude = magnitude.min(BINARY_SI_CAP_NANOS);
                if magnitude > 0 && magnitude < NANOS_PER_UNIT.unsigned_abs() {
                    QuantityFormat::DecimalSi
                } else {
                    QuantityFormat::BinarySi
                }
            }
        };
        if magnitude > MAX_ABS_NANOS {
            return Err(QuantityError::new(QuantityErrorKind::OutOfRange, s));
        }
        let nanos = i128::try_from(magnitude)
            .map_err(|_| QuantityError::new(QuantityErrorKind::OutOfRange, s))?;
        Ok(Quantity {
            nanos: if negative { -nanos } else { nanos },
            format,
        })
    }

    /// Reads a quantity from a JSON value, as the Kubernetes API server does.
    ///
    /// * A string is parsed with [`Quantity::parse`] after trimming leading
    ///   and trailing whitespace (apimachinery's `UnmarshalJSON` trims too, so
    ///   `" 500m"` is accepted there).
    /// * A number is accepted too (`cpu: 2`, `cpu: 0.5`): integers exactly,
    ///   floating-point numbers through their shortest decimal representation
    ///   (`0.1` reads as exactly one tenth, never as its binary
    ///   approximation).
    /// * Anything else (null, booleans, arrays, objects) is an error of kind
    ///   [`QuantityErrorKind::NotAQuantity`].
    ///
    /// ```
    /// use serde_json::json;
    /// use workload_lens::Quantity;
    ///
    /// assert_eq!(Quantity::from_json(&json!(0.5))?.to_canonical_string(), "500m");
    /// assert_eq!(Quantity::from_json(&json!("4Gi"))?.ceil_to_u64(), 4 << 30);
    /// assert!(Quantity::from_json(&json!(true)).is_err());
    /// # Ok::<(), workload_lens::QuantityError>(())
    /// ```
    pub fn from_json(v: &Value) -> Result<Quantity, QuantityError> {
        match v {
            Value::String(s) => Quantity::parse(s.trim()),
            Value::Number(n) => Quantity::parse(&n.to_string()),
            Value::Null => Err(not_a_quantity("null")),
            Value::Bool(_) => Err(not_a_quantity("a boolean")),
            Value::Array(_) => Err(not_a_quantity("an array")),
            Value::Object(_) => Err(not_a_quantity("an object")),
        }
    }

    /// The format family remembered from the input (or from the left operand
    /// of an addition); it only affects [`to_canonical_string`].
    ///
    /// [`to_canonical_string`]: Quantity::to_canonical_string
    pub fn format(&self) -> QuantityFormat {
        self.format
    }

    /// The exact value in nano-units (10⁻⁹ units).
    pub fn nanos(&self) -> i128 {
        self.nanos
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.nanos == 0
    }

    /// Whether the value is below zero.
    pub fn is_negative(&self) -> bool {
        self.nanos < 0
    }

    /// The canonical Kubernetes spelling of the quantity, exactly what
    /// apimachinery's `Quantity.String()` computes.
    ///
    /// * Zero is `0`.
    /// * Binary SI values that are whole numbers of magnitude at least 1024
    ///   use the largest power-of-1024 suffix that divides them
    ///   (`1024Mi` → `1Gi`, `1536Mi` → `1536Mi`, `1025Ki` → `1025Ki`);
    ///   other binary SI values are printed as decimal SI
    ///   (`0.1Gi` → `107374182400m`, `0.5Ki` → `512`).
    /// * Decimal SI and decimal exponent values use the largest exponent that
    ///   is a multiple of three and keeps the mantissa an integer
    ///   (`1000m` → `1`, `0.5` → `500m`, `1000` → `1k`, `12e6` → `12e6`,
    ///   `1.5e3` → `1500`). Decimal SI values beyond the `E` suffix fall back
    ///   to exponent notation (`1000E` → `1e21`), as current apimachinery does.
    ///
    /// Apimachinery has no binary suffix beyond `Ei`; a binary SI value that
    /// is a multiple of 1024⁷ (only reachable through arithmetic) is printed
    /// with `Ei` and a larger mantissa (`1024Ei`) instead of losing its
    /// suffix.
    ///
    /// Note: apimachinery's `String()` may echo a parsed input verbatim when
    /// it considers it canonical already (so `"+1"` can print as `+1`); this
    /// function always computes the canonical form, which parses back to the
    /// same value.
    pub fn to_canonical_string(&self) -> String {
        if self.nanos == 0 {
            return "0".to_owned();
        }
        let whole = self.nanos % NANOS_PER_UNIT == 0;
        let large = self.nanos.unsigned_abs() >= 1024 * NANOS_PER_UNIT.unsigned_abs();
        if self.format == QuantityFormat::BinarySi && whole && large {
            let mut mantissa = self.nanos / NANOS_PER_UNIT;
            let mut power = 0;
            while power < MAX_BINARY_POWER && mantissa % 1024 == 0 {
                mantissa /= 1024;
                power += 1;
            }
            return format!("{mantissa}{}", binary_suffix(power));
        }

        // Move every factor of 1000 into the exponent; the nano exponent -9 is
        // a multiple of three, so this is "strip all factors of ten, then step
        // the exponent down to a multiple of three" as apimachinery does.
        let mut mantissa = self.nanos;
        let mut exponent: i32 = -9;
        while mantissa % 1000 == 0 {
            mantissa /= 1000;
            exponent += 3;
        }
        if self.format == QuantityFormat::DecimalExponent {
            if exponent == 0 {
                format!("{mantissa}")
            } else {
                format!("{mantissa}e{exponent}")
            }
        } else {
            match decimal_suffix(exponent) {
                Some(suffix) => format!("{mantissa}{suffix}"),
                None => format!("{mantissa}e{exponent}"),
            }
        }
    }

    /// The exact sum `self + other`.
    ///
    /// The result keeps `self`'s format unless `self` is zero, in which case
    /// it takes `other`'s (apimachinery's `Quantity.Add`), so
    /// `1Gi + 512Mi` prints as `1536Mi` and `0 + 1Gi` as `1Gi`.
    ///
    /// Fails with [`QuantityErrorKind::Overflow`] when the magnitude of the
    /// sum would exceed 2⁹⁶.
    pub fn add(&self, other: &Quantity) -> Result<Quantity, QuantityError> {
        let format = if self.is_zero() {
            other.format
        } else {
            self.format
        };
        self.nanos
            .checked_add(other.nanos)
            .filter(|n| n.unsigned_abs() <= MAX_ABS_NANOS)
            .map(|nanos| Quantity { nanos, format })
            .ok_or_else(|| QuantityError::overflow(format!("{self} + {other}")))
    }

    /// The exact product `self × n`, keeping `self`'s format.
    ///
    /// Fails with [`QuantityErrorKind::Overflow`] when the magnitude of the
    /// product would exceed 2⁹⁶.
    pub fn mul_u64(&self, n: u64) -> Result<Quantity, QuantityError> {
        self.nanos
            .checked_mul(i128::from(n))
            .filter(|v| v.unsigned_abs() <= MAX_ABS_NANOS)
            .map(|nanos| Quantity {
                nanos,
                format: self.format,
            })
            .ok_or_else(|| QuantityError::overflow(format!("{self} * {n}")))
    }

    /// The larger of `self` and `other` by value; on a tie `self` is kept
    /// (with its format), as apimachinery's resource-list maximum does.
    ///
    /// [`Ord::max`] is available as well, but returns its *second* argument
    /// on a tie.
    pub fn max_with(&self, other: &Quantity) -> Quantity {
        if other.nanos > self.nanos {
            other.clone()
        } else {
            self.clone()
        }
    }

    /// The value rounded away from zero to a whole number of milli-units,
    /// keeping the format.
    ///
    /// The Kubernetes API server applies this to every quantity of a
    /// `ResourceList` when it stores an object (`SetDefaults_ResourceList`),
    /// so `1500u` of CPU is stored, and scheduled, as `2m`.
    pub fn round_up_to_milli(&self) -> Quantity {
        // In 64 bits where the value fits them (the same arithmetic).
        let rem = match i64::try_from(self.nanos) {
            Ok(n) => i128::from(n % NANOS_PER_MILLI_64),
            Err(_) => self.nanos % NANOS_PER_MILLI,
        };
        // `MAX_ABS_NANOS` is a multiple of a milli-unit, so the rounded value
        // stays in range and the arithmetic cannot overflow.
        let nanos = if rem == 0 {
            self.nanos
        } else if self.nanos > 0 {
            self.nanos - rem + NANOS_PER_MILLI
        } else {
            self.nanos - rem - NANOS_PER_MILLI
        };
        Quantity {
            nanos,
            format: self.format,
        }
    }

    /// The value rounded up to a whole number, as a `u64`: negative values
    /// give `0` and values above `u64::MAX` give `u64::MAX`.
    ///
    /// For display only: it clamps. Totals use [`checked_ceil_u64`], which
    /// refuses what does not fit.
    ///
    /// [`checked_ceil_u64`]: Quantity::checked_ceil_u64
    pub fn ceil_to_u64(&self) -> u64 {
        self.checked_ceil_u64().unwrap_or_else(|e| match e.kind {
            QuantityErrorKind::Negative => 0,
            _ => u64::MAX,
        })
    }

    /// The value in milli-units rounded up, as a `u64`: negative values give
    /// `0` and values above `u64::MAX` give `u64::MAX`.
    ///
    /// For display only: it clamps. Totals use [`checked_milli_ceil_u64`],
    /// which refuses what does not fit.
    ///
    /// [`checked_milli_ceil_u64`]: Quantity::checked_milli_ceil_u64
    pub fn milli_ceil_u64(&self) -> u64 {
        self.checked_milli_ceil_u64()
            .unwrap_or_else(|e| match e.kind {
                QuantityErrorKind::Negative => 0,
                _ => u64::MAX,
            })
    }

    /// The value rounded up to a whole number, as a `u64`, never clamped:
    /// a negative value is an error of kind [`QuantityErrorKind::Negative`]
    /// and one above `u64::MAX` of kind [`QuantityErrorKind::Overflow`].
    ///
    /// Used for byte counts (memory, storage) and device counts
    /// (`nvidia.com/gpu`): `1.5Gi` → `1610612736`, `0.5` → `1`.
    ///
    /// ```
    /// use workload_lens::Quantity;
    ///
    /// assert_eq!(Quantity::parse("1.5Gi")?.checked_ceil_u64()?, 1_610_612_736);
    /// assert!(Quantity::parse("1e20")?.checked_ceil_u64().is_err());
    /// assert!(Quantity::parse("-1")?.checked_ceil_u64().is_err());
    /// # Ok::<(), workload_lens::QuantityError>(())
    /// ```
    pub fn checked_ceil_u64(&self) -> Result<u64, QuantityError> {
        self.checked_ceil_div(NANOS_PER_UNIT, "units")
    }

    /// The value in milli-units rounded up, as a `u64`, never clamped (see
    /// [`checked_ceil_u64`](Quantity::checked_ceil_u64) for the errors).
    ///
    /// Used for CPU in millicores: `500m` → `500`, `2` → `2000`,
    /// `1.0001` → `1001`.
    pub fn checked_milli_ceil_u64(&self) -> Result<u64, QuantityError> {
        self.checked_ceil_div(NANOS_PER_MILLI, "milli-units")
    }

    /// `ceil(nanos / unit)` as a `u64` (`unit` is positive).
    fn checked_ceil_div(&self, unit: i128, unit_name: &str) -> Result<u64, QuantityError> {
        if self.nanos < 0 {
            return Err(QuantityError::new(
                QuantityErrorKind::Negative,
                &self.to_canonical_string(),
            ));
        }
        // In 64 bits where the value fits them (every quantity in practice):
        // a 128-bit division is a call, a 64-bit one an instruction.
        if let (Ok(n), Ok(u)) = (u64::try_from(self.nanos), u64::try_from(unit)) {
            return Ok(n / u + u64::from(n % u != 0));
        }
        let quotient = self.nanos / unit + i128::from(self.nanos % unit != 0);
        u64::try_from(quotient).map_err(|_| QuantityError::u64_overflow(self, unit_name))
    }

    /// The value as the nearest-ish `f64`, for display or ratios only; it may
    /// lose precision and must not be fed back into exact computations.
    pub fn to_f64_lossy(&self) -> f64 {
        // Split so that large values do not lose the fractional part first.
        let whole = self.nanos / NANOS_PER_UNIT;
        let frac = self.nanos % NANOS_PER_UNIT;
        whole as f64 + frac as f64 / 1e9
    }
}

/// At most `max` bytes of `s`, cut at a character boundary.
fn truncate(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or_default()
}

/// Splits `s` into its leading ASCII digits and the rest.
fn split_digits(s: &str) -> (&str, &str) {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    s.split_at_checked(end).unwrap_or((s, ""))
}

fn not_a_quantity(found: &str) -> QuantityError {
    QuantityError::with_detail(QuantityErrorKind::NotAQuantity, "", found)
}

/// Interprets the text after the number.
fn parse_suffix(input: &str, suffix: &str) -> Result<Suffix, QuantityError> {
    let parsed = match suffix {
        "" => Suffix::Decimal(0),
        "n" => Suffix::Decimal(-9),
        "u" => Suffix::Decimal(-6),
        "m" => Suffix::Decimal(-3),
        "k" => Suffix::Decimal(3),
        "M" => Suffix::Decimal(6),
        "G" => Suffix::Decimal(9),
        "T" => Suffix::Decimal(12),
        "P" => Suffix::Decimal(15),
        "E" => Suffix::Decimal(18),
        "Ki" => Suffix::Binary(1),
        "Mi" => Suffix::Binary(2),
        "Gi" => Suffix::Binary(3),
        "Ti" => Suffix::Binary(4),
        "Pi" => Suffix::Binary(5),
        "Ei" => Suffix::Binary(6),
        _ => {
            if let Some(exponent) = suffix.strip_prefix(['e', 'E']) {
                return parse_exponent(input, exponent).map(Suffix::Exponent);
            }
            // A second decimal point, a stray sign or digit after the number:
            // the number itself is malformed.
            if suffix.starts_with(|c: char| c == '.' || c == '+' || c == '-' || c.is_ascii_digit())
            {
                return Err(QuantityError::new(QuantityErrorKind::InvalidNumber, input));
            }
            return Err(QuantityError::with_detail(
                QuantityErrorKind::InvalidSuffix,
                input,
                suffix,
            ));
        }
    };
    Ok(parsed)
}

/// Parses the signed integer after `e`/`E`.
fn parse_exponent(input: &str, text: &str) -> Result<i32, QuantityError> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(QuantityError::new(
            QuantityErrorKind::InvalidExponent,
            input,
        ));
    }
    text.parse::<i32>()
        .map_err(|_| QuantityError::new(QuantityErrorKind::OutOfRange, input))
}

/// The exact magnitude of `<int_digits>.<frac_digits><suffix>` in nano-units,
/// rounded up to a whole nano-unit. Both digit strings are ASCII digits only.
fn magnitude_nanos(
    int_digits: &str,
    frac_digits: &str,
    suffix: Suffix,
) -> Result<u128, QuantityErrorKind> {
    if let Some(m) = magnitude_small(int_digits, frac_digits, suffix) {
        return m;
    }
    magnitude_big(int_digits, frac_digits, suffix)
}

/// [`magnitude_nanos`] in 128-bit integers, for the quantities written with
/// at most 19 digits (all of them in practice); `None` where a product
/// would not fit, which [`magnitude_big`] then decides.
fn magnitude_small(
    int_digits: &str,
    frac_digits: &str,
    suffix: Suffix,
) -> Option<Result<u128, QuantityErrorKind>> {
    if int_digits.len() + frac_digits.len() > 19 {
        return None;
    }
    // Below 10^19 < 2^64.
    let mut digits: u64 = 0;
    for b in int_digits.bytes().chain(frac_digits.bytes()) {
        digits = digits * 10 + u64::from(b.saturating_sub(b'0'));
    }
    if digits == 0 {
        return Some(Ok(0));
    }
    let frac_len = i64::try_from(frac_digits.len()).ok()?;
    let (exp10, binary_power) = match suffix {
        Suffix::Decimal(e) | Suffix::Exponent(e) => (i64::from(e) + 9 - frac_len, 0),
        Suffix::Binary(p) => (9 - frac_len, p),
    };
    // × 1024^power: a shift, where it does not overflow.
    let shift = binary_power.checked_mul(10)?;
    let mut value = u128::from(digits);
    if shift > 0 {
        if value.leading_zeros() < shift {
            return None;
        }
        value <<= shift;
    }
    let Ok(k) = usize::try_from(exp10.unsigned_abs()) else {
        return None;
    };
    if exp10 >= 0 {
        // One multiplication by the power of ten (none above 10^38 fits).
        value = value.checked_mul(*POW10.get(k)?)?;
        return Some(Ok(value));
    }
    // Divided by 10^k, rounded away from zero to a whole nano-unit (a
    // divisor above every u128 leaves nothing but the rounding).
    let (quotient, inexact) = match POW10.get(k) {
        Some(&p) => (value / p, value % p != 0),
        None => (0, true),
    };
    Some(
        quotient
            .checked_add(u128::from(inexact))
            .ok_or(QuantityErrorKind::OutOfRange),
    )
}

/// The powers of ten a `u128` holds: 10^0 to 10^38.
const POW10: [u128; 39] = {
    let mut t = [1u128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// [`magnitude_nanos`] in arbitrary precision.
fn magnitude_big(
    int_digits: &str,
    frac_digits: &str,
    suffix: Suffix,
) -> Result<u128, QuantityErrorKind> {
    let mut value = BigUint::default();
    for b in int_digits.bytes().chain(frac_digits.bytes()) {
        value.mul_add_small(10, u32::from(b.saturating_sub(b'0')));
    }
    if value.is_zero() {
        return Ok(0);
    }
    let frac_len = i64::try_from(frac_digits.len()).map_err(|_| QuantityErrorKind::OutOfRange)?;
    // value * 10^exp10 * 1024^binary_power is the magnitude in nano-units.
    let (exp10, binary_power) = match suffix {
        Suffix::Decimal(e) | Suffix::Exponent(e) => (i64::from(e) + 9 - frac_len, 0),
        Suffix::Binary(p) => (9 - frac_len, p),
    };
    for _ in 0..binary_power {
        value.mul_add_small(1024, 0);
    }
    let mut inexact = false;
    if exp10 >= 0 {
        for _ in 0..exp10 {
            value.mul_add_small(10, 0);
            if value.limbs.len() > 4 {
                return Err(QuantityErrorKind::OutOfRange);
            }
        }
    } else {
        for _ in 0..exp10.unsigned_abs() {
            if value.div10() != 0 {
                inexact = true;
            }
            if value.is_zero() {
                break;
            }
        }
    }
    let exact = value.to_u128().ok_or(QuantityErrorKind::OutOfRange)?;
    exact
        .checked_add(u128::from(inexact))
        .ok_or(QuantityErrorKind::OutOfRange)
}

/// The decimal SI suffix for a power of ten, if there is one.
fn decimal_suffix(exponent: i32) -> Option<&'static str> {
    Some(match exponent {
        -9 => "n",
        -6 => "u",
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        18 => "E",
        _ => return None,
    })
}

/// The binary SI suffix for a power of 1024 (`0..=6`).
fn binary_suffix(power: u32) -> &'static str {
    match power {
        0 => "",
        1 => "Ki",
        2 => "Mi",
        3 => "Gi",
        4 => "Ti",
        5 => "Pi",
        _ => "Ei",
    }
}

/// A minimal unsigned big integer (little-endian base-2^32 limbs, no
/// trailing zero limbs), just enough to evaluate quantity text exactly.
#[derive(Default)]
struct BigUint {
    limbs: Vec<u32>,
}

impl BigUint {
    /// `self = self * mul + add`.
    fn mul_add_small(&mut self, mul: u32, add: u32) {
        let mut carry = u64::from(add);
        for limb in &mut self.limbs {
            // (2^32-1)^2 + (2^32-1) < 2^64: cannot overflow.
            let v = u64::from(*limb) * u64::from(mul) + carry;
            *limb = (v & 0xFFFF_FFFF) as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.limbs.push((carry & 0xFFFF_FFFF) as u32);
        }
    }

    /// `self = self / 10`, returning the remainder.
    fn div10(&mut self) -> u32 {
        let mut rem: u64 = 0;
        for limb in self.limbs.iter_mut().rev() {
            let cur = (rem << 32) | u64::from(*limb);
            *limb = ((cur / 10) & 0xFFFF_FFFF) as u32;
            rem = cur % 10;
        }
        while self.limbs.last() == Some(&0) {
            self.limbs.pop();
        }
        (rem & 0xF) as u32
    }

    fn is_zero(&self) -> bool {
        self.limbs.iter().all(|&l| l == 0)
    }

    fn to_u128(&self) -> Option<u128> {
        let mut v: u128 = 0;
        for &limb in self.limbs.iter().rev() {
            if v >> 96 != 0 {
                return None;
            }
            v = (v << 32) | u128::from(limb);
        }
        Some(v)
    }
}

impl Default for Quantity {
    /// The quantity `0`.
    fn default() -> Quantity {
        Quantity::zero()
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Quantity) -> bool {
        self.nanos == other.nanos
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Quantity) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    /// Numeric order; the format is ignored.
    fn cmp(&self, other: &Quantity) -> Ordering {
        self.nanos.cmp(&other.nanos)
    }
}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.nanos.hash(state);
    }
}

impl fmt::Display for Quantity {
    /// The canonical string ([`Quantity::to_canonical_string`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_canonical_string())
    }
}

impl fmt::Debug for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Quantity({}, {})",
            self.to_canonical_string(),
            self.format.as_str()
        )
    }
}

impl FromStr for Quantity {
    type Err = QuantityError;

    /// Same as [`Quantity::parse`].
    fn from_str(s: &str) -> Result<Quantity, QuantityError> {
        Quantity::parse(s)
    }
}

impl Serialize for Quantity {
    /// Serializes as the canonical string, e.g. `"1536Mi"`.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_canonical_string())
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Quantity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Quantity".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "A Kubernetes resource quantity in canonical form, e.g. `2`, `500m`, `4Gi`."
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The 64-bit shortcuts of rounding and of the whole counts give what
    /// the 128-bit arithmetic gives, at the edges of both widths.
    #[test]
    fn sixty_four_bit_shortcuts_are_the_wide_arithmetic() {
        let edges: [i128; 8] = [
            0,
            1,
            999_999,
            1_000_000,
            1_000_001,
            i128::from(i64::MAX),
            i128::from(u64::MAX),
            MAX_ABS_NANOS as i128,
        ];
        let mut values = Vec::new();
        for e in edges {
            for d in -3..=3 {
                for sign in [1, -1] {
                    let v = (e + d) * sign;
                    if v.unsigned_abs() <= MAX_ABS_NANOS {
                        values.push(v);
                    }
                }
            }
        }
        for nanos in values {
            let q = Quantity {
                nanos,
                format: QuantityFormat::DecimalSi,
            };
            let rem = nanos % NANOS_PER_MILLI;
            let rounded = match rem {
                0 => nanos,
                _ if nanos > 0 => nanos - rem + NANOS_PER_MILLI,
                _ => nanos - rem - NANOS_PER_MILLI,
            };
            assert_eq!(q.round_up_to_milli().nanos, rounded, "{nanos}");
            for (unit, got) in [
                (NANOS_PER_UNIT, q.checked_ceil_u64()),
                (NANOS_PER_MILLI, q.checked_milli_ceil_u64()),
            ] {
                let want = (nanos >= 0)
                    .then(|| u64::try_from(nanos / unit + i128::from(nanos % unit != 0)).ok())
                    .flatten();
                assert_eq!(got.ok(), want, "{nanos} / {unit}");
            }
        }
    }

    /// The 128-bit magnitude is the arbitrary-precision one wherever it
    /// answers, and it answers for every quantity of at most 19 digits
    /// whose magnitude fits.
    #[test]
    fn small_magnitudes_are_the_big_ones() {
        let digits = |n: usize, seed: u64| -> String {
            let mut x = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (0..n)
                .map(|i| {
                    x = x
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    match seed % 4 {
                        0 => '9',
                        1 if i == 0 => '1',
                        1 => '0',
                        2 if i + 1 == n => '5',
                        2 => '0',
                        _ => char::from(b'0' + ((x >> 33) % 10) as u8),
                    }
                })
                .collect()
        };
        let mut suffixes: Vec<Suffix> = (-40..=40).map(Suffix::Exponent).collect();
        suffixes.extend([-9, -6, -3, 0, 3, 6, 9, 12, 15, 18].map(Suffix::Decimal));
        suffixes.extend((1..=6).map(Suffix::Binary));
        let (mut compared, mut answered) = (0, 0);
        for total in 0..=22 {
            for frac in 0..=total {
                for seed in 0..6 {
                    let int = digits(total - frac, seed);
                    let fr = digits(frac, seed + 7);
                    for &suffix in &suffixes {
                        compared += 1;
                        let big = magnitude_big(&int, &fr, suffix);
                        match magnitude_small(&int, &fr, suffix) {
                            Some(small) => {
                                answered += 1;
                                assert_eq!(small, big, "{int}.{fr} {suffix:?}");
                            }
                            None => assert!(
                                total > 19 || big.is_err(),
                                "{int}.{fr} {suffix:?}: {big:?}"
                            ),
                        }
                    }
                }
            }
        }
        assert!(answered > compared / 2, "{answered} of {compared}");
    }

    fn q(s: &str) -> Quantity {
        match Quantity::parse(s) {
            Ok(q) => q,
            Err(e) => panic!("{s:?} should parse: {e}"),
        }
    }

    fn canon(s: &str) -> String {
        q(s).to_canonical_string()
    }

    fn err_kind(s: &str) -> QuantityErrorKind {
        match Quantity::parse(s) {
            Ok(v) => panic!("{s:?} should not parse, got {v:?}"),
            Err(e) => e.kind(),
        }
    }

    const GI: i128 = 1 << 30;
    const N: i128 = NANOS_PER_UNIT;

    #[test]
    fn accepts_the_grammar() {
        let table: &[(&str, i128)] = &[
            ("0", 0),
            ("1", N),
            ("+1", N),
            ("-1", -N),
            ("007", 7 * N),
            ("1.25", 1_250_000_000),
            (".5", 500_000_000),
            ("5.", 5 * N),
            ("1.G", N * 1_000_000_000),
            ("500m", 500_000_000),
            ("5n", 5),
            ("4u", 4_000),
            ("8k", 8_000 * N),
            ("7M", 7_000_000 * N),
            ("6G", 6_000_000_000 * N),
            ("5T", 5_000_000_000_000 * N),
            ("2P", 2_000_000_000_000_000 * N),
            ("1E", 1_000_000_000_000_000_000 * N),
            ("1Ki", 1024 * N),
            ("7Mi", 7 * (1 << 20) * N),
            ("6Gi", 6 * GI * N),
            ("5Ti", 5 * (1 << 40) * N),
            ("4Pi", 4 * (1 << 50) * N),
            ("3Ei", 3 * (1 << 60) * N),
            ("1e3", 1_000 * N),
            ("1E3", 1_000 * N),
            ("1e+3", 1_000 * N),
            ("1E-3", 1_000_000),
            ("1.3E+6", 1_300_000 * N),
            ("1.2e3", 1_200 * N),
            ("0.5e-2", 5_000_000),
            ("100.035k", 100_035 * N),
            ("0.0005k", 500_000_000),
            ("-1.5Gi", -(3 * GI / 2) * N),
            ("100.035Ki", 102_435_840_000_000),
            ("0.5Mi", (1 << 19) * N),
            ("0.05Gi", 53_687_091_200_000_000),
            ("1e0", N),
            ("0e999999", 0),
            ("0.0", 0),
            ("-0", 0),
        ];
        for &(input, nanos) in table {
            assert_eq!(q(input).nanos(), nanos, "{input}");
        }
    }

    #[test]
    fn fractional_binary_is_exact() {
        // 100.035 * 1024 = 102435.84
        assert_eq!(q("100.035Ki").nanos(), 102_435_840_000_000);
        assert_eq!(q("0.1Gi").nanos(), 107_374_182_400_000_000);
        assert_eq!(q("0.025Ti").nanos(), 27_487_790_694_400_000_000);
    }

    #[test]
    fn rounds_away_from_zero_to_nano() {
        let table: &[(&str, i128)] = &[
            ("3.001n", 4),
            ("1.1E-9", 2),
            ("0.0000000001", 1),
            ("0.0000000005", 1),
            ("0.00000000050", 1),
            ("0.5e-9", 1),
            ("0.9n", 1),
            ("0.00000012345", 124),
            ("0.00000012354", 124),
            ("-0.9n", -1),
            ("1e-300", 1),
            ("0.000000000001Ki", 2),
            ("1.0000000000000000000000000000000000000000000000001", N + 1),
            ("0.0000000000000000000000000000000000000000000000000", 0),
        ];
        for &(input, nanos) in table {
            assert_eq!(q(input).nanos(), nanos, "{input}");
        }
    }

    #[test]
    fn binary_si_is_capped_like_apimachinery() {
        let cap = i128::from(i64::MAX) * N;
        assert_eq!(q("8Ei").nanos(), cap);
        assert_eq!(q("9Ei").nanos(), cap);
        assert_eq!(q("9223372036854775807Ki").nanos(), cap);
        assert_eq!(q("-16Ei").nanos(), -cap);
        assert_eq!(q("8Ei").to_canonical_string(), "9223372036854775807");
        // Decimal quantities are not capped.
        assert_eq!(q("18446744073709551616").nanos(), (1i128 << 64) * N);
    }

    #[test]
    fn rejects_malformed_text() {
        use QuantityErrorKind::*;
        let table: &[(&str, QuantityErrorKind)] = &[
            ("", Empty),
            (" 1", Whitespace),
            ("1 ", Whitespace),
            ("1\t", Whitespace),
            ("1 Gi", Whitespace),
            // Every whitespace `char::is_whitespace` knows, ASCII or not.
            ("1\u{b}", Whitespace),
            ("1\u{c}Gi", Whitespace),
            ("1\r", Whitespace),
            ("1\n", Whitespace),
            ("1\u{a0}", Whitespace),
            ("1\u{2003}Gi", Whitespace),
            ("abc", InvalidNumber),
            ("aoeu", InvalidNumber),
            ("-", InvalidNumber),
            ("+", InvalidNumber),
            (".", InvalidNumber),
            ("-.", InvalidNumber),
            ("+-1", InvalidNumber),
            ("--1", InvalidNumber),
            ("1.2.3", InvalidNumber),
            ("1.1.M", InvalidNumber),
            ("1+1.0M", InvalidNumber),
            ("1-", InvalidNumber),
            ("Gi", InvalidNumber),
            ("1KB", InvalidSuffix),
            ("1K", InvalidSuffix),
            ("1b", InvalidSuffix),
            ("1ki", InvalidSuffix),
            ("0.1mi", InvalidSuffix),
            ("0.1am", InvalidSuffix),
            (".5i", InvalidSuffix),
            ("1i", InvalidSuffix),
            ("-3.01i", InvalidSuffix),
            ("1Gi2", InvalidSuffix),
            ("1k3", InvalidSuffix),
            ("1KiB", InvalidSuffix),
            ("1m m", Whitespace),
            ("1\u{e9}", InvalidSuffix),
            ("1e", InvalidExponent),
            ("1E+", InvalidExponent),
            ("-3.01e-", InvalidExponent),
            ("1e1.5", InvalidExponent),
            ("1e3m", InvalidExponent),
            ("1ee3", InvalidExponent),
            ("1e99999999999", OutOfRange),
            ("1e29", OutOfRange),
            ("1e40", OutOfRange),
            ("100000000000000000000000000000", OutOfRange),
            ("1E999", OutOfRange),
        ];
        for &(input, kind) in table {
            assert_eq!(err_kind(input), kind, "{input:?}");
        }
        let long = "1".repeat(MAX_QUANTITY_LEN + 1);
        assert_eq!(err_kind(&long), TooLong);
        // Exactly the limit is fine (if the value is in range).
        let ok = format!("0.{}", "0".repeat(MAX_QUANTITY_LEN - 3) + "1");
        assert_eq!(ok.len(), MAX_QUANTITY_LEN);
        assert_eq!(q(&ok).nanos(), 1);
    }

    #[test]
    fn range_limit_is_two_to_the_96() {
        // 2^96 = 79228162514264337593543950336 is allowed, one more nano is not.
        assert_eq!(
            q("79228162514264337593543950336").nanos(),
            (1i128 << 96) * N
        );
        assert_eq!(
            err_kind("79228162514264337593543950336.000000001"),
            QuantityErrorKind::OutOfRange
        );
        assert_eq!(
            err_kind("-79228162514264337593543950337"),
            QuantityErrorKind::OutOfRange
        );
    }

    #[test]
    fn error_messages_are_actionable() {
        let msg = |s: &str| match Quantity::parse(s) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        assert_eq!(
            msg("abc"),
            "invalid quantity \"abc\": expected a number with an optional suffix (e.g. 500m, 2, 4Gi)"
        );
        assert!(
            msg("1KB").contains("unknown suffix \"KB\""),
            "{}",
            msg("1KB")
        );
        assert!(msg("1KB").contains("Ki, Mi, Gi"));
        assert!(msg("1e").contains("followed by an integer"));
        assert!(msg(" 1").contains("whitespace"));
        assert!(msg("").contains("empty"));
        assert!(msg("1e40").contains("2^96"));
        let long = "9".repeat(100);
        assert!(msg(&long).contains("longer than 64"));
        assert!(!msg(&long).contains(&"9".repeat(65)));
        let e = match Quantity::from_json(&json!({"a": 1})) {
            Ok(_) => String::new(),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("found an object"), "{e}");
        // std::error::Error is implemented.
        let boxed: Box<dyn std::error::Error> =
            Box::new(QuantityError::new(QuantityErrorKind::InvalidNumber, "x"));
        assert!(boxed.to_string().contains("\"x\""));
    }

    #[test]
    fn canonical_strings() {
        let table: &[(&str, &str)] = &[
            ("0", "0"),
            ("0m", "0"),
            ("0Ki", "0"),
            ("0e3", "0"),
            ("-0", "0"),
            ("1000m", "1"),
            ("1500m", "1500m"),
            ("2000m", "2"),
            ("0.5", "500m"),
            ("0.001", "1m"),
            ("1.5", "1500m"),
            ("1.08", "1080m"),
            ("100m", "100m"),
            ("1", "1"),
            ("+1", "1"),
            ("007", "7"),
            ("1000", "1k"),
            ("100k", "100k"),
            ("1000M", "1G"),
            ("0.001T", "1G"),
            ("1234567M", "1234567M"),
            ("1000u", "1m"),
            ("1080000000n", "1080m"),
            ("1n", "1n"),
            ("1080n", "1080n"),
            ("12E", "12E"),
            ("1000E", "1e21"),
            ("5000E", "5e21"),
            ("1e3", "1e3"),
            ("1e9", "1e9"),
            ("12e6", "12e6"),
            ("1E6", "1e6"),
            ("1e14", "100e12"),
            (".001e12", "1e9"),
            ("0.001e0", "1e-3"),
            ("1000e-12", "1e-9"),
            ("1.5e3", "1500"),
            ("0.5e0", "500e-3"),
            ("1e0", "1"),
            ("1000e0", "1e3"),
            ("4Gi", "4Gi"),
            ("4096Mi", "4Gi"),
            ("1024Mi", "1Gi"),
            ("1536Mi", "1536Mi"),
            ("1.5Gi", "1536Mi"),
            ("0.5Gi", "512Mi"),
            ("500Mi", "500Mi"),
            ("307200Ki", "300Mi"),
            ("1025024Mi", "1001Gi"),
            ("1024Gi", "1Ti"),
            ("1Ki", "1Ki"),
            ("1025Ki", "1025Ki"),
            ("3Ei", "3Ei"),
            ("0.1Gi", "107374182400m"),
            ("0.5Ki", "512"),
            (".001Ki", "1024m"),
            (".000001Ki", "1024u"),
            (".000000001Ki", "1024n"),
            (".000000000001Ki", "2n"),
            ("1.0000001Ki", "1024000102400n"),
            ("-1Ki", "-1Ki"),
            ("-1.5Gi", "-1536Mi"),
            ("-1500m", "-1500m"),
            ("-9.01", "-9010m"),
            ("-12e6", "-12e6"),
            ("1073741824", "1073741824"),
        ];
        for &(input, expected) in table {
            assert_eq!(canon(input), expected, "canonical form of {input:?}");
        }
    }

    #[test]
    fn canonical_from_nanos_matches_apimachinery_table() {
        use QuantityFormat::*;
        // (value in nanos, format, String()) from apimachinery TestQuantityString.
        let table: &[(i128, QuantityFormat, &str)] = &[
            (GI * N, BinarySi, "1Gi"),
            (300 * (1 << 20) * N, BinarySi, "300Mi"),
            (6 * 1024 * N, BinarySi, "6Ki"),
            (5 * N, BinarySi, "5"),
            (500_000_000, BinarySi, "500m"),
            (1_234_567_000_000, BinarySi, "1234567m"),
            (1025 * N, BinarySi, "1025"),
            (0, BinarySi, "0"),
            (N * 1_000_000_000, DecimalSi, "1G"),
            (80_000_000, DecimalSi, "80m"),
            (N * 1_000_000_000_000, DecimalSi, "1T"),
            (N * 1_000_000_000_000_000_000, DecimalSi, "1E"),
            (N * 1_000_000_000_000_000_000_000, DecimalSi, "1e21"),
            (3_000 * N, DecimalSi, "3k"),
            (80, DecimalSi, "80n"),
            (80_000, DecimalSi, "80u"),
            (1_080_000, DecimalSi, "1080u"),
            (N * 1_000_000_000, DecimalExponent, "1e9"),
            (1_000_000, DecimalExponent, "1e-3"),
            (1, DecimalExponent, "1e-9"),
            (80_000_000, DecimalExponent, "80e-3"),
            (300_000_000 * N, DecimalExponent, "300e6"),
            (3_000 * N, DecimalExponent, "3e3"),
            (0, DecimalExponent, "0"),
        ];
        for &(nanos, format, expected) in table {
            let v = match Quantity::from_nanos(nanos, format) {
                Ok(v) => v,
                Err(e) => panic!("{e}"),
            };
            assert_eq!(v.to_canonical_string(), expected, "{nanos} {format:?}");
            if nanos != 0 {
                let neg = match Quantity::from_nanos(-nanos, format) {
                    Ok(v) => v,
                    Err(e) => panic!("{e}"),
                };
                assert_eq!(neg.to_canonical_string(), format!("-{expected}"));
            }
        }
        // Beyond Ei (only reachable through arithmetic) the suffix stays Ei.
        let huge = match Quantity::from_nanos((1i128 << 70) * N, BinarySi) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(huge.to_canonical_string(), "1024Ei");
        assert!(Quantity::from_nanos(i128::MAX, DecimalSi).is_err());
    }

    #[test]
    fn formats_remembered_from_input() {
        use QuantityFormat::*;
        let table: &[(&str, QuantityFormat)] = &[
            ("1", DecimalSi),
            ("1m", DecimalSi),
            ("1k", DecimalSi),
            ("1E", DecimalSi),
            ("1Ki", BinarySi),
            ("0Ki", BinarySi),
            ("0.5Ki", BinarySi),
            ("1.5Gi", BinarySi),
            ("0.000000000001Ki", DecimalSi),
            ("0.0001Ki", DecimalSi),
            ("1e3", DecimalExponent),
            ("1E-3", DecimalExponent),
            ("1.1E-9", DecimalExponent),
        ];
        for &(input, format) in table {
            assert_eq!(q(input).format(), format, "{input}");
        }
        assert_eq!(QuantityFormat::BinarySi.as_str(), "BinarySI");
        assert_eq!(QuantityFormat::default(), DecimalSi);
    }

    #[test]
    fn equality_and_order_ignore_format() {
        assert_eq!(q("1Gi"), q("1073741824"));
        assert_eq!(q("1Gi"), q("1073741824000m"));
        assert_eq!(q("1Gi"), q("1.073741824e9"));
        assert_eq!(q("1k"), q("1e3"));
        assert_eq!(q("1000m"), q("1"));
        assert_eq!(q("0.5"), q("500m"));
        assert_eq!(q("0"), q("0Gi"));
        assert_ne!(q("1G"), q("1Gi"));
        assert!(q("1G") < q("1Gi"));
        assert!(q("10000T") > q("100Gi"));
        assert!(q("100m") > q("50m"));
        assert!(q("-1") < q("0"));
        assert_eq!(q("2").cmp(&q("2000m")), Ordering::Equal);

        use std::collections::HashSet;
        let set: HashSet<Quantity> = ["1Gi", "1073741824", "1024Mi", "1G"]
            .iter()
            .map(|s| q(s))
            .collect();
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn addition_keeps_left_format_unless_zero() {
        let sum = |a: &str, b: &str| match q(a).add(&q(b)) {
            Ok(v) => v.to_canonical_string(),
            Err(e) => panic!("{e}"),
        };
        assert_eq!(sum("1Gi", "512Mi"), "1536Mi");
        assert_eq!(sum("500m", "1"), "1500m");
        assert_eq!(sum("1", "1Gi"), "1073741825");
        assert_eq!(sum("1G", "1Gi"), "2073741824");
        assert_eq!(sum("0", "1Gi"), "1Gi");
        assert_eq!(sum("1Gi", "0"), "1Gi");
        assert_eq!(sum("0", "100m"), "100m");
        assert_eq!(sum("100m", "0"), "100m");
        assert_eq!(sum("1e3", "1e3"), "2e3");
        assert_eq!(sum("0.5Ki", "1536"), "2Ki");
        assert_eq!(sum("1", "-1"), "0");
        assert_eq!(sum("1Gi", "-1Gi"), "0");
        assert_eq!(sum("3.001n", "1"), "1000000004n");

        let big = q("79228162514264337593543950336");
        let err = match big.add(&q("1n")) {
            Ok(v) => panic!("expected overflow, got {v:?}"),
            Err(e) => e,
        };
        assert_eq!(err.kind(), QuantityErrorKind::Overflow);
        assert!(err.to_string().contains("overflow"));
        assert!(big.add(&big).is_err());
        assert!(big.add(&q("-1")).is_ok());
    }

    #[test]
    fn multiplication() {
        let times = |a: &str, n: u64| match q(a).mul_u64(n) {
            Ok(v) => v.to_canonical_string(),
            Err(e) => panic!("{e}"),
        };
        assert_eq!(times("512Mi", 2), "1Gi");
        assert_eq!(times("500m", 3), "1500m");
        assert_eq!(times("500m", 2), "1");
        assert_eq!(times("1Gi", 0), "0");
        assert_eq!(times("-1", 5), "-5");
        assert_eq!(times("1e3", 1000), "1e6");
        assert!(q("1E").mul_u64(u64::MAX).is_err());
        assert!(q("1").mul_u64(u64::MAX).is_ok());
        assert_eq!(
            q("1n").mul_u64(u64::MAX).map(|v| v.nanos()),
            Ok(i128::from(u64::MAX))
        );
    }

    #[test]
    fn maximum_keeps_self_on_tie() {
        let a = q("1Gi");
        let b = q("1073741824");
        assert_eq!(a.max_with(&b).format(), QuantityFormat::BinarySi);
        assert_eq!(b.max_with(&a).format(), QuantityFormat::DecimalSi);
        assert_eq!(q("1").max_with(&q("2")), q("2"));
        assert_eq!(q("2").max_with(&q("1")), q("2"));
        assert_eq!(q("1").max(q("2")), q("2"));
    }

    #[test]
    fn ceiling_helpers() {
        assert_eq!(q("1.5Gi").ceil_to_u64(), 1_610_612_736);
        assert_eq!(q("0.5").ceil_to_u64(), 1);
        assert_eq!(q("1n").ceil_to_u64(), 1);
        assert_eq!(q("2").ceil_to_u64(), 2);
        assert_eq!(q("0").ceil_to_u64(), 0);
        assert_eq!(q("-5").ceil_to_u64(), 0);
        assert_eq!(q("-0.5").ceil_to_u64(), 0);
        assert_eq!(q("1e28").ceil_to_u64(), u64::MAX);
        assert_eq!(q("18446744073709551615").ceil_to_u64(), u64::MAX);
        assert_eq!(q("18446744073709551614.5").ceil_to_u64(), u64::MAX);
        assert_eq!(q("18446744073709551613.5").ceil_to_u64(), u64::MAX - 1);

        assert_eq!(q("500m").milli_ceil_u64(), 500);
        assert_eq!(q("2").milli_ceil_u64(), 2000);
        assert_eq!(q("1.0001").milli_ceil_u64(), 1001);
        assert_eq!(q("1n").milli_ceil_u64(), 1);
        assert_eq!(q("0").milli_ceil_u64(), 0);
        assert_eq!(q("-100m").milli_ceil_u64(), 0);
        assert_eq!(q("1e20").milli_ceil_u64(), u64::MAX);
        assert_eq!(q("1Ki").milli_ceil_u64(), 1_024_000);

        // The checked forms never clamp.
        assert_eq!(q("1.5Gi").checked_ceil_u64(), Ok(1_610_612_736));
        assert_eq!(q("0").checked_ceil_u64(), Ok(0));
        assert_eq!(q("-0").checked_ceil_u64(), Ok(0));
        assert_eq!(q("18446744073709551615").checked_ceil_u64(), Ok(u64::MAX));
        assert_eq!(q("18446744073709551614.5").checked_ceil_u64(), Ok(u64::MAX));
        for over in [
            "18446744073709551615.001",
            "18446744073709551616",
            "1e28",
            "20E",
        ] {
            let e = q(over).checked_ceil_u64().err();
            assert_eq!(
                e.as_ref().map(QuantityError::kind),
                Some(QuantityErrorKind::Overflow)
            );
            let message = e.map(|e| e.to_string()).unwrap_or_default();
            assert!(
                message.contains("overflow") && message.contains("64-bit"),
                "{message}"
            );
        }
        for negative in ["-1", "-1n", "-0.5"] {
            let e = q(negative).checked_ceil_u64().err();
            assert_eq!(
                e.as_ref().map(QuantityError::kind),
                Some(QuantityErrorKind::Negative)
            );
            let e = q(negative).checked_milli_ceil_u64().err();
            assert_eq!(
                e.as_ref().map(QuantityError::kind),
                Some(QuantityErrorKind::Negative)
            );
        }
        assert_eq!(q("1.0001").checked_milli_ceil_u64(), Ok(1001));
        assert_eq!(
            q("18446744073709551615m").checked_milli_ceil_u64(),
            Ok(u64::MAX)
        );
        let e = q("18446744073709552").checked_milli_ceil_u64().err();
        assert_eq!(
            e.as_ref().map(QuantityError::kind),
            Some(QuantityErrorKind::Overflow)
        );
        assert!(
            e.map(|e| e.to_string())
                .unwrap_or_default()
                .contains("milli-units")
        );

        assert!((q("1.5").to_f64_lossy() - 1.5).abs() < 1e-12);
        assert!((q("-250m").to_f64_lossy() + 0.25).abs() < 1e-12);
        assert!((q("1Gi").to_f64_lossy() - 1_073_741_824.0).abs() < 1e-3);
    }

    #[test]
    fn milli_rounding() {
        let r = |s: &str| q(s).round_up_to_milli().to_canonical_string();
        assert_eq!(r("1500u"), "2m");
        assert_eq!(r("1n"), "1m");
        assert_eq!(r("-1n"), "-1m");
        assert_eq!(r("1.0001"), "1001m");
        assert_eq!(r("1500m"), "1500m");
        assert_eq!(r("0"), "0");
        assert_eq!(r("1Gi"), "1Gi");
        assert_eq!(r("0.1Gi"), "107374182400m");
        assert_eq!(
            q("1.5Gi").round_up_to_milli().format(),
            QuantityFormat::BinarySi
        );
        let max = q("79228162514264337593543950336");
        assert_eq!(max.round_up_to_milli(), max);
    }

    #[test]
    fn json_input() {
        let j = |v: Value| match Quantity::from_json(&v) {
            Ok(q) => q.to_canonical_string(),
            Err(e) => format!("error: {e}"),
        };
        assert_eq!(j(json!("500m")), "500m");
        assert_eq!(j(json!("4Gi")), "4Gi");
        assert_eq!(j(json!(" 1 ")), "1");
        assert_eq!(j(json!(2)), "2");
        assert_eq!(j(json!(-1)), "-1");
        assert_eq!(j(json!(0)), "0");
        assert_eq!(j(json!(0.5)), "500m");
        assert_eq!(j(json!(0.1)), "100m");
        assert_eq!(j(json!(1.5)), "1500m");
        assert_eq!(j(json!(2.0)), "2");
        assert_eq!(j(json!(1e21)), "1e21");
        // A float printed with an exponent keeps the exponent format.
        assert_eq!(j(json!(1.5e-7)), "150e-9");
        assert_eq!(j(json!(u64::MAX)), "18446744073709551615");
        assert_eq!(j(json!(i64::MIN)), "-9223372036854775808");
        assert!(j(json!(1e300)).starts_with("error: "));
        assert!(j(json!(null)).contains("found null"));
        assert!(j(json!(true)).contains("found a boolean"));
        assert!(j(json!([1])).contains("found an array"));
        assert!(j(json!({})).contains("found an object"));
        assert!(j(json!("1 Gi")).contains("whitespace"));
        assert!(j(json!("abc")).starts_with("error: invalid quantity \"abc\""));
        assert_eq!(
            Quantity::from_json(&json!(true)).map_err(|e| e.kind()),
            Err(QuantityErrorKind::NotAQuantity)
        );
    }

    #[test]
    fn serializes_as_canonical_string() {
        let v = serde_json::to_value(q("1.5Gi")).ok();
        assert_eq!(v, Some(json!("1536Mi")));
        let v = serde_json::to_value(vec![q("1000m"), q("0.5")]).ok();
        assert_eq!(v, Some(json!(["1", "500m"])));
        assert_eq!(q("1024Mi").to_string(), "1Gi");
        assert_eq!(format!("{:?}", q("1024Mi")), "Quantity(1Gi, BinarySI)");
        assert_eq!(
            "1.5".parse::<Quantity>().map(|v| v.nanos()),
            Ok(1_500_000_000)
        );
        assert_eq!(Quantity::default(), Quantity::zero());
        assert!(Quantity::zero().is_zero());
        assert!(q("-1m").is_negative());
    }

    /// Every value in a generated grid survives a trip through its canonical
    /// string, and canonical strings are fixed points.
    #[test]
    fn canonical_round_trip_grid() {
        let mantissas = [
            "0",
            "1",
            "2",
            "3",
            "7",
            "9",
            "10",
            "12",
            "99",
            "100",
            "125",
            "512",
            "999",
            "1000",
            "1001",
            "1023",
            "1024",
            "1025",
            "1536",
            "4096",
            "65536",
            "123456789",
            "0.5",
            "0.25",
            "0.1",
            "0.001",
            "0.0001",
            "1.5",
            "2.75",
            "3.14159",
            "12.000",
            "1.",
            ".75",
            "0.000000001",
            "0.0000000015",
            "999999.999999",
        ];
        let suffixes = [
            "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
            "e0", "e3", "e-3", "E6", "e-9", "e12", "e+2", "e-1", "e17",
        ];
        let mut checked = 0;
        for sign in ["", "-", "+"] {
            for m in mantissas {
                for s in suffixes {
                    let text = format!("{sign}{m}{s}");
                    let Ok(original) = Quantity::parse(&text) else {
                        panic!("{text} should parse");
                    };
                    let canonical = original.to_canonical_string();
                    let reparsed = q(&canonical);
                    assert_eq!(reparsed, original, "{text} -> {canonical}");
                    assert_eq!(reparsed.to_canonical_string(), canonical, "{text}");
                    assert!(!canonical.contains('.'), "{text} -> {canonical}");
                    assert!(!canonical.starts_with('+'), "{text} -> {canonical}");
                    // Negation is symmetric.
                    if sign == "-" && !original.is_zero() {
                        let positive = q(&format!("{m}{s}"));
                        assert_eq!(positive.nanos(), -original.nanos(), "{text}");
                        let pc = positive.to_canonical_string();
                        assert_eq!(canonical, format!("-{pc}"), "{text}");
                    }
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 3 * mantissas.len() * suffixes.len());
    }

    /// Integer mantissas times a suffix give exactly mantissa * multiplier,
    /// and sums of generated values match integer arithmetic on nanos.
    #[test]
    fn integer_grid_matches_plain_arithmetic() {
        let multipliers: &[(&str, i128)] = &[
            ("n", 1),
            ("u", 1_000),
            ("m", 1_000_000),
            ("", N),
            ("k", 1_000 * N),
            ("M", 1_000_000 * N),
            ("G", 1_000_000_000 * N),
            ("Ki", 1024 * N),
            ("Mi", (1 << 20) * N),
            ("Gi", GI * N),
            ("Ti", (1 << 40) * N),
        ];
        let mut previous = Quantity::zero();
        let mut total: i128 = 0;
        for m in (0..2000i128).step_by(37).chain([4096, 1 << 20, 999_999]) {
            for &(suffix, mult) in multipliers {
                let v = q(&format!("{m}{suffix}"));
                assert_eq!(v.nanos(), m * mult, "{m}{suffix}");
                total += m * mult;
                previous = match previous.add(&v) {
                    Ok(sum) => sum,
                    Err(e) => panic!("{e}"),
                };
                assert_eq!(previous.nanos(), total);
                let c = previous.to_canonical_string();
                assert_eq!(q(&c), previous, "{c}");
            }
        }
    }
}
