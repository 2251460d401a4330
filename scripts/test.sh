#!/usr/bin/env bash
# The repository's test command (the README's; `.ci/run` runs it whole).
#
#   bash scripts/test.sh [STAGE...]    (no stage: all)
#   bash scripts/test.sh --help        (lists the stages)
#
# Stages, run in this order whatever order they are given in:
#   rust         cargo fmt --check, clippy (warnings are errors; the CLI
#                also without its default `cluster` feature), cargo test
#                (engine, CLI, conformance; the gojq differential tests),
#                the engine benches once, the fuzz targets' build, and 60 s
#                of the differential jq fuzz target (fuzz/smoke.sh)
#   python       the Python package: build, install, pytest (bindings-python/test.sh)
#   hostile      the hostile corpus under a 1 GiB address-space cap, Rust
#                (release) and Python: no abort, every outcome as expected
#                (scripts/hostile-capped.sh)
#   node         the Node package: native addon, node --test (bindings-node/test.sh)
#   wasm         the WebAssembly build: size budget, conformance in Node and
#                headless Chromium (bindings-wasm/test.sh)
#   package      the artifacts a user installs without Rust (scripts/package.sh:
#                an abi3 wheel, an npm tarball with the addon and the WASM
#                files) install into a new venv and a new npm project with no
#                cargo on PATH, and work (scripts/package-test.sh). It packs
#                the builds of the python, node and wasm stages (seconds);
#                alone, it builds what is missing
#   playground   the playground's end-to-end tests in headless Chromium
#                (playground/test.sh; builds the WASM module if it is missing)
#   conformance  the Rust conformance run and the parity table of every
#                runtime that has results in target/conformance/
#   live         the live-cluster suites (CLI, Python, Node) against a real
#                kube-apiserver with a seeded scenario (scripts/live.sh,
#                testing/live/README.md); builds the server with Go on first
#                use (6-12 min, cached outside the clone)
#   metrics      `workload-lens serve` scraped by a real Prometheus, on the
#                live stage's seeded kube-apiserver (scripts/metrics.sh,
#                testing/metrics/): promtool on the exposition and on
#                deploy/prometheus/rules.yaml (and its unit tests); every
#                workload's series through PromQL against `get -o json`; the
#                recording rules on a fake DCGM endpoint; the ```promql
#                blocks of docs/metrics.md; 1,000 workloads created and
#                deleted; the API server stopped and started again. The same
#                kube-apiserver build as live
#   fleet        docs/fleet.md's recipes on local clusters (scripts/fleet.sh,
#                testing/fleet): Ray Data with 2 CPUs and PySpark local[2]
#                (the pinned versions, into .venv with the package), over a
#                generated fleet and over a snapshot of a seeded
#                kube-apiserver, each row checked against fleet.resolve and
#                `get -A -o json`; DuckDB and Parquet; the Python fleet tests
#                with the live server. The same kube-apiserver build as live
#   sim          the simulated GPU cluster (testing/sim: kube-apiserver,
#                kube-controller-manager, kube-scheduler, 4 KWOK nodes x 8
#                GPUs, the operators) and the tests run in it: the sim's own
#                test, each operator's smoke test, the live suites of the CLI,
#                Python and Node on workloads real controllers made
#                (testing/sim/live/README.md) and every scenario replayed
#                live and checked (scripts/record.sh --check; scripts/sim.sh).
#                Builds the cluster and the operators with Go on first use
#                (cached outside the clone), and the Python package and Node
#                addon as their stages do; WORKLOAD_LENS_SIM_OPERATORS picks
#                the operators (default: all ten of testing/sim/README.md;
#                .ci/run: jobset,lws, as the others' first builds would take
#                a new machine past its time; their workloads are replayed by
#                the rust stage)
#   all          all of the above (the default)
#
# Each stage works alone on a new machine: first it installs what it needs
# and the machine lacks, saying what and why beforehand (nothing is said
# when everything is present):
#   rust         apt: gojq (the jq oracle of the differential tests), g++
#                (libFuzzer's build) if there is no C++ compiler; rustup:
#                rustfmt, clippy
#   wasm, playground
#                bindings-wasm/setup.sh --browser: apt: Debian's rustc-web
#                toolchain, lld and chromium; wasm-bindgen-cli (cargo
#                install); bindings-wasm's npm tools
#   python, node, playground, package
#                their own scripts create a venv / run npm ci
#   live         Go >= 1.26 must be on PATH (never installed: the stage fails
#                saying so); the Go module proxy (~700 MB of modules on the
#                first build); a venv target/live/venv with the kubernetes
#                client; the Python and Node suites build as their stages do
#   metrics      Go >= 1.26 as for live (the same kube-apiserver build); apt:
#                prometheus (Prometheus 2 and promtool); the venv
#                target/live/venv; the CLI's debug build (as rust and live)
#   sim          Go >= 1.26 as for live (the same kube-apiserver build, plus
#                kwok and the operators: ~60 MB and ~1 GB of modules); apt:
#                openssl (the operators' webhook certificates), curl (their
#                readiness probes), gojq (the scenario runner, scripts/record.sh),
#                python3 and its venv module; the venv target/live/venv;
#                for its live suites, the Python package and the Node addon,
#                built as their stages build them
# The Debian packages of all the selected stages come in one apt run. When a
# WASM stage runs after a Rust, Python or Node stage (as in `all`), the rest
# of bindings-wasm/setup.sh (wasm-bindgen-cli compiles for ~3 min) runs in
# the background meanwhile, and the first WASM stage waits for it. Likewise,
# when the live stage runs after others and its kube-apiserver is not built
# yet, testing/kube-apiserver/build.sh runs in the background from the start
# (log: target/kapi-build.log), and the live stage waits for it; the metrics
# and sim stages need the same build and wait for it too. And when the sim stage
# runs after others and anything it needs is not built, the rest of its
# builds run in the background from the start as well, one after the other
# and after the kube-apiserver build, niced, in one process group: kwok, then
# the chosen operators (scripts/sim.sh --build --no-kapi, log:
# target/sim-build.log, each build timed); the sim stage waits for them. On a
# new machine that is ~13 min of compiling with all four operators (kueue ~6
# min, jobset ~3, lws and kuberay ~2 each, kwok ~1), ~6 min with jobset,lws,
# beside the Rust, Python, Node and WASM stages.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

