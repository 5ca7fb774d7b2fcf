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

use serde_json::{json, Value};

use crate::error::InputError;
use crate::formats::portable::{for_format, Dropped};
use crate::formats::{
    object_mut, original_input, plain_text, put, read_content_message, recorded_form, required, restored, ContentForm,
    Format, Imported, MESSAGE_RESERVED,
};
use crate::json_text::{write_array, write_map, Object};
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
    let mut text = Vec::new();
    let dropped = write_messages(&mut text, messages);
    (serde_json::from_slice(&text).unwrap_or_default(), dropped)
}

/// [`to_anthropic`]'s array as compact JSON text, appended to `out`: the form
/// request bodies and the JS binding take. Returns the blocks left out.
pub fn write_messages(out: &mut Vec<u8>, messages: &[Message]) -> Vec<Dropped> {
    let dropped = &mut Vec::new();
    out.push(b'[');
    let mut first = true;
    for (i, message) in messages.iter().enumerate() {
        let before = out.len();
        if !first {
            out.push(b',');
        }
        let start = out.len();
        write_message(out, message, i, dropped);
        if out.len() == start {
            out.truncate(before);
        } else {
            first = false;
        }
    }
    out.push(b']');
    std::mem::take(dropped)
}

/// One message as the API takes it (nothing when no block of it is left), the
/// message at `index` for what is added to `dropped`.
pub(crate) fn write_message(out: &mut Vec<u8>, message: &Message, index: usize, dropped: &mut Vec<Dropped>) {
    let Some(message) = for_format(message, index, Format::Anthropic, dropped) else { return };
    let message = &*message;
    let mut object = Object::new(out);
    for (key, value) in restored(&message.extra, MESSAGE_RESERVED, &["role", "content"]) {
        object.value(key, value);
    }
    object.str("role", message.role.as_str());
    match (recorded_form(&message.extra), plain_text(&message.content)) {
        (Some(ContentForm::String), Some(text)) => object.str("content", text),
        (Some(ContentForm::Null), _) if message.content.is_empty() => object.value("content", &Value::Null),
        _ => write_array(object.key("content"), &message.content, write_block),
    }
    object.end();
}

/// One block as the API takes it: the fields the model keeps for it, then its own.
fn write_block(out: &mut Vec<u8>, block: &ContentBlock) {
    let (extra, own): (_, &[&str]) = match block {
        ContentBlock::Text(b) => (&b.extra, &["type", "text"]),
        ContentBlock::ToolUse(b) => (&b.extra, &["type", "id", "name", "input"]),
        ContentBlock::ToolResult(b) => (&b.extra, &["type", "tool_use_id", "content", "is_error"]),
        ContentBlock::Other(map) => return write_map(out, map),
    };
    let mut object = Object::new(out);
    for (key, value) in restored(extra, &[], own) {
        object.value(key, value);
    }
    match block {
        ContentBlock::Text(b) => {
            object.str("type", "text");
            object.str("text", &b.text);
        }
        ContentBlock::ToolUse(b) => {
            object.str("type", "tool_use");
            object.str("id", &b.id);
            object.str("name", &b.name);
            // The API accepts only objects: anything else is wrapped.
            match original_input(&b.input, &b.extra) {
                input if input.is_object() => object.value("input", &input),
                input => object.value("input", &json!({ "arguments": &*input })),
            }
        }
        ContentBlock::ToolResult(b) => {
            object.str("type", "tool_result");
            object.str("tool_use_id", &b.tool_use_id);
            match &b.content {
                ToolResultContent::Text(text) => object.str("content", text),
                ToolResultContent::Blocks(blocks) if blocks.is_empty() => {}
                content => object.value("content", &content.to_value()),
            }
            if b.is_error {
                object.value("is_error", &Value::Bool(true));
            }
        }
        ContentBlock::Other(_) => {}
    }
    object.end();
}
