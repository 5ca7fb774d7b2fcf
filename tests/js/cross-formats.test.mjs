// Every format to every format, over the shared transcripts and a catalogue of mixed blocks
// written in each format: each output has a shape its API takes (the AI SDK's own
// modelMessageSchema, the documented request shapes of the others), no block is lost without
// a `block_dropped` event saying so, a format read and written back is unchanged, and tool
// call arguments that are not JSON come back as they were.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { modelMessageSchema } from 'ai';
import {
  fromAnthropic, toAnthropic, fromOpenAI, toOpenAI, fromOpenAIResponses, toOpenAIResponses,
  fromVercelAI, toVercelAI, CompactionError,
} from 'context-compactor';
import { conversationFiles, loadConversation } from './support/conversations.mjs';
import { anthropicPairingProblems, openAIPairingProblems, responsesPairingProblems, vercelPairingProblems } from './support/pairing.mjs';
import { anthropicShapeProblems, chatShapeProblems, responsesShapeProblems } from './support/shapes.mjs';

const clone = structuredClone;

/** Problems of an AI SDK message array: its schema, then its pairing rule. */
function vercelProblems(messages) {
  const problems = [];
  messages.forEach((m, i) => {
    const parsed = modelMessageSchema.safeParse(m);
    if (!parsed.success) problems.push(`messages[${i}]: ${JSON.stringify(parsed.error.issues).slice(0, 300)}`);
  });
  return [...problems, ...vercelPairingProblems(messages)];
}

const FORMATS = {
  anthropic: {
    read: (x) => fromAnthropic(x),
    write: (messages, _system, options) => toAnthropic(messages, options),
    problems: (out) => [...anthropicShapeProblems(out), ...anthropicPairingProblems(out)],
  },
  openai: {
    read: fromOpenAI,
    write: toOpenAI,
    problems: (out) => [...chatShapeProblems(out), ...openAIPairingProblems(out)],
  },
  'openai-responses': {
    read: fromOpenAIResponses,
    write: toOpenAIResponses,
    problems: (out) => [...responsesShapeProblems(out), ...responsesPairingProblems(out)],
  },
  'vercel-ai': { read: fromVercelAI, write: toVercelAI, problems: vercelProblems },
};
const NAMES = Object.keys(FORMATS);

/** The `system` argument of the array formats for what `from…` returned: Anthropic's prompt as a system message. */
function systemArgument(system) {
  if (Array.isArray(system) && system.every((s) => typeof s.position === 'number')) return system;
  if (system == null) return [];
  const text = typeof system === 'string' ? system : system.map((b) => b.text).join('\n');
  return [{ position: 0, message: { role: 'system', content: text } }];
}

/** `messages` written to `format`, with the events of the write. */
function write(format, messages, system) {
  const events = [];
  const out = FORMATS[format].write(messages, systemArgument(system), { onEvent: (e) => events.push(e) });
  return { out, events };
}

/** The strings that say what a block is: a text, a call id, or (for other blocks) its longest string, base64 from a data: URL. */
function payloads(block) {
  switch (block.type) {
    case 'text': return block.text ? [block.text] : [];
    case 'tool_use': return [block.id];
    case 'tool_result': return [block.tool_use_id];
    default: {
      const strings = [];
      const walk = (v, key) => {
        if (typeof v === 'string' && key !== 'type') strings.push(v.replace(/^data:[^,]*;base64,/, ''));
        else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
      };
      walk(block);
      return strings.length ? [strings.reduce((a, b) => (b.length > a.length ? b : a))] : [];
    }
  }
}

/**
 * Checks that every block of the model `messages` (and of their tool results' content) is in
 * `out` unless an event reports it dropped, in which case it is not there; and that each event
 * is a well-formed `block_dropped` of `format` naming such a block.
 */
