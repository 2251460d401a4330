//! Reading JSON text for what resolving reads of it
//! ([`crate::jq::reads`]): the same result, error and charges as resolving
//! the whole object, on every object of the catalog's fixtures, on those
//! objects with parts no expression reads added, and under tight budgets.

use crate::compile::CompiledDefinition;
use crate::jq::fast::Fast;
use crate::jq::reads::{MAX_NODES, MAX_WORK, PathStep, Reads};
use crate::{Engine, Limits};
use proptest::prelude::*;
use serde_json::{Value, json};
use std::sync::Arc;

/// What a resolve gives, as text: the result's JSON or the error's code,
/// message and location.
fn outcome(r: crate::Result<crate::Resolved<'_>>) -> String {
    match r {
        Ok(r) => serde_json::to_string(&r).expect("a result serializes"),
        Err(e) => format!("error {:?}", e),
    }
}

/// Every object of the catalog's fixtures with a definition for it.
fn fixtures(engine: &Engine) -> Vec<(String, Value, Arc<CompiledDefinition>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../definitions/fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("fixtures are there") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        let Ok(objects) = engine.read_objects(&text) else {
            continue;
        };
        for (i, o) in objects.into_iter().enumerate() {
            if let Ok(d) = engine.definition_for(&o) {
                let d = Arc::clone(d);
                out.push((format!("{}#{i}", f.display()), o, d));
            }
        }
    }
    out
}

/// The reads of one expression, finished (`None`: not followed).
fn reads_of(code: &str) -> Option<Reads> {
    let fast = Fast::classify(code)?;
    let mut r = Reads::default();
    let mut b = crate::jq::reads::Bounds::new();
    (fast.reads(&mut r, &mut b) && r.finish(&mut b.nodes)).then_some(r)
}

