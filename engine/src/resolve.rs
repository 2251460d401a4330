//! Resolving an object through a compiled definition.

use crate::compile::{Comp, CompiledDefinition, Expr};
use crate::error::{Error, ErrorCode, Location, Result};
use crate::jq::{Input, format};
use crate::model::Gvk;
use crate::pods::{PodDef, PodTemplates};
use crate::resolved::{
    Component, DefinitionRef, Instance, RESOLVED_API_VERSION, RESOLVED_KIND, Resolved, Status,
    Totals, TreeNode, WorkloadRef,
};
use crate::resources::{self, ResourceSummary};
use serde_json::Value;

/// Describe a JSON value's type for messages, e.g. `number (3)`.
pub(crate) fn preview(v: &Value) -> String {
    let t = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let mut s = format::to_jq_string(v);
    if matches!(v, Value::String(_)) {
        s = format!("{s:?}");
    }
    if s.len() > 60 {
        let cut = (0..=60).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
        s = format!("{}...", &s[..cut]);
    }
    format!("{t} ({s})")
}

pub(crate) fn conversion(expr: &Expr, index: usize, target: &str, v: &Value) -> Error {
    Error::new(
        ErrorCode::Conversion,
        format!(
            "output {index} of the expression must be {target}, got {}",
            preview(v)
        ),
    )
    .at(expr.location())
}

/// Check that the object is a usable Kubernetes object.
pub(crate) fn workload_ref(obj: &Value) -> Result<WorkloadRef> {
    let invalid = |m: &str| {
        Error::new(
            ErrorCode::InvalidObject,
            format!("invalid Kubernetes object: {m}"),
        )
    };
    let Value::Object(o) = obj else {
        return Err(invalid(&format!(
            "expected an object, got {}",
            preview(obj)
        )));
    };
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
    let api_version = s(o.get("apiVersion"))
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid("missing apiVersion"))?;
    let kind = s(o.get("kind"))
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid("missing kind"))?;
    let meta = o.get("metadata");
    let name = s(meta.and_then(|m| m.get("name")))
        .filter(|n| !n.is_empty())
        .or_else(|| s(meta.and_then(|m| m.get("generateName"))).filter(|n| !n.is_empty()))
        .ok_or_else(|| invalid("missing metadata.name or metadata.generateName"))?;
    Ok(WorkloadRef {
        api_version,
        kind,
        name,
        namespace: s(meta.and_then(|m| m.get("namespace"))).filter(|n| !n.is_empty()),
        uid: s(meta.and_then(|m| m.get("uid"))).filter(|n| !n.is_empty()),
    })
}

/// Per-component extraction state.
struct Extracted {
    ids: Vec<String>,
    instances: Vec<Instance>,
}

impl CompiledDefinition {
    /// Resolve an object (parsed JSON) into the resolved structure.
    pub fn resolve(&self, obj: &Value) -> Result<Resolved> {
        let workload = workload_ref(obj)?;
        let mut warnings = Vec::new();
        let gvk = Gvk::from_api_version(&workload.api_version, &workload.kind);
        let root = self.root_gvk();
        if gvk.group != root.group || gvk.kind != root.kind {
            return Err(Error::new(
                ErrorCode::NoDefinition,
                format!(
                    "definition '{}' describes {}, not {}",
                    self.name(),
                    root,
                    gvk
                ),
            ));
        }
        if gvk.version != root.version {
            warnings.push(format!(
                "object version {} resolved through the definition for version {}",
                gvk.version, root.version
            ));
        }
        let input = Input::new(obj, &self.limits).map_err(crate::compile::eval_error)?;
        let mut components = Vec::with_capacity(self.comps.len());
        let mut totals = Totals::default();
        for c in &self.comps {
            let ex = self
                .extract(c, &input)
                .map_err(|e| e.in_component(&c.name, None))?;
            let mut ctotal = Totals::default();
            for inst in &ex.instances {
                ctotal.pods += inst.desired_replicas;
                ctotal.resources = ctotal.resources.plus(&inst.resources).map_err(|e| {
                    Error::new(ErrorCode::Limit, e.message).in_component(&c.name, None)
                })?;
            }
            totals.pods += ctotal.pods;
            totals.resources = totals
                .resources
                .plus(&ctotal.resources)
                .map_err(|e| Error::new(ErrorCode::Limit, e.message))?;
            let status = match (&c.status, c.parent) {
                (Some(s), Some(_)) => Some(self.eval_status(s, &input, None)?),
                _ => None,
            };
            let _ = ex.ids;
            components.push(Component {
                name: c.name.clone(),
                kind: c.def.kind.clone(),
                root: c.parent.is_none() && std::ptr::eq(c, &self.comps[0]),
                owner: c.parent.map(|p| self.comps[p].name.clone()),
                children: c
                    .children
                    .iter()
                    .map(|i| self.comps[*i].name.clone())
                    .collect(),
                has_pod_definition: !matches!(c.pod, PodDef::None),
                multi_instance: c.ids.is_some(),
                instances: ex.instances,
                totals: ctotal,
                status,
            });
        }
        let status = match &self.comps[0].status {
            Some(s) => Some(self.eval_status(s, &input, None)?),
            None => None,
        };
        Ok(Resolved {
            api_version: RESOLVED_API_VERSION.into(),
            kind: RESOLVED_KIND.into(),
            definition: DefinitionRef {
                name: self.name().to_string(),
                origin: self.origin,
                format: self.definition.api_version.clone(),
            },
            workload,
            status,
            components,
            totals,
            tree: self.tree(0),
            unattributed_pods: None,
            warnings,
        })
    }

    /// Parse YAML/JSON text (one document) and resolve it.
    pub fn resolve_text(&self, text: &str) -> Result<Resolved> {
        let obj = parse_object(text, &self.limits)?;
        self.resolve(&obj)
    }

