//! The tape: the form JSON-compatible values take to cross between WebAssembly and
//! JavaScript in one batch (`src/wasm/values.{rs,js}`). Three arrays: `ops`, one per
//! value or key (a tag in the low three bits, a length or count above them),
//! `numbers`, and `bytes`: the strings' UTF-8, back to back. An object's keys are
//! numbered as they first appear; a key seen before crosses as its number.
//!
//! [`Reader`] reads a tape that JS wrote into a `Value`, or an array of messages
//! straight into [`Message`]s; [`Tape`] writes any `Serialize` for JS to read.
//!
//! Budgets `pushMany` and `from…`/`to…` ≤ 2.5× `JSON.stringify`: serde-wasm-bindgen
//! crosses the boundary for every field and string (6,000 messages took 55 ms in and
//! 28 ms out, 4.1× and 2.1× `JSON.stringify` of them), and JSON text costs JS a
//! stringify and a parse besides the work here.

// Used by the bindings alone; its tests run natively.
#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::collections::HashMap;
use std::fmt;

use rustc_hash::FxBuildHasher;
use serde::ser::{self, Serialize};
use serde_json::{Map, Number, Value};

use crate::model::message::{
    is_rfc3339, new_message_id, now_rfc3339, ContentBlock, Message, Role, SummaryOf, TextBlock, ToolResultBlock,
    ToolResultContent, ToolUseBlock, TurnId,
};
use crate::model::read::{MAX_MESSAGE_NESTING, MAX_NESTING, MAX_SAFE_INTEGER};

// The tags, as `src/wasm/values.js` has them.
const NULL: u32 = 0;
/// Payload 1 for true.
const BOOL: u32 = 1;
/// The next of `numbers`.
const NUMBER: u32 = 3;
/// The payload is its length: in bytes on a tape from JS, in UTF-16 units on one to JS.
const STRING: u32 = 4;
/// The payload is the item count.
const ARRAY: u32 = 5;
/// The payload is the entry count; each entry is a key (a `STRING`, or a `KEY`) then a value.
const OBJECT: u32 = 6;
/// A key given before: the payload is its number.
const KEY: u32 = 7;
/// The largest payload: a longer string or array cannot cross this way.
pub const MAX_PAYLOAD: usize = (1 << 29) - 1;
/// Items or entries reserved at most before they are read: a count is what JS says an
/// array holds (a sparse array says it is long), and past this a `Vec` grows as they come.
const RESERVED: usize = 1 << 12;

/// What a value on a tape is ([`Reader::peek`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

/// Reads a tape written by JS: its [`value`](Reader::value), an array of model
/// [`messages`](Reader::messages), or, step by step, what the `from…` readers of
/// `formats::from_tape` expect.
pub struct Reader<'a> {
    ops: &'a [u32],
    numbers: &'a [f64],
    bytes: &'a [u8],
    op: usize,
    number: usize,
    byte: usize,
    /// The keys given so far, by number, and the model field each names.
    keys: Vec<(&'a str, Field)>,
}

/// The names the readers of a tape look for (the model's, then the formats'),
/// recognised once per key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Role,
    Id,
    SessionId,
    TurnId,
    CreatedAt,
    Content,
    SummaryOf,
    Type,
    Text,
    Name,
    Input,
    ToolUseId,
    IsError,
    CompactSummary,
    Owner,
    Number,
    Messages,
    Turns,
    ToolCallId,
    ToolName,
    Output,
    System,
    ToolCalls,
    ToolCallIdSnake,
    Function,
    Arguments,
    CallId,
    Other,
}

impl Field {
    fn of(key: &str) -> Field {
        match key {
            "role" => Field::Role,
            "id" => Field::Id,
            "session_id" => Field::SessionId,
            "turn_id" => Field::TurnId,
            "created_at" => Field::CreatedAt,
            "content" => Field::Content,
            "summary_of" => Field::SummaryOf,
            "type" => Field::Type,
            "text" => Field::Text,
            "name" => Field::Name,
            "input" => Field::Input,
            "tool_use_id" => Field::ToolUseId,
            "is_error" => Field::IsError,
            "compact_summary" => Field::CompactSummary,
            "owner" => Field::Owner,
            "number" => Field::Number,
            "messages" => Field::Messages,
            "turns" => Field::Turns,
            "toolCallId" => Field::ToolCallId,
            "toolName" => Field::ToolName,
            "output" => Field::Output,
            "system" => Field::System,
            "tool_calls" => Field::ToolCalls,
            "tool_call_id" => Field::ToolCallIdSnake,
            "function" => Field::Function,
            "arguments" => Field::Arguments,
            "call_id" => Field::CallId,
            _ => Field::Other,
        }
    }
}

