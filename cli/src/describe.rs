//! `workload-lens describe`: resolve workloads offline and show them, from
//! their objects alone (file mode) or with their pods (live mode, `--pods`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Value, json};
use workload_lens::{
    Component, Engine, Error, ErrorCode, GangReport, HARD_MAX_DEPTH, Instance, Limits,
    PodAttribution, Resolved, ResourceSummary, TreeNode,
};

use crate::failure::{EXIT_LIMIT, Failure, error_message};
use crate::input::{
    self, InputPath, check_single_stdin, object_gvk, object_label, read_objects, read_text,
};
use crate::output::{self, Format, bytes, columns, cpu, warn};

/// What `describe` was asked for besides the objects.
#[derive(Debug, Default)]
pub struct Options {
    /// `--pods FILE|-`: live mode.
    pub pods: Option<InputPath>,
    /// `--pod-limit N` and `--component-limit N`.
    pub view: ViewOptions,
    /// `--strict`: an object no definition covers fails the run instead of
    /// being skipped.
    pub strict: bool,
}

/// How much of a live description to show.
#[derive(Debug, Default, Clone, Copy)]
pub struct ViewOptions {
    /// `--pod-limit N`: at most N pod rows per instance, unhealthy first.
    pub pod_limit: Option<usize>,
    /// `--component-limit N`: at most N child components per component,
    /// those with unhealthy or missing pods first.
    pub component_limit: Option<usize>,
}

/// Describe a workload read from a cluster (its namespace's pods, their
/// owners and its events): what `describe TYPE/NAME` shows; `now` (seconds
/// since the epoch) gives the ages.
#[cfg(feature = "cluster")]
pub fn live_described(
    d: &workload_lens::Description,
    view: ViewOptions,
    now: i64,
    format: Format,
) -> Result<String, Failure> {
    live(&Source::Cluster(d, now), false, view, format)
}

/// Where live mode's pods come from.
enum Source<'a> {
    /// `--pods`: the pods given.
    Given {
        engine: &'a Engine,
        obj: &'a Value,
        pods: &'a [Value],
    },
    /// A cluster: the namespace's pods, as the engine read them, and the
    /// time now (seconds since the epoch).
    #[cfg(feature = "cluster")]
    Cluster(&'a workload_lens::Description, i64),
}

impl Source<'_> {
    fn object(&self) -> &Value {
        match self {
            Source::Given { obj, .. } => obj,
            #[cfg(feature = "cluster")]
            Source::Cluster(d, _) => &d.object,
        }
    }

    fn in_cluster(&self) -> bool {
        !matches!(self, Source::Given { .. })
    }

    fn resolved(&self) -> Result<Resolved<'_>, Error> {
        match self {
            Source::Given { engine, obj, pods } => engine.resolve_with_pods(obj, pods),
            #[cfg(feature = "cluster")]
            Source::Cluster(d, _) => d.resolved(),
        }
    }

    /// The diagnosis: from the pods given (no events), or as the cluster
    /// was read (with its events, Kueue Workloads and gang-scheduler groups).
    fn diagnosis(&self) -> Result<workload_lens::Diagnosis, Error> {
        match self {
            Source::Given { engine, obj, pods } => engine.diagnose(obj, pods, &[], &[]),
            #[cfg(feature = "cluster")]
            Source::Cluster(d, _) => d.diagnose(),
        }
    }

    fn gang(&self) -> Result<GangReport, Error> {
        match self {
            Source::Given { engine, obj, pods } => engine.gang_groups(obj, pods),
            #[cfg(feature = "cluster")]
            Source::Cluster(d, _) => d.gang(),
        }
    }
}

/// Run `describe`; returns the text for stdout.
pub fn run(
    file: &InputPath,
    definitions: &[InputPath],
    options: &Options,
    format: Format,
    limits: &Limits,
) -> Result<String, Failure> {
    check_single_stdin(
        definitions
            .iter()
            .chain(std::iter::once(file))
            .chain(options.pods.as_ref()),
    )?;
    let engine = input::engine(definitions, limits)?;
    // One command, one budget: every document of the input, the pods and
    // every operation share it (docs/reliability.md, whole-call budgets).
    let _call = engine.call();
    let name = file.display();
    let text = read_text(file, limits)?;
    let (objects, collection) = read_objects(&engine, &text, &name)?;
    if objects.is_empty() {
        return Err(Failure::usage(format!(
            "{name}: no Kubernetes object found in the input"
        )));
    }
    if let Some(pods) = &options.pods {
        let [obj] = objects.as_slice() else {
            return Err(Failure::usage(format!(
                "{name}: --pods describes one workload at a time, but the input holds {} objects",
                objects.len()
            )));
        };
        let pods = read_pods(&engine, pods, limits)?;
        let source = Source::Given {
            engine: &engine,
            obj,
            pods: &pods,
        };
        return live(&source, collection, options.view, format);
    }
    describe_each(&engine, &objects, collection, options.strict, format)
}

