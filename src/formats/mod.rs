//! Provider wire formats ↔ the message model.
//!
//! One module per format, each with a `from_*` that reads the provider's JSON
//! into [`Message`]s and a `to_*` that writes them back:
//!
//! - [`anthropic`]: the Anthropic Messages API (`{ system?, messages }`).
//! - [`openai`]: OpenAI Chat Completions message arrays.
//! - [`openai_responses`]: OpenAI Responses API input items.
//! - [`vercel`]: the Vercel AI SDK v5 `ModelMessage` array.
//!
//! Conventions shared by every format:
//!
//! - **Round trip.** `to_x(from_x(v))` equals `v` for the format's usual shapes;
//!   each module documents its few normalizations.
//! - **Unknown fields are kept** in the `extra` of the message or block and written
//!   back by the same format. A provider field whose name the model itself uses
//!   (a message's `id`, a block's `type`, …) is kept as `provider_<name>`, so the
//!   model's JSON stays unambiguous; a message's provider `id` is also used as
//!   the message's [`Message::id`].
//! - **How `content` was written** (a string, parts, `null` or absent) is recorded
//!   in the message's `extra` as `content_format` only when it differs from what
//!   the writer would choose by itself, and honoured on output when the content
//!   still fits that form.
//! - **Blocks across formats.** A message read by `from_x` records that its blocks
//!   have x's shapes (`source_format` in its `extra`); `to_x` copies them. Another
//!   format's writer converts each block with an equivalent there (images,
//!   documents, thinking, …) and leaves out the others, which its
//!   `to_*_with_dropped` reports as [`Dropped`]: the table is in [`portable`]'s docs.
//! - The provider fields of a message and of its text and tool blocks are
//!   written only to the format it was read from (Anthropic, the model's own,
//!   for a message not read from any): another format's API may reject them.
//! - **Turn ids** come from [`assign_turn_ids`] (a turn per model step); ids not given by the provider are
//!   fresh UUIDs, `session_id` is 0 and `created_at` is now.
//! - System (and developer) messages are not part of the model: they are returned
//!   aside, with their position, and given back to `to_*`.

pub mod anthropic;
#[cfg(any(target_arch = "wasm32", test))]
pub(crate) mod from_tape;
pub mod openai;
pub mod openai_responses;
pub mod portable;
pub mod vercel;

pub use anthropic::{from_anthropic, to_anthropic, to_anthropic_with_dropped};
pub use openai::{from_openai, to_openai, to_openai_with_dropped};
pub use openai_responses::{from_openai_responses, to_openai_responses, to_openai_responses_with_dropped};
pub use portable::Dropped;
pub use vercel::{from_vercel_ai, to_vercel_ai, to_vercel_ai_with_dropped};

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::compaction::turns::StepRule;
use crate::error::InputError;
use crate::model::message::{
    new_message_id, now_rfc3339, ContentBlock, Message, Role, TextBlock, ToolResultBlock, ToolUseBlock, TurnId,
};
pub(crate) use crate::model::read::object;
use crate::model::read::{expected, field, kind, missing, nth, tool_result_content};
use crate::text::json_string;

/// A conversation format this module reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Anthropic Messages API: `{ system?, messages }` (or the bare `messages` array).
    Anthropic,
    /// OpenAI Chat Completions: an array of `system`/`user`/`assistant`/`tool` messages.
    OpenAi,
    /// OpenAI Responses API: an array of input items.
    OpenAiResponses,
    /// Vercel AI SDK v5: an array of `ModelMessage`s.
    VercelAi,
    /// This package's own model: an array of messages with `turn_id`.
    Model,
}

impl Format {
    /// Every format, in declaration order (which [`detect_format`] relies on).
    pub const ALL: [Format; 5] =
        [Format::Anthropic, Format::OpenAi, Format::OpenAiResponses, Format::VercelAi, Format::Model];

