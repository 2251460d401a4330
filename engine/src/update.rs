//! Updates: write pod templates, pod specs, pod metadata, fragments and
//! suspend/resume actions back into a workload through the same paths the
//! definition extracts them from. The input object is never mutated: the
//! result is a new object plus the RFC 6902 patch from the old one.

use crate::compile::{Comp, CompiledDefinition, Expr, PodDef};
use crate::error::{Error, ErrorCode, Result};
use crate::jq::Input;
use crate::model::{FRAGMENT_FIELDS, FragmentField};
use crate::patch::{self, PatchOp};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Values to write, per component name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateRequest {
    /// Per component: what to write.
    #[serde(default)]
    pub components: BTreeMap<String, ComponentUpdate>,
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
        if cur.is_null() {
            *cur = match key {
                Value::Number(_) => Value::Array(Vec::new()),
                _ => Value::Object(Map::new()),
            };
        }
        cur = match (key, cur) {
            (Value::String(k), Value::Object(o)) => o.entry(k.clone()).or_insert(Value::Null),
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
                    return Err(Error::limit(
                        "maxCollectionLen",
                        format!("array index {idx} too large to write"),
                    ));
                }
                if idx >= a.len() {
                    a.resize(idx + 1, Value::Null);
                }
                &mut a[idx]
            }
            (k, v) => {
                return Err(fail(format!(
                    "cannot write at {}: {} is not {}",
                    Value::Array(path.to_vec()),
                    crate::resolve::preview(v),
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

fn is_empty(v: &Value) -> bool {
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
        crate::resolve::workload_ref(obj)?;
        for name in req.components.keys() {
            if !self.comps.iter().any(|c| &c.name == name) {
                return Err(Error::new(
                    ErrorCode::Usage,
                    format!("component {name} not found"),
                ));
            }
        }
        let mut doc = obj.clone();
        for c in &self.comps {
            let Some(u) = req.components.get(&c.name) else {
                continue;
            };
            self.update_component(c, u, &mut doc)
                .map_err(|e| e.in_component(&c.name, None))?;
        }
        Ok(UpdateResult {
            patch: patch::diff(obj, &doc),
            object: doc,
        })
    }

    /// Apply the `suspendActions` of every component that has them.
    pub fn suspend(&self, obj: &Value) -> Result<UpdateResult> {
        self.actions(obj, 0)
    }

    /// Apply the `resumeActions` of every component that has them.
    pub fn resume(&self, obj: &Value) -> Result<UpdateResult> {
        self.actions(obj, 1)
    }

    /// True when the definition can suspend and resume workloads.
    pub fn can_suspend(&self) -> bool {
        self.comps.iter().any(|c| c.suspend.is_some())
    }

    fn actions(&self, obj: &Value, which: usize) -> Result<UpdateResult> {
        crate::resolve::workload_ref(obj)?;
        if !self.can_suspend() {
            return Err(Error::new(
                ErrorCode::Update,
                format!(
                    "definition '{}' has no suspendDefinition: suspend/resume is not supported",
                    self.name()
                ),
            ));
        }
        let mut doc = obj.clone();
        for c in &self.comps {
            let Some(lists) = &c.suspend else { continue };
            for (e, value) in &lists[which] {
                let input = self.input(&doc)?;
                let paths = e
                    .eval_paths(&input, &self.limits)
                    .map_err(|err| err.in_component(&c.name, None))?;
                for p in paths {
                    set_path(&mut doc, as_path(&p)?, value.clone())
                        .map_err(|err| err.at(e.location()).in_component(&c.name, None))?;
                }
            }
        }
        Ok(UpdateResult {
            patch: patch::diff(obj, &doc),
            object: doc,
        })
    }

    fn input(&self, doc: &Value) -> Result<Input> {
        Input::new(doc, &self.limits).map_err(crate::compile::eval_error)
    }

    fn update_component(&self, c: &Comp, u: &ComponentUpdate, doc: &mut Value) -> Result<()> {
        let missing = |what: &str| {
            Error::new(
                ErrorCode::Update,
                format!("component {} does not have {what} definition", c.name),
            )
        };
        if let Some(values) = &u.pod_template_specs {
            let PodDef::Template(e) = &c.pod else {
                return Err(missing("pod template spec"));
            };
            self.write(c, e, values, doc, "pod template specs", Keep::Template)?;
        }
        if let Some(values) = &u.pod_specs {
            let PodDef::Spec(e) = &c.pod else {
                return Err(missing("pod spec"));
            };
            self.write(
                c,
                e,
                values,
                doc,
                "pod specs",
                Keep::Fields(crate::resolve::POD_SPEC_FIELDS),
            )?;
        }
        if let Some(values) = &u.pod_metadata {
            let Some(e) = &c.metadata else {
                return Err(missing("pod metadata"));
            };
            self.write(
                c,
                e,
                values,
                doc,
                "pod metadata",
                Keep::Fields(crate::resolve::OBJECT_META_FIELDS),
            )?;
        }
        if let Some(frags) = &u.fragments {
            let PodDef::Fragmented(fields) = &c.pod else {
                return Err(missing("fragmented pod spec"));
            };
            for (id, m) in frags {
                for key in m.keys() {
                    if !FRAGMENT_FIELDS.iter().any(|f| f.value_key() == key) {
                        return Err(Error::new(
                            ErrorCode::Usage,
                            format!("unknown fragment field '{key}' for instance '{id}'"),
                        ));
                    }
                }
            }
            for f in FRAGMENT_FIELDS {
                let values: BTreeMap<String, Value> = frags
                    .iter()
                    .filter_map(|(id, m)| m.get(f.value_key()).map(|v| (id.clone(), v.clone())))
                    .collect();
                if values.values().all(is_empty) {
                    continue;
                }
                let Some((_, e)) = fields.iter().find(|(ff, _)| *ff == f) else {
                    return Err(Error::new(
                        ErrorCode::Update,
                        format!(
                            "failed to update {}: path is not defined and values are not empty",
                            f.human()
                        ),
                    ));
                };
                self.write(
                    c,
                    e,
                    &values,
                    doc,
                    &format!("fragment {}", f.human()),
                    Keep::Nothing,
                )
                .map_err(|err| err.context(&format!("failed to update {}", human(f))))?;
            }
        }
        Ok(())
    }

    /// Assign (single-instance) or zip-assign (multi-instance) values.
    fn write(
        &self,
        c: &Comp,
        e: &Expr,
        values: &BTreeMap<String, Value>,
        doc: &mut Value,
        what: &str,
        keep: Keep,
    ) -> Result<()> {
        let input = self.input(doc)?;
        let ids = self.instance_ids(c, &input)?;
        for id in values.keys() {
            if !ids.contains(id) {
                return Err(Error::new(
                    ErrorCode::Usage,
                    format!(
                        "failed to unzip given {what} and instance ids: unknown instance id {id:?} (instances: [{}])",
                        ids.join(" ")
                    ),
                ));
            }
        }
        let paths = e.eval_paths(&input, &self.limits)?;
        if c.ids.is_none() {
            // Assign: every path gets the one value.
            let Some(v) = values.get("") else {
                return Ok(());
            };
            for p in &paths {
                let p = as_path(p)?;
                let v = keep.merge(get_path(doc, p), v.clone());
                set_path(doc, p, v).map_err(|err| err.at(e.location()))?;
            }
            return Ok(());
        }
        if paths.len() != ids.len() {
            return Err(Error::new(
                ErrorCode::CountMismatch,
                format!(
                    "array length mismatch: expected {} values but got {}",
                    paths.len(),
                    ids.len()
                ),
            )
            .at(e.location()));
        }
        for (p, id) in paths.iter().zip(&ids) {
            // Instances without a value are left as they are (no null is
            // written for them).
            if let Some(v) = values.get(id) {
                let p = as_path(p)?;
                let v = keep.merge(get_path(doc, p), v.clone());
                set_path(doc, p, v)
                    .map_err(|err| err.at(e.location()).in_component(&c.name, Some(id)))?;
            }
        }
        Ok(())
    }
}

/// What a whole-object write keeps from the value it replaces: the fields
/// that are not part of the Kubernetes type (a CRD's own fields living at
/// the same place, e.g. KServe's `minReplicas` beside a pod spec), which the
/// resolved template does not show and so cannot give back.
#[derive(Clone, Copy)]
enum Keep {
    Nothing,
    Fields(&'static [&'static str]),
    Template,
}

impl Keep {
    fn merge(self, old: Option<&Value>, new: Value) -> Value {
        let (Some(Value::Object(old)), Value::Object(mut new)) = (old, new.clone()) else {
            return new;
        };
        let keep_foreign =
            |old: &Map<String, Value>, new: &mut Map<String, Value>, fields: &[&str]| {
                for (k, v) in old {
                    if !fields.contains(&k.as_str()) && !new.contains_key(k) {
                        new.insert(k.clone(), v.clone());
                    }
                }
            };
        match self {
            Keep::Nothing => return Value::Object(new),
            Keep::Fields(fields) => keep_foreign(old, &mut new, fields),
            Keep::Template => {
                keep_foreign(old, &mut new, &["metadata", "spec"]);
                for (k, fields) in [
                    ("spec", crate::resolve::POD_SPEC_FIELDS),
                    ("metadata", crate::resolve::OBJECT_META_FIELDS),
                ] {
                    if let (Some(Value::Object(o)), Some(Value::Object(n))) =
                        (old.get(k), new.get_mut(k))
                    {
                        keep_foreign(o, n, fields);
                    }
                }
            }
        }
        Value::Object(new)
    }
}

/// The value at a jq path, if there is one.
fn get_path<'a>(doc: &'a Value, path: &[Value]) -> Option<&'a Value> {
    let mut cur = doc;
    for k in path {
        cur = match (k, cur) {
            (Value::String(s), Value::Object(o)) => o.get(s)?,
            (Value::Number(n), Value::Array(a)) => {
                let i = n.as_i64()?;
                let i = if i < 0 { i + a.len() as i64 } else { i };
                a.get(usize::try_from(i).ok()?)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

fn human(f: FragmentField) -> &'static str {
    f.human()
}

fn as_path(p: &Value) -> Result<&[Value]> {
    match p {
        Value::Array(a) => Ok(a),
        other => Err(Error::new(
            ErrorCode::Update,
            format!(
                "path() returned {} instead of an array",
                crate::resolve::preview(other)
            ),
        )),
    }
}