impl<'a> Reader<'a> {
    /// A reader of the tape `ops`, `numbers`, `bytes`.
    ///
    /// # Safety
    ///
    /// Where the ops place a string (a `STRING` payload long, in order from the start
    /// of `bytes`), `bytes` holds valid UTF-8: as `values.js` writes them, with
    /// `TextEncoder` (after checking the string is well formed) or byte by byte for ASCII.
    pub unsafe fn new(ops: &'a [u32], numbers: &'a [f64], bytes: &'a [u8]) -> Self {
        Reader { ops, numbers, bytes, op: 0, number: 0, byte: 0, keys: Vec::with_capacity(16) }
    }

    /// The value the tape holds, or `None` for a tape JS did not write.
    pub fn value(mut self) -> Option<Value> {
        self.any(MAX_NESTING)
    }

    /// The messages of a tape holding an array of them, each with whether it has a
    /// `turn_id`, or `None` when one is not in the shape read here: the caller then
    /// reads the tape's [`value`](Reader::value) with `model::read`, which gives the
    /// same messages or says what is wrong, with its path. Read so, an array of
    /// messages never becomes a `Value` first.
    ///
    /// Budget `pushMany` ≤ 2.5× `JSON.stringify`: through a `Value` and `model::read`,
    /// 6,000 messages took 2.6× (Chinese text 6.9×).
    pub fn messages(mut self) -> Option<Vec<(Message, bool)>> {
        let count = self.open(ARRAY)?;
        let mut messages = Vec::with_capacity(self.capacity(count));
        for _ in 0..count {
            messages.push(self.message()?);
        }
        Some(messages)
    }

    /// One message, as [`messages`](Reader::messages) reads them.
    pub fn one_message(mut self) -> Option<(Message, bool)> {
        self.message()
    }

    /// The item count of the array that comes next.
    pub(crate) fn array(&mut self) -> Option<usize> {
        self.open(ARRAY)
    }

    /// The entry count of the object that comes next.
    pub(crate) fn object(&mut self) -> Option<usize> {
        self.open(OBJECT)
    }

    /// What comes next, left to read.
    pub(crate) fn peek(&self) -> Option<Kind> {
        Some(match *self.ops.get(self.op)? & 7 {
            NULL => Kind::Null,
            BOOL => Kind::Bool,
            NUMBER => Kind::Number,
            STRING => Kind::String,
            ARRAY => Kind::Array,
            OBJECT => Kind::Object,
            _ => return None,
        })
    }

    /// How many items or entries to reserve room for, given a count the tape claims:
    /// no more than the ops left could hold, nor than [`RESERVED`].
    pub(crate) fn capacity(&self, count: usize) -> usize {
        count.min(self.left()).min(RESERVED)
    }

    fn left(&self) -> usize {
        self.ops.len() - self.op
    }

    // Inlined, as `float`: they run for every op and number, and at `opt-level = "z"` they
    // stayed calls (the `pushMany` budget, bench/README.md).
    #[inline(always)]
    fn next(&mut self) -> Option<(u32, usize)> {
        let op = *self.ops.get(self.op)?;
        self.op += 1;
        Some((op & 7, (op >> 3) as usize))
    }

    /// The count of the array or object (`tag`) that comes next.
    fn open(&mut self, tag: u32) -> Option<usize> {
        match self.next()? {
            (t, count) if t == tag => Some(count),
            _ => None,
        }
    }

