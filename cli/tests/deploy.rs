//! `deploy/`: the manifests that run `workload-lens serve` in a cluster.
//!
//! Without a server (every stage): the ClusterRole grants get, list and
//! watch and nothing else, on exactly the resources the exporter reads as
//! the catalog (`definitions/`) has it (a definition added without its rule
//! fails here), and the manifests fit together (names, labels, ports,
//! probes, security context, `honorLabels`).
//!
//! With the live stage's API server (`WORKLOAD_LENS_LIVE_DIR`, see
//! testing/live/README.md; skipped without it): every manifest passes a
//! server-side dry run (the ServiceMonitor against the CRD of
//! testing/deploy/), the namespace's `restricted` Pod Security admits the
//! Deployment's pod, and `workload-lens serve`, run with the token of the
//! manifests' own ServiceAccount bound by their own ClusterRoleBinding,
//! watches every type without a refusal and reports the workloads the admin
//! lists; a role without one rule shows that watch as forbidden; an owner
//! kind outside the catalog (a static pod's Node) is watched before the
//! exporter says it is ready.
//!
//! What the live part creates for real, and leaves: the ServiceMonitor CRD,
//! the namespace `workload-lens` with the ServiceAccount, the ClusterRole and
//! ClusterRoleBinding `workload-lens` (no workload, so the other live suites
//! list what they listed before).
#![cfg(feature = "cluster")]

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use workload_lens::Engine;
use workload_lens::model::{
    API_VERSION_KARTA, API_VERSION_RESOURCE_INTERFACE, KIND_KARTA, KIND_RESOURCE_INTERFACE,
};

mod api;

use api::Api;

/// The namespace of every namespaced object of deploy/.
const NAMESPACE: &str = "workload-lens";
/// The ServiceAccount, ClusterRole, ClusterRoleBinding, Deployment, Service
/// and ServiceMonitor are all called this.
const NAME: &str = "workload-lens";
const VERBS: [&str; 3] = ["get", "list", "watch"];

/// Kinds the catalog's definitions name (child components,
/// `additionalChildKinds`) that no definition covers and that control pods,
/// or control what controls them: a pod's chain to its workload passes
/// through them, so the exporter watches them (owner kinds) and the role
/// must let it.
const OWNER_KINDS: [(&str, &str); 5] = [
    // Grove: a PodClique owns its pods; a PodCliqueScalingGroup owns
    // PodCliques.
    ("grove.io", "PodClique"),
    ("grove.io", "PodCliqueScalingGroup"),
    // Knative: Service -> Configuration -> Revision -> Deployment.
    ("serving.knative.dev", "Configuration"),
    ("serving.knative.dev", "Revision"),
    // Dynamo: DynamoGraphDeployment -> DynamoComponentDeployment ->
    // Deployment or LeaderWorkerSet.
    ("nvidia.com", "DynamoComponentDeployment"),
];

/// The other kinds the definitions name and no definition covers: they
/// control no pod (services, routes, autoscalers, volumes, gang-scheduling
/// groups), so the exporter never reads them and the role has no rule.
const NOT_OWNERS: [(&str, &str); 10] = [
    ("", "ConfigMap"),
    ("", "PersistentVolumeClaim"),
    ("", "Service"),
    ("autoscaling", "HorizontalPodAutoscaler"),
    ("gateway.networking.k8s.io", "HTTPRoute"),
    ("inference.networking.k8s.io", "InferencePool"),
    ("networking.k8s.io", "Ingress"),
    ("scheduler.grove.io", "PodGang"),
    ("scheduling.volcano.sh", "PodGroup"),
    ("serving.knative.dev", "Route"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The resource (plural) of a kind, as kubectl and client-go guess it
/// when there is no discovery to ask (kube-rs' `ApiResource::from_gvk`
/// implements the same rule): lower case, then `-es` after s/x/z/ch/sh,
/// `-ies` for a consonant and y, else `-s`. A definition carries no plural;
/// `plurals_follow_the_convention` checks the rule against every CRD of the
/// repository, and the live test against the server's discovery.
fn plural(kind: &str) -> String {
    let gvk = kube::core::GroupVersionKind::gvk("", "v1", kind);
    kube::core::ApiResource::from_gvk(&gvk).plural
}

fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

/// Every YAML document of deploy/ (and its subdirectories but
/// deploy/prometheus/, which holds Prometheus' own files: a rule file, not
/// Kubernetes objects; the metrics stage checks it), as (file, object), in
/// the order `kubectl apply -f` would take them.
fn manifests() -> Vec<(String, Value)> {
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| !p.ends_with("deploy/prometheus"))
            .collect();
        entries.sort();
        let (dirs, plain): (Vec<PathBuf>, Vec<PathBuf>) =
            entries.into_iter().partition(|p| p.is_dir());
        out.extend(
            plain
                .into_iter()
                .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml")),
        );
        for d in dirs {
            files(&d, out);
        }
    }
    let engine = Engine::new().unwrap();
    let deploy = root().join("deploy");
    let mut paths = Vec::new();
    files(&deploy, &mut paths);
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.strip_prefix(&deploy).unwrap().display().to_string();
        for o in engine
            .read_objects(&text)
            .unwrap_or_else(|e| panic!("deploy/{name}: {e}"))
        {
            out.push((name.clone(), o));
        }
    }
    assert!(!out.is_empty(), "no manifests in {}", deploy.display());
    out
}

