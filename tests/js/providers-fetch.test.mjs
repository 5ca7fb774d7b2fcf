// openAISummarizer / anthropicSummarizer over the global fetch, against a real HTTP
// server on 127.0.0.1 (tests/js/support/llm-server.mjs) speaking both wire formats.
import { test, before, after, beforeEach, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  LlmCompactor, ContextManager, CompactionError, DEFAULT_SUMMARY_PROMPT,
  openAISummarizer, anthropicSummarizer, fromAnthropic,
} from 'context-compactor';
import { start, DEFAULT_SUMMARY_TEXT } from './support/llm-server.mjs';
import { loadConversation } from './support/conversations.mjs';

/** The specification's shape: no user message kept after the summary (kept ones: agent-sessions.test.mjs). */
const SPEC = { keepUserMessagesTokens: 0 };

const SUMMARY_PREFIX = '[Previous conversation summary]: ';
const API_KEY = 'sk-test-SECRET-4f9c2a71e8b3d6057/abc';
const MODEL_OPENAI = 'gpt-test-mini';
const MODEL_ANTHROPIC = 'claude-test-haiku';
const TRANSCRIPT = 'text.networking_1.misc.anthropic.json';

const { messages: CONVERSATION } = fromAnthropic(loadConversation(TRANSCRIPT));

let server;
before(async () => { server = await start(); });
after(async () => { await server.stop(); });
beforeEach(() => server.reset());

const providers = {
  openai: {
    path: '/v1/chat/completions',
    make: (extra = {}) => openAISummarizer({ baseURL: `${server.baseURL}/v1`, apiKey: API_KEY, model: MODEL_OPENAI, ...extra }),
    model: MODEL_OPENAI,
    checkAuth(headers) {
      assert.equal(headers.authorization, `Bearer ${API_KEY}`);
      assert.equal(headers['x-api-key'], undefined, 'OpenAI request should not carry x-api-key');
    },
    /** [system, prompt, max_tokens] from a request body. */
    parts(body) {
      assert.ok(Array.isArray(body.messages), 'messages array');
      assert.equal(body.messages.length, 2);
      assert.equal(body.messages[0].role, 'system');
      assert.equal(body.messages[1].role, 'user');
      return [body.messages[0].content, body.messages[1].content, body.max_tokens];
    },
  },
  anthropic: {
    path: '/v1/messages',
    make: (extra = {}) => anthropicSummarizer({ baseURL: server.baseURL, apiKey: API_KEY, model: MODEL_ANTHROPIC, ...extra }),
    model: MODEL_ANTHROPIC,
    checkAuth(headers) {
      assert.equal(headers['x-api-key'], API_KEY);
      assert.equal(headers['anthropic-version'], '2023-06-01');
      assert.equal(headers.authorization, undefined, 'Anthropic request should not carry authorization');
    },
    parts(body) {
      assert.ok(Array.isArray(body.messages), 'messages array');
      assert.equal(body.messages.length, 1);
      assert.equal(body.messages[0].role, 'user');
      return [body.system, body.messages[0].content, body.max_tokens];
    },
  },
};

/** The first text of the message at `index`, as the transcript prompt shows it (first line). */
function firstLineOf(msg) {
  const t = msg.content.find((b) => b.type === 'text')?.text ?? '';
  return t.split('\n').find((l) => l.trim().length > 20)?.trim() ?? t.slice(0, 40);
}

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

function assertNoKey(err) {
  assert.ok(!String(err.message).includes(API_KEY), `API key leaked in message: ${err.message}`);
  assert.ok(!String(err.message).includes('SECRET-4f9c2a71'), `part of the API key leaked: ${err.message}`);
  assert.ok(!String(err.stack ?? '').includes(API_KEY), 'API key leaked in stack');
}

