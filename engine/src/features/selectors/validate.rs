//! Validation of `instanceIdPath` and `podSelector`: instances and the pods that belong to them.

use crate::validate::prelude::*;

impl<'a> Validator<'a> {
    pub(crate) fn check_selectors(&mut self, c: &'a ComponentDefinition, cx: &ComponentCx<'_>) {
        let name = cx.name;
        let comp = Some(cx.name);
        let key = |k: &str| path_push_key(cx.path, k);
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
    }
}
