// context-compactor/langchain: a LangChain.js v1 agent middleware (`createAgent({ middleware })`).
// Its `beforeModel` hook brings the thread's ContextManager up to date with the messages that
// are new since the last model call, runs `maybeCompact()`, and after a compaction updates
// the agent's state: the compacted tool messages replaced in place (same ids), or the whole
// list when an LLM summary replaced a prefix. LangChain messages are converted here (there
// is no `fromLangChain` in the package): HumanMessage → a user message, AIMessage → an
// assistant message (text and `tool_calls` as `tool_use` blocks), consecutive ToolMessages →
// one user message of `tool_result` blocks, SystemMessage → kept aside.
import { createMiddleware } from 'langchain';
import { AIMessage, HumanMessage, RemoveMessage, ToolMessage } from '@langchain/core/messages';
import { Conversation, sameValue } from './integration-core.mjs';

/** `REMOVE_ALL_MESSAGES` of @langchain/langgraph (a dependency of langchain, not a peer here). */
const REMOVE_ALL_MESSAGES = '__remove_all__';
const DEFAULT_MAX_CONVERSATIONS = 64;

const typeOf = (m) => m?.type ?? m?._getType?.();

/** LangChain message content → the package's blocks (`skip`: tool-call blocks already in `tool_calls`). */
function blocks(content, skip) {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const out = [];
  for (const part of content) {
    if (typeof part === 'string') { if (part !== '') out.push({ type: 'text', text: part }); continue; }
    if (part === null || typeof part !== 'object') continue;
    if ((part.type === 'tool_use' || part.type === 'tool_call') && skip?.has(part.id)) continue;
    if (part.type === 'text' && typeof part.text === 'string') out.push({ ...part });
    else out.push({ ...part, type: typeof part.type === 'string' ? part.type : 'unknown' });
  }
  return out;
}

/** A ToolMessage's content as a tool_result's: its text, or its blocks. */
function resultContent(content) {
  if (typeof content === 'string') return content;
  return blocks(content, null);
}

let generated = 0;
const idOf = (m) => (typeof m.id === 'string' && m.id !== '' ? m.id : `lc-${++generated}`);

/** LangChain messages → the package's messages, the system messages kept aside, and where each came from. */
function read(items) {
  const messages = [];
  const system = [];
  const origins = [];
  let open = null; // the user message the ToolMessages just before belong to
  items.forEach((m, i) => {
    const type = typeOf(m);
    if (type === 'tool') {
      const block = { type: 'tool_result', tool_use_id: String(m.tool_call_id), content: resultContent(m.content), is_error: m.status === 'error' };
      if (open) { open.content.push(block); origins.at(-1).push(i); return; }
      open = { role: 'user', id: idOf(m), content: [block] };
      messages.push(open);
      origins.push([i]);
      return;
    }
    open = null;
    if (type === 'system') { system.push({ position: messages.length, index: i }); return; }
    if (type === 'ai') {
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : [];
      const ids = new Set(calls.map((c) => c.id));
      const content = blocks(m.content, ids);
      for (const c of calls) content.push({ type: 'tool_use', id: String(c.id), name: String(c.name), input: c.args ?? {} });
      messages.push({ role: 'assistant', id: idOf(m), content });
    } else {
      messages.push({ role: 'user', id: idOf(m), content: blocks(m.content, null) });
    }
    origins.push([i]);
  });
  return { messages, system, origins };
}

/** The package's message → LangChain messages (for an LLM summary: the only messages with no LangChain original). */
function write(messages) {
  const out = [];
  for (const m of messages) {
    const text = m.content.filter((b) => b.type === 'text');
    const simple = text.length === m.content.length && text.length === 1 ? text[0].text : null;
    const content = simple ?? m.content.filter((b) => b.type !== 'tool_use' && b.type !== 'tool_result');
    if (m.role === 'assistant') {
      const tool_calls = m.content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, args: b.input, type: 'tool_call' }));
      out.push(new AIMessage({ id: m.id, content, tool_calls }));
      continue;
    }
    for (const b of m.content) {
      if (b.type === 'tool_result') out.push(new ToolMessage({ tool_call_id: b.tool_use_id, content: b.content, status: b.is_error ? 'error' : 'success' }));
    }
    if (simple !== null || content.length > 0) out.push(new HumanMessage({ id: m.id, content }));
  }
  return out;
}

