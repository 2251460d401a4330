// Type test of workload-lens/kube (tsc --strict --noEmit, with
// types-example.ts): the live-cluster API used once, wrong calls rejected.
import { KubeConfig } from '@kubernetes/client-node';
import {
  Cluster, ClusterError, ForbiddenError, NotFoundError, UnauthorizedError, UnreachableError,
  type ClusterWarning, type Description, type Listing,
} from 'workload-lens/kube';
import { Catalog, WorkloadLensError, type ApiResource, type Usage } from 'workload-lens';

export async function live(): Promise<number> {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const c = new Cluster({ kubeConfig: kc, context: 'x', definitions: ['...'], engine: new Catalog(), timeout: 5000 });
  new Cluster({ kubeconfigPath: '/x' });
  new Cluster();
  const types: ApiResource[] = await c.types();
  const ns: string = await c.namespace();
  const l: Listing = await c.list('jobsets', { namespace: 'a', labelSelector: 'a=b', phases: ['Running'], chunkSize: 5 });
  const all: Listing = await c.list({ allTypes: true, allNamespaces: true });
  const w: ClusterWarning | undefined = all.warnings[0];
  const d: Description = await c.describe('jobset', 'llama', { namespace: 'a' });
  const u: Usage = await c.usage();
  const u2 = await c.usage('jobsets', { allNamespaces: true });
  const f: string[] = u2.forbidden;
  try {
    await c.describe('x', 'y');
  } catch (e) {
    if (e instanceof ForbiddenError || e instanceof NotFoundError || e instanceof UnauthorizedError
      || e instanceof UnreachableError) {
      const code: 'unreachable' | 'unauthorized' | 'forbidden' | 'not_found' | 'no_config' | 'api' = e.code;
      void code;
    }
    // A ClusterError is a WorkloadLensError, as the engine's errors are.
    if (e instanceof ClusterError) {
      const base: WorkloadLensError = e;
      void base;
    }
    if (e instanceof ClusterError) return e.status ?? 0;
  }
  // @ts-expect-error: describe needs a name
  await c.describe('jobset');
  // @ts-expect-error: chunkSize is a number
  await c.list('jobsets', { chunkSize: '5' });
  // @ts-expect-error: the warning reasons are fixed
  const bad: ClusterWarning = { reason: 'other', object: '', message: '' };
  void [types, ns, l, w, d, u, f, bad];
  return l.workloads.length + d.gang.groups.length + u.total.gpus + (d.resolved.totals.pods);
}
