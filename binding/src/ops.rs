//! The function behind each entry of [`crate::for_each_operation!`], one
//! module per receiver: `ops::<section>::<name>`. Each takes the receiver
//! (a [`CompiledDefinition`], an [`Engine`], the call's [`Limits`]), then
//! the entry's arguments as Rust values of their kinds (`text` and
//! `opt_text`: `&str`, `bytes` and `expression`: `&[u8]`, `object` and
//! `json_value`: [`Input`], `objects`: `Vec<Input>`), and returns the
//! engine's result; the bindings convert both sides.

use std::sync::Arc;

use serde_json::{Value, json};
use workload_lens::{
    ApiResource, Attribution, CompiledDefinition, Engine, Error, ErrorCode, GangReport,
    GangStructure, Gvk, HumanAmounts, Limits, ListOptions, OwnerKind, Resolved, SourceMap,
    SourceQuery, Status, StatusExplanation, UpdateRequest, UpdateResult, WorkloadSummary,
};
use workload_lens::{DefinitionVerdict, Result};

use crate::{Input, Session, all_objects, empty_engine, limits, value_from_binding_json};

type Def = Arc<CompiledDefinition>;

/// The questions of a source map from their JSON (`None`: none).
fn queries(json: Option<&str>) -> Result<Vec<SourceQuery>> {
    let Some(json) = json else {
        return Ok(Vec::new());
    };
    serde_json::from_str(json).map_err(|e| {
        let m = format!(
            "the questions must be a JSON array of paths or {{path, document, object, component, instance, span, expression, nearest}}: {e}"
        );
        Error::new(ErrorCode::Usage, m)
    })
}

/// Snapshots, split into records for the fleet tables.
pub mod snapshot {
    use super::*;
    use workload_lens::{SnapshotLine, SnapshotLines};

    /// Records column by column: roles (comma-separated), namespaces, and
    /// the objects' JSON texts.
    pub type Records = (Vec<String>, Vec<Option<String>>, Vec<String>);

    /// Read `lines` of a snapshot (in order, after those read before):
    /// the records among them, as (roles comma-separated, namespace, object
    /// JSON text), column by column.
    pub fn read_lines(state: &mut SnapshotLines, lines: &[String]) -> Result<Records> {
        let mut roles = Vec::new();
        let mut namespaces = Vec::new();
        let mut objects = Vec::new();
        for line in lines {
            if let SnapshotLine::Record { roles: r, object } = state.read(line)? {
                let words: Vec<&str> = r.iter().map(|r| r.as_str()).collect();
                roles.push(words.join(","));
                namespaces.push(workload_lens::record_namespace(&object));
                objects.push(object.to_string());
            }
        }
        Ok((roles, namespaces, objects))
    }

    /// Records column by column, packed as Arrow lays out a `large_string`
    /// column: roles (comma-separated), namespaces, the objects' offsets
    /// (rows + 1 little-endian int64, from 0) and their texts end to end.
    pub type PackedRecords = (Vec<String>, Vec<Option<String>>, Vec<u8>, Vec<u8>);

    /// Read a block of a snapshot's lines (in order, after those read
    /// before; whole lines, each ended by a newline but perhaps the last of
    /// the file): the records among them, packed ([`PackedRecords`]), so
    /// that no record becomes an object of the host language. A line that
    /// is not UTF-8 is a `parse` error located by line.
    pub fn read_block(state: &mut SnapshotLines, block: &[u8]) -> Result<PackedRecords> {
        let mut roles = Vec::new();
        let mut namespaces = Vec::new();
        let mut offsets: Vec<u8> = 0i64.to_le_bytes().to_vec();
        // The records' texts are within the block: one allocation.
        let mut data: Vec<u8> = Vec::with_capacity(block.len());
        let block = block.strip_suffix(b"\n").unwrap_or(block);
        if block.is_empty() {
            return Ok((roles, namespaces, offsets, data));
        }
        for line in block.split(|b| *b == b'\n') {
            let Ok(line) = std::str::from_utf8(line) else {
                let at = workload_lens::Location {
                    line: Some(state.lines() + 1),
                    ..workload_lens::Location::default()
                };
                return Err(Error::new(ErrorCode::Parse, "the line is not UTF-8 text").at(at));
            };
            if let SnapshotLine::Record { roles: r, object } = state.read(line)? {
                let words: Vec<&str> = r.iter().map(|r| r.as_str()).collect();
                roles.push(words.join(","));
                namespaces.push(workload_lens::record_namespace(&object));
                data.extend_from_slice(object.as_bytes());
                offsets.extend_from_slice(&(data.len() as i64).to_le_bytes());
            }
        }
        Ok((roles, namespaces, offsets, data))
    }

