//! `workload-lens serve`: a Prometheus exporter kept current by watches.
//!
//! Only IO lives here. The engine's [`LiveState`] holds the objects,
//! attributes the pods and resolves what changed ([`WorkloadMetrics`]);
//! this module watches the API server (kube-rs' `runtime` watchers: a list,
//! then a watch with bookmarks, started again with a fresh list after any
//! failure), feeds the events to the state on a thread of its own (debounced
//! refreshes), and serves `/metrics` (OpenMetrics text through
//! `prometheus-client`), `/healthz` and `/readyz`.
//!
//! Every name and label of the exposition is in `docs/metrics.md`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::mpsc as std_mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use futures_util::StreamExt;
use kube::Api;
use kube::api::DynamicObject;
use kube::runtime::watcher;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, MetricEncoder};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;
use serde_json::Value;
use workload_lens::{
    ApiResource, ClusterOp, ClusterOutcome, DefinitionsQuery, Engine, LiveState, OwnerKind,
    WorkloadMetrics,
};

use super::{Cluster, ConnectOptions, Warning, error_chain, print_warnings};
use crate::failure::{EXIT_RESOLVE, EXIT_USAGE, Failure};
use crate::output::Format;

/// The optional series families (`--families`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub enum Family {
    /// One series set per component instance.
    Components,
    /// One series per pod of a workload (the DCGM join).
    Pods,
    /// One series set per gang-scheduling group.
    Gangs,
}

/// What `serve` was asked for.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub listen: SocketAddr,
    /// Empty: every namespace.
    pub namespaces: Vec<String>,
    pub selector: Option<String>,
    pub families: BTreeSet<Family>,
    pub debounce: Duration,
    pub stale_after: Duration,
    pub max_objects: usize,
    pub cluster_definitions: bool,
}

/// The longest label value written: longer ones are cut (a name is at most
/// 253 bytes in Kubernetes; a component name comes from a definition).
const MAX_LABEL_BYTES: usize = 256;
/// The first wait between a failed watch and its next list (doubled on
/// each failure that did not list in between).
const MIN_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between a failed watch and its next list.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// A watch up this long after its list starts its backoff anew when it
/// fails.
const STEADY: Duration = Duration::from_secs(10);
/// A watch the user may not make is tried again after this long.
const FORBIDDEN_RETRY: Duration = Duration::from_secs(300);
/// The longest a burst of changes delays a refresh.
const MAX_DELAY: Duration = Duration::from_secs(2);
/// Listed objects go to the state's thread this many at a time: one
/// message per object cost more than the list itself.
const LIST_BATCH: usize = 500;
/// How often a refresh held back until every watch has listed looks again
/// (with `--debounce-ms 0` the state's thread would otherwise spin).
const SYNC_POLL: Duration = Duration::from_millis(50);

/// One watch's state, for the exporter's own series and `/readyz`.
#[derive(Debug, Clone, Default)]
struct WatchStatus {
    /// Listed at least once.
    synced: bool,
    /// No failure since its last list.
    up: bool,
    /// The user may not watch this type.
    forbidden: bool,
    /// Since when it is down (failed and not listed again).
    down_since: Option<Instant>,
    /// Unix time of its last list or event.
    last_sync: f64,
    restarts: u64,
    /// Owner kind (not a workload type or pods).
    owner: Option<OwnerKind>,
}

/// What the HTTP side reads.
#[derive(Debug, Default)]
struct Shared {
    families: BTreeSet<Family>,
    watches: BTreeMap<String, WatchStatus>,
    workloads: Arc<Vec<Arc<WorkloadMetrics>>>,
    /// Refreshed at least once after every watch listed.
    refreshed: bool,
    /// Workload series withheld: a watch has been down for `--stale-after`.
    stale: bool,
    resolve_errors: BTreeMap<&'static str, u64>,
    resolves: u64,
    refreshes: u64,
    last_refresh_seconds: f64,
    objects: [usize; 3],
    refused: u64,
    /// Owner kinds asked for whose watch is not registered yet: no refresh
    /// until there are none (a refresh would find their objects missing).
    owner_kinds_pending: usize,
}

type SharedRef = Arc<Mutex<Shared>>;

fn lock(s: &SharedRef) -> std::sync::MutexGuard<'_, Shared> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// A watch event, for the state's thread. A watch's status changes
/// (listed, failed) come this way too, in order with its objects: the
/// status the HTTP side reads is the one of what the state holds.
enum Msg {
    Apply(Arc<str>, Value),
    Delete(Value),
    /// A (re-)list starts: the objects that follow until `Listed` are all
    /// the watch has.
    Listing(Arc<str>),
    /// Objects of a list, [`LIST_BATCH`] at most.
    Listed(Arc<str>, Vec<Value>),
    /// The list is complete: what it did not have is forgotten, and the
    /// watch is up.
    ListDone(Arc<str>),
    /// A watch failed (refused: `forbidden`); it lists again after a wait.
    Down {
        source: Arc<str>,
        forbidden: bool,
    },
    /// Stop.
    Quit,
}

