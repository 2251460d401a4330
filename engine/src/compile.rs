//! Compiling a definition once into an immutable, reusable object.

use crate::error::{Error, ErrorCode, Finding, Location, Result, Severity};
use crate::jq::{EvalError, ExprMode, Input, JqIssue, JqIssueKind, Program};
use crate::limits::Limits;
use crate::model::{ComponentDefinition, Definition, Gvk};
use crate::source::SpanIndex;
use serde_json::Value;

/// Where a definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The bundled catalog.
    Catalog,
    /// Supplied by the user.
    #[default]
    User,
    /// Stored in the cluster (a Karta or ResourceInterface object), read
    /// by a live-cluster front end.
    Cluster,
}

impl Origin {
    /// `catalog`, `user` or `cluster`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Catalog => "catalog",
            Origin::User => "user",
            Origin::Cluster => "cluster",
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One compiled expression and the definition field it came from.
#[derive(Debug)]
pub(crate) struct Expr {
    pub program: Program,
    pub field: String,
    /// `path(<expression>)`, compiled on first use by updates.
    pub paths: std::sync::OnceLock<std::result::Result<Program, JqIssue>>,
    pub mode: ExprMode,
    /// Positions of the definition's text, when it was read from text:
    /// runtime errors are located at the field too (looked up only then).
    pub spans: Option<SpanIndex>,
}

impl Expr {
    pub(crate) fn location(&self) -> Location {
        let position = self.spans.as_ref().and_then(|s| s.nearest(&self.field));
        Location {
            field: Some(self.field.clone()),
            expression: Some(self.program.code().to_string()),
            line: position.map(|p| p.0),
            column: position.map(|p| p.1),
            ..Location::default()
        }
    }

    /// The paths the expression denotes in `input` (for writing), as JSON
    /// arrays of keys and indices.
    pub(crate) fn eval_paths(&self, input: &Input, limits: &Limits) -> Result<Vec<Value>> {
        let program = self
            .paths
            .get_or_init(|| {
                let code = format!("path({})", self.program.code());
                // Length/nesting were checked on the expression itself.
                let lax = Limits {
                    max_expression_bytes: usize::MAX,
                    ..*limits
                };
                Program::compile(&code, self.mode, &[], &lax)
            })
            .as_ref()
            .map_err(|i| Error::new(ErrorCode::JqCompile, i.message.clone()).at(self.location()))?;
        program.run(input, limits).map_err(|e| match e {
            EvalError::Runtime(m) => Error::new(
                ErrorCode::Update,
                format!("the expression is not an assignable path: {m}"),
            )
            .at(self.location()),
            e => eval_error(e).at(self.location()),
        })
    }

    /// Run and convert outputs to JSON; errors carry the field and expression.
    pub(crate) fn eval(&self, input: &Input, limits: &Limits) -> Result<Vec<Value>> {
        self.program
            .run(input, limits)
            .map_err(|e| eval_error(e).at(self.location()))
    }
}

pub(crate) fn eval_error(e: EvalError) -> Error {
    match e {
        EvalError::Runtime(m) => Error::new(ErrorCode::JqRuntime, format!("jq error: {m}")),
        EvalError::Limit { limit, message } => Error::limit_error(limit, message),
    }
}

#[derive(Debug)]
pub(crate) struct Comp {
    pub name: String,
    pub def: ComponentDefinition,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub ids: Option<Expr>,
    pub pod: crate::pods::PodDef,
    pub metadata: Option<Expr>,
    pub scale: Option<crate::scale::ScaleDef>,
    pub status: Option<crate::status::StatusDef>,
    /// Compiled suspend and resume actions.
    pub suspend: Option<crate::suspend::Actions>,
    /// `podSelector.componentTypeSelector`.
    pub type_selector: Option<crate::selectors::TypeSelector>,
    /// `podSelector.componentInstanceSelector.idPath`.
    pub instance_selector: Option<Expr>,
    /// `podSelector.replicaSelector.keyPath`.
    pub replica_selector: Option<Expr>,
}

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

pub(crate) struct Ctx<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) spans: Option<&'a SpanIndex>,
}

