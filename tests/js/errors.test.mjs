// Honest failures (issue item 4) and bad input (issue item 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ThresholdCompactor, LlmCompactor, ContextManager, CompactionError, estimateTokens, validateToolPairs, offlineSummarizer,
  fromAnthropic, toAnthropic, fromOpenAI, toOpenAI, fromOpenAIResponses, fromVercelAI, toVercelAI,
} from 'context-compactor';
import { agentConversation, manualSummarizer, tick, message, text } from './helpers.mjs';

const isCode = (code) => (e) => {
  assert.ok(e instanceof CompactionError, `not a CompactionError: ${e && e.stack}`);
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'CompactionError');
  assert.equal(e.code, code, e.message);
  return true;
};

// ---------------------------------------------------------------- item 4

test('item 4: empty or whitespace-only summary → EMPTY_SUMMARY', async () => {
  for (const reply of ['', '   ', '\n\t \r\n', '\u00a0\u2003']) {
    const conv = agentConversation({ turns: 3 });
    const snap = structuredClone(conv);
    await assert.rejects(new LlmCompactor({ summarize: async () => reply, keepRecentTurns: 1 }).compact(conv), isCode('EMPTY_SUMMARY'), JSON.stringify(reply));
    assert.deepEqual(conv, snap);
  }
});

test('item 4: summarizer failures → LLM_ERROR with the original as cause', async () => {
  const err = new Error('boom');
  const typeErr = new TypeError('fetch failed');
  const obj = { status: 500, body: 'oops' };
  const cases = [
    ['throws synchronously', () => { throw err; }, err],
    ['throws a TypeError', () => { throw typeErr; }, typeErr],
    ['rejects with an Error', () => Promise.reject(err), err],
    ['rejects with a string', () => Promise.reject('just a string'), 'just a string'],
    ['rejects with an object', () => Promise.reject(obj), obj],
    ['throws a number', () => { throw 7; }, 7],
  ];
  for (const [name, summarize, cause] of cases) {
    const e = await new LlmCompactor({ summarize, keepRecentTurns: 1 }).compact(agentConversation({ turns: 3 })).then(
      () => assert.fail(`${name}: resolved`), (x) => x);
    isCode('LLM_ERROR')(e);
    assert.equal(e.cause, cause, name);
  }
});

test('item 4: a summarizer resolving to a non-string → LLM_ERROR', async () => {
  for (const value of [42, null, undefined, {}, ['a'], true]) {
    const e = await new LlmCompactor({ summarize: async () => value, keepRecentTurns: 1 }).compact(agentConversation({ turns: 3 })).then(
      () => assert.fail(`${String(value)}: resolved`), (x) => x);
    isCode('LLM_ERROR')(e);
    assert.deepEqual(e.cause, value, String(value));
  }
  // synchronously returned non-strings too
  await assert.rejects(new LlmCompactor({ summarize: () => 5, keepRecentTurns: 1 }).compact(agentConversation({ turns: 3 })), isCode('LLM_ERROR'));
});

test('item 4: timeout → TIMEOUT, and the signal handed to summarize is aborted', async () => {
  const s = manualSummarizer();
  const conv = agentConversation({ turns: 3 });
  const snap = structuredClone(conv);
  const started = Date.now();
  await assert.rejects(new LlmCompactor({ summarize: s.summarize, summaryTimeoutMs: 40, keepRecentTurns: 1 }).compact(conv), isCode('TIMEOUT'));
  assert.ok(Date.now() - started >= 30, 'timed out too early');
  assert.equal(s.calls.length, 1);
  const { signal } = s.calls[0].request;
  assert.equal(signal.aborted, true, 'signal not aborted');
  s.calls[0].resolve('too late');
  await tick(5);
  assert.deepEqual(conv, snap);
});

test('item 4: a result arriving after the timeout changes nothing in the manager', async () => {
  const s = manualSummarizer();
  const events = [];
  const m = new ContextManager({
    contextLimit: 1000,
    compactor: { type: 'llm', summarize: s.summarize, summaryTimeoutMs: 30, keepRecentTurns: 1 },
    onEvent: (e) => events.push(e),
  });
  const conv = agentConversation({ turns: 4 });
  m.pushMany(conv);
  m.setContextUsed(900);
  const outcome = await m.maybeCompact();
  assert.equal(outcome.error.code, 'TIMEOUT');
  assert.equal(s.calls[0].request.signal.aborted, true);
  assert.equal(m.isCompacting, false);
  const before = m.messages();
  const stateBefore = m.toJSON();
  const eventsBefore = events.length;
  s.calls[0].resolve('a late summary');
  await tick(20);
  assert.deepEqual(m.messages(), before);
  assert.deepEqual(m.messages(), conv);
  assert.deepEqual(m.toJSON(), stateBefore);
  assert.equal(events.length, eventsBefore, 'late result produced an event');
});

test('item 4: the abort signal is not aborted on success', async () => {
  const s = manualSummarizer();
  const p = new LlmCompactor({ summarize: s.summarize, summaryTimeoutMs: 1000, keepRecentTurns: 1 }).compact(agentConversation({ turns: 3 }));
  await tick();
  s.calls[0].resolve('fine');
  await p;
  await tick(5);
  assert.equal(s.calls[0].request.signal.aborted, false);
});

