// workload-lens/kube against a real kube-apiserver with the seeded scenario
// of testing/live/README.md (which these tests hardcode). The live stage
// (`bash scripts/test.sh live`, scripts/live.sh) starts the server, seeds it
// and runs this file with KUBECONFIG (admin) and WORKLOAD_LENS_LIVE_DIR set;
// without them every test here is skipped (bindings-node/test.sh needs no
// server). By hand:
//   kc=$(bash testing/kube-apiserver/start.sh /tmp/kapi)
//   target/live/venv/bin/python testing/live/seed.py "$kc" --out /tmp/kapi/scenario.json
//   KUBECONFIG=$kc WORKLOAD_LENS_LIVE_DIR=/tmp/kapi node --test bindings-node/tests/kube.test.mjs
//   bash testing/kube-apiserver/stop.sh /tmp/kapi
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import https from 'node:https';
import { createServer } from 'node:net';
import { join } from 'node:path';

import { KubeConfig } from '@kubernetes/client-node';
import * as wl from 'workload-lens';
import {
  Cluster, ClusterError, ForbiddenError, NotFoundError, UnauthorizedError, UnreachableError,
} from 'workload-lens/kube';
import { BLOCKS, isLive, runExample } from '../testing/readme.mjs';

const DIR = process.env.WORKLOAD_LENS_LIVE_DIR;
const LIVE = Boolean(process.env.KUBECONFIG && DIR);
const skip = !LIVE && 'no live server: `bash scripts/test.sh live` runs these (KUBECONFIG and WORKLOAD_LENS_LIVE_DIR unset)';
if (!LIVE) console.log(`# kube.test.mjs skipped: ${skip}`);

const live = (name, fn) => test(name, { skip }, fn);

const admin = () => new Cluster();
const viewer = () => new Cluster({ kubeconfigPath: join(DIR, 'kubeconfig-viewer') });
const names = (rows) => rows.map((r) => r.name).sort();
const byName = (rows, n) => rows.find((r) => r.name === n);
const PAGES = Array.from({ length: 23 }, (_, i) => `page-${String(i).padStart(2, '0')}`);

live('the scenario is seeded', () => {
  assert.ok(existsSync(join(DIR, 'kubeconfig-viewer')));
  const uids = JSON.parse(readFileSync(join(DIR, 'scenario.json'), 'utf8'));
  assert.ok(uids['lens-train/JobSet/llama']);
});

live('types(): discovery as ApiResource objects, subresources left out, preferred versions marked', async () => {
  const types = await admin().types();
  const jobsets = types.filter((r) => r.group === 'jobset.x-k8s.io');
  assert.deepEqual(jobsets.map((r) => [r.version, r.preferred]).sort(), [['v1alpha1', false], ['v1alpha2', true]]);
  assert.deepEqual(jobsets.find((r) => r.preferred), {
    group: 'jobset.x-k8s.io', version: 'v1alpha2', kind: 'JobSet', plural: 'jobsets', singular: 'jobset',
    shortNames: [], namespaced: true, preferred: true,
  });
  assert.deepEqual(types.find((r) => r.kind === 'LeaderWorkerSet').shortNames, ['lws']);
  assert.equal(types.find((r) => r.kind === 'Karta').namespaced, false);
  const pods = types.find((r) => r.group === '' && r.plural === 'pods');
  assert.equal(pods.version, 'v1');
  assert.ok(types.every((r) => !r.plural.includes('/')), 'no subresources');
});

