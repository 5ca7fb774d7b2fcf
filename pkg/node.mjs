// Node entry point: loads the wasm module synchronously (no top-level await), so that both
// `import { ... } from 'context-compactor'` and `require('context-compactor')` work.
import { readFileSync } from 'node:fs';
import { initSync } from './context_compactor.js';

initSync({ module: readFileSync(new URL('./context_compactor_bg.wasm', import.meta.url)) });

export * from './context_compactor.js';
