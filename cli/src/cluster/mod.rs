//! Reading a live cluster (the `cluster` feature): the connection, API
//! discovery, chunked lists, the definitions stored in the cluster, and the
//! owners of a workload's pods. Only IO lives here; what the objects mean
//! (which type a token names, which objects are listed, which pods are a
//! workload's) is the engine's (`workload_lens::Engine::find_type`,
//! `list_workloads`, `missing_owners`, `resolve_with_pods`).

pub mod get;

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::future::join_all;
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde::Serialize;
use serde_json::Value;
use workload_lens::{ApiResource, ClusterDefinitionWarning, Engine, OwnerKind};

use crate::failure::{EXIT_DENIED, EXIT_NOT_FOUND, EXIT_RESOLVE, EXIT_UNREACHABLE, Failure};
use crate::input::{self, InputPath};
use crate::output::{self, Format};

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

impl From<ClusterDefinitionWarning> for Warning {
    fn from(w: ClusterDefinitionWarning) -> Self {
        Warning {
            reason: w.reason,
            message: format!("definition {}: {}", w.object, w.message),
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
}

/// A Kubernetes API failure, sorted by what the user can do about it.
#[derive(Debug)]
pub enum ApiError {
    /// 401: the credentials were refused.
    Unauthorized(String),
    /// 403: RBAC denies this request.
    Forbidden(String),
    /// 404.
    NotFound(String),
    /// The server could not be reached (connection refused, DNS, TLS,
    /// timeout).
    Unreachable(String),
    /// Anything else.
    Other(String),
}

impl ApiError {
    fn from_kube(e: kube::Error) -> ApiError {
        match e {
            kube::Error::Api(s) => {
                let m = if s.message.is_empty() {
                    s.reason.clone()
                } else {
                    s.message.clone()
                };
                match s.code {
                    401 => ApiError::Unauthorized(m),
                    403 => ApiError::Forbidden(m),
                    404 => ApiError::NotFound(m),
                    _ => ApiError::Other(format!("{m} (HTTP {})", s.code)),
                }
            }
            kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::TlsRequired => {
                ApiError::Unreachable(error_chain(&e))
            }
            other => ApiError::Other(error_chain(&other)),
        }
    }

    pub fn message(&self) -> &str {
        match self {
            ApiError::Unauthorized(m)
            | ApiError::Forbidden(m)
            | ApiError::NotFound(m)
            | ApiError::Unreachable(m)
            | ApiError::Other(m) => m,
        }
    }
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

/// The failure of a command that could not reach or use the cluster,
/// with the machine-readable error on stdout for `-o json|yaml`.
pub fn failure(cluster: Option<&Cluster>, e: &ApiError, what: &str, format: Format) -> Failure {
    let server = cluster.map(|c| c.server.as_str()).unwrap_or("the cluster");
    let (exit, reason, message) = match e {
        ApiError::Unreachable(m) => (
            EXIT_UNREACHABLE,
            "unreachable",
            format!(
                "cannot reach {server} ({what}): {m}; is the cluster up, and is this the right context (--context, --kubeconfig)?"
            ),
        ),
        ApiError::Unauthorized(m) => (
            EXIT_DENIED,
            "unauthorized",
            format!(
                "{server} refused the credentials ({what}): {m}; log in again or choose another context"
            ),
        ),
        ApiError::Forbidden(m) => (EXIT_DENIED, "forbidden", format!("forbidden ({what}): {m}")),
        ApiError::NotFound(m) => (EXIT_NOT_FOUND, "not_found", format!("{what}: {m}")),
        ApiError::Other(m) => (EXIT_RESOLVE, "api", format!("{what}: {m}")),
    };
    machine_failure(Failure::new(exit, message), reason, format)
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
        let config = rt.block_on(async {
            match &options.kubeconfig {
                Some(path) => {
                    let kc = Kubeconfig::read_from(path).map_err(|e| {
                        format!("cannot read the kubeconfig {path}: {}", error_chain(&e))
                    })?;
                    kube::Config::from_custom_kubeconfig(kc, &kube_options)
                        .await
                        .map_err(|e| format!("kubeconfig {path}: {}", error_chain(&e)))
                }
                None if options.context.is_some() => kube::Config::from_kubeconfig(&kube_options)
                    .await
                    .map_err(|e| error_chain(&e)),
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
        let timeout = options.timeout.unwrap_or(Duration::from_secs(30));
        config.connect_timeout = Some(timeout.min(Duration::from_secs(10)));
        config.read_timeout = Some(timeout);
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
        })
    }

    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.rt.block_on(f)
    }

    /// GET a path, as text.
    pub async fn get_text(&self, path: &str) -> Result<String, ApiError> {
        let req = http::Request::get(path)
            .body(Vec::new())
            .map_err(|e| ApiError::Other(e.to_string()))?;
        self.client
            .request_text(req)
            .await
            .map_err(ApiError::from_kube)
    }

    pub fn client(&self) -> &kube::Client {
        &self.client
    }

    /// Every resource the server serves (not subresources), with the
    /// preferred version of each group marked. A group version whose
    /// discovery fails (an aggregated API that is down) is skipped with a
    /// `discovery` warning.
    pub async fn discover(
        &self,
        warnings: &mut Vec<Warning>,
    ) -> Result<Vec<ApiResource>, ApiError> {
        let core = self
            .client
            .list_core_api_resources("v1")
            .await
            .map_err(ApiError::from_kube)?;
        let groups = self
            .client
            .list_api_groups()
            .await
            .map_err(ApiError::from_kube)?;
        let mut out = resources("", "v1", true, &core.resources);
        let mut wanted = Vec::new();
        for g in &groups.groups {
            let preferred = g.preferred_version.as_ref().map(|p| p.version.clone());
            for v in &g.versions {
                wanted.push((
                    g.name.clone(),
                    v.version.clone(),
                    preferred.as_deref() == Some(&v.version),
                ));
            }
        }
        let lists = join_all(wanted.iter().map(|(g, v, _)| {
            let gv = format!("{g}/{v}");
            async move { self.client.list_api_group_resources(&gv).await }
        }))
        .await;
        for ((g, v, preferred), list) in wanted.iter().zip(lists) {
            match list {
                Ok(list) => out.extend(resources(g, v, *preferred, &list.resources)),
                Err(e) => warnings.push(Warning {
                    reason: "unreachable".into(),
                    message: format!(
                        "{g}/{v} is not discoverable, its types are left out: {}",
                        ApiError::from_kube(e).message()
                    ),
                }),
            }
        }
        Ok(out)
    }

    /// The path of a resource's collection (in `namespace`, or across all
    /// namespaces), or of one object.
    pub fn path(r: &ApiResource, namespace: Option<&str>, name: Option<&str>) -> String {
        let mut p = if r.group.is_empty() {
            format!("/api/{}", r.version)
        } else {
            format!("/apis/{}/{}", r.group, r.version)
        };
        if let Some(ns) = namespace.filter(|_| r.namespaced) {
            p.push_str("/namespaces/");
            p.push_str(&encode(ns));
        }
        p.push('/');
        p.push_str(&r.plural);
        if let Some(n) = name {
            p.push('/');
            p.push_str(&encode(n));
        }
        p
    }

    /// Every page of a list (`limit`/`continue`), as texts, and the list's
    /// resourceVersion (to watch from).
    pub async fn list_pages(
        &self,
        r: &ApiResource,
        namespace: Option<&str>,
        selector: Option<&str>,
        chunk: usize,
    ) -> Result<(Vec<String>, String), ApiError> {
        let base = Self::path(r, namespace, None);
        let mut pages = Vec::new();
        let mut cont = String::new();
        loop {
            let mut q = vec![];
            if chunk > 0 {
                q.push(format!("limit={chunk}"));
            }
            if !cont.is_empty() {
                q.push(format!("continue={}", encode(&cont)));
            }
            if let Some(s) = selector {
                q.push(format!("labelSelector={}", encode(s)));
            }
            let path = if q.is_empty() {
                base.clone()
            } else {
                format!("{base}?{}", q.join("&"))
            };
            let text = self.get_text(&path).await?;
            let meta: ListEnvelope = serde_json::from_str(&text)
                .map_err(|e| ApiError::Other(format!("{path}: not a list: {e}")))?;
            pages.push(text);
            match meta.metadata.continue_.filter(|c| !c.is_empty()) {
                Some(c) => cont = c,
                None => return Ok((pages, meta.metadata.resource_version.unwrap_or_default())),
            }
        }
    }
}

#[derive(serde::Deserialize)]
struct ListEnvelope {
    #[serde(default)]
    metadata: ListMeta,
}

#[derive(serde::Deserialize, Default)]
struct ListMeta {
    #[serde(rename = "continue", default)]
    continue_: Option<String>,
    #[serde(rename = "resourceVersion", default)]
    resource_version: Option<String>,
}

fn resources(
    group: &str,
    version: &str,
    preferred: bool,
    list: &[k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource],
) -> Vec<ApiResource> {
    list.iter()
        .filter(|r| !r.name.contains('/'))
        .map(|r| ApiResource {
            group: group.to_string(),
            version: version.to_string(),
            kind: r.kind.clone(),
            plural: r.name.clone(),
            singular: r.singular_name.clone(),
            short_names: r.short_names.clone().unwrap_or_default(),
            namespaced: r.namespaced,
            preferred,
        })
        .collect()
}

/// Percent-encode a path segment or query value.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The served resource for an owner reference's apiVersion and kind: that
/// version, else the group's preferred one.
pub fn resource_for<'a>(served: &'a [ApiResource], owner: &OwnerKind) -> Option<&'a ApiResource> {
    let (group, version) = match owner.api_version.rsplit_once('/') {
        Some((g, v)) => (g, v),
        None => ("", owner.api_version.as_str()),
    };
    let same = |r: &&ApiResource| r.group == group && r.kind == owner.kind;
    served
        .iter()
        .filter(same)
        .find(|r| r.version == version)
        .or_else(|| served.iter().filter(same).find(|r| r.preferred))
        .or_else(|| served.iter().find(same))
}

