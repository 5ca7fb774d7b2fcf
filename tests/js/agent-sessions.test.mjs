// Agent sessions (issue 18): real single-task tool loops replayed request by request
// through a ContextManager, as an agent server would run them, under each strategy
// and a tight context limit. A request is the conversation just before each
// assistant message (each model call); the agent pushes what arrived since (the last
// assistant message and its tool results) without turn ids, then calls maybeCompact.
// A request goes out when the context fits; when it cannot fit, the manager says so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  CompactionError, ContextManager, LlmCompactor, ThresholdCompactor, estimateTokens, fromAnthropic, fromOpenAI,
  openAISummarizer, validateToolPairs,
} from 'context-compactor';
import { conversationFiles, loadConversation } from './support/conversations.mjs';
import { DEFAULT_SUMMARY_TEXT, start } from './support/llm-server.mjs';
import { REDACTED, SUMMARY_PREFIX } from './helpers.mjs';

let server;
before(async () => { server = await start(); });
after(() => server.stop());

const THRESHOLD = 0.75;

/** Without the fields the manager fills in, as an agent pushes them. */
const bare = (m) => ({ role: m.role, content: m.content });
const strip = (ms) => ms.map(({ turn_id: _turn, ...rest }) => rest);

/** The first line of each tool result, as the agent would store it as its compact summary. */
function firstLines(messages) {
  const out = {};
  for (const b of messages.flatMap((m) => m.content)) {
    if (b.type !== 'tool_result') continue;
    const text = typeof b.content === 'string' ? b.content : b.content.map((c) => c.text ?? '').join('\n');
    out[b.tool_use_id] = (text.split('\n').find((l) => l.trim()) ?? '').slice(0, 120) || '(empty)';
  }
  return out;
}

function compactorFor(strategy, limit) {
  if (strategy !== 'llm') return { type: 'threshold', toolCompaction: strategy };
  return {
    type: 'llm',
    summarize: openAISummarizer({ baseURL: `${server.baseURL}/v1`, model: 'local' }),
    // A tight window: keep the newest quarter, and summaries a tenth of it.
    keepRecentTokens: Math.floor(limit / 4),
    maxSummaryTokens: Math.max(16, Math.floor(limit / 10)),
  };
}

/** Where each request is made: before each assistant message, and after a last user message. */
const requestPoints = (messages) => messages.flatMap((m, i) => (m.role === 'assistant' ? [i] : []))
  .concat(messages.at(-1).role === 'user' ? [messages.length] : []);

/**
 * Replays `messages` (turn ids from the adapter) through a manager at `limit` with
 * `strategy`, checking every `every`-th request in full. Returns figures for the note.
 */
