//! The provider format adapters for JS: `fromAnthropic` / `toAnthropic`, etc.

use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use super::convert::{from_js, messages_from_js, messages_with_to_js, value_to_js};
use crate::formats::{self, SystemMessage};

/// `[{ message, position }]`, built without `json!`, whose `to_value` of a
/// `Value` would be a serializer the module needs for nothing else.
fn system_json(system: &[SystemMessage]) -> Value {
    let entry = |s: &SystemMessage| {
        let mut entry = Map::new();
        entry.insert("message".to_owned(), s.message.clone());
        entry.insert("position".to_owned(), s.position.into());
        Value::Object(entry)
    };
    system.iter().map(entry).collect()
}

fn system_from_js(value: &JsValue, path: &str) -> Result<Vec<SystemMessage>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    Ok(formats::parse_system(&from_js(value, path)?, path)?)
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
    value_to_js(&formats::anthropic::to_anthropic(&messages_from_js(&messages, "messages")?), "messages")
}

/// Chat Completions messages → `{ system, messages }`; `system` holds the
/// system/developer messages and where they were.
#[wasm_bindgen(js_name = fromOpenAI)]
pub fn from_openai(messages: JsValue) -> Result<JsValue, JsValue> {
    let imported = formats::openai::from_openai(&from_js(&messages, "messages")?)?;
    messages_with_to_js(&imported.messages, "system", &system_json(&imported.system))
}

/// Model messages (and the `system` from `fromOpenAI`) → Chat Completions messages.
#[wasm_bindgen(js_name = toOpenAI)]
pub fn to_openai(messages: JsValue, system: JsValue) -> Result<JsValue, JsValue> {
    let messages = messages_from_js(&messages, "messages")?;
    value_to_js(&formats::openai::to_openai(&messages, &system_from_js(&system, "system")?), "messages")
}

/// Responses API input items → `{ system, messages }`.
#[wasm_bindgen(js_name = fromOpenAIResponses)]
pub fn from_openai_responses(items: JsValue) -> Result<JsValue, JsValue> {
    let imported = formats::openai_responses::from_openai_responses(&from_js(&items, "items")?)?;
    messages_with_to_js(&imported.messages, "system", &system_json(&imported.system))
}

/// Model messages (and `system`) → Responses API input items.
#[wasm_bindgen(js_name = toOpenAIResponses)]
pub fn to_openai_responses(messages: JsValue, system: JsValue) -> Result<JsValue, JsValue> {
    let messages = messages_from_js(&messages, "messages")?;
    value_to_js(
        &formats::openai_responses::to_openai_responses(&messages, &system_from_js(&system, "system")?),
        "messages",
    )
}

/// AI SDK `ModelMessage`s → `{ system, messages }`.
#[wasm_bindgen(js_name = fromVercelAI)]
pub fn from_vercel_ai(messages: JsValue) -> Result<JsValue, JsValue> {
    let imported = formats::vercel::from_vercel_ai(&from_js(&messages, "messages")?)?;
    messages_with_to_js(&imported.messages, "system", &system_json(&imported.system))
}

/// Model messages (and `system`) → AI SDK `ModelMessage`s.
#[wasm_bindgen(js_name = toVercelAI)]
pub fn to_vercel_ai(messages: JsValue, system: JsValue) -> Result<JsValue, JsValue> {
    let messages = messages_from_js(&messages, "messages")?;
    value_to_js(&formats::vercel::to_vercel_ai(&messages, &system_from_js(&system, "system")?), "messages")
}

/// The format of a pasted conversation: "anthropic", "openai",
/// "openai-responses", "vercel-ai", "model", or `null` when not recognised.
#[wasm_bindgen(js_name = detectFormat)]
pub fn detect_format(conversation: JsValue) -> JsValue {
    let detected = from_js(&conversation, "conversation").ok().and_then(|value| formats::detect_format(&value));
    detected.map_or(JsValue::NULL, |f| f.name().into())
}
