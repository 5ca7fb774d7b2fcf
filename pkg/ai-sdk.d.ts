// context-compactor/ai-sdk: the Vercel AI SDK (`ai` ≥ 7, an optional peer dependency).
import type { LanguageModelMiddleware, LanguageModelUsage, ModelMessage } from 'ai';
import type { ContextManager } from './index.js';
import type { CompactionOptions } from './integration-core.js';

export type { CompactionOptions } from './integration-core.js';

/** What the compacting `prepareStep` reads of its argument (the AI SDK passes more). */
export interface CompactingPrepareStepOptions {
  /** The steps so far: the last one's `usage.inputTokens` is the provider's count for the conversation before its reply. */
  steps: ReadonlyArray<{ usage: Pick<LanguageModelUsage, 'inputTokens'> }>;
  /** The messages of the step about to run. */
  messages: ModelMessage[];
}

/**
 * A `prepareStep` for `generateText`, `streamText` and `ToolLoopAgent`. Resolves to
 * `{ messages }` (the loop's messages with old tool results compacted, which the loop keeps
 * for the following steps) when it compacted, or when the messages it was given are the
 * uncompacted history it has seen before; otherwise to `undefined` (nothing changes).
 */
export interface CompactingPrepareStep {
  (options: CompactingPrepareStepOptions): Promise<{ messages: ModelMessage[] } | undefined>;
  /** The conversation's ContextManager (a new one after `free()`). */
  readonly manager: ContextManager;
  /** Releases the manager's memory; the next step starts the conversation again. */
  free(): void;
}

/**
 * One conversation's `prepareStep`: create one per conversation (or chat). Calls of
 * `generateText` that continue the same conversation (its messages, or the compacted ones it
 * returned, then new ones) go on with the same manager; other messages start it again.
 * @throws {CompactionError} INVALID_INPUT for options the ContextManager refuses
 * @throws {TypeError} when `threshold` and `compactor.threshold` disagree
 */
export function compactingPrepareStep(options: CompactionOptions): CompactingPrepareStep;

/** A language-model middleware that compacts every call's prompt (LanguageModelV4). */
export type CompactingMiddleware = LanguageModelMiddleware & {
  /** The conversation's ContextManager (a new one after `free()`). */
  readonly manager: ContextManager;
  /** Releases the manager's memory; the next call starts the conversation again. */
  free(): void;
};

/**
 * A middleware for `wrapLanguageModel({ model, middleware })`: `transformParams` compacts
 * `params.prompt`, comparing it with the last call's to convert only the messages after it;
 * `wrapGenerate` and `wrapStream` read each call's input-token usage. One conversation per
 * middleware, as for `compactingPrepareStep`.
 * @throws {CompactionError} INVALID_INPUT for options the ContextManager refuses
 */
export function compactingMiddleware(options: CompactionOptions): CompactingMiddleware;
