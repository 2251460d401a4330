//! A snapshot's records (see [`crate::SnapshotReader`]): what an object
//! read by a listing is to it, and the line that holds it. Below the
//! protocol, which writes them, and the snapshot reader, which reads them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a record is to the listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum RecordRole {
    /// A definition stored in the cluster (Karta, ResourceInterface).
    Definition,
    /// An object of a covered type.
    Object,
    /// A pod, for the rows' live counts.
    Pod,
    /// An object a controller chain goes through, of a type no definition
    /// covers (a ReplicaSet).
    Owner,
}

impl RecordRole {
    /// The role's word in a snapshot (`definition`, `object`, `pod`,
    /// `owner`).
    pub fn as_str(self) -> &'static str {
        match self {
            RecordRole::Definition => "definition",
            RecordRole::Object => "object",
            RecordRole::Pod => "pod",
            RecordRole::Owner => "owner",
        }
    }
}

/// One record's line.
/// `object` comes without its `managedFields` (the session strips them).
pub(crate) fn record_line(roles: &[RecordRole], object: &Value) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        roles: &'a [RecordRole],
        object: &'a Value,
    }
    serde_json::to_string(&Line { roles, object }).unwrap_or_default()
}
