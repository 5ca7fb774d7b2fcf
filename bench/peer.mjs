// The peer: the specification's threshold compactor as a user would write it in plain JS,
// mutating an array of messages in place, plus the request body an app builds today.
// It follows the same rules as the package (old turns are a prefix; a summary comes from
// the map or the block's own `compact_summary`; a result already replaced is not counted
// again), so both produce the same conversation.

export const REDACTION_NOTICE = '[Content redacted for context management]';

/** Compacts `messages` in place; returns the specification's counts. */
export function peerCompact(messages, summaries = {}, { keepRecentTurns = 3, toolCompaction = 'summarize' } = {}) {
  const result = { toolResultsSummarized: 0, toolResultsRedacted: 0, turnsCompacted: 0 };
  // Where the last `keepRecentTurns` runs of one turn id start.
  let runs = 0;
  let boundary = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const t = messages[i].turn_id;
    const p = messages[i - 1]?.turn_id;
    if (i === 0 || p.owner !== t.owner || p.number !== t.number) {
      runs += 1;
      if (runs === keepRecentTurns) boundary = i;
    }
  }
  if (runs <= keepRecentTurns) return result;
  if (keepRecentTurns === 0) boundary = messages.length;
  for (let i = 0; i < boundary; i++) {
    const message = messages[i];
    if (message.role !== 'user') continue;
    for (const block of message.content) {
      if (block.type !== 'tool_result') continue;
      if (toolCompaction === 'redact') {
        if (block.content === REDACTION_NOTICE) continue;
        block.content = REDACTION_NOTICE;
        result.toolResultsRedacted += 1;
      } else {
        const summary = summaries[block.tool_use_id] ?? block.compact_summary;
        if (summary == null || block.content === summary) continue;
        block.content = summary;
        result.toolResultsSummarized += 1;
      }
    }
  }
  return result;
}

/** The Anthropic `messages` an app would keep alongside (what `toAnthropic` writes). */
export function peerAnthropicMessages(messages) {
  return messages.map((m) => ({
    content: m.content.map((b) => {
      if (b.type !== 'tool_result') return { ...b };
      const { compact_summary: _summary, is_error: isError, ...rest } = b;
      return isError ? { ...rest, is_error: true } : rest;
    }),
    role: m.role,
  }));
}

const encoder = new TextEncoder();

/** The request body as an app builds it today: `JSON.stringify` + `TextEncoder`. */
export function peerRequestBody(fields, messages) {
  return encoder.encode(JSON.stringify({ ...fields, messages }));
}
