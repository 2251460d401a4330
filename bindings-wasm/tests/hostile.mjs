// Hostile-input and stack-ceiling checks of the WASM module over its raw
// interface. Environment-neutral (Node and browsers): the caller hands in
// `getRaw(fresh)`, which returns the module's exports (a new instance when
// `fresh`). Every check must end in a typed engine error or a correct result,
// never a trap (WebAssembly.RuntimeError), and the module must keep working.

/** The JSON payload of an error thrown by the raw module, or null when it is not one. */
export function wlPayload(e) {
  if (!(e instanceof Error) || e.wlError !== true) return null;
  try {
    return JSON.parse(e.message);
  } catch {
    return null;
  }
}

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

// Raised as far as the module accepts: the engine's hard ceilings
// (maxDepth 512, maxExpressionDepth 128) must still keep the stack safe.
const UNBOUNDED = JSON.stringify({
  maxDepth: 1_000_000_000,
  maxExpressionDepth: 1_000_000_000,
  maxInputNodes: 1_000_000_000,
  maxSteps: 1_000_000_000,
  maxMemoryBytes: 1_000_000_000,
  maxOutputs: 1_000_000_000,
  maxCollectionLen: 1_000_000_000,
  maxStringBytes: 1_000_000_000,
  maxOutputBytes: 1_000_000_000,
  maxYamlAliases: 1_000_000_000,
});

