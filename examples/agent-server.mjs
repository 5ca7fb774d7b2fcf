// A small HTTP chat server for agents: one ContextManager per session, an
// upstream OpenAI-compatible LLM (Chat Completions over fetch), and compaction
// before every upstream request, without ever waiting for a summary when it
// can avoid it.
//
//   UPSTREAM_BASE_URL=https://api.openai.com/v1 UPSTREAM_API_KEY=sk-… MODEL=gpt-4o-mini \
//     node examples/agent-server.mjs          # prints the URL
//
// Endpoints (JSON in, JSON out):
//   POST   /sessions/:id/messages  { "message": "text" }
//                                  { "tool_results": [{ "tool_call_id", "content", "summary"?, "is_error"? }],
//                                    "message"?: "text" }
//          → { reply: { role, content, tool_calls? }, finish_reason, usage, context }
//          The session is created by its first message. When the reply has
//          tool_calls, the client runs the tools and posts their results next.
//   GET    /sessions/:id           state and statistics (?messages=1 adds the conversation)
//   DELETE /sessions/:id
//   GET    /health
// Errors: { error: { code, message, path? } }: 400 bad input (the library's
// CompactionError code and path when it found the problem), 404, 413 when the
// context cannot be brought under the limit, 502 when the upstream failed.
//
// How the context is kept under the limit, before every upstream request:
//   1. When the context crosses the threshold, an LLM summary of the old turns
//      is started in the background (`maybeCompact()` not awaited). Requests of
//      this and other sessions go on meanwhile; messages pushed while the
//      summary is written are kept after it (the library guarantees that).
//   2. If the request would not fit the prompt budget (the window minus
//      max_tokens) while the summary is still being written, the request is
//      sent with a compacted *copy* of the conversation: tool results of old
//      turns replaced by their compact summaries (ThresholdCompactor). The
//      session itself is left alone for the summary to land on.
//   3. Only if that is still too large does the request wait for the summary.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import {
  CompactionError, ContextManager, ThresholdCompactor, estimateTokens, fromOpenAI, openAISummarizer, toOpenAI,
} from 'context-compactor';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const SUMMARY_CHARS = 160;

/** The compact summary the server stores for a tool result the client gave none for. */
export function defaultCompactSummary(content) {
  const text = String(content);
  if (text.length <= SUMMARY_CHARS) return text;
  return `${text.slice(0, SUMMARY_CHARS)}… [${text.length - SUMMARY_CHARS} more characters not shown]`;
}

class HttpError extends Error {
  constructor(status, code, message, extra = {}) {
    super(message);
    this.status = status;
    this.code = code;
    Object.assign(this, extra);
  }
}

const badInput = (path, message) => new HttpError(400, 'INVALID_INPUT', `${path}: ${message}`, { path });

