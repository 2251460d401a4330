//! The effective resource request of a pod, as the Kubernetes scheduler
//! computes it.
//!
//! [`pod_request`] takes a `PodSpec` as plain JSON and returns the amount of
//! every resource the scheduler reserves for the pod, following
//! `PodRequests` in `k8s.io/component-helpers/resource` together with the
//! API server defaulting that runs before it:
//!
//! 1. **Per container**, the request of each resource is
//!    `resources.requests[name]`, or `resources.limits[name]` when the request
//!    is absent (`SetDefaults_Pod`). This applies to every resource name,
//!    including extended resources such as `nvidia.com/gpu`.
//! 2. **Regular containers** (`containers`) are summed.
//! 3. **Init containers** (`initContainers`) run one after another. A
//!    restartable init container (a *sidecar*, `restartPolicy: Always`) keeps
//!    running, so it is added both to the pod total and to a running sidecar
//!    sum. While init container *i* runs the pod needs its request plus the
//!    sidecars started before it (for a sidecar: the sidecar sum including
//!    itself). The pod request is, per resource, the maximum of those init
//!    phases and of `sum(containers) + sum(sidecars)` (KEP-753).
//! 4. **Pod-level resources** (`resources`, KEP-2837): for `cpu` and `memory`
//!    an explicit pod-level request replaces the container-derived value; a
//!    pod-level limit without a request is used only when no container
//!    requests that resource (otherwise the API server defaults the pod-level
//!    request to the container-derived value, which then stays). For
//!    `hugepages-*`, the pod-level request, or else the pod-level limit,
//!    replaces the container value. Other resource names are unaffected.
//! 5. **Overhead** (`overhead`, set by a RuntimeClass) is added at the end.
//!
//! Every quantity is read with [`Quantity::from_json`] and then rounded up to
//! a whole milli-unit, as the API server does to every `ResourceList` it
//! stores (`SetDefaults_ResourceList`), so `1500u` of CPU counts as `2m`.
//!
//! Missing fields may be absent or `null` anywhere; `null` is treated as
//! absent, including `null` entries inside a resource list. Values of the
//! wrong JSON type and invalid quantities are errors whose
//! [`path`](ResourceError::path) names the exact location relative to the
//! object given, e.g. `containers[1].resources.requests.cpu`.
//!
//! A negative quantity anywhere (a request, a limit, pod-level resources,
//! overhead) is such an error too, never summed: the API server rejects
//! the object (`must be greater than or equal to 0`), so a negative request
//! cannot cancel a positive one. GPUs, CPU, memory and ephemeral storage
//! are reported as unsigned 64-bit counts (see [`ResourceSummary`]): a pod
//! request of one of them that does not fit is an overflow error
//! ([`ResourceError::is_overflow`]) naming the quantity or the container
//! whose addition overflowed, never a clamped count.
//!
//! (The test `init_containers_and_sidecars_example` walks through an example.)

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::quantity::{Quantity, QuantityError};

pub(crate) use super::request_list::ResourceList;

/// The `cpu` resource name (quantities in cores).
pub(crate) const CPU: &str = "cpu";
/// The `memory` resource name (quantities in bytes).
pub(crate) const MEMORY: &str = "memory";
/// The `ephemeral-storage` resource name (quantities in bytes).
pub(crate) const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
/// The NVIDIA device plugin's whole-GPU resource name.
pub(crate) const NVIDIA_GPU: &str = "nvidia.com/gpu";
/// The prefix of huge page resource names (`hugepages-2Mi`, `hugepages-1Gi`).
pub(crate) const HUGEPAGES_PREFIX: &str = "hugepages-";

/// Why a pod spec or resource fragment could not be evaluated: where (a path
/// relative to the JSON value given) and what.
///
/// Displayed as `<path>: <message>`, or just the message when the path is
/// empty (the value given itself is wrong).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceError {
    /// Location of the offending value inside the JSON given, in the form
    /// `containers[1].resources.requests.cpu`; resource names that are not
    /// plain identifiers are quoted in brackets:
    /// `containers[0].resources.limits["nvidia.com/gpu"]`. Empty for the root.
    pub path: String,
    /// What is wrong, phrased for a person.
    pub message: String,
    /// An arithmetic overflow (a total that does not fit), rather than a
    /// value that is wrong in itself.
    overflow: bool,
}

impl ResourceError {
    fn new(path: impl Into<String>, message: impl Into<String>) -> ResourceError {
        ResourceError {
            path: path.into(),
            message: message.into(),
            overflow: false,
        }
    }

    fn overflow(path: impl Into<String>, message: impl Into<String>) -> ResourceError {
        ResourceError {
            overflow: true,
            ..ResourceError::new(path, message)
        }
    }

    /// Whether this is an arithmetic overflow of a total (the message then
    /// says "overflow"): the engine reports those with code `limit`, like
    /// every total that does not fit in 64 bits.
    pub fn is_overflow(&self) -> bool {
        self.overflow
    }
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ResourceError {}

/// The effective resource request of a pod (see the [module docs](self)).
///
/// `spec` is a `PodSpec` as JSON (the `spec` of a Pod, or the
/// `spec.template.spec` of a workload). `null` gives an empty list. Errors
/// carry a path relative to `spec`, such as
/// `initContainers[0].resources.limits.memory`; callers prepend their own
/// prefix.
///
/// Resources nobody asked for are absent from the result (not zero); a
/// resource explicitly requested as `0` is present with value zero.
pub(crate) fn pod_request(spec: &Value) -> Result<ResourceList<'_>, ResourceError> {
    let Some(spec) = as_object(Some(spec), P::Root, "a PodSpec object")? else {
        return Ok(ResourceList::new());
    };

    // Regular containers are summed.
    let containers = as_array(field(spec, "containers"), P::Root.key("containers"))?;
    let mut total = containers_request(containers.iter().map(Container::Whole))?;

    // Init containers, with restartable ("sidecar") init containers that keep
    // running alongside everything started after them.
    let mut sidecars = ResourceList::new();
    let mut init_peak = ResourceList::new();
    let init = P::Root.key("initContainers");
    for (i, container) in as_array(field(spec, "initContainers"), init)?
        .iter()
        .enumerate()
    {
        let path = init.nth(i);
        let requests = container_requests(container, path)?;
        // The peak is never below the sidecars' sum (it takes their sum
        // after each sidecar, and quantities are not negative): only the
        // names this container asks for can raise it, so a container costs
        // its own names, not every sidecar name before it.
        if is_sidecar(container, path)? {
            add_into(&mut total, &requests, path)?;
            add_into(&mut sidecars, &requests, path)?;
            for (name, _) in requests.iter() {
                if let Some(sum) = sidecars.get(name) {
                    raise(&mut init_peak, name, sum);
                }
            }
        } else {
            // While it runs: its requests plus the sidecars started before it.
            for (name, quantity) in requests.iter() {
                let running = match sidecars.get(name) {
                    Some(s) => sum_of(quantity, s, name, path)?,
                    None => quantity.clone(),
                };
                raise(&mut init_peak, name, &running);
            }
        }
    }
    max_into(&mut total, &init_peak);

    // Pod-level resources override the container-derived cpu/memory/hugepages.
    let resources = P::Root.key("resources");
    if let Some(pod_resources) = as_object(
        field(spec, "resources"),
        resources,
        "a ResourceRequirements object",
    )? {
        let requests = resource_list(field(pod_resources, "requests"), resources.key("requests"))?;
        let limits = resource_list(field(pod_resources, "limits"), resources.key("limits"))?;
        apply_pod_level(&mut total, &requests, &limits)?;
    }

    // Pod overhead (RuntimeClass) comes on top.
    let overhead = P::Root.key("overhead");
    let list = resource_list(field(spec, "overhead"), overhead)?;
    add_into(&mut total, &list, overhead)?;

    Ok(total)
}

