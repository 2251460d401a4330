//! Validation of `scaleDefinition`: replica counts.

use crate::validate::prelude::*;

impl<'a> Validator<'a> {
    pub(crate) fn check_scale(&mut self, c: &'a ComponentDefinition, cx: &ComponentCx<'_>) {
        let comp = Some(cx.name);
        let key = |k: &str| path_push_key(cx.path, k);
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
    }
}
