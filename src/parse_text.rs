//! Messages read straight from JSON text, the fast path of
//! [`parse_messages_text`](crate::parse::parse_messages_text): the fields the
//! model knows go into it without a `serde_json::Value` tree in between.
//!
//! It answers only when its answer is the one the `Value` path (`parse.rs`)
//! gives. A message or block it does not read the usual way (escaped keys, the
//! type after other fields, an unknown block type) is read through a `Value`
//! and `parse.rs` on its own; a mistake anywhere makes it give up, and the
//! caller runs the `Value` path on the whole text, which names the mistake
//! exactly as before.

use serde_json::{Map, Value};

use crate::json_writer::next_escaped;
use crate::message::{
    new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock, ToolResultContent,
    ToolUseBlock, TurnId,
};
use crate::parse::{nested_blocks, parse_block_owned, parse_message_owned};
use crate::time::is_rfc3339;

/// An array of messages, or `None` for the `Value` path to decide.
pub fn messages(text: &str) -> Option<Vec<Message>> {
    let mut r = Reader { text, pos: 0, scratch: Vec::new() };
    let mut messages = Vec::new();
    r.items(|r| {
        messages.push(r.message()?);
        Some(())
    })?;
    r.end()?;
    Some(messages)
}

/// One message, or `None` for the `Value` path to decide.
pub fn message(text: &str) -> Option<Message> {
    let mut r = Reader { text, pos: 0, scratch: Vec::new() };
    let message = r.message_at(0)?;
    r.end()?;
    Some(message)
}

/// A JSON value with `depth` containers around it (as in a message of an
/// array of messages), or `None` when the `Value` path would refuse its nesting.
pub fn value_at(text: &str, depth: usize) -> Option<Value> {
    let mut r = Reader { text, pos: 0, scratch: Vec::new() };
    let value = r.value(depth)?;
    r.end()?;
    Some(value)
}

/// Nesting (arrays and objects around a value, plus its own) beyond which this
/// reader gives up: serde_json refuses more than 128 levels, counted from the
/// whole text, while the `Value`s here are read on their own.
const MAX_DEPTH: usize = 100;

struct Reader<'a> {
    text: &'a str,
    pos: usize,
    /// Where strings with escapes are decoded, then copied at their exact size.
    scratch: Vec<u8>,
}

/// Stores a field's value: the last one, when a field is written twice, as
/// serde_json's maps keep.
fn set<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    *slot = Some(value);
    Some(())
}

