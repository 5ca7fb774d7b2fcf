//! Small text helpers.

use std::borrow::Cow;

/// At most `max_chars` characters of `s`, cut on a character boundary, with
/// `…` appended when something was cut. Never splits a UTF-8 sequence.
pub fn truncate_chars(s: &str, max_chars: usize) -> Cow<'_, str> {
    match cut_point(s, max_chars) {
        None => Cow::Borrowed(s),
        Some(byte) => Cow::Owned(format!("{}…", &s[..byte])),
    }
}

/// Appends [`truncate_chars`]`(s, max_chars)` to `out` without an intermediate copy.
pub fn push_truncated(out: &mut String, s: &str, max_chars: usize) {
    match cut_point(s, max_chars) {
        None => out.push_str(s),
        Some(byte) => {
            out.push_str(&s[..byte]);
            out.push('…');
        }
    }
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

/// A string value quoted for an error message, cut to 64 characters: an error
/// must not echo a 50 MB field back to the caller (or into logs).
pub fn quoted(s: &str) -> String {
    format!("{:?}", truncate_chars(s, 64))
}

/// A number as JS would print it (`1`, `1.5`, `NaN`, `Infinity`), for error
/// messages. Written without `f64`'s `Display`, whose float-printing machinery
/// was the largest single function in the `.wasm`.
pub fn number_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
    } else if x.fract() == 0.0 && x.abs() < 9_007_199_254_740_992.0 {
        (x as i64).to_string()
    } else {
        serde_json::Number::from_f64(x).map_or_else(String::new, |n| n.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::{number_text, push_truncated, truncate_chars};

    #[test]
    fn push_truncated_appends_what_truncate_chars_returns() {
        for s in ["", "abc", "abcd", "abcde", "éé", "aéé", "ééé", "abé", "ab€d", "日本語テキスト"] {
            for max in 0..6 {
                let mut out = String::from(">");
                push_truncated(&mut out, s, max);
                assert_eq!(out, format!(">{}", truncate_chars(s, max)), "{s:?} {max}");
            }
        }
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
