#!/usr/bin/env bash
# stop.sh DIR: stops the kapi that start.sh DIR started (SIGTERM, then waits
# up to 20 s; SIGKILL after that, which is reported and fails). Nothing to
# stop is not an error.
set -euo pipefail
if [ $# -ne 1 ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
pidfile="$1/pid"
[ -f "$pidfile" ] || exit 0
pid=$(cat "$pidfile")
# Only the process start.sh started: a kapi whose -dir is this DIR.
if ! kill -0 "$pid" 2>/dev/null || ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "-dir "; then
  rm -f "$pidfile"
  exit 0
fi
kill -TERM "$pid"
for _ in $(seq 1 100); do
  kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; exit 0; }
  sleep 0.2
done
echo "error: kapi (pid $pid) still running 20 s after SIGTERM; sending SIGKILL" >&2
kill -KILL "$pid" 2>/dev/null || true
rm -f "$pidfile"
exit 1
