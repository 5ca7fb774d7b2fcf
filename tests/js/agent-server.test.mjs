// The Node agent server of examples/agent-server.mjs, driven over HTTP against a
// mock upstream LLM (tests/js/support/agent-upstream.mjs), both real node:http
// servers on 127.0.0.1.
//
// Every check is made on what the upstream actually received:
//   - compaction happens (LLM summaries, and compacted copies while one is pending);
//   - no request exceeds the context window: prompt_tokens (js-tiktoken o200k_base,
//     counted by the mock, the same figure the server is fed back as usage) plus
//     max_tokens ≤ CONTEXT_LIMIT, the window the server is configured with;
//   - no request has an orphaned tool call or result (the package's validateToolPairs
//     and an independent checker on the wire format);
//   - every user message and tool result the client sent is, in every later
//     request, either there verbatim, or (tool results) as its compact summary, or
//     listed by the summary message (the mock's summaries name the markers
//     `[[m<n>]]` they were given, so coverage is read from the summary text);
//   - the server keeps answering while a summary is in flight: the mock holds each
//     summary back until k more chat requests of that session were answered, and
//     releases it on a timeout otherwise (which the test counts as a failure).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { DEFAULT_SUMMARY_PROMPT, fromOpenAI, validateToolPairs } from 'context-compactor';
import { createAgentServer, defaultCompactSummary } from '../../examples/agent-server.mjs';
import { startAgentUpstream, markersIn } from './support/agent-upstream.mjs';
import { openAIPairingProblems } from './support/pairing.mjs';
import { SUMMARY_PREFIX } from './helpers.mjs';

const CONTEXT_LIMIT = 8192;
const MAX_OUTPUT_TOKENS = 512;
const SYSTEM_PROMPT = 'You are a coding agent. Use the tools to read and search the repository.';
const TOOLS = [
  { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } } },
  { type: 'function', function: { name: 'grep', description: 'Search files', parameters: { type: 'object', properties: { pattern: { type: 'string' }, path: { type: 'string' } }, required: ['pattern'] } } },
];
// How many chat requests of the session must be answered before the n-th summary
// (0-based) is released: the first is held long enough that the context crosses
// the hard limit meanwhile; the others vary.
const holdSummary = (n) => (n === 0 ? 24 : [3, 8, 14][n % 3]);

let upstream;
before(async () => {
  upstream = await startAgentUpstream({ summaryPrompt: DEFAULT_SUMMARY_PROMPT, contextWindow: CONTEXT_LIMIT, holdSummary, holdTimeoutMs: 4000 });
});
after(() => upstream.close());

async function post(base, session, body) {
  const res = await fetch(`${base}/sessions/${session}/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json(), at: performance.now() };
}

let nextMarker = 0;

/** A deterministic tool output of 1–2 KB: log lines, JSON and code, starting with its marker. */
function toolOutput(marker, k) {
  const lines = [`[[m${marker}]] ok: ${k % 3 === 0 ? 'grep' : 'read_file'} finished in ${(k * 37) % 900} ms`];
  const size = 1000 + ((k * 389) % 1000);
  for (let i = 0; lines.join('\n').length < size; i++) {
    switch ((k + i) % 4) {
      case 0: lines.push(`src/module_${k}.rs:${10 + i}: pub fn handler_${i}(req: &Request) -> Result<Response, Error> {`); break;
      case 1: lines.push(`    let value = state.get("key_${i}").unwrap_or_default(); // ${i * 7} calls`); break;
      case 2: lines.push(JSON.stringify({ level: 'info', ts: 1735732800 + i, msg: `request ${k}.${i} done`, status: 200 })); break;
      default: lines.push(`test tests::case_${k}_${i} ... ok`);
    }
  }
  return lines.join('\n');
}

/**
 * Drives one session for `turns` user turns; every other turn asks for 1 or 2
 * tools and posts their results. Returns what the client sent, in order.
 */