live('list one type in a namespace: rows from the engine, by namespace and name', async () => {
  const { workloads, warnings, forbidden } = await admin().list('jobsets', { namespace: 'lens-train' });
  assert.deepEqual(names(workloads), ['llama', 'old-api']);
  const llama = byName(workloads, 'llama');
  assert.equal(llama.namespace, 'lens-train');
  assert.equal(llama.apiVersion, 'jobset.x-k8s.io/v1alpha2');
  assert.equal(llama.origin, 'catalog');
  assert.deepEqual(llama.statuses, ['Running']);
  assert.equal(llama.pods, 5);
  assert.equal(llama.gpus, 12);
  assert.deepEqual(byName(workloads, 'old-api').statuses, ['Initializing']);
  assert.deepEqual(forbidden, []);
  // The broken Karta is reported on every call that reads the cluster's definitions.
  assert.ok(warnings.some((w) => w.reason === 'invalid' && w.object === 'Karta/lens-test-broken'));
  const bert = await admin().list('PyTorchJob', { namespace: 'lens-train' });
  assert.deepEqual(bert.workloads.map((r) => [r.name, r.pods, r.gpus]), [['bert', 4, 4]]);
  const lws = await admin().list('lws', { namespace: 'lens-serve' });
  assert.deepEqual(lws.workloads.map((r) => [r.name, r.pods, r.gpus]), [['vllm', 6, 6]]);
});

live('the namespace defaults to the context\'s (default: no workloads)', async () => {
  const c = admin();
  assert.equal(await c.namespace(), 'default');
  assert.deepEqual((await c.list('jobsets')).workloads, []);
});

live('kubeconfig and context: the context\'s namespace is the default one; an unknown context is a ClusterError', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'wl-kube-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const kc = join(dir, 'kc');
  writeFileSync(kc, readFileSync(process.env.KUBECONFIG, 'utf8').replace('namespace: default', 'namespace: lens-train'));
  const c = new Cluster({ kubeconfigPath: kc, context: 'lens-admin@kapi' });
  assert.equal(await c.namespace(), 'lens-train');
  assert.deepEqual(names((await c.list('jobsets')).workloads), ['llama', 'old-api']);
  assert.equal((await c.describe('jobsets', 'llama')).object.metadata.name, 'llama');
  const unusable = (e) => e instanceof ClusterError && e instanceof wl.WorkloadLensError && e.code === 'no_config'
    && /no usable cluster configuration/.test(e.message);
  await assert.rejects(new Cluster({ kubeconfigPath: kc, context: 'no-such-context' }).list('jobsets'), unusable);
  await assert.rejects(new Cluster({ kubeconfigPath: join(dir, 'nothing') }).types(), unusable);
});

live('list across all namespaces', async () => {
  const { workloads } = await admin().list('jobsets', { allNamespaces: true });
  // lens-account's sft is a JobSet too (a TrainJob's), and lens-scale's
  // paused (suspended).
  assert.equal(workloads.length, 27);
  assert.deepEqual(names(workloads), ['llama', 'old-api', 'paused', 'sft', ...PAGES].sort());
  // By namespace, then name, as kubectl orders them.
  const keys = workloads.map((w) => `${w.namespace}/${w.name}`);
  assert.deepEqual(keys, [...keys].sort());
});

live('label selector', async () => {
  const { workloads } = await admin().list('jobsets', { allNamespaces: true, labelSelector: 'team=llm' });
  assert.deepEqual(names(workloads), ['llama']);
  const page = await admin().list('jobsets', { namespace: 'lens-paging', labelSelector: 'lens-test/page in (03,07)' });
  assert.deepEqual(names(page.workloads), ['page-03', 'page-07']);
});

live('phases', async () => {
  const running = await admin().list('jobsets', { allNamespaces: true, phases: ['Running'] });
  assert.deepEqual(names(running.workloads), ['llama']);
  const init = await admin().list('jobsets', { allNamespaces: true, phases: ['initializing'] });
  assert.equal(init.workloads.length, 25);
  const none = await admin().list('jobsets', { allNamespaces: true, phases: ['Failed'] });
  assert.deepEqual(none.workloads, []);
});

live('allTypes: every covered type, top-level only', async () => {
  const train = await admin().list({ allTypes: true, namespace: 'lens-train' });
  // No Jobs of llama, no pods: their controllers are covered types.
  assert.deepEqual(names(train.workloads), ['bert', 'llama', 'old-api', 'other-batch']);
  assert.equal(byName(train.workloads, 'other-batch').kind, 'Job');
  const serve = await admin().list(undefined, { allTypes: true, namespace: 'lens-serve' });
  assert.deepEqual(names(serve.workloads), ['ray-a', 'vllm', 'web']);
  assert.equal(byName(serve.workloads, 'web').kind, 'Deployment');
  const all = await admin().list({ allTypes: true, allNamespaces: true });
  // lens-account: a TrainJob, a RayCluster, an orphaned pod, a pod of its own.
  // lens-scale: an InferenceService, a RayCluster, a suspended JobSet.
  assert.equal(all.workloads.length, 37);
  assert.deepEqual(all.forbidden, []);
});