async function replay(messages, limit, strategy, { every = 1, task: checkTask = true } = {}) {
  const events = [];
  const ctx = new ContextManager({ contextLimit: limit, compactor: compactorFor(strategy, limit), onEvent: (e) => events.push(e) });
  const task = messages[0];
  const figures = {
    requests: 0, sent: 0, held: 0, compactions: 0, summaries: 0, truncations: 0, peakBefore: 0, peakAfter: 0, taskKept: 0,
  };
  let pushed = 0;
  // Whether the task is still a message of its own (once summarized, it is in the summary).
  let taskThere = true;
  const points = requestPoints(messages);
  try {
    for (const [k, end] of points.entries()) {
      if (end === 0) continue;
      const fresh = messages.slice(pushed, end);
      ctx.pushMany(fresh.map(bare));
      if (strategy === 'summarize') ctx.storeCompactSummaries(firstLines(fresh));
      pushed = end;
      const seen = events.length;
      const before = ctx.contextUsed;
      const outcome = await ctx.maybeCompact();
      const after = ctx.contextUsed;
      figures.requests += 1;
      figures.peakBefore = Math.max(figures.peakBefore, estimateTokens(messages.slice(0, end)));
      const where = `request ${k} (${end} messages, ${before} → ${after} of ${limit})`;
      const raised = events.slice(seen).map((e) => e.type);
      if (outcome) {
        figures.compactions += 1;
        if (outcome.escalation.some((r) => r.step === 'truncate')) figures.truncations += 1;
        assert.equal(outcome.fits, after <= limit, where);
        assert.equal(outcome.tokensAfter, after, where);
      }
      if (ctx.fits) {
        figures.sent += 1;
        figures.peakAfter = Math.max(figures.peakAfter, after);
        assert.ok(after <= limit, `${where}: over the limit`);
        assert.ok(!raised.includes('over_limit'), where);
      } else {
        figures.held += 1;
        // Never silently: the over_limit event came with this growth of the conversation.
        assert.ok(outcome && !outcome.fits && raised.includes('over_limit'), `${where}: over the limit without over_limit`);
      }
      const input = messages.slice(0, end);
      const newest = input.findLastIndex((m, i) => i === 0 || m.turn_id.owner !== input[i - 1].turn_id.owner || m.turn_id.number !== input[i - 1].turn_id.number);
      const step = input.slice(newest);
      if (strategy === 'llm' && outcome && !outcome.error) {
        figures.summaries += 1;
        const sent = ctx.messages();
        const present = sent.some((m) => !m.summary_of && JSON.stringify(m.content) === JSON.stringify(task.content));
        if (present) figures.taskKept += 1;
        // A compaction keeps the task verbatim whenever it fits in the room beside the kept turns and the summary.
        const { keepRecentTokens, maxSummaryTokens } = compactorFor('llm', limit);
        const room = limit - Math.max(keepRecentTokens, estimateTokens(step)) - maxSummaryTokens;
        if (checkTask && taskThere && estimateTokens([task]) <= room) assert.ok(present, `${where}: the task was summarized`);
        taskThere = present;
      }
      if (k % every !== 0 && k !== points.length - 1) continue;

      const sent = ctx.messages();
      assert.deepEqual(validateToolPairs(sent), [], `${where}: pairing`);
      // The newest step, byte for byte, and its turn ids are the adapter's.
      const truncated = outcome?.escalation.some((r) => r.step === 'truncate');
      if (!truncated) {
        assert.deepEqual(strip(sent.slice(-step.length)).map(bare), step.map(bare), `${where}: the newest step changed`);
        assert.deepEqual(sent.slice(-step.length).map((m) => m.turn_id), step.map((m) => m.turn_id), `${where}: turn ids`);
      }
      if (strategy === 'llm') {
        const present = sent.some((m) => !m.summary_of && JSON.stringify(m.content) === JSON.stringify(task.content));
        const summarized = sent.some((m) => m.summary_of);
        assert.ok(present || summarized, `${where}: the task lost`);
        if (summarized) assert.equal(sent[0].content[0].text, `${SUMMARY_PREFIX}${DEFAULT_SUMMARY_TEXT}`, where);
      } else {
        // Threshold strategies change nothing but tool-result content.
        assert.equal(sent.length, end, where);
      }
    }
    assert.ok(figures.compactions > 0, 'no compaction');
    return figures;
  } finally {
    ctx.free();
  }
}

const TRANSCRIPTS = conversationFiles().filter((f) => f.startsWith('tools.'));
const read = (file) => (file.endsWith('.anthropic.json') ? fromAnthropic(loadConversation(file)) : fromOpenAI(loadConversation(file))).messages;

for (const file of TRANSCRIPTS) {
  for (const share of [0.5, 0.3]) {
    for (const strategy of ['redact', 'summarize', 'llm']) {
      test(`${file} at ${share * 100} % of its estimate, ${strategy}: compacted, never over the limit, newest step intact`, async () => {
        const messages = read(file);
        const limit = Math.ceil(estimateTokens(messages) * share);
        const figures = await replay(messages, limit, strategy);
        // What cannot fit is the task itself: larger than the limit, and only an LLM summary can shrink it.
        const taskAlone = estimateTokens(messages.slice(0, 1));
        if (figures.held > 0) assert.ok(taskAlone > THRESHOLD * limit || strategy !== 'llm', JSON.stringify(figures));
        if (strategy === 'llm') assert.equal(figures.held, taskAlone > limit ? 1 : 0, `${JSON.stringify(figures)}: only the first request, the task alone, may not fit`);
        console.log(`# ${file} ${share} ${strategy}: ${JSON.stringify({ limit, taskAlone, ...figures })}`);
      });
    }
  }
}