/// `workload-lens serve`: runs until interrupted (SIGINT or SIGTERM).
pub fn serve(
    connect: &ConnectOptions,
    options: ServeOptions,
    engine: Engine,
) -> Result<u8, Failure> {
    let format = Format::Human;
    let cluster = Cluster::connect(connect, format)?;
    // The types the server serves, and the cluster's definitions over the
    // catalog (unless asked not to).
    let op = if options.cluster_definitions {
        ClusterOp::Definitions(DefinitionsQuery::default())
    } else {
        ClusterOp::Discover
    };
    let outcome = cluster
        .run(
            engine.cluster_session(op).with_server(&cluster.server),
            None,
        )
        .map_err(|e| super::failure(&e, format))?;
    let (engine, served, warnings): (Engine, Vec<ApiResource>, Vec<Warning>) = match outcome {
        ClusterOutcome::Definitions(d) => {
            let d = *d;
            (
                d.engine,
                d.served,
                d.warnings.into_iter().map(Warning::from).collect(),
            )
        }
        ClusterOutcome::Discovery(d) => (
            engine,
            d.served,
            d.warnings.into_iter().map(Warning::from).collect(),
        ),
        _ => return Err(Failure::new(EXIT_RESOLVE, "unexpected protocol outcome")),
    };
    print_warnings(&warnings);
    let covered = engine.covered_types(&served);
    if covered.is_empty() {
        return Err(Failure::new(
            EXIT_RESOLVE,
            format!(
                "the server {} serves no type a definition covers",
                cluster.server
            ),
        ));
    }
    // Each watch call ends (the server closes it, and the watcher watches
    // again from where it was, without a list) before the client's read
    // timeout can fire on a quiet watch: else every watch of a type that
    // does not change fails after --request-timeout (30 s) and lists again.
    let watch_secs = watch_call_seconds(connect.timeout.unwrap_or(super::DEFAULT_REQUEST_TIMEOUT));
    let state = LiveState::new(options.max_objects, options.selector.as_deref())
        .map_err(|e| Failure::new(EXIT_USAGE, e.message().to_string()))?;
    let shared: SharedRef = Arc::new(Mutex::new(Shared {
        families: options.families.clone(),
        ..Shared::default()
    }));
    let engine = Arc::new(engine);
    let client = cluster.client().clone();
    let options = Arc::new(options);
    let (tx, rx) = std_mpsc::channel::<Msg>();
    let (want_tx, mut want_rx) = tokio::sync::mpsc::unbounded_channel::<OwnerKind>();

    // The state's thread: events in, debounced refreshes, owner kinds out.
    let state_thread = {
        let (engine, shared, options) = (engine.clone(), shared.clone(), options.clone());
        std::thread::Builder::new()
            .name("workload-lens-state".into())
            .spawn(move || run_state(state, &engine, &shared, &options, &rx, &want_tx))
            .map_err(|e| Failure::new(EXIT_RESOLVE, format!("cannot start a thread: {e}")))?
    };

    let result = cluster.block_on(async {
        let listener = tokio::net::TcpListener::bind(options.listen)
            .await
            .map_err(|e| {
                Failure::new(
                    EXIT_USAGE,
                    format!("cannot listen on {}: {e}", options.listen),
                )
            })?;
        eprintln!(
            "serving /metrics on http://{} for {} ({} types)",
            listener.local_addr().map_or(options.listen, |a| a),
            cluster.server,
            covered.len()
        );
        let namespaces: Vec<Option<String>> = if options.namespaces.is_empty() {
            vec![None]
        } else {
            options.namespaces.iter().cloned().map(Some).collect()
        };
        let pods = ApiResource {
            group: String::new(),
            version: "v1".into(),
            kind: "Pod".into(),
            plural: "pods".into(),
            singular: "pod".into(),
            short_names: Vec::new(),
            namespaced: true,
            preferred: true,
        };
        for r in covered.iter().chain(std::iter::once(&pods)) {
            for ns in &namespaces {
                spawn_watch(&client, r, ns.as_deref(), None, watch_secs, &shared, &tx);
            }
        }
        // Owner kinds, as the state asks for them.
        {
            let (client, shared, tx, served) =
                (client.clone(), shared.clone(), tx.clone(), served.clone());
            let namespaces = namespaces.clone();
            tokio::spawn(async move {
                let mut asked: BTreeSet<OwnerKind> = BTreeSet::new();
                while let Some(kind) = want_rx.recv().await {
                    if asked.insert(kind.clone())
                        && let Some(r) =
                            workload_lens::resource_for(&served, &kind.api_version, &kind.kind)
                    {
                        for ns in &namespaces {
                            spawn_watch(
                                &client,
                                r,
                                ns.as_deref(),
                                Some(kind.clone()),
                                watch_secs,
                                &shared,
                                &tx,
                            );
                        }
                    }
                    // Registered (or not served): the state may refresh once
                    // the new watches have listed.
                    let mut s = lock(&shared);
                    s.owner_kinds_pending = s.owner_kinds_pending.saturating_sub(1);
                }
            });
        }
        let app = router(shared.clone());
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown())
            .await
            .map_err(|e| Failure::new(EXIT_RESOLVE, format!("server: {e}")))
    });
    let _ = tx.send(Msg::Quit);
    let _ = state_thread.join();
    result.map(|()| crate::failure::EXIT_OK)
}

async fn shutdown() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(t) => t,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    eprintln!("stopping");
}

/// The name of a watch: `plural.group` (and `/namespace`).
fn source_name(r: &ApiResource, namespace: Option<&str>) -> String {
    let t = if r.group.is_empty() {
        r.plural.clone()
    } else {
        format!("{}.{}", r.plural, r.group)
    };
    match namespace {
        Some(ns) => format!("{t}/{ns}"),
        None => t,
    }
}

/// How long each watch call lasts (the server's `timeoutSeconds`): 5 s
/// less than the client's read timeout, at least 1 s.
fn watch_call_seconds(read_timeout: Duration) -> u32 {
    let secs = read_timeout
        .saturating_sub(Duration::from_secs(5))
        .as_secs();
    u32::try_from(secs).unwrap_or(u32::MAX).max(1)
}

