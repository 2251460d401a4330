#!/usr/bin/env bash
# Fuzz one target for a while: fuzz/run.sh TARGET SECONDS [extra libFuzzer flags]
# Needs cargo-fuzz (`cargo install cargo-fuzz`). Nightly features come from
# RUSTC_BOOTSTRAP=1 on stable rustc (AddressSanitizer runtime ships with it).
# New inputs go to fuzz/corpus/TARGET, crashes to fuzz/artifacts/TARGET.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$1"; secs="${2:-60}"; shift 2 || true
[ -d "$here/corpus/$target" ] || "$here/seed.sh"
mkdir -p "$here/corpus/$target"
dict=()
case "$target" in
  jq) dict=(-dict="$here/jq.dict") ;;
  definition|resolve_text) dict=(-dict="$here/yaml.dict") ;;
esac
cd "$here"
RUSTC_BOOTSTRAP=1 cargo fuzz run "$target" "corpus/$target" -- \
  -max_total_time="$secs" -timeout=30 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 "${dict[@]}" "$@"
