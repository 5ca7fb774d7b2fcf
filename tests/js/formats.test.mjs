// Provider format adapters: round trips on every shared transcript, the pairing rule
// after compaction, Responses API and Vercel AI SDK conversations, bad input.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  fromAnthropic, toAnthropic, fromOpenAI, toOpenAI, fromOpenAIResponses, toOpenAIResponses,
  fromVercelAI, toVercelAI, detectFormat, validateToolPairs, ThresholdCompactor, LlmCompactor,
  offlineSummarizer, CompactionError, ContextManager,
} from 'context-compactor';
import { conversationFiles, loadConversation, transcriptNames } from './support/conversations.mjs';
import { anthropicPairingProblems, openAIPairingProblems, responsesPairingProblems, vercelPairingProblems } from './support/pairing.mjs';

const REDACTED = '[Content redacted for context management]';
const FILES = conversationFiles();
const clone = structuredClone;

/** `{ system, messages }` read from a transcript file of either format. */
function read(file, x) {
  return file.endsWith('.anthropic.json') ? fromAnthropic(x) : fromOpenAI(x);
}

/** The conversation's content as the provider sees it (no ids, dates, raw_arguments). */
function essence(messages, { turns = true } = {}) {
  return messages.map((m) => ({
    role: m.role,
    ...(turns ? { turn_id: m.turn_id } : {}),
    content: m.content.map((b) => {
      const { raw_arguments: _raw, ...rest } = b;
      return rest;
    }),
  }));
}

function checkBothProviders(output, system, label) {
  assert.deepEqual(validateToolPairs(output), [], `${label}: validateToolPairs`);
  const anthropic = toAnthropic(output);
  assert.deepEqual(anthropicPairingProblems(anthropic), [], `${label}: Anthropic pairing`);
  assert.equal(anthropic[0]?.role, 'user', `${label}: an Anthropic conversation starts with a user message`);
  const openai = toOpenAI(output, system);
  assert.deepEqual(openAIPairingProblems(openai), [], `${label}: OpenAI pairing`);
  // And the converted conversations read back to the same content (turn ids are
  // re-assigned on reading: the summary message starts turn u1 instead of u0).
  const noTurns = { turns: false };
  assert.deepEqual(essence(fromAnthropic(anthropic).messages, noTurns), essence(output, noTurns), `${label}: Anthropic re-read`);
  assert.deepEqual(essence(fromOpenAI(openai).messages, noTurns), essence(output, noTurns), `${label}: OpenAI re-read`);
}

test('there are transcripts of both formats', () => {
  assert.ok(FILES.length >= 36, `only ${FILES.length} transcripts`);
  assert.equal(FILES.filter((f) => f.endsWith('.anthropic.json')).length, FILES.filter((f) => f.endsWith('.openai.json')).length);
});

describe('round trips of every transcript', () => {
  for (const file of FILES) {
    test(file, () => {
      const x = loadConversation(file);
      const before = clone(x);
      if (file.endsWith('.anthropic.json')) {
        const r = fromAnthropic(x);
        assert.deepEqual(r.system, x.system, 'system not returned as given');
        assert.ok(r.messages.length > 0 && r.messages.length === x.messages.length, 'message count');
        assert.deepEqual(toAnthropic(r.messages), x.messages);
        // the bare array form reads the same messages
        assert.deepEqual(essence(fromAnthropic(x.messages).messages), essence(r.messages));
      } else {
        const r = fromOpenAI(x);
        assert.ok(Array.isArray(r.system));
        assert.deepEqual(r.system, x.map((message, i) => ({ message, i })).filter(({ message }) => ['system', 'developer'].includes(message.role))
          .map(({ message, i }, k) => ({ position: i - k, message })));
        assert.deepEqual(toOpenAI(r.messages, r.system), x);
      }
      assert.deepEqual(x, before, 'input modified');
      // The model is valid: the output of from… is accepted by the compactors' parser.
      assert.deepEqual(validateToolPairs(read(file, x).messages), []);
    });
  }
});

describe('detectFormat on every transcript', () => {
  for (const file of FILES) {
    test(file, () => {
      const x = loadConversation(file);
      const expected = file.endsWith('.anthropic.json') ? 'anthropic' : 'openai';
      assert.equal(detectFormat(x), expected);
      assert.equal(detectFormat(read(file, x).messages), 'model');
    });
  }
});

test('detectFormat: not a conversation → null (as documented), not undefined', () => {
  for (const v of [42, 'hello', null, {}, []]) {
    assert.strictEqual(detectFormat(v), null, `detectFormat(${JSON.stringify(v)})`);
  }
});

