// The WASM build through the same API (browser.mjs, here in Node via the
// ./wasm subpath): init, results identical to the native build, errors of
// the same classes, and a real trap turned into code 'internal' with the
// module re-instantiated (definitions made before keep working). Skipped
// when bindings-node/wasm/ is not built (bindings-wasm/build.sh).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as native from 'workload-lens';
import { JOBSET_TEXT, PKG, PODS_TEXT, TRAINER, TRAINER_TEXT } from '../testing/fixtures.mjs';

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
  // Error classes are shared by both builds.
  assert.throws(() => wl.parse('a: ['), native.ParseError);
  assert.equal(wl.WorkloadLensError, native.WorkloadLensError);

  // An allocation beyond a wasm32 memory, allowed by raised limits: a trap.
  const trap = (() => {
    try {
      wl.evaluate('"xxxxxxxxxxxxxxxx" * 250000000 | length', null,
        { maxStringBytes: 4e9, maxOutputBytes: 4e9, maxSteps: 4e9 });
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
