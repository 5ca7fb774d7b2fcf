//! The OpenAI Responses API format: an array of input items.
//!
//! - Message items (`{ type: "message", role, content }` or the `{ role, content }`
//!   shorthand): `system` and `developer` ones are kept aside with their position
//!   ([`SystemMessage`]). Their `input_text` (user) or `output_text` (assistant)
//!   parts become text blocks; other parts are kept verbatim. Item fields
//!   (`type`, `id`, `status`, …) are kept on the message.
//! - `function_call` items become `tool_use` blocks (`call_id` → `id`,
//!   `arguments` parsed into `input`, the raw string kept as `raw_arguments` when
//!   needed and arguments that are not JSON read as `{ "_raw": "<the string>" }`,
//!   as for Chat Completions); `function_call_output` items become
//!   `tool_result` blocks. Their other fields (the item `id`, `status`) are kept
//!   on the block.
//! - Every other item (`reasoning`, `web_search_call`, …) is kept verbatim as a
//!   [`ContentBlock::Other`], in a user message for `*_output` items, else in an
//!   assistant message.
//! - Grouping: consecutive assistant-side items (reasoning, at most one assistant
//!   message item, function calls, other items) form one assistant message, as in
//!   the other formats; consecutive `function_call_output` items form one user
//!   message. User message items are messages of their own.
//!
//! Writing inverts this: each block becomes a part of a message item, or an item.
//! Normalizations: a `tool_result`'s `is_error` and `compact_summary` are not
//! written (the Responses API has no such fields).

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::formats::portable::{for_format, Dropped};
use crate::formats::{
    encode_arguments, interleave_system, new_message, object_mut, put, put_str, read_content_message, read_text_part,
    read_tool_result, required_str, rest, restore, tool_use_from_arguments, write_parts_message, write_text_part,
    Format, Imported, SystemMessage, BLOCK_RESERVED,
};
use crate::model::message::{ContentBlock, Message, Role, ToolResultBlock, ToolUseBlock};
use crate::model::read::{expected, field, kind, nth};

/// Part types written inside a message item's `content`; any other
/// [`ContentBlock::Other`] is written as an item of its own.
const PART_TYPES: &[&str] = &["input_text", "output_text", "refusal", "input_image", "input_file", "input_audio"];
/// Item types the reader gives a meaning of their own. An opaque block with one of
/// these types can only come from a message's parts, so it is written back as a
/// part: as an item it would be misread (or rejected) by the reader.
const READ_ITEM_TYPES: &[&str] = &["message", "function_call", "function_call_output"];

/// Reads a Responses API input item array. Errors name the offending field,
/// e.g. `input[2].call_id`.
pub fn from_openai_responses(items: &Value) -> Result<Imported<Vec<SystemMessage>>, InputError> {
    from_openai_responses_value(items.clone())
}

/// [`from_openai_responses`] taking the JSON by value: its strings are moved into the messages.
pub(crate) fn from_openai_responses_value(mut items: Value) -> Result<Imported<Vec<SystemMessage>>, InputError> {
    let Value::Array(items) = &mut items else {
        return Err(expected("input", "an array of input items", kind(&items)));
    };
    let mut messages: Vec<Message> = Vec::new();
    let mut system = Vec::new();
    // What the last model message, made by the previous items, can still take in.
    let mut open = Open::Nothing;
    for (i, item) in items.iter_mut().enumerate() {
        let path = nth("input", i);
        let obj = object_mut(item, &path, "an input item object")?;
        let ty = match obj.get("type") {
            None => None,
            Some(_) => Some(required_str(obj, "type", &path)?.to_owned()),
        };
        let (message, next) = match ty.as_deref() {
            None | Some("message") => match required_str(obj, "role", &path)? {
                "system" | "developer" => {
                    system.push(SystemMessage { position: messages.len(), message: std::mem::take(item) });
                    open = Open::Nothing;
                    continue;
                }
                "user" => (read_message(obj, Role::User, &path)?, Open::Nothing),
                "assistant" => (read_message(obj, Role::Assistant, &path)?, Open::AssistantWithText),
                other => {
                    return Err(expected(
                        &field(&path, "role"),
                        "\"system\", \"developer\", \"user\" or \"assistant\"",
                        &crate::text::quoted(other),
                    ))
                }
            },
            Some(ty) => {
                let (role, block, next) = match ty {
                    "function_call" => (Role::Assistant, read_call(obj, &path)?, Open::Assistant),
                    "function_call_output" => (
                        Role::User,
                        read_tool_result(obj, &path, "call_id", "output", &["type", "call_id", "output"])?,
                        Open::Outputs,
                    ),
                    _ if ty.ends_with("_output") => {
                        (Role::User, ContentBlock::Other(std::mem::take(obj)), Open::Nothing)
                    }
                    _ => (Role::Assistant, ContentBlock::Other(std::mem::take(obj)), Open::Assistant),
                };
                (new_message(role, vec![block], Map::new()), next)
            }
        };
        add(&mut messages, &mut open, message, next);
    }
    crate::formats::assign_turn_ids(&mut messages);
    crate::formats::portable::mark(&mut messages, Format::OpenAiResponses);
    Ok(Imported { system, messages })
}

