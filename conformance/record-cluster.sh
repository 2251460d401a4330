#!/usr/bin/env bash
# Records the API server answers of the cluster protocol's conformance cases
# (conformance/cases/cluster.yaml) from a real kube-apiserver seeded with the
# live scenario (testing/live/): every request the CLI makes for the commands
# below, and the server's reply, into conformance/servers/kapi.json (and kapi-viewer.json: what a
# restricted user is answered differently). Then
# regenerate suite.json (cargo run -p workload-lens-conformance -- suite-json)
# and check the cases' expectations (cargo run -p workload-lens-conformance --
# actual NAME prints what the engine now gives).
#
#   bash conformance/record-cluster.sh
#
# Needs what the live stage needs (Go for the first server build; a venv
# with the kubernetes client, made here as scripts/live.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dir="$root/target/record-cluster"
venv="$root/target/live/venv"
rm -rf "$dir"
mkdir -p "$dir"
trap 'bash testing/kube-apiserver/stop.sh "$dir" || true' EXIT
kc=$(bash testing/kube-apiserver/start.sh "$dir")
if ! "$venv/bin/python" -c "import kubernetes, yaml" 2>/dev/null; then
  rm -rf "$venv"
  "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/pip" install -q kubernetes pyyaml
fi
"$venv/bin/python" testing/live/seed.py "$kc" --out "$dir/scenario.json" >/dev/null
cargo build -q --locked -p workload-lens-cli
wl="$root/target/debug/workload-lens"
run() { # RECORDING KUBECONFIG ARGS...: one command, recorded; its exit code does not matter
  local rec=$1 k=$2
  shift 2
  WORKLOAD_LENS_RECORD="$dir/$rec.jsonl" "$wl" "$@" --kubeconfig "$k" >/dev/null 2>&1 || true
}
# The admin's view (server kapi), then a restricted user's (kapi-viewer:
# only the answers that differ from the admin's).
viewer="$dir/kubeconfig-viewer"
run admin "$kc" get jobsets -n lens-train --chunk-size 1
run admin "$kc" get -n lens-train
run admin "$kc" get -n lens-serve
run admin "$kc" get jobset/nope -n lens-train
run admin "$kc" describe jobset/llama -n lens-train
run admin "$kc" describe lws/vllm -n lens-serve
run admin "$kc" get -n lens-account
run admin "$kc" describe raycluster/ray-tune -n lens-account
run admin "$kc" get -n lens-scale
run admin "$kc" get RayCluster.v1alpha1.ray.io -n lens-scale
run admin "$kc" describe deployment/web -n lens-serve
run viewer "$viewer" get -n lens-train
run viewer "$viewer" get pytorchjobs -n lens-train
run viewer "$viewer" get -n lens-account
run viewer "$viewer" describe jobset/llama -n lens-train
"$venv/bin/python" - "$dir" "$root/conformance/servers" <<'PY'
import json, os, sys

# Fields of discovery documents no rule reads: left out of the recording.
UNREAD = ("verbs", "storageVersionHash", "categories", "singularName_", "group_", "version_")

def strip(v):
    """Drop what no rule reads and every recording changes: managedFields."""
    if isinstance(v, dict):
        meta = v.get("metadata")
        if isinstance(meta, dict):
            meta.pop("managedFields", None)
        for x in v.values():
            strip(x)
    elif isinstance(v, list):
        for x in v:
            strip(x)
    return v

def discovery(body):
    for r in body.get("resources") or []:
        for k in UNREAD:
            r.pop(k, None)
    return body

def load(name):
    server = {}
    for line in open(os.path.join(sys.argv[1], name + ".jsonl"), encoding="utf-8"):
        r = json.loads(line)
        reply = r["reply"]
        if "body" in reply:
            try:
                body = strip(json.loads(reply["body"]))
                if body.get("kind") == "APIResourceList":
                    body = discovery(body)
                reply = {"status": reply["status"], "body": body}
            except ValueError:
                reply = {"status": reply["status"], "bodyText": reply["body"]}
        server[r["path"]] = reply
    return server

admin = load("admin")
viewer = {p: r for p, r in load("viewer").items() if admin.get(p) != r}
for name, server in (("kapi", admin), ("kapi-viewer", viewer)):
    out = os.path.join(sys.argv[2], name + ".json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(server, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
    print(f"record-cluster: {len(server)} requests recorded into {out}")
PY
