//! The cluster protocol: what to ask a Kubernetes API server, and what the
//! answers mean, as a state machine with no IO.
//!
//! A front end (the CLI over kube-rs, Python over the official
//! `kubernetes` client, Node over `@kubernetes/client-node`) starts a
//! [`ClusterSession`] for one operation, then loops: it makes every
//! [`Request`] of [`ClusterSession::requests`] (plain GETs, in any order or
//! at once), hands the [`Reply`]s back in the same order to
//! [`ClusterSession::feed`], and stops when [`ClusterSession::is_done`].
//! [`ClusterSession::finish`] gives the [`ClusterOutcome`] or the error. Every rule
//! lives here, once: discovery, the definitions stored in the cluster, which
//! resource a type token or an owner reference names, paging, the owner
//! walk (at most [`MAX_OWNER_ROUNDS`] rounds), the events a description
//! shows (at most [`MAX_EVENTS`](crate::MAX_EVENTS)), which failures are warnings
//! and which end the operation, and the error code of each HTTP failure.
//!
//! ```
//! use workload_lens::{ClusterOp, Engine, ListQuery, Reply};
//! let engine = Engine::new()?;
//! let mut session = engine.cluster_session(ClusterOp::List(ListQuery {
//!     type_: Some("jobsets".into()),
//!     namespace: Some("ml".into()),
//!     ..ListQuery::default()
//! }));
//! // The first requests are discovery's.
//! let paths: Vec<&str> = session.requests().iter().map(|r| r.path.as_str()).collect();
//! assert_eq!(paths, ["/api/v1", "/apis"]);
//! // A server that cannot be reached ends the session with `unreachable`.
//! let replies = session.requests().iter().map(|_| Reply::unreachable("connection refused")).collect();
//! let err = session.feed(replies).unwrap_err();
//! assert_eq!(err.location().request.as_deref(), Some("/api/v1"));
//! assert!(session.is_done());
//! assert_eq!(session.finish().unwrap_err().code().as_str(), "unreachable");
//! # Ok::<(), workload_lens::Error>(())
//! ```

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::api::{self, Page};
use super::events::{self, Newest, WorkloadEvent};
use super::{
    ApiResource, ClusterWarning, ListOptions, OwnerKind, OwnerStateKind, WorkloadSummary, type_name,
};
use crate::engine::Engine;
use crate::error::{Error, ErrorCode, Result};
use crate::model::Gvk;
use crate::resolved::WorkloadStatus;
use crate::source::json_bytes;

/// Rounds of the owner walk: a pod's controller, its controller, ...
/// (Pod → Job → JobSet is two; Pod → ReplicaSet → Deployment two; six
/// leaves room for deeper operators).
pub const MAX_OWNER_ROUNDS: usize = 6;

/// Objects a listing reads again because their controller was not found
/// (orphans, or objects whose owner's type may not be listed: they were
/// dropped as controlled when their page was read). Past this many, the
/// rest are named in a warning, not shown.
pub const MAX_ORPHANS: usize = 1_000;

/// Pages one list may take. A server that keeps answering with a new
/// `continue` token past this ends the operation with an `api` error
/// (a repeated token does at once).
pub const MAX_LIST_PAGES: usize = 100_000;

/// Group versions discovery asks about: a server whose `/apis` lists more
/// ends the operation with an `api` error before any of them is asked
/// (a real cluster serves tens to a few hundred; one listing more is broken
/// or hostile, and a discovery cut short would say that types it left out
/// are not served).
pub const MAX_GROUP_VERSIONS: usize = 10_000;

/// The page size when a query gives none.
pub const DEFAULT_CHUNK_SIZE: usize = 500;

/// The definition types a cluster may store: (group, kind).
/// The event reasons a diagnosis reads ([`crate::Diagnosis`]); a
/// description keeps the newest of each per object involved.
pub const DIAGNOSIS_REASONS: [&str; 4] = ["FailedScheduling", "Failed", "BackOff", "FailedCreate"];

/// Kueue's label on a Workload naming the uid of the job it admits.
const KUEUE_JOB_UID: &str = "kueue.x-k8s.io/job-uid";

const DEFINITION_TYPES: [(&str, &str); 2] = [
    ("run.ai", "Karta"),
    ("optimization.nvidia.com", "ResourceInterface"),
];

/// One GET to make: the path and query, relative to the API server
/// (`/apis/jobset.x-k8s.io/v1alpha2/namespaces/ml/jobsets?limit=500`).
/// Ask for JSON (`Accept: application/json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Request {
    /// Path and query.
    pub path: String,
}

/// The answer to a [`Request`]: the server's status and body, or no answer
/// at all. As JSON: `{"status": 200, "body": "..."}` or
/// `{"error": "connection refused"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(untagged, deny_unknown_fields)]
pub enum Reply {
    /// The server answered (any status).
    Http {
        /// The HTTP status.
        status: u16,
        /// The body, as text.
        body: String,
    },
    /// The server could not be reached (connection refused, DNS, TLS,
    /// timeout): what the client said.
    Unreachable {
        /// The client's words.
        error: String,
    },
}

impl Reply {
    /// A 200 answer.
    pub fn ok(body: impl Into<String>) -> Reply {
        Reply::Http {
            status: 200,
            body: body.into(),
        }
    }

    /// An answer with another status.
    pub fn status(status: u16, body: impl Into<String>) -> Reply {
        Reply::Http {
            status,
            body: body.into(),
        }
    }

    /// No answer.
    pub fn unreachable(error: impl Into<String>) -> Reply {
        Reply::Unreachable {
            error: error.into(),
        }
    }
}

fn default_chunk() -> usize {
    DEFAULT_CHUNK_SIZE
}

/// What `get` and `top` read: workloads of one type, or of every covered
/// type (then only the top-level ones).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListQuery {
    /// A type token (kind, plural, singular, short name, `plural.group`,
    /// `kind.version.group`); none: every type a definition covers.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// One object of the type, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The namespace; none: every namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// A label selector, applied by the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
    /// Keep only workloads with one of these statuses (case-insensitive).
    #[serde(default)]
    pub phases: Vec<String>,
    /// Every covered type, top-level workloads only (implied without a
    /// type).
    #[serde(default)]
    pub all_types: bool,
    /// Objects per list page (0: one page).
    #[serde(default = "default_chunk")]
    pub chunk_size: usize,
    /// Read the pods of the namespaces listed too (and the owners between
    /// them and the workloads), so that each row says which of its pods
    /// exist, are ready and hold GPUs ([`WorkloadSummary::live`]), and
    /// autoscaled counts are current. Default true; false lists only the
    /// workloads.
    #[serde(default = "yes")]
    pub pods: bool,
    /// The served resources, when the front end kept them from an earlier
    /// discovery: discovery is then skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served: Option<Vec<ApiResource>>,
    /// Do not read the definitions stored in the cluster (Karta and
    /// ResourceInterface objects), nor warn about them: the engine's own
    /// definitions are used as they are.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_definitions: bool,
}

fn yes() -> bool {
    true
}

impl Default for ListQuery {
    fn default() -> Self {
        ListQuery {
            type_: None,
            name: None,
            namespace: None,
            label_selector: None,
            phases: Vec::new(),
            all_types: false,
            chunk_size: DEFAULT_CHUNK_SIZE,
            pods: true,
            served: None,
            skip_definitions: false,
        }
    }
}

/// What `describe TYPE/NAME` reads: one workload, the pods of its
/// namespace, the owners their controller chains go through, then the
/// namespace's events (those of the workload, its pods and the owners
/// between them are kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeQuery {
    /// A type token, as in [`ListQuery::type_`].
    #[serde(rename = "type")]
    pub type_: String,
    /// The workload's name.
    pub name: String,
    /// Its namespace (ignored for a cluster-scoped type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Objects per list page (0: one page).
    #[serde(default = "default_chunk")]
    pub chunk_size: usize,
    /// The served resources, as in [`ListQuery::served`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served: Option<Vec<ApiResource>>,
    /// As [`ListQuery::skip_definitions`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skip_definitions: bool,
}

/// What `Cluster.engine()` reads in the bindings: the definitions stored
/// in the cluster (Karta and ResourceInterface objects).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefinitionsQuery {
    /// Objects per list page (0: one page).
    #[serde(default = "default_chunk")]
    pub chunk_size: usize,
    /// The served resources, as in [`ListQuery::served`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub served: Option<Vec<ApiResource>>,
}

impl Default for DefinitionsQuery {
    fn default() -> Self {
        DefinitionsQuery {
            chunk_size: DEFAULT_CHUNK_SIZE,
            served: None,
        }
    }
}

/// An operation of the protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub enum ClusterOp {
    /// The types the server serves.
    Discover,
    /// `get` and `top`.
    List(ListQuery),
    /// `describe TYPE/NAME`.
    Describe(DescribeQuery),
    /// The definitions stored in the cluster.
    Definitions(DefinitionsQuery),
}

