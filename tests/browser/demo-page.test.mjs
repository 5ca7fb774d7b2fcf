// The demo page (www/) in headless Chromium, driven by playwright-core: threshold and LLM
// compaction, the replay chart, errors shown inline, paste and export. Every figure the
// page shows is compared with what the same package computes here in Node.
//
//   node --test tests/browser/            (needs pkg/ built: scripts/build.sh)
//
// The page is served by scripts/serve.mjs on a free port; the LLM endpoint is the mock
// server of tests/js/support/llm-server.mjs with CORS. A screenshot goes to test-output/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import {
  ContextManager, DEFAULT_SUMMARY_PROMPT, detectFormat, estimateTokens, fromAnthropic, fromOpenAI,
  anthropicSummarizer, offlineSummarizer, openAISummarizer, toAnthropic, toOpenAIResponses, toVercelAI, fromVercelAI,
} from 'context-compactor';
import { DEFAULT_SAMPLE, copyDemoAssets } from '../../scripts/demo-assets.mjs';
import { serve } from '../../scripts/serve.mjs';
import { DEFAULT_SUMMARY_TEXT, start as startLlmServer } from '../js/support/llm-server.mjs';

const REPO = new URL('../../', import.meta.url);
const OUTPUT_DIR = fileURLToPath(new URL('test-output/', REPO));
const REDACTED = '[Content redacted for context management]';
const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const API_KEY = 'sk-demo-test-0123456789';
const MODEL = 'mock-model';
/** The page's defaults (index.html). */
const DEFAULTS = { limit: 3400, threshold: 0.75, keep: 2 };

let site, llm, browser, context, page, manifest;
const consoleErrors = [];
/** Console errors a test provokes on purpose (the browser logs failed HTTP responses). */
const expectedErrors = [];

