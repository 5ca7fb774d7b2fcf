// JSON-compatible values cross between JS and wasm as one batch each way
// (src/wasm/values.js, src/tape.rs): read as JSON.stringify reads them, given back as
// JSON.parse would make them. Whatever the input, pushMany, push and the rest read
// exactly what its JSON text says, and fail with the same error.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import test from 'node:test';
import { ContextManager, estimateTokens, fromVercelAI, toAnthropic, toVercelAI } from 'context-compactor';
import { agentConversation, loadTranscripts, message, text, toolResult, toolUse } from './helpers.mjs';

/** Where `import('context-compactor')` resolves (this test's package). */
const PKG_DIR = fileURLToPath(new URL('.', import.meta.url));

/** `value` as its JSON text says: what the package must read it as. */
const asJson = (value) => JSON.parse(JSON.stringify(value));

/** What pushMany makes of `messages`: the messages, or the error's code, path and message. */
function outcome(messages) {
  const m = new ContextManager({ contextLimit: 1_000_000 });
  try {
    m.pushMany(messages);
    const given = asJson(messages);
    // Generated ids and timestamps differ between two reads: compared by shape only.
    return m.messages().map((x, i) => ({
      ...x,
      id: given[i]?.id === undefined ? typeof x.id : x.id,
      created_at: given[i]?.created_at === undefined ? typeof x.created_at : x.created_at,
    }));
  } catch (e) {
    return { code: e.code, path: e.path, message: e.message };
  } finally {
    m.free();
  }
}

/**
 * Asserts that `messages` read as their JSON text does; where JSON.stringify throws (a
 * BigInt, a getter that throws), that reading is refused with the path of the field.
 */
function assertReadAsJson(messages, what) {
  let json;
  try {
    json = asJson(messages);
  } catch {
    const refused = outcome(messages);
    assert.equal(refused.code, 'INVALID_INPUT', what);
    assert.match(refused.path, /^messages\[\d+\]/, what);
    return refused;
  }
  const read = outcome(messages);
  assert.deepEqual(read, outcome(json), what);
  return read;
}

test('values: the transcripts and a generated conversation read as their JSON text', () => {
  const inputs = [...loadTranscripts().map((t) => [t.name, t.messages]), ['agent', agentConversation({ turns: 40 })]];
  assert.ok(inputs.length > 10);
  for (const [name, messages] of inputs) {
    assert.ok(Array.isArray(assertReadAsJson(messages, name)), `${name} was read`);
    assert.equal(estimateTokens(messages), estimateTokens(asJson(messages)), name);
    assert.deepEqual(toAnthropic(messages), toAnthropic(asJson(messages)), name);
  }
});

