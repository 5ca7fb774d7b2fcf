// JSON-compatible values across the boundary in one batch (src/tape.rs says why and
// how): a tape of three arrays, `ops` (a tag in the low three bits, a length or count
// above them), `numbers` and `bytes` (the strings' UTF-8, back to back). A value is read
// as JSON.stringify reads it: own enumerable keys in order, toJSON called, undefined,
// functions and symbols left out of objects and null in arrays, non-finite numbers as
// null. Besides: a Uint8Array or ArrayBuffer (binary data: an image, a file) becomes
// its base64 string, which every provider format takes where it takes bytes.

import { wellFormed } from './inspect.js';
import { wasmBytes, wasmFloats, wasmWords } from './memory.js';

// The tags, as src/tape.rs has them.
const NULL = 0;
const BOOL = 1; // payload 1 for true
const NUMBER = 3; // the next of `numbers`
const STRING = 4; // payload: the length, UTF-8 bytes from JS, UTF-16 units from wasm
const ARRAY = 5; // payload: the item count
const OBJECT = 6; // payload: the entry count; each entry a key (STRING, or KEY) then its value
const KEY = 7; // payload: the index of a key given before as STRING in this tape

/** Payloads are 29 bits: a longer string or array cannot cross this way. */
const MAX_PAYLOAD = 2 ** 29 - 1;
/** Arrays and objects a value may nest (`MAX_NESTING` in src/model/read.rs). */
const MAX_NESTING = 127;
// Node 20's encodeInto writes nothing into a view of 2^31 bytes or more.
const MAX_BUFFER = 2 ** 31 - 1;
/** Buffers are kept for the next call up to this many bytes (a long conversation's); larger ones are let go. */
const KEPT = 1 << 24;
/** Keys a tape numbers without its `Map`. */
const FEW = 16;

const encoder = new TextEncoder();
// (A byte order mark is text like any other: JSON.stringify keeps it.)
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

// Node 20's TextDecoder reads non-ASCII UTF-8 at a few hundred MB/s. Its Buffer reads ASCII
// as Latin-1, and ICU (`transcode`) converts long UTF-8 to UTF-16, several times as fast;
// on short text the TextDecoder is as fast. A browser has no `process` and a fast TextDecoder.
const LONG = 1024;
const node = nodeBuffer();

function nodeBuffer() {
  try {
    const buffer = globalThis.process?.getBuiltinModule?.('node:buffer');
    // (A Node built without ICU has no working `transcode`.)
    return buffer?.transcode(new Uint8Array([0xc3, 0xa9]), 'utf8', 'utf16le').toString('utf16le') === 'é' ? buffer : undefined;
  } catch {
    return undefined;
  }
}

/** The string of the UTF-8 `bytes` (a view of wasm memory, read before anything else runs there); `ascii`: they are. */
export function fromUtf8(bytes, ascii) {
  if (node === undefined || bytes.length < LONG) return decoder.decode(bytes);
  if (ascii) return node.Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
  return node.transcode(bytes, 'utf8', 'utf16le').toString('utf16le');
}

/** `JSON.parse` of the UTF-8 JSON text `bytes` (as `fromUtf8` reads it). */
export function parseJson(bytes, ascii) {
  return JSON.parse(fromUtf8(bytes, ascii));
}

// Called as `charCodeAt.call(s, i)`, not `s.charCodeAt(i)`: strings come in many
// representations, each its own hidden class, and a method looked up on more than four of
// them makes the site megamorphic, a cache probe at every character. A constant of this
// module, so that the JIT knows the function and inlines it (an imported one it does not).
const { charCodeAt } = String.prototype;
const objectTag = (value) => Object.prototype.toString.call(value);

/** A tape being written; one is kept for reuse, another made when a getter encodes meanwhile. */
class Tape {
  constructor() {
    this.ops = new Uint32Array(1 << 12);
    this.numbers = new Float64Array(1 << 8);
    this.bytes = new Uint8Array(1 << 16);
    // The keys given so far, numbered in order: up to FEW in `names` (an options object's, a
    // message's), past that all of them in `keys` (key → number). A `Map` cleared for every
    // tape allocates a new table each time.
    this.names = new Array(FEW).fill('');
    this.named = 0;
    this.keys = new Map();
  }

  reset() {
    this.o = 0;
    this.n = 0;
    this.p = 0;
    this.named = 0;
    if (this.keys.size !== 0) this.keys.clear();
  }