#[test]
fn the_parts_an_expression_reads() {
    use PathStep::*;
    let r = reads_of(".spec.template").unwrap();
    assert!(
        r.member("spec")
            .unwrap()
            .member("template")
            .unwrap()
            .is_whole()
    );
    assert!(r.member("spec").unwrap().member("replicas").is_none());
    assert!(r.member("status").is_none());
    // Truthiness and `//` keep the value's type only; what is given is
    // whole.
    let r = reads_of("if .spec.suspend then .status.a // 1 else 0 end").unwrap();
    let suspend = r.member("spec").unwrap().member("suspend").unwrap();
    assert!(!suspend.is_whole());
    assert!(r.member("status").unwrap().member("a").unwrap().is_whole());
    // Iterations and indices reach every element; a select reads its
    // condition's operands whole, and gives the element whole.
    let r = reads_of(r#".status.conditions[] | select(.type == "Ready") | .status"#).unwrap();
    let cond = r.member("status").unwrap().member("conditions").unwrap();
    assert!(!cond.array_whole());
    let el = cond.element().unwrap();
    assert!(el.member("type").unwrap().is_whole());
    assert!(el.member("status").unwrap().is_whole());
    assert!(el.member("reason").is_none());
    // Variables carry their paths.
    let r = reads_of("(.spec.components // {}) as $c | $c.dataNode.replicas").unwrap();
    let c = r.member("spec").unwrap().member("components").unwrap();
    assert!(
        c.member("dataNode")
            .unwrap()
            .member("replicas")
            .unwrap()
            .is_whole()
    );
    assert!(c.member("queryNode").is_none());
    // A value put into a made one, or computed with, is read whole.
    for code in [
        "{a: .spec.x}",
        "[.spec.x]",
        ".spec.x + 1",
        ".spec.x | length",
        ".spec.x | tostring",
        ".spec.x | to_entries",
    ] {
        let r = reads_of(code).unwrap();
        assert!(
            r.member("spec").unwrap().member("x").unwrap().is_whole(),
            "{code}"
        );
    }
    // `map_values` keeps every key, each value as `f` reads it.
    let r = reads_of(".spec.m | map_values(.a)").unwrap();
    let m = r.member("spec").unwrap().member("m").unwrap();
    let any = m.member("anything").unwrap();
    assert!(any.member("a").unwrap().is_whole() && any.member("b").is_none());
    // What the analysis cannot follow: none (the input is read whole).
    assert!(reads_of("..").is_none());
    assert!(reads_of("keys").is_none());
    let mut r = Reads::default();
    let n = &mut 100;
    r.read_whole(&[], n);
    r.touch(&[Key("a"), Each, Nth], n);
    r.finish(n);
    assert!(r.is_whole());
}

#[test]
fn most_of_the_catalog_is_read_in_part() {
    let engine = Engine::new().unwrap();
    let defs = engine.definitions();
    let whole: Vec<&str> = defs
        .iter()
        .filter(|d| d.object_reads().is_none())
        .map(|d| d.name())
        .collect();
    // The catalog's analyses take a tenth of their bounds at most, so the
    // hostile test below (past the bounds) is at 10x the size expected.
    for d in &defs {
        let mut b = crate::jq::reads::Bounds::new();
        d.find_reads_within(&mut b);
        let (nodes, work) = (MAX_NODES - b.nodes, MAX_WORK - b.work);
        assert!(nodes * 10 <= MAX_NODES, "{}: {nodes} nodes", d.name());
        assert!(work * 10 <= MAX_WORK, "{}: {work} work", d.name());
    }
    // A Pod's template is the Pod itself (`podTemplateSpecPath: .`); a
    // NIMService's status reads `match`, outside the fast path's subset.
    assert_eq!(
        whole,
        ["apps-nvidia-com-nimservice-v1alpha1", "core-pod-v1"],
        "of {} definitions",
        defs.len()
    );
}

#[test]
fn every_fixture_resolves_from_its_read_part_as_from_the_whole() {
    let engine = Engine::new().unwrap();
    let all = fixtures(&engine);
    assert!(all.len() > 500, "{} fixture objects", all.len());
    let mut partial = 0;
    for (name, obj, d) in &all {
        let whole = outcome(d.resolve(obj));
        for text in [
            serde_json::to_string(obj).unwrap(),
            serde_json::to_string_pretty(obj).unwrap(),
        ] {
            assert_eq!(outcome(d.resolve_text(&text)), whole, "{name}");
            assert_eq!(outcome(d.resolve_value_text(&text)), whole, "{name}");
        }
        partial += usize::from(d.object_reads().is_some());
    }
    // Most fixture objects are Pods (recorded from controllers), read whole.
    assert!(partial > 500, "{partial} of {} read in part", all.len());
}

#[test]
fn jaq_answers_from_the_read_part_as_from_the_whole() {
    // The parts kept are found from the fast path's form of each
    // expression; jaq, which answers what the fast path leaves to it,
    // reads the same parts.
    let engine = Engine::new().unwrap();
    let extra = json!({"f:spec": {"f:x": {}}, "n": [1, 2.5, "x"]});
    crate::jq::with_fast_path(false, || {
        for (name, obj, d) in fixtures(&engine).iter().step_by(3) {
            let obj = with_unread_parts(obj, &extra);
            let text = serde_json::to_string(&obj).unwrap();
            assert_eq!(
                outcome(d.resolve_text(&text)),
                outcome(d.resolve(&obj)),
                "{name}"
            );
        }
    });
}

/// `obj` with parts no definition reads: managed fields, an annotation of
/// the last applied configuration, and a status field of a controller's
/// own.
fn with_unread_parts(obj: &Value, extra: &Value) -> Value {
    let mut o = obj.clone();
    if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
        m.insert("managedFields".into(), extra.clone());
        m.insert("resourceVersion".into(), json!("123456"));
    }
    if let Some(m) = o.as_object_mut() {
        m.insert("zzUnread".into(), extra.clone());
    }
    o
}

