#!/usr/bin/env python3
"""Writes conformance/cases/hostile.yaml, the hostile-input corpus that every
runtime's conformance runner runs (Rust, Python, Node, WASM in Node and in
Chromium), with the same expected error code everywhere.

The corpus uses default limits unless a case says why not. Most inputs are
small as text and hostile when evaluated; the few that must be big as text
(100k-level nesting) stay well under 1 MB in total, and inputs of megabytes
(100,000 pods, a 10 MB key) are written with the case format's generators
(conformance/README.md, "Generated inputs"), which every runner expands.

Run: python3 fuzz/gen_hostile_cases.py && UPDATE_CONFORMANCE=1 cargo test -p workload-lens-conformance suite_json
"""

import json
import pathlib
import sys

N = 100_000  # nesting levels of the deep inputs


def doubled(s, n=20):
    """A jq expression for the string s doubled n times (2^n copies): cheap
    in steps (one per doubling), big in bytes."""
    return json.dumps(s) + " | . + ." * n

GOJQ_HANGS = (
    "gojq has no limits: this runs for minutes or exhausts memory there; "
    "workload-lens stops it with a typed error (docs/reliability.md)"
)
GOJQ_DATES = (
    "dates are computed with jiff, which covers the years -9999 to 9999: beyond, a "
    "jq_runtime error; gojq extrapolates far-out dates"
)
GOJQ_DENIED = (
    "denied by the definition format's static check (docs/definition-format.md, "
    "jq in definitions); gojq would run it without bound"
)


def app(name, root_extra=None, children=None):
    root = {
        "name": "app",
        "kind": {"group": "example.com", "version": "v1", "kind": "App"},
        "statusDefinition": {"statusMappings": {}},
    }
    root.update(root_extra or {})
    sd = {"rootComponent": root}
    if children is not None:
        sd["childComponents"] = children
    return {
        "apiVersion": "run.ai/v1alpha1",
        "kind": "Karta",
        "metadata": {"name": name},
        "spec": {"structureDefinition": sd},
    }


def obj(spec=None):
    return {
        "apiVersion": "example.com/v1",
        "kind": "App",
        "metadata": {"name": "a"},
        "spec": spec or {},
    }


definitions = {
    "ids": app(
        "ids",
        children=[
            {
                "name": "worker",
                "ownerRef": "app",
                "instanceIdPath": ".spec.ids[]",
                "podSelector": {"componentInstanceSelector": {"idPath": ".metadata.labels.id"}},
            }
        ],
    ),
    "pairs": app(
        "pairs",
        children=[
            {
                "name": "worker",
                "ownerRef": "app",
                "instanceIdPath": '.spec.ids[] as $a | .spec.ids[] as $b | "\\($a)-\\($b)"',
                "podSelector": {"componentInstanceSelector": {"idPath": ".metadata.labels.id"}},
            }
        ],
    ),
    "pods": app(
        "pods",
        root_extra={
            "specDefinition": {"podTemplateSpecPath": ".spec.template"},
            "scaleDefinition": {"replicasPath": ".spec.replicas"},
        },
    ),
    "many-pods": app(
        "many-pods",
        children=[
            {
                "name": "worker",
                "ownerRef": "app",
                "instanceIdPath": ".spec.ids[]",
                "specDefinition": {"podTemplateSpecPath": ".spec.ids[] as $i | .spec.template"},
                "scaleDefinition": {"replicasPath": ".spec.ids[] as $i | .spec.replicas"},
                "podSelector": {"componentInstanceSelector": {"idPath": ".metadata.labels.id"}},
            }
        ],
    ),
    "busy": app(
        "busy",
        root_extra={
            "specDefinition": {"podTemplateSpecPath": ".spec.template"},
            "scaleDefinition": {
                "replicasPath": "reduce (.spec.xs[] as $a | .spec.xs[] as $b | .spec.xs[] as $c | .spec.xs[] as $d | 1) as $x (0; . + $x)"
            },
        },
    ),
    "recursive-def": app(
        "recursive-def",
        root_extra={"scaleDefinition": {"replicasPath": "def f: f; f"}},
    ),
    "owner-cycle": app(
        "owner-cycle",
        children=[
            {"name": "a", "ownerRef": "b"},
            {"name": "b", "ownerRef": "a"},
        ],
    ),
    "owner-self": app("owner-self", children=[{"name": "a", "ownerRef": "a"}]),
    "owner-long-cycle": app(
        "owner-long-cycle",
        children=[{"name": f"c{i}", "ownerRef": f"c{(i + 1) % 50}"} for i in range(50)],
    ),
}

cases = []


def case(name, op, expect, note=None, known=None, **kw):
    c = {"name": f"hostile/{name}", "op": op}
    if note:
        c["note"] = note
    c.update(kw)
    c["expect"] = expect
    if known:
        c["knownDifferences"] = known
    cases.append(c)


def err(code, **kw):
    return {"error": dict(code=code, **kw)}


def lim(name, **kw):
    return err("limit", limit=name, **kw)


# --- Input text: nesting, aliases, sizes ------------------------------------

case("json-100k-nested-arrays", "parse", lim("maxDepth", line=1, column=129),
     note="100,000 levels of JSON arrays (200 KB): refused at level 129, without recursion.",
     objectText="[" * N + "]" * N)
case("json-100k-nested-objects-unclosed", "parse", lim("maxDepth", line=1),
     note="10,000 opened JSON objects; the depth limit comes before the missing closers.",
     objectText='{"a":' * 10_000)
case("yaml-100k-nested-flow", "parse", lim("maxDepth"),
     note="100,000 levels of YAML flow sequences in a mapping (not JSON).",
     objectText="a: " + "[" * N)
case("yaml-100k-nested-block-sequences", "parse", lim("maxDepth"),
     note="`- - - ... 1` is a block sequence nested once per dash: 10,000 levels on one line.",
     objectText="- " * 10_000 + "1\n")
case("yaml-nested-block-mappings", "parse", lim("maxDepth"),
     note="Indented block mappings, 200 levels (the text grows quadratically with depth).",
     objectText="".join(" " * i + "k:\n" for i in range(200)) + " " * 200 + "k: 1\n")
case("yaml-deep-object-in-resolve", "resolve", lim("maxDepth", field=None),
     definition={"ref": "ids"},
     objectText="apiVersion: example.com/v1\nkind: App\nmetadata: {name: a}\nspec: {ids: [], x: " + "[" * 10_000 + "}\n")

laughs = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
for i, n in enumerate("bcdefghi"):
    p = "abcdefghi"[i]
    laughs += f"{n}: &{n} [" + ", ".join([f"*{p}"] * 10) + "]\n"
case("yaml-billion-laughs-9-levels", "parse", lim("maxYamlAliases"),
     note="10^9 leaves after expansion; refused after maxYamlAliases expansions.",
     objectText=laughs)
mlaughs = "a: &a {k0: x, k1: x, k2: x, k3: x, k4: x, k5: x, k6: x, k7: x}\n"
for i, n in enumerate("bcdefgh"):
    p = "abcdefgh"[i]
    mlaughs += f"{n}: &{n} {{" + ", ".join(f"k{j}: *{p}" for j in range(8)) + "}\n"
case("yaml-laughs-of-mappings", "parse", lim("maxYamlAliases"), objectText=mlaughs)
merge = "a: &a {x: 1, y: 2}\n"
for i, n in enumerate("bcdefghijklmnop"):
    p = "abcdefghijklmnop"[i]
    merge += f"{n}: &{n} {{<<: [*{p}, *{p}], z{i}: [*{p}, *{p}, *{p}]}}\n"
