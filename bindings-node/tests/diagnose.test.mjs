// diagnose: why a workload is where it is, in ranked findings, from its pods,
// events and related objects (Definition, Catalog and the module function),
// on states recorded from real controllers, schedulers and kubelets
// (definitions/fixtures/*/recorded/).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import * as k8s from '@kubernetes/client-node';
import * as wl from 'workload-lens';
import { read } from '../testing/fixtures.mjs';

const STEP = ['definitions', 'fixtures', 'core-pod-v1', 'recorded', 'core-pod-crashloop', '02-crashlooping'];
const recorded = (ext) => {
  const p = [...STEP];
  p[p.length - 1] += ext;
  return read(...p);
};
const OBJECT_TEXT = recorded('.yaml');
const PODS_TEXT = recorded('.pods.yaml');
const EVENTS_TEXT = recorded('.events.yaml');
const OBJECT = wl.parse(OBJECT_TEXT)[0];
const PODS = wl.parse(PODS_TEXT)[0].items;
const EVENTS = wl.parse(EVENTS_TEXT)[0].items;

const JOB = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name: 'sweep', namespace: 'ml', uid: 'j-2', labels: { 'kueue.x-k8s.io/queue-name': 'team-a' } },
  spec: { suspend: true, parallelism: 2, completions: 2, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } },
  status: { conditions: [{ type: 'Suspended', status: 'True', reason: 'JobSuspended', message: 'Job suspended' }] },
};
const KUEUE_WORKLOAD = {
  apiVersion: 'kueue.x-k8s.io/v1beta2',
  kind: 'Workload',
  metadata: {
    name: 'job-sweep-3f2a1',
    namespace: 'ml',
    ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'sweep', uid: 'j-2', controller: true }],
  },
  spec: { queueName: 'team-a', podSets: [{ name: 'main', count: 2 }] },
  status: {
    conditions: [{ type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'insufficient unused quota for nvidia.com/gpu' }],
  },
};

test('a recorded crash loop is named first, with the cluster\'s evidence', () => {
  const d = wl.diagnose(OBJECT_TEXT, { pods: PODS_TEXT, events: EVENTS_TEXT });
  assert.deepEqual(Object.keys(d), ['workload', 'statuses', 'findings']);
  assert.equal(d.workload.kind, 'Pod');
  assert.equal(d.workload.name, 'vllm-worker');
  assert.deepEqual(d.statuses, ['Degraded']);
  const [first] = d.findings;
  assert.equal(first.code, 'crash-loop');
  assert.equal(first.severity, 'blocking');
  assert.equal(first.message, 'container vllm of pod vllm-worker crash-loops: last exit Error, exit code 1');
  assert.equal(first.evidence[0].field, 'status.containerStatuses[vllm].lastState.terminated');
  assert.match(first.evidence[0].text, /restarts 1/);
  // The kubelet's BackOff event, from the recorded events, with its time.
  const backoff = first.evidence.find((e) => e.field === 'event BackOff');
  assert.equal(backoff?.object, 'Pod/vllm-worker');
  assert.ok(backoff.time);
  assert.equal(first.moreEvidence, undefined);
});

test('every way in gives the same diagnosis', () => {
  const want = wl.diagnose(OBJECT_TEXT, { pods: PODS_TEXT, events: EVENTS_TEXT });
  const pod = wl.lookup('v1', 'Pod');
  const enc = (t) => new TextEncoder().encode(t);
  const same = [
    pod.diagnose(OBJECT, { pods: PODS, events: EVENTS }),
    pod.diagnose(OBJECT, { pods: PODS, events: EVENTS, related: [] }),
    pod.diagnose(enc(OBJECT_TEXT), { pods: enc(PODS_TEXT), events: Buffer.from(EVENTS_TEXT) }),
    pod.diagnose(OBJECT, { pods: { kind: 'PodList', items: PODS }, events: { kind: 'EventList', items: EVENTS } }),
    pod.diagnose(OBJECT, { pods: PODS, events: EVENTS, related: undefined }),
    new wl.Catalog().diagnose(OBJECT, { pods: PODS, events: EVENTS }),
    wl.diagnose(OBJECT, { pods: PODS, events: EVENTS, definitions: [pod] }),
    wl.diagnose(OBJECT, { pods: PODS, events: EVENTS, limits: { maxSteps: 1e6 } }),
  ];
  same.forEach((got, i) => assert.deepEqual(got, want, `way ${i}`));
});

test('without events or pods it reads what it has', () => {
  const noEvents = wl.diagnose(OBJECT, { pods: PODS });
  assert.equal(noEvents.findings[0].code, 'crash-loop');
  assert.ok(!noEvents.findings[0].evidence.some((e) => e.field === 'event BackOff'));
  const paused = { ...JOB, metadata: { name: 'paused', namespace: 'ml', uid: 'j-3' } };
  for (const d of [wl.diagnose(paused), wl.diagnose(paused, {}), wl.diagnose(paused, null), wl.lookup('batch/v1', 'Job').diagnose(paused)]) {
    assert.deepEqual(d.findings.map((f) => f.code), ['suspended']);
    assert.equal(d.findings[0].action, 'resume it to run it');
  }
});

