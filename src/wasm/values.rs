//! JSON-compatible values across the boundary, one batch each way (see `crate::tape`):
//! `values.js` walks a JS value once and hands over its tape, which [`from_js`] reads
//! into a `Value` and [`messages_from_tape`] into messages; [`to_js`] writes any
//! `Serialize` as a tape, of which `values.js` builds the JS value, cutting every
//! string out of one decoded text.

use std::cell::{Cell, RefCell};

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::errors::{expected, invalid, invalid_with_cause, too_large};
use super::inspect::json_error;
use super::memory::give_memory;
use crate::error::InputError;
use crate::model::message::Message;
use crate::model::read::{nth, parse_input_message_owned, parse_input_messages_owned, MAX_NESTING};
use crate::tape::{Lengths, Reader, Tape};

#[wasm_bindgen(module = "/src/wasm/values.js")]
extern "C" {
    /// Encodes `value` as a tape, kept for [`take_tape`]: true with its three
    /// lengths written into the words at address `lengths`; false for what JSON
    /// leaves out. Throws for what it cannot hold.
    #[wasm_bindgen(catch, js_name = encodeValue)]
    fn encode_value(value: &JsValue, lengths: *mut u32) -> Result<bool, JsValue>;

    /// [`encode_value`] of a value given again: 2 (nothing kept) when its tape is the
    /// same as `last`'s, a tape [`keep_tape`] copied (or undefined); else 1 or 0.
    #[wasm_bindgen(catch, js_name = encodeAgain)]
    fn encode_again(value: &JsValue, lengths: *mut u32, last: &JsValue) -> Result<u8, JsValue>;

    /// A copy of the tape [`encode_value`] kept, for [`encode_again`].
    #[wasm_bindgen(js_name = keepTape)]
    fn keep_tape() -> JsValue;

    /// Copies the tape [`encode_value`] kept to the three addresses, where there is
    /// room of its lengths.
    #[wasm_bindgen(js_name = takeTape)]
    fn take_tape(ops: *mut u32, numbers: *mut f64, bytes: *mut u8);

    /// The JS value of a tape (`ascii`: its text is); throws when its text is too long
    /// for a JS string.
    #[wasm_bindgen(catch, js_name = decodeValue)]
    fn decode_value(ops: &[u32], numbers: &[f64], bytes: &[u8], ascii: bool) -> Result<JsValue, JsValue>;

    /// The string of the UTF-8 `bytes` (`ascii`: they are).
    #[wasm_bindgen(js_name = fromUtf8)]
    fn from_utf8(bytes: &[u8], ascii: bool) -> JsValue;
}

/// A long `text` (the LLM prompt) as a JS string: values.js decodes it faster than
/// wasm-bindgen's `TextDecoder` does in Node.
pub fn text_to_js(text: &str) -> JsValue {
    from_utf8(text.as_bytes(), text.is_ascii())
}

/// The tape of a JS value, copied into wasm memory; its strings' UTF-8 is the first
/// `bytes` bytes of a buffer kept for the next tape (see [`KEPT`]).
struct Owned {
    ops: Vec<u32>,
    numbers: Vec<f64>,
    text: Vec<u8>,
    bytes: usize,
}

/// A tape's text buffer of up to this many bytes is kept from one tape to the next, as
/// values.js keeps its own: wasm memory never shrinks, and a new buffer must be zeroed
/// before JS writes it, which took 6.6% of `pushMany` of the 1,000 Chinese turns.
const KEPT: usize = 1 << 24;

thread_local! {
    /// The text buffer of the last tape read; taken while one is read, so that a tape
    /// read meanwhile (a getter that calls the package) has its own.
    static TEXT: Cell<Vec<u8>> = Cell::default();
}

impl Drop for Owned {
    fn drop(&mut self) {
        if self.text.len() <= KEPT {
            TEXT.with(|kept| kept.set(std::mem::take(&mut self.text)));
        }
    }
}

impl Owned {
    /// The strings' UTF-8 (the kept buffer beyond it is not this tape's).
    fn text(&self) -> &[u8] {
        &self.text[..self.bytes]
    }