test('the step rule: fromAnthropic, fromOpenAI and pushes without turn ids give the same turns, a turn per step', () => {
  for (const name of new Set(TRANSCRIPTS.map((f) => f.replace(/\.(anthropic|openai)\.json$/, '')))) {
    const a = fromAnthropic(loadConversation(`${name}.anthropic.json`)).messages;
    const o = fromOpenAI(loadConversation(`${name}.openai.json`)).messages;
    const turns = (ms) => ms.map((m) => `${m.turn_id.owner}${m.turn_id.number}`);
    assert.deepEqual(turns(o), turns(a), name);
    // One user turn, then a turn per assistant message, its tool results in it.
    assert.equal(new Set(turns(a)).size, 1 + a.filter((m) => m.role === 'assistant').length, name);
    a.forEach((m, i) => {
      if (m.content.some((b) => b.type === 'tool_result')) assert.deepEqual(m.turn_id, a[i - 1].turn_id, `${name} ${i}`);
    });
    const ctx = new ContextManager({ contextLimit: 1_000_000 });
    a.forEach((m, i) => (i % 3 === 0 ? ctx.push(bare(m)) : ctx.pushMany([bare(m)])));
    assert.deepEqual(turns(ctx.messages()), turns(a), name);
    ctx.free();
  }
});

test('pushed turn ids are kept, and assigned ones continue after them', () => {
  const ctx = new ContextManager({ contextLimit: 1_000_000 });
  ctx.push({ role: 'user', turn_id: { owner: 'u', number: 7 }, content: [{ type: 'text', text: 'task' }] });
  ctx.pushMany([
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a b' }] },
    { role: 'user', content: [{ type: 'text', text: 'more' }] },
  ]);
  assert.deepEqual(ctx.messages().map((m) => m.turn_id), [
    { owner: 'u', number: 7 }, { owner: 'a', number: 1 }, { owner: 'a', number: 1 }, { owner: 'u', number: 8 },
  ]);
  ctx.free();
});

/** A generated single-task session: the task, then `steps` tool calls with results of ~`size` characters. */
function longSession(steps, size) {
  const words = 'file line error test function return value import module const result passed failed build'.split(' ');
  let seed = 7;
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const prose = (n) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ');
  const out = [{ role: 'user', content: [{ type: 'text', text: `Task: ${prose(200)}` }] }];
  for (let s = 1; s <= steps; s++) {
    out.push({ role: 'assistant', content: [{ type: 'text', text: prose(15) }, { type: 'tool_use', id: `call_${s}`, name: 'bash', input: { cmd: `cat src/${s}.rs` } }] });
    out.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_${s}`, content: prose(Math.floor(size / 6 * (0.5 + rnd()))) }] });
  }
  out.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
  return fromAnthropic({ messages: out }).messages;
}

for (const strategy of ['redact', 'summarize', 'llm']) {
  test(`a generated 1,000-step session at 50 % and 30 %, ${strategy}: compacted, never over the limit`, async () => {
    const messages = longSession(1_000, 1_200);
    const total = estimateTokens(messages);
    for (const share of [0.5, 0.3]) {
      const figures = await replay(messages, Math.ceil(total * share), strategy, { every: 50 });
      assert.equal(figures.held, 0, JSON.stringify(figures));
      assert.equal(figures.requests, 1_001);
      if (strategy === 'llm') assert.equal(figures.taskKept, figures.summaries, `the task kept verbatim by every summary: ${JSON.stringify(figures)}`);
      console.log(`# 1,000 steps ${share} ${strategy}: ${JSON.stringify(figures)}`);
    }
  });
}

