// Messages read property by property in JS, for `plain_messages.rs` (which says
// why): the structure as numbers (`ops`) and every string as UTF-8, back to back (`bytes`).
// No JSON text is written nor parsed for a plain message: its strings are copied
// once, by TextEncoder. Unknown fields go as their key and the JSON text of
// their value. A message this does not read the plain way (an unknown block
// type, a lone surrogate, a number that is not a safe integer, a value of
// another type, a toJSON) is handed over as its JSON text instead.

import { wellFormed } from './inspect.js';

const encoder = new TextEncoder();

// Reused between calls up to KEPT bytes; larger ones (a long history) are let go.
const KEPT = 1 << 20;
let ops = new Uint32Array(1 << 12);
let bytes = new Uint8Array(1 << 16);
let o = 0; // next op
let p = 0; // next byte
let reading = false; // within plainMessages

/** Thrown (and caught below) when a message is not plain: it goes as JSON text. */
const NOT_PLAIN = {};
/** Thrown when the array must be read as JSON text. */
const BAIL = {};

// Node 20's encodeInto writes nothing into a view of 2^31 bytes or more: a
// buffer stays below, and an array that needs more goes as JSON text (which
// then fails with an error, a JS string being at most ~2^29 units long).
const MAX_BUFFER = 2 ** 31 - 1;

// `array` (ops or bytes) with its first `used` items, and room for `n` more.
function grown(array, used, n) {
  if (used + n > MAX_BUFFER) throw BAIL;
  const larger = new array.constructor(Math.min(Math.max(array.length * 2, used + n), MAX_BUFFER));
  larger.set(array.subarray(0, used));
  return larger;
}

// Room for `n` more ops.
function room(n) {
  if (o + n > ops.length) ops = grown(ops, o, n);
}

// Room for `n` more bytes.
function grow(n) {
  if (p + n > bytes.length) bytes = grown(bytes, p, n);
}

function string(s) {
  if (typeof s !== 'string' || !wellFormed(s)) throw NOT_PLAIN;
  // Room for ASCII first, then for the rest at 3 bytes per UTF-16 unit.
  grow(s.length);
  const { read, written } = encoder.encodeInto(s, bytes.subarray(p));
  p += written;
  let length = written;
  if (read < s.length) {
    grow(3 * (s.length - read));
    const rest = encoder.encodeInto(s.slice(read), bytes.subarray(p)).written;
    p += rest;
    length += rest;
  }
  ops[o++] = length;
}

// A safe integer as the two 32-bit halves of its 64-bit two's complement.
function integer(n) {
  if (!Number.isSafeInteger(n)) throw NOT_PLAIN;
  ops[o++] = n >>> 0;
  ops[o++] = Math.floor(n / 4294967296);
}

// A JSON value as JSON text (tool inputs, tool result blocks other than plain
// text ones): the one case of JSON here, as rare in size as it is in the wire format.
function json(value) {
  if (hasToJSON(value)) throw NOT_PLAIN;
  const text = JSON.stringify(value);
  if (text === undefined) throw NOT_PLAIN;
  string(text);
}

function hasToJSON(value) {
  return value !== null && typeof value === 'object' && typeof value.toJSON === 'function';
}

function object(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || hasToJSON(value)) throw NOT_PLAIN;
  return value;
}

// Fields are read through Object.keys, as JSON.stringify reads them: own and
// enumerable (an inherited `role` is no role), each once. An undefined one is
// absent, as in JSON text.

// Block op: kind (0 text, 1 tool_use, 2 tool_result) | flags << 2.
const IS_ERROR = 1 << 2; // is_error is true
const BLOCKS = 1 << 3; // content is an array of other blocks (as JSON text), not a string
const SUMMARY = 1 << 4; // compact_summary is a string
const TEXT_BLOCKS = 1 << 5; // content is an array of plain text blocks: their count, then each text
const BLOCK_EXTRA = 1 << 6; // unknown fields follow the block (see `extra`)

// Unknown fields, as JSON.stringify would write them: their count, then each
// key and the JSON text of its value (one that JSON omits, undefined or a
// function, sends the message as JSON text).
function extra(fields) {
  room(1 + 2 * fields.length);
  ops[o++] = fields.length / 2;
  for (let f = 0; f < fields.length; f += 2) {
    string(fields[f]);
    json(fields[f + 1]);
  }
}

