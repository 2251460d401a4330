// The WASM build through the same API (browser.mjs, here in Node via the
// ./wasm subpath): init, results identical to the native build, errors of
// the same classes, and a real trap turned into code 'internal' with the
// module re-instantiated (definitions made before keep working). Skipped
// when bindings-node/wasm/ is not built (bindings-wasm/build.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import * as native from 'workload-lens';
import { JOBSET_TEXT, PKG, PODS_TEXT, TRAINER, TRAINER_TEXT, read } from '../testing/fixtures.mjs';

const BUILT = existsSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm'));
const skip = !BUILT && 'wasm/ is not built (bindings-wasm/build.sh)';

test('the WASM build: init, same results and errors as native, recovery from a trap', { skip }, async () => {
  const wl = await import('workload-lens/wasm');
  assert.equal(wl.backend, 'wasm');
  assert.throws(() => wl.evaluate('1'), (e) => e instanceof wl.UsageError && /init\(\)/.test(e.message));
  await wl.init(readFileSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm')));
  await wl.init(); // again: nothing to do
  assert.equal(wl.version, native.version);
  assert.deepEqual(wl.resolve(JOBSET_TEXT, { pods: PODS_TEXT }), native.resolve(JOBSET_TEXT, { pods: PODS_TEXT }));
  assert.deepEqual(wl.defaultLimits(), native.defaultLimits());
  const d = wl.compile(TRAINER_TEXT);
  assert.deepEqual(d.resolve(TRAINER), native.compile(TRAINER_TEXT).resolve(TRAINER));
  const c = new wl.Catalog({ definitions: [d] });
  // Error classes are shared by both builds, and are the engine's codes.
  assert.throws(() => wl.parse('a: ['), native.ParseError);
  assert.equal(wl.WorkloadLensError, native.WorkloadLensError);
  const glue = await import('../wasm/workload_lens_wasm.js'); // the raw exports (browser.mjs's instance)
  const codes = JSON.parse(glue.errorCodes());
  assert.deepEqual(codes, JSON.parse(createRequire(import.meta.url)('../native.cjs').errorCodes()));
  for (const { code, class: name } of codes) assert.equal(wl[name].code, code);
  // Pods as a PodList and as a top-level array; gang groups without instructions.
  const pods = native.parse(PODS_TEXT)[0];
  const podList = { apiVersion: 'v1', kind: 'PodList', items: pods.items };
  assert.deepEqual(wl.resolve(JOBSET_TEXT, { pods: podList }), native.resolve(JOBSET_TEXT, { pods: pods.items }));
  assert.deepEqual(wl.resolve(JOBSET_TEXT, { pods: JSON.stringify(pods.items) }), native.resolve(JOBSET_TEXT, { pods: podList }));
  assert.deepEqual(wl.lookup('apps/v1', 'Deployment').gangGroups(read('definitions', 'fixtures', 'apps-deployment-v1', 'running.yaml'),
    read('definitions', 'fixtures', 'apps-deployment-v1', 'running.pods.yaml')), { groups: [], pods: [] });
  assert.deepEqual(new wl.Catalog({ limits: { maxSteps: 5000 } }).limits, native.limits({ maxSteps: 5000 }));

  // An allocation beyond a wasm32 memory, allowed by raised limits: a trap.
  const trap = (() => {
    try {
      wl.evaluate('"xxxxxxxxxxxxxxxx" * 250000000 | length', null,
        { maxStringBytes: 4e9, maxOutputBytes: 4e9, maxSteps: 4e9, maxMemoryBytes: 4294967295 });
    } catch (e) {
      return e;
    }
    return null;
  })();
  assert.ok(trap instanceof wl.WorkloadLensError, String(trap));
  assert.equal(trap.code, 'internal');
  await wl.init();
  assert.equal(wl.resolve(JOBSET_TEXT).totals.resources.gpu, 12);
  // Made before the trap, rebuilt on their next use.
  assert.equal(d.resolve(TRAINER).totals.resources.gpu, 16);
  assert.equal(c.resolve(TRAINER).totals.resources.gpu, 16);
  assert.equal(c.lookup('example.com/v1', 'Trainer').name, 'example-com-trainer-v1');
});

test('amounts for people: the addon and the WASM build write them alike (the CLI\'s rule)', { skip }, async () => {
  const wl = await import('workload-lens/wasm');
  await wl.init(readFileSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm')));
  const h = native.humanAmounts({ cpuMillis: 26500, memoryBytes: 2e9 });
  assert.deepEqual(h, { millicores: { 26500: '26.5' }, bytes: { 2000000000: '1.9Gi' } });
  // Generated amounts, both builds: bytes up to 2^53 and every small count;
  // what is not a count (negative, a fraction) is not an amount.
  let x = 0x2545f491;
  const values = [0, 1, 1023, 1024, 1536, 2 ** 53, -1, 1.5];
  for (let i = 0; i < 5000; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    values.push(Math.floor((x / 2147483648) * 2 ** (x % 53)));
  }
  const results = values.map((v) => ({ resources: { cpuMillis: v, memoryBytes: v, ephemeralStorageBytes: v } }));
  const all = native.humanAmounts(results);
  assert.deepEqual(wl.humanAmounts(results), all);
  assert.equal(all.millicores['-1'], undefined);
  assert.equal(all.bytes['1.5'], undefined);
  assert.equal(all.bytes[String(2 ** 53)], '8Pi');
});
