// Every ```js and ```cjs block of bindings-node/README.md runs (from the
// repository root, importing the package by its name), and each
// `console.log(...); // expected` prints what its comment says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

import { PKG, REPO } from '../testing/fixtures.mjs';

const README = readFileSync(join(PKG, 'README.md'), 'utf8');
const BLOCKS = [...README.matchAll(/^```(js|cjs)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], code: m[2] }));
const TMP = join(PKG, '.readme-examples');
const WASM_BUILT = existsSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm'));

test('the README has examples', () => {
  assert.ok(BLOCKS.length >= 8, `found ${BLOCKS.length} blocks`);
});

BLOCKS.forEach(({ lang, code }, i) => {
  const first = code.split('\n').find((l) => l.trim() && !l.startsWith('import') && !l.startsWith('const'))?.trim();
  const needsWasm = code.includes("'workload-lens/wasm'");
  test(`README example ${i + 1} (${lang}): ${first}`, { skip: needsWasm && !WASM_BUILT && 'wasm/ is not built' }, () => {
    mkdirSync(TMP, { recursive: true });
    // Inside the package (bindings-node/.readme-examples, gitignored), so that
    // 'workload-lens' resolves to this package as it would when installed.
    const file = join(TMP, `example-${i + 1}.${lang === 'cjs' ? 'cjs' : 'mjs'}`);
    const record = lang === 'cjs'
      ? "const { format: __f } = require('node:util');"
      : "import { format as __f } from 'node:util';";
    writeFileSync(file, `${record}
const __out = []; const __log = console.log;
console.log = (...a) => { __out.push(__f(...a)); __log(...a); };
process.on('exit', () => process.stderr.write('\\n__OUT__' + JSON.stringify(__out) + '\\n'));
${code}`);
    const r = spawnSync(process.execPath, [file], { cwd: REPO, encoding: 'utf8' });
    rmSync(file, { force: true });
    assert.equal(r.status, 0, `example ${i + 1} failed:\n${r.stderr}`);
    const out = JSON.parse(/__OUT__(.*)\n/.exec(r.stderr)[1]);
    const logs = code.split('\n').filter((l) => /^\s*console\.log\(/.test(l));
    assert.equal(out.length, logs.length, 'one output per console.log line');
    logs.forEach((line, j) => {
      const m = /;\s*\/\/ (.*)$/.exec(line);
      if (m) assert.equal(out[j], m[1], `example ${i + 1}: ${line.trim()}`);
    });
  });
});
