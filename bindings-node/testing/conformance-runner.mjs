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
  for (const k of ['field', 'component', 'instance', 'line', 'column', 'span']) {
    if (loc[k] !== undefined && loc[k] !== null) m[k] = loc[k];
  }
  if (e.findings && e.findings.length > 0) m.findings = e.findings.map(findingValue);
  return { error: m };
}

/**
 * The canonical outcome of one case: `{result}` or `{error}`; throws
 * CannotRun for a malformed case.
 *
 * @param {object} wl the public API (index.mjs or browser.mjs)
 */
export function runCase(wl, c, group) {
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
    const docs = attempt(() => wl.parse(c.objectText, limits));
    if (docs.length === 1) return docs[0];
    throw new Outcome({ error: { code: 'usage' } });
  }
  if (c.object === undefined || c.object === null) throw new CannotRun('the case needs an object');
  return c.object;
}

function run(wl, c, group, attempt) {
  const limits = limitsOf(wl, c);
  const op = c.op;
  if (op === 'evaluate') {
    if (c.expression === undefined || c.expression === null) throw new CannotRun('evaluate needs an expression');
    return { outputs: attempt(() => wl.evaluate(c.expression, c.input ?? null, limits)) };
  }
  if (op === 'parse') {
    if (c.objectText === undefined || c.objectText === null) throw new CannotRun('parse needs objectText');
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
    let r;
    try {
      r = d.update(obj, request);
    } catch (e) {
      if (e instanceof wl.UsageError && e.detail.startsWith('invalid update request')) {
        throw new CannotRun(`bad request: ${e.message}`);
      }
      if (e instanceof wl.WorkloadLensError) throw new Outcome(errorValue(e));
      throw e;
    }
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
  if (op === 'compile') return { name: d.name, warnings: d.warnings.map(findingValue) };
  throw new CannotRun(`unknown op ${op}`);
}

// --- comparison (conformance/src/lib.rs `compare`) -------------------------

/** null when the outcome is as expected, else the difference. */
export function compare(expect, actual) {
  if (isObj(expect) && 'error' in expect) {
    const want = expect.error;
    const got = actual.error;
    if (isObj(want) && isObj(got)) {
      for (const [k, w] of Object.entries(want)) {
        if (canonical(w) !== canonical(got[k])) {
          return `error.${k}: expected ${canonical(w)}, got ${canonical(got[k])}`;
        }
      }
      return null;
    }
    return `expected an error, got ${canonical(actual)}`;
  }
  if ('error' in actual) return `unexpected error ${canonical(actual)}`;
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
      else if (k in a) out.push(`${p}: expected ${canonical(a[k])}, missing`);
      else out.push(`${p}: unexpected ${canonical(b[k])}`);
    }
  } else if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((v, i) => diffInto(v, b[i], `${path}[${i}]`, out));
  } else {
    out.push(`${path}: expected ${canonical(a)}, got ${canonical(b)}`);
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