ORDER=(rust python hostile node wasm package playground conformance live metrics fleet sim)
usage() {
  cat <<'EOF'
usage: bash scripts/test.sh [STAGE...]    (default: all)

stages (run in this order, whatever order they are given in):
  rust          cargo fmt --check, clippy, rust-version (scripts/msrv.sh), cargo test, engine benches once, fuzz targets' build, 60 s of jq fuzzing
  python        the Python package (bindings-python/test.sh)
  hostile       the hostile corpus under a 1 GiB address-space cap, Rust and Python (scripts/hostile-capped.sh)
  node          the Node package (bindings-node/test.sh)
  wasm          the WebAssembly build: size budget, conformance in Node and Chromium (bindings-wasm/test.sh)
  package       the wheel and npm tarball (scripts/package.sh) install and work without Rust (scripts/package-test.sh)
  playground    the playground's end-to-end tests in headless Chromium (playground/test.sh)
  conformance   the Rust conformance run and the parity table of the runtimes with results
  live          live-cluster suites against a real kube-apiserver, seeded (scripts/live.sh; needs Go >= 1.26)
  metrics       the exporter (workload-lens serve) scraped by a real Prometheus: parity with get, recording
                rules, docs/metrics.md's PromQL, churn, API server faults (scripts/metrics.sh; needs Go >= 1.26)
  fleet         docs/fleet.md's recipes: Ray Data (2 CPUs), PySpark local[2], DuckDB, over generated
                snapshots and a live kube-apiserver's (scripts/fleet.sh; needs Go >= 1.26 and Java >= 17)
  sim           the simulated GPU cluster with its operators: its own test, the operators' smoke tests, the
                scenarios replayed live (scripts/sim.sh; needs Go >= 1.26; WORKLOAD_LENS_SIM_OPERATORS=a,b
                picks the operators, default jobset,lws,kueue,kuberay)
  all           everything above (the default)

Each stage installs what it needs and the machine lacks, and says so first.
EOF
}

declare -A want=()
for a in "$@"; do
  case "$a" in
    -h | --help) usage; exit 0 ;;
    all) for s in "${ORDER[@]}"; do want[$s]=1; done ;;
    rust | python | hostile | node | wasm | package | playground | conformance | live | metrics | fleet | sim) want[$a]=1 ;;
    *) echo "error: unknown stage '$a'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ $# -eq 0 ]; then
  for s in "${ORDER[@]}"; do want[$s]=1; done
fi
has() { [ -n "${want[$1]:-}" ]; }

T0=$(date +%s)
stage() { # [MM:SS] since the start (minutes past 59 go on counting)
  local t=$(($(date +%s) - T0))
  printf '== [%02d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*"
}

