// workload-lens/kube: workloads of a live cluster, read with the official
// @kubernetes/client-node (an optional peer dependency: install it beside
// workload-lens to use this module). Node only (the native build).
//
// Only IO lives here: the KubeConfig's connection (server, TLS, credentials,
// proxy) for plain GETs. Everything else is the engine's cluster protocol
// (Catalog.clusterSession, docs/api.md): which requests to make
// (discovery, the definitions stored in the cluster, pages, the owner
// walk), what each reply means, which failures are warnings and which end
// the call, and the outcome. This module makes the requests it is given and
// feeds back `{status, body}`, or `{error}` when there was no answer.

import http from 'node:http';
import https from 'node:https';

import {
  ApiError, Catalog, Definition, ForbiddenError, NoConfigError, NotFoundError, UnauthorizedError,
  UnreachableError, compileAll, usage as usageOf,
} from '../index.mjs';

/** A failure to read the cluster: the engine's live-cluster error classes
 * (ApiError, code `api`, is the base of the others), under this module's
 * name for the base. */
const ClusterError = ApiError;
export { ClusterError, UnreachableError, UnauthorizedError, ForbiddenError, NotFoundError, NoConfigError };

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

/**
 * GET `path` (with its query) from `server` with the KubeConfig's request
 * options: the reply as the protocol takes it, `{status, body}` whatever
 * the status, or `{error}` when no whole answer came (refused, DNS, TLS, no
 * answer within `timeout` ms, the connection dropped).
 */
function get(server, options, timeout, path) {
  return new Promise((reply) => {
    let done = false;
    const settle = (r) => {
      if (!done) {
        done = true;
        reply(r);
      }
    };
    const fail = (e) => settle({ error: String(e?.message ?? e) });
    let req;
    try {
      const url = new URL(server + path);
      const opts = { ...options, method: 'GET', headers: { ...(options.headers ?? {}), Accept: 'application/json' } };
      req = (url.protocol === 'http:' ? http : https).request(url, opts, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', fail);
        res.on('end', () => settle({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('close', () => fail(new Error('the connection closed before the answer was complete')));
      });
    } catch (e) {
      fail(e);
      return;
    }
    req.setTimeout(timeout, () => req.destroy(new Error(`no answer in ${timeout} ms`)));
    req.on('error', fail);
    req.end();
  });
}

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

  /** The catalog a call starts its session with: the base's, and the
   * user's `definitions` over it (the session puts the cluster's
   * definitions between the two). A new one each call, as the base may
   * have changed; withClusterDefinitions([]) is the base's copy. */
  #catalog() {
    if (this.#definitions.length === 0) return this.#base;
    const { catalog } = this.#base.withClusterDefinitions([]);
    for (const d of this.#definitions) catalog.add(d);
    return catalog;
  }

  /** One operation of the engine's cluster protocol, driven to its end
   * over the KubeConfig's connection: each batch of requests at once, the
   * replies fed back in order. The outcome, or the error that ended it. */
  async #run(operation) {
    const kc = await this.kubeConfig();
    const server = kc.getCurrentCluster().server.replace(/\/+$/, '');
    const options = { headers: {} };
    try {
      await kc.applyToHTTPSOptions(options);
    } catch (e) {
      throw new UnreachableError(`cannot use the credentials of the KubeConfig for ${server}: ${e?.message ?? e}`, { server, cause: e });
    }
    const session = this.#catalog().clusterSession(operation, { server });
    try {
      for (let requests = session.requests(); requests.length; requests = session.requests()) {
        session.feed(await Promise.all(requests.map((path) => get(server, options, this.#timeout, path))));
      }
      return session.finish();
    } catch (e) {
      // The fields this module's errors have always had: the failed
      // request (also in location.request) and the server.
      if (e instanceof ApiError) {
        if (e.location?.request) e.path = e.location.request;
        e.server = server;
      }
      throw e;
    }
  }

  /** Every resource type the server serves (subresources left out), as
   * the engine's ApiResource objects. */
  async types() {
    return (await this.#run('discover')).served;
  }

  /**
   * The workloads of one type (a kind, plural, short name or
   * kind.version.group), or of every covered type (`allTypes`: top-level
   * only), by namespace and name: `{workloads, warnings, forbidden}`.
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
    if (!Array.isArray(phases)) throw new TypeError('phases must be an array of strings');
    const query = { phases, allTypes, chunkSize };
    // With allTypes, every covered type: the type argument is left out.
    if (!allTypes) query.type = type;
    if (!allNamespaces) query.namespace = namespace ?? await this.namespace();
    if (labelSelector !== undefined) query.labelSelector = labelSelector;
    const { workloads, warnings, forbidden } = await this.#run({ list: query });
    return { workloads, warnings, forbidden };
  }

  /**
   * One workload with its live pods: `{object, resolved, gang, events, eventsLeftOut, diagnosis, warnings}`
   * (`object` as read). The pods of its namespace are attributed through
   * their controller chains, whose owners the engine's protocol fetches.
   */
  async describe(type, name, options = {}) {
    if (typeof type !== 'string') throw new TypeError('the type must be a string');
    if (typeof name !== 'string' || name === '') throw new TypeError('the name must be a non-empty string');
    if (!isPlainObject(options)) throw new TypeError('options must be an object');
    const namespace = options.namespace ?? await this.namespace();
    const {
      object, resolved, gang, events, eventsLeftOut, diagnosis, warnings,
    } = await this.#run({ describe: { type, name, namespace } });
    return {
      object, resolved, gang, events, eventsLeftOut, diagnosis, warnings,
    };
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
