//! Small text helpers.

use std::borrow::Cow;

/// At most `max_chars` characters of `s`, cut on a character boundary, with
/// `…` appended when something was cut. Never splits a UTF-8 sequence.
pub fn truncate_chars(s: &str, max_chars: usize) -> Cow<'_, str> {
    match s.char_indices().nth(max_chars) {
        None => Cow::Borrowed(s),
        Some((byte, _)) => Cow::Owned(format!("{}…", &s[..byte])),
    }
}

/// A string value quoted for an error message, cut to 64 characters: an error
/// must not echo a 50 MB field back to the caller (or into logs).
pub fn quoted(s: &str) -> String {
    format!("{:?}", truncate_chars(s, 64))
}
