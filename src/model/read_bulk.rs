//! A bulk reader for whole arrays of messages as JSON text, straight into the
//! model with serde, for `pushMany` and the other functions that take arrays.
//!
//! Budget `pushMany` ≤ 2.5× `JSON.stringify`: reading the text into a `Value`
//! first, then through [`read`](super::read), took 2.7× (1,000 turns, 6.4 MB):
//! every key of every object became a `String` in a `BTreeMap`.
//!
//! It accepts exactly what [`read`](super::read) accepts and gives the same
//! messages; for anything else (a mistake, nesting beyond the limit) it gives
//! `None`, and the caller reads the text with [`read`](super::read), which names
//! the field at fault.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::message::{
    is_rfc3339, new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock,
    ToolResultContent, ToolUseBlock, TurnId,
};
use super::read::{MAX_MESSAGE_NESTING, MAX_SAFE_INTEGER};

/// The messages of a JSON array, each with whether it has a `turn_id`; `None`
/// when the text is not an array of valid messages.
pub fn read_messages(bytes: &[u8]) -> Option<Vec<(Message, bool)>> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let messages = de.deserialize_seq(Messages).ok()?;
    de.end().ok()?;
    Some(messages)
}

/// One message as JSON text, as [`read_messages`] reads an array of one.
pub fn read_message(bytes: &[u8]) -> Option<(Message, bool)> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let message = de.deserialize_map(MessageVisitor).ok()?;
    de.end().ok()?;
    Some(message)
}

struct Messages;

impl<'de> Visitor<'de> for Messages {
    type Value = Vec<(Message, bool)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(message) = seq.next_element_seed(MessageSeed)? {
            out.push(message);
        }
        Ok(out)
    }
}

struct MessageSeed;

impl<'de> DeserializeSeed<'de> for MessageSeed {
    type Value = (Message, bool);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(MessageVisitor)
    }
}

struct MessageVisitor;

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = (Message, bool);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut role, mut id, mut session_id, mut turn_id, mut created_at, mut content) =
            (None, None, None, None, None, None);
        let mut summary_of = None;
        let mut extra = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "role" => {
                    role = Some(match map.next_value::<Value>()?.as_str() {
                        Some("user") => Role::User,
                        Some("assistant") => Role::Assistant,
                        _ => return Err(A::Error::custom("role")),
                    })
                }
                "id" => id = Some(map.next_value::<String>()?),
                "session_id" => session_id = Some(map.next_value::<i64>()?),
                "turn_id" => turn_id = Some(map.next_value_seed(TurnIdSeed)?),
                "created_at" => {
                    let s = map.next_value::<String>()?;
                    if !is_rfc3339(&s) {
                        return Err(A::Error::custom("created_at"));
                    }
                    created_at = Some(s);
                }
                "content" => content = Some(map.next_value_seed(BlocksSeed)?),
                "summary_of" => match map.next_value::<Value>()? {
                    // Kept among the unknown fields, as the reader does.
                    Value::Null => {
                        extra.insert(key, Value::Null);
                    }
                    value => {
                        let counts = summary_counts(&value).ok_or_else(|| A::Error::custom("summary_of"))?;
                        summary_of = Some((counts, nesting(&value)));
                    }
                },
                _ => {
                    let value = map.next_value::<Value>()?;
                    extra.insert(key, value);
                }
            }
        }
        let (Some(role), Some((content, content_depth))) = (role, content) else {
            return Err(A::Error::custom("missing"));
        };
        // The message's own object, then what its fields nest.
        let summary_depth = summary_of.map_or(0, |(_, depth)| depth);
        let depth = 1 + extra.values().map(nesting).max().unwrap_or(0).max(content_depth).max(summary_depth);
        if depth > MAX_MESSAGE_NESTING {
            return Err(A::Error::custom("nesting"));
        }
        let has_turn_id = turn_id.is_some();
        let message = Message {
            role,
            id: id.unwrap_or_else(new_message_id),
            session_id: session_id.unwrap_or(0),
            turn_id: turn_id.unwrap_or_default(),
            created_at: created_at.unwrap_or_else(now_rfc3339),
            content,
            summary_of: summary_of.map(|(counts, _)| counts),
            extra,
        };
        Ok((message, has_turn_id))
    }
}

/// `{ messages, turns }`: counts from 0 to `Number.MAX_SAFE_INTEGER`.
fn summary_counts(value: &Value) -> Option<SummaryOf> {
    let count = |name| {
        let n = value.get(name)?.as_i64()?;
        usize::try_from(n).ok().filter(|_| n <= MAX_SAFE_INTEGER)
    };
    Some(SummaryOf { messages: count("messages")?, turns: count("turns")? })
}

struct TurnIdSeed;

impl<'de> DeserializeSeed<'de> for TurnIdSeed {
    type Value = TurnId;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<TurnId, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TurnIdSeed {
    type Value = TurnId;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a turn id { owner, number }")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TurnId, A::Error> {
        let (mut owner, mut number) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "owner" => owner = Some(map.next_value::<String>()?),
                "number" => number = Some(map.next_value::<i64>()?),
                // The reader drops them, but counts how deep they nest: left to it.
                _ => return Err(A::Error::custom("turn_id")),
            }
        }
        match (owner, number) {
            (Some(owner), Some(number)) => Ok(TurnId { owner, number }),
            _ => Err(A::Error::custom("turn_id")),
        }
    }
}

