//! Results built as Python objects straight from the engine's result types
//! (a [`serde::Serializer`] whose output is Python objects), as `pythonize`
//! builds them, with one difference: the `str` keys of the dictionaries are
//! made once per process and shared, not made anew for every dictionary.
//!
//! A third of a Python call went to CPython building the result
//! (docs/performance.md): for every key of every dictionary a new `str`
//! (allocated, its UTF-8 decoded, then hashed by SipHash when it is inserted,
//! and freed with the result). The names of the result's fields are few and
//! fixed, and the keys of the objects it carries (pod templates, labels,
//! resources) repeat from one result to the next. A shared key is only
//! referenced; its hash is already known to CPython.
//!
//! The keys kept are bounded: the fields of the result types (a fixed set),
//! and at most [`MAX_KEYS`] keys of the objects' own, each at most
//! [`MAX_KEY_BYTES`] long, in the order first met; any other key is made as
//! before. They are looked up by a keyed hash (std's `RandomState`), so keys
//! chosen to collide cannot slow the lookups. A `str` is immutable, so
//! sharing one cannot be seen from Python except by identity, which JSON
//! values do not promise.
//!
//! What a value becomes is `pythonize`'s rule (tested against it:
//! `tests/test_results.py`): `null`, a unit and `None` become `None`,
//! numbers `int` or `float`, strings `str`, sequences `list`, maps and
//! structs `dict` (fields skipped by serde are absent), a unit variant its
//! name, other variants `{variant: value}`.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use serde::ser::{self, Serialize};

/// At most this many keys of the objects' own are kept.
pub(crate) const MAX_KEYS: usize = 4096;
/// Keys longer than this many bytes are not kept.
pub(crate) const MAX_KEY_BYTES: usize = 64;

/// The shared keys (held across calls; the lock is taken once per result).
static KEYS: Mutex<Option<Keys>> = Mutex::new(None);

/// The shared keys: the result types' field names by address (a `&'static
/// str` of the program), the objects' keys by text.
struct Keys {
    fields: HashMap<(usize, usize), Py<PyString>, Addr>,
    text: HashMap<Box<str>, Py<PyString>, RandomState>,
}

/// A hasher of addresses (the program's own, not chosen by any input).
#[derive(Default, Clone, Copy)]
struct Addr;

impl BuildHasher for Addr {
    type Hasher = AddrHasher;
    fn build_hasher(&self) -> AddrHasher {
        AddrHasher(0)
    }
}

struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u8(*b);
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.write_u64(u64::from(b));
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(29) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

impl Keys {
    fn new() -> Keys {
        Keys {
            fields: HashMap::with_hasher(Addr),
            text: HashMap::with_hasher(RandomState::new()),
        }
    }

    /// A field name of the result types.
    fn field<'py>(&mut self, py: Python<'py>, name: &'static str) -> Bound<'py, PyString> {
        let at = (name.as_ptr() as usize, name.len());
        self.fields
            .entry(at)
            .or_insert_with(|| PyString::intern(py, name).unbind())
            .bind(py)
            .clone()
    }

    /// A key of an object.
    fn key<'py>(&mut self, py: Python<'py>, key: &str) -> Bound<'py, PyString> {
        if let Some(k) = self.text.get(key) {
            return k.bind(py).clone();
        }
        let k = PyString::new(py, key);
        if key.len() <= MAX_KEY_BYTES && self.text.len() < MAX_KEYS {
            self.text.insert(key.into(), k.clone().unbind());
        }
        k
    }
}

/// `value` as Python objects.
pub(crate) fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    // Never waited for: building Python objects can run a collection, and
    // a finalizer run by it could call the package again on this thread
    // (or, while it runs, another thread could). Such a call builds its
    // result with keys of its own.
    let mut guard = match KEYS.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    };
    let mut own = None;
    let keys = match guard.as_deref_mut() {
        Some(shared) => shared.get_or_insert_with(Keys::new),
        None => own.get_or_insert_with(Keys::new),
    };
    value.serialize(To { py, keys }).map_err(|e| e.0)
}

/// The number of keys of the objects' own kept (for the tests).
pub(crate) fn kept_keys() -> usize {
    let guard = KEYS.lock().unwrap_or_else(|p| p.into_inner());
    guard.as_ref().map_or(0, |k| k.text.len())
}

/// An error: a Python exception (what serde's own errors become too).
#[derive(Debug)]
pub(crate) struct Error(PyErr);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(pyo3::exceptions::PyValueError::new_err(msg.to_string()))
    }
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Self {
        Error(e)
    }
}

type R<T> = Result<T, Error>;

/// The serializer of one value.
struct To<'k, 'py> {
    py: Python<'py>,
    keys: &'k mut Keys,
}

