//! The JSON scanner: the positions of a JSON text's values (with its depth,
//! node count and duplicate keys checked) in one iterative pass
//! ([`scan_json`]), or the position of one value, reading only what leads
//! there ([`locate_json`]).

use super::errors::{at_position, depth_error, nodes_error};
use super::path::{Segment, push_step};
use super::tree::{Built, Style, clamp_u32};
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;
use serde_json::Value;

/// Where the value at `steps` is in a JSON text that the fast reader
/// accepted, found by reading only what leads there (other values are
/// skipped, nothing is built): the position of the deepest step found (for a
/// mapping entry, its key; for the root, the root value) and how many steps
/// were found. The positions are those of [`scan_json`]'s index.
pub(super) fn locate_json(text: &str, steps: &[Segment]) -> (Option<(usize, usize)>, usize) {
    let b = text.as_bytes();
    let ws = |mut i: usize| {
        while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            i += 1;
        }
        i
    };
    let mut i = ws(0);
    if i >= b.len() {
        return (None, 0);
    }
    let mut best = position_at(b, i);
    for (found, step) in steps.iter().enumerate() {
        match (step, b.get(i)) {
            (Segment::Key(want), Some(b'{')) => {
                i = ws(i + 1);
                loop {
                    if b.get(i) != Some(&b'"') {
                        return (Some(best), found);
                    }
                    let key_at = i;
                    let Some(end) = skip_string(b, i) else {
                        return (Some(best), found);
                    };
                    let raw = text.get(key_at + 1..end - 1).unwrap_or("");
                    let same = if raw.contains('\\') {
                        text.get(key_at..end)
                            .and_then(|k| serde_json::from_str::<String>(k).ok())
                            .is_some_and(|k| *k == **want)
                    } else {
                        raw == &**want
                    };
                    i = ws(end);
                    if b.get(i) != Some(&b':') {
                        return (Some(best), found);
                    }
                    i = ws(i + 1);
                    if same {
                        best = position_at(b, key_at);
                        break;
                    }
                    let Some(after) = skip_value(b, i) else {
                        return (Some(best), found);
                    };
                    i = ws(after);
                    if b.get(i) != Some(&b',') {
                        return (Some(best), found);
                    }
                    i = ws(i + 1);
                }
            }
            (Segment::Index(want), Some(b'[')) => {
                i = ws(i + 1);
                if b.get(i) == Some(&b']') {
                    return (Some(best), found);
                }
                let mut n = 0usize;
                while n < *want {
                    let Some(after) = skip_value(b, i) else {
                        return (Some(best), found);
                    };
                    i = ws(after);
                    if b.get(i) != Some(&b',') {
                        return (Some(best), found);
                    }
                    i = ws(i + 1);
                    n += 1;
                }
                best = position_at(b, i);
            }
            _ => return (Some(best), found),
        }
    }
    (Some(best), steps.len())
}

/// Line and column (characters, 1-based) of byte `i`, as [`Cursor`] counts
/// them.
fn position_at(b: &[u8], i: usize) -> (usize, usize) {
    let before = b.get(..i).unwrap_or(b);
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |n| n + 1);
    let line = 1 + memchr::memchr_iter(b'\n', before).count();
    let column = 1 + before
        .get(line_start..)
        .unwrap_or_default()
        .iter()
        .filter(|&&c| c & 0xC0 != 0x80)
        .count();
    (line, column)
}

/// End (exclusive) of the string starting at the `"` at `i`.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    loop {
        j += memchr::memchr2(b'"', b'\\', b.get(j..)?)?;
        match b.get(j)? {
            b'\\' => j += 2,
            _ => return Some(j + 1),
        }
    }
}

/// End (exclusive) of the value starting at `i` (valid JSON: the fast
/// reader accepted the text), without recursion.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    let mut depth = 0usize;
    loop {
        match b.get(j)? {
            b'"' => j = skip_string(b, j)?,
            b'{' | b'[' => {
                depth += 1;
                j += 1;
            }
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                j += 1;
            }
            _ if depth == 0 => {
                // A scalar: up to the next delimiter.
                while !matches!(
                    b.get(j),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    j += 1;
                }
                return Some(j);
            }
            _ => j += 1,
        }
        if depth == 0 {
            return Some(j);
        }
    }
}

pub(super) struct JsonScan {
    /// The positions of the text's values.
    pub(super) built: Built,
    /// True when the scanner understood the whole text.
    pub(super) complete: bool,
    /// True when the scanner stopped at something that is YAML rather than
    /// broken JSON (an unquoted key or word, a single quote, a comment,
    /// content after the root value such as `---`).
    pub(super) yaml_hint: bool,
}

