// A mock upstream LLM for the agent server test: a real node:http server on
// 127.0.0.1 speaking OpenAI Chat Completions (POST /v1/chat/completions).
//
// Two kinds of request, told apart by the system prompt (as a real deployment
// would see them):
//   - summary requests (system prompt === `summaryPrompt`): answered with a
//     deterministic "summary" that lists every marker `[[m<n>]]` (and marker
//     range `[[m<a>..m<b>]]`) found in the prompt, but in the user messages it
//     marks as kept verbatim after the summary, as ranges. So a later test can
//     tell from the summary text exactly which client messages it covers.
//     The answer is held back until `holdSummary(n)` further chat requests of the
//     same session have been answered (n-th summary of that session, 0-based),
//     or until `holdTimeoutMs` passed; which of the two released it is recorded.
//   - chat requests: if the last message is a user message asking to
//     "run <k> tools", the reply calls k tools (ids unique in the process);
//     otherwise a short text reply. Deterministic.
// Every reply reports `usage.prompt_tokens`, counted with js-tiktoken o200k_base
// the way OpenAI documents for chat models: 3 tokens per message + its role,
// content, name, tool call names/arguments and tool_call_id, + 3 for priming the
// reply, + the JSON of the `tools` definitions. This counter is the ground truth
// of the test: a request whose prompt_tokens + max_tokens exceed `contextWindow`
// is refused with OpenAI's 400 `context_length_exceeded`, as a real API does.
//
// The session of a request is read from the `x-session-id` header.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kBase from 'js-tiktoken/ranks/o200k_base';

let encoder;
function encoderOnce() {
  encoder ??= new Tiktoken(o200kBase);
  return encoder;
}

/** Parses markers and marker ranges in `text` into a set of numbers. */
export function markersIn(text) {
  const found = new Set();
  for (const m of String(text).matchAll(/\[\[m(\d+)(?:\.\.m(\d+))?\]\]/g)) {
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    for (let n = a; n <= b; n++) found.add(n);
  }
  return found;
}

/** A set of numbers as compact marker ranges: `[[m1..m9]] [[m12]]`. */
export function markerRanges(set) {
  const sorted = [...set].sort((x, y) => x - y);
  const parts = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `[[m${sorted[i]}]]` : `[[m${sorted[i]}..m${sorted[j]}]]`);
    i = j + 1;
  }
  return parts.join(' ');
}

function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : p?.text ?? '')).join('');
  return '';
}

