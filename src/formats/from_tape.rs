//! The `from…` readers of the usual shapes, straight from the tape JS wrote
//! (`crate::tape`), one per format.
//!
//! Budget `from…` ≤ 2.5× `JSON.stringify` (issue 20): through a `Value`, a `from…` of
//! 1,000 turns took 2.6–3.0×, a third of it making and freeing the `Value`. Each reader
//! here reads what its format's `Value` reader reads without a second look: the fields
//! in any order after the first (`role`, or an item's or part's `type`), provider fields
//! kept as [`rest`](super::rest) keeps them. It says `None` on anything else (a first
//! field elsewhere, a mistake); the binding then reads the tape as a `Value` with the
//! format's reader, which gives those messages or the error with its path. The tests
//! below hold each reader to its `Value` reader on the shared transcripts, a catalogue
//! of other shapes and random variations of both.

use serde_json::{Map, Value};

use super::openai_responses::Open;
use super::portable::mark;
use super::{
    assign_turn_ids, kept_name, new_message, openai, openai_responses, put, put_str, record_form, text_block,
    tool_use_from_arguments, vercel, ContentForm, Format, Imported, SystemMessage, BLOCK_RESERVED, MESSAGE_RESERVED,
    RAW_OUTPUT,
};
use crate::model::message::{ContentBlock, Message, Role, TextBlock, ToolResultBlock, ToolResultContent, ToolUseBlock};
use crate::model::read::{tool_result_content, MAX_NESTING};
use crate::tape::{Field, Kind, Reader};

// ---------------------------------------------------------------------------
// Shared steps

/// Levels of arrays and objects a value at depth `depth` may hold, its own included,
/// as the `Value` reader allows them (the root is at depth 0).
const fn room_at(depth: usize) -> usize {
    MAX_NESTING - depth
}

/// The value of field `key`, next on the tape, kept in `extra` as [`rest`](super::rest)
/// keeps a field (`provider_<key>` for a name in `reserved`); `room`: its levels.
fn keep(tape: &mut Reader, key: usize, room: usize, reserved: &[&str], extra: &mut Map<String, Value>) -> Option<()> {
    let value = tape.any(room)?;
    extra.insert(kept_name(tape.key_name(key), reserved), value);
    Some(())
}

/// A message's `content`, read from a tape as [`read_content`](super::read_content)
/// reads a string or an array, each part by `part` (given the room of a part); `room`:
/// the content's.
fn content(
    tape: &mut Reader,
    room: usize,
    part: &mut dyn FnMut(&mut Reader, usize) -> Option<ContentBlock>,
) -> Option<(Vec<ContentBlock>, ContentForm)> {
    match tape.peek()? {
        Kind::String => Some(match tape.str()? {
            "" => (Vec::new(), ContentForm::String),
            text => (vec![text_block(text.to_owned())], ContentForm::String),
        }),
        Kind::Array => {
            let count = tape.array()?;
            let mut blocks = Vec::with_capacity(tape.capacity(count));
            for _ in 0..count {
                blocks.push(part(tape, room - 1)?);
            }
            Some((blocks, ContentForm::Parts))
        }
        _ => None,
    }
}

/// The rest of a message whose `role` was read, its `fields` other fields, as
/// [`read_content_message`](super::read_content_message) reads it: its required
/// `content` (only an array of parts when `parts_only`), each part by `part`, and its
/// other fields kept in `extra` (which may hold fields read before); `room`: the levels
/// its fields' values may hold.
fn content_message(
    tape: &mut Reader,
    role: Role,
    fields: usize,
    mut extra: Map<String, Value>,
    (room, parts_only): (usize, bool),
    part: &mut dyn FnMut(&mut Reader, usize) -> Option<ContentBlock>,
) -> Option<Message> {
    let mut read = None;
    for _ in 0..fields {
        match tape.key()? {
            (_, Field::Content) if parts_only && tape.peek()? != Kind::Array => return None,
            (_, Field::Content) => read = Some(content(tape, room, part)?),
            (key, _) => keep(tape, key, room, MESSAGE_RESERVED, &mut extra)?,
        }
    }
    let (blocks, form) = read?;
    record_form(&mut extra, form, ContentForm::Parts);
    Some(new_message(role, blocks, extra))
}

/// The object that comes next, its first key `first`: its entry count, `None` when
/// it is not an object or `first` does not come first.
fn object_starting(tape: &mut Reader, first: Field) -> Option<usize> {
    let fields = tape.object()?;
    (fields > 0 && tape.key()?.1 == first).then_some(fields)
}

