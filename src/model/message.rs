//! The message model: what users pass in and get back, as JSON.
//!
//! Field names are the specification's own (snake_case, like the Anthropic wire
//! format). Unknown fields on messages and blocks are kept in `extra` and survive
//! every operation; unknown block types are kept verbatim as [`ContentBlock::Other`].

use std::cell::RefCell;

use serde::Serialize;
use serde_json::{Map, Value};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user, including tool results sent back to the model.
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// The wire name: `"user"` or `"assistant"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// Identifies a turn: consecutive messages with the same id form one turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
pub struct TurnId {
    /// Who owns the turn, e.g. `"u"` or `"a"`.
    pub owner: String,
    /// The turn's number within its owner's sequence.
    pub number: i64,
}

impl TurnId {
    /// A turn id from its parts.
    pub fn new(owner: impl Into<String>, number: i64) -> Self {
        Self { owner: owner.into(), number }
    }
}

/// One message of a conversation.
///
/// It serializes as the model's JSON: `role`, `id`, `session_id`, `turn_id`,
/// `created_at`, `content`, `summary_of` when set, then the unknown fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    /// `"user"` or `"assistant"`.
    pub role: Role,
    /// Unique id (a UUID v4 is generated when missing).
    pub id: String,
    /// The session the message belongs to (0 when missing).
    pub session_id: i64,
    /// The turn the message belongs to.
    pub turn_id: TurnId,
    /// Creation time, RFC 3339, kept as written (now, when missing).
    pub created_at: String,
    /// The message's content blocks.
    pub content: Vec<ContentBlock>,
    /// Set on the message an LLM compaction wrote: what it summarizes. This,
    /// not the text, is how a summary is recognised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_of: Option<SummaryOf>,
    /// Fields this library does not know, kept unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What a summary message replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SummaryOf {
    /// How many messages it replaced.
    pub messages: usize,
    /// How many turns it replaced.
    pub turns: usize,
}

impl Message {
    /// The turn this message belongs to.
    pub fn turn_id(&self) -> &TurnId {
        &self.turn_id
    }

    /// A user message holding one text block, with a fresh id and timestamp.
    pub fn user_text(text: impl Into<String>, session_id: i64, turn_id: TurnId) -> Self {
        Self {
            role: Role::User,
            id: new_message_id(),
            session_id,
            turn_id,
            created_at: now_rfc3339(),
            content: vec![ContentBlock::Text(TextBlock { text: text.into(), extra: Map::new() })],
            summary_of: None,
            extra: Map::new(),
        }
    }

    /// The ids of the `tool_use` blocks in this message.
    pub fn tool_use_ids(&self) -> impl Iterator<Item = &str> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse(u) => Some(u.id.as_str()),
            _ => None,
        })
    }

    /// The `tool_use_id`s answered by the `tool_result` blocks in this message.
    pub fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolResult(r) => Some(r.tool_use_id.as_str()),
            _ => None,
        })
    }
}

/// The fields of a block object other than its own (`own`).
pub(crate) fn leftover(mut obj: Map<String, Value>, own: &[&str]) -> Map<String, Value> {
    for key in own {
        obj.shift_remove(*key);
    }
    obj
}

/// A fresh message id: a UUID v4, lowercase and hyphenated.
pub fn new_message_id() -> String {
    // Budget `from…` ≤ 2.5× `JSON.stringify`: a getRandomValues call per id took 45 ms
    // of the 6,000 ids of a 1,000-turn conversation; the bytes of 256 ids are drawn at once.
    thread_local! {
        static POOL: RefCell<(Vec<u8>, usize)> = const { RefCell::new((Vec::new(), 0)) };
    }
    let bytes = POOL.with_borrow_mut(|(pool, used)| {
        if *used == pool.len() {
            pool.resize(16 * 256, 0);
            getrandom::fill(pool).expect("the platform has a random source");
            *used = 0;
        }
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&pool[*used..*used + 16]);
        *used += 16;
        bytes
    });
    let mut text = [0; uuid::fmt::Hyphenated::LENGTH];
    uuid::Builder::from_random_bytes(bytes).into_uuid().hyphenated().encode_lower(&mut text).to_owned()
}

