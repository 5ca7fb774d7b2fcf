// The TypeScript users' view of pkg/index.d.ts, checked by the real `tsc --strict` against the
// providers' SDK types (openai, @anthropic-ai/sdk, ai; their own .d.ts checked too):
// - fixture/sdk.ts passes the SDKs' types into the from… functions and assigns the to…
//   results to them, with no cast, once resolved as `module: nodenext` and once as
//   `moduleResolution: bundler`; its `@ts-expect-error` lines must stay errors;
// - fixture/negative.ts holds deliberate errors, which tsc must report where they are marked;
// - what the converters write for conversations of each format (samples.mjs, the shared
//   transcripts) is written out as literals that tsc checks against the SDK's type and the
//   package's own: the types say what the converters do.
//
//   node --test tests/types/          (needs pkg/ built: scripts/build.sh)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cc from 'context-compactor';
import * as samples from './samples.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixture/', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const CONVERSATIONS = fileURLToPath(new URL('../../../shared/conversations/', import.meta.url));

/** `tsc -p config` in `cwd`: its exit status and everything it printed. */
function tsc(cwd, config, ...args) {
  const run = spawnSync(process.execPath, [TSC, '-p', config, '--pretty', 'false', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 300_000,
  });
  if (run.error) throw run.error;
  return { status: run.status, output: run.stdout + run.stderr };
}

for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
  test(`the SDKs' types go into the from… functions and the to… results are theirs, no cast (${config})`, () => {
    const { status, output } = tsc(FIXTURE, config, '--listFiles');
    // --listFiles prints the program's files as absolute paths; diagnostics are relative.
    const files = output.split('\n').filter((line) => line.startsWith('/'));
    const diagnostics = output.split('\n').filter((line) => line && !line.startsWith('/')).join('\n');
    assert.equal(status, 0, `tsc -p ${config} failed:\n${diagnostics}`);
    assert.ok(
      files.includes(join(ROOT, 'pkg/index.d.ts')),
      `'context-compactor' must resolve to this repository's pkg/index.d.ts; the program's files:\n${files.join('\n')}`,
    );
  });
}

test('the deliberate errors of fixture/negative.ts are reported, each where it is marked, and no other', () => {
  const marked = readFileSync(join(FIXTURE, 'negative.ts'), 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      const mark = /\/\/ error (TS\d+)$/.exec(line);
      return mark ? [`negative.ts:${i + 1} ${mark[1]}`] : [];
    });
  assert.ok(marked.length > 0, 'negative.ts marks its errors');
  const { status, output } = tsc(FIXTURE, 'tsconfig.negative.json');
  const reported = [...output.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map(
    ([, file, line, code]) => `${file}:${line} ${code}`,
  );
  assert.notEqual(status, 0, `tsc must fail on negative.ts:\n${output}`);
  assert.deepEqual(reported, marked, `tsc's errors are not the marked ones:\n${output}`);
});

// ---- What the converters write, as the types say ---------------------------------------

const SDK_TYPE = {
  openai: 'ChatCompletionMessageParam',
  responses: 'ResponseInputItem',
  anthropic: 'MessageParam',
  vercel: 'ModelMessage',
};
const OWN_TYPE = {
  openai: 'OpenAIChatMessage',
  responses: 'OpenAIResponsesItem',
  anthropic: 'AnthropicMessage',
  vercel: 'VercelAIMessage',
};
const READ = { openai: cc.fromOpenAI, responses: cc.fromOpenAIResponses, anthropic: cc.fromAnthropic, vercel: cc.fromVercelAI };
const WRITE = {
  openai: cc.toOpenAI,
  responses: cc.toOpenAIResponses,
  anthropic: (messages) => cc.toAnthropic(messages),
  vercel: cc.toVercelAI,
};

