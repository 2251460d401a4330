# shellcheck shell=bash
# shellcheck disable=SC2154 # name, module, here, ready_log, ...: set by the operator.sh
# testing/sim/operators/lib.sh: what every operators/<name>/operator.sh shares.
# Sourced, never run. An operator.sh is its header comment (what runs, its
# webhooks, its patches), then:
#
#   set -euo pipefail
#   name=<the directory's name>
#   module=<the Go module>            # its version is read from ./go.mod
#   ...the variables below that it needs...
#   here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
#   # shellcheck source=testing/sim/operators/lib.sh
#   . "$here/../lib.sh"
#   op_start() { ... }                # required, below
#   operator_main "$@"
#
# and gets the commands
#
#   operator.sh build [--cached]   build into the cache; prints the binary's path
#                                  (--cached: exit 1, silently, if not built yet)
#   operator.sh version            "<module> <version>", from go.mod
#   operator.sh start DIR          op_start, then waits until the controller is ready
#   operator.sh stop DIR           TERM, KILL after 5 s; rc 0 if it does not run
#
# Build (cmd_build). The binary is
#   ${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}/operators/<name>/<key>/<name>-controller
# where <key> is the first 16 hex digits of the sha256 of go.mod, go.sum and
# tools.go, followed by the patch_old and patch_new lines when there are any.
# Changing how the key is made orphans every cached build. One of:
#   main_pkg=PKG        `go build PKG`, from this directory (its go.mod);
#   main_rel=PATH       PATH (a main.go in the module) is copied from the module
#                       cache, patched (patch_old/patch_new) and built as a
#                       file list from this directory;
#   op_build TMP VER    a function that builds TMP/<name>-controller itself
#                       (VER: the module's version; apply_patches helps).
# version_var=SYM       main_pkg/main_rel: -ldflags "-X SYM=<version>".
# patch_old=(...) patch_new=(...)
#                       one-line patches: patch_old[i] (a fixed string, on
#                       exactly one line) becomes patch_new[i].
#
# Start (cmd_start). It checks DIR/kubeconfig, the venv's python and (with
# needs_openssl=1) openssl, refuses a controller already running from DIR,
# builds (or takes the cached binary) and finds the module in the Go module
# cache, then calls op_start. op_start sees cmd_start's locals
#   dir (DIR, absolute), py (the venv's python), bin (the binary),
#   mdir (the module's directory in the module cache: CRDs, configs)
# and must set
#   probe   the loopback port of the controller's health/readiness server
#   pid     the controller's pid: start it last, in the background, with its
#           output in DIR/<name>.log: `launch COMMAND...` does that (nohup).
# Then DIR/<name>.pid and DIR/<name>.probe-port are written and start waits,
# 60 s at most, until http://127.0.0.1:<probe><ready_path> answers (curl -f;
# ready_path defaults to /readyz) and every grep pattern of ready_log=(...) is
# in the log. If the controller exits or is not ready in time, start prints
# the log's tail and fails (stopping it). Then op_after_ready, when defined
# (say, register a webhook), and the line "<name>: pid P ready in N ms ...,
# <probe_label> on 127.0.0.1:<probe>, ..." (probe_label defaults to "probes").
# Helpers for op_start: kube_apply FILE|DIR... (testing/sim/kube.py apply
# with DIR/kubeconfig), free_port "$py", make_cert CERTDIR (a throwaway
# self-signed certificate for 127.0.0.1, CERTDIR/tls.crt and tls.key), launch.
#
# Stop (cmd_stop): op_stop DIR first when defined (say, unregister a webhook,
# best effort), then TERM, KILL after 5 s, if DIR/<name>.pid names a live
# process whose command line has <name>-controller.
#
# Other hooks: op_usage (what an unknown command prints instead of the usage
# line; it still exits 2). Messages go to stderr; errors are
# "operator.sh (<name>): ..." and exit 1.

root=$(cd "$here/../../../.." && pwd)

