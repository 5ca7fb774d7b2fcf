// Types of the public API of context-compactor (hand-written: the generated
// context_compactor.d.ts only knows `any` for values that cross as JSON).

/** Identifies a turn; consecutive messages with the same id form one turn. */
export interface TurnId {
  owner: string;
  number: number;
}

/** `{ type: "text", text }` */
export interface TextBlock {
  type: 'text';
  text: string;
  [field: string]: unknown;
}

/** A tool call made by the assistant. */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  [field: string]: unknown;
}

/** The result of a tool call, answering the `tool_use` with the same id. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  /** A string, or an array of content blocks (text, image, …). */
  content: string | Array<{ type: string; [field: string]: unknown }>;
  /** Defaults to `false` when missing on input; always present on output. */
  is_error?: boolean;
  /** A pre-computed short summary, used by threshold compaction in "summarize" mode. */
  compact_summary?: string | null;
  [field: string]: unknown;
}

/** Any other block (image, thinking, …): kept verbatim. */
export interface OtherBlock {
  type: string;
  [field: string]: unknown;
}

export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock | OtherBlock;

/** What a summary message replaced; set only on messages written by LLM compaction. */
export interface SummaryOf {
  messages: number;
  turns: number;
}

/** A message as returned by the library: every field present. */
export interface Message {
  role: 'user' | 'assistant';
  id: string;
  session_id: number;
  turn_id: TurnId;
  /** RFC 3339. */
  created_at: string;
  content: ContentBlock[];
  summary_of?: SummaryOf;
  /** Unknown fields survive every operation unchanged. */
  [field: string]: unknown;
}

/**
 * A message as accepted: `id` (UUID v4), `session_id` (0) and `created_at` (now) are filled in
 * when missing, and a missing `turn_id` is given by the step rule: each assistant message starts
 * a turn, the messages answering its tool calls join it, any other user message starts one.
 */
export interface MessageInput {
  role: 'user' | 'assistant';
  id?: string;
  session_id?: number;
  turn_id?: TurnId;
  created_at?: string;
  content: ContentBlock[];
  summary_of?: SummaryOf | null;
  [field: string]: unknown;
}

/** Pre-computed tool-result summaries, by `tool_use_id`. */
export type CompactSummaries = Record<string, string> | Map<string, string>;

/** The specification's counts of what a compaction changed. */
export interface CompactionResult {
  toolResultsSummarized: number;
  toolResultsRedacted: number;
  turnsCompacted: number;
}

export interface Compacted<M = Message> {
  /** A new array; the input is never modified. */
  messages: M[];
  result: CompactionResult;
}

export type ErrorCode = 'LLM_ERROR' | 'TIMEOUT' | 'EMPTY_SUMMARY' | 'SUMMARY_TOO_LARGE' | 'INVALID_INPUT';

/** Every failure is reported with this class. */
export class CompactionError extends Error {
  name: 'CompactionError';
  /** Stable, machine-readable code. */
  code: ErrorCode;
  /** For INVALID_INPUT: the offending field, e.g. `messages[3].content[0].tool_use_id`. */
  path?: string;
  /** For LLM_ERROR from an HTTP summarizer: the response status. */
  status?: number;
  /**
   * For LLM_ERROR: what the summarizer threw, rejected with or resolved to. For
   * INVALID_INPUT: what a getter, Proxy trap or `toJSON` of the input threw.
   */
  cause?: unknown;
}

/** A message with its turn id, as `ThresholdCompactor` reads it in place. */
export type TurnMessageInput = MessageInput & { turn_id: TurnId };

export interface ThresholdOptions {
  /** Utilization ratio, strictly between 0 and 1, above which to compact. Default 0.75. */
  threshold?: number;
  /** Most recent turns never touched. Default 3. */
  keepRecentTurns?: number;
  /** When set, replaces `keepRecentTurns`: the newest whole turns whose estimate fits in this many tokens are never touched (at least one turn). */
  keepRecentTokens?: number;
  /** "summarize": use compact summaries (results without one are kept); "redact": replace with a notice. Default "summarize". */
  toolCompaction?: 'summarize' | 'redact';
}

/** What `summarize` receives. */
export interface SummarizeRequest {
  system: string;
  prompt: string;
  maxTokens: number | undefined;
  /** Aborted when the timeout fires: pass it to `fetch`. */
  signal: AbortSignal;
}

/** The LLM call: resolve to the summary text. */
export type Summarize = (request: SummarizeRequest) => Promise<string> | string;

