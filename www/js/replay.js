// Replays a conversation request by request, as the agent that produced it sent it:
// before each model call it pushes what is new, lets the ContextManager compact, and
// records the context the call carries. Used by the demo page's chart and by
// examples/replay.mjs; it takes the package namespace `cc`, so it runs in both.

/**
 * The model calls of `messages`: one just before each assistant message, carrying every
 * message before it. Returns, for each call, how many messages it carries.
 */
export function requestPoints(messages) {
  const points = [];
  messages.forEach((message, i) => { if (message.role === 'assistant') points.push(i); });
  return points;
}

/**
 * Replays `messages` (model messages, as a `from…` adapter returns them) through one
 * `ContextManager` built with `options` (contextLimit, compactor, reserveTokens, …; an
 * `onEvent` of yours is called too). `compactSummaries` are stored before the first
 * request; with `keepMessages`, each row also has `sent`, the messages the request sends.
 *
 * Resolves to one row per request:
 *   { request, messages, before, after, uncompacted, fits, outcome, compacted, events, sent? }
 * `request` counts from 1; `messages` is how many messages were pushed so far; `before`
 * and `after` are `ctx.contextUsed` around `maybeCompact()`; `uncompacted` is the estimate
 * of all those messages, the request's size had nothing ever been compacted; `fits` is
 * `ctx.fits` after compacting; `outcome` is what `maybeCompact()` returned (null: nothing
 * ran); `compacted` whether it changed the conversation; `events` the events it raised.
 */
export async function replay(cc, messages, { compactSummaries, keepMessages = false, ...options }) {
  let events = [];
  const ctx = new cc.ContextManager({
    ...options,
    onEvent: (event) => { events.push(event); options.onEvent?.(event); },
  });
  try {
    if (compactSummaries) ctx.storeCompactSummaries(compactSummaries);
    const rows = [];
    let pushed = 0;
    let uncompacted = 0;
    for (const end of requestPoints(messages)) {
      events = [];
      const fresh = messages.slice(pushed, end);
      ctx.pushMany(fresh);
      pushed = end;
      // estimateTokens is a sum over messages: adding the new ones gives the whole prefix's.
      uncompacted += cc.estimateTokens(fresh);
      const before = ctx.contextUsed;
      const outcome = await ctx.maybeCompact();
      rows.push({
        request: rows.length + 1,
        messages: pushed,
        before,
        after: ctx.contextUsed,
        uncompacted,
        fits: ctx.fits,
        outcome,
        compacted: outcome !== null && changedSomething(outcome),
        events,
        ...(keepMessages ? { sent: ctx.messages() } : {}),
      });
    }
    return rows;
  } finally {
    ctx.free();
  }
}

/** Whether an outcome changed the conversation (its counts include the escalation's). */
function changedSomething({ result }) {
  return result.toolResultsSummarized + result.toolResultsRedacted + result.turnsCompacted > 0;
}

/** Peaks and counts over the rows of `replay`, for summary lines and labels. */
export function replayTotals(rows) {
  const peak = (key) => rows.reduce((max, row) => Math.max(max, row[key]), 0);
  return {
    requests: rows.length,
    peakUncompacted: peak('uncompacted'),
    peakBefore: peak('before'),
    peakAfter: peak('after'),
    compactions: rows.filter((row) => row.compacted).length,
    notFitting: rows.filter((row) => !row.fits).length,
  };
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What a `compact` or `shrink` rung did to tool results, e.g. "2 summarized, 1 redacted". */
const compactedText = (step) => [
  step.summarized > 0 ? `${step.summarized} summarized` : '', step.redacted > 0 ? `${step.redacted} redacted` : '',
].filter(Boolean).join(', ');

/** The escalation in words; consecutive shrinks, one turn at a time, read as one. */
export function escalationText(steps) {
  const words = [];
  steps.forEach((step, i) => {
    if (step.step === 'compact') words.push(`old tool results ${compactedText(step)}`);
    else if (step.step === 'truncate') words.push(`truncate ${plural(step.toolResults, 'tool result')} to ${step.maxTokens} tokens`);
    else if (steps[i + 1]?.step !== 'shrink') words.push(`shrink to ${plural(step.keptTurns, 'turn')}`);
  });
  return words.join(', ');
}

/**
 * What compaction did for one row, in words ('' when nothing ran and the request fits),
 * e.g. "LLM summary of 5 turns, 1 user message kept" or
 * "redacted 4 tool results; escalation: shrink to 1 turn; DOES NOT FIT (over_limit)".
 */
export function describeRow(row) {
  const parts = [];
  const o = row.outcome;
  if (o !== null) {
    const r = o.result;
    const did = [];
    if (r.turnsCompacted > 0) {
      did.push(`LLM summary of ${plural(r.turnsCompacted, 'turn')}`
        + (o.keptUserMessages > 0 ? `, ${plural(o.keptUserMessages, 'user message')} kept` : ''));
    }
    if (r.toolResultsSummarized > 0) did.push(`summarized ${plural(r.toolResultsSummarized, 'tool result')}`);
    if (r.toolResultsRedacted > 0) did.push(`redacted ${plural(r.toolResultsRedacted, 'tool result')}`);
    const what = did.length > 0 ? did.join(', ') : 'nothing to compact';
    if (o.error) parts.push(`LLM failed (${o.error.code}), ${o.fallback ? `fallback ${what}` : 'nothing changed'}`);
    else parts.push(what);
    if (o.escalation.length > 0) parts.push(`escalation: ${escalationText(o.escalation)}`);
  }
  if (!row.fits) parts.push(`DOES NOT FIT${row.events.some((e) => e.type === 'over_limit') ? ' (over_limit)' : ''}`);
  return parts.join('; ');
}
