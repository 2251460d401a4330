//! `get`, `top` and `describe TYPE/NAME` against a live cluster.

use std::collections::HashMap;
use std::io::Write;
use std::pin::Pin;
use std::time::Instant;

use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};
use workload_lens::{
    ApiResource, ClusterOp, ClusterOutcome, DescribeQuery, Engine, Error, ErrorCode, Limits,
    ListOptions, ListQuery, Listing, WorkloadSummary,
};

use super::{Cluster, ConnectOptions, Timings, Warning, age, failure, now, print_warnings};
use crate::failure::{EXIT_RESOLVE, Failure};
use crate::input::InputPath;
use crate::output::{self, Format, GetOutput, columns};

impl GetOutput {
    fn format(self) -> Format {
        match self {
            GetOutput::Human | GetOutput::Wide => Format::Human,
            GetOutput::Json => Format::Json,
            GetOutput::Yaml => Format::Yaml,
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

/// What one listing read.
struct Listed {
    cluster: Cluster,
    listing: Box<Listing>,
    /// The query, to list again when a watch ends.
    query: ListQuery,
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

/// The query of a listing: one type (`TYPE`, `TYPE/NAME`) or every
/// covered type (top-level workloads only), in the namespace asked for, the
/// context's, or all.
fn query(scope: &Scope, cluster: &Cluster) -> Result<ListQuery, Failure> {
    let (ty, name) = split_target(scope)?;
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
    Ok(ListQuery {
        all_types: ty.is_none() || scope.all_types,
        type_: ty,
        name,
        namespace,
        label_selector: scope.selector.clone(),
        phases: scope.phases.clone(),
        chunk_size: scope.chunk_size,
        served: None,
    })
}

/// Run a listing through the engine's cluster protocol.
fn run_list(
    cluster: &Cluster,
    engine: &Engine,
    query: ListQuery,
    format: Format,
    timings: Option<&mut Timings>,
) -> Result<Box<Listing>, Failure> {
    let session = engine
        .cluster_session(ClusterOp::List(query))
        .with_server(&cluster.server);
    match cluster.run(session, timings) {
        Ok(ClusterOutcome::Listing(l)) => Ok(l),
        Ok(_) => Err(Failure::new(EXIT_RESOLVE, "internal: not a listing")),
        Err(e) => Err(failure(&e, format)),
    }
}

/// Connect and list.
fn list(scope: &Scope, limits: &Limits, format: Format) -> Result<Listed, Failure> {
    let start = Instant::now();
    let mut t = Timings::default();
    let cluster = Cluster::connect(&scope.connect, format)?;
    t.connect = start.elapsed();
    let query = query(scope, &cluster)?;
    let engine = super::engine(&scope.definitions, limits)?;
    let single = query.name.is_some();
    let listing = run_list(
        &cluster,
        &engine,
        query.clone(),
        format,
        scope.timings.then_some(&mut t),
    )?;
    if scope.timings {
        t.print(
            start.elapsed(),
            listing.workloads.len(),
            listing.owners.len(),
        );
    }
    Ok(Listed {
        cluster,
        listing,
        query,
        single,
    })
}

fn warnings_of(listing: &Listing) -> Vec<Warning> {
    let mut w: Vec<Warning> = listing
        .warnings
        .iter()
        .cloned()
        .map(Warning::from)
        .collect();
    w.extend(row_warnings(&listing.workloads));
    w
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
    format: GetOutput,
    watch: bool,
    limits: &Limits,
) -> Result<(String, Vec<Warning>), Failure> {
    let listed = list(scope, limits, format.format())?;
    let listing = &listed.listing;
    let mut warnings = warnings_of(listing);
    let types = listing.types.len() > 1;
    let wide = format == GetOutput::Wide;
    let text = match format {
        GetOutput::Json | GetOutput::Yaml => {
            let rows = &listing.workloads;
            let body = match (listed.single, rows.as_slice()) {
                (true, [one]) => serde_json::to_value(one).unwrap_or_default(),
                _ => json!({"items": rows, "count": rows.len()}),
            };
            if format == GetOutput::Json {
                output::json(&body)?
            } else {
                output::yaml(&body)?
            }
        }
        GetOutput::Human | GetOutput::Wide => {
            if listing.workloads.is_empty() {
                warnings.insert(0, empty_warning(listing.namespace.as_deref()));
                String::new()
            } else {
                let now = now();
                let mut table = vec![header(types, wide)];
                table.extend(
                    listing
                        .workloads
                        .iter()
                        .map(|r| row_cells(r, types, wide, now)),
                );
                columns(&table, 3)
            }
        }
    };
    if !watch {
        return Ok((text, warnings));
    }
    output::print(&text)?;
    print_warnings(&warnings);
    Watch::new(&listed, scope, types, wide).run(format)?;
    Ok((String::new(), Vec::new()))
}

fn empty_warning(namespace: Option<&str>) -> Warning {
    Warning {
        reason: "empty".into(),
        message: match namespace {
            Some(ns) => format!("No workloads found in namespace {ns}."),
            None => "No workloads found in any namespace.".into(),
        },
    }
}

type Events =
    Pin<Box<dyn Stream<Item = (usize, Result<kube::core::WatchEvent<Value>, kube::Error>)>>>;

/// `get --watch`: after the listing, a row whenever a workload's matched
/// statuses or GPUs change (or it appears, or is deleted), until
/// interrupted. Each type's watch starts at the resourceVersion its list
/// was read at, and starts again from a new list when the server ends it.
struct Watch<'a> {
    listed: &'a Listed,
    selector: Option<&'a str>,
    types: bool,
    wide: bool,
    /// Per workload (UID): the statuses and GPUs last shown.
    last: HashMap<String, (Vec<workload_lens::WorkloadStatus>, u64)>,
    widths: Vec<usize>,
    printed_header: bool,
    /// Per type watched: the resource and the resourceVersion to go on from.
    versions: Vec<(ApiResource, String)>,
}

impl<'a> Watch<'a> {
    fn new(listed: &'a Listed, scope: &'a Scope, types: bool, wide: bool) -> Self {
        let listing = &listed.listing;
        let last = listing
            .workloads
            .iter()
            .filter_map(|r| Some((r.uid.clone()?, (r.statuses.clone(), r.gpus))))
            .collect();
        let now = now();
        let mut widths: Vec<usize> = header(types, wide)
            .iter()
            .map(|h| h.chars().count())
            .collect();
        for r in &listing.workloads {
            for (i, cell) in row_cells(r, types, wide, now).iter().enumerate() {
                widths[i] = widths[i].max(cell.chars().count());
            }
        }
        Watch {
            listed,
            selector: scope.selector.as_deref(),
            types,
            wide,
            last,
            widths,
            printed_header: !listing.workloads.is_empty(),
            versions: listing
                .types
                .iter()
                .cloned()
                .zip(listing.resource_versions.iter().cloned())
                .collect(),
        }
    }

    fn run(mut self, format: GetOutput) -> Result<(), Failure> {
        let listed: &'a Listed = self.listed;
        loop {
            if !listed.cluster.block_on(self.watch(format))? {
                return Ok(());
            }
            self.relist();
        }
    }

    /// Watch every type and print what changes until the server ends a
    /// watch (true: list again and go on) or stdout is closed (false).
    async fn watch(&mut self, format: GetOutput) -> Result<bool, Failure> {
        let mut all = futures_util::stream::select_all(self.open(format).await?);
        while let Some((i, event)) = all.next().await {
            use kube::core::WatchEvent as E;
            let (object, deleted) = match event {
                Ok(E::Added(o) | E::Modified(o)) => (o, false),
                Ok(E::Deleted(o)) => (o, true),
                Ok(E::Bookmark(b)) => {
                    self.versions[i].1 = b.metadata.resource_version;
                    continue;
                }
                // 410 Gone and the like: list again.
                Ok(E::Error(_)) | Err(_) => {
                    self.versions[i].1.clear();
                    break;
                }
            };
            if let Some(rv) = object
                .pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
            {
                self.versions[i].1 = rv.to_string();
            }
            let Some(line) = self.line(&object, deleted) else {
                continue;
            };
            let mut stdout = std::io::stdout().lock();
            if stdout
                .write_all(line.as_bytes())
                .and_then(|_| stdout.flush())
                .is_err()
            {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One watch stream per type, from its resourceVersion.
    async fn open(&self, format: GetOutput) -> Result<Vec<Events>, Failure> {
        let c = &self.listed.cluster;
        let namespace = self.listed.listing.namespace.as_deref();
        let mut streams: Vec<Events> = Vec::new();
        for (i, (r, rv)) in self.versions.iter().enumerate() {
            let path = workload_lens::watch_request(r, namespace, self.selector, rv);
            let req = http::Request::get(path)
                .body(Vec::new())
                .map_err(|e| Failure::usage(e.to_string()))?;
            let s = c.client().request_events::<Value>(req).await.map_err(|e| {
                let e = Error::new(ErrorCode::Api, format!("watching: {e}"));
                failure(&e, format.format())
            })?;
            streams.push(Box::pin(s.map(move |e| (i, e))));
        }
        Ok(streams)
    }

    /// The text to print for an event: the row of a workload that appeared,
    /// changed (statuses or GPUs) or was deleted; none when nothing shown
    /// changed.
    fn line(&mut self, object: &Value, deleted: bool) -> Option<String> {
        let listing = &self.listed.listing;
        let options = ListOptions {
            top_level_only: self.listed.query.all_types || self.listed.query.type_.is_none(),
            phases: self.listed.query.phases.clone(),
            ..ListOptions::default()
        };
        let rows =
            listing
                .engine
                .list_workloads(std::slice::from_ref(object), &listing.owners, &options);
        let row = rows.into_iter().next()?;
        let key = row
            .uid
            .clone()
            .unwrap_or_else(|| format!("{}/{}", row.kind, row.name));
        let state = (row.statuses.clone(), row.gpus);
        if deleted {
            self.last.remove(&key)?;
        } else if self.last.get(&key) == Some(&state) {
            return None;
        } else {
            self.last.insert(key, state);
        }
        let mut cells = row_cells(&row, self.types, self.wide, now());
        if deleted {
            let at = if self.types { 3 } else { 2 };
            cells[at] = "Deleted".into();
        }
        let mut out = String::new();
        if !self.printed_header {
            out.push_str(&pad(&header(self.types, self.wide), &self.widths));
            self.printed_header = true;
        }
        out.push_str(&pad(&cells, &self.widths));
        Some(out)
    }

    /// The server ended the watches (timeout, or a version too old): read
    /// the lists again, through [`Cluster::run`] like every operation, to
    /// watch on from now. A failed list keeps the versions as they are.
    fn relist(&mut self) {
        let c = &self.listed.cluster;
        let query = ListQuery {
            served: Some(self.listed.listing.served.clone()),
            ..self.listed.query.clone()
        };
        let session = self
            .listed
            .listing
            .engine
            .cluster_session(ClusterOp::List(query))
            .with_server(&c.server);
        if let Ok(ClusterOutcome::Listing(l)) = c.run(session, None) {
            for ((_, rv), new) in self.versions.iter_mut().zip(l.resource_versions) {
                *rv = new;
            }
        }
    }
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
    let listed = list(&scope, limits, format)?;
    let warnings = warnings_of(&listed.listing);
    let usage = workload_lens::usage(&listed.listing.workloads);
    let text = match format {
        Format::Json => output::json(&usage)?,
        Format::Yaml => output::yaml(&usage)?,
        Format::Human => format!(
            "{}\n{}",
            usage_table("NAMESPACE", &usage.by_namespace, &usage.total),
            usage_table("TYPE", &usage.by_type, &usage.total)
        ),
    };
    Ok((text, warnings))
}

fn usage_table(
    first: &str,
    rows: &[workload_lens::UsageRow],
    total: &workload_lens::UsageRow,
) -> String {
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
    t.push(vec![
        "TOTAL".into(),
        total.workloads.to_string(),
        total.pods.to_string(),
        total.gpus.to_string(),
    ]);
    columns(&t, 3)
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
    let (ty, name) = split_target(scope)?;
    let (Some(ty), Some(name)) = (ty, name) else {
        return Err(Failure::usage(format!(
            "describe needs TYPE/NAME (e.g. jobset/llama) or a file, not '{target}'"
        )));
    };
    let cluster = Cluster::connect(&scope.connect, format)?;
    let engine = super::engine(&scope.definitions, limits)?;
    let query = DescribeQuery {
        type_: ty,
        name,
        namespace: Some(
            scope
                .namespace
                .clone()
                .unwrap_or_else(|| cluster.namespace.clone()),
        ),
        chunk_size: workload_lens::DEFAULT_CHUNK_SIZE,
        served: None,
    };
    let session = engine
        .cluster_session(ClusterOp::Describe(query))
        .with_server(&cluster.server);
    let d = match cluster.run(session, None) {
        Ok(ClusterOutcome::Description(d)) => d,
        Ok(_) => return Err(Failure::new(EXIT_RESOLVE, "internal: not a description")),
        Err(e) => return Err(failure(&e, format)),
    };
    // The warnings about the workload and its pods go after the output,
    // first, with the cluster's.
    let (out, about) =
        output::deferring(|| crate::describe::live_described(&d, view, now(), format));
    let mut all: Vec<Warning> = about
        .into_iter()
        .map(|message| Warning {
            reason: "resolve".into(),
            message,
        })
        .collect();
    all.extend(d.warnings.iter().cloned().map(Warning::from));
    match out {
        Ok(out) => Ok((out, all)),
        Err(f) => {
            print_warnings(&all);
            Err(f)
        }
    }
}
