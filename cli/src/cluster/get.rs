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
use crate::output::{self, Format, GetOutput, SortKey, columns};

impl GetOutput {
    fn format(self) -> Format {
        match self {
            GetOutput::Human | GetOutput::Wide | GetOutput::Name => Format::Human,
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
    /// The arguments after it: `NAME`s (`get jobset llama bert`) or more
    /// `TYPE/NAME`s (`get jobset/llama jobset/bert`).
    pub names: Vec<String>,
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
    /// `--no-cluster-definitions`: the cluster's definitions are not read.
    pub skip_definitions: bool,
    /// `--snapshot FILE`: read the workloads from a snapshot, not a
    /// cluster.
    pub snapshot: Option<String>,
}

/// How `get` prints.
#[derive(Debug, Clone, Copy)]
pub struct View {
    pub format: GetOutput,
    pub sort_by: Option<SortKey>,
    pub no_headers: bool,
    pub watch: bool,
    /// When ages count to (seconds since the epoch; none: now): a
    /// snapshot's capture time.
    pub at: Option<i64>,
}

/// What `get` printed: the text for stdout, one `Error from server
/// (NotFound): ...` line per name not found (of several), and the warnings.
pub struct Got {
    pub text: String,
    pub not_found: Vec<String>,
    pub warnings: Vec<Warning>,
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

/// One thing to read: a type (none: every covered type) and maybe a name.
type Target = (Option<String>, Option<String>);

/// The targets of the arguments: nothing (every covered type), `TYPE`,
/// `TYPE NAME...` or `TYPE/NAME...`, as kubectl reads them.
fn split_targets(scope: &Scope) -> Result<Vec<Target>, Failure> {
    let Some(t) = &scope.target else {
        return Ok(vec![(None, None)]);
    };
    let pair = |arg: &str| -> Result<Target, Failure> {
        match arg.split_once('/') {
            Some((ty, name)) if !ty.is_empty() && !name.is_empty() && !name.contains('/') => {
                Ok((Some(ty.to_string()), Some(name.to_string())))
            }
            _ => Err(Failure::usage(format!("'{arg}': expected TYPE/NAME"))),
        }
    };
    if t.contains('/') {
        // TYPE/NAME TYPE/NAME...: every argument names its type.
        return std::iter::once(t)
            .chain(&scope.names)
            .map(|a| {
                pair(a).map_err(|f| {
                    if a.contains('/') || a == t {
                        f
                    } else {
                        Failure::usage(format!(
                            "'{a}': after '{t}', give every object as TYPE/NAME \
                             (or the type once: TYPE NAME NAME...)"
                        ))
                    }
                })
            })
            .collect();
    }
    if t.is_empty() {
        return Err(Failure::usage(
            "expected TYPE, TYPE NAME... or TYPE/NAME...",
        ));
    }
    if scope.names.is_empty() {
        return Ok(vec![(Some(t.clone()), None)]);
    }
    scope
        .names
        .iter()
        .map(|n| {
            if n.is_empty() || n.contains('/') {
                Err(Failure::usage(format!(
                    "'{n}': after the type '{t}', give names only (or every object as \
                     TYPE/NAME)"
                )))
            } else {
                Ok((Some(t.clone()), Some(n.clone())))
            }
        })
        .collect()
}

/// The one target of `describe` and of a single listing.
fn split_target(scope: &Scope) -> Result<Target, Failure> {
    let mut all = split_targets(scope)?;
    if all.len() > 1 {
        return Err(Failure::usage(format!(
            "'{}' names one object; give the name once",
            scope.target.as_deref().unwrap_or_default()
        )));
    }
    Ok(all.pop().unwrap_or((None, None)))
}

/// The query of a listing: one type (`TYPE`, `TYPE/NAME`) or every
/// covered type (top-level workloads only), in the namespace asked for, the
/// context's, or all.
fn query(scope: &Scope, cluster: &Cluster) -> Result<ListQuery, Failure> {
    query_of(scope, cluster, split_target(scope)?)
}

fn query_of(scope: &Scope, cluster: &Cluster, target: Target) -> Result<ListQuery, Failure> {
    let (ty, name) = target;
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
        pods: true,
        served: None,
        skip_definitions: scope.skip_definitions,
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

/// The group of a row's apiVersion (`""` for the core group).
fn group_of(r: &WorkloadSummary) -> &str {
    r.api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

fn type_cell(r: &WorkloadSummary) -> String {
    match group_of(r) {
        "" => r.kind.clone(),
        group => format!("{}.{group}", r.kind),
    }
}

/// A row as kubectl's `-o name` prints it: `jobset.jobset.x-k8s.io/llama`,
/// `pod/p` for the core group.
fn resource_name(r: &WorkloadSummary) -> String {
    let kind = r.kind.to_lowercase();
    let name = output::escape(&r.name);
    match group_of(r) {
        "" => format!("{kind}/{name}"),
        group => format!("{kind}.{}/{name}", output::escape(group)),
    }
}

/// A column of the `get` table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Column {
    Namespace,
    Name,
    Type,
    Phase,
    Ready,
    Pods,
    Gpus,
    Age,
    Held,
    Definition,
    Origin,
    Reason,
}

/// Which columns a `get` table has, in kubectl's order: NAMESPACE first
/// when every namespace is listed (`-A`; in one namespace it is left out,
/// as kubectl does), NAME, TYPE when several types are listed, then the
/// rest; `-o wide` adds HELD-GPUS, DEFINITION, ORIGIN and REASON. A new column is a
/// [`Column`], its place in [`Columns::list`], its title in
/// [`Columns::header`] and its cell in [`Columns::row_cells`].
#[derive(Debug, Clone, Copy)]
struct Columns {
    namespace: bool,
    types: bool,
    wide: bool,
}

impl Columns {
    fn list(self) -> Vec<Column> {
        let mut c = Vec::new();
        if self.namespace {
            c.push(Column::Namespace);
        }
        c.push(Column::Name);
        if self.types {
            c.push(Column::Type);
        }
        c.extend([
            Column::Phase,
            Column::Ready,
            Column::Pods,
            Column::Gpus,
            Column::Age,
        ]);
        if self.wide {
            c.extend([
                Column::Held,
                Column::Definition,
                Column::Origin,
                Column::Reason,
            ]);
        }
        c
    }

    fn header(self) -> Vec<String> {
        self.list()
            .into_iter()
            .map(|c| {
                match c {
                    Column::Namespace => "NAMESPACE",
                    Column::Name => "NAME",
                    Column::Type => "TYPE",
                    Column::Phase => "PHASE",
                    Column::Ready => "READY",
                    Column::Pods => "PODS",
                    Column::Gpus => "GPUS",
                    Column::Age => "AGE",
                    Column::Held => "HELD-GPUS",
                    Column::Definition => "DEFINITION",
                    Column::Origin => "ORIGIN",
                    Column::Reason => "REASON",
                }
                .to_string()
            })
            .collect()
    }

    /// The cells of a row (escaped); a deleted row (`--watch`) says
    /// `Deleted` as its PHASE.
    fn row_cells(self, r: &WorkloadSummary, now: i64, deleted: bool) -> Vec<String> {
        let esc = |s: &str| output::escape(s).into_owned();
        self.list()
            .into_iter()
            .map(|c| match c {
                Column::Namespace => esc(r.namespace.as_deref().unwrap_or("<none>")),
                Column::Name => esc(&r.name),
                Column::Type => esc(&type_cell(r)),
                Column::Phase if deleted => "Deleted".into(),
                Column::Phase => phase_cell(r),
                // Ready pods of the desired ones, as kubectl's READY; `-`
                // when the pods were not read (a row of --watch).
                Column::Ready => r
                    .live
                    .map_or_else(|| "-".into(), |l| format!("{}/{}", l.ready, r.pods)),
                Column::Pods => r.pods.to_string(),
                Column::Gpus => r.gpus.to_string(),
                Column::Age => age(r.created.as_deref(), now),
                Column::Held => r.live.map_or_else(|| "-".into(), |l| l.gpus.to_string()),
                Column::Definition => esc(r.definition.as_deref().unwrap_or("<none>")),
                Column::Origin => r.origin.map_or("<none>", |o| o.as_str()).to_string(),
                // The first finding of the diagnosis (`why`), when the
                // workload is not simply running or completed.
                Column::Reason => esc(r.reason.as_deref().unwrap_or("-")),
            })
            .collect()
    }
}

/// Sort the rows for display (`--sort-by`), ascending and stable (ties
/// keep the engine's order); rows without the field (no namespace, no
/// creation time) go last.
fn sort_rows(rows: &mut [WorkloadSummary], key: SortKey) {
    use std::cmp::Ordering;
    fn missing_last<T: Ord>(a: Option<T>, b: Option<T>) -> Ordering {
        match (a, b) {
            (Some(a), Some(b)) => a.cmp(&b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
    }
    let created = |r: &WorkloadSummary| r.created.as_deref().and_then(super::epoch_seconds);
    rows.sort_by(|a, b| match key {
        SortKey::Name => a.name.cmp(&b.name),
        SortKey::Namespace => missing_last(a.namespace.as_ref(), b.namespace.as_ref()),
        SortKey::Kind => a.kind.cmp(&b.kind),
        SortKey::Type => type_cell(a).cmp(&type_cell(b)),
        SortKey::Phase => phase_cell(a).cmp(&phase_cell(b)),
        SortKey::Pods => a.pods.cmp(&b.pods),
        SortKey::Gpus => a.gpus.cmp(&b.gpus),
        SortKey::Created => missing_last(created(a), created(b)),
        SortKey::Age => missing_last(
            created(a).map(std::cmp::Reverse),
            created(b).map(std::cmp::Reverse),
        ),
    });
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

/// `workload-lens get`: the text for stdout, the names not found (of
/// several) and the warnings, printed after it. With `--watch`, prints the
/// list and then the changes itself, until interrupted.
pub fn get(scope: &Scope, view: &View, limits: &Limits) -> Result<Got, Failure> {
    let format = view.format.format();
    if let Some(path) = &scope.snapshot {
        return get_snapshot(scope, view, path, limits);
    }
    let targets = split_targets(scope)?;
    if targets.len() > 1 {
        if view.watch {
            return Err(Failure::usage(
                "--watch watches one type or one object; give one NAME",
            ));
        }
        return get_several(scope, view, &targets, limits);
    }
    let listed = list(scope, limits, format)?;
    let (rows, cols, warnings) = rows_of(&listed.listing, view);
    if !view.watch {
        return Ok(Got {
            text: text_once(&rows, cols, listed.single, view)?,
            not_found: Vec::new(),
            warnings,
        });
    }
    // --watch: the list as the changes will be printed (JSON and YAML: one
    // ADDED event per workload), its warnings once, then the changes.
    let text = match view.format {
        GetOutput::Json | GetOutput::Yaml => rows
            .iter()
            .map(|r| event("ADDED", r, view.format))
            .collect::<Result<String, Failure>>()?,
        _ => text_of(&rows, cols, view),
    };
    output::print(&text)?;
    print_warnings(&warnings);
    Watch::new(&listed, scope, cols, view, &rows).run()?;
    Ok(Got {
        text: String::new(),
        not_found: Vec::new(),
        warnings: Vec::new(),
    })
}

/// The rows of a listing as `view` sorts them, the columns to print, and
/// the warnings to print after them.
fn rows_of(listing: &Listing, view: &View) -> (Vec<WorkloadSummary>, Columns, Vec<Warning>) {
    let mut warnings = warnings_of(listing);
    let mut rows = listing.workloads.clone();
    if let Some(key) = view.sort_by {
        sort_rows(&mut rows, key);
    }
    let cols = Columns {
        namespace: listing.namespace.is_none(),
        types: listing.types.len() > 1,
        wide: view.format == GetOutput::Wide,
    };
    if rows.is_empty() && !matches!(view.format, GetOutput::Json | GetOutput::Yaml) {
        warnings.insert(0, empty_warning(listing.namespace.as_deref()));
    }
    (rows, cols, warnings)
}

/// The rows printed once (not `--watch`).
fn text_once(
    rows: &[WorkloadSummary],
    cols: Columns,
    single: bool,
    view: &View,
) -> Result<String, Failure> {
    Ok(match view.format {
        GetOutput::Json | GetOutput::Yaml => {
            let body = match (single, rows) {
                (true, [one]) => serde_json::to_value(one).unwrap_or_default(),
                _ => json!({"items": rows, "count": rows.len()}),
            };
            machine(&body, view.format)?
        }
        _ => text_of(rows, cols, view),
    })
}

/// `get --snapshot FILE`: the listing the snapshot's cluster gave when it
/// was taken, with `-n` and `--phase` kept.
fn get_snapshot(scope: &Scope, view: &View, path: &str, limits: &Limits) -> Result<Got, Failure> {
    if scope.target.is_some() {
        return Err(Failure::usage(
            "--snapshot lists every covered type (top-level workloads); give no TYPE, and \
             narrow it with -n or --phase",
        ));
    }
    if view.watch {
        return Err(Failure::usage("--watch needs a cluster, not --snapshot"));
    }
    let (listing, at) = snapshot_listing(scope, path, limits, view.format.format())?;
    let (rows, cols, warnings) = rows_of(&listing, view);
    // Ages as the live command gave them: at the capture.
    let view = View { at, ..*view };
    Ok(Got {
        text: text_once(&rows, cols, false, &view)?,
        not_found: Vec::new(),
        warnings,
    })
}

/// A snapshot's listing, with the scope's namespace (`-n`; `-A` or none:
/// all the snapshot holds) and statuses, and its capture time.
fn snapshot_listing(
    scope: &Scope,
    path: &str,
    limits: &Limits,
    format: Format,
) -> Result<(Listing, Option<i64>), Failure> {
    let engine = super::engine(&scope.definitions, limits)?;
    let query = workload_lens::SnapshotQuery {
        namespace: if scope.all_namespaces {
            None
        } else {
            scope.namespace.clone()
        },
        phases: scope.phases.clone(),
    };
    super::snapshot::read_listing(path, &engine, &query, format)
}

/// JSON (pretty) or YAML.
fn machine(body: &Value, format: GetOutput) -> Result<String, Failure> {
    if format == GetOutput::Json {
        output::json(body)
    } else {
        output::yaml(body)
    }
}

/// One event of `get --watch -o json|yaml`: `{"type", "object"}` (the
/// row), as kubectl's `--output-watch-events`; JSON on one line, YAML as
/// one document.
fn event(kind: &str, row: &WorkloadSummary, format: GetOutput) -> Result<String, Failure> {
    let e = json!({"type": kind, "object": row});
    if format == GetOutput::Json {
        Ok(format!("{e}\n"))
    } else {
        Ok(format!("---\n{}", output::yaml(&e)?))
    }
}

/// The rows as a table (with its header unless `--no-headers`) or as
/// names (`-o name`).
fn text_of(rows: &[WorkloadSummary], cols: Columns, view: &View) -> String {
    if view.format == GetOutput::Name {
        return rows.iter().map(|r| resource_name(r) + "\n").collect();
    }
    if rows.is_empty() {
        return String::new();
    }
    let now = view.at.unwrap_or_else(now);
    let mut table = Vec::new();
    if !view.no_headers {
        table.push(cols.header());
    }
    table.extend(rows.iter().map(|r| cols.row_cells(r, now, false)));
    columns(&table, 3)
}

/// `get TYPE NAME NAME...` or `get TYPE/NAME TYPE/NAME...`: each object
/// read (discovery once); one that does not exist is an `Error from
/// server (NotFound)` line and the others are printed. Any other failure
/// ends the command.
fn get_several(
    scope: &Scope,
    view: &View,
    targets: &[Target],
    limits: &Limits,
) -> Result<Got, Failure> {
    let format = view.format.format();
    let cluster = Cluster::connect(&scope.connect, format)?;
    let engine = super::engine(&scope.definitions, limits)?;
    let mut served = None;
    let mut rows = Vec::new();
    let mut types: Vec<(String, String)> = Vec::new();
    let mut warnings = Vec::new();
    let mut not_found = Vec::new();
    for t in targets {
        let query = ListQuery {
            served: served.clone(),
            ..query_of(scope, &cluster, t.clone())?
        };
        let session = engine
            .cluster_session(ClusterOp::List(query))
            .with_server(&cluster.server);
        let listing = match cluster.run(session, None) {
            Ok(ClusterOutcome::Listing(l)) => l,
            Ok(_) => return Err(Failure::new(EXIT_RESOLVE, "internal: not a listing")),
            Err(e) if e.code() == ErrorCode::NotFound => {
                not_found.push(format!(
                    "Error from server (NotFound): {}",
                    crate::failure::error_message(&e)
                ));
                continue;
            }
            Err(e) => return Err(failure(&e, format)),
        };
        warnings.extend(warnings_of(&listing));
        for r in &listing.types {
            let key = (r.group.clone(), r.kind.clone());
            if !types.contains(&key) {
                types.push(key);
            }
        }
        rows.extend(listing.workloads.iter().cloned());
        served = Some(listing.served.clone());
    }
    if let Some(key) = view.sort_by {
        sort_rows(&mut rows, key);
    }
    let cols = Columns {
        namespace: scope.all_namespaces,
        types: types.len() > 1,
        wide: view.format == GetOutput::Wide,
    };
    let text = match view.format {
        GetOutput::Json | GetOutput::Yaml => {
            machine(&json!({"items": rows, "count": rows.len()}), view.format)?
        }
        _ => text_of(&rows, cols, view),
    };
    Ok(Got {
        text,
        not_found,
        warnings,
    })
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
/// The warnings of those lists are not printed again.
struct Watch<'a> {
    listed: &'a Listed,
    selector: Option<&'a str>,
    cols: Columns,
    format: GetOutput,
    /// Per workload (UID): the statuses and GPUs last shown.
    last: HashMap<String, (Vec<workload_lens::WorkloadStatus>, u64)>,
    table: Streamed,
    /// Per type watched: the resource and the resourceVersion to go on from.
    versions: Vec<(ApiResource, String)>,
}

impl<'a> Watch<'a> {
    fn new(
        listed: &'a Listed,
        scope: &'a Scope,
        cols: Columns,
        view: &View,
        rows: &[WorkloadSummary],
    ) -> Self {
        let listing = &listed.listing;
        let last = rows
            .iter()
            .filter_map(|r| Some((r.uid.clone()?, (r.statuses.clone(), r.gpus))))
            .collect();
        let now = now();
        let cells: Vec<Vec<String>> = rows.iter().map(|r| cols.row_cells(r, now, false)).collect();
        Watch {
            listed,
            selector: scope.selector.as_deref(),
            cols,
            format: view.format,
            last,
            table: Streamed::new(cols.header(), &cells, view.no_headers),
            versions: listing
                .types
                .iter()
                .cloned()
                .zip(listing.resource_versions.iter().cloned())
                .collect(),
        }
    }

    fn run(mut self) -> Result<(), Failure> {
        let listed: &'a Listed = self.listed;
        loop {
            if !listed.cluster.block_on(self.watch())? {
                return Ok(());
            }
            self.relist();
        }
    }

    /// Watch every type and print what changes until the server ends a
    /// watch (true: list again and go on) or stdout is closed (false).
    async fn watch(&mut self) -> Result<bool, Failure> {
        let mut all = futures_util::stream::select_all(self.open().await?);
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
            let Some(line) = self.line(&object, deleted)? else {
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
    async fn open(&self) -> Result<Vec<Events>, Failure> {
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
                failure(&e, self.format.format())
            })?;
            streams.push(Box::pin(s.map(move |e| (i, e))));
        }
        Ok(streams)
    }

    /// The text to print for an event: the row (or name, or `{type,
    /// object}` event) of a workload that appeared, changed (statuses or
    /// GPUs) or was deleted; none when nothing shown changed.
    fn line(&mut self, object: &Value, deleted: bool) -> Result<Option<String>, Failure> {
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
        let Some(row) = rows.into_iter().next() else {
            return Ok(None);
        };
        let key = row
            .uid
            .clone()
            .unwrap_or_else(|| format!("{}/{}", row.kind, row.name));
        let state = (row.statuses.clone(), row.gpus);
        let kind = if deleted {
            if self.last.remove(&key).is_none() {
                return Ok(None);
            }
            "DELETED"
        } else {
            match self.last.insert(key, state.clone()) {
                Some(before) if before == state => return Ok(None),
                Some(_) => "MODIFIED",
                None => "ADDED",
            }
        };
        Ok(Some(match self.format {
            GetOutput::Json | GetOutput::Yaml => event(kind, &row, self.format)?,
            GetOutput::Name => resource_name(&row) + "\n",
            GetOutput::Human | GetOutput::Wide => {
                self.table.line(self.cols.row_cells(&row, now(), deleted))
            }
        }))
    }

    /// The server ended the watches (timeout, or a version too old): read
    /// the lists again, through [`Cluster::run`] like every operation, to
    /// watch on from now. A failed list keeps the versions as they are;
    /// the warnings of the list were printed with the first one.
    fn relist(&mut self) {
        let c = &self.listed.cluster;
        let query = ListQuery {
            served: Some(self.listed.listing.served.clone()),
            // Only the lists' versions are used.
            pods: false,
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

/// The rows `get --watch` prints one at a time, aligned with the table of
/// the list (the same widths and gap as [`columns`]). When the list was
/// empty, the header is printed with the first row, and the widths are
/// those of the header and that row; a later, wider cell pushes the rest
/// of its own line only.
struct Streamed {
    header: Vec<String>,
    widths: Vec<usize>,
    /// The header is printed (or not wanted: `--no-headers`).
    headed: bool,
}

impl Streamed {
    /// After the table of `rows` (cells, escaped) was printed.
    fn new(header: Vec<String>, rows: &[Vec<String>], no_headers: bool) -> Self {
        let mut s = Streamed {
            widths: vec![0; header.len()],
            header,
            headed: no_headers || !rows.is_empty(),
        };
        if !no_headers && !rows.is_empty() {
            s.widen(&s.header.clone());
        }
        for r in rows {
            s.widen(r);
        }
        s
    }

    fn widen(&mut self, cells: &[String]) {
        for (w, c) in self.widths.iter_mut().zip(cells) {
            *w = (*w).max(c.chars().count());
        }
    }

    /// The line of a row, after the header if none was printed yet.
    fn line(&mut self, cells: Vec<String>) -> String {
        let mut out = String::new();
        if !self.headed {
            self.widen(&self.header.clone());
            self.widen(&cells);
            out.push_str(&pad(&self.header, &self.widths));
            self.headed = true;
        }
        out.push_str(&pad(&cells, &self.widths));
        out
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
    no_headers: bool,
    limits: &Limits,
) -> Result<(String, Vec<Warning>), Failure> {
    let scope = Scope {
        all_types: scope.target.is_none(),
        ..scope.clone()
    };
    let listing = match &scope.snapshot {
        Some(path) => {
            if scope.target.is_some() {
                return Err(Failure::usage(
                    "--snapshot adds up every covered type; give no TYPE",
                ));
            }
            snapshot_listing(&scope, path, limits, format)?.0
        }
        None => *list(&scope, limits, format)?.listing,
    };
    let warnings = warnings_of(&listing);
    let usage = workload_lens::usage(&listing.workloads);
    let text = match format {
        Format::Json => output::json(&usage)?,
        Format::Yaml => output::yaml(&usage)?,
        Format::Human => format!(
            "{}\n{}",
            usage_table(
                "NAMESPACE",
                &usage.by_namespace,
                &usage.total,
                usage.pods_read,
                no_headers
            ),
            usage_table(
                "TYPE",
                &usage.by_type,
                &usage.total,
                usage.pods_read,
                no_headers
            )
        ),
    };
    Ok((text, warnings))
}

fn usage_table(
    first: &str,
    rows: &[workload_lens::UsageRow],
    total: &workload_lens::UsageRow,
    pods_read: bool,
    no_headers: bool,
) -> String {
    let mut head = vec![first, "WORKLOADS", "PODS", "GPUS"];
    if pods_read {
        head.extend(["LIVE-PODS", "HELD-GPUS", "PENDING-GPUS"]);
    }
    head.extend(["INACTIVE", "INACTIVE-GPUS"]);
    let cells = |key: String, r: &workload_lens::UsageRow| {
        let mut row = vec![
            key,
            r.workloads.to_string(),
            r.pods.to_string(),
            r.gpus.to_string(),
        ];
        if pods_read {
            row.extend([
                r.held_pods.to_string(),
                r.held_gpus.to_string(),
                r.pending_gpus.to_string(),
            ]);
        }
        row.extend([r.inactive.to_string(), r.inactive_gpus.to_string()]);
        row
    };
    let mut t = Vec::new();
    if !no_headers {
        t.push(head.into_iter().map(String::from).collect::<Vec<_>>());
    }
    for r in rows {
        let key = if r.key.is_empty() {
            "<cluster>"
        } else {
            &r.key
        };
        t.push(cells(output::escape(key).into_owned(), r));
    }
    t.push(cells("TOTAL".into(), total));
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
    let (d, at) = read_one(scope, "describe", format, limits)?;
    // The warnings about the workload and its pods go after the output,
    // first, with the cluster's.
    let (out, about) = output::deferring(|| crate::describe::live_described(&d, view, at, format));
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

/// One workload read for `command` (`describe`, `why`) through the
/// engine's description: the object, its namespace's pods and their
/// owners, the events of those objects, its Kueue Workloads and
/// gang-scheduler groups; from the cluster, or from a snapshot
/// (`--snapshot FILE`). With the time its ages count to: now, or the
/// snapshot's capture.
fn read_one(
    scope: &Scope,
    command: &str,
    format: Format,
    limits: &Limits,
) -> Result<(Box<workload_lens::Description>, i64), Failure> {
    let target = scope.target.as_deref().unwrap_or_default();
    let (ty, name) = split_target(scope)?;
    let (Some(ty), Some(name)) = (ty, name) else {
        return Err(Failure::usage(format!(
            "{command} needs TYPE/NAME (e.g. jobset/llama) or a file, not '{target}'"
        )));
    };
    if let Some(path) = &scope.snapshot {
        let engine = super::engine(&scope.definitions, limits)?;
        let query = DescribeQuery {
            type_: ty,
            name,
            namespace: scope.namespace.clone(),
            chunk_size: workload_lens::DEFAULT_CHUNK_SIZE,
            served: None,
            skip_definitions: scope.skip_definitions,
        };
        let (d, at) = super::snapshot::read_description(path, &engine, query, format)?;
        return Ok((Box::new(d), at.unwrap_or_else(now)));
    }
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
        skip_definitions: scope.skip_definitions,
    };
    let session = engine
        .cluster_session(ClusterOp::Describe(query))
        .with_server(&cluster.server);
    match cluster.run(session, None) {
        Ok(ClusterOutcome::Description(d)) => Ok((d, now())),
        Ok(_) => Err(Failure::new(EXIT_RESOLVE, "internal: not a description")),
        Err(e) => Err(failure(&e, format)),
    }
}

/// `why TYPE/NAME`: the workload read as `describe` reads it (with its
/// events, Kueue Workloads and gang-scheduler groups), diagnosed by the
/// engine.
pub fn why(
    scope: &Scope,
    format: Format,
    limits: &Limits,
) -> Result<(String, Vec<Warning>), Failure> {
    let (d, at) = read_one(scope, "why", format, limits)?;
    let warnings: Vec<Warning> = d.warnings.iter().cloned().map(Warning::from).collect();
    let diagnosis = match d.diagnose() {
        Ok(x) => x,
        Err(e) => {
            print_warnings(&warnings);
            return Err(failure(&e, format));
        }
    };
    let text = crate::why::print(&diagnosis, crate::why::Times::Ago(at), format)?;
    Ok((text, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of the engine for pods (`name`, `namespace`, GPUs, created).
    fn rows(pods: &[(&str, Option<&str>, u32, &str)]) -> Vec<WorkloadSummary> {
        let objects: Vec<Value> = pods
            .iter()
            .map(|(name, ns, gpus, created)| {
                let mut meta = json!({"name": name, "uid": name, "creationTimestamp": created});
                if let Some(ns) = ns {
                    meta["namespace"] = json!(ns);
                }
                json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
                    "spec": {"containers": [{"name": "c", "image": "i",
                        "resources": {"limits": {"nvidia.com/gpu": gpus.to_string()}}}]}})
            })
            .collect();
        let engine = Engine::new().unwrap();
        let rows = engine.list_workloads(&objects, &[], &ListOptions::default());
        assert_eq!(rows.len(), pods.len());
        rows
    }

    fn names(rows: &[WorkloadSummary]) -> Vec<&str> {
        rows.iter().map(|r| r.name.as_str()).collect()
    }

    #[test]
    fn namespace_first_and_only_for_every_namespace() {
        let c = |namespace, types, wide| Columns {
            namespace,
            types,
            wide,
        };
        assert_eq!(
            c(false, false, false).header(),
            ["NAME", "PHASE", "READY", "PODS", "GPUS", "AGE"]
        );
        assert_eq!(
            c(true, true, true).header(),
            [
                "NAMESPACE",
                "NAME",
                "TYPE",
                "PHASE",
                "READY",
                "PODS",
                "GPUS",
                "AGE",
                "HELD-GPUS",
                "DEFINITION",
                "ORIGIN",
                "REASON"
            ]
        );
        let r = &rows(&[("p", Some("ml"), 2, "2026-01-01T00:00:00Z")])[0];
        let now = super::super::epoch_seconds("2026-01-01T00:10:00Z").unwrap();
        let cells = c(true, true, false).row_cells(r, now, false);
        assert_eq!(cells[..3], ["ml", "p", "Pod"]);
        // READY is `-` without the pods (a row of --watch).
        assert_eq!(cells[4..], ["-", "1", "2", "10m"]);
        let deleted = c(true, false, false).row_cells(r, now, true);
        assert_eq!(deleted[2], "Deleted");
        assert_eq!(resource_name(r), "pod/p");
    }

    #[test]
    fn sorting_for_display_is_stable_and_puts_missing_fields_last() {
        let mut r = rows(&[
            ("b", Some("y"), 1, "2026-01-01T00:00:02Z"),
            ("a", None, 3, "2026-01-01T00:00:03Z"),
            ("c", Some("x"), 1, "2026-01-01T00:00:01Z"),
        ]);
        sort_rows(&mut r, SortKey::Name);
        assert_eq!(names(&r), ["a", "b", "c"]);
        sort_rows(&mut r, SortKey::Namespace);
        assert_eq!(names(&r), ["c", "b", "a"]);
        sort_rows(&mut r, SortKey::Created);
        assert_eq!(names(&r), ["c", "b", "a"]);
        sort_rows(&mut r, SortKey::Age);
        assert_eq!(names(&r), ["a", "b", "c"]);
        // Ties keep the order they had.
        sort_rows(&mut r, SortKey::Gpus);
        assert_eq!(names(&r), ["b", "c", "a"]);
    }

    #[test]
    fn a_watch_from_an_empty_list_aligns_its_rows_with_the_header() {
        let header: Vec<String> = ["NAME", "PHASE", "PODS"].map(String::from).to_vec();
        let row = |a: &str, b: &str, c: &str| vec![a.to_string(), b.to_string(), c.to_string()];
        let mut s = Streamed::new(header.clone(), &[], false);
        let first = s.line(row("a-long-workload-name", "Initializing", "2"));
        assert_eq!(
            first,
            "NAME                   PHASE          PODS\n\
             a-long-workload-name   Initializing   2\n"
        );
        // Later rows on the same widths.
        assert_eq!(
            s.line(row("b", "Running", "10")),
            "b                      Running        10\n"
        );
        // After a list: its widths (as `columns` printed it), no header.
        let listed = [row("llama", "Running", "5")];
        let mut s = Streamed::new(header.clone(), &listed, false);
        assert_eq!(s.line(row("x", "Failed", "1")), "x       Failed    1\n");
        let mut s = Streamed::new(header, &[], true);
        assert_eq!(s.line(row("x", "Failed", "1")), "x   Failed   1\n");
    }

    #[test]
    fn several_names_as_kubectl_reads_them() {
        let t = |target: &str, names: &[&str]| {
            split_targets(&Scope {
                target: Some(target.to_string()),
                names: names.iter().map(|n| n.to_string()).collect(),
                ..Scope::default()
            })
            .map_err(|f| f.message)
        };
        let pair = |ty: &str, n: &str| (Some(ty.to_string()), Some(n.to_string()));
        assert_eq!(t("jobsets", &[]), Ok(vec![(Some("jobsets".into()), None)]));
        assert_eq!(
            t("jobsets", &["a", "b"]),
            Ok(vec![pair("jobsets", "a"), pair("jobsets", "b")])
        );
        assert_eq!(
            t("jobset/a", &["pytorchjob/b"]),
            Ok(vec![pair("jobset", "a"), pair("pytorchjob", "b")])
        );
        assert!(
            t("jobset/a", &["b"])
                .unwrap_err()
                .contains("every object as TYPE/NAME")
        );
        assert!(t("jobsets", &["x/b"]).unwrap_err().contains("names only"));
        assert!(
            t("jobset/", &[])
                .unwrap_err()
                .contains("expected TYPE/NAME")
        );
    }
}
