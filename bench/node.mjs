// Node benchmarks for docs/performance.md and docs/reliability.md (a
// measurement, not a test):
//   WORKLOADS_DIR=target/bench-workloads cargo bench -p workload-lens --bench report
//   node --expose-gc bench/node.mjs   (needs bindings-node built: bindings-node/test.sh;
//                                    with --expose-gc, garbage is collected
//                                    before each timed hostile case)
// 1. Per call, on the benchmark workloads: JSON.parse of the object's text
//    (the in-process baseline), then Definition.resolve(object) with the
//    native addon and with the WASM build in Node, as ratios.
// 2. The hostile conformance group, per case, in both builds (time and
//    whether the outcome is the expected one).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'bindings-node');
const native = await import(join(pkg, 'index.mjs'));
const builds = [['native', native]];
const wasmFile = join(pkg, 'wasm', 'workload_lens_wasm_bg.wasm');
if (existsSync(wasmFile)) {
  const wasm = await import(join(pkg, 'browser.mjs'));
  await wasm.init(readFileSync(wasmFile));
  builds.push(['wasm-node', wasm]);
}
const { expandCase, runExpanded, compare } = await import(join(pkg, 'testing', 'conformance-runner.mjs'));

function time(f, ms = 800) {
  for (let i = 0; i < 3; i += 1) f();
  let n = 0;
  const t0 = process.hrtime.bigint();
  let t = t0;
  while (t - t0 < BigInt(ms) * 1000000n || n < 3) {
    f();
    n += 1;
    t = process.hrtime.bigint();
  }
  return Number(t - t0) / n / 1000; // µs per call
}

const wdir = join(root, 'target', 'bench-workloads');
if (existsSync(wdir)) {
  console.log('### Node: per call\n');
  console.log(`| workload | JSON.parse (µs) | ${builds.map(([b]) => `${b} resolve (µs) | ${b} / JSON.parse`).join(' | ')} |`);
  console.log(`|---|---:|${builds.map(() => '---:|---:').join('|')}|`);
  for (const f of readdirSync(wdir).filter((x) => x.endsWith('.json')).sort()) {
    const text = readFileSync(join(wdir, f), 'utf8');
    const obj = JSON.parse(text);
    const tParse = time(() => JSON.parse(text));
    const cells = [];
    for (const [, wl] of builds) {
      const def = wl.lookup(obj.apiVersion, obj.kind);
      const t = time(() => def.resolve(obj));
      cells.push(`${t.toFixed(1)} | ${(t / tParse).toFixed(1)}`);
    }
    console.log(`| ${f.replace('.json', '')} | ${tParse.toFixed(1)} | ${cells.join(' | ')} |`);
  }
}

const suite = JSON.parse(readFileSync(join(root, 'conformance', 'suite.json'), 'utf8'));
const group = suite.groups.find((g) => g.group === 'hostile');
console.log(`\n### Hostile group, per case (ms)\n`);
console.log(`| case | ${builds.map(([b]) => b).join(' | ')} |`);
console.log(`|---|${builds.map(() => '---:').join('|')}|`);
const totals = builds.map(() => ({ worst: 0, total: 0, bad: 0 }));
for (const raw of group.cases) {
  const c = expandCase(raw, group); // generators expanded before the clock starts
  const cells = builds.map(([name, wl], i) => {
    globalThis.gc?.(); // the garbage of generating the input is not the case's
    const t0 = process.hrtime.bigint();
    let ms;
    let mark = '';
    try {
      const actual = runExpanded(wl, c, group);
      ms = Number(process.hrtime.bigint() - t0) / 1e6;
      // compare expands a generated expectation: not timed.
      const d = compare(raw.expect, actual);
      if (d) {
        mark = ' (UNEXPECTED)';
        totals[i].bad += 1;
      }
    } catch (e) {
      ms ??= Number(process.hrtime.bigint() - t0) / 1e6;
      mark = ` (THREW ${String(e).slice(0, 40)})`;
      totals[i].bad += 1;
    }
    totals[i].worst = Math.max(totals[i].worst, ms);
    totals[i].total += ms;
    return `${ms.toFixed(1)}${mark}`;
  });
  console.log(`| ${c.name} | ${cells.join(' | ')} |`);
}
for (const [i, [name]] of builds.entries()) {
  const { worst, total, bad } = totals[i];
  console.log(`\n${name}: ${group.cases.length} cases, ${bad} not as expected, slowest ${worst.toFixed(0)} ms, total ${total.toFixed(0)} ms`);
}
console.log(`max RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
