// ContextManager.requestBody: the provider request body as UTF-8 bytes. Decision: the
// body parses to exactly `{ ...fields, messages: toX(ctx.messages(), system) }`, and its
// `messages` (or `input`) array is byte for byte `JSON.stringify(toX(…))`; the top-level
// fields may come in another order. The cached body must follow every change.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  ContextManager, CompactionError, fromAnthropic, toAnthropic, fromOpenAI, toOpenAI, fromOpenAIResponses,
  toOpenAIResponses,
} from 'context-compactor';
import { conversationFiles, loadConversation } from './support/conversations.mjs';

const decoder = new TextDecoder();
const FIELDS = { model: 'm-1', max_tokens: 1024, temperature: 0.5, metadata: { user_id: 'u1' } };

function parts(ctx, options) {
  const bytes = ctx.requestBody(options);
  assert.ok(bytes instanceof Uint8Array);
  const text = decoder.decode(bytes);
  return { text, body: JSON.parse(text) };
}

/** The body must equal what an app builds from the `to…` adapter. */
function assertBody(ctx, format, { system, fields = FIELDS } = {}) {
  const options = { format, ...fields, ...(system === undefined ? {} : { system }) };
  const { text, body } = parts(ctx, options);
  const key = format === 'openai-responses' ? 'input' : 'messages';
  const wire = format === 'anthropic' ? toAnthropic(ctx.messages())
    : format === 'openai' ? toOpenAI(ctx.messages(), system) : toOpenAIResponses(ctx.messages(), system);
  const expected = { ...fields, ...(format === 'anthropic' && system !== undefined ? { system } : {}), [key]: wire };
  assert.deepEqual(body, expected);
  assert.ok(text.endsWith(`${JSON.stringify(key)}:${JSON.stringify(wire)}}`), 'the messages array, byte for byte');
}

function load(file, from, compactor) {
  const raw = loadConversation(file);
  const { system, messages } = from(raw);
  const ctx = new ContextManager({ contextLimit: 1_000_000, compactor });
  ctx.pushMany(messages);
  return { ctx, system };
}

describe('requestBody on every shared transcript', () => {
  for (const file of conversationFiles()) {
    test(file, () => {
      if (file.endsWith('.anthropic.json')) {
        const { ctx, system } = load(file, fromAnthropic);
        assertBody(ctx, 'anthropic', { system });
        assertBody(ctx, 'openai');
        assertBody(ctx, 'openai-responses');
        ctx.free();
      } else {
        const { ctx, system } = load(file, fromOpenAI);
        assertBody(ctx, 'openai', { system });
        assertBody(ctx, 'anthropic');
        const responses = fromOpenAIResponses(toOpenAIResponses(ctx.messages(), system));
        assertBody(ctx, 'openai-responses', { system: responses.system });
        ctx.free();
      }
    });
  }
});

