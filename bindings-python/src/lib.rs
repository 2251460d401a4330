//! `workload_lens._native`: the native half of the Python package.
//!
//! Conversions only: the operations are the table of
//! [`workload_lens_binding::for_each_operation!`], expanded here by
//! [`python_ops!`] into `#[pyfunction]`s and the methods of `Definition`
//! and `Catalog`. Each converts its Python arguments by their kinds, calls
//! `ops::<section>::<name>` and returns its result, or raises the exception
//! `workload_lens._errors` builds from the [`Failure`]'s payload.
//!
//! Objects, pods and update requests cross as Python values: a `dict` (or
//! list, or anything `json.dumps` takes) is walked directly by the engine's
//! host reader ([`host`]); `bytes` are the caller's own text (YAML/JSON,
//! read with positions); an argument of objects given as another iterable
//! comes as a [`host::Iterated`], read element by element by the same
//! reader. Other `str` arguments are JSON the Python layer
//! serialized. Results of kind `value` are built as Python objects
//! ([`pyout`]), those of kind `json` are JSON text. Every engine call
//! runs without the GIL (`py.detach`) and catches panics, so no input can
//! raise `PanicException` or take the interpreter down.

mod host;
mod pyout;

/// The addon's Rust allocations go to mimalloc: inside CPython, glibc's
/// malloc spent a third to two fifths of a call in consolidating and
/// searching its free lists (perf); mimalloc makes a call 5-25% faster
/// (docs/performance.md, "Crossing the bindings").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyString};
use workload_lens::{CompiledDefinition, Engine, Error, ErrorCode, Limits};
use workload_lens_binding::{self as binding, Failure, HostRead, Input, Out, ops};

use host::{HostErr, Iterated, Walk};

/// The exception for a failure, built by `workload_lens._errors._from_native`
/// from [`Failure::payload`] and [`Failure::display`].
pub(crate) fn to_pyerr(py: Python<'_>, fail: Failure) -> PyErr {
    static FROM_NATIVE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    match FROM_NATIVE
        .import(py, "workload_lens._errors", "_from_native")
        .and_then(|f| f.call1((fail.payload(), fail.display())))
    {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// Run a call without the GIL, a panic becoming an internal error.
fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> Out<T> + Send) -> PyResult<T> {
    let out = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    out.unwrap_or_else(|p| Err(Failure::from_panic(p)))
        .map_err(|fail| to_pyerr(py, fail))
}

/// A text argument: a `str` is JSON serialized by the Python layer (not
/// Unicode, i.e. a lone surrogate: a usage error, as
/// [`binding::value_from_binding_json`] reports it); `bytes` are the
/// caller's text (not UTF-8: the located parse error of [`binding::utf8`]).
struct Arg(String);

impl<'a, 'py> FromPyObject<'a, 'py> for Arg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            let text = binding::utf8(b.as_bytes()).map_err(|e| to_pyerr(obj.py(), e.into()))?;
            return Ok(Arg(text.to_owned()));
        }
        let lone = "the value cannot be represented as JSON: it holds a lone surrogate";
        match obj.cast::<PyString>()?.to_cow() {
            Ok(text) => Ok(Arg(text.into_owned())),
            Err(_) => Err(to_pyerr(
                obj.py(),
                Error::new(ErrorCode::Usage, lone).into(),
            )),
        }
    }
}

impl std::ops::Deref for Arg {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// A `bytes` argument (kinds `bytes` and `expression`).
struct Bytes(Vec<u8>);

impl<'a, 'py> FromPyObject<'a, 'py> for Bytes {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        Ok(Bytes(obj.cast::<PyBytes>()?.as_bytes().to_vec()))
    }
}

