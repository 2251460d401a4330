//! The one error type of the engine.
//!
//! Every failure is a value of [`Error`]: a stable [`ErrorCode`], a message a
//! person can act on, and a [`Location`] saying where it happened (the
//! definition field, the jq expression and the byte span inside it, the
//! component and instance, the path inside the object). Bindings map the code
//! to an exception/error class and copy the rest verbatim, so every runtime
//! reports the same data.

use serde::Serialize;
use std::fmt;

/// Longest message an [`Error`] or a [`Finding`] keeps, in bytes; a longer
/// one is cut to a [`preview`]. Far above every message the engine writes
/// itself (those preview values at a few hundred bytes); it bounds messages
/// that repeat input (`error(x)` with a huge `x`, lists of ids).
pub(crate) const MAX_MESSAGE_BYTES: usize = 8 * 1024;

/// Longest component name, instance id, definition field or object path a
/// [`Location`] keeps, in bytes; a longer one is cut to a [`preview`].
pub(crate) const MAX_LOCATION_BYTES: usize = 512;

/// Longest jq expression a [`Location`] keeps, in bytes: four times the
/// default `maxExpressionBytes`, so that with default limits the expression
/// (and the `span` into it) is always whole.
pub(crate) const MAX_LOCATION_EXPRESSION_BYTES: usize = 64 * 1024;

/// `s` if it has at most `max` bytes; otherwise its first `max` bytes (cut
/// back to a character boundary), `...` and how many bytes were left out,
/// e.g. `abc... (4194301 more bytes)`.
pub(crate) fn preview(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let head = s.get(..end).unwrap_or_default();
    format!("{head}... ({} more bytes)", s.len() - end)
}

/// [`preview`] of a string taken by value: no copy when it is short enough.
fn bounded(s: String, max: usize) -> String {
    if s.len() <= max { s } else { preview(&s, max) }
}

/// Stable error classes. The string form (`as_str`, and the JSON form) is part
/// of the public contract: conformance cases and bindings match on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ErrorCode {
    /// Malformed YAML or JSON text, or a document of the wrong shape.
    Parse,
    /// The definition breaks a validation rule (see `findings`).
    Validation,
    /// A jq expression does not parse or compile, or uses a denied construct.
    JqCompile,
    /// A jq expression failed while running.
    JqRuntime,
    /// An expression's output has the wrong type for its field.
    Conversion,
    /// Per-instance outputs do not line up with the instance ids.
    CountMismatch,
    /// A configured limit was exceeded (see `limit`).
    Limit,
    /// No definition is known for the object's apiVersion/kind.
    NoDefinition,
    /// The object is not a usable Kubernetes object.
    InvalidObject,
    /// An update or query could not be applied (missing definition part,
    /// unknown instance, non-assignable path, ...).
    Update,
    /// The caller used the API incorrectly (unknown component, bad argument).
    Usage,
    /// Live clusters: the API server could not be reached (connection
    /// refused, DNS, TLS, timeout).
    Unreachable,
    /// Live clusters: the server refused the credentials (HTTP 401).
    Unauthorized,
    /// Live clusters: the credentials may not make this request (HTTP 403).
    Forbidden,
    /// Live clusters: the object or type does not exist (HTTP 404).
    NotFound,
    /// Live clusters: the server answered with another failure (a 5xx, a
    /// response that is not what the request asks for).
    Api,
    /// Live clusters: no usable cluster configuration (kubeconfig, context).
    NoConfig,
}

impl ErrorCode {
    /// Every code, in declaration order (bindings generate their error
    /// classes from this list).
    pub const ALL: [ErrorCode; 17] = [
        ErrorCode::Parse,
        ErrorCode::Validation,
        ErrorCode::JqCompile,
        ErrorCode::JqRuntime,
        ErrorCode::Conversion,
        ErrorCode::CountMismatch,
        ErrorCode::Limit,
        ErrorCode::NoDefinition,
        ErrorCode::InvalidObject,
        ErrorCode::Update,
        ErrorCode::Usage,
        ErrorCode::Api,
        ErrorCode::Unreachable,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::NoConfig,
    ];

