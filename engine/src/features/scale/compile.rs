//! Compiling `scaleDefinition`.

use crate::error::Result;
use crate::expr::{Ctx, Expr};
use crate::model::ComponentDefinition;

/// A component's compiled replica-count expressions.
#[derive(Debug)]
pub(crate) struct ScaleDef {
    /// `replicasPath`.
    pub replicas: Option<Expr>,
    /// `minReplicasPath`.
    pub min_replicas: Option<Expr>,
    /// `maxReplicasPath`.
    pub max_replicas: Option<Expr>,
}

impl ScaleDef {
    /// The expressions that are set, with the field of `Scale` each fills.
    pub(crate) fn paths(&self) -> [(ScaleField, Option<&Expr>); 3] {
        [
            (ScaleField::Replicas, self.replicas.as_ref()),
            (ScaleField::MinReplicas, self.min_replicas.as_ref()),
            (ScaleField::MaxReplicas, self.max_replicas.as_ref()),
        ]
    }
}

/// A field of [`crate::Scale`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScaleField {
    Replicas,
    MinReplicas,
    MaxReplicas,
}

/// Compile a component's `scaleDefinition` (`None` without one).
pub(crate) fn compile(
    ctx: &Ctx<'_>,
    field: &str,
    d: &ComponentDefinition,
) -> Result<Option<ScaleDef>> {
    let Some(s) = &d.scale_definition else {
        return Ok(None);
    };
    let sf = format!("{field}.scaleDefinition");
    Ok(Some(ScaleDef {
        replicas: ctx.opt(s.replicas_path.as_ref(), format!("{sf}.replicasPath"))?,
        min_replicas: ctx.opt(
            s.min_replicas_path.as_ref(),
            format!("{sf}.minReplicasPath"),
        )?,
        max_replicas: ctx.opt(
            s.max_replicas_path.as_ref(),
            format!("{sf}.maxReplicasPath"),
        )?,
    }))
}