test('a summary larger than what it replaces → SUMMARY_TOO_LARGE, input untouched', async () => {
  const conv = [
    message('user', 'u', 1, [text('hi')]),
    message('assistant', 'a', 1, [text('hello')]),
    message('user', 'u', 2, [text('next')]),
  ];
  await assert.rejects(new LlmCompactor({ summarize: () => 'word '.repeat(2000), keepRecentTurns: 1 }).compact(conv), isCode('SUMMARY_TOO_LARGE'));
});

test('offlineSummarizer produces a non-empty summary and a working compaction', async () => {
  const conv = agentConversation({ turns: 4 });
  const out = await new LlmCompactor({ summarize: offlineSummarizer(), keepRecentTurns: 2 }).compact(conv);
  assert.ok(out.messages[0].content[0].text.length > '[Previous conversation summary]: '.length);
  assert.ok(estimateTokens(out.messages) < estimateTokens(conv));
});

// ---------------------------------------------------------------- item 8

const okConv = () => [
  { role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'text', text: 'hi' }] },
  { role: 'assistant', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
  { role: 'user', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] },
  { role: 'assistant', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'text', text: 'done' }] },
];
const withConv = (edit) => { const c = okConv(); edit(c); return c; };
const T = (opts) => new ThresholdCompactor(opts);
// ThresholdCompactor.compact reads the turn ids of every message but roles and blocks only
// of the old turns': `all` makes every turn old. What compaction never reads (ids, dates,
// text, tool calls, is_error, summary_of) is checked by the full reader, e.g. pushMany.
const all = (d) => T({ keepRecentTurns: 0 }).compact(d);
const pushMany = (d) => new ContextManager({ contextLimit: 10 }).pushMany(d);
const summarize = () => 'S';

