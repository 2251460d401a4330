// The conformance runner of the JavaScript API (conformance/README.md,
// "Writing a runner"): a mirror of the Rust runner (conformance/src/lib.rs)
// and of the Python one (bindings-python/tests/conformance_runner.py): the
// same operations on the same inputs, the same canonical outcome
// ({result: R} or {error: E}) and the same comparison rules.
//
// Environment-neutral (no Node imports): the caller hands in the public API
// (the native build, or the WASM build in Node or a browser) and the parsed
// suite.json, and writes the results where it can. Used by
// tests/conformance.test.mjs (runtime `node`) and by the WASM tests
// (`wasm-node`, `wasm-chromium`).
//
// Cases may write big inputs small with generators (conformance/README.md,
// "Generated inputs"); runCase expands them (expandCase) and compare expands
// the expectation's, with the rules of conformance/src/generate.rs.

export const FORMAT = 'workload-lens-conformance/v1';

/** A malformed case for this runner (the Rust runner's `Err(String)`). */
export class CannotRun extends Error {}

class Outcome {
  constructor(value) { this.value = value; }
}

// --- canonical JSON (conformance/src/lib.rs `canonical`) -------------------

export function canonical(v) {
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'number') {
    if (v === 0) return '0';
    if (Number.isInteger(v) && Math.abs(v) < 9007199254740992) return String(v);
    return String(v);
  }
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort(byCodePoint);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  throw new TypeError(`not a JSON value: ${typeof v}`);
}

/** Rust sorts keys by bytes (UTF-8), which is code point order. */
function byCodePoint(a, b) {
  if (a === b) return 0;
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** `serde_json::Value::to_string()`: compact, keys sorted. */
export function rustJson(v) {
  return JSON.stringify(v, (_k, x) => {
    if (x !== null && typeof x === 'object' && !Array.isArray(x)) {
      const out = {};
      for (const k of Object.keys(x).sort(byCodePoint)) out[k] = x[k];
      return out;
    }
    return x;
  });
}

// --- generators (conformance/src/generate.rs) -------------------------------

/** Values one case may generate. */
export const GENERATE_MAX_ELEMENTS = 10_000_000;
/** Bytes of strings (UTF-8, keys included) one case may generate. */
export const GENERATE_MAX_BYTES = 64 * 1024 * 1024;
/** Deepest nesting the expansion walks. */
export const GENERATE_MAX_NESTING = 256;

const DIRECTIVES = new Set(['$generate', '$repeat', '$concat']);

/** UTF-8 length of a JS string (lone surrogates count 3, as WTF-8). */
function utf8Length(s) {
  let n = s.length;
  for (let i = 0; i < s.length; i += 1) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2; // 4 bytes for 2 units
        i += 1;
        continue;
      }
    }
    if (c >= 0x800) n += 2;
    else if (c >= 0x80) n += 1;
  }
  return n;
}

function charge(budget, elements, bytes) {
  budget.elements += elements;
  budget.bytes += bytes;
  if (budget.elements > GENERATE_MAX_ELEMENTS) {
    throw new CannotRun(`generators: more than ${GENERATE_MAX_ELEMENTS} generated values in one case`);
  }
  if (budget.bytes > GENERATE_MAX_BYTES) {
    throw new CannotRun(`generators: more than ${GENERATE_MAX_BYTES} generated string bytes in one case`);
  }
}

function directive(v) {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const keys = Object.keys(v);
  return keys.length === 1 && DIRECTIVES.has(keys[0]) ? keys[0] : null;
}

function fieldsOf(arg, what, keys, optional = []) {
  if (arg === null || typeof arg !== 'object' || Array.isArray(arg) || !keys.every((k) => k in arg)
    || !Object.keys(arg).every((k) => keys.includes(k) || optional.includes(k))) {
    throw new CannotRun(`${what} takes ${JSON.stringify(keys)} (and optionally ${JSON.stringify(optional)})`);
  }
  return arg;
}

function countOf(o, key, what) {
  const n = o[key];
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw new CannotRun(`${what}: \`${key}\` must be a non-negative integer`);
  }
  return n;
}

/** Values and UTF-8 string bytes (keys included) of an expanded value. */
function sizeOf(v) {
  if (typeof v === 'string') return [1, utf8Length(v)];
  if (Array.isArray(v)) {
    let n = 1;
    let b = 0;
    for (const x of v) {
      const [m, c] = sizeOf(x);
      n += m;
      b += c;
    }
    return [n, b];
  }
  if (v !== null && typeof v === 'object') {
    let n = 1;
    let b = 0;
    for (const [k, x] of Object.entries(v)) {
      const [m, c] = sizeOf(x);
      n += m;
      b += c + utf8Length(k);
    }
    return [n, b];
  }
  return [1, 0];
}

