// One hostile case (or those whose name contains the argument) in the
// native addon and the WASM build, timed: for profiling a case
// (`node --cpu-prof bench/hostile-case.mjs NAME wasm`).
//   node --expose-gc bench/hostile-case.mjs FILTER [native|wasm]
// (with --expose-gc, garbage is collected before each timed call)
import { readFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'bindings-node');
const [filter = '', only] = process.argv.slice(2);
const builds = [];
if (only !== 'wasm') builds.push(['native', await import(join(pkg, 'index.mjs'))]);
const wasmFile = join(pkg, 'wasm', 'workload_lens_wasm_bg.wasm');
if (only !== 'native' && existsSync(wasmFile)) {
  const wasm = await import(join(pkg, 'browser.mjs'));
  await wasm.init(readFileSync(wasmFile));
  builds.push(['wasm', wasm]);
}
const { expandCase, runExpanded, compare } = await import(join(pkg, 'testing', 'conformance-runner.mjs'));
const suite = JSON.parse(readFileSync(join(root, 'conformance', 'suite.json'), 'utf8'));
const group = suite.groups.find((g) => g.group === 'hostile');
for (const raw of group.cases.filter((c) => c.name.includes(filter))) {
  const c = expandCase(raw, group);
  for (const [name, wl] of builds) {
    globalThis.gc?.(); // the garbage of generating the input is not the case's
    const t0 = process.hrtime.bigint();
    const actual = runExpanded(wl, c, group);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const d = compare(raw.expect, actual);
    console.log(`${c.name}\t${name}\t${ms.toFixed(1)} ms${d ? `\tUNEXPECTED ${String(d).slice(0, 100)}` : ''}`);
  }
}
