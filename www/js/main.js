// The demo page: loads the package and the sample transcripts, wires the form.
import { FORMAT_NAMES, LoadError, describeError, exportConversation, exportFileName, readConversation } from './conversation.js';
import { replayWithSettings, runCompaction } from './compaction.js';
import { drawChart } from './chart.js';
import { classify, drawConversation, drawGauge, el } from './render.js';
import { escalationText } from './replay.js';
import { SettingsError, loadRememberedKey, readSettings, rememberKeyIfAsked, syncVisibility } from './settings.js';

const $ = (id) => document.getElementById(id);

const PROVIDER_NAMES = { offline: 'offline summarizer', openai: 'OpenAI-compatible endpoint', anthropic: 'Anthropic' };

const turnCount = (messages) => new Set(messages.map((m) => `${m.turn_id.owner}${m.turn_id.number}`)).size;

/** What is on screen. `after` is null until a compaction changed something. */
const state = {
  cc: null,
  name: '',
  format: null,
  system: null,
  before: [],
  tokensBefore: null,
  after: null,
  tokensAfter: null,
  busy: false,
};

function setPageState(value) {
  document.body.dataset.state = value;
}

function showError(message) {
  const box = $('error');
  box.textContent = message;
  box.hidden = message === '';
}

function setLoadStatus(message, ok) {
  const status = $('load-status');
  status.textContent = message;
  status.classList.toggle('bad', !ok);
  status.classList.toggle('good', ok);
}

function limits() {
  return {
    limit: Number($('context-limit').value) || 0,
    threshold: Math.min(Math.max(Number($('threshold').value) || 0, 0), 1),
  };
}

function drawGauges() {
  const { limit, threshold } = limits();
  drawGauge($('gauge-before'), state.tokensBefore, limit, threshold);
  drawGauge($('gauge-after'), state.tokensAfter, limit, threshold);
}

function drawAll() {
  drawGauges();
  drawConversation($('conversation'), classify(state.before, state.after));
}

function clearResult() {
  state.after = null;
  state.tokensAfter = null;
  $('outcome').replaceChildren();
  for (const key of Object.keys($('outcome').dataset)) delete $('outcome').dataset[key];
  $('events').replaceChildren();
  $('export-status').textContent = '';
  showError('');
}

/** Puts a conversation (JSON text) on screen; on failure the current one stays. */
function loadText(text, name) {
  let conversation;
  try {
    conversation = readConversation(state.cc, text);
  } catch (err) {
    setLoadStatus(err instanceof LoadError ? err.message : `Could not load: ${describeError(err)}`, false);
    return false;
  }
  Object.assign(state, {
    name,
    format: conversation.format,
    system: conversation.system,
    before: conversation.messages,
    tokensBefore: state.cc.estimateTokens(conversation.messages),
  });
  clearResult();
  $('export-format').value = conversation.format;
  const turns = turnCount(conversation.messages);
  setLoadStatus(`${FORMAT_NAMES[conversation.format]} detected: ${conversation.messages.length} messages, ${turns} turns.`, true);
  $('load-status').dataset.format = conversation.format;
  drawAll();
  scheduleChart();
  return true;
}

async function loadSample(manifest, id) {
  const sample = manifest.samples.find((s) => s.id === id);
  if (!sample) return;
  const res = await fetch(`assets/${sample.file}`);
  if (!res.ok) {
    setLoadStatus(`Could not fetch ${sample.file}: HTTP ${res.status}.`, false);
    return;
  }
  loadText(await res.text(), sample.id);
}

function fillSamples(manifest) {
  const groups = [
    ['Anthropic format', (s) => s.format === 'anthropic'],
    ['OpenAI format', (s) => s.format === 'openai'],
  ];
  $('sample').replaceChildren(...groups.map(([label, pick]) => el('optgroup', { label },
    manifest.samples.filter(pick).map((s) => el('option', { value: s.id, text: s.title })))));
  $('sample').value = manifest.defaultSample;
}

// ---------------------------------------------------------------- chart

/** Inputs whose value changes the chart's replay. */
const CHART_INPUTS = new Set(['context-limit', 'threshold', 'keep-recent', 'strategy', 'first-line', 'provider', 'timeout', 'max-tokens', 'fallback', 'prompt']);
let chartTimer = null;
let chartRun = 0;

/**
 * Redraws the chart soon: typing in a field replays once, when it pauses. A replay still
 * running is dropped, so the chart is "ready" only once it shows the latest settings.
 */
function scheduleChart() {
  const run = ++chartRun;
  $('chart').dataset.state = 'drawing';
  clearTimeout(chartTimer);
  chartTimer = setTimeout(() => updateChart(run), 120);
}

