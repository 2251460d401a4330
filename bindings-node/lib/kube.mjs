// workload-lens/kube: workloads of a live cluster, read with the official
// @kubernetes/client-node (an optional peer dependency: install it beside
// workload-lens to use this module). Node only (the native build).
//
// Only IO lives here: the KubeConfig's connection (TLS, credentials, proxy)
// for raw GETs whose response text goes to the engine as it is (discovery,
// chunked lists, objects). What the objects mean is the engine's: which type
// a token names (Catalog.findType), which types are covered
// (coveredTypes), the definitions stored in the cluster
// (withClusterDefinitions), the listing and its top-level rule
// (listWorkloads), the owners to fetch for pod attribution (missingOwners),
// the live state (resolve with pods), gang groups and usage.

import http from 'node:http';
import https from 'node:https';

import {
  ApiError, Catalog, Definition, ForbiddenError, NoConfigError, NotFoundError, UnauthorizedError,
  UnreachableError, compileAll, missingOwners, usage as usageOf,
} from '../index.mjs';

/** How many rounds of owner kinds `describe` fetches (Pod -> Job -> JobSet,
 * Pod -> StatefulSet -> Pod -> StatefulSet -> LeaderWorkerSet). */
const OWNER_ROUNDS = 6;

/** The definitions stored in a cluster: [group, kind, resource]. */
const DEFINITION_SOURCES = [
  ['run.ai', 'Karta', 'kartas.run.ai'],
  ['optimization.nvidia.com', 'ResourceInterface', 'resourceinterfaces.optimization.nvidia.com'],
];

// --- errors ------------------------------------------------------------------

/** A failure to read the cluster: the engine's live-cluster error classes
 * (ApiError, code `api`, is the base of the others), under this module's
 * name for the base. */
const ClusterError = ApiError;
export { ClusterError, UnreachableError, UnauthorizedError, ForbiddenError, NotFoundError, NoConfigError };

/** The error of an HTTP answer that is not 2xx. */
function httpError(status, text, path, server) {
  let body;
  try { body = JSON.parse(text); } catch { body = undefined; }
  const detail = (typeof body?.message === 'string' && body.message) || text.trim().slice(0, 300) || `HTTP ${status}`;
  const fields = { status, reason: typeof body?.reason === 'string' ? body.reason : undefined, path, server };
  switch (status) {
    case 401: return new UnauthorizedError(`${server} refused the credentials (GET ${path}): ${detail}`, fields);
    case 403: return new ForbiddenError(`forbidden (GET ${path}): ${detail}`, fields);
    case 404: return new NotFoundError(`not found (GET ${path}): ${detail}`, fields);
    default: return new ClusterError(`GET ${path}: ${detail} (HTTP ${status})`, fields);
  }
}

// --- the connection ------------------------------------------------------------

let clientModule;
/** @kubernetes/client-node, loaded on first use (an optional peer dependency). */
async function client() {
  if (!clientModule) {
    try {
      clientModule = await import('@kubernetes/client-node');
    } catch (e) {
      if (e?.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('@kubernetes/client-node')) {
        throw new Error('workload-lens/kube needs @kubernetes/client-node (an optional peer dependency): npm install @kubernetes/client-node', { cause: e });
      }
      throw e;
    }
  }
  return clientModule;
}

/** Percent-encoding of a path segment or query value. */
const enc = encodeURIComponent;

/** The path of a resource's collection (in `namespace` when the resource is
 * namespaced), or of one object. */
function resourcePath(r, namespace, name) {
  let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (namespace && r.namespaced) p += `/namespaces/${enc(namespace)}`;
  p += `/${r.plural}`;
  if (name !== undefined) p += `/${enc(name)}`;
  return p;
}

/** `plural.group` (or `plural` for the core group): how warnings name a type. */
const typeName = (r) => (r.group ? `${r.plural}.${r.group}` : r.plural);

/** The warning for a type that could not be read (403: `forbidden`, 404:
 * `no_crd`, else `unreachable`), `object` its `plural.group`. */
