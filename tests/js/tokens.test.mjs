// estimateTokens (the package's fast heuristic) against a real BPE tokenizer:
// js-tiktoken's o200k_base (GPT-4o / o-series), on every shared transcript.
//
// "Exact" count of a conversation, as the provider sees the model messages
// (the system prompt is not part of `messages` and is not counted on either side):
//   Σ over messages of  PER_MESSAGE (3, the OpenAI cookbook's tokens_per_message)
//     + Σ over blocks:
//         text         → tokens(text)
//         tool_use     → PER_TOOL_BLOCK (3) + tokens(name) + tokens(JSON.stringify(input))
//                        (the `arguments` string the model writes)
//         tool_result  → PER_TOOL_BLOCK (3) + tokens(content text; text parts joined)
// Ids (tool_use ids, message ids) and timestamps are not counted: the model does not
// see them as text (tool call ids are a few tokens at most).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Tiktoken } from 'js-tiktoken/lite';
import o200k_base from 'js-tiktoken/ranks/o200k_base';
import { estimateTokens, fromAnthropic, fromOpenAI } from 'context-compactor';
import { conversationFiles, loadConversation } from './support/conversations.mjs';

const PER_MESSAGE = 3;
const PER_TOOL_BLOCK = 3;
const MAE_LIMIT = 0.10;

const enc = new Tiktoken(o200k_base);
const countTokens = (s) => enc.encode(s).length;
const count = countTokens;
// The naive baseline, applied to the same pieces the exact count reads.
const quarterChars = (s) => s.length / 4;

function resultText(content) {
  if (typeof content === 'string') return content;
  return content.filter((p) => typeof p.text === 'string').map((p) => p.text).join('\n');
}

function exactTokens(messages, count = countTokens) {
  let total = 0;
  for (const m of messages) {
    total += PER_MESSAGE;
    for (const b of m.content) {
      if (b.type === 'text') total += count(b.text);
      else if (b.type === 'tool_use') total += PER_TOOL_BLOCK + count(b.name) + count(typeof b.input === 'string' ? b.input : JSON.stringify(b.input));
      else if (b.type === 'tool_result') total += PER_TOOL_BLOCK + count(resultText(b.content));
      else total += count(JSON.stringify(b));
    }
  }
  return total;
}

function measure() {
  return conversationFiles().map((file) => {
    const x = loadConversation(file);
    const { messages } = file.endsWith('.anthropic.json') ? fromAnthropic(x) : fromOpenAI(x);
    const exact = exactTokens(messages);
    const estimate = estimateTokens(messages);
    const quarter = exactTokens(messages, quarterChars);
    return { file, messages: messages.length, exact, estimate, error: (estimate - exact) / exact, quarterError: (quarter - exact) / exact };
  });
}

test('the tokenizer works (sanity)', () => {
  assert.equal(count('hello world'), 2);
  assert.ok(exactTokens([{ role: 'user', content: [{ type: 'text', text: 'hello world' }] }]) === PER_MESSAGE + 2);
});

test('estimateTokens is within a loose bound of o200k_base on every transcript (table printed)', () => {
  const rows = measure();
  assert.ok(rows.length >= 36);
  const pct = (e) => `${(e * 100).toFixed(1)}%`.padStart(7);
  console.log(`\n${'file'.padEnd(90)} ${'msgs'.padStart(4)} ${'exact'.padStart(7)} ${'estimate'.padStart(8)} ${'error'.padStart(7)}`);
  for (const r of rows) {
    console.log(`${r.file.padEnd(90)} ${String(r.messages).padStart(4)} ${String(r.exact).padStart(7)} ${String(r.estimate).padStart(8)} ${pct(r.error)}`);
  }
  const mae = rows.reduce((s, r) => s + Math.abs(r.error), 0) / rows.length;
  const bias = rows.reduce((s, r) => s + r.error, 0) / rows.length;
  const quarterMae = rows.reduce((s, r) => s + Math.abs(r.quarterError), 0) / rows.length;
  const worst = rows.reduce((w, r) => (Math.abs(r.error) > Math.abs(w.error) ? r : w));
  const totalExact = rows.reduce((s, r) => s + r.exact, 0);
  const totalEstimate = rows.reduce((s, r) => s + r.estimate, 0);
  console.log(`\nmean absolute error ${pct(mae)}; mean signed error ${pct(bias)}; worst ${worst.file} ${pct(worst.error)}; `
    + `aggregate ${totalEstimate} vs ${totalExact} (${pct((totalEstimate - totalExact) / totalExact)}); chars/4 would have ${pct(quarterMae)}`);
  for (const r of rows) {
    assert.ok(r.estimate > 0, `${r.file}: estimate ${r.estimate}`);
    assert.ok(Math.abs(r.error) < 0.25, `${r.file}: estimate ${r.estimate} vs exact ${r.exact} (${pct(r.error)})`);
  }
  assert.ok(mae < MAE_LIMIT, `mean absolute error ${pct(mae)} ≥ ${MAE_LIMIT * 100}%`);
});

test('the two formats of a transcript give the same estimate', () => {
  const rows = new Map(measure().map((r) => [r.file, r]));
  for (const [file, r] of rows) {
    if (!file.endsWith('.anthropic.json')) continue;
    const other = rows.get(file.replace('.anthropic.json', '.openai.json'));
    assert.equal(other.exact, r.exact, `${file}: exact counts differ between formats`);
    assert.equal(other.estimate, r.estimate, `${file}: estimates differ between formats`);
  }
});

test('estimateTokens grows with content and counts tool inputs and results', () => {
  const turn = { owner: 'u', number: 1 };
  const base = estimateTokens([{ role: 'user', turn_id: turn, content: [{ type: 'text', text: 'short' }] }]);
  const long = estimateTokens([{ role: 'user', turn_id: turn, content: [{ type: 'text', text: 'short '.repeat(1000) }] }]);
  assert.ok(long > base * 100, `${long} vs ${base}`);
  const text = 'The quick brown fox jumps over the lazy dog. '.repeat(50);
  const asResult = estimateTokens([
    { role: 'assistant', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_use', id: 't1', name: 'bash', input: { cmd: text } }] },
    { role: 'user', turn_id: { owner: 'a', number: 1 }, content: [{ type: 'tool_result', tool_use_id: 't1', content: text }] },
  ]);
  const exact = 2 * count(text);
  assert.ok(Math.abs(asResult - exact) / exact < 0.25, `tool blocks: estimate ${asResult} vs ~${exact}`);
  assert.equal(estimateTokens([]), 0);
});
