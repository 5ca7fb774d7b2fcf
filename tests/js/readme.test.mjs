// Runs every ```js example of README.md as pasted, in the README's order, each as its own
// module: written to a temporary folder (whose node_modules links to this repository's, so
// that `import … from 'context-compactor'` and `'openai'` resolve as in a user's project)
// and imported. The names the examples leave undefined come from the preamble below,
// installed as globals (an example's own declarations shadow them). Every request goes to
// servers on 127.0.0.1 that this file starts and stops: tests/js/support/llm-server.mjs for
// the summaries (OpenAI Chat Completions and Anthropic Messages) and a small Messages API
// model below for the agent loop. A test fails when its example throws or rejects, and
// checks what the example did: what it sent, what the servers accepted, what it returns.
//
//   node --test tests/js/readme.test.mjs          (needs pkg/ built: scripts/build.sh)
//   README_DEBUG=1 node --test tests/js/readme.test.mjs    also prints what each example logged
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import {
  DEFAULT_SUMMARY_PROMPT, estimateTokens, fromAnthropic, toOpenAI, toOpenAIResponses, toVercelAI,
  validateToolPairs,
} from 'context-compactor';
import { start as startLlmServer, DEFAULT_SUMMARY_TEXT } from './support/llm-server.mjs';

const ROOT = new URL('../../', import.meta.url);
const README = readFileSync(new URL('README.md', ROOT), 'utf8');
const SUMMARY_PREFIX = '[Previous conversation summary]: ';
const TEST_KEYS = { OPENAI_API_KEY: 'sk-readme-test-openai', ANTHROPIC_API_KEY: 'sk-ant-readme-test' };

// ---- The preamble: every name the README's examples use without defining it ----------
// `llm` and `model` are the local servers started below. For real use the two base URLs
// are 'https://api.openai.com/v1' (or a compatible server, e.g. Ollama's
// 'http://127.0.0.1:11434/v1') and 'https://api.anthropic.com'.
function preamble({ llm, model }) {
  const history = toolLoop(66, 2000);
  const chat = toOpenAI(fromAnthropic({ messages: history }).messages);
  let ran = 0;
  return {
    // The OpenAI-compatible endpoint: openAISummarizer, the OpenAI SDK, and the Chat
    // Completions example's model call.
    OPENAI_BASE_URL: `${llm.baseURL}/v1`,
    // The Messages API: the agent loop's model calls (they carry `tools`) are answered by
    // the model below, anthropicSummarizer's requests passed on to `llm`.
    ANTHROPIC_BASE_URL: model.baseURL,
    // An Anthropic Messages conversation to resume: a task and 66 tool steps with ~2,000-word
    // results, ~137,000 estimated tokens: under the agent loop's threshold (0.75 × 200,000),
    // over the OpenAI example's (0.75 × 128,000).
    history,
    // The agent loop's model, system prompt and tool definitions (Messages API fields).
    model: 'claude-sonnet-4-5',
    system: 'You are a coding agent. Work in the repository with the bash tool.',
    tools: [{ name: 'bash', description: 'Runs a shell command.', input_schema: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] } }],
    // The Messages API request headers (the key from process.env, as a user has it).
    headers: { 'content-type': 'application/json', 'x-api-key': process.env.ANTHROPIC_API_KEY, 'anthropic-version': '2023-06-01' },
    // Runs the tool calls of a reply's content; resolves to their tool_result blocks
    // (here ~4,000 tokens of output each, so that the loop's context grows past the threshold).
    runTools: async (content) => content.filter((b) => b.type === 'tool_use')
      .map((b) => ({ type: 'tool_result', tool_use_id: b.id, content: words(1000 + ++ran, 4000) })),
    // A Chat Completions conversation: a system message, then `history` in OpenAI's format.
    chatMessages: [{ role: 'system', content: 'You are a coding agent.' }, ...chat],
    // Responses API input items and Vercel AI SDK ModelMessages: `history` in those formats.
    responsesInput: toOpenAIResponses(fromAnthropic({ messages: history }).messages),
    modelMessages: toVercelAI(fromAnthropic({ messages: history }).messages),
  };
}
// The API keys the examples read from process.env (OPENAI_API_KEY, ANTHROPIC_API_KEY) are
// set to TEST_KEYS while they run: a real key in the environment is never sent anywhere.

