//! Resource quantities and totals on hostile input: negative requests are
//! refused with their location (never summed), counts and totals that do
//! not fit in 64 bits are overflow errors (never clamped), quantities with
//! 10,000 digits or huge exponents are typed errors, and error messages and
//! locations stay bounded whatever the size of the ids and values in them.

use serde_json::{Value, json};
use workload_lens::{CompiledDefinition, Error, ErrorCode, Limits, Quantity, evaluate};

/// `example.com/v1 App`: a multi-instance `pool` (`.spec.pools[]`, each
/// with `name`, `replicas` and a pod `template`) and a single-instance
/// `extra` (`.spec.extra`), both children of the root.
const DEFINITION: &str = r#"
apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: app
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: App}
      statusDefinition:
        statusMappings:
          running:
            - byPhase: Running
    childComponents:
      - name: pool
        ownerRef: app
        instanceIdPath: .spec.pools[].name
        podSelector:
          componentTypeSelector:
            keyPath: '.metadata.labels["role"]'
            value: pool
          componentInstanceSelector:
            idPath: '.metadata.labels["pool"]'
        specDefinition:
          podTemplateSpecPath: .spec.pools[].template
        scaleDefinition:
          replicasPath: .spec.pools[].replicas
      - name: extra
        ownerRef: app
        specDefinition:
          podTemplateSpecPath: .spec.extra.template
        scaleDefinition:
          replicasPath: .spec.extra.replicas
"#;

fn definition() -> CompiledDefinition {
    match CompiledDefinition::from_text(DEFINITION, Limits::default()) {
        Ok(d) => d,
        Err(e) => panic!("the test definition does not compile: {e}"),
    }
}

/// A pod template whose containers request these resource lists (each a
/// `resources` object).
fn template(containers: &[Value]) -> Value {
    let containers: Vec<Value> = containers
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"name": format!("c{i}"), "image": "busybox", "resources": r}))
        .collect();
    json!({"spec": {"containers": containers}})
}

/// A pool instance.
fn pool(name: &str, replicas: i64, containers: &[Value]) -> Value {
    json!({"name": name, "replicas": replicas, "template": template(containers)})
}

/// The workload with these pools and, optionally, `extra`.
fn app(pools: Vec<Value>, extra: Option<(i64, &[Value])>) -> Value {
    let mut spec = json!({"pools": pools});
    if let Some((replicas, containers)) = extra {
        spec["extra"] = json!({"replicas": replicas, "template": template(containers)});
    }
    json!({
        "apiVersion": "example.com/v1",
        "kind": "App",
        "metadata": {"name": "a", "namespace": "ns"},
        "spec": spec,
    })
}

#[track_caller]
fn resolve_err(obj: &Value) -> Error {
    match definition().resolve(obj) {
        Ok(r) => panic!(
            "expected an error, got totals {}",
            serde_json::to_string(&r.totals).unwrap_or_default()
        ),
        Err(e) => e,
    }
}

fn limits_gpu(n: Value) -> Value {
    json!({"limits": {"nvidia.com/gpu": n}})
}

/// An overflow of a total: code `limit` without a `limit` name, and a
/// message that says "overflow" (docs/reliability.md).
#[track_caller]
fn assert_total_overflow(e: &Error) {
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
    assert_eq!(e.limit(), None, "{e}");
    assert!(e.message().contains("overflow"), "{e}");
}

/// An overflow of one pod's request: code `limit` like the other totals,
/// no `limit` name, "overflow"; never a clamped count.
#[track_caller]
fn assert_pod_overflow(e: &Error) {
    assert_eq!(e.code(), ErrorCode::Limit, "{e}");
    assert_eq!(e.limit(), None, "{e}");
    assert!(e.message().contains("overflow"), "{e}");
}

#[test]
fn a_negative_gpu_request_does_not_cancel_a_positive_one() {
    let obj = app(
        vec![pool("a", 1, &[limits_gpu(json!(4)), limits_gpu(json!(-4))])],
        None,
    );
    let e = resolve_err(&obj);
    assert_eq!(e.code(), ErrorCode::Conversion, "{e}");
    assert!(e.message().contains("negative"), "{e}");
    let l = e.location();
    assert_eq!(l.component.as_deref(), Some("pool"));
    assert_eq!(l.instance.as_deref(), Some("a"));
    assert_eq!(
        l.object_path.as_deref(),
        Some("spec.containers[1].resources.limits[\"nvidia.com/gpu\"]")
    );
}