    /// The format's name: `"anthropic"`, `"openai"`, `"openai-responses"`, `"vercel-ai"` or `"model"`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Anthropic => "anthropic",
            Format::OpenAi => "openai",
            Format::OpenAiResponses => "openai-responses",
            Format::VercelAi => "vercel-ai",
            Format::Model => "model",
        }
    }

    /// The format with this [`name`](Format::name), if any.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// A conversation read from a provider format: the messages, and what the
/// model has no place for (the system prompt) kept aside.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported<S> {
    /// The system prompt: `Option<Value>` for Anthropic (kept exactly as given),
    /// `Vec<SystemMessage>` for the formats that carry it as messages.
    pub system: S,
    /// The conversation, with turn ids assigned by [`assign_turn_ids`].
    pub messages: Vec<Message>,
}

/// A system or developer message kept aside, and where it was.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SystemMessage {
    /// How many model messages came before it. When writing back, it is placed
    /// before the model message with this index, or at the end when the
    /// conversation has become shorter (e.g. after compaction).
    pub position: usize,
    /// The provider message, verbatim.
    pub message: Value,
}

/// Reads the `system` array returned by the `from_*` functions
/// (`[{ position, message }]`); `path` names it in errors.
pub fn parse_system(value: &Value, path: &str) -> Result<Vec<SystemMessage>, InputError> {
    let Value::Array(items) = value else {
        return Err(InputError::new(path, "expected the `system` array returned by the from… function"));
    };
    let mut system = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        match (item.get("position").and_then(Value::as_u64), item.get("message")) {
            (Some(position), Some(message)) => {
                system.push(SystemMessage { position: position as usize, message: message.clone() })
            }
            _ => return Err(InputError::new(nth(path, i), "expected { position, message }")),
        }
    }
    Ok(system)
}

/// Assigns turn ids by the step rule ([`StepRule`]): a user message with any
/// content other than tool results starts user turn `u<k>`, each assistant
/// message starts assistant turn `a<k>` (k = 1, 2, … for each owner), and the
/// messages that answer its tool calls join it: a tool call and its result
/// share a turn, and a tool loop is a turn per model step.
pub fn assign_turn_ids(messages: &mut [Message]) {
    StepRule::default().assign_all(messages);
}

/// Recognises the format of a pasted conversation. Returns `None` when the value
/// fits none of the formats, or when it fits several equally well (e.g. plain
/// `{ role, content: "…" }` messages, valid in every format).
pub fn detect_format(value: &Value) -> Option<Format> {
    let items = match value {
        Value::Object(obj) => {
            let messages = obj.get("messages")?.as_array()?;
            let roles_fit =
                messages.iter().all(|m| matches!(m.get("role").and_then(Value::as_str), Some("user" | "assistant")));
            return (roles_fit && evidence(messages) & !bit(Format::Anthropic) == 0).then_some(Format::Anthropic);
        }
        Value::Array(items) => items,
        _ => return None,
    };
    if !items.is_empty() && items.iter().all(|m| m.get("turn_id").is_some()) {
        return Some(Format::Model);
    }
    match evidence(items) {
        // `ALL` is in declaration order: bit i is `ALL[i]`.
        found if found.is_power_of_two() => Some(Format::ALL[found.trailing_zeros() as usize]),
        // Plain `{ role, content }` messages read the same in every array format:
        // call them Chat Completions, the most common.
        0 if !items.is_empty() && items.iter().all(is_plain_chat_message) => Some(Format::OpenAi),
        _ => None,
    }
}

fn is_plain_chat_message(item: &Value) -> bool {
    matches!(item.get("role").and_then(Value::as_str), Some("system" | "developer" | "user" | "assistant"))
        && item.get("content").is_some_and(|c| c.is_string() || c.is_array())
}

/// `format` as a bit of a set of formats.
fn bit(format: Format) -> u8 {
    1 << format as u8
}

