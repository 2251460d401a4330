//! Reading pod templates out of a workload: one per instance, from a
//! template, a pod spec or fragments, with the pod metadata.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::compile::CompiledDefinition;
use crate::component::Comp;
use crate::error::Result;
use crate::expr::{Expr, conversion};
use crate::jq::Input;
use crate::model::{FragmentField, FragmentType};
use crate::pods::PodDef;
use crate::resolved::{Fragments, Template, around_spec};

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
/// The copy is made of the fields kept only, in their order.
pub(crate) fn copy_fields(m: &Map<String, Value>, fields: &[&str]) -> Map<String, Value> {
    m.iter()
        .filter(|(k, _)| fields.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The pod templates of a component's instances (`None`: absent in the
/// object, or to be assembled from the fragments when read) and, for
/// fragmented definitions, the fragments read.
pub(crate) struct PodTemplates<'a> {
    /// Borrowed from the object where it holds the template (or the pod
    /// spec) as kept.
    pub templates: PerInstance<Option<Template<'a>>>,
    pub fragments: PerInstance<Option<Fragments<'a>>>,
    /// Per instance: the metadata path yielded an object, with or without
    /// a template to put it in (a pod field that is not null).
    pub metadata: PerInstance<bool>,
}

/// One item per instance of a component, held inline for up to two (most
/// components have one or two instances; a resolve should not allocate
/// for them).
pub(crate) type PerInstance<T> = smallvec::SmallVec<[T; 2]>;

impl CompiledDefinition {
    /// Read the pod templates of a component, one per instance id.
    pub(crate) fn pod_templates<'a>(
        &'a self,
        c: &'a Comp,
        input: &Input<'a>,
        ids: &[String],
    ) -> Result<PodTemplates<'a>> {
        let n = ids.len();
        // Pod templates, one per instance: None = absent in the object.
        let mut templates: PerInstance<Option<Template<'a>>> = smallvec::smallvec![None; n];
        let mut fragments: PerInstance<Option<Fragments<'a>>> = smallvec::smallvec![None; n];
        let mut metadata: PerInstance<bool> = smallvec::smallvec![false; n];
        let lim = &self.limits;
        match &c.pod {
            PodDef::None => {}
            // Templates and specs are read where they are: a template
            // held as it is kept is borrowed, otherwise only the fields
            // kept are copied.
            PodDef::Template(e) => {
                let outs = e.eval_borrowed(input, lim)?;
                self.zip(e, ids, outs.len())?;
                for (i, v) in outs.into_iter().enumerate() {
                    templates[i] = to_template(e, i, v)?.map(Template::Whole);
                }
            }
            PodDef::Spec(e) => {
                let outs = e.eval_borrowed(input, lim)?;
                self.zip(e, ids, outs.len())?;
                for (i, v) in outs.into_iter().enumerate() {
                    templates[i] = match v {
                        // A spec of the object with kept fields only is
                        // borrowed (its template made when read).
                        Cow::Borrowed(spec @ Value::Object(m)) if only(m, POD_SPEC_FIELDS) => {
                            Some(Template::Spec(spec))
                        }
                        v => match &*v {
                            Value::Null => None,
                            Value::Object(spec) => Some(Template::Whole(Cow::Owned(around_spec(
                                Value::Object(copy_fields(spec, POD_SPEC_FIELDS)),
                            )))),
                            v => return Err(conversion(e, i, "an object (pod spec)", v)),
                        },
                    };
                }
            }
            PodDef::Fragmented(fields) => {
                // Each fragment is read where it is: borrowed from the
                // object where it is held there.
                let mut lists: Vec<(FragmentField, &Expr, crate::jq::Outs<Cow<'a, Value>>)> =
                    Vec::with_capacity(fields.len());
                let mut count = 0;
                for (f, e) in fields {
                    let outs = e.eval_borrowed(input, lim)?;
                    count = count.max(outs.len());
                    lists.push((*f, e, outs));
                }
                if let Some((_, e, _)) = lists.first() {
                    self.zip(e, ids, count)?;
                }
                for (i, frag) in fragments.iter_mut().enumerate() {
                    let mut m = Fragments::default();
                    let fields = lists.len();
                    for (j, (f, e, outs)) in lists.iter_mut().enumerate() {
                        if let Some(v) = outs.get_mut(i)
                            && let Some(v) = check_fragment(e, i, *f, std::mem::take(v))?
                        {
                            // Room for the fields left, made at the first
                            // (an instance without fragments allocates none).
                            if m.is_empty() {
                                m = Fragments::with_capacity(fields - j);
                            }
                            m.push(f.value_key(), v);
                        }
                    }
                    // The template is assembled when it is read
                    // ([`crate::Instance::pod_template`]): not copied here.
                    if !m.is_empty() {
                        *frag = Some(m);
                    }
                }
            }
        }
        if let Some(e) = &c.metadata {
            let outs = e.eval_borrowed(input, lim)?;
            self.zip(e, ids, outs.len())?;
            for (i, v) in outs.iter().enumerate() {
                match &**v {
                    Value::Null => {}
                    Value::Object(meta) => {
                        metadata[i] = true;
                        // Metadata replaces the fragments' own: such a
                        // template is assembled now, and kept.
                        if templates[i].is_none()
                            && let Some(m) = &fragments[i]
                        {
                            templates[i] = Some(Template::Whole(Cow::Owned(super::assemble(m))));
                        }
                        if let Some(Value::Object(t)) = templates[i].as_mut().map(Template::to_mut)
                        {
                            t.insert(
                                "metadata".into(),
                                Value::Object(copy_fields(meta, OBJECT_META_FIELDS)),
                            );
                        }
                    }
                    v => return Err(conversion(e, i, "an object (pod metadata)", v)),
                }
            }
        }
        Ok(PodTemplates {
            templates,
            fragments,
            metadata,
        })
    }
}

