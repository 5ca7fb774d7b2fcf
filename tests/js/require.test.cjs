// The package as CommonJS users consume it: `require('context-compactor')` (Node >= 20.19).
const { test } = require('node:test');
const assert = require('node:assert/strict');

const pkg = require('context-compactor');

test('require: every public export is present', () => {
  for (const name of ['ThresholdCompactor', 'LlmCompactor', 'ContextManager', 'CompactionError',
    'estimateTokens', 'validateToolPairs', 'offlineSummarizer']) {
    assert.equal(typeof pkg[name], 'function', name);
  }
  assert.equal(typeof pkg.DEFAULT_SUMMARY_PROMPT, 'string');
  assert.ok(pkg.DEFAULT_SUMMARY_PROMPT.includes('You are a conversation summarizer.'));
});

function conversation() {
  const out = [];
  for (let k = 1; k <= 4; k++) {
    out.push({ role: 'user', turn_id: { owner: 'u', number: k }, content: [{ type: 'text', text: `q${k}` }] });
    out.push({ role: 'assistant', turn_id: { owner: 'a', number: k }, content: [{ type: 'tool_use', id: `t${k}`, name: 'ls', input: {} }] });
    out.push({ role: 'user', turn_id: { owner: 'a', number: k }, content: [{ type: 'tool_result', tool_use_id: `t${k}`, content: 'x'.repeat(500) }] });
    out.push({ role: 'assistant', turn_id: { owner: 'a', number: k }, content: [{ type: 'text', text: `a${k}` }] });
  }
  return out;
}

test('require: threshold compaction', () => {
  const { messages, result } = new pkg.ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 2 }).compact(conversation());
  assert.equal(result.toolResultsRedacted, 3);
  assert.equal(messages[2].content[0].content, '[Content redacted for context management]');
});

test('require: LLM compaction', async () => {
  const { messages, result } = await new pkg.LlmCompactor({ summarize: async () => 'S', keepRecentTurns: 2, keepUserMessagesTokens: 0 }).compact(conversation());
  assert.equal(result.turnsCompacted, 6);
  assert.equal(messages.length, 5);
  assert.equal(messages[0].content[0].text, '[Previous conversation summary]: S');
});

test('require: ContextManager and CompactionError', async () => {
  const m = new pkg.ContextManager({ contextLimit: 100, compactor: { type: 'llm', summarize: () => '  ', keepRecentTurns: 2 } });
  m.pushMany(conversation());
  await assert.rejects(m.forceCompact(), (e) => e instanceof pkg.CompactionError && e.code === 'EMPTY_SUMMARY');
  assert.throws(() => new pkg.ContextManager({}), (e) => e instanceof pkg.CompactionError && e.code === 'INVALID_INPUT');
});

test('require and import give the same module instance', async () => {
  const esm = await import('context-compactor');
  assert.equal(esm.ContextManager, pkg.ContextManager);
  assert.equal(esm.CompactionError, pkg.CompactionError);
});