impl<'a> Reader<'a> {
    /// The next byte after whitespace, not consumed.
    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        match self.text.as_bytes().get(self.pos) {
            // Whitespace, or a byte JSON has no place for outside strings.
            Some(&b) if b <= b' ' => self.skip_whitespace(),
            next => next.copied(),
        }
    }

    /// [`Self::peek`] past whitespace (which JSON.stringify does not write).
    #[inline(never)]
    fn skip_whitespace(&mut self) -> Option<u8> {
        let s = self.text.as_bytes();
        while matches!(s.get(self.pos), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
        s.get(self.pos).copied()
    }

    /// Consumes `byte` if it comes next. Inlined, as are [`Self::expect`],
    /// [`Self::object`] and [`Self::plain_string`]: they run for every bracket,
    /// colon, comma and key (6,000 messages, in wasm: 1.5 ms less than calls).
    #[inline(always)]
    fn eat(&mut self, byte: u8) -> bool {
        let next = matches!(self.peek(), Some(next) if next == byte);
        self.pos += usize::from(next);
        next
    }

    /// [`Self::eat`], or `None` for `?`.
    #[inline(always)]
    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    /// Only whitespace left.
    fn end(&mut self) -> Option<()> {
        self.peek().is_none().then_some(())
    }

    /// A JSON array, `item` reading each element.
    fn items(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.expect(b'[')?;
        if self.eat(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            if !self.eat(b',') {
                return self.expect(b']');
            }
        }
    }

    /// A JSON object, `field` reading each value after its key.
    #[inline(always)]
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.expect(b'{')?;
        if self.eat(b'}') {
            return Some(());
        }
        let key = self.key()?;
        field(self, key)?;
        self.more_fields(field)
    }

    /// The rest of an object after a field: more fields, then its `}`.
    #[inline(always)]
    fn more_fields(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        while self.eat(b',') {
            let key = self.key()?;
            field(self, key)?;
        }
        self.expect(b'}')
    }

    /// A key and its colon; keys with escapes are left to the `Value` path.
    #[inline(always)]
    fn key(&mut self) -> Option<&'a str> {
        let key = self.plain_string()?;
        self.expect(b':')?;
        Some(key)
    }

    /// A string without escapes, borrowed from the text (`None` for one with escapes).
    #[inline(always)]
    fn plain_string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.pos;
        let end = next_escaped(self.text.as_bytes(), start);
        matches!(self.text.as_bytes().get(end), Some(b'"')).then_some(())?;
        self.pos = end + 1;
        self.text.get(start..end)
    }

    /// A string, its escapes decoded as serde_json decodes them (`None` for a
    /// control character, an invalid escape or a lone surrogate, which it refuses).
    fn string(&mut self) -> Option<String> {
        self.expect(b'"')?;
        let s = self.text.as_bytes();
        let start = self.pos;
        let mut from = start;
        // Decoded as bytes: runs of the text between ASCII bytes, and ASCII bytes or whole characters.
        let out = &mut self.scratch;
        out.clear();
        loop {
            let end = next_escaped(s, from);
            let run = s.get(from..end)?;
            match s.get(end)? {
                b'"' if from == start => {
                    self.pos = end + 1;
                    return Some(self.text.get(start..end)?.to_owned());
                }
                b'"' => {
                    self.pos = end + 1;
                    out.extend_from_slice(run);
                    break;
                }
                b'\\' => out.extend_from_slice(run),
                _ => return None,
            }
            from = end + 2;
            match *s.get(end + 1)? {
                b'u' => {
                    let unit = hex4(s, &mut from)?;
                    let code = match unit {
                        0xD800..=0xDBFF => {
                            (s.get(from..from + 2)? == b"\\u").then_some(())?;
                            from += 2;
                            let low = hex4(s, &mut from)?;
                            (0xDC00..=0xDFFF).contains(&low).then_some(())?;
                            0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                        }
                        _ => unit,
                    };
                    // None for a lone trailing surrogate.
                    out.extend_from_slice(char::from_u32(code)?.encode_utf8(&mut [0; 4]).as_bytes());
                }
                escape => out.push(match escape {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    _ => return None,
                }),
            }
        }
        // SAFETY: the runs copied start and end next to ASCII bytes of a `str`,
        // so they are whole characters, as is everything else written.
        Some(unsafe { std::str::from_utf8_unchecked(out) }.to_owned())
    }

    /// Any JSON value, read by serde_json once its end is found; `depth` is
    /// the nesting around it.
    fn value(&mut self, depth: usize) -> Option<Value> {
        self.peek()?;
        let s = self.text.as_bytes();
        let start = self.pos;
        // Brackets are counted outside strings; a scalar ends where a value may.
        let (mut i, mut open, mut nesting) = (start, 0usize, 0);
        loop {
            match *s.get(i)? {
                b'"' => loop {
                    i = next_escaped(s, i + 1);
                    match s.get(i)? {
                        b'\\' => i += 1,
                        b'"' => break,
                        _ => {}
                    }
                },
                b'[' | b'{' => {
                    open += 1;
                    nesting = nesting.max(open);
                }
                b']' | b'}' => open = open.checked_sub(1)?,
                _ if open == 0 => {
                    while !matches!(s.get(i + 1), None | Some(b',' | b']' | b'}' | b' ' | b'\n' | b'\r' | b'\t')) {
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
            if open == 0 {
                break;
            }
        }
        self.pos = i;
        let value = serde_json::from_str(self.text.get(start..i)?).ok()?;
        (depth + nesting <= MAX_DEPTH).then_some(value)
    }

    /// An integer, as `Value::as_i64` reads it: plain digits are read here,
    /// other numbers (and what is no number) by serde_json.
    fn integer(&mut self, depth: usize) -> Option<i64> {
        self.peek()?;
        let s = self.text.as_bytes();
        let negative = matches!(s.get(self.pos), Some(b'-'));
        let start = self.pos + usize::from(negative);
        let digits = s.get(start..)?.iter().take_while(|b| b.is_ascii_digit()).count();
        // Up to 18 digits fit; serde_json refuses leading zeros and reads -0 as a float.
        let zero = matches!(s.get(start), Some(b'0'));
        let plain = (1..=18).contains(&digits) && !(zero && (digits > 1 || negative));
        if !plain || matches!(s.get(start + digits), Some(b'.' | b'e' | b'E')) {
            return self.value(depth)?.as_i64();
        }
        let n = s[start..start + digits].iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'));
        self.pos = start + digits;
        Some(if negative { -n } else { n })
    }

    /// A message of the top-level array.
    fn message(&mut self) -> Option<Message> {
        self.message_at(1)
    }

    /// A message with `depth` containers around it.
    fn message_at(&mut self, depth: usize) -> Option<Message> {
        let start = self.pos;
        if let Some(message) = self.message_fields(depth + 1) {
            return Some(message);
        }
        self.pos = start;
        parse_message_owned(self.value(depth)?, "").ok()
    }

    /// A message read field by field; `depth` counts its own braces.
    fn message_fields(&mut self, depth: usize) -> Option<Message> {
        let (mut role, mut id, mut session_id, mut turn_id, mut created_at, mut content, mut summary_of) =
            (None, None, None, None, None, None, None);
        let mut extra = Map::new();
        self.object(|r, key| match key {
            "role" => set(
                &mut role,
                match r.plain_string()? {
                    "user" => Role::User,
                    "assistant" => Role::Assistant,
                    _ => return None,
                },
            ),
            "id" => set(&mut id, r.string()?),
            "session_id" => set(&mut session_id, r.integer(depth)?),
            "turn_id" => set(&mut turn_id, r.turn_id(depth + 1)?),
            "created_at" => set(&mut created_at, r.string().filter(|s| is_rfc3339(s))?),
            "content" => set(&mut content, r.content(depth + 1)?),
            // A null `summary_of` is kept among the unknown fields.
            "summary_of" if matches!(r.peek(), Some(b'n')) => {
                r.value(depth)?.is_null().then_some(())?;
                set(&mut summary_of, None)
            }
            "summary_of" => set(&mut summary_of, Some(r.summary_of(depth + 1)?)),
            _ => {
                extra.insert(key.to_owned(), r.value(depth)?);
                Some(())
            }
        })?;
        let summary_of = match summary_of {
            Some(None) => {
                extra.insert("summary_of".to_owned(), Value::Null);
                None
            }
            s => s.flatten(),
        };
        Some(Message {
            role: role?,
            id: id.unwrap_or_else(new_message_id),
            session_id: session_id.unwrap_or(0),
            turn_id: turn_id?,
            created_at: created_at.unwrap_or_else(now_rfc3339),
            content: content?,
            summary_of,
            extra,
        })
    }

    /// `{ owner, number }`, other fields ignored as the `Value` path does.
    fn turn_id(&mut self, depth: usize) -> Option<TurnId> {
        let (mut owner, mut number) = (None, None);
        self.object(|r, key| match key {
            "owner" => set(&mut owner, r.string()?),
            "number" => set(&mut number, r.integer(depth)?),
            _ => r.value(depth).map(drop),
        })?;
        Some(TurnId { owner: owner?, number: number? })
    }

    /// `{ messages, turns }`, other fields ignored as the `Value` path does.
    fn summary_of(&mut self, depth: usize) -> Option<SummaryOf> {
        let (mut messages, mut turns) = (None, None);
        let count = |r: &mut Self| usize::try_from(r.integer(depth)?).ok();
        self.object(|r, key| match key {
            "messages" => set(&mut messages, count(r)?),
            "turns" => set(&mut turns, count(r)?),
            _ => r.value(depth).map(drop),
        })?;
        Some(SummaryOf { messages: messages?, turns: turns? })
    }

    /// A message's content blocks; `depth` counts the array's brackets.
    fn content(&mut self, depth: usize) -> Option<Vec<ContentBlock>> {
        let mut blocks = Vec::new();
        self.items(|r| {
            let start = r.pos;
            let block = match r.block_fields(depth + 1) {
                Some(block) => block,
                None => {
                    r.pos = start;
                    parse_block_owned(r.value(depth)?, "").ok()?
                }
            };
            blocks.push(block);
            Some(())
        })?;
        Some(blocks)
    }

    /// A text, tool_use or tool_result block whose first field is its type.
    fn block_fields(&mut self, depth: usize) -> Option<ContentBlock> {
        self.expect(b'{')?;
        if self.key()? != "type" {
            return None;
        }
        let ty = self.plain_string()?;
        let mut extra = Map::new();
        let mut unknown = |r: &mut Self, key: &str| {
            extra.insert(key.to_owned(), r.value(depth)?);
            Some(())
        };
        let block = match ty {
            "text" => {
                let mut text = None;
                self.more_fields(|r, key| match key {
                    "type" => None,
                    "text" => set(&mut text, r.string()?),
                    _ => unknown(r, key),
                })?;
                ContentBlock::Text(TextBlock { text: text?, extra })
            }
            "tool_use" => {
                let (mut id, mut name, mut input) = (None, None, None);
                self.more_fields(|r, key| match key {
                    "type" => None,
                    "id" => set(&mut id, r.string()?),
                    "name" => set(&mut name, r.string()?),
                    "input" => set(&mut input, r.value(depth)?),
                    _ => unknown(r, key),
                })?;
                ContentBlock::ToolUse(ToolUseBlock { id: id?, name: name?, input: input?, extra })
            }
            "tool_result" => {
                let (mut tool_use_id, mut content, mut is_error, mut compact_summary) = (None, None, None, None);
                self.more_fields(|r, key| match key {
                    "type" => None,
                    "tool_use_id" => set(&mut tool_use_id, r.string()?),
                    "content" if matches!(r.peek(), Some(b'"')) => {
                        set(&mut content, ToolResultContent::Text(r.string()?))
                    }
                    "content" => match r.value(depth)? {
                        Value::Array(blocks) => set(&mut content, nested_blocks(blocks).ok()?),
                        _ => None,
                    },
                    "is_error" => match r.value(depth)? {
                        Value::Null => set(&mut is_error, false),
                        Value::Bool(b) => set(&mut is_error, b),
                        _ => None,
                    },
                    "compact_summary" if matches!(r.peek(), Some(b'"')) => set(&mut compact_summary, Some(r.string()?)),
                    "compact_summary" => match r.value(depth)? {
                        Value::Null => set(&mut compact_summary, None),
                        _ => None,
                    },
                    _ => unknown(r, key),
                })?;
                ContentBlock::ToolResult(ToolResultBlock {
                    tool_use_id: tool_use_id?,
                    content: content?,
                    is_error: is_error.unwrap_or(false),
                    compact_summary: compact_summary.flatten(),
                    extra,
                })
            }
            _ => return None,
        };
        Some(block)
    }
}

/// Four hex digits at `*i`, which moves past them.
fn hex4(s: &[u8], i: &mut usize) -> Option<u32> {
    let mut unit = 0;
    for &b in s.get(*i..*i + 4)? {
        unit = unit * 16 + char::from(b).to_digit(16)?;
    }
    *i += 4;
    Some(unit)
}