export interface LlmOptions {
  summarize: Summarize;
  /** Default 0.75. */
  threshold?: number;
  /** Default 3. */
  keepRecentTurns?: number;
  /** When set, replaces `keepRecentTurns`: the newest whole turns whose estimate fits in this many tokens are kept (at least one turn). */
  keepRecentTokens?: number;
  /**
   * User messages with text in the summarized turns stay verbatim after the summary: the newest
   * ones whose estimate fits in this many tokens, oldest first. Default 20000; 0 gives the
   * specification's shape (the summary, then the recent turns). In a `ContextManager` it is also
   * held to what fits below the threshold beside the kept turns and `maxSummaryTokens`.
   */
  keepUserMessagesTokens?: number;
  /** Default `DEFAULT_SUMMARY_PROMPT`. */
  summarySystemPrompt?: string;
  /** Default 2048. */
  maxSummaryTokens?: number;
  /** Default 60000; at most 2^31 − 1. */
  summaryTimeoutMs?: number;
}

export class ThresholdCompactor {
  constructor(options?: ThresholdOptions);
  shouldCompact(contextUsed: number, contextLimit: number): boolean;
  /**
   * Compacts without modifying anything of yours, the usual immutable update: a new
   * array in which each message that compaction changes is a shallow copy
   * `{ ...message, content: [...] }` whose changed tool results are
   * `{ ...block, content: text }`; every other message and block is your own object
   * (`===`). Reads and checks only what compaction needs, as `compactInPlace` does
   * (turn ids of every message; roles and blocks of the old turns' messages), with
   * the same errors; nothing is filled in (a `ContextManager` reads and fills
   * messages in full). About as fast as your own loop over the array.
   * @throws {CompactionError} INVALID_INPUT
   */
  compact<M extends TurnMessageInput>(messages: M[], compactSummaries?: CompactSummaries): Compacted<M>;
  /**
   * Compacts `messages` in place, as an app's own loop would: the old tool results'
   * `content` is replaced; nothing is copied or filled in. The same
   * decisions, checks and errors as `compact`; on invalid input the array is
   * unchanged, and so is it when a block refuses the write (frozen, or a setter
   * that throws): the error's `path` names that block's `content`.
   * @throws {CompactionError} INVALID_INPUT
   */
  compactInPlace(messages: TurnMessageInput[], compactSummaries?: CompactSummaries): CompactionResult;
  free(): void;
}

export class LlmCompactor {
  constructor(options: LlmOptions);
  shouldCompact(contextUsed: number, contextLimit: number): boolean;
  /** Rejects with a CompactionError; the input is never modified. */
  compact(messages: MessageInput[], compactSummaries?: CompactSummaries): Promise<Compacted>;
  free(): void;
}

export type CompactorOptions =
  | ({ type: 'threshold' } & ThresholdOptions)
  | ({ type: 'llm'; /** Threshold compaction to run when the LLM fails. */ fallback?: ThresholdOptions } & LlmOptions);

/** What one compaction did. */
export interface CompactionOutcome {
  /** The strategy that changed the conversation (the fallback's when it ran). */
  strategy: 'threshold' | 'llm';
  result: CompactionResult;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  durationMs: number;
  /** LLM: the summary's length in characters. */
  summaryLength?: number;
  /** Whether the threshold fallback ran because the LLM failed. */
  fallback: boolean;
  /** Whether the context is now at or below the threshold. */
  belowThreshold: boolean;
  /** Whether the context now fits in its room, `contextLimit - reserveTokens`. */
  fits: boolean;
  /** What was done beyond the configured strategy to make the context fit, in order. */
  escalation: EscalationStep[];
  /** LLM: how many user messages were kept verbatim after the summary. */
  keptUserMessages: number;
  /** Why the LLM compaction failed. */
  error?: CompactionError;
}

/**
 * One rung of the escalation a `ContextManager` runs when the context does not fit after the
 * configured compaction, each tried only while it still does not fit.
 */
export type EscalationStep =
  /** The old tool results the strategy left became their compact summary (`summarized`), or the redaction notice when they have none (`redacted`). */
  | { step: 'compact'; summarized: number; redacted: number }
  /** The kept window shrank to `keptTurns` turns, the tool results of the turns that left it compacted the same way (none when an LLM summary covers them). */
  | { step: 'shrink'; keptTurns: number; summarized: number; redacted: number }
  /** The largest tool results of the kept turns were cut to `maxTokens`, head and tail kept. */
  | { step: 'truncate'; toolResults: number; maxTokens: number };

