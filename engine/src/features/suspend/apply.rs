//! Applying suspend and resume actions.

use serde_json::Value;

use crate::compile::CompiledDefinition;
use crate::error::{Error, ErrorCode, Result};
use crate::patch;
use crate::suspend::{CompiledAction, Direction};
use crate::update::{UpdateResult, as_path, set_path};

impl CompiledDefinition {
    /// Apply the `suspendActions` of every component that has them.
    pub fn suspend(&self, obj: &Value) -> Result<UpdateResult> {
        let _call = crate::budget::Call::enter(&self.limits);
        self.actions(obj, Direction::Suspend)
    }

    /// Apply the `resumeActions` of every component that has them.
    pub fn resume(&self, obj: &Value) -> Result<UpdateResult> {
        let _call = crate::budget::Call::enter(&self.limits);
        self.actions(obj, Direction::Resume)
    }

    /// True when the definition can suspend and resume workloads.
    pub fn can_suspend(&self) -> bool {
        self.comps.iter().any(|c| c.suspend.is_some())
    }

    fn actions(&self, obj: &Value, direction: Direction) -> Result<UpdateResult> {
        crate::resolve::workload_ref(obj)?;
        if !self.can_suspend() {
            return Err(Error::new(
                ErrorCode::Update,
                format!(
                    "definition '{}' has no suspendDefinition: suspend/resume is not supported",
                    self.name()
                ),
            ));
        }
        crate::budget::copy_of(obj)?;
        let mut doc = obj.clone();
        for c in &self.comps {
            let Some(actions) = &c.suspend else { continue };
            for CompiledAction { path: e, value } in actions.get(direction) {
                let input = self.input(&doc)?;
                let paths = e
                    .eval_paths(&input, &self.limits)
                    .map_err(|err| err.in_component(&c.name, None))?;
                for p in paths {
                    crate::budget::copy_of(value)
                        .map_err(|err| err.at(e.location()).in_component(&c.name, None))?;
                    set_path(&mut doc, as_path(&p)?, value.clone())
                        .map_err(|err| err.at(e.location()).in_component(&c.name, None))?;
                }
            }
        }
        Ok(UpdateResult {
            patch: patch::diff(obj, &doc)?,
            object: doc,
        })
    }
}
