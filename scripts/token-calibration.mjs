// Where the token estimate's costs come from, and how it does away from the test
// transcripts. Run after a build:  node scripts/token-calibration.mjs
//
// Corpus (none of it is a test transcript): Python's standard library, the Markdown
// docs and TypeScript sources in node_modules, and Rust crates in the cargo registry.
// 1. Splits the corpus with o200k_base's pre-tokenizer regex and prints, per kind of
//    piece and length, the average o200k_base tokens per piece: the table the
//    constants in src/tokens.rs were read from.
// 2. Prints the mean absolute error of `estimateTokens` per kind of file, next to chars/4.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import { estimateTokens } from 'context-compactor';

const enc = new Tiktoken(o200k_base);
const PRE_TOKENIZER = /[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+/gu;
const PER_KIND = 40;

function files(dir, ext) {
  const out = [];
  const walk = (d) => {
    let entries = [];
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      if (out.length >= PER_KIND) return;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(ext) && fs.statSync(p).size > 500) out.push(p);
    }
  };
  walk(dir);
  return out;
}

const python = fs.readdirSync('/usr/lib').find((d) => /^python3\.\d+$/.test(d));
const corpus = {
  python: python ? files(`/usr/lib/${python}`, '.py') : [],
  markdown: files('node_modules', '.md'),
  typescript: files('node_modules/openai/src', '.ts'),
  rust: files(path.join(os.homedir(), '.cargo/registry/src'), '.rs'),
};

function kind(piece) {
  if (/^\s+$/u.test(piece)) return ['whitespace', 1];
  if (/^\p{N}+$/u.test(piece)) return ['digits', piece.length];
  const letters = piece.replace(/^[^\p{L}]/u, '');
  if (/^\p{L}/u.test(letters)) {
    const lead = letters.length === piece.length ? 'bare' : piece[0] === ' ' || piece[0] === '\t' ? 'space' : 'punctuation';
    return [`word after ${lead}`, letters.length];
  }
  return ['punctuation run', piece.trimStart().replace(/[\r\n/]+$/u, '').length || 1];
}

const table = new Map();
for (const file of Object.values(corpus).flat()) {
  for (const [piece] of fs.readFileSync(file, 'utf8').matchAll(PRE_TOKENIZER)) {
    const [k, len] = kind(piece);
    const row = table.get(k) ?? new Map();
    const cell = row.get(Math.min(len, 16)) ?? { pieces: 0, tokens: 0 };
    cell.pieces += 1;
    cell.tokens += enc.encode(piece).length;
    row.set(Math.min(len, 16), cell);
    table.set(k, row);
  }
}
console.log('o200k_base tokens per pre-tokenizer piece, by kind and length (16 = 16 or more); pieces in parentheses');
for (const [k, row] of table) {
  const cells = [...row].sort((a, b) => a[0] - b[0]).map(([len, c]) => `${len}:${(c.tokens / c.pieces).toFixed(2)}(${c.pieces})`);
  console.log(`  ${k}: ${cells.join(' ')}`);
}

const pct = (x) => `${(x * 100).toFixed(1)}%`;
console.log('\nmean absolute error per file, against o200k_base');
for (const [name, list] of Object.entries(corpus)) {
  if (list.length === 0) { console.log(`  ${name}: no files found`); continue; }
  let estimate = 0, quarter = 0;
  for (const file of list) {
    const text = fs.readFileSync(file, 'utf8');
    const exact = enc.encode(text).length;
    // One user message holding the text; the estimate adds 4 tokens per message.
    const guess = estimateTokens([{ role: 'user', turn_id: { owner: 'u', number: 1 }, content: [{ type: 'text', text }] }]) - 4;
    estimate += Math.abs(guess - exact) / exact;
    quarter += Math.abs(text.length / 4 - exact) / exact;
  }
  console.log(`  ${name.padEnd(10)} ${String(list.length).padStart(3)} files: estimateTokens ${pct(estimate / list.length).padStart(6)}, chars/4 ${pct(quarter / list.length).padStart(6)}`);
}
