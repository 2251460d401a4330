//! Compiling `statusDefinition`.

use crate::error::Result;
use crate::expr::{Ctx, Expr};
use crate::model::ComponentDefinition;
use crate::model::{ExpectedCondition, STATUS_ORDER, StatusKey};

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

/// The compiled status definition of a component.
pub(crate) fn compile(
    ctx: &Ctx<'_>,
    field: &str,
    d: &ComponentDefinition,
) -> Result<Option<StatusDef>> {
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
    Ok(status)
}