/// A container whose requests are read: its object, or only its
/// `resources` member (a container assembled from fragments, read where
/// its parts are).
pub(crate) enum Container<'a> {
    /// A container object (or whatever stands in its place).
    Whole(&'a Value),
    /// The `resources` member of a container object.
    Resources(Option<&'a Value>),
}

/// The sum of the requests of a pod's regular containers (`containers`):
/// [`pod_request`] of a spec that has no other field. Error paths are those
/// of the spec (`containers[1].resources.requests.cpu`).
pub(crate) fn containers_request<'a>(
    containers: impl Iterator<Item = Container<'a>>,
) -> Result<ResourceList<'a>, ResourceError> {
    let mut total = ResourceList::new();
    let at = P::Root.key("containers");
    for (i, container) in containers.enumerate() {
        let path = at.nth(i);
        let requests = match container {
            Container::Whole(c) => container_requests(c, path)?,
            Container::Resources(r) => {
                requirements(r.filter(|v| !v.is_null()), path.key("resources"))?
            }
        };
        add_into(&mut total, &requests, path)?;
    }
    Ok(total)
}

/// The effective request of a bare `ResourceRequirements` object
/// (`{"requests": …, "limits": …, "claims": …}`): each resource's request,
/// or its limit when the request is absent.
///
/// Meant for pod templates that only give a resources fragment. `null` gives
/// an empty list; error paths are relative to `resources` (e.g.
/// `limits.memory`). Quantities are rounded up to milli precision like in
/// [`pod_request`].
///
#[cfg(test)]
pub(crate) fn container_request(resources: &Value) -> Result<ResourceList<'_>, ResourceError> {
    requirements(Some(resources), P::Root)
}

/// A pod's (or a group of pods') resources reduced to the numbers a report
/// shows.
///
/// Serialized in camelCase (`cpuMillis`, `memoryBytes`, …); `extended` is
/// left out when empty and otherwise maps names to canonical quantity
/// strings.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResourceSummary {
    /// Whole NVIDIA GPUs (`nvidia.com/gpu`), rounded up.
    pub gpu: u64,
    /// CPU in millicores, rounded up.
    pub cpu_millis: u64,
    /// Memory in bytes, rounded up.
    pub memory_bytes: u64,
    /// Ephemeral storage in bytes, rounded up.
    pub ephemeral_storage_bytes: u64,
    /// Every other resource name, exactly: MIG slices such as
    /// `nvidia.com/mig-1g.5gb`, `amd.com/gpu`, `rdma/ib`, `hugepages-2Mi`, …
    /// Entries explicitly requested as zero are kept.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extended: BTreeMap<String, Quantity>,
}

/// What the number of an amount counts (see [`AMOUNT_FIELDS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum AmountUnit {
    /// Thousandths of a CPU core.
    Millicores,
    /// Bytes (memory, storage).
    Bytes,
}

impl AmountUnit {
    /// The amount for people, by the engine's one rule
    /// ([`crate::human_cpu`], [`crate::human_memory`]): `26.5`, `1.9Gi`.
    pub fn human(self, n: u64) -> String {
        match self {
            AmountUnit::Millicores => crate::human::cpu(n),
            AmountUnit::Bytes => crate::human::memory(n),
        }
    }

    /// `millicores` or `bytes`.
    pub fn as_str(self) -> &'static str {
        match self {
            AmountUnit::Millicores => "millicores",
            AmountUnit::Bytes => "bytes",
        }
    }
}

/// The fields of the engine's results that hold an amount, with its unit:
/// the counts of a [`ResourceSummary`] (in `Resolved`: every instance's
/// `resources` and `podResources`, every component's and the workload's
/// `totals.resources`; in an `Attribution`, each pod's). A front end that
/// writes amounts for people finds them by these names
/// ([`amount_unit`], [`crate::human_amounts`]) rather than by rules of its
/// own. `gpu` is a count of devices, not an amount; `extended` holds
/// quantities as Kubernetes writes them.
pub const AMOUNT_FIELDS: [(&str, AmountUnit); 3] = [
    ("cpuMillis", AmountUnit::Millicores),
    ("memoryBytes", AmountUnit::Bytes),
    ("ephemeralStorageBytes", AmountUnit::Bytes),
];

/// The unit of the amount a result field holds (`cpuMillis`:
/// millicores); `None` when the field does not hold one.
///
/// ```
/// use workload_lens::{AmountUnit, amount_unit};
/// assert_eq!(amount_unit("memoryBytes"), Some(AmountUnit::Bytes));
/// assert_eq!(amount_unit("gpu"), None);
/// ```
pub fn amount_unit(field: &str) -> Option<AmountUnit> {
    AMOUNT_FIELDS
        .iter()
        .find_map(|&(name, unit)| (name == field).then_some(unit))
}

/// Every amount of a value, written for people (see [`human_amounts`]):
/// per unit, each number met and its text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct HumanAmounts {
    /// Millicores and their cores (`26500`: `26.5`).
    pub millicores: BTreeMap<u64, String>,
    /// Bytes and their binary units (`2000000000`: `1.9Gi`).
    pub bytes: BTreeMap<u64, String>,
}

/// Every amount in a value (an engine result as JSON: a `Resolved`, an
/// `Attribution`, several of them in an array), written for people: each
/// number held by a field of [`AMOUNT_FIELDS`], at any depth, by its unit.
/// The results keep their exact numbers; a front end shows these texts
/// (the playground's cards and tables, as the CLI's tables write them).
///
/// Linear in the value, without recursion: one visit per node (a value a
/// binding read within `maxInputNodes` and `maxDepth`), one entry per
/// distinct amount.
///
/// ```
/// use workload_lens::human_amounts;
/// let r = serde_json::json!({"totals": {"resources": {"gpu": 4, "cpuMillis": 26500, "memoryBytes": 2000000000u64}}});
/// let h = human_amounts(&r);
/// assert_eq!(h.millicores[&26500], "26.5");
/// assert_eq!(h.bytes[&2_000_000_000], "1.9Gi");
/// ```
pub fn human_amounts(value: &Value) -> HumanAmounts {
    let mut out = HumanAmounts::default();
    let mut todo = vec![value];
    while let Some(v) = todo.pop() {
        match v {
            Value::Array(items) => todo.extend(items),
            Value::Object(members) => {
                for (k, x) in members {
                    match (amount_unit(k), x.as_u64()) {
                        (Some(unit), Some(n)) => {
                            let texts = match unit {
                                AmountUnit::Millicores => &mut out.millicores,
                                AmountUnit::Bytes => &mut out.bytes,
                            };
                            texts.entry(n).or_insert_with(|| unit.human(n));
                        }
                        _ => todo.push(x),
                    }
                }
            }
            _ => {}
        }
    }
    out
}

impl ResourceSummary {
    /// Summarizes a resource list: `nvidia.com/gpu`, `cpu`, `memory` and
    /// `ephemeral-storage` become rounded-up integer counts; every other
    /// name is copied to [`extended`](ResourceSummary::extended).
    ///
    /// A list from [`pod_request`] always fits (it refuses negative
    /// quantities and counts beyond `u64::MAX`). For any other list, see
    /// [`try_from_list`](ResourceSummary::try_from_list): here a negative
    /// value counts as zero and one beyond `u64::MAX` as `u64::MAX`.
    pub fn from_list(list: &BTreeMap<String, Quantity>) -> ResourceSummary {
        Self::summarize(
            list.iter().map(|(k, q)| (k.as_str(), q)),
            |name, quantity| {
                Ok(match name {
                    CPU => quantity.milli_ceil_u64(),
                    _ => quantity.ceil_to_u64(),
                })
            },
        )
        .unwrap_or_default()
    }

    /// Like [`from_list`](ResourceSummary::from_list), never clamping: a
    /// negative count is an error, and a count beyond `u64::MAX` an
    /// overflow error ([`ResourceError::is_overflow`]); the path names the
    /// resource.
    pub fn try_from_list(
        list: &BTreeMap<String, Quantity>,
    ) -> Result<ResourceSummary, ResourceError> {
        Self::try_from_entries(list.iter().map(|(k, q)| (k.as_str(), q)))
    }

