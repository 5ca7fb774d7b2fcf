// LlmCompactor: the specification's LLM tier, and tool-pair safety (issue item 1).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LlmCompactor, DEFAULT_SUMMARY_PROMPT, validateToolPairs, estimateTokens } from 'context-compactor';
import {
  agentConversation, lastTurns, turnsOf, message, text, toolUse, toolResult, pairProblems, toolIds, normalize,
  SUMMARY_PREFIX, UUID_V4, RFC3339,
} from './helpers.mjs';

/** The specification's shape: no user message kept after the summary (kept ones: agent-sessions.test.mjs). */
const SPEC = { keepUserMessagesTokens: 0 };

function recorder(reply = 'THE SUMMARY') {
  const requests = [];
  const summarize = (req) => { requests.push(req); return Promise.resolve(reply); };
  return { summarize, requests };
}


test('defaults: keepRecentTurns 3, summary message at turn u0, then the recent turns unchanged', async () => {
  const conv = agentConversation({ turns: 4 }); // u1 a1 u2 a2 u3 a3 u4 a4
  const before = structuredClone(conv);
  const { summarize, requests } = recorder();
  const { messages, result } = await new LlmCompactor({ ...SPEC, summarize }).compact(conv, { toolu_1_1_1: 'S' });
  assert.equal(requests.length, 1);
  assert.deepEqual(result, { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 5 });
  const kept = lastTurns(conv, 3);
  assert.equal(messages.length, 1 + kept.length);
  assert.deepEqual(messages.slice(1), kept);
  const s = messages[0];
  assert.equal(s.role, 'user');
  assert.deepEqual(s.turn_id, { owner: 'u', number: 0 });
  assert.deepEqual(s.content, [{ type: 'text', text: `${SUMMARY_PREFIX}THE SUMMARY` }]);
  assert.deepEqual(s.summary_of, { messages: conv.length - kept.length, turns: 5 });
  assert.match(s.id, UUID_V4);
  assert.match(s.created_at, RFC3339);
  assert.equal(s.session_id, 1, 'summary should carry the conversation\'s session id');
  assert.deepEqual(conv, before, 'input modified');
});

test('the summarizer request: default prompt, spec format, maxTokens, a live AbortSignal', async () => {
  const conv = agentConversation({ turns: 3 });
  const { summarize, requests } = recorder();
  await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 2 }).compact(conv);
  const [req] = requests;
  assert.equal(req.system, DEFAULT_SUMMARY_PROMPT);
  assert.equal(req.maxTokens, 2048);
  assert.ok(req.signal instanceof AbortSignal);
  assert.equal(req.signal.aborted, false);
  assert.ok(req.prompt.startsWith('Summarize this conversation:\n\n'), req.prompt.slice(0, 60));
  assert.ok(req.prompt.includes('User: Question 1: please look at file_1.txt'));
  assert.ok(req.prompt.includes('[Called tool: bash]'));
  assert.ok(req.prompt.includes('[Tool result: toolu_1_1_1]'));
  assert.ok(req.prompt.includes('Assistant: Answer 2: the file says hello 2.'));
  // exactly the summarized messages: nothing of the kept turns (u3, a3)
  assert.ok(!req.prompt.includes('Question 3'));
  assert.ok(!req.prompt.includes('toolu_3_1_1'));
  assert.ok(!req.prompt.includes('Answer 3'));
});

test('summarySystemPrompt and maxSummaryTokens are passed through; a synchronous string is accepted', async () => {
  const requests = [];
  const c = new LlmCompactor({ ...SPEC, summarize: (r) => { requests.push(r); return 'sync summary'; }, summarySystemPrompt: 'Be brief.', maxSummaryTokens: 77, keepRecentTurns: 1 });
  const { messages } = await c.compact(agentConversation({ turns: 2 }));
  assert.equal(requests[0].system, 'Be brief.');
  assert.equal(requests[0].maxTokens, 77);
  assert.equal(messages[0].content[0].text, `${SUMMARY_PREFIX}sync summary`);
});

test('nothing to compact: no summarizer call, zeros, same messages', async () => {
  const conv = agentConversation({ turns: 2 }); // 4 turns
  for (const keepRecentTurns of [4, 5, 1000]) {
    const { summarize, requests } = recorder();
    const out = await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns }).compact(conv);
    assert.equal(requests.length, 0);
    assert.deepEqual(out.result, { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 });
    assert.deepEqual(out.messages, conv);
  }
  const out = await new LlmCompactor({ ...SPEC, summarize: () => 'x' }).compact([]);
  assert.deepEqual(out.messages, []);
});

