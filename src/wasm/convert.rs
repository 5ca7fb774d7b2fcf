//! JSON across the boundary: JS values come in as the UTF-8 bytes of their
//! `JSON.stringify`, read by `serde_json` and the model's reader (arrays of
//! plain messages take the bulk path, [`super::plain_messages`]); values go out
//! as JSON text, then `JSON.parse`. Both are single native passes, far cheaper
//! than walking objects property by property from wasm.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::errors::{expected, invalid, invalid_with_cause};
use super::inspect::{entries, json_error};
use super::js_messages::messages_array;
use super::options::{whole, MAX_SAFE_INTEGER};
use crate::compaction::result::CompactionResult;
use crate::compaction::turns::StepRule;
use crate::json_text::{write_messages, write_value};
use crate::model::message::Message;
use crate::model::read::{parse_input_message_owned, parse_input_messages_owned, parse_summaries, read_bytes};

// JSON text crosses as UTF-8 bytes made and read by TextEncoder/TextDecoder: wasm-bindgen's
// own string passing copies ASCII text one character at a time in JS, several times slower
// on the megabytes of a conversation.
#[wasm_bindgen(inline_js = "const encoder = new TextEncoder();
const decoder = new TextDecoder();
export function jsonBytes(value) {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : encoder.encode(text);
}
export function parseJson(bytes) {
  return JSON.parse(decoder.decode(bytes));
}")]
extern "C" {
    /// `JSON.stringify(value)` as UTF-8 bytes; undefined for what JSON leaves out.
    #[wasm_bindgen(catch, js_name = jsonBytes)]
    fn json_bytes(value: &JsValue) -> Result<Option<js_sys::Uint8Array>, JsValue>;

    /// `JSON.parse` of UTF-8 JSON text; throws (caught) when it is too long for a JS string.
    #[wasm_bindgen(catch, js_name = parseJson)]
    fn parse_json(bytes: &[u8]) -> Result<JsValue, JsValue>;
}

/// Reads any JSON-compatible JS value; `path` names it in errors. What JSON
/// text cannot hold (a BigInt, a cycle, a lone surrogate, a getter that throws)
/// is `INVALID_INPUT` at the path of the field that holds it.
pub fn from_js(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    value_of(value, &bytes_of(value, path)?, path)
}

/// The UTF-8 bytes of `JSON.stringify(value)`.
fn bytes_of(value: &JsValue, path: &str) -> Result<Vec<u8>, JsValue> {
    if value.is_undefined() {
        return Err(invalid(path, "is required but missing"));
    }
    match json_bytes(value) {
        Ok(Some(bytes)) => Ok(bytes.to_vec()),
        Ok(None) => Err(expected(path, "JSON data", value)),
        Err(e) => {
            Err(json_error(value, path, false)
                .unwrap_or_else(|| invalid_with_cause(path, "is not JSON-serializable", &e)))
        }
    }
}

/// A JSON text as a plain JS value (`JSON.parse`). A text too long for a JS
/// string is `INVALID_INPUT` at `what` (the output it was to be).
pub fn json_to_js(text: &[u8], what: &str) -> Result<JsValue, JsValue> {
    parse_json(text).map_err(|e| {
        let megabytes = text.len() >> 20;
        invalid_with_cause(what, &format!("is too large to give JavaScript as one string ({megabytes} MB of JSON)"), &e)
    })
}

/// A `Value` as a plain JS value, through its JSON text.
pub fn to_js(value: &Value, what: &str) -> Result<JsValue, JsValue> {
    let mut text = Vec::new();
    write_value(&mut text, value);
    json_to_js(&text, what)
}

/// Small values (results, outcomes, events) as JS objects, made field by field.
pub fn small_to_js(value: &impl Serialize) -> JsValue {
    value.serialize(&serde_wasm_bindgen::Serializer::json_compatible()).unwrap_or(JsValue::UNDEFINED)
}

/// The JSON text of messages: made while the caller holds them, handed to JS
/// ([`json_to_js`]) once it does not (JS may throw, or call back).
pub fn messages_json(messages: &[Message]) -> Vec<u8> {
    let mut text = Vec::new();
    write_messages(&mut text, messages);
    text
}

/// `{ messages, <key>: value }` as a plain JS value.
pub fn messages_with_to_js(messages: &[Message], key: &str, value: &impl Serialize) -> Result<JsValue, JsValue> {
    // Written as text, not built as a `Value`, whose maps would sort the keys of each block.
    let value = serde_json::to_string(value).map_err(|e| invalid(key, e.to_string()))?;
    let key = serde_json::to_string(key).expect("strings always serialize");
    let mut text = b"{\"messages\":".to_vec();
    write_messages(&mut text, messages);
    text.extend_from_slice(format!(",{key}:{value}}}").as_bytes());
    json_to_js(&text, "messages")
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
    if let Some(messages) = super::plain_messages::read(value) {
        return Ok(messages);
    }
    // Not plain, or not valid: the reader names the field at fault.
    Ok(parse_input_messages_owned(from_js(value, path)?, path)?)
}

/// Reads one message, and whether it has a `turn_id`.
pub fn input_message_from_js(value: &JsValue, path: &str) -> Result<(Message, bool), JsValue> {
    if let Some(message) = super::plain_messages::read_one(value) {
        return Ok(message);
    }
    Ok(parse_input_message_owned(from_js(value, path)?, path)?)
}

/// The `Value` of `value`'s JSON `bytes`, or the error at the field that holds what JSON cannot.
fn value_of(value: &JsValue, bytes: &[u8], path: &str) -> Result<Value, JsValue> {
    read_bytes(bytes, path).map_err(|e| json_error(value, path, false).unwrap_or_else(|| e.into()))
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
pub struct ResultJs {
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

/// A compaction's counts as a JS object.
pub fn result_js(result: &CompactionResult) -> JsValue {
    small_to_js(&ResultJs::from(result))
}

/// `{ messages, result }`, what the stateless compactors return.
pub fn compacted_to_js(messages: &[Message], result: &CompactionResult) -> Result<JsValue, JsValue> {
    messages_with_to_js(messages, "result", &ResultJs::from(result))
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