export type CompactionEvent =
  | { type: 'compaction_started'; tokensBefore: number; promptLength: number }
  | (CompactionOutcome & { type: 'compaction'; message: string })
  | (CompactionOutcome & { type: 'compaction_failed'; message: string; error: CompactionError })
  /** After a compaction, the context still does not fit: raised once per growth of the conversation. */
  | { type: 'over_limit'; tokens: number; room: number; contextLimit: number; reserveTokens: number; message: string }
  /** Threshold compaction found no tool result in the old turns (tool output arriving as user text): raised once. */
  | { type: 'nothing_to_compact'; message: string }
  /**
   * `requestBody` left a block out of a message it wrote: `format` has no equivalent for it.
   * The fields of a `to…` function's {@link BlockDroppedEvent}, with the block's type as `blockType`.
   */
  | {
      type: 'block_dropped';
      messageIndex: number;
      blockIndex: number;
      partIndex?: number;
      blockType: string;
      format: 'anthropic' | 'openai' | 'openai-responses';
      reason: string;
    };

export interface ContextManagerOptions {
  /** The model's context window, in tokens. */
  contextLimit: number;
  /**
   * Tokens kept free for the reply (and anything sent besides the messages, such as a system
   * prompt or tool definitions): after `maybeCompact` the context is at most
   * `contextLimit - reserveTokens` whenever the escalation can make it so. Default 0.
   */
  reserveTokens?: number;
  /** What the last rung of the escalation cuts a tool result of the newest turn down to. Default: a quarter of `contextLimit - reserveTokens`. */
  maxToolResultTokens?: number;
  /** Default `{ type: "threshold" }`. */
  compactor?: CompactorOptions;
  /** Called for every compaction, and for each block `requestBody` leaves out; exceptions it throws are ignored. */
  onEvent?: (event: CompactionEvent) => void;
  /**
   * An exact token counter (e.g. a BPE tokenizer), used instead of the estimate
   * whenever no provider figure (`setContextUsed`) is fresh; called again only
   * after the conversation changed. If it throws, the estimate is used.
   */
  countTokens?: (messages: Message[]) => number;
}

/** The JSON written by `toJSON()`. */
export interface ContextManagerState {
  version: 1;
  messages: Message[];
  compactSummaries: Record<string, string>;
  contextUsed: { inputTokens: number; estimatedThen: number } | null;
}

export class ContextManager {
  constructor(options: ContextManagerOptions);
  static fromJSON(state: ContextManagerState, options: ContextManagerOptions): ContextManager;
  push(message: MessageInput): void;
  /** All or nothing. */
  pushMany(messages: MessageInput[]): void;
  /** A copy of the conversation. */
  messages(): Message[];
  /** The provider's input-token count for the last request. */
  setContextUsed(inputTokens: number): void;
  storeCompactSummaries(summaries: CompactSummaries): void;
  /** Provider's last figure plus an estimate of what was pushed since, or an estimate of everything. */
  readonly contextUsed: number;
  readonly contextLimit: number;
  readonly estimatedTokens: number;
  /** Whether the context fits in `contextLimit - reserveTokens` now. */
  readonly fits: boolean;
  readonly isCompacting: boolean;
  shouldCompact(): boolean;
  /**
   * Compacts when the context is above the threshold or over its room; then, if it still does not
   * fit, escalates (see `EscalationStep`). A compaction that changed nothing, failed, or left the
   * context above the threshold is not retried before the conversation grows.
   * Never rejects: null when nothing was done; failures are reported in the outcome.
   * A threshold compaction (and `onEvent`'s event) is done before this returns;
   * an LLM compaction is awaited, and calls made meanwhile share it.
   */
  maybeCompact(): Promise<CompactionOutcome | null>;
  /**
   * Ignores the threshold; rejects with a CompactionError when the LLM failed.
   * Starts as `maybeCompact` does.
   */
  forceCompact(): Promise<CompactionResult>;
  toJSON(): ContextManagerState;
  /**
   * The provider request body as UTF-8 JSON bytes, ready for `fetch`: the other
   * fields of `options` (`model`, `max_tokens`, Anthropic's `system`, …) and the
   * conversation in `format`'s wire format, under `messages` (`input` for the
   * Responses API). It parses to `{ ...fields, messages: toAnthropic(ctx.messages()) }`
   * (resp. `toOpenAI(ctx.messages(), system)`, `toOpenAIResponses(…)`), and the
   * array is byte for byte `JSON.stringify` of it, except that a tool call read
   * from OpenAI whose arguments hold numbers JS would round (`9007199254740993`,
   * `1.0`) carries them as the provider sent them.
   *
   * Each message is serialized once, and again only when compaction changes it:
   * the last body is kept, a request after a few pushes appends to it, and one
   * after a compaction copies the unchanged messages from it. The cache is that
   * one body in memory; asking for another `format` serializes every message again.
   *
   * A block the format has no equivalent for is left out, as by the `to…` functions,
   * and reported to `onEvent` as a `block_dropped` event when its message is
   * written (a message copied unchanged from the last body was reported then).
   * @throws {CompactionError} INVALID_INPUT (`options.format`, `options.messages`, …)
   */
  requestBody(options: RequestBodyOptions): Uint8Array;
  free(): void;
}

