use super::*;
use crate::Limits;
use serde_json::Value;
use serde_json::json;

fn eval(code: &str, input: Value) -> Result<Vec<Value>, String> {
    let limits = Limits::default();
    let p = Program::compile(code, ExprMode::Read, &[], &limits).map_err(|e| format!("{e:?}"))?;
    let input = Input::new(&input, &limits).map_err(|e| format!("{e:?}"))?;
    p.run(&input, &limits).map_err(|e| format!("{e:?}"))
}

#[test]
fn basic_paths() {
    assert_eq!(
        eval(".a.b", json!({"a": {"b": 3}})).unwrap(),
        vec![json!(3)]
    );
    assert_eq!(eval(".missing", json!({})).unwrap(), vec![json!(null)]);
    assert!(eval(".missing[]", json!({})).is_err());
    assert_eq!(eval(".missing[]?", json!({})).unwrap(), Vec::<Value>::new());
}

#[test]
fn sorted_keys() {
    assert_eq!(
        eval("to_entries[] | .key", json!({"b": 1, "a": 2})).unwrap(),
        vec![json!("a"), json!("b")]
    );
    assert_eq!(
        eval("{b: 1, a: 2} | keys_unsorted", json!(null)).unwrap(),
        vec![json!(["a", "b"])]
    );
    assert_eq!(
        eval("{b: 1, a: 2} | tostring", json!(null)).unwrap(),
        vec![json!("{\"a\":2,\"b\":1}")]
    );
}

/// Objects keep the input's key order (updates write them back as they
/// were); jq sees their keys sorted on either path.
#[test]
fn unsorted_input_objects_are_seen_sorted() {
    let input = json!({"b": {"y": 1, "x": 2}, "a": 3, "c": [{"q": 1, "p": 2}]});
    let cases = [
        (".[] | type", json!(["number", "object", "array"])),
        ("keys_unsorted", json!([["a", "b", "c"]])),
        ("[to_entries[] | .key]", json!([["a", "b", "c"]])),
        ("[.b | to_entries[] | .value]", json!([[2, 1]])),
        ("[.b[]]", json!([[2, 1]])),
        (".b | tostring", json!(["{\"x\":2,\"y\":1}"])),
        (".c[0] | tojson", json!(["{\"p\":2,\"q\":1}"])),
        (
            ".b | map_values(. + 1) | tostring",
            json!(["{\"x\":3,\"y\":2}"]),
        ),
        (
            "[.b | with_entries(.) | keys_unsorted[]]",
            json!([["x", "y"]]),
        ),
        ("[.[] | numbers]", json!([[3]])),
    ];
    for fast in [true, false] {
        let before = set_fast_path(fast);
        for (code, want) in &cases {
            let got = eval(code, input.clone()).unwrap();
            assert_eq!(&Value::Array(got), want, "{code} (fast path {fast})");
        }
        set_fast_path(before);
    }
}

#[test]
fn tostring_numbers() {
    assert_eq!(
        eval("1.0 | tostring", json!(null)).unwrap(),
        vec![json!("1")]
    );
    assert_eq!(
        eval(". | tostring", json!(2.5)).unwrap(),
        vec![json!("2.5")]
    );
    assert_eq!(eval("\"\\(.)\"", json!(3.0)).unwrap(), vec![json!("3")]);
}

#[test]
fn deny_list() {
    for e in [
        "range(10)",
        "(range(10))",
        "[..]",
        "{a: del(.x)}",
        ".a = 1",
        "def f: f; f",
        "env",
        "until(true; .)",
    ] {
        let limits = Limits::default();
        let r = Program::compile(e, ExprMode::Read, &[], &limits);
        assert!(r.is_err(), "{e} should be denied");
    }
}

#[test]
fn limits_trip() {
    let limits = Limits::default();
    let p = Program::compile("\"x\" * 1e9", ExprMode::Read, &[], &limits).unwrap();
    let i = Input::new(&json!(null), &limits).unwrap();
    let e = p.run(&i, &limits).unwrap_err();
    assert!(
        matches!(
            e,
            EvalError::Limit {
                limit: "maxStringBytes",
                ..
            }
        ),
        "{e:?}"
    );
    let p = Program::compile(
        "[.[] as $a | .[] as $b | .[] as $c | 1] | length",
        ExprMode::Read,
        &[],
        &limits,
    )
    .unwrap();
    let v = json!((0..200).collect::<Vec<_>>());
    let i = Input::new(&v, &limits).unwrap();
    let e = p.run(&i, &limits).unwrap_err();
    assert!(
        matches!(
            e,
            EvalError::Limit {
                limit: "maxSteps" | "maxCollectionLen",
                ..
            }
        ),
        "{e:?}"
    );
}