function assertNothingLostSilently(messages, out, events, format, label) {
  const text = JSON.stringify(out);
  const inOut = (p) => text.includes(JSON.stringify(p).slice(1, -1));
  const dropped = new Set();
  for (const e of events) {
    const keys = ['kind', 'messageIndex', 'blockIndex', ...('partIndex' in e ? ['partIndex'] : []), 'type', 'format', 'reason'];
    assert.deepEqual(Object.keys(e), keys, `${label}: event fields`);
    assert.equal(e.kind, 'block_dropped', label);
    assert.equal(e.format, format, label);
    assert.ok(typeof e.reason === 'string' && e.reason.length > 0, `${label}: reason`);
    const block = messages[e.messageIndex]?.content[e.blockIndex];
    const named = 'partIndex' in e ? block?.content?.[e.partIndex] : block;
    assert.equal(named?.type ?? '', e.type, `${label}: the event names the block it drops (${JSON.stringify(e)})`);
    dropped.add(`${e.messageIndex}/${e.blockIndex}/${e.partIndex ?? ''}`);
  }
  messages.forEach((m, i) => m.content.forEach((b, j) => {
    const parts = b.type === 'tool_result' && Array.isArray(b.content) ? b.content.map((p, k) => [p, k]) : [];
    for (const [block, k] of [[b, ''], ...parts]) {
      const gone = dropped.has(`${i}/${j}/${k}`);
      for (const p of payloads(block)) {
        assert.equal(inOut(p), !gone, `${label}: messages[${i}].content[${j}]${k === '' ? '' : `.content[${k}]`} (${block.type}) ${gone ? 'dropped but still written' : 'lost without an event'}`);
      }
    }
  }));
}

/** Converts `input` (in format `from`) to every format, checking each output. */
function convertEverywhere(from, input, label) {
  const before = clone(input);
  const { system, messages } = FORMATS[from].read(input);
  const outputs = {};
  for (const to of NAMES) {
    const what = `${label}: ${from} → ${to}`;
    const { out, events } = write(to, messages, system);
    assert.deepEqual(FORMATS[to].problems(out), [], `${what}: the output has a shape the API takes`);
    assertNothingLostSilently(messages, out, events, to, what);
    if (to === from) {
      assert.deepEqual(out, from === 'anthropic' ? input.messages ?? input : input, `${what}: read and written back unchanged`);
      assert.deepEqual(events, [], `${what}: nothing dropped`);
    }
    outputs[to] = { out, events };
  }
  assert.deepEqual(input, before, `${label}: input modified`);
  return outputs;
}

// ---- The shared transcripts, in each format ---------------------------------------------

describe('every shared transcript, from each format to each format', () => {
  const files = conversationFiles();
  test('there are transcripts to convert', () => assert.ok(files.length >= 36, `${files.length} transcripts`));
  for (const file of files) {
    test(file, () => {
      const x = loadConversation(file);
      const native = file.endsWith('.anthropic.json') ? 'anthropic' : 'openai';
      const read = FORMATS[native].read(clone(x));
      // The same conversation written in each format is an input of that format.
      const inputs = { [native]: x };
      for (const to of NAMES.filter((n) => n !== native)) inputs[to] = write(to, read.messages, read.system).out;
      for (const [from, input] of Object.entries(inputs)) {
        const outputs = convertEverywhere(from, input, file);
        for (const [to, { events }] of Object.entries(outputs)) assert.deepEqual(events, [], `${file}: ${from} → ${to} drops nothing`);
      }
    });
  }
});

// ---- A catalogue of mixed blocks, in each format ----------------------------------------

// Distinct payloads, so that each block can be found in an output.
const png = (n) => `iVBORw0KGgoAAAANSUhEUgAAAA${'QwertY'.repeat(n)}`;
const jpeg = (n) => `/9j/4AAQSkZJRgABAQ${'Zxcvb'.repeat(n)}`;
const pdf = (n) => `JVBERi0xLjcKJeLjz9M${'Pdfq'.repeat(n)}`;

