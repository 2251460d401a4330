//! Validation of definitions.
//!
//! [`validate`] checks every rule of the reference validator and the rules
//! the reference leaves to its consumers or to the CRD schema, and returns all
//! findings at once (errors and warnings). Unlike the reference it never
//! stops early: duplicate component names do not hide the other errors, and
//! ownership cycles are reported even when other structure errors exist (the
//! cycle search visits every component at most once, so it always ends).
//!
//! Findings come in the order of the definition's fields (root component,
//! then children in order, then gang scheduling); [`validate_loaded`] adds the
//! reading warnings, fills line/column from the source and sorts everything by
//! position in the text. Every rule has a stable kebab-case code, listed in
//! [`codes`]; `docs/validation.md` is the reference table.
//!
//! Field paths use the definition's JSON names, e.g.
//! `spec.structureDefinition.childComponents[1].specDefinition.podTemplateSpecPath`.

use crate::definition::LoadedDefinition;
use crate::error::{Finding, Location, Severity};
use crate::jq::{ExprMode, JqIssueKind, Program, check_expression};
use crate::limits::Limits;
use crate::model::{ComponentDefinition, Definition};
use crate::source::{SpanIndex, path_push_index, path_push_key};
use std::collections::HashMap;

pub(crate) mod codes;

use codes::*;

/// What every feature's validation uses.
pub(crate) mod prelude {
    pub(crate) use super::codes::*;
    pub(crate) use super::{
        ComponentCx, GANG, Validator, blank, label_key_errors, label_value_errors, quoted,
    };
    pub(crate) use crate::jq::ExprMode;
    pub(crate) use crate::model::{ComponentDefinition, StatusKey, StatusMatcher, Topology};
    pub(crate) use crate::source::{path_push_index, path_push_key};
    pub(crate) use serde_json::Value;
    pub(crate) use std::collections::HashSet;
}

/// The component being validated.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ComponentCx<'p> {
    /// The root component.
    pub root: bool,
    /// Its field path (`spec.structureDefinition.childComponents[0]`).
    pub path: &'p str,
    /// Its name.
    pub name: &'p str,
}

pub(crate) const STRUCTURE: &str = "spec.structureDefinition";
pub(crate) const GANG: &str = "spec.optimizationInstructions.gangScheduling";

/// Validate a definition: every finding, errors and warnings, in the order
/// of the definition's fields.
pub(crate) fn validate(def: &Definition, limits: &Limits) -> Vec<Finding> {
    let mut v = Validator::new(def, limits, true);
    v.run();
    v.out
}

/// [`validate`] without compiling the expressions that pass the static
/// checks: for callers that compile them next and report the compile error
/// themselves (compiling twice would double the cost of loading).
pub(crate) fn validate_static(def: &Definition, limits: &Limits) -> Vec<Finding> {
    let mut v = Validator::new(def, limits, false);
    v.run();
    v.out
}

/// Validate a definition read from text: the reading warnings plus
/// [`validate`]'s findings, with line/column (and document) filled in from
/// the source and sorted by position in the text (stable: findings at the
/// same position keep their order).
pub(crate) fn validate_loaded(loaded: &LoadedDefinition, limits: &Limits) -> Vec<Finding> {
    locate_findings(loaded, validate(&loaded.definition, limits))
}

/// [`validate_loaded`] with [`validate_static`].
pub(crate) fn validate_loaded_static(loaded: &LoadedDefinition, limits: &Limits) -> Vec<Finding> {
    locate_findings(loaded, validate_static(&loaded.definition, limits))
}

fn locate_findings(loaded: &LoadedDefinition, findings: Vec<Finding>) -> Vec<Finding> {
    let mut all = loaded.warnings.clone();
    all.extend(findings);
    locate(&loaded.spans, loaded.document, &mut all);
    all
}

/// Fill in line/column (and `document`, where unset) from the source, then
/// sort by position in the text (stable: findings at the same position keep
/// their order).
pub(crate) fn locate(spans: &SpanIndex, document: Option<usize>, findings: &mut [Finding]) {
    for f in findings.iter_mut() {
        spans.locate(&mut f.location);
        if f.location.document.is_none() {
            f.location.document = document;
        }
    }
    if !findings.is_empty() && !spans.is_empty() {
        findings.sort_by_key(|f| {
            (
                f.location.line.unwrap_or(usize::MAX),
                f.location.column.unwrap_or(usize::MAX),
            )
        });
    }
}

/// True when `findings` has at least one error.
pub(crate) fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

pub(crate) fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// `'name'` as used in messages.
pub(crate) fn quoted(s: &str) -> String {
    format!("'{s}'")
}

/// An expression as quoted in messages (long ones shortened; the full text
/// is in the location).
pub(crate) fn shown(expr: &str) -> String {
    const MAX: usize = 120;
    if expr.chars().count() <= MAX {
        return expr.to_string();
    }
    let cut: String = expr.chars().take(MAX).collect();
    format!("{cut}...")
}