    /// [`try_from_list`](ResourceSummary::try_from_list) of a pod's
    /// requests as summed.
    pub(crate) fn try_from_requests(
        list: &ResourceList<'_>,
    ) -> Result<ResourceSummary, ResourceError> {
        Self::try_from_entries(list.iter())
    }

    fn try_from_entries<'q>(
        entries: impl Iterator<Item = (&'q str, &'q Quantity)>,
    ) -> Result<ResourceSummary, ResourceError> {
        Self::summarize(entries, |name, quantity| {
            // The path is spelled only for the error.
            count_of(quantity, name).or_else(|_| count(quantity, name, &child("", name)))
        })
    }

    fn summarize<'q>(
        entries: impl Iterator<Item = (&'q str, &'q Quantity)>,
        count: impl Fn(&str, &Quantity) -> Result<u64, ResourceError>,
    ) -> Result<ResourceSummary, ResourceError> {
        let mut summary = ResourceSummary::default();
        for (name, quantity) in entries {
            match name {
                NVIDIA_GPU => summary.gpu = count(name, quantity)?,
                CPU => summary.cpu_millis = count(name, quantity)?,
                MEMORY => summary.memory_bytes = count(name, quantity)?,
                EPHEMERAL_STORAGE => summary.ephemeral_storage_bytes = count(name, quantity)?,
                _ => {
                    summary.extended.insert(name.to_owned(), quantity.clone());
                }
            }
        }
        Ok(summary)
    }

    /// Every amount multiplied by `n` (e.g. per-pod resources times the
    /// replica count), with checked arithmetic: an overflow is an error
    /// whose path names the field (`cpuMillis`, `extended["rdma/ib"]`, …).
    pub fn times(&self, n: u64) -> Result<ResourceSummary, ResourceError> {
        let mul = |field: &str, value: u64| {
            value.checked_mul(n).ok_or_else(|| {
                ResourceError::overflow(
                    field,
                    format!(
                        "{field} overflow: {value} * {n} does not fit in an unsigned 64-bit count"
                    ),
                )
            })
        };
        let mut extended = BTreeMap::new();
        for (name, quantity) in &self.extended {
            let product = quantity.mul_u64(n).map_err(|e| {
                ResourceError::overflow(child("extended", name), format!("{name:?}: {e}"))
            })?;
            extended.insert(name.clone(), product);
        }
        Ok(ResourceSummary {
            gpu: mul("gpu", self.gpu)?,
            cpu_millis: mul("cpuMillis", self.cpu_millis)?,
            memory_bytes: mul("memoryBytes", self.memory_bytes)?,
            ephemeral_storage_bytes: mul("ephemeralStorageBytes", self.ephemeral_storage_bytes)?,
            extended,
        })
    }

    /// The field-wise sum of two summaries, with checked arithmetic;
    /// `extended` is the union of both maps, adding quantities present in
    /// both.
    pub fn plus(&self, other: &ResourceSummary) -> Result<ResourceSummary, ResourceError> {
        let add = |field: &str, a: u64, b: u64| {
            a.checked_add(b).ok_or_else(|| {
                ResourceError::overflow(
                    field,
                    format!("{field} overflow: {a} + {b} does not fit in an unsigned 64-bit count"),
                )
            })
        };
        let mut extended = self.extended.clone();
        for (name, quantity) in &other.extended {
            let sum = match extended.get(name) {
                Some(existing) => existing.add(quantity).map_err(|e| {
                    ResourceError::overflow(child("extended", name), format!("{name:?}: {e}"))
                })?,
                None => quantity.clone(),
            };
            extended.insert(name.clone(), sum);
        }
        Ok(ResourceSummary {
            gpu: add("gpu", self.gpu, other.gpu)?,
            cpu_millis: add("cpuMillis", self.cpu_millis, other.cpu_millis)?,
            memory_bytes: add("memoryBytes", self.memory_bytes, other.memory_bytes)?,
            ephemeral_storage_bytes: add(
                "ephemeralStorageBytes",
                self.ephemeral_storage_bytes,
                other.ephemeral_storage_bytes,
            )?,
            extended,
        })
    }
}

/// The effective requests of one container (`null` is an empty container).
fn container_requests<'a>(
    container: &'a Value,
    path: P,
) -> Result<ResourceList<'a>, ResourceError> {
    match as_object(Some(container), path, "a container object")? {
        Some(container) => requirements(field(container, "resources"), path.key("resources")),
        None => Ok(ResourceList::new()),
    }
}

/// Requests of a `ResourceRequirements` object, defaulted from its limits.
fn requirements<'a>(
    resources: Option<&'a Value>,
    path: P,
) -> Result<ResourceList<'a>, ResourceError> {
    let Some(resources) = as_object(resources, path, "a ResourceRequirements object")? else {
        return Ok(ResourceList::new());
    };
    let requests_path = path.key("requests");
    let limits_path = path.key("limits");
    let mut requests = resource_list(field(resources, "requests"), requests_path)?;
    let limits = resource_list(field(resources, "limits"), limits_path)?;
    // Every effective request is summed or compared: it must fit its count.
    for (name, request) in requests.iter() {
        fits(request, name, || requests_path.key(name).render())?;
    }
    for (name, limit) in limits.iter() {
        if !requests.contains_key(name) {
            fits(limit, name, || limits_path.key(name).render())?;
            requests.insert(name, limit.clone());
        }
    }
    Ok(requests)
}

/// Whether an init container is restartable (`restartPolicy: Always`).
fn is_sidecar(container: &Value, path: P) -> Result<bool, ResourceError> {
    let Value::Object(container) = container else {
        return Ok(false);
    };
    match field(container, "restartPolicy") {
        None => Ok(false),
        Some(Value::String(policy)) => Ok(policy == "Always"),
        Some(other) => Err(ResourceError::new(
            path.key("restartPolicy").render(),
            format!(
                "expected a string (\"Always\" for a sidecar), found {}",
                json_type(other)
            ),
        )),
    }
}

/// Reads a `ResourceList` object, skipping `null` entries and rounding every
/// quantity up to milli precision like the API server.
fn resource_list<'a>(value: Option<&'a Value>, path: P) -> Result<ResourceList<'a>, ResourceError> {
    let mut list = ResourceList::new();
    let Some(map) = as_object(
        value,
        path,
        "a resource list object (resource name to quantity)",
    )?
    else {
        return Ok(list);
    };
    for (name, raw) in map {
        if raw.is_null() {
            continue;
        }
        let quantity = Quantity::from_json(raw)
            .map_err(|e| ResourceError::new(path.key(name).render(), e.to_string()))?;
        if quantity.is_negative() {
            return Err(ResourceError::new(
                path.key(name).render(),
                format!(
                    "negative quantity {}: {name} must be zero or more (Kubernetes rejects \
                     negative resource quantities)",
                    quantity.to_canonical_string()
                ),
            ));
        }
        list.insert(name, quantity.round_up_to_milli());
    }
    Ok(list)
}

/// Applies pod-level requests and limits (see the module docs, step 4).
fn apply_pod_level<'a>(
    total: &mut ResourceList<'a>,
    requests: &ResourceList<'a>,
    limits: &ResourceList<'a>,
) -> Result<(), ResourceError> {
    for (name, limit) in limits.iter() {
        if !is_pod_level_resource(name) || requests.contains_key(name) {
            continue;
        }
        // cpu and memory: the request defaults to the container aggregate when
        // containers ask for the resource, and to the limit otherwise.
        // Huge pages cannot be overcommitted: the request defaults to the limit.
        if name.starts_with(HUGEPAGES_PREFIX) || !total.contains_key(name) {
            fits(limit, name, || child("resources.limits", name))?;
            total.insert(name, limit.clone());
        }
    }
    for (name, request) in requests.iter() {
        if is_pod_level_resource(name) {
            fits(request, name, || child("resources.requests", name))?;
            total.insert(name, request.clone());
        }
    }
    Ok(())
}

