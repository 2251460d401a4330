// The playground page: YAML editors (definition, object, and the optional
// pods, events and related objects), the catalog and fixture pickers, live
// results from the engine worker (with its diagnosis: why the workload is
// where it is), the state in the URL and the conformance case export.
import { EditorView, basicSetup } from 'codemirror';
import { keymap } from '@codemirror/view';
import { indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { EngineClient } from './engine.js';
import { encodeState, decodeState } from './state.js';
import { caseGroup, toYaml } from './export.js';
import { fieldQuery, keyOf, objectQueries, rangeOf, restOfLine } from './places.js';

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const BUDGET_MS = Math.max(200, Number(params.get('budget')) || 4000);
const DEBOUNCE_MS = 250;

// ---------------------------------------------------------------- helpers

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const fmtInt = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : '–');
/** `pod` for one, `pods` for any other count (the words here are regular). */
const noun = (n, word) => (n === 1 ? word : `${word}s`);
/** `1 pod`, `3 pods`: every count the page shows goes through this. */
const plural = (n, word) => `${fmtInt(n)} ${noun(n, word)}`;
/**
 * CPU (millicores, as cores) and memory (bytes, in binary units) as the
 * engine writes them for people: the worker sends the text of every amount
 * of the result (`r.human`, the engine's `humanAmounts`: which fields are
 * amounts and how they read), so the page and the CLI read alike (`26.5`,
 * `1.9Gi`). An amount missing from the table (none should be) shows exactly.
 */
let human = { millicores: {}, bytes: {} };
const fmtCpu = (m) => (typeof m === 'number' ? human.millicores[m] ?? `${m}m` : '–');
const fmtBytes = (b) => (typeof b === 'number' ? human.bytes[b] ?? `${b}` : '–');
/** Text with a line-break opportunity after each `.` and `/` inside a word, so that a long field path wraps at its steps. */
const breakable = (text) => String(text).split(/(?<=[./])(?=\S)/).flatMap((part, i) => (i ? [h('wbr'), part] : [part]));
const extended = (r) => Object.entries(r?.extended ?? {}).map(([k, v]) => `${k}: ${v}`).join(', ');

const STATUS_CLASS = {
  Running: 'ok', Completed: 'done', Failed: 'bad', Degraded: 'warn', Initializing: 'pending',
  Suspended: 'muted', Suspending: 'muted', Resuming: 'pending', Undefined: 'muted',
};
const badge = (s) => h('span', { class: `badge badge-${STATUS_CLASS[s] ?? 'muted'}` }, s);
const outcomeIcon = {
  matched: ['✓', 'matched'], notMatched: ['✗', 'not matched'], error: ['!', 'error'], skipped: ['–', 'skipped'],
};

// ---------------------------------------------------------------- editors

let applyingState = false;
function makeEditor(parent, labelId, onChange) {
  return new EditorView({
    parent,
    extensions: [
      basicSetup,
      keymap.of([indentWithTab]),
      yaml(),
      lintGutter(),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-labelledby': labelId }),
      EditorView.updateListener.of((u) => {
        if (u.docChanged && !applyingState) onChange();
      }),
    ],
  });
}
const setText = (view, text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text ?? '' } });
const getText = (view) => view.state.doc.toString();

const editors = {};
editors.definition = makeEditor($('ed-def'), 'lbl-def', () => inputsChanged({ userEdit: 'definition' }));
editors.object = makeEditor($('ed-obj'), 'lbl-obj', () => inputsChanged({ userEdit: 'object' }));
editors.pods = makeEditor($('ed-pods'), 'lbl-pods', () => inputsChanged({ userEdit: 'pods' }));
editors.events = makeEditor($('ed-events'), 'lbl-events', () => inputsChanged({ userEdit: 'events' }));
editors.related = makeEditor($('ed-related'), 'lbl-related', () => inputsChanged({ userEdit: 'related' }));
const EDITOR_LABEL = { definition: 'Definition', object: 'Object', pods: 'Pods', events: 'Events', related: 'Related' };
/** The optional editors, which a fixture may fill (each in a collapsible pane), and what they hold. */
const EXTRAS = ['pods', 'events', 'related'];
const EXTRA_WORDS = { pods: 'pods', events: 'events', related: 'related objects' };
const pane = (name) => $(`${name}-pane`);
/** Whether the result read an optional editor's text (the worker's objects as given, for the export). */
const ITEMS = { pods: 'podItems', events: 'eventsItems', related: 'relatedItems' };
const readIn = (r) => EXTRAS.filter((k) => r[ITEMS[k]] !== undefined);
const noDiagnostics = () => Object.fromEntries(Object.keys(editors).map((k) => [k, []]));
/** `a`, `a and b`, `a, b and c`. */
const joinWords = (w) => (w.length < 2 ? w.join('') : `${w.slice(0, -1).join(', ')} and ${w[w.length - 1]}`);
/** `pods`, `pods and events`, `pods, events and related objects`. */
const wordList = (names) => joinWords(names.map((n) => EXTRA_WORDS[n]));

// ---------------------------------------------------------------- state

const app = {
  catalog: {},
  fixtures: {},
  defFile: '',
  fixture: '',
  tab: 'components',
  result: null,
  runs: 0,
  diagnostics: noDiagnostics(),
  restarts: 0,
  lastError: null,
  banner: null, // {kind, title, detail} of the last result or engine event
  busy: false, // a run has taken longer than BUSY_DELAY_MS so far
  // Pods, events and related objects that came with a fixture belong to its
  // workload: 'pending' until the first run names it, then that workload's
  // key. When the object becomes another workload they are cleared (what
  // the user typed stays: the engine reports the pods that are not the
  // workload's, and reads only the workload's events). `extras`: the
  // editors that still hold the fixture's text.
  podsOf: null,
  extras: new Set(),
  podsNote: '',
  cleared: [], // the editors the note is about
};

