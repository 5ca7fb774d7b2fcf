// A real HTTP server on 127.0.0.1 speaking the two wire formats the package's
// summarizers (and the official SDKs) use:
//   POST /v1/chat/completions  OpenAI Chat Completions
//   POST /v1/messages          Anthropic Messages
// It records every request and answers according to a scripted mode:
//   setMode('success', { text })        a normal completion whose text is `text`
//   setMode('error', { status, echoKey }) an error with the provider's JSON error body
//                                       (429 → rate_limit_error, 500 → api_error); with
//                                       echoKey (default true) the body quotes the API key
//                                       the client sent, to prove the client scrubs it
//   setMode('malformed')                status 200, content-type JSON, a body that is not JSON
//   setMode('empty', { text })          a well-formed completion whose text is '' (or `text`)
//   setMode('slow')                     never answers; when the client closes the
//                                       connection it is recorded in `closedConnections`
// Any other path answers 404.
// With start({ cors: true }) every response carries CORS headers and OPTIONS preflights
// are answered 204 (recorded in `preflights`), so a page in a browser can call it.
import http from 'node:http';

export const DEFAULT_SUMMARY_TEXT = 'The user asked for a fix; the assistant inspected files and ran tests.';

function apiKeyOf(headers) {
  if (typeof headers['x-api-key'] === 'string') return headers['x-api-key'];
  const auth = headers.authorization;
  if (typeof auth === 'string' && auth.startsWith('Bearer ')) return auth.slice('Bearer '.length);
  return '';
}

function sendJson(res, status, value, extraHeaders = {}) {
  const body = typeof value === 'string' ? value : JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...extraHeaders,
  });
  res.end(body);
}

function openAICompletion(model, text) {
  return {
    id: 'chatcmpl-test-1',
    object: 'chat.completion',
    created: 1735732800,
    model,
    choices: [{
      index: 0,
      message: { role: 'assistant', content: text, refusal: null },
      logprobs: null,
      finish_reason: 'stop',
    }],
    usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  };
}

function anthropicMessage(model, text) {
  return {
    id: 'msg_test_1',
    type: 'message',
    role: 'assistant',
    model,
    content: text === '' ? [] : [{ type: 'text', text }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 100, output_tokens: 20 },
  };
}

function errorBody(api, status, key, echoKey) {
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  const what = status === 429 ? 'Rate limit exceeded' : status >= 500 ? 'Internal server error' : 'Bad request';
  const message = echoKey ? `${what} for API key ${key} (status ${status}).` : `${what} (status ${status}).`;
  return api === 'openai'
    ? { error: { message, type, param: null, code: type } }
    : { type: 'error', error: { type, message } };
}

const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access',
  'access-control-max-age': '0',
};

export async function start({ cors = false } = {}) {
  const requests = [];
  const preflights = [];
  const closedConnections = [];
  let mode = { kind: 'success', text: DEFAULT_SUMMARY_TEXT };

  const server = http.createServer((req, res) => {
    if (cors) {
      for (const [name, value] of Object.entries(CORS_HEADERS)) res.setHeader(name, value);
      if (req.method === 'OPTIONS') {
        preflights.push({ url: req.url, headers: { ...req.headers }, at: Date.now() });
        res.writeHead(204);
        res.end();
        return;
      }
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try { body = raw === '' ? undefined : JSON.parse(raw); } catch { body = undefined; }
      const record = { method: req.method, url: req.url, headers: { ...req.headers }, body, raw, at: Date.now() };
      requests.push(record);

      const path = req.url.split('?')[0];
      const api = path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : null;
      if (req.method !== 'POST' || api === null) {
        sendJson(res, 404, { error: { message: `no route ${req.method} ${req.url}`, type: 'not_found' } });
        return;
      }
      const model = body?.model ?? 'unknown';
      const key = apiKeyOf(req.headers);
      switch (mode.kind) {
        case 'success':
          sendJson(res, 200, api === 'openai' ? openAICompletion(model, mode.text) : anthropicMessage(model, mode.text));
          return;
        case 'empty': {
          const text = mode.text ?? '';
          sendJson(res, 200, api === 'openai' ? openAICompletion(model, text) : anthropicMessage(model, text));
          return;
        }
        case 'error':
          sendJson(res, mode.status, errorBody(api, mode.status, key, mode.echoKey !== false),
            mode.status === 429 ? { 'retry-after': '0' } : {});
          return;
        case 'malformed':
          sendJson(res, 200, '{"id": "broken", "choices": [{"message": {"content": "trunc');
          return;
        case 'slow': {
          const opened = Date.now();
          let recorded = false;
          const onClose = (source) => {
            if (recorded) return;
            recorded = true;
            closedConnections.push({ url: req.url, source, afterMs: Date.now() - opened });
          };
          res.on('close', () => onClose('res'));
          req.socket.on('close', () => onClose('socket'));
          // Keep the response open: no headers, no body, no end.
          return;
        }
        default:
          sendJson(res, 500, { error: { message: `unknown mode ${mode.kind}` } });
      }
    });
  });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();

  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    preflights,
    closedConnections,
    /** Sets the behaviour for the following requests. */
    setMode(kind, options = {}) {
      mode = { kind, ...options };
      if (kind === 'success' && mode.text === undefined) mode.text = DEFAULT_SUMMARY_TEXT;
    },
    /** Forgets recorded requests and closed connections, back to success mode. */
    reset() {
      requests.length = 0;
      preflights.length = 0;
      closedConnections.length = 0;
      mode = { kind: 'success', text: DEFAULT_SUMMARY_TEXT };
    },
    /** Waits until `closedConnections` has at least `n` entries, or `timeoutMs` elapsed. */
    async waitForClosed(n = 1, timeoutMs = 2000) {
      const deadline = Date.now() + timeoutMs;
      while (closedConnections.length < n && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      return closedConnections.length >= n;
    },
    stop() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
