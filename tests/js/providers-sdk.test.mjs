// The same local server driven by the official npm clients (`openai`,
// `@anthropic-ai/sdk`), each wrapped as a `summarize` callback the way a user
// would write it, and used through LlmCompactor / ContextManager.
import { test, before, after, beforeEach, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { LlmCompactor, ContextManager, CompactionError, DEFAULT_SUMMARY_PROMPT, estimateTokens, fromAnthropic } from 'context-compactor';
import { start, DEFAULT_SUMMARY_TEXT } from './support/llm-server.mjs';
import { loadConversation } from './support/conversations.mjs';

/** The specification's shape: no user message kept after the summary (kept ones: agent-sessions.test.mjs). */
const SPEC = { keepUserMessagesTokens: 0 };

const SUMMARY_PREFIX = '[Previous conversation summary]: ';
const API_KEY = 'sk-sdk-test-key-0123456789';
const { messages: CONVERSATION } = fromAnthropic(loadConversation('tools.function_calling_simple.demonstrations.anthropic.json'));

const versionOf = (pkg) => JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;

let server;
before(async () => { server = await start(); });
after(async () => { await server.stop(); });
beforeEach(() => server.reset());

const clients = {
  openai: {
    version: versionOf('openai'),
    path: '/v1/chat/completions',
    model: 'gpt-sdk-test',
    summarize() {
      // As a user writes it.
      const client = new OpenAI({ apiKey: API_KEY, baseURL: `${server.baseURL}/v1`, maxRetries: 0 });
      return async ({ system, prompt, maxTokens, signal }) => {
        const completion = await client.chat.completions.create({
          model: 'gpt-sdk-test',
          max_tokens: maxTokens,
          messages: [{ role: 'system', content: system }, { role: 'user', content: prompt }],
        }, { signal });
        return completion.choices[0].message.content ?? '';
      };
    },
    parts: (body) => [body.messages[0].content, body.messages[1].content, body.max_tokens],
    auth: (h) => assert.equal(h.authorization, `Bearer ${API_KEY}`),
    errorClass: OpenAI.APIError,
  },
  anthropic: {
    version: versionOf('@anthropic-ai/sdk'),
    path: '/v1/messages',
    model: 'claude-sdk-test',
    summarize() {
      const client = new Anthropic({ apiKey: API_KEY, baseURL: server.baseURL, maxRetries: 0 });
      return async ({ system, prompt, maxTokens, signal }) => {
        const message = await client.messages.create({
          model: 'claude-sdk-test',
          max_tokens: maxTokens ?? 2048,
          system,
          messages: [{ role: 'user', content: prompt }],
        }, { signal });
        return message.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
      };
    },
    parts: (body) => [body.system, body.messages[0].content, body.max_tokens],
    // Anthropic SDK 1.x sends the key as `authorization: Bearer` (0.x sent `x-api-key`): accept either.
    auth: (h) => {
      assert.ok(h['x-api-key'] === API_KEY || h.authorization === `Bearer ${API_KEY}`, `no API key in ${JSON.stringify(h)}`);
      assert.ok(h['anthropic-version']);
    },
    errorClass: Anthropic.APIError,
  },
};

async function rejection(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('expected a rejection');
}

for (const [name, c] of Object.entries(clients)) {
  describe(`${name} SDK ${c.version} as the summarize callback`, () => {
    test('success: the server receives model, max_tokens, system prompt and transcript; summary message', async () => {
      server.setMode('success', { text: DEFAULT_SUMMARY_TEXT });
      const { messages } = await new LlmCompactor({ ...SPEC, summarize: c.summarize(), keepRecentTurns: 1, maxSummaryTokens: 512 }).compact(CONVERSATION);
      assert.equal(server.requests.length, 1);
      const [req] = server.requests;
      assert.equal(req.method, 'POST');
      assert.equal(req.url.split('?')[0], c.path);
      c.auth(req.headers);
      assert.equal(req.body.model, c.model);
      const [system, prompt, maxTokens] = c.parts(req.body);
      assert.equal(system, DEFAULT_SUMMARY_PROMPT);
      assert.equal(maxTokens, 512);
      assert.ok(prompt.startsWith('Summarize this conversation'));
      assert.ok(prompt.includes("User: We're currently solving the following issue within our repository."));
      const summarized = CONVERSATION.slice(0, CONVERSATION.length - messages.length + 1);
      for (const b of summarized.flatMap((m) => m.content)) {
        if (b.type === 'tool_use') assert.ok(prompt.includes(`[Called tool: ${b.name}]`), `tool call ${b.id} missing from the transcript`);
        if (b.type === 'tool_result') assert.ok(prompt.includes(`[Tool result: ${b.tool_use_id}]`), `tool result ${b.tool_use_id} missing`);
      }
      assert.equal(messages[0].content[0].text, SUMMARY_PREFIX + DEFAULT_SUMMARY_TEXT);
      assert.deepEqual(messages[0].summary_of?.messages, summarized.length);
      assert.deepEqual(messages.slice(1), CONVERSATION.slice(summarized.length));
    });

    test('HTTP 500 → LLM_ERROR with the SDK error as .cause', async () => {
      server.setMode('error', { status: 500, echoKey: false });
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: c.summarize(), keepRecentTurns: 1 }).compact(CONVERSATION));
      assert.ok(err instanceof CompactionError, `not a CompactionError: ${err}`);
      assert.equal(err.code, 'LLM_ERROR');
      assert.ok(err.cause instanceof c.errorClass, `cause is not the SDK's APIError: ${err.cause}`);
      assert.equal(err.cause.status, 500);
      assert.match(err.message, /Internal server error/, 'the SDK error message should be in the CompactionError message');
      assert.equal(server.requests.length, 1, 'maxRetries: 0 should mean one request');
    });

    test('HTTP 429 → LLM_ERROR (maxRetries 0: no retry)', async () => {
      server.setMode('error', { status: 429, echoKey: false });
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: c.summarize(), keepRecentTurns: 1 }).compact(CONVERSATION));
      assert.equal(err.code, 'LLM_ERROR');
      assert.equal(err.cause?.status, 429);
      assert.equal(server.requests.length, 1);
    });

    test('timeout aborts the SDK request: TIMEOUT and the server sees the connection close', async () => {
      server.setMode('slow');
      const t0 = Date.now();
      const err = await rejection(new LlmCompactor({ ...SPEC, summarize: c.summarize(), keepRecentTurns: 1, summaryTimeoutMs: 200 }).compact(CONVERSATION));
      assert.ok(err instanceof CompactionError);
      assert.equal(err.code, 'TIMEOUT');
      assert.ok(Date.now() - t0 < 2000);
      assert.equal(server.requests.length, 1);
      assert.ok(await server.waitForClosed(1, 2000), 'the server never saw the connection close: the SDK request was not aborted');
    });

    test('ContextManager: a 500 resolves an outcome with error LLM_ERROR, conversation unchanged', async () => {
      server.setMode('error', { status: 500 });
      // Above the threshold and within the room: nothing but the summary would change it.
      const contextLimit = Math.ceil(estimateTokens(CONVERSATION) * 1.1);
      const m = new ContextManager({ contextLimit, compactor: { type: 'llm', summarize: c.summarize(), keepRecentTurns: 1 } });
      m.pushMany(CONVERSATION);
      const before = m.messages();
      const outcome = await m.maybeCompact();
      assert.ok(outcome);
      assert.equal(outcome.error?.code, 'LLM_ERROR');
      assert.deepEqual(m.messages(), before);
      server.setMode('success', { text: 'Second try.' });
      // a failed compaction is retried on the next call (or at least can be forced)
      await m.forceCompact();
      assert.equal(m.messages()[0].content[0].text, `${SUMMARY_PREFIX}Second try.`);
      m.free();
    });
  });
}
