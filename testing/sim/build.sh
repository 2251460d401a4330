#!/usr/bin/env bash
# build.sh [--cached]: builds what the simulated cluster runs, into a cache
# outside the clone (Go's own module and build caches stay where Go keeps them):
#   kapi, kcm, ksched  testing/kube-apiserver/build.sh
#                      -> <cache>/kube-apiserver/<key>/{kapi,kcm,ksched}
#   kwok               sigs.k8s.io/kwok/cmd/kwok v0.8.0 from the module testing/sim/kwok
#                      -> <cache>/kwok/<key>/kwok (key: sha256 of kwok/go.mod and go.sum)
# <cache> is ${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}.
# Prints two lines on stdout, the directory of kapi/kcm/ksched and kwok's path:
#   KUBE=<dir>
#   KWOK=<path>
# and, on stderr, what it builds and how long each build took.
# --cached: builds nothing; exit 1 (nothing printed) if anything is missing.
# --kwok: kwok only (leaves kapi, kcm, ksched alone; prints only KWOK=), for
# scripts/test.sh, which builds those in a job of their own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cached= kwok_only=
for a in "$@"; do
  case "$a" in
    --cached) cached=1 ;;
    --kwok) kwok_only=1 ;;
    *) echo "usage: $0 [--cached] [--kwok]" >&2; exit 2 ;;
  esac
done

t0=$(date +%s)
if [ -n "$kwok_only" ]; then
  :
elif [ -n "$cached" ]; then
  kapi=$(bash "$here/../kube-apiserver/build.sh" --cached) || exit 1
else
  echo "sim: kapi, kcm, ksched (testing/kube-apiserver/build.sh)" >&2
  kapi=$(bash "$here/../kube-apiserver/build.sh")
  echo "sim: kapi, kcm, ksched ready in $(($(date +%s) - t0)) s" >&2
fi

cache="${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}/kwok"
key=$(cat "$here/kwok/go.mod" "$here/kwok/go.sum" | sha256sum | cut -c1-16)
kwok="$cache/$key/kwok"
if [ ! -x "$kwok" ]; then
  [ -n "$cached" ] && exit 1
  echo "sim: building kwok v0.8.0 (testing/sim/kwok, key $key) into $kwok" >&2
  echo "     (about 60 MB of modules into $(go env GOMODCACHE) once; ~1 min cold, ~15 s warm)" >&2
  t1=$(date +%s)
  mkdir -p "$cache/$key"
  tmp=$(mktemp "$cache/$key/.kwok.XXXXXX")
  trap 'rm -f "$tmp"' EXIT
  (cd "$here/kwok" && GOTOOLCHAIN=local nice go build -buildvcs=false -o "$tmp" sigs.k8s.io/kwok/cmd/kwok) >&2
  chmod 755 "$tmp"
  mv -f "$tmp" "$kwok"
  echo "sim: kwok built in $(($(date +%s) - t1)) s" >&2
fi
[ -n "$cached" ] || echo "sim: build done in $(($(date +%s) - t0)) s" >&2
[ -n "$kwok_only" ] || echo "KUBE=$(dirname "$kapi")"
echo "KWOK=$kwok"
