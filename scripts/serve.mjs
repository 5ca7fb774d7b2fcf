// A tiny static file server for the demo page (www/), bound to 127.0.0.1.
//
//   node scripts/serve.mjs            # PORT from the environment, else 8080; a free port if busy
//   PORT=0 node scripts/serve.mjs     # any free port
//
// Tests import `serve()` and stop the server themselves.
import http from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

export const WWW_DIR = fileURLToPath(new URL('../www/', import.meta.url));

function send(res, status, text) {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** The file a URL path names inside `root`, or null when it would leave `root`. */
function fileFor(root, urlPath) {
  let path;
  try { path = decodeURIComponent(urlPath.split('?')[0].split('#')[0]); } catch { return null; }
  if (path.endsWith('/')) path += 'index.html';
  const file = resolve(root, '.' + path);
  return file === root || file.startsWith(root.endsWith(sep) ? root : root + sep) ? file : null;
}

function handler(root) {
  return async (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      send(res, 405, 'method not allowed\n');
      return;
    }
    const file = fileFor(root, req.url);
    if (file === null) { send(res, 403, 'forbidden\n'); return; }
    let info;
    try { info = await stat(file); } catch { send(res, 404, `not found: ${req.url}\n`); return; }
    if (info.isDirectory()) {
      res.writeHead(301, { location: req.url.split('?')[0] + '/' });
      res.end();
      return;
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-length': info.size,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    if (req.method === 'HEAD') { res.end(); return; }
    createReadStream(file).on('error', () => res.destroy()).pipe(res);
  };
}

function listen(server, port, host) {
  return new Promise((ok, fail) => {
    const onError = (err) => { server.off('listening', onListening); fail(err); };
    const onListening = () => { server.off('error', onError); ok(); };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(port, host);
  });
}

/**
 * Serves `root` on `host:port`; when `port` is busy and `fallback` is set, on a free port.
 * Resolves to `{ url, port, close() }`.
 */
export async function serve({ root = WWW_DIR, port = 8080, host = '127.0.0.1', fallback = true } = {}) {
  const absRoot = resolve(root);
  const server = http.createServer(handler(absRoot));
  try {
    await listen(server, port, host);
  } catch (err) {
    if (err.code !== 'EADDRINUSE' || !fallback || port === 0) throw err;
    console.error(`port ${port} is busy: using a free port instead`);
    await listen(server, 0, host);
  }
  const actual = server.address().port;
  return {
    url: `http://${host}:${actual}/`,
    port: actual,
    close() {
      server.closeAllConnections();
      return new Promise((done) => server.close(() => done()));
    },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = process.env.PORT === undefined || process.env.PORT === '' ? 8080 : Number(process.env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
    process.exit(2);
  }
  const { url, close } = await serve({ port });
  console.log(`\nDemo page: ${url}\n(serving ${join('www', '')} on 127.0.0.1; Ctrl-C to stop)`);
  const stop = () => { close().then(() => process.exit(0)); };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
