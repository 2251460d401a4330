//! Python values read as the engine reads JSON: a [`serde::Deserializer`]
//! over Python objects, which the engine's host reader
//! ([`workload_lens_binding::value_from_host`]) walks with its limits.
//!
//! What a value may be is `json.dumps`'s rule, which the package followed
//! when it serialized values to JSON text: `dict` (any subclass), `list` and
//! `tuple`, `str`, `int`, `float`, `bool` and `None`; dictionary keys that
//! are `int`, `float`, `bool` or `None` become the strings `json.dumps`
//! writes for them (`1`, `1.5`, `true`, `null`), other keys are a
//! `TypeError`; anything else goes through the package's `default` hook
//! (`workload_lens._api._default`: kubernetes client models, other
//! mappings, dates), whose result is read in its place. The engine decides
//! the rest (depth, size, non-finite numbers, repeated keys), as for text.
//!
//! One more form, at the root of a walk only: [`Iterated`], an argument of
//! objects given as any iterable (a generator, say), which the Python layer
//! hands over unread. Its elements are read as a JSON array's, one at a
//! time as the engine's reader asks for them, so the reader's limits stop
//! an endless one where they stop a list. Nested in a value, an iterable is
//! what `json.dumps` makes of it: a `TypeError` (a list or tuple aside).

use std::cell::RefCell;
use std::fmt;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyIterator, PyList, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use workload_lens::{Error, ErrorCode};

/// How many times in a row the `default` hook may replace a value by
/// another that needs it again (a hook that never returns a JSON value is
/// a circular reference, as `json.dumps` calls it).
const MAX_DEFAULT_CHAIN: u32 = 64;

/// An error while walking: a Python exception to raise as it is, or a
/// message of serde's (from the engine's reader, which records its own
/// reason before failing, so this text is not shown).
#[derive(Debug)]
pub(crate) enum HostErr {
    Py(PyErr),
    Msg(String),
}

impl fmt::Display for HostErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostErr::Py(e) => write!(f, "{e}"),
            HostErr::Msg(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for HostErr {}

impl de::Error for HostErr {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        HostErr::Msg(msg.to_string())
    }
}

impl From<PyErr> for HostErr {
    fn from(e: PyErr) -> Self {
        HostErr::Py(e)
    }
}

/// The objects of an argument given as an iterable that is not a list or
/// a tuple (`workload_lens._api._objects` wraps its iterator in this): read
/// lazily, element by element, as a JSON array, at the root of a walk only
/// (see the module's documentation). Nothing is read when it is made.
#[pyclass(frozen, module = "workload_lens._native", name = "Iterated")]
pub(crate) struct Iterated(Py<PyIterator>);

impl Iterated {
    /// Its iterator.
    pub(crate) fn iter<'py>(&self, py: Python<'py>) -> Bound<'py, PyIterator> {
        self.0.bind(py).clone()
    }
}

#[pymethods]
impl Iterated {
    #[new]
    fn new(iterable: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Iterated(iterable.try_iter()?.unbind()))
    }
}

/// A Python value, with the `default` hook for values JSON has no form of.
pub(crate) struct Host<'a, 'py> {
    obj: Bound<'py, PyAny>,
    walk: &'a Walk<'py>,
    chain: u32,
    /// The root of the walk (the argument itself), where an [`Iterated`]
    /// is read as its elements.
    root: bool,
}

/// What one walk shares: the `default` hook, and the containers being read
/// (from the root to the current one), to find a container inside itself.
pub(crate) struct Walk<'py> {
    hook: Bound<'py, PyAny>,
    open: RefCell<Vec<usize>>,
}

impl<'py> Walk<'py> {
    pub(crate) fn new(hook: Bound<'py, PyAny>) -> Self {
        Walk {
            hook,
            open: RefCell::new(Vec::new()),
        }
    }

    /// The root value.
    pub(crate) fn root<'a>(&'a self, obj: Bound<'py, PyAny>) -> Host<'a, 'py> {
        Host {
            obj,
            walk: self,
            chain: 0,
            root: true,
        }
    }
}

impl<'a, 'py> Host<'a, 'py> {
    fn child(&self, obj: Bound<'py, PyAny>) -> Self {
        Host {
            obj,
            walk: self.walk,
            chain: 0,
            root: false,
        }
    }

