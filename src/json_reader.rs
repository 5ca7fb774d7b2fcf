//! JSON text to `serde_json::Value`, as `serde_json::from_str` reads it, without
//! serde_json's deserializer in the `.wasm` (8 KB gzip with its float tables and
//! `std::io` error texts). The same reader serves [`crate::parse_text`], which
//! reads messages field by field.
//!
//! What it accepts is what serde_json accepts: RFC 8259 JSON, at most 127
//! nested arrays and objects, strings without control characters or lone
//! surrogates, the last of repeated keys. Numbers read as serde_json reads them
//! (`u64`, then `i64`, else `f64`), floats correctly rounded as `JSON.parse`
//! rounds them; a number beyond `f64` is an error.

use std::fmt;

use serde_json::{Map, Number, Value};

use crate::float_text::decimal_to_f64;
use crate::json_writer::next_escaped;

/// Text that is not JSON (or nests too deep): what went wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    reason: &'static str,
    /// 1-based line and column (in bytes) of the byte where reading stopped.
    line: usize,
    column: usize,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {} column {}", self.reason, self.line, self.column)
    }
}

impl std::error::Error for JsonError {}

/// Reads `text`, one JSON value with optional whitespace around it.
pub fn read_value(text: &str) -> Result<Value, JsonError> {
    let mut r = Reader::new(text, MAX_NESTING);
    match r.value(0).and_then(|value| r.end().map(|()| value)) {
        Some(value) => Ok(value),
        None => Err(r.error()),
    }
}

/// Arrays and objects [`read_value`] allows around a value, its own included:
/// serde_json refuses a 128th level of nesting.
pub(crate) const MAX_NESTING: usize = 127;