    /// The stable string form, e.g. `jq_runtime`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Parse => "parse",
            ErrorCode::Validation => "validation",
            ErrorCode::JqCompile => "jq_compile",
            ErrorCode::JqRuntime => "jq_runtime",
            ErrorCode::Conversion => "conversion",
            ErrorCode::CountMismatch => "count_mismatch",
            ErrorCode::Limit => "limit",
            ErrorCode::NoDefinition => "no_definition",
            ErrorCode::InvalidObject => "invalid_object",
            ErrorCode::Update => "update",
            ErrorCode::Usage => "usage",
            ErrorCode::Unreachable => "unreachable",
            ErrorCode::Unauthorized => "unauthorized",
            ErrorCode::Forbidden => "forbidden",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Api => "api",
            ErrorCode::NoConfig => "no_config",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where something happened. Every part is optional; only the parts that are
/// known are set (and serialized).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Location {
    /// Index of the document in a multi-document text (0-based), when the
    /// input had more than one document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    /// Field path inside the definition, e.g.
    /// `spec.structureDefinition.childComponents[1].specDefinition.podTemplateSpecPath`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// 1-based line in the source text, when the input was text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column (in characters) in the source text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// The jq expression involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// Byte range `[start, end)` inside `expression`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<[usize; 2]>,
    /// Component name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// Instance id (`""` is never set: single-instance components omit it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// Path inside the object (workload or pod), e.g. `spec.containers[0].resources.requests.cpu`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object_path: Option<String>,
    /// Live clusters: the API request (path and query) that failed, e.g.
    /// `/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?limit=500`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

impl Location {
    /// True when no part is set.
    pub fn is_empty(&self) -> bool {
        self == &Location::default()
    }

    /// A location naming a definition field.
    pub fn field(path: impl Into<String>) -> Self {
        Location {
            field: Some(bounded(path.into(), MAX_LOCATION_BYTES)),
            ..Location::default()
        }
    }

    /// Every string part cut to its [`preview`] bound (names, ids and paths
    /// to [`MAX_LOCATION_BYTES`], the expression to
    /// [`MAX_LOCATION_EXPRESSION_BYTES`]).
    fn bounded(mut self) -> Self {
        for part in [
            &mut self.field,
            &mut self.component,
            &mut self.instance,
            &mut self.object_path,
            &mut self.request,
        ] {
            if let Some(s) = part.take() {
                *part = Some(bounded(s, MAX_LOCATION_BYTES));
            }
        }
        if let Some(s) = self.expression.take() {
            self.expression = Some(bounded(s, MAX_LOCATION_EXPRESSION_BYTES));
        }
        self
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(d) = self.document {
            parts.push(format!("document {d}"));
        }
        if let Some(f) = &self.field {
            parts.push(f.clone());
        }
        if let (Some(l), Some(c)) = (self.line, self.column) {
            parts.push(format!("line {l}, column {c}"));
        }
        if let Some(c) = &self.component {
            match &self.instance {
                Some(i) => parts.push(format!("component {c}[{i}]")),
                None => parts.push(format!("component {c}")),
            }
        }
        if let Some(p) = &self.object_path {
            parts.push(format!("object path {p}"));
        }
        if let Some(r) = &self.request {
            parts.push(format!("request GET {r}"));
        }
        parts.join(", ")
    }
}

/// Severity of a validation finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, PartialOrd, Ord)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The definition is invalid.
    Error,
    /// The definition is usable but something looks wrong (e.g. an unknown
    /// field that is ignored).
    Warning,
}

/// One validation finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// Stable, kebab-case rule code, e.g. `duplicate-component-name`.
    pub code: String,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in words.
    pub message: String,
    /// Where.
    #[serde(skip_serializing_if = "Location::is_empty")]
    pub location: Location,
}

impl Finding {
    /// A new error finding at a definition field.
    pub fn error(code: &str, message: impl Into<String>, field: impl Into<String>) -> Self {
        Finding {
            code: code.to_string(),
            severity: Severity::Error,
            message: bounded(message.into(), MAX_MESSAGE_BYTES),
            location: Location::field(field),
        }
    }

    /// A new warning finding at a definition field.
    pub fn warning(code: &str, message: impl Into<String>, field: impl Into<String>) -> Self {
        Finding {
            severity: Severity::Warning,
            ..Finding::error(code, message, field)
        }
    }
}