describe('the cached body follows the conversation', () => {
  const file = conversationFiles().find((f) => f.startsWith('tools.marshmallow') && f.endsWith('.anthropic.json'));

  test('same request, same conversation: equal bytes, a fresh copy each time', () => {
    const { ctx } = load(file, fromAnthropic);
    const a = ctx.requestBody({ format: 'anthropic', ...FIELDS });
    const b = ctx.requestBody({ format: 'anthropic', ...FIELDS });
    assert.deepEqual(a, b);
    a[0] = 0;
    assert.equal(ctx.requestBody({ format: 'anthropic', ...FIELDS })[0], '{'.charCodeAt(0));
    ctx.free();
  });

  test('push, compaction, other fields, other formats', async () => {
    const { ctx, system } = load(file, fromAnthropic, { type: 'threshold', toolCompaction: 'redact', keepRecentTurns: 1 });
    assertBody(ctx, 'anthropic', { system });
    ctx.push({ role: 'user', turn_id: { owner: 'u', number: 99 }, content: [{ type: 'text', text: 'more "quoted" é 😀' }] });
    assertBody(ctx, 'anthropic', { system });
    assertBody(ctx, 'openai');
    assertBody(ctx, 'anthropic', { system, fields: { model: 'other' } });
    const before = ctx.requestBody({ format: 'anthropic', ...FIELDS });
    await ctx.forceCompact();
    const after = ctx.requestBody({ format: 'anthropic', ...FIELDS });
    assert.ok(after.length < before.length, 'compaction shows in the body');
    assertBody(ctx, 'anthropic', { system });
    assertBody(ctx, 'openai-responses');
    ctx.free();
  });

  test('after an LLM compaction (the summary replaces a prefix)', async () => {
    const { ctx } = load(file, fromAnthropic);
    const llm = new ContextManager({
      contextLimit: 1_000_000,
      compactor: { type: 'llm', keepRecentTurns: 1, summarize: async () => 'short summary' },
    });
    llm.pushMany(ctx.messages());
    assertBody(llm, 'openai');
    await llm.forceCompact();
    assertBody(llm, 'openai');
    assertBody(llm, 'anthropic');
    ctx.free();
    llm.free();
  });

  test('OpenAI system messages at their positions, also past the end', () => {
    const ctx = new ContextManager({ contextLimit: 1_000 });
    ctx.push({ role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'text', text: 'hi' }] });
    const system = [
      { position: 0, message: { role: 'system', content: 'first' } },
      { position: 7, message: { role: 'developer', content: 'late' } },
      { position: 1, message: { role: 'system', content: 'after' } },
      { position: 0, message: { role: 'system', content: 'second' } },
    ];
    assertBody(ctx, 'openai', { system });
    assertBody(ctx, 'openai-responses', { system });
    ctx.free();
  });

  test('options given again: any change shows, getters run at each call, each manager reads its own', () => {
    // A manager reuses what it read of its last options when the new ones read the same.
    const make = () => {
      const ctx = new ContextManager({ contextLimit: 1_000 });
      ctx.push({ role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'text', text: 'hi' }] });
      return ctx;
    };
    const ctx = make();
    const body = (options, m = ctx) => JSON.parse(new TextDecoder().decode(m.requestBody(options)));
    assert.equal(body({ format: 'anthropic', model: 'a', max_tokens: 1 }).model, 'a');
    assert.equal(body({ format: 'anthropic', model: 'a', max_tokens: 1 }).model, 'a');
    assert.equal(body({ format: 'anthropic', model: 'b', max_tokens: 1 }).model, 'b', 'a string');
    assert.equal(body({ format: 'anthropic', model: 'b', max_tokens: 2 }).max_tokens, 2, 'a number');
    assert.equal(body({ format: 'anthropic', model: 'b', temperature: 1 }).temperature, 1);
    assert.equal(body({ format: 'anthropic', model: 'b', temperature: 1.5 }).temperature, 1.5, 'a fraction');
    assert.deepEqual(Object.keys(body({ format: 'anthropic', max_tokens: 2, model: 'b' })), ['max_tokens', 'model', 'messages'], 'the order');
    assert.deepEqual(Object.keys(body({ format: 'openai', max_tokens: 2, model: 'b' })), ['max_tokens', 'model', 'messages']);
    assert.equal(body({ format: 'openai-responses', max_tokens: 2, model: 'b' }).input[0].role, 'user', 'the format');
    // The same fields in another order, at the top or deeper: written in the order given.
    const text = (options) => new TextDecoder().decode(ctx.requestBody(options)).split(',"messages"')[0];
    assert.equal(text({ format: 'anthropic', model: 'b', max_tokens: 2 }), '{"model":"b","max_tokens":2');
    assert.equal(text({ format: 'anthropic', max_tokens: 2, model: 'b' }), '{"max_tokens":2,"model":"b"');
    assert.equal(text({ format: 'anthropic', metadata: { a: 1, b: 2 } }), '{"metadata":{"a":1,"b":2}');
    assert.equal(text({ format: 'anthropic', metadata: { b: 2, a: 1 } }), '{"metadata":{"b":2,"a":1}');
    // A getter runs at every call, and what it gives counts.
    let calls = 0;
    const withGetter = { format: 'anthropic', get model() { calls += 1; return `m${calls}`; } };
    assert.equal(body(withGetter).model, 'm1');
    assert.equal(body(withGetter).model, 'm2');
    assert.equal(calls, 2);
    // Options of strings and numbers are compared field by field; a field that holds an object
    // may change inside it while it stays the same object, and so may options given again.
    const metadata = { user_id: 'a' };
    assert.equal(body({ format: 'anthropic', model: 'b', metadata }).metadata.user_id, 'a');
    metadata.user_id = 'z';
    assert.equal(body({ format: 'anthropic', model: 'b', metadata }).metadata.user_id, 'z', 'an object changed inside');
    const same = { format: 'anthropic', model: 'b' };
    assert.equal(body(same).model, 'b');
    same.model = 'y';
    assert.equal(body(same).model, 'y', 'the same options changed');
    assert.equal(text({ format: 'anthropic', model: 'y', temperature: NaN }), '{"model":"y","temperature":null');
    assert.equal(text({ format: 'anthropic', model: 'y', temperature: NaN }), '{"model":"y","temperature":null');
    assert.equal(text({ format: 'anthropic', model: 'y', temperature: NaN, top_k: undefined }), '{"model":"y","temperature":null');
    assert.equal(text({ format: 'anthropic', model: 'y', temperature: null }), '{"model":"y","temperature":null');
    assert.equal(text({ format: 'anthropic', model: 'y', temperature: 'NaN' }), '{"model":"y","temperature":"NaN"');
    // Each field is read once a call, also when the options differ from the last ones.
    let reads = 0;
    const counted = (tokens) => ({ format: 'anthropic', get model() { reads += 1; return 'c'; }, max_tokens: tokens, metadata });
    for (const tokens of [1, 1, 2, 2]) assert.equal(body(counted(tokens)).max_tokens, tokens);
    assert.equal(reads, 4);
    // A getter that asks the same manager for a body with other options meanwhile: each
    // call writes its own, and the next call reads as it should.
    const nested = { format: 'anthropic', get model() { assert.equal(body({ format: 'anthropic', model: 'in' }).model, 'in'); return 'out'; } };
    assert.equal(body(nested).model, 'out');
    assert.equal(body(nested).model, 'out');
    assert.equal(body({ format: 'anthropic', model: 'in' }).model, 'in');
    // A mistake after good options is refused, and does not stay.
    assert.throws(() => ctx.requestBody({ format: 'anthropic', model: 'b', messages: [] }), (e) => e.path === 'options.messages');
    assert.equal(body({ format: 'anthropic', model: 'b' }).model, 'b');
    // Another manager, other options, and back.
    const other = make();
    assert.equal(body({ format: 'anthropic', model: 'c' }, other).model, 'c');
    assert.equal(body({ format: 'anthropic', model: 'b' }).model, 'b');
    assert.equal(body({ format: 'anthropic', model: 'c' }, other).model, 'c');
    ctx.free();
    other.free();
  });

  test('an empty conversation', () => {
    const ctx = new ContextManager({ contextLimit: 1_000 });
    assert.deepEqual(parts(ctx, { format: 'anthropic', model: 'x' }).body, { model: 'x', messages: [] });
    assert.deepEqual(parts(ctx, { format: 'openai-responses' }).body, { input: [] });
    ctx.free();
  });
});

