// Hand-made conversations in each provider format, with the parts the types of pkg/index.d.ts
// name: types.test.mjs checks that each is a value of the SDK's own type, and that what the
// converters write back is a value of the SDK's type and of the package's.

/** OpenAI Chat Completions: `ChatCompletionMessageParam[]`. */
export const chat = [
  { role: 'developer', content: 'Be brief.' },
  { role: 'system', content: [{ type: 'text', text: 'You are a helper.' }], name: 'setup' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
    ],
  },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{"at":"a.png"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'a cat' }] },
  { role: 'assistant', content: [{ type: 'refusal', refusal: 'No.' }], refusal: 'No.' },
  { role: 'assistant', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'run', arguments: 'not json' } }] },
  { role: 'tool', tool_call_id: 'call_2', content: 'done' },
  {
    role: 'user',
    content: [
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
      { type: 'file', file: { file_id: 'file_1' } },
    ],
  },
  { role: 'assistant', content: 'A cat.', name: 'bot' },
];

/** OpenAI Responses API: `ResponseInputItem[]`. */
export const responses = [
  { role: 'developer', content: 'Be brief.' },
  { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'You are a helper.' }] },
  {
    role: 'user',
    content: [
      { type: 'input_text', text: 'What is this?' },
      { type: 'input_image', detail: 'auto', image_url: 'https://example.com/a.png' },
      { type: 'input_file', file_id: 'file_1' },
    ],
  },
  { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Look first.' }], encrypted_content: 'opaque' },
  {
    type: 'message',
    id: 'msg_1',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: 'Looking.', annotations: [{ type: 'url_citation', url: 'https://example.com', title: 'x', start_index: 0, end_index: 1 }] }],
  },
  { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'look', arguments: '{"at":"a.png"}', status: 'completed' },
  { type: 'function_call_output', call_id: 'call_1', output: [{ type: 'input_text', text: 'a cat' }] },
  { type: 'function_call', call_id: 'call_2', name: 'run', arguments: '{"n": 1}' },
  { type: 'function_call_output', call_id: 'call_2', output: 'done' },
  { role: 'assistant', content: 'A cat.' },
  { role: 'user', content: 'Thanks.' },
  { type: 'item_reference', id: 'msg_0' },
];

/** Anthropic Messages API: `{ system, messages: MessageParam[] }`. */
export const anthropic = {
  system: [{ type: 'text', text: 'You are a helper.', cache_control: { type: 'ephemeral' } }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'notes' }, title: 'Notes' },
      ],
    },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Look first.', signature: 'sig' },
        { type: 'redacted_thinking', data: 'opaque' },
        { type: 'text', text: 'Looking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'look', input: { at: 'a.png' } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [{ type: 'text', text: 'a cat' }, { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }],
          cache_control: { type: 'ephemeral' },
        },
        { type: 'text', text: 'And?' },
      ],
    },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'run', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'failed' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'run', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3' }] },
    { role: 'assistant', content: 'A cat.' },
  ],
};

/** Vercel AI SDK: `ModelMessage[]` (binary data as strings: values cross the wasm boundary as JSON). */
export const vercel = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is this?' },
      { type: 'image', image: 'https://example.com/a.png', mediaType: 'image/png' },
      { type: 'file', data: 'AAAA', mediaType: 'application/pdf', filename: 'a.pdf' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Look first.' },
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'look', input: { at: 'a.png' } },
    ],
  },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'look', output: { type: 'json', value: { animal: 'cat' } } }] },
  {
    role: 'assistant',
    content: [
      { type: 'tool-call', toolCallId: 'call_2', toolName: 'run', input: {} },
      { type: 'tool-call', toolCallId: 'call_3', toolName: 'run', input: {} },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'call_2', toolName: 'run', output: { type: 'execution-denied', reason: 'not now' } },
      { type: 'tool-result', toolCallId: 'call_3', toolName: 'run', output: { type: 'content', value: [{ type: 'text', text: 'done' }] } },
    ],
  },
  { role: 'assistant', content: 'A cat.', providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } } },
  { role: 'user', content: 'Thanks.' },
];