    /// The header and end of the whole snapshot, as JSON texts; an error
    /// when it is empty or was cut short.
    pub fn finish(state: &SnapshotLines) -> Result<(String, String)> {
        let (header, end) = state.finish()?;
        Ok((
            serde_json::to_string(header).unwrap_or_default(),
            serde_json::to_string(end).unwrap_or_default(),
        ))
    }
}

/// Module-level operations.
pub mod free {
    use super::*;

    /// The default limits.
    pub fn default_limits() -> Result<Limits> {
        Ok(Limits::default())
    }

    /// Complete limits from camelCase JSON (`None`: the defaults).
    pub fn check_limits(limits_json: Option<&str>) -> Result<Limits> {
        limits(limits_json)
    }

    /// Every document of a YAML/JSON text.
    pub fn parse(text: &str, limits_json: Option<&str>) -> Result<Vec<Value>> {
        let docs = workload_lens::parse_documents(text, &limits(limits_json)?)?;
        Ok(docs.into_iter().map(|d| d.value).collect())
    }

    /// Like [`parse`], for bytes (invalid UTF-8 is a located parse error).
    pub fn parse_bytes(bytes: &[u8], limits_json: Option<&str>) -> Result<Vec<Value>> {
        let docs = workload_lens::source::parse_documents_bytes(bytes, &limits(limits_json)?)?;
        Ok(docs.into_iter().map(|d| d.value).collect())
    }

    /// Where things are in a YAML/JSON text ([`workload_lens::source_map`]),
    /// with the questions of `queries_json`.
    pub fn source_map(
        text: &str,
        queries_json: Option<&str>,
        limits_json: Option<&str>,
    ) -> Result<SourceMap> {
        workload_lens::source_map(text, &queries(queries_json)?, &limits(limits_json)?)
    }

    /// Validate every definition of a text: the verdicts of
    /// [`workload_lens::ValidationReport`].
    pub fn validate(text: &str, limits_json: Option<&str>) -> Result<Vec<DefinitionVerdict>> {
        let engine = empty_engine(limits(limits_json)?)?;
        Ok(engine.validate(text)?.definitions)
    }

    /// Every error code, with the name of the error class the bindings give
    /// it (`jq_runtime` -> `JqRuntimeError`): `[{code, class}]`. The
    /// bindings' error classes are generated from (and checked against)
    /// this list.
    pub fn error_codes() -> Result<Vec<Value>> {
        let all = ErrorCode::ALL.iter();
        Ok(all
            .map(|c| json!({"code": c.as_str(), "class": crate::error_class(*c)}))
            .collect())
    }

    /// The bundled definition files: `{file name: YAML text}`.
    pub fn catalog_sources() -> Result<serde_json::Map<String, Value>> {
        let files = workload_lens::catalog_files().iter();
        Ok(files
            .map(|(f, t)| ((*f).to_string(), Value::String((*t).to_string())))
            .collect())
    }

    /// GPU and pod totals of a listing (the JSON array
    /// [`catalog::list_workloads`] returns) by namespace and type.
    pub fn usage(rows_json: &str) -> Result<workload_lens::Usage> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Row {
            #[serde(default)]
            namespace: Option<String>,
            api_version: String,
            kind: String,
            #[serde(default)]
            pods: u64,
            #[serde(default)]
            gpus: u64,
            #[serde(default)]
            error: Option<Value>,
            #[serde(default)]
            statuses: Vec<String>,
            #[serde(default)]
            live: Option<workload_lens::LivePods>,
        }
        let rows: Vec<Row> = serde_json::from_str(rows_json).map_err(|e| {
            let m = format!("rows must be a listing's JSON array: {e}");
            Error::new(ErrorCode::Usage, m)
        })?;
        let rows: Vec<WorkloadSummary> = rows
            .into_iter()
            .map(|r| WorkloadSummary {
                name: String::new(),
                namespace: r.namespace,
                uid: None,
                api_version: r.api_version,
                kind: r.kind,
                created: None,
                definition: None,
                origin: None,
                phase: None,
                statuses: r
                    .statuses
                    .iter()
                    .filter_map(|s| workload_lens::WorkloadStatus::parse(s))
                    .collect(),
                pods: r.pods,
                gpus: r.gpus,
                error: r.error.map(|_| Error::new(ErrorCode::Usage, "")),
                owner: None,
                declared_pods: None,
                live: r.live,
                reason: None,
            })
            .collect();
        Ok(workload_lens::usage(&rows))
    }
}

