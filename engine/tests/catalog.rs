//! The bundled catalog: every definition validates clean, follows the naming
//! rule, and has fixtures (objects for each state its operator reports, live
//! pods for pod-bearing types) with named assertions and reviewed snapshots.
//! A definition without fixtures fails here, so the catalog cannot rot.
//! `docs/catalog.md` is generated from the catalog (`UPDATE_CATALOG=1`).
//!
//! Layout: `definitions/<slug>.yaml`, and `definitions/fixtures/<slug>/`
//! with `<state>.yaml` objects, optional `<state>.pods.yaml` (a List of
//! pods), and `expect.yaml`:
//!
//! ```yaml
//! fixtures:
//!   running:                       # running.yaml
//!     statuses: [Running]          # matchedStatuses, in order
//!     pods: 3                      # total desired pods
//!     gpu: 12                      # total GPUs
//!     replicas: {replicatedjob/leader: 1, replicatedjob/worker: 2}
//!     podGpu: {replicatedjob/leader: 4}
//!     maxReplicas: {service/decode: 8}   # scale.maxReplicas (null: none)
//!     absent: [master]             # instances that are not present
//!     attribution: {pod-a: replicatedjob/leader}   # from running.pods.yaml
//!     unattributed: [pod-x]
//!     stray: [pod-y]               # pods that are not this workload's
//!     gang: {pg-uid-key: 3}        # PodGroup name -> min members
//! ```
//! Keys are `component` for single-instance components and
//! `component/instance` otherwise.

mod common;

use common::{engine, read_all, read_file, repo_root as root};
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use workload_lens::{Component, Engine, Instance, Resolved, catalog_files};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    fixtures: BTreeMap<String, FixtureExpect>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct FixtureExpect {
    #[serde(default)]
    description: Option<String>,
    statuses: Vec<String>,
    pods: u64,
    gpu: u64,
    #[serde(default)]
    replicas: BTreeMap<String, u64>,
    #[serde(default)]
    pod_gpu: BTreeMap<String, u64>,
    #[serde(default)]
    max_replicas: BTreeMap<String, Option<i32>>,
    #[serde(default)]
    absent: Vec<String>,
    #[serde(default)]
    attribution: BTreeMap<String, String>,
    #[serde(default)]
    unattributed: Vec<String>,
    #[serde(default)]
    stray: Vec<String>,
    #[serde(default)]
    gang: BTreeMap<String, i64>,
    // Counts, for recorded fixtures (whose pod names and uids are made by
    // the controllers): pods placed per component key, ready pods per key
    // (keys not listed must have none), stray pods, gang minimums (sorted).
    #[serde(default)]
    placed: Option<BTreeMap<String, u64>>,
    #[serde(default)]
    ready: Option<BTreeMap<String, u64>>,
    #[serde(default)]
    stray_count: Option<usize>,
    #[serde(default)]
    gang_minimums: Option<Vec<i64>>,
}

/// `expect.yaml`, read.
fn read_expect(text: &str) -> Result<Expect, String> {
    engine()
        .read_object(text)
        .map_err(|e| e.to_string())
        .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
}

/// `<group with dots as dashes, core for the core group>-<kind>-<version>`.
fn slug(gvk: &workload_lens::Gvk) -> String {
    let group = if gvk.group.is_empty() {
        "core".to_string()
    } else {
        gvk.group.replace('.', "-")
    };
    format!("{group}-{}-{}", gvk.kind.to_lowercase(), gvk.version)
}

fn key(c: &Component, i: &Instance) -> String {
    if c.multi_instance {
        format!("{}/{}", c.name, i.id)
    } else {
        c.name.to_string()
    }
}

