//! `ThresholdCompactor`: the stateless, synchronous compactor for JS.

use std::collections::HashMap;

use js_sys::Array;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::compactor_options::threshold_config;
use super::convert::{
    compacted_to_js, context_limit, messages_from_js, result_json, summaries_from_js, to_js, token_count,
};
use super::js_messages::{messages_array, scan, set_content, set_contents, tool_results, turn_id};
use crate::compactor::CompactionResult;
use crate::compactor::Compactor;
use crate::config::exceeds_threshold;
use crate::threshold::ThresholdCompactor;
use crate::turns::old_turns_by;

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

    /// Compacts `messages` in place, as an app's own loop would: the old tool
    /// results' `content` is replaced, nothing else is read, copied or filled
    /// in. Only what compaction needs is checked (turn ids; roles and blocks of
    /// old messages), with the same errors as `compact`; on error nothing changed.
    #[wasm_bindgen(js_name = compactInPlace)]
    pub fn compact_in_place(&self, messages: JsValue, compact_summaries: JsValue) -> Result<JsValue, JsValue> {
        let array = messages_array(&messages, "messages")?;
        let summaries = summaries_from_js(&compact_summaries, "compactSummaries")?;
        if let Some(result) = self.compact_in_place_in_js(&array, &summaries) {
            return Ok(to_js(&result_json(&result)));
        }
        let len = array.length();
        let ids = (0..len).map(|i| turn_id(&array, i, "messages")).collect::<Result<Vec<_>, _>>()?;
        let keep = self.inner.config.keep_recent_turns;
        let Some(old) = old_turns_by(ids.len(), |i| ids[i].same_as(&ids[i - 1]), keep) else {
            return Ok(to_js(&result_json(&CompactionResult::default())));
        };
        let mut edits = Vec::new();
        for index in 0..old.messages as u32 {
            for tool_result in tool_results(&array, index, "messages")? {
                let compact_summary = tool_result.compact_summary.as_ref().and_then(JsValue::as_string);
                // Compared as JS strings: the (long) current content is not copied.
                let mut text_js = JsValue::UNDEFINED;
                let replacement =
                    self.inner.replacement(&tool_result.tool_use_id, compact_summary.as_deref(), &summaries, |text| {
                        text_js = JsValue::from_str(text);
                        text_js == tool_result.content
                    });
                if replacement.is_some() {
                    edits.push((tool_result.block, text_js));
                }
            }
        }
        let mut result = CompactionResult::default();
        for (block, content) in edits {
            set_content(&block, &content);
            self.inner.count(&mut result);
        }
        Ok(to_js(&result_json(&result)))
    }
}

impl JsThresholdCompactor {
    /// `compactInPlace` with the array read and edited by `js_messages.js`;
    /// `None` when it meets invalid input (nothing changed then).
    fn compact_in_place_in_js(&self, array: &Array, summaries: &HashMap<String, String>) -> Option<CompactionResult> {
        let scanned = scan(array)?;
        let same = scanned.same();
        let keep = self.inner.config.keep_recent_turns;
        let Some(old) = old_turns_by(same.len(), |i| same[i] == 1, keep) else {
            return Some(CompactionResult::default());
        };
        let at = scanned.at();
        // As a `Value`: the parser is already in the module for that type.
        let ids = serde_json::from_str::<Value>(&scanned.ids()).ok()?;
        let ids = ids.as_array()?;
        let summarized = scanned.summarized();
        // A block's own summary stays in JS: it is passed as this marker, recognised by address.
        const OWN: &str = "compact_summary";
        let texts = (0..at.partition_point(|&i| (i as usize) < old.messages))
            .map(|k| {
                let id = ids.get(k)?.as_str()?;
                let own = (summarized[k] == 1).then_some(OWN);
                // Whether the content already is the text is asked of JS, where the content is.
                Some(match self.inner.replacement(id, own, summaries, |_| false) {
                    None => Value::Null,
                    Some(text) if std::ptr::eq(text, OWN) => Value::from(1),
                    Some(text) => Value::from(text),
                })
            })
            .collect::<Option<Value>>()?;
        let mut result = CompactionResult::default();
        for _ in 0..set_contents(&scanned, &serde_json::to_string(&texts).ok()?) {
            self.inner.count(&mut result);
        }
        Some(result)
    }
}
