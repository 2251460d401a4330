//! Choosing the definition for an object by its group/version/kind.

use crate::catalog;
use crate::compile::{CompiledDefinition, Origin};
use crate::error::{Error, ErrorCode, Result};
use crate::limits::Limits;
use crate::model::Gvk;
use crate::resolved::Resolved;
use serde_json::Value;
use std::sync::Arc;

/// A set of compiled definitions keyed by their root GVK. A definition added
/// later replaces one with the same root GVK (so user definitions override
/// the bundled catalog).
#[derive(Debug, Clone, Default)]
pub struct DefinitionSet {
    entries: Vec<Arc<CompiledDefinition>>,
}

impl DefinitionSet {
    /// An empty set.
    pub fn new() -> Self {
        DefinitionSet::default()
    }

    /// A set holding the bundled catalog.
    pub fn with_catalog() -> Result<Self> {
        Ok(DefinitionSet {
            entries: catalog::catalog()?.to_vec(),
        })
    }

    /// Add a definition; returns the one it replaced (same root GVK), if any.
    pub fn add(
        &mut self,
        def: impl Into<Arc<CompiledDefinition>>,
    ) -> Option<Arc<CompiledDefinition>> {
        let def = def.into();
        let gvk = def.root_gvk();
        let old = self
            .entries
            .iter()
            .position(|d| d.root_gvk() == gvk)
            .map(|i| self.entries.remove(i));
        self.entries.push(def);
        old
    }

    /// Read definitions from YAML/JSON text and add them all as user
    /// definitions; returns their names.
    pub fn add_text(&mut self, text: &str, limits: Limits) -> Result<Vec<String>> {
        let defs = CompiledDefinition::all_from_text(text, limits, Origin::User)?;
        let names = defs.iter().map(|d| d.name().to_string()).collect();
        for d in defs {
            self.add(d);
        }
        Ok(names)
    }

    /// Every definition, sorted by name.
    pub fn definitions(&self) -> Vec<&Arc<CompiledDefinition>> {
        let mut v: Vec<_> = self.entries.iter().collect();
        v.sort_by(|a, b| a.name().cmp(b.name()));
        v
    }

    /// A definition by name.
    pub fn get(&self, name: &str) -> Option<&Arc<CompiledDefinition>> {
        self.entries.iter().find(|d| d.name() == name)
    }

    /// The definition for a GVK: the exact GVK, else (a manifest written at
    /// another served version) one for the same group and kind.
    pub fn lookup(&self, gvk: &Gvk) -> Option<&Arc<CompiledDefinition>> {
        self.entries
            .iter()
            .rev()
            .find(|d| d.root_gvk() == *gvk)
            .or_else(|| {
                self.entries.iter().rev().find(|d| {
                    let r = d.root_gvk();
                    r.group == gvk.group && r.kind == gvk.kind
                })
            })
    }

    /// The definition for an object, by its `apiVersion` and `kind`.
    pub fn lookup_object(&self, obj: &Value) -> Result<&Arc<CompiledDefinition>> {
        let w = crate::resolve::workload_ref(obj)?;
        let gvk = Gvk::from_api_version(&w.api_version, &w.kind);
        self.lookup(&gvk).ok_or_else(|| {
            Error::new(
                ErrorCode::NoDefinition,
                format!("no definition covers {gvk} (add one with a definition file)"),
            )
        })
    }

    /// Choose the definition by GVK and resolve the object.
    pub fn resolve(&self, obj: &Value) -> Result<Resolved> {
        self.lookup_object(obj)?.resolve(obj)
    }

    /// Parse one YAML/JSON object and resolve it.
    pub fn resolve_text(&self, text: &str, limits: &Limits) -> Result<Resolved> {
        let obj = crate::resolve::parse_object(text, limits)?;
        self.resolve(&obj)
    }
}
