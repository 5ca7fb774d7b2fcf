// context-compactor/openai-agents: the OpenAI Agents SDK (`@openai/agents` 0.20, an optional
// peer dependency).
import type { AgentInputItem, CallModelInputFilter, Session } from '@openai/agents';
import type { ContextManager } from './index.js';
import type { CompactionOptions } from './integration-core.js';

export type { CompactionOptions } from './integration-core.js';

export interface CompactingSessionOptions extends CompactionOptions {
  /**
   * A session that keeps the full history (`MemorySession`, a database-backed one, …): read
   * once, then kept up to date. Without it the items are kept in memory.
   */
  session?: Session;
  /** Without `session`: the id `getSessionId()` returns. Default a random UUID. */
  sessionId?: string;
}

/** A `callModelInputFilter` that compacts, with access to its manager. */
export type CompactingModelInputFilter = CallModelInputFilter & {
  readonly preserveInputIdentity: true;
  /** The ContextManager (a new one after `free()`). */
  readonly manager: ContextManager;
  /** Releases the manager's memory; the next call starts again. */
  free(): void;
};

/**
 * A `callModelInputFilter` for `run(agent, input, { callModelInputFilter })` that compacts the
 * input of every model call of a run, converting only the items new since the last call.
 * @throws {CompactionError} INVALID_INPUT for options the ContextManager refuses
 */
export function compactingModelInputFilter(options: CompactionOptions): CompactingModelInputFilter;

/**
 * A `Session` whose `getItems()` returns the history compacted, before each run; `addItems`,
 * `popItem` and `clearSession` keep the full history (in `options.session` when given).
 * The runner reads a session once per run: pass `callModelInputFilter` too
 * (`run(agent, input, { session, callModelInputFilter: session.callModelInputFilter })`) to
 * compact between the model calls of a run as well.
 */
export class CompactingSession implements Session {
  /** @throws {CompactionError} INVALID_INPUT for options the ContextManager refuses */
  constructor(options: CompactingSessionOptions);
  /** The ContextManager holding the compacted history. */
  readonly manager: ContextManager;
  /** A `callModelInputFilter` with this session's options (the same one each time). */
  readonly callModelInputFilter: CompactingModelInputFilter;
  getSessionId(): Promise<string>;
  /** The history, compacted; with `limit`, its newest `limit` items, without a leading tool result whose call was cut off. */
  getItems(limit?: number): Promise<AgentInputItem[]>;
  addItems(items: AgentInputItem[]): Promise<void>;
  popItem(): Promise<AgentInputItem | undefined>;
  clearSession(): Promise<void>;
  /** Releases the managers' memory. */
  free(): void;
}