test('keepRecentTokens keeps the newest whole turns that fit, in both stateless compactors', async () => {
  const messages = longSession(20, 600);
  const perStep = estimateTokens(messages.slice(-3, -1));
  const budget = Math.floor(perStep * 4.5);
  const { messages: redacted } = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTokens: budget }).compact(messages);
  const untouched = redacted.filter((m) => m.content.some((b) => b.type === 'tool_result' && b.content !== REDACTED)).length;
  // The last turn is the final answer: it, and the steps that fit with it.
  assert.ok(untouched >= 3 && untouched <= 5, `${untouched} steps kept`);
  assert.ok(estimateTokens(messages.slice(redacted.findIndex((m, i) => i > 0 && m.content.some((b) => b.type === 'tool_result' && b.content !== REDACTED)) - 1)) <= budget);
  const one = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTokens: 0 }).compact(messages).messages;
  assert.equal(one.filter((m) => m.content.some((b) => b.type === 'tool_result' && b.content !== REDACTED)).length, 0, 'the last turn (the answer) alone');
  const { messages: summarized } = await new LlmCompactor({ summarize: () => 'S', keepRecentTokens: budget }).compact(messages);
  assert.ok(estimateTokens(summarized.slice(2)) <= budget, 'kept turns within the budget');
  assert.deepEqual(summarized.at(-1), messages.at(-1));
  assert.throws(() => new ThresholdCompactor({ keepRecentTokens: -1 }),
    (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT' && e.path === 'options.keepRecentTokens');
  assert.throws(() => new LlmCompactor({ summarize: () => 'S', keepUserMessagesTokens: 1.5 }),
    (e) => e instanceof CompactionError && e.path === 'options.keepUserMessagesTokens');
  assert.throws(() => new ContextManager({ contextLimit: 100, reserveTokens: 100 }),
    (e) => e instanceof CompactionError && e.path === 'options.reserveTokens');
  assert.throws(() => new ContextManager({ contextLimit: 100, maxToolResultTokens: 0 }),
    (e) => e instanceof CompactionError && e.path === 'options.maxToolResultTokens');
});

test('LLM compaction keeps the task verbatim after the summary and tells the summarizer so', async () => {
  const messages = longSession(12, 600);
  const prompts = [];
  const summarize = ({ prompt }) => { prompts.push(prompt); return 'what happened'; };
  const { messages: out } = await new LlmCompactor({ summarize, keepRecentTurns: 2 }).compact(messages);
  assert.equal(out[0].content[0].text, `${SUMMARY_PREFIX}what happened`);
  assert.deepEqual(out[1], messages[0], 'the task, verbatim');
  assert.deepEqual(out.slice(2), messages.slice(-3));
  assert.ok(prompts[0].startsWith('Summarize this conversation. The user messages marked "(kept verbatim)"'), prompts[0].slice(0, 120));
  assert.ok(prompts[0].includes('User (kept verbatim): Task: '));
  // 0: the specification's shape.
  const { messages: spec } = await new LlmCompactor({ summarize, keepRecentTurns: 2, keepUserMessagesTokens: 0 }).compact(messages);
  assert.deepEqual(spec.slice(1), messages.slice(-3));
  assert.ok(prompts[1].startsWith('Summarize this conversation:\n\nUser: Task: '));
});

