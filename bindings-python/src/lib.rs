//! `workload_lens._native`: the native half of the Python package.
//!
//! Deliberately thin: values cross the boundary as JSON text (the Python
//! side uses `json.dumps`/`json.loads`, this side `serde_json`), which keeps
//! every result in the canonical JSON shape; engine errors become instances of
//! the exception classes of `workload_lens._errors`, built from the engine's
//! serialized `Error`. Every entry point runs the engine without the GIL
//! (`py.detach`) and catches panics (`catch_unwind`) as a last resort, so no
//! input can raise `PanicException` or take the interpreter down.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, MutexGuard};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyString};
use serde_json::Value;
use workload_lens::abi::{self, Failure, Out, to_json};
use workload_lens::source::{SourceDocument, parse_documents, parse_documents_bytes, read_value};
use workload_lens::{
    CompiledDefinition, DefinitionSet, Error, ErrorCode, Gvk, Limits, Origin, UpdateRequest,
    catalog,
};

/// The exception for a failure, built by `workload_lens._errors._from_native`
/// from the engine's error as JSON and its display text.
fn to_pyerr(py: Python<'_>, fail: Failure) -> PyErr {
    let (payload, display) = (fail.payload(), fail.display());
    static FROM_NATIVE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    match FROM_NATIVE
        .import(py, "workload_lens._errors", "_from_native")
        .and_then(|f| f.call1((payload, display)))
    {
        Ok(exc) => PyErr::from_value(exc),
        Err(e) => e,
    }
}

/// Run engine work without the GIL, catching panics.
fn detached<T: Send>(py: Python<'_>, f: impl FnOnce() -> Out<T> + Send) -> PyResult<T> {
    match py.detach(|| catch_unwind(AssertUnwindSafe(f))) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(fail)) => Err(to_pyerr(py, fail)),
        Err(p) => Err(to_pyerr(py, Failure::from_panic(p))),
    }
}

/// The last-resort guard of every entry point (the part holding the GIL).
fn entry<T>(py: Python<'_>, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| Err(to_pyerr(py, Failure::from_panic(p))))
}

/// A JSON value written by the Python side (`json.dumps`), read by the
/// engine's reader for binding arguments (`source::read_value`: serde_json,
/// else the located reader, which also takes nesting deeper than
/// serde_json's 128 levels; the limits apply either way).
fn value_of(json: &str, limits: &Limits) -> Result<Value, Error> {
    read_value(json, limits).map_err(|mut e| {
        // The text is ours, so positions in it mean nothing to the caller.
        e.location.line = None;
        e.location.column = None;
        if e.code == ErrorCode::Parse {
            // Our own `json.dumps` text fails to parse only for a lone
            // surrogate (escaped as `"\ud800"`): the value is not Unicode,
            // so it cannot be JSON.
            Error::new(
                ErrorCode::Usage,
                format!("the value cannot be represented as JSON: {}", e.message),
            )
        } else {
            e
        }
    })
}

fn values_of(json: &str, limits: &Limits) -> Result<Vec<Value>, Error> {
    match value_of(json, limits)? {
        Value::Array(a) => Ok(a),
        _ => Err(Error::new(ErrorCode::Usage, "expected a list of objects")),
    }
}

/// JSON text written by the Python side, as an argument: a `str` (else
/// `TypeError`); a lone surrogate (not Unicode) is a `UsageError`.
struct Json(String);

impl<'a, 'py> FromPyObject<'a, 'py> for Json {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let s = obj.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!("expected str (JSON text), not {}", type_name(&obj)))
        })?;
        match s.to_cow() {
            Ok(c) => Ok(Json(c.into_owned())),
            Err(_) => Err(to_pyerr(
                obj.py(),
                Failure::Engine(Error::new(
                    ErrorCode::Usage,
                    "the JSON text is not valid Unicode (it holds a lone surrogate)",
                )),
            )),
        }
    }
}

impl std::ops::Deref for Json {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

/// A `str` argument taken as it is, lone surrogates replaced (command-line
/// arguments, as the Rust binary reads them).
struct Lossy(String);

impl<'a, 'py> FromPyObject<'a, 'py> for Lossy {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.cast::<PyString>() {
            Ok(s) => Ok(Lossy(s.to_string_lossy().into_owned())),
            Err(_) => Err(PyTypeError::new_err(format!(
                "expected str, not {}",
                type_name(&obj)
            ))),
        }
    }
}