before(async () => {
  manifest = copyDemoAssets();
  site = await serve({ port: 0 });
  llm = await startLlmServer({ cors: true });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  context = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    if (expectedErrors.some((re) => re.test(msg.text()))) return;
    consoleErrors.push(`console.error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => consoleErrors.push(`page error: ${err.message}`));
  await openPage();
});

after(async () => {
  await browser?.close();
  await llm?.stop();
  await site?.close();
});

async function openPage() {
  await page.goto(site.url);
  await page.waitForSelector('body[data-state="ready"]', { state: 'attached', timeout: 30_000 });
}

// ---------------------------------------------------------------- helpers

/** The default sample's messages, read here in Node with the same package. */
function sampleMessages(id = manifest.defaultSample) {
  const sample = manifest.samples.find((s) => s.id === id);
  const raw = JSON.parse(readFileSync(new URL(`www/assets/${sample.file}`, REPO), 'utf8'));
  return sample.format === 'anthropic' ? fromAnthropic(raw) : fromOpenAI(raw);
}

async function setControls({ limit = DEFAULTS.limit, threshold = DEFAULTS.threshold, keep = DEFAULTS.keep, strategy, provider, baseURL = '', key = '', timeout = 30000, firstLine = true, fallback = false }) {
  await page.fill('#context-limit', String(limit));
  await page.fill('#threshold', String(threshold));
  await page.fill('#keep-recent', String(keep));
  await page.check(`input[name="strategy"][value="${strategy}"]`);
  if (strategy === 'summarize') await page.setChecked('#first-line', firstLine);
  if (strategy === 'llm') {
    await page.selectOption('#provider', provider);
    if (provider !== 'offline') {
      await page.fill('#base-url', baseURL);
      await page.fill('#api-key', key);
      await page.fill('#model', MODEL);
    }
    await page.fill('#timeout', String(timeout));
    await page.setChecked('#fallback', fallback);
  }
}

/** Clicks Compact and waits for the run to finish; returns the outcome's data attributes. */
async function compact() {
  await page.click('#compact');
  await page.waitForSelector('body[data-state="done"], body[data-state="error"]', { state: 'attached', timeout: 30_000 });
  assert.equal(await page.getAttribute('body', 'data-state'), 'done', await page.textContent('#error'));
  return page.$eval('#outcome', (o) => ({ ...o.dataset }));
}

/** What Node computes for the same settings, through the same ContextManager path. */
async function computeInNode(messages, { limit = DEFAULTS.limit, threshold = DEFAULTS.threshold, keep = DEFAULTS.keep, compactor, summaries }) {
  const manager = new ContextManager({ contextLimit: limit, compactor: { threshold, keepRecentTurns: keep, ...compactor } });
  if (summaries) manager.storeCompactSummaries(summaries);
  manager.pushMany(messages);
  const outcome = await manager.maybeCompact();
  return { outcome, messages: manager.messages() };
}

/**
 * The chart's replay, computed here: one request before each assistant message, carrying
 * every message before it, pushed into one ContextManager that compacts before each.
 */
async function replayInNode(messages, { limit = DEFAULTS.limit, threshold = DEFAULTS.threshold, keep = DEFAULTS.keep, compactor, summaries }) {
  const manager = new ContextManager({ contextLimit: limit, compactor: { threshold, keepRecentTurns: keep, ...compactor } });
  if (summaries) manager.storeCompactSummaries(summaries);
  const rows = [];
  let pushed = 0;
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'assistant') continue;
    manager.pushMany(messages.slice(pushed, i));
    pushed = i;
    const before = manager.contextUsed;
    const outcome = await manager.maybeCompact();
    rows.push({
      request: rows.length + 1, messages: i, uncompacted: estimateTokens(messages.slice(0, i)),
      before, after: manager.contextUsed, fits: manager.fits, outcome,
    });
  }
  manager.free();
  return rows;
}

/** Each tool result's first line, as the page's summarize option gives it (not to ids used twice). */
function firstLines(messages) {
  const results = messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result');
  const summaries = {};
  for (const b of results) {
    if (results.filter((r) => r.tool_use_id === b.tool_use_id).length > 1) continue;
    const text = typeof b.content === 'string' ? b.content : b.content.map((c) => c.text ?? '').join('\n');
    const line = text.split('\n').map((l) => l.trim()).find((l) => l);
    if (line) summaries[b.tool_use_id] = line.length > 200 ? `${line.slice(0, 199)}…` : line;
  }
  return summaries;
}

/** Waits until the chart shows the latest settings; returns its points' data and its geometry. */
async function chartShown() {
  await page.waitForSelector('#chart[data-state="ready"]', { state: 'attached', timeout: 30_000 });
  return page.$eval('#chart', (svg) => {
    const line = (cls) => {
      const l = svg.querySelector(`line.${cls}[data-value]`);
      return { value: Number(l.dataset.value), y: Number(l.getAttribute('y1')) };
    };
    const polyline = (cls) => svg.querySelector(`polyline.${cls}`).getAttribute('points').split(' ').map((p) => Number(p.split(',')[1]));
    return {
      role: svg.getAttribute('role'),
      label: svg.getAttribute('aria-label'),
      data: { ...svg.dataset },
      points: [...svg.querySelectorAll('circle.point')].map((c) => ({
        ...Object.fromEntries(Object.entries(c.dataset).map(([k, v]) => [k, v === 'true' || (v === 'false' ? false : Number(v))])),
        cy: Number(c.getAttribute('cy')),
        marker: c.classList.contains('over') ? 'over' : c.classList.contains('compaction') ? 'compaction' : null,
        title: c.querySelector('title')?.textContent ?? '',
      })),
      limit: line('limit-line'),
      threshold: line('threshold-line'),
      uncompactedY: polyline('series-uncompacted'),
      compactedY: polyline('series-compacted'),
    };
  });
}

/** Checks the chart on screen against the rows computed in Node. */
function assertChartMatches(shown, rows, { limit = DEFAULTS.limit, threshold = DEFAULTS.threshold } = {}) {
  assert.equal(shown.role, 'img');
  assert.equal(shown.points.length, rows.length, 'one point per request');
  const yMax = Number(shown.data.yMax);
  const top = Number(shown.data.plotTop);
  const bottom = Number(shown.data.plotBottom);
  const y = (v) => bottom - (v / yMax) * (bottom - top);
  const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 0.06, `${what}: y ${a}, expected ${b}`);
  assert.ok(yMax >= Math.max(limit, ...rows.map((r) => r.uncompacted), ...rows.map((r) => r.before)), 'every value is inside the plot');
  for (const [i, row] of rows.entries()) {
    const p = shown.points[i];
    const what = `request ${row.request}`;
    assert.deepEqual(
      [p.request, p.messages, p.uncompacted, p.before, p.after, p.fits, p.compaction],
      [row.request, row.messages, row.uncompacted, row.before, row.after, row.fits, row.outcome !== null],
      what,
    );
    close(p.cy, y(row.after), what);
    close(shown.compactedY[i], y(row.after), `${what}, with compaction`);
    close(shown.uncompactedY[i], y(row.uncompacted), `${what}, without compaction`);
    assert.equal(p.marker, !row.fits ? 'over' : row.outcome !== null ? 'compaction' : null, what);
    assert.match(p.title, new RegExp(`^Request ${row.request}: ${row.messages} messages`), what);
    const r = row.outcome?.result;
    if (r?.toolResultsRedacted) assert.match(p.title, new RegExp(`redacted ${r.toolResultsRedacted} tool result`, 'i'), what);
    if (r?.turnsCompacted) assert.match(p.title, new RegExp(`LLM summary of ${r.turnsCompacted} turn`), what);
    if (!row.fits) assert.match(p.title, /DOES NOT FIT/, what);
  }
  assert.equal(shown.limit.value, limit);
  assert.equal(shown.threshold.value, limit * threshold);
  close(shown.limit.y, y(limit), 'limit line');
  close(shown.threshold.y, y(limit * threshold), 'threshold line');
  const peak = (key) => Math.max(...rows.map((r) => r[key])).toLocaleString('en-US');
  assert.match(shown.label, new RegExp(`over ${rows.length} requests: peak ${peak('uncompacted')} tokens .* without compaction, ${peak('after')} tokens .* with compaction`));
}

/** Messages on screen with this status (kept, summarized, redacted, replaced). */
const messageCount = (status) => page.$$eval(`article.message[data-status="${status}"]`, (els) => els.length);
/** Tool results on screen with this status. */
const resultCount = (status) => page.$$eval(`.tool-result[data-status="${status}"]`, (els) => els.length);
const gaugeTokens = (id) => page.$eval(`#${id}`, (g) => Number(g.dataset.tokens));

function assertOutcomeMatches(shown, outcome) {
  assert.equal(shown.result, 'compacted');
  assert.equal(shown.strategy, outcome.strategy);
  assert.equal(Number(shown.tokensBefore), outcome.tokensBefore);
  assert.equal(Number(shown.tokensAfter), outcome.tokensAfter);
  assert.equal(Number(shown.messagesBefore), outcome.messagesBefore);
  assert.equal(Number(shown.messagesAfter), outcome.messagesAfter);
  assert.equal(Number(shown.summarized), outcome.result.toolResultsSummarized);
  assert.equal(Number(shown.redacted), outcome.result.toolResultsRedacted);
  assert.equal(Number(shown.turns), outcome.result.turnsCompacted);
  assert.equal(shown.belowThreshold, String(outcome.belowThreshold));
}

/** A screenshot of the top of the page in test-output/; returns its path. */
async function screenshot(name) {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const path = `${OUTPUT_DIR}${name}.png`;
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path });
  console.log(`screenshot: ${path}`);
  return path;
}

async function downloadExport(format) {
  await page.selectOption('#export-format', format);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download')]);
  return JSON.parse(readFileSync(await download.path(), 'utf8'));
}

// ---------------------------------------------------------------- tests

test('the default transcript is one real single-task session; its estimated size is shown', async () => {
  assert.equal(manifest.defaultSample, DEFAULT_SAMPLE);
  assert.equal(DEFAULT_SAMPLE, 'tools.marshmallow-1867.function_calling__install-1.anthropic');
  assert.equal(await page.inputValue('#sample'), DEFAULT_SAMPLE);
  assert.ok(manifest.samples.every((s) => !s.id.includes('joined') && !('joined' in s)), 'no joined sample');
  const { messages } = sampleMessages();
  // One task: one user message with text, then the agent's tool loop.
  assert.equal(messages.filter((m) => m.role === 'user' && m.content.some((b) => b.type === 'text')).length, 1);
  assert.deepEqual(
    [Number(await page.inputValue('#context-limit')), Number(await page.inputValue('#threshold')), Number(await page.inputValue('#keep-recent'))],
    [DEFAULTS.limit, DEFAULTS.threshold, DEFAULTS.keep],
  );
  assert.match(await page.textContent('#load-status'), new RegExp(`Anthropic Messages detected: ${messages.length} messages`));
  assert.equal(await gaugeTokens('gauge-before'), estimateTokens(messages));
  assert.match(await page.textContent('#gauge-before .figure'), new RegExp(estimateTokens(messages).toLocaleString('en-US')));
  assert.equal(await page.$$eval('#conversation article.message', (els) => els.length), messages.length);
  // The defaults are meant to show a compaction on first load: above the threshold.
  assert.ok(estimateTokens(messages) / Number(await page.inputValue('#context-limit')) > Number(await page.inputValue('#threshold')));
});

test('the chart replays the default transcript request by request, as Node does', async () => {
  const shown = await chartShown();
  const { messages } = sampleMessages();
  const rows = await replayInNode(messages, { compactor: { type: 'threshold', toolCompaction: 'summarize' }, summaries: firstLines(messages) });
  assert.equal(rows.length, messages.filter((m) => m.role === 'assistant').length);
  assert.ok(rows.some((r) => r.outcome !== null) && rows.some((r) => r.uncompacted > DEFAULTS.limit), 'the defaults show compaction at work');
  assertChartMatches(shown, rows);
  assert.match(await page.textContent('#chart-caption'), new RegExp(`request by request.*\\(${rows.length} model calls`));
  await screenshot('demo-page-chart');
});

test('changing a setting redraws the chart; its LLM replay never calls the endpoint', async () => {
  const { messages } = sampleMessages();
  const first = await chartShown();
  await setControls({ strategy: 'redact', limit: 2000 });
  let shown = await chartShown();
  assert.notEqual(shown.data.run, first.data.run);
  const tight = await replayInNode(messages, { limit: 2000, compactor: { type: 'threshold', toolCompaction: 'redact' } });
  assert.ok(tight.some((r) => !r.fits), 'at 2,000 tokens some requests do not fit');
  assertChartMatches(shown, tight, { limit: 2000 });
  await screenshot('demo-page-chart-tight');

  await page.fill('#threshold', '0.6');
  await page.press('#threshold', 'Tab'); // commits it ('change'), so that the next step changes the strategy alone
  shown = await chartShown();
  assertChartMatches(shown, await replayInNode(messages, { limit: 2000, threshold: 0.6, compactor: { type: 'threshold', toolCompaction: 'redact' } }),
    { limit: 2000, threshold: 0.6 });

  await page.check('input[name="strategy"][value="summarize"]');
  shown = await chartShown();
  assertChartMatches(shown, await replayInNode(messages, {
    limit: 2000, threshold: 0.6, compactor: { type: 'threshold', toolCompaction: 'summarize' }, summaries: firstLines(messages),
  }), { limit: 2000, threshold: 0.6 });

  llm.reset();
  await setControls({ strategy: 'llm', provider: 'openai', baseURL: `${llm.baseURL}/v1`, key: API_KEY });
  shown = await chartShown();
  const rows = await replayInNode(messages, { compactor: { type: 'llm', summarize: offlineSummarizer(), summaryTimeoutMs: 30000, maxSummaryTokens: 2048 } });
  assert.ok(rows.some((r) => r.outcome?.result.turnsCompacted > 0));
  assertChartMatches(shown, rows);
  assert.deepEqual([llm.requests.length, llm.preflights.length], [0, 0], 'the chart called the endpoint');
  assert.match(await page.textContent('#chart-caption'), /offline summarizer, so drawing it never calls the OpenAI-compatible endpoint/);
});

test('an invalid setting leaves the chart empty and says why', async () => {
  await page.fill('#threshold', '2');
  await page.waitForSelector('#chart[data-state="error"]', { state: 'attached' });
  assert.match(await page.textContent('#chart-caption'), /Threshold must be strictly between 0 and 1/);
  assert.equal(await page.$$eval('#chart circle.point', (els) => els.length), 0);
  await page.fill('#threshold', String(DEFAULTS.threshold));
  await chartShown();
});

test('Compact redraws the chart with the settings it ran with', async () => {
  await setControls({ strategy: 'redact' });
  const before = await chartShown();
  await compact();
  const shown = await chartShown();
  assert.ok(Number(shown.data.run) > Number(before.data.run));
  const { messages } = sampleMessages();
  assertChartMatches(shown, await replayInNode(messages, { compactor: { type: 'threshold', toolCompaction: 'redact' } }));
});

test('a tool result the escalation cut is shown as truncated, head and tail on screen', async () => {
  // A pasted session whose newest step holds one huge tool result: only the last rung can make it fit.
  const pasted = { messages: [
    { role: 'user', content: 'Find the bug in the parser.' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'bash', input: { cmd: 'cat parser.log' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: `first line\n${'log entry 42 ok\n'.repeat(4000)}last line` }] },
  ] };
  const { messages } = fromAnthropic(pasted);
  const node = await computeInNode(messages, { compactor: { type: 'threshold', toolCompaction: 'redact' } });
  assert.ok(node.outcome.escalation.some((r) => r.step === 'truncate') && node.outcome.fits, JSON.stringify(node.outcome.escalation));
  const cut = node.messages[2].content[0].content;
  await page.fill('#paste', JSON.stringify(pasted));
  await page.click('#load-paste');
  await setControls({ strategy: 'redact' });
  await compact();
  const shown = await page.$$eval('.tool-result[data-status="truncated"] pre.now', (els) => els.map((e) => e.textContent));
  assert.deepEqual(shown, [cut]);
  assert.match(cut, /^first line\n[\s\S]*cut for context management[\s\S]*\nlast line$/);
  await openPage(); // back to the default sample for the tests after this one
});