/// File mode: describe every object a definition covers, in input order.
/// Objects no definition covers are skipped and listed on stderr, unless
/// `strict` or none is covered; the first other failure ends the run (in
/// human format, after the descriptions made so far).
fn describe_each(
    engine: &Engine,
    objects: &[Value],
    collection: bool,
    strict: bool,
    format: Format,
) -> Result<String, Failure> {
    let mut resolved = Vec::with_capacity(objects.len());
    let mut human = String::new();
    // Objects no definition covers (a Service in `kubectl get all`): skipped
    // and listed, unless --strict or nothing at all was covered.
    let mut skipped: Vec<(usize, &Value, Error)> = Vec::new();
    for (n, obj) in objects.iter().enumerate() {
        match engine.resolve(obj) {
            Err(e) if e.code() == ErrorCode::NoDefinition && !strict => {
                skipped.push((n, obj, e));
            }
            Ok(r) => {
                resolution_warnings(&r);
                if format == Format::Human {
                    if !human.is_empty() {
                        human.push('\n');
                    }
                    human.push_str(&render(&r, None));
                }
                resolved.push(r);
            }
            Err(e) => {
                let mut f = object_failure(&e, obj, collection.then_some(n + 1), format)?;
                if format == Format::Human {
                    f.stdout = Some(human).filter(|h| !h.is_empty());
                }
                return Err(f);
            }
        }
    }
    if resolved.is_empty() {
        // Nothing covered: the first object's failure, as with --strict.
        if let Some((n, obj, e)) = skipped.first() {
            return Err(object_failure(e, obj, collection.then_some(n + 1), format)?);
        }
    }
    if !skipped.is_empty() {
        warn(&skipped_summary(&skipped, objects.len()));
    }
    if format != Format::Human {
        resolved.iter().try_for_each(check_tree_depth)?;
    }
    match (format, resolved.as_slice()) {
        (Format::Human, _) => Ok(human),
        (Format::Json, [one]) if !collection => output::json(one),
        (Format::Json, all) => output::json(all),
        (Format::Yaml, all) => output::yaml_documents(all),
    }
}

/// The stderr line for the objects no definition covers: how many, and
/// each as `Kind/name (apiVersion)`, at most 20 of them.
fn skipped_summary(skipped: &[(usize, &Value, Error)], total: usize) -> String {
    const SHOWN: usize = 20;
    let mut list: Vec<String> = skipped
        .iter()
        .take(SHOWN)
        .map(|(n, obj, _)| {
            let gvk = object_gvk(obj);
            let api = if gvk.group.is_empty() {
                gvk.version.clone()
            } else {
                format!("{}/{}", gvk.group, gvk.version)
            };
            format!("{} ({api})", object_label(obj, n + 1))
        })
        .collect();
    if skipped.len() > SHOWN {
        list.push(format!("and {} more", skipped.len() - SHOWN));
    }
    format!(
        "skipped {} of {total} objects that no definition covers (--strict fails on them; \
         --definition adds one): {}",
        skipped.len(),
        list.join(", ")
    )
}

/// JSON and YAML are written recursively (serde): a component tree deeper
/// than [`HARD_MAX_DEPTH`] levels (the nesting the engine guarantees to fit
/// a 1 MiB stack) is refused with a limit failure before it is written,
/// rather than overflow the stack. The human tree has no such bound.
fn check_tree_depth(r: &Resolved<'_>) -> Result<(), Failure> {
    check_depth(&r.tree, &format!("{}/{}", r.workload.kind, r.workload.name))
}

/// [`check_tree_depth`] of a tree; `label` names the workload.
fn check_depth(tree: &TreeNode, label: &str) -> Result<(), Failure> {
    let mut deepest = 0;
    let mut stack = vec![(tree, 1usize)];
    while let Some((node, depth)) = stack.pop() {
        deepest = deepest.max(depth);
        stack.extend(node.children.iter().map(|c| (c, depth + 1)));
    }
    if deepest <= HARD_MAX_DEPTH {
        return Ok(());
    }
    Err(Failure::new(
        EXIT_LIMIT,
        format!(
            "{label}: the component tree is {deepest} levels deep; JSON and YAML output \
             write at most {HARD_MAX_DEPTH} (use -o human)"
        ),
    ))
}

fn resolution_warnings(r: &Resolved<'_>) {
    for w in &r.warnings {
        warn(&format!("{}/{}: {w}", r.workload.kind, r.workload.name));
    }
}

/// The failure of one object: named by its label when the input held
/// several (`position` is then its 1-based position), and with the
/// machine-readable `no_definition` report on stdout for `-o json|yaml`.
fn object_failure(
    e: &Error,
    obj: &Value,
    position: Option<usize>,
    format: Format,
) -> Result<Failure, Failure> {
    let mut f = Failure::engine(e);
    if let Some(n) = position {
        f = f.context(&object_label(obj, n));
    }
    if format != Format::Human && e.code() == ErrorCode::NoDefinition {
        let report = json!({
            "error": ErrorCode::NoDefinition.as_str(),
            "gvk": object_gvk(obj).to_string(),
            "message": error_message(e),
        });
        f.stdout = Some(if format == Format::Json {
            output::json(&report)?
        } else {
            output::yaml(&report)?
        });
    }
    Ok(f)
}

/// The pods of a `--pods` input, read by the engine (a List, several
/// documents, an array or one Pod). What is not a Pod is the engine's to
/// report (an unattributed pod with an `invalid-pod` finding).
fn read_pods(engine: &Engine, path: &InputPath, limits: &Limits) -> Result<Vec<Value>, Failure> {
    let name = path.display();
    let text = read_text(path, limits).map_err(|f| f.context("--pods"))?;
    engine
        .read_objects(&text)
        .map_err(|e| Failure::engine(&e).context(&format!("--pods {name}")))
}

/// Live output for `-o json|yaml`: `{resolved, gang}`, and from a cluster
/// `events` and `eventsLeftOut` too.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LiveReport<'a> {
    resolved: &'a Resolved<'a>,
    gang: Option<&'a GangReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    events: Option<&'a [workload_lens::WorkloadEvent]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    events_left_out: Option<usize>,
}

/// The gang groups of live mode.
enum Gang {
    /// They could not be computed (the message says why).
    Failed(String),
    Groups(GangReport),
}

