// Arrays of messages are read property by property in JS when every message is
// plain (src/wasm/plain_messages.js), else as JSON text. Both paths must give the
// same messages, the same token counts and the same errors, whatever the input.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import test from 'node:test';
import { ContextManager, estimateTokens, toAnthropic } from 'context-compactor';
import { agentConversation, loadTranscripts, message, text, toolResult, toolUse } from './helpers.mjs';

/** Where `import('context-compactor')` resolves (this test's package). */
const PKG_DIR = fileURLToPath(new URL('.', import.meta.url));

/** The same array, read through the JSON path: an array with `toJSON` is never read as plain. */
const viaJson = (messages) => Object.assign([...messages], { toJSON() { return [...this]; } });

/** What pushMany makes of `messages`: the messages, or the error's code, path and message. */
function outcome(messages) {
  const m = new ContextManager({ contextLimit: 1_000_000 });
  try {
    m.pushMany(messages);
    // Generated ids and timestamps differ between two reads: compared by shape only.
    return m.messages().map((x, i) => ({
      ...x,
      id: messages[i]?.id === undefined ? typeof x.id : x.id,
      created_at: messages[i]?.created_at === undefined ? typeof x.created_at : x.created_at,
    }));
  } catch (e) {
    return { code: e.code, path: e.path, message: e.message };
  } finally {
    m.free();
  }
}

function assertSamePaths(messages, what) {
  const plain = outcome(messages);
  assert.deepEqual(plain, outcome(viaJson(messages)), what);
  return plain;
}

test('plain path: the transcripts and a generated conversation read as through JSON', () => {
  const inputs = [...loadTranscripts().map((t) => [t.name, t.messages]), ['agent', agentConversation({ turns: 40 })]];
  assert.ok(inputs.length > 10);
  for (const [name, messages] of inputs) {
    assert.ok(Array.isArray(assertSamePaths(messages, name)), `${name} was read`);
    assert.equal(estimateTokens(messages), estimateTokens(viaJson(messages)), name);
    assert.deepEqual(toAnthropic(messages), toAnthropic(viaJson(messages)), name);
  }
});

// Each variant changes one message of a small conversation in a way the plain
// path must read, or hand over to the JSON path.
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
  // Arrays of plain text blocks go as texts, any other array as JSON text.
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

test('plain path: every variant reads (or fails) exactly as through JSON', () => {
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
      assertSamePaths(messages, `${name} at ${at}`);
    }
  }
});

test('plain path: large histories, sparse arrays and buffers reused between calls', () => {
  const big = agentConversation({ turns: 300 });
  // Three calls: the buffers grow, are let go, and a small call after a large one reads right.
  for (const messages of [big, big.slice(0, 3), big]) assertSamePaths(messages, `${messages.length} messages`);
  const sparse = agentConversation({ turns: 3 });
  delete sparse[2];
  assertSamePaths(sparse, 'sparse');
  const long = agentConversation({ turns: 2 });
  long[1].content = [text('x'.repeat(3_000_000) + 'é')];
  assertSamePaths(long, 'a 3 MB text');
  // Texts longer in UTF-8 than in UTF-16 units, and pairs on the boundaries where the buffer grows.
  long[1].content = [text('中'.repeat(70_000) + '😀'.repeat(1_000)), text('é😀'.repeat(100_000)), text('a')];
  assertSamePaths(long, 'non-ASCII texts');
  long[1].content = [text('中'.repeat(1_000_000))];
  assertSamePaths(long, 'a 3 MB text of 1 MB characters');
  // A message whose blocks outgrow the buffer (over the 1 MB kept between calls),
  // then turn out not to be plain (a block field it does not know, after long
  // blocks): its bytes are taken back, it goes as JSON text, and the messages
  // after it read on from there.
  const rewound = agentConversation({ turns: 3 });
  rewound[1] = { ...rewound[1], content: [text('é'.repeat(600_000)), text('ü'.repeat(1_500_000)), { ...text('x'), unknown_field: 1 }] };
  rewound[2] = { ...rewound[2], content: [text('b'.repeat(100_000))] };
  assertSamePaths(rewound, 'a message taken back after its blocks outgrew the buffer');
  assertSamePaths([...rewound, ...big], 'the same, then a long history');
  // ...and the plain path answered: the JSON path would read the next message again.
  let reads = 0;
  const { role } = rewound[2];
  Object.defineProperty(rewound[2], 'role', { get: () => { reads += 1; return role; }, enumerable: true });
  new ContextManager({ contextLimit: 1_000_000 }).pushMany(rewound);
  assert.equal(reads, 1, 'the array went through JSON');
});

