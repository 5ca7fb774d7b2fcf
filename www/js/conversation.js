// Reading a conversation in any supported wire format into the library's messages,
// and writing messages back out in any format.

export const FORMAT_NAMES = {
  anthropic: 'Anthropic Messages',
  openai: 'OpenAI Chat Completions',
  'openai-responses': 'OpenAI Responses',
  'vercel-ai': 'Vercel AI SDK',
  model: 'context-compactor messages',
};

const EXPECTED = 'Expected an Anthropic { system, messages } object or messages array, an OpenAI Chat Completions '
  + 'messages array, OpenAI Responses input items, Vercel AI SDK messages, or context-compactor messages.';

/** A user-facing failure to read a conversation. */
export class LoadError extends Error {}

/**
 * Reads `text` (JSON) as a conversation. Returns
 * `{ format, system, messages }` where `messages` are complete library messages
 * (ids, timestamps filled in) and `system` is what the format's `from…` kept aside.
 */
export function readConversation(cc, text) {
  if (text.trim() === '') throw new LoadError('Nothing to load: the text is empty.');
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new LoadError(`This is not JSON (${err.message}).`);
  }
  const format = cc.detectFormat(value);
  if (format === null) throw new LoadError(`Format not recognised. ${EXPECTED}`);

  let converted;
  try {
    converted = convertFrom(cc, format, value);
  } catch (err) {
    throw new LoadError(`Looks like ${FORMAT_NAMES[format]}, but it could not be read: ${describeError(err)}`);
  }
  if (converted.messages.length === 0) throw new LoadError('The conversation has no messages.');
  return { format, system: converted.system, messages: complete(cc, converted.messages) };
}

function convertFrom(cc, format, value) {
  switch (format) {
    case 'anthropic': return cc.fromAnthropic(value);
    case 'openai': return cc.fromOpenAI(value);
    case 'openai-responses': return cc.fromOpenAIResponses(value);
    case 'vercel-ai': return cc.fromVercelAI(value);
    case 'model': return { system: null, messages: value };
    default: throw new Error(`unknown format ${format}`);
  }
}

/** Validated messages with every field present (the manager fills in ids and timestamps). */
function complete(cc, messages) {
  const manager = new cc.ContextManager({ contextLimit: 1 });
  try {
    manager.pushMany(messages);
    return manager.messages();
  } finally {
    manager.free();
  }
}

export function describeError(err) {
  if (err && typeof err === 'object' && 'code' in err) {
    const where = err.path ? ` at ${err.path}` : '';
    return `${err.message} [${err.code}${where}]`;
  }
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------- export

/** The text of the system prompt(s) kept aside by any `from…`, or '' when there is none. */
export function systemText(system) {
  if (system === null || system === undefined) return '';
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system.map((part) => {
    if (typeof part?.text === 'string') return part.text;                    // Anthropic text block
    const content = part?.message?.content;                                   // SystemMessage
    if (typeof content === 'string') return content;
    if (Array.isArray(content)) return content.map((c) => (typeof c?.text === 'string' ? c.text : '')).join('');
    return '';
  }).filter((t) => t !== '').join('\n\n');
}

/** A system prompt in `format`'s own shape, from what `sourceFormat` kept aside. */
function systemFor(format, system, sourceFormat, messageCount) {
  if (format === sourceFormat && system !== null && system !== undefined) {
    if (!Array.isArray(system) || format === 'anthropic') return system;
    // Positions refer to the uncompacted conversation: keep them inside the compacted one.
    return system.map((s) => ({ ...s, position: Math.min(s.position, messageCount) }));
  }
  const text = systemText(system);
  if (text === '') return format === 'anthropic' ? null : [];
  if (format === 'anthropic') return text;
  return [{ position: 0, message: { role: 'system', content: text } }];
}

/** The JSON value of `messages` in `format`, with the conversation's system prompt. */
export function exportConversation(cc, format, messages, system, sourceFormat) {
  const sys = systemFor(format, system, sourceFormat, messages.length);
  switch (format) {
    case 'anthropic': {
      const out = cc.toAnthropic(messages);
      return sys === null ? { messages: out } : { system: sys, messages: out };
    }
    case 'openai': return cc.toOpenAI(messages, sys);
    case 'openai-responses': return cc.toOpenAIResponses(messages, sys);
    case 'vercel-ai': return cc.toVercelAI(messages, sys);
    case 'model': return messages;
    default: throw new Error(`unknown format ${format}`);
  }
}

export function exportFileName(name, format) {
  const base = (name || 'conversation').replace(/\.(anthropic|openai)$/, '').replace(/[^\w.-]+/g, '_').slice(0, 80);
  return `${base}.compacted.${format}.json`;
}
