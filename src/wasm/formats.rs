//! The provider format adapters for JS: `fromAnthropic` / `toAnthropic`, etc.
//! The `to…` functions take `{ onEvent }` last: each block the format has no
//! equivalent for is reported as a `block_dropped` event.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use serde::Serialize;

use super::convert::{from_js, messages_from_js, small_to_js, to_js, MessagesWith};
use super::errors::invalid_with_cause;
use super::options::Options;
use super::values::read_tape_or_value;
use crate::error::InputError;
use crate::formats::{self, from_tape, Dropped, Format, Imported, SystemMessage};
use crate::model::message::Message;
use crate::tape;

fn system_from_js(value: &JsValue, path: &str) -> Result<Vec<SystemMessage>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Vec::new());
    }
    Ok(formats::parse_system(&from_js(value, path)?, path)?)
}

/// The signature of the `from_*` readers of the formats with system messages.
type Reader = fn(Value) -> Result<Imported<Vec<SystemMessage>>, InputError>;
/// The signature of their readers of the usual shapes from a tape (`formats::from_tape`).
type TapeReader = fn(&mut tape::Reader) -> Option<Imported<Vec<SystemMessage>>>;
/// The signature of their `to_*_with_dropped` writers.
type Writer = fn(&[Message], &[SystemMessage]) -> (Value, Vec<Dropped>);

/// `value` (named `path`) read by `fast`, else by `read`, as `{ messages, system }`.
fn read_to_js(value: &JsValue, path: &str, fast: TapeReader, read: Reader) -> Result<JsValue, JsValue> {
    let imported = read_tape_or_value(value, path, fast, read)?;
    imported_to_js(&imported.messages, &imported.system)
}

/// `{ messages, system }`, what the `from…` functions return.
fn imported_to_js(messages: &[Message], system: &impl Serialize) -> Result<JsValue, JsValue> {
    #[derive(Serialize)]
    struct WithSystem<'a, S: Serialize> {
        system: &'a S,
    }
    to_js(&MessagesWith { messages, with: WithSystem { system } }, "messages")
}

/// `write` applied to the model `messages` and `system`, as JS, its drops
/// reported to the `onEvent` of `options` as `format`.
fn write_to_js(
    messages: &JsValue,
    system: &JsValue,
    options: &JsValue,
    format: Format,
    write: Writer,
) -> Result<JsValue, JsValue> {
    write_any_to_js(messages, system, options, format, |messages, system| {
        let (value, dropped) = write(messages, system);
        Ok((to_js(&value, "messages")?, dropped))
    })
}

/// [`write_to_js`] with a writer that makes the JS value itself.
fn write_any_to_js(
    messages: &JsValue,
    system: &JsValue,
    options: &JsValue,
    format: Format,
    write: impl FnOnce(&[Message], &[SystemMessage]) -> Result<(JsValue, Vec<Dropped>), JsValue>,
) -> Result<JsValue, JsValue> {
    let on_event = on_event(options)?;
    let messages = messages_from_js(messages, "messages")?;
    let (value, dropped) = write(&messages, &system_from_js(system, "system")?)?;
    report(on_event, &dropped, format)?;
    Ok(value)
}

/// The `onEvent` of the `{ onEvent? }` options of a `to…` function.
fn on_event(options: &JsValue) -> Result<Option<js_sys::Function>, JsValue> {
    Options::new(options, "options", &["onEvent"], &[])?.function("onEvent")
}

// The Anthropic writer writes the JSON text of request bodies: `toAnthropic` gives JS that
// text to parse, which costs less than making values of it first.
#[wasm_bindgen(module = "/src/wasm/values.js")]
extern "C" {
    /// `JSON.parse` of UTF-8 JSON text (`ascii`: it is); throws when it is too long for a JS string.
    #[wasm_bindgen(catch, js_name = parseJson)]
    fn parse_json(bytes: &[u8], ascii: bool) -> Result<JsValue, JsValue>;
}

/// `{ kind, messageIndex, blockIndex, partIndex?, type, format, reason }`
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DroppedEvent<'a> {
    kind: &'static str,
    message_index: usize,
    block_index: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    part_index: Option<usize>,
    #[serde(rename = "type")]
    block_type: &'a str,
    format: &'static str,
    reason: &'static str,
}