for (const [name, p] of Object.entries(providers)) {
  describe(`${name}Summarizer over fetch`, () => {
    test('success with defaults: request shape, auth, model, max_tokens 2048, default prompt, transcript; summary message', async () => {
      server.setMode('success', { text: `  ${DEFAULT_SUMMARY_TEXT}\n` });
      const before = structuredClone(CONVERSATION);
      const { messages, result } = await new LlmCompactor({ ...SPEC, summarize: p.make(), keepRecentTurns: 1 }).compact(CONVERSATION);
      assert.deepEqual(CONVERSATION, before, 'input modified');

      assert.equal(server.requests.length, 1);
      const [req] = server.requests;
      assert.equal(req.method, 'POST');
      assert.equal(req.url, p.path);
      assert.match(req.headers['content-type'] ?? '', /^application\/json/);
      p.checkAuth(req.headers);
      assert.ok(req.body, `body is not JSON: ${req.raw.slice(0, 100)}`);
      assert.equal(req.body.model, p.model);
      const [system, prompt, maxTokens] = p.parts(req.body);
      assert.equal(maxTokens, 2048);
      assert.equal(system, DEFAULT_SUMMARY_PROMPT);
      assert.equal(typeof prompt, 'string');
      assert.ok(prompt.startsWith('Summarize this conversation'), prompt.slice(0, 60));

      // What was summarized is in the transcript; what was kept is not.
      const kept = messages.length - 1;
      const summarized = CONVERSATION.slice(0, CONVERSATION.length - kept);
      assert.ok(summarized.length >= 2, 'too little summarized to be meaningful');
      assert.ok(prompt.includes(`User: ${firstLineOf(summarized[0]).slice(0, 60)}`), 'first summarized user text missing');
      const lastSummarized = summarized[summarized.length - 1];
      assert.ok(prompt.includes(firstLineOf(lastSummarized).slice(0, 60)), 'last summarized message text missing');
      const firstKept = CONVERSATION[CONVERSATION.length - kept];
      assert.ok(!prompt.includes(firstLineOf(firstKept)), 'a kept message was sent to the summarizer');

      // The result: summary + the kept messages untouched.
      assert.equal(messages[0].role, 'user');
      assert.deepEqual(messages[0].content, [{ type: 'text', text: SUMMARY_PREFIX + DEFAULT_SUMMARY_TEXT }]);
      assert.deepEqual(messages[0].summary_of?.messages, summarized.length);
      assert.deepEqual(messages.slice(1), CONVERSATION.slice(summarized.length));
      assert.ok(result.turnsCompacted > 0);
    });

    test('success with summarySystemPrompt and maxSummaryTokens', async () => {
      server.setMode('success', { text: 'Custom summary.' });
      const { messages } = await new LlmCompactor({ ...SPEC,
        summarize: p.make(), keepRecentTurns: 1, summarySystemPrompt: 'You summarize CTF sessions.', maxSummaryTokens: 321,
      }).compact(CONVERSATION);
      assert.equal(server.requests.length, 1);
      const [system, prompt, maxTokens] = p.parts(server.requests[0].body);
      assert.equal(system, 'You summarize CTF sessions.');
      assert.equal(maxTokens, 321);
      assert.ok(prompt.startsWith('Summarize this conversation'));
      assert.equal(messages[0].content[0].text, `${SUMMARY_PREFIX}Custom summary.`);
    });

    for (const status of [429, 500]) {
      test(`HTTP ${status} → LLM_ERROR with status, body excerpt, no API key (server echoes it)`, async () => {
        server.setMode('error', { status });
        const err = await rejection(new LlmCompactor({ ...SPEC, summarize: p.make(), keepRecentTurns: 1 }).compact(CONVERSATION));
        assert.ok(err instanceof CompactionError, `not a CompactionError: ${err}`);
        assert.equal(err.name, 'CompactionError');
        assert.equal(err.code, 'LLM_ERROR');
        assert.equal(err.status, status);
        assert.equal(server.requests.length, 1, 'the summarizer should not retry');
        // The server's body really contained the key; the error must quote the body without it.
        const excerpt = status === 429 ? 'Rate limit exceeded' : 'Internal server error';
        assert.ok(err.message.includes(excerpt), `no body excerpt in: ${err.message}`);
        assert.ok(err.message.includes(String(status)), `no status in: ${err.message}`);
        assert.match(err.message, /for API key \S+/, 'the excerpt should include the part of the body around the (scrubbed) key');
        assertNoKey(err);
      });
    }

    test('HTTP 429 without the key in the body: excerpt present, status set', async () => {
      server.setMode('error', { status: 429, echoKey: false });
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: p.make(), keepRecentTurns: 1 }).compact(CONVERSATION));
      assert.equal(err.code, 'LLM_ERROR');
      assert.equal(err.status, 429);
      assert.match(err.message, /Rate limit exceeded/);
      assert.match(err.message, /rate_limit_error/);
    });

    test('malformed JSON body with status 200 → LLM_ERROR', async () => {
      server.setMode('malformed');
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: p.make(), keepRecentTurns: 1 }).compact(CONVERSATION));
      assert.ok(err instanceof CompactionError);
      assert.equal(err.code, 'LLM_ERROR');
      assert.ok(err.status === undefined || err.status === 200, `unexpected status ${err.status}`);
      assertNoKey(err);
    });

    test('empty content → EMPTY_SUMMARY', async () => {
      server.setMode('empty');
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: p.make(), keepRecentTurns: 1 }).compact(CONVERSATION));
      assert.ok(err instanceof CompactionError);
      assert.equal(err.code, 'EMPTY_SUMMARY');
    });

    test('whitespace-only content → EMPTY_SUMMARY', async () => {
      server.setMode('empty', { text: ' \n\t ' });
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: p.make(), keepRecentTurns: 1 }).compact(CONVERSATION));
      assert.equal(err.code, 'EMPTY_SUMMARY');
    });

    test('slow server + summaryTimeoutMs 200 → TIMEOUT, and the server sees the connection closed', async () => {
      server.setMode('slow');
      const t0 = Date.now();
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: p.make(), keepRecentTurns: 1, summaryTimeoutMs: 200 }).compact(CONVERSATION));
      const elapsed = Date.now() - t0;
      assert.ok(err instanceof CompactionError);
      assert.equal(err.code, 'TIMEOUT');
      assert.ok(elapsed >= 150 && elapsed < 2000, `timed out after ${elapsed} ms`);
      assert.equal(server.requests.length, 1, 'the request never reached the server');
      assert.ok(await server.waitForClosed(1, 2000), 'the server never saw the connection close: the request was not aborted');
      assert.ok(server.closedConnections[0].afterMs < 2000);
    });

    test('ContextManager + maybeCompact: success replaces the old turns with the summary', async () => {
      server.setMode('success', { text: 'Manager summary.' });
      const m = new ContextManager({ contextLimit: 1000, compactor: { type: 'llm', summarize: p.make(), keepRecentTurns: 1 } });
      m.pushMany(CONVERSATION);
      assert.ok(m.shouldCompact(), 'the transcript should exceed 75% of 1000 tokens');
      const outcome = await m.maybeCompact();
      assert.ok(outcome, 'no compaction');
      assert.equal(outcome.strategy, 'llm');
      assert.equal(outcome.error, undefined);
      assert.equal(outcome.fallback, false);
      assert.equal(outcome.summaryLength, 'Manager summary.'.length);
      const after = m.messages();
      assert.equal(after[0].content[0].text, `${SUMMARY_PREFIX}Manager summary.`);
      assert.ok(after.length < CONVERSATION.length);
      assert.equal(server.requests.length, 1);
      m.free();
    });

    for (const [mode, options, code] of [
      ['error', { status: 429 }, 'LLM_ERROR'],
      ['error', { status: 500 }, 'LLM_ERROR'],
      ['malformed', {}, 'LLM_ERROR'],
      ['empty', {}, 'EMPTY_SUMMARY'],
      ['slow', {}, 'TIMEOUT'],
    ]) {
      test(`ContextManager + maybeCompact: ${mode} ${options.status ?? ''} → outcome.error ${code}, conversation unchanged`, async () => {
        server.setMode(mode, options);
        const events = [];
        const m = new ContextManager({
          contextLimit: 1000,
          compactor: { type: 'llm', summarize: p.make(), keepRecentTurns: 1, summaryTimeoutMs: 200 },
          onEvent: (e) => events.push(e),
        });
        m.pushMany(CONVERSATION);
        const before = m.messages();
        assert.deepEqual(before, CONVERSATION);
        const outcome = await m.maybeCompact();
        assert.ok(outcome, 'maybeCompact resolved null although the LLM failed');
        assert.ok(outcome.error instanceof CompactionError, `outcome.error: ${outcome.error}`);
        assert.equal(outcome.error.code, code);
        if (options.status) assert.equal(outcome.error.status, options.status);
        assertNoKey(outcome.error);
        assert.deepEqual(m.messages(), before, 'a failed compaction changed the conversation');
        assert.equal(m.isCompacting, false);
        const failed = events.find((e) => e.type === 'compaction_failed');
        assert.ok(failed, `no compaction_failed event in ${events.map((e) => e.type)}`);
        assert.equal(failed.error.code, code);
        assert.ok(!failed.message.includes(API_KEY), 'API key leaked in the event message');
        if (mode === 'slow') assert.ok(await server.waitForClosed(1, 2000), 'the timed-out request was not aborted');
        m.free();
      });
    }

    test('forceCompact rejects with the CompactionError on failure', async () => {
      server.setMode('error', { status: 500 });
      const m = new ContextManager({ contextLimit: 1000, compactor: { type: 'llm', summarize: p.make(), keepRecentTurns: 1 } });
      m.pushMany(CONVERSATION);
      const err = await rejection(m.forceCompact());
      assert.ok(err instanceof CompactionError);
      assert.equal(err.code, 'LLM_ERROR');
      assert.equal(err.status, 500);
      assertNoKey(err);
      assert.deepEqual(m.messages(), CONVERSATION);
      m.free();
    });

    test('extra headers are sent', async () => {
      await new LlmCompactor({ ...SPEC, summarize: p.make({ headers: { 'x-test-header': 'hello' } }), keepRecentTurns: 1 }).compact(CONVERSATION);
      assert.equal(server.requests[0].headers['x-test-header'], 'hello');
      p.checkAuth(server.requests[0].headers);
    });

    test('headers may be a Headers or a Map, as fetch takes them; anything else is refused', async () => {
      for (const headers of [new Headers({ 'x-test-header': 'hello' }), new Map([['x-test-header', 'hello']])]) {
        server.reset();
        await new LlmCompactor({ ...SPEC, summarize: p.make({ headers }), keepRecentTurns: 1 }).compact(CONVERSATION);
        assert.equal(server.requests[0].headers['x-test-header'], 'hello', headers.constructor.name);
      }
      const trap = new Proxy({}, { ownKeys() { throw new Error('trap'); } });
      for (const [headers, path, message] of [
        [[['x-test-header', 'hello']], 'options.headers', /got array/],
        [new Set(['x']), 'options.headers', /got Set/],
        [{ 'x-n': 5 }, 'options.headers.x-n', /expected a string, got number/],
        [new Map([[1, 'x']]), 'options.headers', /strings/],
        [trap, 'options.headers', /could not be read/],
      ]) {
        assert.throws(() => p.make({ headers }), (err) => err instanceof CompactionError && err.code === 'INVALID_INPUT'
          && err.path === path && message.test(err.message), String(path));
      }
    });
  });
}