/// What discovery found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Discovery {
    /// Every served resource (subresources left out), the preferred version
    /// of each group marked.
    pub served: Vec<ApiResource>,
    /// Group versions left out (their discovery failed).
    pub warnings: Vec<ClusterWarning>,
}

/// A listing: the rows of [`Engine::list_workloads`] and what was left out.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Listing {
    /// One row per workload, by namespace, then name (as kubectl orders them).
    pub workloads: Vec<WorkloadSummary>,
    /// What was left out, and why.
    pub warnings: Vec<ClusterWarning>,
    /// Types (`plural.group`) that may not be listed while others were.
    pub forbidden: Vec<String>,
    /// The types listed.
    pub types: Vec<ApiResource>,
    /// Per type listed (same order), the resourceVersion its list was read
    /// at (to watch from; empty for a type not listed).
    pub resource_versions: Vec<String>,
    /// The namespace listed (none: every namespace).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Every served resource.
    pub served: Vec<ApiResource>,
    /// The owners the listing's controller chains went through (objects of
    /// types no definition covers).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub owners: Vec<Value>,
    /// The engine the rows were resolved with (the cluster's definitions
    /// over this one's).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub engine: Engine,
    /// Owner kinds whose list failed: a chain that ends at one makes its
    /// object a workload of its own, `unreadable`.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub unreadable: Vec<OwnerKind>,
    /// How many of `warnings` the session gave (the rest are the rows'
    /// owner warnings, derived from the rows).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub(crate) session_warnings: usize,
    /// Whether the session recorded the events and related objects
    /// (a recording listing), and the lists of them the server refused.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub(crate) recorded_extras: Option<Vec<super::records::Unlisted>>,
}

/// One workload as read for `describe`: the object, the pods of its
/// namespace and their owners, and its last events.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Description {
    /// The object, as read.
    pub object: Value,
    /// The pods of its namespace, then the owners their controller chains
    /// go through: what [`Engine::resolve_in_namespace`] takes.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub items: Vec<Value>,
    /// The last events of the workload, of its pods and of the owners
    /// between them (matched by `involvedObject.uid`), newest first, at
    /// most [`MAX_EVENTS`](crate::MAX_EVENTS). Empty when the events could not be listed (a
    /// warning says why).
    pub events: Vec<WorkloadEvent>,
    /// How many more such events there were (older than those kept).
    pub events_left_out: usize,
    /// The newest event of each reason a diagnosis reads
    /// ([`DIAGNOSIS_REASONS`]), per object (the workload, its pods and the
    /// owners between), as read: what [`Description::diagnose`] takes.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub diagnosis_events: Vec<Value>,
    /// Kueue `Workload`s of the workload (listed by Kueue's
    /// `kueue.x-k8s.io/job-uid` label) and the gang schedulers' groups of
    /// its namespace ([`GANG_SCHEDULERS`](crate::GANG_SCHEDULERS)), when the
    /// server serves them.
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub related: Vec<Value>,
    /// What was left out, and why.
    pub warnings: Vec<ClusterWarning>,
    /// The resource the type token named.
    pub resource: ApiResource,
    /// Every served resource.
    pub served: Vec<ApiResource>,
    /// The engine to resolve with (the cluster's definitions over this
    /// one's).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub engine: Engine,
}

/// The definitions stored in the cluster, and the engine they make.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClusterDefinitions {
    /// The Karta and ResourceInterface objects read, as read (those not
    /// used among them too: the warnings say why).
    pub objects: Vec<Value>,
    /// What was left out, and why: definition types not installed or not
    /// readable, objects invalid or colliding.
    pub warnings: Vec<ClusterWarning>,
    /// Every served resource.
    pub served: Vec<ApiResource>,
    /// This engine with the cluster's definitions over its catalog's (its
    /// user definitions stay on top).
    #[serde(skip)]
    #[cfg_attr(feature = "schema", schemars(skip))]
    pub engine: Engine,
}

/// What an operation gives.
#[derive(Debug, Clone)]
pub enum ClusterOutcome {
    /// Of [`ClusterOp::Discover`].
    Discovery(Discovery),
    /// Of [`ClusterOp::List`].
    Listing(Box<Listing>),
    /// Of [`ClusterOp::Describe`].
    Description(Box<Description>),
    /// Of [`ClusterOp::Definitions`].
    Definitions(Box<ClusterDefinitions>),
}

impl Description {
    /// The workload resolved with the pods of its namespace: other
    /// workloads' pods left out, look-alikes in `strayPods`
    /// ([`Engine::resolve_in_namespace`]).
    pub fn resolved(&self) -> Result<crate::Resolved<'_>> {
        self.engine.resolve_in_namespace(&self.object, &self.items)
    }

    /// The gang-scheduling groups of its pods ([`Engine::gang_groups`]).
    pub fn gang(&self) -> Result<crate::GangReport> {
        self.engine
            .gang_groups_in_namespace(&self.object, &self.items)
    }

    /// Why the workload is where it is ([`Engine::diagnose`]), from its
    /// pods and owners, the events kept for it, its Kueue Workloads and the
    /// gang schedulers' groups.
    pub fn diagnose(&self) -> Result<crate::Diagnosis> {
        self.engine.diagnose(
            &self.object,
            &self.items,
            &self.diagnosis_events,
            &self.related,
        )
    }

    /// What controls the workload (its controller owner reference), as
    /// `Kind/name`; `None` for a top-level workload.
    pub fn controlled_by(&self) -> Option<String> {
        let r = super::controller_ref(&self.object)?;
        let text = |k: &str| r.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
        Some(format!(
            "{}/{}",
            text("kind")?,
            text("name").unwrap_or("<unnamed>")
        ))
    }
}

impl ClusterOutcome {
    /// The outcome as every binding returns it, as JSON: a discovery's
    /// `{served, warnings}`; a listing's `{workloads, warnings, forbidden,
    /// types, resourceVersions, namespace?, served}`; a description's
    /// `{object, resolved, gang, diagnosis, events, eventsLeftOut, warnings,
    /// resource, served}` (resolving it
    /// may fail: that error is the outcome's); the definitions'
    /// `{objects, warnings, served}`.
    pub fn to_value(&self) -> Result<Value> {
        let json = |r: serde_json::Result<Value>| {
            r.map_err(|e| Error::new(ErrorCode::Usage, format!("cannot serialize: {e}")))
        };
        match self {
            ClusterOutcome::Discovery(d) => json(serde_json::to_value(d)),
            ClusterOutcome::Listing(l) => json(serde_json::to_value(l)),
            ClusterOutcome::Definitions(d) => json(serde_json::to_value(d)),
            ClusterOutcome::Description(d) => {
                let mut v = json(serde_json::to_value(d))?;
                let resolved = json(serde_json::to_value(d.resolved()?))?;
                let gang = json(serde_json::to_value(d.gang()?))?;
                let diagnosis = json(serde_json::to_value(d.diagnose()?))?;
                if let Some(map) = v.as_object_mut() {
                    map.insert("resolved".into(), resolved);
                    map.insert("gang".into(), gang);
                    map.insert("diagnosis".into(), diagnosis);
                }
                Ok(v)
            }
        }
    }
}

/// What a list's pages are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Definition objects stored in the cluster.
    Definitions,
    /// The workloads of the listed type with this index.
    Type(usize),
    /// The pods of the described workload's namespace.
    Pods,
    /// Owners, for the owner walk.
    Owners,
    /// The described workload's namespace's events.
    Events,
    /// Objects a diagnosis reads: the workload's Kueue Workloads and
    /// gang-scheduler groups.
    Related,
}

/// A list being read page by page.
#[derive(Debug, Clone)]
struct Stream {
    resource: ApiResource,
    namespace: Option<String>,
    selector: Option<String>,
    cont: Option<String>,
    pages: usize,
    role: Role,
}

/// What a request of a session asks, structured: for answers from
/// recorded objects (a snapshot read back, [`crate::SnapshotReader::describe`]).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ask<'a> {
    /// One object, by name.
    Object {
        resource: &'a ApiResource,
        namespace: Option<&'a str>,
        name: &'a str,
    },
    /// A page of a list.
    List {
        resource: &'a ApiResource,
        namespace: Option<&'a str>,
        selector: Option<&'a str>,
        cont: Option<&'a str>,
        /// Objects per page (0: one page).
        chunk: usize,
    },
    /// Discovery (not asked of a session given the served types).
    Discovery,
}

