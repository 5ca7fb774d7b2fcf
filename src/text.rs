//! Text for people: values quoted in error messages, and excerpts cut to a
//! number of characters (summaries, prompts, error bodies).

use std::borrow::Cow;

use serde_json::Value;

/// A string value quoted for an error message, cut to 64 characters (an error
/// must not echo a 50 MB field back to the caller, or into logs), and escaped
/// as JSON escapes it, so that it reads as the JS string it came from.
pub fn quoted(s: &str) -> String {
    json_string(&Value::from(truncate_chars(s, 64).into_owned()))
}

/// `value` as compact JSON text.
pub fn json_string(value: &Value) -> String {
    let mut out = Vec::new();
    crate::json_text::write_value(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

/// A number as JavaScript writes it (`1`, `1.5`, `NaN`, `Infinity`), for error
/// messages about numbers that came from JS.
pub fn number_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if x.fract() == 0.0 && x.abs() < 9e18 {
        (x as i64).to_string()
    } else {
        // serde_json writes floats as shortest round trips, as JavaScript does.
        serde_json::Number::from_f64(x).map_or_else(String::new, |n| n.to_string())
    }
}

/// The byte index where `s` is cut to keep `max_chars` characters, or `None`
/// when it is not longer than that. Text whose first `max_chars` bytes are
/// ASCII (most tool output) is cut without counting characters.
fn cut_point(s: &str, max_chars: usize) -> Option<usize> {
    match s.as_bytes().get(..max_chars) {
        None => None,
        Some(head) if head.is_ascii() => (s.len() > max_chars).then_some(max_chars),
        Some(_) => s.char_indices().nth(max_chars).map(|(i, _)| i),
    }
}

/// At most `max_chars` characters of `s`, with `…` appended when something was cut.
pub fn truncate_chars(s: &str, max_chars: usize) -> Cow<'_, str> {
    match cut_point(s, max_chars) {
        None => Cow::Borrowed(s),
        Some(i) => Cow::Owned(format!("{}…", &s[..i])),
    }
}

/// [`truncate_chars`] of a `String` of one's own, cut in place.
pub fn truncate_string(mut s: String, max_chars: usize) -> String {
    if let Some(i) = cut_point(&s, max_chars) {
        s.truncate(i);
        s.push('…');
    }
    s
}

/// Appends [`truncate_chars`]`(s, max_chars)` to `out`.
pub fn push_truncated(out: &mut String, s: &str, max_chars: usize) {
    match cut_point(s, max_chars) {
        None => out.push_str(s),
        Some(i) => {
            out.push_str(&s[..i]);
            out.push('…');
        }
    }
}

/// Appends the JSON of `value`, cut to `max_chars` characters: written only as
/// far as the cut needs, so that a large value costs no more than a short one.
pub fn push_json_truncated(out: &mut String, value: &Value, max_chars: usize) {
    // One byte past `max_chars` tells whether ASCII JSON is cut; other text may
    // need up to 4 bytes a character, so it is written again that far.
    let mut bytes = json_prefix(value, max_chars.saturating_add(1));
    if !bytes.is_ascii() {
        bytes = json_prefix(value, max_chars.saturating_mul(4).saturating_add(4));
    }
    // The byte limit may have cut the last character: keep what is whole.
    let text = match std::str::from_utf8(&bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    push_truncated(out, text, max_chars);
}

/// The first `limit` bytes (or fewer) of `value`'s compact JSON.
fn json_prefix(value: &Value, limit: usize) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(limit.min(4096));
    crate::json_text::write_within(&mut bytes, value, limit);
    bytes.truncate(limit);
    bytes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{number_text, push_json_truncated, truncate_chars};

    #[test]
    fn excerpts_cut_on_characters() {
        assert_eq!(truncate_chars("héllo", 2), "hé…");
        assert_eq!(truncate_chars("héllo", 5), "héllo");
        // Cut inside a string, plain or of escapes and characters of every length.
        let values = [
            json!({ "path": "src/é.rs", "body": "x".repeat(10_000) }),
            json!(["a\"\n\u{1}é中😀".repeat(2_000), { "k": "v" }]),
        ];
        for value in values {
            for max in [0, 1, 7, 20, 33, 100, 1_001] {
                let mut out = String::new();
                push_json_truncated(&mut out, &value, max);
                assert_eq!(out, truncate_chars(&value.to_string(), max), "{max}");
            }
        }
    }

    #[test]
    fn numbers_read_as_in_javascript() {
        assert_eq!(number_text(1.0), "1");
        assert_eq!(number_text(1.5), "1.5");
        assert_eq!(number_text(-0.25), "-0.25");
        assert_eq!(number_text(9_007_199_254_740_992.0), "9007199254740992");
        assert_eq!(number_text(f64::NAN), "NaN");
        assert_eq!(number_text(f64::NEG_INFINITY), "-Infinity");
    }
}