test('keepRecentTurns 0 summarizes everything into one message', async () => {
  const conv = agentConversation({ turns: 2 });
  const out = await new LlmCompactor({ ...SPEC, summarize: () => 'all', keepRecentTurns: 0 }).compact(conv);
  assert.equal(out.messages.length, 1);
  assert.deepEqual(out.messages[0].summary_of, { messages: conv.length, turns: 4 });
  assert.equal(out.result.turnsCompacted, 4);
});

test('unknown fields survive on the kept messages; missing fields are filled on them', async () => {
  const conv = agentConversation({ turns: 3, bare: true });
  conv[conv.length - 1].custom = { x: [1, 2] };
  conv[conv.length - 2].content[0].cache_control = { type: 'ephemeral' };
  const out = await new LlmCompactor({ ...SPEC, summarize: () => 's', keepRecentTurns: 1 }).compact(conv);
  const last = out.messages.at(-1);
  assert.deepEqual(last.custom, { x: [1, 2] });
  assert.deepEqual(out.messages.at(-2).content[0].cache_control, { type: 'ephemeral' });
  for (const m of out.messages) {
    assert.match(m.id, UUID_V4);
    assert.equal(m.session_id, 0);
    assert.match(m.created_at, RFC3339);
  }
});

test('long multi-byte tool output: the prompt stays well-formed (UTF-8 safe truncation)', async () => {
  const conv = [
    message('user', 'u', 1, [text('é'.repeat(30001) + '😀'.repeat(30001))]),
    message('assistant', 'a', 1, [toolUse('x')]),
    message('user', 'a', 1, [toolResult('x', '中😀'.repeat(100001))]),
    message('assistant', 'a', 1, [text('ok')]),
    message('user', 'u', 2, [text('next')]),
  ];
  const { summarize, requests } = recorder();
  const out = await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(conv);
  assert.equal(out.messages.length, 2);
  const p = requests[0].prompt;
  assert.ok(p.isWellFormed(), 'prompt contains a lone surrogate');
  assert.ok(!p.includes('\uFFFD'), 'prompt contains a replacement character');
  assert.ok(p.includes('Assistant: ok'));
});

test('a prompt in any script reaches summarize as the text an ASCII one would be, character for character', async () => {
  const prompt = async (words) => {
    const conv = [
      message('user', 'u', 1, [text(`Question: ${words}`)]),
      message('assistant', 'a', 1, [toolUse('x')]),
      message('user', 'a', 1, [toolResult('x', `Result: ${words}`)]),
      message('assistant', 'a', 1, [text(`Answer: ${words}`)]),
      message('user', 'u', 2, [text('next')]),
    ];
    const { summarize, requests } = recorder();
    await new LlmCompactor({ ...SPEC, summarize, keepRecentTurns: 1 }).compact(conv);
    return requests[0].prompt;
  };
  const ascii = await prompt('WORDS');
  assert.ok(ascii.includes('Result: WORDS'), ascii);
  for (const words of ['Привет, мир', '世界你好', '😀👋 café ñ', 'Привет — 世界 😀 e\u0301']) {
    const p = await prompt(words);
    assert.ok(p.isWellFormed(), words);
    assert.equal(p.replaceAll(words, 'WORDS'), ascii, words);
  }
});

// ---------------------------------------------------------------- item 1: tool pairs

/** Conversations whose turn ids put turn boundaries inside tool exchanges. */
function lyingVariants() {
  const variants = {};
  variants.honest = agentConversation({ turns: 4 });
  variants.parallel = agentConversation({ turns: 4, parallel: 3, rounds: 2 });

  // the tool_result message carries the NEXT user turn's id
  const a = agentConversation({ turns: 4, parallel: 2 });
  a.forEach((m) => { if (m.content.some((b) => b.type === 'tool_result')) m.turn_id = { owner: 'u', number: m.turn_id.number + 1 }; });
  variants.resultHasNextTurnId = a;

  // the tool_use message carries the user turn's id (the boundary falls between use and result)
  const b = agentConversation({ turns: 4, parallel: 3, rounds: 2 });
  b.forEach((m) => { if (m.role === 'assistant' && m.content.some((x) => x.type === 'tool_use')) m.turn_id = { owner: 'u', number: m.turn_id.number }; });
  variants.useHasUserTurnId = b;

  // every message its own turn
  const c = agentConversation({ turns: 3, parallel: 2, rounds: 2 });
  c.forEach((m, i) => { m.turn_id = { owner: 'm', number: i }; });
  variants.everyMessageATurn = c;

  // the whole conversation claims one turn id except the tool results
  const d = agentConversation({ turns: 3, parallel: 2 });
  d.forEach((m) => { m.turn_id = m.content.some((x) => x.type === 'tool_result') ? { owner: 'r', number: 9 } : { owner: 'x', number: 1 }; });
  variants.resultsShareOneId = d;
  return variants;
}