/// The formats that some feature of `items` belongs to, as a set of [`bit`]s.
fn evidence(items: &[Value]) -> u8 {
    let mut found = 0;
    let mut add = |f: Format| found |= bit(f);
    for item in items {
        let Some(obj) = item.as_object() else { continue };
        let role = obj.get("role").and_then(Value::as_str);
        match obj.get("type").and_then(Value::as_str) {
            Some("message" | "function_call" | "function_call_output" | "reasoning") => add(Format::OpenAiResponses),
            Some(_) if role.is_none() => add(Format::OpenAiResponses),
            _ => {}
        }
        if obj.contains_key("tool_calls") || obj.contains_key("tool_call_id") || role == Some("function") {
            add(Format::OpenAi);
        }
        if role == Some("tool") && obj.get("content").is_some_and(Value::is_array) && !obj.contains_key("tool_call_id")
        {
            add(Format::VercelAi);
        }
        let parts = obj.get("content").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        for part in parts {
            match part.get("type").and_then(Value::as_str) {
                Some("tool_use" | "tool_result" | "thinking" | "redacted_thinking" | "document") => {
                    add(Format::Anthropic)
                }
                Some("image") if part.get("source").is_some() => add(Format::Anthropic),
                Some("image_url" | "input_audio" | "refusal") => add(Format::OpenAi),
                Some("input_text" | "output_text" | "input_image" | "input_file") => add(Format::OpenAiResponses),
                Some("tool-call" | "tool-result" | "reasoning" | "file") => add(Format::VercelAi),
                Some("image") if part.get("image").is_some() => add(Format::VercelAi),
                _ => {}
            }
        }
    }
    found
}

// ---------------------------------------------------------------------------
// Shared reading and writing helpers (crate-private).

/// Prefix of a provider field kept under another name because the model uses its name.
const PROVIDER_PREFIX: &str = "provider_";
/// A provider message `id`, as [`rest`] keeps it.
const PROVIDER_ID: &str = "provider_id";
/// Message fields the model itself uses.
pub(crate) const MESSAGE_RESERVED: &[&str] =
    &["role", "id", "session_id", "turn_id", "created_at", "content", "summary_of"];
/// Block fields the model itself uses.
pub(crate) const BLOCK_RESERVED: &[&str] =
    &["type", "text", "id", "name", "input", "tool_use_id", "content", "is_error", "compact_summary"];
/// `extra` key recording how a message's `content` was written.
const CONTENT_FORMAT: &str = "content_format";
/// `extra` key keeping a tool call's original arguments string (see the formats using it).
pub(crate) const RAW_ARGUMENTS: &str = "raw_arguments";
/// `extra` key keeping a tool result's original output value (see the formats using it).
pub(crate) const RAW_OUTPUT: &str = "raw_output";
/// `extra` key naming the format whose shapes a message's blocks have (see [`portable`]).
pub(crate) const SOURCE_FORMAT: &str = "source_format";
/// Bookkeeping keys of `extra` that are never written to a provider format as fields.
const MARKERS: &[&str] = &[CONTENT_FORMAT, RAW_ARGUMENTS, RAW_OUTPUT, SOURCE_FORMAT];

/// Whether `extra` holds provider fields, not only bookkeeping markers.
pub(crate) fn has_fields(extra: &Map<String, Value>) -> bool {
    extra.keys().any(|k| !MARKERS.contains(&k.as_str()))
}

/// The bookkeeping markers of `extra`, without its provider fields.
pub(crate) fn markers(extra: &Map<String, Value>) -> Map<String, Value> {
    let mut kept = Map::new();
    for (key, value) in extra.iter().filter(|(k, _)| MARKERS.contains(&k.as_str())) {
        kept.insert(key.clone(), value.clone());
    }
    kept
}

/// `value` as an array, or an error naming `what` was expected.
pub(crate) fn array<'a>(value: &'a Value, path: &str, what: &str) -> Result<&'a Vec<Value>, InputError> {
    value.as_array().ok_or_else(|| expected(path, what, kind(value)))
}

/// The required field `key` of `obj` (at `path`).
pub(crate) fn required<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a Value, InputError> {
    obj.get(key).ok_or_else(|| missing(path, key))
}