test('related Kueue Workloads say why it is not admitted', () => {
  const job = wl.lookup('batch/v1', 'Job');
  const d = job.diagnose(JOB, { related: [KUEUE_WORKLOAD] });
  assert.deepEqual(d.findings.map((f) => f.code), ['not-admitted', 'suspended']);
  assert.equal(d.findings[0].evidence[0].object, 'Workload/job-sweep-3f2a1');
  assert.match(d.findings[0].message, /team-a/);
  assert.deepEqual(job.diagnose(JOB, { related: JSON.stringify({ kind: 'List', items: [KUEUE_WORKLOAD] }) }), d);
  assert.deepEqual(new wl.Catalog().diagnose(JOB, { related: { kind: 'List', items: [KUEUE_WORKLOAD] } }), d);
});

test('@kubernetes/client-node models are read by their wire names', () => {
  const event = new k8s.CoreV1Event();
  event.apiVersion = 'v1';
  event.kind = 'Event';
  event.metadata = Object.assign(new k8s.V1ObjectMeta(), { name: 'e1', namespace: OBJECT.metadata.namespace });
  event.involvedObject = Object.assign(new k8s.V1ObjectReference(), {
    kind: 'Pod', name: 'vllm-worker', namespace: OBJECT.metadata.namespace, uid: OBJECT.metadata.uid,
  });
  event.reason = 'BackOff';
  event.type = 'Warning';
  event.message = 'Back-off restarting failed container vllm';
  event.count = 7;
  event.lastTimestamp = new Date('2026-12-05T18:40:00Z');
  const list = new k8s.CoreV1EventList();
  list.apiVersion = 'v1';
  list.kind = 'EventList';
  list.items = [event];
  const d = wl.diagnose(OBJECT, { pods: PODS, events: list });
  assert.deepEqual(wl.diagnose(OBJECT, { pods: PODS, events: [event] }), d);
  const backoff = d.findings[0].evidence.filter((e) => e.field === 'event BackOff');
  assert.deepEqual(backoff, [{
    object: 'Pod/vllm-worker', field: 'event BackOff', text: 'Back-off restarting failed container vllm (x7)', time: '2026-12-05T18:40:00.000Z',
  }]);
});

test('arguments are checked', () => {
  const pod = wl.lookup('v1', 'Pod');
  assert.throws(() => pod.diagnose(OBJECT, { pods: 3 }), { name: 'TypeError', message: /^pods must be/ });
  assert.throws(() => pod.diagnose(OBJECT, { events: 3 }), { name: 'TypeError', message: /^events must be an array of Event objects, a list object \(List, EventList\).*not number/ });
  assert.throws(() => new wl.Catalog().diagnose(OBJECT, { related: true }), { name: 'TypeError', message: /^related must be .*not boolean/ });
  // The options are an object: pods given where the options go are not taken for options.
  assert.throws(() => pod.diagnose(OBJECT, PODS), { name: 'TypeError', message: /options of diagnose must be an object \{pods, events, related\}, not an array/ });
  assert.throws(() => pod.diagnose(OBJECT, PODS_TEXT), { name: 'TypeError', message: /not string/ });
  assert.throws(() => pod.diagnose(OBJECT, { kind: 'PodList', items: PODS }), { name: 'TypeError', message: /unknown option "kind" of diagnose: the options are \{pods, events, related\}/ });
  assert.throws(() => pod.diagnose(OBJECT, { event: EVENTS }), { name: 'TypeError', message: /unknown option "event"/ });
  assert.throws(() => pod.diagnose(OBJECT, { definitions: [] }), { name: 'TypeError', message: /unknown option "definitions"/ });
  assert.throws(() => wl.diagnose(OBJECT, { evnts: [] }), { name: 'TypeError', message: /the options are \{pods, events, related, definitions, limits\}/ });
  assert.throws(() => wl.diagnose(OBJECT, { definitions: 'x' }), { name: 'TypeError', message: /^definitions must be an array/ });
  assert.throws(() => wl.diagnose(42), TypeError);
  assert.throws(() => pod.diagnose(OBJECT, { events: 'items: [' }), (e) => e instanceof wl.ParseError && e.location.line === 1);
  assert.throws(() => wl.diagnose({ apiVersion: 'example.com/v1', kind: 'Nothing', metadata: { name: 'x' } }), wl.NoDefinitionError);
  assert.throws(() => wl.diagnose(OBJECT, { limits: { maxInputBytes: 100000 }, events: `# ${'x'.repeat(100000)}\n[]` }),
    (e) => e instanceof wl.LimitError && e.limit === 'maxInputBytes');
});

test('every pod and event is charged to the step limit', () => {
  const job = wl.compile(wl.catalogSources()['batch-job-v1.yaml'], { maxSteps: 2000 });
  const obj = {
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'huge', namespace: 'ml', uid: 'j-7' },
    spec: { parallelism: 2000, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } },
  };
  const pods = Array.from({ length: 2000 }, (_, i) => ({
    metadata: {
      name: `huge-${i}`, namespace: 'ml', labels: { 'batch.kubernetes.io/job-name': 'huge' },
      ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'huge', uid: 'j-7', controller: true }],
    },
    status: { phase: 'Pending' },
  }));
  assert.throws(() => job.diagnose(obj, { pods }), (e) => e instanceof wl.LimitError && e.limit === 'maxSteps');
  const events = Array.from({ length: 5000 }, (_, i) => ({
    apiVersion: 'v1', kind: 'Event', metadata: { name: `e${i}`, namespace: 'ml' },
    involvedObject: { kind: 'Job', name: 'huge', namespace: 'ml', uid: 'j-7' }, reason: 'SuccessfulCreate', message: 'x',
  }));
  assert.throws(() => job.diagnose(obj, { events }), wl.LimitError);
});
