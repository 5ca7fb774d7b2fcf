// The JS half of ThresholdCompactor's `compact` and `compactInPlace`: two passes over the
// caller's array collect what the decision needs (turn continuity, then the tool results
// of the old messages); wasm decides, `edits` says what changes, and the edits are applied
// here: in place (`setContents`) or to shallow copies (`withContents`). On anything
// unexpected a pass returns undefined and wasm reads field by field instead, to report the
// exact error (js_messages.rs).

import { wellFormed } from './inspect.js';
import { counts } from './outcome.js';

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

// `arrayLength`, `turns`, `toolResults`, `edits` and `withContents` catch what JS throws (a
// getter, a Proxy's trap) themselves, say so in their result and keep it here for `thrown`.
let failure;

/** `{ error }`, what the last of those calls that failed threw; undefined if it did not throw. */
export function thrown() {
  const f = failure;
  failure = undefined;
  return f;
}

/** `value.length` (as an unsigned 32-bit integer) if `value` is an array, else -1; -2 if looking threw. */
export function arrayLength(value) {
  try {
    return Array.isArray(value) ? value.length >>> 0 : -1;
  } catch (error) {
    failure = { error };
    return -2;
  }
}

/**
 * Sets `same[i]` (wasm memory, zeroed, one per message) to 1 when message `i` has the turn
 * id of the one before, and returns 1. 0 if a message or its turn id is invalid, or if
 * reading one threw; -1 if `messages` is not `same.length` long (a getter changed it), or
 * if `same` was cut off from wasm's memory (a getter called wasm, which grew its memory).
 */
export function turns(messages, same) {
  const length = same.length;
  try {
    if (messages.length !== length) return -1;
    let owner;
    let number;
    // isObject written out: until the JIT has optimized this loop (an agent compacts once
    // a step, so it rarely does), a call per check is a large part of a short conversation's time.
    for (let i = 0; i < length; i++) {
      const message = messages[i];
      if (typeof message !== 'object' || message === null || Array.isArray(message)) return 0;
      const turnId = message.turn_id;
      if (typeof turnId !== 'object' || turnId === null || Array.isArray(turnId)) return 0;
      const o = turnId.owner;
      const n = turnId.number;
      if (typeof o !== 'string' || !Number.isInteger(n) || Math.abs(n) > 9.2e18) return 0;
      if (i > 0 && n === number && o === owner) same[i] = 1;
      owner = o;
      number = n;
    }
    return same.length === length ? 1 : -1;
  } catch (error) {
    failure = { error };
    return 0;
  }
}

// The tool results `toolResults` found, until `scanned` takes them.
let found;

/**
 * How many tool results the user messages before `end` (whose turn ids `turns` checked)
 * have; if any, `scanned` gives them. -1 if a role, a content or a block of those messages
 * is invalid, or if reading one threw.
 */
export function toolResults(messages, end, withIds) {
  try {
    const results = readToolResults(messages, end, withIds);
    if (results === undefined) return -1;
    if (results.count > 0) found = results;
    return results.count;
  } catch (error) {
    failure = { error };
    return -1;
  }
}

/**
 * The tool results `toolResults` last counted: per tool result its block, its message's
 * index (`at`) and its place in that message's content (`slots`); their number
 * (`count`); with `withIds`, their `tool_use_id`s as a JSON array (`ids`; null for one
 * with a lone surrogate).
 */
export function scanned() {
  const results = found;
  found = undefined;
  return results;
}