fn check_fixture(
    engine: &Engine,
    slug: &str,
    dir: &Path,
    state: &str,
    want: &FixtureExpect,
    snaps: &mut Vec<(String, Resolved<'static>)>,
) -> Vec<String> {
    let mut errs = Vec::new();
    let obj = read_file(&dir.join(format!("{state}.yaml")));
    let def = match engine.definition_for(&obj) {
        Ok(d) => d.clone(),
        Err(e) => return vec![format!("{slug}/{state}: {e}")],
    };
    if def.name() != slug.split('/').next().unwrap_or(slug) {
        errs.push(format!(
            "{slug}/{state}: chosen by GVK is {}, not {slug}",
            def.name()
        ));
    }
    let pods_path = dir.join(format!("{state}.pods.yaml"));
    let pods: Option<Vec<Value>> = pods_path.exists().then(|| {
        read_all(
            &std::fs::read_to_string(&pods_path)
                .unwrap_or_else(|e| panic!("{}: {e}", pods_path.display())),
        )
    });
    let r: Resolved<'_> = match match &pods {
        Some(p) => def.resolve_with_pods(&obj, p),
        None => def.resolve(&obj),
    } {
        Ok(r) => r,
        Err(e) => return vec![format!("{slug}/{state}: resolve failed: {e}")],
    };
    let mut fail = |m: String| errs.push(format!("{slug}/{state}: {m}"));
    let statuses = r
        .status
        .as_ref()
        .map(|s| s.matched_statuses.clone())
        .unwrap_or_default();
    if statuses != want.statuses {
        fail(format!(
            "statuses {statuses:?}, expected {:?}",
            want.statuses
        ));
    }
    if r.totals.pods != want.pods {
        fail(format!("pods {}, expected {}", r.totals.pods, want.pods));
    }
    if r.totals.resources.gpu != want.gpu {
        fail(format!(
            "gpu {}, expected {}",
            r.totals.resources.gpu, want.gpu
        ));
    }
    let mut instances = BTreeMap::new();
    for c in &r.components {
        for i in &c.instances {
            instances.insert(key(c, i), (c, i));
        }
    }
    let live_counts = |f: &dyn Fn(&workload_lens::Live) -> u64| -> BTreeMap<String, u64> {
        instances
            .iter()
            .filter_map(|(k, (_, i))| i.live.as_ref().map(|l| (k.clone(), f(l))))
            .filter(|(_, n)| *n > 0)
            .collect()
    };
    if let Some(want_placed) = &want.placed {
        let got = live_counts(&|l| l.pods.len() as u64);
        if &got != want_placed {
            fail(format!("placed pods {got:?}, expected {want_placed:?}"));
        }
    }
    if let Some(want_ready) = &want.ready {
        let got = live_counts(&|l| l.ready);
        if &got != want_ready {
            fail(format!("ready pods {got:?}, expected {want_ready:?}"));
        }
    }
    if let Some(n) = want.stray_count
        && r.stray_pods.len() != n
    {
        fail(format!(
            "{} stray pods, expected {n}: {:?}",
            r.stray_pods.len(),
            r.stray_pods.iter().map(|p| &p.name).collect::<Vec<_>>()
        ));
    }
    for (k, n) in &want.replicas {
        match instances.get(k) {
            Some((_, i)) if i.desired_replicas == *n => {}
            Some((_, i)) => fail(format!("{k} replicas {}, expected {n}", i.desired_replicas)),
            None => fail(format!(
                "no instance {k} (have {:?})",
                instances.keys().collect::<Vec<_>>()
            )),
        }
    }
    for (k, n) in &want.pod_gpu {
        match instances.get(k).and_then(|(_, i)| i.pod_resources.as_ref()) {
            Some(p) if p.gpu == *n => {}
            Some(p) => fail(format!("{k} GPUs per pod {}, expected {n}", p.gpu)),
            None => fail(format!("no pod resources for {k}")),
        }
    }
    for (k, n) in &want.max_replicas {
        match instances.get(k) {
            Some((_, i)) if i.scale.and_then(|s| s.max_replicas) == *n => {}
            Some((_, i)) => fail(format!(
                "{k} maxReplicas {:?}, expected {n:?}",
                i.scale.and_then(|s| s.max_replicas)
            )),
            None => fail(format!("no instance {k}")),
        }
    }
    for k in &want.absent {
        match instances.get(k) {
            Some((_, i)) if !i.present => {}
            _ => fail(format!("{k} should be absent")),
        }
    }
    if let Some(pods) = &pods {
        let att = match def.attribute_pods(Some(&obj), pods) {
            Ok(a) => a,
            Err(e) => {
                fail(format!("attribution failed: {e}"));
                return errs;
            }
        };
        // Recorded fixtures are checked by counts (`placed`): their pod
        // names are made by the controllers.
        let by_name = want.placed.is_none();
        for p in att.pods.iter().filter(|_| by_name) {
            let got = match (&p.component, &p.instance) {
                (Some(c), Some(i)) => Some(format!("{c}/{i}")),
                (Some(c), None) => Some(c.clone()),
                _ => None,
            };
            match (want.attribution.get(&p.name), got) {
                (Some(w), Some(g)) if *w == g => {}
                (None, None)
                    if want.unattributed.contains(&p.name) || want.stray.contains(&p.name) => {}
                (w, g) => fail(format!(
                    "pod {} attributed to {g:?}, expected {w:?} ({:?})",
                    p.name, p.findings
                )),
            }
        }
        let unatt: BTreeSet<&String> = att.unattributed.iter().collect();
        let want_un: BTreeSet<&String> = want.unattributed.iter().collect();
        if by_name && unatt != want_un {
            fail(format!("unattributed {unatt:?}, expected {want_un:?}"));
        }
        let stray: BTreeSet<&String> = att.stray.iter().collect();
        let want_stray: BTreeSet<&String> = want.stray.iter().collect();
        if by_name && stray != want_stray {
            fail(format!("stray {stray:?}, expected {want_stray:?}"));
        }
        if let Some(want_min) = &want.gang_minimums {
            match def.gang_groups(&obj, pods) {
                Ok(g) => {
                    let mut got: Vec<i64> = g.groups.iter().map(|g| g.min_member).collect();
                    got.sort_unstable();
                    if &got != want_min {
                        fail(format!("gang minimums {got:?}, expected {want_min:?}"));
                    }
                }
                Err(e) => fail(format!("gang groups failed: {e}")),
            }
        }
        if !want.gang.is_empty() {
            match def.gang_groups(&obj, pods) {
                Ok(g) => {
                    let got: BTreeMap<String, i64> = g
                        .groups
                        .iter()
                        .map(|g| (g.name.clone(), g.min_member))
                        .collect();
                    if got != want.gang {
                        fail(format!("gang groups {got:?}, expected {:?}", want.gang));
                    }
                }
                Err(e) => fail(format!("gang groups failed: {e}")),
            }
        }
    } else if !want.attribution.is_empty() || !want.gang.is_empty() {
        fail("attribution/gang expectations need a .pods.yaml file".into());
    }
    let _ = &want.description;
    snaps.push((format!("{slug}__{state}"), r.into_owned()));
    errs
}

