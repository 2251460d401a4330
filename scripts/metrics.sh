#!/usr/bin/env bash
# The metrics stage (bash scripts/test.sh metrics): `workload-lens serve`
# scraped by a real Prometheus, against a real kube-apiserver.
#
#   1. promtool check rules deploy/prometheus/rules.yaml, and its unit tests
#      (promtool test rules testing/metrics/rules_test.yaml: the idle
#      rule's 30-minute window and two exporter replicas, in simulated time);
#   2. builds the CLI (cargo build -p workload-lens-cli, the debug build the
#      rust and live stages make too);
#   3. starts kapi (testing/kube-apiserver, as the live stage does) on a
#      fresh state dir, target/metrics/kapi, and seeds it with the scenario
#      of testing/live/README.md (testing/live/seed.py, venv target/live/venv
#      created when missing);
#   4. starts `workload-lens serve --listen 127.0.0.1:PORT --stale-after 3
#      --debounce-ms 100` on it, the fake GPU-metrics endpoint
#      (testing/metrics/fake_dcgm.py: DCGM series as dcgm-exporter labels
#      them) and Prometheus (scrape and rule evaluation every second,
#      deploy/prometheus/rules.yaml loaded), each on a free loopback port;
#   5. runs testing/metrics/test_metrics.py: `promtool check metrics` on the
#      exporter's text exposition; every workload's series against
#      `workload-lens get -A --all-types -o json`, through Prometheus' HTTP
#      API; joins; the recording rules' values for the fake DCGM series;
#      every ```promql block of docs/metrics.md; 1,000 workloads created and
#      deleted (no series of them left); the API server stopped and started
#      again on the same state (readiness, staleness, recovery);
#   6. stops everything it started, whatever happened (the logs' tails are
#      printed on failure; they stay in target/metrics/).
#
# Needs Go >= 1.26 for kapi's first build (as the live stage), and
# Prometheus 2 (prometheus and promtool on PATH: Debian's `prometheus`
# package, which scripts/test.sh installs for this stage when it is root).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# The test imports testing/live/seed.py and fake_dcgm.py: no __pycache__
# left in the source tree.
export PYTHONDONTWRITEBYTECODE=1
work="$root/target/metrics"
kapi_dir="$work/kapi"
seed_venv="$root/target/live/venv"
T0=$(date +%s)
step() { printf '   [metrics %ss] %s\n' "$(($(date +%s) - T0))" "$*"; }

for tool in prometheus promtool; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: the metrics stage needs $tool on PATH (Debian: apt-get install prometheus;" >&2
    echo "       bash scripts/test.sh metrics installs it when run as root)." >&2
    exit 1
  fi
done
if ! command -v go >/dev/null 2>&1 && ! bash testing/kube-apiserver/build.sh --cached >/dev/null; then
  echo "error: the metrics stage needs Go >= 1.26 to build its test API server (testing/kube-apiserver)," >&2
  echo "       and the go command is not on PATH. Go is not installed by this script." >&2
  exit 1
fi

mkdir -p "$work"
pids=()
logs=()
cleanup() {
  rc=$?
  if [ "$rc" != 0 ]; then
    for log in "${logs[@]}" "$kapi_dir/kapi.log"; do
      [ -f "$log" ] || continue
      echo "--- last lines of $log (the metrics stage failed)" >&2
      # Without the API server's complaints about lens.test's Flaky (the
      # scenario's deliberately broken conversion webhook), ten a second.
      grep -v 'lens\.test' "$log" | tail -n 30 >&2
    done
    echo "---" >&2
  fi
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  bash testing/kube-apiserver/stop.sh "$kapi_dir" || true
  exit "$rc"
}
trap cleanup EXIT

step "promtool check rules deploy/prometheus/rules.yaml; promtool test rules testing/metrics/rules_test.yaml"
promtool check rules deploy/prometheus/rules.yaml
promtool test rules testing/metrics/rules_test.yaml

step "building the CLI (cargo build -p workload-lens-cli)"
cargo build --locked -q -p workload-lens-cli
cli="$root/target/debug/workload-lens"

step "kube-apiserver: testing/kube-apiserver/start.sh $kapi_dir"
kubeconfig=$(bash testing/kube-apiserver/start.sh "$kapi_dir")
step "ready: $(cat "$kapi_dir/server")"

if ! "$seed_venv/bin/python" -c "import kubernetes, yaml" 2>/dev/null; then
  step "creating $seed_venv with the kubernetes client (pip install kubernetes pyyaml), for testing/live/seed.py"
  rm -rf "$seed_venv"
  "${PYTHON:-python3}" -m venv "$seed_venv"
  "$seed_venv/bin/python" -m pip --disable-pip-version-check -q install kubernetes pyyaml
fi
py="$seed_venv/bin/python"
step "seeding the scenario (testing/live/seed.py)"
"$py" testing/live/seed.py "$kubeconfig" --out "$kapi_dir/scenario.json"

# Three free loopback ports (asked of the kernel together, so they differ).
read -r exporter_port dcgm_port prom_port < <("$py" -c '
import socket
socks = [socket.socket() for _ in range(3)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
')

# The API server's own watches, before the exporter's (the test counts
# the exporter's: one per resource).
"$py" testing/metrics/test_metrics.py --save-watch-baseline "$kapi_dir" >"$work/watches-before.json"

step "workload-lens serve on 127.0.0.1:$exporter_port (log: $work/serve.log)"
"$cli" serve --listen "127.0.0.1:$exporter_port" --stale-after 3 --debounce-ms 100 \
  --kubeconfig "$kubeconfig" </dev/null >"$work/serve.log" 2>&1 &
pids+=($!)
logs+=("$work/serve.log")

step "fake dcgm-exporter on 127.0.0.1:$dcgm_port (testing/metrics/fake_dcgm.py)"
"$py" testing/metrics/fake_dcgm.py "$dcgm_port" </dev/null >"$work/fake_dcgm.log" 2>&1 &
pids+=($!)
logs+=("$work/fake_dcgm.log")

prom="$work/prometheus"
rm -rf "$prom"
mkdir -p "$prom"
cat >"$prom/prometheus.yml" <<EOF
# Written by scripts/metrics.sh.
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
rule_files:
  - $root/deploy/prometheus/rules.yaml
scrape_configs:
  # honor_labels, as deploy/prometheus/rules.yaml asks (the exporters'
  # namespace and pod labels are the workloads' and the GPUs').
  - job_name: workload-lens
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$exporter_port']
  - job_name: dcgm
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$dcgm_port']
EOF
step "Prometheus $(prometheus --version 2>&1 | head -n1 | awk '{print $3}') on 127.0.0.1:$prom_port (log: $prom/prometheus.log)"
prometheus --config.file="$prom/prometheus.yml" --storage.tsdb.path="$prom/data" \
  --web.listen-address="127.0.0.1:$prom_port" --storage.tsdb.retention.time=1h \
  </dev/null >"$prom/prometheus.log" 2>&1 &
pids+=($!)
logs+=("$prom/prometheus.log")

step "testing/metrics/test_metrics.py"
"$py" testing/metrics/test_metrics.py \
  --cli "$cli" --kubeconfig "$kubeconfig" --kapi-dir "$kapi_dir" \
  --exporter "http://127.0.0.1:$exporter_port" --dcgm "http://127.0.0.1:$dcgm_port" \
  --prometheus "http://127.0.0.1:$prom_port" --docs "$root/docs/metrics.md" \
  --watch-baseline "$work/watches-before.json"
step "done"
