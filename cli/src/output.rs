//! Output helpers: formats, aligned columns, quantities, JSON and YAML,
//! and [`escape`], which every piece of object data goes through on its way
//! into human output.

use std::borrow::Cow;
use std::io::Write;

use clap::ValueEnum;
use serde::Serialize;

use crate::failure::Failure;
/// Defined beside [`Failure`], whose report escapes its messages too (this
/// module writes with failures, never the other way round).
pub use crate::failure::escape;

/// `-o` / `--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text for people (tables, trees).
    #[value(alias = "table", alias = "text")]
    Human,
    /// Pretty JSON (2-space indent).
    Json,
    /// YAML.
    #[value(alias = "yml")]
    Yaml,
}

/// `get -o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GetOutput {
    /// A table
    #[value(alias = "table")]
    Human,
    /// The table plus the definition and its origin
    Wide,
    /// `kind.group/name` per row, as kubectl's `-o name`
    Name,
    /// {items, count} (one object for TYPE/NAME)
    Json,
    /// As json, in YAML
    #[value(alias = "yml")]
    Yaml,
}

/// `get --sort-by FIELD`: which field of the rows sorts them (ascending,
/// ties in the engine's order). Presentation only: the rows are the
/// engine's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Name,
    Namespace,
    Kind,
    /// `Kind.group`, the TYPE column.
    Type,
    Phase,
    Pods,
    Gpus,
    /// The creation time, oldest first.
    Created,
    /// The AGE column, youngest first.
    Age,
}

/// The fields `--sort-by` accepts, as the usage error lists them.
pub const SORT_FIELDS: &str = "name, namespace, kind, type, phase, pods, gpus, created, age, \
    {.metadata.name}, {.metadata.namespace}, {.metadata.creationTimestamp}";

/// Read a `--sort-by` FIELD: a field of the row (`name`, `.name`,
/// `{.name}`, any case) or the kubectl JSONPath of the same field
/// (`{.metadata.name}`, `.metadata.creationTimestamp`).
pub fn parse_sort_key(field: &str) -> Result<SortKey, String> {
    let f = field.trim();
    let f = f
        .strip_prefix('{')
        .and_then(|f| f.strip_suffix('}'))
        .unwrap_or(f);
    let f = f.strip_prefix('.').unwrap_or(f).to_ascii_lowercase();
    Ok(match f.as_str() {
        "name" | "metadata.name" => SortKey::Name,
        "namespace" | "metadata.namespace" => SortKey::Namespace,
        "kind" => SortKey::Kind,
        "type" => SortKey::Type,
        "phase" | "statuses" => SortKey::Phase,
        "pods" => SortKey::Pods,
        "gpus" => SortKey::Gpus,
        "created" | "metadata.creationtimestamp" => SortKey::Created,
        "age" => SortKey::Age,
        _ => return Err(format!("unknown field; the fields are {SORT_FIELDS}")),
    })
}

thread_local! {
    /// Set while [`deferring`] runs: the warnings kept for later.
    static DEFERRED: std::cell::RefCell<Option<Vec<String>>> = const { std::cell::RefCell::new(None) };
}

/// Run `f` with the warnings it prints kept back instead (unescaped, as
/// given to [`warn`]), to be printed after the output; returns them.
#[cfg(feature = "cluster")]
pub fn deferring<T>(f: impl FnOnce() -> T) -> (T, Vec<String>) {
    let before = DEFERRED.with(|d| d.borrow_mut().replace(Vec::new()));
    let out = f();
    let kept = DEFERRED.with(|d| std::mem::replace(&mut *d.borrow_mut(), before));
    (out, kept.unwrap_or_default())
}

/// Print a warning on stderr (`warning: ...`), ignoring a closed stderr.
/// The message is escaped ([`escape`]). Inside [`deferring`] it is kept
/// for later instead.
pub fn warn(message: &str) {
    let kept = DEFERRED.with(|d| match d.borrow_mut().as_mut() {
        Some(v) => {
            v.push(message.to_string());
            true
        }
        None => false,
    });
    if kept {
        return;
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "warning: {}",
        escape(&crate::failure::one_line(message))
    );
}

/// Pretty JSON with a 2-space indent and a trailing newline.
pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<String, Failure> {
    serde_json::to_string_pretty(value)
        .map(|s| s + "\n")
        .map_err(|e| Failure::usage(format!("cannot write JSON: {e}")))
}