test('openAISummarizer: baseURL with a trailing slash, no apiKey → no authorization header; temperature sent', async () => {
  const summarize = openAISummarizer({ baseURL: `${server.baseURL}/v1/`, model: 'local-model', temperature: 0.2 });
  const { messages } = await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(CONVERSATION);
  assert.equal(server.requests.length, 1);
  const [req] = server.requests;
  assert.equal(req.url, '/v1/chat/completions');
  assert.equal(req.headers.authorization, undefined);
  assert.equal(req.body.temperature, 0.2);
  assert.equal(req.body.model, 'local-model');
  assert.equal(messages[0].content[0].text, SUMMARY_PREFIX + DEFAULT_SUMMARY_TEXT);
});

test('anthropicSummarizer: a baseURL ending in /v1 does not double it', async () => {
  const summarize = anthropicSummarizer({ baseURL: `${server.baseURL}/v1`, apiKey: API_KEY, model: MODEL_ANTHROPIC });
  await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(CONVERSATION);
  assert.equal(server.requests[0].url, '/v1/messages');
});

test('a custom fetch is used and receives the AbortSignal', async () => {
  const seen = [];
  const myFetch = (url, init) => { seen.push({ url, init }); return fetch(url, init); };
  const summarize = openAISummarizer({ baseURL: `${server.baseURL}/v1`, apiKey: API_KEY, model: MODEL_OPENAI, fetch: myFetch });
  await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(CONVERSATION);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].url, `${server.baseURL}/v1/chat/completions`);
  assert.equal(seen[0].init.method, 'POST');
  assert.ok(seen[0].init.signal instanceof AbortSignal);
  assert.equal(server.requests.length, 1);
});

