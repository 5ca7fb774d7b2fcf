// context-compactor/ai-sdk with the real `ai` package: generateText / streamText tool loops
// of 40 steps against ai/test's MockLanguageModelV4, a tool returning ~4 KB each call. Every
// prompt the model receives is read back with fromVercelAI and checked: within the room,
// the newest tool result verbatim, tool calls and results paired; and the integration pushes
// only the messages new since the last step.
//
//   node --test tests/integrations/ai-sdk.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolLoopAgent, generateText, isStepCount, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { z } from 'zod';
import { estimateTokens, fromVercelAI, offlineSummarizer } from 'context-compactor';
import { compactingMiddleware, compactingPrepareStep } from 'context-compactor/ai-sdk';
import { SUMMARY_PREFIX, checkPrompts, redactedIn, spyOnManagers, toolOutput } from './support.mjs';

const STEPS = 40; // tool calls, then a final answer: 41 model calls
const LIMIT = 16_000;
const RESERVE = 1_000;
const OVERHEAD = 300; // what the provider counts besides the messages (system prompt, tools)
const ROOM = LIMIT - RESERVE;

const tools = {
  read_file: tool({
    description: 'Reads a file of the repository.',
    inputSchema: z.object({ n: z.number() }),
    execute: async ({ n }) => toolOutput(n),
  }),
};

const usage = (input) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 12, text: 12, reasoning: undefined },
});

/**
 * A model that calls read_file `steps` times (call k reads file k), then answers. It reports
 * as input tokens the estimate of the prompt's messages plus OVERHEAD. `calls` holds the
 * package's messages of each prompt, `reported` what it reported.
 */
function mockModel({ steps = STEPS, first = 1 } = {}) {
  const calls = [];
  const reported = [];
  let n = 0;
  const answer = (prompt) => {
    const messages = fromVercelAI(prompt).messages;
    calls.push(messages);
    const input = estimateTokens(messages) + OVERHEAD;
    reported.push(input);
    n += 1;
    return { input, call: n <= steps ? first + n - 1 : null };
  };
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const { input, call } = answer(prompt);
      return call !== null
        ? { content: [{ type: 'text', text: `Reading file ${call}.` }, { type: 'tool-call', toolCallId: `call_${call}`, toolName: 'read_file', input: JSON.stringify({ n: call }) }],
          finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(input), warnings: [] }
        : { content: [{ type: 'text', text: 'Done: every file read.' }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(input), warnings: [] };
    },
    doStream: async ({ prompt }) => {
      const { input, call } = answer(prompt);
      const chunks = call !== null
        ? [{ type: 'tool-call', toolCallId: `call_${call}`, toolName: 'read_file', input: JSON.stringify({ n: call }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(input) }]
        : [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Done: every file read.' }, { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: usage(input) }];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: null }) };
    },
  });
  return { model, calls, reported };
}

/** The newest tool output each call had seen (none before the first call of the loop). */
const seen = (count, first = 1) => Array.from({ length: count }, (_, k) => (k === 0 ? undefined : toolOutput(first + k - 1)));

const options = { contextLimit: LIMIT, reserveTokens: RESERVE };

test(`prepareStep: a ${STEPS}-step generateText tool loop stays within the limit, the newest step intact`, async (t) => {
  const { model, calls, reported } = mockModel();
  const events = [];
  const prepareStep = compactingPrepareStep({ ...options, onEvent: (e) => events.push(e) });
  const { result, pushed, used } = await spyOnManagers(() => generateText({
    model, instructions: 'You read files.', prompt: 'Read files 1 to 40.', tools, stopWhen: isStepCount(STEPS + 5), prepareStep,
  }));
  assert.equal(result.text, 'Done: every file read.');
  assert.equal(calls.length, STEPS + 1);
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  assert.ok(calls.some((m) => redactedIn(m) > 0), 'old tool results were redacted');
  assert.ok(events.filter((e) => e.type === 'compaction').length >= 3, 'it compacted, more than once');
  const total = estimateTokens(fromVercelAI([{ role: 'user', content: 'x' }, ...result.responseMessages]).messages);
  assert.ok(total > 2 * LIMIT, `the loop's conversation (${total} tokens) is far over the limit`);
  // Only what is new: the task first, then an assistant message and its tool result per step.
  assert.deepEqual(pushed, [1, ...Array(STEPS).fill(2)]);
  // The previous step's usage.inputTokens is the provider's count.
  assert.deepEqual(used, reported.slice(0, STEPS));
  assert.ok(prepareStep.manager.fits);
  t.diagnostic(`generateText: ${calls.length} model calls, peak prompt ${peak} tokens (room ${ROOM}, limit ${LIMIT}), conversation ${total} tokens, ${events.filter((e) => e.type === 'compaction').length} compactions`);
  prepareStep.free();
});

test('prepareStep: streamText, the same loop', async (t) => {
  const { model, calls } = mockModel();
  const prepareStep = compactingPrepareStep(options);
  const result = streamText({ model, prompt: 'Read files 1 to 40.', tools, stopWhen: isStepCount(STEPS + 5), prepareStep });
  assert.equal(await result.text, 'Done: every file read.');
  assert.equal(calls.length, STEPS + 1);
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  assert.ok(calls.some((m) => redactedIn(m) > 0));
  t.diagnostic(`streamText: ${calls.length} model calls, peak prompt ${peak} tokens (room ${ROOM})`);
  prepareStep.free();
});

