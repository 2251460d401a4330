//! The native half of the `workload-lens` npm package: the raw interface
//! (see `bindings-node/lib/api.mjs`, which builds the public API over it, and
//! which the WASM module of `bindings-wasm` exports too).
//!
//! Deliberately thin: every function is the engine's `workload_lens::abi`
//! (values cross as JSON text, the user's YAML/JSON text as it is). Every
//! failure throws a JS `Error` whose message is `Failure::payload` (the JSON
//! of the engine's error plus its display text) and whose `code` property is
//! `"WorkloadLensError"`; the JS layer turns it into the error class of its
//! code. Every entry point catches panics (`catch_unwind`): a bug is
//! reported as code `internal`, never a crash of the Node process.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use napi::bindgen_prelude::{ClassInstance, Uint8Array};
use napi::{Error as JsError, Status};
use napi_derive::napi;
use workload_lens::abi::{self, Failure, Input, Out};
use workload_lens::{CompiledDefinition, Engine};

/// The addon's Rust allocations go to mimalloc: inside Node, glibc's
/// malloc spent a third to two fifths of a call in consolidating and
/// searching its free lists (perf); mimalloc makes a call 5-25% faster
/// (docs/performance.md, "Crossing the bindings").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The guard of every entry point: failures and panics become JS errors.
fn entry<T>(f: impl FnOnce() -> Out<T>) -> napi::Result<T> {
    let fail = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => return Ok(v),
        Ok(Err(fail)) => fail,
        Err(p) => Failure::from_panic(p),
    };
    Err(JsError::new(Status::GenericFailure, fail.payload()))
}

/// The package version.
#[napi]
pub fn version() -> napi::Result<String> {
    entry(|| Ok(env!("CARGO_PKG_VERSION").to_string()))
}

/// The default limits, as JSON (camelCase).
#[napi]
pub fn default_limits() -> napi::Result<String> {
    entry(abi::default_limits)
}

/// Complete limits from camelCase JSON (missing fields: defaults).
#[napi]
pub fn check_limits(limits: Option<String>) -> napi::Result<String> {
    entry(|| abi::check_limits(limits.as_deref()))
}

/// Every document of a YAML/JSON text, as a JSON array.
#[napi]
pub fn parse(text: String, limits: Option<String>) -> napi::Result<String> {
    entry(|| abi::parse(&text, limits.as_deref()))
}

/// Like `parse`, for bytes (invalid UTF-8 is a located parse error).
#[napi]
pub fn parse_bytes(bytes: Uint8Array, limits: Option<String>) -> napi::Result<String> {
    entry(|| abi::parse_bytes(&bytes, limits.as_deref()))
}

/// Run one jq expression on a JSON input: every output, as a JSON array.
#[napi]
pub fn evaluate(
    expression: String,
    input_json: String,
    limits: Option<String>,
) -> napi::Result<String> {
    entry(|| abi::evaluate(&expression, &input_json, limits.as_deref()))
}

/// Validate every definition of a text: the engine's verdicts,
/// `[{name, valid, gvk?, findings}]`.
#[napi]
pub fn validate(text: String, limits: Option<String>) -> napi::Result<String> {
    entry(|| abi::validate(&text, limits.as_deref()))
}

/// Every error code with the name of its error class: `[{code, class}]`.
#[napi]
pub fn error_codes() -> napi::Result<String> {
    entry(abi::error_codes)
}

/// The bundled definition files: `{file name: YAML text}`.
#[napi]
pub fn catalog_sources() -> napi::Result<String> {
    entry(abi::catalog_sources)
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
        let defs = defs.iter().map(|d| d.inner.clone());
        abi::resolve_any(&obj, defs, pods.as_deref(), limits.as_deref())
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
}

/// Compiled definitions as `NativeDefinition`s.
fn all(defs: Out<Vec<CompiledDefinition>>) -> Out<Vec<NativeDefinition>> {
    Ok(defs?.into_iter().map(NativeDefinition::new).collect())
}