/// A position in JSON text, with what reading needs there.
pub(crate) struct Reader<'a> {
    pub(crate) text: &'a str,
    pub(crate) pos: usize,
    /// Where strings with escapes are decoded, then copied at their exact size.
    scratch: Vec<u8>,
    /// Arrays and objects allowed around a value, its own included.
    max_nesting: usize,
    /// Why reading stopped, when it was not simply a byte out of place.
    reason: Option<&'static str>,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`, refusing values nested deeper than `max_nesting`.
    pub(crate) fn new(text: &'a str, max_nesting: usize) -> Self {
        Self { text, pos: 0, scratch: Vec::new(), max_nesting, reason: None }
    }

    /// Why and where reading stopped.
    fn error(&mut self) -> JsonError {
        let at = self.pos.min(self.text.len());
        let reason = self.reason.unwrap_or(match self.text.len() <= self.pos {
            true => "EOF while parsing",
            false => "invalid JSON",
        });
        let before = &self.text.as_bytes()[..at];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) + 1;
        JsonError { reason, line, column }
    }

    /// Gives up with `reason`.
    fn fail<T>(&mut self, reason: &'static str) -> Option<T> {
        self.reason = Some(reason);
        None
    }

    /// Any JSON value; `depth` arrays and objects are around it.
    pub(crate) fn value(&mut self, depth: usize) -> Option<Value> {
        Some(match self.peek()? {
            b'"' => Value::String(self.string()?),
            b'[' => {
                let depth = self.nest(depth)?;
                let mut items = Vec::new();
                self.items(|r| {
                    items.push(r.value(depth)?);
                    Some(())
                })?;
                Value::Array(items)
            }
            b'{' => {
                let depth = self.nest(depth)?;
                let mut map = Map::new();
                self.pos += 1;
                if !self.eat(b'}') {
                    loop {
                        if self.peek()? != b'"' {
                            return self.fail("key must be a string");
                        }
                        let key = self.string()?;
                        self.expect(b':')?;
                        let value = self.value(depth)?;
                        map.insert(key, value);
                        if !self.eat(b',') {
                            self.expect(b'}')?;
                            break;
                        }
                    }
                }
                Value::Object(map)
            }
            b't' => self.word("true", Value::Bool(true))?,
            b'f' => self.word("false", Value::Bool(false))?,
            b'n' => self.word("null", Value::Null)?,
            _ => self.number()?,
        })
    }

    /// The depth inside one more array or object, if allowed.
    fn nest(&mut self, depth: usize) -> Option<usize> {
        match depth < self.max_nesting {
            true => Some(depth + 1),
            false => self.fail("recursion limit exceeded"),
        }
    }

    /// `word` (true, false or null) as `value`.
    fn word(&mut self, word: &str, value: Value) -> Option<Value> {
        self.text.as_bytes()[self.pos..].starts_with(word.as_bytes()).then_some(())?;
        self.pos += word.len();
        Some(value)
    }

    /// A number: a `u64`, else a negative `i64`, else the nearest `f64`.
    fn number(&mut self) -> Option<Value> {
        let s = self.text.as_bytes();
        let digits_from = |i: usize| i + s.get(i..).map_or(0, |t| t.iter().take_while(|b| b.is_ascii_digit()).count());
        let negative = s.get(self.pos) == Some(&b'-');
        let int_start = self.pos + usize::from(negative);
        let int_end = digits_from(int_start);
        // One digit at least, and no leading zero.
        if int_end == int_start && !negative {
            return self.fail("expected value");
        }
        if int_end == int_start || (s[int_start] == b'0' && int_end > int_start + 1) {
            return self.fail("invalid number");
        }
        let mut i = int_end;
        let mut frac = &s[i..i];
        if s.get(i) == Some(&b'.') {
            let end = digits_from(i + 1);
            if end == i + 1 {
                self.pos = end;
                return self.fail("invalid number");
            }
            frac = &s[i + 1..end];
            i = end;
        }
        let mut exponent = 0i64;
        let float = !frac.is_empty() || matches!(s.get(i), Some(b'e' | b'E'));
        if matches!(s.get(i), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
            let end = digits_from(i + 1 + sign);
            if end == i + 1 + sign {
                self.pos = end;
                return self.fail("invalid number");
            }
            // Saturated: past ±10^12 the value is 0 or out of range anyway.
            for d in &s[i + 1 + sign..end] {
                exponent = (exponent * 10 + i64::from(d - b'0')).min(1_000_000_000_000);
            }
            if s[i + 1] == b'-' {
                exponent = -exponent;
            }
            i = end;
        }
        self.pos = i;
        let int = &s[int_start..int_end];
        if !float && int.len() <= 20 {
            let n = int.iter().try_fold(0u64, |n, d| n.checked_mul(10)?.checked_add(u64::from(d - b'0')));
            match (n, negative) {
                (Some(n), false) => return Some(Value::Number(n.into())),
                (Some(n @ 1..=0x8000_0000_0000_0000), true) => {
                    return Some(Value::Number((n as i64).wrapping_neg().into()));
                }
                _ => {}
            }
        }
        let x = decimal_to_f64(int, frac, exponent);
        match Number::from_f64(if negative { -x } else { x }) {
            Some(n) => Some(Value::Number(n)),
            None => self.fail("number out of range"),
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline(always)]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        match self.text.as_bytes().get(self.pos) {
            // Whitespace, or a byte JSON has no place for outside strings.
            Some(&b) if b <= b' ' => self.skip_whitespace(),
            next => next.copied(),
        }
    }

    /// [`Self::peek`] past whitespace (which JSON.stringify does not write).
    #[inline(never)]
    pub(crate) fn skip_whitespace(&mut self) -> Option<u8> {
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
    pub(crate) fn eat(&mut self, byte: u8) -> bool {
        let next = matches!(self.peek(), Some(next) if next == byte);
        self.pos += usize::from(next);
        next
    }

    /// [`Self::eat`], or `None` for `?`.
    #[inline(always)]
    pub(crate) fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    /// Only whitespace left.
    pub(crate) fn end(&mut self) -> Option<()> {
        self.peek().is_none().then_some(())
    }

    /// A JSON array, `item` reading each element.
    pub(crate) fn items(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
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
    pub(crate) fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
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
    pub(crate) fn more_fields(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        while self.eat(b',') {
            let key = self.key()?;
            field(self, key)?;
        }
        self.expect(b'}')
    }

    /// A key and its colon; keys with escapes are left to the `Value` path.
    #[inline(always)]
    pub(crate) fn key(&mut self) -> Option<&'a str> {
        let key = self.plain_string()?;
        self.expect(b':')?;
        Some(key)
    }

    /// A string without escapes, borrowed from the text (`None` for one with escapes).
    #[inline(always)]
    pub(crate) fn plain_string(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.pos;
        let end = next_escaped(self.text.as_bytes(), start);
        matches!(self.text.as_bytes().get(end), Some(b'"')).then_some(())?;
        self.pos = end + 1;
        self.text.get(start..end)
    }

    /// A string, its escapes decoded as serde_json decodes them (`None` for a
    /// control character, an invalid escape or a lone surrogate, which it refuses).
    pub(crate) fn string(&mut self) -> Option<String> {
        self.expect(b'"')?;
        let s = self.text.as_bytes();
        let start = self.pos;
        let mut from = start;
        // Decoded as bytes: runs of the text between ASCII bytes, and ASCII bytes or whole characters.
        let out = &mut self.scratch;
        out.clear();
        // Where and why a string cannot be read (the loop returns the ones that can).
        let (at, reason) = loop {
            let end = next_escaped(s, from);
            let Some(run) = s.get(from..end) else { break (end, "invalid JSON") };
            match s.get(end) {
                Some(b'"') if from == start => {
                    self.pos = end + 1;
                    return self.text.get(start..end).map(str::to_owned);
                }
                Some(b'"') => {
                    self.pos = end + 1;
                    out.extend_from_slice(run);
                    // SAFETY: the runs copied start and end next to ASCII bytes of a `str`,
                    // so they are whole characters, as is everything else written.
                    return Some(unsafe { std::str::from_utf8_unchecked(out) }.to_owned());
                }
                Some(b'\\') => out.extend_from_slice(run),
                Some(_) => break (end, "control character in a string"),
                None => break (end, "EOF while parsing a string"),
            }
            from = end + 2;
            let lone = (end, "lone surrogate in a string");
            match s.get(end + 1) {
                Some(b'u') => {
                    let Some(unit) = hex4(s, &mut from) else { break (end, "invalid escape") };
                    let code = match unit {
                        0xD800..=0xDBFF => {
                            if s.get(from..from + 2) != Some(b"\\u") {
                                break lone;
                            }
                            from += 2;
                            match hex4(s, &mut from) {
                                Some(low @ 0xDC00..=0xDFFF) => 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00),
                                Some(_) => break lone,
                                None => break (from - 2, "invalid escape"),
                            }
                        }
                        _ => unit,
                    };
                    // None for a lone trailing surrogate.
                    let Some(c) = char::from_u32(code) else { break lone };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                Some(escape) => out.push(match escape {
                    b'"' => b'"',
                    b'\\' => b'\\',
                    b'/' => b'/',
                    b'b' => 0x08,
                    b'f' => 0x0c,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    _ => break (end, "invalid escape"),
                }),
                None => break (end, "EOF while parsing a string"),
            }
        };
        self.pos = at;
        self.fail(reason)
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
