// The `fetch` of the package's summarizers in one call from wasm: the request
// made and sent, and the reply's text read. Resolves to `[status, text]` (text
// '' when `text()` gave something else); rejects with `[what, thrown]`: `what`
// the step that failed ('fetch threw', 'fetch failed', 'reading the reply
// failed'), '' for a value that is not a Response (`thrown`: that value), or
// undefined when making the request threw.

// What `value` settles to: a thenable's `then` runs in a job of a new promise.
const settled = (value) => new Promise((resolve) => resolve(value));

export async function fetchText(fetch, url, method, headers, body, signal) {
  let init;
  try {
    init = {};
    init.method = method;
    init.headers = headers;
    // A copy: `body` is a view of wasm memory.
    init.body = body.slice();
    init.signal = signal;
  } catch (thrown) {
    throw [undefined, thrown];
  }
  let response;
  try {
    response = fetch.call(undefined, url, init);
  } catch (thrown) {
    throw ['fetch threw', thrown];
  }
  try {
    response = await settled(response);
  } catch (thrown) {
    throw ['fetch failed', thrown];
  }
  // A custom fetch may resolve to anything: what is not a Response says so.
  let status;
  let text;
  try {
    status = Reflect.get(response, 'status');
    if (typeof status === 'number') text = Reflect.get(response, 'text');
  } catch {
    text = undefined;
  }
  if (typeof text !== 'function') throw ['', response];
  let reply;
  try {
    reply = await settled(text.call(response));
  } catch (thrown) {
    throw ['reading the reply failed', thrown];
  }
  return [status, typeof reply === 'string' ? reply : ''];
}
