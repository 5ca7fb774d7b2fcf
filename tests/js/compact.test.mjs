// ThresholdCompactor.compact(array): the decisions of compactInPlace, applied the immutable
// way. A new array; the messages and tool result blocks compaction changes are shallow
// copies, everything else is the caller's own object; the caller's data is never modified.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompactionError, ContextManager, ThresholdCompactor, estimateTokens, fromAnthropic } from 'context-compactor';
import { generateConversation } from '../../bench/generate.mjs';
import { agentConversation, assertSharing, REDACTED } from './helpers.mjs';
import { conversationFiles, loadConversation } from './support/conversations.mjs';

const ZERO = { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 };

const settings = [
  {},
  { toolCompaction: 'redact' },
  { keepRecentTurns: 0 },
  { keepRecentTurns: 0, toolCompaction: 'redact' },
  { keepRecentTurns: 1 },
  { keepRecentTurns: 50 },
];

/**
 * compact() against compactInPlace on a structuredClone, and what compact() promises:
 * input untouched, sharing, idempotence. Returns how many tool results it changed.
 */
function check(conversation, options, summaries, where) {
  const compactor = new ThresholdCompactor(options);
  const snapshot = structuredClone(conversation);
  const summariesBefore = summaries instanceof Map ? new Map(summaries) : structuredClone(summaries);
  const out = compactor.compact(conversation, summaries);
  assert.deepEqual(conversation, snapshot, `${where}: input modified`);
  assert.deepEqual(summaries, summariesBefore, `${where}: summaries modified`);

  const copy = structuredClone(conversation);
  const result = compactor.compactInPlace(copy, summaries);
  assert.deepEqual(out.result, result, `${where}: counts`);
  assert.deepEqual(out.messages, copy, `${where}: messages`);

  const changed = assertSharing(conversation, out.messages);
  assert.equal(changed, result.toolResultsSummarized + result.toolResultsRedacted, `${where}: copies`);

  const again = compactor.compact(out.messages, summaries);
  assert.deepEqual(again.result, ZERO, `${where}: not idempotent`);
  assert.notEqual(again.messages, out.messages);
  again.messages.forEach((m, i) => assert.equal(m, out.messages[i], `${where}: message ${i} copied again`));
  return changed;
}

/** Summaries for every other tool result of `messages` (a plain object). */
function someSummaries(messages) {
  const summaries = {};
  let k = 0;
  for (const m of messages) for (const b of m.content) {
    if (b.type === 'tool_result' && k++ % 2 === 0) summaries[b.tool_use_id] = `summary of ${b.tool_use_id}`;
  }
  return summaries;
}

test('the same result as compactInPlace on a copy, generated conversations, both modes, with summaries', () => {
  const conversations = {
    'bench 40 turns': generateConversation(40),
    'agent, parallel results': agentConversation({ turns: 6, parallel: 3, rounds: 2 }),
    'agent, own compact summaries': agentConversation({ turns: 5, parallel: 2, compactSummary: true }),
    'agent, bare': agentConversation({ turns: 4, bare: true }),
  };
  let changed = 0;
  for (const [name, conversation] of Object.entries(conversations)) {
    const summaries = someSummaries(conversation);
    for (const options of settings) {
      for (const [kind, s] of [['none', undefined], ['object', summaries], ['Map', new Map(Object.entries(summaries))]]) {
        changed += check(conversation, options, s, `${name} ${JSON.stringify(options)} summaries: ${kind}`);
      }
    }
  }
  assert.ok(changed > 1000, `only ${changed} changes`);
});

test('the same result as compactInPlace on a copy, every shared transcript', () => {
  let changed = 0;
  for (const file of conversationFiles().filter((f) => f.endsWith('.anthropic.json'))) {
    const { messages } = fromAnthropic(loadConversation(file));
    const summaries = someSummaries(messages);
    for (const options of settings) {
      changed += check(messages, options, undefined, `${file} ${JSON.stringify(options)}`);
      changed += check(messages, options, summaries, `${file} ${JSON.stringify(options)} with summaries`);
    }
  }
  assert.ok(changed > 20, `only ${changed} changes`);
});

