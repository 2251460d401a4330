#!/usr/bin/env bash
# Installs what building the WebAssembly module needs and a fresh machine
# lacks (idempotent; quick when everything is present):
#   - Debian's rustc-web toolchain (rustup cannot download the wasm32
#     target here; shared TOOLCHAIN recipe) and lld;
#   - wasm-bindgen-cli of the Cargo.lock version (cargo install --debug);
#   - the npm dev tools of bindings-wasm/ (binaryen's wasm-opt, playwright-core).
#   bindings-wasm/setup.sh            # build tools
#   bindings-wasm/setup.sh --browser  # and Debian's chromium, for the tests
#   bindings-wasm/setup.sh --browser --apt-only gojq
#       # only the Debian packages, plus the extra ones named (scripts/test.sh
#       # installs everything from apt in one run this way; without root it
#       # warns instead of failing, and the stages that need them fail later)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(rustc-web cargo-web rust-web-src rust-web-llvm lld-22)
apt_only=0
for a in "$@"; do
  case "$a" in
    --browser) packages+=(chromium) ;;
    --apt-only) apt_only=1 ;;
    *) packages+=("$a") ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "   installing ${missing[*]} (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
  elif [ "$apt_only" = 1 ]; then
    echo "warning: missing Debian packages: ${missing[*]} (not root: not installed)" >&2
  else
    echo "error: missing Debian packages: ${missing[*]} (install them with apt-get as root)" >&2
    exit 1
  fi
fi
[ "$apt_only" = 1 ] && exit 0
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