const ANTHROPIC = {
  system: 'You look at documents.',
  messages: [
    { role: 'user', content: [
      { type: 'text', text: 'What do these show?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(1) } },
      { type: 'image', source: { type: 'url', url: 'https://example.com/anthropic/cat.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: pdf(1) }, title: 'report.pdf' },
      { type: 'document', source: { type: 'url', url: 'https://example.com/anthropic/paper.pdf' } },
    ] },
    { role: 'assistant', content: [
      { type: 'thinking', thinking: 'The report needs OCR, the image a render.', signature: 'sig-anthropic-1' },
      { type: 'redacted_thinking', data: 'redacted-anthropic-1' },
      { type: 'text', text: 'Let me look closer.' },
      { type: 'tool_use', id: 'toolu_ocr', name: 'ocr', input: { page: 1 } },
      { type: 'tool_use', id: 'toolu_render', name: 'render', input: { page: 2 } },
    ] },
    { role: 'user', content: [
      { type: 'tool_result', tool_use_id: 'toolu_ocr', is_error: true, content: [{ type: 'text', text: 'OCR failed: no text layer' }] },
      { type: 'tool_result', tool_use_id: 'toolu_render', content: [
        { type: 'text', text: 'Rendered page 2' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(2) } },
      ] },
    ] },
    { role: 'assistant', content: [
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'report 2024' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
      { type: 'text', text: 'A cat, and a report about 2024.' },
    ] },
  ],
};

const CHAT = [
  { role: 'system', content: 'You read files.' },
  // The AI SDK has no developer role nor parts in a system message; the Responses API no `text` parts.
  { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Cite files.' }] },
  { role: 'user', content: [
    { type: 'text', text: 'Read these.' },
    { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${jpeg(1)}`, detail: 'high' } },
    { type: 'image_url', image_url: { url: 'https://example.com/chat/dog.png' } },
    { type: 'file', file: { filename: 'chat.pdf', file_data: `data:application/pdf;base64,${pdf(2)}` } },
    { type: 'input_audio', input_audio: { data: 'UklGRiQAAABXQVZFZm10-chat', format: 'wav' } },
  ] },
  { role: 'assistant', content: null, tool_calls: [
    { id: 'call_read', type: 'function', function: { name: 'read', arguments: '{"path":"a.txt"}' } },
    { id: 'call_broken', type: 'function', function: { name: 'read', arguments: '{"path": "b.txt",' } },
  ] },
  { role: 'tool', tool_call_id: 'call_read', content: 'contents of a' },
  { role: 'tool', tool_call_id: 'call_broken', content: [{ type: 'text', text: 'could not parse the arguments' }] },
  { role: 'assistant', content: [{ type: 'refusal', refusal: 'I will not play the audio.' }] },
  { role: 'user', content: 'Fine.' },
];

const RESPONSES = [
  { role: 'system', content: 'You describe charts.' },
  { type: 'message', role: 'user', content: [
    { type: 'input_text', text: 'Describe them.' },
    { type: 'input_image', image_url: 'https://example.com/responses/chart.png', detail: 'low' },
    { type: 'input_image', image_url: `data:image/png;base64,${png(3)}`, detail: 'auto' },
    { type: 'input_file', filename: 'responses.pdf', file_data: `data:application/pdf;base64,${pdf(3)}` },
    { type: 'input_file', file_url: 'https://example.com/responses/appendix.pdf' },
  ] },
  { type: 'reasoning', id: 'rs_responses_1', summary: [
    { type: 'summary_text', text: 'Two charts to zoom.' }, { type: 'summary_text', text: 'Then compare.' },
  ], encrypted_content: 'encrypted-responses-1' },
  { type: 'function_call', call_id: 'call_zoom', name: 'zoom', arguments: '{"x": 1,' },
  { type: 'function_call', call_id: 'call_crop', name: 'crop', arguments: '{"x":2}' },
  { type: 'function_call_output', call_id: 'call_zoom', output: 'bad arguments' },
  { type: 'function_call_output', call_id: 'call_crop', output: [
    { type: 'input_text', text: 'cropped' },
    { type: 'input_image', image_url: `data:image/png;base64,${png(4)}` },
  ] },
  { type: 'web_search_call', id: 'ws_responses_1', status: 'completed' },
  { type: 'message', role: 'assistant', content: [
    { type: 'output_text', text: 'Sales rose.', annotations: [] },
    { type: 'refusal', refusal: 'No forecast from me.' },
  ] },
];

const VERCEL = [
  { role: 'system', content: 'You compare pictures.' },
  { role: 'user', content: [
    { type: 'text', text: 'Compare them.' },
    { type: 'image', image: png(5) },
    { type: 'image', image: 'https://example.com/vercel/b.jpg' },
    { type: 'file', data: pdf(4), mediaType: 'application/pdf', filename: 'vercel.pdf' },
    { type: 'file', data: 'https://example.com/vercel/c.pdf', mediaType: 'application/pdf' },
  ] },
  { role: 'assistant', content: [
    { type: 'reasoning', text: 'Signed by Anthropic.', providerOptions: { anthropic: { signature: 'sig-vercel-1' } } },
    { type: 'reasoning', text: '', providerOptions: { anthropic: { redactedData: 'redacted-vercel-1' } } },
    { type: 'reasoning', text: 'OpenAI, first summary.', providerOptions: { openai: { itemId: 'rs_vercel_1', reasoningEncryptedContent: 'encrypted-vercel-1' } } },
    { type: 'reasoning', text: 'OpenAI, second summary.', providerOptions: { openai: { itemId: 'rs_vercel_1', reasoningEncryptedContent: 'encrypted-vercel-1' } } },
    { type: 'reasoning', text: 'Nobody signed this.' },
    { type: 'text', text: 'Running three tools.' },
    { type: 'tool-call', toolCallId: 'v_diff', toolName: 'diff', input: { a: 1 } },
    { type: 'tool-call', toolCallId: 'v_size', toolName: 'size', input: { a: 2 } },
    { type: 'tool-call', toolCallId: 'v_shot', toolName: 'shot', input: { a: 3 } },
  ] },
  { role: 'tool', content: [
    { type: 'tool-result', toolCallId: 'v_diff', toolName: 'diff', output: { type: 'error-text', value: 'diff crashed' } },
    { type: 'tool-result', toolCallId: 'v_size', toolName: 'size', output: { type: 'error-json', value: { code: 'E_SIZE' } } },
    { type: 'tool-result', toolCallId: 'v_shot', toolName: 'shot', output: { type: 'content', value: [
      { type: 'text', text: 'two shots' },
      { type: 'image-data', data: png(6), mediaType: 'image/png' },
      { type: 'image-url', url: 'https://example.com/vercel/shot.png' },
      { type: 'file-data', data: pdf(5), mediaType: 'application/pdf' },
    ] } },
  ] },
  { role: 'assistant', content: 'They differ.' },
];

const CATALOGUE = { anthropic: ANTHROPIC, openai: CHAT, 'openai-responses': RESPONSES, 'vercel-ai': VERCEL };

// What has no equivalent in each target, by block type, for each catalogue.
const EXPECTED_DROPS = {
  anthropic: {
    openai: ['document', 'thinking', 'redacted_thinking', 'image', 'server_tool_use', 'web_search_tool_result'],
    'openai-responses': ['thinking', 'redacted_thinking', 'server_tool_use', 'web_search_tool_result'],
    'vercel-ai': ['server_tool_use', 'web_search_tool_result'],
  },
  openai: {
    anthropic: ['input_audio'],
    'openai-responses': ['input_audio'],
    'vercel-ai': ['input_audio'],
  },
  'openai-responses': {
    anthropic: ['reasoning', 'web_search_call'],
    openai: ['input_file', 'reasoning', 'input_image', 'web_search_call'],
    'vercel-ai': ['web_search_call'],
  },
  'vercel-ai': {
    anthropic: ['reasoning', 'reasoning', 'reasoning'],
    openai: ['file', 'reasoning', 'reasoning', 'reasoning', 'reasoning', 'reasoning', 'image-data', 'image-url', 'file-data'],
    'openai-responses': ['reasoning', 'reasoning', 'reasoning'],
  },
};

describe('a catalogue of mixed blocks, from each format to each format', () => {
  for (const from of NAMES) {
    test(from, () => {
      // The catalogue itself is what its API takes.
      const input = CATALOGUE[from];
      assert.deepEqual(FORMATS[from].problems(from === 'anthropic' ? input.messages : input), [], `${from} catalogue`);
      const outputs = convertEverywhere(from, clone(input), `catalogue ${from}`);
      for (const [to, { events }] of Object.entries(outputs)) {
        if (to === from) continue;
        assert.deepEqual(events.map((e) => e.type), EXPECTED_DROPS[from][to], `${from} → ${to}: what is dropped`);
      }
    });
  }

  test('each block has its equivalent: images, files, thinking, reasoning, errors', () => {
    const a = fromAnthropic(clone(ANTHROPIC)).messages;
    const vercel = toVercelAI(a);
    assert.deepEqual(vercel[0].content[1], { type: 'file', mediaType: 'image/png', data: png(1) });
    assert.deepEqual(vercel[1].content[0], { type: 'reasoning', text: 'The report needs OCR, the image a render.', providerOptions: { anthropic: { signature: 'sig-anthropic-1' } } });
    // is_error is an error output, an image in a result a content part.
    assert.deepEqual(vercel[2].content[0].output, { type: 'error-text', value: 'OCR failed: no text layer' });
    assert.deepEqual(vercel[2].content[1].output.value[1], { type: 'image-data', data: png(2), mediaType: 'image/png' });
    const chat = toOpenAI(a);
    assert.deepEqual(chat[0].content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${png(1)}` } });
    assert.deepEqual(chat[0].content[3], { type: 'file', file: { filename: 'report.pdf', file_data: `data:application/pdf;base64,${pdf(1)}` } });
    // Thinking signed by Anthropic comes back to it through the AI SDK.
    assert.deepEqual(toAnthropic(fromVercelAI(vercel).messages)[1].content.slice(0, 2), ANTHROPIC.messages[1].content.slice(0, 2));
    // The AI SDK's parts of one OpenAI reasoning item are that item again in the Responses API.
    const items = toOpenAIResponses(fromVercelAI(clone(VERCEL)).messages);
    assert.deepEqual(items.filter((i) => i.type === 'reasoning'), [{
      type: 'reasoning', id: 'rs_vercel_1', encrypted_content: 'encrypted-vercel-1',
      summary: [{ type: 'summary_text', text: 'OpenAI, first summary.' }, { type: 'summary_text', text: 'OpenAI, second summary.' }],
    }]);
    // An AI SDK error is Anthropic's is_error.
    const results = toAnthropic(fromVercelAI(clone(VERCEL)).messages)[2].content;
    assert.deepEqual(results.map((r) => r.is_error), [true, true, undefined]);
  });
});

