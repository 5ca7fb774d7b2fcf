//! The one reader of the message model: JSON (a `serde_json::Value`) into
//! [`Message`]s, with the path of every mistake.
//!
//! Written out rather than derived so that each error names the exact field
//! (`messages[3].content[0].tool_use_id`) and says what was expected.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::model::message::{
    is_rfc3339, leftover, new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock,
    ToolResultBlock, ToolResultContent, ToolUseBlock, TurnId,
};

/// Parses an array of messages; `path` names the array in errors (e.g. `"messages"`).
pub fn parse_messages(value: &Value, path: &str) -> Result<Vec<Message>, InputError> {
    parse_messages_owned(value.clone(), path)
}

/// [`parse_messages`] taking the JSON by value: strings are moved into the
/// messages, not copied (what the bindings use on freshly parsed input).
pub fn parse_messages_owned(value: Value, path: &str) -> Result<Vec<Message>, InputError> {
    let Value::Array(items) = value else {
        return Err(expected(path, "an array of messages", kind(&value)));
    };
    let mut messages = Vec::with_capacity(items.len());
    for (i, m) in items.into_iter().enumerate() {
        messages.push(parse_message_owned(m, &nth(path, i))?);
    }
    Ok(messages)
}

/// Parses JSON text holding an array of messages. Text that is not JSON is an
/// error at `path`.
pub fn parse_messages_text(text: &str, path: &str) -> Result<Vec<Message>, InputError> {
    parse_messages_owned(read_text(text, path)?, path)
}

/// [`parse_messages_text`] for JSON text holding one message.
pub fn parse_message_text(text: &str, path: &str) -> Result<Message, InputError> {
    parse_message_owned(read_text(text, path)?, path)
}

/// JSON text as a `Value`; text that is not JSON is an error at `path`.
pub fn read_text(text: &str, path: &str) -> Result<Value, InputError> {
    serde_json::from_str(text).map_err(|e| InputError::new(path, format!("could not be read: {e}")))
}

/// [`read_text`] for UTF-8 bytes.
pub fn read_bytes(bytes: &[u8], path: &str) -> Result<Value, InputError> {
    serde_json::from_slice(bytes).map_err(|e| InputError::new(path, format!("could not be read: {e}")))
}

/// Parses one message; missing `id`, `session_id` and `created_at` are filled in.
pub fn parse_message(value: &Value, path: &str) -> Result<Message, InputError> {
    parse_message_owned(value.clone(), path)
}

/// Arrays and objects JSON input may nest.
pub const MAX_NESTING: usize = 127;

/// Arrays and objects a message may nest, its own object included: what JSON
/// input may nest less the two levels a saved state puts around its messages
/// (`{ messages: [ … ] }`), so that a message accepted alone, in an array or in
/// a state is accepted in all three.
pub const MAX_MESSAGE_NESTING: usize = MAX_NESTING - 2;

/// [`parse_message`] taking the JSON by value.
pub fn parse_message_owned(value: Value, path: &str) -> Result<Message, InputError> {
    read_message(value, path, true).map(|(message, _)| message)
}

/// [`parse_messages_owned`] for messages that may lack a `turn_id`: each with
/// whether it had one (one without gets [`TurnId::default`], for the caller to assign).
pub fn parse_input_messages_owned(value: Value, path: &str) -> Result<Vec<(Message, bool)>, InputError> {
    let Value::Array(items) = value else {
        return Err(expected(path, "an array of messages", kind(&value)));
    };
    let mut messages = Vec::with_capacity(items.len());
    for (i, m) in items.into_iter().enumerate() {
        messages.push(read_message(m, &nth(path, i), false)?);
    }
    Ok(messages)
}

/// [`parse_message_owned`] for a message that may lack a `turn_id`: the message,
/// and whether it had one.
pub fn parse_input_message_owned(value: Value, path: &str) -> Result<(Message, bool), InputError> {
    read_message(value, path, false)
}