/// What one request of the batch is for.
#[derive(Debug, Clone)]
enum Fetch {
    Core,
    Groups,
    GroupVersion {
        group: String,
        version: String,
        preferred: bool,
    },
    Page(Stream),
    Object {
        resource: ApiResource,
        namespace: Option<String>,
        name: String,
    },
    /// An object dropped as controlled whose controller was not found:
    /// read again, to be listed as a workload of its own.
    Orphan {
        resource: ApiResource,
        namespace: Option<String>,
        name: String,
    },
}

/// An object a top-level listing dropped as controlled (its controller is
/// of a covered type), remembered in case that controller is not there.
#[derive(Debug, Clone, Serialize)]
struct Dropped {
    uid: String,
    controller: String,
    type_index: usize,
    namespace: Option<String>,
    name: String,
}

/// Where the session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Discovery,
    GroupVersions,
    Definitions,
    Target,
    Pods,
    Owners,
    Events,
    Orphans,
    Done,
}

/// One operation of the cluster protocol in progress: see the module
/// documentation. Every loop it drives is bounded: discovery by
/// [`MAX_GROUP_VERSIONS`], paging by [`MAX_LIST_PAGES`] per list, the owner
/// walk by [`MAX_OWNER_ROUNDS`].
#[derive(Debug)]
pub struct ClusterSession {
    base: Engine,
    server: String,
    engine: Option<Engine>,
    op: ClusterOp,
    stage: Stage,
    batch: Vec<Fetch>,
    requests: Vec<Request>,
    error: Option<Error>,
    served: Vec<ApiResource>,
    group_versions: Vec<(String, String, bool)>,
    warnings: Vec<ClusterWarning>,
    definitions: Vec<Value>,
    definition_types: usize,
    types: Vec<ApiResource>,
    resource_versions: Vec<String>,
    forbidden: Vec<String>,
    objects: Vec<Value>,
    object: Option<Value>,
    resource: Option<ApiResource>,
    pods: Vec<Value>,
    owners: Vec<Value>,
    /// What a listing reading pods keeps of the objects it dropped: their
    /// identity, controller and `spec.replicas`, for the pods' chains.
    stubs: Vec<Value>,
    /// A listing's pods: a link of each, and its text ([`Self::keep_pods`]).
    pod_links: Vec<Value>,
    pod_texts: Vec<Box<str>>,
    tried: Vec<OwnerKind>,
    rounds: usize,
    /// What a top-level listing dropped as controlled.
    dropped: Vec<Dropped>,
    /// Kinds whose list failed: an owner of one of them may exist.
    unreadable: Vec<OwnerKind>,
    /// Bytes kept from the server's answers so far (`maxClusterBytes`).
    kept: usize,
    /// The uids whose events a description keeps.
    involved: HashSet<String>,
    /// The gang-scheduler groups the described workload's own pods name
    /// (API group, name), found once the pods and owners are read.
    gang_names: HashSet<(&'static str, String)>,
    /// The newest of those events so far.
    events: Newest,
    /// The newest event of each reason a diagnosis reads, per object.
    diagnosis_events: HashMap<(String, String), (events::Stamp, Value)>,
    /// The workload's Kueue Workloads and gang-scheduler groups.
    related: Vec<Value>,
    /// A snapshot's lines, as the pages that hold them are read
    /// ([`ClusterSession::recording`]); None: not recording.
    records: Option<Vec<String>>,
    /// The uids recorded so far: the events about them are recorded too.
    recorded_uids: HashSet<Box<str>>,
    /// The lists for describing that the server refused while recording.
    unlisted: Vec<super::records::Unlisted>,
}

impl Engine {
    /// Start one operation of the cluster protocol with this engine's
    /// definitions (the cluster's own definitions are read and put over
    /// the catalog's; this engine's user definitions stay on top).
    pub fn cluster_session(&self, op: ClusterOp) -> ClusterSession {
        ClusterSession::new(self, op)
    }
}

impl ClusterSession {
    fn new(engine: &Engine, op: ClusterOp) -> ClusterSession {
        let served = match &op {
            ClusterOp::Discover => None,
            ClusterOp::List(q) => q.served.clone(),
            ClusterOp::Describe(q) => q.served.clone(),
            ClusterOp::Definitions(q) => q.served.clone(),
        };
        let mut s = ClusterSession {
            base: engine.clone(),
            server: "the API server".into(),
            engine: None,
            op,
            stage: Stage::Discovery,
            batch: Vec::new(),
            requests: Vec::new(),
            error: None,
            served: Vec::new(),
            group_versions: Vec::new(),
            warnings: Vec::new(),
            definitions: Vec::new(),
            definition_types: 0,
            types: Vec::new(),
            resource_versions: Vec::new(),
            forbidden: Vec::new(),
            objects: Vec::new(),
            object: None,
            resource: None,
            pods: Vec::new(),
            owners: Vec::new(),
            stubs: Vec::new(),
            pod_links: Vec::new(),
            pod_texts: Vec::new(),
            tried: Vec::new(),
            rounds: 0,
            dropped: Vec::new(),
            unreadable: Vec::new(),
            kept: 0,
            involved: HashSet::new(),
            gang_names: HashSet::new(),
            events: Newest::default(),
            diagnosis_events: HashMap::new(),
            related: Vec::new(),
            records: None,
            recorded_uids: HashSet::new(),
            unlisted: Vec::new(),
        };
        if let ClusterOp::List(q) = &s.op
            && let Some(bad) = q.phases.iter().find(|p| WorkloadStatus::parse(p).is_none())
        {
            let known: Vec<&str> = WorkloadStatus::ALL.iter().map(|w| w.as_str()).collect();
            s.fail(Error::new(
                ErrorCode::Usage,
                format!(
                    "unknown status '{bad}' to keep; the statuses are {}",
                    known.join(", ")
                ),
            ));
            return s;
        }
        if let Some(served) = served {
            s.served = served;
            s.stage = Stage::GroupVersions;
            if let Err(e) = s.next_stage() {
                s.fail(e);
            }
        } else {
            s.batch = vec![Fetch::Core, Fetch::Groups];
            s.requests = vec![request("/api/v1".into()), request("/apis".into())];
        }
        s
    }

    /// Name the server in messages (its address, as the front end
    /// connects to it) instead of "the API server".
    pub fn with_server(mut self, server: impl Into<String>) -> Self {
        let server = server.into();
        if !server.is_empty() {
            self.server = server;
        }
        self
    }

    /// Record what a listing reads as a snapshot's lines
    /// ([`crate::SnapshotReader`]): each object of each page (the definitions
    /// stored in the cluster, the covered types' objects, the pods and the
    /// owners the walk lists), with the roles the listing gives it. Take
    /// them with [`ClusterSession::take_records`] after each
    /// [`ClusterSession::feed`]: they are held only until then, so a
    /// snapshot is written page by page. Only a [`ClusterOp::List`]
    /// records; other operations ignore it.
    pub fn recording(mut self) -> Self {
        if matches!(self.op, ClusterOp::List(_)) {
            self.records = Some(Vec::new());
        }
        self
    }

    /// The snapshot lines recorded since the last call (one JSON object
    /// each, without a newline).
    pub fn take_records(&mut self) -> Vec<String> {
        self.records
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// What each of [`ClusterSession::requests`] asks, in their order.
    pub(crate) fn asks(&self) -> Vec<Ask<'_>> {
        let chunk = self.chunk_size();
        self.batch
            .iter()
            .map(|f| match f {
                Fetch::Core | Fetch::Groups | Fetch::GroupVersion { .. } => Ask::Discovery,
                Fetch::Page(s) => Ask::List {
                    resource: &s.resource,
                    namespace: s.namespace.as_deref(),
                    selector: s.selector.as_deref(),
                    cont: s.cont.as_deref(),
                    chunk,
                },
                Fetch::Object {
                    resource,
                    namespace,
                    name,
                }
                | Fetch::Orphan {
                    resource,
                    namespace,
                    name,
                } => Ask::Object {
                    resource,
                    namespace: namespace.as_deref(),
                    name,
                },
            })
            .collect()
    }

    /// The requests to make now (empty when the session is done). Make
    /// them all, in any order or at once, then [`ClusterSession::feed`]
    /// their replies in this order.
    pub fn requests(&self) -> &[Request] {
        &self.requests
    }

    /// Whether the operation is over (its outcome or its error is ready).
    pub fn is_done(&self) -> bool {
        self.stage == Stage::Done
    }

    /// Hand over the replies to [`ClusterSession::requests`], in their
    /// order. A failure that ends the operation is returned here (and by
    /// [`ClusterSession::finish`]); the session is then done. Replies of
    /// another length than the requests are a usage error.
    pub fn feed(&mut self, replies: Vec<Reply>) -> Result<()> {
        if self.is_done() {
            return Err(Error::new(
                ErrorCode::Usage,
                "the cluster session is done: call finish()",
            ));
        }
        if replies.len() != self.batch.len() {
            return Err(Error::new(
                ErrorCode::Usage,
                format!(
                    "{} replies for {} requests: give one reply per request, in order",
                    replies.len(),
                    self.batch.len()
                ),
            ));
        }
        let batch = std::mem::take(&mut self.batch);
        let requests = std::mem::take(&mut self.requests);
        for ((fetch, req), reply) in batch.into_iter().zip(requests).zip(replies) {
            if let Err(e) = self.take(fetch, &req.path, reply) {
                return Err(self.fail(e));
            }
        }
        if self.batch.is_empty()
            && let Err(e) = self.next_stage()
        {
            return Err(self.fail(e));
        }
        Ok(())
    }

