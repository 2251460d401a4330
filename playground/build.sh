#!/usr/bin/env bash
# Builds the playground into playground/dist/ (static files; serve that
# directory with any static file server, e.g. playground/serve.sh).
#   1. npm ci in playground/ when node_modules is missing or stale;
#   2. the engine's WASM build (bindings-wasm/build.sh) when
#      bindings-node/wasm/ is missing (FORCE_WASM=1 rebuilds it anyway);
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
  if [ ! -x bindings-wasm/node_modules/.bin/wasm-opt ]; then
    npm ci --prefix bindings-wasm --no-audit --no-fund --loglevel=error
  fi
  WBV=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WBV" ]; then
    echo "   installing wasm-bindgen-cli $WBV (cargo install, ~5 min)"
    cargo install -q wasm-bindgen-cli --version "=$WBV"
  fi
  bash bindings-wasm/build.sh
fi

echo "== playground: esbuild -> playground/dist"
node playground/build.mjs
