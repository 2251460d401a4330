#!/usr/bin/env bash
# start.sh DIR: builds kapi (build.sh) and starts it in the background on a
# fresh DIR (removed first). Waits for DIR/ready (at most 120 s; then prints
# the log and fails). Writes the pid to DIR/pid, the log to DIR/kapi.log, and
# prints the admin kubeconfig's path (DIR/kubeconfig). stop.sh DIR stops it.
# start.sh --keep DIR (what restart.sh DIR runs): starts again on the DIR of
# an earlier start, stopped since: nothing is removed, kapi -keep reuses its
# etcd data, certificates, tokens and port (the log is appended to).
# start.sh [--keep] DIR -- FLAGS...: FLAGS go to kapi (e.g. `-port N`: with
# --keep, the same state on another port, which the earlier run's clients
# do not reach).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
keep=""
if [ "${1:-}" = --keep ]; then
  keep=1
  shift
fi
if [ $# -lt 1 ] || [ -z "$1" ] || { [ $# -gt 1 ] && [ "$2" != -- ]; }; then
  echo "usage: $0 [--keep] DIR [-- KAPI_FLAGS...]" >&2
  exit 2
fi
extra=("${@:3}")
case "$1" in
  / | /root | /home | "$HOME" | . | ..) echo "error: refusing to use '$1' as kapi's state dir (it is removed first)" >&2; exit 2 ;;
esac
kapi=$(bash "$here/build.sh")
if [ -n "$keep" ]; then
  if [ ! -f "$1/kubeconfig" ] || [ ! -d "$1/etcd" ]; then
    echo "error: $1 holds no earlier kapi state (start.sh $1 first)" >&2
    exit 2
  fi
  if [ -f "$1/pid" ] && kill -0 "$(cat "$1/pid")" 2>/dev/null; then
    echo "error: a kapi (pid $(cat "$1/pid")) still runs on $1 (stop.sh $1 first)" >&2
    exit 2
  fi
  dir=$(cd "$1" && pwd)
  rm -f "$dir/ready" # a killed kapi's; the wait below must see the new one's
  echo "--- kapi started again with -keep ${extra[*]} at $(date -u +%FT%TZ)" >>"$dir/kapi.log"
  "$kapi" -dir "$dir" -keep "${extra[@]}" </dev/null >>"$dir/kapi.log" 2>&1 &
else
  rm -rf "$1"
  mkdir -p "$1"
  dir=$(cd "$1" && pwd)
  "$kapi" -dir "$dir" "${extra[@]}" </dev/null >"$dir/kapi.log" 2>&1 &
fi
pid=$!
echo "$pid" >"$dir/pid"

deadline=$((SECONDS + 120))
until [ -f "$dir/ready" ]; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "error: kapi exited before it was ready; $dir/kapi.log:" >&2
    tail -n 60 "$dir/kapi.log" >&2
    exit 1
  fi
  if [ $SECONDS -ge $deadline ]; then
    echo "error: kapi not ready after 120 s; $dir/kapi.log:" >&2
    tail -n 60 "$dir/kapi.log" >&2
    kill -TERM "$pid" 2>/dev/null || true
    exit 1
  fi
  sleep 0.2
done
echo "$dir/kubeconfig"
