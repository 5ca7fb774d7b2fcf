// Runs every ```js example of INTEGRATIONS.md as written, each as its own module, written to
// a temporary folder whose node_modules links to this repository's (so that `ai`, `langchain`,
// `@openai/agents` and `context-compactor/…` resolve as in a user's project), then imported.
// The names the examples leave undefined come from the preamble below, installed as globals
// before each example: each framework's own mock model, scripted as a coding agent that
// reads 40 files of ~20 KB, then answers; the summaries of the LLM example go to the local
// OpenAI-compatible server of tests/js/support/llm-server.mjs. A test fails when its example
// throws, and checks what the model was sent at each call: within contextLimit -
// reserveTokens, the newest tool result verbatim, tool calls and results paired.
//
//   node --test tests/integrations/examples.test.mjs
//   EXAMPLES_DEBUG=1 node --test tests/integrations/examples.test.mjs    also prints what each example logged
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { AIMessage } from 'langchain';
import { fakeModel } from '@langchain/core/testing';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { Usage, setTracingDisabled } from '@openai/agents';
import { DEFAULT_SUMMARY_PROMPT, estimateTokens, fromOpenAIResponses, fromVercelAI } from 'context-compactor';
import { start as startLlmServer, DEFAULT_SUMMARY_TEXT } from '../js/support/llm-server.mjs';
import { SUMMARY_PREFIX, checkPrompts, redactedIn, words } from './support.mjs';

const ROOT = new URL('../../', import.meta.url);
const DOC = readFileSync(new URL('INTEGRATIONS.md', ROOT), 'utf8');
const TEST_KEY = 'sk-integrations-test';
const ROOM = 128_000 - 8_192; // every example's contextLimit - reserveTokens

// ---- The preamble: every name the examples use without defining it ----------------------
const FILES = 40;
const ANSWER = `Done: ${FILES} files read, 3 build errors.`;
const path = (k) => `src/file_${k}.rs`;
const fileText = (p) => `// ${p}\n${words(Number(/\d+/.exec(p)[0]), 20_000)}`;

function preamble() {
  return {
    // What the user asks.
    task: `Read ${path(1)} to ${path(FILES)} and list the build errors.`,
    // The tool's work: the file's text, ~20 KB (~4,500 tokens).
    readFile: async (p) => fileText(p),
    // An AI SDK model (ai/test's MockLanguageModelV4), generate and stream: calls read_file
    // on each file, then answers. Real: openai('gpt-4o'), 'anthropic/claude-sonnet-4.5', …
    model: aiModel(),
    // A LangChain chat model (@langchain/core/testing's fakeModel), the same script.
    // Real: new ChatOpenAI({ model: 'gpt-4o' }), 'openai:gpt-4o', …
    chatModel: langchainModel(),
    // An @openai/agents Model (getResponse), the same script. Real: a model name, 'gpt-4.1'.
    agentModel: agentsModel(),
    // The OpenAI-compatible endpoint of openAISummarizer: the local server started below.
    // Real: 'https://api.openai.com/v1' (or Ollama's 'http://127.0.0.1:11434/v1', …).
    OPENAI_BASE_URL: `${llm.baseURL}/v1`,
  };
}
// process.env.OPENAI_API_KEY is TEST_KEY while the examples run, and tracing of
// @openai/agents is off (setTracingDisabled(true)): nothing leaves this machine.

/** Which file call k (0-based) reads, or null for the answer. */
const plan = (k) => (k < FILES ? k + 1 : null);

function aiModel() {
  const prompts = [];
  const usage = (input) => ({
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 20, text: 20, reasoning: undefined },
  });
  const next = (prompt) => {
    const messages = fromVercelAI(prompt).messages;
    prompts.push(messages);
    return { input: estimateTokens(messages) + 400, file: plan(prompts.length - 1) };
  };
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const { input, file } = next(prompt);
      return file !== null
        ? { content: [{ type: 'tool-call', toolCallId: `call_${file}`, toolName: 'read_file', input: JSON.stringify({ path: path(file) }) }],
          finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(input), warnings: [] }
        : { content: [{ type: 'text', text: ANSWER }], finishReason: { unified: 'stop', raw: undefined }, usage: usage(input), warnings: [] };
    },
    doStream: async ({ prompt }) => {
      const { input, file } = next(prompt);
      const chunks = file !== null
        ? [{ type: 'tool-call', toolCallId: `call_${file}`, toolName: 'read_file', input: JSON.stringify({ path: path(file) }) },
          { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: usage(input) }]
        : [{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: ANSWER }, { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: usage(input) }];
      return { stream: simulateReadableStream({ chunks, chunkDelayInMs: null }) };
    },
  });
  return Object.assign(model, { prompts });
}