impl Ctx<'_> {
    pub(crate) fn expr(&self, code: &str, field: String, mode: ExprMode) -> Result<Expr> {
        // Compiling is work of the call too: 100,000 matchers are not
        // compiled for free.
        crate::budget::compile(code).map_err(|e| {
            e.at(Location {
                field: Some(field.clone()),
                ..Location::default()
            })
        })?;
        Program::compile(code, mode, &[], self.limits)
            .map(|program| Expr {
                program,
                field: field.clone(),
                paths: std::sync::OnceLock::new(),
                mode,
                spans: self.spans.cloned(),
            })
            .map_err(|issue| self.issue_error(issue, code, field))
    }

    fn issue_error(&self, issue: JqIssue, code: &str, field: String) -> Error {
        let mut e = match issue.kind {
            JqIssueKind::Limit => {
                Error::limit_error(issue.limit.unwrap_or("maxExpressionBytes"), issue.message)
            }
            _ => Error::new(ErrorCode::JqCompile, issue.message),
        };
        let mut loc = Location {
            field: Some(field),
            expression: Some(code.to_string()),
            span: issue.span,
            ..Location::default()
        };
        if let Some(s) = self.spans {
            s.locate(&mut loc);
        }
        e = e.at(loc);
        e
    }

    pub(crate) fn opt(&self, code: Option<&String>, field: String) -> Result<Option<Expr>> {
        match code {
            Some(c) if !c.trim().is_empty() => self.expr(c, field, ExprMode::Read).map(Some),
            _ => Ok(None),
        }
    }
}

fn component_field(index: usize) -> String {
    if index == 0 {
        "spec.structureDefinition.rootComponent".into()
    } else {
        format!("spec.structureDefinition.childComponents[{}]", index - 1)
    }
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
        let compiled = (|| -> Result<(Vec<Comp>, Option<crate::gang::Gang>, Option<Expr>)> {
            let defs: Vec<ComponentDefinition> = definition.components().cloned().collect();
            // Owners by name, in one pass (validation guarantees the names
            // exist and there is no cycle); the tree's depth is checked
            // before anything is compiled.
            let parents = crate::resolve::owners(&defs);
            crate::resolve::check_tree_depth(&parents, |i| defs[i].name.clone(), &effective)
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
                comps.push(compile_component(&ctx, i, d)?);
            }
            // Link parents and children.
            for (i, p) in parents.into_iter().enumerate() {
                if let Some(p) = p {
                    comps[i].parent = Some(p);
                    comps[p].children.push(i);
                }
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
            Ok((comps, gang, ownership))
        })();
        let (comps, gang, ownership) = match compiled {
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
        Ok(CompiledDefinition {
            definition,
            origin,
            limits,
            comps,
            warnings,
            gang,
            ownership,
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

fn compile_component(ctx: &Ctx<'_>, index: usize, d: &ComponentDefinition) -> Result<Comp> {
    let field = component_field(index);
    let ids = ctx.opt(
        d.instance_id_path.as_ref(),
        format!("{field}.instanceIdPath"),
    )?;
    let (pod, metadata) = crate::pods::compile(ctx, &field, d)?;
    let scale = crate::scale::compile(ctx, &field, d)?;
    let status = crate::status::compile(ctx, &field, d)?;
    let suspend = crate::suspend::compile(ctx, &field, d)?;
    let (type_selector, instance_selector, replica_selector) =
        crate::selectors::compile(ctx, &field, d)?;
    Ok(Comp {
        name: d.name.clone(),
        def: d.clone(),
        parent: None,
        children: Vec::new(),
        ids,
        pod,
        metadata,
        scale,
        status,
        suspend,
        type_selector,
        instance_selector,
        replica_selector,
    })
}
