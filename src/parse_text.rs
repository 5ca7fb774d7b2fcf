//! Messages read straight from JSON text, the fast path of
//! [`parse_messages_text`](crate::parse::parse_messages_text): the fields the
//! model knows go into it without a `serde_json::Value` tree in between.
//!
//! It answers only when its answer is the one the `Value` path (`parse.rs`)
//! gives. A message or block it does not read the usual way (escaped keys, the
//! type after other fields, an unknown block type) is read through a `Value`
//! and `parse.rs` on its own; a mistake anywhere makes it give up, and the
//! caller runs the `Value` path on the whole text, which names the mistake
//! exactly as before.

use serde_json::{Map, Value};

use crate::json_reader::Reader;
use crate::message::{
    new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock, ToolResultContent,
    ToolUseBlock, TurnId,
};
use crate::parse::{nested_blocks, parse_block_owned, parse_message_owned};
use crate::time::is_rfc3339;

/// An array of messages, or `None` for the `Value` path to decide.
pub fn messages(text: &str) -> Option<Vec<Message>> {
    let mut r = Reader::new(text, MAX_DEPTH);
    let mut messages = Vec::new();
    r.items(|r| {
        messages.push(r.message()?);
        Some(())
    })?;
    r.end()?;
    Some(messages)
}

/// One message, or `None` for the `Value` path to decide.
pub fn message(text: &str) -> Option<Message> {
    let mut r = Reader::new(text, MAX_DEPTH);
    let message = r.message_at(0)?;
    r.end()?;
    Some(message)
}

/// A JSON value with `depth` containers around it (as in a message of an
/// array of messages), or `None` when the `Value` path would refuse its nesting.
pub fn value_at(text: &str, depth: usize) -> Option<Value> {
    let mut r = Reader::new(text, MAX_DEPTH);
    let value = r.value(depth)?;
    r.end()?;
    Some(value)
}

/// Nesting (arrays and objects around a value, plus its own) beyond which this
/// reader gives up, below the `Value` path's limit: the fast path need not
/// count exactly as it does.
const MAX_DEPTH: usize = 100;

/// Stores a field's value: the last one, when a field is written twice, as
/// serde_json's maps keep.
fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    *slot = Some(value);
    Some(())
}

impl<'a> Reader<'a> {
    /// An integer, as `Value::as_i64` reads it.
    fn integer(&mut self, depth: usize) -> Option<i64> {
        self.value(depth)?.as_i64()
    }

    /// A message of the top-level array.
    fn message(&mut self) -> Option<Message> {
        self.message_at(1)
    }

    /// A message with `depth` containers around it.
    fn message_at(&mut self, depth: usize) -> Option<Message> {
        let start = self.pos;
        if let Some(message) = self.message_fields(depth + 1) {
            return Some(message);
        }
        self.pos = start;
        parse_message_owned(self.value(depth)?, "").ok()
    }

    /// A message read field by field; `depth` counts its own braces.
    fn message_fields(&mut self, depth: usize) -> Option<Message> {
        let (mut role, mut id, mut session_id, mut turn_id, mut created_at, mut content, mut summary_of) =
            (None, None, None, None, None, None, None);
        let mut extra = Map::new();
        self.object(|r, key| match key {
            "role" => set(
                &mut role,
                match r.plain_string()? {
                    "user" => Role::User,
                    "assistant" => Role::Assistant,
                    _ => return None,
                },
            ),
            "id" => set(&mut id, r.string()?),
            "session_id" => set(&mut session_id, r.integer(depth)?),
            "turn_id" => set(&mut turn_id, r.turn_id(depth + 1)?),
            "created_at" => set(&mut created_at, r.string().filter(|s| is_rfc3339(s))?),
            "content" => set(&mut content, r.content(depth + 1)?),
            // A null `summary_of` is kept among the unknown fields.
            "summary_of" if matches!(r.peek(), Some(b'n')) => {
                r.value(depth)?.is_null().then_some(())?;
                set(&mut summary_of, None)
            }
            "summary_of" => set(&mut summary_of, Some(r.summary_of(depth + 1)?)),
            _ => {
                extra.insert(key.to_owned(), r.value(depth)?);
                Some(())
            }
        })?;
        let summary_of = match summary_of {
            Some(None) => {
                extra.insert("summary_of".to_owned(), Value::Null);
                None
            }
            s => s.flatten(),
        };
        Some(Message {
            role: role?,
            id: id.unwrap_or_else(new_message_id),
            session_id: session_id.unwrap_or(0),
            turn_id: turn_id?,
            created_at: created_at.unwrap_or_else(now_rfc3339),
            content: content?,
            summary_of,
            extra,
        })
    }

