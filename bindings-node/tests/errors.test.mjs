// Errors: one class per engine code, with code, location, limit and
// findings; and hostile inputs, none of which may crash the process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import * as wl from 'workload-lens';
import { PKG, TRAINER, TRAINER_TEXT } from '../testing/fixtures.mjs';

const CLASSES = {
  parse: wl.ParseError,
  validation: wl.ValidationError,
  jq_compile: wl.JqCompileError,
  jq_runtime: wl.JqRuntimeError,
  conversion: wl.ConversionError,
  count_mismatch: wl.CountMismatchError,
  limit: wl.LimitError,
  no_definition: wl.NoDefinitionError,
  invalid_object: wl.InvalidObjectError,
  update: wl.UpdateError,
  usage: wl.UsageError,
};

test('one Error subclass per code, all WorkloadLensError', () => {
  for (const [code, Cls] of Object.entries(CLASSES)) {
    assert.equal(Cls.code, code);
    const e = new Cls('m');
    assert.ok(e instanceof wl.WorkloadLensError);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code);
    assert.equal(e.name, Cls.name);
    assert.deepEqual(e.location, {});
  }
  assert.equal(wl.WorkloadLensError.code, 'internal');
});

test('the error classes are exactly the engine\'s error codes (errorCodes of workload-lens-binding)', () => {
  const require = createRequire(import.meta.url);
  const engine = JSON.parse(require('../native.cjs').errorCodes());
  assert.ok(engine.length > 0);
  // Every WorkloadLensError subclass the package exports, in export order.
  const exported = Object.values(wl)
    .filter((x) => typeof x === 'function' && x.prototype instanceof wl.WorkloadLensError);
  assert.deepEqual(
    exported.map((c) => ({ code: c.code, class: c.name })).sort((a, b) => a.code.localeCompare(b.code)),
    [...engine].sort((a, b) => a.code.localeCompare(b.code)),
  );
  // lib/errors.mjs declares them in the engine's order; each code makes its class.
  const source = readFileSync(join(PKG, 'lib', 'errors.mjs'), 'utf8');
  const declared = [...source.matchAll(/^export class (\w+) extends (?:WorkloadLensError|ApiError) \{ static code = '(\w+)'; \}$/gm)]
    .map((m) => ({ code: m[2], class: m[1] }));
  assert.deepEqual(declared, engine);
  for (const { code, class: name } of engine) {
    assert.equal(wl.makeError(code, 'm').constructor.name, name);
    assert.equal(wl.fromRaw(new Error(JSON.stringify({ code, message: 'm' }))).constructor, wl[name]);
  }
  // The types and the README name the same classes.
  const dts = readFileSync(join(PKG, 'index.d.ts'), 'utf8');
  const typed = [...dts.matchAll(/^export class (\w+) extends (?:WorkloadLensError|ApiError) \{(?: readonly code: ClusterErrorCode; )?\}$/gm)].map((m) => m[1]);
  assert.deepEqual(typed, engine.map((e) => e.class));
  const readme = readFileSync(join(PKG, 'README.md'), 'utf8');
  for (const { class: name } of engine) assert.ok(readme.includes(`\`${name}\``), `README names ${name}`);
});

test('a parse error is located', () => {
  const e = catchIt(() => wl.resolve('apiVersion: v1\nkind: Pod\nmetadata: {name: [}\n'));
  assert.ok(e instanceof wl.ParseError);
  assert.equal(e.code, 'parse');
  assert.equal(e.location.line, 3);
  assert.equal(typeof e.location.column, 'number');
  assert.match(e.message, /line 3/);
  assert.equal(typeof e.detail, 'string');
  assert.ok(!('limit' in e));
  assert.ok(e.stack.includes('ParseError'));
});

test('a validation error carries its findings, located in the text', () => {
  const broken = TRAINER_TEXT.replace('.status.phase', '.status.phase | range(3)');
  const e = catchIt(() => wl.compile(broken));
  assert.ok(e instanceof wl.ValidationError);
  const f = e.findings.find((x) => x.code === 'jq-denied');
  assert.equal(f.location.field, 'spec.structureDefinition.rootComponent.statusDefinition.phaseDefinition.path');
  assert.equal(f.location.line, 12);
  assert.equal(f.severity, 'error');
});

test('jq errors, limits, no definition, invalid object, update and usage errors', () => {
  assert.ok(catchIt(() => wl.evaluate('.a |||')) instanceof wl.JqCompileError);
  assert.ok(catchIt(() => wl.evaluate('error("x")')) instanceof wl.JqRuntimeError);
  const lim = catchIt(() => wl.evaluate('[.[] as $a | .[] as $b | $a] | length', [...Array(100).keys()], { maxSteps: 1000 }));
  assert.ok(lim instanceof wl.LimitError);
  assert.equal(lim.limit, 'maxSteps');
  assert.ok(catchIt(() => wl.resolve({ apiVersion: 'x/v1', kind: 'Nope', metadata: { name: 'a' } })) instanceof wl.NoDefinitionError);
  assert.ok(catchIt(() => wl.resolve({ apiVersion: 'x/v1', kind: 'Nope' })) instanceof wl.InvalidObjectError);
  const d = wl.compile(TRAINER_TEXT);
  assert.ok(catchIt(() => d.resolve({ kind: 'Trainer' })) instanceof wl.WorkloadLensError);
  const u = catchIt(() => d.update(TRAINER, { components: { nope: { podSpecs: { x: {} } } } }));
  assert.ok(u instanceof wl.WorkloadLensError && ['usage', 'update'].includes(u.code));
  assert.ok(catchIt(() => d.suspend(TRAINER)) instanceof wl.WorkloadLensError);
  assert.ok(catchIt(() => wl.limits({ bogus: 1 })) instanceof wl.UsageError);
});

