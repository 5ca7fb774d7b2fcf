// The per-step overhead of the AI SDK integration (issue 20, item 5), not part of
// `npm run bench`: `compactingPrepareStep` on a step of a 1,000-turn conversation that adds
// one turn, against `pruneMessages` of `ai` (the SDK's own helper, which the AI SDK docs call
// from prepareStep) on the same messages, side by side in one run.
//
//   node --expose-gc bench/integrations.mjs
//   BENCH_RUNS=31 node --expose-gc bench/integrations.mjs     more runs (default and minimum 15)
//
// The conversation is bench/generate.mjs's generateConversation(1000) as AI SDK ModelMessages
// (toVercelAI: 6,000 messages, ~5.9 MB of JSON); the step adds nextTurn() (6 messages).
// Each run primes a fresh prepareStep with the conversation (untimed), then times the call
// for the step: the integration compares the step's messages with those it has seen, converts
// and pushes the 6 new ones, and runs maybeCompact(). Rows:
//
// - "a step below the threshold": the budget, ≤ 1× pruneMessages.
// - "a step that compacts": the new turn takes the conversation over the threshold; the
//   integration compacts, reads the manager's messages back and patches the tool messages
//   that changed (shown for what it costs; pruneMessages does not compact by tokens).
// - "compactingMiddleware, a call below the threshold": the middleware's transformParams on
//   the same step, its prompt made of new objects (structuredClone: new strings too, a
//   pessimistic stand-in for the prompt the SDK rebuilds each call), compared with the last
//   one's by structure.
import { performance } from 'node:perf_hooks';
import { pruneMessages } from 'ai';
import { estimateTokens, toVercelAI } from 'context-compactor';
import { compactingMiddleware, compactingPrepareStep } from 'context-compactor/ai-sdk';
import { generateConversation, nextTurn } from './generate.mjs';

const RUNS = Math.max(15, Number(process.env.BENCH_RUNS ?? 15));
const WARMUP = 3;

/**
 * Times each case RUNS times after WARMUP runs, the cases taking turns run by run (so that a
 * noisy moment on the shared machine hits every case alike). A case is `{ setup, run,
 * teardown }`; `setup` (untimed) makes each run's input, and garbage is collected before
 * each timed run.
 */
async function measureTogether(cases) {
  const times = cases.map(() => []);
  for (let i = 0; i < WARMUP + RUNS; i++) {
    for (const [k, { setup = () => null, run, teardown = () => {} }] of cases.entries()) {
      const input = await setup();
      globalThis.gc?.();
      const start = performance.now();
      await run(input);
      const elapsed = performance.now() - start;
      teardown(input);
      if (i >= WARMUP) times[k].push(elapsed);
    }
  }
  return times.map((t) => {
    t.sort((a, b) => a - b);
    return { median: t[Math.floor(t.length / 2)], min: t[0], max: t.at(-1), runs: RUNS };
  });
}

const conversation = generateConversation(1000);
const turn = nextTurn(conversation);
const base = toVercelAI(conversation);
const step = [...base, ...toVercelAI(turn)];
const tokens = estimateTokens(conversation);
const tokensAfter = estimateTokens([...conversation, ...turn]);
const prune = (messages) => pruneMessages({ messages, reasoning: 'all', toolCalls: 'before-last-3-messages', emptyMessages: 'remove' });

/** A prepareStep that has seen `base` (its first step), with `contextLimit`. */
async function primed(contextLimit) {
  const prepareStep = compactingPrepareStep({ contextLimit });
  const first = await prepareStep({ steps: [], messages: base });
  if (first !== undefined) throw new Error('the first step compacted: the limit is too low for this row');
  return prepareStep;
}
const stepArgs = { steps: [{ usage: { inputTokens: tokens } }], messages: step };

/** A middleware that has seen `base` as a prompt (a call), and the next call's prompt: new objects, as the SDK builds each call's. */
async function primedMiddleware(contextLimit) {
  const middleware = compactingMiddleware({ contextLimit });
  await middleware.transformParams({ type: 'generate', params: { prompt: base } });
  return { middleware, params: { prompt: structuredClone(step) } };
}

// Below the threshold: a limit of four times the conversation's estimate. Over it: the
// conversation fits under 0.75 × the limit, the new turn takes it over.
const limit = Math.ceil((tokens + (tokensAfter - tokens) / 2) / 0.75);
const [peer, below, compacting, middlewareBelow] = await measureTogether([
  { run: () => prune(step) },
  {
    setup: () => primed(4 * tokensAfter),
    run: async (p) => { if ((await p(stepArgs)) !== undefined) throw new Error('compacted below the threshold'); },
    teardown: (p) => p.free(),
  },
  {
    setup: () => primed(limit),
    run: async (p) => { if ((await p(stepArgs)) === undefined) throw new Error('did not compact'); },
    teardown: (p) => p.free(),
  },
  {
    setup: () => primedMiddleware(4 * tokensAfter),
    run: async ({ middleware, params }) => {
      if ((await middleware.transformParams({ type: 'generate', params })) !== params) throw new Error('compacted below the threshold');
    },
    teardown: ({ middleware }) => middleware.free(),
  },
]);
const rows = [
  ['compactingPrepareStep, a step below the threshold', below],
  ['compactingPrepareStep, a step that compacts', compacting],
  ['compactingMiddleware, a call below the threshold', middlewareBelow],
];

const f = (m) => `${m.median.toFixed(3)} (${m.min.toFixed(3)}..${m.max.toFixed(3)})`;
console.log(`1,000-turn conversation: ${base.length} ModelMessages, ${tokens} estimated tokens; the step adds ${step.length - base.length} messages. ${RUNS} runs, ms, median (min..max).`);
console.log(`${'case'.padEnd(52)} ${'ms'.padEnd(28)} ${'pruneMessages ms'.padEnd(28)} ratio`);
for (const [name, m] of rows) {
  console.log(`${name.padEnd(52)} ${f(m).padEnd(28)} ${f(peer).padEnd(28)} ${(m.median / peer.median).toFixed(3)}×`);
}
const ratio = below.median / peer.median;
console.log(`budget (a step below the threshold ≤ 1× pruneMessages): ${ratio <= 1 ? 'met' : 'MISSED'}, ${ratio.toFixed(3)}×`);
