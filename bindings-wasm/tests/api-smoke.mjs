// Hostile input through the PUBLIC WASM API (bindings-node/browser.mjs, the
// `workload-lens` package's browser build): typed errors (the
// WorkloadLensError subclasses), and a real trap that the JS layer turns into
// code 'internal' before re-instantiating the module, after which the next
// call (and a definition compiled before the trap) works again.
// Environment-neutral (Node and browsers): the caller hands in the module.

const JOBSET = `apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: smoke}
spec:
  replicatedJobs:
  - name: workers
    replicas: 2
    template:
      spec:
        parallelism: 3
        completions: 3
        template:
          spec:
            containers:
            - name: main
              image: trainer
              resources: {limits: {nvidia.com/gpu: 2}}
`;

const DEPLOYMENT = {
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'd1' },
  spec: {
    replicas: 2, selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
  },
};
// Pods as the API server lists them (a PodList's items carry no kind).
const POD_ITEMS = ['web-a', 'web-b'].map((name) => ({
  metadata: { name, namespace: 'default', labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx' }] },
  status: { phase: 'Running' },
}));
const POD_LIST = { apiVersion: 'v1', kind: 'PodList', metadata: {}, items: POD_ITEMS };
const POD_ARRAY = POD_ITEMS.map((p) => ({ apiVersion: 'v1', kind: 'Pod', ...p }));

const nest = (n, open, close, inner = '1') => open.repeat(n) + inner + close.repeat(n);

function aliasBomb() {
  let t = 'a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]\n';
  for (let i = 1; i <= 9; i++) t += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]\n`;
  return t;
}

/** [name, fn(wl), expected error class name (or null: `check` validates the result)] */
function checks(wl) {
  const gpus = (r) => r?.totals?.resources?.gpu;
  return [
    ['resolve the JobSet', () => gpus(wl.resolve(JOBSET)), null, (v) => v === 12],
    ['explainStatus through the WASM build', () => {
      const d = wl.compile(wl.catalogSources()['jobset-x-k8s-io-jobset-v1alpha2.yaml']);
      return d.explainStatus(JOBSET);
    }, null, (v) => v !== null && typeof v === 'object' && !Array.isArray(v)],
    ['pods: a PodList, a top-level array and their text read alike (the engine\'s one reader)', () => {
      const def = wl.lookup('apps/v1', 'Deployment');
      const all = [POD_LIST, POD_ARRAY, JSON.stringify(POD_LIST), JSON.stringify(POD_ARRAY), POD_ARRAY.map((p) => JSON.stringify(p)).join('\n---\n')]
        .map((pods) => JSON.stringify(def.attributePods(DEPLOYMENT, pods)));
      return all.every((x) => x === all[0]) ? JSON.parse(all[0]).pods.map((p) => p.name) : all;
    }, null, (v) => JSON.stringify(v) === '["web-a","web-b"]'],
    ['gangGroups without gang scheduling instructions: an empty report', () => wl.lookup('apps/v1', 'Deployment').gangGroups(DEPLOYMENT, POD_LIST),
      null, (v) => JSON.stringify(v) === '{"groups":[],"pods":[]}'],
    ['gangStructure and subtreeScale through the WASM build', () => {
      const def = wl.compile(wl.catalogSources()['jobset-x-k8s-io-jobset-v1alpha2.yaml']);
      const s = def.gangStructure();
      return [s.components, s.candidates.replicatedjob.map((c) => c.member), def.subtreeScale(JOBSET, 'jobset'),
        def.subtreeScale(JOBSET, 'replicatedjob', 'workers')];
    }, null, (v) => JSON.stringify(v) === '[["jobset","replicatedjob"],["jobset"],6,6]'],
    ['diagnose through the WASM build: pods, events and related objects, ranked', () => {
      const job = {
        apiVersion: 'batch/v1', kind: 'Job',
        metadata: { name: 'q', namespace: 'ml', uid: 'j-1', labels: { 'kueue.x-k8s.io/queue-name': 'team-a' } },
        spec: { suspend: true, template: { spec: { containers: [{ name: 'c', image: 'i' }] } } },
      };
      const workload = {
        apiVersion: 'kueue.x-k8s.io/v1beta2', kind: 'Workload',
        metadata: { name: 'job-q-1', namespace: 'ml', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'q', uid: 'j-1', controller: true }] },
        status: { conditions: [{ type: 'QuotaReserved', status: 'False', reason: 'Pending', message: 'no quota' }] },
      };
      const pod = {
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'vllm', namespace: 'ml', uid: 'p-1' },
        spec: { nodeName: 'n', containers: [{ name: 'vllm', image: 'v' }] },
        status: {
          phase: 'Running',
          containerStatuses: [{ name: 'vllm', ready: false, restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { reason: 'OOMKilled', exitCode: 137 } } }],
        },
      };
      const events = { apiVersion: 'v1', kind: 'EventList', items: [{ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'ml' },
        involvedObject: { kind: 'Pod', name: 'vllm', namespace: 'ml', uid: 'p-1' }, reason: 'BackOff', type: 'Warning', message: 'Back-off', count: 2 }] };
      const kueue = wl.diagnose(job, { related: [workload] }).findings.map((f) => f.code);
      const crash = wl.lookup('v1', 'Pod').diagnose(pod, { pods: [pod], events: JSON.stringify(events) }).findings[0];
      const same = JSON.stringify(new wl.Catalog().diagnose(pod, { pods: [pod], events })) === JSON.stringify(wl.diagnose(pod, { pods: JSON.stringify([pod]), events }));
      return [kueue, crash.code, crash.evidence.map((e) => e.field), same];
    }, null, (v) => JSON.stringify(v) === '[["not-admitted","suspended"],"crash-loop",["status.containerStatuses[vllm].lastState.terminated","event BackOff"],true]'],
    ['diagnose: an option it does not know is a TypeError', () => {
      try {
        wl.diagnose(DEPLOYMENT, POD_LIST);
        return 'no error';
      } catch (e) {
        return e instanceof TypeError && /unknown option "apiVersion"/.test(e.message);
      }
    }, null, (v) => v === true],
    ['diagnose: every pod is charged to the step limit', () => wl.compile(wl.catalogSources()['apps-deployment-v1.yaml'], { maxSteps: 500 })
      .diagnose(DEPLOYMENT, { pods: Array.from({ length: 1000 }, (_, i) => ({ ...POD_ITEMS[0], metadata: { ...POD_ITEMS[0].metadata, name: `web-${i}` } })) }),
    'LimitError'],
    ['subtreeScale of an empty instance id', () => wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet').subtreeScale(JOBSET, 'replicatedjob', ''),
      'UsageError'],
    ['a definition object compiles the same whatever its key order', () => {
      const doc = wl.compile(wl.catalogSources()['apps-deployment-v1.yaml']).toJSON();
      const reversed = (v) => (Array.isArray(v) ? v.map(reversed) : v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, reversed(x)])) : v);
      const a = wl.compile(doc).resolve(DEPLOYMENT);
      const b = wl.compile(reversed(doc)).resolve(DEPLOYMENT);
      return JSON.stringify(a) === JSON.stringify(b) && a.totals.pods;
    }, null, (v) => v === 2],
    ['a Catalog\'s limits bound the objects it reads', () => new wl.Catalog({
      bundled: false, definitions: [wl.compile(wl.catalogSources()['jobset-x-k8s-io-jobset-v1alpha2.yaml'])], limits: { maxInputBytes: 100 },
    }).resolve(JOBSET), 'LimitError'],
    ['deep JSON (100k) through parse', () => wl.parse(nest(100_000, '[', ']')), 'LimitError'],
    ['deep JSON (100k) as the object of resolve', () => wl.resolve(nest(100_000, '{"a":', '}')), 'LimitError'],
    ['deep YAML (100k) through parse, limits raised', () => wl.parse('a: ' + nest(100_000, '[', ']'), { maxDepth: 1e9 }), 'LimitError'],
    ['alias bomb through parse', () => wl.parse(aliasBomb()), 'LimitError'],
    ['alias bomb as the object of resolve', () => wl.resolve(aliasBomb()), 'LimitError'],
    ['runaway jq: recursive def', () => wl.evaluate('def f: f; f', null), 'JqCompileError'],
    ['runaway jq: fuel', () => wl.evaluate('[.[] as $a | .[] as $b | .[] as $c | $a + $b + $c] | length', Array(300).fill(1), { maxSteps: 100_000 }), 'LimitError'],
    ['runaway jq: output count', () => wl.evaluate('.[] | .[]', Array(100).fill(Array(100).fill(0))), 'LimitError'],
    ['deep expression (100k parentheses)', () => wl.evaluate(nest(100_000, '(', ')'), null, { maxExpressionBytes: 1e9, maxExpressionDepth: 1e9 }), 'LimitError'],
    ['hostile definition (deep expression)', () => wl.compile(hostileDefinition()), 'WorkloadLensError'],
    ['unknown limits field', () => wl.evaluate('.', null, { maxBananas: 1 }), 'UsageError'],
  ];
}

function hostileDefinition() {
  return `apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: hostile}
