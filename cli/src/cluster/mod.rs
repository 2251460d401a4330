//! Reading a live cluster (the `cluster` feature): the connection, and the
//! HTTP requests of the engine's cluster protocol
//! (`workload_lens::ClusterSession`). Only IO lives here: what to request
//! (discovery, the definitions stored in the cluster, pages, the owner
//! walk), which failures are warnings and which end the command, and what
//! the objects mean are the engine's.

pub mod get;
pub mod serve;
pub mod snapshot;

use std::collections::BTreeMap;
use std::time::Duration;

use std::time::Instant;

use futures_util::future::join_all;
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde::Serialize;
use workload_lens::{
    ClusterOutcome, ClusterSession, ClusterWarning, Engine, Error, ErrorCode, Reply,
};

use crate::failure::{EXIT_RESOLVE, EXIT_UNREACHABLE, Failure};
use crate::input::{self, InputPath};
use crate::output::{self, Format};

/// The client's timeouts (connect, each read, each write) when
/// `--request-timeout` is not given.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// `--kubeconfig`, `--context`, `--request-timeout`.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    pub kubeconfig: Option<String>,
    pub context: Option<String>,
    pub timeout: Option<Duration>,
}

/// A warning about the cluster, printed on stderr after the output:
/// `reason` is stable (`forbidden`, `no_crd`, `unreachable`, `invalid`,
/// `collision`; `resolve` for a row that did not resolve or what resolving
/// a workload and its pods found, `empty` for an
/// empty listing).
#[derive(Debug, Clone, Serialize)]
pub struct Warning {
    pub reason: String,
    pub message: String,
}

impl From<ClusterWarning> for Warning {
    fn from(w: ClusterWarning) -> Self {
        let message = match w.reason.as_str() {
            "invalid" | "collision" if w.object.contains('/') => {
                format!("definition {}: {}", w.object, w.message)
            }
            _ => w.message,
        };
        Warning {
            reason: w.reason,
            message,
        }
    }
}

/// A connection to one cluster: the client, its runtime, the namespace of
/// the context and the server's address (for messages).
pub struct Cluster {
    rt: tokio::runtime::Runtime,
    client: kube::Client,
    pub namespace: String,
    pub server: String,
    /// The kubeconfig context connected through (none: in a pod, by its
    /// service account).
    pub context: Option<String>,
}

/// An error and its sources, on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        let t = c.to_string();
        if !s.contains(&t) {
            s.push_str(": ");
            s.push_str(&t);
        }
        cur = c.source();
    }
    s
}

/// The failure of a cluster operation: the engine's error (its code gives
/// the exit code and the machine-readable reason), with what the user can
/// do about it, and `{"error", "message"}` on stdout for `-o json|yaml`.
pub fn failure(e: &Error, format: Format) -> Failure {
    let mut f = Failure::engine(e);
    match e.code() {
        ErrorCode::Unreachable => f.message.push_str(
            "; is the cluster up, and is this the right context (--context, --kubeconfig)?",
        ),
        ErrorCode::Unauthorized => f
            .message
            .push_str("; log in again or choose another context"),
        _ => {}
    }
    machine_failure(f, e.code().as_str(), format)
}

/// Put `{"error": reason, "message": ...}` on stdout for machine formats.
pub fn machine_failure(mut f: Failure, reason: &str, format: Format) -> Failure {
    let body = serde_json::json!({"error": reason, "message": f.message});
    f.stdout = match format {
        Format::Human => None,
        Format::Json => output::json(&body).ok(),
        Format::Yaml => output::yaml(&body).ok(),
    };
    f
}

/// The kubeconfig and the file(s) it was read from (for messages):
/// `--kubeconfig FILE`, else `$KUBECONFIG` (several files merged), else
/// `~/.kube/config`; none when there is no such file (then the in-cluster
/// service account is tried).
fn read_kubeconfig(path: Option<&str>) -> Result<Option<(Kubeconfig, String)>, String> {
    use kube::config::KubeconfigError as E;
    let unreadable = |e: &E| match e {
        E::ReadConfig(io, p) => format!("cannot read the kubeconfig {}: {io}", p.display()),
        e => error_chain(e),
    };
    if let Some(p) = path {
        return Kubeconfig::read_from(p)
            .map(|kc| Some((kc, p.to_string())))
            .map_err(|e| match e {
                E::ReadConfig(..) => unreadable(&e),
                e => format!("kubeconfig {p}: {}", error_chain(&e)),
            });
    }
    let from_env = std::env::var("KUBECONFIG").ok().filter(|v| !v.is_empty());
    match Kubeconfig::read() {
        Ok(kc) => {
            let file = from_env.unwrap_or_else(|| "~/.kube/config".into());
            Ok(Some((kc, file)))
        }
        // No $KUBECONFIG and no ~/.kube/config: maybe in a pod.
        Err(E::FindPath) => Ok(None),
        Err(E::ReadConfig(io, _))
            if from_env.is_none() && io.kind() == std::io::ErrorKind::NotFound =>
        {
            Ok(None)
        }
        Err(e) => Err(unreadable(&e)),
    }
}

