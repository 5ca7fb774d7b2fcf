//! A fast token estimate, for when no provider figure is at hand.
//!
//! It splits text the way o200k_base's pre-tokenizer does (no vocabulary, one pass
//! over the bytes) and charges each piece what pieces of its kind cost on average.
//! The costs were read off o200k_base on a corpus unrelated to the test transcripts
//! (Python, Rust and TypeScript sources and Markdown docs): `node
//! scripts/token-calibration.mjs` prints that table and the estimate's error there.

use serde_json::Value;

use crate::model::message::{ContentBlock, Message, ToolResultContent};

/// Tokens a provider adds around each message (role markers and separators):
/// a message's estimate is this plus its blocks'.
pub const MESSAGE_OVERHEAD: i64 = 4;
/// Tokens a tool call or tool result adds around its content.
const BLOCK_OVERHEAD: i64 = 3;
/// A flat estimate for an image or document block.
const MEDIA_TOKENS: i64 = 1_600;

/// Estimated tokens of a whole conversation.
pub fn estimate_tokens(conversation: &[Message]) -> i64 {
    conversation.iter().map(estimate_message_tokens).sum()
}

/// Estimated tokens of one message.
pub fn estimate_message_tokens(message: &Message) -> i64 {
    estimate_message_with(&message.content)
}

/// Estimated tokens of a message holding `blocks`.
pub fn estimate_message_with<'a>(blocks: impl IntoIterator<Item = &'a ContentBlock>) -> i64 {
    MESSAGE_OVERHEAD + blocks.into_iter().map(estimate_block_tokens).sum::<i64>()
}

/// Estimated tokens of one content block.
pub fn estimate_block_tokens(block: &ContentBlock) -> i64 {
    match block {
        ContentBlock::Text(t) => estimate_text_tokens(&t.text),
        ContentBlock::ToolUse(u) => BLOCK_OVERHEAD + estimate_text_tokens(&u.name) + estimate_json_tokens(&u.input),
        ContentBlock::ToolResult(r) => match &r.content {
            ToolResultContent::Text(t) => estimate_tool_result_tokens(t),
            ToolResultContent::Blocks(blocks) => {
                BLOCK_OVERHEAD + blocks.iter().map(estimate_nested_block_tokens).sum::<i64>()
            }
        },
        ContentBlock::Other(map) => match map.get("type").and_then(Value::as_str) {
            Some("image") | Some("document") => MEDIA_TOKENS,
            _ => map.iter().filter(|(k, _)| k.as_str() != "type").map(|(_, v)| estimate_json_tokens(v)).sum(),
        },
    }
}

/// Estimated tokens of a tool result block whose content is the string `text`.
pub fn estimate_tool_result_tokens(text: &str) -> i64 {
    BLOCK_OVERHEAD + estimate_text_tokens(text)
}

/// Estimated tokens of a block of a tool result's content: its text, a flat
/// figure for media, else its JSON.
fn estimate_nested_block_tokens(block: &ContentBlock) -> i64 {
    match block {
        ContentBlock::Text(t) => estimate_text_tokens(&t.text),
        ContentBlock::Other(map) => match map.get("type").and_then(Value::as_str) {
            Some("image") | Some("document") => MEDIA_TOKENS,
            _ => match map.get("text").and_then(Value::as_str) {
                Some(text) => estimate_text_tokens(text),
                None => estimate_text_tokens(&crate::json_text::map_text(map)),
            },
        },
        block => estimate_json_tokens(&block.to_value()),
    }
}

/// Estimated tokens of a JSON value as the model sees it (serialized).
pub fn estimate_json_tokens(value: &Value) -> i64 {
    estimate_text_tokens(&crate::text::json_string(value))
}

/// One token, in the thousandths the estimate adds up.
const ONE: u64 = 1_000;
/// Letters a word may have and still be one token (most words up to this length are).
const WORD_LETTERS_IN_ONE_TOKEN: u64 = 6;
/// Each letter beyond that: long words and identifiers split every five or six letters.
const EXTRA_LETTER: u64 = 170;
/// A word glued to the punctuation character before it (`.append`, `_name`, `/usr`)
/// is rarer as a whole than the same word after a space.
const PUNCTUATION_PREFIX: u64 = 150;
/// Punctuation characters a run may have and still be one token (`",`, `);`, `->`, `===`).
const PUNCTUATION_IN_ONE_TOKEN: u64 = 3;
/// Each punctuation character beyond that.
const EXTRA_PUNCTUATION: u64 = 300;
/// A non-ASCII character by its UTF-8 length: accented Latin, Greek and Cyrillic
/// letters (2 bytes) are about half a token, CJK (3 bytes) nearly one, emoji (4) more.
const NON_ASCII: [u64; 3] = [500, 900, 1_500];