    fn bytes(&mut self, length: usize) -> Option<&'a [u8]> {
        let end = self.byte.checked_add(length)?;
        let bytes = self.bytes.get(self.byte..end)?;
        self.byte = end;
        Some(bytes)
    }

    fn str_of(&mut self, length: usize) -> Option<&'a str> {
        let bytes = self.bytes(length)?;
        // Budget `pushMany` ≤ 2.5× `JSON.stringify`: checking the UTF-8 again took
        // 3.8 ms of 21 for 1,000 turns of Chinese text (3.6×).
        // SAFETY: these are the bytes of one string, valid UTF-8 by the contract of `new`.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    /// The string that comes next.
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        match self.next()? {
            (STRING, length) => self.str_of(length),
            _ => None,
        }
    }

    /// The string that comes next, owned.
    pub(crate) fn string(&mut self) -> Option<String> {
        self.str().map(str::to_owned)
    }

    /// The integer that comes next, as `Value::as_i64` reads what [`number`] makes of it.
    fn integer(&mut self) -> Option<i64> {
        let x = match self.next()? {
            (NUMBER, _) => self.float()?,
            _ => return None,
        };
        (x.fract() == 0.0 && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x))
            .then_some(x as i64)
    }

    #[inline(always)]
    fn float(&mut self) -> Option<f64> {
        let x = *self.numbers.get(self.number)?;
        self.number += 1;
        Some(x)
    }

    /// The key that comes next: its number and the field it names.
    pub(crate) fn key(&mut self) -> Option<(usize, Field)> {
        match self.next()? {
            (KEY, index) => Some((index, self.keys.get(index)?.1)),
            (STRING, length) => {
                let key = self.str_of(length)?;
                let field = Field::of(key);
                self.keys.push((key, field));
                Some((self.keys.len() - 1, field))
            }
            _ => None,
        }
    }

    /// Key number `index`.
    pub(crate) fn key_name(&self, index: usize) -> &str {
        self.keys[index].0
    }

    /// Any value, with `room` levels of arrays and objects allowed, its own included.
    pub(crate) fn any(&mut self, room: usize) -> Option<Value> {
        let (tag, payload) = self.next()?;
        Some(match tag {
            NULL => Value::Null,
            BOOL => Value::Bool(payload == 1),
            NUMBER => number(self.float()?),
            STRING => Value::String(self.str_of(payload)?.to_owned()),
            ARRAY if room > 0 => {
                let mut items = Vec::with_capacity(self.capacity(payload));
                for _ in 0..payload {
                    // An array of more nulls (holes) than wasm memory holds: `None`, not a panic.
                    if items.len() == items.capacity() && items.try_reserve(items.len()).is_err() {
                        return None;
                    }
                    items.push(self.any(room - 1)?);
                }
                Value::Array(items)
            }
            OBJECT if room > 0 => {
                let map = Map::with_capacity(self.capacity(payload));
                Value::Object(self.entries(payload, room - 1, map)?)
            }
            _ => return None,
        })
    }

    /// `count` entries into `map`, their values with `room` levels allowed.
    pub(crate) fn entries(
        &mut self,
        count: usize,
        room: usize,
        mut map: Map<String, Value>,
    ) -> Option<Map<String, Value>> {
        for _ in 0..count {
            let (key, _) = self.key()?;
            let value = self.any(room)?;
            map.insert(self.key_name(key).to_owned(), value);
        }
        Some(map)
    }

    /// One message, read as `model::read` reads it; `None` for anything else.
    fn message(&mut self) -> Option<(Message, bool)> {
        let count = self.open(OBJECT)?;
        // Levels for a field's value: a message nests MAX_MESSAGE_NESTING, itself included.
        let room = MAX_MESSAGE_NESTING - 1;
        let (mut role, mut id, mut session_id, mut turn_id, mut created_at, mut content, mut summary_of) =
            (None, None, None, None, None, None, None);
        let mut extra = Map::new();
        for _ in 0..count {
            let (key, field) = self.key()?;
            match field {
                Field::Role => {
                    role = Some(match self.str()? {
                        "user" => Role::User,
                        "assistant" => Role::Assistant,
                        _ => return None,
                    })
                }
                Field::Id => id = Some(self.string()?),
                Field::SessionId => session_id = Some(self.integer()?),
                Field::TurnId => turn_id = Some(self.turn_id()?),
                Field::CreatedAt => created_at = Some(self.str().filter(|s| is_rfc3339(s))?.to_owned()),
                Field::Content => content = Some(self.blocks(room)?),
                Field::SummaryOf if self.ops.get(self.op) != Some(&NULL) => summary_of = Some(self.summary_of()?),
                _ => {
                    let value = self.any(room)?;
                    extra.insert(self.key_name(key).to_owned(), value);
                }
            }
        }
        let has_turn_id = turn_id.is_some();
        let message = Message {
            role: role?,
            id: id.unwrap_or_else(new_message_id),
            session_id: session_id.unwrap_or(0),
            turn_id: turn_id.unwrap_or_default(),
            created_at: created_at.unwrap_or_else(now_rfc3339),
            content: content?,
            summary_of,
            extra,
        };
        Some((message, has_turn_id))
    }

    /// `{ owner, number }`, nothing else.
    fn turn_id(&mut self) -> Option<TurnId> {
        let (mut owner, mut number) = (None, None);
        for _ in 0..self.open(OBJECT)? {
            match self.key()?.1 {
                Field::Owner => owner = Some(self.string()?),
                Field::Number => number = Some(self.integer()?),
                _ => return None,
            }
        }
        Some(TurnId { owner: owner?, number: number? })
    }

    /// `{ messages, turns }`, nothing else, each a count JS holds exactly.
    fn summary_of(&mut self) -> Option<SummaryOf> {
        let max = usize::try_from(MAX_SAFE_INTEGER).unwrap_or(usize::MAX);
        let (mut messages, mut turns) = (None, None);
        for _ in 0..self.open(OBJECT)? {
            let field = self.key()?.1;
            let count = usize::try_from(self.integer()?).ok().filter(|&n| n <= max)?;
            match field {
                Field::Messages => messages = Some(count),
                Field::Turns => turns = Some(count),
                _ => return None,
            }
        }
        Some(SummaryOf { messages: messages?, turns: turns? })
    }

    /// A message's content: an array of blocks, `room` levels allowed, its own included.
    fn blocks(&mut self, room: usize) -> Option<Vec<ContentBlock>> {
        let count = self.open(ARRAY)?;
        let mut blocks = Vec::with_capacity(self.capacity(count));
        for _ in 0..count {
            blocks.push(self.block(room - 1)?);
        }
        Some(blocks)
    }

    /// A block whose `type` comes first (as every writer puts it), `room` levels allowed.
    pub(crate) fn block(&mut self, room: usize) -> Option<ContentBlock> {
        let count = self.open(OBJECT)?;
        if count == 0 || self.key()?.1 != Field::Type {
            return None;
        }
        let kind = self.str()?;
        let room = room - 1;
        let mut extra = Map::new();
        Some(match kind {
            "text" => {
                let mut text = None;
                for _ in 1..count {
                    match self.key()? {
                        (_, Field::Text) => text = Some(self.string()?),
                        (key, _) => self.extra(key, room, &mut extra)?,
                    }
                }
                ContentBlock::Text(TextBlock { text: text?, extra })
            }
            "tool_use" => {
                let (mut id, mut name, mut input) = (None, None, None);
                for _ in 1..count {
                    match self.key()? {
                        (_, Field::Id) => id = Some(self.string()?),
                        (_, Field::Name) => name = Some(self.string()?),
                        (_, Field::Input) => input = Some(self.any(room)?),
                        (key, _) => self.extra(key, room, &mut extra)?,
                    }
                }
                ContentBlock::ToolUse(ToolUseBlock { id: id?, name: name?, input: input?, extra })
            }
            "tool_result" => {
                let (mut tool_use_id, mut content, mut is_error, mut compact_summary) = (None, None, false, None);
                for _ in 1..count {
                    match self.key()? {
                        (_, Field::ToolUseId) => tool_use_id = Some(self.string()?),
                        (_, Field::Content) => content = Some(self.tool_result_content(room)?),
                        (_, Field::IsError) => {
                            is_error = match self.next()? {
                                (BOOL, b) => b == 1,
                                (NULL, _) => false,
                                _ => return None,
                            }
                        }
                        (_, Field::CompactSummary) => {
                            compact_summary = match self.next()? {
                                (STRING, length) => Some(self.str_of(length)?.to_owned()),
                                (NULL, _) => None,
                                _ => return None,
                            }
                        }
                        (key, _) => self.extra(key, room, &mut extra)?,
                    }
                }
                ContentBlock::ToolResult(ToolResultBlock {
                    tool_use_id: tool_use_id?,
                    content: content?,
                    is_error,
                    compact_summary,
                    extra,
                })
            }
            other => {
                // Kept verbatim, `type` first as it came.
                extra.insert("type".to_owned(), Value::String(other.to_owned()));
                ContentBlock::Other(self.entries(count - 1, room, extra)?)
            }
        })
    }

    /// The value of key `key` into `extra`.
    fn extra(&mut self, key: usize, room: usize, extra: &mut Map<String, Value>) -> Option<()> {
        let value = self.any(room)?;
        extra.insert(self.key_name(key).to_owned(), value);
        Some(())
    }

    /// A tool result's content: a string, or an array of block objects each read by
    /// [`ContentBlock::nested`]; `room` levels allowed, its own included.
    fn tool_result_content(&mut self, room: usize) -> Option<ToolResultContent> {
        match self.next()? {
            (STRING, length) => Some(ToolResultContent::Text(self.str_of(length)?.to_owned())),
            (ARRAY, count) if room > 0 => {
                let mut blocks = Vec::with_capacity(self.capacity(count));
                for _ in 0..count {
                    match self.any(room - 1)? {
                        Value::Object(block) => blocks.push(ContentBlock::nested(block)),
                        _ => return None,
                    }
                }
                Some(ToolResultContent::Blocks(blocks))
            }
            _ => None,
        }
    }
}

