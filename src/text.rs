//! Small text helpers.

use std::borrow::Cow;

use serde_json::Value;

use crate::json_writer::{escape, next_escaped};

/// At most `max_chars` characters of `s`, cut on a character boundary, with
/// `…` appended when something was cut. Never splits a UTF-8 sequence.
pub fn truncate_chars(s: &str, max_chars: usize) -> Cow<'_, str> {
    match cut_point(s, max_chars) {
        None => Cow::Borrowed(s),
        Some(byte) => Cow::Owned(format!("{}…", head(s, byte))),
    }
}

/// [`truncate_chars`] of a `String` of one's own, cut in place.
pub fn truncate_string(mut s: String, max_chars: usize) -> String {
    if let Some(byte) = cut_point(&s, max_chars) {
        s.truncate(byte);
        s.push('…');
    }
    s
}

/// Appends [`truncate_chars`]`(s, max_chars)` to `out` without an intermediate copy.
pub fn push_truncated(out: &mut String, s: &str, max_chars: usize) {
    match cut_point(s, max_chars) {
        None => out.push_str(s),
        Some(byte) => {
            out.push_str(head(s, byte));
            out.push('…');
        }
    }
}

/// Appends [`truncate_chars`]`(serde_json::to_string(value), max_chars)` to `out`,
/// writing the JSON straight into `out` and only as far as the cut needs: no
/// intermediate string, and a large value costs no more than a short one.
pub fn push_json_truncated(out: &mut String, value: &Value, max_chars: usize) {
    let start = out.len();
    // More than 4 bytes per character hold more than `max_chars` characters, whatever their width.
    let end = start.saturating_add(max_chars.saturating_mul(4).saturating_add(4));
    JsonWriter { out: &mut *out, end }.value(value);
    if let Some(byte) = cut_point(tail(out, start), max_chars) {
        out.truncate(start + byte);
        out.push('…');
    }
}

/// Compact JSON, byte for byte as `serde_json` writes it, into a `String` that
/// it stops filling at `end` bytes. Each method returns `false` once it stopped.
struct JsonWriter<'a> {
    out: &'a mut String,
    end: usize,
}

impl JsonWriter<'_> {
    /// Appends `s`, or its longest prefix (whole characters) that ends by `end`.
    fn push(&mut self, s: &str) -> bool {
        let room = self.end.saturating_sub(self.out.len());
        if s.len() <= room {
            self.out.push_str(s);
            return true;
        }
        let mut fits = room;
        while !s.is_char_boundary(fits) {
            fits -= 1;
        }
        self.out.push_str(head(s, fits));
        false
    }

    fn value(&mut self, value: &Value) -> bool {
        match value {
            Value::Null => self.push("null"),
            Value::Bool(b) => self.push(if *b { "true" } else { "false" }),
            Value::Number(n) => self.push(&n.to_string()),
            Value::String(s) => self.string(s),
            Value::Array(items) => {
                let mut open = "[";
                for item in items {
                    if !(self.push(open) && self.value(item)) {
                        return false;
                    }
                    open = ",";
                }
                self.push(if items.is_empty() { "[]" } else { "]" })
            }
            Value::Object(map) => {
                let mut open = "{";
                for (key, item) in map {
                    if !(self.push(open) && self.string(key) && self.push(":") && self.value(item)) {
                        return false;
                    }
                    open = ",";
                }
                self.push(if map.is_empty() { "{}" } else { "}" })
            }
        }
    }

    /// A JSON string, escaped as [`crate::json_writer`] does.
    fn string(&mut self, s: &str) -> bool {
        let mut rest = s;
        if !self.push("\"") {
            return false;
        }
        loop {
            let i = next_escaped(rest.as_bytes(), 0);
            let Some(&b) = rest.as_bytes().get(i) else { break };
            let (escape, len) = escape(b);
            if !self.push(head(rest, i)) {
                return false;
            }
            // Escapes are ASCII: pushed a character at a time, without `str::from_utf8`.
            for &c in &escape[..len] {
                if !self.push(char::from(c).encode_utf8(&mut [0; 4])) {
                    return false;
                }
            }
            rest = tail(rest, i + 1);
        }
        self.push(rest) && self.push("\"")
    }
}