function typeWarning(r, e, what) {
  const reason = e instanceof ForbiddenError ? 'forbidden' : e instanceof NotFoundError ? 'no_crd' : 'unreachable';
  return { reason, object: typeName(r), message: `${what}: ${e.message}` };
}

/**
 * The owners the engine names for `items` (list pages), fetched kind by kind
 * in at most OWNER_ROUNDS rounds, as the CLI and Python do: the pages of the
 * owner kinds not in `tried` (with `uncoveredOnly`, only kinds no definition
 * covers: a covered controller ends a chain by itself). A kind that cannot
 * be listed is a warning (`why(resource)` says what is lost); an
 * unreachable server or refused credentials end the call.
 */
async function fetchOwners(s, served, catalog, items, tried, warnings, { namespace, chunkSize, uncoveredOnly = false, why }) {
  const owners = [];
  for (let round = 0; round < OWNER_ROUNDS; round += 1) {
    const missing = missingOwners([...items, ...owners], tried, catalog.limits)
      .filter((k) => !uncoveredOnly || !catalog.lookup(k.apiVersion, k.kind));
    if (missing.length === 0) break;
    for (const kind of missing) {
      tried.push(kind);
      const r = resourceFor(served, kind);
      if (!r) continue;
      try {
        owners.push(...await s.pages(r, { namespace, chunkSize }));
      } catch (e) {
        if (e instanceof UnreachableError || e instanceof UnauthorizedError) throw e;
        warnings.push(typeWarning(r, e, why(r)));
      }
    }
  }
  return owners;
}

/** The served resource for an owner reference's apiVersion and kind: that
 * version, else the group's preferred one, else any. */
function resourceFor(served, { apiVersion, kind }) {
  const i = apiVersion.lastIndexOf('/');
  const [group, version] = i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
  const same = served.filter((r) => r.group === group && r.kind === kind);
  return same.find((r) => r.version === version) ?? same.find((r) => r.preferred) ?? same[0];
}

/** The ApiResource objects of one discovery list, subresources left out. */
function resourcesOf(group, version, preferred, list) {
  return (list?.resources ?? []).filter((r) => typeof r.name === 'string' && !r.name.includes('/')).map((r) => ({
    group,
    version,
    kind: r.kind,
    plural: r.name,
    singular: r.singularName ?? '',
    shortNames: r.shortNames ?? [],
    namespaced: Boolean(r.namespaced),
    preferred,
  }));
}

/** One top-level call's connection: GETs with the KubeConfig's credentials,
 * the response text as it is. */
class Session {
  constructor(server, options, timeout) {
    this.server = server.replace(/\/+$/, '');
    this.options = options;
    this.timeout = timeout;
  }

