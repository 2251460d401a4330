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
    /// An event about a recorded object (its `involvedObject.uid` is one
    /// of theirs): what `describe --snapshot` and `why --snapshot` show.
    Event,
    /// An object a diagnosis reads: a Kueue `Workload` or a gang
    /// scheduler's group.
    Related,
}

impl RecordRole {
    /// The role's word in a snapshot (`definition`, `object`, `pod`,
    /// `owner`, `event`, `related`).
    pub fn as_str(self) -> &'static str {
        match self {
            RecordRole::Definition => "definition",
            RecordRole::Object => "object",
            RecordRole::Pod => "pod",
            RecordRole::Owner => "owner",
            RecordRole::Event => "event",
            RecordRole::Related => "related",
        }
    }

    /// Whether a listing reads it (events and related objects are only
    /// for describing one workload).
    pub fn listed(self) -> bool {
        !matches!(self, RecordRole::Event | RecordRole::Related)
    }
}

/// A list a snapshot's listing was refused (a covered type, an owner kind,
/// the pods, or what only `describe --snapshot` reads: events, Kueue
/// Workloads, gang-scheduler groups): a description read back from the
/// snapshot gets the same status and message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Unlisted {
    /// The type, `plural.group` (`events` for the core group's).
    #[serde(rename = "type")]
    pub type_: String,
    /// The namespace it was listed in (none: every namespace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The server's HTTP status.
    pub status: u16,
    /// The server's message.
    pub message: String,
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
