// `npm run bench`: this package against a plain-JS peer, in one Node process.
// Prints a table (median and min..max per case, ratio = package / peer, both measured
// in this run) and writes bench/results/latest.json. Not part of the test suite.
//
//   npm run bench                 # every case (node --expose-gc: garbage is collected between runs)
//   BENCH_RUNS=31 npm run bench   # more runs per case (default 15)
//   BENCH_ONLY=request npm run bench   # only the groups whose name contains this
//   (threshold, request, idle, stateless, pushMany, llm, languages, blocks, metadata, replay, formats, transcripts)
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  ContextManager, ThresholdCompactor, estimateTokens, fromAnthropic, fromOpenAI, fromOpenAIResponses, fromVercelAI,
  toAnthropic, toOpenAI, toOpenAIResponses, toVercelAI,
} from 'context-compactor';
import { conversationFiles, loadConversation } from '../tests/js/support/conversations.mjs';
import { agentSession, generateConversation, inScript, nextTurn, withBlockContents, withMetadata } from './generate.mjs';
import { peerAnthropicMessages, peerCompact, peerRequestBody } from './peer.mjs';

const RUNS = Math.max(15, Number(process.env.BENCH_RUNS ?? 15));
const WARMUP = 3;
const ONLY = process.env.BENCH_ONLY ?? '';
const only = (group) => group.includes(ONLY);
const FIELDS = { model: 'claude-sonnet-4-5', max_tokens: 4096 };
const encoder = new TextEncoder();

/** Written through before a `cold` run: four times the bench machine's 32 MiB L3 cache. Made
 * at the first such run: held from the start, its 128 MiB would count towards V8's external
 * memory, and so its collections, in every case. */
let sweep = null;

/**
 * Times each side's `run` RUNS times after WARMUP untimed runs, the sides taking turns run
 * by run (the first one first, then the last one first, and so on): on a shared machine
 * whose speed drifts by tens of percent within a minute, both then meet the same drift,
 * which the ratio of their medians would otherwise carry. Per side, `setup` (untimed)
 * prepares each run's input; `batch` repeats very short operations so that the clock can
 * see them. `cold`: each run starts with the CPU caches swept, so that neither side finds
 * its data there.
 */
async function measureSides(...sides) {
  const times = sides.map(() => []);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const order = sides.map((_, k) => (i % 2 === 0 ? k : sides.length - 1 - k));
    for (const k of order) {
      const { setup = () => undefined, run, teardown = () => {}, batch = 1, cold = false } = sides[k];
      const input = await setup();
      // Collect the setup's garbage now, so that its pause does not land in the timed code.
      globalThis.gc?.();
      if (cold) {
        sweep ??= new Uint8Array(128 << 20);
        for (let b = 0; b < sweep.length; b += 64) sweep[b] += 1;
      }
      const start = performance.now();
      for (let b = 0; b < batch; b++) await run(input);
      const elapsed = (performance.now() - start) / batch;
      teardown(input);
      if (i >= WARMUP) times[k].push(elapsed);
    }
  }
  return times.map((t) => {
    t.sort((a, b) => a - b);
    return { median: t[Math.floor(t.length / 2)], min: t[0], max: t.at(-1), runs: RUNS };
  });
}

/** One side alone (a row without a peer). */
async function measure(side) {
  return (await measureSides(side))[0];
}

const clone = (v) => structuredClone(v);

/** A manager holding `messages`, above its threshold (limit = the estimate) unless `limit` is given. */
function manager(messages, { limit, compactor } = {}) {
  const ctx = new ContextManager({ contextLimit: limit ?? estimate(messages), compactor });
  ctx.pushMany(messages);
  return ctx;
}

const estimates = new WeakMap();
function estimate(messages) {
  if (!estimates.has(messages)) estimates.set(messages, Math.max(1, estimateTokens(messages)));
  return estimates.get(messages);
}