    fn reader(&self) -> Reader<'_> {
        // SAFETY: values.js wrote the tape: each string's bytes are what TextEncoder made
        // of a string it checked is well formed, or ASCII copied byte by byte.
        unsafe { Reader::new(&self.ops, &self.numbers, self.text()) }
    }

    /// The `Value` of the tape: what `JSON.parse(JSON.stringify(value))` gives (binary data as base64).
    fn value(&self, path: &str) -> Result<Value, JsValue> {
        // A tape values.js wrote always reads, memory allowing.
        self.reader().value().ok_or_else(|| too_large(path))
    }

    /// [`parse_input_messages_owned`] of [`value`](Owned::value), reading one
    /// message's `Value` at a time: an array that says it is long (a sparse one)
    /// fails at its first hole, without a `Value` of every item first.
    fn messages_by_value(&self, path: &str) -> Result<Vec<(Message, bool)>, JsValue> {
        let mut reader = self.reader();
        let Some(count) = reader.array() else {
            return Ok(parse_input_messages_owned(self.value(path)?, path)?);
        };
        // Budget (.wasm ≤ 160,000 B gzip): sharing parse_input_messages_owned's loop through an iterator cost 305 B.
        let mut messages = Vec::with_capacity(reader.capacity(count));
        for i in 0..count {
            // The array's own level is taken: its items have one less.
            let item = reader.any(MAX_NESTING - 1).ok_or_else(|| too_large(path))?;
            messages.push(parse_input_message_owned(item, &nth(path, i))?);
        }
        Ok(messages)
    }
}

/// The tape of `value` (named `path`). What JSON cannot hold (a BigInt, a cycle, a
/// lone surrogate, a getter that throws) is `INVALID_INPUT` at the path of the
/// field that holds it.
fn tape_of(value: &JsValue, path: &str) -> Result<Owned, JsValue> {
    // Two calls: JS encodes and says how long, wasm makes room, JS copies the tape into it.
    let mut lengths = [0u32; 3];
    give_memory();
    let encoded = encode_value(value, lengths.as_mut_ptr());
    take(value, path, encoded, lengths)
}

/// The tape JS encoded of `value` (`encoded`: what `encodeValue` gave, its lengths
/// in `lengths`), copied into wasm memory; or the error.
fn take(value: &JsValue, path: &str, encoded: Result<bool, JsValue>, lengths: [u32; 3]) -> Result<Owned, JsValue> {
    match encoded {
        Ok(false) if value.is_undefined() => Err(invalid(path, "is required but missing")),
        Ok(false) => Err(expected(path, "JSON data", value)),
        Ok(true) => {
            let [ops, numbers, bytes] = lengths.map(|n| n as usize);
            let mut tape = Owned { ops: Vec::new(), numbers: Vec::new(), text: TEXT.with(Cell::take), bytes };
            let more = bytes.saturating_sub(tape.text.len());
            if tape.ops.try_reserve_exact(ops).is_err()
                || tape.numbers.try_reserve_exact(numbers).is_err()
                || tape.text.try_reserve_exact(more).is_err()
            {
                return Err(too_large(path));
            }
            tape.ops.resize(ops, 0);
            tape.numbers.resize(numbers, 0.0);
            // Only what the kept buffer lacks is zeroed.
            tape.text.resize(tape.text.len().max(bytes), 0);
            // (Room of the lengths encode_value wrote: JS writes no further.)
            take_tape(tape.ops.as_mut_ptr(), tape.numbers.as_mut_ptr(), tape.text.as_mut_ptr());
            Ok(tape)
        }
        Err(thrown) => Err(json_error(value, path, false)
            .unwrap_or_else(|| invalid_with_cause(path, "is not JSON-serializable", &thrown))),
    }
}

/// A JSON-compatible JS value as a `Value`, read as `JSON.stringify` reads it
/// (binary data as base64); `path` names it in errors.
pub fn from_js(value: &JsValue, path: &str) -> Result<Value, JsValue> {
    tape_of(value, path)?.value(path)
}

/// What a value read last read as, and a copy of its tape in JS (see [`read_again_or`]).
pub struct LastRead<T> {
    tape: JsValue,
    read: T,
}