die() { echo "operator.sh ($name): $*" >&2; exit 1; }

module_version() {
    # `require M vX` on one line, or `M vX` inside a require block
    awk -v m="$module" '($1 == "require" && $2 == m) { print $3; exit } ($1 == m) { print $2; exit }' "$here/go.mod"
}

binary_path() {
    local key cache
    key=$({
        cat "$here/go.mod" "$here/go.sum" "$here/tools.go"
        if [ -n "${patch_old+set}" ]; then printf '%s\n' "${patch_old[@]}" "${patch_new[@]}"; fi
    } | sha256sum | cut -c1-16)
    cache=${WORKLOAD_LENS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/workload-lens}
    echo "$cache/operators/$name/$key/$name-controller"
}

module_dir() {
    # the module's files in the module cache (downloaded if they are not there)
    local dir
    dir=$(cd "$here" && GOTOOLCHAIN=local go mod download -json "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    [ -d "$dir" ] || die "cannot find $module in the Go module cache"
    echo "$dir"
}

apply_patches() { # FILE UPSTREAM: patch_old[i] -> patch_new[i] in FILE, a copy of UPSTREAM
    local i
    for i in "${!patch_old[@]}"; do
        [ "$(grep -cF "${patch_old[$i]}" "$1")" = 1 ] ||
            die "$2 does not contain exactly one line with '${patch_old[$i]}'; update operator.sh"
        OLD="${patch_old[$i]}" NEW="${patch_new[$i]}" awk '{ i = index($0, ENVIRON["OLD"]); if (i) $0 = substr($0, 1, i - 1) ENVIRON["NEW"] substr($0, i + length(ENVIRON["OLD"])); print }' \
            "$1" >"$1.new"
        mv "$1.new" "$1"
    done
}

cmd_build() {
    local bin ver t0 tmp src target flags
    bin=$(binary_path)
    if [ -x "$bin" ]; then echo "$bin"; return 0; fi
    [ "${1:-}" = --cached ] && exit 1
    command -v go >/dev/null || die "go is not installed (Go >= 1.26 and the Go module proxy are needed)"
    ver=$(module_version)
    echo "building $module $ver (one Go module of its own, $here) ..." >&2
    mkdir -p "$(dirname "$bin")"
    tmp=$(mktemp -d "$(dirname "$bin")/.build.XXXXXX")
    # shellcheck disable=SC2064 # $tmp is local: expand it now
    trap "rm -rf '$tmp'" EXIT
    t0=$(date +%s)
    if declare -F op_build >/dev/null; then
        op_build "$tmp" "$ver"
    else
        target=${main_pkg:-}
        if [ -n "${main_rel:-}" ]; then
            src="$(module_dir)/$main_rel"
            cp "$src" "$tmp/main.go"
            apply_patches "$tmp/main.go" "$src"
            # A file list, built from this directory: its imports resolve through
            # this go.mod (go build -overlay refuses files in the module cache).
            target="$tmp/main.go"
        fi
        [ -n "$target" ] || die "operator.sh sets neither main_pkg nor main_rel nor op_build"
        flags=(-buildvcs=false)
        [ -z "${version_var:-}" ] || flags+=(-ldflags "-X $version_var=$ver")
        (cd "$here" && GOTOOLCHAIN=local nice go build "${flags[@]}" -o "$tmp/$name-controller" "$target") >&2 ||
            die "build failed"
    fi
    mv -f "$tmp/$name-controller" "$bin"
    echo "built $bin in $(( $(date +%s) - t0 )) s ($(du -m "$bin" | cut -f1) MB)" >&2
    echo "$bin"
}

python_bin() {
    local py="$root/target/live/venv/bin/python"
    [ -x "$py" ] || die "$py is missing (testing/sim/start.sh creates the venv with kubernetes and yaml)"
    echo "$py"
}

free_port() { # PY
    "$1" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pid_alive() { # pid alive and still our controller
    local pid=$1
    kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$name-controller"
}

# --- helpers for op_start (they use cmd_start's dir, py, pid) ---

kube_apply() { # FILE|DIR...: apply to the cluster of DIR/kubeconfig
    "$py" "$root/testing/sim/kube.py" apply "$dir/kubeconfig" "$@"
}

make_cert() { # CERTDIR: a throwaway self-signed certificate for 127.0.0.1
    mkdir -p "$1"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 7 \
        -subj "/CN=$name-webhook" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$1/tls.key" -out "$1/tls.crt" 2>/dev/null \
        || die "openssl could not make a certificate"
}

launch() { # COMMAND...: the controller, in the background, output in DIR/<name>.log; sets pid
    nohup "$@" >"$dir/$name.log" 2>&1 </dev/null &
    pid=$!
}

wait_ready() {
    local deadline=$(( $(date +%s) + 60 )) url="http://127.0.0.1:$probe${ready_path:-/readyz}" ready pattern
    while :; do
        if ! kill -0 "$pid" 2>/dev/null; then
            tail -n 30 "$dir/$name.log" >&2
            die "the controller exited (log: $dir/$name.log)"
        fi
        ready=
        if curl -fsS -o /dev/null "$url" 2>/dev/null; then
            ready=1
            for pattern in "${ready_log[@]}"; do
                grep -q "$pattern" "$dir/$name.log" || { ready=; break; }
            done
        fi
        [ -z "$ready" ] || break
        if [ "$(date +%s)" -ge "$deadline" ]; then
            tail -n 30 "$dir/$name.log" >&2
            cmd_stop "$dir" || true
            die "not ready after 60 s (log: $dir/$name.log)"
        fi
        sleep 0.2
    done
}

cmd_start() {
    local dir=${1:-} py bin mdir probe='' t0 pid=
    [ -n "$dir" ] || die "usage: operator.sh start DIR"
    dir=$(cd "$dir" && pwd)
    [ -f "$dir/kubeconfig" ] || die "$dir/kubeconfig does not exist"
    py=$(python_bin)
    if [ -n "${needs_openssl:-}" ]; then
        command -v openssl >/dev/null || die "openssl is needed (self-signed certificate for the webhook server)"
    fi
    if [ -f "$dir/$name.pid" ] && pid_alive "$(cat "$dir/$name.pid")"; then
        die "already running (pid $(cat "$dir/$name.pid"))"
    fi
    bin=$(cmd_build)
    # shellcheck disable=SC2034 # for op_start
    mdir=$(module_dir)
    t0=$(date +%s%N)

    op_start
    if [ -z "$pid" ] || [ -z "$probe" ]; then die "op_start must set pid and probe"; fi
    echo "$pid" >"$dir/$name.pid"
    echo "$probe" >"$dir/$name.probe-port"
    wait_ready
    if declare -F op_after_ready >/dev/null; then op_after_ready; fi
    echo "$name: pid $pid ready in $(( ($(date +%s%N) - t0) / 1000000 )) ms (CRDs + start), ${probe_label:-probes} on 127.0.0.1:$probe, log $dir/$name.log" >&2
}

cmd_stop() {
    local dir=${1:-} pid
    [ -n "$dir" ] || die "usage: operator.sh stop DIR"
    [ -f "$dir/$name.pid" ] || return 0
    if declare -F op_stop >/dev/null; then op_stop "$dir"; fi
    pid=$(cat "$dir/$name.pid")
    if pid_alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then
            echo "$name: pid $pid still running after 5 s, SIGKILL" >&2
            kill -KILL "$pid" 2>/dev/null || true
        fi
    fi
    rm -f "$dir/$name.pid"
}

operator_main() {
    case "${1:-}" in
    build) shift; cmd_build "$@" ;;
    version) echo "$module $(module_version)" ;;
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    *)
        if declare -F op_usage >/dev/null; then op_usage
        else echo "usage: operator.sh build [--cached] | version | start DIR | stop DIR" >&2; fi
        exit 2 ;;
    esac
}
