//! `workload_lens._native`: the native half of the Python package.
//!
//! A converter over [`workload_lens::abi`], the interface every binding
//! shares, and nothing else: each entry point converts its Python arguments,
//! calls one `abi` function and returns its result, or raises the exception
//! `workload_lens._errors` builds from the [`Failure`]'s payload.
//!
//! Objects, pods and update requests cross as Python values: a `dict` (or
//! list, or anything `json.dumps` takes) is walked directly by the engine's
//! host reader ([`host`]), and the result is built as Python objects from
//! the engine's result types (`pythonize`), with no JSON text either way;
//! `bytes` are the caller's own text (YAML/JSON, read with positions).
//! Other arguments follow the older convention: a `str` is JSON the Python
//! layer serialized (`json.dumps`), and the result is JSON text. Every
//! engine call runs without the GIL (`py.detach`) and catches panics, so no
//! input can raise `PanicException` or take the interpreter down.

mod host;

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
use workload_lens::abi::{self, Failure, HostRead, Input, Out};
use workload_lens::{CompiledDefinition, Engine, Error, ErrorCode, Limits};

use host::{HostErr, Walk};

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

/// Run an `abi` call without the GIL, a panic becoming an internal error.
fn run<T: Send>(py: Python<'_>, f: impl FnOnce() -> Out<T> + Send) -> PyResult<T> {
    let out = py.detach(|| catch_unwind(AssertUnwindSafe(f)));
    out.unwrap_or_else(|p| Err(Failure::from_panic(p)))
        .map_err(|fail| to_pyerr(py, fail))
}

/// A text argument: a `str` is JSON serialized by the Python layer (not
/// Unicode, i.e. a lone surrogate: a usage error, as
/// [`abi::value_from_binding_json`] reports it); `bytes` are the caller's
/// text (not UTF-8: the located parse error of [`abi::utf8`]).
struct Arg(String);

impl<'a, 'py> FromPyObject<'a, 'py> for Arg {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let fail = |f: Failure| to_pyerr(obj.py(), f);
        if let Ok(b) = obj.cast::<PyBytes>() {
            let text = abi::utf8(b.as_bytes()).map_err(|e| fail(e.into()))?;
            return Ok(Arg(text.to_owned()));
        }
        let lone = "the value cannot be represented as JSON: it holds a lone surrogate";
        match obj.cast::<PyString>()?.to_cow() {
            Ok(text) => Ok(Arg(text.into_owned())),
            Err(_) => Err(fail(Error::new(ErrorCode::Usage, lone).into())),
        }
    }
}

impl std::ops::Deref for Arg {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
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
            let text = abi::utf8(b.as_bytes()).map_err(|e| to_pyerr(obj.py(), e.into()))?;
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
    /// The argument for an `abi` call (a value is moved out).
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
    match obj {
        Obj::Text(t) => Ok(Read::Text(t)),
        Obj::Value(v) => Ok(Read::Value(read_value(py, v, limits)?)),
    }
}

/// Several inputs (pages of list responses, or values), read within
/// `limits`, for an `abi` call that takes several.
fn read_all(py: Python<'_>, inputs: Vec<Obj<'_>>, limits: &Limits) -> PyResult<Vec<Read>> {
    inputs.into_iter().map(|i| read(py, i, limits)).collect()
}

/// The objects of several inputs as one array value: how the pages of
/// list responses cross to an `abi` call that takes one list of objects
/// (the engine reads each page as it reads one).
fn joined(reads: &mut [Read], limits: &Limits) -> workload_lens::Result<serde_json::Value> {
    let mut all = Vec::new();
    for r in reads {
        all.extend(r.input().objects(limits)?);
    }
    Ok(serde_json::Value::Array(all))
}

/// A Python value read by the engine's host reader within `limits`.
fn read_value(
    py: Python<'_>,
    value: Bound<'_, PyAny>,
    limits: &Limits,
) -> PyResult<serde_json::Value> {
    // Looked up on each call (not kept), so the hook is the module's
    // current one.
    static API: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    let api = API.get_or_try_init(py, || {
        PyModule::import(py, "workload_lens._api").map(Bound::unbind)
    })?;
    let hook = api.bind(py).getattr("_default")?;
    let walked = catch_unwind(AssertUnwindSafe(|| {
        let walk = Walk::new(hook);
        abi::value_from_host(walk.root(value), limits)
    }));
    match walked {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(HostRead::Engine(e))) => Err(to_pyerr(py, e.into())),
        Ok(Err(HostRead::Host(HostErr::Py(e)))) => Err(e),
        Ok(Err(HostRead::Host(HostErr::Msg(m)))) => Err(to_pyerr(py, Failure::Internal(m))),
        Err(p) => Err(to_pyerr(py, Failure::from_panic(p))),
    }
}