/// Module-level operations whose object arguments are read within the
/// call's own limits (a trailing `limits` argument in every binding).
pub mod limited {
    use super::*;

    /// Every output of one jq expression on an input. The expression is
    /// UTF-8 bytes (not UTF-8, e.g. a string with a lone surrogate: a jq
    /// compile error).
    pub fn evaluate(limits: &Limits, expression: &[u8], input: Input<'_>) -> Result<Vec<Value>> {
        let expression = std::str::from_utf8(expression)
            .map_err(|_| Error::new(ErrorCode::JqCompile, "the expression is not valid Unicode"))?;
        let input = input.value(limits)?;
        workload_lens::evaluate(expression, &input, limits)
    }

    /// Every amount of a value, written for people
    /// ([`workload_lens::human_amounts`]); the value is read within the
    /// call's limits.
    pub fn human_amounts(limits: &Limits, value: Input<'_>) -> Result<HumanAmounts> {
        Ok(workload_lens::human_amounts(&value.value(limits)?))
    }

    /// [`workload_lens::missing_owners`] of the objects of `items` (list
    /// texts or values), without the owner kinds of `skip_json` (a JSON
    /// array of `{apiVersion, kind}`).
    pub fn missing_owners(
        limits: &Limits,
        items: Vec<Input<'_>>,
        skip_json: &str,
    ) -> Result<Vec<OwnerKind>> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Kind {
            api_version: String,
            kind: String,
        }
        let skip: Vec<Kind> = serde_json::from_str(skip_json).map_err(|e| {
            let m = format!("skip must be a JSON array of {{apiVersion, kind}}: {e}");
            Error::new(ErrorCode::Usage, m)
        })?;
        let skip: Vec<OwnerKind> = skip
            .into_iter()
            .map(|k| OwnerKind {
                api_version: k.api_version,
                kind: k.kind,
            })
            .collect();
        Ok(workload_lens::missing_owners(
            &all_objects(items, limits)?,
            &skip,
        ))
    }
}

/// Operations that make definitions (Python: module functions; JavaScript:
/// static methods of `NativeDefinition`).
pub mod factory {
    use super::*;

    /// Compile exactly one definition from YAML/JSON text.
    pub fn compile(text: &str, limits_json: Option<&str>) -> Result<Def> {
        Ok(empty_engine(limits(limits_json)?)?.compile(text)?.into())
    }

    /// Compile every definition of a YAML/JSON text.
    pub fn compile_all(text: &str, limits_json: Option<&str>) -> Result<Vec<Def>> {
        let all = empty_engine(limits(limits_json)?)?.compile_all(text)?;
        Ok(all.into_iter().map(Arc::new).collect())
    }

    /// An engine without catalog for the limits, and the binding's JSON
    /// with its keys sorted (the text [`compile_object`] compiles).
    fn object_text(json: &str, limits_json: Option<&str>) -> Result<(Engine, String)> {
        let limits = limits(limits_json)?;
        let value = value_from_binding_json(json, &limits)?;
        Ok((empty_engine(limits)?, value.to_string()))
    }

    /// Compile every definition of a value that a binding serialized from
    /// its caller's object (a dict, a JS object): the value is
    /// re-serialized with its keys sorted (the order of `serde_json`'s map),
    /// so the same object always compiles the same way, whatever order its
    /// language kept.
    pub fn compile_object(json: &str, limits_json: Option<&str>) -> Result<Vec<Def>> {
        let (engine, text) = object_text(json, limits_json)?;
        Ok(engine
            .compile_all(&text)?
            .into_iter()
            .map(Arc::new)
            .collect())
    }

