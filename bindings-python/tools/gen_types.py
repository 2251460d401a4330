"""Generates the package's typing files from what the Rust side declares:

- workload_lens/_engine_types.py: the TypedDicts of the engine's results,
  from the JSON Schemas the engine derives from its Rust types (the same
  schemas bindings-node/types/engine.d.ts is generated from, printed by
  ``target/debug/examples/schemas`` under ``$CARGO_TARGET_DIR`` or
  ``target/``, built by scripts/debug-build.sh);
- workload_lens/_native.pyi: the stub of the native module, from the
  operation table (``target/debug/examples/operations``) plus the few functions written by hand in
  bindings-python/src/lib.rs (NATIVE_EXTRA below).

    python3 bindings-python/tools/gen_types.py          # rewrite the files
    python3 bindings-python/tools/gen_types.py --check  # exit 1 if stale

tests/test_types.py runs the check. Python 3.9 compatible output: optional
keys go in a ``total=False`` subclass of the required ones.
"""

from __future__ import annotations

import json
import keyword
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

REPO = Path(__file__).resolve().parents[2]
OUTPUT = REPO / "bindings-python" / "python" / "workload_lens" / "_engine_types.py"
STUB = REPO / "bindings-python" / "python" / "workload_lens" / "_native.pyi"

# The engine's `Error` type is `EngineError` here, as in TypeScript.
RENAME = {"Error": "EngineError"}