/// `&s[..end]`, for an `end` known to be a character boundary (else it panics,
/// as `[]` would). Slicing a `str` with `[]` panics through core's message that
/// formats the cut character with `Debug`, which brings ~3.9 KB gzip of Unicode
/// tables and formatting code into the `.wasm`; the crate denies
/// `clippy::string_slice` so that none comes back.
pub(crate) fn head(s: &str, end: usize) -> &str {
    s.get(..end).unwrap()
}

/// `&s[start..]`, as [`head`] slices.
pub(crate) fn tail(s: &str, start: usize) -> &str {
    s.get(start..).unwrap()
}

/// The byte offset of character `max_chars` of `s`, if `s` is longer than that.
/// A text whose first `max_chars` bytes are ASCII is cut without counting.
fn cut_point(s: &str, max_chars: usize) -> Option<usize> {
    match s.as_bytes().get(..max_chars) {
        None => None,
        Some(head) if head.is_ascii() => (s.len() > max_chars).then_some(max_chars),
        Some(_) => s.char_indices().nth(max_chars).map(|(byte, _)| byte),
    }
}

/// The byte offset of the first `needle` in `haystack`; an empty `needle` is
/// found nowhere. A plain scan for cold paths: `str::find` with a `&str`
/// pattern would bring core's two-way searcher (~2 KB) into the `.wasm`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    let first = *needle.as_bytes().first()?;
    haystack.as_bytes().windows(needle.len()).position(|w| w[0] == first && w == needle.as_bytes())
}

/// `text` with every `pattern` replaced by `with`, as `str::replace` gives for
/// a non-empty `pattern`, found by [`find`]; an empty `pattern` changes nothing.
pub fn replace(text: &str, pattern: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = find(rest, pattern) {
        out.push_str(head(rest, i));
        out.push_str(with);
        rest = tail(rest, i + pattern.len());
    }
    out.push_str(rest);
    out
}

/// A string value quoted for an error message, cut to 64 characters: an error
/// must not echo a 50 MB field back to the caller (or into logs). Escaped as
/// JSON escapes it, so that it reads as the JS string it came from.
pub fn quoted(s: &str) -> String {
    let mut cut = String::new();
    push_truncated(&mut cut, s, 64);
    json_str(&cut)
}

/// `s` as a JSON string (quoted and escaped), as serde_json writes it.
pub fn json_str(s: &str) -> String {
    // SAFETY: written by `write_str` alone.
    unsafe { crate::json_writer::to_text(|out| crate::json_writer::write_str(out, s)) }
}

/// A value's compact JSON text, as its `to_string()` gives, without `Value`'s
/// `Display` (two more serializers, compact and pretty, in the `.wasm`) or
/// `serde_json`'s serializer: [`crate::json_writer`] writes the same bytes.
pub fn json_string(value: &Value) -> String {
    // SAFETY: written by `write_value` alone.
    unsafe { crate::json_writer::to_text(|out| crate::json_writer::write_value(out, value)) }
}

/// A JSON object of `fields`. Built without `json!`, whose `to_value(…).unwrap()`
/// brings serde_json's error formatting (and Rust's `Debug` tables) into the `.wasm`.
pub fn object<const N: usize>(mut fields: [(&str, Value); N]) -> Value {
    object_of(&mut fields)
}

/// [`object`] for any number of fields, their values taken (left null): one
/// copy of the loop in the `.wasm`, not one per `N`.
fn object_of(fields: &mut [(&str, Value)]) -> Value {
    let mut map = serde_json::Map::new();
    for (key, value) in fields {
        map.insert((*key).to_owned(), std::mem::take(value));
    }
    Value::Object(map)
}