/** What `ContextManager.requestBody` writes besides the conversation. */
export type RequestBodyOptions =
  | ({ format: 'anthropic' } & Record<string, unknown>)
  | ({
      format: 'openai' | 'openai-responses';
      /** The `system` returned by `fromOpenAI` / `fromOpenAIResponses`, put back at its positions. */
      system?: readonly SystemMessage<object>[];
    } & Record<string, unknown>);

/** The built-in system prompt of the summarizer. */
export const DEFAULT_SUMMARY_PROMPT: string;

/** A fast token estimate (no tokenizer). */
export function estimateTokens(messages: MessageInput[]): number;

export interface PairingProblem {
  messageIndex: number;
  toolUseId: string;
  problem: string;
}

/** The providers' pairing rule: each tool result answers a tool call of the preceding message, and each call is answered by the next. */
export function validateToolPairs(messages: MessageInput[]): PairingProblem[];

/** An offline extractive summarizer for demos and tests. Not an LLM. `delayMs` (0 to 2^31 − 1, `setTimeout`'s limit) simulates latency. */
export function offlineSummarizer(options?: { delayMs?: number }): Summarize;

// ---- Provider formats -------------------------------------------------------
//
// The `from…` functions take `…Input` types: shapes without index signatures, so that the
// providers' SDK types are accepted as they are (openai's `ChatCompletionMessageParam` and
// `ResponseInputItem`, @anthropic-ai/sdk's `MessageParam`, ai's `ModelMessage`), and so are
// the `to…` functions' own outputs. The `to…` functions return unions by role (by item type
// for the Responses API) that those SDK types accept. Only the fields the converters write or
// read are listed: a provider's other fields (`name`, `cache_control`, `providerOptions`,
// `id`, `status`, …) are carried over unchanged, and parts of types not listed are written
// back verbatim. Between formats, a part is converted to the target's counterpart (an
// Anthropic `image` block becomes an `image_url` part), or left out and reported as a
// `block_dropped` event when there is none; a system message becomes `{ role, content }` with
// its text where it does not have the target's shape.

/** A system/developer message kept aside by a `from…` function, and where it was. */
export interface SystemMessage<M extends object = Record<string, unknown>> {
  /** How many model messages came before it. */
  position: number;
  /** The provider message, verbatim (written back as it is to its own format). */
  message: M;
}

/** The members of `M` whose `role` is one of `R`, `role` narrowed to those. */
type WithRole<M, R extends string> = M extends { role: infer Role }
  ? [Extract<Role, R>] extends [never]
    ? never
    : [Role] extends [R]
      ? M
      : M & { role: Extract<Role, R> }
  : never;

/** A JSON value. */
export type JSONValue = null | string | number | boolean | JSONValue[] | { [key: string]: JSONValue };

// -- Anthropic Messages API

/** A content block as `fromAnthropic` reads it; blocks of any other type are kept verbatim. */
export type AnthropicContentBlockInput =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      /** Missing means empty. */
      content?: string | readonly object[];
      is_error?: boolean | null;
      compact_summary?: string | null;
    }
  | { type: string };

/**
 * A Messages API message as `fromAnthropic` reads it. `system` messages (which @anthropic-ai/sdk's
 * `MessageParam` admits) are rejected with INVALID_INPUT: give the system prompt as `system`.
 */
export type AnthropicMessageInput =
  | { role: 'user' | 'assistant'; content: string | readonly AnthropicContentBlockInput[] }
  | { role: 'system'; content: string | readonly { type: 'text'; text: string }[] };

