//! Status evaluation, with an optional explanation of every step.
//!
//! [`CompiledDefinition::resolve`] and [`CompiledDefinition::status`] compute a
//! component's status through the evaluator in this module without a trace;
//! [`CompiledDefinition::explain_status`] runs the same evaluator with a trace
//! and reports, for each status category in evaluation order, each matcher
//! and each of its criteria: whether it matched and, when not, why (the phase
//! that was found, the condition that is missing or disagrees, the
//! expression's result or error). The matched statuses of an explanation are
//! therefore always those `resolve` reports from the object alone (resolved
//! with its pods, a Suspended workload whose pods have not all finished reads
//! Suspending: `selectors::attribute`).

use crate::compile::CompiledDefinition;
use crate::error::{Error, ErrorCode, Result};
use crate::expr::conversion;
use crate::jq::{Input, format};
use crate::resolve::workload_ref;
use crate::resolved::{Condition, Status, WorkloadStatus};
use crate::status::{Matcher, StatusDef};
use serde::Serialize;
use serde_json::Value;

/// Why an object has the status it has: the root component's explanation,
/// plus one for each child component with a `statusDefinition` of its own.
/// Its JSON has the root's fields at the top level (`component`, `phase`,
/// `conditions`, `categories`, `matchedStatuses`, `error`) and `components`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StatusExplanation {
    /// The root component's explanation (its fields appear at the top level).
    #[serde(flatten)]
    pub root: ComponentStatusExplanation,
    /// Child components with a `statusDefinition`, in definition order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<ComponentStatusExplanation>,
}

/// The status evaluation of one component.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ComponentStatusExplanation {
    /// Component name.
    pub component: String,
    /// The phase, when the definition has a `phaseDefinition`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<PhaseExplanation>,
    /// The conditions, when the definition has a `conditionsDefinition`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<ConditionsExplanation>,
    /// Every status category the definition maps, in evaluation order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<CategoryExplanation>,
    /// The matched statuses, exactly as `resolve` reports them (`["Undefined"]`
    /// when none matched); empty when there is no status definition or the
    /// evaluation failed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub matched_statuses: Vec<WorkloadStatus>,
    /// The error `resolve` fails with, when the status cannot be computed.
    /// The categories are still explained as far as they could be evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

/// How the phase was extracted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PhaseExplanation {
    /// Definition field of the path expression.
    pub field: String,
    /// The path expression.
    pub expression: String,
    /// The phase (absent when the expression gave no output; `""` for `null`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// How the conditions were extracted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ConditionsExplanation {
    /// Definition field of the path expression.
    pub field: String,
    /// The path expression.
    pub expression: String,
    /// The conditions found, in order.
    pub items: Vec<Condition>,
}

/// One status category (`statusMappings.<key>`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CategoryExplanation {
    /// The status, e.g. `Running`.
    pub status: WorkloadStatus,
    /// The mapping key, e.g. `running`.
    pub key: String,
    /// True when one of the matchers matched.
    pub matched: bool,
    /// The matchers, in definition order.
    pub matchers: Vec<MatcherExplanation>,
}

/// The result of a matcher or of one of its criteria.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// It holds.
    Matched,
    /// It does not hold (see `reason`).
    NotMatched,
    /// Evaluating it failed (see `error`).
    Error,
    /// It was not evaluated: an earlier criterion of the matcher failed, or
    /// an earlier matcher of the category matched (evaluation stops there).
    Skipped,
}

/// One matcher (`statusMappings.<key>[i]`): the AND of its criteria.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MatcherExplanation {
    /// Definition field of the matcher.
    pub field: String,
    /// The result.
    pub outcome: Outcome,
    /// Its criteria in evaluation order (`byPhase`, each `byConditions`
    /// entry, `byExpression`); empty for a matcher without criteria, which
    /// matches unconditionally.
    pub checks: Vec<Check>,
}

/// One criterion of a matcher.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// What was checked.
    #[serde(flatten)]
    pub criterion: Criterion,
    /// The result.
    pub outcome: Outcome,
    /// Why, in words (e.g. `phase is "Pending", expected "Running"`).
    pub reason: String,
    /// The evaluation error, for outcome `error`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Error>,
}