/** [name, data (snapshotted), call(data), exact path, async?] */
const BAD = [
  ['non-array messages (object)', { 0: 'x' }, (d) => T().compact(d), 'messages'],
  ['non-array messages (string)', 'hello', (d) => T().compact(d), 'messages'],
  ['missing messages', undefined, () => T().compact(), 'messages'],
  ['null message', withConv((c) => { c[2] = null; }), (d) => T().compact(d), 'messages[2]'],
  ['message is a number', withConv((c) => { c[0] = 5; }), (d) => T().compact(d), 'messages[0]'],
  ['missing role', withConv((c) => { delete c[1].role; }), all, 'messages[1].role'],
  ['unknown role', withConv((c) => { c[3].role = 'system'; }), all, 'messages[3].role'],
  ['turn_id a string', withConv((c) => { c[1].turn_id = 'a1'; }), (d) => T().compact(d), 'messages[1].turn_id'],
  ['turn_id.number a string', withConv((c) => { c[2].turn_id.number = '1'; }), (d) => T().compact(d), 'messages[2].turn_id.number'],
  ['turn_id.number fractional', withConv((c) => { c[0].turn_id.number = 1.5; }), (d) => T().compact(d), 'messages[0].turn_id.number'],
  ['missing turn_id', withConv((c) => { delete c[3].turn_id; }), (d) => T().compact(d), 'messages[3].turn_id'],
  ['content not an array', withConv((c) => { c[0].content = 'hi'; }), all, 'messages[0].content'],
  ['block without type', withConv((c) => { c[0].content = [{ text: 'x' }]; }), all, 'messages[0].content[0].type'],
  ['tool_result without tool_use_id', withConv((c) => { delete c[2].content[0].tool_use_id; }), all, 'messages[2].content[0].tool_use_id'],
  ['pushMany: tool_use without name', withConv((c) => { delete c[1].content[0].name; }), pushMany, 'messages[1].content[0].name'],
  ['pushMany: non-string text', withConv((c) => { c[3].content[0].text = 42; }), pushMany, 'messages[3].content[0].text'],
  ['pushMany: id not a string', withConv((c) => { c[0].id = 7; }), pushMany, 'messages[0].id'],
  ['pushMany: session_id not an integer', withConv((c) => { c[0].session_id = 'x'; }), pushMany, 'messages[0].session_id'],
  ['pushMany: created_at not RFC 3339', withConv((c) => { c[1].created_at = 'yesterday'; }), pushMany, 'messages[1].created_at'],
  ['bigint turn number', withConv((c) => { c[1].turn_id.number = 1n; }), (d) => T().compact(d), null],
  ['summary not a string', okConv(), (d) => T().compact(d, { t1: 5 }), 'compactSummaries.t1'],
  ['Map summary not a string', okConv(), (d) => T().compact(d, new Map([['t1', {}]])), 'compactSummaries.t1'],
  ['summaries a string', okConv(), (d) => T().compact(d, 'x'), 'compactSummaries'],
  ['contextUsed NaN', null, () => T().shouldCompact(NaN, 100), 'contextUsed'],
  ['contextUsed negative', null, () => T().shouldCompact(-1, 100), 'contextUsed'],
  ['contextUsed Infinity', null, () => T().shouldCompact(Infinity, 100), 'contextUsed'],
  ['contextLimit NaN', null, () => T().shouldCompact(1, NaN), 'contextLimit'],
  ['contextLimit negative', null, () => T().shouldCompact(1, -100), 'contextLimit'],
  ['contextLimit Infinity', null, () => T().shouldCompact(1, Infinity), 'contextLimit'],
  ['contextLimit 0', null, () => T().shouldCompact(1, 0), 'contextLimit'],
  ['LLM shouldCompact contextUsed NaN', null, () => new LlmCompactor({ summarize }).shouldCompact(NaN, 100), 'contextUsed'],
  ['threshold 0', { threshold: 0 }, (d) => T(d), 'options.threshold'],
  ['threshold 1', { threshold: 1 }, (d) => T(d), 'options.threshold'],
  ['threshold 1.5', { threshold: 1.5 }, (d) => T(d), 'options.threshold'],
  ['threshold NaN', { threshold: NaN }, (d) => T(d), 'options.threshold'],
  ['threshold "0.5"', { threshold: '0.5' }, (d) => T(d), 'options.threshold'],
  ['threshold negative', { threshold: -0.5 }, (d) => T(d), 'options.threshold'],
  ['keepRecentTurns negative', { keepRecentTurns: -1 }, (d) => T(d), 'options.keepRecentTurns'],
  ['keepRecentTurns fractional', { keepRecentTurns: 1.5 }, (d) => T(d), 'options.keepRecentTurns'],
  ['keepRecentTurns string', { keepRecentTurns: '3' }, (d) => T(d), 'options.keepRecentTurns'],
  ['bad toolCompaction', { toolCompaction: 'delete' }, (d) => T(d), 'options.toolCompaction'],
  ['unknown threshold option', { treshold: 0.5 }, (d) => T(d), 'options.treshold'],
  ['LLM summarize missing', {}, (d) => new LlmCompactor(d), 'options.summarize'],
  ['LLM summarize not a function', { summarize: 'call me' }, (d) => new LlmCompactor(d), 'options.summarize'],
  ['LLM unknown option', { summarize, foo: 1 }, (d) => new LlmCompactor(d), 'options.foo'],
  ['LLM threshold 1', { summarize, threshold: 1 }, (d) => new LlmCompactor(d), 'options.threshold'],
  ['LLM summaryTimeoutMs 2^31', { summarize, summaryTimeoutMs: 2 ** 31 }, (d) => new LlmCompactor(d), 'options.summaryTimeoutMs'],
  ['LLM summaryTimeoutMs 0', { summarize, summaryTimeoutMs: 0 }, (d) => new LlmCompactor(d), 'options.summaryTimeoutMs'],
  ['LLM maxSummaryTokens 0', { summarize, maxSummaryTokens: 0 }, (d) => new LlmCompactor(d), 'options.maxSummaryTokens'],
  ['LLM summarySystemPrompt number', { summarize, summarySystemPrompt: 5 }, (d) => new LlmCompactor(d), 'options.summarySystemPrompt'],
  ['LLM compact: null message (rejects)', withConv((c) => { c[1] = null; }), (d) => new LlmCompactor({ summarize }).compact(d), 'messages[1]', true],
  ['LLM compact: non-array (rejects)', { messages: [] }, (d) => new LlmCompactor({ summarize }).compact(d), 'messages', true],
  ['manager: contextLimit missing', {}, (d) => new ContextManager(d), 'options.contextLimit'],
  ['manager: contextLimit NaN', { contextLimit: NaN }, (d) => new ContextManager(d), 'options.contextLimit'],
  ['manager: contextLimit negative', { contextLimit: -5 }, (d) => new ContextManager(d), 'options.contextLimit'],
  ['manager: contextLimit Infinity', { contextLimit: Infinity }, (d) => new ContextManager(d), 'options.contextLimit'],
  ['manager: compactor type', { contextLimit: 10, compactor: { type: 'magic' } }, (d) => new ContextManager(d), 'options.compactor.type'],
  ['manager: llm without summarize', { contextLimit: 10, compactor: { type: 'llm' } }, (d) => new ContextManager(d), 'options.compactor.summarize'],
  ['manager: threshold with LLM option', { contextLimit: 10, compactor: { type: 'threshold', summarize } }, (d) => new ContextManager(d), 'options.compactor.summarize'],
  ['manager: bad fallback', { contextLimit: 10, compactor: { type: 'llm', summarize, fallback: { toolCompaction: 'x' } } }, (d) => new ContextManager(d), 'options.compactor.fallback.toolCompaction'],
  ['manager: onEvent not a function', { contextLimit: 10, onEvent: 5 }, (d) => new ContextManager(d), 'options.onEvent'],
  ['manager: unknown option', { contextLimit: 10, limit: 5 }, (d) => new ContextManager(d), 'options.limit'],
  ['push: turn_id without number', { role: 'user', turn_id: { owner: 'u' }, content: [] }, (d) => new ContextManager({ contextLimit: 10 }).push(d), 'message.turn_id.number'],
  ['pushMany: bad block', withConv((c) => { c[2].content[0].content = 5; }), (d) => new ContextManager({ contextLimit: 10 }).pushMany(d), 'messages[2].content[0].content'],
  ['setContextUsed NaN', null, () => new ContextManager({ contextLimit: 10 }).setContextUsed(NaN), 'inputTokens'],
  ['setContextUsed negative', null, () => new ContextManager({ contextLimit: 10 }).setContextUsed(-1), 'inputTokens'],
  ['storeCompactSummaries non-string', { t1: 1 }, (d) => new ContextManager({ contextLimit: 10 }).storeCompactSummaries(d), 'summaries.t1'],
  ['fromJSON: wrong version', { version: 2, messages: [], compactSummaries: {}, contextUsed: null }, (d) => ContextManager.fromJSON(d, { contextLimit: 10 }), 'state.version'],
  ['fromJSON: bad message', { version: 1, messages: [null], compactSummaries: {}, contextUsed: null }, (d) => ContextManager.fromJSON(d, { contextLimit: 10 }), 'state.messages[0]'],
  ['estimateTokens non-array', 5, (d) => estimateTokens(d), 'messages'],
  ['validateToolPairs missing role', [{}], (d) => validateToolPairs(d), 'messages[0].role'],
  ['offlineSummarizer negative delay', { delayMs: -1 }, (d) => offlineSummarizer(d), 'options.delayMs'],
  ['offlineSummarizer delay beyond setTimeout', { delayMs: 2 ** 31 }, (d) => offlineSummarizer(d), 'options.delayMs'],
];