test('threshold compaction (redact): the figures and highlights match the package', async () => {
  await setControls({ strategy: 'redact' });
  const shown = await compact();
  const { messages, system } = sampleMessages();
  const node = await computeInNode(messages, { compactor: { type: 'threshold', toolCompaction: 'redact' } });
  assert.ok(node.outcome.result.toolResultsRedacted > 0, 'the defaults must redact something');
  assertOutcomeMatches(shown, node.outcome);
  assert.equal(await gaugeTokens('gauge-after'), estimateTokens(node.messages));
  assert.equal(await resultCount('redacted'), node.outcome.result.toolResultsRedacted);
  const touched = node.messages.filter((m) => m.content.some((b) => b.type === 'tool_result' && b.content === REDACTED)).length;
  assert.equal(await messageCount('redacted'), touched);

  // The redacted blocks on screen are the ones the package redacted.
  const redactedIds = node.messages.flatMap((m) => m.content)
    .filter((b) => b.type === 'tool_result' && b.content === REDACTED).map((b) => b.tool_use_id).sort();
  const shownIds = (await page.$$eval('.tool-result[data-status="redacted"] .block-head .muted', (els) => els.map((e) => e.textContent))).sort();
  assert.deepEqual(shownIds, redactedIds);

  // Export: the same format gives what toAnthropic gives; another format reads back to the same size.
  const anthropic = await downloadExport('anthropic');
  assert.deepEqual(anthropic, { system, messages: toAnthropic(node.messages) });
  const openai = await downloadExport('openai');
  assert.equal(detectFormat(openai), 'openai');
  assert.equal(estimateTokens(fromOpenAI(openai).messages), estimateTokens(node.messages));
  await screenshot('demo-page-threshold');
});

