//! The source map (`source::source_map`, `Engine::source_map`,
//! `CompiledDefinition::source_map`): where objects, fields, pod templates
//! and spans of jq expressions are in the text they were read from.

use workload_lens::source::{SourceMap, SourcePlace, SourceQuery, TemplatePart, TextSpan};
use workload_lens::{Engine, ErrorCode, Limits, source_map};

fn map(text: &str, queries: &[SourceQuery]) -> SourceMap {
    source_map(text, queries, &Limits::default()).unwrap()
}

fn q(path: &str) -> SourceQuery {
    SourceQuery::path(path)
}

/// The text of a span.
fn text_of<'a>(text: &'a str, s: &TextSpan) -> &'a str {
    &text[s.start.offset..s.end.offset]
}

/// `(line, column)` of a span's start.
fn at(s: &TextSpan) -> (usize, usize) {
    (s.start.line, s.start.column)
}

fn one(text: &str, query: SourceQuery) -> SourcePlace {
    map(text, &[query]).places.remove(0).expect("a place")
}

const DEFINITION: &str = "\
apiVersion: workload.nvidia.com/v1alpha1
kind: Karta
metadata:
  name: demo   # a comment
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
    childComponents:
    - name: first
      ownerRef: app
      specDefinition:
        podTemplateSpecPath: .spec.template
    - name: \"second\"
      ownerRef: app
      specDefinition:
        podTemplateSpecPath: |
          .spec.parts[]
          | .template
        metadataPath: \".spec.meta[\\\"x\\\"] | é\"
";

#[test]
fn fields_have_the_positions_of_their_key_and_value() {
    let field = "spec.structureDefinition.childComponents[1].specDefinition.podTemplateSpecPath";
    let p = one(DEFINITION, q(field));
    assert!(p.exact);
    assert_eq!(p.document, 0);
    assert_eq!(p.path, field);
    let key = p.key.unwrap();
    assert_eq!(at(&key), (18, 9));
    assert_eq!(text_of(DEFINITION, &key), "podTemplateSpecPath");
    // A block scalar: from its first line of content, without the
    // indentation of what follows.
    assert_eq!(at(&p.value), (19, 11));
    assert_eq!(
        text_of(DEFINITION, &p.value),
        ".spec.parts[]\n          | .template"
    );

    // A quoted key and value keep their quotes; a flow mapping's entries.
    let name = one(
        DEFINITION,
        q("spec.structureDefinition.childComponents[1].name"),
    );
    assert_eq!(text_of(DEFINITION, &name.value), "\"second\"");
    let kind = one(
        DEFINITION,
        q("spec.structureDefinition.rootComponent.kind.version"),
    );
    assert_eq!(at(&kind.key.unwrap()), (9, 34));
    assert_eq!(text_of(DEFINITION, &kind.value), "v1");
    let flow = one(DEFINITION, q("spec.structureDefinition.rootComponent.kind"));
    assert_eq!(
        text_of(DEFINITION, &flow.value),
        "{group: example.com, version: v1, kind: App}"
    );
    // A sequence element has no key; a block mapping runs to its last value
    // (the comment after `demo` is not in it).
    let element = one(DEFINITION, q("spec.structureDefinition.childComponents[0]"));
    assert!(element.key.is_none());
    assert_eq!(at(&element.value), (11, 7));
    assert!(text_of(DEFINITION, &element.value).ends_with("podTemplateSpecPath: .spec.template"));
    let metadata = one(DEFINITION, q("metadata"));
    assert_eq!(text_of(DEFINITION, &metadata.value), "name: demo");
    // The document's root: the whole definition.
    let root = one(DEFINITION, q(""));
    assert_eq!(at(&root.value), (1, 1));
    assert_eq!(root.value.end.line, 21);
}

