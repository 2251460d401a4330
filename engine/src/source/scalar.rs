//! Where each byte of a string value is in its source text: the written
//! form of a scalar (quotes, escapes, folded lines, block indentation) read
//! back with the offset of every character, so that a byte range of the
//! value (a jq expression's error span) is found in the text.
//!
//! This does not read YAML structure: the reader has already found the
//! scalar, its extent and its style (`super::tree::Style`); here only its
//! characters are followed, by the YAML 1.2 rules for each style (and
//! JSON's escapes). The decoded text is compared with the value the reader
//! gave: when they differ (a form these rules do not follow, such as a block
//! scalar with an explicit indentation indicator) there is no answer rather
//! than a wrong one.

use super::tree::Style;

/// The decoded text of a scalar and, for each of its bytes, the source
/// range `[start, end)` (relative to the scalar's text) of the character or
/// escape that produced it.
struct Decoded {
    text: String,
    from: Vec<(usize, usize)>,
    /// Where the content ends (before a closing quote).
    end: usize,
}

impl Decoded {
    fn push(&mut self, c: char, start: usize, end: usize) {
        self.text.push(c);
        for _ in 0..c.len_utf8() {
            self.from.push((start, end));
        }
    }
}

/// The range of `[start, end)` (byte offsets in `value`) in `source`, the
/// scalar's text as written (for a block scalar, from its first content
/// line; `indent` is the column, in bytes, where that line's content
/// starts), relative to `source`. `None` when the written form does not
/// decode to `value` by the rules of `style`.
pub(super) fn source_range(
    source: &str,
    indent: usize,
    style: Style,
    value: &str,
    span: [usize; 2],
) -> Option<(usize, usize)> {
    let d = match style {
        Style::Json | Style::DoubleQuoted => quoted(source, '"')?,
        Style::SingleQuoted => quoted(source, '\'')?,
        Style::Plain => flow(source, 0, source.len(), None),
        Style::Literal | Style::Folded => block(source, indent, style == Style::Folded),
        Style::Other => return None,
    };
    // Block scalars end with the line breaks their chomping keeps; the
    // source range of the scalar may hold more or fewer of them.
    let same = match style {
        Style::Literal | Style::Folded => {
            d.text.trim_end_matches('\n') == value.trim_end_matches('\n')
        }
        _ => d.text == value,
    };
    if !same {
        return None;
    }
    let [a, b] = span;
    let b = b.max(a);
    if b > value.len() {
        return None;
    }
    let start = d.from.get(a).map_or(d.end, |r| r.0);
    let end = match b.checked_sub(1).and_then(|i| d.from.get(i)) {
        Some(r) if b > a => r.1,
        _ => start,
    };
    Some((start, end.max(start)))
}

