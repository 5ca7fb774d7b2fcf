//! The token estimate against its reference: the byte-by-byte splitter it was
//! before it was made faster (run-at-a-time word scanning), which must give the
//! same count for any text.

mod common;

use common::transcript_files::transcript_files;
use context_compactor::model::tokens::estimate_text_tokens;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::Value;

const ONE: u64 = 1_000;
const WORD_LETTERS_IN_ONE_TOKEN: u64 = 6;
const EXTRA_LETTER: u64 = 170;
const PUNCTUATION_PREFIX: u64 = 150;
const PUNCTUATION_IN_ONE_TOKEN: u64 = 3;
const EXTRA_PUNCTUATION: u64 = 300;
const NON_ASCII: [u64; 3] = [500, 900, 1_500];

fn reference(text: &str) -> i64 {
    let s = text.as_bytes();
    let mut milli = 0u64;
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        let next = s.get(i + 1).copied();
        let (end, cost) = if is_letter(b) {
            word(s, i)
        } else if is_digit(b) {
            let mut end = i;
            while end < s.len() && end - i < 3 && is_digit(s[end]) {
                end += 1;
            }
            (end, ONE)
        } else if !is_newline(b) && next.is_some_and(is_letter) {
            let (end, cost) = word(s, i + 1);
            (end, cost + if b == b' ' { 0 } else { PUNCTUATION_PREFIX })
        } else if b == b' ' && next.is_some_and(is_punctuation) {
            punctuation(s, i + 1)
        } else if is_whitespace(b) {
            whitespace(s, i)
        } else {
            punctuation(s, i)
        };
        milli += cost;
        i = end;
    }
    ((milli + ONE / 2) / ONE) as i64
}

fn word(s: &[u8], start: usize) -> (usize, u64) {
    let (mut i, mut letters, mut non_ascii, mut saw_lower) = (start, 0u64, 0u64, false);
    while i < s.len() {
        let b = s[i];
        let class = class(b);
        // Lowercase letters first: most of a word is.
        if class & LOWER != 0 {
            saw_lower = true;
        } else if class & LETTER == 0 || (class & UPPER != 0 && saw_lower) {
            break;
        } else if !b.is_ascii() {
            let len = utf8_len(b);
            non_ascii += NON_ASCII[len - 2];
            i += len;
            continue;
        }
        letters += 1;
        i += 1;
    }
    let i = i.min(s.len());
    if letters == 0 {
        return (i, non_ascii);
    }
    (i, ONE + letters.saturating_sub(WORD_LETTERS_IN_ONE_TOKEN) * EXTRA_LETTER + non_ascii)
}

fn punctuation(s: &[u8], start: usize) -> (usize, u64) {
    let mut i = start;
    while i < s.len() && is_punctuation(s[i]) {
        i += 1;
    }
    let len = (i - start) as u64;
    while i < s.len() && (is_newline(s[i]) || s[i] == b'/') {
        i += 1;
    }
    (i, ONE + len.saturating_sub(PUNCTUATION_IN_ONE_TOKEN) * EXTRA_PUNCTUATION)
}

fn whitespace(s: &[u8], start: usize) -> (usize, u64) {
    let mut end = start;
    let mut after_newline = start;
    while end < s.len() && is_whitespace(s[end]) {
        end += 1;
        if is_newline(s[end - 1]) {
            after_newline = end;
        }
    }
    let mut cost = if after_newline > start { ONE } else { 0 };
    let last = s[end - 1];
    let joins = match s.get(end) {
        Some(&next) => (!is_newline(last) && is_letter(next)) || (last == b' ' && is_punctuation(next)),
        None => false,
    };
    let own_end = if joins && end > after_newline { end - 1 } else { end };
    if own_end > after_newline {
        cost += ONE;
    }
    (own_end.max(start + 1), cost)
}

// Byte classes, looked up in one table rather than tested range by range.
const LETTER: u8 = 1;
const UPPER: u8 = 2;
const LOWER: u8 = 4;
const DIGIT: u8 = 8;
const PUNCTUATION: u8 = 16;
const WHITESPACE: u8 = 32;
const NEWLINE: u8 = 64;

const CLASSES: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        table[i] = if !b.is_ascii() {
            LETTER
        } else if b.is_ascii_uppercase() {
            LETTER | UPPER
        } else if b.is_ascii_lowercase() {
            LETTER | LOWER
        } else if b.is_ascii_digit() {
            DIGIT
        } else if b == b'\n' || b == b'\r' {
            WHITESPACE | NEWLINE
        } else if b.is_ascii_whitespace() {
            WHITESPACE
        } else {
            PUNCTUATION
        };
        i += 1;
    }
    table
};

#[inline(always)]
fn class(b: u8) -> u8 {
    CLASSES[b as usize]
}

#[inline(always)]
fn is_letter(b: u8) -> bool {
    class(b) & LETTER != 0
}

#[inline(always)]
fn is_digit(b: u8) -> bool {
    class(b) & DIGIT != 0
}

#[inline(always)]
fn is_punctuation(b: u8) -> bool {
    class(b) & PUNCTUATION != 0
}

#[inline(always)]
fn is_newline(b: u8) -> bool {
    class(b) & NEWLINE != 0
}

#[inline(always)]
fn is_whitespace(b: u8) -> bool {
    class(b) & WHITESPACE != 0
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        _ => 2,
    }
}

/// Every string in `value`, keys included.
fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k);
            strings(v, out)
        }),
        _ => {}
    }
}

#[test]
fn every_transcript_string_and_file_counts_as_the_reference_counts_it() {
    let mut checked = 0;
    for path in transcript_files("") {
        let text = std::fs::read_to_string(&path).expect("readable transcript");
        assert_eq!(estimate_text_tokens(&text), reference(&text), "{}", path.display());
        let Ok(value) = serde_json::from_str::<Value>(&text) else { continue };
        let mut all = Vec::new();
        strings(&value, &mut all);
        for s in all {
            assert_eq!(estimate_text_tokens(s), reference(s), "{s:?}");
            checked += 1;
        }
    }
    assert!(checked > 4_000, "only {checked} strings");
}

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(512);
    Config { cases, failure_persistence: None, ..Config::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_text_counts_as_the_reference_counts_it(
        text in prop_oneof![
            // Runs of each byte class, so that words, runs and their ends meet in every way.
            "([a-z]{1,12}|[A-Z]{1,3}|[0-9]{1,4}|[ ]{1,3}|[\n\r\t]{1,2}|[-.,;:/_(){}\"'=]{1,4}|[éЖ中😀]{1,2}){0,24}",
            // Prose: words, capitalised or camelCase, between spaces, punctuation and newlines.
            "(([a-z]{1,9}|[A-Z][a-z]{0,8}|[a-z]{1,4}[A-Z][a-z]{0,4}|[A-Z]{2,3})( |  |\n| \n|\n |\n\n|, |\r\n|\t)){0,40}",
            // Scripts without spaces: long runs of 2-, 3- and 4-byte characters, met by ASCII.
            "([a-zA-Z]{0,3}[éЖß中文。、😀🎉]{1,24}[ \n.0-9]{0,2}){0,16}",
            // One script at a time: runs of characters of one length, long and short, so that
            // the estimate's eight-at-a-time steps end at every place in them.
            "([a-z ]{0,3}([中文。、]{1,40}|[éЖßя]{1,40}|[😀🎉]{1,20})[ \n.0-9]{0,2}){0,12}",
            any::<String>(),
        ]
    ) {
        prop_assert_eq!(estimate_text_tokens(&text), reference(&text), "{:?}", text);
    }
}