case("yaml-merge-key-laughs", "parse", lim("maxYamlAliases"), objectText=merge)
big_array = "x: &x [" + ", ".join(["0"] * 1100) + "]\ny: [" + ", ".join(["*x"] * 950) + "]\n"
case("yaml-aliases-to-a-big-array", "parse", lim("maxInputNodes"),
     note="950 aliases (within maxYamlAliases) of a 1,100-element array: over a million nodes from 7 KB of text.",
     objectText=big_array)
big_string = "x: &x " + "s" * 20_000 + "\ny: [" + ", ".join(["*x"] * 900) + "]\n"
case("yaml-aliases-to-a-big-string", "parse", lim("maxInputBytes"),
     note="900 aliases of a 20 KB scalar: 18 MB of strings from 25 KB of text. Expanded scalars count against maxInputBytes.",
     objectText=big_string)
case("yaml-self-referencing-alias", "parse", err("parse"),
     note="An alias inside its own anchor's node (a cycle) is undefined at that point.",
     objectText="a: &a [1, *a]\n")
case("yaml-undefined-alias", "parse", err("parse"), objectText="a: *nowhere\n")

# --- Numbers -----------------------------------------------------------------

case("json-number-beyond-f64", "parse", err("parse", line=1),
     objectText='{"a": 1e400}')
case("json-integer-of-100k-digits", "parse", err("parse", line=1),
     note="Beyond f64 after 309 digits.",
     objectText='{"a": ' + "9" * 10_000 + "}")
case("json-integer-beyond-i64-and-u64", "parse",
     {"result": [{"a": 1.2345678901234568e29, "b": -9.223372036854776e18, "c": 18446744073709551615}]},
     note="Integers beyond i64/u64 become the nearest f64; u64::MAX stays exact.",
     objectText='{"a": 123456789012345678901234567890, "b": -9223372036854775809, "c": 18446744073709551615}')
case("json-tiny-float-underflows-to-zero", "parse", {"result": [{"a": 0}]},
     objectText='{"a": 1e-400}')
case("yaml-number-beyond-f64", "parse", err("parse", line=1), objectText="a: 1e400\n")
case("jq-integer-beyond-i64", "evaluate", {"result": {"outputs": [9223372036854775808, 85070591730234615847396907784232501249]}},
     note="Integers stay exact inside evaluation and print as the nearest f64 (compared numerically).",
     expression="9223372036854775807 + 1, 9223372036854775807 * 9223372036854775807", input=None)
case("jq-squaring-big-integers", "evaluate", lim("maxStringBytes"),
     note="3^(2^14) has 26,000 bits: beyond the 4096-bit integer bound, reported as maxStringBytes.",
     expression="3 | " + " | ".join([". * ."] * 14), input=None, known={"gojq": GOJQ_HANGS})
case("jq-literal-beyond-f64", "evaluate", {"result": {"outputs": [1.7976931348623157e308]}},
     expression="1e1000", input=None)
case("jq-floor-of-huge-float", "evaluate", {"result": {"outputs": [1e300]}},
     expression="1e300 | floor", input=None)
case("jq-index-by-huge-number", "evaluate", err("jq_runtime"),
     expression=".[1e300]", input=[1, 2, 3],
     known={"gojq": "jaq refuses an index beyond the integer range (cannot index with 1e300); gojq yields null"})

# --- Strings and encodings ---------------------------------------------------

case("json-lone-high-surrogate", "parse", err("parse", line=1),
     note="A JSON \\ud800 escape not followed by a low surrogate cannot become UTF-8.",
     objectText='{"a": "\\ud800"}')
case("json-lone-low-surrogate", "parse", err("parse", line=1),
     objectText='{"a": "\\udc00x"}')
case("json-reversed-surrogate-pair", "parse", err("parse", line=1),
     objectText='{"a": "\\ude00\\ud83d"}')
case("json-valid-surrogate-pair", "parse", {"result": [{"a": "\U0001F600"}]},
     objectText='{"a": "\\ud83d\\ude00"}')
case("yaml-lone-surrogate-escape", "parse", err("parse", line=1),
     objectText='a: "\\ud800"\n')
case("jq-lone-surrogate-literal", "evaluate", err("jq_compile"),
     expression='"\\ud800"', input=None,
     known={"gojq": "jaq's lexer refuses a lone surrogate escape in a string literal (jq_compile); gojq substitutes U+FFFD"})
case("jq-implode-surrogate", "evaluate", {"result": {"outputs": ["\ufffd"]}},
     note="A surrogate code point becomes U+FFFD (as gojq).",
     expression="[55296] | implode", input=None)
case("jq-implode-beyond-unicode", "evaluate", err("jq_runtime"),
     expression="[1114112] | implode", input=None)
case("jq-base64d-invalid-utf8", "evaluate", {"result": {"outputs": ["\ufffd"]}},
     note="Decoded bytes that are not UTF-8 become U+FFFD (as gojq).",
     expression='"/w==" | @base64d', input=None)
case("jq-huge-string-repetition", "evaluate", lim("maxStringBytes"),
     expression='"x" * 1e9', input=None, known={"gojq": "gojq (0.12.11) yields null for this repetition; workload-lens bounds string size"})
case("jq-string-repetition-beyond-f64", "evaluate", lim("maxStringBytes"),
     expression='"xy" * 1e300', input=None, known={"gojq": "gojq (0.12.11) yields null for this repetition; workload-lens bounds string size"})
case("jq-string-doubling", "evaluate", lim("maxStringBytes"),
     expression='"ab" | ' + " | ".join([". + ."] * 40), input=None, known={"gojq": GOJQ_HANGS})
case("jq-uri-escape-triples-a-string", "evaluate", lim("maxStringBytes"),
     expression=doubled("\u00ff") + " | @uri | length", input=None)
case("jq-html-escape-grows-a-string", "evaluate", lim("maxStringBytes"),
     expression=doubled("&<") + " | @html | length", input=None)
case("jq-base64-of-a-big-string", "evaluate", lim("maxStringBytes"),
     expression=doubled("xy", 21) + " | @base64 | length", input=None)
case("jq-sub-growth", "evaluate", lim("maxSteps"),
     note="An unbounded pattern over a 2 MiB string: the search is charged its worst case (the input's length times the automaton's size) before it runs, which is most of the call's steps.",
     expression=doubled("ab") + ' | sub("(?<x>.+)"; "\\(.x)\\(.x)\\(.x)") | length', input=None)
case("jq-output-bytes", "evaluate", lim("maxOutputBytes"),
     note="Eleven references to one 2 MB string: a 23 MB output.",
     expression=doubled("xy") + " | [., ., ., ., ., ., ., ., ., ., .]", input=None)
case("jq-tojson-of-shared-structure", "evaluate", lim("maxStringBytes"),
     expression="def d: [., .]; 1 | " + " | ".join(["d"] * 60) + " | tojson | length", input=None,
     known={"gojq": GOJQ_HANGS})
case("jq-error-with-a-huge-value", "evaluate", err("jq_runtime"),
     expression=doubled("xy") + " | {a: ., b: .} | error", input=None)
case("jq-string-repetition-costs-its-bytes", "evaluate", {"result": {"outputs": [2000000]}},
     note="Repetition costs the bytes it builds (a step per 64 bytes, and the memory): 2 MB is within the budgets.",
     expression='"x" * 2000000 | length', input=None)