/// The count a summary reports for resource `name` (whole GPUs, CPU
/// millicores, bytes), or an error at `path`: the quantity is negative, or
/// the count does not fit in a `u64` (an overflow). Other resources are
/// kept as exact quantities and count as 0 here.
fn count(quantity: &Quantity, name: &str, path: &str) -> Result<u64, ResourceError> {
    count_of(quantity, name).map_err(|e| {
        if quantity.is_negative() {
            ResourceError::new(path, format!("{name}: {e}"))
        } else {
            ResourceError::overflow(path, format!("{name}: {e}"))
        }
    })
}

/// [`count`] without a path.
fn count_of(quantity: &Quantity, name: &str) -> Result<u64, QuantityError> {
    match name {
        CPU => quantity.checked_milli_ceil_u64(),
        NVIDIA_GPU | MEMORY | EPHEMERAL_STORAGE => quantity.checked_ceil_u64(),
        _ => Ok(0),
    }
}

/// [`count`] as a check.
/// (The path is spelled only for the error: most quantities fit.)
fn fits(
    quantity: &Quantity,
    name: &str,
    path: impl FnOnce() -> String,
) -> Result<(), ResourceError> {
    match count_of(quantity, name) {
        Ok(_) => Ok(()),
        Err(_) => count(quantity, name, &path()).map(|_| ()),
    }
}

/// Resources that pod-level `resources` govern.
fn is_pod_level_resource(name: &str) -> bool {
    name == CPU || name == MEMORY || name.starts_with(HUGEPAGES_PREFIX)
}

/// `total += list`, per resource name.
fn add_into<'a>(
    total: &mut ResourceList<'a>,
    list: &ResourceList<'a>,
    path: P,
) -> Result<(), ResourceError> {
    for (name, quantity) in list.iter() {
        let sum = match total.get(name) {
            Some(existing) => sum_of(existing, quantity, name, path)?,
            None => quantity.clone(),
        };
        total.insert(name, sum);
    }
    Ok(())
}

/// `a + b` of resource `name`, which must fit its count (an overflow error
/// at `path` otherwise).
fn sum_of(a: &Quantity, b: &Quantity, name: &str, path: P) -> Result<Quantity, ResourceError> {
    let overflow =
        |e: QuantityError| ResourceError::overflow(path.render(), format!("summing {name:?}: {e}"));
    let sum = a.add(b).map_err(overflow)?;
    count_of(&sum, name).map_err(overflow)?;
    Ok(sum)
}

/// `total[name] = max(total[name], quantity)` (a tie keeps `total`'s).
fn raise<'a>(total: &mut ResourceList<'a>, name: &'a str, quantity: &Quantity) {
    match total.get_mut(name) {
        Some(existing) => *existing = existing.max_with(quantity),
        None => total.insert(name, quantity.clone()),
    }
}

/// `total = max(total, list)`, per resource name (ties keep `total`'s entry).
fn max_into<'a>(total: &mut ResourceList<'a>, list: &ResourceList<'a>) {
    for (name, quantity) in list.iter() {
        raise(total, name, quantity);
    }
}

/// A field of an object, with `null` treated as absent.
fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    crate::budget::member(object, key).filter(|v| !v.is_null())
}

/// An optional object: absent or `null` is `None`, another type an error.
fn as_object<'a>(
    value: Option<&'a Value>,
    path: P,
    expected: &str,
) -> Result<Option<&'a Map<String, Value>>, ResourceError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(ResourceError::new(
            path.render(),
            format!("expected {expected}, found {}", json_type(other)),
        )),
    }
}

/// An optional array: absent or `null` is empty, another type an error.
fn as_array<'a>(value: Option<&'a Value>, path: P) -> Result<&'a [Value], ResourceError> {
    match value {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(other) => Err(ResourceError::new(
            path.render(),
            format!(
                "expected an array of containers, found {}",
                json_type(other)
            ),
        )),
    }
}

/// A path in a pod spec, spelled only for an error (most specs have none):
/// `containers[1].resources.limits["nvidia.com/gpu"]`.
#[derive(Clone, Copy)]
enum P<'a> {
    Root,
    Key(&'a P<'a>, &'a str),
    Index(&'a P<'a>, usize),
}

impl<'a> P<'a> {
    fn key(&'a self, key: &'a str) -> P<'a> {
        P::Key(self, key)
    }

    fn nth(&'a self, i: usize) -> P<'a> {
        P::Index(self, i)
    }

    fn render(&self) -> String {
        match self {
            P::Root => String::new(),
            P::Key(parent, key) => child(&parent.render(), key),
            P::Index(parent, i) => index(&parent.render(), *i),
        }
    }
}

/// `path.key`, or `path["key"]` when the key is not an identifier: the one
/// path spelling ([`crate::source::path_push_key`]).
fn child(path: &str, key: &str) -> String {
    crate::source::path_push_key(path, key)
}

/// `path[i]`.
fn index(path: &str, i: usize) -> String {
    crate::source::path_push_index(path, i)
}

