#!/usr/bin/env bash
# Builds the Node package and runs its tests (bindings-node/tests).
#
# Works from a clean clone on a fresh machine (Node >= 20.19 and Rust/cargo;
# only the npm registry and crates.io reached), and is quick when everything
# is present:
#   1. npm ci (the dev tools: @napi-rs/cli, typescript, publint,
#      json-schema-to-typescript, @kubernetes/client-node), skipped when
#      node_modules matches package-lock.json;
#   2. the native addon, release: napi build --platform --release
#      (~2 min clean on 2 cores, seconds when unchanged);
#   3. node --test tests/: conformance (writes target/conformance/node.json
#      for the parity table), API, errors and hostile input, packaging
#      (ESM/CJS, export conditions, npm pack, publint), @kubernetes/client-node
#      models, types (regenerated from the engine's JSON Schemas, tsc
#      --strict) and the README's examples. The WASM build's tests (conditions
#      `browser` and ./wasm) run when bindings-node/wasm/ has been built
#      (bindings-wasm/build.sh), else they are skipped.
set -euo pipefail
cd "$(dirname "$0")"
T0=$(date +%s)

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] \
  || [ package.json -nt node_modules/.package-lock.json ]; then
  echo "== npm ci (bindings-node)"
  # --ignore-scripts: the package's own install script would build the
  # addon; step 2 does that explicitly.
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
fi

echo "== native addon: napi build --platform --release"
t=$(date +%s)
npx napi build --platform --release --js native.cjs --dts native.d.ts >/tmp/workload-lens-napi-build.log 2>&1 \
  || { cat /tmp/workload-lens-napi-build.log; exit 1; }
echo "   built in $(($(date +%s) - t)) s: $(ls -- *.node)"

echo "== node --test bindings-node/tests/"
log=$(mktemp)
set +e
node --test --test-reporter=tap tests/ >"$log" 2>&1
rc=$?
set -e
# Failures in full, then node's summary.
{ awk '/^not ok|^    not ok/{p=1} /^ok|^    ok/{p=0} p' "$log" | grep -v "^\s*at " | head -400; } || true
grep -E "^# conformance \(|^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) " "$log" || true
rm -f "$log"
echo "   bindings-node tests: $(($(date +%s) - T0)) s in all"
exit $rc
