//! Whole calls: a generated definition with many components (each with
//! instance ids, a pod template, replicas, a pod selector and status
//! matchers drawn from cheap and costly expressions), an object with many
//! and long values, many documents and many pods, run through every
//! operation, some of them inside one `Engine::call` scope. Every answer
//! must be a result or a typed error; libFuzzer's `-timeout` and
//! `-rss_limit_mb` catch a budget that does not bound the whole call.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use workload_lens::Engine;

#[path = "common.rs"]
mod common;

/// Expressions over the object `{spec: {items, names, text, n}}`: paths,
/// string work on long values, regexes, sorts, products.
const EXPRESSIONS: &[&str] = &[
    ".spec.names[]",
    ".spec.items[].name",
    ".spec.items[] | .template",
    ".spec.n",
    ".spec.n * 2",
    "[.spec.items[] | .replicas // 1] | add",
    ".spec.text | length",
    ".spec.text | ascii_downcase | length",
    ".spec.text | test(\"[a-z]+z\")",
    ".spec.text | contains(.)",
    ".spec.text | indices(\"ab\") | length",
    "[.spec.names[] | test(\"^w\")] | length",
    ".spec.names | sort | .[0]",
    ".spec.names | group_by(.) | length",
    "[.spec.names[] as $a | .spec.names[] | $a + .] | length",
    ".spec.text | tojson | length",
    ".spec.text | split(\"b\") | length",
    "[.spec.items[] | tojson] | join(\",\") | length",
    ".spec.text | gsub(\"a\"; \"b\") | length",
    ".spec.text | [match(\"a+\"; \"g\")] | length",
    ".metadata.labels.app",
    ".metadata.labels[\"job-index\"]",
    ".status.phase == \"Running\"",
    "[.status.conditions[]? | select(.status == \"True\")] | length > 0",
];

#[derive(Debug, Arbitrary)]
struct Comp {
    ids: u8,
    template: u8,
    replicas: u8,
    selector: u8,
    matchers: Vec<u8>,
}

#[derive(Debug, Arbitrary)]
struct Input {
    comps: Vec<Comp>,
    copies: u8,
    names: u16,
    text_kb: u8,
    items: u16,
    pods: u16,
    nodes: u8,
    documents: u8,
    scoped: bool,
}

fn pick(i: u8) -> &'static str {
    EXPRESSIONS[i as usize % EXPRESSIONS.len()]
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

fn definition(inp: &Input) -> String {
    let mut children = String::new();
    // Many components: repeat the drawn ones up to `copies` times.
    let copies = 1 + inp.copies as usize % 40;
    for (n, c) in inp
        .comps
        .iter()
        .cycle()
        .take(inp.comps.len() * copies)
        .enumerate()
    {
        let owner = if n > 0 && n % 7 == 0 {
            format!("c{}", n - 1)
        } else {
            "app".into()
        };
        children.push_str(&format!(
            "      - name: c{n}\n        kind: {{group: example.com, version: v1, kind: C{n}}}\n        ownerRef: {owner}\n        instanceIdPath: {}\n        specDefinition:\n          podTemplateSpecPath: {}\n        scaleDefinition:\n          replicasPath: {}\n        podSelector:\n          componentInstanceSelector:\n            idPath: {}\n",
            quote(pick(c.ids)),
            quote(pick(c.template)),
            quote(pick(c.replicas)),
            quote(pick(c.selector)),
        ));
        if !c.matchers.is_empty() {
            children.push_str(
                "        statusDefinition:\n          statusMappings:\n            running:\n",
            );
            for m in c.matchers.iter().take(50) {
                children.push_str(&format!(
                    "              - byExpression:\n                  expression: {}\n                  expectedResult: \"true\"\n",
                    quote(pick(*m))
                ));
            }
        }
    }
    format!(
        "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata: {{name: whole}}\nspec:\n  structureDefinition:\n    rootComponent:\n      name: app\n      kind: {{group: example.com, version: v1, kind: App}}\n      statusDefinition:\n        statusMappings:\n          running:\n            - byExpression:\n                expression: '.status.phase == \"Running\"'\n                expectedResult: \"true\"\n      suspendDefinition:\n        suspendActions:\n          - path: '.spec.items[].suspend'\n            value: 'true'\n        resumeActions:\n          - path: '.spec.items[].suspend'\n            value: 'false'\n    childComponents:\n{children}  optimizationInstructions:\n    gangScheduling:\n      podGroups:\n        - name: g\n          members:\n            - componentName: app\n              groupByKeyPaths:\n                - '.metadata.labels.app'\n"
    )
}

fn object(inp: &Input, doc: usize) -> Value {
    let names: Vec<String> = (0..inp.names % 2000).map(|i| format!("w{i}")).collect();
    let text = "ab".repeat(inp.text_kb as usize * 512);
    let items: Vec<Value> = (0..inp.items % 3000)
        .map(|i| json!({"name": format!("i{i}"), "replicas": i % 5, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}}}))
        .collect();
    json!({
        "apiVersion": "example.com/v1",
        "kind": "App",
        "metadata": {"name": format!("a{doc}"), "namespace": "ns", "labels": {"app": "a"}},
        "spec": {"names": names, "text": text, "items": items, "n": inp.names},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    })
}

fn pods(inp: &Input) -> Vec<Value> {
    (0..inp.pods % 5000)
        .map(|i| {
            json!({
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": format!("p{i}"), "namespace": "ns",
                             "labels": {"app": "a", "job-index": (i % 7).to_string()}},
                "spec": {"nodeName": format!("n{}", i % (1 + inp.nodes as u16))},
                "status": {"phase": "Running"}
            })
        })
        .collect()
}

fn check<T>(r: workload_lens::Result<T>) {
    if let Err(e) = r {
        common::check_error(&e);
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(inp) = Input::arbitrary(&mut Unstructured::new(data)) else {
        return;
    };
    if inp.comps.is_empty() {
        return;
    }
    let mut engine: Engine = common::empty_engine().clone();
    if let Err(e) = engine.add_definitions(&definition(&inp)) {
        common::check_error(&e);
        return;
    }
    let pods = pods(&inp);
    let scope = inp.scoped.then(|| engine.call());
    for doc in 0..=(inp.documents as usize % 20) {
        let obj = object(&inp, doc);
        check(engine.resolve(&obj));
        check(engine.resolve_with_pods(&obj, &pods));
        check(engine.attribute_pods(&obj, &pods));
        check(engine.gang_groups(&obj, &pods));
        check(engine.explain_status(&obj));
        check(engine.suspend(&obj));
    }
    drop(scope);
});
