//! Reading YAML/JSON text into values with positions (`workload_lens::source`).

use proptest::prelude::*;
use serde_json::json;
use std::time::{Duration, Instant};
use workload_lens::source::{
    SpanIndex, parse_documents, parse_documents_bytes, path_push_index, path_push_key,
};
use workload_lens::{Error, ErrorCode, Limits, Location};

fn limits() -> Limits {
    Limits::default()
}

fn parse(text: &str) -> Vec<workload_lens::source::SourceDocument> {
    match parse_documents(text, &limits()) {
        Ok(d) => d,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

fn parse_err(text: &str, limits: &Limits) -> Error {
    match parse_documents(text, limits) {
        Ok(d) => panic!("expected an error, got {d:?}"),
        Err(e) => e,
    }
}

fn line_col(e: &Error) -> (Option<usize>, Option<usize>) {
    (e.location().line, e.location().column)
}

/// Run `f` on a thread with a 1 MiB stack (proves the parser does not
/// recurse on the input's nesting).
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let handle = std::thread::Builder::new()
        .stack_size(1024 * 1024)
        .spawn(f)
        .unwrap_or_else(|e| panic!("spawn: {e}"));
    handle.join().unwrap_or_else(|_| panic!("thread panicked"))
}

#[test]
fn yaml_values_and_positions() {
    let text = "\
apiVersion: v1
metadata:
  labels:
    app.kubernetes.io/name: web
    plain: x
spec:
  items:
    - a
    - name: b
      port: 80
";
    let docs = parse(text);
    assert_eq!(docs.len(), 1);
    let d = &docs[0];
    assert_eq!(d.document, 0);
    assert_eq!(
        d.value,
        json!({
            "apiVersion": "v1",
            "metadata": {"labels": {"app.kubernetes.io/name": "web", "plain": "x"}},
            "spec": {"items": ["a", {"name": "b", "port": 80}]}
        })
    );
    assert_eq!(d.spans.get(""), Some((1, 1)));
    assert_eq!(d.spans.get("apiVersion"), Some((1, 1)));
    assert_eq!(d.spans.get("metadata.labels"), Some((3, 3)));
    assert_eq!(
        d.spans.get(r#"metadata.labels["app.kubernetes.io/name"]"#),
        Some((4, 5))
    );
    assert_eq!(d.spans.get("metadata.labels.plain"), Some((5, 5)));
    assert_eq!(d.spans.get("spec.items[0]"), Some((8, 7)));
    assert_eq!(d.spans.get("spec.items[1]"), Some((9, 7)));
    assert_eq!(d.spans.get("spec.items[1].port"), Some((10, 7)));
    assert_eq!(d.spans.get("spec.items[2]"), None);
    assert_eq!(d.spans.get("spec.nothing"), None);
    assert_eq!(d.spans.get("spec..items"), None);
    assert!(!d.spans.is_empty());
}

#[test]
fn columns_count_characters() {
    let docs = parse("\"ключ\": {\"ä\": 1}\n");
    assert_eq!(docs[0].spans.get("[\"ключ\"]"), Some((1, 1)));
    assert_eq!(docs[0].spans.get("[\"ключ\"][\"ä\"]"), Some((1, 10)));
    let docs = parse("{\"ключ\": {\"ä\": 1}}");
    assert_eq!(docs[0].spans.get("[\"ключ\"][\"ä\"]"), Some((1, 11)));
}

#[test]
fn json_values_and_positions() {
    let text = "{\n  \"kind\": \"Karta\",\n  \"spec\": {\"list\": [1, {\"x\": true}],\n    \"n\": null}\n}\n";
    let docs = parse(text);
    assert_eq!(docs.len(), 1);
    assert_eq!(
        docs[0].value,
        json!({"kind": "Karta", "spec": {"list": [1, {"x": true}], "n": null}})
    );
    let s = &docs[0].spans;
    assert_eq!(s.get(""), Some((1, 1)));
    assert_eq!(s.get("kind"), Some((2, 3)));
    assert_eq!(s.get("spec"), Some((3, 3)));
    assert_eq!(s.get("spec.list"), Some((3, 12)));
    assert_eq!(s.get("spec.list[0]"), Some((3, 21)));
    assert_eq!(s.get("spec.list[1]"), Some((3, 24)));
    assert_eq!(s.get("spec.list[1].x"), Some((3, 25)));
    assert_eq!(s.get("spec.n"), Some((4, 5)));
}

#[test]
fn json_number_overflow_is_a_parse_error() {
    let e = parse_err("[1, 1e400]", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(
        e.message().contains("number out of range"),
        "{}",
        e.message()
    );
    assert_eq!(e.location().line, Some(1));
}

#[test]
fn json_numbers() {
    let docs = parse("[18446744073709551615, -9223372036854775808, 1.5, 18446744073709551616]");
    assert_eq!(
        docs[0].value,
        json!([
            18446744073709551615u64,
            -9223372036854775808i64,
            1.5,
            18446744073709551616.0
        ])
    );
    assert!(docs[0].value[0].is_u64());
    assert!(docs[0].value[1].is_i64());
    assert!(docs[0].value[3].is_f64());
}

#[test]
fn json_looking_yaml_flow_falls_back_to_yaml() {
    let docs = parse("{a: 1, \"b\": [x, y]}");
    assert_eq!(docs[0].value, json!({"a": 1, "b": ["x", "y"]}));
    assert_eq!(docs[0].spans.get("b[1]"), Some((1, 17)));
}

#[test]
fn json_null_document_is_skipped() {
    assert!(parse("null").is_empty());
    assert!(parse("").is_empty());
    assert!(parse("   \n# only a comment\n").is_empty());
}

#[test]
fn yaml_numbers_and_scalars() {
    let docs = parse(
        "\
int: 42
neg: -7
big: 18446744073709551615
bigger: 18446744073709551616
hex: 0x1F
oct: 0o17
float: 2.5
exp: 1e3
str: yes
under: 1_000
quoted: \"12\"
tagged: !!str 12
tint: !!int \"12\"
tfloat: !!float 3
bool: True
nul: ~
empty:
",
    );
    assert_eq!(
        docs[0].value,
        json!({
            "int": 42, "neg": -7, "big": 18446744073709551615u64,
            "bigger": 18446744073709551616.0, "hex": 31, "oct": 15,
            "float": 2.5, "exp": 1000.0, "str": "yes", "under": "1_000",
            "quoted": "12", "tagged": "12", "tint": 12, "tfloat": 3.0,
            "bool": true, "nul": null, "empty": null
        })
    );
}

#[test]
fn inf_and_nan_are_parse_errors_with_location() {
    for (text, line, col) in [
        ("a: 1\nb: .inf\n", 2, 4),
        ("a: [1, -.Inf]\n", 1, 8),
        ("x: .nan", 1, 4),
        ("x: !!float .inf", 1, 12),
        ("x: 1e999", 1, 4),
    ] {
        let e = parse_err(text, &limits());
        assert_eq!(e.code(), ErrorCode::Parse, "{text}");
        assert_eq!(line_col(&e), (Some(line), Some(col)), "{text}: {e}");
        assert!(
            e.message().contains("not representable in JSON"),
            "{text}: {}",
            e.message()
        );
    }
    let e = parse_err("a: 1\nb: .inf\n", &limits());
    assert_eq!(e.location().field.as_deref(), Some("b"));
}

#[test]
fn non_string_keys_become_strings() {
    let docs = parse("1: x\ntrue: y\n0x1F: z\n2.5: w\n");
    assert_eq!(
        docs[0].value,
        json!({"1": "x", "true": "y", "31": "z", "2.5": "w"})
    );
    assert_eq!(docs[0].spans.get("[\"31\"]"), Some((3, 1)));
}

#[test]
fn null_and_complex_keys_are_errors() {
    let e = parse_err("a:\n  ~: x\n", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(line_col(&e), (Some(2), Some(3)));
    assert!(e.message().contains("null mapping key"), "{}", e.message());
    let e = parse_err("? [1, 2]\n: x\n", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(
        e.message().contains("complex mapping keys"),
        "{}",
        e.message()
    );
    assert_eq!(line_col(&e), (Some(1), Some(3)));
}

#[test]
fn duplicate_yaml_keys_are_errors() {
    let e = parse_err("spec:\n  name: a\n  other: 1\n  name: b\n", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(line_col(&e), (Some(4), Some(3)));
    assert_eq!(e.location().field.as_deref(), Some("spec.name"));
    assert_eq!(
        e.message(),
        "duplicate mapping key \"name\" (first defined at line 2, column 3)"
    );
    // Keys that only become equal as strings are duplicates too.
    let e = parse_err("1: a\n\"1\": b\n", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(line_col(&e), (Some(2), Some(1)));
}

#[test]
fn duplicate_json_keys_are_errors() {
    let e = parse_err("{\"a\": {\"x\": 1,\n \"x\": 2}}", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(line_col(&e), (Some(2), Some(2)));
    assert_eq!(e.location().field.as_deref(), Some("a.x"));
    assert!(
        e.message().contains("duplicate mapping key \"x\""),
        "{}",
        e.message()
    );
}

#[test]
fn anchors_aliases_and_merge_keys() {
    let text = "\
base: &base
  image: app
  port: 80
list: &l [1, 2]
svc:
  <<: *base
  port: 81
copy: *l
multi:
  <<: [*base, {extra: 1}]
";
    let docs = parse(text);
    assert_eq!(
        docs[0].value,
        json!({
            "base": {"image": "app", "port": 80},
            "list": [1, 2],
            "svc": {"image": "app", "port": 81},
            "copy": [1, 2],
            "multi": {"image": "app", "port": 80, "extra": 1}
        })
    );
    // Merged values have no position of their own; their map has one.
    assert_eq!(docs[0].spans.get("svc.image"), None);
    assert_eq!(docs[0].spans.get("svc.port"), Some((7, 3)));
    let mut loc = Location::field("svc.image");
    docs[0].spans.locate(&mut loc);
    assert_eq!((loc.line, loc.column), (Some(5), Some(1)));
    let e = parse_err("a: &a 1\nb:\n  <<: *a\n", &limits());
    assert!(e.message().contains("merge key"), "{}", e.message());
}

#[test]
fn multiple_documents_keep_their_index() {
    let docs = parse("---\n---\na: 1\n---\nnull\n---\nb: 2\n...\n");
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0].document, 1);
    assert_eq!(docs[0].value, json!({"a": 1}));
    assert_eq!(docs[1].document, 3);
    assert_eq!(docs[1].spans.get("b"), Some((7, 1)));
}

#[test]
fn malformed_yaml_reports_line_column_and_document() {
    let e = parse_err("a: 1\nb: [1, 2\n", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(e.message().starts_with("invalid YAML: "), "{}", e.message());
    assert!(e.location().line.is_some());
    let e = parse_err("a: 1\n---\nb: 2\n  c: 3\n", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(e.location().document, Some(1));
    assert_eq!(e.location().line, Some(4));
    let e = parse_err("key: \"unterminated\n", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
}

#[test]
fn malformed_json_reports_line_and_column() {
    let e = parse_err("{\"a\": 1,\n \"b\": }", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(e.message().starts_with("invalid JSON: "), "{}", e.message());
    assert_eq!(line_col(&e), (Some(2), Some(7)));
    let e = parse_err("[1, 2,]", &limits());
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(e.message().starts_with("invalid JSON: "), "{}", e.message());
    assert_eq!(line_col(&e), (Some(1), Some(7)));
    // JSON followed by more YAML documents is a YAML stream.
    let docs = parse("{\"a\": 1}\n---\n{\"b\": 2}\n");
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[1].value, json!({"b": 2}));
}

#[test]
fn invalid_utf8_names_the_byte_offset() {
    let e = match parse_documents_bytes(b"a: 1\nb: \xff\xfe\n", &limits()) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    assert_eq!(e.code(), ErrorCode::Parse);
    assert!(e.message().contains("offset 8"), "{}", e.message());
    assert_eq!(line_col(&e), (Some(2), Some(4)));
    let ok = parse_documents_bytes(b"a: 1\n", &limits());
    assert!(matches!(ok, Ok(d) if d.len() == 1));
}

#[test]
fn oversized_input_is_rejected_before_parsing() {
    let l = Limits {
        max_input_bytes: 10,
        ..Limits::default()
    };
    let e = parse_err("a: 1234567890\n", &l);
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxInputBytes"));
    let e = match parse_documents_bytes(&[0xff; 11], &l) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    };
    assert_eq!(e.limit(), Some("maxInputBytes"));
}

#[test]
fn read_input_says_how_the_text_held_its_objects() {
    use workload_lens::{Engine, InputShape};
    let engine = match Engine::builder().catalog(false).build() {
        Ok(e) => e,
        Err(e) => panic!("{e}"),
    };
    let read = |text: &str| match engine.read_input(text) {
        Ok(i) => (i.objects, i.shape),
        Err(e) => panic!("{text:?}: {e}"),
    };
    // One object, in YAML or JSON (the fast path): not a collection.
    let (objects, shape) = read("kind: Pod\nmetadata: {name: a}\n");
    assert_eq!(shape, InputShape::Object);
    assert!(!shape.is_collection());
    assert_eq!(
        objects,
        vec![json!({"kind": "Pod", "metadata": {"name": "a"}})]
    );
    let (objects, shape) = read(r#"{"kind": "Pod"}"#);
    assert_eq!((objects.len(), shape), (1, InputShape::Object));
    // A trailing empty document does not make several.
    assert_eq!(read("kind: Pod\n---\n").1, InputShape::Object);
    // A typed list, even of one item: a collection; items get the kind.
    let (objects, shape) = read("apiVersion: v1\nkind: PodList\nitems:\n- metadata: {name: a}\n");
    assert_eq!(shape, InputShape::List);
    assert!(shape.is_collection());
    assert_eq!(
        objects,
        vec![json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}})]
    );
    assert_eq!(
        read(r#"{"kind": "List", "items": []}"#),
        (vec![], InputShape::List)
    );
    // A kind ending in List without an items list is one object.
    assert_eq!(read("kind: WaitList\nitems: 3\n").1, InputShape::Object);
    // An array (JSON or YAML), of one too.
    let (objects, shape) = read(r#"[{"kind": "Pod"}]"#);
    assert_eq!((objects.len(), shape), (1, InputShape::Array));
    assert_eq!(read("- kind: Pod\n- kind: Pod\n").1, InputShape::Array);
    // Several documents, whatever each holds (a list among them).
    let (objects, shape) = read("kind: Pod\n---\nkind: List\nitems: [{kind: Pod}, {kind: Pod}]\n");
    assert_eq!((objects.len(), shape), (3, InputShape::Documents));
    let (objects, shape) = read("kind: List\nitems: []\n---\nkind: Pod\n");
    assert_eq!((objects.len(), shape), (1, InputShape::Documents));
    assert!(shape.is_collection());
    // No document.
    assert_eq!(read(""), (vec![], InputShape::Empty));
    assert_eq!(read("# nothing\n---\n").1, InputShape::Empty);
    // The objects are those of read_objects.
    for text in [
        "kind: Pod\n---\nkind: Pod\n",
        "[1, 2]",
        "kind: PodList\nitems: [{}]\n",
    ] {
        assert_eq!(Some(read(text).0), engine.read_objects(text).ok());
    }
    let e = match engine.read_input("kind: List\nitems: 3\n") {
        Ok(i) => panic!("expected an error, got {i:?}"),
        Err(e) => e,
    };
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(line_col(&e), (Some(2), Some(1)));
}

#[test]
fn read_text_checks_size_then_utf8() {
    use workload_lens::read_text;
    assert_eq!(read_text(b"a: 1\n", &limits()).ok(), Some("a: 1\n"));
    assert_eq!(read_text(b"", &limits()).ok(), Some(""));
    // Invalid UTF-8: the located parse error of parse_documents_bytes.
    let bytes = b"a: 1\nb: \xff\xfe\n";
    let e = match read_text(bytes, &limits()) {
        Ok(t) => panic!("expected an error, got {t:?}"),
        Err(e) => e,
    };
    assert_eq!(e.code(), ErrorCode::Parse);
    assert_eq!(
        e.message(),
        "input is not valid UTF-8: invalid byte at offset 8"
    );
    assert_eq!(line_col(&e), (Some(2), Some(4)));
    assert_eq!(
        parse_documents_bytes(bytes, &limits())
            .err()
            .map(|e| e.to_string()),
        Some(e.to_string())
    );
    // A truncated multi-byte character at the end is invalid too.
    let e = read_text("é".as_bytes().get(..1).unwrap_or_default(), &limits());
    assert_eq!(e.map_err(|e| line_col(&e)), Err((Some(1), Some(1))));
    // Size first: exactly the limit is fine, one byte more is the limit
    // error (whether or not the bytes are UTF-8), naming the limit.
    let l = Limits {
        max_input_bytes: 10,
        ..Limits::default()
    };
    assert!(read_text(b"0123456789", &l).is_ok());
    for bytes in [&b"01234567890"[..], &[0xff; 11][..]] {
        let e = match read_text(bytes, &l) {
            Ok(t) => panic!("expected an error, got {t:?}"),
            Err(e) => e,
        };
        assert_eq!(e.code(), ErrorCode::Limit);
        assert_eq!(e.limit(), Some("maxInputBytes"));
        assert_eq!(
            e.message(),
            "input is larger than the limit maxInputBytes (10 bytes)"
        );
    }
}

#[test]
fn too_many_documents() {
    let l = Limits {
        max_documents: 3,
        ..Limits::default()
    };
    assert!(parse_documents("a: 1\n---\nb: 2\n---\nc: 3\n", &l).is_ok());
    let e = parse_err("a: 1\n---\nb: 2\n---\nc: 3\n---\n", &l);
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxDocuments"));
    assert_eq!(e.location().line, Some(6));
    // Document separators alone count.
    let e = parse_err(&"---\n".repeat(10_000), &limits());
    assert_eq!(e.limit(), Some("maxDocuments"));
}

fn expect_depth_error(text: String) -> Error {
    on_small_stack(move || match parse_documents(&text, &Limits::default()) {
        Ok(_) => panic!("expected a depth error"),
        Err(e) => e,
    })
}

#[test]
fn deep_json_100k_levels_on_a_small_stack() {
    let e = expect_depth_error("[".repeat(100_000) + &"]".repeat(100_000));
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxDepth"));
    assert_eq!(line_col(&e), (Some(1), Some(129)));
    let e = expect_depth_error("{\"a\":".repeat(100_000));
    assert_eq!(e.limit(), Some("maxDepth"));
}

#[test]
fn deep_yaml_100k_levels_on_a_small_stack() {
    for text in [
        format!("a: {}", "[".repeat(100_000)),
        "- ".repeat(100_000),
        "{a: ".repeat(100_000),
        format!("x: {}", "{a: [".repeat(50_000)),
    ] {
        let e = expect_depth_error(text);
        assert_eq!(e.code(), ErrorCode::Limit, "{e}");
        assert_eq!(e.limit(), Some("maxDepth"), "{e}");
    }
}

#[test]
fn depth_limit_is_exact() {
    let l = limits();
    let ok = "[".repeat(l.max_depth) + &"]".repeat(l.max_depth);
    let docs = on_small_stack(move || {
        parse_documents(&ok, &Limits::default())
            .map(|d| d.len())
            .map_err(|e| e.to_string())
    });
    assert!(matches!(docs, Ok(1)), "{docs:?}");
    let deep = "[".repeat(l.max_depth + 1) + &"]".repeat(l.max_depth + 1);
    let e = expect_depth_error(deep);
    assert_eq!(e.limit(), Some("maxDepth"));
    let yaml_ok = "- ".repeat(l.max_depth) + "x";
    assert!(parse_documents(&yaml_ok, &l).is_ok());
    let yaml_deep = "- ".repeat(l.max_depth + 1) + "x";
    let e = parse_err(&yaml_deep, &l);
    assert_eq!(e.limit(), Some("maxDepth"));
    let small = Limits {
        max_depth: 3,
        ..Limits::default()
    };
    assert!(parse_documents("a: {b: [1]}", &small).is_ok());
    let e = parse_err("a: {b: [[1]]}", &small);
    assert_eq!(e.limit(), Some("maxDepth"));
    let e = parse_err("{\"a\": {\"b\": [[1]]}}", &small);
    assert_eq!(e.limit(), Some("maxDepth"));
    assert_eq!(e.location().field.as_deref(), Some("a.b[0]"));
}

#[test]
fn aliases_cannot_exceed_the_depth_limit() {
    let small = Limits {
        max_depth: 4,
        ..Limits::default()
    };
    let e = parse_err("a: &a [[[1]]]\nb: [*a]\n", &small);
    assert_eq!(e.limit(), Some("maxDepth"));
    assert_eq!(line_col(&e), (Some(2), Some(5)));
}

#[test]
fn billion_laughs_hits_the_alias_limit_quickly() {
    let text = r#"
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"#;
    let start = Instant::now();
    let e = parse_err(text, &limits());
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(e.code(), ErrorCode::Limit);
    assert_eq!(e.limit(), Some("maxYamlAliases"));
    assert_eq!(e.location().line, Some(6));
    // A few aliases are fine.
    assert!(parse_documents("a: &a [1]\nb: *a\nc: *a\n", &limits()).is_ok());
}

#[test]
fn node_limit() {
    let l = Limits {
        max_input_nodes: 5,
        ..Limits::default()
    };
    assert!(parse_documents("[1, 2, 3, 4]", &l).is_ok());
    let e = parse_err("[1, 2, 3, 4, 5]", &l);
    assert_eq!(e.limit(), Some("maxInputNodes"));
    let e = parse_err("- 1\n- 2\n- 3\n- 4\n- 5\n", &l);
    assert_eq!(e.limit(), Some("maxInputNodes"));
    assert_eq!(e.location().line, Some(5));
    // Aliases count what they bring in.
    let e = parse_err("a: &a [1, 2]\nb: *a\n", &l);
    assert_eq!(e.limit(), Some("maxInputNodes"));
    // Per document.
    assert!(parse_documents("[1, 2, 3]\n---\n[1, 2, 3]\n", &l).is_ok());
}

#[test]
fn recursive_alias_does_not_hang() {
    let r = parse_documents("a: &a [*a]\n", &limits());
    assert!(
        matches!(r, Err(ref e) if e.code() == ErrorCode::Parse),
        "{r:?}"
    );
}

#[test]
fn path_helpers() {
    assert_eq!(path_push_key("", "spec"), "spec");
    assert_eq!(path_push_key("spec", "x_1"), "spec.x_1");
    assert_eq!(
        path_push_key("m", "app.kubernetes.io/name"),
        r#"m["app.kubernetes.io/name"]"#
    );
    assert_eq!(path_push_key("m", "a\"b"), r#"m["a\"b"]"#);
    assert_eq!(path_push_key("m", "1x"), r#"m["1x"]"#);
    assert_eq!(path_push_key("", "a-b"), r#"["a-b"]"#);
    assert_eq!(path_push_index("items", 2), "items[2]");
    assert_eq!(path_push_index("", 0), "[0]");
}

#[test]
fn span_index_insert_locate_subtree() {
    let mut s = SpanIndex::new();
    assert!(s.is_empty());
    assert!(s.insert("items[1].spec.name", 7, 5));
    assert!(s.insert("items[1]", 3, 3));
    assert!(!s.insert("a..b", 1, 1));
    assert_eq!(s.get("items[1].spec.name"), Some((7, 5)));
    assert_eq!(s.get("items[1].spec"), None);
    let mut loc = Location::field("items[1].spec.other");
    s.locate(&mut loc);
    assert_eq!((loc.line, loc.column), (Some(3), Some(3)));
    // A location that already has a line is kept.
    let mut loc = Location {
        field: Some("items[1]".into()),
        line: Some(99),
        column: Some(1),
        ..Location::default()
    };
    s.locate(&mut loc);
    assert_eq!(loc.line, Some(99));
    let sub = s.subtree("items[1]");
    assert_eq!(sub.get(""), Some((3, 3)));
    assert_eq!(sub.get("spec.name"), Some((7, 5)));
    assert!(s.subtree("items[5]").is_empty());
}

#[test]
fn list_document_positions() {
    let docs = parse("kind: List\nitems:\n  - kind: A\n  - kind: B\n    spec: {}\n");
    let sub = docs[0].spans.subtree("items[1]");
    assert_eq!(sub.get(""), Some((4, 5)));
    assert_eq!(sub.get("spec"), Some((5, 5)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn never_panics_on_arbitrary_text(text in "\\PC{0,200}") {
        let _ = parse_documents(&text, &Limits::default());
    }

    #[test]
    fn never_panics_on_yaml_ish_text(parts in proptest::collection::vec(prop_oneof![
        Just("["), Just("]"), Just("{"), Just("}"), Just(","), Just(":"), Just(": "),
        Just("- "), Just("\n"), Just("  "), Just("\t"), Just("&a "), Just("*a"), Just("&b "),
        Just("*b"), Just("<<: "), Just("? "), Just("---\n"), Just("...\n"), Just("\""),
        Just("'"), Just("#"), Just("!!str "), Just("!!int "), Just("!x "), Just("|\n"),
        Just(">-\n"), Just("key"), Just("1"), Just("0x1F"), Just(".inf"), Just("~"),
        Just("true"), Just("é"), Just("\\"), Just("%YAML 1.2\n"), Just("\u{feff}"),
    ], 0..120)) {
        let text: String = parts.concat();
        let small = Limits { max_depth: 8, max_input_nodes: 200, max_yaml_aliases: 20, ..Limits::default() };
        let _ = parse_documents(&text, &small);
        let _ = parse_documents(&text, &Limits::default());
    }

    #[test]
    fn never_panics_on_json_ish_text(parts in proptest::collection::vec(prop_oneof![
        Just("["), Just("]"), Just("{"), Just("}"), Just(","), Just(":"), Just("\"k\""),
        Just("\"a\\\"b\""), Just("1"), Just("-1.5e3"), Just("null"), Just(" "), Just("\n"),
        Just("\"é\""), Just("\\"), Just("\""), Just("true"),
    ], 0..120)) {
        let text = format!("{{{}", parts.concat());
        let _ = parse_documents(&text, &Limits { max_depth: 8, ..Limits::default() });
        let text = format!("[{}", parts.concat());
        let _ = parse_documents(&text, &Limits::default());
    }

    #[test]
    fn positions_of_generated_json_are_found(keys in proptest::collection::vec("[a-z]{1,6}", 1..10)) {
        let mut uniq = keys.clone();
        uniq.sort();
        uniq.dedup();
        let body: Vec<String> = uniq.iter().map(|k| format!("\"{k}\": [1]")).collect();
        let text = format!("{{{}}}", body.join(",\n"));
        let docs = parse_documents(&text, &Limits::default()).unwrap_or_default();
        prop_assert_eq!(docs.len(), 1);
        for (i, k) in uniq.iter().enumerate() {
            prop_assert_eq!(docs[0].spans.get(k), Some((i + 1, if i == 0 { 2 } else { 1 })));
            let elem = format!("{}[0]", k);
            prop_assert!(docs[0].spans.get(&elem).is_some());
        }
    }
}

/// Reading a list is linear in its size: each item's positions are copied
/// once, in one pass, and the document's index is shared, not copied per
/// item (a 50,000-item list once cost items x nodes time and memory).
#[test]
fn long_lists_read_in_linear_time() {
    let mut text = String::from("apiVersion: v1\nkind: PodList\nitems:\n");
    for i in 0..50_000 {
        text.push_str(&format!("- metadata: {{name: p{i}, namespace: ns}}\n"));
    }
    let engine = workload_lens::Engine::builder()
        .catalog(false)
        .build()
        .unwrap();
    let items = engine.read_objects(&text).unwrap();
    assert_eq!(items.len(), 50_000);
    assert_eq!(items[49_999]["kind"], "Pod");
    // Definitions too: each unreadable item of a 100,000-element array is
    // one verdict, located at its line.
    let text = "- 1\n".repeat(100_000);
    let report = engine.validate(&text).unwrap();
    assert_eq!(report.definitions.len(), 100_000);
    let last = &report.definitions[99_999].findings[0].location;
    assert_eq!(last.field.as_deref(), Some("[99999]"));
    assert_eq!(last.line, Some(100_000));
}

/// Every path of `v` (in the spelling of [`path_push_key`] /
/// [`path_push_index`]), with paths that are not there beside them.
fn all_paths(v: &serde_json::Value, path: &str, out: &mut Vec<String>) {
    out.push(path.to_string());
    match v {
        serde_json::Value::Object(m) => {
            out.push(path_push_key(path, "absent"));
            for (k, x) in m {
                all_paths(x, &path_push_key(path, k), out);
            }
        }
        serde_json::Value::Array(xs) => {
            out.push(path_push_index(path, xs.len()));
            for (i, x) in xs.iter().enumerate() {
                all_paths(x, &path_push_index(path, i), out);
            }
        }
        _ => out.push(path_push_key(path, "below-a-scalar")),
    }
}

/// JSON values with keys that need escapes, and Unicode (also for
/// [`super::reads`]).
pub(super) fn json_value() -> impl Strategy<Value = serde_json::Value> {
    let key = prop_oneof![
        "[a-z]{1,3}",
        Just("app.kubernetes.io/name".to_string()),
        Just("quo\"te".to_string()),
        Just("back\\slash".to_string()),
        Just("new\nline".to_string()),
        Just("ключ".to_string()),
        Just("".to_string()),
    ];
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        "[a-z\"\\\\{}\\[\\],: ä]{0,6}".prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(5, 40, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
            proptest::collection::btree_map(key.clone(), inner, 0..5)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    /// A JSON text read by the fast reader finds its positions lazily: the
    /// first questions by reading towards the path alone, later ones from
    /// the whole index. Both answer every question (paths that are there,
    /// paths that are not, subtrees) as the careful scan's index does.
    #[test]
    fn targeted_positions_agree_with_the_whole_index(
        v in json_value(),
        pretty in any::<bool>(),
        indent in "[ \t\r\n]{0,3}",
    ) {
        let text = if pretty {
            serde_json::to_string_pretty(&v).unwrap()
        } else {
            serde_json::to_string(&v).unwrap()
        };
        prop_assume!(text.starts_with('{') || text.starts_with('['));
        let text = format!("{indent}{text}");
        let mut paths = Vec::new();
        all_paths(&v, "", &mut paths);
        let fresh = || parse(&text).remove(0).spans;
        // The whole index: built once 16 questions have been asked.
        let whole = fresh();
        for _ in 0..20 {
            whole.get("");
        }
        for path in &paths {
            let (targeted_get, targeted_nearest) = (fresh().get(path), fresh().nearest(path));
            prop_assert_eq!(targeted_get, whole.get(path), "get {}", path);
            prop_assert_eq!(targeted_nearest, whole.nearest(path), "nearest {}", path);
            prop_assert!(whole.get(path).is_some() || path.contains("absent") || path.contains("below") || path.ends_with(']'));
            // Subtrees: relative questions agree too.
            let sub_t = fresh().subtree(path);
            let sub_w = whole.subtree(path);
            for inner in ["", "absent", "[0]", "a"] {
                prop_assert_eq!(sub_t.get(inner), sub_w.get(inner), "{} then {}", path, inner);
                prop_assert_eq!(sub_t.nearest(inner), sub_w.nearest(inner), "{} then {}", path, inner);
            }
        }
    }
}

// --- values read from a host language (the bindings' direct path) ---------

mod host {
    use super::*;
    use serde::de::{self, IntoDeserializer};
    use workload_lens::source::{HostRead, read_host_value as value_from_host};

    /// Values with every kind of scalar JSON has, strings that need escapes,
    /// and keys that do.
    fn host_value() -> impl Strategy<Value = serde_json::Value> {
        let key = prop_oneof![
            "[a-z]{1,3}",
            Just("quo\"te".to_string()),
            Just("tab\tand\u{1}ctl".to_string()),
            Just("ключ".to_string()),
            Just(String::new()),
        ];
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(serde_json::Value::from),
            "[a-z\"\\\\\u{0}-\u{1f}\u{7f} ä😀]{0,6}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(5, 40, 5, move |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..5).prop_map(serde_json::Value::from),
                proptest::collection::btree_map(key.clone(), inner, 0..5)
                    .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
            ]
        })
    }

    fn nodes(v: &serde_json::Value) -> usize {
        1 + match v {
            serde_json::Value::Array(a) => a.iter().map(nodes).sum(),
            serde_json::Value::Object(o) => o.values().map(nodes).sum(),
            _ => 0,
        }
    }

    fn depth(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Array(a) => 1 + a.iter().map(depth).max().unwrap_or(0),
            serde_json::Value::Object(o) => 1 + o.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    fn read(v: &serde_json::Value, limits: &Limits) -> Result<serde_json::Value, Error> {
        match value_from_host(v, limits) {
            Ok(v) => Ok(v),
            Err(HostRead::Engine(e)) => Err(e),
            Err(HostRead::Host(e)) => panic!("a host error from a JSON value: {e}"),
        }
    }

    fn limit_of(r: Result<serde_json::Value, Error>) -> Option<String> {
        r.err()
            .map(|e| e.0.limit.clone().unwrap_or_else(|| e.code().to_string()))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, .. ProptestConfig::default() })]

        /// A host value reads as the value its compact JSON text reads as,
        /// and each limit refuses it exactly where it refuses that text:
        /// `maxInputBytes` at the text's length, `maxInputNodes` and
        /// `maxDepth` as counted by the text reader.
        #[test]
        fn host_values_are_read_as_their_json_text(v in host_value()) {
            let text = serde_json::to_string(&v).unwrap();
            prop_assert_eq!(read(&v, &Limits::default()).unwrap(), v.clone());
            let at = |f: &dyn Fn(&mut Limits)| { let mut l = Limits::default(); f(&mut l); l };
            let bytes = text.len();
            prop_assert!(read(&v, &at(&|l| l.max_input_bytes = bytes)).is_ok());
            prop_assert_eq!(
                limit_of(read(&v, &at(&|l| l.max_input_bytes = bytes - 1))),
                Some("maxInputBytes".to_string())
            );
            let n = nodes(&v);
            for l in [at(&|l| l.max_input_nodes = n), at(&|l| l.max_input_nodes = n - 1)] {
                let as_text = workload_lens::source::read_value(&text, &l);
                prop_assert_eq!(limit_of(read(&v, &l)), limit_of(as_text));
            }
            let d = depth(&v);
            for max in [d, d.saturating_sub(1)] {
                let l = at(&|l| l.max_depth = max);
                let as_text = workload_lens::source::read_value(&text, &l);
                prop_assert_eq!(limit_of(read(&v, &l)), limit_of(as_text));
            }
        }
    }

    #[test]
    fn what_json_cannot_hold_is_a_usage_error() {
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let host: de::value::F64Deserializer<de::value::Error> = x.into_deserializer();
            match value_from_host(host, &Limits::default()) {
                Err(HostRead::Engine(e)) => {
                    assert_eq!(e.code(), ErrorCode::Usage);
                    assert!(e.message().contains("not finite"), "{e}");
                }
                other => panic!("{other:?}"),
            }
        }
        // Two keys the host converted to the same string.
        let twice = vec![("1", 1), ("1", 2)];
        let host = de::value::MapDeserializer::<_, de::value::Error>::new(twice.into_iter());
        match value_from_host(host, &Limits::default()) {
            Err(HostRead::Engine(e)) => {
                assert_eq!(e.code(), ErrorCode::Usage);
                assert!(e.message().contains(r#"the key "1" twice"#), "{e}");
            }
            other => panic!("{other:?}"),
        }
        // The key met twice is found before its value is read: whatever
        // limit that value would pass, the key is the error.
        let deep = serde_json::json!([[[[1]]]]);
        for limits in [
            Limits {
                max_depth: 2,
                ..Limits::default()
            },
            Limits {
                max_input_bytes: 12,
                ..Limits::default()
            },
        ] {
            let twice = vec![("1", serde_json::json!(1)), ("1", deep.clone())];
            let host = de::value::MapDeserializer::<_, serde_json::Error>::new(twice.into_iter());
            match value_from_host(host, &limits) {
                Err(HostRead::Engine(e)) => {
                    assert!(e.message().contains(r#"the key "1" twice"#), "{e}");
                }
                other => panic!("{other:?}"),
            }
        }
    }

    /// A host value of any size: `deep` nested lists around an endless list
    /// of strings (a Python generator, say), or, with `error`, a host that
    /// fails at the first element.
    struct Endless {
        deep: usize,
        error: bool,
    }

    impl<'de> de::Deserializer<'de> for Endless {
        type Error = de::value::Error;

        fn deserialize_any<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
            v.visit_seq(self)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
            bytes byte_buf option unit unit_struct newtype_struct seq tuple
            tuple_struct map struct enum identifier ignored_any
        }
    }

    impl<'de> de::SeqAccess<'de> for Endless {
        type Error = de::value::Error;

        fn next_element_seed<T: de::DeserializeSeed<'de>>(
            &mut self,
            seed: T,
        ) -> Result<Option<T::Value>, Self::Error> {
            if self.error {
                return Err(de::Error::custom("the host's own error"));
            }
            if self.deep > 0 {
                let inner = Endless {
                    deep: self.deep - 1,
                    error: false,
                };
                return seed.deserialize(inner).map(Some);
            }
            seed.deserialize("x".repeat(100).into_deserializer())
                .map(Some)
        }
    }

    /// The walk is bounded by the limits whatever the host holds: nesting
    /// 10x the hard cap stops at `maxDepth` (no stack overflow), an endless
    /// list at `maxInputBytes` or, without that, at `maxInputNodes`, and a
    /// host's own error comes back as it is.
    #[test]
    fn the_walk_of_a_host_value_is_bounded() {
        let l = Limits::default();
        match value_from_host(
            Endless {
                deep: 0,
                error: false,
            },
            &l,
        ) {
            Err(HostRead::Engine(e)) => assert_eq!(e.0.limit.as_deref(), Some("maxInputBytes")),
            other => panic!("{:?}", other.map(|_| ())),
        }
        let deep = Endless {
            deep: 10 * workload_lens::HARD_MAX_DEPTH,
            error: false,
        };
        let raised = Limits {
            max_depth: usize::MAX,
            ..Limits::default()
        };
        match value_from_host(deep, &raised) {
            Err(HostRead::Engine(e)) => assert_eq!(e.0.limit.as_deref(), Some("maxDepth")),
            other => panic!("{:?}", other.map(|_| ())),
        }
        let endless = Endless {
            deep: 0,
            error: false,
        };
        let no_byte_limit = Limits {
            max_input_bytes: usize::MAX,
            ..Limits::default()
        };
        match value_from_host(endless, &no_byte_limit) {
            Err(HostRead::Engine(e)) => assert_eq!(e.0.limit.as_deref(), Some("maxInputNodes")),
            other => panic!("{:?}", other.map(|_| ())),
        }
        let small = Limits {
            max_input_bytes: 10_000,
            ..Limits::default()
        };
        match value_from_host(
            Endless {
                deep: 0,
                error: false,
            },
            &small,
        ) {
            Err(HostRead::Engine(e)) => {
                assert_eq!(e.0.limit.as_deref(), Some("maxInputBytes"));
                assert!(e.message().contains("10000 bytes as compact JSON"), "{e}");
            }
            other => panic!("{:?}", other.map(|_| ())),
        }
        match value_from_host(
            Endless {
                deep: 3,
                error: true,
            },
            &l,
        ) {
            Err(HostRead::Host(e)) => assert_eq!(e.to_string(), "the host's own error"),
            other => panic!("{:?}", other.map(|_| ())),
        }
    }
}
