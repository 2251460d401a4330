//! The native half of the `workload-lens` npm package: the raw interface
//! (see `bindings-node/lib/api.mjs`, which builds the public API over it, and
//! which the WASM module of `bindings-wasm` exports too).
//!
//! Conversions only: the operations are the table of
//! [`workload_lens_binding::for_each_operation!`], expanded here by
//! [`node_ops!`] (values cross as JSON text, the user's YAML/JSON text as
//! it is). Every failure throws a JS `Error` whose message is
//! [`Failure::payload`] (the JSON of the engine's error plus its display
//! text) and whose `code` property is `"WorkloadLensError"`; the JS layer
//! turns it into the error class of its code. Every entry point catches
//! panics (`catch_unwind`): a bug is reported as code `internal`, never a
//! crash of the Node process.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use napi::bindgen_prelude::{ClassInstance, Uint8Array};
use napi::{Error as JsError, Status};
use napi_derive::napi;
use workload_lens::{CompiledDefinition, Engine};
use workload_lens_binding::{self as binding, Failure, Input, Out, ops};

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

/// A compiled definition.
#[napi]
pub struct NativeDefinition {
    inner: Arc<CompiledDefinition>,
}

/// The engine's definitions keyed by root GVK, with its limits (an
/// `Engine` made by `workload_lens_binding::engine`).
#[napi]
pub struct NativeCatalog {
    engine: Engine,
}

/// One operation of the cluster protocol (`NativeCatalog.clusterSession`).
#[napi]
pub struct NativeSession {
    inner: binding::Session,
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

/// A result converted.
#[rustfmt::skip]
macro_rules! js_res {
    (json, $out:expr) => { binding::to_json(&$out) };
    (value, $out:expr) => { binding::to_json(&$out) };
    (definition, $out:expr) => { Ok(NativeDefinition { inner: $out }) };
    (opt_definition, $out:expr) => { Ok($out.map(|inner| NativeDefinition { inner })) };
    (definitions, $out:expr) => {
        Ok($out.into_iter().map(|inner| NativeDefinition { inner }).collect())
    };
    (session, $out:expr) => { Ok(NativeSession { inner: $out }) };
}

/// The Node expansion of the operation table: `free` and `limited` entries
/// become module functions, `factory` entries static methods of
/// `NativeDefinition`, `definition` and `catalog` entries methods of
/// `NativeDefinition` and `NativeCatalog` (napi names them in camelCase,
/// as the table's JavaScript names). Node takes every entry. The argument
/// and result types are written out first (`@args`, `@res`): napi types
/// `native.d.ts` from the tokens it is given, and a macro call in a type
/// would be `any` there.
macro_rules! node_ops {
    (
        []
        $(
            $section:ident {
                $( $(#[$doc:meta])* $targets:ident $name:ident $js:literal
                   ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident; )*
            }
        )*
    ) => {
        $( $( node_ops!(@args $section [$(#[$doc])*] $name $res [] $($arg : $kind,)*); )* )*
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : text, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a text [String])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : opt_text, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a opt_text [Option<String>])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : bytes, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a bytes [Uint8Array])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : expression, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a expression [String])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : json_value, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a json_value [String])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : object, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a object [String])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : opt_object, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a opt_object [Option<String>])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident [$($done:tt)*] $a:ident : objects, $($rest:tt)*) => {
        node_ops!(@args $s $d $n $r [$($done)* ($a objects [Vec<String>])] $($rest)*);
    };
    (@args $s:ident $d:tt $n:ident $r:ident $done:tt) => { node_ops!(@res $s $d $n $done $r); };
    (@res $s:ident $d:tt $n:ident $done:tt json) => { node_ops!(@entry $s $d $n $done [String] json); };
    (@res $s:ident $d:tt $n:ident $done:tt value) => { node_ops!(@entry $s $d $n $done [String] value); };
    (@res $s:ident $d:tt $n:ident $done:tt definition) => {
        node_ops!(@entry $s $d $n $done [NativeDefinition] definition);
    };
    (@res $s:ident $d:tt $n:ident $done:tt opt_definition) => {
        node_ops!(@entry $s $d $n $done [Option<NativeDefinition>] opt_definition);
    };
    (@res $s:ident $d:tt $n:ident $done:tt definitions) => {
        node_ops!(@entry $s $d $n $done [Vec<NativeDefinition>] definitions);
    };
    (@res $s:ident $d:tt $n:ident $done:tt session) => {
        node_ops!(@entry $s $d $n $done [NativeSession] session);
    };
    (@entry free [$($doc:tt)*] $name:ident [$(($arg:ident $kind:ident [$($ty:tt)*]))*] [$($out:tt)*] $res:ident) => {
        $($doc)*
        #[napi]
        pub fn $name($($arg: $($ty)*),*) -> napi::Result<$($out)*> {
            entry(|| js_res!($res, ops::free::$name($(js_arg!($kind, $arg)),*)?))
        }
    };
    (@entry limited [$($doc:tt)*] $name:ident [$(($arg:ident $kind:ident [$($ty:tt)*]))*] [$($out:tt)*] $res:ident) => {
        $($doc)*
        #[napi]
        pub fn $name($($arg: $($ty)*,)* limits: Option<String>) -> napi::Result<$($out)*> {
            entry(|| {
                let l = &binding::limits(limits.as_deref())?;
                js_res!($res, ops::limited::$name(l, $(js_arg!($kind, $arg)),*)?)
            })
        }
    };
    (@entry factory [$($doc:tt)*] $name:ident [$(($arg:ident $kind:ident [$($ty:tt)*]))*] [$($out:tt)*] $res:ident) => {
        #[napi]
        impl NativeDefinition {
            $($doc)*
            #[napi]
            pub fn $name($($arg: $($ty)*),*) -> napi::Result<$($out)*> {
                entry(|| js_res!($res, ops::factory::$name($(js_arg!($kind, $arg)),*)?))
            }
        }
    };
    (@entry definition [$($doc:tt)*] $name:ident [$(($arg:ident $kind:ident [$($ty:tt)*]))*] [$($out:tt)*] $res:ident) => {
        #[napi]
        impl NativeDefinition {
            $($doc)*
            #[napi]
            pub fn $name(&self, $($arg: $($ty)*),*) -> napi::Result<$($out)*> {
                entry(|| js_res!($res, ops::definition::$name(&self.inner, $(js_arg!($kind, $arg)),*)?))
            }
        }
    };
    (@entry catalog [$($doc:tt)*] $name:ident [$(($arg:ident $kind:ident [$($ty:tt)*]))*] [$($out:tt)*] $res:ident) => {
        #[napi]
        impl NativeCatalog {
            $($doc)*
            #[napi]
            pub fn $name(&self, $($arg: $($ty)*),*) -> napi::Result<$($out)*> {
                entry(|| js_res!($res, ops::catalog::$name(&self.engine, $(js_arg!($kind, $arg)),*)?))
            }
        }
    };
    (@entry session [$($doc:tt)*] $name:ident [$(($arg:ident $kind:ident [$($ty:tt)*]))*] [$($out:tt)*] $res:ident) => {
        #[napi]
        impl NativeSession {
            $($doc)*
            #[napi]
            pub fn $name(&mut self, $($arg: $($ty)*),*) -> napi::Result<$($out)*> {
                entry(|| js_res!($res, ops::session::$name(&mut self.inner, $(js_arg!($kind, $arg)),*)?))
            }
        }
    };
}

