// context-compactor/openai-agents with the real `@openai/agents`: `run()` with a fake model
// (the Model interface of @openai/agents-core: `getResponse` returns a function call for N
// turns, then a message), a tool returning ~4 KB each call, maxTurns raised. What the model
// receives at each call (`request.input`, the SDK's items) is read into the package's model
// (by this file's own translation to Responses API items) and checked as for the others.
//
//   node --test tests/integrations/openai-agents.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, MemorySession, Usage, run, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { estimateTokens, fromOpenAIResponses } from 'context-compactor';
import { CompactingSession, compactingModelInputFilter } from 'context-compactor/openai-agents';
import { REDACTED, checkPrompts, redactedIn, spyOnManagers, toolOutput } from './support.mjs';

setTracingDisabled(true);

const STEPS = 40;
const LIMIT = 16_000;
const RESERVE = 1_000;
const ROOM = LIMIT - RESERVE;
const options = { contextLimit: LIMIT, reserveTokens: RESERVE };

/** The SDK's items → Responses API items → the package's model (read independently of the integration). */
function toModel(items) {
  const wire = items.map((i) => {
    if (i.type === 'function_call') return { type: 'function_call', call_id: i.callId, name: i.name, arguments: i.arguments };
    if (i.type === 'function_call_result') return { type: 'function_call_output', call_id: i.callId, output: typeof i.output === 'string' ? i.output : i.output.text };
    return i;
  });
  return fromOpenAIResponses(wire).messages;
}

const readFile = tool({
  name: 'read_file', description: 'Reads a file of the repository.', parameters: z.object({ n: z.number() }),
  execute: async ({ n }) => toolOutput(n),
});

