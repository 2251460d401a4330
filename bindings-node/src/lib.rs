//! The native half of the `workload-lens` npm package: the raw interface
//! (see `bindings-node/lib/api.mjs`, which builds the public API over it, and
//! which the WASM module of `bindings-wasm` exports too).
//!
//! Deliberately thin: values cross as JSON text (the JS layer calls
//! `JSON.stringify`/`JSON.parse`); objects, pods and requests are read with
//! the engine's reader for binding arguments (`source::read_value`), which
//! also takes the user's own YAML/JSON text. Every failure throws a JS `Error`
//! whose message is the JSON of the engine's error plus its display text
//! (`{"code", "message", "display", "location", "limit"?, "findings"?}`), and
//! whose `code` property is `"WorkloadLensError"`; the JS layer turns it into
//! the error class of its code. Every entry point catches panics
//! (`catch_unwind`): a bug is reported as code `internal`, never a crash of
//! the Node process.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use napi::bindgen_prelude::{ClassInstance, Uint8Array};
use napi::{Error as JsError, Status};
use napi_derive::napi;
use serde::Serialize;
use serde_json::{Value, json};
use workload_lens::source::{parse_documents, parse_documents_bytes, read_items, read_value};
use workload_lens::{
    CompiledDefinition, DefinitionSet, Error, ErrorCode, Gvk, Limits, Origin, UpdateRequest,
    catalog, definition, validate,
};

/// Why a call failed: an engine error, or a bug (a panic, a value that
/// cannot be serialized), reported as code `internal`.
#[allow(clippy::large_enum_variant)]
enum Fail {
    Engine(Error),
    Internal(String),
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Engine(e)
    }
}

type Out<T> = Result<T, Fail>;

/// The JS error for a failure: its message is the JSON the JS layer reads.
fn js_error(fail: Fail) -> JsError {
    let payload = match fail {
        Fail::Engine(e) => {
            let display = e.to_string();
            match serde_json::to_value(&e) {
                Ok(Value::Object(mut m)) => {
                    m.insert("display".into(), Value::String(display));
                    Value::Object(m).to_string()
                }
                _ => {
                    json!({"code": "internal", "message": display, "display": display}).to_string()
                }
            }
        }
        Fail::Internal(m) => {
            let m = format!("internal error in workload-lens (please report it): {m}");
            json!({"code": "internal", "message": m, "display": m, "location": {}}).to_string()
        }
    };
    JsError::new(Status::GenericFailure, payload)
}

fn panic_message(payload: Box<dyn Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        format!("panic: {s}")
    } else if let Some(s) = payload.downcast_ref::<String>() {
        format!("panic: {s}")
    } else {
        "panic".into()
    }
}

/// The guard of every entry point: engine errors and panics become JS errors.
fn entry<T>(f: impl FnOnce() -> Out<T>) -> napi::Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(fail)) => Err(js_error(fail)),
        Err(p) => Err(js_error(Fail::Internal(panic_message(p)))),
    }
}

fn to_json<T: Serialize + ?Sized>(t: &T) -> Out<String> {
    serde_json::to_string(t).map_err(|e| Fail::Internal(format!("cannot serialize: {e}")))
}

/// `Limits` from camelCase JSON (`None`: the defaults); an unknown field or a
/// bad value is a usage error naming it.
fn limits_of(json: Option<&str>) -> Result<Limits, Error> {
    match json {
        None => Ok(Limits::default()),
        Some(j) => serde_json::from_str(j)
            .map_err(|e| Error::new(ErrorCode::Usage, format!("invalid limits: {e}"))),
    }
}

fn pods_of(pods: Option<&str>, limits: &Limits) -> Result<Option<Vec<Value>>, Error> {
    pods.map(|p| read_items(p, limits)).transpose()
}

