#!/usr/bin/env bash
# Builds the playground and serves it on http://127.0.0.1:${PORT:-8000}/
# (local only; any static file server works for playground/dist).
set -euo pipefail
cd "$(dirname "$0")/.."
bash playground/build.sh
PORT=${PORT:-8000}
echo "== serving playground/dist on http://127.0.0.1:$PORT/  (Ctrl-C to stop)"
exec python3 -m http.server "$PORT" --bind 127.0.0.1 --directory playground/dist