  op(tag, payload) {
    if (payload > MAX_PAYLOAD) throw new RangeError('too long to cross to WebAssembly');
    if (this.o === this.ops.length) this.ops = grown(this.ops, this.o, 1);
    this.ops[this.o++] = tag | (payload << 3);
  }

  number(x) {
    if (!Number.isFinite(x)) return this.op(NULL, 0);
    this.op(NUMBER, 0);
    if (this.n === this.numbers.length) this.numbers = grown(this.numbers, this.n, 1);
    this.numbers[this.n++] = x;
  }

  string(s) {
    const n = s.length;
    if (n < 64) {
      // Short strings (ids, names, roles) byte by byte while ASCII: an encodeInto call costs more.
      this.room(n);
      const bytes = this.bytes;
      let p = this.p;
      let i = 0;
      for (; i < n; i++) {
        const c = charCodeAt.call(s, i);
        if (c > 0x7f) break;
        bytes[p++] = c;
      }
      if (i === n) {
        this.p = p;
        return this.op(STRING, n);
      }
    }
    if (!wellFormed(s)) throw new TypeError('lone surrogate'); // jsonProblem names where
    // Room for the longest UTF-8 it can be: 3 bytes per UTF-16 unit.
    this.room(3 * n);
    const { written } = encoder.encodeInto(s, this.bytes.subarray(this.p));
    this.p += written;
    this.op(STRING, written);
  }

  room(n) {
    if (this.p + n > this.bytes.length) this.bytes = grown(this.bytes, this.p, n);
  }

  key(k) {
    const named = this.named;
    if (named <= FEW) {
      // (Keys are internalized strings: comparing two is comparing their addresses.)
      for (let i = 0; i < named; i++) if (this.names[i] === k) return this.op(KEY, i);
    } else {
      const index = this.keys.get(k);
      if (index !== undefined) return this.op(KEY, index);
    }
    this.string(k); // (a lone surrogate throws here, before the key is numbered)
    if (named < FEW) {
      this.names[named] = k;
    } else {
      // Past FEW keys, all of them are looked up in the map.
      if (named === FEW) this.names.forEach((name, i) => this.keys.set(name, i));
      this.keys.set(k, named);
    }
    this.named = named + 1;
  }

  // `v` (toJSON already applied), at `depth` containers below the root.
  value(v, depth) {
    switch (typeof v) {
      case 'string': return this.string(v);
      case 'number': return this.number(v);
      case 'boolean': return this.op(BOOL, v ? 1 : 0);
      case 'object': return v === null ? this.op(NULL, 0) : this.container(v, depth);
      default: throw new TypeError(`a ${typeof v} cannot be JSON`); // a BigInt: jsonProblem says so
    }
  }

  container(v, depth) {
    if (depth === MAX_NESTING) throw new RangeError('nested too deep'); // or a cycle
    if (Array.isArray(v)) {
      const length = v.length;
      this.op(ARRAY, length);
      for (let i = 0; i < length; i++) {
        const item = resolve(v[i], i);
        if (omitted(item)) this.op(NULL, 0);
        else this.value(item, depth + 1);
      }
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null && this.special(v)) return;
    const keys = Object.keys(v);
    this.op(OBJECT, 0);
    const at = this.o - 1;
    let count = 0;
    for (let k = 0; k < keys.length; k++) count += this.field(keys[k], v[keys[k]], depth);
    this.ops[at] = OBJECT | (count << 3);
  }

  // A top-level plain object whose fields `readFields` read, as `container` writes it.
  fields(fields) {
    this.op(OBJECT, 0);
    const at = this.o - 1;
    let count = 0;
    for (let f = 0; f < fields.length; f += 2) count += this.field(fields[f], fields[f + 1], 0);
    this.ops[at] = OBJECT | (count << 3);
  }

  // Field `key` of an object at `depth`, holding `v` (toJSON not yet applied): 1 when
  // written, 0 when JSON leaves it out.
  field(key, v, depth) {
    const item = resolve(v, key);
    if (omitted(item)) return 0;
    this.key(key);
    this.value(item, depth + 1);
    return 1;
  }

  // Objects JSON.stringify reads otherwise than by their keys: binary data (as base64)
  // and the Number, String and Boolean wrappers (as what they wrap). False for the rest.
  special(v) {
    switch (objectTag(v)) {
      case '[object Uint8Array]': this.string(base64(v)); return true;
      case '[object ArrayBuffer]': this.string(base64(new Uint8Array(v))); return true;
      case '[object Number]': this.number(Number(v)); return true;
      case '[object String]': this.string(String(v)); return true;
      case '[object Boolean]': this.op(BOOL, Boolean.prototype.valueOf.call(v) ? 1 : 0); return true;
      case '[object BigInt]': throw new TypeError('a BigInt cannot be JSON');
      default: return false;
    }
  }

