// What the framework integrations (ai-sdk.mjs, langchain.mjs, openai-agents.mjs) share; not
// exported. A `Conversation` holds one conversation's ContextManager and a "view": the
// conversation as the framework's items, compacted. Each `sync(items)` finds where `items`
// continue what it has seen, converts and pushes only the items after that point, runs
// `maybeCompact()`, and after a compaction rewrites only the items compaction changed.
//
// `#context-compactor` is the package's own main entry, through the `imports` field of
// package.json: `node.mjs` in Node, `web.mjs` elsewhere (browsers, bundlers), as for
// `import … from 'context-compactor'`, so that both load the same module and one `.wasm`.
import { ContextManager } from '#context-compactor';

/** When no `compactor` is given: old tool results become the redaction notice. The
 * ContextManager's own default, `"summarize"`, needs compact summaries, which no framework
 * provides, and would leave every tool result as it is until the escalation. */
export const DEFAULT_COMPACTOR = Object.freeze({ type: 'threshold', toolCompaction: 'redact' });

/**
 * The ContextManager options for an integration's options: `threshold` is put in the
 * compactor, `compactor` defaults to `DEFAULT_COMPACTOR`, options left undefined are left out,
 * and the rest (including any unknown option, which the manager names) is passed on.
 */
export function managerOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError('context-compactor: expected an options object with at least `contextLimit`');
  }
  const out = {};
  for (const [key, value] of Object.entries(options)) if (value !== undefined && key !== 'threshold') out[key] = value;
  out.compactor ??= DEFAULT_COMPACTOR;
  if (options.threshold !== undefined) {
    const own = out.compactor?.threshold;
    if (own !== undefined && own !== options.threshold) {
      throw new TypeError(`context-compactor: \`threshold\` (${options.threshold}) and \`compactor.threshold\` (${own}) disagree: give one`);
    }
    out.compactor = { ...out.compactor, threshold: options.threshold };
  }
  return out;
}

/** A tool result's content as a string to compare: the text itself, or canonical JSON. */
function contentKey(content) {
  return typeof content === 'string' ? content : canonicalJSON(content);
}
function canonicalJSON(value) {
  return JSON.stringify(value, (_, v) => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

/** Structural equality of two JSON-like values (typed arrays compared by bytes). */
export function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b) || a.byteLength !== b.byteLength) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
    return true;
  }
  if (a instanceof URL || b instanceof URL) return String(a) === String(b);
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.hasOwn(b, k) || !sameValue(a[k], b[k])) return false;
  return true;
}

const stripTurn = ({ turn_id: _, ...message }) => message;

/**
 * One conversation, in one framework's items. The adapter says how to read them:
 *
 * - `read(items)` → `{ messages, system, origins }`: the package's messages (`from…`), the
 *   system items kept aside (`{ position, index }`: how many messages came before it, its index
 *   in `items`), and for each message the indices of the items it came from (or `null` when
 *   they cannot be told).
 * - `toolResultIds(item)`: the call ids of the tool results `item` carries, in order.
 * - `encode(blocks)`: each `tool_result` block's content in the framework's shape, one call.
 * - `patch(item, patches)`: `item` with the results `[{ callId, value }]` replaced (a new object).
 * - `write(messages)`: items for messages it has no items for (an LLM summary).
 * - `structural`: items are rebuilt by the framework before each call (new objects), so a
 *   continuation is recognised by structure instead of identity; `structuralFallback`: by
 *   identity, else by structure (the framework copies the history between its calls);
 *   `same(a, b)`: what equal items are (default: equal JSON-like values).
 * - `trackOriginal`: the framework may pass the uncompacted history back (it does not keep
 *   what was returned, or the app re-sends its own copy): keep it, and recognise it too.
 */
export class Conversation {
  #options;
  #adapter;
  #ctx = null;
  /** The framework's items as compacted: what the model is sent. Our own array. */
  #view = [];
  /** The items as the framework had them, uncompacted (when `trackOriginal`). */
  #original = null;
  /** Whether `#view` differs from `#original`. */
  #diverged = false;
  /** The ids of the messages the manager holds, in order. */
  #ids = [];
  /** System items kept aside: `{ position, item }`. */
  #system = [];
  /** Tool results: call id → `[{ index (in #view), key (their content as pushed) }]`, in order. */
  #results = new Map();
  /** Message id → the indices in `#view` of the items it came from. */
  #origins = new Map();
  /** The syncs, one at a time (an LLM compaction awaits). */
  #queue = Promise.resolve();

