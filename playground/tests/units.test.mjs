// Unit tests of the page's pure helpers (no browser): the YAML emitter of the
// case export round-trips through the engine's reader, and the engine's
// source map positions become the right editor ranges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { toYaml } from '../src/export.js';
import { Text } from '@codemirror/state';
import { fieldQuery, keyOf, objectQueries, rangeOf, restOfLine } from '../src/places.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const wl = await import(pathToFileURL(path.join(root, 'bindings-node', 'browser.mjs')).href);
await wl.init();

test('toYaml round-trips through the engine reader', () => {
  const values = [
    { a: 1, b: [1, 2, { c: null, d: true }], e: {}, f: [], g: 'x' },
    { text: 'line 1\nline 2\n', text2: 'no newline\nat end', text3: 'two\n\n', text4: '  leading space\nx' },
    { 'key with space': 'v', 'true': 'yes', 'null': null, '-dash': '-', '#': '# not a comment', 'a: b': 'c: d' },
    { s: ['', ' ', 'yes', 'no', '1', '1.5', '0x1F', '~', '@x', '`x', '"', "'", '\\', '\t', 'é ü 日本', '😀', 'a\u0085b', '\u2028'] },
    { nested: [[1, [2, [3]]], [{ a: [{ b: 'multi\nline' }] }]] },
    { n: [0, -0.5, 1e21, 123456789012, -7] },
    { tricky: '- item\n  key: value\n---\n...\n', trailing: 'x \ny' },
  ];
  for (const v of values) {
    const text = toYaml(v);
    const [back] = wl.parse(text);
    assert.deepEqual(back, JSON.parse(JSON.stringify(v)), text);
  }
});

test('catalog definitions survive as literal blocks', () => {
  for (const [name, src] of Object.entries(wl.catalogSources())) {
    const text = toYaml({ definition: { text: src } });
    assert.equal(wl.parse(text)[0].definition.text, src, name);
  }
});

test('places: the engine\'s positions become editor ranges, jq spans inside folded blocks too', () => {
  const src = readFileSync(path.join(root, 'definitions', 'jobset-x-k8s-io-jobset-v1alpha2.yaml'), 'utf8');
  const doc = Text.of(src.split('\n'));
  const slice = (r) => doc.sliceString(r.from, r.to);
  const running = 'spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.expression';
  const [expression] = wl.evaluate(`.${running}`, wl.parse(src)[0]);
  const at = expression.indexOf('any(');
  const questions = [
    fieldQuery({ field: running }),
    fieldQuery({ field: running, span: [at, at + 3], expression }),
    fieldQuery({ field: running, span: [at, at + 3], expression: 'another' }),
    fieldQuery({ field: 'spec.structureDefinition.childComponents[0].instanceIdPath' }),
    fieldQuery({ field: 'spec.structureDefinition.childComponents[0].nothing.here' }),
  ];
  const [key, span, other, ids, near] = wl.sourceMap(src, questions).places;
  assert.match(slice(restOfLine(doc, key.key.start)), /^expression: >-$/);
  // On the second line of the folded block.
  assert.equal(slice(rangeOf(doc, span.span)), 'any');
  const line = src.split('\n').findIndex((l) => l.includes('| any((.ready // 0) > 0')) + 1;
  assert.ok(line > 0);
  assert.equal(doc.lineAt(rangeOf(doc, span.span).from).number, line);
  assert.equal(other.span, undefined);
  assert.match(slice(restOfLine(doc, ids.key.start)), /^instanceIdPath: \.spec\.replicatedJobs\[\]\.name/);
  assert.equal(near.exact, false);
  assert.equal(near.path, 'spec.structureDefinition.childComponents[0]');
  // The same location gives the same question (the worker's key is the page's).
  assert.equal(keyOf(fieldQuery({ field: running })), keyOf(questions[0]));
});

test('places: columns count characters, the editor UTF-16 code units', () => {
  const src = 'a: "😀 é"\nb: [x, "日本", y]\n';
  const doc = Text.of(src.split('\n'));
  const [y] = wl.sourceMap(src, ['b[2]']).places;
  assert.equal(doc.sliceString(rangeOf(doc, y.value).from, rangeOf(doc, y.value).to), 'y');
  const [e] = wl.sourceMap(src, [{ path: 'a', span: [5, 7], expression: '😀 é' }]).places;
  assert.equal(doc.sliceString(rangeOf(doc, e.span).from, rangeOf(doc, e.span).to), 'é');
  // Objects and pod templates: questions in a component's pod template first.
  assert.deepEqual(objectQueries({ objectPath: 'spec' }), [{ object: 0, path: 'spec', nearest: true }]);
  assert.deepEqual(objectQueries({ objectPath: 'spec.x', component: 'c', instance: 'i' }).map((q) => q.component), ['c', undefined]);
});