describe('both formats of a transcript describe the same conversation', () => {
  for (const name of transcriptNames()) {
    test(name, () => {
      const a = fromAnthropic(loadConversation(`${name}.anthropic.json`));
      const o = fromOpenAI(loadConversation(`${name}.openai.json`));
      assert.deepEqual(essence(o.messages), essence(a.messages));
      assert.equal(o.system[0]?.message.content, a.system);
    });
  }
});

/** Tool results outside the last `keep` turns (runs of equal turn ids). */
function toolResultsBeforeLastTurns(messages, keep) {
  let turns = 0;
  let start = messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const t = messages[i].turn_id;
    const n = messages[i + 1]?.turn_id;
    if (!n || n.owner !== t.owner || n.number !== t.number) {
      if (turns === keep) break;
      turns++;
    }
    start = i;
  }
  return messages.slice(0, start).flatMap((m) => m.content).filter((b) => b.type === 'tool_result').length;
}

const systemOf = (r) => (Array.isArray(r.system) ? r.system : [{ position: 0, message: { role: 'system', content: r.system } }]);

describe('after compaction, the output converted back passes the pairing rule', () => {
  for (const file of FILES) {
    // Agent transcripts (tools.*) are one user task, then a turn per model step:
    // keepRecentTurns 1 keeps the last step's tool result; keepRecentTurns 0 redacts them all.
    for (const keepRecentTurns of file.startsWith('tools.') ? [1, 0] : [1]) {
      test(`${file}: threshold (redact, keepRecentTurns ${keepRecentTurns})`, () => {
        const r = read(file, loadConversation(file));
        const { messages, result } = new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns }).compact(r.messages);
        const expected = toolResultsBeforeLastTurns(r.messages, keepRecentTurns);
        assert.equal(result.toolResultsRedacted, expected);
        assert.equal(messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result' && b.content === REDACTED).length, expected);
        assert.equal(messages.length, r.messages.length);
        checkBothProviders(messages, systemOf(r), file);
      });
    }

    test(`${file}: LLM with offlineSummarizer (keepRecentTurns 1)`, async () => {
      const r = read(file, loadConversation(file));
      // No user message kept after the summary: the specification's shape (kept ones: llm.test.mjs).
      const compactor = new LlmCompactor({ summarize: offlineSummarizer(), keepRecentTurns: 1, keepUserMessagesTokens: 0 });
      const { messages, result } = await compactor.compact(r.messages);
      assert.ok(result.turnsCompacted > 0, 'nothing compacted');
      assert.ok(messages.length <= r.messages.length);
      assert.ok(messages[0].content[0].text.startsWith('[Previous conversation summary]: '));
      assert.equal(messages[0].summary_of.messages, r.messages.length - messages.length + 1);
      assert.deepEqual(messages.slice(1), r.messages.slice(messages[0].summary_of.messages), 'kept messages changed');
      checkBothProviders(messages, systemOf(r), file);
      // The system messages are put back where they were (position 0).
      if (Array.isArray(r.system)) assert.deepEqual(toOpenAI(messages, r.system)[0], r.system[0].message);
    });
  }
});

// ---- OpenAI Chat Completions: hand-written shapes -----------------------------

