//! Resolving an object through a compiled definition.

use crate::budget::member;
use crate::compile::CompiledDefinition;
use crate::component::{Comp, check_tree_depth};
use crate::error::{Error, ErrorCode, Location, Result};
use crate::expr::{Expr, conversion};
use crate::jq::Input;
use crate::model::Gvk;
use crate::pods::{PodDef, PodTemplates};
use crate::preview::{preview, preview_join};
use crate::resolved::{
    Component, DefinitionRef, Instance, RESOLVED_API_VERSION, RESOLVED_KIND, Resolved, Status,
    Totals, WorkloadRef,
};
use crate::resources::{self, ResourceSummary};
use serde_json::Value;
use std::borrow::Cow;

/// Member `k` of `m`, when `m` is an object.
fn get<'a>(m: &'a Value, k: &str) -> Option<&'a Value> {
    match m {
        Value::Object(m) => member(m, k),
        _ => None,
    }
}

/// Check that the object is a usable Kubernetes object.
pub(crate) fn workload_ref(obj: &Value) -> Result<WorkloadRef<'_>> {
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
    fn s(v: Option<&Value>) -> Option<Cow<'_, str>> {
        v.and_then(Value::as_str).map(Cow::Borrowed)
    }
    let api_version = s(member(o, "apiVersion"))
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid("missing apiVersion"))?;
    let kind = s(member(o, "kind"))
        .filter(|s| !s.is_empty())
        .ok_or_else(|| invalid("missing kind"))?;
    let meta = member(o, "metadata");
    let name = s(meta.and_then(|m| get(m, "name")))
        .filter(|n| !n.is_empty())
        .or_else(|| s(meta.and_then(|m| get(m, "generateName"))).filter(|n| !n.is_empty()))
        .ok_or_else(|| invalid("missing metadata.name or metadata.generateName"))?;
    Ok(WorkloadRef {
        api_version,
        kind,
        name,
        namespace: s(meta.and_then(|m| get(m, "namespace"))).filter(|n| !n.is_empty()),
        uid: s(meta.and_then(|m| get(m, "uid"))).filter(|n| !n.is_empty()),
    })
}

/// The most steps [`CompiledDefinition::check_tree_depth`]'s walk without
/// allocating may take before the linear check is used instead.
const SHALLOW_WALK_STEPS: usize = 4096;

/// Per-component extraction state.
struct Extracted<'a> {
    instances: Vec<Instance<'a>>,
}

impl CompiledDefinition {
    /// Resolve an object (parsed JSON) into the resolved structure, which
    /// borrows from the object (its pod templates, pod specs and fragments
    /// where it holds them as they are kept) and from the definition (a
    /// value its expressions give as written): [`Resolved::into_owned`]
    /// copies them.
    pub fn resolve<'a>(&'a self, obj: &'a Value) -> Result<Resolved<'a>> {
        self.resolve_read(obj, None)
    }

