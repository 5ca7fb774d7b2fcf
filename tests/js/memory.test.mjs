// Memory and persistence (issue 5): the WebAssembly memory stays flat across
// 10,000 compactions of a 100-turn conversation after warm-up, and
// toJSON → fromJSON → toJSON is the identity.
//
// The package does not expose its wasm memory. `initSync()` of the generated
// module returns the already-initialized instance's exports (wasm-bindgen returns
// early when initialized), and `node_modules/context-compactor` is a link to
// `pkg/`, so importing `pkg/context_compactor.js` here yields the very module the
// package entry loaded: no export is added for the tests. The first test checks
// that it is the same instance (its memory grows when the package allocates).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ThresholdCompactor, LlmCompactor, ContextManager, estimateTokens } from 'context-compactor';
import { initSync } from '../../pkg/context_compactor.js';
import { agentConversation, userText } from './helpers.mjs';

const wasm = initSync();
const memory = () => wasm.memory.buffer.byteLength;
const COMPACTIONS = Number(process.env.MEMORY_TEST_COMPACTIONS ?? 10_000);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

/** 100 turns: a tool call (a<k>) and its result (u<k>), each its own turn id. */
function hundredTurns() {
  const out = [];
  for (let k = 1; k <= 50; k++) {
    const at = '2026-01-01T00:00:00.000Z';
    out.push({ role: 'assistant', id: `a${k}`, session_id: 0, created_at: at, turn_id: { owner: 'a', number: k },
      content: [{ type: 'tool_use', id: `t${k}`, name: 'grep', input: { pattern: `p${k}` } }] });
    out.push({ role: 'user', id: `u${k}`, session_id: 0, created_at: at, turn_id: { owner: 'u', number: k },
      content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: `match ${k} 😀`, is_error: false }] });
  }
  return out;
}

test('the wasm memory read here is the package instance\'s', () => {
  const before = memory();
  const big = [userText(1, 'x'.repeat(8 * 1024 * 1024))];
  estimateTokens(big); // reads the whole message into wasm memory
  assert.ok(memory() > before, `memory did not grow (${before} → ${memory()}): not the package's instance`);
});

test(`wasm memory is flat across ${COMPACTIONS} threshold compactions of a 100-turn conversation`, () => {
  const conversation = hundredTurns();
  const snapshot = structuredClone(conversation);
  const compactor = new ThresholdCompactor({ keepRecentTurns: 3, toolCompaction: 'redact' });
  const summaries = { t1: 'one', t2: 'two' };
  let redacted = 0;
  for (let i = 0; i < 200; i++) redacted = compactor.compact(conversation, summaries).result.toolResultsRedacted;
  assert.equal(redacted, 48, 'the compaction does real work');
  const warm = memory();
  for (let i = 0; i < COMPACTIONS; i++) compactor.compact(conversation, summaries);
  assert.equal(memory(), warm, `grew by ${memory() - warm} bytes`);
  assert.deepEqual(conversation, snapshot);
});

test('wasm memory is flat across LLM compactions and context-manager compactions', async () => {
  const conversation = hundredTurns();
  const llm = new LlmCompactor({ summarize: () => 'short summary', keepRecentTurns: 3 });
  const manager = new ContextManager({ contextLimit: 100_000, compactor: { type: 'threshold', keepRecentTurns: 3, toolCompaction: 'redact' } });
  manager.pushMany(conversation);
  const round = async (n) => {
    for (let i = 0; i < n; i++) {
      const { result } = await llm.compact(conversation);
      // 97 old turns, but the cut moves back one: the oldest kept turn (u49) answers a49's call.
      assert.equal(result.turnsCompacted, 96);
      await manager.forceCompact();
      manager.toJSON();
    }
  };
  await round(100);
  const warm = memory();
  await round(1_000);
  assert.equal(memory(), warm, `grew by ${memory() - warm} bytes`);
});

test('managers are reclaimed: freed explicitly, or by the garbage collector', async () => {
  const conversation = agentConversation({ turns: 20 });
  const cycle = async (free) => {
    const m = new ContextManager({ contextLimit: 1000, compactor: { type: 'llm', summarize: () => 'short', keepRecentTurns: 2 } });
    m.pushMany(conversation);
    await m.forceCompact();
    const restored = ContextManager.fromJSON(m.toJSON(), { contextLimit: 1000 });
    if (free) { m.free(); restored.free(); }
  };
  for (let i = 0; i < 100; i++) await cycle(true);
  const warm = memory();
  for (let i = 0; i < 1_000; i++) await cycle(true);
  assert.equal(memory(), warm, `explicitly freed managers: grew by ${memory() - warm} bytes`);
  // Not freed: the FinalizationRegistry frees them once JS collects the wrappers.
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 200; i++) await cycle(false);
    gc();
    await new Promise((r) => setTimeout(r, 0));
  }
  const afterGc = memory();
  for (let round = 0; round < 5; round++) {
    for (let i = 0; i < 200; i++) await cycle(false);
    gc();
    await new Promise((r) => setTimeout(r, 0));
  }
  assert.ok(memory() <= afterGc * 1.1, `collected managers: ${afterGc} → ${memory()} bytes`);
});

test('toJSON → fromJSON → toJSON is the identity (messages, summaries, context figure)', async () => {
  const options = { contextLimit: 2_000, compactor: { type: 'llm', summarize: () => 'short summary 😀', keepRecentTurns: 2 } };
  const m = new ContextManager(options);
  m.pushMany(agentConversation({ turns: 6, parallel: 2 }));
  m.storeCompactSummaries(new Map([['toolu_1_1_1', 'listed ✓'], ['zz', 'other']]));
  await m.forceCompact();
  m.push(userText(7, 'after the summary\u{1F600}'));
  m.setContextUsed(1_234);
  m.push(userText(8));
  const state = m.toJSON();
  assert.equal(state.version, 1);
  assert.ok(state.messages[0].summary_of);
  assert.deepEqual(state.compactSummaries, { toolu_1_1_1: 'listed ✓', zz: 'other' });
  assert.equal(state.contextUsed.inputTokens, 1_234);

  const restored = ContextManager.fromJSON(state, options);
  assert.deepEqual(restored.toJSON(), state);
  assert.deepEqual(JSON.parse(JSON.stringify(restored.toJSON())), JSON.parse(JSON.stringify(state)));
  assert.equal(restored.contextUsed, m.contextUsed);
  assert.equal(restored.estimatedTokens, m.estimatedTokens);
  // Through a JSON string too (what an app writes to disk).
  const fromDisk = ContextManager.fromJSON(JSON.parse(JSON.stringify(state)), options);
  assert.deepEqual(fromDisk.toJSON(), state);
  // And the restored manager keeps working the same way as the original.
  const [a, b] = await Promise.all([m.forceCompact(), restored.forceCompact()]);
  assert.deepEqual(a, b);
  assert.deepEqual(restored.toJSON().messages.slice(1), m.toJSON().messages.slice(1));
});