#[test]
fn spans_of_expressions_are_found_in_every_written_form() {
    let base = "spec.structureDefinition.childComponents";
    let ask = |path: String, span: [usize; 2]| SourceQuery {
        span: Some(span),
        ..q(&path)
    };
    // Plain.
    let p = one(
        DEFINITION,
        ask(
            format!("{base}[0].specDefinition.podTemplateSpecPath"),
            [6, 14],
        ),
    );
    assert_eq!(text_of(DEFINITION, &p.span.unwrap()), "template");
    assert_eq!(at(&p.span.unwrap()), (14, 36));
    // A literal block: `| .template` on its second line.
    let p = one(
        DEFINITION,
        ask(
            format!("{base}[1].specDefinition.podTemplateSpecPath"),
            [16, 25],
        ),
    );
    let span = p.span.unwrap();
    assert_eq!(text_of(DEFINITION, &span), ".template");
    assert_eq!(at(&span), (20, 13));
    // Double-quoted with escapes: `["x"]` is written `[\"x\"]`; `é` after it.
    let p = one(
        DEFINITION,
        ask(format!("{base}[1].specDefinition.metadataPath"), [11, 14]),
    );
    assert_eq!(text_of(DEFINITION, &p.span.unwrap()), "\\\"x\\\"");
    let value = ".spec.meta[\"x\"] | é";
    let e = value.find('é').unwrap();
    let p = one(
        DEFINITION,
        ask(format!("{base}[1].specDefinition.metadataPath"), [e, e + 2]),
    );
    let span = p.span.unwrap();
    assert_eq!(text_of(DEFINITION, &span), "é");
    // Columns count characters, offsets bytes.
    assert_eq!(span.end.column - span.start.column, 1);
    assert_eq!(span.end.offset - span.start.offset, 2);
    // Another expression than the text's: no span.
    let p = one(
        DEFINITION,
        SourceQuery {
            expression: Some(".other".into()),
            ..ask(
                format!("{base}[0].specDefinition.podTemplateSpecPath"),
                [0, 1],
            )
        },
    );
    assert!(p.span.is_none());
    let p = one(
        DEFINITION,
        SourceQuery {
            expression: Some(".spec.template".into()),
            ..ask(
                format!("{base}[0].specDefinition.podTemplateSpecPath"),
                [0, 1],
            )
        },
    );
    assert_eq!(text_of(DEFINITION, &p.span.unwrap()), ".");
    // Not a string, or out of range: no span, the place all the same.
    let p = one(DEFINITION, ask(format!("{base}[0]"), [0, 1]));
    assert!(p.span.is_none());
    let p = one(
        DEFINITION,
        ask(
            format!("{base}[0].specDefinition.podTemplateSpecPath"),
            [0, 99],
        ),
    );
    assert!(p.span.is_none());
}

#[test]
fn unknown_paths_are_null_or_their_nearest_ancestor() {
    let m = map(
        DEFINITION,
        &[
            q("spec.nothing"),
            q("spec..broken"),
            SourceQuery {
                document: Some(3),
                ..q("spec")
            },
            SourceQuery {
                object: Some(5),
                ..q("spec")
            },
            SourceQuery {
                nearest: true,
                ..q("spec.structureDefinition.childComponents[7].name")
            },
        ],
    );
    assert_eq!(m.places[..4], [None, None, None, None]);
    let near = m.places[4].as_ref().unwrap();
    assert!(!near.exact);
    assert_eq!(near.path, "spec.structureDefinition.childComponents");
    assert_eq!(at(&near.key.unwrap()), (10, 5));
}

