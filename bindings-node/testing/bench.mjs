// Per-call cost of the JS API, native vs WASM (a measurement, not a test):
//   node testing/bench.mjs
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as native from 'workload-lens';
import { JOBSET_TEXT, PKG, PODS_TEXT } from './fixtures.mjs';

const builds = [['native', native]];
if (existsSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm'))) {
  const wasm = await import('workload-lens/wasm');
  await wasm.init(readFileSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm')));
  builds.push(['wasm', wasm]);
}

function time(f, ms = 1500) {
  for (let i = 0; i < 50; i += 1) f();
  let n = 0;
  const t0 = process.hrtime.bigint();
  let t = t0;
  while (t - t0 < BigInt(ms) * 1000000n) {
    for (let i = 0; i < 20; i += 1) f();
    n += 20;
    t = process.hrtime.bigint();
  }
  return Number(t - t0) / n / 1000; // microseconds per call
}

const jobset = native.parse(JOBSET_TEXT)[0];
const pods = native.parse(PODS_TEXT)[0].items;
for (const [name, wl] of builds) {
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  const rows = [
    ['evaluate(".", null) (call overhead)', () => wl.evaluate('.', null)],
    ['defaultLimits()', () => wl.defaultLimits()],
    ['def.resolve(jobset object)', () => def.resolve(jobset)],
    ['def.resolve(jobset YAML text)', () => def.resolve(JOBSET_TEXT)],
    ['resolve(jobset object) (catalog by GVK)', () => wl.resolve(jobset)],
    ['def.resolve(jobset, pods)', () => def.resolve(jobset, pods)],
    ['def.status(jobset)', () => def.status(jobset)],
  ];
  for (const [label, f] of rows) console.log(`${name.padEnd(6)} ${label.padEnd(42)} ${time(f).toFixed(1).padStart(8)} µs`);
}