function replaceIndex(s, i) {
  if (!s.includes('{i')) return s;
  return s.replaceAll('{i-1}', String(i - 1)).replaceAll('{i}', String(i));
}

function substitute(v, i) {
  if (typeof v === 'string') return replaceIndex(v, i);
  if (Array.isArray(v)) return v.map((x) => substitute(x, i));
  if (v !== null && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[replaceIndex(k, i)] = substitute(x, i);
    return out;
  }
  return v;
}

function expandAt(v, budget, depth) {
  if (depth > GENERATE_MAX_NESTING) {
    throw new CannotRun(`generators: a case value nested deeper than ${GENERATE_MAX_NESTING} levels`);
  }
  const name = directive(v);
  if (name === '$repeat') {
    const o = fieldsOf(v[name], '$repeat', ['string', 'times']);
    if (typeof o.string !== 'string') throw new CannotRun('$repeat: `string` must be a string');
    const times = countOf(o, 'times', '$repeat');
    charge(budget, 1, utf8Length(o.string) * times);
    if (o.string === '') return '';
    if (!o.string.includes('{i')) return o.string.repeat(times);
    const parts = new Array(times);
    for (let i = 0; i < times; i += 1) parts[i] = replaceIndex(o.string, i);
    return parts.join('');
  }
  if (name === '$concat') {
    if (!Array.isArray(v[name])) throw new CannotRun('$concat takes an array');
    const items = v[name].map((x) => expandAt(x, budget, depth + 1));
    if (items.length > 0 && items.every(Array.isArray)) {
      charge(budget, 1, 0);
      return items.flat(1);
    }
    if (!items.every((x) => typeof x === 'string')) {
      throw new CannotRun('$concat: the items must be all strings or all arrays');
    }
    charge(budget, 1, items.reduce((n, x) => n + utf8Length(x), 0));
    return items.join('');
  }
  if (name === '$generate') {
    const o = fieldsOf(v[name], '$generate', ['count', 'template'], ['start']);
    const count = countOf(o, 'count', '$generate');
    const start = 'start' in o ? Math.min(countOf(o, 'start', '$generate'), 2 ** 53) : 0;
    const template = expandAt(o.template, budget, depth + 1);
    const [nodes, bytes] = sizeOf(template);
    charge(budget, count * nodes + 1, count * bytes);
    const out = new Array(count);
    for (let i = 0; i < count; i += 1) out[i] = substitute(template, start + i);
    return out;
  }
  if (Array.isArray(v)) return v.map((x) => expandAt(x, budget, depth + 1));
  if (v !== null && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = expandAt(x, budget, depth + 1);
    return out;
  }
  return v;
}

/** Whether `v` holds a generator (a value without one need not be expanded, or copied). */
export function hasGenerators(v) {
  const stack = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (directive(x) !== null) return true;
    // (A loop, not push(...x): a spread of 100,000 items overflows the stack.)
    if (Array.isArray(x)) for (const y of x) stack.push(y);
    else if (x !== null && typeof x === 'object') for (const y of Object.values(x)) stack.push(y);
  }
  return false;
}

/** `v` with every generator expanded (throws CannotRun when one is malformed or too big). */
export function expand(v, budget = { elements: 0, bytes: 0 }) {
  return expandAt(v, budget, 0);
}

/**
 * The case with the generators of its inputs expanded and `definition:
 * {ref}` replaced by the group's definition (expanded too): what
 * runExpanded runs. The expectation is left as written: compare expands it,
 * after the run.
 */
export function expandCase(c, group) {
  const budget = { elements: 0, bytes: 0 };
  const out = { ...c };
  if (only(c.definition, 'ref')) {
    const name = typeof c.definition.ref === 'string' ? c.definition.ref : '';
    const defs = group.definitions ?? {};
    if (!(name in defs)) throw new CannotRun(`no group definition ${name}`);
    out.definition = defs[name];
  }
  for (const k of ['definition', 'object', 'objectText', 'pods', 'events', 'related', 'request', 'input']) {
    if (out[k] !== undefined && out[k] !== null) out[k] = expand(out[k], budget);
  }
  return out;
}

// --- outcomes ---------------------------------------------------------------