#[napi]
impl NativeDefinition {
    /// Compile the one definition of a YAML/JSON text.
    #[napi(factory)]
    pub fn compile(text: String, limits: Option<String>) -> napi::Result<NativeDefinition> {
        entry(|| abi::compile(&text, limits.as_deref()).map(NativeDefinition::new))
    }

    /// Compile every definition of a YAML/JSON text.
    #[napi]
    pub fn compile_all(
        text: String,
        limits: Option<String>,
    ) -> napi::Result<Vec<NativeDefinition>> {
        entry(|| all(abi::compile_all(&text, limits.as_deref())))
    }

    /// Compile the one definition of an object given as JSON (`JSON.stringify`).
    #[napi]
    pub fn compile_one_object(
        json: String,
        limits: Option<String>,
    ) -> napi::Result<NativeDefinition> {
        entry(|| abi::compile_one_object(&json, limits.as_deref()).map(NativeDefinition::new))
    }

    /// Compile every definition of an object given as JSON (`JSON.stringify`).
    #[napi]
    pub fn compile_object(
        json: String,
        limits: Option<String>,
    ) -> napi::Result<Vec<NativeDefinition>> {
        entry(|| all(abi::compile_object(&json, limits.as_deref())))
    }

    /// `{name, origin, gvk: {group, version, kind}, components, canSuspend,
    /// warnings, limits}` as JSON.
    #[napi]
    pub fn info(&self) -> napi::Result<String> {
        entry(|| abi::info(&self.inner))
    }

    /// The definition as read, as JSON.
    #[napi]
    pub fn definition_json(&self) -> napi::Result<String> {
        entry(|| abi::definition_json(&self.inner))
    }

    /// Resolve (with the live state when `pods` is given).
    #[napi]
    pub fn resolve(&self, obj: String, pods: Option<String>) -> napi::Result<String> {
        entry(|| abi::resolve(&self.inner, &obj, pods.as_deref()))
    }

    /// The root status (JSON `null` when the definition has none).
    #[napi]
    pub fn status(&self, obj: String) -> napi::Result<String> {
        entry(|| abi::status(&self.inner, &obj))
    }

    /// Why the object has its status: every matcher of every status category
    /// with its outcome and reason (the engine's `explain_status`).
    #[napi]
    pub fn explain_status(&self, obj: String) -> napi::Result<String> {
        entry(|| abi::explain_status(&self.inner, &obj))
    }

    /// Write values through the definition's paths: `{object, patch}`.
    #[napi]
    pub fn update(&self, obj: String, request: String) -> napi::Result<String> {
        entry(|| abi::update(&self.inner, &obj, &request))
    }

    /// Apply the suspend actions: `{object, patch}`.
    #[napi]
    pub fn suspend(&self, obj: String) -> napi::Result<String> {
        entry(|| abi::suspend(&self.inner, &obj))
    }

    /// Apply the resume actions: `{object, patch}`.
    #[napi]
    pub fn resume(&self, obj: String) -> napi::Result<String> {
        entry(|| abi::resume(&self.inner, &obj))
    }

    /// Place pods under components and instances.
    #[napi]
    pub fn attribute_pods(&self, obj: Option<String>, pods: String) -> napi::Result<String> {
        entry(|| abi::attribute_pods(&self.inner, obj.as_deref(), &pods))
    }

    /// Gang-scheduling groups of the workload's pods.
    #[napi]
    pub fn gang_groups(&self, obj: String, pods: String) -> napi::Result<String> {
        entry(|| abi::gang_groups(&self.inner, &obj, &pods))
    }

    /// The structure gang scheduling works on, as JSON: components, leaves,
    /// parents, children, `hasScaleDefinition` and the candidate members.
    #[napi]
    pub fn gang_structure(&self) -> napi::Result<String> {
        entry(|| abi::gang_structure(&self.inner))
    }