    /// Compile exactly one definition of a value, read as
    /// [`compile_object`] reads it (the JavaScript `new Definition(obj)`).
    pub fn compile_one_object(json: &str, limits_json: Option<&str>) -> Result<Def> {
        let (engine, text) = object_text(json, limits_json)?;
        Ok(engine.compile(&text)?.into())
    }

    /// A definition compiled again from its `definition_json`, the limits
    /// of its `info` (camelCase JSON) and its origin (`"catalog"`, `"user"`
    /// or `"cluster"`): how a binding restores a definition it serialized
    /// (Python's pickling).
    pub fn rebuild(definition_json: &str, limits_json: &str, origin: &str) -> Result<Def> {
        let origin = match origin {
            "catalog" => workload_lens::Origin::Catalog,
            "user" => workload_lens::Origin::User,
            "cluster" => workload_lens::Origin::Cluster,
            o => {
                let m = format!("origin must be 'catalog', 'user' or 'cluster', not {o:?}");
                return Err(Error::new(ErrorCode::Usage, m));
            }
        };
        let def = empty_engine(limits(Some(limits_json))?)?.compile(definition_json)?;
        Ok(def.with_origin(origin).into())
    }
}

/// Operations of one compiled definition.
pub mod definition {
    use super::*;

    type D = CompiledDefinition;

    /// `{name, origin, gvk: {group, version, kind}, components, canSuspend,
    /// warnings, limits}`.
    pub fn info(d: &D) -> Result<Value> {
        let Gvk {
            group,
            version,
            kind,
        } = d.root_gvk();
        Ok(json!({
            "name": d.name(),
            "origin": d.origin().as_str(),
            "gvk": {"group": group, "version": version, "kind": kind},
            "components": d.component_names(),
            "canSuspend": d.can_suspend(),
            "warnings": d.warnings(),
            "limits": d.limits(),
        }))
    }

    /// The definition as read.
    pub fn definition_json(d: &D) -> Result<workload_lens::Definition> {
        Ok(d.definition().clone())
    }

