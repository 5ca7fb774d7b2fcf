// context-compactor/openai-agents: the OpenAI Agents SDK (`@openai/agents`).
//
// - CompactingSession: a `Session` (optionally around another one, which keeps the full
//   history) whose `getItems()` returns the history compacted, before each `run()`.
// - compactingModelInputFilter(options) (and `session.callModelInputFilter`): a
//   `callModelInputFilter` that compacts the input of every model call of a run, which the
//   session alone cannot do (the runner reads the session once per run).
//
// The SDK's items (`AgentInputItem`: camelCase `callId`, `function_call_result`, outputs as
// `{ type: 'text', text }`, …) are not the Responses API's wire items that
// `fromOpenAIResponses` reads: each item is translated to its wire form for the manager
// (`call_id`, `function_call_output`, …), and the items sent back are the SDK's own,
// compacted tool results patched in place.
import { fromOpenAIResponses, toOpenAIResponses } from '#context-compactor';
import { Conversation } from './integration-core.mjs';

const SYSTEM_ROLES = new Set(['system', 'developer']);
const isMessage = (item) => item !== null && typeof item === 'object' && (item.type === undefined || item.type === 'message') && typeof item.role === 'string';
const isSystem = (item) => isMessage(item) && SYSTEM_ROLES.has(item.role);

/** A tool output of the SDK as the Responses API writes it. */
function wireOutput(output) {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output;
  if (output?.type === 'text' && typeof output.text === 'string') return output.text;
  return output === undefined ? '' : [output];
}

/** An SDK item → a Responses API input item (only what the manager reads is translated). */
function toWire(item) {
  if (item === null || typeof item !== 'object') return item;
  if (item.type === 'function_call') {
    const { callId, ...rest } = item;
    return { ...rest, call_id: callId };
  }
  if (item.type === 'function_call_result') {
    const { callId, output, type: _, ...rest } = item;
    return { ...rest, type: 'function_call_output', call_id: callId, output: wireOutput(output) };
  }
  return item;
}

/** A Responses API item written by the package → an SDK item (for an LLM summary). */
function fromWire(item) {
  if (item.type === 'function_call') {
    const { call_id, ...rest } = item;
    return { ...rest, callId: call_id };
  }
  if (item.type === 'function_call_output') {
    const { call_id, output, type: _, ...rest } = item;
    return { name: '', status: 'completed', ...rest, type: 'function_call_result', callId: call_id, output: sdkOutput(output, undefined) };
  }
  if (isMessage(item)) {
    const message = { type: 'message', ...item };
    if (item.role === 'assistant' && message.status === undefined) message.status = 'completed';
    return message;
  }
  return item;
}

/** A tool output the Responses API way → the SDK's, in the shape of the output it replaces. */
function sdkOutput(wire, previous) {
  if (typeof wire === 'string') {
    if (previous !== null && typeof previous === 'object' && !Array.isArray(previous) && previous.type === 'text') return { ...previous, text: wire };
    if (Array.isArray(previous)) return [{ type: 'input_text', text: wire }];
    return typeof previous === 'string' ? wire : { type: 'text', text: wire };
  }
  if (Array.isArray(wire)) return wire.map((p) => (p?.type === 'text' ? { ...p, type: 'input_text' } : p));
  return wire;
}

/** How many blocks `fromOpenAIResponses` makes of a wire item (src/formats/openai_responses.rs). */
function blockCount(item) {
  if (isMessage(item)) {
    if (typeof item.content === 'string') return item.content === '' ? 0 : 1;
    return Array.isArray(item.content) ? item.content.length : 0;
  }
  return 1;
}
const userSide = (item) => (isMessage(item) ? item.role === 'user'
  : item?.type === 'function_call_output' || (typeof item?.type === 'string' && item.type.endsWith('_output')));

/** For each message, the indices of the items it came from; null when they do not add up. */
function originsOf(wire, messages) {
  const origins = [];
  let j = 0;
  const skipSystem = () => { while (j < wire.length && isSystem(wire[j])) j++; };
  for (const m of messages) {
    skipSystem();
    const need = m.content.length;
    const own = [];
    let have = 0;
    do {
      if (j >= wire.length || isSystem(wire[j]) || userSide(wire[j]) !== (m.role === 'user')) return null;
      have += blockCount(wire[j]);
      own.push(j++);
    } while (have < need);
    if (have !== need) return null;
    origins.push(own);
  }
  skipSystem();
  return j === wire.length ? origins : null;
}