#[test]
fn every_definition_is_clean_named_and_has_fixtures() {
    let compiled = engine().definitions();
    assert!(!compiled.is_empty());
    let mut errs = Vec::new();
    let mut seen_gvks = BTreeSet::new();
    let mut snaps = Vec::new();
    // CATALOG_ONLY=a,b restricts the check to some definitions (handy while
    // writing one); the full run checks them all.
    let only: Option<Vec<String>> = std::env::var("CATALOG_ONLY")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    for (file, _) in catalog_files() {
        let name = file.trim_end_matches(".yaml");
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let Some(def) = compiled.iter().find(|d| d.name() == name) else {
            errs.push(format!("{file}: metadata.name must be {name}"));
            continue;
        };
        if !def.warnings().is_empty() {
            errs.push(format!("{name}: warnings {:?}", def.warnings()));
        }
        if slug(&def.root_gvk()) != name {
            errs.push(format!(
                "{name}: the name should be {}",
                slug(&def.root_gvk())
            ));
        }
        if !seen_gvks.insert(def.root_gvk()) {
            errs.push(format!(
                "{name}: a second definition for {}",
                def.root_gvk()
            ));
        }
        let dir = root().join("definitions/fixtures").join(name);
        let expect_path = dir.join("expect.yaml");
        if !expect_path.exists() {
            errs.push(format!(
                "{name}: no fixtures (definitions/fixtures/{name}/expect.yaml)"
            ));
            continue;
        }
        let text = std::fs::read_to_string(&expect_path).unwrap();
        let expect: Expect = match read_expect(&text) {
            Ok(e) => e,
            Err(e) => {
                errs.push(format!("{name}/expect.yaml: {e}"));
                continue;
            }
        };
        let states: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|f| f.ends_with(".yaml") && f != "expect.yaml" && !f.ends_with(".pods.yaml"))
            .map(|f| f.trim_end_matches(".yaml").to_string())
            .collect();
        let listed: BTreeSet<String> = expect.fixtures.keys().cloned().collect();
        if states != listed {
            errs.push(format!(
                "{name}: fixture files {states:?} but expect.yaml lists {listed:?}"
            ));
        }
        if states.is_empty() {
            errs.push(format!("{name}: no fixture objects"));
        }
        let pod_bearing = def
            .definition()
            .components()
            .any(|c| c.has_pod_definition());
        let has_pods = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .any(|e| e.file_name().to_string_lossy().ends_with(".pods.yaml"));
        if pod_bearing && !has_pods {
            errs.push(format!(
                "{name}: pod-bearing but no <state>.pods.yaml fixture"
            ));
        }
        for (state, want) in &expect.fixtures {
            if states.contains(state) {
                errs.extend(check_fixture(engine(), name, &dir, state, want, &mut snaps));
            }
        }
    }
    assert!(
        errs.is_empty(),
        "{} problem(s):\n{}",
        errs.len(),
        errs.join("\n")
    );
    // Reviewed snapshots of every resolved fixture.
    for (name, r) in snaps {
        insta::assert_json_snapshot!(name, r);
    }
}

