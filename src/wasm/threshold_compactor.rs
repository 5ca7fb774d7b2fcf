//! `ThresholdCompactor`: the stateless, synchronous compactor for JS.

use wasm_bindgen::prelude::*;

use super::compactor_options::threshold_config;
use super::convert::{compacted_to_js, context_limit, messages_from_js, summaries_from_js, token_count};
use crate::compactor::Compactor;
use crate::config::exceeds_threshold;
use crate::threshold::ThresholdCompactor;

/// Summarizes or redacts tool results in old turns. Fast, synchronous, never fails.
#[wasm_bindgen(js_name = ThresholdCompactor)]
pub struct JsThresholdCompactor {
    inner: ThresholdCompactor,
}

#[wasm_bindgen(js_class = ThresholdCompactor)]
impl JsThresholdCompactor {
    /// `new ThresholdCompactor({ threshold = 0.75, keepRecentTurns = 3, toolCompaction = "summarize" })`
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<JsThresholdCompactor, JsValue> {
        Ok(Self { inner: ThresholdCompactor::new(threshold_config(&options, "options", &[])?) })
    }

    /// Whether `contextUsed / contextLimit` is above the threshold.
    #[wasm_bindgen(js_name = shouldCompact)]
    pub fn should_compact(&self, context_used: JsValue, limit: JsValue) -> Result<bool, JsValue> {
        let used = token_count(&context_used, "contextUsed")?;
        let limit = context_limit(&limit, "contextLimit")?;
        Ok(exceeds_threshold(self.inner.config.threshold, used, limit))
    }

    /// Returns `{ messages, result }`: a new array; the input is not modified.
    pub fn compact(&self, messages: JsValue, compact_summaries: JsValue) -> Result<JsValue, JsValue> {
        let mut conversation = messages_from_js(&messages, "messages")?;
        let summaries = summaries_from_js(&compact_summaries, "compactSummaries")?;
        let result = self.inner.compact(&mut conversation, &summaries);
        Ok(compacted_to_js(&conversation, &result))
    }
}