/// A message's `content`, and how deep its blocks nest (the array included).
struct BlocksSeed;

impl<'de> DeserializeSeed<'de> for BlocksSeed {
    type Value = (Vec<ContentBlock>, usize);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BlocksSeed {
    type Value = (Vec<ContentBlock>, usize);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of content blocks")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut depth = 0;
        while let Some(fields) = seq.next_element::<BlockFields>()? {
            depth = depth.max(fields.nesting());
            blocks.push(fields.into_block().ok_or_else(|| A::Error::custom("block"))?);
        }
        Ok((blocks, 1 + depth))
    }
}

/// A block's fields as they came, before its `type` says what they mean.
#[derive(Default)]
struct BlockFields {
    kind: Option<Value>,
    text: Option<Value>,
    id: Option<Value>,
    name: Option<Value>,
    input: Option<Value>,
    tool_use_id: Option<Value>,
    content: Option<Value>,
    is_error: Option<Value>,
    compact_summary: Option<Value>,
    extra: Map<String, Value>,
}

impl<'de> serde::Deserialize<'de> for BlockFields {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(BlockVisitor)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = BlockFields;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a content block object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BlockFields, A::Error> {
        let mut b = BlockFields::default();
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "type" => &mut b.kind,
                "text" => &mut b.text,
                "id" => &mut b.id,
                "name" => &mut b.name,
                "input" => &mut b.input,
                "tool_use_id" => &mut b.tool_use_id,
                "content" => &mut b.content,
                "is_error" => &mut b.is_error,
                "compact_summary" => &mut b.compact_summary,
                _ => {
                    let value = map.next_value::<Value>()?;
                    b.extra.insert(key, value);
                    continue;
                }
            };
            *slot = Some(map.next_value::<Value>()?);
        }
        Ok(b)
    }
}

impl BlockFields {
    /// How deep the block nests, its own object included.
    fn nesting(&self) -> usize {
        let fields = [&self.kind, &self.text, &self.id, &self.name, &self.input, &self.tool_use_id, &self.content];
        let known = fields.into_iter().chain([&self.is_error, &self.compact_summary]).flatten().map(nesting);
        1 + known.chain(self.extra.values().map(nesting)).max().unwrap_or(0)
    }

    /// The block its fields make, as the reader makes it; `None` for a mistake.
    /// A known block's fields that are not its own stay among its unknown ones.
    fn into_block(mut self) -> Option<ContentBlock> {
        let kind = match &self.kind {
            Some(Value::String(kind)) => kind.clone(),
            _ => return None,
        };
        let string = |v: Option<Value>| match v {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        Some(match kind.as_str() {
            "text" => {
                let text = string(self.text.take())?;
                ContentBlock::Text(TextBlock { text, extra: self.into_map_without_type() })
            }
            "tool_use" => {
                let (id, name) = (string(self.id.take())?, string(self.name.take())?);
                let input = self.input.take()?;
                ContentBlock::ToolUse(ToolUseBlock { id, name, input, extra: self.into_map_without_type() })
            }
            "tool_result" => {
                let tool_use_id = string(self.tool_use_id.take())?;
                let content = match self.content.take()? {
                    Value::String(s) => ToolResultContent::Text(s),
                    Value::Array(items) => {
                        let mut blocks = Vec::with_capacity(items.len());
                        for item in items {
                            match item {
                                Value::Object(obj) => blocks.push(ContentBlock::nested(obj)),
                                _ => return None,
                            }
                        }
                        ToolResultContent::Blocks(blocks)
                    }
                    _ => return None,
                };
                let is_error = match self.is_error.take() {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => b,
                    Some(_) => return None,
                };
                let compact_summary = match self.compact_summary.take() {
                    None | Some(Value::Null) => None,
                    Some(Value::String(s)) => Some(s),
                    Some(_) => return None,
                };
                let extra = self.into_map_without_type();
                ContentBlock::ToolResult(ToolResultBlock { tool_use_id, content, is_error, compact_summary, extra })
            }
            _ => ContentBlock::Other(self.into_map()),
        })
    }

    /// [`BlockFields::into_map`] less `type`.
    fn into_map_without_type(mut self) -> Map<String, Value> {
        self.kind = None;
        self.into_map()
    }

    /// Every field back in one map, for a block kept verbatim.
    fn into_map(self) -> Map<String, Value> {
        let mut map = self.extra;
        let named = [
            ("type", self.kind),
            ("text", self.text),
            ("id", self.id),
            ("name", self.name),
            ("input", self.input),
            ("tool_use_id", self.tool_use_id),
            ("content", self.content),
            ("is_error", self.is_error),
            ("compact_summary", self.compact_summary),
        ];
        for (key, value) in named {
            if let Some(value) = value {
                map.insert(key.to_owned(), value);
            }
        }
        map
    }
}

/// How deep `value` nests arrays and objects, its own included (0 for a scalar).
fn nesting(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}
