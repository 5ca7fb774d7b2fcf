//! JSON across the boundary: JS values in through `JSON.stringify` and [`crate::json_reader`],
//! out as JSON text written by [`crate::model_json`] and [`crate::json_writer`],
//! then `JSON.parse`. Both are single native passes, far cheaper than walking
//! objects property by property from wasm. Arrays of plain messages come in
//! without JSON text: [`super::plain_messages`] walks them in JS.

use std::collections::HashMap;

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::errors::{expected, invalid, invalid_with_cause};
use super::inspect::{entries, json_error};
use super::js_messages::messages_array;
use super::js_text::parse_json;
use super::options::{whole, MAX_SAFE_INTEGER};
use crate::json_writer::{to_text, write_str, write_value};
use crate::message::Message;
use crate::model_json::write_messages;
use crate::parse::{parse_input_message_owned, parse_input_messages_owned, parse_summaries, read_text};
use crate::turns::StepRule;

/// Reads any JSON-compatible JS value; `path` names it in errors. What JSON
/// text cannot hold (a BigInt, a cycle, a lone surrogate, a getter that throws)
/// is `INVALID_INPUT` at the path of the field that holds it.
pub fn from_js(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    let text = json_text(value, path)?;
    read_text(&text, path).map_err(|e| json_error(value, path, false).unwrap_or_else(|| e.into()))
}

/// The JSON text of a JS value (`JSON.stringify`).
fn json_text(value: &JsValue, path: &str) -> Result<String, JsValue> {
    if value.is_undefined() {
        return Err(invalid(path, "is required but missing"));
    }
    let text = js_sys::JSON::stringify(value).map_err(|e| {
        json_error(value, path, false).unwrap_or_else(|| invalid_with_cause(path, "is not JSON-serializable", &e))
    })?;
    if !text.is_string() {
        return Err(expected(path, "JSON data", value));
    }
    Ok(utf8(&text))
}

#[wasm_bindgen(inline_js = "const encoder = new TextEncoder();
export function encodeInto(text, from, bytes, out) {
  const { read, written } = encoder.encodeInto(from === 0 ? text : text.slice(from), bytes);
  out[0] = read;
  out[1] = written;
}")]
extern "C" {
    /// Writes `text` from UTF-16 unit `from` as UTF-8 into `bytes`, as far as
    /// it fits; `out` receives the units read and the bytes written.
    #[wasm_bindgen(js_name = encodeInto)]
    fn encode_into(text: &js_sys::JsString, from: u32, bytes: &js_sys::Uint8Array, out: &js_sys::Uint32Array);
}

/// A JS string as UTF-8, encoded by `TextEncoder.encodeInto` straight into
/// wasm memory (`as_string` copies ASCII text one character at a time in JS).
/// Room for ASCII first, then 3 bytes per remaining UTF-16 unit, as `as_string`
/// does. Lone surrogates become U+FFFD, as with `as_string`.
pub fn utf8(text: &js_sys::JsString) -> String {
    let len = text.length() as usize;
    let mut bytes = Vec::<u8>::with_capacity(len);
    let mut read = 0;
    let mut out = [0u32; 2];
    loop {
        let spare = bytes.capacity() - bytes.len();
        // SAFETY: the views cover `out` and the vector's spare capacity and live
        // only for the call, during which nothing allocates in wasm memory;
        // `encodeInto` writes `out[1]` bytes from the start of the spare capacity.
        unsafe {
            let view = js_sys::Uint8Array::view_mut_raw(bytes.as_mut_ptr().add(bytes.len()), spare);
            encode_into(text, read as u32, &view, &js_sys::Uint32Array::view_mut_raw(out.as_mut_ptr(), 2));
            bytes.set_len(bytes.len() + out[1] as usize);
        }
        read += out[0] as usize;
        if read >= len {
            break;
        }
        bytes.reserve((len - read) * 3);
    }
    // SAFETY: TextEncoder's output is always valid UTF-8, and it never splits a character.
    unsafe { String::from_utf8_unchecked(bytes) }
}