/// An object argument: `bytes` are the caller's text, anything else is a
/// Python value (a `dict`, a list of pods, a kubernetes model), read by the
/// engine's host reader when the call knows its limits ([`read`]).
enum Obj<'py> {
    Text(String),
    Value(Bound<'py, PyAny>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Obj<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            let text = binding::utf8(b.as_bytes()).map_err(|e| to_pyerr(obj.py(), e.into()))?;
            return Ok(Obj::Text(text.to_owned()));
        }
        Ok(Obj::Value(obj.to_owned()))
    }
}

/// An object argument read: text (read by the engine call) or a value.
enum Read {
    Text(String),
    Value(serde_json::Value),
}

impl Read {
    /// The argument for an engine call (a value is moved out).
    fn input(&mut self) -> Input<'_> {
        match self {
            Read::Text(t) => Input::Text(t),
            Read::Value(v) => Input::Value(std::mem::take(v)),
        }
    }
}

/// Read an object argument within `limits`: a Python value is walked now,
/// with the GIL (a panic becoming an internal error); a host exception
/// raised on the way (the `default` hook's `TypeError`, say) is raised as
/// it is.
fn read(py: Python<'_>, obj: Obj<'_>, limits: &Limits) -> PyResult<Read> {
    let value = match obj {
        Obj::Text(t) => return Ok(Read::Text(t)),
        Obj::Value(v) => v,
    };
    // Looked up on each call (not kept), so the hook is the module's
    // current one.
    static API: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let api = API.get_or_try_init(py, || {
        PyModule::import(py, "workload_lens._api").map(Bound::unbind)
    })?;
    let hook = api.bind(py).getattr("_default")?;
    let walked = catch_unwind(AssertUnwindSafe(|| {
        let walk = Walk::new(hook);
        binding::value_from_host(walk.root(value), limits)
    }));
    match walked {
        Ok(Ok(v)) => Ok(Read::Value(v)),
        Ok(Err(HostRead::Engine(e))) => Err(to_pyerr(py, e.into())),
        Ok(Err(HostRead::Host(HostErr::Py(e)))) => Err(e),
        Ok(Err(HostRead::Host(HostErr::Msg(m)))) => Err(to_pyerr(py, Failure::Internal(m))),
        Err(p) => Err(to_pyerr(py, Failure::from_panic(p))),
    }
}

/// An argument of several inputs (each a list text as `bytes`, a list
/// object or an object): a list, or an [`Iterated`] (any other iterable,
/// which the Python layer hands over unread).
enum Inputs<'py> {
    List(Vec<Obj<'py>>),
    Iter(Bound<'py, pyo3::types::PyIterator>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for Inputs<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(items) = obj.cast::<Iterated>() {
            return Ok(Inputs::Iter(items.get().iter(obj.py())));
        }
        obj.extract().map(Inputs::List)
    }
}

/// Read several inputs one at a time, in order, each within `limits` and
/// all of them within the total the engine allows
/// ([`binding::ObjectsOfInputs`]: `maxClusterBytes`). Inputs taken from an
/// iterator are taken one by one as they are read, so one past the limit
/// is the last taken; an exception the iterator raises is raised as it is.
fn read_inputs(py: Python<'_>, inputs: Inputs<'_>, limits: &Limits) -> PyResult<ReadInputs> {
    let mut all = binding::ObjectsOfInputs::new();
    let mut add = |o: Obj<'_>| -> PyResult<()> {
        let mut r = read(py, o, limits)?;
        let all = &mut all;
        run(py, || Ok(r.input().add_to(all, limits)?))
    };
    match inputs {
        Inputs::List(items) => items.into_iter().try_for_each(add)?,
        Inputs::Iter(iter) => {
            for item in iter {
                add(item?.extract()?)?;
            }
        }
    }
    Ok(ReadInputs(Some(all)))
}

/// Several inputs read ([`read_inputs`]).
struct ReadInputs(Option<binding::ObjectsOfInputs>);

impl ReadInputs {
    /// The argument for an engine call (the objects are moved out).
    fn inputs(&mut self) -> Vec<Input<'static>> {
        self.0.take().map(Input::Objects).into_iter().collect()
    }
}

