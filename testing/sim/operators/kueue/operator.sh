#!/usr/bin/env bash
# Kueue (sigs.k8s.io/kueue, version in go.mod) for the simulated cluster.
#
#   operator.sh build [--cached]  build the controller into the cache; prints
#                                 only its path. --cached: exit 1 (silently)
#                                 if it is not built yet
#   operator.sh version           "<module> <version>" from go.mod
#   operator.sh start DIR         apply Kueue's CRDs (from the module cache),
#                                 start the controller in the background
#                                 (log DIR/kueue.log, pid DIR/kueue.pid) and
#                                 wait until it reconciles (60 s at most)
#   operator.sh stop DIR          TERM, KILL after 5 s; rc 0 if not running
#
# DIR/kubeconfig is the cluster's admin kubeconfig. Needs Go (build, and to
# find the module in the module cache at start), openssl and the repo's venv
# (target/live/venv/bin/python, for testing/sim/kube.py).
#
# Webhooks: Kueue cannot run without its webhook server (its /readyz waits for
# it), so start makes a self-signed certificate in DIR/kueue-certs and serves
# the webhooks on a loopback port, but registers NO webhook configuration with
# the API server. So nothing defaults or validates Kueue's objects or suspends
# new jobs: create jobs with spec.suspend: true and the label
# kueue.x-k8s.io/queue-name (what Kueue's mutating webhook would have done),
# and write complete, valid ClusterQueues/LocalQueues/ResourceFlavors.
# The CRDs are applied without conversion webhooks: use kueue.x-k8s.io/v1beta2
# (the stored version); v1beta1 requests are not converted.
#
# Metrics: upstream main.go reads the metrics server's certificate from the
# fixed path /etc/kueue/metrics/certs unless internal cert management is on
# (which needs conversion webhooks in the CRDs), and exits if it is missing.
# The build therefore compiles a copy of that main.go (made in the cache at
# build time, never committed) with that one path read from
# $WL_KUEUE_METRICS_CERT_DIR instead (patch_old/patch_new below);
# start points it at DIR/kueue-certs. The metrics server itself is off.
#
# Integrations: kueue-config.yaml (FRAMEWORKS line), or $KUEUE_FRAMEWORKS
# (comma separated, e.g. "batch/job"). Kueue does not refuse to start when an
# integration's CRD (JobSet, Ray, LWS) is missing: it logs "No matching API in
# the server for job framework, deferring setting up controller" and sets the
# integration up once the CRD appears. "pod" is left out: plain Pods are held
# back by a scheduling gate that only Kueue's pod webhook adds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
name=kueue
module=sigs.k8s.io/kueue
main_pkg=sigs.k8s.io/kueue/cmd/kueue
cache="${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}/operators/$name"

die() { echo "$name: error: $*" >&2; exit 1; }

mod_version() {
  awk -v m="$module" '($1 == m) { print $2 } ($1 == "require" && $2 == m) { print $3 }' "$here/go.mod" | head -n1
}

# The one change to upstream cmd/kueue/main.go (see the header).
patch_old='metricsCertPath := "/etc/kueue/metrics/certs"'
patch_new='metricsCertPath := func() string { if d := os.Getenv("WL_KUEUE_METRICS_CERT_DIR"); d != "" { return d }; return "/etc/kueue/metrics/certs" }()'

build_key() {
  { cat "$here/go.mod" "$here/go.sum" "$here/tools.go"; printf '%s\n%s\n' "$patch_old" "$patch_new"; } |
    sha256sum | cut -c1-16
}