live('paging: chunkSize 5 over the 23 JobSets of lens-paging: 5 list calls, 23 rows', async (t) => {
  // The requests, as they leave through node:https.
  const paths = [];
  const request = https.request;
  t.mock.method(https, 'request', function counted(url, ...rest) {
    paths.push(`${url.pathname}${url.search}`);
    return request.call(this, url, ...rest);
  });
  const chunked = await admin().list('jobsets', { namespace: 'lens-paging', chunkSize: 5 });
  t.mock.restoreAll();
  assert.deepEqual(names(chunked.workloads), PAGES);
  assert.ok(chunked.workloads.every((r) => r.gpus === 1 && r.pods === 1));
  const lists = paths.filter((p) => p.startsWith('/apis/jobset.x-k8s.io/v1alpha2/namespaces/lens-paging/jobsets'));
  assert.equal(lists.length, 5, lists.join('\n'));
  assert.ok(lists.every((p) => p.includes('limit=5')));
  assert.equal(lists.filter((p) => p.includes('continue=')).length, 4);
  const one = await admin().list('jobsets', { namespace: 'lens-paging', chunkSize: 0 });
  assert.deepEqual(one.workloads, chunked.workloads);
});

/** One request with the admin KubeConfig's credentials: `{status, body}` (decoded JSON). */
async function rest() {
  const kc = new KubeConfig();
  kc.loadFromFile(process.env.KUBECONFIG);
  const server = kc.getCurrentCluster().server.replace(/\/+$/, '');
  const options = { headers: {} };
  await kc.applyToHTTPSOptions(options);
  return (method, path, body) => new Promise((resolve, reject) => {
    const headers = { ...options.headers, Accept: 'application/json', 'Content-Type': 'application/json' };
    const req = https.request(new URL(server + path), { ...options, method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode, body: text ? JSON.parse(text) : null });
      });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

// A namespace only the next test uses (the scenario's are left as they
// are): 600 Jobs of ~100 KB each (a 100,000-byte annotation), all
// controlled by one JobSet.
const MEMORY_NS = 'lens-pages-node';
const MEMORY_JOBS = 600;
const BALLAST = 100_000;

// The listing, measured in a process of its own (so that creating the Jobs
// leaves nothing in the baseline), started with --expose-gc: at every
// fifth request the package makes (the replies before it were fed by
// then), after a full collection, what JavaScript holds (V8's heap and the Buffers:
// heapUsed + external) and the resident size, above what they were before
// list(); the bytes received and the pages of Jobs.
const MEASURE_LIST = `
import https from 'node:https';
import { Cluster } from 'workload-lens/kube';

const cluster = new Cluster();
await cluster.list({ allTypes: true, namespace: 'lens-paging', chunkSize: 2 }); // warm
const sample = () => {
  globalThis.gc();
  const m = process.memoryUsage();
  return { js: m.heapUsed + m.external, rss: m.rss };
};
const base = sample();
const peak = { ...base };
let received = 0;
let pages = 0;
// Not a mock of node:test: it keeps every call's result (each request, its
// response and so its chunks) in its log.
const request = https.request;
let requests = 0;
https.request = function measured(url, options, callback) {
  // Every 5th request: a page kept would stay, so its memory would be seen.
  if (requests++ % 5 === 0) {
    const now = sample();
    peak.js = Math.max(peak.js, now.js);
    peak.rss = Math.max(peak.rss, now.rss);
  }
  if (url.pathname.endsWith('/jobs')) pages += 1;
  return request.call(this, url, options, (res) => {
    res.on('data', (c) => { received += c.length; });
    callback(res);
  });
};
const started = Date.now();
const { workloads } = await cluster.list({ allTypes: true, namespace: process.argv.at(-1), chunkSize: 2 });
const listed = Date.now() - started;
console.log(JSON.stringify({
  received, pages, listed, js: peak.js - base.js, rss: peak.rss - base.rss,
  rows: workloads.map((w) => [w.kind, w.name]),
}));
`;

live('list() holds no raw page: 600 Jobs of ~100 KB in pages of 2, 10x what the package holds at its peak', async (t) => {
  // list() feeds each page to the engine's session as it arrives, and
  // neither this package nor the session keeps a page after it is fed:
  // the Jobs a listing of every type drops (their controller, a JobSet, is
  // a covered type) leave nothing behind. Measured at each request the
  // package makes (the replies before it were fed by then), after a full
  // garbage collection: what JavaScript holds (V8's heap and the Buffers)
  // stays under a tenth of the bytes received, and the process's resident
  // memory (the native addon's allocations too) under half of them.
  const api = await rest();
  const jobs = `/apis/batch/v1/namespaces/${MEMORY_NS}/jobs`;
  const jobsets = `/apis/jobset.x-k8s.io/v1alpha2/namespaces/${MEMORY_NS}/jobsets`;
  // Background: a Job deleted with the default (orphan) policy would wait
  // for the garbage collector, which nothing runs here.
  const clean = async () => {
    for (const path of [jobs, jobsets]) {
      assert.equal((await api('DELETE', `${path}?propagationPolicy=Background`)).status, 200, path);
    }
  };
  const ns = await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: MEMORY_NS } });
  assert.ok([201, 409].includes(ns.status), JSON.stringify(ns.body));
  await clean(); // what an interrupted run left
  t.after(clean);
  const container = { name: 'main', image: 'busybox:1.36' };
  const holder = await api('POST', jobsets, {
    apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'holder', namespace: MEMORY_NS },
    spec: { replicatedJobs: [{ name: 'main', replicas: 1, template: { spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } } } }] },
  });
  assert.equal(holder.status, 201);
  const owner = { apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', name: 'holder', uid: holder.body.metadata.uid, controller: true };
  const ballast = 'x'.repeat(BALLAST);
  const started = Date.now();
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let i = next++; i < MEMORY_JOBS; i = next++) {
      const job = await api('POST', jobs, {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: { name: `held-${String(i).padStart(4, '0')}`, namespace: MEMORY_NS, ownerReferences: [owner], annotations: { 'lens-test/ballast': ballast } },
        spec: { template: { spec: { restartPolicy: 'Never', containers: [container] } } },
      });
      assert.equal(job.status, 201);
    }
  }));
  const created = Date.now() - started;

  const child = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', MEASURE_LIST, MEMORY_NS], {
    cwd: join(import.meta.dirname, '..'), encoding: 'utf8', timeout: 300_000,
  });
  assert.equal(child.status, 0, child.stderr);
  const {
    received, pages, js, rss, listed, rows,
  } = JSON.parse(child.stdout.trim().split('\n').at(-1));
  const MiB = (n) => (n / 2 ** 20).toFixed(2);
  t.diagnostic(`${MEMORY_JOBS} Jobs created in ${created} ms; list: ${MiB(received)} MiB received in ${pages} pages of Jobs, `
    + `${listed} ms (a full GC before every 5th request); JS held at its peak ${MiB(js)} MiB more, `
    + `resident size ${MiB(rss)} MiB more`);
  // Only the JobSet: its Jobs were dropped as read.
  assert.deepEqual(rows, [['JobSet', 'holder']]);
  assert.ok(received > MEMORY_JOBS * BALLAST && pages >= MEMORY_JOBS / 2, `${received} bytes in ${pages} pages`);
  assert.ok(js < received / 10, `JS held ${js} bytes more at its peak`);
  assert.ok(rss < received / 2, `resident size ${rss} bytes more at its peak`);
});