function block(b) {
  const keys = Object.keys(object(b));
  let type, text, id, name, input, toolUseId, content, isError, summary;
  let fields = null; // unknown ones: key, value, key, value…
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    const value = b[key];
    switch (key) {
      case 'type': type = value; break;
      case 'text': text = value; break;
      case 'id': id = value; break;
      case 'name': name = value; break;
      case 'input': input = value; break;
      case 'tool_use_id': toolUseId = value; break;
      case 'content': content = value; break;
      case 'is_error': isError = value; break;
      case 'compact_summary': summary = value; break;
      default: (fields ??= []).push(key, value);
    }
  }
  room(8);
  const at = o;
  if (type === 'text') {
    if (id !== undefined || name !== undefined || input !== undefined || toolUseId !== undefined
      || content !== undefined || isError !== undefined || summary !== undefined) throw NOT_PLAIN;
    ops[o++] = 0;
    string(text);
  } else if (type === 'tool_use') {
    if (text !== undefined || toolUseId !== undefined || content !== undefined || isError !== undefined
      || summary !== undefined || input === undefined) throw NOT_PLAIN;
    ops[o++] = 1;
    string(id);
    string(name);
    json(input);
  } else if (type === 'tool_result') {
    if (text !== undefined || id !== undefined || name !== undefined || input !== undefined) throw NOT_PLAIN;
    o++;
    string(toolUseId);
    let flags = 2;
    if (Array.isArray(content)) {
      if (textBlocks(content)) {
        flags |= TEXT_BLOCKS;
      } else {
        flags |= BLOCKS;
        json(content);
      }
    } else {
      string(content);
    }
    if (isError === true) flags |= IS_ERROR;
    else if (isError !== false && isError !== null && isError !== undefined) throw NOT_PLAIN;
    if (typeof summary === 'string') {
      flags |= SUMMARY;
      string(summary);
    } else if (summary !== null && summary !== undefined) {
      throw NOT_PLAIN;
    }
    ops[at] = flags;
  } else {
    throw NOT_PLAIN;
  }
  if (fields !== null) {
    ops[at] |= BLOCK_EXTRA;
    extra(fields);
  }
}

// A tool result's content array whose blocks are all plain text blocks (the
// common one: Anthropic's, MCP's), written as its count then each text; else
// false, having written nothing, for `json` to write it. The blocks' fields are
// then read twice, here and by JSON.stringify.
function textBlocks(content) {
  if (hasToJSON(content)) return false;
  const at = o;
  const from = p;
  // The count and the texts, and the ops block() counted on after the content.
  room(content.length + 8);
  ops[o++] = content.length;
  for (let j = 0; j < content.length; j++) {
    const text = plainText(content[j]);
    if (text === undefined) {
      o = at;
      p = from;
      return false;
    }
    // A lone surrogate throws NOT_PLAIN: the message goes as JSON text.
    string(text);
  }
  return true;
}

// The text of `{ type: 'text', text }` with no other field, no toJSON and a
// string text (fields read in their order, as JSON.stringify reads them), else undefined.
function plainText(b) {
  if (b === null || typeof b !== 'object' || Array.isArray(b) || hasToJSON(b)) return undefined;
  const keys = Object.keys(b);
  if (keys.length !== 2) return undefined;
  const first = b[keys[0]];
  const second = b[keys[1]];
  let type, text;
  if (keys[0] === 'type' && keys[1] === 'text') {
    type = first;
    text = second;
  } else if (keys[0] === 'text' && keys[1] === 'type') {
    text = first;
    type = second;
  }
  return type === 'text' && typeof text === 'string' ? text : undefined;
}

// Message op: which optional fields follow (their order below).
const ID = 1;
const SESSION = 2;
const CREATED = 4;
const SUMMARY_OF = 8;
const SUMMARY_OF_NULL = 16;
const ASSISTANT = 32;
const JSON_TEXT = 64; // the message as JSON text instead, and nothing else
const EXTRA = 128; // unknown fields follow the content (see `extra`)
const TURN = 256; // turn_id follows (a message without one is given one by the step rule)