/// `--context NAME` names a context of the kubeconfig.
fn check_context(kc: &Kubeconfig, context: &str, file: &str) -> Result<(), String> {
    if kc.contexts.iter().any(|c| c.name == context) {
        return Ok(());
    }
    let names: Vec<&str> = kc.contexts.iter().map(|c| c.name.as_str()).collect();
    Err(format!(
        "context \"{context}\" not found in kubeconfig {file} (contexts: {})",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    ))
}

impl Cluster {
    /// Connect with `--kubeconfig`/`--context`, else the usual order
    /// (`$KUBECONFIG`, `~/.kube/config`, the in-cluster service account).
    pub fn connect(options: &ConnectOptions, format: Format) -> Result<Cluster, Failure> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::new(EXIT_RESOLVE, format!("cannot start the runtime: {e}")))?;
        let kube_options = KubeConfigOptions {
            context: options.context.clone(),
            ..KubeConfigOptions::default()
        };
        let mut context = options.context.clone();
        let config = rt.block_on(async {
            match read_kubeconfig(options.kubeconfig.as_deref())? {
                Some((kc, file)) => {
                    if let Some(c) = &options.context {
                        check_context(&kc, c, &file)?;
                    }
                    if context.is_none() {
                        context = kc.current_context.clone();
                    }
                    kube::Config::from_custom_kubeconfig(kc, &kube_options)
                        .await
                        .map_err(|e| format!("kubeconfig {file}: {}", error_chain(&e)))
                }
                None if options.context.is_some() => Err(format!(
                    "--context {}: no kubeconfig (give --kubeconfig FILE, set KUBECONFIG, or \
                     write ~/.kube/config)",
                    options.context.as_deref().unwrap_or_default()
                )),
                None => kube::Config::infer().await.map_err(|e| {
                    format!(
                        "no cluster configured ({}); give --kubeconfig FILE, set KUBECONFIG, \
                         or write ~/.kube/config",
                        error_chain(&e)
                    )
                }),
            }
        });
        let mut config = config
            .map_err(|m| machine_failure(Failure::new(EXIT_UNREACHABLE, m), "no_config", format))?;
        // --request-timeout bounds connecting (TCP and TLS) as well as each
        // read: a server that accepts and never answers fails after it.
        let timeout = options.timeout.unwrap_or(DEFAULT_REQUEST_TIMEOUT);
        config.connect_timeout = Some(timeout);
        config.read_timeout = Some(timeout);
        config.write_timeout = Some(timeout);
        let namespace = config.default_namespace.clone();
        let server = config.cluster_url.to_string();
        let server = server.trim_end_matches('/').to_string();
        let client = {
            let _guard = rt.enter();
            kube::Client::try_from(config).map_err(|e| {
                machine_failure(
                    Failure::new(
                        EXIT_UNREACHABLE,
                        format!("cannot make a client: {}", error_chain(&e)),
                    ),
                    "no_config",
                    format,
                )
            })?
        };
        Ok(Cluster {
            rt,
            client,
            namespace,
            server,
            context,
        })
    }

    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    pub fn client(&self) -> &kube::Client {
        &self.client
    }

    /// One GET, as the cluster protocol's reply: the status and body, or
    /// the client's words when the server could not be reached.
    pub async fn get(&self, path: &str) -> Reply {
        let req = match http::Request::get(path)
            .header(http::header::ACCEPT, "application/json")
            .body(kube::client::Body::empty())
        {
            Ok(r) => r,
            Err(e) => return Reply::unreachable(format!("bad request {path}: {e}")),
        };
        let res = match self.client.send(req).await {
            Ok(r) => r,
            Err(e) => return Reply::unreachable(error_chain(&e)),
        };
        let status = res.status().as_u16();
        match res.into_body().collect_bytes().await {
            Ok(bytes) => Reply::status(
                status,
                String::from_utf8(bytes.to_vec())
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
            ),
            Err(e) => Reply::unreachable(error_chain(&e)),
        }
    }

    /// Drive one operation of the engine's cluster protocol to its end:
    /// make each batch of requests at once, feed the replies back (and
    /// record them with `WORKLOAD_LENS_RECORD`). The one loop of the CLI:
    /// `get`, `top`, `describe` and the lists `get --watch` makes again all
    /// run here.
    /// `timings`, when given, adds up the time spent waiting for the server
    /// and the time the engine took with the replies.
    pub fn run(
        &self,
        session: ClusterSession,
        timings: Option<&mut Timings>,
    ) -> Result<ClusterOutcome, Error> {
        self.run_each(session, timings, |_| Ok(()))
    }

    /// [`Cluster::run`], calling `fed` after each batch of replies is fed
    /// (`snapshot` writes what the session recorded); an error of `fed`
    /// ends the run with that error.
    pub fn run_each(
        &self,
        mut session: ClusterSession,
        mut timings: Option<&mut Timings>,
        mut fed_by: impl FnMut(&mut ClusterSession) -> Result<(), Error>,
    ) -> Result<ClusterOutcome, Error> {
        while !session.is_done() {
            let asked = Instant::now();
            let replies: Vec<Reply> = self.block_on(join_all(
                session.requests().iter().map(|r| self.get(&r.path)),
            ));
            let fed = Instant::now();
            record(session.requests(), &replies);
            if let Some(t) = timings.as_deref_mut() {
                t.requests += fed - asked;
                t.pages += replies.len();
                t.bytes += replies
                    .iter()
                    .map(|r| match r {
                        Reply::Http { body, .. } => body.len(),
                        Reply::Unreachable { .. } => 0,
                    })
                    .sum::<usize>();
            }
            let result = session.feed(replies);
            if let Some(t) = timings.as_deref_mut() {
                t.engine += fed.elapsed();
            }
            result?;
            fed_by(&mut session)?;
        }
        session.finish()
    }
}

