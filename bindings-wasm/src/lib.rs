//! `workload_lens_wasm`: the WebAssembly build of workload-lens.
//!
//! It exports exactly the raw interface the Node addon exports
//! (`notes/raw-abi.md` in the project notes; the JavaScript layer in
//! `bindings-node/lib/` wraps either one): values cross as JSON text, user
//! text (YAML/JSON) crosses as it is, and every failure throws a JS `Error`
//! whose `message` is the JSON of the engine's error plus its `display` text,
//! with `wlError = true`. Nothing here but conversions.
//!
//! The module is built with `panic = "abort"`: a panic (a bug) or a stack
//! overflow traps, and the JS layer then re-instantiates the module. The
//! engine's limits (and its hard ceilings, sized for a 1 MiB stack) are what
//! keep hostile input from getting there.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};
use wasm_bindgen::prelude::*;
use workload_lens::source::{parse_documents, parse_documents_bytes, read_items, read_value};
use workload_lens::{
    CompiledDefinition, DefinitionSet, Error, ErrorCode, Gvk, Limits, Origin, UpdateRequest,
    catalog, definition, validate,
};

/// Why a call failed: an engine error, or a bug (a value that cannot be
/// serialized), reported as code `internal`. Errors are the cold path.
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

/// The JSON payload of a failure: the engine's error serialized, plus its
/// Display text (`display`).
fn payload(fail: Fail) -> String {
    let v = match fail {
        Fail::Engine(e) => {
            let display = e.to_string();
            match serde_json::to_value(&e) {
                Ok(Value::Object(mut m)) => {
                    m.insert("display".into(), Value::String(display));
                    Value::Object(m)
                }
                _ => json!({"code": "internal", "message": display, "display": display}),
            }
        }
        Fail::Internal(m) => {
            let m = format!("internal error in workload-lens (please report it): {m}");
            json!({"code": "internal", "message": m, "display": m, "location": {}})
        }
    };
    v.to_string()
}

#[wasm_bindgen]
extern "C" {
    /// JavaScript's `Error`.
    #[wasm_bindgen(js_name = Error)]
    type JsErrorObject;
    #[wasm_bindgen(constructor, js_class = "Error")]
    fn new(message: &str) -> JsErrorObject;
    #[wasm_bindgen(method, setter, js_name = wlError)]
    fn set_wl_error(this: &JsErrorObject, value: bool);
}

/// A JS `Error` carrying the payload as its message, marked `wlError`.
fn throw(fail: Fail) -> JsValue {
    let err = JsErrorObject::new(&payload(fail));
    err.set_wl_error(true);
    err.into()
}

/// Run a call, converting its failure into the thrown JS error.
fn run<T>(f: impl FnOnce() -> Out<T>) -> Result<T, JsValue> {
    f().map_err(throw)
}

fn to_json<T: Serialize + ?Sized>(t: &T) -> Out<String> {
    serde_json::to_string(t).map_err(|e| Fail::Internal(format!("cannot serialize: {e}")))
}

/// `Limits` from the camelCase JSON object the JS layer builds (`null`: the
/// defaults; an unknown field is a usage error naming it).
fn limits_of(json: Option<&str>) -> Result<Limits, Error> {
    match json {
        None => Ok(Limits::default()),
        Some(j) => serde_json::from_str(j)
            .map_err(|e| Error::new(ErrorCode::Usage, format!("invalid limits: {e}"))),
    }
}

/// A compiled definition (`Definition` of the JS layer wraps it).
#[wasm_bindgen(js_name = NativeDefinition)]
pub struct NativeDefinition {
    inner: Arc<CompiledDefinition>,
    handle: u32,
}

thread_local! {
    /// Every live `NativeDefinition` by handle, so that `resolveAny` can take
    /// an array of them without taking them over (wasm-bindgen moves structs
    /// passed by value out of their JS objects).
    static LIVE: RefCell<HashMap<u32, Arc<CompiledDefinition>>> = RefCell::new(HashMap::new());
    static NEXT: Cell<u32> = const { Cell::new(1) };
}

