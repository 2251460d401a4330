//! The conformance suite and its Rust runner.
//!
//! Cases live in `conformance/cases/*.yaml` (see `conformance/README.md` for
//! the format); `conformance/suite.json` is the same suite as one JSON file
//! for runtimes without a YAML reader, generated from the YAML and checked to
//! be current. A runner executes each case's operation, turns the outcome
//! into a canonical JSON value (`{"result": ...}` or `{"error": {...}}`) and
//! compares it with the expectation. Big inputs are written small with the
//! generator syntax of [`generate`], which every runner expands before it
//! runs a case ([`expand_case`]).

#![forbid(unsafe_code)]

pub mod generate;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use workload_lens::{CompiledDefinition, Engine, Error, Limits, catalog_files, parse_documents};

/// One group of cases (one file).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// The group's name (the file stem).
    #[serde(default)]
    pub group: String,
    /// What the group covers.
    pub note: String,
    /// Definitions shared by the group's cases, by name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub definitions: BTreeMap<String, Value>,
    /// Recorded API servers shared by the group's `cluster` cases, by name:
    /// each a map from request (path and query) to reply.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub servers: BTreeMap<String, Value>,
    /// The cases.
    pub cases: Vec<Case>,
}

/// One case.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Case {
    /// Unique name, `group/case`.
    pub name: String,
    /// Operation: `evaluate`, `validate`, `resolve`, `status`, `update`,
    /// `suspend`, `resume`, `attribute`, `gang`, `diagnose`, `gangStructure`,
    /// `subtreeScale`, `parse`, `sourceMap`.
    pub op: String,
    /// Why the case exists (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The definition: `{catalog: NAME}`, `{ref: NAME}` (a group
    /// definition), `{text: "..."}` (YAML/JSON text) or an inline object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Value>,
    /// The workload object (JSON value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<Value>,
    /// The workload object as text (for malformed inputs): a string, or a
    /// generator that gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_text: Option<Value>,
    /// Pods, for `attribute`, `gang` and `resolve` with live state: a list
    /// of pods, one pod, or a `PodList` (read as every runtime reads pods).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pods: Option<Value>,
    /// Events, for `diagnose`: a list of `Event`s (core/v1 or
    /// events.k8s.io/v1), read as pods are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Value>,
    /// Related objects, for `diagnose`: Kueue `Workload`s, gang schedulers'
    /// `PodGroup`s and `PodGang`s, read as pods are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub related: Option<Value>,
    /// Update request, for `update`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<Value>,
    /// jq expression, for `evaluate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expression: Option<String>,
    /// Input of `evaluate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// Component, for `subtreeScale`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<String>,
    /// Instance id, for `subtreeScale` (absent: every instance).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    /// The cluster protocol's operation, for `cluster`: `"discover"`,
    /// `{"list": ListQuery}` or `{"describe": DescribeQuery}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<Value>,
    /// The API server of a `cluster` case: a list of group server names
    /// and maps (request -> reply), merged in order (later wins). A reply
    /// is `{status, body}` (body: a JSON value, sent as its compact text),
    /// `{status, bodyText}` or `{error}` (not reachable). A request not in
    /// the map is answered 404 with a `Status` body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<Value>,
    /// The questions of `sourceMap`: paths, or `{path, document, object,
    /// component, instance, span, expression, nearest}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queries: Option<Value>,
    /// Limits overriding the defaults (camelCase names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<Value>,
    /// Expected outcome: `{result: ...}` (compared whole) or
    /// `{error: {code, limit?, field?, component?, instance?, line?, column?}}`
    /// (only the keys given are compared).
    pub expect: Value,
    /// Runtimes where the case is a known difference, with the reason.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub known_differences: BTreeMap<String, String>,
}

/// The outcome of one case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// As expected.
    Pass,
    /// Not as expected: the diff.
    Fail(String),
    /// A known difference for this runtime (with the reason).
    Known(String),
}

