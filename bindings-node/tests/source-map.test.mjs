// sourceMap (where objects, fields, pod templates and spans of jq
// expressions are in a text) and humanAmounts (the engine's amounts, for
// people), through the public API: the native addon, and the WASM build
// when it is built (the playground's engine) with the same answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as wl from 'workload-lens';
import { JOBSET_TEXT, PKG, PODS_TEXT } from '../testing/fixtures.mjs';

const DEFINITION = `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: demo}
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
      statusDefinition: {statusMappings: {}}
      specDefinition:
        podTemplateSpecPath: ".spec.template | .x"
`;
const FIELD = 'spec.structureDefinition.rootComponent.specDefinition.podTemplateSpecPath';

/** The text of a span (offsets are UTF-8 bytes). */
const textOf = (text, span) => Buffer.from(text).subarray(span.start.offset, span.end.offset).toString();

function checkDefinitionMap(api) {
  const m = api.sourceMap(DEFINITION, [FIELD, { path: FIELD, span: [17, 19] }, 'spec.nope', { path: 'spec.x.y', nearest: true }]);
  assert.deepEqual(m.objects.map((o) => [o.document, o.path, o.value.start.line, o.podTemplates]), [[0, '', 1, []]]);
  const [field, span, none, near] = m.places;
  assert.equal(field.exact, true);
  assert.deepEqual(field.key.start, { line: 11, column: 9, offset: field.key.start.offset });
  assert.equal(textOf(DEFINITION, field.value), '".spec.template | .x"');
  assert.equal(textOf(DEFINITION, span.span), '.x');
  assert.equal(span.span.start.column, 48);
  assert.equal(none, null);
  assert.deepEqual([near.exact, near.path], [false, 'spec']);
}

test('sourceMap: fields, spans, unknown paths and the nearest ancestor', () => {
  checkDefinitionMap(wl);
  assert.deepEqual(wl.sourceMap(new TextEncoder().encode(DEFINITION)).places, []);
});

test('sourceMap: the objects of a pods text, and questions about one', () => {
  const m = wl.sourceMap(PODS_TEXT, [{ object: 2, path: 'metadata.name' }]);
  const items = wl.parse(PODS_TEXT)[0].items;
  assert.equal(m.objects.length, items.length);
  assert.deepEqual(m.objects.map((o) => o.path), items.map((_, i) => `items[${i}]`));
  const name = m.places[0];
  assert.equal(name.path, 'items[2].metadata.name');
  assert.equal(wl.parse(textOf(PODS_TEXT, name.value))[0], items[2].metadata.name);
});

test('sourceMap of a definition and a catalog: pod templates, questions about a component', () => {
  const q = [{ component: 'replicatedjob', instance: 'worker', path: 'spec.containers[0].image' }];
  for (const m of [wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet').sourceMap(JOBSET_TEXT, q), new wl.Catalog().sourceMap(JOBSET_TEXT, q)]) {
    const t = m.objects[0].podTemplates;
    assert.deepEqual(t.map((x) => [x.component, x.instance, x.part, x.value.start.line]),
      [['replicatedjob', 'leader', 'template', 18], ['replicatedjob', 'worker', 'template', 37]]);
    assert.ok(t[0].field.endsWith('specDefinition.podTemplateSpecPath'));
    assert.equal(m.places[0].path, 'spec.replicatedJobs[1].template.spec.template.spec.containers[0].image');
    assert.equal(textOf(JOBSET_TEXT, m.places[0].value), 'ghcr.io/example/llama-trainer:1.4');
  }
  assert.deepEqual(wl.sourceMap(JOBSET_TEXT, q).places, [null]);
});

test('sourceMap: errors are the engine\'s, wrong arguments TypeErrors', () => {
  assert.throws(() => wl.sourceMap('a: [1\n'), wl.ParseError);
  assert.throws(() => wl.sourceMap('a: 1', [{ pth: 'a' }]), wl.UsageError);
  assert.throws(() => wl.sourceMap('a: 1\n---\nb: 2\n', [], { maxDocuments: 1 }), (e) => e instanceof wl.LimitError && e.limit === 'maxDocuments');
  assert.throws(() => wl.sourceMap('a: 1', 'a'), TypeError);
  assert.throws(() => wl.sourceMap(42), TypeError);
});

test('humanAmounts: every amount the engine names, written as the CLI writes it', () => {
  const r = wl.resolve(JOBSET_TEXT);
  const h = wl.humanAmounts([r, { x: { cpuMillis: 26500, memoryBytes: 2e9, gpu: 3 } }]);
  assert.equal(h.millicores['26500'], '26.5');
  assert.equal(h.millicores['8000'], '8');
  assert.equal(h.bytes['2000000000'], '1.9Gi');
  assert.equal(h.bytes[String(64 * 2 ** 30)], '64Gi');
  assert.equal(h.millicores['3'], undefined);
  assert.deepEqual(wl.humanAmounts(null), { millicores: {}, bytes: {} });
});

const BUILT = existsSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm'));
test('the WASM build answers alike', { skip: !BUILT && 'wasm/ is not built (bindings-wasm/build.sh)' }, async () => {
  const w = await import('workload-lens/wasm');
  await w.init(readFileSync(join(PKG, 'wasm', 'workload_lens_wasm_bg.wasm')));
  checkDefinitionMap(w);
  const q = [{ object: 1, path: 'metadata' }];
  assert.deepEqual(w.sourceMap(PODS_TEXT, q), wl.sourceMap(PODS_TEXT, q));
  const d = w.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  assert.deepEqual(d.sourceMap(JOBSET_TEXT), wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet').sourceMap(JOBSET_TEXT));
  const r = wl.resolve(JOBSET_TEXT, { pods: PODS_TEXT });
  assert.deepEqual(w.humanAmounts(r), wl.humanAmounts(r));
});
