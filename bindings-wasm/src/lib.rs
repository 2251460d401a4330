//! `workload_lens_wasm`: the WebAssembly build of workload-lens.
//!
//! It exports exactly the raw interface the Node addon exports: every
//! function is the engine's `workload_lens::abi` (the JavaScript layer in
//! `bindings-node/lib/` wraps either build). Values cross as JSON text, user
//! text (YAML/JSON) crosses as it is, and every failure throws a JS `Error`
//! whose `message` is `Failure::payload` (the JSON of the engine's error plus
//! its `display` text), with `wlError = true`. Nothing here but conversions.
//!
//! The module is built with `panic = "abort"`: a panic (a bug) or a stack
//! overflow traps, and the JS layer then re-instantiates the module. The
//! engine's limits (and its hard ceilings, sized for a 1 MiB stack) are what
//! keep hostile input from getting there.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use wasm_bindgen::prelude::*;

#[cfg(target_arch = "wasm32")]
mod allocator;

#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator::new();
use workload_lens::abi::{self, Failure, Out};
use workload_lens::{CompiledDefinition, Engine, Error, ErrorCode};

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

/// Run a call, converting its failure into the thrown JS error (an `Error`
/// carrying the payload as its message, marked `wlError`).
fn run<T>(f: impl FnOnce() -> Out<T>) -> Result<T, JsValue> {
    f().map_err(|fail: Failure| {
        let err = JsErrorObject::new(&fail.payload());
        err.set_wl_error(true);
        err.into()
    })
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
}

