//! Compact JSON text, byte for byte as `serde_json` writes it: the one writer of
//! JSON text in the crate (request bodies, provider requests, excerpts, estimates).
//!
//! Budget `requestBody` ≤ 0.5× `JSON.stringify` right after a compaction:
//! through `serde_json` it took 0.97× (its string loop runs at ~100 MB/s in
//! wasm at opt-level z); strings are scanned here 8 bytes at a time (~1 GB/s),
//! which gives 0.4×. Numbers are written by serde_json's `Number`.

use serde_json::{Map, Value};

/// Appends `value` as compact JSON.
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    write_within(out, value, usize::MAX);
}

/// Appends `value` as compact JSON, stopping once `out` holds `limit` bytes or more
/// (so that an excerpt of a large value costs what a short one does): what is
/// written is the JSON text up to there, a string cut short then closed.
pub fn write_within(out: &mut Vec<u8>, value: &Value, limit: usize) {
    match value {
        Value::String(s) => {
            // Its text takes at least a byte a byte: what passes the limit is not needed.
            let room = limit.saturating_sub(out.len());
            let cut = (0..=room.min(s.len())).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0);
            write_str(out, s.get(..cut).unwrap_or(s));
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if out.len() >= limit {
                    return;
                }
                if i > 0 {
                    out.push(b',');
                }
                write_within(out, item, limit);
            }
            out.push(b']');
        }
        Value::Object(map) => write_map_within(out, map, limit),
        Value::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        Value::Null => out.extend_from_slice(b"null"),
    }
}

/// [`write_within`] for an object.
fn write_map_within(out: &mut Vec<u8>, map: &Map<String, Value>, limit: usize) {
    out.push(b'{');
    for (i, (key, value)) in map.iter().enumerate() {
        if out.len() >= limit {
            return;
        }
        if i > 0 {
            out.push(b',');
        }
        write_str(out, key);
        out.push(b':');
        write_within(out, value, limit);
    }
    out.push(b'}');
}

/// Appends `map` as a JSON object.
pub fn write_map(out: &mut Vec<u8>, map: &Map<String, Value>) {
    write_map_within(out, map, usize::MAX);
}

/// `map` as compact JSON text.
pub fn map_text(map: &Map<String, Value>) -> String {
    let mut out = Vec::new();
    write_map(&mut out, map);
    String::from_utf8(out).unwrap_or_default()
}

/// Whether `a` and `b` are written as the same JSON text: as `==`, except that an
/// object's keys must come in the same order (`Map`'s `==` looks them up in any order).
pub fn same_text(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => same_map_text(a, b),
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| same_text(a, b)),
        _ => a == b,
    }
}

/// [`same_text`] of two objects.
pub fn same_map_text(a: &Map<String, Value>, b: &Map<String, Value>) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((ka, va), (kb, vb))| ka == kb && same_text(va, vb))
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

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{same_text, write_str, write_value};

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
    fn same_text_is_equality_with_the_keys_in_order() {
        let a = json!({ "model": "m", "tools": [{ "name": "x", "input": { "a": 1, "b": [true, null] } }] });
        assert!(same_text(&a, &a.clone()));
        // The same fields in another order: equal, but not the same text.
        for b in [
            json!({ "tools": [{ "name": "x", "input": { "a": 1, "b": [true, null] } }], "model": "m" }),
            json!({ "model": "m", "tools": [{ "name": "x", "input": { "b": [true, null], "a": 1 } }] }),
        ] {
            assert_eq!(a, b);
            assert!(!same_text(&a, &b), "{b}");
        }
        for b in [
            json!({ "model": "m", "tools": [{ "name": "x", "input": { "a": 1.0, "b": [true, null] } }] }),
            json!({ "model": "m", "tools": [{ "name": "x", "input": { "a": 1, "b": [true] } }] }),
            json!({ "model": "m" }),
        ] {
            assert!(!same_text(&a, &b), "{b}");
        }
    }
}