def example(name: str) -> Any:
    """What an example of the binding crate prints, as JSON: built as the
    workspace's tests build it (scripts/debug-build.sh, a no-op after the
    rust stage; `cargo run -p workload-lens-binding` would compile the
    engine again for another feature set), then run."""
    subprocess.run(["bash", "scripts/debug-build.sh"], cwd=REPO, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    out = subprocess.run(
        [str(target / "debug" / "examples" / name)], cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)


def engine_schemas() -> Dict[str, Any]:
    return example("schemas")  # type: ignore[no-any-return]


class Gen:
    def __init__(self) -> None:
        self.defs: Dict[str, Any] = {}
        self.out: Dict[str, str] = {}
        # Aliases are evaluated when the module loads (class annotations are
        # not): they come last, each after the aliases it names.
        self.aliases: Dict[str, Any] = {}

    def add_def(self, name: str, schema: Any) -> None:
        name = RENAME.get(name, name)
        self.defs.setdefault(name, schema)

    def ref(self, ref: str) -> str:
        name = ref.rsplit("/", 1)[-1]
        return RENAME.get(name, name)

    def type_of(self, s: Any, hint: str) -> str:
        """A Python type expression for a schema (names quoted)."""
        if s is True or s == {} or not isinstance(s, dict):
            return "Any"
        s = {k: v for k, v in s.items() if k not in ("description", "title", "default")}
        if "$ref" in s:
            name = self.ref(s["$ref"])
            target = self.defs.get(name)
            if isinstance(target, dict) and self.is_literal(target):
                # Written where it is used: stubtest takes an alias of a
                # Literal for a function at runtime.
                return self.type_of(target, name)
            return name
        if "const" in s:
            return f"Literal[{json.dumps(s['const'])}]"
        if "enum" in s:
            return "Literal[" + ", ".join(json.dumps(v) for v in s["enum"]) + "]"
        for key in ("oneOf", "anyOf"):
            if key in s:
                alts = [self.type_of(a, f"{hint}{i + 1}") for i, a in enumerate(s[key])]
                return union(alts)
        t = s.get("type")
        if isinstance(t, list):
            return union([self.type_of({**s, "type": x}, hint) for x in t])
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "null":
            return "None"
        if t == "array":
            return f"List[{self.type_of(s.get('items', {}), hint + 'Item')}]"
        if t == "object":
            if "properties" in s:
                self.typed_dict(hint, s)
                return hint
            extra = s.get("additionalProperties")
            if isinstance(extra, dict):
                return f"Dict[str, {self.type_of(extra, hint + 'Value')}]"
            return "Dict[str, Any]"
        return "Any"

    def typed_dict(self, name: str, s: Dict[str, Any]) -> None:
        if name in self.out:
            return
        self.out[name] = ""  # recursion guard
        props: Dict[str, Any] = s.get("properties", {})
        required = set(s.get("required", []))
        fields = {k: self.type_of(v, name + k[:1].upper() + k[1:]) for k, v in props.items()}
        doc = (s.get("description") or "").strip()
        if any(not k.isidentifier() or keyword.iskeyword(k) for k in props):
            body = ", ".join(f"{json.dumps(k)}: {v}" for k, v in fields.items())
            self.out[name] = f"{name} = TypedDict({json.dumps(name)}, {{{body}}}, total=False)\n"
            return
        req = [k for k in props if k in required]
        opt = [k for k in props if k not in required]
        lines: List[str] = []
        if req and opt:
            lines.append(f"class _{name}Required(TypedDict):")
            lines += [f"    {k}: {fields[k]}" for k in req]
            lines += ["", "", f"class {name}(_{name}Required, total=False):"]
            lines += docstring(doc)
            lines += [f"    {k}: {fields[k]}" for k in opt]
        else:
            lines.append(f"class {name}(TypedDict{'' if req or not opt else ', total=False'}):")
            lines += docstring(doc)
            lines += [f"    {k}: {fields[k]}" for k in props] or ["    pass"]
        self.out[name] = "\n".join(lines) + "\n"

    def is_literal(self, s: Dict[str, Any]) -> bool:
        return "const" in s or "enum" in s or (
            "oneOf" in s and all(isinstance(a, dict) and "const" in a for a in s["oneOf"]))

    def emit_def(self, name: str) -> None:
        s = self.defs[name]
        if isinstance(s, dict) and self.is_literal(s):
            return
        if isinstance(s, dict) and s.get("type") == "object" and "properties" in s:
            self.typed_dict(name, s)
        else:
            doc = (s.get("description") or "").strip() if isinstance(s, dict) else ""
            comment = "".join(f"#: {line}".rstrip() + "\n" for line in doc.splitlines())
            self.aliases[name] = (f"{comment}{name} = ", self.type_of(s, name))


def union(alts: List[str]) -> str:
    seen: List[str] = []
    for a in alts:
        if a not in seen:
            seen.append(a)
    lits = [a[len("Literal["):-1] for a in seen if a.startswith("Literal[")]
    rest = [a for a in seen if not a.startswith("Literal[")]
    if lits:
        rest.insert(0, f"Literal[{', '.join(lits)}]")
    if len(rest) == 1:
        return rest[0]
    if "None" in rest and len(rest) == 2:
        return f"Optional[{[a for a in rest if a != 'None'][0]}]"
    return f"Union[{', '.join(rest)}]"


def docstring(doc: str) -> List[str]:
    if not doc:
        return []
    doc = doc.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    lines = doc.splitlines()
    if len(lines) == 1:
        return [f'    """{lines[0]}"""', ""]
    return [f'    """{lines[0]}'] + [f"    {l}".rstrip() for l in lines[1:]] + ['    """', ""]


def generate(schemas: Dict[str, Any]) -> str:
    g = Gen()
    for root, schema in schemas.items():
        for n, d in schema.get("$defs", {}).items():
            g.add_def(n, d)
        body = {k: v for k, v in schema.items() if k not in ("$defs", "$schema", "title")}
        g.defs[root] = body
    for name in sorted(g.defs):
        g.emit_def(name)
    head = (
        '"""The engine\'s result types as TypedDicts. Generated from the engine\'s JSON\n'
        "Schemas by bindings-python/tools/gen_types.py (the schemas\n"
        "bindings-node/types/engine.d.ts is generated from): do not edit. Public names\n"
        'are re-exported by workload_lens.types."""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Any, Dict, List, Optional, Union\n\n"
        "from typing import Literal, TypedDict\n\n"
        "__all__ = [\n" + "".join(f'    "{n}",\n' for n in sorted([*g.out, *g.aliases])) + "]\n"
    )
    done: List[str] = []

    def alias(n: str) -> None:
        if n in done:
            return
        done.append(n)
        for other in g.aliases:
            if other != n and re.search(rf"\b{other}\b", g.aliases[n][1]):
                alias(other)
        aliases.append(g.aliases[n][0] + g.aliases[n][1] + "\n")

    aliases: List[str] = []
    for n in sorted(g.aliases):
        alias(n)
    return head + "".join("\n\n" + g.out[n] for n in sorted(g.out)) + "\n\n" + "\n".join(aliases)


# --- the native module's stub ------------------------------------------------

STUB_HEAD = '''"""The native module (Rust, pyo3). Generated by
bindings-python/tools/gen_types.py from the operation table of the
``workload-lens-binding`` crate (``for_each_operation!``), one function per
entry, plus the functions written by hand in bindings-python/src/lib.rs: do
not edit. Internal: use the workload_lens package. An object argument
(``_Obj``) is the caller's own text as ``bytes`` or a Python value, walked
by the engine's host reader; other ``str`` arguments are JSON serialized by
the Python layer. Results of kind ``value`` are Python values, those of kind
``json`` JSON text. Errors are workload_lens exceptions."""

from typing import Any, Dict, Iterable, List, Optional, Tuple, Union, final

__version__: str
'''

ARG = {"text": "_Arg", "opt_text": "Optional[_Arg]", "bytes": "bytes", "expression": "bytes",
       "object": "_Obj", "json_value": "Any", "opt_object": "Optional[_Obj]", "objects": "Union[List[_Obj], Iterated]"}
RESULT = {"json": "str", "value": "Any", "definition": "Definition",
          "opt_definition": "Optional[Definition]", "definitions": "List[Definition]",
          "session": "ClusterSession"}

# Written by hand in bindings-python/src/lib.rs (not operations).
NATIVE_EXTRA = {
    "Catalog": [
        "def __new__(cls, bundled: bool = True, limits: Optional[_Arg] = None) -> Catalog: ...",
        "def add(self, definition: Definition) -> Optional[Definition]: ...",
        "def with_cluster_definitions(self, inputs: Union[List[_Obj], Iterated]) -> Tuple[Catalog, str]: ...",
        "def fleet_tables(self, clusters: List[str], roles: List[str], objects: List[str]) -> Dict[str, Any]: ...",
        "def fleet_tables_arrow(self, clusters: Tuple[List[str], bytes], roles: Tuple[List[str], bytes],"
        " objects: List[Tuple[bytes, bytes]]) -> Dict[str, Any]: ...",
        "def __len__(self) -> int: ...",
    ],
    "SnapshotLines": [
        "def __new__(cls, limits: Optional[_Arg] = None) -> SnapshotLines: ...",
        "def read(self, lines: List[str]) -> Tuple[List[str], List[Optional[str]], List[str]]: ...",
        "def read_block(self, block: bytes) -> Tuple[List[str], List[Optional[str]], bytes, bytes]: ...",
        "def finish(self) -> Tuple[str, str]: ...",
    ],
    "Iterated": [
        "def __new__(cls, iterable: Iterable[_Obj]) -> Iterated: ...",
    ],
    "": [
        "def cli_main(argv: List[_Arg]) -> int: ...",
        "def _panic_for_tests(message: _Arg) -> None: ...",
        "def _result_keys_for_tests() -> Tuple[int, int, int]: ...",
    ],
}


def generate_stub(operations: List[Dict[str, Any]]) -> str:
    def sig(op: Dict[str, Any], method: bool) -> str:
        args = ["self"] if method else []
        for a in op["args"]:
            args.append(f"{a['name']}: {ARG[a['kind']]}" + (" = None" if a["optional"] else ""))
        if op["section"] == "limited":
            args.append("limits: Optional[_Arg] = None")
        return f"def {op['name']}({', '.join(args)}) -> {RESULT[op['result']]}: ..."

    functions = [sig(op, False) for op in operations if op["section"] in ("free", "limited", "factory")]
    names = [op["name"] for op in operations if op["section"] in ("free", "limited", "factory")]
    names += ["cli_main", "_panic_for_tests", "_result_keys_for_tests"]
    out = [STUB_HEAD, "__all__ = [", '    "__version__",', '    "Definition",', '    "Catalog",',
           '    "ClusterSession",', '    "SnapshotLines",', '    "Iterated",']
    out += [f'    "{n}",' for n in names] + ["]", "", "_Arg = Union[str, bytes]", "_Obj = Any", ""]
    for cls, section in (("Definition", "definition"), ("Catalog", "catalog"), ("ClusterSession", "session")):
        out += ["@final", f"class {cls}:"]
        out += ["    " + sig(op, True) for op in operations if op["section"] == section]
        out += ["    " + line for line in NATIVE_EXTRA.get(cls, [])] + [""]
    out += ["@final", "class SnapshotLines:"] + ["    " + line for line in NATIVE_EXTRA["SnapshotLines"]] + [""]
    out += ["@final", "class Iterated:"] + ["    " + line for line in NATIVE_EXTRA["Iterated"]] + [""]
    out += functions + NATIVE_EXTRA[""]
    return "\n".join(out) + "\n"


def main() -> int:
    files = {OUTPUT: generate(engine_schemas()), STUB: generate_stub(example("operations"))}
    if "--check" in sys.argv[1:]:
        stale = [p for p, fresh in files.items() if p.read_text() != fresh]
        for p in stale:
            print(f"{p} is out of date: python3 bindings-python/tools/gen_types.py", file=sys.stderr)
        return 1 if stale else 0
    for p, fresh in files.items():
        p.write_text(fresh)
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
