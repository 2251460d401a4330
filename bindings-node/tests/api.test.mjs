// The public API through the native addon: every function, class, getter
// and method, with results in the engine's canonical JSON shape.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import * as wl from 'workload-lens';
import { JOBSET_TEXT, PKG, PODS_TEXT, REPO, TRAINER, TRAINER_TEXT, read } from '../testing/fixtures.mjs';
import { VERSION } from '../lib/version.mjs';

const JOBSET = wl.parse(JOBSET_TEXT)[0];
const PODS = wl.parse(PODS_TEXT)[0];

test('version and backend', () => {
  const pkg = JSON.parse(readFileSync(join(PKG, 'package.json'), 'utf8'));
  assert.equal(wl.version, pkg.version);
  assert.equal(VERSION, pkg.version);
  const cargo = readFileSync(join(REPO, 'Cargo.toml'), 'utf8');
  assert.match(cargo, new RegExp(`\\nversion = "${pkg.version.replaceAll('.', '\\.')}"`));
  assert.equal(wl.backend, 'native');
});

test('init and initSync exist and do nothing natively', async () => {
  assert.equal(await wl.init(), undefined);
  assert.equal(wl.initSync(new Uint8Array()), undefined);
});

test('resolve takes an object, YAML text, JSON text and bytes alike', () => {
  const a = wl.resolve(JOBSET_TEXT);
  const b = wl.resolve(JOBSET);
  const c = wl.resolve(new TextEncoder().encode(JOBSET_TEXT));
  const d = wl.resolve(JSON.stringify(JOBSET));
  const e = wl.resolve(Buffer.from(JOBSET_TEXT));
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
  assert.deepEqual(a, d);
  assert.deepEqual(a, e);
  assert.equal(a.totals.resources.gpu, 12);
  assert.equal(a.totals.pods, 3);
  assert.equal(a.definition.name, 'jobset-x-k8s-io-jobset-v1alpha2');
  assert.equal(a.definition.origin, 'catalog');
  assert.deepEqual(a.status.matchedStatuses, ['Running']);
  const roles = a.components.find((x) => x.name === 'replicatedjob').instances.map((i) => i.id);
  assert.deepEqual(roles, ['leader', 'worker']);
  // The canonical JSON shape: no undefined values anywhere.
  assert.equal(JSON.stringify(a).includes('undefined'), false);
  assert.deepEqual(JSON.parse(JSON.stringify(a)), a);
});

test('resolve with pods: an array, a List object or text', () => {
  const a = wl.resolve(JOBSET, { pods: PODS.items });
  const b = wl.resolve(JOBSET, { pods: PODS });
  const c = wl.resolve(JOBSET, { pods: PODS_TEXT });
  assert.deepEqual(a, b);
  assert.deepEqual(a, c);
  const worker = a.components.find((x) => x.name === 'replicatedjob').instances[1];
  assert.equal(worker.live.ready, 1);
  assert.equal(worker.desiredReplicas, 2);
});

test('pods: a top-level array and a PodList, as values and as text, read by the engine\'s one reader', () => {
  const expected = wl.resolve(JOBSET, { pods: PODS });
  const podList = { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: PODS.items };
  // As the API server returns a PodList: items without apiVersion and kind.
  const bare = { ...podList, items: PODS.items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest) };
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  const names = def.attributePods(JOBSET, PODS).pods.map((p) => p.instance);
  for (const [what, pods] of [
    ['an array', PODS.items],
    ['a PodList', podList],
    ['a PodList of bare items', bare],
    ['a JSON top-level array', JSON.stringify(PODS.items)],
    ['a YAML top-level array', PODS.items.map((p) => `- ${JSON.stringify(p)}`).join('\n')],
    ['PodList JSON text', JSON.stringify(podList)],
    ['PodList bytes', new TextEncoder().encode(JSON.stringify(bare))],
    ['several documents', PODS.items.map((p) => JSON.stringify(p)).join('\n---\n')],
  ]) {
    assert.deepEqual(wl.resolve(JOBSET, { pods }), expected, what);
    assert.deepEqual(def.attributePods(JOBSET, pods).pods.map((p) => p.instance), names, what);
    assert.deepEqual(def.gangGroups(JOBSET, pods), def.gangGroups(JOBSET, PODS), what);
  }
  assert.deepEqual(new wl.Catalog().resolve(JOBSET, podList), expected);
  // One pod is a list of one.
  assert.deepEqual(def.attributePods(JOBSET, PODS.items[1]), def.attributePods(JOBSET, [PODS.items[1]]));
});

