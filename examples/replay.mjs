// Replays a transcript request by request, as the agent sent it, through one
// ContextManager, and prints the context each request carries before and after
// compaction.
//
//   node examples/replay.mjs FILE [--limit N] [--strategy redact|summarize|llm]
//
// A request is the model call just before each assistant message. The LLM strategy
// uses `offlineSummarizer()`, an extractive summarizer shipped for demos (no API key).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import * as cc from 'context-compactor';
import { describeRow, replay, replayTotals, requestPoints } from '../www/js/replay.js';

const USAGE = `usage: node examples/replay.mjs FILE [--limit N] [--strategy redact|summarize|llm]

Replays FILE request by request (one request before each assistant message) through a
ContextManager and prints, per request, the context before and after compaction.

  FILE        a conversation in JSON: Anthropic { system, messages }, OpenAI Chat
              Completions, OpenAI Responses, Vercel AI SDK, or context-compactor messages
  --limit N   the context limit in tokens (default: half of the transcript's estimate)
  --strategy  redact or summarize: threshold compaction of old tool results;
              llm (default): a summary of old turns by the offline summarizer`;

const FROM = {
  anthropic: cc.fromAnthropic,
  openai: cc.fromOpenAI,
  'openai-responses': cc.fromOpenAIResponses,
  'vercel-ai': cc.fromVercelAI,
  model: (messages) => ({ messages }),
};

function fail(message) {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function parse(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { limit: { type: 'string' }, strategy: { type: 'string', default: 'llm' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    fail(err.message);
  }
  const { values, positionals } = parsed;
  if (values.help) { console.log(USAGE); process.exit(0); }
  if (positionals.length !== 1) fail(positionals.length === 0 ? 'No FILE given.' : 'Give one FILE.');
  if (!['redact', 'summarize', 'llm'].includes(values.strategy)) fail(`Unknown strategy ${JSON.stringify(values.strategy)}.`);
  const limit = values.limit === undefined ? null : Number(values.limit);
  if (limit !== null && !(Number.isSafeInteger(limit) && limit > 0)) fail(`--limit must be a positive whole number, got ${JSON.stringify(values.limit)}.`);
  return { file: positionals[0], limit, strategy: values.strategy };
}

/** The file's model messages and format name; exits 2 when it cannot be read as a conversation. */
function read(file) {
  let value;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    fail(`Cannot read ${file}: ${err.message}`);
  }
  const format = cc.detectFormat(value);
  if (format === null) fail(`${file}: not a conversation in a supported format.`);
  let messages;
  try {
    messages = FROM[format](value).messages;
  } catch (err) {
    fail(`${file} looks like ${format} but cannot be read: ${err.message}${err.path ? ` (at ${err.path})` : ''}`);
  }
  if (messages.length === 0) fail(`${file}: the conversation has no messages.`);
  return { format, messages };
}

const n = (x) => x.toLocaleString('en-US');
const pct = (x, limit) => `${Math.round((x / limit) * 100)} %`;

const args = parse(process.argv.slice(2));
const { format, messages } = read(args.file);
const tokens = cc.estimateTokens(messages);
const contextLimit = args.limit ?? Math.max(1, Math.round(tokens / 2));
const common = { threshold: 0.75, keepRecentTurns: 3 };
const compactor = args.strategy === 'llm'
  ? { type: 'llm', ...common, summarize: cc.offlineSummarizer() }
  : { type: 'threshold', ...common, toolCompaction: args.strategy };

console.log(`${args.file}: ${format}, ${messages.length} messages, ${n(tokens)} tokens (estimate), ${requestPoints(messages).length} requests`);
console.log(`limit ${n(contextLimit)} tokens (${pct(contextLimit, tokens)} of the transcript), threshold ${pct(common.threshold, 1)}, `
  + `keep ${common.keepRecentTurns} recent turns, `
  + `strategy ${args.strategy}${args.strategy === 'llm' ? ' (offline summarizer)' : ''}`);
if (args.strategy === 'summarize' && !messages.some((m) => m.content.some((b) => typeof b.compact_summary === 'string'))) {
  console.log('(no tool result carries a compact_summary: summarize mode leaves them to the escalation)');
}

const rows = await replay(cc, messages, { contextLimit, compactor });
const width = String(rows.length).length;
for (const row of rows) {
  const what = describeRow(row);
  console.log(`request ${String(row.request).padStart(width)}  ${String(row.messages).padStart(3)} messages  `
    + `${n(row.before).padStart(7)} → ${n(row.after).padStart(7)} of ${n(contextLimit)} tokens `
    + `(${pct(row.before, contextLimit).padStart(5)} → ${pct(row.after, contextLimit).padStart(5)})${what ? `  ${what}` : ''}`);
}
const t = replayTotals(rows);
console.log(`peak ${pct(t.peakUncompacted, contextLimit)} of the limit without compaction, ${pct(t.peakBefore, contextLimit)} before compacting, `
  + `${pct(t.peakAfter, contextLimit)} after; ${t.compactions} compactions; ${t.notFitting} requests over the limit`);