/// YAML/JSON text given as `str` or `bytes`.
enum Text<'a> {
    Str(Cow<'a, str>),
    Bytes(Cow<'a, [u8]>),
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .qualname()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn text_arg<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Text<'a>> {
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(match s.to_cow() {
            Ok(c) => Text::Str(c),
            // Lone surrogates: pass the bytes on, the engine reports where
            // the text stops being valid UTF-8.
            Err(_) => {
                let b = s.call_method1("encode", ("utf-8", "surrogatepass"))?;
                Text::Bytes(Cow::Owned(b.cast::<PyBytes>()?.as_bytes().to_vec()))
            }
        });
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Text::Bytes(Cow::Borrowed(b.as_bytes())));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be str or bytes, not {}",
        type_name(obj)
    )))
}

/// A name (definition name, apiVersion, kind) given as `str`.
fn name_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    match obj.cast::<PyString>() {
        Ok(s) => Ok(s.to_string_lossy().into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be str, not {}",
            type_name(obj)
        ))),
    }
}

impl Text<'_> {
    fn documents(&self, limits: &Limits) -> Result<Vec<SourceDocument>, Error> {
        match self {
            Text::Str(s) => parse_documents(s, limits),
            Text::Bytes(b) => parse_documents_bytes(b, limits),
        }
    }

    /// The text as `str`; bytes that are not UTF-8 fail with the engine's
    /// error for them.
    fn str(&self, limits: &Limits) -> Result<&str, Error> {
        match self {
            Text::Str(s) => Ok(s),
            Text::Bytes(b) => std::str::from_utf8(b).map_err(|_| {
                parse_documents_bytes(b, limits)
                    .err()
                    .unwrap_or_else(|| Error::new(ErrorCode::Parse, "the input is not valid UTF-8"))
            }),
        }
    }

    /// One object (as the engine's `resolve_text` reads it).
    fn object(&self, limits: &Limits) -> Result<Value, Error> {
        workload_lens::source::one_document(self.documents(limits)?)
    }
}

fn origin_of(name: &str) -> Result<Origin, Error> {
    match name {
        "catalog" => Ok(Origin::Catalog),
        "user" => Ok(Origin::User),
        o => Err(Error::new(
            ErrorCode::Usage,
            format!("origin must be 'catalog' or 'user', not {o:?}"),
        )),
    }
}

/// A compiled definition (`workload_lens.Definition` wraps it).
#[pyclass(frozen, module = "workload_lens._native", name = "Definition")]
struct PyDefinition {
    inner: Arc<CompiledDefinition>,
}

impl PyDefinition {
    fn new(inner: impl Into<Arc<CompiledDefinition>>) -> Self {
        PyDefinition {
            inner: inner.into(),
        }
    }
}

#[pymethods]
impl PyDefinition {
    /// `metadata.name` of the definition.
    #[getter]
    fn name(&self, py: Python<'_>) -> PyResult<String> {
        entry(py, || Ok(self.inner.name().to_string()))
    }