/** The package's request body: `requestBody` when the package has it, else what an app does today. */
function packageBody(ctx) {
  if (typeof ctx.requestBody === 'function') return ctx.requestBody({ format: 'anthropic', ...FIELDS });
  return encoder.encode(JSON.stringify({ ...FIELDS, messages: toAnthropic(ctx.messages()) }));
}

const rows = [];
function row(name, input, ours, peer, note = '') {
  const entry = { case: name, input, ours, peer, ratio: peer ? ours.median / peer.median : null, note };
  rows.push(entry);
  const f = (m) => (m ? `${m.median.toFixed(3)} (${m.min.toFixed(3)}..${m.max.toFixed(3)})` : '');
  console.log(`${name.padEnd(44)} ${input.padEnd(12)} ${f(ours).padEnd(30)} ${f(peer).padEnd(30)} ${entry.ratio === null ? '' : `${entry.ratio.toFixed(2)}×`} ${note}`);
}

/**
 * Threshold compaction by a ContextManager that already holds the conversation. The `gc()`
 * before each run moves the peer's freshly cloned objects, which leaves them in the cache,
 * and pushes the package's out: `cold` sweeps the caches after it, for both sides alike.
 */
async function managerCompaction(name, input, messages, { summaries = {}, cold = false } = {}) {
  const [ours, peer] = await measureSides(
    { setup: () => manager(messages), run: (ctx) => ctx.maybeCompact(), teardown: (ctx) => ctx.free(), cold },
    { setup: () => clone(messages), run: (arr) => peerCompact(arr, summaries), cold },
  );
  row(name, input, ours, peer);
}

/** The request body: unchanged since the last one, after one new turn, right after a compaction. */
async function requestBodies(input, messages) {
  const wire = peerAnthropicMessages(messages);
  const ctx = manager(messages, { limit: 1_000_000_000 });
  packageBody(ctx);
  const [steady, peerSteady] = await measureSides({ run: () => packageBody(ctx) }, { run: () => peerRequestBody(FIELDS, wire) });
  row('requestBody, unchanged since the last', input, steady, peerSteady);
  ctx.free();

  const turn = nextTurn(messages);
  const turnWire = peerAnthropicMessages(turn);
  const [pushed, peerPushed] = await measureSides({
    setup: () => { const c = manager(messages, { limit: 1_000_000_000 }); packageBody(c); return c; },
    run: (c) => { c.pushMany(turn); packageBody(c); },
    teardown: (c) => c.free(),
  }, {
    setup: () => wire.slice(),
    run: (w) => { w.push(...turnWire); peerRequestBody(FIELDS, w); },
  });
  row('pushMany(new turn) + requestBody', input, pushed, peerPushed);

  const compactedWire = (() => { const c = clone(messages); peerCompact(c); return peerAnthropicMessages(c); })();
  const [after, peerAfter] = await measureSides({
    setup: async () => { const c = manager(messages); packageBody(c); await c.maybeCompact(); return c; },
    run: (c) => packageBody(c),
    teardown: (c) => c.free(),
  }, { run: () => peerRequestBody(FIELDS, compactedWire) });
  row('requestBody right after a compaction', input, after, peerAfter);
}

/** maybeCompact() below the threshold, at every size; the sizes take turns so that warm-up favours none. */
async function maybeCompactIdle(sizes) {
  const ctxs = sizes.map((n) => manager(conversation(n), { limit: 1_000_000_000 }));
  const times = sizes.map(() => []);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const [k, ctx] of ctxs.entries()) {
      const start = performance.now();
      for (let b = 0; b < 5000; b++) await ctx.maybeCompact();
      if (i >= WARMUP) times[k].push((performance.now() - start) / 5000);
    }
  }
  ctxs.forEach((c) => c.free());
  return times.map((t) => {
    t.sort((a, b) => a - b);
    return { median: t[Math.floor(t.length / 2)], min: t[0], max: t.at(-1), runs: RUNS };
  });
}