/** The Messages API `system`: a string or text blocks. */
export type AnthropicSystemInput = string | readonly { type: 'text'; text: string }[];

export type AnthropicTextBlock = { type: 'text'; text: string };
export type AnthropicImageBlock = {
  type: 'image';
  source:
    | { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string }
    | { type: 'url'; url: string }
    | { type: 'file'; file_id: string };
};
export type AnthropicDocumentBlock = {
  type: 'document';
  source:
    | { type: 'base64'; media_type: 'application/pdf'; data: string }
    | { type: 'text'; media_type: 'text/plain'; data: string }
    | { type: 'content'; content: string | Array<AnthropicTextBlock | AnthropicImageBlock> }
    | { type: 'url'; url: string }
    | { type: 'file'; file_id: string };
};
export type AnthropicSearchResultBlock = { type: 'search_result'; source: string; title: string; content: AnthropicTextBlock[] };
export type AnthropicThinkingBlock = { type: 'thinking'; thinking: string; signature: string };
export type AnthropicRedactedThinkingBlock = { type: 'redacted_thinking'; data: string };
export type AnthropicToolUseBlock = {
  type: 'tool_use';
  id: string;
  name: string;
  /** Always an object: an input that is not one (a Chat Completions call whose arguments were not a JSON object) is written as `{ arguments: input }`. */
  input: { [key: string]: unknown };
};
export type AnthropicToolResultBlock = {
  type: 'tool_result';
  tool_use_id: string;
  /** Left out when empty. */
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicSearchResultBlock>;
  /** Written only when true. */
  is_error?: true;
};
export type AnthropicUserMessage = {
  role: 'user';
  content:
    | string
    | Array<AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock | AnthropicSearchResultBlock | AnthropicToolResultBlock>;
};
export type AnthropicAssistantMessage = {
  role: 'assistant';
  content: string | Array<AnthropicTextBlock | AnthropicThinkingBlock | AnthropicRedactedThinkingBlock | AnthropicToolUseBlock>;
};
/** Anthropic Messages API message, as `toAnthropic` writes it. Blocks of other types read by `fromAnthropic` (server tool blocks, …) are written back verbatim. */
export type AnthropicMessage = AnthropicUserMessage | AnthropicAssistantMessage;

// -- OpenAI Chat Completions

/** A content part as `fromOpenAI` reads it: `text` parts become text blocks, any other part is kept verbatim. */
export type OpenAIChatContentPartInput = { type: 'text'; text: string } | { type: string };

export type OpenAIChatToolCallInput =
  | { id: string; type?: 'function'; function: { name: string; arguments: string } }
  /** Custom tool calls: rejected with INVALID_INPUT. */
  | { id: string; type: 'custom'; custom: { name: string; input: string } };

/**
 * A Chat Completions message as `fromOpenAI` reads it. `system` and `developer` messages are kept
 * aside verbatim; (deprecated) `function` messages and `custom` tool calls, which openai's
 * `ChatCompletionMessageParam` admits, are rejected with INVALID_INPUT.
 */
export type OpenAIChatMessageInput =
  | { role: 'system' | 'developer'; content: string | readonly { type: 'text'; text: string }[] }
  | { role: 'user'; content: string | readonly OpenAIChatContentPartInput[] }
  | {
      role: 'assistant';
      content?: string | null | readonly OpenAIChatContentPartInput[];
      tool_calls?: readonly OpenAIChatToolCallInput[];
    }
  | { role: 'tool'; tool_call_id: string; content: string | readonly OpenAIChatContentPartInput[] }
  | { role: 'function'; name: string; content: string | null };

