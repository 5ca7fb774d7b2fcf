//! The LLM call, as a trait: native users implement it with their own HTTP
//! client; the JS bindings implement it over the user's `summarize` callback.

use std::future::Future;
use std::pin::pin;
use std::time::Duration;

use futures::future::{BoxFuture, Either};

use crate::error::{CompactionError, LlmError};

pub mod offline;
pub mod timer;

pub use offline::OfflineSummarizer;

/// What the summarizer is asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryRequest {
    /// The system prompt.
    pub system: String,
    /// The transcript to summarize, with its instruction.
    pub prompt: String,
    /// Upper bound on the summary's length, in tokens.
    pub max_tokens: Option<i64>,
}

/// Something that turns a [`SummaryRequest`] into summary text, usually an LLM.
///
/// Dropping the returned future must cancel the call: that is how the
/// timeout stops a request that takes too long.
pub trait Summarizer: Send + Sync {
    /// Produces the summary text.
    fn summarize<'a>(&'a self, request: &'a SummaryRequest) -> BoxFuture<'a, Result<String, LlmError>>;
}

/// Runs `summarizer` with a timeout, on any executor (no runtime needed).
/// On timeout the summarizer's future is dropped, which cancels it.
pub async fn summarize_with_timeout<S: Summarizer + ?Sized>(
    summarizer: &S,
    request: &SummaryRequest,
    timeout: Duration,
) -> Result<String, CompactionError> {
    with_timeout(summarizer.summarize(request), timeout).await.and_then(|r| r.map_err(CompactionError::LlmError))
}

async fn with_timeout<T>(fut: impl Future<Output = T>, timeout: Duration) -> Result<T, CompactionError> {
    let (fut, delay) = (pin!(fut), pin!(crate::summarizer::timer::sleep(timeout)));
    match futures::future::select(fut, delay).await {
        Either::Left((value, _)) => Ok(value),
        Either::Right(_) => Err(CompactionError::Timeout(timeout.as_millis().min(u64::MAX as u128) as u64)),
    }
}