const calls = (m) => (Array.isArray(m.tool_calls) ? m.tool_calls.map((c) => [c.id, c.name, c.args]) : []);

const ADAPTER = {
  structural: false,
  // A checkpointer hands the next invocation copies of the state's messages: recognised by
  // id, type and content, once per invocation.
  structuralFallback: true,
  same: (a, b) => a === b || (typeof a?.id === 'string' && a.id === b?.id && typeOf(a) === typeOf(b)
    && a.tool_call_id === b.tool_call_id && sameValue(a.content, b.content) && sameValue(calls(a), calls(b))),
  trackOriginal: false,
  read,
  write,
  toolResultIds: (m) => (typeOf(m) === 'tool' ? [String(m.tool_call_id)] : []),
  encode: (blocks) => blocks.map((b) => b.content),
  patch(m, patches) {
    return new ToolMessage({
      id: m.id,
      content: patches[0].value,
      tool_call_id: m.tool_call_id,
      name: m.name,
      status: m.status,
      artifact: m.artifact,
      additional_kwargs: m.additional_kwargs,
      response_metadata: m.response_metadata,
    });
  },
};

/** The input tokens the provider counted for the last model call: its reply is the first AIMessage in `fresh`. */
function usageOf(fresh) {
  const reply = fresh.find((m) => typeOf(m) === 'ai');
  return reply?.usage_metadata?.input_tokens;
}

/** The state update that turns `before` into `after`: the changed messages alone when only contents changed. */
function update(before, after) {
  const sameIds = before.length === after.length
    && after.every((m, i) => typeof m.id === 'string' && m.id === before[i].id);
  if (sameIds) return after.filter((m, i) => m !== before[i]);
  return [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...after];
}

/**
 * A LangChain v1 agent middleware that keeps each thread's messages within `contextLimit`.
 * One ContextManager per thread (`configurable.thread_id`; one for calls without), at most
 * `maxConversations` of them (the least recently used is freed).
 */
export function compactingMiddleware(options) {
  const { maxConversations = DEFAULT_MAX_CONVERSATIONS, ...rest } = options ?? {};
  if (!Number.isSafeInteger(maxConversations) || maxConversations < 1) {
    throw new TypeError('context-compactor: `maxConversations` must be a positive integer');
  }
  const first = new Conversation(rest, ADAPTER); // checks the options now
  const threads = new Map([['', first]]);
  const conversation = (thread) => {
    let c = threads.get(thread);
    if (c) {
      threads.delete(thread);
    } else {
      c = new Conversation(rest, ADAPTER);
      while (threads.size >= maxConversations) {
        const [oldest, old] = threads.entries().next().value;
        threads.delete(oldest);
        old.free();
      }
    }
    threads.set(thread, c); // the most recently used last
    return c;
  };
  const middleware = createMiddleware({
    name: 'ContextCompactor',
    beforeModel: async (state, runtime) => {
      const thread = runtime?.configurable?.thread_id;
      const before = state.messages;
      const { items, changed } = await conversation(typeof thread === 'string' ? thread : '').sync(before, usageOf);
      return changed ? { messages: update(before, items) } : undefined;
    },
  });
  Object.defineProperty(middleware, 'manager', {
    value: (thread = '') => threads.get(thread)?.manager, enumerable: false, configurable: true, writable: true,
  });
  Object.defineProperty(middleware, 'free', {
    value: () => { for (const c of threads.values()) c.free(); threads.clear(); },
    enumerable: false, configurable: true, writable: true,
  });
  return middleware;
}