/// What live mode adds to the human description.
struct LiveView<'a> {
    gang: &'a Gang,
    /// The first finding of the diagnosis, for a workload that is not
    /// (only) Running or Completed: `Why:` under its status.
    why: Option<String>,
    view: ViewOptions,
    /// What a cluster adds: the header block and the events.
    cluster: Option<ClusterView<'a>>,
}

/// What `describe TYPE/NAME` shows besides the resolved workload.
struct ClusterView<'a> {
    /// How long ago the object was created.
    age: String,
    labels: Vec<String>,
    annotations: usize,
    controlled_by: Option<String>,
    events: &'a [workload_lens::WorkloadEvent],
    events_left_out: usize,
    /// Seconds since the epoch, for the events' ages.
    now: i64,
}

#[cfg(feature = "cluster")]
fn cluster_view<'a>(source: &Source<'a>) -> Option<ClusterView<'a>> {
    let Source::Cluster(d, now) = source else {
        return None;
    };
    let meta = d.object.get("metadata");
    let labels = meta
        .and_then(|m| m.get("labels"))
        .and_then(Value::as_object)
        .map(|l| {
            l.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default();
    let annotations = meta
        .and_then(|m| m.get("annotations"))
        .and_then(Value::as_object)
        .map_or(0, |a| a.len());
    Some(ClusterView {
        age: crate::cluster::age(
            meta.and_then(|m| m.get("creationTimestamp"))
                .and_then(Value::as_str),
            *now,
        ),
        labels,
        annotations,
        controlled_by: d.controlled_by(),
        events: &d.events,
        events_left_out: d.events_left_out,
        now: *now,
    })
}

#[cfg(not(feature = "cluster"))]
fn cluster_view<'a>(_: &Source<'a>) -> Option<ClusterView<'a>> {
    None
}

/// Describe one object with its pods.
fn live(
    source: &Source<'_>,
    collection: bool,
    view: ViewOptions,
    format: Format,
) -> Result<String, Failure> {
    let obj = source.object();
    let fail = |e: &Error| object_failure(e, obj, collection.then_some(1), format);
    let r = match source.resolved() {
        Ok(r) => r,
        Err(e) => return Err(fail(&e)?),
    };
    resolution_warnings(&r);
    let gang = match source.gang() {
        Ok(g) => Gang::Groups(g),
        Err(e) if e.code() == ErrorCode::Limit => return Err(fail(&e)?),
        // The tree is still right; only the groups are unknown.
        Err(e) => Gang::Failed(error_message(&e)),
    };
    let gang_report = match &gang {
        Gang::Groups(g) => Some(g),
        Gang::Failed(_) => None,
    };
    pod_warnings(&r, gang_report, source.in_cluster());
    if let Gang::Failed(message) = &gang {
        warn(&format!(
            "{}/{}: gang groups not computed: {message}",
            r.workload.kind, r.workload.name
        ));
    }
    if format != Format::Human {
        check_tree_depth(&r)?;
    }
    let cluster = cluster_view(source);
    let report = LiveReport {
        resolved: &r,
        gang: gang_report,
        events: cluster.as_ref().map(|c| c.events),
        events_left_out: cluster.as_ref().map(|c| c.events_left_out),
    };
    // A workload that is not simply running or completed says why, in one
    // line (`why TYPE/NAME` gives every finding).
    let healthy = r.status.as_ref().is_none_or(|s| {
        matches!(
            s.matched_statuses.as_slice(),
            [workload_lens::WorkloadStatus::Running] | [workload_lens::WorkloadStatus::Completed]
        )
    });
    let why = if format == Format::Human && !healthy {
        match source.diagnosis() {
            Ok(d) => d.findings.first().map(|f| {
                let more = d.findings.len() - 1;
                if more > 0 {
                    format!(
                        "{} ({}; {more} more finding{}: workload-lens why)",
                        f.message,
                        f.code.as_str(),
                        if more == 1 { "" } else { "s" }
                    )
                } else {
                    format!("{} ({})", f.message, f.code.as_str())
                }
            }),
            Err(e) if e.code() == ErrorCode::Limit => return Err(fail(&e)?),
            Err(e) => {
                warn(&format!(
                    "{}/{}: no diagnosis: {}",
                    r.workload.kind,
                    r.workload.name,
                    error_message(&e)
                ));
                None
            }
        }
    } else {
        None
    };
    match format {
        Format::Human => Ok(render(
            &r,
            Some(&LiveView {
                gang: &gang,
                why,
                view,
                cluster,
            }),
        )),
        Format::Json => output::json(&report),
        Format::Yaml => output::yaml(&report),
    }
}

fn pod_name(name: Option<&str>) -> &str {
    name.filter(|n| !n.is_empty()).unwrap_or("<unnamed>")
}

/// Every pod attributed to an instance.
fn placed_pods<'r>(r: &'r Resolved<'_>) -> impl Iterator<Item = &'r PodAttribution> {
    r.components
        .iter()
        .flat_map(|c| &c.instances)
        .filter_map(|i| i.live.as_ref())
        .flat_map(|l| &l.pods)
}

/// Every pod attributed to an instance, then the unattributed ones.
fn all_pods<'r>(r: &'r Resolved<'_>) -> impl Iterator<Item = &'r PodAttribution> {
    placed_pods(r).chain(r.unattributed_pods.iter().flatten())
}

