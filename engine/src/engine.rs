//! The [`Engine`]: limits plus the definitions it knows, and every
//! operation on workloads.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use crate::catalog;
use crate::compile::CompiledDefinition;
use crate::definition::Origin;
use crate::diagnose::Diagnosis;
use crate::error::{Error, ErrorCode, Result};
use crate::expression::Expression;
use crate::gang::GangReport;
use crate::limits::Limits;
use crate::model::Gvk;
use crate::resolved::Attribution;
use crate::resolved::{Resolved, Status};
use crate::source;
use crate::source::{InputObjects, SourceMap, SourceQuery};
use crate::status::StatusExplanation;
use crate::update::{UpdateRequest, UpdateResult};
use crate::verdict::ValidationReport;

/// The engine: a set of limits and the definitions it resolves workloads
/// with, the bundled catalog plus the user's.
///
/// A user definition replaces the catalog's (or an earlier user
/// definition) of the same root group/version/kind. Every operation on a
/// workload chooses its definition by the object's `apiVersion` and `kind`
/// (the exact version, else any version of the same group and kind).
///
/// The limits are set once, when the engine is built, and apply to
/// everything it does: reading texts, compiling definitions (the catalog
/// too), evaluating them. An `Engine` is cheap to clone (definitions are
/// shared) and `Send + Sync`.
///
/// ```
/// use workload_lens::Engine;
///
/// let engine = Engine::new()?;
/// let object = engine.read_object(include_str!("../../examples/jobset.yaml"))?;
/// let resolved = engine.resolve(&object)?;
/// assert_eq!(resolved.totals.resources.gpu, 12);
/// # Ok::<(), workload_lens::Error>(())
/// ```
///
/// With other limits, without the catalog, with the user's definitions:
///
/// ```
/// use workload_lens::{Engine, Limits};
///
/// let limits = Limits { max_steps: 10_000, ..Limits::default() };
/// let mut engine = Engine::builder().limits(limits).catalog(false).build()?;
/// assert!(engine.definitions().is_empty());
/// let added = engine.add_definitions(include_str!("../../definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml"))?;
/// assert_eq!(added[0].limits().max_steps, 10_000);
/// # Ok::<(), workload_lens::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Engine {
    limits: Limits,
    /// In order of addition; a later definition of the same root GVK
    /// replaces an earlier one.
    defs: Vec<Arc<CompiledDefinition>>,
    /// Root GVK -> index into `defs`.
    by_gvk: HashMap<Gvk, usize>,
    /// (group, kind) -> index of the latest definition of any version.
    by_group_kind: HashMap<(String, String), usize>,
}

/// One call made of several operations: [`Engine::call`]. The budget is
/// per thread, so the scope cannot move to another thread.
#[must_use = "the scope ends when it is dropped"]
pub struct CallScope {
    _call: crate::budget::Call,
    _not_send: std::marker::PhantomData<*const ()>,
}

impl std::fmt::Debug for CallScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallScope")
    }
}

/// Builds an [`Engine`]: [`Engine::builder`].
#[derive(Debug, Clone)]
pub struct EngineBuilder {
    limits: Limits,
    catalog: bool,
}

impl EngineBuilder {
    /// The limits of everything the engine does (default:
    /// [`Limits::default`], meant for untrusted input).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Whether the engine starts with the bundled catalog (default: yes).
    pub fn catalog(mut self, catalog: bool) -> Self {
        self.catalog = catalog;
        self
    }

    /// Build the engine. The catalog evaluates with the limits; it is
    /// compiled once per process for the default limits and shared, and
    /// compiled again for others (never refused by tighter reading or
    /// expression-size limits: the bundled texts are trusted).
    pub fn build(self) -> Result<Engine> {
        let mut engine = Engine {
            limits: self.limits.effective(),
            defs: Vec::new(),
            by_gvk: HashMap::new(),
            by_group_kind: HashMap::new(),
        };
        if self.catalog {
            if self.limits == Limits::default() {
                for d in catalog::catalog()? {
                    engine.insert(d.clone());
                }
            } else {
                // The bundled texts are trusted and known to read and
                // compile within the default limits: reading and compiling
                // them is never refused for tighter ones (a small
                // `maxInputBytes` is meant for the user's objects). They
                // evaluate with the engine's limits like every definition.
                let d = Limits::default();
                let read = Limits {
                    max_input_bytes: self.limits.max_input_bytes.max(d.max_input_bytes),
                    max_depth: self.limits.max_depth.max(d.max_depth),
                    max_input_nodes: self.limits.max_input_nodes.max(d.max_input_nodes),
                    max_documents: self.limits.max_documents.max(d.max_documents),
                    max_yaml_aliases: self.limits.max_yaml_aliases.max(d.max_yaml_aliases),
                    max_expression_bytes: self
                        .limits
                        .max_expression_bytes
                        .max(d.max_expression_bytes),
                    max_expression_depth: self
                        .limits
                        .max_expression_depth
                        .max(d.max_expression_depth),
                    ..self.limits
                };
                for (file, text) in catalog::FILES {
                    let defs = CompiledDefinition::all_from_text(text, read, Origin::Catalog)
                        .map_err(|e| e.context(&format!("bundled definition {file}")))?;
                    for d in defs {
                        engine.insert(Arc::new(d.with_limits(self.limits)));
                    }
                }
            }
        }
        Ok(engine)
    }
}

