// context-compactor/langchain with the real `langchain` v1: createAgent tool loops of 40
// steps, the model a fake tool-calling chat model (`fakeModel()` of @langchain/core/testing,
// answering through a function of the messages it receives), a tool returning ~4 KB each
// call. What the model receives at each call is read into the package's model (by this
// file's own reading of LangChain messages) and checked as for the other frameworks.
//
//   node --test tests/integrations/langchain.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AIMessage, HumanMessage, createAgent, tool } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { MemorySaver, REMOVE_ALL_MESSAGES } from '@langchain/langgraph';
import { z } from 'zod';
import { estimateTokens, offlineSummarizer } from 'context-compactor';
import { compactingMiddleware } from 'context-compactor/langchain';
import { REDACTED, SUMMARY_PREFIX, checkPrompts, redactedIn, spyOnManagers, toolOutput } from './support.mjs';

const STEPS = 40;
const LIMIT = 16_000;
const RESERVE = 1_000;
const OVERHEAD = 300;
const ROOM = LIMIT - RESERVE;
const options = { contextLimit: LIMIT, reserveTokens: RESERVE };

const text = (content) => (typeof content === 'string' ? content
  : content.map((p) => (typeof p === 'string' ? p : p.text ?? '')).join(''));

/** LangChain messages → the package's model (system messages left out), read independently of the integration. */
function toModel(messages) {
  const out = [];
  for (const m of messages) {
    const type = m.type;
    if (type === 'system') continue;
    if (type === 'tool') {
      const block = { type: 'tool_result', tool_use_id: m.tool_call_id, content: text(m.content) };
      const last = out.at(-1);
      if (last?.role === 'user' && last.content.every((b) => b.type === 'tool_result')) last.content.push(block);
      else out.push({ role: 'user', content: [block] });
    } else if (type === 'ai') {
      out.push({ role: 'assistant', content: [
        ...(text(m.content) ? [{ type: 'text', text: text(m.content) }] : []),
        ...(m.tool_calls ?? []).map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })),
      ] });
    } else {
      out.push({ role: 'user', content: [{ type: 'text', text: text(m.content) }] });
    }
  }
  return out;
}

const readFile = tool(async ({ n }) => toolOutput(n), {
  name: 'read_file', description: 'Reads a file of the repository.', schema: z.object({ n: z.number() }),
});

/**
 * A fake chat model: for each round, calls read_file `round` times (files numbered on from
 * `first`), then answers. `calls` holds what it received, in the package's model.
 */
function chatModel({ rounds = [STEPS], first = 1 } = {}) {
  const model = fakeModel();
  const calls = [];
  const reported = [];
  let n = first;
  for (const steps of rounds) {
    for (let k = 0; k <= steps; k++) {
      const file = k === steps ? null : n++;
      model.respond((messages) => {
        const prompt = toModel(messages);
        calls.push(prompt);
        const input = estimateTokens(prompt) + OVERHEAD;
        reported.push(input);
        const usage_metadata = { input_tokens: input, output_tokens: 12, total_tokens: input + 12 };
        if (file === null) return new AIMessage({ content: 'Done: every file read.', usage_metadata });
        return new AIMessage({ content: `Reading file ${file}.`, tool_calls: [{ id: `call_${file}`, name: 'read_file', args: { n: file }, type: 'tool_call' }], usage_metadata });
      });
    }
  }
  return { model, calls, reported };
}

const seen = (count, first = 1) => Array.from({ length: count }, (_, k) => (k === 0 ? undefined : toolOutput(first + k - 1)));

