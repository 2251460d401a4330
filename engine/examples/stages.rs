use std::time::Instant;
use workload_lens::abi;
fn main() {
    let def = r#"{"apiVersion":"run.ai/v1alpha1","kind":"Karta","metadata":{"name":"roles"},"spec":{"structureDefinition":{"rootComponent":{"name":"app","kind":{"group":"example.com","version":"v1","kind":"App"},"statusDefinition":{"statusMappings":{}}},"childComponents":[{"name":"worker","ownerRef":"app","specDefinition":{"podTemplateSpecPath":".spec.template"},"podSelector":{"componentTypeSelector":{"keyPath":".metadata.labels.role","value":"worker"}}},{"name":"launcher","ownerRef":"app","specDefinition":{"podTemplateSpecPath":".spec.launcher"},"podSelector":{"componentTypeSelector":{"keyPath":".metadata.labels.role","value":"launcher"}}}]}}}"#;
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(100_000);
    let limits = std::env::args().nth(2);
    let mut pods = String::from("[");
    for i in 100_000..100_000 + n {
        if i > 100_000 {
            pods.push(',');
        }
        pods.push_str(&format!(r#"{{"metadata":{{"name":"p{i}","labels":{{"role":"worker"}}}},"spec":{{"nodeName":"n{i}"}}}}"#));
    }
    pods.push(']');
    let d = abi::compile(def, limits.as_deref())
        .map_err(|e| format!("{e:?}"))
        .unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let l = d.limits();
        let items = workload_lens::Engine::builder()
            .limits(*l)
            .build()
            .unwrap()
            .read_objects(&pods)
            .unwrap();
        let t1 = t.elapsed();
        let r = d.attribute_pods(None, &items);
        let t2 = t.elapsed();
        drop(items);
        let t3 = t.elapsed();
        println!(
            "read {:?} attribute {:?} drop {:?} ok={}",
            t1,
            t2 - t1,
            t3 - t2,
            r.is_ok()
        );
    }
}
