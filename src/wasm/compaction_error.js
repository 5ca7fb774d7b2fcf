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