#[test]
fn objects_of_documents_lists_and_arrays() {
    let text = "\
# pods
apiVersion: v1
kind: PodList
items:
- metadata: {name: a}
- metadata:
    name: b
---
---
kind: Pod
metadata: {name: c}
";
    let m = map(
        text,
        &[
            SourceQuery {
                object: Some(1),
                ..q("metadata.name")
            },
            SourceQuery {
                object: Some(2),
                ..q("metadata.name")
            },
            SourceQuery {
                document: Some(2),
                ..q("metadata.name")
            },
            // Typed lists give their items a kind; it is not in the text.
            SourceQuery {
                object: Some(0),
                ..q("kind")
            },
        ],
    );
    let objects: Vec<(usize, &str, (usize, usize))> = m
        .objects
        .iter()
        .map(|o| (o.document, o.path.as_str(), at(&o.value)))
        .collect();
    assert_eq!(
        objects,
        [
            (0, "items[0]", (5, 3)),
            (0, "items[1]", (6, 3)),
            (2, "", (10, 1))
        ]
    );
    assert_eq!(text_of(text, &m.objects[1].value), "metadata:\n    name: b");
    let b = m.places[0].as_ref().unwrap();
    assert_eq!((b.document, b.path.as_str()), (0, "items[1].metadata.name"));
    assert_eq!(at(&b.value), (7, 11));
    let c = m.places[1].as_ref().unwrap();
    assert_eq!((c.document, at(&c.value)), (2, (11, 18)));
    assert_eq!(m.places[2], m.places[1]);
    assert_eq!(m.places[3], None);
    // A question without a document is about the first one there is.
    let late = "---\n---\nkind: Pod\n---\nkind: Job\n";
    let p = one(late, q("kind"));
    assert_eq!((p.document, at(&p.value)), (1, (3, 7)));

    let array = "[{\"kind\": \"Pod\"},\n {\"kind\": \"Pod\", \"metadata\": {\"name\": \"x\"}}]";
    let m = map(
        array,
        &[SourceQuery {
            object: Some(1),
            ..q("metadata.name")
        }],
    );
    assert_eq!(m.objects.len(), 2);
    assert_eq!(m.objects[1].path, "[1]");
    assert_eq!(
        text_of(array, &m.objects[1].value),
        "{\"kind\": \"Pod\", \"metadata\": {\"name\": \"x\"}}"
    );
    let x = m.places[0].as_ref().unwrap();
    assert_eq!(text_of(array, &x.key.unwrap()), "\"name\"");
    assert_eq!(text_of(array, &x.value), "\"x\"");
    assert_eq!(at(&x.value), (2, 39));

    // No document at all: nothing, and no error.
    assert_eq!(
        map("# nothing\n", &[q("a")]),
        SourceMap {
            objects: Vec::new(),
            places: vec![None],
        }
    );
}

#[test]
fn json_and_yaml_agree_and_crlf_is_one_line_break() {
    let json = "{\n  \"spec\": {\"expr\": \".a | \\\"b\\\"\", \"n\": [1, 2]}\n}";
    let p = one(
        json,
        SourceQuery {
            span: Some([5, 8]),
            ..q("spec.expr")
        },
    );
    assert_eq!(text_of(json, &p.span.unwrap()), "\\\"b\\\"");
    let n = one(json, q("spec.n[1]"));
    assert_eq!((at(&n.value), text_of(json, &n.value)), ((2, 43), "2"));
    let spec = one(json, q("spec"));
    assert_eq!(
        text_of(json, &spec.value),
        "{\"expr\": \".a | \\\"b\\\"\", \"n\": [1, 2]}"
    );

    let crlf = "a: 1\r\nb:\r\n  c: x\r\n";
    let c = one(crlf, q("b.c"));
    assert_eq!(at(&c.value), (3, 6));
    assert_eq!(text_of(crlf, &one(crlf, q("b")).value), "c: x");
}