/** A workload's identity: a key (with the UID) and a label for messages. */
function workloadId(o) {
  const m = o && typeof o === 'object' && !Array.isArray(o) ? o.metadata ?? {} : null;
  if (!m || typeof o.kind !== 'string' || typeof m.name !== 'string') return null;
  const label = `${o.kind} ${m.namespace ? `${m.namespace}/` : ''}${m.name}`;
  return { key: `${o.apiVersion ?? ''}|${label}|${m.uid ?? ''}`, label };
}

const inputs = () => Object.fromEntries(Object.entries(editors).map(([k, v]) => [k, getText(v)]));
/** Whether the inputs `s` still hold fixture `f`'s object, pods, events and related objects. */
const holdsFixture = (f, s) => f.object === (s.object ?? '') && EXTRAS.every((k) => (f[k] ?? '') === (s[k] ?? ''));
/** The fixture's pods, events and related objects fill their editors (empty ones otherwise), and their panes open. */
function fillExtras(f) {
  applyingState = true;
  for (const k of EXTRAS) setText(editors[k], f?.[k] ?? '');
  applyingState = false;
  for (const k of EXTRAS) pane(k).open = Boolean(f?.[k]);
  app.extras = new Set(EXTRAS.filter((k) => f?.[k]));
  app.podsOf = app.extras.size ? 'pending' : null;
  app.podsNote = '';
}

let runTimer = null;
let urlTimer = null;
function inputsChanged({ userEdit } = {}) {
  if (userEdit === 'definition' && app.defFile && getText(editors.definition) !== app.catalog[app.defFile]) {
    $('pick-def').value = '';
    app.defFile = '';
    $('def-summary').textContent = 'edited';
  }
  if (EXTRAS.includes(userEdit)) {
    app.extras.delete(userEdit);
    if (app.extras.size === 0) app.podsOf = null;
    app.podsNote = '';
  }
  if ((userEdit === 'object' || EXTRAS.includes(userEdit)) && app.fixture) {
    const f = (app.fixtures[app.listedDef] ?? []).find((x) => x.name === app.fixture);
    if (!f || !holdsFixture(f, inputs())) {
      app.fixture = '';
      $('pick-fix').value = '';
      $('obj-summary').textContent = 'edited';
    }
  }
  clearTimeout(runTimer);
  runTimer = setTimeout(run, DEBOUNCE_MS);
  clearTimeout(urlTimer);
  urlTimer = setTimeout(saveUrl, DEBOUNCE_MS * 2);
}

async function saveUrl() {
  const frag = await encodeState({ ...inputs(), def: app.defFile || undefined, list: app.listedDef || undefined, fix: app.fixture || undefined, tab: app.tab });
  history.replaceState(null, '', `${location.pathname}${location.search}#${frag}`);
  app.savedHash = location.hash;
}

function applyState(s) {
  applyingState = true;
  try {
    for (const [k, view] of Object.entries(editors)) setText(view, s[k] ?? '');
  } finally {
    applyingState = false;
  }
  app.defFile = s.def && app.catalog[s.def] === s.definition ? s.def : '';
  $('pick-def').value = app.defFile;
  app.listedDef = app.defFile || (s.list in app.fixtures ? s.list : '');
  fillFixtures();
  const f = (app.fixtures[app.listedDef] ?? []).find((x) => x.name === s.fix);
  app.fixture = f && holdsFixture(f, s) ? f.name : '';
  $('pick-fix').value = app.fixture;
  $('def-summary').textContent = app.defFile ? 'from the catalog' : '';
  $('obj-summary').textContent = f && app.fixture ? f.file : '';
  for (const k of EXTRAS) pane(k).open = Boolean((s[k] ?? '').trim());
  app.extras = new Set(app.fixture ? EXTRAS.filter((k) => (s[k] ?? '').trim()) : []);
  app.podsOf = app.extras.size ? 'pending' : null;
  app.podsNote = '';
  if (s.tab) selectTab(s.tab, false);
  inputsChanged();
}

// ---------------------------------------------------------------- pickers

function fillCatalog() {
  const sel = $('pick-def');
  sel.replaceChildren(h('option', { value: '' }, '— your own definition —'));
  for (const file of Object.keys(app.catalog).sort()) {
    sel.append(h('option', { value: file }, file.replace(/\.yaml$/, '')));
  }
  sel.value = app.defFile;
}

function fillFixtures() {
  const sel = $('pick-fix');
  // The fixtures stay listed (and usable) when the definition is edited.
  if (app.defFile || !app.listedDef) app.listedDef = app.defFile;
  const list = app.fixtures[app.listedDef] ?? [];
  sel.replaceChildren(h('option', { value: '' }, list.length ? '— pick an object —' : '— no fixtures —'));
  for (const f of list) {
    const extras = EXTRAS.filter((k) => f[k]);
    sel.append(h('option', { value: f.name, title: f.description ?? f.file }, extras.length ? `${f.name} (+ ${extras.join(', ')})` : f.name));
  }
  sel.disabled = list.length === 0;
  sel.value = '';
}

function loadDefinition(file, { fixture } = {}) {
  app.defFile = file;
  applyingState = true;
  setText(editors.definition, app.catalog[file] ?? '');
  applyingState = false;
  $('pick-def').value = file;
  $('def-summary').textContent = file ? 'from the catalog' : '';
  fillFixtures();
  const list = app.fixtures[file] ?? [];
  const pick = fixture ?? (list.find((f) => f.name === 'example') ?? list.find((f) => f.name === 'running') ?? list[0])?.name;
  if (pick) loadFixture(pick);
  else {
    // Pods and events of the previous workload are not this one's: start without.
    fillExtras(null);
    inputsChanged();
  }
}

function loadFixture(name) {
  const f = (app.fixtures[app.listedDef] ?? []).find((x) => x.name === name);
  app.fixture = f ? name : '';
  $('pick-fix').value = app.fixture;
  if (!f) return;
  applyingState = true;
  setText(editors.object, f.object);
  applyingState = false;
  fillExtras(f);
  $('obj-summary').textContent = f.file;
  inputsChanged();
}

$('pick-def').addEventListener('change', (e) => {
  if (e.target.value) loadDefinition(e.target.value);
  else {
    app.defFile = '';
    fillFixtures();
  }
});
$('pick-fix').addEventListener('change', (e) => loadFixture(e.target.value));

