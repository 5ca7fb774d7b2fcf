//! A compaction's [`Outcome`] as JS: what `maybeCompact` resolves to and what
//! `onEvent` receives, made in one call (`outcome.js`).

use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use crate::compactor::CompactionResult;
use crate::context_manager::{Outcome, Strategy};
use crate::fit::Escalation;

/// The escalation's rungs as `outcome.js` reads them: five numbers each (kind,
/// summarized, redacted or cut, kept turns, maximum tokens).
fn rungs(escalation: &[Escalation]) -> Vec<f64> {
    let mut out = Vec::with_capacity(5 * escalation.len());
    for rung in escalation {
        out.extend(match *rung {
            Escalation::Compacted(c) => [0.0, c.summarized as f64, c.redacted as f64, 0.0, 0.0],
            Escalation::ShrankWindow { turns, compacted: c } => {
                [1.0, c.summarized as f64, c.redacted as f64, turns as f64, 0.0]
            }
            Escalation::Truncated { tool_results, max_tokens } => {
                [2.0, 0.0, tool_results as f64, 0.0, max_tokens as f64]
            }
        });
    }
    out
}

#[wasm_bindgen(module = "/src/wasm/outcome.js")]
extern "C" {
    /// `{ toolResultsRedacted, toolResultsSummarized, turnsCompacted }`
    fn result(redacted: f64, summarized: f64, turns: f64) -> JsValue;

    /// `{ promptLength, tokensBefore, type: "compaction_started" }`
    fn started(prompt_length: f64, tokens_before: f64) -> JsValue;

    #[wasm_bindgen(js_name = outcome)]
    #[allow(clippy::too_many_arguments)]
    fn make(
        strategy: &str,
        summarized: f64,
        redacted: f64,
        turns: f64,
        tokens_before: f64,
        tokens_after: f64,
        messages_before: f64,
        messages_after: f64,
        duration_ms: f64,
        fallback: bool,
        below_threshold: bool,
        summary_length: f64,
        kind: Option<&str>,
        message: Option<String>,
        fits: bool,
        kept_user_messages: f64,
        rungs: &[f64],
    ) -> JsValue;

    /// `{ contextLimit, message, reserveTokens, room, tokens, type: "over_limit" }`
    #[wasm_bindgen(js_name = overLimit)]
    fn over_limit(tokens: f64, room: f64, context_limit: f64, reserve_tokens: f64, message: &str) -> JsValue;

    /// `{ message, type: "nothing_to_compact" }`
    #[wasm_bindgen(js_name = nothingToCompact)]
    fn nothing_to_compact(message: &str) -> JsValue;
}

/// The `over_limit` event of an outcome whose context does not fit its room.
pub fn over_limit_to_js(outcome: &Outcome, context_limit: i64, reserve_tokens: i64) -> JsValue {
    let room = context_limit - reserve_tokens;
    let message = format!(
        "the context does not fit: {} tokens for a room of {room} (contextLimit {context_limit} - reserveTokens \
         {reserve_tokens}) after every compaction step; the newest turn alone is too large",
        outcome.tokens_after
    );
    over_limit(outcome.tokens_after as f64, room as f64, context_limit as f64, reserve_tokens as f64, &message)
}

/// The `nothing_to_compact` event: why threshold compaction cannot shrink this conversation.
pub fn nothing_to_compact_to_js() -> JsValue {
    nothing_to_compact(
        "threshold compaction found no tool results in the old turns: tool output that arrives as user text \
         (a text-mode agent) can only be shrunk by LLM compaction ({ type: \"llm\" })",
    )
}

/// A [`CompactionResult`] made as a JS object directly, for the calls that return
/// only counts: a JSON text to parse would cost a third of a small compaction.
pub fn result_js(counts: &CompactionResult) -> JsValue {
    result(counts.tool_results_redacted as f64, counts.tool_results_summarized as f64, counts.turns_compacted as f64)
}

/// The `onEvent` event of a compaction that waits for a summary, made before the wait.
pub fn started_to_js(prompt_length: usize, tokens_before: i64) -> JsValue {
    started(prompt_length as f64, tokens_before as f64)
}

/// `{ strategy, result, tokensBefore, tokensAfter, messagesBefore, messagesAfter,
/// durationMs, fallback, belowThreshold, summaryLength?, error? }`.
pub fn outcome_to_js(outcome: &Outcome) -> JsValue {
    build(outcome, None)
}

/// The `onEvent` event of a finished compaction: the outcome with `type`
/// (`"compaction"` or `"compaction_failed"`) and `message` (the log line).
pub fn event_to_js(outcome: &Outcome) -> JsValue {
    let kind = if outcome.error.is_some() { "compaction_failed" } else { "compaction" };
    build(outcome, Some((kind, outcome.to_string())))
}

fn build(outcome: &Outcome, event: Option<(&str, String)>) -> JsValue {
    let (kind, message) = event.unzip();
    let value = make(
        match outcome.strategy {
            Strategy::Threshold => "threshold",
            Strategy::Llm => "llm",
        },
        outcome.result.tool_results_summarized as f64,
        outcome.result.tool_results_redacted as f64,
        outcome.result.turns_compacted as f64,
        outcome.tokens_before as f64,
        outcome.tokens_after as f64,
        outcome.messages_before as f64,
        outcome.messages_after as f64,
        outcome.duration_ms,
        outcome.fallback,
        outcome.below_threshold,
        outcome.summary_length.map_or(-1.0, |length| length as f64),
        kind,
        message,
        outcome.fits,
        outcome.kept_user_messages as f64,
        &rungs(&outcome.escalation),
    );
    if let Some(error) = &outcome.error {
        let _ = js_sys::Reflect::set(&value, &"error".into(), &to_js_error(error));
    }
    value
}