test('threshold compaction (summarize) uses each result\'s first line as its compact summary', async () => {
  await setControls({ strategy: 'summarize', firstLine: true });
  const shown = await compact();
  const { messages } = sampleMessages();
  const summaries = firstLines(messages);
  // The transcript answers some tool-call ids twice: those results get no summary.
  const ids = messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
  assert.ok(Object.keys(summaries).length < new Set(ids).size);
  const node = await computeInNode(messages, { compactor: { type: 'threshold', toolCompaction: 'summarize' }, summaries });
  assert.ok(node.outcome.result.toolResultsSummarized > 0);
  assertOutcomeMatches(shown, node.outcome);
  const shownSummaries = await page.$$eval('.tool-result[data-status="summarized"]', (els) => els.map((e) => [
    e.querySelector('.block-head .muted').textContent, e.querySelector('pre.now').textContent]));
  assert.equal(shownSummaries.length, node.outcome.result.toolResultsSummarized);
  for (const [id, text] of shownSummaries) assert.equal(text, summaries[id]);
});

test('LLM compaction with the built-in offline summarizer', async () => {
  await setControls({ strategy: 'llm', provider: 'offline' });
  const shown = await compact();
  const { messages } = sampleMessages();
  const node = await computeInNode(messages, { compactor: { type: 'llm', summarize: offlineSummarizer() } });
  assertOutcomeMatches(shown, node.outcome);
  const summary = node.messages.find((m) => m.summary_of);
  assert.equal(await page.textContent('article.message.summary pre'), summary.content[0].text);
  // The user messages kept verbatim after the summary are on screen as kept.
  assert.equal(await messageCount('replaced'), summary.summary_of.messages - node.outcome.keptUserMessages);
});

