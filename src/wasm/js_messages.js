// The JS half of ThresholdCompactor's `compact` and `compactInPlace`: one pass over the
// caller's array collects what the decision needs (turn continuity; roles, blocks and tool
// results); wasm decides which messages are old and what changes, and here the changes
// not made already are found and applied: in place (`edits`, then `setContents`) or to
// shallow copies (`withEdits`, in one call). When the pass finds something invalid that
// matters, wasm reads field by field instead, to report the exact error (js_messages.rs).

import { wellFormed } from './inspect.js';
import { wasmWords } from './memory.js';
import { counts } from './outcome.js';

// `arrayLength`, `scan`, `edits` and `withEdits` catch what JS throws (a
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

// What `scan` writes per message into `marks`, as js_messages.rs reads them.
const SAME_TURN = 1; // the message continues the turn of the one before
const INVALID = 2; // its role, content or blocks are not as compaction reads them, or reading them threw
const RESULTS = 4; // one tool result: the count of them is marks[i] / RESULTS

// The tool results `scan` found, until `scanned` takes them.
let found;
// `{ index, error }`: the first message whose role, content or blocks threw when read.
let contentThrow;

// What `scan` returns instead of the number of messages, as js_messages.rs reads it.
const NOT_AN_ARRAY = -1; // or looking threw
const INVALID_TURNS = -2; // a message or its turn id is invalid, or reading one threw
const CHANGED = -3; // the array's length changed meanwhile

/**
 * One pass over `messages`. Returns their number, having set mark i (the `room` words of
 * wasm memory from byte address `marks`, one per message) to the sum of SAME_TURN when
 * message i has the turn id of the one before, INVALID when its role, content or blocks
 * are invalid (or threw when read: `contentThrown` gives what), and RESULTS per tool result
 * block of a user message, and kept the tool results for `scanned` (their `tool_use_id`s
 * with `withIds`), if there is room for them all; else only their turn ids are checked
 * (wasm calls again with more room, and uses the marks written only then). Or a code:
 * NOT_AN_ARRAY, INVALID_TURNS, CHANGED (a getter changed the array's length). Which
 * messages count (the old ones) is for wasm to decide: the marks of the others go unused.
 */
export function scan(messages, marks, room, withIds) {
  found = undefined;
  contentThrow = undefined;
  let length;
  try {
    if (!Array.isArray(messages)) return NOT_AN_ARRAY;
    length = messages.length >>> 0;
  } catch {
    return NOT_AN_ARRAY; // a revoked Proxy: wasm asks `arrayLength`, which says so
  }
  // Without room for every message, their turn ids are only checked: wasm makes room for
  // an array that holds messages, not for one that only says it is long.
  const at = marks >>> 2;
  try {
    let owner;
    let number;
    let results;
    // Checks written out, not called: until the JIT has optimized this loop (an agent compacts
    // once a step, so it rarely does), a call per check is a large part of a short conversation's time.
    for (let i = 0; i < length; i++) {
      const message = messages[i];
      if (typeof message !== 'object' || message === null || Array.isArray(message)) return INVALID_TURNS;
      const turnId = message.turn_id;
      if (typeof turnId !== 'object' || turnId === null || Array.isArray(turnId)) return INVALID_TURNS;
      const o = turnId.owner;
      const n = turnId.number;
      if (typeof o !== 'string' || !Number.isInteger(n) || Math.abs(n) > 9.2e18) return INVALID_TURNS;
      let mark = i > 0 && n === number && o === owner ? SAME_TURN : 0;
      owner = o;
      number = n;
      if (i >= room) continue;
      try {
        const role = message.role;
        if (role !== 'assistant') {
          const content = message.content;
          if (role !== 'user' || !Array.isArray(content)) {
            mark |= INVALID;
          } else {
            for (let j = 0; j < content.length; j++) {
              const block = content[j];
              if (typeof block !== 'object' || block === null || Array.isArray(block)) {
                mark |= INVALID;
                break;
              }
              const type = block.type;
              if (typeof type !== 'string') {
                mark |= INVALID;
                break;
              }
              if (type !== 'tool_result') continue;
              const id = block.tool_use_id;
              const text = block.content;
              const summary = block.compact_summary;
              if (typeof id !== 'string' || (typeof text !== 'string' && !Array.isArray(text))
                || (summary != null && typeof summary !== 'string')) {
                mark |= INVALID;
                break;
              }
              results ??= { at: [], slots: [], blocks: [], ids: [] };
              results.at.push(i);
              results.slots.push(j);
              results.blocks.push(block);
              if (withIds) results.ids.push(id);
              mark += RESULTS;
            }
          }
        }
      } catch (error) {
        mark |= INVALID;
        contentThrow ??= { index: i, error };
      }
      // (The view is asked for again: a getter may have made wasm grow its memory.)
      wasmWords()[at + i] = mark;
    }
    if (messages.length !== length) return CHANGED;
    if (length > room) return length;
    if (results !== undefined) found = foundResults(results, withIds);
    return length;
  } catch (error) {
    failure = { error };
    return INVALID_TURNS;
  }
}