// Added for issue 5: huge strings, values JSON cannot carry, hostile objects, the
// format adapters and restore. Every error message stays short (no 50 MB echo).
const MB50 = 'x'.repeat(50 * 1024 * 1024);
const deep = (n) => { let d = {}; for (let i = 0; i < n; i++) d = { d }; return d; };
const sparse = () => { const a = okConv(); delete a[1]; return a; };
BAD.push(
  ['50 MB role string', withConv((c) => { c[0].role = MB50; }), all, 'messages[0].role'],
  ['pushMany: 50 MB created_at string', withConv((c) => { c[1].created_at = MB50; }), pushMany, 'messages[1].created_at'],
  ['50 MB string as messages', MB50, (d) => T().compact(d), 'messages'],
  ['50 MB role string (LLM, rejects)', withConv((c) => { c[3].role = MB50; }), (d) => new LlmCompactor({ summarize }).compact(d), 'messages[3].role', true],
  ['50 MB role string (fromOpenAI)', [{ role: MB50, content: 'x' }], (d) => fromOpenAI(d), 'messages[0].role'],
  ['50 MB string pushed', MB50, (d) => new ContextManager({ contextLimit: 10 }).push(d), 'message'],
  ['a Symbol as a message', [Symbol('m')], (d) => T().compact(d), 'messages[0]'],
  ['a function as a message', [() => 1], (d) => T().compact(d), 'messages[0]'],
  ['a getter that throws', [{ turn_id: { owner: 'u', number: 1 }, get role() { throw new Error('getter'); } }], all, 'messages[0].role'],
  ['pushMany: a getter that throws', [{ get role() { throw new Error('getter'); } }], pushMany, 'messages[0].role'],
  ['a Proxy whose traps throw', new Proxy([], { get() { throw new Error('trap'); } }), (d) => T().compact(d), 'messages'],
  ['a hole in the array', sparse(), (d) => T().compact(d), 'messages[1]'],
  ['pushMany: a toJSON that returns a number', withConv((c) => { c[2].toJSON = () => 5; }), pushMany, 'messages[2]'],
  ['turn number 2^64', withConv((c) => { c[0].turn_id.number = 2 ** 64; }), (d) => T().compact(d), 'messages[0].turn_id.number'],
  ['pushMany: tool input nested 1,000 deep', withConv((c) => { c[1].content[0].input = deep(1000); }), pushMany, `messages[1].content[0].input${'.d'.repeat(123)}`],
  ['turn_id.owner a number', withConv((c) => { c[1].turn_id.owner = 1; }), (d) => T().compact(d), 'messages[1].turn_id.owner'],
  ['pushMany: summary_of negative', withConv((c) => { c[0].summary_of = { messages: -1, turns: 1 }; }), pushMany, 'messages[0].summary_of.messages'],
  ['tool_result content a number', withConv((c) => { c[2].content[0].content = 7; }), all, 'messages[2].content[0].content'],
  ['pushMany: tool_result is_error a string', withConv((c) => { c[2].content[0].is_error = 'yes'; }), pushMany, 'messages[2].content[0].is_error'],
  ['fromAnthropic: no messages', { system: 'x' }, (d) => fromAnthropic(d), 'messages'],
  ['fromAnthropic: content a number', { messages: [{ role: 'user', content: 5 }] }, (d) => fromAnthropic(d), 'messages[0].content'],
  ['fromOpenAI: an object', { role: 'user' }, (d) => fromOpenAI(d), 'messages'],
  ['fromOpenAI: unknown role', [{ role: 'wizard', content: 'x' }], (d) => fromOpenAI(d), 'messages[0].role'],
  ['fromOpenAIResponses: type a number', [{ type: 5 }], (d) => fromOpenAIResponses(d), 'input[0].type'],
  ['fromOpenAIResponses: part type not a string', [{ role: 'assistant', content: [{ type: true }] }], (d) => fromOpenAIResponses(d), 'input[0].content[0].type'],
  ['fromVercelAI: tool content a string', [{ role: 'tool', content: 'x' }], (d) => fromVercelAI(d), 'messages[0].content'],
  ['toAnthropic: message without role', [{ turn_id: { owner: 'u', number: 1 }, content: [] }], (d) => toAnthropic(d), 'messages[0].role'],
  ['toOpenAI: system a string', okConv(), (d) => toOpenAI(d, 'be nice'), 'system'],
  ['toVercelAI: system entry without position', okConv(), (d) => toVercelAI(d, [{ message: {} }]), 'system[0]'],
  ['fromJSON: null state', null, (d) => ContextManager.fromJSON(d, { contextLimit: 10 }), 'state'],
  ['fromJSON: contextUsed not a number', { version: 1, messages: [], compactSummaries: {}, contextUsed: { inputTokens: 'x', estimatedThen: 1 } }, (d) => ContextManager.fromJSON(d, { contextLimit: 10 }), 'state.contextUsed.inputTokens'],
  ['fromJSON: summaries not strings', { version: 1, messages: [], compactSummaries: { t: 1 }, contextUsed: null }, (d) => ContextManager.fromJSON(d, { contextLimit: 10 }), 'state.compactSummaries.t'],
  ['storeCompactSummaries: Map with a non-string key', new Map([[1, 'x']]), (d) => new ContextManager({ contextLimit: 10 }).storeCompactSummaries(d), 'summaries'],
);

