// Compiled by tests/integrations/types.test.mjs (tsc --noEmit, strict): the integrations'
// declarations fit the frameworks' own types, and nothing here is `any`.
import { ToolLoopAgent, generateText, streamText, tool, wrapLanguageModel, isStepCount, type LanguageModelMiddleware } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createAgent, tool as lcTool, type AgentMiddleware } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { Agent, MemorySession, run, type Session, type CallModelInputFilter } from '@openai/agents';
import { z } from 'zod';
import type { ContextManager, CompactionEvent } from 'context-compactor';
import { compactingPrepareStep, compactingMiddleware, type CompactingPrepareStep, type CompactionOptions } from 'context-compactor/ai-sdk';
import { compactingMiddleware as langchainMiddleware } from 'context-compactor/langchain';
import { CompactingSession, compactingModelInputFilter } from 'context-compactor/openai-agents';

const options: CompactionOptions = {
  contextLimit: 128_000,
  threshold: 0.7,
  reserveTokens: 4096,
  compactor: { type: 'threshold', keepRecentTurns: 3, toolCompaction: 'redact' },
  onEvent: (event: CompactionEvent) => { if (event.type === 'compaction') console.log(event.tokensAfter); },
};

const model = new MockLanguageModelV4();
const tools = { read: tool({ inputSchema: z.object({ path: z.string() }), execute: async ({ path }) => path }) };
const prepareStep: CompactingPrepareStep = compactingPrepareStep(options);
const manager: ContextManager = prepareStep.manager;
console.log(manager.contextUsed);
await generateText({ model, prompt: 'x', tools, stopWhen: isStepCount(40), prepareStep });
streamText({ model, prompt: 'x', tools, prepareStep: compactingPrepareStep(options) });
new ToolLoopAgent({ model, tools, prepareStep: compactingPrepareStep(options) });
const middleware: LanguageModelMiddleware = compactingMiddleware(options);
wrapLanguageModel({ model, middleware });
compactingMiddleware(options).free();

const lcMiddleware: AgentMiddleware = langchainMiddleware({ ...options, maxConversations: 8 });
const read = lcTool(async ({ path }: { path: string }) => path, { name: 'read', description: 'reads', schema: z.object({ path: z.string() }) });
createAgent({ model: fakeModel(), tools: [read], middleware: [langchainMiddleware(options)] });
const threadManager: ContextManager | undefined = langchainMiddleware(options).manager('thread-1');
void lcMiddleware; void threadManager;

const session: Session = new CompactingSession({ ...options, session: new MemorySession() });
const compacting = new CompactingSession({ contextLimit: 64_000, sessionId: 'abc' });
const filter: CallModelInputFilter = compacting.callModelInputFilter;
const agent = new Agent({ name: 'a', instructions: 'sys' });
void run(agent, 'hi', { session: compacting, callModelInputFilter: filter, maxTurns: 50 });
void run(agent, 'hi', { session, callModelInputFilter: compactingModelInputFilter(options) });
const items = await compacting.getItems(10);
console.log(items.length, compacting.manager.fits);

// @ts-expect-error contextLimit is required
compactingPrepareStep({ threshold: 0.5 });
// @ts-expect-error no such option
compactingPrepareStep({ contextLimit: 1, limit: 2 });
