//! Errors: one enum for every way a compaction can fail, each with a stable code.

use std::sync::Arc;

/// Why a compaction failed. Cloneable, so one failure can be shared by every
/// caller waiting on the same compaction.
#[derive(Debug, Clone, thiserror::Error)]
pub enum CompactionError {
    /// The summarizer failed: it threw, rejected, answered with an HTTP error or
    /// with something that is not text.
    #[error("LLM error: {0}")]
    LlmError(LlmError),
    /// The summarizer did not answer within the configured timeout.
    #[error("summary timed out after {0} ms")]
    Timeout(u64),
    /// The summarizer answered with empty or whitespace-only text.
    #[error("the summarizer returned an empty summary")]
    EmptySummary,
    /// The summary is not smaller than what it summarizes, so using it would
    /// make the context grow.
    #[error("the summary (~{summary_tokens} tokens) is not smaller than the {summarized_tokens} tokens it replaces")]
    SummaryTooLarge {
        /// Estimated tokens of the summary message.
        summary_tokens: i64,
        /// Estimated tokens of the messages it would replace.
        summarized_tokens: i64,
    },
    /// The input does not have the expected shape.
    #[error("{0}")]
    InvalidInput(InputError),
}

impl CompactionError {
    /// The stable, machine-readable code of this error (`"LLM_ERROR"`, `"TIMEOUT"`, …).
    pub fn code(&self) -> &'static str {
        match self {
            CompactionError::LlmError(_) => "LLM_ERROR",
            CompactionError::Timeout(_) => "TIMEOUT",
            CompactionError::EmptySummary => "EMPTY_SUMMARY",
            CompactionError::SummaryTooLarge { .. } => "SUMMARY_TOO_LARGE",
            CompactionError::InvalidInput(_) => "INVALID_INPUT",
        }
    }
}

impl From<InputError> for CompactionError {
    fn from(e: InputError) -> Self {
        CompactionError::InvalidInput(e)
    }
}

impl From<LlmError> for CompactionError {
    fn from(e: LlmError) -> Self {
        CompactionError::LlmError(e)
    }
}

/// A failure of the summarizer (the LLM call).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct LlmError {
    /// What went wrong, for people.
    pub message: String,
    /// The HTTP status, when the call reached a server that answered with an error.
    pub status: Option<u16>,
    /// The original error, when there is one (e.g. the value a JS summarizer threw).
    pub source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl LlmError {
    /// An error with a message only.
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), status: None, source: None }
    }
}

/// Input of the wrong shape: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct InputError {
    /// Path of the offending field, e.g. `messages[3].content[0].tool_use_id`.
    pub path: String,
    /// What is wrong with it.
    pub message: String,
}

impl InputError {
    /// An error at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), message: message.into() }
    }
}
