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

// `Error` is the crate-wide error type (about 270 bytes), returned by value
// throughout the crate.

use crate::definition::LoadedDefinition;
use crate::error::{Finding, Location, Severity};
use crate::jq::{ExprMode, JqIssueKind, Program, check_expression};
use crate::limits::Limits;
use crate::model::{ComponentDefinition, Definition, StatusKey, StatusMatcher, Topology};
use crate::source::{SpanIndex, path_push_index, path_push_key};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The stable codes of the validation findings.
pub mod codes {
    /// Two components have the same name (reported at the later one).
    pub const DUPLICATE_COMPONENT_NAME: &str = "duplicate-component-name";
    /// A component has an empty name.
    pub const EMPTY_COMPONENT_NAME: &str = "empty-component-name";
    /// The root has no complete kind (group may be empty only for `Pod`).
    pub const ROOT_KIND_INCOMPLETE: &str = "root-kind-incomplete";
    /// The root has an `ownerRef`.
    pub const ROOT_OWNER_REF: &str = "root-owner-ref";
    /// The root has no `statusDefinition`.
    pub const ROOT_STATUS_DEFINITION_MISSING: &str = "root-status-definition-missing";
    /// A child has no (or an empty) `ownerRef`.
    pub const MISSING_OWNER_REF: &str = "missing-owner-ref";
    /// A child's `ownerRef` names no component.
    pub const UNKNOWN_OWNER_REF: &str = "unknown-owner-ref";
    /// More than one of `podTemplateSpecPath`, `podSpecPath`,
    /// `fragmentedPodSpecDefinition`.
    pub const MULTIPLE_POD_SPEC_DEFINITIONS: &str = "multiple-pod-spec-definitions";
    /// `instanceIdPath` without `podSelector.componentInstanceSelector`.
    pub const INSTANCE_ID_PATH_WITHOUT_SELECTOR: &str = "instance-id-path-without-selector";
    /// `componentInstanceSelector` without `instanceIdPath`.
    pub const INSTANCE_SELECTOR_WITHOUT_ID_PATH: &str = "instance-selector-without-id-path";
    /// `componentTypeSelector` with neither `keyPath` nor `matchLabels`.
    pub const TYPE_SELECTOR_EMPTY: &str = "type-selector-empty";
    /// `componentTypeSelector.matchLabels` is an empty map.
    pub const TYPE_SELECTOR_EMPTY_MATCH_LABELS: &str = "type-selector-empty-match-labels";
    /// `componentTypeSelector.value` without `keyPath`.
    pub const TYPE_SELECTOR_VALUE_WITHOUT_KEY_PATH: &str = "type-selector-value-without-key-path";
    /// A `matchLabels` key is not a valid Kubernetes label key.
    pub const INVALID_LABEL_KEY: &str = "invalid-label-key";
    /// A `matchLabels` value is not a valid Kubernetes label value.
    pub const INVALID_LABEL_VALUE: &str = "invalid-label-value";
    /// `ownerRef` links form a cycle.
    pub const OWNERSHIP_CYCLE: &str = "ownership-cycle";
    /// A `podGroups[].members[].componentName` names no component.
    pub const UNDEFINED_POD_GROUP_MEMBER: &str = "undefined-pod-group-member";
    /// Two pod groups have the same name.
    pub const DUPLICATE_POD_GROUP_NAME: &str = "duplicate-pod-group-name";
    /// A pod group lists the same member component twice.
    pub const DUPLICATE_POD_GROUP_MEMBER: &str = "duplicate-pod-group-member";
    /// A `podGroup.subGroups[].componentName` is empty.
    pub const EMPTY_SUBGROUP_COMPONENT_NAME: &str = "empty-subgroup-component-name";
    /// A `podGroup.subGroups[].componentName` names no component.
    pub const UNDEFINED_SUBGROUP_COMPONENT: &str = "undefined-subgroup-component";
    /// Two subgroups name the same component.
    pub const DUPLICATE_SUBGROUP_COMPONENT: &str = "duplicate-subgroup-component";
    /// A topology without `topologyName`.
    pub const TOPOLOGY_MISSING_NAME: &str = "topology-missing-name";
    /// A topology with neither `preferredTopologyLevel` nor `requiredTopologyLevel`.
    pub const TOPOLOGY_MISSING_LEVEL: &str = "topology-missing-level";
    /// `suspendActions` or `resumeActions` is empty.
    pub const EMPTY_ACTION_LIST: &str = "empty-action-list";
    /// A suspend/resume action has an empty `path`.
    pub const EMPTY_ACTION_PATH: &str = "empty-action-path";
    /// A suspend/resume action `value` is not valid JSON.
    pub const INVALID_ACTION_VALUE: &str = "invalid-action-value";
    /// `phaseDefinition.path` is empty.
    pub const EMPTY_PHASE_PATH: &str = "empty-phase-path";
    /// `conditionsDefinition.path` is empty.
    pub const EMPTY_CONDITIONS_PATH: &str = "empty-conditions-path";
    /// `byConditions[].type` is empty.
    pub const EMPTY_CONDITION_TYPE: &str = "empty-condition-type";
    /// `byExpression.expression` is empty.
    pub const EMPTY_EXPRESSION: &str = "empty-expression";
    /// `componentInstanceSelector.idPath` is empty.
    pub const EMPTY_INSTANCE_SELECTOR_ID_PATH: &str = "empty-instance-selector-id-path";
    /// `replicaSelector.keyPath` is empty.
    pub const EMPTY_REPLICA_SELECTOR_KEY_PATH: &str = "empty-replica-selector-key-path";
    /// Warning: no component has a pod definition.
    pub const NO_POD_DEFINITION: &str = "no-pod-definition";
    /// A jq expression does not parse.
    pub const JQ_SYNTAX: &str = "jq-syntax";
    /// A jq expression uses a denied construct.
    pub const JQ_DENIED: &str = "jq-denied";
    /// A jq expression exceeds a size/nesting limit.
    pub const JQ_LIMIT: &str = "jq-limit";
    /// A jq expression parses but calls a function (or uses a variable)
    /// that does not exist, so it cannot be compiled.
    pub const JQ_UNDEFINED: &str = "jq-undefined";
    /// Warning (reading): an unknown field is ignored.
    pub const UNKNOWN_FIELD: &str = "unknown-field";
    /// Warning (reading): a `Karta`-only field in a `ResourceInterface`.
    pub const NEWER_GENERATION_FIELD: &str = "newer-generation-field";
}

