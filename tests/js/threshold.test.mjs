// ThresholdCompactor: the specification's mechanical tier, with its defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThresholdCompactor, LlmCompactor, estimateTokens, validateToolPairs } from 'context-compactor';
import {
  agentConversation, lastTurns, turnsOf, message, text, toolUse, toolResult, assertSharing, REDACTED,
} from './helpers.mjs';

const ZERO = { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 };

/** Tool results of a conversation, with the index of their message. */
function results(messages) {
  const out = [];
  messages.forEach((m, i) => m.content.forEach((b) => { if (b.type === 'tool_result') out.push({ i, block: b }); }));
  return out;
}

test('shouldCompact: strictly greater than the default threshold 0.75', () => {
  const c = new ThresholdCompactor();
  assert.equal(c.shouldCompact(75, 100), false);
  assert.equal(c.shouldCompact(76, 100), true);
  assert.equal(c.shouldCompact(750, 1000), false);
  assert.equal(c.shouldCompact(751, 1000), true);
  assert.equal(c.shouldCompact(3, 4), false);
  assert.equal(c.shouldCompact(0, 100), false);
  assert.equal(c.shouldCompact(200, 100), true);
});

test('shouldCompact: custom threshold, same boundary rule, for both compactors', () => {
  const t = new ThresholdCompactor({ threshold: 0.5 });
  const l = new LlmCompactor({ threshold: 0.5, summarize: () => 'x' });
  for (const c of [t, l]) {
    assert.equal(c.shouldCompact(50, 100), false);
    assert.equal(c.shouldCompact(51, 100), true);
    assert.equal(c.shouldCompact(1, 2), false);
  }
  const d = new LlmCompactor({ summarize: () => 'x' });
  assert.equal(d.shouldCompact(75, 100), false);
  assert.equal(d.shouldCompact(76, 100), true);
});

test('defaults: summarize mode, keepRecentTurns 3, compactSummaries as a plain object', () => {
  const conv = agentConversation({ turns: 4 }); // turns u1 a1 u2 a2 u3 a3 u4 a4
  const before = structuredClone(conv);
  const summaries = { toolu_1_1_1: 'S1', toolu_2_1_1: 'S2', toolu_3_1_1: 'S3', toolu_4_1_1: 'S4' };
  const { messages, result } = new ThresholdCompactor().compact(conv, summaries);
  assert.deepEqual(result, { toolResultsSummarized: 2, toolResultsRedacted: 0, turnsCompacted: 0 });
  assert.equal(messages.length, conv.length);
  // the last 3 turns (a3, u4, a4) are untouched
  assert.deepEqual(lastTurns(messages, 3), lastTurns(conv, 3));
  const rs = results(messages);
  assert.deepEqual(rs.map((r) => r.block.content), ['S1', 'S2', conv[10].content[0].content, conv[14].content[0].content]);
  // only the content changed: the other fields of the block stay
  assert.equal(rs[0].block.tool_use_id, 'toolu_1_1_1');
  assert.equal(rs[0].block.is_error, false);
  // assistant messages of old turns are untouched
  assert.deepEqual(messages[1], conv[1]);
  assert.deepEqual(conv, before, 'input modified');
});

test('summarize mode: a Map gives the same result as a plain object', () => {
  const conv = agentConversation({ turns: 5, parallel: 2 });
  const obj = {};
  for (const id of ['toolu_1_1_1', 'toolu_1_1_2', 'toolu_2_1_2', 'toolu_5_1_1']) obj[id] = `summary of ${id}`;
  const map = new Map(Object.entries(obj));
  const mapBefore = new Map(map);
  const a = new ThresholdCompactor().compact(conv, obj);
  const b = new ThresholdCompactor().compact(conv, map);
  assert.deepEqual(a.result, { toolResultsSummarized: 3, toolResultsRedacted: 0, turnsCompacted: 0 });
  assert.deepEqual(b.result, a.result);
  assert.deepEqual(b.messages, a.messages);
  assert.equal(b.messages[2].content[1].content, 'summary of toolu_1_1_2');
  // toolu_2_1_1 has no summary: kept as it was
  assert.deepEqual(b.messages[6].content[0], conv[6].content[0]);
  assert.equal(b.messages[6].content[1].content, 'summary of toolu_2_1_2');
  assert.deepEqual(map, mapBefore, 'Map modified');
});