test('LLM compaction against an OpenAI-compatible endpoint (mock server, CORS)', async () => {
  llm.reset();
  await setControls({ strategy: 'llm', provider: 'openai', baseURL: `${llm.baseURL}/v1`, key: API_KEY });
  const shown = await compact();

  assert.ok(llm.preflights.length >= 1, 'the browser sent a CORS preflight');
  const posts = llm.requests.filter((r) => r.method === 'POST');
  assert.equal(posts.length, 1);
  assert.equal(posts[0].url, '/v1/chat/completions');
  assert.equal(posts[0].headers.authorization, `Bearer ${API_KEY}`);
  assert.equal(posts[0].body.model, MODEL);
  assert.equal(posts[0].body.messages[0].content, DEFAULT_SUMMARY_PROMPT);

  const { messages } = sampleMessages();
  const node = await computeInNode(messages, {
    compactor: { type: 'llm', summarize: openAISummarizer({ baseURL: `${llm.baseURL}/v1`, apiKey: API_KEY, model: MODEL }) },
  });
  assertOutcomeMatches(shown, node.outcome);
  assert.equal(await gaugeTokens('gauge-after'), node.outcome.tokensAfter);
  assert.equal(await page.textContent('article.message.summary pre'), `[Previous conversation summary]: ${DEFAULT_SUMMARY_TEXT}`);
  assert.equal(await messageCount('replaced'), node.messages.find((m) => m.summary_of).summary_of.messages - node.outcome.keptUserMessages);
  // The messages compaction left alone are on screen as kept: all but the summary and those
  // whose tool results the escalation redacted.
  const untouched = node.messages.filter((m) => !m.summary_of && !m.content.some((b) => b.type === 'tool_result' && b.content === REDACTED));
  assert.equal(await messageCount('kept'), untouched.length);
  assert.equal(await messageCount('redacted'), node.messages.length - 1 - untouched.length);
  // The key was not remembered.
  assert.equal(await page.evaluate(() => localStorage.length), 0);
  // The replaced turns are folded away under one disclosure per run between kept user messages.
  const groups = await page.$$eval('details.replaced-group', (els) => els.length);
  assert.ok(groups >= 1 && groups <= 1 + node.outcome.keptUserMessages, `${groups} groups`);
  await screenshot('demo-page-llm');
});