// ---------------------------------------------------------------- tabs

const TABS = ['components', 'status', 'pods', 'json'];
function selectTab(name, focus = true) {
  if (!TABS.includes(name)) return;
  app.tab = name;
  for (const t of TABS) {
    const tab = $(`tab-${t}`);
    const on = t === name;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    $(`panel-${t}`).hidden = !on;
    if (on && focus) tab.focus();
  }
}
for (const t of TABS) {
  const tab = $(`tab-${t}`);
  tab.addEventListener('click', () => {
    selectTab(t);
    inputsChangedUrlOnly();
  });
  tab.addEventListener('keydown', (e) => {
    const i = TABS.indexOf(t);
    const to = { ArrowRight: (i + 1) % TABS.length, ArrowLeft: (i + TABS.length - 1) % TABS.length, Home: 0, End: TABS.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    selectTab(TABS[to]);
    inputsChangedUrlOnly();
  });
}
function inputsChangedUrlOnly() {
  clearTimeout(urlTimer);
  urlTimer = setTimeout(saveUrl, DEBOUNCE_MS);
}

// ---------------------------------------------------------------- diagnostics

/**
 * The editor range of a location: the engine's place of it (`place`, from
 * the worker's source maps: the jq span inside an expression, else the key
 * and the rest of its line), else the error's own line and column, else the
 * first line.
 */
function rangeFor(view, loc = {}, place = null) {
  const doc = view.state.doc;
  if (place?.span) return rangeOf(doc, place.span);
  if (loc.line) {
    const line = doc.line(Math.min(Math.max(1, loc.line), doc.lines));
    const from = line.from + Math.min(Math.max(0, (loc.column ?? 1) - 1), line.length);
    const rest = line.text.slice(from - line.from);
    const word = /^[^\s:]*/.exec(rest)[0].length || rest.trimEnd().length || 0;
    return { from, to: from + word };
  }
  if (place) return restOfLine(doc, (place.key ?? place.value).start);
  const first = doc.line(1);
  return { from: 0, to: first.to };
}

/** The engine's place of a location in the definition text (from the last result). */
const fieldPlace = (r, loc) => (loc?.field ? r?.places?.definition?.[keyOf(fieldQuery(loc))] ?? null : null);
/** The engine's place of a location in the object text: in its component's pod template, else from the object's root. */
const objectPlace = (r, loc) => (loc?.objectPath === undefined ? null
  : objectQueries(loc).map((q) => r?.places?.object?.[keyOf(q)]).find(Boolean) ?? null);

function diag(view, severity, message, loc, source, place = null) {
  const r = rangeFor(view, loc ?? {}, place);
  return { ...r, severity, message, source };
}

/** Where an error happened, as the engine words it (`document 1, FIELD, line 3, column 5, component c[i], object path p`). */
function describeLocation(loc = {}) {
  return [
    loc.document !== undefined && `document ${loc.document}`,
    loc.field,
    loc.line && loc.column && `line ${loc.line}, column ${loc.column}`,
    loc.component && `component ${loc.component}${loc.instance ? `[${loc.instance}]` : ''}`,
    loc.objectPath && `object path ${loc.objectPath}`,
  ].filter(Boolean).join(', ');
}

/**
 * The message without the location the engine appends to it (` (at …)`):
 * the same error, from another call, may come with less of its location or
 * none (an explanation's error), and the page says where itself.
 */
function plainMessage(e) {
  const m = String(e.message ?? '');
  const exact = ` (at ${describeLocation(e.location)})`;
  if (m.endsWith(exact)) return m.slice(0, -exact.length);
  const at = e.location?.field ? m.lastIndexOf(` (at ${e.location.field}`) : -1;
  return at > 0 && m.endsWith(')') ? m.slice(0, at) : m;
}

function describeError(e) {
  const where = describeLocation(e.location);
  return `${plainMessage(e)}${where ? ` (at ${where})` : ''}${e.limit ? ` [limit ${e.limit}]` : ''}`;
}

/** One problem once: the same error met by several calls (resolve, explain, attribution, gangs) is one entry. */
const problemKey = (e) => [e.code, e.limit, plainMessage(e), e.location?.field ?? e.location?.objectPath ?? ''].join('|');

function buildDiagnostics(r) {
  const d = noDiagnostics();
  const defView = editors.definition;
  for (const f of r.findings ?? []) {
    d.definition.push(diag(defView, f.severity === 'warning' ? 'warning' : 'error', `${f.message}`, f.location, f.code, fieldPlace(r, f.location)));
  }
  const defErr = r.definitionError;
  if (defErr && defErr.code !== 'validation') d.definition.push(diag(defView, 'error', describeError(defErr), defErr.location, defErr.code, fieldPlace(r, defErr.location)));
  if (r.objectError) d.object.push(diag(editors.object, 'error', describeError(r.objectError), r.objectError.location, r.objectError.code));
  if (r.podsError) d.pods.push(diag(editors.pods, 'error', describeError(r.podsError), r.podsError.location, r.podsError.code));
  if (r.eventsError) d.events.push(diag(editors.events, 'error', describeError(r.eventsError), r.eventsError.location, r.eventsError.code));
  if (r.relatedError) d.related.push(diag(editors.related, 'error', describeError(r.relatedError), r.relatedError.location, r.relatedError.code));
  // Findings about single pods (not a pod, no name, ...) at the pod's place:
  // the engine reads the pods in the attribution's order and says where each is.
  const podsDoc = editors.pods.state.doc;
  (r.attribution?.pods ?? []).forEach((x, i) => {
    if (!x.findings?.length) return;
    const span = r.places?.pods?.[i];
    const { from, to } = span ? restOfLine(podsDoc, span.start) : { from: 0, to: podsDoc.line(1).to };
    for (const f of x.findings) d.pods.push({ from, to, severity: 'warning', message: `${x.name ? `${x.name}: ` : ''}${f.message ?? f}`, source: f.code });
  });
  const seen = new Set();
  for (const e of [r.resolveError, r.explainError, r.explanation?.error, r.podsApiError, r.gangError, r.diagnoseError]) {
    if (!e || seen.has(problemKey(e))) continue;
    seen.add(problemKey(e));
    if (e.code === 'invalid_object' || e.code === 'no_definition' || (!e.location?.field && e.location?.objectPath)) {
      d.object.push(diag(editors.object, 'error', describeError(e), {}, e.code, objectPlace(r, e.location)));
    } else if (e.location?.field) {
      d.definition.push(diag(defView, 'error', describeError(e), e.location, e.code, fieldPlace(r, e.location)));
    } else if (e === r.diagnoseError) {
      // An error only the diagnosis met (a limit on the events it reads,
      // say): at the events it reads, else at the workload.
      const home = r.eventsItems !== undefined ? 'events' : 'object';
      d[home].push(diag(editors[home], 'error', describeError(e), {}, e.code));
    }
  }
  for (const name of Object.keys(d)) d[name] = distinct(d[name]);
  return d;
}

/** Diagnostics without repeats: the same message at the same place is shown once. */
function distinct(list) {
  const seen = new Set();
  return list.filter((x) => {
    const key = `${x.from}|${x.to}|${x.severity}|${x.message}`;
    return !seen.has(key) && seen.add(key);
  });
}

/** Select a range of an editor and move the focus there (opening its pane when it is folded). */
function select(view, { from, to }) {
  const folded = view.dom.closest('details:not([open])');
  if (folded) folded.open = true;
  view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
  view.focus();
  // A pane just opened has no layout yet to scroll in: scroll once it has.
  if (folded) requestAnimationFrame(() => view.dispatch({ effects: EditorView.scrollIntoView(from, { y: 'center' }) }));
}

function showDiagnostics(d) {
  app.diagnostics = d;
  const list = $('problems');
  list.replaceChildren();
  for (const [name, view] of Object.entries(editors)) {
    view.dispatch(setDiagnostics(view.state, d[name]));
    for (const x of d[name]) {
      const line = view.state.doc.lineAt(x.from);
      const col = x.from - line.from + 1;
      list.append(h('li', { class: `problem problem-${x.severity}` },
        h('button', {
          type: 'button',
          class: 'problem-link',
          onclick: () => select(view, x),
        },
        h('span', { class: `sev sev-${x.severity}` }, x.severity),
        h('span', { class: 'where' }, `${EDITOR_LABEL[name]} ${line.number}:${col}`),
        h('span', { class: 'msg' }, breakable(x.message)),
        x.source ? h('code', { class: 'code' }, x.source) : null)));
    }
  }
}

// ---------------------------------------------------------------- rendering

/** The banner of the last result (or of the engine); while the engine is busy a working notice stands in for it. */
function setBanner(kind, title, detail) {
  app.banner = kind ? { kind, title, detail } : null;
  paintBanner();
}

function paintBanner() {
  const b = $('banner');
  b.replaceChildren();
  if (app.busy) {
    // Not an alert: the engine state (a polite status) says it already.
    b.append(h('div', { class: 'banner banner-busy', id: 'banner-busy', 'aria-hidden': 'true' }, h('strong', {}, 'Working…'),
      h('span', {}, ' the engine is computing the result of the latest inputs; what is shown below is from the previous ones.')));
    return;
  }
  const { kind, title, detail } = app.banner ?? {};
  if (kind) b.append(h('div', { class: `banner banner-${kind}` }, h('strong', {}, title), detail ? h('span', {}, ' ', breakable(detail)) : null));
}

function card(id, label, value, sub) {
  return h('div', { class: 'card', id }, h('div', { class: 'card-label' }, label), h('div', { class: 'card-value' }, value), sub ? h('div', { class: 'card-sub' }, sub) : null);
}

function renderSummary(r) {
  const s = $('summary');
  s.replaceChildren();
  const res = r.resolved;
  if (!res) return;
  const t = res.totals;
  s.append(
    card('card-status', 'Status', h('span', { class: 'badges' }, (res.status?.matchedStatuses ?? ['—']).map(badge)), res.status?.phase !== undefined ? `phase ${JSON.stringify(res.status.phase)}` : undefined),
    card('card-pods', noun(t.pods, 'Pod'), fmtInt(t.pods), 'desired'),
    card('card-gpu', noun(t.resources.gpu, 'GPU'), fmtInt(t.resources.gpu), 'nvidia.com/gpu'),
    card('card-cpu', 'CPU', fmtCpu(t.resources.cpuMillis), 'cores requested'),
    card('card-mem', 'Memory', fmtBytes(t.resources.memoryBytes), extended(t.resources) || 'requested'),
  );
}

const SEVERITY_CLASS = { blocking: 'bad', warning: 'warn', info: 'done' };

/**
 * The place of a pod in the Pods editor by its name, as the pods' findings
 * are placed: the engine reads the pods in the attribution's order and its
 * source map says where each object of the text is. Only when the two line
 * up (every object of the text is a pod the attribution lists: owners in
 * the text are left out of it), else null.
 */
function podPlace(r, name) {
  const pods = r.attribution?.pods ?? [];
  const spans = r.places?.pods ?? [];
  if (pods.length !== spans.length) return null;
  const i = pods.findIndex((x) => x.name === name);
  return i < 0 ? null : spans[i];
}

function goToPod(span) {
  const view = editors.pods;
  select(view, restOfLine(view.state.doc, span.start));
}

/** One piece of evidence: object · field · time, then what it says. A pod of the Pods editor is a link to it. */
function renderEvidence(r, e) {
  const pod = /^Pod\/(.+)$/.exec(e.object ?? '')?.[1];
  const span = pod !== undefined ? podPlace(r, pod) : null;
  const object = span
    ? h('button', { type: 'button', class: 'link ev-object', onclick: () => goToPod(span), title: 'Show this pod in the Pods editor' }, breakable(e.object))
    : h('span', { class: 'ev-object' }, breakable(e.object));
  return h('li', { class: 'ev' },
    h('div', { class: 'ev-where' }, object,
      h('span', { class: 'ev-sep', 'aria-hidden': 'true' }, ' · '), h('code', { class: 'ev-field' }, breakable(e.field)),
      e.time ? [h('span', { class: 'ev-sep', 'aria-hidden': 'true' }, ' · '), h('time', { class: 'ev-time' }, e.time)] : null),
    e.text ? h('div', { class: 'ev-text' }, e.text) : null);
}

/** A finding as the engine words it: code, severity, sentence, what to do, evidence. */
function renderFinding(r, f) {
  return h('li', { class: `finding finding-${f.severity}`, 'data-code': f.code },
    h('div', { class: 'finding-head' },
      h('code', { class: 'finding-code' }, f.code),
      h('span', { class: `badge badge-${SEVERITY_CLASS[f.severity] ?? 'muted'}` }, f.severity)),
    h('p', { class: 'finding-message' }, f.message),
    f.action ? h('p', { class: 'finding-action' }, h('strong', {}, 'To do: '), f.action) : null,
    f.evidence?.length ? h('ul', { class: 'evidence', 'aria-label': 'Evidence' }, f.evidence.map((e) => renderEvidence(r, e))) : null,
    f.moreEvidence ? h('p', { class: 'ev-more muted' }, `… and ${fmtInt(f.moreEvidence)} more`) : null);
}

/**
 * Why the workload is where it is: the engine's findings in its order (the
 * first is the answer), or a short line when it found nothing.
 */
function renderWhy(r) {
  const box = $('why');
  box.replaceChildren();
  const given = readIn(r);
  // Events or related objects a fixture brought, cleared: said here too.
  const note = app.podsNote && app.cleared.some((k) => k !== 'pods') ? h('p', { class: 'note' }, app.podsNote) : null;
  const d = r.diagnosis;
  if (d) {
    if (d.findings.length === 0) {
      const missing = ['pods', 'events'].filter((k) => !given.includes(k));
      box.append(h('div', {}, note, h('p', { class: 'why-none', id: 'why-none' }, h('strong', {}, 'Why: '),
        `nothing found: ${joinWords(['its status', ...given.map((k) => EXTRA_WORDS[k])])} ${given.length ? 'show' : 'shows'} nothing wrong.`,
        missing.length ? h('span', { class: 'muted' }, ` Give its ${wordList(missing)} to look further.`) : null)));
      return;
    }
    box.append(h('section', { class: 'why', 'aria-labelledby': 'why-title' },
      h('h2', { id: 'why-title', class: 'why-title' }, 'Why'),
      note,
      h('ol', { class: 'findings' }, d.findings.map((f) => renderFinding(r, f)))));
    return;
  }
  const unread = ['pods', 'events', 'related'].filter((k) => r[`${k}Error`]);
  if (r.diagnoseError) {
    box.append(h('p', { class: 'why-none', id: 'why-none' }, h('strong', {}, 'No diagnosis: '), breakable(describeError(r.diagnoseError))));
  } else if (unread.length && r.object !== undefined && r.definition) {
    box.append(h('div', {}, note, h('p', { class: 'why-none', id: 'why-none' }, h('strong', {}, 'No diagnosis: '), `the ${wordList(unread)} cannot be read (see the problems).`)));
  }
}

function renderComponents(r) {
  const p = $('panel-components');
  p.replaceChildren();
  const res = r.resolved;
  if (!res) {
    p.append(h('p', { class: 'empty' }, r.definitionError || r.objectError || r.resolveError ? 'No result: see the problems.' : 'No result yet.'));
    return;
  }
  const byName = Object.fromEntries(res.components.map((c) => [c.name, c]));
  const node = (t) => {
    const c = byName[t.component];
    return h('li', { class: 'tree-node', 'data-component': c.name },
      h('div', { class: 'comp' },
        h('span', { class: 'comp-name' }, c.name),
        c.kind ? h('span', { class: 'comp-kind' }, `${c.kind.group ? `${c.kind.group}/` : ''}${c.kind.version}, ${c.kind.kind}`) : null,
        c.root ? h('span', { class: 'tag' }, 'root') : null,
        (c.root ? res.status : c.status) ? h('span', { class: 'badges' }, (c.root ? res.status : c.status).matchedStatuses.map(badge)) : null,
        c.hasPodDefinition ? h('span', { class: 'comp-total' }, `${plural(c.totals.pods, 'pod')} · ${plural(c.totals.resources.gpu, 'GPU')}`) : h('span', { class: 'comp-total muted' }, 'no pods of its own')),
      c.hasPodDefinition || c.multiInstance
        ? h('ul', { class: 'instances' }, c.instances.map((i) => h('li', { class: `instance${i.present ? '' : ' absent'}`, 'data-instance': i.id },
          h('span', { class: 'inst-id' }, i.id === '' ? '(single instance)' : i.id),
          h('span', { class: 'inst-rep' }, i.present ? `× ${fmtInt(i.desiredReplicas)}` : 'absent'),
          i.podResources ? h('span', { class: 'inst-res' }, `${fmtInt(i.podResources.gpu)} GPU/pod`) : null,
          i.live ? h('span', { class: 'inst-live' }, `${fmtInt(i.live.ready)}/${plural(i.live.pods.length, 'pod')} ready`) : null)))
        : null,
      t.children?.length ? h('ul', { class: 'tree' }, t.children.map(node)) : null);
  };
  p.append(h('h3', {}, 'Component tree'), h('ul', { class: 'tree tree-root' }, node(res.tree)));

  const rows = [];
  const anyExtended = res.components.some((c) => c.instances.some((i) => extended(i.resources)));
  const perPod = (pr) => (pr ? `${fmtInt(pr.gpu)} GPU · ${fmtCpu(pr.cpuMillis)} CPU · ${fmtBytes(pr.memoryBytes)}` : '–');
  for (const c of res.components) {
    if (!c.hasPodDefinition) continue;
    for (const i of c.instances) {
      rows.push(h('tr', { 'data-instance': i.id },
        h('th', { scope: 'row' }, c.name),
        h('td', {}, i.id || '–'),
        h('td', { class: 'num' }, i.present ? fmtInt(i.desiredReplicas) : 'absent'),
        h('td', { class: 'muted' }, perPod(i.podResources)),
        h('td', { class: 'num strong' }, fmtInt(i.resources.gpu)),
        h('td', { class: 'num' }, fmtCpu(i.resources.cpuMillis)),
        h('td', { class: 'num' }, fmtBytes(i.resources.memoryBytes)),
        anyExtended ? h('td', {}, extended(i.resources)) : null));
    }
  }
  const t = res.totals;
  const cols = ['Component', 'Instance', 'Replicas', 'Per pod', 'GPUs', 'CPU', 'Memory', ...(anyExtended ? ['Other'] : [])];
  p.append(h('h3', {}, 'Resources'),
    h('div', { class: 'table-wrap' }, h('table', { class: 'grid', id: 'resources' },
      h('caption', { class: 'sr-only' }, 'Requested resources per component instance'),
      h('thead', {}, h('tr', {}, cols.map((x) => h('th', { scope: 'col', class: ['Replicas', 'GPUs', 'CPU', 'Memory'].includes(x) ? 'num' : null }, x)))),
      h('tbody', {}, rows.length ? rows : h('tr', {}, h('td', { colspan: cols.length, class: 'muted' }, 'No component has pods.'))),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, 'Total'), h('td', {}), h('td', { class: 'num' }, fmtInt(t.pods)), h('td', {}),
        h('td', { class: 'num strong', id: 'total-gpu' }, fmtInt(t.resources.gpu)), h('td', { class: 'num' }, fmtCpu(t.resources.cpuMillis)), h('td', { class: 'num' }, fmtBytes(t.resources.memoryBytes)),
        anyExtended ? h('td', {}, extended(t.resources)) : null)))));
  if (res.warnings?.length) p.append(h('h3', {}, 'Warnings'), h('ul', { class: 'warnings' }, res.warnings.map((w) => h('li', {}, w))));
}