    /// The subtree scale (gang minimum members) of a component of the
    /// object, of one of its instances when given, as JSON (a number).
    #[napi]
    pub fn subtree_scale(
        &self,
        obj: String,
        component: String,
        instance: Option<String>,
    ) -> napi::Result<String> {
        entry(|| abi::subtree_scale(&self.inner, &obj, &component, instance.as_deref()))
    }
}

/// The engine's definitions keyed by root GVK, with its limits (an
/// `Engine` made by `abi::engine`).
#[napi]
pub struct NativeCatalog {
    engine: Engine,
}

#[napi]
impl NativeCatalog {
    /// The bundled catalog (`bundled`) or no definition, with `limits`
    /// (camelCase JSON; absent: the defaults).
    #[napi(constructor)]
    pub fn new(bundled: bool, limits: Option<String>) -> napi::Result<Self> {
        entry(|| {
            let engine = abi::engine(bundled, limits.as_deref())?;
            Ok(NativeCatalog { engine })
        })
    }

    /// Add a definition (it replaces one of the same root GVK).
    #[napi]
    pub fn add(&mut self, def: &NativeDefinition) -> napi::Result<()> {
        entry(|| {
            self.engine.add_definition(def.inner.clone());
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
            let d = abi::engine_lookup(&self.engine, &api_version, &kind);
            Ok(d.map(NativeDefinition::new))
        })
    }

    /// The definition for an object, by its apiVersion and kind.
    #[napi]
    pub fn lookup_object(&self, obj: String) -> napi::Result<NativeDefinition> {
        entry(|| abi::engine_lookup_object(&self.engine, &obj).map(NativeDefinition::new))
    }

    /// A definition by name.
    #[napi]
    pub fn get(&self, name: String) -> napi::Result<Option<NativeDefinition>> {
        entry(|| {
            let d = self.engine.definition(&name).cloned();
            Ok(d.map(NativeDefinition::new))
        })
    }

    /// Every definition, sorted by name.
    #[napi]
    pub fn definitions(&self) -> napi::Result<Vec<NativeDefinition>> {
        entry(|| {
            let all = self.engine.definitions().into_iter();
            Ok(all.map(|d| NativeDefinition::new(d.clone())).collect())
        })
    }

    /// Choose the definition by GVK and resolve (with pods: live state).
    #[napi]
    pub fn resolve(&self, obj: String, pods: Option<String>) -> napi::Result<String> {
        entry(|| abi::engine_resolve(&self.engine, &obj, pods.as_deref()))
    }

    /// The engine's limits, as JSON (camelCase).
    #[napi]
    pub fn limits(&self) -> napi::Result<String> {
        entry(|| abi::to_json(self.engine.limits()))
    }

    /// The number of definitions.
    #[napi]
    pub fn size(&self) -> napi::Result<u32> {
        entry(|| {
            let n = self.engine.definitions().len();
            Ok(u32::try_from(n).unwrap_or(u32::MAX))
        })
    }

    /// Which served resource a type token names (`Engine::find_type`);
    /// `served` is a JSON array of ApiResource. The resource as JSON.
    #[napi]
    pub fn find_type(&self, token: String, served: String) -> napi::Result<String> {
        entry(|| abi::engine_find_type(&self.engine, &token, &served))
    }

    /// The served resources a definition covers (`Engine::covered_types`),
    /// as a JSON array.
    #[napi]
    pub fn covered_types(&self, served: String) -> napi::Result<String> {
        entry(|| abi::engine_covered_types(&self.engine, &served))
    }

    /// Put the definitions stored in a cluster (the Karta and
    /// ResourceInterface objects of `inputs`, each a list text such as one
    /// page of a list response) over the current ones
    /// (`Engine::with_cluster_definitions`); the warnings as a JSON array.
    #[napi]
    pub fn add_cluster_definitions(&mut self, inputs: Vec<String>) -> napi::Result<String> {
        entry(|| {
            let inputs = inputs.iter().map(|t| Input::Text(t)).collect();
            let (engine, warnings) = abi::engine_with_cluster_definitions(&self.engine, inputs)?;
            self.engine = engine;
            Ok(warnings)
        })
    }

