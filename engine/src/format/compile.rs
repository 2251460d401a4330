//! Compiling a definition once into an immutable, reusable object.

use crate::component::Comp;
use crate::definition::Origin;
use crate::error::{Error, ErrorCode, Finding, Location, Result, Severity};
use crate::expr::{Ctx, Expr};
use crate::limits::Limits;
use crate::model::{ComponentDefinition, Definition, Gvk};
use crate::source::SpanIndex;

/// A definition compiled once: parsed jq programs, component graph and
/// limits. Immutable and `Send + Sync`: share it (e.g. in an `Arc`) and
/// resolve any number of objects with it, from any number of threads.
#[derive(Debug)]
pub struct CompiledDefinition {
    pub(crate) definition: Definition,
    pub(crate) origin: Origin,
    pub(crate) limits: Limits,
    pub(crate) comps: Vec<Comp>,
    pub(crate) warnings: Vec<Finding>,
    pub(crate) gang: Option<crate::gang::Gang>,
    /// `spec.podOwnership.labelsPath`: the labels naming the workload on
    /// its pods.
    pub(crate) ownership: Option<Expr>,
    /// `spec.podOwnership.currentLabelsPath`: the labels of the workload's
    /// current pods.
    pub(crate) current_labels: Option<Expr>,
    /// The component tree every result shows (built once, borrowed by
    /// each result).
    pub(crate) tree: crate::resolved::TreeNode,
    /// What resolving reads of an object, found on first need (`None`:
    /// all of it).
    pub(crate) reads: std::sync::OnceLock<Option<crate::jq::reads::Reads>>,
}

const _: () = {
    const fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledDefinition>();
};

/// The error for a definition whose findings include errors.
fn invalid(definition: &Definition, findings: Vec<Finding>) -> Error {
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let name = &definition.metadata.name;
    let mut e = Error::new(
        ErrorCode::Validation,
        format!("invalid definition '{name}': {errors} error(s)"),
    );
    e.0.findings = findings;
    e
}

impl CompiledDefinition {
    /// Validate and compile a definition with default limits.
    pub fn compile(definition: Definition) -> Result<CompiledDefinition> {
        Self::compile_with(definition, Limits::default(), Origin::User)
    }

    /// Validate and compile a definition with the given limits and origin.
    pub(crate) fn compile_with(
        definition: Definition,
        limits: Limits,
        origin: Origin,
    ) -> Result<CompiledDefinition> {
        let _call = crate::budget::Call::enter(&limits);
        let findings = crate::validate::validate_static(&definition, &limits);
        if crate::budget::breached().is_some() {
            return Err(crate::budget::compile_error());
        }
        Self::build(definition, limits, origin, findings, None)
    }

    /// Read one definition from YAML or JSON text, validate and compile it.
    /// Errors and findings carry line and column.
    pub fn from_text(text: &str, limits: Limits) -> Result<CompiledDefinition> {
        let mut all = Self::all_from_text(text, limits, Origin::User)?;
        if all.len() != 1 {
            return Err(Error::new(
                ErrorCode::Usage,
                format!("expected exactly one definition, found {}", all.len()),
            ));
        }
        all.pop()
            .ok_or_else(|| Error::new(ErrorCode::Usage, "no definition found"))
    }

    /// Read every definition of a (multi-document) text and compile each.
    pub(crate) fn all_from_text(
        text: &str,
        limits: Limits,
        origin: Origin,
    ) -> Result<Vec<CompiledDefinition>> {
        let _call = crate::budget::Call::enter(&limits);
        let mut out = Vec::new();
        // Each definition is compiled as it is read: a text whose first
        // definitions use up the call's budget is not parsed further.
        crate::definition::for_each_definition(text, &limits, |l| {
            let mut findings = crate::validate::validate_loaded_static(&l, &limits);
            if crate::budget::breached().is_some() {
                return Err(crate::budget::compile_error().at(Location {
                    document: l.document,
                    ..Location::default()
                }));
            }
            if crate::validate::has_errors(&findings) {
                // Report what `validate` reports: every finding, the jq
                // ones (undefined functions) included.
                findings = crate::validate::validate_loaded(&l, &limits);
            }
            let doc = l.document;
            let c = Self::build(l.definition, limits, origin, findings, Some(&l.spans)).map_err(
                |e| {
                    e.at(Location {
                        document: doc,
                        ..Location::default()
                    })
                },
            )?;
            out.push(c);
            Ok(())
        })?;
        Ok(out)
    }