/// The repository's conformance directory.
pub fn suite_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Read every group of `cases/` (sorted by file name).
pub fn load_groups(dir: &Path) -> Result<Vec<Group>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("cases"))
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    let limits = Limits {
        max_input_bytes: 64 << 20,
        ..Limits::default()
    };
    let mut groups = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let mut docs =
            parse_documents(&text, &limits).map_err(|e| format!("{}: {e}", f.display()))?;
        if docs.len() != 1 {
            return Err(format!("{}: expected one document", f.display()));
        }
        let mut g: Group = serde_json::from_value(docs.remove(0).value)
            .map_err(|e| format!("{}: {e}", f.display()))?;
        g.group = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A server given as a file name is a recording in `servers/`
        // (`conformance/record-cluster.sh` writes them): inlined here, so
        // that `suite.json` holds it.
        for (name, server) in g.servers.iter_mut() {
            if let Value::String(file) = server {
                let path = dir.join("servers").join(file.as_str());
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("server {name}: {}: {e}", path.display()))?;
                *server = serde_json::from_str(&text)
                    .map_err(|e| format!("server {name}: {}: {e}", path.display()))?;
            }
        }
        groups.push(g);
    }
    Ok(groups)
}

/// The suite as one JSON document (what `suite.json` holds).
pub fn suite_json(groups: &[Group]) -> String {
    let v = json!({
        "format": "workload-lens-conformance/v1",
        "groups": groups,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

/// Canonical JSON text: sorted keys, compact, integral numbers without
/// fraction, `-0` as `0`.
pub fn canonical(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(&mut out, v);
    out
}

fn write_canonical(out: &mut String, v: &Value) {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.push_str(&i.to_string());
            } else if let Some(u) = n.as_u64() {
                out.push_str(&u.to_string());
            } else {
                let f = n.as_f64().unwrap_or(0.0);
                if f == 0.0 {
                    out.push('0');
                } else if f.fract() == 0.0 && f.abs() < 9.007_199_254_740_992e15 {
                    out.push_str(&(f as i64).to_string());
                } else {
                    out.push_str(&format!("{f:?}"));
                }
            }
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(out, x);
            }
            out.push(']');
        }
        Value::Object(o) => {
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(out, &o[k]);
            }
            out.push('}');
        }
        v => out.push_str(&v.to_string()),
    }
}

fn error_value(e: &Error) -> Value {
    let mut m = Map::new();
    m.insert("code".into(), json!(e.code().as_str()));
    if let Some(l) = e.limit() {
        m.insert("limit".into(), json!(l));
    }
    let loc = e.location();
    for (k, v) in [
        ("field", loc.field.clone()),
        ("component", loc.component.clone()),
        ("instance", loc.instance.clone()),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    }
    for (k, v) in [("line", loc.line), ("column", loc.column)] {
        if let Some(v) = v {
            m.insert(k.into(), json!(v));
        }
    }
    if let Some(s) = loc.span {
        m.insert("span".into(), json!(s));
    }
    if let Some(r) = &loc.request {
        m.insert("request".into(), json!(r));
    }
    if let Some(s) = e.status() {
        m.insert("status".into(), json!(s));
    }
    if !e.findings().is_empty() {
        m.insert(
            "findings".into(),
            json!(e.findings().iter().map(finding_value).collect::<Vec<_>>()),
        );
    }
    json!({ "error": Value::Object(m) })
}

fn finding_value(f: &workload_lens::Finding) -> Value {
    let mut m = Map::new();
    m.insert("code".into(), json!(f.code));
    m.insert(
        "severity".into(),
        json!(match f.severity {
            workload_lens::Severity::Error => "error",
            workload_lens::Severity::Warning => "warning",
        }),
    );
    if let Some(x) = &f.location.field {
        m.insert("field".into(), json!(x));
    }
    if let Some(x) = f.location.line {
        m.insert("line".into(), json!(x));
    }
    Value::Object(m)
}

fn to_value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

