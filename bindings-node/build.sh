#!/usr/bin/env bash
# Builds the native addon for development, quietly (bindings-node/test.sh
# and scripts/package.sh run it):
#   1. the dev tools (@napi-rs/cli, typescript, publint,
#      json-schema-to-typescript, @kubernetes/client-node): npm ci in dev/,
#      skipped when dev/node_modules matches dev/package-lock.json. They are
#      not devDependencies of the package, so that `npm install ./bindings-node`
#      never pulls them; node_modules is a link to dev/node_modules, so the
#      tests, npx and `npm run build` find them as before;
#   2. napi build --platform --release (~2 min clean on 2 cores, seconds when
#      unchanged): workload-lens.<platform>.node, native.cjs, native.d.ts.
#      cargo's output goes to target/napi-build.log, shown when it fails.
set -euo pipefail
cd "$(dirname "$0")"

lock=dev/node_modules/.package-lock.json
if [ ! -f "$lock" ] || [ dev/package-lock.json -nt "$lock" ] || [ dev/package.json -nt "$lock" ]; then
  echo "== npm ci in bindings-node/dev (the dev tools)"
  # --ignore-scripts: none of the tools needs its install script.
  npm ci --prefix dev --ignore-scripts --no-audit --no-fund --loglevel=error
fi
# A checkout from before dev/ has a real node_modules with the same tools.
if [ "$(readlink node_modules 2>/dev/null)" != dev/node_modules ]; then
  rm -rf node_modules
  ln -s dev/node_modules node_modules
fi

echo "== native addon: napi build --platform --release"
t=$(date +%s)
mkdir -p ../target
log=../target/napi-build.log
node_modules/.bin/napi build --platform --release --js native.cjs --dts native.d.ts >"$log" 2>&1 \
  || { cat "$log"; exit 1; }
echo "   built in $(($(date +%s) - t)) s: $(ls -- *.node)"