/// The engine's error: a stable [`ErrorCode`], a message, where it happened,
/// and for some codes the limit breached or the validation findings.
///
/// The data sits behind one pointer, so a `Result<T, Error>` stays small on
/// the success path; read it with the accessors. Its JSON form (`code`,
/// `message`, `location`?, `limit`?, `findings`?) is the contract every
/// binding copies; [`crate::error_schema`] is its JSON Schema.
#[derive(Clone, PartialEq, Eq)]
pub struct Error(pub(crate) Box<ErrorData>);

/// The engine's error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "schema", schemars(rename = "Error"))]
#[serde(rename_all = "camelCase")]
pub(crate) struct ErrorData {
    /// Stable error class.
    pub(crate) code: ErrorCode,
    /// Human-readable message (without the location, which is kept apart).
    pub(crate) message: String,
    /// Where it happened.
    #[serde(skip_serializing_if = "Location::is_empty")]
    pub(crate) location: Location,
    /// For [`ErrorCode::Limit`]: the name of the limit (the field name of
    /// [`crate::Limits`] in camelCase, e.g. `maxOutputs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) limit: Option<String>,
    /// For [`ErrorCode::Validation`]: every finding (errors and warnings).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) findings: Vec<Finding>,
    /// Live clusters: the HTTP status the server answered with, when it
    /// answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) status: Option<u16>,
}

// One pointer: a `Result<T, Error>` is no larger than it must be.
const _: () = assert!(std::mem::size_of::<Error>() == std::mem::size_of::<usize>());

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl Serialize for Error {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Error {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        ErrorData::schema_name()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        ErrorData::json_schema(g)
    }
}

