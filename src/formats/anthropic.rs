//! The Anthropic Messages API format: `{ system?, messages }`.
//!
//! The model's blocks are the Anthropic blocks, so this is mostly a copy:
//! `text`, `tool_use` and `tool_result` are read into their model blocks, every
//! other block (`image`, `document`, `thinking`, `redacted_thinking`, server tool
//! blocks, …) is kept verbatim as [`ContentBlock::Other`].
//!
//! Normalizations (what [`to_anthropic`] writes differently from what
//! [`from_anthropic`] accepted):
//! - a `tool_result`'s `is_error: false` is omitted (the API default);
//! - a `tool_result` whose `content` is an empty array, or was missing, is
//!   written without `content`;
//! - the model's `compact_summary` is not written (it is not an API field);
//! - a `tool_use` whose `input` is not an object (a Chat Completions call whose
//!   `arguments` were not a JSON object) is written as `{"arguments": input}`:
//!   the API accepts only objects, and the model still sees what it sent.

use serde_json::{json, Map, Value};

use crate::error::InputError;
use crate::formats::portable::{for_format, Dropped};
use crate::formats::{
    object_mut, original_input, plain_text, put, put_str, read_content_message, recorded_form, required, restored,
    ContentForm, Format, Imported, MESSAGE_RESERVED,
};
use crate::model::message::{ContentBlock, Message, Role, ToolResultContent};
use crate::model::read::{expected, field, kind, nth, parse_block_owned};

/// Reads an Anthropic conversation: `{ system?, messages }` (other top-level
/// fields, e.g. `model`, are ignored) or the bare `messages` array. `system` (a
/// string or an array of text blocks) is returned untouched; a message's
/// `content` may be a string or an array of blocks.
pub fn from_anthropic(value: &Value) -> Result<Imported<Option<Value>>, InputError> {
    from_anthropic_value(value.clone())
}

/// [`from_anthropic`] taking the JSON by value: its strings are moved into the messages.
pub(crate) fn from_anthropic_value(mut value: Value) -> Result<Imported<Option<Value>>, InputError> {
    let (system, messages) = match &mut value {
        Value::Object(obj) => (
            obj.get_mut("system").map(std::mem::take),
            obj.get_mut("messages").ok_or_else(|| InputError::new("messages", "is required but missing"))?,
        ),
        Value::Array(_) => (None, &mut value),
        other => {
            return Err(expected(
                "conversation",
                "an object { system?, messages } or an array of messages",
                kind(other),
            ))
        }
    };
    let Value::Array(items) = messages else {
        return Err(expected("messages", "an array of messages", kind(messages)));
    };
    let mut messages = Vec::with_capacity(items.len());
    for (i, m) in items.iter_mut().enumerate() {
        messages.push(read_message(m, &nth("messages", i))?);
    }
    crate::formats::assign_turn_ids(&mut messages);
    Ok(Imported { system, messages })
}

fn read_message(value: &mut Value, path: &str) -> Result<Message, InputError> {
    let obj = object_mut(value, path, "a message object")?;
    let role = required(obj, "role", path)?;
    let role = match role.as_str() {
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        other => {
            let got = other.map_or_else(|| kind(role).to_owned(), crate::text::quoted);
            return Err(expected(&field(path, "role"), "\"user\" or \"assistant\"", &got));
        }
    };
    read_content_message(obj, role, path, "a string or an array of content blocks", &mut read_block)
}

/// One block, taken out of `value`; a `tool_result` without `content` is read with empty content.
fn read_block(value: &mut Value, path: &str) -> Result<ContentBlock, InputError> {
    if let Value::Object(obj) = value {
        if obj.get("type").and_then(Value::as_str) == Some("tool_result") && !obj.contains_key("content") {
            put(obj, "content", Value::Array(Vec::new()));
        }
    }
    parse_block_owned(std::mem::take(value), path)
}

/// Writes messages as the Messages API `messages` array. Content is an array of
/// blocks, or a string where [`from_anthropic`] read a string and the content is
/// still a single text block. Blocks of messages read from another format are
/// converted, or left out when Anthropic has no equivalent
/// ([`to_anthropic_with_dropped`] says which), and so is a message left empty.
pub fn to_anthropic(messages: &[Message]) -> Value {
    to_anthropic_with_dropped(messages).0
}

/// [`to_anthropic`], and the blocks it left out.
pub fn to_anthropic_with_dropped(messages: &[Message]) -> (Value, Vec<Dropped>) {
    let mut out = Vec::with_capacity(messages.len());
    let mut dropped = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        write_message(message, i, &mut out, &mut dropped);
    }
    (Value::Array(out), dropped)
}

/// One message as the API takes it, appended to `out` (nothing when no block of
/// it is left); the message at `index` for what is added to `dropped`.
pub(crate) fn write_message(message: &Message, index: usize, out: &mut Vec<Value>, dropped: &mut Vec<Dropped>) {
    let Some(message) = for_format(message, index, Format::Anthropic, dropped) else { return };
    let message = &*message;
    let mut object = Map::new();
    for (key, value) in restored(&message.extra, MESSAGE_RESERVED, &["role", "content"]) {
        put(&mut object, key, value.clone());
    }
    put_str(&mut object, "role", message.role.as_str());
    let content = match (recorded_form(&message.extra), plain_text(&message.content)) {
        (Some(ContentForm::String), Some(text)) => Value::String(text.to_owned()),
        (Some(ContentForm::Null), _) if message.content.is_empty() => Value::Null,
        _ => Value::Array(message.content.iter().map(write_block).collect()),
    };
    put(&mut object, "content", content);
    out.push(Value::Object(object));
}

/// One block as the API takes it: the fields the model keeps for it, then its own.
fn write_block(block: &ContentBlock) -> Value {
    let (extra, own): (_, &[&str]) = match block {
        ContentBlock::Text(b) => (&b.extra, &["type", "text"]),
        ContentBlock::ToolUse(b) => (&b.extra, &["type", "id", "name", "input"]),
        ContentBlock::ToolResult(b) => (&b.extra, &["type", "tool_use_id", "content", "is_error"]),
        ContentBlock::Other(map) => return Value::Object(map.clone()),
    };
    let mut object = Map::new();
    for (key, value) in restored(extra, &[], own) {
        put(&mut object, key, value.clone());
    }
    match block {
        ContentBlock::Text(b) => {
            put_str(&mut object, "type", "text");
            put_str(&mut object, "text", &b.text);
        }
        ContentBlock::ToolUse(b) => {
            put_str(&mut object, "type", "tool_use");
            put_str(&mut object, "id", &b.id);
            put_str(&mut object, "name", &b.name);
            // The API accepts only objects: anything else is wrapped.
            let input = original_input(&b.input, &b.extra);
            let input = if input.is_object() { input.into_owned() } else { json!({ "arguments": &*input }) };
            put(&mut object, "input", input);
        }
        ContentBlock::ToolResult(b) => {
            put_str(&mut object, "type", "tool_result");
            put_str(&mut object, "tool_use_id", &b.tool_use_id);
            match &b.content {
                ToolResultContent::Blocks(blocks) if blocks.is_empty() => {}
                content => put(&mut object, "content", content.to_value()),
            }
            if b.is_error {
                put(&mut object, "is_error", Value::Bool(true));
            }
        }
        ContentBlock::Other(_) => {}
    }
    Value::Object(object)
}
