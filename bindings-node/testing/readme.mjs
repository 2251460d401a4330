// The ```js and ```cjs blocks of bindings-node/README.md and how one is run
// (tests/readme.test.mjs runs them all but the live ones, which need a
// server: tests/kube.test.mjs runs those against the live scenario).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { PKG, REPO } from './fixtures.mjs';

const README = readFileSync(join(PKG, 'README.md'), 'utf8');
export const BLOCKS = [...README.matchAll(/^```(js|cjs)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], code: m[2] }));

/** Does the example need a live cluster (it imports workload-lens/kube)? */
export const isLive = (code) => code.includes("'workload-lens/kube'");

const TMP = join(PKG, '.readme-examples');

/** Run example `i` (from the repository root, importing the package by its
 * name) and check that each `console.log(...); // expected` line printed
 * what its comment says. */
export function runExample(i, { lang, code }, env = process.env) {
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
  const r = spawnSync(process.execPath, [file], { cwd: REPO, encoding: 'utf8', env });
  rmSync(file, { force: true });
  assert.equal(r.status, 0, `example ${i + 1} failed:\n${r.stderr}`);
  const out = JSON.parse(/__OUT__(.*)\n/.exec(r.stderr)[1]);
  const logs = code.split('\n').filter((l) => /^\s*console\.log\(/.test(l));
  assert.equal(out.length, logs.length, 'one output per console.log line');
  logs.forEach((line, j) => {
    const m = /;\s*\/\/ (.*)$/.exec(line);
    if (m) assert.equal(out[j], m[1], `example ${i + 1}: ${line.trim()}`);
  });
}