const WORDS = ('the parser reads each file and returns a list of tokens which the checker then walks '
  + 'to find the failing case in module config loader test runner output error line value').split(' ');
/** `n` words, the same for the same seed. */
function words(seed, n) {
  let s = seed;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[s % WORDS.length]);
  }
  return out.join(' ');
}
/** An Anthropic tool loop: the task, then `steps` steps (a thought and a call; its result). */
function toolLoop(steps, resultWords) {
  const messages = [{ role: 'user', content: 'Fix the failing test in tests/test_config.py and explain what was wrong.' }];
  for (let s = 1; s <= steps; s++) {
    const id = `toolu_${String(s).padStart(3, '0')}`;
    messages.push({ role: 'assistant', content: [
      { type: 'text', text: `Step ${s}: I will look at src/module_${s}.py.` },
      { type: 'tool_use', id, name: 'bash', input: { cmd: `cat src/module_${s}.py` } },
    ] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: words(s, resultWords) }] });
  }
  return messages;
}

// ---- The agent loop's model: a Messages API that calls a tool TOOL_STEPS times, then
// answers. A request without `tools` (a summary) is passed on to `summaries` (llm-server).
const TOOL_STEPS = 5;
async function startModelServer(summaries) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => answer(Buffer.concat(chunks).toString('utf8'), req, res).catch((err) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }));
    }));
  });
  /** Answers one request: a summary passed on, or the next step of the loop. */
  async function answer(raw, req, res) {
    const send = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof value === 'string' ? value : JSON.stringify(value));
    };
    if (req.method !== 'POST' || req.url !== '/v1/messages') return send(404, { type: 'error', error: { type: 'not_found_error', message: req.url } });
    let body;
    try { body = JSON.parse(raw); } catch { return send(400, { type: 'error', error: { type: 'invalid_request_error', message: 'body is not JSON' } }); }
    if (body.tools === undefined) {
      const { host, connection, 'content-length': _, ...headers } = req.headers;
      const passed = await fetch(`${summaries.baseURL}${req.url}`, { method: 'POST', headers, body: raw });
      return send(passed.status, await passed.text());
    }
    const problems = [];
    if (req.headers['x-api-key'] !== TEST_KEYS.ANTHROPIC_API_KEY) problems.push('x-api-key');
    if (req.headers['anthropic-version'] !== '2023-06-01') problems.push('anthropic-version');
    if (!req.headers['content-type']?.startsWith('application/json')) problems.push('content-type');
    if (typeof body.model !== 'string' || !Number.isInteger(body.max_tokens) || !Array.isArray(body.messages)) problems.push('fields');
    if (problems.length > 0) return send(400, { type: 'error', error: { type: 'invalid_request_error', message: problems.join(', ') } });
    const messages = fromAnthropic(body.messages).messages;
    requests.push({ body, tokens: estimateTokens(messages), pairing: validateToolPairs(messages) });
    const n = requests.length;
    const usage = { input_tokens: estimateTokens(messages), output_tokens: 30 };
    if (n <= TOOL_STEPS) {
      send(200, { id: `msg_${n}`, type: 'message', role: 'assistant', model: body.model, stop_reason: 'tool_use', usage,
        content: [{ type: 'text', text: `Now src/extra_${n}.py.` }, { type: 'tool_use', id: `toolu_loop_${n}`, name: 'bash', input: { cmd: `cat src/extra_${n}.py` } }] });
    } else {
      send(200, { id: `msg_${n}`, type: 'message', role: 'assistant', model: body.model, stop_reason: 'end_turn', usage,
        content: [{ type: 'text', text: 'Done: the test passes.' }] });
    }
  }
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseURL: `http://127.0.0.1:${server.address().port}`,
    requests,
    reset() { requests.length = 0; },
    stop() { server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)); },
  };
}

// ---- The examples -----------------------------------------------------------------------

/** Each fenced block of `lang` in the README, with the line it starts on. */
function blocks(lang) {
  const out = [];
  const re = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'gm');
  for (const m of README.matchAll(re)) out.push({ code: m[1], line: README.slice(0, m.index).split('\n').length });
  return out;
}