    /// Resolve (with `pods`: the live state).
    pub fn resolve(d: &D, obj: Input<'_>, pods: Option<Input<'_>>) -> Result<Resolved<'static>> {
        let l = d.limits();
        // Text alone is read for what resolving reads of it.
        if let (Input::Text(t), None) = (&obj, &pods) {
            return d.resolve_value_text(t);
        }
        let obj = obj.value(l)?;
        match pods {
            Some(p) => d.resolve_with_pods(&obj, &p.objects(l)?),
            None => d.resolve(&obj),
        }
        .map(Resolved::into_owned)
    }

    /// Why the workload is where it is: ranked findings from its pods (and
    /// their owners), events and related objects (Kueue `Workload`s, gang
    /// schedulers' `PodGroup`s and `PodGang`s), each
    /// read as pods are (a list, one object or a `List`).
    pub fn diagnose(
        d: &D,
        obj: Input<'_>,
        pods: Option<Input<'_>>,
        events: Option<Input<'_>>,
        related: Option<Input<'_>>,
    ) -> Result<workload_lens::Diagnosis> {
        let l = d.limits();
        let obj = obj.value(l)?;
        let read = |i: Option<Input<'_>>| {
            i.map(|i| i.objects(l))
                .transpose()
                .map(Option::unwrap_or_default)
        };
        d.diagnose(&obj, &read(pods)?, &read(events)?, &read(related)?)
    }

    /// The root status (`None` when the definition has none).
    pub fn status(d: &D, obj: Input<'_>) -> Result<Option<Status>> {
        d.status(&obj.value(d.limits())?)
    }

    /// Why the object has its status: every matcher of every category with
    /// its outcome and reason.
    pub fn explain_status(d: &D, obj: Input<'_>) -> Result<StatusExplanation> {
        d.explain_status(&obj.value(d.limits())?)
    }

    /// Write values through the definition's paths: `{object, patch}`.
    pub fn update(d: &D, obj: Input<'_>, request: Input<'_>) -> Result<UpdateResult> {
        let obj = obj.value(d.limits())?;
        let req: UpdateRequest = serde_json::from_value(request.value(d.limits())?)
            .map_err(|e| Error::new(ErrorCode::Usage, format!("invalid update request: {e}")))?;
        d.update(&obj, &req)
    }

    /// Apply the suspend actions: `{object, patch}`.
    pub fn suspend(d: &D, obj: Input<'_>) -> Result<UpdateResult> {
        d.suspend(&obj.value(d.limits())?)
    }

    /// Apply the resume actions: `{object, patch}`.
    pub fn resume(d: &D, obj: Input<'_>) -> Result<UpdateResult> {
        d.resume(&obj.value(d.limits())?)
    }

    /// Place pods under components and instances (`obj` may be absent).
    pub fn attribute_pods(d: &D, obj: Option<Input<'_>>, pods: Input<'_>) -> Result<Attribution> {
        let l = d.limits();
        let obj = obj.map(|o| o.value(l)).transpose()?;
        d.attribute_pods(obj.as_ref(), &pods.objects(l)?)
    }

    /// Gang-scheduling groups of the workload's pods.
    pub fn gang_groups(d: &D, obj: Input<'_>, pods: Input<'_>) -> Result<GangReport> {
        let l = d.limits();
        let obj = obj.value(l)?;
        d.gang_groups(&obj, &pods.objects(l)?)
    }

    /// [`CompiledDefinition::source_map`] of a text, with the questions of
    /// `queries_json`.
    pub fn source_map(d: &D, text: &str, queries_json: Option<&str>) -> Result<SourceMap> {
        d.source_map(text, &queries(queries_json)?)
    }

    /// [`gang_groups`] with the pods (and owners) of several inputs, such as
    /// the pages of list responses.
    pub fn gang_groups_pages(d: &D, obj: Input<'_>, pages: Vec<Input<'_>>) -> Result<GangReport> {
        let l = d.limits();
        let obj = obj.value(l)?;
        d.gang_groups(&obj, &all_objects(pages, l)?)
    }

    /// The structure gang scheduling works on ([`GangStructure`]).
    pub fn gang_structure(d: &D) -> Result<GangStructure> {
        d.gang_structure()
    }

    /// The subtree scale (gang minimum members) of `component` of the
    /// object, of its instance `instance` when given.
    pub fn subtree_scale(
        d: &D,
        obj: Input<'_>,
        component: &str,
        instance: Option<&str>,
    ) -> Result<i64> {
        let obj = obj.value(d.limits())?;
        d.subtree_scale_of(&obj, component, instance)
    }
}

/// Operations of a catalog (an [`Engine`]: definitions by root GVK, with
/// its limits).
pub mod catalog {
    use super::*;

    /// The fleet tables ([`Engine::fleet_tables`]) of a batch of records,
    /// given column by column: each record's cluster, its roles
    /// (comma-separated) and its object's JSON text.
    pub fn fleet_tables<C: AsRef<str>, R: AsRef<str>, O: AsRef<str>>(
        e: &Engine,
        clusters: &[C],
        roles: &[R],
        objects: &[O],
    ) -> Result<workload_lens::FleetTables> {
        if clusters.len() != objects.len() || roles.len() != objects.len() {
            return Err(Error::new(
                ErrorCode::Usage,
                format!(
                    "a batch's columns differ in length: {} clusters, {} roles, {} objects",
                    clusters.len(),
                    roles.len(),
                    objects.len()
                ),
            ));
        }
        let roles: Vec<[&str; 1]> = roles.iter().map(|r| [r.as_ref()]).collect();
        Ok(
            e.fleet_tables(clusters.iter().zip(&roles).zip(objects).map(|((c, r), o)| {
                workload_lens::FleetRecord {
                    cluster: c.as_ref(),
                    roles: r,
                    object: o.as_ref(),
                }
            })),
        )
    }

