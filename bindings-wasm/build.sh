#!/usr/bin/env bash
# Builds the WebAssembly module of workload-lens into bindings-node/wasm/
# (the `workload-lens` npm package's browser build):
#   1. Debian's rustc-web (cargo 1.96) with build-std, profile `wasm`
#      (opt-level z, fat LTO; see the root Cargo.toml), panics abort at once,
#   2. wasm-bindgen --target web (ES module with an explicit init()),
#   3. wasm-opt -Oz from npm's binaryen (Debian's binaryen 108 breaks the module).
# Prints the raw and gzip -9 sizes. Recipe: shared/TOOLCHAIN.md.
#
#   bindings-wasm/build.sh            # full build
#   WASM_OPT=0 bindings-wasm/build.sh # skip wasm-opt (faster, bigger)
#
# Needs: rustc-web cargo-web rust-web-src rust-web-llvm lld-22 (apt),
# wasm-bindgen-cli of the Cargo.lock version, `npm ci --prefix bindings-wasm`
# (bindings-wasm/setup.sh installs all of these when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=bindings-node/wasm
NAME=workload_lens_wasm
TARGET_DIR=target/wasm

want=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  echo "error: wasm-bindgen CLI $want needed (found: ${have:-none});" \
    "run: bash bindings-wasm/setup.sh" >&2
  exit 1
fi

echo "== cargo build (Debian rustc-web, wasm32-unknown-unknown, profile wasm)"
t0=$(date +%s)
# PATH first: keep rustup's proxies out of the way of Debian's cargo.
# panic=immediate-abort (unstable, hence RUSTC_BOOTSTRAP): a panic traps at
# once, without the formatting machinery of panic messages that nothing
# could print here anyway (-7% raw, -53 KB gzip).
env PATH="/usr/bin:$PATH" RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc RUSTC_BOOTSTRAP=1 \
  RUSTFLAGS="${RUSTFLAGS:-} -Zunstable-options -Cpanic=immediate-abort" \
  /usr/bin/cargo build --profile wasm --locked -p bindings-wasm \
  --target wasm32-unknown-unknown -Zbuild-std=std,panic_abort --target-dir "$TARGET_DIR"
t1=$(date +%s)
echo "   cargo build: $((t1 - t0)) s"

WASM=$TARGET_DIR/wasm32-unknown-unknown/wasm/$NAME.wasm
echo "== wasm-bindgen --target web -> $OUT/"
mkdir -p "$OUT"
wasm-bindgen --target web --out-dir "$OUT" --out-name "$NAME" "$WASM"

BG=$OUT/${NAME}_bg.wasm
size_line() { # label file
  printf '   %-28s %9d bytes raw, %8d bytes gzip -9\n' "$1" "$(stat -c %s "$2")" "$(gzip -9c "$2" | wc -c)"
}
size_line "after wasm-bindgen:" "$BG"

if [ "${WASM_OPT:-1}" != 0 ]; then
  echo "== wasm-opt -Oz (npm binaryen)"
  WASM_OPT_BIN=$ROOT/bindings-wasm/node_modules/.bin/wasm-opt
  if [ ! -x "$WASM_OPT_BIN" ]; then
    echo "error: $WASM_OPT_BIN missing; run: npm ci --prefix bindings-wasm" >&2
    exit 1
  fi
  # Cached by the input's hash: an unchanged module is not optimised again.
  CACHE=$TARGET_DIR/wasm-opt-cache
  KEY=$(sha256sum "$BG" | cut -c1-32)
  if [ -f "$CACHE/$KEY.wasm" ]; then
    cp "$CACHE/$KEY.wasm" "$BG"
    echo "   wasm-opt: unchanged input, cached result"
  else
    t0=$(date +%s)
    "$WASM_OPT_BIN" -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-reference-types --enable-multivalue \
      "$BG" -o "$BG.opt"
    mv "$BG.opt" "$BG"
    t1=$(date +%s)
    echo "   wasm-opt: $((t1 - t0)) s"
    rm -rf "$CACHE" && mkdir -p "$CACHE" && cp "$BG" "$CACHE/$KEY.wasm"
  fi
  size_line "after wasm-opt -Oz:" "$BG"
fi
