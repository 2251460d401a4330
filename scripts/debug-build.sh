#!/usr/bin/env bash
# The debug builds the stages run (target/debug/workload-lens, the CLI, and
# target/debug/conformance, the suite's runner), built as the rust stage's
# `cargo test --workspace` builds them: every test of the workspace, so
# that the features are the ones that build unified (the dev-dependencies
# turn on features of the engine's dependencies). After the rust stage this
# is a no-op; a `cargo build -p workload-lens-cli` there compiled the engine
# and the CLI again (over a minute) for a different feature set. A stage run
# alone builds the workspace's tests once here.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --locked -q --no-run