fn limits_of(case: &Case) -> Result<Limits, String> {
    match &case.limits {
        None => Ok(Limits::default()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("bad limits: {e}")),
    }
}

/// An engine without definitions, with the case's limits (to read its
/// texts and compile its definition).
fn empty_engine(limits: Limits) -> Result<Engine, Error> {
    Engine::builder().limits(limits).catalog(false).build()
}

fn definition_of(
    case: &Case,
    group: &Group,
    engine: &Engine,
) -> Result<Result<CompiledDefinition, Error>, String> {
    let Some(d) = &case.definition else {
        return Err("the case needs a definition".into());
    };
    let text = match d {
        Value::Object(o) if o.contains_key("catalog") && o.len() == 1 => {
            let name = o["catalog"].as_str().unwrap_or_default();
            let (_, text) = catalog_files()
                .iter()
                .find(|(f, _)| f.trim_end_matches(".yaml") == name)
                .ok_or_else(|| format!("no catalog definition {name}"))?;
            text.to_string()
        }
        Value::Object(o) if o.contains_key("ref") && o.len() == 1 => {
            let name = o["ref"].as_str().unwrap_or_default();
            let v = group
                .definitions
                .get(name)
                .ok_or_else(|| format!("no group definition {name}"))?;
            v.to_string()
        }
        Value::Object(o) if o.contains_key("text") && o.len() == 1 => {
            o["text"].as_str().unwrap_or_default().to_string()
        }
        v => v.to_string(),
    };
    Ok(engine.compile(&text))
}

/// The case's `objectText`, which must be a string once expanded.
fn object_text(case: &Case) -> Result<Option<&str>, String> {
    match &case.object_text {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err("objectText must be a string".into()),
    }
}

/// A value of the case as a binding hands it to the engine: its JSON text,
/// read with the case's limits (so `maxInputBytes`, `maxInputNodes` and
/// `maxDepth` apply to it in every runtime).
fn read_value_as_bindings_do(v: &Value, engine: &Engine) -> Result<Value, Error> {
    engine.read_object(&v.to_string())
}

/// The questions of a `sourceMap` case, read as the bindings read them (a
/// question that is not one is a usage error).
fn queries_of(case: &Case) -> Result<Vec<workload_lens::SourceQuery>, Error> {
    match &case.queries {
        None => Ok(Vec::new()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| {
            Error::new(
                workload_lens::ErrorCode::Usage,
                format!("the questions must be paths or query objects: {e}"),
            )
        }),
    }
}

fn object_of(case: &Case, engine: &Engine) -> Result<Result<Value, Error>, String> {
    if let Some(t) = object_text(case)? {
        return Ok(engine.read_object(t));
    }
    case.object
        .as_ref()
        .map(|v| read_value_as_bindings_do(v, engine))
        .ok_or_else(|| "the case needs an object".to_string())
}

/// The case's pods, read as every runtime reads them: a list, one pod or a
/// `PodList` (none: no pods).
fn pods_of(case: &Case, engine: &Engine) -> Result<Vec<Value>, Error> {
    match &case.pods {
        None => Ok(Vec::new()),
        Some(v) => engine.read_objects(&v.to_string()),
    }
}

/// The case with the generators of its inputs expanded ([`generate`]), and
/// a `definition: {ref: NAME}` replaced by the group's definition (expanded
/// too): what the runners run. The expectation is left as written:
/// [`compare`] expands it, after the run (a generated input and a generated
/// result need not be in memory together). An error when a generator is
/// malformed or too big, or the group has no such definition.
pub fn expand_case(case: &Case, group: &Group) -> Result<Case, String> {
    let mut budget = generate::Budget::default();
    let mut ex = |v: &Option<Value>| -> Result<Option<Value>, String> {
        v.as_ref()
            .map(|v| generate::expand(v, &mut budget))
            .transpose()
    };
    let definition = match &case.definition {
        Some(Value::Object(o)) if o.contains_key("ref") && o.len() == 1 => {
            let name = o["ref"].as_str().unwrap_or_default();
            let v = group
                .definitions
                .get(name)
                .ok_or_else(|| format!("no group definition {name}"))?;
            Some(v.clone())
        }
        d => d.clone(),
    };
    Ok(Case {
        definition: ex(&definition)?,
        object: ex(&case.object)?,
        object_text: ex(&case.object_text)?,
        pods: ex(&case.pods)?,
        events: ex(&case.events)?,
        related: ex(&case.related)?,
        request: ex(&case.request)?,
        input: ex(&case.input)?,
        ..case.clone()
    })
}

