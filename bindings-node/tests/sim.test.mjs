// workload-lens/kube on the simulated GPU cluster (testing/sim): workloads
// whose Jobs, ReplicaSets, StatefulSets, pods, statuses, scheduling
// decisions and events come from the real controllers, scheduler and
// (KWOK's) kubelets. The sim stage (`bash scripts/test.sh sim`) starts the
// cluster, seeds namespace lens-sim (testing/sim/live/seed.py, which waits
// until the controllers have settled and writes the truth, worked out from
// the API and not by the engine, to a state file) and runs this file with
// KUBECONFIG and WORKLOAD_LENS_SIM_STATE set; without them every test here
// is skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { Cluster } from 'workload-lens/kube';

const STATE = process.env.WORKLOAD_LENS_SIM_STATE;
const SIM = Boolean(process.env.KUBECONFIG && STATE);
const skip = !SIM && 'no simulated cluster: `bash scripts/test.sh sim` runs these (KUBECONFIG and WORKLOAD_LENS_SIM_STATE unset)';
if (!SIM) console.log(`# sim.test.mjs skipped: ${skip}`);
const sim = (name, fn) => test(name, { skip }, fn);
const state = SIM ? JSON.parse(readFileSync(STATE, 'utf8')) : null;

// What a workload's unfinished pods hold, from the truth.
const held = (w) => {
  const live = Object.values(w.pods).filter((p) => p.live);
  const sum = (ps) => ps.reduce((n, p) => n + p.gpus, 0);
  return {
    pods: live.length,
    ready: live.filter((p) => p.ready).length,
    gpus: sum(live),
    pendingGpus: sum(live.filter((p) => p.node === null)),
  };
};
const placed = (resolved) => resolved.components
  .flatMap((c) => c.instances)
  .flatMap((i) => (i.live ? i.live.pods : []));

sim('list: each workload once, with what its pods hold', async () => {
  const { workloads } = await new Cluster().list({ allTypes: true, namespace: state.namespace });
  assert.deepEqual(workloads.map((r) => r.name).sort(), state.workloads.map((w) => w.name).sort());
  for (const w of state.workloads) {
    const r = workloads.find((x) => x.name === w.name);
    assert.deepEqual([r.kind, r.statuses], [w.kind, w.statuses], w.name);
    assert.deepEqual(r.live, held(w), w.name);
    if (w.declared) assert.deepEqual([r.pods, r.gpus], [w.declared.pods, w.declared.gpus], w.name);
  }
});

sim('describe: exactly the pods the owner chains lead to, and the events of those', async () => {
  const c = new Cluster();
  for (const w of state.workloads) {
    const d = await c.describe(w.type, w.name, { namespace: state.namespace });
    const pods = placed(d.resolved);
    assert.deepEqual(pods.map((p) => p.name).sort(), Object.keys(w.pods).sort(), w.name);
    for (const p of pods) {
      const t = w.pods[p.name];
      assert.deepEqual([p.resources.gpu, p.phase, p.ready, p.node ?? null], [t.gpus, t.phase, t.ready, t.node], p.name);
    }
    assert.deepEqual(d.resolved.unattributedPods ?? [], []);
    for (const e of d.events) {
      assert.ok(!e.object.startsWith('Pod/') || e.object.slice(4) in w.pods, JSON.stringify(e));
      assert.ok(e.from, JSON.stringify(e));
    }
  }
});

sim("describe: the unplaced pod carries the scheduler's message", async () => {
  const d = await new Cluster().describe('job', state.unplaced, { namespace: state.namespace });
  const [pod] = placed(d.resolved);
  assert.deepEqual([pod.phase, pod.reason], ['Pending', 'Unschedulable']);
  assert.match(pod.message, /Insufficient nvidia\.com\/gpu/);
  const failed = d.events.filter((e) => e.reason === 'FailedScheduling');
  assert.ok(failed.length > 0 && failed.every((e) => e.from === 'default-scheduler'), JSON.stringify(d.events));
});

sim('usage: what the pods hold, each pod once', async () => {
  const { total } = await new Cluster().usage({ namespace: state.namespace });
  const hs = state.workloads.map(held);
  const sum = (k) => hs.reduce((n, h) => n + h[k], 0);
  assert.equal(total.workloads, state.workloads.length);
  assert.deepEqual([total.heldPods, total.heldGpus, total.pendingGpus], [sum('pods'), sum('gpus'), sum('pendingGpus')]);
  const inactive = state.workloads.filter((w) => w.statuses.some((s) => s === 'Completed' || s === 'Failed')).length;
  assert.equal(total.inactive, inactive);
  assert.equal(total.errors, 0);
});

sim('describe: the diagnosis names each cause the components wrote', async () => {
  const c = new Cluster();
  for (const [name, want] of Object.entries(state.why)) {
    const w = state.workloads.find((x) => x.name === name);
    const d = await c.describe(w.type, name, { namespace: state.namespace });
    assert.deepEqual(d.diagnosis.findings.map((f) => f.code), want, name);
  }
});