/// The required string field `key` of `obj` (at `path`).
pub(crate) fn required_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str, InputError> {
    let value = required(obj, key, path)?;
    value.as_str().ok_or_else(|| expected(&field(path, key), "a string", kind(value)))
}

/// [`required`], taken out of `obj` (`null` is left in its place).
pub(crate) fn take_required(obj: &mut Map<String, Value>, key: &str, path: &str) -> Result<Value, InputError> {
    obj.get_mut(key).map(std::mem::take).ok_or_else(|| missing(path, key))
}

/// [`required_str`], taken out of `obj` (an empty string is left in its place).
pub(crate) fn take_str(obj: &mut Map<String, Value>, key: &str, path: &str) -> Result<String, InputError> {
    match obj.get_mut(key) {
        Some(Value::String(s)) => Ok(std::mem::take(s)),
        Some(other) => Err(expected(&field(path, key), "a string", kind(other))),
        None => Err(missing(path, key)),
    }
}

/// `value` as a mutable object, or an error naming `what` was expected.
pub(crate) fn object_mut<'a>(
    value: &'a mut Value,
    path: &str,
    what: &str,
) -> Result<&'a mut Map<String, Value>, InputError> {
    match value {
        Value::Object(obj) => Ok(obj),
        other => Err(expected(path, what, kind(other))),
    }
}

/// The fields of `obj` not in `consumed`, those named in `reserved` renamed `provider_<name>`.
pub(crate) fn rest(obj: &Map<String, Value>, consumed: &[&str], reserved: &[&str]) -> Map<String, Value> {
    // Inserted one by one: `collect` would instantiate a sort for each call site.
    let mut rest = Map::new();
    for (k, v) in obj.iter().filter(|(k, _)| !consumed.contains(&k.as_str())) {
        rest.insert(kept_name(k, reserved), v.clone());
    }
    rest
}

/// The name [`rest`] keeps a provider field `key` under: `provider_<key>` for a name in `reserved`.
pub(crate) fn kept_name(key: &str, reserved: &[&str]) -> String {
    match reserved.contains(&key) {
        true => PROVIDER_PREFIX.to_owned() + key,
        false => key.to_owned(),
    }
}

/// The inverse of [`rest`]: the provider fields of `extra`, renamed back, without
/// bookkeeping markers nor the keys in `skip`.
pub(crate) fn restore(extra: &Map<String, Value>, reserved: &[&str], skip: &[&str]) -> Map<String, Value> {
    let mut fields = Map::new();
    for (key, value) in restored(extra, reserved, skip) {
        fields.insert(key.to_owned(), value.clone());
    }
    fields
}

/// [`restore`]'s fields, borrowed, in order; a field renamed to a name in
/// `skip` is left out too.
pub(crate) fn restored<'a>(
    extra: &'a Map<String, Value>,
    reserved: &'a [&str],
    skip: &'a [&str],
) -> impl Iterator<Item = (&'a str, &'a Value)> {
    extra.iter().filter(|(k, _)| !MARKERS.contains(&k.as_str())).filter_map(move |(k, v)| {
        let key = k.strip_prefix(PROVIDER_PREFIX).filter(|name| reserved.contains(name)).unwrap_or(k);
        (!skip.contains(&k.as_str()) && !skip.contains(&key)).then_some((key, v))
    })
}

/// Sets field `key` of `map` to `value`.
pub(crate) fn put(map: &mut Map<String, Value>, key: &str, value: Value) {
    map.insert(key.to_owned(), value);
}

/// Sets field `key` of `map` to the string `value`.
pub(crate) fn put_str(map: &mut Map<String, Value>, key: &str, value: &str) {
    put(map, key, Value::String(value.to_owned()));
}