test('summarize mode: the block\'s own compact_summary is used', () => {
  const conv = agentConversation({ turns: 4, compactSummary: true });
  const { messages, result } = new ThresholdCompactor({ keepRecentTurns: 2 }).compact(conv);
  assert.deepEqual(result, { toolResultsSummarized: 3, toolResultsRedacted: 0, turnsCompacted: 0 });
  assert.equal(messages[2].content[0].content, 'short toolu_1_1_1');
  assert.equal(messages[6].content[0].content, 'short toolu_2_1_1');
  assert.equal(messages[10].content[0].content, 'short toolu_3_1_1');
  assert.deepEqual(messages[14], conv[14]);
  assert.ok(estimateTokens(messages) < estimateTokens(conv));
});

test('summarize mode: results without any summary are kept and not counted', () => {
  const conv = agentConversation({ turns: 4 });
  const { messages, result } = new ThresholdCompactor({ keepRecentTurns: 1 }).compact(conv, {});
  assert.deepEqual(result, ZERO);
  assert.deepEqual(messages, conv);
});

test('redact mode: every old tool result becomes the notice, counts include parallel results', () => {
  const conv = agentConversation({ turns: 4, parallel: 3, rounds: 2 });
  const before = structuredClone(conv);
  const { messages, result } = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 3 }).compact(conv, { toolu_1_1_1: 'ignored' });
  // old turns u1 a1 u2 a2 u3 hold 2 agent turns × 2 rounds × 3 parallel results
  assert.deepEqual(result, { toolResultsSummarized: 0, toolResultsRedacted: 12, turnsCompacted: 0 });
  const rs = results(messages);
  assert.equal(rs.length, 24);
  for (const r of rs.slice(0, 12)) assert.equal(r.block.content, REDACTED);
  for (const r of rs.slice(12)) assert.notEqual(r.block.content, REDACTED);
  assert.deepEqual(lastTurns(messages, 3), lastTurns(conv, 3));
  assert.deepEqual(validateToolPairs(messages), []);
  assert.deepEqual(conv, before);
});

test('redact mode: array content and is_error: true results are redacted, is_error kept', () => {
  const conv = [
    message('user', 'u', 1, [text('q')]),
    message('assistant', 'a', 1, [toolUse('x1'), toolUse('x2')]),
    message('user', 'a', 1, [
      toolResult('x1', [{ type: 'text', text: 'long text' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }]),
      toolResult('x2', 'boom', { is_error: true }),
    ]),
    message('assistant', 'a', 1, [text('done')]),
    message('user', 'u', 2, [text('next')]),
  ];
  const { messages, result } = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 1 }).compact(conv);
  assert.equal(result.toolResultsRedacted, 2);
  assert.equal(messages[2].content[0].content, REDACTED);
  assert.equal(messages[2].content[1].content, REDACTED);
  assert.equal(messages[2].content[1].is_error, true);
  assert.equal(messages[2].content[0].is_error, false);
});

test('keepRecentTurns: 0 compacts every turn; at least the turn count compacts nothing', () => {
  const conv = agentConversation({ turns: 3 });
  const all = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 0 }).compact(conv);
  assert.equal(all.result.toolResultsRedacted, 3);
  for (const n of [6, 7, 100]) {
    const none = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: n }).compact(conv);
    assert.deepEqual(none.result, ZERO, `keepRecentTurns ${n}`);
    assert.deepEqual(none.messages, conv);
  }
  const five = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 5 }).compact(conv);
  assert.equal(five.result.toolResultsRedacted, 0); // only u1 is old
  const four = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 4 }).compact(conv);
  assert.equal(four.result.toolResultsRedacted, 1); // u1, a1 are old
  assert.deepEqual(four.messages.slice(4), conv.slice(4));
});

test('an empty conversation compacts to an empty one', () => {
  const out = new ThresholdCompactor().compact([]);
  assert.deepEqual(out, { messages: [], result: ZERO });
});

test('the input array and its objects are never modified (object and Map summaries, both modes)', () => {
  for (const toolCompaction of ['summarize', 'redact']) {
    const conv = agentConversation({ turns: 5, parallel: 2, compactSummary: true, bare: true });
    const snapshot = structuredClone(conv);
    const refs = conv.map((m) => [m, m.content, ...m.content]);
    const summaries = new Map([['toolu_1_1_1', 'x']]);
    const out = new ThresholdCompactor({ toolCompaction, keepRecentTurns: 1 }).compact(conv, summaries);
    assert.notEqual(out.messages, conv);
    assert.deepEqual(conv, snapshot, `input modified (${toolCompaction})`);
    conv.forEach((m, i) => {
      assert.equal(m, refs[i][0]);
      assert.equal(m.content, refs[i][1]);
      m.content.forEach((b, j) => assert.equal(b, refs[i][2 + j]));
    });
    // structural sharing: only the messages and blocks compaction changed are copies
    const changed = assertSharing(conv, out.messages);
    assert.equal(changed, out.result.toolResultsSummarized + out.result.toolResultsRedacted);
    assert.ok(changed > 0);
  }
});

