// ThresholdCompactor.compactInPlace: the fast path that edits the caller's array like an
// app's own loop. compact() makes the same decisions on copies (compact.test.mjs); both
// give the same INVALID_INPUT paths for what they read and change nothing on error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThresholdCompactor, CompactionError } from 'context-compactor';
import { agentConversation, REDACTED } from './helpers.mjs';

test('edits only tool result contents, in place', () => {
  const conversation = agentConversation({ turns: 5 });
  const before = structuredClone(conversation);
  const blocks = conversation.map((m) => m.content);
  new ThresholdCompactor({ toolCompaction: 'redact' }).compactInPlace(conversation);
  conversation.forEach((m, i) => {
    assert.equal(m.content, blocks[i], 'same arrays');
    m.content.forEach((b, j) => {
      const old = before[i].content[j];
      if (b.content !== old.content) {
        assert.equal(b.type, 'tool_result');
        assert.equal(b.content, REDACTED);
        assert.deepEqual({ ...b, content: old.content }, old);
      } else assert.deepEqual(b, old);
    });
  });
});

const okConv = () => [
  { role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'text', text: 'hi' }] },
  { role: 'assistant', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
  { role: 'user', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
  { role: 'user', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_result', tool_use_id: 't2', content: 'y' }] },
  { role: 'assistant', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'text', text: 'done' }] },
];
const withConv = (edit) => { const c = okConv(); edit(c); return c; };

const BAD = [
  ['not an array', { 0: 'x' }, 'messages'],
  ['missing', undefined, 'messages'],
  ['null message', withConv((c) => { c[2] = null; }), 'messages[2]'],
  ['missing turn_id', withConv((c) => { delete c[4].turn_id; }), 'messages[4].turn_id'],
  ['turn_id a string', withConv((c) => { c[1].turn_id = 'a1'; }), 'messages[1].turn_id'],
  ['owner a number', withConv((c) => { c[1].turn_id.owner = 1; }), 'messages[1].turn_id.owner'],
  ['number fractional', withConv((c) => { c[0].turn_id.number = 1.5; }), 'messages[0].turn_id.number'],
  ['number a string', withConv((c) => { c[0].turn_id.number = '1'; }), 'messages[0].turn_id.number'],
  ['unknown role', withConv((c) => { c[1].role = 'system'; }), 'messages[1].role'],
  ['missing role', withConv((c) => { delete c[1].role; }), 'messages[1].role'],
  ['content not an array', withConv((c) => { c[0].content = 'hi'; }), 'messages[0].content'],
  ['block without type', withConv((c) => { c[0].content = [{ text: 'x' }]; }), 'messages[0].content[0].type'],
  ['tool_result without tool_use_id', withConv((c) => { delete c[3].content[0].tool_use_id; }), 'messages[3].content[0].tool_use_id'],
  ['tool_result content a number', withConv((c) => { c[3].content[0].content = 5; }), 'messages[3].content[0].content'],
  ['compact_summary a number', withConv((c) => { c[3].content[0].compact_summary = 5; }), 'messages[3].content[0].compact_summary'],
  ['summaries a string', 'summaries', 'compactSummaries'],
];

for (const [name, data, path] of BAD) {
  test(`INVALID_INPUT at ${path}: ${name}; nothing changed`, () => {
    const compactor = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 0 });
    const [messages, summaries] = data === 'summaries' ? [okConv(), 'x'] : [data, undefined];
    const before = structuredClone(messages);
    const invalid = (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT' && e.path === path;
    assert.throws(() => compactor.compactInPlace(messages, summaries), invalid);
    assert.deepEqual(messages, before);
    assert.throws(() => compactor.compact(messages, summaries), invalid);
    assert.deepEqual(messages, before);
  });
}

test('a block that refuses the write: INVALID_INPUT at its content, and no block changed', () => {
  for (const refuse of [Object.freeze, (b) => Object.defineProperty(b, 'content', { set() { throw new Error('no'); }, get() { return 'y'; } })]) {
    const messages = agentConversation({ turns: 6 });
    const results = messages.flatMap((m, i) => m.content.map((b, j) => [b, i, j])).filter(([b]) => b.type === 'tool_result');
    assert.ok(results.length >= 4);
    // A late block refuses: the earlier ones were written first, and must be put back.
    const [block, i, j] = results[results.length - 3];
    refuse(block);
    const before = structuredClone(messages);
    assert.throws(
      () => new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 0 }).compactInPlace(messages),
      (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT'
        && e.path === `messages[${i}].content[${j}].content` && /could not be written/.test(e.message),
    );
    assert.deepEqual(messages, before);
  }
});