/// `warning: pod <name>: <message>` for every finding of one of the
/// workload's pods (once); pods of other workloads are counted in one line
/// (they are listed under "Not this workload's pods"): the pods given
/// (`--pods`), or `in_cluster`, the look-alikes of the namespace.
fn pod_warnings(r: &Resolved<'_>, gang: Option<&GangReport>, in_cluster: bool) {
    let mut seen = BTreeSet::new();
    let attributed = all_pods(r).flat_map(|p| p.findings.iter().map(move |f| (&p.name, f)));
    let grouped = gang
        .into_iter()
        .flat_map(|g| &g.pods)
        .flat_map(|p| p.findings.iter().map(move |f| (&p.pod, f)));
    for (name, f) in attributed.chain(grouped) {
        if !f.is_stray() && seen.insert((name, &f.message)) {
            warn(&format!("pod {}: {}", pod_name(Some(name)), f.message));
        }
    }
    let n = r.stray_pods.len();
    let what = match (n, in_cluster) {
        (0, _) => return,
        (1, false) => "1 pod given is not this workload's".to_string(),
        (n, false) => format!("{n} pods given are not this workload's"),
        (1, true) => "1 pod in the namespace looks like this workload's but is not".to_string(),
        (n, true) => format!("{n} pods in the namespace look like this workload's but are not"),
    };
    warn(&format!(
        "{what} (not counted; listed under \"Not this workload's pods\")"
    ));
}

/// The human description of one resolved workload; with `live`, of the
/// workload and its pods. Object data reaches it only through
/// [`columns`] and [`escape`](output::escape).
fn render(r: &Resolved<'_>, live: Option<&LiveView<'_>>) -> String {
    let mut out = String::new();
    let mut header = vec![format!("{}/{}", r.workload.kind, r.workload.name)];
    if let Some(ns) = &r.workload.namespace {
        header.push(format!("namespace: {ns}"));
    }
    header.push(format!(
        "definition: {} ({})",
        r.definition.name, r.definition.origin
    ));
    let cluster = live.and_then(|l| l.cluster.as_ref());
    if let Some(c) = cluster {
        header.push(format!("age: {}", c.age));
    }
    out.push_str(&columns(&[header], 3));
    if let Some(c) = cluster {
        out.push_str(&header_block(c));
    }
    if live.is_none() {
        out.push_str("(file mode: no live pods)\n");
    }
    out.push('\n');

    let ctx = TreeCtx {
        comps: r.components.iter().map(|c| (&*c.name, c)).collect(),
        live: live.is_some(),
        pod_limit: live.and_then(|l| l.view.pod_limit),
        component_limit: live.and_then(|l| l.view.component_limit),
    };
    let mut rows = Rows::default();
    tree_rows(&r.tree, &ctx, &mut rows);
    out.push_str(&rows.render());

    if let Some(status) = &r.status {
        let names: Vec<&str> = status.matched_statuses.iter().map(|s| s.as_str()).collect();
        let mut line = format!("Status: {}", names.join(", "));
        if let Some(phase) = &status.phase {
            line.push_str(&format!(" (phase: {phase})"));
        }
        out.push('\n');
        out.push_str(&output::escape(&line));
        out.push('\n');
        if let Some(why) = live.and_then(|l| l.why.as_deref()) {
            out.push_str(&output::escape(&format!("Why: {why}")));
            out.push('\n');
        }
        if !status.conditions.is_empty() {
            out.push_str("\nConditions:\n");
            out.push_str(&conditions_table(&status.conditions));
        }
    }
    if live.is_some() {
        out.push_str(&pending_table(r));
    }

    if let Some(unattributed) = r.unattributed_pods.as_ref().filter(|u| !u.is_empty()) {
        out.push_str("\nUnattributed pods:\n");
        out.push_str(&unattributed_table(unattributed));
    }
    if !r.stray_pods.is_empty() {
        out.push_str("\nNot this workload's pods:\n");
        out.push_str(&stray_table(
            &r.stray_pods,
            live.and_then(|l| l.view.pod_limit),
        ));
    }
    match live.map(|l| l.gang) {
        // No groups (the definition has no gang scheduling, or no pod of
        // the workload belongs to a group): no section.
        Some(Gang::Groups(gang)) if !gang.groups.is_empty() => {
            out.push('\n');
            out.push_str(&gang_table(gang));
        }
        Some(Gang::Failed(_)) => out.push_str("\nGang groups: not computed (see the warning)\n"),
        Some(Gang::Groups(_)) | None => {}
    }

    out.push_str("\nResources:\n");
    out.push_str(&resources_table(r));
    if let Some(c) = cluster {
        out.push_str(&events_table(c));
    }
    out
}

/// Labels, annotations and the controller, below the header line (kubectl
/// style).
fn header_block(c: &ClusterView<'_>) -> String {
    let mut rows = Vec::new();
    let mut labels = c.labels.iter();
    rows.push(vec![
        "Labels:".to_string(),
        labels.next().cloned().unwrap_or_else(|| "<none>".into()),
    ]);
    rows.extend(labels.map(|l| vec![String::new(), l.clone()]));
    rows.push(vec!["Annotations:".into(), c.annotations.to_string()]);
    rows.push(vec![
        "Controlled By:".into(),
        c.controlled_by.clone().unwrap_or_else(|| "<none>".into()),
    ]);
    columns(&rows, 2)
}

/// The workload's conditions: type, status, reason, last transition and
/// message, in the object's order.
fn conditions_table(conditions: &[workload_lens::Condition]) -> String {
    let none = || "<none>".to_string();
    let mut rows = vec![
        ["TYPE", "STATUS", "REASON", "LAST TRANSITION", "MESSAGE"]
            .map(String::from)
            .to_vec(),
    ];
    for c in conditions {
        rows.push(vec![
            if c.type_.is_empty() {
                none()
            } else {
                c.type_.clone()
            },
            c.status.clone().unwrap_or_else(none),
            c.reason.clone().unwrap_or_else(none),
            c.last_transition_time.clone().unwrap_or_else(none),
            c.message.clone().unwrap_or_default(),
        ]);
    }
    columns(&rows, 3)
}