test('the body goes to fetch as UTF-8 bytes, and text in any script arrives intact', async () => {
  const text = 'Файл не найден — 文件未找到 😀 “quotes” \\ \u2028 end';
  const conversation = CONVERSATION.map((m, i) => (i === 0 ? { ...m, content: [{ type: 'text', text }] } : m));
  for (const [name, p] of Object.entries(providers)) {
    server.reset();
    const bodies = [];
    const summarize = p.make({ fetch: (url, init) => { bodies.push(init.body); return fetch(url, init); } });
    await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(conversation);
    assert.equal(bodies.length, 1, name);
    assert.ok(bodies[0] instanceof Uint8Array, `${name}: body is ${typeof bodies[0]}`);
    const [req] = server.requests;
    assert.equal(new TextDecoder().decode(bodies[0]), req.raw, name);
    const [, prompt] = p.parts(req.body);
    assert.ok(prompt.includes(text), `${name}: ${prompt.slice(0, 200)}`);
  }
});

test('connection refused → LLM_ERROR without the key', async () => {
  // A port nothing listens on: start a server, remember its URL, stop it.
  const dead = await start();
  const url = dead.baseURL;
  await dead.stop();
  const summarize = anthropicSummarizer({ baseURL: url, apiKey: API_KEY, model: MODEL_ANTHROPIC });
  const err = await rejection(new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(CONVERSATION));
  assert.ok(err instanceof CompactionError);
  assert.equal(err.code, 'LLM_ERROR');
  // Node's fetch rejects with a bare "fetch failed": the reason is in its `cause`.
  assert.match(err.message, /^LLM error: fetch failed: connect ECONNREFUSED/, err.message);
  assertNoKey(err);
});