/// A JSON text as a plain JS value (`JSON.parse`); the texts come from
/// [`crate::model_json`] and [`crate::json_writer`], which write messages and
/// `Value`s faster than `serde_json`. A text too long for a JS
/// string is `INVALID_INPUT` at `what` (the output it was to be).
pub fn json_to_js(text: &str, what: &str) -> Result<JsValue, JsValue> {
    parse_json(text).map_err(|e| {
        let megabytes = text.len() >> 20;
        invalid_with_cause(what, &format!("is too large to give JavaScript as one string ({megabytes} MB of JSON)"), &e)
    })
}

/// A JSON value as a plain JS value (`what` names it in an error).
pub fn value_to_js(value: &Value, what: &str) -> Result<JsValue, JsValue> {
    // SAFETY: written by `write_value` alone.
    json_to_js(&unsafe { to_text(|out| write_value(out, value)) }, what)
}

/// The JSON text of messages: made while the caller holds them, handed to JS
/// ([`json_to_js`]) once it does not (JS may throw, or call back).
pub fn messages_json(messages: &[Message]) -> String {
    // SAFETY: written by `write_messages` alone.
    unsafe { to_text(|out| write_messages(out, messages)) }
}

/// `{ messages, <key>: value }` as a plain JS value.
pub fn messages_with_to_js(messages: &[Message], key: &str, value: &Value) -> Result<JsValue, JsValue> {
    // SAFETY: ASCII, then `write_messages`, `write_str` and `write_value`.
    let text = unsafe {
        to_text(|out| {
            out.extend_from_slice(b"{\"messages\":");
            write_messages(out, messages);
            out.push(b',');
            write_str(out, key);
            out.push(b':');
            write_value(out, value);
            out.push(b'}');
        })
    };
    json_to_js(&text, "messages")
}

/// Reads an array of messages: plain ones without JSON text, others as JSON.
/// Messages without a `turn_id` get one by the step rule ([`StepRule`]).
pub fn messages_from_js(value: &JsValue, path: &str) -> Result<Vec<Message>, JsValue> {
    let messages = input_messages_from_js(value, path)?;
    let given: Vec<bool> = messages.iter().map(|(_, given)| *given).collect();
    let mut messages: Vec<Message> = messages.into_iter().map(|(message, _)| message).collect();
    StepRule::assign_missing(&mut messages, &given);
    Ok(messages)
}

/// Reads an array of messages, each with whether it has a `turn_id`.
pub fn input_messages_from_js(value: &JsValue, path: &str) -> Result<Vec<(Message, bool)>, JsValue> {
    messages_array(value, path)?;
    if let Some(messages) = super::plain_messages::read(value) {
        return Ok(messages);
    }
    Ok(parse_input_messages_owned(from_js(value, path)?, path)?)
}

/// Reads one message, as [`input_messages_from_js`] reads an array of one.
pub fn input_message_from_js(value: &JsValue, path: &str) -> Result<(Message, bool), JsValue> {
    if let Some(message) = super::plain_messages::read_one(value) {
        return Ok(message);
    }
    Ok(parse_input_message_owned(from_js(value, path)?, path)?)
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

/// `{ toolResultsSummarized, toolResultsRedacted, turnsCompacted }`
pub fn result_json(result: &crate::compactor::CompactionResult) -> Value {
    crate::text::object([
        ("toolResultsSummarized", result.tool_results_summarized.into()),
        ("toolResultsRedacted", result.tool_results_redacted.into()),
        ("turnsCompacted", result.turns_compacted.into()),
    ])
}

/// `{ messages, result }`, what the stateless compactors return.
pub fn compacted_to_js(messages: &[Message], result: &crate::compactor::CompactionResult) -> Result<JsValue, JsValue> {
    messages_with_to_js(messages, "result", &result_json(result))
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