/// The workload's pods the scheduler could not place, with what it said.
fn pending_table(r: &Resolved<'_>) -> String {
    let pods: Vec<&PodAttribution> = placed_pods(r)
        .chain(r.unattributed_pods.iter().flatten())
        .filter(|p| p.message.is_some())
        .collect();
    if pods.is_empty() {
        return String::new();
    }
    let mut rows = vec![["NAME", "REASON", "MESSAGE"].map(String::from).to_vec()];
    for p in pods {
        rows.push(vec![
            pod_name(Some(&p.name)).to_string(),
            p.reason.clone().unwrap_or_else(|| "<none>".into()),
            p.message.clone().unwrap_or_default(),
        ]);
    }
    format!("\nNot scheduled:\n{}", columns(&rows, 3))
}

/// kubectl's Events table, with the object each event is about: the newest
/// first, then how many older ones are left out.
fn events_table(c: &ClusterView<'_>) -> String {
    if c.events.is_empty() {
        return "\nEvents: <none>\n".into();
    }
    let mut rows = vec![
        ["TYPE", "REASON", "AGE", "FROM", "OBJECT", "MESSAGE"]
            .map(String::from)
            .to_vec(),
    ];
    for e in c.events {
        let last = event_age(e.last_time.as_deref(), c.now);
        let age = match (e.count, e.first_time.as_deref()) {
            (n, Some(first)) if n > 1 => {
                format!("{last} (x{n} over {})", event_age(Some(first), c.now))
            }
            (n, None) if n > 1 => format!("{last} (x{n})"),
            _ => last,
        };
        rows.push(vec![
            e.type_.clone(),
            e.reason.clone(),
            age,
            e.from.clone(),
            e.object.clone(),
            e.message.clone(),
        ]);
    }
    let mut out = format!("\nEvents:\n{}", columns(&rows, 3));
    if c.events_left_out > 0 {
        out.push_str(&format!(
            "... and {} older event{}\n",
            c.events_left_out,
            if c.events_left_out == 1 { "" } else { "s" }
        ));
    }
    out
}

#[cfg(feature = "cluster")]
fn event_age(at: Option<&str>, now: i64) -> String {
    crate::cluster::age(at, now)
}

#[cfg(not(feature = "cluster"))]
fn event_age(_: Option<&str>, _: i64) -> String {
    "<unknown>".into()
}

fn unattributed_table(pods: &[PodAttribution]) -> String {
    let mut rows = vec![vec![
        "NAME".to_string(),
        "PHASE".to_string(),
        "REASON".to_string(),
        "WHY UNATTRIBUTED".to_string(),
    ]];
    for p in pods {
        rows.push(vec![
            pod_name(Some(&p.name)).to_string(),
            p.phase.clone(),
            p.reason.clone().unwrap_or_else(|| "<none>".into()),
            p.findings
                .first()
                .map_or_else(|| "<none>".into(), |f| f.message.clone()),
        ]);
    }
    columns(&rows, 3)
}

/// The pods given that are not this workload's, with why; at most `limit`
/// rows, then `... and N more`.
fn stray_table(pods: &[PodAttribution], limit: Option<usize>) -> String {
    let mut rows = vec![vec![
        "NAME".to_string(),
        "PHASE".to_string(),
        "WHY NOT".to_string(),
    ]];
    let shown = limit.unwrap_or(usize::MAX).min(pods.len());
    for p in &pods[..shown] {
        let why = p
            .findings
            .iter()
            .find(|f| f.is_stray())
            .map_or_else(|| "<none>".into(), |f| f.message.clone());
        rows.push(vec![
            pod_name(Some(&p.name)).to_string(),
            p.phase.clone(),
            why.strip_prefix("not this workload's pod: ")
                .map_or(why.clone(), str::to_string),
        ]);
    }
    let mut out = columns(&rows, 3);
    if shown < pods.len() {
        out.push_str(&format!("... and {} more\n", pods.len() - shown));
    }
    out
}

/// `Gang groups:` and a table of the groups (with a SUBGROUPS column
/// `component=min/pods,...` when any group has subgroups).
fn gang_table(gang: &GangReport) -> String {
    let subgroups = gang.groups.iter().any(|g| !g.sub_groups.is_empty());
    let mut header: Vec<String> = ["NAME", "MIN MEMBERS", "PODS"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if subgroups {
        header.push("SUBGROUPS".into());
    }
    let mut rows = vec![header];
    for g in &gang.groups {
        let mut row = vec![
            g.name.clone(),
            g.min_member.to_string(),
            g.members.len().to_string(),
        ];
        if subgroups {
            row.push(
                g.sub_groups
                    .iter()
                    .map(|s| format!("{}={}/{}", s.component, s.min_member, s.members.len()))
                    .collect::<Vec<_>>()
                    .join(","),
            );
        }
        rows.push(row);
    }
    format!("Gang groups:\n{}", columns(&rows, 3))
}

/// What the component tree is drawn from.
struct TreeCtx<'a> {
    comps: BTreeMap<&'a str, &'a Component<'a>>,
    /// Live mode: ready counts, nodes and pod rows.
    live: bool,
    pod_limit: Option<usize>,
    component_limit: Option<usize>,
}

/// `gpu: N`, or nothing when zero.
fn gpu_cell(gpu: u64) -> String {
    if gpu > 0 {
        format!("gpu: {gpu}")
    } else {
        String::new()
    }
}