function goToField(field) {
  const view = editors.definition;
  const place = fieldPlace(app.result, { field });
  if (!place) return;
  const { from, to } = restOfLine(view.state.doc, (place.key ?? place.value).start);
  view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
  view.focus();
}

function describeCriterion(c) {
  switch (c.kind) {
    case 'phase':
      return h('span', {}, 'byPhase ', h('code', {}, c.expected));
    case 'condition':
      return h('span', {}, 'byConditions ', h('code', {}, `${c.type}${c.expectedStatus ? `=${c.expectedStatus}` : ''}${c.expectedReason ? ` (reason ${c.expectedReason})` : ''}`));
    case 'expression':
      return h('span', {}, 'byExpression gives ', h('code', {}, JSON.stringify(c.expected)), h('pre', { class: 'expr' }, c.expression));
    default:
      return h('span', {}, c.kind);
  }
}

function renderExplanationOf(ex) {
  const out = [];
  const facts = [];
  if (ex.phase) facts.push(h('div', { class: 'fact' }, h('span', { class: 'fact-k' }, 'Phase'), h('code', {}, ex.phase.value === undefined ? '(none)' : JSON.stringify(ex.phase.value)), h('span', { class: 'muted' }, ` from ${ex.phase.expression}`)));
  if (ex.conditions) {
    facts.push(h('div', { class: 'fact' }, h('span', { class: 'fact-k' }, 'Conditions'), ex.conditions.items.length ? null : h('span', { class: 'muted' }, `(none) from ${ex.conditions.expression}`)));
    if (ex.conditions.items.length) {
      facts.push(h('div', { class: 'table-wrap' }, h('table', { class: 'grid compact' },
        h('thead', {}, h('tr', {}, ['Type', 'Status', 'Reason', 'Message'].map((x) => h('th', { scope: 'col' }, x)))),
        h('tbody', {}, ex.conditions.items.map((c) => h('tr', {}, h('td', {}, c.type), h('td', {}, c.status ?? '–'), h('td', {}, c.reason ?? '–'), h('td', { class: 'msg' }, c.message ?? '')))))));
    }
  }
  out.push(h('div', { class: 'facts' }, facts));
  if (ex.error) out.push(h('div', { class: 'banner banner-error' }, h('strong', {}, 'The status cannot be computed: '), breakable(describeError(ex.error))));
  if (ex.matchedStatuses?.length) out.push(h('p', { class: 'matched-line' }, 'Matched: ', ex.matchedStatuses.map(badge)));
  out.push(h('ol', { class: 'categories' }, ex.categories.map((cat) => h('li', { class: `category ${cat.matched ? 'is-matched' : ''}`, 'data-status': cat.status },
    h('div', { class: 'cat-head' },
      h('span', { class: `icon ${cat.matched ? 'icon-matched' : 'icon-notMatched'}`, 'aria-hidden': 'true' }, cat.matched ? '✓' : '✗'),
      cat.matched ? badge(cat.status) : h('span', { class: 'badge badge-muted' }, cat.status),
      h('span', { class: 'sr-only' }, cat.matched ? 'matched' : 'not matched'),
      h('span', { class: 'muted' }, `statusMappings.${cat.key}: ${plural(cat.matchers.length, 'matcher')}`)),
    h('ol', { class: 'matchers' }, cat.matchers.map((m, i) => h('li', { class: `matcher outcome-${m.outcome}` },
      h('div', { class: 'matcher-head' },
        h('span', { class: `icon icon-${m.outcome}`, 'aria-hidden': 'true' }, outcomeIcon[m.outcome]?.[0] ?? '?'),
        h('span', {}, `Matcher ${i + 1}: `, h('strong', {}, outcomeIcon[m.outcome]?.[1] ?? m.outcome)),
        h('button', { type: 'button', class: 'link', onclick: () => goToField(m.field), title: m.field, 'aria-label': `Show matcher ${i + 1} of ${cat.status} in the definition` }, 'show in definition')),
      m.checks.length === 0 ? h('p', { class: 'check muted' }, 'No criteria: matches unconditionally.') : null,
      h('ul', { class: 'checks' }, m.checks.map((c) => h('li', { class: `check outcome-${c.outcome}` },
        h('span', { class: `icon icon-${c.outcome}`, 'aria-hidden': 'true' }, outcomeIcon[c.outcome]?.[0] ?? '?'),
        h('div', { class: 'check-body' },
          h('div', {}, describeCriterion(c)),
          h('div', { class: 'reason' }, h('span', { class: 'sr-only' }, `${outcomeIcon[c.outcome]?.[1] ?? c.outcome}: `), c.reason))))))))))));
  return out;
}

