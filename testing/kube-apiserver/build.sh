#!/usr/bin/env bash
# Builds kapi (main.go: kube-apiserver + embedded etcd) and its siblings kcm
# (cmd/kcm: kube-controller-manager) and ksched (cmd/ksched: kube-scheduler),
# all v1.37.2, into one directory of a cache outside the clone, and prints
# kapi's path, the only line on stdout:
#   ${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}/kube-apiserver/<key>/kapi
# kcm and ksched are beside it: "$(dirname "$(bash build.sh)")"/{kcm,ksched}.
# <key> is the first 16 hex digits of the sha256 of go.mod, go.sum, main.go
# and cmd/*/main.go, so an edit to any of them builds new binaries and an
# unchanged tree answers at once. --cached: print the path only if all three
# are built (exit 1, nothing printed, if not). Needs Go >= 1.26 and the Go
# module proxy (no other network).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache="${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}/kube-apiserver"
key=$(cd "$here" && cat go.mod go.sum main.go cmd/kcm/main.go cmd/ksched/main.go | sha256sum | cut -c1-16)
out="$cache/$key/kapi"
bins=(kapi kcm ksched)
built() { for b in "${bins[@]}"; do [ -x "$cache/$key/$b" ] || return 1; done; }
if built; then
  echo "$out"
  exit 0
fi
# --cached: only say whether it is built (exit 1, nothing printed, if not).
[ "${1:-}" = --cached ] && exit 1

if ! command -v go >/dev/null 2>&1; then
  echo "error: testing/kube-apiserver/build.sh needs Go >= 1.26 (the go command is not on PATH)." >&2
  echo "       It builds the test API server (k8s.io/kubernetes v1.37.2 needs Go 1.26)." >&2
  exit 1
fi
gov=$(go env GOVERSION 2>/dev/null || true) # e.g. go1.26.8
IFS=. read -r major minor _ <<<"${gov#go}"
major=${major//[^0-9]/} minor=${minor//[^0-9]/}
if [ "${major:-0}" -lt 1 ] || { [ "${major:-0}" -eq 1 ] && [ "${minor:-0}" -lt 26 ]; }; then
  echo "error: testing/kube-apiserver/build.sh needs Go >= 1.26; found '${gov:-unknown}' ($(command -v go))." >&2
  exit 1
fi

{
  echo "kapi: building the test Kubernetes API server (testing/kube-apiserver, no binaries for key $key yet)"
  echo "      into $cache/$key/{kapi,kcm,ksched}"
  echo "      why: the live tests run against a real kube-apiserver v1.37.2 with an embedded etcd;"
  echo "           the simulated cluster (testing/sim) adds its controller-manager and scheduler"
  echo "      what: go downloads about 700 MB of modules (once, into $(go env GOMODCACHE)) and compiles"
  echo "            k8s.io/kubernetes; a cold build takes 6-12 min on 2 cores and ~3 GB of memory;"
  echo "            kcm and ksched add 1-2 min; later builds reuse Go's build cache"
  echo "            ($(go env GOCACHE)) and take seconds"
} >&2

mkdir -p "$cache/$key"
tmp=$(mktemp "$cache/$key/.build.XXXXXX")
trap 'rm -f "$tmp"' EXIT
ldflags="-X k8s.io/component-base/version.gitVersion=v1.37.2"
ldflags+=" -X k8s.io/component-base/version.gitMajor=1"
ldflags+=" -X k8s.io/component-base/version.gitMinor=37"
for b in "${bins[@]}"; do
  [ -x "$cache/$key/$b" ] && continue
  case $b in kapi) pkg=. ;; *) pkg=./cmd/$b ;; esac
  start=$(date +%s)
  # GOTOOLCHAIN=local: the version check above is the rule, no toolchain download.
  (cd "$here" && GOTOOLCHAIN=local nice go build -buildvcs=false -ldflags "$ldflags" -o "$tmp" "$pkg") >&2
  chmod 755 "$tmp"
  mv -f "$tmp" "$cache/$key/$b"
  echo "$b: built in $(($(date +%s) - start)) s" >&2
done
echo "$out"