/// A JS number as `serde_json` reads what `JSON.stringify` writes of it: an integer
/// (JSON.stringify writes those below 1e21 without exponent) as one where it fits.
fn number(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 1e21 {
        if (0.0..18_446_744_073_709_551_616.0).contains(&x) {
            return Value::from(x as u64);
        }
        if (-9_223_372_036_854_775_808.0..0.0).contains(&x) {
            return Value::from(x as i64);
        }
    }
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// How a tape's strings give their length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lengths {
    /// In UTF-16 units, as JS cuts a string out of its decoded text.
    Utf16,
    /// In bytes, as JS writes them (for tests of [`Reader`]).
    #[cfg(test)]
    Utf8,
}

/// A tape being written: any `Serialize` writes itself here as JSON would.
pub struct Tape {
    /// One per value or key.
    pub ops: Vec<u32>,
    /// The numbers, in order.
    pub numbers: Vec<f64>,
    /// The strings' UTF-8, back to back.
    pub bytes: Vec<u8>,
    /// Whether every string is ASCII (JS then reads `bytes` as Latin-1).
    pub ascii: bool,
    lengths: Lengths,
    /// The keys written so far, and their numbers: each crosses once.
    keys: HashMap<String, u32, FxBuildHasher>,
    /// The same keys, by number.
    names: Vec<String>,
    /// By the address of its text, the number of a key met lately: most keys are
    /// the same few field names, met again at the same address for every message.
    recent: [(usize, u32); RECENT],
}