    /// One summary row per object of `objects` (`Engine::list_workloads`),
    /// with `owners` to follow controller chains through; both are list
    /// texts (the pages of list responses, as they are); `options` is
    /// `{topLevelOnly, phases}` as JSON. A JSON array.
    #[napi]
    pub fn list_workloads(
        &self,
        objects: Vec<String>,
        owners: Vec<String>,
        options: Option<String>,
    ) -> napi::Result<String> {
        entry(|| {
            let objects = objects.iter().map(|t| Input::Text(t)).collect();
            let owners = owners.iter().map(|t| Input::Text(t)).collect();
            abi::engine_list_workloads(&self.engine, objects, owners, options.as_deref())
        })
    }

    /// `resolve` with the objects of several texts as the pods (and the
    /// owners given beside them, through which pods are attributed by
    /// their controller chains).
    #[napi]
    pub fn resolve_items(&self, obj: String, items: Vec<String>) -> napi::Result<String> {
        entry(|| {
            let items = items.iter().map(|t| Input::Text(t)).collect();
            abi::engine_resolve_pages(&self.engine, Input::Text(&obj), items)
        })
    }

    /// Resolve with every pod of the workload's namespace and their owners
    /// (`items`: list texts, such as the pages of list responses): the pods
    /// of other workloads are left out, look-alikes kept as strays
    /// (`Engine::resolve_in_namespace`).
    #[napi]
    pub fn resolve_in_namespace(&self, obj: String, items: Vec<String>) -> napi::Result<String> {
        entry(|| {
            let items = items.iter().map(|t| Input::Text(t)).collect();
            abi::engine_resolve_in_namespace(&self.engine, Input::Text(&obj), items)
        })
    }

    /// The gang-scheduling groups of a workload's pods, with its definition
    /// chosen by GVK; `items` as for `resolve_items`.
    #[napi]
    pub fn gang_groups(&self, obj: String, items: Vec<String>) -> napi::Result<String> {
        entry(|| {
            let items = items.iter().map(|t| Input::Text(t)).collect();
            abi::engine_gang_groups_pages(&self.engine, Input::Text(&obj), items)
        })
    }
}

/// The controller owner kinds the objects of `items` (list texts: pods and
/// the owners fetched so far) reference but do not hold, without those of
/// `skip` (a JSON array of `{apiVersion, kind}`): a JSON array of
/// `{apiVersion, kind}`.
#[napi]
pub fn missing_owners(
    items: Vec<String>,
    skip: String,
    limits: Option<String>,
) -> napi::Result<String> {
    entry(|| {
        let limits = abi::limits(limits.as_deref())?;
        let items = items.iter().map(|t| Input::Text(t)).collect();
        abi::missing_owners(items, &skip, &limits)
    })
}

/// GPU and pod totals of a listing (the JSON array `list_workloads`
/// returns) by namespace and by type.
#[napi]
pub fn usage(rows: String) -> napi::Result<String> {
    entry(|| abi::usage(&rows))
}

/// Panic inside an entry point (tests of the panic guard only).
#[napi(js_name = "_panicForTests")]
pub fn panic_for_tests(message: String) -> napi::Result<()> {
    entry(|| -> Out<()> { panic!("{message}") })
}

/// Bytes as people read them, by the engine's one rule (`1.9Gi`, `512Mi`).
#[napi]
pub fn human_memory(bytes: f64) -> String {
    abi::human_memory(bytes)
}

/// Millicores as cores, by the engine's one rule (`26.5`, `0.5`).
#[napi]
pub fn human_cpu(millis: f64) -> String {
    abi::human_cpu(millis)
}
