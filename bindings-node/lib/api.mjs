// The public JavaScript API of workload-lens, built over a raw backend: the
// native addon (index.mjs, index.cjs) or the WASM module (browser.mjs). Both
// export the same raw interface, whose values cross as JSON text. This layer
// only converts: arguments to JSON text, JSON results to plain objects, and
// raw errors to the error classes of ./errors.mjs. Nothing here interprets
// workloads.

import {
  LimitError, WorkloadLensError, fromRaw, makeError, usage,
} from './errors.mjs';

export * from './errors.mjs';

const WRAP = Symbol('workload-lens internal');

const isBytes = (x) => ArrayBuffer.isView(x) && !(x instanceof DataView);
const isPlainObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x) && !isBytes(x);
const kindOf = (x) => (x === null ? 'null' : Array.isArray(x) ? 'an array'
  : isBytes(x) ? x.constructor.name : typeof x === 'object' ? (x.constructor?.name ?? 'object') : typeof x);

/** A model object of @kubernetes/client-node (or any OpenAPI-generated
 * client of the same shape): its class lists `{name, baseName}` pairs. */
const modelMap = (v) => {
  const m = v?.constructor?.attributeTypeMap;
  return Array.isArray(m) ? m : null;
};

function fromModel(v, map) {
  // As the client's ObjectSerializer writes it: wire names (baseName), unset
  // attributes left out. Nested models are converted by the replacer in turn.
  const out = {};
  for (const a of map) {
    const x = v[a.name];
    if (x !== undefined) out[a.baseName ?? a.name] = x;
  }
  return out;
}

function replacer(_key, v) {
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw usage(`the value cannot be represented as JSON: ${v} is not a JSON number`);
    return v;
  }
  if (typeof v === 'bigint') {
    throw usage('the value cannot be represented as JSON: a BigInt (use a number, or a string in YAML/JSON text)');
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const map = modelMap(v);
    if (map) return fromModel(v, map);
  }
  return v;
}

/** A JS value as JSON text (JSON.stringify, with checks: no NaN, Infinity or
 * BigInt; Kubernetes client models by their wire names). */
function toJson(value) {
  try {
    const s = JSON.stringify(value, replacer);
    return s === undefined ? 'null' : s;
  } catch (e) {
    if (e instanceof WorkloadLensError) throw e;
    if (e instanceof RangeError) {
      throw new LimitError('the value nests too deeply to be converted to JSON (the JavaScript stack)', {
        code: 'limit', limit: 'maxDepth',
      });
    }
    throw usage(`the value cannot be represented as JSON: ${e?.message ?? e}`);
  }
}

/**
 * Build the public API over a raw backend.
 *
 * @param {object | (() => object)} source the raw module, or a function
 *   returning the current one (WASM: a new instance after a trap)
 * @param {{generation?: () => number, guard?: <T>(f: () => T) => T, version?: string}} [hooks]
 *   `generation` changes when the backend was re-instantiated (handles made
 *   before are then rebuilt); `guard` runs every raw call (WASM: turns a trap
 *   into code `internal` and schedules the re-instantiation).
 */