/// Slots of [`Tape::recent`].
const RECENT: usize = 64;

/// Why a value could not be written: a string or array too long for a tape, or a
/// map key that is not a string.
#[derive(Debug)]
pub struct TapeError(pub String);

impl fmt::Display for TapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TapeError {}

impl ser::Error for TapeError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        TapeError(message.to_string())
    }
}

type Done = Result<(), TapeError>;

impl Tape {
    /// An empty tape whose strings give their length in `lengths`.
    pub fn new(lengths: Lengths) -> Self {
        Tape {
            ops: Vec::new(),
            numbers: Vec::new(),
            bytes: Vec::new(),
            ascii: true,
            lengths,
            keys: HashMap::default(),
            names: Vec::new(),
            recent: [(0, 0); RECENT],
        }
    }

    /// `value` written as a tape.
    pub fn of(value: &(impl Serialize + ?Sized), lengths: Lengths) -> Result<Self, TapeError> {
        let mut tape = Tape::new(lengths);
        value.serialize(&mut tape)?;
        Ok(tape)
    }

    fn op(&mut self, tag: u32, payload: usize) -> Done {
        if payload > MAX_PAYLOAD {
            return Err(TapeError("is too long for JavaScript".to_owned()));
        }
        self.ops.push(tag | (payload as u32) << 3);
        Ok(())
    }

    fn number(&mut self, x: f64) -> Done {
        if !x.is_finite() {
            return self.op(NULL, 0);
        }
        self.numbers.push(x);
        self.op(NUMBER, 0)
    }

    fn string(&mut self, s: &str) -> Done {
        let ascii = s.is_ascii();
        self.ascii &= ascii;
        let length = match self.lengths {
            Lengths::Utf16 if !ascii => s.encode_utf16().count(),
            _ => s.len(),
        };
        self.bytes.extend_from_slice(s.as_bytes());
        self.op(STRING, length)
    }

    fn key(&mut self, key: &str) -> Done {
        // A slot remembers an address, and a hit is checked against the key's text:
        // a key made for the occasion may come at the address of another.
        let address = key.as_ptr() as usize;
        let slot = (address >> 2 ^ address >> 9) % RECENT;
        let index = match self.recent[slot] {
            (seen, index) if seen == address && self.names.get(index as usize).is_some_and(|name| name == key) => index,
            _ => match self.keys.get(key) {
                Some(&index) => index,
                None => {
                    self.keys.insert(key.to_owned(), self.names.len() as u32);
                    self.names.push(key.to_owned());
                    return self.string(key);
                }
            },
        };
        self.recent[slot] = (address, index);
        self.op(KEY, index as usize)
    }

    /// Opens an array or object whose count is written when it is closed.
    fn open(&mut self, tag: u32) -> Compound<'_> {
        self.ops.push(tag);
        let at = self.ops.len() - 1;
        Compound { tape: self, at, count: 0 }
    }

    /// Opens `{ variant: … }`, the value to follow: how JSON writes an enum's variant with data.
    fn variant(&mut self, variant: &'static str) -> Done {
        self.ops.push(OBJECT | 1 << 3);
        self.key(variant)
    }
}

/// An array or object being written: its op is at `at`, its count patched in when closed.
pub struct Compound<'a> {
    tape: &'a mut Tape,
    at: usize,
    count: usize,
}

impl Compound<'_> {
    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.count += 1;
        value.serialize(&mut *self.tape)
    }

    fn entry<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Done {
        self.tape.key(key)?;
        self.item(value)
    }

    fn close(self) -> Done {
        if self.count > MAX_PAYLOAD {
            return Err(TapeError("has too many items for JavaScript".to_owned()));
        }
        self.tape.ops[self.at] |= (self.count as u32) << 3;
        Ok(())
    }
}

