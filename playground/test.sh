#!/usr/bin/env bash
# End-to-end tests of the playground (playground/README.md), idempotent:
#   1. installs what a fresh machine lacks: Debian's chromium (apt, as root),
#      the npm dev tools (npm ci: esbuild, CodeMirror, playwright-core);
#   2. builds (playground/build.sh; builds the WASM module first when
#      bindings-node/wasm/ is missing);
#   3. runs tests/*.test.mjs (node --test) against the built page in headless
#      Chromium. Screenshots: target/playground/*.png.
set -euo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)

if ! [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== playground: installing chromium (apt)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  else
    echo "error: chromium is missing (apt-get install chromium, or set CHROMIUM)" >&2
    exit 1
  fi
fi

bash playground/build.sh

echo "== playground: end-to-end tests in headless Chromium"
mkdir -p target/playground
node --test --test-reporter=spec playground/tests/ 2> >(grep -v 'unexpected operator' >&2)
echo "== playground tests: $(( $(date +%s) - T0 )) s (screenshots in target/playground/)"