async function drive(base, session, turns) {
  const items = [];
  const answeredAt = [];
  const chatsSoFar = () => upstream.requests.filter((r) => r.kind === 'chat' && r.session === session).length;
  const send = async (body, newItems) => {
    const from = chatsSoFar();
    for (const it of newItems) items.push({ ...it, from });
    const r = await post(base, session, body);
    assert.equal(r.status, 200, `${session}: ${JSON.stringify(r.json)}`);
    answeredAt.push(r.at);
    return r.json;
  };
  for (let k = 1; k <= turns; k++) {
    const marker = ++nextMarker;
    const tools = k % 2 === 0 ? (k % 4 === 0 ? 2 : 1) : 0;
    const text = tools
      ? `[[m${marker}]] Turn ${k}: please run ${tools} tools to check module_${k} and tell me if handler_${k} is safe.`
      : `[[m${marker}]] Turn ${k}: thanks. Keep in mind that module_${k} is owned by team ${k % 7}.`;
    let answer = await send({ message: text }, [{ marker, kind: 'user', text }]);
    if (tools) {
      assert.equal(answer.reply.tool_calls?.length, tools, `${session} turn ${k}: expected ${tools} tool calls`);
      const results = [];
      const newItems = [];
      for (const call of answer.reply.tool_calls) {
        const m = ++nextMarker;
        const content = toolOutput(m, k);
        // Half the results come with the client's own compact summary; the server makes one for the others.
        const summary = m % 2 === 0 ? `[[m${m}]] ${call.function.name} ${call.function.arguments}: ${content.split('\n').length} lines, all ok` : undefined;
        results.push({ tool_call_id: call.id, content, ...(summary ? { summary } : {}) });
        newItems.push({ marker: m, kind: 'tool', toolCallId: call.id, text: content, summary: summary ?? defaultCompactSummary(content) });
      }
      answer = await send({ tool_results: results }, newItems);
      assert.equal(answer.reply.tool_calls, undefined);
      assert.equal(typeof answer.reply.content, 'string');
    }
  }
  return { session, items, answeredAt };
}

const text = (content) => (typeof content === 'string' ? content : (content ?? []).map((p) => p.text ?? '').join(''));

/** Checks every chat request of a session against what the client had sent by then. */
function checkRequests(run) {
  const chats = upstream.requests.filter((r) => r.kind === 'chat' && r.session === run.session);
  // Counts of (request, client message) pairs checked, by the form the message had in the request.
  const figures = { requests: chats.length, maxTokens: 0, maxPromptTokens: 0, verbatim: 0, asCompactSummary: 0, inLlmSummary: 0, withSummary: 0 };
  const byMarker = new Map(run.items.map((it) => [it.marker, it]));
  chats.forEach((req, r) => {
    const where = `${run.session} request #${r}`;
    assert.equal(req.status, 200, `${where}: upstream refused it (${req.status})`);
    const { messages, max_tokens: maxTokens } = req.body;
    assert.ok(req.promptTokens + maxTokens <= CONTEXT_LIMIT, `${where}: ${req.promptTokens} prompt + ${maxTokens} max_tokens > ${CONTEXT_LIMIT}`);
    figures.maxTokens = Math.max(figures.maxTokens, req.promptTokens + maxTokens);
    figures.maxPromptTokens = Math.max(figures.maxPromptTokens, req.promptTokens);

    assert.deepEqual(openAIPairingProblems(messages), [], `${where}: wire-format pairing`);
    assert.deepEqual(validateToolPairs(fromOpenAI(messages).messages), [], `${where}: validateToolPairs`);

    assert.equal(messages[0].role, 'system');
    assert.equal(messages[0].content, SYSTEM_PROMPT);
    const summaries = messages.filter((m) => m.role === 'user' && text(m.content).startsWith(SUMMARY_PREFIX));
    assert.ok(summaries.length <= 1, `${where}: ${summaries.length} summary messages`);
    if (summaries.length === 1) {
      assert.equal(messages[1], summaries[0], `${where}: the summary is not the first message`);
      figures.withSummary += 1;
    }
    const covered = summaries.length ? markersIn(text(summaries[0].content)) : new Set();

    // Where each marker appears outside the summary, and in which form.
    const present = [];
    for (const m of messages.slice(1)) {
      if (summaries.includes(m)) continue;
      const found = [...markersIn(text(m.content))];
      if (m.role === 'assistant') {
        assert.deepEqual(found, [], `${where}: a marker in an assistant message`);
        continue;
      }
      assert.ok(found.length <= 1, `${where}: several markers in one message`);
      if (found.length === 0) continue;
      const item = byMarker.get(found[0]);
      assert.ok(item, `${where}: marker m${found[0]} was not sent in this session`);
      if (m.role === 'user') {
        assert.equal(item.kind, 'user');
        assert.equal(m.content, item.text, `${where}: user message m${item.marker} altered`);
        figures.verbatim += 1;
      } else {
        assert.equal(m.role, 'tool');
        assert.equal(item.kind, 'tool');
        assert.equal(m.tool_call_id, item.toolCallId);
        if (m.content === item.text) figures.verbatim += 1;
        else {
          assert.equal(m.content, item.summary, `${where}: tool result m${item.marker} neither verbatim nor its compact summary`);
          figures.asCompactSummary += 1;
        }
      }
      present.push(item.marker);
    }
    assert.equal(new Set(present).size, present.length, `${where}: a message sent twice`);
    const sent = run.items.filter((it) => it.from <= r).map((it) => it.marker);
    const order = sent.filter((mk) => present.includes(mk));
    assert.deepEqual(present, order, `${where}: messages out of order`);
    for (const mk of sent) {
      const inSummary = covered.has(mk);
      const there = present.includes(mk);
      assert.ok(there || inSummary, `${where}: message m${mk} (${byMarker.get(mk).kind}) lost: neither in the request nor in its summary`);
      assert.ok(!(there && inSummary), `${where}: message m${mk} both in the summary and in the request`);
      if (inSummary) figures.inLlmSummary += 1;
    }
    // The summary covers the oldest messages only: what is present is an unbroken
    // tail of what was sent, plus older user messages kept verbatim after the summary.
    let tail = sent.length;
    while (tail > 0 && present.includes(sent[tail - 1])) tail -= 1;
    for (const mk of sent.slice(0, tail).filter((m) => present.includes(m))) {
      assert.equal(byMarker.get(mk).kind, 'user', `${where}: a gap after the summary (m${mk} is no kept user message)`);
    }
    for (const mk of covered) assert.ok(byMarker.has(mk), `${where}: the summary covers m${mk}, not of this session`);
  });
  return figures;
}

