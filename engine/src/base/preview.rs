//! Values and lists shown in messages: types with a short preview of the
//! value, lists cut to a bound.

use crate::jq::format;
use serde_json::Value;

/// Describe a JSON value's type for messages, e.g. `number (3)`.
pub(crate) fn preview(v: &Value) -> String {
    let t = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let mut s = format::to_jq_string(v);
    if matches!(v, Value::String(_)) {
        s = format!("{s:?}");
    }
    if s.len() > 60 {
        let cut = (0..=60).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
        s = format!("{}...", &s[..cut]);
    }
    format!("{t} ({s})")
}

/// Most bytes of a list shown in a message ([`preview_list`],
/// [`preview_join`]).
pub(crate) const PREVIEW_BYTES: usize = 200;

/// Most items of a list shown in a message ([`preview_list`]).
pub(crate) const PREVIEW_ITEMS: usize = 10;

/// The longest prefix of `s` of at most `max` bytes that ends on a
/// character boundary.
pub(crate) fn head(s: &str, max: usize) -> &str {
    let cut = (0..=max.min(s.len()))
        .rev()
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(0);
    &s[..cut]
}

/// A list for a message: the items joined by `sep` when there are at most
/// [`PREVIEW_ITEMS`] of them in at most [`PREVIEW_BYTES`]; otherwise the
/// first ones that fit (a cut first item ending in `...` when even that
/// does not fit), then `and N more`. Only the shown items are copied.
pub(crate) fn preview_list<'a>(items: impl ExactSizeIterator<Item = &'a str>, sep: &str) -> String {
    let total = items.len();
    let mut out = String::new();
    let mut shown = 0usize;
    for item in items.take(PREVIEW_ITEMS) {
        let extra = if shown == 0 { 0 } else { sep.len() };
        if out.len() + extra + item.len() > PREVIEW_BYTES {
            if shown == 0 {
                out.push_str(head(item, PREVIEW_BYTES));
                out.push_str("...");
                shown = 1;
            }
            break;
        }
        if shown > 0 {
            out.push_str(sep);
        }
        out.push_str(item);
        shown += 1;
    }
    if shown < total {
        if shown > 0 {
            out.push_str(sep);
        }
        out.push_str(&format!("and {} more", total - shown));
    }
    out
}

/// `items` joined by `sep`, and whether that is the whole list: at most
/// [`PREVIEW_BYTES`] of it (cut on a character boundary) are copied,
/// however long the items are.
pub(crate) fn preview_join(items: &[String], sep: &str) -> (String, bool) {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        for part in [if i == 0 { "" } else { sep }, item.as_str()] {
            let room = PREVIEW_BYTES - out.len();
            if part.len() > room {
                out.push_str(head(part, room));
                return (out, false);
            }
            out.push_str(part);
        }
    }
    (out, true)
}
