//! `workload_lens_wasm`: the WebAssembly build of workload-lens.
//!
//! It exports the raw interface the Node addon exports, but for the
//! live-cluster calls: the table of
//! [`workload_lens_binding::for_each_operation!`], expanded by
//! [`wasm_ops!`] (the JavaScript layer in `bindings-node/lib/` wraps either
//! build). Values cross as JSON text, user
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
use workload_lens::{CompiledDefinition, Engine, Error, ErrorCode};
use workload_lens_binding::{self as binding, Failure, Input, Out, ops};

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

impl Drop for NativeDefinition {
    fn drop(&mut self) {
        // `try_with`: nothing to do while the thread-locals are torn down.
        let _ = LIVE.try_with(|l| l.borrow_mut().remove(&self.handle));
    }
}

#[wasm_bindgen(js_class = NativeDefinition)]
impl NativeDefinition {
    /// The handle `resolveAny` finds this definition by (internal).
    #[wasm_bindgen(getter = __wlHandle, skip_typescript)]
    pub fn wl_handle(&self) -> u32 {
        self.handle
    }
}

/// The engine's definitions keyed by root GVK, with its limits (an
/// `Engine` made by `workload_lens_binding::engine`).
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
            let engine = binding::engine(bundled, limits.as_deref())?;
            Ok(NativeCatalog { engine })
        })
    }

    /// Add a definition (it replaces one with the same root GVK).
    pub fn add(&mut self, def: &NativeDefinition) {
        self.engine.add_definition(def.inner.clone());
    }

    /// How many definitions it holds.
    pub fn size(&self) -> u32 {
        u32::try_from(self.engine.definitions().len()).unwrap_or(u32::MAX)
    }
}

/// A JavaScript argument of each kind (owned: wasm-bindgen sees a macro's
/// type as it is, and borrows only types written as references).
macro_rules! js_ty {
    (text) => { String };
    (opt_text) => { Option<String> };
    (bytes) => { Vec<u8> };
    (expression) => { String };
    (object) => { String };
    (json_value) => { String };
    (opt_object) => { Option<String> };
    (objects) => { Vec<String> };
}

/// An argument as the operation takes it.
#[rustfmt::skip]
macro_rules! js_arg {
    (text, $a:ident) => { &$a };
    (opt_text, $a:ident) => { $a.as_deref() };
    (bytes, $a:ident) => { &$a };
    (expression, $a:ident) => { $a.as_bytes() };
    (object, $a:ident) => { Input::Text(&$a) };
    (json_value, $a:ident) => { Input::Text(&$a) };
    (opt_object, $a:ident) => { $a.as_deref().map(Input::Text) };
    (objects, $a:ident) => { $a.iter().map(|t| Input::Text(t)).collect() };
}

/// The JavaScript type of each result kind.
macro_rules! js_out {
    (json) => { String };
    (value) => { String };
    (definition) => { NativeDefinition };
    (opt_definition) => { Option<NativeDefinition> };
    (definitions) => { Vec<NativeDefinition> };
}

/// A result converted.
#[rustfmt::skip]
macro_rules! js_res {
    (json, $out:expr) => { binding::to_json(&$out) };
    (value, $out:expr) => { binding::to_json(&$out) };
    (definition, $out:expr) => { Ok(NativeDefinition::new($out)) };
    (opt_definition, $out:expr) => { Ok($out.map(NativeDefinition::new)) };
    (definitions, $out:expr) => { Ok($out.into_iter().map(NativeDefinition::new).collect()) };
}

/// The WebAssembly expansion of the operation table: the entries marked
/// `all` (the `native` ones, the live-cluster calls, stay out of the
/// module), named as the table names them in JavaScript: `free` and
/// `limited` entries as module functions, `factory` entries as static
/// methods of `NativeDefinition`, `definition` and `catalog` entries as
/// methods of `NativeDefinition` and `NativeCatalog`.
macro_rules! wasm_ops {
    (
        []
        $(
            $section:ident {
                $( $(#[$doc:meta])* $targets:ident $name:ident $js:literal
                   ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident; )*
            }
        )*
    ) => {
        $( $( wasm_ops!(@entry $targets $section $(#[$doc])* $name $js ( $($arg : $kind),* ) -> $res); )* )*
    };
    (@entry native $($rest:tt)*) => {};
    (@entry all free $(#[$doc:meta])* $name:ident $js:literal ( $($arg:ident : $kind:ident),* ) -> $res:ident) => {
        $(#[$doc])*
        #[wasm_bindgen(js_name = $js)]
        pub fn $name($($arg: js_ty!($kind)),*) -> Result<js_out!($res), JsValue> {
            run(|| js_res!($res, ops::free::$name($(js_arg!($kind, $arg)),*)?))
        }
    };
    (@entry all limited $(#[$doc:meta])* $name:ident $js:literal ( $($arg:ident : $kind:ident),* ) -> $res:ident) => {
        $(#[$doc])*
        #[wasm_bindgen(js_name = $js)]
        pub fn $name($($arg: js_ty!($kind),)* limits: Option<String>) -> Result<js_out!($res), JsValue> {
            run(|| {
                let l = &binding::limits(limits.as_deref())?;
                js_res!($res, ops::limited::$name(l, $(js_arg!($kind, $arg)),*)?)
            })
        }
    };
    (@entry all factory $(#[$doc:meta])* $name:ident $js:literal ( $($arg:ident : $kind:ident),* ) -> $res:ident) => {
        #[wasm_bindgen(js_class = NativeDefinition)]
        impl NativeDefinition {
            $(#[$doc])*
            #[wasm_bindgen(js_name = $js)]
            pub fn $name($($arg: js_ty!($kind)),*) -> Result<js_out!($res), JsValue> {
                run(|| js_res!($res, ops::factory::$name($(js_arg!($kind, $arg)),*)?))
            }
        }
    };
    (@entry all definition $(#[$doc:meta])* $name:ident $js:literal ( $($arg:ident : $kind:ident),* ) -> $res:ident) => {
        #[wasm_bindgen(js_class = NativeDefinition)]
        impl NativeDefinition {
            $(#[$doc])*
            #[wasm_bindgen(js_name = $js)]
            pub fn $name(&self, $($arg: js_ty!($kind)),*) -> Result<js_out!($res), JsValue> {
                run(|| js_res!($res, ops::definition::$name(&self.inner, $(js_arg!($kind, $arg)),*)?))
            }
        }
    };
    (@entry all catalog $(#[$doc:meta])* $name:ident $js:literal ( $($arg:ident : $kind:ident),* ) -> $res:ident) => {
        #[wasm_bindgen(js_class = NativeCatalog)]
        impl NativeCatalog {
            $(#[$doc])*
            #[wasm_bindgen(js_name = $js)]
            pub fn $name(&self, $($arg: js_ty!($kind)),*) -> Result<js_out!($res), JsValue> {
                run(|| js_res!($res, ops::catalog::$name(&self.engine, $(js_arg!($kind, $arg)),*)?))
            }
        }
    };
}

workload_lens_binding::for_each_operation!(wasm_ops);

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
        binding::to_json(&binding::resolve_any(
            obj,
            defs,
            pods.as_deref(),
            limits.as_deref(),
        )?)
    })
}

/// The package version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
