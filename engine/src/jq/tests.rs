use super::*;
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
    let i = Input::new(&json!((0..200).collect::<Vec<_>>()), &limits).unwrap();
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

#[test]
fn the_reachable_prelude_is_enough() {
    // Compiling against only the reachable standard definitions must not
    // need the fallback for ordinary expressions (it would still be
    // correct, only slower).
    for code in [
        "map(.a) | add",
        ".xs | to_entries | from_entries",
        "with_entries(.value += 1) | keys",
        "[.[] | select(type == \"string\")] | join(\",\") | ascii_downcase",
        "@base64d, @csv, @sh, test(\"a\"; \"i\"), [splits(\",\")], sub(\"a\"; \"b\")",
        "first(.[]), last, nth(1), limit(2; .[]), any, all, flatten, min_by(.x), unique_by(.x), group_by(.x)",
        "tostring, tojson, fromjson?, tonumber?, ltrimstr(\"x\"), todate?, isvalid(1)?",
        "in({}), inside([]), index(\",\"), rindex(\",\"), transpose?, combinations?, getpath([\"a\"]), paths?",
    ] {
        let defs = super::reachable_prelude(code);
        assert!(
            defs.len() < super::prelude().len() / 2,
            "{code}: {}",
            defs.len()
        );
        if let Err(e) = super::Program::build(code, &[], defs) {
            // Unknown builtins fail in both builds alike.
            assert!(
                super::Program::build(code, &[], super::prelude().clone()).is_err(),
                "{code}: {e:?}"
            );
        }
    }
}
