//! The `workload-lens` command as a library (`run`), so that the binary and
//! the Python package's `workload-lens` command are the same program.
//!
//! `workload-lens`: resolve Kubernetes AI workloads through Workload Map
//! definitions (the bundled catalog plus your own), from files or from a
//! live cluster (`get`, `describe TYPE/NAME`, `top`; the `cluster` feature),
//! with or without their pods; update them through their definitions;
//! validate definitions, list them, and print the JSON Schemas of the
//! outputs. All file, stdin and cluster reading happens here; the engine is
//! pure.

#![forbid(unsafe_code)]

#[cfg(feature = "cluster")]
mod cluster;
mod definitions;
mod describe;
mod failure;
mod input;
mod output;
mod update;
mod validate;
mod why;

use clap::{ArgGroup, CommandFactory, Parser, Subcommand};
use workload_lens::Limits;

use failure::{EXIT_CODES_HELP, EXIT_OK, Failure, report};
use input::InputPath;
pub use output::GetOutput;
use output::{Format, SortKey, parse_sort_key};
use update::{Action, UpdateFormat};

#[derive(Debug, Parser)]
#[command(
    name = "workload-lens",
    version,
    about = "Resolve Kubernetes AI workloads through Workload Map definitions",
    long_about = "Resolve Kubernetes AI workloads through Workload Map definitions.\n\n\
        describe, update and validate read objects (e.g. `kubectl get jobset NAME -o yaml`) and \
        definitions from files or stdin, offline; get, describe TYPE/NAME and top read the \
        cluster of the current kubeconfig context. The definition of an object is chosen by \
        its apiVersion/kind from the bundled catalog, the definitions stored in the cluster \
        (live) and any --definition files.",
    after_help = EXIT_CODES_HELP,
    propagate_version = true
)]
struct Cli {
    /// JSON/YAML file overriding engine limits (camelCase fields of
    /// workload_lens::Limits, e.g. `maxSteps: 100000`; missing fields keep
    /// their default)
    #[arg(long, value_name = "FILE", global = true)]
    limits: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Resolve workloads from a file or stdin (`-`) and describe them
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Resolve workloads from a file or stdin (`-`) and describe them: \
            component tree, status and requested resources.\n\n\
            The input may hold one object, several YAML documents, a `kind: List` \
            (as `kubectl get ... -o yaml` prints for several objects) or a JSON/YAML array; \
            every object a definition covers is described. Objects no definition covers \
            (a Service in `kubectl get all`) are skipped and listed on stderr; the exit code \
            is 0 when at least one object was described (--strict: the first one fails the \
            run, exit 4).\n\nWith --pods (the output of `kubectl get pods -o \
            yaml`), one object is described live: ready pods and nodes per instance, a row \
            per pod, pods that belong nowhere (with why, as warnings), and the gang groups \
            the pods form.\n\n\
            Example: kubectl get jobset llama -o yaml | workload-lens describe -"
    )]
    Describe(DescribeArgs),
    /// List workloads in the cluster: phase, pods and GPUs
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "List the workloads of a type (or of every type a definition covers) in \
            the cluster of the current kubeconfig context: NAMESPACE (with -A), NAME, PHASE \
            (the matched statuses), PODS (desired), GPUS (requested by the desired pods) and \
            AGE, newest first (--sort-by FIELD sorts them otherwise).\n\n\
            TYPE is a kind, plural, singular or short name (case-insensitive), or \
            kind.version.group when it is ambiguous; TYPE/NAME (or TYPE NAME) gets one, and \
            TYPE NAME NAME... or TYPE/NAME TYPE/NAME... several (a name not found is an error \
            line on stderr, the others are printed, exit 6). \
            Without TYPE (or with --all-types), every covered type is listed, and an object is \
            left out when an object of a covered type controls it (a JobSet's Jobs are not \
            listed beside it).\n\n\
            Definitions stored in the cluster (Karta and ResourceInterface objects) override \
            the catalog; --definition files override both. Warnings (a type that may not be \
            listed, a definition in the cluster that is invalid) go to stderr after the \
            output.\n\n\
            Example: workload-lens get jobsets -A"
    )]
    Get(GetArgs),
    /// GPU and pod requests in the cluster, by namespace and by type
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Add up the GPUs and pods of the workloads in the cluster, by namespace \
            and by type: every type a definition covers (top-level workloads only), or one \
            TYPE.\n\n\
            PODS and GPUS are what the active workloads declare (their desired pods, through \
            their definitions; an autoscaled instance counts what its autoscaler runs now). A \
            workload that is Suspended, Suspending, Completed or Failed is inactive and \
            declares nothing, whatever its type: INACTIVE counts them and INACTIVE-GPUS what \
            they would declare. LIVE-PODS and HELD-GPUS are the pods that exist and have not \
            finished (whatever their workload's status) and the GPUs they request; \
            PENDING-GPUS are those of pods not scheduled yet."
    )]
    Top(TopArgs),
    /// Why a workload is not running (or degraded, or suspended): ranked findings
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Diagnose one workload: why it is pending, degraded, suspended or not             progressing, from what the cluster wrote. The first line names the workload,             its status and the first finding; then every finding, most important first             (what blocks it, then warnings, then information), each with its code, a             sentence, what to do when that is clear, and the evidence: the object, the             field or event, and when.\n\n            The findings: not-admitted (Kueue), suspended (and by whom), create-failed             (a controller cannot create pods: a ResourceQuota), scheduling-gated,             pod-group-pending (a Volcano, KAI or scheduler-plugins PodGroup, a Grove PodGang not             scheduled, in the scheduler's words), unschedulable (with the scheduler's message), gang-short, image-pull,             init-failed, crash-loop (with the last termination: OOMKilled, exit code),             pod-failed, failing-condition (the conditions behind Failed or Degraded),             operator-behind (observedGeneration), earlier-attempt (pods of an earlier             attempt still terminating), look-alike (pods of other workloads).\n\n            TYPE/NAME reads the workload, the pods of its namespace and their owners, the             events of those objects, its Kueue Workloads and the namespace's gang-scheduler             groups from the cluster. A file is diagnosed with --pods, --events and --related             (Kueue Workloads, PodGroups, PodGangs) as given.\n\n            Example: workload-lens why jobset/llama -n team-a"
    )]
    Why(WhyArgs),
    /// Update a workload through its definition (values, suspend, resume)
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Update a workload through its definition: write pod templates, pod \
            specs, pod metadata or fragments (--values FILE; each value replaces what is \
            there, or with --merge is merged into it), or apply the definition's \
            suspend or resume actions (--suspend, --resume). The input must hold one object; \
            it is not modified. The output keeps the object's key order.\n\n\
            Prints the updated object (YAML, or JSON with -o json), or with -o patch the \
            RFC 6902 JSON Patch from the input object, on one line:\n  \
            kubectl patch jobset llama --type=json -p \"$(kubectl get jobset llama -o yaml | \
            workload-lens update - --suspend -o patch)\"",
        group(ArgGroup::new("action").required(true).args(["values", "suspend", "resume"]))
    )]
    Update(UpdateArgs),
    /// Validate definition files
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Validate definition files: every rule of the Workload Map format, \
            every jq expression, with line and column of each finding.\n\n\
            Exits 0 when every definition is valid (warnings are allowed), 3 otherwise."
    )]
    Validate(ValidateArgs),
    /// List the known definitions, or show one
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "List the known definitions (the bundled catalog plus any --definition \
            files) as a table, or print them in full with -o json|yaml.\n\n\
            With NAME (a definition name, or a kind such as JobSet), print that one \
            definition as YAML (or JSON with -o json); exit 4 if there is none."
    )]
    Definitions(DefinitionsArgs),
    /// Serve workloads, components, pods and GPUs as Prometheus metrics
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Watch the cluster of the current kubeconfig context (or, in a pod, its \
            service account's) and serve what every covered workload is as Prometheus \
            metrics on /metrics, with /healthz and /readyz.\n\n\
            Every covered type, the pods and the owner kinds between them are watched (a \
            list, then a watch with bookmarks; a failed watch lists again). A workload is \
            resolved again when it, one of its pods or an owner between them changes, once \
            the changes pause for --debounce-ms. Series: docs/metrics.md; deployment and \
            the DCGM recording rules: deploy/.\n\n\
            /readyz answers 200 once every watch has listed and none is down. When a watch \
            stays down for --stale-after seconds, the workload series are withheld (the \
            exporter's own series say why) until it lists again.\n\n\
            Example: workload-lens serve --listen 127.0.0.1:9180 -n ml-team"
    )]
    Serve(ServeArgs),
    /// Write the cluster's workloads, pods, owners and definitions to a file
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Write what a listing of the cluster reads to FILE, to answer from \
            later or elsewhere: every object of every covered type, the pods, the owner \
            objects between them, and the definitions stored in the cluster, with what was \
            left out and why. Gzip-compressed JSON Lines: a header (format version, cluster \
            name, capture time), one line per object, and an end line; the format is in \
            docs/fleet.md.\n\n\
            Every namespace by default (-n NS for one). Written page by page as the lists \
            are read, to FILE.partial, renamed to FILE at the end: a failed run leaves no \
            file.\n\n\
            Read it back with `get --snapshot FILE` and `top --snapshot FILE`, or with the \
            Python package's workload_lens.fleet.\n\n\
            Example: workload-lens snapshot -o prod-eu.jsonl.gz --cluster-name prod-eu"
    )]
    Snapshot(SnapshotArgs),
    /// Print a shell completion script (bash, zsh or fish)
    #[command(
        long_about = "Print the completion script of SHELL on stdout: subcommands, options \
            and their values.\n\n\
            bash:  source <(workload-lens completion bash)\n\
            zsh:   workload-lens completion zsh > \"${fpath[1]}/_workload-lens\"\n\
            fish:  workload-lens completion fish > ~/.config/fish/completions/workload-lens.fish"
    )]
    Completion(CompletionArgs),
    /// Print the JSON Schema of the resolved structure (or of errors)
    #[command(
        after_help = EXIT_CODES_HELP,
        long_about = "Print the JSON Schema (draft 2020-12) of the resolved structure that \
            `describe -o json` prints, as pretty JSON; with --error, the schema of the \
            engine's error value instead; with --diagnosis, that of `why -o json`."
    )]
    Schema(SchemaArgs),
}