    /// Only the root status of an object.
    pub fn status(&self, obj: &Value) -> Result<Option<Status>> {
        workload_ref(obj)?;
        let input = Input::new(obj, &self.limits).map_err(crate::compile::eval_error)?;
        match &self.comps[0].status {
            Some(s) => Ok(Some(self.eval_status(s, &input, None)?)),
            None => Ok(None),
        }
    }

    fn tree(&self, i: usize) -> TreeNode {
        TreeNode {
            component: self.comps[i].name.clone(),
            children: self.comps[i]
                .children
                .iter()
                .map(|c| self.tree(*c))
                .collect(),
        }
    }

    /// Instance ids of a component.
    pub(crate) fn instance_ids(&self, c: &Comp, input: &Input) -> Result<Vec<String>> {
        let Some(e) = &c.ids else {
            return Ok(vec![String::new()]);
        };
        let outs = e.eval(input, &self.limits)?;
        if outs.len() > self.limits.max_instances {
            return Err(Error::limit_error(
                "maxInstances",
                format!(
                    "{} instances exceed the limit of {}",
                    outs.len(),
                    self.limits.max_instances
                ),
            )
            .at(e.location()));
        }
        let mut ids = Vec::with_capacity(outs.len());
        for (i, v) in outs.iter().enumerate() {
            match v {
                Value::String(s) => ids.push(s.clone()),
                Value::Null => ids.push(String::new()),
                v => return Err(conversion(e, i, "a string (instance id)", v)),
            }
        }
        if ids.iter().any(String::is_empty) {
            return Err(Error::new(
                ErrorCode::Conversion,
                format!(
                    "instance id path contained empty string values [{}]",
                    ids.join(",")
                ),
            )
            .at(e.location()));
        }
        let mut sorted: Vec<&String> = ids.iter().collect();
        sorted.sort();
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::new(
                ErrorCode::Conversion,
                format!("instance id path yielded the id '{}' more than once", w[0]),
            )
            .at(e.location()));
        }
        Ok(ids)
    }

    pub(crate) fn zip(&self, e: &Expr, ids: &[String], n: usize) -> Result<()> {
        if n != ids.len() {
            return Err(Error::new(
                ErrorCode::CountMismatch,
                format!(
                    "instance ids count ({}) does not match results count ({n})",
                    ids.len()
                ),
            )
            .at(e.location()));
        }
        Ok(())
    }

    fn extract(&self, c: &Comp, input: &Input) -> Result<Extracted> {
        let ids = self
            .instance_ids(c, input)
            .map_err(|e| e.in_component(&c.name, None))?;
        let n = ids.len();
        let PodTemplates {
            mut templates,
            mut fragments,
        } = self.pod_templates(c, input, &ids)?;
        let scales = self.scales(c, input, &ids)?;
        let has_pods = !matches!(c.pod, PodDef::None);
        let mut instances = Vec::with_capacity(n);
        for (i, id) in ids.iter().enumerate() {
            let scale = scales.as_ref().map(|s| s[i]);
            let present = !has_pods || templates[i].is_some();
            let desired = if !has_pods || !present {
                0
            } else {
                let r = scale
                    .and_then(|s| s.replicas.or(s.min_replicas))
                    .unwrap_or(1);
                u64::try_from(r).unwrap_or(0)
            };
            let (pod_resources, resources) = match &templates[i] {
                Some(t) if has_pods => {
                    let spec = t.get("spec").cloned().unwrap_or(Value::Null);
                    let list = resources::pod_request(&spec).map_err(|e| {
                        Error::new(
                            ErrorCode::Conversion,
                            format!("invalid pod resources at spec.{}: {}", e.path, e.message),
                        )
                        .at(Location {
                            object_path: Some(format!("spec.{}", e.path)),
                            ..Location::default()
                        })
                        .in_component(&c.name, Some(id))
                    })?;
                    let per_pod = ResourceSummary::from_list(&list);
                    let total = per_pod.times(desired).map_err(|e| {
                        Error::new(ErrorCode::Limit, e.message).in_component(&c.name, Some(id))
                    })?;
                    (Some(per_pod), total)
                }
                _ => (None, ResourceSummary::default()),
            };
            instances.push(Instance {
                id: id.clone(),
                present,
                scale,
                desired_replicas: desired,
                pod_template: if has_pods { templates[i].take() } else { None },
                fragments: fragments[i].take(),
                pod_resources,
                resources,
                live: None,
            });
        }
        Ok(Extracted { ids, instances })
    }
}

/// Parse one YAML/JSON object.
pub(crate) fn parse_object(text: &str, limits: &crate::Limits) -> Result<Value> {
    crate::source::parse_object(text, limits)
}

/// Convert a replica count output: null is absent; integral numbers in the
/// int32 range; base-10 strings (as the current reference generation does).
pub(crate) fn to_i32(e: &Expr, i: usize, v: &Value) -> Result<Option<i32>> {
    match v {
        Value::Null => Ok(None),
        Value::Number(n) => {
            let ok = n.as_i64().and_then(|x| i32::try_from(x).ok()).or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= i32::MIN as f64 && *f <= i32::MAX as f64)
                    .map(|f| f as i32)
            });
            ok.map(Some)
                .ok_or_else(|| conversion(e, i, "an integer in the int32 range (replicas)", v))
        }
        Value::String(s) => {
            let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
            if !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && let Ok(x) = s.parse::<i32>()
            {
                return Ok(Some(x));
            }
            Err(Error::new(
                ErrorCode::Conversion,
                format!("replicas value {s:?} at index {i} is not a number"),
            )
            .at(e.location()))
        }
        v => Err(conversion(e, i, "an integer (replicas)", v)),
    }
}