function renderStatus(r) {
  const p = $('panel-status');
  p.replaceChildren();
  const ex = r.explanation;
  if (!ex) {
    p.append(h('p', { class: 'empty' }, r.explainError ? `No explanation: ${describeError(r.explainError)}` : 'No explanation: see the problems.'));
    return;
  }
  p.append(h('h3', {}, `Root component ${ex.component}`), ...renderExplanationOf(ex));
  for (const c of ex.components ?? []) p.append(h('h3', {}, `Component ${c.component}`), ...renderExplanationOf(c));
}

function renderPods(r) {
  const p = $('panel-pods');
  p.replaceChildren();
  if (!r.podItems) {
    if (app.podsNote) p.append(h('p', { class: 'note', id: 'pods-cleared' }, app.podsNote));
    p.append(h('p', { class: 'empty' }, r.podsError ? 'The pods do not parse: see the problems.' : 'Give pods (the Pods editor, or a fixture marked “+ pods”) to see which component and instance each pod belongs to, and the gang-scheduling groups.'));
    return;
  }
  if (r.podsApiError) p.append(h('div', { class: 'banner banner-error' }, h('strong', {}, 'Attribution failed: '), breakable(describeError(r.podsApiError))));
  const a = r.attribution;
  if (a) {
    const placed = (x) => (x.component ? `${x.component}${x.instance ? ` / ${x.instance}` : ''}${x.replicaKey !== undefined ? ` #${x.replicaKey}` : ''}` : null);
    const stray = new Set(a.stray ?? []);
    const counts = [plural(a.pods.length, 'pod'), `${fmtInt(a.unattributed.length)} unattributed`];
    if (stray.size) counts.push(`${fmtInt(stray.size)} not this workload's`);
    p.append(h('h3', {}, `Pod attribution (${counts.join(', ')})`),
      h('div', { class: 'table-wrap' }, h('table', { class: 'grid wrap', id: 'attribution' },
        h('thead', {}, h('tr', {}, ['Pod', 'Belongs to', 'Phase', 'Ready', 'Node', 'GPUs'].map((x) => h('th', { scope: 'col', class: x === 'GPUs' ? 'num' : null }, x)))),
        h('tbody', {}, a.pods.map((x) => h('tr', { class: x.component ? '' : stray.has(x.name) ? 'stray' : 'unattributed', 'data-pod': x.name },
          h('th', { scope: 'row', class: 'pod-name' }, x.name),
          h('td', {}, placed(x) ?? h('span', { class: 'muted' }, stray.has(x.name) ? "not this workload's" : 'unattributed')),
          h('td', {}, x.phase ? h('span', { class: `badge badge-${{ Running: 'ok', Succeeded: 'done', Failed: 'bad', Pending: 'pending' }[x.phase] ?? 'muted'}` }, x.phase) : '–', x.reason ? h('span', { class: 'muted' }, ` ${x.reason}`) : null),
          h('td', {}, x.ready ? 'yes' : 'no'), h('td', {}, x.node ?? '–'), h('td', { class: 'num' }, fmtInt(x.resources?.gpu))))))));
    const notes = a.pods.filter((x) => x.findings?.length);
    if (notes.length) p.append(h('ul', { class: 'warnings' }, notes.map((x) => h('li', {}, `${x.name}: ${x.findings.map((f) => f.message ?? JSON.stringify(f)).join('; ')}`))));
  }
  if (r.gangError) p.append(h('div', { class: 'banner banner-error' }, h('strong', {}, 'Gang groups failed: '), breakable(describeError(r.gangError))));
  const g = r.gang;
  if (g && r.definition?.gang === false) {
    // Not a failure: the definition simply schedules nothing as a gang.
    p.append(h('h3', {}, 'Gang groups'),
      h('p', { class: 'empty', id: 'gangs-none' }, 'No gang scheduling instructions: this definition does not schedule its pods as gangs, so there are no gang groups.'));
  } else if (g) {
    p.append(h('h3', {}, `Gang groups (${g.groups.length})`),
      g.groups.length === 0 ? h('p', { class: 'empty', id: 'gangs-none' }, 'No pod falls into a gang group.')
        : h('ul', { class: 'gangs', id: 'gangs' }, g.groups.map((x) => h('li', { class: 'gang' },
          h('div', { class: 'gang-head' },
            h('code', { class: 'gang-name' }, x.name),
            h('span', { class: 'gang-min' }, `min ${fmtInt(x.minMember)} of ${plural((x.members ?? []).length, 'pod')}`)),
          h('div', { class: 'muted' }, `pod group ${x.podGroup ?? '–'} · component ${x.component ?? '–'}${x.keys?.length ? ` · keys ${x.keys.join(', ')}` : ''}`),
          h('ul', { class: 'chips' }, (x.members ?? []).map((m) => h('li', { class: 'chip' }, m)))))));
  }
}

function renderJson(r) {
  const out = r.resolved ?? (r.resolveError ? { error: r.resolveError } : r.definitionError ? { error: r.definitionError } : r.objectError ? { error: r.objectError } : null);
  $('json-out').textContent = out ? JSON.stringify(out, null, 2) : '';
}

/** Clear a fixture's pods, events and related objects once the object is another workload; true when cleared. */
function rescopePods(r) {
  const id = workloadId(r.object);
  if (!id || !app.podsOf) return false;
  if (app.podsOf === 'pending') {
    app.podsOf = id;
    return false;
  }
  const held = EXTRAS.filter((k) => app.extras.has(k) && getText(editors[k]).trim());
  if (id.key === app.podsOf.key || held.length === 0) return false;
  const what = wordList(held);
  app.podsNote = `The ${what} of ${app.podsOf.label} were cleared: they are not ${id.label}'s ${what}.`;
  app.cleared = held;
  app.podsOf = null;
  app.extras = new Set();
  applyingState = true;
  for (const k of held) setText(editors[k], '');
  applyingState = false;
  inputsChanged();
  return true;
}

function render(r) {
  if (rescopePods(r)) return;
  app.result = r;
  human = r.human ?? { millicores: {}, bytes: {} };
  showDiagnostics(buildDiagnostics(r));
  const first = r.definitionError ?? r.objectError ?? r.resolveError;
  if (first) {
    const what = r.definitionError ? 'The definition' : r.objectError ? 'The object' : 'Resolving';
    const n = r.definitionError?.findings?.filter((f) => f.severity === 'error').length;
    setBanner('error', `${what} failed:`, n ? `${plural(n, 'validation error')} (see the problems).` : describeError(first));
  } else setBanner(null);
  renderSummary(r);
  renderWhy(r);
  renderComponents(r);
  renderStatus(r);
  renderPods(r);
  renderJson(r);
  $('def-summary').textContent = r.definition ? `${r.definition.name}${app.defFile ? ' · catalog' : ''}` : $('def-summary').textContent;
  app.runs += 1;
  document.body.dataset.runs = String(app.runs);
}

// ---------------------------------------------------------------- engine

// A run shows as busy only when it takes longer than this: a fast one (most
// are a few ms) does not make the header and the banner flicker.
const BUSY_DELAY_MS = 150;
let busyTimer = null;

function setEngineState(s) {
  clearTimeout(busyTimer);
  if (s === 'busy') {
    if (!app.busy) busyTimer = setTimeout(() => showEngineState('busy'), BUSY_DELAY_MS);
  } else showEngineState(s);
}

/** The header's engine state; busy also marks the results as stale (dimmed, the banner a working notice). */
function showEngineState(s) {
  const el = $('engine-state');
  el.dataset.state = s;
  el.textContent = { starting: 'Starting the engine…', ready: app.result ? `Ready · ${app.result.ms} ms` : 'Ready', busy: 'Working…' }[s] ?? s;
  const busy = s === 'busy';
  if (busy === app.busy) return;
  app.busy = busy;
  document.body.dataset.busy = String(busy);
  $('results').classList.toggle('is-busy', busy);
  $('results').setAttribute('aria-busy', String(busy));
  paintBanner();
}

const engine = new EngineClient({
  budgetMs: BUDGET_MS,
  onState: setEngineState,
  onRestart: ({ message }) => {
    app.restarts += 1;
    document.body.dataset.restarts = String(app.restarts);
    app.lastError = message;
    setBanner('error', 'Engine stopped.', message);
  },
});

async function run() {
  const answer = await engine.request({ type: 'run', ...inputs() });
  if (answer.type === 'superseded') return;
  if (answer.type === 'aborted') {
    // Nothing shown may belong to other inputs: clear every view.
    app.result = null;
    showDiagnostics(noDiagnostics());
    $('why').replaceChildren();
    for (const t of ['components', 'status', 'pods']) {
      $(`panel-${t}`).replaceChildren(h('p', { class: 'empty' }, 'No result: the engine was stopped (see above). Change the inputs to try again.'));
    }
    $('json-out').textContent = '';
    setBanner('error', 'Engine stopped.', answer.message);
    $('summary').replaceChildren();
    document.body.dataset.aborted = String(Number(document.body.dataset.aborted ?? 0) + 1);
    return;
  }
  if (answer.type === 'failed') {
    setBanner('error', 'Internal error:', describeError(answer.error));
    return;
  }
  render(answer);
  setEngineState('ready');
}

// ---------------------------------------------------------------- link, export

function toast(text) {
  const t = h('div', { class: 'toast', role: 'status' }, text);
  document.body.append(t);
  setTimeout(() => t.remove(), 2500);
}

$('btn-link').addEventListener('click', async () => {
  await saveUrl();
  try {
    await navigator.clipboard.writeText(location.href);
    toast('Link copied: it reproduces exactly this page.');
  } catch {
    window.prompt('Copy this link:', location.href);
  }
});

function exportText() {
  if (!app.result) return null;
  return toYaml(caseGroup(inputs(), app.result));
}

$('btn-export').addEventListener('click', () => {
  const text = exportText();
  if (!text) return toast('Nothing to export yet.');
  const a = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'application/yaml' })), download: 'playground.yaml' });
  document.body.append(a);
  a.click();
  a.remove();
  toast('Exported playground.yaml: a conformance case group (conformance/README.md).');
});

