// Compacts a real agent transcript with both strategies and prints before/after.
//
//   node examples/compact-transcript.mjs [conversation.anthropic.json …]
//
// The LLM strategy uses `offlineSummarizer()`, a small extractive summarizer
// shipped for demos: it is not an LLM and needs no API key. Swap in
// `openAISummarizer({ baseURL, apiKey, model })` for real summaries.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import {
  ContextManager, ThresholdCompactor, estimateTokens, fromAnthropic, offlineSummarizer, validateToolPairs,
} from 'context-compactor';

// By default: the longest real tool-calling transcript, one task worked through in a
// tool loop (a turn per model step, so keep-recent-turns has steps to keep).
const dir = new URL('../../shared/conversations/', import.meta.url);
const paths = process.argv.length > 2
  ? process.argv.slice(2)
  : [readdirSync(dir).filter((f) => f.startsWith('tools.') && f.endsWith('.anthropic.json'))
    .map((f) => new URL(f, dir)).reduce((a, b) => (statSync(b).size > statSync(a).size ? b : a))];
const messages = fromAnthropic({
  messages: paths.flatMap((path) => JSON.parse(readFileSync(path, 'utf8')).messages),
}).messages;
const tokens = estimateTokens(messages);
const contextLimit = Math.round(tokens * 1.1); // a context that is 91 % full
const turns = new Set(messages.map((m) => `${m.turn_id.owner}${m.turn_id.number}`)).size;

const gauge = (used) => {
  const filled = Math.round((used / contextLimit) * 30);
  return `[${'#'.repeat(Math.min(filled, 30)).padEnd(30, '.')}] ${used} / ${contextLimit} tokens (${Math.round((used / contextLimit) * 100)} %)`;
};

console.log(`Transcripts: ${paths.map((p) => String(p).split('/').pop()).join(', ')}`);
console.log(`  ${messages.length} messages, ${turns} turns`);
console.log(`  before       ${gauge(tokens)}`);

const threshold = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 3 });
const redacted = threshold.compact(messages);
console.log(`  threshold    ${gauge(estimateTokens(redacted.messages))}`);
console.log(`               ${JSON.stringify(redacted.result)}`);

const manager = new ContextManager({
  contextLimit,
  compactor: { type: 'llm', summarize: offlineSummarizer(), keepRecentTurns: 3, fallback: { toolCompaction: 'redact' } },
  onEvent: (event) => console.log(`  event        ${event.message ?? event.type}`),
});
manager.pushMany(messages);
const outcome = await manager.maybeCompact();
const after = manager.messages();
console.log(`  llm          ${gauge(manager.contextUsed)}`);
console.log(`               ${JSON.stringify(outcome.result)}; ${after.length} messages; ${outcome.durationMs.toFixed(1)} ms`);
console.log(`  tool pairs   ${validateToolPairs(after).length === 0 ? 'all paired' : 'BROKEN'}`);
console.log(`  kept         ${outcome.keptUserMessages} user message(s) verbatim after the summary (the task first)`);
console.log(`  summary      ${after[0].content[0].text.slice(0, 300)}…`);