export function makeApi(source, hooks = {}) {
  const raw = typeof source === 'function' ? source : () => source;
  const generation = hooks.generation ?? (() => 0);
  const guard = hooks.guard ?? ((f) => f());

  /** Run a raw call; raw errors become the error classes. */
  const call = (f) => {
    try {
      return guard(f);
    } catch (e) {
      throw fromRaw(e);
    }
  };
  const parsed = (f) => JSON.parse(call(f));

  /** A raw object (NativeDefinition, NativeCatalog) that is rebuilt by `make`
   * when the backend has been re-instantiated since it was made. */
  class Handle {
    constructor(make, obj) {
      this.make = make;
      this.gen = generation();
      this.obj = obj === undefined ? call(make) : obj;
    }

    get() {
      const g = generation();
      if (this.gen !== g || this.obj === undefined) {
        const o = call(this.make);
        if (o === null || o === undefined) {
          throw makeError('internal', 'internal error in workload-lens: a definition could not be restored after the engine restarted');
        }
        this.obj = o;
        this.gen = g;
      }
      return this.obj;
    }
  }

  // --- arguments --------------------------------------------------------

  const decoder = new TextDecoder('utf-8', { fatal: true });

  /** YAML/JSON text from a string or bytes; invalid UTF-8 gives the engine's
   * located parse error. */
  function textOf(x, what) {
    if (typeof x === 'string') return x;
    if (isBytes(x)) {
      const bytes = x instanceof Uint8Array ? x : new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
      try {
        return decoder.decode(bytes);
      } catch {
        call(() => raw().parseBytes(bytes, null));
        throw makeError('parse', 'the input is not valid UTF-8');
      }
    }
    throw new TypeError(`${what} must be YAML/JSON text (a string or a Uint8Array), not ${kindOf(x)}`);
  }

  function limitsOf(limits) {
    if (limits === undefined || limits === null) return null;
    if (!isPlainObject(limits)) throw new TypeError(`limits must be an object of limit values, not ${kindOf(limits)}`);
    return toJson(limits);
  }

  /** A Kubernetes object: a plain object (or client model) or YAML/JSON text. */
  function objOf(obj, what = 'the object') {
    if (typeof obj === 'string' || isBytes(obj)) return textOf(obj, what);
    if (obj !== null && typeof obj === 'object') return toJson(obj);
    throw new TypeError(`${what} must be an object or YAML/JSON text (a string or a Uint8Array), not ${kindOf(obj)}`);
  }

  /** Pods: an array of pod objects, a list object (`{kind: 'List' | 'PodList',
   * items}`), one pod, or text of any of these; the engine reads them all
   * (documents, lists, arrays) with its one reader of object lists. */
  function podsOf(pods) {
    if (typeof pods === 'string' || isBytes(pods)) return textOf(pods, 'pods');
    if (pods !== null && typeof pods === 'object') return toJson(pods);
    throw new TypeError(`pods must be an array of pod objects, a list object (List, PodList), a pod, or YAML/JSON text, not ${kindOf(pods)}`);
  }

  const isText = (x) => typeof x === 'string' || isBytes(x);

  /** Objects of one input, read as pods are: an array of objects, a list
   * object (`{kind: 'List' | 'EventList' | ..., items}`), one object, or
   * text of any of these. */
  function objectsOf(x, what, noun, listKinds) {
    if (typeof x === 'string' || isBytes(x)) return textOf(x, what);
    if (x !== null && typeof x === 'object') return toJson(x);
    throw new TypeError(`${what} must be an array of ${noun}, a list object (${listKinds}), one object, or YAML/JSON text, not ${kindOf(x)}`);
  }

  const DIAGNOSE_OPTIONS = ['pods', 'events', 'related'];

  /** The options of `diagnose`, checked: `{pods, events, related}` and
   * `extra` (the module function's). An unknown key (a pod or a PodList
   * given where the options go) is a TypeError, not a diagnosis without
   * pods. */
  function diagnoseOptions(options, extra = []) {
    if (options === undefined || options === null) return {};
    const names = [...DIAGNOSE_OPTIONS, ...extra];
    const shape = `{${names.join(', ')}}`;
    if (!isPlainObject(options)) throw new TypeError(`the options of diagnose must be an object ${shape}, not ${kindOf(options)}`);
    for (const k of Object.keys(options)) {
      if (!names.includes(k)) throw new TypeError(`unknown option ${JSON.stringify(k)} of diagnose: the options are ${shape}`);
    }
    return options;
  }

  /** `diagnose`'s pods, events and related objects as the raw call takes
   * them (`null`: none given). */
  function diagnoseInputs(options) {
    const { pods, events, related } = diagnoseOptions(options);
    const given = (x) => x !== undefined && x !== null;
    return [
      given(pods) ? podsOf(pods) : null,
      given(events) ? objectsOf(events, 'events', 'Event objects', 'List, EventList') : null,
      given(related) ? objectsOf(related, 'related', 'objects', 'List') : null,
    ];
  }

  /** Objects given as several inputs: an array of texts (each YAML/JSON
   * text of objects, such as one page of a Kubernetes list response, passed
   * as it is), or one input (a list object, an array of objects, an object,
   * or text), as the raw `Vec<String>` of texts. */
  function itemsOf(x, what) {
    if (Array.isArray(x) && x.length > 0 && x.every(isText)) return x.map((t) => textOf(t, what));
    if (isText(x)) return [textOf(x, what)];
    if (x !== null && typeof x === 'object') return [toJson(x)];
    throw new TypeError(`${what} must be an array of YAML/JSON texts (such as the pages of list responses), a list object, an array of objects, an object, or text, not ${kindOf(x)}`);
  }

  /** A raw function or method only some builds have (the live-cluster
   * calls are in the native build). */
  const needs = (owner, name) => {
    if (typeof owner?.[name] !== 'function') {
      const m = `${name} is not available in this build (the live-cluster calls are in the native build)`;
      throw new Error(JSON.stringify({ code: 'usage', message: m, display: m, location: {} }));
    }
    return owner;
  };

  /** The questions of a source map (an array of paths or query objects) as
   * JSON; `null` for none. */
  function queriesOf(queries) {
    if (queries === undefined || queries === null) return null;
    if (!Array.isArray(queries)) throw new TypeError(`queries must be an array of paths or {path, document, object, component, instance, span, expression, nearest}, not ${kindOf(queries)}`);
    return toJson(queries);
  }

  /** Served resources (an array of ApiResource objects) as JSON. */
  function servedOf(served) {
    if (!Array.isArray(served)) throw new TypeError(`the served resources must be an array of {group, version, kind, plural, ...}, not ${kindOf(served)}`);
    return toJson(served);
  }

  /** A definition source: `{text}` for text, `{json}` for an object (the
   * engine reads it with its keys sorted, whatever order JS kept). */
  function definitionSource(source) {
    if (typeof source === 'string' || isBytes(source)) return { text: textOf(source, 'the definition') };
    if (isPlainObject(source)) return { json: toJson(source) };
    throw new TypeError(`a definition must be YAML/JSON text (a string or a Uint8Array) or an object, not ${kindOf(source)}`);
  }

  const nameOf = (x, what) => {
    if (typeof x !== 'string') throw new TypeError(`${what} must be a string, not ${kindOf(x)}`);
    return x;
  };

  // --- definitions --------------------------------------------------------

  let nativeOf;

  /** A compiled workload definition. */
  class Definition {
    #h;
    #info;

    /**
     * @param {string | Uint8Array | object} source YAML/JSON text or the definition object
     * @param {object} [limits] camelCase Limits fields
     */
    constructor(source, limits) {
      if (source === WRAP) {
        this.#h = limits;
        return;
      }
      const { text, json } = definitionSource(source);
      const l = limitsOf(limits);
      this.#h = new Handle(text === undefined
        ? () => raw().NativeDefinition.compileOneObject(json, l)
        : () => raw().NativeDefinition.compile(text, l));
    }

    static {
      nativeOf = (d) => d.#h.get();
    }

    #n() { return this.#h.get(); }

    #i() {
      if (this.#info === undefined) this.#info = parsed(() => this.#n().info());
      return this.#info;
    }

    /** `metadata.name` of the definition. */
    get name() { return this.#i().name; }

    /** `'catalog'` (bundled) or `'user'`. */
    get origin() { return this.#i().origin; }

    /** The root group/version/kind (and apiVersion): the type this definition describes. */
    get gvk() {
      const { group, version, kind } = this.#i().gvk;
      return { group, version, kind, apiVersion: group ? `${group}/${version}` : version };
    }

    /** Component names, root first. */
    get components() { return [...this.#i().components]; }

    /** Whether the definition has suspend/resume actions. */
    get canSuspend() { return this.#i().canSuspend; }

    /** Validation warnings (unknown fields and the like). */
    get warnings() { return structuredClone(this.#i().warnings); }

    /** The limits this definition evaluates with. */
    get limits() { return { ...this.#i().limits }; }

    /** The definition as read (the engine's model of it). */
    toJSON() { return parsed(() => this.#n().definitionJson()); }

    /** Resolve an object; with `pods`, including the live state. */
    resolve(obj, pods) {
      const o = objOf(obj);
      const p = pods === undefined || pods === null ? null : podsOf(pods);
      return parsed(() => this.#n().resolve(o, p));
    }

    /** Why the workload is where it is (pending, degraded, suspended, not
     * progressing): `{workload, statuses, findings}`, the findings ranked
     * (blocking first, then warnings, then information), each with a stable
     * `code`, `severity`, `message`, `evidence` (at most 5; `moreEvidence`
     * counts the rest) and, when clear, `action`. `options.pods`: the pods
     * of the workload's namespace and their owners (as `resolve` takes
     * pods; other workloads' pods are left out), `options.events`: Event
     * objects (core/v1 or events.k8s.io/v1), `options.related`: related
     * objects (Kueue Workloads, gang schedulers' PodGroups and PodGangs); each an array of objects, a list object or
     * YAML/JSON text. */
    diagnose(obj, options) {
      const o = objOf(obj);
      const [p, e, r] = diagnoseInputs(options);
      return parsed(() => this.#n().diagnose(o, p, e, r));
    }

    /** Only the root status (`null` when the definition has no status definition). */
    status(obj) {
      const o = objOf(obj);
      return parsed(() => this.#n().status(o));
    }

    /** For each status category, which matcher matched or why not. */
    explainStatus(obj) {
      const o = objOf(obj);
      return parsed(() => {
        const n = this.#n();
        if (typeof n.explainStatus !== 'function') {
          throw new Error(JSON.stringify({ code: 'usage', message: 'explainStatus is not available in this build', display: 'explainStatus is not available in this build', location: {} }));
        }
        return n.explainStatus(o);
      });
    }

    /** Write values through the definition's paths: `{object, patch}`. */
    update(obj, request) {
      const o = objOf(obj);
      if (!isPlainObject(request)) throw new TypeError(`the update request must be an object, not ${kindOf(request)}`);
      const r = toJson(request);
      return parsed(() => this.#n().update(o, r));
    }

    /** Apply the definition's suspend actions: `{object, patch}`. */
    suspend(obj) {
      const o = objOf(obj);
      return parsed(() => this.#n().suspend(o));
    }

    /** Apply the definition's resume actions: `{object, patch}`. */
    resume(obj) {
      const o = objOf(obj);
      return parsed(() => this.#n().resume(o));
    }

    /** Place pods under components and instances (`obj` may be null). */
    attributePods(obj, pods) {
      const o = obj === null || obj === undefined ? null : objOf(obj);
      const p = podsOf(pods);
      return parsed(() => this.#n().attributePods(o, p));
    }

    /** Gang-scheduling groups of the workload's pods (`{groups: [], pods: []}`
     * when the definition has no gang scheduling instructions). */
    gangGroups(obj, pods) {
      const o = objOf(obj);
      const p = podsOf(pods);
      return parsed(() => this.#n().gangGroups(o, p));
    }

    /** `sourceMap` of a text, with where each component instance's pod
     * template is in each object this definition covers (`podTemplates`);
     * a question may name a `component` (and `instance`) and a path in its
     * pod template, as resolve's errors do (`location.objectPath`). */
    sourceMap(text, queries) {
      const t = textOf(text, 'the text');
      const q = queriesOf(queries);
      return parsed(() => this.#n().sourceMap(t, q));
    }

    /** The structure gang scheduling works on: `components`, `leaves`,
     * `parents`, `children`, `hasScaleDefinition` and, with gang scheduling
     * instructions, each component's `candidates`. */
    gangStructure() {
      return parsed(() => this.#n().gangStructure());
    }

    /** The subtree scale (gang minimum members) of `component` of the
     * object, of its instance `instance` when given (not undefined/null). */
    subtreeScale(obj, component, instance) {
      const o = objOf(obj);
      const c = nameOf(component, 'the component');
      const i = instance === undefined || instance === null ? null : nameOf(instance, 'the instance');
      return parsed(() => this.#n().subtreeScale(o, c, i));
    }

    get [Symbol.toStringTag]() { return 'Definition'; }
  }

  const wrapDefinition = (make, obj) => new Definition(WRAP, new Handle(make, obj));

  /** Every definition of a source (see definitionSource), compiled with `l`. */
  function compileAllHandles({ text, json }, l) {
    const all = text === undefined
      ? () => raw().NativeDefinition.compileObject(json, l)
      : () => raw().NativeDefinition.compileAll(text, l);
    return call(all).map((n, i) => wrapDefinition(() => all()[i], n));
  }

  // --- catalogs ---------------------------------------------------------------

  /** A set of definitions keyed by root GVK: the bundled catalog plus your
   * own, with limits (the engine's: for reading objects and pods, and for
   * compiling the catalog and the definitions added as sources). */
  /** One operation of the engine's cluster protocol (docs/api.md): the
   * engine says which requests to make and what the replies mean; the
   * caller makes plain GETs with its own client:
   *
   *     const s = catalog.clusterSession({ list: { type: 'jobsets', namespace: 'ml' } });
   *     for (let paths = s.requests(); paths.length; paths = s.requests()) {
   *       s.feed(await Promise.all(paths.map(get)));   // {status, body} or {error}
   *     }
   *     const listing = s.finish();
   *
   * A failure that ends the operation is thrown by feed and finish (an
   * ApiError subclass, with `status` and the request in `location.request`);
   * what the operation can do without comes back as `warnings`. */
  class ClusterSession {
    #native;

    constructor(native) { this.#native = native; }

    /** The paths (with their query) to GET now; empty when the operation is over. */
    requests() { return parsed(() => this.#native.requests()).map((r) => r.path); }

    /** The replies to `requests()`, in their order: `{status, body}` (the
     * body as a string) when the server answered, `{error}` when it could
     * not be reached. */
    feed(replies) {
      if (!Array.isArray(replies)) throw new TypeError(`replies must be an array, not ${kindOf(replies)}`);
      const r = toJson(replies.map((x) => (x && typeof x.status === 'number'
        ? { status: x.status, body: String(x.body ?? '') }
        : { error: String(x?.error ?? 'no answer') })));
      call(() => this.#native.feed(r));
    }

    /** The outcome: `{served, warnings}` (discover), `{workloads, warnings,
     * forbidden, types, resourceVersions, namespace?, served}` (list),
     * `{object, resolved, gang, warnings, resource, served}` (describe). */
    finish() { return parsed(() => this.#native.finish()); }
  }

  class Catalog {
    #h;
    #added = [];
    #bundled;
    #limits;
    #cluster = null;
    #clusterWarnings = '[]';

    /** @param {{definitions?: Array<Definition | string | object>, bundled?: boolean, limits?: object}} [options] */
    constructor(options = {}, hidden = undefined) {
      if (!isPlainObject(options)) throw new TypeError(`options must be an object, not ${kindOf(options)}`);
      const { definitions = [], bundled = true, limits } = options;
      if (typeof bundled !== 'boolean') throw new TypeError(`bundled must be a boolean, not ${kindOf(bundled)}`);
      if (!Array.isArray(definitions)) throw new TypeError(`definitions must be an array, not ${kindOf(definitions)}`);
      this.#bundled = bundled;
      if (hidden?.wrap === WRAP) {
        // withClusterDefinitions: the base's settings, the cluster's
        // definitions over its catalog, then the base's own definitions.
        this.#limits = hidden.limits;
        this.#cluster = hidden.cluster;
        this.#added = [...hidden.added];
      } else {
        this.#limits = limitsOf(limits);
      }
      this.#h = new Handle(() => {
        const c = new (raw().NativeCatalog)(this.#bundled, this.#limits);
        if (this.#cluster !== null) this.#clusterWarnings = needs(c, 'addClusterDefinitions').addClusterDefinitions(this.#cluster);
        for (const d of this.#added) c.add(nativeOf(d));
        return c;
      });
      for (const d of definitions) this.add(d);
    }

    #n() { return this.#h.get(); }

    /** Add a Definition, or every definition of a source (compiled with
     * `limits`, by default the catalog's). */
    add(definition, limits) {
      const defs = definition instanceof Definition ? [definition]
        : compileAllHandles(definitionSource(definition), limitsOf(limits) ?? this.#limits);
      for (const d of defs) {
        const n = nativeOf(d);
        call(() => this.#n().add(n));
        this.#added.push(d);
      }
    }

    #wrap(n, make) { return n === null || n === undefined ? null : wrapDefinition(make, n); }

    /** The definition for an apiVersion and kind (exact GVK, else same group and kind). */
    lookup(apiVersion, kind) {
      nameOf(apiVersion, 'apiVersion');
      nameOf(kind, 'kind');
      const n = call(() => this.#n().lookup(apiVersion, kind));
      return this.#wrap(n, () => this.#n().lookup(apiVersion, kind));
    }

    /** The definition for an object, by its apiVersion and kind (NoDefinitionError when none). */
    lookupObject(obj) {
      const o = objOf(obj);
      const n = call(() => this.#n().lookupObject(o));
      return wrapDefinition(() => this.#n().lookupObject(o), n);
    }

    /** A definition by name. */
    get(name) {
      nameOf(name, 'name');
      return this.#wrap(call(() => this.#n().get(name)), () => this.#n().get(name));
    }

    /** Every definition, sorted by name. */
    definitions() {
      return call(() => this.#n().definitions()).map((n) => {
        const name = JSON.parse(call(() => n.info())).name;
        return wrapDefinition(() => this.#n().get(name), n);
      });
    }

    /** Choose the definition by the object's GVK and resolve it (with pods:
     * live state; pods may also be an array of texts, such as the pages of
     * list responses, with the pods' owners among them). */
    resolve(obj, pods) {
      const o = objOf(obj);
      if (Array.isArray(pods) && pods.length > 0 && pods.every(isText)) {
        const p = itemsOf(pods, 'pods');
        return parsed(() => needs(this.#n(), 'resolvePages').resolvePages(o, p));
      }
      const p = pods === undefined || pods === null ? null : podsOf(pods);
      return parsed(() => this.#n().resolve(o, p));
    }

    /** Choose the definition by the object's GVK and diagnose the workload
     * (see Definition#diagnose): `options` is `{pods, events, related}`. */
    diagnose(obj, options) {
      const o = objOf(obj);
      const [p, e, r] = diagnoseInputs(options);
      return parsed(() => this.#n().diagnose(o, p, e, r));
    }

    /** `sourceMap` of a text, with the pod templates of each object a
     * definition of the catalog covers (see Definition#sourceMap). */
    sourceMap(text, queries) {
      const t = textOf(text, 'the text');
      const q = queriesOf(queries);
      return parsed(() => this.#n().sourceMap(t, q));
    }

    /** Resolve with every pod of the workload's namespace and their owners
     * (`items`: the pages of list responses, or objects): the pods of other
     * workloads are left out, and those that look like this workload's but
     * another object controls are listed in `strayPods`. */
    resolveInNamespace(obj, items) {
      const o = objOf(obj);
      const i = itemsOf(items, 'the items');
      return parsed(() => needs(this.#n(), 'resolveInNamespace').resolveInNamespace(o, i));
    }

    /** The gang-scheduling groups of the workload's pods, its definition
     * chosen by GVK (`pods` as for `resolve`). */
    gangGroups(obj, pods) {
      const o = objOf(obj);
      const p = itemsOf(pods, 'pods');
      return parsed(() => needs(this.#n(), 'gangGroups').gangGroups(o, p));
    }

    /** Which served resource a type token names (a kind, plural, singular
     * or short name, case-insensitive; `plural.group`; `kind.version.group`).
     * UsageError for an unknown or ambiguous token, NoDefinitionError when
     * no definition covers the type. */
    findType(token, served) {
      nameOf(token, 'the type');
      const s = servedOf(served);
      return parsed(() => needs(this.#n(), 'findType').findType(token, s));
    }

    /** The served resources a definition covers, one per group and kind. */
    coveredTypes(served) {
      const s = servedOf(served);
      return parsed(() => needs(this.#n(), 'coveredTypes').coveredTypes(s));
    }

    /** A new catalog with the definitions stored in a cluster (Karta and
     * ResourceInterface objects: list texts as the server returned them, a
     * list object or an array of objects) over this one's catalog, and this
     * catalog's own definitions over them: `{catalog, warnings}` (each
     * warning `{reason: 'invalid' | 'collision', object, message}`). */
    withClusterDefinitions(objects) {
      const cluster = itemsOf(objects, 'the cluster definitions');
      const catalog = new Catalog({ bundled: this.#bundled }, {
        wrap: WRAP, limits: this.#limits, cluster, added: this.#added,
      });
      return { catalog, warnings: JSON.parse(catalog.#clusterWarnings) };
    }

    /** One summary row per workload of `objects` (list texts such as the
     * pages of list responses, a list object or an array of objects), newest
     * first. Options: `owners` (objects to follow controller chains
     * through), `topLevelOnly` (leave out objects whose controller chain
     * holds a covered type), `phases` (keep those with one of these
     * statuses). */
    listWorkloads(objects, options = {}) {
      if (!isPlainObject(options)) throw new TypeError(`options must be an object, not ${kindOf(options)}`);
      const { owners, topLevelOnly = false, phases = [] } = options;
      if (typeof topLevelOnly !== 'boolean') throw new TypeError(`topLevelOnly must be a boolean, not ${kindOf(topLevelOnly)}`);
      if (!Array.isArray(phases) || !phases.every((p) => typeof p === 'string')) {
        throw new TypeError(`phases must be an array of strings, not ${kindOf(phases)}`);
      }
      const o = itemsOf(objects, 'the objects');
      const w = owners === undefined || owners === null ? [] : itemsOf(owners, 'the owners');
      const opts = toJson({ topLevelOnly, phases });
      return parsed(() => needs(this.#n(), 'listWorkloads').listWorkloads(o, w, opts));
    }

    /** Start one operation of the engine's cluster protocol with this
     * catalog's definitions (the cluster's own go over the bundled ones,
     * yours stay on top): `operation` is `'discover'`, `{list: ListQuery}`
     * or `{describe: DescribeQuery}`; `options.server` names the server in
     * messages. See ClusterSession. Native build only. */
    clusterSession(operation, options = {}) {
      if (!isPlainObject(options)) throw new TypeError(`options must be an object, not ${kindOf(options)}`);
      const { server } = options;
      if (server !== undefined && typeof server !== 'string') throw new TypeError(`server must be a string, not ${kindOf(server)}`);
      const op = toJson(operation);
      const native = call(() => needs(this.#n(), 'clusterSession').clusterSession(op, server));
      return new ClusterSession(native);
    }

    /** The number of definitions. */
    get size() { return call(() => this.#n().size()); }

    /** The catalog's limits. */
    get limits() { return parsed(() => this.#n().limits()); }

    get [Symbol.toStringTag]() { return 'Catalog'; }
  }

  let bundledCatalog;
  const bundled = () => {
    if (!bundledCatalog) bundledCatalog = new Catalog();
    return bundledCatalog;
  };

  // --- functions -------------------------------------------------------------

  function resolve(obj, options = {}) {
    if (!isPlainObject(options)) throw new TypeError(`options must be an object, not ${kindOf(options)}`);
    const { definitions = [], pods, limits } = options;
    if (!Array.isArray(definitions)) throw new TypeError(`definitions must be an array, not ${kindOf(definitions)}`);
    const o = objOf(obj);
    const p = pods === undefined || pods === null ? null : podsOf(pods);
    const l = limitsOf(limits);
    const defs = [];
    for (const d of definitions) {
      if (d instanceof Definition) defs.push(d);
      else defs.push(...compileAllHandles(definitionSource(d), l));
    }
    return parsed(() => raw().resolveAny(o, defs.map(nativeOf), p, l));
  }

  /** Why a workload is where it is, its definition chosen by GVK from the
   * bundled catalog plus `options.definitions` (see Definition#diagnose):
   * options `{definitions, pods, events, related, limits}`. */
  function diagnose(obj, options) {
    const { definitions = [], limits, ...lists } = diagnoseOptions(options, ['definitions', 'limits']);
    if (!Array.isArray(definitions)) throw new TypeError(`definitions must be an array, not ${kindOf(definitions)}`);
    const c = definitions.length === 0 && (limits === undefined || limits === null)
      ? bundled() : new Catalog({ definitions, limits });
    return c.diagnose(obj, lists);
  }

  function lookup(apiVersion, kind) {
    return bundled().lookup(apiVersion, kind);
  }

  function catalogSources() {
    return parsed(() => raw().catalogSources());
  }

  function compile(source, limits) {
    return new Definition(source, limits);
  }

  function compileAll(source, limits) {
    return compileAllHandles(definitionSource(source), limitsOf(limits));
  }

  function validate(source, limits) {
    const { text, json } = definitionSource(source);
    const l = limitsOf(limits);
    return parsed(() => raw().validate(text ?? json, l));
  }

  function evaluate(expression, input = null, limits = undefined) {
    nameOf(expression, 'the expression');
    const i = toJson(input);
    const l = limitsOf(limits);
    return parsed(() => raw().evaluate(expression, i, l));
  }

  function parse(text, limits) {
    const l = limitsOf(limits);
    if (isBytes(text)) {
      const bytes = text instanceof Uint8Array ? text : new Uint8Array(text.buffer, text.byteOffset, text.byteLength);
      return parsed(() => raw().parseBytes(bytes, l));
    }
    if (typeof text !== 'string') throw new TypeError(`text must be a string or a Uint8Array, not ${kindOf(text)}`);
    return parsed(() => raw().parse(text, l));
  }

  /** Where things are in a YAML/JSON text, as the engine reads it:
   * `{objects, places}` (every object of the text; one answer per question,
   * `null` when the path is not in the text). */
  function sourceMap(text, queries, limits) {
    const t = textOf(text, 'the text');
    const q = queriesOf(queries);
    const l = limitsOf(limits);
    return parsed(() => raw().sourceMap(t, q, l));
  }

  /** Every amount of a result (or of an array of results), written for
   * people by the engine: `{millicores: {n: text}, bytes: {n: text}}`. */
  function humanAmounts(value) {
    const v = toJson(value);
    return parsed(() => raw().humanAmounts(v, null));
  }

  function limits(options) {
    const l = limitsOf(options);
    return parsed(() => raw().checkLimits(l));
  }

  function defaultLimits() {
    return parsed(() => raw().defaultLimits());
  }

  /** The controller owner kinds `items` (pods and the owners fetched so
   * far) reference but do not hold, without those of `skip`: what to fetch
   * next before attributing pods. */
  function missingOwners(items, skip = [], limits = undefined) {
    const i = itemsOf(items, 'the items');
    if (!Array.isArray(skip)) throw new TypeError(`skip must be an array of {apiVersion, kind}, not ${kindOf(skip)}`);
    const s = toJson(skip.map(({ apiVersion, kind }) => ({ apiVersion, kind })));
    const l = limitsOf(limits);
    return parsed(() => needs(raw(), 'missingOwners').missingOwners(i, s, l));
  }

  /** GPU and pod totals of a listing (`Catalog.listWorkloads` rows) by
   * namespace and by type. */
  function usageOf(rows) {
    if (!Array.isArray(rows)) throw new TypeError(`rows must be an array of listing rows, not ${kindOf(rows)}`);
    const r = toJson(rows);
    return parsed(() => needs(raw(), 'usage').usage(r));
  }

  return {
    Definition,
    Catalog,
    ClusterSession,
    resolve,
    diagnose,
    lookup,
    catalogSources,
    compile,
    compileAll,
    validate,
    evaluate,
    parse,
    sourceMap,
    humanAmounts,
    limits,
    defaultLimits,
    missingOwners,
    usage: usageOf,
  };
}