/// The one object of `kind` in deploy/.
fn manifest(kind: &str) -> Value {
    let all: Vec<Value> = manifests()
        .into_iter()
        .map(|(_, o)| o)
        .filter(|o| o["kind"] == kind)
        .collect();
    assert_eq!(all.len(), 1, "one {kind} in deploy/");
    all.into_iter().next().unwrap()
}

/// The (API group, resource) pairs the role grants, after checking that
/// each rule is a plain get/list/watch on named resources.
fn role_rules(role: &Value) -> Pairs {
    let mut pairs = BTreeSet::new();
    let rules = role["rules"].as_array().expect("the ClusterRole has rules");
    for rule in rules {
        let keys: BTreeSet<&str> = rule
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(
            keys,
            BTreeSet::from(["apiGroups", "resources", "verbs"]),
            "a rule names API groups, resources and verbs only (no resourceNames, no \
             nonResourceURLs): {rule}"
        );
        let list = |k: &str| -> Vec<String> {
            rule[k]
                .as_array()
                .unwrap_or_else(|| panic!("{k} of {rule}"))
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        let mut verbs = list("verbs");
        verbs.sort();
        assert_eq!(verbs, VERBS, "only get, list and watch: {rule}");
        for group in list("apiGroups") {
            assert!(!group.contains('*'), "no wildcard group: {rule}");
            for resource in list("resources") {
                assert!(
                    !resource.contains('*') && !resource.contains('/'),
                    "no wildcard and no subresource: {rule}"
                );
                assert!(
                    pairs.insert((group.clone(), resource.clone())),
                    "{resource} of group {group:?} granted twice"
                );
            }
        }
    }
    pairs
}

/// (API group, kind or resource).
type Pairs = BTreeSet<(String, String)>;

/// The catalog's kinds: the ones a definition covers (its root kind), and
/// the others its definitions name, as (group, kind).
fn catalog_kinds() -> (Pairs, Pairs) {
    let engine = Engine::new().unwrap();
    let mut covered = BTreeSet::new();
    let mut named = BTreeSet::new();
    for d in engine.definitions() {
        let root = d.root_gvk();
        assert!(!root.kind.is_empty(), "{}: no root kind", d.name());
        covered.insert((root.group.clone(), root.kind.clone()));
        let s = &d.definition().spec.structure_definition;
        for g in s
            .child_components
            .iter()
            .filter_map(|c| c.kind.as_ref())
            .chain(&s.additional_child_kinds)
        {
            named.insert((g.group.clone(), g.kind.clone()));
        }
    }
    let named = named.difference(&covered).cloned().collect();
    (covered, named)
}

/// What the role must grant: pods, every covered type, the owner kinds,
/// the definition types.
fn expected_rules() -> Pairs {
    let (covered, named) = catalog_kinds();
    let unclassified: Vec<String> = named
        .iter()
        .filter(|(g, k)| {
            !OWNER_KINDS
                .iter()
                .chain(&NOT_OWNERS)
                .any(|(og, ok)| og == g && ok == k)
        })
        .map(|(g, k)| format!("{k}.{g}"))
        .collect();
    assert!(
        unclassified.is_empty(),
        "the catalog's definitions name kinds no definition covers: {unclassified:?}. If a pod's \
         controller chain can pass through one, add it to OWNER_KINDS here and its resource to \
         deploy/20-clusterrole.yaml; else to NOT_OWNERS"
    );
    let mut want = Pairs::new();
    want.insert((String::new(), "pods".into()));
    for (group, kind) in covered.iter().chain(
        OWNER_KINDS
            .iter()
            .map(|(g, k)| (g.to_string(), k.to_string()))
            .collect::<Vec<_>>()
            .iter(),
    ) {
        want.insert((group.clone(), plural(kind)));
    }
    for (api_version, kind) in [
        (API_VERSION_KARTA, KIND_KARTA),
        (API_VERSION_RESOURCE_INTERFACE, KIND_RESOURCE_INTERFACE),
    ] {
        want.insert((group_of(api_version).to_string(), plural(kind)));
    }
    want
}

fn show(pairs: &Pairs) -> Vec<String> {
    pairs
        .iter()
        .map(|(g, r)| {
            if g.is_empty() {
                r.clone()
            } else {
                format!("{r}.{g}")
            }
        })
        .collect()
}

#[test]
fn cluster_role_grants_exactly_what_the_catalog_needs() {
    let role = manifest("ClusterRole");
    let have = role_rules(&role);
    let want = expected_rules();
    let missing: BTreeSet<_> = want.difference(&have).cloned().collect();
    let extra: BTreeSet<_> = have.difference(&want).cloned().collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "deploy/20-clusterrole.yaml: missing {:?} (a catalog type, owner kind or definition \
         type without its rule); not read by the exporter {:?}",
        show(&missing),
        show(&extra)
    );
    // The catalog is not empty and the role is more than pods.
    assert!(want.len() > 20, "{want:?}");
}

