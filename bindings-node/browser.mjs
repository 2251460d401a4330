// workload-lens in browsers (and in any runtime through 'workload-lens/wasm'):
// the WebAssembly module under the shared API layer (lib/api.mjs).
//
//   import { init, resolve } from 'workload-lens';
//   await init();                  // or init(urlOrBytesOrModule); initSync(bytesOrModule)
//
// The module is built with panic=abort: a trap (a bug, or a stack overflow the
// limits did not prevent) leaves a wasm instance unusable. The call that traps
// fails with code 'internal', and the module is re-instantiated (a fresh copy
// of the glue module and a new memory) for the next call; definitions and
// catalogs made before are rebuilt on their next use.

import * as glue from './wasm/workload_lens_wasm.js';
import { makeApi } from './lib/api.mjs';
import { makeError } from './lib/errors.mjs';
import { VERSION } from './lib/version.mjs';

const GLUE_URL = new URL('./wasm/workload_lens_wasm.js', import.meta.url);
const WASM_URL = new URL('./wasm/workload_lens_wasm_bg.wasm', import.meta.url);
const isNode = typeof process === 'object' && typeof process.versions?.node === 'string';

let wasmModule = null; // the compiled WebAssembly.Module, kept for restarts
let current = null; // the glue module in use (initialized)
let usedStatic = false; // the statically imported glue is single-use
let spare = null; // a fresh, uninitialized copy of the glue, for a restart
let spareLoading = null;
let copies = 0;
let generation = 0;
let broken = null; // the failure that broke the current instance

function loadSpare() {
  if (spare || spareLoading) return spareLoading;
  spareLoading = import(/* @vite-ignore */ /* webpackIgnore: true */ `${GLUE_URL.href}?instance=${++copies}`)
    .then((m) => { spare = m; })
    .catch(() => { /* bundled: no fresh copy available; a trap is then final */ })
    .finally(() => { spareLoading = null; });
  return spareLoading;
}

function start(module) {
  wasmModule = module;
  let g = glue;
  if (usedStatic) {
    if (!spare) throw makeError('internal', 'the WASM module cannot be re-initialized synchronously here; use await init()');
    g = spare;
    spare = null;
  }
  usedStatic = true;
  g.initSync({ module });
  current = g;
  generation += 1;
  broken = null;
}

/** Re-instantiate after a trap (synchronously when a spare copy is loaded). */
function restart() {
  if (!spare) return false;
  start(wasmModule);
  loadSpare();
  return true;
}

async function compileInput(input) {
  if (input instanceof WebAssembly.Module) return input;
  let src = input ?? WASM_URL;
  if (typeof src === 'string') src = new URL(src, isNode ? `file://${process.cwd()}/` : globalThis.location?.href);
  if (src instanceof URL && src.protocol === 'file:' && isNode) {
    const { readFile } = await import(/* @vite-ignore */ /* webpackIgnore: true */ 'node:fs/promises');
    return WebAssembly.compile(await readFile(src));
  }
  if (src instanceof URL || (typeof Request === 'function' && src instanceof Request)) src = fetch(src);
  src = await src;
  if (typeof Response === 'function' && src instanceof Response) {
    if (!src.ok) throw new Error(`cannot load the workload-lens WASM module: HTTP ${src.status} ${src.url}`);
    if (typeof WebAssembly.compileStreaming === 'function'
      && (src.headers.get('content-type') ?? '').startsWith('application/wasm')) {
      return WebAssembly.compileStreaming(src);
    }
    return WebAssembly.compile(await src.arrayBuffer());
  }
  return WebAssembly.compile(src);
}

let initPromise = null;

/**
 * Load the WASM module: no argument (the .wasm next to this file), a URL or
 * string, a Request/Response (or a promise of one), bytes, or a compiled
 * WebAssembly.Module. Resolves when the engine is ready; calling it again
 * is cheap (and waits for a restart in progress).
 */
export async function init(input) {
  if (current && !broken && input === undefined) return;
  if (!initPromise) {
    initPromise = (async () => {
      const module = wasmModule && input === undefined ? wasmModule : await compileInput(input);
      if (usedStatic && !spare) await loadSpare();
      start(module);
      await loadSpare();
    })().finally(() => { initPromise = null; });
  }
  return initPromise;
}

/** Load the WASM module synchronously from bytes or a compiled WebAssembly.Module. */
export function initSync(input) {
  const module = input instanceof WebAssembly.Module ? input : new WebAssembly.Module(input);
  start(module);
  loadSpare();
}

function raw() {
  if (broken && !restart()) {
    throw makeError('internal', `the WASM engine failed (${broken}) and could not be restarted yet: await init() and retry`);
  }
  if (!current) {
    throw makeError('usage', 'the WASM module is not loaded: call (and await) init() first');
  }
  return current;
}

function guard(f) {
  try {
    return f();
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError || e instanceof RangeError) {
      broken = `${e.name}: ${e.message}`;
      restart();
      throw makeError('internal', `internal error in workload-lens: the WASM engine trapped (${e.name}: ${e.message}); it has been restarted`);
    }
    throw e;
  }
}

const api = makeApi(raw, { generation: () => generation, guard });

export * from './lib/errors.mjs';

export const {
  Definition,
  Catalog,
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
} = api;

/** The package (and engine) version. */
export const version = VERSION;

/** Which engine build this is: `'wasm'` here, `'native'` in index.mjs. */
export const backend = 'wasm';