/// A result as Python objects ([`pyout`]: `pythonize`'s rule, with shared
/// keys).
fn pythonized<'py, T: serde::Serialize>(py: Python<'py>, out: &T) -> PyResult<Bound<'py, PyAny>> {
    pyout::to_python(py, out).map_err(|e| {
        let fail = Failure::Internal(format!("cannot convert the result: {e}"));
        to_pyerr(py, fail)
    })
}

/// A compiled definition (`workload_lens.Definition` wraps it).
#[pyclass(frozen, module = "workload_lens._native", name = "Definition")]
struct PyDefinition(Arc<CompiledDefinition>);

/// An engine: definitions keyed by root GVK. Readers take a snapshot (an
/// `Arc`), so `add` never waits for a resolve.
#[pyclass(frozen, module = "workload_lens._native", name = "Catalog")]
struct PyCatalog(Mutex<Arc<Engine>>);

impl PyCatalog {
    fn lock(&self) -> MutexGuard<'_, Arc<Engine>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A cluster protocol session (`workload_lens.ClusterSession` wraps it).
#[pyclass(frozen, module = "workload_lens._native", name = "ClusterSession")]
struct PySession(Mutex<binding::Session>);

impl PySession {
    fn lock(&self) -> MutexGuard<'_, binding::Session> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A Python argument of each kind.
macro_rules! py_ty {
    (text) => { Arg };
    (opt_text) => { Option<Arg> };
    (bytes) => { Bytes };
    (expression) => { Bytes };
    (object) => { Obj<'py> };
    (json_value) => { Bound<'py, PyAny> };
    (opt_object) => { Option<Obj<'py>> };
    (objects) => { Inputs<'py> };
}

/// An argument converted before the call (objects read within `$l`).
#[rustfmt::skip]
macro_rules! py_read {
    (object, $py:ident, $a:ident, $l:expr) => { read($py, $a, $l)? };
    (json_value, $py:ident, $a:ident, $l:expr) => { read($py, Obj::Value($a), $l)? };
    (opt_object, $py:ident, $a:ident, $l:expr) => { $a.map(|o| read($py, o, $l)).transpose()? };
    (objects, $py:ident, $a:ident, $l:expr) => { read_inputs($py, $a, $l)? };
    ($kind:ident, $py:ident, $a:ident, $l:expr) => { $a };
}

/// An argument as the operation takes it.
#[rustfmt::skip]
macro_rules! py_arg {
    (text, $a:ident) => { &$a };
    (opt_text, $a:ident) => { $a.as_deref() };
    (bytes, $a:ident) => { &$a.0 };
    (expression, $a:ident) => { &$a.0 };
    (object, $a:ident) => { $a.input() };
    (json_value, $a:ident) => { $a.input() };
    (opt_object, $a:ident) => { $a.as_mut().map(Read::input) };
    (objects, $a:ident) => { $a.inputs() };
}

/// The Python type of each result kind.
macro_rules! py_out {
    (json) => { String };
    (value) => { Bound<'py, PyAny> };
    (definition) => { PyDefinition };
    (opt_definition) => { Option<PyDefinition> };
    (definitions) => { Vec<PyDefinition> };
    (session) => { PySession };
}

/// Call `$call` (an operation) without the GIL and convert its result.
#[rustfmt::skip]
macro_rules! py_call {
    (json, $py:ident, $call:expr) => { run($py, || binding::to_json(&$call?)) };
    (value, $py:ident, $call:expr) => { pythonized($py, &run($py, || Ok($call?))?) };
    (definition, $py:ident, $call:expr) => { run($py, || Ok(PyDefinition($call?))) };
    (opt_definition, $py:ident, $call:expr) => { run($py, || Ok($call?.map(PyDefinition))) };
    (definitions, $py:ident, $call:expr) => {
        run($py, || Ok($call?.into_iter().map(PyDefinition).collect()))
    };
    (session, $py:ident, $call:expr) => { run($py, || Ok(PySession(Mutex::new($call?)))) };
}

/// The Python expansion of the operation table: `free`, `limited` and
/// `factory` entries become `#[pyfunction]`s, `definition` and `catalog`
/// entries the methods of `Definition` and `Catalog` (with the
/// hand-written methods given in brackets). Python takes every entry.
macro_rules! python_ops {
    (
        [definition $dx:tt catalog $cx:tt]
        $(
            $section:ident {
                $( $(#[$doc:meta])* $targets:ident $name:ident $js:literal
                   ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident; )*
            }
        )*
    ) => {
        $( python_ops!(@section $section $dx $cx $(
            { $(#[$doc])* $name ( $($arg : $kind $(= $none)?),* ) -> $res }
        )*); )*
    };
    (@section limited $d:tt $c:tt $({ $(#[$doc:meta])* $name:ident ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident })*) => {
        $(
            $(#[$doc])*
            #[pyfunction]
            #[pyo3(signature = ($($arg $(= $none)?,)* limits = None))]
            #[allow(unused_mut)]
            fn $name<'py>(
                py: Python<'py>,
                $($arg: py_ty!($kind),)*
                limits: Option<Arg>,
            ) -> PyResult<py_out!($res)> {
                let l = &run(py, || Ok(binding::limits(limits.as_deref())?))?;
                $( let mut $arg = py_read!($kind, py, $arg, l); )*
                py_call!($res, py, ops::limited::$name(l, $(py_arg!($kind, $arg)),*))
            }
        )*
    };
    (@section definition { $($extra:tt)* } $c:tt $({ $(#[$doc:meta])* $name:ident ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident })*) => {
        #[pymethods]
        impl PyDefinition {
            $(
                $(#[$doc])*
                #[pyo3(signature = ($($arg $(= $none)?),*))]
                #[allow(unused_mut)]
                fn $name<'py>(&self, py: Python<'py>, $($arg: py_ty!($kind)),*) -> PyResult<py_out!($res)> {
                    let r = &*self.0;
                    let _l = r.limits();
                    $( let mut $arg = py_read!($kind, py, $arg, _l); )*
                    py_call!($res, py, ops::definition::$name(r, $(py_arg!($kind, $arg)),*))
                }
            )*
            $($extra)*
        }
    };
    (@section catalog $d:tt { $($extra:tt)* } $({ $(#[$doc:meta])* $name:ident ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident })*) => {
        #[pymethods]
        impl PyCatalog {
            $(
                $(#[$doc])*
                #[pyo3(signature = ($($arg $(= $none)?),*))]
                #[allow(unused_mut)]
                fn $name<'py>(&self, py: Python<'py>, $($arg: py_ty!($kind)),*) -> PyResult<py_out!($res)> {
                    let snapshot = self.lock().clone();
                    let r = &*snapshot;
                    let _l = r.limits();
                    $( let mut $arg = py_read!($kind, py, $arg, _l); )*
                    py_call!($res, py, ops::catalog::$name(r, $(py_arg!($kind, $arg)),*))
                }
            )*
            $($extra)*
        }
    };
    (@section session $d:tt $c:tt $({ $(#[$doc:meta])* $name:ident ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident })*) => {
        #[pymethods]
        impl PySession {
            $(
                $(#[$doc])*
                #[pyo3(signature = ($($arg $(= $none)?),*))]
                fn $name<'py>(&self, py: Python<'py>, $($arg: py_ty!($kind)),*) -> PyResult<py_out!($res)> {
                    let mut session = self.lock();
                    let s = &mut *session;
                    py_call!($res, py, ops::session::$name(s, $(py_arg!($kind, $arg)),*))
                }
            )*
        }
    };
    // `free` and `factory`: module functions.
    (@section $section:ident $d:tt $c:tt $({ $(#[$doc:meta])* $name:ident ( $($arg:ident : $kind:ident $(= $none:ident)?),* ) -> $res:ident })*) => {
        $(
            $(#[$doc])*
            #[pyfunction]
            #[pyo3(signature = ($($arg $(= $none)?),*))]
            fn $name<'py>(py: Python<'py>, $($arg: py_ty!($kind)),*) -> PyResult<py_out!($res)> {
                py_call!($res, py, ops::$section::$name($(py_arg!($kind, $arg)),*))
            }
        )*
    };
}

workload_lens_binding::for_each_operation!(python_ops
    definition {}
    catalog {
        #[new]
        #[pyo3(signature = (bundled = true, limits = None))]
        fn new(py: Python<'_>, bundled: bool, limits: Option<Arg>) -> PyResult<Self> {
            let engine = run(py, || Ok(binding::engine(bundled, limits.as_deref())?))?;
            Ok(PyCatalog(Mutex::new(Arc::new(engine))))
        }

        /// Add a definition; returns the one it replaced (same root GVK).
        fn add(&self, py: Python<'_>, definition: &PyDefinition) -> PyResult<Option<PyDefinition>> {
            run(py, || {
                let old = Arc::make_mut(&mut self.lock()).add_definition(definition.0.clone());
                Ok(old.map(PyDefinition))
            })
        }

        /// A new catalog with the cluster's definition objects over this
        /// one, and the warnings (JSON array).
        fn with_cluster_definitions<'py>(
            &self,
            py: Python<'py>,
            inputs: Inputs<'py>,
        ) -> PyResult<(PyCatalog, String)> {
            let engine = self.lock().clone();
            let l = engine.limits();
            let mut inputs = py_read!(objects, py, inputs, l);
            let (engine, warnings) = run(py, || {
                let (e, w) = binding::with_cluster_definitions(&engine, py_arg!(objects, inputs))?;
                Ok((e, binding::to_json(&w)?))
            })?;
            Ok((PyCatalog(Mutex::new(Arc::new(engine))), warnings))
        }

        /// The fleet tables of a batch of records, column by column: a dict
        /// `{schema_version, workloads, instances, pods}`, each table a dict
        /// of column lists (the Python layer makes Arrow tables of them).
        /// The columns are read under the GIL, the batch resolved without
        /// it, one crossing.
        fn fleet_tables<'py>(
            &self,
            py: Python<'py>,
            clusters: Vec<String>,
            roles: Vec<String>,
            objects: Vec<String>,
        ) -> PyResult<Bound<'py, PyAny>> {
            let engine = self.lock().clone();
            let tables = run(py, || Ok(ops::catalog::fleet_tables(&engine, &clusters, &roles, &objects)?))?;
            pythonized(py, &tables)
        }

        /// [`PyCatalog::fleet_tables`] over an Arrow batch's buffers, without
        /// a Python object per record: the clusters and the roles as a
        /// dictionary (the words, and the rows' indices as little-endian
        /// int32 bytes), the objects as pieces of a `large_string` column
        /// (each piece's offsets as little-endian int64 bytes, and its text
        /// from the first offset to the last).
        #[allow(clippy::type_complexity)]
        fn fleet_tables_arrow<'py>(
            &self,
            py: Python<'py>,
            clusters: (Vec<String>, Bound<'py, PyBytes>),
            roles: (Vec<String>, Bound<'py, PyBytes>),
            objects: Vec<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)>,
        ) -> PyResult<Bound<'py, PyAny>> {
            let engine = self.lock().clone();
            let (cluster_words, cluster_rows) = (&clusters.0, clusters.1.as_bytes());
            let (role_words, role_rows) = (&roles.0, roles.1.as_bytes());
            let pieces: Vec<(&[u8], &[u8])> =
                objects.iter().map(|(o, d)| (o.as_bytes(), d.as_bytes())).collect();
            let tables = run(py, || {
                let clusters = ops::catalog::arrow_dictionary(cluster_words, cluster_rows)?;
                let roles = ops::catalog::arrow_dictionary(role_words, role_rows)?;
                let objects = ops::catalog::arrow_texts(&pieces)?;
                Ok(ops::catalog::fleet_tables(&engine, &clusters, &roles, &objects)?)
            })?;
            pythonized(py, &tables)
        }

        fn __len__(&self) -> usize {
            self.lock().definitions().len()
        }
    }
);

/// A snapshot's lines, read in order: the engine's
/// [`workload_lens::SnapshotLines`] (`workload_lens.fleet` reads snapshots
/// with it).
#[pyclass(frozen, module = "workload_lens._native", name = "SnapshotLines")]
struct PySnapshotLines(Mutex<workload_lens::SnapshotLines>);

#[pymethods]
impl PySnapshotLines {
    #[new]
    #[pyo3(signature = (limits = None))]
    fn new(py: Python<'_>, limits: Option<Arg>) -> PyResult<Self> {
        let l = run(py, || Ok(binding::limits(limits.as_deref())?))?;
        Ok(PySnapshotLines(Mutex::new(
            workload_lens::SnapshotLines::holding(&l),
        )))
    }

    /// Read the next lines: the records among them, as three lists (roles,
    /// comma-separated; namespaces; the objects' JSON texts).
    #[allow(clippy::type_complexity)]
    fn read(
        &self,
        py: Python<'_>,
        lines: Vec<String>,
    ) -> PyResult<(Vec<String>, Vec<Option<String>>, Vec<String>)> {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let state = &mut *state;
        run(py, || Ok(ops::snapshot::read_lines(state, &lines)?))
    }

    /// Read the next block of whole lines (bytes): the records among them
    /// as (roles, namespaces, the objects' offsets and text as bytes: an
    /// Arrow `large_string` column's buffers), no Python object per record.
    #[allow(clippy::type_complexity)]
    fn read_block<'py>(
        &self,
        py: Python<'py>,
        block: Bound<'py, PyBytes>,
    ) -> PyResult<(
        Vec<String>,
        Vec<Option<String>>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let mut state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let state = &mut *state;
        let bytes = block.as_bytes();
        let (roles, namespaces, offsets, data) =
            run(py, || Ok(ops::snapshot::read_block(state, bytes)?))?;
        let offsets = PyBytes::new(py, &offsets);
        let data = PyBytes::new(py, &data);
        Ok((roles, namespaces, offsets, data))
    }

    /// The header and the end, as JSON texts, once every line is read.
    fn finish(&self, py: Python<'_>) -> PyResult<(String, String)> {
        let state = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let state = &*state;
        run(py, || Ok(ops::snapshot::finish(state)?))
    }
}

/// Run the `workload-lens` command line (argv includes the program name);
/// returns the exit code. (The CLI crate is built on the engine, so this
/// entry cannot be an operation of the table.)
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<Arg>) -> PyResult<i32> {
    let argv: Vec<String> = argv.into_iter().map(|a| a.0).collect();
    run(py, || Ok(workload_lens_cli::run(argv)))
}

/// Panic inside the engine call path (tests of the panic guard only).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, message: Arg) -> PyResult<()> {
    run(py, || -> Out<()> { panic!("{}", &*message) })
}

/// How many keys of the objects' own the result conversion keeps shared,
/// and the bounds (tests of [`pyout`] only).
#[pyfunction]
fn _result_keys_for_tests() -> (usize, usize, usize) {
    (pyout::kept_keys(), pyout::MAX_KEYS, pyout::MAX_KEY_BYTES)
}

#[pymodule]
mod _native {
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::{
        _panic_for_tests, _result_keys_for_tests, Iterated, PyCatalog, PyDefinition, PySession,
        PySnapshotLines, catalog_sources, check_limits, cli_main, compile, compile_all,
        compile_object, compile_one_object, default_limits, error_codes, evaluate, human_amounts,
        missing_owners, parse, parse_bytes, rebuild, source_map, usage, validate,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