test(`createAgent: a ${STEPS}-step tool loop stays within the limit, the newest step intact`, async (t) => {
  const { model, calls, reported } = chatModel();
  const events = [];
  const middleware = compactingMiddleware({ ...options, onEvent: (e) => events.push(e) });
  const agent = createAgent({ model, tools: [readFile], middleware: [middleware], systemPrompt: 'You read files.' });
  const task = new HumanMessage('Read files 1 to 40.');
  const { result, pushed, used } = await spyOnManagers(() => agent.invoke({ messages: [task] }, { recursionLimit: 500 }));
  assert.equal(result.messages.at(-1).content, 'Done: every file read.');
  assert.equal(calls.length, STEPS + 1);
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  assert.ok(calls.some((m) => redactedIn(m) > 0), 'old tool results were redacted');
  const compactions = events.filter((e) => e.type === 'compaction').length;
  assert.ok(compactions >= 3);
  assert.deepEqual(pushed, [1, ...Array(STEPS).fill(2)], 'only the messages new since the last model call');
  assert.deepEqual(used, reported.slice(0, STEPS), "the last AIMessage's usage_metadata.input_tokens");
  // The state: every message still there, in order, the old ToolMessages replaced in place.
  const state = result.messages;
  assert.equal(state.length, 1 + 2 * STEPS + 1);
  assert.equal(state[0].id, task.id);
  const tools = state.filter((m) => m.type === 'tool');
  assert.equal(new Set(state.map((m) => m.id)).size, state.length);
  assert.ok(tools.slice(0, 10).every((m) => m.content === REDACTED));
  assert.equal(tools.at(-1).content, toolOutput(STEPS));
  assert.ok(tools.every((m, i) => m.tool_call_id === `call_${i + 1}` && m.name === 'read_file'));
  const total = estimateTokens(toModel(state.map((m) => (m.type === 'tool' ? { ...m, content: toolOutput(Number(m.tool_call_id.slice(5))) } : m))));
  t.diagnostic(`createAgent: ${calls.length} model calls, peak prompt ${peak} tokens (room ${ROOM}, limit ${LIMIT}), conversation ${total} tokens, ${compactions} compactions`);
  middleware.free();
});

test('createAgent: LLM compaction replaces the state with the summary, the task and the newest steps', async (t) => {
  const { model, calls } = chatModel();
  const middleware = compactingMiddleware({
    ...options, compactor: { type: 'llm', summarize: offlineSummarizer(), keepRecentTurns: 3, fallback: { toolCompaction: 'redact' } },
  });
  const agent = createAgent({ model, tools: [readFile], middleware: [middleware] });
  const task = new HumanMessage('Read files 1 to 40.');
  const result = await agent.invoke({ messages: [task] }, { recursionLimit: 500 });
  assert.equal(result.messages.at(-1).content, 'Done: every file read.');
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  const state = result.messages;
  assert.ok(text(state[0].content).startsWith(SUMMARY_PREFIX), 'the state starts with the summary');
  assert.equal(state[1], state.find((m) => m.id === task.id), 'then the task, the same message');
  assert.equal(text(state[1].content), 'Read files 1 to 40.');
  assert.ok(state.length < 1 + 2 * STEPS, 'older steps left the state');
  assert.equal(REMOVE_ALL_MESSAGES, '__remove_all__', 'the integration uses the same marker');
  t.diagnostic(`LLM compaction: ${calls.length} model calls, peak prompt ${peak} tokens (room ${ROOM}), final state ${state.length} messages`);
  middleware.free();
});

test('createAgent: threads (a checkpointer) each keep their own manager', async (t) => {
  const { model, calls } = chatModel({ rounds: [20, 20, 20] });
  const middleware = compactingMiddleware(options);
  const agent = createAgent({ model, tools: [readFile], middleware: [middleware], checkpointer: new MemorySaver() });
  const run = (thread, content) => agent.invoke({ messages: [new HumanMessage(content)] }, { recursionLimit: 500, configurable: { thread_id: thread } });
  const { pushed } = await spyOnManagers(async () => {
    await run('a', 'Read files 1 to 20.');
    await run('b', 'Read files 21 to 40.');
    const managerA = middleware.manager('a');
    assert.ok(managerA && middleware.manager('b') && managerA !== middleware.manager('b'));
    const r = await run('a', 'Now files 41 to 60.');
    assert.equal(r.messages.at(-1).content, 'Done: every file read.');
    assert.equal(middleware.manager('a'), managerA, 'thread a goes on with its manager');
    assert.equal(r.messages.filter((m) => m.type === 'human').length, 2, "thread a's state holds its two questions");
    return r;
  });
  // Each invocation: the question, then two per step; thread a's second invocation (its state
  // read back from the checkpointer, as copies) pushes its last answer and the question, no more.
  const steps = Array(20).fill(2);
  assert.deepEqual(pushed, [1, ...steps, 1, ...steps, 2, ...steps]);
  const peak = checkPrompts(calls, { results: [], room: ROOM });
  t.diagnostic(`threads: ${calls.length} model calls over 3 invocations, peak prompt ${peak} tokens (room ${ROOM})`);
  middleware.free();
});

test('compactingMiddleware: options are checked at once', () => {
  assert.throws(() => compactingMiddleware({ contextLimit: 0 }), { name: 'CompactionError', code: 'INVALID_INPUT' });
  assert.throws(() => compactingMiddleware({ contextLimit: 1000, maxConversations: 0 }), TypeError);
});