/// Run one case and return its canonical outcome value: [`expand_case`],
/// then [`run_expanded`].
pub fn run_case(case: &Case, group: &Group) -> Result<Value, String> {
    run_expanded(&expand_case(case, group)?, group)
}

/// Run one case whose generators are expanded ([`expand_case`]).
pub fn run_expanded(case: &Case, group: &Group) -> Result<Value, String> {
    let limits = limits_of(case)?;
    macro_rules! attempt {
        ($e:expr) => {
            match $e {
                Ok(v) => v,
                Err(e) => return Ok(error_value(&e)),
            }
        };
    }
    let engine = match empty_engine(limits) {
        Ok(e) => e,
        Err(e) => return Ok(error_value(&e)),
    };
    let result = match case.op.as_str() {
        "evaluate" => {
            let expr = case
                .expression
                .as_deref()
                .ok_or("evaluate needs an expression")?;
            let input = attempt!(read_value_as_bindings_do(
                case.input.as_ref().unwrap_or(&Value::Null),
                &engine
            ));
            json!({"outputs": attempt!(workload_lens::evaluate(expr, &input, &limits))})
        }
        "parse" => {
            let text = object_text(case)?.ok_or("parse needs objectText")?;
            let docs = attempt!(parse_documents(text, &limits));
            json!(docs.into_iter().map(|d| d.value).collect::<Vec<_>>())
        }
        "cluster" => return cluster_case(case, group, limits),
        "sourceMap" if case.definition.is_none() => {
            let text = object_text(case)?.ok_or("sourceMap needs objectText")?;
            let queries = attempt!(queries_of(case));
            to_value(&attempt!(workload_lens::source_map(
                text, &queries, &limits
            )))
        }
        "validate" => {
            let text = match &case.definition {
                Some(Value::Object(o)) if o.contains_key("text") && o.len() == 1 => {
                    o["text"].as_str().unwrap_or_default().to_string()
                }
                Some(Value::Object(o)) if o.contains_key("ref") && o.len() == 1 => group
                    .definitions
                    .get(o["ref"].as_str().unwrap_or_default())
                    .map(Value::to_string)
                    .ok_or("no such group definition")?,
                Some(v) => v.to_string(),
                None => return Err("validate needs a definition".into()),
            };
            let report = attempt!(engine.validate(&text));
            let all: Vec<Value> = report
                .definitions
                .iter()
                .map(|d| {
                    json!({
                        "valid": d.valid,
                        "findings": d.findings.iter().map(finding_value).collect::<Vec<_>>(),
                    })
                })
                .collect();
            json!(all)
        }
        op => {
            let def = attempt!(definition_of(case, group, &engine)?);
            match op {
                "resolve" => {
                    let obj = attempt!(object_of(case, &engine)?);
                    match &case.pods {
                        Some(_) => {
                            let pods = attempt!(pods_of(case, &engine));
                            to_value(&attempt!(def.resolve_with_pods(&obj, &pods)))
                        }
                        None => to_value(&attempt!(def.resolve(&obj))),
                    }
                }
                "resolveByKind" => {
                    let obj = attempt!(object_of(case, &engine)?);
                    let mut engine = attempt!(Engine::builder().limits(limits).build());
                    engine.add_definition(def);
                    to_value(&attempt!(engine.resolve(&obj)))
                }
                "status" => {
                    let obj = attempt!(object_of(case, &engine)?);
                    to_value(&attempt!(def.status(&obj)))
                }
                "update" => {
                    let obj = attempt!(object_of(case, &engine)?);
                    let req = attempt!(read_value_as_bindings_do(
                        case.request.as_ref().unwrap_or(&json!({})),
                        &engine
                    ));
                    // Read as the bindings read it: a request that does not
                    // fit `UpdateRequest` is the engine's usage error.
                    to_value(&attempt!(workload_lens_binding::ops::definition::update(
                        &def,
                        workload_lens_binding::Input::Value(obj),
                        workload_lens_binding::Input::Value(req)
                    )))
                }
                "suspend" => to_value(&attempt!(def.suspend(&attempt!(object_of(case, &engine)?)))),
                "resume" => to_value(&attempt!(def.resume(&attempt!(object_of(case, &engine)?)))),
                "attribute" => {
                    let obj = match &case.object {
                        Some(v) => Some(attempt!(read_value_as_bindings_do(v, &engine))),
                        None => None,
                    };
                    let pods = attempt!(pods_of(case, &engine));
                    to_value(&attempt!(def.attribute_pods(obj.as_ref(), &pods)))
                }
                "gang" => {
                    let obj = attempt!(object_of(case, &engine)?);
                    let pods = attempt!(pods_of(case, &engine));
                    to_value(&attempt!(def.gang_groups(&obj, &pods)))
                }
                "diagnose" => {
                    let obj = attempt!(object_of(case, &engine)?);
                    let read = |v: &Option<Value>| match v {
                        None => Ok(Vec::new()),
                        Some(v) => engine.read_objects(&v.to_string()),
                    };
                    let pods = attempt!(read(&case.pods));
                    let events = attempt!(read(&case.events));
                    let related = attempt!(read(&case.related));
                    to_value(&attempt!(def.diagnose(&obj, &pods, &events, &related)))
                }
                "gangStructure" => to_value(&attempt!(def.gang_structure())),
                "subtreeScale" => {
                    let obj = attempt!(object_of(case, &engine)?);
                    let component = case
                        .component
                        .as_deref()
                        .ok_or("subtreeScale needs a component")?;
                    json!(attempt!(def.subtree_scale_of(
                        &obj,
                        component,
                        case.instance.as_deref()
                    )))
                }
                "compile" => {
                    json!({"name": def.name(), "warnings": def.warnings().iter().map(finding_value).collect::<Vec<_>>()})
                }
                "sourceMap" => {
                    let text = object_text(case)?.ok_or("sourceMap needs objectText")?;
                    let queries = attempt!(queries_of(case));
                    to_value(&attempt!(def.source_map(text, &queries)))
                }
                other => return Err(format!("unknown op {other}")),
            }
        }
    };
    Ok(json!({ "result": result }))
}