test('a huge tool result in the newest step is cut to maxToolResultTokens, head and tail kept; over_limit when even that is not enough', async () => {
  const messages = longSession(3, 600);
  messages[messages.length - 2].content[0].content = 'head of the output\n' + 'x y z '.repeat(40_000) + '\ntail of the output';
  const events = [];
  const ctx = new ContextManager({ contextLimit: 8_000, reserveTokens: 1_000, maxToolResultTokens: 2_000, onEvent: (e) => events.push(e) });
  ctx.pushMany(messages.slice(0, -1).map(bare));
  const outcome = await ctx.maybeCompact();
  assert.equal(outcome.fits, true);
  assert.ok(ctx.contextUsed <= 7_000);
  assert.deepEqual(outcome.escalation.map((r) => r.step), ['shrink', 'shrink', 'truncate']);
  assert.deepEqual(outcome.escalation.at(-1), { step: 'truncate', maxTokens: 2_000, toolResults: 1 });
  const cut = ctx.messages().at(-1).content[0].content;
  assert.match(cut, /^head of the output\n/);
  assert.match(cut, /\ntail of the output$/);
  assert.match(cut, /\[… [\d,]+ characters \(about \d+ tokens\) cut for context management …\]/);
  assert.deepEqual(validateToolPairs(ctx.messages()), []);
  assert.deepEqual(events.map((e) => e.type), ['compaction']);
  ctx.free();

  // A user message larger than the room: nothing can make it fit, and the manager says so once per growth.
  const small = new ContextManager({ contextLimit: 50, onEvent: (e) => events.push(e) });
  events.length = 0;
  small.push({ role: 'user', content: [{ type: 'text', text: 'word '.repeat(500) }] });
  const first = await small.maybeCompact();
  assert.equal(first.fits, false);
  assert.equal(small.fits, false);
  assert.deepEqual(events.map((e) => e.type), ['compaction', 'over_limit']);
  assert.equal(events[1].room, 50);
  assert.ok(events[1].tokens > 50 && /does not fit/.test(events[1].message));
  assert.equal(await small.maybeCompact(), null, 'not again without growth');
  small.push({ role: 'assistant', content: [{ type: 'text', text: 'ok' }] });
  await small.maybeCompact();
  assert.deepEqual(events.map((e) => e.type), ['compaction', 'over_limit', 'compaction', 'over_limit']);
  small.free();
});

test('text-mode sessions: LLM compaction shrinks them; threshold compaction says once why it cannot', async () => {
  const file = conversationFiles().find((f) => f.startsWith('text.') && f.endsWith('.anthropic.json') && estimateTokens(fromAnthropic(loadConversation(f)).messages) > 5_000);
  const messages = fromAnthropic(loadConversation(file)).messages;
  const limit = Math.ceil(estimateTokens(messages) * 0.6);
  const events = [];
  const threshold = new ContextManager({ contextLimit: limit, compactor: { type: 'threshold', toolCompaction: 'redact' }, onEvent: (e) => events.push(e) });
  for (let i = 0; i < messages.length; i++) {
    threshold.push(bare(messages[i]));
    await threshold.maybeCompact();
  }
  assert.equal(events.filter((e) => e.type === 'nothing_to_compact').length, 1, events.map((e) => e.type).join());
  assert.match(events.find((e) => e.type === 'nothing_to_compact').message, /LLM compaction/);
  threshold.free();
  // The task is not checked: in text mode every observation is a user message, and the newest are kept.
  const figures = await replay(messages, limit, 'llm', { task: false });
  assert.equal(figures.held, 0, JSON.stringify(figures));
  assert.ok(figures.compactions > 0);
});

test('summarize mode leaves a redacted tool result redacted (a summary would make it longer), in every path', async () => {
  const messages = longSession(4, 300).map((m) => ({
    ...m,
    content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, content: REDACTED, compact_summary: `summary of ${b.tool_use_id}` } : b)),
  }));
  const compactor = new ThresholdCompactor({ keepRecentTurns: 1 });
  const { messages: out, result } = compactor.compact(messages);
  assert.deepEqual(result, { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 });
  assert.deepEqual(out, messages);
  const copy = structuredClone(messages);
  assert.deepEqual(compactor.compactInPlace(copy), result);
  assert.deepEqual(copy, messages);
  const ctx = new ContextManager({ contextLimit: 1_000_000 });
  ctx.pushMany(messages);
  assert.deepEqual(await ctx.forceCompact(), result);
  assert.deepEqual(ctx.messages().map((m) => m.content), messages.map((m) => m.content));
  ctx.free();
});
