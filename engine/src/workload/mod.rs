//! One object through a compiled definition: `resolve` (components,
//! instances, replicas, pod templates, live pods), the result types
//! (`resolved`), the resource totals (`resources`), and `update` (replica
//! and template changes as JSON patches).

pub(crate) mod request_list;
pub(crate) mod resolve;
pub(crate) mod resolved;
pub(crate) mod resources;
pub(crate) mod update;