test('LLM compaction against an Anthropic endpoint (mock server, CORS)', async () => {
  llm.reset();
  await setControls({ strategy: 'llm', provider: 'anthropic', baseURL: llm.baseURL, key: API_KEY });
  const shown = await compact();
  const posts = llm.requests.filter((r) => r.method === 'POST');
  assert.equal(posts.length, 1);
  assert.equal(posts[0].url, '/v1/messages');
  assert.equal(posts[0].headers['x-api-key'], API_KEY);
  assert.equal(posts[0].headers['anthropic-dangerous-direct-browser-access'], 'true');
  assert.equal(posts[0].body.system, DEFAULT_SUMMARY_PROMPT);
  const { messages } = sampleMessages();
  const node = await computeInNode(messages, {
    compactor: { type: 'llm', summarize: anthropicSummarizer({ baseURL: llm.baseURL, apiKey: API_KEY, model: MODEL }) },
  });
  assertOutcomeMatches(shown, node.outcome);
  assert.equal(await page.textContent('article.message.summary pre'), `[Previous conversation summary]: ${DEFAULT_SUMMARY_TEXT}`);
});

test('an HTTP error is shown inline and the conversation stays on screen', async () => {
  llm.reset();
  llm.setMode('error', { status: 500 });
  expectedErrors.push(/status of 500/);
  await setControls({ strategy: 'llm', provider: 'openai', baseURL: `${llm.baseURL}/v1`, key: API_KEY });
  const shown = await compact();
  expectedErrors.pop();
  const error = await page.textContent('#error');
  assert.equal(await page.isVisible('#error'), true);
  assert.match(error, /LLM_ERROR \(HTTP 500\)/);
  assert.match(error, /not changed/);
  assert.ok(!error.includes(API_KEY), 'the key is scrubbed from the error');
  assert.equal(shown.result, 'failed');
  const { messages } = sampleMessages();
  assert.equal(await page.$$eval('#conversation article.message', (els) => els.length), messages.length);
  assert.equal(await messageCount('replaced'), 0);
  assert.equal(await gaugeTokens('gauge-after'), estimateTokens(messages));
  await screenshot('demo-page-http-error');
});