test('a changed message is a shallow copy; its unchanged blocks and every other message are shared', () => {
  const conv = agentConversation({ turns: 4, parallel: 2 }); // turns u1 a1 u2 a2 …; results at 2, 6, 10, 14
  const out = new ThresholdCompactor({ keepRecentTurns: 3 }).compact(conv, { toolu_1_1_2: 'S', toolu_2_1_1: 'T' });
  assert.deepEqual(out.result, { toolResultsSummarized: 2, toolResultsRedacted: 0, turnsCompacted: 0 });
  out.messages.forEach((m, i) => (i === 2 || i === 6 ? assert.notEqual(m, conv[i]) : assert.equal(m, conv[i])));
  assert.equal(out.messages[2].content[0], conv[2].content[0]);
  assert.deepEqual(out.messages[2].content[1], { ...conv[2].content[1], content: 'S' });
  assert.equal(out.messages[6].content[0].content, 'T');
  assert.equal(out.messages[6].content[1], conv[6].content[1]);
  assert.equal(out.messages[2].turn_id, conv[2].turn_id, 'a shallow copy');
  assert.equal(Object.keys(out.messages[2]).join(), Object.keys(conv[2]).join(), 'field order kept');
});

test('nothing old, or nothing to change: a new array of the caller\'s own messages', () => {
  const conv = agentConversation({ turns: 2 });
  for (const [options, summaries] of [[{ keepRecentTurns: 4 }, undefined], [{}, undefined], [{ keepRecentTurns: 0 }, {}]]) {
    const out = new ThresholdCompactor(options).compact(conv, summaries);
    assert.deepEqual(out.result, ZERO);
    assert.notEqual(out.messages, conv);
    assert.equal(out.messages.length, conv.length);
    out.messages.forEach((m, i) => assert.equal(m, conv[i]));
  }
  const empty = [];
  const out = new ThresholdCompactor({ keepRecentTurns: 0 }).compact(empty);
  assert.deepEqual(out, { messages: [], result: ZERO });
  assert.notEqual(out.messages, empty);
});

test('one tool result in the old turns, or none: it alone changes, in both calls', () => {
  const conv = agentConversation({ turns: 3 }); // turns u1 a1 u2 a2 u3 a3; one result in a1 (at 2)
  const one = { toolResultsSummarized: 0, toolResultsRedacted: 1, turnsCompacted: 0 };
  for (const [keepRecentTurns, result, changed] of [[4, one, [2]], [5, ZERO, []], [6, ZERO, []]]) {
    const compactor = new ThresholdCompactor({ keepRecentTurns, toolCompaction: 'redact' });
    const out = compactor.compact(conv);
    assert.deepEqual(out.result, result);
    assert.deepEqual(Object.keys(out.result), ['toolResultsRedacted', 'toolResultsSummarized', 'turnsCompacted']);
    out.messages.forEach((m, i) => (changed.includes(i) ? assert.notEqual(m, conv[i]) : assert.equal(m, conv[i])));
    changed.forEach((i) => assert.equal(out.messages[i].content[0].content, REDACTED));
    const copy = structuredClone(conv);
    assert.deepEqual(compactor.compactInPlace(copy), result);
    assert.deepEqual(copy, out.messages);
  }
});

