#!/usr/bin/env bash
# Builds what a user installs without Rust, into dist/ (gitignored):
#   workload_lens-<version>-cp39-abi3-manylinux_<glibc>_x86_64.whl
#       the Python package: one abi3 wheel for CPython 3.9+ (maturin)
#       pip install dist/workload_lens-*.whl
#   workload-lens-<version>.tgz
#       the npm package (npm pack) with its native addon prebuilt for this
#       platform (workload-lens.linux-x64-gnu.node) and the WASM build
#       (wasm/workload_lens_wasm.js, wasm/workload_lens_wasm_bg.wasm); its
#       install script is left out (nothing to build), so npm runs nothing
#       npm install dist/workload-lens-*.tgz
#
#   bash scripts/package.sh              # into dist/
#   bash scripts/package.sh --out DIR    # into DIR
#
# Building them needs Rust and the build tools the test scripts use; each
# step says what it installs before installing it:
#   - the wheel: maturin in .venv (created, and maturin installed, when
#     missing), a release build (~2 min clean on 2 cores, seconds when built);
#   - the addon: bindings-node/build.sh (the npm dev tools, napi build
#     --release: ~2 min clean, seconds when built);
#   - the WASM files: bindings-node/wasm/ as bindings-wasm/build.sh left it;
#     when it is missing, bindings-wasm/setup.sh (Debian's rustc-web toolchain
#     as root, wasm-bindgen-cli, npm tools: ~5 min on a new machine) and
#     bindings-wasm/build.sh (~4 min clean) run first.
# The release profile is the workspace's (thin LTO) unless the environment
# overrides it: scripts/test.sh's package stage passes the test builds'
# settings, so that it packs the builds its python and node stages made.
# scripts/package-test.sh installs the results without Rust and checks them.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    -h | --help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd)
T0=$(date +%s)

# --- the Python wheel -------------------------------------------------------
venv=$root/.venv
if [ ! -x "$venv/bin/maturin" ]; then
  if [ ! -x "$venv/bin/python" ]; then
    echo "== creating the venv .venv (for maturin, the wheel's build tool)"
    "${PYTHON:-python3}" -m venv "$venv"
  fi
  echo "== installing maturin into .venv (pip, a few seconds)"
  "$venv/bin/python" -m pip --disable-pip-version-check -q install 'maturin>=1.9,<2'
fi
echo "== the Python wheel: maturin build --release (abi3)"
t=$(date +%s)
rm -f "$out"/workload_lens-*.whl
log=$root/target/package-maturin.log
mkdir -p "$root/target"
"$venv/bin/maturin" build --release --locked -i "$venv/bin/python" -m bindings-python/Cargo.toml --out "$out" \
  >"$log" 2>&1 || { cat "$log"; exit 1; }
wheel=$(ls "$out"/workload_lens-*.whl)
case "$wheel" in
  *-cp39-abi3-*) ;;
  *) echo "error: $wheel is not an abi3 wheel for CPython 3.9+ (pyo3 feature abi3-py39)" >&2; exit 1 ;;
esac
echo "   $(basename "$wheel") ($(($(date +%s) - t)) s)"

# --- the native addon -------------------------------------------------------
bash bindings-node/build.sh

# --- the WASM build ---------------------------------------------------------
if [ ! -f bindings-node/wasm/workload_lens_wasm.js ] || [ ! -f bindings-node/wasm/workload_lens_wasm_bg.wasm ]; then
  echo "== the WASM build is missing (bindings-node/wasm/): building it first"
  echo "   bindings-wasm/setup.sh installs what it lacks (nothing listed: all present):"
  bash bindings-wasm/setup.sh --plan
  bash bindings-wasm/setup.sh
  echo "   bindings-wasm/build.sh: about 4 minutes clean on 2 cores"
  bash bindings-wasm/build.sh
else
  echo "== the WASM build: bindings-node/wasm/ as built ($(date -u -r bindings-node/wasm/workload_lens_wasm_bg.wasm '+%Y-%m-%d %H:%M UTC'); bindings-wasm/build.sh rebuilds it)"
fi

# --- the npm tarball --------------------------------------------------------
echo "== the npm tarball: npm pack bindings-node, without the install script"
stage=$root/target/package-npm
rm -rf "$stage"
mkdir -p "$stage"
tgz=$(cd bindings-node && npm pack --ignore-scripts --pack-destination "$stage" --loglevel=error | tail -1)
tar -xzf "$stage/$tgz" -C "$stage"
# The addon is inside: the install script (which builds it from the Rust
# sources, absent from the tarball) has nothing to do, so it goes with the
# other scripts, and npm installs the tarball without running anything.
node -e '
const fs = require("fs"); const f = process.argv[1];
const p = JSON.parse(fs.readFileSync(f, "utf8"));
delete p.scripts; // install (the build), build and test: the tarball has no sources or tests
p.files = p.files.filter((x) => x !== "build-native.cjs");
fs.writeFileSync(f, JSON.stringify(p, null, 2) + "\n");' "$stage/package/package.json"
rm -f "$stage/package/build-native.cjs" "$out"/workload-lens-*.tgz
(cd "$stage/package" && npm pack --ignore-scripts --pack-destination "$out" --loglevel=error >/dev/null)
npm_tgz=$out/$tgz
listing=$(tar -tzf "$npm_tgz")
for f in package/workload-lens.linux-x64-gnu.node package/wasm/workload_lens_wasm.js package/wasm/workload_lens_wasm_bg.wasm; do
  grep -qx "$f" <<<"$listing" || { echo "error: $npm_tgz lacks ${f#package/}" >&2; exit 1; }
done
echo "   $tgz: $(grep -c . <<<"$listing") files, with workload-lens.linux-x64-gnu.node and wasm/"

size() { printf '%s KB' "$(($(stat -c %s "$1") / 1024))"; }
echo "== packed in $(($(date +%s) - T0)) s into ${out#"$root"/}/: $(basename "$wheel") ($(size "$wheel")), $tgz ($(size "$npm_tgz"))"