#[test]
fn budgets_end_a_resolve_from_the_read_part_where_they_end_the_whole() {
    let engine = Engine::new().unwrap();
    let all = fixtures(&engine);
    let extra =
        json!([{"manager": "kubectl", "fieldsV1": {"f:spec": {"f:x": {}}}, "n": [1, 2.5, "x"]}]);
    // Every tenth fixture, with unread parts, under step budgets from
    // starved to ample, and under a node budget.
    for (name, obj, d) in all.iter().step_by(10) {
        let obj = with_unread_parts(obj, &extra);
        let text = serde_json::to_string(&obj).unwrap();
        let base = CompiledDefinition::compile(d.definition().clone()).unwrap();
        for steps in [1u64, 3, 10, 30, 100, 300, 1_000, 3_000, 10_000, 100_000] {
            let limits = Limits {
                max_steps: steps,
                ..Limits::default()
            };
            let d = CompiledDefinition::compile(base.definition().clone())
                .unwrap()
                .with_limits(limits);
            assert_eq!(
                outcome(d.resolve_text(&text)),
                outcome(d.resolve(&obj)),
                "{name} at {steps} steps"
            );
        }
    }
}

#[test]
fn unread_parts_are_read_as_strictly_as_the_rest() {
    let (engine, obj, d) = example();
    assert!(d.object_reads().is_some());
    let text = |extra: &str| {
        let t = serde_json::to_string(&obj).unwrap();
        format!("{{\"zzUnread\": {extra}, {}", &t[1..])
    };
    // A key twice in an unread object, or twice among an object's unread
    // keys: refused as the whole reader refuses it (a parse error, located).
    for extra in [r#"{"a": 1, "a": 2}"#, r#"[{"b": {"c": 1, "c": 1}}]"#] {
        let e = d.resolve_text(&text(extra)).unwrap_err();
        let whole = engine.read_object(&text(extra)).unwrap_err();
        assert_eq!(e.code(), crate::ErrorCode::Parse, "{extra}");
        assert_eq!(e.message(), whole.message(), "{extra}");
    }
    let twice = text("1").replacen("\"zzUnread\"", "\"zzUnread\": 2, \"zzUnread\"", 1);
    assert_eq!(
        d.resolve_text(&twice).unwrap_err().code(),
        crate::ErrorCode::Parse
    );
    // Too deep, or too many nodes, where nothing is read: the limit's error.
    let deep = text(&format!("{}1{}", "[".repeat(200), "]".repeat(200)));
    let e = d.resolve_text(&deep).unwrap_err();
    assert_eq!(e.limit(), Some("maxDepth"));
    let limits = Limits {
        max_input_nodes: 200,
        ..Limits::default()
    };
    let small = CompiledDefinition::compile(d.definition().clone())
        .unwrap()
        .with_limits(limits);
    let many = text(&format!("[{}]", vec!["0"; 300].join(",")));
    let e = small.resolve_text(&many).unwrap_err();
    assert_eq!(e.limit(), Some("maxInputNodes"));
    // Bad JSON in an unread part: the located reader's error.
    let bad = text("[1, 2,]");
    assert_eq!(
        d.resolve_text(&bad).unwrap_err().code(),
        crate::ErrorCode::Parse
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever an object holds where no expression reads, the result is
    /// the one of the object without it, and of the whole object.
    #[test]
    fn unread_parts_change_nothing(extra in super::source::json_value(), at in 0usize..1000) {
        let engine = Engine::new().unwrap();
        let all = fixtures_cached(&engine);
        let (name, obj, d) = &all[at % all.len()];
        let obj2 = with_unread_parts(obj, &extra);
        let text = serde_json::to_string(&obj2).unwrap();
        // Against the whole value of the same text (a float's text need not
        // read back as the same float).
        let whole = crate::source::read_value(&text, d.limits()).unwrap();
        prop_assert_eq!(outcome(d.resolve_text(&text)), outcome(d.resolve(&whole)), "{}", name);
    }
}

fn fixtures_cached(engine: &Engine) -> &'static [(String, Value, Arc<CompiledDefinition>)] {
    static ALL: std::sync::OnceLock<Vec<(String, Value, Arc<CompiledDefinition>)>> =
        std::sync::OnceLock::new();
    ALL.get_or_init(|| fixtures(engine))
}

