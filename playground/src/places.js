// Where the engine's results are in the editors' texts. The worker asks the
// engine's source maps (`sourceMap`) where each location of a result is; this
// module only names those questions (the same location gives the same key in
// the worker and in the page) and turns the engine's positions (1-based line,
// column in characters) into editor offsets. Nothing here reads YAML: every
// position is the engine's.

/** The question for a location in the definition text: a finding, or an error naming a definition field (and a jq span). */
export function fieldQuery(loc) {
  const q = { path: loc.field, nearest: true };
  if (loc.document !== undefined) q.document = loc.document;
  if (loc.span && typeof loc.expression === 'string') {
    q.span = loc.span;
    q.expression = loc.expression;
  }
  return q;
}

/**
 * The questions for a location in the object text, best first: a path in a
 * component instance's pod template (as resolve's errors name pod fields),
 * then the same path from the object's root.
 */
export function objectQueries(loc) {
  const plain = { object: 0, path: loc.objectPath ?? '', nearest: true };
  if (!loc.component) return [plain];
  const inTemplate = { ...plain, component: loc.component };
  if (loc.instance) inTemplate.instance = loc.instance;
  return [inTemplate, plain];
}

/** The key of a question in the worker's answer (`places`). */
export const keyOf = (q) => JSON.stringify(q);

/** The editor offset of an engine position (`{line, column}`) in a CodeMirror document. */
export function offsetOf(doc, pos) {
  const line = doc.line(Math.min(Math.max(1, pos.line), doc.lines));
  // Columns count characters; the editor counts UTF-16 code units.
  let at = 0;
  let n = 1;
  for (const ch of line.text) {
    if (n >= pos.column) break;
    at += ch.length;
    n += 1;
  }
  return line.from + at;
}

/** A span of the engine (`{start, end}`) as an editor range (never empty). */
export function rangeOf(doc, span) {
  const from = offsetOf(doc, span.start);
  const to = Math.max(offsetOf(doc, span.end), from);
  return { from, to: to > from ? to : Math.min(from + 1, doc.length) };
}

/** From an engine position to the end of its line (without trailing blanks): a key and what follows it. */
export function restOfLine(doc, pos) {
  const from = offsetOf(doc, pos);
  const line = doc.lineAt(from);
  return { from, to: Math.max(from, line.from + line.text.trimEnd().length) };
}