    /// Read a container's content with `read`, refusing a container that is
    /// inside itself (`json.dumps`'s "circular reference").
    fn container<T>(&self, read: impl FnOnce() -> Result<T, HostErr>) -> Result<T, HostErr> {
        let id = self.obj.as_ptr() as usize;
        if self.walk.open.borrow().contains(&id) {
            return Err(not_json(
                self.obj.py(),
                "it contains itself (a circular reference)",
            ));
        }
        self.walk.open.borrow_mut().push(id);
        let out = read();
        self.walk.open.borrow_mut().pop();
        out
    }
}

/// A usage error of the engine's kind, raised as the package raises it.
fn not_json(py: Python<'_>, why: &str) -> HostErr {
    let e = Error::new(
        ErrorCode::Usage,
        format!("the value cannot be represented as JSON: {why}"),
    );
    HostErr::Py(crate::to_pyerr(py, e.into()))
}

// `PyUnicode_AsUTF8AndSize`: in the stable ABI from 3.10 (so PyO3 declares
// it for abi3 builds only from there), and exported by every CPython 3 that
// this abi3-py39 module loads in. It returns the string's own UTF-8 (an
// ASCII string's data; for others a copy CPython makes once and keeps), so
// reading a string costs one copy, into the value, instead of a `bytes`
// object and two copies (PyO3's `to_cow` under the limited API).
unsafe extern "C" {
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::os::raw::c_char;
}

/// Call `f` with a `str`'s text as UTF-8; a lone surrogate is a usage
/// error.
fn with_text<T>(s: &Bound<'_, PyString>, f: impl FnOnce(&str) -> T) -> Result<T, HostErr> {
    let mut size: pyo3::ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a live `str` (the GIL is held); the returned buffer
    // belongs to it and outlives this call, which is the only use of it.
    let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
    if data.is_null() {
        // A lone surrogate (UnicodeEncodeError, cleared here).
        drop(PyErr::take(s.py()));
        return Err(not_json(s.py(), "it holds a lone surrogate"));
    }
    let len = usize::try_from(size).unwrap_or(0);
    // SAFETY: CPython returned `len` bytes of valid UTF-8 at `data`.
    let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) };
    match std::str::from_utf8(bytes) {
        Ok(t) => Ok(f(t)),
        Err(_) => Err(not_json(s.py(), "it holds a lone surrogate")),
    }
}

/// A `str` as an owned string.
fn text(s: &Bound<'_, PyString>) -> Result<String, HostErr> {
    with_text(s, str::to_owned)
}

impl<'de> de::Deserializer<'de> for Host<'_, '_> {
    type Error = HostErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, HostErr> {
        let o = &self.obj;
        if let Ok(d) = o.cast::<PyDict>() {
            return self.container(|| {
                v.visit_map(Entries {
                    host: &self,
                    iter: d.iter(),
                    value: None,
                })
            });
        }
        if let Ok(s) = o.cast::<PyString>() {
            return v.visit_string(text(s)?);
        }
        if let Ok(l) = o.cast::<PyList>() {
            return self.container(|| {
                v.visit_seq(Items {
                    host: &self,
                    iter: l.iter(),
                })
            });
        }
        if o.is_none() {
            return v.visit_unit();
        }
        if let Ok(b) = o.cast::<PyBool>() {
            return v.visit_bool(b.is_true());
        }
        if o.cast::<PyInt>().is_ok() {
            if let Ok(i) = o.extract::<i64>() {
                return v.visit_i64(i);
            }
            if let Ok(u) = o.extract::<u64>() {
                return v.visit_u64(u);
            }
            // Beyond 64 bits: JSON text of it is read as the nearest float.
            return match o.extract::<f64>() {
                Ok(f) => v.visit_f64(f),
                Err(_) => Err(not_json(
                    o.py(),
                    "it holds an integer beyond any JSON number",
                )),
            };
        }
        if let Ok(f) = o.cast::<PyFloat>() {
            return v.visit_f64(f.value());
        }
        if let Ok(t) = o.cast::<PyTuple>() {
            return self.container(|| {
                v.visit_seq(Items {
                    host: &self,
                    iter: t.iter(),
                })
            });
        }
        if self.root
            && let Ok(items) = o.cast::<Iterated>()
        {
            let iter = items.get().0.bind(o.py()).clone();
            return self.container(|| v.visit_seq(Lazy { host: &self, iter }));
        }
        if self.chain >= MAX_DEFAULT_CHAIN {
            let why = "its conversion never ends (a circular reference)";
            return Err(not_json(o.py(), why));
        }
        let replaced = self.walk.hook.call1((o,))?;
        Host {
            obj: replaced,
            walk: self.walk,
            chain: self.chain + 1,
            root: false,
        }
        .deserialize_any(v)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// The elements of a list or a tuple (read in place).
struct Items<'h, 'a, 'py, I> {
    host: &'h Host<'a, 'py>,
    iter: I,
}

impl<'de, 'py, I: Iterator<Item = Bound<'py, PyAny>>> SeqAccess<'de> for Items<'_, '_, 'py, I> {
    type Error = HostErr;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, HostErr> {
        match self.iter.next() {
            Some(item) => seed.deserialize(self.host.child(item)).map(Some),
            None => Ok(None),
        }
    }
}

