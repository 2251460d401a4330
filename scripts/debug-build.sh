#!/usr/bin/env bash
# The test tooling the stages run after the rust stage (the conformance
# runner target/debug/conformance, the binding crate's examples that print
# the schemas and the operation table, the catalog tests of recorded
# scenarios), built as that stage's `cargo test --workspace` builds them:
# the workspace's tests with their dev-dependencies, whose features build
# the engine's dependencies differently. After the rust stage this is a
# no-op; a `cargo run -p ...` of one of them compiled the engine again for
# another feature set (over a minute in each of the Python, conformance and
# sim stages). A stage run alone builds the workspace's tests once here.
#
# Not the CLI: what the stages run as `workload-lens` is the CLI as users
# build it (`cargo build -p workload-lens-cli`), which the dev-dependencies'
# features must not change (a test compares it with the Python package's).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked -q --no-run
