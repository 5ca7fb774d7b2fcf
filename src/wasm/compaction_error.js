// The error every failure of context-compactor is reported with.
export class CompactionError extends Error {
  constructor(message, code, details) {
    super(message, details && 'cause' in details ? { cause: details.cause } : undefined);
    this.name = 'CompactionError';
    this.code = code;
    if (details && details.path !== undefined) this.path = details.path;
    if (details && details.status !== undefined) this.status = details.status;
  }
}

// A `CompactionError` with `path`, `status` and `cause` where given (`hasCause`: a
// cause may be undefined), in one call from wasm.
export function compactionError(message, code, path, status, hasCause, cause) {
  const details = {};
  if (path !== undefined) details.path = path;
  if (status !== undefined) details.status = status;
  if (hasCause) details.cause = cause;
  return new CompactionError(message, code, details);
}