test(`item 8: ${BAD.length} bad inputs → CompactionError INVALID_INPUT with the exact path, data untouched`, async () => {
  assert.ok(BAD.length >= 15);
  const failures = [];
  for (const [name, data, call, path, isAsync] of BAD) {
    let snap;
    try {
      snap = data === undefined || data === null ? data : structuredCloneSafe(data);
    } catch {
      snap = null; // a hostile object (throwing getter, Proxy): nothing to compare
    }
    let error;
    let threwSync = false;
    try {
      const r = call(data);
      if (r && typeof r.then === 'function') await r;
    } catch (e) {
      error = e;
    }
    if (!error) {
      try { call(data); } catch { threwSync = true; }
    }
    try {
      assert.ok(error, 'did not fail');
      assert.ok(error instanceof CompactionError, `not a CompactionError: ${error}`);
      assert.ok(error instanceof Error);
      assert.equal(error.code, 'INVALID_INPUT');
      if (path !== null) assert.equal(error.path, path);
      else assert.equal(typeof error.path, 'string');
      assert.ok(error.message.length > 0);
      assert.ok(error.message.length < 1000, `error message of ${error.message.length} characters`);
      if (snap !== undefined && snap !== null) assert.deepEqual(data, snap, 'caller data modified');
      if (isAsync) {
        let sync = false;
        let p;
        try { p = call(data); } catch { sync = true; }
        assert.equal(sync, false, 'threw synchronously instead of rejecting');
        await assert.rejects(p);
      }
    } catch (e) {
      failures.push(`${name}: ${e.message}${threwSync ? ' (threw)' : ''}`);
    }
  }
  assert.deepEqual(failures, []);
});

function structuredCloneSafe(d) {
  // a deep copy that keeps functions (summarize, onEvent) by reference
  if (typeof d !== 'object' || d === null) return d;
  if (Array.isArray(d)) return d.map(structuredCloneSafe);
  if (d instanceof Map) return new Map([...d].map(([k, v]) => [k, structuredCloneSafe(v)]));
  const o = {};
  for (const [k, v] of Object.entries(d)) o[k] = structuredCloneSafe(v);
  return o;
}

test('item 8: cyclic messages and cyclic options are INVALID_INPUT where they are read, not a crash', async () => {
  const conv = okConv();
  conv[0].self = conv[0];
  const before = { keys: Object.keys(conv[0]), content: conv[0].content };
  await assert.rejects(new LlmCompactor({ summarize }).compact(conv), (e) => isCode('INVALID_INPUT')(e) && e.path === 'messages[0].self');
  assert.throws(() => new ContextManager({ contextLimit: 10 }).pushMany(conv), (e) => isCode('INVALID_INPUT')(e) && e.path === 'messages[0].self'
    && e.message === 'messages[0].self: is a cyclic reference (to an object that contains it)');
  // ThresholdCompactor.compact never reads `self`: the message is handed back as it is.
  const out = all(conv);
  assert.equal(out.messages[0], conv[0]);
  assert.equal(out.result.toolResultsSummarized + out.result.toolResultsRedacted, 0);
  assert.deepEqual(Object.keys(conv[0]), before.keys);
  assert.equal(conv[0].self, conv[0]);
  assert.equal(conv[0].content, before.content);
  const input = { cmd: 'x' };
  input.loop = input;
  const c2 = okConv();
  c2[1].content[0].input = input;
  assert.throws(() => new ContextManager({ contextLimit: 10 }).pushMany(c2), (e) => isCode('INVALID_INPUT')(e) && e.path === 'messages[1].content[0].input.loop');
  assert.equal(T({ keepRecentTurns: 0, toolCompaction: 'redact' }).compact(c2).messages[1], c2[1]);
});

test('item 8: a failed call does not poison the instance or the module', async () => {
  const c = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 0 });
  assert.throws(() => c.compact([null]), isCode('INVALID_INPUT'));
  assert.equal(c.compact(okConv()).result.toolResultsRedacted, 1);
  const m = new ContextManager({ contextLimit: 10 });
  assert.throws(() => m.push({ role: 'x' }), isCode('INVALID_INPUT'));
  m.pushMany(okConv());
  assert.equal(m.messages().length, 4);
});