/// The replies of a recorded server: request -> reply JSON
/// (`{"status", "body"}` with the body as text, or `{"error"}`).
pub fn server_of(case: &Case, group: &Group) -> Result<BTreeMap<String, Value>, String> {
    let mut out = BTreeMap::new();
    let parts = match &case.server {
        None => return Err("a cluster case needs a server".into()),
        Some(Value::Array(a)) => a.clone(),
        Some(v) => vec![v.clone()],
    };
    for part in parts {
        let map = match part {
            Value::String(name) => group
                .servers
                .get(&name)
                .cloned()
                .ok_or_else(|| format!("no group server {name}"))?,
            v => v,
        };
        let Value::Object(map) = map else {
            return Err("a server is a map of request -> reply".into());
        };
        for (path, reply) in map {
            let reply = match reply {
                Value::Object(mut r) => {
                    if let Some(body) = r.remove("body") {
                        r.insert("body".into(), Value::String(body.to_string()));
                    } else if let Some(text) = r.remove("bodyText") {
                        r.insert("body".into(), text);
                    }
                    Value::Object(r)
                }
                _ => return Err(format!("the reply to {path} is not a map")),
            };
            out.insert(path, reply);
        }
    }
    Ok(out)
}

/// The reply of a recorded server to a request: recorded, else 404.
pub fn reply_to(server: &BTreeMap<String, Value>, path: &str) -> Value {
    server.get(path).cloned().unwrap_or_else(|| {
        json!({"status": 404, "body": json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
            "message": "the server could not find the requested resource", "reason": "NotFound", "code": 404}).to_string()})
    })
}

