// Shared by the integration tests: deterministic tool output, and the checks every
// framework's loop gets (each prompt within the room, the newest tool result verbatim,
// tool calls and results paired), on the package's own model of what the model was sent.
import assert from 'node:assert/strict';
import { ContextManager, estimateTokens, validateToolPairs } from 'context-compactor';

export const REDACTED = '[Content redacted for context management]';
export const SUMMARY_PREFIX = '[Previous conversation summary]: ';

const WORDS = ('the parser reads each file and returns a list of tokens which the checker then walks '
  + 'to find the failing case in module config loader test runner output error line value').split(' ');

/** About `chars` characters of words, the same for the same seed. */
export function words(seed, chars) {
  let s = seed * 7919 + 1;
  let out = '';
  while (out.length < chars) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out += `${WORDS[s % WORDS.length]}${s % 13 === 0 ? '\n' : ' '}`;
  }
  return out.slice(0, chars);
}

/** What the tool returns for call `n`: ~4 KB of text, unique to `n`. */
export const toolOutput = (n) => `read_file #${n}: src/module_${n}.rs\n${words(n, 4000)}`;

/**
 * Checks what the model was sent at each call (`prompts`: the package's messages of each
 * call, oldest first). `results[k]` is the tool output the model had seen last before call
 * k (undefined before the first). Returns the peak estimate.
 */
export function checkPrompts(prompts, { results, room }) {
  let peak = 0;
  prompts.forEach((messages, k) => {
    const tokens = estimateTokens(messages);
    peak = Math.max(peak, tokens);
    assert.ok(tokens <= room, `call ${k + 1}: ${tokens} tokens, over the room of ${room}`);
    assert.deepEqual(validateToolPairs(messages), [], `call ${k + 1}: tool calls and results paired`);
    const expected = results[k];
    if (expected !== undefined) {
      const newest = messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result').at(-1);
      const content = typeof newest?.content === 'string' ? newest.content : newest?.content?.map((b) => b.text).join('');
      assert.equal(content, expected, `call ${k + 1}: the newest tool result is sent verbatim`);
    }
  });
  return peak;
}

/** How many old tool results each prompt carries redacted. */
export const redactedIn = (messages) => messages.flatMap((m) => m.content)
  .filter((b) => b.type === 'tool_result' && (b.content === REDACTED || b.content?.[0]?.text === REDACTED)).length;

/**
 * Records what ContextManager.prototype.pushMany and setContextUsed receive while `fn` runs
 * (the integrations use the package's own ContextManager, this very class).
 */
export async function spyOnManagers(fn) {
  const pushed = [];
  const used = [];
  const { pushMany, setContextUsed } = ContextManager.prototype;
  ContextManager.prototype.pushMany = function (messages) { pushed.push(messages.length); return pushMany.call(this, messages); };
  ContextManager.prototype.setContextUsed = function (n) { used.push(n); return setContextUsed.call(this, n); };
  try {
    return { result: await fn(), pushed, used };
  } finally {
    ContextManager.prototype.pushMany = pushMany;
    ContextManager.prototype.setContextUsed = setContextUsed;
  }
}