async function statelessCompaction(name, input, messages, summaries = {}) {
  const compactor = new ThresholdCompactor({});
  // A fresh copy for every side: objects fresh from structuredClone are slower to read
  // than the generator's (up to 2× here), so all three read the same kind.
  const sides = [
    { setup: () => clone(messages), run: (arr) => compactor.compact(arr, summaries) },
    { setup: () => clone(messages), run: (arr) => peerCompact(arr, summaries) },
  ];
  // (An older build of the package, measured for comparison, may not have compactInPlace.)
  if (typeof compactor.compactInPlace === 'function') {
    sides.push({ setup: () => clone(messages), run: (arr) => compactor.compactInPlace(arr, summaries) });
  }
  const [ours, peer, inPlace] = await measureSides(...sides);
  row(name, input, ours, peer, 'peer mutates in place; package returns a new array, copying what it changes');
  if (inPlace) row('ThresholdCompactor.compactInPlace(array)', input, inPlace, peer, 'both in place');
}

async function loading(input, messages) {
  const [ours, peer] = await measureSides({
    setup: () => new ContextManager({ contextLimit: 1_000_000_000 }),
    run: (ctx) => ctx.pushMany(messages),
    teardown: (ctx) => ctx.free(),
  }, { run: () => JSON.stringify(messages) });
  row('pushMany(all messages)', input, ours, peer, 'peer: JSON.stringify of the array');
}

async function llmOverhead(input, messages) {
  const summary = 'The user and the assistant worked through the files; tests pass.';
  const compactor = { type: 'llm', summarize: async () => summary };
  const ours = await measure({
    setup: () => manager(messages, { limit: 1_000_000_000, compactor }),
    run: (ctx) => ctx.forceCompact(),
    teardown: (ctx) => ctx.free(),
  });
  row('LLM compaction overhead (instant summarizer)', input, ours, null, 'absolute; target ≤ 10 ms');
}

/**
 * A single-task agent session replayed request by request (bench/generate.mjs's
 * `agentSession`): before each model call the agent pushes what arrived since, then
 * `maybeCompact()` + `requestBody()`; the peer is `JSON.stringify` + `TextEncoder` of the
 * same body. Per request, mean over the requests of one replay (with and without a
 * compaction apart), the replay repeated as every case is.
 */
async function replayRequests(input, session) {
  const limit = Math.ceil(estimate(session) / 2);
  const points = session.flatMap((m, i) => (m.role === 'assistant' ? [i] : []));
  const bare = session.map(({ role, content }) => ({ role, content }));
  const sides = { idle: { ours: [], peer: [] }, compacting: { ours: [], peer: [] } };
  for (let run = 0; run < WARMUP + RUNS; run++) {
    globalThis.gc?.();
    const ctx = new ContextManager({ contextLimit: limit, compactor: { type: 'threshold', toolCompaction: 'redact' } });
    const sums = { idle: { ours: 0, peer: 0, n: 0 }, compacting: { ours: 0, peer: 0, n: 0 } };
    let pushed = 0;
    for (const end of points) {
      ctx.pushMany(bare.slice(pushed, end));
      pushed = end;
      let start = performance.now();
      const outcome = await ctx.maybeCompact();
      const body = ctx.requestBody({ format: 'anthropic', ...FIELDS });
      const ours = performance.now() - start;
      const object = JSON.parse(new TextDecoder().decode(body));
      start = performance.now();
      encoder.encode(JSON.stringify(object));
      const peer = performance.now() - start;
      const sum = sums[outcome ? 'compacting' : 'idle'];
      sum.ours += ours;
      sum.peer += peer;
      sum.n += 1;
    }
    ctx.free();
    if (run < WARMUP) continue;
    for (const kind of ['idle', 'compacting']) {
      if (sums[kind].n === 0) continue;
      sides[kind].ours.push(sums[kind].ours / sums[kind].n);
      sides[kind].peer.push(sums[kind].peer / sums[kind].n);
    }
  }
  const stats = (t) => {
    t.sort((a, b) => a - b);
    return { median: t[Math.floor(t.length / 2)], min: t[0], max: t.at(-1), runs: t.length };
  };
  row('replay: maybeCompact + requestBody, no compaction', input, stats(sides.idle.ours), stats(sides.idle.peer),
    'per request; peer: JSON.stringify + TextEncoder of the same body; target ≤ 0.1×');
  if (sides.compacting.ours.length > 0) {
    row('replay: maybeCompact + requestBody, compacting', input, stats(sides.compacting.ours), stats(sides.compacting.peer),
      'per request that compacted (redact, limit = half the session)');
  }
}

