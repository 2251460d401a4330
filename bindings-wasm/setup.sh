#!/usr/bin/env bash
# Installs what building the WebAssembly module needs and a fresh machine
# lacks (idempotent; quick when everything is present), printing one line
# before each install:
#   - Debian's rustc-web toolchain (rustup cannot download the wasm32
#     target here; shared TOOLCHAIN recipe) and lld;
#   - wasm-bindgen-cli of the Cargo.lock version (cargo install --debug);
#   - the npm dev tools of bindings-wasm/ (binaryen's wasm-opt, playwright-core).
#   bindings-wasm/setup.sh            # build tools
#   bindings-wasm/setup.sh --browser  # and Debian's chromium, for the tests
#   bindings-wasm/setup.sh --browser --apt-only gojq
#       # only the Debian packages, plus the extra ones named (without root
#       # it warns instead of failing, and the steps that need them fail later)
#   bindings-wasm/setup.sh --browser --list
#       # prints the Debian packages it needs (one line) and exits
#       # (scripts/test.sh installs them in its one apt run)
#   bindings-wasm/setup.sh --browser --plan
#       # prints what it would install, installs nothing
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(rustc-web cargo-web rust-web-src rust-web-llvm lld-22)
apt_only=0
mode=install
for a in "$@"; do
  case "$a" in
    --browser) packages+=(chromium) ;;
    --apt-only) apt_only=1 ;;
    --list) mode=list ;;
    --plan) mode=plan ;;
    *) packages+=("$a") ;;
  esac
done
if [ "$mode" = list ]; then
  echo "${packages[*]}"
  exit 0
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    toolchain=() what=()
    for p in "${missing[@]}"; do
      case "$p" in
        rustc-web | cargo-web | rust-web-* | lld-*) toolchain+=("$p") ;;
        chromium) what+=("chromium (headless browser for the WASM tests)") ;;
        *) what+=("$p") ;;
      esac
    done
    if [ ${#toolchain[@]} -gt 0 ]; then
      what=("${toolchain[*]} (Debian's Rust toolchain for wasm32 and its linker)" "${what[@]}")
    fi
    printf -v line '%s, ' "${what[@]}"
    echo "   installing with apt (about 1 minute, more with chromium): ${line%, }"
    if [ "$mode" = install ]; then
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
  elif [ "$mode" = plan ]; then
    echo "   missing Debian packages, to install with apt-get as root (not root here): ${missing[*]}"
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
  echo "   installing wasm-bindgen-cli $WBV (the WASM build's JS bindings generator; cargo install --debug, ~3 min)"
  # Not --locked: its lockfile pins a crate version the registry may lack.
  # --debug: compiles in about half the time of a release build, and a
  # debug wasm-bindgen still takes 2 s on this module (same output).
  if [ "$mode" = install ]; then
    cargo install -q wasm-bindgen-cli --version "=$WBV" --debug
  fi
fi
if ! [ -x bindings-wasm/node_modules/.bin/wasm-opt ] || ! [ -d bindings-wasm/node_modules/playwright-core ]; then
  echo "   installing bindings-wasm's npm dev tools (npm ci: binaryen's wasm-opt for the size, playwright-core for the browser tests)"
  if [ "$mode" = install ]; then
    npm ci --prefix bindings-wasm --no-audit --no-fund --loglevel=error
  fi
fi
