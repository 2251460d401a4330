//! Hostile expressions and objects: each must end quickly with a typed error
//! (or a correct result), never a crash. Tests that could overflow the stack
//! run on a thread with a 1 MiB stack, the size of a WASM instance's.

use serde_json::{Value, json};
use workload_lens::{ErrorCode, Limits, evaluate};

fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

fn limit_of(expr: String, input: Value) -> Option<String> {
    small_stack(move || match evaluate(&expr, &input, &Limits::default()) {
        Ok(_) => None,
        Err(e) => {
            assert!(
                matches!(
                    e.code(),
                    ErrorCode::Limit | ErrorCode::JqCompile | ErrorCode::JqRuntime
                ),
                "{e}"
            );
            e.limit().map(str::to_string).or(Some(e.code().to_string()))
        }
    })
}

#[test]
fn deeply_nested_expressions_are_rejected_before_parsing() {
    for expr in [
        "(".repeat(5000) + "1" + &")".repeat(5000),
        "[".repeat(5000) + &"]".repeat(5000),
        "{a:".repeat(3000) + "1" + &"}".repeat(3000),
        "- ".repeat(5000) + "1",
        "if true then ".repeat(2000) + "1" + &" else 0 end".repeat(2000),
        "\"\\(".repeat(3000) + "1" + &")\"".repeat(3000),
        "try ".repeat(4000) + "1",
    ] {
        let got = limit_of(expr.clone(), json!(null));
        assert!(
            matches!(
                got.as_deref(),
                Some("maxExpressionDepth" | "maxExpressionBytes" | "jq_compile")
            ),
            "{}...: {got:?}",
            &expr[..20]
        );
    }
}

#[test]
fn long_flat_expressions_within_the_budget_work() {
    // 240 operators: at the default budget (4 x maxExpressionDepth). Debug
    // builds use several times the stack of release builds, hence 2 MiB here.
    let run = |e: String, input: Value| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || evaluate(&e, &input, &Limits::default()).map(|_| ()))
            .unwrap()
            .join()
            .unwrap()
    };
    run(vec![".a"; 240].join(" | "), json!({})).unwrap();
    run(vec!["1"; 240].join(" + "), json!(null)).unwrap();
    run(
        format!("[{}] | length", vec!["1"; 230].join(", ")),
        json!(null),
    )
    .unwrap();
    run(vec![".x"; 120].join(" // "), json!({})).unwrap();
}

#[test]
fn long_flat_expressions_beyond_the_budget_are_rejected() {
    for e in [
        vec![".a"; 3000].join(" | "),
        vec!["1"; 3000].join(" + "),
        vec!["true"; 400].join(" and "),
    ] {
        assert_eq!(
            limit_of(e, json!({})).as_deref(),
            Some("maxExpressionDepth")
        );
    }
}

#[test]
fn oversized_expressions_are_rejected() {
    let expr = ".a".repeat(20_000);
    assert_eq!(
        limit_of(expr, json!({})).as_deref(),
        Some("maxExpressionBytes")
    );
}

fn deep(n: usize) -> Value {
    let mut v = json!(1);
    for _ in 0..n {
        v = json!([v]);
    }
    v
}

#[test]
fn deep_values_stay_within_the_stack() {
    // Inputs at the depth limit work with the recursive builtins.
    for expr in [
        "tojson | length",
        "flatten | length",
        ". == .",
        "[.] | tostring | length",
        "tojson | fromjson | length",
    ] {
        assert_eq!(limit_of(expr.into(), deep(127)), None, "{expr}");
    }
    // Building deeper values is a limit error.
    assert_eq!(
        limit_of("[[.]]".into(), deep(127)).as_deref(),
        Some("maxDepth")
    );
    assert_eq!(
        limit_of("{a: [.]}".into(), deep(127)).as_deref(),
        Some("maxDepth")
    );
    assert_eq!(
        limit_of("reduce range(0; 1) as $x (.; .)".into(), json!(null)).as_deref(),
        Some("jq_compile")
    );
    let nested = "[".repeat(200) + &"]".repeat(200);
    assert_eq!(
        limit_of(format!("{nested:?} | fromjson"), json!(null)).as_deref(),
        Some("jq_runtime")
    );
}