/** LangChain messages → the package's model, for the checks (system messages left out). */
function fromLangChain(messages) {
  const text = (c) => (typeof c === 'string' ? c : c.map((p) => p.text ?? '').join(''));
  const out = [];
  for (const m of messages) {
    if (m.type === 'system') continue;
    if (m.type === 'tool') {
      const block = { type: 'tool_result', tool_use_id: m.tool_call_id, content: text(m.content) };
      if (out.at(-1)?.content.every((b) => b.type === 'tool_result')) out.at(-1).content.push(block);
      else out.push({ role: 'user', content: [block] });
    } else if (m.type === 'ai') {
      out.push({ role: 'assistant', content: [...(text(m.content) ? [{ type: 'text', text: text(m.content) }] : []),
        ...(m.tool_calls ?? []).map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args }))] });
    } else {
      out.push({ role: 'user', content: [{ type: 'text', text: text(m.content) }] });
    }
  }
  return out;
}

function langchainModel() {
  const prompts = [];
  const model = fakeModel();
  for (let k = 0; k <= FILES; k++) {
    const file = plan(k);
    model.respond((messages) => {
      const prompt = fromLangChain(messages);
      prompts.push(prompt);
      const input = estimateTokens(prompt) + 400;
      const usage_metadata = { input_tokens: input, output_tokens: 20, total_tokens: input + 20 };
      return file === null ? new AIMessage({ content: ANSWER, usage_metadata })
        : new AIMessage({ content: '', tool_calls: [{ id: `call_${file}`, name: 'read_file', args: { path: path(file) }, type: 'tool_call' }], usage_metadata });
    });
  }
  return Object.assign(model, { prompts });
}