test('prepareStep: a ToolLoopAgent, the same loop', async (t) => {
  const { model, calls } = mockModel();
  const prepareStep = compactingPrepareStep(options);
  const agent = new ToolLoopAgent({ model, instructions: 'You read files.', tools, stopWhen: isStepCount(STEPS + 5), prepareStep });
  const result = await agent.generate({ prompt: 'Read files 1 to 40.' });
  assert.equal(result.text, 'Done: every file read.');
  assert.equal(calls.length, STEPS + 1);
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  assert.ok(calls.some((m) => redactedIn(m) > 0));
  t.diagnostic(`ToolLoopAgent: ${calls.length} model calls, peak prompt ${peak} tokens (room ${ROOM})`);
  prepareStep.free();
});

test('prepareStep: a second generateText with the uncompacted history goes on with the same manager', async () => {
  const prepareStep = compactingPrepareStep(options);
  const first = mockModel({ steps: 20 });
  const history = [{ role: 'user', content: 'Read files 1 to 20.' }];
  const r1 = await generateText({ model: first.model, messages: history, tools, stopWhen: isStepCount(30), prepareStep });
  const manager = prepareStep.manager;
  // The app keeps the full history: its messages, the response messages, the next question.
  history.push(...r1.responseMessages, { role: 'user', content: 'Now files 21 to 40.' });
  const second = mockModel({ steps: 20, first: 21 });
  const { pushed } = await spyOnManagers(() => generateText({ model: second.model, messages: history, tools, stopWhen: isStepCount(30), prepareStep }));
  assert.equal(prepareStep.manager, manager, 'not started again');
  assert.deepEqual(pushed, [2, ...Array(20).fill(2)], 'the first step pushes the last answer and the question, no more');
  const room = checkPrompts(second.calls, { results: [undefined, ...seen(21, 21).slice(1)], room: ROOM });
  assert.ok(room <= ROOM);
  assert.ok(redactedIn(second.calls[0]) > 0, 'the first call of the second loop is sent compacted');
  assert.equal(second.calls[0].at(-1).content[0].text, 'Now files 21 to 40.');
  prepareStep.free();
});

test('prepareStep: LLM compaction (the offline summarizer) keeps the task and the newest steps', async (t) => {
  const { model, calls } = mockModel();
  const prepareStep = compactingPrepareStep({
    ...options, compactor: { type: 'llm', summarize: offlineSummarizer(), keepRecentTurns: 3, fallback: { toolCompaction: 'redact' } },
  });
  const r = await generateText({ model, prompt: 'Read files 1 to 40.', tools, stopWhen: isStepCount(STEPS + 5), prepareStep });
  assert.equal(r.text, 'Done: every file read.');
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  const summarized = calls.filter((m) => m[0].content[0]?.text?.startsWith(SUMMARY_PREFIX));
  assert.ok(summarized.length > 0, 'later prompts start with the summary');
  for (const m of summarized) assert.equal(m[1].content[0].text, 'Read files 1 to 40.', 'the task verbatim after the summary');
  t.diagnostic(`LLM compaction: ${calls.length} model calls, peak prompt ${peak} tokens (room ${ROOM}), ${summarized.length} prompts after a summary`);
  prepareStep.free();
});

test('prepareStep: options are checked at once', () => {
  assert.throws(() => compactingPrepareStep({ contextLimit: 0 }), { name: 'CompactionError', code: 'INVALID_INPUT' });
  assert.throws(() => compactingPrepareStep({ contextLimit: 1000, limit: 2 }), { code: 'INVALID_INPUT' });
  assert.throws(() => compactingPrepareStep({ contextLimit: 1000, threshold: 0.5, compactor: { type: 'threshold', threshold: 0.6 } }), TypeError);
  const p = compactingPrepareStep({ contextLimit: 1000, threshold: 0.5 });
  assert.ok(p.manager.fits);
  p.free();
});

for (const mode of ['generate', 'stream']) {
  test(`middleware: a ${STEPS}-step ${mode === 'generate' ? 'generateText' : 'streamText'} loop through wrapLanguageModel`, async (t) => {
    const { model, calls, reported } = mockModel();
    const middleware = compactingMiddleware(options);
    const wrapped = wrapLanguageModel({ model, middleware });
    const run = { model: wrapped, instructions: 'You read files.', prompt: 'Read files 1 to 40.', tools, stopWhen: isStepCount(STEPS + 5) };
    const { pushed, used } = await spyOnManagers(async () => {
      if (mode === 'generate') return (await generateText(run)).text;
      return streamText(run).text;
    });
    assert.equal(calls.length, STEPS + 1);
    const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
    assert.ok(calls.some((m) => redactedIn(m) > 0));
    // The loop does not keep the middleware's prompt: each call compares the prompt with the
    // last one's and pushes only what follows it.
    assert.deepEqual(pushed, [1, ...Array(STEPS).fill(2)]);
    assert.deepEqual(used, reported.slice(0, STEPS), `wrap${mode === 'generate' ? 'Generate' : 'Stream'} read the usage`);
    for (const c of model[mode === 'generate' ? 'doGenerateCalls' : 'doStreamCalls']) {
      assert.deepEqual(c.prompt[0], { role: 'system', content: 'You read files.' });
      for (const m of c.prompt) if (m.role !== 'system') assert.ok(Array.isArray(m.content), 'a LanguageModelV4 prompt');
    }
    t.diagnostic(`middleware (${mode}): ${calls.length} model calls, peak prompt ${peak} tokens (room ${ROOM})`);
    middleware.free();
  });
}