/// Cells of a pod-bearing instance in the tree. File mode: replicas (or
/// `absent`) and GPUs. Live mode: `<ready>/<desired> ready` (or `absent`),
/// GPUs and the nodes of its pods.
fn instance_cells(i: &Instance, live: bool) -> Vec<String> {
    let Some(l) = i.live.as_ref().filter(|_| live) else {
        return vec![
            if i.present {
                format!("replicas: {}", i.desired_replicas)
            } else {
                "absent".to_string()
            },
            gpu_cell(i.resources.gpu),
        ];
    };
    vec![
        match (&l.scale, i.present) {
            (_, false) => "absent".to_string(),
            // An autoscaled instance: what its autoscaler runs now, and the
            // count the workload declares beside it.
            (Some(s), true) if s.declared != s.replicas => format!(
                "{}/{} ready (autoscaled; declared {})",
                l.ready, i.desired_replicas, s.declared
            ),
            _ => format!("{}/{} ready", l.ready, i.desired_replicas),
        },
        gpu_cell(i.resources.gpu),
        l.nodes.join(","),
    ]
}

/// Cells of a pod row: its state (`Phase` or `Phase (Reason)`), GPUs and node.
fn pod_cells(p: &PodAttribution) -> Vec<String> {
    vec![
        match &p.reason {
            Some(reason) => format!("{} ({reason})", p.phase),
            None => p.phase.clone(),
        },
        gpu_cell(p.resources.gpu),
        p.node.clone().unwrap_or_else(|| "<none>".into()),
    ]
}

/// A row below a tree node.
#[derive(Clone)]
enum Child<'a> {
    Instance(&'a Instance<'a>),
    Pod(&'a PodAttribution),
    /// `... and N more (K unhealthy shown)`.
    More(String),
    Component(&'a TreeNode),
}

/// The pod rows of an instance in live mode: every pod in input order, or
/// with `--pod-limit` unhealthy (not ready) pods first, at most `limit`,
/// then a row saying how many are left out.
fn pod_children<'a>(i: &'a Instance<'a>, ctx: &TreeCtx<'_>) -> Vec<Child<'a>> {
    let Some(l) = i.live.as_ref().filter(|_| ctx.live) else {
        return Vec::new();
    };
    let mut pods: Vec<&PodAttribution> = l.pods.iter().collect();
    let Some(limit) = ctx.pod_limit else {
        return pods.into_iter().map(Child::Pod).collect();
    };
    pods.sort_by_key(|p| p.ready);
    let hidden = pods.len().saturating_sub(limit);
    pods.truncate(limit);
    let unhealthy = pods.iter().filter(|p| !p.ready).count();
    let mut out: Vec<Child<'a>> = pods.into_iter().map(Child::Pod).collect();
    if hidden > 0 {
        out.push(Child::More(format!(
            "... and {hidden} more ({unhealthy} unhealthy shown)"
        )));
    }
    out
}

/// The rows of the tree: cells aligned in columns, and free lines (`... and
/// N more`) that take no part in the alignment.
#[derive(Default)]
struct Rows {
    cells: Vec<Vec<String>>,
    free: BTreeMap<usize, String>,
}

impl Rows {
    fn push(&mut self, row: Vec<String>) {
        self.cells.push(row);
    }

    fn push_free(&mut self, line: String) {
        self.free.insert(self.cells.len(), line);
        self.cells.push(Vec::new());
    }

    fn render(&self) -> String {
        let table = columns(&self.cells, 3);
        let mut out = String::with_capacity(table.len());
        for (n, line) in table.lines().enumerate() {
            out.push_str(self.free.get(&n).map_or(line, String::as_str));
            out.push('\n');
        }
        out
    }
}

/// Tree levels drawn with their own indentation; deeper rows keep the
/// indentation of this level and show their depth (`[depth 70] name`), so
/// a row stays short however deep the tree (a 16,000-level chain would
/// otherwise print half a gigabyte of indentation).
const MAX_DRAWN_DEPTH: usize = 32;

/// Where a tree row goes: the prefix drawn before it, whether it is the
/// last of its siblings (`None` for the root) and its depth (root: 0).
struct Place<'p> {
    prefix: &'p str,
    last: Option<bool>,
    depth: usize,
}

/// The label of a tree row and the prefix of its own children.
fn branch(at: &Place<'_>, name: &str) -> (String, String) {
    let prefix = at.prefix;
    let name = if at.depth > MAX_DRAWN_DEPTH {
        format!("[depth {}] {name}", at.depth)
    } else {
        name.to_string()
    };
    let (label, child_prefix) = match at.last {
        None => (name, String::new()),
        Some(true) => (format!("{prefix}`-- {name}"), format!("{prefix}    ")),
        Some(false) => (format!("{prefix}|-- {name}"), format!("{prefix}|   ")),
    };
    if at.depth >= MAX_DRAWN_DEPTH {
        (label, prefix.to_string())
    } else {
        (label, child_prefix)
    }
}

/// The children of one tree row still to draw: `pods` tells whether
/// instances have pods (and so cells).
struct Level<'a> {
    children: Vec<Child<'a>>,
    next: usize,
    pods: bool,
    prefix: String,
    depth: usize,
}

/// Rows of the component tree: depth first, with an explicit stack, so the
/// depth of the tree (which the definition chooses) never meets the depth
/// of the call stack.
fn tree_rows(root: &TreeNode, ctx: &TreeCtx<'_>, rows: &mut Rows) {
    let root_place = Place {
        prefix: "",
        last: None,
        depth: 0,
    };
    let mut stack = vec![component_row(root, ctx, &root_place, rows)];
    while let Some(level) = stack.last_mut() {
        let Some(child) = level.children.get(level.next).cloned() else {
            stack.pop();
            continue;
        };
        level.next += 1;
        let at = Place {
            prefix: &level.prefix,
            last: Some(level.next == level.children.len()),
            depth: level.depth + 1,
        };
        let pods = level.pods;
        let below = match child {
            Child::Component(node) => Some(component_row(node, ctx, &at, rows)),
            Child::Instance(i) => {
                let (label, prefix) = branch(&at, instance_name(i));
                let mut row = vec![label];
                if pods {
                    row.extend(instance_cells(i, ctx.live));
                }
                rows.push(row);
                Some(Level {
                    children: pod_children(i, ctx),
                    next: 0,
                    pods,
                    prefix,
                    depth: at.depth,
                })
            }
            Child::Pod(p) => {
                let mut row = vec![branch(&at, pod_name(Some(&p.name))).0];
                row.extend(pod_cells(p));
                rows.push(row);
                None
            }
            Child::More(text) => {
                rows.push_free(output::escape(&branch(&at, &text).0).into_owned());
                None
            }
        };
        stack.extend(below);
    }
}