/**
 * The conversations, each with the formats it is written to: samples.mjs back to its own
 * format; each transcript to its own, Anthropic or Chat Completions, and the AI SDK.
 * (Not yet to the Responses API: assistant text from the other formats is written as
 * `output_text` parts without `annotations`, in an item without `id` and `status`, which
 * openai's `ResponseInputItem` does not admit.)
 */
function conversations() {
  const list = [
    { name: 'samples.chat', format: 'openai', value: samples.chat, to: ['openai'] },
    { name: 'samples.responses', format: 'responses', value: samples.responses, to: ['responses'] },
    { name: 'samples.anthropic', format: 'anthropic', value: samples.anthropic, to: ['anthropic'] },
    { name: 'samples.vercel', format: 'vercel', value: samples.vercel, to: ['vercel'] },
  ];
  for (const file of readdirSync(CONVERSATIONS).filter((f) => f.endsWith('.json')).sort()) {
    const format = file.endsWith('.anthropic.json') ? 'anthropic' : 'openai';
    const value = JSON.parse(readFileSync(join(CONVERSATIONS, file), 'utf8'));
    list.push({ name: file, format, value, to: ['openai', 'anthropic', 'vercel'] });
  }
  return list;
}

/** A TypeScript module checking every conversation and what it is written as; a label per line. */
function outputsModule() {
  const lines = [
    "import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';",
    "import type { ResponseInputItem } from 'openai/resources/responses/responses';",
    "import type { MessageParam, TextBlockParam } from '@anthropic-ai/sdk/resources/messages';",
    "import type { ModelMessage } from 'ai';",
    "import type { AnthropicMessage, OpenAIChatMessage, OpenAIResponsesItem, VercelAIMessage } from 'context-compactor';",
    '// `v` is a `T`; unlike an annotated literal, without excess-property errors: the converters',
    "// carry a provider's other fields over, and the types list only the fields the converters know.",
    'declare function is<T>(): <V extends T>(v: V) => V;',
  ];
  const labels = lines.map(() => 'preamble');
  const check = (label, type, value) => {
    lines.push(`is<${type}>()(${JSON.stringify(value)});`);
    labels.push(label);
  };
  for (const { name, format, value, to } of conversations()) {
    if (format === 'anthropic') {
      check(`${name}: the messages`, 'MessageParam[]', value.messages);
      if (value.system !== undefined) check(`${name}: the system prompt`, 'string | TextBlockParam[]', value.system);
    } else {
      check(`${name}: the input`, `${SDK_TYPE[format]}[]`, value);
    }
    const read = READ[format](value);
    for (const target of to) {
      const system = target === format && Array.isArray(read.system) ? read.system : undefined;
      WRITE[target](read.messages, system).forEach((message, i) => {
        check(`${name} → ${target}, [${i}] as ${SDK_TYPE[target]}`, SDK_TYPE[target], message);
        check(`${name} → ${target}, [${i}] as ${OWN_TYPE[target]}`, OWN_TYPE[target], message);
      });
    }
  }
  return { text: lines.join('\n') + '\n', labels };
}

test("what the converters write is a value of the SDK's type and of the package's (samples, transcripts)", () => {
  const { text, labels } = outputsModule();
  // A project of its own whose node_modules is this repository's, as a user's would be.
  const dir = mkdtempSync(join(tmpdir(), 'context-compactor-types-'));
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), '{ "private": true, "type": "module" }\n');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ extends: join(FIXTURE, 'tsconfig.nodenext.json'), files: ['outputs.ts'] }),
    );
    writeFileSync(join(dir, 'outputs.ts'), text);
    const { status, output } = tsc(dir, 'tsconfig.json');
    // Each error under the label of its line (the line itself is a long JSON literal).
    const report = output.replace(/^outputs\.ts\((\d+),\d+\): /gm, (_, line) => `${labels[line - 1]}: `);
    assert.equal(status, 0, `tsc rejected what the converters wrote:\n${report.slice(0, 20_000)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
