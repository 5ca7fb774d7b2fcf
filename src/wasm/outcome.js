// A compaction's outcome as the object `maybeCompact` resolves to and `onEvent` receives,
// built in one call from numbers: no JSON text to write and parse on every compaction.
// Keys in sorted order, as JSON from the core had them; `error` is set by the caller.

/** A compaction's counts: `{ toolResultsRedacted, toolResultsSummarized, turnsCompacted }`. */
export function result(redacted, summarized, turns) {
  return { toolResultsRedacted: redacted, toolResultsSummarized: summarized, turnsCompacted: turns };
}

/**
 * `{ belowThreshold, durationMs, escalation, fallback, fits, keptUserMessages, message?,
 * messagesAfter, messagesBefore, result, strategy, summaryLength?, tokensAfter, tokensBefore,
 * type? }`: `message` and `type` for an event (undefined otherwise), `summaryLength` when not
 * negative. `escalation` is given flat, five numbers a rung (`rungs`: kind 0 compact, 1 shrink,
 * 2 truncate; summarized; redacted or cut; kept turns; maximum tokens).
 */
export function outcome(strategy, summarized, redacted, turns, tokensBefore, tokensAfter, messagesBefore,
  messagesAfter, durationMs, fallback, belowThreshold, summaryLength, type, message, fits, keptUserMessages,
  rungs) {
  const o = { belowThreshold, durationMs, escalation: escalation(rungs), fallback, fits, keptUserMessages };
  if (message !== undefined) o.message = message;
  o.messagesAfter = messagesAfter;
  o.messagesBefore = messagesBefore;
  o.result = result(redacted, summarized, turns);
  o.strategy = strategy;
  if (summaryLength >= 0) o.summaryLength = summaryLength;
  o.tokensAfter = tokensAfter;
  o.tokensBefore = tokensBefore;
  if (type !== undefined) o.type = type;
  return o;
}

/** The rungs of the escalation: `{ step: 'compact' | 'shrink' | 'truncate', … }`. */
function escalation(rungs) {
  const out = [];
  for (let r = 0; r < rungs.length; r += 5) {
    const [kind, summarized, count, keptTurns, maxTokens] = rungs.subarray(r, r + 5);
    if (kind === 0) out.push({ step: 'compact', redacted: count, summarized });
    else if (kind === 1) out.push({ step: 'shrink', keptTurns, redacted: count, summarized });
    else out.push({ step: 'truncate', maxTokens, toolResults: count });
  }
  return out;
}

/** The `over_limit` event: the context does not fit even after every rung of the escalation. */
export function overLimit(tokens, room, contextLimit, reserveTokens, message) {
  return { contextLimit, message, reserveTokens, room, tokens, type: 'over_limit' };
}

/** The `nothing_to_compact` event: threshold compaction found no tool result in the old turns. */
export function nothingToCompact(message) {
  return { message, type: 'nothing_to_compact' };
}

/** The `compaction_started` event: `{ promptLength, tokensBefore, type }`. */
export function started(promptLength, tokensBefore) {
  return { promptLength, tokensBefore, type: 'compaction_started' };
}