pub(crate) struct Validator<'a> {
    pub(crate) def: &'a Definition,
    pub(crate) limits: &'a Limits,
    /// Also compile each expression (undefined functions and variables).
    pub(crate) deep: bool,
    pub(crate) out: Vec<Finding>,
    /// Component name -> index of its first occurrence (root is 0, child i
    /// is i + 1).
    pub(crate) first: HashMap<&'a str, usize>,
    /// Cycles, by the index of their first component (in document order).
    pub(crate) cycles: HashMap<usize, Vec<usize>>,
}

impl<'a> Validator<'a> {
    fn new(def: &'a Definition, limits: &'a Limits, deep: bool) -> Self {
        let mut first = HashMap::new();
        for (i, c) in def.components().enumerate() {
            first.entry(c.name.as_str()).or_insert(i);
        }
        let mut v = Validator {
            def,
            limits,
            deep,
            out: Vec::new(),
            first,
            cycles: HashMap::new(),
        };
        v.find_cycles();
        v
    }

    pub(crate) fn components(&self) -> Vec<&'a ComponentDefinition> {
        self.def.components().collect()
    }

    pub(crate) fn component_path(index: usize) -> String {
        if index == 0 {
            path_push_key(STRUCTURE, "rootComponent")
        } else {
            path_push_index(&path_push_key(STRUCTURE, "childComponents"), index - 1)
        }
    }

    pub(crate) fn push(
        &mut self,
        severity: Severity,
        code: &str,
        message: String,
        location: Location,
    ) {
        self.out.push(Finding {
            code: code.to_string(),
            severity,
            message,
            location,
        });
    }

    pub(crate) fn error(
        &mut self,
        code: &str,
        message: String,
        field: String,
        component: Option<&str>,
    ) {
        let location = Location {
            field: Some(field),
            component: component.filter(|c| !c.is_empty()).map(str::to_string),
            ..Location::default()
        };
        self.push(Severity::Error, code, message, location);
    }

    /// Check one jq expression (blank ones are skipped).
    pub(crate) fn expr(
        &mut self,
        expr: &str,
        field: String,
        mode: ExprMode,
        component: Option<&str>,
    ) {
        if blank(expr) {
            return;
        }
        let checked = if self.deep {
            // Charged to the call; once it runs out, the caller reports
            // the limit (`budget::breached`) instead of findings.
            if crate::budget::compile(expr).is_err() {
                return;
            }
            Program::compile(expr, mode, &[], self.limits).map(drop)
        } else {
            // Checking is work of the call too (100,000 expressions are
            // not parsed for free).
            if crate::budget::check(expr).is_err() {
                return;
            }
            check_expression(expr, mode, self.limits)
        };
        let Err(issue) = checked else {
            return;
        };
        // The field is the finding's location, so the message names only
        // the expression (shortened) and what is wrong with it.
        let (code, message) = match issue.kind {
            JqIssueKind::Undefined => (
                JQ_UNDEFINED,
                format!("jq expression '{}': {}", shown(expr), issue.message),
            ),
            JqIssueKind::Syntax => (
                JQ_SYNTAX,
                format!(
                    "jq expression '{}' does not parse: {}",
                    shown(expr),
                    issue.message
                ),
            ),
            JqIssueKind::Denied => (
                JQ_DENIED,
                format!("jq expression '{}': {}", shown(expr), issue.message),
            ),
            JqIssueKind::Limit => (
                JQ_LIMIT,
                format!(
                    "jq expression over the limit {}: {} (raise the limit, or shorten the expression)",
                    issue.limit.unwrap_or("maxExpressionBytes"),
                    issue.message
                ),
            ),
        };
        let location = Location {
            field: Some(field),
            expression: Some(expr.to_string()),
            span: issue.span,
            component: component.filter(|c| !c.is_empty()).map(str::to_string),
            ..Location::default()
        };
        self.push(Severity::Error, code, message, location);
    }

    pub(crate) fn opt_expr(
        &mut self,
        expr: Option<&String>,
        field: String,
        component: Option<&str>,
    ) {
        if let Some(e) = expr {
            self.expr(e, field, ExprMode::Read, component);
        }
    }

    /// Index of the component named by `c.ownerRef`, if any.
    pub(crate) fn owner_of(&self, c: &ComponentDefinition) -> Option<usize> {
        let owner = c.owner_ref.as_deref().filter(|o| !o.is_empty())?;
        self.first.get(owner).copied()
    }

    /// Every ownership cycle, once. Each component is visited once overall.
    fn find_cycles(&mut self) {
        let comps = self.components();
        let mut state = vec![0u8; comps.len()]; // 0 new, 1 on the current walk, 2 done
        for start in 0..comps.len() {
            if state.get(start) != Some(&0) {
                continue;
            }
            let mut walk: Vec<usize> = Vec::new();
            let mut cur = start;
            loop {
                match state.get(cur) {
                    Some(0) => {
                        if let Some(s) = state.get_mut(cur) {
                            *s = 1;
                        }
                        walk.push(cur);
                        match comps.get(cur).and_then(|c| self.owner_of(c)) {
                            Some(next) => cur = next,
                            None => break,
                        }
                    }
                    Some(1) => {
                        if let Some(pos) = walk.iter().position(|&w| w == cur) {
                            let mut cycle: Vec<usize> = walk.get(pos..).unwrap_or(&[]).to_vec();
                            if let Some(min_pos) = cycle
                                .iter()
                                .enumerate()
                                .min_by_key(|(_, idx)| **idx)
                                .map(|(i, _)| i)
                            {
                                cycle.rotate_left(min_pos);
                            }
                            if let Some(&head) = cycle.first() {
                                self.cycles.insert(head, cycle);
                            }
                        }
                        break;
                    }
                    _ => break,
                }
            }
            for w in walk {
                if let Some(s) = state.get_mut(w) {
                    *s = 2;
                }
            }
        }
    }

    fn run(&mut self) {
        let comps = self.components();
        for (index, c) in comps.iter().enumerate() {
            self.component(index, c);
        }
        if !comps.iter().any(|c| c.has_pod_definition()) {
            self.out.push(Finding::warning(
                NO_POD_DEFINITION,
                "no component has a pod definition (podTemplateSpecPath, podSpecPath or fragmentedPodSpecDefinition)",
                STRUCTURE,
            ));
        }
        self.gang_scheduling();
        if let Some(o) = &self.def.spec.pod_ownership {
            self.expr(
                &o.labels_path,
                "spec.podOwnership.labelsPath".into(),
                ExprMode::Read,
                None,
            );
            if !o.current_labels_path.trim().is_empty() {
                self.expr(
                    &o.current_labels_path,
                    "spec.podOwnership.currentLabelsPath".into(),
                    ExprMode::Read,
                    None,
                );
            }
        }
    }

    fn component(&mut self, index: usize, c: &'a ComponentDefinition) {
        let root = index == 0;
        let path = Self::component_path(index);
        let name = c.name.as_str();
        let comp = Some(name);
        let key = |k: &str| path_push_key(&path, k);

        // name
        if name.is_empty() {
            self.error(
                EMPTY_COMPONENT_NAME,
                "component name is empty".into(),
                key("name"),
                comp,
            );
        }
        if self.first.get(name).is_some_and(|&f| f != index) {
            self.error(
                DUPLICATE_COMPONENT_NAME,
                format!("component name {} is not unique", quoted(name)),
                key("name"),
                comp,
            );
        }

        // kind
        if root {
            let complete = c.kind.as_ref().is_some_and(|k| {
                !k.version.is_empty()
                    && !k.kind.is_empty()
                    && (!k.group.is_empty() || k.kind == "Pod")
            });
            if !complete {
                self.error(
                    ROOT_KIND_INCOMPLETE,
                    "root component must have full kind (group, version, kind)".into(),
                    key("kind"),
                    comp,
                );
            }
        }

        // ownerRef
        if root {
            if c.owner_ref.is_some() {
                self.error(
                    ROOT_OWNER_REF,
                    "root component cannot have owner ref".into(),
                    key("ownerRef"),
                    comp,
                );
            }
        } else {
            match c.owner_ref.as_deref() {
                None | Some("") => self.error(
                    MISSING_OWNER_REF,
                    format!("child component {} has no owner ref", quoted(name)),
                    key("ownerRef"),
                    comp,
                ),
                Some(owner) if !self.first.contains_key(owner) => self.error(
                    UNKNOWN_OWNER_REF,
                    format!(
                        "child component {} has owner ref to non-existing component {}",
                        quoted(name),
                        quoted(owner)
                    ),
                    key("ownerRef"),
                    comp,
                ),
                Some(_) => {}
            }
        }
        if let Some(cycle) = self.cycles.get(&index).cloned() {
            let comps = self.components();
            let mut chain: Vec<&str> = cycle
                .iter()
                .map(|&i| comps.get(i).map_or("", |c| c.name.as_str()))
                .collect();
            chain.push(name);
            self.error(
                OWNERSHIP_CYCLE,
                format!(
                    "ownership cycle detected involving component {} ({})",
                    quoted(name),
                    chain.join(" -> ")
                ),
                key("ownerRef"),
                comp,
            );
        }

        let cx = ComponentCx {
            root,
            path: &path,
            name,
        };
        self.check_pods(c, &cx);
        self.check_scale(c, &cx);
        self.check_status(c, &cx);
        self.check_selectors(c, &cx);
        self.check_suspend(c, &cx);
    }
}

// ---------------------------------------------------------------------------
// Kubernetes label syntax (k8s.io/apimachinery/pkg/util/validation)
// ---------------------------------------------------------------------------

mod k8s;
pub(crate) use k8s::{label_key_errors, label_value_errors};
