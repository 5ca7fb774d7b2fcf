// The HTTP proxy Chromium uses in the wasm browser tests (scripts/test.sh).
//
//   node scripts/wasm-test-proxy.mjs scripts/webdriver.json OUT.json
//
// Listens on a free 127.0.0.1 port, writes OUT.json (the capabilities, with --proxy-server
// pointing here) and runs until killed.
//
// Why: wasm-bindgen-test-runner serves the test page with tiny_http 0.12, which gives each
// connection a pool thread for as long as the connection lives, and whose pool can queue a
// new connection while all its threads wait on idle keep-alive ones. Chromium opens several
// connections at once for the page's module imports; one import then goes unanswered and the
// page never loads. Here every request reaches the runner on a connection of its own, with
// `Connection: close`, so no connection keeps a thread after its response.
import http from 'node:http';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const [capabilitiesIn, capabilitiesOut] = process.argv.slice(2);
if (!capabilitiesIn || !capabilitiesOut) {
  console.error('usage: node scripts/wasm-test-proxy.mjs WEBDRIVER_JSON OUT_JSON');
  process.exit(2);
}

/** Headers that describe one connection; they are not forwarded. */
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer',
  'transfer-encoding', 'upgrade',
]);

function endToEnd(rawHeaders) {
  const out = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (!HOP_BY_HOP.has(rawHeaders[i].toLowerCase())) out.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return out;
}

function refuse(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
  res.end(text);
}

const server = http.createServer((req, res) => {
  let target;
  try {
    target = new URL(req.url);
  } catch {
    return refuse(res, 400, 'a proxy request needs an absolute URL');
  }
  // Only the runner's server on loopback; anything else Chromium tries goes nowhere.
  if (target.protocol !== 'http:' || target.hostname !== '127.0.0.1') {
    return refuse(res, 403, `not forwarded: ${target.origin}`);
  }
  const upstream = http.request({
    host: '127.0.0.1',
    port: target.port || 80,
    method: req.method,
    path: target.pathname + target.search,
    headers: [...endToEnd(req.rawHeaders), 'Connection', 'close'],
    agent: false,
  }, (answer) => {
    res.writeHead(answer.statusCode, answer.statusMessage, endToEnd(answer.rawHeaders));
    answer.pipe(res);
  });
  upstream.on('error', (err) => {
    if (res.headersSent) res.destroy(err);
    else refuse(res, 502, `runner's server: ${err.message}`);
  });
  req.pipe(upstream);
});
// No tunnels (https, websockets): the tests only load the runner's page.
server.on('connect', (_req, socket) => socket.end('HTTP/1.1 403 Forbidden\r\n\r\n'));

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  const capabilities = JSON.parse(readFileSync(capabilitiesIn, 'utf8'));
  const options = (capabilities['goog:chromeOptions'] ??= {});
  // <-loopback>: Chromium sends 127.0.0.1 through the proxy too (it bypasses it by default).
  options.args = [...(options.args ?? []), `--proxy-server=http://127.0.0.1:${port}`, '--proxy-bypass-list=<-loopback>'];
  // Written whole, then renamed: the file appears once the proxy is listening.
  writeFileSync(`${capabilitiesOut}.tmp`, JSON.stringify(capabilities, null, 2));
  renameSync(`${capabilitiesOut}.tmp`, capabilitiesOut);
});