test('a custom fetch that resolves to something else than a Response: LLM_ERROR that says so', async () => {
  for (const [returned, got] of [[{ ok: true }, 'object'], [null, 'null'], [undefined, 'undefined']]) {
    const summarize = openAISummarizer({ baseURL: 'http://127.0.0.1:9/v1', model: MODEL_OPENAI, fetch: async () => returned });
    const err = await rejection(new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(CONVERSATION));
    assert.ok(err instanceof CompactionError);
    assert.equal(err.code, 'LLM_ERROR');
    assert.match(err.message, new RegExp(`fetch resolved to ${got}, expected a Response`), err.message);
  }
});

test('a 307/308 redirect is followed, or the error says why not', async () => {
  // Node 20's fetch cannot send a Uint8Array body a second time (its buffer is
  // detached): it rejects with "fetch failed", the reason in `cause`. Other
  // runtimes follow the redirect. Either way the outcome must be clear.
  const target = await start();
  const { createServer } = await import('node:http');
  const redirect = createServer((req, res) => {
    req.resume();
    req.on('end', () => { res.writeHead(308, { location: `${target.baseURL}${req.url}` }); res.end(); });
  });
  await new Promise((resolve) => redirect.listen(0, '127.0.0.1', resolve));
  try {
    const baseURL = `http://127.0.0.1:${redirect.address().port}`;
    const summarize = openAISummarizer({ baseURL: `${baseURL}/v1`, apiKey: API_KEY, model: MODEL_OPENAI });
    const outcome = await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(CONVERSATION).then(
      (compacted) => ({ compacted }), (error) => ({ error }));
    if (outcome.compacted) {
      assert.equal(target.requests.length, 1);
    } else {
      assert.equal(outcome.error.code, 'LLM_ERROR');
      assert.doesNotMatch(outcome.error.message, /fetch failed$/, outcome.error.message);
      assertNoKey(outcome.error);
    }
  } finally {
    await new Promise((resolve) => redirect.close(resolve));
    await target.stop();
  }
});
