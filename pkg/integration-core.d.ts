// Types shared by the framework integrations (context-compactor/ai-sdk, /langchain,
// /openai-agents). This module is not exported; its types are re-exported by each.
import type { CompactionEvent, CompactorOptions, Message } from './index.js';

/** How an integration compacts: the ContextManager's options, with `threshold` as a shorthand. */
export interface CompactionOptions {
  /** The model's context window, in tokens. */
  contextLimit: number;
  /**
   * Utilization ratio (strictly between 0 and 1) above which to compact: a shorthand for
   * `compactor.threshold`; giving both with different values is a `TypeError`. Default 0.75.
   */
  threshold?: number;
  /**
   * Tokens kept free for the reply (and, when the provider's count is not known, the system
   * prompt and the tool definitions): see `ContextManagerOptions.reserveTokens`. Default 0.
   */
  reserveTokens?: number;
  /** What the escalation's last rung cuts a tool result of the newest turn down to. */
  maxToolResultTokens?: number;
  /**
   * The strategy, as `ContextManager` takes it. Default `{ type: 'threshold', toolCompaction:
   * 'redact' }` (the ContextManager's own default, `'summarize'`, needs compact summaries that
   * no framework provides).
   */
  compactor?: CompactorOptions;
  /** Called for every compaction event; exceptions it throws are ignored. */
  onEvent?: (event: CompactionEvent) => void;
  /** An exact token counter, used when the provider's count is not known. */
  countTokens?: (messages: Message[]) => number;
}