#[test]
fn owner_kind_lists_name_only_what_the_catalog_names() {
    let (covered, named) = catalog_kinds();
    for (g, k) in OWNER_KINDS.iter().chain(&NOT_OWNERS) {
        let key = (g.to_string(), k.to_string());
        assert!(
            !covered.contains(&key),
            "{k}.{g} is covered by a definition now: drop it from OWNER_KINDS/NOT_OWNERS"
        );
        assert!(
            named.contains(&key),
            "{k}.{g}: no definition names it any more: drop it from OWNER_KINDS/NOT_OWNERS (and \
             its rule)"
        );
    }
}

#[test]
fn plurals_follow_the_convention() {
    // Every CRD of the repository: the live scenario's, and deploy's own.
    let engine = Engine::new().unwrap();
    let mut seen = 0;
    for dir in ["testing/live/crds", "testing/deploy"] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = entry.unwrap().path();
            if p.extension().is_none_or(|e| e != "yaml") {
                continue;
            }
            for crd in engine
                .read_objects(&std::fs::read_to_string(&p).unwrap())
                .unwrap()
                .into_iter()
                .filter(|o| o["kind"] == "CustomResourceDefinition")
            {
                let names = &crd["spec"]["names"];
                let kind = names["kind"].as_str().unwrap();
                assert_eq!(
                    plural(kind),
                    names["plural"].as_str().unwrap(),
                    "{}",
                    p.display()
                );
                seen += 1;
            }
        }
    }
    assert!(seen >= 10, "{seen} CRDs");
    // Built-in kinds of the catalog, as the API server names them.
    for (kind, resource) in [
        ("Pod", "pods"),
        ("ReplicaSet", "replicasets"),
        ("DaemonSet", "daemonsets"),
        ("CronJob", "cronjobs"),
        ("Service", "services"),
    ] {
        assert_eq!(plural(kind), resource);
    }
}

fn at<'v>(v: &'v Value, path: &str) -> &'v Value {
    path.split('.').fold(v, |v, k| match k.parse::<usize>() {
        Ok(i) => &v[i],
        Err(_) => &v[k],
    })
}

fn container(deployment: &Value) -> &Value {
    let containers = at(deployment, "spec.template.spec.containers")
        .as_array()
        .unwrap();
    assert_eq!(containers.len(), 1, "one container");
    &containers[0]
}

/// Whether every label of `selector` is among `labels`.
fn selects(selector: &Value, labels: &Value) -> bool {
    let s = selector.as_object().unwrap();
    !s.is_empty() && s.iter().all(|(k, v)| labels.get(k) == Some(v))
}