test('item 8: garbage inputs never crash the module (deterministic fuzz)', async () => {
  let seed = 12345;
  const rnd = (n) => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; };
  const atoms = [null, undefined, 0, -0, -1, 1.5, NaN, Infinity, 2 ** 53, '', 'x', '\ud800', '😀', true, [], {}, 'user', 'assistant', 'tool_result', 'tool_use', 'text'];
  const gen = (depth) => {
    const r = rnd(10);
    if (depth > 3 || r < 4) return atoms[rnd(atoms.length)];
    if (r < 6) return Array.from({ length: rnd(4) }, () => gen(depth + 1));
    const keys = ['role', 'turn_id', 'content', 'type', 'text', 'id', 'tool_use_id', 'name', 'input', 'owner', 'number', 'is_error', 'created_at', 'session_id'];
    const o = {};
    for (let i = rnd(6); i > 0; i--) o[keys[rnd(keys.length)]] = gen(depth + 1);
    return o;
  };
  const mutate = (conv) => {
    const c = structuredClone(conv);
    const m = c[rnd(c.length)];
    const where = rnd(4);
    if (where === 0) m[['role', 'turn_id', 'content', 'id'][rnd(4)]] = gen(1);
    else if (where === 1) m.turn_id[['owner', 'number'][rnd(2)]] = gen(2);
    else if (where === 2) m.content[0][['type', 'text', 'id', 'tool_use_id', 'content', 'name'][rnd(6)]] = gen(2);
    else m.content.push(gen(2));
    return c;
  };
  let valid = 0;
  for (let i = 0; i < 400; i++) {
    const input = i % 4 === 0 ? gen(0) : mutate(okConv());
    for (const call of [
      () => T({ toolCompaction: 'redact', keepRecentTurns: rnd(3) }).compact(input),
      () => estimateTokens(input),
      () => validateToolPairs(input),
      () => new ContextManager({ contextLimit: 100 }).pushMany(input),
    ]) {
      try { call(); valid++; } catch (e) {
        if (!(e instanceof CompactionError) || e.code !== 'INVALID_INPUT') {
          assert.fail(`input ${JSON.stringify(input)} → ${e && e.stack}`);
        }
      }
    }
    if (i % 50 === 0) {
      try { await new LlmCompactor({ summarize, keepRecentTurns: 0 }).compact(input); } catch (e) { assert.ok(e instanceof CompactionError, String(e)); }
    }
  }
  // the module still works afterwards
  assert.equal(T({ toolCompaction: 'redact', keepRecentTurns: 0 }).compact(okConv()).result.toolResultsRedacted, 1);
  assert.ok(valid > 0);
});

// ------------------------------------------- values that throw, are of the wrong kind, or are not JSON

/** Asserts that `call` throws INVALID_INPUT at `path` (with `message` and `cause`, if given). */
const throwsAt = (call, path, { message, cause } = {}) => assert.throws(call, (e) => {
  isCode('INVALID_INPUT')(e);
  assert.equal(e.path, path, e.message);
  if (message !== undefined) assert.equal(e.message, `${path}: ${message}`);
  if (cause !== undefined) assert.equal(e.cause, cause);
  return true;
});

class ThrowingMap extends Map {
  forEach() { throw new Error('forEach'); }
}

test('options and summaries that throw when looked at (Proxy traps, a revoked Proxy, a Map whose forEach throws) → CompactionError', async () => {
  const boom = new Error('boom');
  const revoked = () => { const { proxy, revoke } = Proxy.revocable({}, {}); revoke(); return proxy; };
  const constructors = [
    (o) => new ContextManager(o), (o) => new LlmCompactor(o), (o) => new ThresholdCompactor(o), (o) => offlineSummarizer(o),
  ];
  for (const make of constructors) {
    for (const trap of ['ownKeys', 'getOwnPropertyDescriptor']) {
      const options = new Proxy({ contextLimit: 5, summarize }, { [trap]() { throw boom; } });
      throwsAt(() => make(options), 'options', { message: 'could not be read: boom', cause: boom });
    }
    throwsAt(() => make(revoked()), 'options');
  }
  throwsAt(() => new ContextManager({ contextLimit: 5, compactor: revoked() }), 'options.compactor');
  // Revoked Proxies where messages and summaries go.
  throwsAt(() => T().compact(revoked()), 'messages');
  throwsAt(() => T().compactInPlace(okConv(), revoked()), 'compactSummaries');
  throwsAt(() => estimateTokens(revoked()), 'messages');
  throwsAt(() => new ContextManager({ contextLimit: 10 }).push(revoked()), 'message');
  const content = withConv((c) => { c[2].content = revoked(); });
  throwsAt(() => T({ keepRecentTurns: 0 }).compact(content), 'messages[2].content');
  assert.throws(() => T({ keepRecentTurns: 0 }).compactInPlace(content), (e) => e.message.startsWith('messages[2].content: could not be read: '));
  // A Map of summaries whose forEach throws.
  const cause = (call) => { try { call(); } catch (e) { return e.cause?.message; } };
  for (const call of [
    () => T().compact(okConv(), new ThrowingMap()),
    () => T().compactInPlace(okConv(), new ThrowingMap()),
  ]) {
    throwsAt(call, 'compactSummaries', { message: 'could not be read: forEach' });
    assert.equal(cause(call), 'forEach');
  }
  throwsAt(() => new ContextManager({ contextLimit: 10 }).storeCompactSummaries(new ThrowingMap()), 'summaries');
  // LlmCompactor.compact rejects, as its type says, and never throws.
  let promise;
  assert.doesNotThrow(() => { promise = new LlmCompactor({ summarize }).compact(okConv(), new ThrowingMap()); });
  await assert.rejects(promise, (e) => isCode('INVALID_INPUT')(e) && e.path === 'compactSummaries');
});

