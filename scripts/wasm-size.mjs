// Usage: node scripts/wasm-size.mjs <file.wasm> [report.json]
// Prints the raw, gzip (-9) and brotli (q11) sizes of a file; writes them as JSON when asked.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const [file, out] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/wasm-size.mjs <file.wasm> [report.json]');
  process.exit(2);
}
const bytes = readFileSync(file);
const report = {
  file,
  raw: bytes.length,
  gzip: gzipSync(bytes, { level: 9 }).length,
  brotli: brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).length,
};
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`${file}: raw ${report.raw} B (${kib(report.raw)}), gzip ${report.gzip} B (${kib(report.gzip)}), brotli ${report.brotli} B (${kib(report.brotli)})`);
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  console.log(`size report written to ${out}`);
}