export type OpenAIChatTextPart = { type: 'text'; text: string };
export type OpenAIChatImagePart = { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };
export type OpenAIChatAudioPart = { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } };
export type OpenAIChatFilePart = { type: 'file'; file: { file_data?: string; file_id?: string; filename?: string } };
export type OpenAIChatRefusalPart = { type: 'refusal'; refusal: string };
export type OpenAIChatToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };
export type OpenAIChatSystemMessage = { role: 'system'; content: string | OpenAIChatTextPart[] };
export type OpenAIChatDeveloperMessage = { role: 'developer'; content: string | OpenAIChatTextPart[] };
export type OpenAIChatUserMessage = {
  role: 'user';
  content: string | Array<OpenAIChatTextPart | OpenAIChatImagePart | OpenAIChatAudioPart | OpenAIChatFilePart>;
};
export type OpenAIChatAssistantMessage = {
  role: 'assistant';
  /** `null` when there is no text (unless read otherwise); absent only when read so. */
  content?: string | null | Array<OpenAIChatTextPart | OpenAIChatRefusalPart>;
  /** Present only when there are calls. */
  tool_calls?: OpenAIChatToolCall[];
};
/** One per tool result. */
export type OpenAIChatToolMessage = { role: 'tool'; tool_call_id: string; content: string | OpenAIChatTextPart[] };
/** OpenAI Chat Completions message. */
export type OpenAIChatMessage =
  | OpenAIChatSystemMessage
  | OpenAIChatDeveloperMessage
  | OpenAIChatUserMessage
  | OpenAIChatAssistantMessage
  | OpenAIChatToolMessage;

// -- OpenAI Responses API

/** A message item's part as `fromOpenAIResponses` reads it: `input_text` (user) and `output_text` (assistant) parts become text blocks, any other part is kept verbatim. */
export type OpenAIResponsesContentPartInput = { type: 'input_text' | 'output_text'; text: string } | { type: string };

/**
 * A Responses API input item as `fromOpenAIResponses` reads it. Items of any other type
 * (`reasoning`, `web_search_call`, `item_reference`, …) are kept verbatim. An item without a
 * `type` is a message (openai's `ResponseInputItem` also admits an item reference without
 * one, or with `type: null`: rejected with INVALID_INPUT).
 */
export type OpenAIResponsesItemInput =
  | {
      type?: 'message';
      role: 'system' | 'developer' | 'user' | 'assistant';
      content: string | readonly OpenAIResponsesContentPartInput[];
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string | readonly object[] }
  | { type: string }
  | { type?: 'item_reference' | null; id: string };

export type OpenAIResponsesInputText = { type: 'input_text'; text: string };
export type OpenAIResponsesInputImage = {
  type: 'input_image';
  detail: 'low' | 'high' | 'auto' | 'original';
  image_url?: string | null;
  file_id?: string | null;
};
export type OpenAIResponsesInputFile = {
  type: 'input_file';
  file_data?: string;
  file_id?: string | null;
  file_url?: string;
  filename?: string;
};
export type OpenAIResponsesAnnotation =
  | { type: 'file_citation'; file_id: string; filename: string; index: number }
  | { type: 'url_citation'; url: string; title: string; start_index: number; end_index: number }
  | { type: 'container_file_citation'; container_id: string; file_id: string; filename: string; start_index: number; end_index: number }
  | { type: 'file_path'; file_id: string; index: number };
export type OpenAIResponsesOutputText = { type: 'output_text'; text: string; annotations: OpenAIResponsesAnnotation[] };
export type OpenAIResponsesRefusal = { type: 'refusal'; refusal: string };
export type OpenAIResponsesSystemMessage = {
  type?: 'message';
  role: 'system' | 'developer';
  content: string | Array<OpenAIResponsesInputText | OpenAIResponsesInputImage | OpenAIResponsesInputFile>;
};
export type OpenAIResponsesUserMessage = {
  type?: 'message';
  role: 'user';
  content: string | Array<OpenAIResponsesInputText | OpenAIResponsesInputImage | OpenAIResponsesInputFile>;
};
/** An assistant message item: text as a string, or an output message (as the API returned it). */
export type OpenAIResponsesAssistantMessage =
  | { type?: 'message'; role: 'assistant'; content: string }
  | {
      type: 'message';
      id: string;
      status: 'in_progress' | 'completed' | 'incomplete';
      role: 'assistant';
      content: Array<OpenAIResponsesOutputText | OpenAIResponsesRefusal>;
    };
export type OpenAIResponsesFunctionCall = { type: 'function_call'; call_id: string; name: string; arguments: string };
export type OpenAIResponsesFunctionCallOutput = {
  type: 'function_call_output';
  call_id: string;
  output: string | Array<OpenAIResponsesInputText | OpenAIResponsesInputImage | OpenAIResponsesInputFile>;
};
export type OpenAIResponsesReasoning = {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  encrypted_content?: string | null;
};
export type OpenAIResponsesItemReference = { type: 'item_reference'; id: string };
/** OpenAI Responses API input item. Items of other types read by `fromOpenAIResponses` (`web_search_call`, …) are written back verbatim. */
export type OpenAIResponsesItem =
  | OpenAIResponsesSystemMessage
  | OpenAIResponsesUserMessage
  | OpenAIResponsesAssistantMessage
  | OpenAIResponsesFunctionCall
  | OpenAIResponsesFunctionCallOutput
  | OpenAIResponsesReasoning
  | OpenAIResponsesItemReference;

