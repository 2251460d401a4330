// Builds the playground into playground/dist (see build.sh): the app and the
// engine worker bundled by esbuild, the WASM module copied beside them, and the
// catalog's fixtures and the repository's examples bundled into fixtures.json
// (so the page works offline, from any static file server).
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const dist = path.join(here, 'dist');
const wasmDir = path.join(root, 'bindings-node', 'wasm');

const wl = await import(pathToFileURL(path.join(root, 'bindings-node', 'browser.mjs')).href);
await wl.init();

fs.rmSync(dist, { recursive: true, force: true });
fs.mkdirSync(path.join(dist, 'wasm'), { recursive: true });

// fixtures.json: definition file name -> [{name, description?, file, object, pods?, events?, related?}]
const read = (p) => fs.readFileSync(p, 'utf8');
const fixtures = {};
const catalog = wl.catalogSources();
const add = (defFile, entry) => (fixtures[defFile] ??= []).push(entry);

for (const file of fs.readdirSync(path.join(root, 'examples')).sort()) {
  if (!file.endsWith('.yaml') || file.endsWith('-pods.yaml')) continue;
  const text = read(path.join(root, 'examples', file));
  const [obj] = wl.parse(text);
  const def = wl.lookup(obj.apiVersion, obj.kind);
  if (!def) continue;
  const podsFile = file.replace(/\.yaml$/, '-pods.yaml');
  const pods = fs.existsSync(path.join(root, 'examples', podsFile)) ? read(path.join(root, 'examples', podsFile)) : undefined;
  add(`${def.name}.yaml`, { name: 'example', description: `examples/${file}`, file: `examples/${file}`, object: text, pods });
}

// examples/diagnose/ (docs/diagnosis.md): one case per name prefix, up to
// the last `-` (`queued-` of queued-job.yaml and queued-workload.yaml). The
// file whose object a catalog definition covers is the workload (the
// fixture `diagnose/queued-job`); the other files of the case fill the
// other editors by their names: `<case>-pods.yaml` the Pods,
// `<case>-events.yaml` the Events, any other the Related editor
// (queued-workload.yaml: Kueue's Workload for queued-job.yaml).
const whyDir = path.join(root, 'examples', 'diagnose');
const whyCases = {};
for (const file of fs.existsSync(whyDir) ? fs.readdirSync(whyDir).sort() : []) {
  if (!file.endsWith('.yaml')) continue;
  const stem = file.replace(/\.yaml$/, '');
  (whyCases[stem.includes('-') ? stem.slice(0, stem.lastIndexOf('-')) : stem] ??= []).push(file);
}
for (const [name, files] of Object.entries(whyCases)) {
  const text = Object.fromEntries(files.map((f) => [f, read(path.join(whyDir, f))]));
  const covered = files.filter((f) => !/-(pods|events)\.yaml$/.test(f)).map((f) => {
    const [obj] = wl.parse(text[f]);
    return { f, def: obj && wl.lookup(obj.apiVersion, obj.kind) };
  }).filter((x) => x.def);
  if (covered.length !== 1) {
    console.warn(`warning: examples/diagnose/${name}-*: ${covered.length} workloads a catalog definition covers (expected one); left out`);
    continue;
  }
  const [{ f: main, def }] = covered;
  // Several files for one editor: one text of their documents.
  const join = (list) => list.map((f) => text[f].replace(/\n?$/, '\n')).join('---\n') || undefined;
  const of = (suffix) => join(files.filter((f) => f.endsWith(suffix)));
  const rest = files.filter((f) => f !== main && !/-(pods|events)\.yaml$/.test(f));
  // The file's leading comment says what the case is.
  const comment = text[main].match(/^(#.*\n)+/)?.[0].replace(/^# ?/gm, '').replace(/\s+/g, ' ').trim();
  add(`${def.name}.yaml`, {
    name: `diagnose/${main.replace(/\.yaml$/, '')}`,
    description: comment || `examples/diagnose/${main}`,
    file: `examples/diagnose/${main}`,
    object: text[main],
    pods: of('-pods.yaml'),
    events: of('-events.yaml'),
    related: join(rest),
  });
}

const fixDir = path.join(root, 'definitions', 'fixtures');
for (const slug of fs.readdirSync(fixDir).sort()) {
  const dir = path.join(fixDir, slug);
  let expect = {};
  if (fs.existsSync(path.join(dir, 'expect.yaml'))) expect = wl.parse(read(path.join(dir, 'expect.yaml')))[0]?.fixtures ?? {};
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.yaml') || /\.(pods|events)\.yaml$/.test(file) || file === 'expect.yaml') continue;
    const state = file.replace(/\.yaml$/, '');
    const podsPath = path.join(dir, `${state}.pods.yaml`);
    const eventsPath = path.join(dir, `${state}.events.yaml`);
    add(`${slug}.yaml`, {
      name: state,
      description: expect[state]?.description,
      file: `definitions/fixtures/${slug}/${file}`,
      object: read(path.join(dir, file)),
      pods: fs.existsSync(podsPath) ? read(podsPath) : undefined,
      events: fs.existsSync(eventsPath) ? read(eventsPath) : undefined,
    });
  }
}
for (const k of Object.keys(fixtures)) {
  if (!(k in catalog)) console.warn(`warning: fixtures for ${k}, which is not in the catalog`);
}
fs.writeFileSync(path.join(dist, 'fixtures.json'), JSON.stringify({ version: wl.version, fixtures }));

await esbuild.build({
  entryPoints: { app: path.join(here, 'src', 'main.js'), worker: path.join(here, 'src', 'worker.js') },
  outdir: dist,
  bundle: true,
  format: 'esm',
  minify: true,
  target: ['chrome110', 'firefox115', 'safari16'],
  external: ['node:*'],
  legalComments: 'linked',
  logLevel: 'error',
});
for (const f of ['index.html', 'style.css', 'favicon.svg']) fs.copyFileSync(path.join(here, 'src', f), path.join(dist, f));
for (const f of ['workload_lens_wasm.js', 'workload_lens_wasm_bg.wasm']) fs.copyFileSync(path.join(wasmDir, f), path.join(dist, 'wasm', f));

const size = (f) => fs.statSync(path.join(dist, f)).size;
console.log(`   dist: app.js ${size('app.js')} B, worker.js ${size('worker.js')} B, wasm ${size('wasm/workload_lens_wasm_bg.wasm')} B, fixtures.json ${size('fixtures.json')} B`);
