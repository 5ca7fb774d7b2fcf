//! JSON across the boundary: JS values in through `JSON.stringify` + serde_json,
//! out through serde_json + `JSON.parse`. Both are single native passes, far
//! cheaper than walking objects property by property.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::errors::{describe_thrown, invalid, js_type};
use crate::message::Message;
use crate::parse::{parse_message_owned, parse_messages_owned, parse_summaries};
use crate::text::number_text;

/// Reads any JSON-compatible JS value; `path` names it in errors. Cyclic
/// structures and BigInts are rejected as `INVALID_INPUT`.
pub fn from_js(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    if value.is_undefined() {
        return Err(invalid(path, "is required but missing"));
    }
    let text = js_sys::JSON::stringify(value)
        .map_err(|e| invalid(path, format!("is not JSON-serializable: {}", describe_thrown(&e))))?;
    let text = text.as_string().ok_or_else(|| invalid(path, format!("expected JSON data, got {}", js_type(value))))?;
    serde_json::from_str(&text).map_err(|e| invalid(path, format!("could not be read: {e}")))
}

/// Writes any serializable value as a plain JS value.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    match serde_json::to_string(value) {
        Ok(text) => js_sys::JSON::parse(&text).unwrap_or(JsValue::NULL),
        Err(_) => JsValue::NULL,
    }
}

/// Reads an array of messages.
pub fn messages_from_js(value: &JsValue, path: &str) -> Result<Vec<Message>, JsValue> {
    if !js_sys::Array::is_array(value) {
        return Err(invalid(path, format!("expected an array of messages, got {}", js_type(value))));
    }
    Ok(parse_messages_owned(from_js(value, path)?, path)?)
}

/// Reads one message.
pub fn message_from_js(value: &JsValue, path: &str) -> Result<Message, JsValue> {
    Ok(parse_message_owned(from_js(value, path)?, path)?)
}

/// Reads compact summaries from a plain object or a `Map` (absent: none).
pub fn summaries_from_js(value: &JsValue, path: &str) -> Result<HashMap<String, String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(HashMap::new());
    }
    let value = match value.dyn_ref::<js_sys::Map>() {
        Some(map) => {
            let mut keys_ok = true;
            map.for_each(&mut |_, key| keys_ok &= key.is_string());
            if !keys_ok {
                return Err(invalid(path, "expected a Map with string keys (tool_use_id)"));
            }
            js_sys::Object::from_entries(map).map_err(|e| invalid(path, describe_thrown(&e)))?.into()
        }
        None if value.is_object() && !js_sys::Array::is_array(value) => value.clone(),
        None => {
            return Err(invalid(
                path,
                format!("expected an object or a Map of tool_use_id → summary, got {}", js_type(value)),
            ))
        }
    };
    Ok(parse_summaries(&from_js(&value, path)?, path)?)
}

/// `{ toolResultsSummarized, toolResultsRedacted, turnsCompacted }`
pub fn result_json(result: &crate::compactor::CompactionResult) -> Value {
    serde_json::json!({
        "toolResultsSummarized": result.tool_results_summarized,
        "toolResultsRedacted": result.tool_results_redacted,
        "turnsCompacted": result.turns_compacted,
    })
}

/// `{ messages, result }`, what the stateless compactors return.
pub fn compacted_to_js(messages: &[Message], result: &crate::compactor::CompactionResult) -> JsValue {
    to_js(&serde_json::json!({ "messages": messages, "result": result_json(result) }))
}

/// Reads a token count: a finite, non-negative whole number.
pub fn token_count(value: &JsValue, path: &str) -> Result<i64, JsValue> {
    match value.as_f64() {
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= super::options::MAX_SAFE_INTEGER => {
            Ok(n as i64)
        }
        Some(n) => {
            Err(invalid(path, format!("expected a non-negative whole number of tokens, got {}", number_text(n))))
        }
        None => Err(invalid(path, format!("expected a number of tokens, got {}", js_type(value)))),
    }
}

/// Reads a context limit: a positive whole number of tokens.
pub fn context_limit(value: &JsValue, path: &str) -> Result<i64, JsValue> {
    match token_count(value, path)? {
        0 => Err(invalid(path, "expected a positive number of tokens, got 0")),
        n => Ok(n),
    }
}