spec:
  structureDefinition:
    rootComponent:
      name: root
      kind: {group: x.io, version: v1, kind: Evil}
      statusDefinition:
        conditionsDefinition:
          path: '${nest(10_000, '(', ')', '.')}'
`;
}

/** Run the checks and the trap; returns [{name, ok, detail}]. */
export async function runApiSmoke(wl) {
  const out = [];
  const record = (name, ok, detail) => out.push({ name, ok, detail });
  for (const [name, fn, want, check] of checks(wl)) {
    try {
      const v = fn();
      if (want === null) record(name, check(v), `result ${JSON.stringify(v)?.slice(0, 120)}`);
      else record(name, false, `expected ${want}, got a result`);
    } catch (e) {
      const typed = e instanceof wl.WorkloadLensError;
      const cls = wl[want];
      const ok = want !== null && typed && typeof cls === 'function' && e instanceof cls;
      record(name, ok, `${e?.constructor?.name} (${e?.code}${e?.limit ? ' ' + e.limit : ''}): ${String(e?.message).slice(0, 120)}`);
    }
  }

  // A real trap: an allocation larger than a wasm32 memory (4 GiB) can
  // hold, which the caller allowed by raising the limits.
  const kept = wl.compile(wl.catalogSources()['jobset-x-k8s-io-jobset-v1alpha2.yaml']);
  let trap;
  try {
    wl.evaluate('"xxxxxxxxxxxxxxxx" * 250000000 | length', null, {
      maxStringBytes: 4_000_000_000, maxOutputBytes: 4_000_000_000, maxSteps: 4_000_000_000, maxMemoryBytes: 4_294_967_295,
    });
  } catch (e) {
    trap = e;
  }
  record(
    'a trap becomes code internal',
    trap instanceof wl.WorkloadLensError && trap.code === 'internal',
    trap ? `${trap.constructor.name} (${trap.code}): ${String(trap.message).slice(0, 160)}` : 'no error',
  );
  await wl.init(); // waits for a restart in progress (none when the spare copy was ready)
  try {
    const ok = wl.resolve(JOBSET).totals.resources.gpu === 12;
    record('the next call after the trap works', ok, 'resolve: 12 GPUs');
  } catch (e) {
    record('the next call after the trap works', false, `${e?.name}: ${e?.message}`);
  }
  try {
    const r = kept.resolve(JOBSET);
    record('a definition compiled before the trap still works', r.totals.resources.gpu === 12, 'resolve: 12 GPUs');
  } catch (e) {
    record('a definition compiled before the trap still works', false, `${e?.name}: ${e?.message}`);
  }
  return out;
}