impl Error {
    /// A new error without location. A message longer than 8 KiB is cut
    /// to a preview (its head and the number of bytes left out).
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Error(Box::new(ErrorData {
            code,
            message: bounded(message.into(), MAX_MESSAGE_BYTES),
            location: Location::default(),
            limit: None,
            findings: Vec::new(),
            status: None,
        }))
    }

    /// A limit error naming the limit (the camelCase field of [`crate::Limits`]).
    pub fn limit_error(limit: &str, message: impl Into<String>) -> Self {
        let mut e = Error::new(ErrorCode::Limit, message);
        e.0.limit = Some(limit.to_string());
        e
    }

    /// A validation error carrying every finding.
    pub fn validation(message: impl Into<String>, findings: Vec<Finding>) -> Self {
        let mut e = Error::new(ErrorCode::Validation, message);
        e.0.findings = findings;
        e
    }

    /// The stable error class.
    pub fn code(&self) -> ErrorCode {
        self.0.code
    }

    /// The message, without the location (see [`Error::location`]; the
    /// `Display` form has both).
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Where it happened.
    pub fn location(&self) -> &Location {
        &self.0.location
    }

    /// For [`ErrorCode::Limit`]: the camelCase name of the limit.
    pub fn limit(&self) -> Option<&str> {
        self.0.limit.as_deref()
    }

    /// For [`ErrorCode::Validation`]: every finding (errors and warnings).
    pub fn findings(&self) -> &[Finding] {
        &self.0.findings
    }

    /// Live clusters: the HTTP status the server answered with.
    pub fn status(&self) -> Option<u16> {
        self.0.status
    }

    /// This error with the HTTP status the server answered with.
    pub fn with_status(mut self, status: u16) -> Self {
        self.0.status = Some(status);
        self
    }

    /// The error without its line and column: for text a program wrote (a
    /// binding's JSON of its caller's value), whose positions mean nothing
    /// to the caller.
    pub fn without_position(mut self) -> Self {
        self.0.location.line = None;
        self.0.location.column = None;
        self
    }

    /// Set the location, keeping parts already set. Names, ids and paths
    /// longer than 512 bytes (an expression: 64 KiB) are cut to a preview.
    pub fn at(self, loc: Location) -> Self {
        self.at_bounded(loc.bounded())
    }

    /// [`Error::at`] of a location whose strings are bounded already.
    fn at_bounded(mut self, loc: Location) -> Self {
        let l = &mut self.0.location;
        macro_rules! keep {
            ($($f:ident),*) => { $( if l.$f.is_none() { l.$f = loc.$f; } )* };
        }
        keep!(
            document,
            field,
            line,
            column,
            expression,
            span,
            component,
            instance,
            object_path,
            request
        );
        self
    }

    /// Set the definition field, unless one is set already.
    pub fn at_field(self, field: impl Into<String>) -> Self {
        self.at(Location::field(field))
    }

    /// Set the component (and instance, when not empty) unless set already.
    pub fn in_component(self, component: &str, instance: Option<&str>) -> Self {
        // Previewed here, so a huge id is never copied whole.
        self.at_bounded(Location {
            component: Some(preview(component, MAX_LOCATION_BYTES)),
            instance: instance
                .filter(|i| !i.is_empty())
                .map(|i| preview(i, MAX_LOCATION_BYTES)),
            ..Location::default()
        })
    }

    /// Add words after the message (`"; what to do"`).
    pub(crate) fn suffix(mut self, text: &str) -> Self {
        let message = format!("{}{}", self.0.message, preview(text, MAX_MESSAGE_BYTES));
        self.0.message = bounded(message, MAX_MESSAGE_BYTES);
        self
    }

    /// Prefix the message with context (`"failed to extract scales: ..."`).
    pub fn context(mut self, prefix: &str) -> Self {
        let message = format!("{}: {}", preview(prefix, MAX_MESSAGE_BYTES), self.0.message);
        self.0.message = bounded(message, MAX_MESSAGE_BYTES);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.message)?;
        let loc = self.0.location.describe();
        if !loc.is_empty() {
            write!(f, " (at {loc})")?;
        }
        for finding in &self.0.findings {
            let sev = match finding.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            };
            write!(f, "\n  {sev}[{}] {}", finding.code, finding.message)?;
            let loc = finding.location.describe();
            if !loc.is_empty() {
                write!(f, " (at {loc})")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Result with the engine's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preview_cuts_at_a_char_boundary() {
        assert_eq!(preview("abc", 3), "abc");
        assert_eq!(preview("abcd", 3), "abc... (1 more bytes)");
        // "é" is two bytes: a cut inside it moves back.
        assert_eq!(preview("aéb", 2), "a... (3 more bytes)");
        assert_eq!(preview("ééé", 0), "... (6 more bytes)");
        assert_eq!(bounded("x".repeat(10), 10), "x".repeat(10));
    }

    #[test]
    fn messages_and_locations_are_bounded() {
        let huge = "i".repeat(4 << 20);
        let e = Error::new(ErrorCode::JqRuntime, huge.clone())
            .in_component(&huge, Some(&huge))
            .at(Location {
                field: Some(huge.clone()),
                object_path: Some(huge.clone()),
                expression: Some(huge.clone()),
                ..Location::default()
            })
            .context(&huge);
        assert!(e.message().len() < MAX_MESSAGE_BYTES + 64);
        let l = e.location();
        for part in [&l.component, &l.instance, &l.field, &l.object_path] {
            let part = part.as_deref().unwrap_or_default();
            assert!(part.len() < MAX_LOCATION_BYTES + 64, "{}", part.len());
            assert!(
                part.ends_with(&format!("({} more bytes)", huge.len() - 512)),
                "{}",
                &part[500..]
            );
        }
        let expression = l.expression.as_deref().unwrap_or_default();
        assert!(expression.len() < MAX_LOCATION_EXPRESSION_BYTES + 64);
        assert!(e.to_string().len() < 16 * 1024);
        let f = Finding::warning("w", huge.clone(), huge.clone());
        assert!(f.message.len() < MAX_MESSAGE_BYTES + 64);
        assert!(f.location.field.as_deref().unwrap_or_default().len() < MAX_LOCATION_BYTES + 64);
    }

    #[test]
    fn short_strings_are_kept_whole() {
        let e = Error::new(ErrorCode::Conversion, "bad")
            .in_component("worker", Some("a-1"))
            .at(Location::field("spec.x"))
            .context("ctx");
        assert_eq!(e.message(), "ctx: bad");
        assert_eq!(e.location().instance.as_deref(), Some("a-1"));
        assert_eq!(e.location().field.as_deref(), Some("spec.x"));
    }
}