#[test]
fn negative_quantities_of_every_kind_are_refused() {
    for (resources, path) in [
        (
            json!({"requests": {"cpu": "-100m"}}),
            "spec.containers[0].resources.requests.cpu",
        ),
        (
            json!({"requests": {"memory": "-1Gi"}}),
            "spec.containers[0].resources.requests.memory",
        ),
        (
            json!({"requests": {"memory": "1Gi"}, "limits": {"memory": "-1Gi"}}),
            "spec.containers[0].resources.limits.memory",
        ),
        (
            json!({"limits": {"nvidia.com/mig-1g.5gb": "-1"}}),
            "spec.containers[0].resources.limits[\"nvidia.com/mig-1g.5gb\"]",
        ),
        (
            json!({"requests": {"ephemeral-storage": -0.5}}),
            "spec.containers[0].resources.requests[\"ephemeral-storage\"]",
        ),
    ] {
        let e = resolve_err(&app(
            vec![pool("a", 2, std::slice::from_ref(&resources))],
            None,
        ));
        assert_eq!(e.code(), ErrorCode::Conversion, "{resources}: {e}");
        assert_eq!(e.location().object_path.as_deref(), Some(path), "{e}");
        assert!(e.message().contains("negative"), "{e}");
    }
    // Zero is a request like any other.
    let obj = app(vec![pool("a", 2, &[limits_gpu(json!(0))])], None);
    let d = definition();
    let r = d.resolve(&obj).map_err(|e| e.to_string());
    assert_eq!(r.map(|r| r.totals.resources.gpu), Ok(0));
}

#[test]
fn a_pod_with_a_negative_request_gets_a_finding() {
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {"containers": [
            {"name": "a", "resources": {"limits": {"nvidia.com/gpu": 4}}},
            {"name": "b", "resources": {"limits": {"nvidia.com/gpu": -4}}},
        ]},
        "status": {"phase": "Running"},
    });
    let att = match definition().attribute_pods(None, &[pod]) {
        Ok(a) => a,
        Err(e) => panic!("{e}"),
    };
    let p = att
        .pods
        .first()
        .unwrap_or_else(|| panic!("no pod in the attribution"));
    assert_eq!(p.resources.gpu, 0);
    let finding = p
        .findings
        .iter()
        .find(|f| f.code == "invalid-pod")
        .unwrap_or_else(|| panic!("no invalid-pod finding: {:?}", p.findings));
    assert!(finding.message.contains("negative"), "{}", finding.message);
    assert!(
        finding
            .message
            .contains("spec.containers[1].resources.limits[\"nvidia.com/gpu\"]"),
        "{}",
        finding.message
    );
}

#[test]
fn a_gpu_quantity_beyond_u64_is_an_overflow_not_u64_max() {
    // It used to saturate to 18446744073709551615 GPUs.
    for gpus in [json!("1e20"), json!("18446744073709551616"), json!(1e20)] {
        let obj = app(vec![pool("a", 1, &[limits_gpu(gpus.clone())])], None);
        let e = resolve_err(&obj);
        assert_pod_overflow(&e);
        assert_eq!(e.location().instance.as_deref(), Some("a"), "{gpus}");
        assert_eq!(
            e.location().object_path.as_deref(),
            Some("spec.containers[0].resources.limits[\"nvidia.com/gpu\"]"),
            "{gpus}"
        );
    }
    // u64::MAX itself fits.
    let obj = app(
        vec![pool("a", 1, &[limits_gpu(json!("18446744073709551615"))])],
        None,
    );
    let d = definition();
    let r = d.resolve(&obj).map_err(|e| e.to_string());
    assert_eq!(r.map(|r| r.totals.resources.gpu), Ok(u64::MAX));
}

