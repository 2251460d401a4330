//! Compiling `podSelector`.

use crate::error::Result;
use crate::expr::{Ctx, Expr};
use crate::model::ComponentDefinition;

/// A compiled component type selector.
#[derive(Debug)]
pub(crate) struct TypeSelector {
    pub key_path: Option<Expr>,
    pub value: Option<String>,
    pub match_labels: std::collections::BTreeMap<String, String>,
}

/// The type, instance and replica selectors of a component.
pub(crate) type Selectors = (Option<TypeSelector>, Option<Expr>, Option<Expr>);

/// Compile a component's `podSelector`.
pub(crate) fn compile(ctx: &Ctx<'_>, field: &str, d: &ComponentDefinition) -> Result<Selectors> {
    let psf = format!("{field}.podSelector");
    let selectors = match &d.pod_selector {
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
    Ok(selectors)
}