/// Run an engine call without the GIL, its result built as Python objects.
fn run_value<'py, T: serde::Serialize + Send>(
    py: Python<'py>,
    f: impl FnOnce() -> workload_lens::Result<T> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let out = run(py, || Ok(f()?))?;
    pythonize::pythonize(py, &out).map_err(|e| {
        let fail = Failure::Internal(format!("cannot convert the result: {e}"));
        to_pyerr(py, fail)
    })
}

/// A compiled definition (`workload_lens.Definition` wraps it).
#[pyclass(frozen, module = "workload_lens._native", name = "Definition")]
struct PyDefinition(Arc<CompiledDefinition>);

fn wrap(d: impl Into<Arc<CompiledDefinition>>) -> PyDefinition {
    PyDefinition(d.into())
}

fn wrap_all(all: Vec<CompiledDefinition>) -> Vec<PyDefinition> {
    all.into_iter().map(wrap).collect()
}

#[pymethods]
impl PyDefinition {
    /// `{name, origin, gvk, components, canSuspend, warnings, limits}`.
    #[getter]
    fn info(&self, py: Python<'_>) -> PyResult<String> {
        run(py, || abi::info(&self.0))
    }

    /// The definition as read, as JSON.
    #[getter]
    fn definition_json(&self, py: Python<'_>) -> PyResult<String> {
        run(py, || abi::definition_json(&self.0))
    }

    /// Resolve (with live state when `pods` is given).
    #[pyo3(signature = (obj, pods = None))]
    fn resolve<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        pods: Option<Obj<'py>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let l = self.0.limits();
        let mut obj = read(py, obj, l)?;
        let mut pods = pods.map(|p| read(py, p, l)).transpose()?;
        run_value(py, || {
            abi::resolve_input(&self.0, obj.input(), pods.as_mut().map(Read::input))
        })
    }

    /// The root status (`None` when the definition has none).
    fn status<'py>(&self, py: Python<'py>, obj: Obj<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut obj = read(py, obj, self.0.limits())?;
        run_value(py, || abi::status_input(&self.0, obj.input()))
    }

    /// Why the object has its status.
    fn explain_status<'py>(&self, py: Python<'py>, obj: Obj<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut obj = read(py, obj, self.0.limits())?;
        run_value(py, || abi::explain_status_input(&self.0, obj.input()))
    }

    /// Write values through the definition's paths: `{object, patch}`.
    fn update<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        request: Obj<'py>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let l = self.0.limits();
        let mut obj = read(py, obj, l)?;
        let mut request = read(py, request, l)?;
        run_value(py, || {
            abi::update_input(&self.0, obj.input(), request.input())
        })
    }

    /// Apply the suspend actions: `{object, patch}`.
    fn suspend<'py>(&self, py: Python<'py>, obj: Obj<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut obj = read(py, obj, self.0.limits())?;
        run_value(py, || abi::suspend_input(&self.0, obj.input()))
    }

    /// Apply the resume actions: `{object, patch}`.
    fn resume<'py>(&self, py: Python<'py>, obj: Obj<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut obj = read(py, obj, self.0.limits())?;
        run_value(py, || abi::resume_input(&self.0, obj.input()))
    }

    /// Place pods under components and instances.
    #[pyo3(signature = (obj, pods))]
    fn attribute_pods<'py>(
        &self,
        py: Python<'py>,
        obj: Option<Obj<'py>>,
        pods: Obj<'py>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let l = self.0.limits();
        let mut obj = obj.map(|o| read(py, o, l)).transpose()?;
        let mut pods = read(py, pods, l)?;
        run_value(py, || {
            abi::attribute_pods_input(&self.0, obj.as_mut().map(Read::input), pods.input())
        })
    }

    /// Gang-scheduling groups of the workload's pods.
    fn gang_groups<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        pods: Obj<'py>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let l = self.0.limits();
        let mut obj = read(py, obj, l)?;
        let mut pods = read(py, pods, l)?;
        run_value(py, || {
            abi::gang_groups_input(&self.0, obj.input(), pods.input())
        })
    }

    /// Gang-scheduling groups with the pods (and owners) given as several
    /// inputs, such as the pages of list responses.
    fn gang_groups_pages<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        pages: Vec<Obj<'py>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let l = self.0.limits();
        let mut obj = read(py, obj, l)?;
        let mut pages = read_all(py, pages, l)?;
        run_value(py, || {
            let items = joined(&mut pages, l)?;
            abi::gang_groups_input(&self.0, obj.input(), Input::Value(items))
        })
    }

    /// The structure gang scheduling works on: components, leaves, parents,
    /// children, `hasScaleDefinition` and the candidate members.
    fn gang_structure<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        run_value(py, || abi::gang_structure_value(&self.0))
    }

    /// The subtree scale (gang minimum members) of a component of the
    /// object, of one of its instances when `instance` is given.
    #[pyo3(signature = (obj, component, instance = None))]
    fn subtree_scale<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        component: Arg,
        instance: Option<Arg>,
    ) -> PyResult<i64> {
        let mut obj = read(py, obj, self.0.limits())?;
        run(py, || {
            let instance = instance.as_deref();
            Ok(abi::subtree_scale_input(
                &self.0,
                obj.input(),
                &component,
                instance,
            )?)
        })
    }
}