test('options must be plain objects: a Map, a Date, an array… is refused by its name; a class instance is read', () => {
  const kinds = [
    [new Map([['threshold', 0.1]]), 'Map'], [new Set(), 'Set'], [new WeakMap(), 'WeakMap'], [new Date(0), 'Date'],
    [/threshold/, 'RegExp'], [['threshold'], 'array'], [() => {}, 'function'], [Promise.resolve(), 'Promise'], [5, 'number'],
  ];
  for (const [options, name] of kinds) {
    const message = `expected an options object, got ${name}`;
    throwsAt(() => new ThresholdCompactor(options), 'options', { message });
    throwsAt(() => new LlmCompactor(options), 'options', { message });
    throwsAt(() => new ContextManager(options), 'options', { message });
    throwsAt(() => new ContextManager({ contextLimit: 10, compactor: options }), 'options.compactor');
    throwsAt(() => new ContextManager({ contextLimit: 10, compactor: { type: 'llm', summarize, fallback: options } }),
      'options.compactor.fallback', { message });
  }
  // A class instance (or an object without prototype) holds its options in its fields.
  assert.equal(new ThresholdCompactor(new (class { threshold = 0.1; })()).shouldCompact(50, 100), true);
  assert.equal(new ThresholdCompactor(Object.assign(Object.create(null), { threshold: 0.1 })).shouldCompact(50, 100), true);
  // Summaries are an object or a Map.
  for (const [summaries, name] of [[new WeakMap(), 'WeakMap'], [new Date(0), 'Date'], [new Set(['t1']), 'Set'], [['x'], 'array']]) {
    const message = `expected an object or a Map of tool_use_id → summary, got ${name}`;
    throwsAt(() => T().compact(okConv(), summaries), 'compactSummaries', { message });
    throwsAt(() => new ContextManager({ contextLimit: 10 }).storeCompactSummaries(summaries), 'summaries', { message });
  }
  assert.equal(T({ keepRecentTurns: 0 }).compact(okConv(), new Map([['t1', 'S']])).result.toolResultsSummarized, 1);
});

test('a field JSON cannot hold is reported at its own path, with what is wrong and how to fix it', () => {
  const lone = 'messages[0].content[0].text: contains a lone surrogate (U+D83D) at index 3, which UTF-8 cannot encode: '
    + 'remove it, or replace it with U+FFFD (text.toWellFormed())';
  const withLone = () => withConv((c) => { c[0].content[0].text = 'abc\ud83d'; });
  const data = withLone();
  const push = (d) => new ContextManager({ contextLimit: 100 }).pushMany(d);
  assert.throws(() => push(data), (e) => isCode('INVALID_INPUT')(e) && e.path === 'messages[0].content[0].text' && e.message === lone);
  assert.deepEqual(data, withLone(), 'caller data modified');
  throwsAt(() => new ContextManager({ contextLimit: 100 }).push(data[0]), 'message.content[0].text');
  throwsAt(() => estimateTokens(data), 'messages[0].content[0].text');
  throwsAt(() => push(withConv((c) => { c[1].meta = { 'k\udc00': 1 }; })), 'messages[1].meta.k\ufffd');
  throwsAt(() => T({ keepRecentTurns: 0 }).compact(okConv(), { t1: 'x\ud800' }), 'compactSummaries.t1');
  // A BigInt, a getter, a Proxy or a toJSON that throws, nesting too deep.
  throwsAt(() => estimateTokens(withConv((c) => { c[1].content[0].input = { n: 1n }; })), 'messages[1].content[0].input.n',
    { message: 'is a BigInt, which JSON cannot hold: convert it to a number or a string' });
  const boom = new Error('boom');
  const getter = withConv((c) => { Object.defineProperty(c[3].content[0], 'text', { get() { throw boom; }, enumerable: true }); });
  throwsAt(() => push(getter), 'messages[3].content[0].text', { message: 'could not be read: boom', cause: boom });
  const trap = withConv((c) => { c[1].content[0].input = new Proxy({}, { ownKeys() { throw boom; } }); });
  throwsAt(() => toAnthropic(trap), 'messages[1].content[0].input', { message: 'could not be read: boom', cause: boom });
  const toJSON = withConv((c) => { c[2].content[0].toJSON = () => { throw boom; }; });
  throwsAt(() => push(toJSON), 'messages[2].content[0]', { message: 'its toJSON threw: boom', cause: boom });
  let deep = {};
  for (let i = 0; i < 200; i++) deep = { d: deep };
  throwsAt(() => push(withConv((c) => { c[1].content[0].input = deep; })), `messages[1].content[0].input${'.d'.repeat(123)}`,
    { message: 'is nested deeper than 127 levels of arrays and objects' });
  // The formats name the conversation, and what is in it.
  throwsAt(() => fromAnthropic(null), 'conversation');
  throwsAt(() => fromAnthropic({ messages: [{ role: 'user', content: 'a\udc00' }] }), 'conversation.messages[0].content');
  throwsAt(() => fromOpenAI([{ role: 'user', content: 'x', n: 2n }]), 'messages[0].n');
});