    /// The outcome, or the error that ended the operation. A session not
    /// done yet is a usage error.
    pub fn finish(self) -> Result<ClusterOutcome> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if !self.is_done() {
            return Err(Error::new(
                ErrorCode::Usage,
                "the cluster session is not done: make its requests and feed their replies",
            ));
        }
        let ClusterSession {
            base,
            engine,
            op,
            served,
            warnings,
            types,
            resource_versions,
            forbidden,
            objects,
            object,
            resource,
            pods,
            mut owners,
            stubs,
            pod_links,
            pod_texts,
            definitions,
            unreadable,
            events,
            diagnosis_events,
            related,
            records,
            unlisted,
            ..
        } = self;
        let engine = engine.unwrap_or(base);
        Ok(match op {
            ClusterOp::Discover => ClusterOutcome::Discovery(Discovery { served, warnings }),
            ClusterOp::List(q) => {
                let walked = top_level(&q) && q.name.is_none();
                let options = ListOptions {
                    top_level_only: top_level(&q),
                    phases: q.phases.clone(),
                    owners_complete: walked,
                    unreadable,
                };
                owners.extend(stubs);
                let pods = q.pods.then_some(super::Pods::Texts {
                    links: &pod_links,
                    texts: &pod_texts,
                });
                let workloads = engine.list_live(&objects, &owners, pods, &options);
                let mut warnings = warnings;
                let session_warnings = warnings.len();
                warnings.extend(workloads.iter().filter_map(owner_warning));
                ClusterOutcome::Listing(Box::new(Listing {
                    workloads,
                    warnings,
                    forbidden,
                    types,
                    resource_versions,
                    namespace: q.namespace,
                    served,
                    owners,
                    engine,
                    unreadable: options.unreadable,
                    session_warnings,
                    recorded_extras: records.map(|_| unlisted),
                }))
            }
            ClusterOp::Definitions(_) => {
                ClusterOutcome::Definitions(Box::new(ClusterDefinitions {
                    objects: definitions,
                    warnings,
                    served,
                    engine,
                }))
            }
            ClusterOp::Describe(_) => {
                let mut items = pods;
                items.extend(owners);
                let (events, events_left_out) = events.finish();
                // In a fixed order (by object, then reason).
                let mut kept: Vec<((String, String), Value)> = diagnosis_events
                    .into_iter()
                    .map(|(k, (_, v))| (k, v))
                    .collect();
                kept.sort_by(|a, b| a.0.cmp(&b.0));
                ClusterOutcome::Description(Box::new(Description {
                    object: object.unwrap_or(Value::Null),
                    items,
                    events,
                    events_left_out,
                    diagnosis_events: kept.into_iter().map(|(_, v)| v).collect(),
                    related,
                    warnings,
                    resource: resource.unwrap_or_else(|| empty_resource("")),
                    served,
                    engine,
                }))
            }
        })
    }

    fn fail(&mut self, e: Error) -> Error {
        self.stage = Stage::Done;
        self.batch.clear();
        self.requests.clear();
        self.error = Some(e.clone());
        e
    }

    fn engine(&self) -> &Engine {
        self.engine.as_ref().unwrap_or(&self.base)
    }

    fn push(&mut self, fetch: Fetch) {
        let path = match &fetch {
            Fetch::Core => "/api/v1".to_string(),
            Fetch::Groups => "/apis".to_string(),
            Fetch::GroupVersion { group, version, .. } => format!("/apis/{group}/{version}"),
            Fetch::Page(s) => api::list_request(
                &s.resource,
                s.namespace.as_deref(),
                s.selector.as_deref(),
                self.chunk_size(),
                s.cont.as_deref(),
            ),
            Fetch::Object {
                resource,
                namespace,
                name,
            }
            | Fetch::Orphan {
                resource,
                namespace,
                name,
            } => api::object_path(resource, namespace.as_deref(), name),
        };
        self.batch.push(fetch);
        self.requests.push(request(path));
    }

    fn chunk_size(&self) -> usize {
        match &self.op {
            ClusterOp::Discover => DEFAULT_CHUNK_SIZE,
            ClusterOp::List(q) => q.chunk_size,
            ClusterOp::Describe(q) => q.chunk_size,
            ClusterOp::Definitions(q) => q.chunk_size,
        }
    }

    fn list(&mut self, resource: ApiResource, namespace: Option<String>, role: Role) {
        let selector = match (&self.op, role) {
            (ClusterOp::List(q), Role::Type(_)) => q.label_selector.clone(),
            _ => None,
        };
        self.push(Fetch::Page(Stream {
            resource,
            namespace,
            selector,
            cont: None,
            pages: 0,
            role,
        }));
    }

    /// Take one reply.
    fn take(&mut self, fetch: Fetch, path: &str, reply: Reply) -> Result<()> {
        let (status, body) = match reply {
            Reply::Http { status, body } => (status, body),
            Reply::Unreachable { error } => {
                return Err(api::request_error(
                    &self.server,
                    None,
                    &error,
                    &what(&fetch),
                    path,
                ));
            }
        };
        if !(200..300).contains(&status) {
            return self.failed(fetch, path, status, &body);
        }
        let limits = *self.engine().limits();
        match fetch {
            Fetch::Core => {
                let doc = self.document(&body, path)?;
                let served = api::resources_of(&doc, "", "v1", true);
                self.keep(&served, path, || what(&Fetch::Core))?;
                self.served = served;
            }
            Fetch::Groups => {
                let doc = self.document(&body, path)?;
                self.group_versions = api::group_versions(&doc, MAX_GROUP_VERSIONS + 1);
                if self.group_versions.len() > MAX_GROUP_VERSIONS {
                    self.group_versions.clear();
                    return Err(Error::new(
                        ErrorCode::Api,
                        format!(
                            "the server lists more than {MAX_GROUP_VERSIONS} group versions to \
                             discover: a broken or hostile API server"
                        ),
                    )
                    .at(crate::error::Location {
                        request: Some(path.to_string()),
                        ..Default::default()
                    }));
                }
            }
            Fetch::GroupVersion {
                group,
                version,
                preferred,
            } => match crate::source::read_value(&body, &limits) {
                Ok(doc) => {
                    let served = api::resources_of(&doc, &group, &version, preferred);
                    self.keep(&served, path, || format!("discovering {group}/{version}"))?;
                    self.served.extend(served);
                }
                Err(e) => self.warnings.push(ClusterWarning {
                    reason: "api".into(),
                    object: format!("{group}/{version}"),
                    message: format!(
                        "discovery of {group}/{version} gave an unreadable answer ({}); its \
                         types are left out",
                        e.message()
                    ),
                }),
            },
            Fetch::Object {
                resource,
                namespace,
                name,
            } => {
                let object = crate::source::read_value(&body, &limits)
                    .map_err(|e| e.context(&format!("the {} read", resource.kind)))?;
                self.keep(std::slice::from_ref(&object), path, || {
                    object_what(&resource, namespace.as_ref(), &name)
                })?;
                self.object = Some(object);
                self.resource = Some(resource);
            }
            Fetch::Orphan {
                resource,
                namespace,
                name,
            } => {
                let object = crate::source::read_value(&body, &limits)
                    .map_err(|e| e.context(&format!("the {} read", resource.kind)))?;
                self.keep(std::slice::from_ref(&object), path, || {
                    object_what(&resource, namespace.as_ref(), &name)
                })?;
                self.objects.push(object);
            }
            Fetch::Page(stream) => self.page(stream, path, &body)?,
        }
        Ok(())
    }

    /// Charge what is about to be kept from an answer to `maxClusterBytes`
    /// (each value's size as compact JSON): past the limit, a `limit` error
    /// at the request, saying what was being read.
    fn keep<T: Serialize>(
        &mut self,
        values: &[T],
        path: &str,
        doing: impl FnOnce() -> String,
    ) -> Result<()> {
        let mut doing = Some(doing);
        for v in values {
            self.charge(json_bytes(v), path, || {
                doing.take().map(|d| d()).unwrap_or_default()
            })?;
        }
        Ok(())
    }