/// An engine: definitions keyed by root GVK. Readers take a snapshot (an
/// `Arc`), so `add` never waits for a resolve.
#[pyclass(frozen, module = "workload_lens._native", name = "Catalog")]
struct PyCatalog(Mutex<Arc<Engine>>);

impl PyCatalog {
    fn lock(&self) -> MutexGuard<'_, Arc<Engine>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn snapshot(&self) -> Arc<Engine> {
        self.lock().clone()
    }
}

#[pymethods]
impl PyCatalog {
    #[new]
    #[pyo3(signature = (bundled = true))]
    fn new(py: Python<'_>, bundled: bool) -> PyResult<Self> {
        let engine = run(py, || abi::engine(bundled, None))?;
        Ok(PyCatalog(Mutex::new(Arc::new(engine))))
    }

    /// Add a definition; returns the one it replaced (same root GVK).
    fn add(&self, py: Python<'_>, definition: &PyDefinition) -> PyResult<Option<PyDefinition>> {
        run(py, || {
            let old = Arc::make_mut(&mut self.lock()).add_definition(definition.0.clone());
            Ok(old.map(wrap))
        })
    }

    /// The definition for an apiVersion and kind.
    fn lookup(
        &self,
        py: Python<'_>,
        api_version: Arg,
        kind: Arg,
    ) -> PyResult<Option<PyDefinition>> {
        let engine = self.snapshot();
        run(py, || {
            Ok(abi::engine_lookup(&engine, &api_version, &kind).map(wrap))
        })
    }

