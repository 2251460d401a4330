//! Placeholder: the binding lands in its own issue. It will stay a thin wrapper over `workload_lens`.
