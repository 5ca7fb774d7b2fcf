//! The Vercel AI SDK v5 `ModelMessage` format: `system`, `user`, `assistant`
//! and `tool` messages, whose `content` is a string or an array of parts.
//!
//! - `system` messages are kept aside with their position ([`SystemMessage`]).
//! - `text` parts become text blocks; `tool-call` parts become `tool_use` blocks
//!   (`toolCallId` → `id`, `toolName` → `name`, `input` kept as is); every other
//!   part (`image`, `file`, `reasoning`, a provider-executed `tool-result` in an
//!   assistant message, …) is kept verbatim. Other fields (`providerOptions`, …)
//!   are kept on the message or block.
//! - A `tool` message becomes one user message; its `tool-result` parts become
//!   `tool_result` blocks. The `output` is read as: `text` → text content,
//!   `error-text` → text content with `is_error`, `content` → the parts array;
//!   any other output (`json`, `error-json`, …) → its JSON text, with `is_error`
//!   for `error-*` types. When that reading does not give the output back, the
//!   original is kept in the block's `extra` as `raw_output` and written back
//!   while the content is unchanged. `toolName` is kept in `extra`.
//!
//! Writing inverts this. A user message's `tool_result` blocks (and parts whose
//! type starts with `tool-`) are written as one `tool` message, before a `user`
//! message for any other content. Normalizations: consecutive `tool` messages are
//! not merged, so each stays its own message; a `tool-result` missing its
//! `toolName` gets the name of the matching earlier tool call; `compact_summary`
//! is not written.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::formats::portable::{for_format, Dropped};
use crate::formats::{
    array, interleave_system, object_mut, original_input, put, put_str, read_content_message, read_text_part, required,
    required_str, rest, restore, take_required, write_parts, write_parts_message, write_text_part, Format, Imported,
    SystemMessage, BLOCK_RESERVED, MESSAGE_RESERVED, RAW_OUTPUT,
};
use crate::model::message::{ContentBlock, Message, Role, ToolResultBlock, ToolResultContent, ToolUseBlock};
use crate::model::read::{expected, field, kind, nested_blocks, nth};
use crate::text::json_string;

/// Reads an AI SDK `ModelMessage` array. Errors name the offending field, e.g.
/// `messages[2].content[0].toolCallId`.
pub fn from_vercel_ai(messages: &Value) -> Result<Imported<Vec<SystemMessage>>, InputError> {
    from_vercel_ai_value(messages.clone())
}

/// [`from_vercel_ai`] taking the JSON by value: its strings are moved into the messages.
pub(crate) fn from_vercel_ai_value(mut messages: Value) -> Result<Imported<Vec<SystemMessage>>, InputError> {
    let Value::Array(items) = &mut messages else {
        return Err(expected("messages", "an array of messages", kind(&messages)));
    };
    let mut out = Vec::new();
    let mut system = Vec::new();
    for (i, item) in items.iter_mut().enumerate() {
        let path = nth("messages", i);
        let obj = object_mut(item, &path, "a message object")?;
        let role_name = required_str(obj, "role", &path)?;
        if role_name == "system" {
            system.push(SystemMessage { position: out.len(), message: std::mem::take(item) });
            continue;
        }
        let role = match role_name {
            "user" | "tool" => Role::User,
            "assistant" => Role::Assistant,
            other => {
                return Err(expected(
                    &field(&path, "role"),
                    "\"system\", \"user\", \"assistant\" or \"tool\"",
                    &crate::text::quoted(other),
                ))
            }
        };
        if role_name == "tool" {
            array(required(obj, "content", &path)?, &field(&path, "content"), "an array of tool-result parts")?;
        }
        out.push(read_content_message(obj, role, &path, "a string or an array of parts", &mut read_part)?);
    }
    crate::formats::assign_turn_ids(&mut out);
    crate::formats::portable::mark(&mut out, Format::VercelAi);
    Ok(Imported { system, messages: out })
}

/// One part, taken out of `value`.
fn read_part(value: &mut Value, path: &str) -> Result<ContentBlock, InputError> {
    let obj = object_mut(value, path, "a content part object")?;
    Ok(match obj.get("type").and_then(Value::as_str) {
        Some("text") => read_text_part(obj, path)?,
        Some("tool-call") => ContentBlock::ToolUse(ToolUseBlock {
            id: required_str(obj, "toolCallId", path)?.to_owned(),
            name: required_str(obj, "toolName", path)?.to_owned(),
            input: take_required(obj, "input", path)?,
            extra: rest(obj, &["type", "toolCallId", "toolName", "input"], BLOCK_RESERVED),
        }),
        Some("tool-result") => {
            let output = take_required(obj, "output", path)?;
            let (content, is_error, kept) = decode_output(output);
            let mut extra = rest(obj, &["type", "toolCallId", "output"], BLOCK_RESERVED);
            if let Some(output) = kept {
                put(&mut extra, RAW_OUTPUT, output);
            }
            ContentBlock::ToolResult(ToolResultBlock {
                tool_use_id: required_str(obj, "toolCallId", path)?.to_owned(),
                content,
                is_error,
                compact_summary: None,
                extra,
            })
        }
        _ => ContentBlock::Other(std::mem::take(obj)),
    })
}

/// Reads a tool result `output` into content and error flag (see the module docs),
/// and the output itself when they do not give it back ([`encode_output`]).
pub(crate) fn decode_output(output: Value) -> (ToolResultContent, bool, Option<Value>) {
    // `{ type: "text" | "error-text", value }` gives itself back: its text is moved, not copied.
    if let Value::Object(mut map) = output {
        let ty = map.get("type").and_then(Value::as_str);
        if map.len() == 2 && matches!(ty, Some("text" | "error-text")) {
            let is_error = ty == Some("error-text");
            if let Some(Value::String(text)) = map.get_mut("value") {
                return (ToolResultContent::Text(std::mem::take(text)), is_error, None);
            }
        }
        return decoded(Value::Object(map));
    }
    decoded(output)
}