fn spawn_watch(
    client: &kube::Client,
    r: &ApiResource,
    namespace: Option<&str>,
    owner: Option<OwnerKind>,
    watch_secs: u32,
    shared: &SharedRef,
    tx: &std_mpsc::Sender<Msg>,
) {
    // A cluster-scoped type is watched once, whatever the namespaces.
    let namespace = namespace.filter(|_| r.namespaced);
    let source: Arc<str> = source_name(r, namespace).into();
    {
        // One watch per resource (pods are a covered type too).
        let mut s = lock(shared);
        if s.watches.contains_key(&*source) {
            return;
        }
        s.watches.insert(
            source.to_string(),
            WatchStatus {
                owner,
                ..WatchStatus::default()
            },
        );
    }
    let ar = kube::api::ApiResource {
        group: r.group.clone(),
        version: r.version.clone(),
        api_version: r.api_version(),
        kind: r.kind.clone(),
        plural: r.plural.clone(),
    };
    let api: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &ar),
        None => Api::all_with(client.clone(), &ar),
    };
    let (shared, tx) = (shared.clone(), tx.clone());
    tokio::spawn(async move {
        let mut backoff = MIN_BACKOFF;
        loop {
            let ended = watch_once(&api, &ar, &source, watch_secs, &shared, &tx).await;
            let down = Msg::Down {
                source: source.clone(),
                forbidden: ended.forbidden,
            };
            if tx.send(down).is_err() {
                return;
            }
            let wait;
            (wait, backoff) = next_wait(backoff, ended, Instant::now());
            tokio::time::sleep(wait).await;
        }
    });
}

/// How one [`watch_once`] ended.
#[derive(Debug, Clone, Copy, Default)]
struct WatchEnd {
    /// The failure was a refusal (403).
    forbidden: bool,
    /// When it listed (and handed the list to the state), if it did.
    listed_at: Option<Instant>,
}

/// How long a watch that ended waits before it lists again, and its
/// backoff after that wait: a refused watch waits [`FORBIDDEN_RETRY`];
/// otherwise the backoff doubles on each failure up to [`MAX_BACKOFF`], and
/// starts anew from [`MIN_BACKOFF`] when the watch listed and then stayed
/// up [`STEADY`] (one outage's doubling must not delay the recovery from
/// the next, hours later; a watch that fails right after each list keeps
/// doubling, so that it does not list every half second).
fn next_wait(backoff: Duration, ended: WatchEnd, now: Instant) -> (Duration, Duration) {
    let backoff = match ended.listed_at {
        Some(t) if now.saturating_duration_since(t) >= STEADY => MIN_BACKOFF,
        _ => backoff,
    };
    let wait = if ended.forbidden {
        FORBIDDEN_RETRY
    } else {
        backoff
    };
    (wait, (backoff * 2).min(MAX_BACKOFF))
}

/// One list and watch, until it fails.
async fn watch_once(
    api: &Api<DynamicObject>,
    ar: &kube::api::ApiResource,
    source: &Arc<str>,
    watch_secs: u32,
    shared: &SharedRef,
    tx: &std_mpsc::Sender<Msg>,
) -> WatchEnd {
    let config = watcher::Config::default().timeout(watch_secs);
    let mut stream = std::pin::pin!(watcher(api.clone(), config));
    let mut end = WatchEnd::default();
    let mut batch: Vec<Value> = Vec::new();
    while let Some(event) = stream.next().await {
        let sent = match event {
            // The objects of a list go to the state as they arrive, a batch
            // at a time: a large list is never held here.
            Ok(watcher::Event::Init) => {
                batch.clear();
                tx.send(Msg::Listing(source.clone()))
            }
            Ok(watcher::Event::InitApply(o)) => {
                batch.push(to_value(o, ar));
                if batch.len() < LIST_BATCH {
                    continue;
                }
                tx.send(Msg::Listed(source.clone(), std::mem::take(&mut batch)))
            }
            Ok(watcher::Event::InitDone) => {
                end.listed_at = Some(Instant::now());
                let rest = std::mem::take(&mut batch);
                tx.send(Msg::Listed(source.clone(), rest))
                    .and_then(|()| tx.send(Msg::ListDone(source.clone())))
            }
            Ok(watcher::Event::Apply(o)) => {
                touch(shared, source);
                tx.send(Msg::Apply(source.clone(), to_value(o, ar)))
            }
            Ok(watcher::Event::Delete(o)) => {
                touch(shared, source);
                tx.send(Msg::Delete(to_value(o, ar)))
            }
            Err(e) => {
                let forbidden = is_forbidden(&e);
                if !forbidden {
                    eprintln!("watch {source}: {}; listing again", error_chain(&e));
                }
                end.forbidden = forbidden;
                return end;
            }
        };
        if sent.is_err() {
            return end;
        }
    }
    end
}

fn touch(shared: &SharedRef, source: &str) {
    if let Some(w) = lock(shared).watches.get_mut(source) {
        w.last_sync = unix_now();
    }
}

fn is_forbidden(e: &watcher::Error) -> bool {
    let api = match e {
        watcher::Error::InitialListFailed(k)
        | watcher::Error::WatchStartFailed(k)
        | watcher::Error::WatchFailed(k) => k,
        watcher::Error::WatchError(s) => return s.code == 403,
        _ => return false,
    };
    matches!(api, kube::Error::Api(s) if s.code == 403)
}