# --- what the selected stages need -------------------------------------------
# Debian packages: "package|reason" for each one the machine lacks.
apt_missing=()
need_apt() { # PACKAGE REASON [COMMAND]: needed unless installed (or COMMAND is on PATH)
  if [ -n "${3:-}" ]; then
    command -v "$3" >/dev/null 2>&1 && return 0
  else
    dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" && return 0
  fi
  apt_missing+=("$1|$2")
}
if has rust; then
  # gojq may come from elsewhere than apt: checked by command.
  need_apt gojq "the jq oracle of the gojq differential tests" gojq
  need_apt g++ "C++ compiler for libFuzzer, fuzz/smoke.sh" c++
fi
if has sim; then
  need_apt openssl "the sim's operators: their webhook certificates" openssl
  need_apt curl "the sim's operators: their readiness probes" curl
  need_apt gojq "the scenario runner of the sim stage, scripts/record.sh" gojq
  need_apt python3 "the sim's scripts and tests" python3
  python3 -c 'import ensurepip' 2>/dev/null || need_apt python3-venv "the sim's venv, target/live/venv"
fi
if has metrics; then
  # promtool too; checked by command (Prometheus may come from elsewhere).
  need_apt prometheus "the metrics stage: a real Prometheus and promtool (scripts/metrics.sh)" prometheus
  python3 -c 'import ensurepip' 2>/dev/null || need_apt python3-venv "the metrics stage's venv, target/live/venv"
fi
if has fleet; then
  need_apt default-jre-headless "the fleet stage: Java for PySpark (scripts/fleet.sh)" java
  python3 -c 'import ensurepip' 2>/dev/null || need_apt python3-venv "the fleet stage's venv, .venv"