const CHAT = [
  { role: 'developer', content: 'Answer briefly.' },
  { role: 'user', content: 'Weather in Paris and Rome?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_2', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Rome",' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '18C, sunny' },
  { role: 'tool', tool_call_id: 'call_2', content: 'error: could not parse arguments' },
  { role: 'assistant', content: 'Paris: 18C and sunny. Rome: unknown.' },
  { role: 'user', content: [{ type: 'text', text: 'And this picture?' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
  { role: 'assistant', content: 'A cat.', refusal: null },
];

test('Chat Completions: parallel tool calls, invalid JSON arguments, content parts round trip', () => {
  const r = fromOpenAI(clone(CHAT));
  assert.deepEqual(r.system, [{ position: 0, message: CHAT[0] }]);
  assert.deepEqual(r.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  const calls = r.messages[1].content.filter((b) => b.type === 'tool_use');
  assert.deepEqual(calls.map((b) => b.id), ['call_1', 'call_2']);
  assert.deepEqual(calls[0].input, { city: 'Paris' });
  assert.deepEqual(calls[1].input, { _raw: '{"city": "Rome",' }, 'invalid JSON arguments should become { _raw: the string }');
  const results = r.messages[2].content;
  assert.deepEqual(results.map((b) => [b.type, b.tool_use_id]), [['tool_result', 'call_1'], ['tool_result', 'call_2']]);
  // one tool call and its result share a turn
  assert.deepEqual(r.messages[1].turn_id, r.messages[2].turn_id);
  assert.equal(r.messages[1].turn_id.owner, 'a');
  assert.equal(r.messages[0].turn_id.owner, 'u');
  assert.deepEqual(toOpenAI(r.messages, r.system), CHAT);
  assert.equal(detectFormat(CHAT), 'openai');
  // The Messages API takes only object inputs: the unreadable arguments travel as { _raw }.
  const anthropicCalls = toAnthropic(r.messages)[1].content.filter((b) => b.type === 'tool_use');
  assert.deepEqual(anthropicCalls[0].input, { city: 'Paris' });
  assert.deepEqual(anthropicCalls[1].input, calls[1].input);
  for (const b of toAnthropic(r.messages).flatMap((m) => m.content)) {
    assert.deepEqual(Object.keys(b).filter((k) => k.startsWith('raw_')), [], 'no bookkeeping field reaches the API');
  }
});

test('Chat Completions: a result-only turn stays paired after LLM compaction', async () => {
  const r = fromOpenAI(clone(CHAT));
  const { messages } = await new LlmCompactor({ summarize: offlineSummarizer(), keepRecentTurns: 1 }).compact(r.messages);
  const out = toOpenAI(messages, r.system);
  assert.deepEqual(openAIPairingProblems(out), []);
  assert.deepEqual(anthropicPairingProblems(toAnthropic(messages)), []);
  assert.deepEqual(out[0], CHAT[0], 'developer message put back first');
});

test('tool-call arguments with numbers JavaScript rounds (64-bit ids, 1.0) go back to the provider as sent', () => {
  const args = ['{"n":12345678901234567890,"id":9007199254740993,"f":1.0}', '{"id":9007199254740993}'];
  const chat = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: null, tool_calls: args.map((a, i) => ({ id: `c${i}`, type: 'function', function: { name: 'f', arguments: a } })) },
    { role: 'tool', tool_call_id: 'c0', content: 'r' },
    { role: 'tool', tool_call_id: 'c1', content: 'r' },
  ];
  const r = fromOpenAI(clone(chat));
  assert.deepEqual(toOpenAI(r.messages, r.system), chat);
  const ctx = new ContextManager({ contextLimit: 1e6 });
  ctx.pushMany(r.messages);
  assert.deepEqual(toOpenAI(ctx.messages()), chat);
  const body = (format) => new TextDecoder().decode(ctx.requestBody({ format, model: 'm' }));
  assert.deepEqual(JSON.parse(body('openai')).messages, chat);
  assert.ok(body('anthropic').includes(args[0]), body('anthropic'));
  assert.ok(body('openai-responses').includes(JSON.stringify(args[1])), body('openai-responses'));
  const items = [
    { role: 'user', content: 'hi' },
    { type: 'function_call', call_id: 'c1', name: 'f', arguments: args[0] },
    { type: 'function_call_output', call_id: 'c1', output: 'r' },
  ];
  const v = fromOpenAIResponses(clone(items));
  assert.deepEqual(toOpenAIResponses(v.messages, v.system), items);
  // An input changed by the caller is written as it now is.
  r.messages[1].content[1].input = { id: 7 };
  assert.equal(toOpenAI(r.messages)[1].tool_calls[1].function.arguments, '{"id":7}');
});

// ---- OpenAI Responses API -----------------------------------------------------

const RESPONSES = [
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Answer briefly.' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris and Rome?' }] },
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Two lookups needed.' }], encrypted_content: 'gAAAAB-opaque' },
  { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
  { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'get_weather', arguments: '{"city": "Rome",', status: 'completed' },
  { type: 'function_call_output', call_id: 'call_1', output: '18C, sunny' },
  { type: 'function_call_output', call_id: 'call_2', output: 'error: bad arguments' },
  { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'Paris: sunny.', annotations: [] }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks. Search the web for Rome.' }] },
  { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'Rome weather' } },
  { type: 'message', role: 'assistant', id: 'msg_2', status: 'completed', content: [{ type: 'output_text', text: 'Rome: rainy.', annotations: [] }] },
];

