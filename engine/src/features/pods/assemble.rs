//! The pod template of a fragmented definition, assembled from its
//! fragments: once as a view of the fragments where they are (what the
//! resource requests read, without a copy), and as an owned template when
//! it is read or written out.
//!
//! The rule, in one place ([`containers`]): the main `container` replaces a
//! container of the same name in `containers` (or is put first); `image` and
//! the bare `resources` fragment apply to the main container when it lacks
//! them; without a main container the first container is the main one, and
//! with no container at all, one named `main` carries them.

use serde_json::{Map, Value};

use crate::resources::{Container, ResourceError, ResourceList, containers_request};

/// What the rule reads fragments from: an instance's
/// [`crate::Fragments`] (or, in the tests, a JSON object of them).
pub(crate) trait FragmentSource {
    /// The fragment of `field`, if one was extracted.
    fn fragment(&self, field: &str) -> Option<&Value>;
}

#[cfg(test)]
impl FragmentSource for Map<String, Value> {
    fn fragment(&self, field: &str) -> Option<&Value> {
        self.get(field)
    }
}

/// The main container of an assembled template.
pub(crate) struct MainContainer<'a> {
    /// The container it is made from (`container`, or the first of
    /// `containers`); `None`: a container named `main`.
    base: Option<&'a Map<String, Value>>,
    /// The `image` fragment.
    image: Option<&'a Value>,
    /// The `resources` fragment.
    resources: Option<&'a Value>,
}

impl<'a> MainContainer<'a> {
    /// Its `resources` member: the base container's own when it has one
    /// (even `null`), else the fragment's.
    pub(crate) fn resources(&self) -> Option<&'a Value> {
        match self.base {
            Some(b) if b.contains_key("resources") => b.get("resources"),
            _ => self.resources,
        }
    }

    /// The container as the template holds it.
    fn to_value(&self) -> Value {
        let mut c = match self.base {
            Some(b) => b.clone(),
            None => {
                let mut c = Map::with_capacity(3);
                c.insert("name".into(), Value::String("main".into()));
                c
            }
        };
        if let Some(img) = self.image {
            c.entry("image").or_insert_with(|| img.clone());
        }
        if let Some(r) = self.resources {
            c.entry("resources").or_insert_with(|| r.clone());
        }
        Value::Object(c)
    }
}

/// One container of an assembled template, in its order.
pub(crate) enum Part<'a, 'm> {
    /// One of `containers`, as it is.
    Given(&'a Value),
    /// The main container.
    Main(&'m MainContainer<'a>),
}

/// The containers of the template [`assemble`] makes of fragments `m`.
pub(crate) struct Containers<'a> {
    list: &'a [Value],
    /// The main container and where it goes: over the container at that
    /// index, or (`None`) before the others.
    main: Option<(MainContainer<'a>, Option<usize>)>,
}

impl<'a> Containers<'a> {
    /// The containers in the template's order.
    pub(crate) fn parts(&self) -> impl Iterator<Item = Part<'a, '_>> {
        let (main, at) = match &self.main {
            Some((m, at)) => (Some(m), *at),
            None => (None, None),
        };
        let first = match (main, at) {
            (Some(m), None) => Some(Part::Main(m)),
            _ => None,
        };
        first
            .into_iter()
            .chain(self.list.iter().enumerate().map(move |(i, v)| match main {
                Some(m) if at == Some(i) => Part::Main(m),
                _ => Part::Given(v),
            }))
    }

    /// How many there are.
    fn len(&self) -> usize {
        self.list.len() + usize::from(matches!(self.main, Some((_, None))))
    }
}

/// The containers of the template assembled from fragments `m`, read where
/// they are.
pub(crate) fn containers(m: &impl FragmentSource) -> Containers<'_> {
    let list = m
        .fragment("containers")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let mut base = m.fragment("container").and_then(Value::as_object);
    if base.is_none() && !(m.fragment("resources").is_some() || m.fragment("image").is_some()) {
        return Containers { list, main: None };
    }
    let mut first = false;
    if base.is_none() {
        // Without a main container the first container is the main one; with
        // no container at all, one named `main` carries the fragments.
        if let Some(f) = list.first().and_then(Value::as_object) {
            base = Some(f);
            first = true;
        }
    }
    let at = if first {
        Some(0)
    } else {
        match base {
            Some(b) => b
                .get("name")
                .and_then(|name| list.iter().position(|x| x.get("name") == Some(name))),
            None => list
                .iter()
                .position(|x| x.get("name").and_then(Value::as_str) == Some("main")),
        }
    };
    Containers {
        list,
        main: Some((
            MainContainer {
                base,
                image: m.fragment("image"),
                resources: m.fragment("resources"),
            },
            at,
        )),
    }
}