test('unknown fields on messages and blocks survive, in old and recent turns', () => {
  const conv = [
    message('user', 'u', 1, [{ type: 'text', text: 'q', cache_control: { type: 'ephemeral' } }], { metadata: { source: 'cli', tags: ['a', 1, null] } }),
    message('assistant', 'a', 1, [
      { type: 'thinking', thinking: 'hmm', signature: 'sig==' },
      { type: 'tool_use', id: 'x1', name: 'ls', input: { deep: { n: [1, 2, { z: true }] } }, caller: 'me' },
    ], { model: 'claude', usage: { input_tokens: 3 } }),
    message('user', 'a', 1, [toolResult('x1', 'out', { custom: 42, compact_summary: 'short' })], { note: 'n' }),
    message('assistant', 'a', 1, [{ type: 'redacted_thinking', data: 'opaque' }, text('done')]),
    message('user', 'u', 2, [{ type: 'image', source: { type: 'url', url: 'https://example.com/x.png' } }, text('look')], { extra: 'recent' }),
  ];
  for (const toolCompaction of ['summarize', 'redact']) {
    const { messages } = new ThresholdCompactor({ toolCompaction, keepRecentTurns: 1 }).compact(conv);
    assert.deepEqual(messages[0], conv[0]);
    assert.deepEqual(messages[1], conv[1]);
    assert.deepEqual(messages[3], conv[3]);
    assert.deepEqual(messages[4], conv[4]);
    assert.equal(messages[2].note, 'n');
    assert.equal(messages[2].content[0].custom, 42);
    assert.equal(messages[2].content[0].content, toolCompaction === 'redact' ? REDACTED : 'short');
  }
});

test('nothing is filled in: missing id, session_id, created_at and is_error stay missing, given ones kept', () => {
  // compact() reads only what compaction needs; a full reader (ContextManager, LlmCompactor) fills them in.
  const conv = agentConversation({ turns: 2, bare: true });
  const { messages, result } = new ThresholdCompactor({ keepRecentTurns: 0, toolCompaction: 'redact' }).compact(conv);
  assert.equal(result.toolResultsRedacted, 2);
  for (const m of messages) {
    for (const field of ['id', 'session_id', 'created_at']) assert.equal(field in m, false, field);
    for (const b of m.content) if (b.type === 'tool_result') assert.equal('is_error' in b, false);
  }
  const full = agentConversation({ turns: 1 });
  const kept = new ThresholdCompactor().compact(full).messages;
  assert.deepEqual(kept.map((m) => [m.id, m.session_id, m.created_at]), full.map((m) => [m.id, m.session_id, m.created_at]));
});

test('idempotence: compacting the output again changes and counts nothing', () => {
  const cases = [
    [{ toolCompaction: 'redact', keepRecentTurns: 2 }, undefined, false],
    [{ toolCompaction: 'summarize', keepRecentTurns: 2 }, new Map([['toolu_1_1_1', 'S'], ['toolu_2_1_2', 'T']]), false],
    [{ toolCompaction: 'summarize', keepRecentTurns: 1 }, { toolu_1_1_1: 'S' }, true],
    [{}, undefined, true],
  ];
  for (const [opts, summaries, compactSummary] of cases) {
    const conv = agentConversation({ turns: 5, parallel: 2, compactSummary });
    const c = new ThresholdCompactor(opts);
    const first = c.compact(conv, summaries);
    assert.ok(first.result.toolResultsRedacted + first.result.toolResultsSummarized > 0, JSON.stringify(opts));
    const second = c.compact(first.messages, summaries);
    assert.deepEqual(second.result, ZERO, JSON.stringify(opts));
    assert.deepEqual(second.messages, first.messages, JSON.stringify(opts));
  }
});

test('turns are consecutive runs of a turn id (the specification\'s extraction)', () => {
  // the same id reappearing later is a new run: u1 a1 u1 → 3 runs; keep 1 → u1(first) and a1 are old
  const conv = [
    message('user', 'u', 1, [text('q')]),
    message('assistant', 'a', 1, [toolUse('x1')]),
    message('user', 'a', 1, [toolResult('x1', 'one')]),
    message('user', 'u', 2, [text('q2')]),
    message('assistant', 'a', 2, [toolUse('x2')]),
    message('user', 'a', 2, [toolResult('x2', 'two')]),
  ];
  assert.equal(turnsOf(conv).length, 4);
  const out = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 1 }).compact(conv);
  assert.equal(out.result.toolResultsRedacted, 1);
  assert.equal(out.messages[2].content[0].content, REDACTED);
  assert.equal(out.messages[5].content[0].content, 'two');
});
