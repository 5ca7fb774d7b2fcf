// Structural checkers of what the provider APIs accept, after the request types of their
// official SDKs (`@anthropic-ai/sdk`'s MessageParam, `openai`'s ChatCompletionMessageParam
// and ResponseInputItem), which ship no runtime validators. Each returns a list of
// human-readable problems, empty when the value has a shape the API takes: an unknown or
// missing field, a value of the wrong type, a part type where the API has none.

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v) => (JSON.stringify(v) ?? String(v)).slice(0, 60);

// A type is 'string' | 'boolean' | 'object' | 'null' | 'any', an array of literals, or a
// checker function (value, path, problems). An object spec's key ending in `?` is optional.

function checkValue(value, type, path, problems) {
  if (typeof type === 'function') return type(value, path, problems);
  if (Array.isArray(type)) {
    if (!type.includes(value)) problems.push(`${path}: ${show(value)} is not one of ${type.join(', ')}`);
    return;
  }
  const ok = type === 'any' || (type === 'null' ? value === null : type === 'object' ? isObject(value) : typeof value === type);
  if (!ok) problems.push(`${path}: expected ${type}, got ${show(value)}`);
}

/** An object with exactly the fields of `spec`. */
const obj = (spec) => (value, path, problems) => {
  if (!isObject(value)) return problems.push(`${path}: expected an object, got ${show(value)}`);
  const fields = Object.entries(spec).map(([key, type]) => [key.replace(/\?$/, ''), type, key.endsWith('?')]);
  for (const key of Object.keys(value)) {
    if (!fields.some(([k]) => k === key)) problems.push(`${path}.${key}: unknown field`);
  }
  for (const [key, type, optional] of fields) {
    if (value[key] === undefined) {
      if (!optional) problems.push(`${path}.${key}: missing`);
    } else {
      checkValue(value[key], type, `${path}.${key}`, problems);
    }
  }
};

/** An object whose `type` picks its spec in `specs`. */
const byType = (specs) => (value, path, problems) => {
  const spec = isObject(value) ? specs[value.type] : undefined;
  if (!spec) return problems.push(`${path}: type ${show(value?.type)} not accepted here`);
  obj({ type: [value.type], ...spec })(value, path, problems);
};

const arrayOf = (type, { nonEmpty = false } = {}) => (value, path, problems) => {
  if (!Array.isArray(value)) return problems.push(`${path}: expected an array, got ${show(value)}`);
  if (nonEmpty && value.length === 0) problems.push(`${path}: empty`);
  value.forEach((v, i) => checkValue(v, type, `${path}[${i}]`, problems));
};

/** Any of `types`; when none fits, the problems of the closest. */
const either = (...types) => (value, path, problems) => {
  const tries = types.map((type) => {
    const p = [];
    checkValue(value, type, path, p);
    return p;
  });
  if (tries.every((p) => p.length > 0)) problems.push(...tries.reduce((a, b) => (a.length <= b.length ? a : b)));
};

