//! Exit codes and the one error type of the CLI.
//!
//! Every failure ends up as a [`Failure`]: an exit code, the one-line message
//! printed after `error: ` on stderr, the findings printed below it (one line
//! each), and optionally something for stdout (the machine-readable
//! `no_definition` object of `-o json`).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;

use workload_lens::{Error, ErrorCode, Finding, Location, Severity};

/// Success.
pub const EXIT_OK: u8 = 0;
/// The engine failed while resolving (jq runtime, conversion, count mismatch,
/// invalid object) or updating (a definition part the update needs is
/// missing, a path cannot be written).
pub const EXIT_RESOLVE: u8 = 1;
/// Usage error, unreadable file, malformed YAML/JSON input, an update naming
/// an unknown component or instance.
pub const EXIT_USAGE: u8 = 2;
/// Invalid definition (validation or jq compile errors).
pub const EXIT_INVALID_DEFINITION: u8 = 3;
/// No definition covers the object's type (or no definition has that name).
pub const EXIT_NO_DEFINITION: u8 = 4;
/// A limit was exceeded.
pub const EXIT_LIMIT: u8 = 5;
/// The workload asked for does not exist in the cluster.
pub const EXIT_NOT_FOUND: u8 = 6;
/// The cluster cannot be reached (or no cluster is configured).
pub const EXIT_UNREACHABLE: u8 = 7;
/// The cluster refused the credentials (401) or the request (403).
pub const EXIT_DENIED: u8 = 8;

/// The exit-code table shown at the end of `--help`.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  success
  1  the engine failed while resolving (jq runtime, conversion, count mismatch, invalid object)
     or updating (the definition lacks what the update needs, e.g. no suspendDefinition)
  2  usage error, unreadable file, malformed YAML/JSON input, unknown component or instance
     in update values
  3  invalid definition (validation or jq compile errors, also in a --definition file)
  4  no definition covers the object's type (describe: none of the input's objects, or
     any with --strict), or no definition has that name
  5  a limit was exceeded (raise it with --limits FILE)
  6  get/describe TYPE/NAME: no such workload in the cluster
  7  the cluster cannot be reached, or no cluster is configured
  8  the cluster refused the credentials (unauthorized) or the request (forbidden)";

/// The exit code of an engine error class.
pub fn exit_code(code: ErrorCode) -> u8 {
    match code {
        ErrorCode::Parse | ErrorCode::Usage => EXIT_USAGE,
        ErrorCode::Validation | ErrorCode::JqCompile => EXIT_INVALID_DEFINITION,
        ErrorCode::NoDefinition => EXIT_NO_DEFINITION,
        ErrorCode::Limit => EXIT_LIMIT,
        ErrorCode::JqRuntime
        | ErrorCode::Conversion
        | ErrorCode::CountMismatch
        | ErrorCode::InvalidObject
        | ErrorCode::Update => EXIT_RESOLVE,
        ErrorCode::NotFound => EXIT_NOT_FOUND,
        ErrorCode::Unreachable | ErrorCode::NoConfig => EXIT_UNREACHABLE,
        ErrorCode::Unauthorized | ErrorCode::Forbidden => EXIT_DENIED,
        ErrorCode::Api => EXIT_RESOLVE,
        // A class added to the engine later: a failure to resolve.
        _ => EXIT_RESOLVE,
    }
}

/// A failed command.
#[derive(Debug)]
pub struct Failure {
    /// Process exit code.
    pub exit: u8,
    /// One line, printed as `error: <message>`.
    pub message: String,
    /// Printed below the message, one line each.
    pub findings: Vec<Finding>,
    /// Printed on stdout before the error is reported.
    pub stdout: Option<String>,
}

impl Failure {
    /// A failure with an exit code and a message.
    pub fn new(exit: u8, message: impl Into<String>) -> Self {
        Failure {
            exit,
            message: one_line(&message.into()),
            findings: Vec::new(),
            stdout: None,
        }
    }

    /// A usage / input error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Failure::new(EXIT_USAGE, message)
    }

    /// An engine error: exit code from its class, message with location.
    pub fn engine(e: &Error) -> Self {
        Failure {
            findings: e.findings().to_vec(),
            ..Failure::new(exit_code(e.code()), error_message(e))
        }
    }

    /// Prefix the message (`"jobs.yaml: ..."`).
    pub fn context(mut self, prefix: &str) -> Self {
        self.message = format!("{prefix}: {}", self.message);
        self
    }

    /// Replace the exit code.
    pub fn with_exit(mut self, exit: u8) -> Self {
        self.exit = exit;
        self
    }
}

/// Collapse a message to one line (multi-line messages from libraries).
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for part in s.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if !out.is_empty() {
            out.push_str("; ");
        }
        out.push_str(part);
    }
    out
}

/// The message of an engine error with its location, on one line, e.g.
/// `jq error: cannot index number with "x" (at spec.structureDefinition.rootComponent..., line 3, column 5)`.
pub fn error_message(e: &Error) -> String {
    let mut out = one_line(e.message());
    let loc = describe_location(e.location(), &out);
    if !loc.is_empty() {
        out.push_str(&format!(" (at {loc})"));
    }
    if let Some(limit) = e.limit() {
        out.push_str(&format!(" [limit {limit}; raise it with --limits FILE]"));
    }
    out
}