use codes::*;

const STRUCTURE: &str = "spec.structureDefinition";
const GANG: &str = "spec.optimizationInstructions.gangScheduling";

/// Validate a definition: every finding, errors and warnings, in the order
/// of the definition's fields.
pub fn validate(def: &Definition, limits: &Limits) -> Vec<Finding> {
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
pub fn validate_loaded(loaded: &LoadedDefinition, limits: &Limits) -> Vec<Finding> {
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
    if !spans.is_empty() {
        findings.sort_by_key(|f| {
            (
                f.location.line.unwrap_or(usize::MAX),
                f.location.column.unwrap_or(usize::MAX),
            )
        });
    }
}

/// True when `findings` has at least one error.
pub fn has_errors(findings: &[Finding]) -> bool {
    findings.iter().any(|f| f.severity == Severity::Error)
}

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// `'name'` as used in messages.
fn quoted(s: &str) -> String {
    format!("'{s}'")
}

/// An expression as quoted in messages (long ones shortened; the full text
/// is in the location).
fn shown(expr: &str) -> String {
    const MAX: usize = 120;
    if expr.chars().count() <= MAX {
        return expr.to_string();
    }
    let cut: String = expr.chars().take(MAX).collect();
    format!("{cut}...")
}

struct Validator<'a> {
    def: &'a Definition,
    limits: &'a Limits,
    /// Also compile each expression (undefined functions and variables).
    deep: bool,
    out: Vec<Finding>,
    /// Component name -> index of its first occurrence (root is 0, child i
    /// is i + 1).
    first: HashMap<&'a str, usize>,
    /// Cycles, by the index of their first component (in document order).
    cycles: HashMap<usize, Vec<usize>>,
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

    fn components(&self) -> Vec<&'a ComponentDefinition> {
        self.def.components().collect()
    }

    fn component_path(index: usize) -> String {
        if index == 0 {
            path_push_key(STRUCTURE, "rootComponent")
        } else {
            path_push_index(&path_push_key(STRUCTURE, "childComponents"), index - 1)
        }
    }

    fn push(&mut self, severity: Severity, code: &str, message: String, location: Location) {
        self.out.push(Finding {
            code: code.to_string(),
            severity,
            message,
            location,
        });
    }

    fn error(&mut self, code: &str, message: String, field: String, component: Option<&str>) {
        let location = Location {
            field: Some(field),
            component: component.filter(|c| !c.is_empty()).map(str::to_string),
            ..Location::default()
        };
        self.push(Severity::Error, code, message, location);
    }

    /// Check one jq expression (blank ones are skipped).
    fn expr(&mut self, expr: &str, field: String, mode: ExprMode, component: Option<&str>) {
        if blank(expr) {
            return;
        }
        let checked = if self.deep {
            Program::compile(expr, mode, &[], self.limits).map(drop)
        } else {
            check_expression(expr, mode, self.limits)
        };
        let Err(issue) = checked else {
            return;
        };
        let (code, message) = match issue.kind {
            JqIssueKind::Undefined => (
                JQ_UNDEFINED,
                format!(
                    "failed to compile JQ expression '{}' at '{field}': {}",
                    shown(expr),
                    issue.message
                ),
            ),
            JqIssueKind::Syntax => (
                JQ_SYNTAX,
                format!(
                    "failed to parse JQ expression '{}' at '{field}': {}",
                    shown(expr),
                    issue.message
                ),
            ),
            JqIssueKind::Denied => (
                JQ_DENIED,
                format!(
                    "JQ expression '{}' at '{field}' failed validation: {}",
                    shown(expr),
                    issue.message
                ),
            ),
            JqIssueKind::Limit => (
                JQ_LIMIT,
                match issue.limit {
                    Some(limit) => format!(
                        "JQ expression at '{field}' exceeds the limit {limit}: {}",
                        issue.message
                    ),
                    None => format!(
                        "JQ expression at '{field}' exceeds a limit: {}",
                        issue.message
                    ),
                },
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

    fn opt_expr(&mut self, expr: Option<&String>, field: String, component: Option<&str>) {
        if let Some(e) = expr {
            self.expr(e, field, ExprMode::Read, component);
        }
    }

    /// Index of the component named by `c.ownerRef`, if any.
    fn owner_of(&self, c: &ComponentDefinition) -> Option<usize> {
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

        // specDefinition
        if let Some(sd) = &c.spec_definition {
            let sp = key("specDefinition");
            let styles = [
                sd.pod_template_spec_path.is_some(),
                sd.pod_spec_path.is_some(),
                sd.fragmented_pod_spec_definition.is_some(),
            ];
            if styles.iter().filter(|s| **s).count() > 1 {
                self.error(
                    MULTIPLE_POD_SPEC_DEFINITIONS,
                    format!(
                        "component {} has multiple pod spec definitions",
                        quoted(name)
                    ),
                    sp.clone(),
                    comp,
                );
            }
            self.opt_expr(
                sd.pod_template_spec_path.as_ref(),
                path_push_key(&sp, "podTemplateSpecPath"),
                comp,
            );
            self.opt_expr(
                sd.pod_spec_path.as_ref(),
                path_push_key(&sp, "podSpecPath"),
                comp,
            );
            self.opt_expr(
                sd.metadata_path.as_ref(),
                path_push_key(&sp, "metadataPath"),
                comp,
            );
            if let Some(f) = &sd.fragmented_pod_spec_definition {
                let fp = path_push_key(&sp, "fragmentedPodSpecDefinition");
                let fields = [
                    ("schedulerNamePath", &f.scheduler_name_path),
                    ("labelsPath", &f.labels_path),
                    ("annotationsPath", &f.annotations_path),
                    ("resourcesPath", &f.resources_path),
                    ("resourceClaimsPath", &f.resource_claims_path),
                    ("podAffinityPath", &f.pod_affinity_path),
                    ("nodeAffinityPath", &f.node_affinity_path),
                    ("containersPath", &f.containers_path),
                    ("containerPath", &f.container_path),
                    ("priorityClassNamePath", &f.priority_class_name_path),
                    ("imagePath", &f.image_path),
                ];
                for (k, e) in fields {
                    self.opt_expr(e.as_ref(), path_push_key(&fp, k), comp);
                }
            }
        }

        // scaleDefinition
        if let Some(s) = &c.scale_definition {
            let sp = key("scaleDefinition");
            self.opt_expr(
                s.replicas_path.as_ref(),
                path_push_key(&sp, "replicasPath"),
                comp,
            );
            self.opt_expr(
                s.min_replicas_path.as_ref(),
                path_push_key(&sp, "minReplicasPath"),
                comp,
            );
            self.opt_expr(
                s.max_replicas_path.as_ref(),
                path_push_key(&sp, "maxReplicasPath"),
                comp,
            );
        }

        // statusDefinition
        match &c.status_definition {
            None if root => self.error(
                ROOT_STATUS_DEFINITION_MISSING,
                "root component must have status definition".into(),
                key("statusDefinition"),
                comp,
            ),
            None => {}
            Some(sd) => {
                let sp = key("statusDefinition");
                if let Some(p) = &sd.phase_definition {
                    let field = path_push_key(&path_push_key(&sp, "phaseDefinition"), "path");
                    if blank(&p.path) {
                        self.error(
                            EMPTY_PHASE_PATH,
                            format!(
                                "component {} has an empty phaseDefinition.path",
                                quoted(name)
                            ),
                            field,
                            comp,
                        );
                    } else {
                        self.expr(&p.path, field, ExprMode::Read, comp);
                    }
                }
                if let Some(cd) = &sd.conditions_definition {
                    let field = path_push_key(&path_push_key(&sp, "conditionsDefinition"), "path");
                    if blank(&cd.path) {
                        self.error(
                            EMPTY_CONDITIONS_PATH,
                            format!(
                                "component {} has an empty conditionsDefinition.path",
                                quoted(name)
                            ),
                            field,
                            comp,
                        );
                    } else {
                        self.expr(&cd.path, field, ExprMode::Read, comp);
                    }
                }
                let mp = path_push_key(&sp, "statusMappings");
                // Model (and usual document) order of the mapping keys.
                let keys = [
                    StatusKey::Initializing,
                    StatusKey::Running,
                    StatusKey::Completed,
                    StatusKey::Failed,
                    StatusKey::Degraded,
                    StatusKey::Suspended,
                    StatusKey::Suspending,
                    StatusKey::Resuming,
                ];
                for k in keys {
                    if let Some(matchers) = sd.status_mappings.get(k) {
                        let lp = path_push_key(&mp, k.key());
                        for (i, m) in matchers.iter().enumerate() {
                            self.matcher(m, path_push_index(&lp, i), comp);
                        }
                    }
                }
            }
        }

        // instanceIdPath / podSelector
        let id_path = c.instance_id_path.as_deref().filter(|p| !blank(p));
        let instance_selector = c
            .pod_selector
            .as_ref()
            .and_then(|p| p.component_instance_selector.as_ref());
        if id_path.is_some() && instance_selector.is_none() {
            self.error(
                INSTANCE_ID_PATH_WITHOUT_SELECTOR,
                format!(
                    "component {} has instance id path but no pod component instance selector",
                    quoted(name)
                ),
                key("instanceIdPath"),
                comp,
            );
        }
        self.opt_expr(c.instance_id_path.as_ref(), key("instanceIdPath"), comp);
        if let Some(ps) = &c.pod_selector {
            let pp = key("podSelector");
            if let Some(ts) = &ps.component_type_selector {
                let tp = path_push_key(&pp, "componentTypeSelector");
                let has_key_path = ts.key_path.as_deref().is_some_and(|k| !blank(k));
                match &ts.match_labels {
                    None if !has_key_path => self.error(
                        TYPE_SELECTOR_EMPTY,
                        format!(
                            "component {} has a componentTypeSelector with neither keyPath nor matchLabels",
                            quoted(name)
                        ),
                        tp.clone(),
                        comp,
                    ),
                    Some(labels) if labels.is_empty() => self.error(
                        TYPE_SELECTOR_EMPTY_MATCH_LABELS,
                        format!(
                            "component {} has a componentTypeSelector with empty matchLabels",
                            quoted(name)
                        ),
                        path_push_key(&tp, "matchLabels"),
                        comp,
                    ),
                    _ => {}
                }
                if ts.value.is_some() && !has_key_path {
                    self.error(
                        TYPE_SELECTOR_VALUE_WITHOUT_KEY_PATH,
                        format!(
                            "component {} has a componentTypeSelector with value without keyPath",
                            quoted(name)
                        ),
                        path_push_key(&tp, "value"),
                        comp,
                    );
                }
                self.opt_expr(ts.key_path.as_ref(), path_push_key(&tp, "keyPath"), comp);
                if let Some(labels) = &ts.match_labels {
                    let lp = path_push_key(&tp, "matchLabels");
                    // BTreeMap: sorted key order.
                    for (k, v) in labels {
                        let field = path_push_key(&lp, k);
                        for msg in label_key_errors(k) {
                            self.error(
                                INVALID_LABEL_KEY,
                                format!(
                                    "component {} has an invalid componentTypeSelector.matchLabels key: Invalid value: {}: {msg}",
                                    quoted(name),
                                    Value::String(k.clone())
                                ),
                                field.clone(),
                                comp,
                            );
                        }
                        for msg in label_value_errors(v) {
                            self.error(
                                INVALID_LABEL_VALUE,
                                format!(
                                    "component {} has an invalid componentTypeSelector.matchLabels value: Invalid value: {}: {msg}",
                                    quoted(name),
                                    Value::String(v.clone())
                                ),
                                field.clone(),
                                comp,
                            );
                        }
                    }
                }
            }
            if let Some(is) = &ps.component_instance_selector {
                let ip = path_push_key(&pp, "componentInstanceSelector");
                if id_path.is_none() {
                    self.error(
                        INSTANCE_SELECTOR_WITHOUT_ID_PATH,
                        format!(
                            "component {} has pod component instance selector but no instance id path",
                            quoted(name)
                        ),
                        ip.clone(),
                        comp,
                    );
                }
                let field = path_push_key(&ip, "idPath");
                if blank(&is.id_path) {
                    self.error(
                        EMPTY_INSTANCE_SELECTOR_ID_PATH,
                        format!(
                            "component {} has an empty componentInstanceSelector.idPath",
                            quoted(name)
                        ),
                        field,
                        comp,
                    );
                } else {
                    self.expr(&is.id_path, field, ExprMode::Read, comp);
                }
            }
            if let Some(rs) = &ps.replica_selector {
                let field = path_push_key(&path_push_key(&pp, "replicaSelector"), "keyPath");
                if blank(&rs.key_path) {
                    self.error(
                        EMPTY_REPLICA_SELECTOR_KEY_PATH,
                        format!(
                            "component {} has an empty replicaSelector.keyPath",
                            quoted(name)
                        ),
                        field,
                        comp,
                    );
                } else {
                    self.expr(&rs.key_path, field, ExprMode::Read, comp);
                }
            }
        }

        // suspendDefinition
        if let Some(sd) = &c.suspend_definition {
            let sp = key("suspendDefinition");
            for (list_key, actions) in [
                ("suspendActions", &sd.suspend_actions),
                ("resumeActions", &sd.resume_actions),
            ] {
                let lp = path_push_key(&sp, list_key);
                if actions.is_empty() {
                    self.error(
                        EMPTY_ACTION_LIST,
                        format!("component {} has no {list_key}", quoted(name)),
                        lp.clone(),
                        comp,
                    );
                }
                for (i, a) in actions.iter().enumerate() {
                    let ap = path_push_index(&lp, i);
                    let path_field = path_push_key(&ap, "path");
                    if blank(&a.path) {
                        self.error(
                            EMPTY_ACTION_PATH,
                            format!(
                                "component {} has an action with an empty path",
                                quoted(name)
                            ),
                            path_field,
                            comp,
                        );
                    } else {
                        self.expr(&a.path, path_field, ExprMode::Action, comp);
                    }
                    if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(&a.value) {
                        self.error(
                            INVALID_ACTION_VALUE,
                            format!(
                                "component {} has an action value {} that is not valid JSON: {e}",
                                quoted(name),
                                Value::String(a.value.clone())
                            ),
                            path_push_key(&ap, "value"),
                            comp,
                        );
                    }
                }
            }
        }
    }

    fn matcher(&mut self, m: &StatusMatcher, path: String, comp: Option<&str>) {
        if let Some(conditions) = &m.by_conditions {
            let cp = path_push_key(&path, "byConditions");
            for (i, c) in conditions.iter().enumerate() {
                if blank(&c.type_) {
                    self.error(
                        EMPTY_CONDITION_TYPE,
                        "byConditions entry has an empty type".into(),
                        path_push_key(&path_push_index(&cp, i), "type"),
                        comp,
                    );
                }
            }
        }
        if let Some(be) = &m.by_expression {
            let field = path_push_key(&path_push_key(&path, "byExpression"), "expression");
            if blank(&be.expression) {
                self.error(
                    EMPTY_EXPRESSION,
                    "byExpression has an empty expression".into(),
                    field,
                    comp,
                );
            } else {
                self.expr(&be.expression, field, ExprMode::Read, comp);
            }
        }
    }

    fn gang_scheduling(&mut self) {
        let Some(g) = self
            .def
            .spec
            .optimization_instructions
            .as_ref()
            .and_then(|o| o.gang_scheduling.as_ref())
        else {
            return;
        };
        if let Some(groups) = &g.pod_groups {
            let gp = path_push_key(GANG, "podGroups");
            let mut group_names: HashSet<&str> = HashSet::new();
            for (i, group) in groups.iter().enumerate() {
                let p = path_push_index(&gp, i);
                if !group_names.insert(group.name.as_str()) {
                    self.error(
                        DUPLICATE_POD_GROUP_NAME,
                        format!("pod group name {} is not unique", quoted(&group.name)),
                        path_push_key(&p, "name"),
                        None,
                    );
                }
                let mp = path_push_key(&p, "members");
                let mut members: HashSet<&str> = HashSet::new();
                for (j, m) in group.members.iter().enumerate() {
                    let mpath = path_push_index(&mp, j);
                    let cn = m.component_name.as_str();
                    if !self.first.contains_key(cn) {
                        self.error(
                            UNDEFINED_POD_GROUP_MEMBER,
                            format!(
                                "pod-group member component {} is not defined (should be a root or child component)",
                                quoted(cn)
                            ),
                            path_push_key(&mpath, "componentName"),
                            None,
                        );
                    }
                    if !members.insert(cn) {
                        self.error(
                            DUPLICATE_POD_GROUP_MEMBER,
                            format!(
                                "pod group {} lists member component {} more than once",
                                quoted(&group.name),
                                quoted(cn)
                            ),
                            path_push_key(&mpath, "componentName"),
                            None,
                        );
                    }
                    let kp = path_push_key(&mpath, "groupByKeyPaths");
                    for (k, e) in m.group_by_key_paths.iter().enumerate() {
                        self.expr(e, path_push_index(&kp, k), ExprMode::Read, None);
                    }
                    let fp = path_push_key(&mpath, "filters");
                    for (k, e) in m.filters.iter().enumerate() {
                        self.expr(e, path_push_index(&fp, k), ExprMode::Read, None);
                    }
                }
            }
        }
        if let Some(pg) = &g.pod_group {
            let pp = path_push_key(GANG, "podGroup");
            let sp = path_push_key(&pp, "subGroups");
            let mut seen: HashSet<&str> = HashSet::new();
            for (i, sg) in pg.sub_groups.iter().enumerate() {
                let p = path_push_index(&sp, i);
                let cn = sg.component_name.as_str();
                let field = path_push_key(&p, "componentName");
                if blank(cn) {
                    self.error(
                        EMPTY_SUBGROUP_COMPONENT_NAME,
                        "subgroup component name cannot be empty".into(),
                        field,
                        None,
                    );
                } else {
                    if !self.first.contains_key(cn) {
                        self.error(
                            UNDEFINED_SUBGROUP_COMPONENT,
                            format!(
                                "subgroup component {} is not defined (should be a root or child component)",
                                quoted(cn)
                            ),
                            field.clone(),
                            None,
                        );
                    }
                    if !seen.insert(cn) {
                        self.error(
                            DUPLICATE_SUBGROUP_COMPONENT,
                            format!(
                                "pod group {} has more than one subgroup for component {}",
                                quoted(&pg.name),
                                quoted(cn)
                            ),
                            field,
                            None,
                        );
                    }
                }
                if let Some(t) = &sg.topology {
                    self.topology(t, path_push_key(&p, "topology"));
                }
            }
            if let Some(t) = &pg.topology {
                self.topology(t, path_push_key(&pp, "topology"));
            }
        }
    }

    fn topology(&mut self, t: &Topology, path: String) {
        if blank(&t.topology_name) {
            self.error(
                TOPOLOGY_MISSING_NAME,
                "topology must have a topologyName".into(),
                path_push_key(&path, "topologyName"),
                None,
            );
        }
        if blank(&t.preferred_topology_level) && blank(&t.required_topology_level) {
            self.error(
                TOPOLOGY_MISSING_LEVEL,
                "topology must set preferredTopologyLevel or requiredTopologyLevel (or both)"
                    .into(),
                path,
                None,
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Kubernetes label syntax (k8s.io/apimachinery/pkg/util/validation)
// ---------------------------------------------------------------------------

const QUALIFIED_NAME_ERR: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_ERR: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_ERR: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

/// Kubernetes' `RegexError` text.
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut s = format!("{msg} (e.g. ");
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push_str(&format!("'{e}', "));
    }
    s.push_str(&format!("regex used for validation is '{fmt}')"));
    s
}

fn max_len_error(n: usize) -> String {
    format!("must be no more than {n} characters")
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) if f.is_ascii_alphanumeric() && l.is_ascii_alphanumeric() => b
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.')),
        _ => false,
    }
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
fn is_dns1123_subdomain(s: &str) -> bool {
    s.split('.').all(|label| {
        let b = label.as_bytes();
        let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
        match (b.first(), b.last()) {
            (Some(f), Some(l)) if edge(f) && edge(l) => b.iter().all(|c| edge(c) || *c == b'-'),
            _ => false,
        }
    })
}

/// Why `key` is not a valid label key (Kubernetes `IsQualifiedName`); empty
/// when it is valid.
pub(crate) fn label_key_errors(key: &str) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = key.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                if prefix.len() > 253 {
                    errs.push(format!("prefix part {}", max_len_error(253)));
                }
                if !is_dns1123_subdomain(prefix) {
                    errs.push(format!(
                        "prefix part {}",
                        regex_error(
                            DNS1123_SUBDOMAIN_ERR,
                            DNS1123_SUBDOMAIN_FMT,
                            &["example.com"]
                        )
                    ));
                }
            }
            *name
        }
        _ => {
            return vec![format!(
                "a qualified name {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(
                    QUALIFIED_NAME_ERR,
                    QUALIFIED_NAME_FMT,
                    &["MyName", "my.name", "123-abc"]
                )
            )];
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", max_len_error(63)));
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                QUALIFIED_NAME_ERR,
                QUALIFIED_NAME_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// Why `value` is not a valid label value (Kubernetes `IsValidLabelValue`);
/// empty when it is valid.
pub(crate) fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(regex_error(
            LABEL_VALUE_ERR,
            &format!("({QUALIFIED_NAME_FMT})?"),
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_keys() {
        assert!(label_key_errors("app").is_empty());
        assert!(label_key_errors("app.kubernetes.io/name").is_empty());
        assert!(label_key_errors("a-b_c.d").is_empty());
        assert_eq!(label_key_errors("app name").len(), 1);
        assert_eq!(
            label_key_errors("/x"),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(label_key_errors("a/b/c").len(), 1);
        assert!(
            label_key_errors("Example.com/x")[0].starts_with("prefix part a lowercase RFC 1123")
        );
        assert_eq!(label_key_errors("x/").len(), 2);
        assert_eq!(
            label_key_errors(&"a".repeat(64)),
            vec!["name part must be no more than 63 characters"]
        );
        assert!(label_key_errors(&format!("{}/a", "a".repeat(254)))[0].contains("253"));
        assert!(label_key_errors("-a").len() == 1);
    }

    #[test]
    fn label_values() {
        assert!(label_value_errors("").is_empty());
        assert!(label_value_errors("v1.2_x-y").is_empty());
        assert_eq!(label_value_errors("bad value").len(), 1);
        assert_eq!(label_value_errors(&"a".repeat(64)).len(), 1);
        assert!(
            label_value_errors("x.")[0].contains("'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'")
        );
        assert!(
            label_value_errors("x.")[0]
                .contains("(e.g. 'MyValue',  or 'my_value',  or '12345', regex")
        );
    }
}