#[test]
fn runaway_work_is_bounded() {
    let xs: Vec<u32> = (0..2000).collect();
    for (expr, limit) in [
        ("[.[] as $a | .[] as $b | $a] | length", "maxCollectionLen"),
        (
            "reduce (.[] as $a | .[] as $b | 1) as $x (0; . + $x)",
            "maxSteps",
        ),
        (
            "last(limit(100000000; .[] as $a | .[] as $b | .[]))",
            "maxSteps",
        ),
        ("reduce .[] as $x (\"x\"; . + .)", "maxStringBytes"),
        ("reduce .[] as $x ([0]; . + .)", "maxCollectionLen"),
        (
            "reduce .[] as $x (\"ab\"; \"\\(.)\\(.)\")",
            "maxStringBytes",
        ),
        (
            "reduce .[] as $x (\"a\"; [., .] | tojson)",
            "maxStringBytes",
        ),
        ("reduce .[] as $x (3; . * .)", "maxStringBytes"),
        ("[.[] | tostring] | join(\",\") * 100000", "maxStringBytes"),
        ("\"x\" * 1e9", "maxStringBytes"),
        (
            "reduce ([.[:30][] | [1, 2]] | combinations) as $c (0; . + 1)",
            "maxSteps",
        ),
    ] {
        let got = limit_of(expr.into(), json!(xs));
        assert_eq!(got.as_deref(), Some(limit), "{expr}");
    }
}

#[test]
fn many_outputs_are_a_limit_error() {
    let xs: Vec<u32> = (0..5000).collect();
    assert_eq!(
        limit_of(".[]".into(), json!(xs)).as_deref(),
        Some("maxOutputs")
    );
}

#[test]
fn try_cannot_swallow_a_limit() {
    let xs: Vec<u32> = (0..2000).collect();
    let got = limit_of(
        "try ([.[] as $a | .[] as $b | 1] | length) catch 0".into(),
        json!(xs),
    );
    assert_eq!(got.as_deref(), Some("maxCollectionLen"));
    let got = limit_of(
        "[.[] | try (\"x\" * 1e12) catch 1] | length".into(),
        json!(xs),
    );
    assert_eq!(got.as_deref(), Some("maxStringBytes"));
}

#[test]
fn shared_structure_cannot_explode() {
    // `d` doubles a value by sharing: 60 doublings are 2^60 nodes when
    // walked. Every walk (comparison, sorting, printing, arithmetic errors,
    // set difference) must be metered or bounded.
    let d60 = vec!["d"; 60].join(" | ");
    let dag = format!("def d: [., .]; (1 | {d60})");
    for (expr, ok_limits) in [
        (format!("{dag} == ({dag})"), &["maxSteps"][..]),
        (format!("[({dag}), ({dag})] | sort | length"), &["maxSteps"]),
        (
            format!("[({dag}), ({dag})] | unique | length"),
            &["maxSteps"],
        ),
        (format!("{dag} | tostring | length"), &["maxStringBytes"]),
        (format!("{dag} | tojson | length"), &["maxStringBytes"]),
        (format!("({dag}) - ({dag})"), &["maxSteps"]),
        (format!("{dag} | contains({dag})"), &["maxSteps"]),
        (format!("[{dag}] | index([{dag}])"), &["maxSteps"]),
        (
            format!("{dag} | flatten | length"),
            &["maxSteps", "maxCollectionLen"],
        ),
    ] {
        let got = limit_of(expr.clone(), json!(null));
        assert!(
            got.as_deref().is_some_and(|g| ok_limits.contains(&g)),
            "{}...: {got:?}",
            &expr[..expr.len().min(80)]
        );
    }
    // Type errors on huge values print a bounded preview.
    let e = evaluate(&format!("{dag} | .x"), &json!(null), &Limits::default()).unwrap_err();
    assert!(e.message().len() < 600, "{}", e.message().len());
    let e = evaluate(&format!("({dag}) + 1"), &json!(null), &Limits::default()).unwrap_err();
    assert!(e.message().len() < 600, "{}", e.message().len());
}

#[test]
fn regular_expressions_run_in_linear_time() {
    let s = json!("a".repeat(5000) + "!");
    for expr in [
        "test(\"(a*)*b\")",
        "test(\"(a|aa)+$\")",
        "[match(\"(a?){30}a{30}\")] | length",
    ] {
        assert_eq!(limit_of(expr.into(), s.clone()), None, "{expr}");
    }
}