/// A model message (turn id assigned later by [`assign_turn_ids`]). A provider
/// `id` kept in `extra` (as `provider_id`) becomes the message id when it is a string.
pub(crate) fn new_message(role: Role, content: Vec<ContentBlock>, extra: Map<String, Value>) -> Message {
    let provider_id = extra.get(PROVIDER_ID).and_then(Value::as_str).map(str::to_owned);
    Message {
        role,
        id: provider_id.unwrap_or_else(new_message_id),
        session_id: 0,
        turn_id: TurnId::new("u", 0),
        created_at: now_rfc3339(),
        content,
        summary_of: None,
        extra,
    }
}

/// How a message's `content` was written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentForm {
    /// A string.
    String,
    /// An array of parts.
    Parts,
    /// `null`.
    Null,
    /// No `content` field.
    Absent,
}

impl ContentForm {
    fn name(self) -> &'static str {
        match self {
            ContentForm::String => "string",
            ContentForm::Parts => "parts",
            ContentForm::Null => "null",
            ContentForm::Absent => "absent",
        }
    }

    fn from_name(name: &str) -> Option<Self> {
        [ContentForm::String, ContentForm::Parts, ContentForm::Null, ContentForm::Absent]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// What a reader of a part gets: the part, to take what it keeps out of (the
/// input is read once, so its strings are moved into the model, not copied), and
/// its path.
pub(crate) type PartReader<'a> = dyn FnMut(&mut Value, &str) -> Result<ContentBlock, InputError> + 'a;

/// Reads a message's `content` (a string, an array of parts, `null` or absent)
/// into blocks, with `part` reading each array element; what it keeps is taken
/// out of `value`. An empty string gives no blocks. The caller decides whether
/// `null`/absent are allowed. `part` is `dyn`: one copy of this function serves
/// every format.
pub(crate) fn read_content(
    value: Option<&mut Value>,
    path: &str,
    part: &mut PartReader,
) -> Result<(Vec<ContentBlock>, ContentForm), InputError> {
    match value {
        None => Ok((Vec::new(), ContentForm::Absent)),
        Some(Value::Null) => Ok((Vec::new(), ContentForm::Null)),
        Some(Value::String(s)) if s.is_empty() => Ok((Vec::new(), ContentForm::String)),
        Some(Value::String(s)) => Ok((vec![text_block(std::mem::take(s))], ContentForm::String)),
        Some(Value::Array(parts)) => {
            let mut blocks = Vec::with_capacity(parts.len());
            for (i, p) in parts.iter_mut().enumerate() {
                blocks.push(part(p, &nth(path, i))?);
            }
            Ok((blocks, ContentForm::Parts))
        }
        Some(other) => Err(expected(path, "a string or an array of content parts", kind(other))),
    }
}

/// A message of `role` whose required `content` is a string or an array of
/// parts, each read by `part`; `what` names that content in the error for `null`.
/// Its other fields are kept in `extra`, with how `content` was written.
pub(crate) fn read_content_message(
    obj: &mut Map<String, Value>,
    role: Role,
    path: &str,
    what: &str,
    part: &mut PartReader,
) -> Result<Message, InputError> {
    let content_path = field(path, "content");
    let content = obj.get_mut("content").ok_or_else(|| missing(path, "content"))?;
    if content.is_null() {
        return Err(expected(&content_path, what, "null"));
    }
    let (blocks, form) = read_content(Some(content), &content_path, part)?;
    let mut extra = rest(obj, &["role", "content"], MESSAGE_RESERVED);
    record_form(&mut extra, form, ContentForm::Parts);
    Ok(new_message(role, blocks, extra))
}

/// A text part `{ type, text }` as a text block (the text taken out of `obj`),
/// its other fields kept in `extra`.
pub(crate) fn read_text_part(obj: &mut Map<String, Value>, path: &str) -> Result<ContentBlock, InputError> {
    let text = take_str(obj, "text", path)?;
    Ok(ContentBlock::Text(TextBlock { text, extra: rest(obj, &["type", "text"], &[]) }))
}

/// A text block written as a part `{ type: ty, text }`, with its `extra` fields.
pub(crate) fn write_text_part(block: &TextBlock, ty: &str) -> Map<String, Value> {
    let mut part = restore(&block.extra, &[], &[]);
    put_str(&mut part, "type", ty);
    put_str(&mut part, "text", &block.text);
    part
}

/// A text block without extra fields.
pub(crate) fn text_block(text: String) -> ContentBlock {
    ContentBlock::Text(TextBlock { text, extra: Map::new() })
}

/// Records `form` in `extra` when it is not what the writer would choose (`default`).
pub(crate) fn record_form(extra: &mut Map<String, Value>, form: ContentForm, default: ContentForm) {
    if form != default {
        put_str(extra, CONTENT_FORMAT, form.name());
    }
}

/// The form recorded by [`record_form`], if any.
pub(crate) fn recorded_form(extra: &Map<String, Value>) -> Option<ContentForm> {
    extra.get(CONTENT_FORMAT).and_then(Value::as_str).and_then(ContentForm::from_name)
}

/// The text of `blocks` when they can be written as a string: none (`""`) or one
/// text block without extra fields.
pub(crate) fn plain_text<B: std::borrow::Borrow<ContentBlock>>(blocks: &[B]) -> Option<&str> {
    match blocks {
        [] => Some(""),
        [block] => match block.borrow() {
            ContentBlock::Text(t) if t.extra.is_empty() => Some(&t.text),
            _ => None,
        },
        _ => None,
    }
}

/// Writes `blocks` as a `content` value in `form`, falling back to an array of
/// parts (each written by `part`) when the form cannot hold them. `None` means
/// the field is absent. `part` is `dyn`: one copy serves every format.
pub(crate) fn write_content(
    form: ContentForm,
    blocks: &[&ContentBlock],
    part: &dyn Fn(&ContentBlock) -> Value,
) -> Option<Value> {
    match (form, plain_text(blocks)) {
        (ContentForm::String, Some(text)) => Some(Value::String(text.to_owned())),
        (ContentForm::Null, _) if blocks.is_empty() => Some(Value::Null),
        (ContentForm::Absent, _) if blocks.is_empty() => None,
        _ => Some(write_parts(blocks, part)),
    }
}

/// `blocks` as an array of parts, each written by `part`.
pub(crate) fn write_parts(blocks: &[&ContentBlock], part: &dyn Fn(&ContentBlock) -> Value) -> Value {
    Value::Array(blocks.iter().map(|block| part(block)).collect())
}

/// A message object with `blocks` as its `content`, in the recorded form (parts
/// by default; `[]` rather than no field), each part written by `part`; the
/// message's own fields are restored when `fields`.
pub(crate) fn write_parts_message(
    message: &Message,
    blocks: &[&ContentBlock],
    part: &dyn Fn(&ContentBlock) -> Value,
    fields: bool,
) -> Value {
    let mut out = if fields { restore(&message.extra, MESSAGE_RESERVED, &[]) } else { Map::new() };
    put_str(&mut out, "role", message.role.as_str());
    let form = recorded_form(&message.extra).unwrap_or(ContentForm::Parts);
    put(&mut out, "content", write_content(form, blocks, part).unwrap_or(Value::Array(Vec::new())));
    Value::Object(out)
}

/// Writes `messages`, each by `emit` (given its index), with the system messages at
/// their positions, each as `format` takes it ([`system_message_for`]).
pub(crate) fn interleave_system<'a>(
    messages: &'a [Message],
    system: &[SystemMessage],
    format: Format,
    emit: &mut dyn FnMut(usize, &'a Message, &mut Vec<Value>),
) -> Value {
    Value::Array(interleave_system_as(messages, system, format, |message| message, emit))
}

/// [`interleave_system`] into items of any type, a system message made one by `item`.
pub(crate) fn interleave_system_as<'a, T>(
    messages: &'a [Message],
    system: &[SystemMessage],
    format: Format,
    item: impl Fn(Value) -> T,
    emit: &mut dyn FnMut(usize, &'a Message, &mut Vec<T>),
) -> Vec<T> {
    let mut out = Vec::with_capacity(messages.len() + system.len());
    let system_item = |s: &SystemMessage| item(system_message_for(format, &s.message));
    for (i, message) in messages.iter().enumerate() {
        out.extend(system.iter().filter(|s| s.position == i).map(system_item));
        emit(i, message, &mut out);
    }
    out.extend(system.iter().filter(|s| s.position >= messages.len()).map(system_item));
    out
}

/// A system or developer message as `format` (Chat Completions, the Responses API or
/// the AI SDK) takes it: verbatim when it has that format's shape (read from that
/// format), else `{ role, content }` with its text, the parts that are not text left
/// out, and `developer` written as `system` where the format has no such role.
pub(crate) fn system_message_for(format: Format, message: &Value) -> Value {
    let Some(obj) = message.as_object() else { return message.clone() };
    let role = obj.get("role").and_then(Value::as_str).unwrap_or("system");
    let content = obj.get("content");
    let parts = content.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let parts_are = |text_type: &str| parts.iter().all(|p| p.get("type").and_then(Value::as_str) == Some(text_type));
    let fields_are = |allowed: &[&str]| obj.keys().all(|k| allowed.contains(&k.as_str()));
    let text_content = content.is_some_and(Value::is_string);
    let fits = match format {
        Format::OpenAi => {
            matches!(role, "system" | "developer")
                && (text_content || content.is_some_and(Value::is_array) && parts_are("text"))
                && fields_are(&["role", "content", "name"])
        }
        Format::OpenAiResponses => {
            matches!(role, "system" | "developer")
                && (text_content || content.is_some_and(Value::is_array) && parts_are("input_text"))
                && obj.get("type").is_none_or(|t| t == "message")
                && fields_are(&["type", "role", "content", "id", "status"])
        }
        _ => role == "system" && text_content && fields_are(&["role", "content", "providerOptions"]),
    };
    if fits {
        return message.clone();
    }
    let text = match content {
        Some(Value::String(text)) => text.clone(),
        _ => {
            let texts: Vec<&str> = parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
            texts.join("\n")
        }
    };
    let role = if format == Format::VercelAi { "system" } else { role };
    let mut out = Map::new();
    put_str(&mut out, "role", if matches!(role, "system" | "developer") { role } else { "system" });
    put_str(&mut out, "content", &text);
    Value::Object(out)
}

/// The key of the object a tool call's arguments become when they are not JSON.
const RAW_INPUT_KEY: &str = "_raw";

/// Reads a JSON-encoded arguments string: the parsed value, and the raw string
/// to keep when the value would not give it back: when re-encoding it gives
/// other text (spacing, key order), when it holds a number JavaScript cannot
/// write back as it was (anything but an integer within ±(2^53 − 1): JS reads
/// `9007199254740993` as `9007199254740992` and `1.0` as `1`), or when it is
/// itself `{ "_raw": string }`. Arguments that are not JSON at all become
/// `{ "_raw": the string }`, an object every format takes as a tool input,
/// which [`encode_arguments`] writes back as the string.
pub(crate) fn decode_arguments(raw: &str) -> (Value, Option<String>) {
    match serde_json::from_str::<Value>(raw) {
        Ok(value) if safe_integers_only(&value) && raw_input(&value).is_none() && json_string(&value) == raw => {
            (value, None)
        }
        Ok(value) => (value, Some(raw.to_owned())),
        Err(_) => {
            let mut input = Map::new();
            put_str(&mut input, RAW_INPUT_KEY, raw);
            (Value::Object(input), None)
        }
    }
}

/// The string of an input that is exactly `{ "_raw": string }`.
fn raw_input(input: &Value) -> Option<&str> {
    match input.as_object() {
        Some(map) if map.len() == 1 => map.get(RAW_INPUT_KEY)?.as_str(),
        _ => None,
    }
}

/// Whether every number in `value` is an integer JavaScript holds exactly.
fn safe_integers_only(value: &Value) -> bool {
    match value {
        Value::Number(n) => {
            n.as_i64().is_some_and(|n| n.unsigned_abs() <= crate::model::read::MAX_SAFE_INTEGER.unsigned_abs())
        }
        Value::Array(items) => items.iter().all(safe_integers_only),
        Value::Object(map) => map.iter().all(|(_, v)| safe_integers_only(v)),
        _ => true,
    }
}

/// Whether `a` and `b` are the same once JavaScript has read them: numbers
/// compare as doubles. An `input` that went through JS (`messages()`, then
/// back) thus still matches the arguments it was read from.
fn same_in_js(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_in_js(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same_in_js(v, w)))
        }
        _ => a == b,
    }
}

