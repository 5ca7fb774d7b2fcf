// Browser (and bundler) entry point: fetches and instantiates the wasm module next to this file.
import init from './context_compactor.js';

await init({ module_or_path: new URL('./context_compactor_bg.wasm', import.meta.url) });

export * from './context_compactor.js';
