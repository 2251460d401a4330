#!/usr/bin/env bash
# The test tooling the stages run after the rust stage: the conformance
# runner (target/debug/conformance) and the binding crate's examples that
# print the schemas and the operation table (target/debug/examples/schemas,
# .../operations), built as that stage's `cargo test --workspace` builds
# them: with the workspace's dev-dependencies, whose features build the
# engine's dependencies differently. After the rust stage nothing is
# compiled here; a `cargo run -p ...` of one of them compiled the engine
# again for another feature set (over a minute in each of the Python,
# conformance and sim stages). Run alone, it builds just these targets.
#
# Only these targets: a `cargo test --workspace --no-run` would also link
# target/debug/workload-lens to the CLI built for its tests, and what the
# stages run as `workload-lens` is the CLI as users build it (`cargo build
# -p workload-lens-cli`), which a test compares with the Python package's.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --workspace --locked -q --example schemas --example operations
cargo test --workspace --locked -q --no-run --test suite
