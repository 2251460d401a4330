//! Compiling `specDefinition`.

use crate::error::Result;
use crate::expr::{Ctx, Expr};
use crate::model::ComponentDefinition;
use crate::model::FRAGMENT_FIELDS;
use crate::model::FragmentField;

/// How a component's pods are defined.
#[derive(Debug)]
pub(crate) enum PodDef {
    None,
    Template(Expr),
    Spec(Expr),
    Fragmented(Vec<(FragmentField, Expr)>),
}

/// The pod definition and the pod metadata expression of a component.
pub(crate) fn compile(
    ctx: &Ctx<'_>,
    field: &str,
    d: &ComponentDefinition,
) -> Result<(PodDef, Option<Expr>)> {
    let sd = format!("{field}.specDefinition");
    let pods = match &d.spec_definition {
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
    Ok(pods)
}