fn pod_style(c: &workload_lens::model::ComponentDefinition) -> &'static str {
    match &c.spec_definition {
        Some(s) if s.pod_template_spec_path.is_some() => "pod template",
        Some(s) if s.pod_spec_path.is_some() => "pod spec",
        Some(s) if s.fragmented_pod_spec_definition.is_some() => "fragmented",
        _ => "-",
    }
}

fn catalog_doc() -> String {
    let mut out = String::from(
        "# The definitions catalog\n\n\
         Generated from `definitions/` by `engine/tests/catalog.rs` \
         (`UPDATE_CATALOG=1 cargo test -p workload-lens --test catalog`); do not edit.\n\n\
         Every definition is bundled into the engine, the CLI and every package, and is \
         chosen by the object's group/version/kind. Fixtures for each state live in \
         `definitions/fixtures/<name>/`.\n\n\
         | name | kind | components | statuses mapped | suspend | gang |\n|---|---|---|---|---|---|\n",
    );
    let mut details = String::new();
    for d in engine().definitions() {
        let def = d.definition();
        let gvk = d.root_gvk();
        let comps: Vec<String> = def.components().map(|c| c.name.clone()).collect();
        let status = def
            .root()
            .status_definition
            .as_ref()
            .map(|s| {
                workload_lens::model::STATUS_ORDER
                    .iter()
                    .filter(|k| s.status_mappings.get(**k).is_some_and(|m| !m.is_empty()))
                    .map(|k| k.status().as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let suspend = if def.components().any(|c| c.suspend_definition.is_some()) {
            "yes"
        } else {
            "-"
        };
        let gang = def
            .spec
            .optimization_instructions
            .as_ref()
            .and_then(|o| o.gang_scheduling.as_ref())
            .map(|g| {
                let mut names: Vec<String> = g
                    .pod_groups
                    .iter()
                    .flatten()
                    .map(|p| p.name.clone())
                    .collect();
                if let Some(p) = &g.pod_group {
                    names.push(format!("{} (podGroup)", p.name));
                }
                names.join(", ")
            })
            .unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "| [`{}`](#{}) | `{}` `{}` | {} | {} | {} | {} |\n",
            d.name(),
            d.name(),
            gvk.api_version(),
            gvk.kind,
            comps.join(", "),
            status,
            suspend,
            gang
        ));
        details.push_str(&format!(
            "\n## {}\n\n`{}` `{}`\n\n",
            d.name(),
            gvk.api_version(),
            gvk.kind
        ));
        details.push_str(
            "| component | kind | owner | pods | instances | scale |\n|---|---|---|---|---|---|\n",
        );
        for c in def.components() {
            let kind = c
                .kind
                .as_ref()
                .map(|k| format!("`{}` `{}`", k.api_version(), k.kind))
                .unwrap_or_else(|| "-".into());
            let scale = c
                .scale_definition
                .as_ref()
                .and_then(|s| s.replicas_path.clone().or(s.min_replicas_path.clone()))
                .map(|p| format!("`{}`", p.replace('|', "\\|")))
                .unwrap_or_else(|| "-".into());
            let inst = c
                .instance_id_path
                .as_ref()
                .map(|p| format!("`{}`", p.replace('|', "\\|")))
                .unwrap_or_else(|| "one".into());
            details.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                c.name,
                kind,
                c.owner_ref.clone().unwrap_or_else(|| "-".into()),
                pod_style(c),
                inst,
                scale
            ));
        }
        let fixtures = root()
            .join("definitions/fixtures")
            .join(d.name())
            .join("expect.yaml");
        if let Ok(text) = std::fs::read_to_string(fixtures)
            && let Ok(e) = read_expect(&text)
        {
            details.push_str("\nFixtures: ");
            let list: Vec<String> = e
                .fixtures
                .iter()
                .map(|(k, f)| {
                    format!(
                        "`{k}` ({}; {} pods, {} GPUs)",
                        f.statuses.join(", "),
                        f.pods,
                        f.gpu
                    )
                })
                .collect();
            details.push_str(&list.join(", "));
            details.push('\n');
        }
        let recorded = recorded_scenarios(d.name());
        if !recorded.is_empty() {
            details.push_str(
                "\nRecorded from real controllers on the simulated cluster \
                 (`testing/sim/scenarios`, `scripts/record.sh`): ",
            );
            details.push_str(&recorded.join("; "));
            details.push('\n');
        }
    }
    out.push_str(&details);
    // Which operators the simulated cluster runs, and why the others do
    // not: the section of testing/sim/README.md, where it is kept.
    if let Ok(readme) = std::fs::read_to_string(root().join("testing/sim/README.md"))
        && let Some(start) = readme.find("\n## Operators\n")
    {
        let body = &readme[start + "\n## Operators\n".len()..];
        let body = body.find("\n## ").map_or(body, |end| &body[..end]);
        out.push_str(
            "\n## Operators on the simulated cluster\n\n\
             From `testing/sim/README.md` (the recorded scenarios above were made with them):\n",
        );
        out.push_str(body.trim_end());
        out.push('\n');
    }
    out
}

