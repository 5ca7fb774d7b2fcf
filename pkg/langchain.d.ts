// context-compactor/langchain: LangChain.js v1 agents (`langchain` ≥ 1 and `@langchain/core`
// ≥ 1, optional peer dependencies).
import type { AgentMiddleware } from 'langchain';
import type { ContextManager } from './index.js';
import type { CompactionOptions } from './integration-core.js';

export type { CompactionOptions } from './integration-core.js';

export interface LangChainCompactionOptions extends CompactionOptions {
  /**
   * How many threads (`configurable.thread_id`) keep a ContextManager; past that the least
   * recently used one is freed (its thread is read again in full if it comes back). Default 64.
   */
  maxConversations?: number;
}

/** The agent middleware, with access to its managers. */
export type CompactingMiddleware = AgentMiddleware & {
  /** The ContextManager of a thread (`''`, the default: calls without a `thread_id`), if it has one. */
  manager(threadId?: string): ContextManager | undefined;
  /** Releases every manager's memory; threads are read again in full at their next call. */
  free(): void;
};

/**
 * An agent middleware for `createAgent({ model, tools, middleware: [compactingMiddleware(…)] })`.
 * Its `beforeModel` hook pushes the messages new since the last model call (the last
 * AIMessage's `usage_metadata.input_tokens` is the provider's count of the rest), compacts
 * when needed, and then updates the state: the compacted ToolMessages replaced by id, or the
 * whole list (`RemoveMessage(REMOVE_ALL_MESSAGES)` first) when an LLM summary replaced a prefix.
 * @throws {CompactionError} INVALID_INPUT for options the ContextManager refuses
 */
export function compactingMiddleware(options: LangChainCompactionOptions): CompactingMiddleware;