  constructor(options, adapter) {
    this.#options = managerOptions(options);
    this.#adapter = adapter;
    this.#ctx = new ContextManager(this.#options); // invalid options throw here, at once
    if (adapter.trackOriginal) this.#original = [];
  }

  /** The ContextManager (a new one after `reset()` or `free()`). */
  get manager() {
    this.#ctx ??= new ContextManager(this.#options);
    return this.#ctx;
  }

  /** Forgets the conversation; the next `sync` starts a new one. */
  reset() {
    this.#ctx?.free();
    this.#ctx = null;
    this.#view = [];
    if (this.#original) this.#original = [];
    this.#diverged = false;
    this.#ids = [];
    this.#system = [];
    this.#results = new Map();
    this.#origins = new Map();
  }

  /** Releases the manager's memory (the conversation is forgotten). */
  free() {
    this.reset();
  }

  /**
   * Brings the manager up to date with `items` and compacts when needed. `usage` is the
   * provider's input-token count for the last request (a number, or a function of the new
   * items), used only when `items` continue the conversation. Resolves to
   * `{ items, changed }`: `items` the compacted view (a new array), `changed` whether it
   * differs from the `items` given (the caller then hands it to the framework).
   */
  sync(items, usage) {
    const run = this.#queue.then(() => this.#sync(items, usage));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #sync(items, usage) {
    if (!Array.isArray(items)) throw new TypeError('context-compactor: expected an array of messages');
    const a = this.#adapter;
    let start = this.#continues(items, this.#view, null);
    let fromOriginal = false;
    if (start < 0 && this.#original) {
      start = this.#continues(items, this.#original, null);
      fromOriginal = start >= 0;
    }
    if (start < 0 && (a.structural || a.structuralFallback)) {
      // Equal items, other objects: keep these (the old ones can go, and the next call may
      // bring these very objects).
      const same = a.same ?? sameValue;
      start = this.#continues(items, this.#view, same);
      if (start >= 0) {
        this.#view = items.slice(0, start);
        if (this.#original && !this.#diverged) this.#original = this.#view.slice();
      } else if (this.#original) {
        start = this.#continues(items, this.#original, same);
        fromOriginal = start >= 0;
        if (fromOriginal) {
          this.#original = items.slice(0, start);
          if (!this.#diverged) this.#view = this.#original.slice();
        }
      }
    }
    if (start < 0) {
      this.reset();
      start = 0;
    }
    const fresh = start === 0 ? items : items.slice(start);
    if (this.#ids.length > 0) {
      const used = typeof usage === 'function' ? usage(fresh) : usage;
      if (Number.isSafeInteger(used) && used >= 0) this.manager.setContextUsed(used);
    }
    if (fresh.length > 0) this.#push(fresh);
    const outcome = await this.manager.maybeCompact();
    const rebuilt = outcome !== null && this.#rebuild();
    const changed = rebuilt || (fromOriginal && this.#diverged);
    return { items: changed ? this.#view.slice() : items, changed };
  }

  /** The length of `known` when `items` start with it (by identity, or by `same`), else -1. */
  #continues(items, known, same) {
    if (items.length < known.length) return -1;
    if (same) {
      for (let i = 0; i < known.length; i++) if (!same(items[i], known[i])) return -1;
    } else {
      for (let i = 0; i < known.length; i++) if (items[i] !== known[i]) return -1;
    }
    return known.length;
  }

  /** Converts and pushes `fresh`; records where its tool results and messages are in the view. */
  #push(fresh) {
    const a = this.#adapter;
    const { messages, system, origins } = a.read(fresh);
    this.manager.pushMany(messages.map(stripTurn));
    const base = this.#view.length;
    const count = this.#ids.length;
    for (const s of system) this.#system.push({ position: count + s.position, item: fresh[s.index] });
    const where = new Map(); // call id → view indices, in order
    for (let i = 0; i < fresh.length; i++) {
      for (const id of a.toolResultIds(fresh[i])) {
        const list = where.get(id);
        if (list) list.push(base + i); else where.set(id, [base + i]);
      }
    }
    messages.forEach((m, k) => {
      if (origins?.[k]) this.#origins.set(m.id, origins[k].map((i) => base + i));
      for (const b of m.content) {
        if (b.type !== 'tool_result') continue;
        const index = where.get(b.tool_use_id)?.shift();
        if (index !== undefined) this.#record(b.tool_use_id, { index, key: contentKey(b.content) });
      }
    });
    for (const m of messages) this.#ids.push(m.id);
    for (const item of fresh) this.#view.push(item);
    if (this.#original) for (const item of fresh) this.#original.push(item);
  }

  #record(id, entry) {
    const list = this.#results.get(id);
    if (list) list.push(entry); else this.#results.set(id, [entry]);
  }

  /**
   * After a compaction: the items whose tool results changed are patched (one `encode` call
   * for all of them). When the manager holds the same messages as before, that is all;
   * otherwise (an LLM summary replaced a prefix) the view is reassembled: the items of every
   * message still there, in the manager's order, and new items for the others. Returns
   * whether the view changed.
   */
  #rebuild() {
    const a = this.#adapter;
    const after = this.manager.messages();
    const seen = new Map();
    const changed = [];
    for (const m of after) {
      for (const b of m.content) {
        if (b.type !== 'tool_result') continue;
        const k = seen.get(b.tool_use_id) ?? 0;
        seen.set(b.tool_use_id, k + 1);
        const entry = this.#results.get(b.tool_use_id)?.[k];
        if (entry && entry.key !== contentKey(b.content)) changed.push({ entry, block: b });
      }
    }
    if (changed.length > 0) {
      const values = a.encode(changed.map((c) => c.block));
      const byIndex = new Map();
      changed.forEach(({ entry, block }, i) => {
        entry.key = contentKey(block.content);
        const list = byIndex.get(entry.index);
        const patch = { callId: block.tool_use_id, value: values[i] };
        if (list) list.push(patch); else byIndex.set(entry.index, [patch]);
      });
      for (const [index, patches] of byIndex) this.#view[index] = a.patch(this.#view[index], patches);
    }
    const ids = this.#ids;
    if (after.length === ids.length && after.every((m, i) => m.id === ids[i])) {
      if (changed.length > 0) this.#diverged = true;
      return changed.length > 0;
    }
    this.#reassemble(after);
    this.#diverged = true;
    return true;
  }

  /** The view for `after`, whose messages are no longer those the view has (see #rebuild). */
  #reassemble(after) {
    const a = this.#adapter;
    const removed = Math.max(0, this.#ids.length - after.length);
    // A system item keeps its place among the messages after it; one among the summarized
    // messages goes first.
    const system = this.#system.map((s) => ({ position: Math.max(0, s.position - removed), item: s.item }))
      .sort((x, y) => x.position - y.position);
    const view = [];
    const origins = new Map();
    let s = 0;
    let pending = []; // consecutive messages without items of their own, written together
    const flush = () => {
      if (pending.length === 0) return;
      const start = view.length;
      const written = a.write(pending);
      for (const item of written) view.push(item);
      if (pending.length === 1) origins.set(pending[0].id, written.map((_, i) => start + i));
      pending = [];
    };
    after.forEach((m, position) => {
      if (s < system.length && system[s].position <= position) {
        flush();
        while (s < system.length && system[s].position <= position) view.push(system[s++].item);
      }
      const own = this.#origins.get(m.id);
      if (!own) { pending.push(m); return; }
      flush();
      const start = view.length;
      for (const i of own) view.push(this.#view[i]);
      origins.set(m.id, own.map((_, i) => start + i));
    });
    flush();
    while (s < system.length) view.push(system[s++].item);
    // Where everything is now.
    const where = new Map();
    view.forEach((item, i) => {
      for (const id of a.toolResultIds(item)) {
        const list = where.get(id);
        if (list) list.push(i); else where.set(id, [i]);
      }
    });
    this.#results = new Map();
    for (const m of after) {
      for (const b of m.content) {
        if (b.type !== 'tool_result') continue;
        const index = where.get(b.tool_use_id)?.shift();
        if (index !== undefined) this.#record(b.tool_use_id, { index, key: contentKey(b.content) });
      }
    }
    this.#system = system;
    this.#origins = origins;
    this.#view = view;
    this.#ids = after.map((m) => m.id);
  }
}

/** A getter for `manager` and a `free()` on `target` (a function or a middleware object). */
export function attachConversation(target, conversation) {
  Object.defineProperty(target, 'manager', { get: () => conversation.manager, enumerable: false, configurable: true });
  Object.defineProperty(target, 'free', { value: () => conversation.free(), enumerable: false, configurable: true, writable: true });
  return target;
}
