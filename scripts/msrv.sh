#!/usr/bin/env bash
# The declared minimum Rust version (`rust-version` of the workspace,
# Cargo.toml) holds, as far as this machine can tell (docs/compatibility.md,
# Rust toolchain). No toolchain of that version can be had here (rustup
# cannot download; Debian offers 1.85, too old, and 1.96), so this checks:
#   1. the toolchain used is at least `rust-version`;
#   2. no package of the locked dependency tree (every member's, the
#      bindings' included) declares a newer `rust-version`;
#   3. the engine, CLI and conformance suite build (`cargo check`, offline,
#      locked) with cargo honouring every package's `rust-version`
#      (no --ignore-rust-version; the MSRV-aware resolver, were the lock
#      file re-resolved).
# The standard library APIs newer than `rust-version` are clippy's
# `incompatible_msrv` lint, which the clippy step of scripts/test.sh runs.
#   bash scripts/msrv.sh
set -euo pipefail
cd "$(dirname "$0")/.."

declared=$(sed -n 's/^rust-version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
[ -n "$declared" ] || { echo "error: no rust-version in Cargo.toml" >&2; exit 1; }
# Compare dotted versions (1.89 = 1.89.0): is $1 >= $2?
full() { case "$1" in *.*.*) echo "$1" ;; *) echo "$1.0" ;; esac; }
at_least() {
  local a b
  a=$(full "$1") b=$(full "$2")
  [ "$(printf '%s\n%s\n' "$b" "$a" | sort -V | head -1)" = "$b" ]
}

have=$(rustc --version | awk '{print $2}')
have=${have%%-*}
if ! at_least "$have" "$declared"; then
  echo "error: rustc $have is older than the declared rust-version $declared" >&2
  exit 1
fi
echo "rustc $have >= rust-version $declared"

# Every locked package, for every platform (the metadata reads them all;
# a build downloads only its own platform's: kube-rs' runtime locks
# gloo-timers for wasm32, which no build here needs).
cargo fetch --locked >/dev/null
newest=$(cargo metadata --format-version 1 --locked --offline |
  python3 -c '
import json, sys
m = json.load(sys.stdin)
key = lambda v: tuple(int(x) for x in v.split("."))
rows = sorted((key(p["rust_version"]), p["rust_version"], p["name"], p["version"])
              for p in m["packages"] if p.get("rust_version"))
print(rows[-1][1], rows[-1][2], rows[-1][3])')
set -- $newest
if ! at_least "$declared" "$1"; then
  echo "error: $2 $3 needs Rust $1, newer than the declared rust-version $declared" >&2
  exit 1
fi
echo "the newest rust-version in the locked tree: $1 ($2 $3) <= $declared"

cargo check -p workload-lens -p workload-lens-cli -p workload-lens-conformance \
  --all-targets --locked --offline \
  --config 'resolver.incompatible-rust-versions="fallback"'
echo "engine, CLI and conformance build honouring rust-version $declared"