#[test]
fn counts_of_one_pod_that_overflow_are_errors() {
    // Millicores: 2e16 cores fit as a quantity, not as millicores in a u64.
    let e = resolve_err(&app(
        vec![pool("a", 1, &[json!({"requests": {"cpu": "2e16"}})])],
        None,
    ));
    assert_pod_overflow(&e);
    // Memory summed over containers: 8Ei (capped at 2^63-1 bytes) three times.
    let big = json!({"requests": {"memory": "8Ei"}});
    let e = resolve_err(&app(
        vec![pool("a", 1, &[big.clone(), big.clone(), big])],
        None,
    ));
    assert_pod_overflow(&e);
    assert_eq!(
        e.location().object_path.as_deref(),
        Some("spec.containers[2]")
    );
}

#[test]
fn totals_that_overflow_are_limit_errors() {
    // Requests x replicas: GPUs, millicores, bytes.
    for resources in [
        limits_gpu(json!("1e19")),
        json!({"requests": {"cpu": "1e16"}}),
        json!({"requests": {"memory": "8Ei"}}),
        json!({"requests": {"ephemeral-storage": "8Ei"}}),
    ] {
        let e = resolve_err(&app(
            vec![pool("a", 3, std::slice::from_ref(&resources))],
            None,
        ));
        assert_total_overflow(&e);
        assert_eq!(e.location().component.as_deref(), Some("pool"), "{e}");
        assert_eq!(e.location().instance.as_deref(), Some("a"), "{e}");
    }
    // Summed over the instances of one component.
    let six = json!({"requests": {"memory": "6Ei"}});
    let pools = ["a", "b", "c"]
        .iter()
        .map(|n| pool(n, 1, std::slice::from_ref(&six)))
        .collect();
    let e = resolve_err(&app(pools, None));
    assert_total_overflow(&e);
    assert_eq!(e.location().component.as_deref(), Some("pool"), "{e}");
    // Summed over components: each fits alone.
    let obj = app(
        vec![pool("a", 2, std::slice::from_ref(&six))],
        Some((1, std::slice::from_ref(&six))),
    );
    let e = resolve_err(&obj);
    assert_total_overflow(&e);
    // Just below the limit everything adds up exactly.
    let obj = app(
        vec![pool("a", 1, &[json!({"requests": {"memory": "7Ei"}})])],
        Some((1, &[json!({"requests": {"memory": "8Ei"}})])),
    );
    let d = definition();
    let r = d.resolve(&obj).map_err(|e| e.to_string());
    assert_eq!(
        r.map(|r| r.totals.resources.memory_bytes),
        Ok(7 * (1u64 << 60) + (u64::MAX >> 1))
    );
}

#[test]
fn extended_totals_are_exact_or_overflow() {
    // Extended resources are exact quantities up to 2^96.
    let obj = app(
        vec![pool("a", 1000, &[json!({"limits": {"rdma/ib": "1e26"}})])],
        None,
    );
    let e = resolve_err(&obj);
    assert_total_overflow(&e);
    let obj = app(
        vec![pool("a", 1000, &[json!({"limits": {"rdma/ib": "1e20"}})])],
        None,
    );
    let d = definition();
    let r = d.resolve(&obj).map_err(|e| e.to_string());
    assert_eq!(
        r.map(|r| r.totals.resources.extended["rdma/ib"].to_canonical_string()),
        Ok("100e21".to_string())
    );
}

#[test]
fn quantities_with_ten_thousand_digits_are_typed_errors() {
    let digits = "9".repeat(10_000);
    let tiny = format!("0.{}1", "0".repeat(9_998));
    for text in [
        digits.clone(),
        tiny,
        format!("1{digits}Ki"),
        format!("-{digits}"),
    ] {
        let obj = app(
            vec![pool("a", 1, &[json!({"requests": {"cpu": text}})])],
            None,
        );
        let e = resolve_err(&obj);
        assert_eq!(e.code(), ErrorCode::Conversion, "{e}");
        assert!(e.message().len() < 1024, "{}", e.message().len());
        assert_eq!(
            e.location().object_path.as_deref(),
            Some("spec.containers[0].resources.requests.cpu")
        );
    }
    // As a YAML number: beyond f64, a parse error of the object text.
    let text = format!(
        "apiVersion: example.com/v1\nkind: App\nmetadata: {{name: a}}\nspec:\n  pools:\n  \
         - name: a\n    replicas: 1\n    template:\n      spec:\n        containers:\n        \
         - name: c\n          resources: {{requests: {{cpu: {digits}}}}}\n"
    );
    let e = match definition().resolve_text(&text) {
        Ok(_) => panic!("a 10,000-digit number resolved"),
        Err(e) => e,
    };
    assert!(
        matches!(e.code(), ErrorCode::Parse | ErrorCode::Conversion),
        "{e}"
    );
    // The reader's message quotes the number; the error keeps a preview.
    assert!(e.message().len() < 9 * 1024, "{}", e.message().len());
}

