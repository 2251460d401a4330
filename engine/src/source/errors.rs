//! The errors the readers raise: a limit breached, bytes that are not
//! UTF-8, and the position an error is located at.

use crate::error::{Error, ErrorCode, Location, Result};
use crate::limits::Limits;

/// The parse error of bytes that are not UTF-8, located at the first
/// invalid byte.
pub(super) fn utf8_error(bytes: &[u8], e: &std::str::Utf8Error) -> Error {
    let offset = e.valid_up_to();
    let prefix = bytes
        .get(..offset)
        .and_then(|b| std::str::from_utf8(b).ok())
        .unwrap_or("");
    let (line, column) = end_position(prefix);
    Error::new(
        ErrorCode::Parse,
        format!("input is not valid UTF-8: invalid byte at offset {offset}"),
    )
    .at(Location {
        line: Some(line),
        column: Some(column),
        ..Location::default()
    })
}

pub(super) fn check_input_size(len: usize, limits: &Limits) -> Result<()> {
    if len > limits.max_input_bytes {
        return Err(Error::limit_error(
            "maxInputBytes",
            format!(
                "input is {len} bytes, more than the limit maxInputBytes ({})",
                limits.max_input_bytes
            ),
        ));
    }
    Ok(())
}

/// 1-based line and column just after `prefix`.
pub(super) fn end_position(prefix: &str) -> (usize, usize) {
    let line = 1 + prefix.bytes().filter(|&b| b == b'\n').count();
    let last_line = prefix.rsplit('\n').next().unwrap_or("");
    (line, last_line.chars().count() + 1)
}

pub(super) fn at_position(
    err: Error,
    document: usize,
    line: usize,
    column: usize,
    field: &str,
) -> Error {
    err.at(Location {
        document: (document > 0).then_some(document),
        field: (!field.is_empty()).then(|| field.to_string()),
        line: Some(line),
        column: Some(column),
        ..Location::default()
    })
}

pub(super) fn depth_error(limits: &Limits) -> Error {
    Error::limit_error(
        "maxDepth",
        format!(
            "input nesting is deeper than the limit maxDepth ({})",
            limits.max_depth
        ),
    )
}

pub(super) fn nodes_error(limits: &Limits) -> Error {
    Error::limit_error(
        "maxInputNodes",
        format!(
            "document has more values than the limit maxInputNodes ({})",
            limits.max_input_nodes
        ),
    )
}