/// The engine for a cluster: the catalog, then the definitions stored in
/// the cluster (Karta and ResourceInterface objects), then the user's
/// `--definition` files; the warnings about the cluster's definitions.
pub async fn engine(
    cluster: &Cluster,
    served: &[ApiResource],
    files: &[InputPath],
    limits: &workload_lens::Limits,
    warnings: &mut Vec<Warning>,
) -> Result<Engine, Failure> {
    let base = input::engine(&[], limits)?;
    let sources = [
        ("run.ai", "Karta", "kartas.run.ai"),
        (
            "optimization.nvidia.com",
            "ResourceInterface",
            "resourceinterfaces.optimization.nvidia.com",
        ),
    ];
    let mut objects = Vec::new();
    let mut installed = 0;
    for (group, kind, crd) in sources {
        let Some(r) = served
            .iter()
            .find(|r| r.group == group && r.kind == kind && r.preferred)
            .or_else(|| served.iter().find(|r| r.group == group && r.kind == kind))
        else {
            continue;
        };
        installed += 1;
        match cluster.list_pages(r, None, None, 500).await {
            Ok((pages, _)) => {
                for p in pages {
                    match base.read_objects(&p) {
                        Ok(items) => objects.extend(items),
                        Err(e) => warnings.push(Warning {
                            reason: "invalid".into(),
                            message: format!("the {crd} list could not be read: {e}"),
                        }),
                    }
                }
            }
            Err(ApiError::Forbidden(m)) => warnings.push(Warning {
                reason: "forbidden".into(),
                message: format!(
                    "definitions in the cluster ({crd}) are not readable, the catalog is used: {m}"
                ),
            }),
            Err(e) => warnings.push(Warning {
                reason: "unreachable".into(),
                message: format!(
                    "definitions in the cluster ({crd}) could not be listed: {}",
                    e.message()
                ),
            }),
        }
    }
    if installed == 0 {
        warnings.push(Warning {
            reason: "no_crd".into(),
            message: "no definitions in the cluster: neither kartas.run.ai nor \
                      resourceinterfaces.optimization.nvidia.com is installed; the catalog is used"
                .into(),
        });
    }
    let (mut engine, defs) = base.with_cluster_definitions(&objects);
    warnings.extend(defs.into_iter().map(Warning::from));
    for f in files {
        input::add_definition_file(&mut engine, f)?;
    }
    Ok(engine)
}

