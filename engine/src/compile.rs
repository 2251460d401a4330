//! Compiling a definition once into an immutable, reusable object.

use crate::error::{Error, ErrorCode, Finding, Location, Result, Severity};
use crate::jq::{EvalError, ExprMode, Input, JqIssue, JqIssueKind, Program};
use crate::limits::Limits;
use crate::model::{
    ComponentDefinition, Definition, ExpectedCondition, FRAGMENT_FIELDS, FragmentField, Gvk,
    STATUS_ORDER, StatusKey,
};
use crate::source::SpanIndex;
use serde_json::Value;

/// Where a definition came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Origin {
    /// The bundled catalog.
    Catalog,
    /// Supplied by the user.
    #[default]
    User,
}

impl Origin {
    /// `catalog` or `user`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Catalog => "catalog",
            Origin::User => "user",
        }
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
}

impl Expr {
    pub(crate) fn location(&self) -> Location {
        Location {
            field: Some(self.field.clone()),
            expression: Some(self.program.code().to_string()),
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
        EvalError::Limit { limit, message } => Error::limit(limit, message),
    }
}

/// How a component's pods are defined.
#[derive(Debug)]
pub(crate) enum PodDef {
    None,
    Template(Expr),
    Spec(Expr),
    Fragmented(Vec<(FragmentField, Expr)>),
}

#[derive(Debug)]
pub(crate) struct Matcher {
    pub by_phase: Option<String>,
    pub by_conditions: Vec<ExpectedCondition>,
    pub by_expression: Option<(Expr, String)>,
    pub field: String,
}

#[derive(Debug)]
pub(crate) struct StatusDef {
    pub phase: Option<Expr>,
    pub conditions: Option<ConditionsDef>,
    pub mappings: Vec<(StatusKey, Vec<Matcher>)>,
}

#[derive(Debug)]
pub(crate) struct ConditionsDef {
    pub expr: Expr,
    pub type_field: String,
    pub status_field: String,
    pub message_field: String,
    pub reason_field: String,
}

#[derive(Debug)]
pub(crate) struct Comp {
    pub name: String,
    pub def: ComponentDefinition,
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    pub ids: Option<Expr>,
    pub pod: PodDef,
    pub metadata: Option<Expr>,
    pub scale: Option<[Option<Expr>; 3]>,
    pub status: Option<StatusDef>,
    /// Compiled suspend and resume actions: (path, decoded value).
    pub suspend: Option<[Vec<(Expr, Value)>; 2]>,
    /// `podSelector.componentTypeSelector`.
    pub type_selector: Option<TypeSelector>,
    /// `podSelector.componentInstanceSelector.idPath`.
    pub instance_selector: Option<Expr>,
    /// `podSelector.replicaSelector.keyPath`.
    pub replica_selector: Option<Expr>,
}

/// A compiled component type selector.
#[derive(Debug)]
pub(crate) struct TypeSelector {
    pub key_path: Option<Expr>,
    pub value: Option<String>,
    pub match_labels: std::collections::BTreeMap<String, String>,
}

/// Compiled gang-scheduling instructions.
#[derive(Debug, Default)]
pub(crate) struct Gang {
    /// `podGroups`: (name, members).
    pub groups: Vec<(String, Vec<Member>)>,
    /// `podGroup` (subgroups and topology).
    pub v2: Option<crate::model::PodGroupV2>,
    /// Per component index: candidate (group, member) pairs, own component
    /// first, then ancestors nearest first.
    pub candidates: Vec<Vec<(usize, usize)>>,
}

/// A compiled pod-group member.
#[derive(Debug)]
pub(crate) struct Member {
    pub component: usize,
    pub keys: Vec<Expr>,
    pub filters: Vec<Expr>,
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
    pub(crate) gang: Option<Gang>,
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
    e.findings = findings;
    e
}

struct Ctx<'a> {
    limits: &'a Limits,
    spans: Option<&'a SpanIndex>,
}