/// The rest of a text part `{ type, text }` whose `type` was read, as
/// [`read_text_part`](super::read_text_part) reads it; `room`: its values' levels.
fn text_part(tape: &mut Reader, fields: usize, room: usize) -> Option<ContentBlock> {
    let (mut text, mut extra) = (None, Map::new());
    for _ in 1..fields {
        match tape.key()? {
            (_, Field::Text) => text = Some(tape.string()?),
            (key, _) => keep(tape, key, room, &[], &mut extra)?,
        }
    }
    Some(ContentBlock::Text(TextBlock { text: text?, extra }))
}

/// The rest of an object of `fields` entries whose first, `key: value`, was read, kept
/// verbatim; `room`: the levels its values may hold.
fn verbatim(tape: &mut Reader, key: &str, value: &str, fields: usize, room: usize) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    put_str(&mut map, key, value);
    tape.entries(fields - 1, room, map)
}

/// A tool result's content, read as a `Value` (a string or an array of blocks).
fn result_content(tape: &mut Reader, room: usize) -> Option<ToolResultContent> {
    tool_result_content(tape.any(room)?, String::new).ok()
}

// ---------------------------------------------------------------------------
// Anthropic

/// [`from_anthropic`](super::from_anthropic) of the usual shapes, read straight from a
/// tape; `None` for anything else.
pub(crate) fn anthropic(tape: &mut Reader) -> Option<Imported<Option<Value>>> {
    let (system, messages) = match tape.peek()? {
        Kind::Array => (None, anthropic_messages(tape, 0)?),
        Kind::Object => {
            let (mut system, mut messages) = (None, None);
            for _ in 0..tape.object()? {
                match tape.key()?.1 {
                    Field::System => system = Some(tape.any(room_at(1))?),
                    Field::Messages => messages = Some(anthropic_messages(tape, 1)?),
                    _ => drop(tape.any(room_at(1))?),
                }
            }
            (system, messages?)
        }
        _ => return None,
    };
    Some(Imported { system, messages })
}

/// The messages array at `depth`, as [`from_anthropic`](super::from_anthropic) reads it.
fn anthropic_messages(tape: &mut Reader, depth: usize) -> Option<Vec<Message>> {
    let count = tape.array()?;
    let mut messages = Vec::with_capacity(tape.capacity(count));
    for _ in 0..count {
        let fields = object_starting(tape, Field::Role)?;
        let role = match tape.str()? {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            _ => return None,
        };
        let block = &mut |tape: &mut Reader, room| tape.block(room);
        messages.push(content_message(tape, role, fields - 1, Map::new(), (room_at(depth + 2), false), block)?);
    }
    assign_turn_ids(&mut messages);
    Some(messages)
}

// ---------------------------------------------------------------------------
// Chat Completions

/// [`from_openai`](super::from_openai) of the usual shapes, read straight from a tape;
/// `None` for anything else.
pub(crate) fn openai(tape: &mut Reader) -> Option<Imported<Vec<SystemMessage>>> {
    let count = tape.array()?;
    let mut messages: Vec<Message> = Vec::with_capacity(tape.capacity(count));
    let mut system = Vec::new();
    let mut in_results = false;
    for _ in 0..count {
        let fields = object_starting(tape, Field::Role)?;
        let role = tape.str()?;
        if role == "system" || role == "developer" {
            in_results = false;
            let message = verbatim(tape, "role", role, fields, room_at(2))?;
            system.push(SystemMessage { position: messages.len(), message: Value::Object(message) });
            continue;
        }
        if role == "tool" {
            let block = tool_result(tape, fields, Field::ToolCallIdSnake, Field::Content)?;
            openai::add_tool_result(&mut messages, in_results, block);
            in_results = true;
            continue;
        }
        in_results = false;
        let role = match role {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            _ => return None,
        };
        messages.push(openai_message(tape, role, fields)?);
    }
    assign_turn_ids(&mut messages);
    mark(&mut messages, Format::OpenAi);
    Some(Imported { system, messages })
}

/// The rest of a tool result message or item, as `read_tool_result` reads one: the call
/// id in field `id`, the content in `content`, the other fields kept (`type` and
/// `role`, read before, are not among them).
fn tool_result(tape: &mut Reader, fields: usize, id: Field, content: Field) -> Option<ContentBlock> {
    let (mut tool_use_id, mut read, mut extra) = (None, None, Map::new());
    for _ in 1..fields {
        match tape.key()? {
            (_, field) if field == id => tool_use_id = Some(tape.string()?),
            (_, field) if field == content => read = Some(result_content(tape, room_at(2))?),
            (key, _) => keep(tape, key, room_at(2), BLOCK_RESERVED, &mut extra)?,
        }
    }
    Some(ContentBlock::ToolResult(ToolResultBlock {
        tool_use_id: tool_use_id?,
        content: read?,
        is_error: false,
        compact_summary: None,
        extra,
    }))
}