// Each variant changes one message of a small conversation: read directly, or by the
// model's reader, or refused with the path of the field at fault.
const deep = (n) => { let d = 0; for (let i = 0; i < n; i++) d = [d]; return d; };
const VARIANTS = {
  'no id, no created_at, no session_id': (m) => { delete m.id; delete m.created_at; delete m.session_id; },
  'undefined optional fields': (m) => { m.id = undefined; m.summary_of = undefined; },
  'non-ASCII and emoji': (m) => { m.content = [text('é中😀 "q" \\ \n\t\u0001')]; },
  'lone surrogate': (m) => { m.content = [text('a\ud800b')]; },
  'unknown message field': (m) => { m.extra = { x: [1, 'two'] }; },
  'unknown block field': (m) => { m.content = [{ ...text('t'), cache_control: { type: 'ephemeral' } }]; },
  'unknown block type': (m) => { m.content = [{ type: 'image', source: { data: 'AAAA' } }]; },
  'block without type': (m) => { m.content = [{ text: 't' }]; },
  'text is a number': (m) => { m.content = [{ type: 'text', text: 5 }]; },
  'text missing': (m) => { m.content = [{ type: 'text' }]; },
  'content null element': (m) => { m.content = [null]; },
  'content not an array': (m) => { m.content = 'hello'; },
  'empty content': (m) => { m.content = []; },
  'role system': (m) => { m.role = 'system'; },
  'role missing': (m) => { delete m.role; },
  'inherited role': (m) => { const { role, ...rest } = m; return Object.assign(Object.create({ role }), rest); },
  'role from a getter': (m) => { const { role } = m; delete m.role; Object.defineProperty(m, 'role', { get: () => role, enumerable: true }); },
  'throwing getter': (m) => { Object.defineProperty(m, 'id', { get() { throw new Error('no id'); }, enumerable: true }); },
  'toJSON on the message': (m) => { const copy = { ...m }; m.toJSON = () => ({ ...copy, id: 'from toJSON' }); },
  'toJSON inherited': (m) => Object.assign(Object.create({ toJSON() { return { ...this, id: 'from toJSON' }; } }), m),
  'toJSON given its index': (m) => Object.assign(Object.create({ toJSON(k) { return { ...this, id: `key ${k}` }; } }), m),
  'toJSON returning an object with toJSON': (m) => ({ toJSON: () => ({ ...m, toJSON: () => ({ ...m, session_id: 99 }) }) }),
  'toJSON inherited by a block': (m) => { m.content = [Object.assign(Object.create({ toJSON: () => text('b') }), text('a'))]; },
  'toJSON inherited by the turn id': (m) => { m.turn_id = Object.assign(Object.create({ toJSON: () => ({ owner: 'v', number: 2 }) }), m.turn_id); },
  'toJSON on a block': (m) => { m.content = [{ type: 'text', text: 'a', toJSON: () => text('b') }]; },
  'toJSON on the turn id': (m) => { m.turn_id = { owner: 'u', number: 1, toJSON: () => ({ owner: 'v', number: 2 }) }; },
  'Date as created_at': (m) => { m.created_at = new Date(Date.UTC(2025, 0, 1)); },
  'invalid created_at': (m) => { m.created_at = 'yesterday'; },
  'session_id negative': (m) => { m.session_id = -3; },
  'session_id fraction': (m) => { m.session_id = 1.5; },
  'session_id beyond 2^53': (m) => { m.session_id = 2 ** 60; },
  'session_id NaN': (m) => { m.session_id = NaN; },
  'session_id string': (m) => { m.session_id = '3'; },
  'session_id 2^53 - 1': (m) => { m.session_id = Number.MAX_SAFE_INTEGER; },
  'session_id -(2^53 - 1)': (m) => { m.session_id = -Number.MAX_SAFE_INTEGER; },
  'turn number -0': (m) => { m.turn_id = { owner: 'u', number: -0 }; },
  'turn id with extra field': (m) => { m.turn_id = { ...m.turn_id, extra: 1 }; },
  'turn id without owner': (m) => { m.turn_id = { number: 1 }; },
  'summary_of null': (m) => { m.summary_of = null; },
  'summary_of object': (m) => { m.summary_of = { messages: 3, turns: 1 }; },
  'summary_of negative': (m) => { m.summary_of = { messages: -1, turns: 1 }; },
  'summary_of incomplete': (m) => { m.summary_of = { messages: 1 }; },
  'tool_use input kinds': (m) => { m.content = [toolUse('a', 'x', 'str'), toolUse('b', 'x', null), toolUse('c', 'x', [1, { k: 2.5e-7 }])]; },
  'tool_use input missing': (m) => { m.content = [{ type: 'tool_use', id: 'a', name: 'x' }]; },
  'tool_use input a function': (m) => { m.content = [{ type: 'tool_use', id: 'a', name: 'x', input: () => 1 }]; },
  'tool_use input with a BigInt': (m) => { m.content = [toolUse('a', 'x', { n: 1n })]; },
  'tool_use input nested 90 deep': (m) => { m.content = [toolUse('a', 'x', deep(90))]; },
  'tool_use input nested 124 deep': (m) => { m.content = [toolUse('a', 'x', deep(124))]; },
  'tool_use input nested 125 deep': (m) => { m.content = [toolUse('a', 'x', deep(125))]; },
  'tool_use input nested 200 deep': (m) => { m.content = [toolUse('a', 'x', deep(200))]; },
  'tool_use input toJSON': (m) => { m.content = [toolUse('a', 'x', { toJSON: (k) => `key ${k}` })]; },
  'tool_result variants': (m) => {
    m.content = [toolResult('a', 'r', { is_error: null }), toolResult('b', 'r', { is_error: true, compact_summary: 's' }),
      toolResult('c', [{ type: 'text', text: 'x' }]), toolResult('d', 'r', { compact_summary: null }),
      { type: 'tool_result', tool_use_id: 'e', content: '' }];
  },
  'tool_result is_error string': (m) => { m.content = [toolResult('a', 'r', { is_error: 'yes' })]; },
  'tool_result compact_summary number': (m) => { m.content = [toolResult('a', 'r', { compact_summary: 5 })]; },
  'tool_result blocks not objects': (m) => { m.content = [toolResult('a', ['x'])]; },
  'tool_result content number': (m) => { m.content = [toolResult('a', 5)]; },
  'tool_result text blocks': (m) => { m.content = [toolResult('a', [text('x'), { text: 'é中😀 "q"\n', type: 'text' }, text('')])]; },
  'tool_result text blocks, several results': (m) => { m.content = [toolResult('a', [text('x')]), toolResult('b', [text('y'), text('z')], { compact_summary: 's' })]; },
  'tool_result empty blocks': (m) => { m.content = [toolResult('a', [])]; },
  'tool_result text block with an extra key': (m) => { m.content = [toolResult('a', [text('x'), { ...text('y'), cache_control: { type: 'ephemeral' } }])]; },
  'tool_result image block': (m) => { m.content = [toolResult('a', [text('x'), { type: 'image', source: { type: 'base64', data: 'AAAA' } }])]; },
  'tool_result text block, text a number': (m) => { m.content = [toolResult('a', [text('x'), { type: 'text', text: 5 }])]; },
  'tool_result text block, text a symbol': (m) => { m.content = [toolResult('a', [{ type: 'text', text: Symbol('s') }])]; },
  'tool_result text block, type not text': (m) => { m.content = [toolResult('a', [{ type: 'image', text: 'x' }])]; },
  'tool_result text block, no type': (m) => { m.content = [toolResult('a', [{ text: 'x', kind: 'text' }])]; },
  'tool_result text block, lone surrogate': (m) => { m.content = [toolResult('a', [text('a\ud800b')])]; },
  'tool_result text block, inherited text': (m) => { m.content = [toolResult('a', [Object.assign(Object.create({ text: 'x' }), { type: 'text', other: 1 })])]; },
  'tool_result blocks, a hole': (m) => { const blocks = [text('x'), text('y')]; delete blocks[0]; m.content = [toolResult('a', blocks)]; },
  'tool_result blocks, an array element': (m) => { m.content = [toolResult('a', [[text('x')]])]; },
  'tool_result text block from a getter': (m) => {
    const b = { type: 'text' };
    Object.defineProperty(b, 'text', { get: () => 'from a getter', enumerable: true });
    m.content = [toolResult('a', [b])];
  },
  'tool_result text block, throwing getter': (m) => {
    const b = { type: 'text' };
    Object.defineProperty(b, 'text', { get() { throw new Error('no text'); }, enumerable: true });
    m.content = [toolResult('a', [b])];
  },
  'tool_result blocks, toJSON on the array': (m) => { m.content = [toolResult('a', Object.assign([text('x')], { toJSON: () => [text('from toJSON')] }))]; },
  'tool_result blocks, toJSON on a block': (m) => { m.content = [toolResult('a', [text('x'), { ...text('y'), toJSON: () => text('from toJSON') }])]; },
  'tool_result blocks, toJSON inherited by a block': (m) => { m.content = [toolResult('a', [Object.assign(Object.create({ toJSON: () => text('b') }), text('a'))])]; },
  'text block with tool fields': (m) => { m.content = [{ type: 'text', text: 't', id: 'x' }]; },
  'symbol value': (m) => { m.content = [{ type: 'text', text: Symbol('s') }]; },
  'unknown fields of every kind': (m) => {
    m.meta = { list: [1, { b: null }, 'two'], big: 2 ** 60, f: 0.1, tiny: 5e-324, neg: -0, s: 'é"\n\u0001😀', t: true, nan: NaN };
    m.zz = null;
    m.content = [{ ...m.content[0], cache_control: { type: 'ephemeral' }, n: 1.5 }, ...m.content.slice(1)];
  },
  'unknown fields on tool_use and tool_result blocks': (m) => {
    m.content = [{ ...toolUse('t9'), cache_control: { type: 'ephemeral' } }, { ...toolResult('t9', 'out'), meta: [1, 2] }];
  },
  'unknown field, a Date': (m) => { m.when = new Date(0); },
  'unknown field, a Date inside': (m) => { m.meta = { when: new Date(0) }; },
  'unknown field, toJSON inside': (m) => { m.meta = { x: { toJSON: (key) => `key ${key}` } }; },
  'unknown field, a function': (m) => { m.f = () => 1; },
  'unknown field, a symbol': (m) => { m.s = Symbol('s'); },
  'unknown field, a lone surrogate in its value': (m) => { m.note = 'a\ud800'; },
  'unknown field, a lone surrogate in its key': (m) => { m['k\ud800'] = 1; },
  'unknown field, nested 200 deep': (m) => { m.deep = deep(200); },
  'unknown field, nested 90 deep': (m) => { m.deep = deep(90); },
  'unknown block field, a Date': (m) => { m.content = [{ ...text('t'), when: new Date(0) }]; },
  'unknown block field, undefined': (m) => { m.content = [{ ...text('t'), gone: undefined }]; },
  'the message is an array': () => [text('x')],
  'the message is null': () => null,
};