/// Calls `on_event` with a `block_dropped` event for each of `dropped`, in
/// order; an exception it throws ends the call and is thrown on, unchanged.
fn report(on_event: Option<js_sys::Function>, dropped: &[Dropped], format: Format) -> Result<(), JsValue> {
    let Some(on_event) = on_event else { return Ok(()) };
    for d in dropped {
        let event = DroppedEvent {
            kind: "block_dropped",
            message_index: d.message_index,
            block_index: d.block_index,
            part_index: d.part_index,
            block_type: &d.block_type,
            format: format.name(),
            reason: d.reason,
        };
        on_event.call1(&JsValue::UNDEFINED, &small_to_js(&event))?;
    }
    Ok(())
}

/// `{ system?, messages }` (Anthropic Messages API) → `{ system, messages }` in the model.
#[wasm_bindgen(js_name = fromAnthropic)]
pub fn from_anthropic(conversation: JsValue) -> Result<JsValue, JsValue> {
    let read = formats::anthropic::from_anthropic_value;
    let imported = read_tape_or_value(&conversation, "conversation", from_tape::anthropic, read)?;
    imported_to_js(&imported.messages, &imported.system.unwrap_or(Value::Null))
}

/// Model messages → Anthropic Messages API `messages`; `options`: `{ onEvent? }`.
#[wasm_bindgen(js_name = toAnthropic)]
pub fn to_anthropic(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let on_event = on_event(&options)?;
    let mut text = Vec::new();
    let dropped = formats::anthropic::write_messages(&mut text, &messages_from_js(&messages, "messages")?);
    let value = parse_json(&text, text.is_ascii())
        .map_err(|e| invalid_with_cause("messages", "is too large to give JavaScript", &e))?;
    report(on_event, &dropped, Format::Anthropic)?;
    Ok(value)
}

/// Chat Completions messages → `{ system, messages }`; `system` holds the
/// system/developer messages and where they were.
#[wasm_bindgen(js_name = fromOpenAI)]
pub fn from_openai(messages: JsValue) -> Result<JsValue, JsValue> {
    read_to_js(&messages, "messages", from_tape::openai, formats::openai::from_openai_value)
}

/// Model messages (and the `system` from `fromOpenAI`) → Chat Completions
/// messages; `options`: `{ onEvent? }`.
#[wasm_bindgen(js_name = toOpenAI)]
pub fn to_openai(messages: JsValue, system: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    write_to_js(&messages, &system, &options, Format::OpenAi, formats::openai::to_openai_with_dropped)
}

/// Responses API input items → `{ system, messages }`.
#[wasm_bindgen(js_name = fromOpenAIResponses)]
pub fn from_openai_responses(items: JsValue) -> Result<JsValue, JsValue> {
    read_to_js(&items, "items", from_tape::openai_responses, formats::openai_responses::from_openai_responses_value)
}

/// Model messages (and `system`) → Responses API input items; `options`: `{ onEvent? }`.
#[wasm_bindgen(js_name = toOpenAIResponses)]
pub fn to_openai_responses(messages: JsValue, system: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    write_to_js(
        &messages,
        &system,
        &options,
        Format::OpenAiResponses,
        formats::openai_responses::to_openai_responses_with_dropped,
    )
}

/// AI SDK `ModelMessage`s → `{ system, messages }`.
#[wasm_bindgen(js_name = fromVercelAI)]
pub fn from_vercel_ai(messages: JsValue) -> Result<JsValue, JsValue> {
    read_to_js(&messages, "messages", from_tape::vercel_ai, formats::vercel::from_vercel_ai_value)
}

/// Model messages (and `system`) → AI SDK `ModelMessage`s; `options`: `{ onEvent? }`.
#[wasm_bindgen(js_name = toVercelAI)]
pub fn to_vercel_ai(messages: JsValue, system: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    write_any_to_js(&messages, &system, &options, Format::VercelAi, |messages, system| {
        let (written, dropped) = formats::vercel::written(messages, system);
        Ok((to_js(&written, "messages")?, dropped))
    })
}

/// The format of a pasted conversation: "anthropic", "openai",
/// "openai-responses", "vercel-ai", "model", or `null` when not recognised.
#[wasm_bindgen(js_name = detectFormat)]
pub fn detect_format(conversation: JsValue) -> JsValue {
    let detected = from_js(&conversation, "conversation").ok().and_then(|value| formats::detect_format(&value));
    detected.map_or(JsValue::NULL, |f| f.name().into())
}