  trim() {
    if (this.ops.length * 4 > KEPT) this.ops = new Uint32Array(1 << 12);
    if (this.numbers.length * 8 > KEPT) this.numbers = new Float64Array(1 << 8);
    if (this.bytes.length > KEPT) this.bytes = new Uint8Array(1 << 16);
    if (this.keys.size !== 0) this.keys.clear();
  }
}

// `array` with its first `used` items, and room for `n` more.
function grown(array, used, n) {
  if (used + n > MAX_BUFFER) throw new RangeError('too large to cross to WebAssembly');
  const larger = new array.constructor(Math.min(Math.max(array.length * 2, used + n), MAX_BUFFER));
  larger.set(array.subarray(0, used));
  return larger;
}

// What JSON.stringify writes for `v`, the value of field or index `key`: what its toJSON
// returns; binary data stays itself (a Node Buffer's toJSON would make an array of it).
function resolve(v, key) {
  if ((typeof v === 'object' && v !== null) || typeof v === 'bigint') {
    const toJSON = v.toJSON;
    if (typeof toJSON === 'function' && objectTag(v) !== '[object Uint8Array]') return toJSON.call(v, String(key));
  }
  return v;
}

// Binary data as standard base64: the engine's own encoder (Uint8Array.prototype.toBase64,
// else btoa of the bytes as Latin-1 text, 32 KiB at a time).
function base64(bytes) {
  if (typeof bytes.toBase64 === 'function') return bytes.toBase64();
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

// What JSON.stringify leaves out of an object (and writes as null in an array).
const omitted = (v) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

const shared = new Tape();
let busy = false;
// The tape `encodeValue` wrote last, until `takeTape` copies it.
let pending;

/**
 * Encodes `value` as a tape, kept for `takeTape`, and writes its three lengths (ops,
 * numbers, bytes) into the three words of wasm memory at byte address `lengths`: true;
 * false for what JSON leaves out (undefined, a function). Throws what reading threw, or an error of
 * its own for what JSON cannot hold (a BigInt, a cycle, a lone surrogate): values.rs then
 * asks jsonProblem (inspect.js) where it is. `fields` (from `encodeAgain`): those of
 * `value` as `readFields` read them, encoded instead of reading `value` again.
 */
export function encodeValue(value, lengths, fields) {
  // A getter may encode another value meanwhile: it gets a tape of its own.
  const tape = busy ? new Tape() : shared;
  const outer = !busy;
  busy = true;
  tape.reset();
  try {
    if (fields !== undefined) {
      tape.fields(fields);
    } else {
      const v = resolve(value, '');
      if (omitted(v)) return false;
      tape.value(v, 0);
    }
  } catch (error) {
    if (outer) tape.trim();
    throw error;
  } finally {
    if (outer) busy = false;
  }
  pending = tape;
  // (The view is asked for now: a getter may have made wasm grow its memory.)
  const words = wasmWords();
  const at = lengths >>> 2;
  words[at] = tape.o;
  words[at + 1] = tape.n;
  words[at + 2] = tape.p;
  return true;
}

/**
 * `encodeValue` of a value given again (`requestBody`'s options, at every step): 2, with
 * nothing kept, when its tape is the same as `last`'s (a tape `keepTape` copied, or
 * undefined); else 1 or 0 as `encodeValue`'s true or false. Numbers are the same only
 * bit for bit (0 and -0 are written apart).
 */
export function encodeAgain(value, lengths, last) {
  // Options are usually a plain object of strings and numbers, made anew for each call: its
  // fields, each read once, are compared with the last one's before anything is encoded.
  const fields = readFields(value);
  if (fields !== undefined && last?.fields !== undefined && sameFields(fields, last.fields)) return 2;
  if (!encodeValue(value, lengths, fields)) return 0;
  if (last !== undefined && sameTape(pending, last)) {
    release();
    return 2;
  }
  // (Set after encoding, which may run a getter that encodes a value of its own.)
  pendingFields = fields;
  return 1;
}

// The fields `encodeAgain` read from the value `encodeValue` kept, for `keepTape`.
let pendingFields;

// `[key, value, …]` of a plain object whose `toJSON` is not a function, each field read once
// (a getter runs once) in JSON.stringify's order; undefined for another value.
function readFields(value) {
  if (typeof value !== 'object' || value === null) return undefined;
  const proto = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || typeof value.toJSON === 'function') return undefined;
  const keys = Object.keys(value);
  const fields = new Array(2 * keys.length);
  for (let k = 0; k < keys.length; k++) {
    fields[2 * k] = keys[k];
    fields[2 * k + 1] = value[keys[k]];
  }
  return fields;
}