test('values: every variant reads (or fails) exactly as its JSON text says', () => {
  let refused = 0;
  for (const [name, change] of Object.entries(VARIANTS)) {
    for (const at of [0, 1, 5]) {
      const messages = [
        message('user', 'u', 1, [text('hi')]),
        message('assistant', 'a', 1, [text('calling'), toolUse('t1')]),
        message('user', 'u', 1, [toolResult('t1', 'out', { compact_summary: 'sum' })]),
        message('assistant', 'a', 1, [text('done')]),
        message('user', 'u', 2, [text('more')]),
        message('assistant', 'a', 2, [text('ok')]),
      ];
      const changed = change(messages[at]);
      if (changed !== undefined) messages[at] = changed;
      const read = assertReadAsJson(messages, `${name} at ${at}`);
      if (!Array.isArray(read)) {
        refused += 1;
        assert.ok(read.path.startsWith(`messages[${at}]`), `${name} at ${at}: ${read.path}`);
      }
    }
  }
  assert.ok(refused > 20, 'the variants include mistakes');
});

test('values: large histories, sparse arrays, long and non-ASCII strings, buffers reused between calls', () => {
  const big = agentConversation({ turns: 300 });
  // Three calls: the buffers grow, and a small call after a large one reads right.
  for (const messages of [big, big.slice(0, 3), big]) assertReadAsJson(messages, `${messages.length} messages`);
  const sparse = agentConversation({ turns: 3 });
  delete sparse[2];
  assertReadAsJson(sparse, 'sparse');
  const long = agentConversation({ turns: 2 });
  long[1].content = [text('x'.repeat(3_000_000) + 'é')];
  assertReadAsJson(long, 'a 3 MB text');
  // Texts longer in UTF-8 than in UTF-16 units, and short ones around the ASCII fast path.
  long[1].content = [text('中'.repeat(70_000) + '😀'.repeat(1_000)), text('é😀'.repeat(100_000)), text('a'),
    text(`${'a'.repeat(62)}é`), text(`${'a'.repeat(63)}é`), text('é'.repeat(63)), text(`😀${'a'.repeat(70)}`)];
  assertReadAsJson(long, 'non-ASCII texts');
  long[1].content = [text('中'.repeat(1_000_000))];
  assertReadAsJson(long, 'a 3 MB text of 1 MB characters');
});