export async function startAgentUpstream({
  summaryPrompt,
  contextWindow,
  holdSummary = () => 0,
  holdTimeoutMs = 5000,
} = {}) {
  if (typeof summaryPrompt !== 'string') throw new TypeError('summaryPrompt is required');
  const enc = encoderOnce();
  const cache = new Map();
  const count = (text) => {
    if (text === '') return 0;
    let n = cache.get(text);
    if (n === undefined) {
      n = enc.encode(text).length;
      cache.set(text, n);
    }
    return n;
  };
  const promptTokens = (body) => {
    let n = 3;
    for (const m of body.messages ?? []) {
      n += 3 + count(m.role ?? '') + count(contentText(m.content));
      if (m.name) n += 1 + count(m.name);
      if (m.tool_call_id) n += count(m.tool_call_id);
      for (const c of m.tool_calls ?? []) n += 3 + count(c.id ?? '') + count(c.function?.name ?? '') + count(c.function?.arguments ?? '');
    }
    if (Array.isArray(body.tools) && body.tools.length > 0) n += count(JSON.stringify(body.tools));
    return n;
  };

  /** Every request: { kind, session, body, promptTokens, status, receivedAt, respondedAt, releasedBy? } */
  const requests = [];
  /** Held summaries: { record, remaining, release } */
  const held = [];
  const summariesBySession = new Map();
  const failures = [];
  let nextCall = 0;
  let nextCompletion = 0;

  const send = (record, res, status, value) => {
    const body = JSON.stringify(value);
    record.status = status;
    record.respondedAt = performance.now();
    if (res.destroyed) return;
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  const completion = (model, message, prompt, finish) => ({
    id: `chatcmpl-mock-${++nextCompletion}`,
    object: 'chat.completion',
    created: 1735732800,
    model,
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, logprobs: null, finish_reason: finish }],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: count(message.content ?? '') + (message.tool_calls ?? []).reduce((s, c) => s + count(c.function.arguments), 0),
      total_tokens: 0,
    },
  });

  const onChatAnswered = (session) => {
    for (const h of [...held]) {
      if (h.record.session !== session) continue;
      h.remaining -= 1;
      if (h.remaining <= 0) h.release('chat');
    }
  };

  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const receivedAt = performance.now();
      let body;
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { body = undefined; }
      const session = req.headers['x-session-id'] ?? null;
      const record = { kind: 'other', session, body, promptTokens: 0, status: 0, receivedAt, respondedAt: null };
      requests.push(record);
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions' || !Array.isArray(body?.messages)) {
        send(record, res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } });
        return;
      }
      if (req.headers.authorization !== 'Bearer test-upstream-key') {
        send(record, res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
        return;
      }
      record.promptTokens = promptTokens(body);
      const model = body.model;
      const first = body.messages[0];
      if (first?.role === 'system' && contentText(first.content) === summaryPrompt) {
        record.kind = 'summary';
        const n = summariesBySession.get(session) ?? 0;
        summariesBySession.set(session, n + 1);
        // As the prompt asks, messages kept verbatim after the summary are not restated.
        const prompt = body.messages.map((m) => contentText(m.content)).join('\n');
        const covered = markersIn(prompt.split('\n').filter((line) => !line.startsWith('User (kept verbatim): ')).join('\n'));
        const text = `The user and the assistant went through ${covered.size} messages. Covered: ${markerRanges(covered)}`;
        record.covered = covered;
        let done = false;
        const h = { record, remaining: holdSummary(n), release: null };
        const timer = setTimeout(() => h.release('timeout'), holdTimeoutMs);
        h.release = (by) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          held.splice(held.indexOf(h), 1);
          record.releasedBy = by;
          send(record, res, 200, completion(model, { content: text }, record.promptTokens, 'stop'));
        };
        held.push(h);
        res.on('close', () => { if (!done) h.release('closed'); });
        if (h.remaining <= 0) h.release('chat');
        return;
      }
      record.kind = 'chat';
      if (failures.length > 0) {
        const status = failures.shift();
        send(record, res, status, { error: { message: `mock failure (status ${status})`, type: 'api_error', code: null } });
        return;
      }
      if (record.promptTokens + (body.max_tokens ?? 0) > contextWindow) {
        send(record, res, 400, {
          error: {
            message: `This model's maximum context length is ${contextWindow} tokens. However, you requested ${record.promptTokens + (body.max_tokens ?? 0)} tokens.`,
            type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded',
          },
        });
        return;
      }
      const last = body.messages[body.messages.length - 1];
      const ask = last?.role === 'user' ? /run (\d+) tools?/.exec(contentText(last.content)) : null;
      let message;
      if (ask) {
        const calls = [];
        for (let i = 0; i < Number(ask[1]); i++) {
          const k = ++nextCall;
          calls.push({ id: `call_${k}`, type: 'function', function: { name: i % 2 ? 'grep' : 'read_file', arguments: JSON.stringify(i % 2 ? { pattern: `fn_${k}`, path: 'src/' } : { path: `src/module_${k}.rs` }) } });
        }
        message = { content: calls.length === 1 ? 'Let me look at that file.' : null, tool_calls: calls };
      } else if (last?.role === 'tool') {
        message = { content: `I read the tool output. The module compiles and its tests pass; nothing else to change (${nextCompletion}).` };
      } else {
        message = { content: `Noted. Anything else you would like me to look at? (${nextCompletion})` };
      }
      send(record, res, 200, completion(model, message, record.promptTokens, message.tool_calls ? 'tool_calls' : 'stop'));
      onChatAnswered(session);
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey: 'test-upstream-key',
    requests,
    promptTokens,
    /** The next `n` chat requests fail with `status`. */
    failNext(n, status = 500) {
      for (let i = 0; i < n; i++) failures.push(status);
    },
    close() {
      for (const h of [...held]) h.release('closed');
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
