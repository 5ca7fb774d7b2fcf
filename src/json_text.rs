//! Compact JSON text of a `Value`, byte for byte as `serde_json` writes it, for
//! request bodies and the formats handed to JS.
//!
//! Budget `requestBody` ≤ 0.5× `JSON.stringify` right after a compaction:
//! through `serde_json` it took 0.97× (its string loop runs at ~100 MB/s in
//! wasm at opt-level z); strings are scanned here 8 bytes at a time (~1 GB/s),
//! which gives 0.4×. Numbers, the rare escapes aside, are still written by
//! `serde_json`.

use serde_json::{Map, Value};

use crate::model::message::{ContentBlock, Message, ToolResultContent};

/// Appends `value` as compact JSON.
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::String(s) => write_str(out, s),
        Value::Array(items) => write_array(out, items, write_value),
        Value::Object(map) => write_map(out, map),
        scalar => serde_json::to_writer(out, scalar).expect("a scalar always serializes"),
    }
}

/// Appends `items` as a JSON array, each written by `write`.
pub fn write_array<T>(out: &mut Vec<u8>, items: &[T], write: impl Fn(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}

/// Appends `map` as a JSON object.
pub fn write_map(out: &mut Vec<u8>, map: &Map<String, Value>) {
    let mut object = Object::new(out);
    object.extra(map);
    object.end();
}

/// A JSON object being written, field by field.
pub struct Object<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

impl<'a> Object<'a> {
    /// Opens an object at the end of `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Self { out, empty: true }
    }

    /// Writes `key` and gives the text, for its value to be written next.
    pub fn key(&mut self, key: &str) -> &mut Vec<u8> {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
        write_str(self.out, key);
        self.out.push(b':');
        self.out
    }

    /// A field whose value is a string.
    pub fn str(&mut self, key: &str, value: &str) {
        write_str(self.key(key), value);
    }

    /// A field of any value.
    pub fn value(&mut self, key: &str, value: &Value) {
        write_value(self.key(key), value);
    }

    /// The fields of `map`, in its order.
    pub fn extra(&mut self, map: &Map<String, Value>) {
        for (key, value) in map {
            self.value(key, value);
        }
    }

    /// Closes the object.
    pub fn end(self) {
        self.out.push(b'}');
    }
}

/// Appends `s` as a JSON string.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut end = next_escaped(bytes, 0);
    if end == bytes.len() {
        // No escape (most strings): one copy.
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    out.push(b'"');
    loop {
        out.extend_from_slice(&bytes[start..end]);
        let Some(&byte) = bytes.get(end) else { break };
        push_escape(out, byte);
        start = end + 1;
        end = next_escaped(bytes, start);
    }
    out.push(b'"');
}