test('values: given back as JSON.parse makes them', () => {
  const keys = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`key ${i} é`, i]));
  const meta = {
    numbers: [0, -0, 1, -1, 1.5, 2 ** 53, -(2 ** 53), 2 ** 60, 1e21, 1e300, 5e-324, 0.1 + 0.2, NaN, Infinity],
    strings: ['', 'a', 'é', '中文', '😀', 'a😀b', '"\\\n\t\u0001', '\u2028\u2029', 'x'.repeat(100_000)],
    nested: { a: [[], {}, [null, true, false]], '': 'empty key', 'é😀': 'non-ASCII key' },
    keys,
    sparse: [1, , 3], // eslint-disable-line no-sparse-arrays
  };
  const ctx = new ContextManager({ contextLimit: 1e9 });
  ctx.push({ ...message('user', 'u', 1, [text('hi')]), meta, __proto__: null });
  const back = ctx.messages()[0].meta;
  assert.deepEqual(back, asJson(meta));
  assert.equal(Object.getPrototypeOf(back), Object.prototype);
  // An own "__proto__" field stays a field, as JSON.parse makes it: not the prototype.
  const proto = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}');
  ctx.push({ ...message('user', 'u', 2, [text('hi')]), proto });
  const got = ctx.messages()[1].proto;
  assert.deepEqual(Object.keys(got), ['__proto__', 'x']);
  assert.equal(got.polluted, undefined);
  assert.equal({}.polluted, undefined);
  // Keys keep their order (no sorting), messages and blocks their fields' order.
  assert.deepEqual(Object.keys(ctx.messages()[0].meta.nested), ['a', '', 'é😀']);
  ctx.free();
});

