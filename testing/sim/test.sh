#!/usr/bin/env bash
# test.sh [DIR]: the simulated cluster's own test (test_sim.py): builds if
# needed, starts the sim in DIR (default target/sim/test; 2 nodes x 8 GPUs),
# checks the real controllers, the scheduler and every kwok outcome, stops it.
# test.sh --kubeconfig FILE: the same checks against a sim that already runs
# (scripts/sim.sh's), in namespace simtest, deleted before and after.
# Prints a timing per step and check. Needs Go >= 1.26 (first build) and
# Python 3 (the venv target/live/venv is created when missing, as
# scripts/live.sh does).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
kubeconfig= dir=$root/target/sim/test
case "${1:-}" in
  --kubeconfig)
    [ $# -eq 2 ] && [ -f "$2" ] || { echo "usage: $0 [DIR | --kubeconfig FILE] (FILE must exist)" >&2; exit 2; }
    kubeconfig=$2 ;;
  -*) echo "usage: $0 [DIR | --kubeconfig FILE]" >&2; exit 2 ;;
  "") ;;
  *) dir=$1 ;;
esac
T0=$(date +%s)

py="$root/target/live/venv/bin/python"
if ! "$py" -c "import kubernetes, yaml" 2>/dev/null; then
  echo "sim test: creating $root/target/live/venv with the kubernetes client (pip install kubernetes pyyaml)"
  rm -rf "$root/target/live/venv"
  "${PYTHON:-python3}" -m venv "$root/target/live/venv"
  "$py" -m pip --disable-pip-version-check -q install kubernetes pyyaml
fi
if [ -n "$kubeconfig" ]; then
  rc=0
  "$py" "$here/test_sim.py" --kubeconfig "$kubeconfig" 2>&1 || rc=$?
  echo "sim test: $([ $rc -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - T0)) s (running sim of $kubeconfig)"
  exit $rc
fi
if ! bash "$here/build.sh" --cached >/dev/null; then
  echo "sim test: building kapi, kcm, ksched, kwok first (testing/sim/build.sh)"
  bash "$here/build.sh" >/dev/null
fi
# test_sim.py stops the sim itself; this is for a killed Python.
trap 'bash "$here/stop.sh" "$dir" >/dev/null 2>&1 || true' EXIT
rc=0
"$py" "$here/test_sim.py" "$dir" 2>&1 || rc=$?
echo "sim test: $([ $rc -eq 0 ] && echo passed || echo FAILED) in $(($(date +%s) - T0)) s"
exit $rc
