// Browser entry: fetches and instantiates the wasm module that sits next to this file.
import init, { __compactionErrorClass, __defaultSummaryPrompt } from './context_compactor.js';

await init({ module_or_path: new URL('./context_compactor_bg.wasm', import.meta.url) });

export {
  ThresholdCompactor, LlmCompactor, ContextManager, estimateTokens, validateToolPairs, offlineSummarizer,
  openAISummarizer, anthropicSummarizer, detectFormat,
  fromAnthropic, toAnthropic, fromOpenAI, toOpenAI, fromOpenAIResponses, toOpenAIResponses, fromVercelAI, toVercelAI,
} from './context_compactor.js';
export const CompactionError = __compactionErrorClass();
export const DEFAULT_SUMMARY_PROMPT = __defaultSummaryPrompt();
