// A compaction's report as JS objects, each made in one call from wasm (src/wasm/outcome.rs
// says why): its counts, and the outcome `maybeCompact` resolves to and `onEvent` receives.

/** A compaction's counts, `{ toolResultsRedacted, toolResultsSummarized, turnsCompacted }`. */
export function counts(redacted, summarized, turns) {
  return { toolResultsRedacted: redacted, toolResultsSummarized: summarized, turnsCompacted: turns };
}

/**
 * `{ belowThreshold, durationMs, escalation, fallback, fits, keptUserMessages, message?,
 * messagesAfter, messagesBefore, result, strategy, summaryLength?, tokensAfter, tokensBefore,
 * type?, error? }`: `type` and `message` for an event.
 */
export function outcome(belowThreshold, durationMs, escalation, fallback, fits, keptUserMessages, message,
  messagesAfter, messagesBefore, redacted, summarized, turns, llm, summaryLength, tokensAfter, tokensBefore,
  type, error) {
  const o = { belowThreshold, durationMs, escalation, fallback, fits, keptUserMessages };
  if (message !== undefined) o.message = message;
  o.messagesAfter = messagesAfter;
  o.messagesBefore = messagesBefore;
  o.result = counts(redacted, summarized, turns);
  o.strategy = llm ? 'llm' : 'threshold';
  if (summaryLength !== undefined) o.summaryLength = summaryLength;
  o.tokensAfter = tokensAfter;
  o.tokensBefore = tokensBefore;
  if (type !== undefined) o.type = type;
  if (error !== undefined) o.error = error;
  return o;
}