/// The criterion of a [`Check`], tagged by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Criterion {
    /// `byPhase`.
    #[serde(rename_all = "camelCase")]
    Phase {
        /// The expected phase.
        expected: String,
        /// The phase found (absent when there is none).
        #[serde(skip_serializing_if = "Option::is_none")]
        actual: Option<String>,
    },
    /// One entry of `byConditions`.
    #[serde(rename_all = "camelCase")]
    Condition {
        /// The condition type.
        #[serde(rename = "type")]
        type_: String,
        /// The expected status, when constrained.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected_status: Option<String>,
        /// The expected reason, when constrained.
        #[serde(skip_serializing_if = "Option::is_none")]
        expected_reason: Option<String>,
        /// The condition of that type that counts (the last one), if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        actual: Option<Condition>,
    },
    /// `byExpression`.
    #[serde(rename_all = "camelCase")]
    Expression {
        /// Definition field of the expression.
        field: String,
        /// The expression.
        expression: String,
        /// `expectedResult`.
        expected: String,
        /// Its first output rendered like jq's `tostring` (the text that is
        /// compared), absent when there was no output or an error.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<String>,
    },
}

/// Where the evaluator records what it does (explanation mode).
type Trace<'a> = Option<&'a mut ComponentStatusExplanation>;

impl CompiledDefinition {
    /// Explain the status of an object: for the root component (and each
    /// child component with its own `statusDefinition`), the phase and
    /// conditions found and, for each status category in evaluation order,
    /// each matcher with whether it matched and why not. Fails only when the
    /// object is not a usable Kubernetes object (as [`Self::status`] does);
    /// an evaluation error is reported in the explanation's `error`, with
    /// every category explained as far as possible.
    pub fn explain_status(&self, obj: &Value) -> Result<StatusExplanation> {
        let _call = crate::budget::Call::enter(&self.limits);
        workload_ref(obj)?;
        let input = Input::new(obj, &self.limits).map_err(crate::expr::eval_error)?;
        let mut components = Vec::new();
        for (i, c) in self.comps.iter().enumerate() {
            // The root always has a status definition (validation requires
            // one); `resolve` reports the status of children that have one.
            let Some(s) = &c.status else { continue };
            if i > 0 && c.parent.is_none() {
                continue;
            }
            let mut ex = ComponentStatusExplanation {
                component: c.name.clone(),
                phase: None,
                conditions: None,
                categories: Vec::new(),
                matched_statuses: Vec::new(),
                error: None,
            };
            match self.eval_status(s, &input, Some(&mut ex)) {
                Ok(st) => ex.matched_statuses = st.matched_statuses,
                Err(e) => ex.error = Some(e),
            }
            components.push((i, ex));
        }
        let root = match components.first() {
            Some((0, _)) => components.remove(0).1,
            _ => {
                return Err(Error::new(
                    ErrorCode::Usage,
                    format!(
                        "the root component of '{}' has no statusDefinition",
                        self.name()
                    ),
                ));
            }
        };
        Ok(StatusExplanation {
            root,
            components: components.into_iter().map(|(_, c)| c).collect(),
        })
    }