  /** GET a path: the response text (2xx), else a ClusterError. */
  get(path) {
    const url = new URL(this.server + path);
    const mod = url.protocol === 'http:' ? http : https;
    const o = this.options;
    const opts = {
      ...o,
      method: 'GET',
      headers: { ...(o.headers ?? {}), Accept: 'application/json' },
    };
    return new Promise((resolveText, reject) => {
      const unreachable = (e) => new UnreachableError(
        `cannot reach ${this.server} (GET ${path}): ${e?.message ?? e}; is the cluster up, and is this the right context?`,
        { path, server: this.server, cause: e },
      );
      let req;
      try {
        req = mod.request(url, opts, (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('error', (e) => reject(unreachable(e)));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode >= 200 && res.statusCode < 300) resolveText(text);
            else reject(httpError(res.statusCode, text, path, this.server));
          });
        });
      } catch (e) {
        reject(unreachable(e));
        return;
      }
      req.setTimeout(this.timeout, () => req.destroy(new Error(`no answer in ${this.timeout} ms`)));
      req.on('error', (e) => reject(unreachable(e)));
      req.end();
    });
  }

  /** JSON of a GET. */
  async json(path) {
    const text = await this.get(path);
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new ClusterError(`GET ${path}: the answer is not JSON: ${e.message}`, { path, server: this.server });
    }
  }

  /** Every served resource, from the raw discovery endpoints (/api/v1,
   * /apis, /apis/G/V). A group version whose discovery fails (an aggregated
   * API that is down) is left out with a `discovery` warning. */
  async discover(warnings = []) {
    const [core, groups] = await Promise.all([this.json('/api/v1'), this.json('/apis')]);
    const wanted = [];
    for (const g of groups.groups ?? []) {
      const preferred = g.preferredVersion?.version;
      for (const v of g.versions ?? []) wanted.push([g.name, v.version, v.version === preferred]);
    }
    const lists = await Promise.allSettled(wanted.map(([g, v]) => this.json(`/apis/${g}/${v}`)));
    const out = resourcesOf('', 'v1', true, core);
    lists.forEach((l, i) => {
      const [g, v, preferred] = wanted[i];
      if (l.status === 'fulfilled') out.push(...resourcesOf(g, v, preferred, l.value));
      else if (l.reason instanceof UnreachableError || l.reason instanceof UnauthorizedError) throw l.reason;
      else warnings.push({ reason: 'unreachable', object: `${g}/${v}`, message: `discovery of ${g}/${v} failed, its types are left out: ${l.reason?.message ?? l.reason}` });
    });
    return out;
  }

  /** Every page of a list (limit/continue), as the server's texts. */
  async pages(r, { namespace, labelSelector, chunkSize = 500 } = {}) {
    const base = resourcePath(r, namespace);
    const pages = [];
    let cont = '';
    for (;;) {
      const q = [];
      if (chunkSize > 0) q.push(`limit=${chunkSize}`);
      if (cont) q.push(`continue=${enc(cont)}`);
      if (labelSelector) q.push(`labelSelector=${enc(labelSelector)}`);
      const path = q.length ? `${base}?${q.join('&')}` : base;
      const text = await this.get(path);
      pages.push(text);
      let next;
      try {
        next = JSON.parse(text)?.metadata?.continue;
      } catch (e) {
        throw new ClusterError(`GET ${path}: the answer is not a list: ${e.message}`, { path, server: this.server });
      }
      if (!next) return pages;
      cont = next;
    }
  }
}

// --- the cluster ------------------------------------------------------------------

const isPlainObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);

/** A live cluster, read through a KubeConfig. */
export class Cluster {
  #kc;
  #options;
  #base;
  #definitions;
  #timeout;

  /**
   * @param {{kubeConfig?: import('@kubernetes/client-node').KubeConfig, kubeconfigPath?: string,
   *   context?: string, definitions?: Array<import('../index.mjs').Definition | string | object>,
   *   engine?: import('../index.mjs').Catalog, timeout?: number}} [options]
   *   default: `KubeConfig.loadFromDefault()` ($KUBECONFIG, ~/.kube/config,
   *   else the in-cluster service account); `definitions` win over the
   *   definitions stored in the cluster, which win over the catalog of
   *   `engine` (default: the bundled catalog); `timeout` in ms per request
   *   (default 30000).
   */
  constructor(options = {}) {
    if (!isPlainObject(options)) throw new TypeError('options must be an object');
    const { kubeConfig, kubeconfigPath, context, definitions = [], engine, timeout = 30_000 } = options;
    if (engine !== undefined && !(engine instanceof Catalog)) throw new TypeError('engine must be a Catalog');
    if (!Array.isArray(definitions)) throw new TypeError('definitions must be an array');
    if (!(Number.isFinite(timeout) && timeout > 0)) throw new TypeError('timeout must be a positive number of milliseconds');
    this.#options = { kubeConfig, kubeconfigPath, context };
    this.#timeout = timeout;
    this.#base = engine ?? new Catalog();
    const limits = this.#base.limits;
    this.#definitions = definitions.flatMap((d) => (d instanceof Definition ? [d] : compileAll(d, limits)));
  }