test('Responses API: round trip with parallel calls, invalid arguments, reasoning and unknown items', () => {
  const r = fromOpenAIResponses(clone(RESPONSES));
  assert.deepEqual(r.system, [{ position: 0, message: RESPONSES[0] }]);
  assert.deepEqual(r.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  const assistant = r.messages[1];
  assert.deepEqual(assistant.content.map((b) => b.type), ['reasoning', 'tool_use', 'tool_use']);
  assert.equal(assistant.content[0].encrypted_content, 'gAAAAB-opaque', 'reasoning item not kept verbatim');
  assert.deepEqual(assistant.content[1].input, { city: 'Paris' });
  assert.deepEqual(assistant.content[2].input, { _raw: '{"city": "Rome",' });
  assert.deepEqual(r.messages[2].content.map((b) => b.tool_use_id), ['call_1', 'call_2']);
  assert.deepEqual(r.messages[1].turn_id, r.messages[2].turn_id);
  assert.ok(r.messages[5].content.some((b) => b.type === 'web_search_call'), 'unknown item not kept');
  assert.deepEqual(validateToolPairs(r.messages), []);
  assert.deepEqual(toOpenAIResponses(r.messages, r.system), RESPONSES);
  assert.equal(detectFormat(RESPONSES), 'openai-responses');
});

test('Responses API: after compaction the items still pair, reasoning of kept turns is kept', async () => {
  const r = fromOpenAIResponses(clone(RESPONSES));
  for (const compacted of [
    new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 1 }).compact(r.messages).messages,
    (await new LlmCompactor({ summarize: offlineSummarizer(), keepRecentTurns: 2 }).compact(r.messages)).messages,
  ]) {
    const items = toOpenAIResponses(compacted, r.system);
    assert.deepEqual(responsesPairingProblems(items), []);
    assert.deepEqual(validateToolPairs(compacted), []);
    assert.deepEqual(items[0], RESPONSES[0]);
  }
  const { messages } = await new LlmCompactor({ summarize: offlineSummarizer(), keepRecentTurns: 1 }).compact(r.messages);
  const items = toOpenAIResponses(messages, r.system);
  assert.ok(items.some((i) => i.type === 'web_search_call'), 'the kept turn lost its web_search_call item');
});

// ---- Vercel AI SDK ------------------------------------------------------------

const VERCEL = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Two lookups.' },
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'weather', input: { city: 'Rome' } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'text', value: 'sunny' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'weather', output: { type: 'error-text', value: 'timeout' } },
    ],
  },
  { role: 'assistant', content: 'Paris is sunny; Rome timed out.' },
  { role: 'user', content: 'Look up x.' },
  { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'lookup', input: { q: 'x' }, providerOptions: { openai: { itemId: 'i3' } } }] },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c3', toolName: 'lookup', output: { type: 'json', value: { a: 1, b: [true, null] } } }] },
  { role: 'assistant', content: [{ type: 'text', text: 'x is 1.' }] },
];