#[test]
fn a_bindings_text_resolves_as_its_value_would() {
    let (_, obj, d) = example();
    let jobset = include_str!("../../../examples/jobset.yaml");
    let limits = Limits::default();
    let json = serde_json::to_string(&obj).unwrap();
    for text in [
        jobset,
        json.as_str(),
        "null",
        "[]",
        "{}",
        "{\"apiVersion\": \"v1\"}",
        "{\"a\": 1, \"a\": 2}",
        "kind: JobSet\n",
        "",
        "{",
    ] {
        let by_value = match crate::source::read_value(text, &limits) {
            Ok(v) => outcome(d.resolve(&v)),
            Err(e) => outcome(Err(e)),
        };
        assert_eq!(outcome(d.resolve_value_text(text)), by_value, "{text:?}");
    }
}

#[test]
fn a_value_of_the_wrong_type_for_its_step_is_kept_whole() {
    // jaq's error names the value it cannot index, so that value is kept
    // as it is, not as the step would have kept it; and what `.[]` reads
    // is read of a member named by key too.
    let def = |replicas: &str| app(BY_PHASE, Some(replicas));
    let obj = |spec: Value| {
        json!({"apiVersion": "example.com/v1", "kind": "App",
               "metadata": {"name": "a", "managedFields": [{"m": 1}]}, "spec": spec})
    };
    for (replicas, spec, want_error) in [
        // A key of an array.
        (
            ".spec.x.y",
            json!({"x": [{"y": 1, "z": {"deep": [1, 2]}}]}),
            true,
        ),
        // An index of an object.
        (".spec.m[0]", json!({"m": {"a": {"b": 1}}}), true),
        // `.spec.a.x` and, through `.[]`, `.spec.a.y`.
        (
            "(.spec.a.x // 0) + ([.spec[] | .y? // 0] | add)",
            json!({"a": {"x": 1, "y": 5}, "b": {"y": 2}}),
            false,
        ),
    ] {
        let d = def(replicas);
        assert!(d.object_reads().is_some(), "{replicas}");
        let o = obj(spec);
        let whole = outcome(d.resolve(&o));
        assert_eq!(
            whole.starts_with("error"),
            want_error,
            "{replicas}: {whole}"
        );
        let text = serde_json::to_string(&o).unwrap();
        assert_eq!(outcome(d.resolve_text(&text)), whole, "{replicas}");
    }
}

#[test]
fn the_analysis_of_a_hostile_definition_is_bounded() {
    // 40 status expressions of 64 paths each, each path 63 steps long:
    // about 133,000 units of work each, 5.3 million in all, past the
    // bound (500,000, 10x what the catalog's largest takes and more): the
    // analysis gives up, and the object is read whole, with the result it
    // gives.
    let alternatives: Vec<String> = (0..64).map(|i| format!(".a{i}")).collect();
    let chain: String = (0..62).map(|i| format!(" | .k{i}")).collect();
    let expr = format!("[({}){chain}] | length > 0", alternatives.join(", "));
    assert!(expr.len() < 16 * 1024);
    let d = app(&by_expression(&expr).repeat(40), None);
    let mut b = crate::jq::reads::Bounds::new();
    assert!(d.find_reads_within(&mut b).is_none());
    assert!(d.object_reads().is_none());
    let o = json!({"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "a"},
                   "a3": {"k0": {"k1": 1}}, "spec": {"template": {"spec": {"containers": []}}}});
    let text = serde_json::to_string(&o).unwrap();
    assert_eq!(outcome(d.resolve_text(&text)), outcome(d.resolve(&o)));
    // One such expression is within the bounds, and read in part.
    let d = app(&by_expression(&expr), None);
    let mut b = crate::jq::reads::Bounds::new();
    assert!(d.find_reads_within(&mut b).is_some());
    assert!(MAX_WORK - b.work > 100_000, "{}", MAX_WORK - b.work);
}