// ---- Arguments that are not JSON --------------------------------------------------------

test('tool call arguments that are not JSON travel as { _raw } and come back as they were', () => {
  const broken = '{"path": "b.txt",';
  const { messages } = fromOpenAI(clone(CHAT));
  const call = messages[1].content.find((b) => b.id === 'call_broken');
  assert.deepEqual(call.input, { _raw: broken });
  assert.deepEqual(toAnthropic(messages)[1].content[1].input, { _raw: broken });
  for (const via of ['anthropic', 'openai-responses', 'vercel-ai']) {
    const back = FORMATS[via].read(write(via, messages).out).messages;
    const calls = toOpenAI(back).find((m) => m.tool_calls)?.tool_calls;
    assert.equal(calls[1].function.arguments, broken, `through ${via}`);
    assert.equal(calls[0].function.arguments, '{"path":"a.txt"}', `through ${via}`);
  }
  // The Responses API's arguments are strings too.
  const r = fromOpenAIResponses(clone(RESPONSES));
  assert.deepEqual(r.messages[1].content.find((b) => b.id === 'call_zoom').input, { _raw: '{"x": 1,' });
  assert.equal(toOpenAI(r.messages).find((m) => m.tool_calls).tool_calls[0].function.arguments, '{"x": 1,');
  // Real JSON that looks like the wrapper stays what it was.
  const wrapper = [{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"_raw":"x"}' } }] }];
  assert.deepEqual(toOpenAI(fromOpenAI(clone(wrapper)).messages), wrapper);
});

// ---- The options argument ---------------------------------------------------------------

describe('the { onEvent } options of the to… functions', () => {
  const a = fromAnthropic(clone(ANTHROPIC)).messages;

  test('come after the positional system, which keeps working, and are optional', () => {
    const system = [{ position: 0, message: { role: 'system', content: 'S' } }];
    assert.deepEqual(toOpenAI(a, system)[0], system[0].message);
    assert.deepEqual(toOpenAI(a, system, {}), toOpenAI(a, system));
    assert.deepEqual(toVercelAI(a, undefined, { onEvent() {} }), toVercelAI(a));
    assert.deepEqual(toAnthropic(a, null), toAnthropic(a));
    const events = [];
    toOpenAIResponses(a, null, { onEvent: (e) => events.push(e) });
    assert.deepEqual(events[0], { kind: 'block_dropped', messageIndex: 1, blockIndex: 0, type: 'thinking', format: 'openai-responses', reason: events[0].reason });
    const nested = [];
    toOpenAI(a, [], { onEvent: (e) => nested.push(e) });
    assert.deepEqual(nested.find((e) => 'partIndex' in e), {
      kind: 'block_dropped', messageIndex: 2, blockIndex: 1, partIndex: 1, type: 'image', format: 'openai', reason: 'Chat Completions tool messages hold text only',
    });
  });

  test('are checked like every options object', () => {
    const cases = [
      [() => toOpenAI(a, [], { onEvent: 1 }), 'options.onEvent'],
      [() => toAnthropic(a, { onevent() {} }), 'options.onevent'],
      [() => toVercelAI(a, [], 5), 'options'],
    ];
    for (const [call, path] of cases) {
      assert.throws(call, (e) => e instanceof CompactionError && e.code === 'INVALID_INPUT' && e.path === path, path);
    }
  });

  test('an exception thrown by onEvent is thrown on, unchanged', () => {
    const thrown = new Error('stop at the first loss');
    assert.throws(() => toAnthropic(fromOpenAI(clone(CHAT)).messages, { onEvent: () => { throw thrown; } }), (e) => e === thrown);
  });
});

// ---- The checkers can fail --------------------------------------------------------------

test('the checkers reject what the APIs reject', () => {
  const anthropicImage = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(1) } };
  // The AI SDK's schema, on the shape the converter used to pass through.
  assert.equal(modelMessageSchema.safeParse({ role: 'user', content: [anthropicImage] }).success, false);
  assert.equal(modelMessageSchema.safeParse({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c', toolName: 'f', output: { type: 'content', value: [anthropicImage] } }] }).success, false);
  assert.notDeepEqual(chatShapeProblems([{ role: 'user', content: [anthropicImage] }]), []);
  assert.notDeepEqual(chatShapeProblems([{ role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's' }] }]), []);
  assert.notDeepEqual(chatShapeProblems([{ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', status: 'completed', function: { name: 'f', arguments: '{}' } }] }]), []);
  assert.notDeepEqual(anthropicShapeProblems([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', toolName: 'f', content: 'x' }] }]), []);
  assert.notDeepEqual(anthropicShapeProblems([{ role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'f', input: '{"a":' }] }]), []);
  assert.notDeepEqual(anthropicShapeProblems([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }]), []);
  assert.notDeepEqual(responsesShapeProblems([{ type: 'function_call_output', call_id: 'c', output: [{ type: 'text', text: 'x' }] }]), []);
  assert.notDeepEqual(responsesShapeProblems([{ type: 'message', role: 'assistant', content: [{ type: 'thinking', thinking: 't' }] }]), []);
});
