// ContextManager's countTokens option: an exact counter used when no provider
// figure is fresh, and only recomputed when the conversation changed.
import test from 'node:test';
import assert from 'node:assert/strict';
import { ContextManager } from 'context-compactor';

const turn = (k) => ({ role: 'user', turn_id: { owner: 'u', number: k }, content: [{ type: 'text', text: `message ${k}` }] });

test('countTokens drives contextUsed and the trigger until a provider figure arrives', async () => {
  let calls = 0;
  const ctx = new ContextManager({
    contextLimit: 1000,
    countTokens: (messages) => { calls += 1; return messages.length * 100; },
  });
  ctx.pushMany([turn(1), turn(2), turn(3)]);
  assert.equal(ctx.contextUsed, 300);
  assert.equal(ctx.contextUsed, 300);
  assert.equal(calls, 1, 'not recounted while nothing changed');
  ctx.pushMany([turn(4), turn(5), turn(6), turn(7), turn(8)]);
  assert.equal(ctx.shouldCompact(), true, '800 / 1000 > 0.75');
  assert.equal(calls, 2);
  ctx.setContextUsed(100);
  assert.equal(ctx.contextUsed, 100, 'the provider figure wins');
  assert.equal(calls, 2);
});

test('a countTokens that throws or answers nonsense falls back to the estimate', async () => {
  for (const countTokens of [() => { throw new Error('tokenizer down'); }, () => 'many', () => -5, () => NaN]) {
    const ctx = new ContextManager({ contextLimit: 1000, countTokens });
    ctx.pushMany([turn(1), turn(2)]);
    assert.equal(ctx.contextUsed, ctx.estimatedTokens);
    assert.equal(await ctx.maybeCompact(), null);
  }
});

test('countTokens must be a function', () => {
  assert.throws(() => new ContextManager({ contextLimit: 10, countTokens: 5 }), { code: 'INVALID_INPUT', path: 'options.countTokens' });
});
