//! Validation of `suspendDefinition`: suspend and resume actions.

use crate::validate::prelude::*;

impl<'a> Validator<'a> {
    pub(crate) fn check_suspend(&mut self, c: &'a ComponentDefinition, cx: &ComponentCx<'_>) {
        let name = cx.name;
        let comp = Some(cx.name);
        let key = |k: &str| path_push_key(cx.path, k);
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
}