/// A watched object as the engine reads it: list items may come without
/// `apiVersion` and `kind`. Without `managedFields`, which nothing reads
/// (the state drops them too) and which are a large part of each object on
/// its way through the channel.
fn to_value(mut o: DynamicObject, ar: &kube::api::ApiResource) -> Value {
    o.metadata.managed_fields = None;
    let mut v = serde_json::to_value(o).unwrap_or(Value::Null);
    if let Some(m) = v.as_object_mut() {
        m.entry("apiVersion")
            .or_insert_with(|| Value::String(ar.api_version.clone()));
        m.entry("kind")
            .or_insert_with(|| Value::String(ar.kind.clone()));
    }
    v
}

/// The state's thread: applies events as they come, refreshes once they
/// pause for `debounce` (or `MAX_DELAY` into a burst), and publishes.
fn run_state(
    mut state: LiveState,
    engine: &Engine,
    shared: &SharedRef,
    options: &ServeOptions,
    rx: &std_mpsc::Receiver<Msg>,
    want: &tokio::sync::mpsc::UnboundedSender<OwnerKind>,
) {
    let mut dirty_since: Option<Instant> = None;
    let mut last_change = Instant::now();
    let mut watched: Vec<OwnerKind> = Vec::new();
    // Per watch in the middle of a list: the uids it has listed so far.
    let mut listing: HashMap<Arc<str>, HashSet<String>> = HashMap::new();
    // A refresh held back until every watch has listed: the next wait is
    // SYNC_POLL, not the debounce.
    let mut held = false;
    loop {
        let timeout = match dirty_since {
            Some(_) if held => SYNC_POLL.max(options.debounce),
            Some(_) => options.debounce,
            None => Duration::from_millis(500),
        };
        match rx.recv_timeout(timeout) {
            Ok(Msg::Quit) | Err(std_mpsc::RecvTimeoutError::Disconnected) => return,
            Ok(msg) => {
                let changed = match msg {
                    Msg::Apply(source, o) => state.apply(engine, &source, &o),
                    Msg::Delete(o) => state.delete(&o),
                    Msg::Listing(source) => {
                        listing.insert(source, HashSet::new());
                        false
                    }
                    Msg::Listed(source, objects) => {
                        let mut changed = false;
                        for o in &objects {
                            if let Some(uid) = o.pointer("/metadata/uid").and_then(Value::as_str)
                                && let Some(seen) = listing.get_mut(&source)
                            {
                                seen.insert(uid.to_string());
                            }
                            changed |= state.apply(engine, &source, o);
                        }
                        changed
                    }
                    Msg::ListDone(source) => {
                        if let Some(seen) = listing.remove(&source) {
                            state.retain(&source, |u| seen.contains(u));
                        }
                        let mut s = lock(shared);
                        let w = s.watches.entry(source.to_string()).or_default();
                        w.synced = true;
                        w.up = true;
                        w.forbidden = false;
                        w.down_since = None;
                        w.last_sync = unix_now();
                        true
                    }
                    Msg::Down { source, forbidden } => {
                        let mut s = lock(shared);
                        let w = s.watches.entry(source.to_string()).or_default();
                        w.restarts += 1;
                        w.up = false;
                        w.forbidden = forbidden;
                        w.down_since.get_or_insert_with(Instant::now);
                        true
                    }
                    Msg::Quit => return,
                };
                if changed {
                    dirty_since.get_or_insert_with(Instant::now);
                    last_change = Instant::now();
                }
                let burst = dirty_since.is_some_and(|d| d.elapsed() >= MAX_DELAY);
                if !burst {
                    continue;
                }
            }
            Err(std_mpsc::RecvTimeoutError::Timeout) => {}
        }
        // Stale: a watch (not a forbidden one) down for --stale-after.
        let (all_synced, stale, unreadable) = {
            let s = lock(shared);
            let all_synced =
                s.owner_kinds_pending == 0 && s.watches.values().all(|w| w.synced || w.forbidden);
            let stale = s.watches.values().any(|w| {
                !w.forbidden
                    && w.down_since
                        .is_some_and(|d| d.elapsed() >= options.stale_after)
            });
            let unreadable: Vec<OwnerKind> = s
                .watches
                .values()
                .filter(|w| w.forbidden)
                .filter_map(|w| w.owner.clone())
                .collect();
            (all_synced, stale, unreadable)
        };
        // Withheld at once; served again only once what the watches listed
        // again is refreshed (nothing pending): until then the published
        // workloads are those of before the outage.
        {
            let mut s = lock(shared);
            if stale && !s.stale {
                s.stale = true;
                eprintln!(
                    "a watch has been down for {:?}: workload series withheld until it lists again",
                    options.stale_after
                );
            } else if !stale && s.stale && dirty_since.is_none() {
                s.stale = false;
            }
        }
        let Some(since) = dirty_since else { continue };
        if last_change.elapsed() < options.debounce && since.elapsed() < MAX_DELAY {
            continue;
        }
        held = !all_synced;
        if held {
            // Wait for every first list: a partial state would publish
            // pods without their workloads.
            continue;
        }
        // Owner kinds named by chains and not watched yet: watch them and
        // refresh once they have listed. A refresh now would find their
        // objects missing and publish the workloads below them as orphaned
        // (and /readyz would say ready before the owners are known).
        let needed = state.owner_kinds_needed(engine, &watched);
        if !needed.is_empty() {
            lock(shared).owner_kinds_pending += needed.len();
            for k in needed {
                watched.push(k.clone());
                if want.send(k).is_err() {
                    return;
                }
            }
            continue;
        }
        let started = Instant::now();
        let stats = state.refresh(engine, &unreadable);
        let took = started.elapsed().as_secs_f64();
        dirty_since = None;
        let counts = state.counts();
        let workloads = Arc::new(state.workloads());
        let mut s = lock(shared);
        s.workloads = workloads;
        s.refreshed = true;
        if !stale {
            s.stale = false;
        }
        s.refreshes += 1;
        s.resolves += stats.resolved as u64;
        s.last_refresh_seconds = took;
        for code in stats.errors {
            *s.resolve_errors.entry(code.as_str()).or_default() += 1;
        }
        s.objects = [counts.covered, counts.owners, counts.pods];
        s.refused = counts.refused;
    }
}