test('a timeout is shown inline, the request is aborted, and the fallback can redact instead', async () => {
  llm.reset();
  llm.setMode('slow');
  await setControls({ strategy: 'llm', provider: 'openai', baseURL: `${llm.baseURL}/v1`, key: API_KEY, timeout: 300 });
  await compact();
  assert.match(await page.textContent('#error'), /TIMEOUT/);
  assert.ok(await llm.waitForClosed(1, 5000), 'the page aborted the request');
  const { messages } = sampleMessages();
  assert.equal(await page.$$eval('#conversation article.message', (els) => els.length), messages.length);

  await setControls({ strategy: 'llm', provider: 'openai', baseURL: `${llm.baseURL}/v1`, key: API_KEY, timeout: 300, fallback: true });
  const shown = await compact();
  assert.match(await page.textContent('#error'), /TIMEOUT/);
  const node = await computeInNode(messages, {
    compactor: { type: 'llm', summarize: () => new Promise(() => {}), summaryTimeoutMs: 300, fallback: { threshold: 0.75, keepRecentTurns: 2, toolCompaction: 'redact' } },
  });
  assert.equal(node.outcome.fallback, true);
  assertOutcomeMatches(shown, node.outcome);
  assert.equal(await resultCount('redacted'), node.outcome.result.toolResultsRedacted);
  llm.reset();
});

test('below the threshold, or nothing old enough: the page says so and changes nothing', async () => {
  const { messages } = sampleMessages();
  const tokens = estimateTokens(messages);
  await setControls({ strategy: 'redact', limit: tokens * 2 });
  const below = await compact();
  assert.equal(below.result, 'below-threshold');
  assert.match(await page.textContent('#outcome'), /Below the threshold/);
  assert.equal(await gaugeTokens('gauge-after'), tokens);

  // Above the threshold but within the limit, so that nothing but the strategy runs.
  const turns = new Set(messages.map((m) => `${m.turn_id.owner}${m.turn_id.number}`)).size;
  await setControls({ strategy: 'llm', provider: 'offline', keep: turns, limit: Math.ceil(tokens / 0.9) });
  const none = await compact();
  assert.equal(Number(none.turns), 0);
  assert.equal(Number(none.messagesAfter), messages.length);
  assert.match(await page.textContent('#outcome'), new RegExp(`Nothing to compact outside the last ${turns} turns of ${turns}`));
  assert.equal(await messageCount('kept'), messages.length);
});