    /// Charge `bytes` kept to `maxClusterBytes`: past the limit, a `limit`
    /// error at the request, saying what was being read.
    fn charge(&mut self, bytes: usize, path: &str, doing: impl FnOnce() -> String) -> Result<()> {
        let limit = self.engine().limits().max_cluster_bytes;
        self.kept = self.kept.saturating_add(bytes);
        if self.kept <= limit {
            return Ok(());
        }
        Err(Error::limit_error(
            "maxClusterBytes",
            format!(
                "the operation keeps more than the limit maxClusterBytes ({limit} bytes as \
                 compact JSON) of the server's answers ({}); a namespace, a label selector or \
                 one type asks for less",
                doing()
            ),
        )
        .at(crate::error::Location {
            request: Some(path.to_string()),
            ..Default::default()
        }))
    }

    /// Keep a listing's pods as they are needed later: a link of each (its
    /// identity and controller reference, for the chains) and its compact
    /// JSON text without `metadata.managedFields` (the server's bookkeeping
    /// of who wrote which field, read by no rule), read again for the one
    /// row it goes to. A large cluster's pods take a fraction of the memory
    /// they take as values. Charged to `maxClusterBytes` as kept.
    fn keep_pods(&mut self, pods: &[&Value], path: &str, doing: impl Fn() -> String) -> Result<()> {
        for &pod in pods {
            let link = stub(pod);
            let text: Box<str> = serde_json::to_string(&without_managed_fields(pod))
                .unwrap_or_default()
                .into_boxed_str();
            self.charge(json_bytes(&link) + text.len(), path, &doing)?;
            self.pod_links.push(link);
            self.pod_texts.push(text);
        }
        Ok(())
    }

    fn document(&self, body: &str, path: &str) -> Result<Value> {
        crate::source::read_value(body, self.engine().limits()).map_err(|e| {
            Error::new(
                ErrorCode::Api,
                format!(
                    "the server's discovery answer is unreadable: {}",
                    e.message()
                ),
            )
            .at(crate::error::Location {
                request: Some(path.to_string()),
                ..Default::default()
            })
        })
    }

    /// One page of a list: its items to their role, the next page asked.
    fn page(&mut self, stream: Stream, path: &str, body: &str) -> Result<()> {
        let limits = *self.engine().limits();
        let page: Page = match api::read_page(body, &limits) {
            Ok(p) => p,
            Err(e) if stream.role == Role::Definitions => {
                self.warnings.push(ClusterWarning {
                    reason: "invalid".into(),
                    object: type_name(&stream.resource),
                    message: format!(
                        "the list of {} could not be read, the catalog is used: {e}",
                        type_name(&stream.resource)
                    ),
                });
                return Ok(());
            }
            Err(e) => {
                let mut e = e.context(&format!(
                    "a page of the list of {}",
                    type_name(&stream.resource)
                ));
                if e.code() == ErrorCode::Limit {
                    // Pages are what the limits see: smaller ones may fit.
                    e = e.suffix(&format!(
                        "; a smaller chunk size (now {}) makes pages smaller",
                        self.chunk_size()
                    ));
                }
                return Err(e.at(crate::error::Location {
                    request: Some(path.to_string()),
                    ..Default::default()
                }));
            }
        };
        let mut items = page.items;
        let reading_pods = matches!(&self.op, ClusterOp::List(q) if q.pods);
        if let Some(records) = self.records.as_mut() {
            use super::records::RecordRole as R;
            let listed_pods = reading_pods && is_pods(&stream.resource);
            let mut uid_bytes = 0usize;
            for o in &items {
                let roles: &[R] = match stream.role {
                    Role::Definitions => &[R::Definition],
                    Role::Type(_) if listed_pods && is_pod(o) => &[R::Object, R::Pod],
                    Role::Type(_) => &[R::Object],
                    Role::Pods => &[R::Pod],
                    Role::Owners => &[R::Owner],
                    // Only the events about an object recorded (they come
                    // after every list of the listing).
                    Role::Events => match events::involved_uid(o) {
                        Some(uid) if self.recorded_uids.contains(uid) => &[R::Event],
                        _ => &[],
                    },
                    Role::Related => &[R::Related],
                };
                if roles.is_empty() {
                    continue;
                }
                if roles.iter().any(|r| r.listed())
                    && let Some(uid) = meta_text(o, "uid")
                    && self.recorded_uids.insert(uid.into())
                {
                    uid_bytes += uid.len();
                }
                records.push(super::records::record_line(
                    roles,
                    &without_managed_fields(o),
                ));
            }
            // The uids are kept to the end: charged as kept.
            self.charge(uid_bytes, path, || list_what(&stream))?;
        }
        if matches!(self.op, ClusterOp::List(_))
            && matches!(stream.role, Role::Events | Role::Related)
        {
            // A recording listing's events and related objects are only
            // recorded, never kept.
            return self.next_page(stream, page.cont);
        }
        if let Role::Type(_) = stream.role
            && reading_pods
            && is_pods(&stream.resource)
        {
            // The listing's pods come with the Pod type's list.
            let pods: Vec<&Value> = items.iter().filter(|o| is_pod(o)).collect();
            self.keep_pods(&pods, path, || list_what(&stream))?;
        }
        if let Role::Type(i) = stream.role
            && matches!(&self.op, ClusterOp::List(q) if top_level(q))
        {
            // Top-level only: what a covered object controls is left out
            // of the listing anyway; not kept (a large cluster's pods), only
            // remembered in case its controller is not there.
            let engine = self.engine.as_ref().unwrap_or(&self.base);
            let mut dropped = Vec::new();
            let mut stubs = Vec::new();
            items.retain(|o| {
                if !engine.controlled_by_covered(o) {
                    return true;
                }
                if reading_pods && !is_pod(o) {
                    stubs.push(stub(o));
                }
                if let (Some(uid), Some(controller)) = (meta_text(o, "uid"), controller_uid(o)) {
                    dropped.push(Dropped {
                        uid: uid.to_string(),
                        controller: controller.to_string(),
                        type_index: i,
                        namespace: meta_text(o, "namespace").map(str::to_string),
                        name: meta_text(o, "name").unwrap_or_default().to_string(),
                    });
                }
                false
            });
            self.keep(&dropped, path, || list_what(&stream))?;
            self.keep(&stubs, path, || list_what(&stream))?;
            self.dropped.extend(dropped);
            self.stubs.extend(stubs);
        }
        // A namespace's gang-scheduler groups: only the workload's are kept
        // (owned by it or an owner between, or named by its pods).
        if stream.role == Role::Related && stream.resource.group != "kueue.x-k8s.io" {
            let named: HashSet<(&str, &str)> = self
                .gang_names
                .iter()
                .map(|(g, n)| (*g, n.as_str()))
                .collect();
            items.retain(|o| crate::diagnose::is_workloads_group(o, &self.involved, &named));
        }
        // Events are filtered as they come, and only the newest few kept; a
        // listing's pods are charged as they are kept (`keep_pods`).
        let listing_pods = stream.role == Role::Pods && matches!(self.op, ClusterOp::List(_));
        let mut diagnosis_events = Vec::new();
        if stream.role != Role::Events && !listing_pods {
            self.keep(&items, path, || list_what(&stream))?;
        }
        match stream.role {
            Role::Definitions => self.definitions.extend(items),
            Role::Type(i) => {
                self.objects.extend(items);
                if let Some(rv) = self.resource_versions.get_mut(i) {
                    *rv = page.resource_version;
                }
            }
            Role::Pods if matches!(self.op, ClusterOp::List(_)) => {
                let pods: Vec<&Value> = items.iter().collect();
                self.keep_pods(&pods, path, || list_what(&stream))?;
            }
            Role::Pods => self.pods.extend(items),
            Role::Owners => self.owners.extend(items),
            Role::Events => {
                for e in items {
                    if let Some((event, stamp)) = events::event_of(&e, &self.involved) {
                        // Kept for a diagnosis: the newest of each reason it
                        // reads, per object (at most 4 per object involved).
                        if DIAGNOSIS_REASONS.contains(&event.reason.as_str()) {
                            let key = (event.object.clone(), event.reason.clone());
                            let newer = self
                                .diagnosis_events
                                .get(&key)
                                .is_none_or(|(old, _)| *old <= stamp);
                            if newer {
                                diagnosis_events.push(e.clone());
                                self.diagnosis_events.insert(key, (stamp, e));
                            }
                        }
                        self.events.offer(event, stamp);
                    }
                }
            }
            Role::Related => self.related.extend(items),
        }
        // What a diagnosis keeps of the events is charged as it is kept.
        self.keep(&diagnosis_events, path, || list_what(&stream))?;
        self.next_page(stream, page.cont)
    }