/** Checks that each summary was released by chat progress, and counts what was answered meanwhile. */
function checkInFlight(run, otherRuns) {
  const mine = upstream.requests.filter((r) => r.session === run.session);
  const summaries = mine.filter((r) => r.kind === 'summary');
  let answeredDuring = 0;
  let otherAnsweredDuring = 0;
  let pending = 0;
  summaries.forEach((s, n) => {
    const clientDone = run.answeredAt[run.answeredAt.length - 1];
    if (n === summaries.length - 1 && (s.releasedBy === undefined || clientDone < s.respondedAt)) {
      // Still held when the client had finished (so no more chat requests could
      // release it): nothing to check. A server that waited for it could not
      // have finished answering the client.
      pending += 1;
      return;
    }
    assert.equal(s.releasedBy, 'chat', `${run.session} summary #${n} released by ${s.releasedBy}: the server waited for it`);
    const during = mine.filter((r) => r.kind === 'chat' && r.receivedAt > s.receivedAt && r.respondedAt < s.respondedAt);
    assert.ok(during.length >= holdSummary(n), `${run.session} summary #${n}: ${during.length} chat requests answered while pending`);
    const clientSaw = run.answeredAt.filter((t) => t > s.receivedAt && t < s.respondedAt).length;
    assert.ok(clientSaw >= 1, `${run.session} summary #${n}: the client got no answer while it was pending`);
    answeredDuring += clientSaw;
    otherAnsweredDuring += otherRuns.flatMap((o) => o.answeredAt).filter((t) => t > s.receivedAt && t < s.respondedAt).length;
  });
  assert.ok(pending <= 1);
  return { summaries: summaries.length - pending, pendingAtEnd: pending, answeredDuring, otherAnsweredDuring };
}

