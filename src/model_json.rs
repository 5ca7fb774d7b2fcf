//! The model's own JSON written straight to bytes: byte for byte what its
//! `Serialize` implementations give through `serde_json` (tests/model_json.rs
//! checks it), with strings escaped eight bytes at a time by
//! [`json_writer`](crate::json_writer). `serde_json` took ~18 ms to write the
//! 6,000 messages of a 1,000-turn conversation in wasm, half of `messages()`.

use std::io::Write;

use serde_json::{Map, Value};

use crate::json_writer::{write_object, write_str, write_value};
use crate::message::{ContentBlock, Message, ToolResultContent};

/// Appends `messages` to `out` as a JSON array.
pub fn write_messages(out: &mut Vec<u8>, messages: &[Message]) {
    out.push(b'[');
    for (i, message) in messages.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_message(out, message);
    }
    out.push(b']');
}

/// Appends `message` to `out` as a JSON object.
pub fn write_message(out: &mut Vec<u8>, message: &Message) {
    key(out, "{", "role");
    write_str(out, message.role.as_str());
    key(out, ",", "id");
    write_str(out, &message.id);
    key(out, ",", "session_id");
    write_int(out, message.session_id);
    key(out, ",", "turn_id");
    key(out, "{", "owner");
    write_str(out, &message.turn_id.owner);
    key(out, ",", "number");
    write_int(out, message.turn_id.number);
    out.push(b'}');
    key(out, ",", "created_at");
    write_str(out, &message.created_at);
    key(out, ",", "content");
    write_blocks(out, &message.content);
    if let Some(of) = &message.summary_of {
        key(out, ",", "summary_of");
        key(out, "{", "messages");
        write_int(out, of.messages as i64);
        key(out, ",", "turns");
        write_int(out, of.turns as i64);
        out.push(b'}');
    }
    extra(out, &message.extra);
    out.push(b'}');
}

/// Appends `blocks` to `out` as a JSON array.
fn write_blocks(out: &mut Vec<u8>, blocks: &[ContentBlock]) {
    out.push(b'[');
    for (i, block) in blocks.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_block(out, block);
    }
    out.push(b']');
}

/// Appends `block` to `out` as a JSON object.
fn write_block(out: &mut Vec<u8>, block: &ContentBlock) {
    let rest = match block {
        ContentBlock::Text(b) => {
            key(out, "{", "type");
            write_str(out, "text");
            key(out, ",", "text");
            write_str(out, &b.text);
            &b.extra
        }
        ContentBlock::ToolUse(b) => {
            key(out, "{", "type");
            write_str(out, "tool_use");
            key(out, ",", "id");
            write_str(out, &b.id);
            key(out, ",", "name");
            write_str(out, &b.name);
            key(out, ",", "input");
            write_value(out, &b.input);
            &b.extra
        }
        ContentBlock::ToolResult(b) => {
            key(out, "{", "type");
            write_str(out, "tool_result");
            key(out, ",", "tool_use_id");
            write_str(out, &b.tool_use_id);
            key(out, ",", "content");
            match &b.content {
                ToolResultContent::Text(text) => write_str(out, text),
                ToolResultContent::Blocks(blocks) => write_blocks(out, blocks),
            }
            key(out, ",", "is_error");
            out.extend_from_slice(if b.is_error { b"true" } else { b"false" });
            if let Some(summary) = &b.compact_summary {
                key(out, ",", "compact_summary");
                write_str(out, summary);
            }
            &b.extra
        }
        ContentBlock::Other(map) => return write_object(out, map),
    };
    extra(out, rest);
    out.push(b'}');
}

/// `before` (`{` or `,`), then `"name":`.
fn key(out: &mut Vec<u8>, before: &str, name: &str) {
    out.extend_from_slice(before.as_bytes());
    write_str(out, name);
    out.push(b':');
}

/// The unknown fields, each after a comma.
fn extra(out: &mut Vec<u8>, map: &Map<String, Value>) {
    for (k, v) in map {
        out.push(b',');
        write_str(out, k);
        out.push(b':');
        write_value(out, v);
    }
}

fn write_int(out: &mut Vec<u8>, n: i64) {
    // Writing to memory cannot fail.
    let _ = write!(out, "{n}");
}