impl Ctx<'_> {
    fn expr(&self, code: &str, field: String, mode: ExprMode) -> Result<Expr> {
        Program::compile(code, mode, &[], self.limits)
            .map(|program| Expr {
                program,
                field: field.clone(),
                paths: std::sync::OnceLock::new(),
                mode,
            })
            .map_err(|issue| self.issue_error(issue, code, field))
    }

    fn issue_error(&self, issue: JqIssue, code: &str, field: String) -> Error {
        let mut e = match issue.kind {
            JqIssueKind::Limit => {
                Error::limit(issue.limit.unwrap_or("maxExpressionBytes"), issue.message)
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

    fn opt(&self, code: Option<&String>, field: String) -> Result<Option<Expr>> {
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
    pub fn compile_with(
        definition: Definition,
        limits: Limits,
        origin: Origin,
    ) -> Result<CompiledDefinition> {
        let findings = crate::validate::validate_static(&definition, &limits);
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
    pub fn all_from_text(
        text: &str,
        limits: Limits,
        origin: Origin,
    ) -> Result<Vec<CompiledDefinition>> {
        let loaded = crate::definition::read_definitions(text, &limits)?;
        let mut out = Vec::with_capacity(loaded.len());
        for l in loaded {
            let findings = crate::validate::validate_loaded_static(&l, &limits);
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
        }
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
        let compiled = (|| -> Result<(Vec<Comp>, Option<Gang>)> {
            let defs: Vec<ComponentDefinition> = definition.components().cloned().collect();
            let mut comps = Vec::with_capacity(defs.len());
            for (i, d) in defs.iter().enumerate() {
                comps.push(compile_component(&ctx, i, d)?);
            }
            // Link parents and children (validation guarantees the names
            // exist and there is no cycle).
            for i in 1..comps.len() {
                let owner = comps[i].def.owner_ref.clone().unwrap_or_default();
                if let Some(p) = comps.iter().position(|c| c.name == owner) {
                    comps[i].parent = Some(p);
                    comps[p].children.push(i);
                }
            }
            let gang = compile_gang(&ctx, &definition, &comps)?;
            Ok((comps, gang))
        })();
        let (comps, gang) = match compiled {
            Ok(c) => c,
            // Loading validates without compiling (compiling is what comes
            // next); an expression that then fails to compile because it
            // names an undefined function is a validation finding like the
            // others: report every one, as `validate` does.
            Err(e) if e.code == ErrorCode::JqCompile => {
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

    /// The same definition, marked as coming from `origin`.
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
    let sd = format!("{field}.specDefinition");
    let (pod, metadata) = match &d.spec_definition {
        None => (PodDef::None, None),
        Some(s) => {
            let metadata = ctx.opt(s.metadata_path.as_ref(), format!("{sd}.metadataPath"))?;
            let pod = if let Some(p) = ctx.opt(
                s.pod_template_spec_path.as_ref(),
                format!("{sd}.podTemplateSpecPath"),
            )? {
                PodDef::Template(p)
            } else if let Some(p) =
                ctx.opt(s.pod_spec_path.as_ref(), format!("{sd}.podSpecPath"))?
            {
                PodDef::Spec(p)
            } else if let Some(f) = &s.fragmented_pod_spec_definition {
                let mut fields = Vec::new();
                for ff in FRAGMENT_FIELDS {
                    let key = format!("{sd}.fragmentedPodSpecDefinition.{}", ff.path_key());
                    if let Some(e) = ctx.opt(f.path(ff), key)? {
                        fields.push((ff, e));
                    }
                }
                PodDef::Fragmented(fields)
            } else {
                PodDef::None
            };
            (pod, metadata)
        }
    };
    let scale = match &d.scale_definition {
        None => None,
        Some(s) => {
            let sf = format!("{field}.scaleDefinition");
            Some([
                ctx.opt(s.replicas_path.as_ref(), format!("{sf}.replicasPath"))?,
                ctx.opt(
                    s.min_replicas_path.as_ref(),
                    format!("{sf}.minReplicasPath"),
                )?,
                ctx.opt(
                    s.max_replicas_path.as_ref(),
                    format!("{sf}.maxReplicasPath"),
                )?,
            ])
        }
    };
    let status = match &d.status_definition {
        None => None,
        Some(s) => {
            let stf = format!("{field}.statusDefinition");
            let phase = match &s.phase_definition {
                Some(p) => ctx.opt(Some(&p.path), format!("{stf}.phaseDefinition.path"))?,
                None => None,
            };
            let conditions = match &s.conditions_definition {
                Some(c) => ctx
                    .opt(Some(&c.path), format!("{stf}.conditionsDefinition.path"))?
                    .map(|expr| ConditionsDef {
                        expr,
                        type_field: c.type_field_name.clone().unwrap_or_else(|| "type".into()),
                        status_field: c
                            .status_field_name
                            .clone()
                            .unwrap_or_else(|| "status".into()),
                        message_field: c
                            .message_field_name
                            .clone()
                            .unwrap_or_else(|| "message".into()),
                        reason_field: c
                            .reason_field_name
                            .clone()
                            .unwrap_or_else(|| "reason".into()),
                    }),
                None => None,
            };
            let mut mappings = Vec::new();
            for key in STATUS_ORDER {
                let Some(list) = s.status_mappings.get(key) else {
                    continue;
                };
                let mut ms = Vec::with_capacity(list.len());
                for (i, m) in list.iter().enumerate() {
                    let mf = format!("{stf}.statusMappings.{}[{i}]", key.key());
                    let by_expression = match &m.by_expression {
                        Some(b) => ctx
                            .opt(Some(&b.expression), format!("{mf}.byExpression.expression"))?
                            .map(|e| (e, b.expected_result.clone())),
                        None => None,
                    };
                    ms.push(Matcher {
                        by_phase: m.by_phase.clone().filter(|p| !p.is_empty()),
                        by_conditions: m.by_conditions.clone().unwrap_or_default(),
                        by_expression,
                        field: mf,
                    });
                }
                mappings.push((key, ms));
            }
            Some(StatusDef {
                phase,
                conditions,
                mappings,
            })
        }
    };
    let suspend = match &d.suspend_definition {
        None => None,
        Some(sd) => {
            let mut lists: [Vec<(Expr, Value)>; 2] = Default::default();
            for (k, (key, actions)) in [
                ("suspendActions", &sd.suspend_actions),
                ("resumeActions", &sd.resume_actions),
            ]
            .into_iter()
            .enumerate()
            {
                for (i, a) in actions.iter().enumerate() {
                    let af = format!("{field}.suspendDefinition.{key}[{i}]");
                    let value: Value = serde_json::from_str(&a.value).map_err(|e| {
                        Error::new(
                            ErrorCode::Validation,
                            format!("{key}[{i}]: failed to decode value {:?}: {e}", a.value),
                        )
                        .at_field(format!("{af}.value"))
                    })?;
                    let e = ctx.expr(&a.path, format!("{af}.path"), ExprMode::Action)?;
                    lists[k].push((e, value));
                }
            }
            Some(lists)
        }
    };
    let psf = format!("{field}.podSelector");
    let (type_selector, instance_selector, replica_selector) = match &d.pod_selector {
        None => (None, None, None),
        Some(ps) => {
            let ts = match &ps.component_type_selector {
                None => None,
                Some(t) => Some(TypeSelector {
                    key_path: ctx.opt(
                        t.key_path.as_ref(),
                        format!("{psf}.componentTypeSelector.keyPath"),
                    )?,
                    value: t.value.clone(),
                    match_labels: t.match_labels.clone().unwrap_or_default(),
                }),
            };
            let is = match &ps.component_instance_selector {
                None => None,
                Some(i) => ctx.opt(
                    Some(&i.id_path),
                    format!("{psf}.componentInstanceSelector.idPath"),
                )?,
            };
            let rs = match &ps.replica_selector {
                None => None,
                Some(r) => ctx.opt(Some(&r.key_path), format!("{psf}.replicaSelector.keyPath"))?,
            };
            (ts, is, rs)
        }
    };
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

fn compile_gang(ctx: &Ctx<'_>, def: &Definition, comps: &[Comp]) -> Result<Option<Gang>> {
    let Some(gs) = def
        .spec
        .optimization_instructions
        .as_ref()
        .and_then(|o| o.gang_scheduling.as_ref())
    else {
        return Ok(None);
    };
    let base = "spec.optimizationInstructions.gangScheduling";
    let mut gang = Gang {
        v2: gs.pod_group.clone(),
        ..Gang::default()
    };
    for (gi, g) in gs.pod_groups.iter().flatten().enumerate() {
        let mut members = Vec::new();
        for (mi, m) in g.members.iter().enumerate() {
            let mf = format!("{base}.podGroups[{gi}].members[{mi}]");
            let Some(component) = comps.iter().position(|c| c.name == m.component_name) else {
                continue;
            };
            let mut keys = Vec::new();
            for (ki, k) in m.group_by_key_paths.iter().enumerate() {
                if let Some(e) = ctx.opt(Some(k), format!("{mf}.groupByKeyPaths[{ki}]"))? {
                    keys.push(e);
                }
            }
            let mut filters = Vec::new();
            for (fi, f) in m.filters.iter().enumerate() {
                if let Some(e) = ctx.opt(Some(f), format!("{mf}.filters[{fi}]"))? {
                    filters.push(e);
                }
            }
            members.push(Member {
                component,
                keys,
                filters,
            });
        }
        gang.groups.push((g.name.clone(), members));
    }
    // Candidates: walk each component and its ancestors; own members first,
    // then ancestors' (nearest first), each in group then member order.
    for ci in 0..comps.len() {
        let mut chain = vec![ci];
        let mut cur = comps[ci].parent;
        while let Some(p) = cur {
            if chain.contains(&p) {
                break;
            }
            chain.push(p);
            cur = comps[p].parent;
        }
        let mut cands = Vec::new();
        for x in chain {
            for (gi, (_, members)) in gang.groups.iter().enumerate() {
                for (mi, m) in members.iter().enumerate() {
                    if m.component == x {
                        cands.push((gi, mi));
                    }
                }
            }
        }
        gang.candidates.push(cands);
    }
    Ok(Some(gang))
}
