// Where a definition field (`spec.structureDefinition.childComponents[1].
// specDefinition.podTemplateSpecPath`) is in YAML text, and where a byte
// span of its jq expression is. The engine gives line/column for validation
// findings and compile errors; evaluation errors name only the field, and a
// span is relative to the expression, so the editor needs this mapping. It
// reads block-style YAML (as definitions are written) and finds keys in
// single-line flow mappings; when it cannot tell, it returns null and the
// caller falls back to the engine's line/column.

const indentOf = (l) => l.length - l.trimStart().length;
const isContent = (l) => l.trim() !== '' && !l.trimStart().startsWith('#');
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Split `a.b[2].c` into ['a', 'b', 2, 'c']. */
export function fieldSegments(field) {
  return [...String(field).matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]));
}

/** The value after `key:` on a line starting at `c`: {col, text} or null when it is on the next lines. */
function inlineValue(line, afterColon) {
  const rest = line.slice(afterColon);
  const t = rest.trimStart();
  if (t === '' || t.startsWith('#')) return null;
  return { col: afterColon + (rest.length - t.length), text: t };
}

function blockAfter(lines, i, keyCol) {
  let j = i + 1;
  while (j < lines.length && !isContent(lines[j])) j++;
  if (j >= lines.length) return null;
  const ind = indentOf(lines[j]);
  const seqAtKey = ind === keyCol && lines[j].trimStart().startsWith('-');
  if (ind <= keyCol && !seqAtKey) return null;
  let end = j + 1;
  for (; end < lines.length; end++) {
    if (!isContent(lines[end])) continue;
    const e = indentOf(lines[end]);
    if (e < ind || (e === ind && seqAtKey && !lines[end].trimStart().startsWith('-'))) break;
  }
  return { start: j, end, col: ind };
}

/**
 * Locate a field. Returns {line, column, value: {line, column, block}} with
 * 0-based lines and columns, or null.
 */
export function locateField(text, field) {
  const lines = text.split('\n');
  let region = { start: 0, end: lines.length, col: 0 };
  while (region.start < lines.length && !isContent(lines[region.start])) region.start++;
  if (region.start >= lines.length) return null;
  region.col = indentOf(lines[region.start]);
  let found = null;
  for (const seg of fieldSegments(field)) {
    const first = lines[region.start].slice(region.col);
    if (region.flow || first.startsWith('{') || first.startsWith('[')) {
      // A flow collection: find the key on this line (approximate).
      if (typeof seg === 'number') continue;
      const m = new RegExp(`(^|[{,\\s])(${escapeRe(seg)}|"${escapeRe(seg)}"|'${escapeRe(seg)}')\\s*:`).exec(lines[region.start].slice(region.col));
      if (!m) return found;
      const c = region.col + m.index + m[1].length;
      const after = region.col + m.index + m[0].length;
      const v = inlineValue(lines[region.start], after);
      found = { line: region.start, column: c, value: v ? { line: region.start, column: v.col, block: false } : null };
      region = { start: region.start, end: region.start + 1, col: v ? v.col : after, flow: true };
      continue;
    }
    let hit = null;
    if (typeof seg === 'number') {
      let n = -1;
      for (let i = region.start; i < region.end; i++) {
        if (!isContent(lines[i])) continue;
        const c = i === region.start ? region.col : indentOf(lines[i]);
        if (c < region.col) break;
        if (c !== region.col || !/^-(\s|$)/.test(lines[i].slice(c))) continue;
        if (++n === seg) {
          const after = lines[i].slice(c + 1);
          const inner = c + 1 + (after.length - after.trimStart().length);
          let end = i + 1;
          for (; end < region.end; end++) {
            if (isContent(lines[end]) && indentOf(lines[end]) <= c) break;
          }
          hit = { line: i, column: c, next: inner < lines[i].length && !lines[i].slice(inner).startsWith('#')
            ? { start: i, end, col: inner }
            : blockAfter(lines, i, c) };
          break;
        }
      }
    } else {
      const keyRe = new RegExp(`^(${escapeRe(seg)}|"${escapeRe(seg)}"|'${escapeRe(seg)}')\\s*:(\\s|$)`);
      for (let i = region.start; i < region.end; i++) {
        if (!isContent(lines[i])) continue;
        const c = i === region.start ? region.col : indentOf(lines[i]);
        if (c < region.col) break;
        if (c !== region.col) continue;
        const m = keyRe.exec(lines[i].slice(c));
        if (!m) continue;
        const afterColon = c + m[0].length - m[2].length;
        const v = inlineValue(lines[i], afterColon);
        const block = v && /^[|>]/.test(v.text);
        hit = {
          line: i,
          column: c,
          next: v && !block ? { start: i, end: i + 1, col: v.col } : blockAfter(lines, i, c),
          block,
        };
        break;
      }
    }
    if (!hit) return found;
    found = {
      line: hit.line,
      column: hit.column,
      value: hit.next ? { line: hit.next.start, column: hit.next.col, block: hit.next.start !== hit.line } : null,
    };
    if (!hit.next) {
      region = null;
      break;
    }
    region = hit.next;
  }
  return found;
}

/**
 * Map a byte span of a scalar's value (a jq expression) to editor offsets.
 * `doc` has `line(n)` (1-based) returning {from, text} (CodeMirror's Text).
 * Returns {from, to} or null.
 */
export function mapSpan(doc, value, expression, span) {
  if (!value || !span) return null;
  // Byte offsets (UTF-8) to character offsets in the expression.
  const enc = new TextEncoder();
  const charAt = (byte) => {
    let bytes = 0;
    let i = 0;
    for (const ch of expression) {
      if (bytes >= byte) break;
      bytes += enc.encode(ch).length;
      i += ch.length;
    }
    return i;
  };
  const [a, b] = [charAt(span[0]), charAt(Math.max(span[1], span[0]))];
  if (!value.block) {
    const line = doc.line(value.line + 1);
    const quoted = /^["']/.test(line.text.slice(value.column)) ? 1 : 0;
    const base = line.from + value.column + quoted;
    return { from: Math.min(base + a, line.to), to: Math.min(base + Math.max(b, a + 1), line.to) };
  }
  // A block (literal/folded) or multi-line plain scalar: each content line
  // contributes its text after the indentation plus one separator.
  let offset = 0;
  let from = null;
  let to = null;
  for (let n = value.line + 1; n <= doc.lines; n++) {
    const line = doc.line(n);
    if (line.text.trim() !== '' && indentOf(line.text) < value.column) break;
    const start = line.from + Math.min(value.column, line.text.length);
    const len = Math.max(0, line.text.length - value.column);
    if (from === null && a <= offset + len) from = start + (a - offset);
    if (from !== null && b <= offset + len) {
      to = start + (b - offset);
      break;
    }
    offset += len + 1;
  }
  if (from === null) return null;
  if (to === null || to <= from) to = from + 1;
  return { from, to };
}
