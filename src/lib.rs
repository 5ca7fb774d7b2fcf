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
//!   fallback, single-flight summaries and no compaction loops.
//!
//! This crate is plain Rust; the WebAssembly bindings live in `src/wasm/` and
//! are compiled only for `wasm32`.

// `&s[a..b]` on a `str` brings core's slicing panic, and with it ~4 KB gzip of
// Unicode tables, into the `.wasm`: slice with `text::{head, tail}` instead.
#![deny(clippy::string_slice)]

pub mod compactor;
pub mod config;
pub mod context_manager;
pub mod conversation;
pub mod error;
pub mod fit;
mod float_text;
pub mod formats;
pub mod json_reader;
pub mod json_writer;
pub mod llm;
pub mod message;
pub mod model_json;
pub mod offline_summarizer;
pub mod parse;
pub mod parse_text;
mod prefetch;
pub mod providers;
mod random;
pub mod request_body;
#[cfg(target_arch = "wasm32")]
pub mod single_threaded;
pub mod summarizer;
pub mod text;
pub mod threshold;
pub mod time;
pub mod timer;
pub mod tokens;
pub mod tool_pairs;
pub mod turns;
pub mod utf16;

/// The JS bindings (wasm32 only); public so that `tests/web.rs` can drive them.
#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use compactor::{AsyncCompactor, CompactionFuture, CompactionResult, Compactor};
pub use config::{
    CompactionConfig, CompactorType, LLMCompactorConfig, ToolCompaction, DEFAULT_SUMMARY_PROMPT, REDACTION_NOTICE,
};
pub use context_manager::{ContextManager, ContextManagerConfig, Outcome, Step, Strategy, SummaryJob};
pub use error::{CompactionError, InputError, LlmError};
pub use llm::{LLMCompactor, SUMMARY_PREFIX};
pub use message::{
    ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock, ToolResultContent, ToolUseBlock, TurnId,
};
pub use request_body::BodyRequest;
pub use summarizer::{Summarizer, SummaryRequest};
pub use threshold::ThresholdCompactor;
pub use tokens::estimate_tokens;
pub use turns::extract_turn_ids;