test('plain path: taken message by message; the array is read as JSON only when reading throws (a getter counts)', () => {
  const counted = (at) => {
    const messages = agentConversation({ turns: 3 });
    let reads = 0;
    const { role } = messages[at];
    delete messages[at].role;
    Object.defineProperty(messages[at], 'role', { get: () => { reads += 1; return role; }, enumerable: true });
    return { messages, reads: () => reads };
  };
  const read = (messages) => new ContextManager({ contextLimit: 1_000_000 }).pushMany(messages);
  // Plain: read once.
  const plain = counted(4);
  read(plain.messages);
  assert.equal(plain.reads(), 1);
  // Another message is not plain: it comes as JSON text, and this one is still read once
  // (were the plain path's answer refused, the JSON path would read it again).
  const notPlain = {
    'an integer beyond 2^53': (m) => { m.content = [text('ok'), toolUse('big', 'x')]; m.session_id = 2 ** 60; },
    'a Date': (m) => { m.created_at = new Date(0); },
    'an unknown block type': (m) => { m.content = [text('ok'), { type: 'image', source: {} }]; },
    'an unknown field left undefined': (m) => { m.extra = undefined; },
    'a toJSON': (m) => { const copy = { ...m }; m.toJSON = () => copy; },
  };
  for (const [name, change] of Object.entries(notPlain)) {
    const other = counted(4);
    change(other.messages[5]);
    assertSamePaths(other.messages.slice(5), name);
    read(other.messages);
    assert.equal(other.reads(), 1, name);
  }
  // This one is not plain: read as fields, then as JSON text.
  const itself = counted(4);
  itself.messages[4].session_id = 2 ** 60;
  read(itself.messages);
  assert.equal(itself.reads(), 2);
  // Unknown fields, on the message and its blocks, are read the plain way.
  const extra = counted(4);
  extra.messages[4].meta = { trace: [1, 'x'], at: 0.5 };
  extra.messages[4].content = extra.messages[4].content.map((b) => ({ ...b, cache_control: { type: 'ephemeral' } }));
  read(extra.messages);
  assert.equal(extra.reads(), 1, 'a message with unknown fields went as JSON text');
  // Reading message 5 throws (a BigInt): the whole array goes to the JSON path, which
  // fails; the error path reads it once more to find the field.
  const thrown = counted(4);
  thrown.messages[5].extra = 1n;
  assert.throws(() => read(thrown.messages), (e) => e.code === 'INVALID_INPUT' && e.path === 'messages[5].extra');
  assert.equal(thrown.reads(), 3);
});