/// Reads a message; a missing `turn_id` is an error when `require_turn_id`.
fn read_message(value: Value, path: &str, require_turn_id: bool) -> Result<(Message, bool), InputError> {
    if deeper_than(&value, MAX_MESSAGE_NESTING) {
        return Err(InputError::new(
            deep_field(&value, MAX_MESSAGE_NESTING, path.to_owned(), 3),
            format!(
                "is nested too deep: a message may hold {MAX_MESSAGE_NESTING} levels of arrays and objects, its own included"
            ),
        ));
    }
    let Value::Object(obj) = value else {
        return Err(expected(path, "a message object", kind(&value)));
    };
    let mut extra = Map::new();
    let mut role = None;
    let mut id = None;
    let mut session_id = None;
    let mut turn_id = None;
    let mut created_at = None;
    let mut content = None;
    let mut summary_of = None;
    for (key, v) in obj {
        let p = || field(path, &key);
        match key.as_str() {
            "role" => {
                role = Some(match v.as_str() {
                    Some("user") => Role::User,
                    Some("assistant") => Role::Assistant,
                    other => {
                        let got = other.map_or_else(|| kind(&v).to_owned(), crate::text::quoted);
                        return Err(expected(&p(), "\"user\" or \"assistant\"", &got));
                    }
                })
            }
            "id" => id = Some(owned_string(v, path, &key)?),
            "session_id" => session_id = Some(integer(&v, path, &key)?),
            "turn_id" => turn_id = Some(parse_turn_id(&v, &p())?),
            "created_at" => {
                let s = owned_string(v, path, &key)?;
                if !is_rfc3339(&s) {
                    return Err(expected(&p(), "an RFC 3339 timestamp", &crate::text::quoted(&s)));
                }
                created_at = Some(s);
            }
            "content" => content = Some(parse_content(v, &p())?),
            "summary_of" if !v.is_null() => summary_of = Some(parse_summary_of(&v, &p())?),
            _ => {
                extra.insert(key, v);
            }
        }
    }
    let has_turn_id = turn_id.is_some();
    let role = role.ok_or_else(|| missing(path, "role"))?;
    if require_turn_id && !has_turn_id {
        return Err(missing(path, "turn_id"));
    }
    let message = Message {
        role,
        id: id.unwrap_or_else(new_message_id),
        session_id: session_id.unwrap_or(0),
        turn_id: turn_id.unwrap_or_default(),
        created_at: created_at.unwrap_or_else(now_rfc3339),
        content: content.ok_or_else(|| missing(path, "content"))?,
        summary_of,
        extra,
    };
    Ok((message, has_turn_id))
}

/// Parses a `{ owner, number }` turn id.
pub fn parse_turn_id(value: &Value, path: &str) -> Result<TurnId, InputError> {
    let obj = object(value, path, "a turn id { owner, number }")?;
    let owner = obj.get("owner").ok_or_else(|| missing(path, "owner"))?;
    let number = obj.get("number").ok_or_else(|| missing(path, "number"))?;
    Ok(TurnId { owner: string(owner, path, "owner")?.to_owned(), number: integer(number, path, "number")? })
}

fn parse_summary_of(value: &Value, path: &str) -> Result<SummaryOf, InputError> {
    let obj = object(value, path, "an object { messages, turns }")?;
    // At most `Number.MAX_SAFE_INTEGER`, as JS holds exactly (and `usize::MAX` on wasm32).
    let max = usize::try_from(MAX_SAFE_INTEGER).unwrap_or(usize::MAX);
    let count = |name: &str| -> Result<usize, InputError> {
        let n = integer(obj.get(name).ok_or_else(|| missing(path, name))?, path, name)?;
        usize::try_from(n).ok().filter(|&n| n <= max).ok_or_else(|| {
            InputError::new(field(path, name), format!("expected a whole number from 0 to {max}, got {n}"))
        })
    };
    Ok(SummaryOf { messages: count("messages")?, turns: count("turns")? })
}

fn parse_content(value: Value, path: &str) -> Result<Vec<ContentBlock>, InputError> {
    let Value::Array(items) = value else {
        return Err(expected(path, "an array of content blocks", kind(&value)));
    };
    let mut blocks = Vec::with_capacity(items.len());
    for (i, b) in items.into_iter().enumerate() {
        blocks.push(parse_block_owned(b, &nth(path, i))?);
    }
    Ok(blocks)
}

/// Parses one content block; unknown block types are kept verbatim.
pub fn parse_block(value: &Value, path: &str) -> Result<ContentBlock, InputError> {
    parse_block_owned(value.clone(), path)
}

