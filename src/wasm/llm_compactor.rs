//! `LlmCompactor`: the stateless, asynchronous compactor for JS.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use super::compactor_options::llm_config;
use super::convert::{compacted_to_js, context_limit, messages_from_js, summaries_from_js, token_count};
use super::errors::to_js_error;
use super::js_summarizer::JsSummarizer;
use super::promise::future_to_promise;
use crate::compaction::config::exceeds_threshold;
use crate::compaction::llm::LLMCompactor;

/// Summarizes old turns with the user's `summarize` function.
#[wasm_bindgen(js_name = LlmCompactor)]
pub struct JsLlmCompactor {
    inner: Rc<LLMCompactor<JsSummarizer>>,
}

#[wasm_bindgen(js_class = LlmCompactor)]
impl JsLlmCompactor {
    /// `new LlmCompactor({ summarize, threshold, keepRecentTurns, summarySystemPrompt, maxSummaryTokens, summaryTimeoutMs })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsLlmCompactor, JsValue> {
        let (config, summarize, _) = llm_config(&options, "options", &[])?;
        Ok(Self { inner: Rc::new(LLMCompactor::new(config, JsSummarizer::new(summarize))?) })
    }

    /// Whether `contextUsed / contextLimit` is above the threshold.
    #[wasm_bindgen(js_name = shouldCompact)]
    pub fn should_compact(&self, context_used: JsValue, limit: JsValue) -> Result<bool, JsValue> {
        let used = token_count(&context_used, "contextUsed")?;
        let limit = context_limit(&limit, "contextLimit")?;
        Ok(exceeds_threshold(self.inner.config().threshold, used, limit))
    }

    /// Resolves to `{ messages, result }`; rejects with a `CompactionError`.
    /// The input array is never modified.
    pub fn compact(&self, messages: JsValue, compact_summaries: JsValue) -> js_sys::Promise {
        let inner = Rc::clone(&self.inner);
        let input = messages_from_js(&messages, "messages")
            .and_then(|m| Ok((m, summaries_from_js(&compact_summaries, "compactSummaries")?)));
        future_to_promise(async move {
            let (conversation, summaries) = input?;
            let (compacted, result) =
                inner.compact_conversation(conversation, &summaries).await.map_err(|e| to_js_error(&e))?;
            compacted_to_js(&compacted, &result)
        })
    }
}