// -- Vercel AI SDK

/** A part as `fromVercelAI` reads it; parts of any other type are kept verbatim. */
export type VercelAIPartInput =
  | { type: 'text'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName?: string; output: { type: string } }
  | { type: string };

/** An AI SDK `ModelMessage` as `fromVercelAI` reads it. `system` messages are kept aside verbatim. */
export type VercelAIMessageInput =
  | { role: 'system'; content: string }
  | { role: 'user' | 'assistant'; content: string | readonly VercelAIPartInput[] }
  | { role: 'tool'; content: readonly VercelAIPartInput[] };

export type VercelAITextPart = { type: 'text'; text: string };
/** `image`: base64 or a URL, as a string. */
export type VercelAIImagePart = { type: 'image'; image: string; mediaType?: string };
export type VercelAIFilePart = {
  type: 'file';
  data: string | { type: 'data'; data: string } | { type: 'text'; text: string };
  mediaType: string;
  filename?: string;
};
export type VercelAIReasoningPart = { type: 'reasoning'; text: string };
export type VercelAIToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown };
export type VercelAIToolResultOutput =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: JSONValue }
  | { type: 'execution-denied'; reason?: string }
  | {
      type: 'content';
      value: Array<
        | { type: 'text'; text: string }
        | { type: 'file-data'; data: string; mediaType: string; filename?: string }
        | { type: 'file-url'; url: string; mediaType?: string }
      >;
    };
export type VercelAIToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  /** The name kept from the input, else that of the matching tool call. */
  toolName: string;
  output: VercelAIToolResultOutput;
};
export type VercelAIToolApprovalRequest = { type: 'tool-approval-request'; approvalId: string; toolCallId: string };
export type VercelAIToolApprovalResponse = { type: 'tool-approval-response'; approvalId: string; approved: boolean };
export type VercelAISystemMessage = { role: 'system'; content: string };
export type VercelAIUserMessage = {
  role: 'user';
  content: string | Array<VercelAITextPart | VercelAIImagePart | VercelAIFilePart>;
};
export type VercelAIAssistantMessage = {
  role: 'assistant';
  content:
    | string
    | Array<
        | VercelAITextPart
        | VercelAIFilePart
        | VercelAIReasoningPart
        | VercelAIToolCallPart
        | VercelAIToolResultPart
        | VercelAIToolApprovalRequest
      >;
};
/** The tool results of a user message (and its other `tool-*` parts), before a `user` message for the rest. */
export type VercelAIToolMessage = { role: 'tool'; content: Array<VercelAIToolResultPart | VercelAIToolApprovalResponse> };
/** Vercel AI SDK `ModelMessage`. */
export type VercelAIMessage = VercelAISystemMessage | VercelAIUserMessage | VercelAIAssistantMessage | VercelAIToolMessage;

export type FormatName = 'anthropic' | 'openai' | 'openai-responses' | 'vercel-ai' | 'model';

/**
 * `{ system?, messages }` (or the bare array) → the model; `system` is returned untouched
 * (`null` when there is none). Other fields of the object (`model`, …) are ignored.
 */
export function fromAnthropic<S extends AnthropicSystemInput = never>(
  conversation: { system?: S; messages: readonly AnthropicMessageInput[] } | readonly AnthropicMessageInput[],
): { system: S | null; messages: Message[] };
/** A block a `to…` function left out: the target format has no equivalent for it. */
export interface BlockDroppedEvent {
  kind: 'block_dropped';
  /** Index of the message in the `messages` given. */
  messageIndex: number;
  /** Index of the block in that message's `content`. */
  blockIndex: number;
  /** When the block was inside the tool result at `blockIndex`: its index in that result's `content`. */
  partIndex?: number;
  /** The dropped block's `type` (`''` when it has none). */
  type: string;
  /** The target format. */
  format: 'anthropic' | 'openai' | 'openai-responses' | 'vercel-ai';
  /** Why the format cannot take it. */
  reason: string;
}

/** Options of the `to…` functions. */
export interface ToFormatOptions {
  /** Called for each block left out, in order, after the conversion; an exception it throws is thrown on. */
  onEvent?: (event: BlockDroppedEvent) => void;
}