macro_rules! numbers {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, v: $type) -> Done {
            self.number(v as f64)
        }
    )*};
}

impl<'a> ser::Serializer for &'a mut Tape {
    type Ok = ();
    type Error = TapeError;
    type SerializeSeq = Compound<'a>;
    type SerializeTuple = Compound<'a>;
    type SerializeTupleStruct = Compound<'a>;
    type SerializeTupleVariant = Compound<'a>;
    type SerializeMap = Compound<'a>;
    type SerializeStruct = Compound<'a>;
    type SerializeStructVariant = Compound<'a>;

    fn serialize_bool(self, v: bool) -> Done {
        self.op(BOOL, usize::from(v))
    }
    // Every number as JSON.parse reads its text: the nearest double.
    numbers!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64, serialize_u8: u8,
        serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_f32: f32, serialize_f64: f64);
    fn serialize_char(self, v: char) -> Done {
        self.string(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Done {
        self.string(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        // As serde_json writes bytes: an array of numbers.
        let mut array = self.open(ARRAY);
        for byte in v {
            array.item(byte)?;
        }
        array.close()
    }
    fn serialize_none(self) -> Done {
        self.op(NULL, 0)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.op(NULL, 0)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Done {
        self.op(NULL, 0)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Done {
        self.string(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        self.variant(variant)?;
        value.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(ARRAY))
    }
    fn serialize_tuple(self, _: usize) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(ARRAY))
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(ARRAY))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, TapeError> {
        self.variant(variant)?;
        Ok(self.open(ARRAY))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(OBJECT))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Compound<'a>, TapeError> {
        Ok(self.open(OBJECT))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Compound<'a>, TapeError> {
        self.variant(variant)?;
        Ok(self.open(OBJECT))
    }
}

/// The compounds written an item at a time: arrays (a variant's wrapped in `{ variant: … }`).
macro_rules! items {
    ($($compound:ident :: $method:ident),*) => {$(
        impl ser::$compound for Compound<'_> {
            type Ok = ();
            type Error = TapeError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                self.item(value)
            }
            fn end(self) -> Done {
                self.close()
            }
        }
    )*};
}

