#!/usr/bin/env bash
# Checks that the artifacts of scripts/package.sh install and work without
# Rust: builds them (scripts/package.sh; seconds when the builds exist), then,
# with a PATH holding only python3, node and npm (no cargo, no rustc; checked)
# and an empty environment:
#   - a new venv: pip install the wheel (no index), import workload_lens,
#     resolve examples/jobset.yaml (12 GPUs), and the workload-lens command;
#   - a new npm project: npm install the tarball (offline, no scripts run),
#     then require() and import of 'workload-lens' (the native addon) and
#     'workload-lens/wasm' (the WASM build, in Node) resolve the same JobSet.
#
#   bash scripts/package-test.sh              # artifacts into target/package/dist
#   bash scripts/package-test.sh --out DIR    # into DIR (e.g. dist)
#
# scripts/test.sh runs it as the stage `package`, with the test builds'
# release settings, so it packs the builds of the python and node stages.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=target/package/dist
case "${1:-}" in
  --out) out=${2:?--out needs a directory} ;;
  "") ;;
  *) echo "error: unknown argument '$1' (usage: bash scripts/package-test.sh [--out DIR])" >&2; exit 2 ;;
esac
T0=$(date +%s)
bash scripts/package.sh --out "$out"
out=$(cd "$out" && pwd)
wheel=$(ls "$out"/workload_lens-*.whl)
tgz=$(ls "$out"/workload-lens-*.tgz)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t=$(date +%s)

# A PATH with the three commands a user without Rust has.
bin=$tmp/bin
mkdir -p "$bin" "$tmp/home"
py=$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')
ln -s "$py" "$bin/python3"
ln -s "$(command -v node)" "$bin/node"
ln -s "$(command -v npm)" "$bin/npm"
bare() { # CWD COMMAND...: runs with that PATH and nothing else of the environment
  local cwd=$1
  shift
  (cd "$cwd" && env -i PATH="$bin" HOME="$tmp/home" LANG=C.UTF-8 JOBSET="$root/examples/jobset.yaml" "$@")
}
if bare "$tmp" /bin/sh -c 'command -v cargo || command -v rustc || command -v rustup'; then
  echo "error: cargo or rustc is on the test PATH" >&2
  exit 1
fi

echo "== Python: a new venv, pip install $(basename "$wheel"), no Rust on PATH"
bare "$tmp" python3 -m venv "$tmp/venv"
bare "$tmp" "$tmp/venv/bin/python" -m pip install -q --no-index --disable-pip-version-check "$wheel"
bare "$tmp" "$tmp/venv/bin/python" -c '
import os
import workload_lens as wl
r = wl.resolve(open(os.environ["JOBSET"], encoding="utf-8").read())
gpu = r["totals"]["resources"]["gpu"]
assert gpu == 12, gpu
print("   import workload_lens: resolve(examples/jobset.yaml): %d GPUs, %d pods" % (gpu, r["totals"]["pods"]))'
bare "$tmp" "$tmp/venv/bin/workload-lens" describe "$root/examples/jobset.yaml" >"$tmp/describe.txt"
grep -q "^TOTAL  *3  *12 " "$tmp/describe.txt" || { cat "$tmp/describe.txt"; echo "error: workload-lens describe" >&2; exit 1; }
echo "   workload-lens describe examples/jobset.yaml: $(grep '^TOTAL' "$tmp/describe.txt" | tr -s ' ')"

echo "== Node: a new npm project, npm install $(basename "$tgz"), no Rust on PATH"
proj=$tmp/project
mkdir -p "$proj"
echo '{"name": "package-test", "version": "1.0.0", "private": true}' >"$proj/package.json"
bare "$proj" npm install --offline --no-audit --no-fund --loglevel=warn "$tgz" >"$tmp/npm.txt" 2>&1 \
  || { cat "$tmp/npm.txt"; exit 1; }
if grep -qi "warn" "$tmp/npm.txt"; then
  cat "$tmp/npm.txt"
  echo "error: npm install of the tarball warned" >&2
  exit 1
fi
echo "   $(grep -m1 "added" "$tmp/npm.txt")"
[ -f "$proj/node_modules/workload-lens/workload-lens.linux-x64-gnu.node" ] \
  || { echo "error: the addon is not in node_modules/workload-lens" >&2; exit 1; }
bare "$proj" node -e '
const wl = require("workload-lens");
const r = wl.resolve(require("fs").readFileSync(process.env.JOBSET, "utf8"));
if (wl.backend !== "native" || r.totals.resources.gpu !== 12) throw new Error(`${wl.backend} ${r.totals.resources.gpu}`);
console.log(`   require("workload-lens"): ${wl.backend}, ${r.totals.resources.gpu} GPUs`);'
bare "$proj" node --input-type=module -e '
import { readFileSync } from "node:fs";
import * as native from "workload-lens";
import * as wasm from "workload-lens/wasm";
const text = readFileSync(process.env.JOBSET, "utf8");
await wasm.init();
for (const [spec, wl] of [["workload-lens", native], ["workload-lens/wasm", wasm]]) {
  const gpu = wl.resolve(text).totals.resources.gpu;
  if (gpu !== 12) throw new Error(`${spec}: ${gpu} GPUs`);
  console.log(`   import "${spec}": ${wl.backend}, ${gpu} GPUs`);
}
if (native.backend !== "native" || wasm.backend !== "wasm") throw new Error("backends");'

echo "   installed and checked in $(($(date +%s) - t)) s; package stage: $(($(date +%s) - T0)) s in all"