function readToolResults(messages, end, withIds) {
  const at = [];
  const slots = [];
  const blocks = [];
  const ids = [];
  for (let i = 0; i < end; i++) {
    const message = messages[i];
    const role = message.role;
    if (role === 'assistant') continue;
    const content = message.content;
    if (role !== 'user' || !Array.isArray(content)) return undefined;
    for (let j = 0; j < content.length; j++) {
      const block = content[j];
      if (!isObject(block)) return undefined;
      const type = block.type;
      if (typeof type !== 'string') return undefined;
      if (type !== 'tool_result') continue;
      const id = block.tool_use_id;
      const text = block.content;
      const summary = block.compact_summary;
      if (typeof id !== 'string' || (typeof text !== 'string' && !Array.isArray(text))
        || (summary != null && typeof summary !== 'string')) return undefined;
      at.push(i);
      slots.push(j);
      blocks.push(block);
      if (withIds) ids.push(id);
    }
  }
  let json = '';
  if (withIds) {
    json = JSON.stringify(ids);
    // A lone surrogate comes out escaped, and wasm's JSON parser refuses it. Such an id cannot
    // be a key of the summaries (which cross as JSON too): it crosses as null, "no id".
    if (json.includes('\\ud')) json = JSON.stringify(ids.map((id) => (wellFormed(id) ? id : null)));
  }
  return { at, slots, blocks, count: blocks.length, ids: json };
}

/**
 * What `codes` (from wasm, per tool result of `scanned`: 0 to leave it, 1 for its own
 * `compact_summary` if it has one, 2 + n for `texts[n]`, `texts` a JSON array or undefined
 * for none) changes: `[k, text, …]` for the tool results `k` whose content is not that text
 * already, nor `keep` (the redaction notice, when summarizing: a summary would make it
 * longer). Undefined if reading a block threw.
 */
export function edits(scanned, codes, texts, keep) {
  try {
    const table = texts === undefined ? [] : JSON.parse(texts);
    const out = [];
    for (let k = 0; k < codes.length; k++) {
      const code = codes[k];
      if (code === 0) continue;
      const block = scanned.blocks[k];
      const text = code === 1 ? block.compact_summary : table[code - 2];
      if (text != null && block.content !== text && block.content !== keep) out.push(k, text);
    }
    return out;
  } catch (error) {
    failure = { error };
    return undefined;
  }
}

/**
 * Applies `edits` to the caller's own blocks, all or nothing: if a block refuses the
 * write (frozen, a throwing setter), the blocks written before it get their content
 * back, and the result is the path of that block and what was thrown.
 */
export function setContents(scanned, edits) {
  const old = new Array(edits.length >> 1);
  let e = 0;
  try {
    for (; e < edits.length; e += 2) {
      const block = scanned.blocks[edits[e]];
      old[e >> 1] = block.content;
      block.content = edits[e + 1];
    }
    return undefined;
  } catch (error) {
    for (let d = e - 2; d >= 0; d -= 2) scanned.blocks[edits[d]].content = old[d >> 1];
    const k = edits[e];
    return { path: `messages[${scanned.at[k]}].content[${scanned.slots[k]}].content`, error };
  }
}

/**
 * `{ messages, result }`: a new array of `messages` with `edits` (if any) applied, nothing of the
 * caller's modified (an edited message becomes `{ ...message, content: [...] }` with
 * `{ ...block, content: text }` for its edited blocks; every other message and block is
 * the caller's own object), and the counts as `result`. Undefined if reading them threw.
 */
export function withContents(messages, scanned, edits, redacted, summarized, turns) {
  try {
    return { messages: copyWithContents(messages, scanned, edits), result: counts(redacted, summarized, turns) };
  } catch (error) {
    failure = { error };
    return undefined;
  }
}

function copyWithContents(messages, scanned, edits) {
  const copy = messages.slice();
  if (edits === undefined) return copy;
  let last = -1;
  let content;
  for (let e = 0; e < edits.length; e += 2) {
    const k = edits[e];
    const i = scanned.at[k];
    if (i !== last) {
      const message = messages[i];
      content = message.content.slice();
      copy[i] = { ...message, content };
      last = i;
    }
    content[scanned.slots[k]] = { ...scanned.blocks[k], content: edits[e + 1] };
  }
  return copy;
}