#[test]
fn manifests_fit_together() {
    let all = manifests();
    let kinds: Vec<&str> = all
        .iter()
        .map(|(_, o)| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "Namespace",
            "ServiceAccount",
            "ClusterRole",
            "ClusterRoleBinding",
            "Deployment",
            "Service",
            "ServiceMonitor",
        ],
        "in the order kubectl applies them (the namespace first)"
    );
    for (file, o) in &all {
        let kind = o["kind"].as_str().unwrap();
        let meta = &o["metadata"];
        let cluster_scoped = matches!(kind, "Namespace" | "ClusterRole" | "ClusterRoleBinding");
        if cluster_scoped {
            assert!(meta.get("namespace").is_none(), "{file}");
        } else {
            assert_eq!(meta["namespace"], NAMESPACE, "{file}");
        }
        let name = if kind == "Namespace" { NAMESPACE } else { NAME };
        assert_eq!(meta["name"], name, "{file}");
        assert_eq!(
            meta["labels"]["app.kubernetes.io/name"], "workload-lens",
            "{file}"
        );
    }
    // The namespace enforces the restricted Pod Security Standard.
    let ns = manifest("Namespace");
    assert_eq!(
        ns["metadata"]["labels"]["pod-security.kubernetes.io/enforce"],
        "restricted"
    );

    // The binding grants the role to the ServiceAccount the pods run as.
    let binding = manifest("ClusterRoleBinding");
    assert_eq!(
        binding["roleRef"],
        json!({"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": NAME})
    );
    assert_eq!(
        binding["subjects"],
        json!([{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}])
    );

    let d = manifest("Deployment");
    assert_eq!(d["spec"]["replicas"], 1);
    let pod = at(&d, "spec.template.spec");
    assert_eq!(pod["serviceAccountName"], NAME);
    assert_ne!(pod["automountServiceAccountToken"], false);
    let template_labels = at(&d, "spec.template.metadata.labels");
    assert!(selects(
        at(&d, "spec.selector.matchLabels"),
        template_labels
    ));
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    let c = container(&d);
    assert_eq!(c["args"], json!(["serve", "--listen", "0.0.0.0:9180"]));
    assert!(
        c["image"]
            .as_str()
            .unwrap()
            .starts_with("ghcr.io/workload-lens/workload-lens:")
    );
    assert_eq!(
        c["ports"],
        json!([{"name": "metrics", "containerPort": 9180, "protocol": "TCP"}])
    );
    for (probe, path) in [
        ("startupProbe", "/healthz"),
        ("livenessProbe", "/healthz"),
        ("readinessProbe", "/readyz"),
    ] {
        assert_eq!(
            c[probe]["httpGet"],
            json!({"path": path, "port": "metrics"}),
            "{probe}"
        );
    }
    let sc = &c["securityContext"];
    assert_eq!(sc["readOnlyRootFilesystem"], true);
    assert_eq!(sc["allowPrivilegeEscalation"], false);
    assert_eq!(sc["capabilities"], json!({"drop": ["ALL"]}));
    for kind in ["requests", "limits"] {
        for r in ["cpu", "memory"] {
            assert!(
                c["resources"][kind][r].is_string(),
                "resources.{kind}.{r} set"
            );
        }
    }

    let svc = manifest("Service");
    assert_eq!(svc["spec"]["type"], "ClusterIP");
    assert!(selects(&svc["spec"]["selector"], template_labels));
    assert_eq!(
        svc["spec"]["ports"],
        json!([{"name": "metrics", "port": 9180, "targetPort": "metrics", "protocol": "TCP"}])
    );

    let sm = manifest("ServiceMonitor");
    assert_eq!(sm["apiVersion"], "monitoring.coreos.com/v1");
    assert!(selects(
        at(&sm, "spec.selector.matchLabels"),
        &svc["metadata"]["labels"]
    ));
    assert_eq!(
        at(&sm, "spec.namespaceSelector.matchNames"),
        &json!([NAMESPACE])
    );
    let endpoints = at(&sm, "spec.endpoints").as_array().unwrap();
    assert_eq!(endpoints.len(), 1);
    let e = &endpoints[0];
    assert_eq!(e["port"], "metrics");
    assert_eq!(e["path"], "/metrics");
    assert_eq!(e["interval"], "30s");
    // The exporter's `namespace` and `pod` labels name the workload's pods:
    // kept as they are, not renamed exported_namespace / exported_pod.
    assert_eq!(e["honorLabels"], true);
}

// ---------------------------------------------------------------- live ---

fn live_dir() -> Option<PathBuf> {
    match std::env::var_os("WORKLOAD_LENS_LIVE_DIR") {
        Some(d) => Some(PathBuf::from(d)),
        None => {
            eprintln!("skipped: no live server (bash scripts/test.sh live runs these tests)");
            None
        }
    }
}

/// The REST path of an object (of a kind deploy/ or these tests write).
fn path_of(o: &Value) -> String {
    let api_version = o["apiVersion"].as_str().unwrap();
    let kind = o["kind"].as_str().unwrap();
    let base = if group_of(api_version).is_empty() {
        format!("/api/{api_version}")
    } else {
        format!("/apis/{api_version}")
    };
    let ns = match o["metadata"]["namespace"].as_str() {
        Some(ns) => format!("/namespaces/{ns}"),
        None => String::new(),
    };
    let name = o["metadata"]["name"].as_str().unwrap();
    format!("{base}{ns}/{}/{name}", plural(kind))
}

const APPLY: &str = "application/apply-patch+yaml";

/// Server-side apply as the tests' field manager; `dry_run`: nothing is
/// stored (admission and validation run all the same).
fn apply(api: &Api, o: &Value, dry_run: bool) -> Result<Value, kube::Error> {
    let mut query = "fieldManager=workload-lens-deploy-test&force=true".to_string();
    if dry_run {
        query.push_str("&dryRun=All");
    }
    api.try_send("PATCH", &format!("{}?{query}", path_of(o)), APPLY, o)
}

fn code(r: &Result<Value, kube::Error>) -> Option<u16> {
    match r {
        Ok(_) => Some(200),
        Err(kube::Error::Api(s)) => Some(s.code),
        Err(_) => None,
    }
}

fn get(api: &Api, path: &str) -> Result<Value, kube::Error> {
    api.try_get(path)
}