    /// The definition for an object, by its apiVersion and kind.
    fn lookup_object<'py>(&self, py: Python<'py>, obj: Obj<'py>) -> PyResult<PyDefinition> {
        let engine = self.snapshot();
        let mut obj = read(py, obj, engine.limits())?;
        run(py, || {
            Ok(wrap(abi::engine_lookup_object_input(&engine, obj.input())?))
        })
    }

    /// A definition by name.
    fn get(&self, py: Python<'_>, name: Arg) -> PyResult<Option<PyDefinition>> {
        let engine = self.snapshot();
        run(py, || Ok(engine.definition(&name).cloned().map(wrap)))
    }

    /// Every definition, sorted by name.
    fn definitions(&self) -> Vec<PyDefinition> {
        let engine = self.snapshot();
        let all = engine.definitions().into_iter().map(|d| wrap(d.clone()));
        all.collect()
    }

    /// Choose the definition by GVK and resolve (with pods: live state).
    #[pyo3(signature = (obj, pods = None))]
    fn resolve<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        pods: Option<Obj<'py>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let engine = self.snapshot();
        let l = engine.limits();
        let mut obj = read(py, obj, l)?;
        let mut pods = pods.map(|p| read(py, p, l)).transpose()?;
        run_value(py, || {
            abi::engine_resolve_input(&engine, obj.input(), pods.as_mut().map(Read::input))
        })
    }

    /// Resolve with the pods (and owners) given as several inputs, such as
    /// the pages of list responses.
    fn resolve_pages<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        pages: Vec<Obj<'py>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let engine = self.snapshot();
        let l = engine.limits();
        let mut obj = read(py, obj, l)?;
        let mut pages = read_all(py, pages, l)?;
        run_value(py, || {
            let items = joined(&mut pages, l)?;
            abi::engine_resolve_input(&engine, obj.input(), Some(Input::Value(items)))
        })
    }

    /// Resolve with every pod of the workload's namespace and their owners
    /// (several inputs, such as the pages of list responses): other
    /// workloads' pods are left out, look-alikes kept as strays. JSON.
    fn resolve_in_namespace<'py>(
        &self,
        py: Python<'py>,
        obj: Obj<'py>,
        items: Vec<Obj<'py>>,
    ) -> PyResult<String> {
        let engine = self.snapshot();
        let l = engine.limits();
        let mut obj = read(py, obj, l)?;
        let mut items = read_all(py, items, l)?;
        run(py, || {
            abi::engine_resolve_in_namespace(
                &engine,
                obj.input(),
                items.iter_mut().map(Read::input).collect(),
            )
        })
    }

    /// The served resource a type token names (JSON); `served` is a JSON
    /// array of `{group, version, kind, plural, ...}`.
    fn find_type(&self, py: Python<'_>, token: Arg, served: Arg) -> PyResult<String> {
        let engine = self.snapshot();
        run(py, || abi::engine_find_type(&engine, &token, &served))
    }

    /// The served resources a definition covers (JSON array).
    fn covered_types(&self, py: Python<'_>, served: Arg) -> PyResult<String> {
        let engine = self.snapshot();
        run(py, || abi::engine_covered_types(&engine, &served))
    }

    /// A new catalog with the cluster's definition objects over this one,
    /// and the warnings (JSON array).
    fn with_cluster_definitions<'py>(
        &self,
        py: Python<'py>,
        inputs: Vec<Obj<'py>>,
    ) -> PyResult<(PyCatalog, String)> {
        let engine = self.snapshot();
        let mut inputs = read_all(py, inputs, engine.limits())?;
        let (engine, warnings) = run(py, || {
            abi::engine_with_cluster_definitions(
                &engine,
                inputs.iter_mut().map(Read::input).collect(),
            )
        })?;
        Ok((PyCatalog(Mutex::new(Arc::new(engine))), warnings))
    }

    /// One summary row per object (JSON array), newest first.
    #[pyo3(signature = (objects, owners, options = None))]
    fn list_workloads<'py>(
        &self,
        py: Python<'py>,
        objects: Vec<Obj<'py>>,
        owners: Vec<Obj<'py>>,
        options: Option<Arg>,
    ) -> PyResult<String> {
        let engine = self.snapshot();
        let l = engine.limits();
        let mut objects = read_all(py, objects, l)?;
        let mut owners = read_all(py, owners, l)?;
        run(py, || {
            abi::engine_list_workloads(
                &engine,
                objects.iter_mut().map(Read::input).collect(),
                owners.iter_mut().map(Read::input).collect(),
                options.as_deref(),
            )
        })
    }

    fn __len__(&self) -> usize {
        self.snapshot().definitions().len()
    }
}

/// The default limits, as JSON (camelCase).
#[pyfunction]
fn default_limits(py: Python<'_>) -> PyResult<String> {
    run(py, abi::default_limits)
}

/// Complete limits from a camelCase JSON object (missing fields: defaults).
#[pyfunction]
#[pyo3(signature = (limits = None))]
fn limits(py: Python<'_>, limits: Option<Arg>) -> PyResult<String> {
    run(py, || abi::check_limits(limits.as_deref()))
}

/// Every document of a YAML/JSON text, as a JSON array.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn parse(py: Python<'_>, text: Arg, limits: Option<Arg>) -> PyResult<String> {
    run(py, || abi::parse(&text, limits.as_deref()))
}

/// Run one jq expression (UTF-8 bytes) on an input (a Python value):
/// every output.
#[pyfunction]
#[pyo3(signature = (expression, input, limits = None))]
fn evaluate<'py>(
    py: Python<'py>,
    expression: &Bound<'py, PyBytes>,
    input: Bound<'py, PyAny>,
    limits: Option<Arg>,
) -> PyResult<Bound<'py, PyAny>> {
    let expression = expression.as_bytes();
    let limits = run(py, || Ok(abi::limits(limits.as_deref())?))?;
    let input = read_value(py, input, &limits)?;
    run_value(py, || abi::evaluate_input(expression, &input, &limits))
}

