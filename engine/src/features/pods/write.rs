//! Writing pod templates, pod specs, pod metadata and fragments back into a
//! workload through the paths they are read from.

use serde_json::{Map, Value};

use crate::compile::CompiledDefinition;
use crate::component::Comp;
use crate::error::{Error, ErrorCode, Result};
use crate::expr::Expr;
use crate::model::{FRAGMENT_FIELDS, FragmentField};
use crate::pods::{OBJECT_META_FIELDS, POD_SPEC_FIELDS, PodDef};
use crate::update::{ComponentUpdate, UpdateMode, as_path, is_empty, merge_patch, set_path};
use std::collections::BTreeMap;

impl CompiledDefinition {
    pub(crate) fn update_component(
        &self,
        c: &Comp,
        u: &ComponentUpdate,
        mode: UpdateMode,
        doc: &mut Value,
    ) -> Result<()> {
        // What the component's definition lacks, the field that would give
        // it, and what this component takes instead.
        let missing = |what: &str| {
            let (field, given) = match what {
                "pod template spec" => ("podTemplateSpecPath", "podTemplateSpecs"),
                "pod spec" => ("podSpecPath", "podSpecs"),
                "pod metadata" => ("metadataPath", "podMetadata"),
                _ => ("fragmentedPodSpecDefinition", "fragments"),
            };
            let instead = match &c.pod {
                PodDef::Template(_) => {
                    "it takes podTemplateSpecs (its specDefinition has podTemplateSpecPath)"
                }
                PodDef::Spec(_) if c.metadata.is_some() => {
                    "it takes podSpecs and podMetadata (its specDefinition has podSpecPath and metadataPath)"
                }
                PodDef::Spec(_) => "it takes podSpecs (its specDefinition has podSpecPath)",
                PodDef::Fragmented(_) => {
                    "it takes fragments (its specDefinition has fragmentedPodSpecDefinition)"
                }
                PodDef::None => "it has no pods of its own to write (no specDefinition)",
            };
            Error::new(
                ErrorCode::Update,
                format!(
                    "component {} does not take {given}: its definition has no specDefinition.{field}; {instead}",
                    c.name
                ),
            )
        };
        if let Some(values) = &u.pod_template_specs {
            let PodDef::Template(e) = &c.pod else {
                return Err(missing("pod template spec"));
            };
            self.write(
                c,
                e,
                values,
                doc,
                "pod template specs",
                mode.keep(Keep::Template),
            )?;
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
                mode.keep(Keep::Fields(POD_SPEC_FIELDS)),
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
                mode.keep(Keep::Fields(OBJECT_META_FIELDS)),
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
                            "component {} does not take the {} fragment: its fragmentedPodSpecDefinition has no {}Path",
                            c.name,
                            f.human(),
                            f.value_key()
                        ),
                    ));
                };
                self.write(
                    c,
                    e,
                    &values,
                    doc,
                    &format!("fragment {}", f.human()),
                    mode.keep(Keep::Nothing),
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
                        "component {} has no instance {id:?} to write {what} to (its instances: {})",
                        c.name,
                        if ids.is_empty() {
                            "none".to_string()
                        } else {
                            ids.join(", ")
                        }
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
                crate::budget::copy_of(v).map_err(|err| err.at(e.location()))?;
                let v = keep.apply(take_path(doc, p), v, &self.limits)?;
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
                crate::budget::copy_of(v)
                    .map_err(|err| err.at(e.location()).in_component(&c.name, Some(id)))?;
                let v = keep
                    .apply(take_path(doc, p), v, &self.limits)
                    .map_err(|err| err.at(e.location()).in_component(&c.name, Some(id)))?;
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
    /// [`UpdateMode::Merge`]: the value is merged into the old one, which
    /// keeps everything the value does not name.
    Merged,
}

impl UpdateMode {
    fn keep(self, keep: Keep) -> Keep {
        match self {
            UpdateMode::Replace => keep,
            UpdateMode::Merge => Keep::Merged,
        }
    }
}

impl Keep {
    /// The value to write in place of `old` (taken out of the object).
    fn apply(self, old: Option<Value>, new: &Value, limits: &crate::Limits) -> Result<Value> {
        if let Keep::Merged = self {
            let mut target = old.unwrap_or(Value::Null);
            merge_patch(&mut target, new, limits.effective().max_depth.max(1))?;
            return Ok(target);
        }
        Ok(self.merge(old.as_ref(), new.clone()))
    }

    fn merge(self, old: Option<&Value>, new: Value) -> Value {
        let (old, mut new) = match (old, new) {
            (Some(Value::Object(old)), Value::Object(new)) => (old, new),
            (_, new) => return new,
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
            Keep::Nothing | Keep::Merged => return Value::Object(new),
            Keep::Fields(fields) => keep_foreign(old, &mut new, fields),
            Keep::Template => {
                keep_foreign(old, &mut new, &["metadata", "spec"]);
                for (k, fields) in [("spec", POD_SPEC_FIELDS), ("metadata", OBJECT_META_FIELDS)] {
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

/// The value at a jq path, if there is one, taken out of the object (a
/// `null` is left in its place, where [`set_path`] writes the new value, so
/// the key keeps its place).
fn take_path(doc: &mut Value, path: &[Value]) -> Option<Value> {
    let mut cur = doc;
    for k in path {
        cur = match (k, cur) {
            (Value::String(s), Value::Object(o)) => o.get_mut(s)?,
            (Value::Number(n), Value::Array(a)) => {
                let i = n.as_i64()?;
                let i = if i < 0 { i + a.len() as i64 } else { i };
                a.get_mut(usize::try_from(i).ok()?)?
            }
            _ => return None,
        };
    }
    Some(std::mem::take(cur))
}

fn human(f: FragmentField) -> &'static str {
    f.human()
}
