//! `get`, `top` and `describe TYPE/NAME` against a live cluster.

use std::collections::HashMap;
use std::io::Write;
use std::pin::Pin;
use std::time::{Duration, Instant};

use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};
use workload_lens::{ApiResource, Engine, Limits, ListOptions, OwnerKind, WorkloadSummary};

use super::{
    ApiError, Cluster, ConnectOptions, Warning, age, failure, machine_failure, now, print_warnings,
};
use crate::failure::{EXIT_DENIED, EXIT_NOT_FOUND, Failure};
use crate::input::InputPath;
use crate::output::{self, Format, columns};

pub use crate::GetOutput as GetFormat;

impl GetFormat {
    fn format(self) -> Format {
        match self {
            GetFormat::Human | GetFormat::Wide => Format::Human,
            GetFormat::Json => Format::Json,
            GetFormat::Yaml => Format::Yaml,
        }
    }
}

/// What `get` and `top` read.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// `TYPE` or `TYPE/NAME` (none: every covered type).
    pub target: Option<String>,
    /// `NAME` as a second argument (`get jobset llama`).
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    pub selector: Option<String>,
    pub phases: Vec<String>,
    pub all_types: bool,
    pub chunk_size: usize,
    pub definitions: Vec<InputPath>,
    pub connect: ConnectOptions,
    /// `--timings`: where the time went, on stderr.
    pub timings: bool,
}

/// Where a listing's time went.
#[derive(Debug, Default)]
struct Timings {
    connect: Duration,
    discovery: Duration,
    definitions: Duration,
    requests: Duration,
    read: Duration,
    resolve: Duration,
    objects: usize,
    owners: usize,
    pages: usize,
    bytes: usize,
}

impl Timings {
    fn print(&self, total: Duration) {
        let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
        eprintln!(
            "timings: total {}; connect {}, discovery {}, definitions in the cluster {}, \
             list requests {} ({} pages, {:.1} MB), reading the JSON {}, resolving {} \
             ({} objects kept, {} owners), other {}",
            ms(total),
            ms(self.connect),
            ms(self.discovery),
            ms(self.definitions),
            ms(self.requests),
            self.pages,
            self.bytes as f64 / 1e6,
            ms(self.read),
            ms(self.resolve),
            self.objects,
            self.owners,
            ms(total.saturating_sub(
                self.connect
                    + self.discovery
                    + self.definitions
                    + self.requests
                    + self.read
                    + self.resolve
            ))
        );
    }
}

/// What one listing read.
struct Listing {
    cluster: Cluster,
    engine: Engine,
    types: Vec<ApiResource>,
    /// The namespace listed (`None`: all).
    namespace: Option<String>,
    rows: Vec<WorkloadSummary>,
    owners: Vec<Value>,
    /// Per type: the resourceVersion its list was read at.
    versions: Vec<(ApiResource, String)>,
    warnings: Vec<Warning>,
    options: ListOptions,
    /// `TYPE/NAME`: one object.
    single: bool,
}

fn split_target(scope: &Scope) -> Result<(Option<String>, Option<String>), Failure> {
    let Some(t) = &scope.target else {
        return Ok((None, None));
    };
    let (ty, name) = match t.split_once('/') {
        Some((ty, name)) => (ty.to_string(), Some(name.to_string())),
        None => (t.clone(), None),
    };
    let name = match (name, scope.name.clone()) {
        (Some(_), Some(_)) => {
            return Err(Failure::usage(format!(
                "give the name once: '{t}' already names one"
            )));
        }
        (a, b) => a.or(b),
    };
    if ty.is_empty() || name.as_deref() == Some("") {
        return Err(Failure::usage(format!("'{t}': expected TYPE/NAME")));
    }
    Ok((Some(ty), name))
}