/// `code` built against only what it can reach (the fast compile) and
/// against the whole library: `None` when the narrowed build fails.
fn narrowed_and_full(code: &str) -> (Option<Program>, Option<Program>) {
    let (defs, want) = program::reachable_prelude(code);
    let program = |f| Program::without_fast(code, f);
    let narrowed = Program::build(code, &[], defs, natives::funs_named(&want)).ok();
    let full = Program::build(code, &[], program::prelude().clone(), natives::funs()).ok();
    (narrowed.map(program), full.map(program))
}

#[test]
fn the_reachable_prelude_is_enough() {
    // Compiling against only the reachable standard definitions and natives
    // must not need the fallback for ordinary expressions (it would still
    // be correct, only slower), and must mean the same: the same outputs
    // and errors as the build against the whole library.
    let mut codes: Vec<String> = [
        "map(.a) | add",
        ".xs | to_entries | from_entries",
        "with_entries(.value += 1) | keys",
        "[.[] | select(type == \"string\")] | join(\",\") | ascii_downcase",
        "@base64d, @csv, @sh, test(\"a\"; \"i\"), [splits(\",\")], sub(\"a\"; \"b\")",
        "first(.[]), last, nth(1), limit(2; .[]), any, all, flatten, min_by(.x), unique_by(.x), group_by(.x)",
        "tostring, tojson, fromjson?, tonumber?, ltrimstr(\"x\"), todate?, isvalid(1)?",
        "in({}), inside([]), index(\",\"), rindex(\",\"), transpose?, combinations?, getpath([\"a\"]), paths?",
        "[.[] | numbers] | length, (.. | strings), (.a |= . + 1)?, del(.a), to_entries?, @text, @json, @html",
        "reduce .[] as $x (0; . + 1), [foreach .[] as $x (0; . + 1)], [range(3)], splits(\"a\")?, ascii, @uri",
        "limit(-1; .[]), first, input_line_number?, $__loc__, getpath([\"a\",\"b\"]), env.HOME?, now | type",
    ]
    .map(str::to_string)
    .to_vec();
    // Every expression of the reference catalog, when present beside the
    // repository.
    let reference = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/reference/catalog-expressions.txt");
    if let Ok(text) = std::fs::read_to_string(&reference) {
        codes.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_string),
        );
    }
    let limits = Limits::default();
    let inputs = [
        json!(null),
        json!({"a": 1, "xs": {"k": 2}, "spec": {"replicas": 3}}),
        json!([1, "a,b", {"x": 2}, [3]]),
        json!("text"),
    ];
    let mut narrowed_failures = Vec::new();
    for code in &codes {
        let (defs, _) = program::reachable_prelude(code);
        assert!(
            defs.len() < program::prelude().len() / 2,
            "{code}: {}",
            defs.len()
        );
        match narrowed_and_full(code) {
            (Some(narrowed), Some(full)) => {
                for input in &inputs {
                    let input = Input::new(input, &limits).unwrap();
                    let a = narrowed.run(&input, &limits).map_err(|e| format!("{e:?}"));
                    let b = full.run(&input, &limits).map_err(|e| format!("{e:?}"));
                    assert_eq!(a, b, "{code}");
                }
            }
            (Some(_), None) => panic!("{code}: only the narrowed build compiles"),
            (None, Some(_)) => narrowed_failures.push(code.clone()),
            (None, None) => {} // unknown builtins fail in both builds alike
        }
    }
    assert!(
        narrowed_failures.is_empty(),
        "needs the fallback: {narrowed_failures:?}"
    );
}

/// Member lookup scans small objects and hashes large ones
/// (`budget::member`): both give jaq's answer, first and last members,
/// missing keys included.
#[test]
fn member_lookup_in_small_and_large_objects() {
    for n in [
        1usize,
        3,
        crate::budget::SCAN_MEMBERS,
        crate::budget::SCAN_MEMBERS + 1,
        2 * crate::budget::SCAN_MEMBERS + 8,
    ] {
        // Inserted in reverse, so that the objects are not sorted either;
        // the last member's key is longer than a scan takes
        // (`SCAN_KEY_BYTES`), and so is a missing key of that length.
        let long = "x".repeat(crate::budget::SCAN_KEY_BYTES);
        let obj: serde_json::Map<String, Value> = (0..n)
            .rev()
            .map(|i| (format!("k{i}"), json!(i)))
            .chain([(format!("{long}1"), json!("long"))])
            .collect();
        let input = json!({ "o": obj });
        for (code, want) in [
            (".o.k0".to_string(), json!(0)),
            (format!(".o.k{}", n - 1), json!(n - 1)),
            (".o.missing".to_string(), json!(null)),
            (format!(".o[\"{long}1\"]"), json!("long")),
            (format!(".o[\"{long}2\"]"), json!(null)),
        ] {
            for fast in [true, false] {
                let before = set_fast_path(fast);
                let got = eval(&code, input.clone()).unwrap();
                set_fast_path(before);
                assert_eq!(
                    got,
                    vec![want.clone()],
                    "{code} on {n} members (fast {fast})"
                );
            }
        }
    }
}
