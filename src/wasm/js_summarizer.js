// A call of the user's `summarize` function, for `js_summarizer.rs`: resolves to the
// summary (a string); rejects with `[step, value, …]` when there is none:
//   [0, thrown]                 making `{ system, prompt, maxTokens, signal }` threw
//   [1, thrown]                 `summarize` threw
//   [2, thrown]                 what it returned rejected
//   [3, value]                  it resolved to `value`, not a string
//   [4, message, status, cause] it rejected with a `CompactionError` (one of the package's
//                               own summarizers): its message without "LLM error: ", its
//                               status if a number, and its cause (else the error itself)
// One that rejected with an `EMPTY_SUMMARY` `CompactionError` resolves to ''.

// `object[key]`, undefined if reading it throws.
function get(object, key) {
  try {
    return Reflect.get(object, key);
  } catch {
    return undefined;
  }
}

export async function callSummarize(summarize, system, prompt, maxTokens, signal) {
  const args = {};
  try {
    args.system = system;
    args.prompt = prompt;
    args.maxTokens = maxTokens;
    args.signal = signal;
  } catch (thrown) {
    throw [0, thrown];
  }
  let returned;
  try {
    returned = summarize.call(undefined, args);
  } catch (thrown) {
    throw [1, thrown];
  }
  let value;
  try {
    // As `await returned`, but a promise's own `then` is called too.
    value = await new Promise((resolve) => resolve(returned));
  } catch (error) {
    if (!(error instanceof Error) || get(error, 'name') !== 'CompactionError') throw [2, error];
    // A `CompactionError` keeps its meaning: an empty reply stays `EMPTY_SUMMARY`,
    // an HTTP error keeps its status.
    if (get(error, 'code') === 'EMPTY_SUMMARY') return '';
    let message = get(error, 'message');
    message = typeof message !== 'string' ? '' : message.startsWith('LLM error: ') ? message.slice(11) : message;
    const status = get(error, 'status');
    const cause = get(error, 'cause');
    throw [4, message, typeof status === 'number' ? status : undefined, cause === undefined ? error : cause];
  }
  if (typeof value !== 'string') throw [3, value];
  return value;
}
