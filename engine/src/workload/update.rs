//! Updates: write pod templates, pod specs, pod metadata, fragments and
//! suspend/resume actions back into a workload through the same paths the
//! definition extracts them from. The input object is never mutated: the
//! result is a new object plus the RFC 6902 patch from the old one.

use crate::compile::CompiledDefinition;
use crate::error::{Error, ErrorCode, Result};
use crate::jq::Input;
use crate::patch::{self, PatchOp};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Values to write, per component name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateRequest {
    /// How each value is written: in place of what is there (the default)
    /// or merged into it.
    #[serde(default, skip_serializing_if = "UpdateMode::is_replace")]
    pub mode: UpdateMode,
    /// Per component: what to write.
    #[serde(default)]
    pub components: BTreeMap<String, ComponentUpdate>,
}

/// How an update writes each value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum UpdateMode {
    /// The value replaces what is at its path. Whole pod templates, pod specs
    /// and pod metadata keep only the fields that are not part of the
    /// Kubernetes type (a CRD's own fields beside them).
    #[default]
    Replace,
    /// The value is merged into what is at its path, as an RFC 7396 JSON
    /// merge patch (maps merge key by key, `null` removes a key, other
    /// values replace), except that a list of named maps (every item a map
    /// with a string `name`, as containers, volumes and env are) merges item
    /// by item by name into the old list, when its items are named too, and
    /// items with new names are appended (into anything else, the patch's
    /// items are written, merged into nothing: without their `null`s).
    /// So `{spec: {containers: [{name: main, image: x}]}}` changes one image
    /// and keeps everything else.
    Merge,
}

impl UpdateMode {
    fn is_replace(&self) -> bool {
        *self == UpdateMode::Replace
    }
}

/// Merge `patch` into `target` (see [`UpdateMode::Merge`]), in place.
/// Metered: a step per patch node and per item of a named list indexed;
/// the patch's copy is charged by the caller. `depth` counts down from
/// `maxDepth`.
pub(crate) fn merge_patch(target: &mut Value, patch: &Value, depth: usize) -> Result<()> {
    crate::budget::steps(1)?;
    if depth == 0 {
        return Err(Error::limit_error(
            "maxDepth",
            "the merge patch nests deeper than the limit".to_string(),
        ));
    }
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let Value::Object(t) = target else {
                return Ok(());
            };
            for (k, v) in p {
                if v.is_null() {
                    // Keeps the other keys' order.
                    t.shift_remove(k);
                } else {
                    crate::budget::steps(crate::budget::byte_steps(k.len()))?;
                    let slot = t.entry(k.clone()).or_insert(Value::Null);
                    merge_patch(slot, v, depth - 1)?;
                }
            }
        }
        Value::Array(p) if named(p) => {
            // Into the old items when they are named too, else into none
            // (so that writing the same patch twice gives the same list).
            if !matches!(target, Value::Array(t) if named(t)) {
                *target = Value::Array(Vec::new());
            }
            let Value::Array(t) = target else {
                return Ok(());
            };
            crate::budget::steps(t.len() as u64)?;
            // Item by name (the first of a name: lists should not repeat
            // one), in a JSON map of positions: the engine's one map type,
            // so the WASM module carries no other (its size is budgeted).
            let mut index = Map::new();
            for (i, x) in t.iter().enumerate() {
                if let Some(name) = x.get("name").and_then(Value::as_str) {
                    crate::budget::memory(name.len() + 2 * crate::budget::SLOT_BYTES)?;
                    index.entry(name).or_insert(Value::from(i));
                }
            }
            for item in p {
                let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
                match index.get(name).and_then(Value::as_u64) {
                    Some(i) => merge_patch(&mut t[i as usize], item, depth - 1)?,
                    None => {
                        let mut fresh = Value::Null;
                        merge_patch(&mut fresh, item, depth - 1)?;
                        index.insert(name.to_string(), Value::from(t.len()));
                        t.push(fresh);
                    }
                }
            }
        }
        other => *target = other.clone(),
    }
    Ok(())
}

/// A list of named maps: every item a map with a string `name` (an empty
/// list is not one).
fn named(items: &[Value]) -> bool {
    !items.is_empty()
        && items
            .iter()
            .all(|x| x.get("name").is_some_and(Value::is_string))
}

/// What to write into one component, per instance id (`""` for
/// single-instance components).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComponentUpdate {
    /// Whole pod templates (`{metadata, spec}`), through `podTemplateSpecPath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_template_specs: Option<BTreeMap<String, Value>>,
    /// Whole pod specs, through `podSpecPath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_specs: Option<BTreeMap<String, Value>>,
    /// Pod metadata, through `metadataPath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<BTreeMap<String, Value>>,
    /// Fragment fields (`schedulerName`, `labels`, `resources`, ...), through
    /// the fragmented paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragments: Option<BTreeMap<String, Map<String, Value>>>,
}

