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

// fixtures.json: definition file name -> [{name, description?, file, object, pods?}]
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

const fixDir = path.join(root, 'definitions', 'fixtures');
for (const slug of fs.readdirSync(fixDir).sort()) {
  const dir = path.join(fixDir, slug);
  let expect = {};
  if (fs.existsSync(path.join(dir, 'expect.yaml'))) expect = wl.parse(read(path.join(dir, 'expect.yaml')))[0]?.fixtures ?? {};
  for (const file of fs.readdirSync(dir).sort()) {
    if (!file.endsWith('.yaml') || file.endsWith('.pods.yaml') || file === 'expect.yaml') continue;
    const state = file.replace(/\.yaml$/, '');
    const podsPath = path.join(dir, `${state}.pods.yaml`);
    add(`${slug}.yaml`, {
      name: state,
      description: expect[state]?.description,
      file: `definitions/fixtures/${slug}/${file}`,
      object: read(path.join(dir, file)),
      pods: fs.existsSync(podsPath) ? read(podsPath) : undefined,
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