    /// A page is read: ask for the next, if the server gave a continue
    /// token (bounded by [`MAX_LIST_PAGES`]; a repeated token is an error).
    fn next_page(&mut self, mut stream: Stream, cont: Option<String>) -> Result<()> {
        stream.pages += 1;
        match cont {
            None => Ok(()),
            Some(c) if Some(&c) == stream.cont.as_ref() => Err(Error::new(
                ErrorCode::Api,
                format!(
                    "the server repeated the continue token of the list of {}",
                    type_name(&stream.resource)
                ),
            )),
            Some(_) if stream.pages >= MAX_LIST_PAGES => Err(Error::new(
                ErrorCode::Api,
                format!(
                    "the list of {} goes on past {MAX_LIST_PAGES} pages; give a larger chunk size",
                    type_name(&stream.resource)
                ),
            )),
            Some(c) => {
                stream.cont = Some(c);
                self.push(Fetch::Page(stream));
                Ok(())
            }
        }
    }

    /// A request the server answered with a failure status: a warning, or
    /// the operation's error.
    fn failed(&mut self, fetch: Fetch, path: &str, status: u16, body: &str) -> Result<()> {
        let detail = api::status_message(body);
        let code = api::code_of_status(status);
        let fatal = || api::request_error(&self.server, Some(status), &detail, &what(&fetch), path);
        if code == ErrorCode::Unauthorized {
            return Err(fatal());
        }
        match &fetch {
            Fetch::Core | Fetch::Groups => Err(fatal()),
            Fetch::GroupVersion { group, version, .. } => {
                self.warnings.push(ClusterWarning {
                    reason: warning_reason(code).into(),
                    object: format!("{group}/{version}"),
                    message: format!(
                        "discovery of {group}/{version} failed ({detail}, HTTP {status}); its \
                         types are left out"
                    ),
                });
                Ok(())
            }
            Fetch::Object {
                resource,
                namespace,
                name,
            } => {
                if code == ErrorCode::NotFound {
                    let place = match namespace {
                        Some(ns) if resource.namespaced => format!(" in namespace {ns}"),
                        _ => String::new(),
                    };
                    return Err(Error::new(
                        ErrorCode::NotFound,
                        format!("{} '{name}' not found{place}", resource.kind),
                    )
                    .at(crate::error::Location {
                        request: Some(path.to_string()),
                        ..Default::default()
                    })
                    .with_status(status));
                }
                Err(fatal())
            }
            Fetch::Orphan {
                resource,
                namespace,
                name,
            } => {
                // Gone since its page was read: nothing to show.
                if code != ErrorCode::NotFound {
                    self.warnings.push(ClusterWarning {
                        reason: warning_reason(code).into(),
                        object: type_name(resource),
                        message: format!(
                            "{} {name}{} could not be read again ({detail}, HTTP {status}); its \
                             controller was not found, so it is not shown",
                            resource.kind,
                            namespace
                                .as_ref()
                                .map(|n| format!(" in namespace {n}"))
                                .unwrap_or_default()
                        ),
                    });
                }
                Ok(())
            }
            Fetch::Page(stream) => {
                let name = type_name(&stream.resource);
                let place = match &stream.namespace {
                    Some(ns) if stream.resource.namespaced => format!(" in namespace {ns}"),
                    _ => String::new(),
                };
                let warning = |message: String| ClusterWarning {
                    reason: warning_reason(code).into(),
                    object: name.clone(),
                    message,
                };
                if self.records.is_some() {
                    // A recording listing's: the snapshot says so, and a
                    // description read back from it gets the same answer.
                    self.unlisted.push(super::records::Unlisted {
                        type_: name.clone(),
                        namespace: stream.namespace.clone(),
                        status,
                        message: detail.clone(),
                    });
                }
                if matches!(self.op, ClusterOp::List(_))
                    && matches!(stream.role, Role::Events | Role::Related)
                {
                    // Only for describing: no warning of the listing.
                    return Ok(());
                }
                match stream.role {
                    Role::Definitions => {
                        self.warnings.push(warning(format!(
                            "definitions in the cluster ({name}) could not be listed, the \
                             catalog is used: {detail} (HTTP {status})"
                        )));
                        Ok(())
                    }
                    Role::Type(i) => {
                        let several = self.types.len() > 1;
                        if !several {
                            return Err(match code {
                                ErrorCode::Forbidden => Error::new(
                                    code,
                                    format!(
                                        "not allowed to list {name}{place} ({detail}); ask for \
                                         'list' on {name}"
                                    ),
                                )
                                .with_status(status)
                                .at(crate::error::Location {
                                    request: Some(path.to_string()),
                                    ..Default::default()
                                }),
                                _ => fatal(),
                            });
                        }
                        if let Some(rv) = self.resource_versions.get_mut(i) {
                            rv.clear();
                        }
                        self.unreadable.push(owner_kind(&stream.resource));
                        let message = match code {
                            ErrorCode::Forbidden => {
                                self.forbidden.push(name.clone());
                                format!(
                                    "{name} not listed: forbidden{place} ({detail}); ask for \
                                     'list' on {name} to see them"
                                )
                            }
                            ErrorCode::NotFound => format!(
                                "{name} not listed: the server no longer serves it ({detail})"
                            ),
                            _ => format!("{name} not listed: {detail} (HTTP {status})"),
                        };
                        self.warnings.push(warning(message));
                        Ok(())
                    }
                    Role::Pods => {
                        self.warnings.push(warning(format!(
                            "the pods{place} could not be listed ({detail}, HTTP {status}): no \
                             live pods are shown"
                        )));
                        Ok(())
                    }
                    Role::Events => {
                        self.warnings.push(warning(format!(
                            "the events{place} could not be listed ({detail}, HTTP {status}): \
                             none are shown"
                        )));
                        Ok(())
                    }
                    Role::Related => {
                        self.warnings.push(warning(format!(
                            "{name}{place} could not be listed ({detail}, HTTP {status}): a \
                             diagnosis cannot tell whether they hold the workload back"
                        )));
                        Ok(())
                    }
                    Role::Owners => {
                        self.unreadable.push(owner_kind(&stream.resource));
                        self.warnings.push(warning(format!(
                            "{name}{place} could not be listed ({detail}, HTTP {status}), so \
                             controller chains through them are not followed"
                        )));
                        Ok(())
                    }
                }
            }
        }
    }

    /// The batch is answered: on to the next stage with requests to make.
    fn next_stage(&mut self) -> Result<()> {
        while self.batch.is_empty() && self.stage != Stage::Done {
            match self.stage {
                Stage::Discovery => {
                    self.stage = Stage::GroupVersions;
                    for (group, version, preferred) in std::mem::take(&mut self.group_versions) {
                        self.push(Fetch::GroupVersion {
                            group,
                            version,
                            preferred,
                        });
                    }
                }
                Stage::GroupVersions => {
                    if matches!(self.op, ClusterOp::Discover) {
                        self.stage = Stage::Done;
                        continue;
                    }
                    self.stage = Stage::Definitions;
                    if self.skips_definitions() {
                        continue;
                    }
                    for (group, kind) in DEFINITION_TYPES {
                        let found = self
                            .served
                            .iter()
                            .find(|r| r.group == group && r.kind == kind && r.preferred)
                            .or_else(|| {
                                self.served
                                    .iter()
                                    .find(|r| r.group == group && r.kind == kind)
                            })
                            .cloned();
                        if let Some(r) = found {
                            self.definition_types += 1;
                            self.list(r, None, Role::Definitions);
                        }
                    }
                }
                Stage::Definitions => {
                    self.use_definitions();
                    if matches!(self.op, ClusterOp::Definitions(_)) {
                        self.stage = Stage::Done;
                        continue;
                    }
                    self.stage = Stage::Target;
                    self.target()?;
                }
                Stage::Target => {
                    self.stage = Stage::Pods;
                    self.after_target()?;
                }
                Stage::Pods => self.stage = Stage::Owners,
                Stage::Owners => {
                    // A round is answered: the next, if any kind is missing.
                    if !self.owner_round() {
                        self.stage = Stage::Events;
                        self.list_events();
                    }
                }
                Stage::Events => {
                    self.stage = Stage::Orphans;
                    self.orphans();
                }
                Stage::Orphans => self.stage = Stage::Done,
                Stage::Done => {}
            }
        }
        Ok(())
    }

    /// The query asks not to read the cluster's definitions.
    fn skips_definitions(&self) -> bool {
        match &self.op {
            ClusterOp::List(q) => q.skip_definitions,
            ClusterOp::Describe(q) => q.skip_definitions,
            ClusterOp::Discover | ClusterOp::Definitions(_) => false,
        }
    }

    fn use_definitions(&mut self) {
        if self.definition_types == 0 && !self.skips_definitions() {
            self.warnings.push(ClusterWarning {
                reason: "no_crd".into(),
                object: "kartas.run.ai".into(),
                message: "no definitions in the cluster: neither kartas.run.ai nor \
                          resourceinterfaces.optimization.nvidia.com is installed; the catalog \
                          is used"
                    .into(),
            });
        }
        let objects = std::mem::take(&mut self.definitions);
        let (engine, warnings) = self.base.with_cluster_definitions(&objects);
        self.warnings.extend(warnings);
        self.engine = Some(engine);
        if matches!(self.op, ClusterOp::Definitions(_)) {
            self.definitions = objects;
        }
    }

