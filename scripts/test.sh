#!/usr/bin/env bash
# Runs every test of the repository: formatting, lints, the Rust crates'
# tests, the engine benches once and the fuzz targets' build, the Python and
# Node packages, the WebAssembly build (size budget, conformance in Node and
# Chromium), the playground's end-to-end tests, and the conformance parity
# table. This is the README's test command and what `.ci/run` runs.
#
# On a new machine it first installs what the tests need and the machine
# lacks: gojq (the reference's jq engine, a test oracle) and the WebAssembly
# tools (bindings-wasm/setup.sh: Debian's rustc-web and chromium,
# wasm-bindgen-cli, the npm tools). The Debian packages come first, in one
# apt run; wasm-bindgen-cli compiles in the background while the Rust
# suites run, and the WASM stage waits for it.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
T0=$(date +%s)
stage() { printf '== [%s] %s\n' "$(date -u -d "@$(($(date +%s) - T0))" +%M:%S)" "$*"; }

# gojq may come from elsewhere than apt; the rest is checked by package.
extra_apt=()
command -v gojq >/dev/null 2>&1 || extra_apt+=(gojq)
stage "Debian packages (bindings-wasm/setup.sh --apt-only: the WASM toolchain, chromium${extra_apt[*]:+, ${extra_apt[*]}})"
bash bindings-wasm/setup.sh --browser --apt-only "${extra_apt[@]}"
rustup component add rustfmt clippy >/dev/null 2>&1 || true

mkdir -p target
stage "WASM tools in the background (bindings-wasm/setup.sh, log: target/wasm-setup.log)"
bash bindings-wasm/setup.sh --browser >target/wasm-setup.log 2>&1 &
SETUP_PID=$!
trap 'kill "$SETUP_PID" 2>/dev/null || true' EXIT

stage "cargo fmt --check"
cargo fmt --all -- --check

stage "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

stage "cargo test"
cargo test --workspace --locked

stage "engine benches run once (docs/performance.md) and the fuzz targets build (fuzz/check.sh)"
cargo test -p workload-lens --benches --locked
bash fuzz/check.sh

# The bindings' test builds skip link-time optimisation: the same code,
# built in about half the time (the Python build 107 s instead of 176, the
# Node addon after it 62 s instead of 144). What users install keeps the
# release profile.
stage "Python package: build, install and test (bindings-python/test.sh)"
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  bash bindings-python/test.sh

stage "Node package: build and test (bindings-node/test.sh)"
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  bash bindings-node/test.sh

stage "WASM tools: waiting for bindings-wasm/setup.sh"
if ! wait "$SETUP_PID"; then
  cat target/wasm-setup.log >&2
  echo "error: bindings-wasm/setup.sh failed" >&2
  exit 1
fi
cat target/wasm-setup.log

stage "WASM build: size budget, conformance in Node and Chromium (bindings-wasm/test.sh)"
bash bindings-wasm/test.sh

stage "playground: end-to-end tests in headless Chromium (playground/test.sh)"
bash playground/test.sh

stage "conformance suite (every runtime that is built) and parity table"
cargo run -q --locked -p workload-lens-conformance -- run
cargo run -q --locked -p workload-lens-conformance -- table
stage "all tests passed"
