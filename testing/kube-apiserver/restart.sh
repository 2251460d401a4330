#!/usr/bin/env bash
# restart.sh DIR: starts kapi again on the state dir of an earlier start.sh
# DIR, keeping what it holds: etcd's data (every object), the certificates,
# the tokens, the kubeconfigs and the port, so that a client of the earlier
# server (a watch, a kubeconfig) reconnects to it as to the same cluster
# after a restart. A kapi still running on DIR is stopped first (stop.sh).
# Waits for DIR/ready as start.sh does and prints DIR/kubeconfig.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
bash "$here/stop.sh" "$1"
exec bash "$here/start.sh" --keep "$1"