impl UpdateRequest {
    /// Pod templates, pod specs and pod metadata must be maps: anything else
    /// would be written as it is and break the object.
    pub(crate) fn check_shapes(&self) -> Result<()> {
        for (component, u) in &self.components {
            let fields = [
                ("podTemplateSpecs", &u.pod_template_specs),
                ("podSpecs", &u.pod_specs),
                ("podMetadata", &u.pod_metadata),
            ];
            for (field, values) in fields {
                for (id, v) in values.iter().flatten() {
                    if !v.is_object() {
                        let shown = if id.is_empty() { "\"\"" } else { id };
                        return Err(Error::new(
                            ErrorCode::Usage,
                            format!(
                                "components.{component}.{field}.{shown}: expected a map, found {}",
                                crate::source::type_name(v)
                            ),
                        )
                        .in_component(component, Some(id)));
                    }
                }
            }
        }
        Ok(())
    }
}

/// The result of an update.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct UpdateResult {
    /// The updated object (a new value; the input is untouched).
    pub object: Value,
    /// RFC 6902 JSON Patch from the input object to `object`.
    pub patch: Vec<PatchOp>,
}

/// Set `path` (a jq path: array of keys and indices) in `doc` to `value`,
/// creating missing objects and arrays as jq does (arrays are padded with
/// `null`, negative indices count from the end).
pub(crate) fn set_path(doc: &mut Value, path: &[Value], value: Value) -> Result<()> {
    let fail = |m: String| Error::new(ErrorCode::Update, m);
    let mut cur = doc;
    for (i, key) in path.iter().enumerate() {
        let last = i + 1 == path.len();
        crate::budget::steps(1)?;
        if let Value::String(k) = key {
            crate::budget::steps(crate::budget::byte_steps(k.len()))?;
        }
        if cur.is_null() {
            *cur = match key {
                Value::Number(_) => Value::Array(Vec::new()),
                _ => Value::Object(Map::new()),
            };
        }
        cur = match (key, cur) {
            (Value::String(k), Value::Object(o)) => {
                if !o.contains_key(k) {
                    crate::budget::memory(k.len() + 2 * crate::budget::SLOT_BYTES)?;
                }
                o.entry(k.clone()).or_insert(Value::Null)
            }
            (Value::Number(n), Value::Array(a)) => {
                let idx = n
                    .as_i64()
                    .ok_or_else(|| fail(format!("cannot index an array with {n}")))?;
                let len = a.len() as i64;
                let idx = if idx < 0 { idx + len } else { idx };
                if idx < 0 {
                    return Err(fail(format!("array index {n} out of bounds")));
                }
                let idx = usize::try_from(idx)
                    .map_err(|_| fail(format!("array index {n} out of bounds")))?;
                if idx > 1_000_000 {
                    return Err(Error::limit_error(
                        "maxCollectionLen",
                        format!("array index {idx} too large to write"),
                    ));
                }
                if idx >= a.len() {
                    // Padding is built: its steps and memory are charged.
                    let pad = idx + 1 - a.len();
                    crate::budget::steps(pad as u64)?;
                    crate::budget::memory(pad.saturating_mul(crate::budget::SLOT_BYTES))?;
                    a.resize(idx + 1, Value::Null);
                }
                &mut a[idx]
            }
            (k, v) => {
                return Err(fail(format!(
                    "cannot write at {}: {} is not {}",
                    Value::Array(path.to_vec()),
                    crate::preview::preview(v),
                    if k.is_string() {
                        "an object"
                    } else {
                        "an array"
                    }
                )));
            }
        };
        if last {
            *cur = value;
            return Ok(());
        }
    }
    *cur = value;
    Ok(())
}

pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

impl CompiledDefinition {
    /// Write values through the definition's paths and return the new
    /// object and the patch.
    pub fn update(&self, obj: &Value, req: &UpdateRequest) -> Result<UpdateResult> {
        let _call = crate::budget::Call::enter(&self.limits);
        crate::resolve::workload_ref(obj)?;
        req.check_shapes()?;
        for name in req.components.keys() {
            if !self.comps.iter().any(|c| &c.name == name) {
                return Err(Error::new(
                    ErrorCode::Usage,
                    format!("component {name} not found"),
                ));
            }
        }
        crate::budget::copy_of(obj)?;
        let mut doc = obj.clone();
        for c in &self.comps {
            let Some(u) = req.components.get(&c.name) else {
                continue;
            };
            self.update_component(c, u, req.mode, &mut doc)
                .map_err(|e| e.in_component(&c.name, None))?;
        }
        Ok(UpdateResult {
            patch: patch::diff(obj, &doc)?,
            object: doc,
        })
    }

    pub(crate) fn input<'v>(&self, doc: &'v Value) -> Result<Input<'v>> {
        Input::new(doc, &self.limits).map_err(crate::expr::eval_error)
    }
}

pub(crate) fn as_path(p: &Value) -> Result<&[Value]> {
    match p {
        Value::Array(a) => Ok(a),
        other => Err(Error::new(
            ErrorCode::Update,
            format!(
                "path() returned {} instead of an array",
                crate::preview::preview(other)
            ),
        )),
    }
}
