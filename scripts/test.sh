#!/usr/bin/env bash
# Runs every test of the repository: formatting, lints, and the test suites
# of every crate (engine, CLI). This is the README's test command; on a fresh
# machine it first installs what the tests need (gojq, the reference's jq
# engine, used as an oracle).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

if ! command -v gojq >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing gojq (jq oracle for the differential tests)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq gojq >/dev/null
  else
    echo "warning: gojq is not installed; the gojq differential test will be skipped" >&2
  fi
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --workspace --locked

echo "== engine benches run once (docs/performance.md) and the fuzz targets build (fuzz/check.sh)"
cargo test -p workload-lens --benches --locked
bash fuzz/check.sh

echo "== Python package: build, install and test (bindings-python/test.sh)"
bash bindings-python/test.sh

echo "== Node package: build and test (bindings-node/test.sh)"
bash bindings-node/test.sh

echo "== WASM build: size budget, conformance in Node and Chromium (bindings-wasm/test.sh)"
bash bindings-wasm/test.sh

echo "== playground: end-to-end tests in headless Chromium (playground/test.sh)"
bash playground/test.sh

echo "== conformance suite (every runtime that is built) and parity table"
cargo run -q --locked -p workload-lens-conformance -- run
cargo run -q --locked -p workload-lens-conformance -- table