test('values: keys given again, before and after a tape has more than sixteen', () => {
  // A tape numbers its first sixteen keys apart from the others: each is given again
  // (by number) on both sides of that line, in objects whose keys come in other orders.
  const wide = (k) => Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${(i + k) % 20}`, i]));
  const messages = [1, 2, 3].map((n) => ({ ...message('user', 'u', n, [text(`m${n}`)]), wide: wide(n), more: [wide(0), { f3: 'x', role: 'y' }] }));
  const ctx = new ContextManager({ contextLimit: 1e9 });
  ctx.pushMany(messages);
  ctx.push({ ...message('user', 'u', 4, [text('m4')]), small: { a: 1, b: { a: 2, c: [{ b: 3, a: 4 }] } } });
  const back = ctx.messages();
  assert.deepEqual(back.slice(0, 3).map((m) => [m.wide, m.more]), asJson(messages.map((m) => [m.wide, m.more])));
  assert.deepEqual(back.slice(0, 3).map((m) => Object.keys(m.wide)), messages.map((m) => Object.keys(m.wide)));
  assert.deepEqual(back[3].small, { a: 1, b: { a: 2, c: [{ b: 3, a: 4 }] } });
  ctx.free();
});

test('values: binary data becomes its base64 text', () => {
  const bytes = Uint8Array.from([0, 1, 2, 250, 255, 104, 105]);
  const base64 = Buffer.from(bytes).toString('base64');
  const ctx = new ContextManager({ contextLimit: 1e9 });
  ctx.push(message('user', 'u', 1, [{ type: 'image', data: bytes, buffer: Buffer.from(bytes), raw: bytes.buffer }]));
  const [block] = ctx.messages()[0].content;
  assert.deepEqual(block, { type: 'image', data: base64, buffer: base64, raw: base64 });
  // The AI SDK's image and file parts carry bytes: they come back as base64 data.
  const large = new Uint8Array(100_000).map((_, i) => i * 7);
  const { messages } = fromVercelAI([{ role: 'user', content: [
    { type: 'image', image: bytes, mediaType: 'image/png' },
    { type: 'file', data: large, mediaType: 'application/pdf' },
  ] }]);
  const [image, file] = toVercelAI(messages)[0].content;
  assert.equal(image.image, base64);
  assert.equal(file.data, Buffer.from(large).toString('base64'));
  ctx.free();
});

test('push: one message reads as its JSON text says, for every variant', () => {
  const pushed = (m) => {
    const manager = new ContextManager({ contextLimit: 1_000_000 });
    try {
      manager.push(m);
      const [x] = manager.messages();
      return { ...x, id: typeof x.id, created_at: typeof x.created_at };
    } catch (e) {
      return { code: e.code, path: e.path, message: e.message };
    } finally {
      manager.free();
    }
  };
  let compared = 0;
  for (const [name, change] of Object.entries(VARIANTS)) {
    let m = message('user', 'u', 1, [toolResult('t1', 'out', { compact_summary: 'sum' })]);
    const changed = change(m);
    if (changed !== undefined) m = changed;
    let json;
    try {
      json = JSON.stringify(m);
    } catch {
      assert.equal(pushed(m).code, 'INVALID_INPUT', name);
      continue;
    }
    if (json === undefined) continue;
    assert.deepEqual(pushed(m), pushed(JSON.parse(json)), name);
    compared += 1;
  }
  assert.ok(compared > 40);
  // A message's own toJSON is given the key "", as by JSON.stringify(message).
  const keyed = Object.assign(Object.create({ toJSON(k) { return { ...this, session_id: k === '' ? 7 : 8 }; } }),
    message('user', 'u', 1, [text('hi')]));
  assert.equal(pushed(keyed).session_id, 7);
});

test('engines without String.prototype.isWellFormed find lone surrogates too (pushMany, compact)', () => {
  // A fresh process where the method is missing before the package loads.
  const script = `
    delete String.prototype.isWellFormed;
    const { ContextManager, ThresholdCompactor } = await import('context-compactor');
    const read = (text) => {
      const m = new ContextManager({ contextLimit: 1e6 });
      try {
        m.pushMany([{ role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'text', text }] }]);
        return m.messages()[0].content[0].text;
      } catch (e) { return e.code + ' ' + e.path; }
    };
    // compact() with summaries takes a lone-surrogate tool_use_id as "no id" (js_messages.js).
    const result = new ThresholdCompactor({ keepRecentTurns: 0 }).compact([
      { role: 'assistant', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_use', id: 'x\\ud800', name: 'n', input: {} }] },
      { role: 'user', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_result', tool_use_id: 'x\\ud800', content: 'long' }] },
    ], { 'x\\ufffd': 'not this' }).result.toolResultsSummarized;
    console.log(JSON.stringify([read('pair 😀'), read('lone \\ud800'), read('lone \\udc00 low'), result]));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PKG_DIR, encoding: 'utf8' });
  const withMethod = ['pair 😀', 'lone \ud800', 'lone \udc00 low'].map((t) => outcome([
    { role: 'user', turn_id: { owner: 'u', number: 1 }, content: [text(t)] },
  ]));
  assert.deepEqual(JSON.parse(out),
    [...withMethod.map((r) => (Array.isArray(r) ? r[0].content[0].text : `${r.code} ${r.path}`)), 0]);
});