/// One open array or object of the scan. Paths are not built while
/// scanning (a long key above many values would be copied into every path
/// below it): each frame keeps only its own step from its parent, and
/// [`render_path`] spells the path out when an error needs it.
pub(super) struct JsonFrame {
    object: bool,
    node: u32,
    /// The step from the parent container to this one (`None` for the root).
    step: Option<Segment>,
    index: usize,
    /// Node and key of the entry whose key was just read.
    entry: Option<(u32, Box<str>)>,
    /// Byte offset of the `[` or `{`.
    start: usize,
}

/// The path of the open containers of `stack`, then `last`, in the spelling
/// of [`path_push_key`](super::path::path_push_key) and
/// [`path_push_index`](super::path::path_push_index), built in one pass
/// (linear in the length of the path). Only called for errors.
fn render_path(stack: &[JsonFrame], last: Option<&Segment>) -> String {
    let mut out = String::new();
    for step in stack.iter().filter_map(|f| f.step.as_ref()).chain(last) {
        push_step(&mut out, step);
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum JsonState {
    Value,
    ValueOrEnd,
    KeyOrEnd,
    Key,
    Colon,
    CommaOrEnd,
}

pub(super) struct Cursor<'a> {
    bytes: &'a [u8],
    i: usize,
    line: usize,
    column: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn advance_to(&mut self, target: usize) {
        while self.i < target {
            match self.bytes.get(self.i) {
                Some(b'\n') => {
                    self.line += 1;
                    self.column = 1;
                }
                Some(&b) if b & 0xC0 != 0x80 => self.column += 1,
                Some(_) => {}
                None => return,
            }
            self.i += 1;
        }
    }

    fn skip_whitespace(&mut self) {
        let mut j = self.i;
        while matches!(self.bytes.get(j), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            j += 1;
        }
        self.advance_to(j);
    }

    /// End (exclusive) of the string starting at the current `"`.
    fn string_end(&self) -> Option<usize> {
        let mut j = self.i + 1;
        loop {
            match self.bytes.get(j)? {
                b'\\' => j += 2,
                b'"' => return Some(j + 1),
                b'\n' => return None,
                _ => j += 1,
            }
        }
    }

    fn pos(&self) -> (usize, usize) {
        (self.line, self.column)
    }
}

/// Positions, depth, node count and duplicate keys of a JSON text, in one
/// iterative pass. Syntax errors are left to serde_json (the scan just stops).
pub(super) fn scan_json(text: &str, limits: &Limits) -> Result<JsonScan> {
    scan_json_with(text, limits, false)
}

/// [`scan_json`], recording too where each value's text is when `extents`
/// (the source map's reading).
pub(super) fn scan_json_with(text: &str, limits: &Limits, extents: bool) -> Result<JsonScan> {
    let mut cur = Cursor {
        bytes: text.as_bytes(),
        i: 0,
        line: 1,
        column: 1,
    };
    let mut built = if extents {
        Built::with_extents()
    } else {
        Built::default()
    };
    // The extent of a container that closes at the current byte.
    let close = |built: &mut Built, frame: Option<JsonFrame>, at: usize| {
        if let Some(f) = frame
            && extents
        {
            built.set_value_extent(f.node, (f.start, at + 1), Style::Other);
        }
    };
    let mut stack: Vec<JsonFrame> = Vec::new();
    let mut state = JsonState::Value;
    let mut nodes = 0usize;
    let mut done = false;
    let mut complete = false;
    let mut yaml_hint = false;
    loop {
        cur.skip_whitespace();
        let Some(c) = cur.peek() else {
            complete = done;
            break;
        };
        if c == b'#' || c == b'\'' {
            yaml_hint = true;
            break;
        }
        if done {
            yaml_hint = true; // more documents, or trailing garbage
            break;
        }
        match state {
            JsonState::Value | JsonState::ValueOrEnd => {
                if state == JsonState::ValueOrEnd && c == b']' {
                    close(&mut built, stack.pop(), cur.i);
                    cur.advance_to(cur.i + 1);
                    after_value(&mut stack, &mut state, &mut done);
                    continue;
                }
                let pos = cur.pos();
                let (node, step) = match stack.last_mut() {
                    None => (built.set_root(pos), None),
                    Some(top) if top.object => match top.entry.take() {
                        Some((node, key)) => (node, Some(Segment::Key(key))),
                        None => break,
                    },
                    Some(top) => {
                        let node = built.child(
                            top.node,
                            Segment::Index(top.index),
                            (clamp_u32(pos.0), clamp_u32(pos.1)),
                        );
                        (node, Some(Segment::Index(top.index)))
                    }
                };
                nodes += 1;
                if nodes > limits.max_input_nodes {
                    let path = render_path(&stack, step.as_ref());
                    return Err(at_position(nodes_error(limits), 0, pos.0, pos.1, &path));
                }
                match c {
                    b'{' | b'[' => {
                        if stack.len() + 1 > limits.max_depth {
                            let path = render_path(&stack, step.as_ref());
                            return Err(at_position(depth_error(limits), 0, pos.0, pos.1, &path));
                        }
                        let object = c == b'{';
                        stack.push(JsonFrame {
                            object,
                            node,
                            step,
                            index: 0,
                            entry: None,
                            start: cur.i,
                        });
                        state = if object {
                            JsonState::KeyOrEnd
                        } else {
                            JsonState::ValueOrEnd
                        };
                        cur.advance_to(cur.i + 1);
                    }
                    b'"' => {
                        let Some(end) = cur.string_end() else { break };
                        if extents {
                            built.set_value_extent(node, (cur.i, end), Style::Json);
                        }
                        cur.advance_to(end);
                        after_value(&mut stack, &mut state, &mut done);
                    }
                    _ => {
                        let mut j = cur.i;
                        while cur.bytes.get(j).is_some_and(|b| {
                            !matches!(
                                b,
                                b',' | b']'
                                    | b'}'
                                    | b':'
                                    | b'"'
                                    | b'['
                                    | b'{'
                                    | b' '
                                    | b'\t'
                                    | b'\n'
                                    | b'\r'
                            )
                        }) {
                            j += 1;
                        }
                        if j == cur.i {
                            break;
                        }
                        let word = text.get(cur.i..j).unwrap_or("");
                        if word.starts_with(|ch: char| ch.is_ascii_alphabetic())
                            && !matches!(word, "true" | "false" | "null")
                        {
                            yaml_hint = true;
                            break;
                        }
                        if extents {
                            built.set_value_extent(node, (cur.i, j), Style::Other);
                        }
                        cur.advance_to(j);
                        after_value(&mut stack, &mut state, &mut done);
                    }
                }
            }
            JsonState::KeyOrEnd | JsonState::Key => {
                if state == JsonState::KeyOrEnd && c == b'}' {
                    close(&mut built, stack.pop(), cur.i);
                    cur.advance_to(cur.i + 1);
                    after_value(&mut stack, &mut state, &mut done);
                    continue;
                }
                if c != b'"' {
                    yaml_hint = c.is_ascii_alphanumeric() || c == b'_' || c == b'?';
                    break;
                }
                let pos = cur.pos();
                let Some(end) = cur.string_end() else { break };
                let Some(Ok(key)) = text.get(cur.i..end).map(serde_json::from_str::<String>) else {
                    break;
                };
                let Some(top) = stack.last() else { break };
                let parent = top.node;
                let key: Box<str> = key.into();
                if let Some((l, col)) = built.lookup(parent, Segment::Key(key.clone())) {
                    let path = render_path(&stack, Some(&Segment::Key(key.clone())));
                    return Err(at_position(
                        Error::new(
                            ErrorCode::Parse,
                            format!(
                                "duplicate mapping key {} (first defined at line {l}, column {col})",
                                Value::String(key.into())
                            ),
                        ),
                        0,
                        pos.0,
                        pos.1,
                        &path,
                    ));
                }
                let node = built.child(
                    parent,
                    Segment::Key(key.clone()),
                    (clamp_u32(pos.0), clamp_u32(pos.1)),
                );
                if extents {
                    built.set_key_extent(node, (cur.i, end));
                }
                let Some(top) = stack.last_mut() else { break };
                top.entry = Some((node, key));
                cur.advance_to(end);
                state = JsonState::Colon;
            }
            JsonState::Colon => {
                if c != b':' {
                    break;
                }
                cur.advance_to(cur.i + 1);
                state = JsonState::Value;
            }
            JsonState::CommaOrEnd => {
                let Some(top) = stack.last() else { break };
                if c == b',' {
                    cur.advance_to(cur.i + 1);
                    state = if top.object {
                        JsonState::Key
                    } else {
                        JsonState::Value
                    };
                } else if (c == b'}' && top.object) || (c == b']' && !top.object) {
                    close(&mut built, stack.pop(), cur.i);
                    cur.advance_to(cur.i + 1);
                    after_value(&mut stack, &mut state, &mut done);
                } else {
                    break;
                }
            }
        }
    }
    Ok(JsonScan {
        built,
        complete,
        yaml_hint,
    })
}

pub(super) fn after_value(stack: &mut [JsonFrame], state: &mut JsonState, done: &mut bool) {
    match stack.last_mut() {
        None => *done = true,
        Some(top) => {
            if !top.object {
                top.index += 1;
            }
            *state = JsonState::CommaOrEnd;
        }
    }
}
