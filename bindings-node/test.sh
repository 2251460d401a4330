#!/usr/bin/env bash
# Builds the Node package and runs its tests (bindings-node/tests).
#
# Works from a clean clone on a fresh machine (Node 20.19+ or 22.12+, and
# Rust/cargo; only the npm registry and crates.io reached), and is quick when
# everything is present:
#   1. the dev tools (npm ci in dev/; not devDependencies of the package)
#      and the native addon, release (napi build --platform --release, ~2 min
#      clean on 2 cores, seconds when unchanged): bindings-node/build.sh;
#   2. node --test tests/: conformance (writes target/conformance/node.json
#      for the parity table), API, errors and hostile input, packaging
#      (ESM/CJS, export conditions, npm pack, publint), @kubernetes/client-node
#      models, types (regenerated from the engine's JSON Schemas, tsc
#      --strict) and the README's examples. The WASM build's tests (conditions
#      `browser` and ./wasm) run when bindings-node/wasm/ has been built
#      (bindings-wasm/build.sh), else they are skipped.
set -euo pipefail
cd "$(dirname "$0")"
T0=$(date +%s)

bash build.sh

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