test('a long agent session: compaction, every request within the window, paired, nothing lost, answers while summarizing', async () => {
  const started = performance.now();
  const server = await createAgentServer({
    upstreamBaseURL: upstream.baseURL, apiKey: upstream.apiKey, model: 'mock-agent', contextLimit: CONTEXT_LIMIT,
    maxOutputTokens: MAX_OUTPUT_TOKENS, strategy: 'llm', threshold: 0.6, keepRecentTurns: 3, systemPrompt: SYSTEM_PROMPT, tools: TOOLS,
  });
  try {
    const [alpha, beta] = await Promise.all([drive(server.url, 'alpha', 300), drive(server.url, 'beta', 120)]);
    const figures = {};
    for (const [run, other] of [[alpha, beta], [beta, alpha]]) {
      const requests = checkRequests(run);
      const flight = checkInFlight(run, [other]);
      const state = await (await fetch(`${server.url}/sessions/${run.session}?messages=1`)).json();
      const llm = state.stats.compactions.filter((c) => c.strategy === 'llm' && c.type === 'compaction');
      figures[run.session] = {
        userTurns: run.items.filter((it) => it.kind === 'user').length, toolResults: run.items.filter((it) => it.kind === 'tool').length,
        chatRequests: requests.requests, maxPromptTokens: requests.maxPromptTokens, maxPromptPlusMaxTokens: requests.maxTokens,
        summaries: flight.summaries, summaryPendingAtEnd: flight.pendingAtEnd, llmCompactionsApplied: llm.length,
        requestsWithSummary: requests.withSummary, compactedCopiesSent: state.stats.compactedViews, waitedForSummary: state.stats.waitedForSummary,
        answeredWhileSummarizing: flight.answeredDuring, otherSessionAnsweredWhileSummarizing: flight.otherAnsweredDuring,
        checked: { verbatim: requests.verbatim, asCompactSummary: requests.asCompactSummary, inLlmSummary: requests.inLlmSummary },
        finalMessages: state.messages,
      };
      assert.ok(flight.summaries >= 3, `${run.session}: only ${flight.summaries} summaries`);
      // Every summary answered was applied (the last may have landed after the client finished).
      assert.ok(llm.length >= flight.summaries && llm.length <= flight.summaries + flight.pendingAtEnd, `${run.session}: ${llm.length} summaries applied`);
      assert.deepEqual(state.stats.compactions.filter((c) => c.error), [], `${run.session}: failed compactions`);
      assert.equal(state.summaries, 1);
      assert.deepEqual(validateToolPairs(state.conversation), []);
      assert.ok(requests.inLlmSummary > 0 && requests.asCompactSummary > 0);
    }
    // The first summary was held for 24 chat requests: the context passed the
    // limit meanwhile, so requests went out as compacted copies, without waiting.
    assert.ok(figures.alpha.compactedCopiesSent > 0, 'no compacted copy was ever sent');
    assert.equal(figures.alpha.waitedForSummary, 0);
    assert.ok(figures.alpha.otherSessionAnsweredWhileSummarizing > 0, 'no other session was answered while alpha was summarizing');
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`agent server: window ${CONTEXT_LIMIT} tokens (prompt budget ${CONTEXT_LIMIT - MAX_OUTPUT_TOKENS}), ${seconds} s\n${JSON.stringify(figures, null, 1)}`);
  } finally {
    await server.close();
  }
});

test('threshold strategy: tool results of old turns become their compact summaries, every request within the window', async () => {
  const server = await createAgentServer({
    upstreamBaseURL: upstream.baseURL, apiKey: upstream.apiKey, model: 'mock-agent', contextLimit: CONTEXT_LIMIT,
    maxOutputTokens: MAX_OUTPUT_TOKENS, strategy: 'threshold', systemPrompt: SYSTEM_PROMPT, tools: TOOLS,
  });
  try {
    // Without LLM summaries nothing shrinks the user messages: 40 turns fit.
    const run = await drive(server.url, 'gamma', 40);
    const figures = checkRequests(run);
    const state = await (await fetch(`${server.url}/sessions/gamma`)).json();
    const threshold = state.stats.compactions.filter((c) => c.strategy === 'threshold' && c.type === 'compaction');
    assert.ok(threshold.length > 0, 'no threshold compaction');
    assert.ok(figures.asCompactSummary > 0);
    assert.equal(figures.inLlmSummary, 0);
    assert.equal(upstream.requests.filter((r) => r.session === 'gamma' && r.kind === 'summary').length, 0);

    // A message that cannot fit even after compaction is refused before the
    // upstream sees it, and taken back: the session goes on.
    const sent = upstream.requests.length;
    const huge = await post(server.url, 'gamma', { message: 'x '.repeat(CONTEXT_LIMIT) });
    assert.equal(huge.status, 413, JSON.stringify(huge.json));
    assert.equal(huge.json.error.code, 'CONTEXT_FULL');
    assert.equal(upstream.requests.length, sent, 'the oversized request reached the upstream');
    const after = await (await fetch(`${server.url}/sessions/gamma`)).json();
    assert.equal(after.turns, 40);
    const ok = await post(server.url, 'gamma', { message: 'a short one' });
    assert.equal(ok.status, 200, JSON.stringify(ok.json));
    const last = upstream.requests.at(-1);
    assert.ok(last.promptTokens + last.body.max_tokens <= CONTEXT_LIMIT);
    assert.ok(!last.body.messages.some((m) => m.content === huge), 'the refused message was sent later');
    assert.equal(last.body.messages.at(-1).content, 'a short one');
  } finally {
    await server.close();
  }
});

