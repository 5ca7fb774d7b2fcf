// context-compactor/ai-sdk: the Vercel AI SDK (`ai`, v7). Two ways in:
//
// - compactingPrepareStep(options): a `prepareStep` for generateText / streamText / agents.
//   The loop keeps the messages it returns, so after a compaction the loop itself carries
//   the compacted conversation; each step only the messages new since the last one are
//   converted and pushed.
// - compactingMiddleware(options): a language-model middleware for `wrapLanguageModel`.
//   It compacts `params.prompt` (the LanguageModelV4 prompt) of every call; the loop does not
//   keep what it returns, so each call's prompt is compared with the last one's and only the
//   messages after it are converted.
import { fromVercelAI, toVercelAI } from '#context-compactor';
import { Conversation, attachConversation } from './integration-core.mjs';

const isToolResult = (part) => part !== null && typeof part === 'object' && part.type === 'tool-result';

/** The AI SDK messages adapter (ModelMessage[]; `v4`: the LanguageModelV4 prompt). */
function adapter({ v4 }) {
  return {
    structural: v4,
    // generateText's `responseMessages` are copies of the messages its steps had: a chat that
    // sends them back is recognised by structure, once per call.
    structuralFallback: true,
    trackOriginal: true,
    read(items) {
      const { messages, system } = fromVercelAI(items);
      // Every item but a system message is one message, in order (src/formats/vercel.rs).
      const systemAt = [];
      const origins = [];
      items.forEach((item, i) => {
        if (item?.role === 'system') systemAt.push(i); else origins.push([i]);
      });
      return {
        messages,
        system: system.map((s, k) => ({ position: s.position, index: systemAt[k] })),
        origins: origins.length === messages.length ? origins : null,
      };
    },
    toolResultIds(item) {
      return item?.role === 'tool' && Array.isArray(item.content)
        ? item.content.filter(isToolResult).map((p) => p.toolCallId) : [];
    },
    encode(blocks) {
      // Text is written as toVercelAI writes it (src/formats/vercel.rs: `text` and
      // `error-text` outputs), without a call per block; other content goes through it, in
      // one user message of tool_result blocks, which it writes as one tool message.
      const out = blocks.map((b) => (typeof b.content === 'string' ? { type: b.is_error ? 'error-text' : 'text', value: b.content } : null));
      const rest = blocks.filter((b) => typeof b.content !== 'string');
      if (rest.length > 0) {
        const [tool] = toVercelAI([{ role: 'user', content: rest }]);
        let k = 0;
        out.forEach((value, i) => { if (value === null) out[i] = tool.content[k++].output; });
      }
      return out;
    },
    patch(item, patches) {
      const left = [...patches];
      return {
        ...item,
        content: item.content.map((p) => {
          if (!isToolResult(p)) return p;
          const k = left.findIndex((x) => x.callId === p.toolCallId);
          if (k < 0) return p;
          const [{ value }] = left.splice(k, 1);
          return { ...p, output: value };
        }),
      };
    },
    write(messages) {
      const items = toVercelAI(messages);
      return v4 ? items.map(toPromptMessage) : items;
    },
  };
}

/** A ModelMessage as a LanguageModelV4 prompt message (whose user and assistant content is an array). */
function toPromptMessage(m) {
  if ((m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string') {
    return { ...m, content: m.content === '' ? [] : [{ type: 'text', text: m.content }] };
  }
  return m;
}

/**
 * A `prepareStep` that keeps the conversation of a generateText / streamText tool loop
 * within `contextLimit`: before each step it pushes the messages that are new since the
 * last step (the previous step's `usage.inputTokens` is the provider's count of the rest),
 * runs `maybeCompact()`, and when that changed anything returns `{ messages }`, the loop's
 * messages with the old tool results compacted, which the loop keeps for the next steps.
 */
export function compactingPrepareStep(options) {
  const conversation = new Conversation(options, adapter({ v4: false }));
  const prepareStep = async ({ steps, messages }) => {
    const usage = steps?.at(-1)?.usage?.inputTokens;
    const { items, changed } = await conversation.sync(messages, usage);
    return changed ? { messages: items } : undefined;
  };
  return attachConversation(prepareStep, conversation);
}

/**
 * A language-model middleware (`wrapLanguageModel({ model, middleware })`) that compacts
 * each call's prompt. `wrapGenerate` and `wrapStream` read the call's input-token usage,
 * the provider's count for the next call.
 */
export function compactingMiddleware(options) {
  const conversation = new Conversation(options, adapter({ v4: true }));
  let usage; // the input tokens of the last call, as the provider counted them
  const middleware = {
    specificationVersion: 'v4',
    async transformParams({ params }) {
      const used = usage;
      usage = undefined;
      const { items, changed } = await conversation.sync(params.prompt, used);
      return changed ? { ...params, prompt: items } : params;
    },
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      usage = result.usage?.inputTokens?.total;
      return result;
    },
    async wrapStream({ doStream }) {
      const result = await doStream();
      const stream = result.stream.pipeThrough(new TransformStream({
        transform(part, controller) {
          if (part?.type === 'finish') usage = part.usage?.inputTokens?.total;
          controller.enqueue(part);
        },
      }));
      return { ...result, stream };
    },
  };
  return attachConversation(middleware, conversation);
}
