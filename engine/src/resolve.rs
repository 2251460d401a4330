//! Resolving an object through a compiled definition.

use crate::compile::{Comp, CompiledDefinition, Expr, PodDef};
use crate::error::{Error, ErrorCode, Location, Result};
use crate::jq::{Input, format};
use crate::model::{FragmentField, FragmentType, Gvk};
use crate::resolved::{
    Component, DefinitionRef, Instance, RESOLVED_API_VERSION, RESOLVED_KIND, Resolved, Scale,
    Status, Totals, TreeNode, WorkloadRef,
};
use crate::resources::{self, ResourceSummary};
use serde_json::{Map, Value};

/// The fields of a Kubernetes PodSpec (core/v1, as of v1.34).
pub(crate) const POD_SPEC_FIELDS: &[&str] = &[
    "activeDeadlineSeconds",
    "affinity",
    "automountServiceAccountToken",
    "containers",
    "dnsConfig",
    "dnsPolicy",
    "enableServiceLinks",
    "ephemeralContainers",
    "hostAliases",
    "hostIPC",
    "hostNetwork",
    "hostPID",
    "hostUsers",
    "hostname",
    "hostnameOverride",
    "imagePullSecrets",
    "initContainers",
    "nodeName",
    "nodeSelector",
    "os",
    "overhead",
    "preemptionPolicy",
    "priority",
    "priorityClassName",
    "readinessGates",
    "resourceClaims",
    "resources",
    "restartPolicy",
    "runtimeClassName",
    "schedulerName",
    "schedulingGates",
    "securityContext",
    "serviceAccount",
    "serviceAccountName",
    "setHostnameAsFQDN",
    "shareProcessNamespace",
    "subdomain",
    "terminationGracePeriodSeconds",
    "tolerations",
    "topologySpreadConstraints",
    "volumes",
];

/// The fields of a Kubernetes ObjectMeta.
pub(crate) const OBJECT_META_FIELDS: &[&str] = &[
    "annotations",
    "creationTimestamp",
    "deletionGracePeriodSeconds",
    "deletionTimestamp",
    "finalizers",
    "generateName",
    "generation",
    "labels",
    "managedFields",
    "name",
    "namespace",
    "ownerReferences",
    "resourceVersion",
    "selfLink",
    "uid",
];