    /// The texts of an Arrow string column, as Arrow lays them out, in
    /// pieces (the chunks of a column): each piece's offsets (its rows + 1
    /// little-endian 64-bit integers, as a `large_string` array has them;
    /// the first need not be 0) and the bytes from the first offset to the
    /// last. The texts are borrowed, not copied.
    pub fn arrow_texts<'a>(pieces: &[(&[u8], &'a [u8])]) -> Result<Vec<&'a str>> {
        let bad = |m: String| Error::new(ErrorCode::Usage, m);
        let mut out = Vec::new();
        for (offsets, data) in pieces {
            if !offsets.len().is_multiple_of(8) || offsets.is_empty() {
                return Err(bad(format!(
                    "an Arrow column's offsets are {} bytes, not n + 1 64-bit integers",
                    offsets.len()
                )));
            }
            let at: Vec<i64> = offsets
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().unwrap_or_default()))
                .collect();
            let base = at[0];
            for w in at.windows(2) {
                let (start, end) = (w[0] - base, w[1] - base);
                let text = usize::try_from(start)
                    .ok()
                    .zip(usize::try_from(end).ok())
                    .filter(|(s, e)| s <= e)
                    .and_then(|(s, e)| data.get(s..e))
                    .ok_or_else(|| {
                        bad(format!(
                            "an Arrow column's offsets do not fit its {} bytes of text",
                            data.len()
                        ))
                    })?;
                let text = std::str::from_utf8(text).map_err(|_| {
                    bad(format!(
                        "row {} of an Arrow string column is not UTF-8",
                        out.len()
                    ))
                })?;
                out.push(text);
            }
            if usize::try_from(at[at.len() - 1] - base).ok() != Some(data.len()) {
                return Err(bad(format!(
                    "an Arrow column's offsets do not end at its {} bytes of text",
                    data.len()
                )));
            }
        }
        Ok(out)
    }

    /// The texts of a dictionary-encoded Arrow column: its dictionary and
    /// its indices (little-endian 32-bit integers, one per row).
    pub fn arrow_dictionary<'a, S: AsRef<str>>(
        dictionary: &'a [S],
        indices: &[u8],
    ) -> Result<Vec<&'a str>> {
        if !indices.len().is_multiple_of(4) {
            return Err(Error::new(
                ErrorCode::Usage,
                format!(
                    "a dictionary column's indices are {} bytes, not 32-bit integers",
                    indices.len()
                ),
            ));
        }
        indices
            .chunks_exact(4)
            .map(|b| {
                let i = i32::from_le_bytes(b.try_into().unwrap_or_default());
                usize::try_from(i)
                    .ok()
                    .and_then(|i| dictionary.get(i))
                    .map(|s| s.as_ref())
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::Usage,
                            format!(
                                "a dictionary column's index {i} is past its {} words",
                                dictionary.len()
                            ),
                        )
                    })
            })
            .collect()
    }

    /// The definition for an apiVersion and kind.
    pub fn lookup(e: &Engine, api_version: &str, kind: &str) -> Result<Option<Def>> {
        Ok(e.lookup(&Gvk::from_api_version(api_version, kind)).cloned())
    }

    /// The definition for an object, by its apiVersion and kind.
    pub fn lookup_object(e: &Engine, obj: Input<'_>) -> Result<Def> {
        let obj = obj.value(e.limits())?;
        Ok(e.definition_for(&obj)?.clone())
    }

    /// A definition by name.
    pub fn get(e: &Engine, name: &str) -> Result<Option<Def>> {
        Ok(e.definition(name).cloned())
    }

    /// Every definition, sorted by name.
    pub fn definitions(e: &Engine) -> Result<Vec<Def>> {
        Ok(e.definitions().into_iter().cloned().collect())
    }

    /// The engine's limits.
    pub fn limits(e: &Engine) -> Result<Limits> {
        Ok(*e.limits())
    }

    /// [`Engine::source_map`] of a text, with the questions of
    /// `queries_json`.
    pub fn source_map(e: &Engine, text: &str, queries_json: Option<&str>) -> Result<SourceMap> {
        e.source_map(text, &queries(queries_json)?)
    }

    /// Resolve with the definition chosen by the object's GVK (with
    /// `pods`: the live state).
    pub fn resolve(
        e: &Engine,
        obj: Input<'_>,
        pods: Option<Input<'_>>,
    ) -> Result<Resolved<'static>> {
        let l = e.limits();
        let obj = obj.value(l)?;
        match pods {
            None => e.resolve(&obj),
            Some(p) => e.resolve_with_pods(&obj, &p.objects(l)?),
        }
        .map(Resolved::into_owned)
    }

    /// [`Engine::diagnose`], the definition chosen by the object's GVK.
    pub fn diagnose(
        e: &Engine,
        obj: Input<'_>,
        pods: Option<Input<'_>>,
        events: Option<Input<'_>>,
        related: Option<Input<'_>>,
    ) -> Result<workload_lens::Diagnosis> {
        let l = e.limits();
        let obj = obj.value(l)?;
        let read = |i: Option<Input<'_>>| {
            i.map(|i| i.objects(l))
                .transpose()
                .map(Option::unwrap_or_default)
        };
        e.diagnose(&obj, &read(pods)?, &read(events)?, &read(related)?)
    }

    /// [`resolve`] with the pods (and owners) of several inputs (list texts
    /// such as the pages of list responses, or values).
    pub fn resolve_pages(
        e: &Engine,
        obj: Input<'_>,
        pages: Vec<Input<'_>>,
    ) -> Result<Resolved<'static>> {
        let l = e.limits();
        let obj = obj.value(l)?;
        e.resolve_with_pods(&obj, &all_objects(pages, l)?)
            .map(Resolved::into_owned)
    }

    /// [`Engine::resolve_in_namespace`]: the object, and the items of its
    /// namespace (pods and their owners).
    pub fn resolve_in_namespace(
        e: &Engine,
        obj: Input<'_>,
        items: Vec<Input<'_>>,
    ) -> Result<Resolved<'static>> {
        let l = e.limits();
        let obj = obj.value(l)?;
        e.resolve_in_namespace(&obj, &all_objects(items, l)?)
            .map(Resolved::into_owned)
    }

    /// [`Engine::gang_groups`] with the pods (and owners) of several inputs.
    pub fn gang_groups(e: &Engine, obj: Input<'_>, pages: Vec<Input<'_>>) -> Result<GangReport> {
        let l = e.limits();
        let obj = obj.value(l)?;
        e.gang_groups(&obj, &all_objects(pages, l)?)
    }

    /// Served resources from their JSON (an array of [`ApiResource`]).
    fn served(json: &str) -> Result<Vec<ApiResource>> {
        serde_json::from_str(json).map_err(|e| {
            let m = format!(
                "the served resources must be a JSON array of {{group, version, kind, plural, ...}}: {e}"
            );
            Error::new(ErrorCode::Usage, m)
        })
    }

    /// [`Engine::find_type`]: the served resource a type token names;
    /// `served_json` is a JSON array of [`ApiResource`].
    pub fn find_type(e: &Engine, token: &str, served_json: &str) -> Result<ApiResource> {
        e.find_type(token, &served(served_json)?)
    }

    /// [`Engine::covered_types`].
    pub fn covered_types(e: &Engine, served_json: &str) -> Result<Vec<ApiResource>> {
        Ok(e.covered_types(&served(served_json)?))
    }

    /// [`Engine::list_workloads`] over the objects of `objects` and
    /// `owners` (list texts, such as the pages of list responses, or
    /// values); `options_json` is a [`ListOptions`] (camelCase; `None`:
    /// every object).
    pub fn list_workloads(
        e: &Engine,
        objects: Vec<Input<'_>>,
        owners: Vec<Input<'_>>,
        options_json: Option<&str>,
    ) -> Result<Vec<WorkloadSummary>> {
        let options: ListOptions = match options_json {
            None => ListOptions::default(),
            Some(j) => serde_json::from_str(j).map_err(|e| {
                let m = format!("list options must be {{topLevelOnly, phases}}: {e}");
                Error::new(ErrorCode::Usage, m)
            })?,
        };
        let l = e.limits();
        let objects = all_objects(objects, l)?;
        let owners = all_objects(owners, l)?;
        Ok(e.list_workloads(&objects, &owners, &options))
    }

    /// [`Engine::cluster_session`] of the operation's JSON
    /// ([`workload_lens::ClusterOp`]), naming `server` in messages.
    pub fn cluster_session(e: &Engine, operation: &str, server: Option<&str>) -> Result<Session> {
        let op: workload_lens::ClusterOp = serde_json::from_str(operation).map_err(|err| {
            let m = format!(
                "the cluster operation must be \"discover\", {{\"list\": {{...}}}} or \
                 {{\"describe\": {{...}}}} with the query's camelCase fields: {err}"
            );
            Error::new(ErrorCode::Usage, m)
        })?;
        let session = e.cluster_session(op);
        Ok(Session::new(match server {
            Some(s) => session.with_server(s),
            None => session,
        }))
    }
}