test('Copy puts the export on the clipboard', async () => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(site.url).origin });
  await openPage();
  await setControls({ strategy: 'redact' });
  await compact();
  await page.selectOption('#export-format', 'vercel-ai');
  await page.click('#copy');
  await page.waitForFunction(() => document.getElementById('export-status').textContent !== '');
  assert.match(await page.textContent('#export-status'), /Copied as Vercel AI SDK/);
  const copied = JSON.parse(await page.evaluate(() => navigator.clipboard.readText()));
  const { messages } = sampleMessages();
  const node = await computeInNode(messages, { compactor: { type: 'threshold', toolCompaction: 'redact' } });
  assert.equal(detectFormat(copied), 'vercel-ai');
  assert.equal(estimateTokens(fromVercelAI(copied).messages), estimateTokens(node.messages));
});

test('pasted conversations: format detected, clear messages when not recognised', async () => {
  const file = manifest.samples.find((s) => s.format === 'openai' && s.id.startsWith('text.')).file;
  const text = readFileSync(new URL(`www/assets/${file}`, REPO), 'utf8');
  const { messages } = fromOpenAI(JSON.parse(text));
  await page.fill('#paste', text);
  await page.click('#load-paste');
  assert.match(await page.textContent('#load-status'), new RegExp(`OpenAI Chat Completions detected: ${messages.length} messages`));
  assert.equal(await gaugeTokens('gauge-before'), estimateTokens(messages));
  assert.equal(await page.$$eval('#conversation article.message', (els) => els.length), messages.length);

  await page.fill('#paste', 'this is not json');
  await page.click('#load-paste');
  assert.match(await page.textContent('#load-status'), /not JSON/);
  await page.fill('#paste', '{"hello": "world"}');
  await page.click('#load-paste');
  assert.match(await page.textContent('#load-status'), /Format not recognised/);
  // The conversation loaded before is still there.
  assert.equal(await page.$$eval('#conversation article.message', (els) => els.length), messages.length);
  assert.equal(await gaugeTokens('gauge-before'), estimateTokens(messages));
});

test('every supported format is recognised when pasted', async () => {
  const { messages } = sampleMessages();
  const cases = [
    ['OpenAI Responses', toOpenAIResponses(messages)],
    ['Vercel AI SDK', toVercelAI(messages)],
    ['context-compactor messages', messages],
    ['Anthropic Messages', toAnthropic(messages)],
  ];
  for (const [name, value] of cases) {
    await page.fill('#paste', JSON.stringify(value));
    await page.click('#load-paste');
    assert.match(await page.textContent('#load-status'), new RegExp(`${name} detected: ${messages.length} messages`));
    assert.equal(await gaugeTokens('gauge-before'), estimateTokens(messages), name);
    assert.equal(await page.$$eval('#conversation article.message', (els) => els.length), messages.length, name);
  }
});

test('a dropped file is loaded like a pasted one', async () => {
  const file = manifest.samples.find((s) => s.format === 'anthropic' && s.id.startsWith('text.')).file;
  const text = readFileSync(new URL(`www/assets/${file}`, REPO), 'utf8');
  const { messages } = fromAnthropic(JSON.parse(text));
  const dataTransfer = await page.evaluateHandle((t) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t], 'dropped.json', { type: 'application/json' }));
    return dt;
  }, text);
  await page.dispatchEvent('#dropzone', 'drop', { dataTransfer });
  await page.waitForFunction((n) => document.querySelectorAll('#conversation article.message').length === n, messages.length);
  assert.match(await page.textContent('#load-status'), new RegExp(`Anthropic Messages detected: ${messages.length} messages`));
  assert.equal(await gaugeTokens('gauge-before'), estimateTokens(messages));
});

test('"remember key" stores the key in localStorage, unticking forgets it', async () => {
  await page.check('input[name="strategy"][value="llm"]');
  await page.selectOption('#provider', 'openai');
  await page.fill('#api-key', API_KEY);
  await page.check('#remember-key');
  assert.equal(await page.evaluate(() => Object.values({ ...localStorage }).join()), API_KEY);
  await openPage();
  await page.check('input[name="strategy"][value="llm"]');
  await page.selectOption('#provider', 'openai');
  assert.equal(await page.inputValue('#api-key'), API_KEY);
  await page.uncheck('#remember-key');
  assert.equal(await page.evaluate(() => localStorage.length), 0);
});

test('no console errors and no page errors', () => {
  assert.deepEqual(consoleErrors, []);
});
