// examples/replay.mjs run as a child process on the real tool-calling transcripts: each
// printed figure is checked against www/js/replay.js run here, and replay.js itself
// against the package (what each request sends, its size, its tool pairs).
//
//   node --test tests/examples/          (needs pkg/ built: scripts/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cc from 'context-compactor';
import { describeRow, replay, replayTotals, requestPoints } from '../../www/js/replay.js';
import { CONVERSATIONS_DIR, conversationFiles, loadConversation } from '../js/support/conversations.mjs';

const EXAMPLE = fileURLToPath(new URL('../../examples/replay.mjs', import.meta.url));
const TOOLS = conversationFiles().filter((f) => f.startsWith('tools.'));
const STRATEGIES = ['redact', 'summarize', 'llm'];
const LINE = /^request +(\d+) +(\d+) messages +([\d,]+) → +([\d,]+) of ([\d,]+) tokens \( *(\d+) % → +(\d+) %\)(?: {2}(.+))?$/;
const SUMMARY = /^peak (\d+) % of the limit without compaction, (\d+) % before compacting, (\d+) % after; (\d+) compactions; (\d+) requests over the limit$/;

/** Runs the example; resolves to { code, stdout, stderr }. */
function run(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [EXAMPLE, ...args], (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stdout, stderr }));
  });
}

const messagesOf = (file) => {
  const raw = loadConversation(file);
  return (file.endsWith('.anthropic.json') ? cc.fromAnthropic(raw) : cc.fromOpenAI(raw)).messages;
};
const num = (text) => Number(text.replaceAll(',', ''));
const pct = (x, limit) => Math.round((x / limit) * 100);

/** What the example configures, replayed in this process. */
function replayHere(messages, contextLimit, strategy, extra = {}) {
  const common = { threshold: 0.75, keepRecentTurns: 3 };
  const compactor = strategy === 'llm'
    ? { type: 'llm', ...common, summarize: cc.offlineSummarizer() }
    : { type: 'threshold', ...common, toolCompaction: strategy };
  return replay(cc, messages, { contextLimit, compactor, ...extra });
}

/** Checks the example's output against the rows computed here. */
function assertOutput(out, rows, contextLimit, label) {
  assert.equal(out.code, 0, `${label}: ${out.stderr}`);
  assert.equal(out.stderr, '', label);
  const lines = out.stdout.trimEnd().split('\n');
  assert.match(lines[1], new RegExp(`^limit ${contextLimit.toLocaleString('en-US')} tokens `), label);
  const requestLines = lines.filter((l) => l.startsWith('request '));
  assert.equal(requestLines.length, rows.length, `${label}: one line per request`);
  requestLines.forEach((line, i) => {
    const row = rows[i];
    const m = LINE.exec(line);
    assert.ok(m, `${label}: unexpected line ${JSON.stringify(line)}`);
    const where = `${label}, request ${row.request}`;
    assert.deepEqual(
      [Number(m[1]), Number(m[2]), num(m[3]), num(m[4]), num(m[5]), Number(m[6]), Number(m[7])],
      [row.request, row.messages, row.before, row.after, contextLimit, pct(row.before, contextLimit), pct(row.after, contextLimit)],
      where,
    );
    const what = m[8] ?? '';
    assert.equal(what, describeRow(row), where);
    const r = row.outcome?.result;
    // The words say what the outcome counts.
    assert.equal(/redacted (\d+) tool result/.exec(what)?.[1], r?.toolResultsRedacted ? String(r.toolResultsRedacted) : undefined, where);
    assert.equal(/summarized (\d+) tool result/.exec(what)?.[1], r?.toolResultsSummarized ? String(r.toolResultsSummarized) : undefined, where);
    assert.equal(/LLM summary of (\d+) turn/.exec(what)?.[1], r?.turnsCompacted ? String(r.turnsCompacted) : undefined, where);
    assert.equal(what.includes('escalation: '), (row.outcome?.escalation.length ?? 0) > 0, where);
    assert.equal(what.includes('DOES NOT FIT'), !row.fits, where);
    if (row.outcome === null) assert.equal(what, '', where);
  });
  const totals = replayTotals(rows);
  const s = SUMMARY.exec(lines.at(-1));
  assert.ok(s, `${label}: unexpected summary ${JSON.stringify(lines.at(-1))}`);
  assert.deepEqual(s.slice(1).map(Number), [
    pct(totals.peakUncompacted, contextLimit), pct(totals.peakBefore, contextLimit), pct(totals.peakAfter, contextLimit),
    totals.compactions, totals.notFitting,
  ], label);
}

for (const file of TOOLS) {
  test(`replay.mjs on ${file}, at 50 % and 30 % of its size, each strategy`, async () => {
    const messages = messagesOf(file);
    const tokens = cc.estimateTokens(messages);
    const path = fileURLToPath(new URL(file, CONVERSATIONS_DIR));
    const runs = [];
    for (const strategy of STRATEGIES) {
      // 50 % is the default limit; 30 % is given.
      runs.push({ strategy, limit: Math.round(tokens / 2), args: [path, '--strategy', strategy] });
      const limit = Math.round(tokens * 0.3);
      runs.push({ strategy, limit, args: [path, '--limit', String(limit), '--strategy', strategy] });
    }
    const outputs = await Promise.all(runs.map((r) => run(...r.args)));
    for (const [i, { strategy, limit }] of runs.entries()) {
      assertOutput(outputs[i], await replayHere(messages, limit, strategy), limit, `${strategy} at ${limit}`);
    }
    // The defaults are the LLM strategy at half the size.
    assert.equal((await run(path)).stdout, outputs[runs.findIndex((r) => r.strategy === 'llm')].stdout);
  });
}