/// The bundled catalog, built once (its definitions are shared `Arc`s).
fn bundled() -> Result<&'static DefinitionSet, Error> {
    static SET: std::sync::OnceLock<DefinitionSet> = std::sync::OnceLock::new();
    if let Some(s) = SET.get() {
        return Ok(s);
    }
    let set = DefinitionSet::with_catalog()?;
    Ok(SET.get_or_init(|| set))
}

fn resolve_in(set: &DefinitionSet, obj: &str, pods: Option<&str>, limits: &Limits) -> Out<String> {
    let obj = read_value(obj, limits)?;
    match pods {
        None => to_json(&set.resolve(&obj)?),
        Some(p) => {
            let d = set.lookup_object(&obj)?;
            let pods = read_items(p, d.limits())?;
            to_json(&d.resolve_with_pods(&obj, &pods)?)
        }
    }
}

/// The package version.
#[napi]
pub fn version() -> napi::Result<String> {
    entry(|| Ok(env!("CARGO_PKG_VERSION").to_string()))
}

/// The default limits, as JSON (camelCase).
#[napi]
pub fn default_limits() -> napi::Result<String> {
    entry(|| to_json(&Limits::default()))
}

/// Complete limits from camelCase JSON (missing fields: defaults).
#[napi]
pub fn check_limits(limits: Option<String>) -> napi::Result<String> {
    entry(|| to_json(&limits_of(limits.as_deref())?))
}

/// Every document of a YAML/JSON text, as a JSON array.
#[napi]
pub fn parse(text: String, limits: Option<String>) -> napi::Result<String> {
    entry(|| {
        let docs = parse_documents(&text, &limits_of(limits.as_deref())?)?;
        to_json(&docs.into_iter().map(|d| d.value).collect::<Vec<_>>())
    })
}

/// Like `parse`, for bytes (invalid UTF-8 is a located parse error).
#[napi]
pub fn parse_bytes(bytes: Uint8Array, limits: Option<String>) -> napi::Result<String> {
    entry(|| {
        let docs = parse_documents_bytes(&bytes, &limits_of(limits.as_deref())?)?;
        to_json(&docs.into_iter().map(|d| d.value).collect::<Vec<_>>())
    })
}

/// Run one jq expression on a JSON input: every output, as a JSON array.
#[napi]
pub fn evaluate(
    expression: String,
    input_json: String,
    limits: Option<String>,
) -> napi::Result<String> {
    entry(|| {
        let limits = limits_of(limits.as_deref())?;
        let input = read_value(&input_json, &limits)?;
        to_json(&workload_lens::evaluate(&expression, &input, &limits)?)
    })
}

/// Validate every definition of a text: `[{name, valid, findings}]`.
#[napi]
pub fn validate(text: String, limits: Option<String>) -> napi::Result<String> {
    entry(|| {
        let limits = limits_of(limits.as_deref())?;
        let loaded = definition::read_definitions(&text, &limits)?;
        let all: Vec<Value> = loaded
            .iter()
            .map(|l| {
                let findings = validate::validate_loaded(l, &limits);
                json!({
                    "name": l.definition.metadata.name,
                    "valid": !validate::has_errors(&findings),
                    "findings": findings,
                })
            })
            .collect();
        to_json(&all)
    })
}

/// The bundled definition files: `{file name: YAML text}`.
#[napi]
pub fn catalog_sources() -> napi::Result<String> {
    entry(|| {
        let m: serde_json::Map<String, Value> = catalog::FILES
            .iter()
            .map(|(f, t)| ((*f).to_string(), Value::String((*t).to_string())))
            .collect();
        to_json(&m)
    })
}

/// Resolve with the bundled catalog plus `defs` (which override bundled
/// definitions of the same root GVK), choosing the definition by GVK.
#[napi]
pub fn resolve_any(
    obj: String,
    defs: Vec<ClassInstance<NativeDefinition>>,
    pods: Option<String>,
    limits: Option<String>,
) -> napi::Result<String> {
    entry(|| {
        let limits = limits_of(limits.as_deref())?;
        if defs.is_empty() {
            return resolve_in(bundled()?, &obj, pods.as_deref(), &limits);
        }
        let mut set = bundled()?.clone();
        for d in &defs {
            set.add(d.inner.clone());
        }
        resolve_in(&set, &obj, pods.as_deref(), &limits)
    })
}

