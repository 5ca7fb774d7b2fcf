//! The specification's compactor traits and their result.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;

use crate::error::CompactionError;
use crate::model::message::Message;

/// What a compaction changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompactionResult {
    /// Tool results replaced by their compact summary.
    pub tool_results_summarized: usize,
    /// Tool results replaced by the redaction notice.
    pub tool_results_redacted: usize,
    /// Turns replaced by an LLM summary.
    pub turns_compacted: usize,
}

impl CompactionResult {
    /// Whether the compaction changed nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

impl std::fmt::Display for CompactionResult {
    /// The counts in words, e.g. "2 tool results summarized, 3 redacted, 0 turns compacted".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} tool results summarized, {} redacted, {} turns compacted",
            self.tool_results_summarized, self.tool_results_redacted, self.turns_compacted
        )
    }
}

/// A synchronous compactor.
pub trait Compactor: Send + Sync {
    /// Whether `context_used / context_limit` is above the threshold.
    fn should_compact(&self, context_used: i64, context_limit: i32) -> bool;

    /// Compacts `conversation` in place.
    fn compact(&self, conversation: &mut Vec<Message>, compact_summaries: &HashMap<String, String>)
        -> CompactionResult;

    /// Whether this compactor needs [`AsyncCompactor::compact_async`] to do its work.
    fn is_async(&self) -> bool {
        false
    }
}

/// The future returned by [`AsyncCompactor::compact_async`].
pub type CompactionFuture<'a> =
    Pin<Box<dyn Future<Output = Result<(Vec<Message>, CompactionResult), CompactionError>> + Send + 'a>>;

/// A compactor that needs to await something (an LLM call).
pub trait AsyncCompactor: Compactor {
    /// Compacts `conversation`, returning the new conversation. On error the
    /// caller still owns nothing new: keep the conversation you had.
    fn compact_async<'a>(
        &'a self,
        conversation: Vec<Message>,
        compact_summaries: &'a HashMap<String, String>,
    ) -> CompactionFuture<'a>;
}