/** What each `console.log(…);  // text` line of an example says it prints, in order. */
function printedPerComments(code) {
  return code.split('\n').filter((l) => l.includes('console.log(') && /\/\/ (.+)$/.test(l)).map((l) => /\/\/ (.+)$/.exec(l)[1].trim());
}

let llm;
let model;
let dir;
let placeholders;
const savedEnv = {};
const unhandled = [];
const onUnhandled = (reason) => unhandled.push(reason);

before(async () => {
  llm = await startLlmServer();
  model = await startModelServer(llm);
  for (const [name, value] of Object.entries(TEST_KEYS)) { savedEnv[name] = process.env[name]; process.env[name] = value; }
  placeholders = preamble({ llm, model });
  Object.assign(globalThis, placeholders);
  dir = mkdtempSync(join(tmpdir(), 'readme-examples-'));
  symlinkSync(fileURLToPath(new URL('node_modules', ROOT)), join(dir, 'node_modules'), 'dir');
  process.on('unhandledRejection', onUnhandled);
});

after(async () => {
  process.off('unhandledRejection', onUnhandled);
  for (const name of Object.keys(placeholders ?? {})) delete globalThis[name];
  for (const [name, value] of Object.entries(savedEnv)) { if (value === undefined) delete process.env[name]; else process.env[name] = value; }
  if (dir) rmSync(dir, { recursive: true, force: true });
  await llm?.stop();
  await model?.stop();
});

beforeEach(() => { llm.reset(); model.reset(); unhandled.length = 0; });

let seq = 0;
/**
 * Runs one example as a module (`.cjs` when it uses `require`), with `exports` appended so
 * that the test can look at its top-level bindings. Resolves to { scope, printed }; rejects
 * when the example throws or rejects.
 */
