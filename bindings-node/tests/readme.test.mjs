// Every ```js and ```cjs block of bindings-node/README.md runs (from the
// repository root, importing the package by its name), and each
// `console.log(...); // expected` prints what its comment says. The live
// examples (importing workload-lens/kube) need a server: tests/kube.test.mjs
// runs them against the live scenario.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { PKG } from '../testing/fixtures.mjs';
import { BLOCKS, isLive, runExample } from '../testing/readme.mjs';

const WASM_BUILT = existsSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm'));

test('the README has examples', () => {
  assert.ok(BLOCKS.length >= 8, `found ${BLOCKS.length} blocks`);
  assert.ok(BLOCKS.some((b) => isLive(b.code)), 'the live-cluster example');
});

BLOCKS.forEach((block, i) => {
  const { lang, code } = block;
  const first = code.split('\n').find((l) => l.trim() && !l.startsWith('import') && !l.startsWith('const'))?.trim();
  const needsWasm = code.includes("'workload-lens/wasm'");
  const skip = (isLive(code) && 'needs a live cluster: tests/kube.test.mjs runs it (bash scripts/test.sh live)')
    || (needsWasm && !WASM_BUILT && 'wasm/ is not built');
  test(`README example ${i + 1} (${lang}): ${first}`, { skip }, () => runExample(i, block));
});