impl Engine {
    /// The bundled catalog with the default limits.
    pub fn new() -> Result<Engine> {
        Engine::builder().build()
    }

    /// A builder, to choose the limits and whether to start with the
    /// catalog.
    pub fn builder() -> EngineBuilder {
        EngineBuilder {
            limits: Limits::default(),
            catalog: true,
        }
    }

    /// The limits of everything the engine does (with the stack-safety
    /// ceilings applied, see [`Limits::effective`]).
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    fn insert(&mut self, def: Arc<CompiledDefinition>) -> Option<Arc<CompiledDefinition>> {
        let gvk = def.root_gvk();
        let key = (gvk.group.clone(), gvk.kind.clone());
        match self.by_gvk.get(&gvk) {
            Some(&i) => {
                let old = std::mem::replace(&mut self.defs[i], def);
                self.by_group_kind.insert(key, i);
                Some(old)
            }
            None => {
                let i = self.defs.len();
                self.defs.push(def);
                self.by_gvk.insert(gvk, i);
                self.by_group_kind.insert(key, i);
                None
            }
        }
    }

    /// Compile exactly one definition from YAML/JSON text with the engine's
    /// limits (without adding it). Errors and findings carry line and
    /// column; an invalid definition is a [`ErrorCode::Validation`] error
    /// with the findings [`Engine::validate`] reports.
    pub fn compile(&self, text: &str) -> Result<CompiledDefinition> {
        CompiledDefinition::from_text(text, self.limits)
    }

    /// Compile every definition of a text (documents, list items) with the
    /// engine's limits (without adding them).
    pub fn compile_all(&self, text: &str) -> Result<Vec<CompiledDefinition>> {
        CompiledDefinition::all_from_text(text, self.limits, Origin::User)
    }

    /// Compile every definition of a text and add them as user definitions
    /// (each replaces the one of the same root GVK); returns them.
    pub fn add_definitions(&mut self, text: &str) -> Result<Vec<Arc<CompiledDefinition>>> {
        let defs: Vec<Arc<CompiledDefinition>> =
            self.compile_all(text)?.into_iter().map(Arc::new).collect();
        for d in &defs {
            self.insert(d.clone());
        }
        Ok(defs)
    }

    /// Add a compiled definition; returns the one it replaced (same root
    /// GVK), if any. It keeps the limits it was compiled with.
    pub fn add_definition(
        &mut self,
        def: impl Into<Arc<CompiledDefinition>>,
    ) -> Option<Arc<CompiledDefinition>> {
        self.insert(def.into())
    }

    /// Every definition, sorted by name.
    pub fn definitions(&self) -> Vec<&Arc<CompiledDefinition>> {
        let mut v: Vec<_> = self.defs.iter().collect();
        v.sort_by(|a, b| a.name().cmp(b.name()));
        v
    }

    /// A definition by `metadata.name`.
    pub fn definition(&self, name: &str) -> Option<&Arc<CompiledDefinition>> {
        self.defs.iter().find(|d| d.name() == name)
    }

    /// Whether a definition was written for exactly this group, version and
    /// kind (not only for another version of the kind).
    pub(crate) fn covers_exactly(&self, gvk: &Gvk) -> bool {
        self.by_gvk.contains_key(gvk)
    }

    /// The definition for a GVK: the exact GVK, else (a manifest written at
    /// another served version) the latest added for the same group and kind.
    pub fn lookup(&self, gvk: &Gvk) -> Option<&Arc<CompiledDefinition>> {
        self.by_gvk
            .get(gvk)
            .or_else(|| {
                self.by_group_kind
                    .get(&(gvk.group.clone(), gvk.kind.clone()))
            })
            .map(|&i| &self.defs[i])
    }

