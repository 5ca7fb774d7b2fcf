// Usage: node scripts/check-wasm.mjs <file.wasm>
// Checks that a module compiles and instantiates against the wasm-bindgen glue in pkg/.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/check-wasm.mjs <file.wasm>');
  process.exit(2);
}
const root = new URL('..', import.meta.url);
const glue = await import(new URL('pkg/context_compactor.js', root).href);
const bytes = readFileSync(resolve(file));
try {
  const module = await WebAssembly.compile(bytes);
  glue.initSync({ module });
  console.log(`ok: ${file} compiles and instantiates (${bytes.length} bytes)`);
} catch (err) {
  console.error(`error: ${file} does not load: ${err && err.message ? err.message : err}`);
  process.exit(1);
}