impl NativeDefinition {
    fn new(inner: impl Into<Arc<CompiledDefinition>>) -> Self {
        let inner = inner.into();
        let handle = NEXT.with(|n| {
            let h = n.get();
            n.set(h.wrapping_add(1).max(1));
            h
        });
        LIVE.with(|l| l.borrow_mut().insert(handle, inner.clone()));
        NativeDefinition { inner, handle }
    }

    fn limits(&self) -> &Limits {
        self.inner.limits()
    }
}

impl Drop for NativeDefinition {
    fn drop(&mut self) {
        // `try_with`: nothing to do while the thread-locals are torn down.
        let _ = LIVE.try_with(|l| l.borrow_mut().remove(&self.handle));
    }
}

#[wasm_bindgen(js_class = NativeDefinition)]
impl NativeDefinition {
    /// Compile the one definition of a YAML/JSON text.
    pub fn compile(text: &str, limits: Option<String>) -> Result<NativeDefinition, JsValue> {
        run(|| {
            let limits = limits_of(limits.as_deref())?;
            Ok(NativeDefinition::new(CompiledDefinition::from_text(
                text, limits,
            )?))
        })
    }

    /// Compile every definition of a YAML/JSON text.
    #[wasm_bindgen(js_name = compileAll)]
    pub fn compile_all(
        text: &str,
        limits: Option<String>,
    ) -> Result<Vec<NativeDefinition>, JsValue> {
        run(|| {
            let limits = limits_of(limits.as_deref())?;
            let defs = CompiledDefinition::all_from_text(text, limits, Origin::User)?;
            Ok(defs.into_iter().map(NativeDefinition::new).collect())
        })
    }

    /// The handle `resolveAny` finds this definition by (internal).
    #[wasm_bindgen(getter = __wlHandle, skip_typescript)]
    pub fn wl_handle(&self) -> u32 {
        self.handle
    }