/// The row of one component, and its children to draw below it.
fn component_row<'a>(
    node: &'a TreeNode,
    ctx: &TreeCtx<'a>,
    at: &Place<'_>,
    rows: &mut Rows,
) -> Level<'a> {
    let (label, prefix) = branch(at, &node.component);
    let comp = ctx.comps.get(node.component.as_str()).copied();
    let mut row = vec![label];
    let instances: &[Instance] = comp.map(|c| c.instances.as_slice()).unwrap_or_default();
    let multi = comp.is_some_and(|c| c.multi_instance);
    let pods = comp.is_some_and(|c| c.has_pod_definition);
    let mut children = Vec::new();
    let mut pod_rows = Vec::new();
    if multi {
        children.extend(instances.iter().map(Child::Instance));
    } else if pods && let Some(i) = instances.first() {
        row.extend(instance_cells(i, ctx.live));
        pod_rows = pod_children(i, ctx);
    }
    rows.push(row);
    children.extend(node.children.iter().map(Child::Component));
    let children = pod_rows
        .into_iter()
        .chain(limit_children(children, ctx))
        .collect();
    Level {
        children,
        next: 0,
        pods,
        prefix,
        depth: at.depth,
    }
}

/// The rows below a component (its instances, then its child components):
/// all in declared order, or with `--component-limit` (live mode) at most
/// that many, those with unhealthy pods first, then those with missing
/// pods, shown in declared order, then a row saying what is left out.
fn limit_children<'a>(children: Vec<Child<'a>>, ctx: &TreeCtx<'_>) -> Vec<Child<'a>> {
    let Some(limit) = ctx
        .component_limit
        .filter(|l| ctx.live && children.len() > *l)
    else {
        return children;
    };
    let health: Vec<(bool, bool)> = children
        .iter()
        .map(|c| match c {
            Child::Component(n) => subtree_health(n, ctx),
            Child::Instance(i) => instance_health(i),
            Child::Pod(_) | Child::More(_) => (false, false),
        })
        .collect();
    let mut order: Vec<usize> = (0..children.len()).collect();
    order.sort_by_key(|&i| (!health[i].0, !health[i].1));
    let (shown, hidden) = order.split_at(limit);
    let mut shown = shown.to_vec();
    shown.sort_unstable();
    let unhealthy = hidden.iter().filter(|&&i| health[i].0).count();
    let missing = hidden.iter().filter(|&&i| health[i].1).count();
    let mut out: Vec<Child<'a>> = shown.into_iter().map(|i| children[i].clone()).collect();
    out.push(Child::More(format!(
        "... and {} more component{} ({unhealthy} unhealthy, {missing} with missing pods)",
        hidden.len(),
        if hidden.len() == 1 { "" } else { "s" }
    )));
    out
}

/// Whether an instance has a pod that is not ready, and whether it has
/// fewer ready pods than desired.
fn instance_health(i: &Instance<'_>) -> (bool, bool) {
    match &i.live {
        Some(l) => (
            l.pods.iter().any(|p| !p.ready),
            i.present && l.ready < i.desired_replicas,
        ),
        None => (false, false),
    }
}

/// Whether a component or any below it has a pod that is not ready, and
/// whether one has fewer ready pods than desired. Walked with an explicit
/// stack (the tree's depth is the definition's to choose).
fn subtree_health(node: &TreeNode, ctx: &TreeCtx<'_>) -> (bool, bool) {
    let (mut unhealthy, mut missing) = (false, false);
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if let Some(c) = ctx.comps.get(n.component.as_str()) {
            for i in &c.instances {
                let (u, m) = instance_health(i);
                unhealthy |= u;
                missing |= m;
            }
        }
        stack.extend(n.children.iter());
    }
    (unhealthy, missing)
}

fn instance_name<'i>(i: &'i Instance<'_>) -> &'i str {
    if i.id.is_empty() { "\"\"" } else { &i.id }
}

/// One row of the resources table before naming.
struct ResourceRow<'a> {
    component: &'a str,
    instance: Option<&'a str>,
    present: bool,
    replicas: u64,
    resources: &'a ResourceSummary,
}

/// A row per instance of each component that defines pods.
fn resource_rows<'r>(r: &'r Resolved<'_>) -> Vec<ResourceRow<'r>> {
    let mut rows = Vec::new();
    for c in r.components.iter().filter(|c| c.has_pod_definition) {
        for i in &c.instances {
            rows.push(ResourceRow {
                component: &c.name,
                instance: (c.multi_instance && !i.id.is_empty()).then_some(i.id.as_str()),
                present: i.present,
                replicas: i.desired_replicas,
                resources: &i.resources,
            });
        }
    }
    rows
}