/// One live test at a time: each runs an exporter and compares what it
/// reports with the cluster, and one adds objects for a while.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static LIVE: Mutex<()> = Mutex::new(());
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Once per run: the ServiceMonitor CRD (served), and the namespace.
fn setup(dir: &Path) -> Api {
    static DONE: Mutex<bool> = Mutex::new(false);
    let admin = Api::new(&dir.join("kubeconfig"));
    let mut done = DONE.lock().unwrap_or_else(|p| p.into_inner());
    if *done {
        return admin;
    }
    let text = std::fs::read_to_string(
        root().join("testing/deploy/servicemonitors.monitoring.coreos.com.yaml"),
    )
    .unwrap();
    let crd = Engine::new().unwrap().read_object(&text).unwrap();
    apply(&admin, &crd, false).expect("create the ServiceMonitor CRD");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let established = get(&admin, &path_of(&crd)).ok().is_some_and(|c| {
            c["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Established" && c["status"] == "True")
        });
        let served = get(&admin, "/apis/monitoring.coreos.com/v1")
            .ok()
            .is_some_and(|l| l["resources"].to_string().contains("servicemonitors"));
        if established && served {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the ServiceMonitor CRD is not served after 60 s"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    apply(&admin, &manifest("Namespace"), false).expect("create the namespace");
    *done = true;
    admin
}

#[test]
fn manifests_pass_a_server_side_dry_run() {
    let Some(dir) = live_dir() else { return };
    let _one = one_at_a_time();
    let admin = setup(&dir);
    for (file, o) in manifests() {
        let r = apply(&admin, &o, true);
        let back = r.unwrap_or_else(|e| panic!("deploy/{file}: dry run refused: {e}"));
        assert_eq!(back["kind"], o["kind"], "deploy/{file}");
        assert_eq!(back["metadata"]["name"], o["metadata"]["name"]);
    }
    // A dry run stores nothing.
    let d = manifest("Deployment");
    assert_eq!(code(&get(&admin, &path_of(&d))), Some(404));
    let sm = manifest("ServiceMonitor");
    assert_eq!(code(&get(&admin, &path_of(&sm))), Some(404));

    // The dry run validates against the CRD's schema: a ServiceMonitor
    // whose honorLabels is a string, or whose interval is no duration, is
    // refused (POSTed: server-side apply refuses a mistyped field before
    // validation, with a 500).
    let collection = path_of(&sm).rsplit_once('/').unwrap().0.to_string();
    let r = admin.try_send(
        "POST",
        &format!("{collection}?dryRun=All"),
        "application/json",
        &sm,
    );
    assert!(r.is_ok(), "{r:?}");
    for (field, value) in [("honorLabels", json!("true")), ("interval", json!("30"))] {
        let mut bad = sm.clone();
        bad["spec"]["endpoints"][0][field] = value;
        let r = admin.try_send(
            "POST",
            &format!("{collection}?dryRun=All"),
            "application/json",
            &bad,
        );
        assert_eq!(code(&r), Some(422), "{field}: {r:?}");
    }

    // The Deployment's pod, as its ReplicaSet would create it, is admitted
    // by the namespace's restricted Pod Security; one that may gain privileges
    // is not.
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "workload-lens-dry-run", "namespace": NAMESPACE,
                     "labels": at(&d, "spec.template.metadata.labels")},
        "spec": at(&d, "spec.template.spec"),
    });
    let r = apply(&admin, &pod, true);
    assert!(r.is_ok(), "the exporter's pod: {r:?}");
    let mut escalating = pod.clone();
    escalating["spec"]["containers"][0]["securityContext"]["allowPrivilegeEscalation"] =
        json!(true);
    let r = apply(&admin, &escalating, true);
    assert_eq!(code(&r), Some(403), "allowPrivilegeEscalation: {r:?}");
    assert!(format!("{r:?}").contains("PodSecurity"), "{r:?}");
}

/// A running `workload-lens serve`, stopped when dropped.
struct Exporter {
    child: Child,
    addr: String,
}

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Exporter {
    /// `serve` with the kubeconfig, refreshing once changes pause for
    /// `debounce_ms`; returns once /readyz answers 200 (polled every 20 ms).
    fn start(kubeconfig: &Path, debounce_ms: u32) -> Exporter {
        let mut child = Command::new(env!("CARGO_BIN_EXE_workload-lens"))
            .env_remove("KUBECONFIG")
            .args(["serve", "--listen", "127.0.0.1:0", "--debounce-ms"])
            .arg(debounce_ms.to_string())
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run workload-lens serve");
        // Its stderr, read on a thread (it must not fill up): the address
        // it serves on, then whatever it says.
        let (tx, rx) = mpsc::channel::<String>();
        let stderr = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("serve: {line}");
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let addr = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(rest) = line.strip_prefix("serving /metrics on http://") {
                        break rest.split_whitespace().next().unwrap().to_string();
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    panic!(
                        "serve did not say where it listens within 60 s (exit: {:?})",
                        child.try_wait()
                    );
                }
            }
        };
        assert!(!addr.ends_with(":0"), "serve reported port 0: {addr}");
        let exporter = Exporter { child, addr };
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let (status, body) = exporter.get("/readyz");
            if status == 200 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "/readyz not 200 after 90 s: {status} {body}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        exporter
    }

    /// A plain HTTP/1.0 GET: (status, body).
    fn get(&self, path: &str) -> (u16, String) {
        let Ok(mut s) = TcpStream::connect(&self.addr) else {
            return (0, "not listening".into());
        };
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        write!(s, "GET {path} HTTP/1.0\r\nHost: {}\r\n\r\n", self.addr).unwrap();
        let mut text = String::new();
        s.read_to_string(&mut text).unwrap();
        let status = text
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
        (status, body.to_string())
    }

    /// The samples of /metrics (classic text): (name, labels, value).
    fn samples(&self) -> Vec<(String, BTreeMap<String, String>, f64)> {
        let (status, body) = self.get("/metrics");
        assert_eq!(status, 200, "{body}");
        body.lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(parse_sample)
            .collect()
    }
}