    /// The definition for an object, by its `apiVersion` and `kind`; a
    /// [`ErrorCode::NoDefinition`] error when none covers it.
    pub fn definition_for(&self, object: &Value) -> Result<&Arc<CompiledDefinition>> {
        let w = crate::resolve::workload_ref(object)?;
        let gvk = Gvk::from_api_version(&w.api_version, &w.kind);
        self.lookup(&gvk).ok_or_else(|| {
            Error::new(
                ErrorCode::NoDefinition,
                format!("no definition covers {gvk} (add one with a definition file)"),
            )
        })
    }

    /// Read exactly one object from YAML or JSON text (positions in
    /// errors).
    pub fn read_object(&self, text: &str) -> Result<Value> {
        source::read_value(text, &self.limits)
    }

    /// Read every object of a text: each document; the items of a list
    /// document (`kind: List`, `PodList`, `JobSetList`, ...); the elements
    /// of a top-level array. See the module `source::objects`.
    pub fn read_objects(&self, text: &str) -> Result<Vec<Value>> {
        source::read_objects(text, &self.limits)
    }

    /// Read every object of a text, as [`read_objects`](Self::read_objects)
    /// does, and say how the text held them: one object, a list document,
    /// an array or several documents (an
    /// [`InputShape`](crate::InputShape)). A front end that shows "one
    /// object" differently from "a collection of objects" (even of one)
    /// reads its input once with this.
    ///
    /// ```
    /// use workload_lens::{Engine, InputShape};
    ///
    /// let engine = Engine::new()?;
    /// let one = engine.read_input("kind: Pod\nmetadata: {name: a}\n")?;
    /// assert_eq!((one.objects.len(), one.shape), (1, InputShape::Object));
    ///
    /// let list = engine.read_input("kind: PodList\napiVersion: v1\nitems:\n- metadata: {name: a}\n")?;
    /// assert_eq!(list.shape, InputShape::List);
    /// assert_eq!(list.objects[0]["kind"], "Pod");
    /// assert!(list.shape.is_collection());
    ///
    /// let docs = engine.read_input("kind: Pod\n---\nkind: Pod\n")?;
    /// assert_eq!((docs.objects.len(), docs.shape), (2, InputShape::Documents));
    /// # Ok::<(), workload_lens::Error>(())
    /// ```
    pub fn read_input(&self, text: &str) -> Result<InputObjects> {
        source::read_input(text, &self.limits)
    }

    /// Where things are in a YAML/JSON text: every object of it and the
    /// answer to each question ([`crate::source::source_map`]), and, for
    /// each object a definition of the engine covers, where its component
    /// instances' pod templates are (see
    /// [`CompiledDefinition::source_map`]).
    ///
    /// ```
    /// use workload_lens::{Engine, SourceQuery};
    ///
    /// let engine = Engine::new()?;
    /// let text = include_str!("../../examples/jobset.yaml");
    /// let map = engine.source_map(text, &[SourceQuery::path("spec.replicatedJobs[1].name")])?;
    /// let templates = &map.objects[0].pod_templates;
    /// assert!(templates.iter().any(|t| t.component == "replicatedjob"));
    /// let name = map.places[0].as_ref().unwrap();
    /// assert_eq!(&text[name.value.start.offset..name.value.end.offset], "worker");
    /// # Ok::<(), workload_lens::Error>(())
    /// ```
    pub fn source_map(&self, text: &str, queries: &[SourceQuery]) -> Result<SourceMap> {
        let of = |object: &Value| match self.definition_for(object) {
            Ok(d) => d.template_paths(object),
            Err(_) => Ok(None),
        };
        source::source_map_with(text, queries, &self.limits, Some(&of))
    }

    /// Resolve a workload with its definition.
    pub fn resolve<'a>(&'a self, object: &'a Value) -> Result<Resolved<'a>> {
        self.definition_for(object)?.resolve(object)
    }