#[test]
fn quantities_with_huge_exponents_are_typed_errors_or_exact() {
    for text in [
        "1e999999999999",
        "1e2147483647",
        "1E2147483648",
        "1e-2147483649",
        "9e29",
    ] {
        assert!(Quantity::parse(text).is_err(), "{text}");
        let obj = app(
            vec![pool("a", 1, &[json!({"requests": {"memory": text}})])],
            None,
        );
        let e = resolve_err(&obj);
        assert_eq!(e.code(), ErrorCode::Conversion, "{text}: {e}");
    }
    // A tiny value rounds up to a whole milli-unit, then to one byte.
    let obj = app(
        vec![pool(
            "a",
            1,
            &[json!({"requests": {"memory": "1e-2147483648"}})],
        )],
        None,
    );
    let d = definition();
    let r = d.resolve(&obj).map_err(|e| e.to_string());
    assert_eq!(r.map(|r| r.totals.resources.memory_bytes), Ok(1));
    // A float beyond any count, from JSON.
    let obj = app(vec![pool("a", 1, &[limits_gpu(json!(1e300))])], None);
    assert_eq!(resolve_err(&obj).code(), ErrorCode::Conversion);
}

#[test]
fn a_four_mib_instance_id_is_previewed_in_the_error() {
    let id = "i".repeat(4 << 20);
    let obj = app(vec![pool(&id, 1, &[limits_gpu(json!(-1))])], None);
    let e = resolve_err(&obj);
    assert_eq!(e.code(), ErrorCode::Conversion, "{}", e.message());
    let instance = e.location().instance.as_deref().unwrap_or_default();
    assert!(instance.len() < 600, "instance of {} bytes", instance.len());
    assert!(instance.starts_with("iiii"), "{instance}");
    assert!(
        instance.ends_with(&format!("({} more bytes)", id.len() - 512)),
        "{}",
        &instance[500..]
    );
    let json = serde_json::to_string(&e).unwrap_or_default();
    assert!(json.len() < 4096, "error JSON of {} bytes", json.len());
    assert!(e.to_string().len() < 4096);
    // The JSON shape is unchanged.
    let v: Value = serde_json::from_str(&json).unwrap_or_default();
    let mut keys: Vec<&str> = v
        .as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default();
    keys.sort_unstable();
    assert_eq!(keys, ["code", "location", "message"]);
}

#[test]
fn a_four_mib_error_message_is_previewed() {
    let big = "m".repeat(4 << 20);
    let e = match evaluate(".x | error", &json!({"x": big}), &Limits::default()) {
        Ok(v) => panic!("{} outputs", v.len()),
        Err(e) => e,
    };
    assert_eq!(e.code(), ErrorCode::JqRuntime, "{}", e.message().len());
    assert!(
        e.message().len() < 9 * 1024,
        "message of {} bytes",
        e.message().len()
    );
    assert!(
        e.message().ends_with("more bytes)"),
        "{}",
        e.message().len()
    );
    // Short messages are whole.
    let e = match evaluate("error(\"boom\")", &json!(null), &Limits::default()) {
        Ok(v) => panic!("{} outputs", v.len()),
        Err(e) => e,
    };
    assert!(e.message().ends_with("boom"), "{}", e.message());
}

#[test]
fn duplicate_huge_ids_give_a_bounded_error() {
    // Two pools with the same 4 MiB id: whatever the error says about
    // them, its message and location stay small.
    let id = "d".repeat(4 << 20);
    let obj = app(
        vec![
            pool(&id, 1, &[limits_gpu(json!(1))]),
            pool(&id, 1, &[limits_gpu(json!(1))]),
        ],
        None,
    );
    let e = resolve_err(&obj);
    let json = serde_json::to_string(&e).unwrap_or_default();
    assert!(json.len() < 16 * 1024, "error JSON of {} bytes", json.len());
}