case("jq-repeated-repetition-exhausts-memory", "evaluate", lim("maxMemoryBytes"),
     note="Each 3 MB string is within maxStringBytes; 100 of them in one call are not within maxMemoryBytes (steps raised, so that memory is the limit that fires).",
     expression='[(0,1,2,3,4,5,6,7,8,9) as $i | (0,1,2,3,4,5,6,7,8,9) as $j | ("x" * 3000000) + "\\($i)\\($j)" | length] | add', input=None,
     limits={"maxSteps": 100000000})

# --- Arrays and objects built by evaluation --------------------------------------

case("jq-explode-a-big-string", "evaluate", lim("maxCollectionLen"),
     expression='"x" * 200000 | explode | length', input=None)
case("jq-split-into-a-huge-array", "evaluate", lim("maxCollectionLen"),
     note="A 2 MiB string split into characters; the pieces are counted before they are built.",
     expression=doubled("xy") + ' | split("") | length', input=None)
case("jq-split-on-a-separator-into-a-huge-array", "evaluate", lim("maxCollectionLen"),
     expression=doubled("xy") + ' | split("x") | length', input=None)
case("jq-cartesian-product-collected", "evaluate", lim("maxCollectionLen"),
     expression='("a" * 100 | split("")) as $x | [$x[] as $a | $x[] as $b | $x[] as $c | 1] | length', input=None,
     known={"gojq": GOJQ_HANGS})
case("jq-cartesian-product-in-object-keys", "evaluate", lim("maxOutputs"),
     expression="{(.[]): .[], (.[]): .[]}", input=["a", "b", "c", "d", "e", "f", "g"])
case("jq-setpath-at-huge-index", "evaluate", err("jq_runtime"),
     note="Assigning far past the end is refused (jaq: index out of bounds; gojq: array index too large), not padded with a billion nulls.",
     expression="[] | setpath([1000000000]; 1) | length", input=None)
case("jq-deep-reduce", "evaluate", lim("maxDepth"),
     expression='reduce ("a" * 1000 | split(""))[] as $x (null; [.])', input=None)
case("jq-deep-reduce-of-objects", "evaluate", lim("maxDepth"),
     expression='reduce ("a" * 1000 | split(""))[] as $x ({}; {a: .})', input=None)
case("jq-deep-fromjson", "evaluate", err("jq_runtime"),
     expression='"[" * 100000 | fromjson', input=None)
case("jq-combinations-of-many-lists", "evaluate", lim("maxSteps"),
     note="2^40 combinations.",
     expression='("a" * 40 | split("") | map([1, 2])) | reduce combinations as $c (0; . + 1)', input=None,
     known={"gojq": GOJQ_HANGS})

# --- Never-ending and exploding evaluation -----------------------------------------

case("jq-recursive-def", "evaluate", err("jq_compile"), expression="def f: f; f", input=None, known={"gojq": GOJQ_DENIED})
case("jq-recursive-def-with-output", "evaluate", err("jq_compile"), expression="def f: ., (. + 1 | f); [limit(1e9; 0 | f)]", input=None, known={"gojq": GOJQ_DENIED})
case("jq-mutual-recursion", "evaluate", err("jq_compile"), expression="def f: def g: f; g; f", input=None, known={"gojq": GOJQ_DENIED})
case("jq-recursion-through-an-argument", "evaluate", err("jq_compile"), expression="def f(g): g | f(g); f(.)", input=None, known={"gojq": GOJQ_DENIED})
case("jq-limit-over-a-huge-range", "evaluate", err("jq_compile"), expression="[limit(1000000000; range(1e18))] | length", input=None, known={"gojq": GOJQ_DENIED})
case("jq-repeat", "evaluate", err("jq_compile"), expression="last(repeat(1))", input=None, known={"gojq": GOJQ_DENIED})
case("jq-until-forever", "evaluate", err("jq_compile"), expression="until(false; .)", input=None, known={"gojq": GOJQ_DENIED})
case("jq-recurse-forever", "evaluate", err("jq_compile"), expression="[recurse([.])]", input=None, known={"gojq": GOJQ_DENIED})
case("jq-limit-over-a-huge-product", "evaluate", lim("maxSteps"),
     note="A million-element product consumed lazily: no collection, only steps.",
     expression='("a" * 10 | split("")) as $x | last(limit(1000000000; $x[] as $a | $x[] as $b | $x[] as $c | $x[] as $d | $x[] as $e | $x[] as $f | $x[] as $g | 1))',
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-deep-reduce-of-sums", "evaluate", lim("maxSteps"),
     expression='("a" * 1000 | split("")) as $x | reduce ($x[] as $a | $x[] as $b | 1) as $i (0; . + $i)', input=None,
     known={"gojq": GOJQ_HANGS})
case("jq-exponential-closures", "evaluate", lim("maxSteps"),
     note="Each definition doubles the outputs of its argument: 2^32 outputs from 200 bytes. Refused before it runs (a static bound on closure expansion, docs/reliability.md).",
     expression="def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); f65536(f65536(1))",
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-exponential-closures-collected", "evaluate", lim("maxSteps"),
     expression="def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); [f65536(f65536(1))] | length",
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-exponential-closures-counted", "evaluate", lim("maxSteps"),
     expression="def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); reduce f65536(f65536(1)) as $x (0; . + $x)",
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-thousands-of-outputs", "evaluate", lim("maxOutputs"),
     expression=".[] as $a | .[] | [$a, .]", input=list(range(50)))
case("jq-thousands-of-matches", "evaluate", lim("maxOutputs"),
     expression='"a" * 5000 | match("a"; "g") | .offset', input=None)
case("jq-empty-matches-everywhere", "evaluate", lim("maxSteps"),
     note="An empty pattern matches between every two characters of a 2 MiB string; matches are charged as they are found, and the call's steps run out before 100,000 of them are built.",
     expression=doubled("xy") + ' | [match(""; "g")] | length', input=None)
case("jq-gsub-everywhere", "evaluate", lim("maxSteps"),
     expression=doubled("ab") + ' | gsub("a"; "aa") | length', input=None)
case("jq-regex-backtracking-bait", "evaluate", {"result": {"outputs": [False, False]}},
     note="Patterns that are exponential for backtracking engines run in linear time here.",
     expression='"a" * 20000 + "!" | test("(a*)*b"), test("^(a|aa)+$")', input=None)
case("jq-regex-huge-repetition", "evaluate", err("jq_runtime"),
     note="A counted repetition that expands to a billion states is refused when the regex is built.",
     expression='"a" | test("a{1000}{1000}{1000}")', input=None, known={"gojq": "gojq refuses the repetition count too (a regexp parse error); here a jq_runtime error"})
case("jq-sort-of-shared-structure", "evaluate", lim("maxSteps"),
     expression="def d: [., .]; [(1 | " + " | ".join(["d"] * 60) + "), (1 | " + " | ".join(["d"] * 60) + ")] | sort | length",
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-huge-date", "evaluate", err("jq_runtime"),
     expression="1e300 | todate", input=None, known={"gojq": GOJQ_DATES})
case("jq-huge-gmtime", "evaluate", err("jq_runtime"),
     expression="-1e18 | gmtime", input=None, known={"gojq": GOJQ_DATES})
case("jq-mktime-out-of-range", "evaluate", err("jq_runtime"),
     expression="[1e15, 0, 1, 0, 0, 0, 0, 0] | mktime", input=None, known={"gojq": GOJQ_DATES})
case("jq-strftime-huge-format", "evaluate", lim("maxStringBytes"),
     expression=doubled("%Y", 21) + " | . as $f | 0 | strftime($f) | length", input=None)
case("jq-denied-env", "evaluate", err("jq_compile"), expression="env, $ENV", input=None, known={"gojq": GOJQ_DENIED})
case("jq-expression-too-deep", "evaluate", lim("maxExpressionDepth"),
     expression="[" * 1000 + "]" * 1000, input=None)
