// The engine's live-cluster calls, without a server: which served type a
// token names, the covered types, the definitions stored in a cluster, the
// listing (from the raw pages of list responses, items without kind as the
// API server writes them), the owner kinds to fetch, pods attributed through
// the owners given among them, and usage. workload-lens/kube is built on
// these (its tests against a real server: tests/kube.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as wl from 'workload-lens';
import { TRAINER_TEXT, read } from '../testing/fixtures.mjs';

const catalog = new wl.Catalog();

const res = (group, version, kind, plural, extra = {}) => ({
  group, version, kind, plural, singular: kind.toLowerCase(), shortNames: [], namespaced: true, preferred: true, ...extra,
});
const SERVED = [
  res('', 'v1', 'Pod', 'pods', { shortNames: ['po'] }),
  res('', 'v1', 'ConfigMap', 'configmaps', { shortNames: ['cm'] }),
  res('batch', 'v1', 'Job', 'jobs'),
  res('jobset.x-k8s.io', 'v1alpha2', 'JobSet', 'jobsets'),
  res('jobset.x-k8s.io', 'v1alpha1', 'JobSet', 'jobsets', { preferred: false }),
  res('leaderworkerset.x-k8s.io', 'v1', 'LeaderWorkerSet', 'leaderworkersets', { shortNames: ['lws'] }),
  res('batch.volcano.sh', 'v1alpha1', 'Job', 'jobs'),
  res('run.ai', 'v1alpha1', 'Karta', 'kartas', { namespaced: false, shortNames: ['krt'] }),
];

test('findType: kind, plural, singular, short name, plural.group, kind.version.group', () => {
  for (const t of ['JobSet', 'jobsets', 'jobset', 'JOBSETS', 'jobsets.jobset.x-k8s.io']) {
    const r = catalog.findType(t, SERVED);
    assert.deepEqual([r.group, r.version, r.kind], ['jobset.x-k8s.io', 'v1alpha2', 'JobSet'], t);
  }
  assert.equal(catalog.findType('JobSet.v1alpha1.jobset.x-k8s.io', SERVED).version, 'v1alpha1');
  assert.equal(catalog.findType('lws', SERVED).kind, 'LeaderWorkerSet');
  // A built-in group wins over a CRD of the same name, as in kubectl.
  assert.equal(catalog.findType('jobs', SERVED).group, 'batch');
  assert.deepEqual(Object.keys(catalog.findType('po', SERVED)).sort(),
    ['group', 'kind', 'namespaced', 'plural', 'preferred', 'shortNames', 'singular', 'version']);
});

test('findType: unknown -> UsageError, served but uncovered -> NoDefinitionError', () => {
  assert.throws(() => catalog.findType('nosuch', SERVED), (e) => e instanceof wl.UsageError && /does not serve a type named 'nosuch'/.test(e.message));
  assert.throws(() => catalog.findType('', SERVED), wl.UsageError);
  assert.throws(() => catalog.findType('cm', SERVED), (e) => e instanceof wl.NoDefinitionError && /ConfigMap/.test(e.message));
  assert.throws(() => catalog.findType('jobsets', [{ kind: 'JobSet' }]), wl.UsageError);
  assert.throws(() => catalog.findType('jobsets', 'x'), TypeError);
  assert.throws(() => catalog.findType(3, SERVED), TypeError);
});

test('coveredTypes: one per group and kind, the preferred version', () => {
  const covered = catalog.coveredTypes(SERVED).map((r) => `${r.kind}.${r.version}.${r.group}`);
  assert.ok(covered.includes('JobSet.v1alpha2.jobset.x-k8s.io'));
  assert.ok(!covered.includes('JobSet.v1alpha1.jobset.x-k8s.io'));
  assert.ok(covered.includes('Pod.v1.'));
  assert.ok(!covered.some((c) => c.startsWith('ConfigMap') || c.startsWith('Karta')));
  assert.equal(new wl.Catalog({ bundled: false }).coveredTypes(SERVED).length, 0);
});