/// The rest of a user or assistant message: `content` (a string, parts or, for the
/// assistant, `null` or none), for the assistant `tool_calls`, and other fields kept.
fn openai_message(tape: &mut Reader, role: Role, fields: usize) -> Option<Message> {
    let (mut read, mut calls, mut extra) = (None, Vec::new(), Map::new());
    for _ in 1..fields {
        match tape.key()? {
            (_, Field::Content) if tape.peek()? == Kind::Null && role == Role::Assistant => {
                drop(tape.any(0)?); // the `null`
                read = Some((Vec::new(), ContentForm::Null));
            }
            (_, Field::Content) => read = Some(content(tape, room_at(2), &mut openai_part)?),
            (key, Field::ToolCalls) if role == Role::Assistant => match tape.array()? {
                // An empty array is no tool calls: kept as a field.
                0 => put(&mut extra, tape.key_name(key), Value::Array(Vec::new())),
                count => {
                    for _ in 0..count {
                        calls.push(openai_tool_call(tape)?);
                    }
                }
            },
            (key, _) => keep(tape, key, room_at(2), MESSAGE_RESERVED, &mut extra)?,
        }
    }
    let (mut blocks, form) = match read {
        Some(read) => read,
        None if role == Role::Assistant => (Vec::new(), ContentForm::Absent),
        None => return None,
    };
    let default = openai::default_form(role, &blocks.iter().collect::<Vec<_>>());
    blocks.append(&mut calls);
    record_form(&mut extra, form, default);
    Some(new_message(role, blocks, extra))
}

/// A part as `openai::read_part` reads one, `type` first; `room`: its levels.
fn openai_part(tape: &mut Reader, room: usize) -> Option<ContentBlock> {
    let fields = object_starting(tape, Field::Type)?;
    match tape.str()? {
        "text" => text_part(tape, fields, room - 1),
        kind => Some(ContentBlock::Other(verbatim(tape, "type", kind, fields, room - 1)?)),
    }
}

/// A tool call `{ id, type: "function", function: { name, arguments } }`, as
/// `openai::read_tool_call` reads it.
fn openai_tool_call(tape: &mut Reader) -> Option<ContentBlock> {
    // The call is at depth 3: an item of a message's field.
    let (mut id, mut function, mut extra) = (None, None, Map::new());
    for _ in 0..tape.object()? {
        match tape.key()? {
            (_, Field::Id) => id = Some(tape.str()?),
            (_, Field::Type) => {
                if tape.str()? != "function" {
                    return None;
                }
            }
            (_, Field::Function) => {
                let (mut name, mut arguments, mut rest) = (None, None, Map::new());
                for _ in 0..tape.object()? {
                    match tape.key()? {
                        (_, Field::Name) => name = Some(tape.str()?),
                        (_, Field::Arguments) => arguments = Some(tape.str()?),
                        (key, _) => keep(tape, key, room_at(5), &[], &mut rest)?,
                    }
                }
                function = Some((name?, arguments?, rest));
            }
            (key, _) => keep(tape, key, room_at(4), BLOCK_RESERVED, &mut extra)?,
        }
    }
    let (name, arguments, rest) = function?;
    if !rest.is_empty() {
        put(&mut extra, "function", Value::Object(rest));
    }
    Some(tool_use_from_arguments(id?, name, arguments, extra))
}

// ---------------------------------------------------------------------------
// Responses API