    /// `"catalog"` or `"user"`.
    #[getter]
    fn origin(&self, py: Python<'_>) -> PyResult<&'static str> {
        entry(py, || Ok(self.inner.origin().as_str()))
    }

    /// The root (group, version, kind).
    #[getter]
    fn gvk(&self, py: Python<'_>) -> PyResult<(String, String, String)> {
        entry(py, || {
            let g = self.inner.root_gvk();
            Ok((g.group, g.version, g.kind))
        })
    }

    /// Component names, root first.
    #[getter]
    fn component_names(&self, py: Python<'_>) -> PyResult<Vec<String>> {
        entry(py, || {
            Ok(self
                .inner
                .component_names()
                .into_iter()
                .map(str::to_string)
                .collect())
        })
    }

    /// Whether the definition has suspend/resume actions.
    #[getter]
    fn can_suspend(&self, py: Python<'_>) -> PyResult<bool> {
        entry(py, || Ok(self.inner.can_suspend()))
    }

    /// Validation warnings, as JSON.
    #[getter]
    fn warnings_json(&self, py: Python<'_>) -> PyResult<String> {
        entry(py, || detached(py, || to_json(self.inner.warnings())))
    }

    /// The definition as read, as JSON.
    #[getter]
    fn definition_json(&self, py: Python<'_>) -> PyResult<String> {
        entry(py, || detached(py, || to_json(self.inner.definition())))
    }

    /// The limits it evaluates with, as JSON (camelCase).
    #[getter]
    fn limits_json(&self, py: Python<'_>) -> PyResult<String> {
        entry(py, || detached(py, || to_json(self.inner.limits())))
    }

    /// Parse one YAML/JSON object with the definition's limits; JSON out.
    fn parse_object(&self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<String> {
        entry(py, || {
            let text = text_arg(text, "the object text")?;
            detached(py, || to_json(&text.object(self.inner.limits())?))
        })
    }

    /// Resolve (with live state when `pods` is given).
    #[pyo3(signature = (obj, pods = None))]
    fn resolve(&self, py: Python<'_>, obj: Json, pods: Option<Json>) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                let d = &self.inner;
                let obj = value_of(&obj, d.limits())?;
                match pods {
                    Some(p) => to_json(&d.resolve_with_pods(&obj, &values_of(&p, d.limits())?)?),
                    None => to_json(&d.resolve(&obj)?),
                }
            })
        })
    }

    /// The root status (JSON `null` when the definition has none).
    fn status(&self, py: Python<'_>, obj: Json) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                let obj = value_of(&obj, self.inner.limits())?;
                to_json(&self.inner.status(&obj)?)
            })
        })
    }

    /// Why the object has its status: every matcher of every status
    /// category with its outcome and reason (the engine's `explain_status`).
    fn explain_status(&self, py: Python<'_>, obj: Json) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                let obj = value_of(&obj, self.inner.limits())?;
                to_json(&self.inner.explain_status(&obj)?)
            })
        })
    }

    /// Write values through the definition's paths: `{object, patch}`.
    fn update(&self, py: Python<'_>, obj: Json, request: Json) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                let obj = value_of(&obj, self.inner.limits())?;
                let req = value_of(&request, self.inner.limits())?;
                let req: UpdateRequest = serde_json::from_value(req).map_err(|e| {
                    Error::new(ErrorCode::Usage, format!("invalid update request: {e}"))
                })?;
                to_json(&self.inner.update(&obj, &req)?)
            })
        })
    }

    /// Apply the suspend actions: `{object, patch}`.
    fn suspend(&self, py: Python<'_>, obj: Json) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                to_json(&self.inner.suspend(&value_of(&obj, self.inner.limits())?)?)
            })
        })
    }

    /// Apply the resume actions: `{object, patch}`.
    fn resume(&self, py: Python<'_>, obj: Json) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                to_json(&self.inner.resume(&value_of(&obj, self.inner.limits())?)?)
            })
        })
    }

    /// Place pods under components and instances.
    #[pyo3(signature = (obj, pods))]
    fn attribute_pods(&self, py: Python<'_>, obj: Option<Json>, pods: Json) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                let l = self.inner.limits();
                let obj = obj.map(|o| value_of(&o, l)).transpose()?;
                to_json(
                    &self
                        .inner
                        .attribute_pods(obj.as_ref(), &values_of(&pods, l)?)?,
                )
            })
        })
    }

    /// Gang-scheduling groups of the workload's pods.
    fn gang_groups(&self, py: Python<'_>, obj: Json, pods: Json) -> PyResult<String> {
        entry(py, || {
            detached(py, || {
                let l = self.inner.limits();
                let obj = value_of(&obj, l)?;
                to_json(&self.inner.gang_groups(&obj, &values_of(&pods, l)?)?)
            })
        })
    }
}

/// A set of definitions keyed by root GVK (the engine's `DefinitionSet`).
/// Readers take a snapshot (an `Arc`), so `add` never waits for a resolve.
#[pyclass(frozen, module = "workload_lens._native", name = "Catalog")]
struct PyCatalog {
    set: Mutex<Arc<DefinitionSet>>,
}

impl PyCatalog {
    fn lock(&self) -> MutexGuard<'_, Arc<DefinitionSet>> {
        self.set.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn snapshot(&self) -> Arc<DefinitionSet> {
        self.lock().clone()
    }
}

#[pymethods]
impl PyCatalog {
    #[new]
    #[pyo3(signature = (bundled = true))]
    fn new(py: Python<'_>, bundled: bool) -> PyResult<Self> {
        entry(py, || {
            let set = detached(py, || {
                Ok(if bundled {
                    DefinitionSet::with_catalog()?
                } else {
                    DefinitionSet::new()
                })
            })?;
            Ok(PyCatalog {
                set: Mutex::new(Arc::new(set)),
            })
        })
    }

