// Concurrency (issue 5): interleaved push / maybeCompact / forceCompact calls from
// JS while a slow summarizer is pending. No exception, one summarizer call per
// compaction (never two at once), and the final conversation is complete and in order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextManager } from 'context-compactor';
import { message, text, toolUse, toolResult, tick, manualSummarizer } from './helpers.mjs';

/** A deterministic pseudo-random source (the interleaving is the same on every run). */
function rng(seed) {
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
}

/** One agent turn: user question (u<k>), then a<k>: tool call, result, answer. */
function turnMessages(k) {
  return [
    message('user', 'u', k, [text(`Question ${k}: ${'context '.repeat(20)}`)]),
    message('assistant', 'a', k, [toolUse(`call_${k}`)]),
    message('user', 'a', k, [toolResult(`call_${k}`, `result ${k}: ${'data '.repeat(60)}`)]),
    message('assistant', 'a', k, [text(`Answer ${k}.`)]),
  ];
}

for (const seed of [1, 2, 3]) {
  test(`100 interleaved push / maybeCompact / forceCompact calls, slow summarizer (seed ${seed})`, async () => {
    const rnd = rng(seed);
    let inFlight = 0;
    let maxInFlight = 0;
    const prompts = [];
    const summarize = async ({ prompt, signal }) => {
      assert.equal(signal.aborted, false);
      prompts.push(prompt);
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await tick(3 + rnd(12));
      inFlight -= 1;
      return `summary ${prompts.length}`;
    };
    const events = [];
    const replaced = []; // summary_of.messages of each summary, read when it is written
    const m = new ContextManager({
      contextLimit: 4_000,
      // No user message kept after the summary, so that the summary and the unsummarized tail are all there is.
      compactor: { type: 'llm', summarize, keepRecentTurns: 2, keepUserMessagesTokens: 0, summaryTimeoutMs: 30_000 },
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'compaction' && e.strategy === 'llm') replaced.push(m.messages()[0].summary_of.messages);
      },
    });

    const all = []; // every message pushed, in push order
    let turn = 0;
    const pending = [];
    const counts = { push: 0, maybe: 0, force: 0 };
    for (let i = 0; i < 100; i++) {
      const op = rnd(10);
      if (op < 5) {
        counts.push += 1;
        const msgs = turnMessages(++turn);
        if (rnd(2) === 0) m.pushMany(msgs);
        else for (const msg of msgs) m.push(msg);
        all.push(...msgs);
      } else if (op < 8) {
        counts.maybe += 1;
        pending.push(m.maybeCompact().then((o) => ({ op: 'maybe', o }), (e) => ({ op: 'maybe', e })));
      } else {
        counts.force += 1;
        pending.push(m.forceCompact().then((r) => ({ op: 'force', r }), (e) => ({ op: 'force', e })));
      }
      // Sometimes let the summarizer make progress, sometimes not.
      if (rnd(3) === 0) await tick(rnd(8));
      // Reading state while a summary is pending is always allowed.
      assert.equal(typeof m.contextUsed, 'number');
      assert.ok(Array.isArray(m.messages()));
    }
    const settled = await Promise.all(pending);
    await tick(20);

    // No exception: maybeCompact never rejects, forceCompact only on a failed compaction (none here).
    assert.deepEqual(settled.filter((s) => s.e), [], 'a call rejected');
    for (const s of settled) if (s.op === 'maybe' && s.o) assert.equal(s.o.error, undefined);
    assert.ok(counts.push > 20 && counts.maybe > 10 && counts.force > 5, JSON.stringify(counts));

    // One summarizer call per compaction, never two at once.
    const started = events.filter((e) => e.type === 'compaction_started').length;
    const finished = events.filter((e) => e.type === 'compaction' && e.strategy === 'llm').length;
    assert.equal(events.filter((e) => e.type === 'compaction_failed').length, 0);
    assert.equal(prompts.length, started);
    assert.equal(started, finished);
    assert.ok(prompts.length >= 2, `only ${prompts.length} compactions`);
    assert.equal(maxInFlight, 1, 'two summaries in flight at once');
    assert.equal(m.isCompacting, false);

    // Complete and in order: one summary, then exactly the unsummarized tail of what was pushed.
    const [first, ...rest] = m.messages();
    assert.ok(first.summary_of, 'the conversation does not start with the summary');
    assert.deepEqual(rest, all.slice(all.length - rest.length));
    // Every pushed message was summarized exactly once: each compaction after the
    // first also re-summarized the previous summary.
    const summarized = replaced.reduce((a, b) => a + b, 0) - (replaced.length - 1);
    assert.equal(summarized + rest.length, all.length);
    assert.equal(first.summary_of.messages, replaced[replaced.length - 1]);
    assert.ok(prompts.at(-1).includes('summary'), 'the last prompt does not include the previous summary');
  });
}

test('calls made inside the compaction_started handler share the compaction in progress', async () => {
  const { summarize, calls } = manualSummarizer();
  const inner = [];
  let m;
  m = new ContextManager({
    contextLimit: 4_000,
    compactor: { type: 'llm', summarize, keepRecentTurns: 2 },
    onEvent: (e) => {
      if (e.type === 'compaction_started') inner.push(m.isCompacting, m.maybeCompact(), m.forceCompact());
    },
  });
  for (let k = 1; k <= 8; k++) m.pushMany(turnMessages(k));
  m.setContextUsed(3_900);
  const outer = m.maybeCompact();
  const [compacting, maybe, force] = inner;
  assert.equal(compacting, true);
  let settled = false;
  Promise.all([maybe, force]).then(() => { settled = true; }, () => { settled = true; });
  await tick(5);
  assert.equal(settled, false, 'settled before the summary arrived');
  assert.equal(calls.length, 1);
  calls[0].resolve('the summary');
  const outcome = await outer;
  assert.ok(outcome.result.turnsCompacted > 0);
  assert.deepEqual(await maybe, outcome);
  assert.deepEqual(await force, outcome.result);
  assert.equal(calls.length, 1, 'a second summarizer call');
});