#[test]
fn errors_are_the_readers() {
    let e = source_map("a: [1\n", &[], &Limits::default()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(e.location().line.is_some());
    let tight = Limits {
        max_documents: 2,
        ..Limits::default()
    };
    let e = source_map("a: 1\n---\nb: 2\n---\nc: 3\n", &[], &tight).unwrap_err();
    assert_eq!(e.limit(), Some("maxDocuments"));
}

#[test]
fn queries_are_read_from_strings_and_objects() {
    let qs: Vec<SourceQuery> = serde_json::from_str(
        r#"["spec", {"path": "a", "document": 1, "span": [0, 2], "nearest": true},
            {"object": 2, "component": "c", "instance": "i", "path": "spec"}]"#,
    )
    .unwrap();
    assert_eq!(qs[0], q("spec"));
    assert_eq!(qs[1].document, Some(1));
    assert_eq!(qs[1].span, Some([0, 2]));
    assert!(qs[1].nearest);
    assert_eq!(qs[2].component.as_deref(), Some("c"));
    for bad in [
        r#"{"pth": "a"}"#,
        r#"{"span": [1]}"#,
        r#"{"document": -1}"#,
        r#"{"nearest": "yes"}"#,
        r#"{"path": 3}"#,
        "3",
    ] {
        let e = serde_json::from_str::<SourceQuery>(bad).unwrap_err();
        assert!(e.to_string().contains("question"), "{bad}: {e}");
    }
    // null is absent.
    let q: SourceQuery = serde_json::from_str(r#"{"path": "a", "span": null}"#).unwrap();
    assert_eq!(q, SourceQuery::path("a"));
}

#[test]
fn pod_templates_of_the_objects_a_definition_covers() {
    let engine = Engine::new().unwrap();
    let text = include_str!("../../examples/jobset.yaml");
    let m = engine
        .source_map(
            text,
            &[
                SourceQuery {
                    component: Some("replicatedjob".into()),
                    instance: Some("worker".into()),
                    ..q("spec.containers[0].resources.requests.cpu")
                },
                SourceQuery {
                    component: Some("replicatedjob".into()),
                    instance: Some("nobody".into()),
                    ..q("spec")
                },
            ],
        )
        .unwrap();
    let templates: Vec<(&str, Option<&str>, TemplatePart, &str, usize)> = m.objects[0]
        .pod_templates
        .iter()
        .map(|t| {
            (
                t.component.as_str(),
                t.instance.as_deref(),
                t.part,
                t.path.as_str(),
                t.value.start.line,
            )
        })
        .collect();
    assert_eq!(
        templates,
        [
            (
                "replicatedjob",
                Some("leader"),
                TemplatePart::Template,
                "spec.replicatedJobs[0].template.spec.template",
                18
            ),
            (
                "replicatedjob",
                Some("worker"),
                TemplatePart::Template,
                "spec.replicatedJobs[1].template.spec.template",
                37
            ),
        ]
    );
    let field = &m.objects[0].pod_templates[0].field;
    assert!(
        field.ends_with("specDefinition.podTemplateSpecPath"),
        "{field}"
    );
    let cpu = m.places[0].as_ref().unwrap();
    assert_eq!(
        cpu.path,
        "spec.replicatedJobs[1].template.spec.template.spec.containers[0].resources.requests.cpu"
    );
    assert_eq!(at(&cpu.value), (44, 28));
    assert_eq!(m.places[1], None);

    // Without a definition: no pod templates, and the component questions
    // have no answer.
    let plain = map(
        text,
        &[SourceQuery {
            component: Some("replicatedjob".into()),
            instance: Some("worker".into()),
            ..q("spec")
        }],
    );
    assert!(plain.objects[0].pod_templates.is_empty());
    assert_eq!(plain.places[0], None);

    // A definition of another kind leaves the object alone.
    let pod = engine.definition("core-pod-v1").unwrap();
    assert!(
        pod.source_map(text, &[]).unwrap().objects[0]
            .pod_templates
            .is_empty()
    );
}

#[test]
fn pod_specs_and_metadata_of_a_definition() {
    let engine = Engine::new().unwrap();
    let def = engine
        .compile(
            "\
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: parts}
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
      statusDefinition: {statusMappings: {}}
      specDefinition:
        podSpecPath: .spec.pod
        metadataPath: .spec.labels
",
        )
        .unwrap();
    let object = "\
apiVersion: example.com/v1
kind: App
metadata: {name: x}
spec:
  labels: {labels: {a: b}}
  pod:
    containers:
    - name: main
";
    let m = def
        .source_map(
            object,
            &[
                SourceQuery {
                    component: Some("app".into()),
                    ..q("spec.containers[0].name")
                },
                SourceQuery {
                    component: Some("app".into()),
                    ..q("metadata.labels.a")
                },
                SourceQuery {
                    component: Some("app".into()),
                    ..q("status")
                },
            ],
        )
        .unwrap();
    let parts: Vec<(TemplatePart, &str)> = m.objects[0]
        .pod_templates
        .iter()
        .map(|t| (t.part, t.path.as_str()))
        .collect();
    assert_eq!(
        parts,
        [
            (TemplatePart::Spec, "spec.pod"),
            (TemplatePart::Metadata, "spec.labels")
        ]
    );
    let name = m.places[0].as_ref().unwrap();
    assert_eq!(name.path, "spec.pod.containers[0].name");
    assert_eq!(text_of(object, &name.value), "main");
    let label = m.places[1].as_ref().unwrap();
    assert_eq!(label.path, "spec.labels.labels.a");
    // Neither metadata nor spec, and no whole template: nowhere.
    assert_eq!(m.places[2], None);
}

/// Ten times a large pod listing (a namespace of 2,000 pods): read and
/// mapped within the default limits; a tenth of the memory budget stops it
/// with a limit error, as does a flood of questions for the steps.
#[test]
fn budget_a_listing_ten_times_the_expected_size() {
    let mut text = String::from("apiVersion: v1\nkind: PodList\nitems:\n");
    for i in 0..20_000 {
        text.push_str(&format!(
            "- metadata: {{name: pod-{i}, namespace: ml}}\n  spec:\n    containers:\n    - name: main\n      image: busybox\n      resources: {{requests: {{cpu: 500m}}}}\n"
        ));
    }
    let queries: Vec<SourceQuery> = (0..20_000)
        .step_by(1000)
        .map(|i| SourceQuery {
            object: Some(i),
            ..q("spec.containers[0].resources.requests.cpu")
        })
        .collect();
    let m = source_map(&text, &queries, &Limits::default()).unwrap();
    assert_eq!(m.objects.len(), 20_000);
    let last = m.objects.last().unwrap();
    assert_eq!(last.path, "items[19999]");
    assert_eq!(last.value.start.line, 3 + 19_999 * 6 + 1);
    assert!(m.places.iter().all(Option::is_some));
    assert_eq!(
        m.places[19].as_ref().unwrap().value.start.line,
        3 + 19_000 * 6 + 6
    );

    let d = Limits::default();
    let small = Limits {
        max_memory_bytes: d.max_memory_bytes / 10,
        ..d
    };
    let e = source_map(&text, &[], &small).unwrap_err();
    assert_eq!(e.limit(), Some("maxMemoryBytes"));

    // Every object, question and position costs steps.
    let few = Limits {
        max_steps: 10_000,
        ..d
    };
    let e = source_map(&text, &[], &few).unwrap_err();
    assert_eq!(e.limit(), Some("maxSteps"));
    let flood = vec![q("items[0]"); 20_000];
    let e = source_map("a: 1\n", &flood, &few).unwrap_err();
    assert_eq!(e.limit(), Some("maxSteps"));
}

#[test]
fn aliases_merge_keys_and_empty_values() {
    let text = "\
base: &b {cpu: 1}
copy: *b
merged:
  <<: *b
  memory: 2
empty:
next: x
";
    let copy = one(text, q("copy"));
    assert_eq!(text_of(text, &copy.value), "*b");
    // Values an alias brings have no text of their own.
    assert_eq!(map(text, &[q("copy.cpu")]).places[0], None);
    let merged = one(text, q("merged.memory"));
    assert_eq!(at(&merged.value), (5, 11));
    assert_eq!(map(text, &[q("merged.cpu")]).places[0], None);
    let empty = one(text, q("empty"));
    assert_eq!(text_of(text, &empty.key.unwrap()), "empty");
    assert_eq!(text_of(text, &empty.value), "");
    assert_eq!(text_of(text, &one(text, q("next")).value), "x");
}

/// Many objects and many questions: each question is looked at once (not
/// once per object or document), so 50,000 of each answer at once.
#[test]
fn many_objects_and_many_questions_are_linear() {
    let n = 50_000;
    let text = format!("[{}]", vec!["{\"a\": 1}"; n].join(","));
    let queries: Vec<SourceQuery> = (0..n)
        .map(|i| SourceQuery {
            object: Some(i),
            ..q("a")
        })
        .collect();
    let start = std::time::Instant::now();
    let m = source_map(&text, &queries, &Limits::default()).unwrap();
    assert_eq!(m.objects.len(), n);
    assert!(m.places.iter().all(Option::is_some));
    let last = m.places[n - 1].as_ref().unwrap();
    assert_eq!(last.path, format!("[{}].a", n - 1));
    // Seconds in a debug build if quadratic (2.5e9 comparisons); well under one here.
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());

    // Items an alias brings are at the alias.
    let aliased = "base: &l [{kind: Pod}]\n---\nkind: List\nitems: *l\n";
    let err = source_map(aliased, &[], &Limits::default());
    // Anchors do not cross documents: an error of the reader.
    assert!(err.is_err());
    let aliased = "kind: List\nx: &l [{kind: Pod}, {kind: Pod}]\nitems: *l\n";
    let m = map(aliased, &[]);
    assert_eq!(m.objects.len(), 2);
    assert_eq!(text_of(aliased, &m.objects[1].value), "*l");
}