/// Now, as RFC 3339 with milliseconds in UTC (`2026-01-01T12:00:00.000Z`).
pub fn now_rfc3339() -> String {
    // Formatted once per millisecond: a `from…` stamps thousands of messages within a few.
    thread_local! {
        static LAST: RefCell<(i64, String)> = const { RefCell::new((i64::MIN, String::new())) };
    }
    // web-time reads `Date.now()` on wasm32, where chrono makes a `Date` object per call.
    let since_epoch = web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).unwrap_or_default();
    let now = i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX);
    LAST.with_borrow_mut(|(millis, text)| {
        if *millis != now {
            *millis = now;
            let time = chrono::DateTime::from_timestamp_millis(now).unwrap_or_default();
            *text = time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        }
        text.clone()
    })
}

/// Whether `s` is an RFC 3339 timestamp.
pub fn is_rfc3339(s: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(s).is_ok()
}

/// One block of a message's content.
///
/// It serializes with its `type` first, then its fields, then its unknown ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// `{ type: "text", text }`
    Text(TextBlock),
    /// `{ type: "tool_use", id, name, input }`
    ToolUse(ToolUseBlock),
    /// `{ type: "tool_result", tool_use_id, content, is_error, compact_summary? }`
    ToolResult(ToolResultBlock),
    /// Any other block (image, thinking, …), kept verbatim, `type` included.
    #[serde(untagged)]
    Other(Map<String, Value>),
}

impl ContentBlock {
    /// A block of a tool result's content array: `{ type: "text", text }` with
    /// a string `text` (other fields in `extra`) is a [`ContentBlock::Text`],
    /// any other object is kept verbatim as [`ContentBlock::Other`]. Every
    /// reader of tool result content goes through here.
    pub fn nested(mut obj: Map<String, Value>) -> ContentBlock {
        if obj.get("type").and_then(Value::as_str) == Some("text") {
            if let Some(Value::String(text)) = obj.get_mut("text") {
                let text = std::mem::take(text);
                return ContentBlock::Text(TextBlock { text, extra: leftover(obj, &["text", "type"]) });
            }
        }
        ContentBlock::Other(obj)
    }

    /// The block as JSON, as it serializes.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// Plain text.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextBlock {
    /// The text.
    pub text: String,
    /// Unknown fields, kept unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool call made by the assistant.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolUseBlock {
    /// The call's id, answered by a `tool_result` with the same `tool_use_id`.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The tool's arguments, any JSON value.
    pub input: Value,
    /// Unknown fields, kept unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The result of a tool call, sent back by the user side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolResultBlock {
    /// The id of the `tool_use` this answers.
    pub tool_use_id: String,
    /// The result: a string or an array of blocks.
    pub content: ToolResultContent,
    /// Whether the tool failed.
    pub is_error: bool,
    /// A pre-computed short summary, used by threshold compaction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_summary: Option<String>,
    /// Unknown fields, kept unchanged.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A tool result's content: a string, or an array of blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// Plain text.
    Text(String),
    /// Content blocks, each read by [`ContentBlock::nested`]: text blocks as
    /// [`ContentBlock::Text`], any other object verbatim as [`ContentBlock::Other`].
    Blocks(Vec<ContentBlock>),
}

impl ToolResultContent {
    /// The text this content carries: the string itself, or its text blocks joined.
    pub fn text(&self) -> String {
        match self {
            ToolResultContent::Text(t) => t.clone(),
            ToolResultContent::Blocks(blocks) => {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        ContentBlock::Other(map) => map.get("text").and_then(Value::as_str),
                        _ => None,
                    })
                    .collect();
                texts.join("\n")
            }
        }
    }

    /// The content as JSON: the string, or the array of its blocks.
    pub fn to_value(&self) -> Value {
        match self {
            ToolResultContent::Text(t) => Value::String(t.clone()),
            ToolResultContent::Blocks(blocks) => Value::Array(blocks.iter().map(ContentBlock::to_value).collect()),
        }
    }

    /// Whether this content is exactly the given string.
    pub fn is_text(&self, s: &str) -> bool {
        matches!(self, ToolResultContent::Text(t) if t == s)
    }
}

impl From<String> for ToolResultContent {
    fn from(s: String) -> Self {
        ToolResultContent::Text(s)
    }
}

#[cfg(test)]
mod tests {
    use super::{is_rfc3339, new_message_id, now_rfc3339};

    #[test]
    fn ids_are_uuid_v4_and_times_rfc3339() {
        let id = new_message_id();
        assert_eq!(uuid::Uuid::parse_str(&id).unwrap().get_version_num(), 4);
        assert_eq!(id, id.to_lowercase());
        let now = now_rfc3339();
        assert!(is_rfc3339(&now) && now.ends_with('Z') && now.len() == 24, "{now}");
        assert!(!is_rfc3339("2026-13-01T00:00:00Z") && !is_rfc3339("yesterday"));
    }
}
