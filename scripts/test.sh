#!/usr/bin/env bash
# Runs every test of the repository: formatting, lints, and the test suites
# of every crate (engine, CLI, conformance). This is the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

echo "== cargo test"
cargo test --workspace --locked
