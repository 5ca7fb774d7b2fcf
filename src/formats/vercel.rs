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

use std::borrow::Cow;
use std::collections::HashMap;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::formats::portable::{for_format, Dropped};
use crate::formats::{
    array, interleave_system_as, object_mut, original_input, plain_text, put, put_str, read_content_message,
    read_text_part, recorded_form, required, required_str, rest, restore, restored, take_required, write_parts,
    write_parts_message, write_text_part, ContentForm, Format, Imported, SystemMessage, BLOCK_RESERVED,
    MESSAGE_RESERVED, RAW_OUTPUT,
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
    let (written, dropped) = written(messages, system);
    (serde_json::to_value(&written).unwrap_or_default(), dropped)
}

/// [`to_vercel_ai_with_dropped`] as it serializes: the binding writes it for JS
/// without making a `Value` of it.
pub(crate) fn written<'a>(messages: &'a [Message], system: &[SystemMessage]) -> (Vec<Written<'a>>, Vec<Dropped>) {
    let mut tool_names: HashMap<&str, &str> = HashMap::new();
    let mut dropped = Vec::new();
    let out = interleave_system_as(messages, system, Format::VercelAi, Written::Value, &mut |i, message, out| {
        for block in &message.content {
            if let ContentBlock::ToolUse(b) = block {
                tool_names.insert(&b.id, &b.name);
            }
        }
        match for_format(message, i, Format::VercelAi, &mut dropped) {
            Some(Cow::Borrowed(message)) if write_usual(message, &tool_names, out) => {}
            Some(message) => {
                let mut values = Vec::new();
                write_message(&message, &tool_names, &mut values);
                out.extend(values.into_iter().map(Written::Value));
            }
            None => {}
        }
    });
    (out, dropped)
}

/// An AI SDK message as [`to_vercel_ai`] writes it: the usual shapes borrowed from
/// the model and serialized as they are, the others as a `Value`.
// Budget `to…` ≤ 2.5× `JSON.stringify` (issue 20): making a `Value` of every part, then
// freeing it, took toVercelAI to 2.45–2.50×.
pub(crate) enum Written<'a> {
    /// Any message, as `write_message` writes it.
    Value(Value),
    /// `{ role, content }`.
    Message { role: &'static str, content: Content<'a> },
}

/// The `content` of a [`Written::Message`].
pub(crate) enum Content<'a> {
    Text(&'a str),
    Null,
    Parts(Vec<Part<'a>>),
}

/// A part of [`Content::Parts`], its fields in the order `write_part` puts them.
pub(crate) enum Part<'a> {
    /// `{ type: "text", text }`
    Text(&'a str),
    /// `{ type: "tool-call", toolCallId, toolName, input }`
    ToolCall { id: &'a str, name: &'a str, input: Cow<'a, Value> },
    /// `{ toolName?, type: "tool-result", toolCallId, toolName?, output }`: the name
    /// kept from the AI SDK first, else the name of the call after the id.
    ToolResult { kept_name: Option<&'a Value>, id: &'a str, name: Option<&'a str>, output: Cow<'a, Value> },
    /// A part kept verbatim.
    Verbatim(&'a Map<String, Value>),
}

/// Adds `message` to `out` as [`Written::Message`]s when it has the usual shapes: no
/// provider fields of its own or on its text and tool call blocks, none but `toolName`
/// on its tool results. Whether it did.
fn write_usual<'a>(message: &'a Message, tool_names: &HashMap<&str, &'a str>, out: &mut Vec<Written<'a>>) -> bool {
    if restored(&message.extra, MESSAGE_RESERVED, &[]).next().is_some() {
        return false;
    }
    let tool_part = |b: &ContentBlock| is_tool_part(message.role, b);
    let parts = |blocks: &mut dyn Iterator<Item = &'a ContentBlock>| -> Option<Vec<Part<'a>>> {
        blocks.map(|b| usual_part(b, tool_names)).collect()
    };
    let Some(tool) = parts(&mut message.content.iter().filter(|b| tool_part(b))) else { return false };
    let other: Vec<&'a ContentBlock> = message.content.iter().filter(|b| !tool_part(b)).collect();
    let written = other.len();
    // `plain_text`'s text, borrowed from the message.
    let text = plain_text(&other).map(|_| match other.first().copied() {
        Some(ContentBlock::Text(t)) => t.text.as_str(),
        _ => "",
    });
    let content = match (recorded_form(&message.extra).unwrap_or(ContentForm::Parts), text) {
        (ContentForm::String, Some(text)) => Content::Text(text),
        (ContentForm::Null, _) if other.is_empty() => Content::Null,
        _ => match parts(&mut other.into_iter()) {
            Some(parts) => Content::Parts(parts),
            None => return false,
        },
    };
    if !tool.is_empty() {
        out.push(Written::Message { role: "tool", content: Content::Parts(tool) });
        if written == 0 {
            return true;
        }
    }
    out.push(Written::Message { role: message.role.as_str(), content });
    true
}

/// `block` as [`Part`], when it is one of the usual shapes.
fn usual_part<'a>(block: &'a ContentBlock, tool_names: &HashMap<&str, &'a str>) -> Option<Part<'a>> {
    Some(match block {
        ContentBlock::Text(b) if restored(&b.extra, &[], &[]).next().is_none() => Part::Text(&b.text),
        ContentBlock::ToolUse(b) if restored(&b.extra, BLOCK_RESERVED, &[]).next().is_none() => {
            Part::ToolCall { id: &b.id, name: &b.name, input: original_input(&b.input, &b.extra) }
        }
        ContentBlock::ToolResult(b) => {
            let mut fields = restored(&b.extra, BLOCK_RESERVED, &[]);
            let kept_name = match (fields.next(), fields.next()) {
                (None, _) => None,
                (Some(("toolName", name)), None) => Some(name),
                _ => return None,
            };
            let name = tool_names.get(b.tool_use_id.as_str()).copied().filter(|_| kept_name.is_none());
            Part::ToolResult { kept_name, id: &b.tool_use_id, name, output: output(b) }
        }
        ContentBlock::Other(m) => Part::Verbatim(m),
        _ => return None,
    })
}

impl Serialize for Written<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Written::Value(value) => value.serialize(serializer),
            Written::Message { role, content } => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("role", role)?;
                map.serialize_entry("content", content)?;
                map.end()
            }
        }
    }
}