/// A `tool_use` block from a call's JSON-encoded `arguments`, keeping the raw
/// string in `extra` when the input would not give it back ([`decode_arguments`]).
pub(crate) fn tool_use_from_arguments(
    id: &str,
    name: &str,
    arguments: &str,
    mut extra: Map<String, Value>,
) -> ContentBlock {
    let (input, raw) = decode_arguments(arguments);
    if let Some(raw) = raw {
        put(&mut extra, RAW_ARGUMENTS, Value::String(raw));
    }
    ContentBlock::ToolUse(ToolUseBlock { id: id.to_owned(), name: name.to_owned(), input, extra })
}

/// A `tool_result` block from the tool message or item `obj`: the call id in
/// field `id_key`, the content in `content_key`, the fields not in `consumed` kept.
pub(crate) fn read_tool_result(
    obj: &mut Map<String, Value>,
    path: &str,
    id_key: &str,
    content_key: &str,
    consumed: &[&str],
) -> Result<ContentBlock, InputError> {
    let tool_use_id = required_str(obj, id_key, path)?.to_owned();
    let content = tool_result_content(take_required(obj, content_key, path)?, || field(path, content_key))?;
    Ok(ContentBlock::ToolResult(ToolResultBlock {
        tool_use_id,
        content,
        is_error: false,
        compact_summary: None,
        extra: rest(obj, consumed, BLOCK_RESERVED),
    }))
}