    fn build(
        definition: Definition,
        limits: Limits,
        origin: Origin,
        findings: Vec<Finding>,
        spans: Option<&SpanIndex>,
    ) -> Result<CompiledDefinition> {
        if crate::validate::has_errors(&findings) {
            return Err(invalid(&definition, findings));
        }
        let warnings = findings;
        let effective = limits.effective();
        let ctx = Ctx {
            limits: &effective,
            spans,
        };
        type Compiled = (
            Vec<Comp>,
            Option<crate::gang::Gang>,
            Option<Expr>,
            Option<Expr>,
        );
        let compiled = (|| -> Result<Compiled> {
            let defs: Vec<ComponentDefinition> = definition.components().cloned().collect();
            // Owners by name, in one pass (validation guarantees the names
            // exist and there is no cycle); the tree's depth is checked
            // before anything is compiled.
            let parents = crate::component::owners(&defs);
            crate::component::check_tree_depth(&parents, |i| defs[i].name.clone(), &effective)
                .map_err(|mut e| {
                    if let Some(s) = spans {
                        s.locate(&mut e.0.location);
                    }
                    e
                })?;
            // A compiled component takes a few KB: its memory is charged
            // before the components are allocated (100,000 components of
            // a 16 MB definition asked for 380 MB at once).
            crate::budget::memory(defs.len().saturating_mul(std::mem::size_of::<Comp>()))?;
            let mut comps = Vec::with_capacity(defs.len());
            for (i, d) in defs.iter().enumerate() {
                comps.push(crate::component::compile(&ctx, i, d)?);
            }
            // Link parents and children.
            for (i, p) in parents.into_iter().enumerate() {
                if let Some(p) = p {
                    comps[i].parent = Some(p);
                    comps[p].children.push(i);
                }
            }
            // Each component's children by name, as every result shows them
            // (linear: each component is one other's child at most).
            for i in 0..comps.len() {
                let names = comps[i]
                    .children
                    .iter()
                    .map(|c| comps[*c].name.clone())
                    .collect();
                comps[i].child_names = names;
            }
            let gang = crate::gang::compile(&ctx, &definition, &comps)?;
            let ownership = ctx.opt(
                definition
                    .spec
                    .pod_ownership
                    .as_ref()
                    .map(|o| &o.labels_path),
                "spec.podOwnership.labelsPath".into(),
            )?;
            let current_labels = ctx.opt(
                definition
                    .spec
                    .pod_ownership
                    .as_ref()
                    .map(|o| &o.current_labels_path),
                "spec.podOwnership.currentLabelsPath".into(),
            )?;
            Ok((comps, gang, ownership, current_labels))
        })();
        let (comps, gang, ownership, current_labels) = match compiled {
            Ok(c) => c,
            // Loading validates without compiling (compiling is what comes
            // next); an expression that then fails to compile because it
            // names an undefined function is a validation finding like the
            // others: report every one, as `validate` does.
            Err(e) if e.0.code == ErrorCode::JqCompile => {
                let undefined = crate::validate::validate(&definition, &limits)
                    .into_iter()
                    .filter(|f| f.code == crate::validate::codes::JQ_UNDEFINED);
                let mut all: Vec<Finding> = warnings.into_iter().chain(undefined).collect();
                if !crate::validate::has_errors(&all) {
                    return Err(e);
                }
                if let Some(s) = spans {
                    crate::validate::locate(s, None, &mut all);
                }
                return Err(invalid(&definition, all));
            }
            Err(e) => return Err(e),
        };
        let limits = effective;
        let tree = crate::component::build_tree(&comps, 0);
        Ok(CompiledDefinition {
            definition,
            origin,
            limits,
            comps,
            warnings,
            gang,
            ownership,
            current_labels,
            tree,
            reads: std::sync::OnceLock::new(),
        })
    }

    /// The definition as read.
    pub fn definition(&self) -> &Definition {
        &self.definition
    }

    /// `metadata.name` of the definition.
    pub fn name(&self) -> &str {
        &self.definition.metadata.name
    }

    /// Where the definition came from.
    pub fn origin(&self) -> Origin {
        self.origin
    }

    /// The root GVK (the type this definition describes).
    pub fn root_gvk(&self) -> Gvk {
        self.definition.root_gvk().cloned().unwrap_or_default()
    }

    /// Validation warnings (unknown fields and the like).
    pub fn warnings(&self) -> &[Finding] {
        &self.warnings
    }

    /// The limits this definition evaluates with.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// The same definition evaluating with other limits. Expressions are
    /// not recompiled: the expression-size limits (`maxExpressionBytes`,
    /// `maxExpressionDepth`) were applied when it was compiled.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits.effective();
        self
    }

    /// The same definition, marked as coming from `origin` (how a binding
    /// restores a definition it serialized, such as Python's pickling).
    pub fn with_origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }

    /// Component names, root first.
    pub fn component_names(&self) -> Vec<&str> {
        self.comps.iter().map(|c| c.name.as_str()).collect()
    }
}
