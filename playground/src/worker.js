// The engine worker: the WASM build of workload-lens behind a message
// protocol. The page can terminate and replace this worker at any time (a
// definition that keeps the engine busy past the time budget), so it keeps no
// state that matters beyond a cache of the last compiled definition.
//
//   -> {type: 'init'}                     <- {type: 'ready', version, catalog}
//   -> {type: 'run', id, definition, object, pods}
//   <- {type: 'result', id, ms, findings, definitionError, objectError,
//       podsError, resolved, resolveError, explanation, explainError,
//       attribution, gang, gangError, podsApiError, object, podItems, podOrigins}
import * as wl from '../../bindings-node/browser.mjs';
// The same module instance browser.mjs initialises: its formatters of
// amounts for people (the engine's one rule, which the CLI uses too).
import * as glue from '../../bindings-node/wasm/workload_lens_wasm.js';

/**
 * Every CPU and memory amount in a result, written for people by the
 * engine: {cpu: {millis: text}, memory: {bytes: text}}. The page shows
 * these; the results keep the exact numbers (the JSON tab, the export).
 */
function humanAmounts(...values) {
  const human = { cpu: {}, memory: {} };
  const seen = new Set();
  const walk = (v) => {
    if (!v || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) return v.forEach(walk);
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === 'number' && k === 'cpuMillis') human.cpu[x] ??= glue.humanCpu(x);
      else if (typeof x === 'number' && (k === 'memoryBytes' || k === 'ephemeralStorageBytes')) human.memory[x] ??= glue.humanMemory(x);
      else walk(x);
    }
  };
  values.forEach(walk);
  return human;
}

let cached = { text: null, def: null, error: null };

const plainError = (e) => {
  if (!e || typeof e !== 'object' || typeof e.code !== 'string') {
    return { code: 'internal', message: String(e?.message ?? e), location: {} };
  }
  const out = { code: e.code, message: e.message, location: e.location ?? {} };
  if (e.limit) out.limit = e.limit;
  if (e.findings) out.findings = e.findings;
  return out;
};

const attempt = (f) => {
  try {
    return { value: f() };
  } catch (e) {
    return { error: plainError(e) };
  }
};

function compileDefinition(text) {
  if (cached.text === text) return cached;
  cached = { text, def: null, error: null, findings: [] };
  const v = attempt(() => wl.validate(text));
  if (v.error) {
    cached.error = v.error;
    return cached;
  }
  const results = v.value;
  cached.findings = results.flatMap((r, document) =>
    r.findings.map((f) => (results.length > 1 ? { ...f, location: { document, ...f.location } } : f)));
  if (results.length !== 1) {
    cached.error = {
      code: 'usage',
      message: results.length === 0 ? 'the definition text is empty' : `the text holds ${results.length} definitions; the playground uses one`,
      location: {},
    };
    return cached;
  }
  if (!results[0].valid) {
    cached.error = { code: 'validation', message: `invalid definition '${results[0].name ?? ''}'`, location: {}, findings: cached.findings };
    return cached;
  }
  const c = attempt(() => new wl.Definition(text));
  if (c.error) cached.error = c.error;
  else {
    cached.def = c.value;
    // Whether it has gang scheduling instructions (without, gangGroups is empty).
    cached.gang = Boolean(c.value.toJSON().spec?.optimizationInstructions?.gangScheduling);
  }
  return cached;
}

function run(msg) {
  const t0 = performance.now();
  const out = { type: 'result', id: msg.id };
  const d = compileDefinition(msg.definition);
  out.findings = d.findings ?? [];
  out.definitionError = d.error;
  if (d.def) {
    out.definition = {
      name: d.def.name, gvk: d.def.gvk, components: d.def.components, canSuspend: d.def.canSuspend, gang: d.gang,
    };
  }

  const o = attempt(() => wl.parse(msg.object));
  if (o.error) out.objectError = o.error;
  else if (o.value.length !== 1) {
    out.objectError = { code: 'parse', message: `expected one object, found ${o.value.length} documents`, location: {} };
  } else out.object = o.value[0];

  const podsText = msg.pods ?? '';
  let pods = null;
  if (podsText.trim() !== '') {
    const p = attempt(() => wl.parse(podsText));
    if (p.error) out.podsError = p.error;
    else {
      // The engine reads the pods text itself (documents; List, PodList and
      // other lists; arrays; one pod). Here only where each pod came from, by
      // the same rules, to show findings about a pod at its place.
      const docs = p.value;
      const isList = (v) => v !== null && typeof v === 'object' && typeof v.kind === 'string'
        && v.kind.endsWith('List') && Array.isArray(v.items);
      out.podOrigins = [];
      docs.forEach((v, doc) => {
        const list = Array.isArray(v) ? v : isList(v) ? v.items : null;
        if (!list) out.podOrigins.push([doc, '']);
        else list.forEach((_, i) => out.podOrigins.push([doc, Array.isArray(v) ? `[${i}]` : `items[${i}]`]));
      });
      // The pods as given, for the exported case (one list document: itself).
      out.podItems = docs.length === 1 && (Array.isArray(docs[0]) || isList(docs[0])) ? docs[0] : docs;
      pods = podsText;
    }
  }

  if (d.def && out.object !== undefined) {
    const def = d.def;
    const r = attempt(() => (pods ? def.resolve(out.object, pods) : def.resolve(out.object)));
    if (r.error) out.resolveError = r.error;
    else out.resolved = r.value;
    // An object of another kind: resolve says so; explaining it would only
    // add errors that do not apply.
    const otherKind = out.resolveError?.code === 'no_definition';
    const x = otherKind ? {} : attempt(() => def.explainStatus(out.object));
    if (x.error) out.explainError = x.error;
    else if (x.value) out.explanation = x.value;
    if (pods && !otherKind) {
      const a = attempt(() => def.attributePods(out.object, pods));
      if (a.error) out.podsApiError = a.error;
      else out.attribution = a.value;
      const g = attempt(() => def.gangGroups(out.object, pods));
      if (g.error) out.gangError = g.error;
      else out.gang = g.value;
    }
  }
  out.human = humanAmounts(out.resolved, out.attribution);
  out.ms = Math.round((performance.now() - t0) * 10) / 10;
  return out;
}

self.onmessage = async (ev) => {
  const msg = ev.data;
  try {
    if (msg.type === 'init') {
      await wl.init(new URL('./wasm/workload_lens_wasm_bg.wasm', self.location.href));
      self.postMessage({ type: 'ready', version: wl.version, catalog: wl.catalogSources() });
    } else if (msg.type === 'run') {
      self.postMessage(run(msg));
    } else if (msg.type === 'evaluate') {
      // Test hook and debugging aid: run one expression.
      const r = attempt(() => wl.evaluate(msg.expression, msg.input ?? null));
      self.postMessage({ type: 'evaluated', id: msg.id, ...r });
    }
  } catch (e) {
    self.postMessage({ type: 'failed', id: msg.id, error: plainError(e) });
  }
};