live('a JobSet read at v1alpha1 resolves through the v1alpha2 definition', async () => {
  const { workloads } = await admin().list('JobSet.v1alpha1.jobset.x-k8s.io', { namespace: 'lens-train' });
  const old = byName(workloads, 'old-api');
  assert.equal(old.apiVersion, 'jobset.x-k8s.io/v1alpha1');
  assert.equal(old.definition, 'jobset-x-k8s-io-jobset-v1alpha2');
  assert.equal(old.gpus, 2);
  assert.equal(old.pods, 2);
  const d = await admin().describe('JobSet.v1alpha1.jobset.x-k8s.io', 'old-api', { namespace: 'lens-train' });
  assert.equal(d.resolved.workload.apiVersion, 'jobset.x-k8s.io/v1alpha1');
  assert.ok(d.resolved.warnings.includes('object version v1alpha1 resolved through the definition for version v1alpha2'),
    JSON.stringify(d.resolved.warnings));
});

live('describe: live pods through the owner chain; the stray pod is not counted', async () => {
  const { object, resolved, gang, warnings } = await admin().describe('jobset', 'llama', { namespace: 'lens-train' });
  assert.equal(resolved.workload.name, 'llama');
  const uids = JSON.parse(readFileSync(join(DIR, 'scenario.json'), 'utf8'));
  assert.equal(object.metadata.uid, uids['lens-train/JobSet/llama']);
  const instances = Object.fromEntries(resolved.components[1].instances.map((i) => [i.id, i.live]));
  assert.equal(instances.leader.ready, 1);
  assert.deepEqual(instances.leader.pods.map((p) => p.name), ['llama-leader-0-0-x7k2p']);
  assert.equal(instances.worker.ready, 3);
  assert.equal(instances.worker.pods.length, 5);
  assert.ok(!instances.worker.pods.some((p) => p.name === 'llama-worker-0-0-stray'));
  const stray = resolved.strayPods.find((p) => p.name === 'llama-worker-0-0-stray');
  assert.equal(stray.findings[0].code, 'other-workload');
  assert.match(stray.findings[0].message, /Job other-batch/);
  // The namespace's other pods (bert's) are another workload's: left out, not strays.
  assert.deepEqual(resolved.strayPods.map((p) => p.name), ['llama-worker-0-0-stray']);
  // Gang groups: the JobSet's six pods, not the stray.
  const members = gang.groups.flatMap((g) => g.members).sort();
  assert.equal(members.length, 6);
  assert.ok(!members.includes('llama-worker-0-0-stray'));
  assert.ok(warnings.every((w) => w.reason === 'invalid'), JSON.stringify(warnings));
});