/// The methods of a cluster protocol session ([`Session`]).
pub mod session {
    use super::*;

    /// The requests to make now (none: the operation is over).
    pub fn requests(s: &mut Session) -> Result<Vec<workload_lens::Request>> {
        Ok(s.get()?.requests().to_vec())
    }

    /// Feed the replies (a JSON array of [`workload_lens::Reply`]).
    pub fn feed(s: &mut Session, replies: &str) -> Result<Value> {
        let replies: Vec<workload_lens::Reply> = serde_json::from_str(replies).map_err(|e| {
            let m = format!("replies must be a JSON array of {{status, body}} or {{error}}: {e}");
            Error::new(ErrorCode::Usage, m)
        })?;
        s.get()?.feed(replies)?;
        Ok(Value::Null)
    }

    /// The outcome as every binding returns it.
    pub fn finish(s: &mut Session) -> Result<Value> {
        s.take()?.finish()?.to_value()
    }
}

#[cfg(test)]
mod fleet_tests {
    use super::catalog::{arrow_dictionary, arrow_texts};
    use super::snapshot::read_block;
    use workload_lens::{ErrorCode, Limits, SnapshotLines};

    fn offsets(at: &[i64]) -> Vec<u8> {
        at.iter().flat_map(|o| o.to_le_bytes()).collect()
    }

