//! # context-compactor
//!
//! Keeps LLM conversations inside their context window. Before each LLM request,
//! ask whether the context is too full; if so, compact the older turns and keep
//! the most recent ones intact:
//!
//! - [`ThresholdCompactor`]: fast, synchronous, never fails. In old turns, each
//!   tool result becomes its compact summary or a redaction notice.
//! - [`LLMCompactor`]: summarizes old turns with an LLM (any [`Summarizer`]) and
//!   replaces them with one `[Previous conversation summary]: …` message.
//! - [`ContextManager`]: holds a conversation and applies either, with a
//!   fallback, single-flight summaries, no compaction loops, and an escalation
//!   that makes the context fit.
//!
//! A turn is one model step: an assistant message and the messages answering its
//! tool calls ([`StepRule`]).
//!
//! The modules follow the architecture (`ARCHITECTURE.md`): [`model`] (the
//! messages), [`compaction`] (the algorithms), [`manager`] (a conversation kept
//! under its limit), [`summarizer`] (the LLM call), [`formats`] and [`providers`]
//! (wire formats, no I/O). This crate is plain Rust; the WebAssembly bindings
//! are compiled for `wasm32` only.

pub mod compaction;
pub mod error;
pub mod formats;
mod json_text;
pub mod manager;
pub mod model;
pub mod providers;
pub mod summarizer;
mod tape;
mod text;

/// The JS bindings (wasm32 only): translation between JS values and the core.
/// Public only so that `tests/web.rs` can drive them; not part of the Rust API.
#[cfg(target_arch = "wasm32")]
#[doc(hidden)]
pub mod wasm;

pub use compaction::config::{
    CompactionConfig, CompactorType, Keep, LLMCompactorConfig, ToolCompaction, DEFAULT_SUMMARY_PROMPT, REDACTION_NOTICE,
};
pub use compaction::llm::{LLMCompactor, SUMMARY_PREFIX};
pub use compaction::result::{AsyncCompactor, CompactionFuture, CompactionResult, Compactor};
pub use compaction::threshold::ThresholdCompactor;
pub use compaction::tool_pairs::{validate_tool_pairs, PairingProblem};
pub use compaction::turns::{extract_turn_ids, StepRule};
pub use error::{CompactionError, InputError, LlmError};
pub use manager::fit::{Compacted, Escalation};
pub use manager::{BodyRequest, ContextManager, ContextManagerConfig, Outcome, Step, Strategy, SummaryJob};
pub use model::message::{
    ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock, ToolResultContent, ToolUseBlock, TurnId,
};
pub use model::read::{parse_message, parse_messages};
pub use model::tokens::estimate_tokens;
pub use summarizer::{Summarizer, SummaryRequest};
