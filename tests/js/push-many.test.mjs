// pushMany reads an array message by message (plain ones without JSON text, see
// plain-messages.test.mjs): the messages must be those of JSON.stringify of the
// whole array, at every length, and what it cannot read must fail as JSON would.
import assert from 'node:assert/strict';
import test from 'node:test';
import { ContextManager } from 'context-compactor';
import { message } from './helpers.mjs';

/** `n` text messages; the text of message i holds i, non-ASCII and an emoji (a surrogate pair). */
function texts(n) {
  return Array.from({ length: n }, (_, i) => message(i % 2 ? 'assistant' : 'user', 'u', i, [
    { type: 'text', text: `message ${i}: é中😀 "quoted" \\ \n` },
  ]));
}

const read = (messages) => {
  const m = new ContextManager({ contextLimit: 1_000_000 });
  m.pushMany(messages);
  const out = m.messages();
  m.free();
  return out;
};

test('pushMany: arrays of any length read as JSON.stringify of the whole', () => {
  for (const n of [0, 1, 63, 64, 65, 127, 128, 129, 300]) {
    const messages = texts(n);
    assert.deepEqual(read(messages), JSON.parse(JSON.stringify(messages)), `${n} messages`);
  }
});

test('pushMany: holes, toJSON and throwing elements behave as with JSON.stringify of the whole array', () => {
  // A hole (or undefined) is null in JSON: not a message, at its index in the whole array.
  const holes = texts(130);
  delete holes[100];
  assert.throws(() => read(holes), (e) => e.code === 'INVALID_INPUT' && e.path === 'messages[100]');
  // An element's toJSON is given its index in the whole array.
  const keyed = texts(130);
  const [first] = texts(1);
  keyed[100] = { toJSON: (key) => ({ ...first, id: `key ${key}` }) };
  assert.equal(read(keyed)[100].id, 'key 100');
  // The array's own toJSON is used.
  const own = texts(70);
  own.toJSON = () => texts(2);
  assert.equal(read(own).length, 2);
  // A cycle far into the array: reported where it is.
  const cyclic = texts(200);
  cyclic[150].self = cyclic[150];
  assert.throws(() => read(cyclic), (e) => e.code === 'INVALID_INPUT' && e.path === 'messages[150].self'
    && e.message === 'messages[150].self: is a cyclic reference (to an object that contains it)');
});