const ADAPTER = {
  structural: false,
  trackOriginal: true,
  read(items) {
    const wire = items.map(toWire);
    const { messages, system } = fromOpenAIResponses(wire);
    const systemAt = [];
    items.forEach((item, i) => { if (isSystem(item)) systemAt.push(i); });
    return {
      messages,
      system: system.map((s, k) => ({ position: s.position, index: systemAt[k] })),
      origins: originsOf(wire, messages),
    };
  },
  toolResultIds: (item) => (item?.type === 'function_call_result' ? [item.callId] : []),
  encode(blocks) {
    // A text result is its output string (as toOpenAIResponses writes it); other content goes
    // through it, in one call.
    const out = blocks.map((b) => (typeof b.content === 'string' ? b.content : null));
    const rest = blocks.filter((b) => typeof b.content !== 'string');
    if (rest.length > 0) {
      const written = toOpenAIResponses([{ role: 'user', content: rest }]);
      let k = 0;
      out.forEach((value, i) => { if (value === null) out[i] = written[k++].output; });
    }
    return out;
  },
  patch: (item, patches) => ({ ...item, output: sdkOutput(patches[0].value, item.output) }),
  write: (messages) => toOpenAIResponses(messages).map(fromWire),
};

/**
 * A `callModelInputFilter` for `run(agent, input, { callModelInputFilter })`: compacts the
 * input of each model call of a run, converting only the items new since the last call.
 * It keeps the items it is given as they are (`preserveInputIdentity`).
 */
export function compactingModelInputFilter(options) {
  const conversation = new Conversation(options, ADAPTER);
  const filter = async ({ modelData }) => {
    const { items, changed } = await conversation.sync(modelData.input);
    return changed ? { ...modelData, input: items } : modelData;
  };
  filter.preserveInputIdentity = true;
  Object.defineProperty(filter, 'manager', { get: () => conversation.manager, enumerable: false, configurable: true });
  Object.defineProperty(filter, 'free', { value: () => conversation.free(), enumerable: false, configurable: true, writable: true });
  return filter;
}

const newId = () => globalThis.crypto.randomUUID();

/**
 * A session whose history is compacted before each run: `getItems()` returns it compacted
 * (converting only the items added since the last call), `addItems` stores items as given.
 * With `session`, that session keeps the full history and this one is a cache in front of
 * it (read once, then kept up to date by `addItems`, `popItem` and `clearSession`).
 */
export class CompactingSession {
  #inner;
  #sessionId;
  #items = null; // the full history, as stored
  #conversation;
  #options;
  #filter = null;

  constructor(options) {
    const { session, sessionId, ...rest } = options ?? {};
    this.#inner = session ?? null;
    this.#sessionId = sessionId;
    this.#options = rest;
    this.#conversation = new Conversation(rest, ADAPTER);
  }

  /** The ContextManager holding the compacted history. */
  get manager() {
    return this.#conversation.manager;
  }

  /** A `callModelInputFilter` with the same options, to compact within a run too (one per session). */
  get callModelInputFilter() {
    this.#filter ??= compactingModelInputFilter(this.#options);
    return this.#filter;
  }

  async #load() {
    this.#items ??= this.#inner ? [...await this.#inner.getItems()] : [];
    return this.#items;
  }

  async getSessionId() {
    if (this.#inner) return this.#inner.getSessionId();
    this.#sessionId ??= newId();
    return this.#sessionId;
  }

  /** The history, compacted; with `limit`, its newest `limit` items (no tool result without its call). */
  async getItems(limit) {
    const { items } = await this.#conversation.sync(await this.#load());
    let out = items;
    if (limit !== undefined) {
      if (!(limit > 0)) return [];
      out = items.slice(-limit);
      const calls = new Set(out.filter((i) => i?.type === 'function_call').map((i) => i.callId));
      let k = 0;
      while (k < out.length && out[k]?.type === 'function_call_result' && !calls.has(out[k].callId)) k++;
      out = out.slice(k);
    }
    return out.map((item) => structuredClone(item));
  }

  async addItems(items) {
    if (items.length === 0) return;
    const stored = await this.#load();
    await this.#inner?.addItems(items);
    for (const item of items) stored.push(structuredClone(item));
  }

  async popItem() {
    const stored = await this.#load();
    const popped = this.#inner ? await this.#inner.popItem() : stored.at(-1);
    if (stored.length > 0) stored.pop();
    this.#conversation.reset(); // it cannot take a message back: read again at the next getItems
    return popped === undefined ? undefined : structuredClone(popped);
  }

  async clearSession() {
    await this.#inner?.clearSession();
    this.#items = [];
    this.#conversation.reset();
  }

  /** Releases the managers' memory. */
  free() {
    this.#conversation.free();
    this.#filter?.free();
  }
}