/** Replays the conversation on screen with the current settings and draws it. */
async function updateChart(run) {
  const chart = $('chart');
  const caption = $('chart-caption');
  let settings;
  try {
    settings = readSettings();
  } catch (err) {
    chart.replaceChildren();
    chart.setAttribute('aria-label', 'Context per request: not drawn, a setting is invalid');
    caption.textContent = `The chart needs valid settings: ${err instanceof SettingsError ? err.message : describeError(err)}`;
    chart.dataset.state = 'error';
    return;
  }
  try {
    const rows = await replayWithSettings(state.cc, state.before, settings);
    if (run !== chartRun) return;
    drawChart(chart, rows, settings);
    Object.assign(chart.dataset, {
      run, limit: settings.contextLimit, threshold: settings.threshold, keepRecentTurns: settings.keepRecentTurns, strategy: settings.strategy,
    });
    const remote = settings.strategy === 'llm' && settings.provider !== 'offline';
    caption.textContent = `The conversation replayed request by request as its agent sent it (${rows.length} model calls, `
      + 'one before each assistant message), through one ContextManager with the settings on the left: '
      + 'hover a point for what compaction did.'
      + (remote ? ` Its LLM summaries are written by the built-in offline summarizer, so drawing it never calls the ${PROVIDER_NAMES[settings.provider]}; `
        + 'the Compact button uses the summarizer you chose.' : '');
    chart.dataset.state = 'ready';
  } catch (err) {
    if (run !== chartRun) return;
    chart.replaceChildren();
    caption.textContent = `The replay failed: ${describeError(err)}`;
    chart.dataset.state = 'error';
  }
}

// ---------------------------------------------------------------- compaction

function describeOutcome(outcome, settings, messages) {
  const r = outcome.result;
  const changed = r.turnsCompacted + r.toolResultsSummarized + r.toolResultsRedacted > 0;
  let what;
  if (!changed) {
    const hint = settings.strategy === 'summarize' && !outcome.fallback
      ? ' (in summarize mode, tool results without a compact summary are kept)' : '';
    what = `Nothing to compact outside the last ${settings.keepRecentTurns} turns of ${turnCount(messages)}${hint}`;
  } else if (outcome.strategy === 'llm') {
    const replaced = outcome.messagesBefore - outcome.messagesAfter + 1;
    const kept = outcome.keptUserMessages;
    what = `LLM summary (${PROVIDER_NAMES[settings.provider]}): ${replaced} messages in ${r.turnsCompacted} turns replaced by one`
      + (kept > 0 ? `, ${kept} user message${kept === 1 ? '' : 's'} of those turns kept verbatim after it` : '');
  } else {
    what = `Threshold compaction: ${r.toolResultsSummarized} tool results summarized, ${r.toolResultsRedacted} redacted`;
  }
  const fallback = outcome.fallback ? ' (fallback after the LLM failed)' : '';
  const escalation = outcome.escalation.length > 0 ? `; then, to fit the limit: ${escalationText(outcome.escalation)}` : '';
  return `${what}${fallback}${escalation}. ${outcome.messagesBefore} → ${outcome.messagesAfter} messages, `
    + `${outcome.tokensBefore.toLocaleString('en-US')} → ${outcome.tokensAfter.toLocaleString('en-US')} tokens, `
    + `${outcome.durationMs.toFixed(1)} ms. ${outcome.belowThreshold ? 'Now below the threshold.' : 'Still above the threshold.'}`;
}

function errorText(error, changed) {
  const status = error.status ? ` (HTTP ${error.status})` : '';
  const tail = changed ? '' : ' The conversation was not changed.';
  return `LLM compaction failed: ${error.code}${status}: ${error.message}.${tail}`.replace(/\.\./g, '.');
}

async function compact(event) {
  event.preventDefault();
  if (state.busy || state.before.length === 0) return;
  clearResult();
  drawAll();
  let settings;
  try {
    settings = readSettings();
  } catch (err) {
    showError(err instanceof SettingsError ? err.message : describeError(err));
    return;
  }
  rememberKeyIfAsked();
  state.busy = true;
  $('compact').disabled = true;
  $('compact').textContent = settings.strategy === 'llm' ? 'Summarizing…' : 'Compacting…';
  setPageState('busy');
  const before = state.before;
  try {
    const run = await runCompaction(state.cc, before, settings);
    if (state.before !== before) {
      // Another conversation was loaded while this one was being summarized.
      $('outcome').textContent = 'The conversation changed while it was being compacted: that result was discarded.';
      setPageState('done');
      return;
    }
    const outcomeBox = $('outcome');
    $('events').replaceChildren(...run.events.filter((e) => e.message).map((e) => el('li', { text: e.message })));
    if (run.outcome === null) {
      state.tokensAfter = run.tokensBefore;
      outcomeBox.dataset.result = 'below-threshold';
      outcomeBox.textContent = `Below the threshold: ${run.tokensBefore.toLocaleString('en-US')} tokens is `
        + `${((run.tokensBefore / settings.contextLimit) * 100).toFixed(1)} % of the limit (threshold ${Math.round(settings.threshold * 100)} %). `
        + 'Nothing to compact: lower the context limit or the threshold.';
    } else {
      const { outcome } = run;
      const changed = !outcome.error || outcome.fallback;
      if (changed) state.after = run.messages;
      state.tokensAfter = changed ? outcome.tokensAfter : outcome.tokensBefore;
      Object.assign(outcomeBox.dataset, {
        result: outcome.error && !outcome.fallback ? 'failed' : 'compacted',
        strategy: outcome.strategy,
        summarized: outcome.result.toolResultsSummarized,
        redacted: outcome.result.toolResultsRedacted,
        turns: outcome.result.turnsCompacted,
        messagesBefore: outcome.messagesBefore,
        messagesAfter: changed ? outcome.messagesAfter : outcome.messagesBefore,
        tokensBefore: outcome.tokensBefore,
        tokensAfter: state.tokensAfter,
        belowThreshold: outcome.belowThreshold,
      });
      outcomeBox.textContent = changed ? describeOutcome(outcome, settings, before) : '';
      if (outcome.error) showError(errorText(outcome.error, changed));
    }
    drawAll();
    scheduleChart();
    setPageState('done');
  } catch (err) {
    showError(`Compaction did not run: ${describeError(err)}`);
    setPageState('error');
  } finally {
    state.busy = false;
    $('compact').disabled = false;
    $('compact').textContent = 'Compact';
  }
}