test('values JSON cannot represent are usage errors, not silent nulls', () => {
  for (const bad of [{ a: NaN }, { a: Infinity }, { a: 1n }]) {
    assert.ok(catchIt(() => wl.evaluate('.', bad)) instanceof wl.UsageError);
  }
  const circular = { a: 1 };
  circular.self = circular;
  assert.ok(catchIt(() => wl.resolve(circular)) instanceof wl.UsageError);
});

test('hostile inputs give errors, never a crash', () => {
  const deep = (n) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const e1 = catchIt(() => wl.parse(deep(100000)));
  assert.ok(e1 instanceof wl.LimitError);
  assert.equal(e1.limit, 'maxDepth');
  // A deeply nested JS value: the JS stack runs out in JSON.stringify.
  let v = {};
  for (let i = 0; i < 200000; i += 1) v = { v };
  assert.ok(catchIt(() => wl.evaluate('.', v)) instanceof wl.LimitError);
  // Nested a little deeper than serde_json's 128 but within maxDepth.
  let w = 1;
  for (let i = 0; i < 200; i += 1) w = [w];
  assert.deepEqual(wl.evaluate('.', w, { maxDepth: 300 }), [w]);
  assert.ok(catchIt(() => wl.evaluate('.', w)) instanceof wl.LimitError);
  // Billion laughs.
  const laughs = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 10; i += 1) laughs.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(', ')}]`);
  assert.ok(catchIt(() => wl.parse(laughs.join('\n'))) instanceof wl.LimitError);
  // Runaway jq is stopped by the step budget.
  for (const expr of ['def f: f; f', 'last(repeat(1))', '[range(1e9)]', 'until(false; .)']) {
    const e = catchIt(() => wl.evaluate(expr, null, { maxSteps: 100000 }));
    assert.ok(e instanceof wl.WorkloadLensError, expr);
  }
  // Invalid UTF-8, lone surrogates, NUL bytes, huge strings.
  const bad = catchIt(() => wl.resolve(new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0x0a])));
  assert.ok(bad instanceof wl.ParseError);
  assert.equal(bad.location.line, 1);
  assert.ok(catchIt(() => wl.parse(new Uint8Array([0xc3]))) instanceof wl.ParseError);
  assert.deepEqual(wl.parse('a: "\\u0000"'), [{ a: '\u0000' }]);
  assert.ok(catchIt(() => wl.resolve('kind: "\ud800"\n')) instanceof wl.WorkloadLensError);
  assert.ok(catchIt(() => wl.resolve({ kind: '\udfff' })) instanceof wl.WorkloadLensError);
  assert.ok(catchIt(() => wl.resolve('x'.repeat(20 << 20))) instanceof wl.LimitError);
  assert.ok(catchIt(() => wl.compile('{"a": 1, "a": 2}')) instanceof wl.ParseError);
  assert.ok(catchIt(() => wl.resolve('{"apiVersion": "v1", "kind": "Pod", "kind": "Pod"}')) instanceof wl.ParseError);
  assert.ok(catchIt(() => wl.resolve('')) instanceof wl.ParseError);
  assert.ok(catchIt(() => wl.resolve('a: 1\n---\nb: 2\n')) instanceof wl.UsageError);
});

test('a panic inside the addon is an internal error, and the process lives on', () => {
  const require = createRequire(import.meta.url);
  const native = require('../native.cjs');
  const e = catchIt(() => native._panicForTests('boom'));
  const payload = JSON.parse(e.message);
  assert.equal(payload.code, 'internal');
  assert.match(payload.message, /panic: boom/);
  assert.deepEqual(wl.evaluate('1 + 1'), [2]);
});

test('a process hammering the API with hostile input exits normally', () => {
  const script = `
    import * as wl from 'workload-lens';
    let n = 0;
    const inputs = ['{', '[', 'a: [', '{"a":', '\\u0000', '- - - -', '!!binary x', '*x', '&a [*a]', 'a: !!int x'];
    for (const t of inputs) {
      for (const f of [wl.parse, wl.resolve, wl.compile, wl.validate, (x) => wl.evaluate(x)]) {
        try { f(t); } catch (e) { if (!(e instanceof wl.WorkloadLensError)) throw e; n += 1; }
      }
    }
    console.log('errors', n);`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PKG, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^errors \d+/);
});

function catchIt(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected an error');
}