export function findingValue(f) {
  const m = { code: f.code, severity: f.severity };
  const loc = f.location ?? {};
  if (loc.field !== undefined && loc.field !== null) m.field = loc.field;
  if (loc.line !== undefined && loc.line !== null) m.line = loc.line;
  return m;
}

export function errorValue(e) {
  const m = { code: e.code };
  if (e.limit !== undefined && e.limit !== null) m.limit = e.limit;
  const loc = e.location ?? {};
  for (const k of ['field', 'component', 'instance', 'line', 'column', 'span', 'request']) {
    if (loc[k] !== undefined && loc[k] !== null) m[k] = loc[k];
  }
  if (typeof e.status === 'number') m.status = e.status;
  if (e.findings && e.findings.length > 0) m.findings = e.findings.map(findingValue);
  return { error: m };
}

/**
 * The canonical outcome of one case: `{result}` or `{error}`; throws
 * CannotRun for a malformed case. Expands the case's generators first.
 *
 * @param {object} wl the public API (index.mjs or browser.mjs)
 */
export function runCase(wl, c, group) {
  return runExpanded(wl, expandCase(c, group), group);
}

/** runCase of a case whose generators are expanded (expandCase). */
export function runExpanded(wl, c, group) {
  const attempt = (f) => {
    try {
      return f();
    } catch (e) {
      if (e instanceof wl.WorkloadLensError) throw new Outcome(errorValue(e));
      throw e;
    }
  };
  try {
    return { result: run(wl, c, group, attempt) };
  } catch (e) {
    if (e instanceof Outcome) return e.value;
    throw e;
  }
}

const trimYaml = (f) => {
  let s = f;
  while (s.endsWith('.yaml')) s = s.slice(0, -'.yaml'.length);
  return s;
};
const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const only = (d, key) => isObj(d) && Object.keys(d).length === 1 && key in d;

function limitsOf(wl, c) {
  if (c.limits === undefined || c.limits === null) return undefined;
  try {
    wl.limits(c.limits);
  } catch (e) {
    throw new CannotRun(`bad limits: ${e.message}`);
  }
  return { ...c.limits };
}

function definitionOf(wl, c, group, limits, attempt) {
  const d = c.definition;
  if (d === undefined || d === null) throw new CannotRun('the case needs a definition');
  let source;
  if (only(d, 'catalog')) {
    const name = typeof d.catalog === 'string' ? d.catalog : '';
    const match = Object.entries(wl.catalogSources()).filter(([f]) => trimYaml(f) === name);
    if (match.length === 0) throw new CannotRun(`no catalog definition ${name}`);
    source = match[0][1];
  } else if (only(d, 'ref')) {
    const name = typeof d.ref === 'string' ? d.ref : '';
    const defs = group.definitions ?? {};
    if (!(name in defs)) throw new CannotRun(`no group definition ${name}`);
    source = defs[name]; // an object: compiled from its sorted compact JSON, as Rust does
  } else if (only(d, 'text')) {
    source = typeof d.text === 'string' ? d.text : '';
  } else if (isObj(d)) {
    source = d;
  } else {
    source = rustJson(d);
  }
  return attempt(() => wl.compile(source, limits));
}

function objectOf(wl, c, limits, attempt) {
  if (c.objectText !== undefined && c.objectText !== null) {
    if (typeof c.objectText !== 'string') throw new CannotRun('objectText must be a string');
    const docs = attempt(() => wl.parse(c.objectText, limits));
    if (docs.length === 1) return docs[0];
    throw new Outcome({ error: { code: 'usage' } });
  }
  if (c.object === undefined || c.object === null) throw new CannotRun('the case needs an object');
  return c.object;
}

/** The replies of a `cluster` case's server (conformance/src/lib.rs `server_of`):
 * request -> `{status, body}` (the body as text) or `{error}`. */
export function serverOf(c, group) {
  if (c.server === undefined || c.server === null) throw new CannotRun('a cluster case needs a server');
  const parts = Array.isArray(c.server) ? c.server : [c.server];
  const out = new Map();
  for (const part of parts) {
    const map = typeof part === 'string' ? group.servers?.[part] : part;
    if (map === undefined || map === null || typeof map !== 'object') throw new CannotRun(`no group server ${part}`);
    for (const [path, reply] of Object.entries(map)) {
      const r = { ...reply };
      if ('body' in r) r.body = JSON.stringify(r.body);
      else if ('bodyText' in r) { r.body = r.bodyText; delete r.bodyText; }
      out.set(path, r);
    }
  }
  return out;
}