test('gangGroups without gang scheduling instructions: an empty report, not an error', () => {
  const object = read('definitions', 'fixtures', 'apps-deployment-v1', 'running.yaml');
  const pods = read('definitions', 'fixtures', 'apps-deployment-v1', 'running.pods.yaml');
  const def = wl.lookup('apps/v1', 'Deployment');
  assert.equal(def.toJSON().spec.optimizationInstructions?.gangScheduling, undefined);
  assert.deepEqual(def.gangGroups(object, pods), { groups: [], pods: [] });
  assert.deepEqual(def.gangGroups(object, []), { groups: [], pods: [] });
  // The pods are the Deployment's all the same.
  assert.ok(def.attributePods(object, pods).pods.every((p) => p.component));
});

test('gangStructure and subtreeScale', () => {
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  const s = def.gangStructure();
  assert.deepEqual(s.components, ['jobset', 'replicatedjob']);
  assert.deepEqual(s.parents, { replicatedjob: 'jobset' });
  assert.deepEqual(s.children, { jobset: ['replicatedjob'], replicatedjob: [] });
  assert.deepEqual(s.candidates.replicatedjob.map((c) => c.member), ['jobset']);
  assert.equal(wl.lookup('apps/v1', 'Deployment').gangStructure().candidates, undefined);
  assert.equal(def.subtreeScale(JOBSET, 'jobset'), 3);
  assert.equal(def.subtreeScale(JOBSET, 'replicatedjob', 'worker'), 2);
  assert.equal(def.subtreeScale(JSON.stringify(JOBSET), 'replicatedjob', null), 3);
  for (const [component, instance] of [['nope', undefined], ['replicatedjob', ''], ['replicatedjob', 'nope']]) {
    assert.throws(() => def.subtreeScale(JOBSET, component, instance), wl.UsageError, `${component} ${instance}`);
  }
  assert.throws(() => def.subtreeScale(JOBSET, 1), TypeError);
  assert.throws(() => def.subtreeScale(JOBSET, 'jobset', 1), TypeError);
});

test('resolve with your own definitions and limits', () => {
  const r = wl.resolve(TRAINER, { definitions: [TRAINER_TEXT] });
  assert.equal(r.totals.resources.gpu, 16);
  assert.equal(r.definition.name, 'example-com-trainer-v1');
  assert.equal(r.definition.origin, 'user');
  const d = wl.compile(TRAINER_TEXT);
  assert.deepEqual(wl.resolve(TRAINER, { definitions: [d] }), r);
  assert.throws(() => wl.resolve(TRAINER), wl.NoDefinitionError);
  assert.throws(() => wl.resolve(JOBSET_TEXT, { limits: { maxInputBytes: 10 } }),
    (e) => e instanceof wl.LimitError && e.limit === 'maxInputBytes');
});

test('Definition: getters, toJSON and every method', () => {
  const d = new wl.Definition(TRAINER_TEXT, { maxSteps: 5000 });
  assert.equal(d.name, 'example-com-trainer-v1');
  assert.equal(d.origin, 'user');
  assert.deepEqual(d.gvk, { group: 'example.com', version: 'v1', kind: 'Trainer', apiVersion: 'example.com/v1' });
  assert.deepEqual(d.components, ['trainer']);
  assert.equal(d.canSuspend, false);
  assert.deepEqual(d.warnings, []);
  assert.equal(d.limits.maxSteps, 5000);
  assert.equal(d.toJSON().metadata.name, 'example-com-trainer-v1');
  assert.equal(JSON.parse(JSON.stringify(d)).kind, 'Karta');
  // A definition given as an object compiles the same, whatever its key order.
  const again = wl.compile(d.toJSON());
  assert.deepEqual(again.resolve(TRAINER), d.resolve(TRAINER));
  const reversed = (v) => (Array.isArray(v) ? v.map(reversed) : v !== null && typeof v === 'object'
    ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)])) : v);
  const flipped = wl.compile(reversed(d.toJSON()));
  assert.deepEqual(flipped.toJSON(), again.toJSON());
  assert.deepEqual(flipped.resolve(TRAINER), d.resolve(TRAINER));
  assert.equal(new wl.Definition(reversed(d.toJSON()), { maxSteps: 5000 }).limits.maxSteps, 5000);
  assert.deepEqual(d.status(TRAINER).matchedStatuses, ['Running']);
  assert.equal(String(d), '[object Definition]');
});