for (const [name, conv] of Object.entries(lyingVariants())) {
  test(`tool pairs are never split by LLM compaction (${name}), at every keepRecentTurns`, async () => {
    const input = normalize(conv);
    assert.deepEqual(validateToolPairs(input), [], 'fixture is valid');
    const turnCount = turnsOf(input).length;
    let cutsSeen = 0;
    for (let keepRecentTurns = 0; keepRecentTurns <= turnCount; keepRecentTurns++) {
      const snapshot = structuredClone(input);
      const requests = [];
      const out = await new LlmCompactor({ ...SPEC, summarize: (r) => { requests.push(r); return 'S'; }, keepRecentTurns }).compact(input);
      const where = `keepRecentTurns=${keepRecentTurns}`;
      assert.deepEqual(input, snapshot, `input modified (${where})`);
      assert.deepEqual(validateToolPairs(out.messages), [], `validateToolPairs (${where})`);
      assert.deepEqual(pairProblems(out.messages), [], `pairing (${where})`);
      if (out.messages[0]?.summary_of) {
        cutsSeen++;
        const kept = out.messages.slice(1);
        const summarized = out.messages[0].summary_of.messages;
        assert.equal(summarized + kept.length, input.length, `summary_of.messages (${where})`);
        assert.deepEqual(kept, input.slice(summarized), `kept messages are the input's suffix (${where})`);
        // no tool id of the summarized part survives in the kept part, and vice versa
        const gone = toolIds(input.slice(0, summarized));
        for (const id of toolIds(kept)) assert.ok(!gone.has(id), `${id} split (${where})`);
        // the prompt covered exactly the summarized messages
        for (const id of gone) assert.ok(requests[0].prompt.includes(id) || !id.startsWith('toolu'), `${id} missing from prompt`);
        for (const id of toolIds(kept)) assert.ok(!requests[0].prompt.includes(`[Tool result: ${id}]`), `${id} in prompt but kept (${where})`);
        // the cut never leaves more than the requested recent turns out of the summary... but never drops them either
        assert.ok(turnsOf(kept).length >= Math.min(keepRecentTurns, turnCount), `recent turns lost (${where})`);
      } else {
        assert.equal(out.result.turnsCompacted, 0, where);
        assert.deepEqual(out.messages, input, where);
      }
    }
    assert.ok(cutsSeen > 0, 'no keepRecentTurns value produced a compaction');
  });
}

test('a recent turn starting with a tool_result pulls its tool_use into the kept part', async () => {
  // u1 a1(use) | r1(result, next turn id) ... keepRecentTurns chosen so the naive cut is between use and result
  const conv = normalize([
    message('user', 'u', 1, [text('q1 '.repeat(300))]),
    message('assistant', 'a', 1, [text('calling'), toolUse('p1'), toolUse('p2')]),
    message('user', 'u', 2, [toolResult('p1', 'one'), toolResult('p2', 'two')]),
    message('assistant', 'u', 2, [text('done')]),
    message('user', 'u', 3, [text('q3')]),
  ]);
  // turns: u1, a1, u2, u3 ; keep 2 → naive old = {u1, a1} (the tool_use), kept starts with the results
  const out = await new LlmCompactor({ ...SPEC, summarize: () => 'S', keepRecentTurns: 2 }).compact(conv);
  assert.deepEqual(validateToolPairs(out.messages), []);
  // the cut moved back before the tool_use: only u1 is summarized
  assert.deepEqual(out.messages[0].summary_of, { messages: 1, turns: 1 });
  assert.deepEqual(out.messages.slice(1), conv.slice(1));
  assert.equal(out.result.turnsCompacted, 1);
  // the last message is always kept
  assert.deepEqual(out.messages.at(-1), conv.at(-1));
  assert.ok(estimateTokens(out.messages) <= estimateTokens(conv));
});
