#!/usr/bin/env bash
# Tests of the WebAssembly build (bindings-wasm/README.md):
#   1. installs what a fresh machine lacks (bindings-wasm/setup.sh --browser:
#      Debian's rustc-web toolchain and chromium, wasm-bindgen-cli of the
#      Cargo.lock version, the npm dev tools (binaryen, playwright-core));
#   2. builds (bindings-wasm/build.sh: cargo, wasm-bindgen, wasm-opt -Oz);
#   3. checks the size budget: <= 2304 KiB raw and <= 842 KiB gzip -9;
#   4. runs the conformance suite, the hostile-input checks and a trap with
#      recovery in Node (runtime wasm-node) and in headless Chromium
#      (wasm-chromium), writing target/conformance/<runtime>.json.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)

echo "== WASM: toolchain"
bash bindings-wasm/setup.sh --browser

echo "== WASM: build"
bash bindings-wasm/build.sh

echo "== WASM: size budget (optimised .wasm, catalog included)"
W=bindings-node/wasm/workload_lens_wasm_bg.wasm
RAW=$(stat -c %s "$W")
GZ=$(gzip -9c "$W" | wc -c)
awk -v r="$RAW" -v g="$GZ" 'BEGIN {
  printf "   raw  %9d bytes (%.2f MiB), budget 2304 KiB\n", r, r / 1048576
  printf "   gzip %9d bytes (%.1f KiB), budget 842 KiB\n", g, g / 1024 }'
if [ "$RAW" -gt $((2304 * 1024)) ] || [ "$GZ" -gt $((842 * 1024)) ]; then
  echo "FAIL: the WASM module is over its size budget" >&2
  exit 1
fi

status=0
echo "== WASM in Node (wasm-node)"
node bindings-wasm/tests/node.mjs || status=1
echo "== WASM in headless Chromium (wasm-chromium)"
node bindings-wasm/tests/browser.mjs 2> >(grep -v 'unexpected operator' >&2) || status=1
echo "== WASM tests: $(( $(date +%s) - T0 )) s"
exit $status
