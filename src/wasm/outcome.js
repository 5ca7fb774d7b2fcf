// A compaction's report as JS objects, each made in one call from wasm (src/wasm/outcome.rs
// says why): its counts, and the outcome `maybeCompact` resolves to and `onEvent` receives.

/** A compaction's counts, `{ toolResultsRedacted, toolResultsSummarized, turnsCompacted }`. */
export function counts(redacted, summarized, turns) {
  return { toolResultsRedacted: redacted, toolResultsSummarized: summarized, turnsCompacted: turns };
}

/**
 * `{ belowThreshold, durationMs, escalation, fallback, fits, keptUserMessages, message?,
 * messagesAfter, messagesBefore, result, strategy, summaryLength?, tokensAfter, tokensBefore,
 * type?, error? }`: `type` and `message` for an event; `escalation` undefined for none.
 */
export function outcome(belowThreshold, durationMs, escalation, fallback, fits, keptUserMessages, message,
  messagesAfter, messagesBefore, redacted, summarized, turns, llm, summaryLength, tokensAfter, tokensBefore,
  type, error) {
  // What `maybeCompact` resolves to after a threshold compaction: made in one literal, whose
  // shape V8 keeps with it, instead of by a property added at a time.
  if (message === undefined && summaryLength === undefined && type === undefined && error === undefined) {
    return {
      belowThreshold, durationMs, escalation: escalation ?? [], fallback, fits, keptUserMessages, messagesAfter,
      messagesBefore, result: counts(redacted, summarized, turns), strategy: llm ? 'llm' : 'threshold', tokensAfter,
      tokensBefore,
    };
  }
  const o = { belowThreshold, durationMs, escalation: escalation ?? [], fallback, fits, keptUserMessages };
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

// V8 lets a hidden class go with the last object that has it: after a full garbage collection,
// the next call had to make the classes of its objects again, which cost many times the call
// itself. An object of each usual shape, held here, keeps them: a threshold compaction's
// outcome and its event.
export const usualShapes = [
  outcome(false, 0.5, undefined, false, true, 0, undefined, 1, 1, 0, 0, 0, false, undefined, 1, 1, undefined, undefined),
  outcome(false, 0.5, undefined, false, true, 0, '', 1, 1, 0, 0, 0, false, undefined, 1, 1, 'compaction', undefined),
];