    /// [`CompiledDefinition::resolve`] of `obj`, or (with the `shape` of
    /// the text it was read from) of the part of a text resolving reads
    /// ([`CompiledDefinition::object_reads`]), with the same result.
    fn resolve_read<'a>(
        &'a self,
        obj: &'a Value,
        shape: Option<crate::source::TextShape>,
    ) -> Result<Resolved<'a>> {
        let _call = crate::budget::Call::enter(&self.limits);
        self.check_tree_depth()?;
        let workload = workload_ref(obj)?;
        let mut warnings = Vec::new();
        // Compared in place (the object's GVK is made only for a message).
        let (group, version) = match workload.api_version.split_once('/') {
            Some((g, v)) => (g, v),
            None => ("", &*workload.api_version),
        };
        let no_root = Gvk::default();
        let root = self.definition.root_gvk().unwrap_or(&no_root);
        if group != root.group || workload.kind != root.kind {
            return Err(Error::new(
                ErrorCode::NoDefinition,
                format!(
                    "definition '{}' describes {}, not {}",
                    self.name(),
                    root,
                    Gvk::from_api_version(&workload.api_version, &workload.kind)
                ),
            ));
        }
        if version != root.version {
            warnings.push(format!(
                "object version {version} resolved through the definition for version {}",
                root.version
            ));
        }
        let input = match shape {
            Some(shape) => Input::of_text(obj, shape, &self.limits),
            None => Input::new(obj, &self.limits),
        }
        .map_err(crate::expr::eval_error)?;
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
            components.push(Component {
                name: Cow::Borrowed(&c.name),
                kind: c.def.kind.as_ref().map(Cow::Borrowed),
                root: c.parent.is_none() && std::ptr::eq(c, &self.comps[0]),
                owner: c.parent.map(|p| Cow::Borrowed(self.comps[p].name.as_str())),
                children: Cow::Borrowed(&c.child_names),
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
            api_version: Cow::Borrowed(RESOLVED_API_VERSION),
            kind: Cow::Borrowed(RESOLVED_KIND),
            definition: DefinitionRef {
                name: Cow::Borrowed(self.name()),
                origin: self.origin,
                format: Cow::Borrowed(&self.definition.api_version),
            },
            workload,
            status,
            components,
            totals,
            tree: Cow::Borrowed(&self.tree),
            unattributed_pods: None,
            stray_pods: Vec::new(),
            warnings,
        })
    }

    /// Parse YAML/JSON text (one document) and resolve it. JSON text is
    /// read by the JSON reader's fast path (as the bindings read theirs);
    /// YAML, and JSON that reader refuses, by the YAML/JSON reader, whose
    /// errors carry positions (the text `null` is no document).
    ///
    /// JSON text is read for what resolving reads of it: the parts no
    /// expression of the definition reads are read (within the limits, a
    /// key met twice refused) and not built, with the same result and the
    /// same charges as the whole object's
    /// ([`CompiledDefinition::object_reads`]).
    pub fn resolve_text(&self, text: &str) -> Result<Resolved<'static>> {
        let _call = crate::budget::Call::enter(&self.limits);
        if let Some(resolved) = self.resolve_read_part(text)? {
            return Ok(resolved);
        }
        let obj = match crate::source::read_value_fast(text, &self.limits)? {
            Some(v) if !v.is_null() => v,
            _ => parse_object(text, &self.limits)?,
        };
        self.resolve(&obj).map(Resolved::into_owned)
    }

    /// Resolve the value of a JSON (or YAML) text as
    /// [`read_value`](crate::source::read_value) reads it (a binding's
    /// object argument: `JSON.stringify`'s text, say): the same result and
    /// errors as `resolve(&read_value(text)?)`, with JSON read as
    /// [`CompiledDefinition::resolve_text`] reads it, for what resolving
    /// reads of it. Unlike `resolve_text`, the text `null` is the value
    /// `null` (an invalid object) rather than no document.
    pub fn resolve_value_text(&self, text: &str) -> Result<Resolved<'static>> {
        let _call = crate::budget::Call::enter(&self.limits);
        if let Some(resolved) = self.resolve_read_part(text)? {
            return Ok(resolved);
        }
        let obj = crate::source::read_value(text, &self.limits)?;
        self.resolve(&obj).map(Resolved::into_owned)
    }

    /// The resolve of a JSON text's object read for what resolving reads
    /// of it; `None` (nothing read yet) when the definition reads every
    /// object whole, or the text is not an object the fast JSON reader
    /// takes (the callers' own readers then read it, with their errors).
    fn resolve_read_part(&self, text: &str) -> Result<Option<Resolved<'static>>> {
        let Some(reads) = self.object_reads() else {
            return Ok(None);
        };
        match crate::source::read_value_projected(text, &self.limits, reads)? {
            Some((obj, shape)) if !obj.is_null() => self
                .resolve_read(&obj, Some(shape))
                .map(|r| Some(r.into_owned())),
            _ => Ok(None),
        }
    }

    /// What resolving reads of an object (`None`: all of it), found once:
    /// the parts each expression [`CompiledDefinition::resolve`] evaluates
    /// reads ([`crate::jq::reads`]), and the object's reference
    /// (`apiVersion`, `kind`, `metadata.name`, `generateName`,
    /// `namespace`, `uid`). All of it when an expression is one the
    /// analysis cannot follow.
    pub(crate) fn object_reads(&self) -> Option<&crate::jq::reads::Reads> {
        self.reads.get_or_init(|| self.find_reads()).as_ref()
    }

    fn find_reads(&self) -> Option<crate::jq::reads::Reads> {
        self.find_reads_within(&mut crate::jq::reads::Bounds::new())
    }

    /// [`CompiledDefinition::find_reads`], taking what it takes from
    /// `bounds`.
    pub(crate) fn find_reads_within(
        &self,
        bounds: &mut crate::jq::reads::Bounds,
    ) -> Option<crate::jq::reads::Reads> {
        use crate::jq::reads::{PathStep::Key, Reads};
        let mut reads = Reads::default();
        // A few nodes, well within the bounds.
        reads.read_whole(&[Key("apiVersion")], &mut bounds.nodes);
        reads.read_whole(&[Key("kind")], &mut bounds.nodes);
        for k in ["name", "generateName", "namespace", "uid"] {
            reads.read_whole(&[Key("metadata"), Key(k)], &mut bounds.nodes);
        }
        let mut exprs: Vec<&Expr> = Vec::new();
        for c in &self.comps {
            exprs.extend(&c.ids);
            exprs.extend(&c.metadata);
            match &c.pod {
                PodDef::None => {}
                PodDef::Template(e) | PodDef::Spec(e) => exprs.push(e),
                PodDef::Fragmented(fields) => exprs.extend(fields.iter().map(|(_, e)| e)),
            }
            if let Some(s) = &c.scale {
                exprs.extend(s.paths().into_iter().filter_map(|(_, e)| e));
            }
            if let Some(s) = &c.status {
                exprs.extend(&s.phase);
                exprs.extend(s.conditions.as_ref().map(|c| &c.expr));
                for (_, matchers) in &s.mappings {
                    exprs.extend(
                        matchers
                            .iter()
                            .filter_map(|m| m.by_expression.as_ref().map(|(e, _)| e)),
                    );
                }
            }
        }
        for e in exprs {
            if !e.program.reads(&mut reads, bounds) {
                return None;
            }
        }
        (reads.finish(&mut bounds.nodes) && !reads.is_whole()).then_some(reads)
    }

    /// Only the root status of an object.
    pub fn status(&self, obj: &Value) -> Result<Option<Status>> {
        let _call = crate::budget::Call::enter(&self.limits);
        workload_ref(obj)?;
        let input = Input::new(obj, &self.limits).map_err(crate::expr::eval_error)?;
        match &self.comps[0].status {
            Some(s) => Ok(Some(self.eval_status(s, &input, None)?)),
            None => Ok(None),
        }
    }

    /// The tree of components is within [`max_tree_depth`](crate::component::max_tree_depth) of the limits
    /// the definition evaluates with.
    pub(crate) fn check_tree_depth(&self) -> Result<()> {
        // Every call checks this: first, without allocating, whether every
        // ownership chain ends within the bound (a cycle never does, and
        // is left to the exact check below with every other failure). That
        // walk takes up to n * (bound + 1) steps, so it is made only for
        // definitions small enough (all of the catalog's); the exact check
        // is linear.
        let bound = crate::component::max_tree_depth(&self.limits);
        let n = self.comps.len();
        let small = n.saturating_mul(bound.saturating_add(1)) <= SHALLOW_WALK_STEPS;
        let shallow = small
            && self.comps.iter().all(|c| {
                let (mut up, mut d) = (c.parent, 0usize);
                while let Some(p) = up {
                    d += 1;
                    if d > bound {
                        return false;
                    }
                    up = self.comps.get(p).and_then(|c| c.parent);
                }
                true
            });
        if shallow {
            return Ok(());
        }
        let parents: Vec<Option<usize>> = self.comps.iter().map(|c| c.parent).collect();
        check_tree_depth(&parents, |i| self.comps[i].name.clone(), &self.limits)
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
        // The outputs are the call's own: their strings are moved.
        for (i, v) in outs.into_iter().enumerate() {
            match v {
                Value::String(s) => ids.push(s),
                Value::Null => ids.push(String::new()),
                v => return Err(conversion(e, i, "a string (instance id)", &v)),
            }
        }
        if ids.iter().any(String::is_empty) {
            // The ids whole when short; else a preview and the counts.
            let message = match preview_join(&ids, ",") {
                (all, true) => format!("instance id path contained empty string values [{all}]"),
                (head, false) => format!(
                    "instance id path contained empty string values [{head}...] ({} ids, {} empty)",
                    ids.len(),
                    ids.iter().filter(|i| i.is_empty()).count()
                ),
            };
            return Err(Error::new(ErrorCode::Conversion, message).at(e.location()));
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

    fn extract<'a>(&'a self, c: &'a Comp, input: &Input<'a>) -> Result<Extracted<'a>> {
        let ids = self
            .instance_ids(c, input)
            .map_err(|e| e.in_component(&c.name, None))?;
        let n = ids.len();
        let PodTemplates {
            mut templates,
            mut fragments,
            metadata,
        } = self.pod_templates(c, input, &ids)?;
        let scales = self.scales(c, input, &ids)?;
        let has_pods = !matches!(c.pod, PodDef::None);
        let mut instances = Vec::with_capacity(n);
        // The ids move into the instances (no copy of each).
        for (i, id) in ids.into_iter().enumerate() {
            let scale = scales.as_ref().map(|s| s[i]);
            // Absent only when nothing of the instance exists: every pod
            // field and every scale path is null. A count without a pod
            // template of its own (a part that takes its pods from a
            // default) is still a part with pods.
            let scaled = scale.is_some_and(|s| {
                s.replicas.is_some() || s.min_replicas.is_some() || s.max_replicas.is_some()
            });
            let present = !has_pods
                || templates[i].is_some()
                || fragments[i].is_some()
                || metadata[i]
                || scaled;
            let desired = if !has_pods || !present {
                0
            } else {
                let r = scale
                    .and_then(|s| s.replicas.or(s.min_replicas))
                    .unwrap_or(1);
                u64::try_from(r).unwrap_or(0)
            };
            // The requests of one pod: from the template's spec, or (a
            // template assembled when read) from the fragments (borrowing
            // their names: summed in a block of their own).
            let (pod_resources, resources) = {
                let requests = match (&templates[i], &fragments[i]) {
                    _ if !has_pods => None,
                    (Some(t), _) => Some(resources::pod_request(t.spec().unwrap_or(&Value::Null))),
                    (None, Some(f)) => Some(crate::pods::fragments_request(f)),
                    (None, None) => None,
                };
                match requests {
                    Some(list) => {
                        // A quantity that is wrong is a conversion error; one
                        // whose count does not fit 64 bits (alone or summed over
                        // the pod) is an overflow, code `limit`.
                        let bad = |e: resources::ResourceError| {
                            let code = if e.is_overflow() {
                                ErrorCode::Limit
                            } else {
                                ErrorCode::Conversion
                            };
                            let at = if e.path.is_empty() {
                                "spec".to_string()
                            } else {
                                format!("spec.{}", e.path)
                            };
                            Error::new(
                                code,
                                format!("invalid pod resources at {at}: {}", e.message),
                            )
                            .at(Location {
                                object_path: Some(at),
                                ..Location::default()
                            })
                            .in_component(&c.name, Some(&id))
                        };
                        let list = list.map_err(bad)?;
                        let per_pod = ResourceSummary::try_from_requests(&list).map_err(bad)?;
                        let total = per_pod.times(desired).map_err(|e| {
                            Error::new(ErrorCode::Limit, e.message).in_component(&c.name, Some(&id))
                        })?;
                        (Some(per_pod), total)
                    }
                    None => (None, ResourceSummary::default()),
                }
            };
            instances.push(Instance {
                id,
                present,
                scale,
                desired_replicas: desired,
                template: if has_pods { templates[i].take() } else { None },
                fragments: fragments[i].take(),
                pod_resources,
                resources,
                live: None,
            });
        }
        Ok(Extracted { instances })
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
