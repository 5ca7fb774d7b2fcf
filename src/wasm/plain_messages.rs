//! Messages read without JSON text: `plain_messages.js` walks them in JS and
//! hands over their structure as numbers and their strings as UTF-8, back to
//! back; [`read`] makes the [`Message`]s. Strings are copied once, where JSON
//! text has `JSON.stringify` escape them and a parser unescape them. Unknown
//! fields come as their key and their value's JSON text. A message that is not
//! plain comes as its JSON text, read by `model::read`.
//!
//! Budget `pushMany` ≤ 2.5× `JSON.stringify`: through JSON text and serde_json
//! it took 2.9× on 1,000 turns; this way 1.5×.
//!
//! When either side cannot answer (a mistake, a getter that throws), the caller
//! reads the array as JSON text, which gives the same messages and reports the
//! mistake with its path.

use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::model::message::{
    is_rfc3339, new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock,
    ToolResultContent, ToolUseBlock, TurnId,
};
use crate::model::read::{deeper_than, nested_blocks, parse_input_message_owned, MAX_MESSAGE_NESTING};

#[wasm_bindgen(module = "/src/wasm/plain_messages.js")]
extern "C" {
    /// `[ops, bytes]`, or `null` for the JSON path to read the array.
    #[wasm_bindgen(js_name = plainMessages)]
    fn plain_messages(array: &JsValue) -> Option<js_sys::Array>;

    /// `plainMessages([message])`, or `null` for the JSON path to read it.
    #[wasm_bindgen(js_name = plainMessage)]
    fn plain_message(message: &JsValue) -> Option<js_sys::Array>;
}

// The message op's flags (see plain_messages.js).
const ID: u32 = 1;
const SESSION: u32 = 2;
const CREATED: u32 = 4;
const SUMMARY_OF: u32 = 8;
const SUMMARY_OF_NULL: u32 = 16;
const ASSISTANT: u32 = 32;
const JSON_TEXT: u32 = 64;
const EXTRA: u32 = 128;
const TURN: u32 = 256;
// The block op: kind in the low two bits, then flags.
const IS_ERROR: u32 = 1 << 2;
const BLOCKS: u32 = 1 << 3;
const SUMMARY: u32 = 1 << 4;
const TEXT_BLOCKS: u32 = 1 << 5;
const BLOCK_EXTRA: u32 = 1 << 6;
/// Containers around a message's JSON values within it: the message.
const MESSAGE_DEPTH: usize = 1;
/// Containers around a block's JSON values within its message: the message,
/// its content and the block.
const BLOCK_DEPTH: usize = 3;

/// The messages of a JS array, each with whether it has a `turn_id`, or `None`
/// for the JSON path to read them.
pub fn read(array: &JsValue) -> Option<Vec<(Message, bool)>> {
    decode(plain_messages(array)?)
}

/// One JS message, as [`read`] reads it.
pub fn read_one(message: &JsValue) -> Option<(Message, bool)> {
    decode(plain_message(message)?)?.pop()
}

fn decode(parts: js_sys::Array) -> Option<Vec<(Message, bool)>> {
    let ops = parts.get(0).unchecked_into::<js_sys::Uint32Array>().to_vec();
    let bytes = parts.get(1).unchecked_into::<js_sys::Uint8Array>().to_vec();
    let mut stream = Stream { ops: &ops, bytes: &bytes, op: 0, byte: 0 };
    let mut messages = Vec::new();
    while stream.op < ops.len() {
        messages.push(stream.message()?);
    }
    Some(messages)
}

struct Stream<'a> {
    ops: &'a [u32],
    bytes: &'a [u8],
    op: usize,
    byte: usize,
}

impl<'a> Stream<'a> {
    fn op(&mut self) -> Option<u32> {
        let op = *self.ops.get(self.op)?;
        self.op += 1;
        Some(op)
    }

    fn str(&mut self) -> Option<&'a str> {
        let end = self.byte.checked_add(self.op()? as usize)?;
        let bytes = self.bytes.get(self.byte..end)?;
        self.byte = end;
        // SAFETY: `bytes` is what one `TextEncoder.encodeInto` call wrote, all of
        // it: valid UTF-8 (the JS side checked the string is well formed).
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    fn integer(&mut self) -> Option<i64> {
        let (low, high) = (self.op()?, self.op()?);
        Some(i64::from(high) << 32 | i64::from(low))
    }