/// A compiled definition.
#[napi]
pub struct NativeDefinition {
    inner: Arc<CompiledDefinition>,
}

impl NativeDefinition {
    fn new(inner: impl Into<Arc<CompiledDefinition>>) -> Self {
        NativeDefinition {
            inner: inner.into(),
        }
    }

    fn obj(&self, text: &str) -> Result<Value, Error> {
        read_value(text, self.inner.limits())
    }
}

#[napi]
impl NativeDefinition {
    /// Compile the one definition of a YAML/JSON text.
    #[napi(factory)]
    pub fn compile(text: String, limits: Option<String>) -> napi::Result<NativeDefinition> {
        entry(|| {
            let limits = limits_of(limits.as_deref())?;
            Ok(NativeDefinition::new(CompiledDefinition::from_text(
                &text, limits,
            )?))
        })
    }

    /// Compile every definition of a YAML/JSON text.
    #[napi]
    pub fn compile_all(
        text: String,
        limits: Option<String>,
    ) -> napi::Result<Vec<NativeDefinition>> {
        entry(|| {
            let limits = limits_of(limits.as_deref())?;
            let defs = CompiledDefinition::all_from_text(&text, limits, Origin::User)?;
            Ok(defs.into_iter().map(NativeDefinition::new).collect())
        })
    }

    /// `{name, origin, gvk: {group, version, kind}, components, canSuspend,
    /// warnings, limits}` as JSON.
    #[napi]
    pub fn info(&self) -> napi::Result<String> {
        entry(|| {
            let d = &self.inner;
            let Gvk {
                group,
                version,
                kind,
            } = d.root_gvk();
            to_json(&json!({
                "name": d.name(),
                "origin": d.origin().as_str(),
                "gvk": {"group": group, "version": version, "kind": kind},
                "components": d.component_names(),
                "canSuspend": d.can_suspend(),
                "warnings": d.warnings(),
                "limits": d.limits(),
            }))
        })
    }

    /// The definition as read, as JSON.
    #[napi]
    pub fn definition_json(&self) -> napi::Result<String> {
        entry(|| to_json(self.inner.definition()))
    }

    /// Resolve (with the live state when `pods` is given).
    #[napi]
    pub fn resolve(&self, obj: String, pods: Option<String>) -> napi::Result<String> {
        entry(|| {
            let d = &self.inner;
            let obj = self.obj(&obj)?;
            match pods_of(pods.as_deref(), d.limits())? {
                Some(p) => to_json(&d.resolve_with_pods(&obj, &p)?),
                None => to_json(&d.resolve(&obj)?),
            }
        })
    }

    /// The root status (JSON `null` when the definition has none).
    #[napi]
    pub fn status(&self, obj: String) -> napi::Result<String> {
        entry(|| to_json(&self.inner.status(&self.obj(&obj)?)?))
    }

    /// Why the object has its status: every matcher of every status category
    /// with its outcome and reason (the engine's `explain_status`).
    #[napi]
    pub fn explain_status(&self, obj: String) -> napi::Result<String> {
        entry(|| to_json(&self.inner.explain_status(&self.obj(&obj)?)?))
    }

    /// Write values through the definition's paths: `{object, patch}`.
    #[napi]
    pub fn update(&self, obj: String, request: String) -> napi::Result<String> {
        entry(|| {
            let obj = self.obj(&obj)?;
            let req: UpdateRequest = serde_json::from_value(self.obj(&request)?).map_err(|e| {
                Error::new(ErrorCode::Usage, format!("invalid update request: {e}"))
            })?;
            to_json(&self.inner.update(&obj, &req)?)
        })
    }

    /// Apply the suspend actions: `{object, patch}`.
    #[napi]
    pub fn suspend(&self, obj: String) -> napi::Result<String> {
        entry(|| to_json(&self.inner.suspend(&self.obj(&obj)?)?))
    }