    /// `{name, origin, gvk: {group, version, kind}, components, canSuspend,
    /// warnings, limits}` as JSON.
    pub fn info(&self) -> Result<String, JsValue> {
        run(|| {
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

    /// The definition document, as JSON.
    #[wasm_bindgen(js_name = definitionJson)]
    pub fn definition_json(&self) -> Result<String, JsValue> {
        run(|| to_json(self.inner.definition()))
    }

    /// Resolve (with live state when `pods` is given).
    pub fn resolve(&self, obj: &str, pods: Option<String>) -> Result<String, JsValue> {
        run(|| {
            let l = self.limits();
            let obj = read_value(obj, l)?;
            match pods {
                Some(p) => to_json(&self.inner.resolve_with_pods(&obj, &read_items(&p, l)?)?),
                None => to_json(&self.inner.resolve(&obj)?),
            }
        })
    }

    /// The root status (JSON `null` when the definition has none).
    pub fn status(&self, obj: &str) -> Result<String, JsValue> {
        run(|| to_json(&self.inner.status(&read_value(obj, self.limits())?)?))
    }

    /// Why the object has its status: each category, which matcher matched
    /// or why not.
    #[wasm_bindgen(js_name = explainStatus)]
    pub fn explain_status(&self, obj: &str) -> Result<String, JsValue> {
        run(|| {
            to_json(
                &self
                    .inner
                    .explain_status(&read_value(obj, self.limits())?)?,
            )
        })
    }

    /// Write values through the definition's paths: `{object, patch}`.
    pub fn update(&self, obj: &str, request: &str) -> Result<String, JsValue> {
        run(|| {
            let obj = read_value(obj, self.limits())?;
            let req = read_value(request, self.limits())?;
            let req: UpdateRequest = serde_json::from_value(req).map_err(|e| {
                Error::new(ErrorCode::Usage, format!("invalid update request: {e}"))
            })?;
            to_json(&self.inner.update(&obj, &req)?)
        })
    }

    /// Apply the suspend actions: `{object, patch}`.
    pub fn suspend(&self, obj: &str) -> Result<String, JsValue> {
        run(|| to_json(&self.inner.suspend(&read_value(obj, self.limits())?)?))
    }

    /// Apply the resume actions: `{object, patch}`.
    pub fn resume(&self, obj: &str) -> Result<String, JsValue> {
        run(|| to_json(&self.inner.resume(&read_value(obj, self.limits())?)?))
    }

    /// Place pods under components and instances (`obj` may be `null`).
    #[wasm_bindgen(js_name = attributePods)]
    pub fn attribute_pods(&self, obj: Option<String>, pods: &str) -> Result<String, JsValue> {
        run(|| {
            let l = self.limits();
            let obj = obj.map(|o| read_value(&o, l)).transpose()?;
            to_json(
                &self
                    .inner
                    .attribute_pods(obj.as_ref(), &read_items(pods, l)?)?,
            )
        })
    }

    /// Gang-scheduling groups of the workload's pods.
    #[wasm_bindgen(js_name = gangGroups)]
    pub fn gang_groups(&self, obj: &str, pods: &str) -> Result<String, JsValue> {
        run(|| {
            let l = self.limits();
            let obj = read_value(obj, l)?;
            to_json(&self.inner.gang_groups(&obj, &read_items(pods, l)?)?)
        })
    }
}

/// A set of definitions keyed by root GVK (the engine's `DefinitionSet`).
#[wasm_bindgen(js_name = NativeCatalog)]
pub struct NativeCatalog {
    set: DefinitionSet,
}

#[wasm_bindgen(js_class = NativeCatalog)]
impl NativeCatalog {
    /// A catalog holding the bundled definitions (`bundled`) or none.
    #[wasm_bindgen(constructor)]
    pub fn new(bundled: bool) -> Result<NativeCatalog, JsValue> {
        run(|| {
            Ok(NativeCatalog {
                set: if bundled {
                    DefinitionSet::with_catalog()?
                } else {
                    DefinitionSet::new()
                },
            })
        })
    }

    /// Add a definition (it replaces one with the same root GVK).
    pub fn add(&mut self, def: &NativeDefinition) {
        self.set.add(def.inner.clone());
    }

    /// The definition for an apiVersion and kind.
    pub fn lookup(&self, api_version: &str, kind: &str) -> Option<NativeDefinition> {
        self.set
            .lookup(&Gvk::from_api_version(api_version, kind))
            .cloned()
            .map(NativeDefinition::new)
    }

    /// The definition for an object, by its apiVersion and kind.
    #[wasm_bindgen(js_name = lookupObject)]
    pub fn lookup_object(&self, obj: &str) -> Result<NativeDefinition, JsValue> {
        run(|| {
            let obj = read_value(obj, &Limits::default())?;
            Ok(NativeDefinition::new(self.set.lookup_object(&obj)?.clone()))
        })
    }

    /// A definition by name.
    pub fn get(&self, name: &str) -> Option<NativeDefinition> {
        self.set.get(name).cloned().map(NativeDefinition::new)
    }

    /// Every definition, sorted by name.
    pub fn definitions(&self) -> Vec<NativeDefinition> {
        self.set
            .definitions()
            .into_iter()
            .map(|d| NativeDefinition::new(d.clone()))
            .collect()
    }

    /// Choose the definition by GVK and resolve (with pods: live state).
    pub fn resolve(&self, obj: &str, pods: Option<String>) -> Result<String, JsValue> {
        run(|| resolve_in(&self.set, obj, pods.as_deref(), &Limits::default()))
    }

    /// How many definitions it holds.
    pub fn size(&self) -> u32 {
        u32::try_from(self.set.definitions().len()).unwrap_or(u32::MAX)
    }
}

/// Resolve with the definition chosen by GVK; `limits` bound the reading of
/// the object, the definition's own limits its evaluation and the pods.
fn resolve_in(set: &DefinitionSet, obj: &str, pods: Option<&str>, limits: &Limits) -> Out<String> {
    let obj = read_value(obj, limits)?;
    match pods {
        None => to_json(&set.resolve(&obj)?),
        Some(p) => {
            let d = set.lookup_object(&obj)?;
            to_json(&d.resolve_with_pods(&obj, &read_items(p, d.limits())?)?)
        }
    }
}

#[wasm_bindgen]
extern "C" {
    /// A `NativeDefinition` as `resolveAny` receives it (by reference).
    type DefinitionRef;
    #[wasm_bindgen(method, getter, js_name = __wlHandle)]
    fn wl_handle(this: &DefinitionRef) -> Option<u32>;
}

/// Resolve an object with the bundled catalog plus `defs` (which override
/// bundled definitions of the same GVK), choosing by the object's GVK.
#[wasm_bindgen(js_name = resolveAny)]
pub fn resolve_any(
    obj: &str,
    defs: Vec<JsValue>,
    pods: Option<String>,
    limits: Option<String>,
) -> Result<String, JsValue> {
    run(|| {
        let limits = limits_of(limits.as_deref())?;
        let mut set = DefinitionSet::with_catalog()?;
        for d in &defs {
            let def = d
                .unchecked_ref::<DefinitionRef>()
                .wl_handle()
                .and_then(|h| LIVE.with(|l| l.borrow().get(&h).cloned()))
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::Usage,
                        "definitions must be compiled definitions (NativeDefinition)",
                    )
                })?;
            set.add(def);
        }
        resolve_in(&set, obj, pods.as_deref(), &limits)
    })
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The default limits, as JSON (camelCase).
#[wasm_bindgen(js_name = defaultLimits)]
pub fn default_limits() -> Result<String, JsValue> {
    run(|| to_json(&Limits::default()))
}

/// Complete limits from a camelCase JSON object (missing fields: defaults).
#[wasm_bindgen(js_name = checkLimits)]
pub fn check_limits(limits: Option<String>) -> Result<String, JsValue> {
    run(|| to_json(&limits_of(limits.as_deref())?))
}

fn documents_json(docs: Vec<workload_lens::source::SourceDocument>) -> Out<String> {
    to_json(&docs.into_iter().map(|d| d.value).collect::<Vec<_>>())
}

/// Every document of a YAML/JSON text, as a JSON array.
#[wasm_bindgen]
pub fn parse(text: &str, limits: Option<String>) -> Result<String, JsValue> {
    run(|| documents_json(parse_documents(text, &limits_of(limits.as_deref())?)?))
}

/// Like `parse`, for bytes (invalid UTF-8 is a located parse error).
#[wasm_bindgen(js_name = parseBytes)]
pub fn parse_bytes(bytes: &[u8], limits: Option<String>) -> Result<String, JsValue> {
    run(|| {
        documents_json(parse_documents_bytes(
            bytes,
            &limits_of(limits.as_deref())?,
        )?)
    })
}

/// Run one jq expression on a JSON input: every output, as a JSON array.
#[wasm_bindgen]
pub fn evaluate(
    expression: &str,
    input_json: &str,
    limits: Option<String>,
) -> Result<String, JsValue> {
    run(|| {
        let limits = limits_of(limits.as_deref())?;
        let input = read_value(input_json, &limits)?;
        to_json(&workload_lens::evaluate(expression, &input, &limits)?)
    })
}

/// Validate every definition of a text: `[{name, valid, findings}]`.
#[wasm_bindgen(js_name = validate)]
pub fn validate_text(text: &str, limits: Option<String>) -> Result<String, JsValue> {
    run(|| {
        let limits = limits_of(limits.as_deref())?;
        let loaded = definition::read_definitions(text, &limits)?;
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

/// The bundled definition files: JSON object file name -> YAML text.
#[wasm_bindgen(js_name = catalogSources)]
pub fn catalog_sources() -> Result<String, JsValue> {
    run(|| {
        let m: serde_json::Map<String, Value> = catalog::FILES
            .iter()
            .map(|(name, text)| ((*name).to_string(), Value::String((*text).to_string())))
            .collect();
        to_json(&m)
    })
}