/// Compiled definitions as `NativeDefinition`s.
fn all(defs: Out<Vec<CompiledDefinition>>) -> Out<Vec<NativeDefinition>> {
    Ok(defs?.into_iter().map(NativeDefinition::new).collect())
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
        run(|| abi::compile(text, limits.as_deref()).map(NativeDefinition::new))
    }

    /// Compile every definition of a YAML/JSON text.
    #[wasm_bindgen(js_name = compileAll)]
    pub fn compile_all(
        text: &str,
        limits: Option<String>,
    ) -> Result<Vec<NativeDefinition>, JsValue> {
        run(|| all(abi::compile_all(text, limits.as_deref())))
    }

    /// Compile the one definition of an object given as JSON (`JSON.stringify`).
    #[wasm_bindgen(js_name = compileOneObject)]
    pub fn compile_one_object(
        json: &str,
        limits: Option<String>,
    ) -> Result<NativeDefinition, JsValue> {
        run(|| abi::compile_one_object(json, limits.as_deref()).map(NativeDefinition::new))
    }

    /// Compile every definition of an object given as JSON (`JSON.stringify`).
    #[wasm_bindgen(js_name = compileObject)]
    pub fn compile_object(
        json: &str,
        limits: Option<String>,
    ) -> Result<Vec<NativeDefinition>, JsValue> {
        run(|| all(abi::compile_object(json, limits.as_deref())))
    }

    /// The handle `resolveAny` finds this definition by (internal).
    #[wasm_bindgen(getter = __wlHandle, skip_typescript)]
    pub fn wl_handle(&self) -> u32 {
        self.handle
    }

    /// `{name, origin, gvk: {group, version, kind}, components, canSuspend,
    /// warnings, limits}` as JSON.
    pub fn info(&self) -> Result<String, JsValue> {
        run(|| abi::info(&self.inner))
    }

    /// The definition document, as JSON.
    #[wasm_bindgen(js_name = definitionJson)]
    pub fn definition_json(&self) -> Result<String, JsValue> {
        run(|| abi::definition_json(&self.inner))
    }

    /// Resolve (with live state when `pods` is given).
    pub fn resolve(&self, obj: &str, pods: Option<String>) -> Result<String, JsValue> {
        run(|| abi::resolve(&self.inner, obj, pods.as_deref()))
    }

    /// The root status (JSON `null` when the definition has none).
    pub fn status(&self, obj: &str) -> Result<String, JsValue> {
        run(|| abi::status(&self.inner, obj))
    }

    /// Why the object has its status: each category, which matcher matched
    /// or why not.
    #[wasm_bindgen(js_name = explainStatus)]
    pub fn explain_status(&self, obj: &str) -> Result<String, JsValue> {
        run(|| abi::explain_status(&self.inner, obj))
    }

    /// Write values through the definition's paths: `{object, patch}`.
    pub fn update(&self, obj: &str, request: &str) -> Result<String, JsValue> {
        run(|| abi::update(&self.inner, obj, request))
    }

    /// Apply the suspend actions: `{object, patch}`.
    pub fn suspend(&self, obj: &str) -> Result<String, JsValue> {
        run(|| abi::suspend(&self.inner, obj))
    }

    /// Apply the resume actions: `{object, patch}`.
    pub fn resume(&self, obj: &str) -> Result<String, JsValue> {
        run(|| abi::resume(&self.inner, obj))
    }

    /// Place pods under components and instances (`obj` may be `null`).
    #[wasm_bindgen(js_name = attributePods)]
    pub fn attribute_pods(&self, obj: Option<String>, pods: &str) -> Result<String, JsValue> {
        run(|| abi::attribute_pods(&self.inner, obj.as_deref(), pods))
    }

    /// Gang-scheduling groups of the workload's pods.
    #[wasm_bindgen(js_name = gangGroups)]
    pub fn gang_groups(&self, obj: &str, pods: &str) -> Result<String, JsValue> {
        run(|| abi::gang_groups(&self.inner, obj, pods))
    }

    /// The structure gang scheduling works on, as JSON: components, leaves,
    /// parents, children, `hasScaleDefinition` and the candidate members.
    #[wasm_bindgen(js_name = gangStructure)]
    pub fn gang_structure(&self) -> Result<String, JsValue> {
        run(|| abi::gang_structure(&self.inner))
    }

    /// The subtree scale (gang minimum members) of a component of the
    /// object, of one of its instances when given, as JSON (a number).
    #[wasm_bindgen(js_name = subtreeScale)]
    pub fn subtree_scale(
        &self,
        obj: &str,
        component: &str,
        instance: Option<String>,
    ) -> Result<String, JsValue> {
        run(|| abi::subtree_scale(&self.inner, obj, component, instance.as_deref()))
    }
}

/// The engine's definitions keyed by root GVK, with its limits (an
/// `Engine` made by `abi::engine`).
#[wasm_bindgen(js_name = NativeCatalog)]
pub struct NativeCatalog {
    engine: Engine,
}

#[wasm_bindgen(js_class = NativeCatalog)]
impl NativeCatalog {
    /// The bundled catalog (`bundled`) or no definition, with `limits`
    /// (camelCase JSON; `null`: the defaults).
    #[wasm_bindgen(constructor)]
    pub fn new(bundled: bool, limits: Option<String>) -> Result<NativeCatalog, JsValue> {
        run(|| {
            let engine = abi::engine(bundled, limits.as_deref())?;
            Ok(NativeCatalog { engine })
        })
    }

    /// Add a definition (it replaces one with the same root GVK).
    pub fn add(&mut self, def: &NativeDefinition) {
        self.engine.add_definition(def.inner.clone());
    }

    /// The definition for an apiVersion and kind.
    pub fn lookup(&self, api_version: &str, kind: &str) -> Option<NativeDefinition> {
        abi::engine_lookup(&self.engine, api_version, kind).map(NativeDefinition::new)
    }

    /// The definition for an object, by its apiVersion and kind.
    #[wasm_bindgen(js_name = lookupObject)]
    pub fn lookup_object(&self, obj: &str) -> Result<NativeDefinition, JsValue> {
        run(|| abi::engine_lookup_object(&self.engine, obj).map(NativeDefinition::new))
    }