// ---------------------------------------------------------------- start

async function start() {
  const [ready, fixtures] = await Promise.all([
    engine.ready,
    fetch(new URL('./fixtures.json', import.meta.url)).then((r) => r.json()).catch(() => ({ fixtures: {} })),
  ]);
  app.catalog = ready.catalog;
  app.fixtures = fixtures.fixtures ?? {};
  $('version').textContent = `workload-lens ${ready.version}`;
  fillCatalog();
  let state = null;
  try {
    state = await decodeState(location.hash);
  } catch (e) {
    setBanner('error', 'The link could not be read:', String(e.message ?? e));
  }
  if (state) applyState(state);
  else loadDefinition(app.catalog['jobset-x-k8s-io-jobset-v1alpha2.yaml'] ? 'jobset-x-k8s-io-jobset-v1alpha2.yaml' : Object.keys(app.catalog)[0]);
  window.addEventListener('hashchange', async () => {
    if (location.hash === app.savedHash) return;
    const s = await decodeState(location.hash).catch(() => null);
    if (s) applyState(s);
  });
}

// For the end-to-end tests and for debugging from the console.
window.__playground = {
  app,
  engine,
  editors,
  inputs,
  exportText,
  started: start().catch((e) => setBanner('error', 'The playground failed to start:', String(e?.message ?? e))),
  setInputs(s) {
    applyState({ ...inputs(), ...s });
  },
  diagnostics() {
    const out = {};
    for (const [name, view] of Object.entries(editors)) {
      out[name] = app.diagnostics[name].map((d) => {
        const line = view.state.doc.lineAt(d.from);
        return { line: line.number, column: d.from - line.from + 1, from: d.from, to: d.to, severity: d.severity, message: d.message, source: d.source, text: view.state.doc.sliceString(d.from, d.to) };
      });
    }
    return out;
  },
};