test('Vercel AI: round trip with parallel calls, error results, json output, reasoning and provider options', () => {
  const r = fromVercelAI(clone(VERCEL));
  assert.deepEqual(r.system, [{ position: 0, message: VERCEL[0] }]);
  assert.deepEqual(r.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  assert.deepEqual(r.messages[1].content.map((b) => b.type), ['reasoning', 'text', 'tool_use', 'tool_use']);
  const [ok, failed] = r.messages[2].content;
  assert.deepEqual([ok.tool_use_id, ok.is_error, ok.content], ['c1', false, 'sunny']);
  assert.deepEqual([failed.tool_use_id, failed.is_error, failed.content], ['c2', true, 'timeout']);
  assert.deepEqual(r.messages[1].turn_id, r.messages[2].turn_id);
  assert.deepEqual(validateToolPairs(r.messages), []);
  assert.deepEqual(toVercelAI(r.messages, r.system), VERCEL);
  assert.equal(detectFormat(VERCEL), 'vercel-ai');
});

test('Vercel AI: after compaction the tool messages still pair', async () => {
  const r = fromVercelAI(clone(VERCEL));
  for (const compacted of [
    new ThresholdCompactor({ toolCompaction: 'redact', keepRecentTurns: 1 }).compact(r.messages).messages,
    (await new LlmCompactor({ summarize: offlineSummarizer(), keepRecentTurns: 1 }).compact(r.messages)).messages,
  ]) {
    const out = toVercelAI(compacted, r.system);
    assert.deepEqual(vercelPairingProblems(out), []);
    assert.deepEqual(validateToolPairs(compacted), []);
    assert.deepEqual(out[0], VERCEL[0]);
  }
});

test('cross-format: Vercel AI → Anthropic and OpenAI pass their pairing rules', () => {
  const r = fromVercelAI(clone(VERCEL));
  assert.deepEqual(anthropicPairingProblems(toAnthropic(r.messages)), []);
  assert.deepEqual(openAIPairingProblems(toOpenAI(r.messages)), []);
  const resp = toOpenAIResponses(r.messages);
  assert.deepEqual(responsesPairingProblems(resp), []);
});

// ---- Bad input ----------------------------------------------------------------

function assertInvalid(fn, pathPattern) {
  let err;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  assert.ok(err, 'no error thrown');
  assert.ok(err instanceof CompactionError, `not a CompactionError: ${err}`);
  assert.equal(err.code, 'INVALID_INPUT');
  assert.equal(typeof err.path, 'string', `no path on: ${err.message}`);
  assert.match(err.path, pathPattern);
}

test('bad input → CompactionError INVALID_INPUT with the offending path', () => {
  assertInvalid(() => fromAnthropic({ messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] }), /messages\[0\]\.content\[0\]\.tool_use_id/);
  assertInvalid(() => fromAnthropic({ messages: [{ role: 'robot', content: 'hi' }] }), /messages\[0\]\.role/);
  assertInvalid(() => fromAnthropic({ messages: 'nope' }), /messages/);
  assertInvalid(() => fromOpenAI([{ role: 'user', content: 'hi' }, { role: 'tool', content: 'x' }]), /messages\[1\]\.tool_call_id/);
  assertInvalid(() => fromOpenAI([{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { arguments: '{}' } }] }]), /messages\[0\]\.tool_calls\[0\]\.function\.name/);
  assertInvalid(() => fromOpenAI({ role: 'user' }), /messages/);
  assertInvalid(() => fromOpenAIResponses([{ type: 'function_call', name: 'f', arguments: '{}' }]), /input\[0\]\.call_id/);
  assertInvalid(() => fromVercelAI([{ role: 'tool', content: [{ type: 'tool-result', toolName: 'x', output: { type: 'text', value: 'v' } }] }]), /messages\[0\]\.content\[0\]\.toolCallId/);
  assertInvalid(() => toAnthropic([{ role: 'user', turn_id: { owner: 'u' }, content: [] }]), /messages\[0\]\.turn_id\.number/);
  assertInvalid(() => toOpenAI([{ role: 'user', turn_id: { owner: 'u', number: 1 }, content: 'not an array' }]), /messages\[0\]\.content/);
});

test('the pairing checkers themselves catch broken conversations', () => {
  const use = { type: 'tool_use', id: 't1', name: 'f', input: {} };
  const result = { type: 'tool_result', tool_use_id: 't1', content: 'r' };
  const text = (t) => ({ type: 'text', text: t });
  assert.deepEqual(anthropicPairingProblems([{ role: 'user', content: [text('q')] }, { role: 'assistant', content: [use] }, { role: 'user', content: [result] }]), []);
  assert.equal(anthropicPairingProblems([{ role: 'user', content: [result] }]).length, 1, 'orphan result');
  assert.equal(anthropicPairingProblems([{ role: 'assistant', content: [use] }, { role: 'user', content: [text('x')] }, { role: 'user', content: [result] }]).length, 2, 'result not right after');
  const call = { id: 't1', type: 'function', function: { name: 'f', arguments: '{}' } };
  assert.deepEqual(openAIPairingProblems([{ role: 'user', content: 'q' }, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: 't1', content: 'r' }]), []);
  assert.equal(openAIPairingProblems([{ role: 'user', content: 'q' }, { role: 'tool', tool_call_id: 't1', content: 'r' }]).length, 1);
  assert.equal(openAIPairingProblems([{ role: 'assistant', content: null, tool_calls: [call] }, { role: 'user', content: 'q' }]).length, 1);
  assert.equal(responsesPairingProblems([{ type: 'message', role: 'user', content: 'q' }, { type: 'function_call_output', call_id: 'x', output: '' }]).length, 1);
  assert.equal(vercelPairingProblems([{ role: 'user', content: 'q' }, { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'x', toolName: 'f', output: { type: 'text', value: '' } }] }]).length, 1);
  // validateToolPairs agrees on the model
  const model = fromAnthropic([{ role: 'user', content: [text('q')] }, { role: 'assistant', content: [use] }, { role: 'user', content: [result] }]).messages;
  assert.deepEqual(validateToolPairs(model), []);
  assert.ok(validateToolPairs([model[0], model[2]]).length > 0, 'validateToolPairs missed an orphan result');
});
