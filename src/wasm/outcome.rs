//! A compaction's [`Outcome`] as JS: what `maybeCompact` resolves to and what
//! `onEvent` receives, made in one call (`outcome.js`).

use wasm_bindgen::prelude::*;

use super::errors::to_js_error;
use crate::compactor::CompactionResult;
use crate::context_manager::{Outcome, Strategy};

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
    ) -> JsValue;
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
    );
    if let Some(error) = &outcome.error {
        let _ = js_sys::Reflect::set(&value, &"error".into(), &to_js_error(error));
    }
    value
}
