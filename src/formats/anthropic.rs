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

use serde_json::Value;

use crate::error::InputError;
use crate::formats::{
    array, object, original_input, put, put_str, read_content_message, required, restore, write_parts_message,
    write_text_part, Imported,
};
use crate::model::message::{ContentBlock, Message, Role, ToolResultContent};
use crate::model::read::{expected, field, kind, nth, parse_block};

/// Reads an Anthropic conversation: `{ system?, messages }` (other top-level
/// fields, e.g. `model`, are ignored) or the bare `messages` array. `system` (a
/// string or an array of text blocks) is returned untouched; a message's
/// `content` may be a string or an array of blocks.
pub fn from_anthropic(value: &Value) -> Result<Imported<Option<Value>>, InputError> {
    let (system, messages) = match value {
        Value::Array(_) => (None, value),
        Value::Object(obj) => (
            obj.get("system").cloned(),
            obj.get("messages").ok_or_else(|| InputError::new("messages", "is required but missing"))?,
        ),
        other => {
            return Err(expected(
                "conversation",
                "an object { system?, messages } or an array of messages",
                kind(other),
            ))
        }
    };
    let items = array(messages, "messages", "an array of messages")?;
    let mut messages = Vec::with_capacity(items.len());
    for (i, m) in items.iter().enumerate() {
        messages.push(read_message(m, &nth("messages", i))?);
    }
    crate::formats::assign_turn_ids(&mut messages);
    Ok(Imported { system, messages })
}

fn read_message(value: &Value, path: &str) -> Result<Message, InputError> {
    let obj = object(value, path, "a message object")?;
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

/// One block; a `tool_result` without `content` is read with empty content.
fn read_block(value: &Value, path: &str) -> Result<ContentBlock, InputError> {
    match value.as_object() {
        Some(obj) if obj.get("type").and_then(Value::as_str) == Some("tool_result") && !obj.contains_key("content") => {
            let mut obj = obj.clone();
            put(&mut obj, "content", Value::Array(Vec::new()));
            parse_block(&Value::Object(obj), path)
        }
        _ => parse_block(value, path),
    }
}

/// Writes messages as the Messages API `messages` array. Content is an array of
/// blocks, or a string where [`from_anthropic`] read a string and the content is
/// still a single text block.
pub fn to_anthropic(messages: &[Message]) -> Value {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        out.push(write_message(message));
    }
    Value::Array(out)
}

pub(crate) fn write_message(message: &Message) -> Value {
    let blocks: Vec<&ContentBlock> = message.content.iter().collect();
    write_parts_message(message, &blocks, &write_block, true)
}

/// A tool call's `input` as the API accepts it: an object.
fn anthropic_input(input: &Value) -> Value {
    if input.is_object() {
        return input.clone();
    }
    let mut object = serde_json::Map::new();
    put(&mut object, "arguments", input.clone());
    Value::Object(object)
}

/// One block as the API writes it.
fn write_block(block: &ContentBlock) -> Value {
    let out = match block {
        ContentBlock::Text(b) => write_text_part(b, "text"),
        ContentBlock::ToolUse(b) => {
            let mut out = restore(&b.extra, &[], &[]);
            put_str(&mut out, "type", "tool_use");
            put_str(&mut out, "id", &b.id);
            put_str(&mut out, "name", &b.name);
            put(&mut out, "input", anthropic_input(&original_input(&b.input, &b.extra)));
            out
        }
        ContentBlock::ToolResult(b) => {
            let mut out = restore(&b.extra, &[], &[]);
            put_str(&mut out, "type", "tool_result");
            put_str(&mut out, "tool_use_id", &b.tool_use_id);
            match &b.content {
                ToolResultContent::Blocks(v) if v.is_empty() => {}
                content => put(&mut out, "content", content.to_value()),
            }
            if b.is_error {
                put(&mut out, "is_error", Value::Bool(true));
            }
            out
        }
        ContentBlock::Other(m) => m.clone(),
    };
    Value::Object(out)
}