test('a getter that lengthens the array, or makes wasm grow its memory, while it is read: the result of the array as it ends', () => {
  const compactor = new ThresholdCompactor({ toolCompaction: 'redact' });
  const two = { toolResultsSummarized: 0, toolResultsRedacted: 2, turnsCompacted: 0 };
  // 6 turns, one old tool result; read after the check that it is an array, the summaries add 2 turns and a second.
  const conv = agentConversation({ turns: 3 });
  const more = agentConversation({ turns: 1, startTurn: 4 });
  const out = compactor.compact(conv, { get toolu_1_1_1() { conv.push(...more); return 'S'; } });
  assert.equal(conv.length, 16);
  assert.deepEqual(out.result, two);
  assert.deepEqual(out.messages, compactor.compact(structuredClone(conv)).messages);
  // The turn flags are written into wasm's memory; a call into wasm that grows it cuts them off.
  const plain = agentConversation({ turns: 4 });
  const growing = agentConversation({ turns: 4 });
  const turnId = growing[0].turn_id;
  Object.defineProperty(growing[0], 'turn_id', {
    enumerable: true,
    get() { estimateTokens([{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(16 << 20) }] }]); return turnId; },
  });
  const inPlace = structuredClone(plain);
  assert.deepEqual(compactor.compactInPlace(growing), compactor.compactInPlace(inPlace));
  assert.deepEqual(compactor.compactInPlace(inPlace), ZERO);
  assert.deepEqual(growing.map((m) => m.content), inPlace.map((m) => m.content));
});

test('a getter that makes wasm grow its memory while the edits are found: every edit is made', () => {
  const compactor = new ThresholdCompactor({});
  const plain = agentConversation({ turns: 6, compactSummary: true });
  const growing = structuredClone(plain);
  // Each read keeps 32 MiB more in wasm memory (a manager holding a long text), so that
  // every read grows it, the reads after the pass (the edits found, made and counted) too.
  const held = [];
  const block = growing[2].content[0];
  const summary = block.compact_summary;
  Object.defineProperty(block, 'compact_summary', {
    enumerable: true,
    get() {
      const manager = new ContextManager({ contextLimit: 1e9 });
      manager.push({ role: 'user', content: [{ type: 'text', text: 'x'.repeat(32 << 20) }] });
      held.push(manager);
      return summary;
    },
  });
  try {
    const expected = compactor.compact(plain);
    assert.ok(expected.result.toolResultsSummarized >= 3);
    const out = compactor.compact(growing);
    assert.ok(held.length >= 2, 'the summary was read by the pass and by the edits');
    assert.deepEqual(out.result, expected.result);
    assert.deepEqual(out.messages.map((m) => m.content.map((b) => b.content)), expected.messages.map((m) => m.content.map((b) => b.content)));
  } finally {
    held.forEach((manager) => manager.free());
  }
});

