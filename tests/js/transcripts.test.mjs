// Real agent transcripts from ../shared/conversations/: both compactors on each of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ThresholdCompactor, LlmCompactor, ContextManager, estimateTokens, validateToolPairs, offlineSummarizer } from 'context-compactor';
import { loadTranscripts, lastTurns, turnsOf, pairProblems, normalize, REDACTED, SUMMARY_PREFIX } from './helpers.mjs';

/** The specification's shape: no user message kept after the summary (kept ones: agent-sessions.test.mjs). */
const SPEC = { keepUserMessagesTokens: 0 };

const transcripts = loadTranscripts();
const KEEP = 2;

test('the transcripts are there and convert into valid conversations', () => {
  assert.ok(transcripts.length >= 10, `only ${transcripts.length} transcripts`);
  assert.ok(transcripts.some((t) => t.name.startsWith('tools.')), 'no tool transcripts');
  for (const t of transcripts) {
    assert.ok(t.messages.length > 0, t.name);
    assert.equal(typeof t.system, 'string');
    // text transcripts have many user turns; tool transcripts are one user turn + one agent turn
    if (t.name.startsWith('text.')) assert.ok(turnsOf(t.messages).length > KEEP, `${t.name}: too few turns`);
    else assert.ok(turnsOf(t.messages).length >= 2, t.name);
    assert.equal(t.messages[0].turn_id.owner, 'u', t.name);
  }
});

for (const t of transcripts) {
  test(`${t.name}: threshold (redact) compaction`, () => {
    const input = normalize(t.messages);
    const snapshot = structuredClone(input);
    const validBefore = validateToolPairs(input).length === 0;
    const { messages, result } = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: KEEP }).compact(input);
    assert.deepEqual(input, snapshot, 'input modified');
    assert.equal(messages.length, input.length);
    // order preserved: same ids, same roles, same turn ids
    assert.deepEqual(messages.map((m) => [m.id, m.role, m.turn_id]), input.map((m) => [m.id, m.role, m.turn_id]));
    assert.deepEqual(lastTurns(messages, KEEP), lastTurns(input, KEEP), 'recent turns changed');
    const oldCount = messages.length - lastTurns(messages, KEEP).length;
    let redacted = 0;
    messages.slice(0, oldCount).forEach((m) => m.content.forEach((b) => { if (b.type === 'tool_result') { assert.equal(b.content, REDACTED); redacted++; } }));
    assert.equal(result.toolResultsRedacted, redacted);
    if (validBefore) {
      assert.deepEqual(validateToolPairs(messages), []);
      assert.deepEqual(pairProblems(messages), []);
    }
    if (redacted > 0) assert.ok(estimateTokens(messages) < estimateTokens(input), 'tokens did not go down');
    else assert.equal(estimateTokens(messages), estimateTokens(input));
    // idempotent
    const again = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: KEEP }).compact(messages);
    assert.deepEqual(again.result, { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 });
    assert.deepEqual(again.messages, messages);
  });

  test(`${t.name}: LLM compaction (offlineSummarizer)`, async () => {
    const input = normalize(t.messages);
    const snapshot = structuredClone(input);
    const validBefore = validateToolPairs(input).length === 0;
    const { messages, result } = await new LlmCompactor({ ...SPEC, summarize: offlineSummarizer(), keepRecentTurns: KEEP }).compact(input);
    assert.deepEqual(input, snapshot, 'input modified');
    if (turnsOf(input).length <= KEEP) {
      assert.deepEqual(result, { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 });
      assert.deepEqual(messages, input);
      return;
    }
    const summary = messages[0];
    assert.ok(summary.summary_of, 'no summary message');
    assert.ok(summary.content[0].text.startsWith(SUMMARY_PREFIX));
    assert.ok(result.turnsCompacted > 0);
    const kept = messages.slice(1);
    // order preserved and nothing else changed: the kept part is a suffix of the input
    assert.equal(summary.summary_of.messages + kept.length, input.length);
    assert.deepEqual(kept, input.slice(summary.summary_of.messages));
    // the recent turns are intact
    const recent = lastTurns(input, KEEP);
    assert.deepEqual(kept.slice(-recent.length), recent, 'recent turns changed');
    if (validBefore) {
      assert.deepEqual(validateToolPairs(messages), []);
      assert.deepEqual(pairProblems(messages), []);
    }
    assert.ok(estimateTokens(messages) < estimateTokens(input), 'tokens did not go down');
  });
}

for (const t of transcripts.filter((x) => x.name.startsWith('tools.'))) {
  test(`${t.name}: every message its own turn, LLM compaction never splits a tool pair`, async () => {
    const input = normalize(t.messages.map((m, i) => ({ ...m, turn_id: { owner: 'm', number: i } })));
    assert.deepEqual(validateToolPairs(input), []);
    for (const keepRecentTurns of [1, 2, 3, 4]) {
      const { messages } = await new LlmCompactor({ ...SPEC, summarize: offlineSummarizer(), keepRecentTurns }).compact(input);
      assert.deepEqual(validateToolPairs(messages), [], `keepRecentTurns ${keepRecentTurns}`);
      assert.deepEqual(pairProblems(messages), [], `keepRecentTurns ${keepRecentTurns}`);
      assert.ok(messages[0].summary_of, `keepRecentTurns ${keepRecentTurns}: nothing summarized`);
      const kept = messages.slice(1);
      assert.deepEqual(kept, input.slice(messages[0].summary_of.messages));
      assert.ok(kept.length >= keepRecentTurns, 'recent turns lost');
      assert.ok(estimateTokens(messages) < estimateTokens(input));
    }
  });
}

test('a transcript replayed through a ContextManager stays under its limit with the LLM compactor', async () => {
  const t = transcripts.reduce((a, b) => (estimateTokens(b.messages) > estimateTokens(a.messages) ? b : a));
  const total = estimateTokens(t.messages);
  const contextLimit = Math.ceil(total / 3);
  const outcomes = [];
  const m = new ContextManager({
    contextLimit,
    compactor: { type: 'llm', summarize: offlineSummarizer(), keepRecentTurns: KEEP, fallback: { toolCompaction: 'redact' } },
  });
  for (const msg of t.messages) {
    m.push(msg);
    const o = await m.maybeCompact();
    if (o) outcomes.push(o);
  }
  assert.ok(outcomes.length > 0, 'never compacted');
  assert.ok(outcomes.every((o) => o.tokensAfter <= o.tokensBefore));
  const final = m.messages();
  assert.ok(m.estimatedTokens < total);
  assert.deepEqual(validateToolPairs(final), []);
  // the last message pushed is still last and intact
  assert.deepEqual(final.at(-1).content, t.messages.at(-1).content);
});