live('describe: the last events of the workload, its pods and Jobs, newest first (not the stray pod\'s)', async () => {
  const { events, eventsLeftOut } = await admin().describe('jobset', 'llama', { namespace: 'lens-train' });
  assert.deepEqual(events.map((e) => [e.reason, e.object]), [
    ['FailedScheduling', 'Pod/llama-worker-1-1-q8h3v'],
    ['SuccessfulCreate', 'Job/llama-worker-1'],
    ['BackoffLimitExceeded', 'Pod/llama-worker-1-1-f5w7n'],
  ]);
  assert.equal(events[0].count, 4);
  assert.equal(eventsLeftOut, 0);
});

live('describe through a longer chain: LWS -> StatefulSet -> leader Pod -> StatefulSet -> worker Pod', async () => {
  const { resolved } = await admin().describe('lws', 'vllm', { namespace: 'lens-serve' });
  const pods = resolved.components.flatMap((c) => c.instances.flatMap((i) => i.live?.pods ?? []));
  assert.equal(new Set(pods.map((p) => p.name)).size, 6);
});

live('the cluster Karta overrides the catalog (origin cluster); the invalid one is a warning', async () => {
  const { workloads, warnings } = await admin().list('rayclusters', { namespace: 'lens-serve' });
  const [ray] = workloads;
  assert.equal(ray.name, 'ray-a');
  assert.equal(ray.definition, 'lens-test-raycluster');
  assert.equal(ray.origin, 'cluster');
  assert.deepEqual([ray.pods, ray.gpus], [3, 2]);
  const invalid = warnings.filter((w) => w.reason === 'invalid');
  assert.deepEqual(invalid.map((w) => w.object), ['Karta/lens-test-broken']);
  assert.match(invalid[0].message, /jq-syntax/);
  const d = await admin().describe('raycluster', 'ray-a', { namespace: 'lens-serve' });
  assert.deepEqual(d.resolved.definition, { name: 'lens-test-raycluster', origin: 'cluster', format: 'run.ai/v1alpha1' });
  assert.deepEqual(d.resolved.components.map((c) => c.name), ['raycluster', 'ray-head', 'ray-worker']);
});