/// What `read` makes of [`from_js`]`(value, path)`, unless `last` holds a value whose
/// tape is the same: then what that one read as. The tape is the value as JSON reads it,
/// so the same tape is the same value; JS compares them (numbers bit for bit), and a
/// value read again crosses no further. For options given anew with each call, the same
/// each time (`requestBody`'s).
pub fn read_again_or<T: Clone>(
    value: &JsValue,
    path: &str,
    last: &RefCell<Option<LastRead<T>>>,
    read: impl FnOnce(Value) -> Result<T, JsValue>,
) -> Result<T, JsValue> {
    let mut lengths = [0u32; 3];
    give_memory();
    let encoded = {
        // Borrowed while JS compares: a getter of `value` that reads with `last` meanwhile
        // compares with it too, and does not store what it read (see below).
        let before = last.borrow();
        let encoded =
            encode_again(value, lengths.as_mut_ptr(), before.as_ref().map_or(&JsValue::UNDEFINED, |l| &l.tape));
        match (&encoded, before.as_ref()) {
            (Ok(2), Some(l)) => return Ok(l.read.clone()),
            _ => encoded,
        }
    };
    let kept = match encoded {
        Ok(1) => keep_tape(),
        _ => JsValue::UNDEFINED,
    };
    let tape = take(value, path, encoded.map(|code| code != 0), lengths)?;
    let read = read(tape.value(path)?)?;
    if let Ok(mut last) = last.try_borrow_mut() {
        *last = Some(LastRead { tape: kept, read: read.clone() });
    }
    Ok(read)
}

/// A JSON-compatible JS value (named `path`) read by `fast` straight from its tape or,
/// when `fast` does not take it (`None`), by `slow` from its `Value`, which then gives
/// the same or the error.
pub fn read_tape_or_value<T>(
    value: &JsValue,
    path: &str,
    fast: impl FnOnce(&mut Reader) -> Option<T>,
    slow: impl FnOnce(Value) -> Result<T, InputError>,
) -> Result<T, JsValue> {
    let tape = tape_of(value, path)?;
    match fast(&mut tape.reader()) {
        Some(read) => Ok(read),
        None => Ok(slow(tape.value(path)?)?),
    }
}

/// An array of messages (named `path`), each with whether it has a `turn_id`.
/// Read from the tape directly; when a message is not in the shape that reads,
/// through a `Value` by `model::read`, which gives the same messages or the error.
pub fn messages_from_tape(value: &JsValue, path: &str) -> Result<Vec<(Message, bool)>, JsValue> {
    let tape = tape_of(value, path)?;
    match tape.reader().messages() {
        Some(messages) => Ok(messages),
        None => tape.messages_by_value(path),
    }
}

/// One message, as [`messages_from_tape`] reads them.
pub fn message_from_tape(value: &JsValue, path: &str) -> Result<(Message, bool), JsValue> {
    let tape = tape_of(value, path)?;
    match tape.reader().one_message() {
        Some(message) => Ok(message),
        None => Ok(parse_input_message_owned(tape.value(path)?, path)?),
    }
}

/// `value` as a JS value; `what` names it in the error for one too large for JS.
pub fn to_js(value: &(impl Serialize + ?Sized), what: &str) -> Result<JsValue, JsValue> {
    tape_to_js(&tape(value, what)?, what)
}

/// `value` written as a tape for JS: what [`tape_to_js`] makes a JS value of. Apart,
/// so that a caller can write it while it borrows what it writes, and make the JS
/// value, which runs JS, once it does not.
pub fn tape(value: &(impl Serialize + ?Sized), what: &str) -> Result<Tape, JsValue> {
    Tape::of(value, Lengths::Utf16).map_err(|e| JsValue::from(InputError::new(what, e.0)))
}

/// The JS value of a tape written by [`tape`].
pub fn tape_to_js(tape: &Tape, what: &str) -> Result<JsValue, JsValue> {
    decode_value(&tape.ops, &tape.numbers, &tape.bytes, tape.ascii).map_err(|e| {
        let megabytes = tape.bytes.len() >> 20;
        invalid_with_cause(what, &format!("is too large to give JavaScript as one string ({megabytes} MB of text)"), &e)
    })
}