/**
 * The tool results `scan` last found: per tool result its block, its message's index
 * (`at`) and its place in that message's content (`slots`); with `withIds`, their
 * `tool_use_id`s as a JSON array (`ids`; null for one with a lone surrogate).
 */
function foundResults({ at, slots, blocks, ids }, withIds) {
  let json = '';
  if (withIds) {
    json = JSON.stringify(ids);
    // A lone surrogate comes out escaped, and wasm's JSON parser refuses it. Such an id cannot
    // be a key of the summaries (which cross as JSON too): it crosses as null, "no id".
    if (json.includes('\\ud')) json = JSON.stringify(ids.map((id) => (wellFormed(id) ? id : null)));
  }
  return { at, slots, blocks, ids: json };
}

/** The tool results `scan` last found (undefined if none), once. */
export function scanned() {
  const results = found;
  found = undefined;
  return results;
}

/** What reading message `index`'s role, content or blocks threw in the last `scan`, if it did; once. */
export function contentThrown(index) {
  const t = contentThrow;
  contentThrow = undefined;
  return t?.index === index ? t.error : undefined;
}

/**
 * What the codes change (from wasm, one for each of the first `count` tool results of
 * `scanned`, the words of wasm memory from byte address `codes`: 0 to leave it, 1 for its
 * own `compact_summary` if it has one, 2 + n for `texts[n]`, `texts` a JSON array or
 * undefined for none): `[k, text, …]` for the tool results `k` whose content is not that
 * text already, nor `keep` (the redaction notice, when summarizing: a summary would make
 * it longer). Undefined if reading a block threw.
 */
export function edits(scanned, codes, count, texts, keep) {
  try {
    return editList(scanned, codes, count, texts, keep);
  } catch (error) {
    failure = { error };
    return undefined;
  }
}

function editList(scanned, codes, count, texts, keep) {
  const table = texts === undefined ? [] : JSON.parse(texts);
  const out = [];
  const at = codes >>> 2;
  for (let k = 0; k < count; k++) {
    // (The view is asked for again: a getter may have made wasm grow its memory.)
    const code = wasmWords()[at + k];
    if (code === 0) continue;
    const block = scanned.blocks[k];
    const text = code === 1 ? block.compact_summary : table[code - 2];
    if (text != null && block.content !== text && block.content !== keep) out.push(k, text);
  }
  return out;
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
 * `{ messages, result }`: a new array of `messages` with the edits `edits` makes of the
 * codes (none without `scanned`) applied, nothing of the caller's modified (an edited message
 * becomes `{ ...message, content: [...] }` with `{ ...block, content: text }` for its
 * edited blocks; every other message and block is the caller's own object), and as
 * `result` the counts: `redacted`, `summarized` and `turns` each times the edits made
 * (what wasm counts per edit). Undefined if reading them threw.
 */
export function withEdits(messages, scanned, codes, count, texts, keep, redacted, summarized, turns) {
  try {
    const list = scanned === undefined ? undefined : editList(scanned, codes, count, texts, keep);
    const n = list === undefined ? 0 : list.length >> 1;
    return { messages: copyWithContents(messages, scanned, list), result: counts(redacted * n, summarized * n, turns * n) };
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
