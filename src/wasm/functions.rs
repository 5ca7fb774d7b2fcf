//! Free functions and constants exported to JS.

use wasm_bindgen::prelude::*;

use serde::Serialize;

use super::convert::{messages_from_js, small_to_js};
use super::js_summarizer::request_from_js;
use super::options::{Options, MAX_TIMEOUT_MS};
use crate::compaction::config::DEFAULT_SUMMARY_PROMPT;
use crate::compaction::tool_pairs::validate_tool_pairs;
use crate::model::tokens::estimate_tokens;
use crate::summarizer::offline::OfflineSummarizer;

/// The built-in summary system prompt (exported as `DEFAULT_SUMMARY_PROMPT`).
#[wasm_bindgen(js_name = __defaultSummaryPrompt, skip_typescript)]
pub fn default_summary_prompt() -> String {
    DEFAULT_SUMMARY_PROMPT.to_owned()
}

/// Estimated tokens of `messages` (a fast heuristic, no tokenizer).
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens_js(messages: JsValue) -> Result<f64, JsValue> {
    Ok(estimate_tokens(&messages_from_js(&messages, "messages")?) as f64)
}

/// `{ messageIndex, problem, toolUseId }`
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Problem<'a> {
    message_index: usize,
    problem: &'a str,
    tool_use_id: &'a str,
}

/// Pairing problems: tool results not answering the preceding message's tool
/// calls, and tool calls not answered by the following message.
#[wasm_bindgen(js_name = validateToolPairs)]
pub fn validate_tool_pairs_js(messages: JsValue) -> Result<JsValue, JsValue> {
    let messages = messages_from_js(&messages, "messages")?;
    let found = validate_tool_pairs(&messages);
    let problems: Vec<Problem> = found
        .iter()
        .map(|p| Problem { message_index: p.message_index, problem: p.problem, tool_use_id: &p.tool_use_id })
        .collect();
    Ok(small_to_js(&problems))
}

/// A `summarize` function that runs offline, for demos and tests: it extracts
/// lines from the transcript and says it is not an LLM. `delayMs` simulates latency.
#[wasm_bindgen(js_name = offlineSummarizer)]
pub fn offline_summarizer(options: JsValue) -> Result<js_sys::Function, JsValue> {
    let options = Options::new(&options, "options", &["delayMs"], &[])?;
    let delay_ms = options.integer("delayMs", 0.0, MAX_TIMEOUT_MS)?.unwrap_or(0.0) as u64;
    let summarize = Closure::<dyn Fn(JsValue) -> js_sys::Promise>::new(move |args: JsValue| {
        let request = request_from_js(&args);
        super::promise::future_to_promise(async move {
            if delay_ms > 0 {
                crate::summarizer::timer::sleep(std::time::Duration::from_millis(delay_ms)).await;
            }
            Ok(OfflineSummarizer.summarize_text(&request).into())
        })
    });
    Ok(summarize.into_js_value().unchecked_into())
}