/// [`parse_block`] taking the JSON by value.
pub fn parse_block_owned(value: Value, path: &str) -> Result<ContentBlock, InputError> {
    let Value::Object(mut obj) = value else {
        return Err(expected(path, BLOCK_OBJECT, kind(&value)));
    };
    let ty = match obj.get("type") {
        None => return Err(missing(path, "type")),
        Some(Value::String(ty)) if matches!(ty.as_str(), "text" | "tool_use" | "tool_result") => ty.clone(),
        Some(Value::String(_)) => return Ok(ContentBlock::Other(obj)),
        Some(other) => return Err(expected(&field(path, "type"), "a string", kind(other))),
    };
    let block = match ty.as_str() {
        "text" => {
            let text = take_string(&mut obj, path, "text")?;
            ContentBlock::Text(TextBlock { text, extra: leftover(obj, &["text", "type"]) })
        }
        "tool_use" => {
            let id = take_string(&mut obj, path, "id")?;
            let name = take_string(&mut obj, path, "name")?;
            let input = take(&mut obj, path, "input")?;
            ContentBlock::ToolUse(ToolUseBlock {
                id,
                name,
                input,
                extra: leftover(obj, &["id", "name", "input", "type"]),
            })
        }
        _ => {
            let tool_use_id = take_string(&mut obj, path, "tool_use_id")?;
            let content = tool_result_content(take(&mut obj, path, "content")?, || field(path, "content"))?;
            let is_error = match obj.shift_remove("is_error") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => b,
                Some(other) => return Err(expected(&field(path, "is_error"), "a boolean", kind(&other))),
            };
            let compact_summary = match obj.shift_remove("compact_summary") {
                None | Some(Value::Null) => None,
                Some(v) => Some(owned_string(v, path, "compact_summary")?),
            };
            ContentBlock::ToolResult(ToolResultBlock {
                tool_use_id,
                content,
                is_error,
                compact_summary,
                extra: leftover(obj, &["tool_use_id", "content", "is_error", "compact_summary", "type"]),
            })
        }
    };
    Ok(block)
}

/// Parses a tool result's content: a string, or an array of block objects (see [`ContentBlock::nested`]).
pub fn parse_tool_result_content(value: &Value, path: &str) -> Result<ToolResultContent, InputError> {
    tool_result_content(value.clone(), || path.to_owned())
}

/// [`parse_tool_result_content`] taking the JSON by value, its path made only for an error.
pub(crate) fn tool_result_content(value: Value, path: impl Fn() -> String) -> Result<ToolResultContent, InputError> {
    match value {
        Value::String(s) => Ok(ToolResultContent::Text(s)),
        Value::Array(blocks) => {
            nested_blocks(blocks).map_err(|(i, kind)| expected(&nth(&path(), i), BLOCK_OBJECT, kind))
        }
        other => Err(expected(&path(), "a string or an array of content blocks", kind(&other))),
    }
}

/// A tool result's array of content blocks, each read by [`ContentBlock::nested`];
/// for the first element that is not an object, its index and [`kind`].
pub fn nested_blocks(blocks: Vec<Value>) -> Result<ToolResultContent, (usize, &'static str)> {
    let mut nested = Vec::with_capacity(blocks.len());
    for (i, b) in blocks.into_iter().enumerate() {
        match b {
            Value::Object(obj) => nested.push(ContentBlock::nested(obj)),
            other => return Err((i, kind(&other))),
        }
    }
    Ok(ToolResultContent::Blocks(nested))
}

/// Parses a `{ toolUseId: summary }` object of compact summaries.
pub fn parse_summaries(value: &Value, path: &str) -> Result<HashMap<String, String>, InputError> {
    match value {
        Value::Null => Ok(HashMap::new()),
        Value::Object(obj) => {
            let mut summaries = HashMap::with_capacity(obj.len());
            for (k, v) in obj {
                summaries.insert(k.clone(), string(v, path, k)?.to_owned());
            }
            Ok(summaries)
        }
        other => Err(expected(path, "an object of tool_use_id → summary", kind(other))),
    }
}

/// What a content block that is not an object is said to lack.
const BLOCK_OBJECT: &str = "a content block object";

/// The error `expected {what}, got {got}` at `path`.
pub(crate) fn expected(path: &str, what: &str, got: &str) -> InputError {
    InputError::new(path, expected_text(what, got))
}