// ---------------------------------------------------------------- export

function exportText() {
  const format = $('export-format').value;
  const value = exportConversation(state.cc, format, state.after ?? state.before, state.system, state.format);
  return { format, text: `${JSON.stringify(value, null, 2)}\n` };
}

function setExportStatus(message) {
  $('export-status').textContent = message;
}

function download() {
  try {
    const { format, text } = exportText();
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const a = el('a', { href: url, download: exportFileName(state.name, format) });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    setExportStatus(`Downloaded ${state.after ? 'the compacted' : 'the (uncompacted)'} conversation as ${FORMAT_NAMES[format]}.`);
  } catch (err) {
    setExportStatus(`Export failed: ${describeError(err)}`);
  }
}

async function copy() {
  try {
    const { format, text } = exportText();
    await navigator.clipboard.writeText(text);
    setExportStatus(`Copied as ${FORMAT_NAMES[format]} (${text.length.toLocaleString('en-US')} characters).`);
  } catch (err) {
    setExportStatus(`Copy failed (${describeError(err)}): use Download instead.`);
  }
}

// ---------------------------------------------------------------- start

function wire(manifest) {
  $('sample').addEventListener('change', () => loadSample(manifest, $('sample').value));
  $('load-paste').addEventListener('click', () => {
    if (loadText($('paste').value, 'pasted')) $('sample').value = '';
  });
  $('file').addEventListener('change', async () => {
    const file = $('file').files[0];
    if (file && loadText(await file.text(), file.name.replace(/\.json$/i, ''))) $('sample').value = '';
    $('file').value = '';
  });
  const zone = $('dropzone');
  zone.addEventListener('dragover', (e) => { e.preventDefault(); zone.classList.add('dragging'); });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', async (e) => {
    e.preventDefault();
    zone.classList.remove('dragging');
    const file = e.dataTransfer.files[0];
    const text = file ? await file.text() : e.dataTransfer.getData('text/plain');
    $('paste').value = text;
    if (loadText(text, file ? file.name.replace(/\.json$/i, '') : 'dropped')) $('sample').value = '';
  });
  for (const input of document.querySelectorAll('input[name="strategy"]')) input.addEventListener('change', syncVisibility);
  $('provider').addEventListener('change', () => { loadRememberedKey(); syncVisibility(); });
  $('remember-key').addEventListener('change', rememberKeyIfAsked);
  $('context-limit').addEventListener('input', drawGauges);
  $('threshold').addEventListener('input', drawGauges);
  for (const type of ['input', 'change']) {
    $('controls').addEventListener(type, (e) => { if (CHART_INPUTS.has(e.target.name || e.target.id)) scheduleChart(); });
  }
  $('reset-prompt').addEventListener('click', () => { $('prompt').value = state.cc.DEFAULT_SUMMARY_PROMPT; scheduleChart(); });
  $('controls').addEventListener('submit', compact);
  $('download').addEventListener('click', download);
  $('copy').addEventListener('click', copy);
}

async function start() {
  setPageState('loading');
  try {
    state.cc = await import('../assets/pkg/web.mjs');
  } catch (err) {
    setLoadStatus('The package is missing from www/assets/: start the page with `npm start`.', false);
    showError(`Could not load the package: ${describeError(err)}`);
    setPageState('error');
    return;
  }
  $('prompt').value = state.cc.DEFAULT_SUMMARY_PROMPT;
  loadRememberedKey();
  syncVisibility();
  const res = await fetch('assets/manifest.json');
  const manifest = res.ok ? await res.json() : { defaultSample: null, samples: [] };
  fillSamples(manifest);
  wire(manifest);
  if (manifest.defaultSample) await loadSample(manifest, manifest.defaultSample);
  else setLoadStatus('No sample transcripts found: paste a conversation.', false);
  $('compact').disabled = false;
  setPageState('ready');
}

start();
