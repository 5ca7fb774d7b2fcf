//! The compactors' option objects, read into the core's configurations.

use std::time::Duration;

use wasm_bindgen::prelude::*;

use super::errors::expected_got;
use super::options::{Options, MAX_SAFE_INTEGER, MAX_TIMEOUT_MS};
use crate::compaction::config::{CompactionConfig, LLMCompactorConfig, ToolCompaction};

const THRESHOLD_KEYS: &[&str] = &["threshold", "keepRecentTurns", "keepRecentTokens", "toolCompaction"];
const LLM_KEYS: &[&str] = &[
    "summarize",
    "threshold",
    "keepRecentTurns",
    "keepRecentTokens",
    "keepUserMessagesTokens",
    "summarySystemPrompt",
    "maxSummaryTokens",
    "summaryTimeoutMs",
];

/// Reads `{ threshold, keepRecentTurns, toolCompaction }`, plus `extra` keys left to the caller.
pub fn threshold_config(value: &JsValue, path: &str, extra: &[&str]) -> Result<CompactionConfig, JsValue> {
    let options = Options::new(value, path, THRESHOLD_KEYS, extra)?;
    let defaults = CompactionConfig::default();
    Ok(CompactionConfig {
        threshold: options.ratio("threshold")?.unwrap_or(defaults.threshold),
        keep_recent_turns: keep_recent_turns(&options)?.unwrap_or(defaults.keep_recent_turns),
        keep_recent_tokens: tokens(&options, "keepRecentTokens")?,
        tool_compaction: match options.string("toolCompaction")?.as_deref() {
            None | Some("summarize") => ToolCompaction::Summarize,
            Some("redact") => ToolCompaction::Redact,
            Some(other) => {
                return Err(expected_got(
                    &options.path("toolCompaction"),
                    "\"summarize\" or \"redact\"",
                    &crate::text::quoted(other),
                ))
            }
        },
    })
}

/// Reads the LLM compactor's options and its required `summarize` function.
pub fn llm_config(
    value: &JsValue,
    path: &str,
    extra: &[&str],
) -> Result<(LLMCompactorConfig, js_sys::Function, Options), JsValue> {
    // Undefined or null options have no `summarize` either.
    let options = Options::new(value, path, LLM_KEYS, extra)?;
    let summarize = options.function("summarize")?.ok_or_else(|| {
        super::errors::invalid(options.path("summarize"), "is required: the function that calls your LLM")
    })?;
    let defaults = LLMCompactorConfig::default();
    let config = LLMCompactorConfig {
        threshold: options.ratio("threshold")?.unwrap_or(defaults.threshold),
        keep_recent_turns: keep_recent_turns(&options)?.unwrap_or(defaults.keep_recent_turns),
        keep_recent_tokens: tokens(&options, "keepRecentTokens")?,
        keep_user_messages_tokens: tokens(&options, "keepUserMessagesTokens")?
            .unwrap_or(defaults.keep_user_messages_tokens),
        summary_system_prompt: options.string("summarySystemPrompt")?,
        max_summary_tokens: match options.integer("maxSummaryTokens", 1.0, MAX_SAFE_INTEGER)? {
            Some(n) => Some(n as i64),
            None => defaults.max_summary_tokens,
        },
        summary_timeout: match options.integer("summaryTimeoutMs", 1.0, MAX_TIMEOUT_MS)? {
            Some(ms) => Some(Duration::from_millis(ms as u64)),
            None => defaults.summary_timeout,
        },
    };
    Ok((config, summarize, options))
}

/// A whole number of tokens, 0 or more.
fn tokens(options: &Options, key: &str) -> Result<Option<i64>, JsValue> {
    Ok(options.integer(key, 0.0, MAX_SAFE_INTEGER)?.map(|n| n as i64))
}

fn keep_recent_turns(options: &Options) -> Result<Option<usize>, JsValue> {
    Ok(options.integer("keepRecentTurns", 0.0, MAX_SAFE_INTEGER)?.map(|n| n as usize))
}
