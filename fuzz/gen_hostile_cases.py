#!/usr/bin/env python3
"""Writes conformance/cases/hostile.yaml, the hostile-input corpus that every
runtime's conformance runner runs (Rust, Python, Node, WASM in Node and in
Chromium), with the same expected error code everywhere.

The corpus uses default limits unless a case says why not. Most inputs are
small as text and hostile when evaluated; the few that must be big as text
(100k-level nesting) stay well under 1 MB in total.

Run: python3 fuzz/gen_hostile_cases.py && cargo run -p workload-lens-conformance -- suite-json
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
case("jq-sub-growth", "evaluate", lim("maxStringBytes"),
     expression=doubled("ab") + ' | sub("(?<x>.+)"; "\\(.x)\\(.x)\\(.x)") | length', input=None)
case("jq-output-bytes", "evaluate", lim("maxOutputBytes"),
     note="Eleven references to one 2 MB string: a 23 MB output.",
     expression=doubled("xy") + " | [., ., ., ., ., ., ., ., ., ., .]", input=None)
case("jq-tojson-of-shared-structure", "evaluate", lim("maxStringBytes"),
     expression="def d: [., .]; 1 | " + " | ".join(["d"] * 60) + " | tojson | length", input=None,
     known={"gojq": GOJQ_HANGS})
case("jq-error-with-a-huge-value", "evaluate", err("jq_runtime"),
     expression=doubled("xy") + " | {a: ., b: .} | error", input=None)
case("jq-string-repetition-costs-steps", "evaluate", lim("maxSteps"),
     note="Repetition costs a step per byte: a million bytes is beyond the default budget.",
     expression='"x" * 2000000 | length', input=None)

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
case("jq-exponential-closures", "evaluate", lim("maxOutputs"),
     note="Each definition doubles the outputs of its argument: 2^32 outputs from 200 bytes.",
     expression="def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); f65536(f65536(1))",
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-exponential-closures-collected", "evaluate", lim("maxCollectionLen"),
     expression="def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); [f65536(f65536(1))] | length",
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-exponential-closures-counted", "evaluate", lim("maxSteps"),
     expression="def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); reduce f65536(f65536(1)) as $x (0; . + $x)",
     input=None, known={"gojq": GOJQ_HANGS})
case("jq-thousands-of-outputs", "evaluate", lim("maxOutputs"),
     expression=".[] as $a | .[] | [$a, .]", input=list(range(50)))
case("jq-thousands-of-matches", "evaluate", lim("maxOutputs"),
     expression='"a" * 5000 | match("a"; "g") | .offset', input=None)
case("jq-empty-matches-everywhere", "evaluate", lim("maxCollectionLen"),
     note="An empty pattern matches between every two characters of a 2 MiB string; matches are counted as they are found.",
     expression=doubled("xy") + ' | [match(""; "g")] | length', input=None)
case("jq-gsub-everywhere", "evaluate", lim("maxCollectionLen"),
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
     definition={"ref": "busy"}, object=obj({"template": {}, "xs": list(range(40))}))

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

group = {
    "note": (
        "The hostile-input corpus (docs/reliability.md): inputs that have broken engines of this kind, run "
        "by every runtime's runner with default limits unless a case says otherwise. Each ends at once with "
        "a typed error naming the limit or the fault (or, where the input is legal, the correct result): "
        "100k-level nesting, alias bombs, numbers beyond i64/f64, lone surrogates (as escapes: suite.json "
        "cannot hold invalid UTF-8, which engine/tests/source.rs covers), jq that never ends or explodes, "
        "definitions with cycles, huge instance counts and resource totals. Generated by "
        "fuzz/gen_hostile_cases.py: edit that, not this file."
    ),
    "definitions": definitions,
    "cases": cases,
}

out = pathlib.Path(__file__).resolve().parent.parent / "conformance" / "cases" / "hostile.yaml"
text = "# Generated by fuzz/gen_hostile_cases.py; do not edit.\n" + json.dumps(group, indent=1, ensure_ascii=False) + "\n"
out.write_text(text)
print(f"{out}: {len(cases)} cases, {len(text)} bytes", file=sys.stderr)