/// With `WORKLOAD_LENS_RECORD=FILE`, every request and its reply are
/// appended to FILE as JSON lines (`{"path", "reply"}`): how the cluster
/// protocol's conformance cases are recorded from a real API server
/// (`conformance/record-cluster.sh`). A failure to write is ignored.
fn record(requests: &[workload_lens::Request], replies: &[Reply]) {
    let Some(file) = std::env::var_os("WORKLOAD_LENS_RECORD") else {
        return;
    };
    let mut text = String::new();
    for (r, reply) in requests.iter().zip(replies) {
        let line = serde_json::json!({"path": r.path, "reply": reply});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    let _ = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
        .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()));
}

/// Where a cluster command's time went (`--timings`).
#[derive(Debug, Default)]
pub struct Timings {
    pub connect: Duration,
    pub requests: Duration,
    pub engine: Duration,
    pub pages: usize,
    pub bytes: usize,
}

impl Timings {
    pub fn print(&self, total: Duration, objects: usize, owners: usize) {
        let ms = |d: Duration| format!("{:.0} ms", d.as_secs_f64() * 1000.0);
        eprintln!(
            "timings: total {}; connect {}, requests {} ({} replies, {:.1} MB), reading and \
             resolving {} ({} objects kept, {} owners), other {}",
            ms(total),
            ms(self.connect),
            ms(self.requests),
            self.pages,
            self.bytes as f64 / 1e6,
            ms(self.engine),
            objects,
            owners,
            ms(total.saturating_sub(self.connect + self.requests + self.engine))
        );
    }
}

/// The engine for a cluster command: the catalog, then the user's
/// `--definition` files (the cluster's definitions go between the two when
/// the protocol reads them).
pub fn engine(files: &[InputPath], limits: &workload_lens::Limits) -> Result<Engine, Failure> {
    let mut engine = input::engine(&[], limits)?;
    for f in files {
        input::add_definition_file(&mut engine, f)?;
    }
    Ok(engine)
}

/// Print the warnings on stderr, each once.
pub fn print_warnings(warnings: &[Warning]) {
    let mut seen = BTreeMap::new();
    for w in warnings {
        if seen.insert(w.message.clone(), ()).is_none() {
            output::warn(&w.message);
        }
    }
}

/// `2m`, `5h`, `3d`: how long ago `created` (RFC 3339, as the API server
/// writes it) was, from `now` (seconds since the epoch).
pub fn age(created: Option<&str>, now: i64) -> String {
    let Some(t) = created.and_then(epoch_seconds) else {
        return "<unknown>".into();
    };
    let s = (now - t).max(0);
    match s {
        s if s < 120 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s if s < 2 * 365 * 86400 => format!("{}d", s / 86400),
        s => format!("{}y", s / (365 * 86400)),
    }
}

/// Seconds since the epoch of a Kubernetes time (the engine's reading).
pub use workload_lens::time::epoch_seconds;

/// Seconds since the epoch, now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        let t = 1_796_432_523;
        let at = |s: i64| age(Some("2026-12-05T01:02:03Z"), t + s);
        assert_eq!(at(5), "5s");
        assert_eq!(at(119), "119s");
        assert_eq!(at(600), "10m");
        assert_eq!(at(7200), "2h");
        assert_eq!(at(3 * 86400), "3d");
        assert_eq!(at(800 * 86400), "2y");
        assert_eq!(at(-10), "0s");
        assert_eq!(age(None, t), "<unknown>");
    }
}