const NOT_FOUND = {
  status: 404,
  body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', code: 404 }),
};

/** A `cluster` case: the protocol driven against the recorded server. */
function clusterCase(wl, c, group, limits, attempt) {
  const server = serverOf(c, group);
  if (typeof wl.Catalog.prototype.clusterSession !== 'function') throw new CannotRun('no cluster protocol in this build');
  const catalog = attempt(() => new wl.Catalog({ limits }));
  if (c.definition !== undefined && c.definition !== null) catalog.add(definitionOf(wl, c, group, limits, attempt));
  const session = attempt(() => catalog.clusterSession(c.cluster));
  const requests = [];
  for (let paths = session.requests(); paths.length > 0; paths = session.requests()) {
    requests.push(...paths);
    try {
      session.feed(paths.map((p) => server.get(p) ?? NOT_FOUND));
    } catch (e) {
      if (!(e instanceof wl.WorkloadLensError)) throw e;
      break;
    }
  }
  const outcome = attempt(() => session.finish());
  if (c.cluster !== 'discover') delete outcome.served;
  return { requests, outcome };
}

function run(wl, c, group, attempt) {
  const limits = limitsOf(wl, c);
  const op = c.op;
  if (op === 'cluster') return clusterCase(wl, c, group, limits, attempt);
  if (op === 'evaluate') {
    if (c.expression === undefined || c.expression === null) throw new CannotRun('evaluate needs an expression');
    return { outputs: attempt(() => wl.evaluate(c.expression, c.input ?? null, limits)) };
  }
  if (op === 'parse') {
    if (c.objectText === undefined || c.objectText === null) throw new CannotRun('parse needs objectText');
    if (typeof c.objectText !== 'string') throw new CannotRun('objectText must be a string');
    return attempt(() => wl.parse(c.objectText, limits));
  }
  if (op === 'validate') {
    const d = c.definition;
    let text;
    if (only(d, 'text')) {
      text = typeof d.text === 'string' ? d.text : '';
    } else if (only(d, 'ref')) {
      const defs = group.definitions ?? {};
      const name = typeof d.ref === 'string' ? d.ref : '';
      if (!(name in defs)) throw new CannotRun('no such group definition');
      text = rustJson(defs[name]);
    } else if (d !== undefined && d !== null) {
      text = rustJson(d);
    } else {
      throw new CannotRun('validate needs a definition');
    }
    const results = attempt(() => wl.validate(text, limits));
    return results.map((r) => ({ valid: r.valid, findings: r.findings.map(findingValue) }));
  }

  if (op === 'sourceMap') {
    if (typeof c.objectText !== 'string') throw new CannotRun('sourceMap needs objectText (a string)');
    if (c.definition === undefined || c.definition === null) return attempt(() => wl.sourceMap(c.objectText, c.queries ?? null, limits));
    const def = definitionOf(wl, c, group, limits, attempt);
    return attempt(() => def.sourceMap(c.objectText, c.queries ?? null));
  }

  const d = definitionOf(wl, c, group, limits, attempt);
  if (op === 'resolve') {
    const obj = objectOf(wl, c, limits, attempt);
    if (c.pods !== undefined && c.pods !== null) return attempt(() => d.resolve(obj, c.pods));
    return attempt(() => d.resolve(obj));
  }
  if (op === 'resolveByKind') {
    const obj = objectOf(wl, c, limits, attempt);
    return attempt(() => wl.resolve(obj, { definitions: [d] }));
  }
  if (op === 'status') return attempt(() => d.status(objectOf(wl, c, limits, attempt)));
  if (op === 'update') {
    const obj = objectOf(wl, c, limits, attempt);
    const request = c.request ?? {};
    if (!isObj(request)) throw new CannotRun('bad request: not an object');
    // A request the engine cannot read is its usage error, as in every runtime.
    const r = attempt(() => d.update(obj, request));
    return { object: r.object, patch: r.patch };
  }
  if (op === 'suspend' || op === 'resume') {
    const obj = objectOf(wl, c, limits, attempt);
    const r = attempt(() => (op === 'suspend' ? d.suspend(obj) : d.resume(obj)));
    return { object: r.object, patch: r.patch };
  }
  if (op === 'attribute') return attempt(() => d.attributePods(c.object ?? null, c.pods ?? []));
  if (op === 'gang') {
    const obj = objectOf(wl, c, limits, attempt);
    return attempt(() => d.gangGroups(obj, c.pods ?? []));
  }
  if (op === 'diagnose') {
    const obj = objectOf(wl, c, limits, attempt);
    return attempt(() => d.diagnose(obj, { pods: c.pods, events: c.events, related: c.related }));
  }
  if (op === 'gangStructure') return attempt(() => d.gangStructure());
  if (op === 'subtreeScale') {
    const obj = objectOf(wl, c, limits, attempt);
    if (typeof c.component !== 'string') throw new CannotRun('subtreeScale needs a component');
    return attempt(() => d.subtreeScale(obj, c.component, c.instance ?? null));
  }
  if (op === 'compile') return { name: d.name, warnings: d.warnings.map(findingValue) };
  throw new CannotRun(`unknown op ${op}`);
}