impl Serialize for Content<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Content::Text(text) => serializer.serialize_str(text),
            Content::Null => serializer.serialize_unit(),
            Content::Parts(parts) => parts.serialize(serializer),
        }
    }
}

impl Serialize for Part<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Part::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("text", text)?;
            }
            Part::ToolCall { id, name, input } => {
                map.serialize_entry("type", "tool-call")?;
                map.serialize_entry("toolCallId", id)?;
                map.serialize_entry("toolName", name)?;
                map.serialize_entry("input", input)?;
            }
            Part::ToolResult { kept_name, id, name, output } => {
                if let Some(kept) = kept_name {
                    map.serialize_entry("toolName", kept)?;
                }
                map.serialize_entry("type", "tool-result")?;
                map.serialize_entry("toolCallId", id)?;
                if let Some(name) = name {
                    map.serialize_entry("toolName", name)?;
                }
                map.serialize_entry("output", output)?;
            }
            Part::Verbatim(fields) => {
                for (key, value) in fields.iter() {
                    map.serialize_entry(key, value)?;
                }
            }
        }
        map.end()
    }
}

/// Whether `block` of a message of `role` is written in a `tool` message.
fn is_tool_part(role: Role, block: &ContentBlock) -> bool {
    role == Role::User
        && match block {
            ContentBlock::ToolResult(_) => true,
            ContentBlock::Other(m) => m.get("type").and_then(Value::as_str).is_some_and(|t| t.starts_with("tool-")),
            _ => false,
        }
}

/// A tool result's `output`: the kept original while it still reads as the block, else
/// what [`encode_output`] makes of it.
fn output(b: &ToolResultBlock) -> Cow<'_, Value> {
    let raw = b.extra.get(RAW_OUTPUT).filter(|raw| {
        let (content, is_error) = decode_output_of(raw);
        content == b.content && is_error == b.is_error
    });
    raw.map_or_else(|| Cow::Owned(encode_output(&b.content, b.is_error)), Cow::Borrowed)
}