/// One exposition line: `name{k="v",...} value`.
fn parse_sample(line: &str) -> (String, BTreeMap<String, String>, f64) {
    let (name, rest) = match line.find('{') {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => {
            let (n, v) = line.split_once(' ').unwrap();
            return (n.to_string(), BTreeMap::new(), v.trim().parse().unwrap());
        }
    };
    let mut labels = BTreeMap::new();
    let mut chars = rest.chars().peekable();
    loop {
        let key: String = chars.by_ref().take_while(|c| *c != '=').collect();
        assert_eq!(chars.next(), Some('"'), "{line}");
        let mut value = String::new();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some(c) => value.push(c),
                    None => {}
                },
                '"' => break,
                c => value.push(c),
            }
        }
        labels.insert(key.trim_start_matches(',').to_string(), value);
        match chars.next() {
            Some(',') if chars.peek() != Some(&'}') => continue,
            _ => break,
        }
    }
    let value: String = chars.collect();
    let value = value.trim_start_matches('}').trim();
    (
        name.to_string(),
        labels,
        value.parse().unwrap_or_else(|_| panic!("{line}")),
    )
}

/// Apply deploy/'s ServiceAccount, ClusterRole and ClusterRoleBinding for
/// real (named `name`, with `rules` if given), and write a kubeconfig
/// with a token of that ServiceAccount into `out`.
fn service_account_kubeconfig(
    admin: &Api,
    dir: &Path,
    name: &str,
    rules: Option<Value>,
    out: &Path,
) -> PathBuf {
    let mut sa = manifest("ServiceAccount");
    let mut role = manifest("ClusterRole");
    let mut binding = manifest("ClusterRoleBinding");
    sa["metadata"]["name"] = json!(name);
    role["metadata"]["name"] = json!(name);
    binding["metadata"]["name"] = json!(name);
    binding["roleRef"]["name"] = json!(name);
    binding["subjects"][0]["name"] = json!(name);
    if let Some(rules) = rules {
        role["rules"] = rules;
    }
    for o in [&sa, &role, &binding] {
        apply(admin, o, false).unwrap_or_else(|e| panic!("{}: {e}", path_of(o)));
    }
    // A token of the ServiceAccount (TokenRequest: the API server signs it;
    // no controller is needed).
    let request = json!({
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": 3600},
    });
    let answer = admin.send(
        "POST",
        &format!("/api/v1/namespaces/{NAMESPACE}/serviceaccounts/{name}/token"),
        "application/json",
        &request,
    );
    let token = answer["status"]["token"].as_str().expect("a token");
    let server = std::fs::read_to_string(dir.join("server")).unwrap();
    let kubeconfig = out.join(format!("{name}.kubeconfig"));
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: kapi\n  cluster:\n    server: {}\n    \
         certificate-authority: {}\nusers:\n- name: {name}\n  user:\n    token: {token}\n\
         contexts:\n- name: {name}\n  context:\n    cluster: kapi\n    user: {name}\n    \
         namespace: {NAMESPACE}\ncurrent-context: {name}\n",
        server.trim(),
        dir.join("ca.crt").display()
    );
    std::fs::write(&kubeconfig, text).unwrap();
    kubeconfig
}

fn user_of(name: &str) -> String {
    format!("system:serviceaccount:{NAMESPACE}:{name}")
}

/// Whether the server lets the ServiceAccount `name` do `verb` on
/// `resource` of `group` (a SubjectAccessReview, as the admin).
fn allowed(admin: &Api, name: &str, group: &str, resource: &str, verb: &str) -> bool {
    let review = json!({
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": user_of(name),
            "groups": ["system:serviceaccounts", format!("system:serviceaccounts:{NAMESPACE}"),
                       "system:authenticated"],
            "resourceAttributes": {"group": group, "resource": resource, "verb": verb},
        },
    });
    let answer = admin.send(
        "POST",
        "/apis/authorization.k8s.io/v1/subjectaccessreviews",
        "application/json",
        &review,
    );
    answer["status"]["allowed"] == true
}

/// `resource` label of a watch -> the (group, plural) it reads.
fn watched(resource: &str) -> (String, String) {
    let t = resource.split('/').next().unwrap();
    match t.split_once('.') {
        Some((plural, group)) => (group.to_string(), plural.to_string()),
        None => (String::new(), t.to_string()),
    }
}