test('Definition from the catalog: update, suspend, resume, pods, gang groups', () => {
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  assert.ok(def instanceof wl.Definition);
  assert.equal(def.origin, 'catalog');
  assert.equal(def.canSuspend, true);
  assert.deepEqual(def.components, ['jobset', 'replicatedjob']);

  const resolved = def.resolve(JOBSET);
  const template = structuredClone(resolved.components[1].instances[1].podTemplate);
  template.spec.schedulerName = 'kai-scheduler';
  const out = def.update(JOBSET, { components: { replicatedjob: { podTemplateSpecs: { worker: template } } } });
  assert.deepEqual(out.patch, [{
    op: 'add', path: '/spec/replicatedJobs/1/template/spec/template/spec/schedulerName', value: 'kai-scheduler',
  }]);
  assert.equal(out.object.spec.replicatedJobs[1].template.spec.template.spec.schedulerName, 'kai-scheduler');
  assert.equal(JOBSET.spec.replicatedJobs[1].template.spec.template.spec.schedulerName, undefined);

  const suspended = def.suspend(JOBSET);
  assert.equal(suspended.object.spec.suspend, true);
  const resumed = def.resume(suspended.object);
  assert.equal(resumed.object.spec.suspend, false);

  const attribution = def.attributePods(JOBSET, PODS.items);
  assert.equal(attribution.pods[2].instance, 'worker');
  assert.equal(def.attributePods(null, PODS).pods.length, PODS.items.length);
  const gangs = def.gangGroups(JOBSET, PODS_TEXT);
  assert.ok(Array.isArray(gangs.groups) && gangs.groups.length > 0);
});

test('update with mode merge keeps the rest and the key order', () => {
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  const partial = { spec: { containers: [{ name: 'trainer', image: 'ghcr.io/example/llama-trainer:1.5' }] } };
  const out = def.update(JOBSET, { mode: 'merge', components: { replicatedjob: { podTemplateSpecs: { worker: partial } } } });
  assert.deepEqual(out.patch, [{
    op: 'replace', path: '/spec/replicatedJobs/1/template/spec/template/spec/containers/0/image',
    value: 'ghcr.io/example/llama-trainer:1.5',
  }]);
  const worker = out.object.spec.replicatedJobs[1].template.spec.template.spec;
  assert.deepEqual(worker.containers[0].resources.limits, { 'nvidia.com/gpu': '4' });
  // The object's keys in its own order (deepEqual ignores order; keys do not).
  assert.deepEqual(Object.keys(out.object), Object.keys(JOBSET));
  assert.deepEqual(Object.keys(out.object), ['apiVersion', 'kind', 'metadata', 'spec', 'status']);
  assert.deepEqual(Object.keys(worker), ['restartPolicy', 'containers']);
  assert.deepEqual(Object.keys(worker.containers[0]), ['name', 'image', 'resources']);
  const unsorted = { kind: 'JobSet', apiVersion: 'jobset.x-k8s.io/v1alpha2', metadata: { name: 'j' }, spec: { suspend: false, replicatedJobs: [] } };
  assert.deepEqual(Object.keys(def.suspend(unsorted).object), ['kind', 'apiVersion', 'metadata', 'spec']);
  assert.throws(() => def.update(JOBSET, { mode: 'strategic' }), (e) => e.code === 'usage');
});