/// Row names: the instance id for multi-instance components, else the
/// component name; `component/instance` where names would collide.
fn row_names(rows: &[ResourceRow<'_>]) -> Vec<String> {
    let short: Vec<String> = rows
        .iter()
        .map(|row| row.instance.unwrap_or(row.component).to_string())
        .collect();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &short {
        *counts.entry(s.as_str()).or_default() += 1;
    }
    rows.iter()
        .zip(&short)
        .map(|(row, s)| match row.instance {
            Some(i) if counts.get(s.as_str()).copied().unwrap_or(0) > 1 => {
                format!("{}/{i}", row.component)
            }
            _ => s.clone(),
        })
        .collect()
}

/// The resources table: a row per instance that defines pods (see
/// [`resource_rows`]), then the totals; the ephemeral-storage and extended
/// resource columns only when some row requests them.
fn resources_table(r: &Resolved<'_>) -> String {
    let rows = resource_rows(r);
    let names = row_names(&rows);
    let totals = &r.totals.resources;
    let extended: BTreeSet<&str> = rows
        .iter()
        .map(|row| row.resources)
        .chain(std::iter::once(totals))
        .flat_map(|res| res.extended.iter())
        .filter(|(_, q)| !q.is_zero())
        .map(|(k, _)| k.as_str())
        .collect();
    let ephemeral = rows
        .iter()
        .any(|row| row.resources.ephemeral_storage_bytes > 0)
        || totals.ephemeral_storage_bytes > 0;

    let mut header: Vec<String> = ["COMPONENT", "REPLICAS", "GPU", "CPU", "MEMORY"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if ephemeral {
        header.push("EPHEMERAL-STORAGE".into());
    }
    header.extend(extended.iter().map(|k| k.to_uppercase()));

    let cells = |name: String, replicas: String, res: &ResourceSummary| {
        let mut row = vec![
            name,
            replicas,
            res.gpu.to_string(),
            cpu(res.cpu_millis),
            bytes(res.memory_bytes),
        ];
        if ephemeral {
            row.push(bytes(res.ephemeral_storage_bytes));
        }
        for k in &extended {
            row.push(
                res.extended
                    .get(*k)
                    .map(|q| q.to_canonical_string())
                    .unwrap_or_else(|| "0".into()),
            );
        }
        row
    };
    let mut table = vec![header];
    for (row, name) in rows.iter().zip(names) {
        let replicas = if row.present {
            row.replicas.to_string()
        } else {
            "absent".into()
        };
        table.push(cells(name, replicas, row.resources));
    }
    table.push(cells("TOTAL".into(), r.totals.pods.to_string(), totals));
    columns(&table, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of `n` nested components `c0 > c1 > ...`.
    fn chain(n: usize) -> TreeNode {
        let mut node = TreeNode {
            component: format!("c{}", n - 1),
            children: Vec::new(),
        };
        for i in (0..n - 1).rev() {
            node = TreeNode {
                component: format!("c{i}"),
                children: vec![node],
            };
        }
        node
    }

    /// Drop a tree without recursion (the derived drop recurses).
    fn dismantle(tree: TreeNode) {
        let mut stack = vec![tree];
        while let Some(mut node) = stack.pop() {
            stack.append(&mut node.children);
        }
    }

    fn rows_of(tree: &TreeNode) -> String {
        let ctx = TreeCtx {
            comps: BTreeMap::new(),
            live: false,
            pod_limit: None,
            component_limit: None,
        };
        let mut rows = Rows::default();
        tree_rows(tree, &ctx, &mut rows);
        rows.render()
    }

    #[test]
    fn a_deep_tree_is_drawn_without_recursion_and_with_bounded_rows() {
        // Far deeper than the 2 MiB stack of a test thread allows recursion.
        let tree = chain(20_000);
        let text = rows_of(&tree);
        dismantle(tree);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 20_000);
        assert_eq!(lines[0], "c0");
        assert_eq!(lines[1], "`-- c1");
        assert_eq!(lines[2], "    `-- c2");
        let indent = 4 * (MAX_DRAWN_DEPTH - 1);
        assert_eq!(
            lines[MAX_DRAWN_DEPTH],
            format!("{}`-- c{MAX_DRAWN_DEPTH}", " ".repeat(indent))
        );
        let next = MAX_DRAWN_DEPTH + 1;
        assert_eq!(
            lines[next],
            format!("{}`-- [depth {next}] c{next}", " ".repeat(indent))
        );
        assert_eq!(
            lines[19_999],
            format!("{}`-- [depth 19999] c19999", " ".repeat(indent))
        );
        assert!(lines.iter().all(|l| l.len() < 4 * MAX_DRAWN_DEPTH + 40));
    }

    #[test]
    fn siblings_and_nesting_are_drawn_as_before() {
        let leaf = |n: &str| TreeNode {
            component: n.into(),
            children: Vec::new(),
        };
        let tree = TreeNode {
            component: "root".into(),
            children: vec![
                TreeNode {
                    component: "a".into(),
                    children: vec![leaf("a1"), leaf("a2")],
                },
                TreeNode {
                    component: "b".into(),
                    children: vec![leaf("b1")],
                },
            ],
        };
        assert_eq!(
            rows_of(&tree),
            "root\n|-- a\n|   |-- a1\n|   `-- a2\n`-- b\n    `-- b1\n"
        );
    }

    #[test]
    fn json_output_refuses_trees_deeper_than_the_hard_limit() {
        let depth_of = |n: usize| {
            let tree = chain(n);
            let result = check_depth(&tree, "App/a").map_err(|f| (f.exit, f.message));
            dismantle(tree);
            result
        };
        assert!(depth_of(HARD_MAX_DEPTH).is_ok());
        let err = depth_of(HARD_MAX_DEPTH + 1).err();
        assert_eq!(err.as_ref().map(|e| e.0), Some(EXIT_LIMIT));
        assert!(err.is_some_and(|e| e.1.contains(&format!("{} levels deep", HARD_MAX_DEPTH + 1))));
    }
}