fn list(scope: &Scope, limits: &Limits, format: Format) -> Result<Listing, Failure> {
    let start = Instant::now();
    let mut t = Timings::default();
    let (ty, name) = split_target(scope)?;
    let cluster = Cluster::connect(&scope.connect, format)?;
    t.connect = start.elapsed();
    let namespace = if scope.all_namespaces {
        None
    } else {
        Some(
            scope
                .namespace
                .clone()
                .unwrap_or_else(|| cluster.namespace.clone()),
        )
    };
    let mut warnings = Vec::new();
    let fail = |c: &Cluster, e: &ApiError, what: &str| failure(Some(c), e, what, format);
    let served = cluster
        .block_on(cluster.discover(&mut warnings))
        .map_err(|e| fail(&cluster, &e, "discovering the API"))?;
    t.discovery = start.elapsed() - t.connect;
    let engine = cluster.block_on(super::engine(
        &cluster,
        &served,
        &scope.definitions,
        limits,
        &mut warnings,
    ))?;
    t.definitions = start.elapsed() - t.connect - t.discovery;
    let all_types = ty.is_none() || scope.all_types;
    let types = match &ty {
        Some(t) => vec![
            engine
                .find_type(t, &served)
                .map_err(|e| machine_failure(Failure::engine(&e), e.code().as_str(), format))?,
        ],
        None => engine.covered_types(&served),
    };
    let options = ListOptions {
        top_level_only: all_types,
        phases: scope.phases.clone(),
    };
    let mut objects = Vec::new();
    let mut versions = Vec::new();
    let mut forbidden = Vec::new();
    for r in &types {
        let read = |text: &str| {
            engine.read_objects(text).map_err(|e| {
                let f = Failure::engine(&e).context(&format!("a page of the list of {}", r.plural));
                if e.code() == workload_lens::ErrorCode::Limit {
                    // Pages are what the limits see: smaller ones may fit.
                    let mut f = f;
                    f.message.push_str(&format!(
                        "; --chunk-size (now {}) makes pages smaller",
                        scope.chunk_size
                    ));
                    f
                } else {
                    f
                }
            })
        };
        if let Some(name) = &name {
            let path = Cluster::path(r, namespace.as_deref(), Some(name));
            match cluster.block_on(cluster.get_text(&path)) {
                Ok(text) => {
                    objects.push(engine.read_object(&text).map_err(|e| Failure::engine(&e))?)
                }
                Err(ApiError::NotFound(_)) => {
                    let place = match (&namespace, r.namespaced) {
                        (Some(ns), true) => format!(" in namespace {ns}"),
                        _ => String::new(),
                    };
                    return Err(machine_failure(
                        Failure::new(
                            EXIT_NOT_FOUND,
                            format!("{} '{name}' not found{place}", r.kind),
                        ),
                        "not_found",
                        format,
                    ));
                }
                Err(e) => return Err(fail(&cluster, &e, &format!("getting {} {name}", r.plural))),
            }
            continue;
        }
        let asked = Instant::now();
        let listed = cluster.block_on(cluster.list_pages(
            r,
            namespace.as_deref(),
            scope.selector.as_deref(),
            scope.chunk_size,
        ));
        t.requests += asked.elapsed();
        match listed {
            Ok((pages, rv)) => {
                let reading = Instant::now();
                for p in &pages {
                    t.pages += 1;
                    t.bytes += p.len();
                    let page = read(p)?;
                    // Top-level only: what a covered object controls is
                    // left out anyway; not kept (a large cluster's pods).
                    objects.extend(
                        page.into_iter()
                            .filter(|o| !all_types || !engine.controlled_by_covered(o)),
                    );
                }
                t.read += reading.elapsed();
                versions.push((r.clone(), rv));
            }
            Err(ApiError::Forbidden(m)) if types.len() > 1 => {
                forbidden.push(r.plural.clone());
                warnings.push(Warning {
                    reason: "forbidden".into(),
                    message: format!("{}.{} not listed: {m}", r.plural, r.group),
                });
            }
            // Every type: one type that fails (its CRD deleted since
            // discovery, a broken conversion webhook answering 500) is left
            // out with a warning, as in Python and Node; the rest is listed.
            Err(ApiError::NotFound(m)) if types.len() > 1 => warnings.push(Warning {
                reason: "no_crd".into(),
                message: format!(
                    "{}.{} not listed: the server no longer serves it: {m}",
                    r.plural, r.group
                ),
            }),
            Err(ApiError::Other(m)) if types.len() > 1 => warnings.push(Warning {
                reason: "unreachable".into(),
                message: format!("{}.{} not listed: {m}", r.plural, r.group),
            }),
            Err(e) => {
                let what = format!(
                    "listing {}{}",
                    r.plural,
                    match &namespace {
                        Some(ns) if r.namespaced => format!(" in namespace {ns}"),
                        _ => String::new(),
                    }
                );
                return Err(fail(&cluster, &e, &what));
            }
        }
    }
    // Owners of types no definition covers, so that a chain can be followed
    // through them (a covered controller ends a chain by itself).
    let mut owners = Vec::new();
    if all_types {
        let mut tried: Vec<OwnerKind> = Vec::new();
        for _ in 0..6 {
            let missing: Vec<OwnerKind> =
                workload_lens::missing_owners(objects.iter().chain(&owners), &tried)
                    .into_iter()
                    .filter(|k| {
                        engine
                            .lookup(&workload_lens::Gvk::from_api_version(
                                &k.api_version,
                                &k.kind,
                            ))
                            .is_none()
                    })
                    .collect();
            if missing.is_empty() {
                break;
            }
            for k in missing {
                tried.push(k.clone());
                let Some(r) = super::resource_for(&served, &k) else {
                    continue;
                };
                match cluster.block_on(cluster.list_pages(
                    r,
                    namespace.as_deref(),
                    None,
                    scope.chunk_size,
                )) {
                    Ok((pages, _)) => {
                        for p in &pages {
                            owners.extend(engine.read_objects(p).unwrap_or_default());
                        }
                    }
                    Err(e) => warnings.push(Warning {
                        reason: "forbidden".into(),
                        message: format!(
                            "{} not listed, so controller chains through them are not followed: {}",
                            r.plural,
                            e.message()
                        ),
                    }),
                }
            }
        }
    }
    if !forbidden.is_empty() && objects.is_empty() && forbidden.len() == types.len() {
        return Err(machine_failure(
            Failure::new(
                EXIT_DENIED,
                format!(
                    "forbidden: no covered type may be listed ({})",
                    forbidden.join(", ")
                ),
            ),
            "forbidden",
            format,
        ));
    }
    let resolving = Instant::now();
    let rows = engine.list_workloads(&objects, &owners, &options);
    t.resolve = resolving.elapsed();
    if scope.timings {
        t.objects = objects.len();
        t.owners = owners.len();
        t.print(start.elapsed());
    }
    Ok(Listing {
        cluster,
        engine,
        types,
        namespace,
        rows,
        owners,
        versions,
        warnings,
        options,
        single: name.is_some(),
    })
}