test('explainStatus', () => {
  const def = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  const explanation = def.explainStatus(JOBSET);
  assert.equal(typeof explanation, 'object');
  assert.deepEqual(JSON.parse(JSON.stringify(explanation)), explanation);
  assert.ok(JSON.stringify(explanation).includes('Running'));
  assert.throws(() => def.explainStatus(42), TypeError);
});

test('Catalog: bundled, custom, lookup, get, definitions, size, resolve', () => {
  const sources = wl.catalogSources();
  const c = new wl.Catalog();
  assert.equal(c.size, Object.keys(sources).length);
  assert.equal(c.definitions().length, c.size);
  const names = c.definitions().map((d) => d.name);
  assert.deepEqual(names, [...names].sort());
  assert.equal(c.get('jobset-x-k8s-io-jobset-v1alpha2').name, 'jobset-x-k8s-io-jobset-v1alpha2');
  assert.equal(c.get('nope'), null);
  assert.equal(c.lookup('example.com/v1', 'Trainer'), null);
  assert.equal(c.lookupObject(JOBSET).name, 'jobset-x-k8s-io-jobset-v1alpha2');
  assert.throws(() => c.lookupObject(TRAINER), wl.NoDefinitionError);

  c.add(TRAINER_TEXT);
  assert.equal(c.size, Object.keys(sources).length + 1);
  assert.equal(c.lookup('example.com/v1', 'Trainer').name, 'example-com-trainer-v1');
  assert.equal(c.resolve(TRAINER).totals.resources.gpu, 16);
  assert.equal(c.resolve(JOBSET, PODS).totals.resources.gpu, 12);

  const empty = new wl.Catalog({ bundled: false, definitions: [wl.compile(TRAINER_TEXT)] });
  assert.equal(empty.size, 1);
  assert.equal(empty.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet'), null);
  empty.add({ ...wl.compile(TRAINER_TEXT).toJSON(), metadata: { name: 'renamed' } });
  assert.equal(empty.size, 1); // same root GVK: replaced
  assert.equal(empty.definitions()[0].name, 'renamed');
  assert.equal(String(empty), '[object Catalog]');

  // A catalog's limits: the engine's, for the catalog and the sources added.
  assert.deepEqual(c.limits, wl.defaultLimits());
  const tight = new wl.Catalog({ limits: { maxSteps: 50000 }, definitions: [TRAINER_TEXT] });
  assert.equal(tight.limits.maxSteps, 50000);
  assert.equal(tight.lookup('example.com/v1', 'Trainer').limits.maxSteps, 50000);
  assert.equal(tight.get('jobset-x-k8s-io-jobset-v1alpha2').limits.maxSteps, 50000);
  assert.equal(tight.resolve(JOBSET).totals.resources.gpu, 12);
  const small = new wl.Catalog({ bundled: false, definitions: [wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet')], limits: { maxInputBytes: 100 } });
  assert.throws(() => small.resolve(JOBSET_TEXT), (e) => e instanceof wl.LimitError && e.limit === 'maxInputBytes' && /JobSet|100/.test(e.message));
  assert.throws(() => small.lookupObject(JOBSET_TEXT), wl.LimitError);
  // The bundled catalog evaluates with the catalog's limits too, but its
  // trusted texts are never refused by tight reading limits.
  const tiny = new wl.Catalog({ limits: { maxInputBytes: 100 } });
  assert.ok(tiny.size > 30);
  assert.equal(tiny.get('jobset-x-k8s-io-jobset-v1alpha2').limits.maxInputBytes, 100);
  assert.throws(() => tiny.resolve(JOBSET_TEXT), (e) => e instanceof wl.LimitError && e.limit === 'maxInputBytes');
  assert.throws(() => new wl.Catalog({ limits: { nope: 1 } }), wl.UsageError);
});

test('compile, compileAll and validate', () => {
  const two = `${TRAINER_TEXT}---\n${TRAINER_TEXT.replace('example-com-trainer-v1', 'second').replaceAll('Trainer', 'Other')}`;
  const all = wl.compileAll(two);
  assert.deepEqual(all.map((d) => d.name), ['example-com-trainer-v1', 'second']);
  assert.throws(() => wl.compile(two), wl.UsageError);
  const v = wl.validate(two);
  assert.deepEqual(v.map((r) => [r.name, r.valid]), [['example-com-trainer-v1', true], ['second', true]]);
  assert.deepEqual(v.map((r) => r.gvk), ['example.com/v1, Kind=Trainer', 'example.com/v1, Kind=Other']);
  // Objects too: one definition, or a list of them.
  const objs = wl.parse(two);
  assert.deepEqual(wl.validate(objs[0]).map((r) => r.valid), [true]);
  const list = { apiVersion: 'run.ai/v1alpha1', kind: 'KartaList', items: objs };
  assert.deepEqual(wl.compileAll(list).map((d) => d.name), ['example-com-trainer-v1', 'second']);
  assert.throws(() => wl.compile(list), wl.UsageError);
  assert.deepEqual(new wl.Catalog({ bundled: false, definitions: [list] }).size, 2);
  const broken = TRAINER_TEXT.replace('.status.phase', '.status.phase | range(3)');
  const [r] = wl.validate(broken);
  assert.equal(r.valid, false);
  assert.ok(r.findings.some((f) => f.code === 'jq-denied'));
});

test('evaluate, parse, limits, defaultLimits', () => {
  assert.deepEqual(wl.evaluate('.a + 1', { a: 1 }), [2]);
  assert.deepEqual(wl.evaluate('.'), [null]);
  assert.deepEqual(wl.evaluate('.[]', [1, 'x', null, { k: [true] }]), [1, 'x', null, { k: [true] }]);
  assert.deepEqual(wl.evaluate('{b: 2, a: 1} | keys_unsorted', null), [['a', 'b']]);
  assert.deepEqual(wl.parse('a: 1\n---\nb: [x]\n'), [{ a: 1 }, { b: ['x'] }]);
  assert.deepEqual(wl.parse(new TextEncoder().encode('{"a": 1}')), [{ a: 1 }]);
  const d = wl.defaultLimits();
  assert.equal(typeof d.maxSteps, 'number');
  assert.deepEqual(wl.limits(), d);
  assert.deepEqual(wl.limits({ maxSteps: 7 }), { ...d, maxSteps: 7 });
  assert.throws(() => wl.limits({ maxStep: 7 }), (e) => e instanceof wl.UsageError && /maxStep/.test(e.message));
  assert.throws(() => wl.limits({ maxSteps: -1 }), wl.UsageError);
  assert.throws(() => wl.evaluate('[range(100)] | length', null, { maxSteps: 10 }),
    (e) => e instanceof wl.WorkloadLensError && ['limit', 'jq_compile'].includes(e.code));
});

test('results are fresh objects: mutating one does not affect the next', () => {
  const def = wl.compile(TRAINER_TEXT);
  const w = def.warnings;
  w.push('x');
  assert.deepEqual(def.warnings, []);
  const comps = def.components;
  comps.push('x');
  assert.deepEqual(def.components, ['trainer']);
  const l = def.limits;
  l.maxSteps = 1;
  assert.notEqual(def.limits.maxSteps, 1);
});

test('wrong argument types are TypeErrors', () => {
  assert.throws(() => wl.resolve(42), TypeError);
  assert.throws(() => wl.resolve(null), TypeError);
  assert.throws(() => wl.resolve(JOBSET, { pods: 5 }), TypeError);
  assert.throws(() => wl.resolve(JOBSET, { definitions: 'x' }), TypeError);
  assert.throws(() => wl.compile(42), TypeError);
  assert.throws(() => wl.compile([TRAINER_TEXT]), TypeError);
  assert.throws(() => wl.evaluate(42), TypeError);
  assert.throws(() => wl.parse({}), TypeError);
  assert.throws(() => wl.limits('x'), TypeError);
  assert.throws(() => wl.lookup(1, 'x'), TypeError);
  assert.throws(() => new wl.Catalog({ bundled: 'yes' }), TypeError);
  assert.throws(() => wl.compile(TRAINER_TEXT).update(TRAINER, 'x'), TypeError);
  assert.throws(() => wl.compile(TRAINER_TEXT).attributePods(TRAINER, 7), TypeError);
  assert.throws(() => wl.compile(TRAINER_TEXT).attributePods(TRAINER, null), TypeError);
});
