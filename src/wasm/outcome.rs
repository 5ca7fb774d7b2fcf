//! A compaction's [`Outcome`] as JS: what `maybeCompact` resolves to and what
//! `onEvent` receives; and its counts, what `forceCompact` and `compact` give.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::convert::small_to_js;
use super::errors::to_js_error;
use crate::compaction::result::CompactionResult;
use crate::formats::{Dropped, Format};
use crate::manager::{Escalation, Outcome, Strategy};

// Budgets held threshold compaction ≤ 1.0× and stateless compact ≤ 2× the plain-JS peer
// (issue 19): made field by field with serde-wasm-bindgen, the outcome took ~1.2 of a first
// `maybeCompact`'s ~3.1 µs on the shared transcripts, the counts 0.27 of a `compact`'s 1.37 µs.
#[wasm_bindgen(module = "/src/wasm/outcome.js")]
extern "C" {
    /// `{ toolResultsRedacted, toolResultsSummarized, turnsCompacted }`
    fn counts(redacted: usize, summarized: usize, turns: usize) -> JsValue;

    /// `{ belowThreshold, durationMs, escalation, fallback, fits, keptUserMessages,
    /// message?, messagesAfter, messagesBefore, result, strategy, summaryLength?,
    /// tokensAfter, tokensBefore, type?, error? }`: `type` and `message` for an event.
    #[allow(clippy::too_many_arguments)]
    fn outcome(
        below_threshold: bool,
        duration_ms: f64,
        escalation: Option<JsValue>,
        fallback: bool,
        fits: bool,
        kept_user_messages: usize,
        message: Option<String>,
        messages_after: usize,
        messages_before: usize,
        tool_results_redacted: usize,
        tool_results_summarized: usize,
        turns_compacted: usize,
        llm: bool,
        summary_length: Option<f64>,
        tokens_after: f64,
        tokens_before: f64,
        kind: Option<&str>,
        error: Option<JsValue>,
    ) -> JsValue;
}

/// A compaction's counts as a JS object: what `forceCompact` and the stateless
/// compactors give, and the `result` of an outcome.
pub fn counts_js(result: &CompactionResult) -> JsValue {
    counts(result.tool_results_redacted, result.tool_results_summarized, result.turns_compacted)
}

/// One rung of the escalation: `{ step: "compact" | "shrink" | "truncate", … }`.
#[derive(Serialize)]
#[serde(tag = "step", rename_all = "camelCase")]
enum Rung {
    Compact {
        redacted: usize,
        summarized: usize,
    },
    #[serde(rename_all = "camelCase")]
    Shrink {
        kept_turns: usize,
        redacted: usize,
        summarized: usize,
    },
    #[serde(rename_all = "camelCase")]
    Truncate {
        max_tokens: i64,
        tool_results: usize,
    },
}

impl From<&Escalation> for Rung {
    fn from(rung: &Escalation) -> Self {
        match *rung {
            Escalation::Compacted(c) => Rung::Compact { redacted: c.redacted, summarized: c.summarized },
            Escalation::ShrankWindow { turns, compacted: c } => {
                Rung::Shrink { kept_turns: turns, redacted: c.redacted, summarized: c.summarized }
            }
            Escalation::Truncated { tool_results, max_tokens } => Rung::Truncate { max_tokens, tool_results },
        }
    }
}

/// The `compaction_started` event: `{ promptLength, tokensBefore, type }`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Started {
    prompt_length: usize,
    tokens_before: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The `over_limit` event: `{ contextLimit, message, reserveTokens, room, tokens, type }`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct OverLimit {
    context_limit: i64,
    message: String,
    reserve_tokens: i64,
    room: i64,
    tokens: i64,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The `block_dropped` event of `requestBody`: `{ type, messageIndex, blockIndex,
/// partIndex?, blockType, format, reason }`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct BlockDropped<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    message_index: usize,
    block_index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    part_index: Option<usize>,
    block_type: &'a str,
    format: &'static str,
    reason: &'static str,
}

/// The `nothing_to_compact` event: `{ message, type }`.
#[derive(Serialize)]
struct NothingToCompact {
    message: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// The `onEvent` event of a compaction that waits for a summary, made before the wait.
pub fn started_to_js(prompt_length: usize, tokens_before: i64) -> JsValue {
    small_to_js(&Started { prompt_length, tokens_before, kind: "compaction_started" })
}

/// What `maybeCompact` resolves to.
pub fn outcome_to_js(outcome: &Outcome) -> JsValue {
    build(outcome, None)
}

/// The `onEvent` event of a finished compaction: the outcome with `type`
/// (`"compaction"` or `"compaction_failed"`) and `message` (the log line).
pub fn event_to_js(outcome: &Outcome) -> JsValue {
    let kind = if outcome.error.is_some() { "compaction_failed" } else { "compaction" };
    build(outcome, Some((kind, outcome.to_string())))
}

fn build(outcome: &Outcome, event: Option<(&'static str, String)>) -> JsValue {
    let (kind, message) = event.unzip();
    // None (the usual case) is made in JS, without a call for the empty array.
    let escalation = (!outcome.escalation.is_empty())
        .then(|| small_to_js(&outcome.escalation.iter().map(Rung::from).collect::<Vec<_>>()));
    let result = &outcome.result;
    self::outcome(
        outcome.below_threshold,
        outcome.duration_ms,
        escalation,
        outcome.fallback,
        outcome.fits,
        outcome.kept_user_messages,
        message,
        outcome.messages_after,
        outcome.messages_before,
        result.tool_results_redacted,
        result.tool_results_summarized,
        result.turns_compacted,
        matches!(outcome.strategy, Strategy::Llm),
        outcome.summary_length.map(|n| n as f64),
        outcome.tokens_after as f64,
        outcome.tokens_before as f64,
        kind,
        outcome.error.as_ref().map(to_js_error),
    )
}

/// The `over_limit` event of an outcome whose context does not fit its room.
pub fn over_limit_to_js(outcome: &Outcome, context_limit: i64, reserve_tokens: i64) -> JsValue {
    let room = context_limit - reserve_tokens;
    let message = format!(
        "the context does not fit: {} tokens for a room of {room} (contextLimit {context_limit} - reserveTokens \
         {reserve_tokens}) after every compaction step; what is left cannot be compacted further",
        outcome.tokens_after
    );
    small_to_js(&OverLimit {
        context_limit,
        message,
        reserve_tokens,
        room,
        tokens: outcome.tokens_after,
        kind: "over_limit",
    })
}

/// The `block_dropped` event of a block `requestBody` left out of a `format` body.
pub fn block_dropped_to_js(dropped: &Dropped, format: Format) -> JsValue {
    small_to_js(&BlockDropped {
        kind: "block_dropped",
        message_index: dropped.message_index,
        block_index: dropped.block_index,
        part_index: dropped.part_index,
        block_type: &dropped.block_type,
        format: format.name(),
        reason: dropped.reason,
    })
}

/// The `nothing_to_compact` event: why threshold compaction cannot shrink this conversation.
pub fn nothing_to_compact_to_js() -> JsValue {
    small_to_js(&NothingToCompact {
        message: "threshold compaction found no tool results in the old turns: tool output that arrives as user \
                  text (a text-mode agent) can only be shrunk by LLM compaction ({ type: \"llm\" })",
        kind: "nothing_to_compact",
    })
}