// Whether every field of `fields` is one that nothing can change: a string, number,
// boolean, null or undefined. An object's fields may change while it stays itself.
function primitive(fields) {
  for (let f = 1; f < fields.length; f += 2) {
    const v = fields[f];
    if (v !== null && v !== undefined && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean') return false;
  }
  return true;
}

// Whether `fields` are the same as `last`, fields that `primitive` took: then their tapes are.
function sameFields(fields, last) {
  if (fields.length !== last.length) return false;
  for (let f = 0; f < fields.length; f++) if (!Object.is(fields[f], last[f])) return false;
  return true;
}

function sameTape(tape, last) {
  if (tape.o !== last.ops.length || tape.n !== last.numbers.length || tape.p !== last.bytes.length) return false;
  for (let i = 0; i < tape.o; i++) if (tape.ops[i] !== last.ops[i]) return false;
  for (let i = 0; i < tape.n; i++) if (!Object.is(tape.numbers[i], last.numbers[i])) return false;
  for (let i = 0; i < tape.p; i++) if (tape.bytes[i] !== last.bytes[i]) return false;
  return true;
}

/**
 * A copy of the tape `encodeValue` kept (before `takeTape` takes it), for `encodeAgain`,
 * with the fields `encodeAgain` read when they are all primitives.
 */
export function keepTape() {
  const { ops, numbers, bytes, o, n, p } = pending;
  const fields = pendingFields !== undefined && primitive(pendingFields) ? pendingFields : undefined;
  pendingFields = undefined;
  return { ops: ops.slice(0, o), numbers: numbers.slice(0, n), bytes: bytes.slice(0, p), fields };
}

/**
 * Copies the tape `encodeValue` kept into wasm memory at byte addresses `ops`, `numbers`
 * and `bytes`, where wasm made room of its lengths.
 */
export function takeTape(ops, numbers, bytes) {
  const tape = pending;
  copy(wasmWords(), ops >>> 2, tape.ops, tape.o);
  copy(wasmFloats(), numbers >>> 3, tape.numbers, tape.n);
  copy(wasmBytes(), bytes, tape.bytes, tape.p);
  release();
}

// Lets go of the tape `encodeValue` kept; the shared one is trimmed for its next use.
function release() {
  const tape = pending;
  pending = undefined;
  if (tape === shared) tape.trim();
}

// The first `n` items of `source` into `target` from index `at`: a short run item by item,
// for a view of it would cost more (a small value's tape is a few dozen items).
function copy(target, at, source, n) {
  if (n > 64) return target.set(source.subarray(0, n), at);
  for (let i = 0; i < n; i++) target[at + i] = source[i];
}

/**
 * The value of a tape written by values.rs (views of wasm memory, read before
 * anything else runs there; `ascii`: its text is). Its strings are cut from one decoded
 * text; the payload of a string is its length in UTF-16 units.
 */
export function decodeValue(ops, numbers, bytes, ascii) {
  const text = fromUtf8(bytes, ascii);
  const keys = [];
  let o = 0;
  let n = 0;
  let t = 0;

  function string(length) {
    const s = text.slice(t, t + length);
    t += length;
    return s;
  }

  function value() {
    const op = ops[o++];
    const payload = op >>> 3;
    switch (op & 7) {
      case NULL: return null;
      case BOOL: return payload === 1;
      case NUMBER: return numbers[n++];
      case STRING: return string(payload);
      case ARRAY: {
        const array = [];
        for (let i = 0; i < payload; i++) array.push(value());
        return array;
      }
      default: { // OBJECT
        const object = {};
        for (let i = 0; i < payload; i++) {
          const op = ops[o++];
          let key;
          if ((op & 7) === KEY) {
            key = keys[op >>> 3];
          } else {
            key = string(op >>> 3);
            keys.push(key);
          }
          // An own "__proto__" field, as JSON.parse makes it, not the prototype.
          if (key === '__proto__') {
            Object.defineProperty(object, key, { value: value(), writable: true, enumerable: true, configurable: true });
          } else {
            object[key] = value();
          }
        }
        return object;
      }
    }
  }

  return value();
}
