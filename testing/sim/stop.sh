#!/usr/bin/env bash
# stop.sh DIR: stops what start.sh DIR started, in this order: the operators
# (operator.sh stop DIR of each one listed in DIR/operators or with a
# DIR/<name>.pid, all at once), kwok, ksched, kcm, then kapi (testing/kube-apiserver/stop.sh).
# SIGTERM, up to 10 s, then SIGKILL. Nothing running is not an error; the exit
# status is 1 only if something had to be killed or an operator failed to stop.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# SIM_OPERATORS_DIR: another place for the operator dirs (tests of these scripts).
opdir=${SIM_OPERATORS_DIR:-$here/operators}
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
[ -d "$1" ] || exit 0
dir=$(cd "$1" && pwd)
rc=0

ops=()
[ -f "$dir/operators" ] && IFS=, read -r -a ops <"$dir/operators"
for d in "$opdir"/*/; do
  [ -f "$dir/$(basename "$d").pid" ] && ops+=("$(basename "$d")")
done
# All at once: each waits for its controller's graceful shutdown (~2-3 s).
declare -A seen=() stopping=()
for op in "${ops[@]}"; do
  [ -n "$op" ] && [ -z "${seen[$op]:-}" ] || continue
  seen[$op]=1
  if [ -f "$opdir/$op/operator.sh" ]; then
    bash "$opdir/$op/operator.sh" stop "$dir" >&2 &
    stopping[$op]=$!
  fi
done
for op in "${!stopping[@]}"; do
  wait "${stopping[$op]}" || { echo "error: operator $op did not stop cleanly" >&2; rc=1; }
done

# kwok, ksched and kcm get SIGTERM at once (each only if DIR/NAME.pid still
# names a process started for DIR: its command line names DIR), then up to
# 10 s to exit, then SIGKILL.
pids=()
for p in kwok ksched kcm; do
  f="$dir/$p.pid"
  [ -f "$f" ] || continue
  pid=$(cat "$f")
  rm -f "$f"
  if kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$dir/"; then
    kill -TERM "$pid" 2>/dev/null && pids+=("$p:$pid")
  fi
done
for _ in $(seq 1 50); do
  left=()
  for pp in "${pids[@]}"; do kill -0 "${pp#*:}" 2>/dev/null && left+=("$pp"); done
  pids=("${left[@]}")
  [ ${#pids[@]} -eq 0 ] && break
  sleep 0.2
done
for pp in "${pids[@]}"; do
  echo "error: ${pp%%:*} (pid ${pp#*:}) still running 10 s after SIGTERM; sending SIGKILL" >&2
  kill -KILL "${pp#*:}" 2>/dev/null || true
  rc=1
done
bash "$here/../kube-apiserver/stop.sh" "$dir" || rc=1
rm -f "$dir/kapi.pid"
exit $rc
