// The WASM tests in Node (runtime `wasm-node`): the public API is the
// `workload-lens` package's browser build (bindings-node/browser.mjs over
// bindings-node/wasm/, the `--target web` module as browsers and bundlers get
// it), loaded with its own init(). Runs tests/all.mjs and writes
// target/conformance/wasm-node.json. Exit code 1 on any failure.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as wl from '../../bindings-node/browser.mjs';
import { runAll, report } from './all.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PKG = join(ROOT, 'bindings-node', 'wasm');
const RUNTIME = 'wasm-node';

await wl.init();

// A separate instance for the raw checks: a fresh copy of the glue module.
const module = new WebAssembly.Module(readFileSync(join(PKG, 'workload_lens_wasm_bg.wasm')));
let copies = 0;
let current = null;
async function getRaw(fresh = false) {
  if (current && !fresh) return current;
  const glue = await import(pathToFileURL(join(PKG, 'workload_lens_wasm.js')).href + `?raw=${copies++}`);
  glue.initSync({ module });
  current = glue;
  return glue;
}

const suite = JSON.parse(readFileSync(process.env.WORKLOAD_LENS_SUITE ?? join(ROOT, 'conformance', 'suite.json'), 'utf8'));
const r = await runAll(wl, getRaw, suite, RUNTIME);
const out = join(ROOT, 'target', 'conformance', `${RUNTIME}.json`);
mkdirSync(dirname(out), { recursive: true });
const sorted = Object.fromEntries(Object.entries(r.conformance.results).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(out, JSON.stringify(sorted, null, 2) + '\n');
const { lines, failed } = report(RUNTIME, r);
console.log(lines.join('\n'));
process.exit(failed ? 1 : 0);