// --- comparison (conformance/src/lib.rs `compare`) -------------------------

/** A value's canonical JSON for a message: at most 300 bytes of it (conformance/src/lib.rs `shown`). */
function shown(v) {
  const s = canonical(v);
  const bytes = new TextEncoder().encode(s);
  if (bytes.length <= 300) return s;
  let end = 300;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return `${new TextDecoder().decode(bytes.subarray(0, end))}... (${bytes.length - end} more bytes)`;
}

/** null when the outcome is as expected (generators in it expanded), else the difference. */
export function compare(expectation, actual) {
  const expect = hasGenerators(expectation) ? expand(expectation) : expectation;
  if (isObj(expect) && 'error' in expect) {
    const want = expect.error;
    const got = actual.error;
    if (isObj(want) && isObj(got)) {
      for (const [k, w] of Object.entries(want)) {
        if (canonical(w) !== canonical(got[k])) {
          return `error.${k}: expected ${shown(w)}, got ${shown(got[k])}`;
        }
      }
      return null;
    }
    return `expected an error, got ${shown(actual)}`;
  }
  if ('error' in actual) return `unexpected error ${shown(actual)}`;
  if (canonical(expect) === canonical(actual)) return null;
  return diff(expect, actual);
}

export function diff(a, b, path = '') {
  const out = [];
  diffInto(a, b, path, out);
  return out.slice(0, 8).join('\n');
}

function diffInto(a, b, path, out) {
  if (canonical(a) === canonical(b) || out.length >= 8) return;
  if (isObj(a) && isObj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(byCodePoint)) {
      const p = `${path}.${k}`;
      if (k in a && k in b) diffInto(a[k], b[k], p, out);
      else if (k in a) out.push(`${p}: expected ${shown(a[k])}, missing`);
      else out.push(`${p}: unexpected ${shown(b[k])}`);
    }
  } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((v, i) => diffInto(v, b[i], `${path}[${i}]`, out));
  } else {
    out.push(`${path}: expected ${shown(a)}, got ${shown(b)}`);
  }
}

// --- the suite -------------------------------------------------------------

/** (case, group) for every case of the suite, in suite order. */
export function loadCases(suite) {
  if (suite?.format !== FORMAT) throw new Error(`unknown suite format ${JSON.stringify(suite?.format)}`);
  return suite.groups.flatMap((g) => g.cases.map((c) => [c, g]));
}

/**
 * Run every case. Returns `{results: {name: 'pass'|'fail'|'known'}, failures:
 * [{name, message}], passed, failed, skipped, summary}`; `summary` is the
 * closing line `conformance (<runtime>): N passed, M failed, K skipped`.
 * `onCase(name, status, message)` is called after each case.
 */
export function runSuite(wl, suite, runtime, { onCase } = {}) {
  const results = {};
  const failures = [];
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const [c, group] of loadCases(suite)) {
    const reason = c.knownDifferences?.[runtime];
    let status;
    let message = null;
    if (reason !== undefined) {
      status = 'known';
      message = reason;
      skipped += 1;
    } else {
      try {
        message = compare(c.expect, runCase(wl, c, group));
      } catch (e) {
        message = e instanceof CannotRun ? `cannot run: ${e.message}` : `threw ${e?.stack ?? e}`;
      }
      status = message === null ? 'pass' : 'fail';
      if (status === 'pass') passed += 1;
      else {
        failed += 1;
        failures.push({ name: c.name, message });
      }
    }
    results[c.name] = status;
    onCase?.(c.name, status, message);
  }
  return {
    results, failures, passed, failed, skipped,
    summary: `conformance (${runtime}): ${passed} passed, ${failed} failed, ${skipped} skipped`,
  };
}