/// The scenarios recorded for a definition, each with its steps and what
/// they resolve to: "`name` (step: statuses, ...)".
fn recorded_scenarios(definition: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root().join("testing/sim/scenarios")) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).ok()?;
            let v = engine().read_object(&text).ok()?;
            let sc: Scenario = serde_json::from_value(v).ok()?;
            (sc.definition == definition).then(|| {
                let steps: Vec<String> = sc
                    .steps
                    .iter()
                    .map(|s| format!("{}: {}", s.name, s.expect.statuses.join(", ")))
                    .collect();
                format!("`{}` ({})", sc.name, steps.join("; "))
            })
        })
        .collect()
}

#[test]
fn catalog_doc_is_current() {
    if std::env::var_os("CATALOG_ONLY").is_some() {
        return;
    }
    let path = root().join("docs/catalog.md");
    let text = catalog_doc();
    if std::env::var_os("UPDATE_CATALOG").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "docs/catalog.md is out of date: UPDATE_CATALOG=1 cargo test -p workload-lens --test catalog"
    );
}

/// Every catalog fixture, through the native fast path and through jaq
/// alone (`set_fast_path(false)`): the same resolved structure (with the
/// fixture's pods), status explanation and gang groups, byte for byte.
#[test]
fn every_fixture_is_the_same_through_the_fast_path_and_jaq() {
    let engine = engine();
    let fixtures = root().join("definitions/fixtures");
    let mut dirs: Vec<_> = std::fs::read_dir(&fixtures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut compared = 0;
    let mut handed_to_jaq = Vec::new();
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                let n = p.file_name().unwrap().to_string_lossy().into_owned();
                n.ends_with(".yaml") && !n.ends_with(".pods.yaml") && n != "expect.yaml"
            })
            .collect();
        files.sort();
        for path in files {
            let obj = read_file(&path);
            let Ok(def) = engine.definition_for(&obj) else {
                continue;
            };
            let pods_path = path.with_extension("pods.yaml");
            let pods: Option<Vec<Value>> = pods_path
                .exists()
                .then(|| read_all(&std::fs::read_to_string(&pods_path).unwrap()));
            // Compared as JSON values: objects the fast path passes through
            // keep the input's key order, jaq's are sorted (equal values).
            fn to<T: serde::Serialize>(r: Result<T, workload_lens::Error>) -> Value {
                match r {
                    Ok(v) => serde_json::to_value(&v).unwrap(),
                    Err(e) => Value::String(format!("error: {e}")),
                }
            }
            let run = || {
                let resolved = match &pods {
                    Some(p) => to(def.resolve_with_pods(&obj, p)),
                    None => to(def.resolve(&obj)),
                };
                let explained = to(def.explain_status(&obj));
                let gang = pods.as_ref().map(|p| to(def.gang_groups(&obj, p)));
                (resolved, explained, gang)
            };
            let (fast, left) = workload_lens::record_fast_path_handoffs(run);
            handed_to_jaq.extend(
                left.into_iter()
                    .map(|code| format!("{}: {code}", path.display())),
            );
            let before = workload_lens::set_fast_path(false);
            let jaq = run();
            workload_lens::set_fast_path(before);
            assert_eq!(fast, jaq, "{}", path.display());
            compared += 1;
        }
    }
    assert!(compared > 100, "{compared} fixtures");
    // An expression the fast path classifies but leaves to jaq on an
    // object converts the whole object for jaq: several times the cost
    // (an Argo Workflow whose withParam is not JSON took 720 µs, 137 µs
    // once `fromjson?` was caught on the fast path). No fixture does.
    assert!(
        handed_to_jaq.is_empty(),
        "expressions handed to jaq at run time:\n{}",
        handed_to_jaq.join("\n")
    );
}