fn router(shared: SharedRef) -> axum::Router {
    use axum::http::{StatusCode, header};
    use axum::routing::get;
    let metrics = {
        let shared = shared.clone();
        move |headers: axum::http::HeaderMap| {
            let shared = shared.clone();
            async move {
                let body = exposition(&shared);
                // OpenMetrics for a client that asks for it (Prometheus
                // does); the classic text format otherwise (curl, promtool).
                let openmetrics = headers
                    .get_all(header::ACCEPT)
                    .iter()
                    .filter_map(|v| v.to_str().ok())
                    .any(|v| v.contains("application/openmetrics-text"));
                if openmetrics {
                    (
                        [(
                            header::CONTENT_TYPE,
                            "application/openmetrics-text; version=1.0.0; charset=utf-8",
                        )],
                        body,
                    )
                } else {
                    (
                        [(
                            header::CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8",
                        )],
                        classic_text(&body),
                    )
                }
            }
        }
    };
    let ready = move || {
        let shared = shared.clone();
        async move {
            let s = lock(&shared);
            let waiting: Vec<&String> = s
                .watches
                .iter()
                .filter(|(_, w)| !(w.forbidden || (w.synced && w.up)))
                .map(|(k, _)| k)
                .collect();
            if waiting.is_empty() && s.refreshed && !s.stale {
                (StatusCode::OK, "ready\n".to_string())
            } else if !s.refreshed && waiting.is_empty() {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "not refreshed yet\n".into(),
                )
            } else if waiting.is_empty() {
                // Every watch listed again after an outage; the state is
                // not refreshed with it yet.
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    "workload series withheld (stale) until the state is refreshed\n".into(),
                )
            } else {
                let names: Vec<&str> = waiting.iter().map(|s| s.as_str()).collect();
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("watches not in sync: {}\n", names.join(", ")),
                )
            }
        }
    };
    axum::Router::new()
        .route("/metrics", get(metrics))
        .route("/healthz", get(|| async { "ok\n" }))
        .route("/readyz", get(ready))
}

/// The whole exposition, encoded on each scrape from what the state
/// published last.
fn exposition(shared: &SharedRef) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Snapshot::take(shared)));
    let mut out = String::new();
    if let Err(e) = prometheus_client::encoding::text::encode(&mut out, &registry) {
        out = format!("# encoding failed: {e}\n# EOF\n");
    }
    out
}