async function runExample(code, exports) {
  const cjs = /\brequire\(/.test(code) && !/^import /m.test(code);
  const epilogue = exports.length === 0 ? '' : cjs ? `\nmodule.exports = { ${exports.join(', ')} };\n` : `\nexport { ${exports.join(', ')} };\n`;
  const file = join(dir, `example-${++seq}.${cjs ? 'cjs' : 'mjs'}`);
  writeFileSync(file, code + epilogue);
  const printed = [];
  const log = console.log;
  console.log = (...args) => { printed.push(format(...args)); };
  let namespace;
  try {
    namespace = await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(unhandled, [], 'the example left an unhandled rejection');
  if (process.env.README_DEBUG) console.error(printed);
  return { scope: cjs ? namespace.default : namespace, printed };
}

const decode = (bytes) => JSON.parse(new TextDecoder().decode(bytes));
const chatRequests = () => llm.requests.filter((r) => r.url === '/v1/chat/completions');
const messagesRequests = () => llm.requests.filter((r) => r.url === '/v1/messages');
const isSummary = (text) => typeof text === 'string' && text.startsWith(SUMMARY_PREFIX);
const firstText = (message) => (typeof message.content === 'string' ? message.content : message.content[0]?.text);

/** One check per example, found by `match`; `exports` are the bindings it looks at. */
const CHECKS = [
  {
    name: 'Node: ThresholdCompactor on a history',
    match: /new ThresholdCompactor\(\{ keepRecentTurns/,
    exports: ['messages', 'compacted', 'result'],
    check({ scope, printed }) {
      assert.ok(scope.result.toolResultsRedacted > 0, 'old tool results were redacted');
      const m = /^(\d+) tool results redacted, (\d+) → (\d+) tokens$/.exec(printed.at(-1));
      assert.ok(m, `printed ${JSON.stringify(printed)}`);
      assert.equal(Number(m[1]), scope.result.toolResultsRedacted);
      assert.ok(Number(m[3]) < Number(m[2]) / 2, 'the estimate more than halved');
      const results = (list) => list.flatMap((m) => m.content).filter((b) => b.type === 'tool_result').map((b) => b.content);
      assert.deepEqual(results(scope.messages), results(placeholders.history), 'its input is left as it was');
      assert.equal(validateToolPairs(scope.compacted).length, 0);
    },
  },
  {
    name: 'Node: require',
    match: /require\('context-compactor'\)/,
    exports: ['ctx'],
    check({ scope }) {
      assert.equal(scope.ctx.contextLimit, 128_000);
      assert.equal(scope.ctx.contextUsed, 0);
      scope.ctx.free();
    },
  },
  {
    name: 'An agent loop',
    match: /for \(let step = 0;/,
    exports: ['ctx'],
    check({ scope, printed }) {
      const { ctx } = scope;
      const sent = model.requests;
      assert.equal(sent.length, TOOL_STEPS + 1, 'one model call per step, until the model stops calling tools');
      for (const [i, r] of sent.entries()) {
        assert.equal(r.body.model, placeholders.model);
        assert.equal(r.body.system, placeholders.system);
        assert.deepEqual(r.body.tools, placeholders.tools);
        assert.equal(r.body.max_tokens, 4096);
        assert.deepEqual(r.pairing, [], `request ${i + 1}: tool calls and results paired`);
        assert.ok(r.tokens <= 200_000 - 8_192, `request ${i + 1}: ${r.tokens} tokens, within the room`);
      }
      const summaries = messagesRequests();
      assert.equal(summaries.length, 1, 'one LLM summary, through anthropicSummarizer');
      assert.equal(summaries[0].body.model, 'claude-3-5-haiku-latest');
      assert.equal(summaries[0].body.system, DEFAULT_SUMMARY_PROMPT);
      assert.equal(summaries[0].headers['x-api-key'], TEST_KEYS.ANTHROPIC_API_KEY);
      const k = sent.findIndex((r) => isSummary(firstText(r.body.messages[0])));
      assert.ok(k > 0, 'a request after the first one starts with the summary');
      assert.ok(sent[k].tokens < sent[k - 1].tokens / 2, 'and is much smaller than the one before');
      assert.equal(firstText(sent[k].body.messages[0]), SUMMARY_PREFIX + DEFAULT_SUMMARY_TEXT);
      assert.equal(firstText(sent[k].body.messages[1]), placeholders.history[0].content, 'the task is kept verbatim after the summary');
      assert.deepEqual(printed.slice(0, 1), ['compaction_started'], 'onEvent logged the events');
      assert.match(printed[1] ?? '', /^LLM compaction result: .*, \d+ turns compacted$/);
      // Pushed without turn ids: each step its own turn; the last message is the answer.
      const all = ctx.messages();
      assert.equal(all.at(-1).content[0].text, 'Done: the test passes.');
      const turnOf = (m) => `${m.turn_id.owner}${m.turn_id.number}`;
      const assistants = all.filter((m) => m.role === 'assistant');
      assert.equal(new Set(assistants.map(turnOf)).size, assistants.length, 'a turn per step');
      assert.equal(turnOf(all.at(-1)), `a${66 + TOOL_STEPS + 1}`, 'numbered after the history\'s 66 steps');
      all.forEach((m, i) => {
        if (m.content.some((b) => b.type === 'tool_result')) assert.equal(turnOf(m), turnOf(all[i - 1]), 'a tool result joins its call\'s turn');
      });
      assert.ok(ctx.fits);
      ctx.free();
    },
  },
  {
    name: 'Providers: OpenAI Chat Completions',
    match: /fromOpenAI\(chatMessages\)/,
    exports: ['ctx', 'body', 'message'],
    check({ scope }) {
      const [summary, call] = chatRequests();
      assert.equal(chatRequests().length, 2, 'a summary, then the model call');
      assert.equal(summary.body.model, 'gpt-4o-mini');
      assert.equal(call.body.model, 'gpt-4o');
      assert.equal(call.raw, new TextDecoder().decode(scope.body), 'the server received the requestBody bytes');
      assert.deepEqual(call.body.messages[0], placeholders.chatMessages[0], 'the system message put back in place');
      assert.ok(isSummary(call.body.messages[1].content), 'then the summary');
      assert.equal(call.headers.authorization, `Bearer ${TEST_KEYS.OPENAI_API_KEY}`);
      const all = scope.ctx.messages();
      const [last, before] = [all.at(-1), all.at(-2)];
      assert.equal(last.role, 'assistant');
      assert.equal(last.content[0].text, DEFAULT_SUMMARY_TEXT, 'the reply pushed');
      assert.notDeepEqual(last.turn_id, before.turn_id, 'as a new step');
      scope.ctx.free();
    },
  },
  {
    name: 'Providers: OpenAI Responses and Vercel AI SDK',
    match: /fromOpenAIResponses\(responsesInput\)/,
    exports: ['ctx', 'body', 'back'],
    check({ scope }) {
      const body = decode(scope.body);
      assert.equal(body.model, 'gpt-4o');
      assert.deepEqual(body.input, placeholders.responsesInput, 'the request body carries the items as given');
      assert.deepEqual(scope.back, placeholders.modelMessages, 'Vercel AI messages round trip');
      scope.ctx.free();
    },
  },
  {
    name: 'Providers: your own summarize (OpenAI SDK)',
    match: /new OpenAI\(/,
    exports: ['messages', 'result'],
    check({ scope }) {
      const [sent] = chatRequests();
      assert.equal(chatRequests().length, 1);
      assert.equal(sent.body.model, 'gpt-4o-mini');
      assert.equal(sent.body.max_tokens, 2048, 'maxTokens: the default maxSummaryTokens');
      assert.deepEqual(sent.body.messages.map((m) => m.role), ['system', 'user']);
      assert.equal(sent.body.messages[0].content, DEFAULT_SUMMARY_PROMPT);
      assert.equal(sent.headers.authorization, `Bearer ${TEST_KEYS.OPENAI_API_KEY}`);
      assert.equal(scope.result.turnsCompacted, 66 + 1 - 2, 'every turn but the 2 kept');
      assert.equal(firstText(scope.messages[0]), SUMMARY_PREFIX + DEFAULT_SUMMARY_TEXT);
    },
  },
  {
    name: 'Errors',
    match: /instanceof CompactionError/,
    exports: ['ctx'],
    check({ scope, printed, code }) {
      const expected = printedPerComments(code);
      assert.deepEqual(expected, ['INVALID_INPUT message.content[0].tool_use_id', 'LLM_ERROR quota exceeded']);
      assert.deepEqual(printed, expected, 'prints what its comments say');
      assert.equal(scope.ctx.messages().length, placeholders.history.length, 'the failed compaction changed nothing');
      scope.ctx.free();
    },
  },
];

const examples = blocks('js');

test('every ```js example of the README has exactly one check, and every check its example', () => {
  assert.ok(examples.length > 0);
  for (const { code, line } of examples) {
    const found = CHECKS.filter((c) => c.match.test(code));
    assert.equal(found.length, 1, `README.md:${line}: ${found.length} checks match this example`);
  }
  for (const c of CHECKS) assert.equal(examples.filter(({ code }) => c.match.test(code)).length, 1, c.name);
});

for (const { code, line } of examples) {
  const c = CHECKS.find((x) => x.match.test(code));
  test(`README.md:${line}: ${c?.name ?? 'an example without a check'}`, { timeout: 60_000 }, async () => {
    assert.ok(c, 'no check for this example');
    const ran = await runExample(code, c.exports);
    await c.check({ ...ran, code });
  });
}

// The browser example needs a page (it fetches the .wasm next to web.mjs, and uses `fetch`
// and `document`): its module script is checked for syntax only (`node --check`), and the
// file it imports for existence. The package in a real browser: tests/browser/.
test('README: the browser example parses, and imports a file the package has', () => {
  const html = blocks('html');
  assert.equal(html.length, 1);
  const script = /<script type="module">\n([\s\S]*?)<\/script>/.exec(html[0].code);
  assert.ok(script, 'a module script');
  const file = join(dir, 'browser-example.mjs');
  writeFileSync(file, script[1]);
  const checked = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
  assert.equal(checked.status, 0, checked.stderr);
  const specifier = /from '(\.\/node_modules\/[^']+)'/.exec(script[1]);
  assert.ok(specifier, 'imports from ./node_modules/…');
  assert.ok(existsSync(new URL(specifier[1], ROOT)), `${specifier[1]} exists`);
});