items!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// The compounds written a named field at a time: objects.
macro_rules! fields {
    ($($compound:ident),*) => {$(
        impl ser::$compound for Compound<'_> {
            type Ok = ();
            type Error = TapeError;
            fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Done {
                self.entry(key, value)
            }
            fn end(self) -> Done {
                self.close()
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        key.serialize(KeyWriter(&mut *self.tape))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        self.item(value)
    }
    fn end(self) -> Done {
        self.close()
    }
}

/// Writes a map key: a string (every map this crate writes has string keys); anything
/// else is an error.
struct KeyWriter<'a>(&'a mut Tape);

/// The error for a map key that is not a string.
fn not_a_key() -> TapeError {
    TapeError("has a map key that is not a string".to_owned())
}

macro_rules! not_a_key {
    ($($method:ident $(: $type:ty)?),*) => {$(
        fn $method(self $(, _: $type)?) -> Done {
            Err(not_a_key())
        }
    )*};
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = TapeError;
    type SerializeSeq = ser::Impossible<(), TapeError>;
    type SerializeTuple = ser::Impossible<(), TapeError>;
    type SerializeTupleStruct = ser::Impossible<(), TapeError>;
    type SerializeTupleVariant = ser::Impossible<(), TapeError>;
    type SerializeMap = ser::Impossible<(), TapeError>;
    type SerializeStruct = ser::Impossible<(), TapeError>;
    type SerializeStructVariant = ser::Impossible<(), TapeError>;

    fn serialize_str(self, v: &str) -> Done {
        self.0.key(v)
    }
    not_a_key!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_bytes: &[u8], serialize_none, serialize_unit,
        serialize_unit_struct: &'static str);
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Done {
        self.0.key(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(self, _: &'static str, _: u32, _: &'static str, _: &T) -> Done {
        Err(not_a_key())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, TapeError> {
        Err(not_a_key())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, TapeError> {
        Err(not_a_key())
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, TapeError> {
        Err(not_a_key())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, TapeError> {
        Err(not_a_key())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, TapeError> {
        Err(not_a_key())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, TapeError> {
        Err(not_a_key())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, TapeError> {
        Err(not_a_key())
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{json, Map, Value};

    use super::{Lengths, Reader, Tape, STRING};
    use crate::model::read::parse_input_messages_owned;

    /// A tape as JS writes one, read.
    fn reader(tape: &Tape) -> Reader<'_> {
        // SAFETY: `Tape` writes each string's UTF-8 from a `&str`.
        unsafe { Reader::new(&tape.ops, &tape.numbers, &tape.bytes) }
    }

    fn js_tape(value: &Value) -> Tape {
        Tape::of(value, Lengths::Utf8).expect("a Value always writes")
    }

    /// JSON values as JS gives them: integers within ±2^53 and other numbers not whole.
    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            (-(1i64 << 53)..(1i64 << 53)).prop_map(Value::from),
            any::<f64>().prop_filter("not whole", |x| x.is_finite() && x.fract() != 0.0).prop_map(Value::from),
            "\\PC{0,12}|é😀中|__proto__|".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-z_]{0,6}|__proto__|é😀", inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// A field of a message or block: mostly one of `valid`, at times absent, one of
    /// `invalid` or anything, so that most messages are read directly and the others
    /// show where the direct reader stops.
    fn field(valid: Vec<Value>, invalid: Vec<Value>) -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            24 => proptest::sample::select(valid).prop_map(Some),
            2 => Just(None),
            1 => proptest::sample::select(invalid).prop_map(Some),
            1 => any_json().prop_map(Some),
        ]
    }

    fn object(fields: Vec<(&'static str, Option<Value>)>, extra: Vec<(String, Value)>) -> Value {
        let mut map: Map<String, Value> = fields.into_iter().filter_map(|(k, v)| Some((k.to_owned(), v?))).collect();
        map.extend(extra);
        Value::Object(map)
    }

    fn extra() -> impl Strategy<Value = Vec<(String, Value)>> {
        prop::collection::vec(("[a-z_]{1,8}", any_json()), 0..2)
    }

    /// A block of `kind`, with the fields of every kind, a few of them wrong.
    fn block() -> impl Strategy<Value = Value> {
        let kind = field(vec![json!("text"), json!("tool_use"), json!("tool_result"), json!("image")], vec![json!(3)]);
        let string = || field(vec![json!("x"), json!("é😀"), json!("")], vec![json!(5), Value::Null]);
        let nested = prop::collection::vec(
            prop_oneof![
                Just(json!({ "type": "text", "text": "t" })),
                Just(json!({ "text": "t", "type": "text", "cache_control": {} })),
                Just(json!({ "type": "text", "text": 5 })),
                Just(json!({ "type": "image", "source": {} })),
                Just(json!("not a block")),
            ],
            0..3,
        );
        let content = prop_oneof![string(), nested.prop_map(|n| Some(Value::Array(n)))];
        let is_error = field(vec![json!(true), json!(false), Value::Null], vec![json!("yes")]);
        let input = field(vec![json!({ "a": 1 }), json!([1]), Value::Null], vec![json!("text")]);
        (kind, string(), string(), string(), input, string(), content, is_error, string(), extra(), 0..6usize).prop_map(
            |(kind, text, id, name, input, tool_use_id, content, is_error, summary, extra, shape)| {
                let kind_name = kind.as_ref().and_then(Value::as_str).unwrap_or("");
                // The fields of its kind (the type first, or last), and at times one of another kind.
                let mut fields = vec![("type", kind.clone())];
                match kind_name {
                    "text" => fields.push(("text", text)),
                    "tool_use" => fields.extend([("id", id), ("name", name), ("input", input)]),
                    "tool_result" => fields.extend([
                        ("tool_use_id", tool_use_id),
                        ("content", content),
                        ("is_error", is_error),
                        ("compact_summary", summary),
                    ]),
                    _ => fields.push(("source", Some(json!({ "data": "AAAA" })))),
                }
                match shape {
                    0 => fields.rotate_left(1),
                    1 => fields.push(("id", Some(json!("stray")))),
                    _ => {}
                }
                object(fields, extra)
            },
        )
    }

    fn message() -> impl Strategy<Value = Value> {
        let role = field(vec![json!("user"), json!("assistant")], vec![json!("system")]);
        let id = field(vec![json!("m1"), json!("é😀")], vec![json!(7)]);
        let session = field(vec![json!(0), json!(-3), json!(9007199254740991i64)], vec![json!(1.5), json!("1")]);
        let turn = field(
            vec![json!({ "owner": "a", "number": 2 }), json!({ "number": -1, "owner": "u" })],
            vec![json!({ "owner": "a", "number": 2, "more": true }), json!({ "owner": "a" }), json!(["a", 1])],
        );
        let created = field(
            vec![json!("2026-01-01T00:00:00Z"), json!("2026-01-01T00:00:00.123+02:00")],
            vec![json!("yesterday")],
        );
        let content = prop_oneof![
            12 => prop::collection::vec(block(), 0..4).prop_map(|b| Some(Value::Array(b))),
            1 => Just(Some(json!("text"))),
            1 => Just(None),
        ];
        let summary_of = field(
            vec![Value::Null, json!({ "messages": 3, "turns": 1 })],
            vec![json!({ "messages": -1, "turns": 1 }), json!({ "messages": 3 })],
        );
        (role, id, session, turn, created, content, summary_of, extra()).prop_map(
            |(role, id, session, turn, created, content, summary_of, extra)| {
                object(
                    vec![
                        ("role", role),
                        ("id", id),
                        ("session_id", session),
                        ("turn_id", turn),
                        ("created_at", created),
                        ("content", content),
                        ("summary_of", summary_of),
                    ],
                    extra,
                )
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn values_read_back_as_written(value in any_json()) {
            prop_assert_eq!(reader(&js_tape(&value)).value(), Some(value));
        }

        /// The direct reader gives what `model::read` gives, or leaves the messages to it.
        #[test]
        fn messages_read_as_the_model_reader_reads_them(messages in prop::collection::vec(message(), 0..3)) {
            let value = Value::Array(messages.clone());
            let tape = js_tape(&value);
            let Some(mut direct) = reader(&tape).messages() else { return Ok(()) };
            let mut read = parse_input_messages_owned(value, "messages").map_err(|e| TestCaseError::fail(e.to_string()))?;
            // Made up when missing (a fresh id, now): compared only when given.
            for (i, input) in messages.iter().enumerate() {
                for (given, field) in [("id", 0), ("created_at", 1)] {
                    if input.get(given).is_none() {
                        let blank = |m: &mut crate::model::message::Message| match field {
                            0 => m.id.clear(),
                            _ => m.created_at.clear(),
                        };
                        blank(&mut direct[i].0);
                        blank(&mut read[i].0);
                    }
                }
            }
            prop_assert_eq!(direct, read);
        }
    }

    #[test]
    fn the_usual_shapes_are_read_directly() {
        let messages = json!([
            { "role": "user", "turn_id": { "owner": "u", "number": 1 }, "content": [{ "type": "text", "text": "hi" }] },
            { "role": "assistant", "id": "a", "session_id": 3, "created_at": "2026-01-01T00:00:00Z",
              "content": [{ "type": "tool_use", "id": "t", "name": "ls", "input": { "p": 1.5 }, "cache_control": {} }] },
            { "role": "user", "summary_of": null, "meta": [1, "é"],
              "content": [{ "type": "tool_result", "tool_use_id": "t", "content": [{ "type": "text", "text": "x" }],
                            "is_error": true, "compact_summary": "s" },
                          { "type": "image", "source": { "data": "AAAA" } }] },
        ]);
        let direct = reader(&js_tape(&messages)).messages().expect("read directly");
        assert_eq!(direct.len(), 3);
        assert_eq!(direct[1].0.extra, Map::new());
        assert_eq!(direct[2].0.extra.keys().collect::<Vec<_>>(), ["summary_of", "meta"]);
    }

    #[test]
    fn nesting_is_read_directly_up_to_what_the_model_reader_accepts() {
        let deep = |levels: usize| (0..levels).fold(json!(0), |inner, _| json!([inner]));
        let mut accepted = 0;
        for levels in 115..130 {
            let input = json!([{ "role": "user", "content": [{ "type": "tool_use", "id": "t", "name": "n", "input": deep(levels) }] },
                               { "role": "user", "content": [{ "type": "text", "text": "t", "meta": deep(levels + 2) }] }]);
            let direct = reader(&js_tape(&input)).messages();
            let read = parse_input_messages_owned(input, "messages");
            assert_eq!(direct.is_some(), read.is_ok(), "{levels} levels");
            accepted += usize::from(read.is_ok());
        }
        assert!((1..15).contains(&accepted), "the limit is within the levels tried");
    }

    #[test]
    fn strings_for_js_give_their_length_in_utf16_units() {
        let tape = Tape::of(&json!(["aé😀"]), Lengths::Utf16).unwrap();
        assert_eq!(tape.ops[1], STRING | 4 << 3, "a, é, and the two units of 😀");
        assert_eq!(tape.bytes, "aé😀".as_bytes());
    }

    #[test]
    fn a_tape_says_whether_all_its_text_is_ascii() {
        let ascii = |value: Value| Tape::of(&value, Lengths::Utf16).unwrap().ascii;
        assert!(ascii(json!({ "role": "user", "content": ["plain", 1, null] })));
        assert!(!ascii(json!({ "role": "user", "content": ["plain", "é"] })), "a value");
        assert!(!ascii(json!([{ "plain": 1 }, { "clé": 2 }])), "a key");
        assert!(ascii(json!([])));
    }
}
