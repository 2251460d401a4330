// The package: ESM and CommonJS entry points, export conditions and
// subpaths, what `npm pack` ships, and publint's verdict on the layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import * as esm from 'workload-lens';
import { PKG } from '../testing/fixtures.mjs';

const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
const WASM_BUILT = existsSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm'));

const node = (args, opts = {}) => spawnSync(process.execPath, args, { cwd: PKG, encoding: 'utf8', ...opts });

test('require() gives the same module as import (require(esm))', () => {
  const require = createRequire(join(PKG, 'package.json'));
  const cjs = require('workload-lens');
  assert.equal(cjs.resolve, esm.resolve);
  assert.equal(cjs.WorkloadLensError, esm.WorkloadLensError);
  const r = node(['-e', "const wl = require('workload-lens'); console.log(wl.backend, wl.evaluate('1+1')[0])"]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'native 2');
});

test('import in Node resolves to the native build; ./native too', () => {
  for (const spec of ['workload-lens', 'workload-lens/native']) {
    const r = node(['--input-type=module', '-e', `import * as wl from '${spec}'; console.log(wl.backend)`]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'native');
  }
  const r = node(['-e', "console.log(require('workload-lens/native').backend)"]);
  assert.equal(r.stdout.trim(), 'native', r.stderr);
});

test('the browser condition and ./wasm resolve to the WASM build', { skip: !WASM_BUILT && 'wasm/ is not built (bindings-wasm/build.sh)' }, () => {
  const code = (spec) => `import * as wl from '${spec}'; await wl.init(); console.log(wl.backend, wl.evaluate('1+1')[0], wl.resolve(${JSON.stringify(readFileSync(join(PKG, '..', 'examples', 'jobset.yaml'), 'utf8'))}).totals.resources.gpu)`;
  const a = node(['--conditions=browser', '--input-type=module', '-e', code('workload-lens')]);
  assert.equal(a.status, 0, a.stderr);
  assert.equal(a.stdout.trim(), 'wasm 2 12');
  const b = node(['--input-type=module', '-e', code('workload-lens/wasm')]);
  assert.equal(b.status, 0, b.stderr);
  assert.equal(b.stdout.trim(), 'wasm 2 12');
});

test('workload-lens/kube: Node only (no browser or default condition), import and require', () => {
  assert.deepEqual(pkg.exports['./kube'], { types: './kube.d.ts', node: './lib/kube.mjs' });
  const code = "const k = require('workload-lens/kube'); console.log(typeof k.Cluster, new k.ForbiddenError('x').code)";
  const r = node(['-e', code]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), 'function forbidden');
  const m = node(['--input-type=module', '-e', "import { Cluster, ClusterError, NotFoundError } from 'workload-lens/kube'; console.log(new NotFoundError('x') instanceof ClusterError, typeof Cluster)"]);
  assert.equal(m.stdout.trim(), 'true function', m.stderr);
});

test('exports: types first, browser, node import/require, default', () => {
  const dot = pkg.exports['.'];
  assert.deepEqual(Object.keys(dot), ['types', 'browser', 'node', 'default']);
  assert.deepEqual(dot.node, { import: './index.mjs', require: './index.cjs' });
  assert.equal(dot.browser, './browser.mjs');
  assert.equal(dot.default, './browser.mjs');
  assert.ok(pkg.engines.node.includes('20.19'));
});

test('no npm dependencies: installing the package adds only itself', () => {
  for (const k of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    assert.equal(pkg[k], undefined, `package.json has ${k} (the dev tools belong in dev/package.json)`);
  }
  // workload-lens/kube's client is an optional peer: npm does not install it.
  assert.deepEqual(Object.keys(pkg.peerDependencies), ['@kubernetes/client-node']);
  assert.deepEqual(pkg.peerDependenciesMeta, { '@kubernetes/client-node': { optional: true } });
  // require(esm), which index.cjs needs, is unflagged from 20.19 and 22.12.
  assert.equal(pkg.engines.node, '^20.19.0 || >=22.12.0');
});

test('npm pack ships every file the exports and the loader name', () => {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PKG, encoding: 'utf8' });
  const files = new Set(JSON.parse(out)[0].files.map((f) => f.path));
  for (const f of ['package.json', 'index.mjs', 'index.cjs', 'index.d.ts', 'browser.mjs', 'native.cjs',
    'lib/api.mjs', 'lib/errors.mjs', 'lib/version.mjs', 'lib/kube.mjs', 'kube.d.ts', 'types/engine.d.ts', 'README.md',
    'workload-lens.linux-x64-gnu.node']) {
    assert.ok(files.has(f), `npm pack is missing ${f}`);
  }
  if (WASM_BUILT) {
    assert.ok(files.has('wasm/workload_lens_wasm.js'));
    assert.ok(files.has('wasm/workload_lens_wasm_bg.wasm'));
  }
  for (const f of files) assert.ok(!/^(tests|testing|src|node_modules)\//.test(f), `npm pack ships ${f}`);
});

test('publint finds no errors or warnings', { skip: !WASM_BUILT && 'wasm/ is not built: the browser export would point at a missing file' }, async () => {
  const { publint } = await import('publint');
  const { messages } = await publint({ pkgDir: PKG, level: 'warning', strict: false });
  const { formatMessage } = await import('publint/utils');
  // Accepted: index.d.cts is CommonJS on purpose. require('workload-lens')
  // returns the ES module's namespace (require(esm), Node >= 20.19), which
  // has no default export, so there is no default-import interop to be
  // ambiguous about; testing/types-require.cts checks the CJS view with tsc.
  const accepted = (m) => m.code === 'EXPORTS_TYPES_INVALID_FORMAT' && JSON.stringify(m.path) === '["exports",".","types","require"]';
  const bad = messages.filter((m) => m.type !== 'suggestion' && !accepted(m))
    .map((m) => `${m.type}: ${formatMessage(m, pkg) ?? m.code}`);
  assert.deepEqual(bad, []);
});