    /// A definition by name.
    pub fn get(&self, name: &str) -> Option<NativeDefinition> {
        let d = self.engine.definition(name).cloned();
        d.map(NativeDefinition::new)
    }

    /// Every definition, sorted by name.
    pub fn definitions(&self) -> Vec<NativeDefinition> {
        let all = self.engine.definitions().into_iter();
        all.map(|d| NativeDefinition::new(d.clone())).collect()
    }

    /// Choose the definition by GVK and resolve (with pods: live state).
    pub fn resolve(&self, obj: &str, pods: Option<String>) -> Result<String, JsValue> {
        run(|| abi::engine_resolve(&self.engine, obj, pods.as_deref()))
    }

    /// The engine's limits, as JSON (camelCase).
    pub fn limits(&self) -> Result<String, JsValue> {
        run(|| abi::to_json(self.engine.limits()))
    }

    /// How many definitions it holds.
    pub fn size(&self) -> u32 {
        u32::try_from(self.engine.definitions().len()).unwrap_or(u32::MAX)
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
        let defs = defs
            .iter()
            .map(|d| {
                d.unchecked_ref::<DefinitionRef>()
                    .wl_handle()
                    .and_then(|h| LIVE.with(|l| l.borrow().get(&h).cloned()))
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::Usage,
                            "definitions must be compiled definitions (NativeDefinition)",
                        )
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        abi::resolve_any(obj, defs, pods.as_deref(), limits.as_deref())
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
    run(abi::default_limits)
}

/// Complete limits from a camelCase JSON object (missing fields: defaults).
#[wasm_bindgen(js_name = checkLimits)]
pub fn check_limits(limits: Option<String>) -> Result<String, JsValue> {
    run(|| abi::check_limits(limits.as_deref()))
}

/// Every document of a YAML/JSON text, as a JSON array.
#[wasm_bindgen]
pub fn parse(text: &str, limits: Option<String>) -> Result<String, JsValue> {
    run(|| abi::parse(text, limits.as_deref()))
}

/// Like `parse`, for bytes (invalid UTF-8 is a located parse error).
#[wasm_bindgen(js_name = parseBytes)]
pub fn parse_bytes(bytes: &[u8], limits: Option<String>) -> Result<String, JsValue> {
    run(|| abi::parse_bytes(bytes, limits.as_deref()))
}

/// Run one jq expression on a JSON input: every output, as a JSON array.
#[wasm_bindgen]
pub fn evaluate(
    expression: &str,
    input_json: &str,
    limits: Option<String>,
) -> Result<String, JsValue> {
    run(|| abi::evaluate(expression, input_json, limits.as_deref()))
}

/// Validate every definition of a text: the engine's verdicts,
/// `[{name, valid, gvk?, findings}]`.
#[wasm_bindgen(js_name = validate)]
pub fn validate_text(text: &str, limits: Option<String>) -> Result<String, JsValue> {
    run(|| abi::validate(text, limits.as_deref()))
}

/// Every error code with the name of its error class: `[{code, class}]`.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> Result<String, JsValue> {
    run(abi::error_codes)
}

/// The bundled definition files: JSON object file name -> YAML text.
#[wasm_bindgen(js_name = catalogSources)]
pub fn catalog_sources() -> Result<String, JsValue> {
    run(abi::catalog_sources)
}

/// Bytes as people read them, by the engine's one rule (`1.9Gi`, `512Mi`):
/// what the playground shows next to the exact numbers of the results.
#[wasm_bindgen(js_name = humanMemory)]
pub fn human_memory(bytes: f64) -> String {
    abi::human_memory(bytes)
}

/// Millicores as cores, by the engine's one rule (`26.5`, `0.5`).
#[wasm_bindgen(js_name = humanCpu)]
pub fn human_cpu(millis: f64) -> String {
    abi::human_cpu(millis)
}
