// Two builds of the package in one Node process, their runs taken in turn: how the
// commit messages and bench/README.md measure a change too small for the full bench's noise.
//
//   node --expose-gc bench/ab.mjs <pkg A> <pkg B> <case>    # each pkg: a directory built by scripts/build.sh
//
// Cases: pushMany-cjk, pushMany-cyrillic (1,000 generated turns), push (300 turns, one
// message a call), requestBody (the shared transcripts' bodies, unchanged options),
// compact (ThresholdCompactor.compact on the transcripts), held (maybeCompact on managers
// holding them). Prints each build's median and B/A.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { conversationFiles, loadConversation } from '../tests/js/support/conversations.mjs';
import { generateConversation, inScript } from './generate.mjs';

const [dirA, dirB, which] = process.argv.slice(2);
if (!which || typeof globalThis.gc !== 'function') {
  console.error('usage: node --expose-gc bench/ab.mjs <pkg A> <pkg B> <case>');
  process.exit(2);
}
const load = (dir) => import(pathToFileURL(resolve(dir, 'node.mjs')).href);
const builds = { A: await load(dirA), B: await load(dirB) };
const FIELDS = { format: 'anthropic', model: 'claude-sonnet-4-5', max_tokens: 4096 };
const transcripts = (P) => conversationFiles().filter((f) => f.endsWith('.anthropic.json'))
  .map((f) => P.fromAnthropic(loadConversation(f)).messages);

// Per case: what a build prepares once, what a run prepares (untimed), the timed run, and
// how many units a run is (the figure printed is per unit).
const CASES = {
  'pushMany-cjk': { once: () => inScript(generateConversation(1000), 'cjk'), setup: (P) => new P.ContextManager({ contextLimit: 1e9 }), run: (c, m) => c.pushMany(m), units: 1, unit: 'ms a call', free: true },
  'pushMany-cyrillic': { once: () => inScript(generateConversation(1000), 'cyrillic'), setup: (P) => new P.ContextManager({ contextLimit: 1e9 }), run: (c, m) => c.pushMany(m), units: 1, unit: 'ms a call', free: true },
  push: { once: () => generateConversation(300), setup: (P) => new P.ContextManager({ contextLimit: 1e9 }), run: (c, m) => m.forEach((x) => c.push(x)), units: (m) => m.length, unit: 'µs a message', free: true },
  requestBody: {
    once: (P) => transcripts(P).map((m) => { const c = new P.ContextManager({ contextLimit: 1e9 }); c.pushMany(m); c.requestBody(FIELDS); return c; }),
    run: (_, cs) => cs.forEach((c) => c.requestBody({ ...FIELDS })), units: 18, unit: 'µs a call',
  },
  compact: {
    once: (P) => ({ compactor: new P.ThresholdCompactor({}), conversations: transcripts(P) }),
    setup: (_, { conversations }) => structuredClone(conversations),
    run: (arrays, { compactor }) => arrays.forEach((a) => compactor.compact(a)), units: 18, unit: 'µs a call',
  },
  held: {
    once: (P) => transcripts(P).map((m) => [m, Math.max(1, P.estimateTokens(m))]),
    setup: (P, list) => list.map(([m, limit]) => { const c = new P.ContextManager({ contextLimit: limit }); c.pushMany(m); return c; }),
    run: async (cs) => { for (const c of cs) await c.maybeCompact(); }, units: 18, unit: 'µs a call', free: true,
  },
};
const spec = CASES[which];
if (!spec) {
  console.error(`unknown case ${which}: ${Object.keys(CASES).join(', ')}`);
  process.exit(2);
}
const data = { A: spec.once(builds.A), B: spec.once(builds.B) };
const times = { A: [], B: [] };
const RUNS = 60;
for (let r = 0; r < RUNS + 4; r++) {
  for (const k of r % 2 ? ['B', 'A'] : ['A', 'B']) {
    const input = spec.setup ? spec.setup(builds[k], data[k]) : undefined;
    globalThis.gc();
    const start = performance.now();
    await spec.run(input, data[k]);
    const elapsed = performance.now() - start;
    if (spec.free) (Array.isArray(input) ? input : [input]).forEach((c) => c.free());
    if (r >= 4) times[k].push(elapsed);
  }
}
const units = typeof spec.units === 'function' ? spec.units(data.A) : spec.units;
const scale = spec.unit.startsWith('µs') ? 1000 / units : 1;
const median = (t) => t.sort((a, b) => a - b)[t.length >> 1] * scale;
const [a, b] = [median(times.A), median(times.B)];
console.log(`${which}: A ${a.toFixed(2)} B ${b.toFixed(2)} ${spec.unit}, B/A ${(b / a).toFixed(3)} (medians of ${RUNS} runs each)`);
