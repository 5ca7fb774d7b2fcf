// Summarizer faults (issue 5): whatever the summarizer does, the ContextManager
// afterwards holds every message it held before plus every message pushed while
// the summary was pending, in order; failures are reported with the right code.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ContextManager, CompactionError, openAISummarizer, estimateTokens } from 'context-compactor';
import { agentConversation, userText, manualSummarizer, tick, REDACTED } from './helpers.mjs';
import { start } from './support/llm-server.mjs';

const server = await start();
after(() => server.stop());

const TIMEOUT_MS = 250; // long enough for the prompt faults on a busy machine

/**
 * Each fault: `summarize(request, pushWhilePending)` misbehaves in its own way;
 * `code` is the error the outcome must carry. `pushWhilePending()` pushes a message
 * into the manager from inside the summarizer call, i.e. while it is pending.
 */
const FAULTS = [
  ['throws synchronously', 'LLM_ERROR', (req, push) => { push(); throw new Error('sync boom'); }],
  ['rejects with a string', 'LLM_ERROR', async (req, push) => { push(); await tick(5); push(); throw 'plain string'; }],
  ['rejects with a plain object', 'LLM_ERROR', (req, push) => { push(); return Promise.reject({ status: 500 }); }],
  ['resolves to a number', 'LLM_ERROR', async (req, push) => { push(); await tick(5); return 42; }],
  ['resolves to null', 'LLM_ERROR', async (req, push) => { push(); return null; }],
  ['resolves to undefined', 'LLM_ERROR', async (req, push) => { push(); }],
  ['returns a number synchronously', 'LLM_ERROR', (req, push) => { push(); return 7; }],
  ['resolves to an empty string', 'EMPTY_SUMMARY', async (req, push) => { push(); return ''; }],
  ['resolves to whitespace', 'EMPTY_SUMMARY', async (req, push) => { push(); return ' \n\t '; }],
  ['never settles', 'TIMEOUT', (req, push) => { push(); return new Promise(() => {}); }],
  // Awaited as `await` would: the throw rejects, it does not unwind through the module.
  ['returns a promise whose then throws', 'LLM_ERROR', (req, push) => {
    push(); const p = Promise.resolve('S'); p.then = () => { throw new Error('evil then'); }; return p;
  }],
  ['returns a thenable whose then throws', 'LLM_ERROR', (req, push) => { push(); return { then() { throw new Error('evil'); } }; }],
  // Described by kind: reading the message must not throw through the module.
  ['rejects with an Error whose message is not a string', 'LLM_ERROR', (req, push) => {
    push(); const e = new Error('x'); Object.defineProperty(e, 'message', { value: 42 }); return Promise.reject(e);
  }],
  ['rejects with an Error whose message getter throws', 'LLM_ERROR', (req, push) => {
    push(); const e = new Error('x'); Object.defineProperty(e, 'message', { get() { throw new Error('evil'); } }); throw e;
  }],
  ['rejects with a Proxy whose traps throw', 'LLM_ERROR', (req, push) => {
    push(); const trap = () => { throw new Error('trap'); };
    return Promise.reject(new Proxy(new Error('x'), { get: trap, getPrototypeOf: trap, has: trap }));
  }],
  ['answers a summary larger than the conversation', 'SUMMARY_TOO_LARGE',
    async (req, push) => { push(); return 'far too long '.repeat(req.prompt.length); }],
];

function setup({ summarize, fallback = false, timeoutMs = TIMEOUT_MS, conversation = agentConversation({ turns: 5, parallel: 2 }) }) {
  const events = [];
  const pushed = [];
  let n = 100;
  const m = new ContextManager({
    contextLimit: 1000,
    compactor: {
      type: 'llm', keepRecentTurns: 2, summaryTimeoutMs: timeoutMs,
      ...(fallback ? { fallback: { toolCompaction: 'redact', keepRecentTurns: 2 } } : {}),
      summarize: (req) => summarize(req, () => { const msg = userText(++n); pushed.push(msg); m.push(msg); }),
    },
    onEvent: (e) => events.push(e),
  });
  m.pushMany(conversation);
  m.setContextUsed(900); // above the threshold, within the room: no escalation after a failure
  return { m, events, pushed, before: structuredClone(conversation) };
}

const ids = (ms) => ms.map((x) => x.id);

/** Every message held before, then every message pushed meanwhile, in order. */
function assertComplete(m, before, pushed, { fallback }) {
  const now = m.messages();
  assert.deepEqual(ids(now), ids([...before, ...pushed]), 'messages lost, added or reordered');
  if (!fallback) {
    assert.deepEqual(now, [...before, ...pushed], 'a failed compaction changed messages');
    return;
  }
  // The fallback may only redact old tool results.
  now.forEach((msg, i) => {
    const was = [...before, ...pushed][i];
    const strip = (x) => ({ ...x, content: x.content.map((b) => (b.type === 'tool_result' ? { ...b, content: null } : b)) });
    assert.deepEqual(strip(msg), strip(was), `message ${i} changed beyond tool-result content`);
    msg.content.forEach((b, j) => {
      if (b.type === 'tool_result') assert.ok(b.content === REDACTED || b.content === was.content[j].content);
    });
  });
}