/// Run a `cluster` case: drive the protocol against the recorded server,
/// every request answered from it. The result is `{requests, outcome}`:
/// every request in order, and the outcome as the bindings return it
/// (without the served resources).
fn cluster_case(case: &Case, group: &Group, limits: Limits) -> Result<Value, String> {
    let server = server_of(case, group)?;
    let op: workload_lens::ClusterOp = serde_json::from_value(
        case.cluster
            .clone()
            .ok_or("a cluster case needs `cluster`")?,
    )
    .map_err(|e| format!("cluster: {e}"))?;
    let mut engine = match Engine::builder().limits(limits).build() {
        Ok(e) => e,
        Err(e) => return Ok(error_value(&e)),
    };
    if case.definition.is_some() {
        match definition_of(case, group, &engine)? {
            Ok(d) => {
                engine.add_definition(d);
            }
            Err(e) => return Ok(error_value(&e)),
        }
    }
    let mut session = engine.cluster_session(op);
    let mut requests = Vec::new();
    while !session.is_done() {
        let mut replies = Vec::new();
        for r in session.requests() {
            requests.push(r.path.clone());
            let reply: workload_lens::Reply = serde_json::from_value(reply_to(&server, &r.path))
                .map_err(|e| format!("the reply to {}: {e}", r.path))?;
            replies.push(reply);
        }
        if session.feed(replies).is_err() {
            break;
        }
    }
    let outcome = match session.finish() {
        Ok(o) => o,
        Err(e) => return Ok(error_value(&e)),
    };
    let discovery = matches!(outcome, workload_lens::ClusterOutcome::Discovery(_));
    let outcome = match outcome.to_value() {
        Ok(v) => v,
        Err(e) => return Ok(error_value(&e)),
    };
    // The served resources are the outcome of a discovery, and in every
    // other outcome too: left out there.
    let mut outcome = outcome;
    if !discovery && let Some(o) = outcome.as_object_mut() {
        o.remove("served");
    }
    Ok(json!({"result": {"requests": requests, "outcome": outcome}}))
}

/// Compare an outcome with the expectation (its generators expanded).
/// Results compare whole; errors compare only the keys the expectation
/// gives.
pub fn compare(expect: &Value, actual: &Value) -> Result<(), String> {
    let expanded;
    let expect = if generate::has_generators(expect) {
        expanded = generate::expand(expect, &mut generate::Budget::default())?;
        &expanded
    } else {
        expect
    };
    match (expect.get("error"), actual.get("error")) {
        (Some(Value::Object(want)), Some(Value::Object(got))) => {
            for (k, w) in want {
                let g = got.get(k).unwrap_or(&Value::Null);
                if canonical(w) != canonical(g) {
                    return Err(format!(
                        "error.{k}: expected {}, got {}",
                        shown(w),
                        shown(g)
                    ));
                }
            }
            Ok(())
        }
        (Some(_), _) => Err(format!("expected an error, got {}", shown(actual))),
        (None, Some(_)) => Err(format!("unexpected error {}", shown(actual))),
        (None, None) => {
            let (w, g) = (canonical(expect), canonical(actual));
            if w == g {
                Ok(())
            } else {
                Err(diff(expect, actual, ""))
            }
        }
    }
}

/// A value's canonical JSON for a message: at most 300 bytes of it (a
/// generated result is megabytes).
fn shown(v: &Value) -> String {
    let s = canonical(v);
    if s.len() <= 300 {
        return s;
    }
    let mut end = 300;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} more bytes)", &s[..end], s.len() - end)
}