live('user definitions win over the cluster\'s', async () => {
  const text = wl.catalogSources()['ray-io-raycluster-v1.yaml'];
  const c = new Cluster({ definitions: [text] });
  const [ray] = (await c.list('rayclusters', { namespace: 'lens-serve' })).workloads;
  assert.equal(ray.definition, 'ray-io-raycluster-v1');
  assert.equal(ray.origin, 'user');
  // So does a given engine's own definition.
  const engine = new wl.Catalog({ definitions: [text] });
  const [ray2] = (await new Cluster({ engine }).list('rayclusters', { namespace: 'lens-serve' })).workloads;
  assert.equal(ray2.origin, 'user');
});

live('usage: GPUs and pods by namespace and type', async () => {
  const u = await admin().usage({ allNamespaces: true });
  // Declared by the active workloads; the suspended JobSet's 4 GPUs apart;
  // what the 28 pods that exist hold.
  assert.deepEqual(u.total, {
    key: '', workloads: 37, pods: 58, gpus: 71, inactive: 1, inactiveGpus: 4,
    heldPods: 28, heldGpus: 34, pendingGpus: 3, errors: 0,
  });
  assert.equal(u.podsRead, true);
  assert.deepEqual(u.byNamespace.map((r) => [r.key, r.workloads, r.gpus]),
    [['lens-paging', 23, 23], ['lens-train', 4, 18], ['lens-account', 4, 11], ['lens-scale', 3, 11], ['lens-serve', 3, 8]]);
  assert.equal(u.byType[0].key, 'JobSet.jobset.x-k8s.io');
  assert.deepEqual(u.forbidden, []);
  const one = await admin().usage('jobsets', { namespace: 'lens-train' });
  assert.deepEqual([one.total.workloads, one.total.gpus], [2, 14]);
});

live('autoscaled counts and versions, as the engine reads them', async () => {
  const [llm] = (await admin().list('inferenceservices', { namespace: 'lens-scale' })).workloads;
  assert.deepEqual([llm.pods, llm.gpus, llm.declaredPods], [3, 3, 2]);
  assert.deepEqual(llm.live, { pods: 3, ready: 3, gpus: 3, pendingGpus: 0 });
  const old = await admin().list('RayCluster.v1alpha1.ray.io', { namespace: 'lens-scale' });
  assert.deepEqual(old.workloads.map((w) => [w.name, w.pods, w.gpus]), [['ray-multi', 2, 4]]);
  assert.deepEqual(old.warnings.filter((w) => w.object === 'rayclusters.ray.io').map((w) => w.reason), ['version']);
  const now = await admin().list('rayclusters', { namespace: 'lens-scale' });
  assert.deepEqual(now.workloads.map((w) => [w.name, w.pods, w.gpus]), [['ray-multi', 3, 8]]);
});

live('the viewer: pytorchjobs forbidden, the other types listed and the forbidden one reported', async () => {
  const v = viewer();
  const { workloads, forbidden, warnings } = await v.list({ allTypes: true, namespace: 'lens-train' });
  // bert's pods stay visible, each a workload of its own whose owner (the
  // PyTorchJob) the viewer may not read.
  assert.deepEqual(names(workloads), ['bert-master-0', 'bert-worker-0', 'bert-worker-1', 'bert-worker-2', 'llama', 'old-api', 'other-batch']);
  assert.ok(workloads.filter((w) => w.kind === 'Pod').every((w) => w.owner?.state === 'unreadable'), JSON.stringify(workloads));
  assert.equal(warnings.filter((w) => w.reason === 'owner_unreadable').length, 4);
  assert.ok(forbidden.includes('pytorchjobs.kubeflow.org'), JSON.stringify(forbidden));
  assert.ok(warnings.some((w) => w.reason === 'forbidden' && w.object === 'pytorchjobs.kubeflow.org'), JSON.stringify(warnings));
  assert.ok(warnings.every((w) => typeof w.object === 'string' && typeof w.message === 'string'));
  await assert.rejects(v.list('pytorchjobs', { namespace: 'lens-train' }), (e) => e instanceof ForbiddenError
    && e instanceof ClusterError && e.code === 'forbidden' && e.status === 403);
  await assert.rejects(v.describe('pytorchjob', 'bert', { namespace: 'lens-train' }), (e) => e instanceof ForbiddenError
    && /pytorchjobs/.test(e.message));
  // What the viewer may read resolves as for the admin.
  const d = await v.describe('jobset', 'llama', { namespace: 'lens-train' });
  assert.equal(d.resolved.components[1].instances.find((i) => i.id === 'worker').live.ready, 3);
});