test('errors: 400 with code and path for bad input, 404, 502 when the upstream fails; the session goes on', async () => {
  const server = await createAgentServer({
    upstreamBaseURL: upstream.baseURL, apiKey: upstream.apiKey, model: 'mock-agent', contextLimit: CONTEXT_LIMIT,
    maxOutputTokens: MAX_OUTPUT_TOKENS, systemPrompt: SYSTEM_PROMPT,
  });
  const before = upstream.requests.length;
  const expectError = async (body, status, code, path, session = 'delta') => {
    const r = await post(server.url, session, body);
    assert.equal(r.status, status, JSON.stringify(r.json));
    assert.equal(r.json.error.code, code);
    if (path !== undefined) assert.equal(r.json.error.path, path);
    assert.equal(typeof r.json.error.message, 'string');
    return r.json.error;
  };
  try {
    await expectError('{not json', 400, 'INVALID_INPUT', 'body');
    await expectError({ message: 42 }, 400, 'INVALID_INPUT', 'message');
    await expectError({ text: 'hi' }, 400, 'INVALID_INPUT', 'text');
    await expectError({ tool_results: [{ tool_call_id: 'call_x', content: 'x' }] }, 400, 'INVALID_INPUT', 'tool_results');
    await expectError({ message: 'hi' }, 400, 'INVALID_INPUT', 'session', 'bad%20id');
    assert.equal(upstream.requests.length, before, 'bad input reached the upstream');

    const asked = await post(server.url, 'delta', { message: 'please run 2 tools' });
    assert.equal(asked.status, 200);
    const [c1, c2] = asked.json.reply.tool_calls;
    await expectError({ message: 'and now?' }, 400, 'INVALID_INPUT', 'tool_results');
    await expectError({ tool_results: [{ tool_call_id: 'call_nope', content: 'x' }] }, 400, 'INVALID_INPUT', 'tool_results[0].tool_call_id');
    await expectError({ tool_results: [{ tool_call_id: c1.id, content: 'x' }] }, 400, 'INVALID_INPUT', 'tool_results');
    await expectError({ tool_results: [{ tool_call_id: c1.id, content: 'x' }, { tool_call_id: c2.id, content: 7 }] }, 400, 'INVALID_INPUT', 'tool_results[1].content');

    upstream.failNext(1, 500);
    const failed = await expectError({ tool_results: [{ tool_call_id: c1.id, content: 'a' }, { tool_call_id: c2.id, content: 'b' }] }, 502, 'UPSTREAM_ERROR');
    assert.match(failed.message, /500/);
    assert.ok(!failed.message.includes(upstream.apiKey));
    // The results were kept: the conversation goes on from them.
    const next = await post(server.url, 'delta', { message: 'did it work?' });
    assert.equal(next.status, 200, JSON.stringify(next.json));
    const last = upstream.requests.filter((r) => r.session === 'delta' && r.kind === 'chat').at(-1);
    assert.deepEqual(openAIPairingProblems(last.body.messages), []);
    assert.deepEqual(last.body.messages.slice(-4).map((m) => m.role), ['assistant', 'tool', 'tool', 'user']);

    assert.equal((await fetch(`${server.url}/sessions/nope`)).status, 404);
    assert.equal((await fetch(`${server.url}/elsewhere`)).status, 404);
    const state = await (await fetch(`${server.url}/sessions/delta`)).json();
    assert.equal(state.turns, 2);
    assert.deepEqual(state.pendingToolCalls, []);
    assert.equal((await fetch(`${server.url}/sessions/delta`, { method: 'DELETE' })).status, 200);
    assert.equal((await fetch(`${server.url}/sessions/delta`)).status, 404);
  } finally {
    await server.close();
  }
  // An unreachable upstream is a 502 too.
  const dead = await createAgentServer({ upstreamBaseURL: 'http://127.0.0.1:9/v1', apiKey: 'k', contextLimit: CONTEXT_LIMIT, maxOutputTokens: MAX_OUTPUT_TOKENS });
  try {
    const r = await post(dead.url, 'epsilon', { message: 'hello' });
    assert.equal(r.status, 502);
    assert.equal(r.json.error.code, 'UPSTREAM_UNREACHABLE');
  } finally {
    await dead.close();
  }
});
