//! The OpenAI Chat Completions format: an array of `system`, `developer`,
//! `user`, `assistant` and `tool` messages.
//!
//! - `system` and `developer` messages are kept aside, verbatim, with their
//!   position ([`SystemMessage`]).
//! - `assistant.tool_calls` become `tool_use` blocks after the content's blocks.
//!   `function.arguments` is parsed into `input`; when re-encoding `input` would
//!   not give the exact string back (spacing, key order, or a number JavaScript
//!   would change: an integer beyond ±(2^53 − 1) such as a 64-bit id, or `1.0`),
//!   the string is kept in the block's `extra` as `raw_arguments` and written
//!   back while `input` is unchanged, numbers compared as the doubles JavaScript
//!   reads. Arguments that are not valid JSON become the `input`
//!   `{ "_raw": "<the string>" }` (an object, which every format takes as a
//!   tool input), and an input that is exactly `{ "_raw": string }` is written
//!   back as that string. The formats that carry the input as a value
//!   (Anthropic, AI SDK) write the kept arguments' numbers.
//! - `tool` messages become `tool_result` blocks; consecutive ones share one user
//!   message. A user message holding tool results is written as one `tool`
//!   message per result, followed by a `user` message for any other content.
//! - Content parts `{ type: "text", text }` become text blocks; other parts
//!   (`image_url`, `input_audio`, `file`, `refusal`, …) are kept verbatim.
//! - Every other field (`name`, `refusal`, `audio`, a tool call's `index`, …)
//!   is kept and written back.
//!
//! Normalizations: content is written as a string when it is one text block
//! (as `null` for an assistant message without text), unless it was read in
//! another form; a tool call without `type` is written with `type: "function"`;
//! a `tool_result`'s `is_error` and `compact_summary` have no Chat Completions
//! field and are not written.

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::formats::portable::{for_format, Dropped};
use crate::formats::{
    array, encode_arguments, interleave_system, new_message, object, object_mut, plain_text, put, put_str,
    read_content, read_text_part, read_tool_result, record_form, recorded_form, required, required_str, rest, restore,
    tool_use_from_arguments, write_content, write_text_part, ContentForm, Format, Imported, SystemMessage,
    BLOCK_RESERVED, MESSAGE_RESERVED,
};
use crate::model::message::{ContentBlock, Message, Role, ToolResultBlock, ToolUseBlock};
use crate::model::read::{expected, field, kind, nth};
use crate::text::json_string;

/// Reads a Chat Completions message array. Errors name the offending field,
/// e.g. `messages[3].tool_calls[0].function.name`.
pub fn from_openai(value: &Value) -> Result<Imported<Vec<SystemMessage>>, InputError> {
    from_openai_value(value.clone())
}

/// [`from_openai`] taking the JSON by value: its strings are moved into the messages.
pub(crate) fn from_openai_value(mut value: Value) -> Result<Imported<Vec<SystemMessage>>, InputError> {
    let Value::Array(items) = &mut value else {
        return Err(expected("messages", "an array of messages", kind(&value)));
    };
    let mut messages: Vec<Message> = Vec::new();
    let mut system = Vec::new();
    // Whether the last message is one of tool results, which the next `tool` message joins.
    let mut in_results = false;
    for (i, item) in items.iter_mut().enumerate() {
        let path = nth("messages", i);
        let obj = object_mut(item, &path, "a message object")?;
        let role = required_str(obj, "role", &path)?;
        if role == "system" || role == "developer" {
            in_results = false;
            system.push(SystemMessage { position: messages.len(), message: std::mem::take(item) });
            continue;
        }
        let role = role.to_owned();
        if role == "tool" {
            let block = read_tool_result(obj, &path, "tool_call_id", "content", &["role", "tool_call_id", "content"])?;
            add_tool_result(&mut messages, in_results, block);
            in_results = true;
            continue;
        }
        in_results = false;
        match role.as_str() {
            "user" => messages.push(read_message(obj, Role::User, &path)?),
            "assistant" => messages.push(read_message(obj, Role::Assistant, &path)?),
            other => {
                return Err(expected(
                    &field(&path, "role"),
                    "\"system\", \"developer\", \"user\", \"assistant\" or \"tool\"",
                    &crate::text::quoted(other),
                ))
            }
        }
    }
    crate::formats::assign_turn_ids(&mut messages);
    crate::formats::portable::mark(&mut messages, Format::OpenAi);
    Ok(Imported { system, messages })
}

