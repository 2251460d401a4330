#!/usr/bin/env bash
# Tests of the WebAssembly build (bindings-wasm/README.md):
#   1. installs what a fresh machine lacks (idempotent, quick when present):
#      Debian's rustc-web toolchain and chromium, wasm-bindgen-cli of the
#      Cargo.lock version, the npm dev tools (binaryen, playwright-core);
#   2. builds (bindings-wasm/build.sh: cargo, wasm-bindgen, wasm-opt -Oz);
#   3. checks the size budget: <= 2 MiB raw and <= 750 KiB gzip -9;
#   4. runs the conformance suite, the hostile-input checks and a trap with
#      recovery in Node (runtime wasm-node) and in headless Chromium
#      (wasm-chromium), writing target/conformance/<runtime>.json.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)

echo "== WASM: toolchain"
missing=()
for p in rustc-web cargo-web rust-web-src rust-web-llvm lld-22 chromium; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "   installing ${missing[*]} (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "error: missing Debian packages: ${missing[*]} (see shared TOOLCHAIN recipe)" >&2
    exit 1
  fi
fi
WBV=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WBV" ]; then
  echo "   installing wasm-bindgen-cli $WBV (cargo install --debug, ~3 min)"
  # Not --locked: its lockfile pins a crate version the registry may lack.
  # --debug: compiles in about half the time of a release build, and a
  # debug wasm-bindgen still takes 2 s on this module (same output).
  cargo install -q wasm-bindgen-cli --version "=$WBV" --debug
fi
if ! [ -x bindings-wasm/node_modules/.bin/wasm-opt ] || ! [ -d bindings-wasm/node_modules/playwright-core ]; then
  npm ci --prefix bindings-wasm --no-audit --no-fund --loglevel=error
fi

echo "== WASM: build"
bash bindings-wasm/build.sh

echo "== WASM: size budget (optimised .wasm, catalog included)"
W=bindings-node/wasm/workload_lens_wasm_bg.wasm
RAW=$(stat -c %s "$W")
GZ=$(gzip -9c "$W" | wc -c)
awk -v r="$RAW" -v g="$GZ" 'BEGIN {
  printf "   raw  %9d bytes (%.2f MiB), budget 2 MiB\n", r, r / 1048576
  printf "   gzip %9d bytes (%.1f KiB), budget 750 KiB\n", g, g / 1024 }'
if [ "$RAW" -gt $((2 * 1024 * 1024)) ] || [ "$GZ" -gt $((750 * 1024)) ]; then
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