  /** The KubeConfig (loaded on first use). */
  async kubeConfig() {
    if (!this.#kc) {
      const { kubeConfig, kubeconfigPath, context } = this.#options;
      let kc = kubeConfig;
      const where = kc ? 'the KubeConfig given' : kubeconfigPath ? `kubeconfig ${kubeconfigPath}` : 'the default kubeconfig';
      const unusable = (why, cause) => new NoConfigError(
        `no usable cluster configuration (${where}): ${why}; pass kubeconfigPath or kubeConfig, or set KUBECONFIG`,
        { cause },
      );
      if (!kc) {
        const { KubeConfig } = await client();
        kc = new KubeConfig();
        try {
          if (kubeconfigPath) kc.loadFromFile(kubeconfigPath);
          else kc.loadFromDefault();
        } catch (e) {
          throw unusable(e?.message ?? String(e), e);
        }
      }
      if (context) {
        if (!kc.getContextObject(context)) throw unusable(`it has no context named '${context}'`);
        kc.setCurrentContext(context);
      }
      if (!kc.getCurrentCluster()?.server) throw unusable('its current context names no cluster');
      this.#kc = kc;
    }
    return this.#kc;
  }

  /** The namespace of the KubeConfig's current context (`default` when none). */
  async namespace() {
    const kc = await this.kubeConfig();
    return kc.getContextObject(kc.getCurrentContext())?.namespace || 'default';
  }