/**
 * Blocks written in another format are converted to this one's equivalent (images,
 * documents, tool errors, thinking) or left out and reported to `options.onEvent`.
 */
export function toAnthropic(messages: readonly MessageInput[], options?: ToFormatOptions | null): AnthropicMessage[];
/** `system`: the system and developer messages, verbatim, with their positions. */
export function fromOpenAI<M extends OpenAIChatMessageInput>(
  messages: readonly M[],
): { system: SystemMessage<WithRole<M, 'system' | 'developer'>>[]; messages: Message[] };
export function toOpenAI(messages: readonly MessageInput[]): Array<OpenAIChatUserMessage | OpenAIChatAssistantMessage | OpenAIChatToolMessage>;
/** `system` (from `fromOpenAI`) is put back at its positions, verbatim: its messages are part of the result. */
export function toOpenAI<S extends object = never>(
  messages: readonly MessageInput[],
  system: readonly SystemMessage<S>[] | undefined | null,
  options?: ToFormatOptions | null,
): Array<OpenAIChatUserMessage | OpenAIChatAssistantMessage | OpenAIChatToolMessage | S>;
/** `system`: the system and developer message items, verbatim, with their positions. */
export function fromOpenAIResponses<M extends OpenAIResponsesItemInput>(
  items: readonly M[],
): { system: SystemMessage<WithRole<Extract<M, { type?: 'message' }>, 'system' | 'developer'>>[]; messages: Message[] };
export function toOpenAIResponses(messages: readonly MessageInput[]): Array<Exclude<OpenAIResponsesItem, OpenAIResponsesSystemMessage>>;
/** `system` (from `fromOpenAIResponses`) is put back at its positions, verbatim: its messages are part of the result. */
export function toOpenAIResponses<S extends object = never>(
  messages: readonly MessageInput[],
  system: readonly SystemMessage<S>[] | undefined | null,
  options?: ToFormatOptions | null,
): Array<Exclude<OpenAIResponsesItem, OpenAIResponsesSystemMessage> | S>;
/** `system`: the system messages, verbatim, with their positions. */
export function fromVercelAI<M extends VercelAIMessageInput>(
  messages: readonly M[],
): { system: SystemMessage<WithRole<M, 'system'>>[]; messages: Message[] };
export function toVercelAI(messages: readonly MessageInput[]): Array<VercelAIUserMessage | VercelAIAssistantMessage | VercelAIToolMessage>;
/** `system` (from `fromVercelAI`) is put back at its positions, verbatim: its messages are part of the result. */
export function toVercelAI<S extends object = never>(
  messages: readonly MessageInput[],
  system: readonly SystemMessage<S>[] | undefined | null,
  options?: ToFormatOptions | null,
): Array<VercelAIUserMessage | VercelAIAssistantMessage | VercelAIToolMessage | S>;
/** The format of a pasted conversation, or null when not recognised. */
export function detectFormat(conversation: unknown): FormatName | null;

// ---- Summarizers over fetch -------------------------------------------------

export interface OpenAISummarizerOptions {
  /** e.g. "https://api.openai.com/v1", "http://127.0.0.1:11434/v1" (Ollama). */
  baseURL: string;
  apiKey?: string;
  model: string;
  /** Defaults to the global fetch. Called as `fetch(url, { method: 'POST', headers, body, signal })`, the body as UTF-8 JSON bytes (a `Uint8Array`). */
  fetch?: typeof fetch;
  /** Sent with every request; a `Headers` or a `Map` is read too. */
  headers?: Record<string, string> | Headers | Map<string, string>;
  temperature?: number;
}

export interface AnthropicSummarizerOptions {
  /** Default "https://api.anthropic.com". */
  baseURL?: string;
  apiKey: string;
  model: string;
  /** As in {@link OpenAISummarizerOptions.fetch}. */
  fetch?: typeof fetch;
  /** As in {@link OpenAISummarizerOptions.headers}. From a browser, add `{ "anthropic-dangerous-direct-browser-access": "true" }`. */
  headers?: Record<string, string> | Headers | Map<string, string>;
}

/** A `summarize` function over Chat Completions (OpenAI and compatible servers). */
export function openAISummarizer(options: OpenAISummarizerOptions): Summarize;
/** A `summarize` function over the Anthropic Messages API. */
export function anthropicSummarizer(options: AnthropicSummarizerOptions): Summarize;
