// One compaction run with the page's settings, through the library's ContextManager
// (the same path an agent takes before each request), and the request-by-request replay
// the chart draws.
import { replay } from './replay.js';

/** A `summarize` function for the chosen provider. */
export function makeSummarizer(cc, { provider, baseURL, apiKey, model }) {
  switch (provider) {
    case 'offline':
      return cc.offlineSummarizer();
    case 'openai':
      if (!baseURL) throw new Error('Enter the base URL of the OpenAI-compatible endpoint (e.g. https://api.openai.com/v1).');
      if (!model) throw new Error('Enter a model name.');
      return cc.openAISummarizer({ baseURL, model, ...(apiKey ? { apiKey } : {}) });
    case 'anthropic':
      if (!apiKey) throw new Error('Enter an Anthropic API key.');
      if (!model) throw new Error('Enter a model name.');
      return cc.anthropicSummarizer({
        ...(baseURL ? { baseURL } : {}),
        apiKey,
        model,
        headers: { 'anthropic-dangerous-direct-browser-access': 'true' },
      });
    default:
      throw new Error(`unknown provider ${provider}`);
  }
}

/** The `compactor` option of ContextManager for the settings. */
export function compactorOptions(cc, settings) {
  const common = { threshold: settings.threshold, keepRecentTurns: settings.keepRecentTurns };
  if (settings.strategy !== 'llm') return { type: 'threshold', ...common, toolCompaction: settings.strategy };
  return {
    type: 'llm',
    ...common,
    summarize: makeSummarizer(cc, settings),
    summarySystemPrompt: settings.prompt,
    summaryTimeoutMs: settings.timeoutMs,
    maxSummaryTokens: settings.maxSummaryTokens,
    ...(settings.fallback ? { fallback: { ...common, toolCompaction: 'redact' } } : {}),
  };
}

/**
 * Each tool result's first non-empty line, for results that have no compact summary.
 * Summaries are keyed by tool_use_id, so an id that answers several calls (some
 * transcripts reuse them) gets none: it would give one result another's line.
 */
export function firstLineSummaries(messages) {
  const out = {};
  const seen = new Set();
  for (const m of messages) {
    for (const b of m.content) {
      if (b.type !== 'tool_result') continue;
      if (seen.has(b.tool_use_id)) { delete out[b.tool_use_id]; continue; }
      seen.add(b.tool_use_id);
      if (typeof b.compact_summary === 'string') continue;
      const text = typeof b.content === 'string'
        ? b.content
        : b.content.map((c) => (typeof c.text === 'string' ? c.text : '')).join('\n');
      const line = text.split('\n').map((l) => l.trim()).find((l) => l !== '');
      if (line !== undefined) out[b.tool_use_id] = line.length > 200 ? `${line.slice(0, 199)}…` : line;
    }
  }
  return out;
}

/** The compact summaries the settings give `messages`, if any. */
function summariesFor(messages, settings) {
  return settings.firstLineSummaries && settings.strategy === 'summarize' ? firstLineSummaries(messages) : undefined;
}

/**
 * Compacts `messages` when they are above the threshold. Resolves to
 * `{ outcome, messages, events, tokensBefore }`; `outcome` is null when below the threshold.
 * Never rejects for an LLM failure: that is `outcome.error` (and `messages` are the input).
 */
export async function runCompaction(cc, messages, settings) {
  const events = [];
  const manager = new cc.ContextManager({
    contextLimit: settings.contextLimit,
    compactor: compactorOptions(cc, settings),
    onEvent: (event) => events.push(event),
  });
  try {
    const summaries = summariesFor(messages, settings);
    if (summaries) manager.storeCompactSummaries(summaries);
    manager.pushMany(messages);
    const tokensBefore = manager.contextUsed;
    const outcome = await manager.maybeCompact();
    return { outcome, messages: manager.messages(), events, tokensBefore, tokensAfter: manager.contextUsed };
  } finally {
    manager.free();
  }
}

/**
 * Replays `messages` request by request with the settings (see replay.js). The LLM
 * strategy always summarizes with the offline summarizer here, so that replaying never
 * calls a remote API.
 */
export function replayWithSettings(cc, messages, settings) {
  return replay(cc, messages, {
    contextLimit: settings.contextLimit,
    compactor: compactorOptions(cc, { ...settings, provider: 'offline' }),
    compactSummaries: summariesFor(messages, settings),
  });
}
