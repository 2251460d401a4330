//! Evaluating `scaleDefinition`: one [`Scale`] per instance.

use crate::compile::CompiledDefinition;
use crate::component::Comp;
use crate::error::Result;
use crate::expr::Expr;
use crate::jq::Input;
use crate::resolve::to_i32;
use crate::resolved::Scale;
use crate::scale::ScaleField;

impl CompiledDefinition {
    /// The scale of each instance (`None` when the component has no scale
    /// expression). The outputs of every expression line up with the
    /// instance ids.
    pub(crate) fn scales(
        &self,
        c: &Comp,
        input: &Input,
        ids: &[String],
    ) -> Result<Option<crate::pods::PerInstance<Scale>>> {
        let Some(def) = &c.scale else {
            return Ok(None);
        };
        let paths = def.paths();
        if paths.iter().all(|(_, e)| e.is_none()) {
            return Ok(None);
        }
        let mut scales: crate::pods::PerInstance<Scale> = smallvec::SmallVec::new();
        let mut first: Option<&Expr> = None;
        for (field, e) in paths {
            let Some(e) = e else { continue };
            first = first.or(Some(e));
            let outs = e.eval(input, &self.limits)?;
            for (i, v) in outs.iter().enumerate() {
                if scales.len() <= i {
                    scales.resize(i + 1, Scale::default());
                }
                let n = to_i32(e, i, v)?;
                let s = &mut scales[i];
                match field {
                    ScaleField::Replicas => s.replicas = n,
                    ScaleField::MinReplicas => s.min_replicas = n,
                    ScaleField::MaxReplicas => s.max_replicas = n,
                }
            }
        }
        if let Some(e) = first {
            self.zip(e, ids, scales.len())?;
        }
        Ok(Some(scales))
    }
}
