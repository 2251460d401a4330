// End-to-end tests of the playground in headless Chromium (playwright-core
// with Debian's /usr/bin/chromium): the built page (playground/dist) served by
// python3 -m http.server. Screenshots go to target/playground/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const dist = path.join(root, 'playground', 'dist');
const shots = path.join(root, 'target', 'playground');
const JOBSET = 'jobset-x-k8s-io-jobset-v1alpha2.yaml';

let server;
let ctx;
let base;
let profile;

const freePort = () => new Promise((resolve, reject) => {
  const s = net.createServer();
  s.on('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

async function waitForServer(url) {
  for (let i = 0; i < 100; i++) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server at ${url} did not start`);
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  const port = await freePort();
  server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', dist], { stdio: 'ignore' });
  base = `http://127.0.0.1:${port}/`;
  await waitForServer(base);
  profile = mkdtempSync(path.join(tmpdir(), 'wl-playground-'));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await ctx?.close();
  server?.kill();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** A new page on the playground; fails the test on a page error. */
async function open(url = base) {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.errors = errors;
  await page.goto(url);
  // The first run: 60 s, since on a loaded 2-core CI machine a new page
  // (the WASM module compiled again, its worker started) once took more
  // than 20 s. What a test checks after opening has its own timing.
  await page.waitForFunction(() => Number(document.body.dataset.runs) >= 1, null, { timeout: 60000 });
  return page;
}

const runs = (page) => page.evaluate(() => Number(document.body.dataset.runs));
async function nextRun(page, before, timeout = 10000) {
  await page.waitForFunction((n) => Number(document.body.dataset.runs) > n, before, { timeout });
}

async function pickJobSetExample(page) {
  // Start from another definition so that picking the JobSet changes something.
  let n = await runs(page);
  await page.selectOption('#pick-def', 'core-pod-v1.yaml');
  await nextRun(page, n);
  n = await runs(page);
  await page.selectOption('#pick-def', JOBSET);
  await page.selectOption('#pick-fix', 'example');
  await nextRun(page, n);
  await page.waitForFunction(() => document.querySelector('#card-gpu .card-value')?.textContent === '12');
}

/** Replace `find` in an editor by typing `replacement` with the keyboard. */
async function typeOver(page, editor, find, replacement) {
  await page.evaluate(({ editor, find }) => {
    const view = window.__playground.editors[editor];
    const at = view.state.doc.toString().indexOf(find);
    if (at < 0) throw new Error(`${find} not in the ${editor} editor`);
    view.focus();
    view.dispatch({ selection: { anchor: at, head: at + find.length }, scrollIntoView: true });
  }, { editor, find });
  await page.keyboard.type(replacement, { delay: 5 });
}

test('pick the JobSet definition and its example: 12 GPUs, roles leader and worker', async () => {
  const page = await open();
  await pickJobSetExample(page);
  assert.equal(await page.textContent('#card-gpu .card-value'), '12');
  assert.equal(await page.textContent('#card-pods .card-value'), '3');
  const roles = await page.$$eval('[data-component="replicatedjob"] .instance', (els) => els.map((e) => e.dataset.instance));
  assert.deepEqual(roles, ['leader', 'worker']);
  assert.match(await page.textContent('#card-status'), /Running/);
  assert.equal(await page.textContent('#total-gpu'), '12');
  await page.screenshot({ path: path.join(shots, 'jobset.png') });

  // The status explanation, and pods and gangs (the example has pods).
  await page.click('#tab-status');
  const failed = await page.textContent('#panel-status [data-status="Failed"]');
  assert.match(failed, /no condition of type "Failed"/);
  assert.match(await page.textContent('#panel-status [data-status="Running"]'), /matched/);
  await page.screenshot({ path: path.join(shots, 'status-explanation.png') });
  await page.keyboard.press('ArrowRight'); // keyboard: the next tab
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-pods');
  assert.equal(await page.locator('#attribution tbody tr').count(), 3);
  assert.match(await page.textContent('#gangs'), /llama-pretrain/);
  await page.screenshot({ path: path.join(shots, 'pods.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('pods of another workload: never counted, and a fixture\'s pods leave with its workload', async () => {
  const page = await open();
  await pickJobSetExample(page);
  await page.click('#tab-pods');
  const worker = () => page.textContent('[data-component="replicatedjob"] [data-instance="worker"] .inst-live');
  const before = await worker();
  // A ready pod of another JobSet with the worker's role labels, typed in by
  // the user: listed as not this workload's, not counted into the worker.
  const stray = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: other-worker-0\n  namespace: ml-team\n  labels:\n'
    + '    jobset.sigs.k8s.io/jobset-name: other\n    jobset.sigs.k8s.io/replicatedjob-name: worker\n    jobset.sigs.k8s.io/job-index: "0"\n'
    + 'status:\n  phase: Running\n  conditions: [{type: Ready, status: "True"}]\n';
  let n = await runs(page);
  await page.evaluate((t) => window.__playground.setInputs({ pods: `${window.__playground.inputs().pods}---\n${t}` }), stray);
  await nextRun(page, n);
  assert.equal(await page.locator('#attribution tbody tr').count(), 4);
  assert.equal(await page.locator('#attribution tbody tr.stray').count(), 1);
  assert.equal(await page.locator('#attribution tbody tr.unattributed').count(), 0);
  assert.match(await page.textContent('#panel-pods h3'), /\(4 pods, 0 unattributed, 1 not this workload's\)/);
  assert.match(await page.textContent('#attribution tr.stray'), /not this workload/);
  assert.equal(await worker(), before);
  assert.equal(await page.locator('#gangs .gang').count(), 1);
  assert.match(await page.textContent('#gangs .gang'), /min 3 of 3 pods/);
  await page.screenshot({ path: path.join(shots, 'stray-pods.png') });

  // The example's own pods, then the object renamed by typing: they were
  // that JobSet's, so they are cleared, with a note saying why.
  await pickJobSetExample(page);
  assert.equal(await page.locator('#attribution tbody tr').count(), 3);
  n = await runs(page);
  await typeOver(page, 'object', 'name: llama-pretrain', 'name: llama-finetune');
  await page.waitForFunction(() => document.querySelector('#pods-cleared') !== null);
  assert.equal(await page.evaluate(() => window.__playground.inputs().pods), '');
  assert.match(await page.textContent('#pods-cleared'), /The pods of JobSet ml-team\/llama-pretrain were cleared: they are not JobSet ml-team\/llama-finetune's pods/);
  assert.ok((await runs(page)) > n);
  await page.screenshot({ path: path.join(shots, 'pods-cleared.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('amounts read as the CLI writes them: cores as decimals, memory in binary units with one decimal', async () => {
  const page = await open();
  await pickJobSetExample(page);
  assert.equal(await page.textContent('#card-cpu .card-value'), '24');
  assert.equal(await page.textContent('#card-mem .card-value'), '192Gi');
  // 1000M per pod (3 pods: 3,000,000,000 bytes) and 8.5 cores per pod.
  const text = (await page.evaluate(() => window.__playground.inputs().object))
    .replaceAll('memory: 64Gi', 'memory: 1000M').replaceAll('cpu: "8"', 'cpu: 8500m');
  const n = await runs(page);
  await page.evaluate((t) => window.__playground.setInputs({ object: t }), text);
  await nextRun(page, n);
  assert.equal(await page.textContent('#card-mem .card-value'), '2.8Gi');
  assert.equal(await page.textContent('#card-cpu .card-value'), '25.5');
  // The same text as the engine writes it in Node (one rule for every front end).
  const wl = await import(pathToFileURL(path.join(root, 'bindings-node', 'browser.mjs')).href);
  await wl.init();
  const amounts = wl.humanAmounts([{ memoryBytes: 3e9 }, { memoryBytes: 1e9 }, { cpuMillis: 8500 }]);
  assert.equal(amounts.bytes[3e9], '2.8Gi');
  const leader = await page.$$eval('#resources tbody tr[data-instance="leader"] > *', (cells) => cells.map((c) => c.textContent));
  assert.equal(leader[6], amounts.bytes[1e9]);
  assert.equal(leader[6], '953.7Mi');
  assert.equal(leader[5], amounts.millicores[8500]);
  assert.equal(leader[5], '8.5');
  assert.match(leader[3], /8\.5 CPU · 953\.7Mi/);
  await page.screenshot({ path: path.join(shots, 'amounts.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a definition without gang scheduling instructions: a neutral empty state, not a failure', async () => {
  const page = await open();
  let n = await runs(page);
  await page.selectOption('#pick-def', 'apps-deployment-v1.yaml');
  await nextRun(page, n);
  n = await runs(page);
  await page.selectOption('#pick-fix', 'running');
  await nextRun(page, n);
  await page.waitForFunction(() => document.querySelectorAll('#attribution tbody tr').length > 0);
  await page.click('#tab-pods');
  const pods = await page.locator('#attribution tbody tr').count();
  assert.ok(pods >= 2, `${pods} pods`);
  assert.equal(await page.locator('#attribution tbody tr.unattributed').count(), 0);
  // No gang groups, said plainly: no error banner anywhere.
  assert.match(await page.textContent('#gangs-none'), /No gang scheduling instructions/);
  assert.equal(await page.locator('#panel-pods .banner-error').count(), 0);
  assert.equal(await page.textContent('#banner'), '');
  assert.equal(await page.locator('#gangs').count(), 0);
  assert.deepEqual(await page.evaluate(() => window.__playground.diagnostics().pods), []);
  await page.screenshot({ path: path.join(shots, 'no-gang.png') });

  // A PodList (as `kubectl get pods -o json` prints it, items without kind)
  // reads the same.
  const podsText = await page.evaluate(() => window.__playground.inputs().pods);
  const wl = await import(pathToFileURL(path.join(root, 'bindings-node', 'browser.mjs')).href);
  await wl.init();
  const [list] = wl.parse(podsText);
  const podList = { apiVersion: 'v1', kind: 'PodList', items: list.items.map(({ kind: _k, apiVersion: _a, ...p }) => p) };
  n = await runs(page);
  await page.evaluate((t) => window.__playground.setInputs({ ...window.__playground.inputs(), pods: t }), JSON.stringify(podList, null, 2));
  await nextRun(page, n);
  assert.equal(await page.locator('#attribution tbody tr').count(), pods);
  assert.equal(await page.locator('#attribution tbody tr.unattributed').count(), 0);
  assert.match(await page.textContent('#gangs-none'), /No gang scheduling instructions/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an invalid expression gets a diagnostic at its place', async () => {
  const page = await open();
  await pickJobSetExample(page);
  const n = await runs(page);
  await typeOver(page, 'definition', '.spec.replicatedJobs[].name', '.spec.replicatedJobs[] | nosuchfn(1)');
  await nextRun(page, n);
  const want = await page.evaluate(() => {
    const doc = window.__playground.editors.definition.state.doc;
    const at = doc.toString().indexOf('nosuchfn');
    const line = doc.lineAt(at);
    return { line: line.number, column: at - line.from + 1 };
  });
  await page.waitForFunction(() => window.__playground.diagnostics().definition.length > 0);
  const d = (await page.evaluate(() => window.__playground.diagnostics().definition))[0];
  assert.equal(d.severity, 'error');
  // Validation compiles every expression: an unknown function is a finding.
  assert.equal(d.source, 'jq-undefined');
  assert.match(d.message, /function nosuchfn\/1 is not defined/);
  assert.deepEqual({ line: d.line, column: d.column }, want);
  assert.equal(d.text, 'nosuchfn');
  // The definition is no longer the catalog's; its fixtures stay at hand.
  assert.equal(await page.inputValue('#pick-def'), '');
  assert.ok(await page.locator('#pick-fix option').count() > 5);
  // Shown in the gutter and in the problem list, which moves the cursor there.
  assert.ok(await page.locator('.cm-lint-marker-error').count() >= 1);
  const problem = page.locator('#problems .problem-link').first();
  assert.match(await problem.textContent(), new RegExp(`Definition ${want.line}:${want.column}`));

  // A syntax error (a validation finding) in a folded block scalar.
  const m = await runs(page);
  await typeOver(page, 'definition', 'or .type == "Suspended"', 'or .type == "Suspended" ]]');
  await nextRun(page, m);
  await page.waitForFunction(() => window.__playground.diagnostics().definition.some((x) => x.source === 'jq-syntax'));
  const syntax = (await page.evaluate(() => window.__playground.diagnostics().definition)).find((x) => x.source === 'jq-syntax');
  const line = await page.evaluate(() => {
    const doc = window.__playground.editors.definition.state.doc;
    return doc.lineAt(doc.toString().indexOf('"Suspended" ]]')).number;
  });
  assert.equal(syntax.line, line);
  await page.screenshot({ path: path.join(shots, 'diagnostic.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('an error about a pod field is at that field of the instance\'s pod template; links move the cursor there', async () => {
  const page = await open();
  await pickJobSetExample(page);
  // The worker's pod template (the second) asks for `8 cores` of CPU: not a quantity.
  const object = await page.evaluate(() => window.__playground.inputs().object);
  const at = object.indexOf('cpu: "8"', object.indexOf('- name: worker'));
  const bad = `${object.slice(0, at)}cpu: "8 cores"${object.slice(at + 'cpu: "8"'.length)}`;
  const want = bad.slice(0, at).split('\n').length;
  let n = await runs(page);
  await page.evaluate((t) => window.__playground.setInputs({ ...window.__playground.inputs(), object: t }), bad);
  await nextRun(page, n);
  await page.waitForFunction(() => window.__playground.diagnostics().object.length > 0);
  const [d] = await page.evaluate(() => window.__playground.diagnostics().object);
  assert.equal(d.severity, 'error');
  assert.equal(d.source, 'conversion');
  assert.equal(d.line, want);
  assert.equal(d.text, 'cpu: "8 cores"');
  // The problem list's entry moves the cursor to that line.
  const cursorLine = (editor) => page.evaluate((e) => {
    const v = window.__playground.editors[e];
    return v.state.doc.lineAt(v.state.selection.main.head).number;
  }, editor);
  const link = page.locator('#problems .problem-link', { hasText: 'Object' }).first();
  assert.match(await link.textContent(), new RegExp(`Object ${want}:23`));
  await link.click();
  assert.equal(await cursorLine('object'), want);
  assert.equal(await page.evaluate(() => {
    const v = window.__playground.editors.object;
    return v.state.sliceDoc(v.state.selection.main.from, v.state.selection.main.to);
  }), 'cpu: "8 cores"');
  await page.screenshot({ path: path.join(shots, 'object-error.png') });

  // Back to a valid object; a matcher's "show in definition" goes to the matcher.
  n = await runs(page);
  await page.evaluate((t) => window.__playground.setInputs({ ...window.__playground.inputs(), object: t }), object);
  await nextRun(page, n);
  await page.waitForFunction(() => window.__playground.diagnostics().object.length === 0);
  await page.click('#tab-status');
  const definition = await page.evaluate(() => window.__playground.inputs().definition);
  const lines = definition.split('\n');
  const running = lines.findIndex((l) => /^\s+running:$/.test(l));
  await page.locator('button[aria-label^="Show matcher 1 of Running"]').click();
  assert.equal(await cursorLine('definition'), running + 2);
  assert.match(lines[running + 1], /^\s+- byExpression:$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

// Every matcher burns most of its evaluation budget and does not match, so
// the engine evaluates all of them: seconds of work for a few lines (YAML
// aliases repeat the matcher). The page must stay responsive and replace the
// worker when it does not answer within the budget.
/** A one-component definition whose running matchers are `items` (YAML list items). */
const busyDefinition = (items) => `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: example-com-busy-v1}
spec:
  structureDefinition:
    rootComponent:
      name: busy
      kind: {group: example.com, version: v1, kind: Busy}
      specDefinition: {podTemplateSpecPath: .spec.template}
      statusDefinition:
        statusMappings:
          running:
${items}`;
/** About n² steps of work (n = 2000: past maxSteps, in resolve and in the status explanation alike). */
const work = (n) => `("x" * ${n} | explode) as $n | reduce ($n[] as $a | $n[] as $b | 1) as $x (0; . + 1)`;
const HOSTILE = busyDefinition(`            - &m
              byExpression:
                expression: '${work(450)}'
                expectedResult: "never"
${'            - *m\n'.repeat(60)}`);
const BUSY = `apiVersion: example.com/v1
kind: Busy
metadata: {name: b}
spec: {template: {spec: {containers: [{name: c}]}}}
`;

test('the URL sets the time budget, at least 200 ms', async () => {
  for (const [q, want] of [['', 4000], ['?budget=1500', 1500], ['?budget=50', 200], ['?budget=x', 4000]]) {
    const page = await ctx.newPage();
    await page.goto(`${base}${q}`);
    await page.waitForFunction(() => window.__playground?.engine !== undefined);
    assert.equal(await page.evaluate(() => window.__playground.engine.budgetMs), want, q);
    await page.close();
  }
});

test('a hostile definition does not freeze the page: the worker is replaced', async () => {
  // The engine's whole-call budgets stop this definition with a limit error
  // in well under a second (docs/reliability.md); the page's watchdog is the
  // second line of defence, exercised here with its smallest time budget,
  // 200 ms. Only the hostile call runs under it: on a slow machine an
  // ordinary first call of a fresh worker can take longer than that, and the
  // page would rightly stop it too.
  const page = await open();
  await pickJobSetExample(page);
  await page.evaluate(() => { window.__playground.engine.budgetMs = 200; });
  await page.evaluate(({ d, o }) => window.__playground.setInputs({ definition: d, object: o, pods: '' }), { d: HOSTILE, o: BUSY });
  // While the engine is busy the page answers at once. (The header says so
  // only after 150 ms, which the watchdog's 200 ms barely leaves: the
  // engine's own word is the one to wait for.)
  await page.waitForFunction(() => window.__playground.engine.inflight !== null);
  const t0 = Date.now();
  await page.evaluate(() => 1 + 1);
  await page.focus('#btn-link');
  assert.ok(Date.now() - t0 < 1000, `the page took ${Date.now() - t0} ms to answer`);
  await page.waitForFunction(() => Number(document.body.dataset.restarts) >= 1, null, { timeout: 15000 });
  assert.match(await page.textContent('#banner'), /did not answer within 0\.2 s/);
  await page.screenshot({ path: path.join(shots, 'hostile.png') });
  // The fresh worker answers (under the default budget again).
  await page.evaluate(() => { window.__playground.engine.budgetMs = 4000; });
  await pickJobSetExample(page);
  assert.equal(await page.textContent('#card-gpu .card-value'), '12');
  assert.equal(await page.textContent('#banner'), '');
  // A worker that dies (here: killed behind the client's back) is replaced too.
  await page.evaluate(() => window.__playground.engine.worker.terminate());
  await typeOver(page, 'object', 'replicas: 2', 'replicas: 3');
  await page.waitForFunction(() => Number(document.body.dataset.restarts) >= 2, null, { timeout: 15000 });
  await typeOver(page, 'object', 'replicas: 3', 'replicas: 4');
  await page.waitForFunction(() => document.querySelector('#card-gpu .card-value')?.textContent === '20');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the URL holds the state: a link reproduces the page', async () => {
  const page = await open();
  await pickJobSetExample(page);
  const n = await runs(page);
  // Three workers instead of two: 16 GPUs.
  await typeOver(page, 'object', 'replicas: 2', 'replicas: 3');
  await nextRun(page, n);
  await page.waitForFunction(() => document.querySelector('#card-gpu .card-value')?.textContent === '16');
  await page.click('#tab-status');
  await page.waitForTimeout(800); // the URL is written debounced
  const url = page.url();
  assert.match(url, /#s=[A-Za-z0-9_-]+$/);
  const inputs = await page.evaluate(() => window.__playground.inputs());
  const other = await open(url);
  await other.waitForFunction(() => document.querySelector('#card-gpu .card-value')?.textContent === '16');
  assert.deepEqual(await other.evaluate(() => window.__playground.inputs()), inputs);
  assert.equal(await other.getAttribute('#tab-status', 'aria-selected'), 'true');
  // The definition is the catalog's, the object no longer the fixture.
  assert.equal(await other.inputValue('#pick-def'), JOBSET);
  assert.equal(await other.inputValue('#pick-fix'), '');
  // Untouched catalog definitions come back selected in the picker.
  const fresh = await open();
  await pickJobSetExample(fresh);
  await fresh.waitForTimeout(800);
  const again = await open(fresh.url());
  assert.equal(await again.inputValue('#pick-def'), JOBSET);
  assert.equal(await again.inputValue('#pick-fix'), 'example');
  for (const p of [page, other, fresh, again]) {
    assert.deepEqual(p.errors, []);
    await p.close();
  }
});

test('the exported case is a conformance case group that passes', async () => {
  const page = await open();
  await pickJobSetExample(page);
  const text = await page.evaluate(() => window.__playground.exportText());
  const inputs = await page.evaluate(() => window.__playground.inputs());
  const wl = await import(pathToFileURL(path.join(root, 'bindings-node', 'browser.mjs')).href);
  await wl.init();
  const docs = wl.parse(text);
  assert.equal(docs.length, 1);
  const group = docs[0];
  assert.equal(typeof group.note, 'string');
  // The resolve case, and the diagnose case of the same inputs.
  assert.deepEqual(group.cases.map((x) => x.op), ['resolve', 'diagnose']);
  const c = group.cases[0];
  assert.match(c.name, /^playground\//);
  assert.equal(c.op, 'resolve');
  assert.equal(c.definition.text, inputs.definition);
  assert.deepEqual(c.object, wl.parse(inputs.object)[0]);
  // The pods as given: examples/jobset-pods.yaml is one List document.
  assert.equal(c.pods.kind, 'List');
  assert.equal(c.pods.items.length, 3);
  assert.equal(c.expect.result.totals.resources.gpu, 12);
  // It passes the JS conformance runner (the same rules as the Rust one).
  const { runCase, compare } = await import(pathToFileURL(path.join(root, 'bindings-node', 'testing', 'conformance-runner.mjs')).href);
  assert.equal(compare(c.expect, runCase(wl, c, group)), null);
  const why = group.cases[1];
  assert.equal(why.name, `${c.name}-why`);
  assert.deepEqual(why.pods, c.pods);
  assert.equal(compare(why.expect, runCase(wl, why, group)), null);

  // A failing input exports an error expectation.
  const n = await runs(page);
  await typeOver(page, 'definition', '.spec.replicatedJobs[].name', '.spec.replicatedJobs[] | nosuchfn(1)');
  await nextRun(page, n);
  const bad = wl.parse(await page.evaluate(() => window.__playground.exportText()))[0];
  assert.equal(bad.cases[0].expect.error.code, 'validation');
  assert.equal(compare(bad.cases[0].expect, runCase(wl, bad.cases[0], bad)), null);

  // The download button produces the same file.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#btn-export')]);
  assert.equal(download.suggestedFilename(), 'playground.yaml');
  const saved = readFileSync(await download.path(), 'utf8');
  assert.equal(wl.parse(saved)[0].cases[0].expect.error.code, 'validation');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('keyboard: a sensible focus order with a visible focus ring', async () => {
  const page = await open();
  const order = [];
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    order.push(await page.evaluate(() => {
      const e = document.activeElement;
      return e.id || e.getAttribute('aria-labelledby') || e.className;
    }));
    if (i === 1) {
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
      assert.notEqual(outline, 'none');
    }
  }
  assert.deepEqual(order, ['skip', 'pick-def', 'pick-fix', 'btn-link', 'btn-export', 'lbl-def']);
  // Esc then Tab leaves an editor; Tab reaches the result tabs.
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-labelledby')), 'lbl-obj');
  await page.focus('#tab-components');
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-json');
  assert.equal(await page.isVisible('#json-out'), true);
  assert.match(await page.textContent('#json-out'), /"ResolvedWorkload"/);
  await page.close();
});

// ---------------------------------------------------------------- issue 19

const SANDBOX = 'agents-x-k8s-io-sandbox-v1beta1.yaml';

/** A one-component definition whose running matcher runs `expression`. */
const definitionWith = (expression) => busyDefinition(`            - byExpression:
                expression: '${expression}'
                expectedResult: "never"
`);

/** Set the JobSet's catalog definition with instance ids that do about n² steps of work first. */
async function jobSetWithWork(page, n) {
  await page.evaluate(({ file, w }) => {
    const p = window.__playground;
    p.setInputs({ definition: p.app.catalog[file].replace('instanceIdPath: .spec.replicatedJobs[].name', `instanceIdPath: '. as $o | ${w} | $o | .spec.replicatedJobs[].name'`) });
  }, { file: JOBSET, w: work(n) });
}

const problems = (page) => page.$$eval('#problems li', (els) => els.map((e) => e.textContent));

test('counts read in the singular for one: 1 pod, 1 GPU, 1 matcher', async () => {
  const page = await open();
  let n = await runs(page);
  await page.selectOption('#pick-def', SANDBOX);
  await nextRun(page, n);
  n = await runs(page);
  await page.selectOption('#pick-fix', 'running');
  await nextRun(page, n);
  await page.waitForFunction(() => document.querySelectorAll('#attribution tbody tr').length === 1);
  assert.equal(await page.textContent('#card-pods .card-value'), '1');
  assert.equal(await page.textContent('#card-pods .card-label'), 'Pod');
  assert.equal(await page.textContent('#card-gpu .card-value'), '1');
  assert.equal(await page.textContent('#card-gpu .card-label'), 'GPU');
  assert.deepEqual([...new Set(await page.$$eval('.comp-total:not(.muted)', (els) => els.map((e) => e.textContent)))], ['1 pod · 1 GPU']);
  assert.equal(await page.textContent('.inst-live'), '1/1 pod ready');
  await page.screenshot({ path: path.join(shots, 'plurals.png') });
  await page.click('#tab-status');
  assert.match(await page.textContent('#panel-status'), /statusMappings\.running: 1 matcher(?!s)/);
  await page.click('#tab-pods');
  assert.match(await page.textContent('#panel-pods h3'), /^Pod attribution \(1 pod, 0 unattributed\)$/);
  assert.equal(await page.textContent('#gangs .gang-min'), 'min 1 of 1 pod');
  await page.screenshot({ path: path.join(shots, 'plurals-pods.png') });
  // Nowhere a "1 pods" (the views as shown, tab by tab).
  const shown = [await page.innerText('#summary')];
  for (const t of ['components', 'status', 'pods']) {
    await page.click(`#tab-${t}`);
    shown.push(await page.innerText(`#panel-${t}`));
  }
  for (const text of shown) assert.doesNotMatch(text, /(^|[^\d.,])1 (pods|GPUs|instances|replicas|matchers|groups|errors|problems)\b/i);

  // And the plural for more: the JobSet example.
  await pickJobSetExample(page);
  assert.equal(await page.textContent('#card-pods .card-label'), 'Pods');
  assert.equal(await page.textContent('#card-gpu .card-label'), 'GPUs');
  assert.equal(await page.textContent('[data-component="replicatedjob"] > .comp .comp-total'), '3 pods · 12 GPUs');
  assert.match(await page.textContent('[data-instance="worker"] .inst-live'), /^\d\/2 pods ready$/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a limit error is one problem, however many engine calls meet it', async () => {
  const page = await open();
  // A status expression past maxSteps: resolving and the status explanation
  // both fail on it (with and without the location in the message).
  let n = await runs(page);
  await page.evaluate(({ d, o }) => window.__playground.setInputs({ definition: d, object: o, pods: '' }), { d: definitionWith(work(2000)), o: BUSY });
  await nextRun(page, n);
  const r = await page.evaluate(() => window.__playground.app.result);
  assert.equal(r.resolveError.limit, 'maxSteps');
  assert.equal((r.explainError ?? r.explanation?.error).limit, 'maxSteps');
  let list = await problems(page);
  assert.equal(list.length, 1, list.join('\n'));
  assert.match(list[0], /too much work .*\[limit maxSteps\]/);
  assert.equal((await page.evaluate(() => window.__playground.diagnostics().definition)).length, 1);
  await page.screenshot({ path: path.join(shots, 'limit-once.png') });

  // Instance ids past maxSteps with pods: resolving, the attribution and the
  // gang groups meet it (some with the component, some without).
  await pickJobSetExample(page);
  n = await runs(page);
  await jobSetWithWork(page, 450);
  await nextRun(page, n);
  const calls = await page.evaluate(() => {
    const x = window.__playground.app.result;
    return [x.resolveError, x.podsApiError, x.gangError].filter((e) => e?.limit === 'maxSteps').length;
  });
  assert.ok(calls >= 2, `${calls} calls failed`);
  list = await problems(page);
  assert.equal(list.length, 1, list.join('\n'));
  assert.match(list[0], /instanceIdPath.*\[limit maxSteps\]/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a long field path wraps inside the error banner, at any width', async () => {
  const page = await open();
  const n = await runs(page);
  await page.evaluate(({ d, o }) => window.__playground.setInputs({ definition: d, object: o, pods: '' }), { d: definitionWith(work(2000)), o: BUSY });
  await nextRun(page, n);
  const field = 'spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.expression';
  assert.ok((await page.textContent('#banner')).includes(field));
  for (const width of [1440, 800, 420]) {
    await page.setViewportSize({ width, height: 900 });
    const m = await page.evaluate(() => {
      const b = document.querySelector('#banner .banner');
      const results = document.getElementById('results');
      const box = b.getBoundingClientRect();
      const outer = results.getBoundingClientRect();
      return {
        banner: [b.scrollWidth, b.clientWidth], results: [results.scrollWidth, results.clientWidth],
        inside: box.left >= outer.left && box.right <= outer.right, page: [document.documentElement.scrollWidth, window.innerWidth],
      };
    });
    assert.ok(m.banner[0] <= m.banner[1], `${width} px: the banner is ${m.banner[0]} px wide inside ${m.banner[1]} px`);
    assert.ok(m.results[0] <= m.results[1], `${width} px: the results scroll sideways (${m.results})`);
    assert.ok(m.inside, `${width} px: the banner leaves the results`);
    assert.ok(m.page[0] <= m.page[1], `${width} px: the page scrolls sideways (${m.page})`);
    if (width === 420) await page.locator('#results').screenshot({ path: path.join(shots, 'banner-wrap-420.png') });
  }
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.screenshot({ path: path.join(shots, 'banner-wrap.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('while the engine works the stale banner gives way to a busy state; a fast run does not flicker', async () => {
  const page = await open();
  await pickJobSetExample(page);
  // A stale error: instance ids that do too much work.
  let n = await runs(page);
  await jobSetWithWork(page, 450);
  await nextRun(page, n);
  assert.match(await page.textContent('#banner'), /too much work/);
  // Work within the limits: about 0.3 s here; the CPU is slowed down 4× so
  // that it stays well past the 150 ms a run may take before it shows busy.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  n = await runs(page);
  await jobSetWithWork(page, 340);
  await page.waitForFunction(() => document.body.dataset.busy === 'true', null, { timeout: 10000 });
  const busy = await page.evaluate(() => ({
    banner: document.getElementById('banner').textContent,
    state: document.getElementById('engine-state').textContent,
    dataState: document.getElementById('engine-state').dataset.state,
    ariaBusy: document.getElementById('results').getAttribute('aria-busy'),
    runs: Number(document.body.dataset.runs),
  }));
  await page.screenshot({ path: path.join(shots, 'busy.png') });
  assert.equal(busy.runs, n, 'the run had ended');
  assert.match(busy.banner, /^Working… /);
  assert.doesNotMatch(busy.banner, /too much work/);
  assert.deepEqual([busy.state, busy.dataState, busy.ariaBusy], ['Working…', 'busy', 'true']);
  // The run ends: its banner (none: it resolves) and the ready state.
  await nextRun(page, n, 20000);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  assert.equal(await page.textContent('#banner'), '');
  assert.equal(await page.textContent('#card-gpu .card-value'), '12');
  assert.equal(await page.evaluate(() => document.body.dataset.busy), 'false');
  assert.equal(await page.getAttribute('#results', 'aria-busy'), 'false');
  assert.match(await page.textContent('#engine-state'), /^Ready · [\d.]+ ms$/);

  // A fast run (a few ms): no busy state, no banner coming and going.
  n = await runs(page);
  await page.evaluate((file) => window.__playground.setInputs({ definition: window.__playground.app.catalog[file] }), JOBSET);
  await nextRun(page, n);
  await page.evaluate(() => {
    const seen = { busy: 0, banner: 0, working: 0 };
    window.__flicker = seen;
    new MutationObserver(() => {
      if (document.body.dataset.busy === 'true') seen.busy++;
    }).observe(document.body, { attributes: true, attributeFilter: ['data-busy'] });
    new MutationObserver(() => seen.banner++).observe(document.getElementById('banner'), { childList: true, subtree: true });
    new MutationObserver(() => {
      if (/Working/.test(document.getElementById('engine-state').textContent)) seen.working++;
    }).observe(document.getElementById('engine-state'), { childList: true, characterData: true, subtree: true });
  });
  n = await runs(page);
  await typeOver(page, 'object', 'replicas: 2', 'replicas: 3');
  await nextRun(page, n);
  await page.waitForFunction(() => document.querySelector('#card-gpu .card-value')?.textContent === '16');
  assert.deepEqual(await page.evaluate(() => window.__flicker), { busy: 0, banner: 0, working: 0 });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the header fits one row at 1440 px and two at 800 px, nothing clipped', async () => {
  const page = await open();
  await pickJobSetExample(page);
  for (const [width, most] of [[1440, 1], [800, 2]]) {
    await page.setViewportSize({ width, height: 900 });
    const m = await page.evaluate(() => {
      const header = document.querySelector('header.topbar');
      const hr = header.getBoundingClientRect();
      const items = [...header.querySelectorAll('.brand, label, select, button, #engine-state')];
      const centers = items.map((e) => {
        const r = e.getBoundingClientRect();
        return r.top + r.height / 2;
      }).sort((a, b) => a - b);
      const rows = centers.filter((c, i) => i === 0 || c - centers[i - 1] > 8).length;
      const outside = items.filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width < 1 || r.left < hr.left || r.right > hr.right || r.top < hr.top || r.bottom > hr.bottom;
      }).map((e) => e.id || e.textContent);
      const clipped = [...header.querySelectorAll('h1, label, button, #engine-state')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.id || e.textContent);
      // A select shows its whole choice: the text fits inside (padding and arrow aside).
      const ctx = document.createElement('canvas').getContext('2d');
      const cut = [...header.querySelectorAll('select')].filter((s) => {
        const cs = getComputedStyle(s);
        ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        return ctx.measureText(s.selectedOptions[0].text).width + 40 > s.clientWidth;
      }).map((s) => `${s.id}: ${s.selectedOptions[0].text} in ${s.clientWidth} px`);
      return { rows, height: hr.height, outside, clipped, cut, overflow: [header.scrollWidth, header.clientWidth] };
    });
    assert.ok(m.rows <= most, `${width} px: ${m.rows} rows`);
    assert.deepEqual({ outside: m.outside, clipped: m.clipped, cut: m.cut }, { outside: [], clipped: [], cut: [] }, `${width} px`);
    assert.ok(m.overflow[0] <= m.overflow[1], `${width} px: the header overflows (${m.overflow})`);
    assert.ok(m.height <= 20 + 40 * most, `${width} px: the header is ${m.height} px high`);
    await page.screenshot({ path: path.join(shots, `header-${width}.png`) });
  }
  assert.deepEqual(page.errors, []);
  await page.close();
});

// ---------------------------------------------------------------- issue 34: why

const JOB = 'batch-job-v1.yaml';
const BIG_JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: big, namespace: ml, uid: j-1, generation: 1}
spec:
  parallelism: 1
  completions: 1
  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: "16"}}}]}}
status: {active: 1, ready: 0}
`;
const SCHEDULER = '0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling.';
/** A pending pod of Job big the scheduler cannot place (after `first`, another pod of it that runs). */
const PENDING_PODS = `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: big-x7k2p
    namespace: ml
    uid: p-1
    labels: {batch.kubernetes.io/job-name: big}
    ownerReferences: [{apiVersion: batch/v1, kind: Job, name: big, uid: j-1, controller: true}]
  spec: {containers: [{name: c, image: i, resources: {limits: {nvidia.com/gpu: "16"}}}]}
  status:
    phase: Pending
    conditions:
    - type: PodScheduled
      status: "False"
      reason: Unschedulable
      lastTransitionTime: "2026-12-05T10:00:01Z"
      message: "${SCHEDULER}"
`;
const FAILED_SCHEDULING = `apiVersion: v1
kind: EventList
items:
- metadata: {name: big-x7k2p.1, namespace: ml}
  involvedObject: {kind: Pod, name: big-x7k2p, namespace: ml, uid: p-1}
  reason: FailedScheduling
  type: Warning
  reportingComponent: default-scheduler
  eventTime: "2026-12-05T10:05:01.000001Z"
  series: {count: 3, lastObservedTime: "2026-12-05T10:15:01.000001Z"}
  message: "${SCHEDULER}"
`;

/** The findings shown: code, message, action and evidence, in order. */
const findings = (page) => page.$$eval('#why .finding', (els) => els.map((e) => ({
  code: e.dataset.code,
  severity: e.querySelector('.badge').textContent,
  message: e.querySelector('.finding-message').textContent,
  action: e.querySelector('.finding-action')?.textContent ?? null,
  evidence: [...e.querySelectorAll('.ev')].map((x) => ({
    object: x.querySelector('.ev-object').textContent,
    field: x.querySelector('.ev-field').textContent,
    time: x.querySelector('.ev-time')?.textContent ?? null,
    text: x.querySelector('.ev-text')?.textContent ?? null,
  })),
})));

async function pickJob(page) {
  const n = await runs(page);
  await page.selectOption('#pick-def', JOB);
  await nextRun(page, n);
}

async function setInputs(page, s) {
  const n = await runs(page);
  await page.evaluate((x) => window.__playground.setInputs(x), s);
  await nextRun(page, n);
}

test('why: a pod the scheduler cannot place is the answer, in its words; events add their evidence', async () => {
  const page = await open();
  await pickJob(page);
  await setInputs(page, { object: BIG_JOB, pods: PENDING_PODS, events: '', related: '' });
  const [first, ...rest] = await findings(page);
  assert.equal(first.code, 'unschedulable');
  assert.equal(first.severity, 'blocking');
  assert.equal(first.message, `the scheduler cannot place pod big-x7k2p: ${SCHEDULER}`);
  assert.match(first.action, /^To do: no node has enough free GPUs/);
  assert.deepEqual(first.evidence, [{
    object: 'Pod/big-x7k2p', field: 'status.conditions[PodScheduled]', time: '2026-12-05T10:00:01Z',
    text: `PodScheduled=False Unschedulable: ${SCHEDULER}`,
  }]);
  // The page shows what the engine gave, in its order.
  const r = await page.evaluate(() => window.__playground.app.result.diagnosis);
  assert.deepEqual([first, ...rest].map((f) => f.code), r.findings.map((f) => f.code));
  // The first finding is the answer: shown larger than the others.
  const size = await page.$eval('#why .finding:first-child .finding-message', (e) => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(size > 14, `${size} px`);

  // The scheduler's FailedScheduling event, pasted into Events: more evidence.
  await setInputs(page, { events: FAILED_SCHEDULING });
  const [withEvent] = await findings(page);
  assert.equal(withEvent.code, 'unschedulable');
  assert.deepEqual(withEvent.evidence.map((e) => e.field), ['status.conditions[PodScheduled]', 'event FailedScheduling']);
  assert.deepEqual(withEvent.evidence[1], {
    object: 'Pod/big-x7k2p', field: 'event FailedScheduling', time: '2026-12-05T10:15:01.000001Z', text: `${SCHEDULER} (x3)`,
  });
  assert.equal(await page.isVisible('#ed-events'), true);
  await page.setViewportSize({ width: 1440, height: 1000 });
  await page.screenshot({ path: path.join(shots, 'why.png') });
  await page.locator('#why').screenshot({ path: path.join(shots, 'why-panel.png') });
  await page.setViewportSize({ width: 1440, height: 900 });

  // The evidence's pod is a link to it in the Pods editor.
  const cursor = (editor) => page.evaluate((e) => {
    const v = window.__playground.editors[e];
    return { line: v.state.doc.lineAt(v.state.selection.main.head).number, focused: v.hasFocus };
  }, editor);
  await page.evaluate(() => window.__playground.editors.pods.dispatch({ selection: { anchor: 0 } }));
  await page.locator('#why .finding:first-child button.ev-object').first().click();
  const podLine = PENDING_PODS.split('\n').findIndex((l) => l === '- apiVersion: v1') + 1;
  assert.deepEqual(await cursor('pods'), { line: podLine, focused: true });

  // A crash-looping container and the kubelet's BackOff event.
  const crashing = PENDING_PODS.replace(/  status:\n[^]*$/, `  status:
    phase: Running
    conditions: [{type: PodScheduled, status: "True"}, {type: Ready, status: "False"}]
    containerStatuses:
    - name: c
      image: i
      ready: false
      restartCount: 3
      state: {waiting: {reason: CrashLoopBackOff, message: "back-off 40s restarting failed container=c"}}
      lastState: {terminated: {reason: OOMKilled, exitCode: 137, finishedAt: "2026-12-05T10:01:00Z"}}
`);
  await setInputs(page, { pods: crashing, events: '' });
  let [crash] = await findings(page);
  assert.equal(crash.code, 'crash-loop');
  assert.equal(crash.message, 'container c of pod big-x7k2p crash-loops: last exit OOMKilled, exit code 137');
  assert.deepEqual(crash.evidence.map((e) => e.field), ['status.containerStatuses[c].lastState.terminated']);
  const backOff = FAILED_SCHEDULING.replace('reason: FailedScheduling', 'reason: BackOff').replace(`message: "${SCHEDULER}"`, 'message: Back-off restarting failed container c');
  await setInputs(page, { events: backOff });
  [crash] = await findings(page);
  assert.deepEqual(crash.evidence.map((e) => e.field), ['status.containerStatuses[c].lastState.terminated', 'event BackOff']);
  assert.equal(crash.evidence[1].text, 'Back-off restarting failed container c (x3)');
  assert.deepEqual(await page.evaluate(() => window.__playground.diagnostics()), { definition: [], object: [], pods: [], events: [], related: [] });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('why: events the engine cannot read are a problem at their place in the Events editor', async () => {
  const page = await open();
  await pickJob(page);
  await setInputs(page, { object: BIG_JOB, pods: PENDING_PODS, events: FAILED_SCHEDULING });
  assert.equal((await findings(page))[0].code, 'unschedulable');
  // A flow sequence left open on line 5.
  const broken = FAILED_SCHEDULING.replace('involvedObject: {kind: Pod,', 'involvedObject: [kind: Pod,');
  await setInputs(page, { events: broken });
  const { events } = await page.evaluate(() => window.__playground.diagnostics());
  assert.equal(events.length, 1, JSON.stringify(events));
  assert.equal(events[0].severity, 'error');
  assert.equal(events[0].source, 'parse');
  const r = await page.evaluate(() => window.__playground.app.result.eventsError);
  assert.equal(events[0].line, r.location.line);
  assert.ok(r.location.line >= 5, JSON.stringify(r.location));
  const entry = page.locator('#problems .problem-link', { hasText: 'Events' });
  assert.match(await entry.textContent(), new RegExp(`Events ${r.location.line}:${r.location.column}`));
  // No diagnosis from half the inputs: it says why.
  assert.equal(await page.locator('#why .finding').count(), 0);
  assert.match(await page.textContent('#why'), /No diagnosis: the events cannot be read/);
  // The problem link opens the folded pane and moves the cursor there.
  await page.evaluate(() => { document.getElementById('events-pane').open = false; });
  await entry.click();
  assert.equal(await page.evaluate(() => document.getElementById('events-pane').open), true);
  assert.equal(await page.evaluate(() => {
    const v = window.__playground.editors.events;
    return v.state.doc.lineAt(v.state.selection.main.head).number;
  }), r.location.line);
  // ... and scrolled to it, though the pane had no layout when folded.
  await page.waitForFunction(() => {
    const v = window.__playground.editors.events;
    const at = v.coordsAtPos(v.state.selection.main.head);
    const box = v.scrollDOM.getBoundingClientRect();
    return at && at.top >= box.top && at.bottom <= box.bottom;
  }, null, { timeout: 2000 });
  await page.screenshot({ path: path.join(shots, 'why-events-error.png') });

  // A List without items: the engine's reader of object lists rejects it.
  await setInputs(page, { events: 'apiVersion: v1\nkind: List\nmetadata: {}\n' });
  const [listError] = (await page.evaluate(() => window.__playground.diagnostics())).events;
  assert.ok(listError, 'a problem in the Events editor');
  assert.match(listError.message, /items/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('why: the examples of examples/diagnose fill the Events and Related editors', async () => {
  const page = await open();
  await pickJob(page);
  const label = await page.$eval('#pick-fix option[value="diagnose/quota-job"]', (o) => o.textContent);
  assert.equal(label, 'diagnose/quota-job (+ events)');
  let n = await runs(page);
  await page.selectOption('#pick-fix', 'diagnose/quota-job');
  await nextRun(page, n);
  let s = await page.evaluate(() => window.__playground.inputs());
  assert.equal(s.events, readFileSync(path.join(root, 'examples', 'diagnose', 'quota-events.yaml'), 'utf8'));
  assert.equal(s.pods, '');
  assert.equal(await page.evaluate(() => document.getElementById('events-pane').open), true);
  let [first] = await findings(page);
  assert.equal(first.code, 'create-failed');
  assert.match(first.message, /^Job\/finetune cannot create pods: exceeded quota: gpu-quota/);
  assert.deepEqual(first.evidence.map((e) => [e.object, e.field, e.time]), [['Job/finetune', 'event FailedCreate', '2026-12-05T10:04:10Z']]);

  // Kueue's Workload goes to Related: not admitted, then suspended.
  n = await runs(page);
  await page.selectOption('#pick-fix', 'diagnose/queued-job');
  await nextRun(page, n);
  s = await page.evaluate(() => window.__playground.inputs());
  assert.equal(s.related, readFileSync(path.join(root, 'examples', 'diagnose', 'queued-workload.yaml'), 'utf8'));
  assert.equal(s.events, '');
  assert.deepEqual((await findings(page)).map((f) => f.code), ['not-admitted', 'suspended']);
  await page.screenshot({ path: path.join(shots, 'why-kueue.png') });

  // Gated pods come with their pods.
  n = await runs(page);
  await page.selectOption('#pick-fix', 'diagnose/gated-job');
  await nextRun(page, n);
  [first] = await findings(page);
  assert.equal(first.code, 'scheduling-gated');

  // The fixture's events belong to its workload: renaming it clears them.
  n = await runs(page);
  await page.selectOption('#pick-fix', 'diagnose/quota-job');
  await nextRun(page, n);
  await typeOver(page, 'object', 'name: finetune', 'name: finetune-2');
  await page.waitForFunction(() => window.__playground.inputs().events === '');
  await page.click('#tab-pods');
  assert.match(await page.textContent('#pods-cleared'), /The events of Job ml\/finetune were cleared: they are not Job ml\/finetune-2's events\./);

  // A workload that is fine: a short line, not a list.
  n = await runs(page);
  await page.selectOption('#pick-fix', 'running');
  await nextRun(page, n);
  await page.waitForFunction(() => document.querySelector('#why-none') !== null);
  assert.equal(await page.locator('#why .finding').count(), 0);
  assert.match(await page.textContent('#why-none'), /^Why: nothing found/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('why: a link and the exported case keep the events; the diagnose case passes', async () => {
  const page = await open();
  await pickJob(page);
  await setInputs(page, { object: BIG_JOB, pods: PENDING_PODS, events: FAILED_SCHEDULING, related: '' });
  assert.equal((await findings(page))[0].evidence.length, 2);
  await page.waitForTimeout(800); // the URL is written debounced
  const inputs = await page.evaluate(() => window.__playground.inputs());
  const other = await open(page.url());
  await other.waitForFunction(() => document.querySelectorAll('#why .finding .ev').length >= 2);
  assert.deepEqual(await other.evaluate(() => window.__playground.inputs()), inputs);
  assert.deepEqual(await findings(other), await findings(page));
  assert.equal(await other.evaluate(() => document.getElementById('events-pane').open), true);

  const wl = await import(pathToFileURL(path.join(root, 'bindings-node', 'browser.mjs')).href);
  await wl.init();
  const [group] = wl.parse(await other.evaluate(() => window.__playground.exportText()));
  const why = group.cases.find((c) => c.op === 'diagnose');
  assert.ok(why, group.cases.map((c) => c.op).join(', '));
  assert.deepEqual(why.events, wl.parse(FAILED_SCHEDULING)[0]);
  assert.equal(why.pods.items.length, 1);
  assert.equal(why.expect.result.findings[0].code, 'unschedulable');
  assert.equal(why.expect.result.findings[0].evidence[1].field, 'event FailedScheduling');
  const { runCase, compare } = await import(pathToFileURL(path.join(root, 'bindings-node', 'testing', 'conformance-runner.mjs')).href);
  for (const c of group.cases) assert.equal(compare(c.expect, runCase(wl, c, group)), null, c.name);
  for (const p of [page, other]) {
    assert.deepEqual(p.errors, []);
    await p.close();
  }
});
