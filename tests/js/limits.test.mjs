// Output larger than a JS string can be (~2^29 UTF-16 units): an error, not a
// broken manager. Its own file: it holds ~1 GB of strings (about 10 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContextManager, CompactionError } from 'context-compactor';

const message = (number, text) => ({ role: 'user', turn_id: { owner: 'u', number }, content: [{ type: 'text', text }] });

test('messages() too large for one JS string: INVALID_INPUT, and the manager keeps working', () => {
  // Each string is legal; the two together are not, as one JSON text.
  const text = `é${'x'.repeat(280e6)}`;
  const ctx = new ContextManager({ contextLimit: 1e12 });
  ctx.push(message(1, text));
  ctx.push(message(2, text));
  assert.throws(() => ctx.messages(), (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT'
    && e.path === 'messages' && /too large to give JavaScript as one string/.test(e.message) && e.cause !== undefined);
  // Before, the exception left a borrow taken: every later call panicked.
  ctx.push(message(3, 'still here'));
  assert.ok(ctx.estimatedTokens > 0);
  const body = ctx.requestBody({ format: 'anthropic', model: 'm', max_tokens: 1 });
  assert.match(new TextDecoder().decode(body.subarray(-100)), /"text":"still here"/);
  ctx.free();
});
