//! Messages and other JSON values across the boundary: in and out through
//! [`super::values`], messages then read by the model's one reader (`model::read`),
//! which names the field at fault; small values (events) by serde-wasm-bindgen.

use std::collections::HashMap;

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::errors::expected;
use super::inspect::entries;
use super::js_messages::messages_array;
use super::options::{whole, MAX_SAFE_INTEGER};
pub use super::values::{from_js, to_js};
use super::values::{message_from_tape, messages_from_tape};
use crate::compaction::result::CompactionResult;
use crate::compaction::turns::StepRule;
use crate::model::message::Message;
use crate::model::read::parse_summaries;

/// Small values (events) as JS objects, made field by field.
pub fn small_to_js(value: &impl Serialize) -> JsValue {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::UNDEFINED)
}

/// `{ messages, system }` or `{ messages, result }`: what the `from…` functions
/// and the stateless compactors return.
#[derive(Serialize)]
pub struct MessagesWith<'a, T: Serialize> {
    /// The messages.
    pub messages: &'a [Message],
    /// What comes with them, under its key.
    #[serde(flatten)]
    pub with: T,
}

/// Reads an array of messages. Messages without a `turn_id` get one by the step
/// rule ([`StepRule`]).
pub fn messages_from_js(value: &JsValue, path: &str) -> Result<Vec<Message>, JsValue> {
    let (mut messages, given): (Vec<Message>, Vec<bool>) = input_messages_from_js(value, path)?.into_iter().unzip();
    StepRule::assign_missing(&mut messages, &given);
    Ok(messages)
}

/// Reads an array of messages, each with whether it has a `turn_id`.
pub fn input_messages_from_js(value: &JsValue, path: &str) -> Result<Vec<(Message, bool)>, JsValue> {
    messages_array(value, path)?;
    messages_from_tape(value, path)
}

/// Reads one message, and whether it has a `turn_id`.
pub fn input_message_from_js(value: &JsValue, path: &str) -> Result<(Message, bool), JsValue> {
    message_from_tape(value, path)
}

/// Reads compact summaries from a plain object or a `Map` (absent: none).
pub fn summaries_from_js(value: &JsValue, path: &str) -> Result<HashMap<String, String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(HashMap::new());
    }
    let object = entries(
        value,
        path,
        &["Map"],
        "an object or a Map of tool_use_id → summary",
        "expected a Map with string keys (tool_use_id)",
    )?;
    Ok(parse_summaries(&from_js(&object, path)?, path)?)
}

/// `{ toolResultsRedacted, toolResultsSummarized, turnsCompacted }`
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ResultJs {
    tool_results_redacted: usize,
    tool_results_summarized: usize,
    turns_compacted: usize,
}

impl From<&CompactionResult> for ResultJs {
    fn from(r: &CompactionResult) -> Self {
        Self {
            tool_results_redacted: r.tool_results_redacted,
            tool_results_summarized: r.tool_results_summarized,
            turns_compacted: r.turns_compacted,
        }
    }
}

/// `{ messages, result }`, what `LlmCompactor.compact` returns.
pub fn compacted_to_js(messages: &[Message], result: &CompactionResult) -> Result<JsValue, JsValue> {
    #[derive(Serialize)]
    struct WithResult {
        result: ResultJs,
    }
    to_js(&MessagesWith { messages, with: WithResult { result: ResultJs::from(result) } }, "messages")
}

/// Reads a token count: a non-negative safe integer.
pub fn token_count(value: &JsValue, path: &str) -> Result<i64, JsValue> {
    whole_number(value, path, 0.0)
}

/// Reads a context limit: a positive safe integer of tokens.
pub fn context_limit(value: &JsValue, path: &str) -> Result<i64, JsValue> {
    whole_number(value, path, 1.0)
}

/// A whole number of tokens from `min` to `Number.MAX_SAFE_INTEGER`.
fn whole_number(value: &JsValue, path: &str, min: f64) -> Result<i64, JsValue> {
    match value.as_f64() {
        Some(n) => Ok(whole(n, path, "a whole number of tokens", min, MAX_SAFE_INTEGER)? as i64),
        None => Err(expected(path, "a number of tokens", value)),
    }
}