    /// The workloads asked for: the types' lists, one object, or the
    /// described workload.
    fn target(&mut self) -> Result<()> {
        let op = self.op.clone();
        match op {
            ClusterOp::Discover | ClusterOp::Definitions(_) => Ok(()),
            ClusterOp::List(q) => {
                self.types = match &q.type_ {
                    Some(t) => vec![self.engine().find_type(t, &self.served)?],
                    None => self.engine().covered_types(&self.served),
                };
                let versions: Vec<ClusterWarning> = self
                    .types
                    .iter()
                    .filter_map(|r| self.engine().version_warning(r))
                    .collect();
                self.warnings.extend(versions);
                self.resource_versions = vec![String::new(); self.types.len()];
                if let Some(name) = &q.name {
                    if q.type_.is_none() {
                        return Err(Error::new(
                            ErrorCode::Usage,
                            "a name needs a type (TYPE/NAME)",
                        ));
                    }
                    let resource = self.types[0].clone();
                    self.push(Fetch::Object {
                        resource,
                        namespace: q.namespace.clone(),
                        name: name.clone(),
                    });
                    return Ok(());
                }
                for (i, r) in self.types.clone().into_iter().enumerate() {
                    self.list(r, q.namespace.clone(), Role::Type(i));
                }
                Ok(())
            }
            ClusterOp::Describe(q) => {
                let resource = self.engine().find_type(&q.type_, &self.served)?;
                if let Some(w) = self.engine().version_warning(&resource) {
                    self.warnings.push(w);
                }
                self.push(Fetch::Object {
                    resource,
                    namespace: q.namespace.clone(),
                    name: q.name.clone(),
                });
                Ok(())
            }
        }
    }

