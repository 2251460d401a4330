// The engine worker: the WASM build of workload-lens behind a message
// protocol. The page can terminate and replace this worker at any time (a
// definition that keeps the engine busy past the time budget), so it keeps no
// state that matters beyond a cache of the last compiled definition.
//
//   -> {type: 'init'}                     <- {type: 'ready', version, catalog}
//   -> {type: 'run', id, definition, object, pods, events, related}
//   <- {type: 'result', id, ms, findings, definitionError, objectError,
//       podsError, eventsError, relatedError, resolved, resolveError,
//       explanation, explainError, attribution, gang, gangError,
//       podsApiError, diagnosis, diagnoseError, object, podItems,
//       eventsItems, relatedItems, human, places}
import * as wl from '../../bindings-node/browser.mjs';
import { fieldQuery, keyOf, objectQueries } from './places.js';

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
  let podObjects = [];
  if (podsText.trim() !== '') {
    const p = attempt(() => wl.parse(podsText));
    if (p.error) out.podsError = p.error;
    else {
      // The engine reads the pods text itself (documents; List, PodList and
      // other lists; arrays; one pod), and says where each pod is.
      const m = attempt(() => wl.sourceMap(podsText));
      podObjects = m.value?.objects ?? [];
      out.podItems = asGiven(p.value, podObjects);
      pods = podsText;
    }
  }
  // Events and related objects (Kueue Workloads, PodGroups), which only the diagnosis
  // reads: each text read by the engine's reader of object lists, as the
  // pods are (a text it cannot read is that editor's error).
  const events = readObjects(msg.events, out, 'events');
  const related = readObjects(msg.related, out, 'related');

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
    // Why it is where it is: the engine's ranked findings, from what is
    // given. Not with a pods, events or related text it cannot read (a
    // diagnosis without them could say nothing is wrong).
    if (!otherKind && !out.podsError && !out.eventsError && !out.relatedError) {
      const given = { events: events ?? undefined, related: related ?? undefined };
      const w = attempt(() => def.diagnose(out.object, { pods: pods ?? undefined, ...given }));
      if (w.error) out.diagnoseError = w.error;
      else out.diagnosis = w.value;
      // A text that parses but that the engine's reader of object lists
      // rejects (a `List` without `items`) fails the diagnosis with a parse
      // error that does not say which text it is in: the engine reads each
      // given text alone to say (only then; reading comes before any work).
      if (w.error?.code === 'parse') {
        const bad = ['events', 'related'].find((k) => given[k] && attempt(() => def.diagnose(out.object, { [k]: given[k] })).error?.code === 'parse');
        if (bad) {
          out[`${bad}Error`] = w.error;
          delete out[`${bad}Items`];
          delete out.diagnoseError;
        }
      }
    }
  }
  // Every amount of the results, written for people by the engine (the
  // page shows these; the results keep the exact numbers).
  const h = attempt(() => wl.humanAmounts([out.resolved ?? null, out.attribution ?? null]));
  out.human = h.value ?? { millicores: {}, bytes: {} };
  out.places = locate(msg, out, d.def, podObjects);
  out.ms = Math.round((performance.now() - t0) * 10) / 10;
  return out;
}

/**
 * Objects as given, for the exported case: one list document (every object
 * is an item of it, or it has none) as itself, else the documents.
 */
function asGiven(docs, objects) {
  const oneList = docs.length === 1 && objects.every((o) => o.path !== '');
  return oneList ? docs[0] : docs;
}

/**
 * The text of an optional editor (`events`, `related`) for the engine, or
 * null when it is empty or the engine cannot read it (then
 * `out[name + 'Error']`, at its line and column). The engine's reader of
 * object lists reads it (documents, `List` and `EventList` and other lists,
 * arrays, one object); its source map is that reader, so a list it rejects
 * (a `List` without `items`) is an error here as in the diagnosis.
 */
function readObjects(text, out, name) {
  if (!text || text.trim() === '') return null;
  const p = attempt(() => wl.parse(text));
  const m = p.error ? p : attempt(() => wl.sourceMap(text));
  if (m.error) {
    out[`${name}Error`] = m.error;
    return null;
  }
  out[`${name}Items`] = asGiven(p.value, m.value.objects);
  return text;
}

/**
 * Where the result's locations are in the three texts, from the engine's
 * source maps: `definition` and `object` map a question's key (places.js)
 * to the engine's place; `pods` holds each pod's span, in the order the
 * engine reads the pods (the attribution's order). A text the engine cannot
 * read has no places (the page then uses the errors' own line and column).
 */
function locate(msg, out, def, podObjects) {
  const places = { definition: {}, object: {}, pods: podObjects.map((o) => o.value) };
  const ask = (questions, text, map) => {
    if (questions.size === 0) return;
    const m = attempt(() => map(text, [...questions.values()]));
    if (!m.value) return;
    [...questions.keys()].forEach((k, i) => {
      if (m.value.places[i]) places[k.startsWith('d') ? 'definition' : 'object'][k.slice(1)] = m.value.places[i];
    });
  };
  const errors = [out.definitionError, out.resolveError, out.explainError, out.explanation?.error, out.podsApiError, out.gangError, out.diagnoseError]
    .filter(Boolean);
  const inDefinition = new Map();
  const addField = (loc) => {
    if (!loc?.field) return;
    const q = fieldQuery(loc);
    inDefinition.set(`d${keyOf(q)}`, q);
  };
  (out.findings ?? []).forEach((f) => addField(f.location));
  errors.forEach((e) => addField(e.location));
  for (const cat of out.explanation?.categories ?? []) for (const m of cat.matchers) addField({ field: m.field });
  ask(inDefinition, msg.definition, (t, q) => wl.sourceMap(t, q));

  const inObject = new Map();
  for (const e of errors) {
    if (e.location?.objectPath === undefined) continue;
    for (const q of objectQueries(e.location)) inObject.set(`o${keyOf(q)}`, q);
  }
  ask(inObject, msg.object, (t, q) => (def ? def.sourceMap(t, q) : wl.sourceMap(t, q)));
  return places;
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
