//! The fast path against jaq: the expressions it takes, and the same
//! outputs and errors as jaq gives on generated inputs.

use crate::Limits;
use crate::budget::Call;
use crate::jq::fast::Fast;
use crate::jq::{EvalError, ExprMode, Input, Program, with_fast_path};
use proptest::prelude::*;
use serde_json::{Value, json};

fn keys(code: &str) -> Option<Vec<String>> {
    Fast::classify(code).and_then(|f| f.keys().map(<[String]>::to_vec))
}

#[test]
fn plain_paths_of_object_keys_take_the_fast_path() {
    let k = |ks: &[&str]| Some(ks.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(keys(".a"), k(&["a"]));
    assert_eq!(keys(" .spec.template "), k(&["spec", "template"]));
    assert_eq!(
        keys(".metadata.labels.role"),
        k(&["metadata", "labels", "role"])
    );
    assert_eq!(
        keys(r#".metadata.labels["training.kubeflow.org/job-name"]"#),
        k(&["metadata", "labels", "training.kubeflow.org/job-name"])
    );
    assert_eq!(keys(r#"."a-b".c"#), k(&["a-b", "c"]));
    assert_eq!(keys(r#".a?.b?"#), k(&["a", "b"]));
    assert_eq!(keys(r#".["x"]["y"]"#), k(&["x", "y"]));
    assert_eq!(keys(r#"."q\"u\u00e9""#), k(&["q\"u\u{e9}"]));
    assert_eq!(keys("(.a)"), k(&["a"]));
    for other in [
        ".",
        "..",
        ".a | .b",
        ".a // 1",
        ".a == \"x\"",
        ".[0]",
        ".a[0]",
        ".[]",
        ".a[]",
        ".a[1:]",
        r#"."\(.x)""#,
        ".a, .b",
        "$__loc__",
        ".a.b | ascii_downcase",
        "@base64",
        "1",
        "\"a\"",
    ] {
        assert_eq!(keys(other), None, "{other}");
    }
}

#[test]
fn the_subset_is_what_definitions_mostly_are() {
    for code in [
        ".a // 1",
        "(.status.active // 0) > 0 and (.status.ready // 0) == 0",
        "(.spec.suspend // false) != true and (.status.lastScheduleTime == null)",
        ".a | not",
        "-1",
        "1.5e3",
        "\"x\"",
        "null",
        "true",
        ".a != .b",
        ".a.b == \"x\" or .c",
        ".metadata.labels[\"a/b\"] // \"none\"",
        ".a + 1",
        "if .a then 1 else 2 end",
        "if .a == null then 0 elif .b then .b.c else (.d // 1) * 2 end",
        "if .a then .b end",
        ".spec.prefill | if . == null or .worker == null then null else (.template // {}) end",
        ".a // []",
        ".",
        ".spec.replicatedJobs[].name",
        ".spec.services[] | (.replicas // 1) * (.template.spec.parallelism // 1)",
        ".[] | .a",
        ".a[]?.b",
        "not",
        ".a | length",
        ".a | not | not",
        "any(.a)",
        "[.a]",
        ".a as $x | $x",
        "[1]",
        ".a[0] == 1",
        ".a[-1].b",
        "[.status.conditions // [] | .[] | select(.status == \"True\")] | length == 0",
        "(.status.replicatedJobsStatus // []) | all((.ready // 0) == 0)",
        "any(.a[]; . > 1)",
        "all(.a.b[]; .c)",
        "map(.a) | add",
        "[.a, .b] | max",
        "[.a, .b] | min",
        ".a | first, last",
        "(.spec.components // {}) as $c | $c.dataNode.replicas // 1",
        ".a | type",
        ".a | ascii_downcase",
        ".a | ascii_upcase",
        ".a | floor",
        ".a | ceil",
        ".a | tonumber",
        "empty",
        ".a, .b",
        "def c($t): [.[] | select(.type == $t)] | last // {}; c(\"A\").status == c(\"B\").status",
        "def f($a; $b): $a + $b; def g: f(1; 2); g * f(.x; 3)",
        "def f: def g: 3; g * 2; f",
        ". as $x | def f($y): $y + 1; f($x)",
        ". as $x | def f: $x; f",
        ".a | ltrimstr(\"x\") | rtrimstr(\"y\")",
        ".a | startswith(\"x\") and endswith(\"y\")",
        ".metadata.name | split(\"-\") | last",
        ".a | tostring",
        "{a: .a, \"b\": 1, (.k): 2}",
        ". as $x | {$x: 3}",
        ". as $x | {$x, a}",
        ".spec.services | to_entries[] | .key",
        "to_entries | from_entries",
        "with_entries(select(.value != null))",
        ".resources | map_values(. as $i | {cpu: $i.cpu} + ($i.custom // {}))",
        "{name: \"node\"} + ({command: .c, args: .a} | with_entries(select(.value != null)))",
        "\"\\(.a)\"",
        "\"x\\(.a)-\\(.b | length)Mi\"",
        ".a[.b]",
        ".a[1.5]",
        ".a[.b].c[0][\"x\" + .d]",
        "{\"\": 1, \"m\": 2}[.u // \"m\"]",
        ".a | capture(\"^(?<n>[0-9]+)(?<u>[a-z]*)$\")",
        ".a | capture(.re; \"x\")",
        ".a | test(\"^x\")",
        ".a | test(\"X\"; \"i\")",
        ".a | sub(\"x\"; \"y\")",
        ".a | sub(\"x\"; \"y\"; \"g\")",
        ".a | gsub(\"\\\\([0-9]+\\\\)$\"; \"\")",
        ".a | gsub(.re; \"\"; \"i\")",
        "{\"\": 1, \"b\": (1 / 1048576), \"g\": 1024}[.u]",
        "-.a",
        "try .a",
        ".a | tonumber? // null",
        "try (.a | fromjson) catch 0",
        "[.[] | {t: .a}] | unique | group_by(.t) | map({key: .[0].t, value: length}) | from_entries",
        ".a | sort",
    ] {
        assert!(Fast::classify(code).is_some(), "{code}");
    }
    for code in [
        "{a: .a[]}",
        "{(.a[]): 1}",
        "map_values(.[])",
        "$x",
        "@base64 \"x\"",
        ".a[1:]",
        ".a[.b[]]",
        ".a[][.b]",
        ".a | test(.r[])",
        ".a | match(\"x\")",
        ".a | sub(\"x\"; \"\\(.y)\")",
        ".a | sub(\"x\"; .b)",
        ".a | sub(\"x\"; \"y\"; .f)",
        ".a | sub(.r[]; \"y\")",
        ".a?.b // error(\"x\")",
        "any(.a[]; .[])",
        "any(.a; .)",
        "any(.a[], .b[]; .)",
        "def f: f; f",
        "def f(g): g; f(.)",
        "def length: length + 1; length",
        "def f($a): f($a); f(1)",
        ".a | ltrimstr(.b[])",
        "reduce .[] as $x (0; . + $x)",
        ". as [$a, $b] | $a",
        "first(.[])",
        "limit(1; .[])",
        ".. | .a?",
    ] {
        assert!(Fast::classify(code).is_none(), "{code}");
    }
}

#[test]
fn most_catalog_expressions_take_the_fast_path() {
    // The bundled catalog: every program its definitions compile.
    crate::jq::COMPILED.with(|c| c.set((0, 0)));
    for (file, text) in crate::catalog::FILES {
        crate::CompiledDefinition::all_from_text(
            text,
            Limits::default(),
            crate::definition::Origin::Catalog,
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    }
    let (all, fast) = crate::jq::COMPILED.with(std::cell::Cell::get);
    eprintln!("bundled catalog: {fast} of {all} expressions take the fast path");
    assert!(all > 200 && fast * 100 >= all * 90, "{fast} of {all}");
    // The reference catalog's expressions, when present beside the
    // repository.
    let reference = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference/catalog-expressions.txt");
    if let Ok(text) = std::fs::read_to_string(&reference) {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let fast = lines.iter().filter(|l| Fast::classify(l).is_some()).count();
        eprintln!(
            "reference catalog: {fast} of {} expressions take the fast path",
            lines.len()
        );
        assert!(fast * 100 >= lines.len() * 95, "{fast} of {}", lines.len());
    }
}

/// One run of `code` on `v` with the fast path on or off, in a call of its
/// own with the default limits.
fn run(code: &str, v: &Value, fast: bool) -> Result<Vec<Value>, EvalError> {
    let limits = Limits::default();
    let _call = Call::enter(&limits);
    let program = Program::compile(code, ExprMode::Read, &[], &limits).expect("compiles");
    let input = Input::new(v, &limits)?;
    with_fast_path(fast, || program.run(&input, &limits))
}

#[test]
fn numbers_come_out_as_jaq_gives_them() {
    // jaq's round trip: integral floats print as integers, large integers
    // as floats where jaq keeps them so.
    let v = json!({"a": {"one": 1.0, "half": 0.5, "big": 18446744073709551615u64,
                         "neg": -9007199254740993i64, "e": 1e300, "list": [1.0, {"x": 2.0}]}});
    for code in [
        ".a", ".a.one", ".a.half", ".a.big", ".a.neg", ".a.e", ".a.list",
    ] {
        assert!(Fast::classify(code).is_some(), "{code}");
        assert_eq!(run(code, &v, true), run(code, &v, false), "{code}");
    }
    assert_eq!(run(".a.one", &v, true), Ok(vec![json!(1)]));
}

#[test]
fn what_the_fast_path_cannot_answer_is_jaqs() {
    // Indexing a string, an array or a number: jaq's error, or with `?`
    // jaq's empty output.
    let v = json!({"s": "text", "l": [1], "n": 3, "t": true});
    for code in [".s.x", ".l.x", ".n.x", ".t.x", ".s.x?", ".s?.x", ".l.x?.y"] {
        let fast = run(code, &v, true);
        assert_eq!(fast, run(code, &v, false), "{code}");
    }
    assert!(matches!(run(".s.x", &v, true), Err(EvalError::Runtime(_))));
    assert_eq!(run(".s.x?", &v, true), Ok(vec![]));
}

/// Whether `r` is the limit error of `name`.
fn is_limit(r: &Result<Vec<Value>, EvalError>, name: &str) -> bool {
    matches!(r, Err(EvalError::Limit { limit, .. }) if *limit == name)
}

#[test]
fn the_fast_path_draws_on_the_calls_output_budget() {
    let limits = Limits {
        max_output_bytes: 1000,
        ..Limits::default()
    };
    let v = json!({"a": "x".repeat(2000), "b": "y".repeat(600)});
    for fast in [true, false] {
        let _call = Call::enter(&limits);
        let program = Program::compile(".a", ExprMode::Read, &[], &limits).expect("compiles");
        let b = Program::compile(".b", ExprMode::Read, &[], &limits).expect("compiles");
        let input = Input::new(&v, &limits).expect("input");
        let too_large = with_fast_path(fast, || program.run(&input, &limits));
        assert!(is_limit(&too_large, "maxOutputBytes"), "{too_large:?}");
        drop(_call);
        // Two outputs of 602 bytes each in one call: the second is over.
        let _call = Call::enter(&limits);
        assert!(with_fast_path(fast, || b.run(&input, &limits)).is_ok());
        let second = with_fast_path(fast, || b.run(&input, &limits));
        assert!(is_limit(&second, "maxOutputBytes"), "{fast}: {second:?}");
    }
}

const KEYS: [&str; 6] = ["a", "b", "app.kubernetes.io/name", "q\"t", "", "é"];

/// Mostly `a` and `b`, so that generated paths often find what they name.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("a".to_string()),
        2 => Just("b".to_string()),
        2 => proptest::sample::select(&KEYS[..]).prop_map(str::to_string),
    ]
}

/// Kubernetes-like values whose keys the generated paths use.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![
            Just(1.0),
            Just(-0.0),
            Just(2.5e-7),
            Just(1e300),
            Just(4.0e15)
        ]
        .prop_map(Value::from),
        "[a-z\"é ]{0,6}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            1 => proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            4 => proptest::collection::btree_map(key(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A step of a path that may iterate (`[]`, `[]?`).
fn any_step() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => step(),
        1 => any::<bool>().prop_map(|opt| if opt { "[]?" } else { "[]" }.to_string()),
    ]
}

/// A step of a plain path written in one of jq's forms, sometimes with `?`.
fn step() -> impl Strategy<Value = String> {
    (key(), 0..3u8, any::<bool>()).prop_map(|(k, form, opt)| {
        let quoted = serde_json::to_string(&k).expect("a string");
        let simple = !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let s = match form {
            0 if simple => format!(".{k}"),
            1 => format!(".{quoted}"),
            _ => format!(".[{quoted}]"),
        };
        if opt { format!("{s}?") } else { s }
    })
}

/// An expression of the subset, written as jq text, parenthesised where it
/// nests. It may use `$v`, which [`bound`] binds around it.
fn expr() -> impl Strategy<Value = String> {
    let lit = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        Just("0".to_string()),
        Just("1".to_string()),
        Just("-1".to_string()),
        Just("1.0".to_string()),
        Just("2.5".to_string()),
        Just("18446744073709551616".to_string()),
        Just("\"\"".to_string()),
        Just("\"a\"".to_string()),
        Just("\"é\"".to_string()),
        Just("\"Ab1\"".to_string()),
        Just("\"12\"".to_string()),
        Just("\"[1, {}]\"".to_string()),
        Just("\"1e3\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just(".".to_string()),
        Just("empty".to_string()),
    ];
    let fun = proptest::sample::select(
        &[
            "length",
            "add",
            "max",
            "min",
            "type",
            "ascii_downcase",
            "ascii_upcase",
            "floor",
            "ceil",
            "tonumber",
            "first",
            "last",
            "tostring",
            "ltrimstr(\"a\")",
            "rtrimstr(\"a\")",
            "startswith(\"a\")",
            "endswith(\"\")",
            "split(\"a\")",
            "split(\"\")",
            "to_entries",
            "from_entries",
            "with_entries(.)",
            "with_entries(select(.value))",
            "map_values(type)",
            "map_values(length)",
            "any",
            "all",
            "not",
            ".[0]",
            ".[-1]",
            ".[1]",
            "test(\"a\")",
            "test(\"\")",
            "test(\"A\"; \"i\")",
            "test(\"a|é\"; \"gx\")",
            "test(\"(\")",
            "capture(\"(?<n>[0-9]+)(?<u>[a-z]*)\")",
            "capture(\"(?<n>a)(?<u>b)?\")",
            "capture(\"(?<x>[a-zé]+)\"; \"g\")",
            "capture(\"(a)(?<y>.)\")",
            "tostring | sub(\"a\"; \"x\")",
            "tostring | sub(\"\"; \"-\")",
            "tostring | gsub(\"a\"; \"\")",
            "tostring | gsub(\"\"; \"é\")",
            "tostring | gsub(\"(?<x>é)|1\"; \"e\"; \"i\")",
            "tostring | sub(\"[a-z]\"; \"\"; \"g\")",
            "sub(\"(\"; \"\")",
            "sub(\"a\"; \"b\"; \"q\")",
            "[.[]?] | sort",
            "[.[]?] | unique",
            "[.[]?] | group_by(.)",
            "[.[]?] | group_by(type)",
            "[.[]?] | group_by(.[0]?)",
            "[.[]?] | group_by(.a?, length)",
            "tostring | fromjson",
            "(tostring | tonumber? // \"n\")",
            "(fromjson? // 0)",
            "fromjson?",
            "tonumber?",
            "(tostring | fromjson? // \"j\")",
            "try length catch \"c\"",
            "(tostring | length | -.)",
        ][..],
    )
    .prop_map(str::to_string);
    let path = (
        prop_oneof![3 => step(), 1 => Just("$v".to_string())],
        proptest::collection::vec(any_step(), 0..3),
    )
        .prop_map(|(first, rest)| first + &rest.concat());
    let leaf = prop_oneof![4 => path, 2 => lit, 1 => fun];
    leaf.prop_recursive(3, 16, 2, |inner| {
        let cmp = proptest::sample::select(&["==", "!=", "<", "<=", ">", ">="][..]);
        let quant = proptest::sample::select(&["any", "all"][..]);
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} // {r})")),
            (inner.clone(), cmp, inner.clone()).prop_map(|(l, op, r)| format!("({l} {op} {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} and {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} or {r})")),
            inner.clone().prop_map(|x| format!("({x} | not)")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} | {r})")),
            (
                inner.clone(),
                proptest::sample::select(&["+", "-", "*", "/", "%"][..]),
                inner.clone()
            )
                .prop_map(|(l, op, r)| format!("({l} {op} {r})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, e)| format!("(if {c} then {t} else {e} end)")),
            (inner.clone(), inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, t, c2, t2)| format!("(if {c} then {t} elif {c2} then {t2} end)")),
            inner.clone().prop_map(|x| format!("[{x}]")),
            inner.clone().prop_map(|x| format!("({x})?")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("(({l})? // {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l}, {r})")),
            inner.clone().prop_map(|x| format!("select({x})")),
            inner.clone().prop_map(|x| format!("map({x})")),
            (quant.clone(), inner.clone()).prop_map(|(q, x)| format!("{q}({x})")),
            (quant, step(), inner.clone()).prop_map(|(q, p, x)| format!("{q}({p}[]; {x})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("({l} as $v | {r})")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("{{a: {l}, \"é\": {r}}}")),
            (inner.clone(), inner.clone()).prop_map(|(k, v)| format!("{{({k}): {v}}}")),
            inner
                .clone()
                .prop_map(|x| format!("({x} as $v | {{$v, a}})")),
            inner.clone().prop_map(|x| format!("with_entries({x})")),
            inner.clone().prop_map(|x| format!("map_values({x})")),
            // A definition with a `$` parameter, called with an argument.
            (inner.clone(), inner.clone(), inner.clone())
                .prop_filter(
                    "a definition in a body reads as recursion",
                    |(body, _, _)| { !body.contains("def ") }
                )
                .prop_map(|(body, arg, rest)| {
                    // Half of the bodies read the parameter, half the
                    // variable bound where the definition is.
                    let body = if arg.len() % 2 == 0 {
                        body.replace("$v", "$p")
                    } else {
                        body
                    };
                    format!("(def f($p): {body}; {rest} | f({arg}))")
                }),
            // Interpolation, and an index the expression computes.
            inner.clone().prop_map(|x| format!("\"<\\({x})>\"")),
            (inner.clone(), inner.clone()).prop_map(|(l, r)| format!("\"\\({l})\\({r})\"")),
            (inner.clone(), inner.clone()).prop_map(|(x, k)| format!("(({x})[({k})])")),
            inner.clone().prop_map(|x| format!("test(({x}))")),
            inner.clone().prop_map(|x| format!("(tostring | sub(({x}); \"z\"))")),
            inner.clone().prop_map(|x| format!("(-({x} | tostring | length))")),
            inner.clone().prop_map(|x| format!("({x})?")),
            inner.clone().prop_map(|x| format!("([.[]?] | group_by({x}))")),
            // A table of constants (built once, when compiled) indexed.
            inner.clone().prop_map(|k| format!(
                "({{\"a\": 1, \"b\": (1 / 3), \"é\": null, \"\": \"s\", \"a\": (2 * 1024), \"c\": true}}[({k}) | tostring])"
            )),
            inner
                .clone()
                .prop_map(|x| format!("capture(\"(?<k>a)|(?<v>b)\"; ({x}))")),
            (inner.clone(), step()).prop_map(|(x, p)| format!("({x}){p}")),
            (inner.clone(), any_step()).prop_map(|(x, p)| format!("({x}){p}")),
        ]
    })
}

/// `code` with `$v` bound (to the input).
fn bound(code: &str) -> String {
    format!(". as $v | {code}")
}

/// Whether the fast path must take `code`: everything generated is in the
/// subset but `any`/`all` whose condition can give many outputs.
fn must_classify(code: &str) -> bool {
    // (and objects and `map_values` whose parts can give many outputs)
    !(code.contains("any(")
        || code.contains("all(")
        || code.contains("{a: ")
        || code.contains("{(")
        || code.contains("map_values(")
        || code.contains(")[(")
        || code.contains("test((")
        || code.contains("sub((")
        || code.contains("}[(")
        || code.contains("(?<k>a)|(?<v>b)"))
}

/// Arrays and objects of a few numbers (objects keyed so that their sorted
/// order differs from the generated one).
fn numbers() -> impl Strategy<Value = Value> {
    let n = prop_oneof![any::<i32>().prop_map(Value::from), Just(Value::from(1.5))];
    prop_oneof![
        proptest::collection::vec(n.clone(), 1..5).prop_map(Value::from),
        proptest::collection::vec(("[a-e]{1,2}", n), 1..5)
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// Many outputs: iteration order (arrays, objects by sorted key) and
    /// jaq's cartesian order of comparisons and arithmetic, answered by the
    /// fast path (checked) as jaq answers them.
    #[test]
    fn many_outputs_come_in_jaqs_order(v in numbers()) {
        for code in [".[]", "(.[]) - (.[])", "(.[]) < (.[])", "if .[] > 0 then .[] else 0 end",
                     "(.[] > 0) and (.[] < 10)", ".[] // 1", "(.[] | . * 2) % 7"] {
            let limits = Limits::default();
            let _call = Call::enter(&limits);
            let fast = Fast::classify(code).expect("in the subset");
            prop_assert!(fast.run(&v, 64, &limits).is_some(), "{}", code);
            drop(_call);
            prop_assert_eq!(run(code, &v, true), run(code, &v, false), "{}", code);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, .. ProptestConfig::default() })]

    /// Every generated plain path takes the fast path, and gives what jaq
    /// gives: the same outputs (numbers and key order included) or the same
    /// error.
    #[test]
    fn the_fast_path_agrees_with_jaq(steps in proptest::collection::vec(step(), 1..5), v in value()) {
        let code = steps.concat();
        prop_assert!(Fast::classify(&code).is_some(), "{}", code);
        prop_assert_eq!(run(&code, &v, true), run(&code, &v, false), "{}", code);
    }

    /// The same for expressions of the whole subset: alternatives,
    /// comparisons, `and`, `or`, `not` over paths and literals.
    #[test]
    fn the_fast_path_agrees_with_jaq_on_the_subset(code in expr(), v in value()) {
        let code = bound(&code);
        prop_assert!(Fast::classify(&code).is_some() || !must_classify(&code), "{}", code);
        let (fast, slow) = (run(&code, &v, true), run(&code, &v, false));
        // The two spend the budget differently (the fast path evaluates a
        // binary operator's right side first, as gojq does, and jaq skips
        // it when the left side is empty: `.a? + ("a" * 4194305)`), so a
        // limit met by one only is not a disagreement (as in fuzz/jq).
        let limit = |r: &Result<Vec<Value>, EvalError>| matches!(r, Err(EvalError::Limit { .. }));
        if !limit(&fast) && !limit(&slow) {
            prop_assert_eq!(fast, slow, "{}", code);
        }
    }
}

/// `v` with every object's keys in reverse order (the generated objects'
/// keys come sorted, as jq orders them; an object of the input need not).
fn reversed(v: &Value) -> Value {
    match v {
        Value::Array(a) => Value::Array(a.iter().map(reversed).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .rev()
                .map(|(k, x)| (k.clone(), reversed(x)))
                .collect(),
        ),
        x => x.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, .. ProptestConfig::default() })]

    /// What the expression makes (objects, collected arrays, entries) is
    /// written as jaq writes it, as text: an object's keys in jq's order,
    /// members of the input among them (whose own keys are not) included.
    /// (Values compare equal whatever their key order, so the other tests
    /// cannot see it.)
    #[test]
    fn made_values_are_written_as_jaq_writes_them(code in expr(), v in value()) {
        let code = format!("[{}]", bound(&code));
        let v = reversed(&v);
        let text = |r: Result<Vec<Value>, EvalError>| r.map(|outs| outs.iter().map(Value::to_string).collect::<Vec<_>>());
        let (fast, slow) = (text(run(&code, &v, true)), text(run(&code, &v, false)));
        let limit = |r: &Result<Vec<String>, EvalError>| matches!(r, Err(EvalError::Limit { .. }));
        if !limit(&fast) && !limit(&slow) {
            prop_assert_eq!(fast, slow, "{}", code);
        }
    }
}

/// The generated expressions are the fast path's to answer often enough
/// for the comparison with jaq to mean something: most are in the subset,
/// and a good share of those are answered without jaq.
#[test]
fn the_generated_expressions_exercise_the_fast_path() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut classified, mut answered, n) = (0, 0, 2000);
    for _ in 0..n {
        let code = bound(&expr().new_tree(&mut runner).expect("a tree").current());
        let v = value().new_tree(&mut runner).expect("a tree").current();
        let Some(fast) = Fast::classify(&code) else {
            continue;
        };
        classified += 1;
        let limits = Limits::default();
        let _call = Call::enter(&limits);
        if fast.run(&v, 64, &limits).is_some() {
            answered += 1;
        }
    }
    assert!(classified * 100 >= n * 80, "{classified} of {n} classified");
    // Many generated expressions are type errors (jaq's to give).
    assert!(
        answered * 100 >= classified * 25,
        "{answered} of {classified} answered"
    );
}

/// The fast path's loops are the call's to pay for, at 10x any size a
/// definition means, and stop where jaq's do: a stream of outputs at
/// maxOutputs (a product of two 100,000-element streams after 1,000 of
/// its outputs), a collection at maxCollectionLen, products whose outputs
/// are consumed inside the expression at maxSteps.
#[test]
fn big_streams_and_products_are_bounded_by_the_call() {
    let v = json!({"a": (0..100_000).collect::<Vec<_>>()});
    let w = json!({"a": (0..2_000).collect::<Vec<_>>()});
    for (code, v, want) in [
        ("(.a[]) * (.a[])", &v, "maxOutputs"),
        ("(.a[] > 0) and (.a[] > 0)", &v, "maxOutputs"),
        ("if .a[] > 0 then .a[] else 0 end", &v, "maxOutputs"),
        (".a[]", &v, "maxOutputs"),
        ("[(.a[]) * (.a[])] | length", &v, "maxCollectionLen"),
        (
            "[.a[] as $x | .a[] as $y | $x] | length",
            &w,
            "maxCollectionLen",
        ),
        (
            "[.a[] as $x | .a[] | select(. == $x)] | length",
            &w,
            "maxSteps",
        ),
        (
            ".a as $a | any($a[]; . as $x | any($a[]; . == $x + 100000))",
            &w,
            "maxSteps",
        ),
    ] {
        let limits = Limits::default();
        let _call = Call::enter(&limits);
        let fast = Fast::classify(code).expect("in the subset");
        let out = fast.run(v, 64, &limits).expect("answered by the fast path");
        assert!(is_limit(&out, want), "{code}: {:?}", out.map(|o| o.len()));
        drop(_call);
        assert_eq!(run(code, v, true), run(code, v, false), "{code}");
    }
}

/// A collection nests one level deeper than what it collects: near
/// maxDepth the fast path leaves it to jaq, which gives the limit error.
#[test]
fn collections_near_max_depth_are_jaqs() {
    let limits = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    let run_with = |code: &str, v: &Value, fast: bool| {
        let _call = Call::enter(&limits);
        let program = Program::compile(code, ExprMode::Read, &[], &limits).expect("compiles");
        let input = Input::new(v, &limits)?;
        with_fast_path(fast, || program.run(&input, &limits))
    };
    let deep = json!({"a": {"b": [1]}});
    for (code, v) in [
        ("[.]", &deep),
        ("[.a]", &deep),
        ("[[.a]]", &deep),
        ("[[{}]]", &json!(1)),
        ("[[[]]]", &json!(null)),
        ("[[[[]]]]", &json!(null)),
        ("map([.])", &json!([[1]])),
        // Counted without the array, and left to jaq as the array is.
        ("[.] | length", &deep),
        ("[.a] | length == 1", &deep),
        ("[[.a]] | length", &deep),
        ("[.a.b[]] | length", &deep),
    ] {
        assert!(Fast::classify(code).is_some(), "{code}");
        let fast = run_with(code, v, true);
        assert_eq!(fast, run_with(code, v, false), "{code}");
    }
    assert!(is_limit(&run_with("[.]", &deep, true), "maxDepth"));
    assert!(is_limit(
        &run_with("[[[[]]]]", &json!(null), true),
        "maxDepth"
    ));
    assert_eq!(run_with("[[.a.b]]", &deep, true), Ok(vec![json!([[[1]]])]));
}

/// `[f] | length` (alone, or compared with a literal) is counted without
/// building the array, and answers as jaq does: the count, each element
/// charged (so the call's limits stop it where they stop `[f]`), errors
/// and `empty` as `[f]` has them.
#[test]
fn collections_only_measured_are_counted() {
    let v = json!({"a": [1, 2, 3, {"b": 1}], "s": "x", "c": [{"status": "True", "type": "Ready"}]});
    for code in [
        "[.a[]] | length",
        "[.a[] | select(type == \"number\" and . > 1)] | length == 2",
        "[.a[]] | length > 1",
        "[.a[]] | length != 4",
        "[.a[]] | length == \"4\"",
        "[.missing[]?] | length",
        "[empty] | length",
        "[.a[], .a[]] | length <= 8",
        "[.c // [] | .[] | select(.status == \"True\" and (.type == \"Ready\" or .type == \"Failed\"))] | length == 0",
        "[.a[]?] | length",
        "([.a[]] | length) + 1",
        "[.a[]] | length | . * 2",
    ] {
        assert_answered_as_jaq(code, &v);
    }
    // An error of `f` is the collection's.
    assert_jaqs_error("[.s[]] | length", &v);
    assert_jaqs_error(
        "[.a[] | ltrimstr(1) | tonumber] | length",
        &json!({"a": ["x"]}),
    );
}

/// `code` is in the subset, the fast path answers it on `v` (no limit, no
/// deferring to jaq), and the answer is jaq's.
#[track_caller]
fn assert_answered_as_jaq(code: &str, v: &Value) {
    let limits = Limits::default();
    let _call = Call::enter(&limits);
    let fast = Fast::classify(code).unwrap_or_else(|| panic!("not in the subset: {code}"));
    let out = fast.run(v, 64, &limits);
    assert!(matches!(out, Some(Ok(_))), "{code}: {out:?}");
    drop(_call);
    assert_eq!(run(code, v, true), run(code, v, false), "{code}");
}

/// Members of values the expression made (`fromjson`, `unique`,
/// `group_by`) are looked up as jaq's indexing looks them up: by a key
/// written in the expression or computed, in objects small enough to be
/// scanned and larger ones, present, missing and multi-byte.
#[test]
fn made_objects_are_indexed_as_jaqs() {
    let big: serde_json::Map<String, Value> =
        (0..40).map(|i| (format!("k{i}"), json!(i))).collect();
    // At the scan's edges: as many members as it scans and one more, and
    // keys as long as it takes and one byte longer.
    let long = "x".repeat(crate::budget::SCAN_KEY_BYTES);
    let edge = |n: usize| -> String {
        let m: serde_json::Map<String, Value> = (0..n - 2)
            .map(|i| (format!("k{i}"), json!(i)))
            .chain([
                (long.clone(), json!("at")),
                (format!("{long}y"), json!("past")),
            ])
            .collect();
        Value::Object(m).to_string()
    };
    let v = json!({
        "s": "{\"b\": {\"c\": [1, 2]}, \"a\": 1, \"é\": 3, \"ab\": 4}",
        "big": Value::Object(big).to_string(),
        "full": edge(crate::budget::SCAN_MEMBERS),
        "over": edge(crate::budget::SCAN_MEMBERS + 1),
        "long": long,
        "k": "a",
        "n": 1,
        "l": [3, 1, 2, 1],
    });
    for code in [
        ".s | fromjson | .a",
        ".s | fromjson | .ab",
        ".s | fromjson | .b.c[1]",
        ".s | fromjson | .missing",
        ".s | fromjson | .[\"é\"]",
        ".s | fromjson | .b.missing.deeper",
        "(.s | fromjson) as $o | $o[.k]",
        "(.s | fromjson) as $o | $o[\"b\"].c[.n]",
        ".big | fromjson | .k0",
        ".big | fromjson | .k39",
        ".big | fromjson | .nope",
        "(.big | fromjson) as $o | $o[\"k\" + (.n | tostring)]",
        "[.l[] | {t: .}] | unique | .[0].t",
        "[.l[] | {t: ., u: {v: .}}] | group_by(.t) | .[1][0].u.v",
        "[.l[] | {t: .}] | unique | .[-1].t",
        "(.full | fromjson) as $o | [$o.k0, $o[.long], $o[.long + \"y\"], $o[.long + \"z\"]]",
        "(.over | fromjson) as $o | [$o.k0, $o[.long], $o[.long + \"y\"], $o[.long + \"z\"]]",
    ] {
        assert_answered_as_jaq(code, &v);
    }
}

/// Made integers (a sum, a count) compare with the input's and literals
/// without jaq's conversion, as jaq compares them: at the edges of a
/// machine integer, against floats, big integers and other types.
#[test]
fn made_integers_compare_as_jaqs() {
    let v = json!({"a": 1, "b": 2, "big": 9223372036854775807i64, "f": 1.0, "neg": -3,
                   "u": 18446744073709551615u64, "l": [1, 2, 3], "s": "1"});
    for code in [
        ".a + .b == 3",
        ".a + .b < .b",
        "(.a + .b) > .neg",
        "length == 8",
        ".l | length >= 3",
        "(.l | length) == .f",
        "(.l | add) != 6",
        "([.l[] | select(. > 1)] | length) < .b",
        ".big + 1 > .big",
        ".big - 1 < .big",
        ".big + 0 == .big",
        ".u > .a + 1",
        ".f + 0 == .a",
        ".a + 0.5 > .a",
        ".a - 3 <= .neg",
        ".a + .b == .s",
        ".a + .b < .s",
        "(.l | length) > null",
        ".l[0] + 1 == .b",
        ".a + .b == (.l | length)",
        "(.l | length) - 3 == 0",
    ] {
        assert_answered_as_jaq(code, &v);
    }
}

/// Made strings (`type`, `tostring`, a case change, an interpolation)
/// compare with the input's and literals by their bytes, without jaq's
/// conversion, as jaq compares them: equality and every order, prefixes,
/// multi-byte characters and the empty string.
#[test]
fn made_strings_compare_as_jaqs() {
    let v = json!({"a": "abc", "b": "abd", "e": "", "u": "é", "n": 1, "l": ["x"]});
    for code in [
        "(.n | type) == \"number\"",
        "(.l | type) != \"array\"",
        "(.a | ascii_upcase) == \"ABC\"",
        "(.a | ascii_upcase) < .a",
        "(.a | tostring) < .b",
        "(.b | tostring) <= .a",
        "(.a | tostring) >= .a",
        "\"\\(.a)d\" > .a",
        "\"\\(.e)\" == .e",
        "(.e | tostring) < .a",
        "(.u | tostring) > .a",
        "(.u | tostring) == \"é\"",
        "(.a | ltrimstr(\"a\")) == \"bc\"",
        "(.a | ltrimstr(\"a\")) > .b",
        "(.n | tostring) == \"1\"",
        "(.n | tostring) < .n",
        "(.n | tostring) > null",
        "(.l | tostring) < .l",
    ] {
        assert_answered_as_jaq(code, &v);
    }
}

/// `code` on `v` is a jq error, the same through the fast path and jaq.
fn assert_jaqs_error(code: &str, v: &Value) {
    let fast = run(code, v, true);
    assert!(
        matches!(fast, Err(EvalError::Runtime(_))),
        "{code}: {fast:?}"
    );
    assert_eq!(fast, run(code, v, false), "{code}");
}

/// Definitions with `$` parameters are inlined: arguments in order, read
/// where the call is (with every output of each, in jq's order), bodies
/// where the definition is; the catalog's helper definitions among them.
#[test]
fn definitions_inline_as_jq_calls_them() {
    let v = json!({"x": 5, "l": [1, 2, 3], "s": "a-b-c",
                   "status": {"conditions": [{"type": "A", "status": "True"},
                                             {"type": "B", "status": "False"},
                                             {"type": "A", "status": "False"}]}});
    for code in [
        "def f($a; $b): $a - $b; f(.x; 3), f(3; .x)",
        "def f($a; $b): [$a, $b]; f(.l[]; .l[] * 10)",
        "def f($a): . as $x | $a + ($x.x); .x as $x | f($x * 2)",
        "def g: .x; def f($a): g + $a; def g: 100; f(1), g",
        "def f($a): def g($b): $a * $b; g($a + 1); f(.l[])",
        "def c($t): [(.status.conditions // [])[] | select(.type == $t)] | last // {}; c(\"A\").status, c(\"B\").status, c(\"C\")",
        "def f($x): $x | split(\"-\") | map(ascii_upcase); f(.s)",
        "def first: 7; first, (.l | last)",
        ".x as $x | def f($a): $x + $a; .l[] as $x | f($x)",
        ".x as $x | def f: def g: $x; . as $x | g; .l as $x | f, $x",
    ] {
        assert_answered_as_jaq(code, &v);
    }
}

/// Objects, entries and `map_values`, answered by the fast path (checked)
/// as jaq builds them: key order, shorthands, later keys winning, gojq's
/// `from_entries` (`key`, `Key`, `name`, `Name`; `value`, `Value`), the
/// catalog's resource shapes.
#[test]
fn objects_and_entries_are_built_as_jaq_builds_them() {
    let v = json!({
        "x": 5, "k": "dyn", "l": [3, 1, 2],
        "js": "{\"b\": 1, \"a\": [2]}", "ja": "[5, 6]",
        "big": {"k09": 9, "k00": 0, "k01": 1, "k02": 2, "k03": 3, "k04": 4, "k05": 5,
                "k06": 6, "k07": 7, "k08": 8, "a": "x", "zz": null},
        "services": {"b": {"replicas": 2}, "a": {"replicas": null}, "c": {}},
        "pairs": [{"key": "z", "value": 1}, {"Key": "y", "Value": 2},
                  {"name": "x", "value": null}, {"Name": "w", "Value": [1]},
                  {"key": false, "name": "v", "value": 3}, {"key": "z", "value": 4},
                  {"Key": "u", "name": "t", "value": 5}],
        "resources": {"requests": {"cpu": "1", "memory": "", "gpu": "2"},
                      "limits": {"cpu": "", "gpu": "2", "gpuType": "example.com/gpu",
                                 "custom": {"example.com/fpga": "1"}}},
    });
    for code in [
        "{a: .x, \"b c\": .l, (.k): 1, x: 2, a: 3}",
        "{(.k): 1, dyn: .l, (.k): {(.k): .x}, z: 0}",
        ". as $x | {$x, x, k}",
        "{(.l[0] | tostring): .l}",
        ".services | to_entries",
        ".services | to_entries[] | .key",
        ".l | to_entries",
        ".pairs | from_entries",
        ".services | with_entries(select(.value.replicas != null))",
        ".services | with_entries({key: (.key + \"-x\"), value: (.value | length)})",
        // jaq's own `with_entries` calls its own `from_entries`, which
        // knows only `key`: ours follows gojq (a fuzz finding).
        ".services | with_entries({Key: (.key | ascii_upcase), value: 1})",
        ".services | with_entries({name: .key, Value: .value})",
        ".services | map_values(.replicas // 1)",
        ".l | map_values(. * 2)",
        ".resources | with_entries(select(.value != null)) | map_values(. as $i | \
         (if ($i.cpu // \"\") != \"\" then {cpu: $i.cpu} else {} end) + \
         (if ($i.memory // \"\") != \"\" then {memory: $i.memory} else {} end) + \
         (if ($i.gpu // \"\") != \"\" then {(if ($i.gpuType // \"\") != \"\" then $i.gpuType else \"nvidia.com/gpu\" end): $i.gpu} else {} end) + \
         ($i.custom // {}))",
        "{name: \"node\"} + ({command: .l, args: .nothing} | with_entries(select(.value != null)))",
        // A made object and an empty one: the first's members, shared.
        "{} + {a: .x, (.k): .l}",
        "{a: .x, (.k): .l} + {}",
        "{} + {}",
        "({} + {b: 1}) + {a: 2} + {}",
        "{} + .services",
        ".services + {}",
        "[{} + {a: .x}, {b: .x} + {}]",
        "{a: 1} + .services.c + ({} | .)",
        ".services.c + {b: .x}",
        // A sum whose left side no other value holds takes the right's
        // members in place: one by one up to eight, merged past that;
        // a left side held elsewhere (a variable) is left as it was.
        "{b: 1} + {a: 2} + {c: 3} + {b: 4} + {a: null, d: .l}",
        "{a: .x} as $x | [$x + {b: 1}, $x, $x + {a: 2}, $x]",
        "{a: .x} as $x | ($x + {a: 2}) as $y | [$y + {c: 3}, $y, $x]",
        "{a: 1, k05: \"left\"} + .big",
        "({zz: 1} + {a: 2}) + ({} + .big) + {k03: \"last\"}",
        ".big + {k00: \"first\"} + .big",
        "{a: 1} + {b: 2} + {a: 3} | [., . + {c: 4}]",
        "{a: 1} | . + . + {b: 2}",
        // `add` of objects sums them as `+` does; of anything else, jaq's.
        "[.services[]] | add",
        "[{a: 1}, {b: .l}, {a: 3}] | add",
        "[.services | to_entries[] | {(.key): .value}] | add",
        "[{a: 1}, null, {b: 2}, .services.b] | add",
        "[null, {a: .x}] | add",
        "[.big, {k00: \"x\"}, .big] | add",
        "[] | add",
        "[.x, 2] | add",
        "[\"a\", .k] | add",
        "[[1], .l] | add",
        "[{a: 1}] | add as $s | [$s + {b: 2}, $s]",
        // An object of the input and an empty one: the input's, borrowed.
        "(.nothing // {}) + .services + (.nothing // {})",
        "[{} + .services, .services + {}, {} + .big + {}] | map(length)",
        "({} + .services) + {d: 1}",
        "({} + .services) as $s | [$s + {a: 0}, $s]",
        "{} + .services | to_entries | map(.key)",
        // Entries hold the input's keys borrowed and an array's indices
        // as they are; each read as jaq reads the entry it builds.
        ".l | to_entries | map(.key)",
        ".l | to_entries[] | .key + 1",
        ".l | to_entries[1] | to_entries",
        ".services | to_entries[0] | to_entries",
        ".services | to_entries[0] | to_entries | from_entries",
        ".services | to_entries[0]",
        ".services | to_entries | map(.key) | add",
        ".services | to_entries[] | [.[]]",
        "[.services | to_entries[] | select(.key != \"a\")] | from_entries",
        "{b: .x, a: .l} | to_entries | from_entries",
        "{b: .x, (.k): .l} | with_entries({key: .key, value: (.value | length)})",
        "[.services | to_entries[] | {key: .key, value: 1}] | from_entries",
        ".js | fromjson | to_entries",
        ".js | fromjson | to_entries | from_entries",
        ".js | fromjson | with_entries(select(.key == \"a\"))",
        ".ja | fromjson | to_entries",
        "[.ja | fromjson | to_entries[] | .key]",
    ] {
        assert_answered_as_jaq(code, &v);
    }
    // An array's entries given back to `from_entries`: numbers are not
    // keys, jaq's error.
    assert_jaqs_error(".l | to_entries | from_entries", &v);
    assert_jaqs_error(".l | with_entries(.)", &v);
    assert_jaqs_error("{} + .l", &v);
    assert_jaqs_error(".l + {}", &v);
    assert_jaqs_error("[{a: 1}, 1] | add", &v);
    assert_jaqs_error("[1, {a: 1}] | add", &v);
    // A key that is not a string: jaq's error.
    for code in ["{a: 1, (.x): 2}", "{(.l): 1}", "{(null): 1, b: 2}"] {
        assert_jaqs_error(code, &v);
    }
}

/// Found by the `jq` fuzzer: collections that share their parts (each
/// level of `def d: [., .]; 1 | d | d | ...` holds the one below twice)
/// are converted once per part, not expanded (which was exponential:
/// out of memory), and end as jaq ends them.
#[test]
fn shared_collections_are_not_expanded() {
    let chain = |n: usize| {
        let mut code = "def d: [., .]; 1".to_string();
        for _ in 0..n {
            code.push_str(" | d");
        }
        code
    };
    let v = json!(null);
    for code in [
        chain(60),
        chain(60) + " | length",
        format!("({}) == ({})", chain(60), chain(59)),
        format!("{} | .[0] | .[1] | length", chain(60)),
        format!("[{}] | length", chain(60)),
        format!("{} | add | length", chain(60)),
        format!("{} | tojson | length", chain(60)),
    ] {
        let fast = run(&code, &v, true);
        let slow = run(&code, &v, false);
        match (&fast, &slow) {
            (Err(EvalError::Limit { .. }), Err(EvalError::Limit { .. })) => {}
            _ => assert_eq!(fast, slow, "{code}"),
        }
    }
    assert_eq!(
        run(&(chain(60) + " | length"), &v, true),
        Ok(vec![json!(2)])
    );
}

/// The whole-collection functions at 10x any object a definition means
/// (100,000 elements, an object of 100,000 keys): each answered by the
/// fast path within the call's budget or stopped by it, as jaq is.
#[test]
fn whole_collection_functions_are_bounded_by_the_call() {
    let v = json!({
        "a": (0..100_000).collect::<Vec<_>>(),
        "o": (0..100_000).map(|i| (format!("k{i}"), json!(i))).collect::<serde_json::Map<_, _>>(),
    });
    for code in [
        ".a | add",
        ".a | max",
        ".a | min",
        ".a | map(. + 1) | length",
        ".a | map_values(. + 1) | length",
        ".o | map_values(. + 1) | length",
        ".o | to_entries | length",
        ".o | to_entries | from_entries | length",
        ".o | with_entries(select(.value % 2 == 0)) | length",
        ".a | any(. < 0)",
        ".a | all(. >= 0)",
        "[.a[] | tostring] | length",
        "[.a[] as $x | .a[] | {($x | tostring): .}] | length",
    ] {
        let limits = Limits::default();
        let _call = Call::enter(&limits);
        let fast = Fast::classify(code).unwrap_or_else(|| panic!("not in the subset: {code}"));
        let out = fast.run(&v, 64, &limits);
        drop(_call);
        assert!(
            !matches!(out, Some(Err(EvalError::Runtime(_)))),
            "{code}: {out:?}"
        );
        let (fast, slow) = (run(code, &v, true), run(code, &v, false));
        match (&fast, &slow) {
            (Err(EvalError::Limit { .. }), Err(EvalError::Limit { .. })) => {}
            // The fast path spends less: it may answer where jaq runs out.
            (Ok(_), Err(EvalError::Limit { .. })) => {}
            _ => assert_eq!(fast, slow, "{code}"),
        }
    }
}

/// Definitions inlined into definitions could grow the fast form
/// exponentially (`def f1: f0 + f0; def f2: f1 + f1; ...`): past a budget
/// in proportion to the expression's length the fast path leaves the
/// expression to jaq, at 30 levels (2^30 copies) as at 3.
#[test]
fn inlining_is_bounded_by_the_expressions_length() {
    let chain = |n: usize| {
        let mut code = "def f0: .;".to_string();
        for i in 1..=n {
            code.push_str(&format!(" def f{i}: f{} + f{};", i - 1, i - 1));
        }
        code + &format!(" f{n}")
    };
    assert!(Fast::classify(&chain(3)).is_some());
    assert!(Fast::classify(&chain(30)).is_none());
    assert_eq!(run(&chain(3), &json!(1), true), Ok(vec![json!(8)]));
}

/// Regexes through the `matches` native, as jaq-std's `test` and
/// `capture` use it: every match, named groups that took part or not,
/// flags, errors of bad patterns and flags, on generated strings.
#[test]
fn regexes_are_jaqs() {
    let v = json!({"m": "12Gi", "s": "ab-abé b", "n": 3, "re": "(?<w>[a-z]+)"});
    for code in [
        ".m | capture(\"^(?<n>[0-9]+)(?<u>[a-z]*)$\")",
        ".m | ascii_downcase | capture(\"^(?<n>[0-9]+)(?<u>[a-z]*)$\") | (.n | tonumber) * ({\"gi\": 1024}[.u])",
        ". as $x | .s | [capture($x.re; \"g\")]",
        ".s | [capture(\"(?<k>a)|(?<v>b)\"; \"g\")]",
        ".s | capture(\"(?<k>a)(?<none>z)?\")",
        ".s | capture(\"(x)(?<y>é)\")",
        ".s | [capture(\"(?<z>q)\")]",
        ".s | test(\"B\"; \"i\"), test(\"B\"), test(\"\")",
        "[.s, .m] | map(test(\"^[0-9]\"))",
    ] {
        assert_answered_as_jaq(code, &v);
    }
    // A bad pattern, bad flags, a number to match: jaq's errors.
    for code in [
        ".s | test(\"(\")",
        ".s | test(\"a\"; \"q\")",
        ".n | test(\"3\")",
    ] {
        assert_jaqs_error(code, &v);
    }
}

/// `x[k]` with `k` computed: strings and integers as written steps, any
/// other key by jaq's own indexing, on generated values and keys.
#[test]
fn computed_indices_are_jaqs() {
    let v = json!({"o": {"a": 1, "b": [10, 20, 30], "é": "x"}, "l": [5, 6, 7],
                   "k": "b", "i": 1, "neg": -1, "f": 1.7, "t": "é"});
    for code in [
        ".o[.k]",
        ".o[.k][.i]",
        ".l[.i]",
        ".l[.neg]",
        ".o[.t]",
        ".o[\"a\" + \"\"]",
        ".l[.i + 1]",
        ".o[.k][.i - 5]",
        ".missing[.k]",
        "{\"\": 1, \"m\": 2, \"gi\": 1024}[.k // \"m\"]",
        ". as $x | $x.o[$x.k][$x.i]",
    ] {
        assert_answered_as_jaq(code, &v);
    }
    for code in [".l[.f]", ".o[.i]", ".l[.k]", ".o[null]", ".l[[6]]"] {
        assert_eq!(run(code, &v, true), run(code, &v, false), "{code}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    #[test]
    fn generated_regexes_and_indices_are_jaqs(
        s in "[ab0-9é -]{0,8}",
        re in proptest::sample::select(&[
            "a", "(?<x>a)", "(?<x>a)|(?<y>b)", "(?<n>[0-9]+)(?<u>[a-z]*)", "^(?<all>.*)$",
            "(?<e>é)?", "", "(?<d>-)(?<a>a)?", "[", "(?<x>A)",
        ][..]),
        flags in proptest::sample::select(&["null", "\"\"", "\"g\"", "\"i\"", "\"gi\"", "\"x\"", "\"n\"", "\"z\""][..]),
        v in value(),
        k in proptest::sample::select(&["0", "1", "-1", "2", "1.5", "\"a\"", "\"b\"", "\"\"", "null", "true", "[0]", "{}"][..]),
    ) {
        let input = json!({"s": s, "v": v});
        for code in [
            format!(".s | [capture({}; {flags})]", serde_json::to_string(re).unwrap()),
            format!(".s | test({}; {flags})", serde_json::to_string(re).unwrap()),
            format!(".v[{k}]"),
            format!(".v[{k}][{k}]"),
        ] {
            prop_assert_eq!(run(&code, &input, true), run(&code, &input, false), "{}", code);
        }
    }
}

/// An array indexed by an array (a search for the key's positions) is
/// charged a step per element compared, and a computed key of that kind
/// on a value of the input is jaq's (the fast path converted the array
/// for each key: its size times the keys). Small, both paths answer
/// alike; at 100,000 elements and 10,000 keys (10x a large object's
/// lists), both stop at maxSteps (jaq ran 3.8 s of uncharged search).
#[test]
fn searching_an_array_by_an_array_is_charged() {
    let input = |n: usize, m: usize| json!({"big": (0..n).collect::<Vec<_>>(), "l": (0..m).collect::<Vec<_>>()});
    let codes = [
        ". as $v | [.l[] | $v.big[[7]]] | length",
        ". as $v | [.l[] | $v.big | .[[7, 8]]] | add | length",
    ];
    // The input's array is not converted for the key: jaq answers.
    let limits = Limits::default();
    let call = Call::enter(&limits);
    let fast = Fast::classify(".big[[7]]").expect("in the subset");
    assert!(fast.run(&input(10, 1), 64, &limits).is_none());
    drop(call);
    for code in codes {
        let v = input(1_000, 100);
        let fast = run(code, &v, true);
        assert!(fast.is_ok(), "{code}: {fast:?}");
        assert_eq!(fast, run(code, &v, false), "{code}");
        let v = input(100_000, 10_000);
        for fast in [true, false] {
            let r = run(code, &v, fast);
            assert!(is_limit(&r, "maxSteps"), "{code} ({fast}): {r:?}");
        }
    }
}

#[test]
fn sub_and_gsub_with_a_string_replace_as_jaq_does() {
    for (code, v) in [
        (
            r#".name | sub("\\([0-9]+\\)$"; "")"#,
            json!({"name": "step(12)"}),
        ),
        (
            r#".name | sub("\\([0-9]+\\)$"; "")"#,
            json!({"name": "step(x)"}),
        ),
        (r#"gsub(""; "-")"#, json!("abc")),
        (r#"gsub("é"; "e")"#, json!("éaé")),
        (r#"sub("A"; "b"; "gi")"#, json!("aAa")),
        (r#"gsub("(?<d>[0-9])"; "_")"#, json!("a1b22")),
        (r#"gsub("a b"; "_"; "x")"#, json!("ab ab")),
        (r#"[.[] | sub("^x"; "")]"#, json!(["xa", "b", "xx"])),
        (r#"sub("$"; "!")"#, json!("")),
    ] {
        assert_answered_as_jaq(code, &v);
    }
    // Not a string, a bad pattern or bad flags: jaq's error.
    for (code, v) in [
        (r#"sub("a"; "b")"#, json!(1)),
        (r#"sub("("; "b")"#, json!("a")),
        (r#"sub("a"; "b"; "q")"#, json!("a")),
    ] {
        assert_jaqs_error(code, &v);
    }
}

#[test]
fn tables_of_constants_are_built_once_as_jaq_builds_them() {
    let code = r#"{"": 1, "b": (1 / 1048576), "k": (1 / 1024), "g": 1024, "g": 2048, "t": (3 * 1048576), "x": -0.5, "y": null}"#;
    let f = Fast::classify(code).unwrap();
    assert!(f.is_constant(), "{code}");
    assert_answered_as_jaq(code, &json!(null));
    for u in ["", "b", "k", "g", "t", "x", "y", "z"] {
        assert_answered_as_jaq(&format!("{code}[.u]"), &json!({ "u": u }));
    }
    // Not a table of scalars: built on every run.
    for code in [r#"{"a": [1]}"#, r#"{"a": .x}"#, r#"{"a": ("x" * 3)}"#] {
        let f = Fast::classify(code).unwrap();
        assert!(!f.is_constant(), "{code}");
    }
}

#[test]
fn grouping_sorting_negation_and_try_answer_as_jaq_does() {
    let mixed = json!([3, "b", null, [1], {"a": 2}, true, 1.5, "a", {"a": 1}, [0, 1], false, 3]);
    for code in [
        "sort",
        "unique",
        "group_by(.)",
        "group_by(type)",
        "group_by(.a?)",
        "group_by(length?)",
        "[.[] | tostring] | group_by(length) | map({key: .[0], value: length}) | from_entries",
        "map(select(type == \"number\") | -.)",
        "[.[] | tostring | tonumber?]",
        "[.[] | try tonumber catch \"x\"] | length",
        "[.[] | select(type == \"string\") | tostring | fromjson?]",
    ] {
        assert_answered_as_jaq_or_its_error(code, &mixed);
    }
    let nodes = json!({"n": [
        {"t": "a", "k": "x(1)"}, {"t": "b", "k": "y"}, {"t": "a", "k": "x(2)"}, {"t": "a", "k": "x(1)"}]});
    assert_answered_as_jaq(
        r#"[.n[] | {t, k: (.k | sub("\\([0-9]+\\)$"; ""))}] | unique | group_by(.t) | map({key: .[0].t, value: length}) | from_entries"#,
        &nodes,
    );
    // An error inside `?` that jaq's native raises as well is caught where
    // it is raised: no output for it, answered by the fast path.
    let code = r#"[.[] | ("1x" | tonumber?)]"#;
    assert_eq!(fast_answer(code, &json!([1])), Some(vec![json!([])]));
    assert_eq!(run(code, &json!([1]), true).unwrap(), vec![json!([])]);
    // Any other error inside `?` (indexing a string) is jaq's to catch:
    // the fast path leaves the expression to jaq.
    let code = r#"[.[] | (.a.b)?]"#;
    assert_eq!(fast_answer(code, &json!(["s"])), None);
    assert_eq!(run(code, &json!(["s"]), true).unwrap(), vec![json!([])]);
}

/// The fast path's own answer to `code` on `v` (`None`: it leaves it to
/// jaq).
fn fast_answer(code: &str, v: &Value) -> Option<Vec<Value>> {
    let limits = Limits::default();
    let _call = Call::enter(&limits);
    let fast = Fast::classify(code).unwrap_or_else(|| panic!("not in the subset: {code}"));
    fast.run(v, 64, &limits).map(|r| r.expect("no limit"))
}

#[test]
fn iterating_with_a_question_mark_drops_only_its_own_error() {
    // A RayCluster without worker groups, a PodCliqueSet without scaling
    // groups: `.spec.workerGroupSpecs[]?` of null is no output, which sent
    // those expressions to jaq before `[]?` was the fast path's.
    let v = json!({"spec": {"head": {}}, "n": null, "s": "text", "i": 3, "t": true,
                   "l": [{"b": 1}, "x", null], "o": {"k": {"b": 2}, "j": [1]}});
    for code in [
        ".spec.workerGroupSpecs[]?.groupName",
        ".spec.workerGroupSpecs[]? | .template",
        ".n[]?",
        ".s[]?",
        ".i[]?",
        ".t[]?",
        ".l[]?",
        ".o[]?",
        "[.l[]?.b?]",
        ".l[]?.b",
        ".o[]?.b",
        "[.[]?[]?]",
        "[.s | length][]?",
        "(.s | ascii_downcase)[]?",
        "[(.l, .o, .n, .s)[]?]",
        "{a: 1}[]?",
        "(.o | to_entries)[]?",
        "(.o | map_values(.b?))[]?",
    ] {
        assert_answered_as_jaq_or_its_error(code, &v);
    }
    for code in [
        ".spec.workerGroupSpecs[]?.groupName",
        "[(.spec.workerGroupSpecs[]? | .replicas // 1)] | add",
        ".n[]?",
        ".s[]?",
        "[(.l, .o, .n, .s)[]?]",
    ] {
        assert!(fast_answer(code, &v).is_some(), "{code}");
    }
    // A later step's error is not the `[]?`'s: `.b` of a string is jaq's.
    assert_eq!(fast_answer(".l[]?.b", &v), None);
}

#[test]
fn errors_of_fromjson_and_tonumber_are_caught_by_try_on_the_fast_path() {
    // Argo's `withParam: '{{steps.list.outputs.result}}'` is not JSON: its
    // replicas expression reads it with `fromjson? // null`, which sent the
    // whole expression to jaq (6x slower) before the fast path caught it.
    let v = json!({"items": ["[1,2]", "{{steps.list.outputs.result}}", "3", "x3", "", "null",
                              "false", "{\"a\": [1]}", 7, null, [1], {"a": "2"}]});
    for code in [
        "[.items[] | fromjson? // null]",
        "[.items[] | (fromjson? // \"n\") | type]",
        "[.items[] | tonumber? // 0]",
        "[.items[] | (tonumber? // null | if . != null and . == floor then . else null end)]",
        "[.items[] | fromjson?]",
        "[.items[] | tonumber?]",
        "[.items[] | (fromjson | length)?]",
        "[.items[] | (fromjson + 1)?]",
        "[.items[] | (1 + fromjson)?]",
        "[.items[] | (if fromjson then 1 else 2 end)?]",
        "[.items[] | (fromjson and true)?]",
        "[.items[] | (false and fromjson)?]",
        "[.items[] | (tonumber | not)?]",
        "[.items[] | ({a: tonumber, b: 1})?]",
        "[.items[] | (tonumber as $n | $n * 2)?]",
        "[.items[] | ((tonumber? // 1) + (fromjson? // 2))]",
        "[.items[] | {n: (tonumber? // 0), j: (fromjson? // {})}]",
        "[.items[] | (fromjson?) as $x | [$x]]",
        "[.items[] | -(tonumber? // 0)]",
        "[.items[] | (tonumber == (1, 2))?]",
        "[.items[] | try tonumber catch \"c\"]",
        "[.items[] | (fromjson | .a)?]",
        "[.items[] | tostring | fromjson? | .a?]",
        "[.items[] | (fromjson? // null) | if type == \"array\" then length else 1 end]",
    ] {
        assert_answered_as_jaq_or_its_error(code, &v);
    }
    // The fast path answers these itself (none leaves the expression to
    // jaq), with or without a string that is not JSON among the items.
    for code in [
        "[.items[] | fromjson? // null]",
        "[.items[] | tonumber? // 0]",
        "[.items[] | {n: (tonumber? // 0), j: (fromjson? // {})}]",
        "[.items[] | fromjson?]",
    ] {
        assert!(fast_answer(code, &v).is_some(), "{code}");
    }
    // A limit is not an error `?` catches.
    let limits = Limits {
        max_depth: 16,
        ..Limits::default()
    };
    let deep = json!([format!("{}{}", "[".repeat(40), "]".repeat(40))]);
    for fast in [true, false] {
        let _call = Call::enter(&limits);
        let program = Program::compile("[.[] | fromjson? // 0]", ExprMode::Read, &[], &limits)
            .expect("compiles");
        let input = Input::new(&deep, &limits).expect("input");
        let r = with_fast_path(fast, || program.run(&input, &limits));
        assert!(is_limit(&r, "maxDepth"), "{fast}: {r:?}");
    }
}

/// The fast path's answer is jaq's, or the fast path leaves it to jaq.
fn assert_answered_as_jaq_or_its_error(code: &str, v: &Value) {
    assert!(Fast::classify(code).is_some(), "not in the subset: {code}");
    assert_eq!(run(code, v, true), run(code, v, false), "{code}");
}

/// `add` of many objects is charged as jaq charges it: each sum into the
/// total (an object only the sum holds) charges the members added, not a
/// copy of the total, so 1,000 one-member objects end within the default
/// steps (charged a copy of the total each, they took about a million more
/// and ended at maxSteps) with jaq's value.
#[test]
fn adding_many_objects_is_charged_as_jaq_charges_it() {
    let items: Vec<Value> = (0..1000)
        .map(|i| json!({"name": format!("n{i:04}"), "v": i}))
        .collect();
    let v = json!({"items": items});
    for code in [
        "[.items[] | {(.name): .v}] | add | length",
        "[.items[] | {(.name): .v}] | add | .n0999",
    ] {
        assert_answered_as_jaq(code, &v);
    }
}

/// A sum with an empty object is written as jaq writes the sum: keys in
/// jq's order, nested objects too (compared as text, where key order shows).
#[test]
fn sums_with_an_empty_object_are_written_in_jqs_key_order() {
    let v: Value = serde_json::from_str(
        r#"{"flat": {"b": 1, "a": "x"}, "sorted": {"a": 1, "b": 2.0},
            "nested": {"a": {"z": 1, "y": 2}}, "empty": {}}"#,
    )
    .expect("JSON");
    for code in [
        "{} + .flat",
        ".flat + {}",
        "[{}, .flat] | add",
        "{} + .sorted",
        ".sorted + {}",
        "{} + .nested",
        ".nested + (.empty // {})",
        "(.missing // {}) + .flat + (.missing // {})",
    ] {
        let text = |fast: bool| {
            run(code, &v, fast).map(|outs| {
                outs.iter()
                    .map(|o| serde_json::to_string(o).expect("text"))
                    .collect::<Vec<_>>()
            })
        };
        assert!(Fast::classify(code).is_some(), "not in the subset: {code}");
        assert_eq!(text(true), text(false), "{code}");
    }
}

/// A sum into a large object only it holds (10,000 members: far more than
/// a definition's objects) puts a few members in place and a larger object
/// by a merge, within the default budgets, with jaq's value.
#[test]
fn sums_into_a_large_object_are_bounded() {
    let big: serde_json::Map<String, Value> = (0..10_000)
        .map(|i| (format!("k{i:05}"), json!(i)))
        .collect();
    let more: serde_json::Map<String, Value> = (0..20)
        .map(|i| (format!("k{:05}", i * 499), json!("new")))
        .collect();
    let v = json!({"big": big, "more": more});
    for code in [
        "(.big + {a0: 0}) + {a: 1} + {zz: 2, k00005: 3} | [length, .k00005, .zz]",
        "(.big + {a0: 0}) + .more | [length, .k00499]",
    ] {
        assert_answered_as_jaq(code, &v);
    }
}