/// The classic text format (0.0.4) of an OpenMetrics exposition: a
/// counter's HELP and TYPE name its `_total` series, and there is no
/// `# EOF` (nor `# UNIT`).
fn classic_text(openmetrics: &str) -> String {
    let mut counters: BTreeSet<&str> = BTreeSet::new();
    for line in openmetrics.lines() {
        if let Some(rest) = line.strip_prefix("# TYPE ")
            && let Some(name) = rest.strip_suffix(" counter")
        {
            counters.insert(name);
        }
    }
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let meta = line
            .strip_prefix("# HELP ")
            .map(|r| ("# HELP ", r))
            .or_else(|| line.strip_prefix("# TYPE ").map(|r| ("# TYPE ", r)));
        match meta {
            Some((tag, rest)) => {
                let (name, tail) = rest.split_once(' ').unwrap_or((rest, ""));
                out.push_str(tag);
                out.push_str(name);
                if counters.contains(name) {
                    out.push_str("_total");
                }
                out.push(' ');
                out.push_str(tail);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// What one scrape encodes.
#[derive(Debug)]
struct Snapshot {
    workloads: Arc<Vec<Arc<WorkloadMetrics>>>,
    families: BTreeSet<Family>,
    watches: Vec<(String, WatchStatus)>,
    stale: bool,
    resolve_errors: Vec<(&'static str, u64)>,
    resolves: u64,
    refreshes: u64,
    last_refresh_seconds: f64,
    objects: [usize; 3],
    refused: u64,
}

impl Snapshot {
    fn take(shared: &SharedRef) -> Snapshot {
        let s = lock(shared);
        Snapshot {
            workloads: if s.stale {
                Arc::default()
            } else {
                s.workloads.clone()
            },
            families: s.families.clone(),
            watches: s
                .watches
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            stale: s.stale,
            resolve_errors: s.resolve_errors.iter().map(|(k, v)| (*k, *v)).collect(),
            resolves: s.resolves,
            refreshes: s.refreshes,
            last_refresh_seconds: s.last_refresh_seconds,
            objects: s.objects,
            refused: s.refused,
        }
    }
}

/// A label value as the exposition may carry it: `\`, `"` and newlines
/// escaped, cut to [`MAX_LABEL_BYTES`]. Borrowed when there is nothing to
/// escape: a scrape writes a few hundred thousand labels, and allocating
/// each was most of its time.
fn label(v: &str) -> Cow<'_, str> {
    let mut cut = v;
    if cut.len() > MAX_LABEL_BYTES {
        let mut end = MAX_LABEL_BYTES;
        while !cut.is_char_boundary(end) {
            end -= 1;
        }
        cut = &cut[..end];
    }
    if !cut.contains(['\\', '"', '\n']) {
        return Cow::Borrowed(cut);
    }
    let mut out = String::with_capacity(cut.len() + 8);
    for c in cut.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

type Labels<'a> = Vec<(&'static str, Cow<'a, str>)>;

fn workload_labels(w: &WorkloadMetrics) -> Labels<'_> {
    let s = &w.summary;
    let group = s.api_version.rsplit_once('/').map_or("", |(g, _)| g);
    vec![
        (
            "namespace",
            label(s.namespace.as_deref().unwrap_or_default()),
        ),
        ("group", label(group)),
        ("kind", label(&s.kind)),
        ("workload", label(&s.name)),
    ]
}

fn with<'a>(mut base: Labels<'a>, more: &[(&'static str, &'a str)]) -> Labels<'a> {
    base.extend(more.iter().map(|(k, v)| (*k, label(v))));
    base
}

/// `with`, for values that do not outlive the labels.
fn with_owned<'a>(mut base: Labels<'a>, more: &[(&'static str, &str)]) -> Labels<'a> {
    base.extend(
        more.iter()
            .map(|(k, v)| (*k, Cow::Owned(label(v).into_owned()))),
    );
    base
}

struct Gauges<'e, 'a> {
    encoder: &'e mut DescriptorEncoder<'a>,
}

impl Gauges<'_, '_> {
    /// One gauge family: `samples` as (labels, value).
    fn family<'l>(
        &mut self,
        name: &str,
        help: &str,
        samples: impl IntoIterator<Item = (Labels<'l>, f64)>,
    ) -> Result<(), std::fmt::Error> {
        self.typed(name, help, MetricType::Gauge, samples)
    }

    fn typed<'l>(
        &mut self,
        name: &str,
        help: &str,
        kind: MetricType,
        samples: impl IntoIterator<Item = (Labels<'l>, f64)>,
    ) -> Result<(), std::fmt::Error> {
        let mut samples = samples.into_iter().peekable();
        if samples.peek().is_none() {
            return Ok(());
        }
        let mut family = self.encoder.encode_descriptor(name, help, None, kind)?;
        let put = |e: MetricEncoder, value: f64| match kind {
            MetricType::Counter => ConstCounter::new(value).encode(e),
            _ => ConstGauge::new(value).encode(e),
        };
        for (labels, value) in samples {
            if labels.is_empty() {
                // A family of one unlabelled sample.
                return put(family, value);
            }
            put(family.encode_family(&labels)?, value)?;
        }
        Ok(())
    }
}

impl Collector for Snapshot {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let mut g = Gauges {
            encoder: &mut encoder,
        };
        let ws = self.workloads.as_slice();
        let each = |f: &dyn Fn(&WorkloadMetrics) -> Option<f64>| -> Vec<(Labels, f64)> {
            ws.iter()
                .filter_map(|w| f(w).map(|v| (workload_labels(w), v)))
                .collect()
        };
        let ok = |w: &WorkloadMetrics| w.summary.error.is_none();
        let live = |w: &WorkloadMetrics| w.summary.live.unwrap_or_default();
        g.family(
            "workload_lens_workload_info",
            "A workload a definition covers (1): its uid, version and definition.",
            ws.iter().map(|w| {
                let s = &w.summary;
                let version = s.api_version.rsplit('/').next().unwrap_or_default();
                let origin = s.origin.map(|o| format!("{o:?}").to_lowercase());
                let labels = with(
                    workload_labels(w),
                    &[
                        ("version", version),
                        ("uid", s.uid.as_deref().unwrap_or_default()),
                        ("definition", s.definition.as_deref().unwrap_or_default()),
                    ],
                );
                (
                    with_owned(labels, &[("origin", origin.as_deref().unwrap_or_default())]),
                    1.0,
                )
            }),
        )?;
        g.family(
            "workload_lens_workload_created_timestamp_seconds",
            "Unix time the workload was created.",
            each(&|w| {
                w.summary
                    .created
                    .as_deref()
                    .and_then(workload_lens::time::epoch_seconds)
                    .map(|t| t as f64)
            }),
        )?;
        g.family(
            "workload_lens_workload_status",
            "Each status category the workload is in (1): Running, Pending, Failed, ...",
            ws.iter().flat_map(|w| {
                w.summary
                    .statuses
                    .iter()
                    .map(move |st| (with(workload_labels(w), &[("status", st.as_str())]), 1.0))
            }),
        )?;
        g.family(
            "workload_lens_workload_pods_desired",
            "Pods the workload's structure asks for (an autoscaled instance: its current count).",
            each(&|w| ok(w).then_some(w.summary.pods as f64)),
        )?;
        g.family(
            "workload_lens_workload_pods",
            "The workload's pods that exist and have not finished.",
            each(&|w| ok(w).then(|| live(w).pods as f64)),
        )?;
        g.family(
            "workload_lens_workload_pods_ready",
            "Of those, the ready ones.",
            each(&|w| ok(w).then(|| live(w).ready as f64)),
        )?;
        g.family(
            "workload_lens_workload_pods_running",
            "The workload's pods in phase Running.",
            each(&|w| ok(w).then_some(w.running_pods as f64)),
        )?;
        g.family(
            "workload_lens_workload_gpus_requested",
            "GPUs the workload's desired pods request.",
            each(&|w| ok(w).then_some(w.summary.gpus as f64)),
        )?;
        g.family(
            "workload_lens_workload_gpus_placed",
            "GPUs requested by the workload's pods that are on a node and have not finished.",
            each(&|w| ok(w).then(|| live(w).gpus.saturating_sub(live(w).pending_gpus) as f64)),
        )?;
        g.family(
            "workload_lens_workload_gpus_pending",
            "GPUs requested by the workload's pods that wait for a node.",
            each(&|w| ok(w).then(|| live(w).pending_gpus as f64)),
        )?;
        g.family(
            "workload_lens_workload_reason",
            "Why the workload is not simply running (1): the code of the diagnosis's first finding.",
            ws.iter().filter_map(|w| {
                let r = w.summary.reason.as_deref()?;
                Some((with(workload_labels(w), &[("reason", r)]), 1.0))
            }),
        )?;
        g.family(
            "workload_lens_workload_resolve_error",
            "The workload did not resolve (1), by the engine's error code.",
            ws.iter().filter_map(|w| {
                let e = w.summary.error.as_ref()?;
                Some((
                    with(workload_labels(w), &[("code", e.code().as_str())]),
                    1.0,
                ))
            }),
        )?;
        g.family(
            "workload_lens_workload_owner_missing",
            "The workload's controller is not there (1): orphaned, or of a type that may not be read.",
            ws.iter().filter_map(|w| {
                let o = w.summary.owner.as_ref()?;
                let state = format!("{:?}", o.state).to_lowercase();
                let labels = with_owned(workload_labels(w), &[("state", &state)]);
                Some((
                    with(labels, &[("owner_kind", &o.kind), ("owner", &o.name)]),
                    1.0,
                ))
            }),
        )?;
        if self.families.contains(&Family::Components) {
            let inst = |f: &dyn Fn(&workload_lens::InstanceMetrics) -> Option<f64>| {
                ws.iter()
                    .flat_map(move |w| {
                        w.instances.iter().filter_map(move |i| {
                            let v = f(i)?;
                            Some((
                                with(
                                    workload_labels(w),
                                    &[
                                        ("component", &i.component),
                                        ("component_instance", &i.instance),
                                    ],
                                ),
                                v,
                            ))
                        })
                    })
                    .collect::<Vec<_>>()
            };
            g.family(
                "workload_lens_component_replicas_desired",
                "Desired replicas of a component instance.",
                inst(&|i| Some(i.desired as f64)),
            )?;
            g.family(
                "workload_lens_component_replicas_min",
                "The least replicas a component instance may scale to.",
                inst(&|i| i.min.map(|v| v as f64)),
            )?;
            g.family(
                "workload_lens_component_replicas_max",
                "The most replicas a component instance may scale to.",
                inst(&|i| i.max.map(|v| v as f64)),
            )?;
            g.family(
                "workload_lens_component_pods",
                "A component instance's pods that exist and have not finished.",
                inst(&|i| Some(i.pods as f64)),
            )?;
            g.family(
                "workload_lens_component_pods_ready",
                "Of those, the ready ones.",
                inst(&|i| Some(i.ready as f64)),
            )?;
            g.family(
                "workload_lens_component_gpus_requested",
                "GPUs a component instance's desired replicas request.",
                inst(&|i| Some(i.gpus as f64)),
            )?;
        }
        if self.families.contains(&Family::Pods) {
            fn pod_labels<'a>(
                w: &'a WorkloadMetrics,
                p: &'a workload_lens::PodMetrics,
            ) -> Labels<'a> {
                let s = &w.summary;
                let group = s.api_version.rsplit_once('/').map_or("", |(g, _)| g);
                vec![
                    (
                        "namespace",
                        label(s.namespace.as_deref().unwrap_or_default()),
                    ),
                    ("pod", label(&p.name)),
                    ("group", label(group)),
                    ("kind", label(&s.kind)),
                    ("workload", label(&s.name)),
                    (
                        "component",
                        label(p.component.as_deref().unwrap_or_default()),
                    ),
                    (
                        "component_instance",
                        label(p.instance.as_deref().unwrap_or_default()),
                    ),
                ]
            }
            g.family(
                "workload_lens_pod_info",
                "A pod of a workload (1), keyed by namespace and pod as dcgm-exporter labels GPU series.",
                ws.iter()
                    .flat_map(|w| w.pods.iter().map(move |p| (pod_labels(w, p), 1.0))),
            )?;
            g.family(
                "workload_lens_pod_gpus_requested",
                "GPUs a workload's pod requests.",
                ws.iter().flat_map(|w| {
                    w.pods.iter().map(move |p| {
                        let s = &w.summary;
                        (
                            vec![
                                (
                                    "namespace",
                                    label(s.namespace.as_deref().unwrap_or_default()),
                                ),
                                ("pod", label(&p.name)),
                            ],
                            p.gpus as f64,
                        )
                    })
                }),
            )?;
        }
        if self.families.contains(&Family::Gangs) {
            let gang = |f: &dyn Fn(&workload_lens::GangMetrics) -> f64| {
                ws.iter()
                    .flat_map(move |w| {
                        w.gangs.iter().map(move |gm| {
                            (
                                with(
                                    workload_labels(w),
                                    &[
                                        ("gang", &gm.name),
                                        ("component", gm.component.as_deref().unwrap_or_default()),
                                    ],
                                ),
                                f(gm),
                            )
                        })
                    })
                    .collect::<Vec<_>>()
            };
            g.family(
                "workload_lens_gang_min_members",
                "The fewest members a gang-scheduling group is scheduled with.",
                gang(&|gm| gm.min_members as f64),
            )?;
            g.family(
                "workload_lens_gang_members",
                "A gang's members among the pods that exist.",
                gang(&|gm| gm.members as f64),
            )?;
            g.family(
                "workload_lens_gang_members_placed",
                "A gang's members on a node.",
                gang(&|gm| gm.placed as f64),
            )?;
        }
        // The exporter itself.
        g.family(
            "workload_lens_exporter_build_info",
            "The exporter's version (1).",
            [(
                vec![("version", Cow::Borrowed(env!("CARGO_PKG_VERSION")))],
                1.0,
            )],
        )?;
        let per_watch = |f: &dyn Fn(&WatchStatus) -> f64| {
            self.watches
                .iter()
                .map(|(k, w)| (vec![("resource", label(k))], f(w)))
                .collect::<Vec<_>>()
        };
        g.family(
            "workload_lens_exporter_watch_up",
            "1 while a watch is in sync (listed, and no failure since); 0 while it is down or refused.",
            per_watch(&|w| f64::from(u8::from(w.synced && w.up))),
        )?;
        g.family(
            "workload_lens_exporter_watch_forbidden",
            "1 when the exporter may not watch the resource.",
            per_watch(&|w| f64::from(u8::from(w.forbidden))),
        )?;
        g.family(
            "workload_lens_exporter_last_sync_timestamp_seconds",
            "Unix time of a watch's last successful list or event.",
            per_watch(&|w| w.last_sync),
        )?;
        g.typed(
            "workload_lens_exporter_watch_restarts",
            "Watches that failed and were started again with a fresh list.",
            MetricType::Counter,
            per_watch(&|w| w.restarts as f64),
        )?;
        g.typed(
            "workload_lens_exporter_resolve_errors",
            "Workload resolves that failed, by the engine's error code.",
            MetricType::Counter,
            self.resolve_errors
                .iter()
                .map(|(c, n)| (vec![("code", Cow::Borrowed(*c))], *n as f64)),
        )?;
        g.typed(
            "workload_lens_exporter_resolves",
            "Workloads resolved (again) after a change.",
            MetricType::Counter,
            [(Vec::new(), self.resolves as f64)],
        )?;
        g.typed(
            "workload_lens_exporter_refreshes",
            "Refreshes of the state (each after a pause in the changes).",
            MetricType::Counter,
            [(Vec::new(), self.refreshes as f64)],
        )?;
        g.family(
            "workload_lens_exporter_last_refresh_duration_seconds",
            "How long the last refresh took.",
            [(Vec::new(), self.last_refresh_seconds)],
        )?;
        g.family(
            "workload_lens_exporter_objects",
            "Objects held, by role: covered (workload types), owner, pod.",
            [("covered", 0), ("owner", 1), ("pod", 2)]
                .into_iter()
                .map(|(r, i)| (vec![("role", Cow::Borrowed(r))], self.objects[i] as f64)),
        )?;
        g.typed(
            "workload_lens_exporter_objects_refused",
            "Objects not held because --max-objects was reached.",
            MetricType::Counter,
            [(Vec::new(), self.refused as f64)],
        )?;
        g.family(
            "workload_lens_exporter_workloads",
            "Workloads reported.",
            [(Vec::new(), self.workloads.len() as f64)],
        )?;
        g.family(
            "workload_lens_exporter_stale",
            "1 while workload series are withheld: a watch has been down for --stale-after.",
            [(Vec::new(), f64::from(u8::from(self.stale)))],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_watch_backs_off_and_starts_anew_once_steady() {
        let now = Instant::now();
        let failed = WatchEnd::default();
        // Failures without a list in between: 0.5 s doubling to 30 s.
        let mut backoff = MIN_BACKOFF;
        let mut waits = Vec::new();
        for _ in 0..8 {
            let wait;
            (wait, backoff) = next_wait(backoff, failed, now);
            waits.push(wait.as_millis());
        }
        assert_eq!(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        // A list that stayed up STEADY: the next failure waits 0.5 s again.
        let steady = WatchEnd {
            listed_at: Some(now),
            forbidden: false,
        };
        assert_eq!(
            next_wait(backoff, steady, now + STEADY),
            (MIN_BACKOFF, MIN_BACKOFF * 2)
        );
        // A list that failed at once keeps the doubling.
        assert_eq!(
            next_wait(Duration::from_secs(8), steady, now + Duration::from_secs(1)),
            (Duration::from_secs(8), Duration::from_secs(16))
        );
        // A refusal waits FORBIDDEN_RETRY whatever the backoff.
        let refused = WatchEnd {
            listed_at: None,
            forbidden: true,
        };
        assert_eq!(next_wait(MIN_BACKOFF, refused, now).0, FORBIDDEN_RETRY);
    }

    #[test]
    fn a_watch_call_ends_before_the_read_timeout() {
        assert_eq!(watch_call_seconds(Duration::from_secs(30)), 25);
        assert_eq!(watch_call_seconds(Duration::from_secs(300)), 295);
        assert_eq!(watch_call_seconds(Duration::from_secs(5)), 1);
        assert_eq!(watch_call_seconds(Duration::from_millis(1500)), 1);
    }

    #[test]
    fn labels_are_escaped_and_cut_and_borrowed_when_clean() {
        assert!(matches!(label("bench-03"), Cow::Borrowed("bench-03")));
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        let long = "é".repeat(200);
        let cut = label(&long);
        assert!(cut.len() <= MAX_LABEL_BYTES && long.starts_with(&*cut));
        assert_eq!(cut.len(), MAX_LABEL_BYTES);
    }
}