/// Adds the tool result of a `tool` message: to the last message when it holds the
/// results of the `tool` messages just before (`in_results`), else as a new user message.
pub(crate) fn add_tool_result(messages: &mut Vec<Message>, in_results: bool, block: ContentBlock) {
    match messages.last_mut().filter(|_| in_results) {
        Some(last) => last.content.push(block),
        None => messages.push(new_message(Role::User, vec![block], Map::new())),
    }
}

/// A `user` or `assistant` message.
fn read_message(obj: &mut Map<String, Value>, role: Role, path: &str) -> Result<Message, InputError> {
    let content_path = field(path, "content");
    if role == Role::User && obj.get("content").is_none_or(Value::is_null) {
        return Err(InputError::new(content_path, "expected a string or an array of content parts"));
    }
    let (mut blocks, form) = read_content(obj.get_mut("content"), &content_path, &mut read_part)?;
    // The form the writer would choose for these blocks, before the tool calls join them.
    let default = default_form(role, &blocks.iter().collect::<Vec<_>>());
    let mut consumed: &[&str] = &["role", "content"];
    if role == Role::Assistant {
        if let Some(calls) = obj.get("tool_calls").filter(|c| c.as_array().is_none_or(|a| !a.is_empty())) {
            let calls_path = field(path, "tool_calls");
            let calls = array(calls, &calls_path, "an array of tool calls")?;
            for (j, call) in calls.iter().enumerate() {
                blocks.push(read_tool_call(call, &nth(&calls_path, j))?);
            }
            consumed = &["role", "content", "tool_calls"];
        }
    }
    let mut extra = rest(obj, consumed, MESSAGE_RESERVED);
    record_form(&mut extra, form, default);
    Ok(new_message(role, blocks, extra))
}

/// One content part, taken out of `value`: `text` parts become text blocks, others are kept verbatim.
fn read_part(value: &mut Value, path: &str) -> Result<ContentBlock, InputError> {
    let obj = object_mut(value, path, "a content part object")?;
    if obj.get("type").and_then(Value::as_str) == Some("text") {
        return read_text_part(obj, path);
    }
    Ok(ContentBlock::Other(std::mem::take(obj)))
}

/// One `{ id, type: "function", function: { name, arguments } }` tool call.
#[inline(never)]
fn read_tool_call(value: &Value, path: &str) -> Result<ContentBlock, InputError> {
    let obj = object(value, path, "a tool call object")?;
    let id = required_str(obj, "id", path)?;
    if let Some(ty) = obj.get("type").filter(|t| t.as_str() != Some("function")) {
        return Err(expected(&field(path, "type"), "\"function\"", &json_string(ty)));
    }
    let function_path = field(path, "function");
    let function = object(required(obj, "function", path)?, &function_path, "a function object")?;
    let name = required_str(function, "name", &function_path)?;
    let arguments = required_str(function, "arguments", &function_path)?;
    let mut extra = rest(obj, &["id", "type", "function"], BLOCK_RESERVED);
    let function_rest = rest(function, &["name", "arguments"], &[]);
    if !function_rest.is_empty() {
        put(&mut extra, "function", Value::Object(function_rest));
    }
    Ok(tool_use_from_arguments(id, name, arguments, extra))
}

