#!/usr/bin/env bash
# Builds the playground and serves it on http://127.0.0.1:${PORT:-8000}/
# (local only; any static file server works for playground/dist).
# playground/build.sh says what it will install and build, and why, before
# it does (on a new machine without the WASM module: npm ci, the WASM tools
# and a WASM build, about 10 minutes; with dist/workload-lens-*.tgz from
# scripts/package.sh, or bindings-node/wasm/ already built: seconds).
#
#   bash playground/serve.sh           # build, then serve
#   bash playground/serve.sh --plan    # only print what the build would install and build
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --plan ]; then
  exec bash playground/build.sh --plan
fi
bash playground/build.sh
PORT=${PORT:-8000}
echo "== serving playground/dist on http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory playground/dist