    #[test]
    fn arrow_texts_follow_the_offsets_of_each_piece() {
        // A sliced chunk: its offsets start past 0, its text is the range.
        let first = offsets(&[3, 5, 5, 8]);
        let second = offsets(&[0, 2]);
        let texts = arrow_texts(&[(&first, b"abcde"), (&second, b"xy")]).unwrap();
        assert_eq!(texts, ["ab", "", "cde", "xy"]);
        // Offsets past the text, going back, or not ending at its end, and
        // text that is not UTF-8: the caller's mistake.
        for (o, text) in [
            (offsets(&[0, 4]), &b"abc"[..]),
            (offsets(&[0, 2, 1]), b"ab"),
            (offsets(&[0, 1]), b"ab"),
            (offsets(&[0, 1]), b"\xff"),
            (vec![0u8; 7], b""),
        ] {
            let e = arrow_texts(&[(&o, text)]).unwrap_err();
            assert_eq!(e.code(), ErrorCode::Usage, "{e}");
        }
    }

    #[test]
    fn arrow_dictionaries_map_each_index() {
        let words = ["a".to_string(), "b".to_string()];
        let rows: Vec<u8> = [1i32, 0, 1].iter().flat_map(|i| i.to_le_bytes()).collect();
        assert_eq!(arrow_dictionary(&words, &rows).unwrap(), ["b", "a", "b"]);
        let past: Vec<u8> = 2i32.to_le_bytes().to_vec();
        assert!(arrow_dictionary(&words, &past).is_err());
        assert!(arrow_dictionary(&words, &[0, 0]).is_err());
    }

    #[test]
    fn blocks_give_records_packed_and_locate_bad_lines() {
        let header = r#"{"format":"workload-lens-snapshot","version":1,"cluster":"c","capturedAt":"2026-12-06T00:00:00Z"}"#;
        let pod = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ns","uid":"u"}}"#;
        let mut lines = SnapshotLines::holding(&Limits::default());
        let block = format!("{header}\n{{\"roles\":[\"object\",\"pod\"],\"object\":{pod}}}\n\n");
        let (roles, namespaces, o, text) = read_block(&mut lines, block.as_bytes()).unwrap();
        assert_eq!(roles, ["object,pod"]);
        assert_eq!(namespaces, [Some("ns".to_string())]);
        assert_eq!(o, offsets(&[0, pod.len() as i64]));
        assert_eq!(text, pod.as_bytes());
        // The next block's line that is not UTF-8 is located by its line
        // in the file (the header, the record and the blank line before).
        let e = read_block(&mut lines, b"{\"roles\":[\"pod\"],\"object\":\"\xff\"}\n").unwrap_err();
        assert_eq!(e.code(), ErrorCode::Parse);
        assert_eq!(e.location().line, Some(4), "{e}");
    }
}