/// A template as the result keeps it: borrowed where the object holds it
/// so ([`kept_as_is`]), otherwise its kept fields copied.
fn to_template<'a>(e: &Expr, i: usize, v: Cow<'a, Value>) -> Result<Option<Cow<'a, Value>>> {
    if let Cow::Borrowed(Value::Object(o)) = v
        && kept_as_is(o)
    {
        return Ok(Some(v));
    }
    match &*v {
        Value::Null => Ok(None),
        Value::Object(o) => {
            let mut t = Map::new();
            for k in ["metadata", "spec"] {
                match crate::budget::member(o, k) {
                    // Kept absent, so that writing the template back adds nothing.
                    None | Some(Value::Null) => {}
                    Some(Value::Object(x)) => {
                        let fields = if k == "spec" {
                            POD_SPEC_FIELDS
                        } else {
                            OBJECT_META_FIELDS
                        };
                        t.insert(k.into(), Value::Object(copy_fields(x, fields)));
                    }
                    Some(x) => {
                        return Err(conversion(
                            e,
                            i,
                            &format!("a pod template whose {k} is an object"),
                            x,
                        ));
                    }
                }
            }
            Ok(Some(Cow::Owned(Value::Object(t))))
        }
        v => Err(conversion(e, i, "an object (pod template)", v)),
    }
}

/// Whether [`to_template`]'s copy of template `o` would be `o` itself:
/// `metadata` then `spec` (either absent), each an object of kept fields
/// only ([`OBJECT_META_FIELDS`], [`POD_SPEC_FIELDS`]), and nothing else.
fn kept_as_is(o: &Map<String, Value>) -> bool {
    let mut next = 0;
    o.iter().all(|(k, v)| {
        let (at, fields) = match k.as_str() {
            "metadata" => (0, OBJECT_META_FIELDS),
            "spec" => (1, POD_SPEC_FIELDS),
            _ => return false,
        };
        let ok = at >= next && v.as_object().is_some_and(|m| only(m, fields));
        next = at + 1;
        ok
    })
}

/// Whether every member of `m` is one of `fields` ([`copy_fields`] would
/// keep them all).
fn only(m: &Map<String, Value>, fields: &[&str]) -> bool {
    m.keys().all(|f| fields.contains(&f.as_str()))
}

fn check_fragment<'a>(
    e: &Expr,
    i: usize,
    f: FragmentField,
    v: Cow<'a, Value>,
) -> Result<Option<Cow<'a, Value>>> {
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
        return Err(conversion(e, i, &format!("{target} ({})", f.human()), &v));
    }
    Ok(Some(v))
}