const machine = `${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB), Node ${process.version}, ${process.platform}/${process.arch}`;
console.log(`context-compactor bench: ${RUNS} runs per case after ${WARMUP} warm-up runs; times in ms, median (min..max)`);
console.log(machine);
console.log(`${'case'.padEnd(44)} ${'input'.padEnd(12)} ${'package'.padEnd(30)} ${'peer'.padEnd(30)} ratio`);

const sizes = [100, 1000, 5000];
// Only the conversation being measured is kept alive: a garbage collection that lands in a
// timed run costs in proportion to the whole JS heap, so holding every size (~80 MB of
// messages) slowed both columns by GC pauses that depend on the bench, not on the code.
let current = { n: 0, messages: null };
function conversation(n) {
  if (current.n !== n) {
    letGo();
    current = { n, messages: generateConversation(n) };
  }
  return current.messages;
}

/** Lets the last generated conversation go, for a group that measures other messages. */
function letGo() {
  current = { n: 0, messages: null };
  globalThis.gc?.();
}

if (only('threshold')) {
  for (const n of sizes) await managerCompaction('ContextManager threshold compaction', `${n} turns`, conversation(n));
  await managerCompaction('ContextManager threshold compaction, cold caches', '1000 turns', conversation(1000), { cold: true });
}
if (only('request')) for (const n of sizes) await requestBodies(`${n} turns`, conversation(n));
if (only('idle')) {
  const idle = await maybeCompactIdle(sizes);
  sizes.forEach((n, k) => row('maybeCompact() below the threshold', `${n} turns`, idle[k], k === 0 ? null : idle[0], 'peer column: the 100-turn time'));
}
if (only('stateless')) for (const n of sizes) await statelessCompaction('ThresholdCompactor.compact(array)', `${n} turns`, conversation(n));
if (only('pushMany')) for (const n of sizes) await loading(`${n} turns`, conversation(n));
if (only('llm')) for (const n of sizes) await llmOverhead(`${n} turns`, conversation(n));
// Each group below that makes messages of its own makes them in a function: a `const` of a
// block of this module's top-level code stays alive after the block (V8 keeps the module's
// frame), and the full collection before each later run would mark it.

// Text that is not English: the same 1,000 turns in Cyrillic and in Chinese.
async function languages() {
  for (const script of ['cyrillic', 'cjk']) {
    const messages = inScript(conversation(1000), script);
    await loading(`1000 turns, ${script}`, messages);
    await requestBodies(`1000 turns, ${script}`, messages);
    await llmOverhead(`1000 turns, ${script}`, messages);
  }
}
if (only('languages')) await languages();

// Tool results as arrays of text blocks (Anthropic's and MCP's shape) instead of strings.
async function blockContents() {
  const messages = withBlockContents(conversation(1000));
  await managerCompaction('ContextManager threshold compaction', '1000 turns, block contents', messages);
  await loading('1000 turns, block contents', messages);
}
if (only('blocks')) await blockContents();

