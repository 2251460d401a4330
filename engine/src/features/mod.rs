//! The sections of a definition, one folder each, every folder with the
//! same steps: `validate` (findings), `compile` (into the definition's
//! compiled form) and the evaluation against an object. `scale` (replica
//! counts), `status` (phases, conditions, mappings, and their
//! explanation), `pods` (pod templates: read and written), `selectors`
//! (which pods belong to which component, and ownership), `gang` (gang
//! scheduling groups, both formats) and `suspend` (suspend and resume).

pub(crate) mod diagnose;
pub(crate) mod gang;
pub(crate) mod pods;
pub(crate) mod scale;
pub(crate) mod selectors;
pub(crate) mod status;
pub(crate) mod suspend;