    /// Compute a status; with a trace, record every step into it. Without a
    /// trace the first error ends the evaluation; with one, evaluation goes
    /// on through every category and the first error is returned at the end
    /// (the error resolution fails with).
    pub(crate) fn eval_status(
        &self,
        s: &StatusDef,
        input: &Input,
        mut trace: Trace<'_>,
    ) -> Result<Status> {
        let lim = &self.limits;
        let phase = match &s.phase {
            None => None,
            Some(e) => {
                let phase = match e.eval(input, lim)?.into_iter().next() {
                    None => None,
                    Some(Value::Null) => Some(String::new()),
                    Some(Value::String(p)) => Some(p),
                    Some(v) => return Err(conversion(e, 0, "a string (phase)", &v)),
                };
                if let Some(t) = trace.as_deref_mut() {
                    t.phase = Some(PhaseExplanation {
                        field: e.field.clone(),
                        expression: e.program.code().to_string(),
                        value: phase.clone(),
                    });
                }
                phase
            }
        };
        let mut conditions = Vec::new();
        if let Some(cd) = &s.conditions {
            // Read where they are: the conditions are not copied first.
            for (i, out) in cd.expr.eval_borrowed(input, lim)?.iter().enumerate() {
                let list = match &**out {
                    Value::Null => continue,
                    Value::Array(a) => a,
                    v => return Err(conversion(&cd.expr, i, "an array of condition objects", v)),
                };
                for item in list {
                    let Value::Object(o) = item else {
                        return Err(conversion(
                            &cd.expr,
                            i,
                            "an array of condition objects",
                            item,
                        ));
                    };
                    let get = |k: &str| {
                        crate::budget::member(o, k)
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    };
                    conditions.push(Condition {
                        type_: get(&cd.type_field).unwrap_or_default(),
                        status: get(&cd.status_field),
                        reason: get(&cd.reason_field),
                        message: get(&cd.message_field).filter(|m| !m.is_empty()),
                        last_transition_time: get("lastTransitionTime").filter(|t| !t.is_empty()),
                    });
                }
            }
            if let Some(t) = trace.as_deref_mut() {
                t.conditions = Some(ConditionsExplanation {
                    field: cd.expr.field.clone(),
                    expression: cd.expr.program.code().to_string(),
                    items: conditions.clone(),
                });
            }
        }
        let mut matched = Vec::new();
        let mut first_error: Option<Error> = None;
        for (key, matchers) in &s.mappings {
            let mut hit = false;
            let mut explained = Vec::new();
            for m in matchers {
                if hit {
                    if trace.is_some() {
                        explained.push(skipped_matcher(
                            m,
                            "an earlier matcher of this status matched",
                        ));
                    }
                    continue;
                }
                let mut checks = trace.as_ref().map(|_| Vec::new());
                let outcome =
                    match self.eval_matcher(m, phase.as_deref(), &conditions, input, &mut checks) {
                        Ok(true) => {
                            hit = true;
                            Outcome::Matched
                        }
                        Ok(false) => Outcome::NotMatched,
                        Err(e) => {
                            if trace.is_none() {
                                return Err(e);
                            }
                            first_error.get_or_insert(e);
                            Outcome::Error
                        }
                    };
                if let Some(checks) = checks {
                    explained.push(MatcherExplanation {
                        field: m.field.clone(),
                        outcome,
                        checks,
                    });
                }
            }
            if hit {
                matched.push(key.status());
            }
            if let Some(t) = trace.as_deref_mut() {
                t.categories.push(CategoryExplanation {
                    status: key.status(),
                    key: key.key().to_string(),
                    matched: hit,
                    matchers: explained,
                });
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        if matched.is_empty() {
            matched.push(WorkloadStatus::Undefined);
        }
        Ok(Status {
            phase,
            conditions,
            matched_statuses: matched,
        })
    }

    /// One matcher: the AND of its criteria, in the reference's order, each
    /// failing criterion ending the evaluation (a failing `byPhase` keeps an
    /// erroring `byExpression` from running). With `checks`, every criterion
    /// is recorded, those not reached as skipped.
    fn eval_matcher(
        &self,
        m: &Matcher,
        phase: Option<&str>,
        conditions: &[Condition],
        input: &Input,
        checks: &mut Option<Vec<Check>>,
    ) -> Result<bool> {
        let mut rec = Recorder {
            checks: checks.as_mut(),
            failed: false,
        };
        if let Some(p) = &m.by_phase {
            let ok = phase == Some(p.as_str());
            rec.push(
                || Criterion::Phase {
                    expected: p.clone(),
                    actual: phase.map(str::to_string),
                },
                ok,
                |ok| match phase {
                    None => "there is no phase".to_string(),
                    Some(a) if ok => format!("phase is {a:?}"),
                    Some(a) => format!("phase is {a:?}, expected {p:?}"),
                },
            );
        }
        for want in &m.by_conditions {
            if rec.failed && rec.checks.is_none() {
                return Ok(false);
            }
            // With duplicate types the last one wins.
            let have = conditions.iter().rev().find(|c| c.type_ == want.type_);
            let status = want.status.as_deref().filter(|s| !s.is_empty());
            let reason = want.reason.as_deref().filter(|s| !s.is_empty());
            // The reason is spelled only when explaining.
            let status_of = |h: &Condition| h.status.clone().unwrap_or_default();
            let reason_of = |h: &Condition| h.reason.clone().unwrap_or_default();
            let ok = have.is_some_and(|h| {
                status.is_none_or(|st| h.status.as_deref().unwrap_or_default() == st)
                    && reason.is_none_or(|r| h.reason.as_deref().unwrap_or_default() == r)
            });
            rec.push(
                || Criterion::Condition {
                    type_: want.type_.clone(),
                    expected_status: status.map(str::to_string),
                    expected_reason: reason.map(str::to_string),
                    actual: have.cloned(),
                },
                ok,
                |_| match have {
                    None => format!("no condition of type {:?}", want.type_),
                    Some(h) => match (status, reason) {
                        (Some(st), _) if status_of(h) != st => format!(
                            "condition {:?} has status {:?}, expected {st:?}",
                            want.type_,
                            status_of(h)
                        ),
                        (_, Some(r)) if reason_of(h) != r => format!(
                            "condition {:?} has reason {:?}, expected {r:?}",
                            want.type_,
                            reason_of(h)
                        ),
                        _ => match &h.status {
                            Some(st) => format!("condition {:?} has status {st:?}", want.type_),
                            None => format!("condition {:?} is present", want.type_),
                        },
                    },
                },
            );
        }
        if let Some((e, expected)) = &m.by_expression {
            if rec.failed {
                rec.push(
                    || expression_criterion(e, expected, None),
                    false,
                    |_| String::new(),
                );
                return Ok(false);
            }
            let outs = match e.eval(input, &self.limits) {
                Ok(o) => o,
                Err(err) => {
                    let err = err.context("failed to evaluate byExpression");
                    if let Some(c) = rec.checks.as_deref_mut() {
                        c.push(Check {
                            criterion: expression_criterion(e, expected, None),
                            outcome: Outcome::Error,
                            reason: err.0.message.clone(),
                            error: Some(err.clone()),
                        });
                    }
                    return Err(err);
                }
            };
            let ok = outs
                .first()
                .is_some_and(|v| format::jq_string_is(v, expected));
            // The output as text only when it is explained.
            let result = if rec.checks.is_some() {
                outs.first().map(format::to_jq_string)
            } else {
                None
            };
            rec.push(
                || expression_criterion(e, expected, result.clone()),
                ok,
                |ok| match &result {
                    None => "the expression gave no output".to_string(),
                    Some(r) if ok => format!("the expression gave {r:?}"),
                    Some(r) => format!("the expression gave {r:?}, expected {expected:?}"),
                },
            );
            return Ok(ok);
        }
        Ok(!rec.failed)
    }
}

/// Records checks (when explaining) and whether one failed; once one has
/// failed, later ones are recorded as skipped.
struct Recorder<'a> {
    checks: Option<&'a mut Vec<Check>>,
    failed: bool,
}

impl Recorder<'_> {
    fn push(
        &mut self,
        criterion: impl FnOnce() -> Criterion,
        ok: bool,
        why: impl FnOnce(bool) -> String,
    ) {
        let outcome = if self.failed {
            Outcome::Skipped
        } else if ok {
            Outcome::Matched
        } else {
            Outcome::NotMatched
        };
        if let Some(c) = self.checks.as_deref_mut() {
            let reason = match outcome {
                Outcome::Skipped => "not evaluated: an earlier criterion failed".to_string(),
                _ => why(ok),
            };
            c.push(Check {
                criterion: criterion(),
                outcome,
                reason,
                error: None,
            });
        }
        self.failed |= !ok;
    }
}

