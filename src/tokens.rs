//! A fast token estimate, for when no provider figure is at hand.
//!
//! It mimics how BPE tokenizers split text (words, digit groups, punctuation,
//! whitespace, non-Latin characters) without a vocabulary, so it costs one pass
//! over the bytes and no allocation.

use serde_json::Value;

use crate::message::{ContentBlock, Message, ToolResultContent};

/// Tokens a provider adds around each message (role markers and separators).
const MESSAGE_OVERHEAD: i64 = 4;
/// A flat estimate for an image or document block.
const MEDIA_TOKENS: i64 = 1_600;

/// Estimated tokens of a whole conversation.
pub fn estimate_tokens(conversation: &[Message]) -> i64 {
    conversation.iter().map(estimate_message_tokens).sum()
}

/// Estimated tokens of one message.
pub fn estimate_message_tokens(message: &Message) -> i64 {
    MESSAGE_OVERHEAD + message.content.iter().map(estimate_block_tokens).sum::<i64>()
}

fn estimate_block_tokens(block: &ContentBlock) -> i64 {
    match block {
        ContentBlock::Text(t) => estimate_text_tokens(&t.text),
        ContentBlock::ToolUse(u) => 3 + estimate_text_tokens(&u.name) + estimate_json_tokens(&u.input),
        ContentBlock::ToolResult(r) => {
            3 + match &r.content {
                ToolResultContent::Text(t) => estimate_text_tokens(t),
                ToolResultContent::Blocks(blocks) => blocks.iter().map(estimate_value_block_tokens).sum(),
            }
        }
        ContentBlock::Other(map) => match map.get("type").and_then(Value::as_str) {
            Some("image") | Some("document") => MEDIA_TOKENS,
            _ => map.iter().filter(|(k, _)| k.as_str() != "type").map(|(_, v)| estimate_json_tokens(v)).sum(),
        },
    }
}

fn estimate_value_block_tokens(block: &Value) -> i64 {
    match block.get("type").and_then(Value::as_str) {
        Some("image") | Some("document") => MEDIA_TOKENS,
        _ => match block.get("text").and_then(Value::as_str) {
            Some(text) => estimate_text_tokens(text),
            None => estimate_json_tokens(block),
        },
    }
}

/// Estimated tokens of a JSON value as the model sees it (serialized).
pub fn estimate_json_tokens(value: &Value) -> i64 {
    match value {
        Value::String(s) => 1 + estimate_text_tokens(s),
        Value::Array(items) => 1 + items.iter().map(estimate_json_tokens).sum::<i64>(),
        Value::Object(map) => {
            1 + map.iter().map(|(k, v)| 1 + estimate_text_tokens(k) + estimate_json_tokens(v)).sum::<i64>()
        }
        Value::Number(n) => estimate_text_tokens(&n.to_string()),
        Value::Bool(_) | Value::Null => 1,
    }
}

/// Estimated tokens of a piece of text.
pub fn estimate_text_tokens(text: &str) -> i64 {
    let bytes = text.as_bytes();
    let mut tokens = 0i64;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let start = i;
        if b.is_ascii_alphabetic() {
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            // Common words are one token; long identifiers split every few letters.
            tokens += 1 + (i - start) as i64 / 8;
        } else if b.is_ascii_digit() {
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            tokens += ((i - start) as i64 + 2) / 3;
        } else if b.is_ascii_whitespace() {
            // A single space sticks to the next word; any other run of
            // whitespace (a newline and its indentation) is about one token.
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            let next_is_word = i < bytes.len() && bytes[i].is_ascii_alphanumeric();
            tokens += if i - start == 1 && b == b' ' && next_is_word { 0 } else { 1 };
        } else if b.is_ascii() {
            // Punctuation pairs up often (`",`, `);`, `->`); control characters stand alone.
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_punctuation() {
                i += 1;
            }
            tokens += ((i - start) as i64 + 1) / 2;
        } else {
            // Non-ASCII: about one token per character (CJK), a bit less for accents.
            let ch_len = utf8_len(b);
            i += ch_len;
            tokens += 1;
        }
    }
    tokens
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}