workload_lens_binding::for_each_operation!(node_ops);

#[napi]
impl NativeCatalog {
    /// The bundled catalog (`bundled`) or no definition, with `limits`
    /// (camelCase JSON; absent: the defaults).
    #[napi(constructor)]
    pub fn new(bundled: bool, limits: Option<String>) -> napi::Result<Self> {
        entry(|| {
            let engine = binding::engine(bundled, limits.as_deref())?;
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

    /// The number of definitions.
    #[napi]
    pub fn size(&self) -> napi::Result<u32> {
        entry(|| {
            let n = self.engine.definitions().len();
            Ok(u32::try_from(n).unwrap_or(u32::MAX))
        })
    }

    /// Put the definitions stored in a cluster (the Karta and
    /// ResourceInterface objects of `inputs`, each a list text such as one
    /// page of a list response) over the current ones
    /// (`Engine::with_cluster_definitions`); the warnings as a JSON array.
    #[napi]
    pub fn add_cluster_definitions(&mut self, inputs: Vec<String>) -> napi::Result<String> {
        entry(|| {
            let inputs = inputs.iter().map(|t| Input::Text(t)).collect();
            let (engine, warnings) = binding::with_cluster_definitions(&self.engine, inputs)?;
            self.engine = engine;
            binding::to_json(&warnings)
        })
    }
}

/// The package version.
#[napi]
pub fn version() -> napi::Result<String> {
    entry(|| Ok(env!("CARGO_PKG_VERSION").to_string()))
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
        binding::to_json(&binding::resolve_any(
            &obj,
            defs,
            pods.as_deref(),
            limits.as_deref(),
        )?)
    })
}

/// Panic inside an entry point (tests of the panic guard only).
#[napi(js_name = "_panicForTests")]
pub fn panic_for_tests(message: String) -> napi::Result<()> {
    entry(|| -> Out<()> { panic!("{message}") })
}