function number(value, name, fallback) {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isFinite(n)) throw new TypeError(`${name} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

/** Options, with the environment as defaults: each option names its variable below (CONTEXT_LIMIT, MODEL, …). */
export function resolveOptions(options = {}, env = process.env) {
  const contextLimit = number(options.contextLimit ?? env.CONTEXT_LIMIT, 'contextLimit', 128_000);
  const maxOutputTokens = number(options.maxOutputTokens ?? env.MAX_OUTPUT_TOKENS, 'maxOutputTokens', 1024);
  const strategy = options.strategy ?? env.COMPACTION ?? 'llm';
  if (strategy !== 'llm' && strategy !== 'threshold') throw new TypeError(`strategy must be "llm" or "threshold", got ${JSON.stringify(strategy)}`);
  if (maxOutputTokens >= contextLimit) throw new TypeError('maxOutputTokens must be smaller than contextLimit');
  const tools = options.tools ?? (env.TOOLS_FILE ? JSON.parse(readFileSync(env.TOOLS_FILE, 'utf8')) : undefined);
  return {
    upstreamBaseURL: (options.upstreamBaseURL ?? env.UPSTREAM_BASE_URL ?? 'https://api.openai.com/v1').replace(/\/+$/, ''),
    apiKey: options.apiKey ?? env.UPSTREAM_API_KEY ?? env.OPENAI_API_KEY ?? '',
    model: options.model ?? env.MODEL ?? 'gpt-4o-mini',
    summaryModel: options.summaryModel ?? env.SUMMARY_MODEL ?? options.model ?? env.MODEL ?? 'gpt-4o-mini',
    contextLimit,
    maxOutputTokens,
    strategy,
    threshold: number(options.threshold ?? env.COMPACTION_THRESHOLD, 'threshold', strategy === 'llm' ? 0.6 : 0.75),
    keepRecentTurns: number(options.keepRecentTurns ?? env.KEEP_RECENT_TURNS, 'keepRecentTurns', 3),
    summaryTimeoutMs: number(options.summaryTimeoutMs ?? env.SUMMARY_TIMEOUT_MS, 'summaryTimeoutMs', 60_000),
    upstreamTimeoutMs: number(options.upstreamTimeoutMs ?? env.UPSTREAM_TIMEOUT_MS, 'upstreamTimeoutMs', 120_000),
    systemPrompt: options.systemPrompt ?? env.SYSTEM_PROMPT ?? 'You are a helpful coding agent.',
    tools: Array.isArray(tools) && tools.length > 0 ? tools : undefined,
    summarize: options.summarize,
    host: options.host ?? env.HOST ?? '127.0.0.1',
    port: number(options.port ?? env.PORT, 'port', 0),
    fetch: options.fetch ?? globalThis.fetch,
    log: options.log ?? (() => {}),
  };
}

/**
 * Starts the server. Resolves to `{ url, close, sessions }`; `sessions` is the
 * live Map of sessions (for tests and embedding).
 */
export async function createAgentServer(options = {}) {
  const config = resolveOptions(options);
  const promptBudget = config.contextLimit - config.maxOutputTokens;
  const system = config.systemPrompt ? [{ position: 0, message: { role: 'system', content: config.systemPrompt } }] : [];
  // What the upstream counts besides the messages: the system prompt and the
  // tool definitions (estimated as text; corrected by the observed ratio below).
  const overhead = estimateTokens([{ role: 'user', turn_id: { owner: 'u', number: 0 }, content: [{ type: 'text', text: `${config.systemPrompt}\n${config.tools ? JSON.stringify(config.tools) : ''}` }] }]) + 3;
  // Copies of the conversation for requests that must go out before a summary
  // lands: old tool results → compact summaries; if needed, all but the last turn.
  const views = [
    { name: 'summarized-tools', compactor: new ThresholdCompactor({ toolCompaction: 'summarize', keepRecentTurns: config.keepRecentTurns }) },
    { name: 'summarized-tools-1', compactor: new ThresholdCompactor({ toolCompaction: 'summarize', keepRecentTurns: 1 }) },
  ];
  const sessions = new Map();

  function newSession(id) {
    const session = {
      id,
      turn: 0,
      pendingToolCalls: [],
      queue: Promise.resolve(),
      compaction: null,
      // Whether ctx.contextUsed is the upstream's figure (which includes the
      // system prompt and tools) rather than an estimate of the messages only.
      figureFresh: false,
      // Upstream prompt_tokens / our estimate of the same request, at least 1:
      // makes estimates safe when the estimate runs low for this content.
      ratio: 1,
      generation: 0,
      stats: { upstreamRequests: 0, compactedViews: 0, waitedForSummary: 0, compactions: [], maxPromptTokens: 0 },
    };
    const summarize = config.summarize ?? openAISummarizer({
      baseURL: config.upstreamBaseURL,
      apiKey: config.apiKey || undefined,
      model: config.summaryModel,
      fetch: config.fetch,
      headers: { 'x-session-id': id },
    });
    const compactor = config.strategy === 'llm'
      ? { type: 'llm', summarize, threshold: config.threshold, keepRecentTurns: config.keepRecentTurns, summaryTimeoutMs: config.summaryTimeoutMs, fallback: { toolCompaction: 'summarize', keepRecentTurns: config.keepRecentTurns } }
      : { type: 'threshold', threshold: config.threshold, keepRecentTurns: config.keepRecentTurns, toolCompaction: 'summarize' };
    session.options = {
      contextLimit: promptBudget,
      // The system prompt and the tools are sent besides the messages: keep room for them.
      reserveTokens: Math.min(overhead, promptBudget - 1),
      compactor,
      onEvent: (event) => {
        if (event.type === 'compaction_started') return;
        session.generation += 1;
        session.figureFresh = false;
        session.stats.compactions.push({
          type: event.type, strategy: event.strategy, fallback: event.fallback, tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter, messagesBefore: event.messagesBefore, messagesAfter: event.messagesAfter,
          durationMs: Math.round(event.durationMs), error: event.error?.code,
        });
        config.log(`[${id}] ${event.message}`);
      },
    };
    session.ctx = new ContextManager(session.options);
    sessions.set(id, session);
    return session;
  }

  /** Starts a compaction when over the threshold; LLM summaries run in the background. */
  function kickCompaction(session) {
    if (session.ctx.isCompacting || !session.ctx.shouldCompact()) return;
    const flight = session.ctx.maybeCompact().finally(() => {
      if (session.compaction === flight) session.compaction = null;
    });
    session.compaction = flight;
    return flight;
  }

  /** Our estimate of a request: messages + system prompt and tools, before correction. */
  const rawEstimate = (messages) => estimateTokens(messages) + overhead;
  const estimateRequest = (session, messages) => Math.ceil(rawEstimate(messages) * session.ratio);

  /** The messages to send: the conversation, or a compacted copy that fits the budget. */
  async function requestMessages(session) {
    for (let attempt = 0; ; attempt++) {
      const messages = session.ctx.messages();
      const tokens = session.figureFresh ? session.ctx.contextUsed : estimateRequest(session, messages);
      if (tokens <= promptBudget) return { messages, view: 'full', raw: rawEstimate(messages) };
      for (const { name, compactor } of views) {
        const view = compactor.compact(messages).messages;
        if (estimateRequest(session, view) <= promptBudget) {
          session.stats.compactedViews += 1;
          return { messages: view, view: name, raw: rawEstimate(view) };
        }
      }
      // Still too large: the summary is the only way down.
      if (attempt > 0) break;
      session.stats.waitedForSummary += 1;
      if (session.ctx.isCompacting) await (session.compaction ?? session.ctx.maybeCompact());
      else await session.ctx.forceCompact().catch(() => {});
    }
    throw new HttpError(413, 'CONTEXT_FULL', `the conversation does not fit in ${promptBudget} prompt tokens even after compaction`);
  }

  async function callUpstream(session, messages) {
    const body = { model: config.model, messages: toOpenAI(messages, system), max_tokens: config.maxOutputTokens };
    if (config.tools) body.tools = config.tools;
    const headers = { 'content-type': 'application/json', 'x-session-id': session.id };
    if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
    let response;
    let text;
    try {
      response = await config.fetch(`${config.upstreamBaseURL}/chat/completions`, {
        method: 'POST', headers, body: JSON.stringify(body), signal: AbortSignal.timeout(config.upstreamTimeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new HttpError(502, 'UPSTREAM_UNREACHABLE', `upstream request failed: ${error.message}${error.cause?.code ? ` (${error.cause.code})` : ''}`);
    }
    const scrub = (s) => (config.apiKey ? String(s).split(config.apiKey).join('[redacted]') : String(s));
    let json;
    try { json = JSON.parse(text); } catch { json = undefined; }
    if (!response.ok) {
      const message = json?.error?.message ?? text.slice(0, 500);
      throw new HttpError(502, 'UPSTREAM_ERROR', `upstream answered ${response.status}: ${scrub(message)}`, { upstreamStatus: response.status });
    }
    const choice = json?.choices?.[0];
    if (!choice?.message) throw new HttpError(502, 'UPSTREAM_ERROR', `upstream answered without choices[0].message: ${scrub(text.slice(0, 200))}`);
    return { choice, usage: json.usage ?? null };
  }

  /** The messages the client's request adds to the session (validated, not yet pushed). */
  function incoming(session, body) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badInput('body', 'expected a JSON object');
    for (const key of Object.keys(body)) {
      if (key !== 'message' && key !== 'tool_results') throw badInput(key, 'unknown field (expected "message" and/or "tool_results")');
    }
    const { message, tool_results: results } = body;
    if (message !== undefined && (typeof message !== 'string' || message === '')) throw badInput('message', 'expected a non-empty string');
    if (results !== undefined && !Array.isArray(results)) throw badInput('tool_results', 'expected an array');
    if (message === undefined && (results === undefined || results.length === 0)) throw badInput('body', 'expected "message" or "tool_results"');
    const out = [];
    const pending = session.pendingToolCalls;
    if (pending.length > 0 && results === undefined) {
      throw badInput('tool_results', `the assistant called tools ${pending.join(', ')}: post their results first`);
    }
    if (results !== undefined) {
      if (pending.length === 0) throw badInput('tool_results', 'no tool call is waiting for a result');
      const seen = new Set();
      const blocks = results.map((r, i) => {
        const path = `tool_results[${i}]`;
        if (r === null || typeof r !== 'object') throw badInput(path, 'expected an object');
        if (!pending.includes(r.tool_call_id)) throw badInput(`${path}.tool_call_id`, `expected one of ${pending.join(', ')}, got ${JSON.stringify(r.tool_call_id)}`);
        if (seen.has(r.tool_call_id)) throw badInput(`${path}.tool_call_id`, `${r.tool_call_id} answered twice`);
        seen.add(r.tool_call_id);
        if (typeof r.content !== 'string') throw badInput(`${path}.content`, 'expected a string');
        if (r.summary !== undefined && typeof r.summary !== 'string') throw badInput(`${path}.summary`, 'expected a string');
        if (r.is_error !== undefined && typeof r.is_error !== 'boolean') throw badInput(`${path}.is_error`, 'expected a boolean');
        return {
          type: 'tool_result', tool_use_id: r.tool_call_id, content: r.content, is_error: r.is_error ?? false,
          compact_summary: r.summary ?? defaultCompactSummary(r.content),
        };
      });
      const missing = pending.filter((id) => !seen.has(id));
      if (missing.length > 0) throw badInput('tool_results', `missing results for ${missing.join(', ')}`);
      out.push({ role: 'user', turn_id: { owner: 'a', number: session.turn }, content: blocks });
    }
    if (message !== undefined) {
      out.push({ role: 'user', turn_id: { owner: 'u', number: session.turn + 1 }, content: [{ type: 'text', text: message }] });
    }
    return out;
  }

  /** One client request: push, compact, ask the upstream, push its reply. */
  async function converse(session, body) {
    const added = incoming(session, body).map((m) => ({ ...m, id: randomUUID() }));
    session.ctx.pushMany(added); // throws CompactionError INVALID_INPUT; all or nothing
    const undo = { pendingToolCalls: session.pendingToolCalls, turn: session.turn };
    session.pendingToolCalls = [];
    if (added.some((m) => m.turn_id.owner === 'u')) session.turn += 1;

    if (config.strategy === 'threshold') await kickCompaction(session);
    else kickCompaction(session);
    let request;
    try {
      request = await requestMessages(session);
    } catch (error) {
      if (error.code === 'CONTEXT_FULL') rollBack(session, added, undo);
      throw error;
    }
    const { messages, view, raw } = request;
    const generation = session.generation;
    session.stats.upstreamRequests += 1;
    const { choice, usage } = await callUpstream(session, messages);

    const promptTokens = usage?.prompt_tokens;
    if (Number.isInteger(promptTokens) && promptTokens > 0) {
      session.stats.maxPromptTokens = Math.max(session.stats.maxPromptTokens, promptTokens);
      // Trust the latest observation, but let a high ratio fade only slowly.
      session.ratio = Math.max(1, promptTokens / raw, session.ratio * 0.98);
      // The figure describes the whole conversation only if that is what was
      // sent and no compaction changed it while the request was out.
      if (view === 'full' && generation === session.generation) {
        session.ctx.setContextUsed(promptTokens);
        session.figureFresh = true;
      }
    }

    const reply = choice.message;
    const [, assistant] = fromOpenAI([{ role: 'user', content: '.' }, { ...reply, role: 'assistant' }]).messages;
    if (assistant && assistant.content.length > 0) {
      session.ctx.push({ ...assistant, turn_id: { owner: 'a', number: session.turn } });
      session.pendingToolCalls = assistant.content.filter((b) => b.type === 'tool_use').map((b) => b.id);
    }
    if (config.strategy === 'llm') kickCompaction(session);

    const out = { role: 'assistant', content: reply.content ?? null };
    if (Array.isArray(reply.tool_calls) && reply.tool_calls.length > 0) out.tool_calls = reply.tool_calls;
    return { reply: out, finish_reason: choice.finish_reason ?? null, usage, context: contextInfo(session, view) };
  }

  /**
   * Takes back the messages of a request that cannot be sent at all, so that the
   * session stays usable (e.g. with a shorter message). The ContextManager has no
   * method to remove messages: the session is rebuilt from its own toJSON().
   * Only called when no summary is in flight (requestMessages waited for it).
   */
  function rollBack(session, added, undo) {
    const state = session.ctx.toJSON();
    const tail = state.messages.slice(-added.length).map((m) => m.id);
    if (session.ctx.isCompacting || tail.join() !== added.map((m) => m.id).join()) return;
    state.messages = state.messages.slice(0, -added.length);
    const old = session.ctx;
    session.ctx = ContextManager.fromJSON(state, session.options);
    old.free();
    session.pendingToolCalls = undo.pendingToolCalls;
    session.turn = undo.turn;
    session.figureFresh = false;
  }

  function contextInfo(session, view) {
    return {
      used: session.ctx.contextUsed,
      limit: promptBudget,
      window: config.contextLimit,
      compacting: session.ctx.isCompacting,
      ...(view ? { sent: view } : {}),
    };
  }

  function describe(session, withMessages) {
    const messages = session.ctx.messages();
    return {
      id: session.id,
      turns: session.turn,
      messages: messages.length,
      summaries: messages.filter((m) => m.summary_of).length,
      pendingToolCalls: session.pendingToolCalls,
      context: contextInfo(session),
      stats: session.stats,
      ...(withMessages ? { conversation: messages } : {}),
    };
  }

  /** Runs `task` after the session's previous requests (one at a time per session). */
  function serialized(session, task) {
    const run = session.queue.then(task, task);
    session.queue = run.catch(() => {});
    return run;
  }

  async function route(req, url) {
    const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (req.method === 'GET' && url.pathname === '/health') return [200, { ok: true }];
    if (parts[0] !== 'sessions' || parts.length < 2 || parts.length > 3) throw new HttpError(404, 'NOT_FOUND', `no route ${req.method} ${url.pathname}`);
    const id = parts[1];
    if (parts.length === 3 && parts[2] === 'messages' && req.method === 'POST') {
      if (!/^[\w.:-]{1,128}$/.test(id)) throw badInput('session', 'expected 1 to 128 characters among letters, digits, _ . : -');
      const body = await readJson(req);
      const session = sessions.get(id) ?? newSession(id);
      return [200, await serialized(session, () => converse(session, body))];
    }
    if (parts.length === 2) {
      const session = sessions.get(id);
      if (!session) throw new HttpError(404, 'NOT_FOUND', `no session ${id}`);
      if (req.method === 'GET') return [200, describe(session, url.searchParams.get('messages') === '1')];
      if (req.method === 'DELETE') {
        sessions.delete(id);
        await serialized(session, () => session.compaction);
        session.ctx.free();
        return [200, { deleted: id }];
      }
    }
    throw new HttpError(404, 'NOT_FOUND', `no route ${req.method} ${url.pathname}`);
  }

  const server = http.createServer(async (req, res) => {
    let status;
    let payload;
    try {
      [status, payload] = await route(req, new URL(req.url, 'http://localhost'));
    } catch (error) {
      if (error instanceof HttpError) {
        status = error.status;
        payload = { error: { code: error.code, message: error.message, ...(error.path ? { path: error.path } : {}), ...(error.upstreamStatus ? { upstreamStatus: error.upstreamStatus } : {}) } };
      } else if (error instanceof CompactionError) {
        status = error.code === 'INVALID_INPUT' ? 400 : 502;
        payload = { error: { code: error.code, message: error.message, ...(error.path ? { path: error.path } : {}) } };
      } else {
        status = 500;
        payload = { error: { code: 'INTERNAL', message: String(error?.message ?? error) } };
        config.log(`internal error: ${error?.stack ?? error}`);
      }
    }
    const text = JSON.stringify(payload);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });
  const { address, port } = server.address();
  return {
    url: `http://${address}:${port}`,
    sessions,
    async close() {
      await new Promise((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      // A summary still being written is abandoned: its answer will find no session.
      for (const s of sessions.values()) s.ctx.free();
      sessions.clear();
      for (const v of views) v.compactor.free();
    },
  };
}

async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpError(413, 'TOO_LARGE', `request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw badInput('body', `not JSON (${error.message})`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = await createAgentServer({ port: Number(process.env.PORT ?? 8787), log: (line) => console.log(line) });
  console.log(`agent server listening on ${server.url}`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