  async #session() {
    const kc = await this.kubeConfig();
    const cluster = kc.getCurrentCluster();
    const opts = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(opts);
    } catch (e) {
      throw new UnreachableError(`cannot use the credentials of the KubeConfig for ${cluster.server}: ${e?.message ?? e}`, { server: cluster.server, cause: e });
    }
    return new Session(cluster.server, opts, this.#timeout);
  }

  /** Every resource type the server serves (subresources left out), as
   * the engine's ApiResource objects. */
  async types() {
    const s = await this.#session();
    return s.discover([]);
  }

  /** The engine for the cluster: the catalog, the cluster's definitions
   * over it, the user's over those. */
  async #engine(s, served, warnings) {
    const pages = [];
    let installed = 0;
    for (const [group, kind, crd] of DEFINITION_SOURCES) {
      const r = served.find((x) => x.group === group && x.kind === kind && x.preferred)
        ?? served.find((x) => x.group === group && x.kind === kind);
      if (!r) continue;
      installed += 1;
      try {
        pages.push(...await s.pages(r));
      } catch (e) {
        if (e instanceof UnreachableError || e instanceof UnauthorizedError) throw e;
        warnings.push(typeWarning(r, e, `the definitions in the cluster (${crd}) could not be listed, they are left out`));
      }
    }
    if (installed === 0) {
      warnings.push({ reason: 'no_crd', object: 'kartas.run.ai', message: 'no definitions in the cluster: neither kartas.run.ai nor resourceinterfaces.optimization.nvidia.com is installed; the catalog is used' });
    }
    // A new catalog every call: the base's definitions, the cluster's over
    // them, the base's own over those, then the user's `definitions`.
    const { catalog, warnings: w } = this.#base.withClusterDefinitions(pages);
    for (const x of w) warnings.push({ reason: x.reason, object: x.object, message: `definition ${x.object}: ${x.message}` });
    for (const d of this.#definitions) catalog.add(d);
    return catalog;
  }

  /**
   * The workloads of one type (a kind, plural, short name or
   * kind.version.group), or of every covered type (`allTypes`: top-level
   * only), newest first: `{workloads, warnings, forbidden}`.
   */
  async list(type, options = {}) {
    if (isPlainObject(type) && options && Object.keys(options).length === 0) {
      options = type;
      type = undefined;
    }
    if (!isPlainObject(options)) throw new TypeError('options must be an object');
    const {
      namespace, allNamespaces = false, labelSelector, phases = [], allTypes = false, chunkSize = 500,
    } = options;
    if (type === undefined && !allTypes) throw new TypeError('list needs a type, or allTypes: true');
    if (type !== undefined && typeof type !== 'string') throw new TypeError('the type must be a string');
    if (!Number.isInteger(chunkSize) || chunkSize < 0) throw new TypeError('chunkSize must be a non-negative integer (0: no chunking)');
    const warnings = [];
    const forbidden = [];
    const s = await this.#session();
    const served = await s.discover(warnings);
    const catalog = await this.#engine(s, served, warnings);
    const types = allTypes ? catalog.coveredTypes(served) : [catalog.findType(type, served)];
    const ns = allNamespaces ? undefined : (namespace ?? await this.namespace());
    const results = await Promise.all(types.map(async (r) => {
      try {
        return await s.pages(r, { namespace: ns, labelSelector, chunkSize });
      } catch (e) {
        if (!allTypes || e instanceof UnreachableError || e instanceof UnauthorizedError) throw e;
        if (e instanceof ForbiddenError) forbidden.push(typeName(r));
        warnings.push(typeWarning(r, e, `${typeName(r)} ${ns ? `in ${ns} ` : ''}could not be listed, its workloads are left out`));
        return [];
      }
    }));
    const pages = results.flat();
    // Every type: the owners of kinds no definition covers, so that the
    // engine can follow controller chains through them (a covered
    // controller ends a chain by itself), in rounds as the CLI and Python.
    const owners = allTypes && pages.length > 0
      ? await fetchOwners(s, served, catalog, pages, [], warnings, {
        namespace: ns,
        chunkSize,
        uncoveredOnly: true,
        why: (r) => `${typeName(r)} could not be listed, so controller chains through them are not followed`,
      })
      : [];
    const workloads = pages.length === 0 ? []
      : catalog.listWorkloads(pages, { owners, topLevelOnly: allTypes, phases });
    forbidden.sort();
    return { workloads, warnings, forbidden };
  }

  /**
   * One workload with its live pods: `{object, resolved, gang, warnings}`
   * (`object` as read). The pods
   * of its namespace are attributed through their controller chains, whose
   * owners are fetched kind by kind as the engine names them.
   */
  async describe(type, name, options = {}) {
    if (typeof type !== 'string') throw new TypeError('the type must be a string');
    if (typeof name !== 'string' || name === '') throw new TypeError('the name must be a non-empty string');
    if (!isPlainObject(options)) throw new TypeError('options must be an object');
    const warnings = [];
    const s = await this.#session();
    const served = await s.discover(warnings);
    const catalog = await this.#engine(s, served, warnings);
    const r = catalog.findType(type, served);
    const ns = r.namespaced ? (options.namespace ?? await this.namespace()) : undefined;
    const obj = await s.get(resourcePath(r, ns, name));
    if (!r.namespaced) {
      return { object: JSON.parse(obj), resolved: catalog.resolve(obj), gang: catalog.gangGroups(obj, []), warnings };
    }
    const podsResource = served.find((x) => x.group === '' && x.plural === 'pods');
    let items = [];
    try {
      items = podsResource ? await s.pages(podsResource, { namespace: ns }) : [];
    } catch (e) {
      if (e instanceof UnreachableError || e instanceof UnauthorizedError) throw e;
      warnings.push(typeWarning(podsResource, e, `the pods in ${ns} could not be listed, the live state is left out`));
      return { object: JSON.parse(obj), resolved: catalog.resolve(obj), gang: { groups: [], pods: [] }, warnings };
    }
    const own = JSON.parse(obj);
    items.push(...await fetchOwners(s, served, catalog, items, [{ apiVersion: own.apiVersion, kind: own.kind }], warnings, {
      namespace: ns,
      why: (r) => `${typeName(r)} in ${ns} could not be listed, so pod ownership through them is not followed`,
    }));
    return { object: own, resolved: catalog.resolveInNamespace(obj, items), gang: catalog.gangGroups(obj, items), warnings };
  }

  /**
   * GPU and pod requests by namespace and by type (the engine's usage of a
   * listing): `{byNamespace, byType, total, warnings, forbidden}`. Without a
   * type, every covered type (top-level only). Options as for `list`.
   */
  async usage(type, options = {}) {
    if (isPlainObject(type) && Object.keys(options ?? {}).length === 0) {
      options = type;
      type = undefined;
    }
    const opts = { ...options };
    if (type === undefined) opts.allTypes = true;
    const { workloads, warnings, forbidden } = await this.list(type, opts);
    return { ...usageOf(workloads), warnings, forbidden };
  }
}