/// A double-quoted (`quote` `"`, JSON's escapes and YAML's) or
/// single-quoted (`''` is a quote) scalar.
fn quoted(source: &str, quote: char) -> Option<Decoded> {
    let inner_end = source.len().checked_sub(1)?;
    if !source.starts_with(quote) || !source[1..].ends_with(quote) || inner_end < 1 {
        return None;
    }
    Some(flow(source, 1, inner_end, Some(quote)))
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The length of the line break at `i` (`\n`, `\r\n`, `\r`), 0 when none.
fn line_break(s: &str, i: usize) -> usize {
    match s.as_bytes().get(i) {
        Some(b'\n') => 1,
        Some(b'\r') if s.as_bytes().get(i + 1) == Some(&b'\n') => 2,
        Some(b'\r') => 1,
        _ => 0,
    }
}

/// The content of a flow scalar (`source[start..end]`): plain (`quote`
/// `None`), single- or double-quoted. Line folding: the blanks around a
/// line break go; a single break becomes a space, each empty line after it
/// a line feed. Double-quoted: escapes, and an escaped line break joins
/// the lines.
fn flow(source: &str, start: usize, end: usize, quote: Option<char>) -> Decoded {
    let mut d = Decoded {
        text: String::new(),
        from: Vec::new(),
        end,
    };
    let mut i = start;
    while i < end {
        let Some(c) = source[i..end].chars().next() else {
            break;
        };
        let n = line_break(source, i);
        if n > 0 || is_blank(c) {
            // Blanks: kept unless a line break follows them.
            let mut j = i;
            while j < end && source[j..].starts_with(is_blank) {
                j += 1;
            }
            if line_break(source, j) == 0 || j >= end {
                for k in i..j {
                    d.push(source[k..].chars().next().unwrap_or(' '), k, k + 1);
                }
                i = j;
                continue;
            }
            // A line break, then empty lines: a space, or a line feed per
            // empty line.
            let first = j;
            j += line_break(source, j);
            let mut empties = Vec::new();
            loop {
                let mut k = j;
                while k < end && source[k..].starts_with(is_blank) {
                    k += 1;
                }
                let b = line_break(source, k);
                if b == 0 || k >= end {
                    j = k;
                    break;
                }
                empties.push(k);
                j = k + b;
            }
            if empties.is_empty() {
                d.push(' ', first, first + 1);
            }
            for e in empties {
                d.push('\n', e, e + 1);
            }
            i = j;
            continue;
        }
        match (quote, c) {
            (Some('\''), '\'') if source[i + 1..end].starts_with('\'') => {
                d.push('\'', i, i + 2);
                i += 2;
            }
            (Some('"'), '\\') => {
                let (decoded, len) = escape(source, i, end);
                match decoded {
                    Escape::Char(ch) => d.push(ch, i, i + len),
                    Escape::LineBreak => {
                        // Joined: the next line's leading blanks go too.
                        let mut j = i + len;
                        while j < end && source[j..].starts_with(is_blank) {
                            j += 1;
                        }
                        i = j;
                        continue;
                    }
                }
                i += len;
            }
            _ => {
                d.push(c, i, i + c.len_utf8());
                i += c.len_utf8();
            }
        }
    }
    d
}

enum Escape {
    Char(char),
    LineBreak,
}

/// The escape at `source[i]` (a backslash): what it stands for and its
/// length. JSON's `\uD83D\uDE00` surrogate pairs are one character.
fn escape(source: &str, i: usize, end: usize) -> (Escape, usize) {
    let rest = &source[i + 1..end];
    let Some(c) = rest.chars().next() else {
        return (Escape::Char('\\'), 1);
    };
    let hex = |n: usize| -> Option<u32> {
        let digits = rest.get(1..1 + n)?;
        u32::from_str_radix(digits, 16).ok()
    };
    let simple = |ch: char| (Escape::Char(ch), 1 + c.len_utf8());
    match c {
        '0' => simple('\0'),
        'a' => simple('\x07'),
        'b' => simple('\x08'),
        't' | '\t' => simple('\t'),
        'n' => simple('\n'),
        'v' => simple('\x0b'),
        'f' => simple('\x0c'),
        'r' => simple('\r'),
        'e' => simple('\x1b'),
        ' ' => simple(' '),
        '"' => simple('"'),
        '/' => simple('/'),
        '\\' => simple('\\'),
        'N' => simple('\u{85}'),
        '_' => simple('\u{a0}'),
        'L' => simple('\u{2028}'),
        'P' => simple('\u{2029}'),
        'x' => match hex(2).and_then(char::from_u32) {
            Some(ch) => (Escape::Char(ch), 4),
            None => simple('x'),
        },
        'U' => match hex(8).and_then(char::from_u32) {
            Some(ch) => (Escape::Char(ch), 10),
            None => simple('U'),
        },
        'u' => {
            let Some(high) = hex(4) else {
                return simple('u');
            };
            if (0xD800..0xDC00).contains(&high)
                && rest.get(5..7) == Some("\\u")
                && let Some(low) = rest
                    .get(7..11)
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                && (0xDC00..0xE000).contains(&low)
                && let Some(ch) = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            {
                return (Escape::Char(ch), 12);
            }
            match char::from_u32(high) {
                Some(ch) => (Escape::Char(ch), 6),
                None => simple('u'),
            }
        }
        '\n' | '\r' => (Escape::LineBreak, 1 + line_break(source, i + 1)),
        other => simple(other),
    }
}

/// The content of a block scalar (`|` literal, `>` folded), from its first
/// content line, whose content starts at column `indent` (bytes): each
/// line without its indentation; a folded scalar joins lines that start
/// with no blank by a space (the libyaml algorithm). Chomping is left out:
/// the caller compares without the final line breaks.
fn block(source: &str, indent: usize, folded: bool) -> Decoded {
    let mut d = Decoded {
        text: String::new(),
        from: Vec::new(),
        end: 0,
    };
    // (position of the previous line's break, whether there is one)
    let mut leading_break: Option<usize> = None;
    let mut trailing_breaks: Vec<usize> = Vec::new();
    let mut leading_blank = false;
    let mut i = 0;
    let mut first = true;
    while i < source.len() {
        // Indentation (the first line's was before the source).
        let line_start = i;
        if !first {
            while i < source.len() && i - line_start < indent && source[i..].starts_with(' ') {
                i += 1;
            }
        }
        let n = line_break(source, i);
        if n > 0 || i >= source.len() {
            // An empty (or short) line.
            if i >= source.len() {
                break;
            }
            trailing_breaks.push(i);
            i += n;
            first = false;
            continue;
        }
        if !first && i - line_start < indent {
            // Less indented: the scalar is over.
            break;
        }
        let trailing_blank = source[i..].starts_with(is_blank);
        // Folded: a break between two lines that start with no blank is a
        // space, or nothing when empty lines follow it (they are the line
        // feeds); any other break is kept.
        let fold = folded && !leading_blank && !trailing_blank;
        match leading_break {
            Some(at) if fold && trailing_breaks.is_empty() => d.push(' ', at, at + 1),
            Some(_) if fold => {}
            Some(at) => d.push('\n', at, at + 1),
            None => {}
        }
        for &at in &trailing_breaks {
            d.push('\n', at, at + 1);
        }
        trailing_breaks.clear();
        leading_blank = trailing_blank;
        while i < source.len() && line_break(source, i) == 0 {
            let Some(c) = source[i..].chars().next() else {
                break;
            };
            d.push(c, i, i + c.len_utf8());
            i += c.len_utf8();
        }
        d.end = i;
        let n = line_break(source, i);
        leading_break = (n > 0).then_some(i);
        i += n;
        first = false;
    }
    if let Some(at) = leading_break {
        d.push('\n', at, at + 1);
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The source text of `span` of `value`.
    fn at<'a>(
        source: &'a str,
        indent: usize,
        style: Style,
        value: &str,
        span: [usize; 2],
    ) -> Option<&'a str> {
        let (a, b) = source_range(source, indent, style, value, span)?;
        source.get(a..b)
    }

    #[test]
    fn plain_and_folded_lines() {
        assert_eq!(at("a | b", 0, Style::Plain, "a | b", [4, 5]), Some("b"));
        let src = "first\n    second\n\n    third";
        let value = "first second\nthird";
        assert_eq!(at(src, 0, Style::Plain, value, [6, 12]), Some("second"));
        assert_eq!(at(src, 0, Style::Plain, value, [13, 18]), Some("third"));
        // A value that is not the text's: no answer.
        assert_eq!(at(src, 0, Style::Plain, "first", [0, 1]), None);
    }

    #[test]
    fn quoted_escapes() {
        let src = r#"".a[\"x\"] | \u00e9 \uD83D\uDE00 z""#;
        let value = ".a[\"x\"] | é 😀 z";
        let z = value.find('z').unwrap();
        assert_eq!(at(src, 0, Style::Json, value, [z, z + 1]), Some("z"));
        let e = value.find('é').unwrap();
        assert_eq!(at(src, 0, Style::Json, value, [e, e + 2]), Some("\\u00e9"));
        assert_eq!(at(src, 0, Style::Json, value, [3, 6]), Some("\\\"x\\\""));
        let emoji = value.find('😀').unwrap();
        assert_eq!(
            at(src, 0, Style::Json, value, [emoji, emoji + 4]),
            Some("\\uD83D\\uDE00")
        );
        // Single quotes: '' is one quote.
        assert_eq!(
            at("'it''s x'", 0, Style::SingleQuoted, "it's x", [5, 6]),
            Some("x")
        );
        // An escaped line break joins the lines.
        let src = "\"ab\\\n   cd\"";
        assert_eq!(at(src, 0, Style::DoubleQuoted, "abcd", [2, 4]), Some("cd"));
    }

    #[test]
    fn block_scalars() {
        // `key: |` then lines indented by 4: the source starts at the first
        // line's content.
        let src = "line1\n    .x | length\n\n    last\n  ";
        let value = "line1\n.x | length\n\nlast\n";
        assert_eq!(at(src, 4, Style::Literal, value, [6, 8]), Some(".x"));
        let l = value.find("last").unwrap();
        assert_eq!(at(src, 4, Style::Literal, value, [l, l + 4]), Some("last"));
        let folded = "line1 .x | length\nlast";
        let l = folded.find("length").unwrap();
        assert_eq!(
            at(src, 4, Style::Folded, folded, [l, l + 6]),
            Some("length")
        );
        // More-indented lines keep their breaks.
        let src = "a\n    b\n      c\n    d";
        let value = "a b\n  c\nd";
        assert_eq!(at(src, 4, Style::Folded, value, [6, 7]), Some("c"));
        assert_eq!(at(src, 4, Style::Folded, value, [8, 9]), Some("d"));
    }

    #[test]
    fn spans_at_the_ends() {
        assert_eq!(at("abc", 0, Style::Plain, "abc", [3, 3]), Some(""));
        assert_eq!(at("abc", 0, Style::Plain, "abc", [1, 0]), Some(""));
        assert_eq!(at("abc", 0, Style::Plain, "abc", [0, 9]), None);
        assert_eq!(at("\"\"", 0, Style::Json, "", [0, 0]), Some(""));
        assert_eq!(at("x", 0, Style::Other, "x", [0, 1]), None);
    }
}
