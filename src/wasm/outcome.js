// A compaction's outcome as the object `maybeCompact` resolves to and `onEvent` receives,
// built in one call from numbers: no JSON text to write and parse on every compaction.
// Keys in sorted order, as JSON from the core had them; `error` is set by the caller.

/** A compaction's counts: `{ toolResultsRedacted, toolResultsSummarized, turnsCompacted }`. */
export function result(redacted, summarized, turns) {
  return { toolResultsRedacted: redacted, toolResultsSummarized: summarized, turnsCompacted: turns };
}

/**
 * `{ belowThreshold, durationMs, fallback, message?, messagesAfter, messagesBefore, result,
 * strategy, summaryLength?, tokensAfter, tokensBefore, type? }`: `message` and `type` for an
 * event (undefined otherwise), `summaryLength` when not negative.
 */
export function outcome(strategy, summarized, redacted, turns, tokensBefore, tokensAfter, messagesBefore,
  messagesAfter, durationMs, fallback, belowThreshold, summaryLength, type, message) {
  const o = { belowThreshold, durationMs, fallback };
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

/** The `compaction_started` event: `{ promptLength, tokensBefore, type }`. */
export function started(promptLength, tokensBefore) {
  return { promptLength, tokensBefore, type: 'compaction_started' };
}