    /// After the target: a listing by name keeps its object; every type
    /// forbidden is an error; a description lists its namespace's pods.
    fn after_target(&mut self) -> Result<()> {
        let op = self.op.clone();
        match op {
            ClusterOp::Discover | ClusterOp::Definitions(_) => Ok(()),
            ClusterOp::List(q) => {
                if q.name.is_some() {
                    self.objects.extend(self.object.take());
                }
                if !self.forbidden.is_empty()
                    && self.objects.is_empty()
                    && self.forbidden.len() == self.types.len()
                {
                    return Err(Error::new(
                        ErrorCode::Forbidden,
                        format!(
                            "forbidden: no covered type may be listed ({})",
                            self.forbidden.join(", ")
                        ),
                    ));
                }
                if top_level(&q) || q.pods {
                    self.tried = self.types.iter().map(owner_kind).collect();
                }
                if q.pods && !self.types.iter().any(is_pods) {
                    let namespace = self
                        .objects
                        .first()
                        .filter(|_| q.name.is_some())
                        .and_then(|o| meta_text(o, "namespace"))
                        .map(str::to_string)
                        .or_else(|| q.namespace.clone());
                    if let Some(pods) = self.pods_resource() {
                        self.list(pods, namespace, Role::Pods);
                    }
                }
                Ok(())
            }
            ClusterOp::Describe(_) => {
                let namespace = self.object_namespace();
                match self.pods_resource() {
                    Some(pods) => self.list(pods, namespace, Role::Pods),
                    None => self.warnings.push(ClusterWarning {
                        reason: "no_crd".into(),
                        object: "pods".into(),
                        message: "the server serves no pods: no live pods are shown".into(),
                    }),
                }
                if let Some(r) = &self.resource {
                    let api_version = self
                        .object
                        .as_ref()
                        .and_then(|o| o.get("apiVersion"))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| r.api_version());
                    self.tried = vec![OwnerKind {
                        api_version,
                        kind: r.kind.clone(),
                    }];
                }
                Ok(())
            }
        }
    }

    /// The served resource of pods (core v1).
    fn pods_resource(&self) -> Option<ApiResource> {
        self.served.iter().find(|r| is_pods(r)).cloned()
    }

    /// After the owner walk of a description: list the namespace's events,
    /// to keep those of the workload, its pods and the owners between them.
    fn list_events(&mut self) {
        if let ClusterOp::List(q) = &self.op {
            if self.records.is_some() {
                let namespace = q.namespace.clone();
                self.record_extras(namespace);
            }
            return;
        }
        if !matches!(self.op, ClusterOp::Describe(_)) {
            return;
        }
        let Some(object) = self.object.as_ref() else {
            return;
        };
        self.involved = events::involved_uids(object, &self.pods, &self.owners);
        let uid = super::uid(object)
            .filter(|u| !u.is_empty())
            .map(str::to_string);
        let namespace = self.object_namespace();
        let served = self
            .served
            .iter()
            .find(|r| r.group.is_empty() && r.kind == "Event")
            .cloned();
        match served {
            Some(r) => self.list(r, namespace.clone(), Role::Events),
            None => self.warnings.push(ClusterWarning {
                reason: "no_crd".into(),
                object: "events".into(),
                message: "the server serves no events: none are shown".into(),
            }),
        }
        // The workload's Kueue Workloads, by Kueue's label, when served (at
        // its preferred version).
        let kueue = self
            .served
            .iter()
            .filter(|r| r.group == "kueue.x-k8s.io" && r.kind == "Workload")
            .max_by_key(|r| r.preferred)
            .cloned();
        if let (Some(r), Some(uid)) = (kueue, uid) {
            self.push(Fetch::Page(Stream {
                resource: r,
                namespace: namespace.clone(),
                selector: Some(format!("{KUEUE_JOB_UID}={uid}")),
                cont: None,
                pages: 0,
                role: Role::Related,
            }));
        }
        // The gang schedulers' groups of the namespace, when served (at
        // their preferred versions), for a scheduler whose group the
        // workload's pods name, or any while it has no pods: the workload's
        // are kept as they come (owned by it or an owner between, or named
        // by its pods), which no selector can ask.
        self.gang_names = self.find_gang_names();
        let schedulers: HashSet<&str> = self.gang_names.iter().map(|(g, _)| *g).collect();
        let pods = self
            .pods
            .iter()
            .filter(|p| super::uid(p).is_some_and(|u| self.involved.contains(u)))
            .count();
        for g in crate::GANG_SCHEDULERS {
            if pods > 0 && !schedulers.contains(g.group) {
                continue;
            }
            let served = self
                .served
                .iter()
                .filter(|r| r.group == g.group && r.kind == g.kind)
                .max_by_key(|r| r.preferred)
                .cloned();
            if let Some(r) = served {
                self.push(Fetch::Page(Stream {
                    resource: r,
                    namespace: namespace.clone(),
                    selector: None,
                    cont: None,
                    pages: 0,
                    role: Role::Related,
                }));
            }
        }
    }

    /// A recording listing, after its owner walk: list the events (those
    /// about an object recorded are recorded), the Kueue Workloads and the
    /// gang schedulers' groups, of `namespace` or every namespace, for
    /// `describe --snapshot` and `why --snapshot` to read what
    /// [`ClusterOp::Describe`] reads live.
    fn record_extras(&mut self, namespace: Option<String>) {
        let served = |group: &str, kind: &str| {
            self.served
                .iter()
                .filter(|r| r.group == group && r.kind == kind)
                .max_by_key(|r| r.preferred)
                .cloned()
        };
        let mut lists: Vec<(ApiResource, Role)> = Vec::new();
        lists.extend(served("", "Event").map(|r| (r, Role::Events)));
        lists.extend(served("kueue.x-k8s.io", "Workload").map(|r| (r, Role::Related)));
        for g in crate::GANG_SCHEDULERS {
            lists.extend(served(g.group, g.kind).map(|r| (r, Role::Related)));
        }
        for (r, role) in lists {
            self.push(Fetch::Page(Stream {
                resource: r,
                namespace: namespace.clone(),
                selector: None,
                cont: None,
                pages: 0,
                role,
            }));
        }
    }

    /// The gang-scheduler groups the described workload's own pods name:
    /// (API group, name).
    fn find_gang_names(&self) -> HashSet<(&'static str, String)> {
        self.pods
            .iter()
            .filter(|p| super::uid(p).is_some_and(|u| self.involved.contains(u)))
            .flat_map(|p| {
                crate::diagnose::groups_named_by(p)
                    .map(|(g, n)| (g, n.to_string()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    fn object_namespace(&self) -> Option<String> {
        let from_object = self
            .object
            .as_ref()
            .and_then(|o| o.pointer("/metadata/namespace"))
            .and_then(Value::as_str)
            .map(str::to_string);
        match &self.op {
            ClusterOp::Describe(q) => from_object.or_else(|| q.namespace.clone()),
            ClusterOp::List(q) => q.namespace.clone(),
            ClusterOp::Discover | ClusterOp::Definitions(_) => None,
        }
    }

    /// After the owner walk of a top-level listing: the dropped objects whose
    /// controller is nowhere (not listed, not an owner, not dropped itself)
    /// are read again, to be listed as workloads of their own (at most
    /// [`MAX_ORPHANS`]; the rest are named in a warning).
    fn orphans(&mut self) {
        let walk = matches!(&self.op, ClusterOp::List(q) if top_level(q) && q.name.is_none());
        if !walk || self.dropped.is_empty() {
            return;
        }
        let known: HashSet<&str> = self
            .objects
            .iter()
            .chain(&self.owners)
            .filter_map(|o| meta_text(o, "uid"))
            .chain(self.dropped.iter().map(|d| d.uid.as_str()))
            .collect();
        let lost: Vec<Dropped> = self
            .dropped
            .iter()
            .filter(|d| !known.contains(d.controller.as_str()))
            .cloned()
            .collect();
        if lost.len() > MAX_ORPHANS {
            self.warnings.push(ClusterWarning {
                reason: "orphaned".into(),
                object: String::new(),
                message: format!(
                    "{} objects have a controller that was not found; the first {MAX_ORPHANS} \
                     are shown as workloads of their own, the rest are not",
                    lost.len()
                ),
            });
        }
        for d in lost.into_iter().take(MAX_ORPHANS) {
            let Some(resource) = self.types.get(d.type_index).cloned() else {
                continue;
            };
            self.push(Fetch::Orphan {
                resource,
                namespace: d.namespace,
                name: d.name,
            });
        }
    }

    /// Start one round of the owner walk: list every owner kind the items'
    /// controller chains name and no list gave yet. False when there is
    /// none (or the rounds are used up): the walk is over.
    fn owner_round(&mut self) -> bool {
        let walk = match &self.op {
            ClusterOp::List(q) => (top_level(q) && q.name.is_none()) || q.pods,
            ClusterOp::Describe(_) => !self.pods.is_empty(),
            ClusterOp::Discover | ClusterOp::Definitions(_) => false,
        };
        if !walk || self.rounds >= MAX_OWNER_ROUNDS {
            return false;
        }
        self.rounds += 1;
        let listing = matches!(self.op, ClusterOp::List(_));
        let items: Vec<&Value> = match &self.op {
            ClusterOp::Describe(_) => self.pods.iter().chain(&self.owners).collect(),
            _ => self
                .objects
                .iter()
                .chain(&self.owners)
                .chain(&self.stubs)
                .chain(&self.pod_links)
                .collect(),
        };
        let missing: Vec<OwnerKind> = super::missing_owners(items, &self.tried)
            .into_iter()
            // In a listing, a listed type's objects are all there already.
            .filter(|k| {
                !listing
                    || !self.types.iter().any(|t| {
                        t.kind == k.kind
                            && t.group == Gvk::from_api_version(&k.api_version, &k.kind).group
                    })
            })
            .collect();
        let namespace = self.object_namespace();
        let mut listed: HashSet<(String, String)> = HashSet::new();
        for kind in missing {
            self.tried.push(kind.clone());
            let Some(r) = api::resource_for(&self.served, &kind.api_version, &kind.kind).cloned()
            else {
                continue;
            };
            if listed.insert((r.group.clone(), r.kind.clone())) {
                self.list(r, namespace.clone(), Role::Owners);
            }
        }
        !self.batch.is_empty()
    }
}

/// A non-empty string of an object's metadata.
fn meta_text<'v>(object: &'v Value, key: &str) -> Option<&'v str> {
    super::meta_str(object, key).filter(|s| !s.is_empty())
}

/// The uid the controller owner reference of an object names.
fn controller_uid(object: &Value) -> Option<&str> {
    super::controller(object)
        .map(|(_, _, uid)| uid)
        .filter(|s| !s.is_empty())
}

/// Is this the core group's Pod resource?
fn is_pods(r: &ApiResource) -> bool {
    r.group.is_empty() && r.kind == "Pod"
}

/// Is this object a Pod?
pub(crate) fn is_pod(o: &Value) -> bool {
    o.get("kind").and_then(Value::as_str) == Some("Pod")
        && o.get("apiVersion").and_then(Value::as_str) == Some("v1")
}

/// A pod as a listing keeps it: without `metadata.managedFields`, the
/// server's bookkeeping of who wrote which field (often the largest part of
/// a pod, and read by no rule).
pub(crate) fn without_managed_fields(o: &Value) -> Value {
    let mut o = o.clone();
    if let Some(Value::Object(m)) = o.get_mut("metadata") {
        m.remove("managedFields");
    }
    o
}

/// What a listing keeps of an object it drops: what a pod's controller
/// chain and the live count of an autoscaled instance read of it.
pub(crate) fn stub(o: &Value) -> Value {
    let meta = o.get("metadata");
    let pick = |k: &str| meta.and_then(|m| m.get(k)).cloned().unwrap_or(Value::Null);
    let mut m = serde_json::Map::new();
    for k in ["name", "namespace", "uid"] {
        let v = pick(k);
        if !v.is_null() {
            m.insert(k.into(), v);
        }
    }
    if let Some(r) = super::controller_ref(o) {
        m.insert("ownerReferences".into(), Value::Array(vec![r.clone()]));
    }
    let mut out = serde_json::Map::new();
    for k in ["apiVersion", "kind"] {
        if let Some(v) = o.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    out.insert("metadata".into(), Value::Object(m));
    if let Some(n) = o.pointer("/spec/replicas").filter(|v| v.is_i64()) {
        out.insert("spec".into(), serde_json::json!({ "replicas": n }));
    }
    Value::Object(out)
}

fn request(path: String) -> Request {
    Request { path }
}

fn top_level(q: &ListQuery) -> bool {
    q.type_.is_none() || q.all_types
}

/// The warning of a row whose controller was not found: it is shown as a
/// workload of its own, and what it holds is said, so a total that counts
/// it can be accounted for.
pub(crate) fn owner_warning(row: &WorkloadSummary) -> Option<ClusterWarning> {
    let o = row.owner.as_ref()?;
    let place = row
        .namespace
        .as_ref()
        .map(|n| format!(" in namespace {n}"))
        .unwrap_or_default();
    let holds = match row.gpus {
        1 => "its 1 GPU".to_string(),
        n => format!("its {n} GPUs"),
    };
    let (reason, message) = match o.state {
        OwnerStateKind::Orphaned => (
            "orphaned",
            format!(
                "{} {}{place}: its controller {} {} (uid {}) does not exist; shown as a workload \
                 of its own, with {holds}",
                row.kind, row.name, o.kind, o.name, o.uid
            ),
        ),
        OwnerStateKind::Unreadable => (
            "owner_unreadable",
            format!(
                "{} {}{place} is controlled by {} {}, whose type you may not list; shown as a \
                 workload of its own, with {holds}",
                row.kind, row.name, o.kind, o.name
            ),
        ),
    };
    Some(ClusterWarning {
        reason: reason.into(),
        object: format!("{}/{}", row.kind, row.name),
        message,
    })
}

fn owner_kind(r: &ApiResource) -> OwnerKind {
    OwnerKind {
        api_version: r.api_version(),
        kind: r.kind.clone(),
    }
}

fn warning_reason(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::Forbidden => "forbidden",
        ErrorCode::NotFound => "no_crd",
        _ => "api",
    }
}

fn what(fetch: &Fetch) -> String {
    match fetch {
        Fetch::Core | Fetch::Groups => "discovering the API".into(),
        Fetch::GroupVersion { group, version, .. } => format!("discovering {group}/{version}"),
        Fetch::Page(s) => list_what(s),
        Fetch::Object {
            resource,
            namespace,
            name,
        }
        | Fetch::Orphan {
            resource,
            namespace,
            name,
        } => object_what(resource, namespace.as_ref(), name),
    }
}

fn list_what(s: &Stream) -> String {
    let place = match &s.namespace {
        Some(ns) if s.resource.namespaced => format!(" in namespace {ns}"),
        _ => String::new(),
    };
    format!("listing {}{place}", type_name(&s.resource))
}

fn object_what(resource: &ApiResource, namespace: Option<&String>, name: &str) -> String {
    let place = match namespace {
        Some(ns) if resource.namespaced => format!(" in namespace {ns}"),
        _ => String::new(),
    };
    format!("getting {} {name}{place}", type_name(resource))
}

fn empty_resource(kind: &str) -> ApiResource {
    ApiResource {
        group: String::new(),
        version: String::new(),
        kind: kind.to_string(),
        plural: String::new(),
        singular: String::new(),
        short_names: Vec::new(),
        namespaced: false,
        preferred: false,
    }
}