live('a type the server fails to list (HTTP 500): an `api` warning with every type, an api ClusterError by name', async () => {
  // Flakies (testing/live/crds/flakies.lens.test.yaml) answer 500, as a CRD
  // with a broken conversion webhook does.
  const flaky = readFileSync(new URL('../../testing/live/flaky-definition.yaml', import.meta.url), 'utf8');
  const c = new Cluster({ definitions: [flaky] });
  const { workloads, warnings, forbidden } = await c.list({ allTypes: true, allNamespaces: true });
  assert.ok(names(workloads).includes('llama'));
  const w = warnings.find((x) => x.object === 'flakies.lens.test');
  assert.ok(w && w.reason === 'api' && /500/.test(w.message), JSON.stringify(warnings));
  assert.deepEqual(forbidden, []);
  await assert.rejects(c.list('flakies', { allNamespaces: true }), (e) => e.constructor === ClusterError
    && e instanceof wl.WorkloadLensError && e.code === 'api' && e.status === 500);
  // Not covered without the definition: no warning about it.
  const plain = await admin().list({ allTypes: true, allNamespaces: true });
  assert.ok(!plain.warnings.some((x) => x.object === 'flakies.lens.test'), JSON.stringify(plain.warnings));
});

live('NotFound, unknown type, no definition', async () => {
  await assert.rejects(admin().describe('jobset', 'nope', { namespace: 'lens-train' }),
    (e) => e instanceof NotFoundError && e.status === 404 && e.code === 'not_found');
  await assert.rejects(admin().list('nosuchtype'), wl.UsageError);
  await assert.rejects(admin().describe('nosuchtype', 'x'), wl.UsageError);
  await assert.rejects(admin().list('configmaps'), wl.NoDefinitionError);
});

live('Unauthorized: a token the server does not know', async () => {
  const kc = new KubeConfig();
  kc.loadFromFile(process.env.KUBECONFIG);
  kc.users = kc.users.map((u) => ({ ...u, token: 'not-a-token' }));
  await assert.rejects(new Cluster({ kubeConfig: kc }).list('jobsets'),
    (e) => e instanceof UnauthorizedError && e.status === 401 && e.code === 'unauthorized');
});

live('Unreachable: a closed port fails quickly', async () => {
  const port = await new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port: p } = s.address();
      s.close(() => resolve(p));
    });
  });
  const kc = new KubeConfig();
  kc.loadFromFile(process.env.KUBECONFIG);
  kc.clusters = kc.clusters.map((c) => ({ ...c, server: `https://127.0.0.1:${port}` }));
  const t0 = Date.now();
  await assert.rejects(new Cluster({ kubeConfig: kc }).list('jobsets'),
    (e) => e instanceof UnreachableError && e.code === 'unreachable' && /ECONNREFUSED/.test(e.message));
  await assert.rejects(new Cluster({ kubeConfig: kc }).types(), UnreachableError);
  assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
});

// bindings-node/README.md, "Live clusters": tests/readme.test.mjs leaves the
// examples that import workload-lens/kube out (they need a server); here they
// run as it runs the others, against the scenario.
BLOCKS.forEach((block, i) => {
  if (isLive(block.code)) live(`README example ${i + 1}: the live-cluster example`, () => runExample(i, block));
});