test('plain path: tool results whose content is text blocks are read without JSON text', () => {
  const asBlocks = (messages) => messages.map((m) => ({
    ...m,
    content: m.content.map((b) => (b.type === 'tool_result' ? { ...b, content: [text(b.content)] } : b)),
  }));
  // Counts the arrays JSON.stringify writes while pushMany reads `messages`.
  const arraysStringified = (messages) => {
    const stringify = JSON.stringify;
    let arrays = 0;
    JSON.stringify = (value, ...rest) => {
      if (Array.isArray(value)) arrays += 1;
      return stringify(value, ...rest);
    };
    try {
      new ContextManager({ contextLimit: 1_000_000 }).pushMany(messages);
    } finally {
      JSON.stringify = stringify;
    }
    return arrays;
  };
  const messages = asBlocks(agentConversation({ turns: 5, parallel: 2 }));
  const results = messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result');
  assert.equal(results.length, 10);
  assertSamePaths(messages, 'text blocks');
  assert.equal(arraysStringified(messages), 0);
  // Counted the right thing: a block with another field goes as JSON text.
  results[3].content[0].cache_control = { type: 'ephemeral' };
  assertSamePaths(messages, 'a text block with cache_control');
  assert.equal(arraysStringified(messages), 1);
  // A text from a getter is read once: the plain path answered.
  delete results[3].content[0].cache_control;
  let reads = 0;
  const block = results[5].content[0];
  const { text: t } = block;
  delete block.text;
  Object.defineProperty(block, 'text', { get: () => { reads += 1; return t; }, enumerable: true });
  new ContextManager({ contextLimit: 1_000_000 }).pushMany(messages);
  assert.equal(reads, 1);
});

test('plain path: the ops after a tool result\'s texts are kept wherever the texts end in the buffer', async () => {
  // The package's copy of plain_messages.js, imported afresh for each case: its ops buffer
  // starts at 4,096 ops, and one- or two-text messages before, then 0 to 8 texts, move the
  // end of the texts across that boundary.
  const pkg = path.dirname(fileURLToPath(import.meta.resolve('context-compactor')));
  const file = readdirSync(path.join(pkg, 'snippets'), { recursive: true }).find((f) => f.endsWith('plain_messages.js'));
  const url = pathToFileURL(path.join(pkg, 'snippets', file)).href;
  for (let two = 0; two < 12; two++) {
    for (let n = 0; n < 9; n++) {
      const { plainMessages } = await import(`${url}?${two}-${n}`);
      const messages = Array.from({ length: 369 }, (_, i) => message('user', 'u', 1, i < two ? [text('a'), text('b')] : [text('a')]));
      const texts = Array.from({ length: n }, (_, j) => text(`t${j}`));
      messages.push(message('user', 'u', 1, [toolResult('x', texts, { compact_summary: 'summary' })]));
      const [ops] = plainMessages(messages);
      // The last op is the compact_summary's length.
      assert.equal(ops[ops.length - 1], 'summary'.length, `${two} ${n}`);
    }
  }
});

test('push: one message reads as through JSON, for every variant', () => {
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
    // Through JSON: a toJSON returning the message (a toJSON of its own would then not be called).
    if (m !== null && typeof m === 'object' && typeof m.toJSON === 'function') continue;
    assert.deepEqual(pushed(m), pushed({ toJSON: () => m }), name);
    compared += 1;
  }
  assert.ok(compared > 40);
  // A message's own toJSON is given the key "", as by JSON.stringify(message).
  const keyed = Object.assign(Object.create({ toJSON(k) { return { ...this, session_id: k === '' ? 7 : 8 }; } }),
    message('user', 'u', 1, [text('hi')]));
  assert.equal(pushed(keyed).session_id, 7);
});

test('engines without String.prototype.isWellFormed find lone surrogates too (plain path, compact)', () => {
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
    // compact() with summaries sends a lone-surrogate tool_use_id as "no id" (js_messages.js).
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

test('plain path: a getter that reads other messages through the package meanwhile', () => {
  const outer = agentConversation({ turns: 4 });
  const inner = agentConversation({ turns: 2 });
  let innerTokens;
  const { role } = outer[3];
  delete outer[3].role;
  Object.defineProperty(outer[3], 'role', {
    enumerable: true,
    get: () => { innerTokens ??= estimateTokens(inner); return role; },
  });
  const plainOuter = outcome(outer);
  assert.equal(innerTokens, estimateTokens(viaJson(inner)));
  assert.deepEqual(plainOuter, outcome(viaJson(outer)));
  assert.equal(plainOuter.length, outer.length);
});