#[test]
fn exporter_with_the_role_watches_everything() {
    let Some(dir) = live_dir() else { return };
    let _one = one_at_a_time();
    let admin = setup(&dir);
    let tmp = tempfile::tempdir().unwrap();
    let kubeconfig = service_account_kubeconfig(&admin, &dir, NAME, None, tmp.path());
    let exporter_api = Api::new(&kubeconfig);

    // Discovery: granted to every authenticated user by the default
    // system:discovery binding, which the test server has too.
    let discovery = get(
        &admin,
        "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/system:discovery",
    )
    .unwrap();
    assert_eq!(discovery["roleRef"]["name"], "system:discovery");
    assert!(
        discovery["subjects"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["kind"] == "Group" && s["name"] == "system:authenticated"),
        "{discovery}"
    );
    assert_eq!(code(&get(&exporter_api, "/apis")), Some(200));
    // The identity reads what the role grants, and is refused the rest.
    assert_eq!(
        code(&get(
            &exporter_api,
            "/apis/jobset.x-k8s.io/v1alpha2/jobsets?limit=1"
        )),
        Some(200)
    );
    assert_eq!(code(&get(&exporter_api, "/api/v1/secrets")), Some(403));
    assert_eq!(
        code(&get(&exporter_api, "/api/v1/namespaces/lens-train/events")),
        Some(403)
    );
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": "nope", "namespace": "lens-train"}});
    let r = exporter_api.try_send(
        "POST",
        "/api/v1/namespaces/lens-train/pods?dryRun=All",
        "application/json",
        &pod,
    );
    assert_eq!(code(&r), Some(403), "{r:?}");
    // As the server reads the role: every expected resource for each verb
    // (the server's RBAC, also for the types it does not serve), and no
    // write, no Secret, no ConfigMap, no Event, no subresource.
    for (group, resource) in expected_rules() {
        for verb in VERBS {
            assert!(
                allowed(&admin, NAME, &group, &resource, verb),
                "{verb} {resource}.{group}"
            );
        }
    }
    for (group, resource, verb) in [
        ("", "pods", "create"),
        ("", "pods", "delete"),
        ("", "pods/log", "get"),
        ("", "pods/exec", "create"),
        ("", "secrets", "list"),
        ("", "secrets", "get"),
        ("", "configmaps", "list"),
        ("", "events", "list"),
        ("", "nodes", "list"),
        ("apps", "deployments", "update"),
        ("jobset.x-k8s.io", "jobsets", "patch"),
        ("run.ai", "kartas", "create"),
        ("rbac.authorization.k8s.io", "clusterroles", "list"),
    ] {
        assert!(
            !allowed(&admin, NAME, group, resource, verb),
            "{verb} {resource}.{group} is allowed"
        );
    }

    // The exporter, with that identity only.
    let exporter = Exporter::start(&kubeconfig, 50);
    let samples = exporter.samples();
    let of = |name: &str| -> Vec<(String, f64)> {
        samples
            .iter()
            .filter(|(n, _, _)| n == name)
            .map(|(_, l, v)| (l["resource"].clone(), *v))
            .collect()
    };
    let forbidden = of("workload_lens_exporter_watch_forbidden");
    let up = of("workload_lens_exporter_watch_up");
    assert!(!forbidden.is_empty(), "no watch_forbidden series");
    let refused: Vec<&(String, f64)> = forbidden.iter().filter(|(_, v)| *v != 0.0).collect();
    assert!(refused.is_empty(), "watches refused: {refused:?}");
    let down: Vec<&(String, f64)> = up.iter().filter(|(_, v)| *v != 1.0).collect();
    assert!(down.is_empty(), "watches not up: {down:?}");
    // It watches the scenario's types and pods, and nothing outside the
    // role.
    let role = role_rules(&manifest("ClusterRole"));
    let resources: BTreeSet<String> = up.iter().map(|(r, _)| r.clone()).collect();
    for r in &resources {
        assert!(role.contains(&watched(r)), "{r} watched, not in the role");
    }
    for r in [
        "pods",
        "jobsets.jobset.x-k8s.io",
        "pytorchjobs.kubeflow.org",
        "rayclusters.ray.io",
        "leaderworkersets.leaderworkerset.x-k8s.io",
        "trainjobs.trainer.kubeflow.org",
        "inferenceservices.serving.kserve.io",
        "deployments.apps",
        "replicasets.apps",
        "statefulsets.apps",
        "jobs.batch",
    ] {
        assert!(resources.contains(r), "{r} not watched: {resources:?}");
    }

    // The same workloads as the admin lists, with the cluster's definitions
    // (the RayCluster override is read, so the role's Karta rule works).
    let reported: BTreeSet<(String, String, String, String)> = samples
        .iter()
        .filter(|(n, _, _)| n == "workload_lens_workload_info")
        .map(|(_, l, _)| {
            (
                l["namespace"].clone(),
                l["kind"].clone(),
                l["workload"].clone(),
                l["definition"].clone(),
            )
        })
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_workload-lens"))
        .env_remove("KUBECONFIG")
        .args(["get", "-A", "--all-types", "-o", "json", "--kubeconfig"])
        .arg(dir.join("kubeconfig"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed: BTreeSet<(String, String, String, String)> = listing["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["namespace"].as_str().unwrap_or_default().to_string(),
                w["kind"].as_str().unwrap().to_string(),
                w["name"].as_str().unwrap().to_string(),
                w["definition"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(listed.len() > 30, "{listed:?}");
    assert_eq!(
        reported,
        listed,
        "exporter (ServiceAccount) vs get -A --all-types (admin): only the exporter {:?}, only \
         get {:?}",
        reported.difference(&listed).collect::<Vec<_>>(),
        listed.difference(&reported).collect::<Vec<_>>()
    );
    assert!(
        reported.contains(&(
            "lens-serve".into(),
            "RayCluster".into(),
            "ray-a".into(),
            "lens-test-raycluster".into()
        )),
        "{reported:?}"
    );
}

/// The check above can fail: the same exporter with a role that lacks one
/// rule reports that watch as forbidden (and only that one).
#[test]
fn a_missing_rule_shows_as_a_forbidden_watch() {
    let Some(dir) = live_dir() else { return };
    let _one = one_at_a_time();
    let admin = setup(&dir);
    let name = "workload-lens-no-jobsets";
    let mut rules = manifest("ClusterRole")["rules"].clone();
    let rules_list = rules.as_array_mut().unwrap();
    rules_list.retain(|r| r["apiGroups"] != json!(["jobset.x-k8s.io"]));
    assert_eq!(
        rules_list.len() + 1,
        manifest("ClusterRole")["rules"].as_array().unwrap().len()
    );
    let tmp = tempfile::tempdir().unwrap();
    let kubeconfig = service_account_kubeconfig(&admin, &dir, name, Some(rules), tmp.path());
    let exporter = Exporter::start(&kubeconfig, 50);
    let samples = exporter.samples();
    let refused: BTreeSet<String> = samples
        .iter()
        .filter(|(n, _, v)| n == "workload_lens_exporter_watch_forbidden" && *v == 1.0)
        .map(|(_, l, _)| l["resource"].clone())
        .collect();
    assert_eq!(
        refused,
        BTreeSet::from(["jobsets.jobset.x-k8s.io".to_string()])
    );
    drop(exporter);
    // Leave only deploy/'s own objects behind.
    for path in [
        format!("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{name}"),
        format!("/apis/rbac.authorization.k8s.io/v1/clusterroles/{name}"),
        format!("/api/v1/namespaces/{NAMESPACE}/serviceaccounts/{name}"),
    ] {
        let r = admin.try_send("DELETE", &path, "application/json", &json!({}));
        assert!(r.is_ok(), "DELETE {path}: {r:?}");
    }
}

/// Objects a test created, deleted when it ends (passed or not).
struct Created<'a> {
    api: &'a Api,
    paths: Vec<String>,
}

impl Drop for Created<'_> {
    fn drop(&mut self) {
        for path in self.paths.iter().rev() {
            let _ = self.api.try_send(
                "DELETE",
                &format!("{path}?gracePeriodSeconds=0"),
                "application/json",
                &json!({}),
            );
        }
    }
}

/// An owner kind no definition covers (a static pod's Node) is watched
/// before the exporter publishes or says it is ready: its first scrape
/// already knows the pod's owner. (Run as the admin: the role leaves Nodes
/// out on purpose.)
#[test]
fn owner_kinds_are_known_before_ready() {
    let Some(dir) = live_dir() else { return };
    let _one = one_at_a_time();
    let admin = setup(&dir);
    let mut created = Created {
        api: &admin,
        paths: Vec::new(),
    };
    let node = admin.send(
        "POST",
        "/api/v1/nodes",
        "application/json",
        &json!({"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": "lens-deploy-node"}}),
    );
    created.paths.push("/api/v1/nodes/lens-deploy-node".into());
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "etcd-lens-deploy-node", "namespace": NAMESPACE,
                     "ownerReferences": [{"apiVersion": "v1", "kind": "Node",
                                          "name": "lens-deploy-node",
                                          "uid": node["metadata"]["uid"],
                                          "controller": true}]},
        // The namespace enforces the restricted Pod Security: the
        // exporter's own pod spec passes.
        "spec": at(&manifest("Deployment"), "spec.template.spec"),
    });
    admin.send(
        "POST",
        &format!("/api/v1/namespaces/{NAMESPACE}/pods"),
        "application/json",
        &pod,
    );
    created.paths.push(format!(
        "/api/v1/namespaces/{NAMESPACE}/pods/etcd-lens-deploy-node"
    ));
    // A long pause before each refresh: were the exporter ready before the
    // Nodes are watched, its first scrape would come well before the
    // refresh that reads them.
    let exporter = Exporter::start(&dir.join("kubeconfig"), 1500);
    let samples = exporter.samples();
    let ours = |name: &str| -> Vec<&BTreeMap<String, String>> {
        samples
            .iter()
            .filter(|(n, l, _)| {
                n == name && l.get("workload").map(String::as_str) == Some("etcd-lens-deploy-node")
            })
            .map(|(_, l, _)| l)
            .collect()
    };
    assert_eq!(ours("workload_lens_workload_info").len(), 1);
    assert_eq!(
        ours("workload_lens_workload_owner_missing"),
        Vec::<&BTreeMap<String, String>>::new(),
        "the pod's Node exists"
    );
    assert!(
        samples
            .iter()
            .any(|(n, l, v)| n == "workload_lens_exporter_watch_up"
                && l["resource"] == "nodes"
                && *v == 1.0),
        "nodes watched"
    );
}