# The module's directory in the module cache (downloaded if needed).
module_dir() {
  local dir
  dir=$(cd "$here" && GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod download -json "$module@$(mod_version)" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  [ -n "$dir" ] && [ -d "$dir" ] || die "could not find $module in the Go module cache (go mod download)"
  echo "$dir"
}

cmd_build() {
  command -v go >/dev/null 2>&1 || { [ "${1:-}" = --cached ] && exit 1; die "build needs Go (go is not on PATH)"; }
  local key out
  key=$(build_key)
  out="$cache/$key/$name-controller"
  if [ -x "$out" ]; then echo "$out"; return 0; fi
  [ "${1:-}" = --cached ] && exit 1
  echo "$name: building $main_pkg $(mod_version) into $out" >&2
  echo "$name: (first build: ~5-8 min on 2 cores; later builds reuse Go's build cache)" >&2
  mkdir -p "$cache/$key"
  local start src
  tmp=$(mktemp -d "$cache/$key/.build.XXXXXX")
  mkdir "$tmp/kueue"
  trap 'rm -rf "$tmp"' EXIT
  src="$(module_dir)/cmd/kueue/main.go"
  [ "$(grep -cF "$patch_old" "$src")" = 1 ] ||
    die "$src does not contain exactly one line '$patch_old'; update patch_old in operator.sh"
  # The patched copy is built as a file list from this module's directory, so
  # its imports resolve through this go.mod (-overlay refuses files in GOMODCACHE).
  awk -v old="$patch_old" -v new="$patch_new" '{ i = index($0, old); if (i) $0 = substr($0, 1, i - 1) new substr($0, i + length(old)); print }' "$src" >"$tmp/kueue/main.go"
  start=$(date +%s)
  (cd "$here" && GOTOOLCHAIN=local nice go build -buildvcs=false \
    -ldflags "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$(mod_version)" \
    -o "$tmp/$name-controller" "$tmp/kueue/main.go") >&2
  mv -f "$tmp/$name-controller" "$out"
  echo "$name: built in $(($(date +%s) - start)) s ($(du -m "$out" | cut -f1) MB)" >&2
  echo "$out"
}

python_bin() {
  local py="$root/target/live/venv/bin/python"
  [ -x "$py" ] || die "$py is missing (the repo's venv with the kubernetes and yaml packages)"
  echo "$py"
}

free_port() {
  "$(python_bin)" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

running_pid() { # the pid in DIR/<name>.pid if that process lives
  local pidf="$1/$name.pid" pid
  [ -f "$pidf" ] || return 1
  pid=$(cat "$pidf")
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

cmd_start() {
  local dir="${1:?usage: operator.sh start DIR}"
  dir=$(cd "$dir" && pwd)
  [ -f "$dir/kubeconfig" ] || die "$dir/kubeconfig not found"
  if running_pid "$dir" >/dev/null; then die "already running (pid $(cat "$dir/$name.pid"))"; fi
  command -v openssl >/dev/null 2>&1 || die "start needs openssl (for the webhook server's self-signed certificate)"
  local bin py mdir t0
  t0=$(date +%s.%N)
  bin=$(cmd_build) || die "build failed"
  py=$(python_bin)
  mdir=$(module_dir)

  "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$mdir/config/components/crd/bases" ||
    die "applying the CRDs from $mdir/config/components/crd/bases failed"

  local certs="$dir/kueue-certs"
  mkdir -p "$certs"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj "/CN=kueue-sim" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
    -keyout "$certs/tls.key" -out "$certs/tls.crt" 2>/dev/null || die "openssl could not make a certificate"

  local frameworks health webhook
  frameworks=${KUEUE_FRAMEWORKS:-$(sed -n 's/^# FRAMEWORKS=//p' "$here/kueue-config.yaml" | head -n1)}
  [ -n "$frameworks" ] || die "no integrations (KUEUE_FRAMEWORKS or the FRAMEWORKS line of kueue-config.yaml)"
  health=$(free_port)
  webhook=$(free_port)
  while [ "$webhook" = "$health" ]; do webhook=$(free_port); done
  local fw_lines="" f
  IFS=, read -ra fws <<<"$frameworks"
  for f in "${fws[@]}"; do fw_lines+="  - \"${f// /}\""$'\n'; done
  FW="$fw_lines" awk -v h="127.0.0.1:$health" -v w="$webhook" -v c="$certs" '
    /^#/ { print; next }
    /^@FRAMEWORKS@$/ { printf "%s", ENVIRON["FW"]; next }
    { gsub(/@HEALTH_ADDR@/, h); gsub(/@WEBHOOK_PORT@/, w); gsub(/@CERT_DIR@/, c); print }' \
    "$here/kueue-config.yaml" >"$dir/kueue-config.yaml"

  : >"$dir/$name.log"
  (
    cd "$dir"
    exec env -u POD_NAMESPACE KUBECONFIG="$dir/kubeconfig" WL_KUEUE_METRICS_CERT_DIR="$certs" \
      "$bin" --config="$dir/kueue-config.yaml" --zap-log-level=info >>"$dir/$name.log" 2>&1 </dev/null
  ) &
  local pid=$!
  echo "$pid" >"$dir/$name.pid"

  # Ready: /readyz answers 200 (the manager started its runnables) and the
  # Workload controller's workers run (caches synced, reconciling).
  local deadline=$(($(date +%s) + 60))
  while :; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: the controller exited; last lines of $dir/$name.log:" >&2
      tail -n 30 "$dir/$name.log" >&2
      rm -f "$dir/$name.pid"
      exit 1
    fi
    if "$py" -c 'import sys, urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1], timeout=1).status != 200)' \
      "http://127.0.0.1:$health/readyz" 2>/dev/null &&
      grep -q '"logger":"workload-reconciler".*"msg":"Starting workers"' "$dir/$name.log"; then
      break
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "$name: not ready after 60 s; last lines of $dir/$name.log:" >&2
      tail -n 30 "$dir/$name.log" >&2
      cmd_stop "$dir" || true
      exit 1
    fi
    sleep 0.2
  done
  echo "$name: ready in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s (pid $pid, log $dir/$name.log)" >&2
}

cmd_stop() {
  local dir="${1:?usage: operator.sh stop DIR}" pid i
  pid=$(running_pid "$dir") || { rm -f "$dir/$name.pid"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "$name: pid $pid did not stop in 5 s; KILL" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/$name.pid"
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  version) echo "$module $(mod_version)" ;;
  start) shift; cmd_start "$@" ;;
  stop) shift; cmd_stop "$@" ;;
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
esac