/// The objects of one namespace that own a workload's pods: the pods'
/// controllers, theirs, and so on (at most `ROUNDS` levels), fetched kind
/// by kind as the engine's `missing_owners` names them. Kinds that cannot
/// be listed are left out with a warning: their pods then count by labels.
pub async fn owners(
    cluster: &Cluster,
    served: &[ApiResource],
    engine: &Engine,
    namespace: &str,
    workload: &OwnerKind,
    pods: &[Value],
    warnings: &mut Vec<Warning>,
) -> Vec<Value> {
    const ROUNDS: usize = 6;
    let mut items: Vec<Value> = pods.to_vec();
    let mut tried: Vec<OwnerKind> = vec![workload.clone()];
    for _ in 0..ROUNDS {
        let missing = workload_lens::missing_owners(&items, &tried);
        if missing.is_empty() {
            break;
        }
        for kind in missing {
            tried.push(kind.clone());
            let Some(r) = resource_for(served, &kind) else {
                continue;
            };
            match cluster.list_pages(r, Some(namespace), None, 500).await {
                Ok((pages, _)) => {
                    for p in pages {
                        if let Ok(objs) = engine.read_objects(&p) {
                            items.extend(objs);
                        }
                    }
                }
                Err(e) => warnings.push(Warning {
                    reason: "forbidden".into(),
                    message: format!(
                        "{} in {namespace} could not be listed, so pod ownership through them is \
                         not followed: {}",
                        r.plural,
                        e.message()
                    ),
                }),
            }
        }
    }
    items.split_off(pods.len())
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

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`.
pub fn epoch_seconds(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || b[10] != b'T'
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let n = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
    let (y, mo, d, h, mi, s) = (
        n(0..4)?,
        n(5..7)?,
        n(8..10)?,
        n(11..13)?,
        n(14..16)?,
        n(17..19)?,
    );
    let mut rest = &t[19..];
    if let Some(r) = rest.strip_prefix('.') {
        rest = r.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let offset = match rest {
        "Z" | "z" => 0,
        o if o.len() == 6 => {
            let sign = if o.starts_with('-') { -1 } else { 1 };
            sign * (o.get(1..3)?.parse::<i64>().ok()? * 3600
                + o.get(4..6)?.parse::<i64>().ok()? * 60)
        }
        _ => return None,
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y2 = if mo <= 2 { y - 1 } else { y };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86400 + h * 3600 + mi * 60 + s - offset)
}

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
    fn timestamps_and_ages() {
        assert_eq!(epoch_seconds("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(epoch_seconds("2000-03-01T00:00:00Z"), Some(951_868_800));
        assert_eq!(epoch_seconds("2026-12-05T01:02:03Z"), Some(1_796_432_523));
        assert_eq!(
            epoch_seconds("2026-12-05T02:02:03+01:00"),
            Some(1_796_432_523)
        );
        assert_eq!(
            epoch_seconds("2026-12-05T01:02:03.123456Z"),
            Some(1_796_432_523)
        );
        assert_eq!(epoch_seconds("yesterday"), None);
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

    #[test]
    fn paths_and_encoding() {
        let r = ApiResource {
            group: "jobset.x-k8s.io".into(),
            version: "v1alpha2".into(),
            kind: "JobSet".into(),
            plural: "jobsets".into(),
            singular: "jobset".into(),
            short_names: vec![],
            namespaced: true,
            preferred: true,
        };
        assert_eq!(
            Cluster::path(&r, Some("a b"), Some("x")),
            "/apis/jobset.x-k8s.io/v1alpha2/namespaces/a%20b/jobsets/x"
        );
        assert_eq!(
            Cluster::path(&r, None, None),
            "/apis/jobset.x-k8s.io/v1alpha2/jobsets"
        );
        assert_eq!(encode("app in (a,b)"), "app%20in%20%28a%2Cb%29");
    }
}