/// Validate every definition of a text: `[{name, valid, gvk?, findings}]`.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn validate(py: Python<'_>, text: Arg, limits: Option<Arg>) -> PyResult<String> {
    run(py, || abi::validate(&text, limits.as_deref()))
}

/// Compile the one definition of a YAML/JSON text.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn compile(py: Python<'_>, text: Arg, limits: Option<Arg>) -> PyResult<PyDefinition> {
    run(py, || Ok(wrap(abi::compile(&text, limits.as_deref())?)))
}

/// Compile every definition of a YAML/JSON text.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn compile_all(py: Python<'_>, text: Arg, limits: Option<Arg>) -> PyResult<Vec<PyDefinition>> {
    run(py, || {
        Ok(wrap_all(abi::compile_all(&text, limits.as_deref())?))
    })
}

/// Compile the one definition of a value (a dict, as JSON).
#[pyfunction]
#[pyo3(signature = (value, limits = None))]
fn compile_one_object(py: Python<'_>, value: Arg, limits: Option<Arg>) -> PyResult<PyDefinition> {
    run(py, || {
        Ok(wrap(abi::compile_one_object(&value, limits.as_deref())?))
    })
}

/// Compile every definition of a value (a dict, as JSON).
#[pyfunction]
#[pyo3(signature = (value, limits = None))]
fn compile_object(py: Python<'_>, value: Arg, limits: Option<Arg>) -> PyResult<Vec<PyDefinition>> {
    run(py, || {
        Ok(wrap_all(abi::compile_object(&value, limits.as_deref())?))
    })
}

/// Compile a definition from its JSON with limits and origin (unpickling).
#[pyfunction]
fn rebuild(py: Python<'_>, definition: Arg, limits: Arg, origin: Arg) -> PyResult<PyDefinition> {
    run(py, || {
        Ok(wrap(abi::rebuild(&definition, &limits, &origin)?))
    })
}

/// The bundled definition files, `{file name: YAML text}`, as JSON.
#[pyfunction]
fn catalog_sources(py: Python<'_>) -> PyResult<String> {
    run(py, abi::catalog_sources)
}

/// Every error code with its exception class name, `[{code, class}]`.
#[pyfunction]
fn error_codes(py: Python<'_>) -> PyResult<String> {
    run(py, abi::error_codes)
}

/// Run the `workload-lens` command line (argv includes the program name);
/// returns the exit code. (The CLI crate is built on the engine, so this
/// entry cannot live in `abi`.)
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<Arg>) -> PyResult<i32> {
    let argv: Vec<String> = argv.into_iter().map(|a| a.0).collect();
    run(py, || Ok(workload_lens_cli::run(argv)))
}

/// The controller owner kinds the items reference but do not hold, without
/// those of `skip` (JSON array of `{apiVersion, kind}`), as a JSON array.
#[pyfunction]
#[pyo3(signature = (items, skip, limits = None))]
fn missing_owners<'py>(
    py: Python<'py>,
    items: Vec<Obj<'py>>,
    skip: Arg,
    limits: Option<Arg>,
) -> PyResult<String> {
    let limits = run(py, || Ok(abi::limits(limits.as_deref())?))?;
    let mut items = read_all(py, items, &limits)?;
    run(py, || {
        abi::missing_owners(items.iter_mut().map(Read::input).collect(), &skip, &limits)
    })
}

/// GPU and pod totals of a listing (its JSON array), by namespace and type.
#[pyfunction]
fn usage(py: Python<'_>, rows: Arg) -> PyResult<String> {
    run(py, || abi::usage(&rows))
}

/// Panic inside the engine call path (tests of the panic guard only).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, message: Arg) -> PyResult<()> {
    run(py, || -> Out<()> { panic!("{}", &*message) })
}

#[pymodule]
mod _native {
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::{
        _panic_for_tests, PyCatalog, PyDefinition, catalog_sources, cli_main, compile, compile_all,
        compile_object, compile_one_object, default_limits, error_codes, evaluate, limits,
        missing_owners, parse, rebuild, usage, validate,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }
}