/// A definition of `example.com/v1` `App`: its root's status `running`
/// when one of `matchers` (YAML list items) matches, its pod template at
/// `.spec.template`, and its replicas at `replicas` if given.
fn app(matchers: &str, replicas: Option<&str>) -> CompiledDefinition {
    let scale = replicas
        .map(|r| format!("      scaleDefinition:\n        replicasPath: '{r}'\n"))
        .unwrap_or_default();
    let text = format!(
        "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {{name: app}}\nspec:\n  structureDefinition:\n    rootComponent:\n      name: app\n      kind: {{group: example.com, version: v1, kind: App}}\n      statusDefinition:\n        statusMappings:\n          running:\n{matchers}      specDefinition:\n        podTemplateSpecPath: .spec.template\n{scale}"
    );
    CompiledDefinition::from_text(&text, Limits::default()).unwrap()
}

/// A matcher of [`app`]'s: `expr` is true.
fn by_expression(expr: &str) -> String {
    format!(
        "            - byExpression:\n                expression: '{expr}'\n                expectedResult: 'true'\n"
    )
}

const BY_PHASE: &str = "            - byPhase: Running\n";

/// The example JobSet, and its definition in the catalog's engine.
fn example() -> (Engine, Value, Arc<CompiledDefinition>) {
    let engine = Engine::new().unwrap();
    let obj = engine
        .read_object(include_str!("../../../examples/jobset.yaml"))
        .unwrap();
    let d = Arc::clone(engine.definition_for(&obj).unwrap());
    (engine, obj, d)
}

#[test]
fn a_catch_body_makes_the_object_read_whole() {
    // The fast path answers `try f catch g` as `f` and leaves the rest to
    // jaq, so what `g` reads (here through a variable) is not known.
    let d = app(BY_PHASE, Some(". as $o | try .spec.x.y catch $o.spec.n"));
    assert!(d.object_reads().is_none());
    let o = json!({"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "a"},
                   "spec": {"x": "s", "n": 3, "template": {"spec": {"containers": []}}}});
    let whole = outcome(d.resolve(&o));
    assert!(whole.contains("\"replicas\":3"), "{whole}");
    assert_eq!(
        outcome(d.resolve_text(&serde_json::to_string(&o).unwrap())),
        whole
    );
    // `f?` alone leaves nothing out.
    assert!(app(BY_PHASE, Some(".spec.x.y?")).object_reads().is_some());
}

#[test]
fn a_key_met_twice_where_nothing_is_read_is_found_before_its_value() {
    // The whole reader refuses the key when it meets it again, before its
    // value passes a limit: so does the reader that lets it go.
    let d = app(BY_PHASE, None);
    assert!(d.object_reads().is_some());
    let big = format!("[{}]", vec!["0"; 40].join(","));
    let deep = format!("{}0{}", "[".repeat(20), "]".repeat(20));
    let limits = [
        Limits {
            max_input_nodes: 30,
            ..Limits::default()
        },
        Limits {
            max_depth: 10,
            ..Limits::default()
        },
    ];
    for (limits, value) in limits.iter().zip([&big, &deep]) {
        let d = CompiledDefinition::compile(d.definition().clone())
            .unwrap()
            .with_limits(*limits);
        for text in [
            // Among the keys of the object read in part, and of one let go.
            format!(
                r#"{{"apiVersion":"example.com/v1","kind":"App","metadata":{{"name":"a"}},"zz":1,"zz":{value}}}"#
            ),
            format!(
                r#"{{"apiVersion":"example.com/v1","kind":"App","metadata":{{"name":"a"}},"zz":{{"q":1,"q":{value}}}}}"#
            ),
            // Past the first 16 keys.
            format!(
                r#"{{"apiVersion":"example.com/v1","kind":"App","metadata":{{"name":"a"}},{}"k3":{value}}}"#,
                (0..20).map(|i| format!("\"k{i}\":1,")).collect::<String>()
            ),
        ] {
            let by_value = match crate::source::read_value(&text, limits) {
                Ok(v) => outcome(d.resolve(&v)),
                Err(e) => outcome(Err(e)),
            };
            assert!(by_value.contains("Parse"), "{by_value}");
            assert_eq!(outcome(d.resolve_value_text(&text)), by_value, "{text}");
            assert_eq!(outcome(d.resolve_text(&text)), by_value, "{text}");
        }
    }
}