    fn message(&mut self) -> Option<(Message, bool)> {
        let flags = self.op()?;
        if flags == JSON_TEXT {
            // Read as the JSON path reads a message it cannot read field by field.
            return parse_input_message_owned(serde_json::from_str(self.str()?).ok()?, "").ok();
        }
        let role = if flags & ASSISTANT != 0 { Role::Assistant } else { Role::User };
        let id = if flags & ID != 0 { self.string()? } else { new_message_id() };
        let session_id = if flags & SESSION != 0 { self.integer()? } else { 0 };
        let turn_id = match flags & TURN {
            0 => TurnId::default(),
            _ => TurnId { owner: self.string()?, number: self.integer()? },
        };
        let created_at = match flags & CREATED {
            0 => now_rfc3339(),
            _ => self.str().filter(|s| is_rfc3339(s))?.to_owned(),
        };
        let mut extra = Map::new();
        let summary_of = match flags & (SUMMARY_OF | SUMMARY_OF_NULL) {
            SUMMARY_OF => Some(SummaryOf {
                messages: usize::try_from(self.integer()?).ok()?,
                turns: usize::try_from(self.integer()?).ok()?,
            }),
            SUMMARY_OF_NULL => {
                // Kept among the unknown fields, as the JSON path does.
                extra.insert("summary_of".to_owned(), Value::Null);
                None
            }
            _ => None,
        };
        let count = self.op()? as usize;
        // Bounded by what is left, so that a bad count cannot reserve much.
        let mut content = Vec::with_capacity(count.min(self.ops.len() - self.op));
        for _ in 0..count {
            content.push(self.block()?);
        }
        if flags & EXTRA != 0 {
            self.extra(&mut extra, MESSAGE_DEPTH)?;
        }
        Some((Message { role, id, session_id, turn_id, created_at, content, summary_of, extra }, flags & TURN != 0))
    }

    /// Unknown fields: their count, then each key and its value's JSON text.
    fn extra(&mut self, extra: &mut Map<String, Value>, depth: usize) -> Option<()> {
        for _ in 0..self.op()? {
            let key = self.string()?;
            extra.insert(key, value_at(self.str()?, depth)?);
        }
        Some(())
    }

    fn block(&mut self) -> Option<ContentBlock> {
        let op = self.op()?;
        let mut block = match op & 3 {
            0 => ContentBlock::Text(TextBlock { text: self.string()?, extra: Map::new() }),
            1 => ContentBlock::ToolUse(ToolUseBlock {
                id: self.string()?,
                name: self.string()?,
                input: value_at(self.str()?, BLOCK_DEPTH)?,
                extra: Map::new(),
            }),
            2 => {
                let tool_use_id = self.string()?;
                let content = match op & (BLOCKS | TEXT_BLOCKS) {
                    0 => ToolResultContent::Text(self.string()?),
                    BLOCKS => match value_at(self.str()?, BLOCK_DEPTH)? {
                        Value::Array(blocks) => nested_blocks(blocks).ok()?,
                        _ => return None,
                    },
                    TEXT_BLOCKS => {
                        let count = self.op()? as usize;
                        // Bounded by what is left, as a message's blocks are.
                        let mut blocks = Vec::with_capacity(count.min(self.ops.len() - self.op));
                        for _ in 0..count {
                            blocks.push(ContentBlock::Text(TextBlock { text: self.string()?, extra: Map::new() }));
                        }
                        ToolResultContent::Blocks(blocks)
                    }
                    _ => return None,
                };
                let compact_summary = if op & SUMMARY != 0 { Some(self.string()?) } else { None };
                ContentBlock::ToolResult(ToolResultBlock {
                    tool_use_id,
                    content,
                    is_error: op & IS_ERROR != 0,
                    compact_summary,
                    extra: Map::new(),
                })
            }
            _ => return None,
        };
        if op & BLOCK_EXTRA != 0 {
            let extra = match &mut block {
                ContentBlock::Text(b) => &mut b.extra,
                ContentBlock::ToolUse(b) => &mut b.extra,
                ContentBlock::ToolResult(b) => &mut b.extra,
                ContentBlock::Other(_) => return None,
            };
            self.extra(extra, BLOCK_DEPTH)?;
        }
        Some(block)
    }
}

/// The JSON value of `text`, with `depth` containers around it in its message;
/// `None` when the message would nest deeper than a message may, for the JSON
/// path to report it.
fn value_at(text: &str, depth: usize) -> Option<Value> {
    let value: Value = serde_json::from_str(text).ok()?;
    (!deeper_than(&value, MAX_MESSAGE_NESTING - depth)).then_some(value)
}
