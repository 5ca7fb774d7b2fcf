// The demo page (www/) in headless Chromium, driven by playwright-core: threshold and LLM
// compaction, errors shown inline, paste and export. Every figure the page shows is
// compared with what the same package computes here in Node.
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
import { copyDemoAssets } from '../../scripts/demo-assets.mjs';
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

async function setControls({ limit = 12000, threshold = 0.75, keep = 2, strategy, provider, baseURL = '', key = '', timeout = 30000, firstLine = true, fallback = false }) {
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
async function computeInNode(messages, { limit = 12000, threshold = 0.75, keep = 2, compactor, summaries }) {
  const manager = new ContextManager({ contextLimit: limit, compactor: { threshold, keepRecentTurns: keep, ...compactor } });
  if (summaries) manager.storeCompactSummaries(summaries);
  manager.pushMany(messages);
  const outcome = await manager.maybeCompact();
  return { outcome, messages: manager.messages() };
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

test('the default transcript loads and its estimated size is shown', async () => {
  const { messages } = sampleMessages();
  assert.match(await page.textContent('#load-status'), new RegExp(`Anthropic Messages detected: ${messages.length} messages`));
  assert.equal(await gaugeTokens('gauge-before'), estimateTokens(messages));
  assert.match(await page.textContent('#gauge-before .figure'), new RegExp(estimateTokens(messages).toLocaleString('en-US')));
  assert.equal(await page.$$eval('#conversation article.message', (els) => els.length), messages.length);
  // The defaults are meant to show a compaction on first load: above the threshold.
  assert.ok(estimateTokens(messages) / Number(await page.inputValue('#context-limit')) > Number(await page.inputValue('#threshold')));
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
  const summaries = {};
  for (const b of messages.flatMap((m) => m.content)) {
    if (b.type !== 'tool_result') continue;
    const text = typeof b.content === 'string' ? b.content : b.content.map((c) => c.text ?? '').join('\n');
    const line = text.split('\n').map((l) => l.trim()).find((l) => l);
    if (line) summaries[b.tool_use_id] = line.length > 200 ? `${line.slice(0, 199)}…` : line;
  }
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
  // Recent turns are on screen unchanged and not highlighted.
  const kept = await page.$$eval('article.message[data-status="kept"]', (els) => els.map((e) => e.dataset.id));
  assert.equal(kept.length, node.messages.length - 1);
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

  const turns = new Set(messages.map((m) => `${m.turn_id.owner}${m.turn_id.number}`)).size;
  await setControls({ strategy: 'llm', provider: 'offline', keep: turns });
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