#[test]
fn raised_limits_keep_the_stack_safe() {
    // Whatever the caller sets, nesting is capped at HARD_MAX_DEPTH.
    let limits = Limits {
        max_depth: 10_000_000,
        max_expression_depth: 1_000_000,
        ..Limits::default()
    };
    let text = "[".repeat(100_000) + &"]".repeat(100_000);
    let got = small_stack(move || {
        let docs = workload_lens::parse_documents(&text, &limits);
        docs.map(|_| ()).map_err(|e| e.limit().map(str::to_string))
    });
    assert_eq!(got, Err(Some("maxDepth".to_string())));
    let e = "(".repeat(5000) + "1" + &")".repeat(5000);
    let got = small_stack(move || {
        evaluate(&e, &json!(null), &limits)
            .map(|_| ())
            .map_err(|e| e.limit().map(str::to_string))
    });
    assert_eq!(got, Err(Some("maxExpressionDepth".to_string())));
    assert_eq!(limits.effective().max_depth, workload_lens::HARD_MAX_DEPTH);
}

#[test]
fn split_counts_its_pieces_before_building_them() {
    // Found while writing the hostile corpus: `split/1` built a 2-million
    // element array from a 2 MiB string, past maxCollectionLen.
    let doubled = |s: &str| format!("\"{s}\"{}", " | . + .".repeat(20));
    for sep in ["", "x"] {
        let e = format!("{} | split(\"{sep}\") | length", doubled("xy"));
        assert_eq!(
            limit_of(e, json!(null)).as_deref(),
            Some("maxCollectionLen"),
            "{sep:?}"
        );
    }
    // Within the limit, split keeps its jq meaning.
    let got = evaluate(
        r#"split(","), split(""), ("" | split(","))"#,
        &json!("a,b,"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(
        got,
        vec![
            json!(["a", "b", ""]),
            json!(["a", ",", "b", ","]),
            json!([])
        ]
    );
}

#[test]
fn aliases_cannot_multiply_a_big_scalar() {
    // Found while writing the hostile corpus: 900 aliases of a 20 KB scalar
    // (within maxYamlAliases and maxInputNodes) made 18 MB of strings from
    // 25 KB of text. Expanded scalar bytes count against maxInputBytes.
    let text = format!(
        "x: &x {}\ny: [{}]\n",
        "s".repeat(20_000),
        vec!["*x"; 900].join(", ")
    );
    let e = workload_lens::parse_documents(&text, &Limits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxInputBytes"), "{e}");
    assert_eq!(e.location().line, Some(2), "{e}");
    // Aliases of small scalars and collections are unaffected.
    let ok = format!(
        "x: &x {}\ny: [{}]\n",
        "s".repeat(1000),
        vec!["*x"; 900].join(", ")
    );
    assert!(workload_lens::parse_documents(&ok, &Limits::default()).is_ok());
}

#[test]
fn regex_matches_are_metered_as_they_are_found() {
    // Found while writing the hostile corpus: jaq's regex primitives
    // collected every match of a 2 MiB string (2 million, seconds and
    // hundreds of MB) before a limit could see them.
    let doubled = format!("\"xy\"{}", " | . + .".repeat(20));
    for f in [
        "[match(\"\"; \"g\")] | length",
        "[scan(\".\")] | length",
        "[splits(\"\")] | length",
        "gsub(\"x\"; \"yy\") | length",
    ] {
        // Each match is charged as it is found (and each search before it
        // runs): the call's steps or the collection cap stop it.
        let got = limit_of(format!("{doubled} | {f}"), json!(null));
        assert!(
            matches!(got.as_deref(), Some("maxCollectionLen" | "maxSteps")),
            "{f}: {got:?}"
        );
    }
    // jq's meaning is kept: character offsets, captures that did not take
    // part are left out, flags.
    let got = evaluate(
        r#"[match("(?<a>é)(b)?(c)"; "g") | [.offset, (.captures | map(.offset))]], [splits(", *")], gsub("(?<l>[a-z])"; "<\(.l)>"), test("B"; "i")"#,
        &json!("aébc, éc"),
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(
        got,
        vec![
            json!([[1, [1, 2, 3]], [6, [6, 7]]]),
            json!(["aébc", "éc"]),
            json!("<a>é<b><c>, é<c>"),
            json!(true)
        ]
    );
}

#[test]
fn long_path_chains_are_bounded() {
    // Found by the jq fuzz target: `.a.a.a...` (4,000 steps, 8 KB, within
    // maxExpressionBytes) overflowed a 1 MiB stack: jaq compiles and runs
    // each chained step one frame deeper. Chains count against
    // maxExpressionDepth (4 x the nesting limit, as operators do).
    for (step, n) in [
        (".a", 4000),
        (".a?", 3000),
        (".[0]", 3000),
        (".\"a\"", 2000),
    ] {
        assert_eq!(
            limit_of(step.repeat(n), json!({})).as_deref(),
            Some("maxExpressionDepth"),
            "{step} x {n}"
        );
    }
    // At the hard ceiling (raised limits), the longest chain allowed still
    // runs (release builds: measured to fit 1,000 steps in 1 MiB; debug
    // builds use several times more stack, hence 8 MiB here).
    let limits = Limits {
        max_expression_depth: usize::MAX,
        ..Limits::default()
    };
    let e = ".a".repeat(4 * workload_lens::HARD_MAX_EXPRESSION_DEPTH);
    let got = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || evaluate(&e, &json!({}), &limits).map(|v| v.len()))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(got, Ok(1));
    // Ordinary expressions are unaffected: decimals are not path steps.
    let floats = format!("[{}] | length", vec!["1.5"; 60].join(", "));
    assert_eq!(limit_of(floats, json!(null)), None);
}

#[test]
fn control_flow_is_metered() {
    // Found by timing the hostile corpus: 2^32 outputs of nested closures
    // (`def f2(g): g, g`, 32 calls per output) spent ~30 unmetered calls per
    // step, so a full step budget took seconds. Every clone of a value
    // passed on (comma, closure call, binding) now costs a step.
    let e = "def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); \
             def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); \
             reduce f65536(f65536(1)) as $x (0; . + $x)";
    let limits = Limits {
        max_steps: 100_000,
        ..Limits::default()
    };
    let err = evaluate(e, &json!(null), &limits).unwrap_err();
    assert_eq!(err.limit(), Some("maxSteps"));
    // Ordinary work fits the budget with room to spare.
    let xs: Vec<u32> = (0..1000).collect();
    let got = evaluate(
        "[.[] | {a: ., b: [., .]} | select(.a % 2 == 0) | .b[0]] | add",
        &json!(xs),
        &Limits {
            max_steps: 100_000,
            ..Limits::default()
        },
    )
    .unwrap();
    assert_eq!(got, vec![json!(249500)]);
}

#[test]
fn object_key_errors_preview_the_key() {
    // Found by the jq fuzz target: a non-string object key that is a huge
    // shared structure was printed whole into the error message (33 MB,
    // over a second) before the string limit stopped it.
    let d24 = vec!["d"; 24].join(" | ");
    let e = evaluate(
        &format!("def d: [., .]; 1 | {d24} | {{(.): 1}}"),
        &json!(null),
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(e.code(), ErrorCode::JqRuntime, "{e}");
    assert!(e.message().len() < 600, "{}", e.message().len());
}

/// Definitions that use their closure argument several times, applied to
/// themselves, grow exponentially without a metered operation between
/// evaluations (fuzz/open/jq-closure-expansion, found by the `jq` fuzz
/// target): refused before running, as a `maxSteps` limit, at 10x past the
/// point where the growth passes the budget; the same shape that stays
/// within the budget runs.
#[test]
fn closure_expansion_is_bounded_before_running() {
    let levels = |n: usize, body: &str, arg: &str| {
        let mut defs = format!("def f1(g): {body}; ");
        for i in 2..=n {
            defs.push_str(&format!("def f{i}(g): f{}(f{}(g)); ", i - 1, i - 1));
        }
        format!("{defs}[f{n}({arg})] | length")
    };
    let start = std::time::Instant::now();
    // The fuzzer's input: 2^32 evaluations of `1`.
    let found = "def f2(g): g, g; def f4(g): f2(f2(g)); def f16(g): f4(f4(g)); \
                 def f256(g): f16(f16(g)); def f65536(g): f256(f256(g)); \
                 reduce f65536(f65536(1)) as $x (0; @htmld)";
    for expr in [
        found.to_string(),
        levels(6, "g, g", "1"),
        levels(60, "g - g", "1"),
        levels(250, "[g, g]", "."),
    ] {
        let e = evaluate(&expr, &json!(null), &Limits::default()).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Limit, "{expr}: {}", e.message());
        assert!(e.message().contains("maxSteps"), "{}", e.message());
    }
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    // 2^4 evaluations: well within the budget, and right.
    let v = evaluate(&levels(3, "g, g", "1"), &json!(null), &Limits::default()).unwrap();
    assert_eq!(v, vec![json!(16)]);
}
