//! The bundled catalog of definitions (`definitions/` in the repository),
//! compiled once per process on first use.

use crate::compile::{CompiledDefinition, Origin};
use crate::error::{Error, Result};
use crate::limits::Limits;
use std::sync::{Arc, OnceLock};

/// Every bundled definition file: (file name, YAML text).
pub const FILES: &[(&str, &str)] = &[(
    "jobset-x-k8s-io-jobset-v1alpha2.yaml",
    include_str!("../../definitions/jobset-x-k8s-io-jobset-v1alpha2.yaml"),
)];

/// The compiled catalog, sorted by name. Compiled on first use with default
/// limits; an error here is a bug in the catalog (the tests compile it).
pub fn catalog() -> Result<&'static [Arc<CompiledDefinition>]> {
    static CATALOG: OnceLock<std::result::Result<Vec<Arc<CompiledDefinition>>, Error>> =
        OnceLock::new();
    CATALOG
        .get_or_init(|| {
            let mut out = Vec::new();
            for (file, text) in FILES {
                let defs =
                    CompiledDefinition::all_from_text(text, Limits::default(), Origin::Catalog)
                        .map_err(|e| e.context(&format!("bundled definition {file}")))?;
                out.extend(defs.into_iter().map(Arc::new));
            }
            out.sort_by(|a, b| a.name().cmp(b.name()));
            Ok(out)
        })
        .as_ref()
        .map(Vec::as_slice)
        .map_err(Clone::clone)
}