/// The parts of a location a person needs, comma-separated; paths that the
/// message already names are left out.
pub fn describe_location(loc: &Location, message: &str) -> String {
    let mut parts = Vec::new();
    if let Some(d) = loc.document {
        parts.push(format!("document {d}"));
    }
    if let Some(f) = loc
        .field
        .as_deref()
        .filter(|f| !f.is_empty() && !message.contains(*f))
    {
        parts.push(f.to_string());
    }
    if let (Some(l), Some(c)) = (loc.line, loc.column) {
        parts.push(format!("line {l}, column {c}"));
    }
    if let Some(c) = &loc.component {
        match &loc.instance {
            Some(i) => parts.push(format!("component {c}[{i}]")),
            None => parts.push(format!("component {c}")),
        }
    }
    if let Some(p) = loc
        .object_path
        .as_deref()
        .filter(|p| !p.is_empty() && !message.contains(*p))
    {
        parts.push(format!("object path {p}"));
    }
    parts.join(", ")
}

/// Print a failure: its stdout part (JSON, YAML or human text as made),
/// then `error: ...` and one line per finding on stderr, escaped
/// ([`escape`]): messages quote names, ids and values. Nothing is
/// reported about a closed stdout or stderr.
pub fn report(f: &Failure) {
    if let Some(out) = &f.stdout {
        let mut stdout = std::io::stdout().lock();
        let _ = stdout
            .write_all(out.as_bytes())
            .and_then(|()| stdout.flush());
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "error: {}", escape(&f.message));
    for finding in &f.findings {
        let _ = writeln!(err, "{}", escape(&finding_line(finding)));
    }
}

/// Print one error line on stderr as it is (escaped), for errors that do
/// not end the command (`get a b`: `Error from server (NotFound): ...`).
#[cfg(feature = "cluster")]
pub fn error_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", escape(&one_line(line)));
}

/// Whether `c` must not reach a terminal raw: C0 controls (newline and tab
/// included), DEL, C1 controls, and the invisible characters that reorder
/// or break lines (bidirectional overrides, embeddings and isolates, the
/// marks, the line and paragraph separators).
fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// Text from objects, definitions and messages made safe for a terminal:
/// every [unsafe](is_unsafe) character is written as an escape (`\n`,
/// `\r`, `\t`, `\x1b`, `\u{9b}`, `\u{202e}`), so names, ids, messages and
/// reasons can neither move the cursor, recolour, retitle or clear the
/// terminal, nor reorder or split a line. Human output only: JSON and YAML
/// stay exact. Text without such characters is returned as is.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && is_unsafe(c) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if is_unsafe(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `error` or `warning`.
pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// One finding as an indented line:
/// `  error[<code>] <field> (line L, column C): <message>`.
pub fn finding_line(f: &Finding) -> String {
    format!("  {}{}", severity_name(f.severity), coded_finding(f))
}

/// `[<code>] <field> (line L, column C): <message>`.
pub fn coded_finding(f: &Finding) -> String {
    let body = finding_body(f);
    let sep = if body.starts_with(':') { "" } else { " " };
    format!("[{}]{sep}{body}", f.code)
}

/// A finding without severity and code: `<field> (line L, column C): <message>`
/// (parts that are not known are left out).
pub fn finding_body(f: &Finding) -> String {
    let mut parts = Vec::new();
    if let Some(d) = f.location.document {
        parts.push(format!("document {d}"));
    }
    if let Some(field) = f.location.field.as_deref().filter(|s| !s.is_empty()) {
        parts.push(field.to_string());
    }
    if let (Some(l), Some(c)) = (f.location.line, f.location.column) {
        parts.push(format!("(line {l}, column {c})"));
    }
    format!("{}: {}", parts.join(" "), one_line(&f.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finding_lines() {
        let mut f = Finding::error("duplicate-component-name", "name used twice", "spec.x");
        f.location.line = Some(3);
        f.location.column = Some(7);
        assert_eq!(
            finding_line(&f),
            "  error[duplicate-component-name] spec.x (line 3, column 7): name used twice"
        );
        let w = Finding::warning("unknown-field", "ignored\nsecond", "");
        assert_eq!(
            finding_line(&w),
            "  warning[unknown-field]: ignored; second"
        );
    }

    #[test]
    fn exit_codes_by_class() {
        assert_eq!(exit_code(ErrorCode::Parse), 2);
        assert_eq!(exit_code(ErrorCode::Validation), 3);
        assert_eq!(exit_code(ErrorCode::JqCompile), 3);
        assert_eq!(exit_code(ErrorCode::NoDefinition), 4);
        assert_eq!(exit_code(ErrorCode::Limit), 5);
        assert_eq!(exit_code(ErrorCode::JqRuntime), 1);
        assert_eq!(exit_code(ErrorCode::InvalidObject), 1);
        assert_eq!(exit_code(ErrorCode::Update), 1);
        assert_eq!(exit_code(ErrorCode::Usage), 2);
        assert_eq!(exit_code(ErrorCode::NotFound), 6);
        assert_eq!(exit_code(ErrorCode::Unreachable), 7);
        assert_eq!(exit_code(ErrorCode::NoConfig), 7);
        assert_eq!(exit_code(ErrorCode::Forbidden), 8);
        assert_eq!(exit_code(ErrorCode::Unauthorized), 8);
        assert_eq!(exit_code(ErrorCode::Api), 1);
    }

    #[test]
    fn limit_errors_name_the_limit() {
        let e = Error::limit_error("maxSteps", "evaluation ran out of fuel");
        assert_eq!(
            error_message(&e),
            "evaluation ran out of fuel [limit maxSteps; raise it with --limits FILE]"
        );
    }
}