/// The index of the first byte from `from` that JSON escapes inside a string
/// (`"`, `\` or a control character), or `s.len()`: eight bytes at a time.
fn next_escaped(s: &[u8], mut from: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    while let Some(word) = s.get(from..from + 8) {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        // A byte's high bit ends up set where it was zero (or below 0x20), exact
        // for the lowest such byte: a borrow only runs upwards from a match.
        let found = (quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | word.wrapping_sub(ONES * 0x20) & !word)
            & HIGH;
        if found != 0 {
            return from + (found.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    while from < s.len() && !is_escaped(s[from]) {
        from += 1;
    }
    from
}

/// Whether JSON escapes the byte `b` inside a string.
fn is_escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Appends the escape of a byte [`is_escaped`] holds for, as `serde_json` writes it.
fn push_escape(out: &mut Vec<u8>, b: u8) {
    let short = match b {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(&[b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// Appends `messages` as a JSON array, byte for byte as their `Serialize`
/// writes them with `serde_json` (the JSON of `ctx.messages()` and of the
/// `from…` functions).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // used by the bindings alone
pub fn write_messages(out: &mut Vec<u8>, messages: &[Message]) {
    write_array(out, messages, write_message);
}

fn write_message(out: &mut Vec<u8>, m: &Message) {
    let mut object = Object::new(out);
    object.str("role", m.role.as_str());
    object.str("id", &m.id);
    write_integer(object.key("session_id"), m.session_id);
    let turn = object.key("turn_id");
    let mut turn_id = Object::new(turn);
    turn_id.str("owner", &m.turn_id.owner);
    write_integer(turn_id.key("number"), m.turn_id.number);
    turn_id.end();
    object.str("created_at", &m.created_at);
    write_array(object.key("content"), &m.content, write_block);
    if let Some(of) = &m.summary_of {
        let mut summary_of = Object::new(object.key("summary_of"));
        write_integer(summary_of.key("messages"), of.messages);
        write_integer(summary_of.key("turns"), of.turns);
        summary_of.end();
    }
    object.extra(&m.extra);
    object.end();
}

fn write_block(out: &mut Vec<u8>, block: &ContentBlock) {
    let mut object = Object::new(out);
    let extra = match block {
        ContentBlock::Text(b) => {
            object.str("type", "text");
            object.str("text", &b.text);
            &b.extra
        }
        ContentBlock::ToolUse(b) => {
            object.str("type", "tool_use");
            object.str("id", &b.id);
            object.str("name", &b.name);
            object.value("input", &b.input);
            &b.extra
        }
        ContentBlock::ToolResult(b) => {
            object.str("type", "tool_result");
            object.str("tool_use_id", &b.tool_use_id);
            match &b.content {
                ToolResultContent::Text(text) => object.str("content", text),
                ToolResultContent::Blocks(blocks) => write_array(object.key("content"), blocks, write_block),
            }
            object.key("is_error").extend_from_slice(if b.is_error { b"true" } else { b"false" });
            if let Some(summary) = &b.compact_summary {
                object.str("compact_summary", summary);
            }
            &b.extra
        }
        ContentBlock::Other(map) => map,
    };
    object.extra(extra);
    object.end();
}

fn write_integer(out: &mut Vec<u8>, n: impl serde::Serialize) {
    serde_json::to_writer(out, &n).expect("an integer always serializes");
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{write_messages, write_str, write_value};
    use crate::formats::from_anthropic;
    use crate::model::read::parse_messages;

    #[test]
    fn strings_match_serde_json_for_every_byte_class_at_every_offset() {
        let pieces = ["a", "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1f}", "\u{7f}", "é", "😀", "/"];
        // Each piece at every offset around the 8-byte words, alone and repeated.
        for piece in pieces {
            for before in 0..17 {
                for after in [0, 1, 7, 8, 9] {
                    for times in [1, 3] {
                        let s = format!("{}{}{}", "x".repeat(before), piece.repeat(times), "y".repeat(after));
                        let mut out = Vec::new();
                        write_str(&mut out, &s);
                        assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&s).unwrap(), "{s:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn values_match_serde_json() {
        let values = [
            json!(null),
            json!([true, false, 0, -1, 1.5, 1e300, 9007199254740993u64, -0.0, "", {}]),
            json!({ "b": [1, {"x": "a\"b"}], "a": "line\nbreak", "é": { "": [] } }),
        ];
        for value in values {
            let mut out = Vec::new();
            write_value(&mut out, &value);
            assert_eq!(out, serde_json::to_vec(&value).unwrap(), "{value}");
            assert_eq!(serde_json::from_slice::<Value>(&out).unwrap(), value);
        }
    }

    #[test]
    fn messages_match_their_serialize() {
        // Every field and block kind, unknown fields in messages and blocks included.
        let catalogue = json!([
            { "role": "user", "id": "u", "session_id": -3, "turn_id": { "owner": "u", "number": 1 },
              "created_at": "2026-01-01T00:00:00.000Z", "meta": { "z": 1, "a": [null] },
              "content": [{ "type": "text", "text": "a\"b\n", "cache": true }] },
            { "role": "assistant", "id": "a", "session_id": 0, "turn_id": { "owner": "a", "number": 9007199254740991_i64 },
              "created_at": "2026-01-01T00:00:01Z",
              "content": [{ "type": "tool_use", "id": "t", "name": "ls", "input": { "p": 1.5 }, "x": "y" },
                          { "type": "image", "source": { "type": "url", "url": "u" } }] },
            { "role": "user", "id": "r", "session_id": 1, "turn_id": { "owner": "a", "number": 1 },
              "created_at": "2026-01-01T00:00:02Z", "summary_of": { "messages": 3, "turns": 2 },
              "content": [{ "type": "tool_result", "tool_use_id": "t", "content": "ok", "is_error": true, "compact_summary": "s" },
                          { "type": "tool_result", "tool_use_id": "t", "content": [{ "type": "text", "text": "x" }, { "type": "image", "source": {} }] }] }
        ]);
        let mut conversations = vec![parse_messages(&catalogue, "catalogue").unwrap()];
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/conversations");
        for entry in std::fs::read_dir(dir).expect("shared/conversations is beside the repository") {
            let path = entry.unwrap().path();
            if path.to_string_lossy().ends_with(".anthropic.json") {
                let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                conversations.push(from_anthropic(&value).unwrap().messages);
            }
        }
        assert!(conversations.len() > 10, "the shared transcripts are read");
        for messages in conversations {
            let mut out = Vec::new();
            write_messages(&mut out, &messages);
            assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&messages).unwrap());
        }
    }
}