/** A Model: for each round, calls read_file `round` times (files numbered on), then answers. */
function fakeModel({ rounds = [STEPS] } = {}) {
  const calls = [];
  const plan = rounds.flatMap((steps) => [...Array(steps).fill('call'), 'answer']);
  let file = 0;
  const model = {
    async getResponse(request) {
      const prompt = toModel(request.input);
      calls.push(prompt);
      const usage = new Usage({ requests: 1, inputTokens: estimateTokens(prompt), outputTokens: 12, totalTokens: estimateTokens(prompt) + 12 });
      const k = calls.length;
      if (plan[k - 1] === 'call') {
        file += 1;
        return { usage, responseId: `resp_${k}`, output: [{ type: 'function_call', id: `fc_${k}`, callId: `call_${file}`, name: 'read_file', arguments: JSON.stringify({ n: file }), status: 'completed' }] };
      }
      return { usage, responseId: `resp_${k}`, output: [{ type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done: every file read.' }] }] };
    },
    async *getStreamedResponse() { throw new Error('not used'); },
  };
  return { model, calls };
}

const seen = (count, first = 1) => Array.from({ length: count }, (_, k) => (k === 0 ? undefined : toolOutput(first + k - 1)));
const agentWith = (model) => new Agent({ name: 'reader', instructions: 'You read files.', model, tools: [readFile] });

test(`run(): a ${STEPS}-turn run with CompactingSession and its callModelInputFilter stays within the limit`, async (t) => {
  const { model, calls } = fakeModel();
  const inner = new MemorySession();
  const events = [];
  const session = new CompactingSession({ ...options, session: inner, onEvent: (e) => events.push(e) });
  const { result, pushed } = await spyOnManagers(() => run(agentWith(model), 'Read files 1 to 40.', {
    session, callModelInputFilter: session.callModelInputFilter, maxTurns: STEPS + 5,
  }));
  assert.equal(result.finalOutput, 'Done: every file read.');
  assert.equal(calls.length, STEPS + 1);
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  assert.ok(calls.some((m) => redactedIn(m) > 0), 'old tool results were redacted');
  // The filter: the task, then a call and its result per turn (the session had nothing yet).
  assert.deepEqual(pushed, [1, ...Array(STEPS).fill(2)]);
  // The inner session holds the whole run, uncompacted.
  const stored = await inner.getItems();
  assert.equal(stored.length, 1 + 2 * STEPS + 1);
  const outputs = stored.filter((i) => i.type === 'function_call_result');
  assert.ok(outputs.every((i, k) => (i.output.text ?? i.output) === toolOutput(k + 1)), 'every tool output as the tool returned it');
  // The session hands the next run the history compacted.
  const history = await session.getItems();
  assert.equal(history.length, stored.length);
  const tokens = estimateTokens(toModel(history));
  assert.ok(tokens <= ROOM, `getItems: ${tokens} tokens`);
  assert.ok(history.some((i) => i.type === 'function_call_result' && i.output.text === REDACTED));
  assert.equal(history.at(-2).output.text, toolOutput(STEPS), 'the newest tool output verbatim');
  const total = estimateTokens(toModel(stored));
  t.diagnostic(`run(): ${calls.length} model calls, peak input ${peak} tokens (room ${ROOM}, limit ${LIMIT}), conversation ${total} tokens, ${events.filter((e) => e.type === 'compaction').length} compactions (filter and session)`);
  session.free();
});

test('run(): the session alone compacts the history before each run, 15 runs of 3 turns', async (t) => {
  const { model, calls } = fakeModel({ rounds: Array(15).fill(3) });
  // Within a run nothing compacts: the reserve covers a run's 3 turns.
  const session = new CompactingSession({ contextLimit: LIMIT, reserveTokens: 4_000 });
  const agent = agentWith(model);
  const { pushed } = await spyOnManagers(async () => {
    for (let r = 1; r <= 15; r++) {
      const out = await run(agent, `Round ${r}: read the next three files.`, { session, maxTurns: 10 });
      assert.equal(out.finalOutput, "Done: every file read.");
    }
  });
  assert.equal(calls.length, 15 * 4);
  const peak = checkPrompts(calls, { results: [], room: LIMIT });
  const stored = await session.getItems();
  assert.equal(stored.length, 15 * 8);
  // Each run's getItems converted only the 8 items the run before added (the first had none).
  assert.deepEqual(pushed, Array(14).fill(8));
  assert.ok(calls.some((m) => redactedIn(m) > 0));
  t.diagnostic(`session only: ${calls.length} model calls over 15 runs, peak input ${peak} tokens (limit ${LIMIT})`);
  session.free();
});

test('run(): compactingModelInputFilter alone, without a session', async (t) => {
  const { model, calls } = fakeModel();
  const filter = compactingModelInputFilter(options);
  const result = await run(agentWith(model), 'Read files 1 to 40.', { callModelInputFilter: filter, maxTurns: STEPS + 5 });
  assert.equal(result.finalOutput, 'Done: every file read.');
  const peak = checkPrompts(calls, { results: seen(calls.length), room: ROOM });
  assert.ok(filter.manager.fits);
  t.diagnostic(`filter only: ${calls.length} model calls, peak input ${peak} tokens (room ${ROOM})`);
  filter.free();
});

test('CompactingSession: getItems(limit), popItem and clearSession', async () => {
  const session = new CompactingSession({ contextLimit: 100_000, sessionId: 'session-1' });
  assert.equal(await session.getSessionId(), 'session-1');
  const call = (n) => ({ type: 'function_call', callId: `call_${n}`, name: 'read_file', arguments: `{"n":${n}}`, status: 'completed' });
  const result = (n) => ({ type: 'function_call_result', callId: `call_${n}`, name: 'read_file', status: 'completed', output: { type: 'text', text: toolOutput(n) } });
  await session.addItems([{ type: 'message', role: 'user', content: 'Read two files.' }, call(1), result(1), call(2), result(2)]);
  assert.equal((await session.getItems()).length, 5);
  assert.deepEqual((await session.getItems(3)).map((i) => i.type), ['function_call', 'function_call_result'], 'no tool result without its call');
  assert.deepEqual(await session.getItems(0), []);
  const popped = await session.popItem();
  assert.equal(popped.callId, 'call_2');
  assert.deepEqual((await session.getItems()).map((i) => i.callId ?? i.role), ['user', 'call_1', 'call_1', 'call_2']);
  await session.clearSession();
  assert.deepEqual(await session.getItems(), []);
  const items = await session.getItems();
  items.push(call(9));
  assert.deepEqual(await session.getItems(), [], 'getItems hands out copies');
  session.free();
});

test('CompactingSession: options are checked at once', () => {
  assert.throws(() => new CompactingSession({ contextLimit: -1 }), { name: 'CompactionError', code: 'INVALID_INPUT' });
  assert.throws(() => compactingModelInputFilter({ contextLimit: 1000, bogus: 1 }), { code: 'INVALID_INPUT' });
});
