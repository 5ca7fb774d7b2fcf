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
//! the field at fault. Every value is read with `deserialize_any`, as a `Value`
//! reads it, and checked here: serde's typed readers would describe a mistake
//! themselves, which the caller does not need.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::message::{
    is_rfc3339, new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock,
    ToolResultContent, ToolUseBlock, TurnId,
};
use super::read::{MAX_MESSAGE_NESTING, MAX_SAFE_INTEGER};

/// The messages of a JSON array, each with whether it has a `turn_id`; `None`
/// when the text is not an array of valid messages.
pub fn read_messages(bytes: &[u8]) -> Option<Vec<(Message, bool)>> {
    read(bytes, Messages)
}

/// One message as JSON text, as [`read_messages`] reads an array of one.
pub fn read_message(bytes: &[u8]) -> Option<(Message, bool)> {
    read(bytes, MessageVisitor)
}

fn read<T>(bytes: &[u8], seed: impl for<'de> DeserializeSeed<'de, Value = T>) -> Option<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = seed.deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(value)
}

/// The error of every mistake: the caller reads the text again to name it.
fn mistake<E: de::Error>() -> E {
    E::custom("not a valid message")
}

/// Visitor methods for every kind of value but the ones a visitor takes: each a mistake.
macro_rules! mistakes {
    ($($method:ident($ty:ty)),*) => {
        $(fn $method<E: de::Error>(self, _: $ty) -> Result<Self::Value, E> {
            Err(mistake())
        })*
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Err(mistake())
        }
    };
}

/// `Visitor::expecting` for visitors whose message is never shown.
macro_rules! expecting {
    () => {
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a message")
        }
    };
}

struct Messages;

impl<'de> DeserializeSeed<'de> for Messages {
    type Value = Vec<(Message, bool)>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Messages {
    type Value = Vec<(Message, bool)>;
    expecting!();
    mistakes!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64), visit_str(&str));

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(mistake())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(message) = seq.next_element_seed(MessageVisitor)? {
            out.push(message);
        }
        Ok(out)
    }
}

/// A map key, borrowed from the text unless it has escapes: most keys are
/// field names matched and dropped, and allocating each was a tenth of the read.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;
    expecting!();
    mistakes!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64));

    fn visit_borrowed_str<E: de::Error>(self, key: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(key.to_owned()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(mistake())
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(mistake())
    }
}

struct MessageVisitor;

impl<'de> DeserializeSeed<'de> for MessageVisitor {
    type Value = (Message, bool);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MessageVisitor {
    type Value = (Message, bool);
    expecting!();
    mistakes!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64), visit_str(&str));

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(mistake())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut role, mut id, mut session_id, mut turn_id, mut created_at, mut content) =
            (None, None, None, None, None, None);
        let mut summary_of = None;
        let mut extra = Map::new();
        while let Some(key) = map.next_key_seed(Key)? {
            match &*key {
                "role" => {
                    role = Some(match map.next_value::<Value>()?.as_str() {
                        Some("user") => Role::User,
                        Some("assistant") => Role::Assistant,
                        _ => return Err(mistake()),
                    })
                }
                "id" => id = Some(string(map.next_value()?)?),
                "session_id" => session_id = Some(map.next_value::<Value>()?.as_i64().ok_or_else(mistake)?),
                "turn_id" => turn_id = Some(map.next_value_seed(TurnIdVisitor)?),
                "created_at" => {
                    let s = string(map.next_value()?)?;
                    if !is_rfc3339(&s) {
                        return Err(mistake());
                    }
                    created_at = Some(s);
                }
                "content" => content = Some(map.next_value_seed(Blocks)?),
                "summary_of" => match map.next_value::<Value>()? {
                    // Kept among the unknown fields, as the reader does.
                    Value::Null => {
                        extra.insert(key.into_owned(), Value::Null);
                    }
                    value => summary_of = Some((summary_counts(&value).ok_or_else(mistake)?, nesting(&value))),
                },
                _ => {
                    let value = map.next_value::<Value>()?;
                    extra.insert(key.into_owned(), value);
                }
            }
        }
        let (Some(role), Some((content, content_depth))) = (role, content) else { return Err(mistake()) };
        // The message's own object, then what its fields nest.
        let summary_depth = summary_of.map_or(0, |(_, depth)| depth);
        let fields_depth = extra.values().map(nesting).max().unwrap_or(0).max(content_depth).max(summary_depth);
        if 1 + fields_depth > MAX_MESSAGE_NESTING {
            return Err(mistake());
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

/// A string value, or a mistake.
fn string<E: de::Error>(value: Value) -> Result<String, E> {
    match value {
        Value::String(s) => Ok(s),
        _ => Err(mistake()),
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

struct TurnIdVisitor;

impl<'de> DeserializeSeed<'de> for TurnIdVisitor {
    type Value = TurnId;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<TurnId, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TurnIdVisitor {
    type Value = TurnId;
    expecting!();
    mistakes!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64), visit_str(&str));

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<TurnId, A::Error> {
        Err(mistake())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TurnId, A::Error> {
        let (mut owner, mut number) = (None, None);
        while let Some(key) = map.next_key_seed(Key)? {
            match &*key {
                "owner" => owner = Some(string(map.next_value()?)?),
                "number" => number = Some(map.next_value::<Value>()?.as_i64().ok_or_else(mistake)?),
                // The reader drops them, but counts how deep they nest: left to it.
                _ => return Err(mistake()),
            }
        }
        match (owner, number) {
            (Some(owner), Some(number)) => Ok(TurnId { owner, number }),
            _ => Err(mistake()),
        }
    }
}

/// A message's `content`, and how deep its blocks nest (the array included).
struct Blocks;

impl<'de> DeserializeSeed<'de> for Blocks {
    type Value = (Vec<ContentBlock>, usize);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Blocks {
    type Value = (Vec<ContentBlock>, usize);
    expecting!();
    mistakes!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64), visit_str(&str));

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(mistake())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut depth = 0;
        while let Some(fields) = seq.next_element_seed(BlockVisitor)? {
            depth = depth.max(fields.nesting());
            blocks.push(fields.into_block().ok_or_else(mistake)?);
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

struct BlockVisitor;

impl<'de> DeserializeSeed<'de> for BlockVisitor {
    type Value = BlockFields;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<BlockFields, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for BlockVisitor {
    type Value = BlockFields;
    expecting!();
    mistakes!(visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_f64(f64), visit_str(&str));

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<BlockFields, A::Error> {
        Err(mistake())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BlockFields, A::Error> {
        let mut b = BlockFields::default();
        while let Some(key) = map.next_key_seed(Key)? {
            let slot = match &*key {
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
                    b.extra.insert(key.into_owned(), value);
                    continue;
                }
            };
            *slot = Some(map.next_value::<Value>()?);
        }
        Ok(b)
    }
}

impl BlockFields {
    /// Every known field, in order.
    fn fields(&self) -> [&Option<Value>; 9] {
        [
            &self.kind,
            &self.text,
            &self.id,
            &self.name,
            &self.input,
            &self.tool_use_id,
            &self.content,
            &self.is_error,
            &self.compact_summary,
        ]
    }

    /// How deep the block nests, its own object included.
    fn nesting(&self) -> usize {
        let known = self.fields().into_iter().flatten().map(nesting);
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
