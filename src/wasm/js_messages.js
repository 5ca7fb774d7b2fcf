// The JS half of `compactInPlace`: one pass over the caller's array collects what the
// decision needs (turn continuity, tool results); wasm decides, and the edits are applied
// here. On anything unexpected `scan` returns undefined and wasm reads field by field
// instead, to report the exact error (js_messages.rs).

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads `messages` once: `same` (per message, 1 when it has the turn id of the one
 * before) and, per tool result of a user message, its block, its message's index (`at`),
 * its `tool_use_id` (`ids`, JSON) and whether it has a `compact_summary` (`summarized`).
 * Undefined if anything is invalid.
 */
export function scan(messages) {
  const same = new Uint8Array(messages.length);
  const at = [];
  const blocks = [];
  const ids = [];
  const summarized = [];
  let owner;
  let number;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i];
    if (!isObject(message)) return undefined;
    const turnId = message.turn_id;
    if (!isObject(turnId)) return undefined;
    const o = turnId.owner;
    const n = turnId.number;
    if (typeof o !== 'string' || !Number.isInteger(n) || Math.abs(n) > 9.2e18) return undefined;
    if (i > 0 && n === number && o === owner) same[i] = 1;
    owner = o;
    number = n;
    const role = message.role;
    if (role === 'assistant') continue;
    if (role !== 'user' || !Array.isArray(message.content)) return undefined;
    for (const block of message.content) {
      if (!isObject(block)) return undefined;
      const type = block.type;
      if (typeof type !== 'string') return undefined;
      if (type !== 'tool_result') continue;
      const content = block.content;
      const summary = block.compact_summary;
      if (typeof block.tool_use_id !== 'string' || (typeof content !== 'string' && !Array.isArray(content))
        || (summary != null && typeof summary !== 'string')) return undefined;
      at.push(i);
      blocks.push(block);
      ids.push(block.tool_use_id);
      summarized.push(summary != null ? 1 : 0);
    }
  }
  return { same, at: Uint32Array.from(at), blocks, ids: JSON.stringify(ids), summarized: Uint8Array.from(summarized) };
}

/**
 * Sets the `content` of the first tool results of `scanned` to `texts` (a JSON array:
 * per tool result null to leave it, 1 for its own `compact_summary`, or the text),
 * skipping those that already are that text. Returns how many were set.
 */
export function setContents(scanned, texts) {
  const replacements = JSON.parse(texts);
  const edits = [];
  for (let k = 0; k < replacements.length; k++) {
    const block = scanned.blocks[k];
    const text = replacements[k] === 1 ? block.compact_summary : replacements[k];
    if (text !== null && block.content !== text) edits.push(block, text);
  }
  for (let e = 0; e < edits.length; e += 2) edits[e].content = edits[e + 1];
  return edits.length / 2;
}