test('long text comes back the same through Node\'s Buffer and through TextDecoder (messages, toAnthropic, the LLM prompt)', async () => {
  // Node decodes long text from wasm with its Buffer (values.js); elsewhere, or without
  // process.getBuiltinModule, with TextDecoder. Both must give the text as it was pushed.
  const script = `
    if (process.argv[1] === 'without') delete process.getBuiltinModule;
    const { ContextManager, toAnthropic } = await import('context-compactor');
    const texts = ['a'.repeat(5000), 'Привет, мир! '.repeat(400), '中文😀'.repeat(700), '\\ufeff' + 'é'.repeat(2000), 'ok'];
    const pushed = texts.map((t, i) => ({ role: i % 2 ? 'assistant' : 'user', turn_id: { owner: 'u', number: i + 1 }, content: [{ type: 'text', text: t }] }));
    let prompt;
    const m = new ContextManager({ contextLimit: 1e6, compactor: { type: 'llm', keepRecentTurns: 1, summarize: (r) => { prompt = r.prompt; return 's'; } } });
    m.pushMany(pushed);
    const back = m.messages().map((x) => x.content[0].text);
    const wire = toAnthropic(pushed).map((x) => x.content[0].text);
    await m.forceCompact();
    const same = back.every((t, i) => t === texts[i]) && wire.every((t, i) => t === texts[i]);
    console.log(JSON.stringify({ same, inPrompt: texts.slice(0, 4).every((t) => prompt.includes(t)), prompt }));
  `;
  const run = (mode) => JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, mode],
    { cwd: PKG_DIR, encoding: 'utf8', maxBuffer: 1 << 26 }));
  const withBuffer = run('with');
  const without = run('without');
  assert.equal(withBuffer.same, true, 'messages() and toAnthropic through Buffer');
  assert.equal(without.same, true, 'messages() and toAnthropic through TextDecoder');
  assert.equal(withBuffer.inPrompt, true, 'the prompt through Buffer');
  assert.equal(without.inPrompt, true, 'the prompt through TextDecoder');
  assert.equal(withBuffer.prompt, without.prompt);
});

test('values: a getter that reads other messages through the package meanwhile', () => {
  const outer = agentConversation({ turns: 4 });
  const inner = agentConversation({ turns: 2 });
  let innerTokens;
  const { role } = outer[3];
  delete outer[3].role;
  Object.defineProperty(outer[3], 'role', {
    enumerable: true,
    get: () => { innerTokens ??= estimateTokens(inner); return role; },
  });
  const read = outcome(outer);
  assert.equal(innerTokens, estimateTokens(asJson(inner)));
  assert.deepEqual(read, outcome(asJson(outer)));
  assert.equal(read.length, outer.length);
});

test('values: a getter that makes wasm grow its memory meanwhile', () => {
  // The tape's lengths go to wasm memory once it is written: a larger memory cuts off that view.
  const outer = agentConversation({ turns: 4 });
  const { role } = outer[3];
  delete outer[3].role;
  let grown = false;
  Object.defineProperty(outer[3], 'role', {
    enumerable: true,
    get: () => {
      if (!grown) estimateTokens([{ role: 'user', content: [text('x'.repeat(24 << 20))] }]);
      grown = true;
      return role;
    },
  });
  const read = outcome(outer);
  assert.ok(grown);
  assert.deepEqual(read, outcome(asJson(outer)));
  assert.equal(read.length, outer.length);
});