/// A scenario of the simulated cluster (`testing/sim/scenarios/*.yaml`):
/// only what the replay needs, the steps' names and expectations.
#[derive(Debug, Deserialize)]
struct Scenario {
    name: String,
    definition: String,
    #[serde(default)]
    operators: Vec<String>,
    steps: Vec<ScenarioStep>,
}

#[derive(Debug, Deserialize)]
struct ScenarioStep {
    name: String,
    expect: FixtureExpect,
}

/// Every step of every scenario, as the real controllers left it
/// (recorded by `scripts/record.sh` into
/// `definitions/fixtures/<definition>/recorded/<scenario>/<NN>-<step>.yaml`),
/// resolves to what the scenario expects. `WORKLOAD_LENS_RECORDED=ROOT`
/// reads the recordings from ROOT instead (the sim stage records live into
/// a scratch dir and checks those); then only the scenarios recorded there
/// are checked.
#[test]
fn every_recorded_step_resolves_as_its_scenario_expects() {
    let live_root = std::env::var_os("WORKLOAD_LENS_RECORDED").map(std::path::PathBuf::from);
    let rec_root = live_root
        .clone()
        .unwrap_or_else(|| root().join("definitions/fixtures"));
    let mut paths: Vec<_> = std::fs::read_dir(root().join("testing/sim/scenarios"))
        .expect("testing/sim/scenarios")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no scenarios");
    let mut errs = Vec::new();
    let mut checked = 0;
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let sc: Scenario = match engine()
            .read_object(&text)
            .map_err(|e| e.to_string())
            .and_then(|v| serde_json::from_value(v).map_err(|e| e.to_string()))
        {
            Ok(s) => s,
            Err(e) => {
                errs.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if sc.name != stem {
            errs.push(format!("{}: name must be {stem}", path.display()));
        }
        let dir = rec_root
            .join(&sc.definition)
            .join("recorded")
            .join(&sc.name);
        if !dir.exists() {
            if live_root.is_none() {
                errs.push(format!(
                    "{}: not recorded (run scripts/record.sh {})",
                    sc.name, sc.name
                ));
            }
            continue;
        }
        let mut expected_files = BTreeSet::new();
        for (i, step) in sc.steps.iter().enumerate() {
            let state = format!("{:02}-{}", i + 1, step.name);
            for suffix in ["yaml", "pods.yaml", "events.yaml"] {
                expected_files.insert(format!("{state}.{suffix}"));
            }
            // Kueue's Workloads, where Kueue runs (testing/sim/record.py).
            if sc.operators.iter().any(|o| o == "kueue") {
                expected_files.insert(format!("{state}.related.yaml"));
            }
            if !dir.join(format!("{state}.yaml")).exists() {
                errs.push(format!("{}: step {state} not recorded", sc.name));
                continue;
            }
            let label = format!("{}/recorded/{}", sc.definition, sc.name);
            let (problems, left) = workload_lens::record_fast_path_handoffs(|| {
                check_fixture(
                    engine(),
                    &label,
                    &dir,
                    &state,
                    &step.expect,
                    &mut Vec::new(),
                )
            });
            errs.extend(problems);
            // What the real controllers wrote stays on the fast path too
            // (see every_fixture_is_the_same_through_the_fast_path_and_jaq).
            errs.extend(
                left.into_iter()
                    .map(|code| format!("{label}/{state}: handed to jaq at run time: {code}")),
            );
            checked += 1;
        }
        // No recording left over from a step that was renamed or removed.
        let files: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        for extra in files.difference(&expected_files) {
            errs.push(format!("{}: {extra} belongs to no step", sc.name));
        }
    }
    assert!(
        errs.is_empty(),
        "{} problem(s):\n{}",
        errs.len(),
        errs.join("\n")
    );
    assert!(checked > 0, "no recorded step was checked");
}