function agentsModel() {
  const prompts = [];
  const toModel = (items) => fromOpenAIResponses(items.map((i) => {
    if (i.type === 'function_call') return { type: 'function_call', call_id: i.callId, name: i.name, arguments: i.arguments };
    if (i.type === 'function_call_result') return { type: 'function_call_output', call_id: i.callId, output: typeof i.output === 'string' ? i.output : i.output.text };
    return i;
  })).messages;
  return {
    prompts,
    async getResponse(request) {
      const prompt = toModel(request.input);
      prompts.push(prompt);
      const usage = new Usage({ requests: 1, inputTokens: estimateTokens(prompt), outputTokens: 20, totalTokens: estimateTokens(prompt) + 20 });
      const k = prompts.length;
      const file = plan(k - 1);
      return file === null
        ? { usage, responseId: `resp_${k}`, output: [{ type: 'message', id: `msg_${k}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ANSWER }] }] }
        : { usage, responseId: `resp_${k}`, output: [{ type: 'function_call', id: `fc_${k}`, callId: `call_${file}`, name: 'read_file', arguments: JSON.stringify({ path: path(file) }), status: 'completed' }] };
    },
    async *getStreamedResponse() { throw new Error('not used by the examples'); },
  };
}

// ---- The examples ------------------------------------------------------------------------

/** Each fenced ```js block of INTEGRATIONS.md, with the line it starts on. */
function blocks() {
  const out = [];
  for (const m of DOC.matchAll(/^```js\n([\s\S]*?)^```$/gm)) out.push({ code: m[1], line: DOC.slice(0, m.index).split('\n').length });
  return out;
}

let llm;
let dir;
let placeholders;
let savedKey;

before(async () => {
  setTracingDisabled(true);
  llm = await startLlmServer();
  savedKey = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = TEST_KEY;
  dir = mkdtempSync(join(tmpdir(), 'integrations-examples-'));
  symlinkSync(fileURLToPath(new URL('node_modules', ROOT)), join(dir, 'node_modules'), 'dir');
});

after(async () => {
  for (const name of Object.keys(placeholders ?? {})) delete globalThis[name];
  if (savedKey === undefined) delete process.env.OPENAI_API_KEY; else process.env.OPENAI_API_KEY = savedKey;
  if (dir) rmSync(dir, { recursive: true, force: true });
  await llm?.stop();
});

beforeEach(() => {
  llm.reset();
  placeholders = preamble();
  Object.assign(globalThis, placeholders);
});

let seq = 0;
/** Runs one example as a module; resolves to what it printed. */
async function runExample(code) {
  const file = join(dir, `example-${++seq}.mjs`);
  writeFileSync(file, code);
  const printed = [];
  const log = console.log;
  console.log = (...args) => { printed.push(format(...args)); };
  try {
    await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
  }
  if (process.env.EXAMPLES_DEBUG) console.error(printed);
  return printed;
}

/** The newest tool output each call had seen (none before the first). */
const seen = Array.from({ length: FILES + 1 }, (_, k) => (k === 0 ? undefined : fileText(path(k))));

/** The checks every example gets: the model's calls, their size, the newest result, the answer printed. */
function checkLoop(prompts, printed) {
  assert.equal(prompts.length, FILES + 1, 'a model call per file, then the answer');
  const peak = checkPrompts(prompts, { results: seen, room: ROOM });
  const total = estimateTokens(prompts.at(-1).slice(0, 1)) + FILES * estimateTokens([{ role: 'user', content: [{ type: 'text', text: fileText(path(1)) }] }]);
  assert.ok(total > 128_000, `the files (${total} tokens) do not fit in the window uncompacted`);
  assert.equal(printed.at(-1), ANSWER);
  return peak;
}

const CHECKS = [
  {
    name: 'Vercel AI SDK: prepareStep',
    match: /prepareStep: compactingPrepareStep\(/,
    check(printed, t) {
      const peak = checkLoop(placeholders.model.prompts, printed);
      assert.ok(placeholders.model.prompts.some((m) => redactedIn(m) > 0), 'old tool results redacted');
      t.diagnostic(`prepareStep example: peak ${peak} tokens of ${ROOM}`);
    },
  },
  {
    name: 'Vercel AI SDK: middleware',
    match: /wrapLanguageModel\(\{ model, middleware: compactingMiddleware/,
    check(printed, t) {
      assert.equal(placeholders.model.doStreamCalls.length, FILES + 1, 'through streamText');
      const peak = checkLoop(placeholders.model.prompts, printed);
      assert.ok(placeholders.model.prompts.some((m) => redactedIn(m) > 0));
      t.diagnostic(`middleware example: peak ${peak} tokens of ${ROOM}`);
    },
  },
  {
    name: 'LangChain: agent middleware',
    match: /createAgent\(/,
    check(printed, t) {
      const peak = checkLoop(placeholders.chatModel.prompts, printed);
      assert.ok(placeholders.chatModel.prompts.some((m) => redactedIn(m) > 0));
      t.diagnostic(`LangChain example: peak ${peak} tokens of ${ROOM}`);
    },
  },
  {
    name: 'OpenAI Agents SDK: CompactingSession',
    match: /new CompactingSession\(/,
    check(printed, t) {
      const peak = checkLoop(placeholders.agentModel.prompts, printed);
      assert.ok(placeholders.agentModel.prompts.some((m) => redactedIn(m) > 0));
      t.diagnostic(`OpenAI Agents example: peak ${peak} tokens of ${ROOM}`);
    },
  },
  {
    name: 'LLM compaction (openAISummarizer, local server)',
    match: /summarize: openAISummarizer\(/,
    check(printed, t) {
      const prompts = placeholders.model.prompts;
      const peak = checkLoop(prompts, printed);
      const summaries = llm.requests.filter((r) => r.url === '/v1/chat/completions');
      assert.ok(summaries.length >= 1, 'a summary was asked for');
      for (const r of summaries) {
        assert.equal(r.body.model, 'gpt-4o-mini');
        assert.equal(r.body.messages[0].content, DEFAULT_SUMMARY_PROMPT);
        assert.equal(r.headers.authorization, `Bearer ${TEST_KEY}`);
      }
      const after = prompts.filter((m) => m[0].content[0]?.text === SUMMARY_PREFIX + DEFAULT_SUMMARY_TEXT);
      assert.ok(after.length > 0, 'later calls start with the summary');
      for (const m of after) assert.equal(m[1].content[0].text, placeholders.task, 'then the task, verbatim');
      assert.ok(printed.includes('compaction_started'), 'onEvent logged the events');
      assert.ok(printed.some((l) => /^LLM compaction result: /.test(l)), printed.join('\n'));
      t.diagnostic(`LLM example: peak ${peak} tokens of ${ROOM}, ${summaries.length} summaries`);
    },
  },
];

const examples = blocks();

test('every ```js example of INTEGRATIONS.md has exactly one check, and every check its example', () => {
  assert.ok(examples.length > 0);
  for (const { code, line } of examples) {
    const found = CHECKS.filter((c) => c.match.test(code));
    assert.equal(found.length, 1, `INTEGRATIONS.md:${line}: ${found.length} checks match this example`);
  }
  for (const c of CHECKS) assert.equal(examples.filter(({ code }) => c.match.test(code)).length, 1, c.name);
});

for (const { code, line } of examples) {
  const c = CHECKS.find((x) => x.match.test(code));
  test(`INTEGRATIONS.md:${line}: ${c?.name ?? 'an example without a check'}`, { timeout: 120_000 }, async (t) => {
    assert.ok(c, 'no check for this example');
    const printed = await runExample(code);
    await c.check(printed, t);
  });
}
