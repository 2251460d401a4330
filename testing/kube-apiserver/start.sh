#!/usr/bin/env bash
# start.sh DIR: builds kapi (build.sh) and starts it in the background on a
# fresh DIR (removed first). Waits for DIR/ready (at most 120 s; then prints
# the log and fails). Writes the pid to DIR/pid, the log to DIR/kapi.log, and
# prints the admin kubeconfig's path (DIR/kubeconfig). stop.sh DIR stops it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
case "$1" in
  / | /root | /home | "$HOME" | . | ..) echo "error: refusing to use '$1' as kapi's state dir (it is removed first)" >&2; exit 2 ;;
esac
kapi=$(bash "$here/build.sh")
rm -rf "$1"
mkdir -p "$1"
dir=$(cd "$1" && pwd)

"$kapi" -dir "$dir" </dev/null >"$dir/kapi.log" 2>&1 &
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
