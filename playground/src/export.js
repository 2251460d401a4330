// Export the current inputs and result as a conformance case group
// (conformance/README.md): a `resolve` case whose expectation is what the
// engine gave and, when the engine diagnosed the workload, a `diagnose` case
// with its pods, events and related objects and the diagnosis, as YAML (a small emitter; every string is either a JSON-style
// double-quoted scalar or a literal block, both plain YAML 1.2).

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const key = (k) => (PLAIN_KEY.test(k) && !['true', 'false', 'null', 'yes', 'no', 'on', 'off', 'y', 'n'].includes(k.toLowerCase()) ? k : JSON.stringify(k));

function scalar(v) {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean' || typeof v === 'number') return Number.isFinite(v) || typeof v === 'boolean' ? String(v) : 'null';
  return JSON.stringify(String(v));
}

/** A literal block for multi-line text that survives a round trip, else null. */
function literal(s, indent) {
  if (!s.includes('\n') || /[\r\u0085\u2028\u2029\t]/.test(s) || /[^\S\n]\n|[^\S\n]$/.test(s)) return null;
  // Characters YAML does not allow in a block scalar as printed.
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufeff]/.test(s)) return null;
  const body = s.replace(/\n+$/, '');
  const trailing = s.length - body.length;
  // Leading spaces would need an indentation indicator: use a quoted scalar.
  if (body === '' || /^[\n]*[ ]/.test(body)) return null;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const lines = s.split('\n');
  if (chomp !== '-') lines.pop();
  return `|${chomp}\n` + lines.map((l) => (l === '' ? '' : indent + l)).join('\n');
}

function emit(v, indent) {
  const next = indent + '  ';
  if (Array.isArray(v)) {
    if (v.length === 0) return ' []';
    return '\n' + v.map((item) => {
      const body = emit(item, next);
      if (isBlock(item)) return `${indent}-${body.replace(/^\n\s*/, ' ')}`;
      return `${indent}-${body}`;
    }).join('\n');
  }
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (keys.length === 0) return ' {}';
    return '\n' + keys.map((k) => `${indent}${key(k)}:${emit(v[k], next)}`).join('\n');
  }
  if (typeof v === 'string') {
    const lit = literal(v, indent);
    if (lit) return ' ' + lit;
  }
  return ' ' + scalar(v);
}

const isBlock = (v) => (Array.isArray(v) && v.length > 0) || (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0);

/** Any JSON value as a YAML document. */
export function toYaml(value) {
  return emit(value, '').replace(/^\n/, '').replace(/^ /, '') + '\n';
}

/** The conformance error expectation E of an engine error. */
export function errorExpectation(e) {
  const out = { code: e.code };
  if (e.limit) out.limit = e.limit;
  const loc = e.location ?? {};
  for (const k of ['field', 'component', 'instance', 'line', 'column', 'span']) if (loc[k] !== undefined) out[k] = loc[k];
  if (e.findings?.length) {
    out.findings = e.findings.map((f) => {
      const x = { code: f.code, severity: f.severity };
      if (f.location?.field !== undefined) x.field = f.location.field;
      if (f.location?.line !== undefined) x.line = f.location.line;
      return x;
    });
  }
  return out;
}

const slug = (s) => String(s || 'case').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'case';

/**
 * The case group for the current inputs and result.
 * @param {{definition: string, object: string, pods: string, events?: string, related?: string}} inputs
 * @param {object} result the worker's answer
 */
export function caseGroup(inputs, result, now = new Date()) {
  const name = `playground/${slug(result.definition?.name ?? 'definition')}-${slug(result.object?.metadata?.name ?? 'object')}`;
  const note = `exported from the workload-lens playground (${now.toISOString().slice(0, 10)})`;
  const c = { name, op: 'resolve', note };
  c.definition = { text: inputs.definition };
  if (result.object !== undefined) c.object = result.object;
  else c.objectText = inputs.object;
  if (result.podItems) c.pods = result.podItems;
  const err = result.definitionError ?? result.objectError ?? result.podsError ?? result.resolveError;
  c.expect = err ? { error: errorExpectation(err) } : { result: result.resolved };
  const cases = [c];
  if (result.diagnosis || result.diagnoseError) {
    const w = { name: `${name}-why`, op: 'diagnose', note, definition: c.definition, object: result.object };
    if (result.podItems) w.pods = result.podItems;
    if (result.eventsItems) w.events = result.eventsItems;
    if (result.relatedItems) w.related = result.relatedItems;
    w.expect = result.diagnoseError ? { error: errorExpectation(result.diagnoseError) } : { result: result.diagnosis };
    cases.push(w);
  }
  return {
    note: 'Cases exported from the workload-lens playground: the inputs and the results the engine gave. Review the expectations before adding them to conformance/cases/.',
    cases,
  };
}
