// Shared helpers for the `node --test` suite of the built package.
// Everything here is deterministic: no randomness, fixed timestamps and ids.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { ContextManager } from 'context-compactor';

export const REDACTED = '[Content redacted for context management]';
export const SUMMARY_PREFIX = '[Previous conversation summary]: ';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const BASE_TIME = Date.UTC(2025, 0, 1, 12, 0, 0);
let seq = 0;

/** A deterministic UUID v4-shaped id (unique within the process). */
export function fakeUuid(n = ++seq) {
  const hex = n.toString(16).padStart(12, '0').slice(-12);
  return `00000000-0000-4000-8000-${hex}`;
}

function isoAt(i) {
  return new Date(BASE_TIME + i * 1000).toISOString();
}

/**
 * A complete message (every field present, `is_error` set on tool results), so that
 * what the package returns for an untouched message deep-equals what went in.
 */
export function message(role, owner, number, content, extra = {}) {
  const n = ++seq;
  return {
    role,
    id: fakeUuid(n),
    session_id: 1,
    turn_id: { owner, number },
    created_at: isoAt(n),
    content,
    ...extra,
  };
}

export const text = (t) => ({ type: 'text', text: t });
export const toolUse = (id, name = 'bash', input = { cmd: `run ${id}` }) => ({ type: 'tool_use', id, name, input });
export const toolResult = (id, content, extra = {}) => ({ type: 'tool_result', tool_use_id: id, content, is_error: false, ...extra });

/**
 * An agent conversation of `turns` agent turns. Turn k:
 *   user turn u<k>: one user text message;
 *   assistant turn a<k>: for each of `rounds` rounds, an assistant message with `parallel`
 *   tool_use blocks and a user message with their tool_result blocks; then a final
 *   assistant text message.
 * Tool ids are `toolu_<k>_<round>_<j>`.
 */
export function agentConversation({
  turns = 6, parallel = 1, rounds = 1, resultSize = 400, startTurn = 1, compactSummary = false, bare = false,
} = {}) {
  const out = [];
  for (let k = startTurn; k < startTurn + turns; k++) {
    out.push(message('user', 'u', k, [text(`Question ${k}: please look at file_${k}.txt and tell me what it says.`)]));
    for (let r = 1; r <= rounds; r++) {
      const ids = [];
      for (let j = 1; j <= parallel; j++) ids.push(`toolu_${k}_${r}_${j}`);
      out.push(message('assistant', 'a', k, [text(`Looking (round ${r}).`), ...ids.map((id) => toolUse(id))]));
      out.push(message('user', 'a', k, ids.map((id) => toolResult(
        id,
        `output of ${id}: ` + `line ${k}.${r} `.repeat(Math.ceil(resultSize / 10)),
        compactSummary ? { compact_summary: `short ${id}` } : {},
      ))));
    }
    out.push(message('assistant', 'a', k, [text(`Answer ${k}: the file says hello ${k}.`)]));
  }
  if (bare) {
    for (const m of out) {
      delete m.id; delete m.session_id; delete m.created_at;
      for (const b of m.content) if (b.type === 'tool_result') delete b.is_error;
    }
  }
  return out;
}

/**
 * What the package returns for messages it reads in full (a ContextManager, LlmCompactor):
 * the same values, missing `id`, `session_id`, `created_at` and `is_error` filled in.
 */
export function normalize(messages) {
  const manager = new ContextManager({ contextLimit: 1_000_000_000 });
  try {
    manager.pushMany(messages);
    return manager.messages();
  } finally {
    manager.free();
  }
}

/**
 * Checks that `output` is `input` updated the immutable way (what ThresholdCompactor.compact
 * returns): a new array in which a message is either the input's own object or a copy
 * differing only in `content`, whose blocks are the input's own objects except for tool
 * results with a new `content` (copies differing only there). Returns how many blocks changed.
 */
export function assertSharing(input, output) {
  assert.notEqual(output, input, 'not a new array');
  assert.equal(output.length, input.length);
  let changed = 0;
  output.forEach((m, i) => {
    const before = input[i];
    if (m === before) return;
    assert.notEqual(m.content, before.content, `message ${i}: copied, content array shared`);
    assert.deepEqual({ ...m, content: before.content }, before, `message ${i}: more than content differs`);
    assert.equal(m.content.length, before.content.length);
    let blocks = 0;
    m.content.forEach((b, j) => {
      const old = before.content[j];
      if (b === old) return;
      assert.equal(b.type, 'tool_result', `message ${i} block ${j}`);
      assert.notEqual(b.content, old.content, `message ${i} block ${j}: copied but unchanged`);
      assert.deepEqual({ ...b, content: old.content }, old, `message ${i} block ${j}: more than content differs`);
      blocks += 1;
    });
    assert.ok(blocks > 0, `message ${i}: copied but no block changed`);
    changed += blocks;
  });
  return changed;
}

