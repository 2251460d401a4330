// Unit tests of the page's pure helpers (no browser): the YAML emitter of the
// case export round-trips through the engine's reader, and definition fields
// are found in YAML text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
import { toYaml } from '../src/export.js';
import { locateField, fieldSegments } from '../src/locate.js';

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

test('locateField finds block and flow fields', () => {
  assert.deepEqual(fieldSegments('spec.a[1].b'), ['spec', 'a', 1, 'b']);
  const src = readFileSync(path.join(root, 'definitions', 'jobset-x-k8s-io-jobset-v1alpha2.yaml'), 'utf8');
  const lines = src.split('\n');
  const at = (f) => {
    const l = locateField(src, f);
    return l && lines[l.line].slice(l.column);
  };
  assert.match(at('spec.structureDefinition.childComponents[0].instanceIdPath'), /^instanceIdPath: \.spec\.replicatedJobs\[\]\.name/);
  assert.match(at('spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0].byExpression.expression'), /^expression: >-/);
  assert.match(at('spec.structureDefinition.rootComponent.statusDefinition.statusMappings.completed[0]'), /^- byConditions:/);
  assert.match(at('spec.structureDefinition.rootComponent.statusDefinition.statusMappings.completed[0].byConditions[0].status'), /^status: "True"/);
  assert.match(at('spec.structureDefinition.rootComponent.suspendDefinition.suspendActions[0].value'), /^value: "true"/);
  const flow = 'spec:\n  root: {name: r, kind: {group: a, version: v1}}\n  list:\n  - a: 1\n  - b: 2\n';
  const f = locateField(flow, 'spec.root.kind.version');
  assert.equal(flow.split('\n')[f.line].slice(f.column, f.column + 8), 'version:');
  const g = locateField(flow, 'spec.list[1].b');
  assert.equal(flow.split('\n')[g.line].slice(g.column), 'b: 2');
  assert.deepEqual(locateField(flow, 'spec.nothing'), locateField(flow, 'spec'));
});