/// The elements of an [`Iterated`], each taken from its iterator when the
/// engine's reader asks for it (the reader decides when to stop: at the
/// end, or at a limit, leaving the rest untaken). An exception the
/// iterator raises is raised as it is.
struct Lazy<'h, 'a, 'py> {
    host: &'h Host<'a, 'py>,
    iter: Bound<'py, PyIterator>,
}

impl<'de> SeqAccess<'de> for Lazy<'_, '_, '_> {
    type Error = HostErr;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, HostErr> {
        match self.iter.next() {
            Some(Ok(item)) => seed.deserialize(self.host.child(item)).map(Some),
            Some(Err(e)) => Err(HostErr::Py(e)),
            None => Ok(None),
        }
    }
}

/// The entries of a dict.
struct Entries<'h, 'a, 'py> {
    host: &'h Host<'a, 'py>,
    iter: pyo3::types::dict::BoundDictIterator<'py>,
    value: Option<Bound<'py, PyAny>>,
}

impl<'de> MapAccess<'de> for Entries<'_, '_, '_> {
    type Error = HostErr;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, HostErr> {
        match self.iter.next() {
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(Key(k)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, HostErr> {
        match self.value.take() {
            Some(v) => seed.deserialize(self.host.child(v)),
            None => Err(de::Error::custom("a value without its key")),
        }
    }
}

/// A dict key, as the string `json.dumps` writes for it.
struct Key<'py>(Bound<'py, PyAny>);

impl Key<'_> {
    fn string(&self) -> Result<String, HostErr> {
        let k = &self.0;
        let py = k.py();
        if let Ok(s) = k.cast::<PyString>() {
            return text(s);
        }
        if let Ok(f) = k.cast::<PyFloat>() {
            let x = f.value();
            if !x.is_finite() {
                let why = format!("it holds the key {x}, a number that is not finite");
                return Err(not_json(py, &why));
            }
            // float.__repr__, as json.dumps writes a float key.
            return Ok(PyFloat::new(py, x).repr()?.to_cow()?.into_owned());
        }
        if let Ok(b) = k.cast::<PyBool>() {
            return Ok(if b.is_true() { "true" } else { "false" }.into());
        }
        if k.is_none() {
            return Ok("null".into());
        }
        if k.cast::<PyInt>().is_ok() {
            if let Ok(i) = k.extract::<i64>() {
                return Ok(i.to_string());
            }
            // int.__repr__ of the exact int (an IntEnum's own repr is not
            // what json.dumps writes).
            // Python refuses to write an int of more than 4,300 digits
            // (ValueError); json.dumps then fails the same way.
            let written = py
                .get_type::<PyInt>()
                .call1((k,))
                .and_then(|exact| exact.repr())
                .map_err(|_| not_json(py, "it holds an integer key Python cannot write"))?;
            return text(&written);
        }
        let name = k.get_type().name()?;
        Err(HostErr::Py(pyo3::exceptions::PyTypeError::new_err(
            format!("keys must be str, int, float, bool or None, not {name}"),
        )))
    }
}

impl<'de> de::Deserializer<'de> for Key<'_> {
    type Error = HostErr;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, HostErr> {
        v.visit_string(self.string()?)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}