/// [`from_openai_responses`](super::from_openai_responses) of the usual shapes, read
/// straight from a tape; `None` for anything else.
pub(crate) fn openai_responses(tape: &mut Reader) -> Option<Imported<Vec<SystemMessage>>> {
    let count = tape.array()?;
    let mut messages: Vec<Message> = Vec::with_capacity(tape.capacity(count));
    let mut system = Vec::new();
    let mut open = Open::Nothing;
    for _ in 0..count {
        let fields = tape.object()?;
        // A message item is `{ role, … }`, or `{ type: "message", role, … }` (its `type` kept).
        let (ty, role) = match tape.key()?.1 {
            Field::Role => (None, tape.str()?),
            Field::Type => match tape.str()? {
                "message" if fields > 1 && tape.key()?.1 == Field::Role => (Some("message"), tape.str()?),
                "message" => return None,
                ty => (Some(ty), ""),
            },
            _ => return None,
        };
        let (message, next) = match ty {
            None | Some("message") => {
                let read = fields - 1 - usize::from(ty.is_some());
                let mut extra = Map::new();
                if let Some(ty) = ty {
                    put_str(&mut extra, "type", ty);
                }
                let (role, next) = match role {
                    "system" | "developer" => {
                        extra.insert("role".to_owned(), Value::String(role.to_owned()));
                        let message = tape.entries(read, room_at(2), extra)?;
                        if !message_type(&message) {
                            return None;
                        }
                        system.push(SystemMessage { position: messages.len(), message: Value::Object(message) });
                        open = Open::Nothing;
                        continue;
                    }
                    "user" => (Role::User, Open::Nothing),
                    "assistant" => (Role::Assistant, Open::AssistantWithText),
                    _ => return None,
                };
                let part = &mut |tape: &mut Reader, room| responses_part(tape, room, role);
                let message = content_message(tape, role, read, extra, (room_at(2), false), part)?;
                if !message_type(&message.extra) {
                    return None;
                }
                (message, next)
            }
            Some(ty) => {
                let (role, block, next) = match ty {
                    "function_call" => (Role::Assistant, responses_call(tape, fields)?, Open::Assistant),
                    "function_call_output" => {
                        (Role::User, tool_result(tape, fields, Field::CallId, Field::Output)?, Open::Outputs)
                    }
                    _ => {
                        let block = ContentBlock::Other(verbatim(tape, "type", ty, fields, room_at(2))?);
                        match ty.ends_with("_output") {
                            true => (Role::User, block, Open::Nothing),
                            false => (Role::Assistant, block, Open::Assistant),
                        }
                    }
                };
                (new_message(role, vec![block], Map::new()), next)
            }
        };
        openai_responses::add(&mut messages, &mut open, message, next);
    }
    assign_turn_ids(&mut messages);
    mark(&mut messages, Format::OpenAiResponses);
    Some(Imported { system, messages })
}

/// Whether the fields of an item read as a message item say it is one: no `type`, or
/// `"message"`. Any other `type` after `role` makes it that type's item (or a mistake),
/// which the `Value` reader reads.
fn message_type(fields: &Map<String, Value>) -> bool {
    fields.get("type").is_none_or(|ty| ty == "message")
}

/// A part of a message item of `role` as `openai_responses::read_message` reads one,
/// `type` first.
fn responses_part(tape: &mut Reader, room: usize, role: Role) -> Option<ContentBlock> {
    let fields = object_starting(tape, Field::Type)?;
    match tape.str()? {
        kind if kind == openai_responses::text_type(role) => text_part(tape, fields, room - 1),
        kind => Some(ContentBlock::Other(verbatim(tape, "type", kind, fields, room - 1)?)),
    }
}

/// The rest of a `{ type: "function_call", call_id, name, arguments }` item.
fn responses_call(tape: &mut Reader, fields: usize) -> Option<ContentBlock> {
    let (mut id, mut name, mut arguments, mut extra) = (None, None, None, Map::new());
    for _ in 1..fields {
        match tape.key()? {
            (_, Field::CallId) => id = Some(tape.str()?),
            (_, Field::Name) => name = Some(tape.str()?),
            (_, Field::Arguments) => arguments = Some(tape.str()?),
            (key, _) => keep(tape, key, room_at(2), BLOCK_RESERVED, &mut extra)?,
        }
    }
    Some(tool_use_from_arguments(id?, name?, arguments?, extra))
}

// ---------------------------------------------------------------------------
// AI SDK

/// [`from_vercel_ai`](super::from_vercel_ai) of the usual shapes, read straight from a
/// tape; `None` for anything else.
pub(crate) fn vercel_ai(tape: &mut Reader) -> Option<Imported<Vec<SystemMessage>>> {
    let count = tape.array()?;
    let mut out = Vec::with_capacity(tape.capacity(count));
    let mut system = Vec::new();
    for _ in 0..count {
        let fields = object_starting(tape, Field::Role)?;
        let role_name = tape.str()?;
        if role_name == "system" {
            let message = verbatim(tape, "role", role_name, fields, room_at(2))?;
            system.push(SystemMessage { position: out.len(), message: Value::Object(message) });
            continue;
        }
        let role = match role_name {
            "user" | "tool" => Role::User,
            "assistant" => Role::Assistant,
            _ => return None,
        };
        // A `tool` message's content is an array of parts.
        let fields_at = (room_at(2), role_name == "tool");
        out.push(content_message(tape, role, fields - 1, Map::new(), fields_at, &mut vercel_part)?);
    }
    assign_turn_ids(&mut out);
    mark(&mut out, Format::VercelAi);
    Some(Imported { system, messages: out })
}

