//! The model's own JSON written straight to bytes: byte for byte what its
//! `Serialize` implementations give through `serde_json` (tests/model_json.rs
//! checks it), with strings escaped eight bytes at a time by
//! [`json_writer`](crate::json_writer). `serde_json` took ~18 ms to write the
//! 6,000 messages of a 1,000-turn conversation in wasm, half of `messages()`.

use serde_json::{Map, Value};

use crate::json_writer::{write_list, write_object, write_str, write_value};
use crate::message::{ContentBlock, Message, ToolResultContent};

/// Appends `messages` to `out` as a JSON array.
pub fn write_messages(out: &mut Vec<u8>, messages: &[Message]) {
    write_list(out, messages, write_message);
}

/// Appends `message` to `out` as a JSON object.
pub fn write_message(out: &mut Vec<u8>, message: &Message) {
    key(out, "{", "role");
    write_str(out, message.role.as_str());
    string(out, "id", &message.id);
    key(out, ",", "session_id");
    write_int(out, message.session_id);
    key(out, ",", "turn_id");
    key(out, "{", "owner");
    write_str(out, &message.turn_id.owner);
    key(out, ",", "number");
    write_int(out, message.turn_id.number);
    out.push(b'}');
    string(out, "created_at", &message.created_at);
    key(out, ",", "content");
    write_list(out, &message.content, write_block);
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

/// Appends `block` to `out` as a JSON object.
fn write_block(out: &mut Vec<u8>, block: &ContentBlock) {
    let rest = match block {
        ContentBlock::Text(b) => {
            open(out, "text");
            string(out, "text", &b.text);
            &b.extra
        }
        ContentBlock::ToolUse(b) => {
            open(out, "tool_use");
            string(out, "id", &b.id);
            string(out, "name", &b.name);
            key(out, ",", "input");
            write_value(out, &b.input);
            &b.extra
        }
        ContentBlock::ToolResult(b) => {
            open(out, "tool_result");
            string(out, "tool_use_id", &b.tool_use_id);
            key(out, ",", "content");
            match &b.content {
                ToolResultContent::Text(text) => write_str(out, text),
                ToolResultContent::Blocks(blocks) => write_list(out, blocks, write_block),
            }
            key(out, ",", "is_error");
            out.extend_from_slice(if b.is_error { b"true" } else { b"false" });
            if let Some(summary) = &b.compact_summary {
                string(out, "compact_summary", summary);
            }
            &b.extra
        }
        ContentBlock::Other(map) => return write_object(out, map),
    };
    extra(out, rest);
    out.push(b'}');
}

/// `{"type":"<kind>"`: a block's opening.
fn open(out: &mut Vec<u8>, kind: &str) {
    key(out, "{", "type");
    write_str(out, kind);
}

/// `,"name":"<s>"`.
fn string(out: &mut Vec<u8>, name: &str, s: &str) {
    key(out, ",", name);
    write_str(out, s);
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

/// `n` in decimal. Not `write!`, whose `std::io::Write` for `Vec` brings
/// `std::io`'s error plumbing into the `.wasm`.
fn write_int(out: &mut Vec<u8>, n: i64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[start..]);
}
