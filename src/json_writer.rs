//! JSON written into a byte buffer, strings eight bytes at a time: the kernel
//! of every request body. The output is byte for byte `serde_json`'s (and
//! `JSON.stringify`'s): `"` and `\` escaped, control characters as `\n`-style
//! or `\u00XX` escapes, everything else, non-ASCII included, as it is; object
//! keys in the map's (sorted) order.

use serde_json::{Map, Value};

/// The JSON text that `write` appends to an empty buffer, as a `String`
/// (not checked again: this module's writers copy whole `str`s and add ASCII only).
///
/// # Safety
/// `write` must append valid UTF-8: only through this module's writers and
/// those built on them (`model_json`).
pub(crate) unsafe fn to_text(write: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut out = Vec::new();
    write(&mut out);
    // SAFETY: the caller's promise.
    unsafe { String::from_utf8_unchecked(out) }
}

/// Appends the JSON of `value` to `out`.
pub fn write_value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(b) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
        // `Display` writes what serde_json's serializer writes, without its
        // `std::io` plumbing (and that plumbing's error messages) in the `.wasm`.
        Value::Number(n) => out.extend_from_slice(n.to_string().as_bytes()),
        Value::String(s) => write_str(out, s),
        Value::Array(items) => write_array(out, items),
        Value::Object(map) => write_object(out, map),
    }
}

/// Appends `map` to `out` as a JSON object.
pub fn write_object(out: &mut Vec<u8>, map: &Map<String, Value>) {
    out.push(b'{');
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, key);
        out.push(b':');
        write_value(out, value);
    }
    out.push(b'}');
}

/// Appends `items` to `out` as a JSON array.
pub fn write_array(out: &mut Vec<u8>, items: &[Value]) {
    write_list(out, items, write_value);
}

/// Appends `items` to `out` as a JSON array, each written by `write`.
pub fn write_list<T>(out: &mut Vec<u8>, items: &[T], mut write: impl FnMut(&mut Vec<u8>, &T)) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(b']');
}

/// Appends `s` to `out` as a JSON string, quotes included.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    // Each run between escapes is written in one copy.
    let mut start = 0;
    loop {
        let i = next_escaped(bytes, start);
        out.extend_from_slice(&bytes[start..i]);
        let Some(&b) = bytes.get(i) else { break };
        let (escape, len) = escape(b);
        out.extend_from_slice(&escape[..len]);
        start = i + 1;
    }
    out.push(b'"');
}

/// The index of the first byte from `from` that `is_escaped` holds for
/// (`"`, `\` or a control character), or `s.len()`: eight bytes at a time.
/// Inside JSON text, the end of a string or its next escape.
pub fn next_escaped(s: &[u8], mut from: usize) -> usize {
    const ONES: u64 = u64::from_le_bytes([1; 8]);
    const HIGH: u64 = ONES * 0x80;
    while let Some(word) = s.get(from..from + 8) {
        let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
        let quote = word ^ (ONES * u64::from(b'"'));
        let backslash = word ^ (ONES * u64::from(b'\\'));
        // A byte's high bit is set where it is zero (or below 0x20), exactly for
        // the lowest such byte: a borrow only runs upwards from a match.
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
    from.min(s.len())
}

/// Whether JSON escapes the byte `b` inside a string.
fn is_escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// The escape of a byte for which `is_escaped` holds, as ASCII bytes and
/// their count: `\n`-style where JSON has one, else `\u00XX` (lowercase).
pub fn escape(b: u8) -> ([u8; 6], usize) {
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
            return ([b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]], 6);
        }
    };
    ([b'\\', short, 0, 0, 0, 0], 2)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{write_str, write_value};

    fn written(s: &str) -> String {
        let mut out = Vec::new();
        write_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn matches_serde_json_on_every_byte_class_and_position() {
        let pieces =
            ["a", "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1f}", "\u{7f}", "é", "😀", "/", " "];
        // Every piece at every offset of a 0..17-byte ASCII run, so that the 8-byte
        // words start everywhere around it.
        for piece in pieces {
            for before in 0..17 {
                for after in [0, 1, 7, 8, 9] {
                    let s = format!("{}{piece}{}", "x".repeat(before), "y".repeat(after));
                    assert_eq!(written(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
                }
            }
        }
        let all: String = (0u32..0x800).filter_map(char::from_u32).collect();
        assert_eq!(written(&all), serde_json::to_string(&all).unwrap());
        assert_eq!(written(""), "\"\"");
    }

    #[test]
    fn values_match_serde_json() {
        let value = json!({
            "z": [null, true, false, 0, -7, 1.5, 1e300, u64::MAX, i64::MIN, "q\"\n"],
            "a": { "nested": [[], {}], "é": "😀" },
            "": ""
        });
        let mut out = Vec::new();
        write_value(&mut out, &value);
        assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&value).unwrap());
    }
}