    /// Add a definition; returns the one it replaced (same root GVK).
    fn add(&self, py: Python<'_>, definition: &PyDefinition) -> PyResult<Option<PyDefinition>> {
        entry(py, || {
            let mut set = self.lock();
            Ok(Arc::make_mut(&mut set)
                .add(definition.inner.clone())
                .map(PyDefinition::new))
        })
    }

    /// The definition for an apiVersion and kind.
    fn lookup(
        &self,
        py: Python<'_>,
        api_version: &Bound<'_, PyAny>,
        kind: &Bound<'_, PyAny>,
    ) -> PyResult<Option<PyDefinition>> {
        entry(py, || {
            let gvk = Gvk::from_api_version(
                &name_arg(api_version, "api_version")?,
                &name_arg(kind, "kind")?,
            );
            Ok(self.snapshot().lookup(&gvk).cloned().map(PyDefinition::new))
        })
    }

    /// The definition for an object (JSON), by its apiVersion and kind.
    fn lookup_object(&self, py: Python<'_>, obj: Json) -> PyResult<PyDefinition> {
        entry(py, || {
            let set = self.snapshot();
            detached(py, || {
                let obj = value_of(&obj, &Limits::default())?;
                Ok(PyDefinition::new(set.lookup_object(&obj)?.clone()))
            })
        })
    }

    /// A definition by name.
    fn get(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<Option<PyDefinition>> {
        entry(py, || {
            let name = name_arg(name, "name")?;
            Ok(self.snapshot().get(&name).cloned().map(PyDefinition::new))
        })
    }

    /// Every definition, sorted by name.
    fn definitions(&self, py: Python<'_>) -> PyResult<Vec<PyDefinition>> {
        entry(py, || {
            Ok(self
                .snapshot()
                .definitions()
                .into_iter()
                .map(|d| PyDefinition::new(d.clone()))
                .collect())
        })
    }

    /// Choose the definition by GVK and resolve (with pods: live state).
    #[pyo3(signature = (obj, pods = None))]
    fn resolve(&self, py: Python<'_>, obj: Json, pods: Option<Json>) -> PyResult<String> {
        entry(py, || {
            let set = self.snapshot();
            detached(py, || {
                let obj = value_of(&obj, &Limits::default())?;
                match pods {
                    None => to_json(&set.resolve(&obj)?),
                    Some(p) => {
                        let d = set.lookup_object(&obj)?;
                        to_json(&d.resolve_with_pods(&obj, &values_of(&p, d.limits())?)?)
                    }
                }
            })
        })
    }

    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        entry(py, || Ok(self.snapshot().definitions().len()))
    }
}

/// The default limits, as JSON (camelCase).
#[pyfunction]
fn default_limits(py: Python<'_>) -> PyResult<String> {
    entry(py, || detached(py, || to_json(&Limits::default())))
}

/// Complete limits from a camelCase JSON object (missing fields: defaults).
#[pyfunction]
#[pyo3(signature = (limits = None))]
fn limits(py: Python<'_>, limits: Option<Json>) -> PyResult<String> {
    entry(py, || {
        detached(py, || to_json(&abi::limits(limits.as_deref())?))
    })
}

/// Every document of a YAML/JSON text, as a JSON array.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn parse(py: Python<'_>, text: &Bound<'_, PyAny>, limits: Option<Json>) -> PyResult<String> {
    entry(py, || {
        let text = text_arg(text, "text")?;
        detached(py, || {
            let docs = text.documents(&abi::limits(limits.as_deref())?)?;
            to_json(&docs.into_iter().map(|d| d.value).collect::<Vec<_>>())
        })
    })
}

/// One object of a YAML/JSON text, as JSON.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn parse_object(py: Python<'_>, text: &Bound<'_, PyAny>, limits: Option<Json>) -> PyResult<String> {
    entry(py, || {
        let text = text_arg(text, "the object text")?;
        detached(py, || {
            to_json(&text.object(&abi::limits(limits.as_deref())?)?)
        })
    })
}