/// The content form written when none was recorded: a string for one text block
/// (or none, except for the assistant, which gets `null`), else parts.
pub(crate) fn default_form(role: Role, blocks: &[&ContentBlock]) -> ContentForm {
    match (blocks.is_empty(), plain_text(blocks)) {
        (true, _) if role == Role::Assistant => ContentForm::Null,
        (_, Some(_)) => ContentForm::String,
        _ => ContentForm::Parts,
    }
}

/// Writes messages as a Chat Completions array, the `system` messages put back
/// at their positions. Blocks of messages read from another format are
/// converted, or left out when Chat Completions has no equivalent
/// ([`to_openai_with_dropped`] says which), and so is a message left empty.
pub fn to_openai(messages: &[Message], system: &[SystemMessage]) -> Value {
    to_openai_with_dropped(messages, system).0
}

/// [`to_openai`], and the blocks it left out.
pub fn to_openai_with_dropped(messages: &[Message], system: &[SystemMessage]) -> (Value, Vec<Dropped>) {
    let mut dropped = Vec::new();
    let value = interleave_system(messages, system, Format::OpenAi, &mut |i, message, out| {
        write_message(message, i, out, &mut dropped)
    });
    (value, dropped)
}

/// One message's Chat Completions messages, appended to `out`; the message at
/// `index` for what is added to `dropped`.
pub(crate) fn write_message(message: &Message, index: usize, out: &mut Vec<Value>, dropped: &mut Vec<Dropped>) {
    let Some(message) = for_format(message, index, Format::OpenAi, dropped) else { return };
    let message = &*message;
    let mut content: Vec<&ContentBlock> = Vec::new();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    for block in &message.content {
        match block {
            ContentBlock::ToolUse(b) => calls.push(write_tool_call(b)),
            ContentBlock::ToolResult(b) => results.push(write_tool_message(b)),
            other => content.push(other),
        }
    }
    let has_results = !results.is_empty();
    out.append(&mut results);
    if has_results && content.is_empty() && calls.is_empty() {
        return;
    }
    let mut msg = restore(&message.extra, MESSAGE_RESERVED, &[]);
    put_str(&mut msg, "role", message.role.as_str());
    let form = recorded_form(&message.extra).unwrap_or_else(|| default_form(message.role, &content));
    if let Some(content) = write_content(form, &content, &write_part) {
        put(&mut msg, "content", content);
    }
    if !calls.is_empty() {
        put(&mut msg, "tool_calls", Value::Array(calls));
    }
    out.push(Value::Object(msg));
}

/// A content part: text blocks as `{ type: "text", text }`, others verbatim.
fn write_part(block: &ContentBlock) -> Value {
    match block {
        ContentBlock::Text(b) => Value::Object(write_text_part(b, "text")),
        ContentBlock::Other(m) => Value::Object(m.clone()),
        // Tool blocks are written as tool calls and tool messages, never as parts.
        ContentBlock::ToolUse(_) | ContentBlock::ToolResult(_) => Value::Null,
    }
}

fn write_tool_call(block: &ToolUseBlock) -> Value {
    let mut call = restore(&block.extra, BLOCK_RESERVED, &["function"]);
    let mut function = block.extra.get("function").and_then(Value::as_object).cloned().unwrap_or_default();
    put_str(&mut function, "name", &block.name);
    put(&mut function, "arguments", encode_arguments(&block.input, &block.extra).into());
    put_str(&mut call, "id", &block.id);
    put_str(&mut call, "type", "function");
    put(&mut call, "function", Value::Object(function));
    Value::Object(call)
}

fn write_tool_message(block: &ToolResultBlock) -> Value {
    let mut msg = restore(&block.extra, BLOCK_RESERVED, &[]);
    put_str(&mut msg, "role", "tool");
    put_str(&mut msg, "tool_call_id", &block.tool_use_id);
    put(&mut msg, "content", block.content.to_value());
    Value::Object(msg)
}