/// The text `expected {what}, got {got}`, shared with the bindings' type errors.
pub(crate) fn expected_text(what: &str, got: &str) -> String {
    let mut message = String::from("expected ");
    message.push_str(what);
    message.push_str(", got ");
    message.push_str(got);
    message
}

/// The path of field `name` of the value at `path`: `path.name`.
pub(crate) fn field(path: &str, name: &str) -> String {
    let mut field = String::with_capacity(path.len() + 1 + name.len());
    field.push_str(path);
    field.push('.');
    field.push_str(name);
    field
}

/// The path of item `i` of the array at `path`: `path[i]`.
pub(crate) fn nth(path: &str, i: usize) -> String {
    // Made for every message and block a format reads: written without `format!`.
    let mut buffer = itoa::Buffer::new();
    let index = buffer.format(i);
    let mut nth = String::with_capacity(path.len() + index.len() + 2);
    nth.push_str(path);
    nth.push('[');
    nth.push_str(index);
    nth.push(']');
    nth
}

/// `value` as an object, or an error naming `what` was expected.
pub(crate) fn object<'a>(value: &'a Value, path: &str, what: &str) -> Result<&'a Map<String, Value>, InputError> {
    value.as_object().ok_or_else(|| expected(path, what, kind(value)))
}

/// Field `name` of a block object at `path`, taken out of it.
fn take(obj: &mut Map<String, Value>, path: &str, name: &str) -> Result<Value, InputError> {
    obj.shift_remove(name).ok_or_else(|| missing(path, name))
}

/// [`take`] for a string field.
fn take_string(obj: &mut Map<String, Value>, path: &str, name: &str) -> Result<String, InputError> {
    owned_string(take(obj, path, name)?, path, name)
}

/// `value`, field `name` of the value at `path`, as a string.
fn owned_string(value: Value, path: &str, name: &str) -> Result<String, InputError> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(expected(&field(path, name), "a string", kind(&other))),
    }
}

/// `value`, field `name` of the value at `path`, as a string.
fn string<'a>(value: &'a Value, path: &str, name: &str) -> Result<&'a str, InputError> {
    value.as_str().ok_or_else(|| expected(&field(path, name), "a string", kind(value)))
}

/// `value`, field `name` of the value at `path`, as an integer.
fn integer(value: &Value, path: &str, name: &str) -> Result<i64, InputError> {
    value.as_i64().ok_or_else(|| expected(&field(path, name), "an integer", &describe(value)))
}

/// Whether `value` nests more than `levels` arrays and objects, its own included.
/// Recursion stops at `levels`, however deep `value` is.
pub(crate) fn deeper_than(value: &Value, levels: usize) -> bool {
    match value {
        Value::Array(items) => levels == 0 || items.iter().any(|v| deeper_than(v, levels - 1)),
        Value::Object(map) => levels == 0 || map.iter().any(|(_, v)| deeper_than(v, levels - 1)),
        _ => false,
    }
}

/// The path, `steps` levels at most below `path`, of what makes `value` (at
/// `path`) [`deeper_than`] `levels`, e.g. `message.content[0].input` for 3 steps.
/// `levels` must exceed `steps`.
fn deep_field(value: &Value, levels: usize, path: String, steps: usize) -> String {
    let child = match value {
        Value::Array(items) => {
            items.iter().enumerate().find(|(_, v)| deeper_than(v, levels - 1)).map(|(i, v)| (nth(&path, i), v))
        }
        Value::Object(map) => map.iter().find(|(_, v)| deeper_than(v, levels - 1)).map(|(k, v)| (field(&path, k), v)),
        _ => None,
    };
    match child {
        Some((child_path, v)) if steps > 0 => deep_field(v, levels - 1, child_path, steps - 1),
        _ => path,
    }
}

/// `Number.MAX_SAFE_INTEGER`: the largest integer a JS number holds exactly.
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// The error for field `name` missing from the object at `path`.
pub(crate) fn missing(path: &str, name: &str) -> InputError {
    InputError::new(field(path, name), "is required but missing")
}

/// The JSON kind of a value, for error messages.
pub fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn describe(value: &Value) -> String {
    match value {
        Value::Number(n) => format!("number {n}"),
        other => kind(other).to_owned(),
    }
}