const nest = (n, open, close, inner = '1') => open.repeat(n) + inner + close.repeat(n);
const aliasBomb = () => {
  let t = 'a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]\n';
  for (let i = 1; i <= 9; i++) {
    t += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]\n`;
  }
  return t;
};

/** The checks: [name, fn(raw) -> {code?, limit?} | 'ok' value, expectation]. */
function checks() {
  const deepJson = nest(100_000, '[', ']');
  const deepObj = '{"apiVersion":"v1","kind":"Pod","spec":' + nest(100_000, '{"a":', '}') + '}';
  const deepExpr = nest(100_000, '(', ')');
  return [
    // -- hostile input: each gives a typed error --
    ['deep JSON text (100k) through parse', (r) => r.parse(deepJson, null), { error: 'limit' }],
    ['deep JSON text (100k) through parse, limits raised', (r) => r.parse(deepJson, UNBOUNDED), { error: 'limit' }],
    ['deep YAML flow (100k) through parse', (r) => r.parse('a: ' + deepJson, UNBOUNDED), { error: 'limit' }],
    ['deep block YAML (1000) through parse', (r) => r.parse(Array.from({ length: 1_000 }, (_, i) => ' '.repeat(i) + 'k:').join('\n'), UNBOUNDED), { error: 'limit' }],
    ['deep object (100k) through resolveAny', (r) => r.resolveAny(deepObj, [], null, UNBOUNDED), { error: 'limit' }],
    ['deep object (100k) through Definition.resolve', (r) => withDef(r, (d) => d.resolve(deepObj, null)), { error: 'limit' }],
    ['deep jq input (100k) through evaluate', (r) => r.evaluate('.', deepJson, UNBOUNDED), { error: 'limit' }],
    ['alias bomb (10^10 nodes) through parse', (r) => r.parse(aliasBomb(), null), { error: 'limit' }],
    ['deep expression (100k parentheses)', (r) => r.evaluate(deepExpr, 'null', UNBOUNDED), { error: 'limit' }],
    ['long operator chain (100k)', (r) => r.evaluate(Array(100_000).fill('1').join(' + '), 'null', UNBOUNDED), { error: 'limit' }],
    ['recursive def (runaway)', (r) => r.evaluate('def f: f; f', 'null', UNBOUNDED), { error: 'jq_compile' }],
    ['mutual recursion', (r) => r.evaluate('def f: def g: f; g; f', 'null', UNBOUNDED), { error: 'jq_compile' }],
    ['deep fromjson (100k)', (r) => r.evaluate('"[" * 100000 + "]" * 100000 | fromjson', 'null', UNBOUNDED), { error: 'any' }],
    ['reduce building depth 100k', (r) => r.evaluate('reduce (.[]) as $i (0; [.]) | tojson', JSON.stringify(Array(100_000).fill(0)), UNBOUNDED), { error: 'limit' }],
    ['exponential doubling', (r) => r.evaluate('def d: [., .]; d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d|d | flatten | length', '1', '{"maxSteps": 100000}'), { error: 'limit' }],
    ['string doubling', (r) => r.evaluate('reduce (.[]) as $x ("ab"; . + .)', JSON.stringify(Array(64).fill(0)), null), { error: 'limit' }],
    ['big output count', (r) => r.evaluate('.[] | .[]', JSON.stringify(Array(400).fill(Array(400).fill(0))), null), { error: 'limit' }],
    ['runaway loop (fuel)', (r) => r.evaluate('[.[] as $a | .[] as $b | .[] as $c | .[] as $d | $a + $b + $c + $d] | length', JSON.stringify(Array(400).fill(1)), null), { error: 'limit' }],
    ['hostile definition expression', (r) => r.NativeDefinition.compile(hostileDefinition(), null), { error: 'any' }],
    ['invalid UTF-8 bytes', (r) => r.parseBytes(new Uint8Array([0x61, 0x3a, 0x20, 0xff, 0xfe]), null), { error: 'parse' }],
    ['unknown limits field', (r) => r.checkLimits('{"maxBananas": 1}'), { error: 'usage' }],
    // -- at the ceilings, with every limit raised: correct results, no trap --
    ['512-deep JSON array at the hard ceiling', (r) => depthOf(JSON.parse(r.parse(nest(512, '[', ']'), UNBOUNDED))[0]), { equals: 512 }],
    ['513-deep JSON array over the hard ceiling', (r) => r.parse(nest(513, '[', ']'), UNBOUNDED), { error: 'limit' }],
    ['512-deep YAML at the ceiling', (r) => depthOf(JSON.parse(r.parse('- ' + nest(511, '[', ']'), UNBOUNDED))[0]), { equals: 512 }],
    ['512-deep JSON object at the ceiling', (r) => JSON.parse(r.parse(nest(511, '{"a":', '}', '{}'), UNBOUNDED)).length, { equals: 1 }],
    ['jq at the ceiling: 512-deep arrays through recursive builtins', (r) => JSON.parse(r.evaluate(
      '[(tojson | length), (tostring | length), (flatten | length), ([., .] | sort | length), (. == .), ' +
      '(contains(.)), ([., .] | unique | length), ([., .] | group_by(.) | length), ([., .] | min | tojson | length), ' +
      '([tojson | explode[] | select(. == 91) | 0] as $p | (getpath($p) | tojson), (setpath($p; 2) | flatten))]', nest(510, '[', ']'), UNBOUNDED)), { equals: [[1021, 1021, 1, 2, true, true, 1, 1, 1021, '1', [2]]] }],
    ['jq at the ceiling: 512-deep objects through recursive builtins', (r) => JSON.parse(r.evaluate(
      '[(. * . | tojson | length), (to_entries | length), (with_entries(.) == .), (keys), (.a.a.a | tojson | length), ' +
      '(tojson | fromjson? // "fromjson: serde_json stops at 128") ]', nest(510, '{"a":', '}', '{}'), UNBOUNDED)), { equals: [[3062, 1, true, ['a'], 3044, 'fromjson: serde_json stops at 128']] }],
    ['jq building values past the ceiling', (r) => r.evaluate('reduce (.[]) as $i (0; [.])', JSON.stringify(Array(600).fill(0)), UNBOUNDED), { error: 'limit' }],
    ['jq building values past the ceiling with *', (r) => r.evaluate('reduce explode[] as $i ({}; {a: .}) | . * .', JSON.stringify('x'.repeat(600)), UNBOUNDED), { error: 'limit' }],
    ['expression at the ceiling (nesting 128, 4x operators)', (r) => JSON.parse(r.evaluate(nest(128, '(', ')', Array(380).fill('1').join(' + ')), 'null', UNBOUNDED))[0], { equals: 380 }],
    ['expression over the ceiling (nesting 129)', (r) => r.evaluate(nest(130, '(', ')'), 'null', UNBOUNDED), { error: 'limit' }],
    ['expression of nested objects/arrays at the ceiling', (r) => JSON.parse(r.evaluate(nest(127, '[', ']'), 'null', UNBOUNDED)).length, { equals: 1 }],
  ];
}

function hostileDefinition() {
  return JSON.stringify({
    apiVersion: 'workloadmap.io/v1alpha1',
    kind: 'WorkloadMap',
    metadata: { name: 'hostile' },
    spec: {
      root: { group: 'x.io', version: 'v1', kind: 'Evil' },
      components: [{ name: 'evil', replicas: nest(100_000, '(', ')', '.') }],
    },
  });
}

function deepPodSpec(depth) {
  let v = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', annotations: {} }, spec: { containers: [{ name: 'c', image: 'i' }], x: v } };
}

function depthOf(v) {
  let d = 0;
  while (Array.isArray(v)) {
    d++;
    v = v[0];
  }
  return d;
}

function withDef(r, f) {
  const d = r.NativeDefinition.compile(JSON.parse(r.catalogSources())['jobset-x-k8s-io-jobset-v1alpha2.yaml'], null);
  try {
    return f(d);
  } finally {
    d.free();
  }
}

/** The module still answers correctly (the JobSet smoke: 12 GPUs). */
export function healthy(raw) {
  const r = JSON.parse(raw.resolveAny(JOBSET, [], null, null));
  const gpus = r?.totals?.resources?.gpu;
  if (gpus !== 12) throw new Error(`health check: expected 12 GPUs, got ${JSON.stringify(gpus)}`);
  return true;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/** Run every check; returns [{name, ok, detail, ms}]. */
export async function runHostile(getRaw) {
  let raw = await getRaw();
  const out = [];
  for (const [name, fn, want] of checks()) {
    const t0 = Date.now();
    let ok = false;
    let detail;
    try {
      const v = fn(raw);
      if ('equals' in want) {
        ok = same(v, want.equals);
        detail = ok ? 'ok' : `expected ${JSON.stringify(want.equals)}, got ${JSON.stringify(v)?.slice(0, 200)}`;
      } else {
        detail = `expected an error (${want.error}), got a result ${String(v).slice(0, 200)}`;
      }
    } catch (e) {
      const p = wlPayload(e);
      if (p) {
        if ('error' in want && (want.error === 'any' || want.error === p.code)) {
          ok = true;
          detail = `${p.code}${p.limit ? ' ' + p.limit : ''}: ${p.display}`.slice(0, 160);
        } else {
          detail = `unexpected ${p.code}${p.limit ? ' ' + p.limit : ''}: ${p.display}`.slice(0, 300);
        }
      } else {
        detail = `NOT a typed error: ${e && e.name}: ${e && e.message}`.slice(0, 300);
        if (e instanceof WebAssembly.RuntimeError || e instanceof RangeError) raw = await getRaw(true);
      }
    }
    try {
      healthy(raw);
    } catch (e) {
      ok = false;
      detail += ` | module broken afterwards: ${e && e.message}`;
      raw = await getRaw(true);
    }
    out.push({ name, ok, detail, ms: Date.now() - t0 });
  }
  return out;
}
