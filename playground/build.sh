#!/usr/bin/env bash
# Builds the playground into playground/dist/ (static files; serve that
# directory with any static file server, e.g. playground/serve.sh).
#   1. npm ci in playground/ when node_modules is missing or stale;
#   2. the engine's WASM module, when bindings-node/wasm/ is missing: taken
#      from an npm tarball made by scripts/package.sh (dist/workload-lens-*.tgz)
#      when there is one, else built (bindings-wasm/setup.sh installs its
#      tools, bindings-wasm/build.sh builds it; FORCE_WASM=1 rebuilds it
#      anyway);
#   3. esbuild bundles src/ (app + engine worker), copies the .wasm and
#      bundles the catalog fixtures and examples (fixtures.json).
# Before installing or building anything it prints what it will do, why,
# and about how long it takes.
#
#   bash playground/build.sh           # build
#   bash playground/build.sh --plan    # only print what a build would install and build
set -euo pipefail
cd "$(dirname "$0")/.."

plan_only=0
case "${1:-}" in
  --plan) plan_only=1 ;;
  "") ;;
  *) echo "error: unknown argument '$1' (usage: bash playground/build.sh [--plan])" >&2; exit 2 ;;
esac

WASM=bindings-node/wasm
need_npm=0
if [ ! -d playground/node_modules/esbuild ] || [ playground/package-lock.json -nt playground/node_modules/.package-lock.json ]; then
  need_npm=1
fi
wasm_from=""   # built | a tarball | "" (present)
if [ "${FORCE_WASM:-0}" = 1 ]; then
  wasm_from=built
elif [ ! -f "$WASM/workload_lens_wasm_bg.wasm" ] || [ ! -f "$WASM/workload_lens_wasm.js" ]; then
  for t in $(ls -t dist/workload-lens-*.tgz 2>/dev/null); do
    if tar -tzf "$t" package/wasm/workload_lens_wasm_bg.wasm package/wasm/workload_lens_wasm.js >/dev/null 2>&1; then
      wasm_from=$t
      break
    fi
  done
  [ -n "$wasm_from" ] || wasm_from=built
fi

# What will happen, before it happens.
if [ "$need_npm" = 1 ] || [ -n "$wasm_from" ]; then
  echo "== playground: before building, this will:"
  if [ "$need_npm" = 1 ]; then
    echo "   - npm ci in playground/: esbuild and CodeMirror, to bundle the page (about 10 s)"
  fi
  case "$wasm_from" in
    "") ;;
    built)
      echo "   - build the engine's WASM module, which the page runs ($WASM/ is missing and there is no"
      echo "     dist/workload-lens-*.tgz from scripts/package.sh to take it from):"
      steps=$(bash bindings-wasm/setup.sh --plan)
      if [ -n "$steps" ]; then
        echo "     first bindings-wasm/setup.sh installs what it lacks (up to about 5 minutes on a new machine,"
        echo "     most of it compiling wasm-bindgen-cli):"
        sed 's/^ */       /' <<<"$steps"
      fi
      echo "     then bindings-wasm/build.sh compiles it (about 4 minutes clean on 2 cores, then wasm-opt)"
      ;;
    *) echo "   - take the engine's WASM module from $wasm_from (built by scripts/package.sh; nothing to compile)" ;;
  esac
fi
if [ "$plan_only" = 1 ]; then
  [ "$need_npm" = 1 ] || [ -n "$wasm_from" ] \
    || echo "== playground: nothing to install or build first (playground's npm tools and $WASM/ are present)"
  exit 0
fi

if [ "$need_npm" = 1 ]; then
  echo "== playground: npm ci"
  npm ci --prefix playground --no-audit --no-fund --loglevel=error
fi

case "$wasm_from" in
  "") ;;
  built)
    echo "== playground: building the WASM module (bindings-wasm/setup.sh, bindings-wasm/build.sh)"
    bash bindings-wasm/setup.sh
    bash bindings-wasm/build.sh
    ;;
  *)
    echo "== playground: the WASM module from $wasm_from"
    tmp=$(mktemp -d)
    tar -xzf "$wasm_from" -C "$tmp" package/wasm/workload_lens_wasm_bg.wasm package/wasm/workload_lens_wasm.js
    mkdir -p "$WASM"
    cp "$tmp"/package/wasm/* "$WASM"/
    rm -rf "$tmp"
    ;;
esac

echo "== playground: esbuild -> playground/dist"
node playground/build.mjs