    /// `{ owner, number }`, other fields ignored as the `Value` path does.
    fn turn_id(&mut self, depth: usize) -> Option<TurnId> {
        let (mut owner, mut number) = (None, None);
        self.object(|r, key| match key {
            "owner" => set(&mut owner, r.string()?),
            "number" => set(&mut number, r.integer(depth)?),
            _ => r.value(depth).map(drop),
        })?;
        Some(TurnId { owner: owner?, number: number? })
    }

    /// `{ messages, turns }`, other fields ignored as the `Value` path does.
    fn summary_of(&mut self, depth: usize) -> Option<SummaryOf> {
        let (mut messages, mut turns) = (None, None);
        let count = |r: &mut Self| usize::try_from(r.integer(depth)?).ok();
        self.object(|r, key| match key {
            "messages" => set(&mut messages, count(r)?),
            "turns" => set(&mut turns, count(r)?),
            _ => r.value(depth).map(drop),
        })?;
        Some(SummaryOf { messages: messages?, turns: turns? })
    }

    /// A message's content blocks; `depth` counts the array's brackets.
    fn content(&mut self, depth: usize) -> Option<Vec<ContentBlock>> {
        let mut blocks = Vec::new();
        self.items(|r| {
            let start = r.pos;
            let block = match r.block_fields(depth + 1) {
                Some(block) => block,
                None => {
                    r.pos = start;
                    parse_block_owned(r.value(depth)?, "").ok()?
                }
            };
            blocks.push(block);
            Some(())
        })?;
        Some(blocks)
    }

    /// A text, tool_use or tool_result block whose first field is its type.
    fn block_fields(&mut self, depth: usize) -> Option<ContentBlock> {
        self.expect(b'{')?;
        if self.key()? != "type" {
            return None;
        }
        let ty = self.plain_string()?;
        let mut extra = Map::new();
        let mut unknown = |r: &mut Self, key: &str| {
            extra.insert(key.to_owned(), r.value(depth)?);
            Some(())
        };
        let block = match ty {
            "text" => {
                let mut text = None;
                self.more_fields(|r, key| match key {
                    "type" => None,
                    "text" => set(&mut text, r.string()?),
                    _ => unknown(r, key),
                })?;
                ContentBlock::Text(TextBlock { text: text?, extra })
            }
            "tool_use" => {
                let (mut id, mut name, mut input) = (None, None, None);
                self.more_fields(|r, key| match key {
                    "type" => None,
                    "id" => set(&mut id, r.string()?),
                    "name" => set(&mut name, r.string()?),
                    "input" => set(&mut input, r.value(depth)?),
                    _ => unknown(r, key),
                })?;
                ContentBlock::ToolUse(ToolUseBlock { id: id?, name: name?, input: input?, extra })
            }
            "tool_result" => {
                let (mut tool_use_id, mut content, mut is_error, mut compact_summary) = (None, None, None, None);
                self.more_fields(|r, key| match key {
                    "type" => None,
                    "tool_use_id" => set(&mut tool_use_id, r.string()?),
                    "content" if matches!(r.peek(), Some(b'"')) => {
                        set(&mut content, ToolResultContent::Text(r.string()?))
                    }
                    "content" => match r.value(depth)? {
                        Value::Array(blocks) => set(&mut content, nested_blocks(blocks).ok()?),
                        _ => None,
                    },
                    "is_error" => match r.value(depth)? {
                        Value::Null => set(&mut is_error, false),
                        Value::Bool(b) => set(&mut is_error, b),
                        _ => None,
                    },
                    "compact_summary" if matches!(r.peek(), Some(b'"')) => set(&mut compact_summary, Some(r.string()?)),
                    "compact_summary" => match r.value(depth)? {
                        Value::Null => set(&mut compact_summary, None),
                        _ => None,
                    },
                    _ => unknown(r, key),
                })?;
                ContentBlock::ToolResult(ToolResultBlock {
                    tool_use_id: tool_use_id?,
                    content: content?,
                    is_error: is_error.unwrap_or(false),
                    compact_summary: compact_summary.flatten(),
                    extra,
                })
            }
            _ => return None,
        };
        Some(block)
    }
}