// The arguments of each command. Their comments are plain comments: a doc
// comment on an argument struct would become the command's help, which the
// variant's doc comment and `long_about` give.

// `describe`: files (or stdin), or TYPE/NAME from the cluster.
#[derive(Debug, clap::Args)]
struct DescribeArgs {
    /// The object(s) to describe: a YAML/JSON file, `-` for stdin, or
    /// TYPE/NAME (or TYPE NAME) of a workload in the cluster
    #[arg(value_name = "FILE|-|TYPE/NAME")]
    file: String,
    /// NAME, when the first argument is a TYPE
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// A definition file (YAML/JSON, one or more definitions) that adds
    /// to or overrides the catalog (and the cluster's); repeatable,
    /// later files win
    #[arg(long = "definition", short = 'd', value_name = "FILE")]
    definitions: Vec<String>,
    /// Output format: human (a tree and a table), json or yaml (the
    /// resolved structure)
    #[arg(long, short = 'o', value_enum, default_value = "human")]
    output: Format,
    /// The workload's pods (a List, several documents, a JSON/YAML array
    /// or one Pod; e.g. `kubectl get pods -l ... -o yaml`), or `-` for
    /// stdin: describe the one object live. -o json|yaml then prints
    /// {resolved, gang}
    #[arg(long, value_name = "FILE|-")]
    pods: Option<String>,
    /// Live (--pods or TYPE/NAME): at most N pod rows per instance,
    /// unhealthy (not ready) pods first
    #[arg(long, value_name = "N")]
    pod_limit: Option<usize>,
    /// Live (--pods or TYPE/NAME): at most N child components per
    /// component, those with unhealthy or missing pods first
    #[arg(long, value_name = "N")]
    component_limit: Option<usize>,
    /// Fail on the first object no definition covers (exit 4) instead
    /// of skipping it
    #[arg(long)]
    strict: bool,
    /// TYPE/NAME: the namespace [default: the context's; with
    /// --snapshot, the one it holds, else default]
    #[arg(long, short = 'n', value_name = "NS")]
    namespace: Option<String>,
    /// TYPE/NAME: read it from a snapshot file (`workload-lens snapshot`),
    /// as the cluster answered when the snapshot was taken
    #[arg(long, value_name = "FILE")]
    snapshot: Option<String>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

// `why`: a file with what is known of it, or TYPE/NAME from the cluster.
#[derive(Debug, clap::Args)]
struct WhyArgs {
    /// The workload: a YAML/JSON file (one object), `-` for stdin, or
    /// TYPE/NAME (or TYPE NAME) of a workload in the cluster
    #[arg(value_name = "FILE|-|TYPE/NAME")]
    file: String,
    /// NAME, when the first argument is a TYPE
    #[arg(value_name = "NAME")]
    name: Option<String>,
    /// A definition file that adds to or overrides the catalog (and the
    /// cluster's); repeatable, later files win
    #[arg(long = "definition", short = 'd', value_name = "FILE")]
    definitions: Vec<String>,
    /// Output format: human, json or yaml (the diagnosis:
    /// `workload-lens schema --diagnosis`)
    #[arg(long, short = 'o', value_enum, default_value = "human")]
    output: Format,
    /// File mode: the pods of the workload's namespace and their owners
    /// (e.g. `kubectl get pods,jobs -o yaml`), or `-` for stdin
    #[arg(long, value_name = "FILE|-")]
    pods: Option<String>,
    /// File mode: events (e.g. `kubectl get events -o yaml`), or `-`
    #[arg(long, value_name = "FILE|-")]
    events: Option<String>,
    /// File mode: related objects, Kueue Workloads and gang schedulers'
    /// PodGroups or PodGangs (e.g. `kubectl get workloads.kueue.x-k8s.io -o
    /// yaml`), or `-`
    #[arg(long, value_name = "FILE|-")]
    related: Option<String>,
    /// TYPE/NAME: the namespace [default: the context's; with
    /// --snapshot, the one it holds, else default]
    #[arg(long, short = 'n', value_name = "NS")]
    namespace: Option<String>,
    /// TYPE/NAME: read it from a snapshot file (`workload-lens snapshot`),
    /// as the cluster answered when the snapshot was taken
    #[arg(long, value_name = "FILE")]
    snapshot: Option<String>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

// `get`: workloads in the cluster.
#[derive(Debug, clap::Args)]
struct GetArgs {
    /// TYPE, TYPE NAME..., TYPE/NAME..., or nothing for every covered type
    #[arg(value_name = "TYPE[/NAME]")]
    target: Option<String>,
    /// NAMEs, when the first argument is a TYPE; more TYPE/NAMEs when it
    /// is a TYPE/NAME
    #[arg(value_name = "NAME")]
    names: Vec<String>,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Keep only workloads with this matched status (Running, Failed,
    /// Pending, ...; case-insensitive); repeatable
    #[arg(long = "phase", value_name = "STATUS")]
    phases: Vec<String>,
    /// Every type a definition covers, top-level workloads only
    #[arg(long, conflicts_with = "target")]
    all_types: bool,
    /// Output format: human (a table), wide (plus the definition and its
    /// origin), name (kind.group/name per row), json or yaml ({items,
    /// count}; one object for TYPE/NAME; with --watch, one
    /// {type, object} event per line or document)
    #[arg(long, short = 'o', value_enum, default_value = "human")]
    output: GetOutput,
    /// Sort the rows by FIELD: name, namespace, kind, type, phase, pods,
    /// gpus, created (oldest first), age (newest first), or the JSONPaths
    /// {.metadata.name}, {.metadata.namespace},
    /// {.metadata.creationTimestamp} [default: newest first]
    #[arg(long, value_name = "FIELD", value_parser = parse_sort_key)]
    sort_by: Option<SortKey>,
    /// Print the table without its header
    #[arg(long)]
    no_headers: bool,
    /// After the list, print a row whenever a workload's phase or GPUs
    /// change (until interrupted)
    #[arg(long, short = 'w')]
    watch: bool,
    /// Read the workloads from a snapshot file (`workload-lens snapshot`),
    /// not from the cluster; -n and --phase narrow it
    #[arg(long, value_name = "FILE")]
    snapshot: Option<String>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

// `top`: requests in the cluster.
#[derive(Debug, clap::Args)]
struct TopArgs {
    /// One TYPE instead of every covered type
    #[arg(value_name = "TYPE")]
    target: Option<String>,
    #[command(flatten)]
    scope: ScopeArgs,
    /// Add up only workloads with this matched status (Running, Failed,
    /// Pending, ...; case-insensitive); repeatable
    #[arg(long = "phase", value_name = "STATUS")]
    phases: Vec<String>,
    /// Output format: human (two tables), json or yaml
    #[arg(long, short = 'o', value_enum, default_value = "human")]
    output: Format,
    /// Print the tables without their headers
    #[arg(long)]
    no_headers: bool,
    /// Add up the workloads of a snapshot file (`workload-lens snapshot`),
    /// not of the cluster
    #[arg(long, value_name = "FILE")]
    snapshot: Option<String>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

// `snapshot`: one cluster's state to a file.
#[derive(Debug, clap::Args)]
struct SnapshotArgs {
    /// The file to write (gzip JSON Lines; by custom NAME.jsonl.gz)
    #[arg(long, short = 'o', value_name = "FILE")]
    output: String,
    /// The cluster's name in the snapshot [default: the kubeconfig
    /// context, else the server's address]
    #[arg(long, value_name = "NAME")]
    cluster_name: Option<String>,
    /// Only this namespace [default: every namespace]
    #[arg(long, short = 'n', value_name = "NS")]
    namespace: Option<String>,
    /// Only objects of the covered types with these labels (e.g.
    /// `team=ml,tier!=dev`)
    #[arg(long, short = 'l', value_name = "SELECTOR")]
    selector: Option<String>,
    /// Objects per list request
    #[arg(long, value_name = "N", default_value = "500")]
    chunk_size: usize,
    /// A definition file that adds to or overrides the catalog and the
    /// cluster's definitions; repeatable
    #[arg(long = "definition", short = 'd', value_name = "FILE")]
    definitions: Vec<String>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

// `serve`: the exporter.
#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// The address to serve on
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:9180")]
    listen: String,
    /// Watch only these namespaces (repeatable, or comma-separated)
    /// [default: every namespace]
    #[arg(long, short = 'n', value_name = "NS", value_delimiter = ',')]
    namespace: Vec<String>,
    /// Report only workloads with these labels (e.g. `team=ml,tier!=dev`)
    #[arg(long, short = 'l', value_name = "SELECTOR")]
    selector: Option<String>,
    /// The optional series families to serve (comma-separated; `none` for
    /// none); the workload and exporter families are always served
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_value = "components,pods,gangs"
    )]
    families: Vec<String>,
    /// Resolve again once changes pause this long (milliseconds)
    #[arg(long, value_name = "MS", default_value = "250")]
    debounce_ms: u64,
    /// Withhold the workload series when a watch has been down this long
    /// (seconds)
    #[arg(long, value_name = "SECONDS", default_value = "120")]
    stale_after: u64,
    /// The most objects (workloads, owners and pods) held; those past it
    /// are refused and counted
    #[arg(long, value_name = "N", default_value = "2000000")]
    max_objects: usize,
    /// A definition file that adds to or overrides the catalog and the
    /// cluster's definitions; repeatable
    #[arg(long = "definition", short = 'd', value_name = "FILE")]
    definitions: Vec<String>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

// `update`: one object through its definition.
#[derive(Debug, clap::Args)]
struct UpdateArgs {
    /// The object to update: a YAML/JSON file, or `-` for stdin
    #[arg(value_name = "FILE|-")]
    file: String,
    /// A YAML/JSON file of values to write: `components: {<component>:
    /// {podTemplateSpecs|podSpecs|podMetadata|fragments: {<instance id>: ...}}}`
    /// (`""` is the instance of a single-instance component)
    #[arg(long, value_name = "FILE|-")]
    values: Option<String>,
    /// Merge each value into what is there (a JSON merge patch: maps merge
    /// key by key, null removes a key, lists of named items such as
    /// containers merge by name) instead of replacing it; e.g. a template
    /// with one container's name and image changes only that image
    #[arg(long, conflicts_with_all = ["suspend", "resume"])]
    merge: bool,
    /// Apply the definition's suspend actions
    #[arg(long)]
    suspend: bool,
    /// Apply the definition's resume actions
    #[arg(long)]
    resume: bool,
    /// A definition file that adds to or overrides the catalog; repeatable
    #[arg(long = "definition", short = 'd', value_name = "FILE")]
    definitions: Vec<String>,
    /// Output format: yaml or json (the updated object), or patch (the
    /// RFC 6902 patch)
    #[arg(long, short = 'o', value_enum, default_value = "yaml")]
    output: UpdateFormat,
}

// `validate`: definition files.
#[derive(Debug, clap::Args)]
struct ValidateArgs {
    /// Definition file(s) (YAML/JSON, several documents or a List
    /// allowed), or `-` for stdin
    #[arg(value_name = "FILE|-", required = true)]
    files: Vec<String>,
    /// Output format: human, json or yaml
    #[arg(long, short = 'o', value_enum, default_value = "human")]
    output: Format,
}

// `definitions`: the known definitions.
#[derive(Debug, clap::Args)]
struct DefinitionsArgs {
    /// A definition name (or kind) to print in full
    name: Option<String>,
    /// A definition file that adds to or overrides the catalog; repeatable
    #[arg(long = "definition", short = 'd', value_name = "FILE")]
    definitions: Vec<String>,
    /// Output format: human (table), json or yaml [default: human for
    /// the list, yaml for one definition]
    #[arg(long, short = 'o', value_enum)]
    output: Option<Format>,
}

// `completion`: a shell's completion script.
#[derive(Debug, clap::Args)]
struct CompletionArgs {
    /// The shell
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

// `schema`: the JSON Schemas.
#[derive(Debug, clap::Args)]
struct SchemaArgs {
    /// Print the schema of the error value
    #[arg(long, conflicts_with = "diagnosis")]
    error: bool,
    /// Print the schema of a diagnosis (`why -o json`)
    #[arg(long)]
    diagnosis: bool,
}

/// Where the cluster is.
#[derive(Debug, Clone, clap::Args)]
struct ClusterArgs {
    /// The kubeconfig file [default: $KUBECONFIG, ~/.kube/config, or the
    /// in-cluster service account]
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<String>,
    /// The kubeconfig context [default: the current context]
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// Give up on connecting, or on a request, after this many seconds
    #[arg(long, value_name = "SECONDS", default_value = "30")]
    request_timeout: u64,
    /// Do not read the definitions stored in the cluster (Karta and
    /// ResourceInterface objects), nor warn about them: the catalog and
    /// --definition files only
    #[arg(long)]
    no_cluster_definitions: bool,
}

/// Which workloads `get` and `top` read.
#[derive(Debug, Clone, clap::Args)]
struct ScopeArgs {
    /// The namespace [default: the context's]
    #[arg(long, short = 'n', value_name = "NS")]
    namespace: Option<String>,
    /// Every namespace
    #[arg(long, short = 'A', conflicts_with = "namespace")]
    all_namespaces: bool,
    /// Only objects with these labels (e.g. `team=ml,tier!=dev`)
    #[arg(long, short = 'l', value_name = "SELECTOR")]
    selector: Option<String>,
    /// Objects per list request
    #[arg(long, value_name = "N", default_value = "500")]
    chunk_size: usize,
    /// A definition file that adds to or overrides the catalog and the
    /// cluster's definitions; repeatable
    #[arg(long = "definition", short = 'd', value_name = "FILE")]
    definitions: Vec<String>,
    /// Print where the time went (connecting, discovery, list requests,
    /// reading the JSON, resolving) on stderr
    #[arg(long)]
    timings: bool,
}

/// Is the argument of `describe` a workload in the cluster (TYPE/NAME)
/// rather than a file? `-`, a path that exists and a name ending in
/// .yaml, .yml or .json are files; TYPE/NAME (one slash) and TYPE NAME are
/// the cluster's.
fn is_cluster_target(arg: &str, name: Option<&str>) -> bool {
    if name.is_some() {
        return true;
    }
    if arg == "-" || std::path::Path::new(arg).exists() {
        return false;
    }
    let lower = arg.to_lowercase();
    if [".yaml", ".yml", ".json"]
        .iter()
        .any(|e| lower.ends_with(e))
    {
        return false;
    }
    arg.matches('/').count() == 1 && !arg.starts_with('/') && !arg.starts_with('.')
}

#[cfg(feature = "cluster")]
fn connect_options(c: &ClusterArgs) -> cluster::ConnectOptions {
    cluster::ConnectOptions {
        kubeconfig: c.kubeconfig.clone(),
        context: c.context.clone(),
        timeout: Some(std::time::Duration::from_secs(c.request_timeout.max(1))),
    }
}

#[cfg(feature = "cluster")]
fn scope(
    target: Option<String>,
    names: Vec<String>,
    s: ScopeArgs,
    c: &ClusterArgs,
) -> cluster::get::Scope {
    cluster::get::Scope {
        target,
        names,
        namespace: s.namespace,
        all_namespaces: s.all_namespaces,
        selector: s.selector,
        phases: Vec::new(),
        all_types: false,
        chunk_size: s.chunk_size,
        definitions: paths(&s.definitions),
        connect: connect_options(c),
        timings: s.timings,
        skip_definitions: c.no_cluster_definitions,
        snapshot: None,
    }
}

/// Print a cluster command's output, then its warnings.
#[cfg(feature = "cluster")]
fn print_with_warnings(text: &str, warnings: &[cluster::Warning]) -> Result<u8, Failure> {
    output::print(text)?;
    cluster::print_warnings(warnings);
    Ok(EXIT_OK)
}

#[cfg(not(feature = "cluster"))]
fn no_cluster() -> Failure {
    Failure::usage(
        "this build of workload-lens has no cluster support (the `cluster` cargo feature); \
         pipe `kubectl get ... -o yaml` into `workload-lens describe -` instead",
    )
}

fn paths(v: &[String]) -> Vec<InputPath> {
    v.iter().cloned().map(InputPath).collect()
}

/// Load the limits, then run the command.
fn execute(cli: Cli) -> Result<u8, Failure> {
    let limits = input::load_limits(cli.limits.map(InputPath).as_ref())?;
    match cli.command {
        Command::Describe(args) => describe_command(args, &limits),
        #[cfg(feature = "cluster")]
        Command::Get(args) => get_command(args, &limits),
        #[cfg(feature = "cluster")]
        Command::Top(args) => top_command(args, &limits),
        #[cfg(not(feature = "cluster"))]
        Command::Get(_) | Command::Top(_) => Err(no_cluster()),
        Command::Why(args) => why_command(args, &limits),
        #[cfg(feature = "cluster")]
        Command::Serve(args) => serve_command(args, &limits),
        #[cfg(not(feature = "cluster"))]
        Command::Serve(_) => Err(no_cluster()),
        #[cfg(feature = "cluster")]
        Command::Snapshot(args) => snapshot_command(args, &limits),
        #[cfg(not(feature = "cluster"))]
        Command::Snapshot(_) => Err(no_cluster()),
        Command::Update(args) => update_command(args, &limits),
        Command::Validate(args) => validate_command(args, &limits),
        Command::Definitions(args) => definitions_command(args, &limits),
        Command::Completion(args) => completion_command(&args),
        Command::Schema(args) => schema_command(&args),
    }
}

/// `describe`: TYPE/NAME from the cluster, or the objects of a file.
fn describe_command(args: DescribeArgs, limits: &Limits) -> Result<u8, Failure> {
    let DescribeArgs {
        file,
        name,
        definitions,
        output,
        pods,
        pod_limit,
        component_limit,
        strict,
        namespace,
        snapshot,
        cluster,
    } = args;
    let view = describe::ViewOptions {
        pod_limit,
        component_limit,
    };
    if snapshot.is_some() && !is_cluster_target(&file, name.as_deref()) {
        return Err(Failure::usage(format!(
            "--snapshot describes TYPE/NAME (e.g. jobset/llama) as the snapshot holds it, not \
             the file '{file}'"
        )));
    }
    if is_cluster_target(&file, name.as_deref()) {
        if pods.is_some() {
            return Err(Failure::usage(
                "--pods is for a file; TYPE/NAME reads the pods from the cluster",
            ));
        }
        #[cfg(feature = "cluster")]
        {
            let sc = cluster::get::Scope {
                target: Some(file),
                names: name.into_iter().collect(),
                namespace,
                definitions: paths(&definitions),
                connect: connect_options(&cluster),
                skip_definitions: cluster.no_cluster_definitions,
                snapshot,
                ..cluster::get::Scope::default()
            };
            let (text, warnings) = cluster::get::describe(&sc, view, output, limits)?;
            return print_with_warnings(&text, &warnings);
        }
        #[cfg(not(feature = "cluster"))]
        {
            let _ = (namespace, cluster, snapshot);
            return Err(no_cluster());
        }
    }
    if (pod_limit.is_some() || component_limit.is_some()) && pods.is_none() {
        return Err(Failure::usage(
            "--pod-limit and --component-limit need --pods FILE (or TYPE/NAME from the cluster)",
        ));
    }
    let _ = (&namespace, &cluster, &snapshot);
    let options = describe::Options {
        pods: pods.map(InputPath),
        view,
        strict,
    };
    let text = describe::run(
        &InputPath(file),
        &paths(&definitions),
        &options,
        output,
        limits,
    )?;
    output::print(&text)?;
    Ok(EXIT_OK)
}

/// `why`: the diagnosis of TYPE/NAME from the cluster, or of a file.
fn why_command(args: WhyArgs, limits: &Limits) -> Result<u8, Failure> {
    let WhyArgs {
        file,
        name,
        definitions,
        output,
        pods,
        events,
        related,
        namespace,
        snapshot,
        cluster,
    } = args;
    if snapshot.is_some() && !is_cluster_target(&file, name.as_deref()) {
        return Err(Failure::usage(format!(
            "--snapshot diagnoses TYPE/NAME (e.g. jobset/llama) as the snapshot holds it, not \
             the file '{file}'"
        )));
    }
    if is_cluster_target(&file, name.as_deref()) {
        if pods.is_some() || events.is_some() || related.is_some() {
            return Err(Failure::usage(
                "--pods, --events and --related are for a file; TYPE/NAME reads them from the cluster",
            ));
        }
        #[cfg(feature = "cluster")]
        {
            let sc = cluster::get::Scope {
                target: Some(file),
                names: name.into_iter().collect(),
                namespace,
                definitions: paths(&definitions),
                connect: connect_options(&cluster),
                skip_definitions: cluster.no_cluster_definitions,
                snapshot,
                ..cluster::get::Scope::default()
            };
            let (text, warnings) = cluster::get::why(&sc, output, limits)?;
            return print_with_warnings(&text, &warnings);
        }
        #[cfg(not(feature = "cluster"))]
        {
            let _ = (namespace, cluster, snapshot);
            return Err(no_cluster());
        }
    }
    let _ = (&namespace, &cluster, &snapshot);
    let inputs = why::FileInputs {
        file: InputPath(file),
        pods: pods.map(InputPath),
        events: events.map(InputPath),
        related: related.map(InputPath),
    };
    let text = why::run_file(&inputs, &paths(&definitions), output, limits)?;
    output::print(&text)?;
    Ok(EXIT_OK)
}

/// `get`: list (or watch) workloads in the cluster.
#[cfg(feature = "cluster")]
fn get_command(args: GetArgs, limits: &Limits) -> Result<u8, Failure> {
    let GetArgs {
        target,
        names,
        scope: s,
        phases,
        all_types,
        output,
        sort_by,
        no_headers,
        watch,
        snapshot,
        cluster: c,
    } = args;
    let mut sc = scope(target, names, s, &c);
    sc.phases = phases;
    sc.all_types = all_types;
    sc.snapshot = snapshot;
    let view = cluster::get::View {
        format: output,
        sort_by,
        no_headers,
        watch,
        at: None,
    };
    let got = cluster::get::get(&sc, &view, limits)?;
    output::print(&got.text)?;
    for e in &got.not_found {
        failure::error_line(e);
    }
    cluster::print_warnings(&got.warnings);
    Ok(if got.not_found.is_empty() {
        EXIT_OK
    } else {
        failure::EXIT_NOT_FOUND
    })
}

/// `top`: the requests of the cluster's workloads.
#[cfg(feature = "cluster")]
fn top_command(args: TopArgs, limits: &Limits) -> Result<u8, Failure> {
    let TopArgs {
        target,
        scope: s,
        phases,
        output,
        no_headers,
        snapshot,
        cluster: c,
    } = args;
    let mut sc = scope(target, Vec::new(), s, &c);
    sc.phases = phases;
    sc.snapshot = snapshot;
    let (text, warnings) = cluster::get::top(&sc, output, no_headers, limits)?;
    print_with_warnings(&text, &warnings)
}

/// `snapshot`: the cluster's state to a file.
#[cfg(feature = "cluster")]
fn snapshot_command(args: SnapshotArgs, limits: &Limits) -> Result<u8, Failure> {
    let scope = cluster::snapshot::SnapshotOptions {
        namespace: args.namespace,
        selector: args.selector,
        chunk_size: args.chunk_size,
        definitions: paths(&args.definitions),
        connect: connect_options(&args.cluster),
        skip_definitions: args.cluster.no_cluster_definitions,
    };
    let w = cluster::snapshot::snapshot(
        &scope,
        std::path::Path::new(&args.output),
        args.cluster_name.as_deref(),
        limits,
    )?;
    eprintln!(
        "snapshot of {}: {} workloads, {} records, {} bytes, {:.1} s, in {}",
        w.cluster,
        w.workloads,
        w.records,
        w.bytes,
        w.seconds,
        w.path.display()
    );
    cluster::print_warnings(&w.warnings);
    Ok(EXIT_OK)
}

/// `serve`: the Prometheus exporter.
#[cfg(feature = "cluster")]
fn serve_command(args: ServeArgs, limits: &Limits) -> Result<u8, Failure> {
    use cluster::serve::{Family, ServeOptions};
    let listen = args.listen.parse().map_err(|e| {
        Failure::usage(format!(
            "--listen {}: {e} (give an address and port, e.g. 0.0.0.0:9180)",
            args.listen
        ))
    })?;
    let mut families = std::collections::BTreeSet::new();
    for f in args
        .families
        .iter()
        .map(|f| f.trim())
        .filter(|f| !f.is_empty())
    {
        if f == "none" {
            continue;
        }
        let family = <Family as clap::ValueEnum>::from_str(f, true).map_err(|_| {
            Failure::usage(format!(
                "--families: unknown family {f:?} (components, pods, gangs, none)"
            ))
        })?;
        families.insert(family);
    }
    let engine = cluster::engine(&paths(&args.definitions), limits)?;
    let options = ServeOptions {
        listen,
        namespaces: args
            .namespace
            .into_iter()
            .filter(|n| !n.is_empty())
            .collect(),
        selector: args.selector,
        families,
        debounce: std::time::Duration::from_millis(args.debounce_ms),
        stale_after: std::time::Duration::from_secs(args.stale_after),
        max_objects: args.max_objects,
        cluster_definitions: !args.cluster.no_cluster_definitions,
    };
    cluster::serve::serve(&connect_options(&args.cluster), options, engine)
}

/// `update`: write values, suspend or resume one object.
fn update_command(args: UpdateArgs, limits: &Limits) -> Result<u8, Failure> {
    let UpdateArgs {
        file,
        values,
        merge,
        suspend,
        resume: _,
        definitions,
        output,
    } = args;
    let action = match (values, suspend) {
        (Some(v), _) => Action::Values(InputPath(v), merge),
        (None, true) => Action::Suspend,
        (None, false) => Action::Resume,
    };
    let text = update::run(
        &InputPath(file),
        &action,
        &paths(&definitions),
        output,
        limits,
    )?;
    output::print(&text)?;
    Ok(EXIT_OK)
}

/// `validate`: the verdicts on definition files; the exit code says
/// whether they are all valid.
fn validate_command(args: ValidateArgs, limits: &Limits) -> Result<u8, Failure> {
    let (text, exit) = validate::run(&paths(&args.files), args.output, limits)?;
    output::print(&text)?;
    Ok(exit)
}

/// `definitions`: the list, or one definition in full.
fn definitions_command(args: DefinitionsArgs, limits: &Limits) -> Result<u8, Failure> {
    let text = definitions::run(
        args.name.as_deref(),
        &paths(&args.definitions),
        args.output,
        limits,
    )?;
    output::print(&text)?;
    Ok(EXIT_OK)
}

/// `completion`: the completion script of a shell, made by clap_complete
/// from the command's own definition.
fn completion_command(args: &CompletionArgs) -> Result<u8, Failure> {
    let mut script = Vec::new();
    clap_complete::generate(
        args.shell,
        &mut Cli::command(),
        "workload-lens",
        &mut script,
    );
    output::print(&String::from_utf8_lossy(&script))?;
    Ok(EXIT_OK)
}

/// `schema`: the JSON Schema of the resolved structure or of errors.
fn schema_command(args: &SchemaArgs) -> Result<u8, Failure> {
    let schema = if args.error {
        workload_lens::error_schema()
    } else if args.diagnosis {
        workload_lens::diagnosis_schema()
    } else {
        workload_lens::resolved_schema()
    };
    output::print(&output::json(&schema)?)?;
    Ok(EXIT_OK)
}

/// Run the command line `args` (the first element is the program name, as
/// in `std::env::args()`) and return the process exit code. Output goes to
/// stdout and stderr; `--help`, `--version` and usage errors print what
/// clap prints and return its exit code (0 or 2) instead of exiting.
pub fn run(args: Vec<String>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            flush();
            return e.exit_code();
        }
    };
    let code = match execute(cli) {
        Ok(code) => i32::from(code),
        Err(f) => {
            report(&f);
            i32::from(f.exit)
        }
    };
    flush();
    code
}

/// Flush stdout and stderr: when `run` is called from another program (the
/// Python package), nothing flushes Rust's buffers at exit.
fn flush() {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
}