/// The kept `raw_arguments` and the value they read as, while that value is
/// still `input` as JavaScript sees it (see [`same_in_js`]).
fn kept_arguments<'a>(input: &Value, extra: &'a Map<String, Value>) -> Option<(&'a str, Value)> {
    let raw = extra.get(RAW_ARGUMENTS)?.as_str()?;
    let (value, _) = decode_arguments(raw);
    same_in_js(&value, input).then_some((raw, value))
}

/// Writes a tool call's input as an arguments string: the kept raw string when
/// it still reads as `input`, else the string of an input `{ "_raw": string }`
/// (arguments that were not JSON), else `input` encoded as JSON.
pub(crate) fn encode_arguments(input: &Value, extra: &Map<String, Value>) -> String {
    match kept_arguments(input, extra) {
        Some((raw, _)) => raw.to_owned(),
        None => raw_input(input).map_or_else(|| json_string(input), str::to_owned),
    }
}

/// A tool call's input for the formats that carry it as a JSON value: the kept
/// arguments' value while it still reads as `input` (so that numbers JavaScript
/// rounded are written as the provider sent them), else `input`.
pub(crate) fn original_input<'a>(input: &'a Value, extra: &Map<String, Value>) -> Cow<'a, Value> {
    kept_arguments(input, extra).map_or(Cow::Borrowed(input), |(_, value)| Cow::Owned(value))
}

#[cfg(test)]
#[path = "../../tests/common/transcript_files.rs"]
mod transcript_files;

/// The shared transcripts (`../shared/conversations`) whose file names end with `suffix`,
/// in file name order: the real conversations the formats' unit tests read.
#[cfg(test)]
pub(crate) fn shared_transcripts(suffix: &str) -> Vec<Value> {
    let read = |p: &std::path::PathBuf| std::fs::read_to_string(p).expect("readable");
    transcript_files::transcript_files(suffix).iter().map(|p| serde_json::from_str(&read(p)).expect("JSON")).collect()
}