    /// Apply the resume actions: `{object, patch}`.
    #[napi]
    pub fn resume(&self, obj: String) -> napi::Result<String> {
        entry(|| to_json(&self.inner.resume(&self.obj(&obj)?)?))
    }

    /// Place pods under components and instances.
    #[napi]
    pub fn attribute_pods(&self, obj: Option<String>, pods: String) -> napi::Result<String> {
        entry(|| {
            let obj = obj.map(|o| self.obj(&o)).transpose()?;
            let pods = read_items(&pods, self.inner.limits())?;
            to_json(&self.inner.attribute_pods(obj.as_ref(), &pods)?)
        })
    }

    /// Gang-scheduling groups of the workload's pods.
    #[napi]
    pub fn gang_groups(&self, obj: String, pods: String) -> napi::Result<String> {
        entry(|| {
            let obj = self.obj(&obj)?;
            let pods = read_items(&pods, self.inner.limits())?;
            to_json(&self.inner.gang_groups(&obj, &pods)?)
        })
    }
}

/// A set of definitions keyed by root GVK (the engine's `DefinitionSet`).
#[napi]
pub struct NativeCatalog {
    set: DefinitionSet,
}

#[napi]
impl NativeCatalog {
    /// The bundled catalog (`bundled`), or an empty set.
    #[napi(constructor)]
    pub fn new(bundled: bool) -> napi::Result<Self> {
        entry(|| {
            Ok(NativeCatalog {
                set: if bundled {
                    self::bundled()?.clone()
                } else {
                    DefinitionSet::new()
                },
            })
        })
    }

    /// Add a definition (it replaces one of the same root GVK).
    #[napi]
    pub fn add(&mut self, def: &NativeDefinition) -> napi::Result<()> {
        entry(|| {
            self.set.add(def.inner.clone());
            Ok(())
        })
    }

    /// The definition for an apiVersion and kind.
    #[napi]
    pub fn lookup(
        &self,
        api_version: String,
        kind: String,
    ) -> napi::Result<Option<NativeDefinition>> {
        entry(|| {
            let gvk = Gvk::from_api_version(&api_version, &kind);
            Ok(self.set.lookup(&gvk).cloned().map(NativeDefinition::new))
        })
    }

    /// The definition for an object, by its apiVersion and kind.
    #[napi]
    pub fn lookup_object(&self, obj: String) -> napi::Result<NativeDefinition> {
        entry(|| {
            let obj = read_value(&obj, &Limits::default())?;
            Ok(NativeDefinition::new(self.set.lookup_object(&obj)?.clone()))
        })
    }

    /// A definition by name.
    #[napi]
    pub fn get(&self, name: String) -> napi::Result<Option<NativeDefinition>> {
        entry(|| Ok(self.set.get(&name).cloned().map(NativeDefinition::new)))
    }

    /// Every definition, sorted by name.
    #[napi]
    pub fn definitions(&self) -> napi::Result<Vec<NativeDefinition>> {
        entry(|| {
            Ok(self
                .set
                .definitions()
                .into_iter()
                .map(|d| NativeDefinition::new(d.clone()))
                .collect())
        })
    }

    /// Choose the definition by GVK and resolve (with pods: live state).
    #[napi]
    pub fn resolve(&self, obj: String, pods: Option<String>) -> napi::Result<String> {
        entry(|| resolve_in(&self.set, &obj, pods.as_deref(), &Limits::default()))
    }

    /// The number of definitions.
    #[napi]
    pub fn size(&self) -> napi::Result<u32> {
        entry(|| Ok(u32::try_from(self.set.definitions().len()).unwrap_or(u32::MAX)))
    }
}

/// Panic inside an entry point (tests of the panic guard only).
#[napi(js_name = "_panicForTests")]
pub fn panic_for_tests(message: String) -> napi::Result<()> {
    entry(|| -> Out<()> { panic!("{message}") })
}
