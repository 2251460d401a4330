//! The fast path against jaq: the expressions it takes, and the same
//! outputs and errors as jaq gives on generated inputs.

use crate::Limits;
use crate::budget::Call;
use crate::jq::fast::Fast;
use crate::jq::{EvalError, ExprMode, Input, Program, with_fast_path};
use proptest::prelude::*;
use serde_json::{Value, json};

fn keys(code: &str) -> Option<Vec<String>> {
    Fast::classify(code).map(|f| f.keys().to_vec())
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
        "(.a)",
        ".a.b | ascii_downcase",
        "@base64",
        "1",
        "\"a\"",
    ] {
        assert_eq!(keys(other), None, "{other}");
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
        assert!(
            matches!(
                too_large,
                Err(EvalError::Limit {
                    limit: "maxOutputBytes",
                    ..
                })
            ),
            "{too_large:?}"
        );
        drop(_call);
        // Two outputs of 602 bytes each in one call: the second is over.
        let _call = Call::enter(&limits);
        assert!(with_fast_path(fast, || b.run(&input, &limits)).is_ok());
        let second = with_fast_path(fast, || b.run(&input, &limits));
        assert!(
            matches!(
                second,
                Err(EvalError::Limit {
                    limit: "maxOutputBytes",
                    ..
                })
            ),
            "{fast}: {second:?}"
        );
    }
}

const KEYS: [&str; 6] = ["a", "b", "app.kubernetes.io/name", "q\"t", "", "é"];

fn key() -> impl Strategy<Value = String> {
    proptest::sample::select(&KEYS[..]).prop_map(str::to_string)
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
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            1 => proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::from),
            4 => proptest::collection::btree_map(key(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

    /// Every generated plain path takes the fast path, and gives what jaq
    /// gives: the same outputs (numbers and key order included) or the same
    /// error.
    #[test]
    fn the_fast_path_agrees_with_jaq(steps in proptest::collection::vec(step(), 1..5), v in value()) {
        let code = steps.concat();
        prop_assert!(Fast::classify(&code).is_some(), "{}", code);
        prop_assert_eq!(run(&code, &v, true), run(&code, &v, false), "{}", code);
    }
}
