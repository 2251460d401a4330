//! One document of a text: [`SourceDocument`].

use super::spans::SpanIndex;
use serde_json::Value;

/// One non-empty document of a text.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceDocument {
    /// The document content.
    pub value: Value,
    /// Index of the document in the text (0-based, counting skipped empty
    /// documents).
    pub document: usize,
    /// Positions of the document's values.
    pub spans: SpanIndex,
}

impl SourceDocument {
    /// A document read without positions (JSON written by a program).
    pub(crate) fn unlocated(value: Value) -> Self {
        SourceDocument {
            value,
            document: 0,
            spans: SpanIndex::new(),
        }
    }
}
