// Node entry: loads the wasm module synchronously (no top-level await), so that both
// `import { … } from 'context-compactor'` and `require('context-compactor')` work.
import { readFileSync } from 'node:fs';
import { initSync, __compactionErrorClass, __defaultSummaryPrompt } from './context_compactor.js';

initSync({ module: readFileSync(new URL('./context_compactor_bg.wasm', import.meta.url)) });

export {
  ThresholdCompactor, LlmCompactor, ContextManager, estimateTokens, validateToolPairs, offlineSummarizer,
  openAISummarizer, anthropicSummarizer, detectFormat,
  fromAnthropic, toAnthropic, fromOpenAI, toOpenAI, fromOpenAIResponses, toOpenAIResponses, fromVercelAI, toVercelAI,
} from './context_compactor.js';
export const CompactionError = __compactionErrorClass();
export const DEFAULT_SUMMARY_PROMPT = __defaultSummaryPrompt();