/** One summary message replacing a prefix of `all`, then the rest of `all` unchanged. */
function assertSummarized(m, all) {
  const [summary, ...rest] = m.messages();
  assert.ok(summary.summary_of, 'no summary message first');
  const cut = summary.summary_of.messages;
  assert.ok(cut > 0);
  assert.deepEqual(rest, all.slice(cut));
}

for (const fallback of [false, true]) {
  for (const [name, code, summarize] of FAULTS) {
    test(`summarizer ${name} → ${code}${fallback ? ', fallback runs' : ''}; every message kept`, async () => {
      const { m, events, pushed, before } = setup({ summarize, fallback });
      const tokensBefore = m.estimatedTokens;
      const outcome = await m.maybeCompact();
      assert.ok(outcome, 'no outcome');
      assert.ok(outcome.error instanceof CompactionError, `error: ${outcome.error}`);
      assert.equal(outcome.error.code, code, outcome.error.message);
      assert.equal(outcome.fallback, fallback);
      assert.ok(pushed.length >= 1, 'nothing was pushed while pending');
      assertComplete(m, before, pushed, { fallback });
      if (fallback) assert.ok(outcome.result.toolResultsRedacted > 0, 'fallback redacted nothing');
      // Compaction never makes the context grow.
      const pushedTokens = estimateTokens(pushed);
      assert.ok(m.estimatedTokens <= tokensBefore + pushedTokens, `${m.estimatedTokens} > ${tokensBefore} + ${pushedTokens}`);
      assert.equal(m.isCompacting, false);
      assert.deepEqual(events.map((e) => e.type), ['compaction_started', 'compaction_failed']);
      assert.equal(events[1].error.code, code);
    });
  }
}

test('summarizer never settles: the signal is aborted at the timeout', async () => {
  const s = manualSummarizer();
  const { m, pushed, before } = setup({ summarize: (req, push) => { push(); return s.summarize(req); } });
  const started = Date.now();
  const pending = m.maybeCompact();
  await tick(5);
  assert.equal(m.isCompacting, true);
  const late = userText(500);
  m.push(late);
  pushed.push(late);
  const outcome = await pending;
  assert.ok(Date.now() - started >= TIMEOUT_MS - 10, 'timed out early');
  assert.equal(outcome.error.code, 'TIMEOUT');
  assert.equal(s.calls.length, 1);
  assert.equal(s.calls[0].request.signal.aborted, true, 'signal not aborted');
  assertComplete(m, before, pushed, { fallback: false });
});

test('summarizer resolves after the timeout: the answer is ignored, no state change, no event', async () => {
  const s = manualSummarizer();
  const { m, events, pushed, before } = setup({ summarize: (req, push) => { push(); return s.summarize(req); } });
  const outcome = await m.maybeCompact();
  assert.equal(outcome.error.code, 'TIMEOUT');
  const state = m.toJSON();
  const eventCount = events.length;
  s.calls[0].resolve('a perfectly good but late summary');
  await tick(30);
  assert.deepEqual(m.toJSON(), state);
  assert.equal(events.length, eventCount, 'late answer produced an event');
  assertComplete(m, before, pushed, { fallback: false });
  // The manager still works: the next (forced) compaction uses the next answer.
  const next = m.forceCompact();
  await tick(5);
  assert.equal(s.calls.length, 2);
  s.calls[1].resolve('fresh summary');
  const result = await next;
  assert.ok(result.turnsCompacted > 0);
  assertSummarized(m, [...before, ...pushed]);
});

test('a summary larger than the conversation is refused and the context does not grow (forceCompact rejects)', async () => {
  const { m, pushed, before } = setup({ summarize: (req, push) => { push(); return 'x '.repeat(10 * req.prompt.length); } });
  const tokens = m.estimatedTokens;
  await assert.rejects(m.forceCompact(), (e) => e instanceof CompactionError && e.code === 'SUMMARY_TOO_LARGE');
  assertComplete(m, before, pushed, { fallback: false });
  assert.equal(m.estimatedTokens, tokens + estimateTokens(pushed));
});

for (const status of [500, 502, 503]) {
  test(`HTTP ${status} through openAISummarizer (real server) → LLM_ERROR with status; every message kept`, async () => {
    server.reset();
    server.setMode('error', { status });
    const fetchSummarize = openAISummarizer({ baseURL: `${server.baseURL}/v1`, apiKey: 'sk-fault-test-key', model: 'm' });
    const { m, pushed, before } = setup({
      timeoutMs: 10_000, // a real connection, on a busy machine
      summarize: (req, push) => { push(); const p = fetchSummarize(req); push(); return p; },
    });
    const outcome = await m.maybeCompact();
    assert.equal(server.requests.length, 1, 'one HTTP request');
    assert.equal(outcome.error.code, 'LLM_ERROR');
    assert.equal(outcome.error.status, status);
    assert.ok(!outcome.error.message.includes('sk-fault-test-key'), 'API key in the error');
    assert.equal(pushed.length, 2);
    assertComplete(m, before, pushed, { fallback: false });
  });
}

test('control: a well-behaved summarizer with pushes while pending keeps pushed messages after the summary', async () => {
  const { m, pushed, before } = setup({ summarize: async (req, push) => { push(); await tick(5); push(); return 'short summary'; } });
  const outcome = await m.maybeCompact();
  assert.equal(outcome.error, undefined);
  assert.equal(pushed.length, 2);
  assertSummarized(m, [...before, ...pushed]);
  assert.deepEqual(m.messages().slice(-pushed.length), pushed);
});