    /// Resolve a workload and attach the live state of its pods (see
    /// [`CompiledDefinition::resolve_with_pods`]).
    pub fn resolve_with_pods<'a>(
        &'a self,
        object: &'a Value,
        pods: &[Value],
    ) -> Result<Resolved<'a>> {
        self.definition_for(object)?.resolve_with_pods(object, pods)
    }

    /// Resolve with every pod of the workload's namespace and their owners
    /// (what a live-cluster front end lists): pods whose controller chain
    /// leads to another workload are left out, except those this
    /// workload's selectors would claim (listed in `strayPods`: they look
    /// like this workload's, but another object controls them).
    pub fn resolve_in_namespace<'a>(
        &'a self,
        object: &'a Value,
        items: &[Value],
    ) -> Result<Resolved<'a>> {
        self.definition_for(object)?
            .resolve_in_namespace(object, items)
    }

    /// Why a workload is where it is: ranked findings from its pods and
    /// their owners (as [`Engine::resolve_in_namespace`] takes them),
    /// `events` and `related` objects (Kueue `Workload`s, gang schedulers'
    /// `PodGroup`s and `PodGang`s). See
    /// [`CompiledDefinition::diagnose`].
    pub fn diagnose(
        &self,
        object: &Value,
        items: &[Value],
        events: &[Value],
        related: &[Value],
    ) -> Result<Diagnosis> {
        self.definition_for(object)?
            .diagnose(object, items, events, related)
    }

    /// The root status of a workload (`None` when its definition has none).
    pub fn status(&self, object: &Value) -> Result<Option<Status>> {
        self.definition_for(object)?.status(object)
    }

    /// Why a workload has its status.
    pub fn explain_status(&self, object: &Value) -> Result<StatusExplanation> {
        self.definition_for(object)?.explain_status(object)
    }

    /// Place pods under the workload's components and instances.
    pub fn attribute_pods(&self, object: &Value, pods: &[Value]) -> Result<Attribution> {
        self.definition_for(object)?
            .attribute_pods(Some(object), pods)
    }

    /// The gang-scheduling groups of the workload's pods (empty when its
    /// definition has no gang instructions).
    pub fn gang_groups(&self, object: &Value, pods: &[Value]) -> Result<GangReport> {
        self.definition_for(object)?.gang_groups(object, pods)
    }

    /// [`Engine::gang_groups`] of a live namespace's pods and owners, as
    /// [`Engine::resolve_in_namespace`] takes them: other workloads' pods
    /// are left out, and look-alikes form no group.
    pub fn gang_groups_in_namespace(&self, object: &Value, items: &[Value]) -> Result<GangReport> {
        self.definition_for(object)?
            .gang_groups_in_namespace(object, items)
    }

    /// Write values through the definition's paths.
    pub fn update(&self, object: &Value, request: &UpdateRequest) -> Result<UpdateResult> {
        self.definition_for(object)?.update(object, request)
    }

    /// Apply the definition's suspend actions.
    pub fn suspend(&self, object: &Value) -> Result<UpdateResult> {
        self.definition_for(object)?.suspend(object)
    }

    /// Apply the definition's resume actions.
    pub fn resume(&self, object: &Value) -> Result<UpdateResult> {
        self.definition_for(object)?.resume(object)
    }

    /// Validate every definition of a text: one verdict each (see
    /// [`ValidationReport`]).
    pub fn validate(&self, text: &str) -> Result<ValidationReport> {
        crate::verdict::validate_text(text, &self.limits)
    }

    /// Make everything this thread does with the engine, until the returned
    /// scope is dropped, one call: one budget of steps, memory and output
    /// (docs/reliability.md) shared by every operation in it, as a single
    /// operation shares it among its expressions, documents and pods.
    /// Without a scope each operation is a call of its own. Use it when a
    /// batch must be bounded as a whole: the documents of one file, the
    /// workloads of one request. The engine's limits apply (or those of
    /// the scope already open on this thread, which this one joins).
    ///
    /// ```
    /// use workload_lens::{Engine, Limits};
    ///
    /// let limits = Limits { max_steps: 2_000, ..Limits::default() };
    /// let engine = Engine::builder().limits(limits).build()?;
    /// let object = engine.read_object(include_str!("../../examples/jobset.yaml"))?;
    /// // One resolve fits; twenty in one scope do not.
    /// engine.resolve(&object)?;
    /// let scope = engine.call();
    /// let failed = (0..20).map(|_| engine.resolve(&object)).find_map(Result::err);
    /// assert_eq!(failed.unwrap().limit(), Some("maxSteps"));
    /// drop(scope);
    /// engine.resolve(&object)?;
    /// # Ok::<(), workload_lens::Error>(())
    /// ```
    pub fn call(&self) -> CallScope {
        CallScope {
            _call: crate::budget::Call::enter(&self.limits),
            _not_send: std::marker::PhantomData,
        }
    }

    /// Compile a jq expression with the engine's semantics and limits.
    pub fn expression(&self, expression: &str) -> Result<Expression> {
        Expression::compile(expression, &self.limits)
    }

    /// Every output of a jq expression on a value.
    pub fn evaluate(&self, expression: &str, input: &Value) -> Result<Vec<Value>> {
        self.expression(expression)?.evaluate(input, &self.limits)
    }
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Engine>();
};