/// The JSON type of a value, with an article, for error messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_containers_and_sidecars_example() {
        use serde_json::json;

        let spec = json!({
            "initContainers": [
                {"name": "proxy", "restartPolicy": "Always",
                 "resources": {"requests": {"cpu": "500m", "memory": "256Mi"}}},
                {"name": "download", "resources": {"limits": {"cpu": "4", "memory": "1Gi"}}}
            ],
            "containers": [
                {"name": "train", "resources": {
                    "requests": {"cpu": "2", "memory": "8Gi"},
                    "limits": {"nvidia.com/gpu": 4}}}
            ]
        });
        let request = pod_request(&spec).unwrap();
        // cpu: max(4 + 0.5 while downloading, 2 + 0.5 while training)
        assert_eq!(request.get("cpu").unwrap().to_canonical_string(), "4500m");
        assert_eq!(
            request.get("memory").unwrap().to_canonical_string(),
            "8448Mi"
        );
        assert_eq!(
            request.get("nvidia.com/gpu").unwrap().to_canonical_string(),
            "4"
        );

        let summary = ResourceSummary::from_list(&owned(&request))
            .times(2)
            .unwrap();
        assert_eq!(summary.gpu, 8);
        assert_eq!(summary.cpu_millis, 9000);
    }
    use serde_json::json;

    /// The list as the public map.
    fn owned(list: &ResourceList<'_>) -> BTreeMap<String, Quantity> {
        list.iter()
            .map(|(k, q)| (k.to_owned(), q.clone()))
            .collect()
    }

    fn request(spec: Value) -> BTreeMap<String, String> {
        match pod_request(&spec) {
            Ok(list) => list
                .iter()
                .map(|(k, v)| (k.to_owned(), v.to_canonical_string()))
                .collect(),
            Err(e) => panic!("unexpected error: {e}"),
        }
    }

    fn error(spec: Value) -> ResourceError {
        match pod_request(&spec) {
            Ok(list) => panic!("expected an error, got {list:?}"),
            Err(e) => e,
        }
    }

    fn list(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn container(resources: Value) -> Value {
        json!({"name": "c", "image": "busybox", "resources": resources})
    }

    fn sidecar(resources: Value) -> Value {
        json!({"name": "s", "restartPolicy": "Always", "resources": resources})
    }

    fn cpu_mem(cpu: &str, memory: &str) -> Value {
        json!({"requests": {"cpu": cpu, "memory": memory}})
    }

    #[test]
    fn plain_containers_are_summed() {
        let spec = json!({"containers": [
            container(cpu_mem("500m", "1Gi")),
            container(cpu_mem("1", "512Mi")),
            container(json!({"requests": {"cpu": 0.25, "ephemeral-storage": "10G"}})),
        ]});
        assert_eq!(
            request(spec),
            list(&[
                ("cpu", "1750m"),
                ("memory", "1536Mi"),
                ("ephemeral-storage", "10G")
            ])
        );
    }

    #[test]
    fn requests_default_to_limits() {
        let spec = json!({"containers": [
            container(json!({"limits": {"cpu": "2", "memory": "4Gi"}})),
            container(json!({
                "requests": {"cpu": "1"},
                "limits": {"cpu": "2", "memory": "2Gi", "example.com/foo": "3"}
            })),
            // An empty requests object still defaults from limits.
            container(json!({"requests": {}, "limits": {"cpu": "500m"}})),
        ]});
        assert_eq!(
            request(spec),
            list(&[
                ("cpu", "3500m"),
                ("memory", "6Gi"),
                ("example.com/foo", "3")
            ])
        );
    }

    #[test]
    fn larger_init_container_dominates() {
        let spec = json!({
            "initContainers": [
                container(cpu_mem("4", "512Mi")),
                container(cpu_mem("500m", "3Gi")),
            ],
            "containers": [container(cpu_mem("1", "1Gi")), container(cpu_mem("1", "1Gi"))],
        });
        // cpu: max(4, 0.5, 1+1) = 4; memory: max(512Mi, 3Gi, 2Gi) = 3Gi.
        assert_eq!(request(spec), list(&[("cpu", "4"), ("memory", "3Gi")]));
    }

    #[test]
    fn init_containers_do_not_add_up() {
        let spec = json!({
            "initContainers": [container(cpu_mem("2", "1Gi")), container(cpu_mem("3", "1Gi"))],
            "containers": [container(cpu_mem("1", "256Mi"))],
        });
        assert_eq!(request(spec), list(&[("cpu", "3"), ("memory", "1Gi")]));
    }

    #[test]
    fn sidecars_follow_kep_753() {
        let spec = json!({
            "initContainers": [
                sidecar(cpu_mem("1", "1Gi")),        // istio
                container(cpu_mem("3", "512Mi")),    // migrate
                sidecar(cpu_mem("500m", "256Mi")),   // log shipper
                container(cpu_mem("2", "3Gi")),      // warm cache
            ],
            "containers": [container(cpu_mem("2", "2Gi"))],
        });
        // InitContainerUse(migrate) = 3 + 1 = 4 cpu, 512Mi + 1Gi = 1536Mi.
        // InitContainerUse(warm)    = 2 + 1.5 = 3.5 cpu, 3Gi + 1280Mi = 4352Mi.
        // Steady state = containers + sidecars = 3.5 cpu, 2Gi + 1280Mi = 3328Mi.
        // Pod request = max of all: cpu 4, memory 4352Mi.
        assert_eq!(request(spec), list(&[("cpu", "4"), ("memory", "4352Mi")]));
    }

    /// The init containers' peak as it was first written: every sidecar
    /// name compared after every container (quadratic in sidecar names).
    fn init_peak_reference(spec: &Value) -> Result<Vec<(String, String)>, String> {
        let run = || -> Result<ResourceList<'_>, ResourceError> {
            let containers = as_array(spec.get("containers"), P::Root.key("containers"))?;
            let mut total = containers_request(containers.iter().map(Container::Whole))?;
            let (mut sidecars, mut init_peak) = (ResourceList::new(), ResourceList::new());
            let init = P::Root.key("initContainers");
            for (i, container) in as_array(spec.get("initContainers"), init)?
                .iter()
                .enumerate()
            {
                let path = init.nth(i);
                let requests = container_requests(container, path)?;
                if is_sidecar(container, path)? {
                    add_into(&mut total, &requests, path)?;
                    add_into(&mut sidecars, &requests, path)?;
                    max_into(&mut init_peak, &sidecars);
                } else {
                    let mut running = requests;
                    add_into(&mut running, &sidecars, path)?;
                    max_into(&mut init_peak, &running);
                }
            }
            max_into(&mut total, &init_peak);
            Ok(total)
        };
        shown(run())
    }

    fn shown(r: Result<ResourceList<'_>, ResourceError>) -> Result<Vec<(String, String)>, String> {
        r.map(|l| {
            l.iter()
                .map(|(k, q)| (k.to_owned(), q.to_canonical_string()))
                .collect()
        })
        .map_err(|e| e.to_string())
    }

    fn init_spec() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let name = proptest::sample::select(
            &["cpu", "memory", "nvidia.com/gpu", "a", "hugepages-2Mi"][..],
        );
        let quantity = proptest::sample::select(
            &[
                "0",
                "1",
                "500m",
                "1Gi",
                "1073741824",
                "9e18",
                "18446744073709551615",
                "1e19",
            ][..],
        );
        let list = proptest::collection::btree_map(name, quantity, 0..4);
        let container = (any::<bool>(), list.clone(), list).prop_map(|(sidecar, req, lim)| {
            let mut c = json!({"name": "c", "resources": {"requests": req, "limits": lim}});
            if sidecar {
                c["restartPolicy"] = json!("Always");
            }
            c
        });
        (
            proptest::collection::vec(container.clone(), 0..3),
            proptest::collection::vec(container, 0..8),
        )
            .prop_map(|(c, i)| json!({"containers": c, "initContainers": i}))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The peak read on the names each init container asks for is the
        /// peak over every name: the same requests, the same errors.
        #[test]
        fn init_peaks_on_own_names_are_the_peaks_on_all(spec in init_spec()) {
            proptest::prop_assert_eq!(shown(pod_request(&spec)), init_peak_reference(&spec));
        }
    }

    /// 20,000 sidecars, each naming a resource of its own: the peak is
    /// raised on each one's names only (the reference above compares
    /// every name so far after each, 200 million comparisons).
    #[test]
    fn many_sidecars_with_names_of_their_own_are_summed_once_each() {
        let n = 20_000;
        let init: Vec<Value> = (0..n)
            .map(|i| {
                json!({"name": format!("s{i}"), "restartPolicy": "Always",
                       "resources": {"requests": {format!("example.com/r{i}"): "1", "cpu": "1m"}}})
            })
            .collect();
        let spec = json!({"containers": [container(cpu_mem("1", "1Gi"))], "initContainers": init});
        let total = pod_request(&spec).unwrap();
        assert_eq!(total.get("cpu").unwrap().to_canonical_string(), "21");
        assert_eq!(total.iter().count(), n + 2);
    }

    #[test]
    fn sidecar_position_matters() {
        let before = json!({
            "initContainers": [sidecar(json!({"requests": {"cpu": "1"}})),
                               container(json!({"requests": {"cpu": "3500m"}}))],
            "containers": [container(json!({"requests": {"cpu": "3"}}))],
        });
        let after = json!({
            "initContainers": [container(json!({"requests": {"cpu": "3500m"}})),
                               sidecar(json!({"requests": {"cpu": "1"}}))],
            "containers": [container(json!({"requests": {"cpu": "3"}}))],
        });
        // Before: the init container runs next to the sidecar: 3.5 + 1 = 4.5.
        assert_eq!(request(before), list(&[("cpu", "4500m")]));
        // After: it runs alone (3.5); the steady state is 3 + 1 = 4.
        assert_eq!(request(after), list(&[("cpu", "4")]));
    }

    #[test]
    fn sidecar_only_pod_and_sidecar_peak() {
        // A sidecar's own phase counts too: sidecars [2, 3] with no other
        // containers need 5 once both run.
        let spec = json!({"initContainers": [
            sidecar(json!({"requests": {"cpu": "2"}})),
            sidecar(json!({"limits": {"cpu": "3", "nvidia.com/gpu": 1}})),
        ]});
        assert_eq!(
            request(spec),
            list(&[("cpu", "5"), ("nvidia.com/gpu", "1")])
        );
        // Resources only sidecars ask for still count while a later init runs.
        let spec = json!({"initContainers": [
            sidecar(json!({"requests": {"memory": "1Gi"}})),
            container(json!({"requests": {"cpu": "1"}})),
        ]});
        assert_eq!(request(spec), list(&[("cpu", "1"), ("memory", "1Gi")]));
    }

    #[test]
    fn other_restart_policies_are_plain_init_containers() {
        let spec = json!({
            "initContainers": [
                {"restartPolicy": "OnFailure", "resources": {"requests": {"cpu": "1"}}},
                {"restartPolicy": null, "resources": {"requests": {"cpu": "1"}}},
            ],
            "containers": [container(json!({"requests": {"cpu": "1"}}))],
        });
        assert_eq!(request(spec), list(&[("cpu", "1")]));
    }

    #[test]
    fn pod_level_requests_replace_cpu_and_memory() {
        let spec = json!({
            "resources": {
                "requests": {"cpu": "8", "nvidia.com/gpu": "4"},
                "limits": {"memory": "16Gi"}
            },
            "containers": [container(json!({
                "requests": {"cpu": "1", "memory": "2Gi"},
                "limits": {"nvidia.com/gpu": "1"}
            }))],
        });
        // cpu: the pod-level request wins. memory: only a pod-level limit and
        // containers request memory, so the API server defaults the pod-level
        // request to the container aggregate (2Gi). GPUs are not pod-level.
        assert_eq!(
            request(spec),
            list(&[("cpu", "8"), ("memory", "2Gi"), ("nvidia.com/gpu", "1")])
        );
    }

    #[test]
    fn pod_level_limits_apply_when_containers_do_not_ask() {
        let spec = json!({
            "resources": {"limits": {"cpu": "4", "memory": "8Gi"}},
            "containers": [
                container(json!({"limits": {"nvidia.com/gpu": 2}})),
                {"name": "no-resources"},
            ],
        });
        assert_eq!(
            request(spec),
            list(&[("cpu", "4"), ("memory", "8Gi"), ("nvidia.com/gpu", "2")])
        );
    }

    #[test]
    fn pod_level_hugepages() {
        let spec = json!({
            "resources": {"limits": {"hugepages-2Mi": "1Gi", "memory": "4Gi"}},
            "containers": [container(json!({
                "limits": {"hugepages-2Mi": "512Mi", "memory": "1Gi"}
            }))],
        });
        // Huge pages cannot be overcommitted: the pod-level limit becomes the
        // pod-level request. memory keeps the container aggregate.
        assert_eq!(
            request(spec),
            list(&[("hugepages-2Mi", "1Gi"), ("memory", "1Gi")])
        );
    }

    #[test]
    fn pod_level_resources_can_be_empty_or_null() {
        for resources in [
            json!(null),
            json!({}),
            json!({"requests": null, "limits": {}}),
        ] {
            let spec = json!({
                "resources": resources,
                "containers": [container(cpu_mem("1", "1Gi"))],
            });
            assert_eq!(request(spec), list(&[("cpu", "1"), ("memory", "1Gi")]));
        }
    }

    #[test]
    fn overhead_is_added_last() {
        let spec = json!({
            "resources": {"requests": {"cpu": "8"}},
            "overhead": {"cpu": "250m", "memory": "120Mi", "example.com/vm": "1"},
            "containers": [container(cpu_mem("1", "1Gi"))],
        });
        assert_eq!(
            request(spec),
            list(&[
                ("cpu", "8250m"),
                ("memory", "1144Mi"),
                ("example.com/vm", "1"),
            ])
        );
    }

    #[test]
    fn gpus_only_in_limits() {
        let spec = json!({"containers": [
            container(json!({"limits": {"nvidia.com/gpu": 2}})),
            container(json!({"limits": {"nvidia.com/gpu": "1"}})),
            container(json!({"requests": {"cpu": "1"}})),
        ]});
        let result = request(spec);
        assert_eq!(result, list(&[("cpu", "1"), ("nvidia.com/gpu", "3")]));
    }

    #[test]
    fn amount_fields_are_the_summary_counts() {
        let summary = serde_json::to_value(ResourceSummary::default()).unwrap();
        let counts: Vec<&str> = summary
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "gpu")
            .collect();
        let fields: Vec<&str> = AMOUNT_FIELDS.iter().map(|(f, _)| *f).collect();
        assert_eq!(counts, fields);
        assert_eq!(amount_unit("cpuMillis"), Some(AmountUnit::Millicores));
        assert_eq!(
            amount_unit("ephemeralStorageBytes"),
            Some(AmountUnit::Bytes)
        );
        assert_eq!(amount_unit("extended"), None);
        assert_eq!(AmountUnit::Millicores.human(26_500), "26.5");
        assert_eq!(AmountUnit::Bytes.human(2_000_000_000), "1.9Gi");
    }

    #[test]
    fn mig_and_other_extended_resources() {
        let spec = json!({"containers": [
            container(json!({"limits": {
                "nvidia.com/mig-1g.5gb": 2,
                "amd.com/gpu": "1",
                "rdma/ib": "1",
                "hugepages-1Gi": "2Gi",
                "cpu": "4",
                "memory": "16Gi",
            }})),
            container(json!({"limits": {"nvidia.com/mig-1g.5gb": 1}})),
        ]});
        let result = match pod_request(&spec) {
            Ok(result) => result,
            Err(e) => panic!("{e}"),
        };
        let summary = ResourceSummary::from_list(&owned(&result));
        assert_eq!(summary.gpu, 0);
        assert_eq!(summary.cpu_millis, 4000);
        assert_eq!(summary.memory_bytes, 16 << 30);
        let extended: Vec<(&str, String)> = summary
            .extended
            .iter()
            .map(|(k, v)| (k.as_str(), v.to_canonical_string()))
            .collect();
        assert_eq!(
            extended,
            vec![
                ("amd.com/gpu", "1".to_owned()),
                ("hugepages-1Gi", "2Gi".to_owned()),
                ("nvidia.com/mig-1g.5gb", "3".to_owned()),
                ("rdma/ib", "1".to_owned()),
            ]
        );
    }

    #[test]
    fn null_and_absent_fields_everywhere() {
        assert_eq!(request(json!(null)), list(&[]));
        assert_eq!(request(json!({})), list(&[]));
        assert_eq!(
            request(json!({
                "containers": null,
                "initContainers": null,
                "resources": null,
                "overhead": null
            })),
            list(&[])
        );
        let spec = json!({
            "containers": [
                null,
                {},
                {"resources": null},
                {"resources": {}},
                {"resources": {"requests": null, "limits": null, "claims": null}},
                {"resources": {"requests": {"cpu": null}, "limits": {"cpu": "2"}}},
                {"resources": {"requests": {"memory": "1Gi"}, "limits": {"memory": null}}},
            ],
            "initContainers": [null, {"restartPolicy": "Always"}, {"resources": null}],
            "overhead": {"cpu": null},
        });
        assert_eq!(request(spec), list(&[("cpu", "2"), ("memory", "1Gi")]));
    }

    #[test]
    fn explicit_zero_is_kept() {
        let spec = json!({"containers": [container(json!({
            "requests": {"cpu": "0", "nvidia.com/gpu": 0},
            "limits": {"cpu": "1"}
        }))]});
        // The explicit zero request is not replaced by the limit.
        assert_eq!(
            request(spec),
            list(&[("cpu", "0"), ("nvidia.com/gpu", "0")])
        );
    }

    #[test]
    fn quantities_are_rounded_up_to_milli() {
        let spec = json!({"containers": [
            container(json!({"requests": {"cpu": "1500u"}})),
            container(json!({"requests": {"cpu": "1500u"}})),
        ]});
        assert_eq!(request(spec), list(&[("cpu", "4m")]));
    }

    #[test]
    fn invalid_quantity_names_the_exact_path() {
        let e = error(json!({"containers": [
            container(cpu_mem("1", "1Gi")),
            container(json!({"requests": {"cpu": "abc"}})),
        ]}));
        assert_eq!(e.path, "containers[1].resources.requests.cpu");
        assert!(
            e.message.contains("invalid quantity \"abc\""),
            "{}",
            e.message
        );
        assert_eq!(
            e.to_string(),
            "containers[1].resources.requests.cpu: invalid quantity \"abc\": expected a \
             number with an optional suffix (e.g. 500m, 2, 4Gi)"
        );

        let e = error(json!({"initContainers": [
            container(json!({"limits": {"nvidia.com/gpu": "1KB"}})),
        ]}));
        assert_eq!(
            e.path,
            "initContainers[0].resources.limits[\"nvidia.com/gpu\"]"
        );
        assert!(e.message.contains("unknown suffix"));

        let e = error(json!({"resources": {"limits": {"memory": true}}}));
        assert_eq!(e.path, "resources.limits.memory");
        assert!(e.message.contains("found a boolean"));

        let e = error(json!({"overhead": {"cpu": "1 x"}}));
        assert_eq!(e.path, "overhead.cpu");

        // Invalid quantities are reported even for resources that would be
        // overridden by pod-level values.
        let e = error(json!({
            "resources": {"requests": {"cpu": "1"}},
            "containers": [container(json!({"requests": {"cpu": "x"}}))],
        }));
        assert_eq!(e.path, "containers[0].resources.requests.cpu");
    }

    #[test]
    fn wrong_types_name_the_path() {
        let cases: &[(Value, &str, &str)] = &[
            (
                json!("spec"),
                "",
                "expected a PodSpec object, found a string",
            ),
            (json!({"containers": {}}), "containers", "found an object"),
            (
                json!({"initContainers": "x"}),
                "initContainers",
                "found a string",
            ),
            (
                json!({"containers": [1]}),
                "containers[0]",
                "expected a container object",
            ),
            (
                json!({"containers": [{}, {"resources": []}]}),
                "containers[1].resources",
                "expected a ResourceRequirements object, found an array",
            ),
            (
                json!({"containers": [{"resources": {"requests": ["cpu"]}}]}),
                "containers[0].resources.requests",
                "expected a resource list object",
            ),
            (
                json!({"containers": [{"resources": {"limits": 4}}]}),
                "containers[0].resources.limits",
                "found a number",
            ),
            (
                json!({"initContainers": [{"restartPolicy": true}]}),
                "initContainers[0].restartPolicy",
                "expected a string",
            ),
            (json!({"resources": "big"}), "resources", "found a string"),
            (
                json!({"resources": {"requests": 1}}),
                "resources.requests",
                "found a number",
            ),
            (json!({"overhead": []}), "overhead", "found an array"),
        ];
        for (spec, path, message) in cases {
            let e = error(spec.clone());
            assert_eq!(e.path, *path, "{spec}");
            assert!(e.message.contains(message), "{spec}: {}", e.message);
        }
        assert_eq!(
            error(json!(3)).to_string(),
            "expected a PodSpec object, found a number"
        );
    }

    #[test]
    fn overflow_is_an_error_not_a_panic() {
        // 2^96: the largest exact quantity; twice it leaves the range.
        let huge = "79228162514264337593543950336";
        let spec = json!({"containers": [
            container(json!({"requests": {"rdma/ib": huge}})),
            container(json!({"requests": {"rdma/ib": huge}})),
        ]});
        let e = error(spec);
        assert_eq!(e.path, "containers[1]");
        assert!(e.message.contains("overflow"), "{}", e.message);
        assert!(e.is_overflow());
    }

    #[test]
    fn negative_quantities_are_errors_never_summed() {
        // A negative request would cancel the positive one (0 GPUs).
        let e = error(json!({"containers": [
            container(json!({"limits": {"nvidia.com/gpu": 4}})),
            container(json!({"limits": {"nvidia.com/gpu": -4}})),
        ]}));
        assert_eq!(e.path, "containers[1].resources.limits[\"nvidia.com/gpu\"]");
        assert!(e.message.contains("negative"), "{}", e.message);
        assert!(!e.is_overflow());
        // Everywhere a quantity is read, whatever the resource, also in a
        // limit that a request overrides and as a string or a float.
        for (spec, path) in [
            (
                json!({"containers": [container(json!({"requests": {"cpu": "-500m"}}))]}),
                "containers[0].resources.requests.cpu",
            ),
            (
                json!({"containers": [container(json!({
                    "requests": {"memory": "1Gi"}, "limits": {"memory": "-1Gi"}}))]}),
                "containers[0].resources.limits.memory",
            ),
            (
                json!({"initContainers": [sidecar(json!({"requests": {"rdma/ib": -0.5}}))]}),
                "initContainers[0].resources.requests[\"rdma/ib\"]",
            ),
            (
                json!({"initContainers": [container(json!({"limits": {"ephemeral-storage": "-1"}}))]}),
                "initContainers[0].resources.limits[\"ephemeral-storage\"]",
            ),
            (
                json!({"resources": {"requests": {"cpu": "-1"}}}),
                "resources.requests.cpu",
            ),
            (json!({"overhead": {"memory": "-1Mi"}}), "overhead.memory"),
        ] {
            let e = error(spec.clone());
            assert_eq!(e.path, path, "{spec}");
            assert!(e.message.contains("negative"), "{spec}: {}", e.message);
        }
        // Zero and negative zero are fine.
        assert_eq!(
            request(json!({"containers": [container(json!({"requests": {"cpu": "-0"}}))]})),
            list(&[("cpu", "0")])
        );
    }

    #[test]
    fn counts_beyond_u64_are_overflow_errors() {
        // One quantity: 1e20 GPUs would saturate to u64::MAX.
        let e = error(json!({"containers": [
            container(json!({"limits": {"nvidia.com/gpu": "1e20"}})),
        ]}));
        assert_eq!(e.path, "containers[0].resources.limits[\"nvidia.com/gpu\"]");
        assert!(e.is_overflow());
        assert!(e.message.contains("overflow"), "{}", e.message);
        // CPU counts millicores: 2e16 cores are 2e19 millicores.
        let e = error(json!({"containers": [container(json!({"requests": {"cpu": "2e16"}}))]}));
        assert_eq!(e.path, "containers[0].resources.requests.cpu");
        assert!(e.is_overflow());
        // A sum across containers: each fits, the sum does not.
        let e = error(json!({"containers": [
            container(json!({"requests": {"memory": "8Ei"}})),
            container(json!({"requests": {"memory": "8Ei"}})),
            container(json!({"requests": {"memory": "8Ei"}})),
        ]}));
        assert_eq!(e.path, "containers[2]");
        assert!(e.is_overflow());
        assert!(e.message.contains("summing \"memory\""), "{}", e.message);
        // Sidecars while an init container runs, and overhead on top.
        let e = error(json!({"initContainers": [
            sidecar(json!({"requests": {"nvidia.com/gpu": "10E"}})),
            container(json!({"requests": {"nvidia.com/gpu": "10E"}})),
        ]}));
        assert_eq!(e.path, "initContainers[1]");
        assert!(e.is_overflow());
        let e = error(json!({
            "containers": [container(json!({"requests": {"ephemeral-storage": "18E"}}))],
            "overhead": {"ephemeral-storage": "1E"},
        }));
        assert_eq!(e.path, "overhead");
        assert!(e.is_overflow());
        // Pod-level resources that replace the containers' values.
        let e = error(json!({"resources": {"limits": {"memory": "1e30"}}}));
        assert!(
            e.message.contains("out of the supported range"),
            "{}",
            e.message
        );
        let e = error(json!({"resources": {"requests": {"cpu": "1e17"}}}));
        assert_eq!(e.path, "resources.requests.cpu");
        assert!(e.is_overflow());
        // A limit that a request overrides is not counted, so it may be huge.
        assert_eq!(
            request(json!({"containers": [container(json!({
                "requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": "1e20"}}))]})),
            list(&[("nvidia.com/gpu", "1")])
        );
        // Exactly u64::MAX fits.
        assert_eq!(
            request(json!({"containers": [container(json!({
                "requests": {"memory": "18446744073709551615"}}))]})),
            list(&[("memory", "18446744073709551615")])
        );
        // Extended resources are exact quantities, not counts.
        assert_eq!(
            request(json!({"containers": [container(json!({"requests": {"rdma/ib": "1e20"}}))]})),
            list(&[("rdma/ib", "100e18")])
        );
    }

    #[test]
    fn try_from_list_never_clamps() {
        let list = |pairs: &[(&str, &str)]| -> BTreeMap<String, Quantity> {
            pairs
                .iter()
                .filter_map(|(k, v)| Some(((*k).to_owned(), Quantity::parse(v).ok()?)))
                .collect()
        };
        let ok =
            ResourceSummary::try_from_list(&list(&[("cpu", "1500m"), ("nvidia.com/gpu", "2")]));
        assert_eq!(ok.map(|s| (s.cpu_millis, s.gpu)), Ok((1500, 2)));
        let e = match ResourceSummary::try_from_list(&list(&[("nvidia.com/gpu", "1e20")])) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "[\"nvidia.com/gpu\"]");
        assert!(
            e.is_overflow() && e.message.contains("overflow"),
            "{}",
            e.message
        );
        let e = match ResourceSummary::try_from_list(&list(&[("memory", "-1")])) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "memory");
        assert!(
            !e.is_overflow() && e.message.contains("negative"),
            "{}",
            e.message
        );
        // from_list keeps its documented clamping for lists made by hand.
        assert_eq!(
            ResourceSummary::from_list(&list(&[("nvidia.com/gpu", "1e20")])).gpu,
            u64::MAX
        );
    }

    #[test]
    fn container_request_fragment() {
        let r = |v: Value| match container_request(&v) {
            Ok(list) => list
                .iter()
                .map(|(k, v)| (k.to_owned(), v.to_canonical_string()))
                .collect::<BTreeMap<_, _>>(),
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            r(
                json!({"requests": {"cpu": "250m"}, "limits": {"cpu": "1", "memory": "512Mi"},
                     "claims": [{"name": "gpu"}]})
            ),
            list(&[("cpu", "250m"), ("memory", "512Mi")])
        );
        assert_eq!(
            r(json!({"limits": {"nvidia.com/gpu": 8}})),
            list(&[("nvidia.com/gpu", "8")])
        );
        assert_eq!(r(json!(null)), list(&[]));
        assert_eq!(r(json!({})), list(&[]));
        let e = match container_request(&json!({"limits": {"memory": "lots"}})) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "limits.memory");
        let e = match container_request(&json!([])) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "");
        assert!(e.message.contains("ResourceRequirements"));
    }

    fn summary(pairs: &[(&str, &str)]) -> ResourceSummary {
        let mut list = BTreeMap::new();
        for (k, v) in pairs {
            match Quantity::parse(v) {
                Ok(q) => list.insert((*k).to_owned(), q),
                Err(e) => panic!("{e}"),
            };
        }
        ResourceSummary::from_list(&list)
    }

    #[test]
    fn summary_from_list() {
        let s = summary(&[
            ("cpu", "1500m"),
            ("memory", "1.5Gi"),
            ("ephemeral-storage", "10G"),
            ("nvidia.com/gpu", "2"),
            ("nvidia.com/mig-1g.5gb", "0"),
            ("pods", "1"),
        ]);
        assert_eq!(s.cpu_millis, 1500);
        assert_eq!(s.memory_bytes, 1_610_612_736);
        assert_eq!(s.ephemeral_storage_bytes, 10_000_000_000);
        assert_eq!(s.gpu, 2);
        assert_eq!(s.extended.len(), 2);
        assert!(s.extended.contains_key("nvidia.com/mig-1g.5gb"));

        let rounded = summary(&[
            ("cpu", "0.0001"),
            ("memory", "0.5"),
            ("nvidia.com/gpu", "0.5"),
        ]);
        assert_eq!(
            (rounded.cpu_millis, rounded.memory_bytes, rounded.gpu),
            (1, 1, 1)
        );
        let negative = summary(&[("cpu", "-1"), ("memory", "-1Gi")]);
        assert_eq!((negative.cpu_millis, negative.memory_bytes), (0, 0));
        assert_eq!(
            ResourceSummary::from_list(&BTreeMap::new()),
            ResourceSummary::default()
        );
    }

    #[test]
    fn summary_serializes_in_camel_case() {
        let s = summary(&[("cpu", "2"), ("memory", "1Gi"), ("nvidia.com/gpu", "1")]);
        assert_eq!(
            serde_json::to_value(&s).ok(),
            Some(json!({
                "gpu": 1,
                "cpuMillis": 2000,
                "memoryBytes": 1_073_741_824u64,
                "ephemeralStorageBytes": 0
            }))
        );
        let s = summary(&[("rdma/ib", "1"), ("hugepages-2Mi", "1024Mi")]);
        assert_eq!(
            serde_json::to_value(&s).ok(),
            Some(json!({
                "gpu": 0,
                "cpuMillis": 0,
                "memoryBytes": 0,
                "ephemeralStorageBytes": 0,
                "extended": {"hugepages-2Mi": "1Gi", "rdma/ib": "1"}
            }))
        );
    }

    #[test]
    fn summary_times_and_plus() {
        let a = summary(&[
            ("cpu", "500m"),
            ("memory", "512Mi"),
            ("nvidia.com/gpu", "1"),
            ("rdma/ib", "1"),
            ("nvidia.com/mig-1g.5gb", "0"),
        ]);
        let t = match a.times(4) {
            Ok(t) => t,
            Err(e) => panic!("{e}"),
        };
        assert_eq!((t.cpu_millis, t.memory_bytes, t.gpu), (2000, 2 << 30, 4));
        assert_eq!(
            t.extended.get("rdma/ib").map(Quantity::to_canonical_string),
            Some("4".into())
        );
        assert_eq!(
            t.extended
                .get("nvidia.com/mig-1g.5gb")
                .map(Quantity::to_canonical_string),
            Some("0".into())
        );
        assert_eq!(a.times(0).map(|z| z.cpu_millis), Ok(0));
        assert_eq!(a.times(1).as_ref(), Ok(&a));

        let b = summary(&[
            ("cpu", "1"),
            ("amd.com/gpu", "2"),
            ("rdma/ib", "1"),
            ("ephemeral-storage", "1Gi"),
        ]);
        let p = match a.plus(&b) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(p.cpu_millis, 1500);
        assert_eq!(p.memory_bytes, 512 << 20);
        assert_eq!(p.ephemeral_storage_bytes, 1 << 30);
        assert_eq!(p.gpu, 1);
        let names: Vec<&str> = p.extended.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            vec!["amd.com/gpu", "nvidia.com/mig-1g.5gb", "rdma/ib"]
        );
        assert_eq!(
            p.extended.get("rdma/ib").map(Quantity::to_canonical_string),
            Some("2".into())
        );
        assert_eq!(a.plus(&ResourceSummary::default()).as_ref(), Ok(&a));
    }

    #[test]
    fn summary_overflow_is_an_error() {
        let big = ResourceSummary {
            cpu_millis: u64::MAX / 2 + 1,
            ..ResourceSummary::default()
        };
        let e = match big.times(2) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "cpuMillis");
        assert!(e.message.contains("64-bit"));
        assert!(e.message.contains("cpuMillis overflow"), "{}", e.message);
        assert!(e.is_overflow());
        let e = match big.plus(&big) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "cpuMillis");

        let mut huge = ResourceSummary::default();
        if let Ok(q) = Quantity::parse("1e28") {
            huge.extended.insert("rdma/ib".to_owned(), q);
        }
        let e = match huge.times(10) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "extended[\"rdma/ib\"]");
        assert!(e.message.contains("overflow"));
        let e = match huge.times(5).and_then(|h| h.plus(&h)) {
            Ok(v) => panic!("{v:?}"),
            Err(e) => e,
        };
        assert_eq!(e.path, "extended[\"rdma/ib\"]");
    }

    #[test]
    fn path_helpers() {
        assert_eq!(child("", "cpu"), "cpu");
        assert_eq!(child("a", "ephemeral-storage"), "a[\"ephemeral-storage\"]");
        assert_eq!(child("a", "nvidia.com/gpu"), "a[\"nvidia.com/gpu\"]");
        assert_eq!(child("", "x y"), "[\"x y\"]");
        assert_eq!(child("a", ""), "a[\"\"]");
        assert_eq!(child("a", "q\"uote"), "a[\"q\\\"uote\"]");
        assert_eq!(index("containers", 3), "containers[3]");
        let e = ResourceError::new("", "bad");
        assert_eq!(e.to_string(), "bad");
        let boxed: Box<dyn std::error::Error> = Box::new(ResourceError::new("p", "m"));
        assert_eq!(boxed.to_string(), "p: m");
    }
}