fn phase_cell(r: &WorkloadSummary) -> String {
    if r.error.is_some() {
        return "Error".into();
    }
    if r.statuses.is_empty() {
        return "<none>".into();
    }
    r.statuses
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(",")
}

fn type_cell(r: &WorkloadSummary) -> String {
    match r.api_version.rsplit_once('/') {
        Some((group, _)) => format!("{}.{group}", r.kind),
        None => r.kind.clone(),
    }
}

fn header(types: bool, wide: bool) -> Vec<String> {
    let mut h: Vec<&str> = vec!["NAME", "NAMESPACE"];
    if types {
        h.push("TYPE");
    }
    h.extend(["PHASE", "PODS", "GPUS", "AGE"]);
    if wide {
        h.extend(["DEFINITION", "ORIGIN"]);
    }
    h.into_iter().map(String::from).collect()
}

fn row_cells(r: &WorkloadSummary, types: bool, wide: bool, now: i64) -> Vec<String> {
    let mut row = vec![
        output::escape(&r.name).into_owned(),
        output::escape(r.namespace.as_deref().unwrap_or("<none>")).into_owned(),
    ];
    if types {
        row.push(output::escape(&type_cell(r)).into_owned());
    }
    row.push(phase_cell(r));
    row.push(r.pods.to_string());
    row.push(r.gpus.to_string());
    row.push(age(r.created.as_deref(), now));
    if wide {
        row.push(output::escape(r.definition.as_deref().unwrap_or("<none>")).into_owned());
        row.push(r.origin.map_or("<none>", |o| o.as_str()).to_string());
    }
    row
}

fn row_warnings(rows: &[WorkloadSummary]) -> Vec<Warning> {
    rows.iter()
        .filter_map(|r| {
            let e = r.error.as_ref()?;
            Some(Warning {
                reason: "resolve".into(),
                message: format!(
                    "{}/{}{}: {}",
                    r.kind,
                    r.name,
                    r.namespace
                        .as_deref()
                        .map(|n| format!(" in {n}"))
                        .unwrap_or_default(),
                    crate::failure::error_message(e)
                ),
            })
        })
        .collect()
}