/// A part as `vercel::read_part` reads one, `type` first; `room`: its levels.
fn vercel_part(tape: &mut Reader, room: usize) -> Option<ContentBlock> {
    let fields = object_starting(tape, Field::Type)?;
    let kind = tape.str()?;
    let room = room - 1;
    Some(match kind {
        "text" => text_part(tape, fields, room)?,
        "tool-call" => {
            let (mut id, mut name, mut input, mut extra) = (None, None, None, Map::new());
            for _ in 1..fields {
                match tape.key()? {
                    (_, Field::ToolCallId) => id = Some(tape.string()?),
                    (_, Field::ToolName) => name = Some(tape.string()?),
                    (_, Field::Input) => input = Some(tape.any(room)?),
                    (key, _) => keep(tape, key, room, BLOCK_RESERVED, &mut extra)?,
                }
            }
            ContentBlock::ToolUse(ToolUseBlock { id: id?, name: name?, input: input?, extra })
        }
        "tool-result" => {
            let (mut id, mut output, mut extra) = (None, None, Map::new());
            for _ in 1..fields {
                match tape.key()? {
                    (_, Field::ToolCallId) => id = Some(tape.string()?),
                    (_, Field::Output) => output = Some(tape.any(room)?),
                    (key, _) => keep(tape, key, room, BLOCK_RESERVED, &mut extra)?,
                }
            }
            let (content, is_error, kept) = vercel::decode_output(output?);
            if let Some(output) = kept {
                put(&mut extra, RAW_OUTPUT, output);
            }
            ContentBlock::ToolResult(ToolResultBlock {
                tool_use_id: id?,
                content,
                is_error,
                compact_summary: None,
                extra,
            })
        }
        _ => ContentBlock::Other(verbatim(tape, "type", kind, fields, room)?),
    })
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use proptest::prelude::*;
    use serde_json::{json, Value};

    use super::super::{anthropic, openai, openai_responses, vercel, Imported};
    use crate::error::InputError;
    use crate::formats::{
        from_anthropic, shared_transcripts, to_anthropic, to_openai, to_openai_responses, to_vercel_ai,
    };
    use crate::tape::{Lengths, Reader, Tape};

    type Fast<S> = fn(&mut Reader) -> Option<Imported<S>>;
    type Slow<S> = fn(Value) -> Result<Imported<S>, InputError>;

    /// One format's tape reader and `Value` reader.
    struct Pair<S> {
        fast: Fast<S>,
        slow: Slow<S>,
    }

    const ANTHROPIC: Pair<Option<Value>> = Pair { fast: super::anthropic, slow: anthropic::from_anthropic_value };
    const OPENAI: Pair<Vec<super::SystemMessage>> = Pair { fast: super::openai, slow: openai::from_openai_value };
    const RESPONSES: Pair<Vec<super::SystemMessage>> =
        Pair { fast: super::openai_responses, slow: openai_responses::from_openai_responses_value };
    const VERCEL: Pair<Vec<super::SystemMessage>> = Pair { fast: super::vercel_ai, slow: vercel::from_vercel_ai_value };

    /// The messages with their fresh ids and timestamps blanked, which differ by nature.
    fn blanked<S>(mut imported: Imported<S>) -> Imported<S> {
        for message in &mut imported.messages {
            message.id.clear();
            message.created_at.clear();
        }
        imported
    }

    impl<S: PartialEq + Debug + serde::Serialize> Pair<S> {
        /// Reads `value` from its tape as JS writes it: when the tape reader takes it, the
        /// `Value` reader must read it too, into the same. Whether the tape reader took it.
        fn check(&self, value: &Value) -> bool {
            let tape = Tape::of(value, Lengths::Utf8).expect("a Value always writes");
            // SAFETY: `Tape` writes each string's UTF-8 from a `&str`.
            let reader = || unsafe { Reader::new(&tape.ops, &tape.numbers, &tape.bytes) };
            let Some(fast) = (self.fast)(&mut reader()) else { return false };
            // What the binding reads otherwise: the tape as a `Value` (the nesting limit applies), then the reader.
            let whole =
                reader().value().unwrap_or_else(|| panic!("the tape reader took a value nested too deep: {value}"));
            let slow = (self.slow)(whole)
                .unwrap_or_else(|e| panic!("the tape reader took what the Value reader refuses ({e}): {value}"));
            let (fast, slow) = (blanked(fast), blanked(slow));
            // As text too: `Value`s compare their objects' fields in any order.
            let text = |imported: &Imported<S>| serde_json::to_string(&(&imported.messages, &imported.system)).unwrap();
            assert_eq!(text(&fast), text(&slow), "{value}");
            assert_eq!(fast, slow, "{value}");
            true
        }
    }

    /// Each transcript, and each written by every format from the model: the writers
    /// write the usual shapes, which the tape readers must all take.
    #[test]
    fn the_transcripts_in_every_format_read_as_through_a_value() {
        let mut written = 0;
        for value in shared_transcripts(".anthropic.json") {
            ANTHROPIC.check(&value);
            let messages = from_anthropic(&value).expect("a shared transcript reads").messages;
            assert!(ANTHROPIC.check(&to_anthropic(&messages)));
            assert!(OPENAI.check(&to_openai(&messages, &[])));
            assert!(RESPONSES.check(&to_openai_responses(&messages, &[])));
            assert!(VERCEL.check(&to_vercel_ai(&messages, &[])));
            written += 1;
        }
        for value in shared_transcripts(".openai.json") {
            OPENAI.check(&value);
        }
        assert!(written >= 18, "{written} transcripts");
    }

    /// Shapes of each format beside the usual ones: the tape reader takes some,
    /// leaves the others to the `Value` reader, and reads what it takes the same way.
    fn catalogue() -> [(&'static str, Value); 4] {
        let image = json!({ "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo=" } });
        [
            (
                "anthropic",
                json!({ "model": "m", "system": [{ "type": "text", "text": "be brief" }], "max_tokens": 5, "messages": [
                    { "role": "user", "content": "" },
                    { "role": "user", "content": [{ "type": "text", "text": "look", "cache_control": { "type": "ephemeral" } }, image] },
                    { "role": "assistant", "content": [
                        { "type": "thinking", "thinking": "hm", "signature": "s" },
                        { "type": "tool_use", "id": "t1", "name": "ls", "input": { "n": 1.5, "deep": [[{}]] } },
                        { "type": "tool_use", "id": "t2", "name": "ls", "input": {} }] },
                    { "role": "user", "content": [
                        { "type": "tool_result", "tool_use_id": "t1", "content": "out", "is_error": true },
                        { "type": "tool_result", "tool_use_id": "t2", "content": [{ "type": "text", "text": "a" }, image] },
                        { "type": "tool_result", "tool_use_id": "t3" },
                        { "type": "tool_result", "tool_use_id": "t4", "content": "x", "compact_summary": "y", "is_error": null }] },
                    { "content": "late role", "role": "user" },
                    { "role": "assistant", "content": "ok", "id": "msg_1" },
                    { "role": "system", "content": "no" }
                ] }),
            ),
            (
                "openai",
                json!([
                    { "role": "developer", "content": "rules", "name": "x" },
                    { "role": "user", "content": [{ "type": "text", "text": "see" }, { "type": "image_url", "image_url": { "url": "data:image/png;base64,AA==" } }] },
                    { "role": "assistant", "content": null, "tool_calls": [
                        { "id": "c1", "type": "function", "function": { "name": "f", "arguments": "{\"a\":1,\"b\":0.30000000000000004}" } },
                        { "id": "c2", "type": "function", "function": { "name": "g", "arguments": "{ \"spaced\": true }" } },
                        { "id": "c3", "type": "function", "function": { "name": "h", "arguments": "not json" } },
                        { "id": "c4", "function": { "name": "h", "arguments": "{}" } },
                        { "id": "c5", "type": "function", "index": 0, "function": { "name": "h", "arguments": "{}" } }] },
                    { "role": "tool", "tool_call_id": "c1", "content": "1" },
                    { "role": "tool", "tool_call_id": "c2", "content": [{ "type": "text", "text": "2" }] },
                    { "role": "tool", "content": "3", "tool_call_id": "c3" },
                    { "role": "assistant", "content": "" },
                    { "role": "assistant" },
                    { "role": "assistant", "content": "x", "tool_calls": [] },
                    { "role": "assistant", "content": "x", "refusal": null },
                    { "role": "user", "content": null },
                    { "role": "user", "content": "hi", "tool_calls": [] },
                    { "role": "system", "content": "late" }
                ]),
            ),
            (
                "responses",
                json!([
                    { "role": "system", "content": "rules" },
                    { "role": "user", "content": [{ "type": "input_text", "text": "a" }, { "type": "input_image", "image_url": "data:," }] },
                    { "type": "reasoning", "id": "r1", "summary": [] },
                    { "role": "assistant", "content": "text" },
                    { "type": "function_call", "call_id": "c1", "name": "f", "arguments": "{\"x\":[1,2]}" },
                    { "type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}", "id": "fc_2", "status": "completed" },
                    { "type": "function_call_output", "call_id": "c1", "output": "done" },
                    { "type": "function_call_output", "call_id": "c2", "output": [{ "type": "input_text", "text": "x" }] },
                    { "type": "web_search_call_output", "id": "w" },
                    { "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": "t" }] },
                    { "role": "assistant", "content": [{ "type": "output_text", "text": "t", "annotations": [] }] },
                    { "role": "user", "content": [{ "text": "no type" }] },
                    { "role": "developer", "content": "late" }
                ]),
            ),
            (
                "vercel",
                json!([
                    { "role": "system", "content": "rules", "providerOptions": {} },
                    { "role": "user", "content": "" },
                    { "role": "user", "content": [{ "type": "text", "text": "a" }, { "type": "image", "image": "data:,", "mediaType": "image/png" }] },
                    { "role": "assistant", "content": [
                        { "type": "reasoning", "text": "r" },
                        { "type": "tool-call", "toolCallId": "c1", "toolName": "f", "input": { "a": null } },
                        { "type": "tool-call", "toolCallId": "c2", "toolName": "f", "input": 3, "providerExecuted": true }] },
                    { "role": "tool", "content": [
                        { "type": "tool-result", "toolCallId": "c1", "toolName": "f", "output": { "type": "error-text", "value": "bad" } },
                        { "type": "tool-result", "toolCallId": "c2", "output": { "type": "json", "value": { "k": [1] } } },
                        { "type": "tool-result", "toolCallId": "c3", "toolName": "f", "output": { "type": "content", "value": [{ "type": "text", "text": "x" }] } }] },
                    { "role": "tool", "content": "not parts" },
                    { "role": "assistant", "content": [{ "type": "text", "text": "t", "providerOptions": {} }] },
                    { "role": "user", "content": null },
                    { "role": "narrator", "content": "?" }
                ]),
            ),
        ]
    }

    fn check_any(format: &str, value: &Value) -> bool {
        match format {
            "anthropic" => ANTHROPIC.check(value),
            "openai" => OPENAI.check(value),
            "responses" => RESPONSES.check(value),
            _ => VERCEL.check(value),
        }
    }

    /// Each message of the catalogue alone (as the whole input), and each format's
    /// whole catalogue (which holds shapes it leaves to the `Value` reader).
    #[test]
    fn the_catalogue_reads_as_through_a_value() {
        for (format, value) in catalogue() {
            assert!(!check_any(format, &value), "{format}: the catalogue holds shapes for the Value reader");
            let (messages, wrap): (&Vec<Value>, fn(Value) -> Value) = match &value {
                Value::Object(o) => (o["messages"].as_array().unwrap(), |m| json!({ "messages": [m] })),
                Value::Array(items) => (items, |m| Value::Array(vec![m])),
                _ => unreachable!(),
            };
            let taken = messages.iter().filter(|m| check_any(format, &wrap((*m).clone()))).count();
            assert!(taken > 0 && taken < messages.len(), "{format}: {taken} of {} taken", messages.len());
        }
    }

    /// Values nested up to the limit and past it, as a tool input and as a provider
    /// field: the tape readers take no more than the `Value` readers do.
    #[test]
    fn nesting_is_limited_as_through_a_value() {
        let nested = |levels: usize| (0..levels).fold(json!(1), |inner, _| json!([inner]));
        let (mut taken, mut left) = (0, 0);
        for levels in crate::model::read::MAX_NESTING - 8..crate::model::read::MAX_NESTING + 2 {
            let deep = nested(levels);
            let cases = [
                (
                    "anthropic",
                    json!([{ "role": "assistant", "content": [{ "type": "tool_use", "id": "t", "name": "f", "input": { "x": deep } }] }]),
                ),
                ("anthropic", json!({ "messages": [{ "role": "user", "content": "hi", "meta": deep }] })),
                ("openai", json!([{ "role": "user", "content": "hi", "meta": deep }])),
                (
                    "openai",
                    json!([{ "role": "assistant", "content": null, "tool_calls": [{ "id": "c", "type": "function", "function": { "name": "f", "arguments": "{}", "meta": deep } }] }]),
                ),
                (
                    "responses",
                    json!([{ "type": "function_call", "call_id": "c", "name": "f", "arguments": "{}", "meta": deep }]),
                ),
                (
                    "vercel",
                    json!([{ "role": "assistant", "content": [{ "type": "tool-call", "toolCallId": "c", "toolName": "f", "input": deep }] }]),
                ),
                (
                    "vercel",
                    json!([{ "role": "user", "content": [{ "type": "text", "text": "t", "providerOptions": deep }] }]),
                ),
                ("vercel", json!([{ "role": "user", "content": "hi", "providerOptions": deep }])),
                ("responses", json!([{ "role": "user", "content": "hi", "meta": deep }])),
            ];
            for (format, value) in cases {
                match check_any(format, &value) {
                    true => taken += 1,
                    false => left += 1,
                }
            }
        }
        assert!(taken > 0 && left > 0, "{taken} taken, {left} left to the Value readers");
    }

    /// A random JSON value, small.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-1000i64..1000).prop_map(Value::from),
            Just(json!(0.5)),
            "|text|role|user|assistant|tool|system|function|tool_use|tool-call|input_text|[a-z_]{1,8}"
                .prop_map(Value::from),
        ];
        leaf.prop_recursive(2, 8, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::vec(("type|text|content|role|[a-z]{1,4}", inner), 0..3)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// `value` with one change at the `at`-th object or array met (depth first): a field
    /// removed, added, moved last or replaced by `new`, or an item replaced by `new`.
    fn mutate(value: &mut Value, at: &mut usize, change: usize, key: &str, new: &Value) -> bool {
        let here = *at == 0;
        *at = at.wrapping_sub(1);
        match value {
            Value::Object(map) if here => {
                let keys: Vec<String> = map.keys().cloned().collect();
                let pick = keys.get(change % keys.len().max(1)).cloned();
                match (change % 4, pick) {
                    (0, Some(k)) => drop(map.shift_remove(&k)),
                    (1, Some(k)) => {
                        let v = map.shift_remove(&k).unwrap_or_default();
                        map.insert(k, v);
                    }
                    (2, Some(k)) => drop(map.insert(k, new.clone())),
                    _ => drop(map.insert(key.to_owned(), new.clone())),
                }
                true
            }
            Value::Array(items) if here => {
                match items.len() {
                    0 => items.push(new.clone()),
                    n => items[change % n] = new.clone(),
                }
                true
            }
            Value::Object(map) => map.values_mut().any(|v| mutate(v, at, change, key, new)),
            Value::Array(items) => items.iter_mut().any(|v| mutate(v, at, change, key, new)),
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Random changes to the catalogue and to a written conversation: whatever the
        /// tape reader takes, it reads as the `Value` reader does.
        #[test]
        fn changed_shapes_read_as_through_a_value(
            which in 0usize..8,
            at in 0usize..40,
            change in 0usize..64,
            key in "type|text|content|role|id|name|input|output|toolCallId|toolName|call_id|arguments|tool_calls|tool_call_id|function|system|messages|x",
            new in any_json(),
        ) {
            let (format, mut value) = match which {
                0..=3 => catalogue().into_iter().nth(which).unwrap(),
                _ => {
                    let messages = written();
                    let format = ["anthropic", "openai", "responses", "vercel"][which - 4];
                    let value = match format {
                        "anthropic" => to_anthropic(&messages),
                        "openai" => to_openai(&messages, &[]),
                        "responses" => to_openai_responses(&messages, &[]),
                        _ => to_vercel_ai(&messages, &[]),
                    };
                    (format, value)
                }
            };
            let mut at = at;
            mutate(&mut value, &mut at, change, &key, &new);
            check_any(format, &value);
        }
    }

    /// A short conversation with tool calls, parallel ones and an error, in the model.
    fn written() -> Vec<crate::model::message::Message> {
        let anthropic = json!([
            { "role": "user", "content": "task" },
            { "role": "assistant", "content": [{ "type": "text", "text": "two calls" },
                { "type": "tool_use", "id": "a", "name": "ls", "input": { "p": "." } },
                { "type": "tool_use", "id": "b", "name": "cat", "input": { "f": "x", "n": [1, 2.5] } }] },
            { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "a", "content": "x y" },
                { "type": "tool_result", "tool_use_id": "b", "content": "no such file", "is_error": true }] },
            { "role": "assistant", "content": "done" }
        ]);
        from_anthropic(&anthropic).expect("reads").messages
    }
}