fn expression_criterion(
    e: &crate::expr::Expr,
    expected: &str,
    result: Option<String>,
) -> Criterion {
    Criterion::Expression {
        field: e.field.clone(),
        expression: e.program.code().to_string(),
        expected: expected.to_string(),
        result,
    }
}

/// A matcher that was not evaluated, with its criteria listed as skipped.
fn skipped_matcher(m: &Matcher, why: &str) -> MatcherExplanation {
    let reason = format!("not evaluated: {why}");
    let skip = |criterion| Check {
        criterion,
        outcome: Outcome::Skipped,
        reason: reason.clone(),
        error: None,
    };
    let mut checks = Vec::new();
    if let Some(p) = &m.by_phase {
        checks.push(skip(Criterion::Phase {
            expected: p.clone(),
            actual: None,
        }));
    }
    for want in &m.by_conditions {
        checks.push(skip(Criterion::Condition {
            type_: want.type_.clone(),
            expected_status: want.status.clone().filter(|s| !s.is_empty()),
            expected_reason: want.reason.clone().filter(|s| !s.is_empty()),
            actual: None,
        }));
    }
    if let Some((e, expected)) = &m.by_expression {
        checks.push(skip(expression_criterion(e, expected, None)));
    }
    MatcherExplanation {
        field: m.field.clone(),
        outcome: Outcome::Skipped,
        checks,
    }
}