/// `workload-lens get`: returns the text for stdout; warnings are printed
/// after it.
pub fn get(
    scope: &Scope,
    format: GetFormat,
    watch: bool,
    limits: &Limits,
) -> Result<(String, Vec<Warning>), Failure> {
    let listing = list(scope, limits, format.format())?;
    let mut warnings = listing.warnings.clone();
    warnings.extend(row_warnings(&listing.rows));
    let types = listing.types.len() > 1;
    let wide = format == GetFormat::Wide;
    let text = match format {
        GetFormat::Json | GetFormat::Yaml => {
            let body = match (listing.single, listing.rows.as_slice()) {
                (true, [one]) => serde_json::to_value(one).unwrap_or_default(),
                _ => json!({"items": listing.rows, "count": listing.rows.len()}),
            };
            if format == GetFormat::Json {
                output::json(&body)?
            } else {
                output::yaml(&body)?
            }
        }
        GetFormat::Human | GetFormat::Wide => {
            if listing.rows.is_empty() {
                warnings.insert(
                    0,
                    Warning {
                        reason: "empty".into(),
                        message: match &listing.namespace {
                            Some(ns) => format!("No workloads found in namespace {ns}."),
                            None => "No workloads found in any namespace.".into(),
                        },
                    },
                );
                String::new()
            } else {
                let now = now();
                let mut table = vec![header(types, wide)];
                table.extend(listing.rows.iter().map(|r| row_cells(r, types, wide, now)));
                columns(&table, 3)
            }
        }
    };
    if !watch {
        return Ok((text, warnings));
    }
    output::print(&text)?;
    print_warnings(&warnings);
    watch_rows(&listing, scope, types, wide, format)?;
    Ok((String::new(), Vec::new()))
}

type Events =
    Pin<Box<dyn Stream<Item = (usize, Result<kube::core::WatchEvent<Value>, kube::Error>)>>>;