/// The requests of one pod of the template assembled from fragments `m`,
/// read where the fragments are: the assembled spec has no field the
/// requests read but its containers (tested against
/// [`crate::resources::pod_request`] of the assembled spec).
pub(crate) fn fragments_request(
    m: &impl FragmentSource,
) -> Result<ResourceList<'_>, ResourceError> {
    containers_request(containers(m).parts().map(|p| match p {
        Part::Given(c) => Container::Whole(c),
        Part::Main(c) => Container::Resources(c.resources()),
    }))
}

/// Assemble a pod template from fragments (the rule: [`containers`]).
pub(crate) fn assemble(m: &impl FragmentSource) -> Value {
    let mut spec = Map::new();
    for k in ["schedulerName", "priorityClassName"] {
        if let Some(v) = m.fragment(k) {
            spec.insert(k.into(), v.clone());
        }
    }
    let mut affinity = Map::new();
    for k in ["podAffinity", "nodeAffinity"] {
        if let Some(v) = m.fragment(k) {
            affinity.insert(k.into(), v.clone());
        }
    }
    if !affinity.is_empty() {
        spec.insert("affinity".into(), Value::Object(affinity));
    }
    if let Some(v) = m.fragment("resourceClaims") {
        spec.insert("resourceClaims".into(), v.clone());
    }
    let view = containers(m);
    if view.len() > 0 {
        let mut list = Vec::with_capacity(view.len());
        for part in view.parts() {
            list.push(match part {
                Part::Given(v) => v.clone(),
                Part::Main(c) => c.to_value(),
            });
        }
        spec.insert("containers".into(), Value::Array(list));
    }
    let mut meta = Map::new();
    for k in ["labels", "annotations"] {
        if let Some(v) = m.fragment(k) {
            meta.insert(k.into(), v.clone());
        }
    }
    let mut t = Map::with_capacity(2);
    t.insert("metadata".into(), Value::Object(meta));
    t.insert("spec".into(), Value::Object(spec));
    Value::Object(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// The containers as the assembly wrote them before the view (kept as
    /// the reference the view is checked against; the rest of the template
    /// did not change).
    fn reference(m: &Map<String, Value>) -> Vec<Value> {
        let mut containers: Vec<Value> = m
            .get("containers")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut main = m.get("container").and_then(Value::as_object).cloned();
        let mut main_is_first = false;
        if main.is_none() && (m.contains_key("resources") || m.contains_key("image")) {
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
        containers
    }

    /// A container: a name from a few (so that names collide), maybe none,
    /// maybe an image and resources of its own (maybe `null`); now and then
    /// not an object at all.
    fn container() -> impl Strategy<Value = Value> {
        let name = prop_oneof![
            Just(None),
            Just(Some(json!("main"))),
            Just(Some(json!("a"))),
            Just(Some(json!("b"))),
            Just(Some(json!(7))),
        ];
        let member = prop_oneof![
            Just(None),
            Just(Some(Value::Null)),
            Just(Some(json!({"requests": {"cpu": "1"}}))),
            Just(Some(
                json!({"limits": {"memory": "1Gi", "nvidia.com/gpu": 1}})
            )),
            Just(Some(json!({"requests": {"cpu": "-1"}}))),
            Just(Some(json!({"requests": {"cpu": "lots"}}))),
            Just(Some(json!("not resources"))),
        ];
        let image = prop_oneof![Just(None), Just(Some(json!("img:1")))];
        (name, member, image, 0u8..8).prop_map(|(name, res, image, odd)| {
            if odd == 0 {
                return json!("not a container");
            }
            let mut c = Map::new();
            if let Some(n) = name {
                c.insert("name".into(), n);
            }
            if let Some(i) = image {
                c.insert("image".into(), i);
            }
            if let Some(r) = res {
                c.insert("resources".into(), r);
            }
            Value::Object(c)
        })
    }

    /// Fragments: any subset of the fields, `container` and `containers`
    /// drawn from [`container`].
    fn fragments() -> impl Strategy<Value = Map<String, Value>> {
        (
            proptest::option::of(container()),
            proptest::option::of(proptest::collection::vec(container(), 0..4)),
            proptest::option::of(Just(json!("img:2"))),
            proptest::option::of(prop_oneof![
                Just(json!({"limits": {"nvidia.com/gpu": "2"}})),
                Just(json!({"requests": {"cpu": "500m"}, "limits": {"cpu": "1"}})),
                Just(json!({"requests": {"memory": "1Zi"}})),
            ]),
            proptest::option::of(Just(json!({"app": "x"}))),
            proptest::option::of(Just(json!("sched"))),
            proptest::option::of(Just(
                json!({"requiredDuringSchedulingIgnoredDuringExecution": {}}),
            )),
        )
            .prop_map(|(c, cs, image, res, labels, sched, aff)| {
                let mut m = Map::new();
                let mut put = |k: &str, v: Option<Value>| {
                    if let Some(v) = v {
                        m.insert(k.into(), v);
                    }
                };
                put("container", c);
                put("containers", cs.map(Value::Array));
                put("image", image);
                put("resources", res);
                put("labels", labels);
                put("schedulerName", sched);
                put("nodeAffinity", aff);
                m
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The view assembles what the reference assembles, and its main
        /// container's resources are the assembled container's.
        #[test]
        fn the_view_is_the_assembly(m in fragments()) {
            let listed = reference(&m);
            let want = (!listed.is_empty()).then(|| Value::Array(listed.clone()));
            // As text: maps compare equal whatever their keys' order.
            prop_assert_eq!(
                assemble(&m)["spec"].get("containers").map(Value::to_string),
                want.as_ref().map(Value::to_string)
            );
            let view = containers(&m);
            let got: Vec<Option<&Value>> = view
                .parts()
                .map(|p| match p {
                    Part::Given(v) => v.get("resources"),
                    Part::Main(c) => c.resources(),
                })
                .collect();
            let wanted: Vec<Option<&Value>> = listed.iter().map(|c| c.get("resources")).collect();
            prop_assert_eq!(got, wanted);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The requests read from the view are those of the assembled
        /// template's spec, errors and their paths included.
        #[test]
        fn the_views_requests_are_the_templates(m in fragments()) {
            use crate::resources::pod_request;
            let show = |r: Result<ResourceList<'_>, ResourceError>| {
                r.map(|l| {
                    l.iter()
                        .map(|(k, q)| format!("{k}={}", q.to_canonical_string()))
                        .collect::<Vec<_>>()
                })
                .map_err(|e| e.to_string())
            };
            let want = show(pod_request(&assemble(&m)["spec"]));
            let got = show(fragments_request(&m));
            prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn the_main_container_replaces_its_namesake_or_goes_first() {
        let m = json!({
            "container": {"name": "b", "image": "own"},
            "containers": [{"name": "a"}, {"name": "b", "image": "old"}],
            "image": "fragment",
            "resources": {"requests": {"cpu": "2"}},
        });
        let m = m.as_object().unwrap();
        assert_eq!(
            assemble(m)["spec"]["containers"],
            json!([{"name": "a"}, {"name": "b", "image": "own", "resources": {"requests": {"cpu": "2"}}}])
        );
        let m = json!({"containers": [{"name": "a"}], "container": {"name": "c"}});
        assert_eq!(
            assemble(m.as_object().unwrap())["spec"]["containers"],
            json!([{"name": "c"}, {"name": "a"}])
        );
        let m = json!({"image": "i"});
        assert_eq!(
            assemble(m.as_object().unwrap())["spec"]["containers"],
            json!([{"name": "main", "image": "i"}])
        );
    }
}
