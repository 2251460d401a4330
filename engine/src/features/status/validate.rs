//! Validation of `statusDefinition`: phase, conditions and status mappings.

use crate::validate::prelude::*;

impl<'a> Validator<'a> {
    pub(crate) fn check_status(&mut self, c: &'a ComponentDefinition, cx: &ComponentCx<'_>) {
        let root = cx.root;
        let name = cx.name;
        let comp = Some(cx.name);
        let key = |k: &str| path_push_key(cx.path, k);
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
    }

    pub(crate) fn matcher(&mut self, m: &StatusMatcher, path: String, comp: Option<&str>) {
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
}
