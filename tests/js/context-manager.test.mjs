// ContextManager: issue items 2 (nothing lost), 3 (single flight), 5 (fallback),
// 6 (no loops), 9 (observable), and persistence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextManager, CompactionError, estimateTokens, validateToolPairs } from 'context-compactor';
import {
  agentConversation, lastTurns, message, text, toolUse, toolResult, userText, manualSummarizer, tick,
  REDACTED, SUMMARY_PREFIX, UUID_V4, RFC3339,
} from './helpers.mjs';

/** An agent turn a<k> (tool call, result, answer) as it would be pushed later. */
function agentTurn(k) {
  return [
    message('assistant', 'a', k, [toolUse(`late_${k}`)]),
    message('user', 'a', k, [toolResult(`late_${k}`, `late output ${k}`)]),
    message('assistant', 'a', k, [text(`late answer ${k}`)]),
  ];
}

function llmManager(summarize, extra = {}, onEvent) {
  return new ContextManager({
    contextLimit: 1000,
    compactor: { type: 'llm', summarize, keepRecentTurns: 2, ...extra },
    ...(onEvent ? { onEvent } : {}),
  });
}

const summaryCount = (messages) => messages.filter((m) => m.summary_of).length;

// ---------------------------------------------------------------- basics

test('push/pushMany/messages: a copy, in order, all-or-nothing', () => {
  const m = new ContextManager({ contextLimit: 1000 });
  const conv = agentConversation({ turns: 2 });
  m.pushMany(conv.slice(0, 3));
  m.push(conv[3]);
  assert.deepEqual(m.messages(), conv.slice(0, 4));
  const copy = m.messages();
  copy[0].content[0].text = 'mutated';
  copy.pop();
  assert.deepEqual(m.messages(), conv.slice(0, 4));
  assert.throws(() => m.pushMany([conv[4], { role: 'user', turn_id: { owner: 'u', number: 9 }, content: [{ type: 'text' }] }]),
    (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT' && e.path === 'messages[1].content[0].text');
  assert.equal(m.messages().length, 4, 'pushMany is not all-or-nothing');
  assert.equal(m.contextLimit, 1000);
  assert.equal(m.estimatedTokens, estimateTokens(conv.slice(0, 4)));
});

test('push/pushMany: missing id, session_id and created_at are filled in (uuid v4, 0, RFC 3339); given ones kept', () => {
  const conv = agentConversation({ turns: 2, bare: true });
  const m = new ContextManager({ contextLimit: 1000 });
  const t0 = Date.now();
  m.push(conv[0]);
  m.pushMany(conv.slice(1));
  const t1 = Date.now();
  const messages = m.messages();
  const ids = new Set();
  for (const msg of messages) {
    assert.match(msg.id, UUID_V4);
    ids.add(msg.id);
    assert.equal(msg.session_id, 0);
    assert.match(msg.created_at, RFC3339);
    const t = Date.parse(msg.created_at);
    assert.ok(t >= t0 - 1000 && t <= t1 + 1000, `created_at ${msg.created_at} is not now`);
    for (const b of msg.content) if (b.type === 'tool_result') assert.equal(b.is_error, false);
  }
  assert.equal(ids.size, messages.length, 'ids are not unique');
  m.free();
  // Ids are drawn 64 to a call of crypto.getRandomValues: across many draws, still
  // distinct and v4 (lowercase, as uuid writes them).
  const many = new ContextManager({ contextLimit: 1e9 });
  many.pushMany(agentConversation({ turns: 100, bare: true }));
  const manyIds = many.messages().map((x) => x.id);
  assert.ok(manyIds.length > 300);
  for (const id of manyIds) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(new Set(manyIds).size, manyIds.length, 'ids repeat across draws');
  many.free();
  const full = agentConversation({ turns: 1 });
  const k = new ContextManager({ contextLimit: 1000 });
  k.pushMany(full);
  assert.deepEqual(k.messages().map((x) => [x.id, x.session_id, x.created_at]), full.map((x) => [x.id, x.session_id, x.created_at]));
  k.free();
});

test('contextUsed: an estimate of everything, then the provider figure plus what was pushed since', () => {
  const m = new ContextManager({ contextLimit: 1000 });
  const conv = agentConversation({ turns: 3 });
  m.pushMany(conv);
  assert.equal(m.contextUsed, estimateTokens(conv));
  m.setContextUsed(700);
  assert.equal(m.contextUsed, 700);
  assert.equal(m.shouldCompact(), false);
  const u = userText(4, 'x'.repeat(400));
  m.push(u);
  assert.equal(m.contextUsed, 700 + estimateTokens([u]));
  assert.equal(m.shouldCompact(), true);
});

test('default compactor: threshold, summarize mode, stored compact summaries (object and Map) are used', async () => {
  const m = new ContextManager({ contextLimit: 1000 });
  m.pushMany(agentConversation({ turns: 4 }));
  m.storeCompactSummaries({ toolu_1_1_1: 'S1' });
  m.storeCompactSummaries(new Map([['toolu_2_1_1', 'S2']]));
  m.setContextUsed(900);
  const outcome = await m.maybeCompact();
  assert.equal(outcome.strategy, 'threshold');
  assert.deepEqual(outcome.result, { toolResultsSummarized: 2, toolResultsRedacted: 0, turnsCompacted: 0 });
  const msgs = m.messages();
  assert.equal(msgs[2].content[0].content, 'S1');
  assert.equal(msgs[6].content[0].content, 'S2');
  assert.deepEqual(m.toJSON().compactSummaries, { toolu_1_1_1: 'S1', toolu_2_1_1: 'S2' });
});

test('maybeCompact: a threshold compaction is done when the call returns; an LLM one when it settles', async () => {
  const events = [];
  const compactor = { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 1 };
  const m = new ContextManager({ contextLimit: 1000, compactor, onEvent: (e) => events.push(e.type) });
  m.pushMany(agentConversation({ turns: 4 }));
  m.setContextUsed(900);
  const before = m.estimatedTokens;
  const pending = m.maybeCompact();
  assert.ok(m.estimatedTokens < before, 'compacted before the promise settles');
  assert.deepEqual(events, ['compaction']);
  assert.equal((await pending).strategy, 'threshold');
  assert.equal(await m.maybeCompact(), null);

  const { summarize, calls } = manualSummarizer();
  const llm = llmManager(summarize);
  llm.pushMany(agentConversation({ turns: 6 }));
  const messages = llm.messages().length;
  const first = llm.forceCompact();
  const second = llm.maybeCompact();
  assert.ok(llm.isCompacting);
  assert.equal(llm.messages().length, messages, 'nothing replaced before the summary');
  await tick();
  assert.equal(calls.length, 1, 'one summary, shared');
  calls[0].resolve('The summary.');
  const result = await first;
  assert.ok(result.turnsCompacted > 0);
  assert.deepEqual((await second).result, result);
  assert.ok(!llm.isCompacting && llm.messages().length < messages);
});

// ---------------------------------------------------------------- item 2

test('item 2: messages pushed while the summarizer runs are kept after the summary, in order', async () => {
  const s = manualSummarizer();
  const m = llmManager(s.summarize);
  const conv = agentConversation({ turns: 5 });
  m.pushMany(conv);
  m.setContextUsed(900);
  const pending = m.maybeCompact();
  await tick();
  assert.equal(s.calls.length, 1);
  assert.equal(m.isCompacting, true);
  const late = [userText(6, 'pushed during the summary'), ...agentTurn(6)];
  m.push(late[0]);
  m.pushMany(late.slice(1));
  assert.deepEqual(m.messages(), [...conv, ...late]);
  s.calls[0].resolve('SUMMARY');
  const outcome = await pending;
  assert.equal(outcome.strategy, 'llm');
  assert.equal(m.isCompacting, false);
  const msgs = m.messages();
  assert.equal(summaryCount(msgs), 1);
  assert.equal(msgs[0].content[0].text, `${SUMMARY_PREFIX}SUMMARY`);
  const summarized = msgs[0].summary_of.messages;
  // keepRecentTurns 2: the last two turns at the start (u5, a5) are kept, then the late messages
  assert.equal(summarized, conv.length - lastTurns(conv, 2).length);
  assert.deepEqual(msgs.slice(1), [...conv.slice(summarized), ...late]);
  assert.equal(outcome.messagesAfter, msgs.length);
  assert.deepEqual(validateToolPairs(msgs), []);
  // the prompt held exactly the summarized messages
  assert.ok(s.calls[0].request.prompt.includes('Question 4'));
  assert.ok(!s.calls[0].request.prompt.includes('Question 5'));
  assert.ok(!s.calls[0].request.prompt.includes('pushed during the summary'));
});

test('item 2/3: a summarizer that pushes and reads the manager synchronously', async () => {
  const s = manualSummarizer();
  let m;
  const extra = userText(6, 'pushed from inside summarize');
  m = llmManager((req) => {
    m.messages(); m.toJSON(); void m.contextUsed; void m.isCompacting; m.shouldCompact();
    m.push(extra);
    return s.summarize(req);
  });
  const conv = agentConversation({ turns: 4 });
  m.pushMany(conv);
  const p = m.forceCompact();
  await tick();
  s.calls[0].resolve('S');
  const result = await p;
  assert.equal(result.turnsCompacted, 6);
  assert.deepEqual(m.messages().slice(1), [...lastTurns(conv, 2), extra]);
});

// ---------------------------------------------------------------- item 3

test('item 3: concurrent maybeCompact/forceCompact share one summarizer call', async () => {
  const s = manualSummarizer();
  const m = llmManager(s.summarize);
  m.pushMany(agentConversation({ turns: 5 }));
  m.setContextUsed(900);
  const p1 = m.maybeCompact();
  const p2 = m.forceCompact();
  const p3 = m.maybeCompact();
  const p4 = m.forceCompact();
  await tick(5);
  assert.equal(s.calls.length, 1, 'more than one summarizer call');
  s.calls[0].resolve('shared');
  const [o1, r2, o3, r4] = await Promise.all([p1, p2, p3, p4]);
  assert.equal(s.calls.length, 1);
  assert.ok(o1 && o3, 'maybeCompact callers got no outcome');
  assert.deepEqual(o3, o1);
  assert.deepEqual(r2, o1.result);
  assert.deepEqual(r4, o1.result);
  assert.equal(summaryCount(m.messages()), 1);
});

test('item 3: every method works while a compaction is pending', async () => {
  const s = manualSummarizer();
  const m = llmManager(s.summarize);
  const conv = agentConversation({ turns: 5 });
  m.pushMany(conv);
  m.setContextUsed(900);
  const p = m.maybeCompact();
  await tick();
  assert.equal(m.isCompacting, true);
  const late = userText(6);
  assert.doesNotThrow(() => {
    m.push(late);
    m.messages();
    m.toJSON();
    void m.contextUsed; void m.contextLimit; void m.estimatedTokens; void m.isCompacting;
    m.shouldCompact();
    m.storeCompactSummaries({ toolu_9: 'x' });
    m.setContextUsed(950);
    ContextManager.fromJSON(m.toJSON(), { contextLimit: 1000 });
  });
  const again = m.maybeCompact(); // joins the pending one
  assert.equal(typeof m.contextUsed, 'number');
  s.calls[0].resolve('S');
  await p;
  await again;
  assert.equal(s.calls.length, 1);
  assert.equal(m.messages().at(-1).id, late.id);
  assert.equal(m.toJSON().compactSummaries.toolu_9, 'x');
});

test('item 3: onEvent may call back into the manager', async () => {
  const seen = [];
  let m;
  m = llmManager(() => 'S', {}, (e) => { seen.push([e.type, m.messages().length, m.isCompacting]); m.toJSON(); void m.contextUsed; });
  m.pushMany(agentConversation({ turns: 4 }));
  const result = await m.forceCompact();
  assert.equal(result.turnsCompacted, 6);
  assert.ok(seen.some(([t]) => t === 'compaction'), JSON.stringify(seen));
});

// ---------------------------------------------------------------- item 5

test('item 5: the threshold fallback runs when the LLM fails, and the outcome says so', async () => {
  const events = [];
  const m = llmManager(() => { throw new Error('provider down'); }, { fallback: { toolCompaction: 'redact', keepRecentTurns: 2 } }, (e) => events.push(e));
  const conv = agentConversation({ turns: 4, parallel: 2 });
  m.pushMany(conv);
  m.setContextUsed(900);
  const outcome = await m.maybeCompact();
  assert.equal(outcome.fallback, true);
  assert.equal(outcome.strategy, 'threshold');
  assert.ok(outcome.error instanceof CompactionError);
  assert.equal(outcome.error.code, 'LLM_ERROR');
  assert.deepEqual(outcome.result, { toolResultsSummarized: 0, toolResultsRedacted: 6, turnsCompacted: 0 });
  const msgs = m.messages();
  assert.equal(msgs.length, conv.length, 'messages lost');
  assert.deepEqual(msgs.map((x) => x.id), conv.map((x) => x.id));
  assert.deepEqual(lastTurns(msgs, 2), lastTurns(conv, 2));
  for (const i of [2, 6, 10]) for (const b of msgs[i].content) assert.equal(b.content, REDACTED);
  assert.ok(outcome.tokensAfter < outcome.tokensBefore);
  assert.ok(events.some((e) => e.type === 'compaction_failed' || e.fallback === true));
});

test('item 5: fallback on EMPTY_SUMMARY and TIMEOUT; forceCompact rejects after the fallback ran', async () => {
  for (const [summarize, code, extra] of [
    [() => '   ', 'EMPTY_SUMMARY', {}],
    [() => new Promise(() => {}), 'TIMEOUT', { summaryTimeoutMs: 20 }],
  ]) {
    const m = llmManager(summarize, { ...extra, fallback: { toolCompaction: 'redact' } });
    const conv = agentConversation({ turns: 5 });
    m.pushMany(conv);
    await assert.rejects(m.forceCompact(), (e) => e instanceof CompactionError && e.code === code);
    const msgs = m.messages();
    assert.equal(msgs.length, conv.length);
    assert.equal(msgs[2].content[0].content, REDACTED, `fallback did not run (${code})`);
  }
});

test('item 5: without a fallback, a failure leaves the conversation unchanged and is reported', async () => {
  const events = [];
  const m = llmManager(() => Promise.reject(new Error('nope')), {}, (e) => events.push(e));
  const conv = agentConversation({ turns: 5 });
  m.pushMany(conv);
  m.setContextUsed(900);
  const outcome = await m.maybeCompact();
  assert.equal(outcome.fallback, false);
  assert.equal(outcome.error.code, 'LLM_ERROR');
  assert.deepEqual(outcome.result, { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 });
  assert.deepEqual(m.messages(), conv);
  const failed = events.find((e) => e.type === 'compaction_failed');
  assert.ok(failed);
  assert.ok(failed.message.startsWith('LLM compaction failed:'), failed.message);
  assert.equal(failed.error.code, 'LLM_ERROR');
});

// ---------------------------------------------------------------- item 6

test('item 6: after a compaction the next maybeCompact does nothing (contextUsed is an estimate)', async () => {
  for (const compactor of [
    { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 1 },
    { type: 'llm', summarize: () => 'short', keepRecentTurns: 1 },
  ]) {
    let calls = 0;
    const c = compactor.type === 'llm' ? { ...compactor, summarize: () => { calls++; return 'short'; } } : compactor;
    const m = new ContextManager({ contextLimit: 2000, compactor: c });
    m.pushMany(agentConversation({ turns: 5, resultSize: 1000 }));
    m.setContextUsed(1900);
    const outcome = await m.maybeCompact();
    assert.ok(outcome, compactor.type);
    assert.equal(outcome.belowThreshold, true, compactor.type);
    assert.equal(m.contextUsed, m.estimatedTokens, compactor.type);
    assert.equal(m.contextUsed, outcome.tokensAfter, compactor.type);
    assert.equal(m.shouldCompact(), false);
    assert.equal(await m.maybeCompact(), null, compactor.type);
    assert.equal(await m.maybeCompact(), null, compactor.type);
    if (compactor.type === 'llm') assert.equal(calls, 1);
    m.setContextUsed(1990); // a new provider figure counts again
    assert.equal(m.contextUsed, 1990);
  }
});

test('item 6: a threshold compaction that cannot get below the threshold is reported once', async () => {
  const m = new ContextManager({ contextLimit: 100, compactor: { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 1 } });
  m.pushMany(agentConversation({ turns: 5 }));
  const first = await m.maybeCompact();
  assert.ok(first);
  assert.equal(first.belowThreshold, false);
  assert.ok(first.result.toolResultsRedacted > 0);
  assert.equal(await m.maybeCompact(), null, 'retried without a new turn');
  assert.equal(await m.maybeCompact(), null, 'retried without a new turn');
  m.pushMany([userText(6), ...agentTurn(6)]);
  const again = await m.maybeCompact();
  assert.ok(again, 'not retried after a new turn');
});

test('item 6: a compaction with nothing to do is reported once, not on every call', async () => {
  // default compactor (summarize) with no summaries: nothing can shrink
  const m = new ContextManager({ contextLimit: 1000 });
  m.pushMany(agentConversation({ turns: 5 }));
  m.setContextUsed(900);
  const first = await m.maybeCompact();
  assert.ok(first);
  assert.equal(first.belowThreshold, false);
  assert.equal(await m.maybeCompact(), null, 'retried without a new turn');
});

test('item 6: an LLM compaction that cannot get below the threshold is not retried; one summarizer call', async () => {
  let calls = 0;
  const m = new ContextManager({ contextLimit: 100, compactor: { type: 'llm', keepRecentTurns: 1, summarize: () => { calls++; return 'S'; } } });
  m.pushMany(agentConversation({ turns: 5 }));
  const first = await m.maybeCompact();
  assert.ok(first);
  assert.equal(first.belowThreshold, false);
  assert.equal(await m.maybeCompact(), null);
  assert.equal(calls, 1);
});

// ---------------------------------------------------------------- item 9

test('item 9: threshold compaction reports through onEvent with the spec\'s log line', async () => {
  const events = [];
  const m = new ContextManager({ contextLimit: 1000, compactor: { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 2 }, onEvent: (e) => events.push(e) });
  m.pushMany(agentConversation({ turns: 4 }));
  m.setContextUsed(900);
  const outcome = await m.maybeCompact();
  const ev = events.filter((e) => e.type === 'compaction');
  assert.equal(ev.length, 1);
  const [e] = ev;
  assert.ok(e.message.startsWith('Compaction result:'), e.message);
  assert.deepEqual(e.result, { toolResultsSummarized: 0, toolResultsRedacted: 3, turnsCompacted: 0 });
  assert.equal(e.strategy, 'threshold');
  assert.ok(e.tokensBefore > e.tokensAfter, `${e.tokensBefore} > ${e.tokensAfter}`);
  assert.ok(e.durationMs >= 0);
  assert.equal(e.messagesBefore, 16);
  assert.equal(e.messagesAfter, 16);
  assert.equal(e.fallback, false);
  for (const k of Object.keys(outcome)) assert.deepEqual(e[k], outcome[k], k);
});

test('item 9: LLM compaction reports started/compaction with the summary length', async () => {
  const events = [];
  const summary = 'A summary of exactly this length.';
  const m = llmManager(() => summary, {}, (e) => events.push(e));
  m.pushMany(agentConversation({ turns: 4 }));
  m.setContextUsed(900);
  const outcome = await m.maybeCompact();
  const started = events.find((e) => e.type === 'compaction_started');
  assert.ok(started);
  assert.ok(started.promptLength > 0);
  assert.ok(started.tokensBefore > 0);
  const done = events.find((e) => e.type === 'compaction');
  assert.ok(done.message.startsWith('LLM compaction result:'), done.message);
  assert.equal(done.summaryLength, summary.length);
  assert.equal(outcome.summaryLength, summary.length);
  assert.deepEqual(done.result, { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 6 });
  assert.ok(done.tokensBefore > done.tokensAfter);
  assert.ok(done.durationMs >= 0);
  assert.equal(done.messagesBefore, 16);
  assert.equal(done.messagesAfter, 5);
  assert.ok(events.indexOf(started) < events.indexOf(done));
});

test('item 9: outcomes and events have exactly their documented fields, in order, with their types', async () => {
  const fields = (extra) => ['belowThreshold', 'durationMs', 'escalation', 'fallback', 'fits', 'keptUserMessages',
    ...(extra.message ? ['message'] : []), 'messagesAfter', 'messagesBefore', 'result', 'strategy',
    ...(extra.summaryLength ? ['summaryLength'] : []), 'tokensAfter', 'tokensBefore',
    ...(extra.type ? ['type'] : []), ...(extra.error ? ['error'] : [])];
  const check = (value, extra, what) => {
    assert.deepEqual(Object.keys(value), fields(extra), what);
    for (const k of ['belowThreshold', 'fallback', 'fits']) assert.equal(typeof value[k], 'boolean', `${what} ${k}`);
    for (const k of ['durationMs', 'keptUserMessages', 'messagesAfter', 'messagesBefore', 'tokensAfter', 'tokensBefore']) {
      assert.equal(typeof value[k], 'number', `${what} ${k}`);
    }
    assert.ok(Array.isArray(value.escalation), what);
    assert.deepEqual(Object.keys(value.result), ['toolResultsRedacted', 'toolResultsSummarized', 'turnsCompacted'], what);
    assert.equal(Object.getPrototypeOf(value), Object.prototype, what);
  };
  const cases = [
    ['threshold', { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 2 }, {}],
    ['llm', { type: 'llm', summarize: () => 'S', keepRecentTurns: 2 }, { summaryLength: true }],
    ['failed llm', { type: 'llm', summarize: () => { throw new Error('nope'); }, keepRecentTurns: 2 }, { error: true }],
  ];
  for (const [what, compactor, extra] of cases) {
    const events = [];
    const m = new ContextManager({ contextLimit: 1000, compactor, onEvent: (e) => events.push(e) });
    m.pushMany(agentConversation({ turns: 4 }));
    m.setContextUsed(900);
    const outcome = await m.maybeCompact();
    check(outcome, extra, what);
    assert.equal(outcome.strategy, what === 'threshold' ? 'threshold' : 'llm', what);
    const event = events.find((e) => e.type !== 'compaction_started');
    check(event, { ...extra, message: true, type: true }, `${what} event`);
    assert.equal(event.type, extra.error ? 'compaction_failed' : 'compaction', what);
    if (extra.error) assert.ok(outcome.error instanceof CompactionError && event.error instanceof CompactionError, what);
  }
});

test('item 9: an onEvent that throws does not break compaction', async () => {
  for (const compactor of [
    { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 2 },
    { type: 'llm', summarize: () => 'S', keepRecentTurns: 2 },
  ]) {
    let called = 0;
    const m = new ContextManager({ contextLimit: 1000, compactor, onEvent: () => { called++; throw new Error('listener bug'); } });
    m.pushMany(agentConversation({ turns: 4 }));
    m.setContextUsed(900);
    const outcome = await m.maybeCompact();
    assert.ok(called > 0);
    assert.ok(outcome && !outcome.error, compactor.type);
    assert.ok(m.estimatedTokens < estimateTokens(agentConversation({ turns: 4 })), compactor.type);
    assert.equal(m.isCompacting, false);
  }
});

// ---------------------------------------------------------------- re-entrant callbacks

test('an onEvent that compacts again does not recurse: that compaction raises no event, the manager keeps working', async () => {
  for (const compactor of [
    { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 1 },
    { type: 'llm', summarize: () => 'S', keepRecentTurns: 2 },
  ]) {
    const events = [];
    const inner = [];
    let m;
    m = new ContextManager({ contextLimit: 1000, compactor, onEvent: (e) => {
      events.push(e.type);
      if (e.type !== 'compaction_started') inner.push(m.forceCompact().then(() => 'resolved', (error) => error.name));
    } });
    m.pushMany(agentConversation({ turns: 4 }));
    m.setContextUsed(900);
    const outcome = await m.maybeCompact();
    assert.ok(outcome && !outcome.error, compactor.type);
    assert.deepEqual(events, compactor.type === 'llm' ? ['compaction_started', 'compaction'] : ['compaction']);
    assert.equal(inner.length, 1, compactor.type);
    // It ran: LLM compaction of the lone summary is refused (SUMMARY_TOO_LARGE).
    assert.equal(await inner[0], compactor.type === 'llm' ? 'CompactionError' : 'resolved');
    m.push(userText(5));
    assert.equal(m.messages().at(-1).content[0].text, 'follow-up 5');
    assert.equal(m.isCompacting, false);
    m.free();
  }
});

test('countTokens may read the manager: it is not called again from inside itself, and a count of a conversation it changed is not used', () => {
  let calls = 0;
  let m;
  m = new ContextManager({ contextLimit: 1000, countTokens: (messages) => {
    calls += 1;
    void m.contextUsed;
    void m.shouldCompact();
    if (calls === 1) m.push(userText(9));
    return messages.length * 100;
  } });
  m.pushMany(agentConversation({ turns: 1 }));
  assert.equal(m.contextUsed, m.estimatedTokens, 'a count of the messages before the push was used');
  assert.equal(calls, 1);
  assert.equal(m.contextUsed, 500);
  assert.equal(calls, 2);
  m.free();
});

test('free() inside onEvent frees the manager when the call that raised the event returns', async () => {
  let m;
  let thrown;
  m = new ContextManager({ contextLimit: 1000, compactor: { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 1 }, onEvent: () => {
    try { m.free(); } catch (e) { thrown = e; }
  } });
  m.pushMany(agentConversation({ turns: 4 }));
  m.setContextUsed(900);
  const outcome = await m.maybeCompact();
  assert.equal(outcome.result.toolResultsRedacted, 3, 'the call that raised the event completes');
  assert.match(thrown.message, /borrowed/);
  assert.throws(() => m.messages(), /null pointer passed to rust/);
  const other = new ContextManager({ contextLimit: 1000 });
  other.push(userText(1));
  assert.equal(other.messages().length, 1);
  other.free();
});

// ---------------------------------------------------------------- persistence

test('toJSON → fromJSON → toJSON is lossless, and state holds no API key', async () => {
  const apiKey = 'sk-ant-api03-SECRET-do-not-persist';
  const summarize = async ({ prompt }) => `summary (${apiKey.length} chars of key) of ${prompt.length} chars`;
  const options = { contextLimit: 1000, compactor: { type: 'llm', summarize, keepRecentTurns: 2, fallback: { toolCompaction: 'redact' } } };
  const m = new ContextManager(options);
  m.pushMany(agentConversation({ turns: 4, bare: true }));
  m.storeCompactSummaries(new Map([['toolu_1_1_1', 'short']]));
  m.setContextUsed(900);
  await m.maybeCompact();
  m.push(userText(5));
  const state = m.toJSON();
  assert.equal(state.version, 1);
  assert.ok(Array.isArray(state.messages));
  assert.deepEqual(state.messages, m.messages());
  assert.deepEqual(state.compactSummaries, { toolu_1_1_1: 'short' });
  const json = JSON.stringify(state);
  assert.ok(!json.includes(apiKey), 'API key persisted');
  assert.ok(!json.includes('SECRET'));
  const restored = ContextManager.fromJSON(JSON.parse(json), options);
  assert.deepEqual(restored.toJSON(), state);
  assert.equal(restored.contextUsed, m.contextUsed);
  assert.deepEqual(restored.messages(), m.messages());
  // and the state given to fromJSON is not modified
  const s2 = JSON.parse(json);
  const snap = structuredClone(s2);
  ContextManager.fromJSON(s2, options);
  assert.deepEqual(s2, snap);
});

test('fromJSON of a fresh manager, and the restored manager keeps working', async () => {
  const m = new ContextManager({ contextLimit: 1000 });
  assert.deepEqual(m.toJSON(), { version: 1, messages: [], compactSummaries: {}, contextUsed: null });
  m.pushMany(agentConversation({ turns: 4 }));
  m.setContextUsed(900);
  const opts = { contextLimit: 1000, compactor: { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 2 } };
  const r = ContextManager.fromJSON(m.toJSON(), opts);
  assert.equal(r.contextUsed, 900);
  const outcome = await r.maybeCompact();
  assert.equal(outcome.result.toolResultsRedacted, 3);
  assert.deepEqual(ContextManager.fromJSON(r.toJSON(), opts).toJSON(), r.toJSON());
});

test('fromJSON takes token counts only as setContextUsed does, and says what is missing', () => {
  const messages = [userText(1)];
  const restore = (state) => ContextManager.fromJSON({ version: 1, messages, compactSummaries: {}, ...state }, { contextLimit: 1000 });
  const cases = [
    [{ inputTokens: -1, estimatedThen: 0 }, 'inputTokens', /got -1$/],
    [{ inputTokens: -1e15, estimatedThen: 0 }, 'inputTokens', /non-negative whole number/],
    [{ inputTokens: 1.5, estimatedThen: 0 }, 'inputTokens', /got 1\.5$/],
    [{ inputTokens: 2 ** 53, estimatedThen: 0 }, 'inputTokens', /got 9007199254740992$/],
    [{ inputTokens: '5', estimatedThen: 0 }, 'inputTokens', /got string$/],
    [{ inputTokens: 5, estimatedThen: -7 }, 'estimatedThen', /got -7$/],
    [{ inputTokens: 5 }, 'estimatedThen', /is required but missing/],
  ];
  for (const [contextUsed, field, message] of cases) {
    assert.throws(() => restore({ contextUsed }), (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT'
      && e.path === `state.contextUsed.${field}` && message.test(e.message), JSON.stringify(contextUsed));
  }
  assert.throws(() => restore({ contextUsed: 5 }), { code: 'INVALID_INPUT', path: 'state.contextUsed' });
  const largest = restore({ contextUsed: { inputTokens: 2 ** 53 - 1, estimatedThen: 0 } });
  assert.ok(largest.contextUsed >= 2 ** 53 - 1);
  assert.equal(restore({ contextUsed: { inputTokens: 0, estimatedThen: 0 } }).contextUsed, estimateTokens(messages));
  assert.throws(() => ContextManager.fromJSON({ version: 1, compactSummaries: {}, contextUsed: null }, { contextLimit: 1000 }),
    { code: 'INVALID_INPUT', path: 'state.messages', message: /is required but missing/ });
});

test('a message push accepts, however deeply nested, survives toJSON → fromJSON; one too deep is refused at its field', () => {
  const nested = (levels) => { let o = {}; for (let i = 1; i < levels; i++) o = { a: o }; return o; };
  const call = (levels) => message('assistant', 'a', 1, [{ type: 'tool_use', id: 'x', name: 'f', input: nested(levels) }]);
  let accepted = 0;
  for (let levels = 110; levels <= 125; levels++) {
    const m = new ContextManager({ contextLimit: 1e6 });
    try { m.push(call(levels)); } catch (e) {
      assert.equal(e.code, 'INVALID_INPUT');
      continue;
    }
    accepted = levels;
    const restored = ContextManager.fromJSON(m.toJSON(), { contextLimit: 1e6 });
    assert.deepEqual(restored.messages(), m.messages(), `${levels} levels`);
    const many = new ContextManager({ contextLimit: 1e6 });
    many.pushMany(m.messages());
    assert.deepEqual(many.messages(), m.messages(), `${levels} levels in pushMany`);
  }
  assert.ok(accepted >= 110, 'some nesting is accepted');
  for (const [push, path] of [[(m, x) => m.push(x), 'message'], [(m, x) => m.pushMany([x]), 'messages[0]']]) {
    assert.throws(() => push(new ContextManager({ contextLimit: 1e6 }), call(accepted + 1)),
      { code: 'INVALID_INPUT', path: `${path}.content[0].input` });
  }
});

test('unknown fields survive on messages and blocks; inside turn_id and summary_of only the pair is kept (as the README says)', () => {
  const m = new ContextManager({ contextLimit: 1e6 });
  m.push({ ...message('user', 'u', 1, [{ ...text('hi'), cache_control: { type: 'ephemeral' } }]), metadata: { k: 1 },
    turn_id: { owner: 'u', number: 1, thread: 'T7' } });
  m.push({ ...message('assistant', 'a', 1, [text('S')]), summary_of: { messages: 2, turns: 1, by: 'x' } });
  const [user, summary] = m.messages();
  assert.deepEqual(user.metadata, { k: 1 });
  assert.deepEqual(user.content[0].cache_control, { type: 'ephemeral' });
  assert.deepEqual(user.turn_id, { owner: 'u', number: 1 });
  assert.deepEqual(summary.summary_of, { messages: 2, turns: 1 });
});