/// `get --watch`: after the listing, a row whenever a workload's matched
/// statuses or GPUs change (or it appears, or is deleted), until
/// interrupted. Each type's watch starts at the resourceVersion its list
/// was read at, and starts again from a new list when the server ends it.
fn watch_rows(
    listing: &Listing,
    scope: &Scope,
    types: bool,
    wide: bool,
    format: GetFormat,
) -> Result<(), Failure> {
    let c = &listing.cluster;
    let mut last: HashMap<String, (Vec<workload_lens::WorkloadStatus>, u64)> = listing
        .rows
        .iter()
        .filter_map(|r| Some((r.uid.clone()?, (r.statuses.clone(), r.gpus))))
        .collect();
    let widths: Vec<usize> = {
        let now = now();
        let mut w: Vec<usize> = header(types, wide)
            .iter()
            .map(|h| h.chars().count())
            .collect();
        for r in &listing.rows {
            for (i, cell) in row_cells(r, types, wide, now).iter().enumerate() {
                w[i] = w[i].max(cell.chars().count());
            }
        }
        w
    };
    let mut printed_header = !listing.rows.is_empty();
    let mut versions = listing.versions.clone();
    c.block_on(async {
        loop {
            let mut streams: Vec<Events> = Vec::new();
            for (i, (r, rv)) in versions.iter().enumerate() {
                let mut q = vec![
                    "watch=1".to_string(),
                    "allowWatchBookmarks=true".to_string(),
                ];
                if !rv.is_empty() {
                    q.push(format!("resourceVersion={}", super::encode(rv)));
                }
                if let Some(s) = &scope.selector {
                    q.push(format!("labelSelector={}", super::encode(s)));
                }
                let path = format!(
                    "{}?{}",
                    Cluster::path(r, listing.namespace.as_deref(), None),
                    q.join("&")
                );
                let req = http::Request::get(path)
                    .body(Vec::new())
                    .map_err(|e| Failure::usage(e.to_string()))?;
                let s = c.client().request_events::<Value>(req).await.map_err(|e| {
                    failure(
                        Some(c),
                        &ApiError::from_kube(e),
                        "watching",
                        format.format(),
                    )
                })?;
                streams.push(Box::pin(s.map(move |e| (i, e))));
            }
            let mut all = futures_util::stream::select_all(streams);
            while let Some((i, event)) = all.next().await {
                use kube::core::WatchEvent as E;
                let (object, deleted) = match event {
                    Ok(E::Added(o) | E::Modified(o)) => (o, false),
                    Ok(E::Deleted(o)) => (o, true),
                    Ok(E::Bookmark(b)) => {
                        versions[i].1 = b.metadata.resource_version;
                        continue;
                    }
                    // 410 Gone and the like: list again below.
                    Ok(E::Error(_)) | Err(_) => {
                        versions[i].1.clear();
                        break;
                    }
                };
                if let Some(rv) = object
                    .pointer("/metadata/resourceVersion")
                    .and_then(Value::as_str)
                {
                    versions[i].1 = rv.to_string();
                }
                let rows = listing.engine.list_workloads(
                    std::slice::from_ref(&object),
                    &listing.owners,
                    &listing.options,
                );
                let Some(mut row) = rows.into_iter().next() else {
                    continue;
                };
                let key = row
                    .uid
                    .clone()
                    .unwrap_or_else(|| format!("{}/{}", row.kind, row.name));
                let state = (row.statuses.clone(), row.gpus);
                if deleted {
                    if last.remove(&key).is_none() {
                        continue;
                    }
                } else if last.get(&key) == Some(&state) {
                    continue;
                } else {
                    last.insert(key, state);
                }
                let mut cells = row_cells(&row, types, wide, now());
                if deleted {
                    let at = if types { 3 } else { 2 };
                    cells[at] = "Deleted".into();
                }
                row.error = None;
                let mut out = String::new();
                if !printed_header {
                    out.push_str(&pad(&header(types, wide), &widths));
                    printed_header = true;
                }
                out.push_str(&pad(&cells, &widths));
                let mut stdout = std::io::stdout().lock();
                if stdout
                    .write_all(out.as_bytes())
                    .and_then(|_| stdout.flush())
                    .is_err()
                {
                    return Ok(());
                }
            }
            // The server ended the watches (timeout, or a version too old):
            // read the lists again to watch on from now.
            for (r, rv) in versions.iter_mut() {
                if let Ok((_, v)) = c
                    .list_pages(
                        r,
                        listing.namespace.as_deref(),
                        scope.selector.as_deref(),
                        scope.chunk_size,
                    )
                    .await
                {
                    *rv = v;
                }
            }
        }
    })
}

fn pad(cells: &[String], widths: &[usize]) -> String {
    let mut line = String::new();
    for (i, c) in cells.iter().enumerate() {
        if i + 1 == cells.len() {
            line.push_str(c);
        } else {
            let w = widths.get(i).copied().unwrap_or(0);
            line.push_str(c);
            line.push_str(&" ".repeat(w.saturating_sub(c.chars().count()) + 3));
        }
    }
    line.push('\n');
    line
}

/// `workload-lens top`: GPU and pod requests by namespace and by type.
pub fn top(
    scope: &Scope,
    format: Format,
    limits: &Limits,
) -> Result<(String, Vec<Warning>), Failure> {
    let scope = Scope {
        all_types: scope.target.is_none(),
        ..scope.clone()
    };
    let listing = list(&scope, limits, format)?;
    let mut warnings = listing.warnings.clone();
    warnings.extend(row_warnings(&listing.rows));
    let usage = workload_lens::usage(&listing.rows);
    let text = match format {
        Format::Json => output::json(&usage)?,
        Format::Yaml => output::yaml(&usage)?,
        Format::Human => {
            let table = |first: &str, rows: &[workload_lens::UsageRow]| {
                let mut t = vec![vec![
                    first.to_string(),
                    "WORKLOADS".into(),
                    "PODS".into(),
                    "GPUS".into(),
                ]];
                for r in rows {
                    t.push(vec![
                        output::escape(if r.key.is_empty() {
                            "<cluster>"
                        } else {
                            &r.key
                        })
                        .into_owned(),
                        r.workloads.to_string(),
                        r.pods.to_string(),
                        r.gpus.to_string(),
                    ]);
                }
                let total = &usage.total;
                t.push(vec![
                    "TOTAL".into(),
                    total.workloads.to_string(),
                    total.pods.to_string(),
                    total.gpus.to_string(),
                ]);
                columns(&t, 3)
            };
            format!(
                "{}\n{}",
                table("NAMESPACE", &usage.by_namespace),
                table("TYPE", &usage.by_type)
            )
        }
    };
    Ok((text, warnings))
}