/// Adds the model message of an item, which may join the last one (see [`Open`]);
/// `next`: what it leaves open.
pub(crate) fn add(messages: &mut Vec<Message>, open: &mut Open, mut message: Message, next: Open) {
    let joins = matches!(
        (*open, next),
        (Open::Assistant, Open::Assistant | Open::AssistantWithText)
            | (Open::AssistantWithText, Open::Assistant)
            | (Open::Outputs, Open::Outputs)
    );
    match messages.last_mut().filter(|_| joins) {
        Some(last) => {
            last.content.append(&mut message.content);
            if !message.extra.is_empty() {
                last.id = message.id;
                last.extra = message.extra;
            }
            if *open != Open::AssistantWithText {
                *open = next;
            }
        }
        None => {
            messages.push(message);
            *open = next;
        }
    }
}

/// Which items may join the last model message: assistant-side items join an
/// assistant message (at most one message item each), `function_call_output`
/// items join a run of outputs; nothing else joins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Open {
    /// Nothing may join.
    Nothing,
    /// An assistant message without a message item.
    Assistant,
    /// An assistant message holding a message item.
    AssistantWithText,
    /// A user message of function call outputs.
    Outputs,
}

/// The text part type of a role: `input_text` for the user, `output_text` for the assistant.
pub(crate) fn text_type(role: Role) -> &'static str {
    match role {
        Role::User => "input_text",
        Role::Assistant => "output_text",
    }
}

fn read_message(obj: &mut Map<String, Value>, role: Role, path: &str) -> Result<Message, InputError> {
    read_content_message(obj, role, path, "a string or an array of content parts", &mut |part, p| {
        let part_obj = object_mut(part, p, "a content part object")?;
        // Every part has a string `type`: one without would be written back as an
        // item that no reader (this one included) accepts.
        if required_str(part_obj, "type", p)? == text_type(role) {
            return read_text_part(part_obj, p);
        }
        Ok(ContentBlock::Other(std::mem::take(part_obj)))
    })
}

fn read_call(obj: &Map<String, Value>, path: &str) -> Result<ContentBlock, InputError> {
    let id = required_str(obj, "call_id", path)?;
    let name = required_str(obj, "name", path)?;
    let arguments = required_str(obj, "arguments", path)?;
    let extra = rest(obj, &["type", "call_id", "name", "arguments"], BLOCK_RESERVED);
    Ok(tool_use_from_arguments(id, name, arguments, extra))
}

/// Writes messages as Responses API input items, the `system` messages put back
/// at their positions. Blocks of messages read from another format are
/// converted, or left out when the Responses API has no equivalent
/// ([`to_openai_responses_with_dropped`] says which), and so is a message left empty.
pub fn to_openai_responses(messages: &[Message], system: &[SystemMessage]) -> Value {
    to_openai_responses_with_dropped(messages, system).0
}

/// [`to_openai_responses`], and the blocks it left out.
pub fn to_openai_responses_with_dropped(messages: &[Message], system: &[SystemMessage]) -> (Value, Vec<Dropped>) {
    let mut dropped = Vec::new();
    let value = interleave_system(messages, system, Format::OpenAiResponses, &mut |i, message, out| {
        write_message(message, i, out, &mut dropped)
    });
    (value, dropped)
}

/// Writes one message: runs of parts as message items, tool blocks and
/// non-part blocks as items of their own; the message at `index` for what is
/// added to `dropped`.
pub(crate) fn write_message(message: &Message, index: usize, out: &mut Vec<Value>, dropped: &mut Vec<Dropped>) {
    let Some(message) = for_format(message, index, Format::OpenAiResponses, dropped) else { return };
    let message = &*message;
    let mut parts: Vec<&ContentBlock> = Vec::new();
    let mut wrote_message_item = false;
    let mut wrote_any = false;
    for block in &message.content {
        let item = match block {
            ContentBlock::Text(_) => None,
            ContentBlock::Other(m)
                if m.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| PART_TYPES.contains(&t) || READ_ITEM_TYPES.contains(&t)) =>
            {
                None
            }
            ContentBlock::Other(m) => Some(Value::Object(m.clone())),
            ContentBlock::ToolUse(b) => Some(write_call(b)),
            ContentBlock::ToolResult(b) => Some(write_output(b)),
        };
        match item {
            None => parts.push(block),
            Some(item) => {
                if !parts.is_empty() {
                    out.push(message_item(message, &std::mem::take(&mut parts), !wrote_message_item));
                    wrote_message_item = true;
                }
                out.push(item);
                wrote_any = true;
            }
        }
    }
    if !parts.is_empty() || !wrote_any {
        out.push(message_item(message, &parts, !wrote_message_item));
    }
}

/// A message item holding `parts`; the message's own fields go on the first one.
fn message_item(message: &Message, parts: &[&ContentBlock], first: bool) -> Value {
    let part = |block: &ContentBlock| match block {
        ContentBlock::Text(b) => Value::Object(write_text_part(b, text_type(message.role))),
        ContentBlock::Other(m) => Value::Object(m.clone()),
        // Tool blocks are written as items, never as parts.
        ContentBlock::ToolUse(_) | ContentBlock::ToolResult(_) => Value::Null,
    };
    write_parts_message(message, parts, &part, first)
}

fn write_call(block: &ToolUseBlock) -> Value {
    let mut item = restore(&block.extra, BLOCK_RESERVED, &[]);
    put_str(&mut item, "type", "function_call");
    put_str(&mut item, "call_id", &block.id);
    put_str(&mut item, "name", &block.name);
    put(&mut item, "arguments", encode_arguments(&block.input, &block.extra).into());
    Value::Object(item)
}

fn write_output(block: &ToolResultBlock) -> Value {
    let mut item = restore(&block.extra, BLOCK_RESERVED, &[]);
    put_str(&mut item, "type", "function_call_output");
    put_str(&mut item, "call_id", &block.tool_use_id);
    put(&mut item, "output", block.content.to_value());
    Value::Object(item)
}