/** A user text message of turn u<number> (e.g. pushed later). */
export function userText(number, t = `follow-up ${number}`) {
  return message('user', 'u', number, [text(t)]);
}

/** Groups consecutive messages with the same turn id (the specification's turn extraction). */
export function turnsOf(messages) {
  const groups = [];
  for (const m of messages) {
    const last = groups[groups.length - 1];
    if (last && last.turn_id.owner === m.turn_id.owner && last.turn_id.number === m.turn_id.number) last.messages.push(m);
    else groups.push({ turn_id: m.turn_id, messages: [m] });
  }
  return groups;
}

/** The messages of the last `k` turns. */
export function lastTurns(messages, k) {
  if (k === 0) return [];
  return turnsOf(messages).slice(-k).flatMap((g) => g.messages);
}

/**
 * An independent check of the providers' pairing rule: every tool_result answers a
 * tool_use of the immediately preceding assistant message, and every tool_use (except in
 * the last message) is answered in the immediately following user message.
 */
export function pairProblems(messages) {
  const problems = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') {
      const prev = messages[i - 1];
      const uses = new Set(prev && prev.role === 'assistant'
        ? prev.content.filter((b) => b.type === 'tool_use').map((b) => b.id) : []);
      for (const b of m.content) {
        if (b.type === 'tool_result' && !uses.has(b.tool_use_id)) problems.push({ i, id: b.tool_use_id, problem: 'orphan result' });
      }
    } else if (i < messages.length - 1) {
      const next = messages[i + 1];
      const results = new Set(next && next.role === 'user'
        ? next.content.filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id) : []);
      for (const b of m.content) {
        if (b.type === 'tool_use' && !results.has(b.id)) problems.push({ i, id: b.id, problem: 'unanswered use' });
      }
    }
  });
  return problems;
}

/** All tool ids (uses and results) mentioned by the messages. */
export function toolIds(messages) {
  const ids = new Set();
  for (const m of messages) for (const b of m.content) {
    if (b.type === 'tool_use') ids.add(b.id);
    if (b.type === 'tool_result') ids.add(b.tool_use_id);
  }
  return ids;
}

/** A promise with its resolve/reject exposed. */
export function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

export const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

/**
 * A controllable summarizer: each call is recorded and answered by hand.
 * `s.calls[i]` = { request, resolve, reject }.
 */
export function manualSummarizer() {
  const calls = [];
  const summarize = (request) => {
    const d = deferred();
    calls.push({ request, resolve: d.resolve, reject: d.reject });
    return d.promise;
  };
  return { summarize, calls };
}

// ---------------------------------------------------------------- real transcripts

export const CONVERSATIONS_DIR = new URL('../../../shared/conversations/', import.meta.url);

/**
 * Converts an Anthropic `{ system, messages }` transcript into the package's model.
 * Turn ids: a user message carrying text starts user turn u<k>; assistant messages and
 * user messages that only carry tool_result blocks belong to assistant turn a<k>.
 * (Kept in one function so it can later be switched to the package's own converter.)
 */
export function fromAnthropicTranscript(transcript) {
  let k = 0;
  const messages = [];
  for (const m of transcript.messages) {
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : structuredClone(m.content);
    let owner;
    if (m.role === 'user' && content.some((b) => b.type === 'text')) {
      k += 1;
      owner = 'u';
    } else {
      owner = 'a';
    }
    messages.push({ role: m.role, turn_id: { owner, number: k }, content });
  }
  return { system: transcript.system, messages };
}

/** Every `*.anthropic.json` transcript, converted: [{ name, system, messages }]. */
export function loadTranscripts() {
  return readdirSync(CONVERSATIONS_DIR)
    .filter((f) => f.endsWith('.anthropic.json'))
    .sort()
    .map((name) => {
      const raw = JSON.parse(readFileSync(new URL(name, CONVERSATIONS_DIR), 'utf8'));
      return { name, ...fromAnthropicTranscript(raw) };
    });
}
