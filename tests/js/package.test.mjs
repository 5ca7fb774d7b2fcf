// The package as users consume it: `import … from 'context-compactor'` (ESM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import * as pkg from 'context-compactor';
import {
  ThresholdCompactor, LlmCompactor, ContextManager, CompactionError, DEFAULT_SUMMARY_PROMPT,
  estimateTokens, validateToolPairs, offlineSummarizer,
} from 'context-compactor';
import { agentConversation, REDACTED, SUMMARY_PREFIX } from './helpers.mjs';

test('ESM: every public export is present with the right kind', () => {
  for (const name of ['ThresholdCompactor', 'LlmCompactor', 'ContextManager', 'CompactionError',
    'estimateTokens', 'validateToolPairs', 'offlineSummarizer']) {
    assert.equal(typeof pkg[name], 'function', name);
  }
  assert.equal(typeof DEFAULT_SUMMARY_PROMPT, 'string');
  assert.ok(DEFAULT_SUMMARY_PROMPT.includes('You are a conversation summarizer.'));
  assert.ok(DEFAULT_SUMMARY_PROMPT.includes('Focus on information needed to continue the conversation.'));
  assert.ok(new CompactionError('x', 'LLM_ERROR') instanceof Error);
});

test('ESM: threshold compaction works through the package entry', () => {
  const conv = agentConversation({ turns: 4 });
  const { messages, result } = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 2 }).compact(conv);
  assert.equal(messages.length, conv.length);
  assert.deepEqual(result, { toolResultsSummarized: 0, toolResultsRedacted: 3, turnsCompacted: 0 });
  assert.equal(messages[2].content[0].content, REDACTED);
  assert.ok(estimateTokens(messages) < estimateTokens(conv));
  assert.deepEqual(validateToolPairs(messages), []);
});

test('ESM: LLM compaction works through the package entry', async () => {
  const conv = agentConversation({ turns: 4 });
  const out = await new LlmCompactor({ summarize: offlineSummarizer(), keepRecentTurns: 2, keepUserMessagesTokens: 0 }).compact(conv);
  assert.equal(out.result.turnsCompacted, 6);
  assert.ok(out.messages[0].content[0].text.startsWith(SUMMARY_PREFIX));
  assert.deepEqual(out.messages.slice(1), conv.slice(-4));
});

test('ESM: ContextManager works through the package entry', async () => {
  const m = new ContextManager({ contextLimit: 100, compactor: { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 2 } });
  m.pushMany(agentConversation({ turns: 4 }));
  assert.ok(m.shouldCompact());
  const outcome = await m.maybeCompact();
  assert.equal(outcome.strategy, 'threshold');
  assert.equal(outcome.result.toolResultsRedacted, 3);
});

test('ESM: the "./node" subpath and the package.json are exported too', async () => {
  const node = await import('context-compactor/node');
  assert.equal(node.ThresholdCompactor, ThresholdCompactor);
  const meta = createRequire(import.meta.url)('context-compactor/package.json');
  assert.equal(meta.name, 'context-compactor');
});

// The `.wasm` as shipped (after wasm-opt) stays within 160,000 B gzip, measured as
// scripts/wasm-size.mjs measures it: a limit to stay inside, not a goal (issue 19, item 3).
const WASM_GZIP_BUDGET = 160_000;
test(`the .wasm stays within its budget of ${WASM_GZIP_BUDGET.toLocaleString('en')} B gzip`, () => {
  const wasm = readFileSync(createRequire(import.meta.url).resolve('context-compactor/context_compactor_bg.wasm'));
  const gzip = gzipSync(wasm, { level: 9 }).length;
  assert.ok(gzip <= WASM_GZIP_BUDGET, `${gzip} B gzip (${wasm.length} B raw): over the budget by ${gzip - WASM_GZIP_BUDGET} B`);
});