case("jq-long-path-chain", "evaluate", lim("maxExpressionDepth"),
     note="Found by the jq fuzz target: 4,000 chained steps (8 KB) overflowed a 1 MiB stack; chains count against maxExpressionDepth.",
     expression=".a" * 4000, input={})
case("jq-expression-too-long", "evaluate", lim("maxExpressionBytes"),
     expression=".a" * 10000, input={})

# --- Definitions -----------------------------------------------------------------

case("definition-ownership-cycle", "resolve", err("validation"), definition={"ref": "owner-cycle"}, object=obj())
case("definition-ownership-self-reference", "resolve", err("validation"), definition={"ref": "owner-self"}, object=obj())
case("definition-50-component-cycle", "resolve", err("validation"), definition={"ref": "owner-long-cycle"}, object=obj())
case("definition-recursive-def", "resolve", err("validation"), definition={"ref": "recursive-def"}, object=obj())
case("definition-yaml-self-alias", "compile", err("parse"),
     definition={"text": "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: &m {name: x, self: *m}\n"})
case("definition-billion-laughs", "compile", lim("maxYamlAliases"),
     definition={"text": laughs + "apiVersion: run.ai/v1alpha1\nkind: Karta\n"})
case("definition-10k-nested", "compile", lim("maxDepth"),
     definition={"text": "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {name: x}\nspec: " + "[" * 10_000})
case("definition-runaway-expression", "resolve",
     lim("maxSteps", component="app", field="spec.structureDefinition.rootComponent.scaleDefinition.replicasPath"),
     definition={"ref": "busy"}, object=obj({"template": {}, "xs": list(range(50))}))

# --- Instances and pods ----------------------------------------------------------

case("instances-beyond-max-outputs", "resolve", lim("maxOutputs", component="worker"),
     note="With default limits the id expression's outputs (maxOutputs 1000) bound the instances first.",
     definition={"ref": "pairs"}, object=obj({"ids": [str(i) for i in range(40)]}))
case("instances-beyond-max-instances", "resolve",
     lim("maxInstances", component="worker", field="spec.structureDefinition.childComponents[0].instanceIdPath"),
     note="maxOutputs raised: 101 x 101 = 10,201 ids exceed maxInstances (10,000).",
     definition={"ref": "pairs"}, object=obj({"ids": [str(i) for i in range(101)]}),
     limits={"maxOutputs": 1000000})
case("replicas-beyond-int32", "resolve", err("conversion", component="app"),
     definition={"ref": "pods"}, object=obj({"replicas": 1e12, "template": {"spec": {"containers": [{"name": "c"}]}}}))
case("replicas-huge-float", "resolve", err("conversion", component="app"),
     definition={"ref": "pods"}, object=obj({"replicas": 1e300, "template": {"spec": {"containers": [{"name": "c"}]}}}))