/// `message` as AI SDK messages, as `Value`s: any message, whatever its fields.
fn write_message(message: &Message, tool_names: &HashMap<&str, &str>, out: &mut Vec<Value>) {
    let (mut tool, mut other) = (Vec::new(), Vec::new());
    for block in &message.content {
        if is_tool_part(message.role, block) {
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

fn write_part(block: &ContentBlock, tool_names: &HashMap<&str, &str>) -> Value {
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
            put(&mut part, "output", output(b).into_owned());
            part
        }
        ContentBlock::Other(m) => m.clone(),
    };
    Value::Object(part)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::{json, Value};

    use super::{for_format, write_message, written, Written};
    use crate::formats::{
        from_anthropic, from_openai, from_vercel_ai, interleave_system, shared_transcripts, to_vercel_ai, Format,
        Imported, SystemMessage,
    };
    use crate::model::message::{ContentBlock, Message};

    /// What the `Value` writer alone makes of `messages`: every message through `write_message`.
    fn through_values(messages: &[Message], system: &[SystemMessage]) -> Value {
        let mut names: HashMap<&str, &str> = HashMap::new();
        let mut dropped = Vec::new();
        interleave_system(messages, system, Format::VercelAi, &mut |i, message, out| {
            for block in &message.content {
                if let ContentBlock::ToolUse(b) = block {
                    names.insert(&b.id, &b.name);
                }
            }
            if let Some(message) = for_format(message, i, Format::VercelAi, &mut dropped) {
                write_message(&message, &names, out);
            }
        })
    }

    /// `written` serializes as the `Value` writer writes; the messages it wrote itself.
    fn check(messages: &[Message], system: &[SystemMessage]) -> usize {
        let (items, _) = written(messages, system);
        let usual = items.iter().filter(|w| matches!(w, Written::Message { .. })).count();
        // As text: `Value`s compare their objects' fields in any order.
        let text = serde_json::to_string(&items).unwrap();
        assert_eq!(text, through_values(messages, system).to_string());
        usual
    }

    /// The transcripts, as read from Anthropic and as read back from the AI SDK, and a
    /// catalogue of shapes from the three other formats: the usual ones are written
    /// without a `Value`, the others through it, all alike.
    #[test]
    fn the_usual_shapes_serialize_as_the_value_writer_writes_them() {
        let mut usual = 0;
        for value in shared_transcripts(".anthropic.json") {
            let messages = from_anthropic(&value).unwrap().messages;
            usual += check(&messages, &[]);
            let Imported { system, messages } = from_vercel_ai(&to_vercel_ai(&messages, &[])).unwrap();
            usual += check(&messages, &system);
        }
        let vercel = json!([
            { "role": "system", "content": "rules" },
            { "role": "user", "content": "" },
            { "role": "user", "content": [{ "type": "text", "text": "a", "providerOptions": { "x": {} } },
                { "type": "image", "image": "data:,", "mediaType": "image/png" }] },
            { "role": "assistant", "content": [{ "type": "reasoning", "text": "r" },
                { "type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": { "a": 1 } },
                { "type": "tool-call", "toolCallId": "c2", "toolName": "f", "input": {}, "providerExecuted": true }] },
            { "role": "tool", "content": [
                { "type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": { "type": "error-json", "value": { "e": 1 } } },
                { "type": "tool-result", "toolCallId": "c2", "output": { "type": "content", "value": [{ "type": "text", "text": "x" }] } }] },
            { "role": "assistant", "content": "plain", "providerOptions": {} },
            { "role": "user", "content": [{ "type": "text", "text": "t" }] }
        ]);
        let Imported { system, messages } = from_vercel_ai(&vercel).unwrap();
        usual += check(&messages, &system);
        let anthropic = json!([
            { "role": "user", "content": [{ "type": "text", "text": "a", "cache_control": { "type": "ephemeral" } }] },
            { "role": "assistant", "content": [{ "type": "thinking", "thinking": "t", "signature": "s" },
                { "type": "tool_use", "id": "t1", "name": "ls", "input": {} }] },
            { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "t1", "is_error": true,
                "content": [{ "type": "text", "text": "no" }, { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "AA==" } }] },
                { "type": "text", "text": "next" }] }
        ]);
        usual += check(&from_anthropic(&anthropic).unwrap().messages, &[]);
        let openai = json!([
            { "role": "developer", "content": "d" },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "f", "arguments": "{\"n\": 12345678901234567890}" } },
                { "id": "c2", "type": "function", "function": { "name": "f", "arguments": "nope" } }] },
            { "role": "tool", "tool_call_id": "c1", "content": "1" },
            { "role": "tool", "tool_call_id": "c2", "content": "2", "name": "f" }
        ]);
        let Imported { system, messages } = from_openai(&openai).unwrap();
        usual += check(&messages, &system);
        assert!(usual > 100, "{usual} messages written without a Value");
    }
}