test('ThresholdCompactor names the field whose getter or Proxy throws, and leaves the messages as they were', () => {
  const boom = new Error('boom');
  const getter = { get() { throw boom; }, enumerable: true };
  const cases = [
    [(c) => Object.defineProperty(c[2].turn_id, 'number', getter), 'messages[2].turn_id.number'],
    [(c) => Object.defineProperty(c[2], 'role', getter), 'messages[2].role'],
    [(c) => Object.defineProperty(c[2].content[0], 'compact_summary', getter), 'messages[2].content[0].compact_summary'],
    [(c) => { c[2] = new Proxy(c[2], { get(t, k) { if (k === 'content') throw boom; return t[k]; } }); }, 'messages[2].content'],
    // Read only when the edited message is copied (by compact, not by compactInPlace).
    [(c) => Object.defineProperty(c[2], 'meta', getter), 'messages[2].meta'],
  ];
  for (const [edit, path] of cases) {
    const compactor = T({ keepRecentTurns: 0, toolCompaction: 'redact' });
    const messages = okConv();
    const block = messages[2].content[0];
    edit(messages);
    throwsAt(() => compactor.compact(messages), path, { message: 'could not be read: boom', cause: boom });
    if (path !== 'messages[2].meta') throwsAt(() => compactor.compactInPlace(messages), path, { cause: boom });
    assert.equal(block.content, 'x');
  }
});

test('ThresholdCompactor names a tool result content that throws only when read again, to be compared', () => {
  const boom = new Error('boom');
  for (const call of ['compact', 'compactInPlace']) {
    const messages = okConv();
    let reads = 0;
    Object.defineProperty(messages[2].content[0], 'content', {
      get() { reads += 1; if (reads > 1) throw boom; return 'x'; }, enumerable: true,
    });
    throwsAt(() => T({ keepRecentTurns: 0, toolCompaction: 'redact' })[call](messages), 'messages[2].content[0].content',
      { message: 'could not be read: boom', cause: boom });
    assert.ok(reads > 1, call);
  }
});

test('error texts: token counts agree, counts are safe integers, a bad role is quoted', () => {
  for (const limit of [-5, 0, 0.5, 2 ** 53]) {
    throwsAt(() => new ContextManager({ contextLimit: limit }), 'options.contextLimit',
      { message: `expected a whole number of tokens from 1 to 9007199254740991, got ${limit}` });
  }
  throwsAt(() => T().shouldCompact(-1, 10), 'contextUsed', { message: 'expected a whole number of tokens from 0 to 9007199254740991, got -1' });
  const summaryOf = withConv((c) => { c[0].summary_of = { messages: 2 ** 53, turns: 1 }; });
  // On wasm32 a count is at most 2^32 − 1 (natively, 2^53 − 1).
  throwsAt(() => estimateTokens(summaryOf), 'messages[0].summary_of.messages',
    { message: 'expected a whole number from 0 to 4294967295, got 9007199254740992' });
  throwsAt(() => fromAnthropic([{ role: 'system', content: 'x' }]), 'messages[0].role',
    { message: 'expected "user" or "assistant", got "system"' });
  throwsAt(() => fromAnthropic([{ role: 7, content: 'x' }]), 'messages[0].role', { message: 'expected "user" or "assistant", got number' });
});

test('requestBody options, a saved state and its compactSummaries must be plain objects: a Map is refused by name', () => {
  const ctx = new ContextManager({ contextLimit: 1000 });
  const refused = (f, path, got) => assert.throws(f, (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT'
    && e.path === path && e.message.includes(`got ${got}`), `${path} ${got}`);
  refused(() => ctx.requestBody(new Map([['format', 'openai']])), 'options', 'Map');
  refused(() => ContextManager.fromJSON(new Map(), { contextLimit: 1000 }), 'state', 'Map');
  const state = { version: 1, messages: [], compactSummaries: new Map([['a', 'b']]), contextUsed: null };
  // JSON.stringify of a Map is {}: it would have been dropped without a word.
  refused(() => ContextManager.fromJSON(state, { contextLimit: 1000 }), 'state.compactSummaries', 'Map');
  assert.deepEqual(ContextManager.fromJSON({ ...state, compactSummaries: { a: 'b' } }, { contextLimit: 1000 }).toJSON().compactSummaries, { a: 'b' });
  ctx.free();
});

test('an array that only says it is long is an error at its first hole, not a panic', async () => {
  // 15 million holes: before, wasm reserved room for that many messages and panicked.
  const sparse = () => { const a = []; a.length = 15_000_000; return a; };
  const calls = [
    ['pushMany', () => new ContextManager({ contextLimit: 10 }).pushMany(sparse())],
    ['estimateTokens', () => estimateTokens(sparse())],
    ['toAnthropic', () => toAnthropic(sparse())],
    ['validateToolPairs', () => validateToolPairs(sparse())],
  ];
  for (const [name, call] of calls) {
    assert.throws(call, (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT' && e.path === 'messages[0]', name);
  }
  await assert.rejects(new LlmCompactor({ summarize }).compact(sparse()), { code: 'INVALID_INPUT', path: 'messages[0]' });
  assert.equal(estimateTokens([{ role: 'user', content: [{ type: 'text', text: 'still works' }] }]) > 0, true);
});