test('at 30 % the transcripts need compaction and the escalation (so the runs above cover them)', async () => {
  let compacted = 0;
  let escalated = 0;
  for (const file of TOOLS) {
    const messages = messagesOf(file);
    const rows = await replayHere(messages, Math.round(cc.estimateTokens(messages) * 0.3), 'redact');
    compacted += rows.filter((r) => r.compacted).length;
    escalated += rows.filter((r) => r.outcome?.escalation.length > 0).length;
  }
  assert.ok(compacted > 0 && escalated > 0, `${compacted} compactions, ${escalated} escalations`);
});

test('replay.js: one row per model call, each the size of what it sends', async () => {
  for (const file of TOOLS) {
    const messages = messagesOf(file);
    const points = requestPoints(messages);
    assert.equal(points.length, messages.filter((m) => m.role === 'assistant').length);
    for (const strategy of STRATEGIES) {
      const limit = Math.round(cc.estimateTokens(messages) * 0.3);
      const rows = await replayHere(messages, limit, strategy, { keepMessages: true });
      const label = `${file}, ${strategy}`;
      assert.equal(rows.length, points.length, label);
      let compactedYet = false;
      for (const [i, row] of rows.entries()) {
        const where = `${label}, request ${row.request}`;
        assert.equal(row.messages, points[i], where);
        assert.equal(messages[row.messages].role, 'assistant', `${where}: the request is the one before an assistant message`);
        assert.equal(row.uncompacted, cc.estimateTokens(messages.slice(0, row.messages)), where);
        if (!compactedYet) assert.equal(row.before, row.uncompacted, `${where}: nothing compacted yet`);
        compactedYet ||= row.compacted;
        assert.equal(row.after, cc.estimateTokens(row.sent), where);
        assert.equal(row.fits, row.after <= limit, where);
        assert.deepEqual(cc.validateToolPairs(row.sent), [], where);
        if (row.outcome === null) assert.equal(row.after, row.before, where);
        else assert.deepEqual([row.outcome.tokensBefore, row.outcome.tokensAfter], [row.before, row.after], where);
        if (!row.fits) assert.ok(row.events.some((e) => e.type === 'over_limit'), `${where}: over_limit raised`);
        // The newest message pushed is sent as it was (a truncated tool result aside).
        const last = row.sent.at(-1);
        assert.equal(last.id, messages[row.messages - 1].id, where);
      }
    }
  }
});

test('replay.mjs reads every supported format alike', async () => {
  const file = TOOLS.find((f) => f.startsWith('tools.marshmallow') && f.endsWith('.anthropic.json'));
  const messages = messagesOf(file);
  const dir = mkdtempSync(join(tmpdir(), 'replay-example-'));
  const requestLines = (out) => out.stdout.split('\n').filter((l) => l.startsWith('request ') || l.startsWith('peak '));
  const reference = await run(fileURLToPath(new URL(file, CONVERSATIONS_DIR)));
  assert.equal(reference.code, 0, reference.stderr);
  const formats = {
    openai: cc.toOpenAI(messages),
    'openai-responses': cc.toOpenAIResponses(messages),
    'vercel-ai': cc.toVercelAI(messages),
    model: messages,
  };
  for (const [format, value] of Object.entries(formats)) {
    const path = join(dir, `${format}.json`);
    writeFileSync(path, JSON.stringify(value));
    const out = await run(path);
    assert.equal(out.code, 0, `${format}: ${out.stderr}`);
    assert.match(out.stdout, new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${format}, ${messages.length} messages`), format);
    assert.deepEqual(requestLines(out), requestLines(reference), format);
  }
});

test('bad arguments and unreadable files: usage on stderr, exit code 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'replay-example-'));
  const notJson = join(dir, 'not.json');
  writeFileSync(notJson, 'this is not json');
  const notConversation = join(dir, 'other.json');
  writeFileSync(notConversation, '{"hello": "world"}');
  const good = fileURLToPath(new URL(TOOLS[0], CONVERSATIONS_DIR));
  const cases = [
    [[], /No FILE given/],
    [[good, good], /Give one FILE/],
    [[good, '--strategy', 'magic'], /Unknown strategy "magic"/],
    [[good, '--limit', '0'], /--limit must be a positive whole number, got "0"/],
    [[good, '--limit', 'lots'], /--limit must be a positive whole number, got "lots"/],
    [[good, '--limit', '1.5'], /--limit must be a positive whole number/],
    [[good, '--limit'], /--limit/],
    [[good, '--bogus'], /bogus/],
    [[join(dir, 'missing.json')], /Cannot read .*missing\.json/],
    [[notJson], /Cannot read .*not\.json/],
    [[notConversation], /not a conversation in a supported format/],
  ];
  for (const [args, message] of cases) {
    const out = await run(...args);
    const label = JSON.stringify(args);
    assert.equal(out.code, 2, label);
    assert.equal(out.stdout, '', label);
    assert.match(out.stderr, message, label);
    assert.match(out.stderr, /usage: node examples\/replay\.mjs FILE \[--limit N\] \[--strategy redact\|summarize\|llm\]/, label);
  }
  const help = await run('--help');
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^usage: /);
});