/// [`decode_output`] of any output: read, then kept unless it is given back.
fn decoded(output: Value) -> (ToolResultContent, bool, Option<Value>) {
    let (content, is_error) = decode_output_of(&output);
    let kept = (encode_output(&content, is_error) != output).then_some(output);
    (content, is_error, kept)
}

/// Reads a tool result `output` into content and error flag.
fn decode_output_of(output: &Value) -> (ToolResultContent, bool) {
    let ty = output.get("type").and_then(Value::as_str).unwrap_or("");
    let is_error = ty.starts_with("error");
    if let ("content", Some(Value::Array(parts))) = (ty, output.get("value")) {
        if let Ok(blocks) = nested_blocks(parts.clone()) {
            return (blocks, false);
        }
    }
    match (ty, output.get("value")) {
        ("text" | "error-text", Some(Value::String(s))) => (ToolResultContent::Text(s.clone()), is_error),
        (_, Some(value)) => (ToolResultContent::Text(json_string(value)), is_error),
        (_, None) => (ToolResultContent::Text(json_string(output)), is_error),
    }
}

/// The `output` written for a content and error flag without a kept original:
/// an error is `error-text` (the AI SDK has no error output of blocks).
fn encode_output(content: &ToolResultContent, is_error: bool) -> Value {
    let (ty, value) = match content {
        _ if is_error => ("error-text", Value::String(content.text())),
        ToolResultContent::Text(t) => ("text", Value::String(t.clone())),
        blocks @ ToolResultContent::Blocks(_) => ("content", blocks.to_value()),
    };
    let mut out = Map::new();
    put_str(&mut out, "type", ty);
    put(&mut out, "value", value);
    Value::Object(out)
}

/// Writes messages as an AI SDK `ModelMessage` array, the `system` messages put
/// back at their positions. Blocks of messages read from another format are
/// converted, or left out when the AI SDK has no equivalent
/// ([`to_vercel_ai_with_dropped`] says which), and so is a message left empty.
pub fn to_vercel_ai(messages: &[Message], system: &[SystemMessage]) -> Value {
    to_vercel_ai_with_dropped(messages, system).0
}

/// [`to_vercel_ai`], and the blocks it left out.
pub fn to_vercel_ai_with_dropped(messages: &[Message], system: &[SystemMessage]) -> (Value, Vec<Dropped>) {
    // Owned strings: the same map type as the compact summaries', whose code is there anyway.
    let mut tool_names: HashMap<String, String> = HashMap::new();
    let mut dropped = Vec::new();
    let value = interleave_system(messages, system, Format::VercelAi, &mut |i, message, out| {
        for block in &message.content {
            if let ContentBlock::ToolUse(b) = block {
                tool_names.insert(b.id.clone(), b.name.clone());
            }
        }
        if let Some(message) = for_format(message, i, Format::VercelAi, &mut dropped) {
            write_message(&message, &tool_names, out);
        }
    });
    (value, dropped)
}

fn write_message(message: &Message, tool_names: &HashMap<String, String>, out: &mut Vec<Value>) {
    let is_tool_part = |b: &ContentBlock| match b {
        ContentBlock::ToolResult(_) => true,
        ContentBlock::Other(m) => m.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("tool-")),
        _ => false,
    };
    let (mut tool, mut other) = (Vec::new(), Vec::new());
    for block in &message.content {
        if message.role == Role::User && is_tool_part(block) {
            tool.push(block);
        } else {
            other.push(block);
        }
    }
    let part = |b: &ContentBlock| write_part(b, tool_names);
    if !tool.is_empty() {
        let mut msg = if other.is_empty() { restore(&message.extra, MESSAGE_RESERVED, &[]) } else { Map::new() };
        put_str(&mut msg, "role", "tool");
        put(&mut msg, "content", write_parts(&tool, &part));
        out.push(Value::Object(msg));
        if other.is_empty() {
            return;
        }
    }
    out.push(write_parts_message(message, &other, &part, true));
}

fn write_part(block: &ContentBlock, tool_names: &HashMap<String, String>) -> Value {
    let part = match block {
        ContentBlock::Text(b) => write_text_part(b, "text"),
        ContentBlock::ToolUse(b) => {
            let mut part = restore(&b.extra, BLOCK_RESERVED, &[]);
            put_str(&mut part, "type", "tool-call");
            put_str(&mut part, "toolCallId", &b.id);
            put_str(&mut part, "toolName", &b.name);
            put(&mut part, "input", original_input(&b.input, &b.extra).into_owned());
            part
        }
        ContentBlock::ToolResult(b) => {
            let mut part = restore(&b.extra, BLOCK_RESERVED, &[]);
            put_str(&mut part, "type", "tool-result");
            put_str(&mut part, "toolCallId", &b.tool_use_id);
            if let Some(name) = tool_names.get(b.tool_use_id.as_str()).filter(|_| !part.contains_key("toolName")) {
                put_str(&mut part, "toolName", name);
            }
            let raw = b.extra.get(RAW_OUTPUT).filter(|raw| {
                let (content, is_error) = decode_output_of(raw);
                content == b.content && is_error == b.is_error
            });
            let output = raw.cloned().unwrap_or_else(|| encode_output(&b.content, b.is_error));
            put(&mut part, "output", output);
            part
        }
        ContentBlock::Other(m) => m.clone(),
    };
    Value::Object(part)
}