impl<'k, 'py> To<'k, 'py> {
    fn any<T: IntoPyObject<'py>>(self, v: T) -> R<Bound<'py, PyAny>> {
        Ok(v.into_bound_py_any(self.py)?)
    }

    fn again(&mut self) -> To<'_, 'py> {
        To {
            py: self.py,
            keys: self.keys,
        }
    }
}

use pyo3::IntoPyObjectExt;

impl<'k, 'py> ser::Serializer for To<'k, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = Seq<'k, 'py>;
    type SerializeTuple = Seq<'k, 'py>;
    type SerializeTupleStruct = Seq<'k, 'py>;
    type SerializeTupleVariant = Variant<Seq<'k, 'py>>;
    type SerializeMap = Map<'k, 'py>;
    type SerializeStruct = Map<'k, 'py>;
    type SerializeStructVariant = Variant<Map<'k, 'py>>;

    fn serialize_bool(self, v: bool) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_i8(self, v: i8) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_i16(self, v: i16) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_i32(self, v: i32) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_i64(self, v: i64) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_i128(self, v: i128) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_u8(self, v: u8) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_u16(self, v: u16) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_u32(self, v: u32) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_u64(self, v: u64) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_u128(self, v: u128) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_f32(self, v: f32) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_f64(self, v: f64) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_char(self, v: char) -> R<Self::Ok> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> R<Self::Ok> {
        Ok(PyString::new(self.py, v).into_any())
    }
    fn serialize_bytes(self, v: &[u8]) -> R<Self::Ok> {
        self.any(v)
    }
    fn serialize_none(self) -> R<Self::Ok> {
        Ok(self.py.None().into_bound(self.py))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> R<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> R<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _name: &'static str) -> R<Self::Ok> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> R<Self::Ok> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> R<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> R<Self::Ok> {
        let v = value.serialize(self.again())?;
        wrap(self.py, self.keys, variant, v)
    }
    fn serialize_seq(self, len: Option<usize>) -> R<Seq<'k, 'py>> {
        Ok(Seq {
            to: self,
            items: Vec::with_capacity(len.unwrap_or(0)),
            tuple: false,
        })
    }
    fn serialize_tuple(self, len: usize) -> R<Seq<'k, 'py>> {
        Ok(Seq {
            to: self,
            items: Vec::with_capacity(len),
            tuple: true,
        })
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> R<Seq<'k, 'py>> {
        self.serialize_tuple(len)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> R<Self::SerializeTupleVariant> {
        Ok(Variant {
            variant,
            inner: self.serialize_tuple(len)?,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> R<Map<'k, 'py>> {
        Ok(Map {
            dict: PyDict::new(self.py),
            to: self,
            key: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> R<Map<'k, 'py>> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> R<Self::SerializeStructVariant> {
        Ok(Variant {
            variant,
            inner: self.serialize_map(Some(len))?,
        })
    }
}

/// A list (or, for tuples, a tuple) being built.
struct Seq<'k, 'py> {
    to: To<'k, 'py>,
    items: Vec<Bound<'py, PyAny>>,
    tuple: bool,
}

impl<'py> Seq<'_, 'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> R<()> {
        let v = value.serialize(self.to.again())?;
        self.items.push(v);
        Ok(())
    }

    fn done(self) -> R<Bound<'py, PyAny>> {
        Ok(if self.tuple {
            PyTuple::new(self.to.py, self.items)?.into_any()
        } else {
            PyList::new(self.to.py, self.items)?.into_any()
        })
    }
}

/// The three sequence forms serde has, each building its list or tuple.
macro_rules! seq_forms {
    ($($form:ident :: $add:ident),*) => {
        $(impl<'py> ser::$form for Seq<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = Error;
            fn $add<T: Serialize + ?Sized>(&mut self, value: &T) -> R<()> {
                self.push(value)
            }
            fn end(self) -> R<Self::Ok> {
                self.done()
            }
        })*
    };
}

seq_forms!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

/// A dict being built (a map or a struct).
struct Map<'k, 'py> {
    to: To<'k, 'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
}

/// A map's key: a string is looked up among the shared keys; any other key
/// is made as a value is (`pythonize`'s rule).
struct KeyOf<'a, 'k, 'py>(&'a mut To<'k, 'py>);

impl<'py> KeyOf<'_, '_, 'py> {
    fn value<T: Serialize + ?Sized>(self, v: &T) -> R<Bound<'py, PyAny>> {
        v.serialize(self.0.again())
    }
}

macro_rules! key_as_value {
    ($($f:ident: $t:ty),*) => {
        $(fn $f(self, v: $t) -> R<Self::Ok> {
            self.value(&v)
        })*
    };
}

impl<'a, 'k, 'py> ser::Serializer for KeyOf<'a, 'k, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    type SerializeSeq = ser::Impossible<Self::Ok, Error>;
    type SerializeTuple = ser::Impossible<Self::Ok, Error>;
    type SerializeTupleStruct = ser::Impossible<Self::Ok, Error>;
    type SerializeTupleVariant = ser::Impossible<Self::Ok, Error>;
    type SerializeMap = ser::Impossible<Self::Ok, Error>;
    type SerializeStruct = ser::Impossible<Self::Ok, Error>;
    type SerializeStructVariant = ser::Impossible<Self::Ok, Error>;

    fn serialize_str(self, v: &str) -> R<Self::Ok> {
        let py = self.0.py;
        Ok(self.0.keys.key(py, v).into_any())
    }

    key_as_value!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16,
        serialize_i32: i32, serialize_i64: i64, serialize_i128: i128, serialize_u8: u8,
        serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_u128: u128,
        serialize_f32: f32, serialize_f64: f64, serialize_char: char);

    fn serialize_bytes(self, v: &[u8]) -> R<Self::Ok> {
        self.0.again().serialize_bytes(v)
    }
    fn serialize_none(self) -> R<Self::Ok> {
        self.0.again().serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> R<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> R<Self::Ok> {
        self.0.again().serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> R<Self::Ok> {
        self.0.again().serialize_unit_struct(name)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> R<Self::Ok> {
        let py = self.0.py;
        Ok(self.0.keys.field(py, variant).into_any())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> R<Self::Ok> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> R<Self::Ok> {
        self.0
            .again()
            .serialize_newtype_variant(name, index, variant, value)
    }
    // A key that is a collection cannot be a dict's key (pythonize makes
    // a list or dict, which Python refuses as a key): an error either way.
    fn serialize_seq(self, _len: Option<usize>) -> R<Self::SerializeSeq> {
        Err(unhashable())
    }
    fn serialize_tuple(self, _len: usize) -> R<Self::SerializeTuple> {
        Err(unhashable())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> R<Self::SerializeTupleStruct> {
        Err(unhashable())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> R<Self::SerializeTupleVariant> {
        Err(unhashable())
    }
    fn serialize_map(self, _len: Option<usize>) -> R<Self::SerializeMap> {
        Err(unhashable())
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> R<Self::SerializeStruct> {
        Err(unhashable())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> R<Self::SerializeStructVariant> {
        Err(unhashable())
    }
}

fn unhashable() -> Error {
    Error(pyo3::exceptions::PyTypeError::new_err(
        "a key that is a collection cannot be a dict's key",
    ))
}

impl<'py> ser::SerializeMap for Map<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> R<()> {
        self.key = Some(key.serialize(KeyOf(&mut self.to))?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> R<()> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <Error as ser::Error>::custom("a map's value without its key"))?;
        let v = value.serialize(self.to.again())?;
        self.dict.set_item(key, v)?;
        Ok(())
    }
    fn end(self) -> R<Self::Ok> {
        Ok(self.dict.into_any())
    }
}

impl<'py> ser::SerializeStruct for Map<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> R<()> {
        let py = self.to.py;
        let k = self.to.keys.field(py, key);
        let v = value.serialize(self.to.again())?;
        self.dict.set_item(k, v)?;
        Ok(())
    }
    fn end(self) -> R<Self::Ok> {
        Ok(self.dict.into_any())
    }
}

/// `{variant: value}` of a tuple or struct variant being built.
struct Variant<T> {
    variant: &'static str,
    inner: T,
}

/// `{variant: v}`.
fn wrap<'py>(
    py: Python<'py>,
    keys: &mut Keys,
    variant: &'static str,
    v: Bound<'py, PyAny>,
) -> R<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item(keys.field(py, variant), v)?;
    Ok(d.into_any())
}

impl<'py> ser::SerializeTupleVariant for Variant<Seq<'_, 'py>> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> R<()> {
        self.inner.push(value)
    }
    fn end(self) -> R<Self::Ok> {
        let Seq { to, items, .. } = self.inner;
        let t = PyTuple::new(to.py, items)?.into_any();
        wrap(to.py, to.keys, self.variant, t)
    }
}

impl<'py> ser::SerializeStructVariant for Variant<Map<'_, 'py>> {
    type Ok = Bound<'py, PyAny>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> R<()> {
        ser::SerializeStruct::serialize_field(&mut self.inner, key, value)
    }
    fn end(self) -> R<Self::Ok> {
        let Map { to, dict, .. } = self.inner;
        wrap(to.py, to.keys, self.variant, dict.into_any())
    }
}
