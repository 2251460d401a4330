#!/usr/bin/env bash
# Builds the seed corpora in fuzz/corpus/<target>/ (git-ignored) from files
# already in the repository, so that nothing is committed twice:
#   definition          every catalog definition and fuzz/seeds/definition/*
#   jq                  every `evaluate` case of conformance/suite.json as
#                       EXPRESSION \0 INPUT, and every catalog expression on
#                       its fixtures
#   resolve_text        every catalog fixture object, prefixed with the byte
#                       that picks its definition (and 0x80: lookup by kind)
#   resolve_structured  fuzz/seeds/resolve_structured/* (arbitrary bytes)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec python3 - "$here" <<'PY'
import json, os, pathlib, sys, hashlib
fuzz = pathlib.Path(sys.argv[1]); root = fuzz.parent
corpus = fuzz / "corpus"
def put(target, data):
    d = corpus / target; d.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str): data = data.encode()
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)
defs = sorted(p for p in (root / "definitions").glob("*.yaml"))
for p in defs:
    put("definition", p.read_bytes())
for t in ["definition", "jq", "resolve_text", "resolve_structured"]:
    for p in sorted((fuzz / "seeds" / t).glob("*")) if (fuzz / "seeds" / t).is_dir() else []:
        put(t, p.read_bytes())
suite = json.loads((root / "conformance" / "suite.json").read_text())
def generated(v):  # a case that writes big inputs with generators (conformance/README.md)
    if isinstance(v, dict):
        return (len(v) == 1 and next(iter(v)) in ("$generate", "$repeat", "$concat")) or any(generated(x) for x in v.values())
    return isinstance(v, list) and any(generated(x) for x in v)
for g in suite["groups"]:
    for c in g["cases"]:
        if generated(c):
            continue  # big once expanded: not a seed
        if c["op"] == "evaluate":
            put("jq", c["expression"] + "\0" + json.dumps(c.get("input")))
        elif c.get("objectText") is not None and len(c["objectText"]) < 4096:
            put("resolve_text", b"\x80" + c["objectText"].encode())
try:
    import yaml
except ImportError:
    yaml = None
    print("PyYAML missing: catalog expressions and fixtures not seeded", file=sys.stderr)
if yaml:
    def exprs(v, key=""):
        if isinstance(v, dict):
            for k, x in v.items(): yield from exprs(x, k)
        elif isinstance(v, list):
            for x in v: yield from exprs(x, key)
        elif isinstance(v, str) and (key.endswith("Path") or key in ("expression", "idPath")):
            yield v
    for i, p in enumerate(defs):
        d = yaml.safe_load(p.read_text())
        fx = root / "definitions" / "fixtures" / p.stem
        objs = []
        for f in sorted(fx.glob("*.yaml")) if fx.is_dir() else []:
            if f.name == "expect.yaml" or f.name.endswith(".pods.yaml"):
                continue
            text = f.read_bytes()
            put("resolve_text", bytes([i]) + text)
            put("resolve_text", b"\x80" + text)
            try: objs.append(yaml.safe_load(text))
            except Exception: pass
        for e in sorted(set(exprs(d))):
            for o in objs[:2] or [None]:
                put("jq", e + "\0" + json.dumps(o, default=str))
for t in sorted(os.listdir(corpus)):
    print(f"corpus/{t}: {len(os.listdir(corpus / t))} seeds")
PY