const httpUrl = (value, path, problems) => {
  if (typeof value !== 'string' || !/^https?:\/\//.test(value)) problems.push(`${path}: expected an http(s) URL, got ${show(value)}`);
};
const dataUrl = (value, path, problems) => {
  if (typeof value !== 'string' || !/^data:[\w.+-]+\/[\w.+-]+;base64,./.test(value)) problems.push(`${path}: expected a base64 data: URL, got ${show(value)}`);
};

// ---- Anthropic Messages API ---------------------------------------------------------

const CACHE = { 'cache_control?': 'object' };
const A_TEXT = { text: 'string', 'citations?': 'any', ...CACHE };
const A_IMAGE = {
  source: byType({
    base64: { media_type: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'], data: 'string' },
    url: { url: httpUrl },
    file: { file_id: 'string' },
  }),
  ...CACHE,
};
const A_DOCUMENT = {
  source: byType({
    base64: { media_type: ['application/pdf'], data: 'string' },
    url: { url: httpUrl },
    text: { media_type: ['text/plain'], data: 'string' },
    content: { content: 'any' },
    file: { file_id: 'string' },
  }),
  'title?': 'string',
  'context?': 'string',
  'citations?': 'any',
  ...CACHE,
};
const A_USER = {
  text: A_TEXT,
  image: A_IMAGE,
  document: A_DOCUMENT,
  tool_result: {
    tool_use_id: 'string',
    'content?': either('string', arrayOf(byType({ text: A_TEXT, image: A_IMAGE, document: A_DOCUMENT }))),
    'is_error?': 'boolean',
    ...CACHE,
  },
};
const A_ASSISTANT = {
  text: A_TEXT,
  thinking: { thinking: 'string', signature: 'string' },
  redacted_thinking: { data: 'string' },
  tool_use: { id: 'string', name: 'string', input: 'object', ...CACHE },
  server_tool_use: { id: 'string', name: 'string', input: 'object', ...CACHE },
  web_search_tool_result: { tool_use_id: 'string', content: 'any', ...CACHE },
};

/** Problems of a Messages API `messages` array. */
export function anthropicShapeProblems(messages) {
  const problems = [];
  arrayOf((m, path, p) => {
    const blocks = m?.role === 'assistant' ? A_ASSISTANT : A_USER;
    obj({ role: ['user', 'assistant'], content: either('string', arrayOf(byType(blocks), { nonEmpty: true })) })(m, path, p);
  })(messages, 'messages', problems);
  return problems;
}

// ---- OpenAI Chat Completions --------------------------------------------------------

const C_TEXT = { text: 'string' };
const C_TEXT_CONTENT = either('string', arrayOf(byType({ text: C_TEXT })));
const C_ROLES = {
  system: { content: C_TEXT_CONTENT, 'name?': 'string' },
  developer: { content: C_TEXT_CONTENT, 'name?': 'string' },
  user: {
    content: either('string', arrayOf(byType({
      text: C_TEXT,
      image_url: { image_url: obj({ url: either(httpUrl, dataUrl), 'detail?': ['auto', 'low', 'high'] }) },
      input_audio: { input_audio: obj({ data: 'string', format: ['wav', 'mp3'] }) },
      file: { file: obj({ 'file_data?': dataUrl, 'file_id?': 'string', 'filename?': 'string' }) },
    }))),
    'name?': 'string',
  },
  assistant: {
    'content?': either('string', 'null', arrayOf(byType({ text: C_TEXT, refusal: { refusal: 'string' } }))),
    'refusal?': either('string', 'null'),
    'name?': 'string',
    'audio?': 'any',
    'tool_calls?': arrayOf(obj({
      id: 'string',
      type: ['function'],
      function: obj({ name: 'string', arguments: 'string' }),
    }), { nonEmpty: true }),
  },
  tool: { tool_call_id: 'string', content: C_TEXT_CONTENT },
};

/** Problems of a Chat Completions `messages` array. */
export function chatShapeProblems(messages) {
  const problems = [];
  arrayOf((m, path, p) => {
    const spec = C_ROLES[m?.role];
    if (!spec) return p.push(`${path}.role: ${show(m?.role)} is not a role`);
    obj({ role: [m.role], ...spec })(m, path, p);
    if (m.role === 'assistant' && (m.content == null || m.content.length === 0) && !m.tool_calls?.length && m.refusal == null) {
      p.push(`${path}: an assistant message needs content or tool_calls`);
    }
  })(messages, 'messages', problems);
  return problems;
}

// ---- OpenAI Responses API -----------------------------------------------------------

const R_INPUT = {
  input_text: { text: 'string' },
  input_image: { detail: ['low', 'high', 'auto', 'original'], 'image_url?': either(httpUrl, dataUrl), 'file_id?': 'string' },
  input_file: { 'detail?': 'any', 'file_data?': dataUrl, 'file_id?': 'string', 'file_url?': httpUrl, 'filename?': 'string' },
};
const R_OUTPUT = {
  output_text: { text: 'string', 'annotations?': 'any', 'logprobs?': 'any' },
  refusal: { refusal: 'string' },
  input_text: R_INPUT.input_text,
};
const R_MESSAGE = (parts) => ({ 'id?': 'string', 'status?': 'string', content: either('string', arrayOf(byType(parts))) });
const R_ITEMS = {
  function_call: { call_id: 'string', name: 'string', arguments: 'string', 'id?': 'string', 'status?': 'string' },
  function_call_output: {
    call_id: 'string',
    // ResponseFunctionCallOutputItemList: an image's `detail` is optional there.
    output: either('string', arrayOf(byType({
      ...R_INPUT,
      input_image: { 'detail?': ['low', 'high', 'auto', 'original'], 'image_url?': either(httpUrl, dataUrl), 'file_id?': 'string' },
    }))),
    'id?': 'string',
    'status?': 'string',
  },
  reasoning: {
    id: 'string',
    summary: arrayOf(obj({ type: ['summary_text'], text: 'string' })),
    'encrypted_content?': either('string', 'null'),
    'content?': 'any',
    'status?': 'string',
  },
  web_search_call: { id: 'string', status: 'string', 'action?': 'any' },
};

/** Problems of a Responses API `input` array. */
export function responsesShapeProblems(items) {
  const problems = [];
  arrayOf((item, path, p) => {
    if (item?.type === undefined || item?.type === 'message') {
      const roles = ['user', 'system', 'developer', 'assistant'];
      if (!roles.includes(item?.role)) return p.push(`${path}.role: ${show(item?.role)} is not a role`);
      const parts = item.role === 'assistant' ? R_OUTPUT : R_INPUT;
      return obj({ 'type?': ['message'], role: [item.role], ...R_MESSAGE(parts) })(item, path, p);
    }
    byType(R_ITEMS)(item, path, p);
  })(items, 'input', problems);
  return problems;
}