/// Keep only the fields of a Kubernetes type, as the reference's typed
/// conversion does (a CRD's own fields at the same place are dropped from
/// the resolved template; updates keep them in the object).
pub(crate) fn keep_fields(mut m: Map<String, Value>, fields: &[&str]) -> Map<String, Value> {
    m.retain(|k, _| fields.contains(&k.as_str()));
    m
}

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
                origin: self.origin.as_str().into(),
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
            return Err(Error::limit(
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

    fn zip(&self, e: &Expr, ids: &[String], n: usize) -> Result<()> {
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
        // Pod templates, one per instance: None = absent in the object.
        let mut templates: Vec<Option<Value>> = vec![None; n];
        let mut fragments: Vec<Option<Map<String, Value>>> = vec![None; n];
        let lim = &self.limits;
        match &c.pod {
            PodDef::None => {}
            PodDef::Template(e) => {
                let outs = e.eval(input, lim)?;
                self.zip(e, &ids, outs.len())?;
                for (i, v) in outs.into_iter().enumerate() {
                    templates[i] = to_template(e, i, v)?;
                }
            }
            PodDef::Spec(e) => {
                let outs = e.eval(input, lim)?;
                self.zip(e, &ids, outs.len())?;
                for (i, v) in outs.into_iter().enumerate() {
                    templates[i] = match v {
                        Value::Null => None,
                        Value::Object(spec) => {
                            let mut t = Map::new();
                            t.insert("metadata".into(), Value::Object(Map::new()));
                            t.insert(
                                "spec".into(),
                                Value::Object(keep_fields(spec, POD_SPEC_FIELDS)),
                            );
                            Some(Value::Object(t))
                        }
                        v => return Err(conversion(e, i, "an object (pod spec)", &v)),
                    };
                }
            }
            PodDef::Fragmented(fields) => {
                let mut lists: Vec<(FragmentField, &Expr, Vec<Value>)> = Vec::new();
                let mut count = 0;
                for (f, e) in fields {
                    let outs = e.eval(input, lim)?;
                    count = count.max(outs.len());
                    lists.push((*f, e, outs));
                }
                if let Some((_, e, _)) = lists.first() {
                    self.zip(e, &ids, count)?;
                }
                for (i, frag) in fragments.iter_mut().enumerate() {
                    let mut m = Map::new();
                    for (f, e, outs) in &lists {
                        if let Some(v) = outs.get(i)
                            && let Some(v) = check_fragment(e, i, *f, v)?
                        {
                            m.insert(f.value_key().into(), v);
                        }
                    }
                    if !m.is_empty() {
                        templates[i] = Some(assemble(&m));
                        *frag = Some(m);
                    }
                }
            }
        }
        if let Some(e) = &c.metadata {
            let outs = e.eval(input, lim)?;
            self.zip(e, &ids, outs.len())?;
            for (i, v) in outs.into_iter().enumerate() {
                match v {
                    Value::Null => {}
                    Value::Object(meta) => {
                        if let Some(Value::Object(t)) = &mut templates[i] {
                            t.insert(
                                "metadata".into(),
                                Value::Object(keep_fields(meta, OBJECT_META_FIELDS)),
                            );
                        }
                    }
                    v => return Err(conversion(e, i, "an object (pod metadata)", &v)),
                }
            }
        }
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

    fn scales(&self, c: &Comp, input: &Input, ids: &[String]) -> Result<Option<Vec<Scale>>> {
        let Some(paths) = &c.scale else {
            return Ok(None);
        };
        if paths.iter().all(Option::is_none) {
            return Ok(None);
        }
        let mut lists: [Vec<Option<i32>>; 3] = Default::default();
        let mut count = 0;
        let mut first: Option<&Expr> = None;
        for (k, p) in paths.iter().enumerate() {
            if let Some(e) = p {
                first = first.or(Some(e));
                let outs = e.eval(input, &self.limits)?;
                for (i, v) in outs.iter().enumerate() {
                    lists[k].push(to_i32(e, i, v)?);
                }
                count = count.max(outs.len());
            }
        }
        if let Some(e) = first {
            self.zip(e, ids, count)?;
        }
        Ok(Some(
            (0..count)
                .map(|i| Scale {
                    replicas: lists[0].get(i).copied().flatten(),
                    min_replicas: lists[1].get(i).copied().flatten(),
                    max_replicas: lists[2].get(i).copied().flatten(),
                })
                .collect(),
        ))
    }
}

/// Parse one YAML/JSON object.
pub(crate) fn parse_object(text: &str, limits: &crate::Limits) -> Result<Value> {
    crate::source::parse_object(text, limits)
}

fn to_template(e: &Expr, i: usize, v: Value) -> Result<Option<Value>> {
    match v {
        Value::Null => Ok(None),
        Value::Object(mut o) => {
            let mut t = Map::new();
            for k in ["metadata", "spec"] {
                match o.remove(k) {
                    // Kept absent, so that writing the template back adds nothing.
                    None | Some(Value::Null) => {}
                    Some(Value::Object(x)) => {
                        let fields = if k == "spec" {
                            POD_SPEC_FIELDS
                        } else {
                            OBJECT_META_FIELDS
                        };
                        t.insert(k.into(), Value::Object(keep_fields(x, fields)));
                    }
                    Some(x) => {
                        return Err(conversion(
                            e,
                            i,
                            &format!("a pod template whose {k} is an object"),
                            &x,
                        ));
                    }
                }
            }
            Ok(Some(Value::Object(t)))
        }
        v => Err(conversion(e, i, "an object (pod template)", &v)),
    }
}

fn check_fragment(e: &Expr, i: usize, f: FragmentField, v: &Value) -> Result<Option<Value>> {
    if v.is_null() {
        return Ok(None);
    }
    let ok = match f.target() {
        FragmentType::String => v.is_string(),
        FragmentType::StringMap => v
            .as_object()
            .is_some_and(|o| o.values().all(Value::is_string)),
        FragmentType::Object => v.is_object(),
        FragmentType::ObjectList => v.as_array().is_some_and(|a| a.iter().all(Value::is_object)),
    };
    if !ok {
        let target = match f.target() {
            FragmentType::String => "a string",
            FragmentType::StringMap => "a map of strings",
            FragmentType::Object => "an object",
            FragmentType::ObjectList => "an array of objects",
        };
        return Err(conversion(e, i, &format!("{target} ({})", f.human()), v));
    }
    Ok(Some(v.clone()))
}

/// Assemble a pod template from fragments. The main `container` replaces a
/// container of the same name in `containers` (or is put first); `image`
/// and the bare `resources` fragment apply to the main container when it
/// lacks them; with no container at all, `resources` makes a container named
/// `main`.
pub(crate) fn assemble(m: &Map<String, Value>) -> Value {
    let mut spec = Map::new();
    for k in ["schedulerName", "priorityClassName"] {
        if let Some(v) = m.get(k) {
            spec.insert(k.into(), v.clone());
        }
    }
    let mut affinity = Map::new();
    for k in ["podAffinity", "nodeAffinity"] {
        if let Some(v) = m.get(k) {
            affinity.insert(k.into(), v.clone());
        }
    }
    if !affinity.is_empty() {
        spec.insert("affinity".into(), Value::Object(affinity));
    }
    if let Some(v) = m.get("resourceClaims") {
        spec.insert("resourceClaims".into(), v.clone());
    }
    let mut containers: Vec<Value> = m
        .get("containers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut main = m.get("container").and_then(Value::as_object).cloned();
    let mut main_is_first = false;
    if main.is_none() && (m.contains_key("resources") || m.contains_key("image")) {
        // Without a main container the first container is the main one; with
        // no container at all, one named `main` carries the fragments.
        main = match containers.first().and_then(Value::as_object) {
            Some(first) => {
                main_is_first = true;
                Some(first.clone())
            }
            None => {
                let mut c = Map::new();
                c.insert("name".into(), Value::String("main".into()));
                Some(c)
            }
        };
    }
    if let Some(mut c) = main {
        if let Some(img) = m.get("image") {
            c.entry("image").or_insert_with(|| img.clone());
        }
        if let Some(r) = m.get("resources") {
            c.entry("resources").or_insert_with(|| r.clone());
        }
        let name = c.get("name").cloned();
        let pos = if main_is_first {
            Some(0)
        } else {
            containers
                .iter()
                .position(|x| name.is_some() && x.get("name") == name.as_ref())
        };
        match pos {
            Some(pos) => containers[pos] = Value::Object(c),
            None => containers.insert(0, Value::Object(c)),
        }
    }
    if !containers.is_empty() {
        spec.insert("containers".into(), Value::Array(containers));
    }
    let mut meta = Map::new();
    for k in ["labels", "annotations"] {
        if let Some(v) = m.get(k) {
            meta.insert(k.into(), v.clone());
        }
    }
    let mut t = Map::new();
    t.insert("metadata".into(), Value::Object(meta));
    t.insert("spec".into(), Value::Object(spec));
    Value::Object(t)
}

/// Convert a replica count output: null is absent; integral numbers in the
/// int32 range; base-10 strings (as the current reference generation does).
fn to_i32(e: &Expr, i: usize, v: &Value) -> Result<Option<i32>> {
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