/// The first differences between two values, as JSON paths.
fn diff(a: &Value, b: &Value, path: &str) -> String {
    let mut out = Vec::new();
    diff_into(a, b, path, &mut out);
    out.truncate(8);
    out.join("\n")
}

fn diff_into(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    if canonical(a) == canonical(b) || out.len() >= 8 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let p = format!("{path}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(v), Some(w)) => diff_into(v, w, &p, out),
                    (Some(v), None) => out.push(format!("{p}: expected {}, missing", shown(v))),
                    (None, Some(w)) => out.push(format!("{p}: unexpected {}", shown(w))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                diff_into(v, w, &format!("{path}[{i}]"), out);
            }
        }
        _ => out.push(format!("{path}: expected {}, got {}", shown(a), shown(b))),
    }
}

/// Run one case with this (Rust) runtime. A case whose `knownDifferences`
/// names `rust` is not run (`Outcome::Known`) unless the environment sets
/// `CONFORMANCE_INCLUDE_KNOWN` (to see which ones a fix has resolved).
pub fn run_one(case: &Case, group: &Group) -> Outcome {
    if let Some(known) = known_difference(case) {
        return known;
    }
    // The expanded inputs are dropped before the expectation is expanded.
    outcome_of(
        case,
        &expand_case(case, group).and_then(|x| run_expanded(&x, group)),
    )
}

/// A known difference of the Rust runtime (skipped, unless
/// `CONFORMANCE_INCLUDE_KNOWN` is set).
fn known_difference(case: &Case) -> Option<Outcome> {
    case.known_differences
        .get("rust")
        .filter(|_| std::env::var_os("CONFORMANCE_INCLUDE_KNOWN").is_none())
        .map(|reason| Outcome::Known(reason.clone()))
}

/// The outcome of what the case gave.
fn outcome_of(case: &Case, actual: &Result<Value, String>) -> Outcome {
    match actual {
        Ok(actual) => match compare(&case.expect, actual) {
            Ok(()) => Outcome::Pass,
            Err(d) => Outcome::Fail(d),
        },
        Err(e) => Outcome::Fail(format!("cannot run: {e}")),
    }
}

/// What a case gives with the jq fast path and without it (jaq alone), and
/// its outcome (as [`run_one`] gives it, from the run with the fast path):
/// the suite's own test runs every case this way, and checks that the
/// fast path changes nothing but, at a limit, whether the case fits. The
/// runs without the fast path are `None` when the case cannot be expanded.
pub fn run_one_both_ways(case: &Case, group: &Group) -> (Outcome, Option<FastPathRuns>) {
    let Ok(x) = expand_case(case, group) else {
        return (run_one(case, group), None);
    };
    let on = run_expanded(&x, group);
    let before = workload_lens::set_fast_path(false);
    let off = run_expanded(&x, group);
    workload_lens::set_fast_path(before);
    drop(x);
    let outcome = known_difference(case).unwrap_or_else(|| outcome_of(case, &on));
    (outcome, Some(FastPathRuns { on, off }))
}

/// A case's answers with the jq fast path (`on`) and with jaq alone (`off`).
pub struct FastPathRuns {
    pub on: Result<Value, String>,
    pub off: Result<Value, String>,
}

impl FastPathRuns {
    /// Whether either answer is a limit error (the fast path spends less
    /// of a call's budget, so near a limit one may fit and not the other,
    /// or both may breach, at different places).
    pub fn at_a_limit(&self) -> bool {
        [&self.on, &self.off].iter().any(|r| {
            matches!(r, Ok(v) if v.pointer("/error/code").and_then(Value::as_str) == Some("limit"))
        })
    }
}

/// Run every case with this (Rust) runtime.
pub fn run_all(groups: &[Group]) -> Vec<(String, Outcome)> {
    groups
        .iter()
        .flat_map(|g| g.cases.iter().map(move |c| (c.name.clone(), run_one(c, g))))
        .collect()
}