/// Run one jq expression on a JSON input: every output, as a JSON array.
#[pyfunction]
#[pyo3(signature = (expression, input, limits = None))]
fn evaluate(
    py: Python<'_>,
    expression: &Bound<'_, PyAny>,
    input: Json,
    limits: Option<Json>,
) -> PyResult<String> {
    entry(py, || {
        let expression = match text_arg(expression, "expression")? {
            Text::Str(s) => s,
            Text::Bytes(b) => match String::from_utf8(b.into_owned()) {
                Ok(s) => Cow::Owned(s),
                Err(_) => {
                    return Err(to_pyerr(
                        py,
                        Failure::Engine(Error::new(
                            ErrorCode::JqCompile,
                            "the expression is not valid Unicode",
                        )),
                    ));
                }
            },
        };
        detached(py, || {
            let limits = abi::limits(limits.as_deref())?;
            let input = value_of(&input, &limits)?;
            to_json(&workload_lens::evaluate(&expression, &input, &limits)?)
        })
    })
}

/// Validate every definition of a text: `[{name, valid, findings}]`.
#[pyfunction]
#[pyo3(name = "validate", signature = (text, limits = None))]
fn validate_text(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    limits: Option<Json>,
) -> PyResult<String> {
    entry(py, || {
        let text = text_arg(text, "the definition text")?;
        detached(py, || {
            let text = text.str(&abi::limits(limits.as_deref())?)?;
            abi::validate(text, limits.as_deref())
        })
    })
}

/// Compile the one definition of a YAML/JSON text.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn compile(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    limits: Option<Json>,
) -> PyResult<PyDefinition> {
    entry(py, || {
        let text = text_arg(text, "the definition text")?;
        detached(py, || {
            let limits = abi::limits(limits.as_deref())?;
            Ok(PyDefinition::new(CompiledDefinition::from_text(
                text.str(&limits)?,
                limits,
            )?))
        })
    })
}

/// Compile every definition of a YAML/JSON text.
#[pyfunction]
#[pyo3(signature = (text, limits = None))]
fn compile_all(
    py: Python<'_>,
    text: &Bound<'_, PyAny>,
    limits: Option<Json>,
) -> PyResult<Vec<PyDefinition>> {
    entry(py, || {
        let text = text_arg(text, "the definition text")?;
        detached(py, || {
            let limits = abi::limits(limits.as_deref())?;
            let defs = CompiledDefinition::all_from_text(text.str(&limits)?, limits, Origin::User)?;
            Ok(defs.into_iter().map(PyDefinition::new).collect())
        })
    })
}

/// Compile a definition from its JSON with limits and origin (unpickling).
#[pyfunction]
fn rebuild(py: Python<'_>, definition: Json, limits: Json, origin: Json) -> PyResult<PyDefinition> {
    entry(py, || {
        detached(py, || {
            let limits = abi::limits(Some(&*limits))?;
            let origin = origin_of(&origin)?;
            let d = CompiledDefinition::from_text(&definition, limits)?.with_origin(origin);
            Ok(PyDefinition::new(d))
        })
    })
}

/// The bundled definition files: (file name, YAML text), sorted by name.
#[pyfunction]
fn catalog_sources(py: Python<'_>) -> PyResult<Vec<(&'static str, &'static str)>> {
    entry(py, || Ok(catalog::FILES.to_vec()))
}

/// Run the `workload-lens` command line (argv includes the program name);
/// returns the exit code.
#[pyfunction]
fn cli_main(py: Python<'_>, argv: Vec<Lossy>) -> PyResult<i32> {
    let argv: Vec<String> = argv.into_iter().map(|a| a.0).collect();
    entry(py, || detached(py, || Ok(workload_lens_cli::run(argv))))
}

/// Panic inside the engine call path (tests of the panic guard only).
#[pyfunction]
fn _panic_for_tests(py: Python<'_>, message: Lossy, detach: bool) -> PyResult<()> {
    entry(py, || {
        if detach {
            detached(py, || -> Out<()> { panic!("{}", message.0) })
        } else {
            panic!("{}", message.0)
        }
    })
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyDefinition>()?;
    m.add_class::<PyCatalog>()?;
    m.add_function(wrap_pyfunction!(default_limits, m)?)?;
    m.add_function(wrap_pyfunction!(limits, m)?)?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(parse_object, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(validate_text, m)?)?;
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(compile_all, m)?)?;
    m.add_function(wrap_pyfunction!(rebuild, m)?)?;
    m.add_function(wrap_pyfunction!(catalog_sources, m)?)?;
    m.add_function(wrap_pyfunction!(cli_main, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}