/// A number as JS would print it (`1`, `1.5`, `NaN`, `Infinity`), for error
/// messages. Written without `f64`'s `Display`, whose float-printing machinery
/// was the largest single function in the `.wasm`.
pub fn number_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0 {
        (x as i64).to_string()
    } else {
        serde_json::Number::from_f64(x).map_or_else(String::new, |n| n.to_string())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{head, number_text, push_json_truncated, push_truncated, tail, truncate_chars};

    #[test]
    fn head_and_tail_slice_as_indexing_does_and_panic_inside_a_character() {
        let s = "aé日z";
        for i in 0..=s.len() {
            let sliced = std::panic::catch_unwind(|| (head(s, i), tail(s, i)));
            match s.is_char_boundary(i) {
                true => assert_eq!(sliced.unwrap(), s.split_at(i), "{i}"),
                false => assert!(sliced.is_err(), "{i}"),
            }
        }
    }

    #[test]
    fn push_truncated_appends_what_truncate_chars_returns() {
        for s in ["", "abc", "abcd", "abcde", "éé", "aéé", "ééé", "abé", "ab€d", "日本語テキスト"] {
            for max in 0..6 {
                let mut out = String::from(">");
                push_truncated(&mut out, s, max);
                assert_eq!(out, format!(">{}", truncate_chars(s, max)), "{s:?} {max}");
                assert_eq!(super::truncate_string(s.to_owned(), max), truncate_chars(s, max), "{s:?} {max}");
            }
        }
    }

    #[test]
    fn json_excerpts_are_serde_json_cut() {
        let mut values = vec![
            json!(null),
            json!(true),
            json!([]),
            json!({}),
            json!([[], {}, [null]]),
            json!({ "path": "src/main.rs", "n": [0, 1, -7, 2.5, 1e300, 0.1, -0.0, u64::MAX, i64::MIN], "ok": false }),
        ];
        for piece in
            ["a", "é", "€", "😀", "a\n", "\"\\/", "\u{0}\u{1}\u{8}\u{9}\u{c}\r\u{1f}\u{7f}\u{80}", "<\u{2028}>"]
        {
            for n in [1, 60, 150, 240, 299, 300, 301, 302, 400, 1200] {
                let text = piece.repeat(n);
                values.push(json!(text));
                values.push(json!({ "command": text, "cwd": "/tmp", text.clone(): 1 }));
                values.push(json!([text, { "k": [text] }, 3]));
            }
        }
        for value in values {
            let json = serde_json::to_string(&value).unwrap();
            for max in [0, 1, 5, 299, 300, 301, json.chars().count(), 10_000] {
                let mut ours = String::from(">");
                push_json_truncated(&mut ours, &value, max);
                assert_eq!(ours, format!(">{}", truncate_chars(&json, max)), "{max} {json:.80}");
            }
        }
    }

    #[test]
    fn replace_is_str_replace() {
        for text in ["", "a", "key", "akeyb", "keykey", "kkey", "kekey", "é key é", "keyk"] {
            for pattern in ["key", "k", "é", "kk", "keykeykey"] {
                assert_eq!(super::replace(text, pattern, "[R]"), text.replace(pattern, "[R]"), "{text:?} {pattern:?}");
                assert_eq!(super::find(text, pattern), text.find(pattern), "{text:?} {pattern:?}");
            }
        }
        assert_eq!(super::replace("abc", "", "x"), "abc");
    }

    #[test]
    fn quoted_values_are_escaped_as_json_and_cut_to_64_characters() {
        assert_eq!(super::quoted("a\"b\\c\n\u{1}é\u{200b}"), "\"a\\\"b\\\\c\\n\\u0001é\u{200b}\"");
        let long = "é".repeat(100);
        assert_eq!(super::quoted(&long), format!("\"{}…\"", "é".repeat(64)));
    }

    #[test]
    fn numbers_print_as_in_js() {
        let cases =
            [(1.0, "1"), (-0.0, "0"), (1.5, "1.5"), (0.1, "0.1"), (f64::NAN, "NaN"), (f64::INFINITY, "Infinity")];
        for (x, text) in cases {
            assert_eq!(number_text(x), text);
        }
        assert_eq!(number_text(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(number_text(9_007_199_254_740_991.0), "9007199254740991");
    }
}
