//! Where each component instance's pod template is in an object: the paths
//! of the definition's pod expressions (`path(<expression>)`, as updates
//! write through them), for the definition-aware source maps
//! ([`CompiledDefinition::source_map`], `Engine::source_map`).

use serde_json::Value;

use crate::compile::CompiledDefinition;
use crate::error::{ErrorCode, Result};
use crate::expr::Expr;
use crate::jq::Input;
use crate::model::Gvk;
use crate::pods::PodDef;
use crate::source::{Segment, SourceMap, SourceQuery, TemplatePart, TemplatePath, source_map_with};

impl CompiledDefinition {
    /// Where things are in a YAML/JSON text ([`crate::source::source_map`]),
    /// and, for each object this definition covers (its root group and
    /// kind), where each component instance's pod template is
    /// ([`crate::source::SourceObject::pod_templates`]); questions may then
    /// name a path in a component's pod template (`component`,
    /// `instance`), as resolve's errors do.
    ///
    /// Read within the definition's limits, the expressions evaluated in
    /// the same call's budget. A pod expression that is not a path in the
    /// object (a computed template) or that fails on it gives no place,
    /// not an error; a limit breached is the call's `limit` error.
    pub fn source_map(&self, text: &str, queries: &[SourceQuery]) -> Result<SourceMap> {
        let of = |object: &Value| self.template_paths(object);
        source_map_with(text, queries, &self.limits, Some(&of))
    }

    /// The paths of the pod templates (and their parts) of every component
    /// instance of `object`; `None` when the definition does not cover it.
    pub(crate) fn template_paths(&self, object: &Value) -> Result<Option<Vec<TemplatePath>>> {
        let Ok(workload) = crate::resolve::workload_ref(object) else {
            return Ok(None);
        };
        let gvk = Gvk::from_api_version(&workload.api_version, &workload.kind);
        let root = self.root_gvk();
        if gvk.group != root.group || gvk.kind != root.kind {
            return Ok(None);
        }
        let input = Input::new(object, &self.limits).map_err(crate::expr::eval_error);
        let Some(input) = limited(input)? else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for c in &self.comps {
            let mut exprs: Vec<(&Expr, TemplatePart)> = match &c.pod {
                PodDef::None => Vec::new(),
                PodDef::Template(e) => vec![(e, TemplatePart::Template)],
                PodDef::Spec(e) => vec![(e, TemplatePart::Spec)],
                PodDef::Fragmented(fields) => fields
                    .iter()
                    .map(|(_, e)| (e, TemplatePart::Fragment))
                    .collect(),
            };
            if exprs.is_empty() {
                continue;
            }
            exprs.extend(c.metadata.iter().map(|e| (e, TemplatePart::Metadata)));
            // What fails here fails resolve too, which says why; only a
            // breached limit ends the call.
            let Some(ids) = limited(self.instance_ids(c, &input))? else {
                continue;
            };
            for (e, part) in exprs {
                let Some(paths) = limited(e.eval_paths(&input, &self.limits))? else {
                    continue;
                };
                if paths.len() != ids.len() {
                    continue;
                }
                for (id, path) in ids.iter().zip(&paths) {
                    let Some(path) = segments(path) else {
                        continue;
                    };
                    out.push(TemplatePath {
                        component: c.name.clone(),
                        instance: (!id.is_empty()).then(|| id.clone()),
                        field: e.field.clone(),
                        part,
                        path,
                    });
                }
            }
        }
        Ok(Some(out))
    }
}

/// The value, `None` for an error other than a breached limit.
fn limited<T>(r: Result<T>) -> Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.code() == ErrorCode::Limit => Err(e),
        Err(_) => Ok(None),
    }
}

/// A jq path (`["spec", "replicatedJobs", 0]`) as steps.
fn segments(path: &Value) -> Option<Vec<Segment>> {
    path.as_array()?
        .iter()
        .map(|step| match step {
            Value::String(k) => Some(Segment::Key(k.as_str().into())),
            Value::Number(n) => n
                .as_u64()
                .and_then(|i| usize::try_from(i).ok())
                .map(Segment::Index),
            _ => None,
        })
        .collect()
}