describe('bad options', () => {
  const ctx = new ContextManager({ contextLimit: 1_000 });
  const cases = [
    [undefined, 'options'],
    [[], 'options'],
    [{ model: 'x' }, 'options.format'],
    [{ format: 'vercel-ai' }, 'options.format'],
    [{ format: 'model' }, 'options.format'],
    [{ format: 'anthropic', messages: [] }, 'options.messages'],
    [{ format: 'openai-responses', input: [] }, 'options.input'],
    [{ format: 'openai', system: 'not the from… array' }, 'options.system'],
    [{ format: 'openai', system: [{ position: 0 }] }, 'options.system[0]'],
    [{ format: 'anthropic', big: 10n }, 'options.big'],
  ];
  for (const [options, path] of cases) {
    test(`${JSON.stringify(options, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))} → INVALID_INPUT at ${path}`, () => {
      assert.throws(() => ctx.requestBody(options), (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT' && e.path === path);
    });
  }
});

test('a block the format has no equivalent for is left out and reported to onEvent when its message is written', () => {
  const wire = (k) => [
    { role: 'user', content: `question ${k}` },
    { role: 'assistant', content: [{ type: 'thinking', thinking: `thought ${k}`, signature: 's' }, { type: 'text', text: `answer ${k}` }] },
  ];
  const events = [];
  const ctx = new ContextManager({ contextLimit: 1_000_000, onEvent: (e) => { events.push(e); throw new Error('ignored'); } });
  ctx.pushMany(fromAnthropic({ messages: [...wire(0), ...wire(1)] }).messages);

  // What toOpenAI reports, as a manager event: `type` names the event, `blockType` the block.
  const expected = [];
  toOpenAI(ctx.messages(), [], { onEvent: ({ kind, type, ...rest }) => expected.push({ type: kind, ...rest, blockType: type }) });
  assert.equal(expected.length, 2);
  assertBody(ctx, 'openai');
  assert.deepEqual(events, expected.map(({ type, messageIndex, blockIndex, blockType, format, reason }) =>
    ({ type, messageIndex, blockIndex, blockType, format, reason })));
  assert.deepEqual(Object.keys(events[0]), ['type', 'messageIndex', 'blockIndex', 'blockType', 'format', 'reason']);

  // Copied from the last body: not reported again; a new message is, at its index.
  assertBody(ctx, 'openai');
  assert.equal(events.length, 2);
  ctx.pushMany(fromAnthropic({ messages: wire(2) }).messages);
  assertBody(ctx, 'openai');
  assert.deepEqual(events.slice(2).map((e) => [e.type, e.messageIndex, e.blockType]), [['block_dropped', 5, 'thinking']]);

  // Anthropic takes its signed thinking back: no event.
  assertBody(ctx, 'anthropic');
  assert.equal(events.length, 3);
});