// Messages with fields the model does not know (metadata, cache_control): kept as they are.
async function metadata() {
  const messages = withMetadata(conversation(1000));
  await managerCompaction('ContextManager threshold compaction', '1000 turns, metadata', messages);
  await loading('1000 turns, metadata', messages);
}
if (only('metadata')) await metadata();

// A single-task agent session of 1,000 steps, replayed request by request.
if (only('replay')) await replayRequests('1000 steps', agentSession(1000));

// Whole-conversation conversions, each against JSON.stringify of its own input.
const FORMATS = [
  ['Anthropic', (m) => toAnthropic(m), (x) => fromAnthropic(x)],
  ['OpenAI', (m) => toOpenAI(m), (x) => fromOpenAI(x)],
  ['OpenAIResponses', (m) => toOpenAIResponses(m), (x) => fromOpenAIResponses(x)],
  ['VercelAI', (m) => toVercelAI(m), (x) => fromVercelAI(x)],
];
async function formats() {
  const messages = conversation(1000);
  for (const [name, to, from] of FORMATS) {
    const [written, stringified] = await measureSides({ run: () => to(messages) }, { run: () => JSON.stringify(messages) });
    row(`to${name}(messages)`, '1000 turns', written, stringified, 'peer: JSON.stringify of the messages');
    const wire = to(messages);
    const [read, peer] = await measureSides({ run: () => from(wire) }, { run: () => JSON.stringify(wire) });
    row(`from${name}(wire)`, '1000 turns', read, peer, 'peer: JSON.stringify of its input');
  }
}
if (only('formats')) await formats();

// The real transcripts, all files in one run.
const transcripts = conversationFiles().filter((f) => f.endsWith('.anthropic.json'))
  .map((f) => fromAnthropic(loadConversation(f)).messages);
const all = `${transcripts.length} files`;
if (only('transcripts')) {
  // The last generated conversation would stay alive through this group's runs, and the
  // full collection before each run would mark it (1,000 turns, ~17 MB): that leaves wasm's
  // memory out of the CPU caches and the peer's objects in them, which these short rows feel.
  letGo();
  const [ours, peer] = await measureSides({
    setup: () => transcripts.map((m) => manager(m)),
    run: async (ctxs) => { for (const c of ctxs) await c.maybeCompact(); },
    teardown: (ctxs) => ctxs.forEach((c) => c.free()),
  }, { setup: () => clone(transcripts), run: (arrs) => arrs.forEach((a) => peerCompact(a)) });
  row('transcripts: ContextManager threshold compaction', all, ours, peer);
  const ctxs = transcripts.map((m) => manager(m, { limit: 1_000_000_000 }));
  ctxs.forEach(packageBody);
  const wires = transcripts.map(peerAnthropicMessages);
  row('transcripts: requestBody, unchanged', all, ...await measureSides({ run: () => ctxs.forEach(packageBody) },
    { run: () => wires.forEach((w) => peerRequestBody(FIELDS, w)) }));
  ctxs.forEach((c) => c.free());
  const compactor = new ThresholdCompactor({});
  row('transcripts: ThresholdCompactor.compact(array)', all,
    ...await measureSides({ setup: () => clone(transcripts), run: (arrs) => arrs.forEach((m) => compactor.compact(m)) },
      { setup: () => clone(transcripts), run: (arrs) => arrs.forEach((a) => peerCompact(a)) }));
}

mkdirSync(new URL('./results/', import.meta.url), { recursive: true });
// A partial run (BENCH_ONLY) keeps the last full run's table: it is written beside it.
const name = ONLY === '' ? 'latest.json' : `only-${ONLY.replace(/[^a-z0-9]+/gi, '-')}.json`;
writeFileSync(new URL(`./results/${name}`, import.meta.url),
  JSON.stringify({ date: new Date().toISOString(), machine, runs: RUNS, warmup: WARMUP, only: ONLY, rows }, null, 2) + '\n');
console.log(`results written to bench/results/${name}`);
