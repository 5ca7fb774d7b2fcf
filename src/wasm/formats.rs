//! The provider format adapters for JS: `fromAnthropic` / `toAnthropic`, etc.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert::{from_js, json_to_js, messages_from_js, messages_with_to_js, to_js};
use crate::error::InputError;
use crate::formats::{self, Imported, SystemMessage};
use crate::model::message::Message;

fn system_from_js(value: &JsValue, path: &str) -> Result<Vec<SystemMessage>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    Ok(formats::parse_system(&from_js(value, path)?, path)?)
}

/// The signature of the `from_*` readers of the formats with system messages.
type Reader = fn(&Value) -> Result<Imported<Vec<SystemMessage>>, InputError>;
/// The signature of their `to_*` writers.
type Writer = fn(&[Message], &[SystemMessage]) -> Value;

/// `read` applied to `value` (named `path`), as `{ system, messages }`.
fn read_to_js(value: &JsValue, path: &str, read: Reader) -> Result<JsValue, JsValue> {
    let imported = read(&from_js(value, path)?)?;
    messages_with_to_js(&imported.messages, "system", &imported.system)
}

/// `write` applied to the model `messages` and `system`, as JS.
fn write_to_js(messages: &JsValue, system: &JsValue, write: Writer) -> Result<JsValue, JsValue> {
    let messages = messages_from_js(messages, "messages")?;
    to_js(&write(&messages, &system_from_js(system, "system")?), "messages")
}

/// `{ system?, messages }` (Anthropic Messages API) → `{ system, messages }` in the model.
#[wasm_bindgen(js_name = fromAnthropic)]
pub fn from_anthropic(conversation: JsValue) -> Result<JsValue, JsValue> {
    let imported = formats::anthropic::from_anthropic(&from_js(&conversation, "conversation")?)?;
    messages_with_to_js(&imported.messages, "system", &imported.system.unwrap_or(Value::Null))
}

/// Model messages → Anthropic Messages API `messages`.
#[wasm_bindgen(js_name = toAnthropic)]
pub fn to_anthropic(messages: JsValue) -> Result<JsValue, JsValue> {
    let mut text = Vec::new();
    formats::anthropic::write_messages(&mut text, &messages_from_js(&messages, "messages")?);
    json_to_js(&text, "messages")
}

/// Chat Completions messages → `{ system, messages }`; `system` holds the
/// system/developer messages and where they were.
#[wasm_bindgen(js_name = fromOpenAI)]
pub fn from_openai(messages: JsValue) -> Result<JsValue, JsValue> {
    read_to_js(&messages, "messages", formats::openai::from_openai)
}

/// Model messages (and the `system` from `fromOpenAI`) → Chat Completions messages.
#[wasm_bindgen(js_name = toOpenAI)]
pub fn to_openai(messages: JsValue, system: JsValue) -> Result<JsValue, JsValue> {
    write_to_js(&messages, &system, formats::openai::to_openai)
}

/// Responses API input items → `{ system, messages }`.
#[wasm_bindgen(js_name = fromOpenAIResponses)]
pub fn from_openai_responses(items: JsValue) -> Result<JsValue, JsValue> {
    read_to_js(&items, "items", formats::openai_responses::from_openai_responses)
}

/// Model messages (and `system`) → Responses API input items.
#[wasm_bindgen(js_name = toOpenAIResponses)]
pub fn to_openai_responses(messages: JsValue, system: JsValue) -> Result<JsValue, JsValue> {
    write_to_js(&messages, &system, formats::openai_responses::to_openai_responses)
}

/// AI SDK `ModelMessage`s → `{ system, messages }`.
#[wasm_bindgen(js_name = fromVercelAI)]
pub fn from_vercel_ai(messages: JsValue) -> Result<JsValue, JsValue> {
    read_to_js(&messages, "messages", formats::vercel::from_vercel_ai)
}

/// Model messages (and `system`) → AI SDK `ModelMessage`s.
#[wasm_bindgen(js_name = toVercelAI)]
pub fn to_vercel_ai(messages: JsValue, system: JsValue) -> Result<JsValue, JsValue> {
    write_to_js(&messages, &system, formats::vercel::to_vercel_ai)
}

/// The format of a pasted conversation: "anthropic", "openai",
/// "openai-responses", "vercel-ai", "model", or `null` when not recognised.
#[wasm_bindgen(js_name = detectFormat)]
pub fn detect_format(conversation: JsValue) -> JsValue {
    let detected = from_js(&conversation, "conversation").ok().and_then(|value| formats::detect_format(&value));
    detected.map_or(JsValue::NULL, |f| f.name().into())
}