/// `workload-lens describe TYPE/NAME`: the object, its namespace's pods and
/// their owners, described live.
pub fn describe(
    scope: &Scope,
    view: crate::describe::ViewOptions,
    format: Format,
    limits: &Limits,
) -> Result<(String, Vec<Warning>), Failure> {
    let target = scope.target.as_deref().unwrap_or_default();
    let (definitions, connect) = (&scope.definitions, &scope.connect);
    let namespace = scope.namespace.clone();
    let (ty, name) = split_target(scope)?;
    let (Some(ty), Some(name)) = (ty, name) else {
        return Err(Failure::usage(format!(
            "describe needs TYPE/NAME (e.g. jobset/llama) or a file, not '{target}'"
        )));
    };
    let cluster = Cluster::connect(connect, format)?;
    let namespace = namespace.unwrap_or_else(|| cluster.namespace.clone());
    let mut warnings = Vec::new();
    let served = cluster
        .block_on(cluster.discover(&mut warnings))
        .map_err(|e| failure(Some(&cluster), &e, "discovering the API", format))?;
    let engine = cluster.block_on(super::engine(
        &cluster,
        &served,
        definitions,
        limits,
        &mut warnings,
    ))?;
    let r = engine
        .find_type(&ty, &served)
        .map_err(|e| machine_failure(Failure::engine(&e), e.code().as_str(), format))?;
    let path = Cluster::path(&r, Some(&namespace), Some(&name));
    let text = cluster
        .block_on(cluster.get_text(&path))
        .map_err(|e| match e {
            ApiError::NotFound(_) => machine_failure(
                Failure::new(
                    EXIT_NOT_FOUND,
                    if r.namespaced {
                        format!("{} '{name}' not found in namespace {namespace}", r.kind)
                    } else {
                        format!("{} '{name}' not found", r.kind)
                    },
                ),
                "not_found",
                format,
            ),
            e => failure(
                Some(&cluster),
                &e,
                &format!("getting {} {name}", r.plural),
                format,
            ),
        })?;
    let object = engine.read_object(&text).map_err(|e| Failure::engine(&e))?;
    let ns = object
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or(&namespace)
        .to_string();
    let pods_resource = served
        .iter()
        .find(|r| r.group.is_empty() && r.kind == "Pod")
        .cloned()
        .ok_or_else(|| Failure::new(crate::failure::EXIT_RESOLVE, "the server serves no pods"))?;
    let mut pods = Vec::new();
    match cluster.block_on(cluster.list_pages(&pods_resource, Some(&ns), None, 500)) {
        Ok((pages, _)) => {
            for p in &pages {
                pods.extend(
                    engine
                        .read_objects(p)
                        .map_err(|e| Failure::engine(&e).context("the pods"))?,
                );
            }
        }
        Err(e) => {
            return Err(failure(
                Some(&cluster),
                &e,
                &format!("listing pods in namespace {ns}"),
                format,
            ));
        }
    }
    let workload = OwnerKind {
        api_version: object
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        kind: r.kind.clone(),
    };
    let owners = cluster.block_on(super::owners(
        &cluster,
        &served,
        &engine,
        &ns,
        &workload,
        &pods,
        &mut warnings,
    ));
    pods.extend(owners);
    let created = object
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str)
        .map(|c| age(Some(c), now()));
    // The warnings about the workload and its pods go after the output,
    // first, with the cluster's.
    let (out, about) = output::deferring(|| {
        crate::describe::live_described(&engine, &object, &pods, view, created, format)
    });
    let mut all: Vec<Warning> = about
        .into_iter()
        .map(|message| Warning {
            reason: "resolve".into(),
            message,
        })
        .collect();
    all.extend(warnings);
    match out {
        Ok(out) => Ok((out, all)),
        Err(f) => {
            print_warnings(&all);
            Err(f)
        }
    }
}
