// Type test (tsc --strict --noEmit, run by tests/types.test.mjs): every
// API of index.d.ts used once as intended, and wrong calls rejected
// (@ts-expect-error fails the compilation when the call is NOT an error).
import * as wl from 'workload-lens';
import {
  Catalog,
  Definition,
  LimitError,
  NoDefinitionError,
  ParseError,
  UsageError,
  ValidationError,
  WorkloadLensError,
  type Attribution,
  type Diagnosis,
  type DiagnosisFinding,
  type DiagnoseOptions,
  type Evidence,
  type Finding,
  type GangCandidate,
  type GangReport,
  type GangStructure,
  type Limits,
  type Location,
  type Resolved,
  type Status,
  type StatusExplanation,
  type UpdateRequest,
  type UpdateResult,
  type ValidationResult,
  type ApiResource,
  type OwnerKind,
  type Usage,
  type WorkloadSummary,
} from 'workload-lens';

export async function everything(jobsetText: string, podsText: string): Promise<number> {
  await wl.init();
  await wl.init(new URL('https://example.invalid/x.wasm'));
  wl.initSync(new Uint8Array());
  const v: string = wl.version;
  const b: 'native' | 'wasm' = wl.backend;

  const r: Resolved = wl.resolve(jobsetText);
  const gpus: number = r.totals.resources.gpu;
  const roles: string[] = r.components[1]!.instances.map((i) => i.id);
  const s: Status | null | undefined = r.status;
  wl.resolve({ apiVersion: 'v1', kind: 'X' }, { pods: podsText, limits: { maxSteps: 10 }, definitions: ['...'] });
  wl.resolve(new Uint8Array(), { pods: [{ kind: 'Pod' }] });
  wl.resolve(jobsetText, { pods: { kind: 'List', items: [] } });
  wl.resolve(jobsetText, { pods: { apiVersion: 'v1', kind: 'PodList', items: [{ metadata: { name: 'p' } }] } });
  wl.resolve(jobsetText, { pods: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } });

  const d: Definition | null = wl.lookup('jobset.x-k8s.io/v1alpha2', 'JobSet');
  if (d === null) return 0;
  const name: string = d.name;
  const origin: 'catalog' | 'user' | 'cluster' = d.origin;
  const apiVersion: string = d.gvk.apiVersion;
  const comps: string[] = d.components;
  const can: boolean = d.canSuspend;
  const warnings: Finding[] = d.warnings;
  const limits: Limits = d.limits;
  const doc = d.toJSON();
  const r2: Resolved = d.resolve(jobsetText, podsText);
  const st: Status | null = d.status(jobsetText);
  const ex: StatusExplanation = d.explainStatus(jobsetText);
  const dg: Diagnosis = d.diagnose(jobsetText, { pods: podsText, events: [{ kind: 'Event' }], related: { kind: 'List', items: [] } });
  const dgOptions: DiagnoseOptions = { pods: null, events: new Uint8Array() };
  const dg2: Diagnosis = d.diagnose(jobsetText, dgOptions);
  const finding: DiagnosisFinding | undefined = dg.findings[0];
  const evidence: Evidence[] = finding?.evidence ?? [];
  const code: string = finding?.code ?? 'none';
  const action: string | null | undefined = finding?.action;
  const when: string | null | undefined = evidence[0]?.time;
  const dgShape: number = dg2.statuses.length + dg.workload.name.length + code.length + (action ?? '').length + (when ?? '').length;
  const req: UpdateRequest = { components: { replicatedjob: { fragments: { worker: { schedulerName: 'x' } } } } };
  const up: UpdateResult = d.update(jobsetText, req);
  const op: string = up.patch[0]!.op;
  const su: UpdateResult = d.suspend(jobsetText);
  const re: UpdateResult = d.resume(su.object as { [key: string]: unknown });
  const at: Attribution = d.attributePods(null, podsText);
  const gg: GangReport = d.gangGroups(jobsetText, [{ kind: 'Pod' }]);
  const groups: number = gg.groups.length + gg.pods.length;
  const gs: GangStructure = d.gangStructure();
  const cands: GangCandidate[] = gs.candidates?.['replicatedjob'] ?? [];
  const scale: number = d.subtreeScale(jobsetText, 'replicatedjob', 'worker') + d.subtreeScale(jobsetText, 'jobset');
  const shape: number = gs.components.length + gs.leaves.length + cands.length + scale + (gs.hasScaleDefinition ? 1 : 0);

  const sources: Record<string, string> = wl.catalogSources();
  const c = new Catalog({ definitions: [d, '...', { kind: 'Karta' }], bundled: false });
  c.add('...', { maxDepth: 10 });
  c.add(d);
  const l1: Definition | null = c.lookup('v1', 'X');
  const l2: Definition = c.lookupObject(jobsetText);
  const g: Definition | null = c.get('x');
  const all: Definition[] = c.definitions();
  const r3: Resolved = c.resolve(jobsetText, podsText);
  const dg3: Diagnosis = c.diagnose(jobsetText, { pods: podsText });
  const dg4: Diagnosis = wl.diagnose(jobsetText, { definitions: [d], pods: podsText, events: podsText, related: [], limits: { maxSteps: 10 } });
  const dg5: Diagnosis = wl.diagnose(jobsetText);
  const served: ApiResource[] = c.coveredTypes([{ version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true }]);
  const one1: ApiResource = c.findType('jobsets', served);
  const { catalog: c2, warnings: cw } = c.withClusterDefinitions([podsText, podsText]);
  const reason: string = cw[0]!.reason;
  const rows: WorkloadSummary[] = c2.listWorkloads([jobsetText], { owners: podsText, topLevelOnly: true, phases: ['Running'] });
  const r4: Resolved = c2.resolve(jobsetText, [podsText, new Uint8Array()]);
  const gg2: GangReport = c2.gangGroups(jobsetText, [podsText]);
  const r5: Resolved = c2.resolveInNamespace(jobsetText, [podsText, podsText]);
  const kinds: OwnerKind[] = wl.missingOwners([podsText], [{ apiVersion: 'v1', kind: 'X' }]);
  const use: Usage = wl.usage(rows);
  const liveShape: number = one1.plural.length + reason.length + r4.totals.pods + r5.totals.pods + gg2.groups.length + kinds.length
    + use.total.gpus + (use.byNamespace[0]?.workloads ?? 0) + (rows[0]?.statuses.length ?? 0);
  // @ts-expect-error: listWorkloads options have no `namespace`
  c2.listWorkloads([jobsetText], { namespace: 'x' });
  const size: number = c.size;
  const catalogLimits: Limits = new Catalog({ limits: { maxSteps: 10 } }).limits;

  const one: Definition = wl.compile('...', { maxSteps: 1 });
  const two: Definition = new Definition({ kind: 'Karta' });
  const many: Definition[] = wl.compileAll(new Uint8Array());
  const val: ValidationResult[] = wl.validate('...');
  const valid: boolean = val[0]!.valid;
  const gvk: string | null | undefined = val[0]!.gvk;
  const outs: wl.JsonValue[] = wl.evaluate('.a', { a: 1 }, { maxOutputs: 3 });
  const docs: wl.JsonValue[] = wl.parse('a: 1');
  const sm: wl.SourceMap = wl.sourceMap('a: 1', ['a', { path: 'a', span: [0, 1], nearest: true }], { maxSteps: 9 });
  const place = sm.places[0];
  const line: number | undefined = place?.value.start.line;
  const spanAt: number | undefined = place?.span?.start.offset;
  const templates: wl.PodTemplatePlace[] = d.sourceMap(jobsetText, [{ object: 0, component: 'c', path: 'spec' }]).objects[0]!.podTemplates;
  const catalogMap: wl.SourceMap = c.sourceMap(jobsetText);
  const amounts: wl.HumanAmounts = wl.humanAmounts([catalogMap]);
  const cores: string | undefined = amounts.millicores['500'];
  void [line, spanAt, templates, cores];
  // @ts-expect-error: a question needs a path
  wl.sourceMap('a: 1', [{ document: 1 }]);
  const lim: Limits = wl.limits({ maxSteps: 5 });
  const def: Limits = wl.defaultLimits();

  try {
    wl.compile('');
  } catch (e) {
    if (e instanceof WorkloadLensError) {
      const code: string = e.code;
      const loc: Location = e.location;
      const line: number | null | undefined = loc.line;
      const lim2: string | undefined = e.limit;
      const f: Finding[] | undefined = e.findings;
      const detail: string = e.detail;
      const msg: string = e.message;
      void [code, line, lim2, f, detail, msg];
    }
    if (e instanceof ValidationError || e instanceof ParseError || e instanceof LimitError
      || e instanceof NoDefinitionError || e instanceof UsageError) {
      const w: WorkloadLensError = e;
      void w;
    }
  }

  // Wrong calls.
  // @ts-expect-error: an object or text is required
  wl.resolve(42);
  // @ts-expect-error: unknown option
  wl.resolve(jobsetText, { pod: [] });
  // @ts-expect-error: unknown limit
  wl.limits({ maxStep: 3 });
  // @ts-expect-error: limits are numbers
  wl.evaluate('.', null, { maxSteps: '3' });
  // @ts-expect-error: the expression is a string
  wl.evaluate(1);
  // @ts-expect-error: two arguments
  wl.lookup('v1');
  // @ts-expect-error: name is read-only
  d.name = 'x';
  // @ts-expect-error: unknown component update kind
  d.update(jobsetText, { components: { x: { podSpec: {} } } });
  // @ts-expect-error: pods are required
  d.gangGroups(jobsetText);
  // @ts-expect-error: the component is required
  d.subtreeScale(jobsetText);
  // @ts-expect-error: a Resolved has no `gpus`
  r.gpus;
  // @ts-expect-error: bundled is a boolean
  new Catalog({ bundled: 'yes' });
  // @ts-expect-error: the status may be null
  d.status(jobsetText).matchedStatuses;
  // @ts-expect-error: size is a number, not a method
  c.size();
  // @ts-expect-error: a catalog's limits are read-only
  c.limits = lim;
  // @ts-expect-error: diagnose takes its pods in the options
  d.diagnose(jobsetText, podsText);
  // @ts-expect-error: unknown diagnose option
  c.diagnose(jobsetText, { event: [] });
  // @ts-expect-error: a definition's diagnose chooses no definitions
  d.diagnose(jobsetText, { definitions: [] });
  // @ts-expect-error: a finding's code is one of the engine's codes
  const badCode: 'not-a-code' = dg.findings[0]!.code;

  void [v, b, gpus, roles, s, name, origin, apiVersion, comps, can, warnings, limits, doc, r2, st, ex, op, re, at, gg,
    sources, l1, l2, g, all, r3, size, one, two, many, valid, outs, docs, lim, def, groups, catalogLimits, gvk,
    shape, liveShape, dgShape, dg3, dg4, dg5, badCode];
  return gpus;
}