/// Estimated tokens of a piece of text.
///
/// Splits the text as o200k_base's pre-tokenizer does: words with at most one
/// leading space or punctuation character, split at camelCase humps; digits in
/// groups of three; punctuation runs with their trailing newlines and slashes;
/// whitespace runs, whose last space joins the next piece.
pub fn estimate_text_tokens(text: &str) -> i64 {
    let s = text.as_bytes();
    let mut milli = 0u64;
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        // Only a piece that starts with an ASCII letter can be counted there.
        if (b == b' ' || b == b'\n') && s.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            if let Some((end, cost)) = spaced_words(s, i) {
                milli += cost;
                i = end;
                continue;
            }
        }
        let next = s.get(i + 1).copied();
        // A word, alone or after one space or punctuation character (not a digit
        // nor a newline): the one place `word` is called, so that it is inlined.
        let prefixed = !is_letter(b) && !is_digit(b) && !is_newline(b) && next.is_some_and(is_letter);
        let (end, cost) = if is_letter(b) || prefixed {
            let (end, cost) = word(s, i + usize::from(prefixed));
            (end, cost + if prefixed && b != b' ' { PUNCTUATION_PREFIX } else { 0 })
        } else if is_digit(b) {
            let mut end = i;
            while end < s.len() && end - i < 3 && is_digit(s[end]) {
                end += 1;
            }
            (end, ONE)
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

/// A word from `start` (a letter): its end and cost.
#[inline(always)]
fn word(s: &[u8], start: usize) -> (usize, u64) {
    let (mut i, mut letters, mut non_ascii, mut saw_lower) = (start, 0u64, 0u64, false);
    while i < s.len() {
        let b = s[i];
        let class = class(b);
        // Lowercase letters first: most of a word is.
        if class & LOWER != 0 {
            let run = lowercase_run(s, i);
            saw_lower = true;
            letters += run as u64;
            i += run;
            continue;
        } else if class & LETTER == 0 || (class & UPPER != 0 && saw_lower) {
            break;
        } else if !b.is_ascii() {
            // With the characters of the same length after it (a run of Chinese,
            // or of Cyrillic letters): the tests above pass any non-ASCII byte.
            let len = utf8_len(b);
            let start = i;
            i = same_length_run_end(s, i + len, len);
            non_ascii += ((i - start) / len) as u64 * NON_ASCII[len - 2];
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

/// Where a run of `len`-byte characters that goes on at `i` (a character's first byte)
/// ends: at the first ASCII byte, or first byte of a character of another length. Eight
/// bytes at a time while there are: Chinese text is mostly such runs.
#[inline(always)]
fn same_length_run_end(s: &[u8], mut i: usize, len: usize) -> usize {
    // A first byte of a `len`-byte character has its `len` high bits set and the next
    // clear: bits 5 and 4 (moved to bit 7 below) must be as `want5` and `want4` say,
    // bit 4 only where `check4` does.
    let (want5, want4, check4) = match len {
        2 => (0, 0, 0),
        3 => (!0u64, 0, !0u64),
        _ => (!0u64, !0u64, !0u64),
    };
    while let Some(x) = word_at(s, i) {
        let first = x & x << 1;
        let other = first & ((x << 2 ^ want5) | (x << 3 ^ want4) & check4);
        let stop = (!x | other) & HIGH_BITS;
        if stop != 0 {
            return i + (stop.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    // The last bytes one at a time (`i` may be within a character).
    while s.get(i).is_some_and(|&b| !b.is_ascii() && (b < 0xC0 || utf8_len(b) == len)) {
        i += 1;
    }
    i
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// How many lowercase ASCII letters start `s[i..]` (`s[i]` is one), counted up
/// to eight at a time; 1 when fewer than eight bytes are left (never 0).
#[inline(always)]
fn lowercase_run(s: &[u8], i: usize) -> usize {
    let Some(x) = word_at(s, i) else { return 1 };
    let lowercase = in_range(x, b'a', b'z');
    ((!lowercase & HIGH_BITS).trailing_zeros() / 8).max(1) as usize
}

/// Bytes of text [`spaced_words`] looks at in one go: prose runs a few
/// dozen bytes between stops (punctuation, digits), and the work per call
/// beyond the bytes themselves is then spread over more of them.
const WINDOW: usize = 64;

/// Prose, [`WINDOW`] bytes at a time: from `i` (a space or a newline), the
/// pieces " word" and "\nword" (ASCII letters without a camelCase hump) that
/// end at a space or newline within those bytes, counted as the loop in
/// [`estimate_text_tokens`] counts them one by one: " word" as a word, "\n"
/// as one token and "word" as a word. Their end and cost, or `None` if there
/// is none.
#[inline(always)]
fn spaced_words(s: &[u8], i: usize) -> Option<(usize, u64)> {
    // One bit per byte. Bytes past the end of `s` read as zeros, which stop counting.
    let (mut space, mut newline, mut letter, mut upper) = (0u64, 0u64, 0u64, 0u64);
    for k in (0..WINDOW).step_by(8) {
        let x = word_or_zeros(s, i + k);
        space |= bits(in_range(x, b' ', b' ')) << k;
        newline |= bits(in_range(x, b'\n', b'\n')) << k;
        // ASCII letters are the bytes that are lowercase letters once 0x20 is
        // set; uppercase ones are those among them with 0x20 clear.
        let ascii_letter = in_range(x | (ONES * 0x20), b'a', b'z');
        letter |= bits(ascii_letter) << k;
        upper |= bits(ascii_letter & !(x << 2)) << k;
    }
    let (gap, lower) = (space | newline, letter & !upper);
    // Counting stops at the first byte that is none of these, the second of
    // two gaps in a row, or an uppercase letter after a lowercase one.
    let stop = !(gap | letter) | gap & gap << 1 | upper & lower << 1;
    // The gaps below the lowest stop (all of them when there is none).
    let gaps = gap & (stop & stop.wrapping_neg()).wrapping_sub(1);
    // The last gap before the stop starts a piece that may go on past it.
    let last = 63 - gaps.leading_zeros();
    if last == 0 {
        return None;
    }
    let counted = (1 << last) - 1;
    let letters = letter & counted;
    // Letters with six letters before them in their word: runs of 2, 4, 6, then 7.
    const _: () = assert!(WORD_LETTERS_IN_ONE_TOKEN == 6);
    let two = letters & letters << 1;
    let four = two & two << 2;
    let long = four & two << 4 & letters << 6;
    let tokens = u64::from((gaps & counted).count_ones() + (newline & counted).count_ones());
    Some((i + last as usize, tokens * ONE + u64::from(long.count_ones()) * EXTRA_LETTER))
}

/// [`word_at`], with zeros for the bytes past the end of `s`.
#[inline(always)]
fn word_or_zeros(s: &[u8], i: usize) -> u64 {
    word_at(s, i).unwrap_or_else(|| {
        let mut bytes = [0; 8];
        let tail = s.get(i..).unwrap_or_default();
        bytes[..tail.len()].copy_from_slice(tail);
        u64::from_le_bytes(bytes)
    })
}

/// The eight bytes of `s` from `i`, little-endian.
#[inline(always)]
fn word_at(s: &[u8], i: usize) -> Option<u64> {
    Some(u64::from_le_bytes(s.get(i..i + 8)?.try_into().ok()?))
}

/// 0x80 in each byte of `x` within `lo..=hi` (ASCII), 0 in the others;
/// bytes are computed apart, no carry runs between them.
#[inline(always)]
fn in_range(x: u64, lo: u8, hi: u8) -> u64 {
    let low7 = x & !HIGH_BITS;
    let at_least_lo = low7 + ONES * (0x80 - u64::from(lo));
    let above_hi = low7 + ONES * (0x7F - u64::from(hi));
    at_least_lo & !above_hi & !x & HIGH_BITS
}

/// The high bits of `flags`' bytes, as the bits 0..8 (byte order).
#[inline(always)]
fn bits(flags: u64) -> u64 {
    (flags >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// A punctuation run from `start`: its end (past trailing newlines and slashes) and cost.
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

/// A whitespace run from `start`: one token up to its last newline, one for the spaces
/// after it, except that the last space is left to a word or punctuation run after it.
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

/// The classes of each byte. Letters are ASCII letters and any non-ASCII byte
/// (most non-ASCII characters are letters of some script); punctuation is any
/// other ASCII byte that is neither a digit nor whitespace.
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

#[inline(always)]
fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        _ => 2,
    }
}