test('compact and compactInPlace as the first calls of a process: wasm memory reaches JS on first use', () => {
  // Each in a fresh process, before anything else of the package ran: the marks and
  // codes cross at addresses in wasm memory, which JS must have been given by then.
  const dir = fileURLToPath(new URL('.', import.meta.url));
  const conversation = agentConversation({ turns: 5, compactSummary: true });
  const expected = { compact: new ThresholdCompactor({}).compact(structuredClone(conversation)).result,
    compactInPlace: new ThresholdCompactor({}).compactInPlace(structuredClone(conversation)) };
  assert.ok(expected.compact.toolResultsSummarized > 0);
  for (const call of ['compact', 'compactInPlace']) {
    const script = `import { ThresholdCompactor } from 'context-compactor';
      const out = new ThresholdCompactor().${call}(${JSON.stringify(conversation)});
      console.log(JSON.stringify(out.result ?? out));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), expected[call], call);
  }
});

test('fields compaction never reads are neither checked nor filled in: the caller\'s objects come back', () => {
  // A full reader (pushMany, LlmCompactor) rejects each of these (errors.test.mjs).
  const conv = agentConversation({ turns: 2, bare: true });
  conv[0].id = 7;
  conv[0].created_at = 'yesterday';
  conv[1].content[1].name = 5;
  conv[2].content[0].is_error = 'yes';
  conv[3].summary_of = { messages: -1, turns: 1 };
  const snapshot = structuredClone(conv);
  const out = new ThresholdCompactor({ keepRecentTurns: 0, toolCompaction: 'redact' }).compact(conv);
  assert.deepEqual(conv, snapshot);
  assert.equal(out.result.toolResultsRedacted, 2);
  assert.equal(out.messages[0], conv[0]);
  assert.equal(out.messages[1], conv[1]);
  assert.equal(out.messages[3], conv[3]);
  assert.deepEqual(out.messages[2], { ...conv[2], content: [{ ...conv[2].content[0], content: REDACTED }] });
});

test('roles and blocks of the recent turns are not checked: invalid ones there do not fail either call', () => {
  const conv = agentConversation({ turns: 3 });
  conv.at(-1).role = 'system';
  conv.at(-2).content = 'not blocks';
  conv.at(-3).content = [null]; // an assistant message: its blocks are never read
  assert.ok(check(conv, { keepRecentTurns: 1, toolCompaction: 'redact' }, undefined, 'invalid recent turn') > 0);
  assert.throws(() => new ThresholdCompactor({ keepRecentTurns: 0 }).compact(conv), { code: 'INVALID_INPUT', path: 'messages[10].content' });
});

test('a getter that throws in a recent turn fails neither call; in an old turn, both, at its field', () => {
  const throwing = (conv, i) => Object.defineProperty(conv[i], 'content', { enumerable: true, get() { throw new Error('getter'); } });
  const recent = agentConversation({ turns: 3 });
  const expected = new ThresholdCompactor({ keepRecentTurns: 1, toolCompaction: 'redact' }).compact(structuredClone(recent));
  throwing(recent, recent.length - 2); // the last turn's tool result message
  const compactor = new ThresholdCompactor({ keepRecentTurns: 1, toolCompaction: 'redact' });
  const out = compactor.compact(recent);
  assert.deepEqual(out.result, expected.result);
  assert.ok(out.result.toolResultsRedacted > 0);
  assert.deepEqual(compactor.compactInPlace(recent), expected.result);
  // Old: the getter's message is named, and nothing changed.
  const old = agentConversation({ turns: 3 });
  throwing(old, 6);
  const before = old.map((m) => (m === old[6] ? null : structuredClone(m)));
  for (const call of ['compact', 'compactInPlace']) {
    assert.throws(() => compactor[call](old), (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT'
      && e.path === 'messages[6].content' && e.cause?.message === 'getter');
    old.forEach((m, i) => i !== 6 && assert.deepEqual(m, before[i]));
  }
  // An invalid old message before it is named first.
  old[2].role = 'system';
  assert.throws(() => compactor.compact(old), { code: 'INVALID_INPUT', path: 'messages[2].role' });
});

test('a tool_use_id with a lone surrogate is in no summaries; its own compact_summary still applies', () => {
  const conv = agentConversation({ turns: 3, compactSummary: true }); // results at 2, 6, 10
  conv[2].content[0].tool_use_id = 'x\ud800';
  conv[6].content[0].tool_use_id = 'y\udc00';
  delete conv[6].content[0].compact_summary;
  const summaries = { 'x\ufffd': 'not this', 'y\ufffd': 'nor this', toolu_3_1_1: 'M' };
  assert.equal(check(conv, { keepRecentTurns: 0 }, summaries, 'lone surrogates'), 2);
  const { messages } = new ThresholdCompactor({ keepRecentTurns: 0 }).compact(conv, summaries);
  assert.deepEqual(messages.map((m) => m.content[0].content).filter((_, i) => i % 4 === 2),
    ['short toolu_1_1_1', conv[6].content[0].content, 'M']);
});

test('an array that only says it is long: the error of its first message, no memory for the rest', () => {
  const compactor = new ThresholdCompactor({});
  for (const length of [1e9, 2 ** 32 - 1]) {
    const sparse = [];
    sparse.length = length;
    for (const call of ['compact', 'compactInPlace']) {
      assert.throws(() => compactor[call](sparse), { code: 'INVALID_INPUT', path: 'messages[0]' }, `${call}, length ${length}`);
    }
    // A valid first message: the hole after it is named.
    sparse[0] = { role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'text', text: 'hi' }] };
    assert.throws(() => compactor.compact(sparse), { code: 'INVALID_INPUT', path: 'messages[1]' });
  }
  const conv = agentConversation({ turns: 5 });
  assert.deepEqual(compactor.compact(conv).messages, new ThresholdCompactor({}).compact(conv).messages, 'still works');
});