fi
if has live || has metrics || has fleet || has sim; then
  # Checked first, so that `all` does not fail only after the other stages.
  go_stages=$(for s in live metrics fleet sim; do if has $s; then printf '%s ' $s; fi; done)
  go_stages=${go_stages% }
  case $go_stages in
    *" "*) go_need="the ${go_stages// / and } stages need" ;;
    *) go_need="the $go_stages stage needs" ;;
  esac
  if ! command -v go >/dev/null 2>&1; then
    echo "error: $go_need Go >= 1.26 on PATH (to build a kube-apiserver and more for the tests;" >&2
    echo "       Go is not installed by this script). Run the other stages by name to leave $([ "${go_stages#* }" = "$go_stages" ] && echo it || echo them) out." >&2
    exit 1
  fi
  gov=$(go env GOVERSION 2>/dev/null || true)
  IFS=. read -r gomaj gomin _ <<<"${gov#go}"
  gomaj=${gomaj//[^0-9]/} gomin=${gomin//[^0-9]/}
  if [ "${gomaj:-0}" -lt 1 ] || { [ "${gomaj:-0}" -eq 1 ] && [ "${gomin:-0}" -lt 26 ]; }; then
    echo "error: $go_need Go >= 1.26; found '${gov:-unknown}' ($(command -v go))." >&2
    echo "       Run the other stages by name to leave $([ "${go_stages#* }" = "$go_stages" ] && echo it || echo them) out." >&2
    exit 1
  fi
fi
sim_built=1
if has sim; then
  # Also checks WORKLOAD_LENS_SIM_OPERATORS (exit 2, saying why, when it
  # names an unknown operator).
  rc=0
  bash scripts/sim.sh --cached || rc=$?
  [ "$rc" != 2 ] || exit 2
  [ "$rc" = 0 ] || sim_built=0
fi
wasm_stages=0
if has wasm || has playground; then
  wasm_stages=1
  # bindings-wasm/setup.sh keeps the package list; installed here in the same
  # apt run as the other stages' packages.
  for p in $(bash bindings-wasm/setup.sh --browser --list); do
    case "$p" in
      chromium) need_apt chromium "headless browser for the WASM and playground tests" ;;
      *) need_apt "$p" "Debian's Rust toolchain for wasm32 and its linker, bindings-wasm/build.sh" ;;
    esac
  done
fi

if [ ${#apt_missing[@]} -gt 0 ]; then
  # One line: the packages grouped by reason.
  names=() reasons=() line=""
  declare -A seen=()
  for e in "${apt_missing[@]}"; do
    names+=("${e%%|*}")
    r="${e#*|}"
    [ -n "${seen[$r]:-}" ] || reasons+=("$r")
    seen[$r]=1
  done
  for r in "${reasons[@]}"; do
    pk=()
    for e in "${apt_missing[@]}"; do [ "${e#*|}" = "$r" ] && pk+=("${e%%|*}"); done
    line+="${line:+, }${pk[*]} ($r)"
  done
  stage "Debian packages"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "   installing with apt: $line"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq "${names[@]}" >/dev/null
  else
    # gojq's tests skip without it; the other stages fail with the reason.
    echo "warning: missing Debian packages (not root: not installed): $line" >&2
  fi
fi

if has rust && command -v rustup >/dev/null 2>&1; then
  comps=()
  cargo fmt --version >/dev/null 2>&1 || comps+=(rustfmt)
  cargo clippy --version >/dev/null 2>&1 || comps+=(clippy)
  if [ ${#comps[@]} -gt 0 ]; then
    echo "   installing with rustup: ${comps[*]} (cargo fmt --check and cargo clippy)"
    rustup component add "${comps[@]}" >/dev/null 2>&1 || true
  fi
fi

# The WASM tools that are not Debian packages (wasm-bindgen-cli, npm tools):
# in the background when other stages run before the WASM stages.
SETUP_PID=""
if [ "$wasm_stages" = 1 ]; then
  if has rust || has python || has node; then
    mkdir -p target
    stage "WASM tools in the background (bindings-wasm/setup.sh, log: target/wasm-setup.log)"
    bash bindings-wasm/setup.sh --browser --plan
    bash bindings-wasm/setup.sh --browser >target/wasm-setup.log 2>&1 &
    SETUP_PID=$!
  else
    stage "WASM tools (bindings-wasm/setup.sh)"
    bash bindings-wasm/setup.sh --browser
  fi
fi
# The kube-apiserver of the live, metrics and sim stages, when it is not built yet
# and other stages run first: built meanwhile (downloading its modules is
# network-bound, and the Go compiler runs at a lower priority), in a process
# group of its own.
KAPI_PID=""
if { has live || has metrics || has fleet || has sim; } && ! bash testing/kube-apiserver/build.sh --cached >/dev/null; then
  for s in rust python hostile node wasm package playground conformance; do
    if has "$s"; then
      mkdir -p target
      stage "kube-apiserver build in the background, for the ${go_stages// / and } stage$([ "${go_stages#* }" = "$go_stages" ] || echo s) (testing/kube-apiserver/build.sh, log: target/kapi-build.log)"
      setsid -w bash testing/kube-apiserver/build.sh >target/kapi-build.log 2>&1 &
      KAPI_PID=$!
      break
    fi
  done
fi
# The rest of the sim stage's builds (kwok, the operators), likewise, after
# the kube-apiserver build (never beside it: two Go builds would share the
# 2 cores); scripts/sim.sh --build never builds the kube-apiserver with
# --no-kapi (the job above or the live stage does).
SIMBUILD_PID=""
if has sim && [ "$sim_built" = 0 ]; then
  for s in rust python hostile node wasm package playground conformance live metrics; do
    if has "$s"; then
      mkdir -p target
      stage "the sim's builds in the background, after the kube-apiserver's (scripts/sim.sh --build --no-kapi, log: target/sim-build.log)"
      setsid -w nice bash scripts/sim.sh --build --no-kapi ${KAPI_PID:+--after "$KAPI_PID"} >target/sim-build.log 2>&1 &
      SIMBUILD_PID=$!
      break
    fi
  done
fi
stop_background() {
  [ -z "$SETUP_PID" ] || kill "$SETUP_PID" 2>/dev/null || true
  [ -z "$KAPI_PID" ] || kill -- "-$KAPI_PID" 2>/dev/null || true
  [ -z "$SIMBUILD_PID" ] || kill -- "-$SIMBUILD_PID" 2>/dev/null || true
}
trap stop_background EXIT
# wait_background VAR LOG WHAT: wait for the background job whose PID is in
# VAR (none: return), then show its log; its failure ends the run (with the
# log's last lines).
wait_background() {
  local pid=${!1}
  [ -n "$pid" ] || return 0
  stage "$3: waiting for it"
  if ! wait "$pid"; then
    echo "------ last lines of $2:" >&2
    tail -n 60 "$2" >&2
    echo "------" >&2
    echo "error: $3 failed (its whole log: $2)" >&2
    exit 1
  fi
  printf -v "$1" '%s' ""
  cat "$2"
}
wait_for_kapi() { wait_background KAPI_PID target/kapi-build.log "the kube-apiserver build (testing/kube-apiserver/build.sh)"; }
wait_for_sim_build() { wait_background SIMBUILD_PID target/sim-build.log "the sim's builds (scripts/sim.sh --build --no-kapi)"; }
wait_for_wasm_tools() { wait_background SETUP_PID target/wasm-setup.log "the WASM tools (bindings-wasm/setup.sh)"; }

# --- the stages ---------------------------------------------------------------
if has rust; then
  stage "cargo fmt --check"
  cargo fmt --all -- --check

  stage "cargo clippy (warnings are errors)"
  cargo clippy --workspace --all-targets --locked -- -D warnings
  # The CLI without its default `cluster` feature (no kube-rs) must be
  # clean too: a check of the CLI alone, cheap after the one above.
  cargo clippy -p workload-lens-cli --no-default-features --all-targets --locked -- -D warnings

  stage "the declared rust-version holds (scripts/msrv.sh)"
  bash scripts/msrv.sh

  stage "cargo test"
  cargo test --workspace --locked

  stage "engine benches run once (docs/performance.md)"
  # The workspace's features, so the engine built for the tests above is
  # reused (with `-p workload-lens` alone it was built again, 90 s); bench
  # targets only (`--benches` would run the library's unit tests again).
  cargo test --workspace --locked --bench '*'

  stage "the fuzz targets build, and the differential one (fast path against jaq) runs 60 s (fuzz/smoke.sh jq)"
  bash fuzz/smoke.sh jq 60
fi

# The bindings' test builds skip link-time optimisation: the same code,
# built in about half the time (the Python build 107 s instead of 176, the
# Node addon after it 62 s instead of 144). What users install keeps the
# release profile.
if has python; then
  stage "Python package: build, install and test (bindings-python/test.sh)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    bash bindings-python/test.sh
fi

if has hostile; then
  stage "hostile corpus under a 1 GiB address-space cap (scripts/hostile-capped.sh)"
  bash scripts/hostile-capped.sh
fi

if has node; then
  stage "Node package: build and test (bindings-node/test.sh)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    bash bindings-node/test.sh
fi

if has wasm; then
  wait_for_wasm_tools
  stage "WASM build: size budget, conformance in Node and Chromium (bindings-wasm/test.sh)"
  bash bindings-wasm/test.sh
fi

if has package; then
  # After wasm (whose tools it may need when bindings-node/wasm/ is missing);
  # the python and node stages' release settings, so that their builds are
  # packed as they are instead of being rebuilt with LTO.
  wait_for_wasm_tools
  stage "packages without Rust: wheel and npm tarball, installed with no cargo on PATH (scripts/package-test.sh)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    bash scripts/package-test.sh
fi

if has playground; then
  wait_for_wasm_tools
  stage "playground: end-to-end tests in headless Chromium (playground/test.sh)"
  bash playground/test.sh
fi

if has conformance; then
  stage "conformance suite (every runtime that is built) and parity table"
  bash scripts/debug-build.sh
  "${CARGO_TARGET_DIR:-$PWD/target}/debug/conformance" run
  "${CARGO_TARGET_DIR:-$PWD/target}/debug/conformance" table
fi

if has live; then
  # Last: nothing depends on it. Starts and seeds a kube-apiserver, runs the
  # suites that exist, stops the server.
  wait_for_kapi
  stage "live cluster: kube-apiserver, seeded scenario, CLI/Python/Node live suites (scripts/live.sh)"
  bash scripts/live.sh
fi

if has metrics; then
  # After live: the same kube-apiserver build (and the live stage's venv
  # and CLI build, when it ran).
  wait_for_kapi
  stage "metrics: workload-lens serve scraped by Prometheus, rules, churn, API server faults (scripts/metrics.sh)"
  bash scripts/metrics.sh
fi

if has fleet; then
  # After live: the same kube-apiserver build.
  wait_for_kapi
  stage "fleet: the recipes on local Ray and Spark, DuckDB, generated and live snapshots (scripts/fleet.sh)"
  bash scripts/fleet.sh
fi

if has sim; then
  # After live: the same kube-apiserver build, and the longest set-up.
  wait_for_kapi
  wait_for_sim_build
  stage "simulated GPU cluster: the sim's own test, the operators' smoke tests, the scenarios (scripts/sim.sh)"
  bash scripts/sim.sh
fi

if [ $# -eq 0 ] || [ ${#want[@]} -eq ${#ORDER[@]} ]; then
  stage "all tests passed"
else
  stage "passed: $(for s in "${ORDER[@]}"; do has "$s" && printf '%s ' "$s"; done)"
fi