/// One YAML document.
pub fn yaml<T: Serialize>(value: &T) -> Result<String, Failure> {
    serde_saphyr::to_string(value)
        .map(ensure_newline)
        .map_err(|e| Failure::usage(format!("cannot write YAML: {e}")))
}

/// Several YAML documents separated by `---`.
pub fn yaml_documents<T: Serialize>(values: &[T]) -> Result<String, Failure> {
    serde_saphyr::to_string_multiple(values)
        .map(ensure_newline)
        .map_err(|e| Failure::usage(format!("cannot write YAML: {e}")))
}

fn ensure_newline(mut s: String) -> String {
    if !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// Rows of cells as aligned columns: every column but the last padded to its
/// widest cell plus `gap` spaces; trailing spaces removed. Every cell is
/// [escaped](escape): tables and trees are made of object data.
pub fn columns(rows: &[Vec<String>], gap: usize) -> String {
    let rows: Vec<Vec<Cow<'_, str>>> = rows
        .iter()
        .map(|row| row.iter().map(|cell| escape(cell)).collect())
        .collect();
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; ncols];
    for row in &rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                let pad = widths[i] - cell.chars().count() + gap;
                line.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// CPU millicores as cores, the engine's one rule for people
/// ([`workload_lens::human_cpu`]): `26.5`, `0.5`, `8`.
pub fn cpu(millis: u64) -> String {
    workload_lens::human_cpu(millis)
}

/// Bytes in binary units with at most one decimal, the engine's one rule
/// for people ([`workload_lens::human_memory`]): `1.9Gi`, `512Mi`.
pub fn bytes(n: u64) -> String {
    workload_lens::human_memory(n)
}

/// Write to stdout; a closed pipe (`| head`) is not an error.
pub fn print(text: &str) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::usage(format!("cannot write output: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_obey() {
        assert!(matches!(escape("plain-name_1.x/y"), Cow::Borrowed(_)));
        assert!(matches!(escape("ünïcode 名前 ✓"), Cow::Borrowed(_)));
        assert_eq!(escape("a\u{1b}[31mred\u{1b}[0m"), "a\\x1b[31mred\\x1b[0m");
        assert_eq!(escape("l1\nl2\r\tx"), "l1\\nl2\\r\\tx");
        assert_eq!(escape("\u{0}\u{7}\u{8}\u{7f}"), "\\x00\\x07\\x08\\x7f");
        assert_eq!(escape("\u{9b}2J\u{85}"), "\\u{9b}2J\\u{85}");
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(
            escape("\u{2066}\u{2069}\u{200e}\u{200f}\u{61c}\u{2028}\u{2029}"),
            "\\u{2066}\\u{2069}\\u{200e}\\u{200f}\\u{61c}\\u{2028}\\u{2029}"
        );
        // Backslashes are data like any other: nothing reaches the
        // terminal raw either way.
        assert_eq!(escape("\\x1b"), "\\x1b");
    }

    #[test]
    fn columns_escape_and_align_on_the_escaped_text() {
        let rows = vec![
            vec!["\u{1b}]0;pwned\u{7}".to_string(), "x".to_string()],
            vec!["ok".to_string(), "y".to_string()],
        ];
        assert_eq!(
            columns(&rows, 1),
            "\\x1b]0;pwned\\x07 x\nok               y\n"
        );
    }

    #[test]
    fn sort_fields_in_every_spelling() {
        for (f, k) in [
            ("name", SortKey::Name),
            ("NAME", SortKey::Name),
            (".metadata.name", SortKey::Name),
            ("{.metadata.name}", SortKey::Name),
            ("{.metadata.namespace}", SortKey::Namespace),
            ("namespace", SortKey::Namespace),
            (".kind", SortKey::Kind),
            ("type", SortKey::Type),
            ("phase", SortKey::Phase),
            ("{.pods}", SortKey::Pods),
            ("gpus", SortKey::Gpus),
            ("created", SortKey::Created),
            (".metadata.creationTimestamp", SortKey::Created),
            ("{.metadata.creationTimestamp}", SortKey::Created),
            ("age", SortKey::Age),
        ] {
            assert_eq!(parse_sort_key(f), Ok(k), "{f}");
        }
        let e = parse_sort_key("{.spec.replicas}").unwrap_err();
        assert!(e.contains("name, namespace, kind"), "{e}");
    }

    #[test]
    fn aligned_columns() {
        let rows = vec![
            vec!["A".to_string(), "BB".to_string(), "C".to_string()],
            vec!["long".to_string(), "x".to_string(), String::new()],
        ];
        assert_eq!(columns(&rows, 3), "A      BB   C\nlong   x\n");
    }
}
