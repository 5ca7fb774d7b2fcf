// Prints bench/results/latest.json (written by `npm run bench`) as the Markdown table
// of bench/README.md (Latest figures): `node bench/table.mjs [results.json]`.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? new URL('./results/latest.json', import.meta.url);
const { date, machine, rows } = JSON.parse(readFileSync(file, 'utf8'));
const ms = (v) => v.toFixed(v >= 10 ? 1 : v >= 1 ? 2 : 3);
const cell = (m) => (m ? `${ms(m.median)} (${ms(m.min)}..${ms(m.max)})` : '–');
console.log(`<!-- ${date}, ${machine} -->`);
console.log('| case | input | package ms, median (min..max) | peer ms, median (min..max) | ratio |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.case} | ${r.input} | ${cell(r.ours)} | ${cell(r.peer)} | ${r.ratio === null ? '–' : `${r.ratio.toFixed(2)}×`} |`);
}