// A Karta as `kubectl get kartas -o json` lists it: server-set metadata and status.
const trainerKarta = (name, extra = {}) => {
  const k = wl.parse(TRAINER_TEXT)[0];
  k.metadata = { name, uid: `uid-${name}`, resourceVersion: '7', managedFields: [{ manager: 'kubectl' }] };
  k.status = {};
  return { ...k, ...extra };
};
const KARTA_PAGE = JSON.stringify({
  apiVersion: 'run.ai/v1alpha1',
  kind: 'KartaList',
  metadata: { resourceVersion: '9' },
  items: [trainerKarta('b-trainer'), trainerKarta('a-trainer'),
    { ...trainerKarta('broken'), spec: { structureDefinition: { rootComponent: { name: 'x' } } } }],
});
const TRAINER_PAGE = JSON.stringify({
  apiVersion: 'example.com/v1',
  kind: 'TrainerList',
  metadata: {},
  items: [{
    metadata: { name: 't', namespace: 'ns', uid: 'u-t', creationTimestamp: '2026-01-02T00:00:00Z' },
    spec: { replicas: 2, template: { spec: { containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': 8 } } }] } } },
    status: { phase: 'Running' },
  }],
});

test('withClusterDefinitions: cluster definitions over the catalog, warnings for invalid and collisions', () => {
  const { catalog: c, warnings } = catalog.withClusterDefinitions([KARTA_PAGE]);
  assert.ok(c instanceof wl.Catalog);
  assert.notEqual(c, catalog);
  const d = c.lookup('example.com/v1', 'Trainer');
  assert.equal(d.name, 'a-trainer');
  assert.equal(d.origin, 'cluster');
  assert.deepEqual(warnings.map((w) => [w.reason, w.object]), [['collision', 'Karta/b-trainer'], ['invalid', 'Karta/broken']]);
  assert.ok(warnings.every((w) => typeof w.message === 'string' && w.message.length > 0));
  // The base catalog is unchanged.
  assert.equal(catalog.lookup('example.com/v1', 'Trainer'), null);
  // An array of objects, or none.
  assert.equal(catalog.withClusterDefinitions([trainerKarta('x')]).catalog.lookup('example.com/v1', 'Trainer').name, 'x');
  assert.deepEqual(catalog.withClusterDefinitions([]).warnings, []);
});

test("withClusterDefinitions: the catalog's own (user) definitions stay over the cluster's", () => {
  const mine = new wl.Catalog({ definitions: [TRAINER_TEXT.replace('example-com-trainer-v1', 'mine')] });
  const { catalog: c } = mine.withClusterDefinitions(KARTA_PAGE);
  assert.equal(c.lookup('example.com/v1', 'Trainer').name, 'mine');
  assert.equal(c.lookup('example.com/v1', 'Trainer').origin, 'user');
  // Limits carry over.
  const small = new wl.Catalog({ limits: { maxSteps: 12345 } });
  assert.equal(small.withClusterDefinitions([]).catalog.limits.maxSteps, 12345);
});

test('listWorkloads: raw pages, cluster origin, options', () => {
  const { catalog: c } = catalog.withClusterDefinitions([KARTA_PAGE]);
  const rows = c.listWorkloads([TRAINER_PAGE]);
  assert.equal(rows.length, 1);
  const [r] = rows;
  assert.deepEqual({ ...r }, {
    name: 't', namespace: 'ns', uid: 'u-t', apiVersion: 'example.com/v1', kind: 'Trainer',
    created: '2026-01-02T00:00:00Z', definition: 'a-trainer', origin: 'cluster', phase: 'Running',
    statuses: ['Running'], pods: 2, gpus: 16,
  });
  assert.equal(c.listWorkloads([TRAINER_PAGE], { phases: ['running'] }).length, 1);
  assert.equal(c.listWorkloads([TRAINER_PAGE], { phases: ['Failed'] }).length, 0);
  // Without the definition, the row carries the error.
  const [e] = catalog.listWorkloads(TRAINER_PAGE);
  assert.equal(e.error.code, 'no_definition');
  assert.throws(() => c.listWorkloads([TRAINER_PAGE], { phases: 'Running' }), TypeError);
  assert.throws(() => c.listWorkloads([TRAINER_PAGE], { topLevelOnly: 1 }), TypeError);
  assert.throws(() => c.listWorkloads(3), TypeError);
});

const owned = (apiVersion, kind, name, uid, owner, extra = {}) => ({
  apiVersion,
  kind,
  metadata: {
    name, namespace: 'ns', uid, creationTimestamp: '2026-01-01T00:00:00Z',
    ...(owner ? { ownerReferences: [{ apiVersion: owner[0], kind: owner[1], name: owner[2], uid: owner[3], controller: true }] } : {}),
  },
  ...extra,
});

test('listWorkloads topLevelOnly: objects a covered type controls are left out', () => {
  const jobs = {
    apiVersion: 'batch/v1',
    kind: 'JobList',
    items: [
      owned(undefined, undefined, 'child', 'u-j1', ['jobset.x-k8s.io/v1alpha2', 'JobSet', 'js', 'u-js']),
      owned(undefined, undefined, 'alone', 'u-j2', null),
    ].map(({ apiVersion: _a, kind: _k, ...o }) => ({ ...o, spec: { template: { spec: { containers: [] } } } })),
  };
  const text = JSON.stringify(jobs);
  assert.deepEqual(catalog.listWorkloads([text]).map((r) => r.name).sort(), ['alone', 'child']);
  assert.deepEqual(catalog.listWorkloads([text], { topLevelOnly: true }).map((r) => r.name), ['alone']);
  assert.equal(catalog.listWorkloads([text]).every((r) => r.kind === 'Job'), true);
});

test('missingOwners: the controller kinds to fetch next, without skip', () => {
  const pods = JSON.stringify({
    apiVersion: 'v1',
    kind: 'PodList',
    items: [
      owned(undefined, undefined, 'p1', 'u-p1', ['batch/v1', 'Job', 'j', 'u-j']),
      owned(undefined, undefined, 'p2', 'u-p2', ['apps/v1', 'ReplicaSet', 'rs', 'u-rs']),
      owned(undefined, undefined, 'p3', 'u-p3', ['jobset.x-k8s.io/v1alpha2', 'JobSet', 'js', 'u-js']),
    ],
  });
  const skip = [{ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet' }];
  assert.deepEqual(wl.missingOwners([pods], skip), [
    { apiVersion: 'apps/v1', kind: 'ReplicaSet' }, { apiVersion: 'batch/v1', kind: 'Job' }]);
  const jobs = JSON.stringify({ apiVersion: 'batch/v1', kind: 'JobList', items: [owned(undefined, undefined, 'j', 'u-j', ['jobset.x-k8s.io/v1alpha2', 'JobSet', 'js', 'u-js'])] });
  assert.deepEqual(wl.missingOwners([pods, jobs], skip), [{ apiVersion: 'apps/v1', kind: 'ReplicaSet' }]);
  assert.deepEqual(wl.missingOwners([]), []);
  assert.throws(() => wl.missingOwners([pods], 'x'), TypeError);
});

test('resolve, resolveInNamespace and gangGroups with pages of pods and owners: ownership through the chain', () => {
  const jobset = wl.parse(read('examples', 'jobset.yaml'))[0];
  jobset.metadata.uid = 'u-js';
  const ns = jobset.metadata.namespace;
  const pods = wl.parse(read('examples', 'jobset-pods.yaml'))[0].items;
  const first = pods[0];
  // A stray: the JobSet's labels, but its controller is a Job no JobSet owns.
  const stray = structuredClone(first);
  stray.metadata.name = 'stray';
  stray.metadata.uid = 'u-stray';
  stray.metadata.ownerReferences = [{ apiVersion: 'batch/v1', kind: 'Job', name: 'other', uid: 'u-other', controller: true }];
  const other = { metadata: { name: 'other', namespace: ns, uid: 'u-other' } };
  const podPage = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [...pods, stray] });
  const jobPage = JSON.stringify({ apiVersion: 'batch/v1', kind: 'JobList', items: [other] });

  const withOwners = catalog.resolve(jobset, [podPage, jobPage]);
  const strays = (withOwners.strayPods ?? []).map((p) => p.name);
  assert.ok(strays.includes('stray'), JSON.stringify(strays));
  // Without the owner, the chain cannot be followed and the labels decide.
  const labelsOnly = catalog.resolve(jobset, [podPage]);
  assert.ok(!(labelsOnly.strayPods ?? []).map((p) => p.name).includes('stray'));
  // One text is the same as the existing pods argument.
  assert.deepEqual(catalog.resolve(jobset, [podPage]), catalog.resolve(jobset, podPage));

  // A whole namespace: another workload's pod (no look-alike) is left out,
  // the look-alike stays a stray. Live, the JobSet's pods are its own
  // through their Jobs (a pod with no controller would be a workload of its
  // own).
  const theirs = structuredClone(stray);
  theirs.metadata = { name: 'theirs', namespace: ns, uid: 'u-theirs', ownerReferences: stray.metadata.ownerReferences };
  const chained = pods.map((p, i) => {
    const c = structuredClone(p);
    c.metadata.ownerReferences = [{ apiVersion: 'batch/v1', kind: 'Job', name: `j${i}`, uid: `u-j${i}`, controller: true }];
    return c;
  });
  const jobs = pods.map((_, i) => ({
    apiVersion: 'batch/v1', kind: 'Job',
    metadata: {
      name: `j${i}`, namespace: ns, uid: `u-j${i}`,
      ownerReferences: [{ apiVersion: jobset.apiVersion, kind: 'JobSet', name: jobset.metadata.name, uid: 'u-js', controller: true }],
    },
  }));
  const nsPage = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: [...chained, stray, theirs] });
  const ownersPage = JSON.stringify({ apiVersion: 'batch/v1', kind: 'JobList', items: [other, ...jobs] });
  const inNs = catalog.resolveInNamespace(jobset, [nsPage, ownersPage]);
  assert.deepEqual(inNs.strayPods.map((p) => p.name), ['stray']);
  assert.deepEqual(inNs.totals, withOwners.totals);
  assert.ok(!(catalog.resolve(jobset, [nsPage, ownersPage]).strayPods ?? []).every((p) => p.name === 'stray'));

  const gang = catalog.gangGroups(jobset, [podPage, jobPage]);
  const members = gang.groups.flatMap((g) => g.members);
  assert.ok(!members.includes('stray'));
  assert.deepEqual(catalog.gangGroups(jobset, podPage), wl.lookup(jobset.apiVersion, jobset.kind).gangGroups(jobset, podPage));
});

test('usage: totals by namespace and by type', () => {
  const rows = [
    { name: 'a', namespace: 'x', apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', statuses: [], pods: 2, gpus: 8 },
    { name: 'b', namespace: 'y', apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', statuses: [], pods: 1, gpus: 1 },
    { name: 'c', namespace: 'y', apiVersion: 'apps/v1', kind: 'Deployment', statuses: [], pods: 3, gpus: 0 },
    { name: 'd', namespace: 'y', apiVersion: 'v1', kind: 'Pod', statuses: [], pods: 0, gpus: 0, error: { code: 'x' } },
  ];
  const u = wl.usage(rows);
  assert.deepEqual(u.total, {
    key: '', workloads: 4, pods: 6, gpus: 9, inactive: 0, inactiveGpus: 0,
    heldPods: 0, heldGpus: 0, pendingGpus: 0, errors: 1,
  });
  assert.equal(u.podsRead, false);
  // A suspended workload declares nothing; what its pods hold is held.
  const held = wl.usage([
    { ...rows[0], statuses: ['Suspended'], live: { pods: 1, ready: 0, gpus: 4, pendingGpus: 4 } },
    rows[1],
  ]);
  assert.deepEqual(
    [held.total.gpus, held.total.inactive, held.total.inactiveGpus, held.total.heldGpus, held.total.pendingGpus],
    [1, 1, 8, 4, 4],
  );
  assert.equal(held.podsRead, true);
  assert.deepEqual(u.byNamespace.map((r) => [r.key, r.gpus]), [['x', 8], ['y', 1]]);
  assert.deepEqual(u.byType.map((r) => r.key), ['JobSet.jobset.x-k8s.io', 'Deployment.apps', 'Pod']);
  assert.deepEqual(wl.usage([]).total.workloads, 0);
  assert.throws(() => wl.usage({}), TypeError);
  assert.throws(() => wl.usage([{ name: 'x' }]), wl.UsageError);
});

test('several inputs are bounded together by maxClusterBytes (the engine\'s rule, as in Python)', () => {
  const jobset = wl.parse(read('examples', 'jobset.yaml'))[0];
  const pods = wl.parse(read('examples', 'jobset-pods.yaml'))[0].items;
  const page = JSON.stringify({ apiVersion: 'v1', kind: 'PodList', items: pods });
  // Each pod counted as its compact JSON (kind and apiVersion from the list).
  const bytes = pods.reduce((n, p) => n + JSON.stringify({ ...p, kind: 'Pod', apiVersion: 'v1' }).length, 0);
  const limited = new wl.Catalog({ limits: { maxClusterBytes: 10 * bytes + Math.floor(bytes / 2) } });
  const ten = Array.from({ length: 10 }, () => page);
  assert.equal(limited.resolveInNamespace(jobset, ten).kind, 'ResolvedWorkload');
  for (const call of [
    () => limited.resolveInNamespace(jobset, [...ten, page]),
    () => limited.resolve(jobset, [...ten, page]),
    () => limited.gangGroups(jobset, [...ten, page]),
  ]) {
    assert.throws(call, (e) => e instanceof wl.LimitError && e.limit === 'maxClusterBytes' && /input 11 went over/.test(e.message));
  }
});