case("resources-that-overflow-the-totals", "resolve", err("limit"),
     note="1,000 instances of 2^31-1 pods requesting 8 Ei of memory each: the totals do not fit in 64 bits.",
     definition={"ref": "many-pods"},
     object=obj({"ids": [str(i) for i in range(1000)], "replicas": 2147483647,
                 "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"memory": "8Ei", "cpu": "1e15", "nvidia.com/gpu": "1e18"}}}]}}}))
case("quantity-with-10k-digits", "resolve", err("conversion"),
     definition={"ref": "pods"},
     object=obj({"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "9" * 10_000}}}]}}}))
case("quantity-with-huge-exponent", "resolve", err("conversion"),
     definition={"ref": "pods"},
     object=obj({"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"memory": "1e999999999999"}}}]}}}))

# --- Whole calls (issue 15): work per byte, one budget per call, linear algorithms --
#
# Several inputs per class of the issue's "Why" list. Inputs that are big as
# text are written with the case format's generators (conformance/README.md,
# "Generated inputs"), which every runner expands before it runs a case:
# gen(N, T) is an array of N copies of T ("{i}" in its strings is the index),
# rep(S, N) the string S repeated N times, cat(...) a concatenation.

MiB = 1 << 20


def gen(count, template, start=None):
    g = {"count": count, "template": template}
    if start is not None:
        g["start"] = start
    return {"$generate": g}


def rep(s, times):
    return {"$repeat": {"string": s, "times": times}}


def cat(*items):
    return {"$concat": list(items)}


def ones(n):
    """A jq generator of n outputs (`range` is denied): (1,1,...,1)."""
    return "(" + ",".join(["1"] * n) + ")"


def times(n):
    """A jq prefix that runs what follows 10^n times: a product of n
    generators of 10 outputs, `$a` being the last one's output."""
    return " | ".join([ones(10) + f" as $x{k}" for k in range(n - 1)] + ['(0,1,2,3,4,5,6,7,8,9) as $a'])


TIMES_100K = times(5)
TIMES_10K = times(4)
TIMES_100 = times(2)


def count_of(expr, times=TIMES_100K):
    """How many times `expr` ran, consuming each output (nothing collected)."""
    return f"reduce ({times} | {expr}) as $x (0; . + 1)"


def big(s, n):
    """`doubled` in parentheses, to use as a term."""
    return "(" + doubled(s, n) + ")"


A1M = big("a", 20)  # 1 MiB of "a"
A2M = big("a", 21)  # 2 MiB of "a"
S4M = big("abcd", 20)  # 4 MiB (maxStringBytes)
S2M = big("ab", 20)  # 2 MiB
S3M = big("abc", 20)  # 3 MiB
A256K = big("a", 18)  # 256 KiB

# 1. One step doing unbounded work: every primitive costs its bytes.

case("call-contains-1mib-needle-in-2mib-string", "evaluate", {"result": {"outputs": [False]}},
     note="A 1 MiB needle that almost matches everywhere in a 2 MiB string (a naive scan is 10^12 byte comparisons): linear search, charged its bytes.",
     expression=f'({A1M} + "b") as $n | {A2M} | contains($n)', input=None)
case("call-index-1mib-needle-in-2mib-string", "evaluate", {"result": {"outputs": [None]}},
     expression=f'({A1M} + "b") as $n | {A2M} | index($n)', input=None,
     known={"gojq": "gojq searches a string naively (a comparison of the needle at every offset): over a minute here; " + GOJQ_HANGS})
case("call-indices-1mib-needle-in-2mib-string", "evaluate", {"result": {"outputs": [[]]}},
     expression=f'({A1M} + "b") as $n | {A2M} | indices($n)', input=None,
     known={"gojq": "gojq searches a string naively (a comparison of the needle at every offset): over a minute here; " + GOJQ_HANGS})
case("call-inside-1mib-needle-in-2mib-string", "evaluate", {"result": {"outputs": [False]}},
     expression=f'{A2M} as $h | {A1M} + "b" | inside($h)', input=None)
case("call-indices-of-a-needle-found-everywhere", "evaluate", lim("maxSteps"),
     note="A 1 MiB needle found at each of the first 1,025 offsets of a 1 MiB + 1 KiB string: each occurrence found costs its bytes (1 GB of comparisons in all).",
     expression=f'{A1M} as $n | {A1M} + {big("a", 10)} | indices($n) | length', input=None)
case("call-contains-repeated", "evaluate", lim("maxSteps"),
     note="100 searches of a 1 MiB needle in a 2 MiB string: each is charged its bytes, and the call's budget runs out.",
     expression=f'({A1M} + "b") as $n | {A2M} as $h | ' + count_of("$h | contains($n)", TIMES_100), input=None)

case("call-regex-counted-repetition-over-256kib", "evaluate", lim("maxSteps"),
     note="A counted repetition (a thousand-state automaton) over 256 KiB: the matcher's work, not its matches, is charged.",
     expression=f'{A256K} | test("a{{1000}}b")', input=None)
case("call-regex-counted-class-over-256kib", "evaluate", lim("maxSteps"),
     expression=f'{A256K} | test("[ab]{{2000}}c")', input=None)
case("call-regex-nested-counted-repetition", "evaluate", lim("maxSteps"),
     expression=f'{A256K} | [match("(?:a|b){{100}}(?:a|c){{100}}d"; "g")] | length', input=None)

case("call-regex-capture-slots-from-the-object", "evaluate", lim("maxMemoryBytes"),
     note="A pattern from the object with 3,000 capture groups: the matcher keeps a slot per group for each of its ~36,000 states (3.5 GB of tables), charged to maxMemoryBytes before it searches one byte.",
     expression='.p as $p | "a" | test($p)', input={"p": rep("(a*)", 3000)})
case("call-regex-60k-groups-from-the-object", "evaluate", lim("maxMemoryBytes"),
     note="60,000 groups: hundreds of GB of slot tables, which aborted the process (or overflowed the table's size on 32-bit WASM) before they were charged.",
     expression='.p as $p | "a" | test($p)', input={"p": rep("(a)", 60000)})
case("call-regex-automaton-over-the-unit-limit", "evaluate", err("jq_runtime"),
     note="Nested counts expand to 300,000 states: refused before it is built, with the same message natively and in WASM (the size is read from the pattern, not the host's memory layout).",
     expression='"a" | test("(a{100}){100}{30}")', input=None)
case("call-regex-long-pattern-from-the-object", "evaluate", err("jq_runtime"),
     note="A 300 KB pattern from the object: 300,000 automaton units, over the limit.",
     expression='.p as $p | "a" | test($p)', input={"p": rep("ab", 150000)},
     known={"gojq": "Go's regexp compiles a 300 KB literal (false here); workload-lens refuses automata over 200,000 units (docs/compatibility.md, jq engine)"})
case("call-regex-nesting-from-the-object", "evaluate", err("jq_runtime"),
     note="A 1 MiB pattern of `(` from the object: refused in constant memory (a frame per byte was 40 MB), past what the matcher nests.",
     expression='.p as $p | "a" | test($p)', input={"p": rep("(", 1 << 20)})
case("call-length-of-4mib-100k-times", "evaluate", lim("maxSteps"),
     note="length counts a string's characters: 100,000 times over 4 MiB is 400 GB of work unless each call costs its bytes.",
     expression=f"{S4M} as $s | " + count_of("$s | length"), input=None)
case("call-ascii-downcase-of-4mib-100k-times", "evaluate", lim("maxSteps"),
     expression=f"{S4M} as $s | " + count_of("$s | ascii_downcase"), input=None)
case("call-tojson-of-2mib-100k-times", "evaluate", lim("maxSteps"),
     expression=f"{S2M} as $s | " + count_of("$s | tojson"), input=None)
case("call-test-over-4mib-100k-times", "evaluate", lim("maxSteps"),
     expression=f'{S4M} as $s | ' + count_of('$s | test("z")'), input=None)
case("call-string-equality-of-3mib-100k-times", "evaluate", lim("maxSteps"),
     note="Two strings built apart, equal but for the last byte: each comparison reads 3 MiB.",
     expression=f'({S3M} + "x") as $s | ({S3M} + "y") as $t | ' + count_of("$s == $t"), input=None)
case("call-string-ordering-of-3mib-100k-times", "evaluate", lim("maxSteps"),
     expression=f'({S3M} + "x") as $s | ({S3M} + "y") as $t | ' + count_of("$s < $t"), input=None)
NEARLY_EQUAL = gen(40, gen(10, cat(rep("a", 32768), "{i}")))
case("call-sort-of-long-nearly-equal-strings", "evaluate", lim("maxSteps"),
     note="400 strings of 32 KiB (40 runs of 10) that differ only in their last bytes: each comparison reads 32 KiB.",
     expression="[.[][]] | sort | length", input=NEARLY_EQUAL)
case("call-group-by-long-nearly-equal-strings", "evaluate", lim("maxSteps"),
     expression="[.[][]] | group_by(.) | length", input=NEARLY_EQUAL)
case("call-unique-of-long-nearly-equal-strings", "evaluate", lim("maxSteps"),
     expression="[.[][]] | unique | length", input=NEARLY_EQUAL)
case("call-sort-of-two-3mib-strings-10k-times", "evaluate", lim("maxSteps"),
     note="20,000 references to two 3 MiB strings equal but for their last byte: each comparison reads 3 MiB.",
     expression=f'({S3M} + "x") as $s | ({S3M} + "y") as $t | [{TIMES_10K} | $s, $t] | sort | length', input=None)
case("call-group-by-two-3mib-strings-10k-times", "evaluate", lim("maxSteps"),
     expression=f'({S3M} + "x") as $s | ({S3M} + "y") as $t | [{TIMES_10K} | $s, $t] | group_by(.) | length', input=None)
case("call-sort-of-nearly-equal-strings-within-budgets", "evaluate",
     {"result": {"outputs": [sorted(str(i) for i in range(100))]}},
     note="The same shape, small: 100 strings of 1 KiB sort correctly within the budgets.",
     expression="sort | map(.[1024:])", input=gen(100, cat(rep("a", 1024), "{i}")))

# 2. The total: one budget per call, whatever the number of expressions.

ZERO = {"gpu": 0, "cpuMillis": 0, "memoryBytes": 0, "ephemeralStorageBytes": 0}
APP_KIND = {"group": "example.com", "version": "v1", "kind": "App"}


def resolved(name, components, tree_children, pods=None, pod_count=1):
    """The resolved structure of an App `a` whose root `app` has no pods."""
    r = {
        "apiVersion": "workload-lens.dev/v1alpha1", "kind": "ResolvedWorkload",
        "definition": {"name": name, "origin": "user", "format": "run.ai/v1alpha1"},
        "workload": {"apiVersion": "example.com/v1", "kind": "App", "name": "a"},
        "status": {"matchedStatuses": ["Undefined"]},
        "components": [{
            "name": "app", "kind": APP_KIND, "root": True, "children": [c["name"] for c in components],
            "hasPodDefinition": False, "multiInstance": False,
            "instances": [{"id": "", "present": True, "desiredReplicas": 0, "resources": ZERO}],
            "totals": {"pods": 0, "resources": ZERO},
        }] + components,
        "totals": {"pods": pod_count, "resources": ZERO},
        "tree": {"component": "app", "children": tree_children},
    }
    if pods is not None:
        r["unattributedPods"] = pods
    return r


def one_pod_child(name, live=None, scale=None):
    """A single-instance child of `app` with an empty pod template and one replica."""
    inst = {"id": "", "present": True, "desiredReplicas": 1, "podTemplate": {}, "podResources": ZERO, "resources": ZERO}
    if scale is not None:
        inst["scale"] = scale
    if live is not None:
        inst["live"] = live
    return {"name": name, "root": False, "owner": "app", "children": [], "hasPodDefinition": True,
            "multiInstance": False, "instances": [inst], "totals": {"pods": 1, "resources": ZERO}}


def heavy_app(children, extra=None):
    d = app("heavy", children=children)
    d["spec"]["structureDefinition"]["rootComponent"].update(extra or {})
    return d


HEAVY = "reduce (.spec.xs[] as $a | .spec.xs[] as $b | .spec.xs[] as $c | 1) as $x (0; . + $x)"
heavy_child = {
    "name": "c{i}", "ownerRef": "app",
    "specDefinition": {"podTemplateSpecPath": ".spec.template"},
    "scaleDefinition": {"replicasPath": HEAVY + " | 1"},
}
case("call-one-component-under-the-budget", "resolve",
     {"result": resolved("heavy", [one_pod_child("c0", scale={"replicas": 1})], [{"component": "c0"}])},
     note="One expression of 125,000 reductions (most of what one expression used to get): within the call's budget.",
     definition=heavy_app([{**heavy_child, "name": "c0"}]), object=obj({"template": {}, "xs": list(range(50))}))
case("call-100-components-each-under-the-budget", "resolve", lim("maxSteps"),
     note="100 components, each expression within what one expression used to get (1M steps): the call's budget is shared and runs out (the old engine took 16 s).",
     definition=heavy_app(gen(100, heavy_child)), object=obj({"template": {}, "xs": list(range(50))}))

case("call-many-pods-times-selectors", "attribute", lim("maxSteps"),
     note="10,000 pods tried against 100 components' selectors (a million selector runs) in one call.",
     definition=app("selectors", children=gen(100, {
         "name": "c{i}", "ownerRef": "app",
         "specDefinition": {"podTemplateSpecPath": ".spec.template"},
         "podSelector": {"componentTypeSelector": {"keyPath": ".metadata.labels.role | ascii_downcase", "value": "c{i}"}},
     })),
     pods=gen(10000, {"metadata": {"name": "p{i}", "labels": {"role": "none"}}}))
case("call-many-status-matchers", "status", lim("maxSteps"),
     note="10,000 matchers of 300 steps each in one call.",
     definition=heavy_app([], {"statusDefinition": {"statusMappings": {"running": gen(10000, {
         "byExpression": {"expression": "[.status.xs[] | . + 1] | add", "expectedResult": "-1"}})}}}),
     object=dict(obj(), status={"xs": list(range(100))}))
MATCHERS = {"statusDefinition": {"statusMappings": {"running": gen(10000, {
    "byExpression": {"expression": "[.status.xs[] | . + 1] | add", "expectedResult": "-1"}})}}}
case("call-compile-10000-status-matchers", "compile", {"result": {"name": "heavy", "warnings": [
         {"code": "no-pod-definition", "field": "spec.structureDefinition", "line": 1, "severity": "warning"}]}},
     note="The definition of the previous case alone: compiling 10,000 expressions (200 steps each and a step per 16 bytes, ~40 us of work each: beyond the default budget, so raised here).",
     definition=heavy_app([], MATCHERS), limits={"maxSteps": 10_000_000})
case("call-compile-10000-status-matchers-default-limits", "compile", lim("maxSteps"),
     note="The same definition with the default limits: compiling 10,000 expressions is past one call's budget (about 5,000 fit).",
     definition=heavy_app([], MATCHERS))
case("call-compile-100k-status-matchers", "compile", lim("maxSteps"),
     note="100,000 matchers (9 MB of definition): the compile work is within one call's budget too.",
     definition=heavy_app([], {"statusDefinition": {"statusMappings": {"running": gen(100_000, {
         "byExpression": {"expression": "[.status.xs[] | . + {i}] | add", "expectedResult": "-1"}})}}}))
DOC_OF_100 = json.dumps(app("doc-{i}", children=[
    {"name": f"c{k}", "ownerRef": "app", "specDefinition": {"podTemplateSpecPath": f".spec.d{{i}}.t{k}"},
     "scaleDefinition": {"replicasPath": f".spec.d{{i}}.r{k} // 1"}} for k in range(100)]), separators=(",", ":"))
case("call-validate-1000-documents", "validate", lim("maxSteps"),
     note="One text of 1,000 definitions (maxDocuments, 15 MB) of 100 components each, their expressions all distinct: one call, whose compile work is within its budget.",
     definition={"text": rep("---\n" + DOC_OF_100 + "\n", 1000)})

case("call-many-distinct-large-strings", "evaluate", lim("maxMemoryBytes"),
     note="100,000 distinct 2 MiB strings, each consumed at once: memory is counted as it is built, so the call stops at maxMemoryBytes (steps raised so that memory is the limit that fires), not at 200 GiB.",
     expression=f'{S2M} as $s | ' + count_of('$s + "\\($a)" | length'), input=None, limits={"maxSteps": 1_000_000_000})
case("call-many-distinct-large-strings-collected", "evaluate", lim("maxMemoryBytes"),
     expression=f'{S2M} as $s | [{TIMES_100K} | $s + "\\($a)"] | length', input=None, limits={"maxSteps": 1_000_000_000})
case("call-many-distinct-large-strings-default-limits", "evaluate", lim("maxSteps"),
     expression=f'{S2M} as $s | ' + count_of('$s + "\\($a)" | length'), input=None)

DOUBLE21 = big("x", 21)
BY_ID = {"componentInstanceSelector": {"idPath": ".metadata.labels.id"}}
case("call-1000-instance-ids-of-2mib", "resolve", lim("maxSteps"),
     note="1,000 instance ids of 2 MiB each (2 GB): the call's budgets stop it.",
     definition=app("big-ids", children=[{"name": "worker", "ownerRef": "app", "podSelector": BY_ID,
                                          "instanceIdPath": f".spec.ids[] as $i | ({DOUBLE21}) + $i"}]),
     object=obj({"ids": gen(1000, "{i}")}))
case("call-1000-pod-templates-of-2mib", "resolve", lim("maxSteps"),
     definition=app("big-templates", children=[{
         "name": "worker", "ownerRef": "app", "instanceIdPath": ".spec.ids[]", "podSelector": BY_ID,
         "specDefinition": {"podTemplateSpecPath": f".spec.ids[] as $i | {{metadata: {{labels: {{big: (({DOUBLE21}) + $i)}}}}, spec: {{}}}}"}}]),
     object=obj({"ids": gen(1000, "{i}")}))


def suspending(path, value):
    d = app("suspending")
    d["spec"]["structureDefinition"]["rootComponent"]["suspendDefinition"] = {
        "suspendActions": [{"path": path, "value": value}],
        "resumeActions": [{"path": path, "value": "false"}],
    }
    return d


case("call-suspend-at-a-huge-index-on-many-paths", "suspend", lim("maxSteps"),
     note="Writing at index 99,999 of 1,000 arrays pads each with 99,999 nulls: 100 million slots.",
     definition=suspending(".spec.xs[][99999]", "true"), object=obj({"xs": gen(1000, [])}))
case("call-suspend-at-a-billionth-index", "suspend", lim("maxCollectionLen"),
     definition=suspending(".spec.xs[1000000000]", "true"), object=obj({"xs": []}))
case("call-suspend-writes-a-large-value-at-1000-paths", "suspend", lim("maxSteps"),
     note="One 2 MiB value written at 1,000 paths: 2 GB of object and patch.",
     definition=suspending(".spec.xs[].v", cat('"', rep("x", 2 * MiB), '"')), object=obj({"xs": gen(1000, {})}))
case("call-update-writes-a-large-template-at-1000-paths", "update", lim("maxSteps"),
     definition=app("many-paths", root_extra={"specDefinition": {"podTemplateSpecPath": ".spec.xs[].template"}}),
     object=obj({"xs": gen(1000, {})}),
     request={"components": {"app": {"podTemplateSpecs": {"": {"metadata": {"annotations": {"a": rep("x", 2 * MiB)}}, "spec": {}}}}}})
case("call-patch-repeating-a-long-path", "suspend", lim("maxOutputBytes"),
     note="1,000 writes under a 1 MiB key: each patch operation would repeat the key in its path (1 GB).",
     definition=suspending(".spec.data[][].suspend", "true"),
     objectText=cat('{"apiVersion":"example.com/v1","kind":"App","metadata":{"name":"a"},"spec":{"data":{"',
                    rep("k", MiB), '":[', rep("{},", 999), "{}]}}}"))

# The same with maxSteps raised, so that the memory the call builds is what stops it.
STEPS_RAISED = {"maxSteps": 1_000_000_000}
for c in [c for c in cases if c["name"] in (
        "hostile/call-1000-instance-ids-of-2mib", "hostile/call-1000-pod-templates-of-2mib",
        "hostile/call-suspend-at-a-huge-index-on-many-paths", "hostile/call-suspend-writes-a-large-value-at-1000-paths",
        "hostile/call-update-writes-a-large-template-at-1000-paths", "hostile/call-patch-repeating-a-long-path")]:
    c2 = {k: v for k, v in c.items() if k not in ("note", "expect")}
    c2["name"] = c["name"] + "-steps-raised"
    c2["limits"] = STEPS_RAISED
    c2["expect"] = lim("maxOutputBytes" if "patch" in c["name"] else "maxMemoryBytes")
    cases.append(c2)


# 3. Inputs that grow algorithms.

KEY10M = 10_000_000
case("call-json-10mb-key-above-100k-numbers", "parse", err("parse", line=1, column=len('{"') + KEY10M + len('":[') + len("1,") * 100_000 + len('{"a":1,') + 1),
     note="A 10 MB key above 100,000 numbers, then a duplicate key: the reader tracks paths lazily (a path per value was 10 MB each: past 150 s), and the error is located.",
     objectText=cat('{"', rep("k", KEY10M), '":[', rep("1,", 100_000), '{"a":1,"a":2}]}'))
case("call-json-10mb-key-in-a-definition", "compile",
     {"result": {"name": "big-key", "warnings": [{"code": "no-pod-definition", "field": "spec.structureDefinition", "line": 1, "severity": "warning"}]}},
     note="The same key in a definition's JSON text (read with positions for its findings).",
     definition={"text": cat('{"apiVersion":"run.ai/v1alpha1","kind":"Karta","metadata":{"name":"big-key","annotations":{"', rep("k", KEY10M), '":"', rep("1,", 100_000),
                             '"}},"spec":{"structureDefinition":{"rootComponent":{"name":"app","kind":{"group":"example.com","version":"v1","kind":"App"},"statusDefinition":{"statusMappings":{}}}}}}')})
case("call-json-17mib-text", "parse", lim("maxInputBytes"),
     note="The same at 10x is beyond maxInputBytes (16 MiB): refused before it is read.",
     objectText=cat('{"', rep("k", 17 * MiB), '":[1]}'))

roles = app("roles", children=[{
    "name": "worker", "ownerRef": "app", "specDefinition": {"podTemplateSpecPath": ".spec.template"},
    "podSelector": {"componentTypeSelector": {"keyPath": ".metadata.labels.role", "value": "worker"}},
}, {
    "name": "launcher", "ownerRef": "app", "specDefinition": {"podTemplateSpecPath": ".spec.launcher"},
    "podSelector": {"componentTypeSelector": {"keyPath": ".metadata.labels.role", "value": "launcher"}},
}])
PODS_100K = gen(100_000, {"metadata": {"name": "p{i}", "labels": {"role": "worker"}}, "spec": {"nodeName": "n{i}"}}, start=100_000)
case("call-attribute-100k-pods-on-distinct-nodes", "attribute", lim("maxSteps"),
     note="100,000 pods on 100,000 nodes (the node list was searched and sorted again for every pod: 89 s): with default limits the call's steps run out.",
     definition=roles, pods=PODS_100K)
case("call-attribute-100k-pods-on-distinct-nodes-raised-limits", "attribute",
     {"result": {"pods": gen(100_000, {"name": "p{i}", "component": "worker", "phase": "Unknown", "ready": False, "node": "n{i}",
                                        "resources": {"gpu": 0, "cpuMillis": 0, "memoryBytes": 0, "ephemeralStorageBytes": 0}}, start=100_000),
                 "unattributed": []}},
     note="With the budgets raised, the right answer, in linear time.",
     definition=roles, pods=PODS_100K, limits={"maxSteps": 100_000_000, "maxMemoryBytes": 1 << 30})
case("call-resolve-with-100k-pods-on-distinct-nodes", "resolve", lim("maxSteps"),
     definition=roles, object=obj({"template": {}, "launcher": {}}), pods=PODS_100K)
case("call-resolve-with-100k-pods-on-distinct-nodes-raised-limits", "resolve",
     {"result": resolved("roles", [
         one_pod_child("worker", live={
             "nodes": gen(100_000, "n{i}", start=100_000), "ready": 0,
             "pods": gen(100_000, {"name": "p{i}", "component": "worker", "phase": "Unknown", "ready": False, "node": "n{i}", "resources": ZERO}, start=100_000)}),
         one_pod_child("launcher", live={"nodes": [], "pods": [], "ready": 0}),
     ], [{"component": "worker"}, {"component": "launcher"}], pods=[], pod_count=2)},
     note="The live state of 100,000 pods: each instance's node list (sorted, unique) built once.",
     definition=roles, object=obj({"template": {}, "launcher": {}}), pods=PODS_100K,
     limits={"maxSteps": 100_000_000, "maxMemoryBytes": 1 << 30})

gangs = app("gangs", children=[{
    "name": "worker", "ownerRef": "app", "specDefinition": {"podTemplateSpecPath": ".spec.template"},
    "podSelector": {"componentTypeSelector": {"keyPath": ".metadata.labels.role", "value": "worker"}},
}])
gangs["spec"]["optimizationInstructions"] = {"gangScheduling": {"podGroups": [
    {"name": "per-key", "members": [{"componentName": "worker", "groupByKeyPaths": [".metadata.labels.g"]}]}]}}
PODS_50K = gen(50_000, {"metadata": {"name": "p{i}", "labels": {"role": "worker", "g": "{i}"}}}, start=100_000)
GANG_50K_RESULT = {"result": {
    "groups": gen(50_000, {"name": "pg-a-{i}", "podGroup": "per-key", "keys": ["{i}"], "component": "worker", "minMember": 1, "members": ["p{i}"]}, start=100_000),
    "pods": gen(50_000, {"pod": "p{i}", "component": "worker", "effectiveComponent": "worker", "podGroup": "per-key", "groupKeys": ["{i}"], "groupName": "pg-a-{i}"}, start=100_000)}}
case("call-gang-50k-groups", "gang", GANG_50K_RESULT,
     note="50,000 pods in 50,000 groups (the group list was searched for every pod: 21 s): in linear time, with maxSteps raised.",
     definition=gangs, object=obj({"template": {}}), pods=PODS_50K, limits={"maxSteps": 10_000_000})
case("call-gang-50k-groups-default-limits", "gang", GANG_50K_RESULT,
     note="The same with the default limits: the group key is a plain path, read from each pod as it is (the fast path), so no pod is converted for jq and the call is within its budget (it was not when each pod was converted: a step per node).",
     definition=gangs, object=obj({"template": {}}), pods=PODS_50K)
case("call-gang-groups-beyond-max-input-bytes", "gang", lim("maxInputBytes"),
     note="Larger still: 120,000 pods in 18 MB are beyond maxInputBytes, refused before they are read (500,000 pods, 10x, would be too, but their generated value alone would take the runners past the 1 GiB cap of scripts/hostile-capped.sh).",
     definition=gangs, object=obj({"template": {}}),
     pods=gen(120_000, {"metadata": {"name": "p{i}", "labels": {"role": "worker", "g": "{i}", "pad": rep("x", 100)}}}, start=1_000_000))

chain_root = {"name": "c-1", "kind": {"group": "example.com", "version": "v1", "kind": "App"}, "statusDefinition": {"statusMappings": {}}}


def chain(n):
    return {"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": "chain"},
            "spec": {"structureDefinition": {"rootComponent": chain_root,
                                             "childComponents": gen(n, {"name": "c{i}", "ownerRef": "c{i-1}"})}}}


case("call-owner-chain-16000-deep", "resolve", lim("maxDepth"),
     note="16,000 components, each owned by the previous: the tree would be 16,000 levels deep (a stack overflow in the CLI); refused with maxDepth before it is built.",
     definition=chain(16_000), object=obj())
case("call-owner-chain-16000-deep-compile", "compile", lim("maxDepth"),
     definition=chain(16_000))
case("call-owner-chain-16000-deep-gang", "gang", lim("maxDepth"),
     definition=chain(16_000), object=obj(), pods=[])
case("call-owner-fan-out-10000", "status", {"result": {"matchedStatuses": ["Undefined"]}},
     note="10,000 children of one component: linked in linear time.",
     definition={"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": "fan"},
                 "spec": {"structureDefinition": {"rootComponent": chain_root,
                                                  "childComponents": gen(10_000, {"name": "c{i}", "ownerRef": "c-1"}, start=10_000)}}},
     object=obj())

case("call-owner-fan-out-100000", "status", lim("maxMemoryBytes"),
     note="The same at 10x: a compiled component takes a few KB, charged before they are allocated (this asked for 380 MB at once and aborted the runner under the 1 GiB cap of scripts/hostile-capped.sh).",
     definition={"apiVersion": "run.ai/v1alpha1", "kind": "Karta", "metadata": {"name": "fan"},
                 "spec": {"structureDefinition": {"rootComponent": chain_root,
                                                  "childComponents": gen(100_000, {"name": "c{i}", "ownerRef": "c-1"}, start=100_000)}}},
     object=obj())
broom = chain(30)
broom["spec"]["structureDefinition"]["childComponents"] = cat(
    broom["spec"]["structureDefinition"]["childComponents"],
    gen(5000, {"name": "l{i}", "ownerRef": "c29", "specDefinition": {"podTemplateSpecPath": ".spec.t"},
               "podSelector": {"componentTypeSelector": {"keyPath": ".metadata.labels.role", "value": "l{i}"}}}),
)
broom["spec"]["optimizationInstructions"] = {"gangScheduling": {"podGroups": [
    {"name": "all", "members": cat(gen(30, {"componentName": "c{i}"}), gen(5000, {"componentName": "l{i}"}))},
]}}
case("call-gang-members-below-a-long-chain", "gang",
     {"result": {"groups": [{"name": "pg-a", "podGroup": "all", "component": "l4999", "minMember": 1, "members": ["p"]}],
                 "pods": [{"pod": "p", "component": "l4999", "effectiveComponent": "l4999", "podGroup": "all", "groupName": "pg-a"}]}},
     note="5,030 gang members, 5,000 of them at the bottom of a 30-deep chain: each member's ancestors are found once (the old compile scanned the chain for each, with a linear search in the member list: cubic). Compiling the 10,000 expressions of its selectors needs a raised maxSteps.",
     definition=broom, object=obj({"t": {}}), pods=[{"metadata": {"name": "p", "labels": {"role": "l4999"}}}],
     limits={"maxSteps": 10_000_000})

# 4. Errors bounded and true.

case("call-empty-id-among-10000-long-ids", "resolve", err("conversion", component="worker"),
     note="10,000 ids of 1 KB, the last one empty: the error names the fault, not every id (one message reached 600 MB).",
     definition=app("ids-then-more", children=[{"name": "worker", "ownerRef": "app", "podSelector": BY_ID, "instanceIdPath": ".spec.ids[], .spec.more[]"}]),
     object=obj({"ids": gen(9_999, cat(rep("x", 1000), "{i}")), "more": [""]}),
     limits={"maxOutputs": 100_000})
case("call-duplicate-ids-among-10000-long-ids", "resolve", err("conversion", component="worker"),
     definition=app("ids-dup", children=[{"name": "worker", "ownerRef": "app", "podSelector": BY_ID, "instanceIdPath": ".spec.ids[]"}]),
     object=obj({"ids": gen(10_000, rep("x", 1000))}),
     limits={"maxOutputs": 100_000})


def gpus(*containers):
    return obj({"replicas": 1, "template": {"spec": {"containers": [
        {"name": f"c{n}", "resources": {"requests": {"nvidia.com/gpu": q}}} for n, q in enumerate(containers)]}}})


case("call-negative-gpus-beside-positive", "resolve", err("conversion", component="app"),
     note="A negative GPU request beside a positive one (Kubernetes rejects it) is an error, never summed to 0 GPUs.",
     definition={"ref": "pods"}, object=gpus("4", "-4"))
case("call-negative-memory-in-an-init-container", "resolve", err("conversion", component="app"),
     definition={"ref": "pods"},
     object=obj({"replicas": 1, "template": {"spec": {
         "initContainers": [{"name": "i", "resources": {"requests": {"memory": "-1Gi"}}}],
         "containers": [{"name": "c", "resources": {"requests": {"memory": "1Gi"}}}]}}}))
case("call-negative-gpu-limit", "resolve", err("conversion", component="app"),
     definition={"ref": "pods"},
     object=obj({"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "-1"}}}]}}}))
case("call-gpus-beyond-u64", "resolve", err("limit", limit=None),
     note="A GPU quantity beyond u64 is the overflow error, not 18446744073709551615.",
     definition={"ref": "pods"}, object=gpus("1e20"))
case("call-gpus-adding-up-beyond-u64", "resolve", err("limit", limit=None),
     definition={"ref": "pods"}, object=gpus("18446744073709551615", "1"))

group = {
    "note": (
        "The hostile-input corpus (docs/reliability.md): inputs that have broken engines of this kind, run "
        "by every runtime's runner with default limits unless a case says otherwise. Each ends at once with "
        "a typed error naming the limit or the fault (or, where the input is legal, the correct result): "
        "100k-level nesting, alias bombs, numbers beyond i64/f64, lone surrogates (as escapes: suite.json "
        "cannot hold invalid UTF-8, which engine/tests/source.rs covers), jq that never ends or explodes, "
        "definitions with cycles, huge instance counts and resource totals; and whole calls (the call-* "
        "cases): primitives that touch megabytes, many expressions, pods, matchers and writes sharing one "
        "call's budgets, inputs that grow algorithms (100,000 pods, 50,000 gang groups, long and wide owner "
        "graphs, a 10 MB key), bounded and true errors. Big inputs are written with generators "
        "(conformance/README.md, \"Generated inputs\"). Generated by fuzz/gen_hostile_cases.py: edit "
        "that, not this file."
    ),
    "definitions": definitions,
    "cases": cases,
}

out = pathlib.Path(__file__).resolve().parent.parent / "conformance" / "cases" / "hostile.yaml"
text = "# Generated by fuzz/gen_hostile_cases.py; do not edit.\n" + json.dumps(group, indent=1, ensure_ascii=False) + "\n"
out.write_text(text)
print(f"{out}: {len(cases)} cases, {len(text)} bytes", file=sys.stderr)