// `{ owner, number }` or `{ messages, turns }`: both strings or integers, in that order.
function pair(value, first, second, firstIsString) {
  const keys = Object.keys(object(value));
  let a, b;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    if (key === first) a = value[key];
    else if (key === second) b = value[key];
    else throw NOT_PLAIN;
  }
  if (firstIsString) string(a);
  else integer(a);
  integer(b);
}

function plain(m) {
  const keys = Object.keys(object(m));
  let role, id, session, turn, created, content, of;
  let fields = null; // unknown ones: key, value, key, value…
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k];
    const value = m[key];
    switch (key) {
      case 'role': role = value; break;
      case 'id': id = value; break;
      case 'session_id': session = value; break;
      case 'turn_id': turn = value; break;
      case 'created_at': created = value; break;
      case 'content': content = value; break;
      case 'summary_of': of = value; break;
      default: (fields ??= []).push(key, value);
    }
  }
  if (role !== 'user' && role !== 'assistant') throw NOT_PLAIN;
  room(16);
  const at = o++;
  let flags = role === 'assistant' ? ASSISTANT : 0;
  if (id !== undefined) {
    flags |= ID;
    string(id);
  }
  if (session !== undefined) {
    flags |= SESSION;
    integer(session);
  }
  if (turn !== undefined) {
    flags |= TURN;
    pair(turn, 'owner', 'number', true);
  }
  if (created !== undefined) {
    flags |= CREATED;
    string(created);
  }
  if (of === null) {
    flags |= SUMMARY_OF_NULL;
  } else if (of !== undefined) {
    flags |= SUMMARY_OF;
    pair(of, 'messages', 'turns', false);
  }
  if (fields !== null) flags |= EXTRA;
  ops[at] = flags;
  if (!Array.isArray(content) || hasToJSON(content)) throw NOT_PLAIN;
  ops[o++] = content.length;
  for (let j = 0; j < content.length; j++) block(content[j]);
  if (fields !== null) extra(fields);
}

// A message as JSON text, as JSON.stringify of the whole array would write it
// (what JSON cannot write, undefined or a function, is null in an array).
function asJson(m) {
  room(2);
  ops[o++] = JSON_TEXT;
  string(JSON.stringify(m) ?? 'null');
}

// Message `i`: plain, else (NOT_PLAIN thrown) as JSON text by the caller.
function message(m, i) {
  if (!hasToJSON(m)) return plain(m);
  m = m.toJSON(String(i));
  // JSON.stringify calls one toJSON per value; JSON.stringify(m) would call this one.
  if (hasToJSON(m)) throw BAIL;
  asJson(m);
}

/**
 * The messages of `array` as `[ops, bytes]` (views to copy before the next
 * call), or null for the caller to read the array as JSON text: when the
 * array has a `toJSON`, or reading throws (a getter, a cycle, a BigInt). A
 * message that is not plain is read twice, as fields then as JSON text: a
 * getter on it runs twice.
 */
export function plainMessages(array) {
  // A getter may read another array through the package meanwhile: that one goes
  // through JSON, and this one's buffers stay as they are.
  if (reading) return null;
  reading = true;
  o = 0;
  p = 0;
  let parts = null;
  let i = 0;
  let op = 0;
  let byte = 0;
  try {
    if (hasToJSON(array)) throw BAIL; // (a Proxy's trap may throw here too)
    while (i < array.length) {
      // One try around the loop, not one per message, which costs V8 a tenth.
      try {
        for (; i < array.length; i++) {
          op = o;
          byte = p;
          message(array[i], i);
        }
      } catch (e) {
        if (e !== NOT_PLAIN) throw e;
        o = op;
        p = byte;
        asJson(array[i]);
        i += 1;
      }
    }
    parts = [ops.subarray(0, o), bytes.subarray(0, p)];
  } catch {
    // The JSON path reads the array again, and reports what threw.
  }
  reading = false;
  if (ops.length * 4 > KEPT) ops = new Uint32Array(1 << 12);
  if (bytes.length > KEPT) bytes = new Uint8Array(1 << 16);
  return parts;
}

/**
 * One message as `plainMessages([m])` reads it, or null if it has a toJSON
 * (given "", not "0") or reading it throws.
 */
export function plainMessage(m) {
  try {
    return hasToJSON(m) ? null : plainMessages([m]);
  } catch {
    return null;
  }
}
