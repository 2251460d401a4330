#!/usr/bin/env bash
# Builds the playground into playground/dist/ (static files; serve that
# directory with any static file server, e.g. playground/serve.sh).
#   1. npm ci in playground/ when node_modules is missing or stale;
#   2. the engine's WASM build (bindings-wasm/setup.sh installs its tools,
#      bindings-wasm/build.sh builds it) when bindings-node/wasm/ is missing
#      (FORCE_WASM=1 rebuilds it anyway);
#   3. esbuild bundles src/ (app + engine worker), copies the .wasm and
#      bundles the catalog fixtures and examples (fixtures.json).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

if [ ! -d playground/node_modules/esbuild ] || [ playground/package-lock.json -nt playground/node_modules/.package-lock.json ]; then
  echo "== playground: npm ci"
  npm ci --prefix playground --no-audit --no-fund --loglevel=error
fi

if [ ! -f bindings-node/wasm/workload_lens_wasm_bg.wasm ] || [ "${FORCE_WASM:-0}" = 1 ]; then
  echo "== playground: building the WASM module (bindings-wasm/build.sh)"
  bash bindings-wasm/setup.sh
  bash bindings-wasm/build.sh
fi

echo "== playground: esbuild -> playground/dist"
node playground/build.mjs
